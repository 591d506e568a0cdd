// builtin.cu: the kernels behind gpu.full, gpu.ones, gpu.arange and gpu.random
// (lua/gpu.lua and lua/random.lua launch them), and gpu.take, extract, searchsorted,
// histogram and integer products (lua/compose.lua). Each loops over its elements with a
// grid stride, so any grid size is correct.
//
// Random numbers come from Philox4x32-10 (gpuhost.cuh has it), a counter-based generator:
// element group g of call c under seed s is philox({g, c}, s), so the numbers depend only
// on seed, call and index.

// Philox4x32-10 and the conversions to [0, 1) are gpuhost.cuh's (gpu::philox4x32_10).
using gpu::philox4x32_10;
using gpu::unit_float;
using gpu::unit_double;
typedef gpu::philox4 philox_out;

// Most of the array is written 16 bytes at a time (allocations are 256-byte aligned).
template <typename T>
__global__ void fill(T *a, long long n, T value) {
  long long stride = (long long)gridDim.x * blockDim.x, first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int per = 16 / sizeof(T);
  union { uint4 v; T e[16 / sizeof(T)]; } pattern;
  for (int j = 0; j < per; j++) pattern.e[j] = value;
  long long vectors = n / per;
  uint4 *v = reinterpret_cast<uint4 *>(a);
  for (long long i = first; i < vectors; i += stride) v[i] = pattern.v;
  for (long long i = vectors * per + first; i < n; i += stride) a[i] = value;
}

// NumPy's: start, then second (start + step, of Python ints exact), rounded once each to
// T, then start + i * step from i = 2 on, step the difference of the first two in float64
// (start itself first: start + 0 * step would make a -0.0 start 0.0)
template <typename T>
__global__ void arange(T *a, long long n, double start, double second, double step) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    a[i] = (T)(i == 0 ? start : i == 1 ? second : start + (double)i * step);
}

// [lo, hi) as promised: lo + (hi - lo) * u for u just below 1 rounds to hi itself (about
// once in 2^18 draws of float32 uniform(100, 101)); the value next to hi toward lo instead
__device__ inline float open_above(float v, float lo, float hi) { return v == hi && lo != hi ? nextafterf(hi, lo) : v; }
__device__ inline double open_above(double v, double lo, double hi) { return v == hi && lo != hi ? nextafter(hi, lo) : v; }

// float32: 4 elements a group; float64: 2
__global__ void uniform_float32(float *a, long long n, unsigned long long seed,
                                unsigned long long call, float lo, float hi) {
  long long groups = (n + 3) / 4;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    float4 f = make_float4(open_above(lo + (hi - lo) * unit_float(r.v[0]), lo, hi),
                           open_above(lo + (hi - lo) * unit_float(r.v[1]), lo, hi),
                           open_above(lo + (hi - lo) * unit_float(r.v[2]), lo, hi),
                           open_above(lo + (hi - lo) * unit_float(r.v[3]), lo, hi));
    if (4 * g + 3 < n) reinterpret_cast<float4 *>(a)[g] = f;
    else for (int j = 0; j < 4 && 4 * g + j < n; j++) a[4 * g + j] = (&f.x)[j];
  }
}

__global__ void uniform_float64(double *a, long long n, unsigned long long seed,
                                unsigned long long call, double lo, double hi) {
  long long groups = (n + 1) / 2;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    double2 d = make_double2(open_above(lo + (hi - lo) * unit_double(r.v[0], r.v[1]), lo, hi),
                             open_above(lo + (hi - lo) * unit_double(r.v[2], r.v[3]), lo, hi));
    if (2 * g + 1 < n) reinterpret_cast<double2 *>(a)[g] = d;
    else a[2 * g] = d.x;
  }
}

// Box-Muller: each pair of uniforms gives a pair of normals
__global__ void normal_float32(float *a, long long n, unsigned long long seed,
                               unsigned long long call, float mean, float stddev) {
  long long groups = (n + 3) / 4;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    float4 f;
    for (int j = 0; j < 4; j += 2) {
      float u1 = 1.0f - unit_float(r.v[j]), u2 = unit_float(r.v[j + 1]);
      float rad = sqrtf(-2.0f * logf(u1)), s, c;
      sincospif(2.0f * u2, &s, &c);
      (&f.x)[j] = mean + stddev * rad * c;
      (&f.x)[j + 1] = mean + stddev * rad * s;
    }
    if (4 * g + 3 < n) reinterpret_cast<float4 *>(a)[g] = f;
    else for (int j = 0; j < 4 && 4 * g + j < n; j++) a[4 * g + j] = (&f.x)[j];
  }
}

__global__ void normal_float64(double *a, long long n, unsigned long long seed,
                               unsigned long long call, double mean, double stddev) {
  long long groups = (n + 1) / 2;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    double u1 = 1.0 - unit_double(r.v[0], r.v[1]), u2 = unit_double(r.v[2], r.v[3]);
    double rad = sqrt(-2.0 * log(u1)), s, c;
    sincospi(2.0 * u2, &s, &c);
    if (2 * g + 1 < n) reinterpret_cast<double2 *>(a)[g] = make_double2(mean + stddev * rad * c, mean + stddev * rad * s);
    else a[2 * g] = mean + stddev * rad * c;
  }
}

