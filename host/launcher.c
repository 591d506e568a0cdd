/* launcher.c: the processes a launcher (mpirun, srun) started, seen from one of them: its
 * rank in the environment, whether another process has ended, and MPI_Init waited for
 * watched. MPI_Init returns when every rank has called it, and a rank whose script ended
 * before it (it returned before gpu.nccl.comm()) never will: Open MPI's mpirun says
 * nothing, and the others waited in MPI_Init for good. So the init runs on a thread of
 * its own while the Lua thread looks at the launcher's other children on this host (the
 * ranks beside this one), the timeout and Ctrl-C. */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mpi.h"
#include "util.h"

/* Open MPI, MPICH's hydra (and Intel MPI), Slurm's srun, PMIx */
static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "PMIX_RANK", NULL};
static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
static const char *const local_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                         "SLURM_LOCALID", "PMIX_LOCAL_RANK", NULL};
static const char *const local_size_vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", NULL};

static char detail[400];   /* the Lua thread is the only caller */

static GpuResult fail(int code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static GpuResult fail(int code, const char *call, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return (GpuResult){code, GPU_SRC_HOST, call, detail, NULL};
}

static const char *env_first(const char *const *names, const char **which) {
  for (int i = 0; names[i]; i++) {
    const char *v = getenv(names[i]);
    if (v && *v) { *which = names[i]; return v; }
  }
  return NULL;
}

GpuResult mpi_launcher(int *rank, int *size, int *local_rank) {
  const char *rn = NULL, *sn = NULL, *ln = NULL;
  const char *r = env_first(rank_vars, &rn), *s = env_first(size_vars, &sn), *l = env_first(local_vars, &ln);
  if (r == NULL || s == NULL)
    return fail(GPU_ERR_COMM_FAILED, "gpu.nccl.comm()", "this process was not started by a "
                "launcher (none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is set): run it "
                "with mpirun -np N or srun, or name this process's devices: gpu.nccl.comm({0, 1})");
  long v[3];
  if (parse_long(r, 0, INT_MAX, &v[0]) || parse_long(s, 1, INT_MAX, &v[1]) || v[0] >= v[1] ||
      (l && parse_long(l, 0, INT_MAX, &v[2])))
    return fail(GPU_ERR_BAD_SETTING, "gpu.nccl.comm()", "the launcher's %s='%s', %s='%s'%s%s%s%s "
                "do not make a rank, a size and a local rank", rn, r, sn, s, l ? ", " : "",
                l ? ln : "", l ? "=" : "", l ? l : "");
  *rank = (int)v[0];
  *size = (int)v[1];
  *local_rank = l ? (int)v[2] : 0;
  return GPU_OK;
}

/* A process on this host that has ended (a zombie not yet reaped too) */
int process_ended(pid_t pid) {
  if (kill(pid, 0) != 0) return 1;
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *close = strrchr(buf, ')');
  return close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

/* The value of `name` in process pid's environment (as it was started), into out */
static int environ_of(pid_t pid, const char *name, char *out, size_t size) {
  char path[64], buf[65536];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f), len = strlen(name);
  fclose(f);
  buf[n] = '\0';
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
    if (strncmp(buf + i, name, len) == 0 && buf[i + len] == '=') {
      snprintf(out, size, "%s", buf + i + len + 1);
      return 1;
    }
  return 0;
}

/* The ranks on this host beside this one: the launcher's other children whose
 * environment names a rank (ranks[r]: its pid, once seen; local[k] marks local rank k seen) */
typedef struct { pid_t *pids; char *local; int size, local_size; const char *rank_var, *local_var; } Ranks;

static void look_for_ranks(Ranks *w) {
  DIR *d = opendir("/proc");
  if (d == NULL) return;
  pid_t me = getpid(), parent = getppid();
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    long pid, rank, local;
    char path[300], buf[512], value[32];
    if (parse_long(e->d_name, 1, INT_MAX, &pid) || pid == me) continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (f == NULL) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *close = strrchr(buf, ')');
    int ppid = 0;
    if (close == NULL || sscanf(close + 1, " %*c %d", &ppid) != 1 || ppid != parent) continue;
    if (!environ_of((pid_t)pid, w->rank_var, value, sizeof value) ||
        parse_long(value, 0, w->size - 1, &rank) || w->pids[rank]) continue;
    w->pids[rank] = (pid_t)pid;
    if (w->local_var && environ_of((pid_t)pid, w->local_var, value, sizeof value) &&
        parse_long(value, 0, w->local_size - 1, &local) == 0)
      w->local[local] = 1;
  }
  closedir(d);
}

