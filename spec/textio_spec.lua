-- Text and raw files (savetxt, loadtxt, genfromtxt, fromfile/tofile, frombuffer, fromstring,
-- tobytes), savez_compressed, and the print options (set_printoptions ... format_float_*):
-- the expected text and values are NumPy 1.24's, written here; the #numpy block has
-- NumPy read what gpuhost writes and the other way round.
local S = require("spec.support")

local function tmp(text)
  local p = os.tmpname()
  if text then local f = assert(io.open(p, "wb")); f:write(text); f:close() end
  return p
end
local function slurp(p) local f = assert(io.open(p, "rb")); local s = f:read("a"); f:close(); return s end
local function nan_table(t)   -- NaN made comparable
  for i, v in ipairs(t) do
    if type(v) == "table" then nan_table(v) elseif v ~= v then t[i] = "nan" end
  end
  return t
end

describe("gpu.savetxt", function()
  it("writes NumPy's default '%.18e', a value a column, nan as a word", function()
    local p = tmp()
    gpu.savetxt(p, gpu.host.array({{1.5, -2.25, 1 / 3}, {0, 1e300, 0 / 0}}, "float64"))
    assert.are.equal("1.500000000000000000e+00 -2.250000000000000000e+00 3.333333333333333148e-01\n" ..
                     "0.000000000000000000e+00 1.000000000000000053e+300 nan\n", slurp(p))
    gpu.savetxt(p, gpu.array({{1.5, -2.25}, {7, 8}}, "float64"), {fmt = {"%d", "%.2f"}, delimiter = ",",
                header = "x,y\nunits", footer = "end", comments = "// ", newline = "\r\n"})
    assert.are.equal("// x,y\n// units\r\n1,-2.25\r\n7,8.00\r\n// end\r\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({1, 2, 3}, "int32"), {fmt = "%5d"})
    assert.are.equal("    1\n    2\n    3\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({{1, 2}, {3, 4}}, "int64"), {fmt = "%d|%d"})
    assert.are.equal("1|2\n3|4\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({math.huge, -math.huge, 0 / 0}, "float64"), {fmt = "%8.2f"})
    assert.are.equal("     inf\n    -inf\n     nan\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({-1, 5}, "uint64"), {fmt = "%d"})
    assert.are.equal("18446744073709551615\n5\n", slurp(p))
    os.remove(p)
  end)

  it("refuses what it cannot write", function()
    local p = tmp()
    assert.matches("bad argument #2 to 'savetxt' (1-D or 2-D array expected, got 3-D)",
                   S.errof(gpu.savetxt, p, gpu.host.zeros({1, 1, 1})), 1, true)
    assert.matches("bad argument #2 to 'savetxt' (array expected, got number)", S.errof(gpu.savetxt, p, 5), 1, true)
    assert.matches("bad argument #3 to 'savetxt' (options.fmt '%d %d' has not one % conversion or one per column (3))",
                   S.errof(gpu.savetxt, p, gpu.host.zeros({2, 3}), {fmt = "%d %d"}), 1, true)
    assert.matches("bad argument #3 to 'savetxt' (options.fmt has 1 formats, the array 3 columns)",
                   S.errof(gpu.savetxt, p, gpu.host.zeros({2, 3}), {fmt = {"%d"}}), 1, true)
    assert.matches("gpu.savetxt: unknown option 'delim' (it takes comments, delimiter, fmt, footer, header, newline)",
                   S.errof(gpu.savetxt, p, gpu.host.zeros(2), {delim = ","}), 1, true)
    assert.matches("bad argument #1 to 'savetxt' (file name expected, got nil)", S.errof(gpu.savetxt, nil, gpu.host.zeros(2)), 1, true)
    assert.matches("cannot write '/nonexistent/x.txt': No such file or directory",
                   S.errof(gpu.savetxt, "/nonexistent/x.txt", gpu.host.zeros(2)), 1, true)
    -- %d of a NaN says nan whatever its sign bit (Lua's 0/0 said "-nan")
    for _, v in ipairs({0 / 0, -(0 / 0)}) do
      assert.matches("(options.fmt '%d': cannot convert float nan to integer)",
                     S.errof(gpu.savetxt, p, gpu.host.array({v, 1}, "float64"), {fmt = "%d"}), 1, true)
    end
    assert.matches("(options.fmt '%d': cannot convert float -inf to integer)",
                   S.errof(gpu.savetxt, p, gpu.host.array({-math.huge}, "float64"), {fmt = "%d"}), 1, true)
    os.remove(p)
  end)
end)

describe("gpu.loadtxt", function()
  local cases = {
    {"# c\n1 2 3\n4 5 6 # x\n\n7 8 9\n", {}, {3, 3}, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}},
    {"h\nh\n1 2\n3 4\n5 6\n", {skiprows = 2, max_rows = 2}, {2, 2}, {{1, 2}, {3, 4}}},
    {"1 2 3\r\n4 5 6\r\n", {usecols = {1, -1}}, {2, 2}, {{1, 3}, {4, 6}}},
    {"5\n", {}, {}, 5},
    {"5\n", {ndmin = 1}, {1}, {5}},
    {"5\n", {ndmin = 2}, {1, 1}, {{5}}},
    {"1\n2\n", {ndmin = 2}, {2, 1}, {{1}, {2}}},
    {"1\n2\n", {}, {2}, {1, 2}},
    {"1 2 3\n", {ndmin = 2}, {1, 3}, {{1, 2, 3}}},
    {"nan inf -Infinity 1e3 .5 +2.\n", {}, {6}, {"nan", math.huge, -math.huge, 1000, 0.5, 2}},
    {"", {}, {0}, {}},
    {"1, 2\n 3 ,4", {delimiter = ","}, {2, 2}, {{1, 2}, {3, 4}}},
    {"1 2 // c\n% x\n3 4", {comments = {"//", "%"}}, {2, 2}, {{1, 2}, {3, 4}}},
    {"1 2\n3 4\n", {usecols = 2}, {2}, {2, 4}},
    {"1 2\n3 4\n", {max_rows = 0}, {0}, {}},
  }
  it("reads as NumPy does: comments, skiprows, max_rows, usecols (1-based), ndmin and squeezing", function()
    for _, c in ipairs(cases) do
      local p = tmp(c[1])
      local h = gpu.loadtxt(p, c[2])
      assert.are.equal("float64", h.dtype)
      assert.are.same(c[3], h.shape, c[1])
      assert.are.same(c[4], #c[3] == 0 and h:item() or nan_table(h:totable()), c[1])
      os.remove(p)
    end
    local p = tmp("-0 -0.0 0 1e-320\n")
    local z = gpu.loadtxt(p)
    assert.are.same({-math.huge, -math.huge, math.huge, 1e-320}, {1 / z[1], 1 / z[2], 1 / z[3], z[4]})
    os.remove(p)
    p = tmp("1;2\n3;-4\n")
    local h = gpu.loadtxt(p, {delimiter = ";", dtype = "int32", device = true})
    assert.are.equal("int32", h.dtype)
    assert.are.same({{1, 2}, {3, -4}}, h:totable())
    assert.are.equal("gpu.array", tostring(h):match("^gpu%.array"))
    os.remove(p)
  end)

  it("names the file and the line of what it cannot read", function()
    local p = tmp("1 2\n2 x\n")
    assert.are.equal("cannot read '" .. p .. "': line 2, column 2: 'x' is not a float64 value", S.errof(gpu.loadtxt, p))
    p = tmp("1 2\n\n3\n")
    assert.are.equal("cannot read '" .. p .. "': line 3 has 1 column, line 1 has 2", S.errof(gpu.loadtxt, p))
    p = tmp("1.5\n")
    assert.are.equal("cannot read '" .. p .. "': line 1, column 1: '1.5' is not a int8 value", S.errof(gpu.loadtxt, p, {dtype = "int8"}))
    p = tmp("300\n")
    assert.matches("cannot read '" .. p .. "': .*300", S.errof(gpu.loadtxt, p, {dtype = "uint8"}))
    p = tmp("1 2\n")
    assert.are.equal("cannot read '" .. p .. "': line 1 has 2 columns, usecols names column 3",
                     S.errof(gpu.loadtxt, p, {usecols = {3}}))
    assert.matches("cannot read '/nonexistent.txt': No such file or directory", S.errof(gpu.loadtxt, "/nonexistent.txt"), 1, true)
    assert.matches("bad argument #2 to 'loadtxt' (unknown dtype 'float' (float32,", S.errof(gpu.loadtxt, p, {dtype = "float"}), 1, true)
    assert.matches("bad argument #2 to 'loadtxt' (options.ndmin of 0, 1 or 2 expected, got 3)", S.errof(gpu.loadtxt, p, {ndmin = 3}), 1, true)
    assert.matches("bad argument #2 to 'loadtxt' (options.usecols: 0 is not a column", S.errof(gpu.loadtxt, p, {usecols = {0}}), 1, true)
    assert.matches("gpu.loadtxt: unknown option 'skip_header' (it takes comments, ", S.errof(gpu.loadtxt, p, {skip_header = 1}), 1, true)
    os.remove(p)
  end)
end)

describe("gpu.genfromtxt", function()
  it("fills missing and unreadable values (NaN unless filling_values says)", function()
    local p = tmp("1,2,3\n4,,6\n7,x,9\n")
    local h = gpu.genfromtxt(p, {delimiter = ","})
    assert.are.same({3, 3}, h.shape)
    assert.are.same({{1, 2, 3}, {4, "nan", 6}, {7, "nan", 9}}, nan_table(h:totable()))
    p = tmp("a b\n1 2\n3 N/A\n9 9\n")
    h = gpu.genfromtxt(p, {skip_header = 1, skip_footer = 1, missing_values = "N/A", filling_values = -1})
    assert.are.same({{1, 2}, {3, -1}}, h:totable())
    p = tmp("1,2,\n")
    assert.are.same({1, 2, "nan"}, nan_table(gpu.genfromtxt(p, {delimiter = ","}):totable()))
    assert.are.same({1, 2, -1}, gpu.genfromtxt(p, {delimiter = ",", dtype = "int64"}):totable())
    p = tmp("1,2\n2\n")
    assert.are.equal("cannot read '" .. p .. "': line 2 has 1 column, line 1 has 2", S.errof(gpu.genfromtxt, p, {delimiter = ","}))
    assert.matches("bad argument #2 to 'genfromtxt' (options.filling_values must be a number, got string)",
                   S.errof(gpu.genfromtxt, p, {filling_values = "0"}), 1, true)
    os.remove(p)
  end)

  it("reads int8..int32 and uint8..uint32 as NumPy 2.4's int(float(x)), int64 and uint64 integers only", function()
    local p = tmp("1.5,1e3,2.7\n-1.5,nan,1_0.5\n-0.5,x,.5\n")
    for _, dt in ipairs({"int16", "int32"}) do
      assert.are.same({{1, 1000, 2}, {-1, -1, 10}, {0, -1, 0}}, gpu.genfromtxt(p, {delimiter = ",", dtype = dt}):totable())
    end
    assert.are.same({{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}, gpu.genfromtxt(p, {delimiter = ",", dtype = "int64"}):totable())
    assert.are.equal("cannot read '" .. p .. "': line 1, column 2: '1e3' is out of range for int8",
                     S.errof(gpu.genfromtxt, p, {delimiter = ",", dtype = "int8"}))
    assert.are.equal("cannot read '" .. p .. "': line 2, column 1: '-1.5' is out of range for uint32",
                     S.errof(gpu.genfromtxt, p, {delimiter = ",", dtype = "uint32"}))
    p = tmp("2.9e9,4294967295.5,1e3\n")
    assert.are.same({2900000000, 4294967295, 1000}, gpu.genfromtxt(p, {delimiter = ",", dtype = "uint32"}):totable())
    assert.are.equal(1000, gpu.genfromtxt(p, {delimiter = ",", dtype = "uint16", usecols = 3}):totable())
    for _, t in ipairs({"inf", "-inf", "1e400", "1e10"}) do   -- NumPy's OverflowError
      p = tmp(t .. ",1\n")
      assert.are.equal("cannot read '" .. p .. "': line 1, column 1: '" .. t .. "' is out of range for int32",
                       S.errof(gpu.genfromtxt, p, {delimiter = ",", dtype = "int32"}))
    end
    os.remove(p)
  end)
end)

describe("raw and text files: fromfile, tofile, frombuffer, fromstring, tobytes", function()
  it("round-trip bytes and text", function()
    local p = tmp()
    local a = gpu.array({{1, -2, 3}, {4, 5, 32767}}, "int16")
    a:tofile(p)
    assert.are.equal(string.pack("<i2i2i2i2i2i2", 1, -2, 3, 4, 5, 32767), slurp(p))
    assert.are.equal(slurp(p), a:tobytes())
    assert.are.equal(string.pack("<i2i2i2i2i2i2", 1, 4, -2, 5, 3, 32767), a.T:tobytes())   -- a view, in C order
    assert.are.equal(slurp(p), a:tohost():tobytes())
    assert.are.same({1, -2, 3, 4, 5, 32767}, gpu.fromfile(p, "int16"):totable())
    assert.are.same({3, 4}, gpu.fromfile(p, "int16", 2, "", 4):totable())
    a:tofile(p, ", ")
    assert.are.equal("1, -2, 3, 4, 5, 32767", slurp(p))
    assert.are.same({1, -2, 3, 4, 5, 32767}, gpu.fromfile(p, "int32", -1, ","):totable())
    gpu.host.array({0.1, 1e20, 1.5e-5, 3, -0.0}, "float64"):tofile(p, " ")
    assert.are.equal("0.1 1e+20 1.5e-05 3.0 -0.0", slurp(p))
    gpu.host.array({1.5, 2.25}, "float32"):tofile(p, ",", "%.3f")
    assert.are.equal("1.500,2.250", slurp(p))
    assert.are.same({1.5, 2.25}, gpu.fromfile(p, nil, -1, ","):totable())
    os.remove(p)
  end)

  it("read strings as NumPy's frombuffer and fromstring", function()
    local h = gpu.frombuffer("\0\0\192\63\0\0\0\64", "float32", 1, 4)
    assert.are.same({2}, h:totable())
    assert.are.equal("float64", gpu.frombuffer(string.pack("<d", 0.5)).dtype)
    assert.are.same({1, 2, 3}, gpu.fromstring("1 2\n 3", "float64", -1, " "):totable())
    assert.are.same({1, 2}, gpu.fromstring("1,2,3,4", "int16", 2, ","):totable())
    assert.are.same({258}, gpu.fromstring("\2\1", "int16"):totable())
    assert.are.same({}, gpu.frombuffer("", "int8"):totable())
  end)

  it("refuse short data, bad counts and dtypes, naming the file", function()
    local p = tmp("\1\0\2\0\3")
    assert.are.equal("cannot read '" .. p .. "': 5 int16 elements need 10 bytes after offset 0, it has 5",
                     S.errof(gpu.fromfile, p, "int16", 5))
    assert.are.equal("cannot read '" .. p .. "': its 5 bytes after offset 0 are not a whole number of int16 elements (2 bytes each)",
                     S.errof(gpu.fromfile, p, "int16"))
    assert.are.equal("cannot read '" .. p .. "': offset 9 is past its 5 bytes", S.errof(gpu.fromfile, p, "int8", -1, "", 9))
    assert.are.same({1, 0, 2, 0, 3}, gpu.fromfile(p, "uint8"):totable())
    assert.matches("cannot read '/nonexistent.bin': No such file or directory", S.errof(gpu.fromfile, "/nonexistent.bin"), 1, true)
    assert.matches("bad argument #2 to 'fromfile' (unknown dtype 'i4'", S.errof(gpu.fromfile, p, "i4"), 1, true)
    assert.matches("bad argument #3 to 'fromfile' (count of -1 or more expected, got -2)", S.errof(gpu.fromfile, p, "int8", -2), 1, true)
    assert.matches("bad argument #1 to 'frombuffer' (the string's 3 bytes after offset 0 are not a whole number of int16 elements (2 bytes each))",
                   S.errof(gpu.frombuffer, "abc", "int16"), 1, true)
    assert.matches("bad argument #1 to 'frombuffer' (3 int16 elements need 6 bytes after offset 0, it has 4)",
                   S.errof(gpu.frombuffer, "abcd", "int16", 3), 1, true)
    for _, f in ipairs({"frombuffer", "fromstring"}) do   -- one check of the arguments both begin with
      assert.matches("bad argument #1 to '" .. f .. "' (string expected, got number)", S.errof(gpu[f], 5), 1, true)
      assert.matches("bad argument #2 to '" .. f .. "' (unknown dtype 'i4'", S.errof(gpu[f], "abcd", "i4"), 1, true)
      assert.matches("bad argument #3 to '" .. f .. "' (count of -1 or more expected, got -2)",
                     S.errof(gpu[f], "abcd", "int8", -2), 1, true)
      local ok, e = pcall(function() local r = gpu[f]("abcd", "int8", 1.5); return r end)
      assert.is_false(ok)
      assert.matches("_spec%.lua:" .. debug.getinfo(1, "l").currentline - 2 .. ": bad argument #3 to '" .. f, e)
    end
    assert.matches("bad argument #1 to 'fromstring' (item 2 ('x') is not a float64 value)",
                   S.errof(gpu.fromstring, "1 x", "float64", -1, " "), 1, true)
    assert.matches("bad argument #1 to 'fromstring' (5 items requested, it holds 2)",
                   S.errof(gpu.fromstring, "1 2", "float64", 5, " "), 1, true)
    assert.matches("bad argument #3 to 'tofile' (one % conversion expected, got '%d %d')",
                   S.errof(function() gpu.host.zeros(2):tofile(p, " ", "%d %d") end), 1, true)
    os.remove(p)
  end)
end)

describe("gpu.savez_compressed #libzip", function()
  it("deflates the members, and loadz reads them and NumPy's compressed archives", function()
    local p = tmp()
    gpu.savez_compressed(p, {x = gpu.zeros(1000), y = gpu.host.array({1, 2, 3}, "int8"), gpu.host.array({true}, "bool")})
    local s = slurp(p)
    assert.is_true(#s < 1000, #s)   -- stored, x alone is 4128 bytes
    assert.are.equal(8, string.unpack("<I2", s, 9))   -- the first member's method: deflate
    local t = gpu.loadz(p)
    assert.matches("gpu.loadz: unknown option 'bogus' (it takes device)", S.errof(gpu.loadz, p, {bogus = 1}), 1, true)
    assert.are.equal(0, gpu.array(t.x):sum())
    assert.are.same({1, 2, 3}, t.y:totable())
    assert.are.same({true}, t.arr_0:totable())
    local z = gpu.loadz("spec/data/numpy_compressed.npz")   -- numpy.savez_compressed's
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, z.x:totable())
    assert.are.equal("int16", z.x.dtype)
    assert.are.same({1.5, -2.25, "nan"}, nan_table(z.y:totable()))
    assert.are.same({200}, z.z.shape)
    assert.matches("bad argument #2 to 'savez_compressed' (x is a number, not an array)",
                   S.errof(gpu.savez_compressed, p, {x = 1}), 1, true)
    os.remove(p)
  end)
end)

describe("text files: exact integers, NumPy's % and str (review fixes)", function()
  it("read int64 and uint64 in full, exactly (not through a float)", function()
    local p = tmp("9223372036854775809\n18446744073709551615\n")
    local u = gpu.loadtxt(p, {dtype = "uint64"})
    assert.are.same({math.mininteger + 1, -1}, u:totable())   -- their 64 bits
    assert.are.same({-1, math.mininteger + 1}, gpu.genfromtxt(tmp("18446744073709551615,9223372036854775809\n"),
                    {dtype = "uint64", delimiter = ","}):totable())
    assert.are.same({math.mininteger + 1, -1},
                    gpu.fromstring("9223372036854775809 18446744073709551615", "uint64", -1, " "):totable())
    assert.are.same({math.mininteger, math.maxinteger},
                    gpu.loadtxt(tmp("-9223372036854775808 9223372036854775807\n"), {dtype = "int64"}):totable())
    assert.are.same({-128, 127}, gpu.loadtxt(tmp("-128 127\n"), {dtype = "int8"}):totable())
    -- NumPy 1.24 wraps these (300 as uint8: 44); gpuhost names the line and column
    local q = tmp("1\n300\n")
    assert.are.equal("cannot read '" .. q .. "': line 2, column 1: '300' is out of range for uint8",
                     S.errof(gpu.loadtxt, q, {dtype = "uint8"}))
    q = tmp("18446744073709551616\n")
    assert.are.equal("cannot read '" .. q .. "': line 1, column 1: '18446744073709551616' is out of range for uint64",
                     S.errof(gpu.loadtxt, q, {dtype = "uint64"}))
    q = tmp("9223372036854775808\n")
    assert.are.equal("cannot read '" .. q .. "': line 1, column 1: '9223372036854775808' is out of range for int64",
                     S.errof(gpu.loadtxt, q, {dtype = "int64"}))
    q = tmp("1,300\n")
    assert.are.equal("cannot read '" .. q .. "': line 1, column 2: '300' is out of range for uint8",
                     S.errof(gpu.genfromtxt, q, {dtype = "uint8", delimiter = ","}))
    assert.matches("bad argument #1 to 'fromstring' (item 2 ('256') is out of range for uint8)",
                   S.errof(gpu.fromstring, "1,256", "uint8", -1, ","), 1, true)
  end)

  it("fill genfromtxt's missing unsigned values with -1 wrapped, as NumPy", function()
    local p = tmp("1,,3\n")
    assert.are.same({1, 255, 3}, gpu.genfromtxt(p, {dtype = "uint8", delimiter = ","}):totable())
    assert.are.same({1, 65535, 3}, gpu.genfromtxt(p, {dtype = "uint16", delimiter = ","}):totable())
    assert.are.same({1, -1, 3}, gpu.genfromtxt(p, {dtype = "uint64", delimiter = ","}):totable())
    assert.matches("bad argument #2 to 'genfromtxt' (options.filling_values -1 is out of range for uint8)",
                   S.errof(gpu.genfromtxt, p, {dtype = "uint8", delimiter = ",", filling_values = -1}), 1, true)
  end)

  it("read lines ended by \\r\\n, \\n or \\r", function()
    assert.are.same({{1, 2}, {3, 4}, {5, 6}}, gpu.loadtxt(tmp("1 2\r3 4\r\n5 6\n")):totable())
    assert.are.same({{1, 2}, {3, 4}}, gpu.loadtxt(tmp("1 2\r3 4\r")):totable())
  end)

  it("write uint64 past 2^63 exactly, and NumPy's %x %o %s", function()
    local p = tmp()
    local u = gpu.host.array({math.mininteger + 1, -1, 5}, "uint64")
    u:tofile(p, ",")
    assert.are.equal("9223372036854775809,18446744073709551615,5", slurp(p))
    u:tofile(p, ",", "%x")
    assert.are.equal("8000000000000001,ffffffffffffffff,5", slurp(p))
    u:tofile(p, ",", "%o")
    assert.are.equal("1000000000000000000001,1777777777777777777777,5", slurp(p))
    gpu.savetxt(p, u, {fmt = "%22d"})
    assert.are.equal("   9223372036854775809\n  18446744073709551615\n                     5\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({0.1 + 0.2, 1e20, 1e-5, 0 / 0, math.huge, -math.huge, 2}, "float64"), {fmt = "%s"})
    assert.are.equal("0.30000000000000004\n1e+20\n1e-05\nnan\ninf\n-inf\n2.0\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({0.1, 1 / 3}, "float32"), {fmt = "%s"})
    assert.are.equal("0.1\n0.33333334\n", slurp(p))
    -- the form by the value, as NumPy's str(np.float32(1e-4)): 9.9999997e-05 is below 1e-4
    gpu.savetxt(p, gpu.host.array({1e-4, -1e-4, 2.5e-4, 1e16, 0}, "float32"), {fmt = "%s"})
    assert.are.equal("1e-04\n-1e-04\n0.00025\n1e+16\n0.0\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({1e-4, 1e16}, "float64"), {fmt = "%s"})
    assert.are.equal("0.0001\n1e+16\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({1e-4}, "float16"), {fmt = "%s"})
    assert.are.equal("0.0001\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({true, false}, "bool"), {fmt = "%s"})
    assert.are.equal("True\nFalse\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({0.5}, "float64"), {fmt = "%10s"})
    assert.are.equal("       0.5\n", slurp(p))
    -- tofile makes a Python float of a float32 first, as NumPy 1.24
    gpu.host.array({0.1, 1 / 3, 2}, "float32"):tofile(p, ",")
    assert.are.equal("0.10000000149011612,0.3333333432674408,2.0", slurp(p))
    gpu.host.array({0.1, 1 / 3}, "float32"):tofile(p, ",", "%s")
    assert.are.equal("0.10000000149011612,0.3333333432674408", slurp(p))
    gpu.host.array({true, false}, "bool"):tofile(p, ",")
    assert.are.equal("True,False", slurp(p))
    local n = gpu.host.array({-255, 255, 8}, "int64")
    local want = {["%x"] = "-ff\nff\n8\n", ["%X"] = "-FF\nFF\n8\n", ["%o"] = "-377\n377\n10\n",
                  ["%#o"] = "-0o377\n0o377\n0o10\n", ["%#x"] = "-0xff\n0xff\n0x8\n", ["%#X"] = "-0XFF\n0XFF\n0X8\n",
                  ["%6x"] = "   -ff\n    ff\n     8\n", ["%06x"] = "-000ff\n0000ff\n000008\n",
                  ["%-6x"] = "-ff   \nff    \n8     \n", ["%+05d"] = "-0255\n+0255\n+0008\n", ["%.4d"] = "-0255\n0255\n0008\n"}
    for fmt, text in pairs(want) do
      gpu.savetxt(p, n, {fmt = fmt})
      assert.are.equal(text, slurp(p), fmt)
    end
    gpu.savetxt(p, gpu.host.array({5}, "int32"), {fmt = "%120d"})
    assert.are.equal((" "):rep(119) .. "5\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({0.5}, "float64"), {fmt = "%105.2f"})
    assert.are.equal((" "):rep(101) .. "0.50\n", slurp(p))
    assert.matches("bad argument #3 to 'savetxt' (options.fmt '%x': %x format: an integer is required, not float)",
                   S.errof(gpu.savetxt, p, gpu.host.array({1.5}, "float64"), {fmt = "%x"}), 1, true)
    assert.matches("bad argument #3 to 'tofile' (format '%o': %o format: an integer is required, not float)",
                   S.errof(function() gpu.host.array({2}, "float64"):tofile(p, ",", "%o") end), 1, true)
    gpu.savetxt(p, gpu.host.array({0.1, -2}, "float64"), {fmt = "%.120f"})
    assert.are.equal("0.1000000000000000055511151231257827021181583404541015625" .. ("0"):rep(65) .. "\n-2." ..
                     ("0"):rep(120) .. "\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({0.1}, "float64"), {fmt = "%.105e"})
    assert.are.equal("1.000000000000000055511151231257827021181583404541015625" .. ("0"):rep(51) .. "e-01\n", slurp(p))
    assert.matches("bad argument #3 to 'savetxt' (options.fmt '%.120g': precision 120 of %g is past the most supported, 99)",
                   S.errof(gpu.savetxt, p, gpu.host.array({0.1}, "float64"), {fmt = "%.120g"}), 1, true)
    -- %c as Python's: the character (UTF-8 in a file, as numpy.savetxt writes a path), the
    -- width in characters, no precision; past U+10FFFF, and widths past a C int, errors
    gpu.savetxt(p, gpu.host.array({65, 300, 200}, "int32"), {fmt = "%-3c|"})
    assert.are.equal("A  |\n\u{12c}  |\n\u{c8}  |\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({{65, 66}}, "int32"), {fmt = "%05c"})
    assert.are.equal("    A     B\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({65}, "int32"), {fmt = "%.100c"})
    assert.are.equal("A\n", slurp(p))
    assert.matches("%c arg not in range(0x110000)",
                   S.errof(gpu.savetxt, p, gpu.host.array({0x110000}, "int64"), {fmt = "%c"}), 1, true)
    assert.matches("options.fmt '%99999999999999999999d': width too big",
                   S.errof(gpu.savetxt, p, gpu.host.array({1}, "int64"), {fmt = "%99999999999999999999d"}), 1, true)
    assert.matches("precision too big",
                   S.errof(gpu.savetxt, p, gpu.host.array({1}, "float64"), {fmt = "%.99999999999999999999f"}), 1, true)
    -- a width Python takes but Lua's string.rep cannot make (past a C int) said
    -- '[gpu] lua/npy.lua:371: resulting string too large'
    for _, w in ipairs({"9223372036854775807", "4611686018427387904", "2147483648"}) do
      assert.matches(("bad argument #3 to 'savetxt' (options.fmt '%%%sd': width too big)"):format(w),
                     S.errof(gpu.savetxt, p, gpu.host.array({1}, "int64"), {fmt = "%" .. w .. "d"}), 1, true)
      assert.matches(("bad argument #3 to 'tofile' (format '%%%sd': width too big)"):format(w),
                     S.errof(function() return gpu.array({1}, "int64"):tofile(p, " ", "%" .. w .. "d") end), 1, true)
    end
    os.remove(p)
  end)

  it("refuse counts past the bytes there, and unknown options of load and loadz", function()
    assert.matches("bad argument #1 to 'frombuffer' (2305843009213693952 float64 elements need more than " ..
                   "9223372036854775807 bytes after offset 0, it has 8)",
                   S.errof(gpu.frombuffer, "abcdefgh", "float64", 2 ^ 61), 1, true)
    local p = tmp("abcdefgh")
    assert.matches("cannot read '" .. p .. "': 1152921504606846976 float64 elements need more than 9223372036854775807 bytes",
                   S.errof(gpu.fromfile, p, "float64", 2 ^ 60), 1, true)
    gpu.save(p, gpu.host.array({1, 2}, "float64"))
    assert.matches("unknown option 'bogus'", S.errof(gpu.load, p, {bogus = 1}), 1, true)
    assert.are.same({1, 2}, gpu.load(p, {device = false}):totable())
    os.remove(p)
  end)
end)

describe("text files and print options as NumPy's (second review)", function()
  it("genfromtxt: bool reads True and False, fills false; lines stripped before splitting", function()
    local h = gpu.genfromtxt(tmp("True,,False,1,0,true,2\n"), {delimiter = ",", dtype = "bool"})
    assert.are.same({true, false, false, false, false, true, false}, h:totable())
    assert.are.same({{1, 2}, {3, 4}}, gpu.genfromtxt(tmp("1 2\n 3 4 \n"), {delimiter = " "}):totable())
  end)

  it("loadtxt of no rows has usecols' columns", function()
    local p = tmp("# nothing\n")
    assert.are.same({0, 2}, gpu.loadtxt(p, {usecols = {1, 2}}).shape)
    assert.are.same({0, 2}, gpu.loadtxt(p, {usecols = {1, 2}, ndmin = 2}).shape)
    assert.are.same({0}, gpu.loadtxt(p).shape)
  end)

  it("savetxt and tofile: uint64 past 2^63 rounded once, Python's nan and inf, comments with %, no columns", function()
    local p = tmp()
    local u = gpu.host.array({-5304228560262686084, -1}, "uint64")
    gpu.savetxt(p, u, {fmt = "%.1f"})
    assert.are.equal("13142515513446864896.0\n18446744073709551616.0\n", slurp(p))
    local x = gpu.host.array({{0 / 0, 1 / 0, -1 / 0}}, "float64")
    for f, want in pairs({["%+E"] = "+NAN|+INF|-INF", ["% f"] = " nan| inf|-inf", ["%08.3f"] = "00000nan|00000inf|-0000inf",
                          ["%-5F"] = "NAN  |INF  |-INF ", ["%+08g"] = "+0000nan|+0000inf|-0000inf"}) do
      gpu.savetxt(p, x, {fmt = f, delimiter = "|"})
      assert.are.equal(want .. "\n", slurp(p), f)
    end
    gpu.savetxt(p, gpu.host.zeros(1), {fmt = "%d", header = "a\nb", footer = "c", comments = "%1 "})
    assert.are.equal("%1 a\n%1 b\n0\n%1 c\n", slurp(p))
    gpu.savetxt(p, gpu.host.zeros({2, 0}), {fmt = "%d"})
    assert.are.equal("\n\n", slurp(p))
  end)

  it("a failed write names write's error, not the signal wait's", function()
    local ok, e = pcall(function()
      local f = assert(io.popen("ulimit -f 1; " .. S.gpuhost .. " -e 'local ok, e = pcall(gpu.save, \"" .. tmp() .. "\", gpu.zeros(10000)) print(e)' 2>&1"))
      local out = f:read("a"); f:close(); return out
    end)
    assert.is_true(ok)
    assert.matches("File too large", e, 1, true)
  end)

  it("array2string pads True, and format_float_* trim min_digits' zeros, as NumPy's", function()
    assert.are.equal("[ True  True]", gpu.array2string(gpu.array({1, 1}, "bool")))
    assert.are.equal("[[ True]]", gpu.array2string(gpu.array({{1}}, "bool")))
    assert.are.equal("True", gpu.array2string(gpu.full({}, true, "bool")))
    local P, Sc = gpu.format_float_positional, gpu.format_float_scientific
    assert.are.equal("0.125", P(0.125, {precision = 10, min_digits = 10, trim = "-"}))
    assert.are.equal("0.1250000000", P(0.125, {precision = 10, min_digits = 10}))
    assert.are.equal("1.5e+00", Sc(1.5, {precision = 5, min_digits = 4, trim = "-"}))
    assert.are.equal("1    ", P(1.0, {trim = "-", pad_right = 3}))
    assert.are.equal("2.000", P(1.5, {precision = 0, min_digits = 3}))
    assert.are.equal("2.", P(1.5, {precision = 0, min_digits = 2, unique = false}))   -- min_digits: unique only
    assert.are.equal("2.00e+00", Sc(1.5, {precision = 0, min_digits = 2}))
    assert.are.equal("1.e+00", Sc(1.0, {min_digits = 3, trim = "-"}))
    assert.are.equal("2e+00", Sc(1.5, {precision = 0, min_digits = 3, trim = "-"}))
    local p = tmp()
    gpu.savetxt(p, gpu.host.array({1.5, 0 / 0}, "float64"), {fmt = "%F"})   -- Lua has no %F
    assert.are.equal("1.500000\nNAN\n", slurp(p))
  end)
end)

describe("text readers as NumPy's (third review)", function()
  it("genfromtxt fills a missing float with NumPy's NaN, its sign bit clear", function()
    local p = tmp("1,,3\n")
    assert.are.equal(string.pack("<d", 1) .. "\0\0\0\0\0\0\xf8\x7f" .. string.pack("<d", 3),
                     gpu.genfromtxt(p, {delimiter = ","}):bytes())
    assert.are.equal("\0\0\xc0\x7f", gpu.genfromtxt(p, {delimiter = ",", dtype = "float32"}):bytes():sub(5, 8))
    os.remove(p)
  end)

  it("fromstring and fromfile read a separator at the end, as NumPy; messages escape control characters", function()
    assert.are.same({1, 2, 3}, gpu.fromstring("1,2,3,", "int32", -1, ","):totable())
    local p = tmp("1,2,3,\n")
    assert.are.same({1, 2, 3}, gpu.fromfile(p, "int32", -1, ","):totable())
    assert.matches("bad argument #1 to 'fromstring' (item 4 ('') is not a int32 value)",
                   S.errof(gpu.fromstring, "1,2,3,,", "int32", -1, ","), 1, true)
    p = tmp("1,2x\n,3\n")
    assert.are.equal("cannot read '" .. p .. "': item 2 ('2x\\n') is not a int32 value", S.errof(gpu.fromfile, p, "int32", -1, ","))
    p = tmp("1;2\n3;4\1\27x\n")
    assert.are.equal("cannot read '" .. p .. "': line 2, column 2: '4\\x01\\x1bx' is not a float64 value",
                     S.errof(gpu.loadtxt, p, {delimiter = ";"}))
    os.remove(p)
  end)

  it("fromfile refuses an offset with a separator, as NumPy", function()
    local p = tmp("10 20 30")
    assert.matches("bad argument #5 to 'fromfile' (an offset is only for binary files, with sep \"\" or nil)",
                   S.errof(gpu.fromfile, p, "int32", -1, " ", 100), 1, true)
    assert.matches("bad argument #5 to 'fromfile' (an offset is only for binary files",
                   S.errof(gpu.fromfile, p, "int32", -1, " ", 1), 1, true)
    assert.are.same({10, 20, 30}, gpu.fromfile(p, "int32", -1, " ", 0):totable())
    os.remove(p)
  end)

  it("genfromtxt refuses skip_footer with max_rows, reads Python's 1_000 (loadtxt does not), names a fill that is no integer", function()
    local p = tmp("1 2\n3 4\n5 6\n")
    assert.matches("bad argument #2 to 'genfromtxt' (options.skip_footer and options.max_rows cannot be given together)",
                   S.errof(gpu.genfromtxt, p, {skip_footer = 1, max_rows = 2}), 1, true)
    assert.are.same({{1, 2}, {3, 4}}, gpu.genfromtxt(p, {skip_footer = 0, max_rows = 2}):totable())
    p = tmp("1_000 2 1e1_0 1_0.2_5 1__0 _2 2_ 1_e5\n")
    assert.are.same({1000, 2, 1e10, 10.25, "nan", "nan", "nan", "nan"}, nan_table(gpu.genfromtxt(p):totable()))
    assert.are.same({1000, -20}, gpu.genfromtxt(tmp("1_000 -2_0\n"), {dtype = "int32"}):totable())
    assert.are.equal("cannot read '" .. p .. "': line 1, column 1: '1_000' is not a float64 value", S.errof(gpu.loadtxt, p))
    p = tmp("1,,3\n")
    assert.matches("bad argument #2 to 'genfromtxt' (options.filling_values 1.5 is not an integer, which int32 needs)",
                   S.errof(gpu.genfromtxt, p, {delimiter = ",", dtype = "int32", filling_values = 1.5}), 1, true)
    assert.matches("bad argument #2 to 'genfromtxt' (options.filling_values 1000 is out of range for int8)",
                   S.errof(gpu.genfromtxt, p, {delimiter = ",", dtype = "int8", filling_values = 1000}), 1, true)
    assert.are.same({1, 2, 3}, gpu.genfromtxt(p, {delimiter = ",", dtype = "int32", filling_values = 2.0}):totable())
    os.remove(p)
  end)

  -- NumPy 2.4's, on these UTF-8 files; before: only ASCII's spaces were stripped or split
  -- at ([[nan, nan], [3, 4]] and "' 1.5' is not a float64 value" for the first)
  it("strip Unicode whitespace around a field and split at it, as NumPy's", function()
    local p = tmp("\u{a0}1.5,2\u{3000}\n3,4\n")
    for _, f in ipairs({gpu.loadtxt, gpu.genfromtxt}) do
      assert.are.same({{1.5, 2}, {3, 4}}, f(p, {delimiter = ","}):totable())
    end
    -- \x1c to \x1f: Python's whitespace, which loadtxt strips and float() (genfromtxt) does not
    p = tmp("\u{3000}-1.5e3\u{2003},\u{a0}inf\x1c\n3,4\u{85}\n")
    assert.are.same({{-1500, math.huge}, {3, 4}}, gpu.loadtxt(p, {delimiter = ","}):totable())
    assert.are.same({{-1500, "nan"}, {3, 4}}, nan_table(gpu.genfromtxt(p, {delimiter = ","}):totable()))
    -- no delimiter: runs of any of it split, and a line of it alone is blank
    p = tmp("1 \u{2028} 2\x1f\n\u{3000}\n3\u{85}4\u{202f}\n")
    for _, f in ipairs({gpu.loadtxt, gpu.genfromtxt}) do
      assert.are.same({{1, 2}, {3, 4}}, f(p):totable())
    end
    -- other characters stay (U+200B is no space to Python); a field of more is still quoted whole
    p = tmp("\u{200b}1,2\n")
    assert.are.equal("cannot read '" .. p .. "': line 1, column 1: '\u{200b}1' is not a float64 value",
                     S.errof(gpu.loadtxt, p, {delimiter = ","}))
    assert.are.same({{"nan", 2}}, nan_table(gpu.genfromtxt(p, {delimiter = ",", ndmin = 2}):totable()))
    os.remove(p)
  end)
end)

describe("print options", function()
  local function h64(t) return gpu.host.array(t, "float64") end

  it("leave the default print as it was, and change it as NumPy's do", function()
    assert.are.equal("gpu.hostarray(float64, {3}) [1.5, -2.25, 0.3333333333333333]", tostring(h64({1.5, -2.25, 1 / 3})))
    gpu.printoptions({precision = 3}, function()
      assert.are.equal("gpu.hostarray(float64, {3}) [ 1.5  , -2.25 ,  0.333]", tostring(h64({1.5, -2.25, 1 / 3})))
      assert.are.equal("gpu.hostarray(float64, {2, 2})\n[[ 1.500e+00, -2.250e+00],\n [ 3.333e-01,  1.000e+09]]",
                       tostring(h64({{1.5, -2.25}, {1 / 3, 1e9}})))
      assert.are.equal("gpu.hostarray(complex128, {2}) [ 1. +2.j  , -0.5+0.25j]",
                       tostring(gpu.host.array({gpu.complex(1, 2), gpu.complex(-0.5, 0.25)}, "complex128")))
      assert.are.equal(3, gpu.get_printoptions().precision)
      assert.are.equal("maxprec", gpu.get_printoptions().floatmode)
    end)
    assert.are.equal(8, gpu.get_printoptions().precision)
    assert.are.equal("shortest", gpu.get_printoptions().floatmode)
    local ok = pcall(gpu.printoptions, {threshold = 5}, function() error("x") end)
    assert.is_false(ok)
    assert.are.equal(1000, gpu.get_printoptions().threshold)   -- restored on error too
    assert.are.equal("gpu.hostarray(int32, {10}) [0, 1, 2, 3, 4, 5, ..., 7, 8, 9]",
                     tostring(gpu.host.array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "int32")))
    gpu.printoptions({threshold = 5, edgeitems = 2}, function()
      assert.are.equal("gpu.hostarray(int32, {10}) [0, 1, ..., 8, 9]",
                       tostring(gpu.host.array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "int32")))
    end)
    gpu.set_printoptions({nanstr = "NaN", infstr = "Inf", sign = "+"})
    assert.are.equal("gpu.hostarray(float64, {3}) [+NaN, -Inf, +1.25]", tostring(h64({0 / 0, -math.huge, 1.25})))
    gpu.set_printoptions({nanstr = "nan", infstr = "inf", sign = "-"})
  end)

  -- A coroutine suspended in f and then closed left f's options set for the rest of the
  -- process (a pcall put them back, which a close skips); a callable f was refused
  it("come back when a coroutine suspended in gpu.printoptions' f is closed, or f raises in one", function()
    local co = coroutine.create(function() gpu.printoptions({precision = 2}, coroutine.yield) end)
    coroutine.resume(co)
    assert.are.equal(2, gpu.get_printoptions().precision)
    assert.is_true(coroutine.close(co))
    assert.are.equal(8, gpu.get_printoptions().precision)
    co = coroutine.create(function() gpu.printoptions({precision = 3}, function() error({code = 7}) end) end)
    local ok, e = coroutine.resume(co)
    assert.are.same({false, 7, 8}, {ok, e.code, gpu.get_printoptions().precision})
    local show = setmetatable({}, {__call = function(_, x) return tostring(x), gpu.get_printoptions().precision end})
    assert.are.same({"gpu.hostarray(float64, {1}) [0.33]", 2}, {gpu.printoptions({precision = 2}, show, h64({1 / 3}))})
    assert.are.equal(8, gpu.get_printoptions().precision)
  end)

  it("give NumPy's array2string", function()
    assert.are.equal("[0.1  0.25 1.    nan -inf]", gpu.array2string(h64({0.1, 0.25, 1, 0 / 0, -math.huge}), {floatmode = "maxprec"}))
    assert.are.equal("[  0.    1.5 100. ]", gpu.array2string(h64({1e-6, 1.5, 100}), {precision = 4, suppress = true}))
    assert.are.equal("[ 1.5  2. ]", gpu.array2string(h64({1.5, 2}), {sign = " ", floatmode = "maxprec"}))
    assert.are.equal("[1.500 2.000]", gpu.array2string(h64({1.5, 2}), {floatmode = "fixed", precision = 3}))
    assert.are.equal("[0.10 0.25 1.00]", gpu.array2string(h64({0.1, 0.25, 1}), {floatmode = "maxprec_equal"}))
    assert.are.equal("[1.   2.5  3.25]", gpu.array2string(gpu.host.array({1, 2.5, 3.25}, "float32"), {floatmode = "unique"}))
    assert.are.equal("[0, 1, ..., 8, 9]", gpu.array2string(gpu.host.array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "int32"),
                                                          {threshold = 5, edgeitems = 2, separator = ", "}))
    -- edgeitems = 0: NumPy 1.24 still shows the last (it printed as an empty array)
    local ten = gpu.host.array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, "int32")
    assert.are.equal("[... 9]", gpu.array2string(ten, {threshold = 3, edgeitems = 0}))
    assert.are.equal("[...\n [... 9]]", gpu.array2string(ten:reshape(2, 5), {threshold = 3, edgeitems = 0}))
    assert.are.equal("[[ 0,  1,\n   2,  3],\n [ 4,  5,\n   6,  7],\n [ 8,  9,\n  10, 11]]",
                     gpu.array2string(gpu.host.array({{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}, "int64"),
                                      {linewidth = 12, separator = ", "}))
    local wrapped = gpu.array2string(gpu.arange(100), {linewidth = 40, floatmode = "maxprec"})
    assert.are.equal("[ 0.  1.  2.  3.  4.  5.  6.  7.  8.\n  9. 10. 11. 12. 13. 14. 15. 16. 17.",
                     wrapped:match("^[^\n]*\n[^\n]*"))
    assert.are.equal(" 99.]", wrapped:sub(-5))
    assert.are.equal("3.5", gpu.array_str(gpu.host.array({3.5}, "float64"):reshape({})))
    -- a 1-D line's values padded to one width, as NumPy's: np.array2string(np.array([1, 2**64 - 1,
    -- 7, 2**63], np.uint64)) (max_line_width=50), np.array2string(np.arange(2000)), int16 [5, -300, 12]
    local big = gpu.array({1, -1, 7, math.mininteger}, "int64"):astype("uint64")   -- 2^64 - 1, 2^63
    assert.are.equal("[                   1 18446744073709551615                    7\n  9223372036854775808]",
                     gpu.array2string(big))
    assert.are.equal("[                   1 18446744073709551615\n                    7  9223372036854775808]",
                     gpu.array2string(big, {linewidth = 50}))
    assert.are.equal("[                   1, 18446744073709551615]", gpu.array2string(big[{{1, 2}}], {separator = ", "}))
    assert.are.equal("[   0    1    2 ... 1997 1998 1999]", gpu.array2string(gpu.arange(2000, "int64")))
    assert.are.equal("[   5 -300   12]", gpu.array_str(gpu.array({5, -300, 12}, "int16")))
    -- NumPy's wrapping with a separator's tail (a value may end a column before the width,
    -- not two) and its True and False: np.array2string(np.arange(-5, 12, dtype=np.int32),
    -- max_line_width=20, separator=', '), the same of arange(-6, 6).reshape(2, 6) at 12
    assert.are.equal("[-5, -4, -3, -2, -1,\n  0,  1,  2,  3,  4,\n  5,  6,  7,  8,  9,\n 10, 11]",
                     gpu.array2string(gpu.arange(-5, 12, "int32"), {linewidth = 20, separator = ", "}))
    assert.are.equal("[[-6, -5,\n  -4, -3,\n  -2, -1],\n [ 0,  1,\n   2,  3,\n   4,  5]]",
                     gpu.array2string(gpu.arange(-6, 6, "int64"):reshape(2, 6), {linewidth = 12, separator = ", "}))
    local flags = gpu.array({true, false, true}, "bool")
    assert.are.equal("[ True False  True]", gpu.array2string(flags))
    assert.are.equal("[[ True],\n [False]]", gpu.array2string(flags[{{1, 2}}]:reshape(2, 1), {separator = ","}))
    assert.are.equal("True", gpu.array_str(flags[{1}]))
    assert.are.equal("gpu.array(bool, {3}) [true, false, true]", tostring(flags))   -- gpuhost's own
    assert.are.equal("gpu.array(uint64, {2}) [1, 18446744073709551615]", tostring(big[{{1, 2}}]))   -- gpuhost's own
    assert.are.equal(tostring(gpu.arange(3)), gpu.array_repr(gpu.arange(3)))
  end)

  it("give NumPy's format_float_positional and format_float_scientific", function()
    -- precisions past Lua's 99, NaN without "+", min_digits past precision (NumPy 1.24's)
    assert.are.equal("0.1000000000000000055511151231257827021181583404541015625" .. ("0"):rep(145),
                     gpu.format_float_positional(0.1, {precision = 200, unique = false}))
    assert.are.equal("1.000000000000000055511151231257827021181583404541015625" .. ("0"):rep(146) .. "e-01",
                     gpu.format_float_scientific(0.1, {precision = 200, unique = false}))
    assert.are.equal("4.940656458412465441765687928682213723650598026143247644255856825006755072702087518652998363616359924e-324",
                     gpu.format_float_scientific(5e-324, {precision = 99, unique = false}))
    assert.are.equal("3.333333333333333148296162562473909929394721984863281250000e-01",
                     gpu.format_float_scientific(1 / 3, {precision = 57, unique = false}))
    assert.are.equal("0.1", gpu.format_float_positional(0.1, {precision = 200}))
    assert.are.equal("[0.1  0.25]", gpu.array2string(gpu.host.array({0.1, 0.25}, "float64"), {precision = 1000}))
    assert.are.equal("[0.1000000000000000055511151231257827021181583404541015625" .. ("0"):rep(945) .. "\n 0.25" .. ("0"):rep(998) .. "]",
                     gpu.array2string(gpu.host.array({0.1, 0.25}, "float64"), {precision = 1000, floatmode = "fixed"}))
    assert.are.same({"nan", "nan", "+inf"}, {gpu.format_float_positional(0 / 0, {sign = true}),
                    gpu.format_float_scientific(0 / 0, {sign = true}), gpu.format_float_positional(math.huge, {sign = true})})
    assert.matches("bad argument #2 to 'format_float_scientific' (min_digits must be less than or equal to precision)",
                   S.errof(gpu.format_float_scientific, 1 / 3, {precision = 2, min_digits = 5}), 1, true)
    assert.matches("bad argument #2 to 'format_float_positional' (min_digits must be less than or equal to precision)",
                   S.errof(gpu.format_float_positional, 1 / 3, {precision = 2, min_digits = 5}), 1, true)
    assert.are.equal("3.333333333333333e-01", gpu.format_float_scientific(1 / 3, {min_digits = 5}))
    local P, E = gpu.format_float_positional, gpu.format_float_scientific
    assert.are.same({"3.1416", "0.5", "0.500", "2.0", "-0.", "100000000000000000000.", "0.12", "  +1.5  ", "0.1", "1.", "0.10000"},
                    {P(math.pi, {precision = 4}), P(0.5, {trim = "-"}), P(0.5, {precision = 3, unique = false}),
                     P(2.0, {trim = "0"}), P(-0.0), P(1e20), P(0.125, {precision = 2}),
                     P(1.5, {sign = true, pad_left = 4, pad_right = 3}), P(0.15, {precision = 1}), P(1), P(0.1, {min_digits = 5})})
    assert.are.same({"3.1416e+00", "1.23456e+05", "5.000e-01", "1.5e+00", "1.e-300", "+1.e+005", "1.23e+04"},
                    {E(math.pi, {precision = 4}), E(123456.0), E(0.5, {precision = 3, unique = false}), E(1.5, {trim = "-"}),
                     E(1e-300), E(1e5, {exp_digits = 3, sign = true}), E(12345.678, {precision = 2})})
    assert.are.same({"nan", "-inf", "+inf"}, {P(0 / 0), E(-math.huge), P(math.huge, {sign = true})})
    assert.are.same({"1.", "1.00", "1.1", "0.50", "1.e+01", "1.e+5", "1.e+100"},   -- rounding at the cutoff
                    {P(0.999, {precision = 2}), P(0.999, {precision = 2, min_digits = 2}), P(1.05, {precision = 1}),
                     P(0.5, {precision = 3, min_digits = 2}), E(9.99, {precision = 1}), E(1e5, {exp_digits = 1}),
                     E(1e100, {exp_digits = 1})})
    assert.are.same({"-0.00", "2712643.5882170", "1.e-03", "1e+00", "1.e+00"},   -- dragon4's ways, as NumPy's
                    {P(-4.6316986495237e-07, {precision = 2}), P(2712643.5882170154, {precision = 7}),
                     E(0.0010000000474974513, {precision = 1, trim = "-"}), E(1.0, {precision = 3, unique = false, trim = "-"}),
                     E(1.0000001, {precision = 3, unique = false, trim = "-"})})
    -- (NumPy 1.24: "[-82148704. -69023144.]"; NumPy 2.3 on write float32 past 1e6 in scientific form)
    assert.are.equal("[-8.2148704e+07 -6.9023144e+07]", gpu.array2string(gpu.host.array({-82148704, -69023144}, "float32"), {floatmode = "maxprec"}))
    assert.are.equal("[-11992.889021052233    +745.1622877146342\n  +5766.895836701853 ]",
                     gpu.array2string(h64({-11992.889021052233, 745.1622877146342, 5766.895836701853}),
                                      {floatmode = "unique", sign = "+", linewidth = 60}))
    assert.are.equal("[1.  0.5]", gpu.array2string(h64({0.999, 0.5}), {precision = 2}))
    assert.are.equal("[1.0 0.5]", gpu.array2string(h64({0.999, 0.5}), {precision = 2, floatmode = "maxprec_equal"}))
  end)

  it("refuse bad options", function()
    assert.matches("bad argument #1 to 'set_printoptions' (options.precision must be a non-negative integer, got -1)",
                   S.errof(gpu.set_printoptions, {precision = -1}), 1, true)
    assert.matches("bad argument #1 to 'set_printoptions' (options.floatmode must be 'shortest', 'fixed', 'unique', 'maxprec' or 'maxprec_equal', got 'exact')",
                   S.errof(gpu.set_printoptions, {floatmode = "exact"}), 1, true)
    assert.matches("gpu.set_printoptions: unknown option 'precission' (it takes edgeitems, floatmode, infstr, linewidth, nanstr, precision, sign, suppress, threshold)",
                   S.errof(gpu.set_printoptions, {precission = 3}), 1, true)
    assert.matches("bad argument #1 to 'set_printoptions' (options table expected, got number)",
                   S.errof(gpu.set_printoptions, 3), 1, true)
    assert.matches("bad argument #2 to 'printoptions' (function or callable value expected, got nil)",
                   S.errof(gpu.printoptions, {}), 1, true)
    assert.matches("bad argument #1 to 'array2string' (array expected, got table)", S.errof(gpu.array2string, {}), 1, true)
    assert.matches("bad argument #1 to 'format_float_positional' (number expected, got string)",
                   S.errof(gpu.format_float_positional, "1"), 1, true)
    assert.matches("bad argument #2 to 'format_float_scientific' (options.precision is needed when unique is false)",
                   S.errof(gpu.format_float_scientific, 1, {unique = false}), 1, true)
    assert.are.equal(8, gpu.get_printoptions().precision)
  end)
end)

describe("text files and printing as NumPy 2.4's (fourth review)", function()
  it("savetxt and tofile: %d of a float past int64 keeps Python's flags, width and precision", function()
    local p = tmp()
    local x = gpu.host.array({1e20, -1e20}, "float64")
    -- Python's '%025d' % 1e20 and the rest (the 0 and space flags and the precision were lost)
    for f, want in pairs({["%025d"] = "0000100000000000000000000|-000100000000000000000000",
                          ["% d"] = " 100000000000000000000|-100000000000000000000",
                          ["%.30d"] = "000000000100000000000000000000|-000000000100000000000000000000",
                          ["%+030i"] = "+00000000100000000000000000000|-00000000100000000000000000000",
                          ["% 030.25u"] = " 00000000100000000000000000000|-00000000100000000000000000000",
                          ["%-25d"] = "100000000000000000000    |-100000000000000000000   ",
                          ["%010.5d"] = "100000000000000000000|-100000000000000000000",
                          ["%#d"] = "100000000000000000000|-100000000000000000000"}) do
      gpu.savetxt(p, x:reshape({1, 2}), {fmt = f, delimiter = "|"})
      assert.are.equal(want .. "\n", slurp(p), f)
      x:tofile(p, "|", f)
      assert.are.equal(want, slurp(p), f)
    end
    os.remove(p)
  end)

  it("savetxt refuses %x %X %o %c of a bool array, as NumPy 2.4's; tofile writes 1 and 0, as NumPy's", function()
    local p = tmp()
    local b = gpu.host.array({true, false}, "bool")
    for _, f in ipairs({"%x", "%X", "%o"}) do
      assert.matches(("bad argument #3 to 'savetxt' (options.fmt '%s': %s format: an integer is required, not bool)"):format(f, f),
                     S.errof(gpu.savetxt, p, b, {fmt = f}), 1, true)
      b:tofile(p, ",", f)
      assert.are.equal("1,0", slurp(p), f)
    end
    assert.matches("bad argument #3 to 'savetxt' (options.fmt '%d %c': %c requires an int or a unicode character, not bool)",
                   S.errof(gpu.savetxt, p, b:reshape({1, 2}), {fmt = {"%d", "%c"}}), 1, true)
    b:tofile(p, ",", "%c")
    assert.are.equal("\1,\0", slurp(p))
    gpu.savetxt(p, b, {fmt = "%d"})
    assert.are.equal("1\n0\n", slurp(p))
    gpu.savetxt(p, b, {fmt = "%5.2f"})
    assert.are.equal(" 1.00\n 0.00\n", slurp(p))
    os.remove(p)
  end)

  it("savetxt writes complex arrays as NumPy's", function()
    local p, C = tmp(), gpu.complex
    local z = gpu.host.array({C(1, 2), C(-3.5, -0.25)}, "complex128")
    gpu.savetxt(p, z)
    assert.are.equal(" (1.000000000000000000e+00+2.000000000000000000e+00j)\n" ..
                     " (-3.500000000000000000e+00-2.500000000000000000e-01j)\n", slurp(p))
    gpu.savetxt(p, gpu.host.array({{C(1, 2), C(-3.5, -0.25)}, {C(0 / 0, 1 / 0), C(0.1, -1 / 0)}}, "complex128"),
                {fmt = "%.3f", delimiter = ","})
    assert.are.equal(" (1.000+2.000j), (-3.500-0.250j)\n (nan+infj), (0.100-infj)\n", slurp(p))
    local z2 = gpu.array({{C(0.1, 2), C(-3.5, -0.25)}}, "complex64")   -- (a device array too)
    gpu.savetxt(p, z2, {fmt = "%s"})
    assert.are.equal(" (0.1+2.0j)  (-3.5-0.25j)\n", slurp(p))
    gpu.savetxt(p, z2, {fmt = {"%.2f+%.2fj", "%g%+gj"}})
    assert.are.equal("0.10+2.00j -3.5-0.25j\n", slurp(p))
    gpu.savetxt(p, z2, {fmt = "%d,%d;%.1e|%+.1e", header = "h"})
    assert.are.equal("# h\n0,2;-3.5e+00|-2.5e-01\n", slurp(p))
    gpu.savetxt(p, z2, {fmt = "%+.1f"})   -- ("++" stays, as NumPy's)
    assert.are.equal(" (+0.1++2.0j)  (-3.5-0.2j)\n", slurp(p))
    gpu.savetxt(p, gpu.host.zeros({2, 0}, "complex128"), {fmt = "%d"})
    assert.are.equal("\n\n", slurp(p))
    assert.matches("bad argument #3 to 'savetxt' (options.fmt '%d %d' has not one % conversion or two per complex column (2))",
                   S.errof(gpu.savetxt, p, z2, {fmt = "%d %d"}), 1, true)
    assert.matches("bad argument #3 to 'savetxt' (options.fmt '%x': %x format: an integer is required, not float)",
                   S.errof(gpu.savetxt, p, z, {fmt = "%x"}), 1, true)
    os.remove(p)
  end)
end)

describe("text with long runs (linear time)", function()
  it("trims lines and fields in one pass, and shows a long field's first 60 bytes", function()
    -- a lazy (.-) before %s*$ rescanned an inner run of spaces from each of its places:
    -- this genfromtxt took 2.6 s and the loadtxt 7.6 s, whose message quoted all 20 KB
    local run = (" "):rep(20000)
    local p = tmp("1," .. run .. ",2\n" .. run .. "3 ," .. run .. "x" .. run .. "y,4" .. run .. "\n")
    assert.are.same({{1, "nan", 2}, {3, "nan", 4}}, nan_table(gpu.genfromtxt(p, {delimiter = ","}):totable()))
    p = tmp("1 " .. run .. "2\n")
    assert.are.equal("cannot read '" .. p .. "': line 1, column 1: '1" .. (" "):rep(59) .. "'... (20003 bytes) is not a float64 value",
                     S.errof(gpu.loadtxt, p, {delimiter = ","}))
    -- a long run of digits (the second %d* of the float syntax took them back one at a time)
    p = tmp(("1"):rep(20000) .. "x\n")
    assert.are.equal("cannot read '" .. p .. "': line 1, column 1: '" .. ("1"):rep(60) .. "'... (20001 bytes) is not a float64 value",
                     S.errof(gpu.loadtxt, p))
    -- cut back to a whole UTF-8 character; a control character escaped after the cut
    p = tmp("x" .. ("\u{e9}"):rep(40) .. "\1\n")
    assert.are.equal("cannot read '" .. p .. "': line 1, column 1: 'x" .. ("\u{e9}"):rep(29) .. "'... (82 bytes) is not a float64 value",
                     S.errof(gpu.loadtxt, p))
    assert.matches("bad argument #1 to 'fromstring' (item 2 ('1" .. (" "):rep(59) .. "'... (20002 bytes)) is not a float64 value)",
                   S.errof(gpu.fromstring, "0,1" .. run .. "2", "float64", -1, " , "), 1, true)
    assert.are.same({0, 2}, gpu.fromstring("0 ," .. run .. "2" .. run, "float64", -1, " ," .. run):totable())
    os.remove(p)
  end)

  it("array2string strips a long separator's spaces before a line break", function()
    local sep = ";" .. (" "):rep(20000) .. ";" .. (" "):rep(20000)
    assert.are.equal("[1;" .. (" "):rep(20000) .. ";\n 2;" .. (" "):rep(20000) .. ";\n 3]",
                     gpu.array2string(gpu.array({1, 2, 3}, "float64"), {separator = sep, linewidth = 75}))
  end)
end)

describe("NumPy reads and writes these files #numpy #libzip", function()
  local function py(code) return S.run("/usr/bin/python3 -c " .. S.quote(code)) end

  it("both ways", function()
    local d = os.tmpname()
    gpu.savetxt(d .. ".txt", gpu.host.array({{1 / 3, -2e-300}, {1e300, 0 / 0}}, "float64"), {delimiter = ","})
    gpu.host.array({1 / 3, 7}, "float32"):tofile(d .. ".f32")
    gpu.host.array({1 / 3, 7, -1e-7}, "float64"):tofile(d .. ".sep", " ; ")
    gpu.savez_compressed(d .. ".npz", {a = gpu.host.array({{1, 2}, {3, 4}}, "uint16")})
    local out, status, err = py(([==[
import numpy as np
d = %q
a = np.loadtxt(d + ".txt", delimiter=",")
assert a.tolist()[0] == [1/3, -2e-300] and a[1, 0] == 1e300 and np.isnan(a[1, 1]), a
assert np.fromfile(d + ".f32", dtype=np.float32).tolist() == np.array([1/3, 7], dtype=np.float32).tolist()
assert np.fromfile(d + ".sep", sep=";").tolist() == [1/3, 7, -1e-7]
z = np.load(d + ".npz")
assert z["a"].dtype == np.uint16 and z["a"].tolist() == [[1, 2], [3, 4]]
np.savetxt(d + ".np.txt", np.array([[0.1, 2.5e-10], [np.inf, -3]]), header="h")
np.array([0.1, 1e-320, -2.5], dtype=np.float64).tofile(d + ".np.sep", sep=",")
print("ok")]==]):format(d))
    assert.are.equal(0, status, err)
    assert.are.equal("ok\n", out)
    assert.are.same({{0.1, 2.5e-10}, {math.huge, -3}}, gpu.loadtxt(d .. ".np.txt"):totable())
    assert.are.same({0.1, 1e-320, -2.5}, gpu.fromfile(d .. ".np.sep", "float64", -1, ","):totable())
    os.execute("rm -f " .. d .. "*")
  end)
end)
