-- Printing as NumPy prints (the print options, array2string, format_float_*; NumPy 2.4's
-- rules where they differ from 1.24's) and gpuhost's shortest floats: the expected text is
-- NumPy's or Python's, written here.
local S = require("spec.support")

describe("shortest floats (tostring, gpu.complex)", function()
  it("have the fewest digits that read back, also where the nearest ones do not", function()
    -- every 2^k (float64: k = -1074 .. 1023; float32: -149 .. 127) whose nearest %.pg does
    -- not read back at the p of Python's repr (numpy.float32's repr): the p digits above do
    local F64 = {
      [-1017] = "7.120236347223045e-307", [-1007] = "7.291122019556398e-304", [-957] = "8.209073602596753e-289",
      [-921] = "5.641232424577593e-278", [-808] = "5.858190679279809e-244", [-791] = "7.678447687145631e-239",
      [-788] = "6.142758149716505e-238", [-778] = "6.290184345309701e-235", [-705] = "5.940911144672375e-213",
      [-695] = "6.083493012144512e-210", [-662] = "5.225680706521042e-200", [-652] = "5.351097043477547e-197",
      [-549] = "5.426657103235053e-166", [-509] = "5.966672584960166e-154", [-496] = "4.887898181599368e-150",
      [-489] = "6.256509672447191e-148", [-383] = "5.075883674631299e-116", [-366] = "6.653062250012736e-111",
      [-296] = "7.854549544476363e-90", [-140] = "7.174648137343064e-43", [-97] = "6.310887241768095e-30",
      [-77] = "6.617444900424222e-24", [-44] = "5.684341886080802e-14", [-24] = "5.960464477539063e-08",
      [89] = "6.189700196426902e+26", [122] = "5.316911983139664e+36", [132] = "5.444517870735016e+39",
      [172] = "5.986310706507379e+51", [182] = "6.129982163463556e+54", [275] = "6.070840288205404e+82",
      [305] = "6.518515124270356e+91", [345] = "7.167183174968974e+103", [378] = "6.156563468186638e+113",
      [398] = "6.455624695217272e+119", [405] = "8.263199609878108e+121", [481] = "6.243497100631985e+144",
      [534] = "5.623642243178996e+160", [544] = "5.758609657015292e+163", [554] = "5.896816288783659e+166",
      [574] = "6.183260036827614e+172", [594] = "6.483618076376552e+178", [710] = "5.386379163185535e+213",
      [803] = "5.334411546303884e+241", [863] = "6.150157786156811e+259", [896] = "5.282945311356653e+269",
      [976] = "6.386688990511104e+293",
    }
    local F32 = {
      [-96] = "1.2621775e-29", [87] = "1.5474251e+26", [90] = "1.2379401e+27",
    }
    for k, want in pairs(F64) do
      assert.are.equal("gpu.array(float64, {}) " .. want, tostring(gpu.full({}, 2.0 ^ k, "float64")))
      assert.are.equal(want .. "+0j", tostring(gpu.complex(2.0 ^ k, 0)))
      assert.are.equal("gpu.array(complex128, {1}) [" .. want .. "+0j]", tostring(gpu.array({2.0 ^ k}, "complex128")))
    end
    for k, want in pairs(F32) do
      assert.are.equal("gpu.array(float32, {}) " .. want, tostring(gpu.full({}, 2.0 ^ k, "float32")))
      assert.are.equal(want .. "+0j", tostring(gpu.array({2.0 ^ k}, "complex64"):item()))
    end
    -- and still 6 digits at least, a whole number below 10^17 (10^9 in float32) in full
    assert.are.equal("gpu.array(float64, {3}) [0.1, 123456789, 1.2345678901234568e+18]",
                     tostring(gpu.array({0.1, 123456789, 1234567890123456789}, "float64")))
    assert.are.equal("gpu.array(float32, {2}) [16777216, 4.2949673e+09]", tostring(gpu.array({2 ^ 24, 2 ^ 32}, "float32")))
    assert.are.equal("1234567.5-0.001234567891j", tostring(gpu.complex(1234567.5, -0.001234567891)))
  end)
end)

