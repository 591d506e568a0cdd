// sort.cuh: gpuhost's sorts (host/sort.c): a stable LSD radix sort of 8-bit digits over
// keys made unsigned in the value's order (NaN last, all NaNs equal, -0 equal to 0;
// descending: the bits inverted), carrying each element's original index.
//   so_hist   the histograms of every pass at once (one read of the keys; key digits by
//             shared atomics spread over copies, row digits by warp matches);
//   so_pass   one pass over the data (Adinets and Merrill's Onesweep, 2022): blocks take
//             tiles in order (an atomic counter), rank their keys by digit (stable: by
//             warp, in element order), publish their digit counts and find the counts of
//             every tile before them by looking back, then write each key to its place,
//             through shared memory so that each digit's run is written in one stretch;
//   so_block  a segment of up to one tile sorted entirely in shared memory (many short
//             rows: one block each, every pass, one launch);
//   so_cpu    the CPU backend's: std::stable_sort on (ordered key, index) per segment.
// Sorting along a dim sorts rows; the GPU sorts several long rows together by adding
// passes on the row's number (from the carried index), which LSD order puts first.
// All give the same order: stable, ties in their original order, on both backends.

namespace srt {

#define SRT_BLOCK 256
#define SRT_WARPS (SRT_BLOCK / 32)
#define SRT_NONE 256u              // the digit of an element past the end

template <class K> struct key_bits { typedef unsigned U; };
template <> struct key_bits<double> { typedef unsigned long long U; };
template <> struct key_bits<long long> { typedef unsigned long long U; };
template <> struct key_bits<unsigned long long> { typedef unsigned long long U; };

// the key as an unsigned number in the value's order, without branches: a float's bits
// with the sign bit set for positive values and all of them inverted for negative ones;
// -0 as 0 and every NaN as the largest
template <class K> __device__ __forceinline__ typename key_bits<K>::U order(K k, int desc) {
  typedef typename key_bits<K>::U U;
  U u;
  if constexpr (ew::same<K, float>::value) {
    unsigned b = (unsigned)__float_as_int(k);
    b = (b << 1) == 0u ? 0u : b;
    u = b ^ ((unsigned)((int)b >> 31) | 0x80000000u);
    u = k != k ? 0xffffffffu : u;
  } else if constexpr (ew::same<K, double>::value) {
    unsigned long long b = (unsigned long long)__double_as_longlong(k);
    b = (b << 1) == 0ull ? 0ull : b;
    u = b ^ ((unsigned long long)((long long)b >> 63) | (1ull << 63));
    u = k != k ? ~0ull : u;
  } else if constexpr (ew::same<K, gpu::half>::value) {   // float16: its 16 bits as float's
    unsigned b = (unsigned)k.bits;
    b = (b & 0x7fffu) == 0u ? 0u : b;
    u = b ^ ((b & 0x8000u) ? 0xffffu : 0x8000u);
    u = (b & 0x7fffu) > 0x7c00u ? 0xffffu : u;
  } else if constexpr (ew::same<K, bool>::value) {
    u = k ? 1u : 0u;
  } else if constexpr (ew::info<K>::sgn) {
    u = (U)k ^ ((U)1 << (8 * sizeof(K) - 1));
    if constexpr (sizeof(K) < 4) u &= (1u << (8 * sizeof(K))) - 1;
  } else {
    u = (U)k;
  }
  return desc ? (U)~u : u;
}

// the lanes of the warp whose digit (9 bits) is this lane's: a ballot per bit (as CUB's
// MatchAny; match.any.sync is slower), which the CPU backend runs too. A set bit keeps
// the ballot, a clear one its complement (bit - 1 is all ones then).
template <int BITS = 9> __device__ __forceinline__ unsigned match_digit(unsigned d) {
  unsigned peers = 0xffffffffu;
#pragma unroll
  for (int b = 0; b < BITS; b++) {
    unsigned bit = (d >> b) & 1u;
    peers &= __ballot_sync(0xffffffffu, bit) ^ (bit - 1u);
  }
  return peers;
}

// exclusive prefix sums over the block (one value a thread); *total gets the sum
template <class T> __device__ T block_exclusive(T v, T *warp_sums, T *total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T inc = v;
  for (int d = 1; d < 32; d *= 2) {
    T up = __shfl_up_sync(0xffffffffu, inc, d);
    if (lane >= d) inc += up;
  }
  if (lane == 31) warp_sums[warp] = inc;
  __syncthreads();
  T before = 0, all = 0;
  for (int w = 0; w < SRT_WARPS; w++) {
    if (w < warp) before += warp_sums[w];
    all += warp_sums[w];
  }
  __syncthreads();
  *total = all;
  return before + inc - v;
}

// Ranks the tile's digits (items warp-striped: item j of lane l of warp w is element
// w * 32 * IT + j * 32 + l): rank[j] is the number of elements before it, in element
// order, with its digit in its warp; wc[w][d] ends as warp w's count of digit d.
// FULL: every item is valid (a digit below 256), so 8 ballots tell the peers, not 9.
template <int IT, bool FULL = false, class D>
__device__ void warp_rank(const D &dig, unsigned *rank, unsigned *wc) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned lt = (1u << lane) - 1u;
  unsigned *mine = wc + warp * 256;
  for (int j = 0; j < IT; j++) {
    unsigned d = dig(j), peers = match_digit<FULL ? 8 : 9>(d);
    unsigned b = d < SRT_NONE ? mine[d] : 0u;
    __syncwarp();
    if (d < SRT_NONE && lane == __ffs(peers) - 1) mine[d] = b + __popc(peers);
    __syncwarp();
    rank[j] = b + __popc(peers & lt);
  }
}

