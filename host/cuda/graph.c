/* graph.c: gpu.graph on CUDA, through stream capture. While a capture runs, what would go
 * to the default stream goes to the capture's stream (cuda_implicit) and is recorded, not
 * run; a stream of the user's given to a launch joins the capture (it waits for the
 * capture's stream, which waits for it at the end). Allocations and frees are not
 * recorded: they happen at once, in the pool, on a side stream that comes after all work
 * queued before the capture began, so an array made inside the capture is an ordinary
 * array that the graph uses. Synchronizations and copies to the host cannot be recorded
 * and fail with GPUHOST_NOT_CAPTURABLE; the capture goes on (the caller abandons it). */
#include <stdio.h>
#include <stdlib.h>
#include "cuda_internal.h"

CUstream cuda_implicit, cuda_side;

static struct {
  int device;                 /* the device being captured */
  CUstream capture[GPU_MAX_DEVICES], side[GPU_MAX_DEVICES];
  CUevent start;              /* recorded in the default stream as the capture began */
  CUstream *joined;           /* the user's streams that joined, and their join events */
  CUevent *events;
  int njoined, cap;
} cap = {.device = -1};

static _Thread_local char detail[320];

GpuResult cuda_not_while_capturing(const char *what, const char *call) {
  snprintf(detail, sizeof detail, "%s cannot be captured: a graph records work for the "
           "device to run later, and this needs the device now", what);
  return (GpuResult){GPU_ERR_NOT_CAPTURABLE, GPU_SRC_HOST, call, detail, NULL};
}

static int have_graphs(void) {
  return drv.cuStreamBeginCapture && drv.cuStreamEndCapture && drv.cuGraphInstantiateWithFlags &&
         drv.cuGraphExecUpdate && drv.cuGraphLaunch && drv.cuGraphDestroy && drv.cuGraphExecDestroy;
}

/* The device's capture and side streams, made once (they do not wait for the default
 * stream, so that work there neither waits for nor joins the capture). */
static GpuResult streams(int dev) {
  if (!cap.capture[dev]) TRY(drv.cuStreamCreate(&cap.capture[dev], CU_STREAM_NON_BLOCKING));
  if (!cap.side[dev]) TRY(drv.cuStreamCreate(&cap.side[dev], CU_STREAM_NON_BLOCKING));
  if (!cap.start) TRY(drv.cuEventCreate(&cap.start, CU_EVENT_DISABLE_TIMING));
  return GPU_OK;
}

GpuResult cuda_capture_begin(void) {
  GpuResult r = cuda_ensure_context();
  if (r.code) return r;
  QUEUES("cuStreamBeginCapture(s, mode)", 2);
  if (!have_graphs())
    return (GpuResult){GPU_ERR_NO_SYMBOL, GPU_SRC_HOST, "cuGetProcAddress(\"cuStreamBeginCapture\")",
                       "graphs need a CUDA 12 driver", NULL};
  if (cuda_implicit) return cuda_not_while_capturing("a graph inside a graph", "cuStreamBeginCapture(s, mode)");
  if ((r = streams(current)).code) return r;
  if (nccl_pending) nccl_flush();   /* it uses the legacy stream, which a capture cannot */
  TRY(drv.cuEventRecord(cap.start, NULL));
  TRY(drv.cuStreamWaitEvent(cap.side[current], cap.start, 0));
  TRY(drv.cuStreamBeginCapture(cap.capture[current], CU_STREAM_CAPTURE_MODE_RELAXED));
  cap.device = current;
  cap.njoined = 0;
  cuda_implicit = cap.capture[current];
  cuda_side = cap.side[current];
  return GPU_OK;
}

