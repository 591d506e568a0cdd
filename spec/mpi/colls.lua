-- Run by spec/mpi_spec.lua under mpirun -np 2: every collective between two processes,
-- each rank checking its own results; prints one line per rank.
local comm = gpu.nccl.comm()
local r, n = comm.rank, comm.size
assert(n == 2 and comm.device == gpu.device().id)
local function same(a, want, what)
  local got = a:totable()
  for i, v in ipairs(want) do
    assert(got[i] == v, ("rank %d %s: element %d is %s, not %s"):format(r, what, i, got[i], v))
  end
end
same(comm:all_reduce(gpu.array({r + 1, 10 * (r + 1)})), {3, 30}, "all_reduce")
same(comm:all_reduce(gpu.array({r + 1}), {op = "max"}), {2}, "max")
same(comm:all_reduce(gpu.array({r * 2.0}), {op = "avg"}), {1}, "avg")
same(comm:all_gather(gpu.array({r, r})):flatten(), {0, 0, 1, 1}, "all_gather")
same(comm:reduce_scatter(gpu.array({1, 2, 3, 4})), r == 0 and {2, 4} or {6, 8}, "reduce_scatter")
same(comm:broadcast(gpu.array({r + 5}), {root = 1}), {6}, "broadcast")
same(comm:reduce(gpu.array({r + 1}), {root = 0}), {r == 0 and 3 or 2}, "reduce")
local y = gpu.zeros(2, "int64")
gpu.nccl.group(function()
  comm:send(gpu.array({r, r}, "int64"), 1 - r)
  comm:recv(y, 1 - r)
end)
same(y, {1 - r, 1 - r}, "send/recv")
comm:barrier()
-- mismatched sizes: the CPU backend compares the ranks' calls first; NCCL cannot tell
local err = "not tried (NCCL)"
if gpu.backend() == "cpu" then
  local ok
  ok, err = pcall(comm.all_reduce, comm, gpu.zeros(r + 1))
  assert(not ok)
  same(comm:all_reduce(gpu.ones(3)), {2, 2, 2}, "all_reduce after a mismatch")
end
print(("rank %d of %d: all collectives agree; the mismatch: %s"):format(r, n, tostring(err)))
