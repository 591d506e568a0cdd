/* cpu.c: the CPU backend. Kernels are the same CUDA C, compiled by the host's C++ compiler
 * ($CXX, else c++) into a shared library with kernels/cpu.h before the source. A launch
 * runs synchronously: its blocks are spread over a pool of worker threads, and each
 * block's threads run as fibers of its worker. A block starts as one fiber that runs its
 * threads one after another as a plain loop; only a thread that reaches a barrier or a
 * warp function parks, and a new fiber takes up the threads not yet started. When every
 * live thread is parked, the barrier (or the warp's exchange) is resolved and the parked
 * threads resume in order. Device memory is mapped with guard pages, so an access through
 * a raw pointer past an allocation faults; the fault is caught and reported as
 * CUDA_ERROR_ILLEGAL_ADDRESS with the kernel, block and thread. */
#undef _FORTIFY_SOURCE   /* siglongjmp leaves a fiber's stack for the worker's own */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dlfcn.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#include "gpu.h"

extern char **environ;

#define MAX_BLOCK_THREADS 1024
#define MAX_SHARED (48 * 1024)      /* what a launch may ask without opting in, as on a GPU */
#define FIBER_STACK (256 * 1024)
#define ALT_STACK (64 * 1024)

/* ---- what the kernel library shares with us (kernels/cpu.h) ---- */
typedef struct GpuhostDim { unsigned x, y, z; } GpuhostDim;
typedef struct GpuhostThreadState { GpuhostDim threadIdx, blockIdx, blockDim, gridDim; } GpuhostThreadState;
/* what kernels read as threadIdx, blockIdx, blockDim, gridDim: in static TLS (the
 * executable's, or gpu.so's, made global when a kernel library is first loaded) */
__attribute__((tls_model("initial-exec"), visibility("default")))
_Thread_local GpuhostThreadState gpuhost_tls;
typedef struct GpuhostRuntime {
  int (*barrier)(int op, int pred);
  unsigned long long (*warp)(int op, unsigned mask, unsigned long long value, int arg, int width);
  void *(*dynamic_shared)(void);
  void (*unsupported)(const char *what);
} GpuhostRuntime;
typedef struct GpuhostBlock {
  int next_unstarted, nthreads, finished, current;
  unsigned char *done;
  unsigned bx, by;
} GpuhostBlock;
typedef struct GpuhostEntry { void (*run)(GpuhostBlock *, void **); int nparams; const long *sizes; } GpuhostEntry;
enum { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ANY, ALL, SYNCWARP, ACTIVEMASK };

typedef struct CpuModule CpuModule;
typedef struct CpuFunction { CpuModule *module; const GpuhostEntry *entry; } CpuFunction;
struct CpuModule {
  void *dl;
  int fd;                      /* the memfd it was loaded from: open while it is, so that
                                * its /proc/self/fd path names no other library */
  int nentries;
  CpuFunction *functions;
};

/* ---- fibers: a context switch of our own on x86-64 (callee-saved registers, the FPU and
 * SSE control words, the stack pointer), ucontext elsewhere ---- */
typedef struct Fiber {
  void *sp;
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
  char *stack;
  int thread;                 /* the thread it runs, -1 between threads */
  int state;                  /* RUNNING, PARKED_BLOCK, PARKED_WARP, DONE */
  int op, arg, width, pred;
  unsigned mask;
  unsigned long long value, result;
  struct Fiber *next_free;
} Fiber;
enum { RUNNING, PARKED_BLOCK, PARKED_WARP, DONE };

#if defined(__x86_64__)
void gpuhost_fiber_switch(void **save, void *load);
void gpuhost_fiber_boot(void);
__asm__(
  ".text\n"
  ".globl gpuhost_fiber_switch\n.hidden gpuhost_fiber_switch\n.type gpuhost_fiber_switch,@function\n"
  "gpuhost_fiber_switch:\n"
  "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
  "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
  "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
  "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
  "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
  "  ret\n"
  ".size gpuhost_fiber_switch, .-gpuhost_fiber_switch\n"
  ".globl gpuhost_fiber_boot\n.hidden gpuhost_fiber_boot\n.type gpuhost_fiber_boot,@function\n"
  "gpuhost_fiber_boot:\n"
  "  movq %r12, %rdi\n  callq *%r13\n  ud2\n"
  ".size gpuhost_fiber_boot, .-gpuhost_fiber_boot\n");
#endif

/* ---- workers ---- */
typedef struct Job {
  const CpuFunction *fn;
  void **args;
  GpuhostDim grid, block;
  unsigned shared;
  long nblocks;
  atomic_long next_block;
  atomic_int failed;
  int nworkers;
  /* the first failure, written by the worker that sets failed */
  GpuResult result;
  char detail[400];
} Job;

