// special.cuh: gpu.special's functions (scipy.special's), put after ew.cuh in the kernels
// that call them (lua/codegen.lua adds it where a body names sp::). Each is computed in
// double and a float32 one rounded from it, in plain CUDA C that the CPU backend's C++
// compiler reads too, so both backends give the same bits (but for the C library's erf,
// erfc, lgamma, tgamma and Bessel J and Y, which are each backend's own). The values at
// poles, infinities and outside a domain are scipy 1.11's, where README says otherwise.

#ifndef GPUHOST_SPECIAL_CUH   // once, where gpu.vectorize's body (gpu.jit's C) has it too
#define GPUHOST_SPECIAL_CUH
namespace sp {

__device__ inline double inf() { return HUGE_VAL; }
__device__ inline double nan() { double i = HUGE_VAL; return i - i; }
__device__ inline bool isnan(double x) { return x != x; }
__device__ inline double fabs(double x) { return x < 0 ? -x : x; }
const double PI = 3.141592653589793, SQRT_PI = 1.7724538509055160, LOG_2PI = 1.8378770664093453;
const double SQRT1_2 = 0.7071067811865476, SQRT1_2_LO = -4.833646656726457e-17;
const double EULER = 0.5772156649015329;

// sin(pi x) and cos(pi x), reduced exactly first (r = x - n, |r| <= 1/2)
__device__ inline double sinpi(double x) {
  if (fabs(x) >= 4503599627370496.0) return 0 * x;   // an integer (or inf: NaN)
  double n = ::rint(x), r = x - n, s = ::sin(PI * r);
  return ::fmod(n, 2.0) != 0 ? -s : s;
}
__device__ inline double cospi(double x) { return sinpi(fabs(x) + 0.5); }

// e^(x^2) to a double's precision: x^2 split into a double and its rounding error
__device__ inline double exp_square(double x) {
  double h = x * x, l = ::fma(x, x, -h);
  return ::exp(h) * (1 + l);
}
// log(1 + u) - u, without cancellation for small u
__device__ inline double log1pmx(double u) {
  if (fabs(u) > 0.25) return ::log1p(u) - u;
  double p = u, s = 0;
  for (int k = 2; k < 60; k++) {
    p *= -u;
    double t = p / k;
    s += t;
    if (fabs(t) <= 1e-17 * fabs(s)) break;
  }
  return s;
}
// Stirling's correction: lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2), x >= 10
__device__ inline double stirling(double x) {
  double r = 1 / x, q = r * r;
  return r * (1.0 / 12 - q * (1.0 / 360 - q * (1.0 / 1260 - q * (1.0 / 1680 - q * (1.0 / 1188 - q * (691.0 / 360360))))));
}
// lgamma(1 + a) for small |a|: -euler a + sum (-1)^k zeta(k) a^k / k
__device__ inline double lgamma1p(double a) {
  if (fabs(a) >= 0.1) return ::lgamma(1 + a);
  const double z[] = {1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337,
                      1.0173430619844492, 1.008349277381923, 1.0040773561979444, 1.0020083928260821,
                      1.000994575127818, 1.0004941886041194, 1.000246086553308, 1.0001227133475785,
                      1.0000612481350588, 1.000030588236307, 1.0000152822594086, 1.0000076371976379,
                      1.000003817293265, 1.0000019082127165};
  double s = 0, p = -a;
  for (int k = 2; k < 20; k++) {
    p *= -a;
    s += z[k - 2] * p / k;
  }
  return s - EULER * a;
}

// ---- error functions ----
// erfcx(x) = e^(x^2) erfc(x); past 12 its asymptotic series (terms fall below 1e-17)
__device__ inline double erfcx(double x) {
  if (isnan(x)) return x;
  if (x < 0) return x < -26.7 ? inf() : 2 * exp_square(x) - erfcx(-x);
  if (x < 12) return exp_square(x) * ::erfc(x);
  if (x > 1e8) return 1 / (x * SQRT_PI);
  double r = 1 / (2 * x * x), t = 1, s = 1;
  for (int k = 1; k < 30; k++) {
    t *= -(2 * k - 1) * r;
    s += t;
    if (fabs(t) < 1e-17) break;
  }
  return s / (x * SQRT_PI);
}
// the root of f(x) = erf(x) - y (or erfc(x) - y) from x by Halley's steps: f'' = -2x f'
__device__ inline double erf_root(double x, double y, bool complement) {
  for (int i = 0; i < 40; i++) {
    double f = (complement ? ::erfc(x) : ::erf(x)) - y;
    double d = (complement ? -2 : 2) / SQRT_PI * ::exp(-x * x);
    double dx = f / (d + x * f);
    x -= dx;
    if (fabs(dx) <= 1e-16 * fabs(x)) break;
  }
  return x;
}
// erfc(x) = q for 0 < q <= 1 (x >= 0)
__device__ inline double erfcinv_upper(double q) {
  if (q > 0.5) return erf_root((1 - q) * (SQRT_PI / 2), 1 - q, false);   // 1 - q exact
  double t = -::log(q);
  double x = ::sqrt(t - 0.5 * ::log(PI * t));
  return erf_root(x, q, true);
}
__device__ inline double erfinv(double y) {
  if (!(fabs(y) <= 1)) return nan();
  if (fabs(y) == 1) return y * inf();
  if (fabs(y) <= 0.5) return y == 0 ? y : erf_root(y * (SQRT_PI / 2), y, false);
  double x = erfcinv_upper(1 - fabs(y));   // exact: |y| >= 1/2
  return y < 0 ? -x : x;
}
__device__ inline double erfcinv(double q) {
  if (!(q >= 0 && q <= 2)) return nan();
  if (q == 0) return inf();
  if (q == 2) return -inf();
  if (q == 1) return 0;
  return q < 1 ? erfcinv_upper(q) : -erfcinv_upper(2 - q);   // exact for q >= 1
}
// the normal distribution's CDF: erfc of -x / sqrt(2), whose rounding error d the
// derivative -2z e^(-z^2) / sqrt(pi) corrects (to a few ulp far out in the tail)
__device__ inline double ndtr(double x) {
  if (isnan(x)) return x;
  double z = -x * SQRT1_2, d = -(::fma(x, SQRT1_2, z) + x * SQRT1_2_LO);
  double e = ::erfc(z);
  if (fabs(z) < 26) e -= d * 2 / SQRT_PI * ::exp(-z * z);
  return 0.5 * e;
}
__device__ inline double ndtri(double p) {
  if (!(p >= 0 && p <= 1)) return nan();
  if (p <= 0.5) return -1.4142135623730951 * erfcinv(2 * p);
  return 1.4142135623730951 * erfcinv(2 * (1 - p));   // 1 - p exact
}
__device__ inline double log_ndtr(double x) {
  if (isnan(x)) return x;
  if (x > 0) return ::log1p(-ndtr(-x));
  if (x == -inf()) return x;
  double z = -x * SQRT1_2, d = -(::fma(x, SQRT1_2, z) + x * SQRT1_2_LO);
  // log(erfc(z) / 2) = log(erfcx(z) / 2) - z^2, z^2 split exactly; d as in ndtr
  double h = z * z, l = ::fma(z, z, -h);
  double r = ::log(erfcx(z) / 2) - h - l;
  return r - d * (2 / SQRT_PI / erfcx(z) - 2 * z);
}

// ---- gamma and its relatives ----
__device__ inline bool nonpositive_integer(double x) { return x <= 0 && x == ::floor(x); }
__device__ inline double gamma(double x) {
  if (x == -inf()) return nan();   // scipy's -inf has no reason
  if (nonpositive_integer(x)) return inf();   // scipy's (the C library's NaN, and -inf at -0)
  return ::tgamma(x);
}
// log|gamma(x)|: below -2 by the reflection log(pi / |x sin(pi x)|) - lgamma(-x), which
// keeps its digits where CUDA's lgamma documents large errors (-11 < x < -2.26)
__device__ inline double gammaln(double x) {
  if (x < -2 && x > -4503599627370496.0 && x != ::floor(x))
    return ::log(PI / fabs(x * sinpi(x))) - ::lgamma(-x);
  return ::lgamma(x);
}
__device__ inline double loggamma(double x) {
  if (x < 0 || isnan(x)) return nan();   // scipy's real loggamma
  return ::lgamma(x);
}
// digamma: psi(1 - x) - pi cot(pi x) below 0; near its positive root x0 a Taylor series
// there (coefficients (-1)^(n+1) zeta(n + 1, x0)); else up to 10 by psi(x + 1) - 1/x, and
// the asymptotic series
__device__ inline double digamma(double x) {
  if (isnan(x)) return x;
  if (x == 0) return 1 / x < 0 ? inf() : -inf();
  if (x < 0) {
    if (x == ::floor(x)) return nan();
    return digamma(1 - x) - PI * cospi(x) / sinpi(x);
  }
  if (x == inf()) return x;
  const double X0 = 1.4616321449683622, X0_LO = 9.549995429965697e-17;
  if (fabs(x - X0) < 0.2) {
    const double c[] = {0.9676722454476214, -0.44276316898359214, 0.2584997609556512,
                        -0.16394270544240658, 0.10782405069126239, -0.07219956125645476,
                        0.048804288164143145, -0.033161126474847376, 0.022597648232218125,
                        -0.015424765904948968, 0.010538791616612182, -0.007204534386356875,
                        0.004926781395729858, -0.0033698016554393317, 0.00230512632673493,
                        -0.0015769367714301987, 0.0010788252019162975, -0.000738070938996006,
                        0.0005049532658346026};
    double u = (x - X0) - X0_LO, s = 0;
    for (int k = 18; k >= 0; k--) s = (s + c[k]) * u;
    return s;
  }
  double shift = 0;
  while (x < 10) { shift -= 1 / x; x += 1; }
  double q = 1 / (x * x);
  double t = q * (1.0 / 12 - q * (1.0 / 120 - q * (1.0 / 252 - q * (1.0 / 240 - q * (1.0 / 132 - q * (691.0 / 32760 - q / 12))))));
  return shift + (::log(x) - 0.5 / x - t);
}

// sum (q + k)^-s: the first terms, then Euler and Maclaurin's formula from a = q + n >= 9
// on (for s < 1 too, where it continues the sum; not at s = 1)
__device__ inline double zeta_sum(double s, double q) {
  double sum = 0, a = q;
  for (int k = 0; k < 9 || a < 9; k++) {
    double t = ::pow(a, -s);
    sum += t;
    a += 1;
    if (fabs(t) <= 1e-18 * fabs(sum) && a > 0 && s > 1) return sum;
  }
  const double c[] = {0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05,
                      -8.267195767195768e-07, 2.08767569878681e-08, -5.284190138687493e-10,
                      1.3382536530684679e-11, -3.3896802963225827e-13, 8.586062056277845e-15,
                      -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19};
  double p = ::pow(a, -s), tail = a * p / (s - 1) + 0.5 * p, f = s * p / a, prev = inf();
  for (int j = 0; j < 12; j++) {   // f = s (s + 1) ... (s + 2j) a^(-s - 2j - 1)
    double t = c[j] * f;
    if (fabs(t) > prev) break;   // the asymptotic terms have begun to grow
    tail += t;
    prev = fabs(t);
    if (prev <= 1e-17 * fabs(sum + tail)) break;
    f *= (s + 2 * j + 1) * (s + 2 * j + 2) / (a * a);
  }
  return sum + tail;
}
// Hurwitz's zeta(s, q), s > 1 (q < 0 only for integer s), as scipy's
__device__ inline double hurwitz(double s, double q) {
  if (isnan(s) || isnan(q)) return nan();
  if (s == 1) return inf();
  if (s < 1) return nan();
  if (q <= 0) {
    if (q == ::floor(q)) return inf();
    if (s != ::floor(s)) return nan();
  }
  if (q == inf()) return 0;
  if (s == inf()) return q == 1 ? 1 : q < 1 ? inf() : 0;
  return zeta_sum(s, q);
}
// Riemann's zeta(s); below 0 by the functional equation
// zeta(s) = 2^s pi^(s - 1) sin(pi s / 2) gamma(1 - s) zeta(1 - s)
__device__ inline double riemann(double s) {
  if (isnan(s)) return s;
  if (s == inf()) return 1;
  if (s == -inf()) return nan();
  if (s == 1) return inf();
  if (s >= 0) return zeta_sum(s, 1);
  double h = s / 2;
  if (h == ::floor(h)) return 0;   // the trivial zeros
  double z = zeta_sum(1 - s, 1), sn = sinpi(h);
  if (1 - s < 170) return ::pow(2.0, s) * ::pow(PI, s - 1) * sn * ::tgamma(1 - s) * z;
  // past gamma's range, Legendre's duplication gamma(1 - s) = gamma((1 - s) / 2)
  // gamma(1 - s / 2) 2^-s / sqrt(pi), whose 2^-s cancels (in logs 1e-13 would be lost)
  if (s < -400) return sn * z < 0 ? -inf() : inf();   // past the largest double
  return ::tgamma((1 - s) / 2) * ::pow(PI, s - 1.5) * ::tgamma(1 - s / 2) * sn * z;
}

// polygamma(n, x) = (-1)^(n + 1) n! zeta(n + 1, x), digamma for n = 0; n a whole number
__device__ inline double polygamma(double n, double x) {
  if (isnan(n) || isnan(x) || n < 0 || n != ::floor(n)) return nan();
  if (n == 0) return digamma(x);
  double z = hurwitz(n + 1, x), f = ::tgamma(n + 1);
  return ::fmod(n, 2.0) == 0 ? -f * z : f * z;
}

// log|B(a, b)| = log|gamma(a) gamma(b) / gamma(a + b)|; for positive a <= b with b >= 10,
// lgamma(b) - lgamma(a + b) by Stirling's formula, whose large terms cancel exactly there
__device__ inline double betaln(double a, double b) {
  if (isnan(a) || isnan(b)) return nan();
  if (a > b) { double t = a; a = b; b = t; }
  if (nonpositive_integer(a) || nonpositive_integer(b)) return inf();
  if (a >= 10) {   // Stirling's formula for all three, its large terms gathered
    double c = a + b;
    return 0.5 * LOG_2PI - 0.5 * ::log(c) + (a - 0.5) * ::log(a / c) - (b - 0.5) * ::log1p(a / b) +
           stirling(a) + stirling(b) - stirling(c);
  }
  if (a > 0 && b >= 10) {
    if (b == inf()) return -inf();
    double d = -(b - 0.5) * ::log1p(a / b) - a * ::log(a + b) + a + stirling(b) - stirling(a + b);
    return ::lgamma(a) + d;
  }
  return ::lgamma(a) + ::lgamma(b) - ::lgamma(a + b);
}
__device__ inline double beta(double a, double b) {
  if (isnan(a) || isnan(b)) return nan();
  if (nonpositive_integer(a) || nonpositive_integer(b)) return inf();
  double c = a + b;
  if (fabs(a) < 170 && fabs(b) < 170 && fabs(c) < 170) {
    if (nonpositive_integer(c)) return 0;
    if (a > 0 && b > 0) {   // the larger gamma first divided by gamma(a + b): no overflow
      if (a < b) { double t = a; a = b; b = t; }
      return ::tgamma(a) / ::tgamma(c) * ::tgamma(b);
    }
    return ::tgamma(a) * ::tgamma(b) / ::tgamma(c);
  }
  double r = ::exp(betaln(a, b));
  // the sign of gamma(a) gamma(b) / gamma(a + b): gamma(x) < 0 where floor(x) is odd and < 0
  int neg = (a < 0 && ::fmod(::floor(a), 2.0) != 0) + (b < 0 && ::fmod(::floor(b), 2.0) != 0) +
            (c < 0 && ::fmod(::floor(c), 2.0) != 0);
  return neg & 1 ? -r : r;
}

// x^a e^-x / gamma(a), the incomplete gamma functions' factor; from a = 10 on
// sqrt(a / 2pi) e^(a log1pmx((x - a) / a) - stirling(a)), free of cancellation near x = a
__device__ inline double gamma_factor(double a, double x) {
  if (a >= 10) {
    double u = (x - a) / a, e = fabs(u) < 0.5 ? a * log1pmx(u) : a * ::log(x / a) + (a - x);
    return ::sqrt(a / (2 * PI)) * ::exp(e - stirling(a));
  }
  if (x < 700 && a * ::log(x) < 700) return ::pow(x, a) * ::exp(-x) / ::tgamma(a);
  return ::exp(a * ::log(x) - x - ::lgamma(a));
}
// the regularized incomplete gamma functions P(a, x) (upper: Q = 1 - P): P by its series
// where x <= 1 or x <= a, else Q by its continued fraction (Lentz's evaluation); Q of a
// small a and x <= 1 as 1 - x^a / gamma(a + 1) and a series, without P's cancellation
__device__ inline double gammainc(double a, double x, bool upper) {
  if (isnan(a) || isnan(x) || a < 0 || x < 0) return nan();
  if (a == 0) return x > 0 ? (upper ? 0 : 1) : nan();
  if (x == 0) return upper ? 1 : 0;
  if (x == inf()) return a == inf() ? nan() : upper ? 0 : 1;
  if (a == inf()) return upper ? 1 : 0;
  if (x > 1 && x > a) {
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
      double an = -i * (i - a);
      b += 2;
      d = an * d + b;
      if (fabs(d) < tiny) d = tiny;
      c = b + an / c;
      if (fabs(c) < tiny) c = tiny;
      d = 1 / d;
      double del = d * c;
      h *= del;
      if (fabs(del - 1) <= 1e-16) break;
    }
    double q = gamma_factor(a, x) * h;
    return upper ? q : 1 - q;
  }
  if (upper && a < 0.5 && x <= 1) {
    double s = 0, t = 1;   // a sum_{n >= 1} (-x)^n / (n! (a + n))
    for (int n = 1; n < 40; n++) {
      t *= -x / n;
      s += t / (a + n);
      if (fabs(t) < 1e-17 * fabs(s)) break;
    }
    double l = a * ::log(x) - lgamma1p(a), g = ::exp(l);
    return -::expm1(l) - g * a * s;
  }
  double sum = 1, t = 1;
  for (int n = 1; n < 100000; n++) {
    t *= x / (a + n);
    sum += t;
    if (t <= 1e-17 * sum) break;
  }
  double p = gamma_factor(a, x) / a * sum;
  return upper ? 1 - p : p;
}

