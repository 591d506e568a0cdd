-- algo.lua: gpuhost's figures for issue 11's targets (reductions, scans, sorting, matmul,
-- FFT), run by scripts/bench/algo.sh (and run.sh) with scripts/bench/algo_cupy.py giving
-- CuPy's under the same names. Prints "name<TAB>value" lines: device times in ms (CUDA
-- events around repeated calls after a warm-up, median of 5), end-to-end times in µs;
-- never asserts a time. On the CPU backend it runs smaller sizes (for a look, not figures).
local function out(name, v) print(("%s\t%.6g"):format(name, v)); io.stdout:flush() end
local function median(t) table.sort(t); return t[(#t + 1) // 2] end
local cpu = gpu.backend() == "cpu"
local only = arg[1]

local function device_ms(f, reps)
  f(); gpu.synchronize()
  local e0, e1, times = gpu.event(), gpu.event(), {}
  for _ = 1, 5 do
    e0:record()
    for _ = 1, reps do f() end
    e1:record()
    e1:synchronize()
    times[#times + 1] = gpu.elapsed(e0, e1) / reps
  end
  return median(times)
end
local function wall_us(f, n)
  f(); gpu.synchronize()
  local times = {}
  for _ = 1, 7 do
    local t0 = gpu.clock()
    for _ = 1, n do f() end
    gpu.synchronize()
    times[#times + 1] = (gpu.clock() - t0) / n * 1e6
  end
  return median(times)
end
local function want(name) return only == nil or only == name end

-- reductions
if want("reduce") then
  local N = cpu and 2^22 or 2^28
  local a = gpu.random.uniform(-1, 1, N)
  -- the device's read bandwidth: a kernel that reads 16 bytes a load and writes nothing
  local read = gpu.kernel([[
extern "C" __global__ void readonly(const float4 *a, long long n4, float *sink) {
  float4 s = make_float4(0, 0, 0, 0);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
    float4 v = a[i];
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  if (s.x == 12345.0f && s.y == 0.5f) sink[0] = s.z + s.w;
}]])
  local sink = gpu.zeros(1)
  local blocks = gpu.device().multiprocessors * 8
  local ms = device_ms(function() read[{blocks, 256}](a, N // 4, sink) end, 10)
  out("read_GBps", 4 * N / (ms * 1e-3) / 1e9)
  local o = gpu.zeros({})
  ms = device_ms(function() gpu.sum(a, {out = o}) end, 10)
  out("sum_GBps", 4 * N / (ms * 1e-3) / 1e9)
  local i = gpu.zeros({}, "int64")
  ms = device_ms(function() gpu.argmax(a, {out = i}) end, 10)
  out("argmax_GBps", 4 * N / (ms * 1e-3) / 1e9)
  local R = cpu and 2^14 or 2^20
  local tall, wide, thin = a[{{1, R * 256}}]:reshape(R, 256), a[{{1, R * 256}}]:reshape(256, R), a[{{1, 2 * 10^6}}]:reshape(10^6, 2)
  out("sum_tall_last_ms", device_ms(function() tall:sum(2):free() end, 10))
  out("sum_tall_first_ms", device_ms(function() tall:sum(1):free() end, 10))
  out("sum_wide_last_ms", device_ms(function() wide:sum(2):free() end, 10))
  out("sum_wide_first_ms", device_ms(function() wide:sum(1):free() end, 10))
  out("sum_thin_ms", device_ms(function() thin:sum(2):free() end, 10))
  a, tall, wide, thin = nil, nil, nil, nil
  collectgarbage()
end

-- scans
if want("scan") then
  local N = cpu and 2^22 or 2^28
  local a = gpu.random.uniform(-1, 1, N)
  local o = gpu.empty(N)
  local ms = device_ms(function() gpu.cumsum(a, {out = o}) end, 10)
  out("cumsum_GBps", 8 * N / (ms * 1e-3) / 1e9)
  a, o = nil, nil
  collectgarbage()
end

-- sorting: values and 1-based indices (a:sort()), values alone, indices alone
if want("sort") then
  local N = cpu and 2^20 or 2^26
  local a = gpu.random.uniform(-1, 1, N)
  local reps = cpu and 1 or 5
  out("sort_ms", device_ms(function() local v, i = a:sort(); v:free(); i:free() end, reps))
  out("sort_values_ms", device_ms(function() a:sort({indices = false}):free() end, reps))
  out("argsort_ms", device_ms(function() gpu.argsort(a):free() end, reps))
  a = nil
  collectgarbage()
end

-- matmul: 8192^3 float32 and float64 (and TF32), and 64 x 64 end to end
if want("matmul") then
  local M = cpu and 512 or 8192
  for _, dt in ipairs({"float32", "float64"}) do
    local a, b = gpu.random.uniform(-1, 1, {M, M}, dt), gpu.random.uniform(-1, 1, {M, M}, dt)
    local c = gpu.empty({M, M}, dt)
    local ms = device_ms(function() gpu.matmul(a, b, {out = c}) end, cpu and 1 or 5)
    out("matmul_" .. (dt == "float32" and "f32" or "f64") .. "_TFLOPS", 2 * M^3 / (ms * 1e-3) / 1e12)
    if dt == "float32" then
      ms = device_ms(function() gpu.matmul(a, b, {out = c, tf32 = true}) end, cpu and 1 or 5)
      out("matmul_tf32_TFLOPS", 2 * M^3 / (ms * 1e-3) / 1e12)
    end
  end
  local a, b = gpu.random.uniform(-1, 1, {64, 64}), gpu.random.uniform(-1, 1, {64, 64})
  out("matmul64_us", wall_us(function() local c = gpu.matmul(a, b) end, cpu and 1000 or 20000))
  collectgarbage()
end

-- FFT of 2^24 complex64
if want("fft") then
  local N = cpu and 2^20 or 2^24
  local x = gpu.random.uniform(-1, 1, N):astype("complex64")
  out("fft_c64_ms", device_ms(function() gpu.fft.fft(x):free() end, cpu and 1 or 20))
  x = nil
  collectgarbage()
end
