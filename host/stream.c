/* stream.c: streams ("gpu.stream"), each on the device that was current when it was made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

typedef struct GpuStream {
  CUstream s;
  int alive;
  int borrowed;       /* the embedding program's (stream_push_borrowed): never destroyed here */
  int device;         /* the device current when it was made */
  unsigned group;     /* the gpu.nccl.group it was last given to (coll_open_group) */
  int doomed;         /* destroyed inside a finalizer: refused now, destroyed when collected */
} GpuStream;

/* A negative index is an options table's field (lua_getfield(L, opts, "stream") left on
 * the stack): luaL_checkudata would call it 'bad argument #-1'. api: the function whose
 * option it is ("gpu.sum: "), or "". */
static GpuStream *tostream_of(lua_State *L, int idx, const char *api) {
  GpuStream *s = luaL_testudata(L, idx, GPU_STREAM_T);
  if (!s && idx < 0) {
    idx = lua_absindex(L, idx);
    luaL_error(L, "%sbad option 'stream' (gpu.stream expected, got %s)", api,
               luaL_getmetafield(L, idx, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx));
  }
  return s ? s : (GpuStream *)luaL_checkudata(L, idx, GPU_STREAM_T);
}
static GpuStream *tostream(lua_State *L, int idx) { return tostream_of(L, idx, ""); }

CUstream stream_check(lua_State *L, int idx) { return stream_named(L, idx, "", "", 0); }

/* The device of the arrays among the running call's arguments (its stack): -1 for none,
 * -2 for several devices */
static int args_device(lua_State *L) {
  int dev = -1;
  for (int i = 1, top = lua_gettop(L); i <= top; i++) {
    GpuArray *a = array_test(L, i);
    if (a) dev = dev == -1 || dev == a->device ? a->device : -2;
  }
  return dev;
}

/* [-0, +0, v] A stream of another device than the current one: the advice depends on where
 * the arrays are (with the stream, or elsewhere: making its device current would refuse them) */
static void not_here(lua_State *L, const char *api, int sdev, int dev) {
  int adev = args_device(L);
  if (adev == sdev)
    luaL_error(L, "%sa stream of device %d, and device %d is current: use it with its device "
               "current (gpu.with_device(%d, f))", api, sdev, dev, sdev);
  if (adev >= 0)
    luaL_error(L, "%sa stream of device %d, and device %d is current, with the arrays on device %d: "
               "the stream and the arrays are on different devices: use a stream of device %d "
               "(gpu.stream() made with it current)", api, sdev, dev, adev, adev);
  luaL_error(L, "%sa stream of device %d, and device %d is current: a stream takes work of its "
             "device only: run it with device %d current (gpu.with_device(%d, f)) on arrays there, or "
             "use a stream of device %d", api, sdev, dev, sdev, sdev, dev);
}

/* A live stream (of the current device when here), its errors naming prefix..name */
CUstream stream_named(lua_State *L, int idx, const char *prefix, const char *name, int here) {
  char api[96];
  snprintf(api, sizeof api, "%s%s%s", prefix, name, *prefix || *name ? ": " : "");
  GpuStream *st = tostream_of(L, idx, api);
  if (!st->alive) luaL_error(L, "%sattempt to use a destroyed stream", api);
  int dev = backend_get()->current_device();
  if (here && dev >= 0 && st->device != dev) not_here(L, api, st->device, dev);
  return st->s;
}

CUstream stream_here(lua_State *L, int idx) { return stream_named(L, idx, "", "", 1); }

void stream_in_group(lua_State *L, int idx) {
  tostream(L, idx)->group = coll_open_group();
}

int stream_device(lua_State *L, int idx) {
  stream_check(L, idx);
  return tostream(L, idx)->device;
}

void stream_push_borrowed(lua_State *L, CUstream cs) {
  GpuStream *s = lua_newuserdatauv(L, sizeof *s, 0);
  memset(s, 0, sizeof *s);   /* (group and doomed too: Lua's memory is not zeroed) */
  s->s = cs;
  s->alive = 1;
  s->borrowed = 1;
  s->device = backend_get()->current_device();
  luaL_setmetatable(L, GPU_STREAM_T);
}

/* gpu.stream(): a new stream; it orders with the default stream as CUDA's blocking
 * streams do, so a:tohost() still waits for its work */
