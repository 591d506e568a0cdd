// complex.cuh: complex64 and complex128 in gpuhost's generated kernels (after ew.cuh): the
// traits ew.cuh's templates ask, the conversions (a complex to a real type is its real
// part, as NumPy gives with a warning; to bool, whether either part is nonzero), NumPy's
// order of complex numbers (by the real part, then the imaginary: comparisons, maximum,
// minimum), and the functions NumPy defines on them, from the real ones of both backends.

namespace gpu {
template <class T> __device__ __forceinline__ bool operator<(complex<T> a, complex<T> b) {
  return a.re < b.re || (a.re == b.re && a.im < b.im);
}
template <class T> __device__ __forceinline__ bool operator>(complex<T> a, complex<T> b) { return b < a; }
template <class T> __device__ __forceinline__ bool operator<=(complex<T> a, complex<T> b) {
  return a.re < b.re || (a.re == b.re && a.im <= b.im);
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
template <class T> __device__ __forceinline__ gpu::complex<T> sign(gpu::complex<T> a) {   // NumPy 2: z / |z|
  T m = gpu::abs(a);
  if (m == 0) return gpu::complex<T>(0, 0);
  return m != m ? gpu::complex<T>(m, m) : gpu::complex<T>(a.re / m, a.im / m);
}
template <class T> __device__ __forceinline__ gpu::complex<T> round(gpu::complex<T> a) {
  return gpu::complex<T>(round(a.re), round(a.im));
}

// functions of z = x + iy, by their textbook formulas over the real functions
template <class T> struct cx_ops {
  typedef gpu::complex<T> C;
  typedef T R;
  __device__ static C scaled(C z, T f) { return C(z.re * f, z.im * f); }
  __device__ static C exp(C z) { T e = ew::exp(z.re); return C(e * ew::cos(z.im), e * ew::sin(z.im)); }
  __device__ static C log(C z) { return C(far(z) ? log_abs(z) : ew::log(gpu::abs(z)), ew::atan2(z.im, z.re)); }
  __device__ static C sqrt(C z) {
    if (z.re == 0 && z.im == 0) return C(0, z.im);
    T t = ew::sqrt(((z.re < 0 ? -z.re : z.re) + gpu::abs(z)) / 2);
    if (z.re >= 0) return C(t, z.im / (2 * t));
    bool below = z.im < 0 || (z.im == 0 && 1 / z.im < 0);   // -0 too: sqrt(-4 - 0i) is -2i, as NumPy's
    return C((below ? -z.im : z.im) / (2 * t), below ? -t : t);
  }
  __device__ static C sin(C z) { return C(ew::sin(z.re) * ew::cosh(z.im), ew::cos(z.re) * ew::sinh(z.im)); }
  __device__ static C cos(C z) { return C(ew::cos(z.re) * ew::cosh(z.im), -(ew::sin(z.re) * ew::sinh(z.im))); }
  __device__ static C sinh(C z) { return C(ew::sinh(z.re) * ew::cos(z.im), ew::cosh(z.re) * ew::sin(z.im)); }
  __device__ static C cosh(C z) { return C(ew::cosh(z.re) * ew::cos(z.im), ew::sinh(z.re) * ew::sin(z.im)); }
  // log(1 + z) without losing a small z: log|1 + z| as log1p(2x + x^2 + y^2) / 2
  __device__ static C log1p(C z) {
    return C(ew::log1p(z.re * (2 + z.re) + z.im * z.im) / 2, ew::atan2(z.im, 1 + z.re));
  }
  // asinh(z) = log(z + sqrt(z^2 + 1)), from the right half plane (asinh(-z) = -asinh(z)),
  // where the sum does not cancel; z^2 + 1 keeps the sign of a zero imaginary part (2xy),
  // which says which side of the cut -0 + 3i is on.
  // As log1p(z + z^2 / (s + 1)), s = sqrt(z^2 + 1), so a small z keeps its digits.
  // Past far(), where z^2 would overflow (1e30i of complex64), asinh(z) is log(2z) to
  // the last digit (the next term is 1 / (4 z^2)); log|z| is taken without squaring.
  __device__ static bool far(C z) {
    T lim = sizeof(T) == 4 ? (T)1e4 : (T)1e9, ax = z.re < 0 ? -z.re : z.re, ay = z.im < 0 ? -z.im : z.im;
    return ax > lim || ay > lim;
  }
  __device__ static T log_abs(C z) {
    T ax = z.re < 0 ? -z.re : z.re, ay = z.im < 0 ? -z.im : z.im, big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
    if (ew::isinf(big)) return big;
    if (big == 0 || big != big || small != small) return ew::log(gpu::abs(z));
    T r = small / big;
    return ew::log(big) + ew::log1p(r * r) / 2;
  }
  __device__ static C asinh(C z) {
    if (z.im == 0) return C(ew::asinh(z.re), z.im);   // a real z: the real function, its zero kept
    if (z.re < 0 || (z.re == 0 && 1 / z.re < 0)) return -asinh(-z);   // -0 too: the sum would cancel
    if (z.re == 0 && z.im >= -1 && z.im <= 1) return C(z.re, ew::asin(z.im));   // i asin(y) exactly
    if (far(z)) return C(log_abs(z) + (T)0.6931471805599453, ew::atan2(z.im, z.re));
    C z2(z.re * z.re - z.im * z.im, 2 * z.re * z.im), s = sqrt(C(z2.re + 1, z2.im));
    return log1p(z + z2 / C(s.re + 1, s.im));
  }
  // log(z + sqrt(z + 1) sqrt(z - 1)), z + 1 made by parts: C(1) would add +0 to a -0
  // imaginary part, and 3 - 0i would land on the cut's other side
  __device__ static C acosh(C z) {
    return log(z + sqrt(C(z.re + 1, z.im)) * sqrt(C(z.re - 1, z.im)));
  }
  // Past far(), where 1 + z and z^2 overflow, atanh(z) = atanh(1 / z) +- i pi / 2 is
  // 1 / z +- i pi / 2 to the last digit; 1 / z by parts scaled by the larger
  __device__ static C atanh_far(C z) {
    T ax = z.re < 0 ? -z.re : z.re, ay = z.im < 0 ? -z.im : z.im, s = ax > ay ? ax : ay;
    T half_pi = ew::copysign_((T)1.5707963267948966, z.im);
    if (z.im != z.im) return C(ew::copysign_((T)0, z.re), z.im);
    if (ew::isinf(s)) return C(ew::copysign_((T)0, z.re), half_pi);
    T x = z.re / s, y = z.im / s, m = x * x + y * y;   // in [1, 2]: no overflow
    return C(x / m / s, half_pi - y / m / s);
  }
  __device__ static C atanh(C z) {   // (log(1 + z) - log(1 - z)) / 2: each side of the cuts
    if (z.im == 0 && z.re >= -1 && z.re <= 1) return C(ew::atanh(z.re), z.im);
    if (far(z)) return atanh_far(z);
    // log|1 + z| - log|1 - z| as one log1p, and arg((1 + z) / (1 - z)): the difference of
    // the two logs cancelled where |z| is large
    T x = z.re, y = z.im, a = 1 - x;
    return C(ew::log1p(4 * x / (a * a + y * y)) / 4, ew::atan2(2 * y, a * (1 + x) - y * y) / 2);
  }
  // iz as C99 takes it, (-y, x), so that the cuts' signed zeros carry over
  __device__ static C times_i(C z) { return C(-z.im, z.re); }
  __device__ static C asin(C z) {   // -i asinh(iz)
    if (z.im == 0 && z.re >= -1 && z.re <= 1) return C(ew::asin(z.re), z.im);
    C w = asinh(times_i(z));
    return C(w.im, -w.re);
  }
  __device__ static C atan(C z) {   // -i atanh(iz)
    if (z.im == 0) return C(ew::atan(z.re), z.im);
    C w = atanh(times_i(z));
    return C(w.im, -w.re);
  }
};

#define EW_CX1(NAME, EXPR) \
  __device__ __forceinline__ gpu::complex64 NAME(gpu::complex64 z) { typedef cx_ops<float> O; return EXPR; } \
  __device__ __forceinline__ gpu::complex128 NAME(gpu::complex128 z) { typedef cx_ops<double> O; return EXPR; }
EW_CX1(exp, O::exp(z)) EW_CX1(log, O::log(z)) EW_CX1(sqrt, O::sqrt(z))
EW_CX1(sin, O::sin(z)) EW_CX1(cos, O::cos(z)) EW_CX1(tan, O::sin(z) / O::cos(z))
EW_CX1(sinh, O::sinh(z)) EW_CX1(cosh, O::cosh(z)) EW_CX1(tanh, O::sinh(z) / O::cosh(z))
EW_CX1(exp2, O::exp(z * typename O::C(0.6931471805599453)))
// log2 and log10 scale each part of log(z), as NumPy's: dividing by a complex ln 2 made
// -inf * 0 = NaN of log(0)'s imaginary part
EW_CX1(log2, O::scaled(O::log(z), (typename O::R)1.4426950408889634))
EW_CX1(log10, O::scaled(O::log(z), (typename O::R)0.4342944819032518))
EW_CX1(log1p, O::log(typename O::C(1) + z)) EW_CX1(expm1, O::exp(z) - typename O::C(1))
EW_CX1(asin, O::asin(z)) EW_CX1(acos, typename O::C(1.5707963267948966) - O::asin(z)) EW_CX1(atan, O::atan(z))
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

// a^b = exp(b log a), as NumPy's: a^0 is 1; 0^b is 0 for a positive real b and nan+nanj
// for any other (ill-defined with four complex zeros), before the integer powers (so 0^-1
// is not 1 / 0, inf+nanj)
template <class T> __device__ __forceinline__ gpu::complex<T> power(gpu::complex<T> a, gpu::complex<T> b) {
  typedef gpu::complex<T> C;
  if (b.re == 0 && b.im == 0) return C(1, 0);
  if (a.re == 0 && a.im == 0) {
    T nan = a.re / a.re;   // 0 / 0
    return b.re > 0 && b.im == 0 ? C(0, 0) : C(nan, nan);
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
