/* gpuhost_cpu_abi.h: what a kernel library compiled for the CPU backend and the backend's
 * runtime (host/cpu/) share, declared once for C and C++: a launch, a block's bookkeeping,
 * the runtime's entry points and the table of kernels. The thread indices are the
 * library's own (static thread-locals in kernels/cpu.h): the runtime never writes them, so
 * the C++ compiler knows no pointer in a kernel can reach them, and a block's thread loop
 * vectorises. */
#ifndef GPUHOST_CPU_ABI_H
#define GPUHOST_CPU_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuhost_uint3 { unsigned int x, y, z; } gpuhost_uint3;

/* What every block of a launch shares. */
typedef struct gpuhost_launch {
  gpuhost_uint3 grid, block;
  void **args;                       /* args[i] points to argument i */
  const volatile int *stop;          /* nonzero: start no further block (a failure elsewhere) */
  const volatile int *interrupt;     /* nonzero: Ctrl-C (backend_interrupted) */
  volatile long *entered;            /* loops writes the block it enters (for reports) */
} gpuhost_launch;

/* A block on the fiber path, and the thread of it that run_thread is to run. */
typedef struct gpuhost_block {
  const gpuhost_launch *launch;
  gpuhost_uint3 index;               /* blockIdx */
  gpuhost_uint3 thread;              /* threadIdx */
} gpuhost_block;

/* What kernels call in the runtime (host/cpu/sched.c). */
typedef struct gpuhost_runtime {
  int (*barrier)(int op, int pred);  /* op: GPUHOST_SYNC_* */
  unsigned long long (*warp)(int op, unsigned mask, unsigned long long value, int arg, int width);
  void *(*dynamic_shared)(void);     /* the block's extern __shared__ memory */
  /* Stops the block (never returns): why is GPUHOST_STOP_*; what, file and line say more. */
  void (*stop)(int why, const char *what, const char *file, unsigned line);
  /* the device heap: NULL when full, or for an alignment that is not a power of two or
   * is over a page */
  void *(*device_malloc)(unsigned long size, unsigned long align);
  void (*device_free)(void *p);      /* stops the block for a pointer the heap did not give */
} gpuhost_runtime;

/* GPUHOST_EXIT: the thread returned; barrier() then parks it until the same thread of the
 * next block is to run (it returns 1), or the fiber is wanted for another kernel (0). */
enum { GPUHOST_SYNC, GPUHOST_SYNC_COUNT, GPUHOST_SYNC_AND, GPUHOST_SYNC_OR, GPUHOST_EXIT };
enum { GPUHOST_SHFL_IDX, GPUHOST_SHFL_UP, GPUHOST_SHFL_DOWN, GPUHOST_SHFL_XOR, GPUHOST_BALLOT,
       GPUHOST_ANY, GPUHOST_ALL, GPUHOST_MATCH_ANY, GPUHOST_MATCH_ALL, GPUHOST_REDUCE_ADD,
       GPUHOST_REDUCE_MIN, GPUHOST_REDUCE_MAX, GPUHOST_REDUCE_UMIN, GPUHOST_REDUCE_UMAX,
       GPUHOST_REDUCE_AND, GPUHOST_REDUCE_OR, GPUHOST_REDUCE_XOR, GPUHOST_SYNCWARP,
       GPUHOST_ACTIVEMASK };
enum { GPUHOST_STOP_UNSUPPORTED, GPUHOST_STOP_ASSERT, GPUHOST_STOP_TRAP };

/* One kernel of a library. run_thread runs one thread of a block, then, as long as
 * barrier(GPUHOST_EXIT) says so, the same thread of the blocks that follow (the fiber path:
 * each thread has a fiber, and barriers and warp functions park it). loops runs blocks
 * first..last-1 of a launch, whole, as plain loops over the threads, for launches whose
 * grid.x * block.x fits an int (NULL for kernels that name a barrier or warp function). nparams and sizes[] are the parameters' count and sizes;
 * max_threads is __launch_bounds__' first argument (0: none). */
typedef struct gpuhost_entry {
  void (*run_thread)(const gpuhost_block *b);
  void (*loops)(const gpuhost_launch *launch, long first, long last);
  int nparams;
  const long *sizes;
  long max_threads;
} gpuhost_entry;

/* A library exports gpuhost_cpu_bind (the runtime gives it its table),
 * gpuhost_entry_count and gpuhost_entries[gpuhost_entry_count]. */

#ifdef __cplusplus
}
#endif
#endif
