// ndimage_morph.cu: the kernels of gpu.ndimage's morphology and measurements
// (lua/ndimage_morph.lua), compiled after kernels/ndimage.cu (whose ndi::map_index, value and
// put they use): binary erosion and dilation, grey erosion and dilation by a non-flat
// structure, connected components (union-find with atomics) and per-label extrema and boxes.
// Every kernel loops over its elements with a grid stride and checks each index it makes.

namespace ndm {

// A warp's 32 lanes as runs of consecutive lanes of one key (neighbouring elements of one
// region): each lane's run ends at the lane returned, and *head says whether the lane starts
// its run; every lane must call it. Then run_min/run_max fold each run's values into its
// first lane (shuffles down, a lane taking only what lies in its own run), so that a run
// makes one atomic call, not one a lane.
__device__ inline int run_end(long long key, bool *head) {
  const int lane = threadIdx.x & 31;
  const long long before = __shfl_up_sync(0xffffffffu, key, 1);
  *head = lane == 0 || before != key;
  const unsigned heads = __ballot_sync(0xffffffffu, *head);
  const unsigned later = lane == 31 ? 0u : heads & (0xffffffffu << (lane + 1));
  return later ? __ffs((int)later) - 2 : 31;
}
template <typename V> __device__ inline V run_min(V v, int end) {
  const int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d <<= 1) {
    V o = __shfl_down_sync(0xffffffffu, v, d);
    if (lane + d <= end && o < v) v = o;
  }
  return v;
}
template <typename V> __device__ inline V run_max(V v, int end) {
  const int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d <<= 1) {
    V o = __shfl_down_sync(0xffffffffu, v, d);
    if (lane + d <= end && o > v) v = o;
  }
  return v;
}

// element i's coordinates (C order) in c, for a shape of nd dims
__device__ inline void coords(long long i, const long long *shape, int nd, long long *c) {
  for (int d = nd - 1; d >= 0; d--) {
    long long q = i / shape[d];
    c[d] = i - q * shape[d];
    i = q;
  }
}

// coords, by 32-bit divisions where the array has fewer than 2^31 elements (small)
__device__ inline void coords_of(long long i, const long long *shape, int nd, long long *c, bool small) {
  if (!small) { coords(i, shape, nd, c); return; }
  unsigned int r = (unsigned int)i;
  for (int d = nd - 1; d >= 0; d--) {
    const unsigned int s = (unsigned int)shape[d], q = r / s;
    c[d] = (long long)(r - q * s);
    r = q;
  }
}

// the flat (C order) element of coordinates c + off[0..nd-1], or -1 when it lies outside
__device__ inline long long neighbour(const long long *c, const long long *off, const long long *shape, int nd) {
  long long at = 0;
  for (int d = 0; d < nd; d++) {
    long long j = c[d] + off[d];
    if (j < 0 || j >= shape[d]) return -1;
    at = at * shape[d] + j;
  }
  return at;
}

// a key whose unsigned order is the doubles' order, NaN after +inf
__device__ inline unsigned long long order_key(double v) {
  if (v != v) return 0xffffffffffffffffULL;
  unsigned long long u = (unsigned long long)__double_as_longlong(v);
  return (u >> 63) ? ~u : u | 0x8000000000000000ULL;
}
__device__ inline double key_value(unsigned long long k) {
  if (k == 0xffffffffffffffffULL) return NAN;
  unsigned long long u = (k >> 63) ? k & 0x7fffffffffffffffULL : ~k;
  return __longlong_as_double((long long)u);
}

// union-find over L (L[x] <= x, a root its own parent): the root of x's tree
__device__ inline int find_root(volatile int *L, int x) {
  int p = L[x];
  while (p != x) { x = p; p = L[x]; }
  return x;
}

