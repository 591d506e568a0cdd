/* cpu_internal.h: what the CPU backend's files share. How it runs a launch:
 *   pool.c    spreads the blocks over worker threads in chunks and catches faults;
 *   sched.c   runs a block's threads on fibers, resolving barriers and warp functions;
 *   fiber.c   the fibers themselves (a context switch of our own on x86-64);
 *   mem.c     device memory (guarded mappings, packed small arrays) and the device heap;
 *   compile.c CUDA C to a shared library with the host's C++ compiler, under a time limit;
 *   prelude.c the compiler, its flags and the headers every kernel includes;
 *   source.c  what the compiler is given (the source rewritten, the loops, the entry table)
 *             and what it reports back (frame sizes, vectorised loops);
 *   scan.c    which kernels reach a barrier or warp function (those run on fibers);
 *   module.c  loading that library from memory;
 *   devices.c its devices (GPUHOST_CPU_DEVICES of them, each the machine);
 *   coll.c    collectives: in host memory within a process, over MPI between processes;
 *   cpu.c     the backend table, streams and events.
 * The kernel library's side of the runtime is kernels/gpuhost_cpu_abi.h. */
#ifndef GPUHOST_CPU_INTERNAL_H
#define GPUHOST_CPU_INTERNAL_H

#include <elf.h>
#include <setjmp.h>
#include <stdatomic.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#include "backend.h"
#include "gpuhost_cpu_abi.h"

#define MAX_BLOCK_THREADS 1024
#define MAX_SHARED (48 * 1024)        /* shared memory a block may have, as on a GPU */
#define FIBER_STACK (256 * 1024)      /* a fiber's stack when the kernel's frames are small
                                       * (the first 16 KiB of it are left for cache colouring) */
#define MAX_FRAME (16L * 1024 * 1024) /* the largest stack frame a kernel may have */
#define ALT_STACK (64 * 1024)
#define DEVICE_HEAP (8L * 1024 * 1024) /* device malloc's heap, as CUDA's default */

/* ---- modules (module.c) ---- */
typedef struct CpuModule CpuModule;
typedef struct CpuFunction {
  CpuModule *module;
  const gpuhost_entry *entry;
  int variant;                 /* 0: entry->loops runs its blocks; -1: fibers only */
  size_t stack;                /* a fiber's stack, from the library's largest frame */
  size_t guard;                /* the guard below it: larger than any frame */
  size_t static_shared;        /* the library's static __shared__ (thread-local) bytes */
  char label[64];              /* the kernel's name, for a fault in a graph's replay ("" if
                                * its lowered name has none) */
} CpuFunction;
struct CpuModule {
  void *dl;
  int nentries;
  CpuFunction *functions;
};

/* What compile.c learns of a library and module.c reads back from its lowered names. */
typedef struct CpuLibraryInfo {
  size_t max_frame, static_shared;
  int dynamic_frames;          /* some frame has a size only known when it runs */
} CpuLibraryInfo;

/* ---- fibers (fiber.c) ---- */
typedef struct Fiber {
  void *sp;                    /* what a switch touches first, together */
  int thread;                  /* the thread it runs (its own for the launch), -1: the loops */
  const gpuhost_entry *entry;  /* the kernel whose run_thread it is in */
  int state;                   /* FIBER_* */
  unsigned long long result;
  gpuhost_uint3 index;         /* the thread's threadIdx */
  int op, arg, width, pred;    /* what it is parked in */
  unsigned mask;
  unsigned long long value;
  struct Fiber *next_free;
  char *map;                   /* the mapping: guard, then stack, then this record */
  size_t map_size, guard;
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
} Fiber;
/* PARKED_MASK: in __activemask(), until every thread is parked or returned. AT_END: its
 * thread returned; it waits for the next block (or launch) to run its thread there. IDLE:
 * the loops' fiber, between chunks. DONE: abandoned by a stopped block. */
enum { FIBER_RUNNING, FIBER_PARKED_BLOCK, FIBER_PARKED_WARP, FIBER_PARKED_MASK, FIBER_AT_END,
       FIBER_IDLE, FIBER_DONE };

/* Why a block stopped, before it is said where. */
typedef struct Stop {
  GpuResult result;
  char message[300];
} Stop;

