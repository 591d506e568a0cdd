/* scan.c: gpu.cumsum and gpu.cumprod (and a:cumsum(...)): inclusive scans along a dim (none:
 * the flattened array, as NumPy's), in the result dtype NumPy gives (bool and integers of
 * up to 32 bits in 64, as sums). The kernels are kernels/ops/scan.cuh's, made per dtypes
 * by the reduction engine's builder (the scanner is a Reducer of kind "cumsum"): lines that
 * are contiguous go to the look-back tiles, one pass over the data; short lines and lines
 * whose neighbours are lines (a scan along the first dim) give each thread a line; a long
 * strided line on the GPU is scanned from a transposed copy. */
#include <string.h>
#include "reduce.h"

typedef struct ScanLayout {   /* scan::layout (kernels/ops/scan.cuh) */
  int64_t lines, len, tiles, in_step, out_step;
  int32_t nd, tile;
  int64_t shape[GPU_MAXDIM], in_stride[GPU_MAXDIM], out_stride[GPU_MAXDIM];
} ScanLayout;

typedef struct ScanArgs {
  int in, out, dim;          /* stack indices of the input (as scanned) and the output; the dim */
  CUstream stream;
} ScanArgs;

static GpuDtype scan_result(GpuDtype t) {
  const DtypeInfo *d = &dtypes[t];
  if (d->kind == 'b' || (d->kind == 'i' && d->size < 8)) return DT_INT64;
  if (d->kind == 'u' && d->size < 8) return DT_UINT64;
  return t;
}

/* [-0, +1, e] A view of the array at idx with dim moved last. */
static void moved_view(lua_State *L, int idx, int dim) {
  GpuArray *a = array_check(L, idx);
  GpuLayout l = array_layout(a);
  int perm[GPU_MAXDIM], n = 0;
  for (int d = 0; d < l.shape.ndim; d++) if (d != dim) perm[n++] = d;
  perm[n] = dim;
  layout_permute(&l, perm);
  array_view(L, idx, &l);
}

/* The line space (every dim but dim, merged) and the steps along dim. */
static void scan_layout(const GpuArray *in, const GpuArray *out, int dim, ScanLayout *s) {
  GpuLayout ls[2] = {array_layout(in), array_layout(out)};
  memset(s, 0, sizeof *s);
  s->len = in->shape.dim[dim];
  s->in_step = ls[0].strides[dim];
  s->out_step = ls[1].strides[dim];
  s->lines = s->len ? in->shape.size / s->len : 0;
  for (int i = 0; i < 2; i++) {   /* dim taken out: the lines' own shape */
    GpuLayout *l = &ls[i];
    for (int d = dim; d + 1 < l->shape.ndim; d++) {
      l->shape.dim[d] = l->shape.dim[d + 1];
      l->strides[d] = l->strides[d + 1];
    }
    l->shape.ndim--;
    l->shape.size = s->lines;
  }
  s->nd = layout_collapse(2, ls);
  for (int d = 0; d < GPU_MAXDIM; d++) {
    s->shape[d] = d < s->nd ? ls[0].shape.dim[d] : 1;
    s->in_stride[d] = d < s->nd ? ls[0].strides[d] : 0;
    s->out_stride[d] = d < s->nd ? ls[1].strides[d] : 0;
  }
}

static unsigned grid_for(lua_State *L, int64_t blocks) {
  if (blocks > 0x7fffffff) luaL_error(L, "a scan of this size needs more blocks than a grid has");
  return (unsigned)(blocks > 0 ? blocks : 1);
}

/* [-0, +0, e] Scans the array at g->in along g->dim into the array at g->out with the
 * scanner at ridx: the rows kernel, or the tiles (tiles = 1; then in and out must be
 * contiguous along dim). */
