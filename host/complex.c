/* complex.c: complex numbers as Lua values ("gpu.complex"): what reading an element of a
 * complex64 or complex128 array gives (a:item(), a:totable(), h[i]) and what writing one
 * takes besides a number. gpu.complex(re [, im]); z.re, z.im; arithmetic with numbers and
 * each other, ==, tostring as NumPy writes them ("1+2j"). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

typedef struct Complex {
  double re, im;
  int single;   /* an element of a complex64 array: shown with float32's digits */
} Complex;

void complex_push(lua_State *L, double re, double im) {
  Complex *z = lua_newuserdatauv(L, sizeof *z, 0);
  z->re = re;
  z->im = im;
  z->single = 0;
  luaL_setmetatable(L, GPU_COMPLEX_T);
}

void complex_push_single(lua_State *L, float re, float im) {
  complex_push(L, re, im);
  ((Complex *)lua_touserdata(L, -1))->single = 1;
}

int complex_get(lua_State *L, int idx, double *re, double *im) {
  if (lua_type(L, idx) == LUA_TNUMBER) { *re = lua_tonumber(L, idx); *im = 0; return 1; }
  Complex *z = luaL_testudata(L, idx, GPU_COMPLEX_T);
  if (z == NULL) return 0;
  *re = z->re;
  *im = z->im;
  return 1;
}

GpuDtype dtype_real(GpuDtype dt) {
  return dt == DT_COMPLEX64 ? DT_FLOAT32 : dt == DT_COMPLEX128 ? DT_FLOAT64 : dt;
}

/* [-0, +0, v] Argument i as a complex number. */
static double _Complex arg(lua_State *L, int i) {
  double re, im;
  if (!complex_get(L, i, &re, &im))
    luaL_error(L, "attempt to do arithmetic with a gpu.complex and a %s", luaL_typename(L, i));
  return CMPLX(re, im);
}
static int push(lua_State *L, double _Complex z) { complex_push(L, creal(z), cimag(z)); return 1; }

/* [-0, +1, e] z op x where x is neither a number nor a gpu.complex but has a metamethod of
 * its own for op (a sparse matrix's __mul, an array's): x's answer, as Lua would ask x
 * had z none. 0 (nothing pushed) otherwise. */
static int theirs(lua_State *L, const char *event) {
  double re, im;
  int i = complex_get(L, 1, &re, &im) ? 2 : 1;
  if (complex_get(L, i, &re, &im) || luaL_getmetafield(L, i, event) == LUA_TNIL) return 0;
  lua_insert(L, 1);
  lua_settop(L, 3);
  lua_call(L, 2, 1);
  return 1;
}
static int cx_add(lua_State *L) { return theirs(L, "__add") ? 1 : push(L, arg(L, 1) + arg(L, 2)); }
static int cx_sub(lua_State *L) { return theirs(L, "__sub") ? 1 : push(L, arg(L, 1) - arg(L, 2)); }
/* The product and quotient as the kernels compute them (kernels/gpuhost.cuh: NumPy's (ac -
 * bd) + (ad + bc)i, Smith's quotient by |b|'s parts), so that a:item(i) * b:item(i) is (a *
 * b):item(i): C's _Complex recovers infinities (Annex G), where NumPy does not: it gave
 * (inf+infj)(1+0j) inf+infj (NumPy: nan+nanj) and (1+1j) / (-0+0j) -inf-infj (inf+infj) */
static int cx_mul(lua_State *L) {
  if (theirs(L, "__mul")) return 1;
  double _Complex a = arg(L, 1), b = arg(L, 2);
  double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
  complex_push(L, ar * br - ai * bi, ar * bi + ai * br);
  return 1;
}
static int cx_div(lua_State *L) {
  if (theirs(L, "__div")) return 1;
  double _Complex a = arg(L, 1), b = arg(L, 2);
  double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
  double sr = br < 0 ? -br : br + 0.0, si = bi < 0 ? -bi : bi + 0.0;   /* +0 for -0 */
  if (sr >= si && sr == 0 && si == 0) {
    complex_push(L, ar / sr, ai / sr);   /* inf or nan, as NumPy's */
  } else if (sr >= si) {
    double r = bi / br, d = br + bi * r;
    complex_push(L, (ar + ai * r) / d, (ai - ar * r) / d);
  } else {
    double r = br / bi, d = br * r + bi;
    complex_push(L, (ar * r + ai) / d, (ai * r - ar) / d);
  }
  return 1;
}
static int cx_unm(lua_State *L) { return push(L, -arg(L, 1)); }
static int cx_eq(lua_State *L) {
  double a, b, c, d;
  lua_pushboolean(L, complex_get(L, 1, &a, &b) && complex_get(L, 2, &c, &d) && a == c && b == d);
  return 1;
}

