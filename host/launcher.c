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
    return mpi_fail(GPU_ERR_COMM_FAILED, "gpu.nccl.comm()", "this process was not started by a "
                "launcher (none of OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is set): run it "
                "with mpirun -np N or srun, or name this process's devices: gpu.nccl.comm({0, 1})");
  long v[3];
  if (parse_long(r, 0, INT_MAX, &v[0]) || parse_long(s, 1, INT_MAX, &v[1]) || v[0] >= v[1] ||
      (l && parse_long(l, 0, INT_MAX, &v[2])))
    return mpi_fail(GPU_ERR_BAD_SETTING, "gpu.nccl.comm()", "the launcher's %s='%s', %s='%s'%s%s%s%s "
                "do not make a rank, a size and a local rank", rn, r, sn, s, l ? ", " : "",
                l ? ln : "", l ? "=" : "", l ? l : "");
  *rank = (int)v[0];
  *size = (int)v[1];
  *local_rank = l ? (int)v[2] : 0;
  return GPU_OK;
}

/* Process pid's state letter and parent from /proc/pid/stat; 0 when it cannot be read */
static int stat_of(pid_t pid, char *state, int *ppid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *close = strrchr(buf, ')');   /* after the name, which may hold anything */
  return close && sscanf(close + 1, " %c %d", state, ppid) == 2;
}

/* A process on this host that has ended (a zombie not yet reaped too) */
int process_ended(pid_t pid) {
  char state;
  int ppid;
  if (kill(pid, 0) != 0) return 1;
  return stat_of(pid, &state, &ppid) && (state == 'Z' || state == 'X');
}

/* Process pid's environment as it was started, whole (a rank's variables come after all
 * it inherited): malloc'd, NUL-separated, *n bytes; NULL when it cannot be read */
static char *environ_read(pid_t pid, size_t *n) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return NULL;
  size_t cap = 65536, len = 0;
  char *buf = malloc(cap + 1);
  for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
    len += got;
    if (len == cap) {
      char *more = cap < (64u << 20) ? realloc(buf, 2 * cap + 1) : NULL;
      if (more == NULL) { free(buf); buf = NULL; break; }
      buf = more, cap *= 2;
    }
  }
  fclose(f);
  if (buf) buf[len] = '\0', *n = len;
  return buf;
}

/* The value of `name` in an environment read so, or NULL */
static const char *environ_get(const char *env, size_t n, const char *name) {
  size_t len = strlen(name);
  for (size_t i = 0; i < n; i += strlen(env + i) + 1)
    if (strncmp(env + i, name, len) == 0 && env[i + len] == '=') return env + i + len + 1;
  return NULL;
}

/* The ranks on this host beside this one: processes whose environment names this job (the
 * launcher's namespace; without one, the launcher's other children) and a rank: a
 * wrapper (timeout, sh -c) counts with the rank it runs. pids[r * 4 + k]: what was seen
 * of rank r; local[k] marks local rank k seen. */
#define SEEN 4
typedef struct {
  pid_t *pids;
  char *local;
  int size, local_size, direct;   /* direct: this process's parent is the launcher */
  const char *rank_var, *local_var, *job_var, *job;
} Ranks;

static int same_job(const Ranks *w, pid_t pid, const char *env, size_t n) {
  if (w->job) {
    const char *job = environ_get(env, n, w->job_var);
    return job && strcmp(job, w->job) == 0;
  }
  char state;   /* no namespace: the launcher's children */
  int ppid;
  return stat_of(pid, &state, &ppid) && ppid == getppid();
}

static void seen(Ranks *w, pid_t pid, long rank) {
  for (int k = 0; k < SEEN; k++) {
    pid_t *p = &w->pids[rank * SEEN + k];
    if (*p == pid) return;
    if (*p == 0) { *p = pid; return; }
  }
}

static void look_for_ranks(Ranks *w) {
  DIR *d = opendir("/proc");
  if (d == NULL) return;
  pid_t me = getpid();
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    long pid, rank, local;
    size_t n;
    if (parse_long(e->d_name, 1, INT_MAX, &pid) || pid == me) continue;
    char *env = environ_read((pid_t)pid, &n);
    const char *r = env ? environ_get(env, n, w->rank_var) : NULL, *l;
    if (r && same_job(w, (pid_t)pid, env, n) && parse_long(r, 0, w->size - 1, &rank) == 0) {
      seen(w, (pid_t)pid, rank);
      if (w->local_var && (l = environ_get(env, n, w->local_var)) && parse_long(l, 0, w->local_size - 1, &local) == 0)
        w->local[local] = 1;
    }
    free(env);
  }
  closedir(d);
}

/* A rank on this host that has ended before MPI_Init returned (the failure), or GPU_OK:
 * one whose every process seen has ended, or (when the launcher started this process
 * itself, so that it started every local rank as this one's sibling) a local rank never
 * seen a second after the first look */
