// ew.cuh: what gpuhost's generated elementwise kernels are made of (lua/codegen.lua puts
// it before each one): NumPy's semantics for every operation, in plain CUDA C that the
// CPU backend's C++ compiler reads too, so both backends give the same bits.
//  - Integers wrap (computed in unsigned types, so no signed overflow); integer division
//    and remainder by 0 give 0, as NumPy's do (with a warning there).
//  - Conversions (cast): to bool is `!= 0`; a float to an integer truncates, saturates at
//    the type's range and gives 0 for NaN (CUDA's rule; host/strided.c does the same).
//  - maximum, minimum and clip propagate NaN; floor_divide and remainder of floats follow
//    Python's floor and sign rules exactly (fmod is exact on both backends).
//  - float16 (gpu::half) is only stored: operations compute in float32 (lua/codegen.lua
//    gives them float operands) and round back once, as NumPy's float16 loops do.

namespace ew {

template <class A, class B> struct same { enum { value = 0 }; };
template <class A> struct same<A, A> { enum { value = 1 }; };

// fp: a float; sgn: signed; bits; U: the unsigned type integer arithmetic wraps in
template <class T> struct info;
#define EW_INT(T, S, B, UT, LO, HI) template <> struct info<T> { \
    enum { fp = 0, sgn = S, bits = B }; typedef UT U; \
    __device__ __forceinline__ static T lo() { return LO; } \
    __device__ __forceinline__ static T hi() { return HI; } };
EW_INT(signed char, 1, 8, unsigned int, -128, 127)
EW_INT(short, 1, 16, unsigned int, -32768, 32767)
EW_INT(int, 1, 32, unsigned int, -2147483647 - 1, 2147483647)
EW_INT(long long, 1, 64, unsigned long long, -9223372036854775807LL - 1, 9223372036854775807LL)
EW_INT(unsigned char, 0, 8, unsigned int, 0, 255)
EW_INT(unsigned short, 0, 16, unsigned int, 0, 65535)
EW_INT(unsigned int, 0, 32, unsigned int, 0, 4294967295u)
EW_INT(unsigned long long, 0, 64, unsigned long long, 0, 18446744073709551615ull)
EW_INT(bool, 0, 1, unsigned int, false, true)
#undef EW_INT
template <> struct info<float> { enum { fp = 1, sgn = 1, bits = 32 }; };
template <> struct info<double> { enum { fp = 1, sgn = 1, bits = 64 }; };
template <> struct info<gpu::half> { enum { fp = 1, sgn = 1, bits = 16 }; };
template <int N> struct bits_for;
template <> struct bits_for<4> { typedef unsigned int type; };
template <> struct bits_for<8> { typedef unsigned long long type; };

