-- Conversions and copies into existing memory: astype (every pair of dtypes, with the
-- saturating float-to-integer rule), fill, copy_, gpu.copy and tohost on streams, host
-- arrays' shapes (item, views, bytes), and printing as NumPy prints.
local S = require("spec.support")

local ALL = {"float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"}

describe("conversions", function()
  it("astype converts as C does, saturating floats into integers, NaN to 0", function()
    local f = gpu.array({-1e10, -129.7, -1.5, -0.5, 0.5, 1.5, 200.9, 3e9, 1e30, 0 / 0}, "float64")
    assert.are.same({-128, -128, -1, 0, 0, 1, 127, 127, 127, 0}, f:astype("int8"):totable())
    assert.are.same({0, 0, 0, 0, 0, 1, 200, 255, 255, 0}, f:astype("uint8"):totable())
    assert.are.same({-2147483648, -129, -1, 0, 0, 1, 200, 2147483647, 2147483647, 0}, f:astype("int32"):totable())
    assert.are.same({true, true, true, true, true, true, true, true, true, true}, f:astype("bool"):totable())
    assert.are.same({0, 1, 0}, gpu.array({0, 1, 0}, "bool"):astype("int64"):totable())
    assert.are.same({255, 0, 1}, gpu.array({-1, 256, 257}, "int32"):astype("uint8"):totable())   -- wraps
    assert.are.same({16777216, 2}, gpu.array({16777217, 2}, "int64"):astype("float32"):totable())
    assert.are.equal(-0.0, gpu.array({-1e-50}, "float64"):astype("float32"):item())
  end)

  it("goes between every pair of dtypes on the host, and a cycle of them on the device", function()
    -- every pair on the device is compared bit for bit with the GPU's in crosscheck_spec
    local src = {0, 1, 5, 100}
    for i, from in ipairs(ALL) do
      local values = from == "bool" and {false, true, true, true} or src
      local d, h = gpu.array(values, from), gpu.host.array(values, from)
      for _, to in ipairs(ALL) do
        local want = to == "bool" and {false, true, true, true} or (from == "bool" and {0, 1, 1, 1} or src)
        assert.are.same(want, h:astype(to):totable(), from .. " -> " .. to .. " (host)")
        if to == ALL[i % #ALL + 1] or from == "float64" then
          assert.are.same(want, d:astype(to):totable(), from .. " -> " .. to)
        end
      end
    end
  end)

  it("keeps the rules on the host too: floats saturate into integers", function()
    local h = gpu.host.array({-1e10, 300.5, 0 / 0}, "float64")
    assert.are.same({-128, 127, 0}, h:astype("int8"):totable())
    assert.are.same({0, 255, 0}, h:astype("uint8"):totable())
  end)
end)

describe("copies into existing memory", function()
  it("fill and copy_ from device arrays, host arrays, tables and strings", function()
    local a = gpu.zeros({2, 3}, "int32")
    assert.are.equal(a, a:fill(7))
    assert.are.same({{7, 7, 7}, {7, 7, 7}}, a:totable())
    a[{{}, 2}]:fill(-1)
    assert.are.same({{7, -1, 7}, {7, -1, 7}}, a:totable())
    a:copy_(gpu.arange(6, "float64"))                         -- same size, C order, converted
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, a:totable())
    a:copy_({{6, 5, 4}, {3, 2, 1}})
    assert.are.same({{6, 5, 4}, {3, 2, 1}}, a:totable())
    a.T:copy_(gpu.host.array({1, 2, 3, 4, 5, 6}, "int8"))     -- into a view
    assert.are.same({{1, 3, 5}, {2, 4, 6}}, a:totable())
    a:copy_(string.pack("<i4i4i4i4i4i4", 9, 8, 7, 6, 5, 4))
    assert.are.same({{9, 8, 7}, {6, 5, 4}}, a:totable())
    assert.matches("a:copy_: 4 elements into an array of 6", S.errof(a.copy_, a, gpu.zeros(4)), 1, true)
    assert.matches("copy_: a string of 3 bytes into 24 bytes of int32", S.errof(a.copy_, a, "abc"), 1, true)
    assert.matches("cannot store 300 in a uint8 array", S.errof(gpu.host.zeros(2, "uint8").fill, gpu.host.zeros(2, "uint8"), 300), 1, true)
    assert.matches("number, boolean or gpu.complex expected, got string", S.errof(a.fill, a, "x"), 1, true)
  end)

  -- a boolean fill with no dtype is bool, as NumPy's full(2, True) (it was float32 [1, 1]);
  -- a:tohost({stream = s}, nil) is a:tohost({stream = s}) (it wanted a host array there)
  it("gpu.full of a boolean is bool; a:tohost's trailing nil is no host array", function()
    local f = gpu.full(2, true)
    assert.are.same({"bool", {true, true}}, {f.dtype, f:totable()})
    assert.are.same({"float32", {1, 1}}, {gpu.full(2, true, "float32").dtype, gpu.full(2, true, "float32"):totable()})
    local s = gpu.stream()
    local h = gpu.arange(3):tohost({stream = s}, nil)
    s:synchronize()
    assert.are.same({0, 1, 2}, h:totable())
  end)

  it("gpu.copy between any two of device and host arrays, on a stream", function()
    local s = gpu.stream()
    local d = gpu.arange(8, "float32")
    local h = gpu.host.zeros(8, "float32")
    assert.are.equal(h, gpu.copy(h, d, {stream = s}))
    s:synchronize()
    assert.are.same({0, 1, 2, 3, 4, 5, 6, 7}, h:totable())
    local d2 = gpu.zeros({2, 4}, "float64")
    gpu.copy(d2, h, {stream = s})                          -- converted on the device
    s:synchronize()
    assert.are.same({{0, 1, 2, 3}, {4, 5, 6, 7}}, d2:totable())
    local h2 = gpu.host.zeros({4, 2}, "int16")
    gpu.copy(h2.T, d2)                                      -- into a host view
    assert.are.same({{0, 4}, {1, 5}, {2, 6}, {3, 7}}, h2:totable())
    local h3 = gpu.host.zeros(8, "int16")
    gpu.copy(h3, h2)
    assert.are.same({0, 4, 1, 5, 2, 6, 3, 7}, h3:totable())
    local d3 = gpu.zeros(8)
    gpu.copy(d3, d2.T, {stream = s})
    s:synchronize()
    assert.are.same({0, 4, 1, 5, 2, 6, 3, 7}, d3:totable())
    local back = d:tohost(nil, {stream = s})
    s:synchronize()
    assert.are.same(d:totable(), back:totable())
    assert.matches("gpu.copy: a device or host array expected, got table", S.errof(gpu.copy, {}, d), 1, true)
  end)

  it("copy and contiguous make C-ordered arrays", function()
    local m = gpu.arange(6):reshape(2, 3)
    assert.are.equal(m, m:contiguous())
    local c = m.T:contiguous()
    assert.is_true(c:is_contiguous())
    assert.is_nil(c.base)
    assert.are.same({{0, 3}, {1, 4}, {2, 5}}, c:totable())
    local cp = m:copy()
    m:fill(0)
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, cp:totable())
    local h = gpu.host.array({{1, 2}, {3, 4}})
    assert.are.same({{1, 3}, {2, 4}}, h.T:contiguous():totable())
    assert.are.same({{1, 3}, {2, 4}}, h.T:copy():totable())
  end)
