/* solver.c: the CUDA backend's dense linear algebra (the table's linalg) through cuSOLVER,
 * opened with dlopen at the first call (libcusolver.so.12, from the CUDA toolkit, found as
 * cuBLAS is), a handle per device made then. The 64-bit API (cusolverDnX*) takes the
 * dtype as a value, so one call serves float32 to complex128; ORGQR has no such form and
 * goes to the four typed ones, as LU does (the typed getrf and getrs take the int32 pivots
 * cuBLAS's batched LU takes too). A batch of small matrices goes to the batched routines in
 * one call (cuda_linalg_batched says which): cuBLAS's getrfBatched, getrsBatched and
 * getriBatched, cuSOLVER's potrfBatched, given arrays of the matrices' addresses in the
 * workspace, and its syevjBatched and gesvdjBatched (Jacobi's method, matrices up to 32 x
 * 32, one after another; gesvdj gives V, whose conjugate transposes a batched product with
 * the identity makes V^H). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cusolverDn.h>
#include "cuda_internal.h"

#define CUSOLVER_FUNCS(X) X(cusolverDnCreate) X(cusolverDnSetStream) X(cusolverDnCreateParams) \
  X(cusolverDnXpotrf_bufferSize) X(cusolverDnXpotrf) X(cusolverDnXgeqrf_bufferSize) \
  X(cusolverDnXgeqrf) X(cusolverDnSorgqr_bufferSize) X(cusolverDnDorgqr_bufferSize) \
  X(cusolverDnCungqr_bufferSize) X(cusolverDnZungqr_bufferSize) X(cusolverDnSorgqr) \
  X(cusolverDnDorgqr) X(cusolverDnCungqr) X(cusolverDnZungqr) X(cusolverDnXsyevd_bufferSize) \
  X(cusolverDnXsyevd) X(cusolverDnXgesvd_bufferSize) X(cusolverDnXgesvd) X(cusolverDnCreateSyevjInfo) \
  X(cusolverDnCreateGesvdjInfo)
#define CUSOLVER_DECLARE(name) __typeof__(name) *name;
static struct { CUSOLVER_FUNCS(CUSOLVER_DECLARE) } cs;
/* GEEV came in cuSOLVER 11.7 (CUDA 12.6): without it, gpu.linalg.eig alone fails */
static struct { __typeof__(cusolverDnXgeev_bufferSize) *size; __typeof__(cusolverDnXgeev) *run; } geev;
/* The typed routines, [routine][type] (S, D, C, Z), called through these types (their
 * pointers as void *) */
typedef cusolverStatus_t (*getrf_size_fn)(cusolverDnHandle_t, int, int, void *, int, int *);
typedef cusolverStatus_t (*getrf_fn)(cusolverDnHandle_t, int, int, void *, int, void *, int *, int *);
typedef cusolverStatus_t (*getrs_fn)(cusolverDnHandle_t, cublasOperation_t, int, int, const void *, int,
                                     const int *, void *, int, int *);
typedef cusolverStatus_t (*potrf_batched_fn)(cusolverDnHandle_t, cublasFillMode_t, int, void **, int, int *, int);
typedef cusolverStatus_t (*syevj_size_fn)(cusolverDnHandle_t, cusolverEigMode_t, cublasFillMode_t, int, const void *,
                                          int, const void *, int *, syevjInfo_t, int);
typedef cusolverStatus_t (*syevj_fn)(cusolverDnHandle_t, cusolverEigMode_t, cublasFillMode_t, int, void *, int, void *,
                                     void *, int, int *, syevjInfo_t, int);
typedef cusolverStatus_t (*gesvdj_size_fn)(cusolverDnHandle_t, cusolverEigMode_t, int, int, const void *, int,
                                           const void *, const void *, int, const void *, int, int *, gesvdjInfo_t, int);
