/* compile.c: CUDA C to a shared library, by the host's C++ compiler ($CXX, else c++; GCC
 * 11 or later, for the reports it writes): the translation unit (source.c) is written to a
 * private temporary folder (in the prelude's), compiled with the prelude (prelude.c) under
 * a time limit (GPUHOST_CXX_TIMEOUT seconds, 300 unless set), and the library read back
 * into memory with the frame sizes the compiler reported; the folder is removed.
 * From a process's third compile on, the prelude is precompiled (it is most of a small
 * kernel's compile time). */
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

/* A kernel's temporary folder and the paths in it. */
typedef struct Workdir { char dir[64], path[96]; } Workdir;
static const char *in_dir(Workdir *w, const char *name) {
  snprintf(w->path, sizeof w->path, "%s/%s", w->dir, name);
  return w->path;
}

/* what the compiler writes besides the library: its messages and its frame sizes (GCC 11 and later name them after the output, older ones not) */
static const char *const outputs[] = {"kernel.cpp", "kernel.so", "log", "kernel.so-kernel.su",
                                      "kernel.su", "gpuhost.cuh"};

/* Writes the source and gpuhost.cuh into the folder; 0 or -1. */
static int write_files(Workdir *w, const GpuCompileJob *job, const Buf *src) {
  if (file_write(in_dir(w, "gpuhost.cuh"), job->header, job->header_size) != 0 ||
      file_write(in_dir(w, "kernel.cpp"), src->data, src->n) != 0)
    return -1;
  return 0;
}

/* Removes the folder and everything in it. */
static void remove_dir(Workdir *w) {
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
    clock_gettime(CLOCK_MONOTONIC, &now);   /* (whole seconds alone ended some at 0.01 s) */
    long long ns = (long long)(now.tv_sec - start.tv_sec) * 1000000000 + (now.tv_nsec - start.tv_nsec);
    int late = ns >= (long long)timeout * 1000000000, interrupted = backend_interrupted != 0;
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
typedef struct Command { char words[512], incl[80], out[96], src[96], prelude[200], header[96]; } Command;
static char **build_argv(Command *c, Workdir *w, const GpuCompileJob *job) {
  char **argv = malloc((2 * (size_t)job->nopts + 56) * sizeof *argv);
  if (argv == NULL) return NULL;
  int n = 0;
  snprintf(c->words, sizeof c->words, "%s", cpu_compiler());   /* $CXX may be "ccache g++" */
  for (char *save = NULL, *t = strtok_r(c->words, " \t", &save); t && n < 16; t = strtok_r(NULL, " \t", &save))
    argv[n++] = t;
  snprintf(c->incl, sizeof c->incl, "-I%s", w->dir);
  argv[n++] = c->incl;
  n = prelude_args(argv, n);
  static const char *const more[] = {"-shared", "-fstack-usage", "-Wl,-Bsymbolic"};
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) argv[n++] = unconst(more[i]);
  if (job->debug) argv[n++] = unconst("-DGPUHOST_DEBUG");
  /* the user's -D, -U, -I and --pre-include options (gpu.lua spells them so); NVRTC's code
   * generation options mean nothing here. A file pre-included comes after the prelude and
   * gpuhost.cuh (as NVRTC reads it after gpuhost.cuh), which the unit's own includes of
   * them then skip. */
  const char *dir = prelude_dir();
  for (int i = 0, first = 1; i < job->nopts && dir; i++)
    if (strncmp(job->opts[i], "--pre-include=", 14) == 0 && first) {
      first = 0;
      snprintf(c->prelude, sizeof c->prelude, "%s/gpuhost_cpu.h", dir);
      snprintf(c->header, sizeof c->header, "%s/gpuhost.cuh", w->dir);
      argv[n++] = unconst("-include");
      argv[n++] = c->prelude;
      argv[n++] = unconst("-include");
      argv[n++] = c->header;
    }
  for (int i = 0; i < job->nopts; i++)
    if (strncmp(job->opts[i], "-D", 2) == 0 || strncmp(job->opts[i], "-U", 2) == 0 ||
        strncmp(job->opts[i], "-I", 2) == 0)
      argv[n++] = unconst(job->opts[i]);
    else if (strcmp(job->opts[i], "-std=c++20") == 0 || strcmp(job->opts[i], "--std=c++20") == 0)
      argv[n++] = unconst("-std=c++20");   /* after -std=c++17; older ones are read as C++17 */
    else if (strncmp(job->opts[i], "--pre-include=", 14) == 0) {
      argv[n++] = unconst("-include");
      argv[n++] = unconst(job->opts[i] + 14);
    }
  argv[n++] = unconst("-o");
  argv[n++] = strcpy(c->out, in_dir(w, "kernel.so"));
  argv[n++] = strcpy(c->src, in_dir(w, "kernel.cpp"));
  argv[n] = NULL;
  return argv;
}

/* The prelude, precompiled once (a process's third compile does it; it costs about two):
 * the compiler uses it wherever it is valid (it checks; not with -D options, say) and
 * reads the headers otherwise. A failure leaves the headers. */
