// cpu_simd.h: CUDA's SIMD intrinsics (the Math API's "SIMD Intrinsics": __vadd4,
// __vcmpgtu2, __vsads4 ... and sm_90's __vimax3_s32, __viaddmin_s16x2_relu, __vibmax_u32
// ...) for the CPU backend, lane by lane: a 32-bit word is 4 lanes of 8 bits (the names
// ending in 4) or 2 of 16 (2, 16x2), each read as signed or unsigned as the name says.
// Included by kernels/cpu.h.
#pragma once

namespace gpuhost_simd {
// lane i of v, of 32 / N bits, as a signed or unsigned number
template <int N, bool S> inline int lane(unsigned v, int i) {
  constexpr int w = 32 / N;
  unsigned u = (v >> (w * i)) & ((1u << w) - 1);
  return S ? (int)(u << (32 - w)) >> (32 - w) : (int)u;
}
template <int N, bool S> constexpr int lo = S ? -(1 << (32 / N - 1)) : 0;
template <int N, bool S> constexpr int hi = S ? (1 << (32 / N - 1)) - 1 : (1 << (32 / N)) - 1;
template <int N, bool S> inline int sat(int v) { return v < lo<N, S> ? lo<N, S> : v > hi<N, S> ? hi<N, S> : v; }
inline int sat_s2(int v) { return sat<2, true>(v); }
inline int sat_s4(int v) { return sat<4, true>(v); }
inline int sat_u2(int v) { return sat<2, false>(v); }
inline int sat_u4(int v) { return sat<4, false>(v); }
// f of the lanes of a, b and c, each result cut to its lane
template <int N, bool S, class F> inline unsigned map(unsigned a, unsigned b, unsigned c, F f) {
  constexpr int w = 32 / N;
  unsigned r = 0;
  for (int i = 0; i < N; i++)
    r |= ((unsigned)f(lane<N, S>(a, i), lane<N, S>(b, i), lane<N, S>(c, i)) & ((1u << w) - 1)) << (w * i);
  return r;
}
// the sum over the lanes of |a - b|
template <int N, bool S> inline unsigned sad(unsigned a, unsigned b) {
  unsigned s = 0;
  for (int i = 0; i < N; i++) {
    int d = lane<N, S>(a, i) - lane<N, S>(b, i);
    s += (unsigned)(d < 0 ? -d : d);
  }
  return s;
}
// the signed average rounded half away from zero, as a GPU's vavrg rounds it
inline int avg_signed(int x, int y) { int s = x + y; return s >= 0 ? (s + 1) >> 1 : s >> 1; }
inline int relu(int x) { return x > 0 ? x : 0; }
}  // namespace gpuhost_simd

// One intrinsic of a and b (and c) per lane count: N lanes, signed S, each lane's result e of
// x, y (and z).
#define GPUHOST_V1(name, N, S, e) \
  inline unsigned name(unsigned a) { \
    return gpuhost_simd::map<N, S>(a, 0, 0, [](int x, int, int) { return (e); }); }
#define GPUHOST_V2(name, N, S, e) \
  inline unsigned name(unsigned a, unsigned b) { \
    return gpuhost_simd::map<N, S>(a, b, 0, [](int x, int y, int) { return (e); }); }
#define GPUHOST_V3(name, N, S, e) \
  inline unsigned name(unsigned a, unsigned b, unsigned c) { \
    return gpuhost_simd::map<N, S>(a, b, c, [](int x, int y, int z) { return (e); }); }
// the byte (4) and halfword (2) forms together
#define GPUHOST_V1_24(name, S, e) GPUHOST_V1(name##2, 2, S, e) GPUHOST_V1(name##4, 4, S, e)
#define GPUHOST_V2_24(name, S, e) GPUHOST_V2(name##2, 2, S, e) GPUHOST_V2(name##4, 4, S, e)