template <class To, class From> __device__ __forceinline__ To cast(From v) {
  if constexpr (same<To, From>::value) {
    return v;
  } else if constexpr (same<From, gpu::half>::value) {   // float16 goes through float
    return cast<To>((float)v);
  } else if constexpr (same<To, gpu::half>::value) {     // one rounding: doubles directly
    if constexpr (same<From, double>::value) return gpu::half(v);
    else return gpu::half(cast<float>(v));
  } else if constexpr (same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (info<From>::fp && !info<To>::fp) {
    if (v != v) return To(0);
    if (v <= (From)info<To>::lo()) return info<To>::lo();
    if (v >= (From)info<To>::hi()) return info<To>::hi();
    return (To)v;
  } else {
    return (To)v;
  }
}

// ---- arithmetic ----
template <class T> __device__ __forceinline__ T add(T a, T b) {
  if constexpr (same<T, bool>::value) return a || b;
  else if constexpr (!info<T>::fp) return (T)((typename info<T>::U)a + (typename info<T>::U)b);
  else return a + b;
}
template <class T> __device__ __forceinline__ T subtract(T a, T b) {
  if constexpr (!info<T>::fp) return (T)((typename info<T>::U)a - (typename info<T>::U)b);
  else return a - b;
}
template <class T> __device__ __forceinline__ T multiply(T a, T b) {
  if constexpr (same<T, bool>::value) return a && b;
  else if constexpr (!info<T>::fp) return (T)((typename info<T>::U)a * (typename info<T>::U)b);
  else return a * b;
}
template <class T> __device__ __forceinline__ T divide(T a, T b) { return a / b; }
template <class T> __device__ __forceinline__ T negative(T a) {
  if constexpr (!info<T>::fp) return (T)((typename info<T>::U)0 - (typename info<T>::U)a);
  else return -a;
}

__device__ __forceinline__ float fmod_(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double fmod_(double a, double b) { return ::fmod(a, b); }
__device__ __forceinline__ float floor_(float a) { return floorf(a); }
__device__ __forceinline__ double floor_(double a) { return ::floor(a); }
template <class T> __device__ __forceinline__ T copysign_(T a, T b) { return (b < 0 || (b == 0 && 1 / b < 0)) ? -(a < 0 ? -a : a) : (a < 0 ? -a : a); }

// Python's divmod of floats: the quotient floored, the remainder with the divisor's sign
template <class T> __device__ __forceinline__ T float_mod(T a, T b, T *div) {
  T mod = fmod_(a, b);
  if (b == 0) { *div = a / b; return mod; }
  T d = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) { mod += b; d -= 1; }
  } else {
    mod = copysign_((T)0, b);
  }
  if (d != 0) {
    T f = floor_(d);
    if (d - f > (T)0.5) f += 1;
    d = f;
  } else {
    d = copysign_((T)0, a / b);
  }
  *div = d;
  return mod;
}

template <class T> __device__ __forceinline__ T floor_divide(T a, T b) {
  if constexpr (info<T>::fp) {
    T d;
    float_mod(a, b, &d);
    return d;
  } else {
    if (b == 0) return 0;
    if constexpr (info<T>::sgn) {
      if (b == -1) return negative(a);
      T q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) q = q - 1;
      return q;
    } else {
      return a / b;
    }
  }
}
template <class T> __device__ __forceinline__ T remainder(T a, T b) {
  if constexpr (info<T>::fp) {
    T d;
    return float_mod(a, b, &d);
  } else {
    if (b == 0) return 0;
    if constexpr (info<T>::sgn) {
      if (b == -1) return 0;
      T r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r = r + b;
      return r;
    } else {
      return a % b;
    }
  }
}

