/* sort.c: a:sort, gpu.argsort, a:topk and gpu.unique. Every sort is of rows: the dim
 * sorted is made the last of a contiguous copy (when it is not already), and the rows are
 * sorted by kernels/ops/sort.cuh's kernels (lua/sort.lua makes a program per dtype):
 *   - the CPU backend: std::stable_sort on each row, a row a thread;
 *   - the GPU, rows of up to a tile (4096 elements, 2048 for 8-byte keys): a block each,
 *     every radix pass in shared memory, one launch;
 *   - the GPU, longer rows: a histogram kernel and one Onesweep pass per 8 bits of key
 *     (4 for float32), then passes on the row's number when there are several rows; a
 *     sort of values alone over one row carries no index (so_pass_keys).
 * All are stable, so ties keep their order, and NaN sorts last (first when descending) on
 * both backends. Indices are 1-based int64, as Torch7's. */
#include <string.h>
#include "reduce.h"

static const char BUILD_KEY = 0;   /* registry: lua/sort.lua's program maker */
enum { SK_HIST, SK_PASS, SK_BLOCK, SK_CPU, SK_FLAGS, SK_SCATTER, SK_COUNTS, SK_PASS_KEYS };

/* [-0, +0, e] Kernel `which` of the sort program for dt (the GPU's plan or the CPU's). */
static CUfunction sort_kernel(lua_State *L, GpuDtype dt, int gpu_plan, int which) {
  static const int gpu_index[] = {0, 1, 2, -1, 3, 4, 5, 6}, cpu_index[] = {-1, -1, -1, 0, 1, 2, 3, -1};
  int index = gpu_plan ? gpu_index[which] : cpu_index[which];
  const char *origin;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &BUILD_KEY);
  lua_pushstring(L, dtypes[dt].name);
  lua_pushboolean(L, gpu_plan);
  lua_call(L, 2, 1);
  CUfunction f = program_function(L, lua_gettop(L), index, &origin);
  lua_pop(L, 1);
  return f;
}

static void launch(lua_State *L, CUfunction f, int64_t blocks, unsigned threads, CUstream s, void **argv) {
  if (blocks > 0x7fffffff) luaL_error(L, "a sort of this size needs more blocks than a grid has");
  unsigned grid[3] = {(unsigned)(blocks > 0 ? blocks : 1), 1, 1}, block[3] = {threads, 1, 1};
  GpuResult r = backend_get()->launch(f, grid, block, 0, s, argv);
  if (r.code) errors_raise(L, r, r.detail ? lua_pushfstring(L, "gpu.sort %s", r.detail) : "gpu.sort");
}

/* [-0, +1, e] A scratch buffer of n bytes (freed by drop_scratch). */
static CUdeviceptr scratch(lua_State *L, size_t n) {
  GpuShape s = {.ndim = 1, .dim = {(int64_t)(n ? n : 1)}};
  s.size = s.dim[0];
  return array_new(L, &s, DT_UINT8)->ptr;
}
static void drop_scratch(lua_State *L, int top) {
  while (lua_gettop(L) > top) scratch_drop(L);
}

/* bytes of the key a radix pass looks at: 8 bits each */
static int key_passes(GpuDtype dt) { return (int)dtypes[dt].size; }
static int tile_of(GpuDtype dt) { return 256 * (dtypes[dt].size <= 4 ? 16 : 8); }

/* The argument struct of so_pass (srt::pass_args). */
typedef struct PassArgs {
  CUdeviceptr kin, kout, pin, pout, iout;
  int64_t n, seg_len;
  CUdeviceptr hist, look, counter;
  int32_t shift, desc;
} PassArgs;

/* [-0, +0, e] The GPU's radix sort of rows of len in the contiguous a: the sorted keys to
 * v (0: not wanted), 1-based indices to ix (0: not wanted). */
