// gpuhost.cuh: included before every kernel gpuhost compiles (NVRTC --pre-include).
// gpu::array<T> is a device array (or a view of one) that carries its extents and
// strides: the host passes a gpuhost array as pointer, shape and strides, and an index out
// of range never touches memory (a read gives 0, a write is dropped). Compiled with the `debug` option, the first such access
// is recorded and raised as a Lua error after the launch. gpu::grid(n) is numba's
// cuda.grid(n): the global index of this thread.
#pragma once
#include "gpuhost_portable.h"   // INFINITY, INT_MAX, int64_t, std::min ... on both backends

#ifdef GPUHOST_DEBUG
// [0] what was wrong (its low byte: 1 a flat index, 2 an index of dim [0] >> 8, 3 a count
// of [0] >> 8 indices), [1] the index (or the array's ndim), [2] size or extent,
// [3] block << 32 | thread (linear ids)
extern "C" {
__device__ unsigned long long __gpuhost_oob[4];
}
#endif

namespace gpu {

__device__ inline void out_of_range_record(unsigned long long what, long long i, long long n) {
#ifdef GPUHOST_DEBUG
  if (atomicCAS(&__gpuhost_oob[0], 0ull, what) == 0ull) {
    unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x *
                               (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    unsigned long long thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    __gpuhost_oob[1] = (unsigned long long)i;
    __gpuhost_oob[2] = (unsigned long long)n;
    __gpuhost_oob[3] = (block << 32) | (thread & 0xffffffffull);
  }
#else
  (void)what; (void)i; (void)n;
#endif
}
// flat index i of an array of n elements
__device__ inline void out_of_range(long long i, long long n) { out_of_range_record(1, i, n); }
// index i of dim d (0-based) of extent n
__device__ inline void out_of_range_dim(long long i, long long n, int d) {
  out_of_range_record(2 | (unsigned long long)d << 8, i, n);
}

// Where &a[i] points when i is out of range: somewhere harmless to write (atomics too).
__device__ unsigned long long oob_sink[2];

// What &a[i] gives is global memory (the array's, or oob_sink), and the compiler is told:
// an atomic through it is then the global one (a reduction, RED, where its result is
// unused) and not a generic one that asks first where its address lies (ATOM and a
// fallback; a block-sum kernel's atomicAdd(&out[0], ...) took 13% longer that way, H200)
#if defined(__CUDA_ARCH__)
#define GPUHOST_ASSUME_GLOBAL(q) __builtin_assume(__isGlobal(q))
#else
#define GPUHOST_ASSUME_GLOBAL(q) ((void)0)
#endif

// ---- half: what float16 arrays hold (IEEE binary16), a storage type as CuPy's float16:
// it converts to float for arithmetic (a + b, sqrt(a) ... compute in float, as NumPy's
// float16 loops do) and back, rounding to nearest even once, from float or double alike.
// cuda_fp16.h's __half holds the same bits: a kernel may take a float16 array as either.
struct alignas(2) half {
  unsigned short bits;
  half() = default;
  __host__ __device__ half(float f) : bits(from_float(f)) {}
  __host__ __device__ half(double d) : bits(from_double(d)) {}
#define GPUHOST_HALF_FROM(I) __host__ __device__ half(I i) : bits(from_float((float)i)) {}
  GPUHOST_HALF_FROM(bool) GPUHOST_HALF_FROM(char) GPUHOST_HALF_FROM(signed char)
  GPUHOST_HALF_FROM(unsigned char) GPUHOST_HALF_FROM(short) GPUHOST_HALF_FROM(unsigned short)
  GPUHOST_HALF_FROM(int) GPUHOST_HALF_FROM(unsigned) GPUHOST_HALF_FROM(long)
  GPUHOST_HALF_FROM(unsigned long) GPUHOST_HALF_FROM(long long) GPUHOST_HALF_FROM(unsigned long long)
#undef GPUHOST_HALF_FROM
  __host__ __device__ operator float() const { return to_float(bits); }
  static __host__ __device__ half from_bits(unsigned short b) { half h; h.bits = b; return h; }
  __host__ __device__ half &operator+=(float v) { return *this = half((float)*this + v); }
  __host__ __device__ half &operator-=(float v) { return *this = half((float)*this - v); }
  __host__ __device__ half &operator*=(float v) { return *this = half((float)*this * v); }
  __host__ __device__ half &operator/=(float v) { return *this = half((float)*this / v); }
  __host__ __device__ half &operator++() { return *this += 1.0f; }
  __host__ __device__ half &operator--() { return *this -= 1.0f; }

  static __host__ __device__ unsigned short from_float(float f) {
#if defined(__CUDA_ARCH__)
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    _Float16 x = (_Float16)f;
    return __builtin_bit_cast(unsigned short, x);
#endif
  }
  static __host__ __device__ unsigned short from_double(double d) {
#if defined(__CUDA_ARCH__)
    unsigned short h;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d));
    return h;
#else
    _Float16 x = (_Float16)d;
    return __builtin_bit_cast(unsigned short, x);
#endif
  }
  static __host__ __device__ float to_float(unsigned short h) {
#if defined(__CUDA_ARCH__)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    return (float)__builtin_bit_cast(_Float16, h);
#endif
  }
};