// integers in [low, low + range): 64 random bits an element (two a group), times range,
// the high half (a bias below range / 2^64); range 0 stands for 2^64
template <typename T>
__global__ void integers(T *a, long long n, unsigned long long seed, unsigned long long call, long long low,
                         long long range_bits) {
  const unsigned long long range = (unsigned long long)range_bits;
  long long groups = (n + 1) / 2;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    for (int j = 0; j < 2 && 2 * g + j < n; j++) {
      unsigned long long bits = (unsigned long long)r.v[2 * j] << 32 | r.v[2 * j + 1];
      unsigned long long v = range ? __umul64hi(bits, range) : bits;
      a[2 * g + j] = (T)(long long)((unsigned long long)low + v);
    }
  }
}

// 64 random bits an element, for shuffles (sorted by: permutation, choice)
__global__ void random_bits(unsigned long long *a, long long n, unsigned long long seed, unsigned long long call) {
  long long groups = (n + 1) / 2;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    for (int j = 0; j < 2 && 2 * g + j < n; j++) a[2 * g + j] = (unsigned long long)r.v[2 * j] << 32 | r.v[2 * j + 1];
  }
}

// numba's xoroshiro128+ states (gpu.random.create_xoroshiro128p_states, lua/random.lua):
// state m is state 0 jumped m times by 2^64 steps, and a jump is linear over GF(2): its
// power J^(2^k) is a 128 x 128 bit matrix, k = 0 .. 63, and comes here as 16 tables (one a
// byte of the state s0, s1) of the 256 sums of that byte's columns, so that applying one is
// 16 lookups. Thread t of the 2^p makes state start + t with the matrices of the set bits
// of start + t, then the states 2^p apart from it with matrix p each.
__device__ inline void xoroshiro_apply(const unsigned long long *t, unsigned long long &s0, unsigned long long &s1) {
  unsigned long long a = 0, b = 0;
  for (int j = 0; j < 16; j++) {
    const unsigned long long *e = t + (j * 256 + (((j < 8 ? s0 : s1) >> (8 * (j & 7))) & 255)) * 2;
    a ^= e[0];
    b ^= e[1];
  }
  s0 = a;
  s1 = b;
}

__global__ void xoroshiro_states(unsigned long long *out, long long n, unsigned long long state0,
                                 unsigned long long start, const unsigned long long *tables, int p) {
  const long long size = 16 * 256 * 2;   // a matrix's tables
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long s0 = state0, s1 = state0;
  int k = 0;
  for (unsigned long long m = start + (unsigned long long)i; m; m >>= 1, k++)
    if (m & 1) xoroshiro_apply(tables + k * size, s0, s1);
  for (;;) {
    out[2 * i] = s0;
    out[2 * i + 1] = s1;
    i += 1ll << p;
    if (i >= n) break;
    xoroshiro_apply(tables + p * size, s0, s1);
  }
}

// rows (of len elements of T, the width of the arrays' dtype) of src in the order of the
// 1-based indices idx
template <typename T>
__global__ void take_rows(const void *src_, void *dst_, const long long *idx, long long rows, long long len) {
  const T *src = static_cast<const T *>(src_);
  T *dst = static_cast<T *>(dst_);
  long long n = rows * len;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    long long r = i / len, c = i - r * len;
    dst[i] = src[(idx[r] - 1) * len + c];
  }
}

// gpu.take: src is (outer, n, inner) and dst (outer, m, inner), in words of T (an element,
// or 8 bytes of one); dst[o][j] = src[o][idx[j]] for 1-based indices (negative ones count
// from the end). An index out of range leaves its elements unwritten and is recorded in
// bad ({1, the index}: some one of them), for the host to raise.
template <typename T>
__global__ void take_dim(const void *src_, void *dst_, const long long *idx, long long outer, long long n,
                         long long m, long long inner, long long *bad) {
  const T *src = static_cast<const T *>(src_);
  T *dst = static_cast<T *>(dst_);
  long long total = outer * m * inner;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    long long r = inner == 1 ? i : i / inner, c = i - r * inner, o = outer == 1 ? 0 : r / m, j = r - o * m;
    long long k = idx[j], at = k > 0 ? k - 1 : k + n;
    if (k == 0 || at < 0 || at >= n) {
      bad[1] = k;
      bad[0] = 1;
    } else {
      dst[i] = src[(o * n + at) * inner + c];
    }
  }
}

// gpu.extract: the rows (inner words of T) of src whose mask is set go to dst in order: row r
// to row pos[r] - 1 (pos: the mask's inclusive cumulative sum)
template <typename T>
__global__ void extract_rows(const void *src_, void *dst_, const bool *mask, const long long *pos, long long rows,
                             long long inner) {
  const T *src = static_cast<const T *>(src_);
  T *dst = static_cast<T *>(dst_);
  long long total = rows * inner;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    long long r = inner == 1 ? i : i / inner, c = i - r * inner;
    if (mask[r]) dst[(pos[r] - 1) * inner + c] = src[i];
  }
}

// NumPy's order of sorting: NaN after every number
template <typename T> __device__ bool sorts_before(T x, T y) { return x < y || (y != y && x == x); }

// gpu.searchsorted: for each of v's m values, the 1-based place in sorted a (n values)
// where it would go: before the first element not before it (left), or after the last
// element not after it (right)
template <typename T>
__global__ void search_sorted(const T *a, long long n, const T *v, long long m, int right, long long *out) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
    T x = v[i];
    long long lo = 0, hi = n;
    while (lo < hi) {
      long long mid = lo + (hi - lo) / 2;
      bool go_right = right ? !sorts_before(x, a[mid]) : sorts_before(a[mid], x);
      if (go_right) lo = mid + 1; else hi = mid;
    }
    out[i] = lo + 1;
  }
}

