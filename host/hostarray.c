/* hostarray.c: host arrays ("gpu.hostarray"), what a:tohost() returns: page-locked
 * (pinned) host memory, 1-based flat indexing h[i] (in C order, views too), views as
 * device arrays have (view.c), #h, h:totable(), h:bytes() and gpu.host.frombytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
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

GpuLayout hostarray_layout(const HostArray *h) {
  GpuLayout l;
  l.shape = h->shape;
  memcpy(l.strides, h->strides, sizeof l.strides);
  l.offset = h->offset;
  return l;
}

static void hostarray_set_layout(HostArray *h, const GpuLayout *l) {
  h->shape = l->shape;
  memcpy(h->strides, l->strides, sizeof h->strides);
  h->offset = l->offset;
  h->nbytes = (size_t)l->shape.size * dtypes[h->dtype].size;
  h->contiguous = layout_contiguous(l);
  h->data = h->base ? (char *)h->base + l->offset * (int64_t)dtypes[h->dtype].size : NULL;
}

/* The buffer of a new array: pinned when a driver is there (fast copies), else plain. */
static void hostarray_alloc(lua_State *L, HostArray *h) {
  if (backend_get()->ensure_context().code == 0) {
    h->base = pool_take(pool_get(L), h->nbytes, &h->capacity);
    if (h->base == NULL) {
      h->capacity = h->nbytes;
      GpuResult r = mem_alloc(L, 1, &h->base, h->nbytes);
      if (r.code) { h->base = NULL; errors_raise(L, r, NULL); }
      gc_account(L, h->nbytes);
      h->accounted = 1;
    }
    h->pinned = backend_get()->pinned_host;
  } else {
    h->base = malloc(h->nbytes);
    if (h->base == NULL) luaL_error(L, "not enough memory for a host array of %I bytes",
                                    (lua_Integer)h->nbytes);
  }
  h->data = h->base;
}

HostArray *hostarray_new(lua_State *L, const GpuShape *s, GpuDtype dt) {
  array_shape_fits(L, s);
  gc_due(L);
  HostArray *h = lua_newuserdatauv(L, sizeof *h, 1);
  memset(h, 0, sizeof *h);
  luaL_setmetatable(L, GPU_HOSTARRAY_T);
  GpuLayout l;
  layout_init(&l, s);
  h->dtype = dt;
  hostarray_set_layout(h, &l);
  h->alive = 1;
  if (h->nbytes) hostarray_alloc(L, h);
  return h;
}

HostArray *hostarray_view(lua_State *L, int idx, const GpuLayout *l) {
  idx = lua_absindex(L, idx);
  HostArray *src = hostarray_check(L, idx);
  HostArray *own = src->owner ? src->owner : src;
  HostArray *v = lua_newuserdatauv(L, sizeof *v, 1);
  memset(v, 0, sizeof *v);
  luaL_setmetatable(L, GPU_HOSTARRAY_T);
  v->dtype = src->dtype;
  v->pinned = src->pinned;
  v->base = own->base;
  hostarray_set_layout(v, l);
  v->shares = src->shares || layout_expanded(l);
  if (src->owner) lua_getiuservalue(L, idx, 1);
  else lua_pushvalue(L, idx);
  lua_setiuservalue(L, -2, 1);   /* the owner lives as long as its views */
  v->owner = own;
  v->alive = 1;
  own->nviews++;
  return v;
}

int hostarray_shares(const HostArray *h) {
  GpuLayout l = hostarray_layout(h);
  return h->shares || layout_expanded(&l);
}

/* The one release path; the backend's result. A view gives back its claim on its owner. */
static GpuResult hostarray_release(lua_State *L, HostArray *h) {
  GpuResult r = GPU_OK;
  if (h->owner) {
    if (h->alive) h->owner->nviews--;
  } else if (h->base) {
    /* the collector no longer counts it (else a loop that frees what it makes would be
     * paced, and fully collected, as if it kept it) */
    if (h->accounted) gc_release(h->nbytes);
    h->accounted = 0;
    if (h->pinned) r = pool_give(L, h->base, h->capacity);
    else free(h->base);
  }
  h->data = h->base = NULL;
  h->alive = 0;
  return r;
}

static int hostarray_gc(lua_State *L) {
  GpuResult r = hostarray_release(L, tohostarray(L, 1));
  if (r.code) errors_warn(L, r, "freeing a host array");
  return 0;
}

