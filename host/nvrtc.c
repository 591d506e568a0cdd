/* nvrtc.c: the run-time compiler. libnvrtc is opened with dlopen on first use
 * (libnvrtc.so.13, .12, then the toolkit's lib64), so gpuhost starts without it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static const char *cuda_include_dir(void);

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

/* ---- which NVRTC, without opening it ----
 * Opening NVRTC takes milliseconds (it is a 100 MB library), more than a cache hit may cost,
 * so the compile cache names the NVRTC that nvrtc_load would open by the path, size and
 * time of its file, found as the dynamic loader finds it: LD_LIBRARY_PATH, then
 * /etc/ld.so.cache, then the system's library folders; then the toolkit's lib64. */

static int file_id(const char *path, char *out, size_t n) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  char real[4096];
  snprintf(out, n, "%s %lld %lld.%09ld", realpath(path, real) ? real : path,
           (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  return 1;
}

/* the first library path in /etc/ld.so.cache that ends with "/soname" */
static int ldcache_find(const char *soname, char *out, size_t n) {
  FILE *f = fopen("/etc/ld.so.cache", "rb");
  if (f == NULL) return 0;
  static char data[1 << 22];
  size_t len = fread(data, 1, sizeof data - 1, f);
  fclose(f);
  data[len] = '\0';
  size_t sl = strlen(soname);
  for (size_t i = 0; i < len; ) {
    size_t l = strlen(data + i);
    if (data[i] == '/' && l > sl && data[i + l - sl - 1] == '/' && strcmp(data + i + l - sl, soname) == 0)
      return file_id(data + i, out, n);
    i += l + 1;
  }
  return 0;
}

static int search_soname(const char *soname, char *out, size_t n) {
  char path[4096];
  const char *llp = getenv("LD_LIBRARY_PATH");
  if (llp) {
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", llp);
    for (char *save = NULL, *d = strtok_r(dirs, ":;", &save); d; d = strtok_r(NULL, ":;", &save)) {
      snprintf(path, sizeof path, "%s/%s", d, soname);
      if (file_id(path, out, n)) return 1;
    }
  }
  if (ldcache_find(soname, out, n)) return 1;
  const char *sys[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                       "/lib", "/usr/lib"};
  for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", sys[i], soname);
    if (file_id(path, out, n)) return 1;
  }
  return 0;
}

GpuResult nvrtc_identity(char *out, size_t n) {
  char path[4096];
  if (search_soname("libnvrtc.so.13", out, n) || search_soname("libnvrtc.so.12", out, n))
    return GPU_OK;
  snprintf(path, sizeof path, "%s/lib64/libnvrtc.so", cuda_home());
  if (file_id(path, out, n) || file_id("/usr/local/cuda/lib64/libnvrtc.so", out, n)) return GPU_OK;
  int major, minor;   /* not found as the loader would: open it and ask */
  GpuResult r = nvrtc_version(&major, &minor);
  if (r.code == 0) snprintf(out, n, "nvrtc %d.%d", major, minor);
  return r;
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

/* Compiles job for job->arch (sm_XY) into a cubin: the toolkit's include directories on
 * the path (and CUDA 13's libcu++ under cccl/), kernels/gpuhost.cuh included first. */
GpuResult nvrtc_compile_cuda(const GpuCompileJob *job, GpuImage *out) {
  GpuResult result = nvrtc_load();
  if (result.code) return result;
  nvrtcProgram prog = NULL;
  memset(out, 0, sizeof *out);
  out->lowered = calloc((size_t)job->nnames + 1, sizeof(char *));
  const char *headers[1] = {job->header}, *header_names[1] = {"gpuhost.cuh"};
  const char *opts[80];
  char arch[64], inc[700], cccl[720];
  int n = 0;
  snprintf(arch, sizeof arch, "--gpu-architecture=%s", job->arch);
  opts[n++] = arch;
  const char *dir = cuda_include_dir();
  if (dir) {
    snprintf(inc, sizeof inc, "-I%s", dir);
    snprintf(cccl, sizeof cccl, "-I%s/cccl", dir);
    opts[n++] = inc;
    opts[n++] = cccl;
  }
  opts[n++] = "--pre-include=gpuhost.cuh";
  opts[n++] = "-std=c++17";
  if (job->debug) { opts[n++] = "-DGPUHOST_DEBUG"; opts[n++] = "-lineinfo"; }
  for (int i = 0; i < job->nopts && n < 80; i++) opts[n++] = job->opts[i];
  TRY(nv.nvrtcCreateProgram(&prog, job->source, job->progname, 1, headers, header_names));
  for (int i = 0; i < job->nnames; i++) TRY(nv.nvrtcAddNameExpression(prog, job->names[i]));
  nvrtcResult cr = nv.nvrtcCompileProgram(prog, n, opts);
  size_t logsize = 0;
  if (nv.nvrtcGetProgramLogSize(prog, &logsize) == NVRTC_SUCCESS && logsize > 1) {
    out->log = malloc(logsize);
    if (nv.nvrtcGetProgramLog(prog, out->log) != NVRTC_SUCCESS) out->log[0] = '\0';
  }
  TRY(cr);
  TRY(nv.nvrtcGetCUBINSize(prog, &out->size));
  out->data = malloc(out->size);
  TRY(nv.nvrtcGetCUBIN(prog, out->data));
  for (int i = 0; i < job->nnames; i++) {
    const char *low;
    TRY(nv.nvrtcGetLoweredName(prog, job->names[i], &low));
    out->lowered[i] = strdup(low);
  }
done:
  if (prog) nv.nvrtcDestroyProgram(&prog);
  return result;
}

static const char *cuda_include_dir(void) {
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
