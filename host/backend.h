/* backend.h: the contract between the gpu module and the machines that run kernels. Two
 * backends implement it: the CUDA driver with NVRTC (host/cuda/) and the CPU (host/cpu/).
 * The Lua-facing files call them only through the GpuBackend table that backend_get()
 * returns; a backend knows nothing of Lua, and this header does not include lua.h, so the
 * compiler holds that line (as lauxlib.c's includes hold "uses only the official API").
 *
 * The vocabulary is CUDA's, on both backends: handles are CUdeviceptr, CUmodule,
 * CUfunction, CUstream and CUevent (the CPU backend puts its own pointers in them), and
 * failures are CUresult codes wherever a GPU would fail the same way. */
#ifndef GPUHOST_BACKEND_H
#define GPUHOST_BACKEND_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda.h>

#define GPU_MAX_DEVICES 64      /* device ordinals gpuhost handles, on any backend */

/* ---- results: every backend call returns one; code 0 is success ---- */
typedef enum { GPU_SRC_CUDA, GPU_SRC_NVRTC, GPU_SRC_HOST } GpuSource;

/* gpuhost's own failures (GPU_SRC_HOST), where no library could give a code */
enum {
  GPU_ERR_NO_DRIVER = 1,        /* libcuda.so.1 could not be opened */
  GPU_ERR_NO_NVRTC,             /* no NVRTC library */
  GPU_ERR_NO_SYMBOL,            /* a library lacks an entry point we need */
  GPU_ERR_CPU_COMPILE,          /* the host's C++ compiler failed or could not run */
  GPU_ERR_CPU_UNSUPPORTED,      /* a kernel uses what the CPU backend cannot run */
  GPU_ERR_INTERRUPTED,          /* a wait was cut short by Ctrl-C (backend_interrupted) */
  GPU_ERR_CONTEXT_LOST,         /* an earlier sticky error lost the device's context */
  GPU_ERR_MEMORY_LIMIT,         /* GPUHOST_MEMORY_LIMIT refuses it, or cannot be read */
  GPU_ERR_NOT_CAPTURABLE,       /* what a graph capture cannot record (detail: what) */
  GPU_ERR_BAD_SETTING,          /* an environment variable gpuhost reads is malformed */
  GPU_ERR_NO_NCCL,              /* libnccl.so.2 could not be loaded (detail: why) */
  GPU_ERR_NO_MPI,               /* libmpi could not be loaded or initialized */
  GPU_ERR_NCCL,                 /* NCCL failed (detail: its result and last error) */
  GPU_ERR_MPI,                  /* MPI failed (detail: its error string) */
  GPU_ERR_COMM_FAILED,          /* a communicator broke: a rank died or aborted, or a
                                 * collective timed out */
  GPU_ERR_COMM_MISMATCH,        /* the ranks' calls do not match (found before any data
                                 * moved: the communicator is still usable) */
  GPU_ERR_NO_LIBRARY,           /* a library an operation needs (cuBLAS, cuFFT, a BLAS, FFTW)
                                 * could not be loaded (detail: which, why, the package) */
  GPU_ERR_LIBRARY               /* such a library failed (detail: the call and its status) */
};

typedef struct GpuResult {
  int code;           /* CUresult (GPU_SRC_CUDA), nvrtcResult (GPU_SRC_NVRTC), GPU_ERR_* */
  GpuSource source;
  const char *call;   /* the failing call as written in the backend's source (a literal) */
  const char *detail; /* what the backend can say beyond the code, or NULL: why a library
                       * did not load, where a launch failed (block, thread, address). Owned
                       * by the backend; valid until the next backend call on this thread. */
  const char *note;   /* said after the code's description in the error's message, or NULL:
                       * what a failure means for the process (a lost context) and what to
                       * do. A static string, or as detail. */
} GpuResult;
#define GPU_OK ((GpuResult){0, GPU_SRC_CUDA, NULL, NULL, NULL})
#define GPU_FAIL(code, source, call) ((GpuResult){(int)(code), (source), (call), NULL, NULL})

