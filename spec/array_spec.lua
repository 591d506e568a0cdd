-- Device arrays, on either backend: constructors, fields, copies, freeing, and the rule that device
-- data is not read from Lua without a copy.
local S = require("spec.support")

describe("device arrays", function()
  it("are made by zeros, ones, full, empty, arange", function()
    local z = gpu.zeros({2, 3})
    assert.are.equal("float32", z.dtype)
    assert.are.same({2, 3}, z.shape)
    assert.are.equal(6, z.size)
    assert.are.equal(6, #z)
    assert.are.equal(2, z.ndim)
    assert.are.equal(24, z.nbytes)
    assert.are.same({{0, 0, 0}, {0, 0, 0}}, z:totable())
    assert.are.same({1, 1, 1}, gpu.ones(3, "int32"):totable())
    assert.are.same({true, true}, gpu.ones(2, "bool"):totable())
    assert.are.same({2.5, 2.5}, gpu.full(2, 2.5, "float64"):totable())
    assert.are.same({-7, -7}, gpu.full(2, -7, "int8"):totable())
    assert.are.equal(5, #gpu.empty(5, "uint16"))
    assert.are.same({0, 1, 2, 3}, gpu.arange(4, "int64"):totable())
    assert.are.same({2, 4, 6}, gpu.arange(2, 8, 2, "int32"):totable())
    assert.are.same({1, 0.5, 0}, gpu.arange(1, -0.25, -0.5):totable())
    assert.are.equal(0, #gpu.arange(3, 1))
    -- NumPy's step, the difference of the first two values (of the two truncated for an
    -- integer dtype); before: start + i * step, [7, 8, 10], [0, 2, 3] and 1.2
    assert.are.same({7, 8, 9}, gpu.arange(7.3, 10.3, 1.5, "int32"):totable())
    assert.are.same({0, 2, 4}, gpu.arange(0.5, 5, 1.5, "int64"):totable())
    assert.are.same({0, 0, 0, 0}, gpu.arange(0, 1, 0.3, "int32"):totable())
    assert.are.same({-2, 0, 2, 4}, gpu.arange(-2.5, 3, 1.7, "int32"):totable())
    assert.are.equal(1.2000000000000002, gpu.arange(1, 1.48, 0.1, "float64"):item(3))
    -- in float64, as NumPy's: Lua integers past 2^53 too, and no integer sum that wraps
    assert.are.same({2^53, 2^53, 2^53, 2^53}, gpu.arange(1 << 53, (1 << 53) + 4, 1, "float64"):totable())
    assert.matches("is out of range for int64", S.errof(gpu.arange, 0, 2^64 * 1.1, 2^62, "int64"), 1, true)
    -- three integers: NumPy's count is ceil of their exact quotient rounded once to float64
    -- (Python's int / int); before: of stop - start rounded first, 5, 5 and 7
    assert.are.equal(6, gpu.arange(-9007199254740169, 5483862314339588, 2898212313815951, "int64").size)
    assert.are.equal(4, gpu.arange(-9223372036854775807, 3074457345618259289, 3074457345618258602, "float64").size)
    assert.are.equal(6, gpu.arange(-9007199254740324, 4603007102793319, 2268367726255607).size)
    assert.are.equal(3, gpu.arange(0, 3 * (1 << 60) + 1, 1 << 60, "float64").size)   -- (4 exactly)
    assert.are.equal(2, gpu.arange(math.mininteger, math.maxinteger, math.maxinteger, "float64").size)
    assert.are.equal(2, gpu.arange(math.maxinteger, math.mininteger, math.mininteger, "float64").size)
    -- NumPy stores start + step (of two integers exact, then rounded once) as the second value,
    -- and start + i * d from the third on; before: start + d for the second, 0 and -9007199254740992
    assert.are.same({-2^63, -1}, gpu.arange(math.mininteger, math.maxinteger, math.maxinteger, "float64"):totable())
    local t = gpu.arange(-1, -4611686018427387904, -9007199254740993, "float64"):totable()
    assert.are.same({512, -1, -9007199254740994, -18014398509481984, -4.602678819172647e+18}, {#t, t[1], t[2], t[3], t[512]})
    -- a start of -0.0 is kept, as NumPy's (np.arange(-0.0, 1, 1) is [-0.]): it was start + 0 * step
    local function shown(a) local r = {}; for i, v in ipairs(a:totable()) do r[i] = tostring(v) end; return r end
    assert.are.same({"-0.0"}, shown(gpu.arange(-0.0, 1, 1, "float64")))
    assert.are.same({"-0.0", "-1.0"}, shown(gpu.arange(-0.0, -2, -1, "float64")))
    assert.are.same({"-0.0", "0.5", "1.0"}, shown(gpu.arange(-0.0, 1.5, 0.5, "float32")))
    assert.are.same({"-0.0"}, shown(gpu.arange(-0.0, 1, 1, "complex128"):real()))
    -- a Lua integer into float32 is rounded once, as C's (float)i and astype (through double
    -- first, 2^60 + 2^36 + 1 became 2^60 where astype gives 2^60 + 2^37)
    local v, want = (1 << 60) + (1 << 36) + 1, 2.0^60 + 2.0^37
    local z = gpu.zeros(1)
    z:fill(v)
    for _, x in ipairs({gpu.array({v}, "float32"):item(1), gpu.full({1}, v, "float32"):item(1), z:item(1),
                        gpu.host.array({v}, "float32")[1], gpu.array({v}, "int64"):astype("float32"):item(1),
                        gpu.array({v}, "complex64"):real():item(1)}) do
      assert.are.equal(want, x)
    end
  end)

  it("are filled to the last element at any size", function()
    for _, dt in ipairs({"int8", "int16", "float32", "float64", "bool", "uint64"}) do
      for _, n in ipairs({1, 15, 17, 1003, 70001}) do
        local v = dt == "bool" and true or 5
        local h = gpu.full(n, v, dt):tohost()
        assert.are.equal(n, #h)
        local bad = 0
        for i = 1, n do if h[i] ~= v then bad = bad + 1 end end
        assert.are.equal(0, bad, dt .. " " .. n)
      end
    end
  end)

  it("copy into an existing host array", function()
    local a = gpu.arange(5, "int32")
    local h = gpu.host.zeros(5, "int32")
    assert.are.equal(h, a:tohost(h))
    assert.are.same({0, 1, 2, 3, 4}, h:totable())
    assert.matches("host array of 5 int32 elements expected", S.errof(a.tohost, a, gpu.host.zeros(4, "int32")), 1, true)
    assert.matches("host array of 5 int32 elements expected", S.errof(a.tohost, a, gpu.host.zeros(5)), 1, true)
  end)

  it("are made like others", function()
    local a = gpu.ones({2, 2}, "float64")
    local z = gpu.zeros_like(a)
    assert.are.same({2, 2}, z.shape)
    assert.are.equal("float64", z.dtype)
    assert.are.same({{0, 0}, {0, 0}}, z:totable())
    assert.are.equal("int8", gpu.empty_like(a, "int8").dtype)
    assert.are.same({{1, 1}, {1, 1}}, gpu.ones_like(z):totable())
    assert.are.same({{3, 3}, {3, 3}}, gpu.full_like(z, 3):totable())
  end)

  it("round-trip every dtype through the device", function()
    local values = {
      float32 = {0.5, -2.25, 1e10}, float64 = {0.1, -1e300, 2^-40},
      int8 = {-128, 127, 0}, int16 = {-32768, 32767, 1}, int32 = {-2147483648, 2147483647, 5},
      int64 = {math.mininteger, math.maxinteger, 3}, uint8 = {0, 255, 9},
      uint16 = {0, 65535, 9}, uint32 = {0, 4294967295, 9}, uint64 = {0, 2^53, 9},
      bool = {true, false, true},
    }
    for dtype, v in pairs(values) do
      local d = gpu.array(v, dtype)
      assert.are.equal(dtype, d.dtype)
      assert.are.same(v, d:totable(), dtype)
      local h = d:tohost()
      assert.are.same(v, h:totable(), dtype)
      assert.are.same(v, gpu.array(h):totable(), dtype)
    end
  end)

  it("copy host arrays (pinned memory on a GPU)", function()
    local h = gpu.array({{1, 2}, {3, 4}}):tohost()
    assert.are.equal(gpu.backend() == "cuda", h.pinned)   -- the CPU has no pinned memory
    assert.are.same({2, 2}, h.shape)
    assert.are.equal(4, h[4])
    h[1] = 10
    assert.are.same({{10, 2}, {3, 4}}, gpu.array(h):totable())
  end)

  it("copy device arrays", function()
    local a = gpu.array({1, 2, 3})
    local b, c = a:copy(), gpu.array(a)
    a:free()
    assert.are.same({1, 2, 3}, b:totable())
    assert.are.same({1, 2, 3}, c:totable())
  end)

  it("convert on copy when a dtype is given", function()
    local h = gpu.host.array({1.5, -2.5})
    assert.are.same({1, -2}, gpu.array(h, "int32"):totable())
    assert.are.equal("int32", gpu.array(h, "int32").dtype)
    assert.are.same({true, false}, gpu.array(gpu.array({3, 0}), "bool"):totable())
    assert.matches("unknown dtype 'int33'", S.errof(gpu.array, h, "int33"), 1, true)
    assert.matches("a dtype's name holds no zero byte", S.errof(gpu.zeros, 3, "float32\0x"), 1, true)
  end)

  it("are not read or written from Lua", function()
    local a = gpu.zeros(4)
    assert.matches("attempt to index a device array from Lua: copy it to the host first (h = a:tohost(); h[i])",
                   S.errof(function() return a[1] end), 1, true)
    assert.matches("attempt to write a device array from Lua",
                   S.errof(function() a[1] = 2 end), 1, true)
    assert.matches("expected host data, got a device array; copy it to the host with a:tohost()",
                   S.errof(gpu.host.array, a), 1, true)
    -- called as a value (pcall(f, ...)), gpu.host's functions are named (they were '?': Lua
    -- names a function found one table deep in package.loaded)
    assert.matches("bad argument #1 to 'gpu.host.array' (expected host data", S.errof(gpu.host.array, a), 1, true)
    assert.matches("bad argument #1 to 'gpu.host.zeros' (shape", S.errof(gpu.host.zeros, "x"), 1, true)
    assert.are.equal(gpu.host, require("gpu.host"))
    assert.matches("element [2] is a device array: copy it to the host with a:tohost()",
                   S.errof(gpu.array, {1, a}), 1, true)
    assert.matches("gpu.array has no field or method 'nope'", S.errof(function() return a.nope end), 1, true)
  end)

  it("print dtype, shape and leading values", function()
    assert.are.equal("gpu.array(float32, {3}) [1, 2, 3]", tostring(gpu.array({1, 2, 3})))
    assert.are.equal("gpu.array(int32, {20}) [0, 1, 2, 3, 4, 5, ..., 17, 18, 19]",
                     tostring(gpu.arange(20, "int32")))
    assert.are.equal("gpu.array(bool, {2, 1})\n[[ true],\n [false]]", tostring(gpu.array({{true}, {false}}, "bool")))
  end)

  it("are freed by free, __close and the collector, and not used after", function()
    local a = gpu.zeros(8)
    a:free()
    a:free()
    assert.matches("attempt to use a freed array", S.errof(function() return a:tohost() end), 1, true)
    assert.matches("attempt to use a freed array", S.errof(function() return #a end), 1, true)
    assert.matches("attempt to use a freed array", S.errof(function() return a.shape end), 1, true)
    assert.are.equal("gpu.array (freed)", tostring(a))
    local kept
    do
      local b <close> = gpu.zeros(8)
      kept = b
    end
    assert.matches("attempt to use a freed array", S.errof(function() return kept:totable() end), 1, true)
  end)

  it("freed by a finalizer are refused at once and give back their memory when collected", function()
    -- a finalizer runs inside whatever allocation ran the collector, perhaps a call that
    -- read the array's pointer before it (a sum's scratch; it then summed another array
    -- that took the freed memory): the memory stays the array's until it is collected
    collectgarbage()
    local _, _, held0 = gpu.mem_info()
    local a, h = gpu.zeros(1 << 20), gpu.host.zeros(16)
    local _, _, held1 = gpu.mem_info()
    do setmetatable({}, {__gc = function() a:free() h:free() end}) end
    collectgarbage()
    assert.matches("attempt to use a freed array", S.errof(function() return a + 1 end), 1, true)
    assert.matches("attempt to use a freed array", S.errof(function() return h[1] end), 1, true)
    assert.are.equal(held1, select(3, gpu.mem_info()))
    a, h = nil, nil
    collectgarbage()
    collectgarbage()
    assert.are.equal(held0, select(3, gpu.mem_info()))
    -- a view freed there gives back its claim at once: its owner can be freed after
    local o = gpu.zeros(8)
    local v = o[{{2, 4}}]
    do setmetatable({}, {__gc = function() v:free() end}) end
    collectgarbage()
    o:free()
    assert.matches("attempt to use a freed array", S.errof(function() return v + 1 end), 1, true)
    -- a sum whose scratch allocation runs a finalizer that frees its input and unmaps what
    -- is free (in a process whose memory a filler takes, so that the allocation collects;
    -- the filler goes in that collection): the input's sum, where it read unmapped memory
    local out = S.run("GPUHOST_MEMORY_LIMIT=8388608 " .. S.gpuhost .. " -e " .. S.quote([[
      local a, o = gpu.full({1 << 20}, 1, "float32"), gpu.zeros({}, "float32")
      gpu.sum(a)
      collectgarbage()
      do
        local _, _, held = gpu.mem_info()
        local filler = gpu.empty((8388608 - held) // 4)
        setmetatable({}, {__gc = function() a:free(); filler:free(); gpu.empty_cache() end})
      end
      gpu.sum(a, {out = o})
      print(o:item(), tostring(a))]]) .. " 2>&1")
    assert.are.equal("1048576.0\tgpu.array (freed)\n", out)
  end)

  it("never run out in a loop that drops 1 GiB arrays", function()
    local _, total = gpu.mem_info()
    local n = math.ceil(total / 2^30) + 20    -- more than the device holds at once
    for _ = 1, n do
      local a = gpu.empty(2^28, "float32")    -- 1 GiB
      assert.are.equal(2^30, a.nbytes)
    end
    local big = gpu.zeros(2^28)                -- and there is room after
    assert.are.equal(0, big:tohost()[2^28])
  end)

  it("report allocation failures as CUDA errors", function()
    local _, total = gpu.mem_info()
    local msg, err = S.errof(gpu.empty, total // 4 * 2, "float64")   -- twice the device
    assert.are.equal("CUDA_ERROR_OUT_OF_MEMORY", err.name)
    assert.are.equal(2, err.code)
    assert.matches("^CUDA_ERROR_OUT_OF_MEMORY: The API call failed because it was unable to allocate", msg)
    assert.are.same({0, 0, 0, 0}, gpu.zeros(4):totable())   -- and the host goes on
  end)

  -- small blocks freed go to the next allocation of their size on CUDA (device.c): what
  -- the arrays hold is counted the same, and a reused block holds the new array's data
  it("count and reuse the memory of small arrays made and dropped in a loop", function()
    collectgarbage()
    local held0 = select(3, gpu.mem_info())
    for _ = 1, 200 do gpu.empty(1000):free() end
    assert.are.equal(held0, select(3, gpu.mem_info()))
    local x = gpu.arange(1000, "float32")
    for i = 1, 300 do
      local y = x + i                        -- dropped: the collector frees it
      assert(y:item(1000) == 999 + i and y:item(1) == i, i)
    end
    collectgarbage()
    assert.are.equal(held0 + x.nbytes, select(3, gpu.mem_info()))
    local s = gpu.stream()                   -- work on another stream, then a free
    local z = gpu.add(x, 1, {stream = s})
    s:synchronize()
    z:free()
    assert.are.equal(1000, (x + 1):item(1000))
    gpu.empty_cache()
    assert.are.equal(held0 + x.nbytes, select(3, gpu.mem_info()))
  end)

  -- the collector's steps come before a new array is made and after as many bytes as
  -- live (host/device.c): a call that makes two large arrays and drops them leaves
  -- neither behind (its first lived through two steps and grew old, held until a full
  -- collection: 64 MiB more held a call)
  it("free the arrays of a call that makes two large ones and drops them, call after call", function()
    collectgarbage()
    local held0 = select(3, gpu.mem_info())
    local n = 1 << 24
    local function two() return gpu.empty(n, "int32"), gpu.empty(n, "float64") end
    local most = 0
    for _ = 1, 12 do
      two()
      most = math.max(most, select(3, gpu.mem_info()) - held0)
    end
    assert.is_true(most <= 3 * 12 * n, most)   -- (three calls' worth at most; 12 n bytes a call)
  end)

  -- CUDA's pool keeps, past a synchronization, what the arrays hold plus a sixteenth of the
  -- device's memory (host/cuda/memory.c): a large array dropped while others hold more than
  -- that sixteenth serves the next one, and what the arrays no longer hold goes back
  it("#cuda #alone keep a dropped array's memory for the next one while other arrays hold much", function()
    collectgarbage()
    local _, total = gpu.mem_info()
    local live = gpu.empty(total // 8, "uint8")
    gpu.empty(2^29, "uint8"):free()
    gpu.synchronize()
    local before = gpu.mem_info()
    local y = gpu.empty(2^29, "uint8")       -- from the pool: no memory mapped anew
    assert.is_true(before - gpu.mem_info() < 2^28)
    live:free(); y:free()
    gpu.synchronize()
    assert.is_true(gpu.mem_info() - before > total // 16)
  end)

  it("repeat a call quickly only for C-ordered arrays of the same dtypes and shape", function()
    local a, b = gpu.arange(6, "float32"):reshape(2, 3), gpu.ones({2, 3}, "float32")
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, (a + b):totable())
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, (a + b):totable())            -- the repeat
    assert.are.equal("float64", (a + b:astype("float64")).dtype)             -- other dtypes
    assert.are.same({{0, 4}, {3, 7}, {6, 10}}, (a.T + gpu.arange(6, "float32"):reshape(3, 2).T.T):totable())
    assert.are.same({2, 3}, (a + gpu.ones(3, "float32")).shape)              -- broadcast
    assert.matches("shapes {2, 3} and {4} do not broadcast",
                   S.errof(function() return a + gpu.ones(4, "float32") end), 1, true)
    local f = gpu.ones(2, "float32")
    f:free()
    assert.matches("attempt to use a freed array", S.errof(function() return f + f end), 1, true)
    -- freed by a finalizer that making the output ran (the limit forces a full collection
    -- there): the operands were checked before, and the kernel read address 0; now refused
    -- (its memory stays until x is collected, so the output does not fit: that is said)
    -- (the collector stopped: an automatic step before the call, wherever the heap's size
    -- puts one, would run the finalizer there instead)
    local out = S.run("GPUHOST_MEMORY_LIMIT=3000000 " .. S.gpuhost .. " -e " .. S.quote([[
      local x, y = gpu.ones(2^18), gpu.ones(2^18)
      collectgarbage("stop")
      setmetatable({}, {__gc = function() x:free() end})
      print(pcall(function() return x + y end))
      print(pcall(function() return x + y end))]]))
    assert.matches("^false\tGPUHOST_MEMORY_LIMIT: allocating 1048576 bytes", out)
    assert.matches("\nfalse\t%(command line%):5: attempt to use a freed array %(gpu.add argument 1%)\n$", out)
  end)

  it("say in an out-of-memory error's message how much was asked, as CuPy's does", function()
    -- twice the device's memory (ASan's allocator warns, failing the sanitizer run, past 1 TiB)
    local _, total = gpu.mem_info()
    local n = total // 4 * 2
    local msg, e = S.errof(gpu.empty, n, "float64")
    assert.are.equal("CUDA_ERROR_OUT_OF_MEMORY", e.name)
    assert.matches(("%%(allocating %d bytes on device 0, where gpuhost's arrays hold %%d+ bytes%%)$"):format(n * 8), msg)
    msg = S.errof(gpu.host.empty, {n}, "float64")
    assert.matches(("(allocating %d bytes of host memory)"):format(n * 8), msg, 1, true)
    assert.are.equal(4, #gpu.empty(4))          -- and the host goes on
  end)

  it("allow empty arrays", function()
    local e = gpu.zeros(0)
    assert.are.equal(0, #e)
    assert.are.same({}, e:totable())
    assert.are.equal(0, #e:tohost())
  end)
end)

-- A table is read raw, as a shape and as data alike: a proxy (a metatable's __index and
-- __len) was shape {1, 2, 3} to gpu.zeros and empty to gpu.array, and then, for a while,
-- refused, with an empty list object (a class's instance) too; then empty, without a word,
-- where Lua's # says 3. An empty table with a __len is refused; __index alone is a list
-- object's, and an empty one is an empty list.
describe("tables", function()
  it("are read raw, list objects and proxies alike, and an empty proxy with a length is refused", function()
    local List = {}
    List.__index = List
    local proxy = setmetatable({}, {__len = function() return 3 end, __index = function(_, i) return i end})
    assert.are.same({0}, gpu.array(setmetatable({}, List)).shape)
    assert.are.same({2, 0}, gpu.array(setmetatable({setmetatable({}, List), setmetatable({}, List)}, List)).shape)
    assert.are.same({}, gpu.zeros(setmetatable({}, List)).shape)
    assert.are.same({0}, gpu.array(setmetatable({}, {__index = function(_, i) return i end})).shape)
    local why = "the table has no elements of its own and a metatable's __len (a proxy: tables are read raw, " ..
                "the metatable not asked; give a plain table))"
    assert.matches("to 'gpu.array' (a list of values expected, and " .. why, S.errof(gpu.array, proxy), 1, true)
    assert.matches("to 'gpu.array' (a list of values expected, and " .. why, S.errof(gpu.array, {proxy, {1}}), 1, true)
    assert.matches("to 'array' (a list of values expected, and " .. why,
                   S.errof(function() local h = gpu.host.array({proxy}); return h end), 1, true)
    assert.matches("to 'copy_' (a list of values expected, and " .. why,
                   S.errof(function() local a = gpu.zeros(0):copy_(proxy); return a end), 1, true)
    assert.matches("to 'gpu.zeros' (shape must be a list of sizes, and " .. why, S.errof(gpu.zeros, proxy), 1, true)
    assert.matches("a:reshape: shape must be a list of sizes, and " .. why:sub(1, -2),
                   S.errof(function() local a = gpu.zeros(0):reshape(proxy); return a end), 1, true)
    assert.are.same({2, 3}, gpu.zeros(setmetatable({2, 3}, List)).shape)
    assert.are.same({1, 2}, gpu.array(setmetatable({1, 2}, {__len = function() return 3 end})):totable())
  end)
end)

describe("devices", function()
  it("describe themselves", function()
    local d = gpu.device()
    assert.are.equal(0, d.id)
    assert.is_string(d.name)
    if gpu.backend() == "cuda" then
      assert.is_true(d.compute_capability[1] >= 3)
    else
      assert.are.same({0, 0}, d.compute_capability)
      assert.matches("^CPU", d.name)
    end
    assert.is_true(d.total_memory > 2^30)
    assert.is_true(d.multiprocessors > 0)
    assert.are.equal(32, d.warp_size)
    assert.are.equal(1024, d.max_threads_per_block)
    assert.matches("^gpu.device%(0: ", tostring(d))
    assert.is_true(gpu.device_count() >= 1)
    assert.are.equal(d.name, gpu.device(0).name)
  end)

  it("synchronize", function()
    gpu.synchronize()
    gpu.device():synchronize()
    assert.are.equal(0, gpu.device(0):use().id)
  end)

  it("refuse ids they do not have", function()
    assert.matches("no device 99 %(%d+ devices?, numbered from 0%)", S.errof(gpu.device, 99))
    assert.matches("no device %-1", S.errof(gpu.device, -1))
  end)
end)

describe("random numbers", function()
  it("repeat for a seed", function()
    gpu.random.seed(42)
    local a = gpu.random.random(1000):totable()
    local b = gpu.random.random(1000):totable()
    gpu.random.seed(42)
    assert.are.same(a, gpu.random.random(1000):totable())
    assert.are.same(b, gpu.random.random(1000):totable())
    assert.are_not.same(a, b)
  end)

  it("are uniform in their range", function()
    for _, dtype in ipairs({"float32", "float64"}) do
      local h = gpu.random.uniform(-1, 3, 100001, dtype):tohost()
      assert.are.equal(dtype, h.dtype)
      local sum, lo, hi = 0, math.huge, -math.huge
      for i = 1, #h do
        local v = h[i]
        sum, lo, hi = sum + v, math.min(lo, v), math.max(hi, v)
      end
      assert.is_true(lo >= -1 and hi < 3, dtype)
      assert.is_true(lo < -0.99 and hi > 2.99, dtype)
      assert.is_true(math.abs(sum / #h - 1) < 0.02, dtype)
    end
  end)

  it("are normal with the mean and deviation asked", function()
    for _, dtype in ipairs({"float32", "float64"}) do
      local h = gpu.random.normal(5, 2, {301, 333}, dtype):tohost()
      local n, sum, sq = #h, 0, 0
      for i = 1, n do sum = sum + h[i]; sq = sq + h[i] * h[i] end
      local mean = sum / n
      local std = math.sqrt(sq / n - mean * mean)
      assert.is_true(math.abs(mean - 5) < 0.02, dtype .. " mean " .. mean)
      assert.is_true(math.abs(std - 2) < 0.02, dtype .. " std " .. std)
    end
  end)
end)
