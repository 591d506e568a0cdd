/* view.c: views of device and host arrays, which share their owner's memory: indexing
 * with a table, 1-based as Torch7's (a[{ {1, 10}, {}, 3 }]), and the view methods
 * (narrow, select, reshape, transpose, squeeze, unsqueeze, expand, flatten, item, ...).
 * The arithmetic is layout.c's; this file reads the arguments and makes the views. */
#include <string.h>
#include <math.h>
#include "gpu.h"

/* Either kind of array, seen as a layout over its owner's memory. */
typedef struct Arr { GpuArray *d; HostArray *h; GpuLayout l; GpuDtype dt; } Arr;

static Arr arr_check(lua_State *L, int idx) {
  Arr a = {0};
  if ((a.d = array_test(L, idx)) != NULL) {
    if (!a.d->alive) errors_freed(L, NULL);
    a.l = array_layout(a.d);
    a.dt = a.d->dtype;
  } else if ((a.h = hostarray_test(L, idx)) != NULL) {
    if (!a.h->alive) errors_freed(L, NULL);
    a.l = hostarray_layout(a.h);
    a.dt = a.h->dtype;
  } else {
    luaL_argerror(L, idx, lua_pushfstring(L, "array expected, got %s", luaL_typename(L, idx)));
  }
  return a;
}

/* [-0, +1, e] */
static void push_view(lua_State *L, int idx, const Arr *a, const GpuLayout *l) {
  if (a->d) array_view(L, idx, l);
  else hostarray_view(L, idx, l);
}

/* An integer argument or table entry at idx (a number: lua_tointegerx took "2"), for messages named `what`. */
static int64_t integer_at(lua_State *L, int idx, const char *what) {
  lua_Integer v;
  int isint = errors_integer(L, idx, &v);
  if (!isint)   /* NaN as "nan": 0/0 has the sign bit, which "%.14g" shows as "-nan" */
    luaL_error(L, "%s must be an integer, got %s", what, lua_type(L, idx) != LUA_TNUMBER
               ? luaL_typename(L, idx) : isnan(lua_tonumber(L, idx)) ? "nan" : lua_tostring(L, idx));
  return v;
}

/* Dimension argument `arg` (1-based, or negative from the end) as 0-based, among n. */
static int dim_arg(lua_State *L, int arg, int n) {
  int64_t v = integer_at(L, arg, "dimension"), d = v < 0 ? v + n + 1 : v;
  if (d < 1 || d > n)
    luaL_argerror(L, arg, lua_pushfstring(L, "dimension %I out of range (1 to %d)", (lua_Integer)v, n));
  return (int)d - 1;
}

/* A key (dim 0) or range dim (table t) with a field besides t[1..n]: an error ({first = 2} took all) */
static void list_only(lua_State *L, int t, lua_Integer n, int dim) {   /* (dim -1: a permutation) */
  const char *bad = table_not_list(L, t, dim < 0 ? (lua_Integer)lua_rawlen(L, t) : n);
  if (bad) luaL_error(L, "%s, got a table with %s", dim > 0 ? lua_pushfstring(L, "index %d: a range is a list {first, last [, step]}", dim)
                      : dim < 0 ? "transpose: a permutation is a list of dimensions" : "a key is a list of indices and ranges {i, {first, last}, ...}", bad);
}

/* Index v (1-based, negative from the end) of a dimension of size n, as 0-based. */
static int64_t position(lua_State *L, int64_t v, int64_t n, int dim) {
  int64_t p = v < 0 ? v + n : v - 1;
  if (p < 0 || p >= n)
    luaL_error(L, "index %I out of range for dimension %d of size %I", (lua_Integer)v, dim, (lua_Integer)n);
  return p;
}

/* A range {first, last [, step]} (the table on top) applied to dimension d of l; dim is
 * the dimension's number in the key, for messages. */
