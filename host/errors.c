/* errors.c: the module's error policy, in one place.
 *  - Argument mistakes raise plain messages (luaL_argerror, luaL_error).
 *  - Every CUDA driver, NVRTC or library-loading failure raises an error object: a table
 *    with fields code, name, message, call (and log for compile errors) whose metatable
 *    "gpu.error" gives tostring(err) == name .. ": " .. message and lets `"x" .. err`
 *    concatenate. The message of a CUDA failure is the description cuda.h documents. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gpu.h"

/* "drv.cuMemAlloc(p, n)" reads better as "cuMemAlloc(p, n)" */
static const char *plain_call(const char *call) {
  const char *dot = strchr(call, '.');
  const char *paren = strchr(call, '(');
  return (dot && (!paren || dot < paren)) ? dot + 1 : call;
}

/* gpuhost's codes whose message the backend words whatever the caller adds (the caller's
 * detail, such as the kernel a launch was for, goes into the detail field). */
static int worded(GpuResult r) {
  return r.source == GPU_SRC_HOST && r.detail != NULL && (r.code == GPU_ERR_CONTEXT_LOST ||
         r.code == GPU_ERR_MEMORY_LIMIT || r.code == GPU_ERR_INTERRUPTED ||
         r.code >= GPU_ERR_BAD_SETTING);
}

/* The message of a failed result: for CUDA codes, cuda.h's description; for NVRTC, the
 * log (or the code's name); for gpuhost's own codes, what the backend said. */
static const char *result_message(GpuResult r, const char *detail) {
  if (worded(r)) return r.detail;
  const char *m = NULL;
  switch (r.source) {
    case GPU_SRC_CUDA:
      m = cuda_description(r.code);
      if (m == NULL && backend_get()->describe) m = backend_get()->describe(r.code);
      return m;
    case GPU_SRC_NVRTC: return detail ? detail : result_name(r);
    case GPU_SRC_HOST: return detail ? detail : r.detail;
  }
  return NULL;
}

/* Where the detail goes: a compile log is "log", anything else "detail". */
static int is_log(GpuResult r) {
  return r.source == GPU_SRC_NVRTC || (r.source == GPU_SRC_HOST && r.code == GPU_ERR_CPU_COMPILE);
}

/* [-0, +1, m] "file:line: " of the script's line that led here: the first Lua function
 * that is not one of the module's own ("[gpu] lua/format.lua" prints an array), or "". */
static void where_asked(lua_State *L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++)
    if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 && strncmp(ar.short_src, "[gpu]", 5) != 0) {
      lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
  lua_pushliteral(L, "");
}

int errors_raise(lua_State *L, GpuResult r, const char *detail) {
  /* this error answers the Ctrl-C: the host's hook must not raise a second one */
  if (r.code == GPU_ERR_INTERRUPTED && r.source == GPU_SRC_HOST) backend_take_interrupt();
  const char *name = result_name(r), *message = result_message(r, detail);
  if (detail == NULL) detail = r.detail;
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, r.code);
  lua_setfield(L, -2, "code");
  if (name) lua_pushstring(L, name);
  else lua_pushfstring(L, "CUDA_ERROR_%d", r.code);
  lua_setfield(L, -2, "name");
  if (r.note) lua_pushfstring(L, "%s %s", message ? message : "unknown error", r.note);
  else if (r.source == GPU_SRC_HOST && r.code == GPU_ERR_NOT_CAPTURABLE) {
    where_asked(L);             /* where in the recorded function it was asked */
    lua_pushstring(L, message ? message : "unknown error");
    lua_concat(L, 2);
    graph_refusal(lua_tostring(L, -1));
  } else lua_pushstring(L, message ? message : "unknown error");
  lua_setfield(L, -2, "message");
  lua_pushstring(L, r.call ? plain_call(r.call) : "?");
  lua_setfield(L, -2, "call");
  int loading = r.source == GPU_SRC_HOST && (r.code <= GPU_ERR_NO_SYMBOL || r.code == GPU_ERR_NO_LIBRARY);   /* said in message */
  if (detail && !loading) {
    lua_pushstring(L, detail);
    lua_setfield(L, -2, is_log(r) ? "log" : "detail");
  }
  luaL_setmetatable(L, GPU_ERROR_T);
  return lua_error(L);
}

