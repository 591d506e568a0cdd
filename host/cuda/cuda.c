/* cuda.c: the CUDA driver backend (with NVRTC in nvrtc.c). libcuda.so.1 is opened with dlopen on first use and
 * every entry point is fetched with cuGetProcAddress at the version whose PFN_*_vNNNNN
 * type we call it through (an entry point's signature changes with its version).
 * Process-wide state lives here because the driver itself is process-wide.
 *
 * Faults: a kernel that faults (illegal address, trap, assert) loses its device's context
 * for good, and the driver fails every later call with the same code. The first such
 * failure is raised with a note that the context is lost; every later call on that device
 * fails at once with GPUHOST_CONTEXT_LOST naming the first, so no later error reads like
 * a new one. Waits poll, so Ctrl-C (backend_interrupted) can end them. */
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cudaTypedefs.h>
#include "cuda_internal.h"
#include "util.h"

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
  X(cuEventSynchronize, 2000) X(cuEventElapsedTime, 2000) X(cuEventQuery, 2000) \
  X(cuStreamQuery, 2000)
/* entry points we can do without (older drivers) */
#define CUDA_OPTIONAL(X) X(cuFuncGetParamInfo, 12040) X(cuGetErrorString, 6000) \
  X(cuMemAllocAsync, 11020) X(cuMemFreeAsync, 11020) X(cuDeviceGetDefaultMemPool, 11020) \
  X(cuMemPoolSetAttribute, 11020) X(cuMemPoolTrimTo, 11020) X(cuFuncGetName, 12030)

#define DECLARE(name, ver) PFN_##name##_v##ver name;
static struct {
  CUDA_FUNCS(DECLARE)
  CUDA_OPTIONAL(DECLARE)
} drv;

static Library driver;
static int current = -1;         /* ordinal of the current device, -1 before the first */
static CUcontext contexts[GPU_MAX_DEVICES];
static CUmemoryPool pools[GPU_MAX_DEVICES];   /* allocate from it (stream-ordered), or NULL */
static CUevent waiters[GPU_MAX_DEVICES];      /* recorded to wait for the whole device */
static struct {                               /* the device's context was lost by this: */
  GpuResult first;                            /* the first sticky failure (code 0: alive) */
  char note[400], detail[400];
} lost[GPU_MAX_DEVICES];

/* Codes after which the context cannot be used again (cuda.h: "the process must be
 * terminated and relaunched", or for an assert "must be destroyed"). */
static int sticky(CUresult r) {
  static const CUresult codes[] = {
    CUDA_ERROR_ECC_UNCORRECTABLE, CUDA_ERROR_CONTAINED, CUDA_ERROR_ILLEGAL_ADDRESS,
    CUDA_ERROR_LAUNCH_TIMEOUT, CUDA_ERROR_ASSERT, CUDA_ERROR_HARDWARE_STACK_ERROR,
    CUDA_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_MISALIGNED_ADDRESS,
    CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_INVALID_PC, CUDA_ERROR_LAUNCH_FAILED,
    CUDA_ERROR_TENSOR_MEMORY_LEAK, CUDA_ERROR_EXTERNAL_DEVICE,
  };
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (r == codes[i]) return 1;
  return 0;
}

/* The failure of call as a result. A sticky one marks the current device's context lost
 * and says so in its note (the first time; later calls do not get this far). */
static GpuResult failed(CUresult r, const char *call) {
  if (strncmp(call, "drv.", 4) == 0) call += 4;
  GpuResult res = GPU_FAIL(r, GPU_SRC_CUDA, call);
  if (!sticky(r) || current < 0) return res;
  if (lost[current].first.code != 0)   /* lost before: say so, as ALIVE does */
    return (GpuResult){GPU_ERR_CONTEXT_LOST, GPU_SRC_HOST, call, lost[current].detail, NULL};
  const char *name = result_name(res);
  lost[current].first = res;
  snprintf(lost[current].note, sizeof lost[current].note, "%sThe context of device %d is "
           "lost: every later call on it fails (GPUHOST_CONTEXT_LOST). Save what you have "
           "on the host and restart the process.", r == CUDA_ERROR_ASSERT ?
           "The failed assertion (file, line and condition) was printed by the device on "
           "standard output. " : "", current);
  snprintf(lost[current].detail, sizeof lost[current].detail, "the context of device %d was "
           "lost by an earlier error (%s in %s): every call on it fails; save what you have "
           "on the host and restart the process", current, name ? name : "a sticky error",
           call);
  if (r == CUDA_ERROR_ASSERT) fflush(stdout);   /* the device's message, before ours */
  res.note = lost[current].note;
  return res;
}

