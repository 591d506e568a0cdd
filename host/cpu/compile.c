/* compile.c: CUDA C to a shared library, by the host's C++ compiler ($CXX, else c++; GCC
 * 11 or later, for the reports it writes): the translation unit (source.c) is written to a
 * private temporary folder with the headers that make C++ read CUDA C, compiled under a
 * time limit (GPUHOST_CXX_TIMEOUT seconds, 300 unless set), and the library read back
 * into memory with what the compiler reported (frame sizes, vectorised loops); the folder
 * is removed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cpu_internal.h"
#include "util.h"

extern char **environ;

/* the files a kernel's folder holds besides its source: the name there, and the embedded
 * file or the text it holds */
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
};
#define NSUPPORT (sizeof support_files / sizeof support_files[0])

static const char *support_text(size_t i, size_t *n) {
  if (support_files[i].text) { *n = strlen(support_files[i].text); return support_files[i].text; }
  const EmbeddedFile *f = embedded_find(support_files[i].embedded);
  *n = f->size;
  return f->data;
}

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
    if (p && e) h = fnv1a(p, (size_t)(e - p), h);
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

/* The compiler's path, size and time, the processor, the toolkit's headers and a hash of
 * the prelude: what the cache key needs to know of how kernels are compiled here. */
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
    h = fnv1a(text, len, h);
  }
  snprintf(out, n, "cxx %s %s %lld %lld cpu %016llx toolkit %s %lld prelude %016llx", compiler(),
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

/* A kernel's temporary folder and the paths in it. */
typedef struct Workdir { char dir[32], path[64]; } Workdir;
static const char *in_dir(Workdir *w, const char *name) {
  snprintf(w->path, sizeof w->path, "%s/%s", w->dir, name);
  return w->path;
}

/* what the compiler writes besides the library: its messages, its report of vectorised
 * loops, its frame sizes (GCC 11 and later name them after the output, older ones not) */
static const char *const outputs[] = {"kernel.cpp", "kernel.so", "log", "vec", "kernel.so-kernel.su",
                                      "kernel.su", "gpuhost.cuh"};

/* Writes the source and its support files into the folder; 0 or -1. */
static int write_files(Workdir *w, const GpuCompileJob *job, const Buf *src) {
  for (size_t i = 0; i < NSUPPORT; i++) {
    size_t len;
    const char *text = support_text(i, &len);
    if (file_write(in_dir(w, support_files[i].name), text, len) != 0) return -1;
  }
  if (file_write(in_dir(w, "gpuhost.cuh"), job->header, job->header_size) != 0 ||
      file_write(in_dir(w, "kernel.cpp"), src->data, src->n) != 0)
    return -1;
  return 0;
}

/* Removes the folder and everything in it. */
static void remove_dir(Workdir *w) {
  for (size_t i = 0; i < NSUPPORT; i++) unlink(in_dir(w, support_files[i].name));
  for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) unlink(in_dir(w, outputs[i]));
  rmdir(w->dir);
}

/* How a compiler run ended. */
enum { RUN_EXITED, RUN_SPAWN_FAILED, RUN_KILLED, RUN_TIMED_OUT, RUN_INTERRUPTED };
typedef struct Run { int how, status; } Run;

/* Waits for pid (a process group of its own) up to timeout seconds, or until Ctrl-C. */
static Run wait_compiler(pid_t pid, long timeout) {
  struct timespec start, now, nap = {0, 1000000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    int status;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? (Run){RUN_EXITED, WEXITSTATUS(status)}
                                           : (Run){RUN_KILLED, WTERMSIG(status)};
    if (r < 0 && errno != EINTR) return (Run){RUN_KILLED, 0};
    clock_gettime(CLOCK_MONOTONIC, &now);
    int late = now.tv_sec - start.tv_sec >= timeout, interrupted = backend_interrupted != 0;
    if (late || interrupted) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
      return (Run){late ? RUN_TIMED_OUT : RUN_INTERRUPTED, 0};
    }
    nanosleep(&nap, NULL);
    if (nap.tv_nsec < 10000000) nap.tv_nsec += 1000000;
  }
}

/* Runs argv in a process group of its own with stdout and stderr into the file log. */
static Run run_compiler(char *const argv[], const char *log, long timeout) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);   /* so that a time-out kills it all */
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid;
  int r = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (r != 0) return (Run){RUN_SPAWN_FAILED, r};
  return wait_compiler(pid, timeout);
}

/* posix_spawn takes argv as char *const[] for history's sake; it writes to no string */
static char *unconst(const char *s) {
  union { const char *c; char *m; } u = {.c = s};
  return u.m;
}