int errors_freed(lua_State *L, const char *what) {
  if (what) return luaL_error(L, "attempt to use a freed array (%s)", what);
  return luaL_error(L, "attempt to use a freed array");
}

int errors_shared(lua_State *L, const char *what) {
  return luaL_error(L, "%s%scannot write into an expanded view (a stride of 0) or a view of one "
                    "(gpu.broadcast_to's are): its elements may share memory; write into "
                    "a:contiguous()", what ? what : "",
                    what ? ": " : "");
}

/* [-0, +0, v] A function, or a value whose metatable has __call (gpu.sqrt, gpu.add: they
 * were refused by gpu.graph and gpu.range); name, where not NULL, is the function's in the
 * error (Lua finds no name for gpu.nccl.group, a field of a field: '?') */
void errors_callable(lua_State *L, int idx, const char *name) {
  if (lua_isfunction(L, idx)) return;
  if (luaL_getmetafield(L, idx, "__call") != LUA_TNIL) { lua_pop(L, 1); return; }
  if (name == NULL) luaL_typeerror(L, idx, "function or callable value");
  const char *t = luaL_getmetafield(L, idx, "__name") == LUA_TSTRING ? lua_tostring(L, -1)
                : lua_type(L, idx) == LUA_TLIGHTUSERDATA ? "light userdata" : luaL_typename(L, idx);
  luaL_error(L, "bad argument #%d to '%s' (function or callable value expected, got %s)", idx, name, t);
}

void errors_args(lua_State *L, int last, const char *name) {
  int top = lua_gettop(L), method = name[0] && name[1] == ':';   /* a:free, s:destroy: self is 1 */
  for (int k = last + 1; k <= top; k++) {
    if (lua_isnil(L, k)) continue;
    int n = last - method;
    const char *t = lua_istable(L, k) && !lua_getmetatable(L, k) ? "table"
                  : luaL_getmetafield(L, k, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, k);
    luaL_error(L, "%s takes %d argument%s, got a %s as argument %d (%s)", name, n, n == 1 ? "" : "s", t,
               k - method, strcmp(t, "table") ? "not one it takes" : "it takes no options");
  }
}

static const char *shown_key(lua_State *L, const char *k, size_t n);

const char *errors_value(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) {   /* quoted: "got 1" of "1" read as the number */
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    s = lua_pushfstring(L, "a string (\"%s\")", shown_key(L, s, n));
    lua_remove(L, -2);
    return s;
  }
  if (lua_type(L, idx) == LUA_TNUMBER && isnan(lua_tonumber(L, idx))) {
    lua_pushliteral(L, "nan");
    return lua_tostring(L, -1);
  }
  if (lua_isnone(L, idx)) return lua_pushliteral(L, "no value");   /* not luaL_tolstring's "no value: (nil)" */
  int t = lua_type(L, idx);
  if (t == LUA_TTABLE || t == LUA_TUSERDATA || t == LUA_TFUNCTION || t == LUA_TTHREAD) {
    /* what it is (gpu.array, table), not its address or a whole array's text */
    int named = luaL_getmetafield(L, idx, "__name");
    if (named == LUA_TSTRING) return lua_tostring(L, -1);
    if (named != LUA_TNIL) lua_pop(L, 1);
    return lua_pushstring(L, luaL_typename(L, idx));
  }
  return luaL_tolstring(L, idx, NULL);
}

const char *errors_element(lua_State *L, int idx) {
  return luaL_testudata(L, idx, GPU_COMPLEX_T) ? luaL_tolstring(L, idx, NULL) : errors_value(L, idx);
}

void errors_warn(lua_State *L, GpuResult r, const char *what) {
  const char *name = result_name(r);
  char code[32];
  if (name == NULL) { snprintf(code, sizeof code, "error %d", r.code); name = code; }
  lua_warning(L, "gpuhost: ", 1);
  lua_warning(L, what, 1);
  lua_warning(L, " failed: ", 1);
  lua_warning(L, name, 1);
  lua_warning(L, r.call ? " in " : "", 1);
  lua_warning(L, r.call ? plain_call(r.call) : "", 0);
}

/* Whether word is one of the names in list (separated by spaces). */
static int listed(const char *list, const char *word, size_t n) {
  for (const char *p = list; *p; ) {
    size_t k = strcspn(p, " ");
    if (k == n && memcmp(p, word, n) == 0) return 1;
    p += k;
    p += *p == ' ';
  }
  return 0;
}

