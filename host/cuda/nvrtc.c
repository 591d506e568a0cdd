/* nvrtc.c: the run-time compiler. libnvrtc is opened with dlopen on first use
 * (libnvrtc.so.13, .12, then the toolkit's lib64), so gpuhost starts without it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nvrtc.h>
#include "cuda_internal.h"
#include "util.h"

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
static Library lib;

static const char *cuda_include_dir(void);
static GpuResult nvrtc_version(int *major, int *minor);

static const char *cuda_home(void) {
  const char *h = getenv("CUDA_HOME");
  return (h && *h) ? h : GPUHOST_CUDA_HOME;
}

static GpuResult nvrtc_load(void) {
  if (lib.loaded) return GPU_OK;
  if (lib.result.code) return lib.result;
  char path[4][512];
  snprintf(path[0], sizeof path[0], "libnvrtc.so.13");
  snprintf(path[1], sizeof path[1], "libnvrtc.so.12");
  snprintf(path[2], sizeof path[2], "%s/lib64/libnvrtc.so", cuda_home());
  snprintf(path[3], sizeof path[3], "/usr/local/cuda/lib64/libnvrtc.so");
  void *dl = NULL;
  char first_error[400] = "";
  for (int i = 0; i < 4 && dl == NULL; i++) {
    dl = dlopen(path[i], RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL && i == 0) snprintf(first_error, sizeof first_error, "%s", dlerror());
  }
  if (dl == NULL)
    return library_fail(&lib, GPU_ERR_NO_NVRTC, GPU_SRC_HOST, "dlopen(\"libnvrtc.so\")",
                        "NVRTC (libnvrtc.so.13, libnvrtc.so.12, %s) could not be loaded (%s); "
                        "install the CUDA toolkit or set CUDA_HOME", path[2], first_error);
#define FETCH(name, args) \
  if ((*(void **)&nv.name = dlsym(dl, #name)) == NULL) \
    return library_fail(&lib, GPU_ERR_NO_SYMBOL, GPU_SRC_HOST, "dlsym(\"" #name "\")", \
                        "NVRTC has no %s: it is too old", #name);
  NVRTC_FUNCS(FETCH)
#undef FETCH
  lib.loaded = 1;
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
  size_t len;
  char *data = file_read("/etc/ld.so.cache", &len);
  if (data == NULL) return 0;
  size_t sl = strlen(soname);
  int found = 0;
  for (size_t i = 0; i < len && !found; ) {
    size_t l = strlen(data + i);
    if (data[i] == '/' && l > sl && data[i + l - sl - 1] == '/' && strcmp(data + i + l - sl, soname) == 0)
      found = file_id(data + i, out, n);
    i += l + 1;
  }
  free(data);
  return found;
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

static GpuResult nvrtc_library_id(char *out, size_t n) {
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

/* Which NVRTC, and a hash of the headers gpuhost gives it besides gpuhost.cuh. */
GpuResult nvrtc_identity(char *out, size_t n) {
  GpuResult r = nvrtc_library_id(out, n);
  const EmbeddedFile *portable = embedded_find("kernels/gpuhost_portable.h");
  size_t len = strlen(out);
  if (r.code == 0 && len < n)
    snprintf(out + len, n - len, " headers %016llx",
             (unsigned long long)hash64(portable->data, portable->size, 0));
  return r;
}

/* An NVRTC call that, failing, records its result and jumps to `done` (the caller's
 * cleanup). */
