/* array.c: device arrays ("gpu.array"): their memory and its lifetime (owners and the
 * views that share their memory), fields, gpu.empty and gpu.zeros, and the metamethods.
 * Views are made in view.c, copies in copy.c, arithmetic in ops.c. Device data is never
 * read from Lua without a copy. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"


/* Told by the magic number only gpuhost's C code writes (as kernel.c tells arguments):
 * cheaper than comparing metatables, which looks the registry up by name. */
GpuArray *array_test(lua_State *L, int idx) {
  GpuArray *a = lua_touserdata(L, idx);
  if (a == NULL || lua_rawlen(L, idx) != sizeof *a || a->magic != GPU_ARRAY_MAGIC) return NULL;
  return a;
}

/* [-0, +0, v] A device array, live or freed. */
static GpuArray *toarray(lua_State *L, int idx) {
  GpuArray *a = array_test(L, idx);
  if (a == NULL) luaL_typeerror(L, idx, GPU_ARRAY_T);
  return a;
}

GpuArray *array_check(lua_State *L, int idx) {
  GpuArray *a = toarray(L, idx);
  if (!a->alive) errors_freed(L, NULL);
  return a;
}

void array_here(lua_State *L, const GpuArray *a, const char *prefix, const char *name) {
  int dev = backend_get()->current_device();
  if (a->device != dev)
    luaL_error(L, "%s%s: an array on device %d, and device %d is current: run it with "
               "gpu.with_device(%d, f), or copy it here with a:to(%d)", prefix, name, a->device,
               dev, a->device, dev);
}

/* (a table whose metatable has a __name is called by it, as luaL_typeerror does: gpu.fuse's
 * traced values say what can be traced) */
int array_expected(lua_State *L, int idx, const char *name, int pos) {
  const char *what = lua_type(L, idx) == LUA_TTABLE && luaL_getmetafield(L, idx, "__name") == LUA_TSTRING
                     ? lua_tostring(L, -1) : luaL_typename(L, idx);
  return luaL_error(L, "bad argument #%d to '%s' (device array expected, got %s)", pos, name,
                    hostarray_test(L, idx) ? "a host array: copy it to the device with gpu.array(h)" : what);
}

GpuArray *array_out(lua_State *L, int idx, const char *name) {
  GpuArray *o = array_test(L, idx);
  if (o == NULL)   /* (a host array was "got userdata"), as the Lua functions say it */
    luaL_error(L, "gpu.%s: out must be a device array, got %s", name, hostarray_test(L, idx)
               ? "a host array (make a device array of it with gpu.array(h))" : luaL_typename(L, idx));
  if (!o->alive) errors_freed(L, lua_pushfstring(L, "gpu.%s out", name));
  return o;
}

GpuArray *array_operand(lua_State *L, int idx, const char *name, int pos) {
  GpuArray *a = array_test(L, idx);
  if (a == NULL) array_expected(L, idx, name, pos);
  if (!a->alive) errors_freed(L, lua_pushfstring(L, "gpu.%s argument %d", name, pos));
  array_here(L, a, "gpu.", name);
  return a;
}

GpuLayout array_layout(const GpuArray *a) {
  GpuLayout l;
  l.shape = a->shape;
  memcpy(l.strides, a->strides, sizeof l.strides);
  l.offset = a->offset;
  return l;
}

static void array_set_layout(GpuArray *a, const GpuLayout *l) {
  a->magic = GPU_ARRAY_MAGIC;
  a->header_ready = 0;
  a->shape = l->shape;
  memcpy(a->strides, l->strides, sizeof a->strides);
  a->offset = l->offset;
  a->nbytes = (size_t)l->shape.size * dtypes[a->dtype].size;
  a->contiguous = layout_contiguous(l);
  a->ptr = a->base ? a->base + (CUdeviceptr)(l->offset * (int64_t)dtypes[a->dtype].size) : 0;
}