static void precompile(long timeout) {
  static int compiles;
  if (++compiles != 3) return;
  char words[512], hdr[200], gch[200], log[200];
  char *argv[48];
  int n = 0;
  const char *dir = prelude_dir();
  if (dir == NULL) return;
  snprintf(words, sizeof words, "%s", cpu_compiler());
  for (char *save = NULL, *t = strtok_r(words, " \t", &save); t && n < 16; t = strtok_r(NULL, " \t", &save))
    argv[n++] = t;
  n = prelude_args(argv, n);
  snprintf(hdr, sizeof hdr, "%s/gpuhost_cpu.h", dir);
  snprintf(gch, sizeof gch, "%s/gpuhost_cpu.h.gch.tmp", dir);
  snprintf(log, sizeof log, "%s/gch.log", dir);
  argv[n++] = unconst("-x");
  argv[n++] = unconst("c++-header");
  argv[n++] = hdr;
  argv[n++] = unconst("-o");
  argv[n++] = gch;
  argv[n] = NULL;
  Run run = run_compiler(argv, log, timeout);
  unlink(log);
  char done[200];
  snprintf(done, sizeof done, "%s/gpuhost_cpu.h.gch", dir);
  if (run.how == RUN_EXITED && run.status == 0) rename(gch, done);
  else unlink(gch);
}

static GpuResult compile_error(GpuImage *out, int code, const char *log) {
  free(out->log);
  out->log = strdup(log);
  return GPU_FAIL(code, GPU_SRC_HOST, code == GPU_ERR_CPU_COMPILE ? "c++ (CPU backend)"
                                     : code == GPU_ERR_BAD_SETTING ? "GPUHOST_CXX_TIMEOUT"
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
  /* the static __shared__ arrays are thread-locals: the most one kernel has (a guess, from
   * the symbols: a GPU counts a kernel's own and its callees') */
  info->static_shared = source_static_shared(out->data, out->size);
  if (info->static_shared > MAX_SHARED) {
    snprintf(msg, sizeof msg, "kernel code uses too much shared data: about %zu bytes of static "
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
  char msg[600];
  if (source_limits(out->data, out->size, job, msg, sizeof msg) != 0)
    return compile_error(out, GPU_ERR_CPU_COMPILE, msg);
  out->lowered = calloc((size_t)job->nnames + 1, sizeof(char *));
  for (int i = 0; out->lowered && i < job->nnames; i++) {
    char name[160];
    int variant = loops[i] ? 0 : -1;
    lowered_name(name, sizeof name, i, variant, &info, job->names[i]);
    if ((out->lowered[i] = strdup(name)) == NULL) break;
  }
  if (out->lowered == NULL || (job->nnames > 0 && out->lowered[job->nnames - 1] == NULL))
    return compile_error(out, GPU_ERR_CPU_COMPILE, "out of memory reading the library");
  return GPU_OK;
}

/* Why a run of the compiler that made no library failed, when its log says nothing. */
static void run_failure(const Run *run, long timeout, char *msg, size_t n) {
  if (run->how == RUN_SPAWN_FAILED)
    snprintf(msg, n, "cannot run the C++ compiler '%s' (%s); set CXX", cpu_compiler(), strerror(run->status));
  else if (run->how == RUN_TIMED_OUT)
    snprintf(msg, n, "the C++ compiler '%s' did not finish in %ld s and was stopped (GPUHOST_CXX_TIMEOUT "
             "sets the limit)", cpu_compiler(), timeout);
  else if (run->how == RUN_KILLED)
    snprintf(msg, n, "the C++ compiler '%s' was killed by signal %d (%s)", cpu_compiler(), run->status,
             strsignal(run->status));
  else
    snprintf(msg, n, "the C++ compiler '%s' failed (exit status %d) and said nothing", cpu_compiler(),
             run->status);
}

/* The compiler's word for the guard of shared.c's rewrite of an extern __shared__ array in
 * a function's body, when the body was a namespace's (`NS(a) {` of a macro the text does
 * not define): refused by name, where it crashed the process as the library loaded. */
#define NOT_IN_FUNCTION "non-local lambda expression cannot have a capture-default"
static GpuResult shared_outside(GpuImage *out, const char *log) {
  Buf msg = {0};
  buf_printf(&msg, "the CPU backend does not support an extern __shared__ array in a block it took for a "
             "function's body but is not one (a namespace a macro opens: write the namespace out), "
             "nor a lambda with a capture-default outside a function:\n%s", log);
  GpuResult r = compile_error(out, GPU_ERR_CPU_UNSUPPORTED, msg.data ? msg.data : log);
  buf_free(&msg);
  return r;
}

/* Runs the compiler in w and reads back what it made (or its messages) into out. */
static GpuResult compile_in(Workdir *w, const GpuCompileJob *job, const int *loops, GpuImage *out) {
  char msg[600], logpath[sizeof w->path];
  long timeout = cpu_env_number("GPUHOST_CXX_TIMEOUT", 1, 86400, 300, msg, sizeof msg);
  if (timeout < 0) return compile_error(out, GPU_ERR_BAD_SETTING, msg);
  precompile(timeout);
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
    result = said && strstr(log, NOT_IN_FUNCTION) ? shared_outside(out, log)
                                                  : compile_error(out, GPU_ERR_CPU_COMPILE, said ? log : msg);
  }
  free(log);
  return result;
}

GpuResult cpu_compile(const GpuCompileJob *job, GpuImage *out) {
  memset(out, 0, sizeof *out);
  const char *what = source_refused(job->source, job);
  if (what) {
    char msg[200];
    snprintf(msg, sizeof msg, "the CPU backend does not support %s", what);
    return compile_error(out, GPU_ERR_CPU_UNSUPPORTED, msg);
  }
  Workdir w;
  const char *prelude = prelude_dir();   /* the work folder is made in it (prelude.c) */
  if (prelude == NULL) return compile_error(out, GPU_ERR_CPU_COMPILE, "cannot write the prelude's headers");
  snprintf(w.dir, sizeof w.dir, "%s/k-XXXXXX", prelude);
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