/* A driver call that returns its failure as a GpuResult naming the call. */
#define TRY(call) do { CUresult r_ = (call); \
    if (r_ != CUDA_SUCCESS) return failed(r_, #call); } while (0)
/* At the top of a call on the current context: fails at once once it is lost. */
#define ALIVE(call) do { if (current >= 0 && lost[current].first.code) \
    return (GpuResult){GPU_ERR_CONTEXT_LOST, GPU_SRC_HOST, call, lost[current].detail, NULL}; \
  } while (0)
/* What releasing something on a lost context gives: nothing to release, no error. */
static GpuResult released(CUresult r, const char *call) {
  return r == CUDA_SUCCESS || sticky(r) ? GPU_OK : failed(r, call);
}

GpuResult library_fail(Library *lib, int code, GpuSource source, const char *call,
                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lib->message, sizeof lib->message, fmt, ap);
  va_end(ap);
  lib->result = (GpuResult){code, source, call, lib->message, NULL};
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
 * default memory pool keeps what is freed for the next allocation, which makes an
 * allocate/free pair cost little more than a function call. It keeps at most a sixteenth
 * of the device's memory past a synchronization (its release threshold), so memory a
 * script dropped goes back to the driver, for other processes and for libraries that
 * allocate outside the pool; cuda_trim gives back the rest. NULL: plain cuMemAlloc. */
static CUmemoryPool use_pool(CUdevice dev) {
  int supported = 0;
  CUmemoryPool pool;
  size_t total = 0;
  if (!drv.cuMemAllocAsync || !drv.cuMemFreeAsync || !drv.cuDeviceGetDefaultMemPool ||
      !drv.cuMemPoolSetAttribute || !drv.cuMemPoolTrimTo) return NULL;
  if (drv.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev)
      != CUDA_SUCCESS || !supported || drv.cuDeviceTotalMem(&total, dev) != CUDA_SUCCESS)
    return NULL;
  cuuint64_t keep = total / 16;
  if (drv.cuDeviceGetDefaultMemPool(&pool, dev) != CUDA_SUCCESS ||
      drv.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS)
    return NULL;
  return pool;
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

/* ---- waits: polled, so that Ctrl-C can end them ---- */

static GpuResult interrupted(const char *call) {
  return (GpuResult){GPU_ERR_INTERRUPTED, GPU_SRC_HOST, call, "interrupted (Ctrl-C) while "
                     "waiting for the device; what it runs may still be running (gpu."
                     "synchronize() waits for it)", NULL};
}

/* Waits until the event (or, event NULL, the stream) has no work left: yields the CPU at
 * first, then sleeps a little longer each time (at most 100 us), and gives up when
 * backend_interrupted is set. */
static GpuResult wait_done(CUevent e, CUstream s, const char *call) {
  struct timespec nap = {0, 0};
  for (int i = 0; ; i++) {
    CUresult r = e ? drv.cuEventQuery(e) : drv.cuStreamQuery(s);
    if (r != CUDA_ERROR_NOT_READY) return r == CUDA_SUCCESS ? GPU_OK : failed(r, call);
    if (backend_take_interrupt()) return interrupted(call);
    if (i < 64) { sched_yield(); continue; }
    nap.tv_nsec = nap.tv_nsec == 0 ? 2000 : nap.tv_nsec >= 50000 ? 100000 : 2 * nap.tv_nsec;
    nanosleep(&nap, NULL);
  }
}

/* Waits until the current device has done the work queued before now: an event recorded
 * in the default stream, which waits for every blocking stream (all of gpuhost's). */
static GpuResult wait_idle(const char *call) {
  CUresult r = waiters[current] ? CUDA_SUCCESS
             : drv.cuEventCreate(&waiters[current], CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS) r = drv.cuEventRecord(waiters[current], NULL);
  if (r != CUDA_SUCCESS) return failed(r, call);   /* named as the wait it is part of */
  return wait_done(waiters[current], NULL, call);
}

