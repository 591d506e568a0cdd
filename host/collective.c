/* collective.c: the collectives of a communicator (comm.c): comm:all_reduce, all_gather,
 * reduce_scatter, broadcast, reduce, send, recv, barrier. Each reads its buffers (a device
 * array, or for a communicator over several devices of this process a table of them, one
 * per device in order), checks what can be checked here (devices, sizes and dtypes alike
 * across this process's ranks, C order), and issues one backend call per rank, grouped
 * when there are several. The calls of a communicator all in this process wait for their
 * group's end (group.c), where sends are paired with recvs first. */
#include <stdio.h>
#include <string.h>
#include "peer.h"

static const char *const coll_names[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "send", "recv"};
static const char *const op_names[] = {"sum", "prod", "min", "max", "avg", NULL};
/* The options each takes, in coll_names' order: one it does not take is refused */
static const char *const coll_options[] = {"op out stream", "out stream", "op out stream", "root out stream", "op root out stream", "stream", "stream"};

typedef struct Call {
  LuaComm *c;
  int kind, op, root, barrier;   /* barrier: comm:barrier()'s all_reduce */
  int opts;                      /* the options table's index, or 0 */
  GpuArray *x[GPU_MAX_DEVICES], *out[GPU_MAX_DEVICES];
  int peer[GPU_MAX_DEVICES];
  CUstream stream[GPU_MAX_DEVICES];
  const DtypeInfo *dtype[GPU_MAX_DEVICES];   /* x[i]'s */
} Call;

/* The collective type of a dtype, or -1 (NCCL has no int16, uint16 or bool) */
static int coll_type(GpuDtype dt) {
  switch (dt) {
    case DT_INT8: return GPU_CT_INT8;
    case DT_UINT8: return GPU_CT_UINT8;
    case DT_INT32: return GPU_CT_INT32;
    case DT_UINT32: return GPU_CT_UINT32;
    case DT_INT64: return GPU_CT_INT64;
    case DT_UINT64: return GPU_CT_UINT64;
    case DT_FLOAT32: return GPU_CT_FLOAT32;
    case DT_FLOAT64: return GPU_CT_FLOAT64;
    case DT_FLOAT16: return GPU_CT_FLOAT16;
    default: return -1;
  }
}

/* [-0, +0, v] A table of one entry a device of this process (arrays, streams, peers) at idx,
 * of comm:<name>'s: a key besides 1 to n is an error ({x1, x2, op = "max"} dropped its op) */
static void per_device(lua_State *L, int idx, int n, const char *name, const char *what) {
  const char *bad = table_not_list(L, idx, n);
  if (bad) luaL_error(L, "comm:%s: %s has %s", name, what, bad);
}

/* [-0, +0, v] Local rank i's array from the argument at idx: an array (one rank), or entry
 * i + 1 of a table (false: none, where allowed) */
static GpuArray *buffer(lua_State *L, int idx, const Call *k, int i, const char *what, int none_ok) {
  const LuaComm *c = k->c;
  const char *name = coll_names[k->kind];
  GpuArray *a;
  if (lua_istable(L, idx) && !array_test(L, idx)) {
    if (luaL_len(L, idx) != c->n && !none_ok)
      luaL_error(L, "comm:%s: %s has %d entries for %d device%s of this process", name, what,
                 (int)luaL_len(L, idx), c->n, c->n == 1 ? "" : "s");
    if (i == 0) per_device(L, idx, c->n, name, what);
    lua_geti(L, idx, i + 1);
    int absent = lua_isnil(L, -1) || (lua_isboolean(L, -1) && !lua_toboolean(L, -1));
    if (absent && none_ok) { lua_pop(L, 1); return NULL; }
    a = array_test(L, -1);
    if (!a) luaL_error(L, "comm:%s: %s entry %d must be a device array, got %s", name, what, i + 1, luaL_typename(L, -1));
    if (!a->alive) errors_freed(L, lua_pushfstring(L, "comm:%s %s entry %d", name, what, i + 1));
    lua_pop(L, 1);
  } else {
    if (c->n > 1)
      luaL_error(L, "comm:%s: %s must be a table of %d arrays, one per device (%d...)", name,
                 what, c->n, c->devices[0]);
    a = array_test(L, idx);
    if (!a) luaL_error(L, "comm:%s: %s must be a device array, got %s", name, what, luaL_typename(L, idx));
    if (!a->alive) errors_freed(L, lua_pushfstring(L, "comm:%s %s", name, what));
  }
  if (a->device != c->devices[i])
    luaL_error(L, "comm:%s: %s%s is on device %d, and rank %d of the communicator is on device "
               "%d: copy it there with a:to(%d)", name, what, c->n > 1 ? lua_pushfstring(L, " entry %d", i + 1) : "",
               a->device, c->rank + i, c->devices[i], c->devices[i]);
  if (!a->contiguous)   /* (an out's copy would take the results and lose them) */
    luaL_error(L, "comm:%s: %s%s must be C-ordered: %s", name, what, c->n > 1 ? lua_pushfstring(L, " entry %d", i + 1) : "", strcmp(what, "out") == 0 ? "pass a C-ordered array, and copy it into the view after" : "pass a:contiguous()");
  return a;
}

