/* dtype.c: element types and shapes: their names (the one table, GPU_DTYPES in gpu.h),
 * how a Lua value becomes an element (with range and integrality checked) and back, and
 * how sizes are checked. Conversions go by kind and size, so a new row needs no code. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gpu.h"

#define DTYPE_INFO(E, name, T, kind, aliases, spellings) \
  [DT_##E] = {name, aliases, spellings, sizeof(T), kind},
const DtypeInfo dtypes[DT_COUNT] = { GPU_DTYPES(DTYPE_INFO) };
#undef DTYPE_INFO

/* Does the '|'-separated list contain word? */
static int listed(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    if (len == n && strncmp(p, word, n) == 0) return 1;
    if (!bar) break;
    p = bar + 1;
  }
  return 0;
}

int dtype_from_name(const char *name) {
  for (int i = 0; i < DT_COUNT; i++)
    if (strcmp(name, dtypes[i].name) == 0 || listed(dtypes[i].aliases, name)) return i;
  return -1;
}

/* [-0, +1, m] "float32, float64, ...": every name, for messages */
static const char *dtype_names(lua_State *L) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; i < DT_COUNT; i++) {
    if (i) luaL_addstring(&b, ", ");
    luaL_addstring(&b, dtypes[i].name);
  }
  luaL_pushresult(&b);
  return lua_tostring(L, -1);
}

GpuDtype dtype_check(lua_State *L, int idx, GpuDtype def) {
  if (lua_isnoneornil(L, idx)) return def;
  if (lua_type(L, idx) != LUA_TSTRING)
    luaL_argerror(L, idx, lua_pushfstring(L, "dtype expected, got %s", luaL_typename(L, idx)));
  size_t len;
  const char *name = lua_tolstring(L, idx, &len);
  if (strlen(name) != len) luaL_argerror(L, idx, "a dtype's name holds no zero byte");
  int dt = dtype_from_name(name);
  if (dt < 0)
    luaL_argerror(L, idx, lua_pushfstring(L, "unknown dtype '%s' (%s)", lua_tostring(L, idx),
                                          dtype_names(L)));
  return (GpuDtype)dt;
}

