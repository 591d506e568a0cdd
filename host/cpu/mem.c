/* mem.c: device memory of the CPU backend. Each allocation lies between guard pages and
 * ends at the one after it, so a kernel that runs past its end through a raw pointer
 * faults (pool.c reports it). Copies are plain memory copies. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cpu_internal.h"

typedef struct Mapping { char *base; size_t total; uintptr_t data; } Mapping;
static Mapping *maps;
static size_t nmaps, capmaps;
static pthread_mutex_t maps_mu = PTHREAD_MUTEX_INITIALIZER;

/* Remembers a mapping; 0, or -1 when the list cannot grow. */
static int remember(Mapping m) {
  int ok = 0;
  pthread_mutex_lock(&maps_mu);
  if (nmaps == capmaps) {
    size_t cap = capmaps ? 2 * capmaps : 64;
    Mapping *grown = realloc(maps, cap * sizeof *maps);
    if (grown) { maps = grown; capmaps = cap; } else ok = -1;
  }
  if (ok == 0) maps[nmaps++] = m;
  pthread_mutex_unlock(&maps_mu);
  return ok;
}

GpuResult cpu_alloc(CUdeviceptr *p, size_t n) {
  GpuResult oom = GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "mmap (CPU backend)");
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (n > (size_t)sysconf(_SC_PHYS_PAGES) * page) return oom;   /* as a GPU would */
  size_t data = (n + 15) / 16 * 16, body = (data + page - 1) / page * page, total = body + 2 * page;
  char *base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return oom;
  uintptr_t d = (uintptr_t)(base + page + body - data);
  if (mprotect(base + page, body, PROT_READ | PROT_WRITE) != 0 ||
      remember((Mapping){base, total, d}) != 0) {
    munmap(base, total);
    return oom;
  }
  *p = (CUdeviceptr)d;
  return GPU_OK;
}

GpuResult cpu_free(CUdeviceptr p, int device) {
  (void)device;
  pthread_mutex_lock(&maps_mu);
  for (size_t i = nmaps; i-- > 0;)
    if (maps[i].data == (uintptr_t)p) {
      munmap(maps[i].base, maps[i].total);
      maps[i] = maps[--nmaps];
      pthread_mutex_unlock(&maps_mu);
      return GPU_OK;
    }
  pthread_mutex_unlock(&maps_mu);
  return GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "cuMemFree (CPU backend)");
}

GpuResult cpu_host_alloc(void **p, size_t n) {
  *p = malloc(n);
  return *p ? GPU_OK : GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "malloc (CPU backend)");
}
GpuResult cpu_host_free(void *p) { free(p); return GPU_OK; }
GpuResult cpu_htod(CUdeviceptr dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return GPU_OK;
}
GpuResult cpu_dtoh(void *dst, CUdeviceptr src, size_t n) {
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return GPU_OK;
}
GpuResult cpu_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return GPU_OK;
}
GpuResult cpu_memset0(CUdeviceptr p, size_t n) {
  memset((void *)(uintptr_t)p, 0, n);
  return GPU_OK;
}
