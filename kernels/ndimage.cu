// ndimage.cu: the one kernel behind gpu.ndimage's filters (lua/ndimage.lua launches it):
// each output element folds the input's values under a footprint of K taps (a correlation,
// a minimum, a maximum, a mean) or gathers them in a row for a rank filter. Points whose
// taps all lie inside the input read base + delta[k]; those near an edge map each
// coordinate by the boundary mode first. It loops over its elements with a grid stride.
//
// plan (int64, made on the host from the shape, strides and footprint):
//   plan[0..7]   lo[d]: the least offset of any tap along dim d (<= 0)
//   plan[8..15]  hi[d]: the greatest (>= 0)
//   plan[16..18] for taps in a line along one dim (a 1-D filter): that dim (0-based; -1
//                for other footprints), tap 0's offset along it and the step (1 or -1),
//                so that an inside point reads along the line without a table
//   plan[20 .. 20+K-1]          delta[k]: tap k's offset in elements from the centre
//   plan[20+K .. 20+K+K*nd-1]   tap k's offset along each dim d (row k)
//   plan[19]: for ndi_line, the rows of taps (3 numbers each) after that table; 0 else
//   after the rows, where ndi_line made an N-D footprint's groups (plan[16] < 0): the count
//   of the elements it left to ndi_filter, then the box of those it made: its first
//   coordinate along each dim, then its end along each (ndi_filter makes those outside)
// w: K weights (float64); a tap of weight 0 (|w| <= DBL_EPSILON) is left out where op
// is SKIP0, as scipy's N-D correlate leaves it out of its footprint. RANK (K <= RANK_MAX)
// gives the value of rank `rank` among the K, GATHER writes them all (row i of out). how
// (STORE ...) says what the result does to out's element: replaces it, or adds to it.