static void onesweep(lua_State *L, const GpuArray *a, CUdeviceptr v, CUdeviceptr ix, int64_t len, int desc, CUstream s) {
  const GpuBackend *be = backend_get();
  int64_t n = a->shape.size, m = n / len, tiles = (n + tile_of(a->dtype) - 1) / tile_of(a->dtype);
  int npk = key_passes(a->dtype), nps = 0;
  for (int64_t r = m - 1; r > 0; r >>= 8) nps++;
  int np = npk + nps, carry = ix != 0 || nps > 0 || v == 0, top = lua_gettop(L);
  size_t es = dtypes[a->dtype].size, hist_b = (size_t)np * 256 * 8, look_b = (size_t)np * (size_t)tiles * 256 * 8;
  CUdeviceptr board = scratch(L, hist_b + look_b + 8 * (size_t)np);
  GPU_CHECK(L, be->memset0(board, hist_b + look_b + 8 * (size_t)np));
  /* keys go back and forth between two buffers, the last pass into kb[0]: the values
   * wanted, when they are */
  CUdeviceptr kb[2] = {v ? v : scratch(L, (size_t)n * es), scratch(L, (size_t)n * es)};
  CUdeviceptr pb[2] = {carry ? scratch(L, (size_t)n * 4) : 0, carry ? scratch(L, (size_t)n * 4) : 0};
  CUdeviceptr kin = a->ptr, hist = board;
  int32_t ipk = npk, ips = nps, idesc = desc;
  void *hargs[7] = {&kin, &n, &ipk, &ips, &len, &idesc, &hist};
  /* one wave: 4 blocks an SM fit (37 KB of shared memory and 40 registers a thread each);
   * more made a second wave, mostly empty, in which few blocks did a whole block's part */
  int64_t hb = (n + 255) / 256, wave = 4 * (int64_t)units_of_device();
  launch(L, sort_kernel(L, a->dtype, 1, SK_HIST), hb < wave ? hb : wave, 256, s, hargs);
  /* values alone: a pass that carries no index */
  CUfunction pass = sort_kernel(L, a->dtype, 1, carry ? SK_PASS : SK_PASS_KEYS);
  for (int p = 0; p < np; p++) {
    int last = p == np - 1;
    PassArgs g = {
      .kin = p == 0 ? a->ptr : kb[(np - p) % 2], .kout = last ? v : kb[(np - 1 - p) % 2],
      .pin = p == 0 ? 0 : pb[(p - 1) % 2], .pout = last ? 0 : pb[p % 2], .iout = last ? ix : 0,
      .n = n, .seg_len = p < npk ? 0 : len,
      .hist = board + (CUdeviceptr)p * 256 * 8,
      .look = board + hist_b + (CUdeviceptr)p * (CUdeviceptr)tiles * 256 * 8,
      .counter = board + hist_b + look_b + 8 * (CUdeviceptr)p,
      .shift = 8 * (p < npk ? p : p - npk), .desc = desc,
    };
    void *args[1] = {&g};
    launch(L, pass, tiles, 256, s, args);
  }
  drop_scratch(L, top);
}

/* [-0, +0, e] Sorts the rows (of len) of the contiguous array at src: keys to the array at
 * vidx and indices to the one at iidx (0: not wanted), both contiguous of src's shape. */
static void sort_rows(lua_State *L, int src, int vidx, int iidx, int64_t len, int desc, CUstream s) {
  GpuArray *a = array_check(L, src);
  int64_t n = a->shape.size, m = len > 0 ? n / len : 0;
  if (n == 0) return;
  if (n > 0xffffffffLL) luaL_error(L, "gpu.sort: sorts of more than 2^32 - 1 elements are not supported");
  CUdeviceptr kin = a->ptr, v = vidx ? array_check(L, vidx)->ptr : 0, ix = iidx ? array_check(L, iidx)->ptr : 0;
  int32_t d = desc;
  int top = lua_gettop(L);
  if (graph_capturing) {
    graph_keep(L, src);
    if (vidx) graph_keep(L, vidx);
    if (iidx) graph_keep(L, iidx);
  }
  if (!reduce_plan_gpu()) {
    CUdeviceptr tmp = scratch(L, (size_t)n * 16);
    void *args[6] = {&kin, &v, &ix, &len, &d, &tmp};
    launch(L, sort_kernel(L, a->dtype, 0, SK_CPU), m, 1, s, args);
  } else if (len <= tile_of(a->dtype)) {
    int32_t passes = key_passes(a->dtype);
    void *args[6] = {&kin, &v, &ix, &len, &passes, &d};
    launch(L, sort_kernel(L, a->dtype, 1, SK_BLOCK), m, 256, s, args);
  } else {
    onesweep(L, a, v, ix, len, desc, s);
  }
  drop_scratch(L, top);
}

/* ---- dims ---- */

/* [-0, +1, e] A view of the array at idx with dim moved last (perm) or back (inverse). */
static void move_dim(lua_State *L, int idx, int dim, int back) {
  GpuArray *a = array_check(L, idx);
  GpuLayout l = array_layout(a);
  int perm[GPU_MAXDIM], n = 0, nd = l.shape.ndim;
  if (!back) {
    for (int d = 0; d < nd; d++) if (d != dim) perm[n++] = d;
    perm[n] = dim;
  } else {
    for (int d = 0; d < nd; d++) perm[d] = d < dim ? d : d == dim ? nd - 1 : d - 1;
  }
  layout_permute(&l, perm);
  array_view(L, idx, &l);
}

