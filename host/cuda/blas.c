/* blas.c: the CUDA backend's matrix products (the table's gemm) through cuBLAS, opened
 * with dlopen at the first product (libcublas.so.13, from the CUDA toolkit, which brings
 * libcublasLt), a handle per device made then. The toolkit's libraries are found as the
 * dynamic loader finds them, then in $CUDA_HOME/lib64 (cuda_toolkit_open, which fft.c
 * uses too). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cublas_v2.h>
#include "cuda_internal.h"

GpuResult cuda_toolkit_open(Library *lib, void **dl, const char *const *sonames, int n,
                            const char *what, const char *package) {
  if (lib->loaded) return GPU_OK;
  if (lib->result.code) return lib->result;
  const char *home = getenv("CUDA_HOME");
  char path[600], first[400] = "";
  for (int i = 0; i < n && *dl == NULL; i++) {
    *dl = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (*dl == NULL && i == 0) snprintf(first, sizeof first, "%s", dlerror());
  }
  for (int i = 0; i < n && *dl == NULL; i++) {
    snprintf(path, sizeof path, "%s/lib64/%s", home && *home ? home : GPUHOST_CUDA_HOME, sonames[i]);
    *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  }
  if (*dl == NULL)
    return library_fail(lib, GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlopen", "%s could not be loaded "
                        "(%s): install it (%s, from the CUDA toolkit) or set CUDA_HOME",
                        what, first, package);
  return GPU_OK;
}

#define CUBLAS_FUNCS(X) X(cublasCreate_v2) X(cublasSetStream_v2) X(cublasSetMathMode) \
  X(cublasSgemm_v2) X(cublasDgemm_v2) X(cublasCgemm_v2) X(cublasZgemm_v2) \
  X(cublasSgemmStridedBatched) X(cublasDgemmStridedBatched) X(cublasCgemmStridedBatched) \
  X(cublasZgemmStridedBatched) X(cublasGetStatusString) X(cublasSgetrfBatched) X(cublasDgetrfBatched) \
  X(cublasCgetrfBatched) X(cublasZgetrfBatched) X(cublasSgetrsBatched) X(cublasDgetrsBatched) \
  X(cublasCgetrsBatched) X(cublasZgetrsBatched) X(cublasSgetriBatched) X(cublasDgetriBatched) \
  X(cublasCgetriBatched) X(cublasZgetriBatched) X(cublasGemmEx) X(cublasGemmStridedBatchedEx)
#define CUBLAS_DECLARE(name) __typeof__(name) *name;
static struct { CUBLAS_FUNCS(CUBLAS_DECLARE) } cb;
static Library lib;
static void *dl;
static cublasHandle_t handles[GPU_MAX_DEVICES];
static int math_mode[GPU_MAX_DEVICES];   /* 1 + the mode last set */
static char failure[300];