__device__ __forceinline__ float pow_(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double pow_(double a, double b) { return ::pow(a, b); }
template <class T> __device__ __forceinline__ T power(T a, T b) {
  if constexpr (info<T>::fp) {
    return pow_(a, b);
  } else {
    if constexpr (info<T>::sgn) {
      if (b < 0) return a == 1 ? (T)1 : a == -1 ? (T)((b & 1) ? -1 : 1) : (T)0;
    }
    typedef typename info<T>::U U;
    U r = 1, x = (U)a;
    for (unsigned long long e = (unsigned long long)b; e; e >>= 1) {
      if (e & 1) r *= x;
      x *= x;
    }
    return (T)r;
  }
}

template <class T> __device__ __forceinline__ T maximum(T a, T b) {
  if constexpr (info<T>::fp) return a != a ? a : b != b ? b : a >= b ? a : b;
  else return a >= b ? a : b;
}
template <class T> __device__ __forceinline__ T minimum(T a, T b) {
  if constexpr (info<T>::fp) return a != a ? a : b != b ? b : a <= b ? a : b;
  else return a <= b ? a : b;
}
template <class T> __device__ __forceinline__ T clip(T a, T lo, T hi) { return minimum(maximum(a, lo), hi); }

// ---- bits ----
template <class T> __device__ __forceinline__ T bitwise_and(T a, T b) {
  if constexpr (same<T, bool>::value) return a && b; else return a & b;
}
template <class T> __device__ __forceinline__ T bitwise_or(T a, T b) {
  if constexpr (same<T, bool>::value) return a || b; else return a | b;
}
template <class T> __device__ __forceinline__ T bitwise_xor(T a, T b) {
  if constexpr (same<T, bool>::value) return a != b; else return a ^ b;
}
template <class T> __device__ __forceinline__ T invert(T a) {
  if constexpr (same<T, bool>::value) return !a; else return (T)~a;
}
// a shift by a negative amount or by the width or more gives 0 (or -1: a negative number
// shifted right), as NumPy's do
template <class T> __device__ __forceinline__ bool shift_out(T b) {
  if constexpr (info<T>::sgn) { if (b < 0) return true; }
  return (unsigned long long)b >= (unsigned long long)info<T>::bits;
}
template <class T> __device__ __forceinline__ T left_shift(T a, T b) {
  return shift_out(b) ? (T)0 : (T)((typename info<T>::U)a << b);
}
template <class T> __device__ __forceinline__ T right_shift(T a, T b) {
  if constexpr (info<T>::sgn) return shift_out(b) ? (T)(a < 0 ? -1 : 0) : (T)(a >> b);
  else return shift_out(b) ? (T)0 : (T)(a >> b);
}

// ---- comparisons: integers of any two types exactly; floats in one type ----
template <class A, class B> __device__ __forceinline__ bool lt(A a, B b) {
  if constexpr (!info<A>::fp && !info<B>::fp && (int)info<A>::sgn != (int)info<B>::sgn) {
    if constexpr (info<A>::sgn) return a < 0 || (unsigned long long)a < (unsigned long long)b;
    else return b > 0 && (unsigned long long)a < (unsigned long long)b;
  } else {
    return a < b;
  }
}
template <class A, class B> __device__ __forceinline__ bool eq(A a, B b) {
  if constexpr (!info<A>::fp && !info<B>::fp && (int)info<A>::sgn != (int)info<B>::sgn) {
    if constexpr (info<A>::sgn) return a >= 0 && (unsigned long long)a == (unsigned long long)b;
    else return b >= 0 && (unsigned long long)a == (unsigned long long)b;
  } else {
    return a == b;
  }
}
template <class A, class B> __device__ __forceinline__ bool ne(A a, B b) { return !eq(a, b) ; }
template <class A, class B> __device__ __forceinline__ bool gt(A a, B b) { return lt(b, a); }
template <class A, class B> __device__ __forceinline__ bool le(A a, B b) {
  if constexpr (info<A>::fp || info<B>::fp) return a <= b;   // NaN: false, as IEEE says
  else return !lt(b, a);
}
template <class A, class B> __device__ __forceinline__ bool ge(A a, B b) { return le(b, a); }

template <class A, class B> __device__ __forceinline__ bool logical_and(A a, B b) { return a != A(0) && b != B(0); }
template <class A, class B> __device__ __forceinline__ bool logical_or(A a, B b) { return a != A(0) || b != B(0); }
template <class A, class B> __device__ __forceinline__ bool logical_xor(A a, B b) { return (a != A(0)) != (b != B(0)); }
template <class A> __device__ __forceinline__ bool logical_not(A a) { return a == A(0); }
template <class C, class T> __device__ __forceinline__ T where(C c, T x, T y) { return c != C(0) ? x : y; }

template <class T> __device__ __forceinline__ bool isnan(T a) {
  if constexpr (info<T>::fp) return a != a; else return false;
}
template <class T> __device__ __forceinline__ bool isfinite(T a) {
  if constexpr (info<T>::fp) return a - a == a - a; else return true;   // inf - inf is NaN
}
template <class T> __device__ __forceinline__ bool isinf(T a) {
  if constexpr (info<T>::fp) return a == a && !(a - a == a - a); else return false;
}

// ---- math: the C library's float and double functions; integers keep their values
// where NumPy keeps their type (floor, ceil, trunc, round) ----
#define EW_MATH1(NAME, F, D) \
  __device__ __forceinline__ float NAME(float x) { return F(x); } \
  __device__ __forceinline__ double NAME(double x) { return D(x); }
EW_MATH1(sqrt, sqrtf, ::sqrt) EW_MATH1(exp, expf, ::exp) EW_MATH1(exp2, exp2f, ::exp2)
EW_MATH1(log, logf, ::log) EW_MATH1(log2, log2f, ::log2) EW_MATH1(log10, log10f, ::log10)
EW_MATH1(log1p, log1pf, ::log1p) EW_MATH1(expm1, expm1f, ::expm1)
EW_MATH1(sin, sinf, ::sin) EW_MATH1(cos, cosf, ::cos) EW_MATH1(tan, tanf, ::tan)
EW_MATH1(asin, asinf, ::asin) EW_MATH1(acos, acosf, ::acos) EW_MATH1(atan, atanf, ::atan)
EW_MATH1(sinh, sinhf, ::sinh) EW_MATH1(cosh, coshf, ::cosh) EW_MATH1(tanh, tanhf, ::tanh)
EW_MATH1(asinh, asinhf, ::asinh) EW_MATH1(acosh, acoshf, ::acosh) EW_MATH1(atanh, atanhf, ::atanh)
EW_MATH1(cbrt, cbrtf, ::cbrt) EW_MATH1(erf, erff, ::erf) EW_MATH1(erfc, erfcf, ::erfc)
EW_MATH1(lgamma, lgammaf, ::lgamma) EW_MATH1(tgamma, tgammaf, ::tgamma)
#undef EW_MATH1
#define EW_MATH2(NAME, F, D) \
  __device__ __forceinline__ float NAME(float x, float y) { return F(x, y); } \
  __device__ __forceinline__ double NAME(double x, double y) { return D(x, y); }
EW_MATH2(atan2, atan2f, ::atan2) EW_MATH2(hypot, hypotf, ::hypot)
EW_MATH2(copysign, copysignf, ::copysign) EW_MATH2(nextafter, nextafterf, ::nextafter)
#undef EW_MATH2

// log(e^x + e^y) and log2(2^x + 2^y) without overflow, as NumPy computes them: equal
// arguments (infinities too) add log(2) or 1; a NaN gives NaN
template <class T> __device__ __forceinline__ T logaddexp(T x, T y) {
  if (x == y) return x + (T)0.6931471805599453;
  T d = x - y;
  if (d > 0) return x + log1p(exp(-d));
  if (d <= 0) return y + log1p(exp(d));
  return d;
}
template <class T> __device__ __forceinline__ T logaddexp2(T x, T y) {
  if (x == y) return x + 1;
  T d = x - y;
  if (d > 0) return x + (T)1.4426950408889634 * log1p(exp2(-d));
  if (d <= 0) return y + (T)1.4426950408889634 * log1p(exp2(d));
  return d;
}
// the factors in the type itself, as NumPy's float32 loops take them
template <class T> __device__ __forceinline__ T deg2rad(T x) { return x * ((T)3.141592653589793 / (T)180); }
template <class T> __device__ __forceinline__ T rad2deg(T x) { return x * ((T)180 / (T)3.141592653589793); }
// sin(pi x) / (pi x), 1 at 0 (NumPy's sinc, normalized); complex.cuh has the complex one
template <class T> __device__ __forceinline__ T sinc(T x) {
  if (x == 0) return (T)1;
  T y = x * (T)3.141592653589793;
  return sin(y) / y;
}
template <class T> __device__ __forceinline__ T heaviside(T x, T h0) {
  return x < 0 ? (T)0 : x > 0 ? (T)1 : x == 0 ? h0 : x;   // NaN stays
}
// the sign bit itself: -0.0 and -NaN have it
template <class T> __device__ __forceinline__ bool signbit(T a) {
  if constexpr (info<T>::fp) {
    typedef typename bits_for<sizeof(T)>::type B;
    B b;
    memcpy(&b, &a, sizeof b);
    return (b >> (8 * sizeof b - 1)) != 0;
  } else if constexpr (info<T>::sgn) {
    return a < 0;
  } else {
    return false;
  }
}
// the argument of a real number: pi for negative ones and -0.0, as atan2(0, x)
template <class T> __device__ __forceinline__ T angle(T x) { return atan2((T)0, x); }

#define EW_ROUND(NAME, F, D) \
  template <class T> __device__ __forceinline__ T NAME(T x) { return x; } \
  template <> __device__ __forceinline__ float NAME(float x) { return F(x); } \
  template <> __device__ __forceinline__ double NAME(double x) { return D(x); }
EW_ROUND(floor, floorf, ::floor) EW_ROUND(ceil, ceilf, ::ceil) EW_ROUND(trunc, truncf, ::trunc)
EW_ROUND(round, rintf, ::rint)   // half to even, as NumPy's round
#undef EW_ROUND

template <class T> __device__ __forceinline__ T abs(T a) {
  if constexpr (info<T>::fp) return a < 0 ? -a : a == 0 ? (T)0 : a;   // -0 gives 0; NaN stays
  else if constexpr (info<T>::sgn) return a < 0 ? negative(a) : a;
  else return a;
}
template <class T> __device__ __forceinline__ T sign(T a) {
  if constexpr (info<T>::fp) return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a;
  else return (T)((a > 0) - (a < 0));
}
template <class T> __device__ __forceinline__ T identity(T a) { return a; }

template <class T> __device__ __forceinline__ T square(T a) { return multiply(a, a); }
// of an integer: 1 / a truncated, and 0 for 0 (CuPy's; NumPy's is undefined there)
template <class T> __device__ __forceinline__ T reciprocal(T a) {
  if constexpr (info<T>::fp) return T(1) / a;
  else return a == 0 ? (T)0 : (T)(1 / a);
}
// C's fmod: the dividend's sign; integers by 0 give 0, as NumPy's
template <class T> __device__ __forceinline__ T fmod(T a, T b) {
  if constexpr (info<T>::fp) {
    return fmod_(a, b);
  } else {
    if (b == 0) return 0;
    if constexpr (info<T>::sgn) { if (b == -1) return 0; }
    return (T)(a % b);
  }
}
// maximum and minimum that take the other argument where one is NaN (both: the first)
template <class T> __device__ __forceinline__ T fmax(T a, T b) {
  if constexpr (info<T>::fp) return b != b ? a : a != a ? b : a >= b ? a : b;
  else return a >= b ? a : b;
}
template <class T> __device__ __forceinline__ T fmin(T a, T b) {
  if constexpr (info<T>::fp) return b != b ? a : a != a ? b : a <= b ? a : b;
  else return a <= b ? a : b;
}
// Euclid's on the magnitudes, in the unsigned type: gcd(-128, 0) of int8 wraps to -128,
// and lcm is |a| / gcd * |b| wrapped, as NumPy's
template <class T> __device__ __forceinline__ typename info<T>::U magnitude(T a) {
  typedef typename info<T>::U U;
  if constexpr (info<T>::sgn) return a < 0 ? (U)0 - (U)a : (U)a;
  else return (U)a;
}
template <class T> __device__ __forceinline__ typename info<T>::U gcd_u(T a, T b) {
  typename info<T>::U x = magnitude(a), y = magnitude(b);
  while (y != 0) {
    typename info<T>::U t = x % y;
    x = y;
    y = t;
  }
  return x;
}
template <class T> __device__ __forceinline__ T gcd(T a, T b) { return (T)gcd_u(a, b); }
template <class T> __device__ __forceinline__ T lcm(T a, T b) {
  typename info<T>::U g = gcd_u(a, b);
  return g == 0 ? (T)0 : (T)(magnitude(a) / g * magnitude(b));
}
// NaN to nan, infinities to posinf and neginf; integers as they are
template <class T> __device__ __forceinline__ T nan_to_num(T x, T nan, T posinf, T neginf) {
  if constexpr (info<T>::fp) return x != x ? nan : x - x == x - x ? x : x > 0 ? posinf : neginf;
  else return x;
}

// ---- a float's parts (NumPy's modf, frexp, ldexp, spacing), signed infinities, i0 ----
// float and double each, as the C library names them
__device__ __forceinline__ float frexp_(float x, int *e) { return frexpf(x, e); }
__device__ __forceinline__ double frexp_(double x, int *e) { return ::frexp(x, e); }
__device__ __forceinline__ float ldexp_(float x, int e) { return ldexpf(x, e); }
__device__ __forceinline__ double ldexp_(double x, int e) { return ::ldexp(x, e); }
template <class T> __device__ __forceinline__ T inf_() {
  if constexpr (sizeof(T) == 4) return HUGE_VALF; else return HUGE_VAL;
}

// modf's fractional part, with x's sign (-0.0 of -0.0 and -2.0 too); 0 of an infinity
template <class T> __device__ __forceinline__ T modf_frac(T x) {
  return isinf(x) ? copysign_((T)0, x) : copysign_(x - trunc(x), x);
}
// frexp: x = m 2^e with 0.5 <= |m| < 1; 0, infinities and NaN keep x and have e = 0. The
// exponent comes as a T (exact: at most 1077 in magnitude), made int32 by the caller.
template <class T> __device__ __forceinline__ T frexp_mantissa(T x) {
  int e;
  return isfinite(x) ? frexp_(x, &e) : x;
}
template <class T> __device__ __forceinline__ T frexp_exponent(T x) {
  int e = 0;
  if (isfinite(x)) frexp_(x, &e);
  return (T)e;
}
// x 2^e, e an integer given as a T; beyond +-4000 every finite x has overflowed or gone
// to 0 already, so the clamp keeps the int conversion defined
template <class T> __device__ __forceinline__ T ldexp(T x, T e) {
  T c = e > (T)4000 ? (T)4000 : e < (T)-4000 ? (T)-4000 : e;
  return ldexp_(x, (int)c);
}
// the distance to the next float away from 0 (toward +inf for +-0), signed as x; NaN for
// infinities, as NumPy's
template <class T> __device__ __forceinline__ T spacing(T x) {
  if (isinf(x)) return x - x;
  return nextafter(x, x < 0 ? -inf_<T>() : inf_<T>()) - x;
}
// float16's own: a step of its 10-bit mantissa (these two compute in gpu::half, not float)
__device__ __forceinline__ gpu::half nextafter(gpu::half a, gpu::half b) {
  float x = a, y = b;
  if (x != x || y != y) return gpu::half(x + y);
  if (x == y) return b;
  if (x == 0) return gpu::half::from_bits((unsigned short)((b.bits & 0x8000) | 1));
  return gpu::half::from_bits((unsigned short)((x < y) == (x > 0) ? a.bits + 1 : a.bits - 1));
}
__device__ __forceinline__ gpu::half spacing(gpu::half x) {
  float f = x;
  if (f - f != 0) return gpu::half(f - f);   // inf or NaN: NaN
  return gpu::half((float)nextafter(x, gpu::half::from_bits(f < 0 ? 0xfc00 : 0x7c00)) - f);
}
template <class T> __device__ __forceinline__ bool isposinf(T a) { return isinf(a) && !signbit(a); }
template <class T> __device__ __forceinline__ bool isneginf(T a) { return isinf(a) && signbit(a); }

// The modified Bessel function of order 0, in double (float gives the double's value
// rounded). Up to 20 the power series sum (x^2/4)^k / (k!)^2, whose terms are all
// positive (no cancellation); beyond, the asymptotic series
// e^x / sqrt(2 pi x) * sum prod_{j <= k} (2j - 1)^2 / (8 j x), whose smallest term there
// is below 1e-17. e^x overflows past 709.78 (inf there, as NumPy's).
// q = (x/2)^2 rounded is off by q_lo (fma gives it exactly), which the k-th term carries k
// times: the sum is corrected by q_lo times its derivative, sum k t_k / q
__device__ __forceinline__ double i0_series(double x) {
  double h = x / 2, q = h * h, q_lo = ::fma(h, h, -q), term = 1, sum = 1, slope = 0;
  for (int k = 1; term > sum * 1e-17; k++) {
    term *= q / ((double)k * k);
    sum += term;
    slope += k * term;
  }
  return q > 0 ? sum + q_lo / q * slope : sum;
}
__device__ __forceinline__ double i0_asymptotic(double x) {
  double term = 1, sum = 1;
  for (int k = 1; k < 60 && term > sum * 1e-17; k++) {
    term *= (2.0 * k - 1) * (2.0 * k - 1) / (8.0 * k * x);
    sum += term;
  }
  return ::exp(x) * (sum / ::sqrt(2 * 3.141592653589793 * x));
}
template <class T> __device__ __forceinline__ T i0(T v) {
  double x = v < 0 ? -(double)v : (double)v;
  if (x != x || x == inf_<double>()) return (T)x;   // inf, as CuPy's (NumPy's formula gives NaN)
  return (T)(x <= 20 ? i0_series(x) : i0_asymptotic(x));
}

// ---- the layouts the kernels loop over (host/ufunc.c writes these) ----
template <class T, int V> struct alignas(sizeof(T) * V > 16 ? 16 : sizeof(T) * V) vec { T v[V]; };
// On a GPU a vector moves as one access of its size: a store through __stwb (an ordinary
// write-back store), which the compiler cannot split back into elements as it did a struct
// copy (NVRTC 13 merged the vector path's stores with the scalar tail's); the CPU backend
// copies the struct.
#ifndef GPUHOST_CPU
template <int B> struct bits_of;
template <> struct bits_of<16> { typedef uint4 type; };
template <> struct bits_of<8> { typedef uint2 type; };
template <> struct bits_of<4> { typedef unsigned type; };
template <> struct bits_of<2> { typedef unsigned short type; };
template <> struct bits_of<1> { typedef unsigned char type; };
#endif
template <int V, class T> __device__ __forceinline__ vec<T, V> vload(const T *p) {
#ifndef GPUHOST_CPU
  if constexpr (sizeof(T) * V <= 16) {
    typedef typename bits_of<sizeof(T) * V>::type B;
    B b = *reinterpret_cast<const B *>(p);
    vec<T, V> x;
    memcpy(&x, &b, sizeof b);
    return x;
  } else
#endif
  return *reinterpret_cast<const vec<T, V> *>(p);
}
template <int V, class T> __device__ __forceinline__ void vstore(T *p, const vec<T, V> &x) {
#ifndef GPUHOST_CPU
  if constexpr (sizeof(T) * V <= 16) {
    typedef typename bits_of<sizeof(T) * V>::type B;
    B b;
    memcpy(&b, &x, sizeof b);
    __stwb(reinterpret_cast<B *>(p), b);
  } else
#endif
  *reinterpret_cast<vec<T, V> *>(p) = x;
}

// nd dimensions (ND of them, or up to 8 when ND is 8), NA arrays' strides in elements, and
// for each dimension the magic number and shift that divide a 32-bit index by its size
// (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994)
template <int ND, int NA> struct strided {
  long long n;
  int nd, pad_;
  long long shape[ND];
  long long stride[NA][ND];
  unsigned magic[ND], shift[ND];
};
// i / shape[d], for i below 2^31 (32-bit) or any (64-bit)
template <class I, int ND, int NA>
__device__ __forceinline__ I divide_by(I i, const strided<ND, NA> &st, int d) {
  if constexpr (sizeof(I) == 4) return (__umulhi(i, st.magic[d]) + i) >> st.shift[d];
  else return i / (I)st.shape[d];
}

// rows of a C-ordered output (ew_r): rows, the chunks (of EW_VEC elements) of a row, cols;
// each array's stride between rows and whether it walks a row (1) or repeats one element (0)
template <int NA> struct rows {
  long long rows, per_row, cols;
  long long row_stride[NA];
  int inner[NA];
};

// a transposing copy: rows x cols (x batch), the input walking rows with stride 1
struct tile {
  long long rows, cols, batch, in_s[3], out_s[3];
};

}  // namespace ew
