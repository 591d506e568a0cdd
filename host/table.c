/* table.c: (nested) Lua tables and packed elements, both ways: what gpu.array(t),
 * gpu.host.array(t), a:totable() and h:totable() use. Values are checked on the way in
 * (dtype_store), and a ragged table is an error that says where. */
#include <string.h>
#include "gpu.h"

/* What makes the table at idx (of raw length n) no list, read raw: a key other than 1 to n
 * (shown, pushed); NULL for a list. A walk of every key. (A metatable is not asked: an
 * empty list object, a class's instance, is an empty list, and so is a proxy's table.) */
const char *table_not_list(lua_State *L, int idx, lua_Integer n) {
  idx = lua_absindex(L, idx);
  int top = lua_gettop(L);
  luaL_checkstack(L, 4, "table");
  lua_pushnil(L);
  /* an empty one whose metatable has __len: a proxy, whose length Lua's # would give, is not
   * read raw as empty (an empty list object, with __index alone, is an empty list) */
  if (n == 0 && !lua_next(L, idx) && luaL_getmetafield(L, idx, "__len") != LUA_TNIL) {
    lua_settop(L, top);
    return lua_pushstring(L, "no elements of its own and a metatable's __len (a proxy: tables are read "
                          "raw, the metatable not asked; give a plain table)");
  }
  lua_settop(L, top);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);   /* (the key stays, for the next) */
    int isint;
    lua_Integer k = lua_tointegerx(L, -1, &isint);
    if (isint && k >= 1 && k <= n && lua_type(L, -1) == LUA_TNUMBER) continue;
    if (lua_type(L, -1) == LUA_TSTRING) lua_pushfstring(L, "a key \"%s\" besides its %I elements", lua_tostring(L, -1), n);
    else lua_pushfstring(L, "a key %s besides its %I elements", luaL_tolstring(L, -1, NULL), n);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return lua_tostring(L, -1);
  }
  return NULL;
}

void table_shape(lua_State *L, int idx, GpuShape *s) {
  idx = lua_absindex(L, idx);
  memset(s, 0, sizeof *s);
  int top = lua_gettop(L);
  if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING)   /* an object, not a list of values */
    luaL_error(L, "a %s is not a table of values%s", lua_tostring(L, -1),
               strncmp(lua_tostring(L, -1), "gpu.sparse.", 11) == 0 ? ": use A:toarray()" : "");
  lua_settop(L, top);
  lua_pushvalue(L, idx);
  while (lua_istable(L, -1)) {
    if (s->ndim == GPU_MAXDIM)
      luaL_error(L, "tables nested deeper than %d levels", GPU_MAXDIM);
    s->dim[s->ndim++] = (int64_t)lua_rawlen(L, -1);   /* raw, as read_level reads it */
    if (s->dim[s->ndim - 1] == 0) {
      const char *bad = table_not_list(L, -1, 0);   /* (a proxy's: not read as empty) */
      if (bad) luaL_argerror(L, idx, lua_pushfstring(L, "a list of values expected, and the table has %s", bad));
      break;
    }
    lua_rawgeti(L, -1, 1);
  }
  lua_settop(L, top);
  array_shape_fits(L, s);   /* before the product, which could overflow */
  s->size = 1;
  for (int i = 0; i < s->ndim; i++) s->size *= s->dim[i];
}

/* Whether every element of the (nested) table on top is a boolean (none: no) */
static int all_booleans(lua_State *L, int depth) {
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  int yes = n > 0;
  luaL_checkstack(L, 2, "table");
  for (lua_Integer i = 1; yes && i <= n; i++) {
    int t = lua_rawgeti(L, -1, i);
    yes = t == LUA_TBOOLEAN || (t == LUA_TTABLE && depth < GPU_MAXDIM && all_booleans(L, depth + 1));
    lua_pop(L, 1);
  }
  return yes;
}

/* The dtype given at dtidx; else bool for a table of booleans (NumPy's), float32 for any
 * other (the default everywhere) */
GpuDtype table_dtype(lua_State *L, int idx, int dtidx) {
  if (!lua_isnoneornil(L, dtidx)) return dtype_check(L, dtidx, DT_FLOAT32);
  lua_pushvalue(L, idx);
  int b = all_booleans(L, 1);
  lua_pop(L, 1);
  return b ? DT_BOOL : DT_FLOAT32;
}

HostArray *table_host(lua_State *L, int idx, GpuDtype dt) {
  GpuShape s;
  table_shape(L, idx, &s);
  HostArray *h = hostarray_new(L, &s, dt);
  table_read(L, idx, &s, dt, h->data);
  return h;
}