// a and b's trees joined under the lesser root (so a tree's root is its first element);
// returns that root (an ancestor of a and b: a later walk may start there)
__device__ inline int unite(int *L, int a, int b) {
  volatile int *V = L;
  for (;;) {
    a = find_root(V, a);
    b = find_root(V, b);
    if (a == b) return a;
    if (a > b) { int t = a; a = b; b = t; }
    int old = atomicMin(&L[b], a);
    if (old == b) return a;   // b was a root: now under a
    b = old;                   // b had been linked meanwhile: join its new root instead
  }
}

}  // namespace ndm

// Binary erosion (dilate 0: all taps true) or dilation (1: any tap true) of in (bool,
// C-ordered): K taps, geo[K + 2 nd + k * nd + d] their offsets; a tap outside reads
// border. Where mask (C-ordered, has_mask) is false the point keeps in's value. *changed is
// set to 1 where any point differs from in, when track (a fixed number of iterations reads
// no flag: no load of it a changed point). Where inner (geo from the host: the taps' flat offsets, then the
// margins they reach below and above along each dim, K + 2 nd values; K <= NDM_TAPS, nd <= 8)
// a point whose taps all lie inside reads them at i + flat[k] without checking each, in the
// same order (the same result).
#define NDM_TAPS 512
namespace ndm {
// geo's values into a block's shared memory (then a barrier, every thread of the block)
__device__ inline void inner_load(const long long *geo, long long K, int nd, int inner, long long *flat,
                                  long long *below, long long *above) {
  if (inner) {
    for (long long k = threadIdx.x; k < K; k += blockDim.x) flat[k] = geo[k];
    for (int d = threadIdx.x; d < nd; d += blockDim.x) {
      below[d] = geo[K + d];
      above[d] = geo[K + nd + d];
    }
  }
  __syncthreads();
}
}  // namespace ndm

extern "C" __global__ void ndm_binary(gpu::array<bool> in, bool *out, const bool *mask, int has_mask,
                                      long long K, const long long *geo, int inner_ok,
                                      int border, int dilate, int *changed, int track) {
  __shared__ long long flat[NDM_TAPS], below[8], above[8];
  const int nd = in.ndim;
  const bool *p = in.data;
  const long long *off = geo + K + 2 * nd;
  inner_ok = inner_ok && K <= NDM_TAPS && nd <= 8;
  ndm::inner_load(geo, K, nd, inner_ok, flat, below, above);
  const bool small = in.size <= 2147483647LL;
  // four consecutive points a thread: the first's coordinates by divisions, the next ones'
  // by a step along the last dim (again by divisions past its end)
  const long long groups = (in.size + 3) / 4;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    long long c[8];
    bool have = false;   // whether c holds point i's coordinates
    for (long long i = g * 4; i < g * 4 + 4 && i < in.size; i++) {
      bool r = p[i];
      if (!has_mask || mask[i]) {
        if (!have) ndm::coords_of(i, in.shape, nd, c, small);
        have = true;
        bool inner = inner_ok;
        for (int d = 0; d < nd && inner; d++) inner = c[d] >= below[d] && c[d] + above[d] < in.shape[d];
        r = !dilate;
        if (inner) {
          for (long long k = 0; k < K; k++) {
            if (p[i + flat[k]] == (dilate != 0)) { r = !r; break; }
          }
        } else {
          for (long long k = 0; k < K; k++) {
            long long at = ndm::neighbour(c, off + k * nd, in.shape, nd);
            bool v = at < 0 ? border != 0 : p[at];
            if (v == (dilate != 0)) { r = !r; break; }
          }
        }
      }
      out[i] = r;
      if (track && r != p[i] && *(volatile int *)changed == 0) atomicExch(changed, 1);
      if (have && ++c[nd - 1] == in.shape[nd - 1]) have = false;
    }
  }
}

