-- Run by spec/mpi_spec.lua under mpirun -np 2: every collective between two processes,
-- and two communicators kept apart, each rank checking its own results; prints one line
-- per rank.
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
-- float16: rounded at each step as NCCL's half arithmetic (MPI has no float16: an op of ours)
local h = gpu.array({r == 0 and 0.1 or 0.2, 2048, r + 1}, "float16")
same(comm:all_reduce(h), {0.2998046875, 4096, 3}, "float16 sum")
same(comm:all_reduce(gpu.array({r + 0.5, -r}, "float16"), {op = "max"}), {1.5, 0}, "float16 max")
same(comm:all_reduce(gpu.array({r * 3.0}, "float16"), {op = "avg"}), {1.5}, "float16 avg")
same(comm:all_reduce(gpu.full({2}, 60000, "float16"), {op = "avg"}), {60000, 60000}, "avg scaled first, as NCCL's")
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
-- a send to this rank itself, grouped with its recv (NCCL 2.7+ takes it: all-to-all code
-- sends to every rank); ungrouped it is refused, as its recv could never come
local z = gpu.zeros(2, "int64")
gpu.nccl.group(function()
  comm:send(gpu.array({r + 7, r}, "int64"), r)
  comm:recv(z, r)
  comm:send(gpu.array({r, r}, "int64"), 1 - r)
  comm:recv(y, 1 - r)
end)
same(z, {r + 7, r}, "send/recv to itself")
same(y, {1 - r, 1 - r}, "send/recv beside it")
local selfish = select(2, pcall(comm.send, comm, z, r))
assert(selfish:find(("comm:send: rank %d sends to itself outside a gpu.nccl.group"):format(r), 1, true), selfish)
comm:barrier()
-- NCCL's functions between processes too: 8-bit sums wrap (Open MPI's AVX sum saturated
-- them: 127), a NaN loses a min or max to a number (fmin, fmax)
same(comm:all_reduce(gpu.full(100, 100, "int8")), {-56, -56, -56}, "int8 sum wraps")
same(comm:all_reduce(gpu.full(40, 200, "uint8")), {144, 144}, "uint8 sum wraps")
local m = comm:all_reduce(gpu.array(r == 0 and {0 / 0, 1} or {1, 0 / 0}), {op = "min"})
same(m, {1, 1}, "a NaN loses a min")
-- in a group, a call reads what the one before it wrote (the broadcast sent rank 1's old
-- value), as in one process; CPU only: NCCL does not promise an order inside a group
if gpu.backend() == "cpu" then
  local x, o = gpu.array({r + 1}), gpu.zeros(1)
  gpu.nccl.group(function()
    comm:all_reduce(x)
    comm:broadcast(x, {root = 1})
    comm:reduce(x, {root = 0, out = o})
  end)
  same(x, {3}, "grouped all_reduce then broadcast")
  if r == 0 then same(o, {6}, "grouped reduce after them") end
end
-- an out that overlaps its input other than exactly (garbage before) is refused
local v = gpu.array({1, 2, 3, 4, 5})
assert(not pcall(comm.all_reduce, comm, v[{{1, 4}}], {out = v[{{2, 5}}]}), "partial overlap refused")
-- two communicators are kept apart: rank 0 calls on c1 then c2, rank 1 on c2 then c1, in
-- a group (whose calls may come in any order). They shared one MPI communicator before,
-- and the all_reduces and the sends paired across the two (sums mixed, messages swapped).
-- CPU only: NCCL's communicators never shared anything.
if gpu.backend() == "cpu" then
  local c1, c2 = gpu.nccl.comm(), gpu.nccl.comm()
  local a, b, got1, got2 = gpu.array({r + 1}), gpu.array({10 * (r + 1)}), gpu.zeros(2), gpu.zeros(2)
  gpu.nccl.group(function()
    if r == 0 then
      c1:all_reduce(a); c2:all_reduce(b)
      c1:send(gpu.array({1, 1}), 1); c2:send(gpu.array({2, 2}), 1)
    else
      c2:all_reduce(b); c1:all_reduce(a)
      c2:recv(got2, 0); c1:recv(got1, 0)
    end
  end)
  same(a, {3}, "all_reduce on c1")
  same(b, {30}, "all_reduce on c2")
  if r == 1 then same(got1, {1, 1}, "recv on c1"); same(got2, {2, 2}, "recv on c2") end
  c1:free(); c2:free()