/* [-0, +1, m] The value at idx as a message shows it: a string as one ("1" is no rank) */
static const char *shown(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) return lua_pushfstring(L, "a string (\"%s\")", lua_tostring(L, idx));
  return luaL_tolstring(L, idx, NULL);
}

/* [-0, +0, v] {op =, root =, out =} at k->opts (the streams: read_streams) */
static void read_options(lua_State *L, Call *k) {
  int o = k->opts;
  k->op = GPU_RED_SUM;
  k->root = 0;
  if (!o) return;
  char name[32];
  snprintf(name, sizeof name, "comm:%s", coll_names[k->kind]);
  errors_options(L, o, name, coll_options[k->kind]);
  if (lua_getfield(L, o, "op") != LUA_TNIL) {
    const char *op = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int i = 0;
    while (op && op_names[i] && strcmp(op_names[i], op) != 0) i++;
    if (!op || !op_names[i])
      luaL_error(L, "%s: op must be \"sum\", \"prod\", \"min\", \"max\" or \"avg\", got %s", name,
                 op ? lua_pushfstring(L, "'%s'", op) : luaL_typename(L, -1));
    k->op = i;
  }
  lua_pop(L, 1);
  if (lua_getfield(L, o, "root") != LUA_TNIL) {
    int isint;
    lua_Integer r = lua_tointegerx(L, -1, &isint);
    if (lua_type(L, -1) != LUA_TNUMBER || !isint || r < 0 || r >= k->c->size)
      luaL_error(L, "comm:%s: root must be a rank from 0 to %d, got %s", coll_names[k->kind], k->c->size - 1,
                 shown(L, -1));
    k->root = (int)r;
  }
  lua_pop(L, 1);
}

/* [-0, +0, v] {stream =} at k->opts, read once the arrays are: a stream, or with several
 * devices a table of them, one per device (false where a send or recv has no array) */
static void read_streams(lua_State *L, Call *k) {
  const char *name = coll_names[k->kind];
  int n = k->c->n, st = k->opts ? lua_getfield(L, k->opts, "stream") : LUA_TNIL;
  if (st == LUA_TTABLE && n > 1 && luaL_len(L, -1) != n)
    luaL_error(L, "comm:%s: stream must be a table of %d streams, one per device, got %I", name, n, luaL_len(L, -1));
  if (st != LUA_TNIL && st != LUA_TTABLE && n > 1)
    luaL_error(L, "comm:%s: stream must be a table of streams, one per device", name);
  if (st == LUA_TTABLE && n > 1) per_device(L, -1, n, name, "stream");
  for (int i = 0; i < n && st != LUA_TNIL; i++) {
    int at = lua_gettop(L);
    if (n > 1) lua_geti(L, at, i + 1);
    else lua_pushvalue(L, at);
    if (n > 1 && !k->x[i] && !lua_toboolean(L, -1)) { lua_settop(L, at); continue; }   /* none */
    if (!luaL_testudata(L, -1, GPU_STREAM_T)) {
      const char *got = luaL_typename(L, -1);
      luaL_error(L, "comm:%s: stream%s must be a gpu.stream%s, got %s", name, n > 1 ? lua_pushfstring(L, " entry %d", i + 1) : "",
                 n > 1 && !k->x[i] ? " or false (its rank has no array)" : "", got);
    }
    k->stream[i] = stream_named(L, -1, "comm:", name, 0);
    stream_in_group(L, -1);
    if (stream_device(L, -1) != k->c->devices[i])
      luaL_error(L, "comm:%s: the stream for rank %d is on device %d, the rank on device %d",
                 name, k->c->rank + i, stream_device(L, -1), k->c->devices[i]);
    lua_settop(L, at);
  }
  if (k->opts) lua_pop(L, 1);
}

