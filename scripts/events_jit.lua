-- events_jit.lua: timing a kernel written in Lua with events (the twin of events.lua).
-- Launches return at once; the events are recorded in the stream between them and
-- gpu.elapsed gives milliseconds.
local vecadd = gpu.jit(function(A, B, C)
  local i = gpu.grid(1)
  C[i] = A[i] + B[i]
end)
local n = 2^24 + 11
local a, b = gpu.random.uniform(-1, 1, n), gpu.random.uniform(-1, 1, n)
local c = gpu.zeros_like(a)
local run = vecadd[math.ceil(n / 256), 256]
run(a, b, c)                          -- warm-up: compiles and loads the kernel
gpu.synchronize()

local stream = gpu.stream()
local start, stop = gpu.event(), gpu.event()
local reps = 20
local launch = vecadd[{math.ceil(n / 256), 256, stream = stream}]
start:record(stream)
for _ = 1, reps do launch(a, b, c) end
stop:record(stream)
stop:synchronize()
local ms = gpu.elapsed(start, stop) / reps
print(("vecadd of %d float32: %.3f ms a launch, %.0f GB/s (3 x 4 x N bytes)")
      :format(n, ms, 3 * 4 * n / (ms * 1e-3) / 1e9))
