// red.cuh: what gpuhost's reduction kernels are made of (lua/reduction.lua puts it after
// ew.cuh before each one). A generated reducer F says what a reduction is: its
// accumulator type, identity, how an element is mapped (map, load), how two accumulators
// combine (commutative and associative), and what is written from the result (post);
// red::run<F> is the one kernel that runs any of them over any layout host/reduce.c
// describes in a red::layout:
//   - the outputs (n_out of them) and the reduced elements of each (n_red) are two index
//     spaces of up to 8 merged dimensions each, with every operand's strides in both;
//   - mode 0: the threads of x walk the reduced elements of one output (blockDim.x lanes,
//     16-byte loads when the one input is contiguous there), y takes blockDim.y outputs;
//   - mode 1: x takes consecutive outputs, the lanes of y walk their reduced elements;
//   - blockIdx.y splits the reduced elements over several blocks (k_split each, or taking
//     turns with interleave), which leave partial results in scratch; the last block of
//     each blockIdx.x to finish (an atomic counter) combines them, so a reduction is one
//     launch however it is split.
// The order of every combine is fixed by the layout, so a launch gives the same bits each
// time. On the CPU backend blocks have one lane (host/reduce.c), so no barrier is met
// there, and each lane runs a plain loop with several accumulators.

// loops over accumulators and vector elements unrolled (GCC spells the pragma its own way)
#ifdef GPUHOST_CPU
#define RED_UNROLL _Pragma("GCC unroll 16")
#else
#define RED_UNROLL _Pragma("unroll")
#endif

namespace red {

template <int NOP> struct layout {
  long long n_out, n_red, k_split;
  long long count_at;        // bytes into scratch where the counters of the splits are
  int od, rd, mode, vec;
  int interleave, pad_;      // splits: 1, block y's lanes take every gridDim.y-th turn; 0, a stretch each
  double param[2];           // the reducer's parameters (ddof, the p of a norm)
  long long oshape[8], rshape[8];
  long long ostride[NOP][8];
  long long rstride[NOP][8];
};

// argmin and argmax: a value and its index (-1: none yet)
template <class T> struct arg { T v; long long i; };
template <class T> __device__ __forceinline__ bool isnan_(T v) {
  if constexpr (ew::info<T>::fp) return v != v; else return false;
}
// the first NaN, else the larger (smaller) value, ties to the smaller index: commutative
template <class T> __device__ __forceinline__ arg<T> arg_better(const arg<T> &a, const arg<T> &b, bool max) {
  if (a.i < 0) return b;
  if (b.i < 0) return a;
  bool an = isnan_(a.v), bn = isnan_(b.v);
  if (an || bn) return an && bn ? (a.i < b.i ? a : b) : an ? a : b;
  if (a.v == b.v) return a.i < b.i ? a : b;
  return (max ? a.v > b.v : a.v < b.v) ? a : b;
}
template <class T> __device__ __forceinline__ arg<T> argmax_of(const arg<T> &a, const arg<T> &b) { return arg_better(a, b, true); }
template <class T> __device__ __forceinline__ arg<T> argmin_of(const arg<T> &a, const arg<T> &b) { return arg_better(a, b, false); }

// the identities of min and max: the type's largest and smallest values
template <class T> __device__ __forceinline__ T highest() {
  if constexpr (ew::is_complex<T>::value) { auto h = highest<decltype(T().re)>(); return T(h, h); }
  else if constexpr (ew::same<T, float>::value) return __int_as_float(0x7f800000);
  else if constexpr (ew::same<T, double>::value) return __longlong_as_double(0x7ff0000000000000LL);
  else if constexpr (ew::same<T, gpu::half>::value) return gpu::half::from_bits(0x7c00);
  else return ew::info<T>::hi();
}
template <class T> __device__ __forceinline__ T lowest() {
  if constexpr (ew::is_complex<T>::value) { auto l = lowest<decltype(T().re)>(); return T(l, l); }
  else if constexpr (ew::same<T, float>::value) return __int_as_float((int)0xff800000u);
  else if constexpr (ew::same<T, double>::value) return __longlong_as_double((long long)0xfff0000000000000ULL);
  else if constexpr (ew::same<T, gpu::half>::value) return gpu::half::from_bits(0xfc00);
  else return ew::info<T>::lo();
}

// a value of any type moved down d lanes within groups of w (word by word)
template <class T> __device__ __forceinline__ T shfl_down(const T &v, int d, int w) {
  union { T v; unsigned w[(sizeof(T) + 3) / 4]; } u;
  u.v = v;
RED_UNROLL
  for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++) u.w[i] = __shfl_down_sync(0xffffffffu, u.w[i], d, w);
  return u.v;
}