/* ---- what the table's members take and give ---- */
typedef struct GpuDeviceInfo {
  char name[256];
  int major, minor, multiprocessors, max_threads_per_block, warp_size;
  size_t total_memory;
} GpuDeviceInfo;

/* ---- collectives (NCCL's vocabulary; host/comm.c is the Lua side) ----
 * A communicator is one backend handle per rank this process drives: several for a
 * communicator over devices of this process, one per process under a launcher. */
typedef struct GpuComm GpuComm;     /* the backend's; opaque here */
typedef struct GpuCommId { char bytes[128]; } GpuCommId;   /* ncclUniqueId's size */
enum { GPU_RED_SUM, GPU_RED_PROD, GPU_RED_MIN, GPU_RED_MAX, GPU_RED_AVG };
enum { GPU_COLL_ALL_REDUCE, GPU_COLL_ALL_GATHER, GPU_COLL_REDUCE_SCATTER, GPU_COLL_BROADCAST,
       GPU_COLL_REDUCE, GPU_COLL_SEND, GPU_COLL_RECV };
/* Element types of collectives; data movement of any other dtype goes as GPU_CT_BYTE
 * (GpuCollArgs.dtype names the dtype). */
enum { GPU_CT_INT8, GPU_CT_UINT8, GPU_CT_INT32, GPU_CT_UINT32, GPU_CT_INT64, GPU_CT_UINT64,
       GPU_CT_FLOAT32, GPU_CT_FLOAT64, GPU_CT_BYTE, GPU_CT_FLOAT16 };
static inline size_t gpu_ct_size(int type) {   /* bytes of one element of a GPU_CT_* */
  static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 4, 8, 1, 2};
  return sizes[type];
}
typedef struct GpuCollArgs {
  int kind;                     /* GPU_COLL_* */
  CUdeviceptr send, recv;       /* send: what this rank gives; recv: where its result goes */
  size_t count;                 /* elements: of send for all_gather, of recv for
                                 * reduce_scatter, of the buffer otherwise */
  int type, op;                 /* GPU_CT_*, GPU_RED_* (reductions) */
  int peer;                     /* root (broadcast, reduce) or peer (send, recv) */
  CUstream stream;              /* NULL: the rank's device's default stream */
  int barrier;                  /* an all_reduce that is comm:barrier() (named in mismatches) */
  const char *dtype;            /* the arrays' dtype by name (type may be GPU_CT_BYTE): */
  size_t dtype_size;            /* the checks compare it, messages name it */
} GpuCollArgs;

typedef struct GpuCompileJob {
  const char *source;           /* the kernel source, after its #line prefix */
  const char *progname;         /* the name compiler messages give the source */
  const char *header;           /* kernels/gpuhost.cuh, included before the source */
  size_t header_size;
  int nopts;
  const char *const *opts;      /* the user's options (NVRTC's spelling) */
  int nnames;
  const char *const *names;     /* kernel name expressions ("scale<float>") */
  int debug;                    /* compile with GPUHOST_DEBUG (bounds reports) */
  const char *arch;             /* what arch() gave */
  int check_only;               /* NVRTC stops after its front end's checks: no image
                                 * (backend_check_compile) */
} GpuCompileJob;

/* What compile makes. Every pointer is malloc'd and owned by whoever holds the image:
 * free it with image_free (backend.c). */
typedef struct GpuImage {
  char *data;                   /* the loadable image: a cubin, or a CPU shared library */
  size_t size;
  char **lowered;               /* nnames strings: what module_function takes for each */
  char *log;                    /* the compiler's messages (on failure too), or NULL */
} GpuImage;
void image_free(GpuImage *img, int nnames);

/* ---- linear algebra and FFTs, through libraries (loaded at first use) ---- */
/* F16: float16 operands and result, computed in float32 (cuBLAS's GemmEx; the CPU backend
 * converts to float32 around its BLAS's sgemm); gemm only */