/* Where element idx[0..depth] is, as "[2][3]". */
static const char *element_path(lua_State *L, const int64_t *idx, int depth) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; i <= depth; i++) {
    lua_pushfstring(L, "[%I]", (lua_Integer)idx[i]);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

/* The value on top as element idx[0..level] (at p), of dtype dt */
static void store_one(lua_State *L, GpuDtype dt, char *p, const int64_t *idx, int level) {
  const char *err;
  int type = lua_type(L, -1);
  if (dt == DT_FLOAT32 && type == LUA_TNUMBER)   /* an integer rounded once, as dtype_store does */
    *(float *)p = lua_isinteger(L, -1) ? (float)lua_tointeger(L, -1) : (float)lua_tonumber(L, -1);
  else if (dt == DT_FLOAT64 && type == LUA_TNUMBER) *(double *)p = (double)lua_tonumber(L, -1);
  else if ((err = dtype_store_value(L, -1, dt, p)) != NULL) {
    if (luaL_testudata(L, -1, GPU_ARRAY_T))
      luaL_error(L, "element %s is a device array: copy it to the host with a:tohost()",
                 element_path(L, idx, level));
    const char *v = errors_element(L, -1);   /* "1" as a string ("1"), not as the number 1 */
    luaL_error(L, "element %s (%s) %s for %s", element_path(L, idx, level), v, err, dtypes[dt].name);
  }
}

/* [-0, +0, e] Refuses the table at t (of raw length n) where it is no list (table_not_list)
 * and one lua_next from key n shows it: a key after the elements in Lua's order, as those
 * of a constructor ({1, 2, x = 3}: x was dropped) and of a list grown at its end. A walk
 * of every key took three quarters of the reading again. */
static void check_list(lua_State *L, int t, int64_t n, const int64_t *idx, int level) {
  if (n > 0) {
    lua_pushinteger(L, n);
    if (!lua_next(L, t)) return;
    lua_pop(L, 2);
  }
  const char *bad = table_not_list(L, t, n);
  if (bad) luaL_error(L, "not a list: %s has %s", level ? element_path(L, idx, level - 1) : "the table", bad);
}

/* Reads level `level` of the table on top of the stack into *dst. */
static void read_level(lua_State *L, const GpuShape *s, int level, GpuDtype dt, char **dst,
                       int64_t *idx) {
  int64_t n = s->dim[level];
  int t = lua_gettop(L);
  if ((int64_t)lua_rawlen(L, t) != n) {
    const char *where = level ? element_path(L, idx, level - 1) : "the table";
    luaL_error(L, "ragged table: %s has %I elements, expected %I", where,
               (lua_Integer)lua_rawlen(L, t), (lua_Integer)n);
  }
  check_list(L, t, n, idx, level);
  char *p = *dst;
  for (int64_t i = 1; i <= n; i++) {
    idx[level] = i;
    int type = lua_rawgeti(L, t, i);
    if (level + 1 < s->ndim) {
      if (type != LUA_TTABLE) {
        const char *tname = luaL_typename(L, -1);
        luaL_error(L, "ragged table: element %s is a %s, expected a table",
                   element_path(L, idx, level), tname);
      }
      *dst = p;
      read_level(L, s, level + 1, dt, dst, idx);
      p = *dst;
    } else {
      store_one(L, dt, p, idx, level);
      p += dtypes[dt].size;
    }
    lua_pop(L, 1);
  }
  *dst = p;
}

void table_read(lua_State *L, int idx, const GpuShape *s, GpuDtype dt, void *dst) {
  int64_t at[GPU_MAXDIM] = {0};
  char *p = dst;
  lua_pushvalue(L, idx);
  read_level(L, s, 0, dt, &p, at);   /* with no elements too: {{}, {1, 2}} is ragged */
  lua_pop(L, 1);
}

static void push_level(lua_State *L, const char **src, const GpuShape *s, int level, GpuDtype dt) {
  int64_t n = s->dim[level];
  lua_createtable(L, n < 1000000 ? (int)n : 0, 0);
  for (int64_t i = 1; i <= n; i++) {
    if (level + 1 < s->ndim) push_level(L, src, s, level + 1, dt);
    else { dtype_push(L, dt, *src); *src += dtypes[dt].size; }
    lua_rawseti(L, -2, i);
  }
}

void table_push(lua_State *L, const void *src, const GpuShape *s, GpuDtype dt) {
  const char *p = src;
  if (s->ndim == 0) { dtype_push(L, dt, src); return; }   /* a 0-d array: its one value */
  luaL_checkstack(L, s->ndim + 4, "nested table");
  push_level(L, &p, s, 0, dt);
}

