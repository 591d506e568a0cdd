/* nvtx.c: ranges and marks for Nsight, through NVTX 3 (header-only, in the CUDA toolkit).
 * With no tool attached, the first call finds no injection library and every later call
 * is a call to an empty function. With tracing on, the CUDA backend names each kernel
 * launch (by the kernel's name) and each copy (direction and size) as a range. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvtx3/nvToolsExt.h>
#include "cuda_internal.h"

int cuda_trace_on;   /* read on each launch and copy: set by gpu.trace and cuda_trace_init */

void cuda_range_push(const char *name) { nvtxRangePushA(name); }
void cuda_range_pop(void) { nvtxRangePop(); }
void cuda_mark(const char *name) { nvtxMarkA(name); }
void cuda_trace(int on) { cuda_trace_on = on != 0; }

/* GPUHOST_TRACE=1 turns tracing on from the start (cuda_load calls this once). */
void cuda_trace_init(void) {
  const char *env = getenv("GPUHOST_TRACE");
  if (env != NULL && strcmp(env, "1") == 0) cuda_trace_on = 1;
}

/* "htod 4.0 MiB": the range a copy of n bytes gets */
void cuda_trace_copy(const char *what, size_t n) {
  char name[64];
  if (n >= (1u << 20)) snprintf(name, sizeof name, "%s %.1f MiB", what, (double)n / (1 << 20));
  else if (n >= 1024) snprintf(name, sizeof name, "%s %.1f KiB", what, (double)n / 1024);
  else snprintf(name, sizeof name, "%s %zu B", what, n);
  nvtxRangePushA(name);
}
