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
  void sync() const { __syncwarp(); }
  unsigned thread_rank() const { return this_thread_block().thread_rank() % N; }
  unsigned size() const { return N; }
  unsigned num_threads() const { return N; }
  unsigned meta_group_rank() const { return this_thread_block().thread_rank() / N; }
  template <class T> T shfl(T v, int src) const { return __shfl_sync(0xffffffffu, v, src, N); }
  template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(0xffffffffu, v, d, N); }
  template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(0xffffffffu, v, d, N); }
  template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(0xffffffffu, v, m, N); }
  int any(int p) const { return __any_sync(0xffffffffu, p); }
  int all(int p) const { return __all_sync(0xffffffffu, p); }
  unsigned ballot(int p) const { return __ballot_sync(0xffffffffu, p); }
};

template <unsigned N>
inline thread_block_tile<N> tiled_partition(const thread_block &) { return thread_block_tile<N>(); }
template <unsigned N>
inline void sync(const thread_block_tile<N> &t) { t.sync(); }

}  // namespace cooperative_groups
