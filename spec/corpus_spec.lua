-- One language on both backends: a corpus of kernels that must compile and give the same
-- results on the CPU backend and on a GPU (each spec pins the exact results, so a pass on
-- both is "identical"), and a corpus of kernels both must refuse, with an error naming the
-- problem. On the CPU backend NVRTC checks every kernel first (where it is installed, as in
-- CI), so the refusals are NVRTC's own words on both. Kernels are grouped into a few
-- modules so that the corpus compiles in a few runs of the compilers.
local S = require("spec.support")

local INF = math.huge

-- Launches k and returns the contents of its array arguments that follow its inputs (the
-- first `inputs` arguments).
local function run_in(k, config, inputs, ...)
  k[config](...)
  local out, args = {}, table.pack(...)
  for i = inputs + 1, args.n do
    if type(args[i]) == "userdata" then out[#out + 1] = args[i]:totable() end
  end
  return table.unpack(out)
end
local function run(k, config, ...) return run_in(k, config, 0, ...) end

local function ints(t) for i, v in ipairs(t) do t[i] = math.tointeger(v) or v end return t end

describe("the corpus: the conveniences", function()
  local m = gpu.module([[
__global__ void inf_nan(float *f, double *d, int *flags) {
  f[0] = INFINITY; f[1] = -INFINITY; f[2] = HUGE_VALF; d[0] = HUGE_VAL;
  float n = NAN;
  flags[0] = isnan(n); flags[1] = isinf(f[0]); flags[2] = isfinite(f[0]); flags[3] = signbit(f[1]) != 0;
  flags[4] = n != n; flags[5] = isfinite(1.5f);
}
__global__ void float_limits(float *f, double *d, int *digits) {
  f[0] = FLT_MAX; f[1] = FLT_MIN; f[2] = FLT_EPSILON; f[3] = -FLT_MAX;
  d[0] = DBL_MAX; d[1] = DBL_MIN; d[2] = DBL_EPSILON;
  digits[0] = FLT_DIG; digits[1] = DBL_DIG; digits[2] = FLT_MANT_DIG; digits[3] = DBL_MANT_DIG;
  digits[4] = FLT_MAX_EXP; digits[5] = DBL_MAX_EXP; digits[6] = FLT_RADIX;
}
__global__ void int_limits(int *i, unsigned *u, long long *ll, unsigned long long *ull) {
  i[0] = INT_MAX; i[1] = INT_MIN; i[2] = CHAR_BIT; i[3] = SCHAR_MAX; i[4] = SCHAR_MIN;
  i[5] = SHRT_MAX; i[6] = SHRT_MIN; i[7] = USHRT_MAX; i[8] = UCHAR_MAX;
  u[0] = UINT_MAX;
  ll[0] = LLONG_MAX; ll[1] = LLONG_MIN; ll[2] = LONG_MAX; ll[3] = INT64_MIN;
  ull[0] = ULLONG_MAX; ull[1] = UINT64_MAX; ull[2] = UINT32_MAX;
}
__global__ void constants(double *d, float *f) {
  d[0] = M_PI; d[1] = M_E; d[2] = M_SQRT2; d[3] = M_LN2; d[4] = M_PI_2; d[5] = M_1_PI;
  d[6] = M_LOG2E; d[7] = M_SQRT1_2; d[8] = M_LN10; d[9] = M_2_SQRTPI;
  f[0] = (float)M_PI;
}
__global__ void fixed_width(int64_t *a, uint64_t *b, int32_t *c, uint8_t *d, int16_t *e, int8_t *f) {
  int64_t x = 1;
  a[0] = x << 40; a[1] = -(x << 50);
  uint64_t y = 3;
  b[0] = y << 62;
  c[0] = INT32_MAX; c[1] = INT32_MIN;
  uint8_t u = 250; u += 10; d[0] = u;
  int16_t s = INT16_MAX; s++; e[0] = s;
  int8_t q = INT8_MIN; f[0] = q;
  intptr_t p = 1; size_t z = sizeof(int64_t); a[2] = p + (int64_t)z;
}
__global__ void std_minmax(int *i, float *f) {
  i[0] = std::min(3, 7); i[1] = std::max(-2, 5);
  f[0] = std::min(1.5f, -2.5f); f[1] = std::max(1.5f, 2.5f);
  i[2] = std::max(4, 9, [](int a, int b) { return a > b; });   // "max" by a reversed order
  i[3] = min(5, 2) + max(5, 2);                                 // CUDA's own overloads
}
__global__ void limits(float *f, int *i, unsigned *u, double *d) {
  f[0] = std::numeric_limits<float>::max(); f[1] = std::numeric_limits<float>::lowest();
  f[2] = std::numeric_limits<float>::epsilon(); f[3] = std::numeric_limits<float>::infinity();
  f[4] = std::numeric_limits<float>::denorm_min();
  i[0] = std::numeric_limits<int>::min(); i[1] = std::numeric_limits<int>::max();
  i[2] = std::numeric_limits<int>::digits; i[3] = std::numeric_limits<float>::is_integer;
  u[0] = std::numeric_limits<unsigned>::max();
  d[0] = std::numeric_limits<double>::epsilon(); d[1] = std::numeric_limits<double>::max();
}
__global__ void classify(const float *x, int *out) {
  int t = threadIdx.x;
  out[4 * t] = isnan(x[t]); out[4 * t + 1] = isinf(x[t]);
  out[4 * t + 2] = isfinite(x[t]); out[4 * t + 3] = signbit(x[t]) != 0;
}
]])

  it("INFINITY, NAN, HUGE_VAL(F), isnan, isinf, isfinite, signbit", function()
    local f, d, flags = run(m.inf_nan, {1, 1}, gpu.zeros(3), gpu.zeros(1, "float64"), gpu.zeros(6, "int32"))
    assert.are.same({INF, -INF, INF}, f)
    assert.are.same({INF}, d)
    assert.are.same({1, 1, 0, 1, 1, 1}, flags)
  end)

  it("<cfloat>'s limits", function()
    local f, d, digits = run(m.float_limits, {1, 1}, gpu.zeros(4), gpu.zeros(3, "float64"), gpu.zeros(7, "int32"))
    assert.are.same({3.4028234663852886e38, 1.1754943508222875e-38, 1.1920928955078125e-07, -3.4028234663852886e38}, f)
    assert.are.same({1.7976931348623157e308, 2.2250738585072014e-308, 2.220446049250313e-16}, d)
    assert.are.same({6, 15, 24, 53, 128, 1024, 2}, digits)
  end)

  it("<climits>'s and <cstdint>'s limits", function()
    local i, u, ll, ull = run(m.int_limits, {1, 1}, gpu.zeros(9, "int32"), gpu.zeros(1, "uint32"),
                              gpu.zeros(4, "int64"), gpu.zeros(3, "uint64"))
    assert.are.same({2147483647, -2147483648, 8, 127, -128, 32767, -32768, 65535, 255}, i)
    assert.are.same({4294967295}, u)
    assert.are.same({math.maxinteger, math.mininteger, math.maxinteger, math.mininteger}, ll)
    assert.are.same({-1, -1, 4294967295}, ull)   -- uint64 bits as Lua integers
  end)

  it("M_PI and the other constants of <math.h>", function()
    local d, f = run(m.constants, {1, 1}, gpu.zeros(10, "float64"), gpu.zeros(1))
    assert.are.same({3.14159265358979323846, 2.7182818284590452354, 1.41421356237309504880,
                     0.69314718055994530942, 1.57079632679489661923, 0.31830988618379067154,
                     1.4426950408889634074, 0.70710678118654752440, 2.30258509299404568402,
                     1.12837916709551257390}, d)
    assert.are.same({3.1415927410125732}, f)
  end)

  it("the fixed-width integer types", function()
    local a, b, c, d, e, f = run(m.fixed_width, {1, 1}, gpu.zeros(3, "int64"), gpu.zeros(1, "uint64"),
      gpu.zeros(2, "int32"), gpu.zeros(1, "uint8"), gpu.zeros(1, "int16"), gpu.zeros(1, "int8"))
    assert.are.same({1 << 40, -(1 << 50), 9}, a)
    assert.are.same({3 << 62}, b)
    assert.are.same({2147483647, -2147483648}, c)
    assert.are.same({4}, d)
    assert.are.same({-32768}, e)
    assert.are.same({-128}, f)
  end)

  it("std::min and std::max, and CUDA's min and max", function()
    local i, f = run(m.std_minmax, {1, 1}, gpu.zeros(4, "int32"), gpu.zeros(2))
    assert.are.same({3, 5, 4, 7}, i)
    assert.are.same({-2.5, 2.5}, f)
  end)

  it("std::numeric_limits", function()
    local f, i, u, d = run(m.limits, {1, 1}, gpu.zeros(5), gpu.zeros(4, "int32"), gpu.zeros(1, "uint32"),
                           gpu.zeros(2, "float64"))
    assert.are.same({3.4028234663852886e38, -3.4028234663852886e38, 1.1920928955078125e-07, INF,
                     1.401298464324817e-45}, f)
    assert.are.same({-2147483648, 2147483647, 31, 0}, i)
    assert.are.same({4294967295}, u)
    assert.are.same({2.220446049250313e-16, 1.7976931348623157e308}, d)
  end)

  it("classifies floats unqualified, as CUDA does", function()
    local x = gpu.array({1.5, INF, -INF, -0.0})
    local out = run_in(m.classify, {1, 4}, 1, x, gpu.zeros(16, "int32"))
    assert.are.same({0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1}, out)
  end)
end)

describe("the corpus: the C and C++ headers", function()
  local m = gpu.module([[
#include <cstdint>
#include <cstddef>
#include <cmath>
#include <climits>
#include <cfloat>
#include <cassert>
#include <limits>
#include <stdint.h>
#include <math.h>
__global__ void std_math(float *f, double *d) {
  f[0] = std::sqrt(16.0f); f[1] = std::fabs(-2.5f); f[2] = std::floor(2.7f); f[3] = std::ceil(2.2f);
  f[4] = std::fmax(1.0f, 3.0f); f[5] = std::trunc(-2.7f); f[6] = std::fmin(-1.0f, 3.0f);
  d[0] = std::sqrt(2.0); d[1] = std::fma(2.0, 3.0, 1.0); d[2] = std::round(2.5); d[3] = std::abs(-4.0);
  d[4] = std::ldexp(1.0, 10); d[5] = std::copysign(3.0, -1.0);
}
__global__ void headers(uint64_t *u, int *i, float *f) {
  u[0] = UINT64_MAX >> 1; u[1] = sizeof(size_t);
  i[0] = INT_MAX - 1; i[1] = std::numeric_limits<short>::max();
  f[0] = FLT_EPSILON * 2;
}
__global__ void asserted(const int *x, int *out) {
  assert(x != nullptr);
  assert(x[threadIdx.x] >= 0 && "values are counts");
  out[threadIdx.x] = 2 * x[threadIdx.x];
}
]])

  it("<cmath> in std::", function()
    local f, d = run(m.std_math, {1, 1}, gpu.zeros(7), gpu.zeros(6, "float64"))
    assert.are.same({4, 2.5, 2, 3, 3, -2, -1}, f)
    assert.are.same({math.sqrt(2), 7, 3, 4, 1024, -3}, d)
  end)

  it("<cstdint>, <climits>, <cfloat> and <limits> included", function()
    local u, i, f = run(m.headers, {1, 1}, gpu.zeros(2, "uint64"), gpu.zeros(2, "int32"), gpu.zeros(1))
    assert.are.same({math.maxinteger, 8}, u)
    assert.are.same({2147483646, 32767}, i)
    assert.are.same({2.384185791015625e-07}, f)
  end)

  it("assert that holds", function()
    local out = run_in(m.asserted, {1, 8}, 1, gpu.array({1, 2, 3, 4, 5, 6, 7, 8}, "int32"), gpu.zeros(8, "int32"))
    assert.are.same({2, 4, 6, 8, 10, 12, 14, 16}, out)
  end)
end)

describe("the corpus: libcu++", function()
  local m = gpu.module([[
#include <cuda/std/limits>
#include <cuda/std/cstdint>
#include <cuda/std/utility>
#include <cuda/std/array>
#include <cuda/std/bit>
#include <cuda/std/complex>
#include <cuda/std/span>
#include <cuda/std/tuple>
#include <cuda/std/functional>
#include <cuda/std/numeric>
#include <cuda/std/cmath>
#include <cuda/std/type_traits>
__global__ void cudastd(int *i, float *f) {
  i[0] = cuda::std::numeric_limits<int>::max();
  cuda::std::pair<int, float> p(3, 1.5f); i[1] = p.first; f[0] = p.second;
  int a = 1, b = 2; cuda::std::swap(a, b); i[2] = a; i[3] = b;
  cuda::std::array<int, 4> arr = {4, 3, 2, 1};
  int s = 0;
  for (int v : arr) s += v;
  i[4] = s;
  i[5] = cuda::std::popcount(0xF0F0u);
  f[1] = cuda::std::bit_cast<float>(0x3f800000u);
  cuda::std::uint64_t big = 1ull << 40; i[6] = (int)(big >> 38);
  cuda::std::complex<float> z(3.0f, 4.0f); f[2] = cuda::std::abs(z);
  cuda::std::span<int> sp(i, 16); i[7] = (int)sp.size();
  auto t = cuda::std::make_tuple(5, 6.0f); i[8] = cuda::std::get<0>(t);
  i[9] = cuda::std::plus<int>()(2, 3);
  i[10] = cuda::std::gcd(12, 18);
  f[3] = cuda::std::sqrt(16.0f);
  i[11] = cuda::std::is_same<int, cuda::std::int32_t>::value;
  i[12] = cuda::std::min(4, 9) + cuda::std::max(4, 9);
  i[13] = cuda::std::countl_zero(1u);
}
]])

  it("cuda::std: limits, utility, array, bit, complex, span, tuple, functional, numeric, cmath", function()
    local i, f = run(m.cudastd, {1, 1}, gpu.zeros(16, "int32"), gpu.zeros(4))
    assert.are.same({2147483647, 3, 2, 1, 10, 8, 4, 16, 5, 5, 6, 1, 13, 31, 0, 0}, i)
    assert.are.same({1.5, 1, 5, 4}, f)
  end)
end)

describe("the corpus: half precision", function()
  local m = gpu.module([[
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void half_arith(const float *in, float *out) {
  int i = threadIdx.x;
  __half a = __float2half(in[i]), b = __float2half(0.5f);
  out[i] = __half2float(a * b + a - b);
  out[32 + i] = __half2float(__hmax(a, b)) + (a > b ? 100.0f : 0.0f);
}
__global__ void half2_arith(const float *in, float *out) {
  int i = threadIdx.x;
  __half2 h = __floats2half2_rn(in[i], 2.0f);
  h = __hmul2(h, h);
  h = __hadd2(h, __float2half2_rn(1.0f));
  out[i] = __low2float(h) + __high2float(h);
}
__global__ void bf16_arith(const float *in, float *out) {
  int i = threadIdx.x;
  __nv_bfloat16 c = __float2bfloat16(in[i]), d = __float2bfloat16(3.0f);
  out[i] = __bfloat162float(c * d - c);
}
__global__ void half_math(const float *in, float *out) {
  int i = threadIdx.x;
  out[i] = __half2float(__habs(__float2half(in[i])));
  out[32 + i] = __half2float(hfloor(__float2half(in[i] + 0.25f))) + __half2float(htrunc(__float2half(-in[i] - 0.5f)));
  out[64 + i] = __half2float(__hfma(__float2half(in[i]), __float2half(2.0f), __float2half(1.0f)));
}
]])
  local input = {}
  for i = 1, 32 do input[i] = i - 16 end   -- small integers: exact in half and bfloat16

  it("__half arithmetic and comparisons", function()
    local out = run_in(m.half_arith, {1, 32}, 1, gpu.array(input), gpu.zeros(64))
    for i = 1, 32 do
      local x = input[i]
      assert.are.equal(x * 0.5 + x - 0.5, out[i])
      assert.are.equal(math.max(x, 0.5) + (x > 0.5 and 100 or 0), out[32 + i])
    end
  end)

  it("__half2 arithmetic", function()
    local out = run_in(m.half2_arith, {1, 32}, 1, gpu.array(input), gpu.zeros(32))
    for i = 1, 32 do assert.are.equal(input[i] ^ 2 + 1 + 5, out[i]) end
  end)

  it("__nv_bfloat16 arithmetic", function()
    local out = run_in(m.bf16_arith, {1, 32}, 1, gpu.array(input), gpu.zeros(32))
    for i = 1, 32 do assert.are.equal(input[i] * 2, out[i]) end
  end)

  it("half math: __habs, hfloor, htrunc, __hfma", function()
    local out = run_in(m.half_math, {1, 32}, 1, gpu.array(input), gpu.zeros(96))
    for i = 1, 32 do
      local x = input[i]
      assert.are.equal(math.abs(x), out[i])
      local tr = -x - 0.5
      assert.are.equal(math.floor(x + 0.25) + (tr < 0 and math.ceil(tr) or math.floor(tr)), out[32 + i])
      assert.are.equal(2 * x + 1, out[64 + i])
    end
  end)
end)

describe("the corpus: warps and blocks", function()
  local m = gpu.module([[
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void warp_sum(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x % 32 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
__global__ void shuffles(const int *in, int *out) {
  int t = threadIdx.x, v = in[t];
  out[t] = __shfl_sync(0xffffffff, v, 3);
  out[32 + t] = __shfl_up_sync(0xffffffff, v, 1);
  out[64 + t] = __shfl_xor_sync(0xffffffff, v, 1);
  out[96 + t] = __shfl_sync(0xffffffff, v, t + 1, 8);
}
__global__ void votes(const int *in, unsigned *out) {
  int t = threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, in[t] > 0);
  int any = __any_sync(0xffffffff, in[t] > 100), all = __all_sync(0xffffffff, in[t] > -100);
  if (t == 0) { out[0] = b; out[1] = __popc(b); out[2] = any; out[3] = all; }
}
__global__ void matches(const int *in, unsigned *out) {
  int t = threadIdx.x, pred;
  out[t] = __match_any_sync(0xffffffff, in[t] % 4);
  unsigned all = __match_all_sync(0xffffffff, in[t] / 100, &pred);
  if (t == 0) { out[32] = all; out[33] = pred; }
  unsigned long long wide = (unsigned long long)(in[t] % 2) << 40;
  out[34 + t] = __match_any_sync(0xffffffff, wide);
}
__global__ void reductions(const int *in, int *out) {
  int t = threadIdx.x, v = in[t];
  int s = __reduce_add_sync(0xffffffff, v), lo = __reduce_min_sync(0xffffffff, v);
  int hi = __reduce_max_sync(0xffffffff, v);
  unsigned a = __reduce_and_sync(0xffffffff, (unsigned)v | 0x100u);
  unsigned o = __reduce_or_sync(0xffffffff, (unsigned)v & 0xf0u);
  unsigned x = __reduce_xor_sync(0xffffffff, (unsigned)t);
  unsigned umin = __reduce_min_sync(0xffffffff, (unsigned)v);
  if (t == 5) { out[0] = s; out[1] = lo; out[2] = hi; out[3] = a; out[4] = o; out[5] = x; out[6] = umin; }
}
__global__ void counts(const int *in, int *out) {
  int t = threadIdx.x;
  int c = __syncthreads_count(in[t] > 0), a = __syncthreads_and(in[t] > -5), o = __syncthreads_or(in[t] > 60);
  if (t == 0) { out[0] = c; out[1] = a; out[2] = o; }
}
__global__ void tiles(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int v = in[block.thread_rank()];
  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = v;
  block.sync();
}
__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float s[256];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
__global__ void reverse(int *x, int n) {
  extern __shared__ int tmp[];
  int t = threadIdx.x;
  tmp[t] = x[t];
  __syncthreads();
  x[t] = tmp[n - 1 - t];
}
__global__ void warp_size(int *out) { if (threadIdx.x == 0) out[0] = warpSize; out[1 + threadIdx.x] = threadIdx.x / warpSize; }
__global__ void active(const int *x, int n, int *total, unsigned *masks) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0) {
    unsigned m = __activemask();
    masks[i] = m;
    if (threadIdx.x % 32 == __ffs(m) - 1) atomicAdd(total, __popc(m));
  }
}
]])
  local seq = {}
  for i = 1, 256 do seq[i] = i - 1 end

  it("a warp's sum by __shfl_down_sync", function()
    local out = run_in(m.warp_sum, {2, 128}, 1, gpu.array(seq, "int32"), gpu.zeros(8, "int32"))
    for w = 0, 7 do assert.are.equal(32 * 32 * w + 496, out[w + 1]) end
  end)

  it("__shfl_sync, __shfl_up_sync, __shfl_xor_sync and widths", function()
    local out = run_in(m.shuffles, {1, 32}, 1, gpu.array({table.unpack(seq, 1, 32)}, "int32"), gpu.zeros(128, "int32"))
    for t = 0, 31 do
      assert.are.equal(3, out[t + 1])
      assert.are.equal(t == 0 and 0 or t - 1, out[33 + t])
      assert.are.equal(t ~ 1, out[65 + t])
      assert.are.equal(t // 8 * 8 + (t + 1) % 8, out[97 + t])
    end
  end)

  it("__ballot_sync, __any_sync, __all_sync and __popc", function()
    local v = {}
    for i = 1, 32 do v[i] = (i % 3 == 0) and 5 or -1 end
    local out = run_in(m.votes, {1, 32}, 1, gpu.array(v, "int32"), gpu.zeros(4, "uint32"))
    local mask = 0
    for i = 1, 32 do if v[i] > 0 then mask = mask | (1 << (i - 1)) end end
    assert.are.same({mask, 10, 0, 1}, out)
  end)

  it("__match_any_sync and __match_all_sync", function()
    local out = run_in(m.matches, {1, 32}, 1, gpu.array({table.unpack(seq, 1, 32)}, "int32"), gpu.zeros(66, "uint32"))
    for t = 0, 31 do
      local want = 0
      for l = 0, 31 do if l % 4 == t % 4 then want = want | (1 << l) end end
      assert.are.equal(want, out[t + 1])
      local wide = 0
      for l = 0, 31 do if l % 2 == t % 2 then wide = wide | (1 << l) end end
      assert.are.equal(wide, out[35 + t])
    end
    assert.are.same({0xffffffff, 1}, {out[33], out[34]})
  end)

  it("__reduce_*_sync", function()
    local v = {}
    for i = 1, 32 do v[i] = (i * 37) % 101 - 50 end
    local out = run_in(m.reductions, {1, 32}, 1, gpu.array(v, "int32"), gpu.zeros(7, "int32"))
    local s, lo, hi, a, o, umin = 0, math.huge, -math.huge, 0xffffffff, 0, 0xffffffff
    for i = 1, 32 do
      local u = v[i] & 0xffffffff
      s, lo, hi = s + v[i], math.min(lo, v[i]), math.max(hi, v[i])
      a, o, umin = a & (u | 0x100), o | (u & 0xf0), math.min(umin, u)
    end
    local function i32(x) x = x & 0xffffffff; return x >= 2^31 and x - (1 << 32) or x end
    assert.are.same({s, lo, hi, i32(a), o, 0, i32(umin)}, out)
  end)

  it("__syncthreads_count, _and and _or", function()
    local v = {}
    for i = 1, 96 do v[i] = i % 3 == 0 and 50 or -1 end
    local out = run_in(m.counts, {1, 96}, 1, gpu.array(v, "int32"), gpu.zeros(3, "int32"))
    assert.are.same({32, 1, 0}, out)
  end)

  it("cooperative groups' tiles", function()
    local out = run_in(m.tiles, {1, 64}, 1, gpu.array({table.unpack(seq, 1, 64)}, "int32"), gpu.zeros(4, "int32"))
    assert.are.same({120, 376, 632, 888}, out)
  end)

  it("a block's sum in shared memory", function()
    local out = run_in(m.block_sum, {4, 256}, 1, gpu.array(seq, "float32"), gpu.zeros(4), 256)
    assert.are.same({32640, 0, 0, 0}, out)
  end)

  it("extern __shared__ memory sized at launch", function()
    local x = gpu.array({table.unpack(seq, 1, 100)}, "int32")
    m.reverse[{1, 100, shared = 100 * 4}](x, 100)
    local t = x:totable()
    assert.are.same({99, 98, 0}, {t[1], t[2], t[100]})
  end)

  -- Before: the CPU backend answered a lane with the lanes not yet returned, leaving out
  -- those before it (lane k saw lanes k.., the count was 1056 for 64)
  it("__activemask() in a warp-aggregated atomic: the lanes in the branch", function()
    local x, want, bits = {}, {}, {[0] = 0, 0}
    for i = 0, 36 do
      x[i + 1] = i % 3 == 0 and 0 or 1
      if x[i + 1] > 0 then bits[i // 32] = bits[i // 32] | 1 << (i % 32) end
    end
    for i = 0, 36 do want[i + 1] = x[i + 1] > 0 and bits[i // 32] or 0 end
    local total, masks = run_in(m.active, {1, 64}, 2, gpu.array(x, "int32"), 37, gpu.zeros(1, "int32"),
                                gpu.zeros(37, "uint32"))
    assert.are.same({24}, total)
    assert.are.same(want, masks)
  end)

  it("warpSize", function()
    local out = run(m.warp_size, {1, 64}, gpu.zeros(65, "int32"))
    assert.are.equal(32, out[1])
    assert.are.same({0, 1}, {out[2], out[65]})
  end)
end)

describe("the corpus: idioms", function()
  local m = gpu.module([[
struct Pair { int a; float b; };
template <typename T> __global__ void scale(T *x, T s) { x[threadIdx.x] *= s; }
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __forceinline__ int square(int x) { return x * x; }
constexpr int WIDTH = 4;
static_assert(sizeof(float4) == 16, "float4 is 16 bytes");
__constant__ int table[4] = {10, 20, 30, 40};
__device__ int counter;

__global__ void histogram(const int *in, int *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[in[i] % 8], 1);
}
__global__ void atomics(int *x, float *f, unsigned *u, unsigned long long *ull) {
  int t = threadIdx.x;
  atomicMax(&x[0], t); atomicMin(&x[1], -t); atomicExch(&x[2], 7);
  int old = x[3], assumed;
  do { assumed = old; old = atomicCAS(&x[3], assumed, assumed + t); } while (old != assumed);
  atomicAdd(&f[0], 1.0f); atomicSub(&x[4], 2); atomicOr(&x[5], 1 << (t % 8));
  atomicInc(&u[0], 1000u); atomicAdd(&ull[0], 1ull << 33);
}
__global__ void transpose(const float *in, float *out, int n) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 16 + threadIdx.x; y = blockIdx.x * 16 + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}
__global__ void device_calls(int *out) {
  int t = threadIdx.x;
  out[t] = fib(t) + square(t) * WIDTH + table[t % 4];
}
__global__ void structs_lambdas(float *out) {
  Pair p{3, 0.5f};
  auto twice = [](float v) { return 2.0f * v; };
  float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
  int2 q = make_int2(5, 6);
  out[0] = twice(p.b) + p.a;
  out[1] = v.x + v.y + v.z + v.w;
  out[2] = q.x * q.y;
  dim3 d(2, 3);
  out[3] = d.x * d.y * d.z;
}
__global__ void indices3d(int *out) {
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  out[b * blockDim.x * blockDim.y * blockDim.z + t] = (b << 16) | (threadIdx.z << 8) | (threadIdx.y << 4) | threadIdx.x;
}
__global__ void grid_2d(gpu::array<float> a) {
  auto p = gpu::grid(2);
  a(p.y, p.x) = p.y * 10 + p.x;
}
__global__ void heap(int *out) {
  int *p = (int *)malloc(4 * sizeof(int));
  for (int i = 0; i < 4; i++) p[i] = threadIdx.x * i;
  out[threadIdx.x] = p[3];
  free(p);
  int *q = new int[2];
  q[1] = 9;
  out[32 + threadIdx.x] = q[1];
  delete[] q;
}
__global__ void bits(unsigned *u, int *i, unsigned long long *ull) {
  u[0] = __brev(1u); u[1] = __byte_perm(0x11223344u, 0x55667788u, 0x0123); u[2] = __umulhi(0x80000000u, 6u);
  i[0] = __clz(1); i[1] = __ffs(8); i[2] = __popc(0xffu); i[3] = __popcll(0xffffffffffull);
  i[4] = __float_as_int(1.0f); i[5] = __mulhi(-2, 0x40000000); i[6] = __clzll(1ll);
  ull[0] = __umul64hi(1ull << 63, 4ull);
  u[3] = __float_as_uint(__int_as_float(0x40490fdb));
}
__global__ void math_exact(float *f, double *d) {
  f[0] = sqrtf(2.0f); f[1] = fmaf(1.5f, 2.0f, 0.25f); f[2] = rintf(2.5f); f[3] = floorf(-1.5f);
  f[4] = fminf(NAN, 1.0f); f[5] = 1.0f / 3.0f; f[6] = __fdiv_rn(1.0f, 3.0f); f[7] = fabsf(-0.0f);
  d[0] = sqrt(2.0); d[1] = fma(0.1, 10.0, -1.0); d[2] = 1.0 / 3.0; d[3] = rint(-2.5);
}
__global__ void loads(const float *__restrict__ in, float *out) {
  out[threadIdx.x] = __ldg(&in[threadIdx.x]) + 1.0f;
}
__global__ void globals(int *out) {
  if (threadIdx.x == 0) counter = 0;
  __syncthreads();
  atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = counter;
}
]], {names = {"scale<float>", "scale<double>"}})

  it("atomics in a grid-stride loop: a histogram", function()
    local v = {}
    for i = 1, 1000 do v[i] = i end
    local bins = run_in(m.histogram, {4, 64}, 1, gpu.array(v, "int32"), gpu.zeros(8, "int32"), 1000)
    assert.are.same({125, 125, 125, 125, 125, 125, 125, 125}, bins)
  end)

  it("atomicMax, Min, Exch, CAS, Add (float), Sub, Or, Inc and Add (64-bit)", function()
    local x, f, u, ull = run(m.atomics, {1, 64}, gpu.zeros(6, "int32"), gpu.zeros(1), gpu.zeros(1, "uint32"),
                             gpu.zeros(1, "uint64"))
    assert.are.same({63, -63, 7, 2016, -128, 255}, x)
    assert.are.same({64}, f)
    assert.are.same({64}, u)
    assert.are.same({64 << 33}, ull)
  end)

  it("a tiled transpose in shared memory on a 2-D grid", function()
    local n = 40
    local v = {}
    for i = 1, n * n do v[i] = i end
    local out = run_in(m.transpose, {{3, 3}, {16, 16}}, 1, gpu.array(v), gpu.zeros(n * n), n)
    for y = 0, n - 1, 13 do
      for x = 0, n - 1, 7 do assert.are.equal(v[x * n + y + 1], out[y * n + x + 1]) end
    end
  end)

  it("templates", function()
    local x = gpu.array({1, 2, 3})
    m["scale<float>"][{1, 3}](x, 2.5)
    assert.are.same({2.5, 5, 7.5}, x:totable())
    local d = gpu.array({1, 2}, "float64")
    m["scale<double>"][{1, 2}](d, 0.5)
    assert.are.same({0.5, 1}, d:totable())
  end)

  it("device functions, recursion, constexpr and __constant__", function()
    local out = run(m.device_calls, {1, 12}, gpu.zeros(12, "int32"))
    local fib = {[0] = 0, 1}
    for i = 2, 11 do fib[i] = fib[i - 1] + fib[i - 2] end
    for t = 0, 11 do assert.are.equal(fib[t] + t * t * 4 + (t % 4 + 1) * 10, out[t + 1]) end
  end)

  it("structs, lambdas, vector types and dim3", function()
    assert.are.same({4, 10, 30, 6}, run(m.structs_lambdas, {1, 1}, gpu.zeros(4)))
  end)

  it("3-D grids and blocks", function()
    local out = run(m.indices3d, {{2, 1, 2}, {4, 2, 2}}, gpu.zeros(64, "int32"))
    assert.are.equal((3 << 16) | (1 << 8) | (1 << 4) | 3, out[64])
    assert.are.equal((1 << 16) | 2, out[16 + 3])
  end)

  it("gpu::array and gpu::grid in two dimensions", function()
    local a = gpu.zeros({3, 5})
    m.grid_2d[{{1, 1}, {8, 8}}](a)
    assert.are.same({{0, 1, 2, 3, 4}, {10, 11, 12, 13, 14}, {20, 21, 22, 23, 24}}, a:totable())
  end)

  it("device malloc, free, new and delete", function()
    local out = run(m.heap, {1, 32}, gpu.zeros(64, "int32"))
    for t = 0, 31 do
      assert.are.equal(3 * t, out[t + 1])
      assert.are.equal(9, out[33 + t])
    end
  end)

  it("integer intrinsics and bit casts", function()
    local u, i, ull = run(m.bits, {1, 1}, gpu.zeros(4, "uint32"), gpu.zeros(7, "int32"), gpu.zeros(1, "uint64"))
    assert.are.same({0x80000000, 0x44332211, 3, 0x40490fdb}, u)
    assert.are.same({31, 4, 8, 40, 0x3f800000, -1, 63}, i)
    assert.are.same({2}, ull)
  end)

  it("correctly rounded float and double arithmetic", function()
    local f, d = run(m.math_exact, {1, 1}, gpu.zeros(8), gpu.zeros(4, "float64"))
    assert.are.same({1.4142135381698608, 3.25, 2, -2, 1, 0.3333333432674408, 0.3333333432674408, 0}, f)
    assert.are.same({math.sqrt(2), 5.551115123125783e-17, 1 / 3, -2}, d)
  end)

  it("__ldg and __restrict__", function()
    assert.are.same({2, 3, 4}, run_in(m.loads, {1, 3}, 1, gpu.array({1, 2, 3}), gpu.zeros(3)))
  end)

  it("__device__ variables", function()
    assert.are.same({128}, run(m.globals, {1, 128}, gpu.zeros(1, "int32")))
  end)
end)

