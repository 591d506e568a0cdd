/* coll.c: the CPU backend's collectives, standing in for NCCL. Within one process the
 * ranks are devices of this process sharing a clique: their calls are gathered until the
 * group ends, matched rank against rank (k-th collective with k-th, each send with its
 * recv), and computed in host memory, where the CPU's device memory lies. Between
 * processes each rank posts MPI's nonblocking operation (host/mpi.c) after checking that
 * every rank makes the same call, and waits for it while watching for peers that died,
 * for the timeout and for Ctrl-C: a failure breaks the communicator, never hangs. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cpu_internal.h"
#include "mpi.h"
#include "util.h"

typedef struct Clique { int n, refs, ncalls, cap; GpuCollArgs *calls; int *rank_of; } Clique;
struct GpuComm {
  Clique *clique;               /* one process: the ranks' shared state; NULL over MPI */
  void *mpi;                    /* over MPI: the communicator's own (mpi_comm_dup) */
  unsigned held, held_p2p;      /* the last pass of wait_ops where a collective of it was
                                 * not done (a send or recv: had not posted its data) */
  int rank, nranks, device, broken;
  double timeout;
};

static const char *const coll_name[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "send", "recv", "barrier"};
static int depth;               /* nesting of group_start */
static Clique **open_cliques;   /* cliques with calls waiting for the group's end */
static int nopen;

#define COMM_FAIL(call) ((GpuResult){GPU_ERR_COMM_FAILED, GPU_SRC_HOST, call, NULL, NULL})
#define MISMATCH(call) ((GpuResult){GPU_ERR_COMM_MISMATCH, GPU_SRC_HOST, call, NULL, NULL})
static const char *const op_name[] = {"sum", "prod", "min", "max", "avg"};
#define NOMEM GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "malloc (CPU backend)")

GpuResult cpu_comm_id(GpuCommId *id) {   /* unused: each communicator duplicates MPI's world */
  memset(id, 0, sizeof *id);
  return GPU_OK;
}

GpuResult cpu_comm_init_all(GpuComm **comms, int n, const int *devices) {
  double timeout;
  GpuResult r = comm_timeout(&timeout);
  if (r.code) return r;
  Clique *q = calloc(1, sizeof *q);
  if (q == NULL) return NOMEM;
  q->n = q->refs = n;
  for (int i = 0; i < n; i++) {
    comms[i] = calloc(1, sizeof **comms);
    if (comms[i] == NULL) {
      while (i-- > 0) free(comms[i]);
      free(q);
      return NOMEM;
    }
    *comms[i] = (GpuComm){q, NULL, 0, 0, i, n, devices[i], 0, timeout};
  }
  return GPU_OK;
}

GpuResult cpu_comm_init_rank(GpuComm **comm, int nranks, int rank, const GpuCommId *id, int device) {
  (void)id;
  double timeout;
  void *own = NULL;
  GpuResult r = comm_timeout(&timeout);
  if (r.code == 0) r = mpi_start();
  if (r.code == 0) r = mpi_comm_dup(&own);   /* every rank makes it, as ncclCommInitRank */
  if (r.code) return r;
  *comm = calloc(1, sizeof **comm);
  if (*comm == NULL) {
    mpi_comm_free(own);
    return NOMEM;
  }
  **comm = (GpuComm){NULL, own, 0, 0, rank, nranks, device, 0, timeout};
  return GPU_OK;
}

/* ---- in host memory, within one process ---- */

#define PTR(p) ((void *)(uintptr_t)(p))

/* The reduction of n elements at offset `at` (elements) of every rank's send into tmp (an
 * average's scaled ones through scratch, n more); -1 when there is no memory for it */
static int reduce_all(void *tmp, GpuCollArgs *const *c, int nr, size_t at, size_t n) {
  size_t es = gpu_ct_size(c[0]->type);
  int avg = c[0]->op == GPU_RED_AVG;
  char *scratch = avg ? malloc(n * es) : NULL;
  if (avg && scratch == NULL) return -1;
  for (int k = 0; k < nr; k++) {
    const char *src = (char *)PTR(c[k]->send) + at * es;
    if (avg) host_premul(k ? scratch : tmp, src, n, c[0]->type, nr);
    if (k == 0 && !avg) memcpy(tmp, src, n * es);
    if (k > 0) host_combine(tmp, avg ? scratch : src, n, c[0]->type, avg ? GPU_RED_SUM : c[0]->op);
  }
  free(scratch);
  return 0;
}