// What an element reads as besides T (gpu::array's ref): a half also as a float, so that
// (float)a[i] and a[i] + 1.0f work (C++ takes one user-defined conversion, not two).
template <class T> struct widened { struct none {}; typedef none type; };
template <> struct widened<half> { typedef float type; };

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
    __device__ operator typename widened<T>::type() const {
      return (typename widened<T>::type)(p ? *p : T());
    }
    __device__ ref &operator=(T v) { if (p) *p = v; return *this; }
    __device__ ref &operator=(const ref &o) { return *this = (T)o; }
    // x op= v is C's x = x op v, computed in the operands' common type: the operand keeps
    // its own type (an int element += 0.5 adds 0.5 and truncates; a uint8 element %= 256
    // is x % 256; %= 2.5 does not compile, as on an int); a braced list ({1.0f, 2.0f}) is
    // a T, as it is to a T element
#define GPUHOST_COMPOUND(op) \
    template <class _Op> __device__ ref &operator op(_Op v) { if (p) *p op v; return *this; } \
    __device__ ref &operator op(T v) { if (p) *p op v; return *this; }
    GPUHOST_COMPOUND(+=) GPUHOST_COMPOUND(-=) GPUHOST_COMPOUND(*=) GPUHOST_COMPOUND(/=)
    GPUHOST_COMPOUND(%=) GPUHOST_COMPOUND(&=) GPUHOST_COMPOUND(|=) GPUHOST_COMPOUND(^=)
    GPUHOST_COMPOUND(<<=) GPUHOST_COMPOUND(>>=)
