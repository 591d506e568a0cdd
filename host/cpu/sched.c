/* sched.c: running one block. A block starts as one fiber that runs its threads one after
 * another as a plain loop (the kernel library's); only a thread that reaches a barrier or
 * a warp function parks, and a new fiber takes up the threads not yet started. When every
 * live thread is parked, the barrier (or the warp's exchange) is resolved and the parked
 * threads resume in order. What kernels call in the runtime is here too. */
#include <stdio.h>
#include <string.h>
#include "cpu_internal.h"

static void set_thread(Worker *w, int t) {
  gpuhost_uint3 b = w->job->block;
  w->tls->thread.x = (unsigned)t % b.x;
  w->tls->thread.y = ((unsigned)t / b.x) % b.y;
  w->tls->thread.z = (unsigned)t / (b.x * b.y);
  w->blk.current = t;
}

/* Switches to f and back; f has parked or finished when this returns. */
static void resume(Worker *w, Fiber *f) {
  w->current = f;
  f->state = FIBER_RUNNING;
  if (f->thread >= 0) set_thread(w, f->thread);
  fiber_switch_to(w, f);
  w->current = NULL;
  if (f->state == FIBER_DONE) fiber_release(w, f);
}

/* Stops the block: unsupported use or a deadlock; the message says which. */
static void block_abort(Worker *w, const char *fmt, const char *what) {
  snprintf(w->message, sizeof w->message, fmt, what);
  siglongjmp(w->jb, 2);
}

/* ---- what kernels call ---- */

static int rt_barrier(int op, int pred) {
  Worker *w = cpu_self;
  Fiber *f = w->current;
  f->thread = w->blk.current;
  f->state = FIBER_PARKED_BLOCK;
  f->op = op;
  f->pred = pred;
  w->parked[f->thread] = f;
  fiber_yield(w, f);
  return (int)f->result;
}

/* The live threads of the calling thread's warp; no exchange. */
static unsigned active_mask(Worker *w, int thread) {
  int base = thread / 32 * 32;
  unsigned m = 0;
  for (int l = 0; l < 32 && base + l < w->blk.nthreads; l++)
    if (!w->blk.done[base + l]) m |= 1u << l;
  return m;
}

static unsigned long long rt_warp(int op, unsigned mask, unsigned long long value, int arg, int width) {
  Worker *w = cpu_self;
  Fiber *f = w->current;
  f->thread = w->blk.current;
  if (op == GPUHOST_ACTIVEMASK) return active_mask(w, f->thread);
  if (width < 1 || width > 32 || (width & (width - 1)))
    block_abort(w, "%s: a warp function's width must be a power of two up to 32", "width");
  f->state = FIBER_PARKED_WARP;
  f->op = op;
  f->mask = mask;
  f->value = value;
  f->arg = arg;
  f->width = width;
  w->parked[f->thread] = f;
  fiber_yield(w, f);
  return f->result;
}

static void *rt_dynamic_shared(void) { return cpu_self->shared; }

static void rt_unsupported(const char *what) {
  block_abort(cpu_self, "the CPU backend does not support %s", what);
}

const gpuhost_runtime cpu_runtime = {rt_barrier, rt_warp, rt_dynamic_shared, rt_unsupported};

/* ---- resolving what parked threads wait for ---- */

static Fiber *parked_at(Worker *w, int t) { return w->blk.done[t] ? NULL : w->parked[t]; }

/* The op every live thread of the warp at base waits in; -1 when some live thread does not
 * wait in a warp function (or the warp has none live). */
static int warp_op(Worker *w, int base, int n) {
  int op = -1;
  for (int l = 0; l < n; l++) {
    if (w->blk.done[base + l]) continue;
    Fiber *f = w->parked[base + l];
    if (f == NULL || f->state != FIBER_PARKED_WARP) return -1;
    if (op >= 0 && f->op != op)
      block_abort(w, "%s: threads of one warp wait in different warp functions", "divergence");
    op = f->op;
  }
  return op;
}

