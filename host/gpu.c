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
  return 1;
}
