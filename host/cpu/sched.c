/* sched.c: running blocks. On the fiber path every thread of a block has a fiber of its
 * own, kept from block to block (and launch to launch): a block starts with all of them
 * ready, in order; each runs its thread until it returns or reaches a barrier or a warp
 * function, where it parks and switches straight to the next ready fiber. The last thread
 * to arrive at a barrier (or the last lane of a warp in a warp function) resolves it and
 * makes the waiting threads ready, in order; the last to return starts the next block of
 * the chunk, or goes back to the scheduler. So a block costs every thread one switch more
 * than its barriers, all alike. On the loop path one fiber runs whole blocks (the
 * library's vectorised loops). What kernels call in the runtime is here too. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cpu_internal.h"

#define RING (MAX_BLOCK_THREADS - 1)
#define UNSUPPORTED GPU_FAIL(GPU_ERR_CPU_UNSUPPORTED, GPU_SRC_HOST, "cuLaunchKernel (CPU backend)")
#define NO_STACK GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "mmap (CPU backend)")

void block_stop(Worker *w, GpuResult r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->stop.message, sizeof w->stop.message, fmt, ap);
  va_end(ap);
  w->stop.result = r;
  siglongjmp(w->jb, 1);
}

int block_prepare(Worker *w) {
  if (w->thread_fiber) return 0;
  w->thread_fiber = calloc(MAX_BLOCK_THREADS, sizeof(Fiber *));
  w->ready = calloc(MAX_BLOCK_THREADS, sizeof(Fiber *));
  w->at_barrier = calloc(MAX_BLOCK_THREADS, sizeof(Fiber *));
  w->done = calloc(MAX_BLOCK_THREADS, 1);
  w->warp_done = calloc(MAX_BLOCK_THREADS / 32, 1);
  w->warp_waiting = calloc(MAX_BLOCK_THREADS / 32, 1);
  if (w->thread_fiber && w->ready && w->at_barrier && w->done && w->warp_done && w->warp_waiting)
    return 0;
  free(w->thread_fiber); free(w->ready); free(w->at_barrier); free(w->done);
  free(w->warp_done); free(w->warp_waiting);
  w->thread_fiber = NULL;
  return -1;
}

void fibers_abandon(Worker *w) {
  for (int t = 0; t < w->nthread_fibers; t++) fiber_release(w, w->thread_fiber[t]);
  w->nthread_fibers = 0;
  if (w->loop_fiber) fiber_release(w, w->loop_fiber);
  w->loop_fiber = NULL;
  w->current = NULL;
}

static void make_ready(Worker *w, Fiber *f) { w->ready[(w->rhead + w->rcount++) & RING] = f; }

static int lanes(const Worker *w, int warp) {
  int n = w->nthreads - warp * 32;
  return n < 32 ? n : 32;
}

/* ---- blocks ---- */

/* Starts block w->block: every thread's fiber ready, in order. */
static void block_begin(Worker *w) {
  const Job *j = w->job;
  long b = w->block;
  w->blk.index.x = (unsigned)(b % j->launch.grid.x);
  w->blk.index.y = (unsigned)(b / j->launch.grid.x % j->launch.grid.y);
  w->blk.index.z = (unsigned)(b / ((long)j->launch.grid.x * j->launch.grid.y));
  w->finished = w->rhead = w->nbarrier = w->bar_count = w->bar_any = w->nmask = 0;
  w->bar_all = 1;
  memset(w->done, 0, (size_t)w->nthreads);
  memset(w->warp_done, 0, (size_t)(w->nthreads + 31) / 32);
  memset(w->warp_waiting, 0, (size_t)(w->nthreads + 31) / 32);
  for (int t = 0; t < w->nthreads; t++) w->ready[t] = w->thread_fiber[t];
  w->rcount = w->nthreads;
}

