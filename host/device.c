/* device.c: devices ("gpu.device" tables), device-wide synchronization, and the
 * accounting of device bytes to Lua's garbage collector. */
#include "gpu.h"

/* [-0, +(0|1), m] NULL when id names a device, else why not (pushed). */
static const char *bad_ordinal(lua_State *L, lua_Integer id) {
  int n;
  GPU_CHECK(L, backend_get()->device_count(&n));
  if (id >= 0 && id < n) return NULL;
  return lua_pushfstring(L, "no device %I (%d device%s, numbered from 0)", id, n, n == 1 ? "" : "s");
}

static int check_ordinal(lua_State *L, int idx) {
  lua_Integer id = luaL_checkinteger(L, idx);
  const char *why = bad_ordinal(L, id);
  if (why) return luaL_argerror(L, idx, why);
  return (int)id;
}

/* gpu.device([id]): a table describing device id (default: the current device) */
static int gpu_device(lua_State *L) {
  int id;
  if (lua_isnoneornil(L, 1)) {
    GPU_CHECK(L, backend_get()->ensure_context());
    id = backend_get()->current_device();
  } else {
    id = check_ordinal(L, 1);
  }
  GpuDeviceInfo info;
  GPU_CHECK(L, backend_get()->device_info(id, &info));
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, id);
  lua_setfield(L, -2, "id");
  lua_pushstring(L, info.name);
  lua_setfield(L, -2, "name");
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, info.major);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, info.minor);
  lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "compute_capability");
  lua_pushinteger(L, (lua_Integer)info.total_memory);
  lua_setfield(L, -2, "total_memory");
  lua_pushinteger(L, info.multiprocessors);
  lua_setfield(L, -2, "multiprocessors");
  lua_pushinteger(L, info.max_threads_per_block);
  lua_setfield(L, -2, "max_threads_per_block");
  lua_pushinteger(L, info.warp_size);
  lua_setfield(L, -2, "warp_size");
  luaL_setmetatable(L, GPU_DEVICE_T);
  return 1;
}

/* The id of the device table at 1, checked as gpu.device(id) checks it. */
static int device_id(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "id");
  int isint;
  lua_Integer id = lua_tointegerx(L, -1, &isint);
  if (!isint) luaL_error(L, "device id must be an integer, got %s", luaL_tolstring(L, -1, NULL));
  const char *why = bad_ordinal(L, id);
  if (why) luaL_error(L, "%s", why);
  lua_pop(L, 1);
  return (int)id;
}

/* dev:use(): makes dev the current device */
static int device_use(lua_State *L) {
  GPU_CHECK(L, backend_get()->use_device(device_id(L)));
  lua_settop(L, 1);
  return 1;
}

/* dev:synchronize(): waits for all work on dev */
static int device_synchronize(lua_State *L) {
  int id = device_id(L), was = backend_get()->current_device();
  GPU_CHECK(L, backend_get()->use_device(id));
  GpuResult r = backend_get()->synchronize();
  if (was >= 0 && was != id) backend_get()->use_device(was);
  GPU_CHECK(L, r);
  return 0;
}

static int device_tostring(lua_State *L) {
  lua_getfield(L, 1, "id");
  lua_getfield(L, 1, "name");
  lua_getfield(L, 1, "compute_capability");
  lua_geti(L, -1, 1);
  lua_geti(L, -2, 2);
  lua_pushfstring(L, "gpu.device(%d: %s, compute capability %d.%d)", (int)lua_tointeger(L, 2),
                  lua_tostring(L, 3), (int)lua_tointeger(L, 5), (int)lua_tointeger(L, 6));
  return 1;
}

static int gpu_device_count(lua_State *L) {
  int n;
  GPU_CHECK(L, backend_get()->device_count(&n));
  lua_pushinteger(L, n);
  return 1;
}

/* gpu.synchronize(): waits for all work on the current device (cudaDeviceSynchronize) */
static int gpu_synchronize(lua_State *L) {
  GPU_CHECK(L, backend_get()->synchronize());
  return 0;
}

/* gpu.mem_info(): free and total bytes of the current device */
static int gpu_mem_info(lua_State *L) {
  size_t f, t;
  GPU_CHECK(L, backend_get()->mem_info(&f, &t));
  lua_pushinteger(L, (lua_Integer)f);
  lua_pushinteger(L, (lua_Integer)t);
  return 2;
}

/* The collector does not see device (or pinned host) bytes; a step sized by them makes a
 * loop that drops large arrays collect them as if Lua itself had allocated that much. */
void gc_account(lua_State *L, long kbytes) {
  if (kbytes > 0) lua_gc(L, LUA_GCSTEP, (int)(kbytes > (1L << 30) ? (1L << 30) : kbytes));
}

static int is_oom(GpuResult r) {
  return r.source == GPU_SRC_CUDA && r.code == CUDA_ERROR_OUT_OF_MEMORY;
}

GpuResult mem_alloc(lua_State *L, int host, void *out, size_t n) {
  const GpuBackend *be = backend_get();
  GpuResult r = host ? be->host_alloc((void **)out, n) : be->alloc((CUdeviceptr *)out, n);
  if (is_oom(r)) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    r = host ? be->host_alloc((void **)out, n) : be->alloc((CUdeviceptr *)out, n);
  }
  return r;
}

/* gpu.backend(): "cuda" or "cpu", the backend that runs this process's kernels */
static int gpu_backend(lua_State *L) {
  lua_pushstring(L, backend_get()->name);
  return 1;
}

static const luaL_Reg device_funcs[] = {
  {"backend", gpu_backend},
  {"device", gpu_device},
  {"device_count", gpu_device_count},
  {"synchronize", gpu_synchronize},
  {"mem_info", gpu_mem_info},
  {NULL, NULL}
};

static const luaL_Reg device_methods[] = {
  {"use", device_use},
  {"synchronize", device_synchronize},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void device_open(lua_State *L) {
  luaL_setfuncs(L, device_funcs, 0);
  luaL_newmetatable(L, GPU_DEVICE_T);
  luaL_newlib(L, device_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, device_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
}