static GpuResult cublas_load(void) {
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12"};
  if (lib.loaded) return GPU_OK;
  GpuResult r = cuda_toolkit_open(&lib, &dl, names, 2, "cuBLAS (libcublas.so.13)", "the libcublas-13-0 package");
  if (r.code) return r;
#define FETCH(name) \
  if ((*(void **)&cb.name = dlsym(dl, #name)) == NULL) \
    return library_fail(&lib, GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlsym(\"" #name "\")", \
                        "cuBLAS has no %s: it is too old", #name);
  CUBLAS_FUNCS(FETCH)
#undef FETCH
  lib.loaded = 1;
  return GPU_OK;
}

static GpuResult cublas_failed(cublasStatus_t s, const char *call) {
  snprintf(failure, sizeof failure, "%s: %s", call, cb.cublasGetStatusString ? cb.cublasGetStatusString(s) : "failed");
  return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, call, failure, NULL};
}
#define CB_TRY(call) do { cublasStatus_t s_ = (call); \
    if (s_ != CUBLAS_STATUS_SUCCESS) return cublas_failed(s_, #call); } while (0)

/* The current device's handle, on stream s, in the math mode asked for. */
static GpuResult handle_for(cublasHandle_t *h, CUstream s, int tf32) {
  QUEUES("cublasGemm", 4);
  GpuResult r = cublas_load();
  if (r.code) return r;
  int dev = current;
  if (dev < 0 || dev >= GPU_MAX_DEVICES) return GPU_FAIL(CUDA_ERROR_INVALID_CONTEXT, GPU_SRC_CUDA, "cublasCreate");
  if (handles[dev] == NULL) {
    SETTLES("cublasCreate");   /* it waits for the device */
    CB_TRY(cb.cublasCreate_v2(&handles[dev]));
  }
  *h = handles[dev];
  CB_TRY(cb.cublasSetStream_v2(*h, (cudaStream_t)s));
  int mode = tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH;
  if (math_mode[dev] != mode + 1) {
    CB_TRY(cb.cublasSetMathMode(*h, (cublasMath_t)mode));
    math_mode[dev] = mode + 1;
  }
  return GPU_OK;
}

/* cuBLAS picks a kernel for each kind of product, and CUDA loads it at its first launch
 * (lazy loading, CUDA's default), which waits for the device's work: behind a collective
 * that never ends, for ever, inside cuBLAS where the watch cannot see (2048 x 2048 after
 * 8 x 8 float32 on an H200 waited out 2 s of spinning). So a product of a kind not seen
 * before settles first. The kind: what cuBLAS chooses its kernel by (sizes, strides,
 * transposes, type, math mode, batched, the operands' alignment). Seen kinds are kept in
 * an open hash set, emptied when half full (new kinds then settle once more). */
#define KINDS 1024
static uint64_t kinds[KINDS];

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdu;
}

/* g's kind, a hash of it (never 0, which marks an empty slot) */
static uint64_t kind_of(const GpuGemm *g) {
  const int64_t fields[] = {current, g->type, g->transa, g->transb, g->tf32, g->m, g->n, g->k,
                            g->batch, g->lda, g->ldb, g->ldc, g->stride_a, g->stride_b,
                            g->stride_c, (int64_t)((g->a | g->b | g->c) & 255)};
  uint64_t h = 0;
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) h = mix(h, (uint64_t)fields[f]);
  return h ? h : 1;
}

/* Whether kind h was seen; if not and `add`, it is now */
static int seen(uint64_t h, int add) {
  static int used;
  size_t i = (size_t)(h % KINDS);
  for (; kinds[i]; i = (i + 1) % KINDS)
    if (kinds[i] == h) return 1;
  if (!add) return 0;
  if (++used > KINDS / 2) {
    memset(kinds, 0, sizeof kinds);
    used = 1;
    i = (size_t)(h % KINDS);
  }
  kinds[i] = h;
  return 0;
}

GpuResult cuda_gemm(const GpuGemm *g) {
  cublasHandle_t h;
  CUstream s = cuda_implicit ? cuda_stream_for(g->stream) : g->stream;   /* a capture's, when capturing */
  GpuResult r = handle_for(&h, s, g->tf32);
  if (r.code) return r;
  if (g->m > 0x7fffffff || g->n > 0x7fffffff || g->k > 0x7fffffff || g->batch > 0x7fffffff ||
      g->lda > 0x7fffffff || g->ldb > 0x7fffffff || g->ldc > 0x7fffffff)
    return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "cublasGemm", "cuBLAS takes dimensions below 2^31", NULL};
  uint64_t kind = kind_of(g);
  if (!seen(kind, 0)) {
    SETTLES("cublasGemm (a new kind of product)");
    seen(kind, 1);
  }
  static const cublasOperation_t op[3] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};
  cublasOperation_t ta = op[g->transa], tb = op[g->transb];
  int m = (int)g->m, n = (int)g->n, k = (int)g->k, lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc;
  int batch = (int)g->batch;
  long long sa = g->stride_a, sb = g->stride_b, sc = g->stride_c;
  void *A = (void *)g->a, *B = (void *)g->b, *C = (void *)g->c;
  const float f1 = 1, f0 = 0;
  const double d1 = 1, d0 = 0;
  const cuComplex c1 = {1, 0}, c0 = {0, 0};
  const cuDoubleComplex z1 = {1, 0}, z0 = {0, 0};
  switch (g->type) {
    case GPU_NUM_F32:
      if (batch == 1) CB_TRY(cb.cublasSgemm_v2(h, ta, tb, m, n, k, &f1, A, lda, B, ldb, &f0, C, ldc));
      else CB_TRY(cb.cublasSgemmStridedBatched(h, ta, tb, m, n, k, &f1, A, lda, sa, B, ldb, sb, &f0, C, ldc, sc, batch));
      break;
    case GPU_NUM_F64:
      if (batch == 1) CB_TRY(cb.cublasDgemm_v2(h, ta, tb, m, n, k, &d1, A, lda, B, ldb, &d0, C, ldc));
      else CB_TRY(cb.cublasDgemmStridedBatched(h, ta, tb, m, n, k, &d1, A, lda, sa, B, ldb, sb, &d0, C, ldc, sc, batch));
      break;
    case GPU_NUM_C64:
      if (batch == 1) CB_TRY(cb.cublasCgemm_v2(h, ta, tb, m, n, k, &c1, A, lda, B, ldb, &c0, C, ldc));
      else CB_TRY(cb.cublasCgemmStridedBatched(h, ta, tb, m, n, k, &c1, A, lda, sa, B, ldb, sb, &c0, C, ldc, sc, batch));
      break;
    case GPU_NUM_F16:   /* float16 in and out, float32 sums (CuPy's default too) */
      if (batch == 1)
        CB_TRY(cb.cublasGemmEx(h, ta, tb, m, n, k, &f1, A, CUDA_R_16F, lda, B, CUDA_R_16F, ldb, &f0, C,
                               CUDA_R_16F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      else
        CB_TRY(cb.cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, &f1, A, CUDA_R_16F, lda, sa, B, CUDA_R_16F,
                                             ldb, sb, &f0, C, CUDA_R_16F, ldc, sc, batch,
                                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      break;
    default:
      if (batch == 1) CB_TRY(cb.cublasZgemm_v2(h, ta, tb, m, n, k, &z1, A, lda, B, ldb, &z0, C, ldc));
      else CB_TRY(cb.cublasZgemmStridedBatched(h, ta, tb, m, n, k, &z1, A, lda, sa, B, ldb, sb, &z0, C, ldc, sc, batch));
      break;
  }
  cuda_queued(s);   /* freed blocks wait for s's work before they are reused */
  return GPU_OK;
}

GpuResult cuda_lu_batched(const GpuLinalg *l, CUdeviceptr aptrs, CUdeviceptr bptrs, CUstream s) {
  cublasHandle_t h;
  GpuResult r = handle_for(&h, s, 0);
  if (r.code) return r;
  SETTLES("cublasGetrfBatched");   /* its kernels may load lazily (see kind_of) */
  int n = (int)l->n, k = (int)l->k, nb = (int)l->batch, *piv = (int *)l->ipiv, *info = (int *)l->info, bad = 0;
  void *A = (void *)aptrs, *B = (void *)bptrs;
  cublasOperation_t t = l->trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (!bptrs || l->op == GPU_LA_INV) {
    switch (l->type) {
      case GPU_NUM_F32: CB_TRY(cb.cublasSgetrfBatched(h, n, A, n, piv, info, nb)); break;
      case GPU_NUM_F64: CB_TRY(cb.cublasDgetrfBatched(h, n, A, n, piv, info, nb)); break;
      case GPU_NUM_C64: CB_TRY(cb.cublasCgetrfBatched(h, n, A, n, piv, info, nb)); break;
      default: CB_TRY(cb.cublasZgetrfBatched(h, n, A, n, piv, info, nb)); break;
    }
  }
  if (l->op == GPU_LA_INV) {   /* getri's statuses (getrf's again) go after the inverses' addresses */
    int *again = (int *)(bptrs + (CUdeviceptr)nb * sizeof(CUdeviceptr));
    switch (l->type) {
      case GPU_NUM_F32: CB_TRY(cb.cublasSgetriBatched(h, n, A, n, piv, B, n, again, nb)); break;
      case GPU_NUM_F64: CB_TRY(cb.cublasDgetriBatched(h, n, A, n, piv, B, n, again, nb)); break;
      case GPU_NUM_C64: CB_TRY(cb.cublasCgetriBatched(h, n, A, n, piv, B, n, again, nb)); break;
      default: CB_TRY(cb.cublasZgetriBatched(h, n, A, n, piv, B, n, again, nb)); break;
    }
  } else if (bptrs) {
    switch (l->type) {   /* bad: a parameter's number when cuBLAS refuses one (the host's int) */
      case GPU_NUM_F32: CB_TRY(cb.cublasSgetrsBatched(h, t, n, k, A, n, piv, B, n, &bad, nb)); break;
      case GPU_NUM_F64: CB_TRY(cb.cublasDgetrsBatched(h, t, n, k, A, n, piv, B, n, &bad, nb)); break;
      case GPU_NUM_C64: CB_TRY(cb.cublasCgetrsBatched(h, t, n, k, A, n, piv, B, n, &bad, nb)); break;
      default: CB_TRY(cb.cublasZgetrsBatched(h, t, n, k, A, n, piv, B, n, &bad, nb)); break;
    }
    if (bad) return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "cublasGetrsBatched", "cuBLAS refused a parameter", NULL};
    CUresult e = drv.cuMemsetD8Async(l->info, 0, (size_t)nb * 4, s);   /* getrs has no status a matrix: all solved */
    if (e != CUDA_SUCCESS) r = cuda_failed(e, "cuMemsetD8Async");
  }
  return r;
}
