/* copy.c: copies and conversions, on either side and between them: gpu.array, a:tohost,
 * a:totable, a:copy, a:contiguous, a:astype, a:fill, a:copy_, gpu.copy, and assignment
 * into views (a[key] = v). Device-side work runs the _copy ufunc (ops_copy), which
 * broadcasts and converts; host-side work is strided.c's. A copy between the host and the
 * device is one transfer when both sides are C-ordered with one dtype (asynchronous on a
 * stream when the host side is pinned); otherwise it goes through a packed temporary.
 * Copies between devices are peer.c's. */
#include <string.h>
#include "peer.h"

/* Either kind of array at idx; raises for anything else. */
static int is_device(lua_State *L, int idx, const char *what) {
  if (array_test(L, idx)) { array_check(L, idx); return 1; }
  if (hostarray_test(L, idx)) { hostarray_check(L, idx); return 0; }
  return luaL_error(L, "%s: a device or host array expected, got %s", what, luaL_typename(L, idx));
}

void copy_packed(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (is_device(L, idx, "contiguous")) {
    GpuArray *a = array_check(L, idx);
    int here = backend_get()->current_device();
    if (a->device != here) { peer_to(L, idx, here, NULL); return; }   /* as a:copy(), CuPy's */
    array_new(L, &a->shape, a->dtype);
    ops_copy(L, -1, idx, NULL);
    return;
  }
  HostArray *h = hostarray_check(L, idx);
  HostArray *c = hostarray_new(L, &h->shape, h->dtype);
  GpuLayout dl = hostarray_layout(c), sl = hostarray_layout(h);
  strided_copy(c->base, &dl, c->dtype, h->base, &sl, h->dtype);
}

void copy_contiguous(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  int dev = is_device(L, idx, "contiguous");
  if (dev ? array_check(L, idx)->contiguous : hostarray_check(L, idx)->contiguous) lua_pushvalue(L, idx);
  else copy_packed(L, idx);
}

/* [-0, +1, e] A new array of the kind, shape and dtype dt (or its own) of the array at idx. */
static void new_like(lua_State *L, int idx, int dt) {
  if (array_test(L, idx)) {
    GpuArray *a = array_check(L, idx);
    array_new(L, &a->shape, dt < 0 ? a->dtype : (GpuDtype)dt);
  } else {
    HostArray *h = hostarray_check(L, idx);
    hostarray_new(L, &h->shape, dt < 0 ? h->dtype : (GpuDtype)dt);
  }
}

/* [-0, +0, e] Host to host: src broadcast to dst's shape, converted; a source that shares
 * memory with dst in another layout (h:copy_(h.T)) is packed first, as on the device. */
static void host_assign(lua_State *L, HostArray *dst, HostArray *src) {
  GpuLayout dl = hostarray_layout(dst), sl = hostarray_layout(src);
  GpuShape r;
  if (shape_broadcast(&dl.shape, &sl.shape, &r) != 0 || r.ndim != dl.shape.ndim || r.size != dl.shape.size) {
    char a[160], b[160];
    shape_format(&sl.shape, a, sizeof a);
    shape_format(&dl.shape, b, sizeof b);
    luaL_error(L, "cannot assign an array of shape %s to one of shape %s", a, b);
  }
  if (dst->base == src->base && layout_overlap(&dl, &sl) && !layout_same(&dl, &sl)) {
    HostArray *c = hostarray_new(L, &sl.shape, src->dtype);
    GpuLayout cl = hostarray_layout(c);
    strided_copy(c->base, &cl, c->dtype, src->base, &sl, src->dtype);
    strided_copy(dst->base, &dl, dst->dtype, c->base, &cl, c->dtype);
    lua_pop(L, 1);
    return;
  }
  strided_copy(dst->base, &dl, dst->dtype, src->base, &sl, src->dtype);
}

/* [-0, +1, e] The host array at idx on the device (packed, its own dtype). */
static void upload(lua_State *L, int idx, CUstream stream) {
  HostArray *h = hostarray_check(L, idx);
  GpuArray *d = array_new(L, &h->shape, h->dtype);
  int at = lua_gettop(L);
  const void *p = hostarray_packed(L, idx);
  if (d->nbytes) {
    GpuResult r = stream && h->pinned && h->contiguous
        ? backend_get()->htod_async(d->ptr, p, d->nbytes, stream)
        : backend_get()->htod(d->ptr, p, d->nbytes);
    GPU_CHECK(L, r);
  }
  lua_settop(L, at);
}

