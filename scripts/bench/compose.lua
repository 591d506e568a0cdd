-- compose.lua: gpuhost's NumPy functions of lua/compose.lua (take, extract, searchsorted,
-- histogram, concatenate, linspace) against CuPy's, with scripts/bench/compose_cupy.py
-- giving CuPy's under the same names. Prints "name<TAB>µs a call" (wall time of repeated
-- calls and a synchronization, median of 5 rounds); never asserts a time. Run:
--   build/gpuhost scripts/bench/compose.lua; python3 scripts/bench/compose_cupy.py
local function median(t) table.sort(t); return t[(#t + 1) // 2] end
local function bench(name, f, reps)
  f(); gpu.synchronize()
  local times = {}
  for _ = 1, 5 do
    local t0 = gpu.clock()
    for _ = 1, reps do f() end
    gpu.synchronize()
    times[#times + 1] = (gpu.clock() - t0) / reps * 1e6
  end
  print(("%s\t%.1f"):format(name, median(times)))
  io.stdout:flush()
end
local N = gpu.backend() == "cpu" and 1 << 16 or 1 << 24
gpu.random.seed(1)
local a = gpu.random.random(N)
local idx = gpu.random.integers(1, N + 1, N)
local sorted = a:sort({indices = false})
local mask = a:gt(0.5)
local small = gpu.random.random(1000)
local three = gpu.array({1, 2, 3}, "int64")
bench("take N random", function() return gpu.take(a, idx) end, 20)
bench("a[mask], half of N", function() return a[mask] end, 20)
bench("searchsorted N in N", function() return gpu.searchsorted(sorted, a) end, 10)
bench("histogram N, 100 bins", function() return gpu.histogram(a, 100, {range = {0, 1}}) end, 20)
bench("concatenate 2 x N", function() return gpu.concatenate({a, a}) end, 20)
bench("take 3 of 1000", function() return gpu.take(small, three) end, 200)
bench("linspace 1000", function() return gpu.linspace(0, 1, 1000) end, 200)