namespace ndi {

enum { REFLECT = 0, MIRROR = 1, NEAREST = 2, WRAP = 3, CONSTANT = 4 };
// SYM, ANTI: a 1-D correlation (a line of taps, step 1, K odd) whose weights are symmetric
// (antisymmetric) within DBL_EPSILON about the centre (the host decides, as scipy's
// NI_Correlate1D); LAST: one of other weights (K >= 2): folded in scipy's order, ndi::pairs.
// COPY: the input's value cast as NumPy casts it (one tap, at the centre): a filter that
// makes no pass, which scipy's copies (output[...] = input[...])
enum { SUM = 0, SKIP0 = 1, MIN = 2, MAX = 3, MEAN = 4, GATHER = 5, RANK = 6, SYM = 7, ANTI = 8, LAST = 9, COPY = 10 };
const int RANK_MAX = 64;   // the most taps RANK selects among in a thread's own memory

// coordinate j of a dim of n elements as the mode extends it; -1 for the constant
__device__ inline long long map_index(long long j, long long n, int mode) {
  if (j >= 0 && j < n) return j;
  if (mode == NEAREST) return j < 0 ? 0 : n - 1;
  if (mode == WRAP) { j %= n; return j < 0 ? j + n : j; }
  if (mode == REFLECT) {   // d c b a | a b c d | d c b a
    long long p = 2 * n;
    j %= p; if (j < 0) j += p;
    return j < n ? j : p - 1 - j;
  }
  if (mode == MIRROR) {    // d c b | a b c d | c b a
    if (n == 1) return 0;
    long long p = 2 * n - 2;
    j %= p; if (j < 0) j += p;
    return j < n ? j : p - j;
  }
  return -1;
}

template <typename T> __device__ inline double value(T x) { return (double)x; }
__device__ inline double value(gpu::half x) { return (double)(float)x; }

// a double stored as scipy's C casts it, as x86-64 does (C leaves a value out of the type's
// range undefined): truncated toward 0 to an int32 for types of up to 32 bits (uint32 but
// to an int64), where NaN and a value past that range give its least (INT_MIN, INT64_MIN),
// and wrapped to the width (so 3e9 is INT_MIN in int32, 0 in int16 and uint8); uint64 from
// 2^63 on less 2^63, its top bit set (0 from 2^64 on); bool true where the byte (an
// npy_bool is an unsigned char) is nonzero (so 256 is false)
__device__ inline int to_int32(double v) { return v > -2147483649.0 && v < 2147483648.0 ? (int)v : INT_MIN; }
__device__ inline long long to_int64(double v) {
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? (long long)v : LLONG_MIN;
}
template <typename O> __device__ inline void put(O *p, double v) { *p = (O)to_int32(v); }
__device__ inline void put(unsigned int *p, double v) { *p = (unsigned int)to_int64(v); }
__device__ inline void put(long long *p, double v) { *p = to_int64(v); }
__device__ inline void put(unsigned long long *p, double v) {
  *p = !(v >= 9223372036854775808.0) ? (unsigned long long)to_int64(v)
     : v < 18446744073709551616.0 ? (unsigned long long)v : 0ULL;
}
__device__ inline void put(float *p, double v) { *p = (float)v; }
__device__ inline void put(double *p, double v) { *p = v; }
__device__ inline void put(gpu::half *p, double v) { *p = gpu::half(v); }
__device__ inline void put(bool *p, double v) { *p = (unsigned char)to_int32(v) != 0; }

// x (the input's type T) stored as NumPy's astype casts it on x86-64 (scipy's copy of an
// input: COPY): an integer into an integer wrapped to the width, into a float rounded once;
// anything into bool != 0 (NaN too); a float (a bool) as put stores its double (x86-64's
// conversions, as NumPy's scalar loop makes them)
template <typename T> struct Integral { enum { value = 1 }; };
template <> struct Integral<float> { enum { value = 0 }; };
template <> struct Integral<double> { enum { value = 0 }; };
template <> struct Integral<gpu::half> { enum { value = 0 }; };
template <> struct Integral<bool> { enum { value = 0 }; };
template <bool I> struct Cast { template <typename O, typename T> __device__ static void to(O *p, T x) { *p = (O)x; } };
template <> struct Cast<false> {
  template <typename O, typename T> __device__ static void to(O *p, T x) { put(p, value(x)); }
};
template <typename O, typename T> __device__ inline void numpy_cast(O *p, T x) { Cast<Integral<T>::value>::to(p, x); }
template <typename T> __device__ inline void numpy_cast(bool *p, T x) { *p = value(x) != 0; }

// What a pass does with the value v it made for a point (cast to O first, as scipy's
// passes write their output) and the output's element there, in O's arithmetic as NumPy's
// in-place operations do: integers wrap, a float16 rounds each result
enum { STORE = 0, ADD = 1, SQUARE = 2, ADD_SQUARE = 3, ADD_SQUARE_SQRT = 4 };
template <typename O> __device__ inline O wrap_add(O a, O b) { return (O)((unsigned long long)a + (unsigned long long)b); }
template <typename O> __device__ inline O wrap_mul(O a, O b) { return (O)((unsigned long long)a * (unsigned long long)b); }
__device__ inline float wrap_add(float a, float b) { return a + b; }
__device__ inline float wrap_mul(float a, float b) { return a * b; }
__device__ inline double wrap_add(double a, double b) { return a + b; }
__device__ inline double wrap_mul(double a, double b) { return a * b; }
__device__ inline gpu::half wrap_add(gpu::half a, gpu::half b) { return gpu::half((float)a + (float)b); }
__device__ inline gpu::half wrap_mul(gpu::half a, gpu::half b) { return gpu::half((float)a * (float)b); }
__device__ inline bool wrap_add(bool a, bool b) { return a || b; }
__device__ inline bool wrap_mul(bool a, bool b) { return a && b; }

// (combine_cast: v already made O's)
template <typename O> __device__ inline void combine_cast(O *p, O t, int how) {
  if (how == STORE) { *p = t; return; }
  if (how == ADD) { *p = wrap_add(*p, t); return; }
  t = wrap_mul(t, t);
  if (how == SQUARE) { *p = t; return; }
  t = wrap_add(*p, t);
  if (how == ADD_SQUARE_SQRT) put(&t, sqrt(value(t)));
  *p = t;
}
template <typename O> __device__ inline void combine(O *p, double v, int how) {
  O t;
  put(&t, v);
  combine_cast(p, t, how);
}

__device__ inline double fold(int op, double acc, double wk, double x) {
  if (op == MIN) return x < acc ? x : acc;
  if (op == MAX) return x > acc ? x : acc;
  return acc + wk * x;
}

// SYM and ANTI's fold, scipy's NI_Correlate1D's: the centre's product, then each pair of
// taps from the outermost in, (x[i] + x[K-1-i]) * w[i] (ANTI: x[i] - x[K-1-i]); LAST's, its
// fold of other weights: the last tap's product, then taps 0 .. K-2 in order
__device__ inline double weight(const double *sw, const double *w, long long k) { return k < 256 ? sw[k] : w[k]; }
__device__ inline double pair(int op, double acc, double a, double b, double wk) {
  return acc + (op == SYM ? a + b : a - b) * wk;
}
// a point all of whose taps lie inside: q tap 0's element, s the step between taps
template <typename T>
__device__ inline double pairs_inside(int op, const T *q, long long s, int K, const double *sw, const double *w) {
  if (op == LAST) {
    double acc = value(q[(K - 1) * s]) * weight(sw, w, K - 1);
    for (int i = 0; i < K - 1; i++) acc = acc + value(q[i * s]) * weight(sw, w, i);
    return acc;
  }
  const int h = K / 2;
  double acc = value(q[h * s]) * weight(sw, w, h);
  for (int i = 0; i < h; i++) acc = pair(op, acc, value(q[i * s]), value(q[(K - 1 - i) * s]), weight(sw, w, i));
  return acc;
}
// the value of the tap at offset o along a line of n elements (along apart) from the
// point at coordinate c there (element at0), by the mode
template <typename T>
__device__ inline double edge_tap(const T *p, long long at0, long long c, long long o, long long n, long long along,
                                  int mode, double cval) {
  if (o == 0) return value(p[at0]);
  const long long m = map_index(c + o, n, mode);
  return m < 0 ? cval : value(p[at0 + (m - c) * along]);
}
// a point near an edge: the taps' offsets along dim d are off[k * nd + d]
template <typename T>
__device__ inline double pairs_edge(int op, const T *p, long long at0, long long c, const long long *off, int nd, int d,
                                    long long n, long long along, int mode, double cval, int K, const double *sw,
                                    const double *w) {
  if (op == LAST) {
    double acc = edge_tap(p, at0, c, off[(K - 1) * nd + d], n, along, mode, cval) * weight(sw, w, K - 1);
    for (int i = 0; i < K - 1; i++) acc = acc + edge_tap(p, at0, c, off[i * nd + d], n, along, mode, cval) * weight(sw, w, i);
    return acc;
  }
  const int h = K / 2;
  double acc = edge_tap(p, at0, c, off[h * nd + d], n, along, mode, cval) * weight(sw, w, h);
  for (int i = 0; i < h; i++)
    acc = pair(op, acc, edge_tap(p, at0, c, off[i * nd + d], n, along, mode, cval),
               edge_tap(p, at0, c, off[(K - 1 - i) * nd + d], n, along, mode, cval), weight(sw, w, i));
  return acc;
}

// the element of rank r (0-based, ascending) of v[0..n-1], which it reorders (Hoare's
// selection)
template <typename T> __device__ inline T select(T *v, int n, int r) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    T pivot = v[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (pivot < v[j]) j--;
      if (i <= j) { T t = v[i]; v[i] = v[j]; v[j] = t; i++; j--; }
    }
    if (r <= j) hi = j;
    else if (r >= i) lo = i;
    else break;
  }
  return v[r];
}


