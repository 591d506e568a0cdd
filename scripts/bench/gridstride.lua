-- gridstride.lua: a grid-stride loop (out[i] = a[i] * 2 + out[i], 2^24 float32) written
-- three ways: gpu.jit, CUDA C on gpu::array, CUDA C on raw pointers; and, as an upper
-- bound, gpu::array read as contiguous only. scripts/bench/gridstride.py prints numba's
-- under the same names. "name<TAB>ms a launch": 10 launches and a synchronization, median
-- of 21; never asserts a time. Run:
--   build/gpuhost scripts/bench/gridstride.lua; python3 scripts/bench/gridstride.py
local n = tonumber(arg and arg[1]) or 1 << 24
local a = gpu.arange(n):astype("float32")
local out = gpu.zeros(n, "float32")

local jit = gpu.jit(function(a, out)
  local n = #a
  local i = gpu.grid(1)
  local step = gpu.gridsize(1)
  while i <= n do
    out[i] = a[i] * 2 + out[i]
    i = i + step
  end
end)
local c = gpu.module([[
extern "C" __global__ void garray(gpu::array<float> a, gpu::array<float> out) {
  long long n = a.size;
  for (long long i = gpu::grid(1); i < n; i += gpu::gridsize(1)) out[i] = a[i] * 2.0f + out[i];
}
extern "C" __global__ void raw(const float *a, float *out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = a[i] * 2.0f + out[i];
}
// gpu::array's checks, without its branch to strided views
extern "C" __global__ void contiguous(gpu::array<float> a, gpu::array<float> out) {
  long long n = a.size;
  for (long long i = gpu::grid(1); i < n; i += gpu::gridsize(1)) {
    float x = i < a.size ? a.data[i] : 0.0f, y = i < out.size ? out.data[i] : 0.0f;
    if (i < out.size) out.data[i] = x * 2.0f + y;
  }
}]])

local function median(f)
  local t = {}
  for r = 1, 21 do
    gpu.synchronize()
    local t0 = gpu.clock()
    for _ = 1, 10 do f() end
    gpu.synchronize()
    t[r] = (gpu.clock() - t0) * 1e3 / 10
  end
  table.sort(t)
  return t[11]
end
for _, blocks in ipairs({264, 1056, 65536}) do
  local rows = {
    {"gpu.jit", function() jit[blocks, 256](a, out) end},
    {"C_gpu::array", function() c.garray[blocks, 256](a, out) end},
    {"C_raw_pointers", function() c.raw[blocks, 256](a, out, n) end},
    {"C_gpu::array_contiguous_only", function() c.contiguous[blocks, 256](a, out) end},
  }
  for _, r in ipairs(rows) do r[2]() end
  for _, r in ipairs(rows) do print(("%s_blocks%d\t%.4f"):format(r[1], blocks, median(r[2]))) end
end
