/* blas.c: the CPU backend's matrix products (the table's gemm) through a CBLAS opened with
 * dlopen at the first product: OpenBLAS (libopenblas.so.0, Debian's libopenblas0), else
 * whatever BLAS provides Debian's libblas.so.3 (it carries the cblas_* entry points);
 * GPUHOST_BLAS names another library to use instead (MKL's libmkl_rt.so, say, or the
 * OpenBLAS a pip numpy ships, numpy.libs/libscipy_openblas64_*.so). A library's entry
 * points are looked for as cblas_sgemm, cblas_sgemm64_ and scipy_cblas_sgemm64_ (numpy's
 * and scipy's); the last two take 64-bit integers, and so does the first where OpenBLAS
 * says it was built so (Debian's libopenblas64-0).
 * Streams run in order here, so the product is done before this returns. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "util.h"

enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112, CONJ_TRANS = 113 };   /* CBLAS's */
/* the four products with the BLAS's integer type I (int, or int64_t for an ILP64 one) */
#define GEMM_TYPES(I, tag)                                                                        \
  typedef void (*sgemm_##tag)(int, int, int, I, I, I, float, const float *, I, const float *, I,  \
                              float, float *, I);                                                 \
  typedef void (*dgemm_##tag)(int, int, int, I, I, I, double, const double *, I, const double *,  \
                              I, double, double *, I);                                            \
  typedef void (*cgemm_##tag)(int, int, int, I, I, I, const void *, const void *, I, const void *, \
                              I, const void *, void *, I);
GEMM_TYPES(int, lp64)
GEMM_TYPES(int64_t, ilp64)
static struct {
  void *s, *d, *c, *z;   /* cblas_[sdcz]gemm, of the integer type below */
  int ilp64;
} blas;
static GpuResult failed;   /* the first failure to load, kept */
static char message[600];

/* Whether an OpenBLAS says it was built with 64-bit integers (Debian's libopenblas64-0
 * keeps the plain cblas_sgemm names for them) */
static int says_ilp64(void *dl, const char *config) {
  const char *(*get)(void);
  *(void **)&get = dlsym(dl, config);
  return get && strstr(get(), "USE64BITINT") != NULL;
}

/* The four entry points of dl under one of the names BLASes give them; 0 when none */
static int entry_points(void *dl) {
  static const struct { const char *prefix, *suffix; int ilp64; } names[] = {
    {"cblas_", "", 0}, {"cblas_", "64_", 1}, {"scipy_cblas_", "64_", 1}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void **slot[4] = {&blas.s, &blas.d, &blas.c, &blas.z};
    const char *which = "sdcz";
    int all = 1;
    for (int j = 0; j < 4; j++) {
      char sym[64];
      snprintf(sym, sizeof sym, "%s%cgemm%s", names[i].prefix, which[j], names[i].suffix);
      *slot[j] = dlsym(dl, sym);
      all &= *slot[j] != NULL;
    }
    if (all) {
      blas.ilp64 = names[i].ilp64 || says_ilp64(dl, "openblas_get_config");
      return 1;
    }
  }
  blas.s = NULL;
  return 0;
}

static GpuResult blas_load(void) {
  if (blas.s) return GPU_OK;
  if (failed.code) return failed;
  const char *mine = getenv("GPUHOST_BLAS");   /* a BLAS of the user's choosing, alone */
  const char *const names[] = {mine && *mine ? mine : "libopenblas.so.0", "libblas.so.3"};
  size_t n = mine && *mine ? 1 : 2;
  char first[300] = "";
  for (size_t i = 0; i < n; i++) {
    void *dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
      if (i == 0) snprintf(first, sizeof first, "%s", dlerror());
      continue;
    }
    if (entry_points(dl)) return GPU_OK;
    dlclose(dl);
  }
  snprintf(message, sizeof message, "a BLAS with cblas_sgemm (%s) could not be loaded (%s): install "
           "OpenBLAS (the libopenblas0 package)%s", n == 1 ? names[0] : "libopenblas.so.0, or libblas.so.3",
           first[0] ? first : "no cblas_sgemm, cblas_dgemm, cblas_cgemm and cblas_zgemm in it, "
           "nor their 64-bit integer forms (cblas_sgemm64_, scipy_cblas_sgemm64_)",
           n == 1 ? ", or unset GPUHOST_BLAS" : "");
  failed = (GpuResult){GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlopen(\"libopenblas.so.0\")", message, NULL};
  return failed;
}