// The fold of an inside point's taps with the op fixed at compile time (no test of op, of
// the mode or of the tap's place a tap): along a line (LINE: q the first tap's element, s
// the step between taps in elements) or by the offset table (q the centre's element). The
// same operations in the same order as the generic loop, so the same bits.
template <int OP, bool LINE, typename T>
__device__ inline double fold_inside(const T *__restrict__ q, long long s, const long long *__restrict__ delta,
                                     int K, const double *sw, const double *__restrict__ w, double acc) {
  const int SHARED_W = 256;
  const T *r = q;
  // the weights in shared memory first, then any past them (no test of k against
  // SHARED_W a tap)
  const int K1 = K < SHARED_W ? K : SHARED_W;
#pragma unroll 4
  for (int k = 0; k < K1; k++) {
    double wk = OP == MIN || OP == MAX || OP == MEAN ? 1.0 : sw[k];
    const T *at = LINE ? r : q + delta[k];
    if (LINE) r += s;
    if (OP == SKIP0 && !(fabs(wk) > DBL_EPSILON)) continue;
    acc = fold(OP, acc, wk, value(*at));
  }
#pragma unroll 1
  for (int k = K1; k < K; k++) {
    double wk = OP == MIN || OP == MAX || OP == MEAN ? 1.0 : w[k];
    const T *at = LINE ? r : q + delta[k];
    if (LINE) r += s;
    if (OP == SKIP0 && !(fabs(wk) > DBL_EPSILON)) continue;
    acc = fold(OP, acc, wk, value(*at));
  }
  return acc;
}

template <bool LINE, typename T>
__device__ inline double fold_inside_op(int op, const T *__restrict__ q, long long s, const long long *__restrict__ delta,
                                        int K, const double *sw, const double *__restrict__ w, double acc) {
  switch (op) {
    case SUM: return fold_inside<SUM, LINE>(q, s, delta, K, sw, w, acc);
    case SKIP0: return fold_inside<SKIP0, LINE>(q, s, delta, K, sw, w, acc);
    case MIN: return fold_inside<MIN, LINE>(q, s, delta, K, sw, w, acc);
    case MAX: return fold_inside<MAX, LINE>(q, s, delta, K, sw, w, acc);
    default: return fold_inside<MEAN, LINE>(q, s, delta, K, sw, w, acc);
  }
}

// RANK among at most SMALL_RANK taps in registers: v (padded past the K taps with a value
// no tap exceeds) sorted by a network of compare-exchanges with fixed indices, the rank
// picked without indexing by a variable (which would put v in local memory). Compared in
// the input's own type (Key<T>: a float as a float, no conversion a tap, one at the end;
// value is monotonic, so the rank's value converts to what the doubles' rank would be).
// Without NaN and -0.0 among the values, equal values have equal bits, so any selection
// gives Hoare's bits; with them the caller falls back to Hoare's on the same values in the
// same order.
const int SMALL_RANK = 9;
// (other types as doubles: their keys in their own types spilled registers)
template <typename T> struct Key { typedef double type; };
template <> struct Key<float> { typedef float type; };
template <typename T> __device__ inline double key(T x) { return value(x); }
__device__ inline float key(float x) { return x; }
__device__ inline bool odd_value(double x) {
  return x != x || __double_as_longlong(x) == (long long)0x8000000000000000ULL;
}
__device__ inline bool odd_value(float x) {
  return x != x || __float_as_int(x) == (int)0x80000000U;
}
template <typename K> __device__ inline K rank_small(K (&v)[SMALL_RANK], int r) {
#pragma unroll
  for (int i = 0; i < SMALL_RANK - 1; i++) {
#pragma unroll
    for (int j = 0; j < SMALL_RANK - 1 - i; j++) {
      K a = v[j], b = v[j + 1];   // no NaN: one compare, two selects a value (fmin and
      bool lt = b < a;            // fmax would test for NaN too)
      v[j] = lt ? b : a;
      v[j + 1] = lt ? a : b;
    }
  }
  // v[r], the greatest of v[0..r] (not v[r] itself, nor a chain of j == r ? v[j]: either
  // becomes a load from local memory at a variable index)
  K res = v[0];
#pragma unroll
  for (int j = 1; j < SMALL_RANK; j++) res = j <= r && v[j] > res ? v[j] : res;
  return res;
}

