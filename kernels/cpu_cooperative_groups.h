// cooperative_groups.h for the CPU backend (kernels/cpu.h): the thread block and
// tiles of it, over the same barriers and warp functions.
#pragma once

namespace cooperative_groups {

struct thread_block {
  void sync() const { __syncthreads(); }
  unsigned thread_rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  unsigned num_threads() const { return size(); }
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
};

inline thread_block this_thread_block() { return thread_block(); }
inline void sync(const thread_block &b) { b.sync(); }

template <unsigned N>
struct thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile sizes are powers of two up to 32");
  // the tile's lanes in its warp: votes are over them, a ballot's bits count from the tile's
  // first (a tile under 32 threads is not its whole warp)
  unsigned first_lane() const { return this_thread_block().thread_rank() % 32 / N * N; }
  unsigned lanes() const { return (unsigned)((1ull << N) - 1) << first_lane(); }
  void sync() const { __syncwarp(lanes()); }
  unsigned thread_rank() const { return this_thread_block().thread_rank() % N; }
  unsigned size() const { return N; }
  unsigned num_threads() const { return N; }
  unsigned meta_group_rank() const { return this_thread_block().thread_rank() / N; }
  unsigned meta_group_size() const { return (this_thread_block().size() + N - 1) / N; }
  template <class T> T shfl(T v, int src) const { return __shfl_sync(lanes(), v, src, N); }
  template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(lanes(), v, d, N); }
  template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(lanes(), v, d, N); }
  template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(lanes(), v, m, N); }
  int any(int p) const { return __any_sync(lanes(), p); }
  int all(int p) const { return __all_sync(lanes(), p); }
  unsigned ballot(int p) const { return __ballot_sync(lanes(), p) >> first_lane(); }
};

template <unsigned N>
inline thread_block_tile<N> tiled_partition(const thread_block &) { return thread_block_tile<N>(); }
template <unsigned N>
inline void sync(const thread_block_tile<N> &t) { t.sync(); }

}  // namespace cooperative_groups