end)

describe("host arrays with shapes", function()
  it("read and write elements by position, flat in C order, and through views", function()
    local h = gpu.host.array({{1, 2, 3}, {4, 5, 6}}, "int32")
    assert.are.equal(6, h:item(2, 3))
    assert.are.equal(6, h[{2, 3}])
    assert.are.equal(2, h[{1, -2}])
    h[{2, 1}] = 40
    assert.are.equal(40, h[4])
    local t = h.T
    assert.are.same({3, 2}, t.shape)
    assert.are.equal(3, t[5])                 -- flat, in the view's C order
    t[2] = 10
    assert.are.equal(10, h:item(2, 1))
    assert.are.same({2, 5}, h[{{}, 2}]:totable())
    assert.matches("index 3 out of range for dimension 1 of size 2", S.errof(function() return h[{3, 1}] end), 1, true)
  end)

  it("give their bytes as a string and are made from one", function()
    local h = gpu.host.array({1.5, -2, 3}, "float64")
    local b = h:bytes()
    assert.are.equal(24, #b)
    assert.are.equal(1.5, (string.unpack("<d", b)))
    local back = gpu.host.frombytes(b, "float64")
    assert.are.same({1.5, -2, 3}, back:totable())
    local m = gpu.host.frombytes(string.pack("<i2i2i2i2", 1, 2, 3, 4), "int16", {2, 2})
    assert.are.same({{1, 2}, {3, 4}}, m:totable())
    assert.are.equal(string.pack("<i2i2i2i2", 1, 3, 2, 4), m.T:bytes())   -- a view: C order
    assert.matches("5 bytes cannot be 4 float32 elements (4 bytes each)",
                   S.errof(gpu.host.frombytes, "12345", "float32", 4), 1, true)
    local into = gpu.host.zeros(2, "uint8")
    into:copy_("\7\9")
    assert.are.same({7, 9}, into:totable())
  end)
end)

describe("printing", function()
  it("shows 0-D and 1-D arrays on one line, 2-D and up as aligned rows", function()
    assert.are.equal("gpu.array(float32, {}) 5", tostring(gpu.array({5}):reshape()))
    assert.are.equal("gpu.array(int32, {2, 3})\n[[ 1, -2,  3],\n [40,  5,  6]]",
                     tostring(gpu.array({{1, -2, 3}, {40, 5, 6}}, "int32")))
    assert.are.equal("gpu.hostarray(int8, {2, 2, 2})\n[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]",
                     tostring(gpu.host.array({{{0, 1}, {2, 3}}, {{4, 5}, {6, 7}}}, "int8")))
    assert.are.equal("gpu.array(float32, {0, 3})\n[]", tostring(gpu.zeros({0, 3})))
    assert.are.equal("gpu.array(float64, {2, 2})\n[[ 0.5,  nan],\n [-inf,    1]]",
                     tostring(gpu.array({{0.5, 0 / 0}, {-1 / 0, 1}}, "float64")))
  end)

  it("shows uint64 past 2^63 unsigned, as NumPy", function()
    assert.are.equal("gpu.array(uint64, {3}) [18446744073709551615, 5, 9223372036854775808]",
                     tostring(gpu.array({-1, 5, math.mininteger}, "uint64")))
    assert.are.equal("gpu.hostarray(uint64, {2, 1})\n[[18446744073709551615],\n [                  10]]",
                     tostring(gpu.host.array({{-1}, {10}}, "uint64")))
    assert.are.equal("gpu.array(uint64, {}) 18446744073709551614",
                     tostring(gpu.array({-2}, "uint64"):reshape()))
  end)

  it("shows each float with the fewest digits (6 at least) that read back to it in its dtype", function()
    assert.are.equal("gpu.array(float32, {4}) [16777216, 16777216, 16777218, 16777220]",
                     tostring(gpu.arange(16777216, 16777220, 1, "float32")))
    assert.are.equal("gpu.array(float32, {6}) [-0, 0.1, 0.33333334, 1e+20, 3.4028235e+38, 1e-05]",
                     tostring(gpu.array({-0.0, 0.1, 1 / 3, 1e20, 3.4028234663852886e38, 1e-5}, "float32")))
    assert.are.equal("gpu.array(float64, {6}) [0, 0.1, 0.3333333333333333, 0.30000000000000004, 1e+06, 123456789]",
                     tostring(gpu.array({0, 0.1, 1 / 3, 0.1 + 0.2, 1e6, 123456789}, "float64")))
    assert.are.equal("gpu.array(complex64, {2}) [0.33333334+0.1j, nan-infj]",
                     tostring(gpu.array({gpu.complex(1 / 3, 0.1), gpu.complex(0 / 0, -1 / 0)}, "complex64")))
    for _, dt in ipairs({"float32", "float64"}) do      -- every value printed reads back to itself
      local a = gpu.random.uniform(-1e6, 1e6, {200}, dt) / gpu.random.uniform(1, 1e9, {200}, dt)
      local vals = a:totable()
      local i = 0
      for text in tostring(a:reshape(20, 10)):match("\n(.*)"):gmatch("[^][, \n]+") do
        i = i + 1
        local back = tonumber(text)
        if dt == "float32" then back = string.unpack("f", string.pack("f", back)) end
        assert.are.equal(vals[i], back, text)
      end
      assert.are.equal(200, i)
    end
  end)

  it("shows the first and last three along each dimension past 1000 elements", function()
    local s = tostring(gpu.arange(2000, "int32"):reshape(40, 50))
    assert.are.equal(table.concat({
      "gpu.array(int32, {40, 50})",
      "[[   0,    1,    2, ...,   47,   48,   49],",
      " [  50,   51,   52, ...,   97,   98,   99],",
      " [ 100,  101,  102, ...,  147,  148,  149],",
      " ...,",
      " [1850, 1851, 1852, ..., 1897, 1898, 1899],",
      " [1900, 1901, 1902, ..., 1947, 1948, 1949],",
      " [1950, 1951, 1952, ..., 1997, 1998, 1999]]"}, "\n"), s)
    local v = gpu.arange(2000, "int32"):reshape(40, 50).T
    assert.matches("^gpu.array%(int32, {50, 40}%)\n%[%[   0,   50,  100, ..., 1850, 1900, 1950%],", tostring(v))
  end)

  it("prints at the prompt", function()
    local out = S.host("--cpu -i", "gpu.arange(4, 'int32'):reshape(2, 2)\n")
    assert.matches("gpu.array(int32, {2, 2})\n[[0, 1],\n [2, 3]]", out, 1, true)
  end)
end)