/* One collective, c[k] being rank k's call (checked alike). Empty arrays move nothing:
 * their memory may be no pointer at all, which memcpy may not be given even for 0 bytes. */
static GpuResult run_collective(GpuCollArgs *const *c, int nr) {
  const GpuCollArgs *a = c[0];
  size_t es = gpu_ct_size(a->type), n = a->count, total = a->kind == GPU_COLL_REDUCE_SCATTER ? n * (size_t)nr : n;
  if (n == 0) return GPU_OK;
  char *tmp = malloc(total * es);
  if (tmp == NULL) return NOMEM;
  switch (a->kind) {
    case GPU_COLL_ALL_REDUCE:
    case GPU_COLL_REDUCE:
      if (reduce_all(tmp, c, nr, 0, n)) goto nomem;
      for (int k = 0; k < nr; k++)
        if (a->kind == GPU_COLL_ALL_REDUCE || k == a->peer) memcpy(PTR(c[k]->recv), tmp, n * es);
      break;
    case GPU_COLL_REDUCE_SCATTER:
      for (int k = 0; k < nr; k++)
        if (reduce_all(tmp + (size_t)k * n * es, c, nr, (size_t)k * n, n)) goto nomem;
      for (int k = 0; k < nr; k++) memcpy(PTR(c[k]->recv), tmp + (size_t)k * n * es, n * es);
      break;
    case GPU_COLL_BROADCAST:
      memcpy(tmp, PTR(c[a->peer]->send), n * es);
      for (int k = 0; k < nr; k++) memcpy(PTR(c[k]->recv), tmp, n * es);
      break;
    case GPU_COLL_ALL_GATHER:
      for (int k = 0; k < nr; k++)
        for (int j = 0; j < nr; j++)
          memmove((char *)PTR(c[k]->recv) + (size_t)j * n * es, PTR(c[j]->send), n * es);
      break;
    default: break;
  }
  free(tmp);
  return GPU_OK;
nomem:
  free(tmp);
  return NOMEM;
}

static int same_call(const GpuCollArgs *a, const GpuCollArgs *b) {
  return a->kind == b->kind && a->count == b->count && a->type == b->type &&
         a->op == b->op && a->peer == b->peer && strcmp(a->dtype, b->dtype) == 0;
}

/* The clique's calls of one group: collectives k-th against k-th, sends against recvs.
 * rank_of[i] is the rank that made calls[i]. */
static GpuResult run_clique(Clique *q) {
  GpuCollArgs *c[GPU_MAX_DEVICES];
  int next[GPU_MAX_DEVICES] = {0};
  GpuResult r = GPU_OK;
  for (;;) {                     /* the collectives, in each rank's order */
    int found = 0;
    for (int k = 0; k < q->n; k++) {
      c[k] = NULL;
      for (int i = next[k]; i < q->ncalls && !c[k]; i++)
        if (q->rank_of[i] == k && q->calls[i].kind < GPU_COLL_SEND) { c[k] = &q->calls[i]; next[k] = i + 1; }
      found += c[k] != NULL;
    }
    if (found == 0) break;
    for (int k = 0; k < q->n && r.code == 0; k++)
      if (!c[k] || !same_call(c[k], c[0]))
        r = cpu_fail(MISMATCH("group end"), "rank %d's %s does not match rank %d's %s", 0,
                     coll_name[c[0] ? c[0]->kind : 0], k, c[k] ? coll_name[c[k]->kind] : "nothing");
    if (r.code == 0) r = run_collective(c, q->n);
    if (r.code) break;
  }
  for (int i = 0; i < q->ncalls && r.code == 0; i++) {   /* each send with its recv */
    GpuCollArgs *s = &q->calls[i];
    if (s->kind != GPU_COLL_SEND) continue;
    int from = q->rank_of[i], match = -1;
    for (int j = 0; j < q->ncalls && match < 0; j++)
      if (q->calls[j].kind == GPU_COLL_RECV && q->rank_of[j] == s->peer && q->calls[j].peer == from)
        match = j;
    if (match < 0 || q->calls[match].count != s->count || strcmp(q->calls[match].dtype, s->dtype) != 0)
      r = cpu_fail(MISMATCH("group end"), "rank %d's send to rank %d has no matching recv", from, s->peer);
    else {
      if (s->count > 0)          /* an empty array may have no memory (NULL) */
        memmove(PTR(q->calls[match].recv), PTR(s->send), s->count * gpu_ct_size(s->type));
      q->calls[match].kind = -1;   /* taken */
    }
  }
  for (int i = 0; i < q->ncalls && r.code == 0; i++)
    if (q->calls[i].kind == GPU_COLL_RECV)
      r = cpu_fail(MISMATCH("group end"), "rank %d's recv from rank %d has no matching send",
                   q->rank_of[i], q->calls[i].peer);
  q->ncalls = 0;
  return r;
}

