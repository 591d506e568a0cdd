/* gpu.c: luaopen_gpu, which builds the gpu table from the C parts (each file's *_open)
 * and then runs the embedded lua/gpu.lua, which adds the parts written in Lua. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "gpu.h"
#include "util.h"
#include "rewrite.h"
#include "reduce.h"

/* gpu._build(): this build's embedded files (a hash), in keys of what lua/gpu.lua keeps on
 * disk; a function, so that a process that keeps nothing never hashes them */
static int gpu_build(lua_State *L) {
  char build[17];
  snprintf(build, sizeof build, "%016llx", (unsigned long long)embedded_id());
  lua_pushstring(L, build);
  return 1;
}

/* gpu.rewrite(source): the source as gpuhost reads it (the launch spelling made Lua) */
static int gpu_rewrite(lua_State *L) {
  size_t len, n;
  const char *s = luaL_checklstring(L, 1, &len);
  char *r = launch_rewrite(s, len, &n);
  if (r == NULL) {
    lua_settop(L, 1);
    return 1;
  }
  lua_pushlstring(L, r, n);
  free(r);
  return 1;
}

/* gpu._embedded(name): the text of an embedded file, or nil */
static int gpu_embedded(lua_State *L) {
  const EmbeddedFile *f = embedded_find(luaL_checkstring(L, 1));
  if (f == NULL) return 0;
  lua_pushlstring(L, f->data, f->size);
  return 1;
}

/* gpu.clock(): seconds on a monotonic clock (os.clock counts CPU time, not waiting) */
static int gpu_clock(lua_State *L) {
  struct timespec t;
  errors_args(L, 0, "gpu.clock");
  clock_gettime(CLOCK_MONOTONIC, &t);
  lua_pushnumber(L, (lua_Number)t.tv_sec + (lua_Number)t.tv_nsec * 1e-9);
  return 1;
}

/* The guard of gpu.with_device, gpu.printoptions and gpu.range (lua/gpu.lua's arg.guarded): a
 * to-be-closed table {undo, its arguments...}, armed by _guarded as it makes the change, and
 * undone once. _guarded makes the change, calls f and undoes the change in one C call, and the
 * guard's __close is C (_guard_undo): so no Lua instruction lies between the change and the
 * arming, nor between f's end (or its error) and the undo, and a debug hook that raises at
 * any Lua instruction finds the state as it was (before, an error between the two left the
 * change in place). change and undo are C functions. */
static const char ARMED = 'a';   /* the key of an armed guard's true */

/* [-0, +0, e] t[1](t[2], ..., t[#t]) for the list t at idx */
static void call_list(lua_State *L, int idx) {
  int n = (int)lua_rawlen(L, idx);
  luaL_checkstack(L, n, "guard");
  for (int i = 1; i <= n; i++) lua_rawgeti(L, idx, i);
  lua_call(L, n - 1, 0);
}

/* [-0, +0, e] the undo of the guard at idx, if it is armed (disarmed first: once) */
static void guard_undo(lua_State *L, int idx) {
  int armed = lua_rawgetp(L, idx, &ARMED) != LUA_TNIL;
  lua_pop(L, 1);
  if (!armed) return;
  lua_pushnil(L);
  lua_rawsetp(L, idx, &ARMED);
  call_list(L, idx);
}

/* gpu._guard_undo(guard): the guard's __close */
static int gpu_guard_undo(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  guard_undo(L, 1);
  return 0;
}

/* after f: the undo, then f's results, or its error raised again */
static int guarded_end(lua_State *L, int status, lua_KContext base) {
  guard_undo(L, 1);
  if (status != LUA_OK && status != LUA_YIELD) return lua_error(L);
  return lua_gettop(L) - (int)base;
}

/* gpu._guarded(guard, change, f, ...): change[1](change[2], ...) arming the guard, f(...), the
 * undo. In the main thread an error of f goes on at once (its traceback kept), the guard's
 * __close undoing; in a coroutine f runs under pcall, as Lua closes a dead coroutine's
 * variables only at coroutine.close. f may yield. */
static int gpu_guarded(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  call_list(L, 2);
  lua_pushboolean(L, 1);
  lua_rawsetp(L, 1, &ARMED);
  int nargs = lua_gettop(L) - 3, main = lua_pushthread(L);
  lua_pop(L, 1);
  if (main) {
    lua_call(L, nargs, LUA_MULTRET);
    return guarded_end(L, LUA_OK, 2);
  }
  return guarded_end(L, lua_pcallk(L, nargs, LUA_MULTRET, 0, 2, guarded_end), 2);
}

/* gpu._refill(t1, s1, t2, s2, ...): each table t made a copy of its s (raw: keys of s only),
 * in one C call (gpu.printoptions' change and its undo, as guards want them) */