// After warp_rank: wc[w][d] becomes where warp w's run of digit d starts in the tile (the
// digit's start there and the counts of the warps before w), start[d] where the digit's
// run starts, and thread d gets the tile's count of digit d.
__device__ unsigned digit_runs(unsigned *wc, unsigned *start, unsigned *warp_sums) {
  const int d = threadIdx.x;
  unsigned run = 0;
  for (int w = 0; w < SRT_WARPS; w++) {
    unsigned c = wc[w * 256 + d];
    wc[w * 256 + d] = run;
    run += c;
  }
  unsigned total, s = block_exclusive(run, warp_sums, &total);
  start[d] = s;
  for (int w = 0; w < SRT_WARPS; w++) wc[w * 256 + d] += s;
  return run;
}

struct pass_args {
  const void *kin;               // keys (K)
  void *kout;
  const unsigned *pin;           // indices carried (NULL: the element's own, first pass)
  unsigned *pout;                // (NULL: none carried, a sort of values alone)
  long long *iout;               // the last pass writes 1-based int64 indices here instead
  long long n, seg_len;          // seg_len > 0: the digits are of the row (index / seg_len)
  const unsigned long long *hist;   // this pass's 256 counts
  unsigned long long *look;      // tiles x 256 look-back words, zeroed
  unsigned *counter;             // tile counter, zeroed
  int shift, desc;
};

#define SRT_AGG (1ull << 62)       // a look-back word: a tile's own count
#define SRT_INC (2ull << 62)       //   the count of the tiles up to it, itself included
#define SRT_COUNT(x) ((x) & ((1ull << 62) - 1))

// the digit a pass sorts on: of the key, or (CARRY, seg_len > 0) of the element's row
template <class K, bool CARRY>
__device__ __forceinline__ unsigned digit_of(K k, unsigned idx, const pass_args &a) {
  if (CARRY && a.seg_len > 0) return (unsigned)((((unsigned long long)idx / (unsigned long long)a.seg_len) >> a.shift) & 255u);
  return (unsigned)((order(k, a.desc) >> a.shift) & 255u);
}

// A pass whose digit is the same for every element (its histogram holds all n in one
// count: the upper bytes of small integers in a wide type, the row digits of few rows) is
// the identity: each block copies its tile (and carries the indices as a pass would), with
// no ranking and no look-back. (On an H200, 2 million int64 below 2^20 took 8 passes of
// about 41 us; 5 of them are copies now.)
template <class K, int IT, bool CARRY>
__device__ void copy_pass(const pass_args &a) {
  const long long base = (long long)blockIdx.x * (SRT_BLOCK * IT);
  const K *kin = static_cast<const K *>(a.kin);
  K *kout = static_cast<K *>(a.kout);
  for (int j = 0; j < IT; j++) {
    const long long g = base + j * SRT_BLOCK + threadIdx.x;
    if (g >= a.n) break;
    if constexpr (CARRY) {
      const unsigned i = a.pin ? a.pin[g] : (unsigned)g;
      if (kout) kout[g] = kin[g];
      if (a.iout) a.iout[g] = (long long)(a.seg_len > 0 ? i % (unsigned long long)a.seg_len : i) + 1;
      else if (a.pout) a.pout[g] = i;
    } else {
      kout[g] = kin[g];
    }
  }
}

