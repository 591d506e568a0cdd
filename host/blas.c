/* blas.c: gpu.matmul (a:matmul), gpu.dot and gpu.outer. Products go to the backend's gemm
 * (cuBLAS on the GPU, a CBLAS on the CPU backend): NumPy's matmul rules (a 1-D operand
 * gets a dim of 1 put in front or behind and taken out of the result; the dims before the
 * last two are a batch, broadcast), row-major arrays handed to the column-major library as
 * their transposes (C^T = B^T A^T), so no operand is copied when each matrix has a stride
 * of 1 along its rows or its columns and the batch has one stride; otherwise that operand
 * is copied C-ordered first. Integer and bool products, which no BLAS has, go to a kernel
 * (gpu._int_matmul, lua/compose.lua). */
#include <string.h>
#include "gpu.h"

static int num_type(GpuDtype t) {
  switch (t) {
    case DT_FLOAT32: return GPU_NUM_F32;
    case DT_FLOAT64: return GPU_NUM_F64;
    case DT_COMPLEX64: return GPU_NUM_C64;
    case DT_COMPLEX128: return GPU_NUM_C128;
    case DT_FLOAT16: return GPU_NUM_F16;
    default: return -1;
  }
}

/* [-0, +1, e] The array at idx converted to dt (itself when it is dt already). */
static void as_dtype(lua_State *L, int idx, GpuDtype dt) {
  GpuArray *a = array_check(L, idx);
  if (a->dtype == dt) { lua_pushvalue(L, idx); return; }
  array_new(L, &a->shape, dt);
  ops_copy(L, -1, idx, NULL);
}

/* How a matrix (rows x cols, strides rs, cs) is handed to BLAS: *trans 0 when it is
 * row-major (stride 1 along a row: the library sees its transpose, leading dim rs), 1 when
 * column-major (leading dim cs); 0 when neither. */
static int blas_form(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *trans, int64_t *ld) {
  if (cols == 1) cs = 1;
  if (rows == 1) rs = cols > 1 ? cols : 1;
  if (cs == 1 && rs >= (cols > 1 ? cols : 1)) { *trans = 0; *ld = rs; return 1; }
  if (rs == 1 && cs >= (rows > 1 ? rows : 1)) { *trans = 1; *ld = cs; return 1; }
  if (rows == 1 && cs >= 1) { *trans = 1; *ld = cs; return 1; }
  return 0;
}

typedef struct Product {
  GpuShape batch;                /* the broadcast batch dims */
  int64_t m, n, k;
  GpuLayout l[3];                /* A, B, C over batch + (rows, cols) */
  int idx[3];
} Product;

/* [-0, +0, e] Operand i (A or B) made C-ordered over its broadcast shape, when it must be. */
static void materialize(lua_State *L, Product *p, int i) {
  array_view(L, p->idx[i], &p->l[i]);
  copy_contiguous(L, -1);
  lua_remove(L, -2);
  p->idx[i] = lua_gettop(L);
  p->l[i] = array_layout(array_check(L, -1));
}

/* The batch as one stride per operand, when the layouts allow; 0 when not. */
static int batch_strides(const Product *p, int64_t *stride) {
  GpuLayout b[3];
  int nb = p->batch.ndim;
  for (int i = 0; i < 3; i++) {
    memset(&b[i], 0, sizeof b[i]);
    b[i].shape = p->batch;
    memcpy(b[i].strides, p->l[i].strides, sizeof(int64_t) * (size_t)nb);
  }
  if (nb == 0 || p->batch.size <= 1) { stride[0] = stride[1] = stride[2] = 0; return 1; }
  if (layout_collapse(3, b) != 1) return 0;
  for (int i = 0; i < 3; i++) stride[i] = b[i].strides[0];
  return 1;
}