describe("the refused corpus: both backends refuse, naming the problem", function()
  local function many_arrays(n)   -- 152 bytes each
    local p = {}
    for i = 1, n do p[i] = "gpu::array<float> a" .. i end
    return table.concat(p, ", ")
  end
  local refused = {
    {"exit", "__global__ void k(int *x) { exit(1); }", 'identifier "exit" is undefined'},
    {"abort", "__global__ void k(int *x) { abort(); }", 'identifier "abort" is undefined'},
    {"throw", "__global__ void k(int *x) { if (x[0]) throw 1; }", "device code does not support exception handling"},
    {"try", "__global__ void k(int *x) { try { x[0] = 1; } catch (...) {} }", "device code does not support exception handling"},
    {"a host function", "int f(int v) { return v; }\n__global__ void k(int *x) { x[0] = f(1); }",
     "host functions are not allowed in JIT mode"},
    {"a host variable", "int g;\n__global__ void k(int *x) { x[0] = g; }",
     "A namespace scope variable without memory space annotations"},
    {"an undeclared name", "__global__ void k(int *x) { x[0] = nosuch; }", 'identifier "nosuch" is undefined'},
    {"<vector>", "#include <vector>\n__global__ void k(int *x) { x[0] = 1; }", 'cannot open source file "vector"'},
    {"<iostream>", "#include <iostream>\n__global__ void k(int *x) { x[0] = 1; }", 'cannot open source file "iostream"'},
    {"std::cout", "__global__ void k(int *x) { std::cout << x[0]; }", 'namespace "std" has no member "cout"'},
    {"std::vector", "__global__ void k(int *x) { std::vector<int> v; }", 'namespace "std" has no member "vector"'},
    {"std::sort", "__global__ void k(int *x) { std::sort(x, x + 4); }", 'namespace "std" has no member "sort"'},
    {"a variable-length array", "__global__ void k(int *x, int n) { int a[n]; a[0] = 1; x[0] = a[0]; }",
     "expression must have a constant value"},
    {"__int128", "__global__ void k(unsigned long long *x) { unsigned __int128 a = x[0]; x[0] = (unsigned long long)(a >> 1); }",
     "128-bit integer type is only supported"},
    {"typeid", "__global__ void k(int *x) { x[0] = sizeof(typeid(int)); }", "<typeinfo> must be included before typeid is used"},
    {"a __global__ returning a value", "__global__ int k(int *x) { return 1; }", 'a __global__ function must have a void return type'},
    {"64 MB of static __shared__", "__global__ void k(float *x) { __shared__ float s[16 * 1024 * 1024]; s[threadIdx.x] = 1; x[0] = s[(int)x[1]]; }",
     "uses too much shared data"},
    {"an initialised __shared__", "__global__ void k(int *x) { __shared__ int s = 3; x[0] = s; }",
     'initializer not allowed for __shared__ variable'},
    {"static_assert", "__global__ void k(int *x) { static_assert(sizeof(int) == 8, \"ints are 8 bytes\"); }",
     "ints are 8 bytes"},
    {"a wrong argument type", "__device__ void f(int *p) {}\n__global__ void k(float *x) { f(x); }",
     'argument of type "float *" is incompatible with parameter of type "int *"'},    {"parameters over 32764 bytes", "__global__ void k(" .. many_arrays(230) .. ") { a1[0] = 1; }", "Formal parameter space overflowed (34960 bytes required, max 32764 bytes allowed)"},
    {"__constant__ data over 64 KiB", "__constant__ float c[20000];\n__global__ void k(float *x) { x[0] = c[(int)x[1]]; }",
     "too much global constant data (0x13880 bytes, 0x10000 max)"},
  }
  for _, r in ipairs(refused) do
    it(r[1], function()
      local msg, err = S.errof(function() gpu.kernel(r[2]):compile() end)
      assert.matches("COMPILATION$", err.name)
      assert.matches(r[3], msg, 1, true)
    end)
  end

  -- Before: the CPU backend took the size of the referenced type and ran it
  it("a reference parameter, which a GPU passes as a pointer (8 bytes)", function()
    local k = gpu.kernel("__global__ void k(const gpu::array<float> &a, float *o) { o[0] = a[0]; }")
    local msg = S.errof(function() k[{1, 1}](gpu.ones(3), gpu.zeros(1)) end)
    assert.matches("is 8 bytes in the compiled kernel, not 152 as its declaration reads", msg, 1, true)
  end)
end)