describe("print options", function()
  local saved
  before_each(function() saved = gpu.get_printoptions() end)
  after_each(function() gpu.set_printoptions(saved) end)

  it("come back unchanged from get_printoptions, a key given only where it was or has changed", function()
    local a = gpu.arange(12, "int32")
    local before = tostring(a)
    assert.are.equal("gpu.array(int32, {12}) [0, 1, 2, 3, 4, 5, ..., 9, 10, 11]", before)
    gpu.set_printoptions(gpu.get_printoptions())
    assert.are.equal(before, tostring(a))
    local o = gpu.get_printoptions()
    gpu.set_printoptions({threshold = 5})
    assert.are.equal("gpu.array(int32, {12}) [0, 1, 2, ..., 9, 10, 11]", tostring(a))
    gpu.set_printoptions(o)   -- threshold back to not given
    assert.are.equal(before, tostring(a))
    o.linewidth = 20          -- changed: given
    gpu.set_printoptions(o)
    assert.are.equal("gpu.array(int32, {12})\n[0, 1, 2, 3, 4, 5,\n ..., 9, 10, 11]", tostring(a))
    gpu.set_printoptions(saved)
    o = gpu.get_printoptions()
    o.precision = 3           -- a precision alone, as ever: NumPy's maxprec
    gpu.set_printoptions(o)
    assert.are.equal("gpu.array(float64, {1}) [0.333]", tostring(gpu.array({1 / 3}, "float64")))
    gpu.set_printoptions(saved)
    assert.are.equal(before, gpu.printoptions(gpu.get_printoptions(), tostring, a))
  end)

  it("switch to NumPy's maxprec with suppress = true alone, as with a precision alone", function()
    -- np.set_printoptions(suppress=True); repr(np.array([1e-5, 1])), np.array2string of it
    local a = gpu.array({1e-5, 1}, "float64")
    assert.are.equal("[0.00001 1.     ]", gpu.array2string(a, {suppress = true}))
    gpu.set_printoptions({suppress = true})
    assert.are.equal("gpu.array(float64, {2}) [0.00001, 1.     ]", tostring(a))
    assert.are.equal("maxprec", gpu.get_printoptions().floatmode)
    gpu.set_printoptions({suppress = false})   -- NumPy's: array([1.e-05, 1.e+00])
    assert.are.equal("gpu.array(float64, {2}) [1.e-05, 1.e+00]", tostring(a))
  end)

  it("show edgeitems = 0 as the README says (where NumPy 1.24 differs)", function()
    local A = gpu.array2string
    assert.are.equal("[... 6]", A(gpu.array({1, 2, 3, 1000, 5, 6}, "int64"), {threshold = 3, edgeitems = 0}))   -- NumPy: [...    6]
    assert.are.equal("[[... 11]]", A(gpu.arange(12, "int64"):reshape(1, 12), {threshold = 3, edgeitems = 0}))   -- [...\n [... 11]]
    assert.are.equal("[...\n [... 9]]", A(gpu.arange(10, "int64"):reshape(2, 5), {threshold = 3, edgeitems = 0}))   -- as NumPy's
  end)

  -- gpu.printoptions applied the options before the guard that puts them back existed, and the
  -- undo could stop halfway: a debug hook raising at some instruction (a count hook's limit)
  -- left precision 2 set; array2string's options likewise
  it("come back after printoptions and array2string where a debug hook raises at any instruction", function()
    local out, _, err = S.run(S.gpuhost .. " -e " .. S.quote(S.HOOK_SWEEP .. [[
      local x, saved = gpu.arange(3) / 3, gpu.get_printoptions()
      local function now()
        local o, t = gpu.get_printoptions(), {}
        for k, v in pairs(o) do t[#t + 1] = k .. "=" .. tostring(v) end
        table.sort(t)
        return table.concat(t, " ") .. " " .. tostring(x)
      end
      local before = now()
      local function changed() return now() ~= before end
      local function reset() gpu.set_printoptions(saved) end
      print(sweep(function()
        assert(gpu.printoptions({precision = 2}, tostring, x) == "gpu.array(float32, {3}) [0.  , 0.33, 0.67]")
      end, changed, reset))
      print(sweep(function() assert(gpu.array2string(x, {precision = 2}) == "[0.   0.33 0.67]") end, changed, reset))]]))
    assert.are.same({"restored\nrestored\n", ""}, {out, err})
  end)

  it("take an edgeitems as large as an integer goes (nothing summarized)", function()
    gpu.set_printoptions({edgeitems = math.maxinteger, threshold = 5})
    assert.are.equal("gpu.array(int64, {12}) [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]", tostring(gpu.arange(12, "int64")))
    assert.are.equal("gpu.array(int64, {2, 6})\n[[ 0,  1,  2,  3,  4,  5],\n [ 6,  7,  8,  9, 10, 11]]",
                     tostring(gpu.arange(12, "int64"):reshape(2, 6)))
  end)
end)

describe("array2string and tostring under NumPy's float modes", function()
  local saved
  before_each(function() saved = gpu.get_printoptions() end)
  after_each(function() gpu.set_printoptions(saved) end)

  it("pad no more than NumPy's float format does (a nanstr wider than the floats)", function()
    -- np.array2string(np.array([1, np.nan]), sign="+", precision=8) under nanstr="NaN!", and
    -- the repr of [[1, nan], [2, 3]] and of complex [1+nanj, nan+2j] there
    local f64 = gpu.array({1, 0 / 0}, "float64")
    assert.are.equal("[ +1. +NaN!]", gpu.array2string(f64, {sign = "+", nanstr = "NaN!", precision = 8}))
    gpu.set_printoptions({sign = "+", nanstr = "NaN!", precision = 8})
    assert.are.equal("gpu.array(float64, {2, 2})\n[[ +1., +NaN!],\n [ +2.,  +3.]]",
                     tostring(gpu.array({{1, 0 / 0}, {2, 3}}, "float64")))
    local z = gpu.array({gpu.complex(1, 0 / 0), gpu.complex(0 / 0, 2)}, "complex128")
    assert.are.equal("gpu.array(complex128, {2}) [ +1.+NaN!j, +NaN! +2.j]", tostring(z))
    assert.are.equal("[[ +1.+NaN!j]\n [+NaN! +2.j]]", gpu.array2string(z:reshape(2, 1)))
  end)

  it("measure a nanstr or infstr in characters, as NumPy's len", function()
    -- np.array2string(np.array([1, nan, 100.]), precision=3) under nanstr="∅", and of
    -- [1, nan, -inf, 100.] with infstr="∞∞" at max_line_width=12
    local a = gpu.array({1, 0 / 0, 100}, "float64")
    assert.are.equal("[  1.    ∅ 100.]", gpu.array2string(a, {nanstr = "∅", precision = 3}))
    assert.are.equal("[  1.    ∅\n  -∞∞ 100.]", gpu.array2string(gpu.array({1, 0 / 0, -math.huge, 100}, "float64"),
                                                    {nanstr = "∅", infstr = "∞∞", precision = 3, linewidth = 12}))
    assert.are.equal("[[  1   ∅]\n [-∞∞ 100]]", gpu.array2string(gpu.array({{1, 0 / 0}, {-math.huge, 100}}, "float64"),
                                                    {nanstr = "∅", infstr = "∞∞"}))   -- gpuhost's shortest form
  end)

  it("leave no space before a line break after a blank value", function()
    -- np.array2string(np.array([1, nan, 2]), precision=3, max_line_width=10) under nanstr="",
    -- and of [[1, nan, 2, 3]] with separator=", "
    assert.are.equal("[ 1.\n  2.]", gpu.array2string(gpu.array({1, 0 / 0, 2}, "float64"),
                                                     {nanstr = "", precision = 3, linewidth = 10}))
    assert.are.equal("[[ 1.,\n     ,\n   2.,\n   3.]]", gpu.array2string(gpu.array({{1, 0 / 0, 2, 3}}, "float64"),
                                                     {nanstr = "", precision = 3, linewidth = 10, separator = ", "}))
  end)
end)

describe("NumPy 2.4's choice of the scientific form", function()
  it("cuts off at 1e8 float64, 1e6 float32 and complex64, 1e3 float16; compares 0.0001 and 1000 in the dtype", function()
    -- np.array2string(np.array(values, dtype), **opts), NumPy 2.4 (1.24: "[1234567. 2000000.]",
    -- "[2048. 1024.]", "[1.e-04 5.e-04]", "[1234567.       2.]", "[1.e-04+1.j  5.e-04+0.5j]")
    local C = gpu.complex
    local cases = {
      {"float32", {1234567, 2000000}, {floatmode = "maxprec"}, "[1.234567e+06 2.000000e+06]"},
      {"float32", {999999, 2}, {floatmode = "maxprec"}, "[9.99999e+05 2.00000e+00]"},
      {"float32", {1234567, 2}, {suppress = true, precision = 3}, "[1.235e+06 2.000e+00]"},
      {"float16", {2048, 1024}, {precision = 3}, "[2.048e+03 1.024e+03]"},
      {"float16", {999.5, 2}, {precision = 3}, "[999.5   2. ]"},
      {"float64", {99999999, 2}, {precision = 4}, "[1.e+08 2.e+00]"},
      {"float64", {99999999, 234567}, {precision = 4}, "[99999999.   234567.]"},
      {"float32", {1e-4, 5e-4}, {precision = 4}, "[0.0001 0.0005]"},
      {"float16", {1e-4, 5e-4}, {precision = 4}, "[0.0001 0.0005]"},
      {"float16", {9.995e-05, 5e-4}, {precision = 4}, "[9.996e-05 5.002e-04]"},
      {"float64", {1e-4, 5e-4}, {precision = 4}, "[0.0001 0.0005]"},
      -- their quotient is past 1000 in float64, 1000 in float32 (1.24 and 2.4 alike)
      {"float32", {1.0209693908691406, 1020.9694213867188}, {precision = 3}, "[   1.021 1020.969]"},
      {"complex64", {C(1234567, 1), C(2, 0.5)}, {precision = 3}, "[1.235e+06+1.j  2.000e+00+0.5j]"},
      {"complex64", {C(1e-4, 1), C(5e-4, 0.5)}, {precision = 4}, "[0.0001+1.j  0.0005+0.5j]"},
    }
    for _, c in ipairs(cases) do
      assert.are.equal(c[4], gpu.array2string(gpu.array(c[2], c[1]), c[3]), c[1] .. " " .. c[4])
    end
    assert.are.equal("[1.235e+06 2.000e+00]", gpu.array_str(gpu.array({1234567, 2}, "float32"), {precision = 3}))
    gpu.printoptions({precision = 3}, function()
      assert.are.equal("gpu.array(float16, {2}) [2.048e+03, 1.024e+03]", tostring(gpu.array({2048, 1024}, "float16")))
    end)
  end)
end)

describe("integers under sign, as NumPy 2.4's", function()
  it("write + or a space before those >= 0 (a space only where none shown is negative)", function()
    -- np.array2string(np.array(values, dtype), sign=...), NumPy 2.4 (1.24 ignored sign: "[ 1 -2  3]")
    local cases = {
      {"int64", {1, -2, 3}, "+", "[+1 -2 +3]"},
      {"uint8", {1, 2, 3}, "+", "[+1 +2 +3]"},
      {"int16", {{1, -20}, {3, 4}}, "+", "[[ +1 -20]\n [ +3  +4]]"},
      {"int16", {{1, 20}, {3, 4}}, " ", "[[  1  20]\n [  3   4]]"},
      {"int64", {1, -2, 3}, " ", "[ 1 -2  3]"},
      {"int32", {1, 2, 3}, " ", "[ 1  2  3]"},
      {"int32", {1, 2, 3}, "-", "[1 2 3]"},
      {"bool", {true, false}, "+", "[ True False]"},
    }
    for _, c in ipairs(cases) do
      assert.are.equal(c[4], gpu.array2string(gpu.array(c[2], c[1]), {sign = c[3]}), c[4])
    end
    local u = gpu.array({0, -1}, "int64"):astype("uint64")   -- 0 and 2^64 - 1
    assert.are.equal("[                   +0 +18446744073709551615]", gpu.array2string(u, {sign = "+"}))
    u = gpu.array({0, math.mininteger}, "int64"):astype("uint64")   -- 0 and 2^63
    assert.are.equal("[                   0  9223372036854775808]", gpu.array2string(u, {sign = " "}))
    assert.are.equal("+5", gpu.array2string(gpu.full({}, 5, "int64"), {sign = "+"}))
    assert.are.equal("-5", gpu.array2string(gpu.full({}, -5, "int64"), {sign = " "}))
    -- the values shown decide: -3 is shown, so no space
    assert.are.equal("[  -3   -2 ... 1998 1999]", gpu.array2string(gpu.arange(-3, 2000, 1, "int64"), {sign = " ", threshold = 10, edgeitems = 2}))
    assert.are.equal("[    0     1 ...  1998  1999]", gpu.array2string(gpu.arange(2000, "int64"), {sign = " ", threshold = 10, edgeitems = 2}))
    gpu.printoptions({sign = "+"}, function()   -- repr(np.array(...)) under sign="+"
      assert.are.equal("gpu.array(int32, {3}) [+1, +2, +3]", tostring(gpu.array({1, 2, 3}, "int32")))
      assert.are.equal("gpu.array(int64, {2, 2})\n[[+1, +2],\n [+3, -4]]", tostring(gpu.array({{1, 2}, {3, -4}}, "int64")))
    end)
  end)
end)

describe("gpu.array_str", function()
  it("names itself in its errors and takes no separator, as NumPy's array_str", function()
    local a = gpu.arange(3, "int32")
    assert.matches("gpu.array_str: unknown option 'bogus' (it takes edgeitems, floatmode, infstr, linewidth, nanstr, precision, sign, suppress, threshold)",
                   S.errof(gpu.array_str, a, {bogus = 1}), 1, true)
    assert.matches("gpu.array_str: unknown option 'separator'", S.errof(gpu.array_str, a, {separator = ","}), 1, true)
    assert.matches("bad argument #2 to 'array_str' (options.precision must be a non-negative integer, got -1)",
                   S.errof(gpu.array_str, a, {precision = -1}), 1, true)
    assert.are.equal("[0 1\n 2]", gpu.array_str(a, {linewidth = 5}))   -- np.array_str(np.arange(3), max_line_width=5)
  end)
end)

describe("format_float_positional and format_float_scientific", function()
  local P, E = gpu.format_float_positional, gpu.format_float_scientific

  it("leave out the point with trim '-' where rounding up made one digit, as dragon4", function()
    -- np.format_float_scientific(0.7, precision=1, unique=False, trim="-") and the like
    assert.are.same({"7e-01", "1e+23", "3e-01", "0e+00", "0e+00", "1.e+00", "5.e-01", "1.5e+00", "1e+00"},
                    {E(0.7, {precision = 1, unique = false, trim = "-"}), E(1e23, {precision = 2, unique = false, trim = "-"}),
                     E(0.3, {min_digits = 3, trim = "-"}), E(0.0, {min_digits = 2, trim = "-"}),
                     E(0.0, {precision = 3, unique = false, trim = "-"}), E(1.0, {min_digits = 3, trim = "-"}),
                     E(0.5, {min_digits = 3, trim = "-"}), E(1.5, {precision = 3, unique = false, trim = "-"}),
                     E(1.0, {precision = 3, unique = false, trim = "-"})})
    assert.are.same({"3.e-01", "1.e+23"}, {E(0.3, {min_digits = 3, trim = "."}), E(1e23, {precision = 2, unique = false, trim = "."})})
  end)

  it("pad min_digits with zeros past precision 0, as NumPy's", function()
    -- np.format_float_scientific(0.05, precision=0, min_digits=24); positional agreed already
    assert.are.equal("5.000000000000000000000000e-02", E(0.05, {precision = 0, min_digits = 24}))
    assert.are.equal("5.000000000000000277555756e-02", E(0.05, {min_digits = 24}))
    assert.are.equal("0.000000000000000000000000", P(0.05, {precision = 0, min_digits = 24}))
  end)

  it("say which option is wrong and what it takes", function()
    assert.matches("bad argument #2 to 'format_float_positional' (options.precision must be a non-negative integer, got -1)",
                   S.errof(P, 1.5, {precision = -1}), 1, true)
    assert.matches("bad argument #2 to 'format_float_scientific' (options.exp_digits must be a non-negative integer, got 2.5)",
                   S.errof(E, 1.5, {exp_digits = 2.5}), 1, true)
    assert.matches("bad argument #2 to 'format_float_positional' (options.trim must be 'k', '.', '0' or '-', got 'x')",
                   S.errof(P, 1.5, {trim = "x"}), 1, true)
    assert.matches("bad argument #2 to 'format_float_scientific' (options.unique must be a boolean, got 'yes')",
                   S.errof(E, 1.5, {unique = "yes"}), 1, true)
    assert.are.equal("1.5", P(1.5, {sign = false, precision = 3.0}))
  end)

  it("refuse a precision, min_digits or pad past 16383 characters (NumPy's dragon4 cuts its text there)", function()
    assert.matches("bad argument #2 to 'format_float_positional' (options.precision must be at most 16383, got 1073741824)",
                   S.errof(P, 0.1, {precision = 1 << 30, unique = false}), 1, true)
    assert.matches("bad argument #2 to 'format_float_positional' (options.pad_left must be at most 16383, got 1000000000)",
                   S.errof(P, 0.1, {pad_left = 1000000000}), 1, true)
    assert.matches("bad argument #2 to 'format_float_scientific' (options.min_digits must be at most 16383, got 16384)",
                   S.errof(E, 0.1, {min_digits = 16384}), 1, true)
    assert.matches("bad argument #1 to 'set_printoptions' (options.precision must be at most 16383, got " .. math.maxinteger .. ")",
                   S.errof(gpu.set_printoptions, {precision = math.maxinteger, floatmode = "fixed"}), 1, true)
    assert.matches("bad argument #2 to 'array2string' (options.precision must be at most 16383, got 16384)",
                   S.errof(gpu.array2string, gpu.arange(2), {precision = 16384}), 1, true)
    assert.are.equal(16385, #P(0.1, {precision = 16383, unique = false}))
    -- exp_digits counts up to 5, as NumPy's: np.format_float_scientific(1e100, exp_digits=100)
    assert.are.same({"1.e+00100", "1.e+00000"}, {E(1e100, {exp_digits = 100}), E(1.0, {exp_digits = 16383})})
  end)
end)