static GpuResult cuda_synchronize(void) {
  if (current < 0) return GPU_OK;   /* nothing was ever launched */
  ALIVE("cuCtxSynchronize()");
  GpuResult r = wait_idle("cuCtxSynchronize()");
  if (r.code) return r;
  TRY(drv.cuCtxSynchronize());      /* at once now; lets the pool release memory */
  return GPU_OK;
}

static GpuResult cuda_mem_info(size_t *free_bytes, size_t *total_bytes) {
  GpuResult r = cuda_ensure_context();
  if (r.code) return r;
  ALIVE("cuMemGetInfo(free_bytes, total_bytes)");
  TRY(drv.cuMemGetInfo(free_bytes, total_bytes));
  return GPU_OK;
}

/* ---- memory ---- */

/* Allocations and frees are ordered in the default stream, which waits for (and is waited
 * for by) every other stream gpuhost makes. */
static GpuResult cuda_alloc(CUdeviceptr *p, size_t n) {
  ALIVE("cuMemAllocAsync(p, n, NULL)");
  if (pools[current]) TRY(drv.cuMemAllocAsync(p, n, NULL));
  else TRY(drv.cuMemAlloc(p, n));
  return GPU_OK;
}

static GpuResult cuda_free(CUdeviceptr p, int device) {
  if (device >= 0 && device < GPU_MAX_DEVICES && lost[device].first.code)
    return GPU_OK;                  /* it went with the context */
  int was = current;
  if (device != current && device >= 0) {
    GpuResult r = cuda_use_device(device);
    if (r.code) return r;
  }
  CUresult r = pools[device] ? drv.cuMemFreeAsync(p, NULL) : drv.cuMemFree(p);
  GpuResult res = released(r, pools[device] ? "cuMemFreeAsync(p, NULL)" : "cuMemFree(p)");
  if (was != current && was >= 0) cuda_use_device(was);
  return res;
}

/* Gives back what the device's pool keeps, once the work before now (the frees among it)
 * is done. */
static GpuResult cuda_trim(int device) {
  if (device < 0 || device >= GPU_MAX_DEVICES || contexts[device] == NULL || !pools[device] ||
      lost[device].first.code)
    return GPU_OK;
  int was = current;
  GpuResult r = device == current ? GPU_OK : cuda_use_device(device);
  if (r.code == 0) r = wait_idle("cuMemPoolTrimTo(pool, 0)");
  CUresult t = r.code ? CUDA_SUCCESS : drv.cuMemPoolTrimTo(pools[device], 0);
  if (t != CUDA_SUCCESS) r = failed(t, "cuMemPoolTrimTo(pools[device], 0)");
  if (was != current && was >= 0) cuda_use_device(was);
  return r;
}

static GpuResult cuda_host_alloc(void **p, size_t n) { TRY(drv.cuMemHostAlloc(p, n, 0)); return GPU_OK; }
static GpuResult cuda_host_free(void *p) { return released(drv.cuMemFreeHost(p), "cuMemFreeHost(p)"); }

/* Synchronous copies wait for the work before them: interruptibly, first. */
static GpuResult cuda_htod(CUdeviceptr dst, const void *src, size_t n) {
  ALIVE("cuMemcpyHtoD(dst, src, n)");
  GpuResult r = wait_idle("cuMemcpyHtoD(dst, src, n)");
  if (r.code) return r;
  if (cuda_tracing()) cuda_trace_copy("htod", n);
  CUresult c = drv.cuMemcpyHtoD(dst, src, n);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return failed(c, "cuMemcpyHtoD(dst, src, n)");
  return GPU_OK;
}
static GpuResult cuda_dtoh(void *dst, CUdeviceptr src, size_t n) {
  ALIVE("cuMemcpyDtoH(dst, src, n)");
  GpuResult r = wait_idle("cuMemcpyDtoH(dst, src, n)");
  if (r.code) return r;
  if (cuda_tracing()) cuda_trace_copy("dtoh", n);
  CUresult c = drv.cuMemcpyDtoH(dst, src, n);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return failed(c, "cuMemcpyDtoH(dst, src, n)");
  return GPU_OK;
}
/* ordered in the default stream like a kernel; the host does not wait */
static GpuResult cuda_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  ALIVE("cuMemcpyDtoDAsync(dst, src, n, NULL)");
  if (cuda_tracing()) cuda_trace_copy("dtod", n);
  CUresult c = drv.cuMemcpyDtoDAsync(dst, src, n, NULL);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return failed(c, "cuMemcpyDtoDAsync(dst, src, n, NULL)");
  return GPU_OK;
}
static GpuResult cuda_memset0(CUdeviceptr p, size_t n) {
  ALIVE("cuMemsetD8Async(p, 0, n, NULL)");
  TRY(drv.cuMemsetD8Async(p, 0, n, NULL));
  return GPU_OK;
}

