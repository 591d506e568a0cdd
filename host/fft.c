/* fft.c: gpu.fft, NumPy's numpy.fft: fft, ifft, rfft, irfft, hfft, ihfft (one dim), fft2,
 * ifft2, rfft2, irfft2 (two), fftn, ifftn, rfftn, irfftn (any). hfft and ihfft are irfft and
 * rfft of the conjugate, with the direction of `norm` swapped, as NumPy defines them.
 * Transforms go to the backend's fft (cuFFT, FFTW): when the dims transformed are the last ones (up to 3) of a C-ordered array, one call does
 * them all; otherwise one dim at a time, each moved last in a C-ordered copy and back.
 * Sizes given (n, s) crop or pad with zeros along their dims first, as NumPy's; the
 * scaling of `norm` ("backward", "ortho", "forward") is one multiply afterwards, of each part
 * of a complex result alone (parts_view), as NumPy's. */
#include <stdio.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include "gpu.h"

enum { NORM_BACKWARD, NORM_ORTHO, NORM_FORWARD };
enum { SIZE_DEFAULT = -1, SIZE_INPUT = -2 };   /* a size not given; given as -1 (the input's) */

typedef struct FftCall {
  const char *name;
  int kind, inverse, naxes, norm, hermitian;
  int repeated;                  /* a dim given more than once: transformed once for each */
  int axes[GPU_MAXDIM];          /* 0-based, increasing (but a real dim last) */
  int64_t s[GPU_MAXDIM];         /* the sizes of the transforms (or SIZE_DEFAULT, SIZE_INPUT) */
  CUstream stream;
} FftCall;

/* [-0, +1, e] The array at idx with dim d cropped or padded with zeros to n. */
static void resized(lua_State *L, int idx, int d, int64_t n) {
  idx = lua_absindex(L, idx);
  GpuArray *a = array_check(L, idx);
  GpuLayout l = array_layout(a);
  int64_t have = a->shape.dim[d];
  if (n <= have) {
    layout_slice(&l, d, 0, n, 1);
    array_view(L, idx, &l);
    return;
  }
  GpuShape s = a->shape;
  s.dim[d] = n;
  s.size = s.size / (have ? have : 1) * n;
  if (have == 0) { s.size = 1; for (int k = 0; k < s.ndim; k++) s.size *= s.dim[k]; }
  GpuArray *z = array_new(L, &s, a->dtype);
  if (z->nbytes) GPU_CHECK(L, backend_get()->memset0(z->ptr, z->nbytes));
  GpuLayout zl = array_layout(z);
  layout_slice(&zl, d, 0, have, 1);
  array_view(L, -1, &zl);
  ops_copy(L, -1, idx, NULL);
  lua_pop(L, 1);
}

/* [-0, +1, e] A view of the array at idx with dims `move` (k of them, increasing) last, in
 * their order; back: the inverse. */
static void moved(lua_State *L, int idx, const int *move, int k, int back) {
  idx = lua_absindex(L, idx);
  GpuArray *a = array_check(L, idx);
  GpuLayout l = array_layout(a);
  int nd = l.shape.ndim, perm[GPU_MAXDIM], n = 0, is[GPU_MAXDIM] = {0};
  for (int i = 0; i < k; i++) is[move[i]] = 1;
  for (int d = 0; d < nd; d++) if (!is[d]) perm[n++] = d;
  for (int i = 0; i < k; i++) perm[n++] = move[i];
  if (back) {
    int inv[GPU_MAXDIM];
    for (int d = 0; d < nd; d++) inv[perm[d]] = d;
    memcpy(perm, inv, sizeof inv);
  }
  layout_permute(&l, perm);
  array_view(L, idx, &l);
}

/* [-0, +1, e] One backend transform of the trailing `rank` dims of the C-ordered array at
 * idx (the real sizes n); the result is new. */
