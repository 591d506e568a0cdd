/* pool.c: a launch. Its blocks are spread over a pool of worker threads (the calling
 * thread works too) in chunks, several blocks to a chunk so that a block costs little,
 * and run synchronously: the launch is done when cpu_launch returns. A fault inside a
 * kernel (a stray pointer reaching a guard page, an integer division by zero), a failed
 * assert or a stop of the runtime's ends the block on the worker's signal stack and is
 * reported with the block and thread; Ctrl-C stops the launch at the next block or
 * barrier. Any other fault is not ours. */
#undef _FORTIFY_SOURCE   /* siglongjmp leaves a fiber's stack for the worker's own */
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "cpu_internal.h"

_Thread_local Worker *cpu_self;

#define LAUNCH_CALL "cuLaunchKernel (CPU backend)"

/* addr is in the guard below one of w's fibers' stacks */
static int in_a_guard(const Worker *w, const void *addr) {
  if (fiber_in_guard(w->loop_fiber, addr)) return 1;
  for (int t = 0; t < w->nthread_fibers; t++)
    if (fiber_in_guard(w->thread_fiber[t], addr)) return 1;
  return 0;
}

#if defined(__x86_64__)
/* Where a fault on a fiber leaves the signal stack for: the worker's own stack. */
static void fault_exit(Worker *w) {
  fiber_after_jump(w);
  siglongjmp(w->jb, 1);
}

/* Returning from the handler resumes fault_exit on the worker's stack, below the suspended
 * scheduler, rather than jumping from the signal stack: AddressSanitizer can then tell which
 * stack the jump leaves (it cannot from a signal stack, and reports). */
static int leave_for_worker(Worker *w, void *uc) {
  if (w->current == NULL || w->sched_sp == NULL) return 0;
  ucontext_t *u = uc;
  uintptr_t sp = (((uintptr_t)w->sched_sp - 1024) & ~(uintptr_t)15) - 8;   /* as after a call */
  u->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
  u->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)fault_exit;
  u->uc_mcontext.gregs[REG_RDI] = (greg_t)(uintptr_t)w;
  return 1;
}
#else
static int leave_for_worker(Worker *w, void *uc) { (void)w; (void)uc; return 0; }
#endif

/* A fault in a kernel: back to the worker's chunk loop. Any other fault is not ours: one
 * counts as a kernel's only on a thread that is a worker (cpu_self: a pool thread, or the
 * launching thread until its launch returns) while that worker runs a kernel. */
/* A fault outside a kernel is a bug in gpuhost or a library it called: say where, on
 * stderr (the frames' names: the program exports its symbols), before the process ends. */
static void report_fatal(int sig, const siginfo_t *info) {
  char msg[160];
  int n = snprintf(msg, sizeof msg, "gpuhost: %s at address %p outside a kernel (a bug: please "
                   "report it with this stack)\n", sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ?
                   "SIGBUS" : sig == SIGILL ? "SIGILL" : "SIGFPE", info->si_addr);
  if (n > 0 && write(2, msg, (size_t)n) < 0) return;
  void *frames[48];
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
}

/* the handlers the program had before catch_faults: SIGSEGV, SIGBUS, SIGFPE, SIGILL */
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction before[4];

