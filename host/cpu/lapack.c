/* lapack.c: the CPU backend's dense linear algebra (the table's linalg) through LAPACK,
 * opened with dlopen at the first call: OpenBLAS's (libopenblas.so.0, Debian's
 * libopenblas0, carries LAPACK), else Debian's liblapack.so.3. Its Fortran entry points
 * (dgetrf_ and the like) take every argument by address, 32-bit integers, and the lengths
 * of character arguments after the others. Workspaces are allocated here, as LAPACK's
 * queries size them (the device's is not wanted: linalg_workspace gives 0). Streams run in
 * order here, so the call is done before this returns. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"

typedef void (*getrf_fn)(const int *, const int *, void *, const int *, int *, int *);
typedef void (*getrs_fn)(const char *, const int *, const int *, const void *, const int *, const int *,
                         void *, const int *, int *, size_t);
typedef void (*potrf_fn)(const char *, const int *, void *, const int *, int *, size_t);
typedef void (*geqrf_fn)(const int *, const int *, void *, const int *, void *, void *, const int *, int *);
typedef void (*orgqr_fn)(const int *, const int *, const int *, void *, const int *, const void *, void *,
                         const int *, int *);
typedef void (*syevd_fn)(const char *, const char *, const int *, void *, const int *, void *, void *,
                         const int *, int *, const int *, int *, size_t, size_t);
typedef void (*heevd_fn)(const char *, const char *, const int *, void *, const int *, void *, void *,
                         const int *, void *, const int *, int *, const int *, int *, size_t, size_t);
typedef void (*gesvd_fn)(const char *, const char *, const int *, const int *, void *, const int *, void *,
                         void *, const int *, void *, const int *, void *, const int *, int *, size_t, size_t);
typedef void (*geev_fn)(const char *, const char *, const int *, void *, const int *, void *, void *, void *,
                        const int *, void *, const int *, void *, const int *, int *, size_t, size_t);
typedef void (*cgeev_fn)(const char *, const char *, const int *, void *, const int *, void *, void *,
                         const int *, void *, const int *, void *, const int *, void *, int *, size_t, size_t);
typedef void (*cgesvd_fn)(const char *, const char *, const int *, const int *, void *, const int *, void *,
                          void *, const int *, void *, const int *, void *, const int *, void *, int *,
                          size_t, size_t);

/* each routine's names for float32, float64, complex64, complex128, in GpuLaOp's order */
static const char *const names[][4] = {
  {"sgetrf_", "dgetrf_", "cgetrf_", "zgetrf_"}, {"sgetrs_", "dgetrs_", "cgetrs_", "zgetrs_"},
  {"spotrf_", "dpotrf_", "cpotrf_", "zpotrf_"}, {"sgeqrf_", "dgeqrf_", "cgeqrf_", "zgeqrf_"},
  {"sorgqr_", "dorgqr_", "cungqr_", "zungqr_"}, {"ssyevd_", "dsyevd_", "cheevd_", "zheevd_"},
  {"sgesvd_", "dgesvd_", "cgesvd_", "zgesvd_"}, {"sgeev_", "dgeev_", "cgeev_", "zgeev_"}};
#define NOPS ((int)(sizeof names / sizeof names[0]))
static void *fns[NOPS][4];
static GpuResult failed;   /* the first failure to load, kept */
static char message[400];

static int entry_points(void *dl) {
  for (int op = 0; op < NOPS; op++)
    for (int t = 0; t < 4; t++)
      if ((fns[op][t] = dlsym(dl, names[op][t])) == NULL) return 0;
  return 1;
}

static GpuResult lapack_load(void) {
  static int loaded;
  if (loaded) return GPU_OK;
  if (failed.code) return failed;
  const char *const libs[] = {"libopenblas.so.0", "liblapack.so.3"};
  char first[300] = "";
  for (int i = 0; i < 2; i++) {
    void *dl = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
      if (i == 0) snprintf(first, sizeof first, "%s", dlerror());
      continue;
    }
    if (entry_points(dl)) return loaded = 1, GPU_OK;
    dlclose(dl);
  }
  snprintf(message, sizeof message, "LAPACK (libopenblas.so.0, or liblapack.so.3) could not be loaded "
           "(%s): install OpenBLAS (the libopenblas0 package)", first[0] ? first : "dgetrf_ and the "
           "routines gpu.linalg uses are not all in it");
  failed = (GpuResult){GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlopen(\"libopenblas.so.0\")", message, NULL};
  return failed;
}