/* The range of an integer dtype, as Lua integers. */
static void int_range(const DtypeInfo *d, lua_Integer *lo, lua_Integer *hi) {
  int bits = (int)(8 * d->size);
  if (d->kind == 'i') {
    *lo = bits >= 64 ? LUA_MININTEGER : -((lua_Integer)1 << (bits - 1));
    *hi = bits >= 64 ? LUA_MAXINTEGER : ((lua_Integer)1 << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = bits >= 63 ? LUA_MAXINTEGER : ((lua_Integer)1 << bits) - 1;
  }
}

const char *dtype_range(lua_State *L, GpuDtype dt) {
  const DtypeInfo *d = &dtypes[dt];
  lua_Integer lo, hi;
  if (d->kind == 'u' && d->size == 8) return lua_pushfstring(L, " for %s: 0 to 18446744073709551615", d->name);
  if (d->kind != 'i' && d->kind != 'u') return lua_pushfstring(L, " for %s", d->name);
  int_range(d, &lo, &hi);
  return lua_pushfstring(L, " for %s: %I to %I", d->name, lo, hi);
}

/* Elements are stored little-endian (x86-64, AArch64): an integer of size bytes is the
 * low bytes of its 64-bit value. */
static void put_integer(void *dst, size_t size, uint64_t v) { memcpy(dst, &v, size); }

/* Stores integer v as integer dtype d; NULL or why not. A uint64 takes any integer's 64
 * bits, as string.pack("J") does: -1 is 2^64 - 1. */
static const char *store_integer(lua_Integer v, const DtypeInfo *d, void *dst) {
  lua_Integer lo, hi;
  if (d->kind == 'u' && d->size == 8) { put_integer(dst, 8, (uint64_t)v); return NULL; }
  int_range(d, &lo, &hi);
  if (v < lo || v > hi) return "out of range";
  put_integer(dst, d->size, (uint64_t)v);
  return NULL;
}

static void store_float(lua_Number v, size_t size, void *dst) {
  if (size == 4) { float f = (float)v; memcpy(dst, &f, 4); }
  else if (size == 8) { double f = (double)v; memcpy(dst, &f, 8); }
  else { uint16_t h = half_from_double(v); memcpy(dst, &h, 2); }
}

/* A float that holds an integer, as integer dtype d; NULL or why not. A uint64 takes
 * [2^63, 2^64) as its unsigned values and the rest as integers' bits. */
static const char *store_integral_float(double v, const DtypeInfo *d, void *dst) {
  if (isnan(v) || v != floor(v)) return "not an integer";
  if (d->kind == 'u' && v < 0) return "out of range";   /* (a negative integer: its bits) */
  if (d->kind == 'u' && d->size == 8 && v >= 9223372036854775808.0) {
    if (v >= 18446744073709551616.0) return "out of range";
    put_integer(dst, 8, (uint64_t)v);
    return NULL;
  }
  if (v < -9223372036854775808.0 || v >= 9223372036854775808.0) return "out of range";
  return store_integer((lua_Integer)v, d, dst);
}

const char *dtype_store(lua_State *L, int idx, GpuDtype dt, void *dst) {
  const DtypeInfo *d = &dtypes[dt];
  int t = lua_type(L, idx);
  if (d->kind == 'b') {
    if (t == LUA_TBOOLEAN) *(uint8_t *)dst = (uint8_t)lua_toboolean(L, idx);
    else if (t == LUA_TNUMBER) *(uint8_t *)dst = lua_tonumber(L, idx) != 0;
    else return "expected a boolean";
    return NULL;
  }
  if ((dt == DT_FLOAT32 || dt == DT_COMPLEX64) && lua_isinteger(L, idx)) {   /* rounded once, as */
    float f[2] = {(float)lua_tointeger(L, idx), 0.0f};   /* C's (float)i: through double, 2^60 + */
    memcpy(dst, f, d->size);                             /* 2^36 + 1 became 2^60 */
    return NULL;
  }
  if (d->kind == 'c') {   /* a number, or a gpu.complex */
    double re, im;
    if (!complex_get(L, idx, &re, &im)) return "expected a number or a gpu.complex";
    store_float(re, d->size / 2, dst);
    store_float(im, d->size / 2, (char *)dst + d->size / 2);
    return NULL;
  }
  if (t != LUA_TNUMBER) return "expected a number";
  if (d->kind == 'f') {
    store_float(lua_tonumber(L, idx), d->size, dst);
    return NULL;
  }
  /* integer dtypes: integral and in range, or an error (no silent truncation) */
  if (lua_isinteger(L, idx)) return store_integer(lua_tointeger(L, idx), d, dst);
  double v = lua_tonumber(L, idx);
  if (isnan(v)) {   /* the callers' messages show the value (luaL_tolstring): as "nan", not as */
    idx = lua_absindex(L, idx);   /* "-nan" for 0/0's sign bit, which NaN's meaning lacks */
    lua_pushnumber(L, (lua_Number)NAN);
    lua_replace(L, idx);
  }
  return store_integral_float(v, d, dst);
}

const char *dtype_store_value(lua_State *L, int idx, GpuDtype dt, void *dst) {
  if (lua_type(L, idx) == LUA_TBOOLEAN && dtypes[dt].kind != 'b') {   /* true is 1, as NumPy's */
    uint8_t b = (uint8_t)lua_toboolean(L, idx);
    element_convert(dst, dt, &b, DT_BOOL);
    return NULL;
  }
  return dtype_store(L, idx, dt, dst);
}

void dtype_push(lua_State *L, GpuDtype dt, const void *src) {
  const DtypeInfo *d = &dtypes[dt];
  if (d->kind == 'b') { lua_pushboolean(L, *(const uint8_t *)src != 0); return; }
  if (d->kind == 'c') {
    if (d->size == 8) { float z[2]; memcpy(z, src, 8); complex_push_single(L, z[0], z[1]); }
    else { double z[2]; memcpy(z, src, 16); complex_push(L, z[0], z[1]); }
    return;
  }
  if (d->kind == 'f') {
    if (d->size == 4) { float f; memcpy(&f, src, 4); lua_pushnumber(L, f); }
    else if (d->size == 8) { double f; memcpy(&f, src, 8); lua_pushnumber(L, f); }
    else { uint16_t h; memcpy(&h, src, 2); lua_pushnumber(L, half_to_double(h)); }
    return;
  }
  uint64_t v = 0;
  memcpy(&v, src, d->size);
  int bits = (int)(8 * d->size);
  if (d->kind == 'i' && bits < 64 && (v >> (bits - 1) & 1)) v |= ~(uint64_t)0 << bits;  /* sign */
  lua_Integer i;   /* the same 64 bits: a uint64 at or above 2^63 is a negative integer */
  memcpy(&i, &v, sizeof i);
  lua_pushinteger(L, i);
}

/* gpu._dtypes: {{name=, ctype=, size=, kind=, aliases={...}, spellings={...}}, ...} in
 * the table's order, for lua/gpu.lua and lua/signature.lua. */
static void push_list(lua_State *L, const char *list) {
  lua_newtable(L);
  int n = 0;
  for (const char *p = list; *p;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    lua_pushlstring(L, p, len);
    lua_rawseti(L, -2, ++n);
    if (!bar) break;
    p = bar + 1;
  }
}

/* gpu._shape(shape): the shape as gpu.empty reads it (its errors too) and its element
 * count, with nothing allocated (gpu.random checked its shapes with an int64 array) */
static int dtype_shape(lua_State *L) {
  GpuShape s;
  shape_check(L, 1, &s);
  shape_push(L, &s);
  lua_pushinteger(L, (lua_Integer)s.size);
  return 2;
}

void dtype_open(lua_State *L) {
  lua_createtable(L, DT_COUNT, 0);
  for (int i = 0; i < DT_COUNT; i++) {
    const DtypeInfo *d = &dtypes[i];
    lua_createtable(L, 0, 6);
    lua_pushstring(L, d->name);
    lua_setfield(L, -2, "name");
    lua_pushlstring(L, d->spellings, strcspn(d->spellings, "|"));
    lua_setfield(L, -2, "ctype");
    lua_pushinteger(L, (lua_Integer)d->size);
    lua_setfield(L, -2, "size");
    lua_pushlstring(L, &d->kind, 1);
    lua_setfield(L, -2, "kind");
    push_list(L, d->aliases);
    lua_setfield(L, -2, "aliases");
    push_list(L, d->spellings);
    lua_setfield(L, -2, "spellings");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "_dtypes");
  lua_pushcfunction(L, dtype_shape);
  lua_setfield(L, -2, "_shape");
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
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);   /* raw, as table data is read */
    if (n > GPU_MAXDIM)
      luaL_error(L, "shape must have 0 to %d dimensions, got %I", GPU_MAXDIM, n);
    const char *bad = table_not_list(L, idx, n);   /* ({x = 2} and a proxy were 0-D shapes) */
    if (bad) luaL_argerror(L, idx, lua_pushfstring(L, "shape must be a list of sizes, and the table has %s", bad));
    s->ndim = (int)n;
    for (int i = 0; i < s->ndim; i++) {
      char what[32];
      snprintf(what, sizeof what, "shape[%d]", i + 1);
      lua_rawgeti(L, idx, i + 1);
      s->dim[i] = size_check(L, -1, what);
      lua_pop(L, 1);
    }
  } else {
    luaL_argerror(L, idx, lua_pushfstring(L, "shape (a number or a table of numbers) expected, "
                                          "got %s", luaL_typename(L, idx)));
  }
  if (!shape_fits(s)) luaL_argerror(L, idx, "shape is too large: more elements than an array holds (2^48)");
  s->size = 1;
  for (int i = 0; i < s->ndim; i++) s->size *= s->dim[i];
}

