/* hostarray.c: host arrays ("gpu.hostarray"), what a:tohost() returns: page-locked
 * (pinned) host memory, 1-based flat indexing h[i], #h, h:totable(). Also the conversions
 * between (nested) Lua tables and packed elements that gpu.array and totable use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

#define tohostarray(L, i) ((HostArray *)luaL_checkudata(L, i, GPU_HOSTARRAY_T))

HostArray *hostarray_test(lua_State *L, int idx) {
  return (HostArray *)luaL_testudata(L, idx, GPU_HOSTARRAY_T);
}

HostArray *hostarray_check(lua_State *L, int idx) {
  HostArray *h = tohostarray(L, idx);
  if (!h->alive) errors_freed(L, NULL);
  return h;
}

/* Pinned memory is slow to get (the pages are locked one by one), so the buffers of freed
 * host arrays are kept in a pool, one per Lua state (in the registry), and handed out again
 * to arrays that fit in them. */
#define POOL_SLOTS 16
#define POOL_MAX_BYTES ((size_t)4 << 30)
typedef struct PinnedPool {
  void *ptr[POOL_SLOTS];
  size_t size[POOL_SLOTS];
  size_t bytes;
  int closed;
} PinnedPool;
static const char POOL_KEY = 0;

static PinnedPool *pool_get(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &POOL_KEY) == LUA_TUSERDATA) {
    PinnedPool *p = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return p;
  }
  lua_pop(L, 1);
  PinnedPool *p = lua_newuserdatauv(L, sizeof *p, 0);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, GPU_PINNEDPOOL_T);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &POOL_KEY);
  return p;
}

/* the pool's __gc: a state that closes gives its buffers back */
static int pool_gc(lua_State *L) {
  PinnedPool *p = lua_touserdata(L, 1);
  for (int i = 0; i < POOL_SLOTS; i++) {
    GpuResult r = p->ptr[i] ? backend_get()->host_free(p->ptr[i]) : GPU_OK;
    if (r.code) errors_warn(L, r, "freeing pinned host memory");
  }
  memset(p, 0, sizeof *p);
  p->closed = 1;
  return 0;
}

/* The smallest pooled buffer of n bytes or more (and not over twice n), or NULL. */
static void *pool_take(PinnedPool *p, size_t n, size_t *cap) {
  int best = -1;
  for (int i = 0; i < POOL_SLOTS; i++)
    if (p->ptr[i] && p->size[i] >= n && p->size[i] <= 2 * n &&
        (best < 0 || p->size[i] < p->size[best])) best = i;
  if (best < 0) return NULL;
  void *buf = p->ptr[best];
  *cap = p->size[best];
  p->bytes -= p->size[best];
  p->ptr[best] = NULL;
  return buf;
}

/* Keeps buf for later, or frees it when the pool is full; the backend's result. */
static GpuResult pool_give(lua_State *L, void *buf, size_t cap) {
  PinnedPool *p = pool_get(L);
  if (!p->closed && p->bytes + cap <= POOL_MAX_BYTES) {
    for (int i = 0; i < POOL_SLOTS; i++)
      if (p->ptr[i] == NULL) {
        p->ptr[i] = buf;
        p->size[i] = cap;
        p->bytes += cap;
        return GPU_OK;
      }
  }
  return backend_get()->host_free(buf);
}

HostArray *hostarray_new(lua_State *L, const GpuShape *s, GpuDtype dt) {
  HostArray *h = lua_newuserdatauv(L, sizeof *h, 0);
  memset(h, 0, sizeof *h);
  luaL_setmetatable(L, GPU_HOSTARRAY_T);
  h->shape = *s;
  h->dtype = dt;
  h->nbytes = (size_t)s->size * dtypes[dt].size;
  h->alive = 1;
  if (h->nbytes == 0) return h;
  /* pinned when a driver is there (fast copies); plain memory otherwise */
  if (backend_get()->ensure_context().code == 0) {
    h->data = pool_take(pool_get(L), h->nbytes, &h->capacity);
    if (h->data == NULL) {
      h->capacity = h->nbytes;
      GpuResult r = mem_alloc(L, 1, &h->data, h->nbytes);
      if (r.code) { h->data = NULL; errors_raise(L, r, NULL); }
      gc_account(L, (long)(h->nbytes / 1024));
    }
    h->pinned = backend_get()->pinned_host;
  } else {
    h->data = malloc(h->nbytes);
    if (h->data == NULL) luaL_error(L, "not enough memory for a host array of %I bytes",
                                    (lua_Integer)h->nbytes);
  }
  return h;
}