/* [-0, +0, e] Runs the product p on the backend (operands and result set up). */
static void product_run(lua_State *L, Product *p, GpuDtype dt, int tf32, CUstream s) {
  const GpuBackend *be = backend_get();
  int nd = p->batch.ndim, ta, tb;
  int64_t lda, ldb, st[3];
  GpuLayout *A = &p->l[0], *B = &p->l[1];
  for (int i = 0; i < 2; i++) {   /* copies where the layouts do not do */
    GpuLayout *x = &p->l[i];
    int t;
    int64_t ld;
    if (!blas_form(x->shape.dim[nd], x->shape.dim[nd + 1], x->strides[nd], x->strides[nd + 1], &t, &ld))
      materialize(L, p, i);
  }
  if (!batch_strides(p, st)) {
    materialize(L, p, 0);
    materialize(L, p, 1);
    batch_strides(p, st);
  }
  blas_form(p->m, p->k, A->strides[nd], A->strides[nd + 1], &tb, &ldb);
  blas_form(p->k, p->n, B->strides[nd], B->strides[nd + 1], &ta, &lda);
  size_t es = dtypes[dt].size;
  CUdeviceptr ptr[3];
  for (int i = 0; i < 3; i++) {
    GpuArray *x = array_check(L, p->idx[i]);
    ptr[i] = x->base + (CUdeviceptr)(p->l[i].offset * (int64_t)es);
    if (graph_capturing) graph_keep(L, p->idx[i]);
  }
  if (p->m == 0 || p->n == 0 || p->batch.size == 0) return;
  if (p->k == 0) {   /* a sum of nothing */
    GPU_CHECK(L, be->memset0(ptr[2], (size_t)(p->batch.size * p->m * p->n) * es));
    return;
  }
  GpuGemm g = {.type = num_type(dt), .transa = ta, .transb = tb, .tf32 = tf32 && dt == DT_FLOAT32,
               .m = p->n, .n = p->m, .k = p->k, .batch = p->batch.size,
               .a = ptr[1], .b = ptr[0], .c = ptr[2], .lda = lda, .ldb = ldb, .ldc = p->n,
               .stride_a = st[1], .stride_b = st[0], .stride_c = st[2], .stream = s};
  GPU_CHECK(L, be->gemm(&g));
}

/* [-0, +0, e] Shapes: NumPy's matmul rules. */
static void product_shapes(lua_State *L, const char *name, const GpuArray *a, const GpuArray *b, Product *p,
                           GpuShape *result) {
  int na = a->shape.ndim, nb = b->shape.ndim;
  char x[160], y[160];
  shape_format(&a->shape, x, sizeof x);
  shape_format(&b->shape, y, sizeof y);
  if (na == 0 || nb == 0)
    luaL_error(L, "gpu.%s: a 0-D array has no rows or columns (shapes %s and %s): multiply it with *", name, x, y);
  int64_t ka = a->shape.dim[na - 1], kb = b->shape.dim[nb > 1 ? nb - 2 : 0];
  if (ka != kb)
    luaL_error(L, "gpu.%s: shapes %s and %s do not match: the first's last dim (%I) is not the second's %s (%I)",
               name, x, y, (lua_Integer)ka, nb > 1 ? "second-to-last" : "only dim", (lua_Integer)kb);
  GpuShape ba = {0}, bb = {0};
  ba.ndim = na > 2 ? na - 2 : 0;
  bb.ndim = nb > 2 ? nb - 2 : 0;
  ba.size = bb.size = 1;
  for (int d = 0; d < ba.ndim; d++) ba.size *= (ba.dim[d] = a->shape.dim[d]);
  for (int d = 0; d < bb.ndim; d++) bb.size *= (bb.dim[d] = b->shape.dim[d]);
  if (shape_broadcast(&ba, &bb, &p->batch) != 0)
    luaL_error(L, "gpu.%s: the batch dims of shapes %s and %s do not broadcast", name, x, y);
  p->m = na > 1 ? a->shape.dim[na - 2] : 1;
  p->n = nb > 1 ? b->shape.dim[nb - 1] : 1;
  p->k = ka;
  *result = p->batch;
  if (na > 1) result->dim[result->ndim++] = p->m;
  if (nb > 1) result->dim[result->ndim++] = p->n;
  result->size = shape_count(result);
}

/* [-0, +0, e] out (at oi): the result's shape, a dtype it casts to. */
static GpuArray *check_out(lua_State *L, const char *name, int oi, const GpuShape *rs, GpuDtype dt) {
  GpuArray *o = array_operand(L, oi, name, 3);
  int same = o->shape.ndim == rs->ndim;
  for (int d = 0; same && d < rs->ndim; d++) same = o->shape.dim[d] == rs->dim[d];
  if (!same) {
    char x[160], y[160];
    shape_format(&o->shape, x, sizeof x);
    shape_format(rs, y, sizeof y);
    luaL_error(L, "gpu.%s: out has shape %s but the result has shape %s", name, x, y);
  }
  if (!can_cast_same_kind(dt, o->dtype))
    luaL_error(L, "gpu.%s: out is %s, and the result (%s) cannot be cast to it", name, dtypes[o->dtype].name, dtypes[dt].name);
  if (array_shares(o)) errors_shared(L, lua_pushfstring(L, "gpu.%s: out", name));   /* (a C-ordered one was written) */
  return o;
}

