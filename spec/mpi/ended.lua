-- Run by spec/mpi_spec.lua under mpirun -np 2. Rank 0 groups two all_reduces that rank 1
-- calls one by one (the same calls in the same order: they pair up, grouped or not);
-- then rank 1's script raises, and rank 0, waiting in a collective rank 1 never joins,
-- must raise too (rank 1 waits in MPI_Finalize, alive: its goodbye says it ended).
local comm = gpu.nccl.comm()
local a, b = gpu.full(2, comm.rank + 1), gpu.full(3, 10 * (comm.rank + 1))
if comm.rank == 0 then
  gpu.nccl.group(function() comm:all_reduce(a); comm:all_reduce(b) end)
else
  comm:all_reduce(a)
  comm:all_reduce(b)
end
io.write(("rank %d: grouped or not %s %s\n"):format(comm.rank, a, b))
-- a collective after a send in one group does not wait for the send, whose recv is in the
-- peer's later group (it waited for the timeout)
local c, x = gpu.full(1, 1), gpu.full(2, comm.rank)
if comm.rank == 0 then
  gpu.nccl.group(function() comm:send(x, 1); comm:all_reduce(c) end)
else
  gpu.nccl.group(function() comm:all_reduce(c) end)
  gpu.nccl.group(function() comm:recv(x, 0) end)
end
io.write(("rank %d: overtaken %s %s\n"):format(comm.rank, c, x))
io.stdout:flush()
if comm.rank == 1 then error("rank 1's script raises") end
local t0 = gpu.clock()
local ok, err = pcall(function() comm:all_reduce(a); return a:tohost() end)   -- waits
io.write(("rank 0: %s after %.1f s: %s\n"):format(ok and "returned" or "raised",
                                                  gpu.clock() - t0, tostring(err)))
io.write(("rank 0: then %s\n"):format(select(2, pcall(comm.all_reduce, comm, a))))
io.stdout:flush()
os.exit(0)
