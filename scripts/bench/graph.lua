-- graph.lua: gpuhost's graph figures for scripts/bench/run.sh ("name<TAB>value" lines):
-- 1,000 dependent small kernels (and the same mixed with 4 KiB device copies) launched
-- eagerly and replayed from a graph, each the median over 7 rounds of the wall time from
-- the first launch to the end of a synchronize; and a graph's update against making it
-- anew. bench/graph.c gives C's figures for the same work.
local function out(name, v) print(("%s\t%.4f"):format(name, v)); io.stdout:flush() end
local function median(t) table.sort(t); return t[(#t + 1) // 2] end

local inc = gpu.kernel([[extern "C" __global__ void inc(float *a, float v) { a[threadIdx.x] += v; }]])
local a = gpu.zeros(32)
local src, dst = gpu.zeros(1024), gpu.zeros(1024)   -- 4 KiB
local N = 1000
local k = inc[{1, 32}]

local function chain() for _ = 1, N do k(a, 1) end end
-- 4 KiB device-to-device copies into an existing array (gpu.copy; before it existed,
-- a:copy(), which also takes an array from the pool each time)
local copy = gpu.copy and function() gpu.copy(dst, src) end or function() local _ = src:copy() end
local function mixed()
  for i = 1, N do
    if i % 2 == 0 then k(a, 1) else copy() end
  end
end

local function wall_us(f)
  f(); gpu.synchronize()
  local t = {}
  for r = 1, 7 do
    local t0 = gpu.clock()
    f()
    gpu.synchronize()
    t[r] = (gpu.clock() - t0) * 1e6
  end
  return median(t)
end

out("graph_chain_eager_us", wall_us(chain))
local g = gpu.graph(chain)
out("graph_chain_replay_us", wall_us(function() g:launch() end))
out("graph_mixed_eager_us", wall_us(mixed))
local gm = gpu.graph(mixed)
out("graph_mixed_replay_us", wall_us(function() gm:launch() end))

-- a new scalar in every launch: updating the executable graph against making it anew
local function timed(f)
  local t = {}
  for r = 1, 7 do local t0 = gpu.clock(); f(r); t[r] = (gpu.clock() - t0) * 1e3 end
  return median(t)
end
out("graph_update_ms", timed(function(r) g:update(function() for _ = 1, N do k(a, r) end end) end))
out("graph_rebuild_ms", timed(function(r)
  local g2 = gpu.graph(function() for _ = 1, N do k(a, r) end end)
  g2:free()
end))