/* One product of the batch with the BLAS's integer type I (tag: its function types) */
#define GEMM_CALL(I, tag)                                                                          \
  switch (g->type) {                                                                               \
    case GPU_NUM_F32:                                                                              \
      ((sgemm_##tag)blas.s)(COL_MAJOR, ta, tb, (I)g->m, (I)g->n, (I)g->k, 1.0f,                    \
                            (float *)(void *)A + i * g->stride_a, (I)g->lda,                       \
                            (float *)(void *)B + i * g->stride_b, (I)g->ldb, 0.0f,                 \
                            (float *)(void *)C + i * g->stride_c, (I)g->ldc);                      \
      break;                                                                                       \
    case GPU_NUM_F64:                                                                              \
      ((dgemm_##tag)blas.d)(COL_MAJOR, ta, tb, (I)g->m, (I)g->n, (I)g->k, 1.0,                     \
                            (double *)(void *)A + i * g->stride_a, (I)g->lda,                      \
                            (double *)(void *)B + i * g->stride_b, (I)g->ldb, 0.0,                 \
                            (double *)(void *)C + i * g->stride_c, (I)g->ldc);                     \
      break;                                                                                       \
    case GPU_NUM_C64:                                                                              \
      ((cgemm_##tag)blas.c)(COL_MAJOR, ta, tb, (I)g->m, (I)g->n, (I)g->k, c1,                      \
                            A + 8 * i * g->stride_a, (I)g->lda, B + 8 * i * g->stride_b,           \
                            (I)g->ldb, c0, C + 8 * i * g->stride_c, (I)g->ldc);                    \
      break;                                                                                       \
    default:                                                                                       \
      ((cgemm_##tag)blas.z)(COL_MAJOR, ta, tb, (I)g->m, (I)g->n, (I)g->k, z1,                      \
                            A + 16 * i * g->stride_a, (I)g->lda, B + 16 * i * g->stride_b,         \
                            (I)g->ldb, z0, C + 16 * i * g->stride_c, (I)g->ldc);                   \
      break;                                                                                       \
  }

/* The elements the matrices of the batch span (column-major rows x cols, leading dim ld),
 * from *lo on (below 0 for a negative batch stride: a reversed batch dimension) */
static int64_t span(int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch, int64_t *lo) {
  int64_t last = (batch - 1) * stride;
  *lo = last < 0 ? last : 0;
  return (last > 0 ? last : 0) - *lo + ld * (cols - 1) + rows;
}

static float *widen(const void *p, int64_t lo, int64_t n) {
  float *f = malloc((size_t)n * sizeof *f);
  const uint16_t *h = (const uint16_t *)p + lo;
  for (int64_t i = 0; f && i < n; i++) f[i] = (float)half_to_double(h[i]);
  return f;
}

/* float16: the operands widened to float32, sgemm, the result rounded once (cuBLAS's
 * GemmEx with float32 sums gives the same but for the order of the sums) */
static GpuResult gemm_half(const GpuGemm *g) {
  int64_t la, lb, lc;
  int64_t na = g->transa ? span(g->k, g->m, g->lda, g->stride_a, g->batch, &la)
                         : span(g->m, g->k, g->lda, g->stride_a, g->batch, &la);
  int64_t nb = g->transb ? span(g->n, g->k, g->ldb, g->stride_b, g->batch, &lb)
                         : span(g->k, g->n, g->ldb, g->stride_b, g->batch, &lb);
  int64_t nc = span(g->m, g->n, g->ldc, g->stride_c, g->batch, &lc);
  float *a = widen((const void *)g->a, la, na), *b = widen((const void *)g->b, lb, nb);
  float *c = malloc((size_t)nc * sizeof *c);
  GpuResult r = GPU_OK;
  if (!a || !b || !c) {
    r = GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "malloc (CPU backend, float16 products)");
  } else {
    GpuGemm w = *g;
    w.type = GPU_NUM_F32;
    w.tf32 = 0;
    w.a = (CUdeviceptr)(a - la);   /* element 0 of each where the batch's first matrix is */
    w.b = (CUdeviceptr)(b - lb);
    w.c = (CUdeviceptr)(c - lc);
    r = cpu_gemm(&w);
    uint16_t *out = (uint16_t *)g->c;
    for (int64_t i = 0; !r.code && i < g->batch; i++)   /* only C's elements: ld may skip some */
      for (int64_t j = 0; j < g->n; j++)
        for (int64_t k = 0; k < g->m; k++) {
          int64_t at = i * g->stride_c + j * g->ldc + k;
          out[at] = half_from_double(c[at - lc]);
        }
  }
  free(a);
  free(b);
  free(c);
  return r;
}

GpuResult cpu_gemm(const GpuGemm *g) {
  if (g->type == GPU_NUM_F16) return gemm_half(g);
  GpuResult r = blas_load();
  if (r.code) return r;
  if (!blas.ilp64 && (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX || g->lda > INT_MAX ||
                      g->ldb > INT_MAX || g->ldc > INT_MAX))
    return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "cblas_sgemm", "the BLAS takes dimensions below 2^31", NULL};
  static const int op[3] = {NO_TRANS, TRANS, CONJ_TRANS};
  int ta = op[g->transa], tb = op[g->transb];
  static const float c1[2] = {1, 0}, c0[2] = {0, 0};
  static const double z1[2] = {1, 0}, z0[2] = {0, 0};
  char *A = (char *)g->a, *B = (char *)g->b, *C = (char *)g->c;
  for (int64_t i = 0; i < g->batch; i++) {
    if (blas.ilp64) GEMM_CALL(int64_t, ilp64)
    else GEMM_CALL(int, lp64)
  }
  return GPU_OK;
}