#define TRY_GOTO(call) do { nvrtcResult r_ = (call); \
    if (r_ != NVRTC_SUCCESS) { result = GPU_FAIL(r_, GPU_SRC_NVRTC, #call); goto done; } \
  } while (0)

static GpuResult nvrtc_version(int *major, int *minor) {
  GpuResult result = nvrtc_load();
  if (result.code) return result;
  TRY_GOTO(nv.nvrtcVersion(major, minor));
done:
  return result;
}

/* The headers NVRTC is given besides the toolkit's: kernels/gpuhost.cuh (included first)
 * and kernels/gpuhost_portable.h, which it includes, and the C and C++ library headers
 * kernels include for what gpuhost_portable.h defines, so that including them works. */
static const char *const std_headers[] = {
  "cstdint", "stdint.h", "climits", "limits.h", "cfloat", "float.h", "cmath", "math.h",
  "cassert", "assert.h", "cstddef", "stddef.h",
};
#define NSTD (sizeof std_headers / sizeof std_headers[0])
#define NHEADERS (NSTD + 3)
static void header_table(const GpuCompileJob *job, const char **text, const char **names) {
  const EmbeddedFile *portable = embedded_find("kernels/gpuhost_portable.h");
  names[0] = "gpuhost.cuh";
  text[0] = job->header;
  names[1] = "gpuhost_portable.h";
  text[1] = portable->data;
  names[2] = "limits";
  text[2] = "#define GPUHOST_NUMERIC_LIMITS\n#include \"gpuhost_portable.h\"\n";
  for (size_t i = 0; i < NSTD; i++) {
    names[3 + i] = std_headers[i];
    text[3 + i] = "#pragma once\n";
  }
}

/* The options NVRTC gets: the architecture, the toolkit's include directories (and CUDA
 * 13's libcu++ under cccl/), kernels/gpuhost.cuh included first, libcu++'s
 * numeric_limits for a source that names it (see gpuhost_portable.h), then the user's.
 * The strings it points to live in *o; free the array. */
typedef struct Options { char arch[64], inc[700], cccl[720]; } Options;
static const char **build_options(const GpuCompileJob *job, Options *o, int *count) {
  const char **opts = malloc(((size_t)job->nopts + 10) * sizeof *opts);
  if (opts == NULL) return NULL;
  int n = 0;
  snprintf(o->arch, sizeof o->arch, "--gpu-architecture=%s", job->arch);
  opts[n++] = o->arch;
  const char *dir = cuda_include_dir();
  if (dir) {
    snprintf(o->inc, sizeof o->inc, "-I%s", dir);
    snprintf(o->cccl, sizeof o->cccl, "-I%s/cccl", dir);
    opts[n++] = o->inc;
    opts[n++] = o->cccl;
  }
  opts[n++] = "--pre-include=gpuhost.cuh";
  opts[n++] = "-std=c++17";
  if (strstr(job->source, "numeric_limits")) opts[n++] = "-DGPUHOST_NUMERIC_LIMITS";
  if (job->debug) { opts[n++] = "-DGPUHOST_DEBUG"; opts[n++] = "-lineinfo"; }
  if (job->check_only) opts[n++] = "--fdevice-syntax-only";   /* a fifth of the time */
  for (int i = 0; i < job->nopts; i++) opts[n++] = job->opts[i];
  *count = n;
  return opts;
}

#define OOM GPU_FAIL(NVRTC_ERROR_OUT_OF_MEMORY, GPU_SRC_NVRTC, "malloc")

/* Reads the cubin and the lowered names out of a compiled program into out. */
static GpuResult take_output(nvrtcProgram prog, const GpuCompileJob *job, GpuImage *out) {
  GpuResult result = GPU_OK;
  TRY_GOTO(nv.nvrtcGetCUBINSize(prog, &out->size));
  if ((out->data = malloc(out->size)) == NULL) return OOM;
  TRY_GOTO(nv.nvrtcGetCUBIN(prog, out->data));
  for (int i = 0; i < job->nnames; i++) {
    const char *low;
    TRY_GOTO(nv.nvrtcGetLoweredName(prog, job->names[i], &low));
    if ((out->lowered[i] = strdup(low)) == NULL) return OOM;
  }
done:
  return result;
}

/* Compiles job for job->arch (sm_XY) into a cubin. *out is emptied first, whatever
 * happens next (the caller frees it on failure too). */
GpuResult nvrtc_compile_cuda(const GpuCompileJob *job, GpuImage *out) {
  memset(out, 0, sizeof *out);
  GpuResult result = nvrtc_load();
  if (result.code) return result;
  nvrtcProgram prog = NULL;
  const char *headers[NHEADERS], *header_names[NHEADERS];
  header_table(job, headers, header_names);
  Options o;
  int n;
  const char **opts = build_options(job, &o, &n);
  out->lowered = calloc((size_t)job->nnames + 1, sizeof(char *));
  if (opts == NULL || out->lowered == NULL) { free(opts); return OOM; }
  TRY_GOTO(nv.nvrtcCreateProgram(&prog, job->source, job->progname, (int)NHEADERS, headers,
                                  header_names));
  for (int i = 0; i < job->nnames; i++) TRY_GOTO(nv.nvrtcAddNameExpression(prog, job->names[i]));
  nvrtcResult cr = nv.nvrtcCompileProgram(prog, n, opts);
  size_t logsize = 0;
  if (nv.nvrtcGetProgramLogSize(prog, &logsize) == NVRTC_SUCCESS && logsize > 1 &&
      (out->log = malloc(logsize)) != NULL &&
      nv.nvrtcGetProgramLog(prog, out->log) != NVRTC_SUCCESS)
    out->log[0] = '\0';
  if (cr != NVRTC_SUCCESS) {   /* (TRY_GOTO(cr) would name the call "cr") */
    result = GPU_FAIL(cr, GPU_SRC_NVRTC, "nvrtcCompileProgram(prog, n, opts)");
    goto done;
  }
  if (!job->check_only) result = take_output(prog, job, out);
done:
  free(opts);
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