/* The one release path; the backend's result. */
static GpuResult hostarray_release(lua_State *L, HostArray *h) {
  GpuResult r = GPU_OK;
  if (h->data) {
    if (h->pinned) r = pool_give(L, h->data, h->capacity);
    else free(h->data);
  }
  h->data = NULL;
  h->alive = 0;
  return r;
}

static int hostarray_gc(lua_State *L) {
  GpuResult r = hostarray_release(L, tohostarray(L, 1));
  if (r.code) errors_warn(L, r, "freeing a host array");
  return 0;
}

/* h:free() and __close raise what __gc can only warn of */
static int hostarray_free(lua_State *L) {
  GPU_CHECK(L, hostarray_release(L, tohostarray(L, 1)));
  return 0;
}

static void *element(lua_State *L, HostArray *h, int idx) {
  int isint;
  lua_Integer i = lua_tointegerx(L, idx, &isint);
  if (!isint) luaL_error(L, "host array index must be an integer, got %s",
                         lua_type(L, idx) == LUA_TNUMBER ? lua_tostring(L, idx) : luaL_typename(L, idx));
  if (i < 1 || i > h->shape.size)
    luaL_error(L, "index %I out of range for a host array of %I elements", i, h->shape.size);
  return (char *)h->data + (size_t)(i - 1) * dtypes[h->dtype].size;
}

static int hostarray_index(lua_State *L) {
  HostArray *h = tohostarray(L, 1);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (method_push(L, 1, k)) return 1;
    if (!h->alive) return errors_freed(L, NULL);
    if (strcmp(k, "pinned") == 0) lua_pushboolean(L, h->pinned);
    else if (!field_push(L, k, &h->shape, h->dtype))
      return luaL_error(L, "gpu.hostarray has no field or method '%s'", k);
    return 1;
  }
  hostarray_check(L, 1);
  dtype_push(L, h->dtype, element(L, h, 2));
  return 1;
}

static int hostarray_newindex(lua_State *L) {
  HostArray *h = hostarray_check(L, 1);
  void *p = element(L, h, 2);
  const char *err = dtype_store(L, 3, h->dtype, p);
  if (err) return luaL_error(L, "cannot store %s in a %s host array: %s",
                             luaL_tolstring(L, 3, NULL), dtypes[h->dtype].name, err);
  return 0;
}

static int hostarray_len(lua_State *L) {
  lua_pushinteger(L, hostarray_check(L, 1)->shape.size);
  return 1;
}

static int hostarray_totable(lua_State *L) {
  HostArray *h = hostarray_check(L, 1);
  table_push(L, h->data, &h->shape, h->dtype);
  return 1;
}


/* gpu.host.empty(shape [, dtype]), gpu.host.zeros(shape [, dtype]) */
static int host_empty(lua_State *L) {
  GpuShape s;
  shape_check(L, 1, &s);
  hostarray_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  return 1;
}

static int host_zeros(lua_State *L) {
  GpuShape s;
  shape_check(L, 1, &s);
  HostArray *h = hostarray_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  if (h->nbytes) memset(h->data, 0, h->nbytes);
  return 1;
}

/* gpu.host.array(table [, dtype]) */
static int host_array(lua_State *L) {
  if (luaL_testudata(L, 1, GPU_ARRAY_T))
    return luaL_argerror(L, 1, "expected host data, got a device array; copy it to the "
                         "host with a:tohost()");
  luaL_checktype(L, 1, LUA_TTABLE);
  GpuDtype dt = dtype_check(L, 2, DT_FLOAT32);
  GpuShape s;
  table_shape(L, 1, &s);
  HostArray *h = hostarray_new(L, &s, dt);
  if (h->nbytes) table_read(L, 1, &s, dt, h->data);
  return 1;
}

/* ---- (nested) tables <-> packed elements ---- */

void table_shape(lua_State *L, int idx, GpuShape *s) {
  idx = lua_absindex(L, idx);
  memset(s, 0, sizeof *s);
  int top = lua_gettop(L);
  lua_pushvalue(L, idx);
  while (lua_istable(L, -1)) {
    if (s->ndim == GPU_MAXDIM)
      luaL_error(L, "tables nested deeper than %d levels", GPU_MAXDIM);
    s->dim[s->ndim++] = (int64_t)luaL_len(L, -1);
    if (s->dim[s->ndim - 1] == 0) break;
    lua_geti(L, -1, 1);
  }
  lua_settop(L, top);
  s->size = 1;
  for (int i = 0; i < s->ndim; i++) s->size *= s->dim[i];
}

