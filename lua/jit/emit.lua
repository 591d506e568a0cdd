-- emit.lua: CUDA C from a typed gpu.jit function (infer.lua's annotations). The C is plain
-- CUDA C that NVRTC and the CPU backend both compile, after kernels/gpuhost.cuh: device
-- arrays are gpu::array<T> and reached only through its operators (a[i], a(i, j), .size,
-- .shape, .ndim); Lua's integer rules (wrapping, floor division) are small inline helpers
-- of namespace jit, emitted only when used; `#line` directives point each statement at its
-- line of the Lua source.
local types, intrinsics, gpu = ...
local M = {}

------------------------------------------------------------------------------------
-- helpers: name -> {needs, code}

local helpers = {}
local helper_order = {"base", "int_add", "int_sub", "int_mul", "int_neg", "int_iabs", "int_idiv",
                      "int_imod", "int_ifmod", "int_shl", "int_shr", "float", "intfloat", "minmax", "logb", "toint", "f2u", "count", "local", "dim", "atomic",
                      "atomic_add", "atomic_sub", "atomic_exch", "atomic_min", "atomic_max",
                      "atomic_and", "atomic_or", "atomic_xor", "atomic_inc", "atomic_dec",
                      "atomic_cas", "atomic_half", "laneid", "debug",
                      "npmath"}
helpers.base = {code = [[
typedef long long i64;
typedef unsigned long long u64;
template <class T> struct same { typedef T type; };]]}
-- Lua's integers: 64 bits, wrapping on overflow. One helper a function, each emitted only
-- where used (NVRTC's time grows with the source).
local int_code = {
  add = "__device__ __forceinline__ i64 add(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }",
  sub = "__device__ __forceinline__ i64 sub(i64 a, i64 b) { return (i64)((u64)a - (u64)b); }",
  mul = "__device__ __forceinline__ i64 mul(i64 a, i64 b) { return (i64)((u64)a * (u64)b); }",
  neg = "__device__ __forceinline__ i64 neg(i64 a) { return (i64)(0ull - (u64)a); }",
  iabs = "__device__ __forceinline__ i64 iabs(i64 a) { return a < 0 ? neg(a) : a; }",
  -- a // b, a % b (the sign of b) and math.fmod (the sign of a); by 0 they give 0, where
  -- Lua raises an error
  idiv = [[
__device__ __forceinline__ i64 idiv(i64 a, i64 b) {
  if ((u64)b + 1u <= 1u) return b == 0 ? 0 : neg(a);
  i64 q = a / b;
  return (a % b != 0 && (a ^ b) < 0) ? q - 1 : q;
}]],
  imod = [[
__device__ __forceinline__ i64 imod(i64 a, i64 b) {
  if ((u64)b + 1u <= 1u) return 0;
  i64 m = a % b;
  return (m != 0 && (m ^ b) < 0) ? m + b : m;
}]],
  ifmod = "__device__ __forceinline__ i64 ifmod(i64 a, i64 b) { return (u64)b + 1u <= 1u ? 0 : a % b; }",
  -- shifts are logical; 64 places or more give 0, a negative count shifts the other way
  shl = [[
__device__ __forceinline__ i64 shl(i64 a, i64 n) {
  if (n <= -64 || n >= 64) return 0;
  return n >= 0 ? (i64)((u64)a << n) : (i64)((u64)a >> -n);
}]],
  shr = [[
__device__ __forceinline__ i64 shr(i64 a, i64 n) {
  if (n <= -64 || n >= 64) return 0;
  return n >= 0 ? (i64)((u64)a >> n) : (i64)((u64)a << -n);
}]],
}
local int_order = {"add", "sub", "mul", "neg", "iabs", "idiv", "imod", "ifmod", "shl", "shr"}
for _, f in ipairs(int_order) do
  helpers["int_" .. f] = {needs = (f == "iabs" or f == "idiv") and {"base", "int_neg"} or {"base"},
                          code = int_code[f]}
end
helpers.float = {code = [[
// Lua's % on floats (luai_nummod): fmod, which has the sign of a, corrected when the
// remainder and b have different signs
__device__ __forceinline__ float mod(float a, float b) {
  float m = fmodf(a, b);
  return ((m > 0) ? b < 0 : (m < 0 && b > 0)) ? m + b : m;
}
__device__ __forceinline__ double mod(double a, double b) {
  double m = ::fmod(a, b);
  return ((m > 0) ? b < 0 : (m < 0 && b > 0)) ? m + b : m;
}
template <class T> __device__ __forceinline__ T sq(T a) { return a * a; }]]}
helpers.intfloat = {needs = {"base"}, code = [[
// an integer and a float compare exactly, as Lua 5.4 does (lvm.c's LTintfloat, LEintfloat,
// luaV_equalobj ...), not as two doubles: (1 << 53) + 1 == 2^53 is false. icmp is -1, 0
// or 1 as i is less than, equal to or greater than f, and 2 when f is nan
__device__ __forceinline__ int icmp(i64 i, double f) {
  if (f != f) return 2;
  if (f >= 9223372036854775808.0) return -1;
  if (f < -9223372036854775808.0) return 1;
  double fl = floor(f);
  i64 fi = (i64)fl;
  return i < fi ? -1 : i > fi ? 1 : fl == f ? 0 : -1;
}
// an integer in [-2^53, 2^53] is a double exactly: compared as one
__device__ __forceinline__ bool fits(i64 i) { return (u64)i + (1ull << 53) <= (2ull << 53); }
__device__ __forceinline__ bool lt_if(i64 i, double f) { return fits(i) ? (double)i < f : icmp(i, f) == -1; }
__device__ __forceinline__ bool le_if(i64 i, double f) { return fits(i) ? (double)i <= f : icmp(i, f) <= 0; }
__device__ __forceinline__ bool gt_if(i64 i, double f) { return fits(i) ? (double)i > f : icmp(i, f) == 1; }
__device__ __forceinline__ bool ge_if(i64 i, double f) { return fits(i) ? (double)i >= f : (unsigned)icmp(i, f) <= 1u; }
__device__ __forceinline__ bool eq_if(i64 i, double f) { return fits(i) ? (double)i == f : icmp(i, f) == 0; }
__device__ __forceinline__ bool ne_if(i64 i, double f) { return !eq_if(i, f); }]]}
helpers.minmax = {needs = {"base"}, code = [[
// math.max and math.min: the first argument unless a later one is greater (smaller)
template <class T> __device__ __forceinline__ T max(T a, typename same<T>::type b) { return a < b ? b : a; }
template <class T> __device__ __forceinline__ T min(T a, typename same<T>::type b) { return b < a ? b : a; }]]}
helpers.logb = {needs = {"base"}, code = [[
// math.log(x, b) as Lua's: log2 and log10 for the bases 2 and 10, else log(x) / log(b)
__device__ __forceinline__ double logb(double x, double b) {
  return b == 2.0 ? ::log2(x) : b == 10.0 ? ::log10(x) : ::log(x) / ::log(b);
}
__device__ __forceinline__ float logb(float x, float b) {
  return b == 2.0f ? log2f(x) : b == 10.0f ? log10f(x) : logf(x) / logf(b);
}]]}
helpers.toint = {needs = {"base"}, code = [[
// math.floor and math.ceil of a float that no int64 holds, as a GPU converts it (PTX's cvt
// saturates, and a nan gives 0) on both backends: C leaves it undefined (x86 gives 2^63).
// x + 0.0 is +0 for a -0: g++'s -fno-trapping-math folds (double)(i64)x to trunc(x), which
// kept the -0 of math.ceil(-0.25) where an integer has none (1 / math.ceil(x) was -inf)
__device__ __forceinline__ i64 toint(double x) {
  x = x + 0.0;
  return x != x ? 0 : x >= 9223372036854775807.0 ? 9223372036854775807LL
       : x < -9223372036854775807.0 ? -9223372036854775807LL - 1 : (i64)x;
}]]}
helpers.f2u = {needs = {"base"}, code = [[
// a float stored into a uint64 array: straight for 0 and up (1.5e19 stays), through int64
// below (-2.5 is 2^64 - 2, as NumPy's astype on x86 and as before; C leaves it undefined)
__device__ __forceinline__ u64 f2u(double x) { return x < 0 ? (u64)(i64)x : (u64)x; }]]}
helpers.count = {needs = {"base"}, code = [[
// the iterations of `for i = a, b, s` (Lua 5.4's forprep, which never overflows)
__device__ __forceinline__ u64 count(i64 a, i64 b, i64 s) {
  u64 q;
  if (s > 0 && a <= b) q = ((u64)b - (u64)a) / (u64)s;
  else if (s < 0 && a >= b) q = ((u64)a - (u64)b) / ((u64)(-(s + 1)) + 1u);
  else return 0;
  return q == ~0ull ? q : q + 1;
}
// the same with a float limit, which Lua floors (ceils for a negative step); a nan, as Lua's
// forlimit takes it, is below every integer: no iterations up, down to mininteger down
__device__ __forceinline__ u64 countf(i64 a, double b, i64 s) {
  const double big = 9223372036854775808.0;
  if (b != b) return s > 0 ? 0 : count(a, -0x7fffffffffffffffLL - 1, s);
  if (s > 0) return b >= big ? count(a, 0x7fffffffffffffffLL, s) : b < -big ? 0 : count(a, (i64)floor(b), s);
  return b < -big ? count(a, -0x7fffffffffffffffLL - 1, s) : b >= big ? 0 : count(a, (i64)ceil(b), s);
}]]}
helpers["local"] = {needs = {"base"}, code = [[
// shared and local arrays: out of range, a read gives 0 and a write is dropped
template <class T, int N> __device__ __forceinline__ T ld(const T (&a)[N], i64 i) {
  return (u64)i < (u64)N ? a[i] : T();
}
template <class T, int N>
__device__ __forceinline__ void st(T (&a)[N], i64 i, typename same<T>::type v) {
  if ((u64)i < (u64)N) a[i] = v;
}
template <class T, int N> __device__ __forceinline__ T *at(T (&a)[N], i64 i) {
  return (u64)i < (u64)N ? &a[i] : nullptr;
}
template <i64 R, i64 C> __device__ __forceinline__ i64 flat(i64 i, i64 j) {
  return (u64)i < (u64)R && (u64)j < (u64)C ? i * C + j : -1;
}
template <i64 R, i64 C, i64 D> __device__ __forceinline__ i64 flat(i64 i, i64 j, i64 k) {
  return (u64)i < (u64)R && (u64)j < (u64)C && (u64)k < (u64)D ? (i * C + j) * D + k : -1;
}]]}
helpers.dim = {needs = {"base"}, code = [[
// a.shape[d], 1-based; 0 past the array's dimensions
template <class A> __device__ __forceinline__ i64 dim(const A &a, i64 d) {
  return d >= 1 && d <= a.ndim ? (i64)a.shape[d - 1] : 0;
}]]}
-- atomics on an element's address (null when the index was out of range: nothing happens),
-- each operation emitted only where used, as NVRTC's time grows with the source
helpers.atomic = {needs = {"base"}, code = [[
#define JIT_ATOMIC(op, T, expr) \
  __device__ __forceinline__ T atomic_##op(T *p, T v) { return p ? (T)(expr) : T(); }
#define JIT_ATOMIC_INTS(op, f) \
  JIT_ATOMIC(op, int, f(p, v)) JIT_ATOMIC(op, unsigned, f(p, v)) \
  JIT_ATOMIC(op, u64, f(p, v)) JIT_ATOMIC(op, i64, f((u64 *)p, (u64)v))]]}
local atomic_code = {
  add = [[
JIT_ATOMIC_INTS(add, atomicAdd)
JIT_ATOMIC(add, float, atomicAdd(p, v)) JIT_ATOMIC(add, double, atomicAdd(p, v))]],
  sub = [[
JIT_ATOMIC(sub, int, atomicSub(p, v)) JIT_ATOMIC(sub, unsigned, atomicSub(p, v))
JIT_ATOMIC(sub, u64, atomicAdd(p, 0ull - v)) JIT_ATOMIC(sub, i64, atomicAdd((u64 *)p, 0ull - (u64)v))
JIT_ATOMIC(sub, float, atomicAdd(p, -v)) JIT_ATOMIC(sub, double, atomicAdd(p, -v))]],
  exch = [[
JIT_ATOMIC_INTS(exch, atomicExch)
JIT_ATOMIC(exch, float, atomicExch(p, v))
JIT_ATOMIC(exch, double, __longlong_as_double((i64)atomicExch((u64 *)p, (u64)__double_as_longlong(v))))]],
  min = [[
JIT_ATOMIC(min, int, atomicMin(p, v)) JIT_ATOMIC(min, unsigned, atomicMin(p, v))
JIT_ATOMIC(min, u64, atomicMin(p, v)) JIT_ATOMIC(min, i64, atomicMin(p, v))
// floats' min: a compare-and-swap loop on the bits
__device__ __forceinline__ float atomic_min(float *p, float v) {
  if (!p) return 0.0f;
  unsigned *u = (unsigned *)p, old = *u;
  while (v < __uint_as_float(old)) {
    unsigned seen = atomicCAS(u, old, __float_as_uint(v));
    if (seen == old) break;
    old = seen;
  }
  return __uint_as_float(old);
}
__device__ __forceinline__ double atomic_min(double *p, double v) {
  if (!p) return 0.0;
  u64 *u = (u64 *)p, old = *u;
  while (v < __longlong_as_double((i64)old)) {
    u64 seen = atomicCAS(u, old, (u64)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
  return __longlong_as_double((i64)old);
}]],
  max = [[
JIT_ATOMIC(max, int, atomicMax(p, v)) JIT_ATOMIC(max, unsigned, atomicMax(p, v))
JIT_ATOMIC(max, u64, atomicMax(p, v)) JIT_ATOMIC(max, i64, atomicMax(p, v))
// floats' max: a compare-and-swap loop on the bits
__device__ __forceinline__ float atomic_max(float *p, float v) {
  if (!p) return 0.0f;
  unsigned *u = (unsigned *)p, old = *u;
  while (__uint_as_float(old) < v) {
    unsigned seen = atomicCAS(u, old, __float_as_uint(v));
    if (seen == old) break;
    old = seen;
  }
  return __uint_as_float(old);
}
__device__ __forceinline__ double atomic_max(double *p, double v) {
  if (!p) return 0.0;
  u64 *u = (u64 *)p, old = *u;
  while (__longlong_as_double((i64)old) < v) {
    u64 seen = atomicCAS(u, old, (u64)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
  return __longlong_as_double((i64)old);
}]],
  ["and"] = "JIT_ATOMIC_INTS(and, atomicAnd)",
  ["or"] = "JIT_ATOMIC_INTS(or, atomicOr)",
  xor = "JIT_ATOMIC_INTS(xor, atomicXor)",
  inc = "JIT_ATOMIC(inc, unsigned, atomicInc(p, v))",
  dec = "JIT_ATOMIC(dec, unsigned, atomicDec(p, v))",
  cas = [[
template <class T> __device__ __forceinline__ T atomic_cas(T *p, T cmp, T v) { return p ? atomicCAS(p, cmp, v) : T(); }
__device__ __forceinline__ i64 atomic_cas(i64 *p, i64 cmp, i64 v) {
  return p ? (i64)atomicCAS((u64 *)p, (u64)cmp, (u64)v) : 0;
}]],
}
local atomic_ops = {"add", "sub", "exch", "min", "max", "and", "or", "xor", "inc", "dec", "cas"}
for _, op in ipairs(atomic_ops) do
  helpers["atomic_" .. op] = {needs = {"atomic"}, code = atomic_code[op]}
end
-- float16: a compare-and-swap loop on the 32-bit word that holds the element (CUDA's
-- atomicAdd of a __half needs sm_70 and cuda_fp16.h), the new value computed in float and
-- rounded once, as the operators compute: op 0 add, 1 sub, 2 max, 3 min, 4 exch
helpers.atomic_half = {needs = {"atomic"}, code = [[
__device__ __forceinline__ gpu::half atomic_half(gpu::half *p, gpu::half v, int op) {
  if (!p) return gpu::half::from_bits(0);
  unsigned *w = (unsigned *)((u64)p & ~(u64)3);
  unsigned shift = ((u64)p & 2) ? 16 : 0, old = *w;
  for (;;) {
    gpu::half h = gpu::half::from_bits((unsigned short)(old >> shift));
    float a = (float)h, b = (float)v;
    gpu::half n = op == 0 ? gpu::half(a + b) : op == 1 ? gpu::half(a - b) :
                  op == 2 ? (a < b ? v : h) : op == 3 ? (b < a ? v : h) : v;
    if (n.bits == h.bits) return h;
    unsigned seen = atomicCAS(w, old, (old & ~(0xffffu << shift)) | ((unsigned)n.bits << shift));
    if (seen == old) return h;
    old = seen;
  }
}
__device__ __forceinline__ gpu::half atomic_add(gpu::half *p, gpu::half v) { return atomic_half(p, v, 0); }
__device__ __forceinline__ gpu::half atomic_sub(gpu::half *p, gpu::half v) { return atomic_half(p, v, 1); }
__device__ __forceinline__ gpu::half atomic_max(gpu::half *p, gpu::half v) { return atomic_half(p, v, 2); }
__device__ __forceinline__ gpu::half atomic_min(gpu::half *p, gpu::half v) { return atomic_half(p, v, 3); }
__device__ __forceinline__ gpu::half atomic_exch(gpu::half *p, gpu::half v) { return atomic_half(p, v, 4); }]]}
helpers.debug = {needs = {"base"}, code = [[
// debug: the first out-of-range access, with the Lua source line it comes from (a site),
// in the record lua/jit/jit.lua reads after the launch: site, index count, 1-based
// indices, ndim, shape, size, 1-based block and thread
typedef gpu::array<long long> record;
__device__ __noinline__ void miss(const record &r, i64 site, int n, i64 i, i64 j, i64 k, int ndim,
                                  i64 s0, i64 s1, i64 s2, i64 size) {
  u64 *flag = (u64 *)r[0].address();
  if (flag && atomicCAS(flag, 0ull, 1ull) == 0ull) {
    r[1] = site; r[2] = n; r[3] = i + 1; r[4] = j + 1; r[5] = k + 1; r[6] = ndim;
    r[7] = s0; r[8] = s1; r[9] = s2; r[10] = size;
    r[11] = blockIdx.x + 1; r[12] = blockIdx.y + 1; r[13] = blockIdx.z + 1;
    r[14] = threadIdx.x + 1; r[15] = threadIdx.y + 1; r[16] = threadIdx.z + 1;
  }
}
template <class A> __device__ __forceinline__ auto checked(const A &a, i64 i, i64 site, const record &r)
    -> decltype(a[i]) {
  if (!(i >= 0 && i < a.size)) miss(r, site, 1, i, 0, 0, a.ndim, a.size, 0, 0, a.size);
  return a[i];
}
template <class A> __device__ __forceinline__ auto checked(const A &a, i64 i, i64 j, i64 site,
                                                           const record &r) -> decltype(a(i, j)) {
  if (!(a.ndim == 2 && i >= 0 && i < a.shape[0] && j >= 0 && j < a.shape[1]))
    miss(r, site, 2, i, j, 0, a.ndim, a.shape[0], a.ndim > 1 ? a.shape[1] : 0, 0, a.size);
  return a(i, j);
}
template <class A> __device__ __forceinline__ auto checked(const A &a, i64 i, i64 j, i64 k, i64 site,
                                                           const record &r) -> decltype(a(i, j, k)) {
  if (!(a.ndim == 3 && i >= 0 && i < a.shape[0] && j >= 0 && j < a.shape[1] && k >= 0 && k < a.shape[2]))
    miss(r, site, 3, i, j, k, a.ndim, a.shape[0], a.ndim > 1 ? a.shape[1] : 0, a.ndim > 2 ? a.shape[2] : 0, a.size);
  return a(i, j, k);
}
// shared and local arrays: the flat index, checked
template <i64 N> __device__ __forceinline__ i64 lchecked(i64 i, i64 site, const record &r) {
  if ((u64)i >= (u64)N) miss(r, site, 1, i, 0, 0, 1, N, 0, 0, N);
  return i;
}
template <i64 R, i64 C> __device__ __forceinline__ i64 lchecked(i64 i, i64 j, i64 site, const record &r) {
  if ((u64)i >= (u64)R || (u64)j >= (u64)C) { miss(r, site, 2, i, j, 0, 2, R, C, 0, R * C); return -1; }
  return i * C + j;
}
template <i64 R, i64 C, i64 D>
__device__ __forceinline__ i64 lchecked(i64 i, i64 j, i64 k, i64 site, const record &r) {
  if ((u64)i >= (u64)R || (u64)j >= (u64)C || (u64)k >= (u64)D) {
    miss(r, site, 3, i, j, k, 3, R, C, D, R * C * D);
    return -1;
  }
  return (i * C + j) * D + k;
}]]}
helpers.npmath = {needs = {"base"}, code = [[
// gpu.<function> on numbers as NumPy's on arrays: maximum and minimum propagate a nan
// (fmax and fmin drop it), sign(nan) is nan, isinf and isfinite without the C macros
template <class T> __device__ __forceinline__ T maximum(T a, T b) { return (a >= b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T minimum(T a, T b) { return (a <= b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T sign(T a) { return a > 0 ? T(1) : a < 0 ? T(-1) : a == 0 ? T(0) : a; }
template <class T> __device__ __forceinline__ T square(T a) { return a * a; }
template <class T> __device__ __forceinline__ bool isnan(T a) { return a != a; }
template <class T> __device__ __forceinline__ bool isfinite(T a) { return a - a == a - a; }
template <class T> __device__ __forceinline__ bool isinf(T a) { return a == a && !(a - a == a - a); }
template <class T> __device__ __forceinline__ bool isinf(gpu::complex<T> a) { return isinf(a.re) || isinf(a.im); }
__device__ __forceinline__ bool signbit(float a) { return copysignf(1.0f, a) < 0; }
__device__ __forceinline__ bool signbit(double a) { return ::copysign(1.0, a) < 0; }
template <class T> __device__ __forceinline__ T deg2rad(T a) { return a * ((T)3.141592653589793 / (T)180); }
template <class T> __device__ __forceinline__ T rad2deg(T a) { return a * ((T)180 / (T)3.141592653589793); }
// log(e^x + e^y) and log2(2^x + 2^y) without overflow
__device__ __forceinline__ float logaddexp(float x, float y) {
  if (x == y) return x + 0.6931471805599453f;
  float d = x - y;
  return d > 0 ? x + log1pf(expf(-d)) : d <= 0 ? y + log1pf(expf(d)) : d;
}
__device__ __forceinline__ double logaddexp(double x, double y) {
  if (x == y) return x + 0.6931471805599453;
  double d = x - y;
  return d > 0 ? x + ::log1p(::exp(-d)) : d <= 0 ? y + ::log1p(::exp(d)) : d;
}
__device__ __forceinline__ float logaddexp2(float x, float y) {
  if (x == y) return x + 1.0f;
  float d = x - y;
  return d > 0 ? x + 1.4426950408889634f * log1pf(exp2f(-d)) : d <= 0 ? y + 1.4426950408889634f * log1pf(exp2f(d)) : d;
}
__device__ __forceinline__ double logaddexp2(double x, double y) {
  if (x == y) return x + 1.0;
  double d = x - y;
  return d > 0 ? x + 1.4426950408889634 * ::log1p(::exp2(-d)) : d <= 0 ? y + 1.4426950408889634 * ::log1p(::exp2(d)) : d;
}]]}
helpers.laneid = {code = [[
// the 1-based lane of this thread in its warp
__device__ __forceinline__ long long laneid() {
  return (long long)((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u) + 1;
}]]}

-- gpu.random.xoroshiro128p_*'s 0-based row of its 1-based i under the debug option
-- (intrinsics.lua): an n x 2 array and i in range, else a miss
helpers.rng_row = {needs = {"debug"}, code = [[
template <class A> __device__ __forceinline__ i64 rng_row(const A &a, i64 i, i64 site, const record &r) {
  if (!(a.ndim == 2 && a.shape[1] == 2 && i >= 1 && i <= a.shape[0]))
    miss(r, site, 2, i - 1, 0, 0, a.ndim, a.shape[0], a.ndim > 1 ? a.shape[1] : 0, 0, a.size);
  return i - 1;
}]]}
helper_order[#helper_order + 1] = "rng_row"

------------------------------------------------------------------------------------
-- C names

-- C++ keywords and the names the generated code uses: a Lua local named so gets a '_'
local reserved = {
  ["alignas"] = 1, ["alignof"] = 1, ["and"] = 1, ["and_eq"] = 1, ["asm"] = 1, ["auto"] = 1,
  ["bitand"] = 1, ["bitor"] = 1, ["bool"] = 1, ["break"] = 1, ["case"] = 1, ["catch"] = 1,
  ["char"] = 1, ["char8_t"] = 1, ["char16_t"] = 1, ["char32_t"] = 1, ["class"] = 1,
  ["compl"] = 1, ["concept"] = 1, ["const"] = 1, ["consteval"] = 1, ["constexpr"] = 1,
  ["constinit"] = 1, ["const_cast"] = 1, ["continue"] = 1, ["co_await"] = 1, ["co_return"] = 1,
  ["co_yield"] = 1, ["decltype"] = 1, ["default"] = 1, ["delete"] = 1, ["do"] = 1,
  ["double"] = 1, ["dynamic_cast"] = 1, ["else"] = 1, ["enum"] = 1, ["explicit"] = 1,
  ["export"] = 1, ["extern"] = 1, ["false"] = 1, ["float"] = 1, ["for"] = 1, ["friend"] = 1,
  ["goto"] = 1, ["if"] = 1, ["inline"] = 1, ["int"] = 1, ["long"] = 1, ["mutable"] = 1,
  ["namespace"] = 1, ["new"] = 1, ["noexcept"] = 1, ["not"] = 1, ["not_eq"] = 1, ["nullptr"] = 1,
  ["operator"] = 1, ["or"] = 1, ["or_eq"] = 1, ["private"] = 1, ["protected"] = 1,
  ["public"] = 1, ["register"] = 1, ["reinterpret_cast"] = 1, ["requires"] = 1, ["restrict"] = 1,
  ["return"] = 1, ["short"] = 1, ["signed"] = 1, ["sizeof"] = 1, ["static"] = 1,
  ["static_assert"] = 1, ["static_cast"] = 1, ["struct"] = 1, ["switch"] = 1, ["template"] = 1,
  ["this"] = 1, ["thread_local"] = 1, ["throw"] = 1, ["true"] = 1, ["try"] = 1, ["typedef"] = 1,
  ["typeid"] = 1, ["typename"] = 1, ["union"] = 1, ["unsigned"] = 1, ["using"] = 1,
  ["virtual"] = 1, ["void"] = 1, ["volatile"] = 1, ["wchar_t"] = 1, ["while"] = 1, ["xor"] = 1,
  ["xor_eq"] = 1, ["threadIdx"] = 1, ["blockIdx"] = 1, ["blockDim"] = 1, ["gridDim"] = 1,
  ["warpSize"] = 1, ["printf"] = 1, ["gpu"] = 1, ["jit"] = 1, ["main"] = 1, ["min"] = 1,
  ["max"] = 1, ["abs"] = 1, ["sqrt"] = 1, ["sqrtf"] = 1, ["exp"] = 1, ["expf"] = 1, ["log"] = 1,
  ["logf"] = 1, ["log2"] = 1, ["log2f"] = 1, ["log10"] = 1, ["log10f"] = 1, ["sin"] = 1,
  ["sinf"] = 1, ["cos"] = 1, ["cosf"] = 1, ["tan"] = 1, ["tanf"] = 1, ["asin"] = 1,
  ["asinf"] = 1, ["acos"] = 1, ["acosf"] = 1, ["atan2"] = 1, ["atan2f"] = 1, ["floor"] = 1,
  ["floorf"] = 1, ["ceil"] = 1, ["ceilf"] = 1, ["fabs"] = 1, ["fabsf"] = 1, ["fmod"] = 1,
  ["fmodf"] = 1, ["pow"] = 1, ["powf"] = 1, ["errno"] = 1, ["assert"] = 1, ["clock"] = 1,
  ["clock64"] = 1, ["std"] = 1, ["size_t"] = 1, ["uint3"] = 1, ["dim3"] = 1, ["i64"] = 1,
  ["u64"] = 1, ["same"] = 1,
}

-- the C math library's functions (and their float forms), CUDA's, and the namespaces of
-- the array functions' C (ew::, sp::), which the C may call by these names
for n in ([[acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 exp10
  expm1 frexp ilogb ldexp log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow
  sqrt rsqrt rcbrt erf erfc erfinv erfcinv erfcx normcdf normcdfinv lgamma tgamma ceil floor
  nearbyint rint lrint llrint round lround llround trunc fmod remainder remquo copysign nan
  nextafter nexttoward fdim fmax fmin fma isfinite isinf isnan isnormal signbit sincos sinpi
  cospi sincospi j0 j1 jn y0 y1 yn cyl_bessel_i0 cyl_bessel_i1 norm3d rnorm3d]]):gmatch("%S+") do
  reserved[n] = 1
  reserved[n .. "f"] = 1
end
reserved.ew, reserved.sp = 1, 1
-- and the C library's that its headers declare where the kernels are compiled
for n in ([[exit abort malloc calloc realloc free memcpy memset memmove memcmp strlen strcpy
  strncpy strcmp strncmp strcat strchr strstr puts putchar rand srand atoi atol atof strtol
  strtod qsort bsearch time signal raise getenv system fopen fclose fprintf sprintf snprintf
  div ldiv labs llabs isdigit isalpha isspace toupper tolower]]):gmatch("%S+") do
  reserved[n] = 1
end

-- A chunk's name as the generated C may carry it, in a #line directive and a // comment:
-- its control characters written as Lua escapes (load(s)'s name has the text of s, whose
-- \r ends a line for the preprocessor: the #line's string, or the comment, was cut there)
M.shown_file = gpu._arg.shown_file   -- (lua/gpu.lua: gpu.kernel's #line shows names so too)

local function c_ident(name)
  -- (all-capital names of two letters or more may be the headers' macros: EOF, NAN ...)
  if reserved[name] or name:find("^_[_%u]") or name:find("^%u[%u%d_]+$") or name:find("^gpuhost")
     or name:find("^atomic") or name:find("^__") then
    return name .. "_"
  end
  return name
end

------------------------------------------------------------------------------------
-- literals

-- wide: a long long however small (a C int would make a template such as jit::max(1, n)
-- take int, and cut n to 32 bits)
local function int_lit(v, wide)
  if v == math.mininteger then return "(-0x7fffffffffffffffLL - 1)" end
  local s = ("%d"):format(v)
  if wide or v > 2147483647 or v < -2147483647 then s = s .. "LL" end
  return v < 0 and "(" .. s .. ")" or s
end

local function as_float32(v) return (string.unpack("f", string.pack("f", v))) end

-- v rounded to float16 (to nearest, ties to even, as NumPy converts a Python float), and
-- the 16 bits of a float16 value
local function as_float16(v)
  v = v + 0.0
  if v ~= v or v == 0 then return v end
  local a = math.abs(v)
  if a >= 65520 then return v < 0 and -math.huge or math.huge end
  local step = 2.0 ^ -24   -- a subnormal's; a normal number's is 2^(e - 10)
  if a >= 2.0 ^ -14 then
    local e = math.floor(math.log(a, 2))
    if 2.0 ^ e > a then e = e - 1 elseif 2.0 ^ (e + 1) <= a then e = e + 1 end
    step = 2.0 ^ (e - 10)
  end
  local q = a / step
  local n = math.floor(q)
  if q - n > 0.5 or (q - n == 0.5 and n % 2 == 1) then n = n + 1 end
  return (v < 0 and -n or n) * step
end
M.as_float16 = as_float16
local function half_bits(v)
  if v ~= v then return 0x7e00 end
  local sign = (v < 0 or (v == 0 and 1 / v < 0)) and 0x8000 or 0
  local a = math.abs(v)
  if a == math.huge then return sign | 0x7c00 end
  if a < 2.0 ^ -14 then return sign | math.tointeger(a / 2.0 ^ -24) end
  local e = math.floor(math.log(a, 2))
  if 2.0 ^ e > a then e = e - 1 elseif 2.0 ^ (e + 1) <= a then e = e + 1 end
  return sign | ((e + 15) << 10) | math.tointeger((a / 2.0 ^ e - 1) * 1024)
end

local function float_lit(v, t)
  if t == "float32" then v = as_float32(v) end
  local inf = t == "float32" and "__int_as_float(0x7f800000)" or "__longlong_as_double(0x7ff0000000000000LL)"
  if v ~= v then
    return t == "float32" and "__int_as_float(0x7fc00000)" or "__longlong_as_double(0x7ff8000000000000LL)"
  end
  if v == math.huge then return inf end
  if v == -math.huge then return "(-" .. inf .. ")" end
  local s
  for p = t == "float32" and 6 or 15, 17 do
    s = ("%." .. p .. "g"):format(v)
    local back = tonumber(s)
    if (t == "float32" and as_float32(back) == v) or back == v then break end
  end
  if not s:find("[.eEn]") then s = s .. ".0" end
  if t == "float32" then s = s .. "f" end
  return v < 0 and "(" .. s .. ")" or s
end

local function literal(v, t)
  if t == "bool" then return tostring(v) end
  if t == "float16" then return ("gpu::half::from_bits(0x%04x)"):format(half_bits(as_float16(v))) end
  if types.complex(t) then   -- a real constant where a complex number is wanted: (v, 0)
    return ("%s(%s)"):format(types.ctype[t], float_lit(v, types.real_of(t)))
  end
  if types.float(t) then return float_lit(v, types.concrete(t)) end
  if math.type(v) == "float" then return "(long long)" .. float_lit(v, "float64") end
  return int_lit(v, t == "int64")
end
M.literal = literal

-- Parenthesized unless it already reads as one term.
local function atom(code)
  if code:find("^[%w_.]+$") or code:find("^%b()$") or code:find("^[%w_:.]+%b()$")
     or code:find("^[%w_:.]+<[%w_, ]+>%b()$") or code:find("^[%w_]+%b[]$") then
    return code
  end
  return "(" .. code .. ")"
end

------------------------------------------------------------------------------------
-- a compile unit: the kernel and the device functions it calls, with their helpers

-- debug: check every array access, recording the first one out of range
function M.unit(debug)
  local U = {used = {}, funcs = {}, names = {}, debug = debug, sites = {}}
  if debug then U.record = "jit_record"; U.names.jit_record = true end
  return U
end

local function need(U, name)
  if U.used[name] then return end
  for _, n in ipairs(helpers[name].needs or {}) do need(U, n) end
  U.used[name] = true
end

local function unique(names, base)
  local name, n = base, 1
  while names[name] do n = n + 1; name = ("%s_%d"):format(base, n) end
  names[name] = true
  return name
end

-- Emits one typed function (ctx from infer.lua); device functions called are emitted
-- first. Returns its C name.
function M.func(U, ctx)
  local out, names, expect = {}, {}, nil
  local file = M.shown_file(ctx.file):gsub('[\\"]', "\\%0")
  local E = {}
  local ex, cv, cond, stat, block, mixed_cmp, order_matters

  -- (U.prefix: jit.device_source's, whose C goes into gpu.vectorize's and gpu.reduce's
  -- kernels, where a function named n or rd would meet their own names)
  ctx.cname = unique(U.names, c_ident((U.prefix or "") .. ctx.name))
  for k in pairs(U.names) do names[k] = true end

  -- without the parentheses around the whole of it
  local function strip(code)
    if code:find("^%b()$") then return code:sub(2, -2) end
    return code
  end

  local function line(ind, text)
    out[#out + 1] = ("  "):rep(ind) .. text
    if expect then expect = expect + 1 end
  end
  local function at(l)
    if l and l ~= expect then
      out[#out + 1] = ('#line %d "%s"'):format(l, file)
      expect = l
    end
  end
  local function var_name(v)
    if not v.cname then v.cname = unique(names, c_ident(v.name)) end
    return v.cname
  end
  local function fresh(base) return unique(names, base) end

  function E.helper(name) need(U, name) end

  local function ctype(t)
    if type(t) == "table" then
      if t.array then return ("gpu::array<%s>"):format(types.ctype[t.array]) end
      return types.ctype[t.local_array]
    end
    return types.ctype[types.concrete(t)]
  end

  local function conv(code, from, to)
    if from == to or to == nil then return code end
    -- a gpu::half converts through its one conversion, to float
    if from == "float16" and to ~= "float32" then code = "(float)" .. atom(code) end
    return ("(%s)%s"):format(types.ctype[to], atom(code))
  end

  -- a float16 array's element as a gpu::half (its ref also converts to float: named, so
  -- that no compiler finds two ways)
  local function half_ref(ref) return "(" .. ref .. ".operator gpu::half())" end

  -- gpu.jit's complex functions are gpu's own (kernels/ops/ew.cuh and complex.cuh, the
  -- array functions' C), put before the helpers when used
  function E.ew() U.ew = true end
  -- gpu.special's functions: kernels/special.cuh, put before the helpers when used
  function E.special() U.special = true end

  local element_ref
  local function cv_plain(e, t)
    t = types.concrete(t)
    if e.const ~= nil and type(e.const) ~= "string" then return literal(e.const, t) end
    -- an element of a device array converts straight to t: (double)a[i] (unless its
    -- indices are evaluated in order, by ex)
    local ordered = e.chain and not e.chain.shape and #e.chain.keys > 1 and order_matters(e.chain.keys)
    local ref = not ordered and e.chain and not e.chain.shape and e.chain.arr.array and element_ref(e)
    if ref then
      -- a complex element to another complex type: to its own first (one conversion a cast)
      local dt = e.chain.arr.array
      if dt == "float16" then
        if t == "float16" then return half_ref(ref) end
        ref = "(float)" .. ref
        if t == "float32" then return ref end
      end
      if types.complex(dt) and dt ~= t then ref = ("(%s)%s"):format(types.ctype[dt], ref) end
      -- a uint64 element is a Lua integer (int64, types.element) however it is used: 2^64 - 1
      -- is -1 in a + 0.5 as in local v = a[i]
      if dt == "uint64" and not types.integer(t) then ref = "(long long)" .. ref end
      return ("(%s)%s"):format(types.ctype[t], ref)
    end
    return conv(ex(e), types.concrete(e.ty), t)
  end
  -- U.f16: converting the operands of a float16 operation to float, which computes it: a
  -- weak number is made float16 first, as NumPy makes a Python scalar (not the operands
  -- of the operands, which have types of their own)
  cv = function(e, t)
    local f16 = U.f16
    if not f16 then return cv_plain(e, t) end
    U.f16 = nil
    local code
    if types.concrete(t) == "float32" and e.const ~= nil and type(e.const) == "number" then
      code = float_lit(as_float16(e.const), "float32")
    elseif types.concrete(t) == "float32" and types.weak(e.ty) then
      code = ("(float)gpu::half(%s)"):format(strip(cv_plain(e, types.concrete(e.ty))))
    else
      code = cv_plain(e, t)
    end
    U.f16 = f16
    return code
  end
  E.cv = cv
  -- an operand of a float16 operation, as a float
  local function f32(e)
    U.f16 = true
    local code = cv(e, "float32")
    U.f16 = nil
    return code
  end
  cond = function(e) return cv(e, "bool") end

  -- the C index (0-based) of a 1-based Lua index
  local function index(k)
    if k.const ~= nil then return int_lit(k.const - 1) end
    local code = cv(k, "int64")
    -- a[gpu.grid(1)], a[gpu.threadIdx.x]: the 0-based index itself
    local zero = code:match("^%((gpu::grid%(%d%)%.[xyz]) %+ 1%)$") or
                 code:match("^%(%(long long%)(%a+Idx%.[xyz]) %+ 1%)$")
    if zero then return zero end
    return code .. " - 1"
  end

  -- with the debug option, a site: the Lua line an access comes from
  local function site(l)
    U.sites[#U.sites + 1] = ("%s:%d"):format(ctx.file, l)
    return #U.sites
  end
  -- with the debug option, what a checked access of line l adds: its site and the record
  function E.checks(l)
    if U.debug then need(U, "debug"); return site(l), U.record end
  end

  local function local_flat(at_, keys, l)
    local idx = {}
    for i, k in ipairs(keys) do idx[i] = index(k) end
    local dims = #keys == 1 and {at_.total} or at_.dims
    if U.debug then
      need(U, "debug")
      return ("jit::lchecked<%s>(%s, %d, %s)"):format(table.concat(dims, ", "), table.concat(idx, ", "),
                                                    site(l), U.record)
    end
    if #keys == 1 then return idx[1] end
    need(U, "local")
    return ("jit::flat<%s>(%s)"):format(table.concat(dims, ", "), table.concat(idx, ", "))
  end

  -- a[i] (ref of gpu::array, or a local array's flat index); l is the access's line
  local function array_ref(base, at_, keys, l)
    local b = ex(base)
    if at_.array then
      local idx = {}
      for i, k in ipairs(keys) do idx[i] = index(k) end
      if U.debug then
        need(U, "debug")
        return ("jit::checked(%s, %s, %d, %s)"):format(b, table.concat(idx, ", "), site(l), U.record)
      end
      if #keys == 1 then
        -- a C-contiguous kernel parameter: no branch to strided views (gpuhost.cuh)
        return (at_.contiguous and "%s.contig(%s)" or "%s[%s]"):format(b, idx[1])
      end
      return ("%s(%s)"):format(b, table.concat(idx, ", "))
    end
    return nil, b, local_flat(at_, keys, l)
  end

  function E.address(arr, at_, keys, l)
    local ref, b, flat = array_ref(arr, at_, keys, l)
    if ref then return ref .. ".address()" end
    need(U, "local")
    return ("jit::at(%s, %s)"):format(b, flat)
  end

  element_ref = function(e) return (array_ref(e.chain.base, e.chain.arr, e.chain.keys, e.line)) end

  local function index_read(e)
    local ch = e.chain
    if ch.shape then
      local arr, d = ch.base.obj, ch.keys[1]
      local at_ = arr.ty
      if at_.local_array then
        if d.const ~= nil then return int_lit(at_.dims[d.const] or 0) end
        local code = cv(d, "int64")
        local parts = {}
        for i, n in ipairs(at_.dims) do parts[#parts + 1] = ("%s == %d ? %d : "):format(code, i, n) end
        return "(" .. table.concat(parts) .. "0)"
      end
      -- a constant dimension: gpu::array's shape is 0 past its ndim (host/kernel.c writes
      -- it so), so no check is needed
      if math.type(d.const) == "integer" and d.const >= 1 and d.const <= 8 then
        return ("(long long)%s.shape[%d]"):format(ex(arr), d.const - 1)
      end
      need(U, "dim")
      return ("jit::dim(%s, %s)"):format(ex(arr), cv(d, "int64"))
    end
    local at_ = ch.arr
    local dtype = at_.array or at_.local_array
    local et = types.element(dtype)
    local ref, b, flat = array_ref(ch.base, at_, ch.keys, e.line)
    if ref and et == "float16" then return half_ref(ref) end
    if ref then return ("(%s)%s"):format(types.ctype[et], ref) end
    need(U, "local")
    local code = ("jit::ld(%s, %s)"):format(b, flat)
    return et == dtype and code or ("(%s)%s"):format(types.ctype[et], code)
  end

  local function field(e)
    if e.part then return atom(ex(e.obj)) .. "." .. e.part end   -- z.real, z.imag
    local k, t = e.key.name, e.obj.ty
    if t.local_array then
      if k == "size" then return int_lit(t.total) end
      return int_lit(#t.dims)
    end
    if k == "size" then return ex(e.obj) .. ".size" end
    return ("(long long)%s.ndim"):format(ex(e.obj))
  end

  local function pow2(v)
    if math.type(v) ~= "integer" or v <= 0 or v & (v - 1) ~= 0 then return nil end
    local k = 0
    while (1 << k) ~= v do k = k + 1 end
    return k
  end

  -- an integer and a float compared exactly (infer.lua's "mixed"): i op f, the operands
  -- swapped when the float is on the left. A float constant with an integer value compares
  -- as that integer, an integer constant the float's type holds exactly as that float;
  -- else jit::lt_if and its kin
  local mirror = {["<"] = ">", ["<="] = ">=", [">"] = "<", [">="] = "<=", ["=="] = "==", ["~="] = "~="}
  local cmp_names = {["<"] = "lt", ["<="] = "le", [">"] = "gt", [">="] = "ge", ["=="] = "eq", ["~="] = "ne"}
  function mixed_cmp(e)
    local op, i, f = e.op, e.left, e.right
    local swapped = types.float(i.ty)
    if swapped then i, f = f, i end
    local function plain(icode, fcode)
      if swapped then icode, fcode = fcode, icode end
      return ("(%s %s %s)"):format(icode, op == "~=" and "!=" or op, fcode)
    end
    local n = f.const ~= nil and math.tointeger(f.const)
    if n then return plain(cv(i, "int64"), int_lit(n)) end
    local ft = types.concrete(f.ty)
    if ft == "float16" then ft = "float32" end   -- float16 values are floats exactly
    if i.const ~= nil then
      local v = i.const + 0.0
      if ft == "float32" then v = as_float32(v) end
      if types.concrete(f.ty) == "float16" then v = as_float16(v) end
      if math.tointeger(v) == i.const then return plain(literal(i.const, ft), cv(f, ft)) end
    end
    need(U, "intfloat")
    if swapped then op = mirror[op] end
    return ("jit::%s_if(%s, %s)"):format(cmp_names[op], strip(cv(i, "int64")), strip(cv(f, "float64")))
  end

  local int_ops = {["+"] = "add", ["-"] = "sub", ["*"] = "mul", ["//"] = "idiv", ["%"] = "imod",
                   ["<<"] = "shl", [">>"] = "shr"}

  -- How large an integer expression can be, when it is known to be small (at most 2^62):
  -- constants, thread and block indices and counts (below 2^42), a local given one of
  -- these once and never assigned again, and sums, differences and products of them.
  -- Their +, - and * cannot wrap, so they are written as C's signed operators, whose
  -- promise of no overflow lets the compiler drop the bounds checks of a stencil's
  -- neighbours (jit::add's unsigned arithmetic made one 8% slower than C, H200).
  local SMALL, INDEX = 2 ^ 62, 2 ^ 42
  local function bound(e)
    if e.const ~= nil then
      local n = math.tointeger(e.const)
      return n and n ~= math.mininteger and math.abs(n) <= SMALL and math.abs(n) or nil
    end
    if not types.integer(e.ty) then return nil end
    local intr = e.intr
    if intr and (intr == "gpu.grid" or intr == "gpu.gridsize" or intr == "gpu.laneid" or
                 intr:find("^gpu%.[%a]+%.[xyz]$")) then
      return INDEX
    end
    local tag = e.tag
    if tag == "Paren" or (tag == "Unop" and e.op == "-") then return bound(e.expr) end
    local v = e.var
    if tag == "Name" and v then
      if v.bound == nil then
        v.bound = false   -- while it is worked out
        local init = v.init
        if v.kind == "local" and not v.reassigned and init and #init.exprs > 0 then
          local from = init.exprs[math.min(init.k, #init.exprs)]
          if init.k <= #init.exprs or from.tag == "Call" then v.bound = bound(from) or false end
        end
      end
      return v.bound or nil
    end
    if tag == "Binop" and (e.op == "+" or e.op == "-" or e.op == "*") then
      local a, b = bound(e.left), bound(e.right)
      -- in floats: a Lua integer product or sum of two bounds could wrap below SMALL
      local r = a and b and (e.op == "*" and (a + 0.0) * b or (a + 0.0) + b)
      if r and r <= SMALL then return r end
    end
    return nil
  end
  local function binop(e)
    local op = e.op
    if e.choice then
      local t = types.concrete(e.ty)
      return ("(%s ? %s : %s)"):format(cond(e.left.left), cv(e.left.right, t), cv(e.right, t))
    end
    if op == "and" or op == "or" then
      return ("(%s %s %s)"):format(cond(e.left), op == "and" and "&&" or "||", cond(e.right))
    end
    if e.cmp == "mixed" then return mixed_cmp(e) end
    if e.cmp == "float16" then
      return ("(%s %s %s)"):format(f32(e.left), op == "~=" and "!=" or op, f32(e.right))
    end
    if e.cmp then
      return ("(%s %s %s)"):format(cv(e.left, e.cmp), op == "~=" and "!=" or op, cv(e.right, e.cmp))
    end
    local t = types.concrete(e.ty)
    if t == "float16" then
      -- in float, rounded to float16 once, as NumPy's float16 loops
      local a, b = f32(e.left), f32(e.right)
      local code
      if op == "^" and e.right.const == 2 then need(U, "float"); code = ("jit::sq(%s)"):format(a)
      elseif op == "^" then code = ("powf(%s, %s)"):format(a, b)
      elseif op == "//" then code = ("floorf(%s / %s)"):format(a, b)
      elseif op == "%" then need(U, "float"); code = ("jit::mod(%s, %s)"):format(a, b)
      else code = ("%s %s %s"):format(a, op, b) end
      return ("gpu::half(%s)"):format(code)
    end
    if op == "^" then
      if e.right.const == 2 then need(U, "float"); return ("jit::sq(%s)"):format(cv(e.left, t)) end
      if types.complex(t) then U.ew = true; return ("ew::power(%s, %s)"):format(cv(e.left, t), cv(e.right, t)) end
      return ("%s(%s, %s)"):format(t == "float32" and "powf" or "pow", cv(e.left, t), cv(e.right, t))
    end
    local a, b = cv(e.left, t), cv(e.right, t)
    if t == "int64" then
      local k = pow2(e.right.const)
      if op == "//" and k then return ("(%s >> %d)"):format(atom(a), k) end
      if op == "%" and k then return ("(%s & %s)"):format(atom(a), int_lit(e.right.const - 1)) end
      if (op == "+" or op == "-" or op == "*") and bound(e) then return ("(%s %s %s)"):format(a, op, b) end
      if int_ops[op] then need(U, "int_" .. int_ops[op]); return ("jit::%s(%s, %s)"):format(int_ops[op], a, b) end
      return ("(%s %s %s)"):format(a, op == "~" and "^" or op, b)
    end
    if op == "//" then return ("%s(%s / %s)"):format(t == "float32" and "floorf" or "floor", a, b) end
    if op == "%" then need(U, "float"); return ("jit::mod(%s, %s)"):format(a, b) end
    return ("(%s %s %s)"):format(a, op, b)
  end

  local function unop(e)
    local op, t = e.op, types.concrete(e.ty)
    if op == "not" then return "!" .. atom(cond(e.expr)) end
    if op == "#" then
      local at_ = e.expr.ty
      if at_.local_array then return int_lit(at_.total) end
      return ex(e.expr) .. ".size"
    end
    if op == "~" then return "(~" .. atom(cv(e.expr, "int64")) .. ")" end
    if t == "int64" then need(U, "int_neg"); return ("jit::neg(%s)"):format(cv(e.expr, t)) end
    if t == "float16" then return ("gpu::half(-%s)"):format(atom(f32(e.expr))) end
    return "(-" .. atom(cv(e.expr, t)) .. ")"
  end

  local function call(e, k)
    if e.intr and e.ty == "float16" and not e.atomic then
      if e.intr == "gpu.nextafter" then   -- float16's own steps (ew.cuh), as NumPy's
        U.ew = true
        return ("ew::nextafter(%s, %s)"):format(strip(cv(e.args[1], "float16")), strip(cv(e.args[2], "float16")))
      end
      -- a function of float16 numbers: computed in float, rounded to float16 once
      e.ty = "float32"
      U.f16 = true
      local code = intrinsics.get(e.intr).emit(E, e, k)
      U.f16 = nil
      e.ty = "float16"
      return ("gpu::half(%s)"):format(strip(code))
    end
    if e.intr then return intrinsics.get(e.intr).emit(E, e, k) end
    if e.chain then return index_read(e) end
    local callee = e.callee
    if not callee.cname then M.func(U, callee) end
    local args = {}
    for i, a in ipairs(e.args) do
      local pt = callee.param_types[i]
      if type(pt) == "table" then args[i] = ex(a) else args[i] = strip(cv(a, pt)) end
    end
    if U.debug then args[#args + 1] = U.record end
    return ("%s(%s)"):format(callee.cname, table.concat(args, ", "))
  end

  -- Lua evaluates operands from left to right; C leaves the order of an operator's operands,
  -- of a call's arguments and of an array's indices open (g++ took bump(c) - bump(c) from the
  -- right). Where it matters, one operand with an effect (an atomic, a random draw, printf,
  -- a device function that has one: ctx.effects) and another that reads memory or has one,
  -- the operands are evaluated in order, as a lambda's locals. effect(e): 2 an effect, 1
  -- reads memory, 0 neither.
  local effects = setmetatable({}, {__mode = "k"})
  local effect
  local function most(fx, list)
    for _, x in ipairs(list or {}) do fx = math.max(fx, effect(x)) end
    return fx
  end
  effect = function(e)
    if type(e) ~= "table" or e.const ~= nil then return 0 end
    local fx = effects[e]
    if fx then return fx end
    local tag = e.tag
    if tag == "Call" and intrinsics.effect(e.intr) then fx = 2
    elseif tag == "Call" and e.callee then fx = e.callee.effects and 2 or 1
    elseif (tag == "Call" or tag == "Index") and e.chain and not e.chain.shape then fx = 1
    else fx = 0 end
    for _, k in ipairs({"left", "right", "expr", "obj", "key"}) do fx = math.max(fx, effect(e[k])) end
    fx = most(fx, e.args)
    if e.chain then fx = most(fx, e.chain.keys) end
    effects[e] = fx
    return fx
  end
  -- the operands whose order C leaves open: a list of them and a copy of e that takes another
  local function operands(e)
    if e.tag == "Binop" and not e.choice and e.op ~= "and" and e.op ~= "or" then
      return {e.left, e.right}, function(copy, list) copy.left, copy.right = list[1], list[2] end
    elseif e.chain and not e.chain.shape and #e.chain.keys > 1 then   -- a[i][j], a(i, j)
      return e.chain.keys, function(copy, list)
        copy.chain = setmetatable({keys = list}, {__index = e.chain})
        if e.tag == "Call" then copy.args = list end
      end
    elseif e.tag == "Call" and (e.callee or e.intr) and #e.args > 1 then
      return e.args, function(copy, list)
        copy.args = list
        if e.printf then   -- (gpu.printf's C reads its arguments through its specs)
          local was = {}
          for i, a in ipairs(e.args) do was[a] = list[i] end
          local specs = {}
          for i, sp in ipairs(e.printf.specs) do specs[i] = setmetatable({arg = was[sp.arg] or sp.arg}, {__index = sp}) end
          copy.printf = setmetatable({specs = specs}, {__index = e.printf})
        end
      end
    end
  end
  -- whether list's order matters: one has an effect and another reads memory or has one
  order_matters = function(list)
    local effects_, reads = 0, 0
    for _, o in ipairs(list) do
      local fx = effect(o)
      if fx == 2 then effects_ = effects_ + 1 end
      if fx >= 1 then reads = reads + 1 end
    end
    return effects_ > 0 and reads > 1
  end
  local function in_order(e)
    local list, put = operands(e)
    if not list or not order_matters(list) then return nil end
    local temps, named = {}, {}
    for i, o in ipairs(list) do
      named[i] = o
      if effect(o) > 0 then
        local t = types.concrete(o.ty)
        local tmp = fresh("o")
        temps[#temps + 1] = ("%s %s = %s;"):format(ctype(t), tmp, strip(cv(o, t)))
        named[i] = {tag = "Name", var = {cname = tmp, ty = o.ty}, ty = o.ty, line = o.line}
      end
    end
    local copy = setmetatable({}, {__index = e})
    put(copy, named)
    return ("[&]() { %s return %s; }()"):format(table.concat(temps, " "), strip(ex(copy)))
  end

  ex = function(e)
    if e.const ~= nil and type(e.const) ~= "string" then return literal(e.const, types.concrete(e.ty)) end
    local ordered = in_order(e)
    if ordered then return ordered end
    local tag = e.tag
    if tag == "Name" then
      if e.var then return var_name(e.var) end
      if e.intr then return intrinsics.get(e.intr).emit(E, e) end
      local h = U.hidden(e.free)
      if not h.cname then h.cname = unique(names, "upvalue_" .. c_ident(e.name)) end
      return h.cname
    elseif tag == "Index" then
      if e.intr then return intrinsics.get(e.intr).emit(E, e) end
      if e.dot then return field(e) end
      return index_read(e)
    elseif tag == "Call" then
      return call(e, e.pick)
    elseif tag == "Paren" then
      return ex(e.expr)
    elseif tag == "Binop" then
      return binop(e)
    elseif tag == "Unop" then
      return unop(e)
    elseif tag == "True" then
      return "true"
    elseif tag == "False" then
      return "false"
    end
    error("emit: unexpected " .. tag)
  end

  -- statements

  local function declare(ind, v, value)
    local name = var_name(v)
    if ctx.has_labels then
      -- a goto may jump past a declaration that has no initializer
      line(ind, ("%s %s;"):format(ctype(v.ty), name))
      if value then line(ind, ("%s = %s;"):format(name, strip(value))) end
    else
      line(ind, ("%s %s = %s;"):format(ctype(v.ty), name, strip(value or "0")))
    end
  end

  local function store(ind, target, value_of)
    if target.tag == "Name" then
      line(ind, ("%s = %s;"):format(var_name(target.var), strip(value_of(target.var.ty))))
      return
    end
    local ch = target.chain
    local at_ = ch.arr
    local dtype = at_.array or at_.local_array
    local ref, b, flat = array_ref(ch.base, at_, ch.keys, target.line)
    local v = value_of(types.element(dtype), dtype)
    if ref then
      line(ind, ("%s = %s;"):format(ref, strip(v)))
    else
      need(U, "local")
      line(ind, ("jit::st(%s, %s, %s);"):format(b, flat, strip(v)))
    end
  end

  -- value_of(t, dtype) for the k-th value of an expression list
  local function value_getter(list, k)
    local n = #list
    local last = list[n]
    local e, sub = list[k], nil
    if k >= n and last and last.tag == "Call" and (last.nvalues or 1) > 1 then
      e, sub = last, k - n + 1
    end
    return function(t, dtype)
      local code
      if sub then
        code = conv(call(e, sub), "int64", types.concrete(type(t) == "table" and "int64" or t))
      elseif type(t) == "table" then
        code = ex(e)
      elseif dtype == "uint64" and types.float(types.concrete(e.ty)) then
        need(U, "f2u")   -- (through int64, 2^63 and up were lost)
        code = ("jit::f2u(%s)"):format(strip(cv(e, "float64")))
      else
        code = cv(e, t)
      end
      if dtype and dtype ~= types.concrete(t) then code = ("(%s)%s"):format(types.ctype[dtype], atom(code)) end
      return code
    end
  end

  local function local_array(ind, v, t)
    local name = var_name(v)
    line(ind, ("%s%s %s[%d];"):format(t.shared and "__shared__ " or "", types.ctype[t.local_array],
                                      name, t.total))
  end

  local function fornum(ind, s)
    local v = s.v
    local name = var_name(v)
    if s.kind == "int" then
      -- the count of iterations first, as Lua 5.4 does: no overflow, whatever the bounds
      need(U, "count")
      need(U, "int_add")
      local cur, left = fresh(name .. "_at"), fresh(name .. "_left")
      local step = s.step and cv(s.step, "int64") or "1"
      line(ind, "{")
      -- start, limit and step evaluated in that order, as Lua's
      line(ind + 1, ("long long %s = %s;"):format(cur, strip(cv(s.start, "int64"))))
      local lt = types.integer(s.limit.ty) and "int64" or "float64"
      local limit = cv(s.limit, lt)
      if s.limit.const == nil then
        local lim = fresh(name .. "_limit")
        line(ind + 1, ("%s %s = %s;"):format(types.ctype[lt], lim, strip(limit)))
        limit = lim
      end
      if s.step and s.step.const == nil then
        local st = fresh(name .. "_step")
        line(ind + 1, ("long long %s = %s;"):format(st, strip(step)))
        step = st
      end
      local count = ("jit::count%s(%s, %s, %s)"):format(lt == "int64" and "" or "f", cur, limit, step)
      line(ind + 1, ("for (unsigned long long %s = %s; %s > 0; --%s, %s = jit::add(%s, %s)) {")
        :format(left, count, left, left, cur, cur, step))
      line(ind + 2, ("%s %s = %s;"):format(ctype(v.ty), name, cur))
      block(s.body, ind + 2)
      line(ind + 1, "}")
      line(ind, "}")
    else
      local t = types.concrete(v.ty)
      local ct = types.ctype[t]
      -- Lua 5.4's forprep and forloop: the first test is not the later ones' where a bound
      -- is nan (for x = 0/0, 1 runs once)
      local f0, f1, fs = fresh(name .. "_at"), fresh(name .. "_limit"), fresh(name .. "_step")
      line(ind, "{")
      line(ind + 1, ("%s %s = %s, %s = %s, %s = %s;"):format(ct, f0, strip(cv(s.start, t)), f1,
        strip(cv(s.limit, t)), fs, s.step and strip(cv(s.step, t)) or literal(1, t)))
      line(ind + 1, ("if (%s != 0 && !(%s > 0 ? %s < %s : %s < %s)) for (;;) {"):format(fs, fs, f1, f0, f0, f1))
      line(ind + 2, ("%s %s = %s;"):format(ct, name, f0))
      block(s.body, ind + 2)
      line(ind + 2, ("%s += %s;"):format(f0, fs))
      line(ind + 2, ("if (!(%s > 0 ? %s <= %s : %s <= %s)) break;"):format(fs, f0, f1, f1, f0))
      line(ind + 1, "}")
      line(ind, "}")
    end
  end

  stat = function(s, ind)
    local tag = s.tag
    at(s.line)
    if tag == "Local" then
      local last = s.exprs[#s.exprs]
      local avail = #s.exprs + (last and last.tag == "Call" and (last.nvalues or 1) - 1 or 0)
      for i, v in ipairs(s.vars) do
        if type(v.ty) == "table" and v.ty.local_array then
          local_array(ind, v, v.ty)
        elseif not v.unused then
          declare(ind, v, i <= avail and value_getter(s.exprs, i)(v.ty) or nil)
        end
      end
      for i = #s.vars + 1, #s.exprs do
        if s.exprs[i].tag == "Call" then line(ind, ex(s.exprs[i]) .. ";") end
      end
    elseif tag == "Assign" then
      -- (one target whose indices read what the value changes, or the reverse: the indices
      -- first, as Lua and as the path of several targets; C++ evaluates the value first)
      local t1 = s.targets[1]
      local keys = {}
      for i, k in ipairs(#s.targets == 1 and t1.chain and t1.chain.keys or {}) do keys[i] = k end
      keys[#keys + 1] = s.exprs[1]
      if #s.targets == 1 and not (#keys > 1 and order_matters(keys)) then
        store(ind, s.targets[1], value_getter(s.exprs, 1))
      else
        -- the targets' arrays and indices, then every value, then the stores (the last
        -- target first): as Lua 5.4, which stores i, a[i] = i + 1, 20 in a[old i], and
        -- a, a[1] = o, 5 in the old a
        line(ind, "{")
        local targets, temps, assigned = {}, {}, {}
        for _, target in ipairs(s.targets) do
          if target.tag == "Name" and target.var then assigned[target.var] = true end
        end
        for i, target in ipairs(s.targets) do
          if target.tag ~= "Name" then
            local base = target.chain.base
            if base.tag == "Name" and base.var and assigned[base.var] then
              local tmp = fresh("b")
              line(ind + 1, ("%s %s = %s;"):format(ctype(base.var.ty), tmp, var_name(base.var)))
              base = {tag = "Name", var = {cname = tmp, ty = base.var.ty}, ty = base.ty, line = base.line}
            end
            local keys = {}
            for j, k in ipairs(target.chain.keys) do
              keys[j] = k
              if k.const == nil then
                local tmp = fresh("k")
                line(ind + 1, ("%s %s = %s;"):format(types.ctype.int64, tmp, strip(cv(k, "int64"))))
                keys[j] = {tag = "Name", var = {cname = tmp, ty = "int64"}, ty = "int64", line = k.line}
              end
            end
            local chain = setmetatable({keys = keys, base = base}, {__index = target.chain})
            target = setmetatable({chain = chain}, {__index = target})
          end
          targets[i] = target
        end
        for i, target in ipairs(targets) do
          local dtype = target.tag ~= "Name" and (target.chain.arr.array or target.chain.arr.local_array)
          local t = target.tag == "Name" and target.var.ty or types.element(dtype)
          local e = s.exprs[i]
          if dtype == "uint64" and e and types.float(types.concrete(e.ty)) then t = "float64" end
          local tmp = fresh("t")
          temps[i] = {tmp, t}
          line(ind + 1, ("%s %s = %s;"):format(ctype(t), tmp, strip(value_getter(s.exprs, i)(t))))
        end
        for i = #targets, 1, -1 do
          store(ind + 1, targets[i], function(_, dtype)
            local tmp, t = temps[i][1], temps[i][2]
            if dtype == "uint64" and t == "float64" then need(U, "f2u"); return ("jit::f2u(%s)"):format(tmp) end
            if dtype and type(t) ~= "table" and dtype ~= types.concrete(t) then
              return ("(%s)%s"):format(types.ctype[dtype], tmp)
            end
            return tmp
          end)
        end
        line(ind, "}")
      end
    elseif tag == "CallStat" then
      line(ind, strip(ex(s.call)) .. ";")
    elseif tag == "Do" then
      line(ind, "{")
      block(s.body, ind + 1)
      line(ind, "}")
    elseif tag == "While" then
      line(ind, ("while (%s) {"):format(strip(cond(s.cond))))
      block(s.body, ind + 1)
      line(ind, "}")
    elseif tag == "Repeat" then
      line(ind, "for (;;) {")
      block(s.body, ind + 1)
      at(s.cond.line)
      line(ind + 1, ("if (%s) break;"):format(strip(cond(s.cond))))
      line(ind, "}")
    elseif tag == "If" then
      for i, c in ipairs(s.conds) do
        if i > 1 then at(c.line) end
        line(ind, ("%sif (%s) {"):format(i > 1 and "} else " or "", strip(cond(c))))
        block(s.blocks[i], ind + 1)
      end
      if s.orelse then
        line(ind, "} else {")
        block(s.orelse, ind + 1)
      end
      line(ind, "}")
    elseif tag == "Fornum" then
      fornum(ind, s)
    elseif tag == "Return" then
      if s.exprs[1] then line(ind, ("return %s;"):format(strip(cv(s.exprs[1], ctx.ret))))
      else line(ind, ctx.kernel and "return;" or (ctx.ret and "return 0;" or "return;")) end
    elseif tag == "Break" then
      line(ind, "break;")
    elseif tag == "Goto" then
      line(ind, ("goto %s;"):format(s.target.cname))
    elseif tag == "Label" then
      line(ind, ("%s: ;"):format(s.cname))
    end
  end

  block = function(b, ind)
    for _, s in ipairs(b) do stat(s, ind) end
  end

  -- the function: its head last, since the body may add parameters (arrays read from
  -- upvalues)
  local params, prologue = {}, {}
  for i, v in ipairs(ctx.params) do
    local pt = ctx.param_types[i]
    local decl = ctx.param_dtypes and ctx.param_dtypes[i] or (type(pt) ~= "table" and types.concrete(pt))
    local name = var_name(v)
    if type(pt) == "table" and pt.local_array then
      params[i] = ("%s (&%s)[%d]"):format(types.ctype[pt.local_array], name, pt.total)
    elseif type(pt) == "table" then
      params[i] = ("%s %s"):format(ctype(pt), name)
    elseif decl ~= types.concrete(v.ty) then
      local pname = fresh(name .. "_arg")
      params[i] = ("%s %s"):format(types.ctype[decl], pname)
      prologue[#prologue + 1] = ("%s %s = %s;"):format(ctype(v.ty), name, conv(pname, decl, types.concrete(v.ty)))
    else
      params[i] = ("%s %s"):format(types.ctype[decl], name)
    end
  end
  at(ctx.fn.line)
  line(0, "")
  local head_at = #out
  for _, p in ipairs(prologue) do line(1, p) end
  block(ctx.fn.body, 1)
  local last = ctx.fn.body[#ctx.fn.body]
  if not ctx.kernel and ctx.ret and not (last and last.tag == "Return") then line(1, "return 0;") end
  line(0, "}")
  for _, h in ipairs(ctx.hidden or {}) do
    params[#params + 1] = ("gpu::array<%s> %s"):format(types.ctype[h.dtype], h.cname)
  end
  if U.debug then params[#params + 1] = "gpu::array<long long> " .. U.record end
  if ctx.kernel then
    out[head_at] = ('extern "C" __global__ void %s(%s) {'):format(ctx.cname, table.concat(params, ", "))
  else
    local ret = ctx.ret and types.ctype[types.concrete(ctx.ret)] or "void"
    out[head_at] = ("__device__ %s %s(%s) {"):format(ret, ctx.cname, table.concat(params, ", "))
  end
  U.funcs[#U.funcs + 1] = table.concat(out, "\n")
  return ctx.cname
end

-- The whole source: a comment, the helpers used, the device functions, the kernel.
M.EW_BEGIN, M.EW_END = "// gpu.jit: gpu's complex functions {", "// } gpu.jit: gpu's complex functions"
function M.source(U, comment)
  local parts = {comment}
  if U.ew then
    parts[#parts + 1] = ('%s\n#line 1 "kernels/ops/ew.cuh"\n%s#line 1 "kernels/ops/complex.cuh"\n%s%s')
      :format(M.EW_BEGIN, gpu._embedded("kernels/ops/ew.cuh"), gpu._embedded("kernels/ops/complex.cuh"), M.EW_END)
  end
  if U.special then
    parts[#parts + 1] = ('#line 1 "kernels/special.cuh"\n%s'):format(gpu._embedded("kernels/special.cuh"))
  end
  local code = {}
  for _, name in ipairs(helper_order) do
    if U.used[name] then code[#code + 1] = helpers[name].code end
  end
  if #code > 0 then
    parts[#parts + 1] = '#line 1 "[gpu.jit helpers]"\nnamespace jit {\n' .. table.concat(code, "\n") .. "\n}  // namespace jit"
  end
  for _, f in ipairs(U.funcs) do parts[#parts + 1] = f end
  return table.concat(parts, "\n") .. "\n"
end

return M
