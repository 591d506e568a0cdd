// gpuhost_portable.h: what kernel code expects of the C and C++ libraries, the same on
// both backends; kernels/gpuhost.cuh includes it first. NVRTC has no C library: under it
// this header defines the fixed-width integers (as libcu++ declares them under NVRTC:
// int64_t is long long; in std:: too, with size_t and ptrdiff_t), the limits of <climits>
// and <cfloat>, INFINITY, NAN, HUGE_VAL(F),
// the M_* constants of <math.h>, std::min and std::max, and the <cmath> functions in std::;
// std::numeric_limits is libcu++'s (host/cuda/nvrtc.c asks for it, with
// -DGPUHOST_NUMERIC_LIMITS, when a source names it: it costs NVRTC 50 ms), and NVRTC is
// given empty <cstdint>, <climits>, <cfloat>, <cmath>, <cassert>, <cstddef> (and their .h
// forms), so that including them works. The CPU backend's compiler has all of these from
// its own headers (kernels/cpu.h), and what is defined here changes nothing there.
#ifndef GPUHOST_PORTABLE_H
#define GPUHOST_PORTABLE_H

#if defined(__CUDACC_RTC__)
using int8_t = signed char;
using int16_t = signed short;
using int32_t = signed int;
using int64_t = signed long long;
using uint8_t = unsigned char;
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using uint64_t = unsigned long long;
using intptr_t = int64_t;
using uintptr_t = uint64_t;
using intmax_t = int64_t;
using uintmax_t = uint64_t;
using int_least8_t = int8_t;
using int_least16_t = int16_t;
using int_least32_t = int32_t;
using int_least64_t = int64_t;
using uint_least8_t = uint8_t;
using uint_least16_t = uint16_t;
using uint_least32_t = uint32_t;
using uint_least64_t = uint64_t;
using int_fast8_t = int8_t;
using int_fast16_t = int16_t;
using int_fast32_t = int32_t;
using int_fast64_t = int64_t;
using uint_fast8_t = uint8_t;
using uint_fast16_t = uint16_t;
using uint_fast32_t = uint32_t;
using uint_fast64_t = uint64_t;
using ptrdiff_t = decltype((int *)0 - (int *)0);

// <cstdint>'s and <cstddef>'s types in std:: too, as the C++ headers put them
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t; using ::uint8_t;
using ::uint16_t; using ::uint32_t; using ::uint64_t; using ::intptr_t; using ::uintptr_t;
using ::intmax_t; using ::uintmax_t; using ::int_least8_t; using ::int_least16_t;
using ::int_least32_t; using ::int_least64_t; using ::uint_least8_t; using ::uint_least16_t;
using ::uint_least32_t; using ::uint_least64_t; using ::int_fast8_t; using ::int_fast16_t;
using ::int_fast32_t; using ::int_fast64_t; using ::uint_fast8_t; using ::uint_fast16_t;
using ::uint_fast32_t; using ::uint_fast64_t; using ::size_t; using ::ptrdiff_t;
using nullptr_t = decltype(nullptr);
}  // namespace std

// <climits> (x86-64 and aarch64 Linux, LP64; char is signed on the former)
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-SHRT_MAX - 1)
#define SHRT_MAX 0x7fff
#define USHRT_MAX 0xffff
#define INT_MIN (-INT_MAX - 1)
#define INT_MAX 0x7fffffff
#define UINT_MAX 0xffffffff
#define LONG_MIN (-LONG_MAX - 1)
#define LONG_MAX LLONG_MAX
#define ULONG_MAX ULLONG_MAX
#define LLONG_MIN (-LLONG_MAX - 1)
#define LLONG_MAX 0x7fffffffffffffffLL
#define ULLONG_MAX 0xffffffffffffffffUL

