/* cuda.c: the CUDA driver backend (with NVRTC in nvrtc.c). libcuda.so.1 is opened with dlopen on first use and
 * every entry point is fetched with cuGetProcAddress at the version whose PFN_*_vNNNNN
 * type we call it through (an entry point's signature changes with its version).
 * Process-wide state lives here because the driver itself is process-wide. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cudaTypedefs.h>
#include "cuda_internal.h"

/* name, version: each is called through PFN_name_vversion */
#define CUDA_FUNCS(X) \
  X(cuInit, 2000) X(cuDriverGetVersion, 2020) X(cuDeviceGetCount, 2000) \
  X(cuDeviceGet, 2000) X(cuDeviceGetName, 2000) X(cuDeviceGetAttribute, 2000) \
  X(cuDeviceTotalMem, 3020) X(cuDevicePrimaryCtxRetain, 7000) X(cuCtxSetCurrent, 4000) \
  X(cuCtxSynchronize, 2000) X(cuMemGetInfo, 3020) X(cuMemAlloc, 3020) X(cuMemFree, 3020) \
  X(cuMemHostAlloc, 2020) X(cuMemFreeHost, 2000) X(cuMemcpyHtoD, 3020) \
  X(cuMemcpyDtoH, 3020) X(cuMemcpyDtoDAsync, 3020) X(cuMemsetD8Async, 3020) \
  X(cuModuleLoadData, 2000) X(cuModuleUnload, 2000) X(cuModuleGetFunction, 2000) \
  X(cuModuleGetGlobal, 3020) X(cuLaunchKernel, 4000) \
  X(cuStreamCreate, 2000) X(cuStreamDestroy, 4000) X(cuStreamSynchronize, 2000) \
  X(cuEventCreate, 2000) X(cuEventDestroy, 4000) X(cuEventRecord, 2000) \
  X(cuEventSynchronize, 2000) X(cuEventElapsedTime, 2000)
/* entry points we can do without (older drivers) */
#define CUDA_OPTIONAL(X) X(cuFuncGetParamInfo, 12040) X(cuGetErrorString, 6000) \
  X(cuMemAllocAsync, 11020) X(cuMemFreeAsync, 11020) X(cuDeviceGetDefaultMemPool, 11020) \
  X(cuMemPoolSetAttribute, 11020)

#define DECLARE(name, ver) PFN_##name##_v##ver name;
static struct {
  CUDA_FUNCS(DECLARE)
  CUDA_OPTIONAL(DECLARE)
} drv;

static Library driver;
static int current = -1;         /* ordinal of the current device, -1 before the first */
static CUcontext contexts[GPU_MAX_DEVICES];
static int pools[GPU_MAX_DEVICES];   /* 1: allocate with the stream-ordered allocator */

/* A driver call that returns its failure as a GpuResult naming the call. */
#define TRY(call) do { CUresult r_ = (call); \
    if (r_ != CUDA_SUCCESS) return GPU_FAIL(r_, GPU_SRC_CUDA, #call); } while (0)

GpuResult library_fail(Library *lib, int code, GpuSource source, const char *call,
                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lib->message, sizeof lib->message, fmt, ap);
  va_end(ap);
  lib->result = (GpuResult){code, source, call, lib->message};
  return lib->result;
}