/* The fewest significant digits (from 1 up to most) of finite x != 0 that read back as x:
 * ds (digits, no point) and the exponent of the first, as digits() in lua/format.lua finds
 * them. Where the nearest p digits do not read back, the p digits on x's other side may:
 * printf rounds a tie to even, and at a power of two only the one above reads back (2^-24:
 * 5.960464477539063e-08, not ...062e-08). */
static int fewest(char *ds, double x, int single, int *exp10) {
  int most = single ? 9 : 17;
  double a = fabs(x);
  for (int p = 1; p <= most; p++) {
    char s[48];
    snprintf(s, sizeof s, "%.*e", p - 1, a);
    double back = strtod(s, NULL);
    int n = 0;
    for (const char *c = s; *c != 'e'; c++) if (*c != '.') ds[n++] = *c;
    ds[n] = '\0';
    *exp10 = atoi(strchr(s, 'e') + 1);
    if ((single ? (double)(float)back : back) == a || p == most) return n;
    long long other = atoll(ds) + (back < a ? 1 : -1);
    snprintf(s, sizeof s, "%llde%d", other, *exp10 - p + 1);
    back = strtod(s, NULL);
    if (other > 0 && (single ? (double)(float)back : back) == a) {
      n = snprintf(ds, 24, "%lld", other);
      if (n > p) (*exp10)++;                         /* a carry: 999 + 1 is 1000 */
      while (n > 1 && ds[n - 1] == '0') ds[--n] = '\0';
      return n;
    }
  }
  return 0;
}

/* x with the fewest significant digits, 6 at least (up to 9 for float32, 17), that read
 * back as x, as lua/format.lua shows array elements (so distinct values never look equal);
 * past 6 digits a whole number below 10^most shows all of them (123456789, not
 * 1.23456789e+08) */
static void shortest(char *s, size_t n, double x, int single, int sign) {
  char ds[24];
  int e = 0, most = single ? 9 : 17, nd = x == 0 ? 1 : fewest(ds, x, single, &e);
  if (nd <= 6) { snprintf(s, n, sign ? "%+.6g" : "%.6g", x); return; }
  if (e >= nd && e < most) { snprintf(s, n, sign ? "%+.*g" : "%.*g", e + 1, x); return; }
  const char *sg = x < 0 ? "-" : sign ? "+" : "";
  if (e < -4 || e >= nd) snprintf(s, n, "%s%c.%se%c%02d", sg, ds[0], ds + 1, e < 0 ? '-' : '+', abs(e));
  else if (e < 0) snprintf(s, n, "%s0.%.*s%s", sg, -e - 1, "000", ds);   /* e >= -4 */
  else if (e + 1 >= nd) snprintf(s, n, "%s%s", sg, ds);
  else snprintf(s, n, "%s%.*s.%s", sg, e + 1, ds, ds + e + 1);
}

/* a part as NumPy writes it: the shortest digits, nan, inf */
static void part(luaL_Buffer *b, double x, int single, int sign) {
  char s[48];
  if (isnan(x)) snprintf(s, sizeof s, "%snan", sign ? "+" : "");
  else if (isinf(x)) snprintf(s, sizeof s, "%s", x > 0 ? (sign ? "+inf" : "inf") : "-inf");
  else shortest(s, sizeof s, x, single, sign);
  luaL_addstring(b, s);
}

static int cx_tostring(lua_State *L) {
  Complex *z = luaL_checkudata(L, 1, GPU_COMPLEX_T);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  part(&b, z->re, z->single, 0);
  part(&b, z->im, z->single, 1);
  luaL_addchar(&b, 'j');
  luaL_pushresult(&b);
  return 1;
}

static int cx_index(lua_State *L) {
  Complex *z = luaL_checkudata(L, 1, GPU_COMPLEX_T);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "re") == 0) lua_pushnumber(L, z->re);
  else if (strcmp(k, "im") == 0) lua_pushnumber(L, z->im);
  else return luaL_error(L, "gpu.complex has no field '%s' (it has re and im)", k);
  return 1;
}

/* gpu.complex(re [, im]) */
static int gpu_complex(lua_State *L) {
  double re = luaL_checknumber(L, 1), im = luaL_optnumber(L, 2, 0);
  complex_push(L, re, im);
  return 1;
}

static const luaL_Reg complex_meta[] = {
  {"__add", cx_add}, {"__sub", cx_sub}, {"__mul", cx_mul}, {"__div", cx_div}, {"__unm", cx_unm},
  {"__eq", cx_eq}, {"__tostring", cx_tostring}, {"__index", cx_index}, {NULL, NULL}
};

/* Expects the gpu table on top. */
void complex_open(lua_State *L) {
  luaL_newmetatable(L, GPU_COMPLEX_T);
  luaL_setfuncs(L, complex_meta, 0);
  lua_pop(L, 1);
  lua_pushcfunction(L, gpu_complex);
  lua_setfield(L, -2, "complex");
}
