/* cpu_internal.h: what the CPU backend's files share. How it runs a launch:
 *   pool.c    spreads the blocks over worker threads and catches faults;
 *   sched.c   runs a block: its threads on fibers, resolving barriers and warp functions;
 *   fiber.c   the fibers themselves (a context switch of our own on x86-64);
 *   mem.c     device memory between guard pages;
 *   compile.c CUDA C to a shared library with the host's C++ compiler;
 *   module.c  loading that library from memory;
 *   devices.c its devices (GPUHOST_CPU_DEVICES of them, each the machine);
 *   coll.c    collectives: in host memory within a process, over MPI between processes;
 *   cpu.c     the backend table, streams and events.
 * The kernel library's side of the runtime is kernels/gpuhost_cpu_abi.h. */
#ifndef GPUHOST_CPU_INTERNAL_H
#define GPUHOST_CPU_INTERNAL_H

#include <setjmp.h>
#include <stdatomic.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#include "backend.h"
#include "gpuhost_cpu_abi.h"

#define MAX_BLOCK_THREADS 1024
#define MAX_SHARED (48 * 1024)      /* what a launch may ask without opting in, as on a GPU */
#define FIBER_STACK (256 * 1024)
#define ALT_STACK (64 * 1024)

/* ---- modules (module.c) ---- */
typedef struct CpuModule CpuModule;
typedef struct CpuFunction { CpuModule *module; const gpuhost_entry *entry; } CpuFunction;
struct CpuModule {
  void *dl;
  int fd;                      /* the memfd it was loaded from: open while it is, so that
                                * its /proc/self/fd path names no other library */
  int nentries;
  CpuFunction *functions;
};

/* ---- fibers (fiber.c) ---- */
typedef struct Fiber {
  void *sp;
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
  char *stack;
  int thread;                 /* the thread it runs, -1 between threads */
  int state;                  /* FIBER_* */
  int op, arg, width, pred;   /* what it is parked in */
  unsigned mask;
  unsigned long long value, result;
  struct Fiber *next_free;
} Fiber;
enum { FIBER_RUNNING, FIBER_PARKED_BLOCK, FIBER_PARKED_WARP, FIBER_DONE };

/* ---- a launch and the threads that run it (pool.c) ---- */
typedef struct Job {
  const CpuFunction *fn;
  void **args;
  gpuhost_uint3 grid, block;
  unsigned shared;
  long nblocks;
  atomic_long next_block;
  atomic_int failed;
  int nworkers;
  GpuResult result;            /* the first failure, written by the worker that set failed */
  char detail[400];
} Job;

typedef struct Worker {
  int id;
  Job *job;
  gpuhost_thread_state *tls;   /* the kernel library's thread-local indices, on this thread */
  void *sched_sp;              /* the scheduler's context while a fiber runs */
#if !defined(__x86_64__)
  ucontext_t sched_uc;
#endif
  Fiber *current;
  Fiber *free_fibers;
  Fiber **parked;              /* by thread, while parked */
  gpuhost_block blk;           /* the running block's threads: which are started, done */
  Fiber **block_fibers;        /* every fiber the block used, to reclaim after a fault */
  int nblock_fibers;
  void *shared;                /* extern __shared__ memory of the running block */
  size_t shared_cap;
  sigjmp_buf jb;
  volatile int in_kernel;
  void *fault_addr;
  char message[200];           /* why the block stopped, for unsupported and deadlocks */
  char *altstack;
} Worker;

extern _Thread_local Worker *cpu_self;   /* the worker this thread is */

/* fiber.c */
Fiber *fiber_new(Worker *w);               /* NULL when no stack could be mapped */
void fiber_release(Worker *w, Fiber *f);
void fiber_switch_to(Worker *w, Fiber *f); /* runs f until it parks or finishes */
void fiber_yield(Worker *w, Fiber *f);     /* back to w's scheduler */

