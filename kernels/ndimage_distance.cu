// ndimage_distance.cu: the kernels of gpu.ndimage's distance transforms
// (lua/ndimage_distance.lua). Each element's nearest zero (its "feature") is kept as
// coordinates, F[k * n + i] for dim k of element i (C order), -1 in F[0] for none yet. The
// exact transforms go a dim at a time (ndd_envelope: a thread a 1-D line builds the lower
// envelope of the line's candidates; ndd_take: a thread an element takes its nearest; the
// first pass, whose candidates all lie on their lines, by bands of lines: ndd_near_*; the
// later ones by bands too where the computed costs allow: ndd_band_*); a
// chamfer transform by a general structure runs scipy's two raster passes in one thread.
// Every index a kernel makes is checked against the array.

namespace ndd {

enum { EUCLIDEAN = 0, TAXICAB = 1, CHESSBOARD = 2 };
enum { EDT = 0, CDT = 1, BF = 2 };

// the places of a band that ndd_band_env stacks in shared memory (lua/ndimage_distance.lua's
// BAND), and the most threads of its blocks that do
#define NDD_BAND 32

// the C-order strides of a shape (in elements)
__device__ inline void strides(const long long *shape, int nd, long long *st) {
  long long s = 1;
  for (int k = nd - 1; k >= 0; k--) { st[k] = s; s *= shape[k]; }
}

// The cost, from point x of a line along dim d, of the candidate at place y of that line
// whose feature lies h across (h: the part of the distance off the line)
__device__ inline double cost(int metric, long long x, long long y, double h, double s) {
  long long a = x > y ? x - y : y - x;
  if (metric == EUCLIDEAN) { double t = (double)a * s; return t * t + h; }
  if (metric == TAXICAB) return (double)a + h;
  return (double)a > h ? (double)a : h;
}

// candidate u (later on the line than p) wins at x: strictly nearer, or as near where
// ties go to the later place
__device__ inline bool wins(int metric, long long x, long long u, double hu, long long p, double hp, double s, int later) {
  double cu = cost(metric, x, u, hu, s), cp = cost(metric, x, p, hp, s);
  return later ? cu <= cp : cu < cp;
}

// the part off the line (along dim d, through c) of the distance to the feature of the
// element at base + at (src: features, n elements)
__device__ inline double off_line(const int *src, long long n, long long base, long long at, const long long *c, int nd,
                                  int d, int metric, const double *sampling, int has_sampling) {
  double h = 0.0;
  for (int k = 0; k < nd; k++) {
    if (k == d) continue;
    long long a = (long long)src[k * n + base + at] - c[k];
    if (a < 0) a = -a;
    if (metric == EUCLIDEAN) {
      double tk = (double)a * (has_sampling ? sampling[k] : 1.0);
      h += tk * tk;
    } else if (metric == TAXICAB) {
      h += (double)a;
    } else if ((double)a > h) {
      h = (double)a;
    }
  }
  return h;
}

// The first place in [lo, len) where candidate u (later on the line than p) wins, len for
// none: a right half-line, found by bisection; for the Euclidean metric from where the two
// parabolas cross, then stepped to the exact place (a step or two)
__device__ inline long long takeover(int metric, long long lo, long long len, long long u, double hu, long long p,
                                     double hp, double s, int later) {
  long long hi = len;
  if (metric == EUCLIDEAN && s != 0.0) {
    double w = s * s;
    double cross = 0.5 * (double)(u + p) + (hu - hp) / (2.0 * w * (double)(u - p));
    if (cross == cross) {   // (clamped as a double: a huge one does not fit a long long)
      long long x = cross <= (double)lo ? lo : cross >= (double)len ? len : (long long)floor(cross);
      while (x > lo && wins(metric, x - 1, u, hu, p, hp, s, later)) x--;
      while (x < len && !wins(metric, x, u, hu, p, hp, s, later)) x++;
      return x;
    }
  }
  while (lo < hi) {
    long long mid = lo + (hi - lo) / 2;
    if (wins(metric, mid, u, hu, p, hp, s, later)) hi = mid; else lo = mid + 1;
  }
  return lo;
}

// Meijster's envelope of the candidates (src >= 0) at places [lo, hi) of the line at base
// (stride sd, len places), over all of [0, len): their places in s and the starts of their
// stretches in t, at places stack, stack + ssd ... (H: each element's h); their count. s
// holds places less off (S: a type that holds each of them). *least (where not null): the
// candidates' least h, +inf for none.
template <typename S>
__device__ inline long long envelope(const int *src, const double *H, S *s, long long off, int *t,
                                     long long base, long long sd, long long lo, long long hi, long long stack,
                                     long long ssd, long long len, int metric, double sw, int later, double *least) {
  long long q = -1;
  double hq = 0.0;   // the h of the stack's top
  double m = INFINITY;
  for (long long u = lo; u < hi; u++) {
    if (src[base + u * sd] < 0) continue;
    const double hu = H[base + u * sd];
    if (hu < m) m = hu;
    while (q >= 0) {
      if (!wins(metric, t[stack + q * ssd], u, hu, (long long)s[stack + q * ssd] + off, hq, sw, later)) break;
      q--;
      if (q >= 0) hq = H[base + ((long long)s[stack + q * ssd] + off) * sd];
    }
    if (q < 0) {
      q = 0;
      s[stack] = (S)(u - off);
      t[stack] = 0;
      hq = hu;
    } else {
      long long at = takeover(metric, t[stack + q * ssd] + 1, len, u, hu, (long long)s[stack + q * ssd] + off, hq, sw,
                                later);
      if (at < len) {
        q++;
        s[stack + q * ssd] = (S)(u - off);
        t[stack + q * ssd] = (int)at;
        hq = hu;
      }
    }
  }
  if (least) *least = m;
  return q + 1;
}

// the coordinates c of element i of a C-ordered array
__device__ inline void coords(const gpu::array<bool> &in, long long i, long long *c) {
  for (int k = in.ndim - 1; k >= 0; k--) {
    long long q = i / in.shape[k];
    c[k] = i - q * in.shape[k];
    i = q;
  }
}

// the stride (in elements) of dim d of a C-ordered array
__device__ inline long long stride_of(const gpu::array<bool> &in, int d) {
  long long sd = 1;
  for (int k = in.ndim - 1; k > d; k--) sd *= in.shape[k];
  return sd;
}

// element i's place x along dim d, and its line's number (the C order of the other dims)
__device__ inline long long line_of(const gpu::array<bool> &in, int d, long long i, long long *x) {
  long long r = i, j = 0, scale = 1;
  for (int k = in.ndim - 1; k >= 0; k--) {
    long long q = r / in.shape[k];
    long long ck = r - q * in.shape[k];
    r = q;
    if (k == d) { *x = ck; continue; }
    j += ck * scale;
    scale *= in.shape[k];
  }
  return j;
}

// the last of K stretches (starts t[stack], t[stack + sd] ..., t[stack] <= x) starting at or before x
__device__ inline long long stretch_at(const int *t, long long stack, long long sd, long long K, long long x) {
  long long lo = 0, hi = K - 1;
  while (lo < hi) {
    long long mid = (lo + hi + 1) / 2;
    if (t[stack + mid * sd] <= x) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// One of the bands of B places of the lines along dim d: its line (the C order of the
// other dims) and its number on it (of nb a line), the line's first element and stride
// along d, and its places [lo, hi) on the line
struct band {
  long long line, at, nb, base, sd, lo, hi;
};

// Band number `task` of all lines' (a thread's tasks: task, task + the grid's threads
// ...), false past the last or for a bad d or B. Consecutive tasks take neighbouring bands
// of a line along the contiguous dim, the same band of neighbouring lines otherwise
// (consecutive places of memory, both).
__device__ inline bool band_of(const gpu::array<bool> &in, int d, long long B, long long task, band &b) {
  const int nd = in.ndim;
  if (d < 0 || d >= nd || in.size <= 0 || B <= 0 || task < 0) return false;
  const long long len = in.shape[d];
  const long long lines = in.size / len;
  long long st[8];
  strides(in.shape, nd, st);
  b.sd = st[d];
  b.nb = (len + B - 1) / B;
  if (task >= lines * b.nb) return false;
  if (b.sd == 1) { b.line = task / b.nb; b.at = task - b.line * b.nb; }
  else { b.at = task / lines; b.line = task - b.at * lines; }
  long long base = 0, r = b.line;
  for (int k = nd - 1; k >= 0; k--) {
    if (k == d) continue;
    long long q = r / in.shape[k];
    base += (r - q * in.shape[k]) * st[k];
    r = q;
  }
  b.base = base;
  b.lo = b.at * B;
  b.hi = b.lo + B < len ? b.lo + B : len;
  return true;
}

}  // namespace ndd

// F of every element: its own coordinates where in is false (a zero), else -1 and zeros
// (scipy's start, which an input without zeros keeps). in: bool, C-ordered.
extern "C" __global__ void ndd_init(gpu::array<bool> in, int *F) {
  const int nd = in.ndim;
  const long long n = in.size;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long r = i;
    for (int k = nd - 1; k >= 0; k--) {
      long long q = r / in.shape[k];
      F[k * n + i] = in.data[i] ? (k == 0 ? -1 : 0) : (int)(r - q * in.shape[k]);
      r = q;
    }
  }
}

// The part off the line along d of each element's feature (off_line's h, once an element
// and pass, so that ndd_envelope reads a double instead of recomputing it in its loops);
// only a candidate's (src[i] >= 0) is read. Same function, same operands: same h.
extern "C" __global__ void ndd_offline(gpu::array<bool> in, const int *src, double *H, int d, int metric,
                                       const double *sampling, int has_sampling) {
  const int nd = in.ndim;
  const long long n = in.size;
  if (d < 0 || d >= nd) return;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long c[8];
    ndd::coords(in, i, c);
    H[i] = ndd::off_line(src, n, i, 0, c, nd, d, metric, sampling, has_sampling);
  }
}