// gpu.histogram: counts of x's n values in bins equal bins with edges (bins + 1 of them,
// ascending, of type E: float for float32 data, else double, as NumPy's), the last bin
// closed; values outside (and NaN) are not counted. The bin is found as NumPy finds it:
// from (x - lo) / (hi - lo) * bins, then moved by one where the edges say so.
template <typename T, typename E>
__device__ long long histogram_bin(T x, const E *edges, long long bins) {
  E v = (E)x;
  if (!(v >= edges[0] && v <= edges[bins])) return -1;
  long long b = (long long)((double)(v - edges[0]) / (double)(edges[bins] - edges[0]) * (double)bins);
  if (b >= bins) b = bins - 1;
  if (b < 0) b = 0;
  if (b > 0 && v < edges[b]) b--;
  else if (b < bins - 1 && v >= edges[b + 1]) b++;
  return b;
}

// Many values, few bins: each block counts in shared memory (bins 32-bit counters, the
// launch's dynamic shared memory), then adds its counts to the global ones
template <typename T, typename E>
__global__ void histogram_shared(const T *x, long long n, const E *edges, long long bins, unsigned long long *counts) {
  extern __shared__ unsigned int block_counts[];
  for (long long b = threadIdx.x; b < bins; b += blockDim.x) block_counts[b] = 0;
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    long long b = histogram_bin(x[i], edges, bins);
    if (b >= 0) atomicAdd(&block_counts[b], 1u);
  }
  __syncthreads();
  for (long long b = threadIdx.x; b < bins; b += blockDim.x)
    if (block_counts[b]) atomicAdd(&counts[b], (unsigned long long)block_counts[b]);
}

// Many bins: straight to the global counts
template <typename T, typename E>
__global__ void histogram_global(const T *x, long long n, const E *edges, long long bins, unsigned long long *counts) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    long long b = histogram_bin(x[i], edges, bins);
    if (b >= 0) atomicAdd(&counts[b], 1ULL);
  }
}

// for each u, the 1-based index of the first cdf entry above it (cdf ascending, n entries)
__global__ void search_cdf(const double *cdf, long long n, const double *u, long long m, long long *out) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x) {
    double x = u[i] * cdf[n - 1];
    long long lo = 0, hi = n - 1;
    while (lo < hi) {
      long long mid = (lo + hi) / 2;
      if (cdf[mid] > x) hi = mid; else lo = mid + 1;
    }
    out[i] = lo + 1;
  }
}

// weighted sampling without replacement (Efraimidis and Spirakis): key -log(u) / w, the k
// smallest keys taken (a weight of 0: never, while others remain). In logs, log(-log u) -
// log w (the same order): -log(u) / w overflowed to +inf for a subnormal w, the zero
// weights' key, and a zero weight could be taken first; now every positive w's key is finite
__global__ void weighted_keys(const double *w, long long n, unsigned long long seed, unsigned long long call, double *key) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)i, call, seed);
    double u = 1.0 - unit_double(r.v[0], r.v[1]);   // (0, 1]
    key[i] = w[i] > 0 ? log(-log(u)) - log(w[i]) : __longlong_as_double(0x7ff0000000000000LL);
  }
}

// gpu.matmul of integer and bool arrays (no BLAS has them; lua/compose.lua launches it): c =
// a @ b for each of `batch` C-ordered (m, k) and (k, n) matrices. A block of 16 x 16
// threads makes a 64 x 64 tile of c, each thread 4 x 4 of its elements (rows ty + 16 r,
// columns tx + 16 c), from 64 x 16 and 16 x 64 slices of a and b staged in shared memory;
// the grid strides over tiles and batch. The sums are made in U, unsigned, so that they
// wrap as NumPy's do (the result's bits are the low ones of the sum); bools are or-ed ands.
template <typename T, typename U> struct MatmulSum {
  static __device__ U add(U acc, T x, T y) { return acc + (U)x * (U)y; }
  static __device__ T result(U acc) { return (T)acc; }
};
template <> struct MatmulSum<bool, unsigned int> {
  static __device__ unsigned int add(unsigned int acc, bool x, bool y) { return acc | (unsigned int)(x && y); }
  static __device__ bool result(unsigned int acc) { return acc != 0; }
};

template <typename T, typename U>
__device__ void int_matmul_tile(const T *a, const T *b, T *c, long long m, long long n, long long k,
                                long long row0, long long col0, T (*sa)[17], T (*sb)[65]) {
  int tx = threadIdx.x, ty = threadIdx.y;
  U acc[4][4];
  for (int r = 0; r < 4; r++)
    for (int q = 0; q < 4; q++) acc[r][q] = 0;
  for (long long t = 0; t < k; t += 16) {
    for (int r = 0; r < 4; r++) {
      long long i = row0 + ty + 16 * r, j = col0 + tx + 16 * r;
      sa[ty + 16 * r][tx] = i < m && t + tx < k ? a[i * k + t + tx] : T(0);
      sb[ty][tx + 16 * r] = t + ty < k && j < n ? b[(t + ty) * n + j] : T(0);
    }
    __syncthreads();
    for (int q = 0; q < 16; q++) {
      T x[4], y[4];
      for (int r = 0; r < 4; r++) x[r] = sa[ty + 16 * r][q], y[r] = sb[q][tx + 16 * r];
      for (int r = 0; r < 4; r++)
        for (int s = 0; s < 4; s++) acc[r][s] = MatmulSum<T, U>::add(acc[r][s], x[r], y[s]);
    }
    __syncthreads();
  }
  for (int r = 0; r < 4; r++)
    for (int s = 0; s < 4; s++) {
      long long i = row0 + ty + 16 * r, j = col0 + tx + 16 * s;
      if (i < m && j < n) c[i * n + j] = MatmulSum<T, U>::result(acc[r][s]);
    }
}

