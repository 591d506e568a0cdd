/* jit.c: what gpu.jit (lua/jit/jit.lua) does in C.
 *  - Launches: a gpu.jit kernel is compiled once for each list of argument types, so a
 *    launch first finds the compiled kernel for the types of its arguments: a walk down a
 *    tree of tables keyed by each argument's type code, done here so that a gpu.jit launch
 *    costs about what a gpu.kernel launch does.
 *  - Its memo: the CUDA C it generated, kept in the disk cache (cache.c) under a key of
 *    everything that C depends on, so a new process need not load the compiler. */
#include <string.h>
#include "gpu.h"
#include "cache.h"

/* The type codes: an array's dtype (1 .. DT_COUNT), the same plus CODE_CONTIGUOUS for a
 * C-contiguous array (gpu.jit compiles its flat a[i] without the branch to strided views),
 * then these. */
#define CODE_CONTIGUOUS 32
_Static_assert(DT_COUNT < CODE_CONTIGUOUS, "a dtype's code (float16's, the last, too) must stay below 32");
enum { CODE_INTEGER = 101, CODE_FLOAT, CODE_BOOLEAN, CODE_OTHER, CODE_COMPLEX };

/* A dispatcher's upvalues: first those of gpu.kernel's launcher (kernel.c), so that a
 * launch with the argument types of the last one is that launcher's own call; then the
 * tree, the configuration, the miss function, the state, the leaf and launcher of the last
 * launch, and the last launch's type codes (a Last). */
enum { DU_TREE = KERNEL_LAUNCHER_UPVALUES + 1, DU_CONFIG, DU_MISS, DU_STATE, DU_LEAF,
       DU_LAUNCHER, DU_LAST, DU_COUNT = DU_LAST };
#define MAX_CODES 64
typedef struct Last {
  int n;                 /* arguments; -1: none yet */
  int direct;            /* the launcher is gpu.kernel's: its upvalues are ours */
  unsigned char code[MAX_CODES];
} Last;

/* The type code of the value at idx: arrays told by their magic number (array_test). */
static int type_code(lua_State *L, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER: return lua_isinteger(L, idx) ? CODE_INTEGER : CODE_FLOAT;
    case LUA_TBOOLEAN: return CODE_BOOLEAN;
    case LUA_TUSERDATA: {
      const GpuArray *a = array_test(L, idx);
      if (a) return a->alive ? (int)a->dtype + 1 + (a->contiguous ? CODE_CONTIGUOUS : 0) : CODE_OTHER;
      return luaL_testudata(L, idx, GPU_COMPLEX_T) ? CODE_COMPLEX : CODE_OTHER;   /* gpu.complex */
    }
    default: return CODE_OTHER;
  }
}

/* [-0, +1, e] The leaf for these codes: tree[code(arg1)]...[0], or nil. */
static void find_leaf(lua_State *L, int n, const unsigned char *codes) {
  lua_pushvalue(L, lua_upvalueindex(DU_TREE));
  for (int i = 0; i < n && lua_istable(L, -1); i++) {
    lua_rawgeti(L, -1, codes[i]);
    lua_remove(L, -2);
  }
  if (lua_istable(L, -1)) lua_rawgeti(L, -1, 0);
  else lua_pushnil(L);
  lua_remove(L, -2);
}

static int dispatch(lua_State *L);

/* leaf[config] */
static int leaf_index(lua_State *L) {
  lua_gettable(L, 1);
  return 1;
}

/* leaf_index's message handler: kernel_index raises a bad configuration at level 1, this
 * dispatcher (C) or a leaf's __index in gpu.jit's Lua (stripped), neither with a line: such
 * an error gets the line of the dispatcher's caller, the launch */