// The median of SMALL_RANK = 9 values without NaN or -0.0 (rank 4: what rank_small(v, 4)
// gives): each three sorted, then the median of the greatest of their least, the median of
// their middles and the least of their greatest (16 compare-exchanges; rank_small's sort
// takes 36)
template <typename K> __device__ inline K lesser(K a, K b) { return b < a ? b : a; }
template <typename K> __device__ inline K greater(K a, K b) { return b < a ? a : b; }
template <typename K> __device__ inline K median3(K a, K b, K c) { return greater(lesser(a, b), lesser(greater(a, b), c)); }
template <typename K> __device__ inline K median9(const K (&v)[SMALL_RANK]) {
  K lo[3], mid[3], hi[3];
#pragma unroll
  for (int j = 0; j < 3; j++) {
    K a = v[3 * j], b = v[3 * j + 1], c = v[3 * j + 2];
    K l = lesser(a, b), h = greater(a, b);
    lo[j] = lesser(l, c);
    hi[j] = greater(h, c);
    mid[j] = greater(l, lesser(h, c));
  }
  return median3(greater(greater(lo[0], lo[1]), lo[2]), median3(mid[0], mid[1], mid[2]),
                 lesser(lesser(hi[0], hi[1]), hi[2]));
}

// A 1-D filter's GROUP outputs in a row along its line, all of whose taps lie inside, made
// by one thread: each value read once and converted once (the conversion to double is a
// quarter-rate instruction) for every output that uses it. q: the value at the group's
// lowest tap position along the walk (s apart, in the order of tap 0 of output 0 first:
// o[r] is where output r's taps begin in that walk). Each output folds its taps in tap
// order, as the generic loop does: the same bits.
const int GROUP = 4;
// The accumulator of a group's fold: a double, but a float for the MIN and MAX of float
// input (no conversion a value: their compares give the same answers in either type,
// NaN and -0.0 included, and the result converts exactly)
template <bool B> struct FloatIf { typedef double type; };
template <> struct FloatIf<true> { typedef float type; };
template <int OP, typename T> struct Acc { typedef double type; };
template <int OP> struct Acc<OP, float> { typedef typename FloatIf<OP == MIN || OP == MAX>::type type; };
template <typename A> struct As { template <typename T> __device__ static A get(T x) { return value(x); } };
template <> struct As<float> { __device__ static float get(float x) { return x; } };

template <int OP, bool ALL, typename A, typename T>
__device__ inline void fold_group_step(const T *__restrict__ q, int m, int K, const double *sw, const int (&o)[GROUP],
                                       A (&acc)[GROUP]) {
  A x = As<A>::get(*q);
#pragma unroll
  for (int r = 0; r < GROUP; r++) {
    int k = m - o[r];
    if (ALL || (k >= 0 && k < K)) {
      if (OP == MIN) { acc[r] = x < acc[r] ? x : acc[r]; continue; }   // as fold's
      if (OP == MAX) { acc[r] = x > acc[r] ? x : acc[r]; continue; }
      double wk = OP == MEAN ? 1.0 : sw[k];
      if (OP == SKIP0 && !(fabs(wk) > DBL_EPSILON)) continue;
      acc[r] = fold(OP, acc[r], wk, x);
    }
  }
}

// the walk: its first and last GROUP - 1 steps test which outputs a value is a tap of;
// the steps between (every output's) do not
template <int OP, typename T>
__device__ inline void fold_group(const T *__restrict__ q, long long s, int K, const double *sw, const int (&o)[GROUP],
                                  double (&acc0)[GROUP]) {
  typedef typename Acc<OP, T>::type A;
  A acc[GROUP];
#pragma unroll
  for (int r = 0; r < GROUP; r++) acc[r] = (A)acc0[r];
  int m = 0;
  for (; m < GROUP - 1; m++, q += s) fold_group_step<OP, false>(q, m, K, sw, o, acc);
#pragma unroll 2
  for (; m < K; m++, q += s) fold_group_step<OP, true>(q, m, K, sw, o, acc);
  for (; m < K + GROUP - 1; m++, q += s) fold_group_step<OP, false>(q, m, K, sw, o, acc);
#pragma unroll
  for (int r = 0; r < GROUP; r++) acc0[r] = (double)acc[r];
}

template <typename T>
__device__ inline void fold_group_op(int op, const T *__restrict__ q, long long s, int K, const double *sw,
                                     const int (&o)[GROUP], double (&acc)[GROUP]) {
  switch (op) {
    case SUM: fold_group<SUM>(q, s, K, sw, o, acc); break;
    case SKIP0: fold_group<SKIP0>(q, s, K, sw, o, acc); break;
    case MIN: fold_group<MIN>(q, s, K, sw, o, acc); break;
    case MAX: fold_group<MAX>(q, s, K, sw, o, acc); break;
    default: fold_group<MEAN>(q, s, K, sw, o, acc); break;
  }
}


// the rows of a group's taps (ndi_line), the op fixed at compile time
template <int OP, typename T>
__device__ inline void fold_rows(const T *__restrict__ pb, const long long *__restrict__ rows, long long nrows,
                                 const long long *__restrict__ delta, long long along, const double *sw,
                                 double (&acc)[GROUP]) {
  for (long long j = 0; j < nrows; j++) {
    const long long k0 = rows[3 * j], L = rows[3 * j + 1], st = rows[3 * j + 2];
    int o[GROUP];
#pragma unroll
    for (int r = 0; r < GROUP; r++) o[r] = st > 0 ? r : GROUP - 1 - r;
    // the walk starts at output 0's first tap of the row (step 1) or output GROUP-1's
    fold_group<OP>(pb + delta[k0] + (st > 0 ? 0 : GROUP - 1) * along, st * along, (int)L, sw + k0, o, acc);
  }
}

