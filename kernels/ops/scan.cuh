// scan.cuh: what gpuhost's scans (cumsum, cumprod) are made of; lua/reduction.lua puts it
// after ew.cuh and red.cuh before a scanner struct F (acc, identity, combine, load, store)
// and host/scan.c launches one of two kernels:
//   sc_rows   one thread scans one line in order (short lines, strided lines whose
//             neighbours are lines: consecutive threads read consecutive elements; and
//             the CPU backend's many lines);
//   sc_tiles  lines contiguous in memory, cut into tiles that blocks take in order (an
//             atomic counter hands them out, so a tile's predecessors have started): a
//             block scans its tile, publishes its total, and finds the total of every
//             tile before it in its line by looking back (decoupled look-back, Merrill and
//             Garland 2016): one pass over the data. A block of one thread (the CPU
//             backend) reads its tile twice instead of keeping it in registers.
// Float results depend on how the look-back met its predecessors (a total or a prefix),
// as CuPy's (CUB's) do: the last bits may differ from run to run on a GPU.

namespace scan {

struct layout {
  long long lines, len, tiles;   // lines, elements a line, tiles a line
  long long in_step, out_step;   // the element strides along a line
  int nd, tile;                  // merged dims of the space of lines; elements a tile
  long long shape[8], in_stride[8], out_stride[8];
};

template <class T> __device__ __forceinline__ T load_cg(const T *p) { return red::load_shared_result(p); }

__device__ __forceinline__ void line_offsets(const layout &L, long long line, long long &in, long long &out) {
  in = out = 0;
  for (int d = L.nd - 1; d >= 0; d--) {
    long long n = L.shape[d], q = line / n, r = line - q * n;
    in += r * L.in_stride[d];
    out += r * L.out_stride[d];
    line = q;
  }
}

template <class F>
__device__ void rows(const typename F::in *x, typename F::out *y, const layout &L) {
  long long line = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= L.lines) return;
  long long i, o;
  line_offsets(L, line, i, o);
  typename F::acc s = F::identity();
  for (long long k = 0; k < L.len; k++) {
    s = F::combine(s, F::load(x[i + k * L.in_step]));
    y[o + k * L.out_step] = F::store(s);
  }
}

// the look-back's records, in scratch: the counter, then a flag per tile (0: nothing yet,
// 1: its total, 2: the total of the line up to and with it), its total, its prefix
template <class A> struct board {
  unsigned *counter;
  volatile int *flag;
  A *total, *inclusive;
};
template <class A> __device__ __forceinline__ board<A> board_at(unsigned char *scratch, long long tiles) {
  board<A> b;
  b.counter = reinterpret_cast<unsigned *>(scratch);
  b.flag = reinterpret_cast<volatile int *>(scratch + 8);
  long long at = (8 + 4 * tiles + 15) / 16 * 16;
  b.total = reinterpret_cast<A *>(scratch + at);
  b.inclusive = b.total + tiles;
  return b;
}

template <class A> __device__ __forceinline__ void publish(const board<A> &b, long long t, const A &v, int state) {
  if (state == 1) b.total[t] = v; else b.inclusive[t] = v;
  __threadfence();
  b.flag[t] = state;
}

// The combined totals of tiles first .. t - 1 (one thread)
template <class F>
__device__ typename F::acc look_back_serial(const board<typename F::acc> &b, long long t, long long first) {
  typename F::acc run = F::identity();
  for (long long p = t - 1; p >= first; p--) {
    int f;
    while ((f = b.flag[p]) == 0) {}
    __threadfence();
    run = F::combine(f == 2 ? load_cg(&b.inclusive[p]) : load_cg(&b.total[p]), run);
    if (f == 2) break;
  }
  return run;
}

// The same by a warp: 32 predecessors at a time (lane 0's result is the one)
template <class F>
__device__ typename F::acc look_back_warp(const board<typename F::acc> &b, long long t, long long first) {
  typedef typename F::acc acc;
  const int lane = threadIdx.x & 31;
  acc run = F::identity();
  for (long long p = t - 1; p >= first; p -= 32) {
    long long q = p - lane;
    int f = 2;
    acc v = F::identity();
    if (q >= first) {
      while ((f = b.flag[q]) == 0) {}
      __threadfence();
      v = f == 2 ? load_cg(&b.inclusive[q]) : load_cg(&b.total[q]);
    }
    unsigned stops = __ballot_sync(0xffffffffu, f == 2);
    int last = stops ? __ffs(stops) - 1 : 31;
    if (lane > last) v = F::identity();
    for (int d = 16; d > 0; d /= 2) v = F::combine(v, red::shfl_down(v, d, 32));
    run = F::combine(v, run);
    if (stops) break;
  }
  return run;
}