static void on_fault(int sig, siginfo_t *info, void *uc) {
  Worker *w = cpu_self;
  int sent = info->si_code <= 0;   /* kill, raise, sigqueue: not a fault, in a kernel or out */
  if (!w || !w->in_kernel || sent) {
    /* not a kernel's: the handler of a program that embeds gpuhost (a crash reporter, a
     * sandbox) has it, as it had before the first launch */
    int i = 0;
    while (i < 3 && fault_signals[i] != sig) i++;
    const struct sigaction *old = &before[i];
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
      old->sa_sigaction(sig, info, uc);
      return;
    }
    if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
      old->sa_handler(sig);
      return;
    }
    if (!sent) report_fatal(sig, info);
    signal(sig, SIG_DFL);   /* returning re-runs a fault's instruction, which now ends the process */
    if (sent) raise(sig);   /* (nothing re-runs a sent one: its default action, as without gpuhost) */
    return;
  }
  Stop *s = &w->stop;
  if (sig == SIGFPE) {
    s->result = GPU_FAIL(GPU_ERR_CPU_UNSUPPORTED, GPU_SRC_HOST, LAUNCH_CALL);
    snprintf(s->message, sizeof s->message, "integer division by zero, or INT_MIN / -1 (SIGFPE): "
             "a GPU gives an unspecified value and goes on; the CPU backend stops the kernel");
  } else if (sig == SIGILL) {   /* __builtin_trap(), or a trap GCC put where code must not go */
    s->result = GPU_FAIL(CUDA_ERROR_ILLEGAL_INSTRUCTION, GPU_SRC_CUDA, LAUNCH_CALL);
    snprintf(s->message, sizeof s->message, "illegal instruction at %p (SIGILL): a trap, or a "
             "function that returns a value reaching its end without a return", info->si_addr);
  } else if (in_a_guard(w, info->si_addr)) {
    s->result = GPU_FAIL(CUDA_ERROR_ILLEGAL_ADDRESS, GPU_SRC_CUDA, LAUNCH_CALL);
    snprintf(s->message, sizeof s->message, "stack overflow: address %p is in the guard below "
             "a thread's stack of %zu bytes", info->si_addr, w->job->fn->stack);
  } else {
    s->result = GPU_FAIL(CUDA_ERROR_ILLEGAL_ADDRESS, GPU_SRC_CUDA, LAUNCH_CALL);
    if (info->si_code == SI_KERNEL)   /* x86: past the address space; si_addr says nothing */
      snprintf(s->message, sizeof s->message, "an address outside the address space (a general "
               "protection fault: the processor does not say which)");
    else
      snprintf(s->message, sizeof s->message, "address %p", info->si_addr);
  }
  if (!leave_for_worker(w, uc)) siglongjmp(w->jb, 1);
}

/* Records why w's block stopped as the job's failure, unless another worker's came first. */
static void record(Worker *w, Job *j, const Stop *s, int with_thread) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&j->failed, &expected, 1)) return;
  j->stop = 1;
  long b = w->block;
  gpuhost_uint3 g = j->launch.grid, k = j->launch.block;
  char where[160];
  int n = snprintf(where, sizeof where, "block (%ld, %ld, %ld)", b % g.x, b / g.x % g.y,
                   b / ((long)g.x * g.y));
  if (with_thread) {
    unsigned t = (unsigned)w->current_thread;
    snprintf(where + n, sizeof where - (size_t)n, " thread (%u, %u, %u)", t % k.x, t / k.x % k.y,
             t / (k.x * k.y));
  }
  j->result = s->result;
  snprintf(j->detail, sizeof j->detail, "%s: %s", where, s->message);
}

/* A block stopped. On the loop path the thread is not known: the block runs again on the
 * fiber path, which stops at the same thread if the kernel does the same again (a launch
 * that failed leaves device memory undefined, on a GPU too). */
static void stopped(Worker *w, Job *j) {
  fiber_after_jump(w);
  fibers_abandon(w);
  int interrupt = w->stop.result.code == GPU_ERR_INTERRUPTED && w->stop.result.source == GPU_SRC_HOST;
  if (!w->fast || interrupt) { record(w, j, &w->stop, !interrupt); return; }
  Stop first = w->stop;
  long b = w->block;
  if (sigsetjmp(w->jb, 0) == 0) {
    w->in_kernel = 1;
    run_blocks(w, b, b + 1);
    w->in_kernel = 0;
    record(w, j, &first, 0);
    return;
  }
  w->in_kernel = 0;
  fiber_after_jump(w);
  fibers_abandon(w);
  int same = w->stop.result.code == first.result.code;
  record(w, j, same ? &w->stop : &first, same);
}