template <typename T>
__device__ inline void fold_rows_op(int op, const T *__restrict__ pb, const long long *__restrict__ rows, long long nrows,
                                    const long long *__restrict__ delta, long long along, const double *sw,
                                    double (&acc)[GROUP]) {
  switch (op) {
    case SUM: fold_rows<SUM>(pb, rows, nrows, delta, along, sw, acc); break;
    case SKIP0: fold_rows<SKIP0>(pb, rows, nrows, delta, along, sw, acc); break;
    case MIN: fold_rows<MIN>(pb, rows, nrows, delta, along, sw, acc); break;
    case MAX: fold_rows<MAX>(pb, rows, nrows, delta, along, sw, acc); break;
    default: fold_rows<MEAN>(pb, rows, nrows, delta, along, sw, acc); break;
  }
}
// The t-th (0-based) of the elements of a C-ordered shape outside the box [A[d], B[d]) of
// each dim d (B[d] - A[d] >= 0), as an index in C order: taken slab by slab, slab d
// holding those inside the box along the dims before d and outside it along d, each slab
// in C order. Where the box is empty, slab 0 is the whole shape, in order.
__device__ inline long long outside_box(const long long *shape, int nd, const long long *A, const long long *B,
                                        long long t) {
  long long inner = 1;   // the box's extent over the dims before d
  for (int d = 0; d < nd; d++) {
    long long after = 1;
    for (int k = d + 1; k < nd; k++) after *= shape[k];
    const long long wd = B[d] - A[d], size = inner * (shape[d] - wd) * after;
    if (t < size || d == nd - 1) {
      long long c[8], r = t;
      for (int k = nd - 1; k > d; k--) { c[k] = r % shape[k]; r /= shape[k]; }
      const long long v = r % (shape[d] - wd);
      r /= shape[d] - wd;
      c[d] = v < A[d] ? v : v + wd;
      for (int k = d - 1; k >= 0; k--) { c[k] = A[k] + r % (B[k] - A[k]); r /= B[k] - A[k]; }
      long long i = 0;
      for (int k = 0; k < nd; k++) i = i * shape[k] + c[k];
      return i;
    }
    t -= size;
    inner *= wd;
  }
  return 0;
}
// Element i's coordinates c (C order), its place in the input (base, by in's strides),
// and whether every tap lies inside there (plan[0..15]: the taps' extents); the first ND
// dims' steps unrolled (c kept in registers), those from in.ndim on idle. 32-bit division
// where the sizes allow (small): a 64-bit one is a long sequence on a GPU.
template <int ND, typename T>
__device__ inline bool locate(const gpu::array<T> &in, const long long *__restrict__ plan, bool small, long long i,
                              long long (&c)[8], long long &base) {
  long long rem = i;
  bool inside = true;
  base = 0;
#pragma unroll
  for (int d = ND - 1; d >= 0; d--) {
    if (d < in.ndim) {
      long long n = in.shape[d];
      long long q = small ? (long long)((unsigned int)rem / (unsigned int)n) : rem / n;
      c[d] = rem - q * n;
      rem = q;
      base += c[d] * in.stride[d];
      inside = inside && c[d] + plan[d] >= 0 && c[d] + plan[8 + d] < n;
    }
  }
  return inside;
}
}  // namespace ndi

