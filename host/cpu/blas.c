/* blas.c: the CPU backend's matrix products (the table's gemm) through a CBLAS opened with
 * dlopen at the first product: OpenBLAS (libopenblas.so.0, Debian's libopenblas0), else
 * whatever BLAS provides Debian's libblas.so.3 (it carries the cblas_* entry points);
 * GPUHOST_BLAS names another library to use instead (MKL's libmkl_rt.so, say).
 * Streams run in order here, so the product is done before this returns. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "cpu_internal.h"

enum { ROW_MAJOR = 101, COL_MAJOR = 102, NO_TRANS = 111, TRANS = 112 };   /* CBLAS's */
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                         float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int,
                         double, double *, int);
typedef void (*cgemm_fn)(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                         const void *, void *, int);
static struct { sgemm_fn s; dgemm_fn d; cgemm_fn c, z; } blas;
static GpuResult failed;   /* the first failure to load, kept */
static char message[600];

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
    *(void **)&blas.s = dlsym(dl, "cblas_sgemm");
    *(void **)&blas.d = dlsym(dl, "cblas_dgemm");
    *(void **)&blas.c = dlsym(dl, "cblas_cgemm");
    *(void **)&blas.z = dlsym(dl, "cblas_zgemm");
    if (blas.s && blas.d && blas.c && blas.z) return GPU_OK;
    blas.s = NULL;
    dlclose(dl);
  }
  snprintf(message, sizeof message, "a BLAS with cblas_sgemm (%s) could not be loaded (%s): install "
           "OpenBLAS (the libopenblas0 package)%s", n == 1 ? names[0] : "libopenblas.so.0, or libblas.so.3",
           first[0] ? first : "no cblas_sgemm, cblas_dgemm, cblas_cgemm and cblas_zgemm in it",
           n == 1 ? ", or unset GPUHOST_BLAS" : "");
  failed = (GpuResult){GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlopen(\"libopenblas.so.0\")", message, NULL};
  return failed;
}

GpuResult cpu_gemm(const GpuGemm *g) {
  GpuResult r = blas_load();
  if (r.code) return r;
  if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX || g->lda > INT_MAX || g->ldb > INT_MAX || g->ldc > INT_MAX)
    return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "cblas_sgemm", "the BLAS takes dimensions below 2^31", NULL};
  int ta = g->transa ? TRANS : NO_TRANS, tb = g->transb ? TRANS : NO_TRANS;
  int m = (int)g->m, n = (int)g->n, k = (int)g->k, lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc;
  static const float c1[2] = {1, 0}, c0[2] = {0, 0};
  static const double z1[2] = {1, 0}, z0[2] = {0, 0};
  for (int64_t i = 0; i < g->batch; i++) {
    char *A = (char *)g->a, *B = (char *)g->b, *C = (char *)g->c;
    switch (g->type) {
      case GPU_NUM_F32:
        blas.s(COL_MAJOR, ta, tb, m, n, k, 1.0f, (float *)(void *)A + i * g->stride_a, lda,
               (float *)(void *)B + i * g->stride_b, ldb, 0.0f, (float *)(void *)C + i * g->stride_c, ldc);
        break;
      case GPU_NUM_F64:
        blas.d(COL_MAJOR, ta, tb, m, n, k, 1.0, (double *)(void *)A + i * g->stride_a, lda,
               (double *)(void *)B + i * g->stride_b, ldb, 0.0, (double *)(void *)C + i * g->stride_c, ldc);
        break;
      case GPU_NUM_C64:
        blas.c(COL_MAJOR, ta, tb, m, n, k, c1, A + 8 * i * g->stride_a, lda, B + 8 * i * g->stride_b, ldb,
               c0, C + 8 * i * g->stride_c, ldc);
        break;
      default:
        blas.z(COL_MAJOR, ta, tb, m, n, k, z1, A + 16 * i * g->stride_a, lda, B + 16 * i * g->stride_b, ldb,
               z0, C + 16 * i * g->stride_c, ldc);
        break;
    }
  }
  return GPU_OK;
}
