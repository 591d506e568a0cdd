// gpuhost.cuh: included before every kernel gpuhost compiles (NVRTC --pre-include).
// gpu::array<T> is a device array that carries its extents: the host passes a gpuhost
// array as pointer and shape, and an index out of range never touches memory (a read
// gives 0, a write is dropped). Compiled with the `debug` option, the first such access
// is recorded and raised as a Lua error after the launch. gpu::grid(n) is numba's
// cuda.grid(n): the global index of this thread.
#pragma once

#ifdef GPUHOST_DEBUG
// [0] set once, [1] index, [2] size, [3] block << 32 | thread (linear ids)
extern "C" {
__device__ unsigned long long __gpuhost_oob[4];
}
#endif

namespace gpu {

__device__ inline void out_of_range(long long i, long long n) {
#ifdef GPUHOST_DEBUG
  if (atomicCAS(&__gpuhost_oob[0], 0ull, 1ull) == 0ull) {
    unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x *
                               (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    unsigned long long thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    __gpuhost_oob[1] = (unsigned long long)i;
    __gpuhost_oob[2] = (unsigned long long)n;
    __gpuhost_oob[3] = (block << 32) | (thread & 0xffffffffull);
  }
#else
  (void)i; (void)n;
#endif
}

template <typename T>
struct array {
  T *data;
  long long size;
  long long shape[4];
  int ndim;
  int reserved_;

  // What a[i] gives: reads 0 and drops writes when i was out of range.
  struct ref {
    T *p;
    __device__ operator T() const { return p ? *p : T(); }
    __device__ ref &operator=(T v) { if (p) *p = v; return *this; }
    __device__ ref &operator=(const ref &o) { return *this = (T)o; }
    __device__ ref &operator+=(T v) { if (p) *p += v; return *this; }
    __device__ ref &operator-=(T v) { if (p) *p -= v; return *this; }
    __device__ ref &operator*=(T v) { if (p) *p *= v; return *this; }
    __device__ ref &operator/=(T v) { if (p) *p /= v; return *this; }
    __device__ ref &operator++() { if (p) ++*p; return *this; }
    __device__ ref &operator--() { if (p) --*p; return *this; }
    __device__ T operator++(int) { T old = *this; if (p) ++*p; return old; }
    __device__ T operator--(int) { T old = *this; if (p) --*p; return old; }
    __device__ T *address() const { return p; }   // nullptr when out of range
  };

  __device__ ref operator[](long long i) const {
    if (i >= 0 && i < size) return ref{data + i};
    out_of_range(i, size);
    return ref{nullptr};
  }
  __device__ ref operator()(long long i, long long j) const {
    if (ndim == 2 && i >= 0 && i < shape[0] && j >= 0 && j < shape[1])
      return ref{data + i * shape[1] + j};
    out_of_range(i * shape[1] + j, size);
    return ref{nullptr};
  }
  __device__ ref operator()(long long i, long long j, long long k) const {
    if (ndim == 3 && i >= 0 && i < shape[0] && j >= 0 && j < shape[1] && k >= 0 && k < shape[2])
      return ref{data + (i * shape[1] + j) * shape[2] + k};
    out_of_range((i * shape[1] + j) * shape[2] + k, size);
    return ref{nullptr};
  }
  __device__ long long len() const { return size; }
  __device__ T *ptr() const { return data; }   // the raw pointer: no checks past here
};

// The host writes an array argument as these 56 bytes (host/kernel.c, ARRAY_ARG_SIZE).
static_assert(sizeof(array<char>) == 56 && sizeof(array<double>) == 56,
              "gpu::array<T> must be laid out as host/kernel.c writes it");

// gpu::grid(n): x, y, z global thread indices; converts to the x index, so
// `long long i = gpu::grid(1);` reads like numba's cuda.grid(1).
struct position {
  long long x, y, z;
  __device__ operator long long() const { return x; }
};

__device__ inline position grid(int ndim = 1) {
  (void)ndim;
  return position{(long long)blockIdx.x * blockDim.x + threadIdx.x,
                  (long long)blockIdx.y * blockDim.y + threadIdx.y,
                  (long long)blockIdx.z * blockDim.z + threadIdx.z};
}

// gpu::gridsize(n): the number of threads along x, y, z (numba's cuda.gridsize)
__device__ inline position gridsize(int ndim = 1) {
  (void)ndim;
  return position{(long long)gridDim.x * blockDim.x, (long long)gridDim.y * blockDim.y,
                  (long long)gridDim.z * blockDim.z};
}

}  // namespace gpu
