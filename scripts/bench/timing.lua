-- timing.lua: the timing loop the benchmark scripts share (half.lua, sparse.lua, linalg.lua,
-- ndimage.lua and others): bench(name, f, reps [, rate]) calls f once to warm it, then
-- times 5 rounds of `reps` calls, each round closed by a synchronization, and prints
-- "name<TAB>ms a call<TAB>rate(t)" for the median round (rate: a function of the seconds a call, for a
-- GB/s or TFLOP/s column). Never asserts a time. Loaded by the scripts with
--   local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local M = {}

function M.median(t) table.sort(t); return t[(#t + 1) // 2] end

function M.bench(name, f, reps, rate)
  f(); gpu.synchronize()
  local times = {}
  for _ = 1, 5 do
    local t0 = gpu.clock()
    for _ = 1, reps do f() end
    gpu.synchronize()
    times[#times + 1] = (gpu.clock() - t0) / reps
  end
  local t = M.median(times)
  print(("%s\t%.4f\t%s"):format(name, t * 1e3, rate and rate(t) or ""))
  io.stdout:flush()
end

return M
