/* profile.c: what Nsight shows of a script: gpu.range, gpu.range_push/pop, gpu.mark and
 * gpu.trace, through the backend's profiler hooks (NVTX on CUDA). Where the backend has no
 * profiler (the CPU backend) they do nothing, and gpu.range just calls its function. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

/* The range's guard, a to-be-closed value under f: its __close ends the range when f
 * returns, raises (after the message handler saw the error where it was raised, so an
 * uncaught one's traceback has f's frames: a pcall here lost them), or when a coroutine
 * suspended in f is closed. In a coroutine f runs under pcall too, as in gpu.with_device:
 * Lua closes a coroutine's guards that an error ended only at coroutine.close, so under
 * coroutine.resume the range stayed open. Its int says whether the range is still open. */
static int range_close(lua_State *L) {
  int *open = lua_touserdata(L, 1);
  const GpuBackend *be = backend_get();
  if (*open && be->range_pop) be->range_pop();
  *open = 0;
  return 0;
}

/* After f in gpu.range (also when f yielded: gpu.with_device allows it): f's results; an
 * error that f raised in a coroutine ends the range, then goes on */
static int range_done(lua_State *L, int status, lua_KContext ctx) {
  (void)ctx;
  if (status != LUA_OK && status != LUA_YIELD) {
    lua_pushcfunction(L, range_close);
    lua_pushvalue(L, 2);
    lua_call(L, 1, 0);
    return lua_error(L);
  }
  return lua_gettop(L) - 2;   /* above the name and the guard, closed as this returns */
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
  int nargs = lua_gettop(L) - 2;
  int *open = lua_newuserdatauv(L, sizeof *open, 0);
  *open = 0;
  luaL_setmetatable(L, "gpuhost.range");
  lua_insert(L, 2);
  lua_toclose(L, 2);
  int main = lua_pushthread(L);
  lua_pop(L, 1);
  const GpuBackend *be = backend_get();
  if (be->range_push) be->range_push(name);
  *open = 1;
  if (main) lua_callk(L, nargs, LUA_MULTRET, 0, range_done);
  else return range_done(L, lua_pcallk(L, nargs, LUA_MULTRET, 0, 0, range_done), 0);
  return range_done(L, LUA_OK, 0);
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
  luaL_newmetatable(L, "gpuhost.range");
  lua_pushcfunction(L, range_close);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
}
