/* cuda_internal.h: what the CUDA backend's files share:
 *   driver.c  loading libcuda, devices and contexts, lost contexts, waits;
 *   memory.c  the stream-ordered pool, allocations, copies;
 *   cuda.c    modules, launches, streams, events, and the backend table;
 *   graph.c   stream capture and CUDA graphs;
 *   nvrtc.c   the run-time compiler;  nvtx.c  profiler ranges.
 * Process-wide state lives here because the driver itself is process-wide. */
#ifndef GPUHOST_CUDA_INTERNAL_H
#define GPUHOST_CUDA_INTERNAL_H

#include <cudaTypedefs.h>
#include "backend.h"

/* A library opened on first use. Once it failed, every later call fails the same way
 * (numba's driver keeps its initialization error for the same reason). */
typedef struct Library {
  int loaded;                 /* 1 after a successful load */
  GpuResult result;           /* the failure, kept; detail points at message */
  char message[1024];
} Library;
/* Records a failure of lib (code, the call that failed, why as printf) and returns it. */
GpuResult library_fail(Library *lib, int code, GpuSource source, const char *call,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- the driver's entry points: name, version; each is called through
 * PFN_name_vversion (an entry point's signature changes with its version) ---- */
#define CUDA_FUNCS(X) \
  X(cuInit, 2000) X(cuDriverGetVersion, 2020) X(cuDeviceGetCount, 2000) \
  X(cuDeviceGet, 2000) X(cuDeviceGetName, 2000) X(cuDeviceGetAttribute, 2000) \
  X(cuDeviceTotalMem, 3020) X(cuDevicePrimaryCtxRetain, 7000) X(cuCtxSetCurrent, 4000) \
  X(cuCtxSynchronize, 2000) X(cuMemGetInfo, 3020) X(cuMemAlloc, 3020) X(cuMemFree, 3020) \
  X(cuMemHostAlloc, 2020) X(cuMemFreeHost, 2000) X(cuMemcpyHtoD, 3020) \
  X(cuMemcpyDtoH, 3020) X(cuMemcpyDtoDAsync, 3020) X(cuMemsetD8Async, 3020) X(cuMemsetD2D32Async, 3020) \
  X(cuModuleLoadData, 2000) X(cuModuleUnload, 2000) X(cuModuleGetFunction, 2000) \
  X(cuModuleGetGlobal, 3020) X(cuLaunchKernel, 4000) X(cuMemcpyHtoDAsync, 3020) X(cuMemcpyDtoHAsync, 3020) \
  X(cuStreamCreate, 2000) X(cuStreamDestroy, 4000) X(cuStreamSynchronize, 2000) \
  X(cuStreamWaitEvent, 3020) \
  X(cuEventCreate, 2000) X(cuEventDestroy, 4000) X(cuEventRecord, 2000) \
  X(cuEventSynchronize, 2000) X(cuEventElapsedTime, 2000) X(cuEventQuery, 2000) \
  X(cuStreamQuery, 2000)
/* entry points we can do without (older drivers); graphs need the last five */
#define CUDA_OPTIONAL(X) X(cuFuncGetParamInfo, 12040) X(cuGetErrorString, 6000) \
  X(cuMemAllocAsync, 11020) X(cuMemFreeAsync, 11020) X(cuDeviceGetDefaultMemPool, 11020) \
  X(cuMemPoolSetAttribute, 11020) X(cuMemPoolTrimTo, 11020) X(cuFuncGetName, 12030) \
  X(cuStreamBeginCapture, 10010) X(cuStreamEndCapture, 10000) X(cuGraphInstantiateWithFlags, 11040) \
  X(cuGraphExecUpdate, 12000) X(cuGraphLaunch, 10000) X(cuGraphDestroy, 10000) \
  X(cuGraphExecDestroy, 10000) \
  X(cuDeviceCanAccessPeer, 4000) X(cuCtxEnablePeerAccess, 4000) X(cuMemcpyPeerAsync, 4000) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)

#define CUDA_DECLARE(name, ver) PFN_##name##_v##ver name;
typedef struct CudaDriver {
  CUDA_FUNCS(CUDA_DECLARE)
  CUDA_OPTIONAL(CUDA_DECLARE)
} CudaDriver;
extern CudaDriver drv;

/* ---- devices (driver.c) ---- */
typedef struct CudaDevice {
  int elsewhere;              /* the last work queued went to a stream of the user's */
  CUcontext context;          /* the primary context, once retained */
  CUmemoryPool pool;          /* allocate from it (stream-ordered), or NULL */
  size_t total;               /* the device's memory, with a pool */
  unsigned long long keep;    /* the pool's release threshold (memory.c) */
  CUevent waiter;             /* recorded to wait for the whole device */
  CUevent peer;               /* orders copies between devices with the default streams */
  unsigned char peers[GPU_MAX_DEVICES];   /* peer access to device i: 0 not tried, 1 on, 2 not possible */
  GpuResult lost;             /* the sticky failure that lost the context (code 0: alive) */
  char note[400], detail[400];
} CudaDevice;
extern CudaDevice devices[GPU_MAX_DEVICES];
extern int current;           /* ordinal of the current device, -1 before the first */
/* Work was just queued on stream s of the current device (NULL: the legacy default
 * stream, which orders everything queued before it): what cuda_ordered answers. */
static inline void cuda_queued(CUstream s) {
  if (current >= 0) devices[current].elsewhere = s != NULL;
}
int cuda_ordered(int device);

GpuResult cuda_load(void);                      /* dlopen libcuda, cuInit; idempotent */
GpuResult cuda_use_device(int ordinal);
GpuResult cuda_device_info(int ordinal, GpuDeviceInfo *info);
/* The failure of call as a result. A sticky one marks the current device's context lost
 * and says so in its note; after that, every sticky failure is GPUHOST_CONTEXT_LOST. */
GpuResult cuda_failed(CUresult r, const char *call);
int cuda_sticky(CUresult r);
/* What releasing something on a lost context gives: nothing to release, no error. */
GpuResult cuda_released(CUresult r, const char *call);
/* Waits until the event (or, event NULL, the stream) has no work left, polling, so that
 * Ctrl-C (backend_interrupted) ends the wait. */
GpuResult cuda_wait(CUevent e, CUstream s, const char *call);
/* Waits until the current device has done the work queued before now. */
GpuResult cuda_wait_idle(const char *call);

/* A driver call that returns its failure as a GpuResult naming the call. */
#define TRY(call) do { CUresult r_ = (call); \
    if (r_ != CUDA_SUCCESS) return cuda_failed(r_, #call); } while (0)
/* At the top of a call on the current context: fails at once once it is lost. */
#define ALIVE(call) do { if (current >= 0 && devices[current].lost.code) \
    return (GpuResult){GPU_ERR_CONTEXT_LOST, GPU_SRC_HOST, call, devices[current].detail, NULL}; \
  } while (0)

/* ---- the stream the default goes to (graph.c): NULL (the legacy default stream), or,
 * while a capture runs, the capture's stream ---- */
extern CUstream cuda_implicit;
/* A stream a call was given, or the implicit one; while capturing, a stream of the
 * user's joins the capture first (it waits for it, and the capture for it at the end). */
CUstream cuda_stream_for(CUstream s);
/* While capturing: the stream (not captured) where allocations and frees go at once,
 * ordered after everything queued before the capture began; NULL otherwise. */
extern CUstream cuda_side;
/* Fails (GPUHOST_NOT_CAPTURABLE, naming what) while a capture runs. */
GpuResult cuda_not_while_capturing(const char *what, const char *call);

/* memory.c */
GpuResult cuda_alloc(CUdeviceptr *p, size_t n);
GpuResult cuda_free(CUdeviceptr p, int device);
GpuResult cuda_trim(int device);
GpuResult cuda_host_alloc(void **p, size_t n);
GpuResult cuda_host_free(void *p);
GpuResult cuda_htod(CUdeviceptr dst, const void *src, size_t n);
GpuResult cuda_dtoh(void *dst, CUdeviceptr src, size_t n);
GpuResult cuda_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n);
GpuResult cuda_memset0(CUdeviceptr p, size_t n);
GpuResult cuda_htod_async(CUdeviceptr dst, const void *src, size_t n, CUstream s);
GpuResult cuda_dtoh_async(void *dst, CUdeviceptr src, size_t n, CUstream s);
GpuResult cuda_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s);
GpuResult cuda_mem_info(size_t *free_bytes, size_t *total_bytes);
GpuResult cuda_peer_copy(CUdeviceptr dst, int dst_dev, CUdeviceptr src, int src_dev, size_t n,
                         CUstream s);