static GpuResult gather_call(GpuComm *c, const GpuCollArgs *a) {
  Clique *q = c->clique;
  if (q->ncalls == q->cap) {
    int cap = q->cap ? 2 * q->cap : 16;
    GpuCollArgs *calls = realloc(q->calls, sizeof *calls * (size_t)cap);
    if (calls) q->calls = calls;
    int *ranks = realloc(q->rank_of, sizeof *ranks * (size_t)cap);
    if (ranks) q->rank_of = ranks;
    if (!calls || !ranks) return NOMEM;
    q->cap = cap;
  }
  if (q->ncalls == 0) {          /* the group's end runs it */
    Clique **o = realloc(open_cliques, sizeof *o * (size_t)(nopen + 1));
    if (o == NULL) return NOMEM;
    open_cliques = o;
    open_cliques[nopen++] = q;
  }
  q->calls[q->ncalls] = *a;
  q->rank_of[q->ncalls++] = c->rank;
  return GPU_OK;
}

/* ---- over MPI, between processes ---- */

/* A call between processes goes in two steps, each nonblocking: the ranks' headers (what
 * each calls: kind, count, type, op, root or peer) are exchanged first, and the data moves
 * only once they agree, so that a mismatch is an error on every rank it concerns, not a
 * hang, a truncation or bits read as another dtype. A collective's headers are gathered
 * from every rank; a send's and its recv's are swapped between the two (GPU_TAG_SENT,
 * GPU_TAG_WANTED: the k-th send's pairs with the peer's k-th recv's, MPI keeping their
 * order). A group's calls move on together, so their communicators' calls may come in any
 * order (as NCCL's groups allow): each communicator's are kept apart by its own MPI
 * communicator. */
enum { UNPOSTED, HEADERS, DATA, SETTLED };
#define HEADER 7                /* longs: kind, elements, type, op, root or peer, and the
                                 * dtype's name (16 bytes) */
typedef struct Op {
  GpuComm *comm;
  GpuCollArgs args;
  int step;
  void *scaled;                 /* an average's send, each value times 1/n (premul) */
  MpiRequest req[2];
  long mine[HEADER];
  long theirs[];                /* every rank's header (a send's or recv's: its peer's) */
} Op;
static Op **posted;             /* the calls of the open group, moved on at its end */
static int nposted, capposted;

static GpuResult finish(Op *op) { free(op->scaled); op->scaled = NULL; return GPU_OK; }

static GpuResult post_data(Op *op) {
  const GpuCollArgs *a = &op->args;
  op->step = DATA;
  if (a->kind == GPU_COLL_BROADCAST && op->comm->rank == a->peer && a->send != a->recv && a->count > 0)
    memmove(PTR(a->recv), PTR(a->send), a->count * gpu_ct_size(a->type));
  if (a->op == GPU_RED_AVG && a->count > 0) {   /* scaled first, then summed, as NCCL's */
    size_t in = a->kind == GPU_COLL_REDUCE_SCATTER ? a->count * (size_t)op->comm->nranks : a->count;
    if ((op->scaled = malloc(in * gpu_ct_size(a->type))) == NULL) return NOMEM;
    host_premul(op->scaled, PTR(a->send), in, a->type, op->comm->nranks);
  }
  return mpi_post(op->comm->mpi, a, op->scaled ? op->scaled : PTR(a->send), PTR(a->recv), &op->req[0]);
}

