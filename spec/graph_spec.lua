-- Graphs: gpu.graph records what a function queues for the device, g:launch() replays it,
-- g:update() records anew and updates in place; what cannot be recorded is refused with
-- its line, and the arrays a graph uses live (and stay pinned) as long as it does. On
-- both backends.
local S = require("spec.support")

local INC = [[extern "C" __global__ void inc(gpu::array<float> a, float v) { a[gpu::grid(1)] += v; }]]
local COPY2 = [[extern "C" __global__ void twice(gpu::array<float> dst, gpu::array<float> src) {
  long long i = gpu::grid(1); dst[i] = 2 * src[i]; }]]

describe("gpu.graph", function()
  local inc = gpu.kernel(INC)
  local twice = gpu.kernel(COPY2)

  it("records without running, and replays on launch", function()
    local a = gpu.zeros(8)
    local g = gpu.graph(function() inc[{1, 32}](a, 1) inc[{1, 32}](a, 2) end)
    assert.are.equal(0, a:totable()[1])   -- recorded, not run
    g:launch()
    assert.are.equal(3, a:totable()[1])
    assert.are.equal(g, g:launch())
    g:launch()
    assert.are.same({9, 9, 9, 9, 9, 9, 9, 9}, a:totable())
    assert.are.equal("gpu.graph", tostring(g))
  end)

  it("replays 1,000 dependent launches in order", function()
    local a = gpu.zeros(4)
    local g = gpu.graph(function() for i = 1, 1000 do inc[{1, 4}](a, i % 3) end end)
    g:launch()
    assert.are.same({1000, 1000, 1000, 1000}, a:totable())   -- 333 * (1 + 2 + 0) + 1
  end)

  it("records fills and device copies, and passes arguments to the function", function()
    local src = gpu.arange(6)
    local dst = gpu.full(6, 7)
    local made
    local g = gpu.graph(function(x, y)
      made = gpu.zeros(6)        -- filled at each replay
      twice[{1, 32}](made, x)
      local c = made:copy()      -- a copy, recorded
      twice[{1, 32}](y, c)
    end, src, dst)
    assert.are.same({7, 7, 7, 7, 7, 7}, dst:totable())
    g:launch()
    assert.are.same({0, 4, 8, 12, 16, 20}, dst:totable())
    assert.are.same({0, 2, 4, 6, 8, 10}, made:totable())
  end)

  it("updates in place when the work has the same shape, and rebuilds otherwise", function()
    local a = gpu.zeros(4)
    local g = gpu.graph(function() inc[{1, 4}](a, 1) end)
    assert.is_true(g:update(function() inc[{1, 4}](a, 5) end))
    g:launch()
    assert.are.equal(5, a:totable()[1])
    local b = gpu.zeros(4)
    assert.is_true(g:update(function() inc[{1, 4}](b, 2) end))   -- another array: a pointer
    g:launch()
    assert.are.same({5, 2}, {a:totable()[1], b:totable()[1]})
    assert.is_false(g:update(function() inc[{1, 4}](a, 1) inc[{1, 4}](a, 1) end))
    g:launch()
    assert.are.equal(7, a:totable()[1])
  end)

  it("refuses an update whose work freed the graph (it used the freed graph's executable)", function()
    local a = gpu.zeros(4)
    local g = gpu.graph(function() inc[{1, 4}](a, 1) end)
    assert.matches("attempt to use a freed graph %(freed while g:update recorded%)",
                   S.errof(function() return g:update(function() inc[{1, 4}](a, 2) g:free() end) end))
    assert.matches("attempt to use a freed graph", S.errof(function() return g:launch() end), 1, true)
    local b = gpu.zeros(4)                              -- the device goes on, a's pin is gone
    gpu.graph(function() inc[{1, 4}](b, 3) end):launch()
    assert.are.same({3, 0}, {b:totable()[1], a:totable()[1]})
    a:free()
  end)

  it("refuses what cannot be recorded, with the line, and leaves the device usable", function()
    local a = gpu.zeros(4)
    for _, case in ipairs({
      {function() gpu.synchronize() end, "gpu.synchronize() cannot be captured"},
      {function() a:tohost() end, "a copy from the device to the host cannot be captured"},
      {function() a:totable() end, "a copy from the device to the host cannot be captured"},
      {function() gpu.stream():synchronize() end, "s:synchronize() cannot be captured"},
      {function() gpu.event():synchronize() end, "e:synchronize() cannot be captured"},
      -- the script's line, not the module's (was "[gpu] lua/format.lua:75:")
      {function() print(a) end, "a copy from the device to the host cannot be captured"},
      {function() gpu.with_device(0, gpu.synchronize) end, "gpu.synchronize() cannot be captured"},
      -- before: a string, not the error object (nested), and a copy that converts was
      -- uploaded now and converted at each replay (a plain one happens now alone)
      {function() gpu.graph(function() end) end, "gpu.graph cannot be nested"},
      {function() gpu.linalg.inv(gpu.eye(2)) end, "gpu.linalg cannot be recorded in a graph"},
      {function() gpu.copy(a, gpu.host.array({1, 2, 3, 4}, "float64")) end,
       "a copy from the host (float64 into float32) cannot be recorded"},
      {function() gpu.copy(a[{{1, 4, 2}}], gpu.host.array({1, 2}, "float32")) end,
       "a copy from the host (float32 into float32, not both C-ordered) cannot be recorded"},
      -- before: assignment uploaded now and copied at each replay, writing today's values
      {function() a[{}] = gpu.host.array({1, 2, 3, 4}, "float64") end,
       "a copy from the host (float64 into float32) cannot be recorded"},
      {function() a[{{1, 4, 2}}] = gpu.host.array({1, 2}, "float32") end,
       "a copy from the host (float32 into float32, not both C-ordered) cannot be recorded"},
      {function() a[{}] = gpu.host.array({1}, "float32") end,
       "a[key] = v: a host array broadcast to the destination's shape cannot be recorded"},
    }) do
      local msg, err = S.errof(gpu.graph, case[1])
      assert.are.equal("GPUHOST_NOT_CAPTURABLE", err.name)
      assert.matches("graph_spec.lua:%d+: " .. case[2]:gsub("%p", "%%%0"), msg)
      assert.is_false(gpu.capturing())
    end
    inc[{1, 4}](a, 1)                      -- the default stream works after each
    assert.are.equal(1, a:totable()[1])
  end)

  it("assigns a host array that needs no device work at once, as gpu.copy copies it", function()
    local a, h = gpu.zeros(3), gpu.host.array({1, 2, 3}, "float32")
    local g = gpu.graph(function() a[{}] = h end)
    assert.are.same({1, 2, 3}, a:totable())   -- copied while recording, not recorded
    h[1] = 100
    a:fill(0)
    g:launch()
    assert.are.same({0, 0, 0}, a:totable())
  end)

  it("takes a callable value as its function (gpu.sqrt was refused: function expected)", function()
    local a = gpu.array({4, 9})
    local g = gpu.graph(gpu.sqrt, a, {out = a})
    g:launch()
    assert.are.same({2, 3}, a:totable())
    assert.is_true(g:update(gpu.sqrt, a, {out = a}))
    assert.matches("bad argument #1 to 'gpu.graph' (function or callable value expected, got number)",
                   S.errof(gpu.graph, 5), 1, true)
  end)

  it("ends the recording when the function raises, and the error goes on", function()
    local a = gpu.zeros(4)
    local ok, e = pcall(gpu.graph, function() inc[{1, 4}](a, 1) error("in the function") end)
    assert.is_false(ok)
    assert.matches("in the function", e)
    assert.is_false(gpu.capturing())
    a:free()                               -- nothing keeps it pinned
    assert.matches("gpu.graph cannot be nested",
                   S.errof(gpu.graph, function() gpu.graph(function() end) end), 1, true)
    assert.matches("(function or callable value expected, got number)", S.errof(gpu.graph, 3), 1, true)
  end)

  it("keeps and pins the arrays it uses until it is freed", function()
    local a = gpu.zeros(4)
    local g = gpu.graph(function() inc[{1, 4}](a, 1) end)
    assert.matches("attempt to free an array that a graph uses (free the graph first)",
                   S.errof(a.free, a), 1, true)
    g:free()
    assert.matches("attempt to use a freed graph", S.errof(g.launch, g), 1, true)
    a:free()
    -- arrays made inside live as long as the graph, though nothing else holds them
    local out
    local g2 = gpu.graph(function() local t = gpu.zeros(4); inc[{1, 4}](t, 3); out = t end)
    collectgarbage()
    g2:launch()
    assert.are.equal(3, out:totable()[1])
    out = nil
    collectgarbage()
    g2:launch()                            -- the graph still holds its array
    g2:free()
  end)

  it("refuses at its end what f refused and caught: the graph would leave it out", function()
    local a, h = gpu.zeros(4), gpu.host.zeros(4)
    for _, case in ipairs({
      {function() a:fill(1); pcall(a.tohost, a, h); a:fill(7) end, "a copy from the device to the host"},
      {function() pcall(gpu.synchronize) end, "gpu.synchronize() cannot be captured"},
      {function() pcall(gpu.graph, function() end) end, "gpu.graph cannot be nested"},
      {function() pcall(print, a) end, "a copy from the device to the host"},
    }) do
      local msg, err = S.errof(gpu.graph, case[1])
      assert.are.equal("GPUHOST_NOT_CAPTURABLE", err.name)
      assert.matches("the recording ended at an error that f caught", msg, 1, true)
      assert.matches(case[2], msg, 1, true)
      assert.is_false(gpu.capturing())
    end
    a:free()                               -- nothing keeps it pinned
  end)

  it("records library functions that free their temporaries, and frees them with itself", function()
    local x = gpu.random.random({20, 20})
    local out
    local g = gpu.graph(function()
      out = gpu.ndimage.uniform_filter(x, 3)
      local t = gpu.zeros(4)
      t:free()                             -- made and freed inside: the graph keeps it
      assert.matches("attempt to use a freed array", S.errof(t.fill, t, 1), 1, true)
    end)
    out:fill(0)
    g:launch()
    assert.are.same(gpu.ndimage.uniform_filter(x, 3):totable(), out:totable())
    local p = gpu.graph(function() return gpu.random.permutation(10) end)
    p:launch()
    local y = gpu.zeros(4)
    gpu.graph(function() y:fill(1) end)    -- a graph alive elsewhere: freeing y is still refused
    assert.matches("a graph uses", S.errof(gpu.graph, function() y:free() end), 1, true)
    g:free()
    p:free()
  end)

  -- before: a temporary used through a view refused its free (its view was alive in the graph)
  it("takes a:free() of a temporary that only its views in the recording use", function()
    local a = gpu.zeros(10)
    local function step()
      local t = gpu.ones(1000)
      a:add(t[{{1, 10}}], {out = a})
      t:free()
      assert.matches("attempt to use a freed array", S.errof(t.fill, t, 1), 1, true)
    end
    local g = gpu.graph(step)
    collectgarbage()
    collectgarbage()
    a:fill(0)
    g:launch()
    g:launch()                             -- the view's memory is the graph's
    assert.are.same({2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, a:totable())
    local u                                -- a view the recording does not use still refuses it
    assert.matches("cannot free an array while 2 views of it are alive", S.errof(gpu.graph, function()
      local t = gpu.ones(10)
      u = t[{{1, 2}}]
      a:add(t[{{1, 10}}], {out = a})
      t:free()
    end), 1, true)
    local t = gpu.ones(10)                 -- outside a recording too
    local v = t[{{1, 2}}]
    assert.matches("cannot free an array while 1 view of it is alive", S.errof(t.free, t), 1, true)
    assert.are.same({1, 1}, v:totable())
    g:free()
  end)

  it("keeps its arrays' memory when it is collected with them and a finalizer launches it", function()
    local function setup()
      local g = gpu.graph(function() end)
      local b = gpu.zeros(1 << 20)
      local launched
      setmetatable({}, {__gc = function()
        local c = gpu.full(1 << 20, 5)   -- may be given b's memory, were it freed
        launched = pcall(g.launch, g)
        RESULT = {launched, c:max()}
      end})
      g:update(function() inc[{4096, 256}](b, 1) end)
    end
    setup()
    collectgarbage()
    collectgarbage()
    assert.are.same({true, 5}, RESULT)
    RESULT = nil
    -- the same with a view launched on: its owner, collected with it, keeps its memory too
    local function setup2()
      local g = gpu.graph(function() end)
      setmetatable({}, {__gc = function()
        local c = gpu.full(1 << 20, 5)
        RESULT = {pcall(g.launch, g), c:max(), c:min()}
      end})
      local base = gpu.zeros(1 << 20)
      local v = base[{{1, 1 << 20}}]
      g:update(function() inc[{4096, 256}](v, 1) end)
    end
    setup2()
    collectgarbage()
    collectgarbage()
    assert.are.same({true, 5, 5}, RESULT)
    RESULT = nil
    -- an array with a live view is not the recording's to free (its view read freed memory)
    local v
    assert.matches("cannot free an array while 1 view of it is alive", S.errof(gpu.graph, function()
      local a = gpu.zeros(16)
      v = a[{{1, 4}}]
      a:free()
    end), 1, true)
    -- g:free() lets go of what it kept at once
    collectgarbage()
    local before = select(3, gpu.mem_info())
    local kept = gpu.zeros(1000)
    local g = gpu.graph(function() kept:fill(1) end)
    kept = nil
    g:free()
    collectgarbage()
    assert.are.equal(before, select(3, gpu.mem_info()))
    -- at exit a finalizer made before the graph's kernel replays it after the kernel's
    -- program was finalized: its code stays loaded while a graph lives (it crashed)
    local out = S.run(S.gpuhost .. " -e " .. S.quote([[
      local g = gpu.graph(function() end)
      KEEP = setmetatable({}, {__gc = function() print("replay", pcall(g.launch, g)) end})
      local b = gpu.zeros(8)
      g:update(function()
        local k = gpu.kernel('extern "C" __global__ void inc7(float* a) { a[threadIdx.x] += 1; }')
        k[{1, 8}](b)
      end)
      g:launch()
      print(b)]]) .. " 2>&1; echo status $?")
    assert.matches("replay\ttrue\tgpu.graph\nstatus 0", out, 1, true)
  end)

  it("keeps the code it launches: a fused function, elementwise kernel, reduction or kernel dropped after recording", function()
    local a, o = gpu.zeros(4), gpu.zeros({})
    local f = gpu.fuse(function(x) return x * 3 + 1 end, "graph_kept_fuse")
    local ew = gpu.elementwise("float32 x", "float32 z", "z = x + 2", "graph_kept_ew")
    local r = gpu.reduction("T x", "T y", "x", "a + b", "y = a", 0, "graph_kept_red")
    local k = gpu.kernel([[extern "C" __global__ void graph_kept_k(gpu::array<float> a) { a[gpu::grid(1)] -= 1; }]])
    local j = gpu.jit(function(x) local i = gpu.grid(1); x[i] = x[i] * 2 end)
    local gs = {gpu.graph(function() f(a, {out = a}) end), gpu.graph(function() ew(a, a) end),
                gpu.graph(function() k[{1, 4}](a) end), gpu.graph(function() j[{1, 4}](a) end),
                gpu.graph(function() r(a, {out = o}) end)}
    f, ew, r, k, j = nil, nil, nil, nil, nil
    for _ = 1, 4 do collectgarbage() end   -- their programs went, and their modules with them
    for _, g in ipairs(gs) do g:launch() end
    assert.are.same({4, 4, 4, 4}, a:totable())   -- ((0 * 3 + 1) + 2 - 1) * 2
    assert.are.equal(16, o:item())
    for _, g in ipairs(gs) do g:free() end
    a:free()
    o:free()
  end)

  it("is captured while the collector frees other arrays", function()
    local a = gpu.zeros(4)
    local g = gpu.graph(function()
      for _ = 1, 20 do local _ = gpu.zeros(1000) end
      collectgarbage()
      inc[{1, 4}](a, 1)
    end)
    g:launch()
    assert.are.equal(1, a:totable()[1])
  end)

  -- (the README says it: stream capture takes what a finalizer asks of the device while it
  -- records, as CuPy's __del__; pinned here, it is no change of the code)
  it("records a finalizer's work that runs while it records, and ends at a finalizer's synchronize", function()
    local a, counter = gpu.zeros(4), gpu.zeros(1, "float64")
    collectgarbage("stop")   -- (the finalizers run at the collectgarbage() inside, not before)
    do setmetatable({}, {__gc = function() gpu.add(counter, 1, {out = counter}) end}) end
    local ok, g = pcall(gpu.graph, function()
      collectgarbage()
      gpu.add(a, 1, {out = a})
    end)
    collectgarbage("restart")
    assert(ok, g)
    assert.are.same({0}, counter:totable())
    for _ = 1, 3 do g:launch() end
    assert.are.same({{3}, 3}, {counter:totable(), a:totable()[1]})
    g:free()
    collectgarbage("stop")
    do setmetatable({}, {__gc = function() gpu.synchronize() end}) end
    local msg, err = S.errof(gpu.graph, function() collectgarbage(); gpu.add(a, 1, {out = a}) end)
    collectgarbage("restart")
    assert.are.equal("GPUHOST_NOT_CAPTURABLE", err.name)
    assert.matches("gpu.synchronize() cannot be captured", msg, 1, true)
    assert.is_false(gpu.capturing())
  end)

  it("has streams and events that take no options (CuPy's non_blocking = was dropped)", function()
    assert.matches("gpu.stream takes 0 arguments, got a table as argument 1 (it takes no options)", S.errof(gpu.stream, {non_blocking = true}), 1, true)
    assert.matches("gpu.event takes 0 arguments, got a table as argument 1", S.errof(gpu.event, {disable_timing = true}), 1, true)
  end)

  -- The recording stayed on while the state closed: the finalizers ran with gpu.capturing()
  -- true, their kernels went into a capture that never ended, and a:totable() was refused.
  it("ends the recording when os.exit(c, true) closes the state inside f, before the finalizers", function()
    local out, status, err = S.host("-e " .. S.quote([[
      local a = gpu.zeros(4)
      gpu.add(a, 1, {out = a})   -- (its code loaded before the finalizer's table is marked)
      setmetatable({}, {__gc = function()
        gpu.add(a, 1, {out = a})
        print(gpu.capturing(), string.format("%g %g", a:totable()[1], a:totable()[4]))
      end})
      gpu.graph(function() gpu.add(a, 10, {out = a}); os.exit(3, true) end)]]))
    assert.are.same({"false\t2 2\n", 3}, {out, status}, err)
  end)

  it("has s:destroy, e:destroy, g:free and gpu.capturing that take no arguments (one was dropped)", function()
    local s, e, g = gpu.stream(), gpu.event(), gpu.graph(function() end)
    assert.matches("s:destroy takes 0 arguments, got a table as argument 1 (it takes no options)", S.errof(s.destroy, s, {}), 1, true)
    assert.matches("e:destroy takes 0 arguments, got a table as argument 1 (it takes no options)", S.errof(e.destroy, e, {}), 1, true)
    assert.matches("g:free takes 0 arguments, got a number as argument 1 (not one it takes)", S.errof(g.free, g, 1), 1, true)
    assert.matches("gpu.capturing takes 0 arguments, got a table as argument 1 (it takes no options)", S.errof(gpu.capturing, {}), 1, true)
    -- refused, they are still alive: <close> (whose second argument is the error, nil here) and a
    -- call with no argument destroy them
    s:synchronize(); e:record(); g:launch()
    do local _ <close> = s; local _ <close> = e; local _ <close> = g end
    assert.matches("attempt to use a destroyed stream", S.errof(s.synchronize, s), 1, true)
    assert.matches("attempt to use a destroyed event", S.errof(e.record, e), 1, true)
    assert.are.equal("gpu.graph (freed)", tostring(g))
    local t, f, h = gpu.stream(), gpu.event(), gpu.graph(function() end)
    t:destroy(); f:destroy(); h:free()
    assert.are.equal("gpu.graph (freed)", tostring(h))
    assert.matches("attempt to use a destroyed stream", S.errof(t.synchronize, t), 1, true)
    assert.is_false(gpu.capturing())
  end)

  it("records launches on the user's streams, and is timed by events around a launch", function()
    local a, b = gpu.zeros(4), gpu.zeros(4)
    local s = gpu.stream()
    local e0, e1 = gpu.event(), gpu.event()
    local g = gpu.graph(function()
      inc[{1, 4, stream = s}](a, 1)
      inc[{1, 4}](b, 2)
    end)
    e0:record()
    g:launch()
    g:launch(s)
    e1:record()
    assert.are.same({2, 4}, {a:totable()[1], b:totable()[1]})
    assert.is_true(gpu.elapsed(e0, e1) >= 0)
    local msg, err = S.errof(gpu.graph, function() e0:record() end)
    assert.are.equal("GPUHOST_NOT_CAPTURABLE", err.name)
    assert.matches("e:record() cannot be captured", msg, 1, true)
  end)

  -- Before, on CUDA, a stream that joined the recording and was destroyed inside it made
  -- the recording's end (which records an event on each joined stream) crash the process.
  -- (the two streams are two branches of the graph, unordered: each writes its own array)
  it("takes a stream of the user's destroyed or collected inside, and destroys it after", function()
    local a, b = gpu.zeros(4), gpu.zeros(4)
    local dead
    local g = gpu.graph(function()
      local s = gpu.stream()
      inc[{1, 4, stream = s}](a, 1)
      s:destroy()
      dead = s
      inc[{1, 4, stream = gpu.stream()}](b, 2)
      collectgarbage()
      collectgarbage()
    end)
    assert.matches("attempt to use a destroyed stream", S.errof(dead.synchronize, dead), 1, true)
    g:launch()
    g:launch()
    assert.are.same({2, 2, 2, 2}, a:totable())
    assert.are.same({4, 4, 4, 4}, b:totable())
    g:free()
  end)

  -- (on a GPU a fault loses the context, and the driver cannot say which node faulted)
  it("#cpu names the kernel that faults in a replay, and says what it knows of the address", function()
    local bad = gpu.kernel([[extern "C" __global__ void wild(long long at) { *(volatile float *)at = 1; }]])
    local a = gpu.zeros(4)
    for _, at in ipairs({64, 1 << 62}) do   -- a page never mapped; past the address space
      local g = gpu.graph(function() inc[{1, 4}](a, 1) bad[{1, 1}](at) end)
      local _, err = S.errof(function() g:launch() gpu.synchronize() end)
      assert.are.equal("CUDA_ERROR_ILLEGAL_ADDRESS", err.name)
      assert.matches("kernel 'wild' (in a graph's replay) block (0, 0, 0) thread (0, 0, 0): ", err.detail, 1, true)
      assert.matches(at == 64 and "address 0x40$" or "outside the address space", err.detail)
    end
    assert.are.same({2, 2, 2, 2}, a:totable())   -- the work before the fault ran; the host goes on
  end)

  it("says a debug kernel cannot be recorded (its bounds check copies to the host)", function()
    local dk = gpu.kernel([[extern "C" __global__ void dk(gpu::array<float> a) { a[0] = 1; }]], {debug = true})
    local a = gpu.zeros(1)
    assert.matches("kernel 'dk' was made with {debug = true}: its bounds check copies to the host after a launch",
                   S.errof(gpu.graph, function() dk[1, 1](a) end), 1, true)
    dk[1, 1](a)   -- outside a graph it runs
    assert.are.same({1}, a:totable())
  end)
end)