// x^a (1 - x)^b / (a B(a, b)) times the continued fraction of I_x(a, b) (Lentz's
// evaluation), which converges fast below x = (a + 1) / (a + b + 2), slower past it
__device__ inline double betainc_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m < 100000; m++) {
    double m2 = 2.0 * m;
    double e = m * (b - m) * x / ((a + m2 - 1) * (a + m2));   // the even step
    d = 1 + e * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + e / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    e = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));   // the odd step
    d = 1 + e * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + e / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1) <= 1e-16) break;
  }
  return ::exp(a * ::log(x) + b * ::log1p(-x) - betaln(a, b)) / a * h;
}
// the regularized incomplete beta function I_x(a, b): its continued fraction below
// x = (a + 1) / (a + b + 2), past it 1 - I_(1 - x)(b, a), unless that is near 1 (then
// 1 - it would lose digits: the fraction of I_x(a, b) itself, which still converges)
__device__ inline double betainc(double a, double b, double x) {
  if (isnan(a) || isnan(b) || isnan(x) || !(a > 0) || !(b > 0) || a == inf() || b == inf() ||
      x < 0 || x > 1) return nan();
  if (x == 0 || x == 1) return x;
  if (x <= (a + 1) / (a + b + 2)) return betainc_cf(a, b, x);
  double r = betainc_cf(b, a, 1 - x);
  return r > 0.9 ? betainc_cf(a, b, x) : 1 - r;
}