// Grey erosion (maximum 0: the least of in - s[k]) or dilation (1: the greatest of in + s[k])
// over K taps (geo[K + 2 nd + k * nd + d], as ndm_binary's), the input extended by mode
// (ndi's codes; cval for constant).
// As scipy's C: cval and each tap's value but the first are cast to the input's type T
// (so a uint8 erosion below 0 wraps, and is then not the least).
template <typename T, typename O>
__global__ void ndm_grey(gpu::array<T> in, O *out, const double *s, long long K,
                         const long long *geo, int inner_ok, int maximum, int mode, double cval) {
  // as ndm_binary: geo's flat offsets in in's strides (the mode maps an index inside to
  // itself: the same values in the same order)
  __shared__ long long flat[NDM_TAPS], below[8], above[8];
  const int nd = in.ndim;
  const long long *off = geo + K + 2 * nd;
  inner_ok = inner_ok && K <= NDM_TAPS && nd <= 8;
  ndm::inner_load(geo, K, nd, inner_ok, flat, below, above);
  const bool small = in.size <= 2147483647LL;
  T tc;
  ndi::put(&tc, cval);   // cval in the input's type, as scipy's C reads it
  const double cv = ndi::value(tc);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < in.size;
       i += (long long)gridDim.x * blockDim.x) {
    long long c[8];
    ndm::coords_of(i, in.shape, nd, c, small);
    bool inner = inner_ok;
    long long base = 0;
    for (int d = 0; d < nd; d++) {
      inner = inner && c[d] >= below[d] && c[d] + above[d] < in.shape[d];
      base += c[d] * in.stride[d];
    }
    double acc = maximum ? -INFINITY : INFINITY;
    for (long long k = 0; k < K; k++) {
      long long at = 0;
      bool outside = false;
      if (inner) {
        at = base + flat[k];
      } else {
        for (int d = 0; d < nd; d++) {
          long long m = ndi::map_index(c[d] + off[k * nd + d], in.shape[d], mode);
          outside = outside || m < 0;
          at += (m < 0 ? 0 : m) * in.stride[d];
        }
      }
      double x = outside ? cv : ndi::value(in.data[at]);
      x = maximum ? x + s[k] : x - s[k];
      if (k > 0) {   // scipy's C keeps each later tap's value in the input's type
        T t;
        ndi::put(&t, x);
        x = ndi::value(t);
      }
      if (maximum) acc = x > acc ? x : acc;
      else acc = x < acc ? x : acc;
    }
    ndi::put(out + i, acc);
  }
}

// Connected components of fg (bool, C-ordered) in L (int32): first each point its own
// tree (-1 for the background), then each foreground point joined with its foreground
// neighbours at the K taps off[k * nd + d], then each point pointed at its root.
// Where `chain` (the taps hold the left one, 0 ... 0 -1, so every point is joined with its
// left neighbour), a tap right after a foreground tap one place to its left along the last
// dim is not joined: the two neighbours are left and right of each other, so joined anyway
// (of a row of such taps, the first foreground one is joined). 8-connected in 2-D: where
// the point above is foreground, the ones above left or right of it make no join.
extern "C" __global__ void ndm_label_init(gpu::array<bool> fg, int *L) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < fg.size;
       i += (long long)gridDim.x * blockDim.x)
    L[i] = fg.data[i] ? (int)i : -1;
}

extern "C" __global__ void ndm_label_merge(gpu::array<bool> fg, int *L, const long long *off, long long K,
                                           int chain) {
  const int nd = fg.ndim;
  const bool small = fg.size <= 2147483647LL;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < fg.size;
       i += (long long)gridDim.x * blockDim.x) {
    if (!fg.data[i]) continue;
    long long c[8];
    ndm::coords_of(i, fg.shape, nd, c, small);
    bool before = false;   // the tap before k was a foreground point
    int root = (int)i;     // i's root when last seen (its walk starts there, not at i)
    for (long long k = 0; k < K; k++) {
      const long long *o = off + k * nd;
      const long long at = ndm::neighbour(c, o, fg.shape, nd);
      const bool on = at >= 0 && fg.data[at];
      bool next = chain && before && o[nd - 1] - o[nd - 1 - nd] == 1;   // one place right of it?
      for (int d = 0; next && d < nd - 1; d++) next = o[d] == o[d - nd];
      if (on && !next) root = ndm::unite(L, root, (int)at);
      before = on;
    }
  }
}

