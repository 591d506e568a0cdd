/* graph.c: gpu.graph on the CPU backend. While a capture runs, launches, device copies
 * and fills are recorded (the launch's arguments copied by the sizes of the kernel's
 * parameters), not run; a graph replays them in order. Allocations, frees and copies to
 * the device happen at once; synchronizations, event records and copies to the host fail
 * with GPUHOST_NOT_CAPTURABLE, as on CUDA. No speed-up is expected here: the same results
 * are. The table's members for these go through the functions below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"

enum { STEP_LAUNCH, STEP_COPY, STEP_FILL };
typedef struct Step {
  int kind;
  CUfunction f;               /* a launch: f, its configuration, its arguments */
  unsigned grid[3], block[3], shared;
  void **args;                /* args[i] points into the same allocation */
  int nargs;
  CUdeviceptr dst, src;       /* a copy (src) or a fill of n bytes */
  size_t n;
} Step;
typedef struct CpuGraph { Step *steps; int n, cap; } CpuGraph;

static CpuGraph *rec;         /* the capture under way, or NULL */
static int rec_device;        /* the device current when it began, which replays it */
static _Thread_local char detail[320];

static GpuResult not_capturable(const char *what, const char *call) {
  snprintf(detail, sizeof detail, "%s cannot be captured: a graph records work for the "
           "device to run later, and this needs the device now", what);
  return (GpuResult){GPU_ERR_NOT_CAPTURABLE, GPU_SRC_HOST, call, detail, NULL};
}

/* Work queued while another device is current (a device scope inside the capture) was
 * recorded and replayed on the capture's device: refused, as CUDA cannot record it */
static GpuResult elsewhere(const char *call) {
  if (cpu_current_device() == rec_device) return GPU_OK;
  snprintf(detail, sizeof detail, "work on device %d cannot be captured in a graph of device %d, "
           "whose replays run on device %d", cpu_current_device(), rec_device, rec_device);
  return (GpuResult){GPU_ERR_NOT_CAPTURABLE, GPU_SRC_HOST, call, detail, NULL};
}

#define NOMEM(call) GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, call " (CPU backend)")

static Step *push(CpuGraph *g) {
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 16;
    Step *s = realloc(g->steps, sizeof *s * (size_t)cap);
    if (s == NULL) return NULL;
    g->steps = s;
    g->cap = cap;
  }
  Step *s = &g->steps[g->n++];
  memset(s, 0, sizeof *s);
  return s;
}

static void graph_free(CpuGraph *g) {
  if (g == NULL) return;
  for (int i = 0; i < g->n; i++) free(g->steps[i].args);
  free(g->steps);
  free(g);
}

/* A copy of a launch's arguments: the pointers, then the bytes they point to. */
static void **copy_args(CUfunction f, void **params, int *nargs) {
  const gpuhost_entry *e = ((CpuFunction *)f)->entry;
  size_t head = (sizeof(void *) * (size_t)e->nparams + 15) / 16 * 16, bytes = head;
  for (int i = 0; i < e->nparams; i++) bytes += ((size_t)e->sizes[i] + 15) / 16 * 16;
  void **args = malloc(bytes ? bytes : 1);   /* malloc's alignment is 16 */
  if (args == NULL) return NULL;
  char *at = (char *)args + head;
  for (int i = 0; i < e->nparams; i++) {
    memcpy(at, params[i], (size_t)e->sizes[i]);
    args[i] = at;
    at += ((size_t)e->sizes[i] + 15) / 16 * 16;
  }
  *nargs = e->nparams;
  return args;
}

GpuResult cpu_rec_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                         unsigned shared, CUstream stream, void **params) {
  if (!rec) return cpu_launch(f, grid, block, shared, stream, params);
  GpuResult r = cpu_launch_check(f, grid, block, shared);   /* refused now, as CUDA does */
  if (r.code || (r = elsewhere("cuLaunchKernel (CPU backend)")).code) return r;
  Step *s = push(rec);
  if (s == NULL) return NOMEM("cuLaunchKernel");
  s->kind = STEP_LAUNCH;
  s->f = f;
  memcpy(s->grid, grid, sizeof s->grid);
  memcpy(s->block, block, sizeof s->block);
  s->shared = shared;
  if ((s->args = copy_args(f, params, &s->nargs)) == NULL) { rec->n--; return NOMEM("cuLaunchKernel"); }
  return GPU_OK;
}

GpuResult cpu_rec_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  if (!rec) return cpu_dtod(dst, src, n);
  GpuResult r = elsewhere("cuMemcpyDtoDAsync (CPU backend)");
  if (r.code) return r;
  Step *s = push(rec);
  if (s == NULL) return NOMEM("cuMemcpyDtoDAsync");
  *s = (Step){.kind = STEP_COPY, .dst = dst, .src = src, .n = n};
  return GPU_OK;
}

/* a copy between devices is refused while a capture runs, as CUDA's (cuda/memory.c) */
GpuResult cpu_rec_peer(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  if (rec) return not_capturable("a copy between devices", "cuMemcpyPeerAsync (CPU backend)");
  return cpu_dtod(dst, src, n);
}