static int gpu_refill(lua_State *L) {
  int n = lua_gettop(L);
  for (int t = 1; t < n; t += 2) {
    luaL_checktype(L, t, LUA_TTABLE);
    luaL_checktype(L, t + 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, t)) {   /* (clearing a field while traversing is allowed) */
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_pushnil(L);
      lua_rawset(L, t);
    }
    lua_pushnil(L);
    while (lua_next(L, t + 1)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, t);
    }
  }
  return 0;
}

static const luaL_Reg guard_funcs[] = {
  {"_guarded", gpu_guarded},
  {"_guard_undo", gpu_guard_undo},
  {"_refill", gpu_refill},
  {NULL, NULL}
};

/* [-0, +0, v] What lua/gpu.lua calls as it loads: a state without it (a program that
 * embeds gpuhost) hears so here, not from a line of gpu.lua. A sandbox may leave out io,
 * coroutine and utf8: the functions that use them fail when they are called. */
static void check_libs(lua_State *L) {
  static const char *const libs[] = {"setmetatable", "string", "table", "math", "debug", "os", NULL};
  for (int i = 0; libs[i]; i++) {
    if (lua_getglobal(L, libs[i]) != (i == 0 ? LUA_TFUNCTION : LUA_TTABLE))
      luaL_error(L, "the gpu module needs Lua's standard libraries opened first (luaL_openlibs): "
                 "'%s' is missing", libs[i]);
    lua_pop(L, 1);
  }
}

/* The tables of C functions in gpu (at index gpu) as modules too, so that Lua's argument
 * errors name their functions ('gpu.host.array', not '?': luaL_argerror looks one table
 * deep into package.loaded); not over a module of that name already loaded (false, as
 * for require, is not loaded) */
static void loaded_tables(lua_State *L, int gpu) {
  static const char *const subs[][2] = {{"host", "gpu.host"}, {"fft", "gpu.fft"}, {"nccl", "gpu.nccl"}};
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  int loaded = lua_gettop(L);
  for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
    lua_getfield(L, loaded, subs[i][1]);
    if (!lua_toboolean(L, -1) && lua_getfield(L, gpu, subs[i][0]) == LUA_TTABLE)
      lua_setfield(L, loaded, subs[i][1]);
    lua_settop(L, loaded);
  }
  lua_pop(L, 1);
}

int luaopen_gpu(lua_State *L) {
  if (backend_wanted() == NULL)   /* a typo must not silently pick a backend */
    return luaL_error(L, "GPU_BACKEND is '%s': it must be 'cuda', 'cpu', or unset (the GPU "
                      "when there is one, else the CPU)", getenv("GPU_BACKEND"));
  check_libs(L);
  lua_createtable(L, 0, 512);   /* the module's 470 names, without rehashing as they come */
  int gpu = lua_gettop(L);
  errors_open(L);
  dtype_open(L);
  device_open(L);
  array_open(L);
  hostarray_open(L);
  view_open(L);
  copy_open(L);
  ufunc_open(L);
  ops_open(L);
  reduce_open(L);
  reductions_open(L);
  scan_open(L);
  sort_open(L);
  blas_open(L);
  complex_open(L);
  fft_open(L);
  linalg_open(L);
  stream_open(L);
  event_open(L);
  program_open(L);
  kernel_open(L);
  profile_open(L);
  npy_open(L);
  npz_open(L);
  jit_open(L);
  graph_open(L);
  comm_open(L);
  lua_pushcfunction(L, gpu_clock), lua_setfield(L, gpu, "clock");
  lua_pushcfunction(L, gpu_rewrite), lua_setfield(L, gpu, "rewrite");
  lua_pushcfunction(L, gpu_embedded), lua_setfield(L, gpu, "_embedded");
  lua_pushcfunction(L, gpu_build), lua_setfield(L, gpu, "_build");
  luaL_setfuncs(L, guard_funcs, 0);
  lua_pushinteger(L, GPU_MAXOPS), lua_setfield(L, gpu, "_MAXOPS");   /* gpu.elementwise's limit */
  lua_pushinteger(L, GPU_MAXDIM), lua_setfield(L, gpu, "_MAXDIM");   /* an array's most dims */
  /* metatables for lua/gpu.lua to finish (printing) */
  lua_createtable(L, 0, 4);
  luaL_getmetatable(L, GPU_UFUNC_T);
  lua_setfield(L, -2, "ufunc");
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_setfield(L, -2, "array");
  luaL_getmetatable(L, GPU_HOSTARRAY_T);
  lua_setfield(L, -2, "hostarray");
  luaL_getmetatable(L, GPU_ERROR_T);
  lua_setfield(L, -2, "error");
  lua_setfield(L, gpu, "_meta");
  const EmbeddedFile *f = embedded_find("lua/gpu.lua");
  if (luaL_loadbuffer(L, f->data, f->size, "=[gpu] lua/gpu.lua") != LUA_OK) return lua_error(L);
  lua_pushvalue(L, gpu);
  lua_call(L, 1, 0);
  lua_settop(L, gpu);
  loaded_tables(L, gpu);
  return 1;
}