static GpuResult post_headers(Op *op) {
  GpuComm *c = op->comm;
  const GpuCollArgs *a = &op->args;
  if (a->kind < GPU_COLL_SEND)
    return mpi_post_allgather(c->mpi, op->mine, op->theirs, sizeof op->mine, &op->req[0]);
  int sends = a->kind == GPU_COLL_SEND;
  GpuResult r = mpi_post_bytes(c->mpi, op->mine, sizeof op->mine, a->peer,
                               sends ? GPU_TAG_SENT : GPU_TAG_WANTED, 1, &op->req[0]);
  if (r.code == 0)
    r = mpi_post_bytes(c->mpi, op->theirs, sizeof op->mine, a->peer,
                       sends ? GPU_TAG_WANTED : GPU_TAG_SENT, 0, &op->req[1]);
  return r;
}

/* The first rank whose header differs from this one's (a send's peer: its recv's elements
 * or dtype), or -1 */
static int differing(const Op *op) {
  if (op->args.kind >= GPU_COLL_SEND)
    return op->theirs[1] != op->mine[1] || memcmp(op->theirs + 5, op->mine + 5, 16) ? op->args.peer : -1;
  for (int k = 0; k < op->comm->nranks; k++)
    if (memcmp(op->theirs + HEADER * k, op->mine, sizeof op->mine) != 0) return k;
  return -1;
}

/* "2 float32 elements": of a header h */
static const char *elements(char *buf, size_t n, const long *h) {
  snprintf(buf, n, "%ld %.15s elements", h[1], (const char *)(h + 5));
  return buf;
}

/* The same words on both ranks, the one-process path's with the dtypes */
static GpuResult p2p_mismatch(const Op *op) {
  int sends = op->args.kind == GPU_COLL_SEND, me = op->comm->rank, peer = op->args.peer;
  const long *s = sends ? op->mine : op->theirs, *w = sends ? op->theirs : op->mine;
  char sb[48], wb[48];
  return cpu_fail(MISMATCH(coll_name[op->args.kind]), "the ranks' calls do not match: rank %d "
                  "sends %s to rank %d, which receives %s: nothing was sent", sends ? me : peer,
                  elements(sb, sizeof sb, s), sends ? peer : me,
                  elements(wb, sizeof wb, w));
}

/* "all_reduce of 3 float32 elements (op sum)": a header, with what its kind takes */
static const char *call_text(char *buf, size_t n, const long *h) {
  int kind = h[0] >= 0 && h[0] < 8 ? (int)h[0] : 0, op = h[3] >= 0 && h[3] < 5 ? (int)h[3] : 0;
  int red = kind == GPU_COLL_ALL_REDUCE || kind == GPU_COLL_REDUCE_SCATTER || kind == GPU_COLL_REDUCE;
  char e[48], r[32] = "";
  if (kind == GPU_COLL_BROADCAST || kind == GPU_COLL_REDUCE) snprintf(r, sizeof r, "%sroot %ld)", red ? ", " : " (", h[4]);
  snprintf(buf, n, "%s of %s%s%s%s", coll_name[kind], elements(e, sizeof e, h), red ? " (op " : "", red ? op_name[op] : "", r[0] ? r : red ? ")" : "");
  return buf;
}

static GpuResult mismatch(const Op *op, int k) {
  char mb[128], ob[128];
  if (op->mine[0] == GPU_COLL_SEND || op->mine[0] == GPU_COLL_RECV) return p2p_mismatch(op);
  return cpu_fail(MISMATCH(coll_name[op->mine[0]]), "the ranks' calls do not match: rank %d calls %s, rank %d %s", op->comm->rank, call_text(mb, sizeof mb, op->mine), k, call_text(ob, sizeof ob, op->theirs + HEADER * k));
}

/* Moves op on as far as it goes without waiting; *bad: the rank that disagrees, if any. A
 * grouped collective's header and data wait for the collectives before it on its
 * communicator to be done (first), a send's or recv's data for the sends and recvs before
 * it to be posted: MPI's collectives go in the calls' order, grouped or not, each reads
 * what the one before wrote, and a collective never waits for a send whose recv is in the
 * peer's later group. */