// ---- logistic, entropies, losses ----
__device__ inline double expit(double x) {
  if (x >= 0) return 1 / (1 + ::exp(-x));
  double e = ::exp(x);
  return e / (1 + e);
}
__device__ inline double log_expit(double x) {
  return x >= 0 ? -::log1p(::exp(-x)) : x - ::log1p(::exp(x));
}
// log(p / (1 - p)); 2 atanh(2p - 1) in the middle, where 2p - 1 is exact
__device__ inline double logit(double p) {
  if (!(p >= 0 && p <= 1)) return nan();
  if (p > 0.25 && p < 0.75) return 2 * ::atanh(2 * p - 1);
  return ::log(p / (1 - p));
}
__device__ inline double xlogy(double x, double y) {
  if (x == 0 && !isnan(y)) return 0;
  return x * ::log(y);
}
__device__ inline double xlog1py(double x, double y) {
  if (x == 0 && !isnan(y)) return 0;
  return x * ::log1p(y);
}
__device__ inline double entr(double x) {
  if (isnan(x)) return x;
  if (x > 0) return -x * ::log(x);
  return x == 0 ? 0 : -inf();
}
__device__ inline double rel_entr(double x, double y) {
  if (isnan(x) || isnan(y)) return nan();
  if (x > 0 && y > 0) return x * ::log(x / y);
  return x == 0 && y >= 0 ? 0 : inf();
}
__device__ inline double kl_div(double x, double y) {
  if (isnan(x) || isnan(y)) return nan();
  if (x > 0 && y > 0) return x * ::log(x / y) - x + y;
  return x == 0 && y >= 0 ? y : inf();
}
__device__ inline double huber(double delta, double r) {
  if (delta < 0) return inf();
  if (isnan(delta) || isnan(r)) return nan();
  double m = fabs(r);
  return m <= delta ? r * r / 2 : delta * (m - delta / 2);
}
// delta^2 (sqrt(1 + (r/delta)^2) - 1) = r^2 / (sqrt(1 + (r/delta)^2) + 1), no cancellation
__device__ inline double pseudo_huber(double delta, double r) {
  if (delta < 0) return inf();
  if (isnan(delta) || isnan(r)) return nan();
  if (delta == 0 || r == 0) return 0;
  double u = r / delta;
  if (fabs(u) > 1e150) return delta * (fabs(r) - delta);
  return r * r / (::sqrt(1 + u * u) + 1);
}