/* The fibers for j's threads: those of the last launch when they fit, else new ones. */
static void thread_fibers(Worker *w, const Job *j) {
  const CpuFunction *fn = j->fn;
  gpuhost_uint3 d = j->launch.block;
  if (fn->stack != w->fiber_stack || fn->guard != w->fiber_guard) {
    for (int t = 0; t < w->nthread_fibers; t++) fiber_unmap(w->thread_fiber[t]);
    w->nthread_fibers = 0;
    w->fiber_stack = fn->stack;
    w->fiber_guard = fn->guard;
  }
  for (; w->nthread_fibers < j->threads; w->nthread_fibers++) {
    Fiber *f = fiber_new(w, fn->stack, fn->guard);
    if (f == NULL) block_stop(w, NO_STACK, "no memory for a thread's stack");
    f->thread = w->nthread_fibers;
    w->thread_fiber[f->thread] = f;
    w->fiber_dims.x = 0;   /* its index is set below */
  }
  if (d.x != w->fiber_dims.x || d.y != w->fiber_dims.y || d.z != w->fiber_dims.z) {
    for (int t = 0; t < w->nthread_fibers; t++) {
      unsigned u = (unsigned)t;
      w->thread_fiber[t]->index = (gpuhost_uint3){u % d.x, u / d.x % d.y, u / (d.x * d.y)};
    }
    w->fiber_dims = d;
  }
}

void run_blocks(Worker *w, long first, long last) {
  w->fast = 0;
  w->nthreads = w->job->threads;
  w->blk.launch = &w->launch;
  thread_fibers(w, w->job);
  w->block = first;
  w->last = last;
  block_begin(w);
  Fiber *f = w->ready[w->rhead++];
  w->rcount--;
  w->current = f;
  w->current_thread = f->thread;
  fiber_run(w, f);
}

void run_loops(Worker *w, long first, long last) {
  const CpuFunction *fn = w->job->fn;
  w->fast = 1;
  w->block = first;
  w->last = last;
  if (w->loop_fiber && (w->loop_fiber->map_size != fn->stack + fn->guard || w->loop_fiber->guard != fn->guard)) {
    fiber_unmap(w->loop_fiber);
    w->loop_fiber = NULL;
  }
  if (w->loop_fiber == NULL) {
    if ((w->loop_fiber = fiber_new(w, fn->stack, fn->guard)) == NULL)
      block_stop(w, NO_STACK, "no memory for a thread's stack");
    w->loop_fiber->thread = -1;
  }
  w->current = w->loop_fiber;
  fiber_run(w, w->loop_fiber);
}

/* ---- resolving what parked threads wait for ---- */

static void release_barrier(Worker *w) {
  int r = w->bar_op == GPUHOST_SYNC_COUNT ? w->bar_count : w->bar_op == GPUHOST_SYNC_AND ? w->bar_all
        : w->bar_op == GPUHOST_SYNC_OR ? w->bar_any : 0;
  for (int i = 0; i < w->nbarrier; i++) {
    w->at_barrier[i]->result = (unsigned long long)r;
    make_ready(w, w->at_barrier[i]);
  }
  w->nbarrier = 0;
  w->bar_count = w->bar_any = 0;
  w->bar_all = 1;
  if (backend_interrupted)
    block_stop(w, GPU_FAIL(GPU_ERR_INTERRUPTED, GPU_SRC_HOST, "cuLaunchKernel (CPU backend)"),
               "interrupted at a barrier (Ctrl-C)");
}

/* What lane l of the warp at base gets from a shuffle among the lanes of set; l's own
 * value when the source is out of the lane's segment or not in the set. */
static unsigned long long shuffled(const Worker *w, int base, unsigned set, int l, const Fiber *f) {
  int seg = l / f->width * f->width, src = l, b = f->arg & 31;   /* PTX reads the low 5 bits */
  switch (f->op) {
    case GPUHOST_SHFL_IDX: src = seg + (f->arg & (f->width - 1)); break;
    case GPUHOST_SHFL_UP: src = l - b >= seg ? l - b : l; break;
    case GPUHOST_SHFL_DOWN: src = l + b < seg + f->width ? l + b : l; break;
    default: src = (l ^ b) < seg + f->width ? (l ^ b) : l; break;
  }
  return set >> src & 1 ? w->thread_fiber[base + src]->value : f->value;
}