static void transform(lua_State *L, const FftCall *c, int idx, int kind, int rank, const int64_t *n) {
  GpuArray *a = array_check(L, idx);
  int nd = a->shape.ndim, dbl = dtypes[a->dtype].size == (dtypes[a->dtype].kind == 'c' ? 16 : 8);
  GpuShape s = a->shape;
  GpuDtype out = kind == GPU_FFT_C2R ? (dbl ? DT_FLOAT64 : DT_FLOAT32) : (dbl ? DT_COMPLEX128 : DT_COMPLEX64);
  if (kind == GPU_FFT_R2C) s.dim[nd - 1] = n[rank - 1] / 2 + 1;
  if (kind == GPU_FFT_C2R) s.dim[nd - 1] = n[rank - 1];
  s.size = 1;
  for (int d = 0; d < nd; d++) s.size *= s.dim[d];
  GpuArray *o = array_new(L, &s, out);
  int64_t per = 1;
  for (int i = 0; i < rank; i++) per *= n[i];
  if (s.size == 0) return;
  int64_t in_per = kind == GPU_FFT_C2R ? per / n[rank - 1] * (n[rank - 1] / 2 + 1) : per;
  GpuFft f = {.kind = kind, .dbl = dbl, .inverse = c->inverse, .rank = rank,
              .batch = a->shape.size / in_per, .in = a->ptr, .out = o->ptr, .stream = c->stream};
  for (int i = 0; i < 3; i++) f.n[i] = i < rank ? n[i] : 1;
  if (graph_capturing) { graph_keep(L, idx); graph_keep(L, -1); }
  GPU_CHECK(L, backend_get()->fft(&f));
}

/* [-0, +1, e] The transform of dims `dims` (k, increasing, at most 3) of the array at idx,
 * taken to the end of a C-ordered copy when they are not there, and back. */