static GpuResult advance(Op *op, int first, int *bad) {
  if (op->step == UNPOSTED && !first) return GPU_OK;
  GpuResult posting = op->step == UNPOSTED ? post_headers(op) : GPU_OK;
  if (posting.code) return posting;
  if (op->step == UNPOSTED) op->step = HEADERS;
  int done = 1;
  for (int i = 0; i < 2; i++) {
    int d;
    GpuResult r = mpi_test(&op->req[i], &d);
    if (r.code) return r;
    done &= d;
  }
  if (!done || (op->step == HEADERS && !first)) return GPU_OK;
  if (op->step == DATA) {
    op->step = SETTLED;
    return finish(op);
  }
  if ((*bad = differing(op)) >= 0) {
    op->step = SETTLED;          /* on every rank: each has every header */
    return GPU_OK;
  }
  return post_data(op);
}

/* A failure that leaves ops unfinished: the communicator of each one not settled is
 * broken (its ranks are out of step). Those are left to MPI, which may still write into
 * them; the rest are freed. */
static GpuResult abandon(Op **ops, int n, GpuResult r) {
  for (int i = 0; i < n; i++) {
    if (ops[i]->step == SETTLED) free(ops[i]);
    else ops[i]->comm->broken = 1;
  }
  mpi_skip_finalize();
  return r;
}

/* Between looks at the calls: a peer gone, Ctrl-C or the timeout (of op, the first call
 * not settled) is a failure; else a nap, longer as the wait goes on */
static GpuResult watch(const Op *op, double t0) {
  const char *what = coll_name[op->args.kind];
  int rank = op->comm->rank, gone = mpi_peer_gone();
  if (gone >= 0 && mpi_gone_alive() && op->args.kind >= GPU_COLL_SEND && op->args.peer != gone) gone = -1;
  if (gone >= 0)
    return cpu_fail(COMM_FAIL("MPI_Test"), "%s: rank %d has ended (%s) while rank %d waited "
                    "for it; the communicator is broken", what, gone, mpi_gone_how(), rank);
  if (backend_take_interrupt())   /* GPUHOST_INTERRUPTED, as any wait's Ctrl-C */
    return cpu_fail((GpuResult){GPU_ERR_INTERRUPTED, GPU_SRC_HOST, "MPI_Test", NULL, NULL}, "%s: interrupted "
                    "(Ctrl-C) while rank %d waited; the ranks are out of step and the communicator is "
                    "broken", what, rank);
  double waited = mpi_now() - t0;
  if (waited > op->comm->timeout)
    return cpu_fail(COMM_FAIL("MPI_Test"), "%s: not finished after %.0f s "
                    "(GPUHOST_COMM_TIMEOUT) on rank %d: a rank is stuck elsewhere, has died on "
                    "another host, or calls another collective; the communicator is broken",
                    what, op->comm->timeout, rank);
  if (waited < 2e-3) sched_yield();
  else nanosleep(&(struct timespec){0, waited < 0.1 ? 50000 : 1000000}, NULL);
  return GPU_OK;
}

/* Waits for ops[0..n-1] (consumed), moving each on. A call whose ranks disagree settles
 * with nothing moved and is raised once the rest are done (its communicator goes on). */
static GpuResult wait_ops(Op **ops, int n) {
  static unsigned pass;
  double t0 = mpi_now();
  GpuResult r = GPU_OK;
  for (;;) {
    const Op *waiting = NULL;
    pass++;
    for (int i = 0; i < n; i++) {
      GpuComm *c = ops[i]->comm;
      int bad = -1;
      unsigned *held = ops[i]->args.kind < GPU_COLL_SEND ? &c->held : &c->held_p2p;
      GpuResult q = ops[i]->step == SETTLED ? GPU_OK : advance(ops[i], *held != pass, &bad);
      if (q.code) return abandon(ops, n, q);
      if (bad >= 0 && r.code == 0) r = mismatch(ops[i], bad);
      /* the calls of its kind after it wait: a collective's till done, p2p's till posted */
      if (ops[i]->step <= HEADERS || (ops[i]->args.kind < GPU_COLL_SEND && ops[i]->step != SETTLED)) *held = pass;
      if (!waiting && ops[i]->step != SETTLED) waiting = ops[i];
    }
    if (!waiting) break;
    GpuResult w = watch(waiting, t0);
    if (w.code) return abandon(ops, n, w);
  }
  for (int i = 0; i < n; i++) free(ops[i]);
  return r;
}