/* The compiler's command line (malloc'd; free it); its strings point into c, w and job. */
typedef struct Command { char words[512], incl[64], tk[620], cccl[640], out[64], src[64], vec[128]; } Command;
static char **build_argv(Command *c, Workdir *w, const GpuCompileJob *job) {
  char **argv = malloc(((size_t)job->nopts + 48) * sizeof *argv);
  if (argv == NULL) return NULL;
  int n = 0;
  snprintf(c->words, sizeof c->words, "%s", compiler());   /* $CXX may be "ccache g++" */
  for (char *save = NULL, *t = strtok_r(c->words, " \t", &save); t && n < 16; t = strtok_r(NULL, " \t", &save))
    argv[n++] = t;
  /* -fno-gnu-unique: a library with unique symbols can never be unloaded, and a later one
   * loaded from a reused /proc/self/fd/N would be taken for it */
  static const char *const fixed[] = {
    "-std=c++17", "-O3", "-march=native", "-fPIC", "-shared", "-fno-strict-aliasing",
    "-fno-semantic-interposition", "-fno-exceptions", "-fno-rtti", "-fno-math-errno",
    "-ffp-contract=off", "-fstack-clash-protection", "-fstack-usage", "-U_FORTIFY_SOURCE",
    "-fno-gnu-unique", "-Wl,-Bsymbolic", "-w"};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[n++] = unconst(fixed[i]);
  snprintf(c->incl, sizeof c->incl, "-I%s", w->dir);
  argv[n++] = c->incl;
  const char *tk = toolkit_include();
  if (tk) {
    snprintf(c->tk, sizeof c->tk, "-I%s", tk);
    snprintf(c->cccl, sizeof c->cccl, "-I%s/cccl", tk);
    argv[n++] = c->tk;
    argv[n++] = c->cccl;
  }
  if (amd_avx512()) argv[n++] = unconst("-mno-avx512f");
  if (job->debug) argv[n++] = unconst("-DGPUHOST_DEBUG");
  /* the user's -D, -U and -I options; NVRTC's code generation options mean nothing here */
  for (int i = 0; i < job->nopts; i++)
    if (strncmp(job->opts[i], "-D", 2) == 0 || strncmp(job->opts[i], "-U", 2) == 0 ||
        strncmp(job->opts[i], "-I", 2) == 0)
      argv[n++] = unconst(job->opts[i]);
  snprintf(c->vec, sizeof c->vec, "-fopt-info-vec-optimized=%s", in_dir(w, "vec"));
  argv[n++] = c->vec;
  argv[n++] = unconst("-o");
  argv[n++] = strcpy(c->out, in_dir(w, "kernel.so"));
  argv[n++] = strcpy(c->src, in_dir(w, "kernel.cpp"));
  argv[n] = NULL;
  return argv;
}

static GpuResult compile_error(GpuImage *out, int code, const char *log) {
  free(out->log);
  out->log = strdup(log);
  return GPU_FAIL(code, GPU_SRC_HOST, code == GPU_ERR_CPU_COMPILE ? "c++ (CPU backend)"
                                                                  : "gpu.kernel (CPU backend)");
}

/* What the compiler learned of the library: refuses frames and static shared memory no
 * thread or block could have; fills info. */
static GpuResult library_info(Workdir *w, GpuImage *out, CpuLibraryInfo *info) {
  char largest[600], msg[900];
  size_t n;
  char *su = file_read(in_dir(w, "kernel.so-kernel.su"), &n);
  if (su == NULL) su = file_read(in_dir(w, "kernel.su"), &n);
  source_frames(su ? su : "", info, largest, sizeof largest);
  free(su);
  if (info->max_frame > (size_t)MAX_FRAME) {
    snprintf(msg, sizeof msg, "%s: a stack frame of %zu bytes: a thread's frames may take at most "
             "%ld bytes on the CPU backend", largest, info->max_frame, MAX_FRAME);
    return compile_error(out, GPU_ERR_CPU_UNSUPPORTED, msg);
  }
  /* thread-locals: the static __shared__ arrays, and the library's indices (64 bytes) */
  size_t tls = source_tls_size(out->data, out->size), own = 64;
  info->static_shared = tls > own ? tls - own : 0;
  if (info->static_shared > MAX_SHARED) {
    snprintf(msg, sizeof msg, "the kernels use too much shared data: about %zu bytes of static "
             "__shared__ memory, at most %d (a GPU refuses it too)", info->static_shared, MAX_SHARED);
    return compile_error(out, GPU_ERR_CPU_COMPILE, msg);
  }
  return GPU_OK;
}

