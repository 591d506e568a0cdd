-- Run by spec/mpi_spec.lua under mpirun -np 2: rank 1's script ends before it makes a
-- communicator, so MPI_Init, which waits for every rank, never returns on rank 0 (it
-- waited for good); rank 0 must raise and says how long that took.
local rank = tonumber(os.getenv("OMPI_COMM_WORLD_RANK"))
if rank == 1 then return end
local t0 = gpu.clock()
while gpu.clock() - t0 < 0.5 do end   -- rank 1 has ended, and may be gone from /proc
t0 = gpu.clock()
local ok, err = pcall(gpu.nccl.comm)
io.write(("rank 0: %s after %.1f s: %s\n"):format(ok and "returned" or "raised",
                                                  gpu.clock() - t0, tostring(err)))
ok, err = pcall(gpu.nccl.comm)
io.write("rank 0: then ", tostring(err), "\n")
io.stdout:flush()
os.exit(0)