typedef struct Worker {
  int id;
  Job *job;
  GpuhostThreadState *tls;     /* the kernel library's thread-local indices, on this thread */
  void *sched_sp;              /* the scheduler's context while a fiber runs */
#if !defined(__x86_64__)
  ucontext_t sched_uc;
#endif
  Fiber *current;
  Fiber *free_fibers;
  Fiber **parked;              /* by thread, while parked */
  GpuhostBlock blk;            /* the running block's threads: which are started, done */
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

static _Thread_local Worker *self;   /* the worker this thread is */

static void fiber_switch_to(Worker *w, Fiber *f);
static void fiber_yield(Worker *w, Fiber *f);

static void set_thread(Worker *w, int t) {
  GpuhostDim b = w->job->block;
  w->tls->threadIdx.x = (unsigned)t % b.x;
  w->tls->threadIdx.y = ((unsigned)t / b.x) % b.y;
  w->tls->threadIdx.z = (unsigned)t / (b.x * b.y);
  w->blk.current = t;
}

/* The body of every fiber: the kernel library's loop over the threads not yet started. */
static void runner(void *arg) {
  Worker *w = arg;
  Fiber *f = w->current;
  w->job->fn->entry->run(&w->blk, w->job->args);
  f->thread = -1;
  f->state = DONE;
  fiber_yield(w, f);
}

#if defined(__x86_64__)
static void fiber_prepare(Fiber *f, Worker *w) {
  uintptr_t top = ((uintptr_t)(f->stack + FIBER_STACK)) & ~(uintptr_t)15;
  uint64_t *a = (uint64_t *)(top - 16);   /* after `ret`, rsp is 16-aligned for the call */
  a[-1] = (uint64_t)(uintptr_t)gpuhost_fiber_boot;
  a[-2] = 0;                              /* rbp */
  a[-3] = 0;                              /* rbx */
  a[-4] = (uint64_t)(uintptr_t)w;         /* r12: the argument */
  a[-5] = (uint64_t)(uintptr_t)runner;    /* r13: the function */
  a[-6] = 0;                              /* r14 */
  a[-7] = 0;                              /* r15 */
  uint32_t csr[2] = {0x1f80, 0x037f};     /* default MXCSR and x87 control word */
  __asm__ volatile("stmxcsr %0" : "=m"(csr[0]));
  memcpy(&a[-8], csr, 8);
  f->sp = &a[-8];
}
static void fiber_switch_to(Worker *w, Fiber *f) { gpuhost_fiber_switch(&w->sched_sp, f->sp); }
static void fiber_yield(Worker *w, Fiber *f) { gpuhost_fiber_switch(&f->sp, w->sched_sp); }
#else
static void fiber_prepare(Fiber *f, Worker *w) {
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = FIBER_STACK;
  f->uc.uc_link = NULL;
  makecontext(&f->uc, (void (*)(void))runner, 1, w);
}
static void fiber_switch_to(Worker *w, Fiber *f) { swapcontext(&w->sched_uc, &f->uc); }
static void fiber_yield(Worker *w, Fiber *f) { swapcontext(&f->uc, &w->sched_uc); }
#endif

static Fiber *fiber_new(Worker *w) {
  Fiber *f = w->free_fibers;
  if (f) {
    w->free_fibers = f->next_free;
  } else {
    f = calloc(1, sizeof *f);
    f->stack = mmap(NULL, FIBER_STACK, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (f->stack == MAP_FAILED) { free(f); return NULL; }
    mprotect(f->stack, 4096, PROT_NONE);   /* a stack overflow faults */
  }
  f->thread = -1;
  f->state = RUNNING;
  fiber_prepare(f, w);
  w->block_fibers[w->nblock_fibers++] = f;
  return f;
}

static void fiber_release(Worker *w, Fiber *f) {
  f->next_free = w->free_fibers;
  w->free_fibers = f;
}

/* Switches to f and back; f has parked or finished when this returns. */
static void resume(Worker *w, Fiber *f) {
  w->current = f;
  f->state = RUNNING;
  if (f->thread >= 0) set_thread(w, f->thread);
  fiber_switch_to(w, f);
  w->current = NULL;
  if (f->state == DONE) fiber_release(w, f);
}

/* Stops the block: unsupported use or a deadlock; the message says which. */
static void block_abort(Worker *w, const char *fmt, const char *what) {
  snprintf(w->message, sizeof w->message, fmt, what);
  siglongjmp(w->jb, 2);
}

/* ---- what kernels call ---- */

static int rt_barrier(int op, int pred) {
  Worker *w = self;
  Fiber *f = w->current;
  f->thread = w->blk.current;
  f->state = PARKED_BLOCK;
  f->op = op;
  f->pred = pred;
  w->parked[f->thread] = f;
  fiber_yield(w, f);
  return (int)f->result;
}

static unsigned long long rt_warp(int op, unsigned mask, unsigned long long value, int arg, int width) {
  Worker *w = self;
  Fiber *f = w->current;
  f->thread = w->blk.current;
  if (op == ACTIVEMASK) {   /* the live threads of this warp; no exchange */
    int base = f->thread / 32 * 32;
    unsigned m = 0;
    for (int l = 0; l < 32 && base + l < w->blk.nthreads; l++)
      if (!w->blk.done[base + l]) m |= 1u << l;
    return m;
  }
  if (width < 1 || width > 32 || (width & (width - 1)))
    block_abort(w, "%s: a warp function's width must be a power of two up to 32", "width");
  f->state = PARKED_WARP;
  f->op = op;
  f->mask = mask;
  f->value = value;
  f->arg = arg;
  f->width = width;
  w->parked[f->thread] = f;
  fiber_yield(w, f);
  return f->result;
}

static void *rt_dynamic_shared(void) { return self->shared; }

static void rt_unsupported(const char *what) {
  block_abort(self, "the CPU backend does not support %s", what);
}

static const GpuhostRuntime runtime = {rt_barrier, rt_warp, rt_dynamic_shared, rt_unsupported};

/* ---- resolving what parked threads wait for ---- */

/* Resolves the first warp whose live threads all wait in a warp function; 1 if one was. */
static int resolve_warp(Worker *w) {
  for (int base = 0; base < w->blk.nthreads; base += 32) {
    int n = w->blk.nthreads - base < 32 ? w->blk.nthreads - base : 32, waiting = 0, op = -1;
    for (int l = 0; l < n; l++) {
      int t = base + l;
      if (w->blk.done[t]) continue;
      Fiber *f = w->parked[t];
      if (f == NULL || f->state != PARKED_WARP) { waiting = -1; break; }
      if (op >= 0 && f->op != op)
        block_abort(w, "%s: threads of one warp wait in different warp functions", "divergence");
      op = f->op;
      waiting++;
    }
    if (waiting <= 0) continue;
    unsigned long long vote = 0;
    int any = 0, all = 1;
    for (int l = 0; l < n; l++) {
      Fiber *f = w->blk.done[base + l] ? NULL : w->parked[base + l];
      if (f && (f->mask >> l & 1)) {
        if (f->value) { vote |= 1ull << l; any = 1; } else all = 0;
      }
    }
    for (int l = 0; l < n; l++) {
      Fiber *f = w->blk.done[base + l] ? NULL : w->parked[base + l];
      if (!f) continue;
      int seg = l / f->width * f->width, src = l;
      switch (op) {
        case SHFL_IDX: src = seg + (f->arg % f->width + f->width) % f->width; break;
        case SHFL_UP: src = l - f->arg >= seg ? l - f->arg : l; break;
        case SHFL_DOWN: src = l + f->arg < seg + f->width ? l + f->arg : l; break;
        case SHFL_XOR: src = (l ^ f->arg) < seg + f->width ? (l ^ f->arg) : l; break;
        default: break;
      }
      Fiber *s = (src < n && !w->blk.done[base + src]) ? w->parked[base + src] : NULL;
      f->result = op <= SHFL_XOR ? (s ? s->value : f->value)
                : op == BALLOT ? vote : op == ANY ? (unsigned long long)any
                : op == ALL ? (unsigned long long)all : 0;
    }
    for (int l = 0; l < n; l++) {
      Fiber *f = w->blk.done[base + l] ? NULL : w->parked[base + l];
      if (f) { w->parked[base + l] = NULL; resume(w, f); }
    }
    return 1;
  }
  return 0;
}

static void resolve_barrier(Worker *w) {
  int count = 0, all = 1, any = 0, op = -1;
  for (int t = 0; t < w->blk.nthreads; t++) {
    if (w->blk.done[t]) continue;
    Fiber *f = w->parked[t];
    if (f == NULL || f->state != PARKED_BLOCK)
      block_abort(w, "%s: some threads wait at __syncthreads() while others wait in a warp function",
                  "deadlock");
    op = f->op;
    count += f->pred != 0;
    all &= f->pred != 0;
    any |= f->pred != 0;
  }
  int result = op == 1 ? count : op == 2 ? all : op == 3 ? any : 0;
  for (int t = 0; t < w->blk.nthreads; t++) {
    Fiber *f = w->blk.done[t] ? NULL : w->parked[t];
    if (f) { f->result = (unsigned long long)result; w->parked[t] = NULL; resume(w, f); }
  }
}

static void run_block(Worker *w, long b) {
  Job *j = w->job;
  w->tls->blockIdx.x = (unsigned)(b % j->grid.x);
  w->tls->blockIdx.y = (unsigned)(b / j->grid.x % j->grid.y);
  w->tls->blockIdx.z = (unsigned)(b / ((long)j->grid.x * j->grid.y));
  w->blk.nthreads = (int)(j->block.x * j->block.y * j->block.z);
  w->blk.next_unstarted = 0;
  w->blk.finished = 0;
  w->nblock_fibers = 0;
  w->blk.bx = j->block.x;
  w->blk.by = j->block.y;
  w->tls->threadIdx.y = w->tls->threadIdx.z = 0;   /* the library's fast path sets only x */
  memset(w->blk.done, 0, (size_t)w->blk.nthreads);
  memset(w->parked, 0, sizeof(Fiber *) * (size_t)w->blk.nthreads);
  while (w->blk.finished < w->blk.nthreads) {
    if (w->blk.next_unstarted < w->blk.nthreads) {
      Fiber *f = fiber_new(w);
      if (f == NULL) block_abort(w, "%s: no memory for a fiber stack", "memory");
      resume(w, f);
    } else if (!resolve_warp(w)) {
      resolve_barrier(w);
    }
  }
}

/* A fault in a kernel: back to the worker's block loop. Any other fault is not ours. */
static void on_fault(int sig, siginfo_t *info, void *uc) {
  (void)uc;
  Worker *w = self;
  if (w && w->in_kernel) {
    w->fault_addr = info->si_addr;
    siglongjmp(w->jb, 1);
  }
  signal(sig, SIG_DFL);   /* returning re-runs the access, which now ends the process */
}

static void run_job(Worker *w, Job *j) {
  w->job = j;
  w->tls = &gpuhost_tls;
  w->tls->blockDim = j->block;
  w->tls->gridDim = j->grid;
  if (j->shared > w->shared_cap) {
    free(w->shared);
    w->shared = aligned_alloc(64, ((size_t)j->shared + 63) / 64 * 64);
    w->shared_cap = j->shared;
  }
  for (;;) {
    long b = atomic_fetch_add(&j->next_block, 1);
    if (b >= j->nblocks || atomic_load(&j->failed)) break;
    int why = sigsetjmp(w->jb, 0);
    if (why == 0) {
      w->in_kernel = 1;
      run_block(w, b);
      w->in_kernel = 0;
      continue;
    }
    w->in_kernel = 0;
    /* the block's fibers are abandoned where they stand: take their stacks back */
    for (int i = 0; i < w->nblock_fibers; i++) {
      Fiber *f = w->block_fibers[i];   /* a reused fiber is listed twice: release it once */
      if (f->state != DONE) { f->state = DONE; fiber_release(w, f); }
    }
    int thread = w->current ? w->blk.current : -1;
    w->current = NULL;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&j->failed, &expected, 1)) break;
    GpuhostDim bi = w->tls->blockIdx;
    char where[120];
    if (thread >= 0)
      snprintf(where, sizeof where, "block (%u, %u, %u) thread (%u, %u, %u)", bi.x, bi.y, bi.z,
               (unsigned)thread % j->block.x, (unsigned)thread / j->block.x % j->block.y,
               (unsigned)thread / (j->block.x * j->block.y));
    else
      snprintf(where, sizeof where, "block (%u, %u, %u)", bi.x, bi.y, bi.z);
    if (why == 1) {
      j->result = (GpuResult){CUDA_ERROR_ILLEGAL_ADDRESS, GPU_SRC_CUDA, "cuLaunchKernel (CPU backend)"};
      snprintf(j->detail, sizeof j->detail, "%s: address %p", where, w->fault_addr);
    } else {
      j->result = (GpuResult){GPU_ERR_CPU_UNSUPPORTED, GPU_SRC_HOST, "cuLaunchKernel (CPU backend)"};
      snprintf(j->detail, sizeof j->detail, "%s: %s", where, w->message);
    }
    break;
  }
}