typedef enum { GPU_NUM_F32, GPU_NUM_F64, GPU_NUM_C64, GPU_NUM_C128, GPU_NUM_F16 } GpuNumType;

/* C = op(A) op(B), batch times, column-major as BLAS has it: C is m x n (leading dimension
 * ldc), op(A) m x k, op(B) k x n; op transposes when trans is 1, and also conjugates complex
 * elements when it is 2. Batch i's matrices start
 * stride elements after batch i - 1's (a stride of 0: the same matrix for every batch).
 * tf32: float32 may be computed on TF32 tensor cores (faster, 10-bit mantissas). */
typedef struct GpuGemm {
  int type;                      /* GpuNumType */
  int transa, transb, tf32;
  int64_t m, n, k, batch;
  CUdeviceptr a, b, c;
  int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
  CUstream stream;
} GpuGemm;

/* Discrete Fourier transforms over the last `rank` dims (1 to 3, sizes n; for R2C and C2R
 * the real side's) of `batch` C-ordered arrays one after another: C2C (complex to complex,
 * forward with e^-2pi i jk/n, inverse with e^+2pi i jk/n, neither scaled), R2C (real to
 * the n[rank-1]/2 + 1 first complex values of the last dim), C2R (their inverse, which may
 * overwrite its input). */
typedef enum { GPU_FFT_C2C, GPU_FFT_R2C, GPU_FFT_C2R } GpuFftKind;
typedef struct GpuFft {
  int kind, dbl, inverse, rank;  /* dbl: float64 parts, else float32 */
  int64_t n[3], batch;
  CUdeviceptr in, out;
  CUstream stream;
} GpuFft;

/* Dense linear algebra: one LAPACK routine on one column-major matrix a (m x n, leading
 * dimension m) of `type`, queued on `stream`. a is overwritten with:
 *   GETRF  its LU factors, the pivots in ipiv (min(m, n) int32, 1-based, LAPACK's);
 *   GETRS  (a: GETRF's factors, n x n) nothing: b (n x k) becomes the solution x of
 *          a x = b (a^T x = b when `trans`);
 *   POTRF  L of a = L L^H, in its lower triangle (the upper one is left as it was);
 *   GEQRF  R in and above the diagonal, Q's reflectors below it, their factors in tau
 *          (min(m, n) of them);
 *   ORGQR  (a: m x n, m >= n >= k, its first k columns GEQRF's reflectors, tau their
 *          factors) Q's first n columns;
 *   SYEVD  (Hermitian, its lower triangle read) the eigenvectors when `vectors`; the
 *          eigenvalues go to w (real, ascending);
 *   GESVD  (m >= n) anything: the singular values go to w (real, descending) and, when
 *          `vectors`, U to u (m x m when `full`, else m x n) and V^H to vt (n x n);
 *   GEEV   (square) anything: the eigenvalues go to w (n complex numbers of a's precision,
 *          a conjugate pair of a real a's with the positive imaginary part first) and,
 *          when `vectors`, the right eigenvectors to vt (n x n, a's type, norm 1; of a real
 *          a's pair j, j+1: columns j + i * column j+1 and its conjugate, as LAPACK's);
 *   INV    (square) its LU factors and pivots, as GETRF's; b (n x n) becomes a's inverse
 *          (GETRS of the identity; a batch on the GPU: cuBLAS's getriBatched), anything
 *          where GETRF's status is not 0.
 * The status goes to *info (an int32 on the device): 0, or LAPACK's info: i > 0 where
 * GETRF met U(i,i) = 0, POTRF a minor not positive definite, SYEVD, GESVD and GEEV no
 * convergence. workspace gives the bytes of device memory the call needs, which the
 * caller passes as work. `batch` is the number of matrices of the call: 1, or more where
 * the backend's linalg_batched said it takes them in one call (each array then holds
 * them one after another, each at its one matrix's size, and info has batch statuses). */