// One pass along dim d (0-based) of in's shape gives each element the nearest of the
// features on its line (src), in two launches. First (ndd_envelope) a thread a line builds
// the lower envelope of the line's candidates (Meijster's scheme: a candidate later on the
// line wins on a right half-line, whose start takeover finds): s, t (scratch of the element
// count) get the envelope's places and the starts of their stretches, cnt[line] their
// number. Ties go to the earlier place on the line (later: the later). H: ndd_offline's.
extern "C" __global__ void ndd_envelope(gpu::array<bool> in, const int *src, const double *H, int *s, int *t,
                                        int *cnt, int d, int metric, const double *sampling, int has_sampling,
                                        int later) {
  const int nd = in.ndim;
  const long long n = in.size;
  if (d < 0 || d >= nd || n <= 0) return;
  const long long len = in.shape[d];
  const long long lines = n / len;
  long long st[8];
  ndd::strides(in.shape, nd, st);
  const long long sd = st[d];
  const double sw = has_sampling ? sampling[d] : 1.0;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < lines;
       j += (long long)gridDim.x * blockDim.x) {
    long long base = 0, r = j;
    for (int k = nd - 1; k >= 0; k--) {
      if (k == d) continue;
      long long q = r / in.shape[k];
      base += (r - q * in.shape[k]) * st[k];
      r = q;
    }
    const long long K = ndd::envelope(src, H, s, 0, t, base, sd, 0, len, base, sd, len, metric, sw, later, nullptr);
    cnt[j] = (int)K;
  }
}