/* [-0, +1, e] The device array at idx on the host (a new packed host array, its dtype). */
static void download(lua_State *L, int idx) {
  copy_contiguous(L, idx);
  GpuArray *c = array_check(L, -1);
  HostArray *h = hostarray_new(L, &c->shape, c->dtype);
  if (c->nbytes) GPU_CHECK(L, backend_get()->dtoh(h->data, c->ptr, c->nbytes));
  lua_remove(L, -2);
}

/* [-0, +(0|1), m] The type of the value at idx, by its __name (gpu.hostarray, not userdata) */
static const char *type_name(lua_State *L, int idx) {
  return luaL_getmetafield(L, idx, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx);
}

/* Whether the value at idx is one element's worth: a number, a boolean or a gpu.complex */
static int is_scalar(lua_State *L, int idx) {
  int t = lua_type(L, idx);
  return t == LUA_TNUMBER || t == LUA_TBOOLEAN || luaL_testudata(L, idx, GPU_COMPLEX_T) != NULL;
}

/* [-0, +0, e] The scalar at v as one element of dtype dt, at one (16 bytes: a complex128;
 * it was 8, and storing a complex128 wrote past it): dtype_store_value's rule, on either side */
static void scalar_store(lua_State *L, int v, GpuDtype dt, uint64_t one[2], const char *what) {
  one[0] = one[1] = 0;
  const char *err = dtype_store_value(L, v, dt, one);
  if (err) luaL_error(L, "%s: cannot store %s in a %s array: %s", what, errors_element(L, v),
                      dtypes[dt].name, err);
}

/* [-0, +0, e] A scalar into every element of host array h. */
static void host_fill(lua_State *L, HostArray *h, int v, const char *what) {
  uint64_t one[2];
  scalar_store(L, v, h->dtype, one, what);
  GpuShape s0 = {0, {0}, 1};
  GpuLayout dl = hostarray_layout(h), sl;
  layout_init(&sl, &s0);
  strided_copy(h->base, &dl, h->dtype, one, &sl, h->dtype);
}

/* [-0, +1, e] The array at idx seen with shape s (same size): itself, a view, or a view
 * of a packed copy. */
static void as_shape(lua_State *L, int idx, const GpuShape *s) {
  idx = lua_absindex(L, idx);
  int dev = is_device(L, idx, "copy");
  GpuLayout l = dev ? array_layout(array_check(L, idx)) : hostarray_layout(hostarray_check(L, idx)), v;
  if (l.shape.ndim == s->ndim && memcmp(l.shape.dim, s->dim, sizeof s->dim) == 0) {
    lua_pushvalue(L, idx);
    return;
  }
  if (!layout_reshape(&l, s, &v)) {
    copy_contiguous(L, idx);
    idx = lua_gettop(L);
    l = dev ? array_layout(array_check(L, idx)) : hostarray_layout(hostarray_check(L, idx));
    layout_reshape(&l, s, &v);
  }
  if (dev) array_view(L, idx, &v);
  else hostarray_view(L, idx, &v);
}

typedef struct Side { int dev; GpuArray *d; HostArray *h; GpuLayout l; GpuDtype dt; } Side;
static Side side(lua_State *L, int idx) {
  Side s;
  memset(&s, 0, sizeof s);
  s.dev = is_device(L, idx, "copy");
  if (s.dev) { s.d = array_check(L, idx); s.l = array_layout(s.d); s.dt = s.d->dtype; }
  else { s.h = hostarray_check(L, idx); s.l = hostarray_layout(s.h); s.dt = s.h->dtype; }
  return s;
}

static void check_writable(lua_State *L, const Side *s) {
  if (s->dev ? array_shares(s->d) : hostarray_shares(s->h)) errors_shared(L, NULL);
}

/* The one transfer whose both sides are C-ordered with one dtype. */
static GpuResult direct(const Side *d, const Side *s, size_t n, CUstream stream) {
  const GpuBackend *be = backend_get();
  if (!d->dev && !s->dev) { memmove(d->h->data, s->h->data, n); return GPU_OK; }
  if (d->dev && s->dev) return be->dtod_async(d->d->ptr, s->d->ptr, n, stream);
  if (d->dev) return stream && s->h->pinned ? be->htod_async(d->d->ptr, s->h->data, n, stream)
                                            : be->htod(d->d->ptr, s->h->data, n);
  return stream && d->h->pinned ? be->dtoh_async(d->h->data, s->d->ptr, n, stream)
                                : be->dtoh(d->h->data, s->d->ptr, n);
}

