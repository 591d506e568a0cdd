/* comm.c: communicators ("gpu.nccl.comm"): gpu.nccl.comm over devices of this process or
 * over the processes a launcher started, their fields, gpu.nccl.group, abort and the
 * release path. The collectives themselves (reading buffers, options, issuing) are in
 * coll.c. The backend runs them: NCCL on CUDA, host memory and MPI on the CPU. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "mpi.h"

#define tocomm(L, i) ((LuaComm *)luaL_checkudata(L, i, GPU_COMM_T))

LuaComm *comm_check(lua_State *L, int idx) {
  LuaComm *c = tocomm(L, idx);
  if (c->broken) luaL_error(L, "attempt to use a broken communicator (an earlier collective "
                            "failed; make a new one)");   /* a broken one is released too */
  if (!c->alive) luaL_error(L, "attempt to use a freed communicator");
  return c;
}

/* [-0, +1, m] A communicator in a safe empty state: __gc of a half-made one frees nothing */
static LuaComm *comm_new(lua_State *L) {
  LuaComm *c = lua_newuserdatauv(L, sizeof *c, 1);
  memset(c, 0, sizeof *c);
  luaL_setmetatable(L, GPU_COMM_T);
  lua_newtable(L);               /* uservalue: the barrier's buffers, made at first use */
  lua_setiuservalue(L, -2, 1);
  return c;
}

/* Restores the current device after a backend call that may change it; raises r. */
static void check_restoring(lua_State *L, GpuResult r, int was) {
  if (backend_get()->current_device() != was) {
    GpuResult u = backend_get()->use_device(was);
    if (r.code == 0) r = u;
  }
  GPU_CHECK(L, r);
}

/* gpu.nccl.comm({d1, d2, ...}): one rank per device of this process (ids or gpu.device tables) */
static void comm_local(lua_State *L, LuaComm *c) {
  int n = (int)luaL_len(L, 1), count;
  if (n < 1 || n > GPU_MAX_DEVICES)
    luaL_error(L, "gpu.nccl.comm: 1 to %d devices expected, got %d", GPU_MAX_DEVICES, n);
  const char *bad = table_not_list(L, 1, n);   /* ({0, 1, x = 2} was {0, 1}) */
  if (bad) luaL_error(L, "gpu.nccl.comm: the table of devices has %s", bad);
  GPU_CHECK(L, backend_get()->device_count(&count));
  for (int i = 0; i < n; i++) {
    if (lua_geti(L, 1, i + 1) == LUA_TTABLE)   /* gpu.device(d): its id, as a:to takes it */
      lua_getfield(L, -1, "id"), lua_replace(L, -2);
    int isint;
    lua_Integer d = lua_tointegerx(L, -1, &isint);
    if (lua_type(L, -1) != LUA_TNUMBER || !isint)
      luaL_error(L, "gpu.nccl.comm: entry %d is not a device id (an integer or gpu.device(d)), got %s",
                 i + 1, lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : luaL_typename(L, -1));
    if (d < 0 || d >= count)
      luaL_error(L, "gpu.nccl.comm: no device %I (%d device%s, numbered from 0)", d, count,
                 count == 1 ? "" : "s");
    for (int j = 0; j < i; j++)
      if (c->devices[j] == d) luaL_error(L, "gpu.nccl.comm: device %I is named twice", d);
    c->devices[i] = (int)d;
    lua_pop(L, 1);
  }
  int was = backend_get()->current_device();
  GpuResult r = backend_get()->comm_init_all(c->h, n, c->devices);
  if (r.code == 0) { c->n = n; c->size = n; c->rank = 0; c->alive = 1; }
  check_restoring(L, r, was);
}

/* gpu.nccl.comm(): this process's rank among those a launcher started; its device is the
 * one its local rank picks, made current */