template <class T> __device__ __forceinline__ T shfl_up(const T &v, int d) {
  union { T v; unsigned w[(sizeof(T) + 3) / 4]; } u;
  u.v = v;
RED_UNROLL
  for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++) u.w[i] = __shfl_up_sync(0xffffffffu, u.w[i], d, 32);
  return u.v;
}

// a value another block wrote (past its fence): from L2, not this SM's L1
template <class T> __device__ __forceinline__ T load_shared_result(const T *p) {
#ifdef GPUHOST_CPU
  return *p;   // after the atomic and the fence, which the compiler does not move loads past
#else
  union { T v; unsigned w[(sizeof(T) + 3) / 4]; } u;
  const unsigned *q = reinterpret_cast<const unsigned *>(p);
RED_UNROLL
  for (int i = 0; i < (int)(sizeof(T) / 4); i++) u.w[i] = __ldcg(q + i);
  if constexpr (sizeof(T) % 4 != 0) u.v = *p;
  return u.v;
#endif
}

// where output `out` is in every operand
template <int NOP> __device__ __forceinline__ void output_offsets(const layout<NOP> &L, long long out, long long *off) {
RED_UNROLL
  for (int i = 0; i < NOP; i++) off[i] = 0;
  for (int d = L.od - 1; d >= 0; d--) {
    long long n = L.oshape[d], q = out / n, r = out - q * n;
RED_UNROLL
    for (int i = 0; i < NOP; i++) off[i] += r * L.ostride[i][d];
    out = q;
  }
}

#ifdef GPUHOST_CPU
#define RED_U 8       // accumulators a lane keeps: independent chains for the compiler
#else
#define RED_U 4       // loads in flight a lane issues before it combines them
#endif

template <class F> __device__ __forceinline__ typename F::acc fold(typename F::acc *s) {
RED_UNROLL
  for (int w = RED_U / 2; w > 0; w /= 2)
RED_UNROLL
    for (int u = 0; u < w; u++) s[u] = F::combine(s[u], s[u + w]);
  return s[0];
}