static void check_sizes(lua_State *L, const Side *d, const Side *s, const char *what) {
  if (d->l.shape.size != s->l.shape.size)
    luaL_error(L, "%s: %I element%s into an array of %I", what, (lua_Integer)s->l.shape.size,
               s->l.shape.size == 1 ? "" : "s", (lua_Integer)d->l.shape.size);
}

typedef struct Transfer { Side d, s; CUstream stream; int dst, src; } Transfer;

/* transfer_on's work on the arrays' device, checked (ud: a Transfer) */
static int transfer_here(lua_State *L, void *ud) {
  Transfer *t = ud;
  Side d = t->d, s = t->s;
  int dst = t->dst, src = t->src;
  CUstream stream = t->stream;
  if (graph_capturing && d.dev) graph_keep(L, dst);   /* a graph keeps what it copies */
  if (graph_capturing && s.dev) graph_keep(L, src);
  size_t n = (size_t)d.l.shape.size * dtypes[d.dt].size;
  /* cuMemcpy does not promise a copy between overlapping ranges: those go through ops_copy */
  int apart = !d.dev || !s.dev || d.d->base != s.d->base || !layout_overlap(&d.l, &s.l);
  if (n == 0 || (d.dt == s.dt && layout_contiguous(&d.l) && layout_contiguous(&s.l) && (apart || d.d->ptr == s.d->ptr))) {
    if (n && apart) GPU_CHECK(L, direct(&d, &s, n, stream));   /* (else nothing, or the same elements) */
  } else if (d.dev) {                /* to the device: upload packed, then convert there */
    if (!s.dev && graph_capturing)     /* the upload would happen now, the conversion at replays */
      graph_refuse(L, "a copy from the host (%s into %s%s) cannot be recorded: copies from the host happen at "
                   "once; make the host array match first (%s)", dtypes[s.dt].name, dtypes[d.dt].name, s.dt == d.dt ?
                   ", not both C-ordered" : "", s.dt == d.dt ? "h:copy(), into a C-ordered array" : "h:astype");
    if (!s.dev) { upload(L, src, NULL); src = lua_gettop(L); }
    as_shape(L, src, &d.l.shape);
    ops_copy(L, dst, -1, stream);
  } else if (s.dev) {                /* to the host: convert there, then download */
    as_shape(L, src, &d.l.shape);
    GpuArray *c = array_new(L, &d.l.shape, d.dt);
    ops_copy(L, -1, -2, stream);
    HostArray *packed = d.h->contiguous ? d.h : hostarray_new(L, &d.l.shape, d.dt);
    GPU_CHECK(L, backend_get()->dtoh(packed->data, c->ptr, n));
    if (packed != d.h) host_assign(L, d.h, packed);
  } else {
    as_shape(L, src, &d.l.shape);
    host_assign(L, d.h, hostarray_check(L, -1));
  }
  return lua_gettop(L);
}

/* [-0, +0, e] dst (at dst) = src (at src), element for element in C order (the same
 * size), converted to dst's dtype; either may be a device or a host array. Devices arrays
 * on another device than the current one are copied there (made current meanwhile); two
 * devices make a peer copy, of a packed copy converted on dst's device where they differ
 * (a stream needs no such step). sidx: the stream's index when there is one; what: the
 * user's call. */