template <typename T, typename U>
__global__ void int_matmul(const T *a, const T *b, T *c, long long batch, long long m, long long n, long long k) {
  __shared__ T sa[64][17];
  __shared__ T sb[16][65];
  long long tiles_m = (m + 63) / 64, tiles_n = (n + 63) / 64;
  for (long long z = blockIdx.z; z < batch; z += gridDim.z)
    for (long long bi = blockIdx.y; bi < tiles_m; bi += gridDim.y)
      for (long long bj = blockIdx.x; bj < tiles_n; bj += gridDim.x)
        int_matmul_tile<T, U>(a + z * m * k, b + z * k * n, c + z * m * n, m, n, k, bi * 64, bj * 64, sa, sb);
}

// ---- gpu.random's distributions (lua/random.lua): element i of call c draws from a
// Philox stream of its own (gpu::philox(seed, c, i << 24): 2^24 blocks an element, more
// than any loop here takes, for up to 2^40 elements), so that a rejection loop's length
// changes no other element's numbers and every backend gives the same ones. They compute in
// double (float32 output is the double rounded). The algorithms are NumPy's legacy ones
// except for gamma (Marsaglia and Tsang), small Poisson means (inversion, one uniform in
// place of about lam + 1), large binomials (Knuth's splitting by beta order statistics,
// in place of BTPE) and the Wald's root (a form that does not cancel): the same
// distributions, not the same numbers.
struct sampler {
  gpu::philox r;
  __device__ sampler(unsigned long long seed, unsigned long long call, long long i)
      : r(seed, call, (unsigned long long)i << 24) {}
  __device__ double u() { return r.uniform_double(); }   // [0, 1)
  __device__ double open() {                             // (0, 1)
    double x;
    do x = u(); while (x == 0.0);
    return x;
  }
  __device__ double normal() { return r.normal_double(); }
  __device__ double exponential() { return -log(1.0 - u()); }
  // Marsaglia and Tsang (2000), k >= 1: a normal squeezed, accepted 96% of the time or more
  __device__ double gamma_ge1(double k) {
    double d = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do { x = normal(); v = 1.0 + c * x; } while (v <= 0.0);
      v = v * v * v;
      double w = u();
      if (w < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
      if (log(w) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
  }
  // k < 1 from k + 1 (Marsaglia and Tsang's boost: times u^(1/k)); k = 0 gives 0, as NumPy's
  __device__ double gamma(double k) {
    if (k <= 0.0) return 0.0;
    if (k == 1.0) return exponential();
    if (k > 1.0) return gamma_ge1(k);
    return gamma_ge1(k + 1.0) * pow(open(), 1.0 / k);
  }
  // Johnk's algorithm for a, b <= 1 (in logs where both powers underflow), as NumPy's;
  // else the ratio of gammas
  __device__ double beta(double a, double b) {
    if (a > 1.0 || b > 1.0) {
      double x = gamma(a), y = gamma(b);
      return x / (x + y);
    }
    for (;;) {
      double s = u(), t = u(), x = pow(s, 1.0 / a), y = pow(t, 1.0 / b);
      if (x + y > 1.0 || s + t <= 0.0) continue;
      if (x + y > 0.0) return x / (x + y);
      double lx = log(s) / a, ly = log(t) / b, m = lx > ly ? lx : ly;
      if (lx - ly != lx - ly) {   // both -inf (subnormal a and b): the limit, 0 or 1; the larger
        double kx = log(-log(s)) - log(a), ky = log(-log(t)) - log(b);   // log wins: the smaller k
        return kx < ky ? 1.0 : kx > ky ? 0.0 : 0.5;
      }
      lx -= m;
      ly -= m;
      return exp(lx - log(exp(lx) + exp(ly)));
    }
  }
  // Poisson: multiplication of uniforms below 10 (Knuth), else Hoermann's PTRS (1993), as NumPy's
  __device__ long long poisson(double lam) {
    if (lam < 10.0) {   // inversion: one uniform, the CDF summed until it passes it
      double p = exp(-lam), cdf = p, v = u();
      long long x = 0;
      while (v >= cdf && x < 200) {   // past 200 the terms underflow: the CDF's rounding
        x++;
        p *= lam / (double)x;
        cdf += p;
      }
      return x;
    }
    double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
      double h = u() - 0.5, v = u(), us = 0.5 - fabs(h);
      if (us <= 0.0) continue;   // u = 0: the hat's edge, of no mass
      double kd = floor((2.0 * a / us + b) * h + lam + 0.43);
      if (us >= 0.07 && v <= vr) return (long long)kd;
      if (kd < 0.0 || kd >= 9.2e18 || (us < 0.013 && v > us)) continue;
      if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lam + kd * loglam - lgamma(kd + 1.0)) return (long long)kd;
    }
  }
  // inversion, p <= 1/2 and n * p <= 30 (q^n stays above e^-42): NumPy's, with its bound;
  // q^n from log1p(-p), where NumPy's log(q) of the rounded q = 1 - p is off by up to half an
  // ulp of 1 (2^-53 at p = 1e-17: q = 1, q^n = 1 and always 0; at n = 10^15 and p = 1e-14,
  // q^n 0.8% high). q itself, within an ulp of 1, only divides
  __device__ long long binomial_inversion(long long n, double p) {
    double q = 1.0 - p, qn = exp((double)n * log1p(-p)), np = (double)n * p;
    double bound = fmin((double)n, np + 10.0 * sqrt(np * q + 1.0)), px = qn, w = u();
    long long x = 0;
    while (w > px) {
      x++;
      if ((double)x > bound) { x = 0; px = qn; w = u(); }
      else { w -= px; px = ((double)(n - x + 1) * p * px) / ((double)x * q); }
    }
    return x;
  }
  // Knuth (TAOCP 3.4.1): the a-th smallest of n uniforms is beta(a, n + 1 - a); those
  // below p are then a binomial of the a - 1 below it or of the n - a above it, so n halves.
  // A p above 1/2 is drawn as n minus a binomial of 1 - p (exact there), so that a 1 - p
  // tiny beside n's scale keeps its digits (p - x of a p near 1 kept none: binomial(10^18,
  // 1 - 1e-15) had 4 times its variance); the count is k + sign * (a binomial of n and p)
  __device__ long long binomial(long long n, double p) {
    long long k = 0, sign = 1;
    for (;;) {
      if (p > 0.5) { k += sign * n; sign = -sign; p = 1.0 - p; }
      if (!(n > 0 && (double)n * p > 30.0)) return k + sign * binomial_inversion(n, p);
      long long a = 1 + n / 2, b = n + 1 - a;
      double x = beta((double)a, (double)b);
      if (x >= p) { n = a - 1; p = p / x; }
      else { k += sign * a; n = b - 1; p = (p - x) / (1.0 - x); }
    }
  }
  // hypergeometric: the good ones among nsample of ngood + nbad, by inversion searched
  // outward from the mode; the weights are relative to the mode's (ratios of binomials),
  // so no lgamma: their total first, then one uniform times it spent term by term
  __device__ long long hypergeometric(double good, double bad, long long nsample) {
    double ns = (double)nsample, lo = fmax(0.0, ns - bad), hi = fmin(ns, good);
    double m = floor((ns + 1.0) * (good + 1.0) / (good + bad + 2.0));
    m = fmin(fmax(m, lo), hi);
    double total = 1.0, t = 1.0;
    for (double k = m; k < hi && t >= total * 1e-17; k += 1.0) {
      t *= (good - k) * (ns - k) / ((k + 1.0) * (bad - ns + k + 1.0));
      total += t;
    }
    t = 1.0;
    for (double k = m; k > lo && t >= total * 1e-17; k -= 1.0) {
      t *= k * (bad - ns + k) / ((good - k + 1.0) * (ns - k + 1.0));
      total += t;
    }
    double v = u() * total - 1.0, up = m, down = m, tu = 1.0, td = 1.0;
    while (v >= 0.0) {
      bool more_up = up < hi && tu >= total * 1e-17, more_down = down > lo && td >= total * 1e-17;
      if (!more_up && !more_down) return (long long)m;   // the rounding's leftover
      if (more_up) {
        tu *= (good - up) * (ns - up) / ((up + 1.0) * (bad - ns + up + 1.0));
        up += 1.0;
        if ((v -= tu) < 0.0) return (long long)up;
      }
      if (more_down) {
        td *= down * (bad - ns + down) / ((good - down + 1.0) * (ns - down + 1.0));
        down -= 1.0;
        if ((v -= td) < 0.0) return (long long)down;
      }
    }
    return (long long)m;
  }
  // zipf, a > 1: Devroye's rejection from the continuous Pareto, floored. The Pareto is
  // drawn below 9.2e18 only (as NumPy's Generator): its uniform U = 1 - u w spans
  // (9.2e18^-am1, 1], w = 1 - 9.2e18^-am1, so that the test below rejects none (else for a
  // near 1 nearly every U gave x = inf, 1 / am1 rejections a draw); in logs, so that U
  // near 1 keeps its resolution
  __device__ long long zipf(double a) {
    double am1 = a - 1.0, b = pow(2.0, am1), w = -expm1(-am1 * log(9.2e18));
    if (am1 >= 1023.0) return 1;   // P(X > 1) below 2^-1023; b would overflow
    for (;;) {
      double x = floor(exp(-log1p(-u() * w) / am1)), v = u();
      if (!(x >= 1.0 && x < 9.2e18)) continue;   // rounding at the top end only
      double t = pow(1.0 + 1.0 / x, am1);
      if (v * x * (t - 1.0) / (b - 1.0) <= t / b) return (long long)x;
    }
  }
  // logseries, 0 <= p < 1: Kemp's (1981) second algorithm
  __device__ long long logseries(double p) {
    double r = log1p(-p);
    for (;;) {
      double v = u();
      if (v >= p) return 1;
      double q = -expm1(r * u());
      if (v <= q * q) {
        double x = floor(1.0 + log(v) / log(q));
        if (x < 1.0 || v == 0.0) continue;
        return x >= 9.2e18 ? 9223372036854775807LL : (long long)x;
      }
      return v >= q ? 1 : 2;
    }
  }
  // von Mises on [-pi, pi]: Best and Fisher's (1979) rejection; a wrapped normal for a
  // large kappa, a uniform angle for a tiny one, as NumPy's
  __device__ double vonmises(double mu, double kappa) {
    const double pi = 3.141592653589793;
    if (kappa < 1e-8) return pi * (2.0 * u() - 1.0);
    double w;
    if (kappa > 1e6) w = mu + sqrt(1.0 / kappa) * normal();
    else {
      double s;
      if (kappa < 1e-5) s = 1.0 / kappa + kappa;
      else {
        double r = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa), rho = (r - sqrt(2.0 * r)) / (2.0 * kappa);
        s = (1.0 + rho * rho) / (2.0 * rho);
      }
      double c;
      for (;;) {
        double z = cos(pi * u());
        c = (1.0 + s * z) / (s + z);
        double y = kappa * (s - c), v = u();
        if (y * (2.0 - y) - v >= 0.0 || log(y / v) + 1.0 - y >= 0.0) break;
      }
      w = acos(fmax(-1.0, fmin(1.0, c)));
      if (u() < 0.5) w = -w;
      w += mu;
    }
    double m = fmod(fabs(w) + pi, 2.0 * pi) - pi;   // back into [-pi, pi], the sign kept
    return w < 0.0 ? -m : m;
  }
  // inverse Gaussian (Michael, Schucany and Haas): the smaller root of the chi-square's
  // equation, mean (s - 1) / (s + 1) with s = sqrt(1 + t), t = 4 scale / y, written as
  // mean t / (1 + s)^2, which cancels nowhere. NumPy's legacy form, mean + mean / (2 scale) *
  // (y - sqrt(4 scale y + y^2)), cancels where y (mean times a squared normal) is large
  // (zeros from mean = 1e7, negative draws from 1e8); NumPy 2's Generator's, mean (1 - 2 /
  // (1 + s)), loses digits there (zeros from mean = 1e15). t past the largest double (y = 0 or
  // a huge scale): the root is mean
  __device__ double wald(double mean, double scale) {
    double y = normal();
    y = mean * y * y;
    double t = 4.0 * scale / y, d = 1.0 + sqrt(1.0 + t);
    double x = t <= 1.7976931348623157e308 ? mean * (t / d / d) : mean;
    return u() <= mean / (mean + x) ? x : mean * mean / x;
  }
  // a Poisson whose mean may pass the largest int64: that value then (NumPy's overflows)
  __device__ long long poisson_capped(double lam) { return lam > 9.2e18 ? 9223372036854775807LL : poisson(lam); }
};

