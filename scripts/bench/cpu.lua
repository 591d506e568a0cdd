-- cpu.lua: the CPU backend's speed. vecadd on 2^22 float32 against a plain C loop doing the
-- same work (built here with $CC, else cc, -O2), as a ratio; a shared-memory reduction
-- of 2^20 float32 in 256-thread blocks, whose barriers make every thread a fiber; and the
-- array operation a + b on 2^24 float32 against numpy's (python3 with numpy, when there).
-- Run: build/gpuhost --cpu scripts/bench/cpu.lua
if gpu.backend() ~= "cpu" then error("run on the CPU backend: gpuhost --cpu scripts/bench/cpu.lua", 0) end

local function median(t) table.sort(t); return t[(#t + 1) // 2] end
local function time(f, reps)
  f()
  local t = {}
  for i = 1, reps do
    local t0 = gpu.clock()
    f()
    t[i] = (gpu.clock() - t0) * 1e3
  end
  return median(t)
end

local N = 2^22
-- the plain C loop
local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p " .. dir)
local f = assert(io.open(dir .. "/loop.c", "w"))
f:write(([[
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
__attribute__((noinline)) static void vecadd(const float *a, const float *b, float *c, int n) {
  for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}
int main(void) {
  int n = %d;
  float *a = malloc(4 * (size_t)n), *b = malloc(4 * (size_t)n), *c = malloc(4 * (size_t)n);
  for (int i = 0; i < n; i++) { a[i] = i * 0.5f; b[i] = 1.0f; c[i] = 0; }
  double t[15];
  vecadd(a, b, c, n);
  for (int r = 0; r < 15; r++) { double s = now(); vecadd(a, b, c, n); t[r] = now() - s; }
  qsort(t, 15, sizeof *t, cmp);
  printf("%%.4f %%g\n", t[7], c[n - 1]);
  return 0;
}]]):format(N))
f:close()
local cc = os.getenv("CC") or "cc"
assert(os.execute(("%s -O2 -o %s/loop %s/loop.c"):format(cc, dir, dir)), "cannot build the C loop")
local p = io.popen(dir .. "/loop")
local c_ms = tonumber(p:read("a"):match("^(%S+)"))
p:close()
os.execute("rm -rf " .. dir)

local vecadd = gpu.kernel([[
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}]])
local checked = gpu.kernel([[
extern "C" __global__ void vecadd_array(gpu::array<float> a, gpu::array<float> b, gpu::array<float> c) {
  long long i = gpu::grid(1);
  c[i] = a[i] + b[i];
}]])
local a, b, c = gpu.arange(N), gpu.ones(N), gpu.zeros(N)
local run, run2 = vecadd[{N // 256, 256}], checked[{N // 256, 256}]
local g_ms = time(function() run(a, b, c, N) end, 15)
local g2_ms = time(function() run2(a, b, c) end, 15)
local workers = os.getenv("GPUHOST_CPU_THREADS") or "one per core"

local reduce = gpu.kernel([[
__global__ void reduce(const float *in, float *out, int n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}]])
local M = 2^20
local x, partial = gpu.ones(M), gpu.zeros(M // 256)
local r_ms = time(function() reduce[{M // 256, 256}](x, partial, M) end, 5)
assert(partial:tohost()[1] == 256)

print(("CPU backend (%s, %s workers), 2^22 float32:"):format(gpu.device().name, workers))
print(("  plain C loop, one core        %8.2f ms"):format(c_ms))
print(("  vecadd kernel (float *)       %8.2f ms   %.2fx the C loop"):format(g_ms, g_ms / c_ms))
print(("  vecadd kernel (gpu::array)    %8.2f ms   %.2fx the C loop"):format(g2_ms, g2_ms / c_ms))
print(("  reduction of 2^20 in 256-thread blocks with __syncthreads: %.1f ms (%d barriers a block)")
      :format(r_ms, 9))

-- a + b on 2^24 float32, a new array each time as numpy's a + b makes one
local A, B = gpu.arange(2^24), gpu.ones(2^24)
local add_ms = time(function() local d = A + B; d:free() end, 9)
local np = io.popen([[python3 -c "
import statistics, time
import numpy as np
a = np.arange(2**24, dtype=np.float32); b = np.ones(2**24, np.float32); ts = []
for _ in range(10):
    s = time.perf_counter(); c = a + b; ts.append(time.perf_counter() - s)
print(statistics.median(ts[1:]) * 1e3)" 2>/dev/null]])
local np_ms = tonumber(np:read("a") or "")
np:close()
if np_ms then
  print(("  a + b, 2^24 float32 (array op) %7.2f ms   numpy %.2f ms: %.2fx numpy's speed (target: 0.8 or more)")
        :format(add_ms, np_ms, np_ms / add_ms))
else
  print(("  a + b, 2^24 float32 (array op) %7.2f ms   (no numpy to compare with)"):format(add_ms))
end

-- issue 11's targets (sum and matmul against numpy)
dofile((arg[0]:match("^(.*)/") or ".") .. "/cpu_algo.lua")
