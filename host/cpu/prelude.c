/* prelude.c: how kernels are compiled here: the compiler ($CXX, else c++), the flags every
 * compile shares, and the prelude, the headers every kernel includes (kernels/cpu.h and
 * what it needs), written once per process into a private folder (removed at exit), where
 * compile.c also puts their precompiled form. And what the cache key needs to know of all
 * this (cpu_compiler_id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cpu_internal.h"
#include "util.h"

/* the headers of the prelude: the name in its folder, and the embedded file or the text */
static const struct { const char *name, *embedded, *text; } support_files[] = {
  {"gpuhost_cpu.h", "kernels/cpu.h", NULL},
  {"gpuhost_cpu_abi.h", "kernels/gpuhost_cpu_abi.h", NULL},
  {"gpuhost_portable.h", "kernels/gpuhost_portable.h", NULL},
  {"gpuhost_cpu_half.h", "kernels/cpu_half.h", NULL},
  {"gpuhost_cpu_assert.h", "kernels/cpu_assert.h", NULL},
  {"cooperative_groups.h", "kernels/cpu_cooperative_groups.h", NULL},
  {"assert.h", NULL, "#include \"gpuhost_cpu_assert.h\"\n"},
  {"cassert", NULL, "#include \"gpuhost_cpu_assert.h\"\n"},
  {"cuda_fp16.h", NULL, "#pragma once\n#include_next <cuda_fp16.h>\n#include \"gpuhost_cpu_half.h\"\n"},
  {"cuda_bf16.h", NULL, "#pragma once\n#include \"cuda_fp16.h\"\n#include_next <cuda_bf16.h>\n"
                        "#include \"gpuhost_cpu_half.h\"\n"},
  {"cuda_runtime.h", NULL, "#pragma once\n"},
  {"cooperative_groups/reduce.h", NULL, "#pragma once\n#include <cooperative_groups.h>\n"},
  {"cooperative_groups/scan.h", NULL, "#pragma once\n#include <cooperative_groups.h>\n"},
  {"cooperative_groups/functional.h", NULL, "#pragma once\n#include <cooperative_groups.h>\n"},
};
#define SUPPORT_SUBDIR "cooperative_groups"   /* the folder in the prelude's of the last three */
#define NSUPPORT (sizeof support_files / sizeof support_files[0])

static const char *support_text(size_t i, size_t *n) {
  if (support_files[i].text) { *n = strlen(support_files[i].text); return support_files[i].text; }
  const EmbeddedFile *f = embedded_find(support_files[i].embedded);
  *n = f->size;
  return f->data;
}

const char *cpu_compiler(void) {
  const char *cxx = getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

/* The path of the compiler's first word, looked up on PATH as execvp would; "" if none. */
static void compiler_path(char *path, size_t n) {
  char first[256];
  path[0] = '\0';
  if (sscanf(cpu_compiler(), "%255s", first) != 1) return;
  if (strchr(first, '/')) { snprintf(path, n, "%s", first); return; }
  const char *p = getenv("PATH");
  char dirs[2048];
  snprintf(dirs, sizeof dirs, "%s", p ? p : "/usr/bin:/bin");
  for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    snprintf(path, n, "%s/%s", d, first);
    if (access(path, X_OK) == 0) return;
  }
  path[0] = '\0';
}

/* The toolkit's include folder (vector_types.h, cuda_fp16.h, libcu++), or NULL. */
static const char *toolkit_include(void) {
  static char dir[600];
  const char *home = getenv("CUDA_HOME"), *candidates[3] = {home, GPUHOST_CUDA_HOME, "/usr/local/cuda"};
  for (int i = 0; i < 3; i++) {
    if (candidates[i] == NULL || !*candidates[i]) continue;
    snprintf(dir, sizeof dir, "%s/include/vector_types.h", candidates[i]);
    if (access(dir, R_OK) == 0) {
      snprintf(dir, sizeof dir, "%s/include", candidates[i]);
      return dir;
    }
  }
  return NULL;
}

/* The first processor's part of /proc/cpuinfo (whose size stat does not tell), or NULL. */
static char *cpuinfo(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return NULL;
  char *text = calloc(1, 16384);
  if (text) text[fread(text, 1, 16383, f)] = '\0';
  fclose(f);
  char *next = text ? strstr(text, "\n\n") : NULL;
  if (next) *next = '\0';
  return text;
}

/* A hash of this machine's processor (kernels are compiled for it: -march=native). */
static uint64_t processor_id(void) {
  char *info = cpuinfo();
  uint64_t h = FNV_OFFSET;
  if (info == NULL) return h;
  const char *keys[] = {"model name", "flags"};
  for (int k = 0; k < 2; k++) {
    const char *p = strstr(info, keys[k]), *e = p ? strchr(p, '\n') : NULL;
    if (p && e) h = hash64(p, (size_t)(e - p), h);
  }
  free(info);
  return h;
}

/* AVX-512 on AMD processors (Zen 4 and 5), whose masked stores are slow: the kernels'
 * loops, masked where threads check bounds, ran 2 to 3 times slower with AVX-512 than with
 * AVX2 there (measured on an EPYC with vecadd on gpu::array and on `if (i < n)`). */