/* extern __shared__ memory for j: the end of a mapping, just before a guard of 64 KiB. */
#define SHARED_GUARD (64 * 1024)
static int shared_for(Worker *w, const Job *j) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), want = ((size_t)j->shared + 15) / 16 * 16;
  if (w->shared_map == NULL || want > w->shared_cap) {
    size_t body = (want + page - 1) / page * page, total = body + page + SHARED_GUARD;
    if (w->shared_map) munmap(w->shared_map, w->shared_map_size);
    w->shared_map = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w->shared_map == MAP_FAILED) { w->shared_map = NULL; return -1; }
    if (body && mprotect(w->shared_map + page, body, PROT_READ | PROT_WRITE) != 0) return -1;
    w->shared_map_size = total;
    w->shared_cap = body;
  }
  w->shared = w->shared_map + page + w->shared_cap - want;
  return 0;
}

static void interrupted(Worker *w, Job *j) {
  Stop s = {GPU_FAIL(GPU_ERR_INTERRUPTED, GPU_SRC_HOST, LAUNCH_CALL), "interrupted (Ctrl-C)"};
  record(w, j, &s, 0);
}

static void run_job(Worker *w, Job *j) {
  w->job = j;
  w->launch = j->launch;
  w->launch.entered = &w->block;
  if (shared_for(w, j) != 0 || block_prepare(w) != 0) {
    Stop s = {GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, LAUNCH_CALL), "no memory for a block"};
    record(w, j, &s, 0);
    return;
  }
  for (;;) {
    long first = atomic_fetch_add(&j->next_block, j->chunk);
    if (first >= j->nblocks || j->stop) break;
    long last = first + j->chunk < j->nblocks ? first + j->chunk : j->nblocks;
    if (backend_interrupted) { w->block = first; interrupted(w, j); break; }
    if (sigsetjmp(w->jb, 0) != 0) {
      w->in_kernel = 0;
      stopped(w, j);
      break;
    }
    w->in_kernel = 1;
    if (j->variant >= 0) run_loops(w, first, last);
    else run_blocks(w, first, last);
    w->in_kernel = 0;
    if (backend_interrupted) { interrupted(w, j); break; }
  }
}

static Worker *worker_new(int id) {
  Worker *w = calloc(1, sizeof *w);
  if (w == NULL) return NULL;
  w->id = id;
  w->altstack = malloc(ALT_STACK);
  if (!w->altstack) { free(w); return NULL; }
  return w;
}

/* Makes the calling thread worker w: its own signal stack, for faults on fiber stacks (a
 * stack overflow in a kernel leaves no room on the faulting one); the thread's own one,
 * if it had one, in *was (when was is not NULL). 0, or -1 when the thread runs on its
 * alternate stack now (a launch from a signal handler): no change then. */
static int worker_enter(Worker *w, stack_t *was) {
  stack_t ss = {.ss_sp = w->altstack, .ss_size = ALT_STACK, .ss_flags = 0};
  int r = sigaltstack(&ss, was);
  cpu_self = w;
  return r;
}

static struct {
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  int nthreads;               /* pool threads, besides the caller; -1 before the start */
  Worker *caller;
  Worker **workers;           /* all of them, the caller's first */
  int nworkers;
  atomic_ulong generation;     /* a new job each increment */
  atomic_int running;         /* pool threads still on the job */
  Job *job;
  char error[200];            /* why the pool could not start (GPUHOST_CPU_THREADS) */
  int bad_setting;            /* that was GPUHOST_CPU_THREADS itself */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, -1,
          NULL, NULL, 0, 0, 0, NULL, "", 0};

/* Waits up to 50 microseconds for *v to differ from old (0), else returns 1: between the
 * launches of a loop the workers stay awake, and a launch costs no wake-up. */
static int spin_while(atomic_ulong *v, unsigned long old) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 1;; i++) {
    if (atomic_load_explicit(v, memory_order_acquire) != old) return 0;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec > 50000) return 1;
    }
  }
}