static void transfer_on(lua_State *L, int dst, int src, CUstream stream, int sidx, const char *what) {
  dst = lua_absindex(L, dst);
  src = lua_absindex(L, src);
  int top = lua_gettop(L);
  Side d = side(L, dst), s = side(L, src);
  if (d.dev && s.dev && d.d->device != s.d->device) {
    check_writable(L, &d);           /* (an expanded view on the other device too) */
    check_sizes(L, &d, &s, what);
    if (graph_capturing) graph_keep(L, dst), graph_keep(L, src);
    if (stream || (d.dt == s.dt && layout_contiguous(&d.l) && layout_contiguous(&s.l))) {
      peer_copy_into(L, dst, src, stream, sidx, what);
    } else if (d.l.shape.size) {
      peer_to(L, src, d.d->device, NULL);   /* then as a copy on dst's device */
      transfer_on(L, dst, -1, NULL, 0, what);
    }
    lua_settop(L, top);
    return;
  }
  int dev = d.dev ? d.d->device : s.dev ? s.d->device : -1;
  if (stream && sidx && dev >= 0 && stream_device(L, sidx) != dev)   /* the arrays' device's */
    luaL_error(L, "%s: the stream must be of the arrays' device %d, got one of device %d",
               what, dev, stream_device(L, sidx));
  check_sizes(L, &d, &s, what);   /* (checked before another device is made current) */
  check_writable(L, &d);
  Transfer t = {d, s, stream, dst, src};
  if (dev >= 0) device_call(L, dev, transfer_here, &t);
  else transfer_here(L, &t);
  lua_settop(L, top);
}


void copy_assign(lua_State *L, int dst, int v, const char *what) {
  dst = lua_absindex(L, dst);
  v = lua_absindex(L, v);
  int top = lua_gettop(L);
  if (!is_scalar(L, v) && !array_test(L, v) && !hostarray_test(L, v))
    luaL_error(L, "%s: cannot assign a %s to an array", what, luaL_typename(L, v));
  int host = hostarray_test(L, v) != NULL;   /* (a scalar may become one below) */
  if (is_device(L, dst, "assignment")) {
    GpuArray *d = array_check(L, dst), *src = array_test(L, v);   /* (not gpu.copy's words) */
    if (src && src->device != d->device) luaL_error(L, "%s: an array of device %d into one of device %d: copy it there first (v:to(%d))", what, src->device, d->device, d->device);
    array_here(L, d, "", what);
    if (array_shares(d)) errors_shared(L, what);
    if (is_scalar(L, v)) {   /* checked by the host's rule; then a kernel's argument, */
      uint64_t one[2];       /* but a gpu.complex and a uint64's bits: one element copied */
      scalar_store(L, v, d->dtype, one, what);
      if (lua_type(L, v) == LUA_TUSERDATA || (dtypes[d->dtype].kind == 'u' && lua_tonumber(L, v) < 0)) {
        GpuShape s0 = {0, {0}, 1};
        memcpy(hostarray_new(L, &s0, d->dtype)->data, one, dtypes[d->dtype].size);
        v = lua_gettop(L);
      }
    }
    if (host && graph_capturing) {   /* as gpu.copy: at once or refused (an upload now and a */
      GpuShape *hs = &hostarray_check(L, v)->shape;   /* copy at replays writes today's values) */
      if (hs->ndim != d->shape.ndim || memcmp(hs->dim, d->shape.dim, sizeof hs->dim[0] * (size_t)hs->ndim))
        graph_refuse(L, "%s: a host array broadcast to the destination's shape cannot be recorded: copies "
                     "from the host happen at once; give it the destination's shape first", what);
      transfer_on(L, dst, v, NULL, 0, what);
    } else {
      if (hostarray_test(L, v)) { upload(L, v, NULL); v = lua_gettop(L); }
      ops_copy(L, dst, v, NULL);
    }
  } else {
    HostArray *h = hostarray_check(L, dst);
    if (hostarray_shares(h)) errors_shared(L, what);
    if (is_scalar(L, v)) {
      host_fill(L, h, v, what);
    } else {
      if (array_test(L, v)) download(L, v);
      else lua_pushvalue(L, v);
      host_assign(L, h, hostarray_check(L, -1));
    }
  }
  lua_settop(L, top);
}

/* [-0, +1, e] The stream of the options at idx ({stream = s}; nil or none: no options),
 * pushed (nil when none) and returned; name: the user's call */
CUstream copy_stream_option(lua_State *L, int idx, const char *name) {
  idx = lua_absindex(L, idx);
  if (lua_isnoneornil(L, idx)) { lua_pushnil(L); return NULL; }
  if (!lua_istable(L, idx))   /* (a number or a string there was ignored) */
    luaL_typeerror(L, idx, "options table ({stream = s})");
  errors_options(L, idx, name, "stream");
  if (lua_getfield(L, idx, "stream") == LUA_TNIL) return NULL;
  return stream_named(L, -1, name, "", 0);   /* (of the array's device: checked by the copy) */
}