// ---- exponential integrals ----
// E_n(x) = int_1^inf e^(-xt) / t^n dt, n a whole number (scipy truncates one that is not):
// the continued fraction (Lentz) past x = 1, else the series with psi(n)
__device__ inline double expn(double nf, double x) {
  if (isnan(nf) || isnan(x) || nf < 0 || x < 0) return nan();
  double n = ::trunc(nf);
  if (x == 0) return n <= 1 ? inf() : 1 / (n - 1);
  if (x == inf()) return 0;
  if (n == 0) return ::exp(-x) / x;
  if (x > 1) {
    const double tiny = 1e-300;
    double b = x + n, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 10000; i++) {
      double an = -i * (n - 1 + i);
      b += 2;
      d = 1 / (an * d + b);
      c = b + an / c;
      if (fabs(c) < tiny) c = tiny;
      double del = c * d;
      h *= del;
      if (fabs(del - 1) <= 1e-16) break;
    }
    return h * ::exp(-x);
  }
  int m = (int)(n < 1e6 ? n : 1e6);
  double r = m != 1 ? 1.0 / (m - 1) : -::log(x) - EULER, f = 1;
  for (int i = 1; i < 1000; i++) {
    f *= -x / i;
    double del;
    if (i != m - 1) {
      del = -f / (i - m + 1);
    } else {
      double psi = -EULER;
      for (int k = 1; k < m; k++) psi += 1.0 / k;
      del = f * (-::log(x) + psi);
    }
    r += del;
    if (fabs(del) < fabs(r) * 1e-17) break;
  }
  return r;
}
__device__ inline double exp1(double x) { return x < 0 ? nan() : expn(1, x); }

