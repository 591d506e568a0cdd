-- Run by spec/mpi_spec.lua under mpirun -np 3: rank 2's script ends at once; ranks 0 and 1
-- go on sending to each other 30 times, 0.1 s apart (3 s or more: past the 2 s after which
-- its goodbye counts). A goodbye breaks only the waits of calls that rank is part of (this
-- broke the others'). (A count, not each rank's clock: two clocks could disagree on the
-- last round on a loaded machine, one rank sending once more than the other took.)
local comm = gpu.nccl.comm()
local r = comm.rank
comm:barrier()
if r == 2 then return end
local x, y, t0 = gpu.full(4, r + 1), gpu.zeros(4), gpu.clock()
local ok, err = pcall(function()
  for _ = 1, 30 do
    gpu.nccl.group(function() comm:send(x, 1 - r); comm:recv(y, 1 - r) end)
    y:tohost()
    os.execute("sleep 0.1")
  end
end)
io.write(("rank %d: %s after %.1f s: %s %s\n"):format(r, ok and "sent" or "raised", gpu.clock() - t0, tostring(err), y))
io.stdout:flush()
os.exit(0)
