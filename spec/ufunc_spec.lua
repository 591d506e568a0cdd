-- Elementwise functions added for CuPy code (host/opdefs.c, kernels/ops/ew.cuh): their dtypes
-- against NumPy's (u:result_dtype), and their values against
-- NumPy 1.24's, written here as literals (computed once with NumPy; CI has none), NaN,
-- infinities and -0.0 included. The values come from a few fused kernels (gpu.fuse), one
-- compile each, so the file stays quick on the CPU backend; the eager calls share the code.
local S = require("spec.support")
local C = gpu.complex
local INF, NAN = math.huge, math.abs(0 / 0)   -- a NaN without the sign bit, as NumPy's nan

-- got and want agree: NaN with NaN, exact (signed zeros too) when tol is 0, else within a
-- relative tol
local function same(g, w, tol)
  if type(w) == "boolean" or math.type(w) == "integer" then return g == w end
  if w ~= w then return g ~= g end
  if tol == 0 or w == INF or w == -INF or w == 0 then
    return g == w and (w ~= 0 or 1 / g == 1 / w)
  end
  return math.abs(g - w) <= tol * math.abs(w)
end
local function check(name, got, want, tol)
  local t = got:totable()
  assert.are.equal(#want, #t, name)
  for i, w in ipairs(want) do
    local g = t[i]
    local ok
    if type(w) == "userdata" then
      ok = same(g.re, w.re, tol) and same(g.im, w.im, tol)
    else
      ok = same(g, w, tol)
    end
    if not ok then
      error(("%s element %d: expected %s, got %s"):format(name, i, tostring(w), tostring(g)), 2)
    end
  end
end

describe("more elementwise functions", function()
  it("give NumPy's dtypes, and refuse what NumPy refuses", function()
    -- the result for each of bool, int8, uint8, int16, int32, int64, uint64, float32, float64, complex64, complex128 (false: refused)
    local dts = {"bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"}
    local unary = {
    {"asinh", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"acosh", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"atanh", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"cbrt", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"erf", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"erfc", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"lgamma", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"tgamma", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"deg2rad", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"rad2deg", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"radians", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"degrees", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"sinc", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"rint", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"fabs", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", false, false}},
    {"angle", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "float32", "float64"}},
    {"square", {"int8", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"}},
    {"reciprocal", {"int8", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"}},
    {"signbit", {"bool", "bool", "bool", "bool", "bool", "bool", "bool", "bool", "bool", false, false}},
    {"fix", {"bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", false, false}},
    {"positive", {false, "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"}},
    {"absolute", {"bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", "float32", "float64"}},
    {"conjugate", {"int8", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"}},
    {"arcsin", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"arccos", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"arctan", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"arcsinh", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"arccosh", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    {"arctanh", {"float16", "float16", "float16", "float32", "float64", "float64", "float64", "float32", "float64", "complex64", "complex128"}},
    }
    for _, row in ipairs(unary) do
      local u = gpu[row[1]]
      for i, dt in ipairs(dts) do
        local ok, got = pcall(u.result_dtype, u, dt)
        assert.are.equal(row[2][i], ok and got, row[1] .. "(" .. dt .. ")")
      end
    end
    local pairs = {{"int8", "int8"}, {"uint8", "uint8"}, {"bool", "bool"}, {"int64", "int64"}, {"uint64", "uint64"}, {"int8", "uint8"}, {"uint64", "int64"}, {"int8", "float32"}, {"int32", "float32"}, {"float32", "float64"}, {"float32", "float32"}, {"complex64", "complex64"}, {"complex64", "float64"}}
    local binary = {
    {"hypot", {"float16", "float16", "float16", "float64", "float64", "float16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"copysign", {"float16", "float16", "float16", "float64", "float64", "float16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"nextafter", {"float16", "float16", "float16", "float64", "float64", "float16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"logaddexp", {"float16", "float16", "float16", "float64", "float64", "float16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"logaddexp2", {"float16", "float16", "float16", "float64", "float64", "float16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"heaviside", {"float16", "float16", "float16", "float64", "float64", "float16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"float_power", {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "complex128", "complex128"}},
    {"fmod", {"int8", "uint8", "int8", "int64", "uint64", "int16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"fmax", {"int8", "uint8", "bool", "int64", "uint64", "int16", "float64", "float32", "float64", "float64", "float32", "complex64", "complex128"}},
    {"fmin", {"int8", "uint8", "bool", "int64", "uint64", "int16", "float64", "float32", "float64", "float64", "float32", "complex64", "complex128"}},
    {"gcd", {"int8", "uint8", false, "int64", "uint64", "int16", false, false, false, false, false, false, false}},
    {"lcm", {"int8", "uint8", false, "int64", "uint64", "int16", false, false, false, false, false, false, false}},
    {"arctan2", {"float16", "float16", "float16", "float64", "float64", "float16", "float64", "float32", "float64", "float64", "float32", false, false}},
    {"true_divide", {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float32", "float64", "float64", "float32", "complex64", "complex128"}},
    }
    for _, row in ipairs(binary) do
      local u = gpu[row[1]]
      for i, p in ipairs(pairs) do
        local ok, got = pcall(u.result_dtype, u, p[1], p[2])
        assert.are.equal(row[2][i], ok and got, row[1] .. "(" .. p[1] .. ", " .. p[2] .. ")")
      end
    end
    -- weak Lua numbers take the array's dtype (NEP 50)
    assert.are.equal("float32", gpu.hypot:result_dtype("float32", 2))
    assert.are.equal("int8", gpu.fmod:result_dtype("int8", 3))
    assert.are.equal("float64", gpu.fmod:result_dtype("int8", 2.5))
    assert.are.equal("float64", gpu.float_power:result_dtype("float32", 2))
    assert.are.equal("int16", gpu.gcd:result_dtype("int16", 6))
    assert.matches("gpu.gcd: takes integer arrays only", S.errof(gpu.gcd, gpu.array({1.5}), 2))
    assert.matches("gpu.lcm: takes integer arrays only", S.errof(gpu.lcm, gpu.array({1, 2}, "int32"), 2.5))
    assert.matches("gpu.positive: not defined for bool arrays", S.errof(gpu.positive, gpu.array({true}, "bool")))
    assert.matches("gpu.signbit is not defined for complex arrays", S.errof(gpu.signbit, gpu.zeros(2, "complex64")))
    assert.matches("gpu.fmod is not defined for complex arrays", S.errof(gpu.fmod, gpu.zeros(2, "complex64"), 1))
    assert.matches("gpu.arctan2 takes 2 arguments", S.errof(gpu.arctan2, gpu.zeros(2)))
  end)

  it("compute NumPy's values on float64, NaN, infinities and -0.0 included (1)", function()
    local x = gpu.array({-INF, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1e-30, 100.0, 0.75, -0.99}, "float64")
    local y = gpu.array({0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1e-30, 100.0, 0.75, -0.99, -INF, -2.5, -1.0, -0.5, -0.0}, "float64")
    local f = gpu.fuse(function(x, y)
      return gpu.asinh(x),
        gpu.acosh(x),
        x:atanh(),
        gpu.cbrt(x),
        gpu.deg2rad(x),
        gpu.degrees(x),
        gpu.sinc(x),
        gpu.rint(x),
        gpu.fabs(x),
        gpu.angle(x),
        gpu.hypot(x, y),
        gpu.copysign(x, y),
        gpu.nextafter(x, y),
        gpu.logaddexp(x, y)
    end)
    local r = {f(x, y)}
    assert.are.equal("float64", r[1].dtype)
    check("asinh", r[1], {-INF, -1.6472311463710958, -0.881373587019543, -0.48121182505960347, -0.0, 0.0, 0.48121182505960347, 0.881373587019543, 1.6472311463710958, 1.8184464592320668, INF, NAN, 1e-30, 5.298342365610589, 0.6931471805599453, -0.8742848121872949}, 1e-14)
    assert.are.equal("float64", r[2].dtype)
    check("acosh", r[2], {NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0.0, 1.566799236972411, 1.762747174039086, INF, NAN, NAN, 5.298292365610484, NAN, NAN}, 1e-14)
    assert.are.equal("float64", r[3].dtype)
    check("atanh", r[3], {NAN, NAN, -INF, -0.5493061443340548, -0.0, 0.0, 0.5493061443340548, INF, NAN, NAN, NAN, NAN, 1e-30, NAN, 0.9729550745276566, -2.6466524123622457}, 1e-14)
    assert.are.equal("float64", r[4].dtype)
    check("cbrt", r[4], {-INF, -1.3572088082974532, -1.0, -0.7937005259840998, -0.0, 0.0, 0.7937005259840998, 1.0, 1.3572088082974532, 1.4422495703074083, INF, NAN, 1e-10, 4.641588833612778, 0.9085602964160697, -0.9966554934125964}, 1e-14)
    assert.are.equal("float64", r[5].dtype)
    check("deg2rad", r[5], {-INF, -0.04363323129985824, -0.017453292519943295, -0.008726646259971648, -0.0, 0.0, 0.008726646259971648, 0.017453292519943295, 0.04363323129985824, 0.05235987755982989, INF, NAN, 1.7453292519943296e-32, 1.7453292519943295, 0.013089969389957472, -0.017278759594743863}, 1e-14)
    assert.are.equal("float64", r[6].dtype)
    check("rad2deg", r[6], {-INF, -143.2394487827058, -57.29577951308232, -28.64788975654116, -0.0, 0.0, 28.64788975654116, 57.29577951308232, 143.2394487827058, 171.88733853924697, INF, NAN, 5.729577951308233e-29, 5729.5779513082325, 42.97183463481174, -56.7228217179515}, 1e-14)
    assert.are.equal("float64", r[7].dtype)
    check("sinc", r[7], {NAN, 0.12732395447351627, 3.8981718325193755e-17, 0.6366197723675814, 1.0, 1.0, 0.6366197723675814, 3.8981718325193755e-17, 0.12732395447351627, 3.8981718325193755e-17, NAN, NAN, 1.0, 6.2528371445095934e-18, 0.3001054387190354, 0.010099348633439868}, 1e-14)
    assert.are.equal("float64", r[8].dtype)
    check("rint", r[8], {-INF, -2.0, -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, 2.0, 3.0, INF, NAN, 0.0, 100.0, 1.0, -1.0}, 0)
    assert.are.equal("float64", r[9].dtype)
    check("fabs", r[9], {INF, 2.5, 1.0, 0.5, 0.0, 0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1e-30, 100.0, 0.75, 0.99}, 0)
    assert.are.equal("float64", r[10].dtype)
    check("angle", r[10], {3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 3.141592653589793, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, NAN, 0.0, 0.0, 0.0, 3.141592653589793}, 0)
    assert.are.equal("float64", r[11].dtype)
    check("hypot", r[11], {INF, 2.5495097567963922, 1.4142135623730951, 2.5495097567963922, 3.0, INF, NAN, 1.0, 100.03124511871279, 3.092329219213245, INF, INF, 2.5, 100.00499987500625, 0.9013878188659973, 0.99}, 1e-14)
    assert.are.equal("float64", r[12].dtype)
    check("copysign", r[12], {INF, 2.5, 1.0, 0.5, 0.0, 0.0, 0.5, 1.0, 2.5, 3.0, -INF, NAN, -1e-30, -100.0, -0.75, -0.99}, 0)
    assert.are.equal("float64", r[13].dtype)
    check("nextafter", r[13], {-1.7976931348623157e+308, -2.4999999999999996, -0.9999999999999999, -0.49999999999999994, 5e-324, 5e-324, NAN, 0.9999999999999999, 2.5000000000000004, 2.9999999999999996, 1.7976931348623157e+308, NAN, 9.999999999999999e-31, 99.99999999999999, 0.7499999999999999, -0.9899999999999999}, 0)
    assert.are.equal("float64", r[14].dtype)
    check("logaddexp", r[14], {0.0, 0.548587351573742, 1.1269280110429725, 2.548587351573742, 3.048587351573742, INF, NAN, 1.3132616875182228, 100.0, 3.100206558916747, INF, NAN, 0.07888973429254963, 100.0, 1.001929081345373, 0.3159609474567208}, 1e-14)
  end)
  it("compute NumPy's values on float64, NaN, infinities and -0.0 included (2)", function()
    local x = gpu.array({-INF, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1e-30, 100.0, 0.75, -0.99}, "float64")
    local y = gpu.array({0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1e-30, 100.0, 0.75, -0.99, -INF, -2.5, -1.0, -0.5, -0.0}, "float64")
    local f = gpu.fuse(function(x, y)
      return gpu.logaddexp2(x, y),
        gpu.heaviside(x, 0.5),
        gpu.float_power(x, y),
        x:square(),
        gpu.reciprocal(x),
        gpu.fmod(x, y),
        gpu.fmax(x, y),
        gpu.fmin(x, y),
        gpu.signbit(x),
        gpu.fix(x),
        gpu.positive(x),
        gpu.arcsinh(y),
        gpu.arctan2(x, y),
        gpu.absolute(y)
    end)
    local r = {f(x, y)}
    assert.are.equal("float64", r[1].dtype)
    check("logaddexp2", r[1], {0.0, 0.6699250014423124, 1.3219280948873624, 2.669925001442312, 3.169925001442312, INF, NAN, 1.584962500721156, 100.0, 3.2752742239656296, INF, NAN, 0.23484058107920172, 100.0, 1.2563462289494158, 0.5883035416110455}, 1e-14)
    assert.are.equal("float64", r[2].dtype)
    check("heaviside", r[2], {0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, NAN, 1.0, 1.0, 1.0, 0.0}, 0)
    assert.are.equal("float64", r[3].dtype)
    check("float_power", r[3], {1.0, NAN, -1.0, NAN, -0.0, 0.0, NAN, 1.0, 6.223015277861142e+39, 2.2795070569547775, 0.0, NAN, 9.999999999999997e+74, 0.01, 1.1547005383792515, 1.0}, 1e-14)
    assert.are.equal("float64", r[4].dtype)
    check("square", r[4], {INF, 6.25, 1.0, 0.25, 0.0, 0.0, 0.25, 1.0, 6.25, 9.0, INF, NAN, 1.0000000000000001e-60, 10000.0, 0.5625, 0.9801}, 0)
    assert.are.equal("float64", r[5].dtype)
    check("reciprocal", r[5], {-0.0, -0.4, -1.0, -2.0, -INF, INF, 2.0, 1.0, 0.4, 0.3333333333333333, 0.0, NAN, 9.999999999999999e+29, 0.01, 1.3333333333333333, -1.0101010101010102}, 0)
    assert.are.equal("float64", r[6].dtype)
    check("fmod", r[6], {NAN, -0.0, -0.0, -0.5, -0.0, 0.0, NAN, 2.1594027663657615e-32, 2.5, 0.0, NAN, NAN, 1e-30, 0.0, 0.25, NAN}, 0)
    assert.are.equal("float64", r[7].dtype)
    check("fmax", r[7], {0.0, 0.5, 1.0, 2.5, 3.0, INF, 0.5, 1.0, 100.0, 3.0, INF, -INF, 1e-30, 100.0, 0.75, -0.0}, 0)
    assert.are.equal("float64", r[8].dtype)
    check("fmin", r[8], {-INF, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1e-30, 2.5, 0.75, -0.99, -INF, -2.5, -1.0, -0.5, -0.99}, 0)
    assert.are.equal("bool", r[9].dtype)
    check("signbit", r[9], {true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, true}, 0)
    assert.are.equal("float64", r[10].dtype)
    check("fix", r[10], {-INF, -2.0, -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, 2.0, 3.0, INF, NAN, 0.0, 100.0, 0.0, -0.0}, 0)
    assert.are.equal("float64", r[11].dtype)
    check("positive", r[11], {-INF, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1e-30, 100.0, 0.75, -0.99}, 0)
    assert.are.equal("float64", r[12].dtype)
    check("arcsinh", r[12], {0.0, 0.48121182505960347, 0.881373587019543, 1.6472311463710958, 1.8184464592320668, INF, NAN, 1e-30, 5.298342365610589, 0.6931471805599453, -0.8742848121872949, -INF, -1.6472311463710958, -0.881373587019543, -0.48121182505960347, -0.0}, 1e-14)
    assert.are.equal("float64", r[13].dtype)
    check("arctan2", r[13], {-1.5707963267948966, -1.373400766945016, -0.7853981633974483, -0.19739555984988075, -0.0, 0.0, NAN, 1.5707963267948966, 0.02499479361892016, 1.3258176636680326, 1.5707963267948966, NAN, 3.141592653589793, 1.5807959934815619, 2.158798930342464, -1.5707963267948966}, 1e-14)
    assert.are.equal("float64", r[14].dtype)
    check("absolute", r[14], {0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1e-30, 100.0, 0.75, 0.99, INF, 2.5, 1.0, 0.5, 0.0}, 1e-14)
  end)
  it("compute NumPy's values on float32, NaN, infinities and -0.0 included", function()
    local x = gpu.array({-INF, -2.5, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1.0000000031710769e-30, 100.0, 0.75, -0.9900000095367432}, "float32")
    local y = gpu.array({0.0, 0.5, 1.0, 2.5, 3.0, INF, NAN, 1.0000000031710769e-30, 100.0, 0.75, -0.9900000095367432, -INF, -2.5, -1.0, -0.5, -0.0}, "float32")
    local f = gpu.fuse(function(x, y)
      return gpu.asinh(x),
        gpu.cbrt(x),
        gpu.radians(x),
        gpu.rad2deg(x),
        gpu.sinc(x),
        gpu.rint(x),
        gpu.hypot(x, y),
        gpu.nextafter(x, y),
        gpu.logaddexp(x, y),
        gpu.logaddexp2(x, y),
        gpu.fmod(x, y),
        gpu.fmax(x, y),
        gpu.signbit(x),
        gpu.float_power(x, y)
    end)
    local r = {f(x, y)}
    assert.are.equal("float32", r[1].dtype)
    check("asinh", r[1], {-INF, -1.6472312211990356, -0.8813735842704773, -0.4812118411064148, -0.0, 0.0, 0.4812118411064148, 0.8813735842704773, 1.6472312211990356, 1.8184465169906616, INF, NAN, 1.0000000031710769e-30, 5.298342227935791, 0.6931471824645996, -0.8742848038673401}, 1e-06)
    assert.are.equal("float32", r[2].dtype)
    check("cbrt", r[2], {-INF, -1.3572088479995728, -1.0, -0.7937005162239075, -0.0, 0.0, 0.7937005162239075, 1.0, 1.3572088479995728, 1.4422495365142822, INF, NAN, 1.000000013351432e-10, 4.6415886878967285, 0.9085602760314941, -0.9966555237770081}, 1e-06)
    assert.are.equal("float32", r[3].dtype)
    check("deg2rad", r[3], {-INF, -0.04363323003053665, -0.01745329238474369, -0.008726646192371845, -0.0, 0.0, 0.008726646192371845, 0.01745329238474369, 0.04363323003053665, 0.05235987901687622, INF, NAN, 1.7453291963788074e-32, 1.7453292608261108, 0.013089969754219055, -0.01727875880897045}, 1e-06)
    assert.are.equal("float32", r[4].dtype)
    check("rad2deg", r[4], {-INF, -143.23944091796875, -57.2957763671875, -28.64788818359375, -0.0, 0.0, 28.64788818359375, 57.2957763671875, 143.23944091796875, 171.8873291015625, INF, NAN, 5.729577788122619e-29, 5729.57763671875, 42.971832275390625, -56.72282028198242}, 1e-06)
    assert.are.equal("float32", r[5].dtype)
    check("sinc", r[5], {NAN, 0.1273239552974701, -2.7827534054836178e-08, 0.6366197466850281, 1.0, 1.0, 0.6366197466850281, -2.7827534054836178e-08, 0.1273239552974701, -2.530538223410872e-09, NAN, NAN, 1.0, 1.8720616168366178e-08, 0.30010542273521423, 0.010099325329065323}, 1e-06)
    assert.are.equal("float32", r[6].dtype)
    check("rint", r[6], {-INF, -2.0, -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, 2.0, 3.0, INF, NAN, 0.0, 100.0, 1.0, -1.0}, 0)
    assert.are.equal("float32", r[7].dtype)
    check("hypot", r[7], {INF, 2.5495097637176514, 1.4142135381698608, 2.5495097637176514, 3.0, INF, NAN, 1.0, 100.03124237060547, 3.092329263687134, INF, INF, 2.5, 100.00499725341797, 0.9013878107070923, 0.9900000095367432}, 1e-06)
    assert.are.equal("float32", r[8].dtype)
    check("nextafter", r[8], {-3.4028234663852886e+38, -2.499999761581421, -0.9999999403953552, -0.4999999701976776, 1.401298464324817e-45, 1.401298464324817e-45, NAN, 0.9999999403953552, 2.500000238418579, 2.999999761581421, 3.4028234663852886e+38, NAN, 9.999999091315288e-31, 99.99999237060547, 0.7499999403953552, -0.9899999499320984}, 0)
    assert.are.equal("float32", r[9].dtype)
    check("logaddexp", r[9], {0.0, 0.5485873222351074, 1.1269279718399048, 2.5485873222351074, 3.0485873222351074, INF, NAN, 1.3132617473602295, 100.0, 3.1002066135406494, INF, NAN, 0.07888973504304886, 100.0, 1.0019290447235107, 0.31596094369888306}, 1e-06)
    assert.are.equal("float32", r[10].dtype)
    check("logaddexp2", r[10], {0.0, 0.6699249744415283, 1.3219280242919922, 2.6699249744415283, 3.1699249744415283, INF, NAN, 1.5849624872207642, 100.0, 3.2752742767333984, INF, NAN, 0.23484057188034058, 100.0, 1.2563462257385254, 0.5883035063743591}, 1e-06)
    assert.are.equal("float32", r[11].dtype)
    check("fmod", r[11], {NAN, -0.0, -0.0, -0.5, -0.0, 0.0, NAN, 7.272100821418535e-31, 2.5, 0.0, NAN, NAN, 1.0000000031710769e-30, 0.0, 0.25, NAN}, 0)
    assert.are.equal("float32", r[12].dtype)
    check("fmax", r[12], {0.0, 0.5, 1.0, 2.5, 3.0, INF, 0.5, 1.0, 100.0, 3.0, INF, -INF, 1.0000000031710769e-30, 100.0, 0.75, -0.0}, 0)
    assert.are.equal("bool", r[13].dtype)
    check("signbit", r[13], {true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, true}, 0)
    assert.are.equal("float64", r[14].dtype)
    check("float_power", r[14], {1.0, NAN, -1.0, NAN, -0.0, 0.0, NAN, 1.0, 6.223015277861142e+39, 2.2795070569547775, 0.0, NAN, 9.999999920723079e+74, 0.01, 1.1547005383792515, 1.0}, 1e-06)
  end)
  it("compute NumPy's values on integers (reciprocal of 0 is 0, as CuPy's; fmod by 0 is 0)", function()
    local a = gpu.array({-128, -7, -1, 0, 1, 5, 127, 6, 100, -100, 12, 120}, "int8")
    local b = gpu.array({0, -128, 3, 0, -1, 10, 2, -18, 3, 3, -18, 7}, "int8")
    local p = gpu.array({math.mininteger, -12, -1, 0, 1, 18, 9223372036854775807, 30, 4000000000, -6, 35, 2}, "int64")
    local q = gpu.array({-1, 8, 0, 5, -1, -12, 2, 45, 6000000000, 0, -21, 2}, "int64")
    local f = gpu.fuse(function(a, b, p, q)
      return gpu.reciprocal(a),
        gpu.fmod(a, b),
        gpu.gcd(a, b),
        gpu.lcm(a, b),
        a:square(),
        gpu.fmax(a, b),
        gpu.reciprocal(p),
        gpu.fmod(p, q),
        gpu.gcd(p, q),
        p:lcm(q),
        gpu.fmin(p, q),
        gpu.signbit(p)
    end)
    local r = {f(a, b, p, q)}
    assert.are.equal("int8", r[1].dtype)
    check("reciprocal int8", r[1], {0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0}, 0)
    assert.are.equal("int8", r[2].dtype)
    check("fmod int8", r[2], {0, -7, -1, 0, 0, 5, 1, 6, 1, -1, 12, 1}, 0)
    assert.are.equal("int8", r[3].dtype)
    check("gcd int8", r[3], {-128, 1, 1, 0, 1, 5, 1, 6, 1, 1, 6, 1}, 0)
    assert.are.equal("int8", r[4].dtype)
    check("lcm int8", r[4], {0, -128, 3, 0, 1, 10, -2, 18, 44, 44, 36, 72}, 0)
    assert.are.equal("int8", r[5].dtype)
    check("square int8", r[5], {0, 49, 1, 0, 1, 25, 1, 36, 16, 16, -112, 64}, 0)
    assert.are.equal("int8", r[6].dtype)
    check("fmax int8", r[6], {0, -7, 3, 0, 1, 10, 127, 6, 100, 3, 12, 120}, 0)
    assert.are.equal("int64", r[7].dtype)
    check("reciprocal int64", r[7], {0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0, 0}, 0)
    assert.are.equal("int64", r[8].dtype)
    check("fmod int64", r[8], {0, -4, 0, 0, 0, 6, 1, 30, 4000000000, 0, 14, 0}, 0)
    assert.are.equal("int64", r[9].dtype)
    check("gcd int64", r[9], {1, 4, 1, 5, 1, 6, 1, 15, 2000000000, 6, 7, 2}, 0)
    assert.are.equal("int64", r[10].dtype)
    check("lcm int64", r[10], {math.mininteger, 24, 0, 0, 1, 36, -2, 90, 12000000000, 0, 105, 2}, 0)
    assert.are.equal("int64", r[11].dtype)
    check("fmin int64", r[11], {math.mininteger, -12, -1, 0, -1, -12, 2, 30, 4000000000, -6, -21, 2}, 0)
    assert.are.equal("bool", r[12].dtype)
    check("signbit int64", r[12], {true, true, true, false, false, false, false, false, false, true, false, false}, 0)
  end)
  it("compute NumPy's values on complex128 (the sides of the branch cuts too)", function()
    local z = gpu.array({C(1.0, 2.0), C(-1.0, -0.5), C(0.0, 0.0), C(-2.0, 0.0), C(0.5, -3.0), C(0.0, 2.0), C(-0.25, 0.25), C(3.0, 0.0), C(NAN, 1.0), C(0.5, 0.5), C(3.0, -0.0), C(-2.0, -0.0), C(0.0, -2.0)}, "complex128")
    local v = gpu.array({C(0.5, -3.0), C(0.0, 2.0), C(-0.25, 0.25), C(3.0, 0.0), C(NAN, 1.0), C(0.5, 0.5), C(3.0, -0.0), C(-2.0, -0.0), C(0.0, -2.0), C(1.0, 2.0), C(-1.0, -0.5), C(0.0, 0.0), C(-2.0, 0.0)}, "complex128")
    local f = gpu.fuse(function(z, v)
      return gpu.asinh(z),
        gpu.acosh(z),
        gpu.atanh(z),
        gpu.sinc(z),
        gpu.rint(z),
        gpu.angle(z),
        gpu.square(z),
        gpu.reciprocal(v),
        gpu.float_power(z, v),
        gpu.fmax(z, v),
        gpu.fmin(z, v),
        gpu.conjugate(z),
        gpu.arcsin(z),
        gpu.arctan(z)
    end)
    local r = {f(z, v)}
    assert.are.equal("complex128", r[1].dtype)
    check("asinh", r[1], {C(1.4693517443681852, 1.0634400235777521), C(-0.9261330313501825, -0.34943906285721327), C(0.0, 0.0), C(-1.4436354751788103, 0.0), C(1.7789904938267689, -1.3961498617094474), C(1.3169578969248166, 1.5707963267948966), C(-0.2548955733405508, 0.24452216513554018), C(1.8184464592320668, 0.0), C(NAN, NAN), C(0.5306375309525179, 0.45227844715119064), C(1.8184464592320668, -0.0), C(-1.4436354751788103, -0.0), C(1.3169578969248166, -1.5707963267948966)}, 1e-12)
    assert.are.equal("complex128", r[2].dtype)
    check("acosh", r[2], {C(1.528570919480998, 1.1437177404024206), C(0.7328576759736453, -2.466703808003787), C(0.0, 1.5707963267948966), C(1.3169578969248166, 3.141592653589793), C(1.8301947623375088, -1.4137917320059543), C(1.4436354751788103, 1.5707963267948966), C(0.2548955733405508, 1.8153184919304368), C(1.762747174039086, 0.0), C(NAN, NAN), C(0.5306375309525179, 1.118517879643706), C(1.762747174039086, -0.0), C(1.3169578969248166, -3.141592653589793), C(1.4436354751788103, -1.5707963267948966)}, 1e-12)
    assert.are.equal("complex128", r[3].dtype)
    check("atanh", r[3], {C(0.17328679513998632, 1.1780972450961724), C(-0.708303336014054, -0.9078874949608804), C(0.0, 0.0), C(-0.5493061443340549, 1.5707963267948966), C(0.04893614428152383, -1.2563981835871803), C(0.0, 1.1071487177940904), C(-0.2388778612568591, 0.25957305712326145), C(0.34657359027997264, 1.5707963267948966), C(NAN, NAN), C(0.40235947810852507, 0.5535743588970452), C(0.34657359027997264, -1.5707963267948966), C(-0.5493061443340549, -1.5707963267948966), C(0.0, -1.1071487177940904)}, 1e-12)
    assert.are.equal("complex128", r[4].dtype)
    check("sinc", r[4], {C(-34.09033869939481, -17.04516934969741), C(-0.2930104766673269, -0.5860209533346539), C(1.0, 0.0), C(-3.8981718325193755e-17, -0.0), C(106.60497375824426, 639.6298425494654), C(42.61292337424352, 0.0), C(0.9873229077906603, 0.20524426779292482), C(3.8981718325193755e-17, -0.0), C(NAN, NAN), C(0.7986963159564631, -0.7986963159564631), C(3.8981718325193755e-17, -0.0), C(-3.8981718325193755e-17, 0.0), C(42.61292337424352, -0.0)}, 1e-12)
    assert.are.equal("complex128", r[5].dtype)
    check("rint", r[5], {C(1.0, 2.0), C(-1.0, -0.0), C(0.0, 0.0), C(-2.0, 0.0), C(0.0, -3.0), C(0.0, 2.0), C(-0.0, 0.0), C(3.0, 0.0), C(NAN, 1.0), C(0.0, 0.0), C(3.0, -0.0), C(-2.0, -0.0), C(0.0, -2.0)}, 0)
    assert.are.equal("float64", r[6].dtype)
    check("angle", r[6], {1.1071487177940904, -2.677945044588987, 0.0, 3.141592653589793, -1.4056476493802699, 1.5707963267948966, 2.356194490192345, 0.0, NAN, 0.7853981633974483, -0.0, -3.141592653589793, -1.5707963267948966}, 1e-12)
    assert.are.equal("complex128", r[7].dtype)
    check("square", r[7], {C(-3.0, 4.0), C(0.75, 1.0), C(0.0, 0.0), C(4.0, -0.0), C(-8.75, -3.0), C(-4.0, 0.0), C(0.0, -0.125), C(9.0, 0.0), C(NAN, NAN), C(0.0, 0.5), C(9.0, -0.0), C(4.0, 0.0), C(-4.0, -0.0)}, 0)
    assert.are.equal("complex128", r[8].dtype)
    check("reciprocal", r[8], {C(0.05405405405405405, 0.3243243243243243), C(0.0, -0.5), C(-2.0, -2.0), C(0.3333333333333333, -0.0), C(NAN, NAN), C(1.0, -1.0), C(0.3333333333333333, 0.0), C(-0.5, 0.0), C(0.0, 0.5), C(0.2, -0.4), C(-0.8, 0.4), C(NAN, NAN), C(-0.5, -0.0)}, 1e-12)
    assert.are.equal("complex128", r[9].dtype)
    check("float_power", r[9], {C(-11.83614884716006, -39.69465112584049), C(206.5999199208188, 46.88217052577936), C(NAN, NAN), C(-8.0, 0.0), C(NAN, NAN), C(0.2739572538301211, 0.5837007587586147), C(0.03125, 0.03125), C(0.1111111111111111, 0.0), C(NAN, NAN), C(0.1463680281763443, 0.013541028751723765), C(0.2842956621026202, -0.1740318580626659), C(1.0, 0.0), C(-0.25, -0.0)}, 1e-12)
    assert.are.equal("complex128", r[10].dtype)
    check("fmax", r[10], {C(1.0, 2.0), C(0.0, 2.0), C(0.0, 0.0), C(3.0, 0.0), C(0.5, -3.0), C(0.5, 0.5), C(3.0, -0.0), C(3.0, 0.0), C(0.0, -2.0), C(1.0, 2.0), C(3.0, -0.0), C(0.0, 0.0), C(0.0, -2.0)}, 0)
    assert.are.equal("complex128", r[11].dtype)
    check("fmin", r[11], {C(0.5, -3.0), C(-1.0, -0.5), C(-0.25, 0.25), C(-2.0, 0.0), C(0.5, -3.0), C(0.0, 2.0), C(-0.25, 0.25), C(-2.0, -0.0), C(0.0, -2.0), C(0.5, 0.5), C(-1.0, -0.5), C(-2.0, -0.0), C(-2.0, 0.0)}, 0)
    assert.are.equal("complex128", r[12].dtype)
    check("conjugate", r[12], {C(1.0, -2.0), C(-1.0, 0.5), C(0.0, -0.0), C(-2.0, -0.0), C(0.5, 3.0), C(0.0, -2.0), C(-0.25, -0.25), C(3.0, -0.0), C(NAN, -1.0), C(0.5, -0.5), C(3.0, 0.0), C(-2.0, 0.0), C(0.0, 2.0)}, 0)
    assert.are.equal("complex128", r[13].dtype)
    check("arcsin", r[13], {C(0.42707858639247614, 1.528570919480998), C(-0.8959074812088902, -0.7328576759736453), C(0.0, 0.0), C(-1.5707963267948966, 1.3169578969248166), C(0.15700459478894227, -1.8301947623375088), C(0.0, 1.4436354751788103), C(-0.24452216513554018, 0.2548955733405508), C(1.5707963267948966, 1.762747174039086), C(NAN, NAN), C(0.45227844715119064, 0.5306375309525179), C(1.5707963267948966, -1.762747174039086), C(-1.5707963267948966, -1.3169578969248166), C(0.0, -1.4436354751788103)}, 1e-12)
    assert.are.equal("complex128", r[14].dtype)
    check("arctan", r[14], {C(1.3389725222944935, 0.40235947810852507), C(-0.847575660670829, -0.2388778612568591), C(0.0, 0.0), C(-1.1071487177940904, 0.0), C(1.5104844925048453, -0.33529348145985527), C(1.5707963267948966, 0.5493061443340549), C(-0.25957305712326145, 0.23887786125685911), C(1.2490457723982544, 0.0), C(NAN, NAN), C(0.5535743588970452, 0.40235947810852507), C(1.2490457723982544, -0.0), C(-1.1071487177940904, -0.0), C(1.5707963267948966, -0.5493061443340549)}, 1e-12)
  end)
  it("replace NaN and infinities as NumPy's nan_to_num, eagerly, with out= and as a method", function()
    local x = gpu.array({NAN, INF, -INF, 1.5, -0.0}, "float32")
    check("nan_to_num", gpu.nan_to_num(x), {0.0, 3.4028234663852886e+38, -3.4028234663852886e+38, 1.5, -0.0}, 0)
    local y = gpu.empty(5, "float32")
    assert.are.equal(y, x:nan_to_num({nan = 7, posinf = 1e300, neginf = -5, out = y}))
    check("nan_to_num opts", y, {7.0, INF, -5.0, 1.5, -0.0}, 0)
    local z = gpu.array({C(NAN, INF), C(-INF, 2.0), C(0.0, 1.0)}, "complex128")
    local r = gpu.nan_to_num(z, {posinf = 9})
    assert.are.equal("complex128", r.dtype)
    check("nan_to_num complex", r, {C(0.0, 9.0), C(-1.7976931348623157e+308, 2.0), C(0.0, 1.0)}, 0)
    local i = gpu.array({-3, 0, 7}, "int8")
    local c = gpu.nan_to_num(i, {nan = 1.5})
    assert.are.equal("int8", c.dtype)
    assert.are.same({-3, 0, 7}, c:totable())
    assert.are_not.equal(i, c)
    assert.matches("gpu.nan_to_num: posinf must be a number, got string", S.errof(gpu.nan_to_num, x, {posinf = "big"}))
    assert.matches("gpu.nan_to_num takes an array and an options table", S.errof(gpu.nan_to_num, x, 1))
  end)
end)

-- NumPy 1.24's values, computed once (as above); lua/ufuncs.lua and the kernels of
-- host/opdefs.c's spacing ... _ldexp
describe("NumPy's functions of a float's parts, of decimals and of complex numbers", function()
  local X = {-1.5, -0.0, INF, -INF, NAN, 2.5, 1.0, 5e-324, 1e+300, -3.0, 0.0, 7.25}
  local E = {1, -3, 2, 0, 5, -1075, 1024, 1074, -4000, 3, 0, 1099511627776}

  it("give NumPy's dtypes, and refuse what NumPy refuses", function()
    local dts = {"bool", "int8", "int32", "uint64", "float32", "float64"}
    local rows = {
      {"spacing", {"float16", "float16", "float64", "float64", "float32", "float64"}},
      {"isposinf", {"bool", "bool", "bool", "bool", "bool", "bool"}},
      {"i0", {"float64", "float64", "float64", "float64", "float32", "float64"}},   -- NumPy's i0 takes ints as float64
      {"equal", {"bool", "bool", "bool", "bool", "bool", "bool"}},
    }
    for _, row in ipairs(rows) do
      for i, dt in ipairs(dts) do
        local u = gpu[row[1]]
        local got = row[1] == "equal" and u:result_dtype(dt, dt) or u:result_dtype(dt)
        assert.are.equal(row[2][i], got, row[1] .. "(" .. dt .. ")")
      end
    end
    for _, name in ipairs({"spacing", "isposinf", "isneginf", "i0"}) do
      assert.matches("gpu." .. name .. " is not defined for complex arrays", S.errof(gpu[name], gpu.zeros(1, "complex64")))
    end
    assert.matches("gpu.modf is not defined for complex arrays", S.errof(gpu.modf, gpu.zeros(1, "complex128")))
    assert.matches("gpu.frexp is not defined for complex arrays", S.errof(gpu.frexp, gpu.zeros(1, "complex128")))
    assert.matches("gpu.ldexp: the exponent must be an integer or an integer array, got float 2.5",
                   S.errof(gpu.ldexp, gpu.zeros(1), 2.5))
    assert.matches("gpu.ldexp: the exponents must be integers of at most 63 bits, got uint64",
                   S.errof(gpu.ldexp, gpu.zeros(1), gpu.zeros(1, "uint64")))
    assert.matches("gpu.divmod: out must be a table of two arrays", S.errof(gpu.divmod, gpu.zeros(1), 1, {out = gpu.zeros(1)}))
    assert.matches("gpu.around: decimals must be an integer, got 1.5", S.errof(gpu.around, gpu.zeros(1), 1.5))
    assert.matches('gpu.around: decimals must be an integer, got a string ("1")', S.errof(gpu.around, gpu.zeros(1), "1"), 1, true)
    assert.matches("gpu.round: bool arrays round to 0 decimals only", S.errof(gpu.round, gpu.zeros(1, "bool"), 1))
    assert.matches("gpu.iscomplex: an array or a number expected, got string", S.errof(gpu.iscomplex, "x"))
    assert.matches("gpu.real_if_close: an array expected as argument 1, got number", S.errof(gpu.real_if_close, 1))
    -- errors name the caller's line
    assert.matches("ufunc_spec.lua:%d+: gpu.modf", S.errof(function() local r = gpu.modf(gpu.zeros(1, "complex64")); return r end))
    assert.matches("ufunc_spec.lua:%d+: gpu.ldexp", S.errof(function() local r = gpu.ldexp(gpu.zeros(1), 0.5); return r end))
    assert.matches("ufunc_spec.lua:%d+: gpu.round", S.errof(function() local r = gpu.round(gpu.zeros(1), "x"); return r end))
  end)

  it("spacing, isposinf, isneginf, modf, frexp, ldexp as NumPy's on float64", function()
    local x = gpu.array(X, "float64")
    check("spacing", gpu.spacing(x), {-2.220446049250313e-16, 5e-324, NAN, NAN, NAN, 4.440892098500626e-16, 2.220446049250313e-16, 5e-324, 1.487016908477783e+284, -4.440892098500626e-16, 5e-324, 8.881784197001252e-16}, 0)
    check("isposinf", gpu.isposinf(x), {false, false, true, false, false, false, false, false, false, false, false, false})
    check("isneginf", x:isneginf(), {false, false, false, true, false, false, false, false, false, false, false, false})
    local f, i = gpu.modf(x)
    assert.are.equal("float64", f.dtype)
    check("modf", f, {-0.5, -0.0, 0.0, -0.0, NAN, 0.5, 0.0, 5e-324, 0.0, -0.0, 0.0, 0.25}, 0)
    check("modf integral", i, {-1.0, -0.0, INF, -INF, NAN, 2.0, 1.0, 0.0, 1e+300, -3.0, 0.0, 7.0}, 0)
    local m, e = gpu.frexp(x)
    assert.are.equal("int32", e.dtype)
    check("frexp", m, {-0.75, -0.0, INF, -INF, NAN, 0.625, 0.5, 0.5, 0.7466108948025751, -0.75, 0.0, 0.90625}, 0)
    check("frexp exponent", e, {1, 0, 0, 0, 0, 2, 1, -1073, 997, 2, 0, 3})
    local y = gpu.ldexp(x, gpu.array(E, "int64"))
    assert.are.equal("float64", y.dtype)
    check("ldexp", y, {-3.0, -0.0, INF, -INF, NAN, 5e-324, INF, 1.0, 0.0, -24.0, 0.0, INF}, 0)
    check("ldexp back", gpu.ldexp(m, e), X, 0)   -- m 2^e is x
    assert.are.equal("float32", gpu.ldexp(gpu.array({1, 2}, "float32"), 3).dtype)
    assert.are.equal("float16", gpu.ldexp(gpu.array({1, 2}, "int8"), 3).dtype)
    -- a bool with a Lua exponent: float16 too, as numpy.ldexp's (not int64's float64)
    local b = gpu.ldexp(gpu.array({true, false}), 3)
    assert.are.equal("float16", b.dtype)
    check("ldexp of bools", b, {8, 0}, 0)
    assert.are.equal("float16", gpu.ldexp(true, 3).dtype)
    assert.are.equal("float16", gpu.ldexp(gpu.array({true}), true).dtype)
    assert.are.equal("float16", (gpu.modf(gpu.array({1}, "int8"))).dtype)
    -- into given arrays
    local o1, o2 = gpu.empty(12, "float64"), gpu.empty(12, "int64")
    local m2, e2 = gpu.frexp(x, {out = {o1, o2}})
    assert.are.equal(o1, m2)
    assert.are.equal(o2, e2)
    check("frexp into", e2, {1, 0, 0, 0, 0, 2, 1, -1073, 997, 2, 0, 3})
  end)

  it("i0 within 1e-15 of numpy.i0 (float64), float32 within a float32 rounding", function()
    local x = {0.0, 1e-05, 1.0, -2.5, 7.0, 15.0, 19.99, 20.01, 30.0, 100.0, 700.0, 709.5, 710.0, NAN}
    local want = {1.0, 1.0000000000249996, 1.2660658777520082, 3.289839144050123, 168.59390851028968, 339649.3732979138, 43135797.87064526, 43984910.83485729, 781672297823.9775, 1.0737517071310738e+42, 1.5295933476718735e+302, 2.0297630600755367e+306, INF, NAN}
    check("i0", gpu.i0(gpu.array(x, "float64")), want, 1e-15)
    local want32 = {0.9999999403953552, 1.0, 1.266066074371338, 3.289839267730713, 168.5939178466797, 339649.34375, 43135788.0, 43984920.0, 781672185856.0, INF, INF, INF, INF, NAN}
    local got32 = gpu.i0(gpu.array(x, "float32"))
    assert.are.equal("float32", got32.dtype)
    check("i0 float32", got32, want32, 3e-7)
    assert.are.equal(INF, gpu.i0(gpu.array({-INF})):item(1))   -- as CuPy's (NumPy's formula gives NaN)
    local got16 = gpu.i0(gpu.array({1, 2.5}, "float16"))    -- float16 stays too, as the README says
    assert.are.equal("float16", got16.dtype)
    check("i0 float16", got16, {1.265625, 3.2890625}, 0)   -- numpy.i0's
  end)

  it("divmod, around and round(a, decimals) as NumPy's", function()
    local q, r = gpu.divmod(gpu.array({7, -7, 7, 0, -8, 9}, "int32"), gpu.array({2, 2, 0, 3, -3, -4}, "int32"))
    assert.are.equal("int32", q.dtype)
    check("divmod q", q, {3, -4, 0, 0, 2, -3})
    check("divmod r", r, {1, 1, 0, 0, -2, -3})
    -- the quotient's errors named gpu.floor_divide (the remainder's named divmod)
    assert.are.equal("gpu.divmod argument 2 must be a device array or a number, got nil", S.errof(gpu.divmod, q))
    assert.are.equal("gpu.divmod is not defined for complex arrays (as in NumPy)", S.errof(gpu.divmod, gpu.ones(2, "complex64"), 1))
    q, r = gpu.divmod(gpu.array({7.5, -7.5, 1.0, -0.0, INF}, "float32"), 2)
    assert.are.equal("float32", r.dtype)
    check("divmod float q", q, {3.0, -4.0, 0.0, -0.0, NAN}, 0)
    check("divmod float r", r, {1.5, 0.5, 1.0, 0.0, NAN}, 0)
    local rx = gpu.array({1.25, 2.675, -0.125, 12345.678, -2.5, NAN, INF, 0.5}, "float64")
    check("round 2", gpu.round(rx, 2), {1.25, 2.68, -0.12, 12345.68, -2.5, NAN, INF, 0.5}, 0)
    check("round 1", rx:round(1), {1.2, 2.7, -0.1, 12345.7, -2.5, NAN, INF, 0.5}, 0)
    check("around -1", gpu.around(rx, -1), {0.0, 0.0, -0.0, 12350.0, -0.0, NAN, INF, 0.0}, 0)
    check("around -2", gpu.around(rx, -2), {0.0, 0.0, -0.0, 12300.0, -0.0, NAN, INF, 0.0}, 0)
    check("around 0", gpu.around(rx), {1.0, 3.0, -0.0, 12346.0, -2.0, NAN, INF, 0.0}, 0)
    local r32 = gpu.around(rx:astype("float32"), 1)
    assert.are.equal("float32", r32.dtype)
    check("around float32", r32, {1.2000000476837158, 2.700000047683716, -0.10000000149011612, 12345.7001953125, -2.5, NAN, INF, 0.5}, 0)
    local ri = gpu.array({15, 25, 35, -15, -25, 44, 50}, "int16")
    local got = gpu.around(ri, -1)
    assert.are.equal("int16", got.dtype)
    check("around int16", got, {20, 20, 40, -20, -20, 40, 50})
    check("around int16 2", gpu.around(ri, 2), {15, 25, 35, -15, -25, 44, 50})
    local rc = gpu.around(gpu.array({C(1.55, 2.25), C(-0.125, 3.05)}, "complex128"), 1)
    check("around complex", rc, {C(1.6, 2.2), C(-0.1, 3.0)}, 1e-15)
    -- each part alone, as NumPy's: the product with 10^d + 0j made inf+1j nan+nanj and
    -- 1.5-2.345j 0+0j at -1
    for _, dt in ipairs({"complex64", "complex128"}) do
      local zc = gpu.array({C(INF, 1), C(NAN, 1), C(1.5, -2.345), C(1, -INF)}, dt)
      check("around 1 " .. dt, gpu.around(zc, 1), {C(INF, 1), C(NAN, 1), C(1.5, gpu.array({C(0, -2.3)}, dt):item().im), C(1, -INF)}, 0)
      check("around -1 " .. dt, gpu.round(zc, -1), {C(INF, 0), C(NAN, 0), C(0, -0.0), C(0, -INF)}, 0)
      local into = gpu.empty(4, "complex128")
      assert.are.equal(into, gpu.around(zc, -1, {out = into}))
      check("around into " .. dt, into, {C(INF, 0), C(NAN, 0), C(0, -0.0), C(0, -INF)}, 0)
    end
    assert.matches("gpu.around: out is float64, and the result %(complex64%) cannot be cast to it",
                   S.errof(gpu.around, gpu.zeros(2, "complex64"), 1, {out = gpu.empty(2, "float64")}))
    local out = gpu.empty(8, "float64")
    assert.are.equal(out, gpu.round(rx, 1, {out = out}))
    check("round into", out, {1.2, 2.7, -0.1, 12345.7, -2.5, NAN, INF, 0.5}, 0)
  end)

  it("iscomplex, isreal, iscomplexobj, isrealobj, real_if_close as NumPy's", function()
    local z = gpu.array({C(1, 0), C(1, 1), C(0, -0.0), C(NAN, 2)}, "complex128")
    check("iscomplex", gpu.iscomplex(z), {false, true, false, true})
    check("isreal", gpu.isreal(z), {true, false, true, false})
    check("iscomplex real", gpu.iscomplex(gpu.array({1, 2}, "int32")), {false, false})
    check("isreal real", gpu.isreal(gpu.array({NAN}, "float32")), {true})
    local all = gpu.isreal(gpu.zeros({2, 3}))
    assert.are.same({"bool", {2, 3}, true}, {all.dtype, all.shape, all:all()})
    assert.is_true(gpu.iscomplexobj(z))
    assert.is_false(gpu.iscomplexobj(gpu.zeros(1)))
    assert.is_true(gpu.isrealobj(3))
    assert.is_false(gpu.isrealobj(gpu.zeros(1, "complex64")))
    local c = gpu.real_if_close(gpu.array({C(1, 1e-14), C(2, 0)}, "complex128"))
    assert.are.equal("float64", c.dtype)
    check("real_if_close", c, {1.0, 2.0}, 0)
    assert.are.equal("float32", gpu.real_if_close(gpu.array({C(1, 1e-6)}, "complex64")).dtype)   -- 100 eps of float32
    assert.are.equal("complex128", gpu.real_if_close(gpu.array({C(1, 1e-5)}, "complex128")).dtype)
    assert.are.equal("float64", gpu.real_if_close(gpu.array({C(1, 1e-5)}, "complex128"), 0.5).dtype)   -- below 1: absolute
    local i = gpu.array({1, 2}, "int64")
    assert.are.equal(i, gpu.real_if_close(i))
  end)

  it("complex asinh, atanh, log2 and log10 far out and at 0 as NumPy's (NaN here before)", function()
    local z64 = gpu.array({C(0.0, 1e30), C(-0.0, -1e30), C(-0.0, 9000.0), C(213.64299, 217.32193), C(3e38, 1.0), C(0.0, 0.0), C(3e38, 3e38)}, "complex64")
    check("asinh complex64", gpu.asinh(z64[{{1, 3}}]), {C(69.77069854736328, 1.5707963705062866), C(-69.77069854736328, -1.5707963705062866), C(-9.798127174377441, 1.5707963705062866)}, 1e-6)
    check("atanh complex64", gpu.atanh(z64[{{4, 5}}]), {C(0.0023003905080258846, 1.5684562921524048), C(3.333333116818801e-39, 1.5707963705062866)}, 1e-5)
    check("log10 complex64", gpu.log10(z64[{{6, 7}}]), {C(-INF, 0.0), C(38.62763595581055, 0.34109410643577576)}, 1e-6)
    local z = gpu.array({C(1e300, 1e300), C(1e300, 1.0), C(INF, 1.0), C(-INF, -2.0), C(0.0, 0.0), C(-0.0, -0.0)}, "complex128")
    local f = gpu.fuse(function(z) return gpu.asinh(z), gpu.atanh(z), gpu.log2(z) end)
    local as, at, l2 = f(z)
    check("asinh complex128", as[{{1, 1}}], {C(691.8152486690535, 0.7853981633974483)}, 1e-15)
    check("atanh complex128", at[{{2, 4}}], {C(1e-300, 1.5707963267948966), C(0.0, 1.5707963267948966), C(-0.0, -1.5707963267948966)}, 1e-15)
    check("log2 complex128", l2[{{5, 6}}], {C(-INF, 0.0), C(-INF, -4.532360141827193)}, 1e-15)
  end)

  it("equal ... greater_equal are eq ... ge, also as methods", function()
    local a, b = gpu.array({1, 2, 3}, "int32"), gpu.array({3, 2, 1}, "uint8")
    check("equal", gpu.equal(a, b), {false, true, false})
    check("not_equal", a:not_equal(b), {true, false, true})
    check("less", gpu.less(a, b), {true, false, false})
    check("less_equal", a:less_equal(2), {true, true, false})
    check("greater", gpu.greater(a, b), {false, false, true})
    check("greater_equal", a:greater_equal(b), {false, true, true})
  end)
end)

describe("NumPy's other names of functions", function()
  it("amax, amin, round_ and row_stack are max, min, around and vstack", function()
    local a = gpu.array({{3, 1, 2}, {0, 5, 4}}, "int32")
    assert.are.equal(5, gpu.amax(a))
    assert.are.same({1, 0}, gpu.amin(a, 2):totable())
    assert.are.same({1.24, -0.5}, gpu.round_(gpu.array({1.2351, -0.5}, "float64"), 2):totable())
    assert.are.same({{1, 2}, {3, 4}}, gpu.row_stack({gpu.array({1, 2}, "int32"), gpu.array({3, 4}, "int32")}):totable())
  end)

  -- Before: the second result read the input after the first had been written into it:
  -- divmod's remainders [2, 0, 2], modf's integral parts [0, -0], frexp's exponents [0, 0]
  it("give NumPy's two results when out's first or second array is an input", function()
    local x, r = gpu.array({7, -7, 8}, "int32"), gpu.zeros(3, "int32")
    gpu.divmod(x, 3, {out = {x, r}})
    assert.are.same({{2, -3, 2}, {1, 2, 2}}, {x:totable(), r:totable()})
    local w, q = gpu.array({7, -7, 8}, "int32"), gpu.zeros(3, "int32")
    gpu.divmod(w, 3, {out = {q, w}})
    assert.are.same({{2, -3, 2}, {1, 2, 2}}, {q:totable(), w:totable()})
    local y, i = gpu.array({1.5, -2.25}, "float64"), gpu.zeros(2, "float64")
    gpu.modf(y, {out = {y, i}})
    assert.are.same({{0.5, -0.25}, {1, -2}}, {y:totable(), i:totable()})
    local z, e = gpu.array({8, 3}, "float64"), gpu.zeros(2, "int32")
    gpu.frexp(z, {out = {z, e}})
    assert.are.same({{0.5, 0.75}, {4, 2}}, {z:totable(), e:totable()})
    -- an out with more arrays than outputs is refused, as NumPy's (the second was ignored)
    assert.matches("gpu.add has 1 output: out has more arrays", S.errof(gpu.add, x, 1, {out = {gpu.zeros(3), gpu.zeros(3)}}), 1, true)
  end)
end)