GPUHOST_V1_24(__vabs, true, x < 0 ? -x : x)
GPUHOST_V1(__vabsss2, 2, true, gpuhost_simd::sat_s2(x < 0 ? -x : x))
GPUHOST_V1(__vabsss4, 4, true, gpuhost_simd::sat_s4(x < 0 ? -x : x))
GPUHOST_V1_24(__vneg, true, -x)
GPUHOST_V1(__vnegss2, 2, true, gpuhost_simd::sat_s2(-x))
GPUHOST_V1(__vnegss4, 4, true, gpuhost_simd::sat_s4(-x))
GPUHOST_V2_24(__vadd, false, x + y)
GPUHOST_V2_24(__vsub, false, x - y)
GPUHOST_V2(__vaddss2, 2, true, gpuhost_simd::sat_s2(x + y))
GPUHOST_V2(__vaddss4, 4, true, gpuhost_simd::sat_s4(x + y))
GPUHOST_V2(__vaddus2, 2, false, gpuhost_simd::sat_u2(x + y))
GPUHOST_V2(__vaddus4, 4, false, gpuhost_simd::sat_u4(x + y))
GPUHOST_V2(__vsubss2, 2, true, gpuhost_simd::sat_s2(x - y))
GPUHOST_V2(__vsubss4, 4, true, gpuhost_simd::sat_s4(x - y))
GPUHOST_V2(__vsubus2, 2, false, gpuhost_simd::sat_u2(x - y))
GPUHOST_V2(__vsubus4, 4, false, gpuhost_simd::sat_u4(x - y))
GPUHOST_V2_24(__vavgs, true, gpuhost_simd::avg_signed(x, y))
GPUHOST_V2_24(__vavgu, false, (x + y + 1) >> 1)
GPUHOST_V2_24(__vhaddu, false, (x + y) >> 1)
GPUHOST_V2_24(__vabsdiffs, true, x > y ? x - y : y - x)
GPUHOST_V2_24(__vabsdiffu, false, x > y ? x - y : y - x)
GPUHOST_V2_24(__vmaxs, true, x > y ? x : y)
GPUHOST_V2_24(__vmaxu, false, x > y ? x : y)
GPUHOST_V2_24(__vmins, true, x < y ? x : y)
GPUHOST_V2_24(__vminu, false, x < y ? x : y)
// comparisons: __vcmp* set a lane to all ones where it holds, __vset* to 1
#define GPUHOST_VCMP(cmp, S, e) GPUHOST_V2_24(__vcmp##cmp, S, (e) ? -1 : 0) GPUHOST_V2_24(__vset##cmp, S, (e) ? 1 : 0)
GPUHOST_VCMP(eq, false, x == y)
GPUHOST_VCMP(ne, false, x != y)
GPUHOST_VCMP(ges, true, x >= y)
GPUHOST_VCMP(geu, false, x >= y)
GPUHOST_VCMP(gts, true, x > y)
GPUHOST_VCMP(gtu, false, x > y)
GPUHOST_VCMP(les, true, x <= y)
GPUHOST_VCMP(leu, false, x <= y)
GPUHOST_VCMP(lts, true, x < y)
GPUHOST_VCMP(ltu, false, x < y)
#undef GPUHOST_VCMP
inline unsigned __vsads2(unsigned a, unsigned b) { return gpuhost_simd::sad<2, true>(a, b); }
inline unsigned __vsads4(unsigned a, unsigned b) { return gpuhost_simd::sad<4, true>(a, b); }
inline unsigned __vsadu2(unsigned a, unsigned b) { return gpuhost_simd::sad<2, false>(a, b); }
inline unsigned __vsadu4(unsigned a, unsigned b) { return gpuhost_simd::sad<4, false>(a, b); }