// The continuous distributions; the numbers are lua/random.lua's (KIND there), which checks
// the parameters first
enum {
  DIST_EXPONENTIAL = 1, DIST_GAMMA, DIST_BETA, DIST_CHISQUARE, DIST_LOGNORMAL, DIST_LAPLACE, DIST_LOGISTIC,
  DIST_GUMBEL, DIST_RAYLEIGH, DIST_WEIBULL, DIST_PARETO, DIST_POWER, DIST_CAUCHY, DIST_STUDENT_T, DIST_TRIANGULAR,
  DIST_F, DIST_NONCENTRAL_CHISQUARE, DIST_NONCENTRAL_F, DIST_VONMISES, DIST_WALD, DIST_NORMAL, DIST_UNIFORM
};

// A template (S: sampler) so that the modules of this file that draw none compile none of
// it; not inlined, so that continuous<float> and continuous<double> share it
template <typename S>
__device__ __noinline__ double continuous_value(S &s, int kind, double p1, double p2, double p3) {
  switch (kind) {
  case DIST_EXPONENTIAL: return p1 * s.exponential();                 // scale
  case DIST_GAMMA: return p2 * s.gamma(p1);                           // shape, scale
  case DIST_BETA: return s.beta(p1, p2);
  case DIST_CHISQUARE: return 2.0 * s.gamma(p1 / 2.0);                // df
  case DIST_LOGNORMAL: return exp(p1 + p2 * s.normal());              // mean, sigma
  case DIST_LAPLACE: {                                                // loc, scale
    double w = s.open();
    return w >= 0.5 ? p1 - p2 * log(2.0 - 2.0 * w) : p1 + p2 * log(2.0 * w);
  }
  case DIST_LOGISTIC: { double w = s.open(); return p1 + p2 * log(w / (1.0 - w)); }
  case DIST_GUMBEL: return p1 - p2 * log(-log(s.open()));
  case DIST_RAYLEIGH: return p1 * sqrt(2.0 * s.exponential());        // scale
  case DIST_WEIBULL: return p1 == 0.0 ? 0.0 : pow(s.exponential(), 1.0 / p1);
  case DIST_PARETO: return expm1(s.exponential() / p1);
  case DIST_POWER: return pow(-expm1(-s.exponential()), 1.0 / p1);
  case DIST_CAUCHY: { double x = s.normal(); return x / s.normal(); }
  case DIST_STUDENT_T: {                                              // df
    double x = s.normal();
    return sqrt(p1 / 2.0) * x / sqrt(s.gamma(p1 / 2.0));
  }
  case DIST_TRIANGULAR: {                                             // left, mode, right
    double base = p3 - p1, w = s.u();
    if (w <= (p2 - p1) / base) return p1 + sqrt(w * (p2 - p1) * base);
    return p3 - sqrt((1.0 - w) * (p3 - p2) * base);
  }
  case DIST_F: return s.gamma(p1 / 2.0) * p2 / (s.gamma(p2 / 2.0) * p1);   // dfnum, dfden
  // df, nonc: a chi-square of df plus twice a Poisson(nonc / 2) degrees of freedom
  case DIST_NONCENTRAL_CHISQUARE: return 2.0 * s.gamma(p1 / 2.0 + (double)s.poisson_capped(p2 / 2.0));
  case DIST_NONCENTRAL_F: {                                           // dfnum, dfden, nonc
    double t = 2.0 * s.gamma(p1 / 2.0 + (double)s.poisson_capped(p3 / 2.0));
    return t * p2 / (2.0 * s.gamma(p2 / 2.0) * p1);
  }
  case DIST_VONMISES: return s.vonmises(p1, p2);                      // mu, kappa
  case DIST_WALD: return s.wald(p1, p2);                              // mean, scale
  case DIST_NORMAL: return p1 + p2 * s.normal();                      // for parameter arrays
  case DIST_UNIFORM: return p1 + (p2 - p1) * s.u();
  }
  return 0.0;
}

