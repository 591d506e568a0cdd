/* event.c: events ("gpu.event"), each of the device current when it was made, recorded in
 * that device's streams, and gpu.elapsed between two. */
#include "gpu.h"

typedef struct GpuEvent {
  CUevent e;
  int alive, device;
  int recorded;       /* once: gpu.elapsed of an event never recorded names it */
} GpuEvent;

#define toevent(L, i) ((GpuEvent *)luaL_checkudata(L, i, GPU_EVENT_T))

static GpuEvent *event_check(lua_State *L, int idx) {
  GpuEvent *e = toevent(L, idx);
  if (!e->alive) luaL_error(L, "attempt to use a destroyed event");
  return e;
}

/* gpu.event() */
static int gpu_event(lua_State *L) {
  errors_args(L, 0, "gpu.event");   /* CuPy's block =, disable_timing = would be dropped */
  GPU_CHECK(L, backend_get()->ensure_context());
  GpuEvent *e = lua_newuserdatauv(L, sizeof *e, 0);
  e->e = NULL;
  e->alive = e->recorded = 0;
  e->device = backend_get()->current_device();
  luaL_setmetatable(L, GPU_EVENT_T);
  GPU_CHECK(L, backend_get()->event_create(&e->e));
  e->alive = 1;
  return 1;
}

/* e:record([stream]): records e on stream (default: the default stream) */
static int event_record(lua_State *L) {
  GpuEvent *e = event_check(L, 1);
  if (lua_gettop(L) > 2)   /* (extra arguments were dropped) */
    return luaL_error(L, "e:record takes a stream or nothing, got %d argument%s", lua_gettop(L) - 1, lua_gettop(L) == 2 ? "" : "s");
  CUstream s = lua_isnoneornil(L, 2) ? NULL : stream_check(L, 2);
  int dev = s ? stream_device(L, 2) : backend_get()->current_device();
  if (s && dev != e->device)
    return luaL_error(L, "e:record: the event is of device %d, the stream of device %d",
                      e->device, dev);
  if (dev >= 0 && dev != e->device)   /* the default stream: the current device's */
    return luaL_error(L, "e:record: the event is of device %d, and device %d is current: record "
                      "it with its device current (gpu.with_device(%d, f)) or on a stream of it",
                      e->device, dev, e->device);
  GPU_CHECK(L, backend_get()->event_record(e->e, s));
  e->recorded = 1;
  lua_settop(L, 1);
  return 1;
}

static int event_synchronize(lua_State *L) {
  if (lua_gettop(L) > 1)   /* (extra arguments were dropped) */
    return luaL_error(L, "e:synchronize takes no arguments, got %d argument%s", lua_gettop(L) - 1, lua_gettop(L) == 2 ? "" : "s");
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

/* e:destroy(), which takes no argument (__close is given the error) */
static int event_destroy_method(lua_State *L) {
  errors_args(L, 1, "e:destroy");
  return event_destroy(L);
}

/* gpu.elapsed(e0, e1): milliseconds between two recorded events of one device, once both
 * are done (CUDA answers CUDA_ERROR_NOT_READY before; the CPU backend's are done at once).
 * Inside a capture, where waiting is refused, it does not wait. */
static int gpu_elapsed(lua_State *L) {
  GpuEvent *e[2] = {event_check(L, 1), event_check(L, 2)};
  errors_args(L, 2, "gpu.elapsed");   /* (an options table was dropped) */
  for (int i = 0; i < 2; i++)
    if (!e[i]->recorded)
      return luaL_error(L, "gpu.elapsed: event %d was never recorded (e:record() it first)", i + 1);
  if (e[0]->device != e[1]->device)
    return luaL_error(L, "gpu.elapsed: the events are of devices %d and %d: time two events of "
                      "one device", e[0]->device, e[1]->device);
  for (int i = 0; i < 2 && !graph_capturing; i++)
    GPU_CHECK(L, backend_get()->event_synchronize(e[i]->e));
  float ms;
  GPU_CHECK(L, backend_get()->event_elapsed(&ms, e[0]->e, e[1]->e));
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
  {"destroy", event_destroy_method},
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