/* ---- a launch and the threads that run it (pool.c) ---- */
typedef struct Job {
  const CpuFunction *fn;
  int variant;                 /* fn's loops to run: fn->variant, or 0 where the grid's
                              * x extent does not fit the int loop */
  gpuhost_launch launch;
  unsigned shared;
  long nblocks, chunk;
  int threads;                 /* per block */
  atomic_long next_block;
  volatile int stop;           /* launch.stop: set with failed */
  atomic_int failed;
  int nworkers;
  GpuResult result;            /* the first failure, written by the worker that set failed */
  char detail[480];
} Job;

typedef struct Worker {
  int id;
  Job *job;
  gpuhost_launch launch;       /* the job's, with this worker's block record */
  volatile long block;         /* the block the loops entered last (linear) */
  void *sched_sp;              /* the scheduler's context while a fiber runs */
  int from_sched;              /* a fiber is being switched to from the scheduler */
  const void *sched_bottom;    /* the scheduler's stack, for ASan */
  size_t sched_size;
#if !defined(__x86_64__)
  ucontext_t sched_uc;
#endif
  Fiber *current;
  Fiber *free_fibers;          /* abandoned ones, to start afresh */
  unsigned fibers_made;
  int fast;                    /* running the loop path: a fiber runs whole blocks */
  long last;                   /* the chunk runs blocks w->block .. last-1 */
  Fiber *loop_fiber;           /* the loop path's fiber */
  /* the fiber path: a fiber for each thread, kept from block to block and launch to
   * launch (for kernels with the same block size and stack) */
  Fiber **thread_fiber;
  int nthread_fibers;          /* how many exist, with these: */
  size_t fiber_stack, fiber_guard;
  gpuhost_uint3 fiber_dims;
  gpuhost_block blk;           /* the block, and the thread that starts (for the library) */
  int nthreads, finished, current_thread;
  unsigned char *done;         /* by thread: it returned */
  unsigned char *warp_done;    /* by warp: lanes returned */
  unsigned char *warp_waiting; /* by warp: lanes waiting in a warp function */
  int nmask;                   /* threads waiting in __activemask() */
  Fiber **ready;               /* a ring of fibers ready to resume */
  int rhead, rcount;
  Fiber **at_barrier;          /* fibers waiting at the barrier, in arrival order */
  int nbarrier;
  int bar_op, bar_count, bar_all, bar_any;
  /* extern __shared__ memory: the end of a mapping, before a guard page */
  char *shared_map, *shared;
  size_t shared_map_size, shared_cap;
  /* stopping */
  sigjmp_buf jb;
  volatile int in_kernel;
  Stop stop;
  char *altstack;
} Worker;

extern _Thread_local Worker *cpu_self;   /* the worker this thread is */

/* fiber.c. fiber_new gives a fiber that starts in fiber_main (NULL when none could be
 * mapped); fiber_release takes back one that will not be resumed. */
Fiber *fiber_new(Worker *w, size_t stack, size_t guard);
void fiber_release(Worker *w, Fiber *f);
void fiber_free_all(Worker *w);               /* unmaps the released fibers */
void fiber_unmap(Fiber *f);
/* Under AddressSanitizer every switch between stacks is announced (fiber.c), or ASan takes
 * a fiber's stack for the worker's and reports false errors. */
#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#ifdef FIBER_ASAN
void fiber_asan_to(Worker *w, const Fiber *to);   /* before a switch to to (NULL: the scheduler) */
void fiber_asan_on(Worker *w);                    /* after it, on the stack switched to */
#else
#define fiber_asan_to(w, to) ((void)0)
#define fiber_asan_on(w) ((void)0)
#endif
void fiber_after_jump(Worker *w);   /* on the worker's stack again, by siglongjmp */
#if defined(__x86_64__)
void gpuhost_fiber_switch(void **save, void *load);
/* From the scheduler: runs f until one of the block's fibers switches back. */
static inline void fiber_run(Worker *w, Fiber *f) {
  w->from_sched = 1;
  fiber_asan_to(w, f);
  gpuhost_fiber_switch(&w->sched_sp, f->sp);
  fiber_asan_on(w);
}
/* From fiber `from` to `to`, or to the scheduler when to is NULL. */
static inline void fiber_switch(Worker *w, Fiber *from, Fiber *to) {
  /* to itself (a block of one thread going on to the next block): nothing to do; switching
   * would load the stack pointer saved the last time it left, and resume there */
  if (from == to) return;
  fiber_asan_to(w, to);
  gpuhost_fiber_switch(&from->sp, to ? to->sp : w->sched_sp);
  fiber_asan_on(w);
}
#else
void fiber_run(Worker *w, Fiber *f);
void fiber_switch(Worker *w, Fiber *from, Fiber *to);
#endif
int fiber_in_guard(const Fiber *f, const void *addr);   /* addr is below f's stack */