typedef cusolverStatus_t (*gesvdj_fn)(cusolverDnHandle_t, cusolverEigMode_t, int, int, void *, int, void *, void *, int,
                                      void *, int, void *, int, int *, gesvdjInfo_t, int);
enum { T_GETRF_SIZE, T_GETRF, T_GETRS, T_POTRF_BATCHED, T_SYEVJ_SIZE, T_SYEVJ, T_GESVDJ_SIZE, T_GESVDJ, NTYPED };
/* the real types' names (S, D); the complex ones' (C, Z) differ where they have "he" */
static const char *const typed_names[NTYPED][2] = {{"getrf_bufferSize", NULL}, {"getrf", NULL}, {"getrs", NULL},
  {"potrfBatched", NULL}, {"syevjBatched_bufferSize", "heevjBatched_bufferSize"}, {"syevjBatched", "heevjBatched"},
  {"gesvdjBatched_bufferSize", NULL}, {"gesvdjBatched", NULL}};
static void *typed[NTYPED][4];
static syevjInfo_t jacobi;   /* syevjBatched's settings: the defaults (tolerance, sweeps) */
static gesvdjInfo_t svdj;    /* gesvdjBatched's (singular values sorted, descending) */
static Library lib;
static void *dl;
static cusolverDnHandle_t handles[GPU_MAX_DEVICES];
static cusolverDnParams_t params[GPU_MAX_DEVICES];
static char failure[300];