static void comm_launched(lua_State *L, LuaComm *c) {
  int rank, size, local, count;
  GPU_CHECK(L, mpi_launcher(&rank, &size, &local));
  GPU_CHECK(L, backend_get()->device_count(&count));
  int dev = local % count;
  GPU_CHECK(L, backend_get()->use_device(dev));
  GPU_CHECK(L, mpi_start());
  GpuCommId id;
  memset(&id, 0, sizeof id);
  if (rank == 0) GPU_CHECK(L, backend_get()->comm_id(&id));
  GPU_CHECK(L, mpi_bcast(&id, sizeof id, 0));
  GPU_CHECK(L, backend_get()->comm_init_rank(&c->h[0], size, rank, &id, dev));
  c->n = 1;
  c->size = size;
  c->rank = rank;
  c->devices[0] = dev;
  c->alive = 1;
  backend_get()->use_device(dev);
}

static int gpu_nccl_comm(lua_State *L) {
  if (!lua_isnoneornil(L, 1)) luaL_checktype(L, 1, LUA_TTABLE);
  LuaComm *c = comm_new(L);
  if (lua_istable(L, 1)) comm_local(L, c);
  else comm_launched(L, c);
  return 1;
}

/* The one release path, shared by __gc, __close and :free(); idempotent. abort: end it
 * without waiting for anyone (comm:abort(), and a broken one) */
static GpuResult comm_release(LuaComm *c, int abort) {
  GpuResult r = GPU_OK;
  const GpuBackend *be = backend_get();
  for (int i = 0; i < c->n && c->alive; i++) {
    GpuResult q = abort || c->broken ? be->comm_abort(c->h[i]) : be->comm_destroy(c->h[i]);
    if (r.code == 0) r = q;
    c->h[i] = NULL;
  }
  c->alive = 0;
  return r;
}

static int comm_gc(lua_State *L) {
  int was = backend_get()->current_device();
  GpuResult r = comm_release(tocomm(L, 1), 0);
  backend_get()->use_device(was);
  if (r.code) errors_warn(L, r, "destroying a communicator");
  return 0;
}

/* [-0, +0, v] The communicator at 1, unless the open group has calls of it queued */
static LuaComm *releasable(lua_State *L, const char *what) {
  LuaComm *c = tocomm(L, 1);
  if (c->alive && coll_queued(c))
    luaL_error(L, "comm:%s: the communicator has calls queued in the open gpu.nccl.group, "
               "which runs them at its end: %s it after the group", what, what);
  return c;
}

/* comm:free() and __close: as __gc, raising what it can only warn of */
static int comm_free(lua_State *L) {
  LuaComm *c = releasable(L, "free");
  int was = backend_get()->current_device();
  check_restoring(L, comm_release(c, 0), was);
  return 0;
}

/* comm:abort(): ends the communicator now, without waiting for its work or its peers */
static int comm_abort(lua_State *L) {
  LuaComm *c = releasable(L, "abort");
  int was = backend_get()->current_device();
  check_restoring(L, comm_release(c, 1), was);
  return 0;
}

void comm_broke(lua_State *L, LuaComm *c, GpuResult r) {
  c->broken = 1;
  if (!coll_queued(c)) comm_release_broken(c);   /* else at the group's end */
  errors_raise(L, r, NULL);
}

void comm_release_broken(LuaComm *c) {
  int was = backend_get()->current_device();
  comm_release(c, 1);
  backend_get()->use_device(was);
}

