/* cpu.c: the CPU backend's table. Kernels are the same CUDA C, compiled by the host's C++
 * compiler (compile.c) and run on a pool of worker threads (pool.c, sched.c, fiber.c);
 * device memory is host memory between guard pages (mem.c). Its devices are the machine
 * (devices.c); collectives run in host memory or over MPI (coll.c); streams run in order
 * and events are times. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cpu_internal.h"
#include "util.h"

static _Thread_local char detail[512];

GpuResult cpu_fail(GpuResult r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  r.detail = detail;
  return r;
}

long cpu_env_number(const char *name, long lo, long hi, long def, char *why, size_t n) {
  int bad;
  long v = env_long(name, lo, hi, def, &bad);
  if (!bad) return v;
  snprintf(why, n, "%s must be a whole number from %ld to %ld, not '%.40s'", name, lo, hi, getenv(name));
  return -1;
}

/* ---- devices: devices.c ---- */
static GpuResult cpu_mem_info(size_t *free_bytes, size_t *total_bytes) {
  *total_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
  *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
  return GPU_OK;
}

/* ---- streams and events: streams run in order; an event is a time ---- */
typedef struct CpuEvent { double t; int recorded; } CpuEvent;
#define NOMEM(call) GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, call " (CPU backend)")
static GpuResult cpu_stream_create(CUstream *s) {
  *s = (CUstream)calloc(1, 16);
  return *s ? GPU_OK : NOMEM("cuStreamCreate");
}
static GpuResult cpu_stream_destroy(CUstream s) { free(s); return GPU_OK; }
static GpuResult cpu_event_create(CUevent *e) {
  *e = (CUevent)calloc(1, sizeof(CpuEvent));
  return *e ? GPU_OK : NOMEM("cuEventCreate");
}
static GpuResult cpu_event_destroy(CUevent e) { free(e); return GPU_OK; }
GpuResult cpu_event_record(CUevent e, CUstream s) {
  (void)s;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  ((CpuEvent *)e)->t = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
  ((CpuEvent *)e)->recorded = 1;
  return GPU_OK;
}
static GpuResult cpu_event_elapsed(float *ms, CUevent a, CUevent b) {
  CpuEvent *x = (CpuEvent *)a, *y = (CpuEvent *)b;
  if (!x->recorded || !y->recorded)
    return GPU_FAIL(CUDA_ERROR_INVALID_HANDLE, GPU_SRC_CUDA, "cuEventElapsedTime (CPU backend)");
  *ms = (float)((y->t - x->t) * 1e3);
  return GPU_OK;
}

/* ---- copies on a stream: streams run in order, so a copy is done at once (or recorded,
 * as graph.c says) ---- */
static GpuResult cpu_htod_async(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  (void)s;
  return cpu_htod(dst, src, n);
}
static GpuResult cpu_dtoh_async(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  (void)s;
  return cpu_rec_dtoh(dst, src, n);   /* refused while a capture runs */
}
static GpuResult cpu_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  (void)s;
  return cpu_rec_dtod(dst, src, n);   /* recorded while a capture runs */
}

static GpuResult cpu_comm_version(int *version) { *version = 0; return GPU_OK; }   /* no NCCL */

const GpuBackend cpu_backend = {
  .name = "cpu", .compiler = "c++", .pinned_host = 0,
  .device_count = cpu_device_count, .device_info = cpu_device_info,
  .use_device = cpu_use_device, .ensure_context = cpu_ensure_context,
  .adopt_context = NULL,   /* no contexts */
  .current_device = cpu_current_device, .synchronize = cpu_rec_synchronize,
  .mem_info = cpu_mem_info, .alloc = cpu_alloc, .free = cpu_free, .trim = cpu_trim,
  .host_alloc = cpu_host_alloc, .host_free = cpu_host_free,
  .htod = cpu_htod, .dtoh = cpu_rec_dtoh, .dtod = cpu_rec_dtod, .memset0 = cpu_rec_memset0,
  .arch = cpu_arch, .compiler_id = cpu_compiler_id, .compile = cpu_compile,
  .module_load = cpu_module_load, .module_unload = cpu_module_unload,
  .module_function = cpu_module_function, .module_global = cpu_module_global,
  .param_size = cpu_param_size, .launch = cpu_rec_launch,
  .stream_create = cpu_stream_create, .stream_destroy = cpu_stream_destroy,
  .stream_synchronize = cpu_rec_stream_synchronize,
  .event_create = cpu_event_create, .event_destroy = cpu_event_destroy,
  .event_record = cpu_rec_event_record, .event_synchronize = cpu_rec_event_synchronize,
  .event_elapsed = cpu_event_elapsed, .describe = NULL,
  .range_push = NULL, .range_pop = NULL, .mark = NULL, .trace = NULL,   /* no profiler */
  .capture_begin = cpu_capture_begin, .capture_end = cpu_capture_end,
  .graph_instantiate = cpu_graph_instantiate, .graph_update = cpu_graph_update,
  .graph_launch = cpu_graph_launch, .graph_destroy = cpu_graph_destroy,
  .htod_async = cpu_htod_async, .dtoh_async = cpu_dtoh_async, .dtod_async = cpu_dtod_async,
  .peer_copy = cpu_peer_copy,
  .comm_id = cpu_comm_id, .comm_init_all = cpu_comm_init_all, .comm_init_rank = cpu_comm_init_rank,
  .coll = cpu_coll, .group_start = cpu_group_start, .group_end = cpu_group_end,
  .comm_check = cpu_comm_check, .comm_abort = cpu_comm_abort, .comm_destroy = cpu_comm_destroy,
  .comm_version = cpu_comm_version,
  .gemm = cpu_gemm, .fft = cpu_fft,
  .linalg_workspace = cpu_linalg_workspace, .linalg = cpu_linalg,
};