template <typename T>
__global__ void continuous(T *a, long long n, unsigned long long seed, unsigned long long call, int kind, double p1,
                           double p2, double p3) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    sampler s(seed, call, i);
    T v = (T)continuous_value(s, kind, p1, p2, p3);
    a[i] = kind == DIST_UNIFORM ? open_above(v, (T)p1, (T)p2) : v;
  }
}

// The same with parameter arrays (lua/random.lua's, of float64): element i's parameter k is
// pk[i * sk], a stride of 0 for one value, 1 for an array of the result's size
template <typename T>
__global__ void continuous_at(T *a, long long n, unsigned long long seed, unsigned long long call, int kind,
                              const double *p1, long long s1, const double *p2, long long s2, const double *p3,
                              long long s3) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    sampler s(seed, call, i);
    T v = (T)continuous_value(s, kind, p1[i * s1], p2[i * s2], p3[i * s3]);
    a[i] = kind == DIST_UNIFORM ? open_above(v, (T)p1[i * s1], (T)p2[i * s2]) : v;
  }
}

// The discrete ones (T: long long, int64 as NumPy's; a template for the reason above):
// poisson(p), binomial(count, p), geometric(p), negative_binomial(p, q), zipf(p),
// logseries(p), hypergeometric(p: ngood, q: nbad, count: nsample); lua/random.lua's
// numbers (DISCRETE there)
enum {
  DISCRETE_POISSON = 1, DISCRETE_BINOMIAL, DISCRETE_GEOMETRIC, DISCRETE_NEGATIVE_BINOMIAL, DISCRETE_ZIPF,
  DISCRETE_LOGSERIES, DISCRETE_HYPERGEOMETRIC
};

