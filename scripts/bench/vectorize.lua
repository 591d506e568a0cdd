-- vectorize.lua: gpu.vectorize and gpu.jit's gpu.<function>s against numba's
-- @vectorize(target="cuda") and cupy.vectorize (scripts/bench/vectorize.py prints theirs
-- under the same names). "name<TAB>ms a call": wall time of repeated calls and a
-- synchronization, median of 5 rounds; never asserts a time. Run:
--   build/gpuhost scripts/bench/vectorize.lua; python3 scripts/bench/vectorize.py
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local cpu = gpu.backend() == "cpu"
local N = cpu and 1 << 16 or 1 << 24
gpu.random.seed(1)
local x, y = gpu.random.uniform(-1, 1, N), gpu.random.uniform(-1, 1, N)
local xs, ys = gpu.random.uniform(-1, 1, 1024), gpu.random.uniform(-1, 1, 1024)
local out, outs = gpu.empty(N), gpu.empty(1024)

local t0 = gpu.clock()
local axpb = gpu.vectorize(function(a, b) return a * b + 1 end)
axpb(xs, ys)
gpu.synchronize()
print(("first call (compile, or the disk cache)\t%.3f"):format((gpu.clock() - t0) * 1e3))
local gelu = gpu.vectorize(function(v) return 0.5 * v * (1 + gpu.erf(v * 0.7071067811865476)) end)
bench(("a*b+1 float32 %d"):format(N), function() return axpb(x, y, {out = out}) end, 20)
bench("a*b+1 float32 1024", function() return axpb(xs, ys, {out = outs}) end, 200)
bench(("gelu (erf) float32 %d"):format(N), function() return gelu(x, {out = out}) end, 20)
bench(("broadcast a*b+1 %dx1024"):format(N // 1024), function()
  return axpb(x:reshape(N // 1024, 1024), ys, {out = out:reshape(N // 1024, 1024)})
end, 20)
