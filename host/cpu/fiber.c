/* fiber.c: the fibers a block's threads run on. On x86-64 a context switch of our own
 * saves the callee-saved registers and the stack pointer, and one fiber switches straight
 * to the next (sched.c picks it); elsewhere ucontext does it. The floating-point control
 * words are not switched: kernel code does not change them. Each fiber's stack is sized
 * from the kernel's largest frame and mapped above a guard region larger than that frame;
 * kernels are compiled with stack-clash protection, so no frame can step over the guard.
 * The stack's first 16 KiB below its top hold the fiber's record and its cache colour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "cpu_internal.h"

#if defined(__x86_64__)
void gpuhost_fiber_boot(void);
__asm__(
  ".text\n"
  ".globl gpuhost_fiber_switch\n.hidden gpuhost_fiber_switch\n.type gpuhost_fiber_switch,@function\n"
  "gpuhost_fiber_switch:\n"
  "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
  "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
  "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
  "  ret\n"
  ".size gpuhost_fiber_switch, .-gpuhost_fiber_switch\n"
  ".globl gpuhost_fiber_boot\n.hidden gpuhost_fiber_boot\n.type gpuhost_fiber_boot,@function\n"
  "gpuhost_fiber_boot:\n"
  "  movq %r12, %rdi\n  callq *%r13\n  ud2\n"
  ".size gpuhost_fiber_boot, .-gpuhost_fiber_boot\n");
#endif

/* The body of every fiber; it never returns (sched.c switches away for the last time). */
static void fiber_entry(void *arg) {
  Worker *w = arg;
  fiber_asan_on(w);
  fiber_main(w, w->current);
}

#ifdef FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
/* Fake stacks are not kept across switches (NULL): run with detect_stack_use_after_return=0. */
void fiber_asan_to(Worker *w, const Fiber *to) {
  if (to) __sanitizer_start_switch_fiber(NULL, to->map + to->guard, (size_t)((const char *)to - to->map) - to->guard);
  else __sanitizer_start_switch_fiber(NULL, w->sched_bottom, w->sched_size);
}
void fiber_asan_on(Worker *w) {
  if (w->from_sched) {   /* what we came from is the worker's own stack: remember it */
    w->from_sched = 0;
    __sanitizer_finish_switch_fiber(NULL, &w->sched_bottom, &w->sched_size);
  } else {
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
  }
}
#endif

/* pool.c jumped to the worker's stack from a fiber's without a switch (a stopped block):
 * ASan is told again where it is. */
void fiber_after_jump(Worker *w) {
  w->from_sched = 0;
  fiber_asan_to(w, NULL);
  fiber_asan_on(w);
}

/* A fiber's record lies at the top of its mapping, its stack just below. Mappings start
 * at multiples of a page, so the tops would all fall in the same cache sets and a block's
 * fibers, switched in turn, would evict each other: each fiber's record (and so its
 * stack) starts a different number of cache lines below the top. */
#define COLORS 256
#define RECORD ((sizeof(Fiber) + 63) / 64 * 64)

#if defined(__x86_64__)
static void fiber_prepare(Fiber *f, Worker *w) {
  uintptr_t top = (uintptr_t)f & ~(uintptr_t)15;
  uint64_t *a = (uint64_t *)(top - 16);   /* after `ret`, rsp is 16-aligned for the call */
  a[-1] = (uint64_t)(uintptr_t)gpuhost_fiber_boot;
  a[-2] = 0;                              /* rbp */
  a[-3] = 0;                              /* rbx */
  a[-4] = (uint64_t)(uintptr_t)w;         /* r12: the argument */
  a[-5] = (uint64_t)(uintptr_t)fiber_entry;   /* r13: the function */
  a[-6] = 0;                              /* r14 */
  a[-7] = 0;                              /* r15 */
  f->sp = &a[-7];
}
#else
void fiber_run(Worker *w, Fiber *f) {
  w->from_sched = 1;
  fiber_asan_to(w, f);
  swapcontext(&w->sched_uc, &f->uc);
  fiber_asan_on(w);
}
void fiber_switch(Worker *w, Fiber *from, Fiber *to) {
  fiber_asan_to(w, to);
  swapcontext(&from->uc, to ? &to->uc : &w->sched_uc);
  fiber_asan_on(w);
}
static void fiber_prepare(Fiber *f, Worker *w) {
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->map + f->guard;
  f->uc.uc_stack.ss_size = (size_t)((char *)f - f->map) - f->guard;
  f->uc.uc_link = NULL;
  makecontext(&f->uc, (void (*)(void))fiber_entry, 1, w);
}
#endif

void fiber_unmap(Fiber *f) { munmap(f->map, f->map_size); }

Fiber *fiber_new(Worker *w, size_t stack, size_t guard) {
  Fiber *f;
  while ((f = w->free_fibers) != NULL && (f->map_size != stack + guard || f->guard != guard)) {
    w->free_fibers = f->next_free;    /* made for another kernel's frames */
    fiber_unmap(f);
  }
  if (f) {
    w->free_fibers = f->next_free;
  } else {
    size_t size = stack + guard;
    char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) return NULL;
    mprotect(map, guard, PROT_NONE);   /* a frame that overflows the stack faults here */
    f = (Fiber *)(map + size - RECORD - (w->fibers_made++ * 5 % COLORS) * 64);
    memset(f, 0, sizeof *f);
    f->map = map;
    f->map_size = size;
    f->guard = guard;
  }
  f->state = FIBER_RUNNING;
  fiber_prepare(f, w);
  return f;
}

void fiber_release(Worker *w, Fiber *f) {
  f->state = FIBER_DONE;
  f->next_free = w->free_fibers;
  w->free_fibers = f;
}

void fiber_free_all(Worker *w) {
  while (w->free_fibers) {
    Fiber *f = w->free_fibers;
    w->free_fibers = f->next_free;
    fiber_unmap(f);
  }
}

int fiber_in_guard(const Fiber *f, const void *addr) {
  const char *a = addr;
  return f && a >= f->map && a < f->map + f->guard;
}
