/* dtype.c: element types and shapes: their names, how a Lua value becomes an element
 * (with range and integrality checked) and back, and how sizes are checked. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gpu.h"

const DtypeInfo gpu_dtypes[DT_COUNT] = {
  [DT_FLOAT32] = {"float32", "float", 4, 'f'},
  [DT_FLOAT64] = {"float64", "double", 8, 'f'},
  [DT_INT8] = {"int8", "int8_t", 1, 'i'},
  [DT_INT16] = {"int16", "int16_t", 2, 'i'},
  [DT_INT32] = {"int32", "int", 4, 'i'},
  [DT_INT64] = {"int64", "int64_t", 8, 'i'},
  [DT_UINT8] = {"uint8", "uint8_t", 1, 'u'},
  [DT_UINT16] = {"uint16", "uint16_t", 2, 'u'},
  [DT_UINT32] = {"uint32", "unsigned int", 4, 'u'},
  [DT_UINT64] = {"uint64", "uint64_t", 8, 'u'},
  [DT_BOOL] = {"bool", "bool", 1, 'b'},
};

int dtype_from_name(const char *name) {
  for (int i = 0; i < DT_COUNT; i++)
    if (strcmp(name, gpu_dtypes[i].name) == 0) return i;
  if (strcmp(name, "double") == 0) return DT_FLOAT64;
  return -1;
}

int dtype_check(lua_State *L, int idx, GpuDtype def) {
  if (lua_isnoneornil(L, idx)) return def;
  if (lua_type(L, idx) != LUA_TSTRING)
    return luaL_argerror(L, idx, lua_pushfstring(L, "dtype expected, got %s", luaL_typename(L, idx)));
  int dt = dtype_from_name(lua_tostring(L, idx));
  if (dt < 0)
    return luaL_argerror(L, idx, lua_pushfstring(L, "unknown dtype '%s' (float32, float64, "
        "int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool)", lua_tostring(L, idx)));
  return dt;
}

/* Stores integer v as integer dtype dt; NULL or why not. */
static const char *store_integer(lua_Integer v, GpuDtype dt, void *dst) {
#define RANGED(T, lo, hi) if (v < (lo) || v > (hi)) return "out of range"; *(T *)dst = (T)v; return NULL
  switch (dt) {
    case DT_INT8: RANGED(int8_t, INT8_MIN, INT8_MAX);
    case DT_INT16: RANGED(int16_t, INT16_MIN, INT16_MAX);
    case DT_INT32: RANGED(int32_t, INT32_MIN, INT32_MAX);
    case DT_INT64: *(int64_t *)dst = (int64_t)v; return NULL;
    case DT_UINT8: RANGED(uint8_t, 0, UINT8_MAX);
    case DT_UINT16: RANGED(uint16_t, 0, UINT16_MAX);
    case DT_UINT32: RANGED(uint32_t, 0, (lua_Integer)UINT32_MAX);
    case DT_UINT64: if (v < 0) return "out of range"; *(uint64_t *)dst = (uint64_t)v; return NULL;
    default: return "not an integer dtype";
  }
#undef RANGED
}

const char *dtype_store(lua_State *L, int idx, GpuDtype dt, void *dst) {
  const DtypeInfo *d = &gpu_dtypes[dt];
  int t = lua_type(L, idx);
  if (d->kind == 'b') {
    if (t == LUA_TBOOLEAN) *(uint8_t *)dst = (uint8_t)lua_toboolean(L, idx);
    else if (t == LUA_TNUMBER) *(uint8_t *)dst = lua_tonumber(L, idx) != 0;
    else return "expected a boolean";
    return NULL;
  }
  if (t != LUA_TNUMBER) return "expected a number";
  if (d->kind == 'f') {
    lua_Number v = lua_tonumber(L, idx);
    if (dt == DT_FLOAT32) *(float *)dst = (float)v;
    else *(double *)dst = (double)v;
    return NULL;
  }
  /* integer dtypes: integral and in range, or an error (no silent truncation) */
  if (lua_isinteger(L, idx)) return store_integer(lua_tointeger(L, idx), dt, dst);
  double v = lua_tonumber(L, idx);
  if (isnan(v) || v != floor(v)) return "not an integer";
  if (dt == DT_UINT64) {
    if (v < 0 || v >= 18446744073709551616.0) return "out of range";
    *(uint64_t *)dst = (uint64_t)v;
    return NULL;
  }
  if (v < -9223372036854775808.0 || v >= 9223372036854775808.0) return "out of range";
  return store_integer((lua_Integer)v, dt, dst);
}

