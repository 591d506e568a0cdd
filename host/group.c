/* group.c: gpu.nccl.group's queue (comm.c opens and ends it, collective.c fills it). The
 * calls of a communicator whose ranks are all in this process wait here for the outermost
 * group's end; there its sends are paired with its recvs first (the k-th send from one
 * rank to another with the k-th recv there, as NCCL pairs them: one without its partner,
 * or of another size or dtype, is an error, not a hang), then all are issued at once. When
 * the group's function raised, none is. A communicator across processes gets its calls at
 * once: its peers may be waiting for them. A group (an inner one too) whose function raised
 * takes its queued calls away with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

#define MAX_P2P 256                    /* sends and recvs in one group */
typedef struct Pending { LuaComm *c; int local; GpuCollArgs a; } Pending;
static Pending *pending;
static int npending, cappending, depth;
static int opened_at[64];              /* npending when each open group began (depth - 1) */
static unsigned group_serial;          /* counts the outermost groups opened */

void coll_group_begin(lua_State *L) {
  if (depth == (int)(sizeof opened_at / sizeof opened_at[0]))
    luaL_error(L, "gpu.nccl.group: groups nested more than %d deep", depth);
  if (depth == 0) {
    npending = 0;
    group_serial++;
  }
  opened_at[depth++] = npending;
  GpuResult r = backend_get()->group_start();
  if (r.code) {   /* no NCCL, say: nothing was opened */
    depth--;
    GPU_CHECK(L, r);
  }
}

int coll_queued(const LuaComm *c) {
  return depth > 0 && c->group == group_serial;
}

unsigned coll_open_group(void) { return depth > 0 ? group_serial : 0; }

GpuResult coll_defer(LuaComm *c, const int *local, const GpuCollArgs *a, int n) {
  int p2p = 0;
  for (int i = 0; i < npending; i++) p2p += pending[i].a.kind >= GPU_COLL_SEND;
  if (n > 0 && a[0].kind >= GPU_COLL_SEND && p2p + n > MAX_P2P)
    return (GpuResult){GPU_ERR_COMM_FAILED, GPU_SRC_HOST, "gpu.nccl.group", "more than 256 sends and recvs in one group", NULL};
  if (npending + n > cappending) {
    int cap = cappending ? 2 * cappending : 64;
    while (cap < npending + n) cap *= 2;
    Pending *more = realloc(pending, sizeof *more * (size_t)cap);
    if (more == NULL) return GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "malloc (gpu.nccl.group)");
    pending = more;
    cappending = cap;
  }
  for (int i = 0; i < n; i++) pending[npending++] = (Pending){c, local[i], a[i]};
  return GPU_OK;
}


/* The elements of the user's dtype a call moves */
static lua_Integer elements(const Pending *p) {
  return (lua_Integer)(p->a.count * gpu_ct_size(p->a.type) / p->a.dtype_size);
}

/* Whether a recv's buffer overlaps a send's of its group on its device (read while written) */
static int overlapping(const Pending *r, const Pending *s) {
  if (r->c->devices[r->local] != s->c->devices[s->local]) return 0;
  uintptr_t a = (uintptr_t)r->a.recv, b = (uintptr_t)s->a.send;
  return a < b + s->a.count * gpu_ct_size(s->a.type) && b < a + r->a.count * gpu_ct_size(r->a.type);
}

/* The n-th (from 0) pending call of kind on c from local rank `from` with peer `to`, or -1 */
static int nth(const LuaComm *c, int kind, int from, int to, int n) {
  for (int j = 0; j < npending; j++) {
    const Pending *q = &pending[j];
    if (q->c == c && q->a.kind == kind && q->local == from && q->a.peer == to && n-- == 0) return j;
  }
  return -1;
}

/* [-0, +0, e] Each pending send with its recv, the k-th with the k-th (ranks are local: a
 * queued communicator is all in this process); NULL, or why not */
static const char *pair_up(lua_State *L) {
  for (int i = 0; i < npending; i++) {
    const Pending *p = &pending[i];
    int sends = p->a.kind == GPU_COLL_SEND, k = 0;
    if (p->a.kind < GPU_COLL_SEND) continue;
    for (int j = 0; j < i; j++)   /* p is the k-th of its kind between its two ranks */
      k += pending[j].c == p->c && pending[j].a.kind == p->a.kind && pending[j].local == p->local && pending[j].a.peer == p->a.peer;
    int j = nth(p->c, sends ? GPU_COLL_RECV : GPU_COLL_SEND, p->a.peer, p->local, k);
    if (j < 0)
      return lua_pushfstring(L, "rank %d's %s rank %d has no %s in the same group (it would wait "
                             "forever)", p->local, sends ? "send to" : "recv from", p->a.peer, sends ? "recv" : "send");
    const Pending *q = &pending[j];
    if (sends && (elements(p) != elements(q) || strcmp(p->a.dtype, q->a.dtype) != 0))
      return lua_pushfstring(L, "rank %d sends %I %s elements to rank %d, which receives %I %s elements",
                             p->local, elements(p), p->a.dtype, q->local, elements(q), q->a.dtype);
    for (int s = 0; !sends && s < npending; s++)
      if (pending[s].a.kind == GPU_COLL_SEND && overlapping(p, &pending[s]))
        return lua_pushfstring(L, "rank %d receives into memory that rank %d sends in the same group "
                               "(the group's calls run at once): receive into another array", p->local,
                               pending[s].local);
  }
  return NULL;
}

void coll_group_finish(lua_State *L, int failed) {
  const GpuBackend *be = backend_get();
  const char *why = NULL;
  GpuResult r = GPU_OK;
  LuaComm *c = NULL;
  int was = be->current_device();
  if (failed) npending = opened_at[depth - 1];   /* an inner group's calls go with it, unissued */
  if (--depth == 0 && !failed && npending > 0) {
    why = pair_up(L);
    for (int i = 0; !why && i < npending; i++)
      if (!pending[i].c->alive || pending[i].c->broken)
        why = "a communicator broke inside the group: none of the group's calls was issued";
    for (int i = 0; !why && i < npending && r.code == 0; i++) {
      c = pending[i].c;
      if ((r = be->use_device(c->devices[pending[i].local])).code == 0)
        r = be->coll(c->h[pending[i].local], &pending[i].a);
    }
  }
  char detail[600];   /* the group's end may write over the backend's */
  if (r.code && r.detail) r.detail = (snprintf(detail, sizeof detail, "%s", r.detail), detail);
  GpuResult e = be->group_end();
  if (depth == 0) {
    npending = 0;
    group_let_go(L);
  }
  be->use_device(was);
  if (failed) return;
  if (why) luaL_error(L, "gpu.nccl: %s", why);
  if (r.code) coll_raise_failure(L, c, r, was);
  GPU_CHECK(L, e);
}