GpuResult cpu_linalg_workspace(const GpuLinalg *l, size_t *bytes) {
  (void)l;
  *bytes = 0;
  return GPU_OK;
}

static const size_t elem_size[] = {4, 8, 8, 16};

/* A workspace of the size a query (lwork = -1) left in *w (its real part, a float or a
 * double), at least `least` elements; NULL when out of memory */
static void *sized(const void *w, int type, int *lwork, int least) {
  double want = type == GPU_NUM_F32 || type == GPU_NUM_C64 ? *(const float *)w : *(const double *)w;
  *lwork = want > least ? (int)want : least;
  return malloc((size_t)*lwork * elem_size[type]);
}

static GpuResult getrs(const GpuLinalg *l, int *info) {
  int n = (int)l->n, k = (int)l->k, ld = n > 1 ? n : 1, *piv = (int *)l->ipiv;   /* LAPACK wants ld >= 1 */
  for (int i = 0; i < n; i++)
    if (piv[i] < 1 || piv[i] > n)   /* getrs would swap a row that is not there: not getrf's pivots */
      return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "LAPACK", "getrs: a pivot is not a row of the matrix", NULL};
  ((getrs_fn)fns[GPU_LA_GETRS][l->type])(l->trans ? "T" : "N", &n, &k, (void *)l->a, &ld, piv, (void *)l->b, &ld,
                                         info, 1);
  return GPU_OK;
}

/* INV: GETRF, then GETRS of the identity in b (not where GETRF's status is not 0) */
static GpuResult inv(const GpuLinalg *l, int *info) {
  int n = (int)l->n, lda = n > 1 ? n : 1;
  ((getrf_fn)fns[GPU_LA_GETRF][l->type])(&n, &n, (void *)l->a, &lda, (int *)l->ipiv, info);
  if (*info != 0) return GPU_OK;
  size_t es = elem_size[l->type];
  unsigned char *b = (unsigned char *)l->b;
  const float f1 = 1;
  const double d1 = 1;
  int single = l->type == GPU_NUM_F32 || l->type == GPU_NUM_C64;
  memset(b, 0, (size_t)n * (size_t)n * es);
  for (size_t i = 0; i < (size_t)n; i++)   /* the real part of each diagonal element: 1 */
    memcpy(b + (i * (size_t)n + i) * es, single ? (const void *)&f1 : (const void *)&d1, single ? 4 : 8);
  GpuLinalg s = *l;
  s.op = GPU_LA_GETRS, s.k = n, s.trans = 0;
  return getrs(&s, info);
}

/* GEQRF or ORGQR: a query, then the call */
static GpuResult qr(const GpuLinalg *l, int *info) {
  int m = (int)l->m, n = (int)l->n, k = (int)l->k, query = -1, lwork;
  double q[2] = {0, 0};
  void *a = (void *)l->a, *tau = (void *)l->tau, *work;
  if (l->op == GPU_LA_GEQRF) ((geqrf_fn)fns[l->op][l->type])(&m, &n, a, &m, tau, q, &query, info);
  else ((orgqr_fn)fns[l->op][l->type])(&m, &n, &k, a, &m, tau, q, &query, info);
  if ((work = sized(q, l->type, &lwork, n > 1 ? n : 1)) == NULL)
    return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  if (l->op == GPU_LA_GEQRF) ((geqrf_fn)fns[l->op][l->type])(&m, &n, a, &m, tau, work, &lwork, info);
  else ((orgqr_fn)fns[l->op][l->type])(&m, &n, &k, a, &m, tau, work, &lwork, info);
  free(work);
  return GPU_OK;
}