end
-- a group whose function raises: across processes its calls went out as they were made
-- (the peer may be waiting for them), so they run, on both backends
local g = gpu.zeros(2)
local raised = select(2, pcall(gpu.nccl.group, function()
  if r == 0 then comm:send(gpu.array({4, 5}), 1) else comm:recv(g, 0) end
  error("stop")
end))
assert(tostring(raised):find("colls.lua:%d+: stop"), tostring(raised))
same(g, r == 1 and {4, 5} or {0, 0}, "a raising group's send")
-- mismatched sizes: the CPU backend compares the ranks' calls first; NCCL cannot tell
local err = "not tried (NCCL)"
if gpu.backend() == "cpu" then
  local ok
  ok, err = pcall(comm.all_reduce, comm, gpu.zeros(r + 1))
  assert(not ok)
  same(comm:all_reduce(gpu.ones(3)), {2, 2, 2}, "all_reduce after a mismatch")
  -- a barrier is named as one (it paired with an all_reduce of one int32 without a word)
  local called = r == 0 and "all_reduce" or "barrier"
  local why = select(2, pcall(function() if r == 0 then comm:all_reduce(gpu.zeros(1, "int32")) else comm:barrier() end end))
  assert(tostring(why):find(("rank %d calls %s of 1 int32"):format(r, called), 1, true), tostring(why))
  -- a send and its recv are compared too, and refused on both ranks with nothing moved
  -- (the recv took 2 of its 4 elements silently, read float32 bits as int32, or raised
  -- MPI's truncation, in C's words)
  -- (dtypes NCCL lacks, moved as bytes, were compared as bytes: int16 into uint16 or bool went)
  for _, case in ipairs({{gpu.array({1, 2}), gpu.array({7, 7, 7, 7}), "2 float32 elements", "4 float32 elements"},
                         {gpu.array({1, 2}), gpu.array({7, 7}, "int32"), "2 float32 elements", "2 int32 elements"},
                         {gpu.array({1, 2, 3, 4}), gpu.array({7, 7}), "4 float32 elements", "2 float32 elements"},
                         {gpu.array({5, 256}, "int16"), gpu.array({7, 7}, "uint16"), "2 int16 elements", "2 uint16 elements"},
                         {gpu.array({5, 256}, "int16"), gpu.array({7, 7, 7, 7}, "uint8"):astype("bool"), "2 int16 elements", "4 bool elements"}}) do
    local sent, into, s, w = table.unpack(case)
    local before = into:totable()
    local why = select(2, pcall(gpu.nccl.group, function()
      if r == 0 then comm:send(sent, 1) else comm:recv(into, 0) end
    end))
    local want = ("GPUHOST_COMM_MISMATCH: the ranks' calls do not match: rank 0 sends %s to rank 1, "
                  .. "which receives %s"):format(s, w)
    assert(tostring(why):find(want, 1, true), ("rank %d: %s, not %s"):format(r, tostring(why), want))
    for i, v in ipairs(into:totable()) do assert(v == before[i], ("rank %d: the refused recv wrote %s"):format(r, v)) end
  end
  local b16 = r == 0 and gpu.array({3, 2}, "int16") or gpu.array({7, 7}, "uint16")
  local why16 = select(2, pcall(comm.broadcast, comm, b16))
  assert(tostring(why16):find(("rank %d calls broadcast of 2 %s elements (root 0), rank %d broadcast of 2 %s"):format(
    r, r == 0 and "int16" or "uint16", 1 - r, r == 0 and "uint16" or "int16"), 1, true), tostring(why16))
  assert(b16:totable()[1] == (r == 0 and 3 or 7), "the refused broadcast moved")
  -- a send is done once its recv has taken it: it returned at once, its message left for
  -- whichever recv came next
  local t0, z = gpu.clock(), gpu.zeros(2)
  if r == 1 then os.execute("sleep 0.3") end
  gpu.nccl.group(function() if r == 0 then comm:send(gpu.array({5, 6}), 1) else comm:recv(z, 0) end end)
  assert(r == 1 or gpu.clock() - t0 > 0.2, "rank 0's send returned before rank 1's recv")
  same(z, r == 1 and {5, 6} or {0, 0}, "the recv after the refusals")
end
print(("rank %d of %d: all collectives agree; the mismatch: %s"):format(r, n, tostring(err)))
