/* profile.c: what Nsight shows of a script: gpu.range, gpu.range_push/pop, gpu.mark and
 * gpu.trace, through the backend's profiler hooks (NVTX on CUDA). Where the backend has no
 * profiler (the CPU backend) they do nothing. gpu.range, a range around a call, is Lua's
 * (gpu.lua: range_push, then range_pop as the call's guard). */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

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