/* The library the compiler made, with a lowered name per kernel (module.c reads it). */
static GpuResult read_library(Workdir *w, const GpuCompileJob *job, const int *loops, GpuImage *out) {
  out->data = file_read(in_dir(w, "kernel.so"), &out->size);
  if (!out->data) return compile_error(out, GPU_ERR_CPU_COMPILE, "the compiler made no library");
  CpuLibraryInfo info;
  GpuResult r = library_info(w, out, &info);
  if (r.code) return r;
  size_t n;
  char *report = file_read(in_dir(w, "vec"), &n);
  out->lowered = calloc((size_t)job->nnames + 1, sizeof(char *));
  for (int i = 0; out->lowered && i < job->nnames; i++) {
    char name[96];
    int variant = !loops[i] ? -1 : report && source_vectorised(report, 2 * i + 2) ? 1 : 0;
    lowered_name(name, sizeof name, i, variant, &info);
    if ((out->lowered[i] = strdup(name)) == NULL) break;
  }
  free(report);
  if (out->lowered == NULL || (job->nnames > 0 && out->lowered[job->nnames - 1] == NULL))
    return compile_error(out, GPU_ERR_CPU_COMPILE, "out of memory reading the library");
  return GPU_OK;
}

/* Why a run of the compiler that made no library failed, when its log says nothing. */
static void run_failure(const Run *run, long timeout, char *msg, size_t n) {
  if (run->how == RUN_SPAWN_FAILED)
    snprintf(msg, n, "cannot run the C++ compiler '%s' (%s); set CXX", compiler(), strerror(run->status));
  else if (run->how == RUN_TIMED_OUT)
    snprintf(msg, n, "the C++ compiler '%s' did not finish in %ld s and was stopped (GPUHOST_CXX_TIMEOUT "
             "sets the limit)", compiler(), timeout);
  else if (run->how == RUN_KILLED)
    snprintf(msg, n, "the C++ compiler '%s' was killed by signal %d (%s)", compiler(), run->status,
             strsignal(run->status));
  else
    snprintf(msg, n, "the C++ compiler '%s' failed (exit status %d) and said nothing", compiler(),
             run->status);
}

/* Runs the compiler in w and reads back what it made (or its messages) into out. */
static GpuResult compile_in(Workdir *w, const GpuCompileJob *job, const int *loops, GpuImage *out) {
  char msg[600], logpath[sizeof w->path];
  long timeout = cpu_env_number("GPUHOST_CXX_TIMEOUT", 1, 86400, 300, msg, sizeof msg);
  if (timeout < 0) return compile_error(out, GPU_ERR_CPU_COMPILE, msg);
  Command c;
  char **argv = build_argv(&c, w, job);
  if (argv == NULL) return compile_error(out, GPU_ERR_CPU_COMPILE, "out of memory");
  snprintf(logpath, sizeof logpath, "%s", in_dir(w, "log"));
  Run run = run_compiler(argv, logpath, timeout);
  free(argv);
  if (run.how == RUN_INTERRUPTED)
    return compile_error(out, GPU_ERR_INTERRUPTED, "compiling was interrupted (Ctrl-C)");
  size_t len = 0;
  char *log = file_read(logpath, &len);
  GpuResult result;
  if (run.how == RUN_EXITED && run.status == 0) {
    result = read_library(w, job, loops, out);
    if (result.code == 0) { out->log = log; log = NULL; }
  } else {
    run_failure(&run, timeout, msg, sizeof msg);
    /* the compiler's own messages when it said something and ran to the end */
    int said = log && log[0] && (run.how == RUN_EXITED || run.how == RUN_KILLED);
    result = compile_error(out, GPU_ERR_CPU_COMPILE, said ? log : msg);
  }
  free(log);
  return result;
}

GpuResult cpu_compile(const GpuCompileJob *job, GpuImage *out) {
  memset(out, 0, sizeof *out);
  char *stripped = source_strip(job->source);
  const char *what = stripped ? source_refused(stripped) : NULL;
  free(stripped);
  if (what) {
    char msg[200];
    snprintf(msg, sizeof msg, "the CPU backend does not support %s", what);
    return compile_error(out, GPU_ERR_CPU_UNSUPPORTED, msg);
  }
  Workdir w;
  snprintf(w.dir, sizeof w.dir, "/tmp/gpuhost-cpu-XXXXXX");
  if (!mkdtemp(w.dir)) return compile_error(out, GPU_ERR_CPU_COMPILE, "cannot make a temporary folder");
  Buf src = {0};
  int *loops = calloc((size_t)job->nnames + 1, sizeof *loops);
  GpuResult result;
  if (loops == NULL || source_emit(&src, job, loops) != 0)
    result = compile_error(out, GPU_ERR_CPU_COMPILE, "out of memory");
  else if (write_files(&w, job, &src) != 0)
    result = compile_error(out, GPU_ERR_CPU_COMPILE, "cannot write the kernel's source");
  else result = compile_in(&w, job, loops, out);
  buf_free(&src);
  free(loops);
  remove_dir(&w);
  return result;
}
