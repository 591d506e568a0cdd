-- float16 (alias half): values to and from Lua, NumPy's promotion, elementwise operations
-- computed in float32 and rounded once, reductions, casts, user kernels on __half and
-- gpu::half, matrix products; linear algebra refuses float16 as NumPy and CuPy do. The
-- expected numbers are NumPy 1.24's, written here.
local S = require("spec.support")

local INF, NAN = math.huge, 0 / 0

local function same(want, got, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    local w, g = want[i], got[i]
    local ok = (w ~= w and g ~= g) or (w == g and (w ~= 0 or 1 / w == 1 / g))
    assert(ok, ("%s[%d]: expected %s, got %s"):format(what or "", i, tostring(w), tostring(g)))
  end
end

describe("float16", function()
  -- one kernel that reads each element's bits
  local bits = gpu.elementwise("float16 x", "uint16 y", "y = x.bits")

  it("holds Lua numbers rounded to the nearest float16 (ties to even, overflow to inf)", function()
    local x = {0.1, 1 / 3, 65504, 65519, 65520, 6e-8, 3e-8, 2.98e-8, -0.0, 1e5, 2049, 2051, INF, NAN}
    local a = gpu.array(x, "float16")
    assert.are.equal("float16", a.dtype)
    assert.are.equal(28, a.nbytes)
    same({0.0999755859375, 0.333251953125, 65504, 65504, INF, 5.960464477539063e-08,
          5.960464477539063e-08, 0.0, -0.0, INF, 2048, 2052, INF, NAN}, a:totable())
    local b = bits(a):totable()
    local want = {0x2e66, 0x3555, 0x7bff, 0x7bff, 0x7c00, 0x1, 0x1, 0x0, 0x8000, 0x7c00, 0x6800, 0x6802, 0x7c00}
    for i = 1, #want do assert.are.equal(want[i], b[i], "bits of " .. tostring(x[i])) end
    assert.are.equal(0x7c00, b[14] & 0x7c00)   -- a NaN: all exponent bits, a nonzero mantissa
    assert.are_not.equal(0, b[14] & 0x3ff)
    assert.are.equal("float16", gpu.zeros(2, "half").dtype)
    assert.are.equal(0.0999755859375, gpu.full({2}, 0.1, "float16"):item(2))
    same({0, 0.25, 0.5, 0.75}, gpu.arange(0, 1, 0.25, "float16"):totable())
    local h = gpu.array({1.5, 2}, "float16")
    h[{2}] = 0.1
    assert.are.equal(0.0999755859375, h:item(2))
  end)

  it("promotes as NumPy 2", function()
    assert.are.equal("float16", gpu.result_type("float16", "int8"))
    assert.are.equal("float16", gpu.result_type("float16", "uint8"))
    assert.are.equal("float32", gpu.result_type("float16", "int16"))
    assert.are.equal("float64", gpu.result_type("float16", "int32"))
    assert.are.equal("float32", gpu.result_type("float16", "float32"))
    assert.are.equal("complex64", gpu.result_type("float16", "complex64"))
    assert.are.equal("float16", gpu.result_type("float16", 2.5))
    assert.are.equal("float16", gpu.result_type("bool", "float16"))
    assert.are.equal("float16", gpu.sqrt(gpu.arange(3, "uint8")).dtype)
    assert.are.equal("float16", gpu.sqrt(gpu.array({true}, "bool")).dtype)
    assert.are.equal("float32", gpu.sqrt(gpu.arange(3, "int16")).dtype)
  end)

  it("computes elementwise operations in float32 and rounds once, as NumPy", function()
    local a = gpu.array({0.1, 0.2, 0.3, 1000, -7.5, 3}, "float16")
    local b = gpu.array({3, 0.7, 0.3, 0.001, 2, -1}, "float16")
    local f = gpu.fuse(function(x, y)
      return x + y, x - y, x * y, x / y, gpu.maximum(x, y), gpu.hypot(x, y), gpu.atan2(x, y),
             x ^ y, x % y, x // y, gpu.nextafter(x, y), x * 0.1
    end)
    local r = {f(a, b)}
    local want = {
      {3.099609375, 0.900390625, 0.60009765625, 1000.0, -5.5, 2.0},
      {-2.900390625, -0.5, 0.0, 1000.0, -9.5, 4.0},
      {0.2998046875, 0.1400146484375, 0.09002685546875, 1.0, -15.0, -3.0},
      {0.0333251953125, 0.28564453125, 1.0, INF, -3.75, -3.0},
      {3.0, 0.7001953125, 0.300048828125, 1000.0, 2.0, 3.0},
      {3.001953125, 0.72802734375, 0.42431640625, 1000.0, 7.76171875, 3.162109375},
      {0.0333251953125, 0.278076171875, 0.78515625, 1.5703125, -1.310546875, 1.892578125},
      {0.00099945068359375, 0.323974609375, 0.69677734375, 1.0068359375, 56.25, 0.333251953125},
      {0.0999755859375, 0.199951171875, 0.0, 0.0008058547973632812, 0.5, -0.0},
      {0.0, 0.0, 1.0, INF, -4.0, -3.0},
      {0.10003662109375, 0.2000732421875, 0.300048828125, 999.5, -7.49609375, 2.998046875},
      {0.0099945068359375, 0.019989013671875, 0.029998779296875, 100.0, -0.75, 0.2998046875},
    }
    local names = {"add", "subtract", "multiply", "divide", "maximum", "hypot", "atan2", "power",
                   "remainder", "floor_divide", "nextafter", "times 0.1"}
    for i, w in ipairs(want) do
      assert.are.equal("float16", r[i].dtype, names[i])
      if names[i] == "atan2" or names[i] == "hypot" or names[i] == "power" then
        -- CUDA's float32 functions may differ from glibc's in the last float32 bit, which
        -- can move a float16 rounding by one step
        local g = r[i]:totable()
        for k = 1, #w do assert(math.abs(g[k] - w[k]) <= math.abs(w[k]) * 2 ^ -10, names[i]) end
      else
        same(w, r[i]:totable(), names[i])
      end
    end
    local u = gpu.fuse(function(x) return gpu.sqrt(x), gpu.exp(x), gpu.spacing(x) end)
    local s, e, sp = u(a)
    same({0.316162109375, 0.447265625, 0.5478515625, 31.625, NAN, 1.732421875}, s:totable(), "sqrt")
    local ew = {1.10546875, 1.2216796875, 1.349609375, INF, 0.000553131103515625, 20.078125}
    for k, v in ipairs(e:totable()) do assert(v == ew[k] or math.abs(v - ew[k]) <= ew[k] * 2 ^ -10, "exp") end
    -- signed as for the other floats (NumPy 1.24's float16 spacing alone gives +0.0039 for -7.5)
    same({6.103515625e-05, 0.0001220703125, 0.000244140625, 0.5, -0.00390625, 0.001953125}, sp:totable(), "spacing")
    -- eager operations give what the fused ones give
    same(r[1]:totable(), (a + b):totable(), "eager add")
    same(r[12]:totable(), (a * 0.1):totable(), "eager a * 0.1")
    assert.are.equal("float32", (a + gpu.ones(6, "int16")).dtype)
    same({1.099609375, 1.2001953125, 1.2998046875, 1001, -6.5, 4}, (a + gpu.ones(6, "int8")):totable(), "with int8")
  end)

  it("reduces with float64 sums and gives float16, as NumPy's dtypes", function()
    local a = gpu.array({0.1, 0.2, 0.3, 1000, -7.5, 3}, "float16")
    local s = a:sum({keepdim = true})
    assert.are.equal("float16", s.dtype)
    assert.are.equal(996.0, s:item(1))   -- 996.10... rounded to float16
    assert.are.equal(996.0, a:sum())
    assert.are.equal(166.0, a:mean())
    assert.are.equal(1000, a:max())
    assert.are.equal(-7.5, a:min())
    assert.are.equal(4, a:argmax())
    assert.are.equal("float16", a:std({keepdim = true}).dtype)
    assert.are.equal(INF, gpu.full(2000, 1000, "float16"):sum())   -- past 65504, as NumPy
    assert.are.equal(1000, gpu.full(2000, 1000, "float16"):mean())
  end)

  it("casts as the other floats do", function()
    local a = gpu.array({0.1, 0.2, 0.3, 1000, -7.5, 3}, "float16")
    same({0, 0, 0, 1000, -7, 3}, a:astype("int32"):totable(), "to int32")
    same({INF, -INF, 65504}, gpu.array({70000, -1e9, 65504}, "float64"):astype("float16"):totable(), "from float64")
    same({0.0999755859375, 1000}, a:astype("float32")[{{1, 4, 3}}]:totable(), "to float32")
    same({2048, 2052}, gpu.array({2049, 2051}, "int64"):astype("float16"):totable(), "from int64")
    same({1, 0}, gpu.array({true, false}, "bool"):astype("float16"):totable(), "from bool")
    same({true, false}, gpu.array({0.1, 0}, "float16"):astype("bool"):totable(), "to bool")
  end)

  it("passes to CUDA C kernels as __half, half and gpu::half", function()
    local k = gpu.kernel([[
#include <cuda_fp16.h>
__global__ void scale16(__half *a, gpu::array<gpu::half> b, __half s, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = __float2half(__half2float(a[i]) * __half2float(s));
    b[i] = (float)b[i] + 0.1f;   // a gpu::half element reads as a float
    b[i] += 1;
  }
}]])
    local a, b = gpu.array({1, 2, 3}, "float16"), gpu.array({1, 2, 3}, "float16")
    k[{1, 32}](a, b, 2.5, 3)
    same({2.5, 5, 7.5}, a:totable())
    same({2.099609375, 3.099609375, 4.1015625}, b:totable())
    assert.matches("float32", S.errof(function() k[{1, 32}](gpu.zeros(3), b, 1, 3) end), 1, true)
    local e = gpu.elementwise("float16 x, float16 y", "float16 z", "z = x * y + 1")
    same({3.5, 11, 23.5}, e(a, gpu.array({1, 2, 3}, "float16")):totable())
  end)

  it("multiplies matrices with float32 sums (cuBLAS's GemmEx; the CPU backend's sgemm)", function()
    local a = gpu.array({{1, 2, 3}, {4, 5, 6}}, "float16")
    local b = gpu.array({{0.1, 0.2}, {0.3, 0.4}, {0.5, 0.6}}, "float16")
    local c = a:matmul(b)
    assert.are.equal("float16", c.dtype)
    same({2.19921875, 2.80078125, 4.8984375, 6.3984375}, c:reshape(4):totable(), "matmul")
    same(c:reshape(4):totable(), gpu.matmul(a, b.T.T):reshape(4):totable(), "a view")
    same(c:reshape(4):totable(), gpu.einsum("ij,jk->ik", a, b):reshape(4):totable(), "einsum")
    assert.are.equal(32, gpu.dot(a[{1}], a[{2}]):item())
    local x = gpu.arange(24, "float16"):reshape({2, 3, 4})
    local y = gpu.arange(16, "float16"):reshape({2, 4, 2})
    same({28, 34, 76, 98, 124, 162, 604, 658, 780, 850, 956, 1042}, gpu.matmul(x, y):reshape(12):totable(), "batched")
    assert.are.equal("float16", gpu.matmul(a, gpu.ones({3, 2}, "int8")).dtype)
    assert.are.equal("float32", gpu.matmul(a, gpu.ones({3, 2}, "int16")).dtype)
    local o = gpu.zeros({2, 2}, "float32")
    gpu.matmul(a, b, {out = o})
    same({2.19921875, 2.80078125, 4.8984375, 6.3984375}, o:reshape(4):totable(), "into float32 out")
  end)

  it("is refused by linear algebra, as NumPy and CuPy refuse it; FFTs give complex64", function()
    local a = gpu.array({{2, 1}, {1, 3}}, "float16")
    for _, f in ipairs({"inv", "det", "svd", "cholesky", "eigh", "qr"}) do
      assert.matches("gpu.linalg." .. f .. ": float16 arrays are not supported in linear algebra: convert with a:astype('float32')",
                     S.errof(gpu.linalg[f], a), 1, true)
    end
    assert.matches("float16_spec.lua:%d+: gpu.linalg.inv", S.errof(function() local r = gpu.linalg.inv(a); return r end))
    same({5, 5, 5, 10}, gpu.linalg.matrix_power(a, 2):reshape(4):totable(), "matrix_power")
    assert.are.equal("float16", gpu.linalg.matrix_power(a, 2).dtype)
    assert.are.equal("complex64", gpu.fft.fft(a).dtype)
    assert.are.equal("float32", gpu.fft.irfft(a).dtype)
  end)
end)