static GpuResult mpi_coll(GpuComm *c, const GpuCollArgs *a) {
  if (depth > 0 && nposted == capposted) {
    int cap = capposted ? 2 * capposted : 16;
    Op **p = realloc(posted, sizeof *p * (size_t)cap);
    if (p == NULL) return NOMEM;
    posted = p;
    capposted = cap;
  }
  Op *op = calloc(1, sizeof *op + sizeof op->mine * (size_t)c->nranks);
  if (op == NULL) return NOMEM;
  op->comm = c;
  op->args = *a;
  long mine[HEADER] = {a->barrier ? 7 : a->kind, (long)(a->count * gpu_ct_size(a->type) / a->dtype_size),
                       a->type, a->op, a->peer};   /* 7: barrier */
  strncpy((char *)(mine + 5), a->dtype, 2 * sizeof mine[0] - 1);
  memcpy(op->mine, mine, sizeof mine);
  if (depth > 0 && a->kind < GPU_COLL_SEND) {   /* its header waits for the calls before it */
    posted[nposted++] = op;
    return GPU_OK;
  }
  GpuResult r = post_headers(op);   /* a send's or recv's at once: a ring of them pairs up */
  if (r.code) {                  /* op is left to MPI: a request may be out */
    c->broken = 1;
    mpi_skip_finalize();
    return r;
  }
  op->step = HEADERS;
  if (depth > 0) {
    posted[nposted++] = op;
    return GPU_OK;
  }
  return wait_ops(&op, 1);
}

/* ---- the table's members ---- */

GpuResult cpu_coll(GpuComm *c, const GpuCollArgs *a) {
  if (c->broken) return cpu_fail(COMM_FAIL(coll_name[a->kind]), "the communicator is broken by an earlier failure");
  if (c->clique == NULL) return mpi_coll(c, a);
  GpuResult r = gather_call(c, a);
  if (r.code || depth > 0) return r;
  nopen = 0;
  return run_clique(c->clique);
}

GpuResult cpu_group_start(void) {
  depth++;
  return GPU_OK;
}

GpuResult cpu_group_end(void) {
  if (depth == 0) return GPU_FAIL(CUDA_ERROR_ILLEGAL_STATE, GPU_SRC_CUDA, "group end (CPU backend)");
  if (--depth > 0) return GPU_OK;
  GpuResult r = GPU_OK;
  for (int i = 0; i < nopen; i++) {
    GpuResult q = run_clique(open_cliques[i]);
    if (r.code == 0) r = q;
  }
  nopen = 0;
  if (nposted > 0) {
    int n = nposted;
    nposted = 0;
    GpuResult w = wait_ops(posted, n);
    if (r.code == 0) r = w;
  }
  return r;
}

GpuResult cpu_comm_check(GpuComm *c) {
  if (c->broken) return cpu_fail(COMM_FAIL("comm"), "the communicator is broken by an earlier failure");
  int gone = c->clique ? -1 : mpi_peer_gone();
  if (gone < 0 || mpi_gone_alive()) return GPU_OK;   /* a goodbye: the waits that need it see it */
  c->broken = 1;
  mpi_skip_finalize();
  return cpu_fail(COMM_FAIL("comm"), "rank %d has ended (%s); rank %d's communicator is "
                  "broken", gone, mpi_gone_how(), c->rank);
}

GpuResult cpu_comm_abort(GpuComm *c) {
  if (c->clique == NULL) mpi_skip_finalize();   /* a peer may still be waiting for us */
  c->broken = 1;
  return cpu_comm_destroy(c);
}

/* A broken or aborted communicator's MPI communicator is kept, not freed: a peer that has
 * not aborted may still send on it, and a context id freed here could be given to a later
 * communicator, which would take those messages for its own; calls a failure left
 * unfinished may also still be on it. */
GpuResult cpu_comm_destroy(GpuComm *c) {
  Clique *q = c->clique;
  if (c->mpi && !c->broken) mpi_comm_free(c->mpi);
  if (q && --q->refs == 0) {         /* the last rank of the process frees what they share */
    free(q->calls);
    free(q->rank_of);
    free(q);
  }
  free(c);
  return GPU_OK;
}
