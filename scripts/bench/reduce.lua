-- reduce.lua: gpu.reduce (numba's cuda.reduce) against numba's cuda.reduce and CuPy's
-- cp.sum (scripts/bench/reduce.py prints theirs under the same names), with gpu's own
-- a:sum() beside. "name<TAB>ms a call": wall time of repeated calls and a
-- synchronization, median of 5 rounds; never asserts a time. "-> number" waits for the
-- result at every call (a Lua number, numba's host scalar, float(cp.sum(x))); "-> res"
-- queues the result into a device array. Run:
--   build/gpuhost scripts/bench/reduce.lua; python3 scripts/bench/reduce.py
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local cpu = gpu.backend() == "cpu"
local N = cpu and 1 << 16 or 1 << 24
gpu.random.seed(1)
local x, xs = gpu.random.uniform(-1, 1, N), gpu.random.uniform(-1, 1, 1024)
local res = gpu.empty(1)

local t0 = gpu.clock()
local sum = gpu.reduce(function(a, b) return a + b end)
sum(xs)
print(("first call (compile, or the disk cache)\t%.3f"):format((gpu.clock() - t0) * 1e3))
local max = gpu.reduce(function(a, b) return math.max(a, b) end)
for _, c in ipairs({{x, N, 20}, {xs, 1024, 200}}) do
  local a, n, reps = c[1], c[2], c[3]
  bench(("sum float32 %d -> number"):format(n), function() return sum(a) end, reps)
  bench(("sum float32 %d -> res"):format(n), function() return sum(a, {res = res}) end, reps)
  bench(("max float32 %d -> res"):format(n), function() return max(a, {res = res, init = -math.huge}) end, reps)
  bench(("gpu a:sum() float32 %d -> number"):format(n), function() return a:sum() end, reps)
  bench(("gpu.sum float32 %d -> res"):format(n), function() return gpu.sum(a, {out = res}) end, reps)
end