static void apply_range(lua_State *L, GpuLayout *l, int d, int dim) {
  int t = lua_gettop(L);
  lua_Integer k = luaL_len(L, t);
  int64_t n = l->shape.dim[d], step = 1, first, last;
  if (k > 3) luaL_error(L, "index %d: a range is {first, last [, step]}, got %I numbers", dim, k);
  list_only(L, t, k, dim);
  if (k >= 3 && lua_geti(L, t, 3) != LUA_TNIL) step = integer_at(L, -1, "slice step");
  if (step == 0) luaL_error(L, "slice step must not be 0 (index %d)", dim);
  first = step > 0 ? 1 : n;
  last = step > 0 ? n : 1;
  if (k >= 1 && lua_geti(L, t, 1) != LUA_TNIL) first = integer_at(L, -1, "slice start");
  if (k == 1) last = first;   /* {i}; {first, nil, step} runs to the end */
  if (k >= 2 && lua_geti(L, t, 2) != LUA_TNIL) last = integer_at(L, -1, "slice end");
  int64_t f = first < 0 ? first + n + 1 : first, e = last < 0 ? last + n + 1 : last, len = 0;
  if (step > 0 ? e >= f : f >= e) {   /* not empty: both ends inside, so no overflow below */
    position(L, first, n, dim);
    position(L, last, n, dim);
    int64_t mag = step > 0 ? step : step == INT64_MIN ? INT64_MAX : -step;
    len = (step > 0 ? e - f : f - e) / mag + 1;
  } else {   /* empty: the ends at most one past the dimension ({n + 1, n}, {1, 0}) */
    int up = step > 0;
    if (f < 1 - !up || f > n + up) position(L, first, n, dim);
    if (e < !up || e > n + !up) position(L, last, n, dim);
  }
  lua_settop(L, t);
  /* one element (or none) steps nowhere: a step past the dim would overflow the stride */
  layout_slice(l, d, len > 0 ? f - 1 : 0, len, len > 1 ? step : 1);
}