CUstream cuda_stream_for(CUstream s) {
  if (s == NULL || s == cuda_implicit) return cuda_implicit;
  for (int i = 0; i < cap.njoined; i++)
    if (cap.joined[i] == s) return s;
  if (cap.njoined == cap.cap) {   /* grow the list; on failure s runs outside the capture */
    int n = cap.cap ? 2 * cap.cap : 8;
    CUstream *js = realloc(cap.joined, sizeof *js * (size_t)n);
    if (js) cap.joined = js;
    CUevent *es = realloc(cap.events, sizeof *es * (size_t)n);
    if (es) cap.events = es;
    if (!js || !es) return s;
    cap.cap = n;
  }
  CUevent e;
  if (drv.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return s;
  if (drv.cuEventRecord(e, cuda_implicit) != CUDA_SUCCESS ||
      drv.cuStreamWaitEvent(s, e, 0) != CUDA_SUCCESS) {
    drv.cuEventDestroy(e);
    return s;
  }
  cap.joined[cap.njoined] = s;
  cap.events[cap.njoined++] = e;
  return s;
}

GpuResult cuda_capture_end(CUgraph *graph) {
  *graph = NULL;
  if (!cuda_implicit) return GPU_FAIL(CUDA_ERROR_ILLEGAL_STATE, GPU_SRC_CUDA, "cuStreamEndCapture(s, &g)");
  CUstream s = cuda_implicit;
  CUresult r = CUDA_SUCCESS;
  for (int i = 0; i < cap.njoined; i++) {   /* the joined streams join back */
    if (r == CUDA_SUCCESS) r = drv.cuEventRecord(cap.events[i], cap.joined[i]);
    if (r == CUDA_SUCCESS) r = drv.cuStreamWaitEvent(s, cap.events[i], 0);
  }
  CUresult e = drv.cuStreamEndCapture(s, graph);
  if (r == CUDA_SUCCESS) r = e;
  for (int i = 0; i < cap.njoined; i++) drv.cuEventDestroy(cap.events[i]);
  cap.njoined = 0;
  cuda_implicit = NULL;
  cuda_side = NULL;
  devices[cap.device].elsewhere = 1;   /* the side stream's frees: let the pool order them */
  /* what was allocated, is (polled: the side stream follows the work queued before the
   * capture, which may be a collective that never ends) */
  GpuResult sr = cuda_wait(NULL, cap.side[cap.device], "cuStreamSynchronize(side)");
  if (r != CUDA_SUCCESS || sr.code) {
    if (*graph) drv.cuGraphDestroy(*graph);
    *graph = NULL;
    cuda_fft_captured(NULL);
    return r != CUDA_SUCCESS ? cuda_failed(r, "cuStreamEndCapture(s, &g)") : sr;
  }
  GpuResult held = cuda_fft_captured(*graph);
  if (held.code) {
    cuda_fft_graph_gone(*graph);
    drv.cuGraphDestroy(*graph);
    *graph = NULL;
  }
  return held;
}

GpuResult cuda_graph_instantiate(CUgraphExec *exec, CUgraph graph) {
  ALIVE("cuGraphInstantiate(&exec, graph, 0)");
  TRY(drv.cuGraphInstantiateWithFlags(exec, graph, 0));
  return GPU_OK;
}

GpuResult cuda_graph_update(CUgraphExec exec, CUgraph graph, int *updated) {
  ALIVE("cuGraphExecUpdate(exec, graph, &info)");
  CUgraphExecUpdateResultInfo info;
  CUresult r = drv.cuGraphExecUpdate(exec, graph, &info);
  *updated = r == CUDA_SUCCESS;
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) return GPU_OK;
  return cuda_failed(r, "cuGraphExecUpdate(exec, graph, &info)");
}

GpuResult cuda_graph_launch(CUgraphExec exec, CUstream s) {
  QUEUES("cuGraphLaunch(exec, s)", 8);
  if (cuda_implicit) s = cuda_stream_for(s);
  TRY(drv.cuGraphLaunch(exec, s));
  cuda_queued(s);
  return GPU_OK;
}

GpuResult cuda_graph_destroy(CUgraph graph, CUgraphExec exec) {
  GpuResult r = GPU_OK;
  if (exec) r = cuda_released(drv.cuGraphExecDestroy(exec), "cuGraphExecDestroy(exec)");
  if (graph) {
    cuda_fft_graph_gone(graph);
    GpuResult g = cuda_released(drv.cuGraphDestroy(graph), "cuGraphDestroy(graph)");
    if (r.code == 0) r = g;
  }
  return r;
}
