/* profile.c: what Nsight shows of a script: gpu.range, gpu.range_push/pop, gpu.mark and
 * gpu.trace, through the backend's profiler hooks (NVTX on CUDA). Where the backend has no
 * profiler (the CPU backend) they do nothing, and gpu.range just calls its function. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

/* After f in gpu.range: the range closes, and f's results or its error go on. Also the
 * continuation of f when it yielded (a coroutine), as gpu.with_device allows. */
static int range_done(lua_State *L, int status, lua_KContext ctx) {
  (void)ctx;
  const GpuBackend *be = backend_get();
  if (be->range_pop) be->range_pop();
  if (status != LUA_OK && status != LUA_YIELD) return lua_error(L);
  return lua_gettop(L) - 1;
}

/* gpu.range(name, f, ...): f(...) inside a range named name (f a function or a callable
 * value); its results. The range is closed also when f raises, and the error goes on. */
static int gpu_range(lua_State *L) {
  const char *name = lua_tostring(L, 1);
  if (name == NULL)   /* (named as its callers know it, also where it is called as a field) */
    return luaL_error(L, "bad argument #1 to 'gpu.range' (string expected, got %s)",
                      lua_isnone(L, 1) ? "no value" : luaL_typename(L, 1));
  if (!lua_isfunction(L, 2)) {   /* (or a callable value: gpu.sqrt was refused) */
    if (luaL_getmetafield(L, 2, "__call") == LUA_TNIL)
      return luaL_error(L, "bad argument #2 to 'gpu.range' (function or callable value expected, got %s)",
                        lua_isnone(L, 2) ? "no value" : luaL_typename(L, 2));
    lua_pop(L, 1);
  }
  const GpuBackend *be = backend_get();
  if (be->range_push) be->range_push(name);
  return range_done(L, lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, range_done), 0);
}

/* gpu.range_push(name), gpu.range_pop(): a range around what lies between them */
static int gpu_range_push(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const GpuBackend *be = backend_get();
  if (be->range_push) be->range_push(name);
  return 0;
}

static int gpu_range_pop(lua_State *L) {
  (void)L;
  const GpuBackend *be = backend_get();
  if (be->range_pop) be->range_pop();
  return 0;
}

/* gpu.mark(name): an instant on the timeline */
static int gpu_mark(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const GpuBackend *be = backend_get();
  if (be->mark) be->mark(name);
  return 0;
}

/* gpu.trace(on): names every kernel launch (by the kernel's name) and every copy (by its
 * direction and size) as a range, or stops; GPUHOST_TRACE=1 turns it on from the start */
static int gpu_trace(lua_State *L) {
  luaL_checktype(L, 1, LUA_TBOOLEAN);
  const GpuBackend *be = backend_get();
  if (be->trace) be->trace(lua_toboolean(L, 1));
  return 0;
}

static const luaL_Reg profile_funcs[] = {
  {"range", gpu_range},
  {"range_push", gpu_range_push},
  {"range_pop", gpu_range_pop},
  {"mark", gpu_mark},
  {"trace", gpu_trace},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void profile_open(lua_State *L) {
  luaL_setfuncs(L, profile_funcs, 0);
}