template <typename S>
__device__ __noinline__ long long discrete_value(S &s, int kind, long long count, double p, double q) {
  switch (kind) {
  case DISCRETE_POISSON: return s.poisson(p);
  case DISCRETE_BINOMIAL: return s.binomial(count, p);
  case DISCRETE_GEOMETRIC: {   // by inversion: the first success after an exponential time
    if (p >= 1.0) return 1;
    double g = ceil(s.exponential() / -log1p(-p));
    return g < 1.0 ? 1 : g >= 9.2e18 ? 9223372036854775807LL : (long long)g;
  }
  // a Poisson of a gamma mean (n = p, success probability q)
  case DISCRETE_NEGATIVE_BINOMIAL: return q >= 1.0 ? 0 : s.poisson_capped(s.gamma(p) * (1.0 - q) / q);
  case DISCRETE_ZIPF: return s.zipf(p);
  case DISCRETE_LOGSERIES: return s.logseries(p);
  case DISCRETE_HYPERGEOMETRIC: return s.hypergeometric(p, q, count);
  }
  return 0;
}

// With one mean for all, a small Poisson's inversion (lam < 10) and a binomial's
// (n * min(p, 1 - p) <= 30) sum the same terms for every element: a block sums them once
// into a table, in sampler::poisson's and binomial_inversion's order (the same numbers),
// and each element searches it with its uniforms, with no division or exp of its own.
enum { TABLE_NONE, TABLE_POISSON, TABLE_BINOMIAL, TABLE_SIZE = 208 };

__device__ inline int discrete_table_kind(int kind, long long count, double p) {
  if (kind == DISCRETE_POISSON && p < 10.0) return TABLE_POISSON;
  if (kind == DISCRETE_BINOMIAL && count > 0 && (double)count * fmin(p, 1.0 - p) <= 30.0) return TABLE_BINOMIAL;
  return TABLE_NONE;
}

// Poisson: t[x] = P(X <= x), x <= 200. Binomial of n and p <= 1/2: t[x] = P(X = x) up to
// the bound (at most 30 + 10 sqrt(31) < 87); returns the bound.
__device__ inline double discrete_table_fill(double *t, int table, long long n, double p) {
  if (table == TABLE_POISSON) {
    double px = exp(-p), cdf = px;
    t[0] = cdf;
    for (int x = 1; x <= 200; x++) {
      px *= p / (double)x;
      cdf += px;
      t[x] = cdf;
    }
    return 200.0;
  }
  double q = 1.0 - p, np = (double)n * p, bound = fmin((double)n, np + 10.0 * sqrt(np * q + 1.0));
  t[0] = exp((double)n * log1p(-p));   // as binomial_inversion's: not log(q) of the rounded q
  for (long long x = 1; (double)x <= bound && x < TABLE_SIZE; x++)
    t[x] = ((double)(n - x + 1) * p * t[x - 1]) / ((double)x * q);
  return bound;
}

__device__ inline long long binomial_from_table(sampler &s, const double *t, double bound) {
  double w = s.u();
  long long x = 0;
  while (w > t[x]) {
    x++;
    if ((double)x > bound) { x = 0; w = s.u(); }
    else w -= t[x - 1];
  }
  return x;
}