/* The elements and type every rank's call moves, checked alike across this process */
static void check_alike(lua_State *L, const Call *k, int reducing) {
  const char *name = coll_names[k->kind];
  for (int i = 0; i < k->c->n; i++) {
    if (!k->x[i]) continue;
    if (reducing && coll_type(k->x[i]->dtype) < 0)
      luaL_error(L, "comm:%s: NCCL cannot reduce %s arrays (int8, uint8, int32, uint32, int64, "
                 "uint64, float16, float32 and float64 it can)", name, dtypes[k->x[i]->dtype].name);
    if (reducing && k->op == GPU_RED_AVG && dtypes[k->x[i]->dtype].kind != 'f')
      luaL_error(L, "comm:%s: op 'avg' takes float16, float32 or float64 arrays, got %s", name, dtypes[k->x[i]->dtype].name);
    const GpuArray *f = k->x[0];
    if (f && (f->dtype != k->x[i]->dtype || f->shape.size != k->x[i]->shape.size))
      luaL_error(L, "comm:%s: the ranks' arrays differ: %I %s elements on device %d, %I %s on "
                 "device %d", name, (lua_Integer)f->shape.size, dtypes[f->dtype].name, f->device,
                 (lua_Integer)k->x[i]->shape.size, dtypes[k->x[i]->dtype].name, k->x[i]->device);
  }
}

/* Rank i's backend arguments */
static GpuCollArgs args_of(const Call *k, int i) {
  const GpuArray *x = k->x[i], *out = k->out[i] ? k->out[i] : x;
  GpuCollArgs a = {k->kind, x->ptr, out->ptr, (size_t)x->shape.size, coll_type(x->dtype),
                   k->op, k->root, k->stream[i], k->barrier, NULL, 0};
  if (a.type < 0) { a.type = GPU_CT_BYTE; a.count *= dtypes[x->dtype].size; }
  a.dtype = k->dtype[i]->name;   /* (dtypes[x->dtype] here: GCC saw a dtype past the table) */
  a.dtype_size = k->dtype[i]->size;
  if (k->kind == GPU_COLL_REDUCE_SCATTER) a.count /= (size_t)k->c->size;
  if (k->kind >= GPU_COLL_SEND) a.peer = k->peer[i];
  if (k->kind == GPU_COLL_RECV) a.recv = x->ptr;
  return a;
}

/* r with its detail copied into buf: the backend reuses its own at its next call */
static GpuResult kept(GpuResult r, char *buf, size_t n) {
  if (r.detail) {
    snprintf(buf, n, "%s", r.detail);
    r.detail = buf;
  }
  return r;
}

/* A failed backend call raises; c is aborted when it is the communicator that broke (a
 * wait, or the throttle before a collective, may have found another one broken: that one
 * is refused when next used). The device is restored. */
void coll_raise_failure(lua_State *L, LuaComm *c, GpuResult r, int was) {
  const GpuBackend *be = backend_get();
  char why[600];   /* the calls below may write over the backend's detail */
  r = kept(r, why, sizeof why);
  be->use_device(was);
  if (r.source == GPU_SRC_HOST && r.code == GPU_ERR_COMM_FAILED && c->alive && !c->broken) {
    int own = 0;
    for (int i = 0; i < c->n && !own; i++) own = be->comm_check(c->h[i]).code != 0;
    if (own) comm_broke(L, c, r);
  }
  errors_raise(L, r, NULL);
}

/* Issues the call on every rank (grouped when there are several): in an open group, a
 * communicator all in this process queues it for the group's end (coll_defer) */