void cuda_use_pool(CudaDevice *d, CUdevice dev);
void cuda_hold(int device, size_t held);

/* driver.c: the rest of the table */
GpuResult cuda_device_count(int *n);
GpuResult cuda_ensure_context(void);
GpuResult cuda_adopt_context(int ordinal, void *context);
int cuda_current_device(void);
GpuResult cuda_synchronize(void);
GpuResult cuda_arch(char *out, size_t n);
const char *cuda_describe(int code);

/* graph.c */
GpuResult cuda_capture_begin(void);
GpuResult cuda_capture_end(CUgraph *graph);
GpuResult cuda_graph_instantiate(CUgraphExec *exec, CUgraph graph);
GpuResult cuda_graph_update(CUgraphExec exec, CUgraph graph, int *updated);
GpuResult cuda_graph_launch(CUgraphExec exec, CUstream s);
GpuResult cuda_graph_destroy(CUgraph graph, CUgraphExec exec);

/* nccl.c: NCCL, and the watch the waits keep on its communicators */
GpuResult nccl_comm_id(GpuCommId *id);
GpuResult nccl_version(int *version);
GpuResult nccl_comm_init_all(GpuComm **comms, int n, const int *devices);
GpuResult nccl_comm_init_rank(GpuComm **comm, int nranks, int rank, const GpuCommId *id, int device);
GpuResult nccl_coll(GpuComm *comm, const GpuCollArgs *args);
GpuResult nccl_group_start(void);
GpuResult nccl_group_end(void);
GpuResult nccl_comm_check(GpuComm *comm);
GpuResult nccl_comm_abort(GpuComm *comm);
GpuResult nccl_comm_destroy(GpuComm *comm);
/* While a wait polls: fails (GPUHOST_COMM_FAILED), aborting the communicator, when one
 * with unfinished work has broken (NCCL's asynchronous error, a peer gone, the timeout) */