static void array_alloc(lua_State *L, GpuArray *a) {
  if (a->nbytes == 0) return;
  GpuResult r = mem_alloc(L, 0, &a->base, a->nbytes);
  if (r.code) {
    a->base = 0;
    errors_raise(L, r, NULL);
  }
  a->ptr = a->base;
  gc_account(L, a->nbytes);
}

/* A shape an operation computed (a broadcast, an outer product, an FFT's padding) whose
 * element count passes what gpu.empty takes: an error, before its size (a product that
 * wraps around int64) sizes an allocation too small for what is written into it. */
void array_shape_fits(lua_State *L, const GpuShape *s) {
  if (shape_fits(s)) return;
  char b[200];
  shape_format(s, b, sizeof b);
  luaL_error(L, "shape %s is too large (more than 2^48 elements)", b);
}

/* registry: the metatable of arrays, under a light userdata key (cheaper than its name) */
static const char ARRAY_MT = 0;

GpuArray *array_new(lua_State *L, const GpuShape *s, GpuDtype dt) {
  array_shape_fits(L, s);
  GPU_CHECK(L, backend_get()->ensure_context());
  gc_due(L);
  /* safe empty state first: __gc of a half-made array frees nothing */
  GpuArray *a = lua_newuserdatauv(L, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &ARRAY_MT);
  lua_setmetatable(L, -2);
  GpuLayout l;
  layout_init(&l, s);
  a->dtype = dt;
  array_set_layout(a, &l);
  a->device = backend_get()->current_device();
  a->alive = 1;
  array_alloc(L, a);
  if (graph_capturing) graph_keep(L, -1);
  return a;
}