static int at_launch(lua_State *L) {
  lua_Debug ar;
  if (lua_type(L, 1) != LUA_TSTRING || !lua_getstack(L, 2, &ar) || !lua_getinfo(L, "l", &ar) || ar.currentline > 0)
    return 1;
  for (int level = 3; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "f", &ar);
    int found = lua_tocfunction(L, -1) == dispatch;
    lua_pop(L, 1);
    if (found) {
      luaL_where(L, level + 1);
      lua_pushvalue(L, 1);
      lua_concat(L, 2);
      return 1;
    }
  }
  return 1;
}

/* [-1, +0, e] Makes the leaf on top the last one: its launcher for our configuration,
 * whose upvalues become ours when it is gpu.kernel's. */
static void adopt(lua_State *L, Last *last, int n, const unsigned char *codes) {
  int leaf = lua_gettop(L);
  lua_pushvalue(L, leaf);
  lua_replace(L, lua_upvalueindex(DU_LEAF));
  luaL_checkstack(L, 4, "kernel launch");
  lua_pushcfunction(L, at_launch);
  lua_pushcfunction(L, leaf_index);
  lua_pushvalue(L, leaf);
  lua_pushvalue(L, lua_upvalueindex(DU_CONFIG));
  if (lua_pcall(L, 2, 1, leaf + 1) != LUA_OK) lua_error(L);
  lua_remove(L, leaf + 1);
  last->direct = lua_tocfunction(L, -1) == kernel_launcher_call;
  for (int u = 1; last->direct && u <= KERNEL_LAUNCHER_UPVALUES; u++) {
    lua_getupvalue(L, -1, u);
    lua_replace(L, lua_upvalueindex(u));
  }
  lua_replace(L, lua_upvalueindex(DU_LAUNCHER));
  lua_pop(L, 1);
  last->n = n;
  memcpy(last->code, codes, (size_t)n);
}

/* dispatcher(args...): tree[code(arg1)][code(arg2)]...[0] is what compiled these types
 * (a kernel, or a table whose __index makes a launcher); its launcher for the
 * dispatcher's configuration is kept from the last call, and the same types as the last
 * call's launch at the cost of gpu.kernel's launcher. Not found: miss(state, config,
 * args...) compiles, adds to the tree and launches. */
static int dispatch(lua_State *L) {
  int n = lua_gettop(L);
  Last *last = lua_touserdata(L, lua_upvalueindex(DU_LAST));
  unsigned char codes[MAX_CODES];
  int same = n == last->n && n <= MAX_CODES;
  for (int i = 0; i < n && i < MAX_CODES; i++) {
    codes[i] = (unsigned char)type_code(L, i + 1);
    if (codes[i] != last->code[i]) same = 0;
  }
  if (same && last->direct) return kernel_launcher_call(L);
  luaL_checkstack(L, 4, "too many kernel arguments");
  if (!same) {
    if (n > MAX_CODES) {   /* too many to remember: walk the tree by each code */
      lua_pushvalue(L, lua_upvalueindex(DU_TREE));
      for (int i = 1; i <= n && lua_istable(L, -1); i++) {
        lua_rawgeti(L, -1, type_code(L, i));
        lua_remove(L, -2);
      }
      if (lua_istable(L, -1)) lua_rawgeti(L, -1, 0);
      else lua_pushnil(L);
      lua_remove(L, -2);
    } else {
      find_leaf(L, n, codes);
    }
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_pushvalue(L, lua_upvalueindex(DU_MISS));
      lua_pushvalue(L, lua_upvalueindex(DU_STATE));
      lua_pushvalue(L, lua_upvalueindex(DU_CONFIG));
      lua_rotate(L, 1, 3);
      lua_call(L, n + 2, 0);
      return 0;
    }
    if (n <= MAX_CODES) {
      adopt(L, last, n, codes);
      if (last->direct) return kernel_launcher_call(L);
    } else {
      lua_pushvalue(L, lua_upvalueindex(DU_CONFIG));
      lua_gettable(L, -2);
      lua_remove(L, -2);
      lua_insert(L, 1);
      lua_call(L, n, 0);
      return 0;
    }
  }
  lua_pushvalue(L, lua_upvalueindex(DU_LAUNCHER));
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
  for (int u = 1; u <= KERNEL_LAUNCHER_UPVALUES; u++) lua_pushnil(L);
  lua_rotate(L, 1, KERNEL_LAUNCHER_UPVALUES);   /* the launcher's upvalues first */
  lua_pushnil(L);                               /* DU_LEAF */
  lua_pushnil(L);                               /* DU_LAUNCHER */
  Last *last = lua_newuserdatauv(L, sizeof *last, 0);
  memset(last, 0, sizeof *last);
  last->n = -1;
  lua_pushcclosure(L, dispatch, DU_COUNT);
  return 1;
}