static void issue(lua_State *L, Call *k) {
  const GpuBackend *be = backend_get();
  LuaComm *c = k->c;
  int was = be->current_device(), grouped = c->n > 1 || coll_open_group(), n = 0, local[GPU_MAX_DEVICES];
  GpuResult r = GPU_OK;
  for (int i = 0; i < c->n && r.code == 0; i++) r = be->comm_check(c->h[i]);
  if (r.code) coll_raise_failure(L, c, r, was);
  if (coll_open_group()) {   /* run at the open group's end: what it uses stays until then */
    c->group = coll_open_group();
    group_keep(L, 1);                              /* the communicator */
    group_keep(L, 2);                              /* the arrays */
    if (k->opts) group_keep(L, k->opts);           /* out =, stream = */
    group_keep(L, lua_gettop(L));                  /* the outputs */
    for (int i = 0; i < c->n; i++) {               /* and nobody frees them */
      if (k->x[i]) group_hold(L, k->x[i]);
      if (k->out[i]) group_hold(L, k->out[i]);
    }
  }
  if (grouped) coll_group_begin(L);
  GpuCollArgs a[GPU_MAX_DEVICES];
  for (int i = 0; i < c->n; i++)
    if (k->x[i]) local[n] = i, a[n++] = args_of(k, i);
  int defer = grouped && c->size == c->n;   /* all in this process */
  if (defer) r = coll_defer(c, local, a, n);
  for (int i = 0; !defer && i < n && r.code == 0; i++) {
    r = be->use_device(c->devices[local[i]]);
    if (r.code == 0) r = be->coll(c->h[local[i]], &a[i]);
  }
  char why[600];   /* the group's end may write over the backend's detail */
  if (r.code) r = kept(r, why, sizeof why);
  /* back on the device before first: the group's end may raise (its own failure), and it
   * restores only the device it found */
  GpuResult back = be->use_device(was);
  if (grouped) coll_group_finish(L, r.code != 0);
  if (r.code) coll_raise_failure(L, c, r, was);
  GPU_CHECK(L, back);
}

/* The shape of a new output of rank i */
static GpuShape out_shape(const Call *k, const GpuArray *x) {
  GpuShape s = x->shape;
  int n = k->c->size;
  if (k->kind == GPU_COLL_ALL_GATHER) {   /* (outputs refused GPU_MAXDIM dimensions) */
    memmove(s.dim + 1, s.dim, sizeof s.dim[0] * (size_t)s.ndim);
    s.dim[0] = n;
    s.ndim++;
  } else if (s.ndim >= 1 && s.dim[0] % n == 0) {
    s.dim[0] /= n;
  } else {
    s.ndim = 1;
    s.dim[0] = x->shape.size / n;
  }
  s.size = k->kind == GPU_COLL_ALL_GATHER ? x->shape.size * n : x->shape.size / n;
  return s;
}

/* [-0, +1, e] The outputs: {out =} (checked), x itself (in place), or new arrays */
static void outputs(lua_State *L, Call *k) {
  int kind = k->kind, n = k->c->size, gathers = kind == GPU_COLL_ALL_GATHER;
  int scatters = kind == GPU_COLL_REDUCE_SCATTER;
  if (scatters && k->x[0] && k->x[0]->shape.size % n != 0)
    luaL_error(L, "comm:reduce_scatter: %I elements do not split among %d ranks",
               (lua_Integer)k->x[0]->shape.size, n);
  if (k->opts && lua_getfield(L, k->opts, "out") != LUA_TNIL) {
    int at = lua_gettop(L);
    for (int i = 0; i < k->c->n; i++) {
      GpuArray *o = k->out[i] = buffer(L, at, k, i, "out", 0), *x = k->x[i];
      int64_t want = gathers ? x->shape.size * n : scatters ? x->shape.size / n : x->shape.size;
      if (o->dtype != x->dtype || o->shape.size != want)
        luaL_error(L, "comm:%s: out must hold %I %s elements, got %I %s", coll_names[kind],
                   (lua_Integer)want, dtypes[x->dtype].name, (lua_Integer)o->shape.size, dtypes[o->dtype].name);
      GpuLayout lo = array_layout(o), lx = array_layout(x);   /* in place is out = x itself */
      if (o->shape.size && x->shape.size && o->base == x->base &&
          (gathers || scatters || (layout_overlap(&lo, &lx) && !layout_same(&lo, &lx))))
        luaL_error(L, "comm:%s: out shares memory with the input%s", coll_names[kind],
                   gathers || scatters ? "" : " (in place is out = the input itself, or no out)");
      if (array_shares(o)) errors_shared(L, lua_pushfstring(L, "comm:%s: out", coll_names[kind]));
    }
    return;
  }
  lua_pop(L, 1);
  for (int i = 0; gathers && i < k->c->n; i++)
    if (k->x[i]->shape.ndim == GPU_MAXDIM)
      luaL_error(L, "comm:all_gather: the result would have %d dimensions, one more than the array's "
                 "(at most %d): pass out = an array of %d times its elements", GPU_MAXDIM + 1, GPU_MAXDIM, n);
  if (!gathers && !scatters) {   /* in place */
    for (int i = 0; i < k->c->n; i++)
      if (array_shares(k->x[i])) errors_shared(L, lua_pushfstring(L, "comm:%s: in place", coll_names[kind]));
    lua_pushvalue(L, 2);
    return;
  }
  if (k->c->n > 1) lua_createtable(L, k->c->n, 0);
  for (int i = 0; i < k->c->n; i++) {
    GpuShape s = out_shape(k, k->x[i]);
    k->out[i] = array_new_on(L, k->x[i]->device, &s, k->x[i]->dtype);   /* (x's device and dtype) */
    if (k->c->n > 1) lua_rawseti(L, -2, i + 1);
  }
}