typedef enum { GPU_LA_GETRF, GPU_LA_GETRS, GPU_LA_POTRF, GPU_LA_GEQRF, GPU_LA_ORGQR,
               GPU_LA_SYEVD, GPU_LA_GESVD, GPU_LA_GEEV, GPU_LA_INV } GpuLaOp;
typedef struct GpuLinalg {
  int op, type;                  /* GpuLaOp, GpuNumType */
  int vectors, full, trans;
  int64_t m, n, k, batch;
  CUdeviceptr a, b, ipiv, tau, w, u, vt, info, work;
  size_t work_bytes;
  CUstream stream;
} GpuLinalg;

/* ---- the table ----
 * Unless a member says otherwise, it acts on the current device (use_device sets it;
 * ensure_context makes device 0 current when none is), returns GPU_OK or the CUresult a
 * GPU would give, and does not block the host past queuing the work. Device pointers,
 * modules and functions belong to the device that was current when they were made. */
typedef struct GpuBackend {
  const char *name;             /* "cuda" or "cpu": what gpu.backend() says */
  const char *compiler;         /* "nvrtc" or "c++": where freshly compiled code came from */
  int pinned_host;              /* host_alloc gives page-locked memory */

  /* Devices. device_count and device_info load the driver if needed and fail with
   * GPU_SRC_HOST codes (detail: why) when it cannot be loaded. */
  GpuResult (*device_count)(int *n);
  GpuResult (*device_info)(int ordinal, GpuDeviceInfo *info);
  /* Makes ordinal current (creating its context on first use); CUDA_ERROR_INVALID_DEVICE
   * for an ordinal out of range. */
  GpuResult (*use_device)(int ordinal);
  GpuResult (*ensure_context)(void);
  /* Before the device is first used: use context (a CUcontext of the embedding program's,
   * which keeps owning it) for it, instead of the device's primary context.
   * CUDA_ERROR_INVALID_VALUE when the device already has one in use. NULL where there are
   * no contexts (the CPU backend). */
  GpuResult (*adopt_context)(int ordinal, void *context);
  int (*current_device)(void);  /* 0 until use_device made another current (whether or not
                                 * a context was made yet: ensure_context makes one) */
  /* Blocks until the current device is idle. Waits (this, stream_synchronize,
   * event_synchronize, and htod/dtoh behind a running kernel) poll backend_interrupted. */
  GpuResult (*synchronize)(void);
  GpuResult (*mem_info)(size_t *free_bytes, size_t *total_bytes);

  /* Memory. alloc gives n > 0 bytes of device memory (aligned to 256 bytes) ordered
   * after the work already queued; CUDA_ERROR_OUT_OF_MEMORY when there is none. free
   * takes the device the pointer was allocated on and may switch devices to free it
   * (the current device is restored). host_alloc/host_free: host memory for copies. */
  GpuResult (*alloc)(CUdeviceptr *p, size_t n);
  GpuResult (*free)(CUdeviceptr p, int device);
  /* Gives the memory a device's pool keeps for reuse back to the driver, once the work
   * queued before it is done (device.c calls it when an allocation fails, then tries
   * again, and for gpu.empty_cache()); a device without a context is left alone (the CPU
   * backend's memory is the process's: it gives back what any device kept). NULL where
   * freed memory is not kept. */
  GpuResult (*trim)(int device);
  /* device.c tells what the arrays of device hold, after an allocation or a free that
   * reached alloc or free: a pool that gives memory back past a synchronization keeps
   * that much plus its margin (CUDA: the release threshold). NULL: nothing to tell. */
  void (*hold)(int device, size_t held);
  /* Whether memory freed on device now could be handed out again at once, with no free
   * queued: 1 when every stream's work that might still use it comes before the next work
   * any stream queues (on CUDA: the last work queued went to the legacy default stream,
   * which every stream of gpuhost's waits for and which waits for them; no capture runs).
   * device.c then keeps small freed blocks for the next allocation of their size. NULL:
   * never (the CPU backend). */
  int (*ordered)(int device);
  GpuResult (*host_alloc)(void **p, size_t n);
  GpuResult (*host_free)(void *p);
  /* Copies. htod and dtoh block until the copy (and the work before it) is done; dtod and
   * memset0 are queued like a kernel. */
  GpuResult (*htod)(CUdeviceptr dst, const void *src, size_t n);
  GpuResult (*dtoh)(void *dst, CUdeviceptr src, size_t n);
  GpuResult (*dtod)(CUdeviceptr dst, CUdeviceptr src, size_t n);
  GpuResult (*memset0)(CUdeviceptr p, size_t n);
  /* Copies queued on stream (NULL: the default stream) after the work queued there before;
   * the host does not wait for them. Host memory from host_alloc (pinned) is read or
   * written when the stream reaches the copy, so it must stay allocated until then; other
   * host memory may be copied before the call returns (the CUDA driver stages pageable
   * memory; the CPU backend always copies at once). */
  GpuResult (*htod_async)(CUdeviceptr dst, const void *src, size_t n, CUstream stream);
  GpuResult (*dtoh_async)(void *dst, CUdeviceptr src, size_t n, CUstream stream);
  GpuResult (*dtod_async)(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream stream);
  /* n bytes from src on device src_dev to dst on device dst_dev, queued on stream (which
   * belongs to one of the two; NULL: src_dev's default stream) after the work queued
   * before on both devices' default streams, and before what they are given after it.
   * Peer access is enabled for the pair when the hardware allows it; otherwise the driver
   * stages the copy through the host. May change the current device (callers restore). */
  GpuResult (*peer_copy)(CUdeviceptr dst, int dst_dev, CUdeviceptr src, int src_dev, size_t n,
                         CUstream stream);

  /* Compiling. arch writes what compile targets now ("sm_90", "cpu-x86_64"), and
   * compiler_id a line naming the compiler (path, size, date): both go into cache keys.
   * compile empties *out before anything can fail, then fills it (also on failure: the
   * log); it fails with NVRTC's code or GPU_ERR_CPU_COMPILE / GPU_ERR_CPU_UNSUPPORTED, or
   * a GPU_SRC_HOST result when NVRTC cannot be loaded; it needs no device. */
  GpuResult (*arch)(char *out, size_t n);
  GpuResult (*compiler_id)(char *out, size_t n);
  GpuResult (*compile)(const GpuCompileJob *job, GpuImage *out);
  /* Modules. module_load loads an image on the current device (CUDA_ERROR_INVALID_IMAGE,
   * detail: why, when it cannot); module_function takes an entry of img->lowered;
   * module_global finds a __device__ variable (CUDA_ERROR_NOT_FOUND when none). */
  GpuResult (*module_load)(CUmodule *m, const GpuImage *img);
  GpuResult (*module_unload)(CUmodule m);
  GpuResult (*module_function)(CUfunction *f, CUmodule m, const char *lowered);
  GpuResult (*module_global)(CUdeviceptr *p, size_t *n, CUmodule m, const char *name);
  /* The size of parameter i, or -1 past the last; *known = 0 when the backend cannot say. */
  GpuResult (*param_size)(CUfunction f, int i, long *size, int *known);
  /* Launches f; params[i] points to argument i. CUDA queues it on stream (NULL: the
   * default stream); the CPU backend runs it before returning, and a fault or an
   * unsupported feature fails with CUDA_ERROR_ILLEGAL_ADDRESS or GPU_ERR_CPU_UNSUPPORTED
   * and a detail naming the block and thread. */
  GpuResult (*launch)(CUfunction f, const unsigned grid[3], const unsigned block[3],
                      unsigned shared, CUstream stream, void **params);
  /* Blocks of `threads` threads of f that a multiprocessor holds at once (f's registers
   * and shared memory allow), 0 where unknown. NULL: unknown (the CPU backend). */
  int (*occupancy)(CUfunction f, unsigned threads);

  /* Streams order with the default stream, as CUDA's blocking streams do. */
  GpuResult (*stream_create)(CUstream *s);
  GpuResult (*stream_destroy)(CUstream s);
  GpuResult (*stream_synchronize)(CUstream s);
  GpuResult (*event_create)(CUevent *e);
  GpuResult (*event_destroy)(CUevent e);
  GpuResult (*event_record)(CUevent e, CUstream s);
  GpuResult (*event_synchronize)(CUevent e);
  /* Milliseconds between two recorded events; CUDA_ERROR_INVALID_HANDLE if one was never
   * recorded. */
  GpuResult (*event_elapsed)(float *ms, CUevent a, CUevent b);

  /* The description of a CUresult newer than the cuda.h gpuhost was built with, or NULL
   * (a static string). May be NULL itself. */
  const char *(*describe)(int code);

  /* Profiler ranges and marks (NVTX on CUDA; NULL where there is no profiler to tell, as
   * on the CPU backend). trace(1) makes the backend name each launch and copy as a range
   * too. None of them fails. */
  void (*range_push)(const char *name);
  void (*range_pop)(void);
  void (*mark)(const char *name);
  void (*trace)(int on);

  /* Graphs. capture_begin starts recording on the current device: until capture_end, what
   * would go to the default stream (launches and device-to-device copies and fills with no
   * stream) is recorded, not run, and a stream given to a launch joins the recording.
   * Allocations, frees and copies to the device still happen at once. Synchronizations,
   * event records and copies to the host fail with GPU_ERR_NOT_CAPTURABLE (the capture
   * goes on). capture_end ends the capture (also to abandon it) and gives its graph, or
   * NULL and a failure. graph_update gives exec the parameters of graph when graph has
   * exec's topology (*updated 1), else leaves exec as it was (*updated 0). graph_launch
   * runs exec on stream s (NULL: the default stream), as a launch is run. graph_destroy
   * takes either or both. */
  GpuResult (*capture_begin)(void);
  GpuResult (*capture_end)(CUgraph *graph);
  GpuResult (*graph_instantiate)(CUgraphExec *exec, CUgraph graph);
  GpuResult (*graph_update)(CUgraphExec exec, CUgraph graph, int *updated);
  GpuResult (*graph_launch)(CUgraphExec exec, CUstream s);
  GpuResult (*graph_destroy)(CUgraph graph, CUgraphExec exec);

  /* Collectives: NCCL (libnccl.so.2, loaded at the first call: GPU_ERR_NO_NCCL when it
   * cannot be) on CUDA; host memory in one process and MPI between processes on the CPU.
   * comm_id makes the unique id rank 0 gives the others (through MPI). comm_init_all
   * makes n communicators over devices[0..n-1] of this process (rank i on devices[i]);
   * comm_init_rank one for rank `rank` of nranks processes on device `device`, made by
   * every rank (the CPU backend gives each an MPI communicator of its own). Each
   * collective is queued like a kernel, on the device of its communicator (made current).
   * group_start/group_end bracket calls that must be issued together (NCCL's groups; a
   * send and its recv in one process). comm_check fails with GPU_ERR_COMM_FAILED, and
   * aborts every communicator of the process, once one has broken: NCCL's asynchronous
   * error, a peer process that is gone, or a last collective unfinished for longer than
   * the timeout; the CUDA backend's waits call it while they wait. comm_abort ends a
   * communicator without waiting for anyone; comm_destroy frees one whose work is done
   * (it may not block). comm_version gives the library's version code (NCCL's 22803 for
   * 2.28.3), loading it; 0 where there is none (the CPU backend). */
  GpuResult (*comm_id)(GpuCommId *id);
  GpuResult (*comm_init_all)(GpuComm **comms, int n, const int *devices);
  GpuResult (*comm_init_rank)(GpuComm **comm, int nranks, int rank, const GpuCommId *id,
                              int device);
  GpuResult (*coll)(GpuComm *comm, const GpuCollArgs *args);
  GpuResult (*group_start)(void);
  GpuResult (*group_end)(void);
  GpuResult (*comm_check)(GpuComm *comm);
  GpuResult (*comm_abort)(GpuComm *comm);
  GpuResult (*comm_destroy)(GpuComm *comm);
  GpuResult (*comm_version)(int *version);

  /* Matrix products (GpuGemm), queued on g->stream like a kernel: cuBLAS on the GPU
   * (libcublas.so.13), a CBLAS on the CPU backend (OpenBLAS's libopenblas.so.0, else
   * Debian's libblas.so.3). The library is loaded at the first call; when it cannot be,
   * GPU_ERR_NO_LIBRARY, with a detail naming it and the package that has it, and every
   * other member goes on working. A failed call is GPU_ERR_LIBRARY (detail: the call and
   * the library's status). */
  GpuResult (*gemm)(const GpuGemm *g);
  /* FFTs (GpuFft), queued on f->stream: cuFFT on the GPU (libcufft.so.12 of CUDA 13, or
   * .11), FFTW on the CPU backend (libfftw3.so.3, libfftw3f.so.3); plans made at the first
   * transform of a shape and kept (16 a device, the least recently used dropped). Library
   * failures as gemm's. */
  GpuResult (*fft)(const GpuFft *f);
  /* Dense linear algebra (GpuLinalg): cuSOLVER on the GPU (libcusolver.so.12), LAPACK on
   * the CPU backend (OpenBLAS's libopenblas.so.0, else liblapack.so.3), loaded at the
   * first call; failures as gemm's. linalg_workspace sets *bytes to the device workspace
   * l needs (l->work unused). */
  GpuResult (*linalg_workspace)(const GpuLinalg *l, size_t *bytes);
  GpuResult (*linalg)(const GpuLinalg *l);
  /* Whether linalg takes l (its batch 1) for `batch` matrices in one call, where a batched
   * routine beats a call a matrix (small GETRF, GETRS, INV and POTRF on the GPU: cuBLAS's
   * and cuSOLVER's batched ones). NULL: never. */
  int (*linalg_batched)(const GpuLinalg *l, int64_t batch);
} GpuBackend;