// A tile by one thread: its total, then (after the look-back) its elements written.
template <class F>
__device__ void tile_serial(const typename F::in *x, typename F::out *y, const layout &L, const board<typename F::acc> &b,
                            long long t, long long line, long long chunk) {
  typedef typename F::acc acc;
  long long i, o;
  line_offsets(L, line, i, o);
  const long long k0 = chunk * L.tile, k1 = k0 + L.tile < L.len ? k0 + L.tile : L.len;
  acc s = F::identity();
  for (long long k = k0; k < k1; k++) s = F::combine(s, F::load(x[i + k]));
  acc prefix = F::identity();
  if (chunk == 0) {
    publish(b, t, s, 2);
  } else {
    publish(b, t, s, 1);
    prefix = look_back_serial<F>(b, t, t - chunk);
    publish(b, t, F::combine(prefix, s), 2);
  }
  s = prefix;
  for (long long k = k0; k < k1; k++) {
    s = F::combine(s, F::load(x[i + k]));
    y[o + k] = F::store(s);
  }
}

#define SCAN_BLOCK 256

// A tile by a block of SCAN_BLOCK threads, ITEMS elements each, kept in registers:
// read striped (coalesced) through shared memory into each thread's ITEMS consecutive
// elements, scanned, and written back the same way.
template <class F, int ITEMS>
__device__ void tile_block(const typename F::in *x, typename F::out *y, const layout &L, const board<typename F::acc> &b,
                           long long t, long long line, long long chunk) {
  typedef typename F::acc acc;
  // a pad element every 128 bytes, so that a thread's ITEMS consecutive elements and a
  // warp's striped ones both fall in distinct banks
  const int P = 128 / sizeof(acc) > 0 ? 128 / sizeof(acc) : 1;
  __shared__ unsigned long long raw[((SCAN_BLOCK * ITEMS + SCAN_BLOCK * ITEMS / (128 / sizeof(acc) > 0 ? 128 / sizeof(acc) : 1)) * sizeof(acc) + 7) / 8];
  __shared__ acc warp_total[SCAN_BLOCK / 32];
  __shared__ acc block_prefix;
  acc *sh = reinterpret_cast<acc *>(raw);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  long long i, o;
  line_offsets(L, line, i, o);
  const long long k0 = chunk * (long long)(SCAN_BLOCK * ITEMS);
  const long long n = L.len - k0 < SCAN_BLOCK * ITEMS ? L.len - k0 : SCAN_BLOCK * ITEMS;
RED_UNROLL
  for (int j = 0; j < ITEMS; j++) {
    int e = j * SCAN_BLOCK + tid;
    sh[e + e / P] = e < n ? F::load(x[i + k0 + e]) : F::identity();
  }
  __syncthreads();
  acc v[ITEMS];
RED_UNROLL
  for (int j = 0; j < ITEMS; j++) v[j] = sh[tid * ITEMS + j + (tid * ITEMS + j) / P];
RED_UNROLL
  for (int j = 1; j < ITEMS; j++) v[j] = F::combine(v[j - 1], v[j]);
  // the threads' totals scanned: within each warp, then across the warps
  acc mine = v[ITEMS - 1], inc = mine;
  for (int d = 1; d < 32; d *= 2) {
    acc up = red::shfl_up(inc, d);
    if (lane >= d) inc = F::combine(up, inc);
  }
  if (lane == 31) warp_total[warp] = inc;
  __syncthreads();
  acc before = F::identity(), total = F::identity();
  for (int w = 0; w < SCAN_BLOCK / 32; w++) {
    if (w < warp) before = F::combine(before, warp_total[w]);
    total = F::combine(total, warp_total[w]);
  }
  acc left = red::shfl_up(inc, 1);   // every lane shuffles; lane 0 ignores what it got
  acc excl = lane == 0 ? before : F::combine(before, left);
  if (warp == 0) {   // the tile's prefix from the tiles before it
    acc prefix = F::identity();
    if (chunk == 0) {
      if (lane == 0) publish(b, t, total, 2);
    } else {
      if (lane == 0) publish(b, t, total, 1);
      prefix = look_back_warp<F>(b, t, t - chunk);
      if (lane == 0) publish(b, t, F::combine(prefix, total), 2);
    }
    if (lane == 0) block_prefix = prefix;
  }
  __syncthreads();
  excl = F::combine(block_prefix, excl);
RED_UNROLL
  for (int j = 0; j < ITEMS; j++) sh[tid * ITEMS + j + (tid * ITEMS + j) / P] = F::combine(excl, v[j]);
  __syncthreads();
RED_UNROLL
  for (int j = 0; j < ITEMS; j++) {
    int e = j * SCAN_BLOCK + tid;
    if (e < n) y[o + k0 + e] = F::store(sh[e + e / P]);
  }
}

template <class F, int ITEMS>
__device__ void tiles(const typename F::in *x, typename F::out *y, const layout &L, unsigned char *scratch) {
  board<typename F::acc> b = board_at<typename F::acc>(scratch, L.lines * L.tiles);
  __shared__ long long tile_id;
  if (threadIdx.x == 0) tile_id = atomicAdd(b.counter, 1u);
  if (blockDim.x > 1) __syncthreads();
  const long long t = tile_id, line = t / L.tiles, chunk = t - line * L.tiles;
  if (blockDim.x == 1) tile_serial<F>(x, y, L, b, t, line, chunk);
  else tile_block<F, ITEMS>(x, y, L, b, t, line, chunk);
}

}  // namespace scan
