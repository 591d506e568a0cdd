-- Run by spec/mpi_spec.lua under mpirun -np 2 behind a wrapper (timeout), with a large
-- environment: rank 1 works 1.5 s before it makes its communicator. Rank 0, waiting in
-- MPI_Init, must not take it for ended (it did: its siblings were looked for as children
-- of its own parent, and in the first 64 KiB of their environment).
local rank = tonumber(os.getenv("OMPI_COMM_WORLD_RANK"))
if rank == 1 then
  local t = gpu.clock()
  while gpu.clock() - t < 1.5 do end
end
local ok, comm = pcall(gpu.nccl.comm)
local x = ok and gpu.ones(2) or nil
if ok then comm:all_reduce(x) end
io.write(("rank %d: %s %s\n"):format(rank, tostring(ok), ok and tostring(x) or tostring(comm)))