static int hostarray_free(lua_State *L);
/* h:free(), which takes no argument (__close is given the error) */
static int hostarray_free_method(lua_State *L) {
  errors_args(L, 1, "h:free");
  return hostarray_free(L);
}

/* h:free() and __close raise what __gc can only warn of; as for device arrays, an owner
 * with live views is not freed */
static int hostarray_free(lua_State *L) {
  HostArray *h = tohostarray(L, 1);
  if (!h->alive) return 0;
  if (h->nviews > 0) lua_gc(L, LUA_GCCOLLECT, 0);
  if (h->nviews > 0)
    return luaL_error(L, "cannot free an array while %d view%s of it %s alive: free the "
                      "views first", h->nviews, h->nviews == 1 ? "" : "s",
                      h->nviews == 1 ? "is" : "are");
  if (gpu_in_finalizer(L)) {   /* its memory goes when it is collected (gpu.h) */
    if (h->owner) h->owner->nviews--;   /* (a view's pointer stays good: its owner is kept) */
    h->alive = 0;
    return 0;
  }
  GPU_CHECK(L, hostarray_release(L, h));
  return 0;
}

/* Flat element i (1-based, C order, as h[i] reads it) */
static void *element(lua_State *L, HostArray *h, int idx) {
  int isint;
  lua_Integer i = lua_tointegerx(L, idx, &isint);
  if (!isint)   /* NaN as "nan": 0/0 has the sign bit, which "%.14g" shows as "-nan" */
    luaL_error(L, "host array index must be an integer, got %s", lua_type(L, idx) != LUA_TNUMBER
               ? (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx)) : isnan(lua_tonumber(L, idx)) ? "nan" : lua_tostring(L, idx));
  if (i < 1 || i > h->shape.size)
    luaL_error(L, "index %I out of range for a host array of %I elements", i, h->shape.size);
  size_t es = dtypes[h->dtype].size;
  if (h->contiguous) return (char *)h->data + (size_t)(i - 1) * es;
  GpuLayout l = hostarray_layout(h);
  return (char *)h->base + layout_at(&l, i - 1) * (int64_t)es;
}

static void push_strides(lua_State *L, const GpuShape *s, const int64_t *strides) {
  lua_createtable(L, s->ndim, 0);
  for (int d = 0; d < s->ndim; d++) {
    lua_pushinteger(L, strides[d]);
    lua_rawseti(L, -2, d + 1);
  }
}

static int hostarray_field(lua_State *L, HostArray *h, const char *k) {
  if (strcmp(k, "pinned") == 0) lua_pushboolean(L, h->pinned);
  else if (strcmp(k, "strides") == 0) push_strides(L, &h->shape, h->strides);
  else if (strcmp(k, "offset") == 0) lua_pushinteger(L, h->offset);
  else if (strcmp(k, "base") == 0) { if (h->owner) lua_getiuservalue(L, 1, 1); else lua_pushnil(L); }
  else if (strcmp(k, "T") == 0) view_transposed(L, 1);
  else return field_push(L, k, &h->shape, h->dtype);
  return 1;
}

static int hostarray_index(lua_State *L) {
  HostArray *h = tohostarray(L, 1);
  int t = lua_type(L, 2);
  if (t == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (method_push(L, 1, k)) return 1;
    if (!h->alive) return errors_freed(L, NULL);
    if (!hostarray_field(L, h, k)) return luaL_error(L, "gpu.hostarray has no field or method '%s'", k);
    return 1;
  }
  if (t == LUA_TTABLE) return view_index(L);
  hostarray_check(L, 1);
  dtype_push(L, h->dtype, element(L, h, 2));
  return 1;
}

static int hostarray_newindex(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE) return view_assign(L);
  if (lua_type(L, 2) == LUA_TSTRING)   /* h.shape = {...}: its fields are read */
    return luaL_error(L, "cannot set field '%s' of a host array: its fields are read-only (a new "
                      "shape is h:reshape(...))", lua_tostring(L, 2));
  HostArray *h = hostarray_check(L, 1);
  if (hostarray_shares(h)) return errors_shared(L, NULL);
  void *p = element(L, h, 2);
  const char *err = dtype_store_value(L, 3, h->dtype, p);
  if (err) return luaL_error(L, "cannot store %s in a %s host array: %s",
                             errors_element(L, 3), dtypes[h->dtype].name, err);
  return 0;
}