/* gpu.array(src [, dtype]): a new device array holding src, a (nested) Lua table, a host
 * array or a device array (of any device), converted to dtype when one is given */
static int gpu_array(lua_State *L) {
  errors_args(L, 2, "gpu.array");
  if (lua_istable(L, 1)) {
    GpuDtype dt = table_dtype(L, 1, 2);
    GpuShape s;
    table_shape(L, 1, &s);
    size_t n = (size_t)s.size * dtypes[dt].size;
    void *buf = lua_newuserdatauv(L, n ? n : 1, 0);   /* collected even if reading raises */
    table_read(L, 1, &s, dt, buf);
    GpuArray *a = array_new(L, &s, dt);
    if (n) GPU_CHECK(L, backend_get()->htod(a->ptr, buf, n));
    return 1;
  }
  if (!array_test(L, 1) && !hostarray_test(L, 1))
    return luaL_argerror(L, 1, lua_pushfstring(L, "table or host array expected, got %s",
                                               luaL_typename(L, 1)));
  Side s = side(L, 1);
  GpuDtype dt = dtype_check(L, 2, s.dt);
  array_new(L, &s.l.shape, dt);
  transfer_on(L, -1, 1, NULL, 0, "gpu.array");
  return 1;
}

/* a:tohost([h] [, {stream = s}]): a new host array (pinned memory) holding a copy, or the
 * copy into host array h (of a's size and dtype); waits for the work before it, unless a
 * stream is given and h is pinned: then it is queued on that stream */
static int array_tohost(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  int top = lua_gettop(L);
  while (top > 1 && lua_isnil(L, top)) top--;   /* a:tohost({stream = s}, nil): no h */
  lua_settop(L, top);
  if (top > 3) luaL_error(L, "a:tohost takes a host array and an options table, got %d arguments", top - 1);
  int opt = top == 3 || (top == 2 && lua_istable(L, 2)) ? top : 0, h = top > 1 && opt != 2 && !lua_isnil(L, 2);
  if (h) hostarray_check(L, 2);   /* a host array, or an error naming what came */
  CUstream stream = opt ? copy_stream_option(L, opt, "a:tohost") : NULL;   /* a stream alone was dropped */
  if (stream && stream_device(L, -1) != a->device)   /* (the copy makes a's device current) */
    luaL_error(L, "a:tohost: the stream must be of the array's device %d, got one of device %d",
               a->device, stream_device(L, -1));
  if (h) {
    HostArray *ha = hostarray_check(L, 2);
    if (ha->dtype != a->dtype || ha->shape.size != a->shape.size)
      return luaL_argerror(L, 2, lua_pushfstring(L, "host array of %I %s elements expected",
                           (lua_Integer)a->shape.size, dtypes[a->dtype].name));
    lua_pushvalue(L, 2);
  } else {
    hostarray_new(L, &a->shape, a->dtype);
  }
  transfer_on(L, -1, 1, stream, 0, "a:tohost");
  return 1;
}

static int totable_here(lua_State *L, void *ud) {
  (void)ud;
  download(L, 1);
  GpuArray *a = array_check(L, 1);
  table_push(L, hostarray_check(L, -1)->data, &a->shape, a->dtype);
  return 1;
}

/* a:totable(): a (nested) Lua table */
static int array_totable(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  errors_args(L, 1, "a:totable");
  return device_call(L, a->device, totable_here, NULL);
}

/* The user's name of method m of the array at 1: "a:m" or "h:m" */
#define METHOD(L, m) (array_test(L, 1) ? "a:" m : "h:" m)

/* a:copy(): a new C-ordered array (of the same kind) with the same contents */
static int copy_copy(lua_State *L) {
  is_device(L, 1, "copy");   /* made on the current device, as CuPy's a.copy() */
  errors_args(L, 1, METHOD(L, "copy"));
  new_like(L, 1, -1);
  transfer_on(L, -1, 1, NULL, 0, METHOD(L, "copy"));
  return 1;
}

/* a:astype(dtype): a new array of dtype holding a's elements converted (float to integer
 * truncates and saturates; NaN gives 0) */