/* ---- modules and launches ---- */

static GpuResult cuda_module_load(CUmodule *m, const GpuImage *img) {
  ALIVE("cuModuleLoadData(m, img->data)");
  TRY(drv.cuModuleLoadData(m, img->data));
  return GPU_OK;
}
static GpuResult cuda_module_unload(CUmodule m) {
  return released(drv.cuModuleUnload(m), "cuModuleUnload(m)");
}
static GpuResult cuda_module_function(CUfunction *f, CUmodule m, const char *name) {
  ALIVE("cuModuleGetFunction(f, m, name)");
  TRY(drv.cuModuleGetFunction(f, m, name));
  return GPU_OK;
}
static GpuResult cuda_module_global(CUdeviceptr *p, size_t *n, CUmodule m, const char *name) {
  ALIVE("cuModuleGetGlobal(p, n, m, name)");
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
  ALIVE("cuLaunchKernel(f, grid[0], ...)");
  if (cuda_tracing()) {   /* the range is named by the kernel */
    const char *name = NULL;
    if (!drv.cuFuncGetName || drv.cuFuncGetName(&name, f) != CUDA_SUCCESS) name = "kernel";
    cuda_range_push(name);
  }
  CUresult c = drv.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                  shared, stream, params, NULL);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return failed(c, "cuLaunchKernel(f, grid[0], ...)");
  return GPU_OK;
}

/* ---- streams and events ---- */

static GpuResult cuda_stream_create(CUstream *s) {
  ALIVE("cuStreamCreate(s, CU_STREAM_DEFAULT)");
  TRY(drv.cuStreamCreate(s, CU_STREAM_DEFAULT));
  return GPU_OK;
}
static GpuResult cuda_stream_destroy(CUstream s) {
  return released(drv.cuStreamDestroy(s), "cuStreamDestroy(s)");
}
static GpuResult cuda_stream_synchronize(CUstream s) {
  ALIVE("cuStreamSynchronize(s)");
  GpuResult r = wait_done(NULL, s, "cuStreamSynchronize(s)");
  if (r.code) return r;
  TRY(drv.cuStreamSynchronize(s));
  return GPU_OK;
}
static GpuResult cuda_event_create(CUevent *e) {
  ALIVE("cuEventCreate(e, CU_EVENT_DEFAULT)");
  TRY(drv.cuEventCreate(e, CU_EVENT_DEFAULT));
  return GPU_OK;
}
static GpuResult cuda_event_destroy(CUevent e) {
  return released(drv.cuEventDestroy(e), "cuEventDestroy(e)");
}
static GpuResult cuda_event_record(CUevent e, CUstream s) {
  ALIVE("cuEventRecord(e, s)");
  TRY(drv.cuEventRecord(e, s));
  return GPU_OK;
}
static GpuResult cuda_event_synchronize(CUevent e) {
  ALIVE("cuEventSynchronize(e)");
  GpuResult r = wait_done(e, NULL, "cuEventSynchronize(e)");
  if (r.code) return r;
  TRY(drv.cuEventSynchronize(e));
  return GPU_OK;
}
static GpuResult cuda_event_elapsed(float *ms, CUevent a, CUevent b) {
  ALIVE("cuEventElapsedTime(ms, a, b)");
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
  .mem_info = cuda_mem_info, .alloc = cuda_alloc, .free = cuda_free, .trim = cuda_trim,
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
  .range_push = cuda_range_push, .range_pop = cuda_range_pop, .mark = cuda_mark,
  .trace = cuda_trace,
};
