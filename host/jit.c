/* jit.c: what gpu.jit (lua/jit/jit.lua) does in C.
 *  - Launches: a gpu.jit kernel is compiled once for each list of argument types, so a
 *    launch first finds the compiled kernel for the types of its arguments: a walk down a
 *    tree of tables keyed by each argument's type code, done here so that a gpu.jit launch
 *    costs about what a gpu.kernel launch does.
 *  - Its memo: the CUDA C it generated, kept in the disk cache (cache.c) under a key of
 *    everything that C depends on, so a new process need not load the compiler. */
#include "gpu.h"
#include "cache.h"

/* The type codes: an array's dtype (1 .. DT_COUNT), then these. */
enum { CODE_INTEGER = 101, CODE_FLOAT, CODE_BOOLEAN, CODE_OTHER };

/* A dispatcher's upvalues. */
enum { DU_TREE = 1, DU_CONFIG, DU_MISS, DU_STATE, DU_ARRAY_MT, DU_LEAF, DU_LAUNCHER };

/* The type code of the value at idx; the array metatable is at mt. */
static int type_code(lua_State *L, int idx, int mt) {
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER: return lua_isinteger(L, idx) ? CODE_INTEGER : CODE_FLOAT;
    case LUA_TBOOLEAN: return CODE_BOOLEAN;
    case LUA_TUSERDATA: {
      GpuArray *a = lua_touserdata(L, idx);
      if (!lua_getmetatable(L, idx)) return CODE_OTHER;
      int same = lua_rawequal(L, -1, mt);
      lua_pop(L, 1);
      return same && a->alive ? (int)a->dtype + 1 : CODE_OTHER;
    }
    default: return CODE_OTHER;
  }
}

/* dispatcher(args...): tree[code(arg1)][code(arg2)]...[0] is what compiled these types
 * (a kernel, or a table whose __index makes a launcher); its launcher for the
 * dispatcher's configuration is kept from the last call. Not found: miss(state, config,
 * args...) compiles, adds to the tree and launches. */
static int dispatch(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checkstack(L, 4, "too many kernel arguments");
  lua_pushvalue(L, lua_upvalueindex(DU_TREE));
  for (int i = 1; i <= n && lua_istable(L, -1); i++) {
    lua_rawgeti(L, -1, type_code(L, i, lua_upvalueindex(DU_ARRAY_MT)));
    lua_remove(L, -2);
  }
  if (lua_istable(L, -1)) lua_rawgeti(L, -1, 0);
  else lua_pushnil(L);
  lua_remove(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(DU_MISS));
    lua_pushvalue(L, lua_upvalueindex(DU_STATE));
    lua_pushvalue(L, lua_upvalueindex(DU_CONFIG));
    lua_rotate(L, 1, 3);
    lua_call(L, n + 2, 0);
    return 0;
  }
  if (lua_rawequal(L, -1, lua_upvalueindex(DU_LEAF))) {
    lua_pop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(DU_LAUNCHER));
  } else {
    lua_pushvalue(L, -1);
    lua_replace(L, lua_upvalueindex(DU_LEAF));
    lua_pushvalue(L, lua_upvalueindex(DU_CONFIG));
    lua_gettable(L, -2);
    lua_remove(L, -2);
    lua_pushvalue(L, -1);
    lua_replace(L, lua_upvalueindex(DU_LAUNCHER));
  }
  lua_insert(L, 1);
  lua_call(L, n, 0);
  return 0;
}

/* gpu._jit_dispatcher(tree, config, miss, state) */
static int gpu_jit_dispatcher(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checktype(L, 3, LUA_TFUNCTION);
  lua_settop(L, 4);
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_pushnil(L);
  lua_pushnil(L);
  lua_pushcclosure(L, dispatch, 7);   /* upvalues: DU_TREE .. DU_LAUNCHER */
  return 1;
}

/* gpu._jit_code(v): the type code a dispatcher gives v */
static int gpu_jit_code(lua_State *L) {
  luaL_checkany(L, 1);
  lua_settop(L, 1);
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_pushinteger(L, type_code(L, 1, 2));
  return 1;
}

/* gpu._jit_memo(key [, value]): the value kept on disk under key (nil when none); with a
 * value, keeps it there (nothing when the cache is off or cannot be written) */
static int gpu_jit_memo(lua_State *L) {
  size_t klen, vlen;
  const char *key = luaL_checklstring(L, 1, &klen);
  if (lua_isnoneornil(L, 2)) {
    CacheEntry e;
    if (!cache_load(key, klen, 0, &e)) return 0;
    lua_pushlstring(L, e.cubin, e.cubin_size);
    cache_entry_free(&e, 0);
    return 1;
  }
  const char *value = luaL_checklstring(L, 2, &vlen);
  cache_store(key, klen, value, vlen, NULL, 0);
  return 0;
}

static const luaL_Reg jit_funcs[] = {
  {"_jit_dispatcher", gpu_jit_dispatcher},
  {"_jit_code", gpu_jit_code},
  {"_jit_memo", gpu_jit_memo},
  {NULL, NULL}
};

/* Expects the gpu table on top (and array_open done). */
void jit_open(lua_State *L) {
  luaL_setfuncs(L, jit_funcs, 0);
}
