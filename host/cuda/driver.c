/* driver.c: libcuda.so.1, opened with dlopen on first use, every entry point fetched with
 * cuGetProcAddress at the version whose PFN_*_vNNNNN type we call it through; devices and
 * their primary contexts; contexts lost to faults; waits.
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
#include "cuda_internal.h"
#include "util.h"

CudaDriver drv;
CudaDevice devices[GPU_MAX_DEVICES];
int current = -1;
static Library driver;

/* Codes after which the context cannot be used again (cuda.h: "the process must be
 * terminated and relaunched", or for an assert "must be destroyed"). */
int cuda_sticky(CUresult r) {
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

GpuResult cuda_failed(CUresult r, const char *call) {
  if (strncmp(call, "drv.", 4) == 0) call += 4;
  GpuResult res = GPU_FAIL(r, GPU_SRC_CUDA, call);
  if (!cuda_sticky(r) || current < 0) return res;
  CudaDevice *d = &devices[current];
  if (d->lost.code != 0)   /* lost before: say so, as ALIVE does */
    return (GpuResult){GPU_ERR_CONTEXT_LOST, GPU_SRC_HOST, call, d->detail, NULL};
  const char *name = result_name(res);
  d->lost = res;
  snprintf(d->note, sizeof d->note, "%sThe context of device %d is lost: every later call on "
           "it fails (GPUHOST_CONTEXT_LOST). Save what you have on the host and restart the "
           "process.", r == CUDA_ERROR_ASSERT ? "The failed assertion (file, line and "
           "condition) was printed by the device on standard error. " : "", current);
  snprintf(d->detail, sizeof d->detail, "the context of device %d was lost by an earlier "
           "error (%s in %s): every call on it fails; save what you have on the host and "
           "restart the process", current, name ? name : "a sticky error", call);
  if (r == CUDA_ERROR_ASSERT) fflush(stdout);   /* the device's message, before ours */
  res.note = d->note;
  return res;
}

GpuResult cuda_released(CUresult r, const char *call) {
  return r == CUDA_SUCCESS || cuda_sticky(r) ? GPU_OK : cuda_failed(r, call);
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

GpuResult cuda_load(void) {
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
  cuda_trace_init();
  return GPU_OK;
}

/* For codes newer than the cuda.h gpuhost was built with (whose texts results.c has). */
const char *cuda_describe(int code) {
  const char *s = NULL;
  if (driver.loaded && drv.cuGetErrorString) drv.cuGetErrorString((CUresult)code, &s);
  return s;
}

/* ---- devices ---- */

GpuResult cuda_device_count(int *n) {
  GpuResult r = cuda_load();
  if (r.code) return r;
  TRY(drv.cuDeviceGetCount(n));
  return GPU_OK;
}

GpuResult cuda_device_info(int ordinal, GpuDeviceInfo *info) {
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

GpuResult cuda_use_device(int ordinal) {
  if (ordinal >= 0 && ordinal < GPU_MAX_DEVICES && devices[ordinal].context) {   /* seen before */
    TRY(drv.cuCtxSetCurrent(devices[ordinal].context));
    current = ordinal;
    return GPU_OK;
  }
  GpuResult r = cuda_load();
  if (r.code) return r;
  int n;
  TRY(drv.cuDeviceGetCount(&n));
  if (ordinal < 0 || ordinal >= n || ordinal >= GPU_MAX_DEVICES)
    return GPU_FAIL(CUDA_ERROR_INVALID_DEVICE, GPU_SRC_CUDA, "cuDeviceGet(ordinal)");
  CudaDevice *d = &devices[ordinal];
  if (d->context == NULL) {
    CUdevice dev;
    TRY(drv.cuDeviceGet(&dev, ordinal));
    TRY(drv.cuDevicePrimaryCtxRetain(&d->context, dev));
    TRY(drv.cuCtxSetCurrent(d->context));
    cuda_use_pool(d, dev);
  }
  TRY(drv.cuCtxSetCurrent(d->context));
  current = ordinal;
  return GPU_OK;
}

GpuResult cuda_adopt_context(int ordinal, void *context) {
  GpuResult r = cuda_load();
  if (r.code) return r;
  int n;
  TRY(drv.cuDeviceGetCount(&n));
  if (ordinal < 0 || ordinal >= n || ordinal >= GPU_MAX_DEVICES || context == NULL)
    return GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "gpuhost_use_context(device, context)");
  CudaDevice *d = &devices[ordinal];
  if (d->context != NULL)
    return GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "gpuhost_use_context(device, context)");
  CUdevice dev;
  TRY(drv.cuDeviceGet(&dev, ordinal));
  d->context = (CUcontext)context;   /* not retained: the program owns it */
  TRY(drv.cuCtxSetCurrent(d->context));
  cuda_use_pool(d, dev);
  current = ordinal;
  return GPU_OK;
}

GpuResult cuda_ensure_context(void) {
  if (current >= 0) return GPU_OK;
  GpuResult r = cuda_load();
  if (r.code) return r;
  int n;
  TRY(drv.cuDeviceGetCount(&n));
  if (n == 0) return GPU_FAIL(CUDA_ERROR_NO_DEVICE, GPU_SRC_CUDA, "cuDeviceGetCount(&n)");
  return cuda_use_device(0);
}

/* Device 0 until another was made current, as in CUDA's runtime (before, -1 here left a
 * first gpu.nccl.comm({0, 1}), gpu.with_device(1, f) or gpu.device(1):synchronize() with
 * device 1 current: there was nothing to go back to) */
int cuda_current_device(void) { return current < 0 ? 0 : current; }

#define DEFAULT_ARCH "sm_90"    /* what compile targets when there is no GPU */

/* sm_XY of the current device, or DEFAULT_ARCH without one, so compile errors show anywhere */
GpuResult cuda_arch(char *out, size_t n) {
  GpuDeviceInfo info;
  if (current >= 0 && cuda_device_info(current, &info).code == 0)
    snprintf(out, n, "sm_%d%d", info.major, info.minor);
  else
    snprintf(out, n, "%s", DEFAULT_ARCH);
  return GPU_OK;
}

/* ---- waits: polled, so that Ctrl-C can end them ---- */

static GpuResult interrupted(const char *call) {
  return (GpuResult){GPU_ERR_INTERRUPTED, GPU_SRC_HOST, call, "interrupted (Ctrl-C) while "
                     "waiting for the device; what it runs may still be running (gpu."
                     "synchronize() waits for it)", NULL};
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Polls, yielding the CPU between queries, for the first 2 ms (so a short wait ends within
 * microseconds of the work, as the driver's own spinning wait would); then sleeps between
 * queries (the kernel's timer slack makes a nap some 60 us), and after 100 ms sleeps 1 ms
 * at a time. Gives up when backend_interrupted is set. */
GpuResult cuda_wait(CUevent e, CUstream s, const char *call) {
  double t0 = seconds(), waited = 0;
  if (nccl_pending) nccl_flush();   /* the watch sees the collectives waited for */
  for (int i = 0; ; i++) {
    CUresult r = e ? drv.cuEventQuery(e) : drv.cuStreamQuery(s);
    if (r != CUDA_ERROR_NOT_READY) return r == CUDA_SUCCESS ? GPU_OK : cuda_failed(r, call);
    if (backend_take_interrupt()) return interrupted(call);
    if ((i & 63) == 0) waited = seconds() - t0;
    if ((i & 255) == 255) {       /* a broken communicator's kernels never finish */
      GpuResult w = nccl_watch();
      if (w.code) return w;
    }
    if (waited < 2e-3) { sched_yield(); continue; }
    struct timespec nap = {0, waited < 0.1 ? 20000 : 1000000};
    nanosleep(&nap, NULL);
  }
}

/* An event recorded in the default stream, which waits for every blocking stream (all of
 * gpuhost's). */
GpuResult cuda_wait_idle(const char *call) {
  QUEUES(call, 1);
  CudaDevice *d = &devices[current];
  CUresult r = d->waiter ? CUDA_SUCCESS : drv.cuEventCreate(&d->waiter, CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS) r = drv.cuEventRecord(d->waiter, NULL);
  if (r != CUDA_SUCCESS) return cuda_failed(r, call);   /* named as the wait it is part of */
  cuda_queued(NULL);
  return cuda_wait(d->waiter, NULL, call);
}

GpuResult cuda_synchronize(void) {
  if (current < 0) return GPU_OK;   /* nothing was ever launched */
  ALIVE("cuCtxSynchronize()");
  if (cuda_implicit) return cuda_not_while_capturing("gpu.synchronize()", "cuCtxSynchronize()");
  GpuResult r = cuda_wait_idle("cuCtxSynchronize()");
  if (r.code) return r;
  TRY(drv.cuCtxSynchronize());      /* at once now; lets the pool release memory */
  return GPU_OK;
}
