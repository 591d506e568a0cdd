// cpu_half.h: what cuda_fp16.h and cuda_bf16.h declare for device code only, for the CPU
// backend. The toolkit's headers give host code the types, the conversions and the
// arithmetic; host/cpu/ puts stand-ins for both headers first on the include path, which
// include the toolkit's and then this. Each function here computes in float and rounds to
// the nearest half or bfloat16, so it may differ from a GPU's in the last bit.

#ifndef GPUHOST_CPU_HALF_OPS
#define GPUHOST_CPU_HALF_OPS
// H, H2: the types; TOF, FROMF: to and from float; PAIR, LO, HI: make and split an H2;
// P: the prefix of the conversions to integers (__half2, __bfloat162)
// a * b + c for __hfma, as a float that H's own rounding takes to the correctly rounded H:
// the product p of two halves or bfloat16s is exact in double; s = p + c and its error e
// (TwoSum) hold the exact sum, and a float that cannot hold it is made odd (round to odd:
// the neighbour of the exact value whose last bit is 1), so rounding it to H's fewer bits
// rounds as the exact sum would, where rounding to float and then to H rounded twice
inline float gpuhost_fma_odd(double p, double c) {
  double s = p + c;
  float f = (float)s;
  if (!std::isfinite(s) || !std::isfinite(f)) return f;
  double sc = s - p, e = (p - (s - sc)) + (c - sc), r = s - (double)f;
  double above = r != 0 ? r : e;   // the sign of exact - f: |e| <= half an ulp of s < |r|
  unsigned bits;
  std::memcpy(&bits, &f, 4);
  if (above == 0 || (bits & 1)) return f;
  return nextafterf(f, above > 0 ? INFINITY : -INFINITY);
}
#define GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, name, name2, expr) \
  inline H name(const H a) { float x = TOF(a); return FROMF(expr); } \
  inline H2 name2(const H2 a) { return PAIR(name(LO(a)), name(HI(a))); }
// to an integer: rounded in float, which H holds exactly, then the toolkit's _rz saturates
// as cvt.rni/rmi/rpi do: NaN gives 0 (0x8000000000000000 for 64 bits), the rest the nearest
// value of T
#define GPUHOST_HALF_TOINT(H, TOF, FROMF, P, T, suffix) \
  inline T P##suffix##_rn(const H h) { return P##suffix##_rz(FROMF(nearbyintf(TOF(h)))); } \
  inline T P##suffix##_rd(const H h) { return P##suffix##_rz(FROMF(floorf(TOF(h)))); } \
  inline T P##suffix##_ru(const H h) { return P##suffix##_rz(FROMF(ceilf(TOF(h)))); }