/* A rank on this host that has ended before MPI_Init returned (the failure), or GPU_OK */
static GpuResult ranks_ended(Ranks *w, int my_local, double waited) {
  look_for_ranks(w);
  for (int i = 0; i < w->size; i++)
    if (w->pids[i] && process_ended(w->pids[i]))
      return fail(GPU_ERR_COMM_FAILED, "MPI_Init", "rank %d has ended before it made a "
                  "communicator (its script returned, raised an error or was killed before "
                  "gpu.nccl.comm()): MPI_Init waits for every rank", i);
  /* a rank that ended before the first look is never seen: after a second, count them */
  for (int k = 0; waited > 1.0 && w->local_var && k < w->local_size; k++)
    if (k != my_local && !w->local[k])
      return fail(GPU_ERR_COMM_FAILED, "MPI_Init", "local rank %d on this host has ended "
                  "before it made a communicator (its script returned, raised an "
                  "error or was killed before gpu.nccl.comm()): MPI_Init waits for every rank", k);
  return GPU_OK;
}

typedef struct { int (*start)(void *); void *arg; int ret; atomic_int done; } Start;

static void *run_start(void *p) {
  Start *s = p;
  s->ret = s->start(s->arg);
  atomic_store(&s->done, 1);
  return NULL;
}

static GpuResult watch(Start *s, Ranks *w, int my_local) {
  double timeout, t0 = mpi_now(), next = 0;
  GpuResult r = comm_timeout(&timeout);
  while (r.code == 0 && !atomic_load(&s->done)) {
    double now = mpi_now();
    if (now >= next) {
      r = ranks_ended(w, my_local, now - t0);
      next = now + 0.1;
    }
    if (r.code) break;
    if (backend_take_interrupt())
      r = fail(GPU_ERR_INTERRUPTED, "MPI_Init", "MPI_Init: interrupted (Ctrl-C) while this rank "
               "waited for the other ranks to make their communicators");
    else if (now - t0 > timeout)
      r = fail(GPU_ERR_COMM_FAILED, "MPI_Init", "MPI_Init: the other ranks did not make their "
               "communicators (gpu.nccl.comm()) within %.0f s (GPUHOST_COMM_TIMEOUT)", timeout);
    else nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return r;
}

GpuResult launcher_wait(int (*start)(void *), void *arg, int *ret) {
  int rank, size, my_local;
  GpuResult r = mpi_launcher(&rank, &size, &my_local);
  if (r.code) return r;
  const char *rank_var = NULL, *local_var = NULL, *size_var = NULL;
  env_first(rank_vars, &rank_var);
  env_first(local_vars, &local_var);
  const char *ls = env_first(local_size_vars, &size_var);
  long local_size = 0;
  if (ls == NULL || parse_long(ls, 1, size, &local_size) || local_var == NULL) local_var = NULL;
  static Start s;   /* the thread may outlive a failed wait: it is left in MPI_Init */
  Ranks w = {calloc((size_t)size, sizeof(pid_t)), calloc(local_size ? (size_t)local_size : 1, 1),
             size, (int)local_size, rank_var, local_var};
  s = (Start){start, arg, 0, 0};
  pthread_t t;
  if (!w.pids || !w.local) r = fail(GPU_ERR_MPI, "calloc", "out of host memory");
  else if (pthread_create(&t, NULL, run_start, &s) != 0)
    r = fail(GPU_ERR_MPI, "pthread_create", "no thread could be started for MPI_Init");
  else {
    r = watch(&s, &w, my_local);
    if (r.code == 0) pthread_join(t, NULL), *ret = s.ret;
    else pthread_detach(t);
  }
  free(w.pids);
  free(w.local);
  return r;
}
