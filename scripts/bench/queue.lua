-- queue.lua: the two device figures behind the collectives' throttle and the watch's
-- deferred probe (README, "Nor does running ahead of one"). Run on a GPU:
--   build/gpuhost scripts/bench/queue.lua
-- 1. Which call behind a running kernel blocks in the driver (1,022 of each kind on an
--    H200, 2026-12-01): a kernel spins for about 2 s, then calls are queued until one takes
--    longer than 50 ms (each kind of call is made once before, so that loading its module
--    is not what blocks).
-- 2. What an event recorded between two kernels costs the device: a loop of kernels that
--    spin for about 10 us (so the device, not the host, sets the pace), without and with a
--    record after each, the best of 5 rounds (11.6 and 13.6 us on an H200, 2026-12-01).
if gpu.backend() ~= "cuda" then
  print("queue.lua measures a GPU's queue; this is the " .. gpu.backend() .. " backend")
  return
end

local spin = gpu.kernel("__global__ void spin(long long n) { long long t = clock64(); while (clock64() - t < n) {} }")
local tiny = gpu.kernel("__global__ void tiny(float *x) { if (threadIdx.x == 0 && x[0] < -1) x[0] = 0; }")
local x, y = gpu.ones(4), gpu.ones(4)
local e = gpu.event()

local calls = {
  {"launch", function() tiny[{1, 32}](x) end},
  {"event record", function() e:record() end},
  {"device copy", function() gpu.copy(y, x) end},
}
for _, c in ipairs(calls) do
  local name, f = c[1], c[2]
  f(); gpu.synchronize()
  spin[{1, 1}](4000000000)
  local blocked
  for i = 1, 6000 do
    local t = gpu.clock()
    f()
    if gpu.clock() - t > 0.05 then blocked = i; break end
  end
  gpu.synchronize()
  print(("queue\t%s\t%s"):format(name, blocked and ("call %d behind a running kernel blocked"):format(blocked)
                                   or "6000 calls behind a running kernel did not block"))
end

local function step_us(f, n)
  f(); gpu.synchronize()
  local best = math.huge
  for _ = 1, 5 do
    local t0 = gpu.clock()
    for _ = 1, n do f() end
    gpu.synchronize()
    best = math.min(best, (gpu.clock() - t0) / n * 1e6)
  end
  return best
end
local cycles = 20000
local plain = step_us(function() spin[{1, 1}](cycles) end, 5000)
local recorded = step_us(function() spin[{1, 1}](cycles); e:record() end, 5000)
print(("record\tkernels of %d cycles: %.2f us a step, %.2f with an event record between (%.2f us more)"):format(
  cycles, plain, recorded, recorded - plain))
