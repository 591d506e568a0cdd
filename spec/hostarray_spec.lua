-- Host arrays (what a:tohost() gives) and the checks on sizes, shapes and dtypes, which
-- need no GPU: they raise before any device is asked for.
local S = require("spec.support")

describe("gpu.host", function()
  it("#cpu tells the collector of a freed buffer: freeing what a loop makes calls for no full collection", function()
    -- (host/device.c collects fully after a sixteenth of the device's memory allocated and
    -- not freed; host arrays freed by h:free() or the collector count as freed)
    if collectgarbage("generational") ~= "generational" then
      collectgarbage("incremental")   -- (gcstress.sh: every cycle is full there)
      return
    end
    local fired = false
    _G.HOSTARRAY_SENTINEL = setmetatable({}, {__gc = function() fired = true end})
    collectgarbage("step"); collectgarbage("step"); collectgarbage("step")   -- old: only a full collection frees it
    _G.HOSTARRAY_SENTINEL = nil
    local total = select(2, gpu.mem_info())
    local made, i = 0, 0
    while made < total // 16 + total // 4 do   -- growing sizes: the pinned pool never fits one
      i = i + 1
      local n = (64 + 8 * i) << 20
      gpu.host.empty({n}, "uint8"):free()
      made = made + n
    end
    assert.is_false(fired)
    collectgarbage()
    assert.is_true(fired)
  end)

  it("makes arrays from tables", function()
    local h = gpu.host.array({1, 2, 3})
    assert.are.equal(3, #h)
    assert.are.equal("float32", h.dtype)
    assert.are.same({3}, h.shape)
    assert.are.equal(1, h.ndim)
    assert.are.equal(12, h.nbytes)
    assert.are.same({1, 2, 3}, h:totable())
  end)

  it("reads nested tables as 2-D", function()
    local h = gpu.host.array({{1, 2, 3}, {4, 5, 6}}, "int32")
    assert.are.same({2, 3}, h.shape)
    assert.are.equal(6, h.size)
    assert.are.equal(4, h[4])                    -- flat, 1-based
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, h:totable())
  end)

  it("indexes from 1 and writes elements", function()
    local h = gpu.host.zeros(4, "int64")
    h[1], h[4] = 7, -2
    assert.are.same({7, 0, 0, -2}, h:totable())
    assert.are.equal(math.type(h[1]), "integer")
  end)

  it("keeps each dtype's values", function()
    local cases = {
      float32 = {{0.5, -2.25, 1e10}, {0.5, -2.25, 1e10}},
      float64 = {{0.1, -1e300, 2^-40}, {0.1, -1e300, 2^-40}},
      int8 = {{-128, 127, 0}, {-128, 127, 0}},
      int16 = {{-32768, 32767, 1}, {-32768, 32767, 1}},
      int32 = {{-2^31, 2^31 - 1, 5}, {-2147483648, 2147483647, 5}},
      int64 = {{math.mininteger, math.maxinteger, 3}, {math.mininteger, math.maxinteger, 3}},
      uint8 = {{0, 255, 9}, {0, 255, 9}},
      uint16 = {{0, 65535, 9}, {0, 65535, 9}},
      uint32 = {{0, 2^32 - 1, 9}, {0, 4294967295, 9}},
      uint64 = {{0, 2^53, 9}, {0, 2^53, 9}},
      bool = {{true, false, true}, {true, false, true}},
    }
    for dtype, c in pairs(cases) do
      assert.are.same(c[2], gpu.host.array(c[1], dtype):totable(), dtype)
    end
  end)

  it("prints dtype, shape and leading values", function()
    assert.are.equal("gpu.hostarray(float32, {3}) [1, 2.5, 3]", tostring(gpu.host.array({1, 2.5, 3})))
    local h = gpu.host.zeros({3, 4}, "int32")
    assert.are.equal("gpu.hostarray(int32, {3, 4})\n[[0, 0, 0, 0],\n [0, 0, 0, 0],\n [0, 0, 0, 0]]", tostring(h))
  end)

  it("rejects values a dtype cannot hold", function()
    assert.matches("element [2] (3.5) not an integer for int32",
                   S.errof(gpu.host.array, {1, 3.5}, "int32"), 1, true)
    assert.matches("element [1] (256) out of range for uint8",
                   S.errof(gpu.host.array, {256}, "uint8"), 1, true)
    assert.matches("element [1] (1.844674407371e+19) out of range for uint64",
                   S.errof(gpu.host.array, {2^64}, "uint64"), 1, true)
    assert.matches('element [1][2] (a string ("x")) expected a number for float32',
                   S.errof(gpu.host.array, {{1, "x"}}), 1, true)
    local h = gpu.host.zeros(2, "int16")
    assert.matches("cannot store 40000 in a int16 host array: out of range",
                   S.errof(function() h[1] = 40000 end), 1, true)
  end)

  it("rejects ragged tables", function()
    assert.matches("ragged table: [2] has 1 elements, expected 2",
                   S.errof(gpu.host.array, {{1, 2}, {3}}), 1, true)
    assert.matches("ragged table: element [2] is a number, expected a table",
                   S.errof(gpu.host.array, {{1, 2}, 3}), 1, true)
  end)

  -- the shape came from __len (2^32 x 2^32 x 4 overflowed int64 there), the elements raw
  it("reads a table's shape as it reads its elements, without __len", function()
    local function long(t) return setmetatable(t, {__len = function() return 2^32 end}) end
    assert.are.same({1, 2}, gpu.host.array(long({long({1, 2})})).shape)
    assert.are.same({2}, gpu.array(setmetatable({1, 2}, {__len = function() return -5 end})).shape)
  end)

  it("checks indices", function()
    local h = gpu.host.zeros(3)
    assert.matches("index 4 out of range for a host array of 3 elements", S.errof(function() return h[4] end), 1, true)
    assert.matches("index 0 out of range", S.errof(function() return h[0] end), 1, true)
    assert.matches("host array index must be an integer, got 1.5", S.errof(function() return h[1.5] end), 1, true)
    assert.matches("no field or method 'bogus'", S.errof(function() return h.bogus end), 1, true)
  end)

  it("frees once and refuses use after free", function()
    local h = gpu.host.zeros(3)
    h:free()
    h:free()
    assert.matches("attempt to use a freed array", S.errof(function() return h[1] end), 1, true)
    assert.matches("attempt to use a freed array", S.errof(function() return #h end), 1, true)
    assert.are.equal("gpu.hostarray (freed)", tostring(h))
    do local c <close> = gpu.host.zeros(2) end
    -- freed by the index's own metamethods, after the array was checked (it read through
    -- the freed base: address 0 plus the offset)
    local big = gpu.host.zeros(1000)
    local key = setmetatable({}, {__len = function() return 1 end, __index = function() big:free() return 5 end})
    assert.matches("attempt to use a freed array", S.errof(function() return big[key] end), 1, true)
  end)

  it("makes empty arrays", function()
    local h = gpu.host.empty(0)
    assert.are.equal(0, #h)
    assert.are.same({}, h:totable())
    assert.are.same({0}, gpu.host.array({}).shape)
  end)
end)

describe("sizes, shapes and dtypes", function()
  -- each of these raises before any device is needed
  local makers = {gpu.zeros, gpu.empty, gpu.host.zeros, gpu.ones}
  it("reject negative, NaN and fractional sizes", function()
    for _, make in ipairs(makers) do
      assert.matches("size must be non-negative, got -1", S.errof(make, -1), 1, true)
      assert.matches("size must be a number, got nan", S.errof(make, 0/0), 1, true)
      assert.matches("size must be an integer, got 2.5", S.errof(make, 2.5), 1, true)
      assert.matches("shape[2] must be non-negative", S.errof(make, {3, -4}), 1, true)
      assert.matches("shape must have 0 to 8 dimensions, got 9", S.errof(make, {1, 1, 1, 1, 1, 1, 1, 1, 1}), 1, true)
      assert.matches("shape (a number or a table of numbers) expected, got string", S.errof(make, "3"), 1, true)
    end
  end)

  it("reject unknown dtypes", function()
    for _, make in ipairs({gpu.zeros, gpu.empty, gpu.host.zeros}) do
      assert.matches("unknown dtype 'bfloat16'", S.errof(make, 4, "bfloat16"), 1, true)
      assert.matches("dtype expected, got number", S.errof(make, 4, 32), 1, true)
    end
    assert.matches("unknown dtype 'complex'", S.errof(gpu.ones, 4, "complex"), 1, true)
    assert.matches("unknown dtype 'x'", S.errof(gpu.arange, 4, "x"), 1, true)
  end)

  it("accept a float size that is integral (2^24 + 11)", function()
    assert.are.equal(2^24 + 11, #gpu.host.empty(2^24 + 11))
  end)

  it("names the dtypes", function()
    assert.are.same({"float32", "float64", "int8", "int16", "int32", "int64",
                     "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "float16"}, gpu.dtypes)
    assert.are.equal("float64", gpu.float64)
    assert.are.equal("float64", gpu.host.zeros(1, "double").dtype)
  end)

  it("check arguments of the constructors", function()
    assert.matches("step must not be 0", S.errof(gpu.arange, 0, 4, 0), 1, true)
    assert.matches("bad argument #1 to 'arange' (number expected, got string)", S.errof(gpu.arange, "x", 4), 1, true)
    assert.matches("array expected", S.errof(gpu.zeros_like, 3), 1, true)
    assert.matches("table or host array expected, got number", S.errof(gpu.array, 3), 1, true)
    assert.matches("random numbers are float32 or float64, not int32",
                   S.errof(gpu.random.random, 3, "int32"), 1, true)
    assert.matches("an integer from 0 to 2^63 - 1 expected, got 1.5", S.errof(gpu.random.seed, 1.5), 1, true)
  end)
end)