static void *pool_main(void *arg) {
  Worker *w = arg;
  sigset_t set;   /* Ctrl-C goes to the host's thread, whose handler sets the flag we poll */
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  worker_enter(w, NULL);   /* a pool thread stays worker w */
  unsigned long seen = 0;
  for (;;) {
    spin_while(&pool.generation, seen);
    pthread_mutex_lock(&pool.mu);
    while (atomic_load(&pool.generation) == seen) pthread_cond_wait(&pool.wake, &pool.mu);
    seen = atomic_load(&pool.generation);
    Job *j = pool.job;
    pthread_mutex_unlock(&pool.mu);
    if (w->id < j->nworkers) run_job(w, j);
    if (atomic_fetch_sub(&pool.running, 1) == 1) {   /* the last: the launch may return */
      pthread_mutex_lock(&pool.mu);
      pthread_cond_signal(&pool.idle);
      pthread_mutex_unlock(&pool.mu);
    }
  }
  return NULL;
}

static void catch_faults(void) {
  void *frame;
  backtrace(&frame, 1);   /* loads libgcc now: a signal handler must not */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 4; i++) sigaction(fault_signals[i], &sa, &before[i]);
}

/* Starts the pool and the fault handler once: GPUHOST_CPU_THREADS workers (at most 4 a
 * core), else one a core (cores: those the process may run on); 0, -1 (pool.error says
 * why), or -2 for a malformed GPUHOST_CPU_THREADS (pool.bad_setting, kept). */
static int pool_start(void) {
  if (pool.nthreads >= 0) return 0;
  if (pool.error[0]) return pool.bad_setting ? -2 : -1;
  long cores = cpu_cores();
  long n = cpu_env_number("GPUHOST_CPU_THREADS", 1, 4 * cores, cores, pool.error, sizeof pool.error);
  if (n < 0) {
    pool.bad_setting = 1;
    return -2;
  }
  if ((pool.workers = calloc((size_t)n, sizeof *pool.workers)) == NULL ||
      (pool.caller = worker_new(0)) == NULL) {
    snprintf(pool.error, sizeof pool.error, "no memory for the worker threads");
    return -1;
  }
  pool.workers[pool.nworkers++] = pool.caller;
  catch_faults();
  pool.nthreads = 0;
  for (int i = 1; i < n; i++) {
    Worker *w = worker_new(i);
    pthread_t t;
    pthread_attr_t attr;
    if (w == NULL) break;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, pool_main, w) == 0) pool.nthreads++, pool.workers[pool.nworkers++] = w;
    else free(w);
    pthread_attr_destroy(&attr);
  }
  return 0;
}

void pool_forget_fibers(void) {
  /* between launches every worker waits: their fibers can be taken from this thread */
  for (int i = 0; i < pool.nworkers; i++) {
    Worker *w = pool.workers[i];
    if (w->thread_fiber) fibers_abandon(w);
  }
}

