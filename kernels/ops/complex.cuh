// complex.cuh: complex64 and complex128 in gpuhost's generated kernels (after ew.cuh): the
// traits ew.cuh's templates ask, the conversions (a complex to a real type is its real
// part, as NumPy gives with a warning; to bool, whether either part is nonzero), NumPy's
// order of complex numbers (by the real part, then the imaginary: comparisons, maximum,
// minimum), and the functions NumPy defines on them, from the real ones of both backends.

namespace gpu {
// NumPy's order: a NaN part makes the real parts incomparable (NumPy's CLT, CLE)
template <class T> __device__ __forceinline__ bool operator<(complex<T> a, complex<T> b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <class T> __device__ __forceinline__ bool operator>(complex<T> a, complex<T> b) { return b < a; }
template <class T> __device__ __forceinline__ bool operator<=(complex<T> a, complex<T> b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
template <class T> __device__ __forceinline__ bool operator>=(complex<T> a, complex<T> b) { return b <= a; }
}  // namespace gpu

namespace ew {

template <class T> struct info<gpu::complex<T>> { enum { fp = 1, sgn = 1, bits = 16 * sizeof(T) }; };
template <class T> struct is_complex { enum { value = 0 }; };
template <class T> struct is_complex<gpu::complex<T>> { enum { value = 1 }; };

template <class To, class T> __device__ __forceinline__ To cast(gpu::complex<T> v) {
  if constexpr (same<To, bool>::value) return v.re != 0 || v.im != 0;
  else if constexpr (is_complex<To>::value) return To(v);
  else return cast<To>(v.re);
}

template <class T> __device__ __forceinline__ T real(T a) { return a; }
template <class T> __device__ __forceinline__ T real(gpu::complex<T> a) { return a.re; }
template <class T> __device__ __forceinline__ T imag(T a) { return T(0); }
template <class T> __device__ __forceinline__ T imag(gpu::complex<T> a) { return a.im; }
template <class T> __device__ __forceinline__ T conj(T a) { return a; }
template <class T> __device__ __forceinline__ gpu::complex<T> conj(gpu::complex<T> a) { return gpu::conj(a); }
template <class T> __device__ __forceinline__ T abs(gpu::complex<T> a) { return gpu::abs(a); }
template <class T> __device__ __forceinline__ bool isinf(gpu::complex<T> a) { return isinf(a.re) || isinf(a.im); }
// NumPy 2's sign: z / |z|; an infinite part gives its direction (+-1 or +-1j; both
// infinite: nan+nanj), as NumPy's loop does. Where |z| overflows or is subnormal (3e38+3e38j
// in complex64 was 0+0j) z is first scaled by a power of two, exactly
template <class T> __device__ __forceinline__ gpu::complex<T> sign(gpu::complex<T> a) {
  typedef gpu::complex<T> C;
  bool ir = isinf(a.re), ii = isinf(a.im);
  if (ir && ii) return C(a.re - a.re, a.re - a.re);   // inf - inf: nan
  if (ir) return C(copysign_((T)1, a.re), 0);
  if (ii) return C(0, copysign_((T)1, a.im));
  T m = gpu::abs(a), tiny = sizeof(T) == 4 ? (T)1.1754943508222875e-38 : (T)2.2250738585072014e-308;
  if (m != m) return C(m, m);
  if (m == 0) return C(0, 0);
  if (isinf(m) || m < tiny) {
    T k = isinf(m) ? (T)0.25 : sizeof(T) == 4 ? (T)16777216 : (T)18014398509481984;   // 2^24, 2^54
    a = C(a.re * k, a.im * k);
    m = gpu::abs(a);
  }
  return C(a.re / m, a.im / m);
}
template <class T> __device__ __forceinline__ gpu::complex<T> round(gpu::complex<T> a) {
  return gpu::complex<T>(round(a.re), round(a.im));
}

// functions of z = x + iy over the real functions: C99's (Annex G) special values where
// a part overflows or is zero, Kahan's formulas ("Branch cuts for complex elementary
// functions", 1987) for the inverse functions, so that no sum cancels and a small part
// keeps its digits
template <class T> struct cx_ops {
  typedef gpu::complex<T> C;
  typedef T R;
  __device__ static T mag(T x) { return x < 0 ? -x : x + T(0); }
  __device__ static C scaled(C z, T f) { return C(z.re * f, z.im * f); }
  // a zero imaginary part stays: exp(1000 + 0i) is inf + 0i, where inf * sin(0) is NaN
  __device__ static bool nonfinite(T y) { return y - y != y - y; }   // inf or nan
  // e^x (c + is) where e^x overflows and the parts need not (e^710 cos 3 is 1.1e308): as
  // glibc's cexp, csinh and ccosh, which NumPy calls on Linux, e^t taken into c and s once
  // or twice (by 1/2 the first time for sinh and cosh), t = (largest exponent - 1) ln 2
  __device__ static T big() { return sizeof(T) == 4 ? (T)88.029691931113054 : (T)709.08956571282405; }
  __device__ static C exp_cis(T x, T c, T s, T half) {
    const T t = big();
    if (x > t) {
      T et = ew::exp(t);
      x -= t, c *= et * half, s *= et * half;
      if (x > t) x -= t, c *= et, s *= et;
    }
    T e = ew::exp(x);   // past t still: the parts overflow, as they should
    return C(e * c, e * s);
  }
  __device__ static C exp(C z) {
    if (z.im == 0) return C(ew::exp(z.re), z.im);
    if (ew::isinf(z.re) && nonfinite(z.im))   // e^inf: inf + nan i; e^-inf: 0
      return z.re > 0 ? C(z.re, z.im - z.im) : C(0, ew::copysign_((T)0, z.im));
    return exp_cis(z.re, ew::cos(z.im), ew::sin(z.im), 1);
  }
  // e^x cos y - 1 as expm1(x) cos y - 2 sin^2(y / 2): a small z keeps its digits
  __device__ static C expm1(C z) {
    if (z.im == 0) return C(ew::expm1(z.re), z.im);
    T h = ew::sin(z.im / 2);
    return C(ew::expm1(z.re) * ew::cos(z.im) - 2 * h * h, ew::exp(z.re) * ew::sin(z.im));
  }
  __device__ static C log(C z) { return C(log_abs(z), ew::atan2(z.im, z.re)); }
  // log(1 + z): a small z as log1p(2x + x^2 + y^2) / 2, else the log of 1 + z made by
  // parts (a -0 imaginary part stays: log1p(-2 - 0i) is below the cut)
  __device__ static C log1p(C z) {
    if (mag(z.re) >= (T)0.5 || mag(z.im) >= (T)0.5 || z.re != z.re || z.im != z.im)
      return log(C(1 + z.re, z.im));
    return C(ew::log1p(z.re * (2 + z.re) + z.im * z.im) / 2, ew::atan2(z.im, 1 + z.re));
  }
  __device__ static C sqrt(C z) {
    if (ew::isinf(z.im)) return C(mag(z.im), z.im);   // inf + inf i, whatever the real part
    if (z.re == 0 && z.im == 0) return C(0, z.im);
    T quarter_max = sizeof(T) == 4 ? (T)8.5e37 : (T)4.4e307;   // |x| + |z| would overflow
    if ((mag(z.re) > quarter_max || mag(z.im) > quarter_max) && z.re - z.re == 0) {   // finite: inf/4 is inf
      C r = sqrt(C(z.re / 4, z.im / 4));
      return C(2 * r.re, 2 * r.im);
    }
    // both parts below 4 x the smallest normal, (|x| + |z|) / 2 is subnormal or 0 (5e-324i
    // gave inf i): z scaled by 2^108 (float: 2^48), exactly, and the root back by 2^-54
    T tiny4 = sizeof(T) == 4 ? (T)4.7019774032891500e-38 : (T)8.9002954340288055e-308;
    if (mag(z.re) < tiny4 && mag(z.im) < tiny4) {
      T k = sizeof(T) == 4 ? (T)16777216 : (T)18014398509481984;   // 2^24, 2^54
      C r = sqrt(C(z.re * k * k, z.im * k * k));
      return C(r.re / k, r.im / k);
    }
    T t = ew::sqrt((mag(z.re) + gpu::abs(z)) / 2);
    if (z.re >= 0) return C(t, z.im / (2 * t));
    bool below = z.im < 0 || (z.im == 0 && 1 / z.im < 0);   // -0 too: sqrt(-4 - 0i) is -2i, as NumPy's
    return C((below ? -z.im : z.im) / (2 * t), below ? -t : t);
  }
  // sinh and cosh of a real z are real (their zero's sign as C99's), an infinite or NaN
  // y meets an infinite or zero x as C99 says; sin z = -i sinh(iz), cos z = cosh(iz)
  __device__ static C sinh(C z) {
    if (z.im == 0) return C(ew::sinh(z.re), z.im);
    if (nonfinite(z.im) && (z.re == 0 || ew::isinf(z.re))) return C(z.re, z.im - z.im);
    if (mag(z.re) > big()) return exp_cis(mag(z.re), z.re < 0 ? -ew::cos(z.im) : ew::cos(z.im), ew::sin(z.im), (T)0.5);
    return C(ew::sinh(z.re) * ew::cos(z.im), ew::cosh(z.re) * ew::sin(z.im));
  }
  __device__ static C cosh(C z) {
    if (z.im == 0) return C(ew::cosh(z.re), ew::copysign_((T)0, z.re) * z.im);
    if (nonfinite(z.im) && z.re == 0) return C(z.im - z.im, 0);
    if (nonfinite(z.im) && ew::isinf(z.re)) return C(mag(z.re), z.im - z.im);
    if (mag(z.re) > big()) return exp_cis(mag(z.re), ew::cos(z.im), z.re < 0 ? -ew::sin(z.im) : ew::sin(z.im), (T)0.5);
    return C(ew::cosh(z.re) * ew::cos(z.im), ew::sinh(z.re) * ew::sin(z.im));
  }
  // iz as C99 takes it, (-y, x), so that the cuts' signed zeros carry over; -i w is (v, -u)
  __device__ static C times_i(C z) { return C(-z.im, z.re); }
  __device__ static C times_minus_i(C w) { return C(w.im, -w.re); }
  __device__ static C sin(C z) { return times_minus_i(sinh(times_i(z))); }
  __device__ static C cos(C z) { return cosh(times_i(z)); }
  // Kahan's tanh: (1 + t^2) s sqrt(1 + s^2) / (1 + (1 + t^2) s^2) + i t / (...), t = tan y,
  // s = sinh x; past |x| = 22 (float: 11) tanh x is 1 and the imaginary part 4 sin y cos y
  // e^-2|x| (sinh / cosh overflowed there to nan)
  __device__ static C tanh(C z) {
    T x = z.re, y = z.im;
    if (x != x) return C(x, y == 0 ? y : x * y);
    if (ew::isinf(x))
      return C(ew::copysign_((T)1, x), ew::copysign_((T)0, ew::isinf(y) ? y : ew::sin(y) * ew::cos(y)));
    if (y - y != y - y) return C(x == 0 ? x : y - y, y - y);   // y inf or nan
    if (y == 0) return C(ew::tanh(x), y);
    if (mag(x) >= (sizeof(T) == 4 ? (T)11 : (T)22)) {
      T e = ew::exp(-mag(x));
      return C(ew::copysign_((T)1, x), 4 * ew::sin(y) * ew::cos(y) * e * e);
    }
    T t = ew::tan(y), beta = 1 + t * t, s = ew::sinh(x), rho = ew::sqrt(1 + s * s), d = 1 + beta * s * s;
    return C(beta * rho * s / d, t / d);
  }
  __device__ static C tan(C z) { return times_minus_i(tanh(times_i(z))); }
  // far(): past it log(2z) is asinh(z) to the last digit (the next term is 1 / (4 z^2))
  // and 1 / z + i pi / 2 atanh(z); log|z| is taken without squaring
  __device__ static bool far(C z) {
    T lim = sizeof(T) == 4 ? (T)1e4 : (T)1e9;
    return mag(z.re) > lim || mag(z.im) > lim;
  }
  __device__ static T log_abs(C z) {
    T ax = mag(z.re), ay = mag(z.im), big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    if (ew::isinf(big)) return big;
    if (big == 0 || big != big || small != small) return ew::log(gpu::abs(z));
    if (big >= (T)0.5 && big < 1) {   // log(big) and log1p(r^2) / 2 would cancel near |z| = 1
      double m = sq_sum_m1(big, small);
      if (m >= -0.5) return (T)(ew::log1p(m) / 2);
    }
    T r = small / big;
    return ew::log(big) + ew::log1p(r * r) / 2;
  }
  // x^2 + y^2 - 1 for x, y < 1 (no overflow or underflow that counts), to a double's
  // precision however much it cancels: a float's squares are exact in double; a double's
  // are each a sum hi + lo (lo by fma), and hi_x - 1 + hi_y is summed with its errors
  // kept (Knuth's two-sum)
  __device__ static double sq_sum_m1(float x, float y) {
    return ((double)x * x - 1) + (double)y * y;
  }
  __device__ static double two_sum(double a, double b, double &err) {
    double s = a + b, v = s - a;
    err = (a - (s - v)) + (b - v);
    return s;
  }
  __device__ static double sq_sum_m1(double x, double y) {
    double hx = x * x, lx = ::fma(x, x, -hx), hy = y * y, ly = ::fma(y, y, -hy), e1, e2;
    double s = two_sum(two_sum(hx, -1.0, e1), hy, e2);
    return s + (((e1 + e2) + lx) + ly);
  }
  __device__ static C asinh_far(C z) {
    if (z.re < 0 || (z.re == 0 && 1 / z.re < 0)) return -asinh_far(-z);
    return C(log_abs(z) + (T)0.6931471805599453, ew::atan2(z.im, z.re));
  }
  // sqrt(1 - z) and sqrt(1 + z), made by parts (C(1) would add +0 to a -0 part)
  __device__ static C root_below(C z) { return sqrt(C(1 - z.re, -z.im)); }
  __device__ static C root_above(C z) { return sqrt(C(1 + z.re, z.im)); }
  // both parts below 2^-27 (float: 2^-13), asin z is z and acos z pi/2 - z to the last
  // digit (the next term is z^3 / 6, under |z|^2 / 2 relatively), where Kahan's products
  // below halve a subnormal y to 0 (asin(5e-324i) was 0); pi/2 - x as hi + (lo - x)
  __device__ static bool tiny(C z) {
    T lim = sizeof(T) == 4 ? (T)1.220703125e-4 : (T)7.4505805969238281e-9;
    return mag(z.re) < lim && mag(z.im) < lim;
  }
  __device__ static T half_pi_minus(T x) {
    T lo = sizeof(T) == 4 ? (T)-4.3711390001862419e-08 : (T)6.123233995736766e-17;
    return (T)1.5707963267948966 + (lo - x);
  }
  // asin z = atan(x / Re(s t)) + i asinh(Im(conj(s) t)), s = sqrt(1 - z), t = sqrt(1 + z):
  // the products' two terms have one sign
  __device__ static C asin(C z) {
    if (z.im == 0 && z.re >= -1 && z.re <= 1) return C(ew::asin(z.re), z.im);
    if (z.re == 0 && z.im != z.im) return z;   // C99's: 0 + nan i
    if (tiny(z)) return z;
    if (far(z)) return times_minus_i(asinh_far(times_i(z)));
    C s = root_below(z), t = root_above(z);
    return C(ew::atan2(z.re, GPUHOST_UNFUSED(s.re * t.re) - GPUHOST_UNFUSED(s.im * t.im)),
             ew::asinh(GPUHOST_UNFUSED(s.re * t.im) - GPUHOST_UNFUSED(s.im * t.re)));
  }
  // acos z = 2 atan(Re s / Re t) + i asinh(Im(conj(t) s))
  __device__ static C acos(C z) {
    if (z.im == 0 && z.re >= -1 && z.re <= 1) return C(ew::acos(z.re), -z.im);
    if (z.re == 0 && z.im != z.im) return C((T)1.5707963267948966, z.im);
    if (tiny(z)) return C(half_pi_minus(z.re), -z.im);
    if (far(z))   // log(2z)'s parts, with no pi/2 - asin(z) to cancel (2e9+1j: 5e-10)
      return C(ew::atan2(mag(z.im), z.re), ew::copysign_(log_abs(z) + (T)0.6931471805599453, -z.im));
    C s = root_below(z), t = root_above(z);
    return C(2 * ew::atan2(s.re, t.re), ew::asinh(GPUHOST_UNFUSED(t.re * s.im) - GPUHOST_UNFUSED(t.im * s.re)));
  }
  __device__ static C asinh(C z) {   // -i asin(iz)
    if (z.im == 0) return C(ew::asinh(z.re), z.im);   // a real z: the real function, its zero kept
    if (far(z)) return asinh_far(z);
    return times_minus_i(asin(times_i(z)));
  }
  // acosh z = asinh(Re(conj(s) t)) + 2i atan(Im s / Re t), s = sqrt(z - 1), t = sqrt(z + 1)
  __device__ static C acosh(C z) {
    if (z.re == 0 && z.im != z.im) return C(z.im, (T)1.5707963267948966);
    if (tiny(z)) return C(mag(z.im), ew::copysign_(half_pi_minus(z.re), z.im));   // +-i acos z
    if (far(z)) return C(log_abs(z) + (T)0.6931471805599453, ew::atan2(z.im, z.re));
    C s = sqrt(C(z.re - 1, z.im)), t = sqrt(C(z.re + 1, z.im));
    return C(ew::asinh(GPUHOST_UNFUSED(s.re * t.re) + GPUHOST_UNFUSED(s.im * t.im)), 2 * ew::atan2(s.im, t.re));
  }
  // Past far(), where 1 + z and z^2 overflow, atanh(z) = atanh(1 / z) +- i pi / 2 is
  // 1 / z +- i pi / 2 to the last digit; 1 / z by parts scaled by the larger
  __device__ static C atanh_far(C z) {
    T s = mag(z.re) > mag(z.im) ? mag(z.re) : mag(z.im);
    T half_pi = ew::copysign_((T)1.5707963267948966, z.im);
    if (z.im != z.im)   // C99's +-0 + nan i only for an infinite x, else nan + nan i
      return C(ew::isinf(z.re) ? ew::copysign_((T)0, z.re) : z.im, z.im);
    if (ew::isinf(s)) return C(ew::copysign_((T)0, z.re), half_pi);
    T x = z.re / s, y = z.im / s, m = x * x + y * y;   // in [1, 2]: no overflow
    return C(x / m / s, half_pi - y / m / s);
  }
  // (log(1 + z) - log(1 - z)) / 2, from the right half plane (atanh(-z) = -atanh(z)): the
  // real part as one log1p of 4x / |1 - z|^2, or, near z = 1 (|1 - z|^2 < 1/4, where that
  // is huge or |1 - z|^2 underflows), as log|1 + z| - log|1 - z|, which do not cancel
  // there; the imaginary part is arg((1 + z) / (1 - z)) / 2
  __device__ static C atanh(C z) {
    if (z.im == 0 && z.re >= -1 && z.re <= 1) return C(ew::atanh(z.re), z.im);
    if (z.re == 0 && z.im != z.im) return z;
    if (far(z)) return atanh_far(z);
    if (z.re < 0 || (z.re == 0 && 1 / z.re < 0)) return -atanh(-z);
    T x = z.re, y = z.im, a = 1 - x, d = a * a + y * y;
    T re = d < (T)0.25 ? (log_abs(C(1 + x, y)) - log_abs(C(a, y))) / 2 : ew::log1p(4 * x / d) / 4;
    return C(re, ew::atan2(2 * y, a * (1 + x) - y * y) / 2);
  }
  __device__ static C atan(C z) {   // -i atanh(iz)
    if (z.im == 0) return C(ew::atan(z.re), z.im);
    return times_minus_i(atanh(times_i(z)));
  }
};

#define EW_CX1(NAME, EXPR) \
  __device__ __forceinline__ gpu::complex64 NAME(gpu::complex64 z) { typedef cx_ops<float> O; return EXPR; } \
  __device__ __forceinline__ gpu::complex128 NAME(gpu::complex128 z) { typedef cx_ops<double> O; return EXPR; }
EW_CX1(exp, O::exp(z)) EW_CX1(log, O::log(z)) EW_CX1(sqrt, O::sqrt(z))
EW_CX1(sin, O::sin(z)) EW_CX1(cos, O::cos(z)) EW_CX1(tan, O::tan(z))
EW_CX1(sinh, O::sinh(z)) EW_CX1(cosh, O::cosh(z)) EW_CX1(tanh, O::tanh(z))
EW_CX1(exp2, O::exp(O::scaled(z, (typename O::R)0.6931471805599453)))   // by parts: -0 stays
// log2 and log10 scale each part of log(z), as NumPy's: dividing by a complex ln 2 made
// -inf * 0 = NaN of log(0)'s imaginary part
EW_CX1(log2, O::scaled(O::log(z), (typename O::R)1.4426950408889634))
EW_CX1(log10, O::scaled(O::log(z), (typename O::R)0.4342944819032518))
EW_CX1(log1p, O::log1p(z)) EW_CX1(expm1, O::expm1(z))
EW_CX1(asin, O::asin(z)) EW_CX1(acos, O::acos(z)) EW_CX1(atan, O::atan(z))
EW_CX1(asinh, O::asinh(z)) EW_CX1(acosh, O::acosh(z)) EW_CX1(atanh, O::atanh(z))
EW_CX1(sinc, z == typename O::C(0) ? typename O::C(1)
             : O::sin(z * typename O::C(3.141592653589793)) / (z * typename O::C(3.141592653589793)))
#undef EW_CX1

// NumPy's reciprocal (Smith's, as its loop has it: 1 / 0 is NaN there, unlike 1 / z)
template <class T> __device__ __forceinline__ gpu::complex<T> reciprocal(gpu::complex<T> z) {
  T ar = z.re < 0 ? -z.re : z.re, ai = z.im < 0 ? -z.im : z.im;
  if (ai <= ar) {
    T r = z.im / z.re, d = z.re + z.im * r;
    return gpu::complex<T>(1 / d, -r / d);
  }
  T r = z.re / z.im, d = z.re * r + z.im;
  return gpu::complex<T>(r / d, -1 / d);
}
template <class T> __device__ __forceinline__ T angle(gpu::complex<T> z) { return atan2(z.im, z.re); }
template <class T> __device__ __forceinline__ gpu::complex<T> nan_to_num(gpu::complex<T> z,
    gpu::complex<T> nan, gpu::complex<T> posinf, gpu::complex<T> neginf) {   // each part
  return gpu::complex<T>(nan_to_num(z.re, nan.re, posinf.re, neginf.re),
                         nan_to_num(z.im, nan.re, posinf.re, neginf.re));
}

// a^b = exp(b log a), as NumPy 2's: a^0 is 1; 0^b is 0 where b's real part is positive
// (whatever its imaginary part: 0^(1+1j) is 0) and nan+nanj for any other, before the
// integer powers (so 0^-1 is not 1 / 0, inf+nanj)
template <class T> __device__ __forceinline__ gpu::complex<T> power(gpu::complex<T> a, gpu::complex<T> b) {
  typedef gpu::complex<T> C;
  if (b.re == 0 && b.im == 0) return C(1, 0);
  if (a.re == 0 && a.im == 0) {
    T nan = a.re / a.re;   // 0 / 0
    return b.re > 0 ? C(0, 0) : C(nan, nan);
  }
  if (b.im == 0 && b.re == (T)(int)b.re && b.re > -100 && b.re < 100) {   // an integer: by squaring
    int n = (int)b.re, m = n < 0 ? -n : n;
    C r(1, 0), x = a;
    bool one = true;   // r is still 1: take x itself, as 1 * (inf + 1j) would give a NaN part
    for (; m; m >>= 1) {
      if (m & 1) { r = one ? x : r * x; one = false; }
      x = x * x;
    }
    return n < 0 ? C(1, 0) / r : r;
  }
  return exp(b * log(a));
}

}  // namespace ew