template <typename T, typename O>
__global__ void __launch_bounds__(256, 4) ndi_filter(gpu::array<T> in, O *out, const long long *__restrict__ plan,
                           const double *__restrict__ w, long long K, int op, int mode, double cval,
                           int rank, int how) {
  const int nd = in.ndim;
  const T *__restrict__ p = in.ptr();
  const long long *delta = plan + 20, *off = plan + 20 + K;
  const int line = (int)plan[16];
  const long long first = plan[17], step = plan[18], along = line >= 0 ? in.stride[line] : 0;
  // the first weights, read by every thread of the block, in shared memory
  const int SHARED_W = 256;
  __shared__ double sw[SHARED_W];
  const bool weighted = op == ndi::SUM || op == ndi::SKIP0 || op == ndi::SYM || op == ndi::ANTI || op == ndi::LAST;
  if (weighted)
    for (int t = threadIdx.x; t < K && t < SHARED_W; t += blockDim.x) sw[t] = w[t];
  __syncthreads();
  const bool small = in.size <= 0xffffffffLL;
  // an N-D footprint whose groups of ndi::GROUP elements along the last dim with all taps
  // inside ndi_line made (plan[19]: its rows): the other elements only, counted and boxed
  // after the rows (a launch of their count, not of every element; an empty box leaves all)
  const long long *box = plan + 20 + K + K * nd + 3 * plan[19];
  const bool skip_groups = plan[19] > 0 && line < 0 && box[0] < in.size;
  const long long count = skip_groups ? box[0] : in.size;
  // ops folded by ndi::fold_inside for inside points; RANK among few taps in registers
  const bool fast = op == ndi::SUM || op == ndi::SKIP0 || op == ndi::MIN || op == ndi::MAX || op == ndi::MEAN;
  const bool small_rank = op == ndi::RANK && K <= ndi::SMALL_RANK;
  const double start = op == ndi::MIN ? INFINITY : op == ndi::MAX ? -INFINITY : 0.0;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < count;
       t += (long long)gridDim.x * blockDim.x) {
    const long long i = skip_groups ? ndi::outside_box(in.shape, nd, box + 1, box + 1 + nd, t) : t;
    long long c[8], base;
    bool inside;
    switch (nd) {   // (1 to 3 dims unrolled exactly; more: 8 steps, those past nd idle)
      case 1: inside = ndi::locate<1>(in, plan, small, i, c, base); break;
      case 2: inside = ndi::locate<2>(in, plan, small, i, c, base); break;
      case 3: inside = ndi::locate<3>(in, plan, small, i, c, base); break;
      default: inside = ndi::locate<8>(in, plan, small, i, c, base); break;
    }
    if (op == ndi::COPY) {   // (one tap, at the centre)
      O t;
      ndi::numpy_cast(&t, p[base]);
      ndi::combine_cast(out + i, t, how);
      continue;
    }
    double acc = start;
    double buf[ndi::RANK_MAX];
    if (op == ndi::SYM || op == ndi::ANTI || op == ndi::LAST) {   // (a line's taps, step 1)
      acc = inside ? ndi::pairs_inside(op, p + base + first * along, along, (int)K, sw, w)
                   : ndi::pairs_edge(op, p, base, c[line], off, nd, line, in.shape[line], along, mode, cval, (int)K, sw, w);
      ndi::combine(out + i, acc, how);
      continue;
    }
    if (inside && fast) {   // every tap inside, the op a fold: no mode, no per-tap tests of op
      // (a line's taps by the table too: lines of K <= 256 taps go to ndi_line)
      acc = ndi::fold_inside_op<false>(op, p + base, 0, delta, (int)K, sw, w, acc);
      ndi::combine(out + i, op == ndi::MEAN ? acc / (double)K : acc, how);
      continue;
    }
    if (inside && small_rank) {   // the taps' values in registers, read at fixed indices
      typedef typename ndi::Key<T>::type Key;
      Key v[ndi::SMALL_RANK];
      bool odd = false;
#pragma unroll
      for (int j = 0; j < ndi::SMALL_RANK; j++) {
        Key x = INFINITY;   // past the K taps: sorted last
        if (j < K) { x = ndi::key(p[base + delta[j]]); odd = odd || ndi::odd_value(x); }
        v[j] = x;
      }
      if (!odd) {   // else the generic loop below: Hoare's selection, as for more taps
        ndi::combine(out + i, ndi::value(K == 9 && rank == 4 ? ndi::median9(v) : ndi::rank_small(v, rank)), how);
        continue;
      }
    }
    for (long long k = 0; k < K; k++) {
      double wk = !weighted ? 1.0 : k < SHARED_W ? sw[k] : w[k];
      if (op == ndi::SKIP0 && !(fabs(wk) > DBL_EPSILON)) continue;
      double x;
      if (inside) {
        x = ndi::value(p[line >= 0 ? base + (first + k * step) * along : base + delta[k]]);
      } else {
        long long at = base;
        bool outside = false;
#pragma unroll
        for (int d = 0; d < 8; d++) {
          if (d < nd) {
            long long o = off[k * nd + d];
            if (o != 0) {
              long long m = ndi::map_index(c[d] + o, in.shape[d], mode);
              outside = outside || m < 0;
              at += (m - c[d]) * in.stride[d];
            }
          }
        }
        x = outside ? cval : ndi::value(p[at]);
      }
      if (op == ndi::GATHER) ndi::put(out + i * K + k, x);
      else if (op == ndi::RANK) { if (k < ndi::RANK_MAX) buf[k] = x; }
      else acc = ndi::fold(op, acc, wk, x);
    }
    if (op == ndi::RANK) acc = ndi::select(buf, (int)K, rank);
    if (op != ndi::GATHER) ndi::combine(out + i, op == ndi::MEAN ? acc / (double)K : acc, how);
  }
}

