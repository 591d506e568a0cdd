-- Complex dtypes (complex64, complex128): values to and from Lua (gpu.complex), printing,
-- NumPy's promotion (spec/data/promotion.lua has complex too), arithmetic and functions
-- against the same computed in Lua, conversions, reductions and products; the operations
-- NumPy refuses on complex numbers are refused.
local S = require("spec.support")
local C = gpu.complex

local function near(want, got, tol)
  assert(math.abs(want.re - got.re) <= tol and math.abs(want.im - got.im) <= tol,
         ("expected %s, got %s"):format(tostring(want), tostring(got)))
end

describe("complex arrays", function()
  local zs = {C(1, 2), C(-0.5, 0.25), C(0, -1), 3}
  local z = gpu.array(zs, "complex128")

  it("take numbers and gpu.complex values, and give gpu.complex values back", function()
    assert.are.equal("complex128", z.dtype)
    assert.are.equal(C(1, 2), z:item(1))
    assert.are.equal(C(3, 0), z:totable()[4])
    assert.are.equal(-0.5, z:item(2).re)
    assert.are.equal(0.25, z:item(2).im)
    local h = z:tohost()
    h[4] = C(5, -5)
    assert.are.equal(C(5, -5), h[4])
    assert.are.equal(16, gpu.zeros(2, "complex64").nbytes)
    assert.are.equal("gpu.array(complex128, {4}) [1+2j, -0.5+0.25j, 0-1j, 3+0j]", tostring(z))
    assert.are.equal("nan+infj", tostring(C(0 / 0, math.huge)))
    -- as printing shows elements: every digit needed (it showed %.6g: 1.23457e+08+0.333333j)
    local w = C(123456789, 1 / 3)
    assert.are.equal("123456789+0.3333333333333333j", tostring(w))
    assert.are.equal("123456789+0.3333333333333333j", tostring(gpu.array({w}, "complex128"):item(1)))
    assert.are.equal("123456792+0.33333334j", tostring(gpu.array({w}, "complex64"):item(1)))   -- float32's digits
    assert.are.equal("0.1-1e+20j", tostring(C(0.1, -1e20)))
    assert.are.equal(C(4, 2), C(1, 2) + 3)
    assert.are.equal(C(-3, 4), C(1, 2) * C(1, 2))
    assert.matches('element %[1%] %(a string %("x"%)%) expected a number or a gpu.complex for complex64',
                   S.errof(gpu.array, {"x"}, "complex64"))
  end)

  -- a:fill(z) took only numbers and booleans; a number into a complex128 host array wrote
  -- its imaginary part past an 8-byte buffer (ASan) and read it back from there
  it("fill and assign gpu.complex values and numbers, on the device and the host", function()
    local h = gpu.host.zeros({3}, "complex128")
    h:fill(1.5)
    assert.are.same({C(1.5, 0), C(1.5, 0), C(1.5, 0)}, h:totable())
    h[{{1, 2}}] = C(1, 2)
    assert.are.same({C(1, 2), C(1, 2), C(1.5, 0)}, h:totable())
    assert.are.same({C(1, 2), C(1, 2)}, gpu.zeros({2}, "complex64"):fill(C(1, 2)):totable())
    local d = gpu.zeros({2, 2}, "complex128")
    d[{{}, 1}] = C(3, -1)
    assert.are.same({{C(3, -1), C(0, 0)}, {C(3, -1), C(0, 0)}}, d:totable())
    assert.matches("cannot store 1%+2j in a float32 array", S.errof(function() gpu.zeros(2):fill(C(1, 2)) end))
    assert.matches("cannot store 1%+2j in a float32 array", S.errof(function() gpu.host.zeros(2):fill(C(1, 2)) end))
    assert.matches("number, boolean or gpu.complex expected, got string", S.errof(function() gpu.zeros(2):fill("x") end))
    -- with no dtype a gpu.complex gives complex128, as NumPy's full(2, 1+1j) (it said number
    -- or boolean expected, got gpu.complex)
    local f = gpu.full({2}, C(1, -1))
    assert.are.equal("complex128", f.dtype)
    assert.are.same({C(1, -1), C(1, -1)}, f:totable())
    assert.are.equal("float32", gpu.full({2}, 1).dtype)
  end)

  it("promote as NumPy's do, and convert to real types by their real part", function()
    assert.are.equal("complex64", gpu.result_type("complex64", 1.5))
    assert.are.equal("complex128", gpu.result_type("complex64", "float64"))
    assert.are.equal("complex128", gpu.result_type("complex64", "int32"))
    assert.are.equal("complex64", (gpu.array({1}, "complex64") * 2.5).dtype)
    assert.are.same({1, -0.5, 0, 3}, z:astype("float64"):totable())
    assert.are.same({true, true, true, true}, z:astype("bool"):totable())
    assert.are.equal(C(2, 0), gpu.arange(3):astype("complex64"):item(3))
  end)

  it("compute +, *, / and the functions as NumPy does", function()
    local w = gpu.array({C(2, -1), C(1, 1), C(0.5, 0), C(0, 2)}, "complex128")
    for i, v in ipairs((z * w):totable()) do
      local a, b = z:item(i), w:item(i)
      near(C(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re), v, 1e-15)
    end
    for i, v in ipairs((z / w):totable()) do
      local a, b = z:item(i), w:item(i)
      local d = b.re * b.re + b.im * b.im
      near(C((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d), v, 1e-15)
    end
    near(C(1.272019649514069, 0.7861513777574233), gpu.sqrt(z):item(1), 1e-12)   -- NumPy's values
    -- the branch cut: sqrt(-4 - 0i) is 0 - 2i, sqrt(-4 + 0i) 0 + 2i (the -0 gave -0 + 2i)
    for _, dt in ipairs({"complex64", "complex128"}) do
      local r = gpu.sqrt(gpu.array({C(-4, -0.0), C(-4, 0)}, dt)):totable()
      assert.are.same({"0-2j", "0+2j"}, {tostring(r[1]), tostring(r[2])})
    end
    near(C(-1.1312043837568135, 2.4717266720048188), gpu.exp(z):item(1), 1e-12)
    near(C(0.8047189562170503, 1.1071487177940904), gpu.log(z):item(1), 1e-12)
    assert.are.same({math.sqrt(5), math.sqrt(0.3125), 1, 3}, gpu.abs(z):totable())
    assert.are.equal("float64", gpu.abs(z).dtype)
    assert.are.same({1, -0.5, 0, 3}, gpu.real(z):totable())
    assert.are.same({2, 0.25, -1, 0}, gpu.imag(z):totable())
    assert.are.equal(C(1, -2), gpu.conj(z):item(1))
    assert.are.equal(C(-3, 4), (z ^ 2):item(1))
    assert.are.same({false, true, true, false}, z:lt(gpu.full({}, C(0, 0), "complex128")):totable())
  end)

  it("refuse what NumPy refuses", function()
    assert.matches("gpu.floor is not defined for complex arrays", S.errof(gpu.floor, z))
    assert.matches("gpu.floor_divide is not defined for complex arrays", S.errof(gpu.floor_divide, z, z))
    assert.matches("gpu.atan2 is not defined for complex arrays", S.errof(gpu.atan2, z, z))
    assert.matches("gpu.sort: complex arrays are not ordered here", S.errof(gpu.sort, z))
    -- gpu.jit takes complex arrays (spec/jit_complex_spec.lua), but does not drop an imaginary part
    assert.matches("storing a complex128 in a float32 array would drop its imaginary part",
                   S.errof(gpu.jit(function(a, r) r[1] = a[1] end)[{1, 1}], z, gpu.zeros(1)))
  end)

  it("reduce, scan and multiply as matrices", function()
    near(C(3.5, 1.25), z:sum(), 1e-15)
    near(C(0.875, 0.3125), z:mean(), 1e-15)
    assert.are.equal(C(3, 0), z:max())
    assert.are.equal(2, z:argmin())
    assert.is_true(math.abs(z:norm() - math.sqrt(5 + 0.3125 + 1 + 9)) < 1e-12)
    assert.are.equal("float64", z:var(1).dtype)
    assert.are.equal(C(0.5, 2.25), z:cumsum():item(2))
    local a = gpu.array({{C(1, 1), 2}, {0, C(0, 1)}}, "complex64")
    assert.are.same({{C(0, 2), C(2, 4)}, {C(0, 0), C(-1, 0)}}, gpu.matmul(a, a):totable())
  end)

  it("integer powers do not multiply by 1 (NumPy's (inf+1j)^2 is inf+infj, (-2.5)^2 is 6.25-0j)", function()
    local z = gpu.array({gpu.complex(1 / 0, 1), -2.5}, "complex64") ^ 2
    assert.are.equal("complex64", z.dtype)
    local a, b = z:item(1), z:item(2)
    assert.are.same({math.huge, math.huge}, {a.re, a.im})
    assert.are.same({6.25, -1}, {b.re, 1 / b.im < 0 and -1 or 1})
  end)

  -- NumPy 2's: 0^(1+1j) and 0^(2.5-0.5j) are 0 (they were nan+nanj, NumPy 1's rule)
  it("0 to a power as NumPy 2's: 1 for 0, 0 where b's real part is positive, else nan+nanj (0^-1 too)", function()
    for _, dt in ipairs({"complex64", "complex128"}) do
      local zero = gpu.complex(0, 0)
      local a = gpu.array({zero, zero, zero, zero, gpu.complex(0 / 0, 0), zero, gpu.complex(-0.0, -0.0), zero}, dt)
      local b = gpu.array({-1, gpu.complex(0, 1), 2, 0, 0, gpu.complex(1, 1), gpu.complex(2.5, -0.5), gpu.complex(-1, 1)}, dt)
      local got = (a ^ b):totable()
      for _, i in ipairs({1, 2, 8}) do assert.is_true(got[i].re ~= got[i].re and got[i].im ~= got[i].im, dt .. " " .. i) end
      assert.are.same({0, 0, 1, 0, 1, 0}, {got[3].re, got[3].im, got[4].re, got[4].im, got[5].re, got[5].im})
      assert.are.same({C(0, 0), C(0, 0)}, {got[6], got[7]})
      local f = gpu.vectorize(function(x, y) return x ^ y end)   -- the jit's ^ too
      assert.are.same({C(0, 0), C(0, 0)}, f(a[{{6, 7}}], b[{{6, 7}}]):totable())
    end
  end)

  -- NumPy 2's sign: an infinite part gives its direction; where |z| overflows, z is scaled
  -- first (inf+1j was nan+0j, 1-infj 0+nanj, 1.5e308+1.5e308j and complex64 3e38+3e38j 0+0j)
  it("sign as NumPy 2's, of infinite parts and where |z| overflows", function()
    local inf, nan, h = math.huge, 0 / 0, math.sqrt(0.5)
    local z = {C(inf, 1), C(1, -inf), C(-inf, nan), C(nan, inf), C(-0.0, 2), C(0, 0), C(-2, -0.0)}
    local want = {C(1, 0), C(0, -1), C(-1, 0), C(0, 1), C(-0.0, 1), C(0, 0), C(-1, -0.0)}
    for _, dt in ipairs({"complex64", "complex128"}) do
      local got = gpu.sign(gpu.array(z, dt)):totable()
      for i, w in ipairs(want) do
        assert.is_true(got[i] == w and 1 / got[i].re == 1 / w.re and 1 / got[i].im == 1 / w.im, ("%s %s: %s"):format(dt, tostring(z[i]), tostring(got[i])))
      end
      local big = dt == "complex64" and 3e38 or 1.5e308
      local s = gpu.sign(gpu.array({C(big, big), C(-big, big / 2)}, dt)):totable()
      near(C(h, h), s[1], 1e-7)
      near(C(-2 / math.sqrt(5), 1 / math.sqrt(5)), s[2], 1e-7)
      local both = gpu.sign(gpu.array({C(inf, -inf), C(nan, 1)}, dt)):totable()
      for _, v in ipairs(both) do assert.is_true(v.re ~= v.re and v.im ~= v.im, dt .. " " .. tostring(v)) end
    end
  end)
  -- each case: function, z, dtype, the value (NumPy's, or C99's where NumPy 1.24's is off:
  -- it gives tanh(1000+1j) nan+nanj, log1p(1e-20+1e-20j) a real part 0); parts within
  -- 1e-12 relatively, zeros with their sign
  it("keep their digits and C99's special values where parts overflow, vanish or meet a cut", function()
    local pi, inf, nan = math.pi, math.huge, 0 / 0
    local cases = {
      {"tanh", 1000, 1, "complex128", 1, 0}, {"tan", 1, 1000, "complex128", 0, 1},
      {"tanh", 100, 0, "complex64", 1, 0}, {"tanh", 30, 1, "complex128", 1, 1.5924545408982668e-26},
      {"exp", 1000, 0, "complex128", inf, 0}, {"sinh", 1000, 0, "complex128", inf, 0},
      {"cosh", -1000, 0, "complex128", inf, -0.0}, {"cos", 0, 1000, "complex128", inf, -0.0},
      {"sin", 0, 1000, "complex128", 0, inf}, {"exp", 100, 0, "complex64", inf, 0},
      {"atan", 1e-20, 1, "complex128", pi / 4, 23.37242452022043},
      {"atanh", -1, 1e-20, "complex128", -23.37242452022043, pi / 4},
      {"expm1", 1e-20, 0, "complex128", 1e-20, 0}, {"expm1", 1e-10, 0, "complex128", 1.00000000005e-10, 0},
      {"log", 1, 1e-20, "complex128", 5e-41, 1e-20},
      {"asin", 0.5, 1e-20, "complex128", 0.5235987755982989, 1.1547005383792515e-20},
      {"acos", 2, 0, "complex128", 0, -1.3169578969248166}, {"acosh", 0, 1e-20, "complex128", 1e-20, pi / 2},
      {"asinh", 1e-20, 0.5, "complex128", 1.1547005383792515e-20, 0.5235987755982989},
      {"log1p", -2, -0.0, "complex128", 0, -pi}, {"log1p", 0.5, -0.0, "complex128", 0.4054651081081644, -0.0},
      {"sqrt", -1, inf, "complex128", inf, inf}, {"sqrt", nan, -inf, "complex64", inf, -inf},
      {"exp2", 1, -0.0, "complex128", 2, -0.0},
      -- past far(): acos by log(2z)'s parts (pi/2 - asin cancelled: 5.0000004e-10)
      {"acos", 2e9, 1, "complex128", 5e-10, -22.1095601980663}, {"acos", 2e4, 1, "complex64", 5e-05, -10.596635},
      -- near the largest numbers sqrt scales (|x| + |z| overflowed: inf)
      {"sqrt", math.huge, 1, "complex128", math.huge, 0}, {"sqrt", -math.huge, 1, "complex64", 0, math.huge},
      {"sqrt", 3e38, 0, "complex64", 1.7320508e19, 0}, {"sqrt", 1.7e308, 1, "complex128", 1.3038404810405297e154, 3.8348249442368524e-155},
      -- e^x overflows, a part need not (glibc's csinh, NumPy's): e^t taken into the parts
      {"exp", -720, 3, "complex128", -2.011893245732417e-313, 2.8678842721116781e-314},
      {"exp", 740, 1.5707963267948966, "complex128", 1.461831999858279e305, inf},
      {"sinh", -1000, 1e-300, "complex128", -inf, 9.8503555700852358e133},
      {"cosh", 710.3, 0.1, "complex128", 1.5002560921723874e308, 1.5052770305231597e307},
      {"sin", 1e-300, -1000, "complex128", 9.8503555700852358e133, -inf},
      {"cos", 1, 710, "complex128", 6.0351626172726406e307, -9.3992088796889055e307},
      {"exp", 100, 1.5707963, "complex64", 2.0294722e36, inf}, {"sinh", 89, 1, "complex64", 1.212874e38, 1.8889393e38},
    }
    local function same(want, got, dt)
      if want == 0 then return got == 0 and 1 / want == 1 / got end
      local tol = dt == "complex64" and 1e-6 or 1e-12
      return want == got or math.abs(want - got) <= tol * math.abs(want)
    end
    for _, c in ipairs(cases) do
      local f, dt = c[1], c[4]
      local got = gpu[f](gpu.array({C(c[2], c[3])}, dt)):item()
      assert(same(c[5], got.re, dt) and same(c[6], got.im, dt),
             ("%s(%s) %s: expected %s, got %s"):format(f, tostring(C(c[2], c[3])), dt, tostring(C(c[5], c[6])), tostring(got)))
    end
    -- one infinite part is infinite; a NaN part makes real parts incomparable (NumPy's order)
    assert.are.same({true, true}, gpu.isinf(gpu.array({C(inf, nan), C(nan, -inf)}, "complex128")):totable())
    local a, b = gpu.array({C(0, 0), C(1, nan), C(0, nan)}, "complex128"), gpu.array({C(1, nan), C(0, 0), C(1, 0)}, "complex128")
    assert.are.same({false, false, false}, a:lt(b):totable())
    assert.are.same({false, false, false}, b:gt(a):totable())
    -- 1 / (-0 + 0i) is inf + nan i (NumPy takes |b|'s parts), not -inf
    local q = (gpu.array({C(1, 0)}, "complex128") / gpu.array({C(-0.0, 0)}, "complex128")):item()
    assert.is_true(q.re == inf and q.im ~= q.im)
  end)

  -- NumPy 2.4's values; parts within 1e-12 (complex64: 1e-6) relatively
  local function check_cases(cases)
    for _, c in ipairs(cases) do
      local f, dt, want = c[1], c[4], C(c[5], c[6])
      local got = gpu[f](gpu.array({C(c[2], c[3])}, dt)):item()
      local tol = dt == "complex64" and 1e-6 or 1e-12
      local function same(w, g) return w == g or math.abs(w - g) <= tol * math.abs(w) end
      assert(same(want.re, got.re) and same(want.im, got.im),
             ("%s(%s) %s: expected %s, got %s"):format(f, tostring(C(c[2], c[3])), dt, tostring(want), tostring(got)))
    end
  end

  it("sqrt of a subnormal |z| scales z first ((|x| + |z|) / 2 underflowed: sqrt(5e-324i) was inf i)", function()
    local h = 1.5707963267948966
    check_cases({
      {"sqrt", 0, 5e-324, "complex128", 1.5717277847026288e-162, 1.5717277847026288e-162},
      {"sqrt", -0.0, -5e-324, "complex128", 1.5717277847026288e-162, -1.5717277847026288e-162},
      {"sqrt", 0, 1.5e-323, "complex128", 2.7223123787726303e-162, 2.7223123787726303e-162},
      {"sqrt", 5e-324, 5e-324, "complex128", 2.4421097261308304e-162, 1.0115549693666347e-162},
      {"sqrt", 0, 1e-45, "complex64", 2.646978e-23, 2.646978e-23},
      {"sqrt", 0, 3e-45, "complex64", 3.743392e-23, 3.743392e-23},
      -- through sqrt(1 - z) and sqrt(1 + z) (nan+infj, 0-infj, nan+3.14j, inf+nanj)
      {"asin", 1, 5e-324, "complex128", h, 2.2227587494850775e-162},
      {"acos", 1, 5e-324, "complex128", 2.2227587494850775e-162, -2.2227587494850775e-162},
      {"acosh", 1, 5e-324, "complex128", 2.2227587494850775e-162, 2.2227587494850775e-162},
      {"asinh", 5e-324, 1, "complex128", 2.2227587494850775e-162, h},
      {"asin", 1, 1e-45, "complex64", 1.5707964, 3.743392e-23},
      {"acos", 1, 1e-45, "complex64", 3.743392e-23, -3.743392e-23},
      {"acosh", 1, 1e-45, "complex64", 3.743392e-23, 3.743392e-23},
      {"asinh", 1e-45, 1, "complex64", 3.743392e-23, 1.5707964},
    })
  end)

  it("asin, acos, asinh and acosh of a tiny z keep a subnormal part (asin(5e-324i) was 0)", function()
    local h, s = 1.5707963267948966, 1.401298464324817e-45   -- s: complex64's smallest
    check_cases({
      {"asin", 0, 5e-324, "complex128", 0, 5e-324}, {"asin", 2.2250738585072014e-308, -5e-324, "complex128", 2.2250738585072014e-308, -5e-324},
      {"asinh", 5e-324, 5e-324, "complex128", 5e-324, 5e-324}, {"asinh", 5e-324, 1e-20, "complex128", 5e-324, 1e-20},
      {"acos", 0, 5e-324, "complex128", h, -5e-324}, {"acosh", 0, 5e-324, "complex128", 5e-324, h},
      {"acosh", 0, -5e-324, "complex128", 5e-324, -h},
      {"asin", 1e-8, s, "complex64", 1e-8, s}, {"asinh", s, s, "complex64", s, s},
      {"acos", 0, s, "complex64", 1.5707964, -s}, {"acosh", 0, s, "complex64", s, 1.5707964},
    })
  end)

  it("log near |z| = 1 keeps the real part's digits (log(big) + log1p(r^2) / 2 cancelled)", function()
    check_cases({
      {"log", 0.6, 0.8000001, "complex128", 7.999999858009588e-08, 0.9272952780016075},
      {"log2", 0.6, 0.8000001, "complex128", 1.1541560122262844e-07, 1.3378042990126717},
      {"log", -0.7518889211061083, 0.6592876516608657, "complex128", -1.4213447169847578e-06, 2.421720449703834},
      {"log", 0.9185811608293327, -0.3952291644345098, "complex128", -1.2792765539471645e-06, -0.4063178642390395},
      {"log10", 0.39304428627282323, 0.9195193092664684, "complex128", -9.313759936454589e-08, 0.5067592261582409},
      {"log", -0.9611244428647983, 0.27611643700983257, "complex128", 2.407295288922913e-07, 2.8618416188958626},
      {"log", -0.46533737, -0.8851334, "complex64", -1.2761152e-08, -2.054812},
      {"log2", -0.46533737, -0.8851334, "complex64", -1.841045e-08, -2.964467},
      {"log10", 0.6, 0.8000001, "complex64", 3.106316e-08, 0.4027192},
      {"log", -0.5783433318138123, -0.8157922029495239, "complex64", -1.0360776059314958e-06, -2.1874936},
      {"log", 0.9391509890556335, 0.34350651502609253, "complex64", 6.530543146254786e-07, 0.35064784},
    })
  end)

  it("atanh(x + nan i) past 1e9 (float: 1e4) is nan + nan i, +-0 + nan i only for x = +-inf (C99)", function()
    local inf, nan = math.huge, 0 / 0
    for _, dt in ipairs({"complex64", "complex128"}) do
      local a = gpu.atanh(gpu.array({C(1e10, nan), C(-1e10, nan), C(inf, nan), C(-inf, nan)}, dt)):totable()
      local t = gpu.atan(gpu.array({C(nan, 1e10), C(nan, -1e10)}, dt)):totable()
      for i, v in ipairs({a[1], a[2], t[1], t[2]}) do
        assert.is_true(v.re ~= v.re and v.im ~= v.im, ("%s case %d: %s"):format(dt, i, tostring(v)))
      end
      assert.is_true(a[3].re == 0 and 1 / a[3].re > 0 and a[3].im ~= a[3].im, dt .. " " .. tostring(a[3]))
      assert.is_true(a[4].re == 0 and 1 / a[4].re < 0 and a[4].im ~= a[4].im, dt .. " " .. tostring(a[4]))
    end
  end)

  it("round each product once on both backends (g++'s vectorizer fused them into fmaddsub)", function()
    for _, dt in ipairs({"complex64", "complex128"}) do
      local e = dt == "complex64" and 2 ^ -13 or 2 ^ -30
      local p = gpu.array({C(1 + e, 1)}, dt) * gpu.array({C(1 - e, 1)}, dt)
      assert.are.equal(0, gpu.real(p):item())   -- fl((1 + e)(1 - e)) = 1 = fl(1 * 1)
      local q = gpu.array({C(2, -3)}, dt) / gpu.array({C(2, -3)}, dt)
      assert.are.equal("1-0j", tostring(q:item()))
    end
    local big = gpu.array({C(1e300, 1e300)}, "complex128")
    local p = (big * big):item()
    assert.is_true(p.re ~= p.re and p.im == math.huge)   -- inf - inf, inf + inf: NumPy's nan+infj
  end)

  -- the host's * and / were C's _Complex, which recovers infinities where NumPy does not:
  -- (inf+infj)(1+0j) was inf+infj (the arrays and NumPy: nan+nanj), (1+1j) / (-0+0j)
  -- -inf-infj (inf+infj)
  it("on the host compute * and / as the arrays do, special values too", function()
    local v = {0, -0.0, 1, -2.5, math.huge, -math.huge, 0 / 0, 1e300}
    local zs = {}
    for _, r in ipairs(v) do for _, i in ipairs(v) do zs[#zs + 1] = C(r, i) end end
    local A, B = {}, {}
    for _, x in ipairs(zs) do for _, y in ipairs(zs) do A[#A + 1] = x; B[#B + 1] = y end end
    local a, b = gpu.array(A, "complex128"), gpu.array(B, "complex128")
    local function same(x, y) return x ~= x and y ~= y or x == y and 1 / x == 1 / y end
    for op, f in pairs({["*"] = function(x, y) return x * y end, ["/"] = function(x, y) return x / y end}) do
      local d = f(a, b):totable()
      for k = 1, #A do
        local h = f(A[k], B[k])
        assert.is_true(same(h.re, d[k].re) and same(h.im, d[k].im),
                       ("%s %s %s: host %s, arrays %s"):format(tostring(A[k]), op, tostring(B[k]), tostring(h), tostring(d[k])))
      end
    end
  end)

  it("max and min give the first NaN, the element argmax and argmin name", function()
    local nan = 0 / 0
    local m = gpu.array({C(1, 2), C(nan, 0), C(3, nan), C(0, 0)}, "complex128")
    assert.are.equal(2, m:argmax())
    for _, v in ipairs({m:max(), m:min()}) do assert.is_true(v.re ~= v.re and v.im == 0, tostring(v)) end
    local r = gpu.array({{C(1, 2), C(5, 0)}, {C(3, nan), C(0, 0)}}, "complex64")
    assert.are.same({"3+nanj", "5+0j"}, {tostring(r:max(1):item(1)), tostring(r:max(1):item(2))})
    assert.are.equal(C(1, 3), gpu.array({C(1, 2), C(1, 3), C(0, 9)}, "complex128"):max())
  end)
end)