static int amd_avx512(void) {
  static int known = -1;
  if (known >= 0) return known;
  char *info = cpuinfo();
  const char *flags = info ? strstr(info, "\nflags") : NULL, *eol = flags ? strchr(flags + 1, '\n') : NULL;
  const char *avx = flags ? strstr(flags, " avx512f") : NULL;
  known = info && strstr(info, "AuthenticAMD") && avx && (!eol || avx < eol);
  free(info);
  return known;
}

/* The flags every compile of a kernel and of the prelude shares. -fno-gnu-unique: a
 * library with unique symbols can never be unloaded, and a later one loaded from a reused
 * /proc/self/fd/N would be taken for it. */
static const char *const fixed_flags[] = {
  "-std=c++17", "-O3", "-march=native", "-fPIC", "-fno-strict-aliasing",
  "-fno-semantic-interposition", "-fno-exceptions", "-fno-rtti", "-fno-math-errno",
  "-ffp-contract=off", "-fno-trapping-math", "-fstack-clash-protection", "-U_FORTIFY_SOURCE", "-fno-gnu-unique",
  "-w"};
#define NFIXED (sizeof fixed_flags / sizeof fixed_flags[0])

/* The compiler's path, size and time, the processor, the toolkit's headers and a hash of
 * the prelude, the flags and the form of the unit source.c and scan.c write (UNIT_FORM, to change
 * with it): what the cache key needs to know of how kernels are compiled here. */
#define UNIT_FORM "unit 4"
GpuResult cpu_compiler_id(char *out, size_t n) {
  char path[1200], real[1024] = "", hdr[700];
  struct stat st;
  long long size = 0, mtime = 0, tk = 0;
  compiler_path(path, sizeof path);
  if (path[0] && stat(path, &st) == 0) {
    size = (long long)st.st_size;
    mtime = (long long)st.st_mtime;
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
  }
  const char *inc = toolkit_include();
  snprintf(hdr, sizeof hdr, "%s/cuda_fp16.h", inc ? inc : "");
  if (inc && stat(hdr, &st) == 0) tk = (long long)st.st_mtime;
  uint64_t h = FNV_OFFSET;
  for (size_t i = 0; i < NSUPPORT; i++) {
    size_t len;
    const char *text = support_text(i, &len);
    h = hash64(text, len, h);
  }
  for (size_t i = 0; i < NFIXED; i++) h = hash64(fixed_flags[i], strlen(fixed_flags[i]) + 1, h);
  h = hash64(UNIT_FORM, sizeof UNIT_FORM, h);
  snprintf(out, n, "cxx %s %s %lld %lld cpu %016llx toolkit %s %lld prelude %016llx labels", cpu_compiler(),
           real, size, mtime, (unsigned long long)processor_id(), inc ? inc : "-", tk,
           (unsigned long long)h);
  return GPU_OK;
}

GpuResult cpu_arch(char *out, size_t n) {
#if defined(__x86_64__)
  snprintf(out, n, "cpu-x86_64");
#elif defined(__aarch64__)
  snprintf(out, n, "cpu-aarch64");
#else
  snprintf(out, n, "cpu");
#endif
  return GPU_OK;
}


/* ---- the prelude's folder ---- */

static char prelude[40];   /* "" until made */

static void prelude_remove(void) {
  char path[200];
  for (size_t i = 0; i < NSUPPORT; i++) {
    snprintf(path, sizeof path, "%s/%s", prelude, support_files[i].name);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/%s", prelude, SUPPORT_SUBDIR);
  rmdir(path);
  const char *more[] = {"gpuhost_cpu.h.gch", "gpuhost_cpu.h.gch.tmp", "gch.log"};
  for (size_t i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", prelude, more[i]);
    unlink(path);
  }
  rmdir(prelude);
}

const char *prelude_dir(void) {
  if (prelude[0]) return prelude;
  char dir[40] = "/tmp/gpuhost-prelude-XXXXXX", path[200];
  if (!mkdtemp(dir)) return NULL;
  snprintf(path, sizeof path, "%s/%s", dir, SUPPORT_SUBDIR);
  mkdir(path, 0700);   /* a failure shows as the write below failing */
  for (size_t i = 0; i < NSUPPORT; i++) {
    size_t len;
    const char *text = support_text(i, &len);
    snprintf(path, sizeof path, "%s/%s", dir, support_files[i].name);
    if (file_write(path, text, len) != 0) {
      snprintf(prelude, sizeof prelude, "%s", dir);
      prelude_remove();
      prelude[0] = '\0';
      return NULL;
    }
  }
  snprintf(prelude, sizeof prelude, "%s", dir);
  atexit(prelude_remove);
  return prelude;
}


int prelude_args(char **argv, int n) {
  static char inc[64], tk[620], cccl[640];
  for (size_t i = 0; i < NFIXED; i++) argv[n++] = (char *)(uintptr_t)fixed_flags[i];
  if (amd_avx512()) argv[n++] = (char *)(uintptr_t)"-mno-avx512f";
  snprintf(inc, sizeof inc, "-I%s", prelude);
  argv[n++] = inc;
  const char *t = toolkit_include();
  if (t) {
    snprintf(tk, sizeof tk, "-I%s", t);
    snprintf(cccl, sizeof cccl, "-I%s/cccl", t);
    argv[n++] = tk;
    argv[n++] = cccl;
  }
  return n;
}