// The reduced elements [k0, k1) of the output at off, every nlanes-th from lane on. An
// accumulator takes its elements in index order, so a reducer's step (an element into an
// accumulator) may rely on that: argmax's is a comparison, not a general combine.
template <class F>
__device__ typename F::acc accumulate(const typename F::args &A, const layout<F::NOP> &L, const long long *off,
                                      long long k0, long long k1, int lane, int nlanes) {
  typedef typename F::acc acc;
  acc s[RED_U];
RED_UNROLL
  for (int u = 0; u < RED_U; u++) s[u] = F::identity();
  long long o[F::NIN];
  if constexpr (F::NIN == 1) {
    if (L.vec) {   // contiguous and aligned: V elements a load
      typedef typename F::in0 T;
      const int V = 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1;
      const T *p = F::ptr0(A) + off[0];
      const long long nv = (k1 - k0) / V, kv = k0 + nv * V;
      long long j = lane;
#ifdef GPUHOST_CPU
      // an accumulator per element of two vectors, so the compiler may keep them in
      // vector registers (one lane a block here: nlanes is 1)
      acc t[2][V];
RED_UNROLL
      for (int e = 0; e < V; e++) t[0][e] = t[1][e] = F::identity();
      for (; j + nlanes < nv; j += 2 * (long long)nlanes) {
RED_UNROLL
        for (int u = 0; u < 2; u++)
RED_UNROLL
          for (int e = 0; e < V; e++) {
            const long long k = k0 + (j + u * (long long)nlanes) * V + e;
            t[u][e] = F::step(t[u][e], p[k], k, L.param);
          }
      }
RED_UNROLL
      for (int e = 0; e < V; e++) s[e % RED_U] = F::combine(s[e % RED_U], F::combine(t[0][e], t[1][e]));
#endif
      // RED_U loads issued before the first is used, the last round's guarded, so that a
      // lane with a few vectors (a short row) still has them all in flight at once
      for (; j < nv; j += RED_U * (long long)nlanes) {
        ew::vec<T, V> v[RED_U];
RED_UNROLL
        for (int u = 0; u < RED_U; u++)
          if (j + u * (long long)nlanes < nv) v[u] = ew::vload<V>(p + k0 + (j + u * (long long)nlanes) * V);
RED_UNROLL
        for (int u = 0; u < RED_U; u++)
          if (j + u * (long long)nlanes < nv)
RED_UNROLL
            for (int e = 0; e < V; e++)
              s[u] = F::step(s[u], v[u].v[e], k0 + (j + u * (long long)nlanes) * V + e, L.param);
      }
      for (long long k = kv + lane; k < k1; k += nlanes) s[0] = F::step(s[0], p[k], k, L.param);
      return fold<F>(s);
    }
  }
  if (L.rd == 1) {   // one reduced dimension: a stride per input
    long long k = k0 + lane;
    const long long step = nlanes;
    for (; k + (RED_U - 1) * step < k1; k += RED_U * step) {
RED_UNROLL
      for (int u = 0; u < RED_U; u++) {
RED_UNROLL
        for (int i = 0; i < F::NIN; i++) o[i] = off[i] + (k + u * step) * L.rstride[i][0];
        s[u] = F::combine(s[u], F::load(A, o, k + u * step, L.param));
      }
    }
    if (k < k1) {   // the last few, all loaded before the first is used (a short row's
      acc v[RED_U];   // loads in flight together: the sum(2) of (10^6, 2) waited for each)
RED_UNROLL
      for (int u = 0; u < RED_U; u++)
        if (k + u * step < k1) {
RED_UNROLL
          for (int i = 0; i < F::NIN; i++) o[i] = off[i] + (k + u * step) * L.rstride[i][0];
          v[u] = F::load(A, o, k + u * step, L.param);
        }
RED_UNROLL
      for (int u = 0; u < RED_U; u++)
        if (k + u * step < k1) s[u] = F::combine(s[u], v[u]);
    }
    return fold<F>(s);
  }
  for (long long k = k0 + lane; k < k1; k += nlanes) {   // several: divide each index
RED_UNROLL
    for (int i = 0; i < F::NIN; i++) o[i] = off[i];
    long long rem = k;
    for (int d = L.rd - 1; d >= 0; d--) {
      long long n = L.rshape[d], q = rem / n, r = rem - q * n;
RED_UNROLL
      for (int i = 0; i < F::NIN; i++) o[i] += r * L.rstride[i][d];
      rem = q;
    }
    s[0] = F::combine(s[0], F::load(A, o, k, L.param));
  }
  return s[0];
}

// The lanes of each output combined; lane 0 has the result. Every thread of the block
// calls it (it may meet a barrier); lanes are a power of 2.
template <class F>
__device__ typename F::acc combine_lanes(typename F::acc s, int mode, int lane, int nlanes) {
  typedef typename F::acc acc;
  if (nlanes == 1) return s;
  if (mode == 0 && nlanes <= 32) {   // lanes within a warp: shuffles
    for (int d = nlanes / 2; d > 0; d /= 2) s = F::combine(s, shfl_down(s, d, nlanes));
    return s;
  }
  __shared__ unsigned long long storage[(256 * sizeof(acc) + 7) / 8];
  acc *sh = reinterpret_cast<acc *>(storage);
  const int t = threadIdx.y * blockDim.x + threadIdx.x, apart = mode == 0 ? 1 : blockDim.x;
  sh[t] = s;
  __syncthreads();
  for (int d = nlanes / 2; d > 0; d /= 2) {
    if (lane < d) sh[t] = F::combine(sh[t], sh[t + d * apart]);
    __syncthreads();
  }
  s = sh[t];
  __syncthreads();   // the storage may be used again
  return s;
}