GpuArray *array_lend(lua_State *L, CUdeviceptr p, const GpuLayout *l, GpuDtype dt) {
  GPU_CHECK(L, backend_get()->ensure_context());
  GpuArray *a = lua_newuserdatauv(L, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  luaL_setmetatable(L, GPU_ARRAY_T);
  a->dtype = dt;
  a->base = p;
  a->lent = 1;
  array_set_layout(a, l);
  a->shares = layout_expanded(l);   /* a stride 0: its views (a row, an element) share too */
  a->device = backend_get()->current_device();
  a->alive = 1;
  if (graph_capturing) graph_keep(L, -1);
  return a;
}

GpuArray *array_view(lua_State *L, int idx, const GpuLayout *l) {
  idx = lua_absindex(L, idx);
  GpuArray *src = array_check(L, idx);
  GpuArray *own = src->owner ? src->owner : src;
  GpuArray *v = lua_newuserdatauv(L, sizeof *v, 1);
  memset(v, 0, sizeof *v);
  luaL_setmetatable(L, GPU_ARRAY_T);
  v->dtype = src->dtype;
  v->device = src->device;
  v->base = own->base;
  array_set_layout(v, l);
  v->shares = src->shares || layout_expanded(l);   /* a row of an expanded view shares too */
  if (src->owner) lua_getiuservalue(L, idx, 1);
  else lua_pushvalue(L, idx);
  lua_setiuservalue(L, -2, 1);   /* the owner lives as long as its views */
  v->owner = own;
  v->alive = 1;
  own->nviews++;
  return v;
}

int array_shares(const GpuArray *a) {
  GpuLayout l = array_layout(a);
  return a->shares || layout_expanded(&l);
}

/* The one release path, shared by __gc, __close and :free(); idempotent. A view gives
 * back its claim on its owner; an owner frees its memory. A lent array is dead before its
 * program's release runs, so a release that raises is not called again. */
static GpuResult array_release(GpuArray *a);
/* A doomed array (freed inside a recording, or collected while a graph or a view held it)
 * is released once no graph pins it and no view of it lives */
static GpuResult release_doomed(GpuArray *a) {
  return a->doomed && a->pins == 0 && a->nviews == 0 ? array_release(a) : GPU_OK;
}

static GpuResult array_release(GpuArray *a) {
  GpuResult r = GPU_OK;
  if (a->owner) {
    GpuArray *o = a->owner;
    if (a->alive || a->doomed) o->nviews--;
    r = release_doomed(o);   /* its last view */
  } else if (a->lent) {
    int alive = a->alive;
    CUdeviceptr base = a->base;
    a->ptr = a->base = 0;
    a->alive = 0;
    if ((alive || a->doomed) && a->release) a->release(a->release_ud, base);
  } else if (a->base) {
    r = mem_free(a->base, a->device, a->nbytes);
  }
  a->ptr = a->base = 0;
  a->alive = a->doomed = 0;
  return r;
}

/* __gc: an error here would only become a warning (manual §2.5.3), so say it as one. An
 * owner collected has no live views: they would have kept it. */
static int array_gc(lua_State *L) {
  GpuArray *a = toarray(L, 1);
  if (a->pins > 0 || a->nviews > 0) {   /* a graph collected with it (or with a view of it)
                                         * may still be launched by a finalizer */
    a->doomed = 1;
    return 0;
  }
  GpuResult r = array_release(a);
  if (r.code) errors_warn(L, r, "freeing a device array");
  return 0;
}

void array_unpin(lua_State *L, GpuArray *a) {
  GpuResult r = a->pins > 0 && --a->pins == 0 ? release_doomed(a) : GPU_OK;
  if (r.code) errors_warn(L, r, "freeing a device array");
}

int gpu_in_finalizer(lua_State *L) { return lua_gc(L, LUA_GCCOUNT, 0) < 0; }

static int array_free(lua_State *L);
/* a:free(), which takes no argument (__close is given the error) */
static int array_free_method(lua_State *L) {
  errors_args(L, 1, "a:free");
  return array_free(L);
}

/* a:free() and __close: an ordinary call, so a failure raises. Views that Lua no longer
 * reaches are collected first; one still reachable makes freeing its owner an error. */
static int array_free(lua_State *L) {
  GpuArray *a = toarray(L, 1);
  if (!a->alive) return 0;
  if (a->nviews > 0) lua_gc(L, LUA_GCCOLLECT, 0);
  /* (a library function's temporary, or its views) the graph keeps it: counted after the
   * collection, as views Lua no longer reaches do not count (before, any view refused it) */
  int doom = graph_kept_only_here(L, 1);
  if (a->pins > 0 && !doom)
    return luaL_error(L, "attempt to free an array that a graph uses (free the graph first)");
  if (a->queued > 0)
    return luaL_error(L, "attempt to free an array that a collective queued in gpu.nccl.group "
                      "uses (free it after the group)");
  if (a->nviews > 0 && doom != 2)
    return luaL_error(L, "cannot free an array while %d view%s of it %s alive: free the "
                      "views first", a->nviews, a->nviews == 1 ? "" : "s",
                      a->nviews == 1 ? "is" : "are");
  if (doom) {   /* (2 here) */
    a->doomed = 1;
    a->alive = 0;
    return 0;
  }
  if (gpu_in_finalizer(L) && !a->lent) {   /* its memory goes when it is collected (gpu.h) */
    GpuArray *o = a->owner;                /* (a view's pointer stays good: its owner is kept) */
    a->alive = 0;
    if (o) {
      o->nviews--;
      GPU_CHECK(L, release_doomed(o));
    }
    return 0;
  }
  GPU_CHECK(L, array_release(a));
  return 0;
}

/* gpu.empty(shape [, dtype]) */
static int gpu_empty(lua_State *L) {
  GpuShape s;
  errors_args(L, 2, "gpu.empty");
  shape_check(L, 1, &s);
  array_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  return 1;
}

/* gpu.zeros(shape [, dtype]) */
static int gpu_zeros(lua_State *L) {
  GpuShape s;
  errors_args(L, 2, "gpu.zeros");
  shape_check(L, 1, &s);
  GpuArray *a = array_new(L, &s, dtype_check(L, 2, DT_FLOAT32));
  if (a->nbytes) GPU_CHECK(L, backend_get()->memset0(a->ptr, a->nbytes));
  return 1;
}

static void push_strides(lua_State *L, const GpuShape *s, const int64_t *strides) {
  lua_createtable(L, s->ndim, 0);
  for (int d = 0; d < s->ndim; d++) {
    lua_pushinteger(L, strides[d]);
    lua_rawseti(L, -2, d + 1);
  }
}

/* _peek's work, on the array's device: ud its first and count */
static int peek_here(lua_State *L, void *ud) {
  lua_Integer first = ((lua_Integer *)ud)[0], count = ((lua_Integer *)ud)[1];
  GpuArray *a = array_check(L, 1);
  if (!a->contiguous) {   /* a view: peek at a C-ordered copy */
    copy_contiguous(L, 1);
    lua_replace(L, 1);
    a = array_check(L, 1);
  }
  size_t es = dtypes[a->dtype].size;
  char buf[64 * 8];
  if (count) GPU_CHECK(L, backend_get()->dtoh(buf, a->ptr + (CUdeviceptr)first * es, (size_t)count * es));
  lua_createtable(L, (int)count, 0);
  for (size_t i = 0; i < (size_t)count; i++) {
    dtype_push(L, a->dtype, buf + i * es);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* a:_peek(first, count): count elements (64 at most) from 0-based flat index first (in C
 * order), as a table */
static int array_peek(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  lua_Integer first = luaL_checkinteger(L, 2), count = luaL_checkinteger(L, 3);
  if (first < 0 || count < 0 || first > a->shape.size || count > a->shape.size - first)
    return luaL_error(L, "peek out of range");
  lua_Integer fc[2] = {first, count > 64 ? 64 : count};
  lua_settop(L, 1);
  return device_call(L, a->device, peek_here, fc);
}

/* [-0, +(0|1), e] The fields beyond what host arrays share: device, strides, offset, base, T */
static int array_field(lua_State *L, GpuArray *a, const char *k) {
  if (strcmp(k, "device") == 0) lua_pushinteger(L, a->device);
  else if (strcmp(k, "strides") == 0) push_strides(L, &a->shape, a->strides);
  else if (strcmp(k, "offset") == 0) lua_pushinteger(L, a->offset);
  else if (strcmp(k, "base") == 0) { if (a->owner) lua_getiuservalue(L, 1, 1); else lua_pushnil(L); }
  else if (strcmp(k, "T") == 0) view_transposed(L, 1);
  else return field_push(L, k, &a->shape, a->dtype);
  return 1;
}

/* a[k] or a[k] = v for a device array k: a mask (bool) or 1-based indices along the first
 * dimension (integers), through the methods lua/compose.lua gives (upvalue 1 of __index;
 * the metatable's methods for __newindex): _take_rows(a, k), _extract(a, k), _put_mask(a, k, v) */
static int array_by_array(lua_State *L, int methods, int nargs, int assign) {
  GpuArray *k = array_test(L, 2);
  char kind = dtypes[k->dtype].kind;
  if (kind != 'b' && kind != 'i' && kind != 'u')
    return luaL_error(L, "an array as an index must be a bool mask or hold 1-based integer indices, got a %s "
                      "array", dtypes[k->dtype].name);
  if (assign && kind != 'b')
    return luaL_error(L, "a[indices] = v is not supported: assign through a mask (a[mask] = v), a view, or a kernel");
  const char *m = assign ? "_put_mask" : kind == 'b' ? "_extract" : "_take_rows";
  if (lua_getfield(L, methods, m) == LUA_TNIL)   /* (a script may change the methods) */
    return luaL_error(L, "%s: the arrays' methods have no %s", assign ? "a[mask] = v" : "a[k]", m);
  for (int i = 1; i <= nargs; i++) lua_pushvalue(L, i);
  lua_call(L, nargs, assign ? 0 : 1);
  return assign ? 0 : 1;
}

/* __index: a closure over the methods table (upvalue 1), looked up with the key itself */
static int array_index(lua_State *L) {
  GpuArray *a = toarray(L, 1);
  int t = lua_type(L, 2);
  if (t == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    if (!a->alive) return errors_freed(L, NULL);
    if (!array_field(L, a, k)) return luaL_error(L, "gpu.array has no field or method '%s'", k);
    return 1;
  }
  if (t == LUA_TTABLE) return view_index(L);
  if (array_test(L, 2)) {
    lua_settop(L, 2);
    return array_by_array(L, lua_upvalueindex(1), 2, 0);
  }
  if (hostarray_test(L, 2))   /* (the words below said to index with an array: it was one) */
    return luaL_error(L, "a[h]: h is a host array: copy it to the device first, a[gpu.array(h)]");
  return luaL_error(L, "attempt to index a device array from Lua: copy it to the host "
                    "first (h = a:tohost(); h[i]), use a:item(i), take a view a[{i}], or index "
                    "with an array (a mask, or 1-based indices)");
}

static int array_newindex(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE) return view_assign(L);
  if (lua_type(L, 2) == LUA_TSTRING)   /* a.shape = {...}: its fields are read */
    return luaL_error(L, "cannot set field '%s' of a device array: its fields are read-only (a "
                      "new shape is a:reshape(...))", lua_tostring(L, 2));
  if (array_test(L, 2)) {
    lua_settop(L, 3);
    if (luaL_getmetafield(L, 1, "methods") != LUA_TTABLE)   /* (nothing pushed for nil) */
      return luaL_error(L, "a[mask] = v: getmetatable(a).methods must be a table, got %s",
                        lua_isnone(L, 4) ? "nil" : luaL_typename(L, 4));
    return array_by_array(L, 4, 3, 1);
  }
  if (hostarray_test(L, 2))   /* as a[h] reads */
    return luaL_error(L, "a[h] = v: h is a host array: copy it to the device first, a[gpu.array(h)] = v");
  return luaL_error(L, "attempt to write a device array from Lua: build the data on the "
                    "host and copy it with gpu.array(t), assign a view (a[{i}] = v), or "
                    "write it in a kernel");
}

static int array_len(lua_State *L) {
  lua_pushinteger(L, array_check(L, 1)->shape.size);
  return 1;
}

/* a:_writeable(): whether a may be written (not an expanded view or a view of one): the
 * Lua parts' outputs check it, as the C ones check array_shares */
static int array_writeable(lua_State *L) {
  lua_pushboolean(L, !array_shares(array_check(L, 1)));
  return 1;
}

/* Comparisons give arrays, which Lua's < and <= cannot return. */
static int array_compare(lua_State *L) {
  return luaL_error(L, "compare arrays with a:lt(b), a:le(b), a:gt(b), a:ge(b), a:eq(b) or "
                    "a:ne(b), which give bool arrays (Lua's < and <= give one boolean)");
}

static const luaL_Reg array_funcs[] = {
  {"empty", gpu_empty},
  {"zeros", gpu_zeros},
  {NULL, NULL}
};

static const luaL_Reg array_methods[] = {
  {"free", array_free_method},
  {"_peek", array_peek},
  {"_writeable", array_writeable},
  {NULL, NULL}
};

static const luaL_Reg array_meta[] = {
  {"__newindex", array_newindex},
  {"__len", array_len},
  {"__lt", array_compare},
  {"__le", array_compare},
  {"__gc", array_gc},
  {"__close", array_free},
  {NULL, NULL}
};

/* Expects the gpu table on top of the stack. */
void array_open(lua_State *L) {
  luaL_setfuncs(L, array_funcs, 0);
  luaL_newmetatable(L, GPU_ARRAY_T);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &ARRAY_MT);
  luaL_setfuncs(L, array_meta, 0);
  luaL_newlib(L, array_methods);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "methods");
  lua_pushcclosure(L, array_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