/* [-0, +0, v] The peers of send/recv at idx: a rank, or a table of them (one per device);
 * its own rank only inside a group, where its partner can be (as NCCL 2.7+ takes it) */
static void read_peers(lua_State *L, Call *k, int idx) {
  if (lua_istable(L, idx)) per_device(L, idx, k->c->n, coll_names[k->kind], "the table of peers");
  for (int i = 0; i < k->c->n; i++) {
    if (!k->x[i]) continue;
    if (lua_istable(L, idx)) lua_geti(L, idx, i + 1);
    else lua_pushvalue(L, idx);
    int isint;
    lua_Integer p = lua_tointegerx(L, -1, &isint);
    if (lua_type(L, -1) != LUA_TNUMBER || !isint || p < 0 || p >= k->c->size)
      luaL_error(L, "comm:%s: the peer of rank %d must be a rank from 0 to %d, got %s",
                 coll_names[k->kind], k->c->rank + i, k->c->size - 1, shown(L, -1));
    if (p == k->c->rank + i && !coll_open_group())   /* its partner can only be in its group */
      luaL_error(L, "comm:%s: rank %d %s itself outside a gpu.nccl.group (it would wait forever): "
                 "group the send and its recv", coll_names[k->kind], k->c->rank + i,
                 k->kind == GPU_COLL_SEND ? "sends to" : "receives from");
    k->peer[i] = (int)p;
    lua_pop(L, 1);
  }
}

/* [-0, +0, v] Collectives are not recorded: a replay would run them on a communicator
 * that may be gone by then, with nothing watching for a dead peer */
static void not_in_graph(lua_State *L, const char *name) {
  if (graph_capturing)
    graph_refuse(L, "comm:%s cannot be recorded in a graph (gpu.graph): run collectives "
               "between replays", name);
}