static void transform_dims(lua_State *L, const FftCall *c, int idx, int kind, const int *dims, int k, const int64_t *n) {
  idx = lua_absindex(L, idx);
  GpuArray *a = array_check(L, idx);
  int nd = a->shape.ndim, trailing = 1;
  for (int i = 0; i < k; i++) trailing = trailing && dims[i] == nd - k + i;
  int top = lua_gettop(L);
  if (trailing) copy_contiguous(L, idx);
  else { moved(L, idx, dims, k, 0); copy_contiguous(L, -1); }
  if (kind == GPU_FFT_C2R && array_check(L, -1)->ptr == a->ptr) {   /* C2R may overwrite its input */
    copy_packed(L, -1);
    lua_remove(L, -2);
  }
  transform(L, c, lua_gettop(L), kind, k, n);
  if (!trailing) {
    moved(L, -1, dims, k, 1);
    copy_contiguous(L, -1);
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
}

/* [-0, +0, e] The sizes of the transforms, n: those given, else the input's along their dims
 * (C2R's real dim: 2 (m - 1) for m given, but m for -1 given), as NumPy's, from the input's
 * shape; and want, the input's sizes cropped or padded to them (C2R's real dim: n / 2 + 1). */
static void sizes_of(lua_State *L, const FftCall *c, const GpuArray *a, int64_t *n, int64_t *want) {
  for (int i = 0; i < c->naxes; i++) {
    int64_t m = a->shape.dim[c->axes[i]];
    int half = c->s[i] == SIZE_DEFAULT && c->kind == GPU_FFT_C2R && i == c->naxes - 1;
    n[i] = c->s[i] >= 1 ? c->s[i] : half ? 2 * (m - 1) : m;
    if (n[i] < 1) luaL_error(L, "gpu.fft.%s: invalid number of data points (%I) along dim %d", c->name, (lua_Integer)n[i], c->axes[i] + 1);
  }
  /* the input cropped and padded to them, and the result (a dim given again: its last size) */
  GpuShape in = a->shape, out = a->shape;
  int most = 0;
  for (int i = 0; i < c->naxes; i++) {
    int last = i == c->naxes - 1;
    in.dim[c->axes[i]] = want[i] = c->kind == GPU_FFT_C2R && last ? n[i] / 2 + 1 : n[i];
    out.dim[c->axes[i]] = c->kind == GPU_FFT_R2C && last ? n[i] / 2 + 1 : n[i];
    if (n[i] > n[most]) most = i;
  }
  if (!shape_fits(&in) || !shape_fits(&out))
    luaL_error(L, "gpu.fft.%s: %I data points along dim %d make an array of more than 2^48 elements",
               c->name, (lua_Integer)n[most], c->axes[most] + 1);
}

/* [-0, +k, e] The transform of the array on top a dim at a time in NumPy's order (the dims
 * given last first; rfftn's real dim first, irfftn's last), each cropped or padded to its
 * size just before it: a dim given twice is transformed twice, as NumPy's fftn does. */
static void stepwise(lua_State *L, const FftCall *c, const int64_t *n) {
  int order[GPU_MAXDIM], k = 0, last = c->naxes - 1;
  if (c->kind == GPU_FFT_R2C) order[k++] = last;
  if (c->kind == GPU_FFT_C2R) for (int i = 0; i < last; i++) order[k++] = i;
  else for (int i = c->kind == GPU_FFT_C2C ? last : last - 1; i >= 0; i--) order[k++] = i;
  if (c->kind == GPU_FFT_C2R) order[k++] = last;
  for (int j = 0; j < k; j++) {
    int i = order[j], kind = i == last ? c->kind : GPU_FFT_C2C;
    int64_t want = kind == GPU_FFT_C2R ? n[i] / 2 + 1 : n[i];
    if (want != array_check(L, -1)->shape.dim[c->axes[i]]) { resized(L, -1, c->axes[i], want); lua_remove(L, -2); }
    transform_dims(L, c, lua_gettop(L), kind, &c->axes[i], 1, &n[i]);   /* (run_fft settles the stack) */
  }
}

/* [-0, +1, e] The C-ordered array at idx, complex, as a 1-D view of its parts (re, im, re,
 * ...): multiplied by a real number, each part is scaled alone (the complex product with
 * f + 0i made inf * 0 a NaN part). array_view makes it in the array's dtype: the real
 * dtype's element count, size and pointer are set here. */
static void parts_view(lua_State *L, int idx) {
  GpuArray *a = array_check(L, idx);
  GpuShape s = {.ndim = 1, .dim = {2 * a->shape.size}, .size = 2 * a->shape.size};
  GpuLayout l;
  layout_init(&l, &s);
  l.offset = 2 * a->offset;
  GpuArray *v = array_view(L, idx, &l);
  v->dtype = dtype_real(a->dtype);
  v->nbytes = (size_t)s.size * dtypes[v->dtype].size;
  v->ptr = v->base ? v->base + (CUdeviceptr)(l.offset * (int64_t)dtypes[v->dtype].size) : 0;
}

/* [-0, +1, e] The whole transform of the array at idx (already of a dtype it takes). */
static void run_fft(lua_State *L, FftCall *c, int idx) {
  int top = lua_gettop(L), nd = array_check(L, idx)->shape.ndim;
  int64_t n[GPU_MAXDIM], want[GPU_MAXDIM];
  sizes_of(L, c, array_check(L, idx), n, want);
  lua_pushvalue(L, idx);
  /* crop, then pad, to the sizes (C2R: its half): no array larger than the padded input */
  for (int pad = 0; pad < 2 && !c->repeated; pad++)
    for (int i = 0; i < c->naxes; i++) {
      int64_t have = array_check(L, -1)->shape.dim[c->axes[i]];
      if (pad ? want[i] > have : want[i] < have) { resized(L, -1, c->axes[i], want[i]); lua_remove(L, -2); }
    }
  int trailing = c->naxes <= 3 && !c->repeated;
  for (int i = 0; trailing && i < c->naxes; i++) trailing = c->axes[i] == nd - c->naxes + i;
  if (c->repeated) {
    stepwise(L, c, n);
  } else if (trailing) {
    transform_dims(L, c, lua_gettop(L), c->kind, c->axes, c->naxes, n);
  } else {   /* a dim at a time: R2C first, C2R last, as NumPy's rfftn and irfftn */
    int order[GPU_MAXDIM], k = 0;
    if (c->kind != GPU_FFT_C2R) order[k++] = c->naxes - 1;
    for (int i = 0; i < c->naxes - 1; i++) order[k++] = i;
    if (c->kind == GPU_FFT_C2R) order[k++] = c->naxes - 1;
    for (int j = 0; j < k; j++) {
      int i = order[j], kind = i == c->naxes - 1 ? c->kind : GPU_FFT_C2C;
      transform_dims(L, c, lua_gettop(L), kind, &c->axes[i], 1, &n[i]);
    }
  }
  double total = 1;
  for (int i = 0; i < c->naxes; i++) total *= (double)n[i];
  double f = c->norm == NORM_ORTHO ? 1 / sqrt(total) : (c->norm == NORM_FORWARD) != c->inverse ? 1 / total : 1;
  if (f != 1) {   /* the scaling, in place: of a complex result, each part */
    if (!array_check(L, -1)->contiguous) { copy_contiguous(L, -1); lua_remove(L, -2); }
    if (dtypes[array_check(L, -1)->dtype].kind == 'c') parts_view(L, -1); else lua_pushvalue(L, -1);
    lua_getfield(L, -1, "multiply");
    lua_pushvalue(L, -2);
    lua_pushnumber(L, f);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "out");
    lua_call(L, 3, 0);
    lua_pop(L, 1);
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
}

/* [-0, +0, e] The array at idx conjugated (a:conj()): into itself with `inplace`, else
 * the new one replaces it there. */
static void conjugated(lua_State *L, int idx, int inplace) {
  idx = lua_absindex(L, idx);
  lua_getfield(L, idx, "conj");
  lua_pushvalue(L, idx);
  if (inplace) {
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, idx);
    lua_setfield(L, -2, "out");
  }
  lua_call(L, inplace ? 2 : 1, 1);
  if (inplace) lua_pop(L, 1); else lua_replace(L, idx);
}