static GpuResult cusolver_load(void) {
  static const char *const names[] = {"libcusolver.so.12", "libcusolver.so.11"};
  if (lib.loaded) return GPU_OK;
  GpuResult r = cuda_toolkit_open(&lib, &dl, names, 2, "cuSOLVER (libcusolver.so.12)",
                                  "the libcusolver-13-0 package");
  if (r.code) return r;
#define FETCH(name) \
  if ((*(void **)&cs.name = dlsym(dl, #name)) == NULL) \
    return library_fail(&lib, GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlsym(\"" #name "\")", \
                        "cuSOLVER has no %s: it is too old", #name);
  CUSOLVER_FUNCS(FETCH)
#undef FETCH
  for (int f = 0; f < NTYPED; f++)
    for (int t = 0; t < 4; t++) {
      char name[64];
      const char *base = typed_names[f][t >= 2 && typed_names[f][1] ? 1 : 0];
      snprintf(name, sizeof name, "cusolverDn%c%s", "SDCZ"[t], base);
      if ((typed[f][t] = dlsym(dl, name)) == NULL)
        return library_fail(&lib, GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlsym", "cuSOLVER has no %s: it is too old", name);
    }
  *(void **)&geev.size = dlsym(dl, "cusolverDnXgeev_bufferSize");
  *(void **)&geev.run = dlsym(dl, "cusolverDnXgeev");
  lib.loaded = 1;
  return GPU_OK;
}

/* cuSOLVER has no string for its statuses: their names, from cusolver_common.h */
static const char *status_name(cusolverStatus_t s) {
  static const char *const names[] = {"SUCCESS", "NOT_INITIALIZED", "ALLOC_FAILED",
    "INVALID_VALUE", "ARCH_MISMATCH", "MAPPING_ERROR", "EXECUTION_FAILED", "INTERNAL_ERROR",
    "MATRIX_TYPE_NOT_SUPPORTED", "NOT_SUPPORTED"};
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "an unknown status";
}

static GpuResult cusolver_failed(cusolverStatus_t s, const char *call) {
  snprintf(failure, sizeof failure, "%s: CUSOLVER_STATUS_%s (%d)", call, status_name(s), (int)s);
  return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, call, failure, NULL};
}
#define CS_TRY(call) do { cusolverStatus_t s_ = (call); \
    if (s_ != CUSOLVER_STATUS_SUCCESS) return cusolver_failed(s_, #call); } while (0)

/* The current device's handle and parameters, on stream s */
static GpuResult handle_for(cusolverDnHandle_t *h, cusolverDnParams_t *p, CUstream s) {
  GpuResult r = cusolver_load();
  if (r.code) return r;
  int dev = current;
  if (dev < 0 || dev >= GPU_MAX_DEVICES) return GPU_FAIL(CUDA_ERROR_INVALID_CONTEXT, GPU_SRC_CUDA, "cusolverDnCreate");
  if (handles[dev] == NULL) {
    SETTLES("cusolverDnCreate");   /* it waits for the device */
    CS_TRY(cs.cusolverDnCreate(&handles[dev]));
    CS_TRY(cs.cusolverDnCreateParams(&params[dev]));
  }
  *h = handles[dev];
  *p = params[dev];
  CS_TRY(cs.cusolverDnSetStream(*h, (cudaStream_t)s));
  return GPU_OK;
}

static const cudaDataType types[] = {CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F};
static const cudaDataType reals[] = {CUDA_R_32F, CUDA_R_64F, CUDA_R_32F, CUDA_R_64F};
static const cudaDataType complexes[] = {CUDA_C_32F, CUDA_C_64F, CUDA_C_32F, CUDA_C_64F};
static const size_t elem_size[] = {4, 8, 8, 16};
#define NOVEC CUSOLVER_EIG_MODE_NOVECTOR
#define LOWER CUBLAS_FILL_MODE_LOWER

static signed char jobu(const GpuLinalg *l) { return !l->vectors ? 'N' : l->full ? 'A' : 'S'; }

/* ORGQR's workspace, in bytes, from the typed call of l's type */
static GpuResult orgqr_size(cusolverDnHandle_t h, const GpuLinalg *l, size_t *dev) {
  int m = (int)l->m, n = (int)l->n, k = (int)l->k, lwork = 0;
  void *a = (void *)l->a, *tau = (void *)l->tau;
  switch (l->type) {
    case GPU_NUM_F32: CS_TRY(cs.cusolverDnSorgqr_bufferSize(h, m, n, k, a, m, tau, &lwork)); break;
    case GPU_NUM_F64: CS_TRY(cs.cusolverDnDorgqr_bufferSize(h, m, n, k, a, m, tau, &lwork)); break;
    case GPU_NUM_C64: CS_TRY(cs.cusolverDnCungqr_bufferSize(h, m, n, k, a, m, tau, &lwork)); break;
    default: CS_TRY(cs.cusolverDnZungqr_bufferSize(h, m, n, k, a, m, tau, &lwork)); break;
  }
  *dev = (size_t)lwork * elem_size[l->type];
  return GPU_OK;
}

/* Batched GESVD's workspace: gesvdj's own, then (each at a 256-byte boundary) V, all of U
 * (gesvdj's is m x m) and the identity V^H is made with */
static size_t aligned(size_t n) { return (n + 255) & ~(size_t)255; }
static GpuResult svdj_size(cusolverDnHandle_t h, const GpuLinalg *l, size_t *dev) {
  int m = (int)l->m, n = (int)l->n, lwork = 0;
  size_t es = elem_size[l->type], nb = (size_t)l->batch;
  if (svdj == NULL) CS_TRY(cs.cusolverDnCreateGesvdjInfo(&svdj));
  CS_TRY(((gesvdj_size_fn)typed[T_GESVDJ_SIZE][l->type])(h, CUSOLVER_EIG_MODE_VECTOR, m, n, (void *)l->a, m,
                                                         (void *)l->w, (void *)l->a, m, (void *)l->a, n, &lwork, svdj, (int)nb));
  *dev = aligned((size_t)lwork * es) + aligned(nb * (size_t)(n * n) * es) + aligned(nb * (size_t)(m * m) * es) +
         (size_t)(n * n) * es;
  return GPU_OK;
}

/* The workspaces l needs: on the device and on the host */
static GpuResult sizes(cusolverDnHandle_t h, cusolverDnParams_t p, const GpuLinalg *l,
                       size_t *dev, size_t *host) {
  cudaDataType t = types[l->type], w = reals[l->type];
  void *a = (void *)l->a;
  int64_t m = l->m, n = l->n;
  *dev = *host = 0;
  int lwork = 0;
  if (l->batch > 1 && l->op == GPU_LA_SYEVD) {
    if (jacobi == NULL) CS_TRY(cs.cusolverDnCreateSyevjInfo(&jacobi));
    CS_TRY(((syevj_size_fn)typed[T_SYEVJ_SIZE][l->type])(h, l->vectors ? CUSOLVER_EIG_MODE_VECTOR : NOVEC, LOWER,
                                                         (int)n, a, (int)n, (void *)l->w, &lwork, jacobi, (int)l->batch));
    *dev = (size_t)lwork * elem_size[l->type];
    return GPU_OK;
  }
  if (l->batch > 1 && l->op == GPU_LA_GESVD) return svdj_size(h, l, dev);
  if (l->batch > 1) {   /* the addresses of the matrices (and of getrs's right-hand sides, of
                           getri's inverses and its statuses) */
    int two = l->op == GPU_LA_GETRS || l->op == GPU_LA_INV;
    *dev = (size_t)l->batch * (sizeof(CUdeviceptr) * (size_t)(two + 1) + (l->op == GPU_LA_INV ? 4 : 0));
    return GPU_OK;
  }
  switch (l->op) {
    case GPU_LA_GETRF: case GPU_LA_INV:   /* INV: GETRS's status first, getrf's workspace 256 bytes on */
      CS_TRY(((getrf_size_fn)typed[T_GETRF_SIZE][l->type])(h, (int)m, (int)n, a, (int)m, &lwork));
      *dev = (size_t)lwork * elem_size[l->type] + (l->op == GPU_LA_INV ? 256 : 0);
      break;
    case GPU_LA_GETRS: break;
    case GPU_LA_POTRF: CS_TRY(cs.cusolverDnXpotrf_bufferSize(h, p, LOWER, n, t, a, n, t, dev, host)); break;
    case GPU_LA_GEQRF:
      CS_TRY(cs.cusolverDnXgeqrf_bufferSize(h, p, m, n, t, a, m, t, (void *)l->tau, t, dev, host));
      break;
    case GPU_LA_ORGQR: return orgqr_size(h, l, dev);
    case GPU_LA_GEEV:
      if (geev.size == NULL || geev.run == NULL)
        return (GpuResult){GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlsym(\"cusolverDnXgeev\")",
                           "cuSOLVER has no cusolverDnXgeev: eig needs CUDA 12.6 or later", NULL};
      CS_TRY(geev.size(h, p, NOVEC, l->vectors ? CUSOLVER_EIG_MODE_VECTOR : NOVEC, n, t, a, n, complexes[l->type],
                       (void *)l->w, t, NULL, 1, t, (void *)l->vt, n, t, dev, host));
      break;
    case GPU_LA_SYEVD:
      CS_TRY(cs.cusolverDnXsyevd_bufferSize(h, p, l->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR,
                                            LOWER, n, t, a, n, w, (void *)l->w, t, dev, host));
      break;
    default:
      CS_TRY(cs.cusolverDnXgesvd_bufferSize(h, p, jobu(l), l->vectors ? 'A' : 'N', m, n, t, a, m, w,
                                            (void *)l->w, t, (void *)l->u, m, t, (void *)l->vt, n, t,
                                            dev, host));
      break;
  }
  return GPU_OK;
}

static GpuResult too_large(const GpuLinalg *l) {
  if (l->m > 0x7fffffff || l->n > 0x7fffffff || l->k > 0x7fffffff)
    return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "cusolverDn", "cuSOLVER takes dimensions below 2^31", NULL};
  return GPU_OK;
}

GpuResult cuda_linalg_workspace(const GpuLinalg *l, size_t *bytes) {
  cusolverDnHandle_t h;
  cusolverDnParams_t p;
  size_t host;
  GpuResult r = too_large(l);
  if (r.code == 0) r = handle_for(&h, &p, cuda_implicit ? cuda_stream_for(l->stream) : l->stream);
  return r.code ? r : sizes(h, p, l, bytes, &host);
}

static GpuResult orgqr(cusolverDnHandle_t h, const GpuLinalg *l) {
  int m = (int)l->m, n = (int)l->n, k = (int)l->k, lwork = (int)(l->work_bytes / elem_size[l->type]);
  void *a = (void *)l->a, *tau = (void *)l->tau, *work = (void *)l->work;
  int *info = (int *)l->info;
  switch (l->type) {
    case GPU_NUM_F32: CS_TRY(cs.cusolverDnSorgqr(h, m, n, k, a, m, tau, work, lwork, info)); break;
    case GPU_NUM_F64: CS_TRY(cs.cusolverDnDorgqr(h, m, n, k, a, m, tau, work, lwork, info)); break;
    case GPU_NUM_C64: CS_TRY(cs.cusolverDnCungqr(h, m, n, k, a, m, tau, work, lwork, info)); break;
    default: CS_TRY(cs.cusolverDnZungqr(h, m, n, k, a, m, tau, work, lwork, info)); break;
  }
  return GPU_OK;
}

/* l, its host workspace (hw, hbytes) given */
static GpuResult run(cusolverDnHandle_t h, cusolverDnParams_t p, const GpuLinalg *l, void *hw, size_t hbytes) {
  cudaDataType t = types[l->type], w = reals[l->type];
  void *a = (void *)l->a, *work = (void *)l->work;
  int64_t m = l->m, n = l->n;
  int *info = (int *)l->info, *ipiv = (int *)l->ipiv;
  size_t wb = l->work_bytes;
  switch (l->op) {
    case GPU_LA_GETRF: CS_TRY(((getrf_fn)typed[T_GETRF][l->type])(h, (int)m, (int)n, a, (int)m, work, ipiv, info)); break;
    case GPU_LA_INV:   /* b holds the identity (cuda_linalg): GETRS of it, its status apart */
      CS_TRY(((getrf_fn)typed[T_GETRF][l->type])(h, (int)n, (int)n, a, (int)n, (void *)(l->work + 256), ipiv, info));
      CS_TRY(((getrs_fn)typed[T_GETRS][l->type])(h, CUBLAS_OP_N, (int)n, (int)n, a, (int)n, ipiv, (void *)l->b,
                                                 (int)n, (int *)l->work));
      break;
    case GPU_LA_GETRS:
      CS_TRY(((getrs_fn)typed[T_GETRS][l->type])(h, l->trans ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)l->k, a, (int)n,
                                                 ipiv, (void *)l->b, (int)n, info));
      break;
    case GPU_LA_POTRF: CS_TRY(cs.cusolverDnXpotrf(h, p, LOWER, n, t, a, n, t, work, wb, hw, hbytes, info)); break;
    case GPU_LA_GEQRF:
      CS_TRY(cs.cusolverDnXgeqrf(h, p, m, n, t, a, m, t, (void *)l->tau, t, work, wb, hw, hbytes, info));
      break;
    case GPU_LA_ORGQR: return orgqr(h, l);
    case GPU_LA_GEEV:
      CS_TRY(geev.run(h, p, NOVEC, l->vectors ? CUSOLVER_EIG_MODE_VECTOR : NOVEC, n, t, a, n, complexes[l->type],
                      (void *)l->w, t, NULL, 1, t, (void *)l->vt, n, t, work, wb, hw, hbytes, info));
      break;
    case GPU_LA_SYEVD:
      CS_TRY(cs.cusolverDnXsyevd(h, p, l->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR, LOWER,
                                 n, t, a, n, w, (void *)l->w, t, work, wb, hw, hbytes, info));
      break;
    default:
      CS_TRY(cs.cusolverDnXgesvd(h, p, jobu(l), l->vectors ? 'A' : 'N', m, n, t, a, m, w, (void *)l->w, t,
                                 (void *)l->u, m, t, (void *)l->vt, n, t, work, wb, hw, hbytes, info));
      break;
  }
  return GPU_OK;
}

int cuda_linalg_batched(const GpuLinalg *l, int64_t batch) {
  int op = l->op, small = l->n >= 1 && l->n <= 128 && batch <= 0x7fffffff;
  if (op == GPU_LA_SYEVD) return small && l->n <= 32;
  if (op == GPU_LA_GESVD) return small && l->m <= 32;
  return small && ((op == GPU_LA_GETRF && l->m == l->n) || op == GPU_LA_GETRS || op == GPU_LA_INV ||
                   op == GPU_LA_POTRF);
}

/* The n x n identity at `at` (leading dimension n), INV's b for GETRS and batched GESVD's
 * right-hand factor: zeros, then the real part of each diagonal element 1 (a float32's
 * bits, or a float64's upper 32: its lower ones are 0) */
static GpuResult identity(CUdeviceptr at, size_t n, int type, CUstream s) {
  size_t es = elem_size[type];
  int single = type == GPU_NUM_F32 || type == GPU_NUM_C64;
  QUEUES("cuMemsetD2D32Async(identity, ...)", 2);
  CUresult e = drv.cuMemsetD8Async(at, 0, n * n * es, s);
  if (e == CUDA_SUCCESS)
    e = drv.cuMemsetD2D32Async(at + (single ? 0 : 4), (n + 1) * es, single ? 0x3f800000u : 0x3ff00000u, 1, n, s);
  return e == CUDA_SUCCESS ? GPU_OK : cuda_failed(e, "cuMemsetD2D32Async(identity, ...)");
}

/* GESVD for l's batch by gesvdjBatched (always with vectors: V is made V^H, U's first n
 * columns kept where the call wants m x n) */
static GpuResult svd_batched(cusolverDnHandle_t h, const GpuLinalg *l, CUstream s) {
  int m = (int)l->m, n = (int)l->n, nb = (int)l->batch, lwork;
  size_t es = elem_size[l->type], wb = (size_t)0, vb = (size_t)nb * (size_t)(n * n) * es;
  CS_TRY(((gesvdj_size_fn)typed[T_GESVDJ_SIZE][l->type])(h, CUSOLVER_EIG_MODE_VECTOR, m, n, (void *)l->a, m,
                                                         (void *)l->w, (void *)l->a, m, (void *)l->a, n, &lwork, svdj, nb));
  wb = aligned((size_t)lwork * es);
  CUdeviceptr v = l->work + wb, u = v + aligned(vb), eye = u + aligned((size_t)nb * (size_t)(m * m) * es);
  int whole_u = l->vectors && (l->full || m == n);
  CS_TRY(((gesvdj_fn)typed[T_GESVDJ][l->type])(h, CUSOLVER_EIG_MODE_VECTOR, m, n, (void *)l->a, m, (void *)l->w,
                                               (void *)(whole_u ? l->u : u), m, (void *)v, n, (void *)l->work, lwork,
                                               (int *)l->info, svdj, nb));
  if (!l->vectors) return GPU_OK;
  GpuResult r = identity(eye, (size_t)n, l->type, s);
  if (r.code) return r;
  GpuGemm g = {.type = l->type, .transa = 2, .m = n, .n = n, .k = n, .batch = nb, .a = v, .b = eye, .c = l->vt,
               .lda = n, .ldb = n, .ldc = n, .stride_a = n * n, .stride_b = 0, .stride_c = n * n, .stream = s};
  r = cuda_gemm(&g);   /* V^H = V^H I */
  if (r.code || whole_u) return r;
  GpuGemm c = {.type = l->type, .m = m, .n = n, .k = n, .batch = nb, .a = u, .b = eye, .c = l->u, .lda = m,
               .ldb = n, .ldc = m, .stride_a = m * m, .stride_b = 0, .stride_c = m * n, .stream = s};
  return cuda_gemm(&c);   /* U's first n columns: U[:, :n] I */
}

/* l for its batch of matrices: their addresses (and getrs's right-hand sides', getri's
 * inverses') written to the workspace, then one batched call (two for INV) */
static GpuResult batched(cusolverDnHandle_t h, const GpuLinalg *l, CUstream s) {
  if (l->op == GPU_LA_GESVD) return svd_batched(h, l, s);
  if (l->op == GPU_LA_SYEVD) {
    CS_TRY(((syevj_fn)typed[T_SYEVJ][l->type])(h, l->vectors ? CUSOLVER_EIG_MODE_VECTOR : NOVEC, LOWER, (int)l->n,
                                               (void *)l->a, (int)l->n, (void *)l->w, (void *)l->work,
                                               (int)(l->work_bytes / elem_size[l->type]), (int *)l->info, jacobi,
                                               (int)l->batch));
    return GPU_OK;
  }
  int64_t nb = l->batch, es = (int64_t)elem_size[l->type], two = l->op == GPU_LA_GETRS || l->op == GPU_LA_INV;
  int64_t k = l->op == GPU_LA_INV ? l->n : l->k;   /* the columns of b */
  CUdeviceptr *at = malloc((size_t)nb * sizeof *at * (size_t)(two + 1));
  if (at == NULL) return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  for (int64_t i = 0; i < nb; i++) {
    at[i] = l->a + (CUdeviceptr)(i * l->n * l->n * es);
    if (two) at[nb + i] = l->b + (CUdeviceptr)(i * l->n * k * es);
  }
  GpuResult r = cuda_htod_async(l->work, at, (size_t)nb * sizeof *at * (size_t)(two + 1), s);   /* staged: at may go */
  free(at);
  if (r.code) return r;
  if (l->op != GPU_LA_POTRF) return cuda_lu_batched(l, l->work, two ? l->work + (CUdeviceptr)(nb * 8) : 0, s);
  CS_TRY(((potrf_batched_fn)typed[T_POTRF_BATCHED][l->type])(h, LOWER, (int)l->n, (void **)l->work, (int)l->n,
                                                             (int *)l->info, (int)nb));
  return GPU_OK;
}

GpuResult cuda_linalg(const GpuLinalg *l) {
  QUEUES("cusolverDn", 8);
  cusolverDnHandle_t h;
  cusolverDnParams_t p;
  CUstream s = cuda_implicit ? cuda_stream_for(l->stream) : l->stream;
  size_t dev, host;
  GpuResult r = too_large(l);
  if (r.code == 0) r = handle_for(&h, &p, s);
  if (r.code == 0) r = sizes(h, p, l, &dev, &host);
  if (r.code) return r;
  if (dev > l->work_bytes)
    return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "cusolverDn", "the workspace given is too small", NULL};
  if (l->op == GPU_LA_INV && l->batch == 1 && (r = identity(l->b, (size_t)l->n, l->type, s)).code) return r;
  if (l->batch > 1) {
    r = batched(h, l, s);
    cuda_queued(s);
    return r;
  }
  void *hw = host ? malloc(host) : NULL;
  if (host && hw == NULL) return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  r = run(h, p, l, hw, host);
  cuda_queued(s);   /* freed blocks wait for s's work before they are reused */
  if (hw) {         /* the host workspace is freed once the call is done with it */
    SETTLES("cuStreamSynchronize (cuSOLVER's host workspace)");
    CUresult e = drv.cuStreamSynchronize(s);
    free(hw);
    if (r.code == 0 && e != CUDA_SUCCESS) r = GPU_FAIL(e, GPU_SRC_CUDA, "cuStreamSynchronize");
  }
  return r;
}