static void scan_run(lua_State *L, int ridx, const ScanArgs *g, int tiles, int gpu_plan) {
  GpuArray *in = array_check(L, g->in), *out = array_check(L, g->out);
  Reducer *r = reducer_check(L, ridx);
  RedCall c;
  memset(&c, 0, sizeof c);
  c.nin = c.nout = 1;
  c.ops[0].dtype = in->dtype;
  c.ops[1].dtype = out->dtype;
  c.result = scan_result(in->dtype);
  size_t acc;
  CUfunction f = reducer_function(L, ridx, r, &c, tiles, &acc);
  ScanLayout s;
  scan_layout(in, out, g->dim, &s);
  if (s.lines == 0 || s.len == 0) return;
  CUdeviceptr x = in->ptr, y = out->ptr, scratch = 0;
  void *argv[4] = {&x, &y, &s, &scratch};
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  int top = lua_gettop(L);
  if (graph_capturing) { graph_keep(L, g->in); graph_keep(L, g->out); graph_keep(L, ridx); }
  if (!tiles) {
    int64_t per = gpu_plan ? 256 : s.lines >= 1024 ? 256 : 1;
    block[0] = (unsigned)per;
    grid[0] = grid_for(L, (s.lines + per - 1) / per);
  } else {
    s.tile = gpu_plan ? 256 * (acc <= 4 ? 16 : 8) : 16384;
    s.tiles = (s.len + s.tile - 1) / s.tile;
    int64_t total = s.lines * s.tiles, head = (8 + 4 * total + 15) / 16 * 16;
    GpuShape sh = {.ndim = 1, .dim = {head + 2 * total * (int64_t)acc}};
    sh.size = sh.dim[0];
    scratch = array_new(L, &sh, DT_UINT8)->ptr;
    GPU_CHECK(L, backend_get()->memset0(scratch, (size_t)(8 + 4 * total)));
    block[0] = gpu_plan ? 256 : 1;
    grid[0] = grid_for(L, total);
  }
  GpuResult res = backend_get()->launch(f, grid, block, 0, g->stream, argv);
  if (res.code) errors_raise(L, res, res.detail ? lua_pushfstring(L, "gpu.%s %s", r->name, res.detail) : r->name);
  if (lua_gettop(L) > top) scratch_drop(L);
}

/* [-0, +0, e] Which kernel the scan takes, and the transposed copy when it needs one. */
static void scan_plan(lua_State *L, int ridx, ScanArgs *g) {
  GpuArray *in = array_check(L, g->in), *out = array_check(L, g->out);
  GpuLayout li = array_layout(in), lo = array_layout(out);
  int64_t len = in->shape.dim[g->dim], lines = len ? in->shape.size / len : 0;
  int gpu_plan = reduce_plan_gpu(), contiguous = li.strides[g->dim] == 1 && lo.strides[g->dim] == 1;
  int64_t many = gpu_plan ? 16384 : 4 * 64;
  if (len <= 16 || lines >= many || (!gpu_plan && !contiguous)) {
    scan_run(L, ridx, g, 0, gpu_plan);
  } else if (contiguous) {
    scan_run(L, ridx, g, 1, gpu_plan);
  } else {   /* a few long strided lines: scan them from a copy where they are contiguous */
    int last = in->shape.ndim - 1, top = lua_gettop(L);
    moved_view(L, g->in, g->dim);
    copy_contiguous(L, -1);
    GpuArray *t = array_check(L, -1);
    array_new(L, &t->shape, out->dtype);
    ScanArgs m = {top + 2, top + 3, last, g->stream};
    scan_run(L, ridx, &m, 1, gpu_plan);
    moved_view(L, g->out, g->dim);
    ops_copy(L, -1, m.out, g->stream);
    lua_settop(L, top);
  }
}

static int overlapping(const GpuArray *a, const GpuArray *b) {
  if (a->base == 0 || a->base != b->base) return 0;
  GpuLayout la = array_layout(a), lb = array_layout(b);
  return layout_overlap(&la, &lb) && !layout_same(&la, &lb);
}

/* [-0, +0, e] The options: dim (also the second argument), out, stream. */
static void scan_options(lua_State *L, const char *name, int *dimidx, int *outidx, CUstream *stream) {
  int n = lua_gettop(L), opts = 0;
  if (errors_nil_options(L, 3, n)) n--;   /* (then the table before it: f(x, {dim = 1}, nil)) */
  if (n >= 2 && lua_type(L, n) == LUA_TTABLE) opts = n--;
  if (n > 2) luaL_error(L, "gpu.%s takes an array, a dim and an options table, got %d arguments", name, lua_gettop(L));
  *dimidx = n >= 2 && !lua_isnil(L, 2) ? 2 : 0;
  *outidx = 0;
  if (!opts) return;
  if (lua_geti(L, opts, 1) != LUA_TNIL)   /* (errors_options said "a number key") */
    luaL_error(L, "gpu.%s takes one dim (a number), got a table of them", name);
  errors_options(L, opts, name, "dim out stream");
  if (lua_getfield(L, opts, "dim") != LUA_TNIL) {
    if (*dimidx) luaL_error(L, "gpu.%s: dim is given twice (as an argument and as an option)", name);
    *dimidx = lua_gettop(L);
  }
  if (lua_getfield(L, opts, "out") != LUA_TNIL) *outidx = lua_gettop(L);
  if (lua_getfield(L, opts, "stream") != LUA_TNIL) *stream = stream_named(L, -1, "gpu.", name, 1);
}

