/* mpi.c: libmpi opened with dlopen at the first communicator made under a launcher. Open
 * MPI's ABI is spoken (its handles are the addresses of its predefined objects, found with
 * dlsym; MPICH's are integers, and a library without Open MPI's objects is refused by
 * name). gpuhost talks on duplicates of MPI_COMM_WORLD with errors returned, so a failure
 * is an error object, not the end of the process: one of its own (the unique id, the
 * peers' process ids) and one per communicator (mpi_comm_dup). */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mpi.h"
#include "util.h"

typedef void *Handle;           /* MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request: pointers */
#define MPI_IN_PLACE ((void *)1)
#define MPI_FUNCS(X) \
  X(int, MPI_Initialized, (int *)) X(int, MPI_Init_thread, (int *, char ***, int, int *)) \
  X(int, MPI_Finalized, (int *)) X(int, MPI_Finalize, (void)) \
  X(int, MPI_Comm_rank, (Handle, int *)) X(int, MPI_Comm_size, (Handle, int *)) \
  X(int, MPI_Comm_dup, (Handle, Handle *)) X(int, MPI_Comm_set_errhandler, (Handle, Handle)) \
  X(int, MPI_Comm_free, (Handle *)) X(int, MPI_Comm_idup, (Handle, Handle *, Handle *)) \
  X(int, MPI_Cancel, (Handle *)) X(int, MPI_Request_free, (Handle *)) \
  X(int, MPI_Allgather, (const void *, int, Handle, void *, int, Handle, Handle)) \
  X(int, MPI_Iallreduce, (const void *, void *, int, Handle, Handle, Handle, Handle *)) \
  X(int, MPI_Iallgather, (const void *, int, Handle, void *, int, Handle, Handle, Handle *)) \
  X(int, MPI_Ireduce_scatter_block, (const void *, void *, int, Handle, Handle, Handle, Handle *)) \
  X(int, MPI_Ibcast, (void *, int, Handle, int, Handle, Handle *)) \
  X(int, MPI_Ireduce, (const void *, void *, int, Handle, Handle, int, Handle, Handle *)) \
  X(int, MPI_Isend, (const void *, int, Handle, int, int, Handle, Handle *)) \
  X(int, MPI_Irecv, (void *, int, Handle, int, int, Handle, Handle *)) \
  X(int, MPI_Test, (Handle *, int *, void *)) X(int, MPI_Error_string, (int, char *, int *)) \
  X(int, MPI_Op_create, (void (*)(void *, void *, int *, Handle *), int, Handle *))
/* Open MPI's predefined objects, in GPU_CT_* order for the types */
static const char *const type_names[] = {"ompi_mpi_int8_t", "ompi_mpi_uint8_t",
  "ompi_mpi_int32_t", "ompi_mpi_uint32_t", "ompi_mpi_int64_t", "ompi_mpi_uint64_t",
  "ompi_mpi_float", "ompi_mpi_double", "ompi_mpi_byte", "ompi_mpi_uint16_t"};

static struct {
#define DECLARE(ret, name, args) ret (*name) args;
  MPI_FUNCS(DECLARE)
#undef DECLARE
  Handle world, errors_return, types[10];
  Handle own_ops[4];            /* gpuhost's reductions (own_op): made at first use */
  Handle comm;                  /* gpuhost's own duplicate of MPI_COMM_WORLD */
  int started;                  /* MPI is up and agrees with the launcher */
  int initialized, rank, size, skip_finalize;
  GpuResult failed;             /* a failed start, kept */
  char message[600];
  pid_t *pids;                  /* every rank's process, and whether it is on this host */
  char *local;
  Handle bye;                   /* the receive of a peer's goodbye (say_goodbye), or NULL */
  int *bye_buf;
  int bye_from;                 /* the rank whose goodbye came (-1: none yet), and when */
  double bye_at;
} mpi = {.bye_from = -1};

static char detail[400];   /* the Lua thread is the only caller */

GpuResult mpi_fail(int code, const char *call, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return (GpuResult){code, GPU_SRC_HOST, call, detail, NULL};
}

/* An MPI error code as a result naming the call */
static GpuResult mpi_failed(int err, const char *call) {
  char text[256] = "";
  int len = 0;
  if (mpi.MPI_Error_string == NULL || mpi.MPI_Error_string(err, text, &len) != 0) text[0] = '\0';
  return mpi_fail(GPU_ERR_MPI, call, "%s failed: %s (MPI error %d)", call, text, err);
}
#define MPI_TRY(call) do { int e_ = (call); if (e_ != 0) return mpi_failed(e_, #call); } while (0)

