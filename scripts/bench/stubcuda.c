/* stubcuda.c: a libcuda.so.1 that does nothing, for counting the instructions gpuhost
 * itself spends on a launch (scripts/bench/launch_count.sh): every entry point gpuhost
 * fetches returns success at once; memory is malloc'd; a launch returns without running.
 * Build: cc -O2 -shared -fPIC -o DIR/libcuda.so.1 stubcuda.c -I$CUDA_HOME/include */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>

static CUresult ok(void) { return CUDA_SUCCESS; }
static CUresult s_cuDeviceGetCount(int *n) { *n = 1; return 0; }
static CUresult s_cuDeviceGet(CUdevice *d, int o) { *d = o; return o == 0 ? 0 : CUDA_ERROR_INVALID_DEVICE; }
static CUresult s_cuDeviceGetName(char *n, int len, CUdevice d) { (void)d; snprintf(n, (size_t)len, "stub"); return 0; }
static CUresult s_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ? 0
     : a == CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : a == CU_DEVICE_ATTRIBUTE_WARP_SIZE ? 32 : 1;
  return 0;
}
static CUresult s_cuDeviceTotalMem(size_t *b, CUdevice d) { (void)d; *b = (size_t)1 << 34; return 0; }
static CUresult s_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { (void)d; *c = (CUcontext)0x1; return 0; }
static CUresult s_cuMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return 0; }
static CUresult s_cuMemAlloc(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)malloc(n); return 0; }
static CUresult s_cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s) { (void)s; return s_cuMemAlloc(p, n); }
static CUresult s_cuMemFree(CUdeviceptr p) { free((void *)p); return 0; }
static CUresult s_cuMemFreeAsync(CUdeviceptr p, CUstream s) { (void)s; return s_cuMemFree(p); }
static CUresult s_cuMemHostAlloc(void **p, size_t n, unsigned f) { (void)f; *p = malloc(n); return 0; }
static CUresult s_cuMemFreeHost(void *p) { free(p); return 0; }
static CUresult s_cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)d, s, n); return 0; }
static CUresult s_cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)s, n); return 0; }
static CUresult s_cuMemcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream st) { (void)st; return s_cuMemcpyHtoD(d, s, n); }
static CUresult s_cuMemcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream st) { (void)st; return s_cuMemcpyDtoH(d, s, n); }
static CUresult s_cuModuleLoadData(CUmodule *m, const void *i) { (void)i; *m = (CUmodule)0x2; return 0; }
static CUresult s_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n) { (void)m; (void)n; *f = (CUfunction)0x3; return 0; }
static CUresult s_cuModuleGetGlobal(CUdeviceptr *p, size_t *n, CUmodule m, const char *s) {
  (void)m; (void)s; static char rec[64]; *p = (CUdeviceptr)rec; *n = sizeof rec; return 0;
}
static CUresult s_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned sh, CUstream s, void **p, void **e) {
  (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sh; (void)s; (void)p; (void)e;
  return 0;
}
static CUresult s_cuStreamCreate(CUstream *s, unsigned f) { (void)f; *s = (CUstream)malloc(8); return 0; }
static CUresult s_cuEventCreate(CUevent *e, unsigned f) { (void)f; *e = (CUevent)malloc(8); return 0; }
static CUresult s_cuEventElapsedTime(float *ms, CUevent a, CUevent b) { (void)a; (void)b; *ms = 0; return 0; }
static CUresult s_cuDeviceGetDefaultMemPool(CUmemoryPool *p, CUdevice d) { (void)d; *p = (CUmemoryPool)0x4; return 0; }

#define F(n) {#n, (void *)s_##n},
#define OK(n) {#n, (void *)ok},
static const struct { const char *name; void *fn; } table[] = {
  F(cuDeviceGetCount) F(cuDeviceGet) F(cuDeviceGetName) F(cuDeviceGetAttribute) F(cuDeviceTotalMem)
  F(cuDevicePrimaryCtxRetain) F(cuMemGetInfo) F(cuMemAlloc) F(cuMemAllocAsync) F(cuMemFree)
  F(cuMemFreeAsync) F(cuMemHostAlloc) F(cuMemFreeHost) F(cuMemcpyHtoD) F(cuMemcpyDtoH) F(cuMemcpyHtoDAsync) F(cuMemcpyDtoHAsync)
  F(cuModuleLoadData) F(cuModuleGetFunction) F(cuModuleGetGlobal) F(cuLaunchKernel) F(cuStreamCreate)
  F(cuEventCreate) F(cuEventElapsedTime) F(cuDeviceGetDefaultMemPool)
  OK(cuInit) OK(cuDriverGetVersion) OK(cuCtxSetCurrent) OK(cuCtxSynchronize) OK(cuMemcpyDtoDAsync)
  OK(cuMemsetD8Async) OK(cuMemsetD2D32Async) OK(cuModuleUnload) OK(cuStreamDestroy) OK(cuStreamSynchronize) OK(cuStreamWaitEvent)
  OK(cuEventDestroy) OK(cuEventRecord) OK(cuEventSynchronize) OK(cuEventQuery) OK(cuStreamQuery)
  OK(cuMemPoolSetAttribute) OK(cuMemPoolTrimTo)
};

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *st);
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *st) {
  (void)ver; (void)flags;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, sym) == 0) {
      *pfn = table[i].fn;
      if (st) *st = CU_GET_PROC_ADDRESS_SUCCESS;
      return 0;
    }
  *pfn = NULL;
  if (st) *st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}