// The fast first pass. Where every candidate's feature lies on its line (h = 0: the first
// pass, whose features are the zeros themselves), the cost grows with the distance along
// the line alone, |x - y| (scaled by a sampling s that the caller keeps to 1e-100 <= |s|,
// |s| * len <= 1e100, where (a * s)^2 neither underflows nor overflows and distinct a give
// distinct costs: rounding keeps the order, and a1 < a2 <= 2^31 differ by far more than an
// ulp). Then a candidate later on the line wins over an earlier one exactly where it is
// nearer (or as near, `later`): a right half-line, so Meijster's envelope is, at each x,
// the candidate least by (|x - y|, then y, or then -y where later), and that is the
// nearest candidate at or before x or the nearest at or after it, the before one unless
// the after one is strictly nearer (as near, `later`). That is what this pair of kernels
// finds, with a thread per band of B places of a line: ndd_near_bands writes each band's
// first and last candidate (bnd[2 * (line * nb + band) + 0, 1], -1 for none), ndd_near_take
// gets the nearest candidates before and after a band from those of the other bands, then
// walks its band both ways and copies the chosen candidate's feature (src) to dst, or the
// element's own where its line has none (as ndd_take).
extern "C" __global__ void ndd_near_bands(gpu::array<bool> in, const int *src, int *bnd, int d, long long B) {
  ndd::band bn;
  for (long long task = gpu::grid(1); ndd::band_of(in, d, B, task, bn); task += gpu::gridsize(1)) {
    long long first = -1, last = -1;
    for (long long y = bn.lo; y < bn.hi; y++) {
      if (src[bn.base + y * bn.sd] < 0) continue;
      if (first < 0) first = y;
      last = y;
    }
    bnd[2 * (bn.line * bn.nb + bn.at)] = (int)first;
    bnd[2 * (bn.line * bn.nb + bn.at) + 1] = (int)last;
  }
}

