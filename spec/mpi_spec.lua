-- Two processes under mpirun (#mpi: where Open MPI's mpirun is installed): the
-- collectives between processes, and a rank killed mid-collective, which the other must
-- raise about within 10 s, a rank whose script raises, and one whose script ends while two
-- others go on, one whose script ends before it makes a communicator, and a slow one
-- behind a wrapper. Six runs of mpirun, each one to four seconds.
local function mpirun(script, np, wrapper)
  -- as root (CI), on loopback and shared memory only; --enable-recovery keeps the
  -- survivor alive when its peer is killed, so that it can say what it saw
  local cmd = "OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo timeout 60 mpirun " ..
    "--allow-run-as-root --oversubscribe --enable-recovery -np " .. (np or 2) .. " " .. (wrapper or "") ..
    " build/gpuhost " .. script .. " 2>&1"
  local t0 = gpu.clock()
  local p = io.popen(cmd)
  local out = p:read("a")
  p:close()
  return out, gpu.clock() - t0
end

describe("#mpi two processes", function()
  it("run every collective, keep two communicators apart, and detect calls that do not match", function()
    local out = mpirun("spec/mpi/colls.lua")
    for r = 0, 1 do
      local mismatch = gpu.backend() == "cpu" and ("GPUHOST_COMM_MISMATCH: the ranks' calls do not " ..
        "match: rank %d calls all_reduce of %d float32"):format(r, r + 1) or "not tried %(NCCL%)"
      assert.matches(("rank %d of 2: all collectives agree; the mismatch: "):format(r) .. mismatch, out)
    end
  end)

  it("raise within 10 s on the survivor when a rank is killed mid-collective", function()
    local out, took = mpirun("spec/mpi/kill.lua")
    local after = tonumber(out:match("rank 0: raised after ([%d.]+) s"))
    assert.is_truthy(after, out)
    assert.is_true(after < 10 and took < 30, out)
    assert.matches("GPUHOST_COMM_FAILED: .*rank 1 has ended %(its process is gone%)", out)
  end)

  it("pair grouped calls with ungrouped ones, and raise within 10 s when a peer's script raises", function()
    local out, took = mpirun("spec/mpi/ended.lua")
    for r = 0, 1 do
      assert.matches(("rank %d: grouped or not gpu.array%%(float32, {2}%%) %%[3, 3%%] "):format(r) ..
                     "gpu.array%(float32, {3}%) %[30, 30, 30%]", out)
    end
    local after = tonumber(out:match("rank 0: raised after ([%d.]+) s"))
    assert.is_truthy(after, out)
    assert.is_true(after < 10 and took < 30, out)
    assert.matches("GPUHOST_COMM_FAILED: all_reduce: rank 1 has ended %(its script ended: it " ..
                   "returned, raised an error or called os.exit%)", out)
    assert.matches("rank 0: then [^\n]*attempt to use a broken communicator", out)
    assert.matches("rank 0: overtaken gpu.array%(float32, {1}%) %[2%] gpu.array%(float32, {2}%) %[0, 0%]", out)
    assert.matches("rank 1: overtaken gpu.array%(float32, {1}%) %[2%] gpu.array%(float32, {2}%) %[0, 0%]", out)
  end)

  it("raise within 10 s when a peer's script ends before it makes a communicator", function()
    local out, took = mpirun("spec/mpi/early.lua")
    local after = tonumber(out:match("rank 0: raised after ([%d.]+) s"))
    assert.is_truthy(after, out)
    assert.is_true(after < 10 and took < 30, out)
    assert.matches("GPUHOST_COMM_FAILED: [^\n]*rank 1 [^\n]*has ended before it made a communicator", out)
    assert.matches("rank 0: then GPUHOST_COMM_FAILED: [^\n]*has ended before it made a communicator", out)
  end)

  it("wait in MPI_Init for a slow rank behind a wrapper, with a large environment", function()
    local out = mpirun("spec/mpi/slow.lua", 2, "env BIG=" .. ("x"):rep(70000) .. " timeout 50")
    assert.matches("rank 0: true gpu.array(float32, {2}) [2, 2]", out, 1, true)
    assert.matches("rank 1: true gpu.array(float32, {2}) [2, 2]", out, 1, true)
  end)

  it("go on between two ranks when a third's script ends (its goodbye counts for its calls only)", function()
    local out = mpirun("spec/mpi/third.lua", 3)
    for r, got in pairs({[0] = "2, 2, 2, 2", [1] = "1, 1, 1, 1"}) do
      local after = out:match(("rank %d: sent after ([%%d.]+) s: nil gpu.array%%(float32, {4}%%) %%[%s%%]"):format(r, got))
      assert.is_true(after ~= nil and tonumber(after) >= 2.9, out)   -- (past the goodbye's 2 s)
    end
  end)
end)
