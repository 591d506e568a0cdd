/* reduce.h: what reduce.c (the reduction engine: reducers, their kernels, layouts and
 * launches) and reductions.c (gpu.sum, gpu.argmax, ... and gpu.reduction) share. */
#ifndef GPUHOST_REDUCE_H
#define GPUHOST_REDUCE_H

#include "gpu.h"

#define GPU_REDUCER_T "gpu.reducer"
#define REDUCER_UV_DESC 1   /* a reducer's user value: gpu.reduction's description */

/* A reducer: a built-in reduction (kind names its row in lua/reduction.lua) or one that
 * gpu.reduction made (kind "custom", its description kept as the user value). Its
 * kernels are kept per combination of operand dtypes. */
typedef struct Reducer {
  char name[40];               /* for messages: gpu.<name> */
  char kind[24];
  int nin, nout;
  int has_identity;            /* 0: reducing no elements is an error (min, max, argmax) */
  GpuDtype declared[GPU_MAXOPS];   /* gpu.reduction's: each operand's dtype */
  int nentries, capacity;
  struct REntry *entries;
} Reducer;

/* One reduction: the operands (inputs, then outputs), each array's layout over the full
 * shape for inputs (broadcast) and its own for outputs; which dims of the full shape are
 * reduced; the result's dtype R (what the reducer computes, before out= converts it). */
typedef struct RedCall {
  int nin, nout;
  Operand ops[GPU_MAXOPS];
  GpuShape full;
  int reduced[GPU_MAXDIM];
  GpuDtype result;
  double param[2];
  CUstream stream;
} RedCall;

/* [-0, +1, m] A new reducer (a userdata on the stack). */
Reducer *reducer_new(lua_State *L, const char *name, const char *kind, int nin, int nout, int has_identity);
Reducer *reducer_check(lua_State *L, int idx);   /* [-0, +0, v] */
/* [-0, +0, e] Runs r (at ridx) for c: its kernel for these dtypes made on first use. */
void reduce_launch(lua_State *L, int ridx, Reducer *r, RedCall *c);
/* [-0, +0, e] Kernel `index` of r's program for c's dtypes (scan.c: the scans' two), and
 * the size of its accumulator. */
CUfunction reducer_function(lua_State *L, int ridx, Reducer *r, const RedCall *c, int index, size_t *accsize);
/* [-1, +0, e] Frees the array on top (a scratch buffer) now, unless a graph records it. */
void scratch_drop(lua_State *L);
/* Whether kernels are planned for a GPU: the backend's, unless gpu._reduce_plan says. */
int reduce_plan_gpu(void);
int units_of_device(void);   /* multiprocessors (or cores) of the current device */
void scan_open(lua_State *L);         /* gpu.cumsum, gpu.cumprod */
#define SCAN_CUMSUM "gpuhost.cumsum"  /* the registry's gpu.cumsum, for gpu.unique (sort.c) */
void sort_open(lua_State *L);         /* gpu.sort, argsort, topk, unique */
void reduce_open(lua_State *L);       /* the engine: gpu._set_reduce_builder */
void reductions_open(lua_State *L);   /* gpu.sum ... and methods; gpu._reducer */

#endif