static int barrier_call;   /* the next run_call is comm:barrier()'s */
static int run_call(lua_State *L, int kind) {
  Call k = {.barrier = barrier_call};
  barrier_call = 0;
  k.c = comm_check(L, 1);
  not_in_graph(L, coll_names[kind]);
  k.kind = kind;
  int p2p = kind >= GPU_COLL_SEND, o = p2p ? 4 : 3;
  if (!lua_isnoneornil(L, o)) { luaL_checktype(L, o, LUA_TTABLE); k.opts = o; }
  lua_settop(L, o);
  read_options(L, &k);
  int any = 0;
  for (int i = 0; i < k.c->n; i++)
    if ((k.x[i] = buffer(L, 2, &k, i, "argument 1", p2p)) != NULL) any = 1, k.dtype[i] = &dtypes[k.x[i]->dtype];
  if (!any) return luaL_error(L, "comm:%s: no array to %s", coll_names[kind], kind == GPU_COLL_RECV ? "receive into" : "send");
  if (p2p) read_peers(L, &k, 3);
  read_streams(L, &k);
  for (int i = 0; kind == GPU_COLL_RECV && i < k.c->n; i++)
    if (k.x[i] && array_shares(k.x[i])) errors_shared(L, "comm:recv");
  int reducing = kind == GPU_COLL_ALL_REDUCE || kind == GPU_COLL_REDUCE || kind == GPU_COLL_REDUCE_SCATTER;
  if (!p2p) check_alike(L, &k, reducing);
  if (p2p) lua_pushvalue(L, 2);
  else outputs(L, &k);
  /* the options' and the tables' metamethods ran after the checks above: what they freed
   * (the communicator, an array) is refused here, not used */
  comm_check(L, 1);
  for (int i = 0; i < k.c->n; i++)
    if ((k.x[i] && !k.x[i]->alive) || (k.out[i] && !k.out[i]->alive))
      errors_freed(L, lua_pushfstring(L, "comm:%s %s%s", coll_names[kind], k.x[i] && !k.x[i]->alive ? "argument 1" : "out",
                                      k.c->n > 1 ? lua_pushfstring(L, " entry %d", i + 1) : ""));
  issue(L, &k);
  return 1;
}

static int coll_all_reduce(lua_State *L) { return run_call(L, GPU_COLL_ALL_REDUCE); }
static int coll_all_gather(lua_State *L) { return run_call(L, GPU_COLL_ALL_GATHER); }
static int coll_reduce_scatter(lua_State *L) { return run_call(L, GPU_COLL_REDUCE_SCATTER); }
static int coll_broadcast(lua_State *L) { return run_call(L, GPU_COLL_BROADCAST); }
static int coll_reduce(lua_State *L) { return run_call(L, GPU_COLL_REDUCE); }
static int coll_send(lua_State *L) { return run_call(L, GPU_COLL_SEND); }
static int coll_recv(lua_State *L) { return run_call(L, GPU_COLL_RECV); }

/* comm:barrier(): returns when every rank has reached it (an all_reduce of one element on
 * each device, waited for) */
static int coll_barrier(lua_State *L) {
  LuaComm *c = comm_check(L, 1);
  not_in_graph(L, "barrier");
  if (coll_open_group())
    luaL_error(L, "comm:barrier cannot wait inside a gpu.nccl.group (the group runs its calls "
               "at its end): call it after the group");
  lua_settop(L, 1);
  lua_getiuservalue(L, 1, 1);
  lua_createtable(L, c->n, 0);   /* the buffers, as all_reduce reads them */
  for (int i = 0; i < c->n; i++) {
    if (lua_geti(L, 2, i + 1) == LUA_TNIL) {
      lua_pop(L, 1);
      GpuShape one = {1, {1}, 1};
      GpuArray *a = array_new_on(L, c->devices[i], &one, DT_INT32);
      int was = device_enter(L, c->devices[i]);   /* cleared on its own device */
      device_done(L, was, backend_get()->memset0(a->ptr, a->nbytes));
      lua_pushvalue(L, -1);
      lua_rawseti(L, 2, i + 1);
    }
    lua_rawseti(L, 3, i + 1);
  }
  lua_replace(L, 2);
  if (c->n == 1) lua_geti(L, 2, 1), lua_replace(L, 2);
  barrier_call = 1;               /* taken by run_call at once */
  run_call(L, GPU_COLL_ALL_REDUCE);
  int was = backend_get()->current_device();
  for (int i = 0; i < c->n; i++) {
    GpuResult r = backend_get()->use_device(c->devices[i]);
    if (r.code == 0) r = backend_get()->synchronize();
    if (r.code) coll_raise_failure(L, c, r, was);
  }
  GPU_CHECK(L, backend_get()->use_device(was));
  return 0;
}

static const luaL_Reg coll_funcs[] = {
  {"all_reduce", coll_all_reduce}, {"all_gather", coll_all_gather}, {"reduce_scatter", coll_reduce_scatter},
  {"broadcast", coll_broadcast}, {"reduce", coll_reduce}, {"send", coll_send}, {"recv", coll_recv},
  {"barrier", coll_barrier}, {NULL, NULL}};

void coll_methods(lua_State *L) { luaL_setfuncs(L, coll_funcs, 0); }