/* Gives every waiting lane of the warp at base its result, then resumes them. */
static void exchange(Worker *w, int base, int n, int op) {
  unsigned long long vote = 0;
  int any = 0, all = 1;
  for (int l = 0; l < n; l++) {
    Fiber *f = parked_at(w, base + l);
    if (f && (f->mask >> l & 1)) {
      if (f->value) { vote |= 1ull << l; any = 1; } else all = 0;
    }
  }
  for (int l = 0; l < n; l++) {
    Fiber *f = parked_at(w, base + l);
    if (!f) continue;
    int seg = l / f->width * f->width, src = l;
    switch (op) {
      case GPUHOST_SHFL_IDX: src = seg + (f->arg % f->width + f->width) % f->width; break;
      case GPUHOST_SHFL_UP: src = l - f->arg >= seg ? l - f->arg : l; break;
      case GPUHOST_SHFL_DOWN: src = l + f->arg < seg + f->width ? l + f->arg : l; break;
      case GPUHOST_SHFL_XOR: src = (l ^ f->arg) < seg + f->width ? (l ^ f->arg) : l; break;
      default: break;
    }
    Fiber *s = src < n ? parked_at(w, base + src) : NULL;
    f->result = op <= GPUHOST_SHFL_XOR ? (s ? s->value : f->value)
              : op == GPUHOST_BALLOT ? vote : op == GPUHOST_ANY ? (unsigned long long)any
              : op == GPUHOST_ALL ? (unsigned long long)all : 0;
  }
  for (int l = 0; l < n; l++) {
    Fiber *f = parked_at(w, base + l);
    if (f) { w->parked[base + l] = NULL; resume(w, f); }
  }
}

/* Resolves the first warp whose live threads all wait in a warp function; 1 if one was. */
static int resolve_warp(Worker *w) {
  for (int base = 0; base < w->blk.nthreads; base += 32) {
    int n = w->blk.nthreads - base < 32 ? w->blk.nthreads - base : 32;
    int op = warp_op(w, base, n);
    if (op < 0) continue;
    exchange(w, base, n, op);
    return 1;
  }
  return 0;
}

static void resolve_barrier(Worker *w) {
  int count = 0, all = 1, any = 0, op = -1;
  for (int t = 0; t < w->blk.nthreads; t++) {
    if (w->blk.done[t]) continue;
    Fiber *f = w->parked[t];
    if (f == NULL || f->state != FIBER_PARKED_BLOCK)
      block_abort(w, "%s: some threads wait at __syncthreads() while others wait in a warp function",
                  "deadlock");
    op = f->op;
    count += f->pred != 0;
    all &= f->pred != 0;
    any |= f->pred != 0;
  }
  int result = op == GPUHOST_SYNC_COUNT ? count : op == GPUHOST_SYNC_AND ? all
             : op == GPUHOST_SYNC_OR ? any : 0;
  for (int t = 0; t < w->blk.nthreads; t++) {
    Fiber *f = parked_at(w, t);
    if (f) { f->result = (unsigned long long)result; w->parked[t] = NULL; resume(w, f); }
  }
}

void run_block(Worker *w, long b) {
  Job *j = w->job;
  w->tls->block.x = (unsigned)(b % j->grid.x);
  w->tls->block.y = (unsigned)(b / j->grid.x % j->grid.y);
  w->tls->block.z = (unsigned)(b / ((long)j->grid.x * j->grid.y));
  w->blk.nthreads = (int)(j->block.x * j->block.y * j->block.z);
  w->blk.next_unstarted = 0;
  w->blk.finished = 0;
  w->nblock_fibers = 0;
  w->blk.bx = j->block.x;
  w->blk.by = j->block.y;
  w->tls->thread.y = w->tls->thread.z = 0;   /* the library's fast path sets only x */
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