GpuResult nccl_watch(void);
/* The throttle. A device queues about a thousand calls (1022 launches, copies or event
 * records alike on an H200); the next blocks in the driver until the device takes one,
 * and behind a collective that never ends (a peer stuck) it would block forever, where no
 * wait polls the watch. So while a collective is out, each call that queues work adds
 * its entries (a guess, from above) to nccl_entries, and once a collective out was queued
 * NCCL_AHEAD entries ago (nccl_due), the host waits, polled and watched, until none out is
 * older than half that: it stays a few hundred entries ahead of the device, never the
 * thousand that would block. Loading a module, making a cuBLAS handle, a cuFFT plan or a
 * communicator, and the frees that synchronize, can wait for the device's work: those
 * wait for every collective out first (settle). nccl_out: some collective may be out.
 * A collective on the legacy stream gets its probe later (nccl.c's mark_queued): once
 * NCCL_PROBE_EVERY entries have followed it, before a wait (nccl_flush), or a capture.
 * nccl_pending: communicators with collectives waiting for their probe. */
#define NCCL_AHEAD 384
#define NCCL_PROBE_EVERY 64
extern int nccl_out, nccl_pending;
extern long long nccl_entries, nccl_due;
void nccl_flush(void);
GpuResult nccl_throttle(int settle, const char *call);
/* The same where a failure cannot be returned (a __gc): the wait still breaks a
 * collective that never ends; Ctrl-C is kept for the next wait */
void nccl_throttle_quietly(int settle, const char *call);
/* At the top of a call that queues n entries of work on the current device (during a
 * capture it may only record them, but a capture's allocations and frees are queued; the
 * throttle only polls events, which a relaxed capture allows) */
#define QUEUES(call, n) do { ALIVE(call); \
    if (nccl_out && (nccl_entries += (n)) > nccl_due) { \
      GpuResult q_ = nccl_throttle(0, call); if (q_.code) return q_; } } while (0)
/* At the top of a call that may wait for the device's work */
#define SETTLES(call) do { ALIVE(call); \
    if (nccl_out) { GpuResult q_ = nccl_throttle(1, call); if (q_.code) return q_; } } while (0)

/* nvrtc.c */
GpuResult nvrtc_identity(char *out, size_t n);
GpuResult nvrtc_compile_cuda(const GpuCompileJob *job, GpuImage *out);

/* blas.c: libraries of the CUDA toolkit, opened at first use (by soname, then in
 * $CUDA_HOME/lib64; GPU_ERR_NO_LIBRARY naming what and the package); matrix products */
GpuResult cuda_toolkit_open(Library *lib, void **dl, const char *const *sonames, int n,
                            const char *what, const char *package);
GpuResult cuda_gemm(const GpuGemm *g);
GpuResult cuda_fft(const GpuFft *f);   /* fft.c: cuFFT */
GpuResult cuda_linalg_workspace(const GpuLinalg *l, size_t *bytes);   /* solver.c: cuSOLVER */
GpuResult cuda_linalg(const GpuLinalg *l);
int cuda_linalg_batched(const GpuLinalg *l, int64_t batch);
/* blas.c: cuBLAS's getrfBatched (bptrs 0), getrsBatched, or for INV getrfBatched and
 * getriBatched, for l's batch: the addresses of its matrices at aptrs, of its right-hand
 * sides or inverses at bptrs (INV: batch int32 for getri's statuses after them), on the
 * device */
GpuResult cuda_lu_batched(const GpuLinalg *l, CUdeviceptr aptrs, CUdeviceptr bptrs, CUstream s);
/* fft.c: the plans a capture used are held by the graph it made (NULL: none), until the
 * graph is destroyed */
GpuResult cuda_fft_captured(CUgraph graph);
void cuda_fft_graph_gone(CUgraph graph);

/* nvtx.c: NVTX ranges and marks; with tracing on, launches and copies are ranges too */
void cuda_range_push(const char *name);
void cuda_range_pop(void);
void cuda_mark(const char *name);
void cuda_trace(int on);
void cuda_trace_init(void);
extern int cuda_trace_on;
#define cuda_tracing() (cuda_trace_on)
void cuda_trace_copy(const char *what, size_t n);   /* pushes a range; pop it after */
void cuda_trace_launch(const char *name);         /* likewise, for a launch of the named kernel */

#endif