#undef GPUHOST_COMPOUND
    __device__ ref &operator++() { if (p) ++*p; return *this; }
    __device__ ref &operator--() { if (p) --*p; return *this; }
    // (the names inside are ones NVRTC's own headers or this one's declarations use too:
    // the host's compiler reads a template's bodies at once, so a -D macro of a name only
    // they used, -Dq, broke every kernel there and none under NVRTC)
    __device__ T operator++(int) { T v = *this; if (p) ++*p; return v; }
    __device__ T operator--(int) { T v = *this; if (p) --*p; return v; }
    __device__ T *operator&() const {
      T *r = p ? p : reinterpret_cast<T *>(oob_sink);
      GPUHOST_ASSUME_GLOBAL(r);
      return r;
    }
    __device__ T *address() const {   // nullptr when out of range
      if (p) GPUHOST_ASSUME_GLOBAL(p);
      return p;
    }
  };

  // the address of flat element i (C order over the shape) of a strided view, in range
  __device__ T *strided_at(long long i) const {
    long long offset = 0;
    for (int d = ndim - 1; d > 0; d--) {
      long long r = i / shape[d];
      offset += (i - r * shape[d]) * stride[d];
      i = r;
    }
    return data + offset + (ndim > 0 ? i * stride[0] : 0);
  }
  __device__ ref operator[](long long i) const {
    if (i >= 0 && i < size) return ref{contiguous ? data + i : strided_at(i)};
    out_of_range(i, size);
    return ref{nullptr};
  }
  // a[i] of an array known to be C-contiguous (gpu.jit's launcher checks it): no branch to
  // strided_at, which in a loop costs a third of the time (a grid-stride loop, H200)
  __device__ ref contig(long long i) const {
    if (i >= 0 && i < size) return ref{data + i};
    out_of_range(i, size);
    return ref{nullptr};
  }
  // a(i, j ...): an index of n dims, each checked against its extent
  __device__ bool in_dims(int n, const long long *idx) const {
    if (ndim != n) { out_of_range_record(3 | (unsigned long long)n << 8, ndim, size); return false; }
    for (int d = 0; d < n; d++)
      if (idx[d] < 0 || idx[d] >= shape[d]) { out_of_range_dim(idx[d], shape[d], d); return false; }
    return true;
  }
  __device__ ref operator()(long long i, long long j) const {
    const long long idx[2] = {i, j};
    if (!in_dims(2, idx)) return ref{nullptr};
    return ref{data + i * stride[0] + j * stride[1]};
  }
  __device__ ref operator()(long long i, long long j, long long k) const {
    const long long idx[3] = {i, j, k};
    if (!in_dims(3, idx)) return ref{nullptr};
    return ref{data + i * stride[0] + j * stride[1] + k * stride[2]};
  }
  __device__ ref operator()(long long i, long long j, long long k, long long l) const {
    const long long idx[4] = {i, j, k, l};
    if (!in_dims(4, idx)) return ref{nullptr};
    return ref{data + i * stride[0] + j * stride[1] + k * stride[2] + l * stride[3]};
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

// ---- complex numbers: what complex64 and complex128 arrays hold (real, imaginary; the
// layout of CUDA's float2/double2 and of C's float _Complex), with the arithmetic of
// NumPy (the product (ac - bd) + (ad + bc)i, the quotient by Smith's method) ----
// GPUHOST_UNFUSED(x): the product x is rounded on its own. g++ 12's vectorizer turns the
// two parts of a complex product or quotient into one fmaddsub even under
// -ffp-contract=off ((1 + 2^-30 + i)(1 - 2^-30 + i) had the real part -2^-60, not 0;
// (2 - 3i) / (2 - 3i) was 1 + 2.6e-17i); the barrier keeps the products apart and still
// vectorizes. NVRTC fuses only under --fmad=true, which gpuhost's own kernels turn off.
#if !defined(__CUDA_ARCH__) && defined(__has_builtin)
#if __has_builtin(__builtin_assoc_barrier)
#define GPUHOST_UNFUSED(x) __builtin_assoc_barrier(x)
#endif
#endif
#ifndef GPUHOST_UNFUSED
#define GPUHOST_UNFUSED(x) (x)
#endif
template <class T> struct alignas(2 * sizeof(T)) complex {
  T re, im;
  complex() = default;
  __device__ constexpr complex(T r, T i = T(0)) : re(r), im(i) {}
  template <class U> __device__ explicit constexpr complex(const complex<U> &o) : re((T)o.re), im((T)o.im) {}
  __device__ complex &operator+=(const complex &o) { re += o.re; im += o.im; return *this; }
  __device__ complex &operator-=(const complex &o) { re -= o.re; im -= o.im; return *this; }
  __device__ complex &operator*=(const complex &o) { return *this = *this * o; }
  __device__ complex &operator/=(const complex &o) { return *this = *this / o; }
  __device__ friend complex operator+(complex a, complex b) { return complex(a.re + b.re, a.im + b.im); }
  __device__ friend complex operator-(complex a, complex b) { return complex(a.re - b.re, a.im - b.im); }
  __device__ friend complex operator-(complex a) { return complex(-a.re, -a.im); }
  __device__ friend complex operator*(complex a, complex b) {
    return complex(GPUHOST_UNFUSED(a.re * b.re) - GPUHOST_UNFUSED(a.im * b.im),
                   GPUHOST_UNFUSED(a.re * b.im) + GPUHOST_UNFUSED(a.im * b.re));
  }
  // |b|'s parts as NumPy's fabs: +0 for -0 (1 / -0 is inf + nan i there, not -inf)
  __device__ friend complex operator/(complex a, complex b) {
    T ar = b.re < 0 ? -b.re : b.re + T(0), ai = b.im < 0 ? -b.im : b.im + T(0);
    if (ar >= ai) {
      if (ar == 0 && ai == 0) return complex(a.re / ar, a.im / ar);   // inf or nan, as NumPy
      T r = b.im / b.re, d = b.re + GPUHOST_UNFUSED(b.im * r);
      return complex((a.re + GPUHOST_UNFUSED(a.im * r)) / d, (a.im - GPUHOST_UNFUSED(a.re * r)) / d);
    }
    T r = b.re / b.im, d = GPUHOST_UNFUSED(b.re * r) + b.im;
    return complex((GPUHOST_UNFUSED(a.re * r) + a.im) / d, (GPUHOST_UNFUSED(a.im * r) - a.re) / d);
  }
  __device__ friend bool operator==(complex a, complex b) { return a.re == b.re && a.im == b.im; }
  __device__ friend bool operator!=(complex a, complex b) { return !(a == b); }
};
typedef complex<float> complex64;
typedef complex<double> complex128;
__device__ inline float abs(complex64 z) { return hypotf(z.re, z.im); }
__device__ inline double abs(complex128 z) { return hypot(z.re, z.im); }
template <class T> __device__ inline complex<T> conj(complex<T> z) { return complex<T>(z.re, -z.im); }

// ---- random numbers: Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC 2011), counter-based: block c of key k is a pure function, so every thread
// can have its own stream and a seed gives the same numbers on both backends. gpuhost's
// own generators (gpu.random) use it too (kernels/builtin.cu).
struct philox4 { unsigned v[4]; };

__device__ inline philox4 philox4x32_10(unsigned long long lo, unsigned long long hi, unsigned long long key) {
  unsigned c0 = (unsigned)lo, c1 = (unsigned)(lo >> 32), c2 = (unsigned)hi, c3 = (unsigned)(hi >> 32);
  unsigned k0 = (unsigned)key, k1 = (unsigned)(key >> 32);
  for (int round = 0; round < 10; round++) {
    unsigned hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    unsigned hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  philox4 r = {{c0, c1, c2, c3}};
  return r;
}

// [0, 1) from 24 or 53 random bits
__device__ inline float unit_float(unsigned a) { return (a >> 8) * (1.0f / 16777216.0f); }
__device__ inline double unit_double(unsigned a, unsigned b) {
  return ((unsigned long long)(a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0);
}

// One thread's generator: gpu::philox r(seed, gpu::grid(1)); then r.next(), r.uniform(),
// r.normal(). Stream `id` of `seed` (its blocks are Philox blocks 0, 1, ... with id in
// the counter's high half), from its `offset`-th block on; four 32-bit numbers a block.
struct philox {
  unsigned long long key, id, block;
  unsigned buf[4];
  int left;
  __device__ philox(unsigned long long seed, unsigned long long stream, unsigned long long offset = 0)
      : key(seed), id(stream), block(offset), left(0) {}
  __device__ unsigned next() {
    if (left == 0) {
      philox4 r = philox4x32_10(block++, id, key);
      for (int j = 0; j < 4; j++) buf[j] = r.v[j];
      left = 4;
    }
    return buf[4 - left--];
  }
  __device__ unsigned long long next64() { unsigned a = next(); return (unsigned long long)a << 32 | next(); }
  __device__ float uniform() { return unit_float(next()); }               // [0, 1)
  __device__ double uniform_double() { unsigned a = next(); return unit_double(a, next()); }
  __device__ float normal() {                                            // Box-Muller
    float u1 = 1.0f - uniform(), u2 = uniform(), s, c;
    sincospif(2.0f * u2, &s, &c);
    return sqrtf(-2.0f * logf(u1)) * c;
  }
  __device__ double normal_double() {
    double u1 = 1.0 - uniform_double(), u2 = uniform_double(), s, c;
    sincospi(2.0 * u2, &s, &c);
    return sqrt(-2.0 * log(u1)) * c;
  }
  // an integer in [0, n): the high half of 64 random bits times n (a bias below n / 2^64)
  __device__ unsigned long long below(unsigned long long n) { return __umul64hi(next64(), n); }
};


// ---- numba's xoroshiro128+ (numba.cuda.random, the same numbers): generator i's state is
// row i (s0, s1) of an n x 2 uint64 array whose rows are contiguous (as
// gpu.random.create_xoroshiro128p_states makes it, and a slice of its rows), advanced in
// place by each call. i is 0-based. A row out of range, or an array of another shape or
// layout, is left alone (an out-of-range access under the debug option) and the call gives
// NaN. The state is loaded and stored with no branch, from the row or else from oob_sink: so
// the compiler keeps it in registers through a loop of draws (a branch around the loads and
// stores made it load and store them at every draw, 4x slower than numba on the H200).
__device__ inline bool xoroshiro128p_next(const array<unsigned long long> &states, long long i,
                                          unsigned long long &out) {
  bool ok = states.ndim == 2 && states.shape[1] == 2 && states.stride[1] == 1 && i >= 0 &&
            i < states.shape[0];
  if (!ok) out_of_range(i, states.ndim == 2 ? states.shape[0] : states.size);
  unsigned long long *p = ok ? states.data + i * states.stride[0] : oob_sink;
  GPUHOST_ASSUME_GLOBAL(p);
  unsigned long long s0 = p[0], s1 = p[1];
  out = s0 + s1;
  s1 ^= s0;
  p[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
  p[1] = (s1 << 36) | (s1 >> 28);
  return ok;
}
// [0, 1) as numba's: the top 53 bits as a double, then (float32) rounded to a float, which
// can give 1.0f
__device__ inline double xoroshiro128p_uniform_float64(const array<unsigned long long> &states, long long i) {
  unsigned long long r;
  if (!xoroshiro128p_next(states, i, r)) return NAN;
  return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}
__device__ inline float xoroshiro128p_uniform_float32(const array<unsigned long long> &states, long long i) {
  return (float)xoroshiro128p_uniform_float64(states, i);
}
// Box-Muller's first value from two float32 uniforms (numba's float64 one too: its log is
// the float32 one, as numba's math.log of a float32)
__device__ inline float xoroshiro128p_normal_float32(const array<unsigned long long> &states, long long i) {
  float u1 = xoroshiro128p_uniform_float32(states, i), u2 = xoroshiro128p_uniform_float32(states, i);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318548202514648438f * u2);
}
__device__ inline double xoroshiro128p_normal_float64(const array<unsigned long long> &states, long long i) {
  float u1 = xoroshiro128p_uniform_float32(states, i), u2 = xoroshiro128p_uniform_float32(states, i);
  return sqrt(-2.0 * (double)logf(u1)) * cos(6.283185307179586 * (double)u2);
}

}  // namespace gpu