/* [-0, +1, e] a @ b of integer or bool arrays (at ai and bi; dt their promoted dtype)
 * into out (at oi, or 0): no BLAS has them, so gpu._int_matmul (lua/compose.lua) runs a
 * kernel of its own, on the default stream; the shapes are checked here, as for the others. */
static void int_matmul(lua_State *L, const char *name, int ai, int bi, int oi, GpuDtype dt, CUstream s) {
  GpuArray *a = array_check(L, ai), *b = array_check(L, bi);
  Product p;
  GpuShape rs;
  product_shapes(L, name, a, b, &p, &rs);
  if (oi) check_out(L, name, oi, &rs, dt);
  if (s) luaL_error(L, "gpu.%s: products of %s arrays run on the default stream: leave out the stream",
                    name, dtypes[dt].name);
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "gpu");
  lua_getfield(L, -1, "_int_matmul");
  lua_pushvalue(L, ai);
  lua_pushvalue(L, bi);
  lua_pushstring(L, dtypes[dt].name);
  lua_call(L, 3, 1);
  if (oi) { ops_copy(L, oi, -1, NULL); lua_pushvalue(L, oi); }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
}

/* [-0, +1, e] a @ b (arrays at ai and bi) into out (at oi, or 0), as NumPy's matmul. */
static void matmul(lua_State *L, const char *name, int ai, int bi, int oi, int tf32, CUstream s) {
  GpuArray *a = array_operand(L, ai, name, 1), *b = array_operand(L, bi, name, 2);
  GpuDtype dt = promote_types(a->dtype, b->dtype);
  if (num_type(dt) < 0) {
    int_matmul(L, name, ai, bi, oi, dt, s);
    return;
  }
  if (graph_capturing && strcmp(backend_get()->name, "cpu") == 0)
    graph_refuse(L, "gpu.%s cannot be recorded in a graph on the CPU backend (the BLAS runs at once)", name);
  Product p;
  GpuShape rs;
  product_shapes(L, name, a, b, &p, &rs);
  int top = lua_gettop(L);
  as_dtype(L, ai, dt);
  as_dtype(L, bi, dt);
  p.idx[0] = top + 1;
  p.idx[1] = top + 2;
  GpuArray *o = oi ? check_out(L, name, oi, &rs, dt) : NULL;
  if (o && o->dtype == dt && o->contiguous && o->base != array_check(L, p.idx[0])->base &&
      o->base != array_check(L, p.idx[1])->base) lua_pushvalue(L, oi);
  else array_new(L, &rs, dt);
  p.idx[2] = lua_gettop(L);
  GpuShape full = p.batch;   /* every operand over batch + (rows, cols) */
  int nb = p.batch.ndim;
  int64_t rows[3] = {p.m, p.k, p.m}, cols[3] = {p.k, p.n, p.n};
  for (int i = 0; i < 3; i++) {
    GpuArray *x = array_check(L, p.idx[i]);
    GpuLayout l = array_layout(x);
    full.ndim = nb + 2;
    full.dim[nb] = rows[i];
    full.dim[nb + 1] = cols[i];
    full.size = p.batch.size * rows[i] * cols[i];
    if (i == 2) {   /* C-ordered, whatever dims the result drops */
      int64_t offset = l.offset;
      layout_init(&l, &full);
      l.offset = offset;
    } else {
      if (x->shape.ndim == 1) layout_insert(&l, i == 0 ? 0 : 1);
      layout_broadcast(&l, &full);
    }
    p.l[i] = l;
  }
  product_run(L, &p, dt, tf32, s);
  lua_pushvalue(L, p.idx[2]);
  if (oi && !lua_rawequal(L, -1, oi)) {   /* computed apart: into out */
    ops_copy(L, oi, -1, s);
    lua_pushvalue(L, oi);
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
}

/* [-0, +0, e] opts at idx (or 0): out, tf32, stream */
static void product_opts(lua_State *L, const char *name, int idx, int *out, int *tf32, CUstream *s) {
  *out = *tf32 = 0;
  *s = NULL;
  if (!idx) return;
  errors_options(L, idx, name, "out tf32 stream");
  if (lua_getfield(L, idx, "out") != LUA_TNIL) *out = lua_gettop(L);
  *tf32 = errors_flag(L, idx, name, "tf32", 0);
  if (lua_getfield(L, idx, "stream") != LUA_TNIL) *s = stream_named(L, -1, "gpu.", name, 1);
}

/* gpu.matmul(a, b [, {out =, tf32 = true, stream =}]), a:matmul(b) */
static int gpu_matmul(lua_State *L) {
  int out, tf32;
  CUstream s;
  if (errors_nil_options(L, 3, lua_gettop(L))) lua_settop(L, 2);
  if (lua_gettop(L) > 3 || (lua_gettop(L) == 3 && !lua_istable(L, 3)))
    return luaL_error(L, "gpu.matmul takes two arrays and an options table");
  if (lua_type(L, 1) == LUA_TTABLE || lua_type(L, 2) == LUA_TTABLE) {   /* a sparse matrix (lua/sparse.lua) */
    lua_settop(L, 3);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "gpu");
    lua_getfield(L, -1, "_sparse_matmul");
    lua_insert(L, 1);
    lua_settop(L, 4);
    lua_call(L, 3, 1);
    return 1;
  }
  product_opts(L, "matmul", lua_istable(L, 3) ? 3 : 0, &out, &tf32, &s);
  matmul(L, "matmul", 1, 2, out, tf32, s);
  return 1;
}

