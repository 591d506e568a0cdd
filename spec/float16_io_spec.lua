-- float16 where users see and save it: printing (tostring, array2string and the print
-- options, NumPy's float modes), element values, .npy/.npz files, raw and text files, and
-- the dtype helpers (finfo, min_scalar_type, can_cast, common_type, ...). Expected texts,
-- bytes and numbers are NumPy 1.24's, written here (spec/data/float16.npz is NumPy's), but
-- NumPy's float modes print as NumPy 2.4 (past 1e3 in scientific form).
local function tmp(bytes)
  local p = os.tmpname()
  if bytes then local f = assert(io.open(p, "wb")); f:write(bytes); f:close() end
  return p
end
local function slurp(p) local f = assert(io.open(p, "rb")); local s = f:read("a"); f:close(); return s end
local function err(msg, f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  assert.is_truthy(tostring(e):find(msg, 1, true), tostring(e))
end
local function same_values(want, got, what)   -- NaN equal to NaN, -0.0 apart from 0.0
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    local w, g = want[i], got[i]
    if w ~= w then assert.is_true(g ~= g, what .. " " .. i)
    else assert.are.equal(w, g, what .. " " .. i); assert.are.equal(1 / w, 1 / g, what .. " sign " .. i) end
  end
end

local NUMPY_TEXT = {   -- np.array2string(np.array(values, np.float16)), NumPy 2.4 (1.24 alike but for 65504: [65504.])
  {{0.1, 0.3333333333333333, 65504.0, 6e-08, math.huge, 0 / 0, -0.0}, "[ 9.998e-02  3.333e-01  6.550e+04  5.960e-08        inf        nan\n -0.000e+00]"},
  {{1.0, 2.0, 3.0}, "[1. 2. 3.]"},
  {{0.1, 10000.0, 1e-05}, "[1.e-01 1.e+04 1.e-05]"},
  {{65504.0}, "[6.55e+04]"},
  {{2048.0, 0.5}, "[2.048e+03 5.000e-01]"},
  {{0.1, 0.2, 0.3}, "[0.1 0.2 0.3]"},
  {{0.001, 1.0}, "[0.001 1.   ]"},
  {{100.5, 3.0}, "[100.5   3. ]"},
  {{-65504.0, 1e-07, 0.5, -math.huge}, "[-6.55e+04  1.19e-07  5.00e-01      -inf]"},
  {{0.1, 0.2, 0.7, 1.1, 5.5e-05, 3.14}, "[1.00e-01 2.00e-01 7.00e-01 1.10e+00 5.50e-05 3.14e+00]"},
  {{1.1, 2.2, 3.3}, "[1.1 2.2 3.3]"},
  {{6.1e-05, 6.1e-05}, "[6.1e-05 6.1e-05]"},
  {{1e-06, 2e-06}, "[1.e-06 2.e-06]"},
}
local NUMPY_OPTS = {   -- np.array2string(np.array(values, np.float16), **opts)
  {{precision = 3}, {0.1, 0.3333333333333333, 65504.0}, "[9.998e-02 3.333e-01 6.550e+04]"},
  {{floatmode = 'fixed', precision = 8}, {0.1, 0.3333333333333333, 655.0}, "[9.99755859e-02 3.33251953e-01 6.55000000e+02]"},
  {{floatmode = 'unique'}, {0.1, 0.3333333333333333, 655.0}, "[9.998e-02 3.333e-01 6.550e+02]"},
  {{floatmode = 'maxprec_equal'}, {0.1, 0.3333333333333333, 655.0}, "[9.998e-02 3.333e-01 6.550e+02]"},
  {{suppress = true}, {0.1, 0.3333333333333333, 1e-05, 655.0}, "[  0.1       0.3333    0.00001 655.     ]"},
  {{sign = '+'}, {0.1, -0.3333333333333333, 1e-05, 655.0}, "[+9.998e-02 -3.333e-01 +1.001e-05 +6.550e+02]"},
  {{floatmode = 'fixed', precision = 2, sign = ' '}, {0.1, 0.3333333333333333, 2.5, 0 / 0}, "[ 0.10  0.33  2.50   nan]"},
}
local TWO_D = "[[1.5e+00 2.0e+00]\n [3.0e+00 4.0e+04]]"
local WRAPPED = "[0.     0.1428 0.2856 0.4285 0.5713\n 0.7144 0.857  1.     1.143  1.286\n 1.429  1.571  1.714  1.857  2.\n 2.143  2.285  2.428  2.572  2.715\n 2.857  3.     3.143  3.285  3.428\n 3.572  3.715  3.857  4.     4.145 ]" -- arange(30)/7, max_line_width=40
local SUMMARIZED = "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]" -- arange(2000), threshold=10
local THIRDS = "[[0.     0.3333 0.6665]\n [1.     1.333  1.667 ]]"
local NUMPY_STR = {   -- str(np.float16(v))
  {0.0999755859375, "0.1"},
  {0.333251953125, "0.3333"},
  {65504.0, "65500.0"},
  {5.960464477539063e-08, "6e-08"},
  {1.1920928955078125e-07, "1e-07"},
  {2048.0, "2048.0"},
  {0.5, "0.5"},
  {-2.5, "-2.5"},
  {10000.0, "10000.0"},
  {3.140625, "3.14"},
  {0.0012302398681640625, "0.00123"},
  {1.0013580322265625e-05, "1e-05"},
  {6.097555160522461e-05, "6.1e-05"},
  {60000.0, "60000.0"},
  {-0.0, "-0.0"},
  {math.huge, "inf"},
  {-math.huge, "-inf"},
  {0 / 0, "nan"},
  {5.960464477539063e-08, "6e-08"},
  {6.103515625e-05, "6.104e-05"},
  {0.9990234375, "0.999"},
  {1.0009765625, "1.001"},
  {1000.5, "1000.5"},
  {123.375, "123.4"},
}

-- the .npy NumPy writes for np.array([0.1, 1/3, 65504, 6e-8, inf, nan, -0.0, -2.5], np.float16)
local HEAD = "{'descr': '<f2', 'fortran_order': False, 'shape': (8,), }"
local DATA = "f.U5\xff{\x01\x00\x00|\x00~\x00\x80\x00\xc1"
local NPY = "\x93NUMPY\x01\x00v\x00" .. HEAD .. (" "):rep(128 - 10 - #HEAD - 1) .. "\n" .. DATA
local NAN = math.abs(0 / 0)   -- NumPy's nan, its sign bit clear (Lua's 0/0 has it set on x86)
local VALUES = {0.0999755859375, 0.333251953125, 65504.0, 5.960464477539063e-08, math.huge, NAN, -0.0, -2.5}
local function npy(head, data)
  return "\x93NUMPY\x01\x00v\x00" .. head .. (" "):rep(128 - 10 - #head - 1) .. "\n" .. data
end

describe("float16 printing", function()
  it("tostring shows each value's shortest digits in float16 (gpuhost's form)", function()
    local a = gpu.array({0.1, 1 / 3, 65504, 6e-8, math.huge, 0 / 0, -0.0}, "float16")
    assert.are.equal("gpu.array(float16, {7}) [0.1, 0.3333, 65504, 6e-08, inf, nan, -0]", tostring(a))
    assert.are.equal("gpu.array(float16, {6}) [2048, 0.001, 100.5, -1e-07, 0.01563, -0.0001221]",
                     tostring(gpu.array({2048, 1e-3, 100.5, -1e-7, 2 ^ -6, -2 ^ -13}, "float16")))
    assert.are.equal("gpu.array(float16, {2, 2})\n[[  1.5,     2],\n [    3, 40000]]",
                     tostring(gpu.array({{1.5, 2}, {3, 4e4}}, "half")))
    assert.are.equal("gpu.array(float16, {}) 0.1", tostring(gpu.full({}, 0.1, "float16")))
    assert.are.equal("gpu.hostarray(float16, {3}) [0.1, 0.2, 0.3]", tostring(gpu.host.array({0.1, 0.2, 0.3}, "float16")))
    assert.are.equal(tostring(a), gpu.array_repr(a))
    assert.are.equal("[ 0.1 -2.5]", gpu.array_str(gpu.array({0.1, -2.5}, "float16")))
  end)

  -- (options set within gpu.printoptions(opts, f), which restores them: set once, the
  -- threshold and linewidth would change every later spec's default print)
  it("NumPy's default float mode prints float16 as NumPy 2.4 does", function() gpu.printoptions({floatmode = "maxprec"}, function()
    for _, c in ipairs(NUMPY_TEXT) do
      assert.are.equal(c[2], gpu.array2string(gpu.array(c[1], "float16")), c[2])
    end
    assert.are.equal(TWO_D, gpu.array2string(gpu.array({{1.5, 2}, {3, 4e4}}, "float16")))
    assert.are.equal(THIRDS, gpu.array2string(gpu.arange(6, "float16"):reshape(2, 3) / gpu.full({}, 3, "float16")))
    assert.are.equal("0.1", gpu.array2string(gpu.full({}, 0.1, "float16")))
    assert.are.equal(WRAPPED, gpu.array2string(gpu.arange(30, "float16") / gpu.full({}, 7, "float16"), {linewidth = 40}))
    assert.are.equal(SUMMARIZED, gpu.array2string(gpu.arange(2000, "float16"), {threshold = 10}))
    assert.are.equal("gpu.array(float16, {3}) [0.1, 0.2, 0.3]", tostring(gpu.array({0.1, 0.2, 0.3}, "float16")))
  end) end)

  it("precision, fixed, unique, maxprec_equal, suppress and sign as NumPy's", function() gpu.printoptions({floatmode = "maxprec"}, function()
    for _, c in ipairs(NUMPY_OPTS) do
      assert.are.equal(c[3], gpu.array2string(gpu.array(c[2], "float16"), c[1]), c[3])
    end
  end) end)

  it("%s writes NumPy's str of each float16, every one of the 65536 alike", function()
    local vals = {}
    for i, c in ipairs(NUMPY_STR) do vals[i] = c[1] end
    local p = tmp()
    gpu.savetxt(p, gpu.host.array(vals, "float16"), {fmt = "%s"})
    local lines = {}
    for l in slurp(p):gmatch("[^\n]+") do lines[#lines + 1] = l end
    for i, c in ipairs(NUMPY_STR) do assert.are.equal(c[2], lines[i], c[2]) end
    -- every bit pattern: the text's length and a hash of it, from NumPy's
    -- ''.join(str(x) + '\n' for x in np.arange(65536, dtype=np.uint16).view(np.float16))
    local bits = {}
    for i = 0, 65535 do bits[#bits + 1] = string.pack("<I2", i) end
    local all = gpu.frombuffer(table.concat(bits), "float16")
    gpu.savetxt(p, all, {fmt = "%s"})
    local s = slurp(p)
    os.remove(p)
    local h = 0
    for i = 1, #s do h = (h * 31 + s:byte(i)) % 2147483647 end
    assert.are.same({508021, 245825871}, {#s, h})
  end)

  it("gpuhost's shortest form of every finite float16 reads back as itself", function()
    local bits = {}
    for i = 0, 65535 do
      local e = (i >> 10) & 31
      if e ~= 31 then bits[#bits + 1] = string.pack("<I2", i) end
    end
    local raw = table.concat(bits)
    local text = gpu.array2string(gpu.frombuffer(raw, "float16"), {threshold = math.huge, linewidth = 1 << 40})
    local most = 0
    for w in text:gmatch("[^%s%[%]]+") do
      most = math.max(most, #(w:gsub("[-.]", ""):gsub("e.*$", ""):gsub("^0+", "")))
    end
    assert.are.equal(5, most)   -- no value needs more than 5 digits (whole ones are exact)
    assert.are.equal(raw, gpu.fromstring(text:sub(2, -2), "float16", -1, " "):tobytes())
  end)
end)

describe("float16 elements", function()
  it("item, a view's item and totable give the exact value of the half", function()
    local a = gpu.array({0.1, 1 / 3, 65504, 6e-8, math.huge, 0 / 0, -0.0, -2.5}, "float16")
    assert.are.equal(0.0999755859375, a:item(1))
    assert.are.equal(0.333251953125, a:item(2))
    assert.are.equal(0.0999755859375, a[{1}]:item())
    assert.are.equal("float", math.type(a:item(3)))
    local h = a:tohost()
    assert.are.equal(0.333251953125, h[2])
    h[2] = 0.1                                 -- stored rounded to the nearest half
    assert.are.equal(0.0999755859375, h[2])
    same_values(VALUES, a:totable(), "totable")
    same_values(VALUES, a:tohost():totable(), "host totable")
    assert.are.same({{0, 0.25, 0.5}, {0.75, 1, 1.25}},
                    (gpu.arange(6, "float16"):reshape(2, 3) / gpu.full({}, 4, "float16")):totable())
    assert.are.equal(65504.0, gpu.array({65519}, "float16"):item(1))       -- rounds down
    assert.are.equal(math.huge, gpu.array({65520}, "float16"):item(1))     -- and up to inf
    assert.are.equal(2 ^ -24, gpu.array({3e-8}, "float16"):item(1))        -- the smallest subnormal
  end)
end)

describe("float16 in NumPy files", function()
  it("gpu.load reads NumPy's '<f2' file, gpu.save writes it back byte for byte", function()
    local p, q = tmp(NPY), tmp()
    local h = gpu.load(p)
    assert.are.equal("float16", h.dtype)
    same_values(VALUES, h:totable(), "load")
    gpu.save(q, h)
    assert.are.equal(NPY, slurp(q))
    gpu.save(q, gpu.array(VALUES, "float16"))   -- a device array
    assert.are.equal(NPY, slurp(q))
    gpu.save(q, gpu.array({0, 0, 0.1, 0, 1 / 3, 0, 65504, 0, 6e-8, 0, math.huge, 0, NAN, 0, -0.0, 0, -2.5}, "float16")[{{3, 17, 2}}])
    assert.are.equal(NPY, slurp(q))             -- a strided view as the array it shows
    local d = gpu.load(p, {device = true})
    assert.are.equal("float16", d.dtype)
    same_values(VALUES, d:totable(), "load on the device")
    os.remove(p); os.remove(q)
  end)

  it("reads big-endian, Fortran-order and 0-D float16 files of NumPy's", function()
    local p = tmp(npy("{'descr': '>f2', 'fortran_order': False, 'shape': (8,), }",
                      ".f5U{\xff\x00\x01|\x00~\x00\x80\x00\xc1\x00"))
    same_values(VALUES, gpu.load(p):totable(), "big-endian")
    os.remove(p)
    -- np.asfortranarray(np.arange(6, dtype=np.float16).reshape(2, 3) / 4)
    p = tmp(npy("{'descr': '<f2', 'fortran_order': True, 'shape': (2, 3), }", "\x00\x00\x00:\x004\x00<\x008\x00="))
    assert.are.same({{0, 0.25, 0.5}, {0.75, 1, 1.25}}, gpu.load(p):totable())
    os.remove(p)
    local zero_d = npy("{'descr': '<f2', 'fortran_order': False, 'shape': (), }", "\x00\xbe")
    p = tmp(zero_d)
    local h = gpu.load(p)
    assert.are.same({}, h.shape)
    assert.are.equal(-1.5, h:item())
    gpu.save(p, h)
    assert.are.equal(zero_d, slurp(p))
    os.remove(p)
  end)

  it("#libzip loadz reads NumPy's .npz of float16; savez writes members NumPy's bytes", function()
    local z = gpu.loadz("spec/data/float16.npz")
    same_values(VALUES, z.x:totable(), "x")
    assert.are.equal(1.5, z.y:item())
    assert.are.equal("float16", z.z.dtype)
    assert.are.same({{0, 0.333251953125, 0.66650390625}, {1, 1.3330078125, 1.6669921875}}, z.z:totable())
    local p, q = tmp(), tmp()
    gpu.savez(p, {x = z.x, y = gpu.array(z.z)})
    local back = gpu.loadz(p)
    gpu.save(q, back.x)
    assert.are.equal(NPY, slurp(q))
    assert.are.same(z.z:totable(), back.y:totable())
    gpu.savez_compressed(p, {x = z.x})
    gpu.save(q, gpu.loadz(p).x)
    assert.are.equal(NPY, slurp(q))
    os.remove(p); os.remove(q)
  end)
end)

describe("float16 in raw and text files", function()
  it("tofile and fromfile, tobytes and frombuffer: NumPy's bytes", function()
    local a = gpu.array(VALUES, "float16")
    assert.are.equal(DATA, a:tobytes())
    local p = tmp()
    a:tofile(p)
    assert.are.equal(DATA, slurp(p))
    same_values(VALUES, gpu.fromfile(p, "float16"):totable(), "fromfile")
    same_values({VALUES[2], VALUES[3]}, gpu.fromfile(p, "float16", 2, "", 2):totable(), "fromfile count offset")
    same_values(VALUES, gpu.frombuffer(DATA, "float16"):totable(), "frombuffer")
    same_values(VALUES, gpu.fromstring(DATA, "float16"):totable(), "fromstring bytes")
    err("bad argument #1 to 'frombuffer' (the string's 3 bytes after offset 0 are not a whole number of float16 elements (2 bytes each))",
        gpu.frombuffer, "abc", "float16")
    -- text: NumPy 1.24 writes a Python float of each (the half's exact value, shortest)
    a:tofile(p, ",")
    assert.are.equal("0.0999755859375,0.333251953125,65504.0,5.960464477539063e-08,inf,nan,-0.0,-2.5", slurp(p))
    a:tofile(p, " ", "%.3e")
    assert.are.equal("9.998e-02 3.333e-01 6.550e+04 5.960e-08 inf nan -0.000e+00 -2.500e+00", slurp(p))
    same_values(VALUES, gpu.fromfile(p, "float16", -1, " "):totable(), "fromfile text")
    os.remove(p)
    -- text read as a double, rounded once to float16, as NumPy's
    assert.are.same({0.0999755859375, 65504, math.huge, 0, 2 ^ -24, -2 ^ -24},
                    gpu.fromstring("0.1 65519 65520 1e-8 3e-8 -3e-8", "float16", -1, " "):totable())
    -- NaN's bits as NumPy's: fromstring's nan and -nan 0x7e00, loadtxt's -nan 0xfe00
    assert.are.equal("\x00\x7e\x00\x7e", gpu.fromstring("nan -nan", "float16", -1, " "):tobytes())
    p = tmp("nan -nan\n")
    assert.are.equal("\x00\x7e\x00\xfe", gpu.loadtxt(p, {dtype = "float16"}):tobytes())
    assert.are.equal("\x00\x7e\x00\xfe", gpu.genfromtxt(p, {dtype = "float16"}):tobytes())
    assert.are.equal("\0\0\0\0\0\0\xf8\x7f", gpu.loadtxt(p):tobytes():sub(1, 8))
    os.remove(p)
  end)

  it("savetxt and loadtxt as NumPy's", function()
    local a = gpu.array(VALUES, "float16"):reshape(2, 4)
    local p = tmp()
    gpu.savetxt(p, a)
    assert.are.equal("9.997558593750000000e-02 3.332519531250000000e-01 6.550400000000000000e+04 5.960464477539062500e-08\n" ..
                     "inf nan -0.000000000000000000e+00 -2.500000000000000000e+00\n", slurp(p))
    local back = gpu.loadtxt(p, {dtype = "float16"})
    assert.are.equal("float16", back.dtype)
    assert.are.equal(DATA, back:tobytes())
    gpu.savetxt(p, a, {fmt = "%.3g"})
    assert.are.equal("0.1 0.333 6.55e+04 5.96e-08\ninf nan -0 -2.5\n", slurp(p))
    gpu.savetxt(p, a, {fmt = "%s", delimiter = ","})
    assert.are.equal("0.1,0.3333,65500.0,6e-08\ninf,nan,-0.0,-2.5\n", slurp(p))
    assert.are.equal(DATA, gpu.loadtxt(p, {dtype = "half", delimiter = ","}):tobytes())
    os.remove(p)
  end)
end)

describe("float16 in the dtype helpers", function()
  local NAMES = {"float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
                 "complex64", "complex128"}
  -- numpy.can_cast("float16", NAMES[j], casting) and numpy.can_cast(NAMES[j], "float16", casting)
  local CAN = {safe = {"1100000000011", "0010001000100"}, same_kind = {"1100000000011", "1111111111100"},
               no = {"0000000000000", "0000000000000"}, unsafe = {"1111111111111", "1111111111111"}}

  it("finfo('float16') holds NumPy's numbers", function()
    local f = gpu.finfo("float16")
    assert.are.same({16, 2 ^ -10, 2 ^ -11, 65504, -65504, 2 ^ -14, 2 ^ -14, 2 ^ -24, 0.0010004043579101562, 3,
                     -10, -11, 16, -14, 5, 5, 10, "float16"},
                    {f.bits, f.eps, f.epsneg, f.max, f.min, f.tiny, f.smallest_normal, f.smallest_subnormal,
                     f.resolution, f.precision, f.machep, f.negep, f.maxexp, f.minexp, f.iexp, f.nexp, f.nmant, f.dtype})
    assert.are.equal("float16", gpu.finfo("half").dtype)
    assert.are.equal("float16", gpu.finfo(gpu.empty(1, "float16")).dtype)
    assert.are.equal(f.max, gpu.array({65504}, "float16"):item(1))
    assert.are.equal(f.smallest_subnormal, gpu.array({6e-8}, "float16"):item(1))
  end)

  it("can_cast with float16 as NumPy's table", function()
    for casting, rows in pairs(CAN) do
      for j, t in ipairs(NAMES) do
        assert.are.equal(rows[1]:sub(j, j) == "1", gpu.can_cast("float16", t, casting), "float16 -> " .. t .. " " .. casting)
        assert.are.equal(rows[2]:sub(j, j) == "1", gpu.can_cast(t, "float16", casting), t .. " -> float16 " .. casting)
      end
      assert.are.equal(casting ~= "unsafe" or true, gpu.can_cast("float16", "half", casting))
    end
    -- a Lua number by its value, as NumPy 1.24's
    local cases = {{1.5, "float16", true}, {1e5, "float16", false}, {-5, "float16", true}, {300, "float16", false},
                   {0 / 0, "float16", true}, {1.5, "int8", false}}
    for _, c in ipairs(cases) do assert.are.equal(c[3], gpu.can_cast(c[1], c[2]), tostring(c[1]) .. " " .. c[2]) end
    assert.is_true(gpu.can_cast(1e5, "float16", "same_kind"))
  end)

  it("min_scalar_type, common_type, mintypecode, typename, issubdtype", function()
    local ms = {{1.5, "float16"}, {0.1, "float16"}, {64999.99, "float16"}, {-64999.0, "float16"}, {1e-30, "float16"},
                {0 / 0, "float16"}, {-math.huge, "float16"}, {65000.0, "float32"}, {65504.0, "float32"},
                {-65000.0, "float32"}, {3.39e38, "float32"}, {3.4e38, "float64"}, {1e300, "float64"}}
    for _, c in ipairs(ms) do assert.are.equal(c[2], gpu.min_scalar_type(c[1]), tostring(c[1])) end
    assert.are.equal("float16", gpu.min_scalar_type(gpu.full({}, 1.5, "float64")))
    assert.are.equal("float16", gpu.min_scalar_type(gpu.full({}, 65504, "float16")))   -- never wider
    assert.are.equal("float16", gpu.min_scalar_type(gpu.full({}, math.huge, "float32")))
    assert.are.equal("float32", gpu.min_scalar_type(gpu.full({}, 65504, "float64")))
    assert.are.equal("float32", gpu.min_scalar_type(gpu.full({}, 3.4028234663852886e38, "float32")))
    assert.are.equal("float16", gpu.min_scalar_type(gpu.full({2}, 1.5, "float16")))
    assert.are.equal("complex64", gpu.min_scalar_type(gpu.complex(1.5, 0)))
    assert.are.equal("complex128", gpu.min_scalar_type(gpu.complex(0 / 0, 0)))
    assert.are.equal("complex128", gpu.min_scalar_type(gpu.complex(0, 3.4e38)))
    assert.are.equal("float16", gpu.common_type(gpu.empty(2, "float16")))
    assert.are.equal("float16", gpu.common_type(gpu.empty(2, "float16"), gpu.empty(3, "half")))
    assert.are.equal("float32", gpu.common_type(gpu.empty(2, "float16"), gpu.empty(2, "float32")))
    assert.are.equal("float64", gpu.common_type(gpu.empty(2, "float16"), gpu.empty(2, "int8")))
    assert.are.equal("complex64", gpu.common_type(gpu.empty(2, "float16"), gpu.empty(2, "complex64")))
    assert.are.equal("d", gpu.mintypecode({"float16"}))            -- "e" is not in the default "GDFgdf"
    assert.are.equal("f", gpu.mintypecode({gpu.empty(1, "float16"), "f"}, "fd"))
    err("no size order for the codes e, f", gpu.mintypecode, {gpu.empty(1, "float16"), "f"}, "efd")   -- NumPy: ValueError
    assert.are.equal("half precision", gpu.typename("e"))
    assert.are.equal("half precision", gpu.typename("float16"))
    assert.is_true(gpu.issubdtype("float16", "floating") and gpu.issubdtype("half", "inexact"))
    assert.is_false(gpu.issubdtype("float16", "float32") or gpu.issubdtype("float16", "integer"))
    assert.is_true(gpu.issubdtype("half", "float16"))
    assert.are.equal("float16", gpu.promote_types("half", "uint8"))
  end)
end)