static int hostarray_len(lua_State *L) {
  lua_pushinteger(L, hostarray_check(L, 1)->shape.size);
  return 1;
}

/* [-0, +1, m] The elements of h in C order, packed: its own memory when contiguous, else a
 * copy left on the stack (a userdata) */
const void *hostarray_packed(lua_State *L, int idx) {
  HostArray *h = hostarray_check(L, idx);
  if (h->contiguous) { lua_pushnil(L); return h->data; }
  void *buf = lua_newuserdatauv(L, h->nbytes ? h->nbytes : 1, 0);
  GpuLayout dl, sl = hostarray_layout(h);
  layout_init(&dl, &h->shape);
  strided_copy(buf, &dl, h->dtype, h->base, &sl, h->dtype);
  return buf;
}

static int hostarray_totable(lua_State *L) {
  HostArray *h = hostarray_check(L, 1);
  errors_args(L, 1, "h:totable");
  const void *p = hostarray_packed(L, 1);
  table_push(L, p, &h->shape, h->dtype);
  return 1;
}

/* h:bytes(): the elements, in C order, as a Lua string (for I/O) */
static int hostarray_bytes(lua_State *L) {
  HostArray *h = hostarray_check(L, 1);
  errors_args(L, 1, "h:bytes");
  const void *p = hostarray_packed(L, 1);
  lua_pushlstring(L, p, h->nbytes);
  return 1;
}

/* gpu.host.empty(shape [, dtype]), gpu.host.zeros(shape [, dtype]) */
static int host_empty(lua_State *L) {
  GpuShape s;
  errors_args(L, 2, "gpu.host.empty");
  shape_check(L, 1, &s);
  hostarray_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  return 1;
}

static int host_zeros(lua_State *L) {
  GpuShape s;
  errors_args(L, 2, "gpu.host.zeros");
  shape_check(L, 1, &s);
  HostArray *h = hostarray_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  if (h->nbytes) memset(h->data, 0, h->nbytes);
  return 1;
}

/* gpu.host.array(table [, dtype]) */
static int host_array(lua_State *L) {
  errors_args(L, 2, "gpu.host.array");
  if (luaL_testudata(L, 1, GPU_ARRAY_T))
    return luaL_argerror(L, 1, "expected host data, got a device array; copy it to the "
                         "host with a:tohost()");
  luaL_checktype(L, 1, LUA_TTABLE);
  table_host(L, 1, table_dtype(L, 1, 2));
  return 1;
}

void hostarray_bools(HostArray *h) {
  if (h->dtype != DT_BOOL) return;
  unsigned char *p = h->data;
  for (size_t i = 0; i < h->nbytes; i++) p[i] = p[i] != 0;
}

/* gpu.host.frombytes(s [, dtype [, shape]]): a host array holding the bytes of string s
 * (as h:bytes() gives them); the shape defaults to one dimension */
static int host_frombytes(lua_State *L) {
  size_t len;
  if (lua_type(L, 1) != LUA_TSTRING) luaL_typeerror(L, 1, "string");   /* (a number was made one) */
  errors_args(L, 3, "gpu.host.frombytes");
  const char *bytes = lua_tolstring(L, 1, &len);
  GpuDtype dt = dtype_check(L, 2, DT_FLOAT32);
  size_t es = dtypes[dt].size;
  GpuShape s = {1, {(int64_t)(len / es)}, (int64_t)(len / es)};
  if (!lua_isnoneornil(L, 3)) shape_check(L, 3, &s);
  if ((size_t)s.size * es != len)
    return luaL_error(L, "%d bytes cannot be %I %s elements (%d bytes each)", (int)len,
                      (lua_Integer)s.size, dtypes[dt].name, (int)es);
  HostArray *h = hostarray_new(L, &s, dt);
  if (len) memcpy(h->data, bytes, len);
  hostarray_bools(h);
  return 1;
}

static const luaL_Reg host_funcs[] = {
  {"empty", host_empty},
  {"zeros", host_zeros},
  {"array", host_array},
  {"frombytes", host_frombytes},
  {NULL, NULL}
};

static const luaL_Reg hostarray_methods[] = {
  {"totable", hostarray_totable},
  {"bytes", hostarray_bytes},
  {"free", hostarray_free_method},
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
