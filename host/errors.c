/* errors.c: the module's error policy, in one place.
 *  - Argument mistakes raise plain messages (luaL_argerror, luaL_error).
 *  - Every CUDA driver, NVRTC or library-loading failure raises an error object: a table
 *    with fields code, name, message, call (and log for compile errors) whose metatable
 *    "gpu.error" gives tostring(err) == name .. ": " .. message and lets `"x" .. err`
 *    concatenate. The message of a CUDA failure is the description cuda.h documents. */
#include <string.h>
#include "gpu.h"

static const char *host_error_name(int code) {
  switch (code) {
    case GPU_ERR_NO_DRIVER: return "GPUHOST_NO_DRIVER";
    case GPU_ERR_NO_NVRTC: return "GPUHOST_NO_NVRTC";
    case GPU_ERR_CPU_COMPILE: return "GPUHOST_CPU_COMPILATION";
    case GPU_ERR_CPU_UNSUPPORTED: return "GPUHOST_CPU_UNSUPPORTED";
    default: return "GPUHOST_MISSING_SYMBOL";
  }
}

/* "drv.cuMemAlloc(p, n)" reads better as "cuMemAlloc(p, n)" */
static const char *plain_call(const char *call) {
  const char *dot = strchr(call, '.');
  const char *paren = strchr(call, '(');
  return (dot && (!paren || dot < paren)) ? dot + 1 : call;
}

int gpu_raise(lua_State *L, GpuResult r, const char *detail) {
  const char *name = NULL, *message = NULL;
  switch (r.source) {
    case GPU_SRC_CUDA:
      name = cuda_error_name(r.code);
      message = cuda_error_description(r.code);
      break;
    case GPU_SRC_NVRTC:
      name = nvrtc_error_name(r.code);
      message = detail ? detail : name;
      break;
    case GPU_SRC_HOST:
      name = host_error_name(r.code);
      if (r.code == GPU_ERR_CPU_COMPILE || r.code == GPU_ERR_CPU_UNSUPPORTED) message = detail;
      else message = r.code == GPU_ERR_NO_NVRTC ? nvrtc_load_message() : cuda_load_message();
      if (message == NULL) message = nvrtc_load_message();
      break;
  }
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, r.code);
  lua_setfield(L, -2, "code");
  if (name) lua_pushstring(L, name);
  else lua_pushfstring(L, "CUDA_ERROR_%d", r.code);
  lua_setfield(L, -2, "name");
  lua_pushstring(L, message ? message : "unknown error");
  lua_setfield(L, -2, "message");
  lua_pushstring(L, r.call ? plain_call(r.call) : "?");
  lua_setfield(L, -2, "call");
  if (detail && (r.source == GPU_SRC_NVRTC || (r.source == GPU_SRC_HOST && r.code == GPU_ERR_CPU_COMPILE))) {
    lua_pushstring(L, detail);
    lua_setfield(L, -2, "log");
  } else if (detail) {
    lua_pushstring(L, detail);
    lua_setfield(L, -2, "detail");
  }
  luaL_setmetatable(L, GPU_ERROR_T);
  return lua_error(L);
}

static int error_tostring(lua_State *L) {
  lua_getfield(L, 1, "name");
  lua_getfield(L, 1, "message");
  lua_pushfstring(L, "%s: %s", luaL_optstring(L, -2, "?"), luaL_optstring(L, -1, "?"));
  return 1;
}

static int is_error(lua_State *L, int i) {
  if (!lua_istable(L, i) || !lua_getmetatable(L, i)) return 0;
  luaL_getmetatable(L, GPU_ERROR_T);
  int same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same;
}

static int error_concat(lua_State *L) {
  for (int i = 1; i <= 2; i++) {
    if (is_error(L, i)) luaL_tolstring(L, i, NULL);
    else if (lua_isstring(L, i)) lua_pushvalue(L, i);
    else return luaL_error(L, "attempt to concatenate a %s value", luaL_typename(L, i));
  }
  lua_concat(L, 2);
  return 1;
}

static const luaL_Reg error_meta[] = {
  {"__tostring", error_tostring},
  {"__concat", error_concat},
  {NULL, NULL}
};

void errors_open(lua_State *L) {
  luaL_newmetatable(L, GPU_ERROR_T);
  luaL_setfuncs(L, error_meta, 0);
  lua_pop(L, 1);
}