/* A rank that ends (its script returned, raised or called os.exit) tells every peer before
 * MPI_Finalize, which waits for all of them: a peer waiting in a collective it will never
 * join sees the goodbye (mpi_peer_gone) and raises, where it waited for the timeout, and
 * this rank in MPI_Finalize with it. The sends are not waited for. */
static void say_goodbye(void) {
  static int me;
  if (!mpi.started) return;
  if (mpi.bye) {
    mpi.MPI_Cancel(&mpi.bye);
    mpi.MPI_Request_free(&mpi.bye);
  }
  me = mpi.rank;
  for (int i = 0; i < mpi.size; i++) {
    Handle req = NULL;
    if (i != mpi.rank && mpi.MPI_Isend(&me, 1, mpi.types[GPU_CT_INT32], i, GPU_TAG_BYE, mpi.comm, &req) == 0)
      mpi.MPI_Request_free(&req);
  }
}

static void finalize_at_exit(void) {
  int done = 1;
  if (mpi.initialized && !mpi.skip_finalize && mpi.MPI_Finalized(&done) == 0 && !done) {
    say_goodbye();
    mpi.MPI_Finalize();
  }
}

void mpi_skip_finalize(void) { mpi.skip_finalize = 1; }
int mpi_started(void) { return mpi.started; }

