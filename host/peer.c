/* peer.c: copies between devices: a:to, and the peer copy under every copy between device
 * arrays of two devices (copy.c's). A peer copy moves the C-ordered bytes of one dtype: a
 * view is packed on its own device first, a conversion is made on the destination's. */
#include "peer.h"

/* [-0, +1, e] A new C-ordered copy of the device array at idx (its dtype) on device dev: a
 * view is packed on its device first; the peer copy is queued on stream (of idx's device;
 * NULL: its default stream). */
typedef struct NewOn { const GpuShape *s; GpuDtype dt; } NewOn;
static int new_here(lua_State *L, void *ud) {
  array_new(L, ((NewOn *)ud)->s, ((NewOn *)ud)->dt);
  return lua_gettop(L);
}

GpuArray *array_new_on(lua_State *L, int dev, const GpuShape *s, GpuDtype dt) {
  NewOn k = {s, dt};
  device_call(L, dev, new_here, &k);
  return array_check(L, -1);
}

void device_done(lua_State *L, int was, GpuResult r) {
  GpuResult back = device_leave(was);   /* (back before r is raised) */
  GPU_CHECK(L, r.code ? r : back);
}

static int packed_here(lua_State *L, void *ud) {
  copy_packed(L, *(int *)ud);
  return lua_gettop(L);
}

void peer_to(lua_State *L, int idx, int dev, CUstream stream) {
  idx = lua_absindex(L, idx);
  GpuArray *a = array_check(L, idx);
  int top = lua_gettop(L);
  if (!a->contiguous) {
    device_call(L, a->device, packed_here, &idx);
    idx = lua_gettop(L);
    a = array_check(L, idx);
  }
  GpuArray *c = array_new_on(L, dev, &a->shape, a->dtype);
  size_t n = (size_t)a->shape.size * dtypes[a->dtype].size;
  if (n) {
    int was = device_enter(L, a->device);   /* (back before an error is raised) */
    device_done(L, was, backend_get()->peer_copy(c->ptr, dev, a->ptr, a->device, n, stream));
  }
  if (lua_gettop(L) > top + 1) lua_replace(L, top + 1);   /* (over the packed view) */
}

/* [-0, +0, e] dst = src (at those indices), device arrays on two devices of n elements: one
 * peer copy on stream (sidx: its index), which takes two C-ordered arrays of one dtype (what
 * names the user's call). */
void peer_copy_into(lua_State *L, int dst, int src, CUstream stream, int sidx, const char *what) {
  GpuArray *d = array_check(L, dst), *s = array_check(L, src);
  if (stream && sidx && stream_device(L, sidx) != s->device)
    luaL_error(L, "%s: the stream must be of the source's device %d, got one of device %d", what,
               s->device, stream_device(L, sidx));
  if (d->dtype != s->dtype)
    luaL_error(L, "%s: a copy between devices (%d to %d) on a stream keeps the dtype, got %s to %s: "
               "copy without the stream, or make a:astype(...) on one device first", what, s->device,
               d->device, dtypes[s->dtype].name, dtypes[d->dtype].name);
  if (!s->contiguous || !d->contiguous)
    luaL_error(L, "%s: a copy between devices (%d to %d) on a stream takes C-ordered arrays, and the "
               "%s is a view that is not: copy without the stream, or make it C-ordered on its device "
               "first", what, s->device, d->device, s->contiguous ? "destination" : "source");
  size_t n = (size_t)d->shape.size * dtypes[d->dtype].size;
  if (!n) return;
  int was = device_enter(L, s->device);   /* (the current device again before an error) */
  device_done(L, was, backend_get()->peer_copy(d->ptr, d->device, s->ptr, s->device, n, stream));
}

/* a:to(dev [, {stream = s}]): a copy of a on device dev (a number or gpu.device(i)), a peer
 * copy queued on s (of a's device; default: its default stream); a itself if on dev already */
static int array_to(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  int dev = device_ordinal(L, 2);
  errors_args(L, 3, "a:to");
  lua_settop(L, 3);
  CUstream s = copy_stream_option(L, 3, "a:to");
  if (a->device == dev) { lua_settop(L, 1); return 1; }
  if (s && stream_device(L, 4) != a->device)
    return luaL_error(L, "a:to: the stream must be of the source's device %d, got one of device %d",
                      a->device, stream_device(L, 4));
  peer_to(L, 1, dev, s);
  return 1;
}

static const luaL_Reg peer_methods[] = {{"to", array_to}, {NULL, NULL}};

/* Expects the array metatable's methods table on top. */
void peer_open(lua_State *L) {
  luaL_setfuncs(L, peer_methods, 0);
}