/* ---- arguments ---- */

static int dim_at(lua_State *L, const FftCall *c, int idx, int nd) {
  lua_Integer d, k;
  if (!errors_integer(L, idx, &d)) luaL_error(L, "gpu.fft.%s: a dim must be an integer, got %s", c->name, errors_value(L, idx));
  k = d < 0 ? d + nd + 1 : d;
  if (k < 1 || k > nd)
    luaL_error(L, "gpu.fft.%s: dim %I is out of range for an array of %d dimension%s", c->name, d, nd, nd == 1 ? "" : "s");
  return (int)k - 1;
}

/* The 1-D transforms take one dim and one size: a table of them is an error, as NumPy's
 * (a tuple axis is its TypeError), not a transform over several dims */
static void one_dim(lua_State *L, const FftCall *c, int di, int si) {
  int dims = di && lua_type(L, di) == LUA_TTABLE;
  if (!dims && !(si && lua_type(L, si) == LUA_TTABLE)) return;
  const char *many = c->hermitian ? "" : c->kind == GPU_FFT_C2C ? (c->inverse ? " (gpu.fft.ifftn takes several)" : " (gpu.fft.fftn takes several)")
                                       : c->inverse ? " (gpu.fft.irfftn takes several)" : " (gpu.fft.rfftn takes several)";
  luaL_error(L, "gpu.fft.%s transforms one dim: %s must be an integer, got a table%s", c->name, dims ? "the dim" : "the size n", many);
}

/* [-0, +0, e] The length of the list at idx (`what`: dims or s in messages), read raw: a hole
 * or a key besides 1 to n is an error, as gpu._arg.list's ({3, 4, norm = "ortho"} lost its
 * norm, {[1] = 2, [3] = 4} was {2}) */
static int list_len(lua_State *L, const FftCall *c, int idx, const char *what) {
  lua_Integer last = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > last) last = lua_tointeger(L, -1);
  }
  for (lua_Integer i = 1; i <= last; i++) {
    if (lua_rawgeti(L, idx, i) == LUA_TNIL) luaL_error(L, "gpu.fft.%s: %s[%I] is nil", c->name, what, i);
    lua_pop(L, 1);
  }
  const char *bad = table_not_list(L, idx, last);
  if (bad) luaL_error(L, "gpu.fft.%s: %s must be a list, and the table has %s", c->name, what, bad);
  return last > INT_MAX ? INT_MAX : (int)last;
}

