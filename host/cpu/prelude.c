/* prelude.c: how kernels are compiled here: the compiler ($CXX, else c++), the flags every
 * compile shares, and the prelude, the headers every kernel includes (kernels/cpu.h and
 * what it needs), written once per process into a private folder (removed at exit, or by
 * a later process when this one was killed), where compile.c also puts their precompiled
 * form and its work folders. And what the cache key needs to know of all this
 * (cpu_compiler_id). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
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
  {"gpuhost_cpu_simd.h", "kernels/cpu_simd.h", NULL},
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
 * library with unique symbols can never be unloaded. -fno-builtin-pow(f): g++ 12's vectorizer turns
 * pow(x, 0.5) into sqrt(x) (-0 and nan where pow and the GPU give 0 and inf for -0, -inf).
 * -ftemplate-depth: a kernel's arguments are a std::tuple, whose depth is their count (4096
 * at most; 900, g++'s default, stopped at about 500). */
static const char *const fixed_flags[] = {
  "-std=c++17", "-O3", "-march=native", "-fPIC", "-fno-strict-aliasing",
  "-fno-semantic-interposition", "-fno-exceptions", "-fno-rtti", "-fno-math-errno",
  "-ffp-contract=off", "-fno-trapping-math", "-fstack-clash-protection", "-U_FORTIFY_SOURCE", "-fno-gnu-unique",
  "-fno-builtin-pow", "-fno-builtin-powf", "-ftemplate-depth=9000", "-w"};
#define NFIXED (sizeof fixed_flags / sizeof fixed_flags[0])

/* The compiler's path, size and time, the processor, the toolkit's headers and a hash of
 * the prelude, the flags and the form of the unit source.c and scan.c write (UNIT_FORM, to change
 * with it): what the cache key needs to know of how kernels are compiled here. */
#define UNIT_FORM "unit 11"
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

/* The folder also holds each compile's work folder (compile.c) and a file, lock, on which
 * the process holds a lock while it lives: a process ended without its exit handlers
 * (killed, crashed) leaves a folder (40 MB with the precompiled prelude) whose lock nobody
 * holds, and the next process to make one removes it. */
#define PRELUDE_PREFIX "gpuhost-prelude-"
#define OLD_WORK_PREFIX "gpuhost-cpu-"   /* the work folders of gpuhost before the lock */
#define WEEK (7 * 24 * 3600)

static char prelude[40];   /* "" until made */

/* Removes the folder name (in the folder at) and what it holds, down to depth folders
 * below it; links are removed, never followed. */
static void remove_tree(int at, const char *name, int depth) {
  int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (d == NULL && fd >= 0) close(fd);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    struct stat st;
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISDIR(st.st_mode)) unlinkat(fd, e->d_name, 0);
    else if (depth > 0) remove_tree(fd, e->d_name, depth - 1);
  }
  if (d) closedir(d);
  unlinkat(at, name, AT_REMOVEDIR);
}

/* Whether the folder name in /tmp (open as tmp) was left by a process that is gone: this
 * user's, and its lock held by nobody (or, from before the lock, untouched for a week). */
static int left_behind(int tmp, const char *name, int locked) {
  int fd = openat(tmp, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), gone = 0;
  struct stat st;
  if (fd < 0) return 0;
  if (fstat(fd, &st) == 0 && st.st_uid == getuid()) {
    int lk = locked ? openat(fd, "lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (lk >= 0) {
      gone = flock(lk, LOCK_EX | LOCK_NB) == 0;
      close(lk);
    } else {
      gone = (!locked || errno == ENOENT) && time(NULL) - st.st_mtime > WEEK;
    }
  }
  close(fd);
  return gone;
}

static void sweep(void) {
  DIR *d = opendir("/tmp");
  if (d == NULL) return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    int ours = strncmp(e->d_name, PRELUDE_PREFIX, strlen(PRELUDE_PREFIX)) == 0;
    if ((ours || strncmp(e->d_name, OLD_WORK_PREFIX, strlen(OLD_WORK_PREFIX)) == 0) &&
        left_behind(dirfd(d), e->d_name, ours))
      remove_tree(dirfd(d), e->d_name, 2);
  }
  closedir(d);
}

static void prelude_remove(void) { remove_tree(AT_FDCWD, prelude, 2); }

/* Takes the lock on a file made in dir and then named lock, so that no other process finds
 * the name unlocked; the descriptor stays open (and out of the compiler's hands) until
 * the process ends. 0 or -1. */
static int hold_lock(const char *dir) {
  char tmp[200], path[200];
  snprintf(tmp, sizeof tmp, "%s/lock.new", dir);
  snprintf(path, sizeof path, "%s/lock", dir);
  int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 || rename(tmp, path) != 0) {
    close(fd);
    unlink(tmp);
    return -1;
  }
  return 0;
}

const char *prelude_dir(void) {
  if (prelude[0]) return prelude;
  sweep();
  char dir[40] = "/tmp/" PRELUDE_PREFIX "XXXXXX", path[200];
  if (!mkdtemp(dir)) return NULL;
  snprintf(prelude, sizeof prelude, "%s", dir);
  hold_lock(dir);   /* (without it the folder is swept only when a week old) */
  int ok = 1;
  snprintf(path, sizeof path, "%s/%s", dir, SUPPORT_SUBDIR);
  mkdir(path, 0700);   /* a failure shows as the write below failing */
  for (size_t i = 0; ok && i < NSUPPORT; i++) {
    size_t len;
    const char *text = support_text(i, &len);
    snprintf(path, sizeof path, "%s/%s", dir, support_files[i].name);
    ok = file_write(path, text, len) == 0;
  }
  if (!ok) {
    prelude_remove();
    prelude[0] = '\0';
    return NULL;
  }
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
