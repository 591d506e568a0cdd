/* pool.c: a launch. Its blocks are spread over a pool of worker threads (the calling
 * thread works too) and run synchronously: the launch is done when cpu_launch returns.
 * A fault inside a kernel (a stray pointer reaching a guard page) is caught on the
 * worker's signal stack and reported as CUDA_ERROR_ILLEGAL_ADDRESS with the block and
 * thread; any other fault is not ours. */
#undef _FORTIFY_SOURCE   /* siglongjmp leaves a fiber's stack for the worker's own */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu_internal.h"

/* what kernels read as threadIdx, blockIdx, blockDim, gridDim: in static TLS (the
 * executable's, or gpu.so's, made global when a kernel library is first loaded) */
__attribute__((tls_model("initial-exec"), visibility("default")))
_Thread_local gpuhost_thread_state gpuhost_tls;

_Thread_local Worker *cpu_self;

/* A fault in a kernel: back to the worker's block loop. Any other fault is not ours. */
static void on_fault(int sig, siginfo_t *info, void *uc) {
  (void)uc;
  Worker *w = cpu_self;
  if (w && w->in_kernel) {
    w->fault_addr = info->si_addr;
    siglongjmp(w->jb, 1);
  }
  signal(sig, SIG_DFL);   /* returning re-runs the access, which now ends the process */
}

/* After a block stopped (why: 1 a fault, 2 block_abort): records the job's failure. */
static void block_failed(Worker *w, Job *j, int why) {
  /* the block's fibers are abandoned where they stand: take their stacks back */
  for (int i = 0; i < w->nblock_fibers; i++) {
    Fiber *f = w->block_fibers[i];   /* a reused fiber is listed twice: release it once */
    if (f->state != FIBER_DONE) { f->state = FIBER_DONE; fiber_release(w, f); }
  }
  int thread = w->current ? w->blk.current : -1;
  w->current = NULL;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&j->failed, &expected, 1)) return;
  gpuhost_uint3 bi = w->tls->block;
  char where[120];
  if (thread >= 0)
    snprintf(where, sizeof where, "block (%u, %u, %u) thread (%u, %u, %u)", bi.x, bi.y, bi.z,
             (unsigned)thread % j->block.x, (unsigned)thread / j->block.x % j->block.y,
             (unsigned)thread / (j->block.x * j->block.y));
  else
    snprintf(where, sizeof where, "block (%u, %u, %u)", bi.x, bi.y, bi.z);
  if (why == 1) {
    j->result = GPU_FAIL(CUDA_ERROR_ILLEGAL_ADDRESS, GPU_SRC_CUDA, "cuLaunchKernel (CPU backend)");
    snprintf(j->detail, sizeof j->detail, "%s: address %p", where, w->fault_addr);
  } else {
    j->result = GPU_FAIL(GPU_ERR_CPU_UNSUPPORTED, GPU_SRC_HOST, "cuLaunchKernel (CPU backend)");
    snprintf(j->detail, sizeof j->detail, "%s: %s", where, w->message);
  }
}

static void run_job(Worker *w, Job *j) {
  w->job = j;
  w->tls = &gpuhost_tls;
  w->tls->block_dim = j->block;
  w->tls->grid_dim = j->grid;
  if (j->shared > w->shared_cap) {
    free(w->shared);
    w->shared = aligned_alloc(64, ((size_t)j->shared + 63) / 64 * 64);
    w->shared_cap = w->shared ? j->shared : 0;
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
    block_failed(w, j, why);
    break;
  }
}

static Worker *worker_new(int id) {
  Worker *w = calloc(1, sizeof *w);
  if (w == NULL) return NULL;
  w->id = id;
  w->parked = calloc(MAX_BLOCK_THREADS, sizeof(Fiber *));
  w->blk.done = calloc(MAX_BLOCK_THREADS, 1);
  w->block_fibers = calloc(MAX_BLOCK_THREADS + 1, sizeof(Fiber *));
  w->altstack = malloc(ALT_STACK);
  if (!w->parked || !w->blk.done || !w->block_fibers || !w->altstack) {
    free(w->parked); free(w->blk.done); free(w->block_fibers); free(w->altstack); free(w);
    return NULL;
  }
  return w;
}

/* Makes the calling thread worker w: its own signal stack, for faults on fiber stacks. */
static void worker_enter(Worker *w) {
  stack_t ss = {.ss_sp = w->altstack, .ss_size = ALT_STACK, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  cpu_self = w;
}

static struct {
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  int nthreads;               /* pool threads, besides the caller; -1 before the start */
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

/* Starts the pool and the fault handler once: GPUHOST_CPU_THREADS workers, else one a
 * core; 0, or -1 when not even the caller's worker could be made. */
static int pool_start(void) {
  if (pool.nthreads >= 0) return 0;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  const char *env = getenv("GPUHOST_CPU_THREADS");
  if (env && atoi(env) > 0) n = atoi(env);
  if (n < 1) n = 1;
  if ((pool.caller = worker_new(0)) == NULL) return -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  pool.nthreads = 0;
  for (int i = 1; i < n; i++) {
    Worker *w = worker_new(i);
    pthread_t t;
    pthread_attr_t attr;
    if (w == NULL) break;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, pool_main, w) == 0) pool.nthreads++;
    pthread_attr_destroy(&attr);
  }
  return 0;
}

static int bad_config(const unsigned grid[3], const unsigned block[3], unsigned shared) {
  unsigned long threads = (unsigned long)block[0] * block[1] * block[2];
  return grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || block[0] == 0 || block[1] == 0 ||
         block[2] == 0 || threads > MAX_BLOCK_THREADS || block[2] > 64 || grid[0] > 0x7fffffffu ||
         grid[1] > 65535 || grid[2] > 65535 || shared > MAX_SHARED;
}

/* Runs job j on the pool and the calling thread; returns when every block is done. */
static void run_on_pool(Job *j) {
  Worker *me = pool.caller;
  if (cpu_self != me) worker_enter(me);   /* the calling thread works too */
  if (j->nworkers > 1) {
    pthread_mutex_lock(&pool.mu);
    pool.job = j;
    pool.running = pool.nthreads;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
  }
  run_job(me, j);
  if (j->nworkers > 1) {
    pthread_mutex_lock(&pool.mu);
    while (pool.running > 0) pthread_cond_wait(&pool.idle, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
  }
}

GpuResult cpu_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, CUstream stream, void **params) {
  (void)stream;   /* streams run in order: the launch is done when this returns */
  if (bad_config(grid, block, shared))
    return GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "cuLaunchKernel (CPU backend)");
  if (pool_start() != 0)
    return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "cuLaunchKernel (CPU backend)");
  Job j;
  memset(&j, 0, sizeof j);
  j.fn = (const CpuFunction *)f;
  j.args = params;
  j.grid = (gpuhost_uint3){grid[0], grid[1], grid[2]};
  j.block = (gpuhost_uint3){block[0], block[1], block[2]};
  j.shared = shared;
  j.nblocks = (long)grid[0] * grid[1] * grid[2];
  atomic_init(&j.next_block, 0);
  atomic_init(&j.failed, 0);
  j.nworkers = j.nblocks < pool.nthreads + 1 ? (int)j.nblocks : pool.nthreads + 1;
  run_on_pool(&j);
  if (atomic_load(&j.failed)) return cpu_fail(j.result, "%s", j.detail);
  return GPU_OK;
}