static Worker *worker_new(int id) {
  Worker *w = calloc(1, sizeof *w);
  w->id = id;
  w->parked = calloc(MAX_BLOCK_THREADS, sizeof(Fiber *));
  w->blk.done = calloc(MAX_BLOCK_THREADS, 1);
  w->block_fibers = calloc(MAX_BLOCK_THREADS + 1, sizeof(Fiber *));
  w->altstack = malloc(ALT_STACK);
  return w;
}

/* Makes the calling thread worker w: its own signal stack, for faults on fiber stacks. */
static void worker_enter(Worker *w) {
  stack_t ss = {.ss_sp = w->altstack, .ss_size = ALT_STACK, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  self = w;
}

static struct {
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  int nthreads;               /* pool threads, besides the caller */
  Worker *caller;
  unsigned long generation;
  int running;
  Job *job;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, -1,
          NULL, 0, 0, NULL};

static void *pool_main(void *arg) {
  Worker *w = arg;
  worker_enter(w);
  unsigned long seen = 0;
  pthread_mutex_lock(&pool.mu);
  for (;;) {
    while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.mu);
    seen = pool.generation;
    Job *j = pool.job;
    pthread_mutex_unlock(&pool.mu);
    if (w->id < j->nworkers) run_job(w, j);
    pthread_mutex_lock(&pool.mu);
    if (--pool.running == 0) pthread_cond_signal(&pool.idle);
  }
  return NULL;
}