#define GPUHOST_HALF_OPS(H, H2, TOF, FROMF, PAIR, LO, HI, P, U) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hsqrt, h2sqrt, sqrtf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hrsqrt, h2rsqrt, 1.0f / sqrtf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hrcp, h2rcp, 1.0f / x) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hlog, h2log, logf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hlog2, h2log2, log2f(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hlog10, h2log10, log10f(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hexp, h2exp, expf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hexp2, h2exp2, exp2f(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hexp10, h2exp10, powf(10.0f, x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hsin, h2sin, sinf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hcos, h2cos, cosf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, htanh, h2tanh, tanhf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, htanh_approx, h2tanh_approx, tanhf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hceil, h2ceil, ceilf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hfloor, h2floor, floorf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, hrint, h2rint, nearbyintf(x)) \
  GPUHOST_HALF_UNARY(H, H2, TOF, FROMF, PAIR, LO, HI, htrunc, h2trunc, truncf(x)) \
  /* one rounding, as the fused operation has */ \
  inline H __hfma(const H a, const H b, const H c) { \
    return FROMF(gpuhost_fma_odd((double)TOF(a) * TOF(b), TOF(c))); } \
  /* clamped to [0, 1], NaN to +0.0 as cuda_fp16.h says (a NaN fails r > 0) */ \
  inline H __hfma_sat(const H a, const H b, const H c) { \
    float r = TOF(__hfma(a, b, c)); return FROMF(r > 0.0f ? (r < 1.0f ? r : 1.0f) : 0.0f); } \
  inline H __hfma_relu(const H a, const H b, const H c) { \
    float r = TOF(__hfma(a, b, c)); return FROMF(r < 0.0f ? 0.0f : r); } \
  inline H2 __hfma2(const H2 a, const H2 b, const H2 c) { \
    return PAIR(__hfma(LO(a), LO(b), LO(c)), __hfma(HI(a), HI(b), HI(c))); } \
  inline H2 __hfma2_sat(const H2 a, const H2 b, const H2 c) { \
    return PAIR(__hfma_sat(LO(a), LO(b), LO(c)), __hfma_sat(HI(a), HI(b), HI(c))); } \
  inline H2 __hfma2_relu(const H2 a, const H2 b, const H2 c) { \
    return PAIR(__hfma_relu(LO(a), LO(b), LO(c)), __hfma_relu(HI(a), HI(b), HI(c))); } \
  /* complex a * b + c, (re, im) in (low, high) */ \
  inline H2 __hcmadd(const H2 a, const H2 b, const H2 c) { \
    float ar = TOF(LO(a)), ai = TOF(HI(a)), br = TOF(LO(b)), bi = TOF(HI(b)); \
    return PAIR(FROMF(fmaf(-ai, bi, fmaf(ar, br, TOF(LO(c))))), FROMF(fmaf(ai, br, fmaf(ar, bi, TOF(HI(c)))))); } \
  inline H atomicAdd(H *p, H v) { \
    U *u = reinterpret_cast<U *>(p); \
    U old = __atomic_load_n(u, __ATOMIC_RELAXED), next; \
    H f; \
    do { \
      std::memcpy(&f, &old, sizeof f); \
      H r = FROMF(TOF(f) + TOF(v)); \
      std::memcpy(&next, &r, sizeof next); \
    } while (!__atomic_compare_exchange_n(u, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
    return f; } \
  inline H2 atomicAdd(H2 *p, H2 v) { \
    H *h = reinterpret_cast<H *>(p); \
    return PAIR(atomicAdd(h, LO(v)), atomicAdd(h + 1, HI(v))); } \
  GPUHOST_HALF_TOINT(H, TOF, FROMF, P, int, int) \
  GPUHOST_HALF_TOINT(H, TOF, FROMF, P, unsigned int, uint) \
  GPUHOST_HALF_TOINT(H, TOF, FROMF, P, long long, ll) \
  GPUHOST_HALF_TOINT(H, TOF, FROMF, P, unsigned long long, ull) \
  GPUHOST_HALF_TOINT(H, TOF, FROMF, P, short, short) \
  GPUHOST_HALF_TOINT(H, TOF, FROMF, P, unsigned short, ushort)
#endif

#if defined(__CUDA_FP16_TYPES_EXIST__) && !defined(GPUHOST_CPU_HALF_DONE)
#define GPUHOST_CPU_HALF_DONE
GPUHOST_HALF_OPS(__half, __half2, __half2float, __float2half, __halves2half2, __low2half,
                 __high2half, __half2, unsigned short)
#endif
#if defined(__CUDA_BF16_TYPES_EXIST__) && !defined(GPUHOST_CPU_BF16_DONE)
#define GPUHOST_CPU_BF16_DONE
GPUHOST_HALF_OPS(__nv_bfloat16, __nv_bfloat162, __bfloat162float, __float2bfloat16,
                 __halves2bfloat162, __low2bfloat16, __high2bfloat16, __bfloat162, unsigned short)
// integers to bfloat16 rounded down, up or toward zero (the toolkit gives host code _rn):
// the value exact in long double, its bfloat16 toward zero, then one step out if asked
inline __nv_bfloat16 gpuhost_bf16_directed(long double v, int mode) {
  float f = gpuhost_cpu::in_mode<float>(FE_TOWARDZERO, [&] { volatile long double x = v; volatile float r = (float)x; return r; });
  unsigned bits;
  std::memcpy(&bits, &f, 4);
  unsigned short t = (unsigned short)(bits >> 16);
  float back;
  unsigned full = (unsigned)t << 16;
  std::memcpy(&back, &full, 4);
  if ((long double)back != v && ((mode == FE_DOWNWARD && v < 0) || (mode == FE_UPWARD && v > 0))) t++;
  return __ushort_as_bfloat16(t);
}
#define GPUHOST_BF16_FROM(T, P) \
  inline __nv_bfloat16 P##2bfloat16_rd(T x) { return gpuhost_bf16_directed(x, FE_DOWNWARD); } \
  inline __nv_bfloat16 P##2bfloat16_ru(T x) { return gpuhost_bf16_directed(x, FE_UPWARD); } \
  inline __nv_bfloat16 P##2bfloat16_rz(T x) { return gpuhost_bf16_directed(x, FE_TOWARDZERO); }
GPUHOST_BF16_FROM(int, __int) GPUHOST_BF16_FROM(unsigned int, __uint) GPUHOST_BF16_FROM(short, __short)
GPUHOST_BF16_FROM(unsigned short, __ushort) GPUHOST_BF16_FROM(long long, __ll)
GPUHOST_BF16_FROM(unsigned long long, __ull)
#endif