static GpuResult ranks_ended(Ranks *w, int me, int my_local, double waited) {
  look_for_ranks(w);
  for (int i = 0; i < w->size; i++) {
    int any = 0, alive = 0;
    for (int k = 0; k < SEEN && w->pids[i * SEEN + k]; k++)
      any = 1, alive |= !process_ended(w->pids[i * SEEN + k]);
    if (i != me && any && !alive)
      return mpi_fail(GPU_ERR_COMM_FAILED, "MPI_Init", "rank %d has ended before it made a "
                  "communicator (its script returned, raised an error or was killed before "
                  "gpu.nccl.comm()): MPI_Init waits for every rank", i);
  }
  for (int k = 0; waited > 1.0 && w->direct && w->local_var && k < w->local_size; k++)
    if (k != my_local && !w->local[k])
      return mpi_fail(GPU_ERR_COMM_FAILED, "MPI_Init", "local rank %d on this host has ended "
                  "before it made a communicator (its script returned, raised an "
                  "error or was killed before gpu.nccl.comm()): MPI_Init waits for every rank", k);
  return GPU_OK;
}

/* Whether this process's parent is the launcher (not a wrapper it ran: timeout, sh, nsys) */
static int parent_is_launcher(void) {
  static const char *const names[] = {"mpirun", "mpiexec", "orterun", "orted", "prterun", "prted",
                                      "srun", "slurmstepd", "hydra_pmi_proxy", NULL};
  char path[64], comm[64] = "";
  snprintf(path, sizeof path, "/proc/%d/comm", (int)getppid());
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  if (fgets(comm, sizeof comm, f) == NULL) comm[0] = '\0';
  fclose(f);
  comm[strcspn(comm, "\n")] = '\0';
  for (int i = 0; names[i]; i++)
    if (strcmp(comm, names[i]) == 0) return 1;
  return 0;
}

typedef struct { int (*start)(void *); void *arg; int ret; atomic_int done; } Start;

static void *run_start(void *p) {
  Start *s = p;
  s->ret = s->start(s->arg);
  atomic_store(&s->done, 1);
  return NULL;
}

static GpuResult watch(Start *s, Ranks *w, int me, int my_local) {
  double timeout, t0 = mpi_now(), next = 0;
  GpuResult r = comm_timeout(&timeout);
  while (r.code == 0 && !atomic_load(&s->done)) {
    double now = mpi_now();
    if (now >= next) {
      r = ranks_ended(w, me, my_local, now - t0);
      next = now + 0.1;
    }
    if (r.code) break;
    if (backend_take_interrupt())
      r = mpi_fail(GPU_ERR_INTERRUPTED, "MPI_Init", "MPI_Init: interrupted (Ctrl-C) while this rank "
               "waited for the other ranks to make their communicators");
    else if (now - t0 > timeout)
      r = mpi_fail(GPU_ERR_COMM_FAILED, "MPI_Init", "MPI_Init: the other ranks did not make their "
               "communicators (gpu.nccl.comm()) within %.0f s (GPUHOST_COMM_TIMEOUT)", timeout);
    else nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return r;
}

GpuResult launcher_wait(int (*start)(void *), void *arg, int *ret) {
  int rank, size, my_local;
  GpuResult r = mpi_launcher(&rank, &size, &my_local);
  if (r.code) return r;
  static const char *const job_vars[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", NULL};
  const char *rank_var = NULL, *local_var = NULL, *size_var = NULL, *job_var = NULL;
  env_first(rank_vars, &rank_var);
  env_first(local_vars, &local_var);
  const char *ls = env_first(local_size_vars, &size_var), *job = env_first(job_vars, &job_var);
  long local_size = 0;
  if (ls == NULL || parse_long(ls, 1, size, &local_size) || local_var == NULL) local_var = NULL;
  static Start s;   /* the thread may outlive a failed wait: it is left in MPI_Init */
  Ranks w = {calloc((size_t)size * SEEN, sizeof(pid_t)), calloc(local_size ? (size_t)local_size : 1, 1),
             size, (int)local_size, parent_is_launcher(), rank_var, local_var, job_var, job};
  s = (Start){start, arg, 0, 0};
  pthread_t t;
  if (!w.pids || !w.local) r = mpi_fail(GPU_ERR_MPI, "calloc", "out of host memory");
  else if (pthread_create(&t, NULL, run_start, &s) != 0)
    r = mpi_fail(GPU_ERR_MPI, "pthread_create", "no thread could be started for MPI_Init");
  else {
    r = watch(&s, &w, rank, my_local);
    if (r.code == 0) pthread_join(t, NULL), *ret = s.ret;
    else pthread_detach(t);
  }
  free(w.pids);
  free(w.local);
  return r;
}