/* Runs job j on the pool and the calling thread; returns when every block is done. */
static void run_on_pool(Job *j) {
  Worker *me = pool.caller;
  stack_t theirs;   /* the thread's own alternate signal stack, back when the launch ends */
  int entered = worker_enter(me, &theirs) == 0;   /* the calling thread works too, as worker 0 */
  if (j->nworkers > 1) {
    pthread_mutex_lock(&pool.mu);
    pool.job = j;
    atomic_store(&pool.running, pool.nthreads);
    atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
  }
  run_job(me, j);
  if (j->nworkers > 1) {
    for (int i = 0; atomic_load(&pool.running) > 0 && i < 20000; i++) {   /* they end soon */
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
    pthread_mutex_lock(&pool.mu);
    while (atomic_load(&pool.running) > 0) pthread_cond_wait(&pool.idle, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
  }
  /* no longer worker 0: a fault of this thread's own is not a kernel's, even while another
   * thread's launch runs on worker 0 (on_fault asks cpu_self); the program's signal stack
   * back (its handlers may need it; a thread's end frees what it set, not ours) */
  cpu_self = NULL;
  if (entered) sigaltstack(&theirs, NULL);
}

/* Why a launch configuration is one a GPU refuses too (CUDA_ERROR_INVALID_VALUE), or NULL. */
static const char *bad_config(const CpuFunction *fn, const unsigned grid[3], const unsigned block[3],
                              unsigned shared, char *why, size_t n) {
  unsigned long threads = (unsigned long)block[0] * block[1] * block[2];
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || block[0] == 0 || block[1] == 0 || block[2] == 0)
    return "a grid or block dimension is 0";
  if (grid[0] > 0x7fffffffu || grid[1] > 65535 || grid[2] > 65535)
    return "the grid is larger than a GPU's (2^31-1, 65535, 65535)";
  /* each dimension too: 2^29 x 2^29 x 64 wrapped around to 64 threads */
  if (threads > MAX_BLOCK_THREADS || block[0] > MAX_BLOCK_THREADS || block[1] > MAX_BLOCK_THREADS ||
      block[2] > 64) {
    snprintf(why, n, "a block of %.0f threads (%u, %u, %u): at most 1024, and 64 along z",
             (double)block[0] * block[1] * block[2], block[0], block[1], block[2]);
    return why;
  }
  if (fn->entry->max_threads > 0 && (long)threads > fn->entry->max_threads) {
    snprintf(why, n, "a block of %lu threads, more than the kernel's __launch_bounds__(%ld)",
             threads, fn->entry->max_threads);
    return why;
  }
  if ((size_t)shared + fn->static_shared > MAX_SHARED) {
    snprintf(why, n, "%u bytes of dynamic and %zu of static shared memory, more than a block's "
             "%d", shared, fn->static_shared, MAX_SHARED);
    return why;
  }
  return NULL;
}

GpuResult cpu_launch_check(CUfunction f, const unsigned grid[3], const unsigned block[3],
                           unsigned shared) {
  char why[200];
  const char *bad = bad_config((const CpuFunction *)f, grid, block, shared, why, sizeof why);
  if (bad) return cpu_fail(GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, LAUNCH_CALL), "%s", bad);
  return GPU_OK;
}

GpuResult cpu_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, CUstream stream, void **params) {
  (void)stream;   /* streams run in order: the launch is done when this returns */
  const CpuFunction *fn = (const CpuFunction *)f;
  GpuResult r = cpu_launch_check(f, grid, block, shared);
  if (r.code) return r;
  int started = pool_start();
  if (started == -2)
    return cpu_fail((GpuResult){GPU_ERR_BAD_SETTING, GPU_SRC_HOST, "GPUHOST_CPU_THREADS", NULL, NULL},
                    "%s", pool.error);
  if (started != 0) {   /* said in the message: it is not this kernel's doing */
    r = GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, LAUNCH_CALL);
    r.note = pool.error;
    return r;
  }
  Job j;
  memset(&j, 0, sizeof j);
  j.fn = fn;
  /* the loops' index is an int */
  j.variant = (long)grid[0] * block[0] > 0x7fffffffL ? -1 : fn->variant;
  j.launch = (gpuhost_launch){{grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, params,
                              &j.stop, &backend_interrupted, NULL};   /* entered: each worker's */
  j.shared = shared;
  j.threads = (int)(block[0] * block[1] * block[2]);
  j.nblocks = (long)grid[0] * grid[1] * grid[2];
  int workers = pool.nthreads + 1;
  j.nworkers = j.nblocks < workers ? (int)j.nblocks : workers;
  /* about 8 chunks a worker, fewer when the blocks are few and small */
  j.chunk = j.nblocks / ((long)j.nworkers * 8);
  if (j.chunk < 1) j.chunk = 1;
  atomic_init(&j.next_block, 0);
  atomic_init(&j.failed, 0);
  run_on_pool(&j);
  if (!atomic_load(&j.failed)) return GPU_OK;
  if (j.result.code == GPU_ERR_INTERRUPTED && j.result.source == GPU_SRC_HOST) backend_take_interrupt();
  return cpu_fail(j.result, "%s", j.detail);
}
