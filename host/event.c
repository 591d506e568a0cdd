/* event.c: events ("gpu.event"), each of the device current when it was made, recorded in
 * that device's streams, and gpu.elapsed between two. */
#include "gpu.h"

typedef struct GpuEvent { CUevent e; int alive, device; } GpuEvent;

#define toevent(L, i) ((GpuEvent *)luaL_checkudata(L, i, GPU_EVENT_T))

static GpuEvent *event_check(lua_State *L, int idx) {
  GpuEvent *e = toevent(L, idx);
  if (!e->alive) luaL_error(L, "attempt to use a destroyed event");
  return e;
}

/* gpu.event() */
static int gpu_event(lua_State *L) {
  GPU_CHECK(L, backend_get()->ensure_context());
  GpuEvent *e = lua_newuserdatauv(L, sizeof *e, 0);
  e->e = NULL;
  e->alive = 0;
  e->device = backend_get()->current_device();
  luaL_setmetatable(L, GPU_EVENT_T);
  GPU_CHECK(L, backend_get()->event_create(&e->e));
  e->alive = 1;
  return 1;
}

/* e:record([stream]): records e on stream (default: the default stream) */
static int event_record(lua_State *L) {
  GpuEvent *e = event_check(L, 1);
  CUstream s = lua_isnoneornil(L, 2) ? NULL : stream_check(L, 2);
  if (s && stream_device(L, 2) != e->device)
    return luaL_error(L, "e:record: the event is of device %d, the stream of device %d",
                      e->device, stream_device(L, 2));
  GPU_CHECK(L, backend_get()->event_record(e->e, s));
  lua_settop(L, 1);
  return 1;
}

static int event_synchronize(lua_State *L) {
  GPU_CHECK(L, backend_get()->event_synchronize(event_check(L, 1)->e));
  return 0;
}

/* The one release path; idempotent. */
static GpuResult event_release(GpuEvent *e) {
  GpuResult r = e->alive ? backend_get()->event_destroy(e->e) : GPU_OK;
  e->alive = 0;
  return r;
}

static int event_gc(lua_State *L) {
  GpuResult r = event_release(toevent(L, 1));
  if (r.code) errors_warn(L, r, "destroying an event");
  return 0;
}

/* e:destroy() and __close raise what __gc can only warn of */
static int event_destroy(lua_State *L) {
  GPU_CHECK(L, event_release(toevent(L, 1)));
  return 0;
}

/* gpu.elapsed(e0, e1): milliseconds between two recorded events */
static int gpu_elapsed(lua_State *L) {
  GpuEvent *a = event_check(L, 1), *b = event_check(L, 2);
  float ms;
  GPU_CHECK(L, backend_get()->event_elapsed(&ms, a->e, b->e));
  lua_pushnumber(L, ms);
  return 1;
}

static const luaL_Reg event_funcs[] = {
  {"event", gpu_event},
  {"elapsed", gpu_elapsed},
  {NULL, NULL}
};

static const luaL_Reg event_methods[] = {
  {"record", event_record},
  {"synchronize", event_synchronize},
  {"destroy", event_destroy},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void event_open(lua_State *L) {
  luaL_setfuncs(L, event_funcs, 0);
  luaL_newmetatable(L, GPU_EVENT_T);
  luaL_newlib(L, event_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, event_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, event_destroy);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}
