/* nccl.c: collectives through NCCL, libnccl.so.2 opened with dlopen at the first
 * communicator (GPUHOST_NO_NCCL naming the library when it cannot be). The toolkit does
 * not ship nccl.h, so the few types and entry points used are declared here as NCCL 2.28
 * documents them (opaque handles, enums by value). NCCL_NVLS_ENABLE=0 is set before NCCL
 * loads unless the user set it (NVLink multicast stays off, as the GPU hosts gpuhost is
 * measured on require).
 *
 * Failures do not hang: each communicator keeps probes, events recorded after its last
 * collectives; while a wait polls (driver.c's cuda_wait) and before each collective, a
 * communicator with unfinished work is checked: NCCL's asynchronous error, a peer
 * process on this host that has ended (host/mpi.c), or a last collective unfinished
 * GPUHOST_COMM_TIMEOUT seconds after it was queued break it, and ncclCommAbort ends its
 * kernels, so the wait returns the failure. The throttle (cuda_internal.h) keeps the host
 * from queueing so far past an unfinished collective that a launch would block in CUDA,
 * where no wait polls: it waits, watched, for the probes of collectives queued more than
 * NCCL_AHEAD entries ago. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_internal.h"
#include "mpi.h"

typedef struct ncclComm *ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef int ncclResult_t;      /* ncclSuccess 0 ... ncclRemoteError 6, ncclInProgress 7 */
enum { ncclSuccess = 0, ncclInProgress = 7 };
/* ncclDataType_t in GPU_CT_* order: Int8 0, Uint8 1, Int32 2, Uint32 3, Int64 4, Uint64 5,
 * Float32 7, Float64 8; bytes go as Uint8; Float16 6 */
static const int nccl_types[] = {0, 1, 2, 3, 4, 5, 7, 8, 1, 6};
/* ncclRedOp_t: Sum 0, Prod 1, Max 2, Min 3, Avg 4, in GPU_RED_* order */
static const int nccl_ops[] = {0, 1, 3, 2, 4};

#define NCCL_FUNCS(X) \
  X(ncclGetVersion, (int *)) X(ncclGetUniqueId, (ncclUniqueId *)) \
  X(ncclCommInitRank, (ncclComm_t *, int, ncclUniqueId, int)) \
  X(ncclCommInitAll, (ncclComm_t *, int, const int *)) \
  X(ncclCommDestroy, (ncclComm_t)) X(ncclCommAbort, (ncclComm_t)) \
  X(ncclCommGetAsyncError, (ncclComm_t, ncclResult_t *)) \
  X(ncclAllReduce, (const void *, void *, size_t, int, int, ncclComm_t, CUstream)) \
  X(ncclAllGather, (const void *, void *, size_t, int, ncclComm_t, CUstream)) \
  X(ncclReduceScatter, (const void *, void *, size_t, int, int, ncclComm_t, CUstream)) \
  X(ncclBroadcast, (const void *, void *, size_t, int, int, ncclComm_t, CUstream)) \
  X(ncclReduce, (const void *, void *, size_t, int, int, int, ncclComm_t, CUstream)) \
  X(ncclSend, (const void *, size_t, int, int, ncclComm_t, CUstream)) \
  X(ncclRecv, (void *, size_t, int, int, ncclComm_t, CUstream)) \
  X(ncclGroupStart, (void)) X(ncclGroupEnd, (void))
static struct {
#define DECLARE(name, args) ncclResult_t (*name) args;
  NCCL_FUNCS(DECLARE)
#undef DECLARE
  const char *(*ncclGetErrorString)(ncclResult_t);
  const char *(*ncclGetLastError)(ncclComm_t);
} nc;
static Library nccl;

#define NPROBES 16