/* Starts the pool and the fault handler once: GPUHOST_CPU_THREADS workers, else one a core. */
static void pool_start(void) {
  if (pool.nthreads >= 0) return;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  const char *env = getenv("GPUHOST_CPU_THREADS");
  if (env && atoi(env) > 0) n = atoi(env);
  if (n < 1) n = 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  pool.caller = worker_new(0);
  pool.nthreads = 0;
  for (int i = 1; i < n; i++) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, pool_main, worker_new(i)) == 0) pool.nthreads++;
    pthread_attr_destroy(&attr);
  }
}

static char launch_detail[400];

const char *gpu_backend_detail(void) {
  return launch_detail[0] ? launch_detail : NULL;
}

static GpuResult cpu_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                            unsigned shared, CUstream stream, void **params) {
  (void)stream;   /* streams run in order: the launch is done when this returns */
  launch_detail[0] = '\0';
  unsigned long threads = (unsigned long)block[0] * block[1] * block[2];
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || block[0] == 0 || block[1] == 0 ||
      block[2] == 0 || threads > MAX_BLOCK_THREADS || block[2] > 64 || grid[0] > 0x7fffffffu ||
      grid[1] > 65535 || grid[2] > 65535 || shared > MAX_SHARED)
    return (GpuResult){CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "cuLaunchKernel (CPU backend)"};
  pool_start();
  Job j;
  memset(&j, 0, sizeof j);
  j.fn = (const CpuFunction *)f;
  j.args = params;
  j.grid = (GpuhostDim){grid[0], grid[1], grid[2]};
  j.block = (GpuhostDim){block[0], block[1], block[2]};
  j.shared = shared;
  j.nblocks = (long)grid[0] * grid[1] * grid[2];
  atomic_init(&j.next_block, 0);
  atomic_init(&j.failed, 0);
  j.nworkers = j.nblocks < pool.nthreads + 1 ? (int)j.nblocks : pool.nthreads + 1;
  Worker *me = pool.caller;
  if (self != me) worker_enter(me);   /* the calling thread works too */
  if (j.nworkers > 1) {
    pthread_mutex_lock(&pool.mu);
    pool.job = &j;
    pool.running = pool.nthreads;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
  }
  run_job(me, &j);
  if (j.nworkers > 1) {
    pthread_mutex_lock(&pool.mu);
    while (pool.running > 0) pthread_cond_wait(&pool.idle, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
  }
  if (atomic_load(&j.failed)) {
    snprintf(launch_detail, sizeof launch_detail, "%s", j.detail);
    return j.result;
  }
  return GPU_OK;
}