// sm_90's (DPX): 3-way min and max, add then min or max, each maybe clamped at 0 (relu);
// 32-bit sums wrap, as 16-bit ones do
namespace gpuhost_simd {
inline int max3(int x, int y, int z) { int m = x > y ? x : y; return m > z ? m : z; }
inline int min3(int x, int y, int z) { int m = x < y ? x : y; return m < z ? m : z; }
inline unsigned umax3(unsigned x, unsigned y, unsigned z) { unsigned m = x > y ? x : y; return m > z ? m : z; }
inline unsigned umin3(unsigned x, unsigned y, unsigned z) { unsigned m = x < y ? x : y; return m < z ? m : z; }
inline int wrap_add(int x, int y) { return (int)((unsigned)x + (unsigned)y); }
}  // namespace gpuhost_simd
inline int __vimax3_s32(int a, int b, int c) { return gpuhost_simd::max3(a, b, c); }
inline unsigned __vimax3_u32(unsigned a, unsigned b, unsigned c) { return gpuhost_simd::umax3(a, b, c); }
inline int __vimin3_s32(int a, int b, int c) { return gpuhost_simd::min3(a, b, c); }
inline unsigned __vimin3_u32(unsigned a, unsigned b, unsigned c) { return gpuhost_simd::umin3(a, b, c); }
inline int __vimax3_s32_relu(int a, int b, int c) { return gpuhost_simd::relu(gpuhost_simd::max3(a, b, c)); }
inline int __vimin3_s32_relu(int a, int b, int c) { return gpuhost_simd::relu(gpuhost_simd::min3(a, b, c)); }
inline int __vimax_s32_relu(int a, int b) { return gpuhost_simd::relu(a > b ? a : b); }
inline int __vimin_s32_relu(int a, int b) { return gpuhost_simd::relu(a < b ? a : b); }
inline int __viaddmax_s32(int a, int b, int c) { int s = gpuhost_simd::wrap_add(a, b); return s > c ? s : c; }
inline int __viaddmin_s32(int a, int b, int c) { int s = gpuhost_simd::wrap_add(a, b); return s < c ? s : c; }
inline unsigned __viaddmax_u32(unsigned a, unsigned b, unsigned c) { return a + b > c ? a + b : c; }
inline unsigned __viaddmin_u32(unsigned a, unsigned b, unsigned c) { return a + b < c ? a + b : c; }
inline int __viaddmax_s32_relu(int a, int b, int c) { return gpuhost_simd::relu(__viaddmax_s32(a, b, c)); }
inline int __viaddmin_s32_relu(int a, int b, int c) { return gpuhost_simd::relu(__viaddmin_s32(a, b, c)); }
GPUHOST_V3(__vimax3_s16x2, 2, true, gpuhost_simd::max3(x, y, z))
GPUHOST_V3(__vimax3_u16x2, 2, false, gpuhost_simd::max3(x, y, z))
GPUHOST_V3(__vimin3_s16x2, 2, true, gpuhost_simd::min3(x, y, z))
GPUHOST_V3(__vimin3_u16x2, 2, false, gpuhost_simd::min3(x, y, z))
GPUHOST_V3(__vimax3_s16x2_relu, 2, true, gpuhost_simd::relu(gpuhost_simd::max3(x, y, z)))
GPUHOST_V3(__vimin3_s16x2_relu, 2, true, gpuhost_simd::relu(gpuhost_simd::min3(x, y, z)))
GPUHOST_V2(__vimax_s16x2_relu, 2, true, gpuhost_simd::relu(x > y ? x : y))
GPUHOST_V2(__vimin_s16x2_relu, 2, true, gpuhost_simd::relu(x < y ? x : y))
// (x + y) wraps in its lane: the sum cut to 16 bits, read back with its sign
#define GPUHOST_ADD16(x, y, S) gpuhost_simd::lane<2, S>((unsigned)((x) + (y)), 0)
GPUHOST_V3(__viaddmax_s16x2, 2, true, GPUHOST_ADD16(x, y, true) > z ? GPUHOST_ADD16(x, y, true) : z)
GPUHOST_V3(__viaddmax_u16x2, 2, false, GPUHOST_ADD16(x, y, false) > z ? GPUHOST_ADD16(x, y, false) : z)
GPUHOST_V3(__viaddmin_s16x2, 2, true, GPUHOST_ADD16(x, y, true) < z ? GPUHOST_ADD16(x, y, true) : z)
GPUHOST_V3(__viaddmin_u16x2, 2, false, GPUHOST_ADD16(x, y, false) < z ? GPUHOST_ADD16(x, y, false) : z)
GPUHOST_V3(__viaddmax_s16x2_relu, 2, true,
           gpuhost_simd::relu(GPUHOST_ADD16(x, y, true) > z ? GPUHOST_ADD16(x, y, true) : z))
GPUHOST_V3(__viaddmin_s16x2_relu, 2, true,
           gpuhost_simd::relu(GPUHOST_ADD16(x, y, true) < z ? GPUHOST_ADD16(x, y, true) : z))
#undef GPUHOST_ADD16
// max and min that also say whether a won (a >= b for max, a <= b for min), per halfword
// in pred_hi and pred_lo
inline int __vibmax_s32(int a, int b, bool *pred) { *pred = a >= b; return a >= b ? a : b; }
inline unsigned __vibmax_u32(unsigned a, unsigned b, bool *pred) { *pred = a >= b; return a >= b ? a : b; }
inline int __vibmin_s32(int a, int b, bool *pred) { *pred = a <= b; return a <= b ? a : b; }
inline unsigned __vibmin_u32(unsigned a, unsigned b, bool *pred) { *pred = a <= b; return a <= b ? a : b; }
#define GPUHOST_VIB(name, S, cmp) \
  inline unsigned name(unsigned a, unsigned b, bool *pred_hi, bool *pred_lo) { \
    int ah = gpuhost_simd::lane<2, S>(a, 1), bh = gpuhost_simd::lane<2, S>(b, 1); \
    int al = gpuhost_simd::lane<2, S>(a, 0), bl = gpuhost_simd::lane<2, S>(b, 0); \
    *pred_hi = ah cmp bh; \
    *pred_lo = al cmp bl; \
    return ((unsigned)(*pred_hi ? ah : bh) & 0xffffu) << 16 | ((unsigned)(*pred_lo ? al : bl) & 0xffffu); }
GPUHOST_VIB(__vibmax_s16x2, true, >=)
GPUHOST_VIB(__vibmax_u16x2, false, >=)
GPUHOST_VIB(__vibmin_s16x2, true, <=)
GPUHOST_VIB(__vibmin_u16x2, false, <=)
#undef GPUHOST_VIB
#undef GPUHOST_V1_24
#undef GPUHOST_V2_24
#undef GPUHOST_V1
#undef GPUHOST_V2
#undef GPUHOST_V3