/* The result of a vote, match or reduction for the lane of f, over the lanes in its mask. */
static unsigned long long combined(const Worker *w, int base, int n, const Fiber *f) {
  unsigned long long acc = f->op == GPUHOST_REDUCE_AND ? ~0ull : 0, first = 0;
  unsigned in = 0, same = 0, umin = 0xffffffffu, umax = 0;
  int smin = 0x7fffffff, smax = -0x7fffffff - 1, all = 1, seen = 0;
  for (int m = 0; m < n; m++) {
    if (!(f->mask >> m & 1) || w->done[base + m]) continue;
    const Fiber *o = w->thread_fiber[base + m];
    unsigned v = (unsigned)o->value;
    in |= 1u << m;
    if (o->value == f->value) same |= 1u << m;
    if (!seen++) first = o->value; else if (o->value != first) all = 0;
    acc = f->op == GPUHOST_REDUCE_ADD ? (unsigned)(acc + v) : f->op == GPUHOST_REDUCE_AND ? (acc & v)
        : f->op == GPUHOST_REDUCE_OR ? (acc | v) : f->op == GPUHOST_REDUCE_XOR ? (acc ^ v)
        : (acc | ((unsigned long long)(o->value != 0) << m));
    if ((int)v < smin) smin = (int)v;
    if ((int)v > smax) smax = (int)v;
    if (v < umin) umin = v;
    if (v > umax) umax = v;
  }
  switch (f->op) {
    case GPUHOST_ANY: return acc != 0;
    case GPUHOST_ALL: return acc == in;
    case GPUHOST_MATCH_ANY: return same;
    case GPUHOST_MATCH_ALL: return all ? (1ull << 32) | in : 0;
    case GPUHOST_REDUCE_MIN: return (unsigned)smin;
    case GPUHOST_REDUCE_MAX: return (unsigned)smax;
    case GPUHOST_REDUCE_UMIN: return umin;
    case GPUHOST_REDUCE_UMAX: return umax;
    default: return acc;   /* ballot and the bitwise reductions */
  }
}

/* The live lanes of warp wp (not returned). */
static unsigned live_lanes(const Worker *w, int wp) {
  unsigned m = 0, n = (unsigned)lanes(w, wp);
  if (w->warp_done[wp] == 0) return n == 32 ? ~0u : (1u << n) - 1;
  for (unsigned l = 0; l < n; l++)
    if (!w->done[wp * 32 + (int)l]) m |= 1u << l;
  return m;
}

/* Whether every live lane of mask waits in a warp function (mask names f's group). */
static int group_waits(const Worker *w, int wp, unsigned mask) {
  unsigned group = mask & live_lanes(w, wp);
  for (unsigned g = group; g != 0; g &= g - 1)
    if (w->thread_fiber[wp * 32 + __builtin_ctz(g)]->state != FIBER_PARKED_WARP) return 0;
  return group != 0;
}

/* The lanes of set (live, each waiting in a warp function) resolve it: their results, and
 * they are made ready. All the warp's live lanes, or the lanes a mask names, which CUDA
 * lets go on while the warp's other lanes are elsewhere. */
static void exchange(Worker *w, int wp, unsigned set) {
  int base = wp * 32, op = w->thread_fiber[base + __builtin_ctz(set)]->op;
  for (unsigned s = set; s != 0; s &= s - 1)
    if (w->thread_fiber[base + __builtin_ctz(s)]->op != op)
      block_stop(w, UNSUPPORTED, "divergence: threads of one warp wait in different warp functions");
  for (unsigned s = set; s != 0; s &= s - 1) {
    Fiber *f = w->thread_fiber[base + __builtin_ctz(s)];
    f->result = op <= GPUHOST_SHFL_XOR ? shuffled(w, base, set, __builtin_ctz(s), f)
              : op == GPUHOST_SYNCWARP ? 0 : combined(w, base, lanes(w, wp), f);
  }
  for (unsigned s = set; s != 0; s &= s - 1) {   /* ready: group_waits no longer counts it */
    Fiber *f = w->thread_fiber[base + __builtin_ctz(s)];
    f->state = FIBER_RUNNING;
    make_ready(w, f);
    w->warp_waiting[wp]--;
  }
}

/* A warp function of a group smaller than the warp: lanes that wait, whose mask's live
 * lanes all wait too, resolve it; 0 when none can. */