extern "C" __global__ void ndd_near_take(gpu::array<bool> in, const int *src, int *dst, const int *bnd, int d,
                                         long long B, int later) {
  const int nd = in.ndim;
  const long long n = in.size;
  ndd::band bn;
  for (long long task = gpu::grid(1); ndd::band_of(in, d, B, task, bn); task += gpu::gridsize(1)) {
    const long long len = in.shape[d], base = bn.base, sd = bn.sd;
    const int *lb = bnd + 2 * bn.line * bn.nb;
    long long before = -1, after = -1;   // the nearest candidates before and after the band
    for (long long b = bn.at - 1; b >= 0 && before < 0; b--) before = lb[2 * b + 1];
    for (long long b = bn.at + 1; b < bn.nb && after < 0; b++) after = lb[2 * b];
    if (before >= len) before = -1;   // (clamped: bnd is ours, but no index goes unchecked)
    if (after >= len) after = -1;
    // backwards: dst's plane d holds the nearest candidate at or after each place (-1: none)
    for (long long x = bn.hi - 1; x >= bn.lo; x--) {
      if (src[base + x * sd] >= 0) after = x;
      dst[(long long)d * n + base + x * sd] = (int)after;
    }
    for (long long x = bn.lo; x < bn.hi; x++) {
      const long long i = base + x * sd;
      if (src[i] >= 0) before = x;
      long long a = dst[(long long)d * n + i], from = x;
      if (a < x || a >= len) a = -1;
      if (before >= 0 && a >= 0) {
        long long dl = x - before, dr = a - x;
        from = dr < dl || (later && dr == dl) ? a : before;
      } else if (before >= 0) {
        from = before;
      } else if (a >= 0) {
        from = a;
      }
      for (int k = 0; k < nd; k++) dst[k * n + i] = src[k * n + base + from * sd];
    }
  }
}