// ---- Bessel functions of order 0 and 1 ----
// I0 and I1: the power series up to 20 (positive terms), past it the asymptotic series
// e^x / sqrt(2 pi x) sum_k prod_{j <= k} -(4 nu^2 - (2j - 1)^2) / (8 j x); scaled: times e^-x
__device__ inline double bessel_i(double x, int nu, bool scaled) {
  if (isnan(x)) return x;
  double m = fabs(x), r;
  if (m == inf()) {
    r = scaled ? 0 : inf();
  } else if (m <= 20) {
    double q = m * m / 4, t = nu ? m / 2 : 1, s = t;
    for (int k = 1; k < 100 && t > s * 1e-17; k++) {
      t *= q / ((double)k * (k + nu));
      s += t;
    }
    r = scaled ? s * ::exp(-m) : s;
  } else {
    double t = 1, s = 1, mu = 4.0 * nu * nu;
    for (int k = 1; k < 60 && fabs(t) > fabs(s) * 1e-17; k++) {
      t *= -(mu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k * m);
      s += t;
    }
    s /= ::sqrt(2 * PI * m);
    r = scaled ? s : (m < 709 ? ::exp(m) * s : ::exp(m / 2) * s * ::exp(m / 2));
  }
  return nu && x < 0 ? -r : r;
}
// K0 and K1: up to 1 their series with I0 and I1 (Abramowitz and Stegun 9.6.13, 9.6.11);
// past it Steed's continued fraction for K0 and K1 together (Temme's method)
__device__ inline double bessel_k(double x, int nu, bool scaled) {
  if (isnan(x)) return x;
  if (x < 0) return nan();
  if (x == 0) return inf();
  if (x == inf()) return 0;
  if (x <= 1) {
    double q = x * x / 4, l = ::log(x / 2), r;
    if (nu == 0) {
      double t = 1, h = 0, s = 0;
      for (int k = 1; k < 30; k++) {
        t *= q / ((double)k * k);
        h += 1.0 / k;
        s += t * h;
        if (t * h < 1e-17 * fabs(s)) break;
      }
      r = s - (l + EULER) * bessel_i(x, 0, false);
    } else {
      double t = 1, p = -2 * EULER + 1, s = p;   // psi(k + 1) + psi(k + 2)
      for (int k = 1; k < 30; k++) {
        t *= q / ((double)k * (k + 1));
        p += 1.0 / k + 1.0 / (k + 1);
        s += t * p;
        if (fabs(t * p) < 1e-17 * fabs(s)) break;
      }
      r = 1 / x + l * bessel_i(x, 1, false) - x / 4 * s;
    }
    return scaled ? r * ::exp(x) : r;
  }
  double b = 2 * (1 + x), d = 1 / b, h = d, delh = d, q1 = 0, q2 = 1, a1 = 0.25;
  double q = a1, c = a1, a = -a1, s = 1 + q * delh;
  for (int i = 2; i < 10000; i++) {
    a -= 2 * (i - 1);
    c = -a * c / i;
    double qn = (q1 - b * q2) / a;
    q1 = q2;
    q2 = qn;
    q += c * qn;
    b += 2;
    d = 1 / (b + a * d);
    delh = (b * d - 1) * delh;
    h += delh;
    double dels = q * delh;
    s += dels;
    if (fabs(dels / s) < 1e-17) break;
  }
  double k0 = ::sqrt(PI / (2 * x)) / s;   // times e^-x
  double r = nu == 0 ? k0 : k0 * (x + 0.5 - a1 * h) / x;
  return scaled ? r : r * ::exp(-x);
}

