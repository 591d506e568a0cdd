/* array.c: device arrays ("gpu.array"): allocation, explicit copies to and from the host,
 * and the rule that device data is never read from Lua without a copy. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

#define toarray(L, i) ((GpuArray *)luaL_checkudata(L, i, GPU_ARRAY_T))

GpuArray *array_check(lua_State *L, int idx) {
  GpuArray *a = toarray(L, idx);
  if (!a->alive) errors_freed(L, NULL);
  return a;
}

static void array_alloc(lua_State *L, GpuArray *a) {
  if (a->nbytes == 0) return;
  GpuResult r = mem_alloc(L, 0, &a->ptr, a->nbytes);
  if (r.code) {
    a->ptr = 0;
    errors_raise(L, r, NULL);
  }
  gc_account(L, (long)(a->nbytes / 1024));
}

GpuArray *array_new(lua_State *L, const GpuShape *s, GpuDtype dt) {
  GPU_CHECK(L, backend_get()->ensure_context());
  /* safe empty state first: __gc of a half-made array frees nothing */
  GpuArray *a = lua_newuserdatauv(L, sizeof *a, 0);
  memset(a, 0, sizeof *a);
  luaL_setmetatable(L, GPU_ARRAY_T);
  a->shape = *s;
  a->dtype = dt;
  a->nbytes = (size_t)s->size * dtypes[dt].size;
  a->device = backend_get()->current_device();
  a->alive = 1;
  array_alloc(L, a);
  if (graph_capturing) graph_keep(L, -1);
  return a;
}

/* The one release path, shared by __gc, __close and :free(); idempotent. */
static GpuResult array_release(GpuArray *a) {
  GpuResult r = GPU_OK;
  if (a->ptr) r = mem_free(a->ptr, a->device, a->nbytes);
  a->ptr = 0;
  a->alive = 0;
  return r;
}

/* __gc: an error here would only become a warning (manual §2.5.3), so say it as one */
static int array_gc(lua_State *L) {
  GpuResult r = array_release(toarray(L, 1));
  if (r.code) errors_warn(L, r, "freeing a device array");
  return 0;
}

/* a:free() and __close: an ordinary call, so a failure raises */
static int array_free(lua_State *L) {
  GpuArray *a = toarray(L, 1);
  if (a->pins > 0)
    return luaL_error(L, "attempt to free an array that a graph uses (free the graph first)");
  if (a->alive) GPU_CHECK(L, array_release(a));
  return 0;
}

/* gpu.empty(shape [, dtype]) */
static int gpu_empty(lua_State *L) {
  GpuShape s;
  shape_check(L, 1, &s);
  array_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  return 1;
}

/* gpu.zeros(shape [, dtype]) */
static int gpu_zeros(lua_State *L) {
  GpuShape s;
  shape_check(L, 1, &s);
  GpuArray *a = array_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  if (a->nbytes) GPU_CHECK(L, backend_get()->memset0(a->ptr, a->nbytes));
  return 1;
}

/* gpu.array(src [, dtype]): src a (nested) Lua table, a host array, or a device array;
 * always a copy. */
static int gpu_array(lua_State *L) {
  HostArray *h;
  GpuArray *d;
  GpuShape s;
  if (lua_istable(L, 1)) {
    GpuDtype dt = dtype_check(L, 2, DT_FLOAT32);
    table_shape(L, 1, &s);
    size_t n = (size_t)s.size * dtypes[dt].size;
    void *buf = lua_newuserdatauv(L, n ? n : 1, 0);   /* collected even if reading raises */
    table_read(L, 1, &s, dt, buf);
    GpuArray *a = array_new(L, &s, dt);
    if (n) GPU_CHECK(L, backend_get()->htod(a->ptr, buf, n));
    return 1;
  }
  if ((h = hostarray_test(L, 1)) != NULL) {
    if (!h->alive) return errors_freed(L, NULL);
    GpuDtype dt = dtype_check(L, 2, h->dtype);
    if (dt != h->dtype)
      return luaL_argerror(L, 2, lua_pushfstring(L, "cannot copy a %s host array into a %s "
          "array; give the same dtype", dtypes[h->dtype].name, dtypes[dt].name));
    GpuArray *a = array_new(L, &h->shape, dt);
    if (a->nbytes) GPU_CHECK(L, backend_get()->htod(a->ptr, h->data, a->nbytes));
    return 1;
  }
  if (luaL_testudata(L, 1, GPU_ARRAY_T)) {
    d = array_check(L, 1);
    GpuDtype dt = dtype_check(L, 2, d->dtype);
    if (dt != d->dtype)
      return luaL_argerror(L, 2, "a device array is copied with its own dtype");
    GpuArray *a = array_new(L, &d->shape, dt);
    if (graph_capturing) graph_keep(L, 1);
    if (a->nbytes) GPU_CHECK(L, backend_get()->dtod(a->ptr, d->ptr, a->nbytes));
    return 1;
  }
  return luaL_argerror(L, 1, lua_pushfstring(L, "table or host array expected, got %s",
                                             luaL_typename(L, 1)));
}

