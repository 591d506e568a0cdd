-- cpu.lua: the CPU backend's speed, against what a C programmer or a numpy user gets on the
-- same machine in the same run. Each figure is the median of repeated runs after a warm-up.
--   vecadd, SAXPY and a 3-point stencil on 2^24 float32: gpuhost kernels against the same
--   loops in C with OpenMP over all cores (built here: $CC, else cc, -O3 -march=native
--   -fopenmp) and against numpy (python3, when it has numpy); the array operation a + b
--   (a new array each time, as numpy's) against the same;
--   a shared-memory block reduction of 2^20 float32 in 256-thread blocks (9 barriers a
--   block: every thread is a fiber);
--   the launch of a small kernel (one block of 32 threads), prepared and not, and of a
--   vecadd of 2^14 elements in 64 blocks (the blocks are spread over the workers);
--   transposing copies (a:transpose(-1, -2):copy()) against numpy's ascontiguousarray.
-- Run: build/gpuhost --cpu scripts/bench/cpu.lua   (GPUHOST_CPU_THREADS sets the workers)
if gpu.backend() ~= "cpu" then error("run on the CPU backend: gpuhost --cpu scripts/bench/cpu.lua", 0) end

local N = 2^24
local REPS = 15

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

local function capture(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  local out = p:read("a")
  p:close()
  return out
end

-- The C reference: the same three loops, OpenMP over all cores, and one core.
local C_SOURCE = [[
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
#define REPS %d
#define TIME(name, body) do { double t[REPS]; body; \
  for (int r = 0; r < REPS; r++) { double s = now(); body; t[r] = now() - s; } \
  qsort(t, REPS, sizeof *t, cmp); printf("%%s\t%%.4f\n", name, t[REPS / 2]); } while (0)
int main(void) {
  long n = %d;
  float *a = malloc(4 * n), *b = malloc(4 * n), *c = malloc(4 * n);
  for (long i = 0; i < n; i++) { a[i] = i * 0.5f; b[i] = 1.0f; c[i] = 0; }
  TIME("vecadd_omp", _Pragma("omp parallel for") for (long i = 0; i < n; i++) c[i] = a[i] + b[i]);
  TIME("vecadd_one", for (long i = 0; i < n; i++) c[i] = a[i] + b[i]);
  TIME("saxpy_omp", _Pragma("omp parallel for") for (long i = 0; i < n; i++) c[i] = 2.5f * a[i] + b[i]);
  TIME("stencil_omp", _Pragma("omp parallel for") for (long i = 1; i < n - 1; i++)
       c[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1]);
  printf("threads\t%%d\n", omp_get_max_threads());
  return c[n / 2] == 0;
}]]

local function c_figures()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir)
  local f = assert(io.open(dir .. "/loops.c", "w"))
  f:write(C_SOURCE:format(REPS, N))
  f:close()
  local cc = os.getenv("CC") or "cc"
  local ok = os.execute(("%s -O3 -march=native -fopenmp -o %s/loops %s/loops.c"):format(cc, dir, dir))
  local out = ok and capture(dir .. "/loops") or ""
  os.execute("rm -rf " .. dir)
  local t = {}
  for k, v in out:gmatch("(%S+)\t(%S+)") do t[k] = tonumber(v) end
  if not t.vecadd_omp then error("cannot build or run the OpenMP loops with " .. cc .. " -fopenmp", 0) end
  return t
end

local PY_SOURCE = [[
import time, numpy as np
n, reps = %d, %d
a = np.arange(n, dtype=np.float32) * np.float32(0.5); b = np.ones(n, dtype=np.float32)
def t(f):
    f(); s = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); s.append((time.perf_counter() - t0) * 1e3)
    return sorted(s)[reps // 2]
print("vecadd_np\t%%.4f" %% t(lambda: a + b))
print("saxpy_np\t%%.4f" %% t(lambda: np.float32(2.5) * a + b))
print("stencil_np\t%%.4f" %% t(lambda: np.float32(0.25) * a[:-2] + np.float32(0.5) * a[1:-1] + np.float32(0.25) * a[2:]))
z = np.random.standard_normal((10000, 4, 4)); w = np.random.standard_normal((4096, 4096)).astype(np.float32)
print("small_t_np\t%%.4f" %% t(lambda: np.ascontiguousarray(z.transpose(0, 2, 1))))
print("big_t_np\t%%.4f" %% t(lambda: np.ascontiguousarray(w.T)))
print("numpy\t%%s" %% np.__version__)
]]

local function numpy_figures()
  local name = os.tmpname()
  local f = assert(io.open(name, "w"))
  f:write(PY_SOURCE:format(N, REPS))
  f:close()
  local out = capture("python3 " .. name)
  os.remove(name)
  local t = {}
  for k, v in out:gmatch("(%S+)\t(%S+)") do t[k] = tonumber(v) or v end
  return t
