// ndimage_interp.cu: the kernels behind gpu.ndimage's interpolation (lua/ndimage_interp.lua
// launches them): ndi_pad copies an input into a float64 C-ordered array, padded by the edge
// or a constant; ndi_spline runs the B-spline prefilter (a recursive filter: one thread a
// line); ndi_interp makes each output point from the input's spline of order 0..5 at the
// coordinates it reads (an array), computes (an affine map) or zooms and shifts.
// Numbers and boundaries are scipy 1.11's (scipy.ndimage's ni_interpolation.c and
// ni_splines.c), written here from their behaviour. Every index is clamped to its dim: a
// coordinate of NaN, an infinity or a magnitude of 2^53 or more gives cval.

namespace interp {

// scipy's boundary modes, as lua/ndimage_interp.lua numbers them
enum { NEAREST = 0, WRAP = 1, REFLECT = 2, MIRROR = 3, CONSTANT = 4, GRID_WRAP = 5, GRID_CONSTANT = 6 };
// the prefilter's boundary: how the first coefficient of each pass starts
enum { INIT_MIRROR = 0, INIT_WRAP = 1, INIT_REFLECT = 2 };
// how ndi_interp finds a point's coordinates
enum { COORDS = 0, AFFINE = 1, ZOOM_SHIFT = 2 };
const int MAXD = 8, MAXK = 6;   // dims, taps a dim (order 5)
const double HUGE_COORD = 9007199254740992.0;   // 2^53: past it no double has a fraction

template <typename T> __device__ inline double value(T x) { return (double)x; }
__device__ inline double value(gpu::half x) { return (double)(float)x; }

// rem's index along a dim of n (rem becomes the index of the rest): a 32-bit division
// where the array's size allows (small), a 64-bit one being a long sequence on a GPU
__device__ inline long long next_index(long long &rem, long long n, bool small) {
  const long long q = small ? (long long)((unsigned int)rem / (unsigned int)n) : rem / n;
  const long long c = rem - q * n;
  rem = q;
  return c;
}
// the same of an int rem (0 <= rem < 2^31) by a multiply: m = (2^32 - 1) / n, made once,
// gives a quotient short by at most one (rem m / 2^32 > rem / n - 1), then corrected
__device__ inline long long next_index(long long &rem, long long n, bool small, unsigned) {
  return next_index(rem, n, small);
}
__device__ inline int next_index(int &rem, int n, bool, unsigned m) {
  unsigned q = (unsigned)(((unsigned long long)(unsigned)rem * m) >> 32);
  int c = rem - (int)q * n;
  if (c >= n) {
    c -= n;
    q++;
  }
  rem = (int)q;
  return c;
}

// A double into bool as scipy's C cast (to npy_bool, an unsigned char) does on x86: the
// low 8 bits of the value truncated toward 0, nothing outside int32's range (NaN included),
// so 0.7 is false and -1.2 true
__device__ inline bool c_bool(double v) {
  return v > -2147483649.0 && v < 2147483648.0 && ((long long)v & 0xff) != 0;
}

// A double into an integer as x86-64's conversions make it (C leaves a value out of the
// type's range undefined; scipy's C casts and NumPy's scalar cast make it so): truncated
// toward 0 to an int32 for types of up to 32 bits (uint32 but to an int64), NaN and a value
// past that range giving its least, then wrapped to the width; uint64 from 2^63 on less
// 2^63, its top bit set (0 from 2^64 on) (kernels/ndimage.cu's put)
__device__ inline int to_int32(double v) { return v > -2147483649.0 && v < 2147483648.0 ? (int)v : INT_MIN; }
__device__ inline long long to_int64(double v) {
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (long long)v : LLONG_MIN;
}
__device__ inline unsigned long long to_uint64(double v) {
  return !(v >= 9223372036854775808.0) ? (unsigned long long)to_int64(v)
       : v < 18446744073709551616.0 ? (unsigned long long)v : 0ULL;
}

// The prefilter's result stored as scipy's line buffers store it: a C cast, as x86-64's
// conversions make it; the same as NumPy's cast of a float (orders 0 and 1's copies)
template <typename O> __device__ inline void cast(O *p, double v) { *p = (O)to_int32(v); }
__device__ inline void cast(unsigned int *p, double v) { *p = (unsigned int)to_int64(v); }
__device__ inline void cast(long long *p, double v) { *p = to_int64(v); }
__device__ inline void cast(unsigned long long *p, double v) { *p = to_uint64(v); }
__device__ inline void cast(float *p, double v) { *p = (float)v; }
__device__ inline void cast(double *p, double v) { *p = v; }
__device__ inline void cast(gpu::half *p, double v) { *p = gpu::half(v); }
__device__ inline void cast(bool *p, double v) { *p = c_bool(v); }

// An interpolated value stored as scipy's interpolation stores it (ni_interpolation.c's
// CASE_INTERP_OUT_INT and _UINT): rounded half away from zero (unsigned: from 0 up, NaN and
// the rest 0), clamped to the type's least lo and greatest hi as doubles, then C-cast as
// above, so that NaN into int32 (int64) is its least (0 in int8, int16) and uint64's 2^64
// (its greatest as a double) and more 0; into int64, a value past 2^63 (its greatest as a
// double) is the greatest, as scipy's build folds the clamp's conversion, but 2^63 itself,
// converted, the least; bool by the C cast (c_bool: not rounded)
__device__ inline double rounded(double t, double lo, double hi) {
  t = t > 0 ? t + 0.5 : lo < 0 ? t - 0.5 : 0.0;
  t = t > hi ? hi : t;
  return t < lo ? lo : t;   // (NaN left as it is)
}
template <typename O> __device__ inline void store(O *p, double t) { *p = (O)t; }
__device__ inline void store(gpu::half *p, double t) { *p = gpu::half(t); }
__device__ inline void store(bool *p, double t) { *p = c_bool(t); }
__device__ inline void store(signed char *p, double t) { cast(p, rounded(t, -128.0, 127.0)); }
__device__ inline void store(unsigned char *p, double t) { cast(p, rounded(t, 0.0, 255.0)); }
__device__ inline void store(short *p, double t) { cast(p, rounded(t, -32768.0, 32767.0)); }
__device__ inline void store(unsigned short *p, double t) { cast(p, rounded(t, 0.0, 65535.0)); }
__device__ inline void store(int *p, double t) { cast(p, rounded(t, -2147483648.0, 2147483647.0)); }
__device__ inline void store(unsigned int *p, double t) { cast(p, rounded(t, 0.0, 4294967295.0)); }
__device__ inline void store(long long *p, double t) {
  *p = t + 0.5 > 9223372036854775808.0 ? LLONG_MAX : to_int64(rounded(t, -9223372036854775808.0, 9223372036854775808.0));
}
__device__ inline void store(unsigned long long *p, double t) { cast(p, rounded(t, 0.0, 18446744073709551616.0)); }

// A coordinate x (|x| < 2^53) outside 0 .. n-1 brought inside by the mode, as scipy maps
// it (-1 for the constant mode: no value)
__device__ inline double map_coordinate(double x, long long n, int mode) {
  if (x < 0) {
    if (mode == CONSTANT) return -1.0;
    if (mode == NEAREST || n <= 1) return 0.0;
    if (mode == MIRROR) {
      long long p = 2 * n - 2;
      x = p * (double)(long long)(-x / p) + x;
      return x <= 1 - n ? x + p : -x;
    }
    if (mode == REFLECT) {
      long long p = 2 * n;
      if (x < -p) x = p * (double)(long long)(-x / p) + x;
      // (scipy's guard: a tiny negative x must not become -1)
      return x < -n ? x + p : (x > -1e-15 ? 1e-15 : -x) - 1;
    }
    if (mode == WRAP) {   // scipy's wrap repeats with period n - 1
      long long p = n - 1;
      return x + p * (double)((long long)(-x / p) + 1);
    }
    return x + n * (double)((long long)((-1 - x) / n) + 1);   // GRID_WRAP
  }
  if (x > n - 1) {
    if (mode == CONSTANT) return -1.0;
    if (mode == NEAREST || n <= 1) return mode == NEAREST ? (double)(n - 1) : 0.0;
    if (mode == MIRROR) {
      long long p = 2 * n - 2;
      x -= p * (double)(long long)(x / p);
      return x >= n ? p - x : x;
    }
    if (mode == REFLECT) {
      long long p = 2 * n;
      x -= p * (double)(long long)(x / p);
      return x >= n ? p - x - 1 : x;
    }
    if (mode == WRAP) {
      long long p = n - 1;
      return x - p * (double)(long long)(x / p);
    }
    return x - n * (double)(long long)(x / n);   // GRID_WRAP
  }
  return x;
}

// A spline tap's index j (an integer) inside 0 .. n-1 by the prefilter's mode, clamped
__device__ inline long long map_tap(long long j, long long n, int mode) {
  if (j >= 0 && j < n) return j;
  if (n <= 1) return 0;
  if (mode == MIRROR) {
    long long p = 2 * n - 2;
    if (j < 0) { j += p * (-j / p); j = j <= 1 - n ? j + p : -j; }
    else { j -= p * (j / p); if (j >= n) j = p - j; }
  } else if (mode == REFLECT) {
    long long p = 2 * n;
    if (j < 0) { if (j < -p) j += p * (-j / p); j = j < -n ? j + p : -j - 1; }
    else { j -= p * (j / p); if (j >= n) j = p - j - 1; }
  } else if (mode == GRID_WRAP) {
    if (j < 0) j += n * ((-1 - j) / n + 1);
    else j -= n * (j / n);
  }
  return j < 0 ? 0 : j >= n ? n - 1 : j;   // NEAREST, and any index a mode left outside
}

// The weights w[0..order] of the B-spline of `order` (1..5) at x, about its taps
// floor(x) - order/2 .. (odd orders) or floor(x + 0.5) - order/2 .. (even): the
// polynomial pieces of the B-spline at the distances of x from the taps. (Made in scalars
// and stored at fixed indices, so that w may live in registers.)
__device__ __forceinline__ void weights(double x, int order, double *w) {
  x -= floor(order & 1 ? x : x + 0.5);   // 0 <= x < 1 (odd orders), -0.5 <= x < 0.5 (even)
  double w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, a, b, s;
  switch (order) {
    case 1:
      w0 = 1.0 - x;
      break;
    case 2:
      w1 = 0.75 - x * x;
      a = 0.5 - x;
      w0 = 0.5 * a * a;
      break;
    case 3:
      a = 1.0 - x;
      w1 = (x * x * (x - 2.0) * 3.0 + 4.0) / 6.0;
      w2 = (a * a * (a - 2.0) * 3.0 + 4.0) / 6.0;
      w0 = a * a * a / 6.0;
      break;
    case 4:
      s = x * x;
      w2 = s * (s * 0.25 - 0.625) + 115.0 / 192.0;
      a = 1.0 + x;
      w1 = a * (a * (a * (5.0 - a) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
      b = 1.0 - x;
      w3 = b * (b * (b * (5.0 - b) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
      a = 0.5 - x;
      s = a * a;
      w0 = s * s / 24.0;
      break;
    default:   // 5
      s = x * x;
      w2 = s * (s * (0.25 - x / 12.0) - 0.5) + 0.55;
      b = 1.0 - x;
      s = b * b;
      w3 = s * (s * (0.25 - b / 12.0) - 0.5) + 0.55;
      a = 1.0 + x;
      w1 = a * (a * (a * (a * (a / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
      a = 2.0 - x;
      w4 = a * (a * (a * (a * (a / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
      s = b * b;
      w0 = b * s * s / 120.0;
      break;
  }
  // they sum to 1: the last is what the others leave, subtracted in order
  double last = 1.0 - w0;
  if (order > 1) last -= w1;
  if (order > 2) last -= w2;
  if (order > 3) last -= w3;
  if (order > 4) last -= w4;
  w[0] = w0;
  w[1] = order == 1 ? last : w1;
  w[2] = order == 2 ? last : w2;
  w[3] = order == 3 ? last : w3;
  w[4] = order == 4 ? last : w4;
  w[5] = last;
}

// The prefilter's sweeps walk a line alone (a line a thread): they load BLOCK values
// before using them, so that a block's loads are in flight together, not one after the
// other's use. The boundary sums stop where z^i underflows to 0 (after about 570 terms
// for order 3; scipy adds the zeros: the same sum, unless the line holds an infinity or
// NaN past there, which makes scipy's NaN).
const int BLOCK = 16;

// acc + sum over i = 1 .. m of z^i (g c[i] + zx g c[n-1-i]) along a line of n (elements s
// apart): the mirror and reflect boundaries' sums
__device__ inline double mirrored_sum(const double *c, long long n, long long s, long long m, double z, double zx,
                                      double g, double acc) {
  double zi = z;
  long long i = 1;
  for (; i + BLOCK - 1 <= m; i += BLOCK) {
    double a[BLOCK], b[BLOCK];
#pragma unroll
    for (int j = 0; j < BLOCK; j++) { a[j] = c[(i + j) * s]; b[j] = c[(n - 1 - i - j) * s]; }
#pragma unroll
    for (int j = 0; j < BLOCK; j++) { acc += zi * (g * a[j] + zx * (g * b[j])); zi *= z; }
    if (zi == 0.0) return acc;   // z^i underflowed: the rest adds zeros
  }
  for (; i <= m; i++) { acc += zi * (g * c[i * s] + zx * (g * c[(n - 1 - i) * s])); zi *= z; }
  return acc;
}

// acc + sum over k = 0 .. m-1 of z^(k+1) g c[first + k step] (the wrap boundary's sums);
// zi becomes z^(m+1)
__device__ inline double powered_sum(const double *c, long long first, long long step, long long m, double z, double g,
                                     double acc, double &zi) {
  zi = z;
  long long k = 0;
  for (; k + BLOCK <= m; k += BLOCK) {
    double a[BLOCK];
#pragma unroll
    for (int j = 0; j < BLOCK; j++) a[j] = c[first + (k + j) * step];
#pragma unroll
    for (int j = 0; j < BLOCK; j++) { acc += zi * (g * a[j]); zi *= z; }
    if (zi == 0.0) return acc;   // (and z^(m+1) is 0 too)
  }
  for (; k < m; k++) { acc += zi * (g * c[first + k * step]); zi *= z; }
  return acc;
}

// One pole z of the prefilter over the line c[0], c[s], ... c[(n-1)s] (n > 1), whose values
// are first multiplied by g (the filter's gain, on the first pole; 1 after): the causal
// pass from a first coefficient that the boundary gives, then the anticausal one
__device__ inline void spline_pole(double *c, long long n, long long s, double z, double g, int init) {
  double c0, zi;
  if (init == INIT_MIRROR) {
    const double zn1 = pow(z, (double)(n - 1));
    c0 = mirrored_sum(c, n, s, n - 2, z, zn1, g, g * c[0] + zn1 * (g * c[(n - 1) * s]));
    c0 /= 1 - zn1 * zn1;
  } else if (init == INIT_WRAP) {
    c0 = powered_sum(c, (n - 1) * s, -s, n - 1, z, g, g * c[0], zi);
    c0 /= 1 - zi;
  } else {   // INIT_REFLECT: the exact sum (scipy 1.11 read c[0] after overwriting it)
    const double zn = pow(z, (double)n);
    const double sum = mirrored_sum(c, n, s, n - 1, z, zn, g, g * c[0] + zn * (g * c[(n - 1) * s]));
    c0 = g * c[0] + sum * z / (1 - zn * zn);
  }
  // causal: c[i] = g c[i] + z c[i - 1]
  c[0] = c0;
  double prev = c0;
  long long i = 1;
  for (; i + BLOCK <= n; i += BLOCK) {
    double v[BLOCK];
#pragma unroll
    for (int j = 0; j < BLOCK; j++) v[j] = c[(i + j) * s];
#pragma unroll
    for (int j = 0; j < BLOCK; j++) v[j] = prev = g * v[j] + z * prev;
#pragma unroll
    for (int j = 0; j < BLOCK; j++) c[(i + j) * s] = v[j];
  }
  for (; i < n; i++) c[i * s] = prev = g * c[i * s] + z * prev;
  const long long l = (n - 1) * s;
  if (init == INIT_MIRROR) {
    c[l] = (z * c[l - s] + c[l]) * z / (z * z - 1);
  } else if (init == INIT_WRAP) {
    const double cl = powered_sum(c, 0, s, n - 1, z, 1.0, c[l], zi);
    c[l] = cl * (z / (zi - 1));
  } else {
    c[l] *= z / (z - 1);
  }
  // anticausal: c[i] = z (c[i + 1] - c[i])
  double next = c[l];
  i = n - 2;
  for (; i - BLOCK + 1 >= 0; i -= BLOCK) {
    double v[BLOCK];
#pragma unroll
    for (int j = 0; j < BLOCK; j++) v[j] = c[(i - j) * s];
#pragma unroll
    for (int j = 0; j < BLOCK; j++) v[j] = next = z * (next - v[j]);
#pragma unroll
    for (int j = 0; j < BLOCK; j++) c[(i - j) * s] = v[j];
  }
  for (; i >= 0; i--) c[i * s] = next = z * (next - c[i * s]);
}

}  // namespace interp

// The input (any layout) as a float64 C-ordered array, its dims d widened by pad[d] on
// both sides: the edge's value there (edge != 0) or cval
template <typename T>
__global__ void ndi_pad(gpu::array<T> in, double *out, const long long *__restrict__ pad, long long size, int edge,
                        double cval) {
  const int nd = in.ndim;
  const T *p = in.ptr();
  const bool small = size <= 0xffffffffLL;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < size; i += (long long)gridDim.x * blockDim.x) {
    long long rem = i, at = 0;
    bool outside = false;
    for (int d = nd - 1; d >= 0; d--) {
      const long long n = in.shape[d], m = n + 2 * pad[d];
      long long c = interp::next_index(rem, m, small) - pad[d];
      if (c < 0 || c >= n) {
        outside = true;
        c = c < 0 ? 0 : n - 1;
      }
      at += c * in.stride[d];
    }
    out[i] = outside && !edge ? cval : interp::value(p[at]);
  }
}

// The prefilter along one dim of c (float64, C-ordered): `lines` lines of len elements,
// inner apart (the product of the later dims); one thread a line. Each line is scaled by
// gain and filtered by each pole (npoles: 1 or 2) in turn. The result goes to out (of
// dtype O, C-ordered like c; it may be c) and, where O is not float64, back into c as O
// holds it, so that a next pass reads what scipy's would.
template <typename O>
__global__ void ndi_spline(double *c, O *out, long long lines, long long len, long long inner, int npoles, double z0,
                           double z1, double gain, int init) {
  for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < lines; l += (long long)gridDim.x * blockDim.x) {
    const long long base = l / inner * len * inner + l % inner;
    double *line = c + base;
    if (len > 1) {
      interp::spline_pole(line, len, inner, z0, gain, init);   // the gain with the first pole
      if (npoles > 1) interp::spline_pole(line, len, inner, z1, 1.0, init);
    }
    if ((void *)out != (void *)c) {
      for (long long i = 0; i < len; i++) {
        O *o = out + base + i * inner;
        interp::cast(o, line[i * inner]);
        line[i * inner] = interp::value(*o);
      }
    }
  }
}

// Each output element (C order over out's shape) as the input's spline of `order` at its
// coordinates: x[d] for each of the input's dims d, where plan[d] (1: interpolated, 0: the
// output's own index along d, for rotate's other dims) says so, from `kind`:
//   COORDS      coords (C-ordered, shape {input's ndim, out's shape...}): x[d] = coords[d][i]
//   AFFINE      x[d] = sum_l par[d * out.ndim + l] * o[l] + par[64 + d] (o: the output index)
//   ZOOM_SHIFT  x[d] = o[d] (+ par[80 + d] where plan[17]); then * par[72 + d] where
//               plan[16] (about pixel edges, (x + 0.5) * zoom - 0.5, where plan[18])
// plus plan[8 + d] (the prefilter's padding). Modes as scipy's: the coordinate mapped
// inside (but for NEAREST and GRID_CONSTANT), the taps past an edge mapped by the
// prefilter's mode (MIRROR for CONSTANT and WRAP), GRID_CONSTANT's taps past it cval.
// ND: the input's ndim where it is 1, 2 or 3 (loops of fixed bounds, the taps' tables in
// registers), 0 for any (the tables in the thread's memory). K, M, KD: the order, mode and
// kind fixed at compile time (-1: the arguments'), so that a kernel of one of each is
// straight-line code; KD COORDS or ZOOM_SHIFT says that every dim is interpolated (plan[d]
// is not read). I: the index type, int where the host found every index (out's and
// coords' elements, input's dims and offsets, the grid's stride past them) below 2^31, else
// long long.
// The arithmetic of x, the weights and the sum is the same in every instantiation.
template <typename T, typename O, typename C, int ND, int K, int M, int KD, typename I>
__global__ void ndi_interp(gpu::array<T> in, gpu::array<O> out, gpu::array<C> coords, const long long *__restrict__ plan,
                           const double *__restrict__ par, int kind_given, int order_given, int mode_given, double cval) {
  using namespace interp;
  const int order = K >= 0 ? K : order_given;   // K: the order fixed at compile time (its loops, its weights)
  const int mode = M >= 0 ? M : mode_given;
  const int kind = KD >= 0 ? KD : kind_given;
  const bool all_dims = KD == COORDS || KD == ZOOM_SHIFT;
  const int D = ND ? ND : MAXD;   // the tables' size
  const int nd = ND ? ND : in.ndim, od = ND && KD == ZOOM_SHIFT ? ND : out.ndim;   // (zoom, shift: of input's ndim)
  // (out shares no memory with what is read: lua/ndimage_interp.lua's resample sees to it)
  const T *__restrict__ p = in.ptr();
  O *__restrict__ q = out.data;
  const C *__restrict__ pc = coords.data;
  const int tap_mode = mode == CONSTANT || mode == WRAP ? MIRROR : mode;
  const bool small = out.size <= 0xffffffffLL;
  const I size = (I)out.size;
  // what each element reads of plan and par, read once
  const bool zoom_on = kind == ZOOM_SHIFT && plan[16], shift_on = kind == ZOOM_SHIFT && plan[17],
             grid = kind == ZOOM_SHIFT && plan[18];
  const bool held = ND && kind == AFFINE && od == ND;   // the matrix in registers
  I len[D], stride[D];
  double pad[D], zoom[D], shift[D], offset[D], mat[ND ? ND : 1][ND ? ND : 1];
  bool along[D];
#pragma unroll (ND ? ND : 1)
  for (int d = 0; d < D; d++) {
    if (d < nd) {
      len[d] = (I)in.shape[d];
      stride[d] = (I)in.stride[d];
      along[d] = all_dims || plan[d];
      pad[d] = (double)plan[8 + d];
      zoom[d] = zoom_on ? par[72 + d] : 0.0;
      shift[d] = shift_on ? par[80 + d] : 0.0;
      offset[d] = kind == AFFINE ? par[64 + d] : 0.0;
      if (held) {
#pragma unroll
        for (int l = 0; l < ND; l++) mat[d][l] = par[d * ND + l];
      }
    }
  }
  unsigned magic[MAXD];   // (int indices: out's dims' multipliers for next_index)
#pragma unroll
  for (int d = 1; d < MAXD; d++)
    if (d < od && sizeof(I) == 4) magic[d] = 0xffffffffu / (unsigned)out.shape[d];
  for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < size; i += (I)gridDim.x * (I)blockDim.x) {
    I o[MAXD];   // (loops of fixed bounds: o in registers)
    if (KD != COORDS) {   // (map_coordinates needs no output index)
      I rem = i;
#pragma unroll
      for (int d = MAXD - 1; d > 0; d--) {
        if (d >= od) continue;
        o[d] = next_index(rem, (I)out.shape[d], small, magic[d]);
      }
      o[0] = rem;   // (i < out.size: what the later dims leave is below out.shape[0])
    }
    // per dim: the taps' offsets, weights (1 where a dim is not interpolated, or for order
    // 0: a product by 1 changes nothing), their count, and GRID_CONSTANT's taps outside
    I off[D][MAXK];
    double w[D][MAXK];
    int taps[D], bad[D];
    bool constant = false, any_bad = false;
#pragma unroll (ND ? ND : 1)   // (the generic kernel's loop rolled: 8 copies of it took long to compile)
    for (int d = 0; d < D; d++) {
      if (d < nd && !constant) {
        const I n = len[d];
        bad[d] = 0;
        w[d][0] = 1.0;
        taps[d] = 1;
        if (!along[d]) {   // not interpolated: the output's index (clamped)
          off[d][0] = (o[d] < 0 ? 0 : o[d] >= n ? n - 1 : o[d]) * stride[d];
        } else {
          double x;
          if (kind == COORDS) {
            x = (double)pc[(I)d * size + i];
          } else if (kind == AFFINE) {
            x = 0.0;
            if (held) {
#pragma unroll
              for (int l = 0; l < ND; l++) x += (double)o[l] * mat[d][l];
            } else {
#pragma unroll
              for (int l = 0; l < MAXD; l++)
                if (l < od) x += (double)o[l] * par[d * od + l];
            }
            x += offset[d];
          } else {
            x = (double)o[d];
            if (shift_on) x += shift[d];
            if (zoom_on) x = grid ? (x + 0.5) * zoom[d] - 0.5 : x * zoom[d];
          }
          x += pad[d];
          if (mode != GRID_CONSTANT && mode != NEAREST && fabs(x) < HUGE_COORD) x = map_coordinate(x, n, mode);
          // (NaN, infinities and huge values fail both tests)
          constant = !(fabs(x) < HUGE_COORD) || (mode != GRID_CONSTANT && mode != NEAREST && !(x > -1.0));
          if (constant) continue;   // (cval: the rest is not read)
          // the first tap, its floor clamped a little past the edges first (taps further
          // out map to the same edge value, or are GRID_CONSTANT's cval, as these do)
          const double fl = floor(order & 1 ? x : x + 0.5);
          const I start = (I)(fl < -(MAXK + 2.0) ? -(MAXK + 2.0) : fl > (double)n + MAXK ? (double)n + MAXK : fl) - order / 2;
          if (start >= 0 && start + order < n) {   // every tap inside: read directly
#pragma unroll
            for (int k = 0; k < MAXK; k++)
              if (k <= order) off[d][k] = (start + k) * stride[d];
          } else {   // taps past an edge: mapped by the mode, clamped
#pragma unroll
            for (int k = 0; k < MAXK; k++) {
              if (k <= order) {
                const I j = start + k;
                if (mode == GRID_CONSTANT && (j < 0 || j >= n)) bad[d] |= 1 << k;
                off[d][k] = (I)map_tap(j, n, tap_mode) * stride[d];
              }
            }
          }
          if (order > 0) weights(x, order, w[d]);
          taps[d] = order + 1;
          any_bad = any_bad || bad[d];
        }
      }
    }
    double t = cval;
    if (!constant) {
      // the taps in C order (the last dim's fastest), each value times its weight along
      // each dim in turn, as scipy sums them (every dim's order + 1 where all are
      // interpolated: loops of a known count)
#pragma unroll
      for (int d = 0; d < D; d++)
        if (all_dims) taps[d] = order + 1;
      t = 0.0;
      if (ND == 1) {
#pragma unroll
        for (int a = 0; a < MAXK; a++) {
          if (a >= taps[0]) break;
          double coeff = any_bad && (bad[0] >> a & 1) ? cval : value(p[off[0][a]]);
          t += coeff * w[0][a];
        }
      } else if (ND == 2) {
#pragma unroll
        for (int a = 0; a < MAXK; a++) {
          if (a >= taps[0]) break;
#pragma unroll
          for (int b = 0; b < MAXK; b++) {
            if (b >= taps[1]) break;
            double coeff = any_bad && ((bad[0] >> a | bad[1] >> b) & 1) ? cval : value(p[off[0][a] + off[1][b]]);
            coeff *= w[0][a];
            t += coeff * w[1][b];
          }
        }
      } else if (ND == 3) {   // the first dim's taps in a loop, the two others' unrolled
        for (int a = 0; a < taps[0]; a++) {
          double w0 = 0.0;
          I o0 = 0;
#pragma unroll
          for (int k = 0; k < MAXK; k++)   // tap a's entries, read at fixed indices
            if (k == a) { w0 = w[0][k]; o0 = off[0][k]; }
          const bool bad0 = bad[0] >> a & 1;
#pragma unroll
          for (int b = 0; b < MAXK; b++) {
            if (b >= taps[1]) break;
#pragma unroll
            for (int e = 0; e < MAXK; e++) {
              if (e >= taps[2]) break;
              double coeff = any_bad && (bad0 || ((bad[1] >> b | bad[2] >> e) & 1)) ? cval
                                                                                     : value(p[o0 + off[1][b] + off[2][e]]);
              coeff *= w0;
              coeff *= w[1][b];
              t += coeff * w[2][e];
            }
          }
        }
      } else {
        int f[D];
        long long total = 1;
        for (int d = 0; d < nd; d++) { f[d] = 0; total *= taps[d]; }
        for (long long h = 0; h < total; h++) {
          I at = 0;
          bool is_cval = false;
          for (int d = 0; d < nd; d++) {
            at += off[d][f[d]];
            is_cval = is_cval || (bad[d] >> f[d] & 1);
          }
          double coeff = is_cval ? cval : value(p[at]);
          for (int d = 0; d < nd; d++) coeff *= w[d][f[d]];
          t += coeff;
          for (int d = nd - 1; d >= 0; d--) {
            if (++f[d] < taps[d]) break;
            f[d] = 0;
          }
        }
      }
    }
    store(q + i, t);
  }
}

namespace interp {
// Orders 0 and 1 (K) of inputs of 1 to 3 dims (ND), the mode (M) fixed: ndi_interp_low and
// ndi_map_low make each point by ndi_interp's arithmetic (the same bits), laid out for the
// gather that costs most at these orders: a thread takes U points, finds all their taps,
// loads every value, then sums, so that its loads are in flight together. The prefilter's
// padding is 0 at orders 0 and 1 (lua/ndimage_interp.lua's coefficients), so it is not added.

// One point's taps: per dim the offsets (times the stride), weights and GRID_CONSTANT's taps
// outside (bits); ok false where the point is cval
template <int ND, int K> struct LowPoint {
  int off[ND][K + 1];
  double w[ND][K + 1];
  int bad[ND];
};

// One dim's taps at coordinate x, as ndi_interp finds them: false where the point is cval
// (then every offset is 0, so that the loads stay inside)
template <int K, int M>
__device__ __forceinline__ bool low_dim(double x, int n, int stride, int *off, double *w, int &bad) {
  const int tap_mode = M == CONSTANT || M == WRAP ? MIRROR : M;
  bad = 0;
  if (M != GRID_CONSTANT && M != NEAREST && fabs(x) < HUGE_COORD) x = map_coordinate(x, n, M);
  if (!(fabs(x) < HUGE_COORD) || (M != GRID_CONSTANT && M != NEAREST && !(x > -1.0))) {
#pragma unroll
    for (int k = 0; k <= K; k++) {
      off[k] = 0;
      w[k] = 0.0;
    }
    return false;
  }
  const double fl = floor(K & 1 ? x : x + 0.5);
  const int start = (int)(fl < -(MAXK + 2.0) ? -(MAXK + 2.0) : fl > (double)n + MAXK ? (double)n + MAXK : fl);
  if (start >= 0 && start + K < n) {   // every tap inside: read directly
#pragma unroll
    for (int k = 0; k <= K; k++) off[k] = (start + k) * stride;
  } else {   // taps past an edge: mapped by the mode, clamped
#pragma unroll
    for (int k = 0; k <= K; k++) {
      const int j = start + k;
      if (M == GRID_CONSTANT && (j < 0 || j >= n)) bad |= 1 << k;
      off[k] = (int)map_tap(j, n, tap_mode) * stride;
    }
  }
  w[0] = 1.0;   // (order 0: a product by 1, as ndi_interp's)
  if (K == 1) {   // weights()'s at order 1: x less its floor, 1 minus that, and what it leaves
    w[0] = 1.0 - (x - fl);
    w[K] = 1.0 - w[0];
  }
  return true;
}

// A point's taps' values (C order of the taps: the last dim's fastest), read from p
template <int ND, int K, typename T>
__device__ __forceinline__ void low_load(const T *__restrict__ p, const LowPoint<ND, K> &pt, T *v) {
  const int NB = ND > 1 ? K + 1 : 1, NE = ND > 2 ? K + 1 : 1;
#pragma unroll
  for (int a = 0; a <= K; a++)
#pragma unroll
    for (int b = 0; b < NB; b++)
#pragma unroll
      for (int e = 0; e < NE; e++)
        v[(a * NB + b) * NE + e] = p[pt.off[0][a] + (ND > 1 ? pt.off[ND > 1 ? 1 : 0][b] : 0) + (ND > 2 ? pt.off[ND > 2 ? 2 : 0][e] : 0)];
}

// The point's value: its taps' values times their weights, summed as ndi_interp sums them
template <int ND, int K, int M, typename T>
__device__ __forceinline__ double low_sum(const LowPoint<ND, K> &pt, const T *v, double cval) {
  const int NB = ND > 1 ? K + 1 : 1, NE = ND > 2 ? K + 1 : 1, D1 = ND > 1 ? 1 : 0, D2 = ND > 2 ? 2 : 0;
  double t = 0.0;
#pragma unroll
  for (int a = 0; a <= K; a++)
#pragma unroll
    for (int b = 0; b < NB; b++)
#pragma unroll
      for (int e = 0; e < NE; e++) {
        const bool is_cval = M == GRID_CONSTANT &&
                             ((pt.bad[0] >> a | (ND > 1 ? pt.bad[D1] >> b : 0) | (ND > 2 ? pt.bad[D2] >> e : 0)) & 1);
        double coeff = is_cval ? cval : value(v[(a * NB + b) * NE + e]);
        if (ND == 1) {
          t += coeff * pt.w[0][a];
        } else if (ND == 2) {
          coeff *= pt.w[0][a];
          t += coeff * pt.w[D1][b];
        } else {
          coeff *= pt.w[0][a];
          coeff *= pt.w[D1][b];
          t += coeff * pt.w[D2][e];
        }
      }
  return t;
}
}  // namespace interp

// Orders 0 and 1 of zoom, shift and affine_transform (an output of the input's ndim, every
// dim interpolated) on inputs of 1 to 3 dims, int indices: a thread takes one index j of the
// output's last dim and U consecutive rows (the other dims' indices, C order) at a time: a
// 2-D grid (x: j, y: rows), no division by the shape a point. ZOOM_SHIFT finds the last
// dim's taps once for all its rows (they depend on j alone). par, zoom_on, shift_on and grid
// as ndi_interp's (its plan[16..18]). U is chosen by lua/ndimage_interp.lua, which sizes the
// grid by it.
template <typename T, typename O, int ND, int K, int M, int KD, int U>
__global__ void ndi_interp_low(gpu::array<T> in, gpu::array<O> out, const double *__restrict__ par, int zoom_on,
                               int shift_on, int grid, double cval) {
  using namespace interp;
  const int NV = ND == 1 ? K + 1 : ND == 2 ? (K + 1) * (K + 1) : (K + 1) * (K + 1) * (K + 1);
  const T *__restrict__ p = in.ptr();
  O *__restrict__ q = out.data;
  int len[ND], str[ND];
  double zoom[ND], shift[ND], offset[ND], mat[ND][ND];
#pragma unroll
  for (int d = 0; d < ND; d++) {
    len[d] = (int)in.shape[d];
    str[d] = (int)in.stride[d];
    zoom[d] = KD == ZOOM_SHIFT && zoom_on ? par[72 + d] : 0.0;
    shift[d] = KD == ZOOM_SHIFT && shift_on ? par[80 + d] : 0.0;
    offset[d] = KD == AFFINE ? par[64 + d] : 0.0;
#pragma unroll
    for (int l = 0; l < ND; l++) mat[d][l] = KD == AFFINE ? par[d * ND + l] : 0.0;
  }
  const int cols = (int)out.shape[ND - 1], mid = ND == 3 ? (int)out.shape[1] : 1;
  const int rows = ND == 1 ? 1 : (int)out.shape[0] * mid;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += gridDim.x * blockDim.x) {
    const double xj = (double)j;
    LowPoint<ND, K> col;   // (ZOOM_SHIFT: the last dim's taps, every row's)
    bool col_ok = true;
    if (KD == ZOOM_SHIFT) {
      double x = xj;
      if (shift_on) x += shift[ND - 1];
      if (zoom_on) x = grid ? (x + 0.5) * zoom[ND - 1] - 0.5 : x * zoom[ND - 1];
      col_ok = low_dim<K, M>(x, len[ND - 1], str[ND - 1], col.off[ND - 1], col.w[ND - 1], col.bad[ND - 1]);
    }
    for (int r0 = (blockIdx.y * blockDim.y + threadIdx.y) * U; r0 < rows; r0 += gridDim.y * blockDim.y * U) {
      // the first row's output index, as doubles (the next rows' by adding 1: exact, and
      // no conversion a row); o1 the index along dim 1 of 3 (where it wraps)
      double xo[ND];
      int o1 = 0;
      xo[ND - 1] = xj;
      if (ND == 2) xo[0] = (double)r0;
      if (ND == 3) {
        const int o0 = r0 / mid;
        o1 = r0 - o0 * mid;
        xo[0] = (double)o0;
        xo[ND == 3 ? 1 : 0] = (double)o1;
      }
      LowPoint<ND, K> pt[U];
      bool ok[U];
      T v[U][NV];
#pragma unroll
      for (int u = 0; u < U; u++) {   // every point's taps (rows past the last: clamped, not stored)
        ok[u] = true;
#pragma unroll
        for (int d = 0; d < ND; d++) {
          if (KD == ZOOM_SHIFT && d == ND - 1) {
#pragma unroll
            for (int k = 0; k <= K; k++) {
              pt[u].off[d][k] = col.off[d][k];
              pt[u].w[d][k] = col.w[d][k];
            }
            pt[u].bad[d] = col.bad[d];
            ok[u] = ok[u] && col_ok;
            continue;
          }
          double x;
          if (KD == ZOOM_SHIFT) {
            x = xo[d];
            if (shift_on) x += shift[d];
            if (zoom_on) x = grid ? (x + 0.5) * zoom[d] - 0.5 : x * zoom[d];
          } else {
            x = 0.0;
#pragma unroll
            for (int l = 0; l < ND; l++) x += xo[l] * mat[d][l];
            x += offset[d];
          }
          const bool in_dim = low_dim<K, M>(x, len[d], str[d], pt[u].off[d], pt[u].w[d], pt[u].bad[d]);
          ok[u] = ok[u] && in_dim;
        }
        if (ND == 2) xo[0] += 1.0;
        if (ND == 3) {
          if (++o1 == mid) {
            o1 = 0;
            xo[ND == 3 ? 1 : 0] = 0.0;
            xo[0] += 1.0;
          } else {
            xo[ND == 3 ? 1 : 0] += 1.0;
          }
        }
      }
#pragma unroll
      for (int u = 0; u < U; u++) low_load<ND, K>(p, pt[u], v[u]);
#pragma unroll
      for (int u = 0; u < U; u++)
        if (r0 + u < rows) store(q + (r0 + u) * cols + j, ok[u] ? low_sum<ND, K, M>(pt[u], v[u], cval) : cval);
    }
  }
}

// Orders 0 and 1 of map_coordinates on inputs of 1 to 3 dims, int indices: a thread takes U
// points blockDim.x apart (a warp's loads of coordinates and results coalesced); U as
// ndi_interp_low's
template <typename T, typename O, typename C, int ND, int K, int M, int U>
__global__ void ndi_map_low(gpu::array<T> in, gpu::array<O> out, gpu::array<C> coords, double cval) {
  using namespace interp;
  const int NV = ND == 1 ? K + 1 : ND == 2 ? (K + 1) * (K + 1) : (K + 1) * (K + 1) * (K + 1);
  const T *__restrict__ p = in.ptr();
  O *__restrict__ q = out.data;
  const C *__restrict__ pc = coords.data;
  int len[ND], str[ND];
#pragma unroll
  for (int d = 0; d < ND; d++) {
    len[d] = (int)in.shape[d];
    str[d] = (int)in.stride[d];
  }
  const int size = (int)out.size, step = blockDim.x;
  for (int i0 = blockIdx.x * step * U + threadIdx.x; i0 < size; i0 += gridDim.x * step * U) {
    double x[U][ND];
#pragma unroll
    for (int u = 0; u < U; u++)
#pragma unroll
      for (int d = 0; d < ND; d++) x[u][d] = i0 + u * step < size ? (double)pc[d * size + i0 + u * step] : 0.0;
    LowPoint<ND, K> pt[U];
    bool ok[U];
    T v[U][NV];
#pragma unroll
    for (int u = 0; u < U; u++) {
      ok[u] = true;
#pragma unroll
      for (int d = 0; d < ND; d++) {
        const bool in_dim = low_dim<K, M>(x[u][d], len[d], str[d], pt[u].off[d], pt[u].w[d], pt[u].bad[d]);
        ok[u] = ok[u] && in_dim;
      }
    }
#pragma unroll
    for (int u = 0; u < U; u++) low_load<ND, K>(p, pt[u], v[u]);
#pragma unroll
    for (int u = 0; u < U; u++)
      if (i0 + u * step < size) store(q + i0 + u * step, ok[u] ? low_sum<ND, K, M>(pt[u], v[u], cval) : cval);
  }
}

namespace interp {
// a value's real and imaginary parts (real inputs: no imaginary part at all, so that
// scipy's real arithmetic is done, zeros' signs included)
template <typename T> struct Parts {
  static const bool complex = false;
  __device__ static void get(T x, double &re, double &im) { re = value(x); im = 0.0; }
};
template <typename F> struct Parts<gpu::complex<F> > {
  static const bool complex = true;
  __device__ static void get(gpu::complex<F> x, double &re, double &im) { re = (double)x.re; im = (double)x.im; }
};
template <typename O> __device__ inline void put_parts(O *p, double re, double) { *p = (O)re; }
__device__ inline void put_parts(gpu::complex64 *p, double re, double im) { *p = gpu::complex64((float)re, (float)im); }
__device__ inline void put_parts(gpu::complex128 *p, double re, double im) { *p = gpu::complex128(re, im); }
enum { PRODUCT = 0, ELLIPSOID = 1, SHIFT = 2 };
}  // namespace interp

// scipy's Fourier filters of an FFT's output: each element (C order over in's shape, out
// C-ordered) times a factor made from one table a dim (tab from at[d]; at[d] < 0: none,
// a factor of 1), as `kind` says: PRODUCT (fourier_gaussian, fourier_uniform) the tables'
// product; ELLIPSOID a function of the tables' sum r^2 (sin r / r in 1-D, 2 J1(r) / r in 2-D,
// 3 (sin r - r cos r) / r^3 in 3-D; 1 at r = 0); SHIFT: e^(i t), t the tables' sum
template <typename T, typename O>
__global__ void ndi_fourier(gpu::array<T> in, O *out, const double *__restrict__ tab, const long long *__restrict__ at,
                            int kind) {
  using namespace interp;
  const int nd = in.ndim;
  const T *p = in.ptr();
  const bool small = in.size <= 0xffffffffLL;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < in.size; i += (long long)gridDim.x * blockDim.x) {
    long long rem = i, off = 0, c[MAXD];   // (loops of fixed bounds: c in registers)
    double prod = 1.0, sum = 0.0;
#pragma unroll
    for (int d = MAXD - 1; d >= 0; d--) {
      if (d >= nd) continue;
      c[d] = next_index(rem, in.shape[d], small);
      off += c[d] * in.stride[d];
    }
#pragma unroll
    for (int d = 0; d < MAXD; d++) {   // in dim order, as scipy multiplies and adds them
      if (d >= nd || at[d] < 0) continue;
      const double v = tab[at[d] + c[d]];
      prod *= v;
      sum += v;
    }
    double f = prod;
    if (kind == ELLIPSOID) {
      if (nd == 1) {
        f = sum != 0 ? sin(sum) / sum : 1.0;
      } else if (nd == 2) {
        const double r = sqrt(sum);
        f = r > 0.0 ? 2.0 * j1(r) / r : 1.0;
      } else if (nd == 3) {
        const double r = sqrt(sum);
        f = r > 0.0 ? 3.0 * (sin(r) - r * cos(r)) / (r * r * r) : 1.0;
      } else {
        f = 1.0;
      }
    }
    double re, im;
    Parts<T>::get(p[off], re, im);
    if (kind == SHIFT) {
      const double s = sin(sum), co = cos(sum);
      if (Parts<T>::complex) put_parts(out + i, re * co - im * s, re * s + im * co);
      else put_parts(out + i, re * co, re * s);
    } else {
      put_parts(out + i, re * f, Parts<T>::complex ? im * f : 0.0);
    }
  }
}