/* [-0, +1, m] known as a message lists it: "a, b, c" */
static const char *listing(lua_State *L, const char *known) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (const char *p = known; *p; p++) {
    if (*p == ' ') luaL_addchar(&b, ',');
    luaL_addchar(&b, *p);
  }
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

/* [-0, +1, m] an option's name as a message shows it: a byte that is not printable (a NUL
 * would end the message there) as a decimal escape and a backslash doubled, as in a Lua
 * string literal (three digits before a digit, as Lua's %q: "\0012" is 1 then '2') */
static const char *shown_key(lua_State *L, const char *k, size_t n) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)k[i];
    if (c == '\\') luaL_addstring(&b, "\\\\");
    else if (c >= 0x20 && c < 0x7f) luaL_addchar(&b, (char)c);
    else {
      char esc[8];
      int digit = i + 1 < n && k[i + 1] >= '0' && k[i + 1] <= '9';
      luaL_addlstring(&b, esc, (size_t)snprintf(esc, sizeof esc, digit ? "\\%03u" : "\\%u", c));
    }
  }
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

void errors_options(lua_State *L, int idx, const char *name, const char *known) {
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    size_t n = 0;
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : NULL;
    if (k && listed(known, k, n)) continue;
    const char *gpu = strchr(name, ':') || name[0] == '\'' ? "" : "gpu.";   /* 'v': the user's */
    if (k == NULL) {
      const char *type = luaL_typename(L, -1);
      luaL_error(L, "%s%s: the options table has a %s key (options are named: %s)", gpu, name, type,
                 listing(L, known));
    }
    const char *hint = strcmp(k, "axis") == 0 && listed(known, "dim", 3)
      ? "gpuhost names it dim and counts from 1: NumPy's axis=0 is dim = 1, axis=-1 is dim = -1"
      : strcmp(k, "keepdims") == 0 && listed(known, "keepdim", 7) ? "gpuhost's is keepdim"
      : NULL;
    if (hint) luaL_error(L, "%s%s: unknown option '%s' (%s)", gpu, name, k, hint);
    k = shown_key(L, k, n);
    luaL_error(L, "%s%s: unknown option '%s' (it takes %s)", gpu, name, k, *known ? listing(L, known) : "none");
  }
}

int errors_integer(lua_State *L, int idx, lua_Integer *v) {
  int isint = 0;
  *v = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isint) : 0;
  return isint;
}

int errors_flag(lua_State *L, int opts, const char *name, const char *key, int dflt) {
  int t = opts ? lua_getfield(L, opts, key) : LUA_TNIL;
  if (t != LUA_TNIL && t != LUA_TBOOLEAN)
    luaL_error(L, "%s%s: option %s must be a boolean, got %s", strchr(name, ':') ? "" : "gpu.", name, key,
               luaL_typename(L, -1));
  int v = t == LUA_TNIL ? dflt : lua_toboolean(L, -1);
  if (opts) lua_pop(L, 1);
  return v;
}

/* One nil where the options table goes is none, as in the Lua functions (gpu.around(a, 1,
 * nil)): a wrapper's function f(x, opts) return gpu.add(x, x, opts) end; a nil after it is not */
int errors_nil_options(lua_State *L, int idx, int last) { return idx == last && lua_isnil(L, idx); }

/* gpu._options(opts, name, known): opts (a table, or nil: an empty one) when each of its keys
 * is among known (names separated by spaces), else errors_options' error: what the Lua
 * files check their options with (gpu._arg.options) */
static int gpu_options(lua_State *L) {
  const char *name = luaL_checkstring(L, 2), *known = luaL_checkstring(L, 3);
  if (lua_isnil(L, 1)) { lua_newtable(L); return 1; }
  if (!lua_istable(L, 1)) return luaL_error(L, "gpu.%s: the options must be a table, got %s", name, luaL_typename(L, 1));
  errors_options(L, 1, name, known);
  lua_settop(L, 1);
  return 1;
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

/* Expects the gpu table on top. */
void errors_open(lua_State *L) {
  lua_pushcfunction(L, gpu_options);
  lua_setfield(L, -2, "_options");
  luaL_newmetatable(L, GPU_ERROR_T);
  luaL_setfuncs(L, error_meta, 0);
  lua_pop(L, 1);
}