// The later passes by bands, where a candidate later on the line wins over an earlier one
// (wins, on the costs as computed) on a right half-line of places. The caller checks one of:
// every cost is an exact double (no sampling, or one whose values are integers times
// powers of two, m * 2^-e, so that every cost is an integer multiple of 2^-2e for the
// greatest e, and the greatest possible cost, sum over dims of (size * sampling)^2, stays
// below 2^52 such multiples; Euclidean: the difference of the costs falls linearly along
// the line; taxicab and chessboard: it never rises); or, Euclidean with costs that round,
// every cost is below 2^45 s^2 (s: the pass's sampling, s^2 and the costs normal and
// finite). Then each computed cost is within 4.01 * 2^-53 of the exact one (a product, a
// square and a sum, fused or not) relative to the greatest cost C, so the computed
// comparison of two candidates follows the sign of their exact difference D(x) except
// where |D(x)| <= 8.02 * 2^-53 * C < s^2 / 16; D falls by 2 s^2 (u - p) >= 2 s^2 from a
// place to the next, so at most one place lies there, and the computed "u wins" still
// changes at most once along the line. So Meijster's envelope (ndd_envelope's, and each
// band's) gives each place x the least candidate in the order "computed cost at x, then
// place" (the earlier place first, or the later where `later`): ndd_envelope's choice,
// rounding and all. That order is total, so the least over the line is the least of
// the bands' least ones: ndd_band_env builds each band's envelope over all of [0, len)
// (Meijster's scheme on the band's candidates alone; s, t in the band's own places, the
// count in cntb[line * nb + band], the candidates' least h in hmin), and ndd_band_take (a thread an element) looks x up in
// its own band's envelope and then in bands further out on both sides, while a band can
// still hold a candidate at most as costly as the best so far (no candidate of a band costs
// less than the cost at the band's nearest place with its least h: rounding is monotonic,
// so this holds of computed costs too).
extern "C" __global__ void ndd_band_env(gpu::array<bool> in, const int *src, const double *H, int *s, int *t,
                                        int *cntb, double *hmin, int d, int metric, double sw, int later, long long B) {
  // A band's stack is built in shared memory (NDD_BAND places a thread, a thread's entries
  // blockDim.x apart; its places as offsets in the band, a byte each): its pops and
  // pushes, a chain of dependent reads, then cost a shared load a step instead of a trip to
  // L2; it is stored at the band's places once built. (5 KiB a warp: many warps an SM.
  // Blocks of more threads, or longer bands, build it at the band's places as before.)
  __shared__ unsigned char ss[NDD_BAND * NDD_BAND];
  __shared__ int st[NDD_BAND * NDD_BAND];
  const bool staged = blockDim.x <= NDD_BAND && B <= NDD_BAND;
  ndd::band bn;
  for (long long task = gpu::grid(1); ndd::band_of(in, d, B, task, bn); task += gpu::gridsize(1)) {
    const long long b0 = bn.base + bn.lo * bn.sd;   // the band's stack: places lo, lo + 1 ... of the line
    const long long at = bn.line * bn.nb + bn.at;
    long long K;
    if (staged) {
      K = ndd::envelope(src, H, ss, bn.lo, st, bn.base, bn.sd, bn.lo, bn.hi, threadIdx.x, blockDim.x,
                        in.shape[d], metric, sw, later, hmin + at);
      for (long long q = 0; q < K; q++) {
        s[b0 + q * bn.sd] = (int)(bn.lo + ss[threadIdx.x + q * blockDim.x]);
        t[b0 + q * bn.sd] = st[threadIdx.x + q * blockDim.x];
      }
    } else {
      K = ndd::envelope(src, H, s, 0, t, bn.base, bn.sd, bn.lo, bn.hi, b0, bn.sd, in.shape[d], metric,
                        sw, later, hmin + at);
    }
    cntb[at] = (int)K;
  }
}

// For each band (a thread each): the nearest bands before and after it on its line that
// have an envelope (prevb, nextb; -1 and nb for none), so that ndd_band_take skips empty
// bands
extern "C" __global__ void ndd_band_links(gpu::array<bool> in, const int *cntb, int *prevb, int *nextb, int d,
                                          long long B) {
  ndd::band bn;
  for (long long task = gpu::grid(1); ndd::band_of(in, d, B, task, bn); task += gpu::gridsize(1)) {
    const int *lc = cntb + bn.line * bn.nb;
    const long long at = bn.line * bn.nb + bn.at;
    long long p = bn.at - 1, q = bn.at + 1;
    while (p >= 0 && lc[p] <= 0) p--;
    while (q < bn.nb && lc[q] <= 0) q++;
    prevb[at] = (int)p;
    nextb[at] = (int)q;
  }
}