struct GpuComm {
  ncclComm_t comm;
  int device, rank, nranks, broken, launched;   /* launched: under MPI */
  /* A ring of the collectives not known done, oldest first: the probe recorded after
   * each, and nccl_entries then. A later one done means the earlier are (NCCL runs a
   * communicator's work in the order it was queued). */
  CUevent probes[NPROBES];
  long long stamps[NPROBES];
  int first, out;
  double probed;               /* when the newest was recorded, while out > 0; else 0 */
  /* Whether collectives on the legacy stream wait for their probe (mark_queued), and
   * nccl_entries at the first of them */
  int pending;
  long long pending_stamp;
  double timeout;
  struct GpuComm *next;        /* every live communicator, for the waits' watch */
  double next_look;            /* when NCCL's error and the peers are looked at again */
};
static GpuComm *live;
typedef struct Touched { GpuComm *c; CUstream s; } Touched;
static Touched touched[GPU_MAX_DEVICES * 4];   /* used in the open group, and where last */
static int ntouched, depth;
static char detail[600];   /* the Lua thread is the only caller */

#define NCCL_FAIL(call) ((GpuResult){GPU_ERR_NCCL, GPU_SRC_HOST, call, detail, NULL})
#define BROKE(call) ((GpuResult){GPU_ERR_COMM_FAILED, GPU_SRC_HOST, call, detail, NULL})

