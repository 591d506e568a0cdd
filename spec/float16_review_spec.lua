-- float16, an adversarial pass: weak Lua numbers rounded to float16 before computing (in
-- gpu.fuse too), one rounding from float64 on every path (astype, out, copies, host arrays,
-- kernels), mixed dtypes, NaN/-0/subnormals/65504 overflow, reductions and products over
-- views, and errors. The expected numbers are NumPy 1.24's (NEP 50's promotion where it
-- differs), written here.
local INF, NAN = math.huge, 0 / 0

local function same(want, got, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    local w, g = want[i], got[i]
    if type(g) == "boolean" then g = g and 1 or 0 end
    local ok = (w ~= w and g ~= g) or (w == g and (w ~= 0 or 1 / w == 1 / g))
    assert(ok, ("%s[%d]: expected %s, got %s"):format(what or "", i, tostring(w), tostring(g)))
  end
end
local function flat(a) return a:astype("float64"):reshape(-1):totable() end
local function H(t) return gpu.array(t, "float16") end
-- 1 + 2^-11 + 2^-40: float16 1.0009765625 when rounded once from float64, 1 when through float32
local T = 1 + 2 ^ -11 + 2 ^ -40

describe("float16 review", function()
  it("gpu.fuse rounds a weak Lua number to float16 before computing, as eager operations do", function()
    local x = H{1, 2, 3}
    local mul = gpu.fuse(function(a, s) return a * s end)
    same({0.0999755859375, 0.199951171875, 0.2998046875}, mul(x, 0.1):totable(), "x * 0.1")
    same(flat(x * 0.1), mul(x, 0.1):totable(), "fused as eager")
    local add = gpu.fuse(function(a, s) return a + s end)
    same({2048, 2050, 2052}, add(x, 2049):totable(), "x + 2049 (2049 is 2048 in float16)")
    same({INF, INF, INF}, add(x, 70000):totable(), "x + 70000")
    local twice = gpu.fuse(function(a, s) return a + s * 2 end)   -- a number computed from numbers
    same({2048, 2050, 2052}, twice(x, 1024.5):totable(), "x + 2049 computed")
  end)

  it("arange refuses float16 values beyond 65504, as float32's beyond its range", function()
    local ok, err = pcall(gpu.arange, 65500, 65600, 16, "float16")
    assert.is_false(ok)
    assert.matches("bad argument to 'arange' %(65596 is out of range for float16: %-65504 to 65504%)", err)
    assert.is_false((pcall(gpu.arange, -70000, 0, 10000, "float16")))
    same({-65504, 0, 65504}, gpu.arange(-65504, 65505, 65504, "float16"):totable())
    same({0, 0.0999755859375, 0.199951171875, 0.300048828125}, gpu.arange(0, 0.35, 0.1, "float16"):totable())
  end)

  it("rounds float64 to float16 once on every path", function()
    local d = gpu.array({T, 1 + 2 ^ -11, 65519.999, 1e-300, -T}, "float64")
    local want = {1.0009765625, 1, 65504, 0, -1.0009765625}
    same(want, d:astype("float16"):totable(), "astype")
    local o = gpu.zeros(5, "float16")
    same(want, gpu.add(d, 0, {out = o}):totable(), "add out")
    local s = gpu.zeros(10, "float16")
    s[{{1, -1, 2}}]:copy_(d)
    same({1.0009765625, 0, 1, 0, 65504, 0, 0, 0, -1.0009765625, 0}, s:totable(), "copy_ into a strided view")
    local r = gpu.zeros(5, "float16")
    r[{{-1, 1, -1}}] = d
    same({-1.0009765625, 0, 65504, 1, 1.0009765625}, r:totable(), "assigned reversed")
    same({1.0009765625, 1.0009765625}, gpu.zeros(2, "float16"):fill(T):totable(), "fill")
    same({1.0009765625, INF}, gpu.zeros(2, "float16"):copy_({T, 65520}):totable(), "copy_ of a table")
    same({1.0009765625, 1}, gpu.array({T, 1 + 2 ^ -11}, "complex128"):astype("float16"):totable(), "complex128")
    same({1.0009765625}, gpu.host.array({T}, "float64"):astype("float16"):totable(), "host astype")
    same({1.0009765625, 1}, gpu.array(gpu.host.array({T, 1 + 2 ^ -11}, "float64"), "float16"):totable(), "host to device")
    local t = gpu.zeros(1, "float16")
    gpu.sum(gpu.array({1, 2 ^ -11, 2 ^ -40}, "float64"), {out = t, keepdim = true})
    same({1.0009765625}, t:totable(), "sum out")
  end)

  it("mixes float16 with other dtypes and weak numbers as NumPy", function()
    local x = H{1, 2.5, -3, 0.1, 65504, 6e-8, -0.0, INF, NAN, 1000}
    local n = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
    local cases = {
      {x + 0.1, "float16", {1.099609375, 2.599609375, -2.900390625, 0.199951171875, 65504, 0.0999755859375,
                            0.0999755859375, INF, NAN, 1000}},
      {x - 70000, "float16", {-INF, -INF, -INF, -INF, -INF, -INF, -INF, NAN, NAN, -INF}},
      {x + gpu.array(n, "int8"), "float16", {2, 4.5, 0, 4.1015625, 65504, 6, 7, INF, NAN, 1010}},
      {x + gpu.array(n, "int16"), "float32", {2, 4.5, 0, 4.0999755859375, 65509, 6, 7, INF, NAN, 1010}},
      {x:lt(0.1), "bool", {0, 0, 1, 0, 0, 1, 1, 0, 0, 0}},
    }
    for i, c in ipairs(cases) do
      assert.are.equal(c[2], c[1].dtype, "case " .. i)
      same(c[3], flat(c[1]), "case " .. i)
    end
    same({0, 1, 0}, H{2048, 2048, 0.5}:eq(gpu.array({2049, 2048, 0}, "int64")):totable(), "== int64")
    same({2050, 2052}, gpu.add(gpu.array({1, 2}, "int16"), 2049, {out = gpu.zeros(2, "float16")}):totable(), "int16 into out")
  end)

  it("reduces, scans and multiplies float16 over views, with NaN, -0 and overflow", function()
    local m = H{{1, 2, 3}, {65504, 65504, -65504}}
    same({6, 65504}, gpu.sum(m, 2):totable(), "sum in float64, rounded once")
    assert.are.equal(65504, H{65504, 65504}:mean())
    assert.are.equal(90.0625, H{300, 300, 0.001}:prod())
    same({NAN, -0.0}, gpu.max(H{{1, NAN, 3}, {-0.0, 0, -1}}, 2):totable(), "max")
    same({12, 9}, H{{1, 2}, {3, 4}, {5, 6}}[{{-1, 1, -1}, {-1, 1, -1}}]:sum(1):totable(), "reversed view")
    same({0.0999755859375, 0.2998046875, 0.60009765625, 1000, 1000.5, 1001},   -- NumPy's: 0.599609375
         flat(gpu.cumsum(H{{0.1, 0.2, 0.3}, {1000, 0.5, 0.25}}, 2)), "cumsum sums in float64, rounds once")
    local A, B = H{{1, 2.5, 3}, {0.1, -0.0, 65504}}, H{{1, 2}, {3, 0.1}, {0.001, 2}}
    same({8.5, 8.25, 65.625, INF}, flat(gpu.matmul(A, B)), "matmul")
    same({8.5, 65.625, 8.25, INF}, flat(gpu.matmul(B.T, A.T)), "transposed")
    same({8.5, 8.25, 65.625, INF, 17, 16.5, 131.25, INF}, flat(gpu.matmul(A, gpu.stack({B.T, B.T * 2}):transpose(2, 3))),
         "batched, transposed")
    same({8.5, 8.25, 65.625, INF}, flat(gpu.matmul(A[{{}, {-1, 1, -1}}], B[{{-1, 1, -1}}])), "reversed")
    local o = gpu.zeros({2, 2}, "float32")
    gpu.matmul(A, B, {out = o})
    same({8.5, 8.25, 65.625, INF}, flat(o), "out float32")
  end)

  it("passes float16 scalars to kernels rounded once, and refuses what it cannot take", function()
    local k = gpu.kernel([[
#include <cuda_fp16.h>
extern "C" __global__ void f16rev(gpu::array<gpu::half> x, __half s, half t, gpu::half u, gpu::array<gpu::half> y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < x.size) y[i] = x[i] * (float)s + (float)t * (float)u;
}]], "f16rev")
    local y = gpu.zeros(3, "float16")
    k[{1, 32}](H{1, 2, 3}, 0.1, T, 2049, y)
    same({2050, 2050, 2050}, y:totable(), "1 * 0.1 + 1.0009765625 * 2048")
    assert.matches("is a float32 array; the kernel takes float16",
                   select(2, pcall(function() k[{1, 32}](H{1}, 0.1, 1, 1, gpu.zeros(1, "float32")) end)))
    assert.matches("expected a number, got boolean",
                   select(2, pcall(function() k[{1, 32}](H{1}, true, 1, 1, y) end)))
    local errs = {
      {function() gpu.add(H{1}, 1, {out = gpu.zeros(1, "int8")}) end, "out is int8, and the result %(float16%) cannot be cast"},
      {function() gpu.sum(H{{1}}, 2, {out = gpu.zeros(1, "int32")}) end, "out is int32"},
      {function() gpu.add(gpu.array({1}, "complex64"), 1, {out = gpu.zeros(1, "float16")}) end, "%(complex64%) cannot be cast"},
      {function() gpu.linalg.inv(H{{1, 2}, {3, 4}}) end, "float16 arrays are not supported in linear algebra"},
      {function() return H{1} & H{1} end, "bitwise operations need integer or bool arrays"},
      {function() gpu.random.random(3, "float16") end, "random numbers are float32 or float64, not float16"},
      {function() gpu.array({"x"}, "float16") end, "expected a number for float16"},
    }
    for i, e in ipairs(errs) do
      local ok, err = pcall(e[1])
      assert.is_false(ok, "case " .. i)
      assert.matches(e[2], err, 1, false, "case " .. i)
    end
  end)
end)
