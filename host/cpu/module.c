/* module.c: kernel libraries, loaded from memory (a memfd, closed once loaded), not from a
 * file of ours, and their kernels. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cpu_internal.h"

/* Kernel libraries find gpuhost_tls among global symbols: in gpuhost they are (-Wl,-E);
 * gpu.so, loaded by Lua as a local library, is made global here, once. */
static void promote_self(void) {
  static int promoted;
  if (promoted) return;
  Dl_info info;
  if (dladdr((void *)&cpu_alloc, &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  promoted = 1;
}

/* The library's table, made into a module; NULL when it lacks one. */
static CpuModule *module_of(void *dl) {
  void (*bind)(const gpuhost_runtime *) = (void (*)(const gpuhost_runtime *))dlsym(dl, "gpuhost_cpu_bind");
  const int *count = dlsym(dl, "gpuhost_entry_count");
  const gpuhost_entry *entries = dlsym(dl, "gpuhost_entries");
  if (!bind || !count || !entries) return NULL;
  CpuModule *mod = calloc(1, sizeof *mod);
  if (mod == NULL) return NULL;
  mod->functions = calloc((size_t)*count + 1, sizeof *mod->functions);
  if (mod->functions == NULL) { free(mod); return NULL; }
  bind(&cpu_runtime);
  mod->dl = dl;
  mod->nentries = *count;
  for (int i = 0; i < mod->nentries; i++) mod->functions[i] = (CpuFunction){mod, &entries[i], -1, FIBER_STACK, 4096, 0, ""};
  return mod;
}

/* A function the kernel calls that nothing defines (its own declared only, or a CUDA
 * device function the CPU backend lacks): named as the source wrote it where its mangled name is simple
 * (_Z7__tanhff), and as the linker saw it. */
static GpuResult undefined_symbol(const char *sym) {
  char name[256] = "";
  int len = 0, at = 0;
  if (sscanf(sym, "_Z%d%n", &len, &at) == 1 && len > 0 && len < (int)sizeof name && (int)strlen(sym) >= at + len)
    snprintf(name, sizeof name, "%.*s", len, sym + at);
  return cpu_fail(GPU_FAIL(GPU_ERR_CPU_UNSUPPORTED, GPU_SRC_HOST, "dlopen (CPU backend)"),
                  "the kernel calls %s, which neither it nor the CPU backend defines (undefined symbol: %s)",
                  name[0] ? name : sym, sym);
}

/* The path a library is loaded from: its memfd's /proc/self/fd/N, after a spelling of the
 * load's number that the kernel reads as "/" ("/." for a 0 bit, "//." for a 1). dlopen
 * takes a library of a name it has loaded for that library, and N is reused once the fd is
 * closed: each load's own name lets the fd close at once (the mapping keeps the memfd),
 * where a module once held its fd open while loaded (one a source, kept for the process:
 * some 500 built-in kernels ran a shell's 1024 out, and every compile then failed). */
static void load_path(char *path, size_t size, int fd) {
  static unsigned long long loads;
  size_t at = 0;
  for (unsigned long long n = ++loads; n > 0 && at + 4 < size; n >>= 1)
    at += (size_t)snprintf(path + at, size - at, "%s", (n & 1) ? "//." : "/.");
  snprintf(path + at, size - at, "/proc/self/fd/%d", fd);
}

GpuResult cpu_module_load(CUmodule *m, const GpuImage *img) {
  GpuResult bad = GPU_FAIL(CUDA_ERROR_INVALID_IMAGE, GPU_SRC_CUDA, "dlopen (CPU backend)");
  promote_self();
  int fd = memfd_create("gpuhost-kernel", MFD_CLOEXEC);
  char path[320];
  if (fd < 0) return cpu_fail(bad, "memfd_create: %s", strerror(errno));
  if (write(fd, img->data, img->size) != (ssize_t)img->size) {
    GpuResult r = cpu_fail(bad, "writing the kernel library: %s", strerror(errno));
    close(fd);
    return r;
  }
  load_path(path, sizeof path, fd);
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  close(fd);
  if (!dl) {
    const char *why = dlerror(), *undefined = why ? strstr(why, "undefined symbol: ") : NULL;
    return undefined ? undefined_symbol(undefined + 18) : cpu_fail(bad, "%s", why);
  }
  CpuModule *mod = module_of(dl);
  if (mod == NULL) { dlclose(dl); return bad; }
  *m = (CUmodule)mod;
  return GPU_OK;
}

GpuResult cpu_module_unload(CUmodule m) {
  CpuModule *mod = (CpuModule *)m;
  pool_forget_fibers();   /* fibers wait inside a library's loops: none may outlive it */
  dlclose(mod->dl);
  free(mod->functions);
  free(mod);
  return GPU_OK;
}

/* A kernel's lowered name says which it is and what compile.c learned of its library:
 * "index variant max_frame static_shared label" (the label, its name expression, names
 * it when it faults in a graph's replay, where no caller does). */
void lowered_name(char *out, size_t n, int index, int variant, const CpuLibraryInfo *info,
                  const char *label) {
  snprintf(out, n, "%d %d %zu %zu %.63s", index, variant, info->max_frame, info->static_shared, label);
}

GpuResult cpu_module_function(CUfunction *f, CUmodule m, const char *lowered) {
  CpuModule *mod = (CpuModule *)m;
  int i, variant, end = 0;
  size_t frame, shared, page = (size_t)sysconf(_SC_PAGESIZE);
  if (sscanf(lowered, "%d %d %zu %zu%n", &i, &variant, &frame, &shared, &end) != 4 || i < 0 ||
      i >= mod->nentries || variant < -1 || variant > 0 ||
      (variant == 0 && mod->functions[i].entry->loops == NULL) || frame > (size_t)MAX_FRAME)
    return GPU_FAIL(CUDA_ERROR_NOT_FOUND, GPU_SRC_CUDA, "cuModuleGetFunction (CPU backend)");
  CpuFunction *fn = &mod->functions[i];
  fn->variant = variant;
  /* room for two of the largest frame and the runtime's, above a guard larger than any */
  size_t stack = 2 * frame + 64 * 1024;
  fn->stack = (stack < FIBER_STACK ? FIBER_STACK : stack + page - 1) / page * page;
  fn->guard = (frame + page - 1) / page * page + page;
  fn->static_shared = shared;
  snprintf(fn->label, sizeof fn->label, "%s", lowered[end] == ' ' ? lowered + end + 1 : "");
  *f = (CUfunction)fn;
  return GPU_OK;
}

GpuResult cpu_module_global(CUdeviceptr *p, size_t *n, CUmodule m, const char *name) {
  void *sym = dlsym(((CpuModule *)m)->dl, name);
  if (!sym) return GPU_FAIL(CUDA_ERROR_NOT_FOUND, GPU_SRC_CUDA, "cuModuleGetGlobal (CPU backend)");
  *p = (CUdeviceptr)(uintptr_t)sym;
  *n = 0;
  return GPU_OK;
}

GpuResult cpu_param_size(CUfunction f, int i, long *size, int *known) {
  const gpuhost_entry *e = ((CpuFunction *)f)->entry;
  *known = 1;
  *size = i < e->nparams ? e->sizes[i] : -1;
  return GPU_OK;
}