// CARRY: each element's index goes along (read from pin, or the element's own; written to
// pout, or 1-based and within its row to iout on the last pass), and digits may be of the
// row. Otherwise the keys alone move (a sort of values): no index is loaded, kept or
// written. A full tile is loaded without bounds checks; each item's digit is found once
// (kept 4 to a register).
template <class K, int IT, bool CARRY>
__device__ void pass(const pass_args &a) {
  if (__syncthreads_or(a.hist[threadIdx.x] == (unsigned long long)a.n)) {   // (every block agrees)
    copy_pass<K, IT, CARRY>(a);
    return;
  }
  const int TILE = SRT_BLOCK * IT;
  __shared__ K sk[SRT_BLOCK * IT];
  __shared__ unsigned sp[CARRY ? SRT_BLOCK * IT : 1];
  __shared__ unsigned wc[SRT_WARPS * 256], start[256], warp_sums[SRT_WARPS];
  __shared__ unsigned long long offset_sums[SRT_WARPS];
  __shared__ long long gbase[256];
  __shared__ unsigned tile_sh;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0) tile_sh = atomicAdd(a.counter, 1u);
  for (int i = tid; i < SRT_WARPS * 256; i += SRT_BLOCK) wc[i] = 0;
  __syncthreads();
  const long long t = tile_sh, base = t * TILE, left = a.n - base;
  const int first = warp * 32 * IT + lane;   // this lane's first element in the tile
  const K *kin = static_cast<const K *>(a.kin) + base + first;
  K key[IT];
  unsigned idx[CARRY ? IT : 1], rank[IT], dgp[(IT + 3) / 4] = {}, valid = 0;   // digits, 4 a word
  auto dig = [&](int j) -> unsigned { return (valid >> j & 1u) ? (dgp[j >> 2] >> (8 * (j & 3))) & 255u : SRT_NONE; };
  auto keep = [&](int j, unsigned i) { dgp[j >> 2] |= digit_of<K, CARRY>(key[j], i, a) << (8 * (j & 3)); };
  if (left >= TILE) {
    for (int j = 0; j < IT; j++) key[j] = kin[j * 32];
    for (int j = 0; j < IT; j++) {
      unsigned i = 0;
      if constexpr (CARRY) i = idx[j] = a.pin ? a.pin[base + first + j * 32] : (unsigned)(base + first + j * 32);
      keep(j, i);
    }
    valid = (1u << IT) - 1u;
    warp_rank<IT, true>(dig, rank, wc);
  } else {
    for (int j = 0; j < IT; j++) {
      const bool in = first + j * 32 < left;
      unsigned i = 0;
      key[j] = in ? kin[j * 32] : K();
      if constexpr (CARRY) i = idx[j] = in ? (a.pin ? a.pin[base + first + j * 32] : (unsigned)(base + first + j * 32)) : 0u;
      if (in) keep(j, i);
      valid |= (in ? 1u : 0u) << j;
    }
    warp_rank<IT>(dig, rank, wc);
  }
  __syncthreads();
  unsigned count = digit_runs(wc, start, warp_sums);
  // publish this tile's count of digit tid, then look back for the tiles before it
  volatile unsigned long long *look = a.look;
  look[t * 256 + tid] = (t == 0 ? SRT_INC : SRT_AGG) | count;
  unsigned long long total, offset = block_exclusive<unsigned long long>(a.hist[tid], offset_sums, &total);
  unsigned long long prefix = 0;
  for (long long p = t - 1; p >= 0; p--) {
    unsigned long long w;
    while (((w = look[p * 256 + tid]) >> 62) == 0) {}
    prefix += SRT_COUNT(w);
    if ((w >> 62) == 2) break;
  }
  if (t > 0) look[t * 256 + tid] = SRT_INC | (prefix + count);
  gbase[tid] = (long long)(offset + prefix) - (long long)start[tid];
  __syncthreads();
  for (int j = 0; j < IT; j++) {
    unsigned d = dig(j);
    if (d == SRT_NONE) continue;
    unsigned r = wc[warp * 256 + d] + rank[j];
    sk[r] = key[j];
    if constexpr (CARRY) sp[r] = idx[j];
  }
  __syncthreads();
  const int nvalid = left < TILE ? (int)left : TILE;
  K *kout = static_cast<K *>(a.kout);
  for (int j = 0; j < IT; j++) {
    int e = j * SRT_BLOCK + tid;
    if (e >= nvalid) break;
    K k = sk[e];
    if constexpr (CARRY) {
      unsigned i = sp[e];
      long long g = gbase[digit_of<K, true>(k, i, a)] + e;
      if (kout) kout[g] = k;
      if (a.iout) a.iout[g] = (long long)(a.seg_len > 0 ? i % (unsigned long long)a.seg_len : i) + 1;   // within its row
      else if (a.pout) a.pout[g] = i;
    } else {
      kout[gbase[digit_of<K, false>(k, 0u, a)] + e] = k;
    }
  }
}