static int gpu_stream(lua_State *L) {
  errors_args(L, 0, "gpu.stream");   /* CuPy's non_blocking = would be dropped */
  GPU_CHECK(L, backend_get()->ensure_context());
  GpuStream *s = lua_newuserdatauv(L, sizeof *s, 0);
  memset(s, 0, sizeof *s);   /* borrowed, group and doomed 0: Lua's memory is not zeroed */
  s->device = backend_get()->current_device();
  luaL_setmetatable(L, GPU_STREAM_T);
  GPU_CHECK(L, backend_get()->stream_create(&s->s));
  s->alive = 1;
  return 1;
}

static int stream_synchronize(lua_State *L) {
  if (lua_gettop(L) > 1)   /* (extra arguments were dropped) */
    return luaL_error(L, "s:synchronize takes no arguments, got %d argument%s", lua_gettop(L) - 1, lua_gettop(L) == 2 ? "" : "s");
  GPU_CHECK(L, backend_get()->stream_synchronize(stream_check(L, 1)));
  return 0;
}

/* s.device: the device it belongs to */
static int stream_index(lua_State *L) {
  GpuStream *s = tostream(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "device") == 0) { lua_pushinteger(L, s->device); return 1; }
  if (!method_push(L, 1, k)) lua_pushnil(L);   /* (methods a script made no table: none) */
  return 1;
}

/* Streams destroyed or collected while a graph records: one that joined the recording is
 * joined back when it ends (an event recorded on it), so destroying it before made CUDA
 * crash there. They are destroyed when it has ended (stream_end_capture); a list that
 * cannot grow keeps its stream alive, which is only a leak. */
static struct { CUstream *s; int n, cap; } later;

static void defer(CUstream cs) {
  if (later.n == later.cap) {
    int cap = later.cap ? 2 * later.cap : 8;
    CUstream *grown = realloc(later.s, sizeof *grown * (size_t)cap);
    if (grown == NULL) return;
    later.s = grown;
    later.cap = cap;
  }
  later.s[later.n++] = cs;
}

GpuResult stream_end_capture(void) {
  GpuResult r = GPU_OK, e;
  for (int i = 0; i < later.n; i++)
    if ((e = backend_get()->stream_destroy(later.s[i])).code && !r.code) r = e;
  later.n = 0;
  return r;
}

/* The one release path; idempotent. */
static GpuResult stream_release(GpuStream *s) {
  GpuResult r = GPU_OK;
  int live = s->alive || s->doomed;
  if (live && !s->borrowed && graph_capturing) defer(s->s);
  else if (live && !s->borrowed) r = backend_get()->stream_destroy(s->s);
  s->alive = s->doomed = 0;
  return r;
}

static int stream_gc(lua_State *L) {
  GpuResult r = stream_release(tostream(L, 1));
  if (r.code) errors_warn(L, r, "destroying a stream");
  return 0;
}

/* s:destroy() and __close raise what __gc can only warn of */
static int stream_destroy(lua_State *L) {
  GpuStream *s = tostream(L, 1);
  if (s->alive && s->group && s->group == coll_open_group())
    luaL_error(L, "s:destroy: the stream has collectives queued in the open gpu.nccl.group, "
               "which runs them at its end: destroy it after the group");
  if (s->alive && gpu_in_finalizer(L)) {   /* a call the collector interrupted may be using it */
    s->alive = 0;
    s->doomed = 1;
    return 0;
  }
  GPU_CHECK(L, stream_release(s));
  return 0;
}

/* s:destroy(), which takes no argument (__close is given the error) */
static int stream_destroy_method(lua_State *L) {
  errors_args(L, 1, "s:destroy");
  return stream_destroy(L);
}

static const luaL_Reg stream_funcs[] = {
  {"stream", gpu_stream},
  {NULL, NULL}
};

static const luaL_Reg stream_methods[] = {
  {"synchronize", stream_synchronize},
  {"destroy", stream_destroy_method},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void stream_open(lua_State *L) {
  luaL_setfuncs(L, stream_funcs, 0);
  luaL_newmetatable(L, GPU_STREAM_T);
  luaL_newlib(L, stream_methods);
  lua_setfield(L, -2, "methods");
  lua_pushcfunction(L, stream_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, stream_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, stream_destroy);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}
