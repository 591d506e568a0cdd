/* compile.c: CUDA C to a shared library, by the host's C++ compiler ($CXX, else c++): the
 * source is written to a private temporary folder with kernels/cpu.h (which makes C++ read
 * CUDA C) and an entry table the runtime finds each kernel by, compiled, and the library
 * read back into memory; the folder is removed. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cpu_internal.h"
#include "util.h"

extern char **environ;

/* the files a kernel's folder holds besides its source: name there, embedded file */
static const struct { const char *name, *embedded; } support_files[] = {
  {"gpuhost_cpu.h", "kernels/cpu.h"},
  {"gpuhost_cpu_abi.h", "kernels/gpuhost_cpu_abi.h"},
  {"cooperative_groups.h", "kernels/cpu_cooperative_groups.h"},
};
#define NSUPPORT (sizeof support_files / sizeof support_files[0])

static const char *compiler(void) {
  const char *cxx = getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

/* The path of the compiler's first word, looked up on PATH as execvp would; "" if none. */
static void compiler_path(char *path, size_t n) {
  char first[256];
  path[0] = '\0';
  if (sscanf(compiler(), "%255s", first) != 1) return;
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

/* The compiler's path, size and time, and a hash of the prelude: what the cache key needs
 * to know of how kernels are compiled here. */
GpuResult cpu_compiler_id(char *out, size_t n) {
  char path[1200], real[1024] = "";
  struct stat st;
  long long size = 0, mtime = 0;
  compiler_path(path, sizeof path);
  if (path[0] && stat(path, &st) == 0) {
    size = (long long)st.st_size;
    mtime = (long long)st.st_mtime;
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
  }
  uint64_t h = FNV_OFFSET;
  for (size_t i = 0; i < NSUPPORT; i++) {
    const EmbeddedFile *f = embedded_find(support_files[i].embedded);
    h = fnv1a(f->data, f->size, h);
  }
  snprintf(out, n, "cxx %s %s %lld %lld prelude %016llx", compiler(), real, size, mtime,
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

static int is_ident(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* One `extern __shared__ T name[];` at e, up to semi: written as
 * `T *name = reinterpret_cast<T *>(gpuhost_dynamic_shared());`, __align__(n) dropped. */
static void rewrite_extern_shared(Buf *out, const char *q, const char *br) {
  const char *ne = br;   /* the name ends before '[' */
  while (ne > q && !is_ident(ne[-1])) ne--;
  const char *ns = ne;
  while (ns > q && is_ident(ns[-1])) ns--;
  Buf type = {0};
  for (const char *t = q + 10; t < ns;) {   /* the type, without __align__(n) */
    if (strncmp(t, "__align__", 9) == 0) {
      const char *c = strchr(t, ')');
      t = c && c < ns ? c + 1 : ns;
      continue;
    }
    buf_add(&type, t++, 1);
  }
  const char *tname = type.data ? type.data : "char ";
  buf_str(out, tname);
  buf_str(out, "*");
  buf_add(out, ns, (size_t)(ne - ns));
  buf_str(out, " = reinterpret_cast<");
  buf_str(out, tname);
  buf_str(out, "*>(gpuhost_dynamic_shared());");
  buf_free(&type);
}

/* The source with each `extern __shared__` array made a pointer to the block's dynamic
 * shared memory; the rest is copied as it is. */
static void rewrite_source(Buf *out, const char *s) {
  const char *p = s;
  for (;;) {
    const char *e = strstr(p, "extern");
    if (!e) break;
    const char *q = e + 6;
    while (*q == ' ' || *q == '\t' || *q == '\n') q++;
    int boundary = (e == s || !is_ident(e[-1])) && !is_ident(e[6]);
    const char *semi = strchr(q, ';');
    const char *br = semi ? memchr(q, '[', (size_t)(semi - q)) : NULL;
    if (!boundary || strncmp(q, "__shared__", 10) != 0 || is_ident(q[10]) || !br) {
      buf_add(out, p, (size_t)(e + 6 - p));
      p = e + 6;
      continue;
    }
    buf_add(out, p, (size_t)(e - p));
    rewrite_extern_shared(out, q, br);
    p = semi + 1;
  }
  buf_str(out, p);
}

/* Inline PTX cannot run here: say so before the compiler does, less clearly. */
static const char *uses_asm(const char *s) {
  for (const char *p = s; (p = strstr(p, "asm")) != NULL; p += 3) {
    if (p > s && is_ident(p[-1])) continue;
    const char *q = p + 3;
    if (strncmp(q, "__", 2) == 0) q += 2;
    while (*q == ' ' || *q == '\t') q++;
    if (strncmp(q, "volatile", 8) == 0) { q += 8; while (*q == ' ' || *q == '\t') q++; }
    if (*q == '(') return "inline PTX assembly (asm)";
  }
  return NULL;
}

/* The whole translation unit: the prelude, the source, and the entry table. */
static void emit_source(Buf *src, const GpuCompileJob *job) {
  char line[600];
  buf_str(src, "#include \"gpuhost_cpu.h\"\n#include \"gpuhost.cuh\"\n");
  rewrite_source(src, job->source);
  buf_str(src, "\n// entry points for the CPU backend\n");
  for (int i = 0; i < job->nnames; i++) {
    snprintf(line, sizeof line,
             "static void gpuhost_call_%d(gpuhost_block *b, void **a) { gpuhost_cpu::run_threads(&%s, b, a); }\n",
             i, job->names[i]);
    buf_str(src, line);
  }
  snprintf(line, sizeof line, "extern \"C\" const int gpuhost_entry_count = %d;\n"
           "extern \"C\" const gpuhost_entry gpuhost_entries[] = {\n", job->nnames);
  buf_str(src, line);
  for (int i = 0; i < job->nnames; i++) {
    snprintf(line, sizeof line, "  gpuhost_cpu::make_entry<decltype(&%s)>(gpuhost_call_%d),\n",
             job->names[i], i);
    buf_str(src, line);
  }
  buf_str(src, "  {nullptr, 0, nullptr}};\n");
}

/* A kernel's temporary folder and the paths in it. */
typedef struct Workdir { char dir[32], path[256]; } Workdir;
static const char *in_dir(Workdir *w, const char *name) {
  snprintf(w->path, sizeof w->path, "%s/%s", w->dir, name);
  return w->path;
}

/* Writes the source and its support files into the folder; 0 or -1. */
static int write_files(Workdir *w, const GpuCompileJob *job, const Buf *src) {
  for (size_t i = 0; i < NSUPPORT; i++) {
    const EmbeddedFile *f = embedded_find(support_files[i].embedded);
    if (file_write(in_dir(w, support_files[i].name), f->data, f->size) != 0) return -1;
  }
  if (file_write(in_dir(w, "gpuhost.cuh"), job->header, job->header_size) != 0 ||
      file_write(in_dir(w, "cuda_runtime.h"), "#pragma once\n", 13) != 0 ||
      file_write(in_dir(w, "kernel.cpp"), src->data, src->n) != 0)
    return -1;
  return 0;
}

/* Removes the folder and everything in it. */
static void remove_dir(Workdir *w) {
  const char *names[] = {"gpuhost.cuh", "cuda_runtime.h", "kernel.cpp", "kernel.so", "log"};
  for (size_t i = 0; i < NSUPPORT; i++) unlink(in_dir(w, support_files[i].name));
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(in_dir(w, names[i]));
  rmdir(w->dir);
}

/* Runs argv with stdout and stderr into the file log; its exit status, or -errno. */
static int run_compiler(char *const argv[], const char *log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (r != 0) return -r;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* posix_spawn takes argv as char *const[] for history's sake; it writes to no string */
static char *unconst(const char *s) {
  union { const char *c; char *m; } u = {.c = s};
  return u.m;
}

/* The compiler's command line (malloc'd; free it); its strings point into c, w and job. */
typedef struct Command { char words[512], incl[64], out[64], src[64]; } Command;
static char **build_argv(Command *c, Workdir *w, const GpuCompileJob *job) {
  char **argv = malloc(((size_t)job->nopts + 32) * sizeof *argv);
  if (argv == NULL) return NULL;
  int n = 0;
  snprintf(c->words, sizeof c->words, "%s", compiler());   /* $CXX may be "ccache g++" */
  for (char *save = NULL, *t = strtok_r(c->words, " \t", &save); t && n < 16; t = strtok_r(NULL, " \t", &save))
    argv[n++] = t;
  /* -fno-gnu-unique: a library with unique symbols can never be unloaded, and a later one
   * loaded from a reused /proc/self/fd/N would be taken for it */
  static const char *const fixed[] = {"-std=c++17", "-O2", "-fPIC", "-shared", "-fno-strict-aliasing",
                                      "-U_FORTIFY_SOURCE", "-ffp-contract=off", "-fno-gnu-unique", "-w"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[n++] = unconst(fixed[i]);
  snprintf(c->incl, sizeof c->incl, "-I%s", w->dir);
  argv[n++] = c->incl;
  if (job->debug) argv[n++] = unconst("-DGPUHOST_DEBUG");
  /* the user's -D, -U and -I options; NVRTC's code generation options mean nothing here */
  for (int i = 0; i < job->nopts; i++)
    if (strncmp(job->opts[i], "-D", 2) == 0 || strncmp(job->opts[i], "-U", 2) == 0 ||
        strncmp(job->opts[i], "-I", 2) == 0)
      argv[n++] = unconst(job->opts[i]);
  argv[n++] = unconst("-o");
  argv[n++] = strcpy(c->out, in_dir(w, "kernel.so"));
  argv[n++] = strcpy(c->src, in_dir(w, "kernel.cpp"));
  argv[n] = NULL;
  return argv;
}

static GpuResult compile_error(GpuImage *out, int code, const char *log) {
  out->log = strdup(log);
  return GPU_FAIL(code, GPU_SRC_HOST, code == GPU_ERR_CPU_UNSUPPORTED ? "gpu.kernel (CPU backend)"
                                                                      : "c++ (CPU backend)");
}

/* The library the compiler made, with a lowered name ("0", "1", ...) per kernel. */
static GpuResult read_library(Workdir *w, const GpuCompileJob *job, GpuImage *out) {
  out->data = file_read(in_dir(w, "kernel.so"), &out->size);
  if (!out->data) return compile_error(out, GPU_ERR_CPU_COMPILE, "the compiler made no library");
  out->lowered = calloc((size_t)job->nnames + 1, sizeof(char *));
  for (int i = 0; out->lowered && i < job->nnames; i++) {
    char idx[16];
    snprintf(idx, sizeof idx, "%d", i);
    if ((out->lowered[i] = strdup(idx)) == NULL) break;
  }
  if (out->lowered == NULL || (job->nnames > 0 && out->lowered[job->nnames - 1] == NULL))
    return compile_error(out, GPU_ERR_CPU_COMPILE, "out of memory reading the library");
  return GPU_OK;
}

/* Runs the compiler in w and reads back what it made (or its messages) into out. */
static GpuResult compile_in(Workdir *w, const GpuCompileJob *job, GpuImage *out) {
  Command c;
  char **argv = build_argv(&c, w, job), logpath[sizeof w->path];
  if (argv == NULL) return compile_error(out, GPU_ERR_CPU_COMPILE, "out of memory");
  snprintf(logpath, sizeof logpath, "%s", in_dir(w, "log"));
  int status = run_compiler(argv, logpath);
  free(argv);
  size_t len = 0;
  char *log = file_read(logpath, &len);
  GpuResult result = GPU_OK;
  if (status < 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "cannot run the C++ compiler '%s' (%s); set CXX", compiler(),
             strerror(-status));
    result = compile_error(out, GPU_ERR_CPU_COMPILE, msg);
  } else if (status != 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "the C++ compiler '%s' failed (exit status %d) and said nothing",
             compiler(), status);
    result = compile_error(out, GPU_ERR_CPU_COMPILE, log && log[0] ? log : msg);
  } else {
    result = read_library(w, job, out);
    if (result.code == 0) { out->log = log; log = NULL; }
  }
  free(log);
  return result;
}

GpuResult cpu_compile(const GpuCompileJob *job, GpuImage *out) {
  memset(out, 0, sizeof *out);
  const char *what = uses_asm(job->source);
  if (what) {
    char msg[200];
    snprintf(msg, sizeof msg, "the CPU backend does not support %s", what);
    return compile_error(out, GPU_ERR_CPU_UNSUPPORTED, msg);
  }
  Workdir w;
  snprintf(w.dir, sizeof w.dir, "/tmp/gpuhost-cpu-XXXXXX");
  if (!mkdtemp(w.dir)) return compile_error(out, GPU_ERR_CPU_COMPILE, "cannot make a temporary folder");
  Buf src = {0};
  emit_source(&src, job);
  GpuResult result;
  if (src.failed) result = compile_error(out, GPU_ERR_CPU_COMPILE, "out of memory");
  else if (write_files(&w, job, &src) != 0)
    result = compile_error(out, GPU_ERR_CPU_COMPILE, "cannot write the kernel's source");
  else result = compile_in(&w, job, out);
  buf_free(&src);
  remove_dir(&w);
  return result;
}
