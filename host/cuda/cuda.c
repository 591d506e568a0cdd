/* cuda.c: the CUDA driver backend's table, and its modules, launches, streams and events
 * (devices in driver.c, memory in memory.c, graphs in graph.c, the compiler in nvrtc.c).
 * What would go to the default stream goes to cuda_implicit: the legacy default stream,
 * or the capture's stream while gpu.graph records. */
#include <stdio.h>
#include "cuda_internal.h"

/* ---- modules and launches ---- */

static GpuResult cuda_module_load(CUmodule *m, const GpuImage *img) {
  SETTLES("cuModuleLoadData(m, img->data)");
  TRY(drv.cuModuleLoadData(m, img->data));
  return GPU_OK;
}
static GpuResult cuda_module_unload(CUmodule m) {
  if (nccl_out) nccl_throttle_quietly(1, "cuModuleUnload(m)");   /* it may synchronize */
  return cuda_released(drv.cuModuleUnload(m), "cuModuleUnload(m)");
}
static GpuResult cuda_module_function(CUfunction *f, CUmodule m, const char *name) {
  SETTLES("cuModuleGetFunction(f, m, name)");
  TRY(drv.cuModuleGetFunction(f, m, name));
  return GPU_OK;
}
static GpuResult cuda_module_global(CUdeviceptr *p, size_t *n, CUmodule m, const char *name) {
  ALIVE("cuModuleGetGlobal(p, n, m, name)");
  TRY(drv.cuModuleGetGlobal(p, n, m, name));
  return GPU_OK;
}

static GpuResult cuda_param_size(CUfunction f, int i, long *size, int *known) {
  *known = drv.cuFuncGetParamInfo != NULL;
  *size = -1;
  if (!*known) return GPU_OK;
  size_t offset, sz;
  CUresult r = drv.cuFuncGetParamInfo(f, (size_t)i, &offset, &sz);
  if (r == CUDA_ERROR_INVALID_VALUE) return GPU_OK;   /* past the last parameter */
  TRY(r);
  *size = (long)sz;
  return GPU_OK;
}

static GpuResult cuda_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                             unsigned shared, CUstream stream, void **params) {
  QUEUES("cuLaunchKernel(f, grid[0], ...)", 1);
  if (cuda_implicit) stream = cuda_stream_for(stream);
  if (cuda_tracing()) {   /* the range is named by the kernel */
    const char *name = NULL;
    if (!drv.cuFuncGetName || drv.cuFuncGetName(&name, f) != CUDA_SUCCESS) name = "kernel";
    cuda_trace_launch(name);
  }
  CUresult c = drv.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                  shared, stream, params, NULL);
  cuda_queued(stream);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return cuda_failed(c, "cuLaunchKernel(f, grid[0], ...)");
  return GPU_OK;
}

/* ---- streams and events ---- */

/* blocks of `threads` threads of f resident on a multiprocessor at once (0: unknown) */
static int cuda_occupancy(CUfunction f, unsigned threads) {
  int n = 0;
  if (!drv.cuOccupancyMaxActiveBlocksPerMultiprocessor ||
      drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, (int)threads, 0) != CUDA_SUCCESS)
    return 0;
  return n;
}