/* [-0, +0, e] The dims at di (a number, a table, or nil: `def` of them, last; -1: every
 * one, or as many as the sizes at si) and the sizes at si (a number, a table, or nil). */
static void read_dims(lua_State *L, FftCall *c, int di, int si, int nd, int def) {
  int ns = -1;
  if (def == 1) one_dim(L, c, di, si);
  if (si && lua_type(L, si) == LUA_TTABLE) ns = list_len(L, c, si, "s");
  else if (si && !lua_isnil(L, si)) ns = 1;
  if (di && lua_type(L, di) == LUA_TTABLE) {
    c->naxes = list_len(L, c, di, "dims");
    if (c->naxes > GPU_MAXDIM)
      luaL_error(L, "gpu.fft.%s: %d dims (1 to %d, a dim given again counting again)", c->name, c->naxes, GPU_MAXDIM);
    for (int i = 0; i < c->naxes; i++) { lua_rawgeti(L, di, i + 1); c->axes[i] = dim_at(L, c, -1, nd); lua_pop(L, 1); }
  } else if (di && !lua_isnil(L, di)) {
    if (def == 2)   /* fft2(a, nil, 1) was fft's transform of dim 1; NumPy raises for axes=0 */
      luaL_error(L, "gpu.fft.%s: dims must be a table of dims, got a %s (gpu.fft.%s transforms one dim)", c->name,
                 luaL_typename(L, di), lua_pushlstring(L, c->name, strlen(c->name) - 1));
    c->naxes = 1;
    c->axes[0] = dim_at(L, c, di, nd);
  } else {
    c->naxes = def < 0 ? (ns >= 0 ? ns : nd) : def;
    if (c->naxes > nd) luaL_error(L, "gpu.fft.%s takes an array of %d or more dimensions, got %d", c->name, c->naxes, nd);
    for (int i = 0; i < c->naxes; i++) c->axes[i] = nd - c->naxes + i;
  }
  for (int i = 0; i < c->naxes; i++)
    for (int j = 0; j < i; j++) c->repeated |= c->axes[i] == c->axes[j];
  if (ns >= 0 && ns != c->naxes) luaL_error(L, "gpu.fft.%s: %d sizes for %d dims", c->name, ns, c->naxes);
  if (c->naxes == 0 && c->kind != GPU_FFT_C2C)   /* (NumPy: an IndexError) */
    luaL_error(L, "gpu.fft.%s: no dim given (it takes the last one given as the real one)", c->name);
  for (int i = 0; i < c->naxes; i++) {
    c->s[i] = SIZE_DEFAULT;
    if (ns < 0) continue;
    if (lua_type(L, si) == LUA_TTABLE) lua_rawgeti(L, si, i + 1); else lua_pushvalue(L, si);
    lua_Integer v;
    if (!errors_integer(L, -1, &v)) luaL_error(L, "gpu.fft.%s: a size must be an integer, got %s", c->name, errors_value(L, -1));
    if (v == -1 && def != 1) v = SIZE_INPUT;   /* NumPy 2's s: the input's length there (n = -1 is refused) */
    else if (v < 1) luaL_error(L, "gpu.fft.%s: invalid number of data points (%I) along dim %d", c->name, v, c->axes[i] + 1);
    c->s[i] = v;
    lua_pop(L, 1);
  }
  /* increasing, sizes along; but rfftn's and irfftn's real dim is the last one given, as
   * NumPy's, so it stays last */
  int sorted = c->kind == GPU_FFT_C2C ? c->naxes : c->naxes - 1;
  for (int i = 1; i < sorted; i++)
    for (int j = i; j > 0 && c->axes[j] < c->axes[j - 1]; j--) {
      int t = c->axes[j]; c->axes[j] = c->axes[j - 1]; c->axes[j - 1] = t;
      int64_t u = c->s[j]; c->s[j] = c->s[j - 1]; c->s[j - 1] = u;
    }
}