// A thread an element: its own band's envelope's choice at x, then the bands with an
// envelope on both sides, the nearer side first, while a band's nearest place could cost no
// more than the best so far (cost(a, 0): the bound of every band further on that side too);
// a band whose bound with its least h, cost(a, hmin), exceeds the best is skipped. The
// least by (cost, place) of those seen is the least over the line: a band left out holds
// nothing as cheap.
extern "C" __global__ void ndd_band_take(gpu::array<bool> in, const int *src, int *dst, const double *H, const int *s,
                                         const int *t, const int *cntb, const int *prevb, const int *nextb,
                                         const double *hmin, int d, int metric, double sw, int later, long long B) {
  const int nd = in.ndim;
  const long long n = in.size;
  if (d < 0 || d >= nd || B <= 0) return;
  const long long len = in.shape[d];
  const long long nb = (len + B - 1) / B;
  const long long sd = ndd::stride_of(in, d);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long x = 0;
    const long long j = ndd::line_of(in, d, i, &x);   // (ndd::band_of's and ndd_envelope's order)
    const long long base = i - x * sd;
    const long long own = x / B;
    const long long lb = j * nb;   // the line's first band
    long long from = -1, L = own, R = own;
    double best = 0.0;
    while (L >= 0 || R < nb) {
      long long b, K;
      if (L == own && R == own) {   // the own band first
        b = own;
        L = prevb[lb + own];
        R = nextb[lb + own];
        K = cntb[lb + own];
        if (L >= own) L = -1;   // (clamped: links always lead away)
        if (R <= own) R = nb;
      } else {
        const long long aL = L >= 0 ? x - (L * B + B - 1) : -1;
        const long long aR = R < nb ? R * B - x : -1;
        const bool left = aL >= 0 && (aR < 0 || aL <= aR);
        b = left ? L : R;
        const long long a = left ? aL : aR;
        if (from >= 0 && ndd::cost(metric, a, 0, 0.0, sw) > best) {   // nothing on this side any more
          if (left) L = -1; else R = nb;
          continue;
        }
        // the band's link, least h and count at once: each step along a side is then one
        // trip to memory before its envelope is searched, not one for the link and bound
        // and another for the count (hmin and cntb have an entry for every band)
        const long long next = left ? prevb[lb + b] : nextb[lb + b];
        const double hm = hmin[lb + b];
        K = cntb[lb + b];
        if (left) L = next < b ? next : -1; else R = next > b ? next : nb;
        if (from >= 0 && ndd::cost(metric, a, 0, hm, sw) > best) continue;
      }
      const long long lo = b * B, hi = lo + B < len ? lo + B : len;
      if (K > hi - lo) K = hi - lo;
      if (K <= 0) continue;
      const long long b0 = base + lo * sd;
      long long y = s[b0 + ndd::stretch_at(t, b0, sd, K, x) * sd];
      if (y < lo || y >= hi) continue;
      double c = ndd::cost(metric, x, y, H[base + y * sd], sw);
      if (from < 0 || c < best || (c == best && (later ? y > from : y < from))) { from = y; best = c; }
    }
    if (from < 0) from = x;
    for (int k = 0; k < nd; k++) dst[k * n + i] = src[k * n + base + from * sd];
  }
}

// The second half of a pass: each element (a thread each) takes the feature of the
// envelope's candidate (s, t: ndd_envelope's, cnt[line] of them) whose stretch holds its
// place on its line along d; an element of a line without candidates keeps its own
extern "C" __global__ void ndd_take(gpu::array<bool> in, const int *src, int *dst, const int *s, const int *t,
                                    const int *cnt, int d) {
  const int nd = in.ndim;
  const long long n = in.size;
  if (d < 0 || d >= nd) return;
  const long long len = in.shape[d];
  const long long sd = ndd::stride_of(in, d);
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long x = 0;
    const long long j = ndd::line_of(in, d, i, &x);   // (ndd::band_of's and ndd_envelope's order)
    const long long base = i - x * sd;
    long long K = cnt[j], from = x;
    if (K > len) K = len;
    if (K > 0) {   // the last stretch starting at or before x (t[0] is 0)
      from = s[base + ndd::stretch_at(t, base, sd, K, x) * sd];
      if (from < 0 || from >= len) from = x;
    }
    for (int k = 0; k < nd; k++) dst[k * n + i] = src[k * n + base + from * sd];
  }
}

