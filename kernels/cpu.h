// cpu.h: what the CPU backend includes before a kernel source so that the host's C++
// compiler reads CUDA C: the qualifiers, the thread indices, barriers and warp functions
// (which call the runtime in host/cpu/sched.c), atomics, intrinsics and vector types. Each thread
// of a block runs the kernel function on a fiber of the worker that runs the block, so
// `__shared__` (a `static thread_local`) is one copy per block, and the indices live in a
// thread-local struct the runtime writes before each thread runs.
#pragma once
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <type_traits>
#include <utility>
#include "gpuhost_cpu_abi.h"

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __cluster_dims__(...)
#define __align__(n) alignas(n)
#define __grid_constant__
#define __CUDA_ARCH__ 900
#define GPUHOST_CPU 1

// ---- indices ----
typedef gpuhost_uint3 uint3;
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// The indices of the running thread (gpuhost_cpu_abi.h): host/cpu/pool.c defines them in
// the static TLS of the process, so reading one is one %fs-relative load, not a call.
extern "C" {
extern __thread gpuhost_thread_state gpuhost_tls __attribute__((tls_model("initial-exec")));
}
#define threadIdx (gpuhost_tls.thread)
#define blockIdx (gpuhost_tls.block)
#define blockDim (gpuhost_tls.block_dim)
#define gridDim (gpuhost_tls.grid_dim)
#define warpSize 32

// ---- the runtime (gpuhost_cpu_abi.h's gpuhost_runtime, given at load) ----
extern "C" const gpuhost_runtime *gpuhost_rt;

inline void __syncthreads() { gpuhost_rt->barrier(GPUHOST_SYNC, 0); }
inline int __syncthreads_count(int p) { return gpuhost_rt->barrier(GPUHOST_SYNC_COUNT, p); }
inline int __syncthreads_and(int p) { return gpuhost_rt->barrier(GPUHOST_SYNC_AND, p); }
inline int __syncthreads_or(int p) { return gpuhost_rt->barrier(GPUHOST_SYNC_OR, p); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { gpuhost_rt->warp(GPUHOST_SYNCWARP, mask, 0, 0, 32); }
inline void *gpuhost_dynamic_shared() { return gpuhost_rt->dynamic_shared(); }

template <class T>
inline T gpuhost_shuffle(int op, unsigned mask, T v, int arg, int width) {
  static_assert(sizeof(T) <= 8, "the CPU backend shuffles values of up to 8 bytes");
  unsigned long long raw = 0;
  std::memcpy(&raw, &v, sizeof(T));
  raw = gpuhost_rt->warp(op, mask, raw, arg, width);
  T r;
  std::memcpy(&r, &raw, sizeof(T));
  return r;
}
template <class T> inline T __shfl_sync(unsigned m, T v, int src, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_IDX, m, v, src, w); }
template <class T> inline T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_UP, m, v, (int)d, w); }
template <class T> inline T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_DOWN, m, v, (int)d, w); }
template <class T> inline T __shfl_xor_sync(unsigned m, T v, int l, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_XOR, m, v, l, w); }
inline unsigned __ballot_sync(unsigned m, int p) { return (unsigned)gpuhost_rt->warp(GPUHOST_BALLOT, m, p != 0, 0, 32); }
inline int __any_sync(unsigned m, int p) { return (int)gpuhost_rt->warp(GPUHOST_ANY, m, p != 0, 0, 32); }
inline int __all_sync(unsigned m, int p) { return (int)gpuhost_rt->warp(GPUHOST_ALL, m, p != 0, 0, 32); }
inline unsigned __activemask() { return (unsigned)gpuhost_rt->warp(GPUHOST_ACTIVEMASK, 0, 0, 0, 32); }
// what this backend lacks: an error naming it when the kernel runs
template <class T> inline unsigned __match_any_sync(unsigned, T) { gpuhost_rt->unsupported("__match_any_sync"); return 0; }
template <class T> inline unsigned __match_all_sync(unsigned, T, int *) { gpuhost_rt->unsupported("__match_all_sync"); return 0; }
inline unsigned __reduce_add_sync(unsigned, unsigned) { gpuhost_rt->unsupported("__reduce_add_sync"); return 0; }

// ---- fences and clocks ----
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline long long clock64() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
inline void __nanosleep(unsigned) {}

// ---- atomics: blocks run on several cores at once, so these are real atomics ----
#define GPUHOST_ATOMIC_INT(T) \
  inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
  inline T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); } \
  inline T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
  inline T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); } \
  inline T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); } \
  inline T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); } \
  inline T atomicCAS(T *p, T cmp, T v) { \
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return cmp; } \
  inline T atomicMin(T *p, T v) { T old = __atomic_load_n(p, __ATOMIC_RELAXED); \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} \
    return old; } \
  inline T atomicMax(T *p, T v) { T old = __atomic_load_n(p, __ATOMIC_RELAXED); \
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} \
    return old; }
GPUHOST_ATOMIC_INT(int)
GPUHOST_ATOMIC_INT(unsigned int)
GPUHOST_ATOMIC_INT(long long)
GPUHOST_ATOMIC_INT(unsigned long long)
inline unsigned short atomicCAS(unsigned short *p, unsigned short cmp, unsigned short v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return cmp;
}

