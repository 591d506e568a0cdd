/* fiber.c: the fibers a block's threads run on. On x86-64 a context switch of our own
 * saves the callee-saved registers, the FPU and SSE control words and the stack pointer;
 * elsewhere ucontext does it. Each fiber's stack is mapped with a guard page below it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "cpu_internal.h"

/* Under AddressSanitizer, every switch between stacks is announced (start before, finish
 * after), or ASan takes a fiber's stack for the worker's and reports false errors. Fake
 * stacks are not kept across switches (NULL): run with detect_stack_use_after_return=0. */
#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#ifdef FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
static _Thread_local const void *sched_bottom;   /* the worker's own stack */
static _Thread_local size_t sched_size;
#define TO_STACK(bottom, size) __sanitizer_start_switch_fiber(NULL, (bottom), (size))
#define ON_STACK(from_bottom, from_size) __sanitizer_finish_switch_fiber(NULL, (from_bottom), (from_size))
#define TO_SCHED() TO_STACK(sched_bottom, sched_size)
#define ON_FIBER() ON_STACK(&sched_bottom, &sched_size)
#else
#define TO_STACK(bottom, size) ((void)0)
#define ON_STACK(from_bottom, from_size) ((void)0)
#define TO_SCHED() ((void)0)
#define ON_FIBER() ((void)0)
#endif

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

/* The body of every fiber: the kernel library's loop over the threads not yet started. */
static void runner(void *arg) {
  ON_FIBER();
  Worker *w = arg;
  Fiber *f = w->current;
  w->job->fn->entry->run(&w->blk, w->job->args);
  f->thread = -1;
  f->state = FIBER_DONE;
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
void fiber_switch_to(Worker *w, Fiber *f) {
  TO_STACK(f->stack, FIBER_STACK);
  gpuhost_fiber_switch(&w->sched_sp, f->sp);
  ON_STACK(NULL, NULL);
}
void fiber_yield(Worker *w, Fiber *f) {
  TO_SCHED();
  gpuhost_fiber_switch(&f->sp, w->sched_sp);
  ON_FIBER();
}
#else
static void fiber_prepare(Fiber *f, Worker *w) {
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = FIBER_STACK;
  f->uc.uc_link = NULL;
  makecontext(&f->uc, (void (*)(void))runner, 1, w);
}
void fiber_switch_to(Worker *w, Fiber *f) {
  TO_STACK(f->stack, FIBER_STACK);
  swapcontext(&w->sched_uc, &f->uc);
  ON_STACK(NULL, NULL);
}
void fiber_yield(Worker *w, Fiber *f) {
  TO_SCHED();
  swapcontext(&f->uc, &w->sched_uc);
  ON_FIBER();
}
#endif

Fiber *fiber_new(Worker *w) {
  Fiber *f = w->free_fibers;
  if (f) {
    w->free_fibers = f->next_free;
  } else {
    if ((f = calloc(1, sizeof *f)) == NULL) return NULL;
    f->stack = mmap(NULL, FIBER_STACK, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (f->stack == MAP_FAILED) { free(f); return NULL; }
    mprotect(f->stack, 4096, PROT_NONE);   /* a stack overflow faults */
  }
  f->thread = -1;
  f->state = FIBER_RUNNING;
  fiber_prepare(f, w);
  w->block_fibers[w->nblock_fibers++] = f;
  return f;
}

/* Runs on the worker's stack: after a fault, pool.c jumped there from a fiber's without a
 * switch, so ASan is told again where it is. */
void fiber_release(Worker *w, Fiber *f) {
  TO_SCHED();
  ON_STACK(NULL, NULL);
  f->next_free = w->free_fibers;
  w->free_fibers = f;
}