/* hfft and ihfft swap the direction ("backward" scales ihfft, as NumPy's) */
static int swapped(const FftCall *c, int norm) {
  if (!c->hermitian || norm == NORM_ORTHO) return norm;
  return norm == NORM_BACKWARD ? NORM_FORWARD : NORM_BACKWARD;
}

static int read_norm(lua_State *L, const FftCall *c, int idx) {
  if (!idx || lua_isnil(L, idx)) return swapped(c, NORM_BACKWARD);
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;   /* a number stays one */
  if (s && strcmp(s, "backward") == 0) return swapped(c, NORM_BACKWARD);
  if (s && strcmp(s, "ortho") == 0) return NORM_ORTHO;
  if (s && strcmp(s, "forward") == 0) return swapped(c, NORM_FORWARD);
  return luaL_error(L, "gpu.fft.%s: norm must be \"backward\", \"ortho\" or \"forward\", got %s", c->name,
                    errors_value(L, idx));
}

/* [-0, +1, e] The input at 1 as the dtype the transform takes. */
static void input(lua_State *L, const FftCall *c) {
  GpuArray *a = array_test(L, 1);
  if (a == NULL) array_expected(L, 1, c->name, 1);
  if (!a->alive) errors_freed(L, lua_pushfstring(L, "gpu.fft.%s argument 1", c->name));
  array_here(L, a, "gpu.fft.", c->name);
  char k = dtypes[a->dtype].kind;
  if (k != 'f' && k != 'c')
    luaL_error(L, "gpu.fft.%s: %s arrays: FFTs take float32, float64, complex64 or complex128 (convert with astype)",
               c->name, dtypes[a->dtype].name);
  if (c->kind == GPU_FFT_R2C && k == 'c')
    luaL_error(L, "gpu.fft.%s takes a real array (float32 or float64), got %s", c->name, dtypes[a->dtype].name);
  if (graph_capturing && strcmp(backend_get()->name, "cpu") == 0)
    graph_refuse(L, "gpu.fft.%s cannot be recorded in a graph on the CPU backend (FFTW runs at once)", c->name);
  int f32 = a->dtype == DT_FLOAT32 || a->dtype == DT_FLOAT16;   /* float16 goes as float32, as CuPy's */
  GpuDtype want = c->kind == GPU_FFT_R2C ? (f32 ? DT_FLOAT32 : a->dtype)
                : f32 ? DT_COMPLEX64 : a->dtype == DT_FLOAT64 ? DT_COMPLEX128 : a->dtype;
  if (want == a->dtype) { lua_pushvalue(L, 1); return; }
  array_new(L, &a->shape, want);
  ops_copy(L, -1, 1, NULL);
}

/* [-0, +0, e] The options table at 5: {n = or s =, dim = or dims =, norm =, stream =} into
 * arguments 2 to 4; one given both ways is an error (as a sort's dim), not a silent choice. */
static void read_options(lua_State *L, FftCall *c) {
  static const char *const keys[3][2] = {{"n", "s"}, {"dim", "dims"}, {"norm", NULL}};
  static const char *const what[3] = {"the size (n or s)", "the dim (dim or dims)", "norm"};
  char name[32];
  snprintf(name, sizeof name, "fft.%s", c->name);
  errors_options(L, 5, name, "n s dim dims norm stream");
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2 && keys[i][j]; j++) {
      if (lua_getfield(L, 5, keys[i][j]) == LUA_TNIL) { lua_pop(L, 1); continue; }
      if (!lua_isnil(L, i + 2))
        luaL_error(L, "gpu.fft.%s: %s is given twice (as an argument and as an option, or as both options)",
                   c->name, what[i]);
      lua_replace(L, i + 2);
    }
  if (lua_getfield(L, 5, "stream") != LUA_TNIL) c->stream = stream_named(L, -1, "gpu.fft.", c->name, 1);
}

/* Whether the table at idx has no key at all */
static int no_keys(lua_State *L, int idx) {
  lua_pushnil(L);
  if (!lua_next(L, idx)) return 1;
  lua_pop(L, 2);
  return 0;
}