/* Where element idx[0..depth] is, as "[2][3]". */
static const char *element_path(lua_State *L, const int64_t *idx, int depth) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; i <= depth; i++) {
    lua_pushfstring(L, "[%I]", (lua_Integer)idx[i]);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

/* Reads level `level` of the table on top of the stack into *dst. */
static void read_level(lua_State *L, const GpuShape *s, int level, GpuDtype dt, char **dst,
                       int64_t *idx) {
  size_t es = dtypes[dt].size;
  int64_t n = s->dim[level];
  int t = lua_gettop(L);
  if ((int64_t)lua_rawlen(L, t) != n) {
    const char *where = level ? element_path(L, idx, level - 1) : "the table";
    luaL_error(L, "ragged table: %s has %I elements, expected %I", where,
               (lua_Integer)lua_rawlen(L, t), (lua_Integer)n);
  }
  char *p = *dst;
  for (int64_t i = 1; i <= n; i++) {
    idx[level] = i;
    int type = lua_rawgeti(L, t, i);
    if (level + 1 < s->ndim) {
      if (type != LUA_TTABLE) {
        const char *tname = luaL_typename(L, -1);
        luaL_error(L, "ragged table: element %s is a %s, expected a table",
                   element_path(L, idx, level), tname);
      }
      *dst = p;
      read_level(L, s, level + 1, dt, dst, idx);
      p = *dst;
    } else {
      const char *err;
      if (dt == DT_FLOAT32 && type == LUA_TNUMBER) *(float *)p = (float)lua_tonumber(L, -1);
      else if (dt == DT_FLOAT64 && type == LUA_TNUMBER) *(double *)p = (double)lua_tonumber(L, -1);
      else if ((err = dtype_store(L, -1, dt, p)) != NULL) {
        if (luaL_testudata(L, -1, GPU_ARRAY_T))
          luaL_error(L, "element %s is a device array: copy it to the host with a:tohost()",
                     element_path(L, idx, level));
        const char *v = luaL_tolstring(L, -1, NULL);
        luaL_error(L, "element %s (%s) %s for %s", element_path(L, idx, level), v, err,
                   dtypes[dt].name);
      }
      p += es;
    }
    lua_pop(L, 1);
  }
  *dst = p;
}

void table_read(lua_State *L, int idx, const GpuShape *s, GpuDtype dt, void *dst) {
  int64_t at[GPU_MAXDIM] = {0};
  char *p = dst;
  lua_pushvalue(L, idx);
  if (s->size > 0) read_level(L, s, 0, dt, &p, at);
  lua_pop(L, 1);
}

static void push_level(lua_State *L, const char **src, const GpuShape *s, int level, GpuDtype dt) {
  int64_t n = s->dim[level];
  lua_createtable(L, n < 1000000 ? (int)n : 0, 0);
  for (int64_t i = 1; i <= n; i++) {
    if (level + 1 < s->ndim) push_level(L, src, s, level + 1, dt);
    else { dtype_push(L, dt, *src); *src += dtypes[dt].size; }
    lua_rawseti(L, -2, i);
  }
}

void table_push(lua_State *L, const void *src, const GpuShape *s, GpuDtype dt) {
  const char *p = src;
  luaL_checkstack(L, s->ndim + 4, "nested table");
  push_level(L, &p, s, 0, dt);
}

static const luaL_Reg host_funcs[] = {
  {"empty", host_empty},
  {"zeros", host_zeros},
  {"array", host_array},
  {NULL, NULL}
};

static const luaL_Reg hostarray_methods[] = {
  {"totable", hostarray_totable},
  {"free", hostarray_free},
  {NULL, NULL}
};

static const luaL_Reg hostarray_meta[] = {
  {"__index", hostarray_index},
  {"__newindex", hostarray_newindex},
  {"__len", hostarray_len},
  {"__gc", hostarray_gc},
  {"__close", hostarray_free},
  {NULL, NULL}
};

/* Expects the gpu table on top; adds gpu.host. */
void hostarray_open(lua_State *L) {
  luaL_newmetatable(L, GPU_PINNEDPOOL_T);
  lua_pushcfunction(L, pool_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  luaL_newlib(L, host_funcs);
  lua_setfield(L, -2, "host");
  luaL_newmetatable(L, GPU_HOSTARRAY_T);
  luaL_setfuncs(L, hostarray_meta, 0);
  luaL_newlib(L, hostarray_methods);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
}