// L[i] made its root; roots[i] 1 where i is a root (the first point of its component)
extern "C" __global__ void ndm_label_flatten(int *L, long long n, int *roots) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    int l = L[i];
    if (l >= 0) l = ndm::find_root((volatile int *)L, l);
    roots[i] = l == (int)i ? 1 : 0;
    L[i] = l;
  }
}

// out[i]: the number of i's component (rank: the running count of roots), 0 for background
extern "C" __global__ void ndm_label_number(const int *L, const int *rank, int *out, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    int l = L[i];
    out[i] = l >= 0 && l < n ? rank[l] : 0;
  }
}

// A dilation repeated until nothing changes, within the region m (bool, C-ordered; L its
// components' roots), of in (bool, C-ordered): touch[r] set for the root r of each region
// point that is a seed: true in in, or with a tap (off[k * nd + d]) on a true point outside
// the region, or outside the array where border is 1
extern "C" __global__ void ndm_seed(gpu::array<bool> m, const bool *in, const int *L, const long long *off,
                                    long long K, int border, int *touch) {
  const int nd = m.ndim;
  const bool small = m.size <= 2147483647LL;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < m.size;
       i += (long long)gridDim.x * blockDim.x) {
    int r = L[i];
    if (!m.data[i] || r < 0 || r >= m.size) continue;
    bool seed = in[i];
    if (!seed) {
      long long c[8];
      ndm::coords_of(i, m.shape, nd, c, small);
      for (long long k = 0; k < K && !seed; k++) {
        long long at = ndm::neighbour(c, off + k * nd, m.shape, nd);
        seed = at < 0 ? border != 0 : !m.data[at] && in[at];
      }
    }
    if (seed) touch[r] = 1;
  }
}

// the result: in the region, whether its component holds a seed; outside it, in's value
extern "C" __global__ void ndm_reach(const bool *m, const bool *in, const int *L, const int *touch, bool *out,
                                     long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    int r = L[i];
    out[i] = m[i] ? r >= 0 && r < n && touch[r] != 0 : in[i];
  }
}

// The bin of each label (labels read in C order): 1 + the place of its value among the nk
// sorted keys, 0 where it is none of them
template <typename L>
__global__ void ndm_bins(gpu::array<L> labels, const long long *keys, long long nk, int *bin) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < labels.size;
       i += (long long)gridDim.x * blockDim.x) {
    long long v = (long long)labels[i];
    long long lo = 0, hi = nk;
    while (lo < hi) {
      long long mid = (lo + hi) / 2;
      if (keys[mid] < v) lo = mid + 1; else hi = mid;
    }
    bin[i] = lo < nk && keys[lo] == v ? (int)(lo + 1) : 0;
  }
}