GpuResult cpu_rec_memset0(CUdeviceptr p, size_t n) {
  if (!rec) return cpu_memset0(p, n);
  GpuResult r = elsewhere("cuMemsetD8Async (CPU backend)");
  if (r.code) return r;
  Step *s = push(rec);
  if (s == NULL) return NOMEM("cuMemsetD8Async");
  *s = (Step){.kind = STEP_FILL, .dst = p, .n = n};
  return GPU_OK;
}

/* Refused as on CUDA, where an event recorded in a graph cannot be timed. */
GpuResult cpu_rec_event_record(CUevent e, CUstream st) {
  if (rec) return not_capturable("e:record()", "cuEventRecord (CPU backend)");
  return cpu_event_record(e, st);
}

GpuResult cpu_rec_dtoh(void *dst, CUdeviceptr src, size_t n) {
  if (rec) return not_capturable("a copy from the device to the host", "cuMemcpyDtoH (CPU backend)");
  return cpu_dtoh(dst, src, n);
}

GpuResult cpu_rec_synchronize(void) {
  return rec ? not_capturable("gpu.synchronize()", "cuCtxSynchronize (CPU backend)") : GPU_OK;
}
GpuResult cpu_rec_stream_synchronize(CUstream s) {
  (void)s;
  return rec ? not_capturable("s:synchronize()", "cuStreamSynchronize (CPU backend)") : GPU_OK;
}
GpuResult cpu_rec_event_synchronize(CUevent e) {
  (void)e;
  return rec ? not_capturable("e:synchronize()", "cuEventSynchronize (CPU backend)") : GPU_OK;
}

GpuResult cpu_capture_begin(void) {
  if (rec) return not_capturable("a graph inside a graph", "cuStreamBeginCapture (CPU backend)");
  if ((rec = calloc(1, sizeof *rec)) == NULL) return NOMEM("cuStreamBeginCapture");
  rec_device = cpu_current_device();
  return GPU_OK;
}

GpuResult cpu_capture_end(CUgraph *graph) {
  *graph = (CUgraph)rec;
  if (rec == NULL) return GPU_FAIL(CUDA_ERROR_ILLEGAL_STATE, GPU_SRC_CUDA, "cuStreamEndCapture (CPU backend)");
  rec = NULL;
  return GPU_OK;
}

/* An executable graph is a copy of the graph's steps, so either may go first. */
static CpuGraph *clone(const CpuGraph *g) {
  CpuGraph *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  for (int i = 0; i < g->n; i++) {
    Step *s = push(c);
    if (s == NULL) { graph_free(c); return NULL; }
    *s = g->steps[i];
    if (s->kind == STEP_LAUNCH && (s->args = copy_args(s->f, g->steps[i].args, &s->nargs)) == NULL) {
      c->n--;
      graph_free(c);
      return NULL;
    }
  }
  return c;
}

GpuResult cpu_graph_instantiate(CUgraphExec *exec, CUgraph graph) {
  CpuGraph *c = clone((const CpuGraph *)graph);
  if (c == NULL) return NOMEM("cuGraphInstantiate");
  *exec = (CUgraphExec)c;
  return GPU_OK;
}

/* The same steps of the same kinds, the same kernels: the parameters are taken over. */
GpuResult cpu_graph_update(CUgraphExec exec, CUgraph graph, int *updated) {
  CpuGraph *e = (CpuGraph *)exec, *g = (CpuGraph *)graph;
  *updated = 0;
  if (e->n != g->n) return GPU_OK;
  for (int i = 0; i < g->n; i++)
    if (e->steps[i].kind != g->steps[i].kind ||
        (g->steps[i].kind == STEP_LAUNCH && e->steps[i].f != g->steps[i].f))
      return GPU_OK;
  CpuGraph *c = clone(g);
  if (c == NULL) return NOMEM("cuGraphExecUpdate");
  for (int i = 0; i < e->n; i++) free(e->steps[i].args);
  free(e->steps);
  *e = *c;
  free(c);
  *updated = 1;
  return GPU_OK;
}

/* A launch of a replay; its failure names the kernel, as a launch's does (kernel.c) */
static GpuResult replay_launch(const Step *s, CUstream st) {
  GpuResult r = cpu_launch(s->f, s->grid, s->block, s->shared, st, s->args);
  const char *label = ((CpuFunction *)s->f)->label;
  if (r.code && label[0]) {
    snprintf(detail, sizeof detail, "kernel '%s' (in a graph's replay)%s%s", label,
             r.detail ? " " : "", r.detail ? r.detail : "");
    r.detail = detail;
  }
  return r;
}

GpuResult cpu_graph_launch(CUgraphExec exec, CUstream st) {
  if (rec) return not_capturable("a graph's launch", "cuGraphLaunch (CPU backend)");
  CpuGraph *g = (CpuGraph *)exec;
  GpuResult r = GPU_OK;
  for (int i = 0; i < g->n && r.code == 0; i++) {
    Step *s = &g->steps[i];
    switch (s->kind) {
      case STEP_LAUNCH: r = replay_launch(s, st); break;
      case STEP_COPY: r = cpu_dtod(s->dst, s->src, s->n); break;
      default: r = cpu_memset0(s->dst, s->n); break;
    }
  }
  return r;
}

GpuResult cpu_graph_destroy(CUgraph graph, CUgraphExec exec) {
  graph_free((CpuGraph *)graph);
  graph_free((CpuGraph *)exec);
  return GPU_OK;
}