end

local kernels = gpu.module([[
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void vecadd_array(gpu::array<float> a, gpu::array<float> b, gpu::array<float> c) {
  long long i = gpu::grid(1);
  c[i] = a[i] + b[i];
}
extern "C" __global__ void saxpy(float s, const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s * x[i] + y[i];
}
extern "C" __global__ void stencil(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}
extern "C" __global__ void reduce(const float *in, float *out, int n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void small(float *x) { x[threadIdx.x] += 1.0f; }
]])

local a, b, c = gpu.arange(N), gpu.ones(N), gpu.zeros(N)
local g = {N // 256, 256}
local k = {
  vecadd = time(function() kernels.vecadd[g](a, b, c, N) end, REPS),
  vecadd_array = time(function() kernels.vecadd_array[g](a, b, c) end, REPS),
  saxpy = time(function() kernels.saxpy[g](2.5, a, b, c, N) end, REPS),
  stencil = time(function() kernels.stencil[g](a, c, N) end, REPS),
  -- the array operation, a new array each time as numpy's a + b makes one
  array_add = time(function() local d = a + b; d:free() end, REPS),
}
a:free(); b:free(); c:free()

local M = 2^20
local x, partial = gpu.ones(M), gpu.zeros(M // 256)
k.reduce = time(function() kernels.reduce[{M // 256, 256}](x, partial, M) end, 5)
assert(partial:tohost()[1] == 256)

local LAUNCHES = 20000
local s = gpu.zeros(32)
local run = kernels.small[{1, 32}]
k.launch_prepared = time(function() for _ = 1, LAUNCHES do run(s) end end, 5) * 1e3 / LAUNCHES
k.launch = time(function() for _ = 1, LAUNCHES do kernels.small[{1, 32}](s) end end, 5) * 1e3 / LAUNCHES
local v = gpu.zeros(2^14)
local run64 = kernels.vecadd[{64, 256}]
k.launch64 = time(function() for _ = 1, LAUNCHES // 10 do run64(v, v, v, 2^14) end end, 5) * 1e4 / LAUNCHES

-- transposing copies: many small matrices (strided, one element a fiber) and one large
-- one (64 x 64 tiles through shared memory)
local z, w = gpu.random.normal(0, 1, {10000, 4, 4}, "float64"), gpu.random.normal(0, 1, {4096, 4096})
k.small_t = time(function() z:transpose(-1, -2):copy():free() end, REPS)
k.big_t = time(function() w.T:copy():free() end, 5)
z:free(); w:free()

local cf, np = c_figures(), numpy_figures()
local workers = os.getenv("GPUHOST_CPU_THREADS") or "one per core"
print(("CPU backend on %s, %s workers; %s; 2^24 float32, median of %d"):format(
  gpu.device().name, workers, os.date("!%Y-%m-%d"), REPS))
print(("%-40s %10s %10s %10s"):format("", "ms", "C/OpenMP", "numpy"))
local function row(name, ms, c_ms, np_ms)
  -- a ratio above 1 means gpuhost is faster: the other's time over gpuhost's
  print(("%-40s %10.2f %10s %10s"):format(name, ms,
    c_ms and ("%.2fx"):format(c_ms / ms) or "",
    np_ms and ("%.2fx"):format(np_ms / ms) or ""))
end
row("vecadd (float *, int index)", k.vecadd, cf.vecadd_omp, np.vecadd_np)
row("vecadd (gpu::array, gpu::grid)", k.vecadd_array, cf.vecadd_omp, np.vecadd_np)
row("a + b (array operation, new array)", k.array_add, cf.vecadd_omp, np.vecadd_np)
row("SAXPY", k.saxpy, cf.saxpy_omp, np.saxpy_np)
row("3-point stencil", k.stencil, cf.stencil_omp, np.stencil_np)
print(("%-40s %10.2f   (C on one core: %.2f ms; OpenMP threads: %d; numpy %s)"):format(
  "  reference: C vecadd, all cores", cf.vecadd_omp, cf.vecadd_one, cf.threads, np.numpy or "absent"))
row("transposed copy, 10000 x 4 x 4 float64", k.small_t, nil, np.small_t_np)
row("transposed copy, 4096 x 4096 float32", k.big_t, nil, np.big_t_np)
print(("%-40s %10.2f"):format("block reduction, 2^20 in 256-thread blocks", k.reduce))
print(("%-40s %10.2f us"):format("launch of k[{1, 32}](x)", k.launch))
print(("%-40s %10.2f us"):format("launch, prepared: run(x)", k.launch_prepared))
print(("%-40s %10.2f us"):format("vecadd of 2^14 in 64 blocks, prepared", k.launch64))

-- issue 11's targets (sum and matmul against numpy)
dofile((arg[0]:match("^(.*)/") or ".") .. "/cpu_algo.lua")
