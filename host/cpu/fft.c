/* fft.c: the CPU backend's FFTs (the table's fft) through FFTW, opened with dlopen at the
 * first transform: libfftw3f.so.3 (float32 parts) and libfftw3.so.3 (float64), Debian's
 * libfftw3-single3 and libfftw3-double3; GPUHOST_FFTW names another folder to find them
 * in. Plans are made with FFTW_ESTIMATE (which reads no data) and FFTW_UNALIGNED, so one
 * plan runs on any arrays of its shape (fftw_execute_dft and friends), and kept as cuFFT's
 * are: 16, the least recently used destroyed first. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"

enum { FFTW_FORWARD_ = -1, FFTW_BACKWARD_ = 1 };
#define FFTW_FLAGS ((1U << 6) | (1U << 1))   /* FFTW_ESTIMATE | FFTW_UNALIGNED */

typedef void *(*plan_dft_fn)(int, const int *, int, void *, const int *, int, int, void *, const int *, int, int, int, unsigned);
typedef void *(*plan_real_fn)(int, const int *, int, void *, const int *, int, int, void *, const int *, int, int, unsigned);
typedef void (*exec_fn)(void *, void *, void *);
typedef void (*destroy_fn)(void *);
typedef struct Fftw { plan_dft_fn dft; plan_real_fn r2c, c2r; exec_fn exec_dft, exec_r2c, exec_c2r; destroy_fn destroy; } Fftw;
static Fftw lib[2];               /* [0] float32 (fftwf_), [1] float64 (fftw_) */
static GpuResult failed[2];
static char message[2][1400];

static GpuResult fftw_load(int dbl) {
  Fftw *f = &lib[dbl];
  if (f->dft) return GPU_OK;
  if (failed[dbl].code) return failed[dbl];
  const char *soname = dbl ? "libfftw3.so.3" : "libfftw3f.so.3", *p = dbl ? "fftw_" : "fftwf_";
  const char *dir = getenv("GPUHOST_FFTW");
  char path[600], name[64];
  if (dir && *dir) snprintf(path, sizeof path, "%s/%s", dir, soname);
  else snprintf(path, sizeof path, "%s", soname);
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  const char *why = dl ? NULL : dlerror();
#define SYM(field, fn) \
  if (dl) { snprintf(name, sizeof name, "%s" fn, p); *(void **)&f->field = dlsym(dl, name); if (!f->field) why = "an entry point is missing"; }
  SYM(dft, "plan_many_dft") SYM(r2c, "plan_many_dft_r2c") SYM(c2r, "plan_many_dft_c2r")
  SYM(exec_dft, "execute_dft") SYM(exec_r2c, "execute_dft_r2c") SYM(exec_c2r, "execute_dft_c2r")
  SYM(destroy, "destroy_plan")
#undef SYM
  if (!why) return GPU_OK;
  f->dft = NULL;
  snprintf(message[dbl], sizeof message[dbl], "FFTW (%s) could not be loaded (%s): install it (the %s "
           "package)%s", path, why, dbl ? "libfftw3-double3" : "libfftw3-single3",
           dir && *dir ? ", or unset GPUHOST_FFTW" : "");
  failed[dbl] = (GpuResult){GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlopen(\"libfftw3.so.3\")", message[dbl], NULL};
  return failed[dbl];
}

#define NPLANS 16
typedef struct Plan { int used, kind, dbl, inverse, rank; int64_t n[3], batch; unsigned long long last; void *p; } Plan;
static Plan plans[NPLANS];
static unsigned long long tick;

static void *make_plan(const GpuFft *f, void *in, void *out) {
  const Fftw *w = &lib[f->dbl];
  int n[3] = {(int)f->n[0], (int)f->n[1], (int)f->n[2]}, batch = (int)f->batch;
  int real = 1, half = 1;
  for (int i = 0; i < f->rank; i++) real *= n[i];
  for (int i = 0; i < f->rank - 1; i++) half *= n[i];
  half *= n[f->rank - 1] / 2 + 1;
  if (f->kind == GPU_FFT_R2C) return w->r2c(f->rank, n, batch, in, NULL, 1, real, out, NULL, 1, half, FFTW_FLAGS);
  if (f->kind == GPU_FFT_C2R) return w->c2r(f->rank, n, batch, in, NULL, 1, half, out, NULL, 1, real, FFTW_FLAGS);
  return w->dft(f->rank, n, batch, in, NULL, 1, real, out, NULL, 1, real,
                f->inverse ? FFTW_BACKWARD_ : FFTW_FORWARD_, FFTW_FLAGS);
}

static void *plan_for(const GpuFft *f, void *in, void *out) {
  Plan *free_slot = NULL, *oldest = &plans[0];
  for (int i = 0; i < NPLANS; i++) {
    Plan *p = &plans[i];
    if (p->used && p->kind == f->kind && p->dbl == f->dbl && p->inverse == f->inverse && p->rank == f->rank &&
        p->batch == f->batch && memcmp(p->n, f->n, sizeof p->n) == 0) {
      p->last = ++tick;
      return p->p;
    }
    if (!p->used && !free_slot) free_slot = p;
    if (p->last < oldest->last) oldest = p;
  }
  Plan *p = free_slot ? free_slot : oldest;
  if (p->used) { lib[p->dbl].destroy(p->p); p->used = 0; }
  void *plan = make_plan(f, in, out);
  if (plan) *p = (Plan){1, f->kind, f->dbl, f->inverse, f->rank, {f->n[0], f->n[1], f->n[2]}, f->batch, ++tick, plan};
  return plan;
}

GpuResult cpu_fft(const GpuFft *f) {
  GpuResult r = fftw_load(f->dbl);
  if (r.code) return r;
  int64_t total = f->batch;
  for (int i = 0; i < f->rank; i++) total *= f->n[i];
  if (total > INT_MAX || f->batch > INT_MAX)
    return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "fftw_plan_many_dft", "FFTW takes sizes below 2^31", NULL};
  void *in = (void *)f->in, *out = (void *)f->out;
  void *plan = plan_for(f, in, out);
  if (!plan) return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, "fftw_plan_many_dft", "FFTW made no plan", NULL};
  const Fftw *w = &lib[f->dbl];
  if (f->kind == GPU_FFT_R2C) w->exec_r2c(plan, in, out);
  else if (f->kind == GPU_FFT_C2R) w->exec_c2r(plan, in, out);
  else w->exec_dft(plan, in, out);
  return GPU_OK;
}