static int copy_astype(lua_State *L) {
  int dev = is_device(L, 1, "astype");
  errors_args(L, 2, METHOD(L, "astype"));
  int dt = lua_isnoneornil(L, 2) ? luaL_argerror(L, 2, "dtype expected") : (int)dtype_check(L, 2, DT_FLOAT32);
  if (dev && (int)array_check(L, 1)->dtype != dt) array_here(L, array_check(L, 1), "a:", "astype");   /* a kernel's */
  new_like(L, 1, dt);
  transfer_on(L, -1, 1, NULL, 0, METHOD(L, "astype"));
  return 1;
}

/* a:fill(v): every element of a (a view too) set to v; returns a */
static int copy_fill(lua_State *L) {
  is_device(L, 1, "fill");
  errors_args(L, 2, METHOD(L, "fill"));
  if (!is_scalar(L, 2))
    return luaL_argerror(L, 2, lua_pushfstring(L, "number, boolean or gpu.complex expected, got %s",
                                               type_name(L, 2)));
  copy_assign(L, 1, 2, METHOD(L, "fill"));
  lua_settop(L, 1);
  return 1;
}

/* a:copy_(src): a's elements from src (a device or host array, a Lua table, or for raw
 * bytes a string) of the same size, in C order, converted to a's dtype; returns a */
static int copy_into(lua_State *L) {
  int dev = is_device(L, 1, "copy_");
  const char *name = METHOD(L, "copy_");
  errors_args(L, 2, name);
  GpuLayout l = dev ? array_layout(array_check(L, 1)) : hostarray_layout(hostarray_check(L, 1));
  GpuDtype dt = dev ? array_check(L, 1)->dtype : hostarray_check(L, 1)->dtype;
  lua_settop(L, 2);
  if (lua_type(L, 2) == LUA_TSTRING) {
    size_t len;
    const char *bytes = lua_tolstring(L, 2, &len);
    size_t want = (size_t)l.shape.size * dtypes[dt].size;
    if (len != want)
      return luaL_error(L, "%s: a string of %I bytes into %I bytes of %s", name, (lua_Integer)len,
                        (lua_Integer)want, dtypes[dt].name);
    HostArray *h = hostarray_new(L, &l.shape, dt);
    if (len) memcpy(h->data, bytes, len);
    hostarray_bools(h);
  } else if (lua_istable(L, 2)) {
    table_host(L, 2, dt);
  } else if (array_test(L, 2) || hostarray_test(L, 2)) {
    is_device(L, 2, name);   /* (a freed one raises) */
    lua_pushvalue(L, 2);
  } else {
    return luaL_error(L, "%s: a device or host array, a table or a string expected, got %s", name,
                      type_name(L, 2));
  }
  transfer_on(L, 1, 3, NULL, 0, name);
  lua_settop(L, 1);
  return 1;
}

/* gpu.copy(dst, src [, {stream = s}]): dst's elements from src (the same size, C order,
 * converted to dst's dtype), either being a device or a host array; asynchronous on s when
 * both are C-ordered with one dtype and the host side is pinned. Returns dst. */
static int gpu_copy(lua_State *L) {
  is_device(L, 1, "gpu.copy");
  is_device(L, 2, "gpu.copy");
  errors_args(L, 3, "gpu.copy");
  lua_settop(L, 3);
  CUstream s = copy_stream_option(L, 3, "gpu.copy");   /* (at 4) */
  transfer_on(L, 1, 2, s, s ? 4 : 0, "gpu.copy");
  lua_settop(L, 1);
  return 1;
}

static const luaL_Reg copy_funcs[] = {{"array", gpu_array}, {"copy", gpu_copy}, {NULL, NULL}};
static const luaL_Reg device_methods[] = {{"tohost", array_tohost}, {"totable", array_totable}, {NULL, NULL}};

static const luaL_Reg both_methods[] = {
  {"copy", copy_copy},
  {"astype", copy_astype},
  {"fill", copy_fill},
  {"copy_", copy_into},
  {NULL, NULL}
};

/* Expects the gpu table on top (array_open and hostarray_open done). */
void copy_open(lua_State *L) {
  luaL_setfuncs(L, copy_funcs, 0);
  const char *types[] = {GPU_ARRAY_T, GPU_HOSTARRAY_T};
  for (int i = 0; i < 2; i++) {
    luaL_getmetatable(L, types[i]);
    lua_getfield(L, -1, "methods");
    luaL_setfuncs(L, both_methods, 0);
    if (i == 0) luaL_setfuncs(L, device_methods, 0), peer_open(L);
    lua_pop(L, 2);
  }
}