/* SYEVD (HEEVD for complex, which takes a real workspace besides): a query, then the call */
static GpuResult syevd(const GpuLinalg *l, int *info) {
  int n = (int)l->n, query = -1, lwork, liwork, lrwork = 1, iq = 0, cx = l->type >= GPU_NUM_C64;
  const char *jobz = l->vectors ? "V" : "N";
  double q[2] = {0, 0}, rq[2] = {0, 0};
  void *a = (void *)l->a, *w = (void *)l->w, *work, *rwork = NULL;
  if (cx) ((heevd_fn)fns[l->op][l->type])(jobz, "L", &n, a, &n, w, q, &query, rq, &query, &iq, &query, info, 1, 1);
  else ((syevd_fn)fns[l->op][l->type])(jobz, "L", &n, a, &n, w, q, &query, &iq, &query, info, 1, 1);
  liwork = iq > 1 ? iq : 1;
  int *iwork = malloc((size_t)liwork * sizeof *iwork);
  work = sized(q, l->type, &lwork, 1);
  if (cx) rwork = sized(rq, l->type == GPU_NUM_C64 ? GPU_NUM_F32 : GPU_NUM_F64, &lrwork, 1);
  if (iwork && work && (rwork || !cx)) {
    if (cx) ((heevd_fn)fns[l->op][l->type])(jobz, "L", &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
    else ((syevd_fn)fns[l->op][l->type])(jobz, "L", &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
  }
  int ok = iwork && work && (rwork || !cx);
  free(iwork), free(work), free(rwork);
  return ok ? GPU_OK : GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
}

/* GESVD (complex: with a real workspace of 5 min(m, n)): a query, then the call */
static GpuResult gesvd(const GpuLinalg *l, int *info) {
  int m = (int)l->m, n = (int)l->n, query = -1, lwork, cx = l->type >= GPU_NUM_C64;
  const char *ju = !l->vectors ? "N" : l->full ? "A" : "S", *jv = l->vectors ? "A" : "N";
  int ldu = m > 1 ? m : 1, ldvt = n > 1 ? n : 1;
  double q[2] = {0, 0};
  void *a = (void *)l->a, *s = (void *)l->w, *u = (void *)l->u, *vt = (void *)l->vt, *work;
  void *rwork = cx ? malloc((size_t)(5 * (n > 1 ? n : 1)) * elem_size[l->type]) : NULL;
  if (cx && rwork == NULL) return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  if (cx) ((cgesvd_fn)fns[l->op][l->type])(ju, jv, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, q, &query, rwork, info, 1, 1);
  else ((gesvd_fn)fns[l->op][l->type])(ju, jv, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, q, &query, info, 1, 1);
  if ((work = sized(q, l->type, &lwork, 1)) == NULL) {
    free(rwork);
    return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  }
  if (cx) ((cgesvd_fn)fns[l->op][l->type])(ju, jv, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, info, 1, 1);
  else ((gesvd_fn)fns[l->op][l->type])(ju, jv, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, info, 1, 1);
  free(work), free(rwork);
  return GPU_OK;
}

/* The real parts (wr) and imaginary parts (wi) of n eigenvalues, interleaved into w */
static void interleave(void *w, const void *wr, const void *wi, int n, int type) {
  for (int j = 0; j < n; j++) {
    if (type == GPU_NUM_F32) ((float *)w)[2 * j] = ((const float *)wr)[j], ((float *)w)[2 * j + 1] = ((const float *)wi)[j];
    else ((double *)w)[2 * j] = ((const double *)wr)[j], ((double *)w)[2 * j + 1] = ((const double *)wi)[j];
  }
}

/* GEEV (real: eigenvalues in two arrays, interleaved after; complex: with a real
 * workspace of 2n): a query, then the call. Left eigenvectors are never wanted. */
static GpuResult geev(const GpuLinalg *l, int *info) {
  int n = (int)l->n, lda = n > 1 ? n : 1, one = 1, ldvr = l->vectors ? lda : 1, query = -1, lwork;
  int cx = l->type >= GPU_NUM_C64;
  const char *jv = l->vectors ? "V" : "N";
  size_t real = elem_size[l->type] / (cx ? 2 : 1);
  double q[2] = {0, 0}, dummy[4];
  void *a = (void *)l->a, *vr = l->vectors ? (void *)l->vt : dummy, *work;
  void *side = malloc((size_t)2 * (size_t)lda * real);   /* wr and wi, or rwork */
  if (side == NULL) return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  void *wr = side, *wi = (char *)side + (size_t)lda * real, *w = (void *)l->w;
  if (cx) ((cgeev_fn)fns[l->op][l->type])("N", jv, &n, a, &lda, w, dummy, &one, vr, &ldvr, q, &query, side, info, 1, 1);
  else ((geev_fn)fns[l->op][l->type])("N", jv, &n, a, &lda, wr, wi, dummy, &one, vr, &ldvr, q, &query, info, 1, 1);
  if ((work = sized(q, l->type, &lwork, 4 * lda)) == NULL) {
    free(side);
    return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  }
  if (cx) ((cgeev_fn)fns[l->op][l->type])("N", jv, &n, a, &lda, w, dummy, &one, vr, &ldvr, work, &lwork, side, info, 1, 1);
  else {
    ((geev_fn)fns[l->op][l->type])("N", jv, &n, a, &lda, wr, wi, dummy, &one, vr, &ldvr, work, &lwork, info, 1, 1);
    interleave(w, wr, wi, n, l->type);
  }
  free(work), free(side);
  return GPU_OK;
}

/* OpenBLAS's vector kernels read a few bytes past a matrix's end (cgemv in cgesvd, ssymv in
 * ssyevd), and this backend's arrays end at a guard page (mem.c): LAPACK works on copies of
 * the matrices with room after them, copied back after the call. */
enum { NBOUNCE = 4, SLACK = 256 };
typedef struct Bounce { CUdeviceptr *field, dev; void *copy; size_t bytes; } Bounce;
static int bounce(Bounce *b, int *nb, CUdeviceptr *field, int64_t rows, int64_t cols, size_t es) {
  size_t bytes = (size_t)(rows > 1 ? rows : 1) * (size_t)(cols > 1 ? cols : 1) * es;
  void *c = *field ? malloc(bytes + SLACK) : NULL;
  if (*field && c == NULL) return 0;
  if (c) {
    memcpy(c, (void *)(uintptr_t)*field, bytes);
    b[(*nb)++] = (Bounce){field, *field, c, bytes};
    *field = (CUdeviceptr)(uintptr_t)c;
  }
  return 1;
}
static void unbounce(Bounce *b, int nb) {
  for (int i = 0; i < nb; i++) {
    memcpy((void *)(uintptr_t)b[i].dev, b[i].copy, b[i].bytes);
    free(b[i].copy);
  }
}
static GpuResult run(const GpuLinalg *l);

GpuResult cpu_linalg(const GpuLinalg *l) {
  GpuResult r = lapack_load();
  if (r.code) return r;
  if (l->m > INT_MAX / 2 || l->n > INT_MAX / 2 || l->k > INT_MAX / 2)
    return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "LAPACK", "LAPACK takes dimensions below 2^30", NULL};
  GpuLinalg c = *l;
  Bounce b[NBOUNCE];
  int nb = 0, sq = l->op == GPU_LA_SYEVD || l->op == GPU_LA_GEEV || l->op == GPU_LA_INV || l->op == GPU_LA_GETRS ||
                   l->op == GPU_LA_POTRF;
  int64_t mn = l->m < l->n ? l->m : l->n, uc = l->full ? l->m : mn;
  size_t es = elem_size[l->type];
  int ok = bounce(b, &nb, &c.a, sq ? l->n : l->m, l->n, es);
  if (l->op == GPU_LA_GETRS || l->op == GPU_LA_INV) ok = ok && bounce(b, &nb, &c.b, l->n, l->op == GPU_LA_INV ? l->n : l->k, es);
  if (l->op == GPU_LA_GESVD && l->vectors) ok = ok && bounce(b, &nb, &c.u, l->m, uc, es) && bounce(b, &nb, &c.vt, l->n, l->n, es);
  if (l->op == GPU_LA_GEEV && l->vectors) ok = ok && bounce(b, &nb, &c.vt, l->n, l->n, es);
  r = ok ? run(&c) : GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_HOST, "malloc");
  unbounce(b, nb);
  return r;
}

static GpuResult run(const GpuLinalg *l) {
  GpuResult r = GPU_OK;
  int m = (int)l->m, n = (int)l->n, lda = m > 1 ? m : 1, info = 0;
  switch (l->op) {
    case GPU_LA_GETRF:
      ((getrf_fn)fns[l->op][l->type])(&m, &n, (void *)l->a, &lda, (int *)l->ipiv, &info);
      break;
    case GPU_LA_GETRS: r = getrs(l, &info); break;
    case GPU_LA_INV: r = inv(l, &info); break;
    case GPU_LA_POTRF: ((potrf_fn)fns[l->op][l->type])("L", &n, (void *)l->a, &lda, &info, 1); break;
    case GPU_LA_GEQRF: case GPU_LA_ORGQR: r = qr(l, &info); break;
    case GPU_LA_SYEVD: r = syevd(l, &info); break;
    case GPU_LA_GEEV: r = geev(l, &info); break;
    default: r = gesvd(l, &info); break;
  }
  *(int *)l->info = info;
  return r;
}