__device__ inline double gammainc_lower(double a, double x) { return gammainc(a, x, false); }
__device__ inline double gammainc_upper(double a, double x) { return gammainc(a, x, true); }
__device__ inline double bessel_i0(double x) { return bessel_i(x, 0, false); }
__device__ inline double bessel_i0e(double x) { return bessel_i(x, 0, true); }
__device__ inline double bessel_i1(double x) { return bessel_i(x, 1, false); }
__device__ inline double bessel_i1e(double x) { return bessel_i(x, 1, true); }
__device__ inline double bessel_k0(double x) { return bessel_k(x, 0, false); }
__device__ inline double bessel_k0e(double x) { return bessel_k(x, 0, true); }
__device__ inline double bessel_k1(double x) { return bessel_k(x, 1, false); }
__device__ inline double bessel_k1e(double x) { return bessel_k(x, 1, true); }

// ---- each function at a type: float32 (and float16's float) through double ----
// NAME(x) (and NAME(x, y)) of float, double: CORE of the doubles, rounded to the type
#define SP_1(NAME, CORE) template <class T> __device__ inline T NAME(T x) { return (T)CORE((double)x); }
#define SP_2(NAME, CORE) template <class T> __device__ inline T NAME(T x, T y) { return (T)CORE((double)x, (double)y); }
SP_1(erfcx, erfcx) SP_1(erfinv, erfinv) SP_1(erfcinv, erfcinv)
SP_1(ndtr, ndtr) SP_1(ndtri, ndtri) SP_1(log_ndtr, log_ndtr)
SP_1(gamma, gamma) SP_1(gammaln, gammaln) SP_1(loggamma, loggamma) SP_1(digamma, digamma) SP_2(polygamma, polygamma)
SP_2(beta, beta) SP_2(betaln, betaln) SP_2(gammainc, gammainc_lower) SP_2(gammaincc, gammainc_upper)
SP_1(expit, expit) SP_1(logit, logit) SP_1(log_expit, log_expit)
SP_2(xlogy, xlogy) SP_2(xlog1py, xlog1py) SP_1(entr, entr) SP_2(rel_entr, rel_entr) SP_2(kl_div, kl_div)
SP_2(huber, huber) SP_2(pseudo_huber, pseudo_huber) SP_1(exp1, exp1) SP_2(expn, expn)
SP_1(i0, bessel_i0) SP_1(i0e, bessel_i0e) SP_1(i1, bessel_i1) SP_1(i1e, bessel_i1e)
SP_1(k0, bessel_k0) SP_1(k0e, bessel_k0e) SP_1(k1, bessel_k1) SP_1(k1e, bessel_k1e)
SP_1(j0, ::j0) SP_1(j1, ::j1) SP_1(y0, ::y0) SP_1(y1, ::y1)
SP_2(zeta, hurwitz) SP_1(riemann_zeta, riemann)
template <class T> __device__ inline T betainc(T a, T b, T x) { return (T)betainc((double)a, (double)b, (double)x); }
#undef SP_1
#undef SP_2

}  // namespace sp
#endif