/* [-0, +1, e] The array at idx reshaped (a view when it can be, else of a copy). */
static void reshaped(lua_State *L, int idx, const GpuShape *s) {
  GpuLayout l = array_layout(array_check(L, idx)), v;
  if (layout_reshape(&l, s, &v)) { array_view(L, idx, &v); return; }
  copy_contiguous(L, idx);
  l = array_layout(array_check(L, -1));
  layout_reshape(&l, s, &v);
  array_view(L, -1, &v);
  lua_remove(L, -2);
}

/* Whether argument i is a number or a 0-D array (dot multiplies then); -1 when it is
 * neither a number nor an array. */
static int dot_scalar_arg(lua_State *L, int i) {
  if (lua_type(L, i) == LUA_TNUMBER) return 1;
  GpuArray *a = array_test(L, i);
  return a == NULL ? -1 : a->alive && a->shape.ndim == 0;
}

/* [-0, +1, e] gpu.dot with a number or a 0-D operand: gpu.multiply(a, b, {out = out}) */
static void dot_scalar(lua_State *L, int out) {
  if (array_test(L, 1) || array_test(L, 2)) {
    lua_getfield(L, array_test(L, 1) ? 1 : 2, "multiply");
  } else {   /* two numbers: gpu.multiply gives their 0-D product */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "gpu");
    lua_getfield(L, -1, "multiply");
    lua_replace(L, -3);
    lua_pop(L, 1);
  }
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  if (out) {
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, out);
    lua_setfield(L, -2, "out");
  }
  lua_call(L, out ? 3 : 2, 1);
}

/* The product of the dims of s but `skip`. */
static int64_t dims_but(const GpuShape *s, int skip) {
  GpuShape r = {0};
  for (int d = 0; d < s->ndim; d++) if (d != skip) r.dim[r.ndim++] = s->dim[d];
  return shape_count(&r);
}

/* gpu.dot(a, b [, opts]): NumPy's dot: matmul's result for 1-D and 2-D operands (and N-D
 * with 1-D); for N-D with M-D, a sum over a's last dim and b's second-to-last, the result's
 * dims a's others, then b's others */