/* Fetches every entry point; 0, or -1 after recording which one is missing. */
static int fetch_all(PFN_cuGetProcAddress_v12000 getproc) {
  CUdriverProcAddressQueryResult status;
#define FETCH(name, ver) \
  if (getproc(#name, (void **)&drv.name, ver, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) \
      != CUDA_SUCCESS || drv.name == NULL) { \
    library_fail(&driver, GPU_ERR_NO_SYMBOL, GPU_SRC_HOST, "cuGetProcAddress(\"" #name "\")", \
                 "the CUDA driver has no %s (version %d): update the NVIDIA driver", #name, ver); \
    return -1; \
  }
  CUDA_FUNCS(FETCH)
#undef FETCH
#define FETCH_OPTIONAL(name, ver) \
  if (getproc(#name, (void **)&drv.name, ver, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) \
      != CUDA_SUCCESS) drv.name = NULL;
  CUDA_OPTIONAL(FETCH_OPTIONAL)
#undef FETCH_OPTIONAL
  return 0;
}

/* dlopen libcuda, fetch its entry points, cuInit; idempotent. */
static GpuResult cuda_load(void) {
  if (driver.loaded) return GPU_OK;
  if (driver.result.code != 0) return driver.result;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return library_fail(&driver, GPU_ERR_NO_DRIVER, GPU_SRC_HOST, "dlopen(\"libcuda.so.1\")",
                        "the CUDA driver library libcuda.so.1 could not be loaded (%s); "
                        "is the NVIDIA driver installed?", dlerror());
  PFN_cuGetProcAddress_v12000 getproc =
      (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
  if (getproc == NULL)
    return library_fail(&driver, GPU_ERR_NO_SYMBOL, GPU_SRC_HOST, "dlsym(\"cuGetProcAddress_v2\")",
                        "libcuda.so.1 has no cuGetProcAddress_v2: the driver is older than CUDA 12");
  if (fetch_all(getproc) != 0) return driver.result;
  CUresult r = drv.cuInit(0);
  if (r != CUDA_SUCCESS) {
    driver.result = GPU_FAIL(r, GPU_SRC_CUDA, "cuInit(0)");
    return driver.result;
  }
  driver.loaded = 1;
  return GPU_OK;
}

static GpuResult cuda_device_count(int *n) {
  GpuResult r = cuda_load();
  if (r.code) return r;
  TRY(drv.cuDeviceGetCount(n));
  return GPU_OK;
}

static GpuResult cuda_device_info(int ordinal, GpuDeviceInfo *info) {
  GpuResult r = cuda_load();
  if (r.code) return r;
  CUdevice dev;
  TRY(drv.cuDeviceGet(&dev, ordinal));
  TRY(drv.cuDeviceGetName(info->name, (int)sizeof info->name, dev));
  TRY(drv.cuDeviceGetAttribute(&info->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  TRY(drv.cuDeviceGetAttribute(&info->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  TRY(drv.cuDeviceGetAttribute(&info->multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  TRY(drv.cuDeviceGetAttribute(&info->max_threads_per_block,
                               CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
  TRY(drv.cuDeviceGetAttribute(&info->warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
  TRY(drv.cuDeviceTotalMem(&info->total_memory, dev));
  return GPU_OK;
}

/* Device arrays come from CUDA's stream-ordered allocator where the device has it: the
 * default memory pool, told to keep what is freed (a release threshold of "all"), makes
 * an allocate/free pair cost little more than a function call. */
static int use_pool(CUdevice dev) {
  int supported = 0;
  CUmemoryPool pool;
  cuuint64_t keep = ~(cuuint64_t)0;
  if (!drv.cuMemAllocAsync || !drv.cuMemFreeAsync || !drv.cuDeviceGetDefaultMemPool ||
      !drv.cuMemPoolSetAttribute) return 0;
  if (drv.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev)
      != CUDA_SUCCESS || !supported) return 0;
  if (drv.cuDeviceGetDefaultMemPool(&pool, dev) != CUDA_SUCCESS) return 0;
  if (drv.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS)
    return 0;
  return 1;
}

static GpuResult cuda_use_device(int ordinal) {
  GpuResult r = cuda_load();
  if (r.code) return r;
  int n;
  TRY(drv.cuDeviceGetCount(&n));
  if (ordinal < 0 || ordinal >= n || ordinal >= GPU_MAX_DEVICES)
    return GPU_FAIL(CUDA_ERROR_INVALID_DEVICE, GPU_SRC_CUDA, "cuDeviceGet(ordinal)");
  if (contexts[ordinal] == NULL) {
    CUdevice dev;
    TRY(drv.cuDeviceGet(&dev, ordinal));
    TRY(drv.cuDevicePrimaryCtxRetain(&contexts[ordinal], dev));
    TRY(drv.cuCtxSetCurrent(contexts[ordinal]));
    pools[ordinal] = use_pool(dev);
  }
  TRY(drv.cuCtxSetCurrent(contexts[ordinal]));
  current = ordinal;
  return GPU_OK;
}

static GpuResult cuda_ensure_context(void) {
  if (current >= 0) return GPU_OK;
  GpuResult r = cuda_load();
  if (r.code) return r;
  int n;
  TRY(drv.cuDeviceGetCount(&n));
  if (n == 0) return GPU_FAIL(CUDA_ERROR_NO_DEVICE, GPU_SRC_CUDA, "cuDeviceGetCount(&n)");
  return cuda_use_device(0);
}

static int cuda_current_device(void) { return current; }

static GpuResult cuda_synchronize(void) {
  if (current < 0) return GPU_OK;   /* nothing was ever launched */
  TRY(drv.cuCtxSynchronize());
  return GPU_OK;
}

static GpuResult cuda_mem_info(size_t *free_bytes, size_t *total_bytes) {
  GpuResult r = cuda_ensure_context();
  if (r.code) return r;
  TRY(drv.cuMemGetInfo(free_bytes, total_bytes));
  return GPU_OK;
}

/* Allocations and frees are ordered in the default stream, which waits for (and is waited
 * for by) every other stream gpuhost makes. */
static GpuResult cuda_alloc(CUdeviceptr *p, size_t n) {
  if (pools[current]) TRY(drv.cuMemAllocAsync(p, n, NULL));
  else TRY(drv.cuMemAlloc(p, n));
  return GPU_OK;
}

static GpuResult cuda_free(CUdeviceptr p, int device) {
  int was = current;
  if (device != current && device >= 0) {
    GpuResult r = cuda_use_device(device);
    if (r.code) return r;
  }
  GpuResult res = GPU_OK;
  CUresult r = pools[device] ? drv.cuMemFreeAsync(p, NULL) : drv.cuMemFree(p);
  if (r != CUDA_SUCCESS)
    res = GPU_FAIL(r, GPU_SRC_CUDA, pools[device] ? "cuMemFreeAsync(p, NULL)" : "cuMemFree(p)");
  if (was != current && was >= 0) cuda_use_device(was);
  return res;
}
static GpuResult cuda_host_alloc(void **p, size_t n) { TRY(drv.cuMemHostAlloc(p, n, 0)); return GPU_OK; }
static GpuResult cuda_host_free(void *p) { TRY(drv.cuMemFreeHost(p)); return GPU_OK; }

static GpuResult cuda_htod(CUdeviceptr dst, const void *src, size_t n) {
  TRY(drv.cuMemcpyHtoD(dst, src, n));
  return GPU_OK;
}
static GpuResult cuda_dtoh(void *dst, CUdeviceptr src, size_t n) {
  TRY(drv.cuMemcpyDtoH(dst, src, n));
  return GPU_OK;
}
/* ordered in the default stream like a kernel; the host does not wait */
static GpuResult cuda_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  TRY(drv.cuMemcpyDtoDAsync(dst, src, n, NULL));
  return GPU_OK;
}
static GpuResult cuda_memset0(CUdeviceptr p, size_t n) {
  TRY(drv.cuMemsetD8Async(p, 0, n, NULL));
  return GPU_OK;
}

static GpuResult cuda_module_load(CUmodule *m, const GpuImage *img) {
  TRY(drv.cuModuleLoadData(m, img->data));
  return GPU_OK;
}
static GpuResult cuda_module_unload(CUmodule m) { TRY(drv.cuModuleUnload(m)); return GPU_OK; }
static GpuResult cuda_module_function(CUfunction *f, CUmodule m, const char *name) {
  TRY(drv.cuModuleGetFunction(f, m, name));
  return GPU_OK;
}
static GpuResult cuda_module_global(CUdeviceptr *p, size_t *n, CUmodule m, const char *name) {
  TRY(drv.cuModuleGetGlobal(p, n, m, name));
  return GPU_OK;
}

static GpuResult cuda_param_size(CUfunction f, int i, long *size, int *known) {
  *known = drv.cuFuncGetParamInfo != NULL;
  *size = -1;
  if (!*known) return GPU_OK;
  size_t offset, sz;
  CUresult r = drv.cuFuncGetParamInfo(f, (size_t)i, &offset, &sz);
  if (r == CUDA_ERROR_INVALID_VALUE) return GPU_OK;   /* past the last parameter */
  TRY(r);
  *size = (long)sz;
  return GPU_OK;
}

static GpuResult cuda_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                      unsigned shared, CUstream stream, void **params) {
  TRY(drv.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                         shared, stream, params, NULL));
  return GPU_OK;
}

static GpuResult cuda_stream_create(CUstream *s) { TRY(drv.cuStreamCreate(s, CU_STREAM_DEFAULT)); return GPU_OK; }
static GpuResult cuda_stream_destroy(CUstream s) { TRY(drv.cuStreamDestroy(s)); return GPU_OK; }
static GpuResult cuda_stream_synchronize(CUstream s) { TRY(drv.cuStreamSynchronize(s)); return GPU_OK; }
static GpuResult cuda_event_create(CUevent *e) { TRY(drv.cuEventCreate(e, CU_EVENT_DEFAULT)); return GPU_OK; }
static GpuResult cuda_event_destroy(CUevent e) { TRY(drv.cuEventDestroy(e)); return GPU_OK; }
static GpuResult cuda_event_record(CUevent e, CUstream s) { TRY(drv.cuEventRecord(e, s)); return GPU_OK; }
static GpuResult cuda_event_synchronize(CUevent e) { TRY(drv.cuEventSynchronize(e)); return GPU_OK; }
static GpuResult cuda_event_elapsed(float *ms, CUevent a, CUevent b) {
  TRY(drv.cuEventElapsedTime(ms, a, b));
  return GPU_OK;
}

/* For codes newer than the cuda.h gpuhost was built with (whose texts results.c has). */
static const char *cuda_describe(int code) {
  const char *s = NULL;
  if (driver.loaded && drv.cuGetErrorString) drv.cuGetErrorString((CUresult)code, &s);
  return s;
}

#define DEFAULT_ARCH "sm_90"    /* what compile targets when there is no GPU */

/* sm_XY of the current device, or DEFAULT_ARCH without one, so compile errors show anywhere */
static GpuResult cuda_arch(char *out, size_t n) {
  GpuDeviceInfo info;
  if (current >= 0 && cuda_device_info(current, &info).code == 0)
    snprintf(out, n, "sm_%d%d", info.major, info.minor);
  else
    snprintf(out, n, "%s", DEFAULT_ARCH);
  return GPU_OK;
}

const GpuBackend cuda_backend = {
  .name = "cuda", .compiler = "nvrtc", .pinned_host = 1,
  .device_count = cuda_device_count, .device_info = cuda_device_info,
  .use_device = cuda_use_device, .ensure_context = cuda_ensure_context,
  .current_device = cuda_current_device, .synchronize = cuda_synchronize,
  .mem_info = cuda_mem_info, .alloc = cuda_alloc, .free = cuda_free,
  .host_alloc = cuda_host_alloc, .host_free = cuda_host_free,
  .htod = cuda_htod, .dtoh = cuda_dtoh, .dtod = cuda_dtod, .memset0 = cuda_memset0,
  .arch = cuda_arch, .compiler_id = nvrtc_identity, .compile = nvrtc_compile_cuda,
  .module_load = cuda_module_load, .module_unload = cuda_module_unload,
  .module_function = cuda_module_function, .module_global = cuda_module_global,
  .param_size = cuda_param_size, .launch = cuda_launch,
  .stream_create = cuda_stream_create, .stream_destroy = cuda_stream_destroy,
  .stream_synchronize = cuda_stream_synchronize,
  .event_create = cuda_event_create, .event_destroy = cuda_event_destroy,
  .event_record = cuda_event_record, .event_synchronize = cuda_event_synchronize,
  .event_elapsed = cuda_event_elapsed, .describe = cuda_describe,
};