// A filter that folds its taps (SUM, SKIP0, MIN, MAX, MEAN, SYM, ANTI, LAST; K <= 256) in rows: runs of taps
// one apart along dim gd (a 1-D filter's line; else the last dim), the arguments as
// ndi_filter's, and after the offset table plan[20+K+K*nd ..] 3 numbers a row (its first
// tap, its taps, its step along gd: 1 or -1), plan[19] rows. A thread makes ndi::GROUP
// outputs in a row along gd: where all their taps lie inside, each row's values walked once
// (ndi::fold_group), the rows in tap order, so each output folds its taps in tap order as
// ndi_filter does (a 1-D correlation's SYM, ANTI and LAST: in scipy's order, as ndi_filter's
// ndi::pairs_inside); else, along a line, each output by the mode as ndi_filter does. An N-D
// footprint's groups with all taps inside are those of the box after the rows (made on the
// host, the one statement of that rule; ndi_filter makes the elements outside it). Its own
// kernel, so that its registers are not the generic loop's (in one kernel the two spilled).
template <typename T, typename O>
__global__ void __launch_bounds__(256, 4) ndi_line(gpu::array<T> in, O *out, const long long *__restrict__ plan,
                         const double *__restrict__ w, long long K, int op, int mode, double cval,
                         int rank, int how) {
  const int nd = in.ndim;
  const T *__restrict__ p = in.ptr();
  const long long *delta = plan + 20, *off = plan + 20 + K, *rows = plan + 20 + K + K * nd;
  const bool line = plan[16] >= 0;
  const int gd = line ? (int)plan[16] : nd - 1;
  const long long nrows = plan[19], along = in.stride[gd];
  const long long *box_a = rows + 3 * nrows + 1, *box_b = box_a + nd;   // (N-D: the groups' box)
  __shared__ double sw[256];
  for (int t = threadIdx.x; t < K; t += blockDim.x) sw[t] = w[t];
  __syncthreads();
  const bool small = in.size <= 0xffffffffLL;
  const double start = op == ndi::MIN ? INFINITY : op == ndi::MAX ? -INFINITY : 0.0;
  const long long nl = in.shape[gd], ngroups = (nl + ndi::GROUP - 1) / ndi::GROUP;
  const long long items = in.size / nl * ngroups;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < items;
       g += (long long)gridDim.x * blockDim.x) {
    // the group's first element i0 (C order; di between its elements), base (in's), c
    long long rem = g, span = 1, base = 0, i0 = 0, di = 1, cg = 0;
    bool inside = true;
#pragma unroll
    for (int d = 7; d >= 0; d--) {
      if (d < nd) {
        long long n = in.shape[d], m = d == gd ? ngroups : n;
        long long q = small ? (long long)((unsigned int)rem / (unsigned int)m) : rem / m;
        long long cd = rem - q * m;
        rem = q;
        if (d == gd) { cd *= ndi::GROUP; di = span; cg = cd; }
        i0 += cd * span;
        span *= n;
        base += cd * in.stride[d];
        inside = inside && (line ? cd + plan[d] >= 0 && (d == gd ? cd + ndi::GROUP - 1 : cd) + plan[8 + d] < n
                                 : cd >= box_a[d] && cd < box_b[d]);
      }
    }
    if (inside) {
      double acc[ndi::GROUP];
#pragma unroll
      for (int r = 0; r < ndi::GROUP; r++) acc[r] = start;
      if (op == ndi::SYM || op == ndi::ANTI) {   // (one row: the line, step 1)
#pragma unroll
        for (int r = 0; r < ndi::GROUP; r++)
          acc[r] = ndi::pairs_inside(op, p + base + delta[0] + r * along, along, (int)K, sw, w);
      } else if (op == ndi::LAST) {   // (the line, step 1): each output's last tap, then the walk
        int o[ndi::GROUP];                  // over the others, as pairs_inside's fold
#pragma unroll
        for (int r = 0; r < ndi::GROUP; r++) {
          o[r] = r;
          acc[r] = ndi::value(p[base + delta[K - 1] + r * along]) * sw[K - 1];
        }
        ndi::fold_group<ndi::SUM>(p + base + delta[0], along, (int)K - 1, sw, o, acc);
      } else {
        ndi::fold_rows_op(op, p + base, rows, nrows, delta, along, sw, acc);
      }
#pragma unroll
      for (int r = 0; r < ndi::GROUP; r++)
        ndi::combine(out + i0 + r * di, op == ndi::MEAN ? acc[r] / (double)K : acc[r], how);
      continue;
    }
    if (!line) continue;   // an N-D footprint's groups near an edge: ndi_filter's
    const long long nr = nl - cg < ndi::GROUP ? nl - cg : ndi::GROUP;
    for (long long r = 0; r < nr; r++) {   // near an edge: each tap by the mode along the line
      const long long c = cg + r, at0 = base + r * along;
      if (op == ndi::SYM || op == ndi::ANTI || op == ndi::LAST) {
        ndi::combine(out + i0 + r * di, ndi::pairs_edge(op, p, at0, c, off, nd, gd, nl, along, mode, cval, (int)K, sw, w), how);
        continue;
      }
      double acc = start;
      for (long long k = 0; k < K; k++) {
        double wk = sw[k];
        if (op == ndi::SKIP0 && !(fabs(wk) > DBL_EPSILON)) continue;
        long long o = off[k * nd + gd], at = at0;
        bool outside = false;
        if (o != 0) {
          long long m = ndi::map_index(c + o, nl, mode);
          outside = m < 0;
          at += (m - c) * along;
        }
        double x = outside ? cval : ndi::value(p[at]);
        acc = ndi::fold(op, acc, op == ndi::MIN || op == ndi::MAX || op == ndi::MEAN ? 1.0 : wk, x);
      }
      ndi::combine(out + i0 + r * di, op == ndi::MEAN ? acc / (double)K : acc, how);
    }
  }
}

// A minimum, maximum or mean of K taps one apart along a line (dim gd, tap 0 at offset
// first, step 1), for long windows: van Herk and Gil-Werman's, O(1) a point whatever K is,
// where the fold above is O(K). Along each line the mode extends the input to E = n + K - 1
// values (point c's window is extended values c .. c + K - 1), cut into blocks of K;
// each block is folded from its start (h) and from its end (g), and ndi_minmax_out takes a
// point's value from g at its window's start and h at its end. A block is folded in
// pieces of S values, a thread a piece (ndi_minmax_scan), so that a long window does not
// leave the GPU with one thread a block; ndi_minmax_carry folds the pieces' ends in order
// (a thread a block: K / S steps) into each piece's carry, what the pieces before it (for
// h) or after it (for g) hold, which ndi_minmax_out folds in as it reads. The same answers
// as the fold in tap order, bit for bit: NaN never wins a compare (the fold starts at
// +-inf), and of equal values (0.0 and -0.0) the first in tap order does (g keeps the
// earliest from its end back, h the earliest from its start, and g's come first; a carry
// from before wins a tie, one from after loses it). Lines l0 .. l0 + m - 1 (C order over
// the other dims), g and h E apart a line; the carries (hc, gc) P = ceil(K / S) a block.
// A mean sums instead (g and h partial sums, a window's g + h, or g alone where the window
// is a whole block), each sum of at most K values, where the fold sums K in tap order.
namespace ndi {
// line l's first element in `in` (base) and in a C-ordered array of in's shape (at)
template <typename T>
__device__ inline void line_start(const gpu::array<T> &in, int gd, long long l, long long &base, long long &at) {
  long long span = 1;
  base = 0;
  at = 0;
  for (int d = in.ndim - 1; d >= 0; d--) {
    const long long n = in.shape[d];
    if (d != gd) {
      const long long c = l % n;
      l /= n;
      base += c * in.stride[d];
      at += c * span;
    }
    span *= n;
  }
}
__device__ inline bool before(int op, double x, double acc) { return op == MIN ? x < acc : x > acc; }
// x, the fold of values before y's, with y: their sum (MEAN), or the extreme, the earlier
// winning a tie
__device__ inline double joined(int op, double x, double y) { return op == MEAN ? x + y : before(op, y, x) ? y : x; }
__device__ inline double identity(int op) { return op == MIN ? INFINITY : op == MAX ? -INFINITY : 0.0; }
}  // namespace ndi

