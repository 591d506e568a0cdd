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

/* A kernel launch's range: the kernel's name as its source spells it. A mangled name
 * (a kernel not declared extern "C") is read back to its identifier, with its namespaces:
 * _Z15uniform_float32Pfx... gives uniform_float32, _ZN3gpu4fillE... gives gpu::fill. */
void cuda_trace_launch(const char *name) {
  char out[128];
  size_t o = 0;
  const char *p = name;
  if (strncmp(p, "_Z", 2) != 0) { nvtxRangePushA(name); return; }
  p += 2;
  int nested = *p == 'N';
  if (nested) p++;
  while (*p >= '1' && *p <= '9') {   /* <length><identifier>, once or (nested) more */
    char *end;
    unsigned long len = strtoul(p, &end, 10);
    if (strnlen(end, len) < len || o + len + 3 > sizeof out) break;
    if (o > 0) { out[o++] = ':'; out[o++] = ':'; }
    memcpy(out + o, end, len);
    o += len;
    p = end + len;
    if (!nested) break;
  }
  out[o] = '\0';
  nvtxRangePushA(o > 0 ? out : name);
}

/* "htod 4.0 MiB": the range a copy of n bytes gets */
void cuda_trace_copy(const char *what, size_t n) {
  char name[64];
  if (n >= (1u << 20)) snprintf(name, sizeof name, "%s %.1f MiB", what, (double)n / (1 << 20));
  else if (n >= 1024) snprintf(name, sizeof name, "%s %.1f KiB", what, (double)n / 1024);
  else snprintf(name, sizeof name, "%s %zu B", what, n);
  nvtxRangePushA(name);
}
