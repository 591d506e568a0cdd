/* stream.c: streams ("gpu.stream") and events ("gpu.event"), and gpu.elapsed. */
#include "gpu.h"

typedef struct GpuStream { CUstream s; int alive; } GpuStream;
typedef struct GpuEvent { CUevent e; int alive; } GpuEvent;

#define tostream(L, i) ((GpuStream *)luaL_checkudata(L, i, GPU_STREAM_T))
#define toevent(L, i) ((GpuEvent *)luaL_checkudata(L, i, GPU_EVENT_T))

CUstream stream_check(lua_State *L, int idx) {
  GpuStream *s = tostream(L, idx);
  if (!s->alive) luaL_error(L, "attempt to use a destroyed stream");
  return s->s;
}

static GpuEvent *event_check(lua_State *L, int idx) {
  GpuEvent *e = toevent(L, idx);
  if (!e->alive) luaL_error(L, "attempt to use a destroyed event");
  return e;
}

/* gpu.stream(): a new stream; it orders with the default stream as CUDA's blocking
 * streams do, so a:tohost() still waits for its work */
static int gpu_stream(lua_State *L) {
  GPU_CHECK(L, cuda_ensure_context());
  GpuStream *s = lua_newuserdatauv(L, sizeof *s, 0);
  s->s = NULL;
  s->alive = 0;
  luaL_setmetatable(L, GPU_STREAM_T);
  GPU_CHECK(L, cuda_stream_create(&s->s));
  s->alive = 1;
  return 1;
}

static int stream_synchronize(lua_State *L) {
  GPU_CHECK(L, cuda_stream_synchronize(stream_check(L, 1)));
  return 0;
}

static int stream_gc(lua_State *L) {
  GpuStream *s = tostream(L, 1);
  if (s->alive) cuda_stream_destroy(s->s);
  s->alive = 0;
  return 0;
}

/* gpu.event() */
static int gpu_event(lua_State *L) {
  GPU_CHECK(L, cuda_ensure_context());
  GpuEvent *e = lua_newuserdatauv(L, sizeof *e, 0);
  e->e = NULL;
  e->alive = 0;
  luaL_setmetatable(L, GPU_EVENT_T);
  GPU_CHECK(L, cuda_event_create(&e->e));
  e->alive = 1;
  return 1;
}

/* e:record([stream]): records e on stream (default: the default stream) */
static int event_record(lua_State *L) {
  GpuEvent *e = event_check(L, 1);
  CUstream s = lua_isnoneornil(L, 2) ? NULL : stream_check(L, 2);
  GPU_CHECK(L, cuda_event_record(e->e, s));
  lua_settop(L, 1);
  return 1;
}

static int event_synchronize(lua_State *L) {
  GPU_CHECK(L, cuda_event_synchronize(event_check(L, 1)->e));
  return 0;
}

static int event_gc(lua_State *L) {
  GpuEvent *e = toevent(L, 1);
  if (e->alive) cuda_event_destroy(e->e);
  e->alive = 0;
  return 0;
}

/* gpu.elapsed(e0, e1): milliseconds between two recorded events */
static int gpu_elapsed(lua_State *L) {
  GpuEvent *a = event_check(L, 1), *b = event_check(L, 2);
  float ms;
  GPU_CHECK(L, cuda_event_elapsed(&ms, a->e, b->e));
  lua_pushnumber(L, ms);
  return 1;
}

static const luaL_Reg stream_funcs[] = {
  {"stream", gpu_stream},
  {"event", gpu_event},
  {"elapsed", gpu_elapsed},
  {NULL, NULL}
};

static const luaL_Reg stream_methods[] = {
  {"synchronize", stream_synchronize},
  {"destroy", stream_gc},
  {NULL, NULL}
};

static const luaL_Reg event_methods[] = {
  {"record", event_record},
  {"synchronize", event_synchronize},
  {"destroy", event_gc},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void stream_open(lua_State *L) {
  luaL_setfuncs(L, stream_funcs, 0);
  luaL_newmetatable(L, GPU_STREAM_T);
  luaL_newlib(L, stream_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, stream_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, stream_gc);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
  luaL_newmetatable(L, GPU_EVENT_T);
  luaL_newlib(L, event_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, event_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, event_gc);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}
