-- events.lua: timing a kernel with events. Launches return at once; the events are
-- recorded in the stream between them and gpu.elapsed gives milliseconds. Under Nsight
-- the warm-up and the timed loop show as ranges (gpu.range) on the timeline.
local vecadd = gpu.kernel([[
extern "C" __global__ void vecadd(gpu::array<float> A, gpu::array<float> B, gpu::array<float> C) {
  long long i = gpu::grid(1);
  C[i] = A[i] + B[i];
}
]])
local n = 2^24 + 11
local a, b = gpu.random.uniform(-1, 1, n), gpu.random.uniform(-1, 1, n)
local c = gpu.zeros_like(a)
local run = vecadd[math.ceil(n / 256), 256]
gpu.range("warm-up", function()
  run(a, b, c)                        -- compiles and loads the kernel
  gpu.synchronize()
end)

local stream = gpu.stream()
local start, stop = gpu.event(), gpu.event()
local reps = 20
local launch = vecadd[{math.ceil(n / 256), 256, stream = stream}]
gpu.range("timed vecadd", function()
  start:record(stream)
  for _ = 1, reps do launch(a, b, c) end
  stop:record(stream)
  stop:synchronize()
end)
local ms = gpu.elapsed(start, stop) / reps
print(("vecadd of %d float32: %.3f ms a launch, %.0f GB/s (3 x 4 x N bytes)")
      :format(n, ms, 3 * 4 * n / (ms * 1e-3) / 1e9))