// floating point: a compare-and-swap loop on the bits
template <class F, class U>
inline F gpuhost_atomic_float(F *p, F v, int op) {
  U *u = reinterpret_cast<U *>(p);
  U old = __atomic_load_n(u, __ATOMIC_RELAXED), next;
  F f, r;
  do {
    std::memcpy(&f, &old, sizeof f);
    r = op == 0 ? f + v : op == 1 ? v : op == 2 ? (v < f ? v : f) : (v > f ? v : f);
    std::memcpy(&next, &r, sizeof next);
  } while (!__atomic_compare_exchange_n(u, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return f;
}
inline float atomicAdd(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 0); }
inline double atomicAdd(double *p, double v) { return gpuhost_atomic_float<double, unsigned long long>(p, v, 0); }
inline float atomicExch(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 1); }
inline float atomicMin(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 2); }
inline float atomicMax(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 3); }
inline unsigned atomicInc(unsigned *p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
inline unsigned atomicDec(unsigned *p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, (old == 0 || old > limit) ? limit : old - 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicExch_block atomicExch
#define atomicMin_block atomicMin
#define atomicMax_block atomicMax

// ---- math and intrinsics ----
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float exp10f(float x) { return powf(10.0f, x); }
inline void sincospif(float x, float *s, float *c) { *s = sinf((float)M_PI * x); *c = cosf((float)M_PI * x); }
inline void sincospi(double x, double *s, double *c) { *s = sin(M_PI * x); *c = cos(M_PI * x); }
inline float sinpif(float x) { return sinf((float)M_PI * x); }
inline float cospif(float x) { return cosf((float)M_PI * x); }
inline double sinpi(double x) { return sin(M_PI * x); }
inline double cospi(double x) { return cos(M_PI * x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
inline double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, 8); return x; }
template <class T> inline T __ldg(const T *p) { return *p; }

// min and max for the mixes CUDA C allows
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned min(int a, unsigned b) { return min((unsigned)a, b); }
inline unsigned min(unsigned a, int b) { return min(a, (unsigned)b); }
inline unsigned max(int a, unsigned b) { return max((unsigned)a, b); }
inline unsigned max(unsigned a, int b) { return max(a, (unsigned)b); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double max(double a, float b) { return fmax(a, b); }

// ---- vector types ----
#define GPUHOST_VEC2(T, N, A) struct alignas(A) N##2 { T x, y; }; \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define GPUHOST_VEC3(T, N) struct N##3 { T x, y, z; }; \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define GPUHOST_VEC4(T, N, A) struct alignas(A) N##4 { T x, y, z, w; }; \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
GPUHOST_VEC2(float, float, 8) GPUHOST_VEC3(float, float) GPUHOST_VEC4(float, float, 16)
GPUHOST_VEC2(double, double, 16) GPUHOST_VEC3(double, double) GPUHOST_VEC4(double, double, 16)
GPUHOST_VEC2(int, int, 8) GPUHOST_VEC3(int, int) GPUHOST_VEC4(int, int, 16)
GPUHOST_VEC2(unsigned int, uint, 8) GPUHOST_VEC4(unsigned int, uint, 16)
GPUHOST_VEC2(long long, longlong, 16) GPUHOST_VEC2(unsigned long long, ulonglong, 16)
GPUHOST_VEC2(short, short, 4) GPUHOST_VEC4(short, short, 8)
GPUHOST_VEC2(char, char, 2) GPUHOST_VEC4(char, char, 4)
GPUHOST_VEC2(unsigned char, uchar, 2) GPUHOST_VEC4(unsigned char, uchar, 4)
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

// ---- what the runtime finds in every kernel library ----
extern "C" const gpuhost_runtime *gpuhost_rt = nullptr;
extern "C" void gpuhost_cpu_bind(const gpuhost_runtime *rt) { gpuhost_rt = rt; }

namespace gpuhost_cpu {
template <class F> struct signature;
template <class... A> struct signature<void (*)(A...)> {
  static constexpr int count = sizeof...(A);
  static constexpr long sizes[sizeof...(A) + 1] = {(long)sizeof(A)..., 0};
};
template <class... A, std::size_t... I>
inline void invoke_with(void (*f)(A...), void **a, std::index_sequence<I...>) {
  f(*static_cast<std::remove_reference_t<A> *>(a[I])...);
}
// Runs the block's threads not yet started, one after another, in the calling fiber: a
// thread that reaches a barrier parks this fiber, and the runtime starts another on the
// rest. The kernel is inlined here, so a kernel with no barrier is a plain loop.
template <class... A>
inline void run_threads(void (*f)(A...), gpuhost_block *b, void **a) {
  gpuhost_thread_state &s = gpuhost_tls;
  while (b->next_unstarted < b->nthreads) {
    int t = b->next_unstarted++;
    b->current = t;
    if (b->by == 1 && t < (int)b->bx) {
      s.thread.x = (unsigned)t;
    } else {
      s.thread.x = (unsigned)t % b->bx;
      s.thread.y = ((unsigned)t / b->bx) % b->by;
      s.thread.z = (unsigned)t / (b->bx * b->by);
    }
    invoke_with(f, a, std::index_sequence_for<A...>{});
    b->done[t] = 1;
    b->finished++;
  }
}
template <class F> inline gpuhost_entry make_entry(void (*run)(gpuhost_block *, void **)) {
  return gpuhost_entry{run, signature<F>::count, signature<F>::sizes};
}
}  // namespace gpuhost_cpu
