/* nvrtc.c: the run-time compiler. libnvrtc is opened with dlopen on first use
 * (libnvrtc.so.13, .12, then the toolkit's lib64), so gpuhost starts without it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <nvrtc.h>
#include "gpu.h"

#define NVRTC_FUNCS(X) \
  X(nvrtcVersion, (int *, int *)) \
  X(nvrtcGetErrorString, (nvrtcResult)) \
  X(nvrtcCreateProgram, (nvrtcProgram *, const char *, const char *, int, \
                         const char *const *, const char *const *)) \
  X(nvrtcDestroyProgram, (nvrtcProgram *)) \
  X(nvrtcAddNameExpression, (nvrtcProgram, const char *)) \
  X(nvrtcCompileProgram, (nvrtcProgram, int, const char *const *)) \
  X(nvrtcGetProgramLogSize, (nvrtcProgram, size_t *)) \
  X(nvrtcGetProgramLog, (nvrtcProgram, char *)) \
  X(nvrtcGetCUBINSize, (nvrtcProgram, size_t *)) \
  X(nvrtcGetCUBIN, (nvrtcProgram, char *)) \
  X(nvrtcGetLoweredName, (nvrtcProgram, const char *, const char **))

#define DECLARE(name, args) __typeof__(name) *name;
static struct { NVRTC_FUNCS(DECLARE) } nv;
static int loaded;
static GpuResult load_result;
static char load_message[1024];

static const char *cuda_home(void) {
  const char *h = getenv("CUDA_HOME");
  return (h && *h) ? h : GPUHOST_CUDA_HOME;
}

static GpuResult nvrtc_load(void) {
  if (loaded) return GPU_OK;
  if (load_result.code) return load_result;
  char path[4][512];
  snprintf(path[0], sizeof path[0], "libnvrtc.so.13");
  snprintf(path[1], sizeof path[1], "libnvrtc.so.12");
  snprintf(path[2], sizeof path[2], "%s/lib64/libnvrtc.so", cuda_home());
  snprintf(path[3], sizeof path[3], "/usr/local/cuda/lib64/libnvrtc.so");
  void *lib = NULL;
  char first_error[400] = "";
  for (int i = 0; i < 4 && lib == NULL; i++) {
    lib = dlopen(path[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL && i == 0) snprintf(first_error, sizeof first_error, "%s", dlerror());
  }
  if (lib == NULL) {
    snprintf(load_message, sizeof load_message,
             "NVRTC (libnvrtc.so.13, libnvrtc.so.12, %s) could not be loaded (%s); "
             "install the CUDA toolkit or set CUDA_HOME", path[2], first_error);
    load_result = (GpuResult){GPU_ERR_NO_NVRTC, GPU_SRC_HOST, "dlopen(\"libnvrtc.so\")"};
    return load_result;
  }
#define FETCH(name, args) \
  if ((*(void **)&nv.name = dlsym(lib, #name)) == NULL) { \
    snprintf(load_message, sizeof load_message, "NVRTC has no %s: it is too old", #name); \
    load_result = (GpuResult){GPU_ERR_NO_SYMBOL, GPU_SRC_HOST, "dlsym(\"" #name "\")"}; \
    return load_result; \
  }
  NVRTC_FUNCS(FETCH)
#undef FETCH
  loaded = 1;
  return GPU_OK;
}

const char *nvrtc_load_message(void) { return load_message[0] ? load_message : NULL; }

const char *nvrtc_error_name(int code) {
  if (nvrtc_load().code) return NULL;
  return nv.nvrtcGetErrorString((nvrtcResult)code);
}

#define TRY(call) do { nvrtcResult r_ = (call); \
    if (r_ != NVRTC_SUCCESS) { result = (GpuResult){(int)r_, GPU_SRC_NVRTC, #call}; goto done; } \
  } while (0)

GpuResult nvrtc_version(int *major, int *minor) {
  GpuResult result = nvrtc_load();
  if (result.code) return result;
  TRY(nv.nvrtcVersion(major, minor));
done:
  return result;
}

GpuResult nvrtc_compile(NvrtcJob *job) {
  GpuResult result = nvrtc_load();
  if (result.code) return result;
  nvrtcProgram prog = NULL;
  job->cubin = NULL;
  job->log = NULL;
  job->lowered = calloc((size_t)job->nnames + 1, sizeof(char *));
  TRY(nv.nvrtcCreateProgram(&prog, job->source, job->progname, job->nheaders,
                            job->headers, job->header_names));
  for (int i = 0; i < job->nnames; i++) TRY(nv.nvrtcAddNameExpression(prog, job->names[i]));
  nvrtcResult cr = nv.nvrtcCompileProgram(prog, job->nopts, job->opts);
  size_t logsize = 0;
  if (nv.nvrtcGetProgramLogSize(prog, &logsize) == NVRTC_SUCCESS && logsize > 1) {
    job->log = malloc(logsize);
    if (nv.nvrtcGetProgramLog(prog, job->log) != NVRTC_SUCCESS) job->log[0] = '\0';
  }
  TRY(cr);
  TRY(nv.nvrtcGetCUBINSize(prog, &job->cubin_size));
  job->cubin = malloc(job->cubin_size);
  TRY(nv.nvrtcGetCUBIN(prog, job->cubin));
  for (int i = 0; i < job->nnames; i++) {
    const char *low;
    TRY(nv.nvrtcGetLoweredName(prog, job->names[i], &low));
    job->lowered[i] = strdup(low);
  }
done:
  if (prog) nv.nvrtcDestroyProgram(&prog);
  return result;
}

void nvrtc_job_free(NvrtcJob *job) {
  free(job->cubin);
  free(job->log);
  if (job->lowered)
    for (int i = 0; i < job->nnames; i++) free(job->lowered[i]);
  free(job->lowered);
  job->cubin = job->log = NULL;
  job->lowered = NULL;
}

const char *cuda_include_dir(void) {
  static char dir[600];
  const char *candidates[2] = {cuda_home(), "/usr/local/cuda"};
  for (int i = 0; i < 2; i++) {
    snprintf(dir, sizeof dir, "%s/include/cuda.h", candidates[i]);
    if (access(dir, R_OK) == 0) {
      snprintf(dir, sizeof dir, "%s/include", candidates[i]);
      return dir;
    }
  }
  return NULL;
}
