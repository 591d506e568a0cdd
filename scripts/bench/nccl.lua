-- nccl.lua: collectives through gpu.nccl, for scripts/bench/nccl.sh. In one process it
-- drives every device (gpu.nccl.comm({0, 1, ...})); under mpirun one device per process.
-- Rank 0 prints "name<TAB>value" lines: algorithm and bus bandwidth (nccl-tests' formulas:
-- busbw = algbw x 2(n-1)/n for all_reduce, (n-1)/n for all_gather, 1 for broadcast), the
-- 8-byte all_reduce's time, and (one process) a 1 GiB peer copy from device 0 to device 1.
local BYTES = math.tointeger(tonumber(arg and arg[1] or "") or 2^30)
local REPS = math.tointeger(tonumber(arg and arg[2] or "") or 20)
local launched = os.getenv("OMPI_COMM_WORLD_RANK") or os.getenv("PMI_RANK") or os.getenv("SLURM_PROCID")
local devs = {}
for d = 0, gpu.device_count() - 1 do devs[#devs + 1] = d end
local comm = launched and gpu.nccl.comm() or gpu.nccl.comm(devs)
local n = comm.size

local function per_device(f)   -- f(device) on each device this process drives
  local t = {}
  for i, d in ipairs(comm.devices) do t[i] = gpu.with_device(d, function() return f(d) end) end
  return #t == 1 and t[1] or t
end
local function sync_all()
  for _, d in ipairs(comm.devices) do gpu.device(d):synchronize() end
  comm:barrier()
end
-- seconds per call of f: median of 5 rounds of REPS calls, after a warm-up
local function time(f, reps)
  f(); sync_all()
  local ts = {}
  for r = 1, 5 do
    local t0 = gpu.clock()
    for _ = 1, reps do f() end
    for _, d in ipairs(comm.devices) do gpu.device(d):synchronize() end
    ts[r] = (gpu.clock() - t0) / reps
    comm:barrier()
  end
  table.sort(ts)
  return ts[3]
end
local function out(name, v) if comm.rank == 0 then io.write(("%s\t%.4f\n"):format(name, v)); io.stdout:flush() end end

if comm.rank == 0 then io.write(("nccl_version\t%d\n"):format(gpu.nccl.version())) end
local count = BYTES // 4
local x = per_device(function() return gpu.ones(count) end)
local t = time(function() comm:all_reduce(x) end, REPS)
out("all_reduce_busbw_GBs", BYTES / t / 1e9 * 2 * (n - 1) / n)
local small = per_device(function() return gpu.ones(count // n) end)
local big = per_device(function() return gpu.empty(count // n * n) end)
t = time(function() comm:all_gather(small, {out = big}) end, REPS)
out("all_gather_busbw_GBs", (count // n * n * 4) / t / 1e9 * (n - 1) / n)
t = time(function() comm:broadcast(x, {root = 0}) end, REPS)
out("broadcast_busbw_GBs", BYTES / t / 1e9)
local tiny = per_device(function() return gpu.ones(2) end)   -- 8 bytes
t = time(function() comm:all_reduce(tiny) end, 1000)
out("all_reduce_8B_us", t * 1e6)
if not launched and #devs >= 2 then
  local a = gpu.with_device(0, function() return gpu.ones(count) end)   -- whatever is current
  local b = gpu.with_device(1, function() return gpu.empty(count) end)
  assert(a.device == 0 and b.device == 1)
  t = time(function() gpu.copy(b, a) end, REPS)
  out("peer_copy_GBs", BYTES / t / 1e9)
end