/* a:tohost([out]): a host array (pinned memory) holding a copy, or the copy into host
 * array out; waits for the work before it */
static int array_tohost(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  HostArray *h;
  if (!lua_isnoneornil(L, 2)) {
    h = hostarray_check(L, 2);
    if (h->dtype != a->dtype || h->shape.size != a->shape.size)
      return luaL_argerror(L, 2, lua_pushfstring(L, "host array of %I %s elements expected",
                           (lua_Integer)a->shape.size, dtypes[a->dtype].name));
    lua_settop(L, 2);
  } else {
    h = hostarray_new(L, &a->shape, a->dtype);
  }
  if (a->nbytes) GPU_CHECK(L, backend_get()->dtoh(h->data, a->ptr, a->nbytes));
  return 1;
}

/* a:totable(): a (nested) Lua table */
static int array_totable(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  void *buf = lua_newuserdatauv(L, a->nbytes ? a->nbytes : 1, 0);
  if (a->nbytes) GPU_CHECK(L, backend_get()->dtoh(buf, a->ptr, a->nbytes));
  table_push(L, buf, &a->shape, a->dtype);
  return 1;
}

/* a:copy(): a new device array with the same contents */
static int array_copy(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  GpuArray *b = array_new(L, &a->shape, a->dtype);
  if (graph_capturing) graph_keep(L, 1);
  if (a->nbytes) GPU_CHECK(L, backend_get()->dtod(b->ptr, a->ptr, a->nbytes));
  return 1;
}

/* a:_peek(first, count): count elements from 0-based flat index first, as a table; what
 * printing an array shows (lua/format.lua) */
static int array_peek(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  lua_Integer first = luaL_checkinteger(L, 2), count = luaL_checkinteger(L, 3);
  if (first < 0 || count < 0 || first > a->shape.size || count > a->shape.size - first)
    return luaL_error(L, "peek out of range");
  size_t es = dtypes[a->dtype].size;
  char buf[64 * 8];
  if (count > 64) count = 64;
  if (count) GPU_CHECK(L, backend_get()->dtoh(buf, a->ptr + (CUdeviceptr)first * es, (size_t)count * es));
  lua_createtable(L, (int)count, 0);
  for (size_t i = 0; i < (size_t)count; i++) {
    dtype_push(L, a->dtype, buf + i * es);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int array_index(lua_State *L) {
  GpuArray *a = toarray(L, 1);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (method_push(L, 1, k)) return 1;
    if (!a->alive) return errors_freed(L, NULL);
    if (strcmp(k, "device") == 0) lua_pushinteger(L, a->device);
    else if (!field_push(L, k, &a->shape, a->dtype))
      return luaL_error(L, "gpu.array has no field or method '%s'", k);
    return 1;
  }
  return luaL_error(L, "attempt to index a device array from Lua: copy it to the host "
                    "first (h = a:tohost(); h[i]) or use a:totable()");
}

static int array_newindex(lua_State *L) {
  return luaL_error(L, "attempt to write a device array from Lua: build the data on the "
                    "host and copy it with gpu.array(t), or write it in a kernel");
}

static int array_len(lua_State *L) {
  lua_pushinteger(L, array_check(L, 1)->shape.size);
  return 1;
}

static const luaL_Reg array_funcs[] = {
  {"empty", gpu_empty},
  {"zeros", gpu_zeros},
  {"array", gpu_array},
  {NULL, NULL}
};

static const luaL_Reg array_methods[] = {
  {"tohost", array_tohost},
  {"totable", array_totable},
  {"copy", array_copy},
  {"free", array_free},
  {"_peek", array_peek},
  {NULL, NULL}
};

static const luaL_Reg array_meta[] = {
  {"__index", array_index},
  {"__newindex", array_newindex},
  {"__len", array_len},
  {"__gc", array_gc},
  {"__close", array_free},
  {NULL, NULL}
};

/* Expects the gpu table on top of the stack. */
void array_open(lua_State *L) {
  luaL_setfuncs(L, array_funcs, 0);
  luaL_newmetatable(L, GPU_ARRAY_T);
  luaL_setfuncs(L, array_meta, 0);
  luaL_newlib(L, array_methods);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
}