static GpuResult cuda_stream_create(CUstream *s) {
  ALIVE("cuStreamCreate(s, CU_STREAM_DEFAULT)");
  TRY(drv.cuStreamCreate(s, CU_STREAM_DEFAULT));
  return GPU_OK;
}
static GpuResult cuda_stream_destroy(CUstream s) {
  return cuda_released(drv.cuStreamDestroy(s), "cuStreamDestroy(s)");
}
static GpuResult cuda_stream_synchronize(CUstream s) {
  ALIVE("cuStreamSynchronize(s)");
  if (cuda_implicit) return cuda_not_while_capturing("s:synchronize()", "cuStreamSynchronize(s)");
  GpuResult r = cuda_wait(NULL, s, "cuStreamSynchronize(s)");
  if (r.code) return r;
  TRY(drv.cuStreamSynchronize(s));
  return GPU_OK;
}
static GpuResult cuda_event_create(CUevent *e) {
  ALIVE("cuEventCreate(e, CU_EVENT_DEFAULT)");
  TRY(drv.cuEventCreate(e, CU_EVENT_DEFAULT));
  return GPU_OK;
}
static GpuResult cuda_event_destroy(CUevent e) {
  return cuda_released(drv.cuEventDestroy(e), "cuEventDestroy(e)");
}
static GpuResult cuda_event_record(CUevent e, CUstream s) {
  QUEUES("cuEventRecord(e, s)", 1);
  if (cuda_implicit)   /* a recorded event could not be timed: gpu.elapsed fails on it */
    return cuda_not_while_capturing("e:record()", "cuEventRecord(e, s)");
  TRY(drv.cuEventRecord(e, s));
  cuda_queued(s);
  return GPU_OK;
}
static GpuResult cuda_event_synchronize(CUevent e) {
  ALIVE("cuEventSynchronize(e)");
  if (cuda_implicit) return cuda_not_while_capturing("e:synchronize()", "cuEventSynchronize(e)");
  GpuResult r = cuda_wait(e, NULL, "cuEventSynchronize(e)");
  if (r.code) return r;
  TRY(drv.cuEventSynchronize(e));
  return GPU_OK;
}
static GpuResult cuda_event_elapsed(float *ms, CUevent a, CUevent b) {
  ALIVE("cuEventElapsedTime(ms, a, b)");
  TRY(drv.cuEventElapsedTime(ms, a, b));
  return GPU_OK;
}

const GpuBackend cuda_backend = {
  .name = "cuda", .compiler = "nvrtc", .pinned_host = 1,
  .device_count = cuda_device_count, .device_info = cuda_device_info,
  .use_device = cuda_use_device, .ensure_context = cuda_ensure_context,
  .adopt_context = cuda_adopt_context,
  .current_device = cuda_current_device, .synchronize = cuda_synchronize,
  .mem_info = cuda_mem_info, .alloc = cuda_alloc, .free = cuda_free, .trim = cuda_trim, .hold = cuda_hold,
  .ordered = cuda_ordered,
  .host_alloc = cuda_host_alloc, .host_free = cuda_host_free,
  .htod = cuda_htod, .dtoh = cuda_dtoh, .dtod = cuda_dtod, .memset0 = cuda_memset0,
  .arch = cuda_arch, .compiler_id = nvrtc_identity, .compile = nvrtc_compile_cuda,
  .module_load = cuda_module_load, .module_unload = cuda_module_unload,
  .module_function = cuda_module_function, .module_global = cuda_module_global,
  .param_size = cuda_param_size, .launch = cuda_launch, .occupancy = cuda_occupancy,
  .stream_create = cuda_stream_create, .stream_destroy = cuda_stream_destroy,
  .stream_synchronize = cuda_stream_synchronize,
  .event_create = cuda_event_create, .event_destroy = cuda_event_destroy,
  .event_record = cuda_event_record, .event_synchronize = cuda_event_synchronize,
  .event_elapsed = cuda_event_elapsed, .describe = cuda_describe,
  .range_push = cuda_range_push, .range_pop = cuda_range_pop, .mark = cuda_mark,
  .trace = cuda_trace,
  .capture_begin = cuda_capture_begin, .capture_end = cuda_capture_end,
  .graph_instantiate = cuda_graph_instantiate, .graph_update = cuda_graph_update,
  .graph_launch = cuda_graph_launch, .graph_destroy = cuda_graph_destroy,
  .htod_async = cuda_htod_async, .dtoh_async = cuda_dtoh_async, .dtod_async = cuda_dtod_async,
  .peer_copy = cuda_peer_copy,
  .comm_id = nccl_comm_id, .comm_init_all = nccl_comm_init_all, .comm_init_rank = nccl_comm_init_rank,
  .coll = nccl_coll, .group_start = nccl_group_start, .group_end = nccl_group_end,
  .comm_check = nccl_comm_check, .comm_abort = nccl_comm_abort, .comm_destroy = nccl_comm_destroy,
  .comm_version = nccl_version,
  .gemm = cuda_gemm, .fft = cuda_fft,
  .linalg_workspace = cuda_linalg_workspace, .linalg = cuda_linalg,
  .linalg_batched = cuda_linalg_batched,
};