static int gpu_dot(lua_State *L) {
  int out, tf32;
  CUstream s;
  if (errors_nil_options(L, 3, lua_gettop(L))) lua_settop(L, 2);
  if (lua_gettop(L) > 3 || (lua_gettop(L) == 3 && !lua_istable(L, 3)))
    return luaL_error(L, "gpu.dot takes two arrays and an options table");
  product_opts(L, "dot", lua_istable(L, 3) ? 3 : 0, &out, &tf32, &s);
  int sa = dot_scalar_arg(L, 1), sb = dot_scalar_arg(L, 2);
  if (sa < 0 || sb < 0) array_operand(L, sa < 0 ? 1 : 2, "dot", sa < 0 ? 1 : 2);   /* the one that is wrong */
  if (sa > 0 || sb > 0) {
    dot_scalar(L, out);
    return 1;
  }
  GpuArray *a = array_operand(L, 1, "dot", 1), *b = array_operand(L, 2, "dot", 2);
  int na = a->shape.ndim, nb = b->shape.ndim;
  if ((na <= 2 && nb <= 2) || na == 1 || nb == 1) {
    matmul(L, "dot", 1, 2, out, tf32, s);
    return 1;
  }
  Product p;
  GpuShape rs, s2 = {.ndim = 2}, t2 = {.ndim = 2}, r = {0};
  int64_t k = a->shape.dim[na - 1];
  if (k != b->shape.dim[nb - 2]) product_shapes(L, "dot", a, b, &p, &rs);   /* says which */
  for (int d = 0; d < na - 1; d++) r.dim[r.ndim++] = a->shape.dim[d];
  for (int d = 0; d < nb; d++)
    if (d != nb - 2) {
      if (r.ndim == GPU_MAXDIM) luaL_error(L, "gpu.dot: the result would have more than %d dims", GPU_MAXDIM);
      r.dim[r.ndim++] = b->shape.dim[d];
    }
  r.size = shape_count(&r);
  if (out) check_out(L, "dot", out, &r, promote_types(a->dtype, b->dtype));
  /* the others' products, not size / k: k may be 0 */
  s2.dim[0] = dims_but(&a->shape, na - 1);
  s2.dim[1] = k;
  s2.size = s2.dim[0] * k;
  reshaped(L, 1, &s2);                                  /* a as (rest, k) */
  GpuLayout l = array_layout(b);
  int perm[GPU_MAXDIM], n = 0;
  perm[n++] = nb - 2;
  for (int d = 0; d < nb; d++) if (d != nb - 2) perm[n++] = d;
  layout_permute(&l, perm);
  array_view(L, 2, &l);                                 /* b with its dim k first */
  t2.dim[0] = k;
  t2.dim[1] = dims_but(&b->shape, nb - 2);
  t2.size = t2.dim[0] * t2.dim[1];
  reshaped(L, -1, &t2);
  int top = lua_gettop(L);
  matmul(L, "dot", top - 2, top, 0, tf32, s);
  reshaped(L, -1, &r);
  if (out) { ops_copy(L, out, -1, s); lua_pushvalue(L, out); }
  return 1;
}

/* gpu.outer(a, b [, opts]): every element of a (flattened) times every element of b,
 * (m, n); opts are gpu.multiply's (out =, stream =), as NumPy's outer takes out */
static int gpu_outer(lua_State *L) {
  GpuArray *a = array_operand(L, 1, "outer", 1), *b = array_operand(L, 2, "outer", 2);
  GpuShape sa = {.ndim = 2, .dim = {a->shape.size, 1}, .size = a->shape.size};
  GpuShape sb = {.ndim = 2, .dim = {1, b->shape.size}, .size = b->shape.size};
  int opts = !lua_isnoneornil(L, 3);
  if (opts) luaL_checktype(L, 3, LUA_TTABLE), errors_options(L, 3, "outer", "out stream");
  if (lua_gettop(L) > 3) luaL_error(L, "gpu.outer takes 3 arguments (a, b and an options table), got %d", lua_gettop(L));
  lua_settop(L, 3);
  reshaped(L, 1, &sa);
  lua_getfield(L, -1, "multiply");
  lua_insert(L, -2);
  reshaped(L, 2, &sb);
  if (opts) lua_pushvalue(L, 3);
  if (lua_pcall(L, 2 + opts, 1, 0) != LUA_OK) {   /* multiply's words were its own, with no line */
    const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL, *k = "gpu.multiply: ";
    if (m == NULL || strncmp(m, k, strlen(k)) != 0) return lua_error(L);   /* (an error object as it is) */
    return luaL_error(L, "gpu.outer: %s", m + strlen(k));
  }
  return 1;
}

/* Expects the gpu table on top. */
void blas_open(lua_State *L) {
  static const luaL_Reg fns[] = {{"matmul", gpu_matmul}, {"dot", gpu_dot}, {"outer", gpu_outer}, {NULL, NULL}};
  int gpu = lua_gettop(L);
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_getfield(L, -1, "methods");
  for (const luaL_Reg *r = fns; r->name; r++) {
    lua_pushcfunction(L, r->func);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, r->name);
    lua_setfield(L, gpu, r->name);
  }
  lua_settop(L, gpu);
}