template <class F>
__device__ void run(const typename F::args &A, const layout<F::NOP> &L, unsigned char *scratch) {
  typedef typename F::acc acc;
  const int mode = L.mode, nthreads = blockDim.x * blockDim.y;
  const int lane = mode == 0 ? threadIdx.x : threadIdx.y;
  const int nlanes = mode == 0 ? blockDim.x : blockDim.y;
  const long long out = mode == 0 ? (long long)blockIdx.x * blockDim.y + threadIdx.y
                                  : (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = out < L.n_out;
  long long off[F::NOP];
  output_offsets(L, live ? out : 0, off);
  long long k0 = 0, k1 = L.n_red;
  int klane = lane, klanes = nlanes;
  if (L.interleave) {
    klane = (int)blockIdx.y * nlanes + lane;
    klanes = (int)gridDim.y * nlanes;
  } else {
    k0 = (long long)blockIdx.y * L.k_split;
    k1 = k0 + L.k_split < L.n_red ? k0 + L.k_split : L.n_red;
  }
  acc s = F::identity();
  if (live && k0 < k1) s = accumulate<F>(A, L, off, k0, k1, klane, klanes);
  s = combine_lanes<F>(s, mode, lane, nlanes);
  if (gridDim.y == 1) {
    if (live && lane == 0) F::post(A, off, s, L.n_red, L.param);
    return;
  }
  // split: leave the partial result, and let the last block of this blockIdx.x finish
  acc *part = reinterpret_cast<acc *>(scratch);
  unsigned *count = reinterpret_cast<unsigned *>(scratch + L.count_at);
  if (live && lane == 0) part[(long long)blockIdx.y * L.n_out + out] = s;
  __threadfence();
  __shared__ int last;
  if (nthreads > 1) __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) last = atomicAdd(&count[blockIdx.x], 1u) == gridDim.y - 1;
  if (nthreads > 1) __syncthreads();
  if (!last) return;
  __threadfence();
  s = F::identity();
  if (live)
    for (int j = lane; j < (int)gridDim.y; j += nlanes)
      s = F::combine(s, load_shared_result(&part[(long long)j * L.n_out + out]));
  s = combine_lanes<F>(s, mode, lane, nlanes);
  if (live && lane == 0) F::post(A, off, s, L.n_red, L.param);
}

template <class T> __device__ __forceinline__ T sq(T x) { return x * x; }
// |x| and |x|^2 as doubles, for reals and complex numbers alike (norms, variances)
template <class T> __device__ __forceinline__ double mag(T x) {
  if constexpr (ew::is_complex<T>::value) return hypot((double)x.re, (double)x.im);
  else return fabs((double)x);
}
template <class T> __device__ __forceinline__ double mag2(T x) {
  if constexpr (ew::is_complex<T>::value) return (double)x.re * x.re + (double)x.im * x.im;
  else return (double)x * (double)x;
}

// The combine of a complex prod and cumprod: a factor of exactly 1 + 0i (the identity the
// kernels start from, and combine partial results with, where NumPy's running product
// starts from the first element) leaves the other as it is; complex multiplication by it
// does not (inf + 0i times 1 + 0i is inf + nan i, so a product that overflowed became nan)
template <class T> __device__ __forceinline__ T times(T a, T b) {
  if (a.re == 1 && a.im == 0) return b;
  if (b.re == 1 && b.im == 0) return a;
  return ew::multiply(a, b);
}

}  // namespace red