/* A gpu.jit object's __index (lua/jit/jit.lua): k[{grid, block}] with the numbers of the
 * last such call on the same object is the launcher that call gave, found here at the cost
 * of gpu.kernel's k[config]; anything else goes to the Lua __index (upvalue JI_SLOW). */
enum { JI_SLOW = 1, JI_SEEN, JI_OBJECT, JI_LAUNCHER };
typedef struct Seen { lua_Integer grid, block; int valid; } Seen;   /* of JI_OBJECT's call */

/* [-0, +0, -] The grid and block of a config {g, b} of plain numbers and no other field
 * (one with another field, [3] or a misspelt shared, is refused at its launch: never
 * kept), or 0. */
static int plain_config(lua_State *L, int key, lua_Integer *g, lua_Integer *b) {
  int ok = lua_rawgeti(L, key, 1) == LUA_TNUMBER && lua_isinteger(L, -1) &&
           lua_rawgeti(L, key, 2) == LUA_TNUMBER && lua_isinteger(L, -1);
  if (ok) {
    *g = lua_tointeger(L, -2);
    *b = lua_tointeger(L, -1);
    int fields = 0;
    lua_pushnil(L);
    while (fields <= 2 && lua_next(L, key)) {
      lua_pop(L, 1);
      fields++;
    }
    ok = fields == 2;
  }
  lua_settop(L, 2);
  return ok;
}

static int jit_index(lua_State *L) {
  lua_Integer g = 0, b = 0;
  Seen *seen = lua_touserdata(L, lua_upvalueindex(JI_SEEN));
  int plain = lua_type(L, 2) == LUA_TTABLE && plain_config(L, 2, &g, &b);
  if (plain && seen->valid && seen->grid == g && seen->block == b &&
      lua_rawequal(L, 1, lua_upvalueindex(JI_OBJECT))) {
    lua_pushvalue(L, lua_upvalueindex(JI_LAUNCHER));
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(JI_SLOW));
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_call(L, 2, 1);
  if (plain) {
    lua_pushvalue(L, 1);   /* kept alive here, so that no other object takes its place */
    lua_replace(L, lua_upvalueindex(JI_OBJECT));
    seen->grid = g;
    seen->block = b;
    seen->valid = 1;
    lua_pushvalue(L, -1);
    lua_replace(L, lua_upvalueindex(JI_LAUNCHER));
  }
  return 1;
}

/* gpu._jit_index(slow): the __index above in front of slow */
static int gpu_jit_index(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  Seen *seen = lua_newuserdatauv(L, sizeof *seen, 0);
  memset(seen, 0, sizeof *seen);
  lua_pushnil(L);
  lua_pushnil(L);
  lua_pushcclosure(L, jit_index, JI_LAUNCHER);
  return 1;
}

/* gpu._jit_code(v): the type code a dispatcher gives v */
static int gpu_jit_code(lua_State *L) {
  luaL_checkany(L, 1);
  lua_pushinteger(L, type_code(L, 1));
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
  {"_jit_index", gpu_jit_index},
  {"_jit_memo", gpu_jit_memo},
  {NULL, NULL}
};

/* Expects the gpu table on top (and array_open done). */
void jit_open(lua_State *L) {
  luaL_setfuncs(L, jit_funcs, 0);
}