/* gpu.fft.<name>(a [, n or s [, dim or dims [, norm]]] [, {stream =}]): upvalue 1 the kind
 * (0 c2c, 1 r2c, 2 c2r), 2 inverse, 3 how many dims by default (-1: every), 4 the name,
 * 5 hermitian (hfft, ihfft) */
static int fft_call(lua_State *L) {
  FftCall c;
  memset(&c, 0, sizeof c);
  int kinds[3] = {GPU_FFT_C2C, GPU_FFT_R2C, GPU_FFT_C2R};
  c.kind = kinds[lua_tointeger(L, lua_upvalueindex(1))];
  c.inverse = lua_toboolean(L, lua_upvalueindex(2));
  c.name = lua_tostring(L, lua_upvalueindex(4));
  c.hermitian = lua_toboolean(L, lua_upvalueindex(5));
  if (!array_test(L, 1)) array_expected(L, 1, c.name, 1);
  int n = lua_gettop(L), opts = 0;
  if (n >= 2 && lua_type(L, n) == LUA_TTABLE) {   /* an options table has no [1] (sizes, dims do); */
    if (lua_geti(L, n, 1) == LUA_TNIL && !(n == 3 && no_keys(L, 3))) opts = n--;   /* {} as dims: none */
    lua_pop(L, 1);
  } else if (errors_nil_options(L, 5, n)) {
    n = 4;
  }
  if (n > 4) luaL_error(L, "gpu.fft.%s takes an array, sizes, dims, a norm and an options table", c.name);
  lua_settop(L, 5);
  if (opts) {
    lua_pushvalue(L, opts);
    lua_pushnil(L);
    lua_replace(L, opts);
    lua_replace(L, 5);
    read_options(L, &c);
  }
  lua_settop(L, 5);   /* the options stay at 5: they keep the stream from the collector */
  input(L, &c);
  int nd = array_check(L, -1)->shape.ndim;
  if (nd == 0) luaL_error(L, "gpu.fft.%s: a 0-D array has no dim to transform", c.name);
  read_dims(L, &c, 3, 2, nd, (int)lua_tointeger(L, lua_upvalueindex(3)));
  c.norm = read_norm(L, &c, 4);
  if (c.naxes == 0) {   /* no dim (dims {}): a as the transform's dtype, new (NumPy's is a itself) */
    if (lua_rawequal(L, 6, 1)) copy_packed(L, 6);
    return 1;
  }
  if (c.hermitian && c.kind == GPU_FFT_C2R) conjugated(L, 6, 0);   /* not in place: it may be a's */
  run_fft(L, &c, 6);
  if (c.hermitian && c.kind == GPU_FFT_R2C) conjugated(L, -1, 1);
  return 1;
}

/* Expects the gpu table on top: gpu.fft */
void fft_open(lua_State *L) {
  static const struct { const char *name; int kind, inverse, dims, hermitian; } fns[] = {
    {"fft", 0, 0, 1, 0}, {"ifft", 0, 1, 1, 0}, {"rfft", 1, 0, 1, 0}, {"irfft", 2, 1, 1, 0},
    {"hfft", 2, 1, 1, 1}, {"ihfft", 1, 0, 1, 1},
    {"fft2", 0, 0, 2, 0}, {"ifft2", 0, 1, 2, 0}, {"rfft2", 1, 0, 2, 0}, {"irfft2", 2, 1, 2, 0},
    {"fftn", 0, 0, -1, 0}, {"ifftn", 0, 1, -1, 0}, {"rfftn", 1, 0, -1, 0}, {"irfftn", 2, 1, -1, 0},
  };
  lua_createtable(L, 0, (int)(sizeof fns / sizeof fns[0]));
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    lua_pushinteger(L, fns[i].kind);
    lua_pushboolean(L, fns[i].inverse);
    lua_pushinteger(L, fns[i].dims);
    lua_pushstring(L, fns[i].name);
    lua_pushboolean(L, fns[i].hermitian);
    lua_pushcclosure(L, fft_call, 5);
    lua_setfield(L, -2, fns[i].name);
  }
  lua_setfield(L, -2, "fft");
}