/* [-0, +1, e] The output: out (checked) or a new array like the input at in. */
static void scan_output(lua_State *L, const char *name, int in, int outidx) {
  GpuArray *a = array_check(L, in);
  GpuDtype dt = scan_result(a->dtype);
  if (!outidx) { array_new(L, &a->shape, dt); return; }
  GpuArray *o = array_out(L, outidx, name);
  if (o->device != a->device)
    luaL_error(L, "gpu.%s: out is on device %d, the array on device %d", name, o->device, a->device);
  int same = o->shape.ndim == a->shape.ndim;
  for (int d = 0; same && d < a->shape.ndim; d++) same = o->shape.dim[d] == a->shape.dim[d];
  if (!same) {
    char x[160], y[160];
    shape_format(&o->shape, x, sizeof x);
    shape_format(&a->shape, y, sizeof y);
    luaL_error(L, "gpu.%s: out has shape %s but the result has shape %s", name, x, y);
  }
  if (!can_cast_same_kind(dt, o->dtype))
    luaL_error(L, "gpu.%s: out is %s, and the result (%s) cannot be cast to it", name, dtypes[o->dtype].name, dtypes[dt].name);
  if (array_shares(o)) errors_shared(L, lua_pushfstring(L, "gpu.%s", name));
  lua_pushvalue(L, outidx);
}

/* gpu.cumsum(a [, dim] [, {dim =, out =, stream =}]), gpu.cumprod: upvalue 1 the scanner */
static int scan_call(lua_State *L) {
  Reducer *r = reducer_check(L, lua_upvalueindex(1));
  const char *name = r->name;
  GpuArray *a = array_operand(L, 1, name, 1);
  ScanArgs g = {1, 0, 0, NULL};
  int dimidx, outidx;
  scan_options(L, name, &dimidx, &outidx, &g.stream);
  if (dimidx) {
    lua_Integer d, k;
    if (!errors_integer(L, dimidx, &d))   /* (lua_tointegerx took "1") */ luaL_error(L, "gpu.%s: dim must be an integer, got %s", name, lua_type(L, dimidx) == LUA_TSTRING ? "string" : errors_value(L, dimidx));
    k = d < 0 ? d + a->shape.ndim + 1 : d;
    if (k < 1 || k > a->shape.ndim)
      luaL_error(L, "gpu.%s: dim %I is out of range for an array of %d dimension%s", name, d,
                 a->shape.ndim, a->shape.ndim == 1 ? "" : "s");
    g.dim = (int)k - 1;
  } else {   /* the flattened array */
    copy_contiguous(L, 1);
    GpuArray *c = array_check(L, -1);
    GpuLayout l = array_layout(c);
    GpuShape s = {.ndim = 1, .dim = {c->shape.size}, .size = c->shape.size};
    layout_reshape(&l, &s, &l);
    array_view(L, -1, &l);
    g.in = lua_gettop(L);
  }
  scan_output(L, name, g.in, outidx);
  g.out = lua_gettop(L);
  if (overlapping(array_check(L, g.in), array_check(L, g.out))) {   /* read from a copy */
    copy_packed(L, g.in);   /* (not the methods' copy, which a script may replace) */
    g.in = lua_gettop(L);
  }
  scan_plan(L, lua_upvalueindex(1), &g);
  lua_pushvalue(L, g.out);
  return 1;
}

/* Expects the gpu table on top. */
void scan_open(lua_State *L) {
  int gpu = lua_gettop(L);
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_getfield(L, -1, "methods");
  int methods = lua_gettop(L);
  const char *names[2] = {"cumsum", "cumprod"};
  for (int i = 0; i < 2; i++) {
    reducer_new(L, names[i], names[i], 1, 1, 1);
    lua_pushcclosure(L, scan_call, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, methods, names[i]);
    lua_pushvalue(L, -1);
    lua_setfield(L, gpu, names[i]);
    /* gpu.unique's own (host/sort.c): whatever a script makes of the methods */
    if (i == 0) lua_setfield(L, LUA_REGISTRYINDEX, SCAN_CUMSUM);
    else lua_pop(L, 1);
  }
  lua_settop(L, gpu);
}