// Per bin (of nb; bin[i] in 0 .. nb-1): the keys of the least and greatest value (kmin,
// kmax: they start at all ones and 0), or with `positions` their places: pmin the least
// flat index of the least, pmax the greatest of the greatest (last) or its least (they start
// at the size, and at -1 or the size)
template <typename T>
__global__ void ndm_extrema(gpu::array<T> in, const int *bin, long long nb, unsigned long long *kmin,
                            unsigned long long *kmax, long long *pmin, long long *pmax, int positions, int last) {
  // a warp takes 32 consecutive elements at a time, every lane each round (the warp's
  // shuffles need all 32): each run of one bin among them is joined first (ndm::run_min),
  // and its first lane makes the atomic calls for it
  const int lane = threadIdx.x & 31;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * 32 < in.size; w += warps) {
    const long long i = w * 32 + lane;
    int b = i < in.size ? bin[i] : -1;
    const bool ok = b >= 0 && b < nb;
    if (!ok) b = -1;   // one run of the lanes outside every bin, which calls nothing
    const unsigned long long k = ok ? ndm::order_key(ndi::value((T)in[i])) : 0;
    bool head;
    const int end = ndm::run_end(b, &head);
    if (!positions) {
      const unsigned long long lo = ndm::run_min(k, end), hi = ndm::run_max(k, end);
      if (head && ok) { atomicMin(&kmin[b], lo); atomicMax(&kmax[b], hi); }
    } else {
      const long long none = last ? -1 : in.size;
      const long long lo = ndm::run_min(ok && k == kmin[b] ? i : in.size, end);
      const long long cand = ok && k == kmax[b] ? i : none;
      const long long hi = last ? ndm::run_max(cand, end) : ndm::run_min(cand, end);
      if (head && ok) {
        if (lo < in.size) atomicMin(&pmin[b], lo);
        if (hi != none) { if (last) atomicMax(&pmax[b], hi); else atomicMin(&pmax[b], hi); }
      }
    }
  }
}

// the keys back to values (float64); 0 for a bin that held nothing (kmax still 0)
extern "C" __global__ void ndm_extrema_values(const unsigned long long *kmin, const unsigned long long *kmax,
                                              double *vmin, double *vmax, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    bool empty = kmax[i] == 0;
    vmin[i] = empty ? 0.0 : ndm::key_value(kmin[i]);
    vmax[i] = empty ? 0.0 : ndm::key_value(kmax[i]);
  }
}

// find_objects: for labels 1 .. nl (of integer labels, read in C order), the least and
// greatest coordinate along each dim plus 1 (1-based), at box[((l - 1) * nd + d) * 2] and
// + 1: what a:totable() makes the boxes of (lua/ndimage_morph.lua). ndm_boxes_init sets
// them to "none": the greatest int64 and 0.
extern "C" __global__ void ndm_boxes_init(long long *box, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    box[2 * i] = 0x7fffffffffffffffLL;
    box[2 * i + 1] = 0;
  }
}

template <typename L>
__global__ void ndm_boxes(gpu::array<L> labels, long long nl, long long *box) {
  // A warp takes 32 consecutive elements at a time (a warp of background only goes on at
  // once). Each run of one label among them is the flat range from its first lane's element
  // a to its last's z, whose box its first lane makes from a's and z's coordinates alone:
  // along dim d, [a_d, z_d] while a and z agree on dims 0 .. d-1, else all of dim d (the
  // range wrapped from the dim's end to its start). Its atomic calls are made only where
  // they would change the box (a read first: most runs of a label lie within its box).
  const int nd = labels.ndim, lane = threadIdx.x & 31;
  const bool small = labels.size <= 2147483647LL;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * 32 < labels.size; w += warps) {
    const long long i = w * 32 + lane;
    long long l = i < labels.size ? (long long)labels[i] : 0;
    const bool ok = l >= 1 && l <= nl;
    if (__ballot_sync(0xffffffffu, ok) == 0) continue;   // the whole warp agrees
    if (!ok) l = 0;
    bool head;
    const int end = ndm::run_end(l, &head);
    if (head && ok) {
      long long a[8], z[8];
      ndm::coords_of(i, labels.shape, nd, a, small);
      ndm::coords_of(w * 32 + end, labels.shape, nd, z, small);
      long long *b = box + (l - 1) * 2 * nd;
      bool line = true;   // a and z agree on the dims before d
      for (int d = 0; d < nd; d++) {
        const long long lo = line ? a[d] + 1 : 1, hi = line ? z[d] + 1 : labels.shape[d];
        line = line && a[d] == z[d];
        if (lo < ((volatile long long *)b)[2 * d]) atomicMin(&b[2 * d], lo);
        if (hi > ((volatile long long *)b)[2 * d + 1]) atomicMax(&b[2 * d + 1], hi);
      }
    }
  }
}