static int release_group(Worker *w, int wp) {
  for (int l = 0; l < lanes(w, wp); l++) {
    const Fiber *f = w->thread_fiber[wp * 32 + l];
    if (!w->done[wp * 32 + l] && f->state == FIBER_PARKED_WARP && group_waits(w, wp, f->mask)) {
      exchange(w, wp, f->mask & live_lanes(w, wp));
      return 1;
    }
  }
  return 0;
}

/* With no thread ready (each live one parked), those in __activemask(): each gets the
 * lanes of its warp that wait there too, as a GPU's are the lanes at that point. */
static int release_masks(Worker *w) {
  if (w->nmask == 0) return 0;
  for (int wp = 0; wp * 32 < w->nthreads; wp++) {
    unsigned set = 0;
    for (int l = 0; l < lanes(w, wp); l++)
      if (w->thread_fiber[wp * 32 + l]->state == FIBER_PARKED_MASK) set |= 1u << l;
    for (unsigned s = set; s != 0; s &= s - 1) {
      Fiber *f = w->thread_fiber[wp * 32 + __builtin_ctz(s)];
      f->result = set;
      f->state = FIBER_RUNNING;
      make_ready(w, f);
    }
  }
  w->nmask = 0;
  return 1;
}

/* With no thread ready: an __activemask(), or (after threads returned) a barrier or a
 * warp that has all its live threads, resolved; 0 when none could be. */
static int release_waiting(Worker *w) {
  if (release_masks(w)) return 1;
  if (w->nbarrier > 0 && w->nbarrier == w->nthreads - w->finished) {
    release_barrier(w);
    return 1;
  }
  for (int wp = 0; wp * 32 < w->nthreads; wp++) {
    if (w->warp_waiting[wp] > 0 && w->warp_waiting[wp] == lanes(w, wp) - w->warp_done[wp]) {
      exchange(w, wp, live_lanes(w, wp));
      return 1;
    }
    if (w->warp_waiting[wp] > 0 && release_group(w, wp)) return 1;
  }
  return 0;
}

/* The next block of the chunk, begun; 0 at the chunk's end or when the launch must stop. */
static int next_block(Worker *w) {
  if (w->block + 1 >= w->last || w->job->stop || backend_interrupted) return 0;
  w->block++;
  block_begin(w);
  return 1;
}

/* From fiber `from` (parked, or its thread returned) to the next ready one; when every
 * thread returned, on to the next block, or back to the scheduler. */
static inline __attribute__((always_inline)) void next(Worker *w, Fiber *from) {
  Fiber *to = NULL;
  for (;;) {
    if (w->rcount > 0) {
      to = w->ready[w->rhead];
      w->rhead = (w->rhead + 1) & RING;
      w->rcount--;
      w->current_thread = to->thread;
      break;
    }
    if (w->finished == w->nthreads) {
      if (next_block(w)) continue;
      break;
    }
    if (!release_waiting(w))
      block_stop(w, UNSUPPORTED, "deadlock: %s",
                 w->nbarrier > 0 ? "some threads wait at __syncthreads() while others wait in a warp function"
                                 : "the threads of a warp wait in a warp function some of them never reach");
  }
  w->current = to;
  fiber_switch(w, from, to);
}

/* What every fiber runs: its thread, block after block; or the loops over a chunk. */
void fiber_main(Worker *w, Fiber *f) {
  for (;;) {
    if (w->fast) {
      w->job->fn->entry->loops(&w->launch, w->block, w->last);
      f->state = FIBER_IDLE;
      w->current = NULL;
      fiber_switch(w, f, NULL);
      f->state = FIBER_RUNNING;
      continue;
    }
    w->blk.thread = f->index;
    f->entry = w->job->fn->entry;
    f->entry->run_thread(&w->blk);   /* its threads, block after block (rt_barrier's EXIT) */
  }
}

/* ---- what kernels call ---- */

static Fiber *park(Worker *w, int state) {
  Fiber *f = w->current;
  if (w->fast)
    block_stop(w, UNSUPPORTED, "a barrier or warp function reached from code the CPU backend "
               "did not see as the kernel's (through a function pointer, or in a header outside "
               "the kernel's source and -I folders)");
  f->state = state;
  return f;
}

