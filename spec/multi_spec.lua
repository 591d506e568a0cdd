-- Several devices in one process (#multi: two devices or more; the CPU backend has
-- GPUHOST_CPU_DEVICES of them, 2 in scripts/test.sh): devices, peer copies and gpu.nccl
-- communicators over devices of this process. spec/mpi_spec.lua runs several processes.
local support = require("spec.support")
local errof = support.errof

local function on(d, f) return gpu.with_device(d, f) end
local function both(t0, t1)   -- the same values on devices 0 and 1
  return {gpu.array(t0), on(1, function() return gpu.array(t1) end)}
end

describe("#multi devices", function()
  it("put arrays, streams and events on the current device; with_device restores it, also on error", function()
    local a = gpu.zeros(2)
    local b, s, e = on(1, function() return gpu.zeros(2), gpu.stream(), gpu.event() end)
    assert.are.same({0, 1, 1}, {a.device, b.device, s.device})
    assert.are.equal(0, gpu.device().id)
    local ok, err = pcall(gpu.with_device, 1, function() error("inside") end)
    assert.is_false(ok)
    assert.matches("inside", err)
    assert.are.equal(0, gpu.device().id)
    assert.are.same({7, 8}, {gpu.with_device(1, function(x, y) return x, y end, 7, 8)})
    -- a callable value too (gpu.sqrt was refused: "a function expected as argument 2")
    local r = gpu.with_device(1, gpu.sqrt, on(1, function() return b + 4 end))
    assert.are.same({1, {2, 2}}, {r.device, r:totable()})
    assert.matches("gpu.with_device: a function (or a callable value) expected as argument 2, got table",
                   errof(gpu.with_device, 1, {}), 1, true)
    -- a coroutine suspended inside f: its device is current until it goes on, or is closed
    local co = coroutine.create(function() gpu.with_device(1, coroutine.yield) end)
    coroutine.resume(co)
    assert.are.equal(1, gpu.device().id)
    assert.is_true(coroutine.close(co))
    assert.are.equal(0, gpu.device().id)
    -- f raising in a coroutine (Lua closes a dead coroutine's variables only at close)
    co = coroutine.create(function() gpu.with_device(1, function() error({code = 7}) end) end)
    local resumed, raised = coroutine.resume(co)
    assert.are.same({false, 7, 0}, {resumed, raised.code, gpu.device().id})
    -- a debug hook raising at any instruction of the call (a count hook's instruction limit):
    -- the switch came before the guard that undoes it, and the undo could stop halfway, so
    -- that device 1 stayed current at some counts
    local out, _, err = support.run(support.gpuhost .. " -e " .. support.quote(support.HOOK_SWEEP .. [[
      print(sweep(function() gpu.with_device(1, function() assert(gpu.device().id == 1) end) end,
                  function() return gpu.device().id ~= 0 end, function() gpu.device(0):use() end))]]))
    assert.are.same({"restored\n", ""}, {out, err})
    assert.matches("a stream of device 1, and device 0 is current", errof(gpu.add, a, a, {stream = s}))
    assert.matches("e:record: the event is of device 1, the stream of device 0", errof(function() e:record(gpu.stream()) end))
    -- the default stream is the current device's: an event of device 1 was recorded on
    -- device 0's (CUDA refuses it as an invalid handle), and timed against device 0's events
    assert.matches("e:record: the event is of device 1, and device 0 is current", errof(function() e:record() end))
    local e0 = gpu.event():record()
    on(1, function() e:record() end)
    assert.matches("gpu.elapsed: the events are of devices 0 and 1", errof(gpu.elapsed, e0, e))
  end)

  -- Before, these took a stream of the other device (a launch there, on CUDA, is refused
  -- as an invalid handle), and gpu.copy into an array of device 1 refused device 1's stream
  -- and took the current device 0's.
  it("take in an operation's options only a stream of the device it runs on", function()
    local a, h = gpu.arange(4), gpu.array({1, 2, 3, 4}):tohost()
    local s1, d1 = on(1, function() return gpu.stream(), gpu.zeros(4) end)
    local other = "a stream of device 1, and device 0 is current"
    assert.matches(other, errof(gpu.sum, a, {stream = s1}))
    assert.matches(other, errof(gpu.cumsum, a, nil, {stream = s1}))
    assert.matches(other, errof(gpu.sort, a, nil, {stream = s1}))
    assert.matches(other, errof(gpu.matmul, a:reshape({2, 2}), a:reshape({2, 2}), {stream = s1}))
    assert.matches("a:tohost: the stream must be of the array's device 0, got one of device 1",
                   errof(function() return a:tohost(nil, {stream = s1}) end))
    assert.matches("copy: the stream must be of the arrays' device 0, got one of device 1",
                   errof(gpu.copy, a, h, {stream = s1}))
    assert.matches("copy: the stream must be of the arrays' device 1, got one of device 0",
                   errof(gpu.copy, d1, h, {stream = gpu.stream()}))
    assert.are.equal(d1, gpu.copy(d1, h, {stream = s1}))
    s1:synchronize()
    assert.are.same({1, 2, 3, 4}, d1:tohost(nil, {stream = s1}):totable())
    assert.are.equal(0, gpu.device().id)
  end)

  -- The advice was to make the stream's device current (gpu.with_device(1, f)), which
  -- then refused the arrays of device 0; a graph of device 0 was given the same.
  it("say, given a stream of another device than their arrays', that the two differ", function()
    local a, s1 = gpu.arange(4), on(1, gpu.stream)
    local apart = "a stream of device 1, and device 0 is current, with the arrays on device 0: the stream " ..
                  "and the arrays are on different devices: use a stream of device 0 (gpu.stream() made with it current)"
    assert.matches("gpu.sum: " .. apart, errof(gpu.sum, a, {stream = s1}), 1, true)
    assert.matches("gpu.add: " .. apart, errof(gpu.add, a, a, {stream = s1}), 1, true)
    assert.matches("gpu.sort: " .. apart, errof(gpu.sort, a, nil, {stream = s1}), 1, true)
    local k = gpu.kernel([[extern "C" __global__ void inc(gpu::array<float> a) { a[gpu::grid(1)] += 1; }]])
    assert.matches(apart, errof(function() k[{1, 4, stream = s1}](a) end), 1, true)
    -- the arrays with the stream: its device made current is the way
    local a1 = on(1, function() return gpu.arange(4) end)
    assert.matches("gpu.sum: a stream of device 1, and device 0 is current: use it with its device current " ..
                   "(gpu.with_device(1, f))", errof(gpu.sum, a1, {stream = s1}), 1, true)
    assert.are.equal(6, on(1, function() return gpu.sum(a1, {stream = s1}) end))
    -- no array to go by: both ways
    local none = gpu.kernel([[extern "C" __global__ void none(int n) { }]])
    assert.matches("a stream of device 1, and device 0 is current: a stream takes work of its device only: run it " ..
                   "with device 1 current (gpu.with_device(1, f)) on arrays there, or use a stream of device 0",
                   errof(function() none[{1, 4, stream = s1}](3) end), 1, true)
    local g = gpu.graph(function() k[{1, 4}](a) end)
    assert.matches("g:launch: the stream is of device 1, and the graph of device 0: launch it on a stream of device 0",
                   errof(g.launch, g, s1), 1, true)
    g:free()
  end)

  -- In a fresh process on CUDA nothing was current yet, so each of these found nothing to
  -- go back to and left device 1 current: the arrays made next went there.
  it("leave device 0 current when a process's first call used device 1", function()
    for _, first in ipairs{"gpu.nccl.comm({0, 1})", "gpu.with_device(1, gpu.zeros, 2)",
                           "gpu.device(1):synchronize()", "local c = gpu.nccl.comm({1}); c:free()"} do
      local out, _, err = support.host("-e " .. support.quote(first .. "; print(gpu.device().id, gpu.zeros(2).device)"))
      assert.are.equal("0\t0\n", out, first .. ": " .. err)
    end
  end)

  it("refuse operations on arrays of two devices, naming both", function()
    local x = both({1, 2}, {3, 4})
    assert.matches("gpu.add: arrays on device 0 and device 1: copy one to the other's device first",
                   errof(function() return x[1] + x[2] end))
    assert.matches("gpu.multiply: the arrays are on device 1, and device 0 is current: run it with gpu.with_device%(1, f%)",
                   errof(function() return x[2] * 2 end))
    -- a conversion is a kernel of the array's device (the copy's own words named 'copy')
    assert.matches("a:astype: an array on device 1, and device 0 is current", errof(x[2].astype, x[2], "int32"), 1, true)
    assert.are.equal(0, x[2]:astype(x[2].dtype).device)   -- one dtype: a copy here
    assert.matches("gpu.take: arrays on device 0 and device 1", errof(gpu.take, x[1], on(1, function() return gpu.array({1}, "int64") end)), 1, true)
    assert.matches("gpu.take: the arrays are on device 1, and device 0 is current", errof(gpu.take, x[2], {1}), 1, true)
    local k = gpu.kernel("__global__ void twice(float *p) { p[threadIdx.x] *= 2; }")
    assert.matches("kernel 'twice' argument 1 %(p%) is on device 1, and device 0 is current",
                   errof(function() k[{1, 2}](x[2]) end))
    on(1, function() k[{1, 2}](x[2]) end)
    assert.are.same({6, 8}, x[2]:totable())      -- read from device 1 while 0 is current
    assert.are.equal(8, x[2]:item(2))
    assert.matches("gpu.with_device: no device 9", errof(gpu.with_device, 9, print))
    assert.matches("gpu.with_device: no device 1.5", errof(gpu.with_device, 1.5, print))
    assert.are.equal(1, gpu.with_device(1.0, function() return gpu.device().id end))   -- as gpu.device(1.0)
    -- sorts, scans, products and user reductions too (they ran on the current device,
    -- reading the other's memory)
    local r = gpu.reduction("float32 x", "float32 y", "x", "a + b", "y = a", 0, "mysum")
    for name, f in pairs({sort = function() return x[2]:sort() end, argsort = function() return gpu.argsort(x[2]) end,
                          topk = function() return x[2]:topk(1) end, unique = function() return gpu.unique(x[2]) end,
                          cumsum = function() return x[2]:cumsum() end, matmul = function() return gpu.matmul(x[2], x[2]) end,
                          mysum = function() return r(x[2]) end,
                          ["fft.fft"] = function() return gpu.fft.fft(x[2]) end}) do
      assert.matches("gpu." .. name .. ": an array on device 1, and device 0 is current: run it with " ..
                     "gpu.with_device%(1, f%), or copy it here with a:to%(0%)", errof(f))
    end
    assert.matches("gpu.cumsum: out is on device 1, the array on device 0",
                   errof(function() return gpu.cumsum(gpu.zeros(2), {out = x[2]}) end))
  end)

  -- A gpu.jit kernel that reads an array from outside (a Lua launcher adds it), a debug one
  -- and one of a fixed signature lost the launch's line once compiled, the C launcher raising
  -- where gpuhost's stripped Lua or the dispatcher (C) called it; a bad configuration, any
  -- gpu.jit kernel's; and the fixed signature's count took in the array from outside
  it("name the launch's line in a gpu.jit kernel's launch errors once it has compiled", function()
    local w, x = gpu.arange(4, "float32"), gpu.zeros(4)
    local outside = gpu.jit(function(a, n) local i = gpu.grid(1); if i <= n then a[i] = a[i] + w[i] end end)
    local fixed = gpu.jit(function(a, n) local i = gpu.grid(1); if i <= n then a[i] = a[i] + w[i] end end,
                          {signature = "void(float32[:], int32)"})
    local checked = gpu.jit(function(a, n) local i = gpu.grid(1); if i <= n then a[i] = a[i] + w[i] end end, {debug = true})
    local plain = gpu.jit(function(a, n) local i = gpu.grid(1); if i <= n then a[i] = a[i] + 1 end end)
    local here = debug.getinfo(1, "S").short_src:gsub("%p", "%%%0")
    for _, k in ipairs({outside, fixed, checked, plain}) do
      k[{1, 4}](x, 4)
      for _ = 1, 2 do   -- a launcher found anew, then the one kept
        local line = debug.getinfo(1, "l").currentline
        local other = errof(gpu.with_device, 1, function() k[{1, 4}](x, 4) end)
        local config = errof(function() k[{1, 4, 5}](x, 4) end)
        assert.matches("^" .. here .. ":" .. line + 1 .. ": kernel '" .. k.name .. "' argument 1 %(a%) is on device 0, "
                       .. "and device 1 is current", other)
        assert.matches("^" .. here .. ":" .. line + 2 .. ": launch configuration has an unknown field %[3%]", config)
      end
    end
    local line = debug.getinfo(1, "l").currentline
    local count = errof(function() fixed[{1, 4}](x, 4, 5) end)
    assert.matches("^" .. here .. ":" .. line + 1 .. ": kernel 'fixed' takes 2 arguments, got 3$", count)
    assert.are.same({1, 4, 7, 10}, x:totable())   -- (three kernels added w once each, one added 1)
  end)

  -- An array a gpu.jit kernel reads from outside, on another device than the current one, was
  -- named as the C launcher saw it: "argument 3 (upvalue_w)", a name the user never wrote
  it("name an array read from outside on another device by its upvalue or global", function()
    local w = on(1, function() return gpu.arange(4, "float32") end)
    local x = gpu.zeros(4, "float32")
    local k = gpu.jit(function(a, n) local i = gpu.grid(1); if i <= n then a[i] = a[i] + w[i] end end)
    for _, debug in ipairs({false, true}) do
      local kk = debug and gpu.jit(function(a, n) local i = gpu.grid(1); if i <= n then a[i] = w[i] end end, {debug = true}) or k
      for _ = 1, 2 do   -- the first launch (compiling) and the next
        local e = errof(function() kk[{1, 4}](x, 4) end)
        assert.matches("upvalue 'w' of the gpu.jit function '" .. kk.name .. "' holds an array on device 1, and "
                       .. "device 0 is current: launch the kernel with device 1 current", e, 1, true)
        assert.is_nil(e:find("upvalue_w", 1, true))
      end
    end
    -- the user's own argument on another device is named first, as before
    assert.matches("kernel 'k' argument 1 (a) is on device 0, and device 1 is current",
                   errof(gpu.with_device, 1, function() k[{1, 4}](x, 4) end), 1, true)
    on(1, function() local y = gpu.zeros(4, "float32"); k[{1, 4}](y, 4); assert.are.same({0, 1, 2, 3}, y:totable()) end)
    assert.are.equal(0, gpu.device().id)
  end)

  it("copy between devices with a:to(dev) and gpu.copy", function()
    local a = gpu.arange(6, "int32"):reshape(2, 3)
    local b = a:to(1)
    assert.are.equal(0, gpu.device().id)   -- the copy leaves the current device as it was
    assert.are.same({1, {2, 3}, "int32"}, {b.device, b.shape, b.dtype})
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, b:totable())
    assert.are.equal(a, a:to(0))
    assert.are.same({{0, 3}, {1, 4}, {2, 5}}, a.T:to(gpu.device(1)):totable())   -- a view: packed first
    local d = on(1, function() return gpu.zeros({2, 3}, "int32") end)
    assert.are.equal(d, gpu.copy(d, a))
    assert.are.equal(0, gpu.device().id)
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, d:totable())
    on(1, function() gpu.copy(a, d); assert.are.equal(1, gpu.device().id) end)
    -- 4 MiB, each element checked on device 1 against the source
    local big = gpu.arange(2^20, "float32")
    local far = big:to(1)
    assert.are.equal(0, on(1, function() return far:ne(gpu.arange(2^20, "float32")):sum() end))
    local s1 = on(1, function() return gpu.stream() end)
    gpu.copy(a, d, {stream = s1})
    s1:synchronize()
    -- an expanded view is read-only across devices too (one element wrote all six)
    local one = on(1, function() return gpu.zeros({1}) end)
    assert.matches("cannot write into an expanded view", select(2, pcall(gpu.copy, one:expand(6)[{{2}}], gpu.full({1}, 3))), 1, true)
    assert.are.same({0}, one:totable())
    -- a fill and an assignment say so in their own words (they named gpu.copy, and device 1 alone)
    assert.matches("a:fill: an array on device 1, and device 0 is current", select(2, pcall(one.fill, one, 3)), 1, true)
    local z = gpu.zeros(1)
    assert.matches("a[key] = v: an array of device 1 into one of device 0: copy it there first (v:to(0))",
                   select(2, pcall(function() z[{}] = one end)), 1, true)
    -- on a stream one peer copy: C-ordered arrays of one dtype (without one: the next describe)
    local s0 = gpu.stream()
    assert.matches("gpu.copy: a copy between devices (0 to 1) on a stream keeps the dtype, got int32 to float32",
                   errof(gpu.copy, on(1, function() return gpu.zeros(6) end), gpu.arange(6, "int32"), {stream = s0}), 1, true)
    assert.matches("gpu.copy: a copy between devices (0 to 1) on a stream takes C-ordered arrays, and the source is a view",
                   errof(gpu.copy, on(1, function() return gpu.zeros({3, 2}, "int32") end), a.T, {stream = s0}), 1, true)
    assert.matches("gpu.copy: a copy between devices (0 to 1) on a stream takes C-ordered arrays, and the destination is a view",
                   errof(gpu.copy, on(1, function() return gpu.zeros({3, 2}, "int32") end).T, a, {stream = s0}), 1, true)
    assert.matches("copy: the stream must be of the source's device 0", errof(gpu.copy, d, a, {stream = s1}))
    assert.matches("no device 5", errof(a.to, a, 5))
    -- saved from its own device, a view too
    local path = os.tmpname()
    gpu.save(path, b.T)
    assert.are.same({{0, 3}, {1, 4}, {2, 5}}, gpu.load(path):totable())
    os.remove(path)
    -- a:copy() is made on the current device, as CuPy's; a graph on the CPU backend
    -- recorded a copy between devices, which CUDA refuses
    assert.are.same({0, 1}, {b:copy().device, on(1, function() return b:copy().device end)})
    assert.are.equal(1, gpu.with_device(gpu.device(1), function() return gpu.device().id end))   -- a device too
    -- tile and meshgrid copy on the array's device where nothing repeats (the copy went to
    -- the current device, and meshgrid(b, b) of device 1 failed naming a copy between devices)
    local r = on(1, function() return gpu.arange(3) end)
    local m1, m2 = gpu.meshgrid(r, r)
    assert.are.same({1, 1, 1}, {gpu.tile(r, 1).device, gpu.meshgrid(r).device, m2.device})
    local msg, err = errof(gpu.graph, function() a:to(1) end)   -- (its new array's device first)
    assert.are.equal("GPUHOST_NOT_CAPTURABLE", err.name)
    assert.matches("work on device 1 cannot be recorded in a graph of device 0", msg, 1, true)
  end)

  -- before: recorded with device 0 current, replayed there ([2, 2, 2] after two launches)
  it("refuses work on another device inside gpu.graph, naming both", function()
    local b = on(1, function() return gpu.zeros(3) end)
    local c = on(1, function() return gpu.ones(3) end)
    local msg, err = errof(gpu.graph, function() on(1, function() b:add(1, {out = b}) end) end)
    assert.are.equal("GPUHOST_NOT_CAPTURABLE", err.name)
    assert.matches("multi_spec.lua:%d+: work on device 1 cannot be recorded in a graph of device 0", msg)
    assert.are.equal(0, gpu.device().id)
    -- a copy on the arrays' device, which it makes current for the copy: refused there, on
    -- both backends (CUDA queued it on device 0's capture stream)
    for _, f in ipairs{function() gpu.copy(b, c) end, function() b:copy_(c) end} do
      msg, err = errof(gpu.graph, f)
      assert.are.equal("GPUHOST_NOT_CAPTURABLE", err.name)
      assert.matches("work on device 1 cannot be recorded in a graph of device 0, whose replays run on device 0: "
                     .. "record it in a graph of its own, with device 1 current", msg, 1, true)
    end
    assert.are.same({0, 0, 0}, b:totable())
    gpu.graph(function() on(0, function() end) end):free()   -- the device current is no switch
  end)

  -- A device made current for a copy was put back by closing a to-be-closed slot; Lua 5.4.4's
  -- lua_pop and lua_settop kept a pointer into the stack across that close, which moves the
  -- stack where it must grow for the close's call: at the end of a coroutine's small stack,
  -- a:copy_(b) from another device wrote through the stale pointer (ASan: SEGV in
  -- lua_settop under copy_into; "double free or corruption" later without it)
  it("copy between devices at the end of a coroutine's stack", function()
    local a, h = gpu.zeros(4), gpu.host.array({4, 5, 6, 7})
    local b = on(1, function() return gpu.arange(4) end)
    -- each the coroutine's first C call (which grows its stack past the first 40 slots):
    -- a:copy_(b), b:copy_(a), b:to(0), and b:copy_(h) (device 1 made current for a copy
    -- from the host; now each a protected call, device.c's device_call, or none)
    for _, body in ipairs({"a:copy_(b)", "b:copy_(a)", "return b:to(0)", "b:copy_(h)"}) do
      for k = 0, 40 do   -- k locals put the call's frame at every place near the stack's end
        local src = {"local a, b, h = ..."}
        for i = 1, k do src[#src + 1] = ("local v%d = %d"):format(i, i) end
        src[#src + 1] = body
        a:fill(0); b:copy_({0, 1, 2, 3})
        local t = coroutine.wrap(assert(load(table.concat(src, "\n"))))(a, b, h)   -- (b:to(0) said
        assert.are.equal(0, gpu.device().id, body .. ", k = " .. k)                  -- "got no value")
        if body == "a:copy_(b)" then assert.are.same({0, 1, 2, 3}, a:totable()) end
        if body == "b:copy_(a)" then assert.are.same({0, 0, 0, 0}, b:totable()) end
        if body == "b:copy_(h)" then assert.are.same({4, 5, 6, 7}, b:totable()) end
        if t then assert.are.same({0, {0, 1, 2, 3}}, {t.device, t:totable()}) end
      end
    end
  end)
end)

  -- An error that ended a coroutine while a copy (a:item, a:totable, a print) had made its
  -- arrays' device current left that device current for the whole process: a to-be-closed
  -- slot put it back, and Lua closes a dead coroutine's slots only at coroutine.close
  it("is the device before again when an error ends a coroutine in a copy on another device #multi", function()
    local a = gpu.zeros(4)
    local b, c = on(1, function() return gpu.zeros(4), gpu.zeros(5) end)
    local ok, e = coroutine.resume(coroutine.create(function() gpu.copy(b, c) end))
    assert.are.same({false, 0}, {ok, gpu.device().id})
    assert.matches("gpu.copy: 5 elements into an array of 4", e, 1, true)
    assert.are.same({{1, 1, 1, 1}, 0}, {(a + 1):totable(), gpu.zeros(2).device})
    ok, e = coroutine.resume(coroutine.create(function() b:copy_(c) end))
    assert.are.same({false, 0}, {ok, gpu.device().id})
    assert.matches("_spec.lua:%d+: a:copy_: 5 elements into an array of 4", e)
    -- errors raised with device 1 current (its packed copy of a view refused by the limit):
    -- 800 KB on device 1, 400 KB more, and a:totable, a:to, a print or a copy to the host of
    -- its transpose needs 800 KB again there
    local out = support.run("GPUHOST_MEMORY_LIMIT=1500000 " .. support.gpuhost .. " -e " .. support.quote([[
      local b = gpu.with_device(1, function() return gpu.ones({1000, 200}) end)
      local more = gpu.with_device(1, function() return gpu.ones(100000) end)
      local h = gpu.zeros({200, 1000}):tohost()
      for _, f in ipairs({function() return b.T:totable() end, function() return b.T:to(0) end,
                          function() return b.T:_peek(0, 4) end, function() h:copy_(b.T) end}) do
        local ok, e = coroutine.resume(coroutine.create(f))
        io.write(tostring(ok), " ", tostring(e and e.name), " ", gpu.device().id, ";")
      end]]) .. " 2>&1", nil)
    assert.are.equal(("false GPUHOST_MEMORY_LIMIT 0;"):rep(4), out)
  end)

describe("#multi gpu.nccl.comm over devices of this process", function()
  local comm = gpu.nccl.comm({0, 1})

  it("has its ranks and devices", function()
    assert.are.same({2, 0, {0, 1}, {0, 1}}, {comm.size, comm.rank, comm.devices, comm.ranks})
    assert.matches("gpu.nccl.comm%(2 ranks", tostring(comm))
  end)

  it("all_reduce sums (in place or into out), and takes prod, min, max, avg", function()
    local x = both({1, 2, 3}, {10, 20, 30})
    assert.are.equal(x, comm:all_reduce(x))
    assert.are.same({{11, 22, 33}, {11, 22, 33}}, {x[1]:totable(), x[2]:totable()})
    for op, want in pairs({prod = {10, 40, 90}, min = {1, 2, 3}, max = {10, 20, 30}, avg = {5.5, 11, 16.5}}) do
      local y = both({0, 0, 0}, {0, 0, 0})
      comm:all_reduce(both({1, 2, 3}, {10, 20, 30}), {op = op, out = y})
      assert.are.same(want, y[2]:totable(), op)
    end
    local i = comm:all_reduce(both({{1, -2}}, {{3, 4}}), {op = "max"})
    assert.are.same({{3, 4}}, i[1]:totable())
    -- float16, rounded as NCCL's half arithmetic rounds: 0.1 + 0.2 in float16 is 0.2998046875
    local h = {gpu.array({0.1, 2048, 3}, "float16"), on(1, function() return gpu.array({0.2, 1, 4}, "float16") end)}
    comm:all_reduce(h)
    assert.are.same({0.2998046875, 2048, 7}, h[2]:totable())
    local m = {gpu.array({0.5, -1}, "float16"), on(1, function() return gpu.array({1.5, 0}, "float16") end)}
    assert.are.same({1.5, 0}, comm:all_reduce(m, {op = "max"})[1]:totable())
    local v = {gpu.array({3}, "float16"), on(1, function() return gpu.array({0}, "float16") end)}
    assert.are.same({1.5}, comm:all_reduce(v, {op = "avg"})[2]:totable())
    -- avg as NCCL's: each value times 1/n, then summed (summed first, 60000 + 60000 was inf)
    local big = {gpu.full({2}, 60000, "float16"), on(1, function() return gpu.full({2}, 60000, "float16") end)}
    assert.are.same({60000, 60000}, comm:all_reduce(big, {op = "avg"})[1]:totable())
    local f = {gpu.full({4}, 3e38), on(1, function() return gpu.full({4}, 3e38) end)}
    assert.is_true(math.abs(comm:reduce_scatter(f, {op = "avg"})[2]:item(1) / 3e38 - 1) < 1e-6)
  end)

  it("all_gather, reduce_scatter, broadcast and reduce", function()
    local g = comm:all_gather(both({1, 2}, {3, 4}))
    assert.are.same({{1, 2}, {3, 4}}, g[2]:totable())
    local r = comm:reduce_scatter(both({1, 2, 3, 4}, {10, 20, 30, 40}))
    assert.are.same({{11, 22}, {33, 44}}, {r[1]:totable(), r[2]:totable()})
    local b = comm:broadcast(both({1, 1}, {7, 8}), {root = 1})
    assert.are.same({7, 8}, b[1]:totable())
    local d = comm:reduce(both({1, 2}, {3, 4}), {root = 1})
    assert.are.same({{1, 2}, {4, 6}}, {d[1]:totable(), d[2]:totable()})
    local bytes = comm:broadcast(both({{1, 2}}, {{0, 0}}), {root = 0})   -- any dtype moves
    assert.are.same({{1, 2}}, bytes[2]:totable())
    comm:barrier()
  end)

  it("sends and recvs in a group", function()
    local x, y = both({1, 2}, {3, 4}), both({0, 0}, {0, 0})
    gpu.nccl.group(function()
      comm:send(x, {1, 0})
      comm:recv(y, {1, 0})
    end)
    assert.are.same({{3, 4}, {1, 2}}, {y[1]:totable(), y[2]:totable()})
    assert.matches("rank 0's send to rank 1 has no recv in the same group",
                   errof(comm.send, comm, {x[1], false}, {1}))
    assert.matches("rank 1's recv from rank 0 has no send in the same group",
                   errof(gpu.nccl.group, function() comm:recv({false, y[2]}, {nil, 0}) end))
    -- a callable value as f, as gpu.graph and gpu.with_device take (before: "bad argument #1
    -- to '?' (function expected, got table)"), its arguments and results passed
    local swap = setmetatable({}, {__call = function(_, a, b) comm:send(a, {1, 0}); comm:recv(b, {1, 0}); return "swapped" end})
    local z = both({0, 0}, {0, 0})
    assert.are.equal("swapped", gpu.nccl.group(swap, x, z))
    assert.are.same({{3, 4}, {1, 2}}, {z[1]:totable(), z[2]:totable()})
    local s = gpu.nccl.group(gpu.sqrt, gpu.full(2, 4))
    assert.are.same({2, 2}, s:totable())
    assert.matches("multi_spec.lua:%d+: bad argument #1 to 'gpu.nccl.group' %(function or callable value expected, got table%)",
                   errof(function() gpu.nccl.group({}) end))
    assert.matches("bad argument #1 to 'gpu.nccl.group' (function or callable value expected, got no value)",
                   errof(gpu.nccl.group), 1, true)
  end)

  it("sends to its own rank in a group with the recv, as NCCL 2.7+ (all-to-all), and refuses it ungrouped", function()
    -- was "the peer of rank 0 must be another rank from 0 to 1, got 0", in a group too
    local x, y = both({1, 2}, {3, 4}), both({0, 0}, {0, 0})
    gpu.nccl.group(function()
      comm:send({x[1], false}, {0, false})
      comm:recv({y[1], false}, {0, false})
      comm:send({x[1], false}, {1, false})
      comm:recv({false, y[2]}, {false, 0})
    end)
    assert.are.same({{1, 2}, {1, 2}}, {y[1]:totable(), y[2]:totable()})
    gpu.nccl.group(function() comm:send(x, {0, 1}); comm:recv(y, {0, 1}) end)   -- every rank to itself
    assert.are.same({{1, 2}, {3, 4}}, {y[1]:totable(), y[2]:totable()})
    assert.matches("comm:send: rank 0 sends to itself outside a gpu.nccl.group (it would wait forever): " ..
                   "group the send and its recv", errof(comm.send, comm, {x[1], false}, {0, false}), 1, true)
    assert.matches("comm:recv: rank 1 receives from itself outside a gpu.nccl.group",
                   errof(comm.recv, comm, {false, y[2]}, {false, 1}), 1, true)
    assert.matches("rank 0's send to rank 0 has no recv in the same group",
                   errof(gpu.nccl.group, function() comm:send({x[1], false}, {0, false}) end), 1, true)
  end)

  it("pairs the k-th send between two ranks with the k-th recv, by dtype, before anything moves", function()
    local A, C = gpu.full(4, 1), gpu.full(3, 5)
    local Q, P = on(1, function() return gpu.zeros(4), gpu.zeros(3) end)
    gpu.nccl.group(function()   -- each send was paired with the first recv: "sends 3 ... receives 4"
      comm:send({A, false}, {1, false}); comm:send({C, false}, {1, false})
      comm:recv({false, Q}, {false, 0}); comm:recv({false, P}, {false, 0})
    end)
    assert.are.same({{1, 1, 1, 1}, {5, 5, 5}}, {Q:totable(), P:totable()})
    -- 4 and 4 into 4 and 3: refused with nothing moved (the first pair moved, then
    -- GPUHOST_COMM_MISMATCH came, naming no sizes)
    local X = on(1, function() return gpu.zeros(4) end)
    assert.matches("gpu.nccl: rank 0 sends 4 float32 elements to rank 1, which receives 3 float32 elements",
                   errof(gpu.nccl.group, function()
                     comm:send({A, false}, {1, false}); comm:send({A, false}, {1, false})
                     comm:recv({false, X}, {false, 0}); comm:recv({false, P}, {false, 0})
                   end))
    assert.are.same({0, 0, 0, 0}, X:totable())
    -- dtypes NCCL moves as bytes are compared as dtypes (a bool array was given byte 5)
    local function mismatch(sent, into)
      return errof(gpu.nccl.group, function() comm:send({sent, false}, {1, false}); comm:recv({false, into}, {false, 0}) end)
    end
    local b = on(1, function() return gpu.zeros(4, "bool") end)
    assert.matches("gpu.nccl: rank 0 sends 2 int16 elements to rank 1, which receives 4 bool elements",
                   mismatch(gpu.array({5, 256}, "int16"), b), 1, true)
    assert.are.same({false, false, false, false}, b:totable())
    for _, c in ipairs({{"int16", 2, "uint16", 2}, {"complex64", 2, "int16", 8}, {"complex128", 1, "complex64", 2}}) do
      assert.matches(("rank 0 sends %d %s elements to rank 1, which receives %d %s elements"):format(c[2], c[1], c[4], c[3]),
                     mismatch(gpu.zeros(c[2], c[1]), on(1, function() return gpu.zeros(c[4], c[3]) end)), 1, true)
    end
    local i16 = on(1, function() return gpu.zeros(2, "int16") end)
    gpu.nccl.group(function() comm:send({gpu.array({5, 256}, "int16"), false}, {1, false}); comm:recv({false, i16}, {false, 0}) end)
    assert.are.same({5, 256}, i16:totable())
  end)

  it("runs none of a group's calls when its function raises", function()
    local x = both({1, 2}, {3, 4})
    local r = on(1, function() return gpu.zeros(2) end)
    assert.matches("multi_spec.lua:%d+: stop", errof(gpu.nccl.group, function()
      comm:all_reduce(x)
      comm:send({gpu.full(2, 7), false}, {1, false}); comm:recv({false, r}, {false, 0})
      error("stop")
    end))
    assert.are.same({{1, 2}, {3, 4}, {0, 0}}, {x[1]:totable(), x[2]:totable(), r:totable()})
    gpu.nccl.group(function() comm:all_reduce(x) end)   -- and the next group runs
    assert.are.same({4, 6}, x[2]:totable())
  end)

  -- an empty array's memory may be no pointer at all, which memcpy may not be given (UBSan
  -- reported the all_reduce and reduce_scatter under scripts/sanitize.sh)
  it("moves empty arrays", function()
    local function empty() return {gpu.zeros(0), on(1, function() return gpu.zeros(0) end)} end
    for _, call in ipairs({"all_reduce", "reduce_scatter", "all_gather", "broadcast", "reduce"}) do
      local out = comm[call](comm, empty())
      assert.are.same({0, 0}, {out[1].size, out[2].size}, call)
    end
    local y = empty()
    gpu.nccl.group(function() comm:send(empty(), {1, 0}); comm:recv(y, {1, 0}) end)
    assert.are.same({}, y[2]:totable())
  end)

  -- the limit is gpuhost's own list of pending pairs: the group is dropped, nothing was
  -- given to NCCL, and the communicator is not broken
  it("refuses more than 256 sends and recvs in one group, and goes on", function()
    local x, y = both({1, 2}, {3, 4}), both({0, 0}, {0, 0})
    assert.matches("more than 256 sends and recvs in one group", errof(gpu.nccl.group, function()
      for _ = 1, 65 do comm:send(x, {1, 0}); comm:recv(y, {1, 0}) end
    end))
    gpu.nccl.group(function() comm:send(x, {1, 0}); comm:recv(y, {1, 0}) end)
    assert.are.same({{3, 4}, {1, 2}}, {y[1]:totable(), y[2]:totable()})
    local z = comm:all_reduce(both({1, 2}, {3, 4}))
    assert.are.same({{4, 6}, {4, 6}}, {z[1]:totable(), z[2]:totable()})
  end)

  it("refuses what would hang or mislead", function()
    local a0, a1 = gpu.zeros(3), on(1, function() return gpu.zeros(2) end)
    assert.matches("comm:all_reduce: argument 1 entry 2 is on device 0, and rank 1 of the communicator is on device 1",
                   errof(comm.all_reduce, comm, {a0, a0}))
    assert.matches("comm:all_reduce: the ranks' arrays differ: 3 float32 elements on device 0, 2 float32 on device 1",
                   errof(comm.all_reduce, comm, {a0, a1}))
    assert.matches("comm:all_reduce: argument 1 must be a table of 2 arrays", errof(comm.all_reduce, comm, a0))
    assert.matches("NCCL cannot reduce int16 arrays", errof(comm.all_reduce, comm, both({{1}}, {{1}}) and
      {gpu.zeros(1, "int16"), on(1, function() return gpu.zeros(1, "int16") end)}))
    assert.matches("op 'avg' takes float16, float32 or float64 arrays, got int32",
                   errof(comm.all_reduce, comm, {gpu.zeros(1, "int32"), on(1, function() return gpu.zeros(1, "int32") end)}, {op = "avg"}))
    assert.matches("gpu.nccl.comm: device 0 is named twice", errof(gpu.nccl.comm, {0, 0}))
    assert.matches("gpu.nccl.comm: no device 7", errof(gpu.nccl.comm, {0, 7}))
    assert.matches("reduce_scatter: 3 elements do not split among 2 ranks",
                   errof(comm.reduce_scatter, comm, {a0, on(1, function() return gpu.zeros(3) end)}))
    assert.matches("root must be a rank from 0 to 1", errof(comm.broadcast, comm, {a0, a1}, {root = 2}))
    -- an out over part of its input (NCCL's in place is out = the input): refused
    local v0, v1 = gpu.array({1, 2, 3, 4, 5}), on(1, function() return gpu.array({2, 4, 6, 8, 10}) end)
    assert.matches("comm:all_reduce: out shares memory with the input %(in place is out = the input itself",
                   errof(comm.all_reduce, comm, {v0[{{1, 4}}], v1[{{1, 4}}]}, {out = {v0[{{2, 5}}], v1[{{2, 5}}]}}))
    -- empty arrays share no memory (they were refused as doing so)
    local function empty() return {gpu.zeros(0), on(1, function() return gpu.zeros(0) end)} end
    assert.are.equal(0, comm:all_gather(empty(), {out = empty()})[1].size)
    -- NCCL's min and max of floats: a NaN loses to a number (fmin, fmax)
    local m = comm:all_reduce({gpu.array({0 / 0, 1}), on(1, function() return gpu.array({1, 0 / 0}) end)}, {op = "min"})
    assert.are.same({1, 1}, m[1]:totable())
    -- an option the call does not take (root summed without a word), a bad op, streams
    local b = {a0, on(1, function() return gpu.zeros(3) end)}
    -- a recv into what a send of its group reads (NCCL runs them at once), dtypes named
    local x = {gpu.array({1, 2}), on(1, function() return gpu.array({3, 4}) end)}
    assert.matches("rank 0 receives into memory that rank 0 sends in the same group",
                   errof(gpu.nccl.group, function() comm:send(x, {1, 0}); comm:recv(x, {1, 0}) end), 1, true)
    assert.matches("rank 1 sends 2 float32 elements to rank 0, which receives 2 int32 elements",
                   errof(gpu.nccl.group, function()
                     comm:send(x, {1, 0})
                     comm:recv({gpu.zeros(2, "int32"), on(1, function() return gpu.zeros(2) end)}, {1, 0})
                   end), 1, true)
    assert.matches("comm:all_reduce: unknown option 'root' (it takes op, out, stream)",
                   errof(comm.all_reduce, comm, b, {root = 1}), 1, true)
    assert.matches("comm:all_gather: unknown option 'op' (it takes out, stream)",
                   errof(comm.all_gather, comm, b, {op = "sum"}), 1, true)
    assert.matches('comm:all_reduce: op must be "sum", "prod", "min", "max" or "avg", got \'mean\'',
                   errof(comm.all_reduce, comm, b, {op = "mean"}), 1, true)
    assert.matches("stream must be a table of 2 streams, one per device, got 3",
                   errof(comm.all_reduce, comm, b, {stream = {gpu.stream(), gpu.stream(), gpu.stream()}}), 1, true)
    -- a key besides a per-device list's was dropped: {x0, x1, op = "max"} summed
    assert.matches('comm:all_reduce: argument 1 has a key "op" besides its 2 elements',
                   errof(comm.all_reduce, comm, {b[1], b[2], op = "max"}), 1, true)
    assert.matches('comm:all_reduce: out has a key "x" besides its 2 elements',
                   errof(comm.all_reduce, comm, b, {out = {b[1], b[2], x = 1}}), 1, true)
    assert.matches('comm:all_reduce: stream has a key "x" besides its 2 elements',
                   errof(comm.all_reduce, comm, b, {stream = {gpu.stream(), gpu.stream(), x = 1}}), 1, true)
    assert.matches('comm:send: the table of peers has a key "x" besides its 2 elements',
                   errof(comm.send, comm, {a0, false}, {1, false, x = 1}), 1, true)
    assert.matches('gpu.nccl.comm: the table of devices has a key "x" besides its 2 elements',
                   errof(gpu.nccl.comm, {0, 1, x = 1}), 1, true)
    -- a send's or recv's stream table takes false where its rank has no array, and names the entry
    local s0, y1 = gpu.stream(), on(1, function() return gpu.zeros(2) end)
    gpu.nccl.group(function()
      comm:send({gpu.array({8, 9}), false}, {1, false}, {stream = {s0, false}})
      comm:recv({false, y1}, {false, 0})
    end)
    assert.are.same({8, 9}, y1:totable())
    assert.matches("comm:send: stream entry 1 must be a gpu.stream, got boolean",
                   errof(comm.send, comm, {a0, false}, {1, false}, {stream = {false, false}}), 1, true)
    assert.matches("comm:all_reduce: stream entry 2 must be a gpu.stream, got number",
                   errof(comm.all_reduce, comm, b, {stream = {s0, 5}}), 1, true)
    -- ranks and devices are integers, not strings; a device may be gpu.device(i), as a:to takes
    assert.matches('comm:broadcast: root must be a rank from 0 to 1, got a string ("1")',
                   errof(comm.broadcast, comm, b, {root = "1"}), 1, true)
    assert.matches('comm:send: the peer of rank 0 must be a rank from 0 to 1, got a string ("1")',
                   errof(comm.send, comm, {a0, false}, {"1", false}), 1, true)
    assert.matches("gpu.nccl.comm: entry 2 is not a device id (an integer or gpu.device(d)), got string",
                   errof(gpu.nccl.comm, {0, "1"}), 1, true)
    assert.are.same({1, 0}, gpu.nccl.comm({gpu.device(1), gpu.device(0)}).devices)
    -- all_gather of 8-D arrays: its result would need 9 dimensions (it was made 1-D)
    local e8 = {gpu.ones({1, 1, 1, 1, 1, 1, 1, 2}), on(1, function() return gpu.ones({1, 1, 1, 1, 1, 1, 1, 2}) end)}
    assert.matches("comm:all_gather: the result would have 9 dimensions, one more than the array's (at most 8): " ..
                   "pass out = an array of 2 times its elements", errof(comm.all_gather, comm, e8), 1, true)
    assert.are.same({4}, comm:all_gather(e8, {out = {gpu.zeros(4), on(1, function() return gpu.zeros(4) end)}})[2].shape)
  end)

  it("leaves the current device as it was when an output cannot be allocated", function()
    -- 1.5 MB a device: all_gather's new output (800 KB) fits on device 0 and not on
    -- device 1, which holds 400 KB more
    local out = support.run("GPUHOST_MEMORY_LIMIT=1500000 " .. support.gpuhost .. " -e " .. support.quote([[
      local comm = gpu.nccl.comm({0, 1})
      local x = {gpu.ones(100000), gpu.with_device(1, function() return gpu.ones(100000) end)}
      local more = gpu.with_device(1, function() return gpu.ones(100000) end)
      local ok, e = pcall(comm.all_gather, comm, x)
      print(ok, e and e.name, gpu.device().id)]]) .. " 2>&1", nil)
    assert.matches("false\tGPUHOST_MEMORY_LIMIT\t0\n", out)
  end)

  it("#cpu leaves the current device as it was when a collective fails at its group's end", function()
    -- a lone all_reduce over two devices is a group; the CPU backend's group end takes a
    -- buffer of the arrays' size (256 MiB), refused under an address-space limit (ulimit -v)
    -- 128 MiB above what the process holds once it has made the arrays
    local code = [[
      local comm = gpu.nccl.comm({0, 1})
      local x = {gpu.empty(2^26), gpu.with_device(1, function() return gpu.empty(2^26) end)}
      if os.getenv("MEASURE") then
        for l in io.lines("/proc/self/status") do io.write(l:match("^VmSize:%s*(%d+)") or "") end
        return
      end
      local ok, e = pcall(comm.all_reduce, comm, x)
      print(ok, tostring(e):match("^[%w_]+"), gpu.device().id)]]
    local kb = assert(tonumber((support.run("MEASURE=1 " .. support.gpuhost .. " -e " .. support.quote(code)))))
    local out = support.run("ulimit -v " .. (kb + 131072) .. "; " .. support.gpuhost .. " -e " ..
                            support.quote(code) .. " 2>&1", nil)
    assert.matches("false\tCUDA_ERROR_OUT_OF_MEMORY\t0\n", out)
  end)

  it("keeps what a group's calls use until its end, and refuses to free their communicator before", function()
    -- in a subprocess: freeing it, or collecting what a queued call reads, read freed
    -- memory at the group's end (a segfault on the CPU backend)
    local out = support.run(support.gpuhost .. " -e " .. support.quote([[
      local comm = gpu.nccl.comm({0, 1})
      local x = {gpu.ones(4), gpu.with_device(1, function() return gpu.ones(4) end)}
      local ok, e = pcall(gpu.nccl.group, function() comm:all_reduce(x); comm:abort() end)
      print(ok, e)
      local outs
      gpu.nccl.group(function()
        outs = gpu.nccl.comm({0, 1}):all_gather({gpu.full(4, 3), gpu.with_device(1, function() return gpu.full(4, 5) end)})
        collectgarbage(); collectgarbage()
      end)
      print(x[1]:item(1), x[2]:item(1), outs[1]:item(1, 1), outs[1]:item(2, 4), outs[2]:item(2, 1))
      comm:free()]]) .. " 2>&1", nil)
    assert.matches("false\t[^\n]*comm:abort: the communicator has calls queued in the open gpu.nccl.group, " ..
                   "which runs them at its end: abort it after the group\n", out)
    assert.matches("\n1.0\t1.0\t3.0\t5.0\t5.0\n", out)   -- the raising group ran none of its calls
  end)

  it("refuses to free an array a group's call uses, and what an option's metamethod freed", function()
    local comm = gpu.nccl.comm({0})
    local a = gpu.ones(4)
    local r
    assert.matches("attempt to free an array that a collective queued in gpu.nccl.group uses",
                   errof(gpu.nccl.group, function() r = comm:all_gather(a); a:free() end), 1, true)
    gpu.nccl.group(function() r = comm:all_gather(a) end)
    a:free()                                          -- after its group, it may go
    local b = gpu.ones(4)
    local freeing = function(victim)
      return setmetatable({}, {__index = function(_, k) if k == "out" or k == "stream" then victim:free() end end})
    end
    assert.matches("attempt to use a freed array (comm:all_gather argument 1)", errof(comm.all_gather, comm, b, freeing(b)), 1, true)
    assert.matches("attempt to use a freed communicator", errof(comm.all_reduce, comm, gpu.ones(4), freeing(comm)), 1, true)
  end)

  it("names the method and the argument or entry of a freed array it is given", function()
    -- was only "attempt to use a freed array", naming neither
    local dead = gpu.ones(2)
    dead:free()
    local c1, live = gpu.nccl.comm({0}), gpu.ones(2)
    for _, m in ipairs({"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce"}) do
      assert.matches(("attempt to use a freed array (comm:%s argument 1)"):format(m), errof(c1[m], c1, dead), 1, true)
      assert.matches(("attempt to use a freed array (comm:%s out)"):format(m),
                     errof(c1[m], c1, live, {out = dead}), 1, true)
    end
    assert.matches("attempt to use a freed array (comm:send argument 1)", errof(c1.send, c1, dead, 0), 1, true)
    assert.matches("attempt to use a freed array (comm:recv argument 1)", errof(c1.recv, c1, dead, 0), 1, true)
    local on1 = gpu.with_device(1, function() return gpu.ones(2) end)
    assert.matches("attempt to use a freed array (comm:broadcast argument 1 entry 1)",
                   errof(comm.broadcast, comm, {dead, on1}), 1, true)
    assert.matches("attempt to use a freed array (comm:all_reduce out entry 1)",
                   errof(comm.all_reduce, comm, {live, on1}, {out = {dead, on1}}), 1, true)
    assert.matches("attempt to use a freed array (comm:send argument 1 entry 1)",
                   errof(comm.send, comm, {dead, false}, {1, false}), 1, true)
  end)

  it("is freed by free(), <close> and abort(); a freed one is refused", function()
    local c = gpu.nccl.comm({1, 0})
    assert.are.same({1, 0}, c.devices)
    c:abort()
    assert.matches("attempt to use a freed communicator", errof(c.barrier, c))
    do local d <close> = gpu.nccl.comm({0, 1}); d:barrier() end
    local e = gpu.nccl.comm({0}); e:free(); e:free()
  end)

  -- Before: an inner group whose function raised left its calls queued, and the outer
  -- group's end ran them (its send even paired with a recv of the outer group)
  it("runs none of an inner group's calls when its function raised", function()
    local comm = gpu.nccl.comm({0, 1})
    local x = gpu.array({1, 2, 3, 4})
    local y, z = gpu.with_device(1, gpu.zeros, 4), gpu.with_device(1, gpu.zeros, 4)
    local inner
    gpu.nccl.group(function()
      comm:send({x, false}, {1, false})
      inner = select(2, pcall(gpu.nccl.group, function()
        comm:send({x * 2, false}, {1, false})
        comm:recv({false, y}, {false, 0})
        error("stop")
      end))
      comm:recv({false, z}, {false, 0})
    end)
    assert.matches("stop", tostring(inner), 1, true)
    assert.are.same({0, 0, 0, 0}, y:totable())
    assert.are.same({1, 2, 3, 4}, z:totable())
  end)
end)

describe("gpu.nccl.comm over one device", function()
  it("refuses to be recorded in a graph", function()
    local comm, x = gpu.nccl.comm({0}), gpu.ones(4)
    for _, f in ipairs({function() comm:all_reduce(x) end, function() comm:barrier() end,
                        function() gpu.nccl.group(function() comm:broadcast(x) end) end}) do
      assert.matches("cannot be recorded in a graph %(gpu.graph%): run collectives between replays",
                     errof(gpu.graph, f))
    end
    comm:all_reduce(x)   -- and goes on working after
    assert.are.same({1, 1, 1, 1}, x:totable())
    comm:free()
  end)

  it("keeps a group's streams until its end, and refuses a barrier inside one", function()
    local comm, x, s = gpu.nccl.comm({0}), gpu.ones(4), gpu.stream()
    local ok, err = pcall(gpu.nccl.group, function()
      comm:all_reduce(x, {stream = s})
      s:destroy()
    end)
    assert.is_false(ok)
    assert.matches("s:destroy: the stream has collectives queued in the open gpu.nccl.group, which runs them " ..
                   "at its end: destroy it after the group", err)
    s:synchronize()
    s:destroy()          -- after the group, it may go
    local other = gpu.stream()
    gpu.nccl.group(function() comm:all_reduce(x) other:destroy() end)   -- one the group does not use
    assert.matches("comm:barrier cannot wait inside a gpu.nccl.group", errof(gpu.nccl.group, function() comm:barrier() end))
    comm:barrier()
    assert.are.same({1, 1, 1, 1}, x:totable())
    comm:free()
  end)

  -- The host runs up to a thousand launches (a tenth of a second of work) ahead of the
  -- device here, so the collective just queued is never done when the next is: the
  -- timeout must count from a collective that stays unfinished, not from the first of a
  -- run that never drains (which broke every loop of collectives kept busy for longer than
  -- GPUHOST_COMM_TIMEOUT).
  it("#cuda keeps a loop of collectives that never drains alive past the timeout", function()
    local out, _, err = support.run("GPUHOST_COMM_TIMEOUT=1 " .. support.gpuhost .. " -e " .. support.quote([[
      local comm = gpu.nccl.comm({0})
      local spin = gpu.kernel("__global__ void spin(long long n) { long long t = clock64(); while (clock64() - t < n) {} }")
      local x, n, t0 = gpu.ones(4), 0, gpu.clock()
      local ok, err = pcall(function()
        while gpu.clock() - t0 < 2.5 do spin[{1, 1}](200000); comm:all_reduce(x); n = n + 1 end
        gpu.synchronize()
      end)
      print(ok, err, n > 1000, x:item(1))]]))
    assert.matches("^true\tnil\ttrue\t1.0\n", out .. err)
    -- and a collective that stays unfinished (behind 2 s of work) still breaks it
    out, _, err = support.run("GPUHOST_COMM_TIMEOUT=1 " .. support.gpuhost .. " -e " .. support.quote([[
      local comm = gpu.nccl.comm({0})
      local spin = gpu.kernel("__global__ void spin(long long n) { long long t = clock64(); while (clock64() - t < n) {} }")
      local x = gpu.ones(4)
      comm:all_reduce(x); gpu.synchronize()
      spin[{1, 1}](4000000000); comm:all_reduce(x)
      print(pcall(gpu.synchronize))]]))
    assert.matches("^false\tGPUHOST_COMM_FAILED: a collective on rank 0 %(device 0%) has not finished after 1 s", out .. err)
  end)

  -- A device queues about a thousand calls; the next would block inside CUDA, where no
  -- wait watches, until the collective ahead ends: the throttle waits (watched) first.
  -- Loading a new kernel's module waits for the device too, and so does cuBLAS's first
  -- launch of a kernel it had not used (CUDA loads it then). Before the throttle, and
  -- before products of a new kind settled, each ran to the end of the spin and returned
  -- true. (The error itself comes at the spin's end: ncclCommAbort waits for the device,
  -- which a stuck NCCL kernel, unlike the spin, leaves when aborted.)
  it("#cuda raises behind an unfinished collective instead of blocking in a launch", function()
    for _, case in ipairs{"for _ = 1, 3000 do tiny[{1, 1}](x) end",
                          "local k = gpu.kernel('__global__ void k2(float *x) { x[1] = 2; }'); k[{1, 1}](x)",
                          "local b = gpu.ones({2048, 2048}); b = b:matmul(b)"} do
      local out, _, err = support.run("GPUHOST_COMM_TIMEOUT=1 " .. support.gpuhost .. " -e " .. support.quote([[
        local comm = gpu.nccl.comm({0})
        local spin = gpu.kernel("__global__ void spin(long long n) { long long t = clock64(); while (clock64() - t < n) {} }")
        local tiny = gpu.kernel("__global__ void tiny(float *x) { if (x[0] < -1) x[0] = 0; }")
        local x = gpu.ones(4)
        local m = gpu.ones({8, 8}); m = m:matmul(m)
        tiny[{1, 1}](x); comm:all_reduce(x); gpu.synchronize()
        spin[{1, 1}](4000000000); comm:all_reduce(x)
        print(pcall(function() ]] .. case .. [[ end))]]))
      assert.matches("^false\tGPUHOST_COMM_FAILED: a collective on rank 0 %(device 0%) has not finished after 1 s", out .. err)
    end
  end)

  -- A collective on the default stream gets its probe at the next wait, after whatever was
  -- queued since: the timeout counts from there, not from the collective (which blamed a
  -- collective long done for a kernel launched a timeout later).
  it("#cuda does not blame a collective long done for work queued after it", function()
    local out, _, err = support.run("GPUHOST_COMM_TIMEOUT=1 " .. support.gpuhost .. " -e " .. support.quote([[
      local comm = gpu.nccl.comm({0})
      local spin = gpu.kernel("__global__ void spin(long long n) { long long t = clock64(); while (clock64() - t < n) {} }")
      local x = gpu.ones(4)
      spin[{1, 1}](1000); comm:all_reduce(x); gpu.synchronize()
      comm:all_reduce(x)
      local t0 = gpu.clock()
      while gpu.clock() - t0 < 1.2 do end
      spin[{1, 1}](1200000000)
      print(pcall(function() return x:tohost()[1] end))]]))
    assert.matches("^true\t1.0\n", out .. err)
  end)

  -- b's collective is stuck behind the spin on s1; a's run on s2, which does not wait for
  -- s1. The throttle before one of a's collectives finds b broken: b is refused from then
  -- on, a goes on.
  it("#cuda breaks only the communicator that broke when another's collective finds it", function()
    local out, _, err = support.run("GPUHOST_COMM_TIMEOUT=1 " .. support.gpuhost .. " -e " .. support.quote([[
      local a, b = gpu.nccl.comm({0}), gpu.nccl.comm({0})
      local spin = gpu.kernel("__global__ void spin(long long n) { long long t = clock64(); while (clock64() - t < n) {} }")
      local s1, s2, x, y = gpu.stream(), gpu.stream(), gpu.ones(4), gpu.ones(4)
      a:all_reduce(x, {stream = s2}); b:all_reduce(y, {stream = s1}); gpu.synchronize()
      spin[{1, 1, stream = s1}](4000000000); b:all_reduce(y, {stream = s1})
      print(pcall(function() for _ = 1, 3000 do a:all_reduce(x, {stream = s2}) end end))
      print(pcall(a.all_reduce, a, x, {stream = s2}))
      print(pcall(b.all_reduce, b, y, {stream = s1}))]]))
    assert.matches("^false\tGPUHOST_COMM_FAILED: a collective on rank 0 %(device 0%) has not finished after 1 s "
                   .. "%(GPUHOST_COMM_TIMEOUT%): a rank is stuck elsewhere.-\n"
                   .. "true\tgpu.array%(float32, {4}%) %[1, 1, 1, 1%]\nfalse\t.-broken", out .. err)
  end)
end)

describe("gpu.nccl.comm under a launcher", function()
  it("says so outside one", function()
    assert.matches("GPUHOST_COMM_FAILED: this process was not started by a launcher %(none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is set%): run it with mpirun",
                   errof(gpu.nccl.comm))
  end)

  it("names a missing MPI library, and malformed settings", function()
    local function run(env, code)
      local p = io.popen(env .. " build/gpuhost -e '" .. code .. "' 2>&1")
      local out = p:read("a"); p:close(); return out
    end
    local launcher = "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1"
    assert.matches("GPUHOST_NO_MPI: the MPI library /nonexistent/libmpi.so could not be loaded",
                   run(launcher .. " GPUHOST_MPI_LIBRARY=/nonexistent/libmpi.so", "gpu.nccl.comm()"))
    assert.matches("do not make a rank, a size and a local rank",
                   run("OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=2", "gpu.nccl.comm()"))
    assert.matches("GPUHOST_BAD_SETTING: GPUHOST_COMM_TIMEOUT='soon': a whole number of seconds",
                   run("GPUHOST_COMM_TIMEOUT=soon", "gpu.nccl.comm({0})"))
  end)

  -- MPI's world (one process, started without mpirun) disagrees with the launcher's
  -- environment: the second try made rank 1 of 2 over a world of one, whose all_reduce
  -- then compared headers no rank had written
  it("#mpi keeps a start that failed failed", function()
    local code = "for i = 1, 3 do print(select(2, pcall(gpu.nccl.comm))) end"
    local out, _, err = support.run("OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 timeout 60 " ..
                                    support.gpuhost .. " -e " .. support.quote(code))
    local lines = {}
    for line in out:gmatch("[^\n]+") do lines[#lines + 1] = line end
    assert.are.equal(3, #lines, out .. err)
    assert.matches("^GPUHOST_MPI_ERROR: MPI says rank 0 of 1, the launcher's environment rank 1 of 2", lines[1])
    assert.are.same({lines[1], lines[1]}, {lines[2], lines[3]})
  end)

  it("#cpu reads GPUHOST_CPU_DEVICES strictly", function()
    local p = io.popen("GPUHOST_CPU_DEVICES=2x build/gpuhost --cpu -e 'gpu.device_count()' 2>&1")
    assert.matches("GPUHOST_BAD_SETTING: GPUHOST_CPU_DEVICES='2x': a whole number of devices from 1 to 64 expected", p:read("a"))
    p:close()
  end)

  it("#cuda names a missing NCCL library", function()
    for _, code in ipairs({"gpu.nccl.comm({0})", "gpu.nccl.version()"}) do
      local p = io.popen("GPUHOST_NCCL_LIBRARY=/nonexistent/libnccl.so.2 build/gpuhost -e '" .. code .. "' 2>&1")
      assert.matches("GPUHOST_NO_NCCL: the NCCL library /nonexistent/libnccl.so.2 could not be loaded", p:read("a"))
      p:close()
    end
  end)

  it("gives NCCL's version (none on the CPU backend)", function()
    local v = gpu.nccl.version()
    if gpu.backend() == "cpu" then assert.is_nil(v)
    else assert.is_true(math.type(v) == "integer" and v >= 21200) end
  end)
end)

describe("#multi the examples", function()
  local function run(script)
    local p = io.popen("build/gpuhost " .. script .. " 2>&1")
    local out = p:read("a"); p:close(); return out
  end
  it("estimate pi over every device (scripts/montecarlo.lua)", function()
    local pi = tonumber(run("scripts/montecarlo.lua 100000"):match("pi ~ ([%d.]+) from 200000 points on 2 ranks"))
    assert.is_true(pi and math.abs(pi - math.pi) < 0.05)
  end)
  it("train a linear model data-parallel (scripts/train_dp.lua)", function()
    local err = tonumber(run("scripts/train_dp.lua"):match("over 2 ranks in 200 steps: max |w %- w_true| = (%S+)"))
    assert.is_true(err and err < 1e-3)
  end)
end)

-- Copies between devices that are no single peer copy: a view packed on its own device first,
-- a conversion made on the destination's (they were refused: 'copy: between devices (1 to 0)
-- the arrays must be C-ordered' for a.T:copy(), a.T:astype, gpu.array(a.T), gpu.array(a,
-- "float32")); a copy that makes memory makes it on the current device, as a:copy() and
-- CuPy's (a.T:contiguous() and a.T:flatten() named gpu.copy, gpu.ravel copied on device 1)
describe("#multi copies between devices of any layout and dtype", function()
  local T = {{0, 3}, {1, 4}, {2, 5}}
  local function one()
    return on(1, function() return gpu.arange(6, "float64"):reshape(2, 3) end)
  end
  it("make a:copy, a:astype, gpu.array, a:copy_ and gpu.copy of a view or another dtype", function()
    local a = one()
    for _, f in ipairs{function() return a.T:copy() end, function() return a.T:astype("float64") end,
                       function() return gpu.array(a.T) end, function() return gpu.array(a.T, "float32") end} do
      local c = f()
      assert.are.same({0, {3, 2}, T}, {c.device, c.shape, c:totable()})
    end
    local c = gpu.array(a, "float32")
    assert.are.same({0, "float32", {{0, 1, 2}, {3, 4, 5}}}, {c.device, c.dtype, c:totable()})
    local d = gpu.zeros({3, 2}, "int32")
    assert.are.equal(d, gpu.copy(d, a.T))
    assert.are.same(T, d:totable())
    local v = gpu.zeros({2, 3}, "int16")
    v.T:copy_(a.T)   -- into a view, converted
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, v:totable())
    local back = on(1, function() return gpu.zeros({3, 2}, "float32") end)
    gpu.copy(back.T, gpu.arange(6, "int64"):reshape(2, 3))   -- to device 1: converted there
    assert.are.same({{0, 3}, {1, 4}, {2, 5}}, back:totable())
    assert.are.equal(0, gpu.device().id)
    assert.matches("a:copy_: 6 elements into an array of 5", errof(gpu.zeros(5).copy_, gpu.zeros(5), a), 1, true)
  end)
  it("make contiguous, flatten and ravel's copies on the current device", function()
    local a = one()
    local b = gpu.broadcast_to(a, {2, 2, 3})
    for _, f in ipairs{function() return a.T:contiguous() end, function() return b:contiguous() end,
                       function() return a.T:flatten() end, function() return a.T:ravel() end,
                       function() return gpu.ravel(a.T) end, function() return gpu.ascontiguousarray(a.T) end} do
      assert.are.equal(0, f().device)
    end
    assert.are.same({0, 3, 1, 4, 2, 5}, a.T:flatten():totable())
    assert.are.same({{{0, 1, 2}, {3, 4, 5}}, {{0, 1, 2}, {3, 4, 5}}}, b:contiguous():totable())
    -- a view where none is copied: on a's device
    assert.are.same({1, 1, 1}, {a:contiguous().device, a:flatten().device, a:ravel().device})
  end)
end)

describe("#multi the functions written in Lua", function()
  -- each refuses an array of another device before any work, naming itself and the
  -- parameter (they named an operation or kernel inside, or copied the array here silently)
  local function here(name, what)
    return ("gpu.%s: %s on device 1, and device 0 is current: run it with gpu.with_device(1, f), or copy it here with a:to(0)")
           :format(name, what)
  end
  local function refused(msg, f, ...)
    local ok, e = pcall(f, ...)
    assert.is_false(ok)
    assert.are.equal(msg, (tostring(e):gsub("^spec/multi_spec%.lua:%d+: ", "")))
  end
  local a = gpu.array({1, 2, 3})
  local b, b64, p64, m33, s33, cov, sp
  setup(function()
    b = on(1, function() return gpu.array({3, 1, 2}) end)
    b64 = on(1, function() return gpu.array({1, 2}, "float64") end)
    p64 = on(1, function() return gpu.array({0.5, 0.5}, "float64") end)
    m33 = gpu.array({{0, 1, 0}, {1, 1, 1}, {0, 1, 0}}, "bool")
    s33 = on(1, function() return gpu.ones({3, 3}, "bool") end)
    cov = on(1, function() return gpu.array({{1, 0}, {0, 1}}, "float64") end)
    sp = on(1, function() return gpu.sparse.csr_matrix(gpu.array({{1, 0, 0}, {0, 2, 0}, {0, 0, 3}})) end)
  end)

  it("random: every array parameter, before a draw", function()
    local line = debug.getinfo(1, "l").currentline
    local ok, e = pcall(function() local r = gpu.random.normal(b64, 1); return r end)   -- (copied silently, as float64)
    assert.is_false(ok)
    assert.are.equal(("spec/multi_spec.lua:%d: %s"):format(line + 1, here("random.normal", "mean")), e)
    refused(here("random.normal", "mean"), gpu.random.normal, b, 1)   -- (named a:astype)
    refused(here("random.uniform", "high"), gpu.random.uniform, 0, b)
    refused(here("random.gamma", "shape_k"), gpu.random.gamma, b64, 1)   -- (named gpu.min)
    refused(here("random.noncentral_f", "nonc"), gpu.random.noncentral_f, 1, 2, b64)
    refused(here("random.binomial", "n"), gpu.random.binomial, b, 0.5)
    refused(here("random.choice", "p"), gpu.random.choice, 2, 3, {p = p64})
    refused(here("random.multivariate_normal", "mean"), gpu.random.multivariate_normal, b64, {{1, 0}, {0, 1}})
    refused(here("random.multivariate_normal", "cov"), gpu.random.multivariate_normal, {0, 0}, cov)
    refused(here("random.multinomial", "pvals"), gpu.random.multinomial, 3, p64)
    refused(here("random.dirichlet", "alpha"), gpu.random.dirichlet, p64)
    for _, name in ipairs({"permutation", "shuffle", "choice"}) do   -- (named kernel 'take_rows<unsigned int>')
      refused(here("random." .. name, "a"), gpu.random[name], b)
    end
    -- a refused call draws nothing: the next draw is the one after the seed
    gpu.random.seed(11)
    local first = gpu.random.random(4, "float64"):totable()
    gpu.random.seed(11)
    for _, f in ipairs({function() return gpu.random.gamma(b64, 1) end, function() return gpu.random.normal(b64, 1) end,
                        function() return gpu.random.choice(2, 3, {p = p64}) end,
                        function() return gpu.random.shuffle(b) end}) do
      assert.is_false(pcall(f))
    end
    assert.are.same(first, gpu.random.random(4, "float64"):totable())
  end)

  it("ndimage, sparse, einsum, sets, stats and the compositions: every array, also in an option or a list", function()
    refused(here("ndimage.binary_dilation", "structure"), gpu.ndimage.binary_dilation, m33, {structure = s33})
    refused(here("ndimage.binary_dilation", "structure"), gpu.ndimage.binary_dilation, m33, s33)
    refused(here("ndimage.affine_transform", "matrix"), gpu.ndimage.affine_transform, gpu.ones({3, 3}), cov)
    refused(here("ndimage.grey_dilation", "structure"), gpu.ndimage.grey_dilation, gpu.ones({3, 3}), nil,
            {structure = on(1, function() return gpu.zeros({3, 3}) end)})
    refused(here("einsum", "operand 1"), gpu.einsum, "i->", b)   -- (named gpu.sum)
    refused(here("einsum", "operand 2"), gpu.einsum, "i,i->", a, b)
    refused(here("isin", "test_elements"), gpu.isin, a, b)   -- (named gpu.sort)
    refused(here("allclose", "b"), gpu.allclose, a, b)   -- (named gpu.subtract)
    refused(here("array_equal", "b"), gpu.array_equal, a, b)   -- (named gpu.eq)
    refused(here("searchsorted", "v"), gpu.searchsorted, a, b)   -- (named kernel 'search_sorted<float>')
    refused(here("diff", "prepend"), gpu.diff, a, 1, 1, {prepend = b})
    refused(here("select", "choicelist[1]"), gpu.select, {a:gt(1)}, {b})
    refused(here("sparse.csr_matrix", "arg"), gpu.sparse.csr_matrix, on(1, function() return gpu.eye(2) end))   -- (gpu.ne)
    refused(here("sparse.dot", "A"), sp.dot, sp, a)   -- (named kernel 'csr_spmv<float>')
    refused(here("sparse.todense", "A"), sp.todense, sp)
    refused(here("sparse.index", "A"), function() return sp[{1, 3}] end)
    refused(here("sparse.linalg.cg", "b"), gpu.sparse.linalg.cg, gpu.sparse.identity(3), b)
    refused(here("percentile", "out"):gsub(", or copy.*", ""), gpu.percentile, a, 50, {out = gpu.with_device(1, gpu.zeros, {})})
    -- a generated sweep: every function of one array, refused naming itself (not
    -- ascontiguousarray: a copy onto the current device, as a:contiguous())
    local one = {"median", "nanmean", "ptp", "argwhere", "flatnonzero", "bincount", "cov", "trapezoid", "vander", "nonzero",
                 "diagonal", "repeat_interleave", "tile", "histogram", "tril", "roll", "pad",
                 "trim_zeros", "partition", "lexsort", "ndimage.gaussian_filter", "ndimage.label",
                 "ndimage.distance_transform_edt", "ndimage.zoom", "random.poisson", "random.exponential"}
    local args = {partition = {2}, repeat_interleave = {2}, tile = {2}, histogram = {2}, roll = {1}, pad = {1},
                  ["ndimage.gaussian_filter"] = {1}, ["ndimage.zoom"] = {2}}
    local m = on(1, function() return gpu.array({{1, 2}, {3, 4}}) end)
    for _, name in ipairs(one) do
      local f = gpu
      for part in name:gmatch("[^.]+") do f = f[part] end
      local x = (name == "diagonal" or name == "cov" or name == "tril" or name:find("ndimage")) and m
                or name == "bincount" and on(1, function() return gpu.array({1, 2}, "int64") end) or b
      if name == "lexsort" then x = {x} end
      local ok, e = pcall(f, x, table.unpack(args[name] or {}))
      assert.is_false(ok, name)
      assert.matches("^gpu%." .. name:gsub("%.", "%%.") .. ": [%w_%[%]]+ on device 1, and device 0 is current", tostring(e))
    end
  end)

  it("views and joins follow their arrays' device, and refuse arrays of two", function()
    assert.are.equal(1, gpu.stack({b, b}).device)
    assert.are.equal(1, gpu.hstack({b, b}).device)
    assert.are.equal(1, gpu.squeeze(b).device)
    -- (gpu.stack said gpu.concatenate: array 2 is 2-D on device 1, of 1-D arrays)
    refused("gpu.stack: arrays[1] on device 0 and arrays[2] on device 1: copy one to the other's device first (a:to(dev))",
            gpu.stack, {a, b})
    refused("gpu.hstack: arrays[1] on device 0 and arrays[2] on device 1: copy one to the other's device first (a:to(dev))",
            gpu.hstack, {a, b})
    refused("gpu.broadcast_arrays: argument 1 on device 0 and argument 2 on device 1: copy one to the other's device first (a:to(dev))",
            gpu.broadcast_arrays, a, b)
    -- an out of another device, as stack refuses it (concatenate wrote into it across devices)
    local o1 = on(1, function() return gpu.zeros({6}) end)
    refused("gpu.concatenate: arrays[1] on device 0 and out on device 1: copy one to the other's device first (a:to(dev))",
            gpu.concatenate, {a, a}, 1, {out = o1})
    refused("gpu.stack: arrays[1] on device 0 and out on device 1: copy one to the other's device first (a:to(dev))",
            gpu.stack, {a, a}, 1, {out = on(1, function() return gpu.zeros({2, 3}) end)})
    assert.are.same({0, 0, 0, 0, 0, 0}, o1:totable())
    assert.are.same({3, 1, 2, 3, 1, 2}, gpu.concatenate({b, b}, 1, {out = o1}):totable())   -- on b's device
  end)

  -- Before: a list object (a table with a metatable) was not looked into, so its arrays'
  -- devices were found by an operation inside (gpu.concatenate's "array 2 is 2-D")
  it("look into list objects, and not through a list of numbers", function()
    local List = {}
    List.__index = List
    local a0, a1 = gpu.arange(3), on(1, function() return gpu.arange(3) end)
    assert.matches("gpu.stack: arrays[1] on device 0 and arrays[2] on device 1",
                   select(2, pcall(gpu.stack, setmetatable({a0, a1}, List))), 1, true)
    assert.matches("gpu.lexsort: keys[1] on device 1, and device 0 is current",
                   select(2, pcall(gpu.lexsort, setmetatable({a1, a1}, List))), 1, true)
    assert.are.same({true, false, true}, gpu.isin(a0, {0, 5, 2}):totable())
  end)
end)
