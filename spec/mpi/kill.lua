-- Run by spec/mpi_spec.lua under mpirun -np 2: rank 1 dies (SIGKILL) while rank 0 waits
-- in a collective; rank 0 must raise, not hang, and says how long that took.
local comm = gpu.nccl.comm()
local x = gpu.ones(1000)
comm:all_reduce(x)                          -- both ranks are in step here
if comm.rank == 1 then
  os.execute("sleep 0.3; kill -9 $PPID")   -- $PPID: this gpuhost
  os.exit(3)                                -- not reached
end
local t0 = gpu.clock()
local ok, err = pcall(function() comm:all_reduce(x); return x:tohost() end)   -- waits
io.write(("rank 0: %s after %.1f s: %s\n"):format(ok and "returned" or "raised",
                                                  gpu.clock() - t0, tostring(err)))
io.stdout:flush()
os.exit(0)