describe("the corpus: shared memory and tiles as CUDA defines them", function()
  local m = gpu.module([[
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern __shared__ float dyn[];   // at namespace scope, as CUDA samples declare it
__global__ void reverse_global(float *o) {
  dyn[threadIdx.x] = threadIdx.x * 2.0f;
  __syncthreads();
  o[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}
__global__ void copy_global(float *o) {   // no barrier: the loops, with the same array
  dyn[threadIdx.x] = threadIdx.x + 0.5f;
  o[threadIdx.x] = dyn[threadIdx.x];
}
template <class T> __global__ void aligned_dyn(T *o) {   // CUDA's samples' SharedMemory idiom
  extern __shared__ __align__(sizeof(T)) unsigned char smem[];
  T *s = reinterpret_cast<T *>(smem);
  s[threadIdx.x] = (T)threadIdx.x;
  __syncthreads();
  o[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
template __global__ void aligned_dyn<double>(double *);
__device__ auto dyn_at(int i) -> float { extern __shared__ float d2[]; return d2[i]; }
__global__ void trailing(float *o) {
  extern __shared__ float d2[];
  d2[threadIdx.x] = 2.0f * threadIdx.x;
  __syncthreads();
  o[threadIdx.x] = dyn_at(blockDim.x - 1 - threadIdx.x);
}
__global__ void half_warp(int *o) {   // lanes 16-31 wait at the barrier meanwhile
  int v = threadIdx.x;
  if (threadIdx.x % 32 < 16) v += __shfl_down_sync(0xffffu, v, 4, 16);
  __syncthreads();
  o[threadIdx.x] = v;
}
__global__ void tiles_apart(int *o) {   // the tiles of a warp in different warp functions
  auto t = cg::tiled_partition<8>(cg::this_thread_block());
  int r = t.meta_group_rank() % 2 ? t.shfl_xor((int)threadIdx.x, 1) : (int)t.ballot(threadIdx.x % 3 == 0);
  o[threadIdx.x] = r;
}
__global__ void offsets(int *o) {   // a shuffle reads its offset's low 5 bits, as PTX does
  int v = threadIdx.x;
  o[threadIdx.x] = __shfl_down_sync(0xffffffffu, v, 33) * 10000 + __shfl_xor_sync(0xffffffffu, v, 34) * 100 +
                   __shfl_up_sync(0xffffffffu, v, 35);
}
__global__ void tiles8(unsigned *ballot, int *any, int *all, unsigned *meta) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<8> t = cg::tiled_partition<8>(b);
  ballot[threadIdx.x] = t.ballot(threadIdx.x % 11 == 3);
  any[threadIdx.x] = t.any(threadIdx.x == 3);
  all[threadIdx.x] = t.all(threadIdx.x < 8);
  meta[threadIdx.x] = t.meta_group_rank() * 100 + t.meta_group_size();
}
]], {names = {"aligned_dyn<double>"}})

  it("an extern __shared__ array at namespace scope", function()
    assert.are.same({6, 4, 2, 0}, run(m.reverse_global, {1, 4, shared = 16}, gpu.zeros(4)))
    assert.are.same({0.5, 1.5, 2.5}, run(m.copy_global, {2, 3, shared = 12}, gpu.zeros(3)))
  end)

  it("warp functions whose mask leaves out lanes that are elsewhere", function()
    local o = run(m.half_warp, {1, 64}, gpu.zeros(64, "int32"))
    for t = 0, 63 do
      local l = t % 32
      assert.are.equal(l >= 16 and t or (l % 16 < 12 and 2 * t + 4 or t + t), o[t + 1])
    end
    o = run(m.tiles_apart, {1, 32}, gpu.zeros(32, "int32"))
    for t = 0, 31 do
      local b = 0
      for r = 0, 7 do if (t // 8 * 8 + r) % 3 == 0 then b = b | (1 << r) end end
      assert.are.equal(t // 8 % 2 == 1 and t ~ 1 or b, o[t + 1])
    end
  end)

  it("shuffle offsets of 32 and more", function()
    local o = run(m.offsets, {1, 32}, gpu.zeros(32, "int32"))
    for l = 0, 31 do
      local down = l + 1 < 32 and l + 1 or l
      local up = l - 3 >= 0 and l - 3 or l
      assert.are.equal(down * 10000 + (l ~ 2) * 100 + up, o[l + 1])
    end
  end)

  it("extern __shared__ with __align__(sizeof(T)), and in a function with a trailing return type", function()
    assert.are.same({3, 2, 1, 0}, run(m["aligned_dyn<double>"], {1, 4, shared = 32}, gpu.zeros(4, "float64")))
    assert.are.same({6, 4, 2, 0}, run(m.trailing, {1, 4, shared = 16}, gpu.zeros(4)))
  end)

  it("a tile's votes and ballots cover the tile alone", function()
    local ballot, any, all, meta = run(m.tiles8, {1, 64}, gpu.zeros(64, "uint32"), gpu.zeros(64, "int32"),
                                       gpu.zeros(64, "int32"), gpu.zeros(64, "uint32"))
    for t = 0, 63 do
      local first, b = t // 8 * 8, 0
      for r = 0, 7 do if (first + r) % 11 == 3 then b = b | (1 << r) end end
      assert.are.equal(b, ballot[t + 1])
      assert.are.equal(t < 8 and 1 or 0, any[t + 1])
      assert.are.equal(t < 8 and 1 or 0, all[t + 1])
      assert.are.equal(t // 8 * 100 + 8, meta[t + 1])
    end
  end)
end)

describe("the corpus: sm_90's 16-byte atomics, and CUDA's device functions the CPU backend lacked", function()
  -- Before: none of these compiled on the CPU backend ("no matching function for call to
  -- atomicCAS(pair*&, pair, pair)"; __nv_aligned_device_malloc, fdivide, syncthreads_and
  -- undeclared), and its __powf was powf: 4 for (-2, 2), 1 for (0, 0)
  local m = gpu.module([[
struct __align__(16) pair { unsigned long long a, b; };
__global__ void swaps(pair *p, unsigned long long *o, float4 *f) {
  pair old = atomicCAS(p, pair{1, 2}, pair{3, 4});
  o[0] = old.a; o[1] = old.b; o[2] = p->a; o[3] = p->b;
  old = atomicCAS_block(p, pair{1, 2}, pair{5, 6});   // it holds {3, 4}: no swap
  o[4] = old.a; o[5] = old.b; o[6] = p->a; o[7] = p->b;
  old = atomicExch_system(p, pair{7, 8});
  o[8] = old.a; o[9] = old.b;
  f[1] = atomicExch(&f[0], make_float4(5, 6, 7, 8));
}
__global__ void count(pair *p) {   // each thread adds 1 to both halves by compare-and-swap
  pair old = *p, seen;
  while ((seen = atomicCAS(p, old, pair{old.a + 1, old.b + 1})).a != old.a || seen.b != old.b) old = seen;
}
__global__ void functions(float *f, double *d, unsigned long long *a, int *c) {
  f[0] = __powf(-2.0f, 2.0f); f[1] = __powf(0.0f, 0.0f); f[2] = __powf(1.0f, 7.0f); f[3] = __powf(0.0f, 2.0f);
  d[0] = fdivide(1.0, 3.0);
  void *p = __nv_aligned_device_malloc(100, 1024), *q = __nv_aligned_device_malloc(5000, 256);
  if (threadIdx.x == 0) { a[0] = (unsigned long long)p % 1024; a[1] = (unsigned long long)q % 256; a[2] = p && q; }
  free(p); free(q);
  c[threadIdx.x] = syncthreads_count(threadIdx.x < 5) * 100 + syncthreads_and(threadIdx.x < 64) * 10 +
                   syncthreads_or(threadIdx.x == 63);
}
]])

  it("atomicCAS and atomicExch of 16 bytes, with their _block and _system forms", function()
    local p, o, f = gpu.array({1, 2}, "uint64"), gpu.zeros(10, "uint64"), gpu.array({1, 2, 3, 4, 0, 0, 0, 0})
    m.swaps[{1, 1}](p, o, f)
    assert.are.same({1, 2, 3, 4, 3, 4, 3, 4, 3, 4}, o:totable())
    assert.are.same({7, 8}, p:totable())
    assert.are.same({5, 6, 7, 8, 1, 2, 3, 4}, f:totable())
    m.count[{64, 64}](p)
    assert.are.same({7 + 4096, 8 + 4096}, p:totable())
  end)

  it("__powf as a GPU computes it, fdivide, __nv_aligned_device_malloc, syncthreads_count, _and, _or", function()
    local f, d, a, c = run(m.functions, {1, 64}, gpu.zeros(4), gpu.zeros(1, "float64"), gpu.zeros(3, "uint64"),
                           gpu.zeros(64, "int32"))
    assert.is_true(f[1] ~= f[1] and f[2] ~= f[2])
    assert.are.same({1, 0}, {f[3], f[4]})
    assert.are.same({1 / 3}, d)
    assert.are.same({0, 0, 1}, a)
    assert.are.same({511, 511}, {c[1], c[64]})
  end)
end)

describe("the corpus: intrinsics as CUDA defines them", function()
  local m = gpu.module([[
__global__ void to_int(const float *f, const double *d, int *o, unsigned *u, long long *ll, unsigned long long *ull) {
  o[0] = __float2int_rn(f[0]); o[1] = __float2int_rz(f[1]); o[2] = __float2int_rd(f[2]); o[3] = __float2int_ru(f[1]);
  o[4] = __double2int_rn(d[0]); o[5] = __float2int_rn(f[3]); o[6] = __float2int_rn(f[4]);
  o[7] = __float_as_int(__saturatef(f[1])); o[8] = __double2int_rz(d[1]);
  u[0] = __float2uint_rn(f[5]); u[1] = __double2uint_ru(d[0]);
  ll[0] = __float2ll_rn(f[0]); ll[1] = __double2ll_rz(d[1]); ll[2] = __float2ll_rd(f[2]);
  ull[0] = __float2ull_ru(f[4]); ull[1] = __double2ull_rn(d[2]);
}
__global__ void integers(const int *i, int *o, unsigned *u) {
  o[0] = __mul24(i[0], 2); o[1] = __mul24(i[1], i[2]); o[2] = __hadd(INT_MAX, i[4]); o[3] = __rhadd(i[2], 2);
  o[4] = __dp4a(0x01020304, -1, 10); o[5] = __dp2a_lo(0x0002fffe, 0x00000301, 0);
  o[6] = __dp2a_hi(0x0002fffe, 0x03010000, 5);
  u[0] = __umul24(i[0] | 1, 3u); u[1] = __uhadd(0xffffffffu, (unsigned)i[2]);
  u[2] = __funnelshift_lc(1u, 2u, (unsigned)i[3]); u[3] = __funnelshift_rc(1u, 2u, (unsigned)i[3]);
  u[4] = __sad(-5, i[2] * 3, 1u); u[5] = __dp4a(0x01020304u, 0xffffffffu, 0u); u[6] = __urhadd(1u, (unsigned)i[2]);
  u[7] = __nv_bswap32(0x11223344u); u[8] = umax(3u, (unsigned)i[2]);
}
__global__ void rounded(const float *f, const double *d, const int *i, float *of, double *od) {
  of[0] = __fadd_rd(1.0f, f[6]); of[1] = __fadd_ru(1.0f, f[6]); of[2] = __fdiv_rz(1.0f, f[7]);
  of[3] = __fdiv_ru(1.0f, f[7]); of[4] = __int2float_rd(i[5]); of[5] = __int2float_ru(i[5]);
  of[6] = __double2float_rd(d[3]); of[7] = __double2float_ru(d[3]); of[8] = __fsqrt_rd(f[8]);
  of[9] = __fsqrt_ru(f[8]); of[10] = __frsqrt_rn(f[10]); of[11] = __ll2float_rz(-(long long)i[5]);
  od[0] = __dadd_rd(1.0, d[4]); od[1] = __dadd_ru(1.0, d[4]); od[2] = __ddiv_rn(1.0, 3.0 * d[5]);
  od[3] = __hiloint2double(__double2hiint(d[6]), __double2loint(d[6]));
}
__global__ void cuda_math(const double *x, double *o, float *f) {
  o[0] = erfinv(x[0]); o[1] = erfcinv(x[1]); o[2] = erfcx(x[2]); o[3] = cyl_bessel_i0(x[3]);
  o[4] = cyl_bessel_i1(x[4]); o[5] = normcdfinv(x[5]); o[6] = erfinv(x[6]); o[7] = erfcinv(x[7]);
  o[8] = rhypot(x[8], x[9]); o[9] = rcbrt(x[10]); o[10] = sinpi(x[11]); o[11] = cospi(x[12]);
  o[12] = sinpi(x[13]); o[13] = norm3d(x[8], x[9], x[14]);
  f[0] = sinpif((float)x[11]); f[1] = cospif((float)x[12]); f[2] = norm4df(1, 2, 2, 4); f[3] = erfinv((float)x[0]);
  f[4] = cospif(1e30f); f[5] = erfinvf(1.5f); f[6] = erfcinvf(0.0f);
}
__global__ void mixed_minmax(const long long *a, unsigned long long *o) {
  o[0] = min(a[0], 2ULL); o[1] = max(a[0], 2ULL); o[2] = min(3ULL, a[1]); o[3] = max((long)a[1], 5UL);
  __threadfence_cluster();
}
__global__ void nv_atomics(int *p, float *f, unsigned *u, unsigned long long *q) {   // CUDA 12.8's
  __nv_atomic_fetch_add(&p[0], 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_add(&f[0], 0.5f, __NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_BLOCK);
  __nv_atomic_fetch_min(&p[1], -(int)threadIdx.x, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_max(&u[0], threadIdx.x, __NV_ATOMIC_RELAXED);
  __nv_atomic_fetch_sub(&u[1], 1, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_SYSTEM);
  __nv_atomic_fetch_or(&q[0], 1ull << threadIdx.x, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_SYSTEM);
  int e = 0;
  if (__nv_atomic_compare_exchange_n(&p[2], &e, 100, false, __NV_ATOMIC_ACQ_REL, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE))
    __nv_atomic_store_n(&p[3], __nv_atomic_load_n(&p[2], __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE) + 1,
                        __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
  int x = 7, r;
  __nv_atomic_exchange(&p[4], &x, &r, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
  atomicAdd((float2 *)&f[2], make_float2(1, 2));
  atomicAdd((float4 *)&f[4], make_float4(1, 2, 3, 4));
}
__global__ void fast_divide(const float *x, float *o) {
  o[0] = __fdividef(x[0], x[1]); o[1] = __fdividef(x[0], -x[2]); o[2] = __fdividef(x[3], x[2]);
  o[3] = __fdividef(x[4], x[5]);
}
__global__ void scoped_atomics(unsigned *u, unsigned long long *ull, float *f) {
  int t = threadIdx.x;
  atomicInc_block(&u[0], 9u); atomicDec_system(&u[1], 9u); atomicSub_block(&u[2], 1u);
  atomicAnd_system(&u[3], ~(1u << t)); atomicOr_block(&ull[0], 1ull << (t + 20)); atomicXor_system(&ull[1], 3ull);
  atomicMax_system(&u[4], (unsigned)t); atomicExch_system(&u[5], 7u); f[0] = fdividef(1.0f, 4.0f);
}
]])
  local f = gpu.array({1e10, 0 / 0, -1e10, 2.5, -3.5, -1, 1e-10, 3, 2, 1.1, 4}, "float32")
  local d = gpu.array({3e9, 0 / 0, 1e30, 1 / 3, 1e-30, 1, 2}, "float64")
  local i = gpu.array({0x1000000, 0xFFFFFF, 5, 40, 1, 16777217}, "int32")

  -- (NaN: as an H200 gives it, 0 from a float to 32 bits, else the top bit alone)
  it("conversions to integers saturate, NaN as a GPU converts it, and __saturatef(NaN) is 0", function()
    local o, u, ll, ull = run_in(m.to_int, {1, 1}, 2, f, d, gpu.zeros(9, "int32"), gpu.zeros(2, "uint32"),
                                 gpu.zeros(3, "int64"), gpu.zeros(2, "uint64"))
    assert.are.same({2147483647, 0, -2147483648, 0, 2147483647, 2, -4, 0, -2147483648}, o)
    assert.are.same({0, 3000000000}, u)
    assert.are.same({10000000000, math.mininteger, -10000000000}, ll)
    assert.are.same({0, -1}, ull)   -- 2^64 - 1, as Lua shows it
  end)

  it("24-bit products, halving adds, funnel shifts that clamp, byte dot products", function()
    local o, u = run_in(m.integers, {1, 1}, 1, i, gpu.zeros(7, "int32"), gpu.zeros(9, "uint32"))
    assert.are.same({0, -5, 1073741824, 4, 0, 4, 9}, o)
    assert.are.same({3, 2147483650, 1, 2, 21, 2550, 3, 0x44332211, 5}, u)
  end)

  it("arithmetic and conversions rounded down, up and toward zero", function()
    local of, od = run_in(m.rounded, {1, 1}, 3, f, d, i, gpu.zeros(12), gpu.zeros(4, "float64"))
    local third_down, third_up = 0.3333333134651184, 0.3333333432674408
    assert.are.same({1, 1.0000001192092896, third_down, third_up, 16777216, 16777218, third_down, third_up,
                     1.4142135381698608, 1.4142136573791504, 0.5, -16777216}, of)
    assert.are.same({1, 1.0000000000000002, 1 / 3, 2}, od)
  end)

  it("atomics of each scope, _block and _system", function()
    local u, ull, f = run(m.scoped_atomics, {1, 32}, gpu.array({0, 0, 0, 0xffffffff, 0, 0}, "uint32"),
                          gpu.zeros(2, "uint64"), gpu.zeros(1))
    assert.are.same({2, 8, 0xffffffe0, 0, 31, 7}, u)
    assert.are.same({0xffffffff << 20, 0}, ull)
    assert.are.same({0.25}, f)
  end)

  it("the math CUDA has beyond C's: erfinv, erfcinv, erfcx, Bessel I0/I1, sinpi, cospi ...", function()
    local x = gpu.array({0.5, 1e-300, 200, 700, -3.5, 0.975, -0.999999, 1.7, 3, 4, 8, 1, 0.5, 1e10 + 0.5, 12}, "float64")
    local o, f = run_in(m.cuda_math, {1, 1}, 1, x, gpu.zeros(14, "float64"), gpu.zeros(7))
    local want = {0.4769362762044699, 26.209469960516124, 0.0028209126572120466, 1.5295933476718737e+302,
                  -6.2058349222583651, 1.959963984540054, -3.4589107372754988, -0.7328690779592167}
    for i, w in ipairs(want) do assert.is_true(math.abs(o[i] - w) <= 2e-15 * math.abs(w), i .. ": " .. o[i]) end
    assert.are.same({0.2, 0.5, 0, 0, 1, 13}, {table.unpack(o, 9, 14)})
    assert.are.same({0, 0, 5, 0.4769362807273865, 1}, {table.unpack(f, 1, 5)})
    assert.is_true(f[6] ~= f[6])
    assert.are.equal(INF, f[7])
  end)

  it("half and bfloat16: __hfma2_sat, __hfma2_relu, __hcmadd, integers to bfloat16 rounded each way", function()
    local k = gpu.kernel([[
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void halves(const int *i, float *o) {
  o[0] = __bfloat162float(__int2bfloat16_rd(i[0])); o[1] = __bfloat162float(__int2bfloat16_ru(i[0]));
  o[2] = __bfloat162float(__int2bfloat16_rz(-i[0])); o[3] = __bfloat162float(__int2bfloat16_rd(-i[0]));
  o[4] = __bfloat162float(__ll2bfloat16_ru((long long)i[1] << 40)); o[5] = __bfloat162float(__uint2bfloat16_ru(256u));
  __half2 a = __floats2half2_rn(0.5f, 0.75f), b = __floats2half2_rn(2.0f, -2.0f), c = __floats2half2_rn(-0.5f, 0.25f);
  __half2 s = __hfma2_sat(a, b, c), r = __hfma2_relu(a, b, c);
  o[6] = __low2float(s); o[7] = __high2float(s); o[8] = __low2float(r); o[9] = __high2float(r);
  __half2 z = __hcmadd(__floats2half2_rn(1, 2), __floats2half2_rn(3, 4), __floats2half2_rn(10, 20));
  o[10] = __low2float(z); o[11] = __high2float(z);
}]])
    local o = run_in(k, {1, 1}, 1, gpu.array({257, 1}, "int32"), gpu.zeros(12))
    assert.are.same({256, 258, -256, -258, 2 ^ 40, 256, 0.5, 0, 0.5, 0, 5, 30}, o)
  end)

  -- Before: NaN (r < 0 and r > 1 let it through), and -0.0 for a result of -0.0
  it("__hfma_sat and __hfma2_sat give +0.0 for NaN and -0.0, as cuda_fp16.h and the toolkit's own _sat do", function()
    local k = gpu.kernel([[
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void sat(const float *f, float *o) {
  __half n = __float2half(f[0]), z = __float2half(f[1]), one = __float2half(1.0f);
  __nv_bfloat16 nb = __float2bfloat16(f[0]), zb = __float2bfloat16(f[1]), oneb = __float2bfloat16(1.0f);
  o[0] = __half2float(__hfma_sat(n, one, one)); o[1] = __bfloat162float(__hfma_sat(nb, oneb, oneb));
  o[2] = __half2float(__hfma_sat(z, one, z)); o[3] = __bfloat162float(__hfma_sat(zb, oneb, zb));
  __half2 s = __hfma2_sat(__halves2half2(n, z), __halves2half2(one, one), __halves2half2(one, z));
  __nv_bfloat162 t = __hfma2_sat(__halves2bfloat162(nb, zb), __halves2bfloat162(oneb, oneb), __halves2bfloat162(oneb, zb));
  o[4] = __low2float(s); o[5] = __high2float(s); o[6] = __low2float(t); o[7] = __high2float(t);
  o[8] = __half2float(__hadd_sat(z, z)); o[9] = __half2float(__hfma_sat(one, one, one));
}]])
    local o = run_in(k, {1, 1}, 1, gpu.array({0 / 0, -0.0}, "float32"), gpu.full(10, 7))
    local inverses = {}
    for i = 1, 9 do inverses[i] = 1 / o[i] end   -- (+0.0 and -0.0 are equal: their inverses are not)
    assert.are.same({INF, INF, INF, INF, INF, INF, INF, INF, INF}, inverses)
    assert.are.equal(1, o[10])
  end)

  it("__hfma and __hfma2 round a * b + c once, as the fused operation does, for half and bfloat16", function()
    local k = gpu.kernel([[
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void fma_once(const float *f, float *o) {
  o[0] = __half2float(__hfma(__float2half(f[0]), __float2half(f[1]), __float2half(f[2])));
  o[1] = __half2float(__hfma(__float2half(f[3]), __float2half(f[4]), __float2half(f[5])));
  o[2] = __bfloat162float(__hfma(__float2bfloat16(f[6]), __float2bfloat16(f[7]), __float2bfloat16(f[8])));
  o[3] = __bfloat162float(__hfma(__float2bfloat16(f[6]), __float2bfloat16(f[7]), __float2bfloat16(-f[8])));
  __half2 s = __hfma2(__floats2half2_rn(f[0], f[3]), __floats2half2_rn(f[1], f[4]), __floats2half2_rn(f[2], f[5]));
  o[4] = __low2float(s); o[5] = __high2float(s);
}]])
    -- 1 + 1046 * 2005 / 2^32 is 1 + 2^-11 and 78 / 2^32 more: rounded to float first, it is the tie
    -- 1 + 2^-11, which goes to even (1); 1.5 * (1 + 2^-10) is a tie of half, less 2^-24 here;
    -- -3.25 * 0.609375 a tie of bfloat16, nudged either way by 2^-90
    local f = gpu.array({1046 / 65536, 2005 / 65536, 1, 1.5, 1 + 2 ^ -10, -2 ^ -24, -3.25, 0.609375, 2 ^ -90})
    local o = run_in(k, {1, 1}, 1, f, gpu.zeros(6))
    assert.are.same({1 + 2 ^ -10, 1.5 + 2 ^ -10, -1.9765625, -1.984375, 1 + 2 ^ -10, 1.5 + 2 ^ -10}, o)
  end)

  it("half and bfloat16 to integers rounded each way saturate as cvt does: NaN 0, 0x8000000000000000 for 64 bits", function()
    local k = gpu.kernel([[
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__global__ void to_int(const float *f, long long *o) {
  int i = threadIdx.x;
  __half h = __float2half(f[i]);
  __nv_bfloat16 b = __float2bfloat16(f[6 + i]);
  o[i] = __half2int_rn(h); o[6 + i] = __half2uint_rd(h); o[12 + i] = __half2short_ru(h);
  o[18 + i] = __half2ushort_rn(h); o[24 + i] = __half2ll_rn(h); o[30 + i] = (long long)__half2ull_rd(h);
  o[36 + i] = __bfloat162int_ru(b); o[42 + i] = __bfloat162uint_rn(b); o[48 + i] = __bfloat162short_rd(b);
  o[54 + i] = __bfloat162ushort_ru(b); o[60 + i] = __bfloat162ll_rd(b); o[66 + i] = (long long)__bfloat162ull_rn(b);
}]])
    local f = gpu.array({0 / 0, INF, -INF, 65504, -65504, -2.5, 0 / 0, 1e30, -1e30, 2 ^ 40, -2 ^ 40, 2.5}, "float32")
    local o = run_in(k, {1, 6}, 1, f, gpu.zeros(72, "int64"))
    local imax, imin, lmax, lmin = 2147483647, -2147483648, math.maxinteger, math.mininteger
    local want = {
      {0, imax, imin, 65504, -65504, -2}, {0, 4294967295, 0, 65504, 0, 0},        -- int_rn, uint_rd
      {0, 32767, -32768, 32767, -32768, -2}, {0, 65535, 0, 65504, 0, 0},         -- short_ru, ushort_rn
      {lmin, lmax, lmin, 65504, -65504, -2}, {lmin, -1, 0, 65504, 0, 0},         -- ll_rn, ull_rd (-1: 2^64 - 1)
      {0, imax, imin, imax, imin, 3}, {0, 4294967295, 0, 4294967295, 0, 2},      -- bfloat16: int_ru, uint_rn
      {0, 32767, -32768, 32767, -32768, 2}, {0, 65535, 0, 65535, 0, 3},          -- short_rd, ushort_ru
      {lmin, lmax, lmin, 1 << 40, -(1 << 40), 2}, {lmin, -1, 0, 1 << 40, 0, 2},  -- ll_rd, ull_rn
    }
    for j, row in ipairs(want) do assert.are.same(row, {table.unpack(o, 6 * j - 5, 6 * j)}) end
  end)

  it("min and max of a signed and an unsigned 64-bit integer, compared as unsigned", function()
    local o = run_in(m.mixed_minmax, {1, 1}, 1, gpu.array({-1, 7}, "int64"), gpu.zeros(4, "uint64"))
    assert.are.same({2, -1, 3, 7}, o)   -- -1: 2^64 - 1 as Lua shows it
  end)

  it("the __nv_atomic_* builtins, and atomicAdd on float2 and float4", function()
    local p, f, u, q = run(m.nv_atomics, {1, 32}, gpu.zeros(5, "int32"), gpu.zeros(8), gpu.zeros(2, "uint32"),
                           gpu.zeros(1, "uint64"))
    assert.are.same({32, -31, 100, 101, 7}, p)
    assert.are.same({16, 0, 32, 64, 32, 64, 96, 128}, f)
    assert.are.same({31, 0xffffffe0}, u)
    assert.are.same({0xffffffff}, q)
  end)

  it("__fdividef by a divisor over 2^126 is 0 (NaN for infinity), as CUDA documents", function()
    local x = gpu.array({1, 3e38, 2 ^ 127, INF, 6, 3}, "float32")
    local o = run_in(m.fast_divide, {1, 1}, 1, x, gpu.zeros(4))
    assert.are.equal(0, o[1]); assert.are.equal(-0.0, o[2]); assert.is_true(1 / o[2] < 0)
    assert.is_true(o[3] ~= o[3])
    assert.are.equal(2, o[4])
  end)
end)

describe("the corpus: SIMD intrinsics as the CUDA Math API defines them", function()
  -- Each intrinsic on the pairs and triples below, against a lane by lane reference in Lua
  -- (lanes of 8 bits for the names ending in 4, of 16 for 2 and 16x2), and CUDA's own
  -- examples (crt/device_functions.h) worked by hand.
  local inputs = {0, 0xffffffff, 0x80808080, 0x7f7f7f7f, 0x7fff8000, 0x8000ffff, 0x01020304,
                  0x1234aba5, 0x1234aba6, 0xfe01807f, 0x00ff7f80, 0x80017ffe, 0xc0de1234, 0x0f0f0f0f}
  local n = #inputs
  local function lane(v, w, i, signed)
    local u = (v >> (w * i)) & ((1 << w) - 1)
    if signed and u >= 1 << (w - 1) then u = u - (1 << w) end
    return u
  end
  local function sat(v, w, signed)
    local lo, hi = signed and -(1 << (w - 1)) or 0, signed and (1 << (w - 1)) - 1 or (1 << w) - 1
    return v < lo and lo or v > hi and hi or v
  end
  -- a GPU's signed average rounds halves away from zero
  local function avg_signed(s) return s >= 0 and (s + 1) // 2 or s // 2 end
  local function relu(v) return v > 0 and v or 0 end
  local function max3(x, y, z) return math.max(x, y, z) end
  local function min3(x, y, z) return math.min(x, y, z) end
  local function max2(x, y) return math.max(x, y) end
  local function min2(x, y) return math.min(x, y) end
  -- name, lanes (1: a 32-bit word), signed, the result of lanes x, y, z (w: the lane's width)
  local lanewise = {
    {"abs", true, function(x) return math.abs(x) end, 1}, {"absss", true, function(x, _, _, w) return sat(math.abs(x), w, true) end, 1},
    {"neg", true, function(x) return -x end, 1}, {"negss", true, function(x, _, _, w) return sat(-x, w, true) end, 1},
    {"add", false, function(x, y) return x + y end}, {"sub", false, function(x, y) return x - y end},
    {"addss", true, function(x, y, _, w) return sat(x + y, w, true) end}, {"addus", false, function(x, y, _, w) return sat(x + y, w, false) end},
    {"subss", true, function(x, y, _, w) return sat(x - y, w, true) end}, {"subus", false, function(x, y, _, w) return sat(x - y, w, false) end},
    {"avgs", true, function(x, y) return avg_signed(x + y) end}, {"avgu", false, function(x, y) return (x + y + 1) // 2 end},
    {"haddu", false, function(x, y) return (x + y) // 2 end},
    {"absdiffs", true, function(x, y) return math.abs(x - y) end}, {"absdiffu", false, function(x, y) return math.abs(x - y) end},
    {"maxs", true, max2}, {"maxu", false, max2}, {"mins", true, min2}, {"minu", false, min2},
  }
  for _, c in ipairs({{"eq", false, "=="}, {"ne", false, "~="}, {"ges", true, ">="}, {"geu", false, ">="},
                      {"gts", true, ">"}, {"gtu", false, ">"}, {"les", true, "<="}, {"leu", false, "<="},
                      {"lts", true, "<"}, {"ltu", false, "<"}}) do
    local cmp = load("return function(x, y) return x " .. c[3] .. " y end")()
    lanewise[#lanewise + 1] = {"cmp" .. c[1], c[2], function(x, y) return cmp(x, y) and -1 or 0 end}
    lanewise[#lanewise + 1] = {"set" .. c[1], c[2], function(x, y) return cmp(x, y) and 1 or 0 end}
  end
  local cases = {}   -- {name, arity, reference(a, b, c)}
  local function packed(lanes, signed, f)
    local w = 32 // lanes
    return function(a, b, c)
      local r = 0
      for i = 0, lanes - 1 do
        r = r | (f(lane(a, w, i, signed), lane(b, w, i, signed), lane(c, w, i, signed), w) & ((1 << w) - 1)) << (w * i)
      end
      return r
    end
  end
  for _, l in ipairs(lanewise) do
    for _, lanes in ipairs({2, 4}) do cases[#cases + 1] = {"__v" .. l[1] .. lanes, l[4] or 2, packed(lanes, l[2], l[3])} end
  end
  for _, s in ipairs({{"s", true}, {"u", false}}) do
    for _, lanes in ipairs({2, 4}) do
      cases[#cases + 1] = {"__vsad" .. s[1] .. lanes, 2, function(a, b)
        local sum = 0
        for i = 0, lanes - 1 do sum = sum + math.abs(lane(a, 32 // lanes, i, s[2]) - lane(b, 32 // lanes, i, s[2])) end
        return sum
      end}
    end
  end
  -- sm_90's: 32-bit ones (signed ones as unsigned words) and 16x2 ones; sums wrap in their lane
  local function wrap(v, w, signed) return lane(v & ((1 << w) - 1), w, 0, signed) end
  for _, s in ipairs({{"s", true}, {"u", false}}) do
    for _, form in ipairs({{"32", 1}, {"16x2", 2}}) do
      local lanes, suffix = form[2], s[1] .. form[1]
      local fs = {
        {"__vimax3_", 3, max3}, {"__vimin3_", 3, min3},
        {"__viaddmax_", 3, function(x, y, z, w) return math.max(wrap(x + y, w, s[2]), z) end},
        {"__viaddmin_", 3, function(x, y, z, w) return math.min(wrap(x + y, w, s[2]), z) end},
      }
      if s[2] then
        for _, f in ipairs({{"__vimax3_", 3, max3}, {"__vimin3_", 3, min3}, {"__vimax_", 2, max2}, {"__vimin_", 2, min2},
                            {"__viaddmax_", 3, fs[3][3]}, {"__viaddmin_", 3, fs[4][3]}}) do
          fs[#fs + 1] = {f[1], f[2], function(...) return relu(f[3](...)) end, "_relu"}
        end
      end
      for _, f in ipairs(fs) do cases[#cases + 1] = {f[1] .. suffix .. (f[4] or ""), f[2], packed(lanes, s[2], f[3])} end
    end
  end
  local body = {}
  for k, c in ipairs(cases) do
    local args = ({"a[i]", "a[i], b[i]", "a[i], b[i], c[i]"})[c[2]]
    local call = c[1]:match("_s32") and "(unsigned)" .. c[1] .. "((int)" .. args:gsub(", ", ", (int)") .. ")" or c[1] .. "(" .. args .. ")"
    body[#body + 1] = ("  o[%d * n + i] = %s;"):format(k - 1, call)
  end
  local k = gpu.kernel(([[
__global__ void simd(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *o, bool *p, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
%s
  bool h, l, s;
  o[%d * n + i] = __vibmax_s16x2(a[i], b[i], &h, &l); p[6 * i] = h; p[6 * i + 1] = l;
  o[%d * n + i] = __vibmin_u16x2(a[i], b[i], &h, &l); p[6 * i + 2] = h; p[6 * i + 3] = l;
  o[%d * n + i] = (unsigned)__vibmax_s32((int)a[i], (int)b[i], &s); p[6 * i + 4] = s;
  o[%d * n + i] = __vibmin_u32(a[i], b[i], &s); p[6 * i + 5] = s;
}]]):format(table.concat(body, "\n"), #cases, #cases + 1, #cases + 2, #cases + 3))
  local b, c = {}, {}
  for i = 1, n do b[i], c[i] = inputs[i % n + 1], inputs[(i + 4) % n + 1] end
  local o, p = gpu.zeros((#cases + 4) * n, "uint32"), gpu.zeros(6 * n, "bool")
  k[{1, 32}](gpu.array(inputs, "uint32"), gpu.array(b, "uint32"), gpu.array(c, "uint32"), o, p, n)
  local out, pred = o:totable(), p:totable()

  it("cover 114 of CUDA's 118 __v functions (the other four __vib* share these four's code)", function()
    assert.are.equal(114, #cases + 4)
  end)

  it("per lane, on edge values, as a lane by lane reference computes them", function()
    for f, case in ipairs(cases) do
      for i = 1, n do
        local want = case[3](inputs[i], b[i], c[i]) & 0xffffffff
        assert.are.equal(want, out[(f - 1) * n + i], ("%s(0x%08x, 0x%08x, 0x%08x)"):format(case[1], inputs[i], b[i], c[i]))
      end
    end
  end)

  it("__vib*: the maximum or minimum and whether a won, per halfword", function()
    local f = #cases
    for i = 1, n do
      local a, bb = inputs[i], b[i]
      local ah, bh, al, bl = lane(a, 16, 1, true), lane(bb, 16, 1, true), lane(a, 16, 0, true), lane(bb, 16, 0, true)
      assert.are.equal((math.max(ah, bh) & 0xffff) << 16 | (math.max(al, bl) & 0xffff), out[f * n + i])
      assert.are.same({ah >= bh, al >= bl}, {pred[6 * i - 5], pred[6 * i - 4]})
      ah, bh, al, bl = lane(a, 16, 1, false), lane(bb, 16, 1, false), lane(a, 16, 0, false), lane(bb, 16, 0, false)
      assert.are.equal(math.min(ah, bh) << 16 | math.min(al, bl), out[(f + 1) * n + i])
      assert.are.same({ah <= bh, al <= bl}, {pred[6 * i - 3], pred[6 * i - 2]})
      assert.are.equal(math.max(lane(a, 32, 0, true), lane(bb, 32, 0, true)) & 0xffffffff, out[(f + 2) * n + i])
      assert.are.equal(lane(a, 32, 0, true) >= lane(bb, 32, 0, true), pred[6 * i - 1])
      assert.are.equal(math.min(a, bb), out[(f + 3) * n + i])
      assert.are.equal(a <= bb, pred[6 * i])
    end
  end)

  it("as CUDA's header's examples and values worked by hand say", function()
    local function at(name, i)
      for f, case in ipairs(cases) do if case[1] == name then return out[(f - 1) * n + i] end end
    end
    -- inputs[8], b[8] = 0x1234aba5, 0x1234aba6 (the header's examples)
    assert.are.same({0xffff0000, 0xffff0000, 0xffff0000, 0, 0, 0xffffffff, 0xffffffff, 0x0000ffff, 0x0000ffff},
      {at("__vcmpeq2", 8), at("__vcmpges2", 8), at("__vcmpgeu2", 8), at("__vcmpgts2", 8), at("__vcmpgtu2", 8),
       at("__vcmples2", 8), at("__vcmpleu2", 8), at("__vcmplts2", 8), at("__vcmpltu2", 8)})
    assert.are.equal(0x00010000, at("__vseteq2", 8))   -- 1 in each halfword that compares equal
    assert.are.equal(0x01010100, at("__vseteq4", 8))
    -- inputs[3], b[3] = 0x80808080, 0x7f7f7f7f: -128 and 127 in each byte
    assert.are.equal(0xffffffff, at("__vadd4", 3))
    assert.are.equal(0x80808080, at("__vsubss4", 3))   -- -128 - 127 saturates at -128
    assert.are.equal(0x01010101, at("__vsub4", 3))     -- wraps
    assert.are.equal(0xffffffff, at("__vabsdiffs4", 3)) -- |-128 - 127| = 255
    assert.are.equal(4 * 255, at("__vsads4", 3))
    assert.are.equal(4 * 1, at("__vsadu4", 3))
    assert.are.equal(0x80808080, at("__vabs4", 3))     -- |-128| wraps to -128
    assert.are.equal(0x7f7f7f7f, at("__vabsss4", 3))
    assert.are.equal(0xffffffff, at("__vavgs4", 3))    -- (-128 + 127) / 2 = -0.5, rounded away from zero
    assert.are.equal(0x80808080, at("__vavgu4", 3))    -- (128 + 127 + 1) / 2
    -- inputs[5], b[5] = 0x7fff8000, 0x8000ffff: halfwords 32767, -32768 and -32768, -1
    assert.are.equal(0x7fffffff, at("__vmaxs2", 5))
    assert.are.equal(0xffff8000, at("__vaddss2", 5))   -- -1, and -32769 saturated
    assert.are.equal(0xffff7fff, at("__vadd2", 5))     -- -1, and -32769 wrapped
    assert.are.equal(0x7fff8000, at("__vminu2", 5))
  end)
end)

describe("the corpus: __fns, barriers by id, __uni_sync, address spaces, clusters, __tanhf", function()
  local m = gpu.module([[
__device__ float g_dev[4];
__global__ void fns(const unsigned *mask, const int *offset, unsigned *o) {
  int i = threadIdx.x;
  o[i] = __fns(mask[i], 3 + (i & 1) * 26, offset[i]);
}
__global__ void sync_ids(int *o) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __barrier_sync(1);
  int v = s[63 - threadIdx.x];
  __builtin_assume(v >= 0);
  __barrier_sync_count(0, 64);
  o[threadIdx.x] = v + 100 * __uni_sync(0xffffffffu, threadIdx.x < 32) + 1000 * __uni_sync(0xffffffffu, threadIdx.x & 1);
}
__global__ void spaces(float *p, unsigned *o) {
  __shared__ float s[8];
  extern __shared__ float dyn[];
  float local[4];
  local[threadIdx.x] = p[0];
  s[threadIdx.x] = dyn[threadIdx.x] = local[threadIdx.x];
  const void *ptrs[5] = {p, s, dyn, local, g_dev};
  for (int k = 0; k < 5; k++)
    o[8 * k + threadIdx.x] = __isGlobal(ptrs[k]) | __isShared(ptrs[k]) << 1 | __isLocal(ptrs[k]) << 2;
  o[40 + threadIdx.x] = __cvta_shared_to_generic(__cvta_generic_to_shared(s + 1)) == (void *)(s + 1);
}
__global__ void cluster(unsigned *o, float *f) {
  unsigned b = blockIdx.x;
  o[4 * b] = __clusterRelativeBlockRank() + 10 * __clusterSizeInBlocks() + 100 * __clusterDimIsSpecified();
  dim3 d = __clusterDim(), i = __clusterIdx(), g = __clusterGridDimInClusters();
  o[4 * b + 1] = d.x * d.y * d.z + 10 * i.x + 1000 * g.x;
  o[4 * b + 2] = __clusterRelativeBlockIdx().x;
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
  __shared__ int s;   // (of a global address the rank is undefined: an H100 gave 2)
  o[4 * b + 3] = __cluster_query_shared_rank(&s);
  f[b] = __tanhf(0.5f * b);
}
]])

  it("__fns finds the n-th set bit up or down from a base, 0xffffffff when there is none", function()
    -- PTX's examples (fns.b32 d, 0xaaaaaaaa, 3, 1 is 3 ...), bases 3 and 29 by turns
    local mask = gpu.array({0xaaaaaaaa, 0xaaaaaaaa, 0xaaaaaaaa, 0xaaaaaaaa, 0xf0, 0x1, 0xaaaaaaaa, 0}, "uint32")
    local offset = gpu.array({1, -1, 2, -3, 0, 1, 0, 1}, "int32")
    local o = run_in(m.fns, {1, 8}, 2, mask, offset, gpu.zeros(8, "uint32"))
    -- 3 up 1: 3; 29 down 1: 29; 3 up 2: 5; 29 down 3: 25; 3 of 0xf0: unset; 29 up: none; 3 itself; none
    assert.are.same({3, 29, 5, 25, 0xffffffff, 0xffffffff, 3, 0xffffffff}, o)
  end)

  it("__barrier_sync and __barrier_sync_count are block barriers; __uni_sync votes for a uniform predicate", function()
    local o = run(m.sync_ids, {1, 64}, gpu.zeros(64, "int32"))
    for t = 0, 63 do assert.are.equal(63 - t + 100, o[t + 1]) end
  end)

  it("__isGlobal, __isShared and __isLocal tell the memories apart; __cvta_ round trips", function()
    local o = run_in(m.spaces, {1, 4, shared = 32}, 1, gpu.array({2}), gpu.zeros(48, "uint32"))
    for t = 1, 4 do
      assert.are.same({1, 2, 2, 4, 1}, {o[t], o[8 + t], o[16 + t], o[24 + t], o[32 + t]})
      assert.are.equal(1, o[40 + t])
    end
  end)

  it("a launch without __cluster_dims__ is clusters of one block each, as on a GPU; __tanhf", function()
    local o, f = run(m.cluster, {3, 32}, gpu.zeros(12, "uint32"), gpu.zeros(3))
    for b = 0, 2 do assert.are.same({10, 1 + 10 * b + 3000, 0, 0}, {table.unpack(o, 4 * b + 1, 4 * b + 4)}) end
    for b = 0, 2 do assert.is_true(math.abs(f[b + 1] - math.tanh(0.5 * b)) < 1e-3) end   -- a GPU's is approximate
  end)
end)

describe("the corpus: cooperative groups", function()
  local m = gpu.module([[
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
__global__ void grid(int *o) {
  cg::grid_group g = cg::this_grid();
  o[g.thread_rank()] = (int)(g.size() * 1000 + g.block_rank() * 10 + g.is_valid()) + g.thread_index().x * 100000;
}
__global__ void reduce_scan(int *o) {
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  auto t = cg::tiled_partition<16>(w);   // a tile of a tile
  int sum = cg::reduce(t, (int)threadIdx.x, cg::plus<int>());
  int most = cg::reduce(t, (int)threadIdx.x, cg::greater<int>());
  o[threadIdx.x] = sum * 1000000 + most * 10000 + cg::exclusive_scan(t, 1) * 100 + cg::inclusive_scan(t, 2);
}
__global__ void dynamic_tiles(int *o) {
  cg::thread_group g = cg::tiled_partition(cg::this_thread_block(), 16);
  g.sync();
  cg::thread_group b = cg::this_thread_block();
  b.sync();
  o[threadIdx.x] = g.thread_rank() + g.size() * 100 + b.size() * 10000;
}
]])

  it("the grid: sizes and ranks, not valid without a cooperative launch", function()
    local o = run(m.grid, {4, 16}, gpu.zeros(64, "int32"))
    for t = 0, 63 do assert.are.equal(64000 + t // 16 * 10 + t * 100000, o[t + 1]) end
  end)

  it("reduce and the scans over a tile of a tile", function()
    local o = run(m.reduce_scan, {1, 32}, gpu.zeros(32, "int32"))
    for t = 0, 31 do
      local first, r = t // 16 * 16, t % 16
      local sum = 0
      for i = first, first + 15 do sum = sum + i end
      assert.are.equal(sum * 1000000 + (first + 15) * 10000 + r * 100 + 2 * (r + 1), o[t + 1])
    end
  end)

  it("thread_group: a dynamic tile and the block", function()
    local o = run(m.dynamic_tiles, {1, 32}, gpu.zeros(32, "int32"))
    for t = 0, 31 do assert.are.equal(t % 16 + 1600 + 320000, o[t + 1]) end
  end)
end)
