/* gpuhost_cpu_abi.h: what a kernel library compiled for the CPU backend and the backend's
 * runtime (host/cpu/) share, declared once for C and C++: the running thread's indices,
 * the runtime's entry points, a block's bookkeeping and the table of kernels. */
#ifndef GPUHOST_CPU_ABI_H
#define GPUHOST_CPU_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuhost_uint3 { unsigned int x, y, z; } gpuhost_uint3;

/* threadIdx, blockIdx, blockDim, gridDim of the running thread: the runtime defines this
 * in the process's static TLS and writes it before each thread runs, so a kernel reads an
 * index with one %fs-relative load, not a call. */
typedef struct gpuhost_thread_state {
  gpuhost_uint3 thread, block, block_dim, grid_dim;
} gpuhost_thread_state;

/* What kernels call in the runtime (host/cpu/sched.c). */
typedef struct gpuhost_runtime {
  int (*barrier)(int op, int pred);   /* op: GPUHOST_SYNC_* */
  unsigned long long (*warp)(int op, unsigned mask, unsigned long long value, int arg, int width);
  void *(*dynamic_shared)(void);      /* the block's extern __shared__ memory */
  void (*unsupported)(const char *what);   /* stops the block: the backend lacks `what` */
} gpuhost_runtime;

enum { GPUHOST_SYNC, GPUHOST_SYNC_COUNT, GPUHOST_SYNC_AND, GPUHOST_SYNC_OR };
enum { GPUHOST_SHFL_IDX, GPUHOST_SHFL_UP, GPUHOST_SHFL_DOWN, GPUHOST_SHFL_XOR, GPUHOST_BALLOT,
       GPUHOST_ANY, GPUHOST_ALL, GPUHOST_SYNCWARP, GPUHOST_ACTIVEMASK };

/* The running block: its threads are taken in order by whichever fiber runs the kernel
 * library's thread loop; done[t] is set when thread t returns. */
typedef struct gpuhost_block {
  int next_unstarted, nthreads, finished, current;
  unsigned char *done;
  unsigned bx, by;
} gpuhost_block;

/* One kernel of a library: runs the block's threads not yet started, with args[i]
 * pointing to argument i; nparams and sizes[] are its parameters' count and sizes. */
typedef struct gpuhost_entry {
  void (*run)(gpuhost_block *block, void **args);
  int nparams;
  const long *sizes;
} gpuhost_entry;

/* A library exports gpuhost_cpu_bind (the runtime gives it its table),
 * gpuhost_entry_count and gpuhost_entries[gpuhost_entry_count]. */

#ifdef __cplusplus
}
#endif
#endif