/* ---- memory: each allocation between guard pages, ending at the one after it ---- */
typedef struct Mapping { char *base; size_t total; uintptr_t data; } Mapping;
static Mapping *maps;
static size_t nmaps, capmaps;
static pthread_mutex_t maps_mu = PTHREAD_MUTEX_INITIALIZER;

static GpuResult cpu_alloc(CUdeviceptr *p, size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (n > (size_t)sysconf(_SC_PHYS_PAGES) * page)   /* more than the machine has, as a GPU would */
    return (GpuResult){CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "mmap (CPU backend)"};
  size_t data = (n + 15) / 16 * 16, body = (data + page - 1) / page * page, total = body + 2 * page;
  char *base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return (GpuResult){CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "mmap (CPU backend)"};
  if (mprotect(base + page, body, PROT_READ | PROT_WRITE) != 0) {
    munmap(base, total);
    return (GpuResult){CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "mprotect (CPU backend)"};
  }
  uintptr_t d = (uintptr_t)(base + page + body - data);
  pthread_mutex_lock(&maps_mu);
  if (nmaps == capmaps) {
    capmaps = capmaps ? 2 * capmaps : 64;
    maps = realloc(maps, capmaps * sizeof *maps);
  }
  maps[nmaps++] = (Mapping){base, total, d};
  pthread_mutex_unlock(&maps_mu);
  *p = (CUdeviceptr)d;
  return GPU_OK;
}

static GpuResult cpu_free(CUdeviceptr p, int device) {
  (void)device;
  pthread_mutex_lock(&maps_mu);
  for (size_t i = nmaps; i-- > 0;)
    if (maps[i].data == (uintptr_t)p) {
      munmap(maps[i].base, maps[i].total);
      maps[i] = maps[--nmaps];
      pthread_mutex_unlock(&maps_mu);
      return GPU_OK;
    }
  pthread_mutex_unlock(&maps_mu);
  return (GpuResult){CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "cuMemFree (CPU backend)"};
}

static GpuResult cpu_host_alloc(void **p, size_t n) {
  *p = malloc(n);
  return *p ? GPU_OK : (GpuResult){CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "malloc (CPU backend)"};
}
static GpuResult cpu_host_free(void *p) { free(p); return GPU_OK; }
static GpuResult cpu_htod(CUdeviceptr dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return GPU_OK;
}
static GpuResult cpu_dtoh(void *dst, CUdeviceptr src, size_t n) {
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return GPU_OK;
}
static GpuResult cpu_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return GPU_OK;
}
static GpuResult cpu_memset0(CUdeviceptr p, size_t n) {
  memset((void *)(uintptr_t)p, 0, n);
  return GPU_OK;
}

/* ---- the device: one, the machine itself ---- */
static GpuResult cpu_device_count(int *n) { *n = 1; return GPU_OK; }
static GpuResult cpu_device_info(int ordinal, GpuDeviceInfo *info) {
  if (ordinal != 0) return (GpuResult){CUDA_ERROR_INVALID_DEVICE, GPU_SRC_CUDA, "cuDeviceGet (CPU backend)"};
  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "CPU (%ld cores)", sysconf(_SC_NPROCESSORS_ONLN));
  info->major = 0;
  info->minor = 0;
  info->multiprocessors = (int)sysconf(_SC_NPROCESSORS_ONLN);
  info->max_threads_per_block = MAX_BLOCK_THREADS;
  info->warp_size = 32;
  info->total_memory = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
  return GPU_OK;
}
static GpuResult cpu_use_device(int ordinal) { return cpu_device_info(ordinal, &(GpuDeviceInfo){0}); }
static GpuResult cpu_ensure_context(void) { return GPU_OK; }
static int cpu_current_device(void) { return 0; }
static GpuResult cpu_synchronize(void) { return GPU_OK; }
static GpuResult cpu_mem_info(size_t *free_bytes, size_t *total_bytes) {
  *total_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
  *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
  return GPU_OK;
}

/* ---- streams and events: streams run in order; an event is a time ---- */
typedef struct CpuEvent { double t; int recorded; } CpuEvent;
static GpuResult cpu_stream_create(CUstream *s) { *s = (CUstream)calloc(1, 16); return GPU_OK; }
static GpuResult cpu_stream_destroy(CUstream s) { free(s); return GPU_OK; }
static GpuResult cpu_stream_synchronize(CUstream s) { (void)s; return GPU_OK; }
static GpuResult cpu_event_create(CUevent *e) { *e = (CUevent)calloc(1, sizeof(CpuEvent)); return GPU_OK; }
static GpuResult cpu_event_destroy(CUevent e) { free(e); return GPU_OK; }
static GpuResult cpu_event_record(CUevent e, CUstream s) {
  (void)s;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  ((CpuEvent *)e)->t = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
  ((CpuEvent *)e)->recorded = 1;
  return GPU_OK;
}
static GpuResult cpu_event_synchronize(CUevent e) { (void)e; return GPU_OK; }
static GpuResult cpu_event_elapsed(float *ms, CUevent a, CUevent b) {
  CpuEvent *x = (CpuEvent *)a, *y = (CpuEvent *)b;
  if (!x->recorded || !y->recorded)
    return (GpuResult){CUDA_ERROR_INVALID_HANDLE, GPU_SRC_CUDA, "cuEventElapsedTime (CPU backend)"};
  *ms = (float)((y->t - x->t) * 1e3);
  return GPU_OK;
}

