-- half.lua: float16 against float32 in gpuhost, beside CuPy doing the same
-- (scripts/bench/half_cupy.py prints its figures under the same names). "name<TAB>ms a
-- call": repeated calls and a synchronization, median of 5 rounds; products also give
-- TFLOP/s (2 n^3 / time), memory-bound rows GB/s (bytes read and written / time). Never
-- asserts a time. Run: build/gpuhost scripts/bench/half.lua; python3 scripts/bench/half_cupy.py
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local cpu = gpu.backend() == "cpu"
local N = cpu and 1 << 16 or 1 << 26
local M = cpu and 128 or 8192
gpu.random.seed(1)
for _, dt in ipairs({"float16", "float32"}) do
  local a = gpu.random.uniform(-1, 1, N):astype(dt)
  local b = gpu.random.uniform(-1, 1, N):astype(dt)
  local c = gpu.empty(N, dt)
  local es = dt == "float16" and 2 or 4
  local gbs = function(bytes) return function(t) return ("%.0f GB/s"):format(bytes / t / 1e9) end end
  bench(("add %s 2^26 (out)"):format(dt), function() gpu.add(a, b, {out = c}) end, 20, gbs(3 * N * es))
  bench(("a * 0.5 + b %s 2^26"):format(dt), function() return a * 0.5 + b end, 20)
  bench(("sum %s 2^26 -> number"):format(dt), function() return a:sum() end, 20, gbs(N * es))
  bench(("astype float32->%s 2^26"):format(dt), function() return b:astype("float32"):astype(dt) end, 10)
  local x = gpu.random.uniform(-1, 1, {M, M}):astype(dt)
  local y = gpu.random.uniform(-1, 1, {M, M}):astype(dt)
  local z = gpu.empty({M, M}, dt)
  bench(("matmul %s %dx%d"):format(dt, M, M), function() gpu.matmul(x, y, {out = z}) end, cpu and 2 or 10,
        function(t) return ("%.1f TFLOP/s"):format(2 * M ^ 3 / t / 1e12) end)
end