/* Applies key (a table at idx) to l; returns how many dimensions a number selected. */
static int apply_key(lua_State *L, int key, GpuLayout *l) {
  lua_Integer n = luaL_len(L, key);
  int ndim = l->shape.ndim, d = 0, selected = 0;
  if (n > ndim)
    luaL_error(L, "too many indices (%I) for an array of %d dimension%s", n, ndim,
               ndim == 1 ? "" : "s");
  luaL_checkstack(L, 6, "index");
  list_only(L, key, n, 0);
  for (int i = 1; i <= n; i++) {
    int t = lua_geti(L, key, i);
    if (t == LUA_TNUMBER) {
      layout_select(l, d, position(L, integer_at(L, -1, "an index"), l->shape.dim[d], i));
      selected++;
    } else if (t == LUA_TTABLE) {
      apply_range(L, l, d++, i);
    } else {
      luaL_error(L, "index %d must be a number or a range {first, last [, step]}, got %s", i,
                 luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
  return selected;
}

int view_index(lua_State *L) {
  Arr a = arr_check(L, 1);
  GpuLayout l = a.l;
  int selected = apply_key(L, 2, &l);
  if (a.h && selected == a.l.shape.ndim && selected > 0) {   /* a host element: its value */
    if (!a.h->alive) errors_freed(L, NULL);   /* (the key's metamethods may have freed it) */
    dtype_push(L, a.dt, (char *)a.h->base + l.offset * (int64_t)dtypes[a.dt].size);
    return 1;
  }
  push_view(L, 1, &a, &l);
  return 1;
}

/* [-0, +(0|1), e] The array value at v for a view of shape to, as NumPy's setitem takes
 * it: its leading sizes of 1 past to's dimensions dropped (a[{2}] = gpu.array({{1, 2, 3}}):
 * a view without them pushed, its index returned), then broadcast to `to` or an error
 * saying so; anything else (a number, a table) as it is. */
static int assigned(lua_State *L, int v, const GpuShape *to) {
  if (!array_test(L, v) && !hostarray_test(L, v)) return v;
  Arr a = arr_check(L, v);
  GpuLayout l = a.l;
  while (l.shape.ndim > to->ndim && l.shape.dim[0] == 1) layout_select(&l, 0, 0);
  GpuShape b;   /* it fits when it broadcasts with `to` to `to` itself */
  int fits = shape_broadcast(&l.shape, to, &b) == 0 && b.ndim == to->ndim;
  for (int d = 0; fits && d < b.ndim; d++) fits = b.dim[d] == to->dim[d];
  if (!fits) {
    char x[160], y[160];
    shape_format(&a.l.shape, x, sizeof x);
    shape_format(to, y, sizeof y);
    luaL_error(L, "cannot assign an array of shape %s to a view of shape %s (it does not broadcast to it)", x, y);
  }
  if (l.shape.ndim == a.l.shape.ndim) return v;
  push_view(L, v, &a, &l);
  return lua_gettop(L);
}

int view_assign(lua_State *L) {
  Arr a = arr_check(L, 1);
  GpuLayout l = a.l;
  apply_key(L, 2, &l);
  lua_settop(L, 3);
  push_view(L, 1, &a, &l);
  if (lua_type(L, 3) == LUA_TTABLE) {   /* a Lua table: a host array of a's dtype */
    table_host(L, 3, a.dt);
    lua_replace(L, 3);
  }
  copy_assign(L, 4, assigned(L, 3, &l.shape), "a[key] = v");
  return 0;
}

/* a:narrow(dim, first, len): len elements of dim from first on */
static int view_narrow(lua_State *L) {
  Arr a = arr_check(L, 1);
  errors_args(L, 4, "a:narrow");
  int d = dim_arg(L, 2, a.l.shape.ndim);
  int64_t n = a.l.shape.dim[d], first = integer_at(L, 3, "first"), len = integer_at(L, 4, "length");
  int64_t f = first < 0 ? first + n + 1 : first;
  if (len < 0 || f < 1 || f > n + 1 || len > n - f + 1)
    return luaL_error(L, "narrow: %I elements from %I do not fit in dimension %d of size %I",
                      (lua_Integer)len, (lua_Integer)first, d + 1, (lua_Integer)n);
  GpuLayout l = a.l;
  layout_slice(&l, d, f - 1, len, 1);
  push_view(L, 1, &a, &l);
  return 1;
}

/* a:select(dim, i): element i of dim, that dimension dropped */
static int view_select(lua_State *L) {
  Arr a = arr_check(L, 1);
  errors_args(L, 3, "a:select");
  int d = dim_arg(L, 2, a.l.shape.ndim);
  GpuLayout l = a.l;
  layout_select(&l, d, position(L, integer_at(L, 3, "index"), l.shape.dim[d], d + 1));
  push_view(L, 1, &a, &l);
  return 1;
}

/* A shape given as a table at first or as numbers from first on; -1 entries are left as
 * -1 (reshape infers one, expand keeps the size). */
static void shape_args(lua_State *L, int first, GpuShape *s, const char *name) {
  int table = lua_istable(L, first);
  if (table) errors_args(L, first, name);
  int n = table ? (int)lua_rawlen(L, first) : lua_gettop(L) - first + 1;   /* (read raw, as gpu.zeros's) */
  const char *bad = table ? table_not_list(L, first, n) : NULL;
  if (bad) luaL_error(L, "%s: shape must be a list of sizes, and the table has %s", name, bad);
  if (n > GPU_MAXDIM) luaL_error(L, "shape must have 0 to %d dimensions, got %d", GPU_MAXDIM, n);
  memset(s, 0, sizeof *s);
  s->ndim = n;
  s->size = 1;
  for (int i = 0; i < n; i++) {
    if (table) lua_rawgeti(L, first, i + 1);
    else lua_pushvalue(L, first + i);
    int isint, num = lua_type(L, -1) == LUA_TNUMBER;   /* (not "2") */
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint || !num || v < -1) luaL_error(L, "shape[%d] must be a size or -1", i + 1);
    s->dim[i] = v;
  }
  GpuShape known = *s;   /* -1 entries aside, the sizes must be ones an array can have */
  for (int i = 0; i < n; i++) known.dim[i] = known.dim[i] == -1 ? 1 : known.dim[i];
  if (!shape_fits(&known)) luaL_error(L, "%s: shape is too large: more elements than an array holds (2^48)", name);
  for (int i = 0; i < n; i++) s->size *= s->dim[i];
}

/* The dims of l (a layout or shape) in reverse order: Fortran order read as C order */
static void reverse_layout(GpuLayout *l) {
  int perm[GPU_MAXDIM], n = l->shape.ndim;
  for (int k = 0; k < n; k++) perm[k] = n - 1 - k;
  layout_permute(l, perm);
}

/* A last argument "C", "F" or "A" (NumPy's order of reading and writing the elements),
 * taken off the stack: 1 for Fortran order ("A": when a is F-ordered and not C-ordered) */
static int order_arg(lua_State *L, const Arr *a, const char *name) {
  int top = lua_gettop(L);
  if (top < 2 || lua_type(L, top) != LUA_TSTRING) return 0;
  const char *o = lua_tostring(L, top);
  GpuLayout r = a->l;
  reverse_layout(&r);
  int f = strcmp(o, "F") == 0 ? 1 : strcmp(o, "C") == 0 ? 0 : strcmp(o, "A") == 0
        ? !layout_contiguous(&a->l) && layout_contiguous(&r) : -1;
  if (f < 0) luaL_error(L, "%s: order must be \"C\", \"F\" or \"A\", got \"%s\"", name, o);
  lua_settop(L, top - 1);
  return f;
}

/* a:reshape(shape [, order]) or a:reshape(d1, d2, ... [, order]): a view when the strides
 * allow, else a copy. In order "F" the elements are read and placed first dim fastest: the
 * reshape of the reversed dims, reversed back. */
static int view_reshape(lua_State *L) {
  Arr a = arr_check(L, 1);
  int fortran = order_arg(L, &a, "a:reshape");
  GpuShape to;
  shape_args(L, 2, &to, "a:reshape");
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < to.ndim; i++) {
    if (to.dim[i] != -1) { known *= to.dim[i]; continue; }
    if (infer >= 0) return luaL_error(L, "reshape: only one dimension can be -1");
    infer = i;
  }
  int fits = infer >= 0 ? known > 0 && a.l.shape.size % known == 0 : known == a.l.shape.size;
  if (infer >= 0 && fits) to.dim[infer] = a.l.shape.size / known;
  to.size = fits ? a.l.shape.size : known;   /* (a -1 left in a shape that does not fit once
                                              * passed the size check, and reshaping read
                                              * past the shape's dims: a segfault) */
  if (!fits) {
    char from[160], want[160];
    shape_format(&a.l.shape, from, sizeof from);
    shape_format(&to, want, sizeof want);
    return luaL_error(L, "cannot reshape an array of shape %s (%I elements) to %s", from,
                      (lua_Integer)a.l.shape.size, want);
  }
  GpuLayout l, from = a.l;
  if (fortran) {
    reverse_layout(&from);
    for (int i = 0; i < to.ndim / 2; i++) {
      int64_t t = to.dim[i];
      to.dim[i] = to.dim[to.ndim - 1 - i];
      to.dim[to.ndim - 1 - i] = t;
    }
  }
  if (!layout_reshape(&from, &to, &l)) {   /* a C-ordered copy of a (reversed in "F") */
    push_view(L, 1, &a, &from);
    copy_contiguous(L, -1);
    Arr c = arr_check(L, -1);
    layout_reshape(&c.l, &to, &l);
    a = c;
    lua_replace(L, 1);
  }
  if (fortran) reverse_layout(&l);
  push_view(L, 1, &a, &l);
  return 1;
}

/* a:flatten([order]): one dimension; a view when the strides allow, else a copy */
static int view_flatten(lua_State *L) {
  Arr a = arr_check(L, 1);
  int fortran = order_arg(L, &a, "a:flatten");
  errors_args(L, 1, "a:flatten");
  lua_settop(L, 1);
  lua_pushinteger(L, a.l.shape.size);
  if (fortran) lua_pushliteral(L, "F");
  return view_reshape(L);
}

void view_transposed(lua_State *L, int idx) {
  Arr a = arr_check(L, idx);
  int perm[GPU_MAXDIM], n = a.l.shape.ndim;
  for (int k = 0; k < n; k++) perm[k] = n - 1 - k;
  GpuLayout l = a.l;
  layout_permute(&l, perm);
  push_view(L, idx, &a, &l);
}

/* a:transpose() reverses the dimensions (a.T); a:transpose(d1, d2) swaps two;
 * a:transpose({p1, ..., pn}) puts old dimension pk at k */
static int view_transpose(lua_State *L) {
  Arr a = arr_check(L, 1);
  int n = a.l.shape.ndim, perm[GPU_MAXDIM], seen[GPU_MAXDIM] = {0};
  errors_args(L, lua_isnoneornil(L, 2) ? 1 : lua_istable(L, 2) ? 2 : 3, "a:transpose");
  if (lua_isnoneornil(L, 2)) { view_transposed(L, 1); return 1; }
  for (int k = 0; k < n; k++) perm[k] = k;
  if (lua_istable(L, 2)) {
    list_only(L, 2, n, -1);   /* (read raw: {2, 1, x = 1} was {2, 1}) */
    if ((int)lua_rawlen(L, 2) != n)
      return luaL_error(L, "transpose: the permutation has %d entries for %d dimensions", (int)lua_rawlen(L, 2), n);
    for (int k = 0; k < n; k++) {
      lua_rawgeti(L, 2, k + 1);
      perm[k] = dim_arg(L, lua_gettop(L), n);
      lua_pop(L, 1);
      if (seen[perm[k]]++) return luaL_error(L, "transpose: dimension %d appears twice", perm[k] + 1);
    }
  } else {
    int d1 = dim_arg(L, 2, n), d2 = dim_arg(L, 3, n);
    perm[d1] = d2;
    perm[d2] = d1;
  }
  GpuLayout l = a.l;
  layout_permute(&l, perm);
  push_view(L, 1, &a, &l);
  return 1;
}

/* a:squeeze([dim]): without the dimensions of size 1 (or only dim, which must be 1) */
static int view_squeeze(lua_State *L) {
  Arr a = arr_check(L, 1);
  errors_args(L, 2, "a:squeeze");
  GpuLayout l = a.l;
  if (lua_istable(L, 2)) {   /* a:squeeze({1, 3}): each named once, the last first */
    int n = l.shape.ndim, pick[GPU_MAXDIM] = {0};
    lua_Integer count = luaL_len(L, 2);
    for (lua_Integer i = 1; i <= count; i++) {
      lua_geti(L, 2, i);
      lua_Integer v;   /* ("1" was 'not a dimension (1 to 2)') */
      if (!errors_integer(L, -1, &v)) return luaL_error(L, "squeeze: dims[%I] must be an integer, got %s", i, errors_value(L, -1));
      lua_Integer d = v < 0 ? v + n : v - 1;
      lua_pop(L, 1);
      if (d < 0 || d >= n)
        return luaL_error(L, "squeeze: dims[%I] is not a dimension (1 to %d)", i, n);
      if (pick[d]) return luaL_error(L, "squeeze: dimension %d is named twice", d + 1);
      if (l.shape.dim[d] != 1)
        return luaL_error(L, "cannot squeeze dimension %d of size %I", d + 1, (lua_Integer)l.shape.dim[d]);
      pick[d] = 1;
    }
    for (int d = n - 1; d >= 0; d--) if (pick[d]) layout_select(&l, d, 0);
  } else if (!lua_isnoneornil(L, 2)) {
    int d = dim_arg(L, 2, l.shape.ndim);
    if (l.shape.dim[d] != 1)
      return luaL_error(L, "cannot squeeze dimension %d of size %I", d + 1, (lua_Integer)l.shape.dim[d]);
    layout_select(&l, d, 0);
  } else {
    for (int d = l.shape.ndim - 1; d >= 0; d--)
      if (l.shape.dim[d] == 1) layout_select(&l, d, 0);
  }
  push_view(L, 1, &a, &l);
  return 1;
}

/* a:unsqueeze(dim): a new dimension of size 1 at dim (1 to ndim + 1) */
static int view_unsqueeze(lua_State *L) {
  Arr a = arr_check(L, 1);
  errors_args(L, 2, "a:unsqueeze");
  if (a.l.shape.ndim == GPU_MAXDIM)
    return luaL_error(L, "unsqueeze: an array has at most %d dimensions", GPU_MAXDIM);
  GpuLayout l = a.l;
  layout_insert(&l, dim_arg(L, 2, l.shape.ndim + 1));
  push_view(L, 1, &a, &l);
  return 1;
}

/* a:expand(shape) or a:expand(d1, d2, ...): dimensions of size 1 repeated (stride 0) to
 * the sizes given (-1 keeps one), new leading dimensions too; no memory is copied */
static int view_expand(lua_State *L) {
  Arr a = arr_check(L, 1);
  GpuShape to;
  shape_args(L, 2, &to, "a:expand");
  int lead = to.ndim - a.l.shape.ndim, ok = lead >= 0;
  to.size = 1;
  for (int k = 0; ok && k < to.ndim; k++) {
    int64_t have = k >= lead ? a.l.shape.dim[k - lead] : 1;
    if (to.dim[k] == -1) { to.dim[k] = have; ok = k >= lead; }
    else if (have != 1 && have != to.dim[k]) ok = 0;
  }
  if (ok && !shape_fits(&to)) return luaL_error(L, "expand: shape is too large");
  for (int k = 0; ok && k < to.ndim; k++) to.size *= to.dim[k];   /* fits: no overflow */
  if (!ok) {
    char from[160], want[160];
    shape_format(&a.l.shape, from, sizeof from);
    shape_args(L, 2, &to, "a:expand");
    shape_format(&to, want, sizeof want);
    return luaL_error(L, "cannot expand shape %s to %s", from, want);
  }
  GpuLayout l = a.l;
  layout_broadcast(&l, &to);
  push_view(L, 1, &a, &l);
  return 1;
}

static int view_is_contiguous(lua_State *L) {
  Arr a = arr_check(L, 1);
  lua_pushboolean(L, layout_contiguous(&a.l));
  return 1;
}

/* a:contiguous(): a itself when in C order, else a C-ordered copy; a copy too for a view
 * of an expanded view, which is not written (the error says to write into a:contiguous()) */
static int view_contiguous(lua_State *L) {
  Arr a = arr_check(L, 1);
  errors_args(L, 1, a.d ? "a:contiguous" : "h:contiguous");
  if (a.d ? a.d->shares : a.h->shares) copy_packed(L, 1);
  else copy_contiguous(L, 1);
  return 1;
}

/* a:item(i, j, ...): one element as a Lua value (a device array: a copy, which waits for
 * the work before it); a:item() for an array of one element */
static int view_item(lua_State *L) {
  Arr a = arr_check(L, 1);
  int n = lua_gettop(L) - 1, ndim = a.l.shape.ndim;
  int64_t at = a.l.offset;
  if (n == 0 && a.l.shape.size != 1)
    return luaL_error(L, "item: an array of %I elements needs one index per dimension (%d)",
                      (lua_Integer)a.l.shape.size, ndim);
  if (n != 0 && n != ndim)
    return luaL_error(L, "item: %d ind%s for an array of %d dimension%s", n, n == 1 ? "ex" : "ices",
                      ndim, ndim == 1 ? "" : "s");
  for (int k = 0; n && k < ndim; k++)
    at += position(L, integer_at(L, k + 2, "an index"), a.l.shape.dim[k], k + 1) * a.l.strides[k];
  if (n == 0) at = layout_at(&a.l, 0);
  size_t es = dtypes[a.dt].size;
  if (a.h) { dtype_push(L, a.dt, (char *)a.h->base + at * (int64_t)es); return 1; }
  char buf[16];
  int was = device_enter(L, a.d->device);   /* (back before an error is raised) */
  device_done(L, was, backend_get()->dtoh(buf, a.d->base + (CUdeviceptr)(at * (int64_t)es), es));
  dtype_push(L, a.dt, buf);
  return 1;
}

/* gpu._readonly(a): a view of a that is not written into, as an expanded view is not
 * (gpu.broadcast_to's, which NumPy makes read-only whether or not a size was repeated) */
static int view_readonly(lua_State *L) {
  Arr a = arr_check(L, 1);
  push_view(L, 1, &a, &a.l);
  if (a.d) ((GpuArray *)lua_touserdata(L, -1))->shares = 1;
  else ((HostArray *)lua_touserdata(L, -1))->shares = 1;
  return 1;
}

static const luaL_Reg view_methods[] = {
  {"narrow", view_narrow},
  {"select", view_select},
  {"reshape", view_reshape},
  {"flatten", view_flatten},
  {"transpose", view_transpose},
  {"squeeze", view_squeeze},
  {"unsqueeze", view_unsqueeze},
  {"expand", view_expand},
  {"is_contiguous", view_is_contiguous},
  {"contiguous", view_contiguous},
  {"item", view_item},
  {NULL, NULL}
};

/* Adds the view methods to the methods of both kinds of array, and gpu._readonly to the
 * gpu table on top. */
void view_open(lua_State *L) {
  lua_pushcfunction(L, view_readonly);
  lua_setfield(L, -2, "_readonly");
  const char *types[] = {GPU_ARRAY_T, GPU_HOSTARRAY_T};
  for (int i = 0; i < 2; i++) {
    luaL_getmetatable(L, types[i]);
    lua_getfield(L, -1, "methods");
    luaL_setfuncs(L, view_methods, 0);
    lua_pop(L, 2);
  }
}