/* The product of the nonzero dims (what strides reach, even with no elements) stays
 * within MAX_SIZE, and no dim is negative. */
int shape_fits(const GpuShape *s) {
  int64_t reach = 1;
  for (int i = 0; i < s->ndim; i++) {
    if (s->dim[i] < 0 || s->dim[i] > MAX_SIZE) return 0;
    if (s->dim[i] == 0) continue;
    if (reach > MAX_SIZE / s->dim[i]) return 0;
    reach *= s->dim[i];
  }
  return 1;
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
  else if (strcmp(k, "dtype") == 0) lua_pushstring(L, dtypes[dt].name);
  else if (strcmp(k, "size") == 0) lua_pushinteger(L, s->size);
  else if (strcmp(k, "ndim") == 0) lua_pushinteger(L, s->ndim);
  else if (strcmp(k, "nbytes") == 0) lua_pushinteger(L, (lua_Integer)(s->size * (int64_t)dtypes[dt].size));
  else return 0;
  return 1;
}

int method_push(lua_State *L, int idx, const char *k) {
  if (!lua_getmetatable(L, idx)) return 0;
  if (lua_getfield(L, -1, "methods") != LUA_TTABLE) { lua_pop(L, 2); return 0; }
  if (lua_getfield(L, -1, k) == LUA_TNIL) { lua_pop(L, 3); return 0; }
  lua_replace(L, -3);   /* the method where the metatable was */
  lua_pop(L, 1);        /* the methods table */
  return 1;
}