/* [-0, +1, e] The array at idx as contiguous rows along dim. */
static void rows_of(lua_State *L, int idx, int dim) {
  GpuArray *a = array_check(L, idx);
  if (dim == a->shape.ndim - 1) { copy_contiguous(L, idx); return; }
  move_dim(L, idx, dim, 0);
  copy_contiguous(L, -1);
  lua_remove(L, -2);
}

/* [-1, +1, e] The array on top (rows along dim) in the input's order of dims. */
static void unrows(lua_State *L, int dim, int ndim) {
  if (dim == ndim - 1) return;
  move_dim(L, -1, dim, 1);
  copy_contiguous(L, -1);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

typedef struct SortArgs {
  GpuArray *a;
  int dim, desc, indices, values;
  CUstream stream;
} SortArgs;

static int checked_dim(lua_State *L, const char *name, int idx, int ndim) {
  lua_Integer d, k;
  if (!errors_integer(L, idx, &d)) luaL_error(L, "gpu.%s: dim must be an integer, got %s", name, errors_value(L, idx));
  k = d < 0 ? d + ndim + 1 : d;
  if (k < 1 || k > (ndim ? ndim : 1))
    luaL_error(L, "gpu.%s: dim %I is out of range for an array of %d dimension%s", name, d, ndim, ndim == 1 ? "" : "s");
  return (int)k - 1;
}

/* [-0, +0, e] (a [, extra...] [, dim] [, opts]): the array at 1, dim at argument dimarg (or
 * opts.dim; default the last), and the options. */
static void sort_args(lua_State *L, const char *name, int dimarg, SortArgs *g) {
  memset(g, 0, sizeof *g);
  g->a = array_operand(L, 1, name, 1);
  if (dtypes[g->a->dtype].kind == 'c')
    luaL_error(L, "gpu.%s: complex arrays are not ordered here (sort gpu.real(a) or gpu.abs(a))", name);
  int n = lua_gettop(L), maxpos = dimarg > 0 ? dimarg : 1, dims = 0;
  if (errors_nil_options(L, maxpos + 1, n)) n--;   /* (then the table before it: f(x, {dim = 1}, nil)) */
  int opts = n >= 2 && lua_type(L, n) == LUA_TTABLE ? n : 0;
  if (opts) n--;
  if (n > maxpos) luaL_error(L, "gpu.%s takes %d argument%s and an options table, got %d", name, maxpos, maxpos == 1 ? "" : "s", lua_gettop(L));
  if (dimarg > 0 && n == dimarg && !lua_isnil(L, dimarg)) dims = dimarg;
  g->values = g->indices = 1;
  if (opts) {
    static const char *const known[][2] = {{"sort", "dim descending indices stream"},
      {"argsort", "dim descending stream"}, {"topk", "dim largest indices stream"},
      {"unique", "dim index inverse counts stream"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
      if (strcmp(name, known[i][0]) == 0) errors_options(L, opts, name, known[i][1]);
    if (lua_getfield(L, opts, "dim") != LUA_TNIL) {
      if (dims) luaL_error(L, "gpu.%s: dim is given twice (as an argument and as an option)", name);
      dims = lua_gettop(L);
    }
    int topk = strcmp(name, "topk") == 0;   /* largest is topk's; descending the others' */
    g->desc = topk ? errors_flag(L, opts, name, "largest", 1) : errors_flag(L, opts, name, "descending", 0);
    g->indices = errors_flag(L, opts, name, "indices", 1);
    if (lua_getfield(L, opts, "stream") != LUA_TNIL) g->stream = stream_named(L, -1, "gpu.", name, 1);
  } else if (strcmp(name, "topk") == 0) {
    g->desc = 1;
  }
  int nd = g->a->shape.ndim;
  g->dim = dims ? checked_dim(L, name, dims, nd) : (nd ? nd - 1 : 0);
}

/* [-0, +2, e] Sorts the array at 1 per g: pushes the values (or nil) and the indices (or nil). */
static void sort_push(lua_State *L, const SortArgs *g) {
  int top = lua_gettop(L), nd = g->a->shape.ndim;
  if (nd == 0) {   /* one element: a copy of it (it was the array itself) */
    if (g->values) copy_packed(L, 1); else lua_pushnil(L);
    if (g->indices) {
      GpuShape s = {0};
      s.size = 1;
      GpuArray *i = array_new(L, &s, DT_INT64);
      int64_t one = 1;
      GPU_CHECK(L, backend_get()->htod(i->ptr, &one, 8));
    } else {
      lua_pushnil(L);
    }
    return;
  }
  rows_of(L, 1, g->dim);
  GpuArray *r = array_check(L, -1);
  int src = lua_gettop(L), vidx = 0, iidx = 0;
  if (g->values) { array_new(L, &r->shape, r->dtype); vidx = lua_gettop(L); }
  if (g->indices) { array_new(L, &r->shape, DT_INT64); iidx = lua_gettop(L); }
  int64_t len = r->shape.dim[r->shape.ndim - 1];
  sort_rows(L, src, vidx, iidx, len, g->desc, g->stream);
  if (vidx) { lua_pushvalue(L, vidx); unrows(L, g->dim, nd); } else lua_pushnil(L);
  if (iidx) { lua_pushvalue(L, iidx); unrows(L, g->dim, nd); } else lua_pushnil(L);
  lua_replace(L, top + 2);
  lua_replace(L, top + 1);
  lua_settop(L, top + 2);
}

/* a:sort([dim] [, {descending =, dim =, indices = false, stream =}]) -> values, indices */
static int gpu_sort(lua_State *L) {
  SortArgs g;
  sort_args(L, "sort", 2, &g);
  sort_push(L, &g);
  if (g.indices) return 2;
  lua_pop(L, 1);   /* the indices' nil */
  return 1;
}

/* gpu.argsort(a [, dim] [, opts]) -> indices */
static int gpu_argsort(lua_State *L) {
  SortArgs g;
  sort_args(L, "argsort", 2, &g);
  g.values = 0;
  g.indices = 1;
  sort_push(L, &g);
  return 1;
}

/* a:topk(k [, dim] [, {largest = true, dim =, indices = false, stream =}]) -> values, indices: the k largest
 * (smallest) along dim, in order */
static int gpu_topk(lua_State *L) {
  SortArgs g;
  sort_args(L, "topk", 3, &g);
  lua_Integer k;
  if (!errors_integer(L, 2, &k)) luaL_error(L, "gpu.topk: k must be an integer, got %s", errors_value(L, 2));
  int nd = g.a->shape.ndim;
  int64_t len = nd ? g.a->shape.dim[g.dim] : 1;
  if (nd == 0 && k != 1)   /* a 0-D result holds one element: none is no 0-D array */
    luaL_error(L, "gpu.topk: k = %I is out of range for a 0-D array (1 only)", k);
  if (k < 0 || k > len)
    luaL_error(L, "gpu.topk: k = %I is out of range for a dim of size %I (0 to %I)", k, (lua_Integer)len, (lua_Integer)len);
  g.values = 1;   /* g.indices: true unless {indices = false} (it was ignored) */
  sort_push(L, &g);
  int top = lua_gettop(L);
  for (int j = 0; j < 1 + g.indices && nd > 0; j++) {   /* the first k along dim, contiguous */
    GpuArray *x = array_check(L, top - 1 + j);
    GpuLayout l = array_layout(x);
    layout_slice(&l, g.dim, 0, k, 1);
    array_view(L, top - 1 + j, &l);
    copy_contiguous(L, -1);
    lua_replace(L, top - 1 + j);
    lua_pop(L, 1);
  }
  if (g.indices) return 2;
  lua_pop(L, 1);   /* the indices' nil */
  return 1;
}

/* [-0, +1, e] A new int64 array of n elements. */
static GpuArray *int64s(lua_State *L, int64_t n) {
  GpuShape s = {.ndim = 1, .dim = {n}, .size = n};
  return array_new(L, &s, DT_INT64);
}

/* [-0, +1, e] The array at 1 as a contiguous 1-D array (a view of a copy, or of itself). */
static void flattened(lua_State *L) {
  GpuArray *a = array_check(L, 1);
  GpuShape flat = {.ndim = 1, .dim = {a->shape.size}, .size = a->shape.size};
  copy_contiguous(L, 1);
  GpuLayout l = array_layout(array_check(L, -1));
  layout_reshape(&l, &flat, &l);
  array_view(L, -1, &l);
  lua_remove(L, -2);
}

/* gpu.unique(a [, {index =, inverse =, counts =, stream =}]) -> the sorted distinct values
 * of the flattened array, then (when asked) each one's first index (1-based, flat), every
 * element's value's number (1-based, of a's shape), and how many there are of each */
static int gpu_unique(lua_State *L) {
  int dim = 0;
  if (lua_gettop(L) == 2 && lua_istable(L, 2)) {
    dim = lua_getfield(L, 2, "dim") != LUA_TNIL;
    lua_pop(L, 1);
  }
  if (dim) {
    lua_getfield(L, lua_upvalueindex(1), "_unique_dim");   /* along a dim: lua/sets.lua */
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, LUA_MULTRET);
    return lua_gettop(L) - 2;
  }
  SortArgs g;
  sort_args(L, "unique", 0, &g);
  int want[3] = {0, 0, 0};
  static const char *const keys[3] = {"index", "inverse", "counts"};
  if (lua_gettop(L) >= 2 && lua_istable(L, 2)) {
    for (int i = 0; i < 3; i++) want[i] = errors_flag(L, 2, "unique", keys[i], 0);
  }
  GpuShape shape = g.a->shape;
  lua_settop(L, 2);   /* the options stay at 2: they keep the stream from the collector */
  flattened(L);
  lua_replace(L, 1);
  g.a = array_check(L, 1);
  g.dim = 0;
  g.values = g.indices = 1;
  sort_push(L, &g);                                   /* 3: sorted values, 4: their indices */
  int64_t n = shape.size, nu = 0;
  int gp = reduce_plan_gpu();
  CUdeviceptr sp = array_check(L, 3)->ptr, pp = array_check(L, 4)->ptr, fp = int64s(L, n)->ptr;   /* 5 */
  void *fargs[3] = {&sp, &n, &fp};
  if (n) launch(L, sort_kernel(L, g.a->dtype, gp, SK_FLAGS), (n + 255) / 256, 256, g.stream, fargs);
  lua_getfield(L, LUA_REGISTRYINDEX, SCAN_CUMSUM);   /* (host/scan.c's, not the methods') */
  lua_pushvalue(L, 5);
  lua_call(L, 1, 1);                                  /* 6: each element's value's number */
  CUdeviceptr pos = array_check(L, 6)->ptr;
  if (n) GPU_CHECK(L, backend_get()->dtoh(&nu, pos + (CUdeviceptr)(n - 1) * 8, 8));
  GpuShape us = {.ndim = 1, .dim = {nu}, .size = nu};
  CUdeviceptr u = array_new(L, &us, g.a->dtype)->ptr, first = 0, index = 0, inverse = 0;   /* 7 */
  int at[3] = {0, 0, 0};
  if (want[0]) { index = int64s(L, nu)->ptr; at[0] = lua_gettop(L); }
  if (want[1]) { inverse = array_new(L, &shape, DT_INT64)->ptr; at[1] = lua_gettop(L); }
  if (want[2]) { first = int64s(L, nu)->ptr; at[2] = lua_gettop(L) + 1; int64s(L, nu); }
  void *sargs[8] = {&sp, &pp, &pos, &n, &u, &first, &index, &inverse};
  if (n) launch(L, sort_kernel(L, g.a->dtype, gp, SK_SCATTER), (n + 255) / 256, 256, g.stream, sargs);
  if (want[2] && nu) {
    CUdeviceptr counts = array_check(L, at[2])->ptr;
    void *cargs[4] = {&first, &nu, &n, &counts};
    launch(L, sort_kernel(L, g.a->dtype, gp, SK_COUNTS), (nu + 255) / 256, 256, g.stream, cargs);
  }
  int nret = 1;
  lua_pushvalue(L, 7);
  for (int i = 0; i < 3; i++)
    if (want[i]) { lua_pushvalue(L, at[i]); nret++; }
  return nret;
}

/* gpu._set_sort_builder(f): f(dtype, gpu_plan) -> the sort program (lua/sort.lua) */
static int gpu_set_sort_builder(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &BUILD_KEY);
  return 0;
}

/* Expects the gpu table on top. */
void sort_open(lua_State *L) {
  static const luaL_Reg fns[] = {
    {"sort", gpu_sort}, {"argsort", gpu_argsort}, {"topk", gpu_topk}, {"unique", gpu_unique}, {NULL, NULL}
  };
  int gpu = lua_gettop(L);
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_getfield(L, -1, "methods");
  for (const luaL_Reg *r = fns; r->name; r++) {
    lua_pushvalue(L, gpu);   /* unique's upvalue (the others ignore it) */
    lua_pushcclosure(L, r->func, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, r->name);
    lua_setfield(L, gpu, r->name);
  }
  lua_settop(L, gpu);
  lua_pushcfunction(L, gpu_set_sort_builder);
  lua_setfield(L, gpu, "_set_sort_builder");
}
