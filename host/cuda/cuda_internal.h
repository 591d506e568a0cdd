/* cuda_internal.h: what the CUDA backend's files (cuda.c, nvrtc.c) share: how a library
 * opened with dlopen remembers whether it loaded, and NVRTC's part of the table. */
#ifndef GPUHOST_CUDA_INTERNAL_H
#define GPUHOST_CUDA_INTERNAL_H

#include "backend.h"

/* A library opened on first use. Once it failed, every later call fails the same way
 * (numba's driver keeps its initialization error for the same reason). */
typedef struct Library {
  int loaded;                 /* 1 after a successful load */
  GpuResult result;           /* the failure, kept; detail points at message */
  char message[1024];
} Library;
/* Records a failure of lib (code, the call that failed, why as printf) and returns it. */
GpuResult library_fail(Library *lib, int code, GpuSource source, const char *call,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* nvrtc.c */
GpuResult nvrtc_identity(char *out, size_t n);
GpuResult nvrtc_compile_cuda(const GpuCompileJob *job, GpuImage *out);

/* nvtx.c: NVTX ranges and marks; with tracing on, launches and copies are ranges too */
void cuda_range_push(const char *name);
void cuda_range_pop(void);
void cuda_mark(const char *name);
void cuda_trace(int on);
int cuda_tracing(void);
void cuda_trace_copy(const char *what, size_t n);   /* pushes a range; pop it after */

#endif