template <typename T>
__global__ void ndi_minmax_scan(gpu::array<T> in, double *g, double *h, int gd, long long first, long long K,
                                long long S, int op, int mode, double cval, long long E, long long l0, long long m) {
  const long long n = in.shape[gd], along = in.stride[gd], nblocks = (E + K - 1) / K, P = (K + S - 1) / S;
  const double start = ndi::identity(op);
  const T *__restrict__ p = in.ptr();
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m * nblocks * P;
       t += (long long)gridDim.x * blockDim.x) {
    const long long l = t / (nblocks * P), b = t / P % nblocks, e0 = b * K + t % P * S;
    const long long bend = b * K + K < E ? b * K + K : E, e1 = e0 + S < bend ? e0 + S : bend;
    if (e0 >= e1) continue;   // (past the end of a short last block)
    long long base, at;
    ndi::line_start(in, gd, l0 + l, base, at);
    double *gl = g + l * E, *hl = h + l * E;
    double acc = start;
    for (long long e = e0; e < e1; e++) {
      const long long j = ndi::map_index(e + first, n, mode);
      const double x = j < 0 ? cval : ndi::value(p[base + j * along]);
      if (op == ndi::MEAN) acc += x;
      else if (ndi::before(op, x, acc)) acc = x;   // (a tie keeps the earlier)
      hl[e] = acc;
    }
    acc = start;
    for (long long e = e1 - 1; e >= e0; e--) {
      const long long j = ndi::map_index(e + first, n, mode);
      const double x = j < 0 ? cval : ndi::value(p[base + j * along]);
      if (op == ndi::MEAN) acc += x;
      else if (ndi::before(op, x, acc) || x == acc) acc = x;   // (a tie takes the earlier: this one)
      gl[e] = acc;
    }
  }
}

// hc[piece]: the fold of the block's pieces before it; gc[piece]: of those after it
__global__ void ndi_minmax_carry(const double *__restrict__ g, const double *__restrict__ h, double *gc, double *hc,
                                 long long K, long long S, int op, long long E, long long m) {
  const long long nblocks = (E + K - 1) / K, P = (K + S - 1) / S;
  const double start = ndi::identity(op);
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m * nblocks;
       t += (long long)gridDim.x * blockDim.x) {
    const long long l = t / nblocks, b = t % nblocks, e0 = b * K, bend = e0 + K < E ? e0 + K : E;
    const long long np = (bend - e0 + S - 1) / S;   // the block's pieces
    const double *gl = g + l * E, *hl = h + l * E;
    double *gcb = gc + t * P, *hcb = hc + t * P;
    double acc = start;
    for (long long q = 0; q < np; q++) {
      hcb[q] = acc;
      const long long last = e0 + (q + 1) * S < bend ? e0 + (q + 1) * S - 1 : bend - 1;
      acc = ndi::joined(op, acc, hl[last]);
    }
    acc = start;
    for (long long q = np - 1; q >= 0; q--) {
      gcb[q] = acc;
      acc = ndi::joined(op, gl[e0 + q * S], acc);
    }
  }
}

template <typename T, typename O>
__global__ void ndi_minmax_out(gpu::array<T> in, O *out, const double *__restrict__ g, const double *__restrict__ h,
                               const double *__restrict__ gc, const double *__restrict__ hc, int gd, long long K,
                               long long S, int op, long long E, long long l0, long long m, int how) {
  const long long n = in.shape[gd], nblocks = (E + K - 1) / K, P = (K + S - 1) / S;
  long long span = 1;   // the C-ordered step along gd
  for (int d = in.ndim - 1; d > gd; d--) span *= in.shape[d];
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m * n;
       t += (long long)gridDim.x * blockDim.x) {
    const long long l = t / n, c = t % n, e = c + K - 1;
    long long base, at;
    ndi::line_start(in, gd, l0 + l, base, at);
    double a = g[l * E + c], b = h[l * E + e];
    if (P > 1) {
      a = ndi::joined(op, a, gc[(l * nblocks + c / K) * P + c % K / S]);
      b = ndi::joined(op, hc[(l * nblocks + e / K) * P + e % K / S], b);
    }
    const double v = op != ndi::MEAN ? ndi::joined(op, a, b) : (c % K == 0 ? a : a + b) / (double)K;
    ndi::combine(out + at + c * span, v, how);
  }
}
