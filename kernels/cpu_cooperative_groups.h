// cooperative_groups.h for the CPU backend (kernels/cpu.h): the thread block, tiles of it
// (static and dynamic), the grid, and the tiles' reductions and scans
// (<cooperative_groups/reduce.h> and <scan.h> include this), over the same barriers and
// warp functions, computed in the order CUDA's own headers compute them.
#pragma once

namespace cooperative_groups {

struct thread_block {
  static void sync() { __syncthreads(); }
  static unsigned thread_rank() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  static unsigned size() { return blockDim.x * blockDim.y * blockDim.z; }
  static unsigned num_threads() { return size(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static dim3 dim_threads() { return group_dim(); }
};

inline thread_block this_thread_block() { return thread_block(); }
inline void sync(const thread_block &b) { b.sync(); }

// The grid. gpuhost makes no cooperative launch, so, as on a GPU without one, the group
// is not valid and sync() stops the kernel (CUDA's headers trap there).
struct grid_group {
  static bool is_valid() { return false; }
  static void sync() {
    gpuhost_cpu::stop(GPUHOST_STOP_TRAP, "grid_group::sync() in a launch that is not cooperative", nullptr, 0);
  }
  static unsigned long long num_blocks() { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  static unsigned long long block_rank() {
    return blockIdx.x + gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
  static unsigned long long num_threads() { return num_blocks() * thread_block::size(); }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long thread_rank() { return block_rank() * thread_block::size() + thread_block::thread_rank(); }
  static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static dim3 group_dim() { return dim_blocks(); }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
  static dim3 thread_index() {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
};
inline grid_group this_grid() { return grid_group(); }
inline void sync(const grid_group &g) { g.sync(); }

namespace gpuhost_tile {
// the lanes of the tile of n threads the calling thread is in: votes are over them, a
// ballot's bits count from the tile's first (a tile under 32 threads is not its warp)
inline unsigned first_lane(unsigned n) { return thread_block::thread_rank() % 32 / n * n; }
inline unsigned lanes(unsigned n) { return (unsigned)((1ull << n) - 1) << first_lane(n); }
}  // namespace gpuhost_tile

// A dynamic group: the block, or a tile of it of a power of two up to 32 threads.
struct thread_group {
  unsigned n;
  thread_group(const thread_block &) : n(thread_block::size()) {}
  explicit thread_group(unsigned size) : n(size) {}
  void sync() const {
    if (n == thread_block::size()) __syncthreads();
    else __syncwarp(gpuhost_tile::lanes(n));
  }
  unsigned thread_rank() const { return thread_block::thread_rank() % n; }
  unsigned size() const { return n; }
  unsigned num_threads() const { return n; }
};
inline thread_group tiled_partition(const thread_group &parent, unsigned n) {
  if (n == 0 || n > 32 || (n & (n - 1)) || n > parent.n)
    gpuhost_cpu::stop(GPUHOST_STOP_TRAP, "tiled_partition(group, n): n must be a power of two up to 32", nullptr, 0);
  return thread_group(n);
}
inline void sync(const thread_group &g) { g.sync(); }

template <unsigned N, class Parent = void>
struct thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile sizes are powers of two up to 32");
  thread_block_tile() = default;
  template <class Q> thread_block_tile(const thread_block_tile<N, Q> &) {}   // CUDA's derive from <N, void>
  operator thread_group() const { return thread_group(N); }
  static unsigned lanes() { return gpuhost_tile::lanes(N); }
  static void sync() { __syncwarp(lanes()); }
  static unsigned thread_rank() { return thread_block::thread_rank() % N; }
  static unsigned size() { return N; }
  static unsigned num_threads() { return N; }
  static dim3 dim_threads() { return dim3(N, 1, 1); }
  static unsigned meta_group_rank() { return thread_block::thread_rank() / N; }
  static unsigned meta_group_size() { return (thread_block::size() + N - 1) / N; }
  template <class T> static T shfl(T v, int src) { return __shfl_sync(lanes(), v, src, N); }
  template <class T> static T shfl_up(T v, unsigned d) { return __shfl_up_sync(lanes(), v, d, N); }
  template <class T> static T shfl_down(T v, unsigned d) { return __shfl_down_sync(lanes(), v, d, N); }
  template <class T> static T shfl_xor(T v, int m) { return __shfl_xor_sync(lanes(), v, m, N); }
  static int any(int p) { return __any_sync(lanes(), p); }
  static int all(int p) { return __all_sync(lanes(), p); }
  static unsigned ballot(int p) { return __ballot_sync(lanes(), p) >> gpuhost_tile::first_lane(N); }
  template <class T> static unsigned match_any(T v) {
    return __match_any_sync(lanes(), v) >> gpuhost_tile::first_lane(N);
  }
  template <class T> static unsigned match_all(T v, int &pred) {
    return __match_all_sync(lanes(), v, &pred) >> gpuhost_tile::first_lane(N);
  }
};

template <unsigned N>
inline thread_block_tile<N, thread_block> tiled_partition(const thread_block &) { return {}; }
template <unsigned N, unsigned M, class P>
inline thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(const thread_block_tile<M, P> &) {
  static_assert(N <= M, "a tile of a tile is no larger than it");
  return {};
}
template <unsigned N, class P>
inline void sync(const thread_block_tile<N, P> &t) { t.sync(); }

// <cooperative_groups/functional.h>
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

// reduce and the scans over a tile, in the order of CUDA's headers (a butterfly; the
// scans by shfl_up), so that floating-point results agree
template <unsigned N, class P, class T, class Op>
inline T reduce(const thread_block_tile<N, P> &g, T v, Op op) {
  for (int m = N >> 1; m > 0; m >>= 1) v = op(v, g.shfl_xor(v, m));
  return v;
}
template <unsigned N, class P, class T, class Op>
inline T inclusive_scan(const thread_block_tile<N, P> &g, T v, Op op) {
  for (unsigned m = 1; m < N; m <<= 1) {
    T t = g.shfl_up(v, m);
    if (m <= g.thread_rank()) v = op(v, t);
  }
  return v;
}
template <unsigned N, class P, class T>
inline T inclusive_scan(const thread_block_tile<N, P> &g, T v) { return inclusive_scan(g, v, plus<T>()); }
template <unsigned N, class P, class T, class Op>
inline T exclusive_scan(const thread_block_tile<N, P> &g, T v, Op op) {
  T r = inclusive_scan(g, v, op);
  if (std::is_same<Op, plus<T>>::value && std::is_integral<T>::value) return r - v;
  r = g.shfl_up(r, 1);
  return g.thread_rank() == 0 ? T{} : r;
}
template <unsigned N, class P, class T>
inline T exclusive_scan(const thread_block_tile<N, P> &g, T v) { return exclusive_scan(g, v, plus<T>()); }

}  // namespace cooperative_groups