void dtype_push(lua_State *L, GpuDtype dt, const void *src) {
  switch (dt) {
    case DT_FLOAT32: lua_pushnumber(L, *(const float *)src); break;
    case DT_FLOAT64: lua_pushnumber(L, *(const double *)src); break;
    case DT_INT8: lua_pushinteger(L, *(const int8_t *)src); break;
    case DT_INT16: lua_pushinteger(L, *(const int16_t *)src); break;
    case DT_INT32: lua_pushinteger(L, *(const int32_t *)src); break;
    case DT_INT64: lua_pushinteger(L, *(const int64_t *)src); break;
    case DT_UINT8: lua_pushinteger(L, *(const uint8_t *)src); break;
    case DT_UINT16: lua_pushinteger(L, *(const uint16_t *)src); break;
    case DT_UINT32: lua_pushinteger(L, *(const uint32_t *)src); break;
    case DT_UINT64: {
      uint64_t v = *(const uint64_t *)src;
      if (v > (uint64_t)LUA_MAXINTEGER) lua_pushnumber(L, (lua_Number)v);
      else lua_pushinteger(L, (lua_Integer)v);
      break;
    }
    case DT_BOOL: lua_pushboolean(L, *(const uint8_t *)src != 0); break;
    default: lua_pushnil(L);
  }
}

/* Largest element count we accept: keeps size * 8 bytes well inside size_t. */
#define MAX_SIZE ((int64_t)1 << 48)

int64_t size_check(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    return luaL_error(L, "%s must be a number, got %s", what, luaL_typename(L, idx));
  if (lua_isinteger(L, idx)) {
    lua_Integer v = lua_tointeger(L, idx);
    if (v < 0) return luaL_error(L, "%s must be non-negative, got %I", what, v);
    if (v > MAX_SIZE) return luaL_error(L, "%s is too large: %I", what, v);
    return v;
  }
  double v = lua_tonumber(L, idx);
  if (isnan(v)) return luaL_error(L, "%s must be a number, got nan", what);
  if (v < 0) return luaL_error(L, "%s must be non-negative, got %f", what, v);
  if (v != floor(v)) return luaL_error(L, "%s must be an integer, got %f", what, v);
  if (v > (double)MAX_SIZE) return luaL_error(L, "%s is too large: %f", what, v);
  return (int64_t)v;
}

void shape_check(lua_State *L, int idx, GpuShape *s) {
  idx = lua_absindex(L, idx);
  memset(s, 0, sizeof *s);
  if (lua_type(L, idx) == LUA_TNUMBER) {
    s->ndim = 1;
    s->dim[0] = size_check(L, idx, "size");
  } else if (lua_type(L, idx) == LUA_TTABLE) {
    lua_Integer n = luaL_len(L, idx);
    if (n < 1 || n > GPU_MAXDIM)
      luaL_error(L, "shape must have 1 to %d dimensions, got %I", GPU_MAXDIM, n);
    s->ndim = (int)n;
    for (int i = 0; i < s->ndim; i++) {
      char what[32];
      snprintf(what, sizeof what, "shape[%d]", i + 1);
      lua_geti(L, idx, i + 1);
      s->dim[i] = size_check(L, -1, what);
      lua_pop(L, 1);
    }
  } else {
    luaL_argerror(L, idx, lua_pushfstring(L, "shape (a number or a table of numbers) expected, "
                                          "got %s", luaL_typename(L, idx)));
  }
  s->size = 1;
  for (int i = 0; i < s->ndim; i++) {
    if (s->dim[i] != 0 && s->size > MAX_SIZE / s->dim[i])
      luaL_error(L, "shape is too large");
    s->size *= s->dim[i];
  }
}

void shape_push(lua_State *L, const GpuShape *s) {
  lua_createtable(L, s->ndim, 0);
  for (int i = 0; i < s->ndim; i++) {
    lua_pushinteger(L, s->dim[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* The fields device and host arrays share: shape, dtype, size, ndim, nbytes. */
int field_push(lua_State *L, const char *k, const GpuShape *s, GpuDtype dt) {
  if (strcmp(k, "shape") == 0) shape_push(L, s);
  else if (strcmp(k, "dtype") == 0) lua_pushstring(L, gpu_dtypes[dt].name);
  else if (strcmp(k, "size") == 0) lua_pushinteger(L, s->size);
  else if (strcmp(k, "ndim") == 0) lua_pushinteger(L, s->ndim);
  else if (strcmp(k, "nbytes") == 0) lua_pushinteger(L, (lua_Integer)(s->size * (int64_t)gpu_dtypes[dt].size));
  else return 0;
  return 1;
}

/* Pushes the method k from the "methods" table of the metatable of the value at idx. */
int method_push(lua_State *L, int idx, const char *k) {
  lua_getmetatable(L, idx);
  lua_getfield(L, -1, "methods");
  if (lua_getfield(L, -1, k) != LUA_TNIL) return 1;
  lua_pop(L, 3);
  return 0;
}