static void push_ints(lua_State *L, const int *v, int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushinteger(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* the ranks this process drives: 0 .. n-1 in one process, its own under a launcher */
static void push_ranks(lua_State *L, const LuaComm *c) {
  lua_createtable(L, c->n, 0);
  for (int i = 0; i < c->n; i++) {
    lua_pushinteger(L, c->rank + i);
    lua_rawseti(L, -2, i + 1);
  }
}

/* comm.rank, comm.size, comm.devices, comm.ranks, comm.device */
static int comm_index(lua_State *L) {
  LuaComm *c = tocomm(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (method_push(L, 1, k)) return 1;
  if (strcmp(k, "rank") == 0) lua_pushinteger(L, c->rank);
  else if (strcmp(k, "size") == 0) lua_pushinteger(L, c->size);
  else if (strcmp(k, "device") == 0) lua_pushinteger(L, c->devices[0]);
  else if (strcmp(k, "devices") == 0) push_ints(L, c->devices, c->n);
  else if (strcmp(k, "ranks") == 0) push_ranks(L, c);
  else if (strcmp(k, "alive") == 0) lua_pushboolean(L, c->alive && !c->broken);
  else return luaL_error(L, "gpu.nccl.comm has no field or method '%s'", k);
  return 1;
}

static int comm_tostring(lua_State *L) {
  LuaComm *c = tocomm(L, 1);
  if (!c->alive) lua_pushliteral(L, "gpu.nccl.comm (freed)");
  else if (c->n > 1) lua_pushfstring(L, "gpu.nccl.comm(%d ranks on devices %d..., this process)", c->size, c->devices[0]);
  else lua_pushfstring(L, "gpu.nccl.comm(rank %d of %d, device %d)", c->rank, c->size, c->devices[0]);
  return 1;
}

/* gpu.nccl.group(f, ...): calls f(...) with the collectives it issues grouped (NCCL's
 * ncclGroupStart/End): sends and recvs of one process must be grouped to pair up. The
 * group is ended when f raises too, and the error goes on. */
/* ---- what an open group's calls use ---- */

static const char KEPT_KEY = 0;   /* registry: a list of the values, alive while it is */
static GpuArray **held;           /* the arrays among them */
static int nheld, capheld;

void group_keep(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEPT_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEPT_KEY);
  }
  lua_pushvalue(L, idx);
  lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
  lua_pop(L, 1);
}

void group_hold(lua_State *L, GpuArray *a) {
  if (nheld == capheld) {
    int cap = capheld ? 2 * capheld : 16;
    GpuArray **more = realloc(held, (size_t)cap * sizeof *more);
    if (more == NULL) luaL_error(L, "not enough memory to queue a collective");
    held = more;
    capheld = cap;
  }
  held[nheld++] = a;
  a->queued++;
}

/* The communicators that broke inside the group are aborted now that NCCL has let go of
 * their calls (comm_broke) */
void group_let_go(lua_State *L) {
  for (int i = 0; i < nheld; i++) held[i]->queued--;   /* (alive: kept till here) */
  nheld = 0;
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEPT_KEY) == LUA_TTABLE) {
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
      LuaComm *c = luaL_testudata(L, -1, GPU_COMM_T);
      if (c && c->alive && c->broken) comm_release_broken(c);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_pushnil(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &KEPT_KEY);
}

static int gpu_nccl_group(lua_State *L) {
  errors_callable(L, 1, "gpu.nccl.group");   /* (a callable value too, as gpu.graph's f) */
  coll_group_begin(L);
  int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  coll_group_finish(L, status != LUA_OK);
  if (status != LUA_OK) return lua_error(L);
  return lua_gettop(L);
}

/* gpu.nccl.version(): NCCL's version code (22803 for 2.28.3), loading it; nil on the CPU
 * backend, which has none */
static int gpu_nccl_version(lua_State *L) {
  int v = 0;
  GPU_CHECK(L, backend_get()->comm_version(&v));
  if (v == 0) lua_pushnil(L);
  else lua_pushinteger(L, v);
  return 1;
}

static const luaL_Reg nccl_funcs[] = {
  {"comm", gpu_nccl_comm},
  {"version", gpu_nccl_version},
  {"group", gpu_nccl_group},
  {NULL, NULL}
};

static const luaL_Reg comm_methods[] = {
  {"free", comm_free},
  {"abort", comm_abort},
  {NULL, NULL}
};

/* Expects the gpu table on top: gpu.nccl */
void comm_open(lua_State *L) {
  luaL_newlib(L, nccl_funcs);
  lua_setfield(L, -2, "nccl");
  luaL_newmetatable(L, GPU_COMM_T);
  lua_pushcfunction(L, comm_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, comm_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, comm_free);
  lua_setfield(L, -2, "__close");
  lua_pushcfunction(L, comm_tostring);
  lua_setfield(L, -2, "__tostring");
  luaL_newlib(L, comm_methods);
  coll_methods(L);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
}