static GpuResult nccl_failed(ncclResult_t e, ncclComm_t comm, const char *call) {
  const char *last = nc.ncclGetLastError ? nc.ncclGetLastError(comm) : NULL;
  snprintf(detail, sizeof detail, "%s failed: %s%s%s", call,
           nc.ncclGetErrorString ? nc.ncclGetErrorString(e) : "NCCL error",
           last && *last ? ": " : "", last && *last ? last : "");
  return NCCL_FAIL(call);
}
#define NTRY(call, comm) do { ncclResult_t e_ = (call); \
    if (e_ != ncclSuccess && e_ != ncclInProgress) return nccl_failed(e_, comm, #call); } while (0)

static GpuResult nccl_load(void) {
  if (nccl.loaded) return GPU_OK;
  if (nccl.result.code) return nccl.result;
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  const char *name = getenv("GPUHOST_NCCL_LIBRARY");
  if (name == NULL || *name == '\0') name = "libnccl.so.2";
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return library_fail(&nccl, GPU_ERR_NO_NCCL, GPU_SRC_HOST, "dlopen(\"libnccl.so.2\")",
                        "the NCCL library %s could not be loaded (%s): install NCCL (libnccl2, or "
                        "pip's nvidia-nccl-cu12) or set GPUHOST_NCCL_LIBRARY", name, dlerror());
#define FETCH(fname, args) \
  if (!(*(void **)&nc.fname = dlsym(lib, #fname))) \
    return library_fail(&nccl, GPU_ERR_NO_NCCL, GPU_SRC_HOST, "dlsym(\"" #fname "\")", \
                        "%s has no %s: NCCL 2.12 or later is needed", name, #fname);
  NCCL_FUNCS(FETCH)
#undef FETCH
  *(void **)&nc.ncclGetErrorString = dlsym(lib, "ncclGetErrorString");
  *(void **)&nc.ncclGetLastError = dlsym(lib, "ncclGetLastError");
  nccl.loaded = 1;
  return GPU_OK;
}

GpuResult nccl_version(int *version) {
  GpuResult r = nccl_load();
  if (r.code) return r;
  NTRY(nc.ncclGetVersion(version), NULL);
  return GPU_OK;
}

GpuResult nccl_comm_id(GpuCommId *id) {
  GpuResult r = nccl_load();
  if (r.code) return r;
  NTRY(nc.ncclGetUniqueId((ncclUniqueId *)id->bytes), NULL);
  return GPU_OK;
}

/* A new communicator record for an NCCL handle, made live */
static GpuResult wrap(GpuComm **out, ncclComm_t comm, int device, int rank, int nranks, int launched) {
  double timeout;
  GpuResult r = comm_timeout(&timeout);
  if (r.code) return r;
  GpuComm *c = calloc(1, sizeof *c);
  if (c == NULL) return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "calloc");
  *c = (GpuComm){.comm = comm, .device = device, .rank = rank, .nranks = nranks,
                 .launched = launched, .timeout = timeout, .next = live};
  r = cuda_use_device(device);
  for (int i = 0; i < NPROBES && r.code == 0; i++)
    if (drv.cuEventCreate(&c->probes[i], CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
      r = GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "cuEventCreate(&probe)");
  if (r.code) {
    for (int i = 0; i < NPROBES && c->probes[i]; i++) drv.cuEventDestroy(c->probes[i]);
    free(c);
    return r;
  }
  live = c;
  *out = c;
  return GPU_OK;
}

GpuResult nccl_comm_init_all(GpuComm **comms, int n, const int *devs) {
  GpuResult r = nccl_load();
  for (int i = 0; i < n && r.code == 0; i++) r = cuda_use_device(devs[i]);   /* contexts */
  if (r.code) return r;
  SETTLES("ncclCommInitAll");   /* NCCL allocates, and may wait for the devices */
  ncclComm_t h[GPU_MAX_DEVICES];
  NTRY(nc.ncclCommInitAll(h, n, devs), NULL);
  for (int i = 0; i < n && r.code == 0; i++) r = wrap(&comms[i], h[i], devs[i], i, n, 0);
  return r;
}

GpuResult nccl_comm_init_rank(GpuComm **comm, int nranks, int rank, const GpuCommId *id, int device) {
  GpuResult r = nccl_load();
  if (r.code == 0) r = cuda_use_device(device);
  if (r.code) return r;
  SETTLES("ncclCommInitRank");   /* NCCL allocates, and may wait for the device */
  ncclUniqueId uid;
  memcpy(&uid, id->bytes, sizeof uid);
  ncclComm_t h;
  NTRY(nc.ncclCommInitRank(&h, nranks, uid, rank), NULL);
  return wrap(comm, h, device, rank, nranks, 1);
}

/* c's oldest collective out is known done: it leaves the ring (a wait's watch may have
 * emptied it already) */
static void retire(GpuComm *c) {
  if (c->out == 0) return;
  c->first = (c->first + 1) % NPROBES;
  if (--c->out == 0) c->probed = 0;
}

/* Whether c's last collective is not known to be done (once it is, that is kept; a probe
 * that cannot be queried counts as done) */
static int unfinished(GpuComm *c) {
  if (c->out == 0) return 0;
  if (drv.cuEventQuery(c->probes[(c->first + c->out - 1) % NPROBES]) == CUDA_ERROR_NOT_READY) return 1;
  c->out = 0;
  c->probed = 0;
  return 0;
}

/* Why c is broken, or NULL: NCCL's asynchronous error, a peer gone (one gone by its
 * goodbye only while c is waited for: sends and recvs between two others go on), the timeout. The
 * first two are looked at every 10 ms at most: every collective asks before it is queued,
 * and the waits poll (an 8-byte all_reduce under mpirun took 13.5 us against CuPy's 8.3
 * with both looked at each call). */
static const char *why_broken(GpuComm *c, int waiting) {
  ncclResult_t e = ncclSuccess;
  if (c->broken) return "the communicator is broken by an earlier failure";
  double now = mpi_now();
  if (now >= c->next_look) {
    c->next_look = now + 0.01;
    if (nc.ncclCommGetAsyncError(c->comm, &e) == ncclSuccess && e != ncclSuccess && e != ncclInProgress) {
      nccl_failed(e, c->comm, "NCCL (asynchronous error)");
      return detail;
    }
    int gone = c->launched ? mpi_peer_gone() : -1;
    if (gone >= 0 && mpi_gone_alive() && !waiting) gone = -1;   /* a goodbye: only a wait on it */
    if (gone >= 0) {
      snprintf(detail, sizeof detail, "rank %d has ended (%s) while rank %d worked with it; "
               "the communicator is broken", gone, mpi_gone_how(), c->rank);
      return detail;
    }
  }
  if (c->probed > 0 && now - c->probed > c->timeout && unfinished(c)) {
    snprintf(detail, sizeof detail, "a collective on rank %d (device %d) has not finished after "
             "%.0f s (GPUHOST_COMM_TIMEOUT): a rank is stuck elsewhere, has died on another host, "
             "or calls another collective (or other sizes); the communicator is broken",
             c->rank, c->device, c->timeout);
    return detail;
  }
  return NULL;
}

static int in_open_group(const GpuComm *c) {
  for (int i = 0; depth > 0 && i < ntouched; i++)
    if (touched[i].c == c) return 1;
  return 0;
}

/* Breaks c: its kernels end, its peers' waits will see it. One with calls in the open
 * group is aborted at the group's end (broken with its comm kept): NCCL holds them till
 * then. */
static void break_comm(GpuComm *c) {
  if (c->broken) return;
  c->broken = 1;
  if (c->pending) {
    c->pending = 0;
    nccl_pending--;
  }
  if (c->launched) mpi_skip_finalize();
  if (in_open_group(c)) return;
  nc.ncclCommAbort(c->comm);
  c->comm = NULL;
}

GpuResult nccl_comm_check(GpuComm *c) {
  const char *why = why_broken(c, 0);
  if (why == NULL) return GPU_OK;
  if (why != detail) snprintf(detail, sizeof detail, "%s", why);
  break_comm(c);
  return BROKE("comm");
}

GpuResult nccl_watch(void) {
  for (GpuComm *c = live; c; c = c->next)
    if (!c->broken && unfinished(c) && why_broken(c, 1)) {
      break_comm(c);
      return BROKE("cuStreamSynchronize (a collective)");
    }
  return GPU_OK;
}

int nccl_out, nccl_pending;
long long nccl_entries, nccl_due;

/* The throttle looks again at nccl_entries `due` at the latest */
static void look_by(long long due) {
  if (!nccl_out || due < nccl_due) nccl_due = due;
  nccl_out = 1;
}

/* The probe follows what is queued on s (c's device current) and covers c's collectives
 * queued from `stamp` on; the timeout counts from now (it also covers the work queued
 * after them on s, and must not count that). In a full ring the newest probe moves on to
 * cover them too, keeping its stamp. 0: it could not be recorded. */
static int record(GpuComm *c, CUstream s, long long stamp) {
  int full = c->out == NPROBES;
  int i = (c->first + c->out - full) % NPROBES;
  if (drv.cuEventRecord(c->probes[i], s) != CUDA_SUCCESS) return 0;
  if (!full) {
    c->stamps[i] = stamp;
    c->out++;
  }
  c->probed = mpi_now();
  look_by(c->stamps[c->first] + NCCL_AHEAD);
  return 1;
}

/* c's collectives on the legacy stream get their probe now (kept pending if it cannot be
 * recorded) */
static void flush(GpuComm *c) {
  int was = current;
  if (cuda_use_device(c->device).code == 0 && record(c, NULL, c->pending_stamp)) {
    c->pending = 0;
    nccl_pending--;
  }
  if (was >= 0 && current != was) cuda_use_device(was);
}

void nccl_flush(void) {
  if (cuda_implicit) return;   /* the legacy stream cannot be used while a capture runs */
  for (GpuComm *c = live; c && nccl_pending > 0; c = c->next)
    if (c->pending) flush(c);
}

/* After c's work is queued on s (outside a group, or at its end; c's device current).
 * The timeout counts from the probe's record. (It once counted from the first collective
 * not seen done, which, in a loop that kept the host a queue ahead of the device, was the
 * first of the loop: it broke the communicator once the loop ran longer than the
 * timeout.) On a stream of the user's the probe follows at once (after the pending ones',
 * so that the newest probe follows every collective): the stream may be gone later (one
 * the embedding program lent). On the legacy stream it waits (NCCL_PROBE_EVERY): an event
 * recorded between two kernels costs the device some 2 us (an H200, 10 us kernels: 11.6
 * us an iteration, 13.6 with a record between), which an 8-byte all_reduce in a loop paid
 * on every call. */
static void mark_queued(GpuComm *c, CUstream s) {
  if (s != NULL || cuda_implicit) {
    if (c->pending) flush(c);
    record(c, s, nccl_entries);
    return;
  }
  if (!c->pending) {
    c->pending = 1;
    c->pending_stamp = nccl_entries;
    nccl_pending++;
  }
  look_by(c->pending_stamp + NCCL_PROBE_EVERY);
}

/* Waits, polled and watched, for probe i of c, on c's device */
static GpuResult wait_probe(GpuComm *c, int i, const char *call) {
  int was = current;
  GpuResult r = cuda_use_device(c->device);
  if (r.code == 0) r = cuda_wait(c->probes[i], NULL, call);
  if (was >= 0 && current != was) {
    GpuResult back = cuda_use_device(was);
    if (r.code == 0) r = back;
  }
  return r;
}

/* Retires c's collectives that are done, waiting for those queued more than `age`
 * entries ago (-1: for all) */
static GpuResult catch_up(GpuComm *c, long long age, const char *call) {
  if (c->broken || !unfinished(c)) return GPU_OK;   /* the newest done: all are */
  while (!c->broken && c->out > 0) {
    int i = c->first;
    if (drv.cuEventQuery(c->probes[i]) == CUDA_ERROR_NOT_READY) {
      if (age >= 0 && nccl_entries - c->stamps[i] <= age) break;
      GpuResult r = wait_probe(c, i, call);
      if (r.code) return r;
    }
    retire(c);
  }
  return GPU_OK;
}

/* See cuda_internal.h. Past the due count: the collectives on the legacy stream queued
 * NCCL_PROBE_EVERY entries ago get their probe; then waits until no collective out was
 * queued more than half of NCCL_AHEAD entries ago (so the host stays that far ahead of
 * the device); settle: probes all, and waits until none is out. Then sets when to look
 * again. A wait that fails returns the failure: the watch broke a communicator, or
 * Ctrl-C. */
GpuResult nccl_throttle(int settle, const char *call) {
  GpuResult r = GPU_OK;
  int out = 0;
  long long due = 0;
  for (GpuComm *c = live; c; c = c->next) {
    if (c->pending && !cuda_implicit && (settle || nccl_entries - c->pending_stamp >= NCCL_PROBE_EVERY))
      flush(c);
    if (r.code == 0) r = catch_up(c, settle ? -1 : NCCL_AHEAD / 2, call);
    if (c->broken) continue;
    if (c->out > 0) {
      long long d = c->stamps[c->first] + NCCL_AHEAD;
      if (!out || d < due) due = d;
      out = 1;
    }
    if (c->pending) {
      long long d = c->pending_stamp + NCCL_PROBE_EVERY;
      if (!out || d < due) due = d;
      out = 1;
    }
  }
  nccl_out = out;
  nccl_due = due;
  return r;
}

/* Each failure of the watch broke a communicator: the rest are waited for still, and a
 * Ctrl-C does not cut the wait short (the call after it would block, unwatched) but is
 * kept for the next wait */
void nccl_throttle_quietly(int settle, const char *call) {
  int interrupted = 0;
  for (;;) {
    GpuResult r = nccl_throttle(settle, call);
    if (r.source != GPU_SRC_HOST) break;
    if (r.code == GPU_ERR_INTERRUPTED) interrupted = 1;
    else if (r.code != GPU_ERR_COMM_FAILED) break;
  }
  if (interrupted) backend_interrupted = 1;
}

GpuResult nccl_coll(GpuComm *c, const GpuCollArgs *a) {
  if (c->broken) {
    snprintf(detail, sizeof detail, "the communicator is broken by an earlier failure");
    return BROKE("comm");
  }
  if (cuda_implicit) return cuda_not_while_capturing("a collective", "ncclAllReduce");
  GpuResult r = cuda_use_device(c->device);
  if (r.code) return r;
  QUEUES("ncclAllReduce", 4);
  CUstream s = cuda_implicit || !a->stream ? cuda_stream_for(a->stream) : a->stream;
  const void *in = (const void *)(uintptr_t)a->send;
  void *out = (void *)(uintptr_t)a->recv;
  int t = nccl_types[a->type], op = nccl_ops[a->op];
  switch (a->kind) {
    case GPU_COLL_ALL_REDUCE: NTRY(nc.ncclAllReduce(in, out, a->count, t, op, c->comm, s), c->comm); break;
    case GPU_COLL_ALL_GATHER: NTRY(nc.ncclAllGather(in, out, a->count, t, c->comm, s), c->comm); break;
    case GPU_COLL_REDUCE_SCATTER: NTRY(nc.ncclReduceScatter(in, out, a->count, t, op, c->comm, s), c->comm); break;
    case GPU_COLL_BROADCAST: NTRY(nc.ncclBroadcast(in, out, a->count, t, a->peer, c->comm, s), c->comm); break;
    case GPU_COLL_REDUCE: NTRY(nc.ncclReduce(in, out, a->count, t, op, a->peer, c->comm, s), c->comm); break;
    case GPU_COLL_SEND: NTRY(nc.ncclSend(in, a->count, t, a->peer, c->comm, s), c->comm); break;
    case GPU_COLL_RECV: NTRY(nc.ncclRecv(out, a->count, t, a->peer, c->comm, s), c->comm); break;
    default: return GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "nccl collective");
  }
  cuda_queued(s);   /* freed blocks of c->device wait for s's work before they are reused */
  if (depth == 0) { mark_queued(c, s); return GPU_OK; }
  for (int i = 0; i < ntouched; i++)
    if (touched[i].c == c) { touched[i].s = s; return GPU_OK; }
  if (ntouched < (int)(sizeof touched / sizeof touched[0])) touched[ntouched++] = (Touched){c, s};
  return GPU_OK;
}

GpuResult nccl_group_start(void) {
  GpuResult r = nccl_load();
  if (r.code) return r;
  if (depth++ == 0) ntouched = 0;
  NTRY(nc.ncclGroupStart(), NULL);
  return GPU_OK;
}

GpuResult nccl_group_end(void) {
  if (depth == 0) return GPU_FAIL(CUDA_ERROR_ILLEGAL_STATE, GPU_SRC_CUDA, "ncclGroupEnd()");
  ncclResult_t e = nc.ncclGroupEnd();
  if (--depth == 0) {           /* the group's kernels are queued now */
    int was = current;
    for (int i = 0; i < ntouched; i++)
      if (!touched[i].c->broken && cuda_use_device(touched[i].c->device).code == 0)
        mark_queued(touched[i].c, touched[i].s);
    for (int i = 0; i < ntouched; i++)
      if (touched[i].c->broken && touched[i].c->comm) {   /* broke inside the group */
        nc.ncclCommAbort(touched[i].c->comm);
        touched[i].c->comm = NULL;
      }
    ntouched = 0;
    if (was >= 0) cuda_use_device(was);
  }
  if (e != ncclSuccess && e != ncclInProgress) return nccl_failed(e, NULL, "ncclGroupEnd()");
  return GPU_OK;
}

static void unlink_comm(GpuComm *c) {
  if (c->pending) nccl_pending--;
  for (GpuComm **p = &live; *p; p = &(*p)->next)
    if (*p == c) { *p = c->next; break; }
  for (int i = 0; i < ntouched; i++)
    if (touched[i].c == c) touched[i] = touched[--ntouched];
  for (int i = 0; i < NPROBES; i++) drv.cuEventDestroy(c->probes[i]);
  free(c);
}

GpuResult nccl_comm_abort(GpuComm *c) {
  break_comm(c);
  unlink_comm(c);
  return GPU_OK;
}

/* Without blocking: ncclCommDestroy may wait for unfinished work and for peers that may
 * never come; ncclCommAbort frees the same without waiting (and ends unfinished work) */
GpuResult nccl_comm_destroy(GpuComm *c) {
  if (!c->broken && cuda_use_device(c->device).code == 0) nc.ncclCommAbort(c->comm);
  c->comm = NULL;
  unlink_comm(c);
  return GPU_OK;
}