/* dlopen and dlsym; the failure is kept, as the driver's is */
static GpuResult load(void) {
  const char *name = getenv("GPUHOST_MPI_LIBRARY");
  const char *names[] = {name && *name ? name : "libmpi.so.40", name && *name ? NULL : "libmpi.so", NULL};
  void *lib = NULL;
  for (int i = 0; !lib && names[i]; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
  if (lib == NULL) {
    snprintf(mpi.message, sizeof mpi.message, "the MPI library %s could not be loaded (%s): "
             "install Open MPI (Debian: openmpi-bin libopenmpi-dev) or set GPUHOST_MPI_LIBRARY",
             names[0], dlerror());
    return mpi.failed = (GpuResult){GPU_ERR_NO_MPI, GPU_SRC_HOST, "dlopen(\"libmpi.so.40\")", mpi.message, NULL};
  }
  const char *missing = NULL;
#define FETCH(ret, fname, args) \
  if (!missing && !(*(void **)&mpi.fname = dlsym(lib, #fname))) missing = #fname;
  MPI_FUNCS(FETCH)
#undef FETCH
  if (!missing && !(mpi.world = dlsym(lib, "ompi_mpi_comm_world"))) missing = "ompi_mpi_comm_world";
  if (!missing && !(mpi.errors_return = dlsym(lib, "ompi_mpi_errors_return"))) missing = "ompi_mpi_errors_return";
  for (int i = 0; !missing && i < 10; i++)
    if (!(mpi.types[i] = dlsym(lib, type_names[i]))) missing = type_names[i];
  if (missing) {
    snprintf(mpi.message, sizeof mpi.message, "the MPI library has no %s: gpuhost speaks Open "
             "MPI's ABI (libmpi.so.40); MPICH and its kin are not supported", missing);
    return mpi.failed = (GpuResult){GPU_ERR_NO_MPI, GPU_SRC_HOST, "dlsym", mpi.message, NULL};
  }
  return GPU_OK;
}

/* Every rank's pid and whether it shares this host, for mpi_peer_gone */
static GpuResult exchange_pids(void) {
  struct { int pid; char host[60]; } me, *all = calloc((size_t)mpi.size, sizeof me);
  mpi.pids = calloc((size_t)mpi.size, sizeof *mpi.pids);
  mpi.local = calloc((size_t)mpi.size, 1);
  if (!all || !mpi.pids || !mpi.local) {
    free(all);
    return mpi_fail(GPU_ERR_MPI, "calloc", "out of host memory");
  }
  memset(&me, 0, sizeof me);
  me.pid = (int)getpid();
  gethostname(me.host, sizeof me.host - 1);
  int e = mpi.MPI_Allgather(&me, (int)sizeof me, mpi.types[GPU_CT_BYTE], all, (int)sizeof me,
                            mpi.types[GPU_CT_BYTE], mpi.comm);
  for (int i = 0; e == 0 && i < mpi.size; i++) {
    mpi.pids[i] = (pid_t)all[i].pid;
    mpi.local[i] = i != mpi.rank && strcmp(all[i].host, me.host) == 0;
  }
  free(all);
  return e ? mpi_failed(e, "MPI_Allgather(pids)") : GPU_OK;
}

/* MPI_Init, on a thread of launcher_wait's (MPI_THREAD_SERIALIZED: the Lua thread makes
 * every later call) */
static int init_thread(void *arg) {
  (void)arg;
  int provided = 0;
  return mpi.MPI_Init_thread(NULL, NULL, 2 /* MPI_THREAD_SERIALIZED */, &provided);
}

/* MPI_Init (unless the program did) and gpuhost's duplicate of its world, checked
 * against the launcher's rank and size */
static GpuResult init(int rank, int size) {
  int inited = 0;
  MPI_TRY(mpi.MPI_Initialized(&inited));
  if (!inited) {
    int e = 0;
    GpuResult r = launcher_wait(init_thread, NULL, &e);
    if (r.code) return r;
    MPI_TRY(e);
    /* a request's failure (MPI_Test of calls that differ between ranks) is reported on
     * the world's handler in Open MPI: returned, not the end of the process */
    MPI_TRY(mpi.MPI_Comm_set_errhandler(mpi.world, mpi.errors_return));
  }
  mpi.initialized = 1;
  atexit(finalize_at_exit);
  MPI_TRY(mpi.MPI_Comm_dup(mpi.world, &mpi.comm));
  MPI_TRY(mpi.MPI_Comm_set_errhandler(mpi.comm, mpi.errors_return));
  MPI_TRY(mpi.MPI_Comm_rank(mpi.comm, &mpi.rank));
  MPI_TRY(mpi.MPI_Comm_size(mpi.comm, &mpi.size));
  if (mpi.rank != rank || mpi.size != size)
    return mpi_fail(GPU_ERR_MPI, "MPI_Comm_rank", "MPI says rank %d of %d, the launcher's "
                "environment rank %d of %d: was this process started by another MPI's "
                "launcher?", mpi.rank, mpi.size, rank, size);
  return GPU_OK;
}

/* A start that failed stays failed: MPI cannot be initialized twice, and a second try
 * found MPI up and went on as the launcher's rank over a world that disagreed with it
 * (rank 1 of 2 over a world of one, whose collectives then read what no rank wrote). */
GpuResult mpi_start(void) {
  if (mpi.started) return GPU_OK;
  if (mpi.failed.code) return mpi.failed;
  int rank, size, local;
  GpuResult r = mpi_launcher(&rank, &size, &local);
  if (r.code) return r;            /* nothing was tried: no launcher, or its settings */
  r = load();                      /* keeps its own failure */
  if (r.code == 0) r = init(rank, size);
  if (r.code == 0) r = exchange_pids();
  if (r.code == 0) {
    static int from;
    int e = mpi.MPI_Irecv(&from, 1, mpi.types[GPU_CT_INT32], -1 /* MPI_ANY_SOURCE */, GPU_TAG_BYE,
                          mpi.comm, &mpi.bye);
    if (e) r = mpi_failed(e, "MPI_Irecv(goodbye)");
    else mpi.bye_buf = &from;
  }
  if (r.code == 0) {
    mpi.started = 1;
    return GPU_OK;
  }
  if (r.detail != mpi.message) snprintf(mpi.message, sizeof mpi.message, "%s", r.detail ? r.detail : "");
  r.detail = mpi.message;          /* `detail` is written over by the next failure */
  return mpi.failed = r;
}

/* A peer's goodbye counts once BYE_GRACE seconds have passed since it came: the
 * collectives it finished reach this rank's over other channels (NCCL's, another MPI
 * communicator), which may be later; what is still unfinished then never will be. */
#define BYE_GRACE 2.0
static int gone = -1, gone_alive;   /* gone_alive: by its goodbye, its process still there */
static const char *gone_how = "";

/* Looked at most every 10 ms (grace < 0: now): a look reads /proc for each peer (some
 * microseconds), and every collective asks before it is queued (an 8-byte all_reduce took
 * 17 us under mpirun on two H200s with a look each call, against CuPy's 11). A peer that
 * ends between looks is seen by the next look of the wait that hangs on it. */
static int peer_gone(double grace) {
  static double next;
  if ((gone >= 0 && !gone_alive) || !mpi.started || !mpi.pids) return gone;
  double now = mpi_now();
  if (grace >= 0 && now < next) return gone;
  next = now + 0.01;
  for (int i = 0; i < mpi.size; i++)   /* also after a goodbye: a death breaks more */
    if (mpi.local[i] && process_ended(mpi.pids[i]) && !(gone_alive && i == gone)) {
      gone_how = "its process is gone";
      gone_alive = 0;
      return gone = i;
    }
  if (gone >= 0) return gone;   /* by its goodbye, still */
  int flag = 0;
  if (mpi.bye && mpi.MPI_Test(&mpi.bye, &flag, NULL) == 0 && flag) {
    mpi.bye = NULL;
    mpi.bye_from = *mpi.bye_buf;
    mpi.bye_at = now;
  }
  if (mpi.bye_from >= 0 && now - mpi.bye_at >= (grace > 0 ? grace : 0)) {
    gone_how = "its script ended: it returned, raised an error or called os.exit";
    gone_alive = 1;
    return gone = mpi.bye_from;
  }
  return -1;
}

int mpi_peer_gone(void) { return peer_gone(BYE_GRACE); }
const char *mpi_gone_how(void) { return gone_how; }
int mpi_gone_alive(void) { return gone >= 0 && gone_alive; }

/* Waits for req (of `call`), watched: a peer gone, the timeout or Ctrl-C end the wait with
 * a failure (the request is left to MPI, and MPI_Finalize skipped: it would wait for it) */
static GpuResult wait_watched(Handle *req, const char *call) {
  double timeout, t0 = mpi_now();
  GpuResult r = comm_timeout(&timeout);
  for (int flag = 0; r.code == 0;) {
    int e = mpi.MPI_Test(req, &flag, NULL);
    if (e) return mpi_failed(e, call);
    if (flag) return GPU_OK;
    int who = peer_gone(-1);
    if (who >= 0)
      r = mpi_fail(GPU_ERR_COMM_FAILED, call, "rank %d has ended (%s) while rank %d waited for it in "
               "%s: no communicator can be made with it", who, gone_how, mpi.rank, call);
    else if (backend_take_interrupt())
      r = mpi_fail(GPU_ERR_INTERRUPTED, call, "%s: interrupted (Ctrl-C) while rank %d waited for the "
               "other ranks", call, mpi.rank);
    else if (mpi_now() - t0 > timeout)
      r = mpi_fail(GPU_ERR_COMM_FAILED, call, "%s: the other ranks did not join within %.0f s "
               "(GPUHOST_COMM_TIMEOUT)", call, timeout);
    else nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  mpi_skip_finalize();
  return r;
}

GpuResult mpi_bcast(void *buf, size_t n, int root) {
  if (n > INT_MAX) return mpi_fail(GPU_ERR_MPI, "MPI_Bcast", "%zu bytes is too many for one MPI call", n);
  Handle req = NULL;
  MPI_TRY(mpi.MPI_Ibcast(buf, (int)n, mpi.types[GPU_CT_BYTE], root, mpi.comm, &req));
  return wait_watched(&req, "MPI_Bcast");
}

/* A duplicate of gpuhost's world, which inherits its error handler (errors returned) */
GpuResult mpi_comm_dup(void **comm) {
  Handle c = NULL, req = NULL;
  MPI_TRY(mpi.MPI_Comm_idup(mpi.comm, &c, &req));
  GpuResult r = wait_watched(&req, "MPI_Comm_dup");
  if (r.code == 0) *comm = c;
  return r;
}

/* MPI_Comm_free is collective in the standard, but Open MPI's (the ABI spoken here) only
 * drops this process's reference: it waits for no other rank, and requests still out keep
 * the communicator until they end. After MPI_Finalize there is nothing to free. */
void mpi_comm_free(void *comm) {
  int done = 1;
  Handle c = comm;
  if (c && mpi.MPI_Finalized(&done) == 0 && !done) mpi.MPI_Comm_free(&c);
}

GpuResult mpi_post_allgather(void *comm, const void *mine, void *all, size_t n, MpiRequest *req) {
  Handle byte = mpi.types[GPU_CT_BYTE];
  MPI_TRY(mpi.MPI_Iallgather(mine, (int)n, byte, all, (int)n, byte, comm, &req->handle));
  req->active = 1;
  return GPU_OK;
}

/* MPI's user functions, one per GPU_RED_*, over host_combine: the reductions of one
 * process and of several are one code, NCCL's (MPI's own may differ: Open MPI 4.1's AVX
 * sum of int8 saturates, where NCCL's wraps; its min of a NaN depends on the order), and
 * float16 (MPI has none: uint16 elements) is one of them. The type tells which. */
static int type_of(Handle t) {
  for (int i = 0; i < 10; i++)
    if (mpi.types[i] == t && i != GPU_CT_BYTE) return i;
  return GPU_CT_BYTE;   /* (never: only the types above are reduced) */
}
#define OWN_OP(name, red) \
  static void name(void *in, void *inout, int *len, Handle *type) { \
    host_combine(inout, in, (size_t)*len, type_of(*type), red); \
  }
OWN_OP(own_sum, GPU_RED_SUM) OWN_OP(own_prod, GPU_RED_PROD) OWN_OP(own_min, GPU_RED_MIN)
OWN_OP(own_max, GPU_RED_MAX)
#undef OWN_OP

static GpuResult own_op(int red, Handle *op) {
  static void (*const fns[4])(void *, void *, int *, Handle *) = {own_sum, own_prod, own_min, own_max};
  if (!mpi.own_ops[red]) MPI_TRY(mpi.MPI_Op_create(fns[red], 1, &mpi.own_ops[red]));
  *op = mpi.own_ops[red];
  return GPU_OK;
}

GpuResult mpi_post(void *comm, const GpuCollArgs *a, void *send, void *recv, MpiRequest *req) {
  if (a->count > INT_MAX)
    return mpi_fail(GPU_ERR_MPI, "MPI", "%zu elements is more than one MPI call takes (2^31 - 1): "
                "split the array", a->count);
  int n = (int)a->count;
  int red = a->op == GPU_RED_AVG ? GPU_RED_SUM : a->op;
  Handle t = mpi.types[a->type], op = NULL;
  GpuResult r = own_op(red, &op);
  if (r.code) return r;
  Handle *h = &req->handle;
  const void *in = send == recv ? MPI_IN_PLACE : send;
  switch (a->kind) {
    case GPU_COLL_ALL_REDUCE: MPI_TRY(mpi.MPI_Iallreduce(in, recv, n, t, op, comm, h)); break;
    case GPU_COLL_ALL_GATHER: MPI_TRY(mpi.MPI_Iallgather(send, n, t, recv, n, t, comm, h)); break;
    case GPU_COLL_REDUCE_SCATTER:
      MPI_TRY(mpi.MPI_Ireduce_scatter_block(send, recv, n, t, op, comm, h));
      break;
    case GPU_COLL_BROADCAST: MPI_TRY(mpi.MPI_Ibcast(recv, n, t, a->peer, comm, h)); break;
    case GPU_COLL_REDUCE:
      MPI_TRY(mpi.MPI_Ireduce(mpi.rank == a->peer ? in : send, recv, n, t, op, a->peer, comm, h));
      break;
    case GPU_COLL_SEND: MPI_TRY(mpi.MPI_Isend(send, n, t, a->peer, GPU_TAG_DATA, comm, h)); break;
    case GPU_COLL_RECV: MPI_TRY(mpi.MPI_Irecv(recv, n, t, a->peer, GPU_TAG_DATA, comm, h)); break;
    default: return mpi_fail(GPU_ERR_MPI, "MPI", "unknown collective %d", a->kind);
  }
  req->active = 1;
  return GPU_OK;
}

GpuResult mpi_post_bytes(void *comm, void *buf, size_t n, int peer, int tag, int sending,
                         MpiRequest *req) {
  Handle byte = mpi.types[GPU_CT_BYTE];
  if (sending) MPI_TRY(mpi.MPI_Isend(buf, (int)n, byte, peer, tag, comm, &req->handle));
  else MPI_TRY(mpi.MPI_Irecv(buf, (int)n, byte, peer, tag, comm, &req->handle));
  req->active = 1;
  return GPU_OK;
}

GpuResult mpi_test(MpiRequest *req, int *done) {
  *done = 1;
  if (!req->active) return GPU_OK;
  int flag = 0;
  MPI_TRY(mpi.MPI_Test(&req->handle, &flag, NULL));
  *done = flag != 0;
  if (flag) req->active = 0;
  return GPU_OK;
}

GpuResult comm_timeout(double *seconds) {
  int bad;
  long v = env_long("GPUHOST_COMM_TIMEOUT", 1, 1000000, 600, &bad);
  if (bad)
    return mpi_fail(GPU_ERR_BAD_SETTING, "GPUHOST_COMM_TIMEOUT", "GPUHOST_COMM_TIMEOUT='%s': a "
                "whole number of seconds from 1 to 1000000 expected", getenv("GPUHOST_COMM_TIMEOUT"));
  *seconds = (double)v;
  return GPU_OK;
}

double mpi_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