/* ---- compiling: the host's C++ compiler makes a shared library ---- */

static const char *compiler(void) {
  const char *cxx = getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}


/* The compiler's path, size and time, and the prelude's length and hash: what the cache key
 * needs to know of how kernels are compiled here. */
static GpuResult cpu_compiler_id(char *out, size_t n) {
  const char *cxx = compiler();
  char first[256], path[1200] = "";
  sscanf(cxx, "%255s", first);
  if (strchr(first, '/')) {
    snprintf(path, sizeof path, "%s", first);
  } else {
    const char *p = getenv("PATH");
    char dirs[2048];
    snprintf(dirs, sizeof dirs, "%s", p ? p : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
      snprintf(path, sizeof path, "%s/%s", d, first);
      if (access(path, X_OK) == 0) break;
      path[0] = '\0';
    }
  }
  struct stat st;
  long long size = 0, mtime = 0;
  char real[1024] = "";
  if (path[0] && stat(path, &st) == 0) {
    size = (long long)st.st_size;
    mtime = (long long)st.st_mtime;
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
  }
  const EmbeddedFile *pre = embedded_find("kernels/cpu.h");
  const EmbeddedFile *cg = embedded_find("kernels/cpu_cooperative_groups.h");
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < pre->size; i++) { h ^= (unsigned char)pre->data[i]; h *= 0x100000001b3ULL; }
  for (size_t i = 0; i < cg->size; i++) { h ^= (unsigned char)cg->data[i]; h *= 0x100000001b3ULL; }
  snprintf(out, n, "cxx %s %s %lld %lld prelude %016llx", cxx, real, size, mtime, (unsigned long long)h);
  return GPU_OK;
}

static GpuResult cpu_arch(char *out, size_t n) {
#if defined(__x86_64__)
  snprintf(out, n, "cpu-x86_64");
#elif defined(__aarch64__)
  snprintf(out, n, "cpu-aarch64");
#else
  snprintf(out, n, "cpu");
#endif
  return GPU_OK;
}

static int write_file(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, n, f);
  return (fclose(f) == 0 && w == n) ? 0 : -1;
}

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *data = NULL;
  long size;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc((size_t)size + 1);
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) { free(data); data = NULL; }
    if (data) { data[size] = '\0'; *n = (size_t)size; }
  }
  fclose(f);
  return data;
}

/* Appends to a growing string. */
typedef struct Text { char *s; size_t n, cap; } Text;
static void text_add(Text *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    t->cap = 2 * (t->n + n + 1);
    t->s = realloc(t->s, t->cap);
  }
  memcpy(t->s + t->n, s, n);
  t->n += n;
  t->s[t->n] = '\0';
}
static void text_str(Text *t, const char *s) { text_add(t, s, strlen(s)); }

