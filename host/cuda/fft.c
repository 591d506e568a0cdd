/* fft.c: the CUDA backend's FFTs (the table's fft) through cuFFT, opened with dlopen at the
 * first transform (libcufft.so.12, which CUDA 13 ships, or .11). Plans are made once per
 * shape, kind and device and kept, 16 at most, the least recently used destroyed first
 * (as CuPy's plan cache); a plan takes its stream at each execution, and its executions
 * share its work area, so one on another stream than the last waits for it.
 *
 * A graph's FFTs have plans of their own: a replay runs on the plan's tables and work area,
 * which nothing else may use meanwhile. A capture takes the cache's plan for a shape (the
 * cache makes another for later calls; the capture's end waits for the plan's last call
 * outside) or makes one (which cuFFT cannot always do while a capture runs), uses it on
 * every stream of the capture in turn, and the graph made holds it; once no graph does,
 * it is destroyed (not while a capture runs: cuFFT's frees cannot be recorded). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cufft.h>
#include "cuda_internal.h"

#define CUFFT_FUNCS(X) X(cufftCreate) X(cufftDestroy) X(cufftSetStream) X(cufftMakePlanMany64) \
  X(cufftExecC2C) X(cufftExecR2C) X(cufftExecC2R) X(cufftExecZ2Z) X(cufftExecD2Z) X(cufftExecZ2D)
#define CUFFT_DECLARE(name) __typeof__(name) *name;
static struct { CUFFT_FUNCS(CUFFT_DECLARE) } cf;
static Library lib;
static void *dl;
static char failure[300];

#define NPLANS 16          /* plans kept for calls outside graphs */
typedef struct Plan {
  int used, device, kind, dbl, rank;
  int64_t n[3], batch;
  unsigned long long last;   /* when it was last used */
  cufftHandle h;
  int graphs;                /* a graph's: the live graphs that hold it */
  int owned;                 /* a graph's (never used outside a capture again) */
  int captured;              /* the capture under way's */
  int adopted;               /* taken from the cache by the capture under way */
  CUstream stream;           /* where its last execution outside graphs was queued */
  CUevent done;              /* recorded after it, or NULL */
  CUstream cap_stream;       /* in the capture under way: the same, recorded */
  CUevent cap_done;
} Plan;
static Plan *plans;          /* nplans of them, some unused */
static int nplans;
typedef struct Hold { CUgraph graph; int plan; } Hold;   /* graph holds plans[plan] */
static Hold *holds;
static int nholds, hold_cap;
static unsigned long long tick;

/* Destroys p on its device (cuFFT frees its work area there) */
static void destroy(Plan *p) {
  int was = current;
  if (p->device != current) cuda_use_device(p->device);
  if (nccl_out) nccl_throttle_quietly(1, "cufftDestroy");   /* freeing its work area synchronizes */
  cf.cufftDestroy(p->h);
  if (p->done) drv.cuEventDestroy(p->done);
  if (p->cap_done) drv.cuEventDestroy(p->cap_done);
  if (was >= 0 && was != current) cuda_use_device(was);
  memset(p, 0, sizeof *p);
}

/* Outside a capture: destroys the plans no graph holds any more, and the least recently
 * used of the others while more than keep are kept */
static void sweep(int keep) {
  if (cuda_implicit) return;
  for (int i = 0; i < nplans; i++)
    if (plans[i].used && plans[i].owned && plans[i].graphs == 0 && !plans[i].captured) destroy(&plans[i]);
  for (;;) {
    Plan *oldest = NULL;
    int kept = 0;
    for (int i = 0; i < nplans; i++) {
      Plan *p = &plans[i];
      if (!p->used || p->owned) continue;
      kept++;
      if (!oldest || p->last < oldest->last) oldest = p;
    }
    if (kept <= keep) return;
    destroy(oldest);
  }
}

/* A slot for a new plan: an unused one, else a new one; NULL when out of memory */
static Plan *slot(void) {
  sweep(NPLANS - 1);
  for (int i = 0; i < nplans; i++)
    if (!plans[i].used) return &plans[i];
  Plan *more = realloc(plans, sizeof *more * (size_t)(nplans + 1));
  if (more == NULL) return NULL;
  plans = more;
  memset(&plans[nplans], 0, sizeof plans[0]);
  return &plans[nplans++];
}