// The results from the features F, as scipy's function `how` gives them: distances (dd:
// float64 for EDT and a Euclidean BF, di: int32 for CDT, du: uint32 for a BF of another
// metric; where want_dist) and the 1-based coordinates of the feature (ind, {nd, n}, where
// want_ind). With no zero anywhere (F[0] still -1), scipy's leftovers: EDT measures to
// (-1, 0, ...), CDT gives -1 and the element itself, BF its greatest distance and element 0.
extern "C" __global__ void ndd_finish(gpu::array<bool> in, const int *F, int how, int metric, const double *sampling,
                                      int has_sampling, int want_dist, double *dd, int *di, unsigned int *du,
                                      int want_ind, int *ind) {
  const int nd = in.ndim;
  const long long n = in.size;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long c[8];
    ndd::coords(in, i, c);
    const bool none = F[i] < 0 && how != ndd::EDT;
    if (want_ind) {
      for (int k = 0; k < nd; k++) {
        long long v = none ? (how == ndd::CDT ? c[k] : 0) : F[k * n + i];
        ind[k * n + i] = (int)(v + 1);
      }
    }
    if (!want_dist) continue;
    if (metric == ndd::EUCLIDEAN) {
      double acc = 0.0;
      for (int k = 0; k < nd; k++) {   // scipy's order: (ft - index) * sampling, squared, summed along dim 0
        double tk = (double)((long long)F[k * n + i] - c[k]);
        if (has_sampling) tk *= sampling[k];
        acc = k == 0 ? tk * tk : acc + tk * tk;
      }
      dd[i] = none ? sqrt(1.7976931348623157e308) : sqrt(acc);
    } else {
      long long acc = 0;
      for (int k = 0; k < nd; k++) {
        long long a = (long long)F[k * n + i] - c[k];
        if (a < 0) a = -a;
        acc = metric == ndd::TAXICAB ? acc + a : (a > acc ? a : acc);
      }
      if (how == ndd::CDT) di[i] = none ? -1 : (int)acc;
      else du[i] = none ? 0xffffffffu : (unsigned int)acc;
    }
  }
}

// scipy's chamfer transform by a general structure: dt (int32: -1 where in is true, 0
// elsewhere) and ft (each element's own flat place) start on the device, then one raster
// pass (dir 1: C order; -1: backwards, the offsets negated) sets each nonzero element of
// dt to 1 + the least non-negative dt at its K taps (off[k * nd + d]; the first such tap
// in the structure's order wins ties), and ft to that tap's ft. One thread: the pass is
// sequential.
extern "C" __global__ void ndd_chamfer(gpu::array<bool> in, int *dt, int *ft, int has_ft, const long long *off,
                                       long long K, int dir) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const int nd = in.ndim;
  const long long n = in.size;
  long long st[8];
  ndd::strides(in.shape, nd, st);
  for (long long step = 0; step < n; step++) {
    long long i = dir > 0 ? step : n - 1 - step;
    int v = dt[i];
    if (v == 0) continue;
    long long c[8];
    ndd::coords(in, i, c);
    int best = v;
    long long at = i;
    for (long long k = 0; k < K; k++) {
      long long nb = 0;
      bool inside = true;
      for (int e = 0; e < nd && inside; e++) {
        long long j = c[e] + (dir > 0 ? off[k * nd + e] : -off[k * nd + e]);
        inside = j >= 0 && j < in.shape[e];
        nb += j * st[e];
      }
      if (!inside) continue;
      int tt = dt[nb];
      if (tt >= 0 && (best < 0 || tt + 1 < best)) { best = tt + 1; at = nb; }
    }
    dt[i] = best;
    if (has_ft) ft[i] = ft[at];
  }
}

// dt: -1 where in is true, else 0; ft: each element's flat place
extern "C" __global__ void ndd_chamfer_init(gpu::array<bool> in, int *dt, int *ft) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < in.size;
       i += (long long)gridDim.x * blockDim.x) {
    dt[i] = in.data[i] ? -1 : 0;
    ft[i] = (int)i;
  }
}

// ind ({nd, n}): the 1-based coordinates of flat places ft (out-of-range ones clamped)
extern "C" __global__ void ndd_unravel(gpu::array<bool> in, const int *ft, int *ind) {
  const int nd = in.ndim;
  const long long n = in.size;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long r = ft[i];
    if (r < 0 || r >= n) r = i;
    for (int k = nd - 1; k >= 0; k--) {
      long long q = r / in.shape[k];
      ind[k * n + i] = (int)(r - q * in.shape[k] + 1);
      r = q;
    }
  }
}