// <cstdint>'s limits
#define INT8_MIN SCHAR_MIN
#define INT16_MIN SHRT_MIN
#define INT32_MIN INT_MIN
#define INT64_MIN LLONG_MIN
#define INT8_MAX SCHAR_MAX
#define INT16_MAX SHRT_MAX
#define INT32_MAX INT_MAX
#define INT64_MAX LLONG_MAX
#define UINT8_MAX UCHAR_MAX
#define UINT16_MAX USHRT_MAX
#define UINT32_MAX UINT_MAX
#define UINT64_MAX ULLONG_MAX
#define INTPTR_MIN INT64_MIN
#define INTPTR_MAX INT64_MAX
#define UINTPTR_MAX UINT64_MAX
#define INTMAX_MIN INT64_MIN
#define INTMAX_MAX INT64_MAX
#define UINTMAX_MAX UINT64_MAX
#define SIZE_MAX UINT64_MAX
#define INT32_C(x) x
#define UINT32_C(x) x##U
#define INT64_C(x) x##LL
#define UINT64_C(x) x##ULL

// <cfloat>: IEEE 754 binary32 and binary64
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859812e+38F
#define DBL_MAX 1.79769313486231570815e+308
#define FLT_MIN 1.17549435082228750797e-38F
#define DBL_MIN 2.22507385850720138309e-308
#define FLT_EPSILON 1.19209289550781250000e-7F
#define DBL_EPSILON 2.22044604925031308085e-16
#define FLT_TRUE_MIN 1.40129846432481707092e-45F
#define DBL_TRUE_MIN 4.94065645841246544177e-324

// <math.h>
#define INFINITY (__builtin_bit_cast(float, 0x7f800000u))
#define HUGE_VALF (__builtin_bit_cast(float, 0x7f800000u))
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ull))
#define NAN (__builtin_bit_cast(float, 0x7fc00000u))
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

namespace std {
// <algorithm>'s min and max
template <class T> __host__ __device__ constexpr const T &min(const T &a, const T &b) { return b < a ? b : a; }
template <class T> __host__ __device__ constexpr const T &max(const T &a, const T &b) { return a < b ? b : a; }
template <class T, class C> __host__ __device__ constexpr const T &min(const T &a, const T &b, C less) {
  return less(b, a) ? b : a;
}
template <class T, class C> __host__ __device__ constexpr const T &max(const T &a, const T &b, C less) {
  return less(a, b) ? b : a;
}
// <cmath>: CUDA's math functions (and their float overloads), also as std::
using ::abs; using ::fabs; using ::fmin; using ::fmax; using ::fdim; using ::sqrt; using ::cbrt;
using ::hypot; using ::exp; using ::exp2; using ::expm1; using ::log; using ::log2;
using ::log10; using ::log1p; using ::pow; using ::sin; using ::cos; using ::tan; using ::asin;
using ::acos; using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh;
using ::asinh; using ::acosh; using ::atanh; using ::floor; using ::ceil; using ::round;
using ::trunc; using ::rint; using ::nearbyint; using ::lround; using ::llround; using ::lrint;
using ::llrint; using ::fmod; using ::remainder; using ::remquo; using ::copysign; using ::erf;
using ::erfc; using ::tgamma; using ::lgamma; using ::fma; using ::ldexp; using ::frexp;
using ::modf; using ::nextafter; using ::scalbn; using ::scalbln; using ::ilogb; using ::logb;
using ::isnan; using ::isinf; using ::isfinite; using ::signbit; using ::nan;
}  // namespace std
#endif  // __CUDACC_RTC__
#endif  // GPUHOST_PORTABLE_H

// std::numeric_limits under NVRTC: libcu++'s, when asked for (see the top)
#if defined(__CUDACC_RTC__) && defined(GPUHOST_NUMERIC_LIMITS) && !defined(GPUHOST_NUMERIC_LIMITS_DONE)
#define GPUHOST_NUMERIC_LIMITS_DONE
#include <cuda/std/limits>
namespace std {
using cuda::std::numeric_limits;
}
#endif