static GpuResult cufft_load(void) {
  static const char *const names[] = {"libcufft.so.12", "libcufft.so.11"};
  if (lib.loaded) return GPU_OK;
  GpuResult r = cuda_toolkit_open(&lib, &dl, names, 2, "cuFFT (libcufft.so.12)", "the libcufft-13-0 package");
  if (r.code) return r;
#define FETCH(name) \
  if ((*(void **)&cf.name = dlsym(dl, #name)) == NULL) \
    return library_fail(&lib, GPU_ERR_NO_LIBRARY, GPU_SRC_HOST, "dlsym(\"" #name "\")", \
                        "cuFFT has no %s: it is too old", #name);
  CUFFT_FUNCS(FETCH)
#undef FETCH
  lib.loaded = 1;
  return GPU_OK;
}

static GpuResult cufft_failed(cufftResult s, const char *call) {
  static const char *const names[] = {"CUFFT_SUCCESS", "CUFFT_INVALID_PLAN", "CUFFT_ALLOC_FAILED",
    "CUFFT_INVALID_TYPE", "CUFFT_INVALID_VALUE", "CUFFT_INTERNAL_ERROR", "CUFFT_EXEC_FAILED",
    "CUFFT_SETUP_FAILED", "CUFFT_INVALID_SIZE", "CUFFT_UNALIGNED_DATA"};
  snprintf(failure, sizeof failure, "%s: %s (%d)", call,
           (int)s >= 0 && (size_t)s < sizeof names / sizeof names[0] ? names[s] : "cuFFT error", (int)s);
  return (GpuResult){GPU_ERR_LIBRARY, GPU_SRC_HOST, call, failure, NULL};
}
#define CF_TRY(call) do { cufftResult s_ = (call); \
    if (s_ != CUFFT_SUCCESS) return cufft_failed(s_, #call); } while (0)

static cufftType type_of(const GpuFft *f) {
  if (f->kind == GPU_FFT_R2C) return f->dbl ? CUFFT_D2Z : CUFFT_R2C;
  if (f->kind == GPU_FFT_C2R) return f->dbl ? CUFFT_Z2D : CUFFT_C2R;
  return f->dbl ? CUFFT_Z2Z : CUFFT_C2C;
}

/* The plan for f on the current device: outside a capture one of the cache's; in a
 * capture this capture's, else one taken from the cache, else a new one */
static GpuResult plan_for(const GpuFft *f, Plan **out) {
  int capturing = cuda_implicit != NULL;
  Plan *cached = NULL;
  for (int i = 0; i < nplans; i++) {
    Plan *p = &plans[i];
    if (!p->used || p->device != current || p->kind != f->kind || p->dbl != f->dbl ||
        p->rank != f->rank || p->batch != f->batch || memcmp(p->n, f->n, sizeof p->n) != 0)
      continue;
    if (capturing ? p->captured : !p->owned) {
      p->last = ++tick;
      *out = p;
      return GPU_OK;
    }
    if (!p->owned) cached = p;
  }
  if (cached) {   /* capturing: the graph's from now on */
    cached->owned = cached->captured = cached->adopted = 1;
    *out = cached;
    return GPU_OK;
  }
  SETTLES("cufftMakePlanMany64");   /* its work area's allocation may wait for the device */
  Plan *p = slot();
  if (p == NULL) return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "realloc(plans)");
  long long n[3] = {f->n[0], f->n[1], f->n[2]};
  size_t work;
  cufftHandle fresh;
  CF_TRY(cf.cufftCreate(&fresh));
  cufftResult e = cf.cufftMakePlanMany64(fresh, f->rank, n, NULL, 1, 0, NULL, 1, 0, type_of(f), f->batch, &work);
  if (e != CUFFT_SUCCESS) {
    cf.cufftDestroy(fresh);
    GpuResult r = cufft_failed(e, "cufftMakePlanMany64");
    if (capturing)
      snprintf(failure + strlen(failure), sizeof failure - strlen(failure), ": cuFFT could not make "
               "the plan while a graph records; transform the shape once before gpu.graph");
    return r;
  }
  *p = (Plan){1, current, f->kind, f->dbl, f->rank, {f->n[0], f->n[1], f->n[2]}, f->batch, ++tick,
              fresh, 0, capturing, capturing, 0, NULL, NULL, NULL, NULL};
  *out = p;
  return GPU_OK;
}

/* A capture ended (graph: what it recorded, NULL when it failed): the plans it made are
 * held by graph until cuda_fft_graph_gone(graph); a failed one's are destroyed */
GpuResult cuda_fft_captured(CUgraph graph) {
  GpuResult r = GPU_OK;
  for (int i = 0; i < nplans; i++) {
    if (!plans[i].captured) continue;
    plans[i].captured = 0;
    plans[i].cap_stream = NULL;
    if (plans[i].adopted && plans[i].done && r.code == 0)   /* its last call outside */
      r = cuda_wait(plans[i].done, NULL, "cuEventSynchronize(done)");
    plans[i].adopted = 0;
    if (graph == NULL || r.code) continue;
    if (nholds == hold_cap) {
      int n = hold_cap ? 2 * hold_cap : 8;
      Hold *more = realloc(holds, sizeof *more * (size_t)n);
      if (more == NULL) { r = GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "realloc(holds)"); continue; }
      holds = more;
      hold_cap = n;
    }
    holds[nholds++] = (Hold){graph, i};
    plans[i].graphs++;
  }
  sweep(NPLANS);
  return r;
}

/* graph is destroyed: the plans no graph holds any more are destroyed (now, or after the
 * capture under way) */
void cuda_fft_graph_gone(CUgraph graph) {
  int any = 0;
  for (int i = 0; i < nholds;) {
    if (holds[i].graph != graph) { i++; continue; }
    plans[holds[i].plan].graphs--;
    holds[i] = holds[--nholds];
    any = 1;
  }
  if (any) sweep(NPLANS);
}

/* Orders an execution of p on s after its last one, when that was on another stream:
 * their work areas are one (in a capture, edges of the graph) */
static GpuResult order(Plan *p, CUstream s) {
  if (cuda_implicit) {   /* cap_stream is NULL until this capture used p */
    if (p->cap_stream && p->cap_stream != s) TRY(drv.cuStreamWaitEvent(s, p->cap_done, 0));
  } else if (p->done && p->stream != s) {
    TRY(drv.cuStreamWaitEvent(s, p->done, 0));
  }
  return GPU_OK;
}

static void executed(Plan *p, CUstream s) {
  CUevent *e = cuda_implicit ? &p->cap_done : &p->done;
  if (!*e && drv.cuEventCreate(e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) *e = NULL;
  if (*e && drv.cuEventRecord(*e, s) != CUDA_SUCCESS) {
    drv.cuEventDestroy(*e);
    *e = NULL;
  }
  if (cuda_implicit) p->cap_stream = *e ? s : NULL;
  else p->stream = s;
}

GpuResult cuda_fft(const GpuFft *f) {
  QUEUES("cufftExec", 4);
  GpuResult r = cufft_load();
  if (r.code) return r;
  CUstream s = cuda_implicit ? cuda_stream_for(f->stream) : f->stream;   /* a capture's, when capturing */
  Plan *p;
  if ((r = plan_for(f, &p)).code) return r;
  cufftHandle h = p->h;
  if ((r = order(p, s)).code) return r;
  CF_TRY(cf.cufftSetStream(h, (cudaStream_t)s));
  void *in = (void *)f->in, *out = (void *)f->out;
  int dir = f->inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  switch (type_of(f)) {
    case CUFFT_C2C: CF_TRY(cf.cufftExecC2C(h, in, out, dir)); break;
    case CUFFT_Z2Z: CF_TRY(cf.cufftExecZ2Z(h, in, out, dir)); break;
    case CUFFT_R2C: CF_TRY(cf.cufftExecR2C(h, in, out)); break;
    case CUFFT_D2Z: CF_TRY(cf.cufftExecD2Z(h, in, out)); break;
    case CUFFT_C2R: CF_TRY(cf.cufftExecC2R(h, in, out)); break;
    default: CF_TRY(cf.cufftExecZ2D(h, in, out)); break;
  }
  executed(p, s);
  cuda_queued(s);   /* freed blocks wait for s's work before they are reused */
  return GPU_OK;
}