static int is_ident(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* `extern __shared__ T name[];` becomes `T *name = (T *)gpuhost_dynamic_shared();` (and
 * __align__(n) inside it is dropped); the rest of the source is copied as it is. */
static void rewrite_source(Text *out, const char *s) {
  const char *p = s;
  for (;;) {
    const char *e = strstr(p, "extern");
    if (!e) break;
    const char *q = e + 6;
    while (*q == ' ' || *q == '\t' || *q == '\n') q++;
    int boundary = (e == s || !is_ident(e[-1])) && !is_ident(e[6]);
    if (!boundary || strncmp(q, "__shared__", 10) != 0 || is_ident(q[10])) {
      text_add(out, p, (size_t)(e + 6 - p));
      p = e + 6;
      continue;
    }
    const char *semi = strchr(q, ';');
    const char *br = semi ? memchr(q, '[', (size_t)(semi - q)) : NULL;
    if (!br) { text_add(out, p, (size_t)(e + 6 - p)); p = e + 6; continue; }
    const char *ne = br;   /* the name ends before '[' */
    while (ne > q && !is_ident(ne[-1])) ne--;
    const char *ns = ne;
    while (ns > q && is_ident(ns[-1])) ns--;
    Text type = {0};
    const char *t = q + 10;
    while (t < ns) {   /* the type, without __align__(n) */
      if (strncmp(t, "__align__", 9) == 0) {
        const char *c = strchr(t, ')');
        t = c && c < ns ? c + 1 : ns;
        continue;
      }
      text_add(&type, t, 1);
      t++;
    }
    text_add(out, p, (size_t)(e - p));
    text_add(out, type.s ? type.s : "char ", type.n);
    text_str(out, "*");
    text_add(out, ns, (size_t)(ne - ns));
    text_str(out, " = reinterpret_cast<");
    text_add(out, type.s ? type.s : "char ", type.n);
    text_str(out, "*>(gpuhost_dynamic_shared());");
    free(type.s);
    p = semi + 1;
  }
  text_str(out, p);
}

/* Inline PTX cannot run here: say so before the compiler does, less clearly. */
static const char *uses_asm(const char *s) {
  for (const char *p = s; (p = strstr(p, "asm")) != NULL; p += 3) {
    if (p > s && is_ident(p[-1])) continue;
    const char *q = p + 3;
    if (strncmp(q, "__", 2) == 0) q += 2;
    while (*q == ' ' || *q == '\t') q++;
    if (strncmp(q, "volatile", 8) == 0) { q += 8; while (*q == ' ' || *q == '\t') q++; }
    if (*q == '(') return "inline PTX assembly (asm)";
  }
  return NULL;
}

static int run_compiler(char *const argv[], const char *log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (r != 0) return -r;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static GpuResult compile_error(GpuImage *out, int code, const char *log) {
  out->log = strdup(log);
  return (GpuResult){code, GPU_SRC_HOST, code == GPU_ERR_CPU_UNSUPPORTED ? "gpu.kernel (CPU backend)"
                                                                         : "c++ (CPU backend)"};
}

static GpuResult cpu_compile(const GpuCompileJob *job, GpuImage *out) {
  memset(out, 0, sizeof *out);
  const char *what = uses_asm(job->source);
  if (what) {
    char msg[200];
    snprintf(msg, sizeof msg, "the CPU backend does not support %s", what);
    return compile_error(out, GPU_ERR_CPU_UNSUPPORTED, msg);
  }
  char dir[] = "/tmp/gpuhost-cpu-XXXXXX";
  if (!mkdtemp(dir)) return compile_error(out, GPU_ERR_CPU_COMPILE, "cannot make a temporary folder");
  char path[5][sizeof dir + 40];
  snprintf(path[0], sizeof path[0], "%s/gpuhost_cpu.h", dir);
  snprintf(path[1], sizeof path[1], "%s/gpuhost.cuh", dir);
  snprintf(path[2], sizeof path[2], "%s/cooperative_groups.h", dir);
  snprintf(path[3], sizeof path[3], "%s/kernel.cpp", dir);
  snprintf(path[4], sizeof path[4], "%s/kernel.so", dir);
  char logpath[sizeof dir + 20], runtime_h[sizeof dir + 20];
  snprintf(logpath, sizeof logpath, "%s/log", dir);
  snprintf(runtime_h, sizeof runtime_h, "%s/cuda_runtime.h", dir);
  const EmbeddedFile *pre = embedded_find("kernels/cpu.h");
  const EmbeddedFile *cg = embedded_find("kernels/cpu_cooperative_groups.h");
  Text src = {0};
  text_str(&src, "#include \"gpuhost_cpu.h\"\n#include \"gpuhost.cuh\"\n");
  rewrite_source(&src, job->source);
  text_str(&src, "\n// entry points for the CPU backend\n");
  char line[600];
  for (int i = 0; i < job->nnames; i++) {
    snprintf(line, sizeof line,
             "static void gpuhost_call_%d(gpuhost_block *b, void **a) { gpuhost_cpu::run_threads(&%s, b, a); }\n",
             i, job->names[i]);
    text_str(&src, line);
  }
  text_str(&src, "extern \"C\" const int gpuhost_entry_count = ");
  snprintf(line, sizeof line, "%d;\nextern \"C\" const gpuhost_cpu::entry gpuhost_entries[] = {\n", job->nnames);
  text_str(&src, line);
  for (int i = 0; i < job->nnames; i++) {
    snprintf(line, sizeof line, "  gpuhost_cpu::make_entry<decltype(&%s)>(gpuhost_call_%d),\n",
             job->names[i], i);
    text_str(&src, line);
  }
  text_str(&src, "  {nullptr, 0, nullptr}};\n");
  int ok = write_file(path[0], pre->data, pre->size) == 0 &&
           write_file(path[1], job->header, job->header_size) == 0 &&
           write_file(path[2], cg->data, cg->size) == 0 &&
           write_file(runtime_h, "#pragma once\n", 13) == 0 &&
           write_file(path[3], src.s, src.n) == 0;
  free(src.s);
  GpuResult result = GPU_OK;
  if (!ok) {
    result = compile_error(out, GPU_ERR_CPU_COMPILE, "cannot write the kernel's source");
  } else {
    /* $CXX may be several words ("ccache g++") */
    char cxx[512], incl[sizeof dir + 4];
    snprintf(cxx, sizeof cxx, "%s", compiler());
    snprintf(incl, sizeof incl, "-I%s", dir);
    char *argv[64 + 40];
    int n = 0;
    for (char *save = NULL, *w = strtok_r(cxx, " \t", &save); w && n < 16; w = strtok_r(NULL, " \t", &save))
      argv[n++] = w;
    const char *fixed[] = {"-std=c++17", "-O2", "-fPIC", "-shared", "-fno-strict-aliasing",
                           "-U_FORTIFY_SOURCE", "-ffp-contract=off", "-w"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[n++] = (char *)fixed[i];
    argv[n++] = incl;
    if (job->debug) argv[n++] = "-DGPUHOST_DEBUG";
    /* the user's -D, -U and -I options; NVRTC's code generation options mean nothing here */
    for (int i = 0; i < job->nopts && n < 90; i++)
      if (strncmp(job->opts[i], "-D", 2) == 0 || strncmp(job->opts[i], "-U", 2) == 0 ||
          strncmp(job->opts[i], "-I", 2) == 0)
        argv[n++] = (char *)job->opts[i];
    argv[n++] = "-o";
    argv[n++] = path[4];
    argv[n++] = path[3];
    argv[n] = NULL;
    int status = run_compiler(argv, logpath);
    size_t len = 0;
    char *log = read_file(logpath, &len);
    if (status < 0) {
      char msg[300];
      snprintf(msg, sizeof msg, "cannot run the C++ compiler '%s' (%s); set CXX", compiler(),
               strerror(-status));
      result = compile_error(out, GPU_ERR_CPU_COMPILE, msg);
    } else if (status != 0) {
      result = compile_error(out, GPU_ERR_CPU_COMPILE, log ? log : "the C++ compiler failed");
    } else {
      out->data = read_file(path[4], &out->size);
      if (!out->data) result = compile_error(out, GPU_ERR_CPU_COMPILE, "the compiler made no library");
      out->log = log;
      log = NULL;
      out->lowered = calloc((size_t)job->nnames + 1, sizeof(char *));
      for (int i = 0; i < job->nnames && out->data; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", i);
        out->lowered[i] = strdup(idx);
      }
    }
    free(log);
  }
  for (int i = 0; i < 5; i++) unlink(path[i]);
  unlink(logpath);
  unlink(runtime_h);
  rmdir(dir);
  return result;
}

/* ---- kernel libraries: loaded from memory (a memfd), not from a file of ours ---- */
static GpuResult cpu_module_load(CUmodule *m, const GpuImage *img) {
  GpuResult bad = {CUDA_ERROR_INVALID_IMAGE, GPU_SRC_CUDA, "dlopen (CPU backend)"};
  static int promoted;
  if (!promoted) {
    /* kernel libraries find gpuhost_tls among global symbols: in gpuhost they are (-Wl,-E);
     * gpu.so, loaded by Lua as a local library, is made global here */
    Dl_info info;
    if (dladdr((void *)&cpu_alloc, &info) && info.dli_fname)
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    promoted = 1;
  }
  int fd = memfd_create("gpuhost-kernel", MFD_CLOEXEC);
  char path[64];
  if (fd < 0) return bad;
  if (write(fd, img->data, img->size) != (ssize_t)img->size) { close(fd); return bad; }
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    snprintf(launch_detail, sizeof launch_detail, "%s", dlerror());
    close(fd);
    return bad;
  }
  void (*bind)(const GpuhostRuntime *) = (void (*)(const GpuhostRuntime *))dlsym(dl, "gpuhost_cpu_bind");
  const int *count = dlsym(dl, "gpuhost_entry_count");
  const GpuhostEntry *entries = dlsym(dl, "gpuhost_entries");
  if (!bind || !count || !entries) { dlclose(dl); close(fd); return bad; }
  CpuModule *mod = calloc(1, sizeof *mod);
  bind(&runtime);
  mod->dl = dl;
  mod->fd = fd;
  mod->nentries = *count;
  mod->functions = calloc((size_t)mod->nentries + 1, sizeof *mod->functions);
  for (int i = 0; i < mod->nentries; i++) mod->functions[i] = (CpuFunction){mod, &entries[i]};
  *m = (CUmodule)mod;
  return GPU_OK;
}

static GpuResult cpu_module_unload(CUmodule m) {
  CpuModule *mod = (CpuModule *)m;
  dlclose(mod->dl);
  close(mod->fd);
  free(mod->functions);
  free(mod);
  return GPU_OK;
}

static GpuResult cpu_module_function(CUfunction *f, CUmodule m, const char *lowered) {
  CpuModule *mod = (CpuModule *)m;
  int i = atoi(lowered);
  if (i < 0 || i >= mod->nentries)
    return (GpuResult){CUDA_ERROR_NOT_FOUND, GPU_SRC_CUDA, "cuModuleGetFunction (CPU backend)"};
  *f = (CUfunction)&mod->functions[i];
  return GPU_OK;
}

static GpuResult cpu_module_global(CUdeviceptr *p, size_t *n, CUmodule m, const char *name) {
  void *sym = dlsym(((CpuModule *)m)->dl, name);
  if (!sym) return (GpuResult){CUDA_ERROR_NOT_FOUND, GPU_SRC_CUDA, "cuModuleGetGlobal (CPU backend)"};
  *p = (CUdeviceptr)(uintptr_t)sym;
  *n = 0;
  return GPU_OK;
}

static GpuResult cpu_param_size(CUfunction f, int i, long *size, int *known) {
  const GpuhostEntry *e = ((CpuFunction *)f)->entry;
  *known = 1;
  *size = i < e->nparams ? e->sizes[i] : -1;
  return GPU_OK;
}

const GpuBackend gpu_cpu_backend = {
  .name = "cpu", .pinned_host = 0,
  .device_count = cpu_device_count, .device_info = cpu_device_info,
  .use_device = cpu_use_device, .ensure_context = cpu_ensure_context,
  .current_device = cpu_current_device, .synchronize = cpu_synchronize,
  .mem_info = cpu_mem_info, .alloc = cpu_alloc, .free = cpu_free,
  .host_alloc = cpu_host_alloc, .host_free = cpu_host_free,
  .htod = cpu_htod, .dtoh = cpu_dtoh, .dtod = cpu_dtod, .memset0 = cpu_memset0,
  .arch = cpu_arch, .compiler_id = cpu_compiler_id, .compile = cpu_compile,
  .module_load = cpu_module_load, .module_unload = cpu_module_unload,
  .module_function = cpu_module_function, .module_global = cpu_module_global,
  .param_size = cpu_param_size, .launch = cpu_launch,
  .stream_create = cpu_stream_create, .stream_destroy = cpu_stream_destroy,
  .stream_synchronize = cpu_stream_synchronize,
  .event_create = cpu_event_create, .event_destroy = cpu_event_destroy,
  .event_record = cpu_event_record, .event_synchronize = cpu_event_synchronize,
  .event_elapsed = cpu_event_elapsed,
};
