// gpuhost.cuh: included before every kernel gpuhost compiles (NVRTC --pre-include).
// gpu::array<T> is a device array (or a view of one) that carries its extents and
// strides: the host passes a gpuhost array as pointer, shape and strides, and an index out
// of range never touches memory (a read gives 0, a write is dropped). Compiled with the `debug` option, the first such access
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

// Where &a[i] points when i is out of range: somewhere harmless to write (atomics too).
__device__ unsigned long long oob_sink[2];

template <typename T>
struct array {
  T *data;              // element 0 (of a view: its first element)
  long long size;
  long long shape[8];
  long long stride[8];  // in elements; a view's may be 0 (expand) or negative
  int ndim;
  int contiguous;       // C order from data on: a[i] is data[i]

  // What a[i] gives: reads 0 and drops writes when i was out of range. &a[i] is a real
  // pointer (T *): to the element, or to a harmless sink when out of range, so
  // atomicAdd(&a[i], 1) and pointer code work as on T *.
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
    __device__ T *operator&() const { return p ? p : reinterpret_cast<T *>(oob_sink); }
    __device__ T *address() const { return p; }   // nullptr when out of range
  };

  // the address of flat element i (C order over the shape) of a strided view, in range
  __device__ T *strided_at(long long i) const {
    long long off = 0;
    for (int d = ndim - 1; d > 0; d--) {
      long long q = i / shape[d];
      off += (i - q * shape[d]) * stride[d];
      i = q;
    }
    return data + off + (ndim > 0 ? i * stride[0] : 0);
  }
  __device__ ref operator[](long long i) const {
    if (i >= 0 && i < size) return ref{contiguous ? data + i : strided_at(i)};
    out_of_range(i, size);
    return ref{nullptr};
  }
  __device__ ref operator()(long long i, long long j) const {
    if (ndim == 2 && i >= 0 && i < shape[0] && j >= 0 && j < shape[1])
      return ref{data + i * stride[0] + j * stride[1]};
    out_of_range(i * shape[1] + j, size);
    return ref{nullptr};
  }
  __device__ ref operator()(long long i, long long j, long long k) const {
    if (ndim == 3 && i >= 0 && i < shape[0] && j >= 0 && j < shape[1] && k >= 0 && k < shape[2])
      return ref{data + i * stride[0] + j * stride[1] + k * stride[2]};
    out_of_range((i * shape[1] + j) * shape[2] + k, size);
    return ref{nullptr};
  }
  __device__ ref operator()(long long i, long long j, long long k, long long l) const {
    if (ndim == 4 && i >= 0 && i < shape[0] && j >= 0 && j < shape[1] && k >= 0 && k < shape[2] &&
        l >= 0 && l < shape[3])
      return ref{data + i * stride[0] + j * stride[1] + k * stride[2] + l * stride[3]};
    out_of_range(((i * shape[1] + j) * shape[2] + k) * shape[3] + l, size);
    return ref{nullptr};
  }
  __device__ long long len() const { return size; }
  __device__ T *ptr() const { return data; }   // the raw pointer: no checks past here
};

// The host writes an array argument as these 152 bytes (host/kernel.c, ARRAY_ARG_SIZE).
static_assert(sizeof(array<char>) == 152 && sizeof(array<double>) == 152,
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