// The histograms of every pass: npk passes of key digits, nps of row digits. A key digit
// is counted by a shared atomic into one of the copies of the histograms (by lane; as many
// as 32 KB hold: 8 for keys of up to 4 bytes, 4 for 8), so that lanes with one digit (a
// float's top byte takes a few values) meet on a few counters only, each copy a word
// further along the banks than the one before, so that those counters are in different
// banks; a row digit, which every element of a row shares, by one atomic for the lanes
// that have it (match_digit). host/sort.c launches one wave of blocks. (On an H200, for
// 2^26 float32: 160 us with 4 copies in step; 151 to 165 us so, whatever the wave;
// 203 us with 8 copies in step; two loads in flight a round were slower.)
struct alignas(16) srt_v16 { unsigned w[4]; };
template <class K>
__device__ void hist(const K *keys, long long n, int npk, int nps, long long seg_len, int desc,
                     unsigned long long *out) {
  constexpr int PARTS = sizeof(K) <= 4 ? 8 : 4, SPAN = 256 * sizeof(K) + 1;   // a copy: a pass a byte
  __shared__ unsigned hk[PARTS * SPAN];
  __shared__ unsigned hs[4 * 256];
  for (int i = threadIdx.x; i < PARTS * SPAN; i += blockDim.x) hk[i] = 0;
  for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) hs[i] = 0;
  __syncthreads();
  unsigned *mine = hk + (threadIdx.x % PARTS) * SPAN;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  auto count = [&](K k) {
    auto u = order(k, desc);
    for (int p = 0; p < npk; p++) atomicAdd(&mine[p * 256 + (unsigned)((u >> (8 * p)) & 255u)], 1u);
  };
  // 16 bytes a load where the keys are aligned to them (a view's may not be), so that
  // enough bytes are in flight to keep the memory busy; the rest one by one
  constexpr int V = 16 / sizeof(K);
  long long done = 0;
  if (((unsigned long long)keys & 15u) == 0) {
    const srt_v16 *kv = reinterpret_cast<const srt_v16 *>(keys);
    const long long nv = n / V;
    for (long long i = first; i < nv; i += stride) {
      srt_v16 v = kv[i];
      K k[V];
      memcpy(k, &v, sizeof v);
      for (int q = 0; q < V; q++) count(k[q]);
    }
    done = nv * V;
  }
  for (long long i = done + first; i < n; i += stride) count(keys[i]);
  if (nps > 0) {
    const long long rounds = (n + stride - 1) / stride;   // every lane takes part in the matches
    for (long long r = 0; r < rounds; r++) {
      long long i = first + r * stride;
      bool valid = i < n;
      for (int p = 0; p < nps; p++) {
        unsigned d = valid ? (unsigned)(((unsigned long long)(i / seg_len) >> (8 * p)) & 255u) : SRT_NONE;
        unsigned peers = match_digit(d);
        if (d < SRT_NONE && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) atomicAdd(&hs[p * 256 + d], __popc(peers));
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < npk * 256; i += blockDim.x) {
    unsigned c = 0;
    for (int q = 0; q < PARTS; q++) c += hk[q * SPAN + i];
    if (c) atomicAdd(&out[i], (unsigned long long)c);
  }
  for (int i = threadIdx.x; i < nps * 256; i += blockDim.x)
    if (hs[i]) atomicAdd(&out[npk * 256 + i], (unsigned long long)hs[i]);
}

// Segments of up to one tile, a block each: every pass in shared memory.
template <class K, int IT>
__device__ void block_sort(const K *kin, K *kout, long long *iout, long long len, int passes, int desc) {
  const int TILE = SRT_BLOCK * IT;
  __shared__ K sk[SRT_BLOCK * IT];
  __shared__ unsigned sp[SRT_BLOCK * IT];
  __shared__ unsigned wc[SRT_WARPS * 256], start[256], warp_sums[SRT_WARPS];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const long long seg = blockIdx.x, base = seg * len;
  K key[IT];
  unsigned idx[IT], rank[IT];
  int p = 0;
  auto dig = [&](int j) -> unsigned {
    return (long long)idx[j] < len ? (unsigned)((order(key[j], desc) >> (8 * p)) & 255u) : SRT_NONE;
  };
  for (int j = 0; j < IT; j++) {   // element order: warp-striped
    int e = warp * 32 * IT + j * 32 + lane;
    key[j] = e < len ? kin[base + e] : K();
    idx[j] = (unsigned)e;
  }
  for (p = 0; p < passes; p++) {
    for (int i = tid; i < SRT_WARPS * 256; i += SRT_BLOCK) wc[i] = 0;
    __syncthreads();
    warp_rank<IT>(dig, rank, wc);
    __syncthreads();
    unsigned count = digit_runs(wc, start, warp_sums);
    if (__syncthreads_or(count == len)) continue;   // one digit throughout: nothing moves
    for (int j = 0; j < IT; j++) {
      unsigned d = dig(j);
      if (d == SRT_NONE) continue;
      unsigned r = wc[warp * 256 + d] + rank[j];
      sk[r] = key[j];
      sp[r] = idx[j];
    }
    __syncthreads();
    for (int j = 0; j < IT; j++) {   // the new order, warp-striped again
      int e = warp * 32 * IT + j * 32 + lane;
      key[j] = e < len ? sk[e] : K();
      idx[j] = e < len ? sp[e] : (unsigned)e;
    }
    __syncthreads();
  }
  for (int j = 0; j < IT; j++) {
    int e = warp * 32 * IT + j * 32 + lane;
    if (e >= len) continue;
    if (kout) kout[base + e] = key[j];
    if (iout) iout[base + e] = (long long)idx[j] + 1;
  }
}

#ifdef GPUHOST_CPU
// The CPU backend: each segment by std::stable_sort, a thread (block) each; scratch holds
// 16 bytes an element.
template <class K>
__device__ void cpu_sort(const K *kin, K *kout, long long *iout, long long len, int desc, void *scratch) {
  typedef typename key_bits<K>::U U;
  struct item { U u; long long i; };
  const long long seg = blockIdx.x, base = seg * len;
  item *v = static_cast<item *>(scratch) + base;
  for (long long i = 0; i < len; i++) v[i] = item{order(kin[base + i], desc), i};
  std::stable_sort(v, v + len, [](const item &x, const item &y) { return x.u < y.u; });
  for (long long i = 0; i < len; i++) {
    if (kout) kout[base + i] = kin[base + v[i].i];
    if (iout) iout[base + i] = v[i].i + 1;
  }
}
#endif

// unique: after a sort of values s (n of them) and their 1-based indices p. flags[i] is 1
// where s[i] starts a run of equal values (NaNs equal each other).
template <class K> __device__ __forceinline__ bool same_value(K a, K b) {
  if constexpr (ew::info<K>::fp) return a == b || (a != a && b != b);
  else return a == b;
}
template <class K> __device__ void unique_flags(const K *s, long long n, long long *flags) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = i == 0 || !same_value(s[i], s[i - 1]);
}
// pos: the inclusive cumsum of flags (a run's 1-based number). Writes the unique values,
// the first element's index (1-based) and each element's run (inverse), where given.
template <class K>
__device__ void unique_scatter(const K *s, const long long *p, const long long *pos, long long n, K *u,
                               long long *first_sorted, long long *index, long long *inverse) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long r = pos[i] - 1;
  if (i == 0 || pos[i] != pos[i - 1]) {
    u[r] = s[i];
    if (first_sorted) first_sorted[r] = i;
    if (index) index[r] = p[i];
  }
  if (inverse) inverse[p[i] - 1] = r + 1;
}
// counts from where each run starts
__device__ void unique_counts(const long long *first_sorted, long long nu, long long n, long long *counts) {
  long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < nu) counts[r] = (r + 1 < nu ? first_sorted[r + 1] : n) - first_sorted[r];
}

}  // namespace srt