template <typename T>
__global__ void discrete(T *a, long long n, unsigned long long seed, unsigned long long call, int kind,
                         long long count, double p) {
  __shared__ double t[TABLE_SIZE];
  __shared__ double bound;
  int table = discrete_table_kind(kind, count, p);
  double pt = table == TABLE_BINOMIAL && p > 0.5 ? 1.0 - p : p;
  if (table != TABLE_NONE) {
    if (threadIdx.x == 0) bound = discrete_table_fill(t, table, count, pt);
    __syncthreads();
  }
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    sampler s(seed, call, i);
    if (table == TABLE_POISSON) {
      double v = s.u();
      long long x = 0;
      while (x < 200 && v >= t[x]) x++;
      a[i] = x;
    } else if (table == TABLE_BINOMIAL) {
      long long x = binomial_from_table(s, t, bound);
      a[i] = pt != p ? count - x : x;
    } else {
      a[i] = discrete_value(s, kind, count, p, 0.0);
    }
  }
}

// With parameter arrays, as continuous_at
template <typename T>
__global__ void discrete_at(T *a, long long n, unsigned long long seed, unsigned long long call, int kind,
                            const T *c, long long sc, const double *p, long long sp, const double *q, long long sq) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    sampler s(seed, call, i);
    a[i] = discrete_value(s, kind, c[i * sc], p[i * sp], q[i * sq]);
  }
}

// ---------------------------------------------------------------------------------------
// Packed bits (lua/functional.lua: gpu.packbits, gpu.unpackbits), one module for both.
// bits is (rows, n) of 0 or 1 (a bool array), out (rows, m) with m = ceil(n / 8): byte j
// of a row holds bits 8j .. 8j + 7, the first the highest (little: the lowest), zeros past n.
extern "C" __global__ void packbits(const bool *bits, unsigned char *out, long long rows, long long n,
                                    long long m, int little) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < rows * m;
       i += (long long)gridDim.x * blockDim.x) {
    long long r = i / m, j = i - r * m;
    const bool *row = bits + r * n;
    unsigned int v = 0;
    for (int b = 0; b < 8; b++) {
      long long k = 8 * j + b;
      if (k < n && row[k]) v |= little ? 1u << b : 0x80u >> b;
    }
    out[i] = (unsigned char)v;
  }
}

// a is (rows, n) uint8, out (rows, count): bit k of a row (byte k / 8, from the highest bit;
// little: the lowest), 0 past 8n
extern "C" __global__ void unpackbits(const unsigned char *a, unsigned char *out, long long rows, long long n,
                                      long long count, int little) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < rows * count;
       i += (long long)gridDim.x * blockDim.x) {
    long long r = i / count, k = i - r * count;
    unsigned int b = (unsigned int)(k & 7);
    out[i] = k < 8 * n ? (unsigned char)((a[r * n + k / 8] >> (little ? b : 7 - b)) & 1u) : 0;
  }
}

// ---------------------------------------------------------------------------------------
// Weighted bincount (lua/stats.lua): the sums of the runs of a sorted array's weights v
// (n of them), bin b's run v[lo[b] - 1 .. hi[b] - 2] (lo, hi: gpu.searchsorted's 1-based
// places). Deterministic and balanced whatever the runs' lengths: each run is cut into
// pieces of RUN_PIECE elements, a warp sums a piece (lanes stride it, then a fixed tree
// of shuffles: the same order every time), then a warp a bin sums its pieces' sums
// likewise. first[b] is the running count of pieces through bin b (inclusive); pieces (the
// length of psum) may be more than first[bins - 1]: a bound, the kernel takes the count.
#define RUN_PIECE 1024
__device__ __forceinline__ double warp_sum(double t) {
  for (int d = 16; d > 0; d >>= 1) t += __shfl_down_sync(0xffffffffu, t, d);
  return t;
}
// blockDim.x a multiple of 32: a warp's lanes share p, so the shuffles see the whole warp
extern "C" __global__ void run_pieces(const double *v, long long n, const long long *lo, const long long *hi,
                                      const long long *first, long long bins, long long pieces, double *psum) {
  const int lane = threadIdx.x & 31;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long total = bins > 0 ? first[bins - 1] : 0;   // (pieces: psum's length, a bound)
  if (total < pieces) pieces = total;
  for (long long p = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; p < pieces; p += warps) {
    long long a = 0, z = bins - 1;   // the bin: the first whose running count passes p
    while (a < z) {
      long long m = a + (z - a) / 2;
      if (first[m] > p) z = m; else a = m + 1;
    }
    long long s = lo[a] - 1 + (p - (a > 0 ? first[a - 1] : 0)) * RUN_PIECE, e = hi[a] - 1;
    if (s < 0) s = 0;
    if (e > n) e = n;
    if (e > s + RUN_PIECE) e = s + RUN_PIECE;
    double t = 0;
    for (long long i = s + lane; i < e; i += 32) t += v[i];
    t = warp_sum(t);
    if (lane == 0) psum[p] = t;
  }
}
// a warp a bin: out[b] the sum of its pieces' sums (0 for a bin of none)
extern "C" __global__ void run_totals(const double *psum, long long pieces, const long long *first, long long bins,
                                      double *out) {
  const int lane = threadIdx.x & 31;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long b = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; b < bins; b += warps) {
    long long s = b > 0 ? first[b - 1] : 0, e = first[b];
    if (s < 0) s = 0;
    if (e > pieces) e = pieces;
    double t = 0;
    for (long long i = s + lane; i < e; i += 32) t += psum[i];
    t = warp_sum(t);
    if (lane == 0) out[b] = t;
  }
}