/* Set (to 1) by the host program's SIGINT handler, asynchronously. A backend that waits
 * long (a CPU launch, a GPU synchronize) polls it and, finding it set, clears it and fails
 * with GPU_ERR_INTERRUPTED; backend_take_interrupt does both. */
extern volatile sig_atomic_t backend_interrupted;
int backend_take_interrupt(void);   /* 1 (and cleared) when an interrupt was pending */

/* The CPU backend's check of a kernel source with NVRTC, so that a kernel a GPU would
 * refuse is refused on the CPU too, with NVRTC's own error. backend_check_enabled: 1 when
 * the CPU backend runs and GPUHOST_CHECK is unset or 1, 0 on the CUDA backend or with
 * GPUHOST_CHECK=0, -1 (and *why) for any other GPUHOST_CHECK. backend_check_compile
 * compiles job with NVRTC for its default architecture: GPU_OK when it compiles or when
 * NVRTC cannot be loaded here, else NVRTC's failure with its messages in out->log (free
 * out with image_free). backend_check_id: the NVRTC that checks, for cache keys ("no
 * NVRTC" where none is found: a kernel compiled unchecked is not taken for a checked one). */
int backend_check_enabled(const char **why);
GpuResult backend_check_compile(const GpuCompileJob *job, GpuImage *out);
const char *backend_check_id(void);

/* The two implementations; only backend.c names them. */
extern const GpuBackend cuda_backend, cpu_backend;

/* The backend of this process, chosen at the first GPU call: GPU_BACKEND=cpu or cuda, or
 * the CUDA driver when it finds a device and the CPU otherwise (saying so on stderr). */
const GpuBackend *backend_get(void);
/* What GPU_BACKEND asks for: "cuda", "cpu", "" (unset or empty: choose), or NULL when it is
 * anything else (an error: no backend is chosen for it). */
const char *backend_wanted(void);

#endif