/* sched.c. run_blocks runs blocks first..last-1 of w's job on fibers, run_loops on the
 * loop path; both siglongjmp to w->jb when a block stops. */
extern const gpuhost_runtime cpu_runtime;
void run_blocks(Worker *w, long first, long last);
void run_loops(Worker *w, long first, long last);
void fiber_main(Worker *w, Fiber *f);         /* what a new fiber runs */
void block_stop(Worker *w, GpuResult r, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
int block_prepare(Worker *w);                 /* -1 without memory for the bookkeeping */
void fibers_abandon(Worker *w);               /* after a stop: no fiber will be resumed */
void pool_forget_fibers(void);                /* a library is unloaded: no fiber in it stays */

/* pool.c, mem.c, module.c, compile.c: the table's members */
GpuResult cpu_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, CUstream stream, void **params);
/* pool.c: CUDA_ERROR_INVALID_VALUE for a launch configuration a GPU refuses (graph.c asks
 * while recording, where CUDA refuses it too) */
GpuResult cpu_launch_check(CUfunction f, const unsigned grid[3], const unsigned block[3],
                           unsigned shared);
GpuResult cpu_alloc(CUdeviceptr *p, size_t n);
GpuResult cpu_free(CUdeviceptr p, int device);
GpuResult cpu_trim(int device);               /* unmaps the freed mappings mem.c keeps */
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
GpuResult cpu_rec_peer(CUdeviceptr dst, CUdeviceptr src, size_t n);
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
long cpu_cores(void);   /* the cores the process may run on (its affinity), at least 1 */
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
GpuResult cpu_linalg_workspace(const GpuLinalg *l, size_t *bytes);   /* lapack.c: LAPACK */
GpuResult cpu_linalg(const GpuLinalg *l);

/* mem.c: the device heap of kernel code's malloc and free */
void *cpu_device_malloc(size_t n, size_t align);   /* NULL when the heap is full */
int cpu_device_free(void *p);                 /* -1: the heap did not give p */

/* prelude.c: the compiler, the flags every compile shares (appended to argv at n: the new
 * count), and the folder of the prelude's headers (made at the first call; NULL if it
 * cannot be) */
const char *cpu_compiler(void);
int prelude_args(char **argv, int n);
const char *prelude_dir(void);

/* source.c: what the compiler gets and reports (compile.c runs it) */
typedef struct Buf Buf;
char *source_strip(const char *s);            /* comments and literals blanked; malloc'd */
void source_rewrite(Buf *out, const char *s); /* extern __shared__ made pointers */
/* the unit; loops[i]: kernel i has loops (it names no barrier or warp function); 0 or -1 */
int source_emit(Buf *src, const GpuCompileJob *job, int *loops);
int source_frames(const char *su, CpuLibraryInfo *info, char *largest, size_t n);
size_t source_static_shared(const char *image, size_t n); /* a kernel's most, at a guess */
/* the section header i of a library's image, or 0 when it lies outside */
int source_section(const char *image, size_t n, const Elf64_Ehdr *eh, size_t i, Elf64_Shdr *sh);
/* NVRTC's and ptxas's limits on parameters and __constant__ data (limits.c): 0, or -1 and why */
int source_limits(const char *image, size_t n, const GpuCompileJob *job, char *msg, size_t nmsg);
int is_ident(char c);
const char *find_word(const char *s, const char *w);   /* w in s as a whole word, or NULL */

/* refuse.c: what the CPU cannot run (in the code the preprocessor keeps), or NULL */
const char *source_refused(const char *source, const GpuCompileJob *job);

/* scan.c: which kernels reach a barrier or warp function */
typedef struct Scan Scan;
Scan *scan_new(const char *stripped, const GpuCompileJob *job);   /* NULL without memory */
int scan_syncs(const Scan *s, const char *decl, const char *name);   /* kernel `name`, declared at decl, does */
void scan_free(Scan *s);

/* cpu.c: r with a detail written into this thread's buffer (printf format) */
GpuResult cpu_fail(GpuResult r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* env_long (util.h) with the message: a whole decimal number from the environment in
 * [lo, hi], def when unset or empty, -1 (and why) when set to anything else. */
long cpu_env_number(const char *name, long lo, long hi, long def, char *why, size_t n);

/* module.c: the lowered name of kernel i of a library with info, and back */
void lowered_name(char *out, size_t n, int index, int variant, const CpuLibraryInfo *info,
                  const char *label);

#endif