/* sched.c */
extern const gpuhost_runtime cpu_runtime;
void run_block(Worker *w, long b);         /* siglongjmps to w->jb when the block stops */

/* pool.c, mem.c, module.c, compile.c: the table's members */
GpuResult cpu_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, CUstream stream, void **params);
GpuResult cpu_alloc(CUdeviceptr *p, size_t n);
GpuResult cpu_free(CUdeviceptr p, int device);
GpuResult cpu_host_alloc(void **p, size_t n);
GpuResult cpu_host_free(void *p);
GpuResult cpu_htod(CUdeviceptr dst, const void *src, size_t n);
GpuResult cpu_dtoh(void *dst, CUdeviceptr src, size_t n);
GpuResult cpu_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n);
GpuResult cpu_memset0(CUdeviceptr p, size_t n);
GpuResult cpu_module_load(CUmodule *m, const GpuImage *img);
GpuResult cpu_module_unload(CUmodule m);
GpuResult cpu_module_function(CUfunction *f, CUmodule m, const char *lowered);
GpuResult cpu_module_global(CUdeviceptr *p, size_t *n, CUmodule m, const char *name);
GpuResult cpu_param_size(CUfunction f, int i, long *size, int *known);
GpuResult cpu_arch(char *out, size_t n);
GpuResult cpu_compiler_id(char *out, size_t n);
GpuResult cpu_compile(const GpuCompileJob *job, GpuImage *out);

/* graph.c: the table's members that a capture records or refuses */
GpuResult cpu_rec_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                         unsigned shared, CUstream stream, void **params);
GpuResult cpu_rec_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n);
GpuResult cpu_rec_memset0(CUdeviceptr p, size_t n);
GpuResult cpu_rec_dtoh(void *dst, CUdeviceptr src, size_t n);
GpuResult cpu_rec_event_record(CUevent e, CUstream s);
GpuResult cpu_rec_synchronize(void);
GpuResult cpu_rec_stream_synchronize(CUstream s);
GpuResult cpu_rec_event_synchronize(CUevent e);
GpuResult cpu_capture_begin(void);
GpuResult cpu_capture_end(CUgraph *graph);
GpuResult cpu_graph_instantiate(CUgraphExec *exec, CUgraph graph);
GpuResult cpu_graph_update(CUgraphExec exec, CUgraph graph, int *updated);
GpuResult cpu_graph_launch(CUgraphExec exec, CUstream s);
GpuResult cpu_graph_destroy(CUgraph graph, CUgraphExec exec);
GpuResult cpu_event_record(CUevent e, CUstream s);   /* cpu.c */

/* devices.c */
GpuResult cpu_device_count(int *n);
GpuResult cpu_device_info(int ordinal, GpuDeviceInfo *info);
GpuResult cpu_use_device(int ordinal);
GpuResult cpu_ensure_context(void);
int cpu_current_device(void);
GpuResult cpu_peer_copy(CUdeviceptr dst, int dst_dev, CUdeviceptr src, int src_dev, size_t n,
                        CUstream stream);

/* coll.c */
GpuResult cpu_comm_id(GpuCommId *id);
GpuResult cpu_comm_init_all(GpuComm **comms, int n, const int *devices);
GpuResult cpu_comm_init_rank(GpuComm **comm, int nranks, int rank, const GpuCommId *id, int device);
GpuResult cpu_coll(GpuComm *comm, const GpuCollArgs *args);
GpuResult cpu_group_start(void);
GpuResult cpu_group_end(void);
GpuResult cpu_comm_check(GpuComm *comm);
GpuResult cpu_comm_abort(GpuComm *comm);
GpuResult cpu_comm_destroy(GpuComm *comm);
/* blas.c: matrix products through a CBLAS (the table's gemm) */
GpuResult cpu_gemm(const GpuGemm *g);
GpuResult cpu_fft(const GpuFft *f);    /* fft.c: FFTW */

/* cpu.c: r with a detail written into this thread's buffer (printf format) */
GpuResult cpu_fail(GpuResult r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