/* A barrier, or (GPUHOST_EXIT) a thread that returned: it waits for the next block, to
 * run the same thread there (1), or for a launch of another kernel, when it leaves the
 * library for fiber_main (0). Both park at the same call, so that a switch from one to the
 * other returns where the processor expects. */
static int rt_barrier(int op, int pred) {
  Worker *w = cpu_self;
  Fiber *f = w->current;
  if (op == GPUHOST_EXIT) {
    w->done[f->thread] = 1;
    w->warp_done[f->thread / 32]++;
    w->finished++;
    f->state = FIBER_AT_END;
  } else {
    park(w, FIBER_PARKED_BLOCK);
    w->at_barrier[w->nbarrier++] = f;
    w->bar_op = op;
    w->bar_count += pred != 0;
    w->bar_all &= pred != 0;
    w->bar_any |= pred != 0;
    if (w->nbarrier == w->nthreads - w->finished) release_barrier(w);
  }
  next(w, f);
  f->state = FIBER_RUNNING;
  if (op != GPUHOST_EXIT) return (int)f->result;
  w->blk.thread = f->index;
  return f->entry == w->job->fn->entry;
}

static unsigned long long rt_warp(int op, unsigned mask, unsigned long long value, int arg, int width) {
  Worker *w = cpu_self;
  int wp = w->current_thread / 32;
  if (op <= GPUHOST_SHFL_XOR && (width < 1 || width > 32 || (width & (width - 1))))
    block_stop(w, UNSUPPORTED, "width: a warp function's width must be a power of two up to 32");
  Fiber *f = park(w, op == GPUHOST_ACTIVEMASK ? FIBER_PARKED_MASK : FIBER_PARKED_WARP);
  if (op == GPUHOST_ACTIVEMASK) {
    w->nmask++;   /* a rendezvous that waits for no lane: release_masks */
  } else {
    f->op = op;
    f->mask = mask;
    f->value = value;
    f->arg = arg;
    f->width = width;
    if (++w->warp_waiting[wp] == lanes(w, wp) - w->warp_done[wp]) exchange(w, wp, live_lanes(w, wp));
    /* a group smaller than the warp, checked when its last lane arrives (lanes run in order;
     * release_waiting finds one completed otherwise) */
    else if (mask != 0 && ~mask != 0 && w->current_thread % 32 == 31 - __builtin_clz(mask) &&
             group_waits(w, wp, mask))
      exchange(w, wp, mask & live_lanes(w, wp));
  }
  next(w, f);
  f->state = FIBER_RUNNING;
  return f->result;
}

static void *rt_dynamic_shared(void) { return cpu_self->shared; }

static void rt_stop(int why, const char *what, const char *file, unsigned line) {
  Worker *w = cpu_self;
  if (why == GPUHOST_STOP_ASSERT)
    block_stop(w, GPU_FAIL(CUDA_ERROR_ASSERT, GPU_SRC_CUDA, "cuLaunchKernel (CPU backend)"),
               "%s:%u: Assertion `%s` failed.", file ? file : "?", line, what);
  if (why == GPUHOST_STOP_TRAP)
    block_stop(w, GPU_FAIL(CUDA_ERROR_LAUNCH_FAILED, GPU_SRC_CUDA, "cuLaunchKernel (CPU backend)"),
               "%s", what);
  block_stop(w, UNSUPPORTED, "the CPU backend does not support %s", what);
}

static void *rt_device_malloc(unsigned long n, unsigned long align) { return cpu_device_malloc(n, align); }

static void rt_device_free(void *p) {
  if (cpu_device_free(p) != 0)
    block_stop(cpu_self, GPU_FAIL(CUDA_ERROR_ILLEGAL_ADDRESS, GPU_SRC_CUDA, "free (CPU backend)"),
               "free(%p): not a pointer device malloc gave (or freed already)", p);
}

const gpuhost_runtime cpu_runtime = {rt_barrier, rt_warp, rt_dynamic_shared, rt_stop,
                                     rt_device_malloc, rt_device_free};
