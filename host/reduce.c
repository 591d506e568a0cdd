/* reduce.c: the reduction engine. A reducer ("gpu.reducer": gpu.sum's, gpu.argmax's, what
 * gpu.reduction makes) keeps one program per combination of operand dtypes, written by
 * lua/reduction.lua around kernels/ops/red.cuh's kernel. A launch splits the full shape
 * into the outputs' dims and the reduced dims, merges each side's dims that every operand
 * walks in step (layout_collapse), and picks how threads share the work:
 *   - mode 0 when the first input is contiguous along the reduced elements (and there are
 *     32 or more): the lanes of a block's x walk one output's elements, 16 bytes a load
 *     where one aligned input allows (a full sum is this);
 *   - mode 1 otherwise (reducing along a strided dim, or a few elements each): consecutive
 *     threads take consecutive outputs, so a warp's loads are consecutive, and the lanes of
 *     y split the elements;
 *   - blockIdx.y splits the elements of each output over several blocks when there are too
 *     few outputs to fill the device, so a reduction along a long dim into a few outputs
 *     does not run on a few blocks; the last block to finish combines (one launch). On a
 *     GPU the splits interleave (block y's lanes take every gridDim.y-th turn, as a
 *     grid-stride loop's would; on an H200 a full sum measured the same either way); on
 *     the CPU each split is one stretch, which stays in cache.
 * On the CPU backend a block's lanes run one after another, so there each output has one
 * lane (a plain loop), and blocks of 256 threads take 256 outputs. */
#include <stdlib.h>
#include <string.h>
#include "reduce.h"

#define KEYLEN (GPU_MAXOPS + 2)

typedef struct REntry {
  uint8_t key[KEYLEN];   /* 1 + each operand's dtype; the result's; the count */
  int program, device;
  unsigned unloads;      /* program_unloads when fn was kept: past it, fn is asked for again */
  size_t accsize;
  CUfunction fn[2];      /* on `device`: the program's kernels (a scan has two) */
  int resident;          /* blocks of fn[0] an SM holds at once (0: not asked yet) */
} REntry;

static const char BUILD_KEY = 0;   /* registry: lua/reduction.lua's builder */
static int forced_plan = -1;       /* gpu._reduce_plan: 0 the CPU's, 1 the GPU's, -1 the backend's */
enum { UV_DESC = REDUCER_UV_DESC, UV_PROGRAMS };

Reducer *reducer_check(lua_State *L, int idx) { return luaL_checkudata(L, idx, GPU_REDUCER_T); }

Reducer *reducer_new(lua_State *L, const char *name, const char *kind, int nin, int nout, int has_identity) {
  Reducer *r = lua_newuserdatauv(L, sizeof *r, 2);
  memset(r, 0, sizeof *r);
  luaL_setmetatable(L, GPU_REDUCER_T);
  snprintf(r->name, sizeof r->name, "%s", name);
  snprintf(r->kind, sizeof r->kind, "%s", kind);
  r->nin = nin;
  r->nout = nout;
  r->has_identity = has_identity;
  lua_newtable(L);
  lua_setiuservalue(L, -2, UV_PROGRAMS);
  return r;
}

static int reducer_gc(lua_State *L) {
  Reducer *r = reducer_check(L, 1);
  free(r->entries);
  r->entries = NULL;
  r->nentries = r->capacity = 0;
  return 0;
}

/* [-0, +0, e] The place in r->entries of the entry for c's dtypes, its program made on
 * first use. A place, not a pointer: Lua code (a builder, a compile, a finalizer) may add
 * entries, and so move them (realloc). */
static int entry_get(lua_State *L, int ridx, Reducer *r, const RedCall *c) {
  uint8_t key[KEYLEN] = {0};
  int n = c->nin + c->nout;
  for (int i = 0; i < n; i++) key[i] = (uint8_t)(1 + c->ops[i].dtype);
  key[GPU_MAXOPS] = (uint8_t)(1 + c->result);
  key[GPU_MAXOPS + 1] = (uint8_t)n;
  for (int i = 0; i < r->nentries; i++)
    if (memcmp(r->entries[i].key, key, KEYLEN) == 0) return i;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &BUILD_KEY);
  lua_pushstring(L, r->kind);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 1);
    lua_pushstring(L, dtypes[c->ops[i].dtype].name);
    lua_setfield(L, -2, "dtype");
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushstring(L, dtypes[c->result].name);
  lua_getiuservalue(L, ridx, UV_DESC);
  lua_call(L, 4, 2);
  lua_Integer accsize = luaL_checkinteger(L, -1);
  lua_pop(L, 1);
  lua_getiuservalue(L, ridx, UV_PROGRAMS);
  lua_insert(L, -2);
  int program = (int)luaL_len(L, -2) + 1;
  lua_rawseti(L, -2, program);
  lua_pop(L, 1);
  if (r->nentries == r->capacity) {
    int cap = r->capacity ? 2 * r->capacity : 4;
    REntry *e = realloc(r->entries, (size_t)cap * sizeof *e);
    if (e == NULL) luaL_error(L, "not enough memory for the kernels of gpu.%s", r->name);
    r->entries = e;
    r->capacity = cap;
  }
  REntry *e = &r->entries[r->nentries++];
  memset(e, 0, sizeof *e);
  memcpy(e->key, key, KEYLEN);
  e->program = program;
  e->device = -1;
  e->accsize = (size_t)accsize;
  return r->nentries - 1;
}

static CUfunction entry_function(lua_State *L, int ridx, Reducer *r, int at, int index) {
  int dev = backend_get()->current_device();
  REntry *e = &r->entries[at];
  if (e->device != dev || e->unloads != program_unloads) {
    e->fn[0] = e->fn[1] = NULL;
    e->resident = 0;
    e->device = dev;
    e->unloads = program_unloads;
  }
  if (e->fn[index] == NULL) {
    const char *origin;
    lua_getiuservalue(L, ridx, UV_PROGRAMS);
    lua_rawgeti(L, -1, e->program);
    CUfunction f = program_function(L, lua_gettop(L), index, &origin);   /* (may move e) */
    lua_pop(L, 2);
    e = &r->entries[at];
    e->fn[index] = f;
  }
  return e->fn[index];
}

CUfunction reducer_function(lua_State *L, int ridx, Reducer *r, const RedCall *c, int index, size_t *accsize) {
  int at = entry_get(L, ridx, r, c);
  CUfunction f = entry_function(L, ridx, r, at, index);
  *accsize = r->entries[at].accsize;
  return f;
}

/* ---- layouts ---- */

/* red::layout<NOP> (kernels/ops/red.cuh): this header, then ostride[NOP][8], rstride[NOP][8] */
typedef struct RedHeader {
  int64_t n_out, n_red, k_split, count_at;
  int32_t od, rd, mode, vec, interleave, pad_;
  double param[2];
  int64_t oshape[GPU_MAXDIM], rshape[GPU_MAXDIM];
} RedHeader;

typedef struct Plan {
  GpuLayout o[GPU_MAXOPS], r[GPU_MAXOPS];   /* every operand over the output dims; inputs over the reduced */
  int od, rd, nop, nin;
  int64_t n_out, n_red;
  unsigned grid[3], block[3];
  int mode, vec, interleave;
  int64_t k_split;
} Plan;

/* Output j's dim for kept dim t (its t-th), or -1 (a full reduction into one element). */
static int out_dim(const RedCall *c, const GpuLayout *ol, int t, const int *kept, int nkept) {
  if (ol->shape.ndim == nkept) return t;
  if (ol->shape.ndim == c->full.ndim) return kept[t];
  return -1;
}

/* The operands split into output dims and reduced dims, each side merged. */
static void plan_layouts(const RedCall *c, Plan *p) {
  int kept[GPU_MAXDIM], red[GPU_MAXDIM], nk = 0, nr = 0;
  for (int d = 0; d < c->full.ndim; d++) {
    if (c->reduced[d]) red[nr++] = d; else kept[nk++] = d;
  }
  p->nin = c->nin;
  p->nop = c->nin + c->nout;
  p->n_out = p->n_red = 1;
  for (int t = 0; t < nk; t++) p->n_out *= c->full.dim[kept[t]];
  for (int t = 0; t < nr; t++) p->n_red *= c->full.dim[red[t]];
  for (int i = 0; i < p->nop; i++) {
    const GpuLayout *l = &c->ops[i].lay;
    GpuLayout *o = &p->o[i], *r = &p->r[i];
    memset(o, 0, sizeof *o);
    memset(r, 0, sizeof *r);
    o->shape.ndim = nk;
    o->shape.size = p->n_out;
    for (int t = 0; t < nk; t++) {
      o->shape.dim[t] = c->full.dim[kept[t]];
      int d = i < c->nin ? kept[t] : out_dim(c, l, t, kept, nk);
      o->strides[t] = d >= 0 ? l->strides[d] : 0;
    }
    r->shape.ndim = nr;
    r->shape.size = p->n_red;
    for (int t = 0; t < nr; t++) {
      r->shape.dim[t] = c->full.dim[red[t]];
      r->strides[t] = i < c->nin ? l->strides[red[t]] : 0;
    }
  }
  p->od = layout_collapse(p->nop, p->o);
  p->rd = layout_collapse(p->nin, p->r);
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* multiprocessors (or cores) of the current device, once per device */
int units_of_device(void) {
  static int known[GPU_MAX_DEVICES];
  int dev = backend_get()->current_device();
  if (dev < 0 || dev >= GPU_MAX_DEVICES) return 8;
  if (!known[dev]) {
    GpuDeviceInfo info;
    known[dev] = backend_get()->device_info(dev, &info).code == 0 && info.multiprocessors > 0
                 ? info.multiprocessors : 8;
  }
  return known[dev];
}

/* Splits of the reduced elements: enough blocks for `target`, each lane at least `least`
 * elements (units of `unit` elements, so splits stay aligned). */
static void plan_split(Plan *p, int64_t gx, int64_t target, int64_t lanes, int64_t least, int64_t unit) {
  int64_t gy = 1, most = clamp64(p->n_red / (lanes * least), 1, 65535);
  if (gx < target) gy = clamp64(ceil_div(target, gx), 1, most);
  if (gx < target && gx * 8 > target) {
    /* outputs for more than an eighth of a wave: the splits whose last wave is fullest. A
     * block's time is its share of a row (1/gy), and each wave costs a start and a drain
     * besides, taken as a fiftieth of a row. The last dim of (256, 2^20) float32 on an
     * H200 (528 blocks a wave): 3 splits (768 blocks) 0.260 ms, 2 splits 0.242 ms. */
    double best = 1e30;
    for (int64_t y = 1; y <= most && y <= 4 * ceil_div(target, gx); y++) {
      double waves = (double)ceil_div(gx * y, target), cost = waves / (double)y + waves / 50;
      if (cost < best) { best = cost; gy = y; }
    }
  }
  p->k_split = ceil_div(ceil_div(p->n_red > 0 ? p->n_red : 1, gy), unit) * unit;
  gy = ceil_div(p->n_red > 0 ? p->n_red : 1, p->k_split);
  p->grid[0] = (unsigned)gx;
  p->grid[1] = (unsigned)gy;
}

/* Whether the first (only) input can be read 16 bytes at a time along the elements. */
static int plan_vec(const RedCall *c, const Plan *p) {
  if (c->nin != 1 || p->rd != 1 || p->r[0].strides[0] != 1) return 0;
  size_t es = dtypes[c->ops[0].dtype].size;
  CUdeviceptr at = c->ops[0].a->base + (CUdeviceptr)(c->ops[0].lay.offset * (int64_t)es);
  if (at % 16) return 0;
  for (int d = 0; d < p->od; d++)
    if (p->o[0].shape.dim[d] > 1 && (p->o[0].strides[d] * (int64_t)es) % 16) return 0;
  return 1;
}

/* resident: blocks of the kernel an SM holds at once. The target is one wave of them, the
 * splits' lanes taking turns over the elements: on an H200 a full sum of 2^28 float32 ran
 * at 4087 GB/s with 8 waves (32 blocks an SM, 4 resident), 4291 with 2 and 4331 with one
 * (argmax 3988, 4211, 4265; the first dim of (2^20, 256) 0.356, 0.322, 0.315 ms): each
 * wave's blocks start and drain, and a block's end waits for its slowest load. */
static void plan_gpu(const RedCall *c, Plan *p, int resident) {
  int64_t target = (int64_t)resident * units_of_device();
  int64_t inner_stride = p->r[0].strides[p->rd - 1];
  p->interleave = 1;   /* the splits of an output take turns, so all blocks sweep it together */
  if (inner_stride == 1 && p->n_red >= 32) {   /* mode 0: x along the elements */
    p->mode = 0;
    p->vec = plan_vec(c, p);
    int64_t v = p->vec ? 16 / (int64_t)dtypes[c->ops[0].dtype].size : 1, units = ceil_div(p->n_red, v);
    /* lanes enough for 8 loads each (4 at least, 256 at most): a short row takes a few
     * lanes of a warp, which takes several rows, so that what each output costs besides
     * its loads (its place, the combine, the store) is shared by fewer lanes */
    int64_t bx = 4;
    while (bx < 256 && units > bx * 8) bx *= 2;
    p->block[0] = (unsigned)bx;
    p->block[1] = (unsigned)(256 / bx);
    plan_split(p, ceil_div(p->n_out, 256 / bx), target, bx, 16 * v, v);
  } else {                                     /* mode 1: x along the outputs */
    p->mode = 1;
    /* a warp along the outputs (128 bytes of a row of float32), and lanes of y along the
     * elements when there are enough of them: so that splits are combined by 8 lanes */
    int64_t bx = 1, cap = p->n_red >= 64 ? 32 : 256;
    while (bx < cap && bx < p->n_out) bx *= 2;
    int64_t by = 256 / bx;
    while (by > 1 && p->n_red < by * 4) by /= 2;
    p->block[0] = (unsigned)bx;
    p->block[1] = (unsigned)by;
    plan_split(p, ceil_div(p->n_out, bx), target, by, 16, 1);
  }
}

static void plan_cpu(const RedCall *c, Plan *p) {
  int64_t target = 4 * (int64_t)units_of_device();
  int64_t inner_stride = p->r[0].strides[p->rd - 1];
  size_t es = dtypes[c->ops[0].dtype].size;
  p->block[0] = p->block[1] = 1;
  if (p->n_out < target) {                     /* a few outputs: one a block, split */
    p->mode = 0;
    p->vec = plan_vec(c, p);
    int64_t v = p->vec ? 16 / (int64_t)es : 1;
    plan_split(p, p->n_out, target, 1, 4096, v);
    return;
  }
  p->mode = 1;                                 /* threads of a block take outputs */
  int64_t bx = clamp64(p->n_out / target, 1, 256);
  p->block[0] = (unsigned)bx;
  p->grid[0] = (unsigned)ceil_div(p->n_out, bx);
  p->grid[1] = 1;
  p->k_split = p->n_red > 0 ? p->n_red : 1;
  if (inner_stride != 1 && p->n_red * bx * (int64_t)es > (1 << 18)) {
    /* strided: each block's rows in cache while its threads walk them in turn */
    int64_t rows = clamp64((1 << 18) / (bx * (int64_t)es), 16, p->n_red);
    int64_t gy = clamp64(ceil_div(p->n_red, rows), 1, clamp64((1 << 22) / p->n_out, 1, 65535));
    p->k_split = ceil_div(p->n_red, gy);
    p->grid[1] = (unsigned)ceil_div(p->n_red, p->k_split);
  }
}

/* [-0, +0, e] The header and strides red::layout<NOP> reads. */
static size_t write_layout(const RedCall *c, const Plan *p, size_t accsize, int64_t *buf) {
  RedHeader h;
  memset(&h, 0, sizeof h);
  h.n_out = p->n_out;
  h.n_red = p->n_red;
  h.k_split = p->k_split;
  h.count_at = (int64_t)(((size_t)p->n_out * p->grid[1] * accsize + 7) / 8 * 8);
  h.od = p->od;
  h.rd = p->rd;
  h.mode = p->mode;
  h.vec = p->vec;
  h.interleave = p->interleave;
  h.param[0] = c->param[0];
  h.param[1] = c->param[1];
  for (int d = 0; d < GPU_MAXDIM; d++) {
    h.oshape[d] = d < p->od ? p->o[0].shape.dim[d] : 1;
    h.rshape[d] = d < p->rd ? p->r[0].shape.dim[d] : 1;
  }
  memcpy(buf, &h, sizeof h);
  int64_t *s = buf + sizeof h / sizeof *buf;
  for (int i = 0; i < p->nop; i++)
    for (int d = 0; d < GPU_MAXDIM; d++) {
      s[i * GPU_MAXDIM + d] = d < p->od ? p->o[i].strides[d] : 0;
      s[(p->nop + i) * GPU_MAXDIM + d] = i < p->nin && d < p->rd ? p->r[i].strides[d] : 0;
    }
  return (size_t)h.count_at;
}

void scratch_drop(lua_State *L) {
  if (!graph_capturing) {
    lua_getfield(L, -1, "free");
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
  }
  lua_pop(L, 1);
}

void reduce_launch(lua_State *L, int ridx, Reducer *r, RedCall *c) {
  const GpuBackend *be = backend_get();
  Plan p;
  memset(&p, 0, sizeof p);
  plan_layouts(c, &p);
  if (p.n_out == 0) return;
  int at = entry_get(L, ridx, r, c);
  CUfunction f = entry_function(L, ridx, r, at, 0);
  if (graph_capturing) graph_keep(L, ridx);   /* its programs: a replay runs their code */
  REntry *e = &r->entries[at];                /* (after the Lua code above) */
  if (reduce_plan_gpu()) {
    if (e->resident == 0) {   /* asked once; 4 where the backend cannot tell (the CPU's) */
      int n = be->occupancy ? be->occupancy(f, 256) : 0;
      e->resident = n > 0 ? n : 4;
    }
    plan_gpu(c, &p, e->resident);
  } else {
    plan_cpu(c, &p);
  }
  p.grid[2] = p.block[2] = 1;
  int64_t layout[sizeof(RedHeader) / 8 + 2 * GPU_MAXOPS * GPU_MAXDIM];
  size_t count_at = write_layout(c, &p, e->accsize, layout);
  uint64_t slot[GPU_MAXOPS];
  void *argv[GPU_MAXOPS + 2];
  CUdeviceptr scratch = 0;
  int top = lua_gettop(L);
  for (int i = 0; i < p.nop; i++) {
    const Operand *o = &c->ops[i];
    if (graph_capturing) graph_keep(L, o->idx);
    slot[i] = (uint64_t)(o->a->base + (CUdeviceptr)(o->lay.offset * (int64_t)dtypes[o->dtype].size));
    argv[i] = &slot[i];
  }
  if (p.grid[1] > 1) {   /* partial results, then a counter per blockIdx.x (zeroed) */
    GpuShape s = {.ndim = 1, .dim = {(int64_t)(count_at + 4 * (size_t)p.grid[0])}};
    s.size = s.dim[0];
    GpuArray *a = array_new(L, &s, DT_UINT8);
    scratch = a->ptr;
    GPU_CHECK(L, be->memset0(scratch + count_at, 4 * (size_t)p.grid[0]));
  }
  argv[p.nop] = layout;
  argv[p.nop + 1] = &scratch;
  GpuResult res = be->launch(f, p.grid, p.block, 0, c->stream, argv);
  if (res.code) {
    const char *more = res.detail;
    errors_raise(L, res, more ? lua_pushfstring(L, "gpu.%s %s", r->name, more) : r->name);
  }
  if (lua_gettop(L) > top) scratch_drop(L);
}

/* gpu._set_reduce_builder(f): f(kind, ops, result, desc) -> program, accumulator size */
static int gpu_set_reduce_builder(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &BUILD_KEY);
  return 0;
}

int reduce_plan_gpu(void) {
  return forced_plan >= 0 ? forced_plan : strcmp(backend_get()->name, "cpu") != 0;
}

/* gpu._reduce_plan(which): "gpu" or "cpu" plans every reduction as on that backend
 * (the specs run the GPU's lanes, shuffles and splits on the CPU backend); nil: the
 * backend's own */
static int gpu_reduce_plan(lua_State *L) {
  const char *w = luaL_optstring(L, 1, NULL);
  forced_plan = w == NULL ? -1 : strcmp(w, "gpu") == 0 ? 1 : 0;
  return 0;
}

static int reducer_tostring(lua_State *L) {
  lua_pushfstring(L, "gpu.reducer(%s)", reducer_check(L, 1)->name);
  return 1;
}

/* Expects the gpu table on top. */
void reduce_open(lua_State *L) {
  lua_pushcfunction(L, gpu_set_reduce_builder);
  lua_setfield(L, -2, "_set_reduce_builder");
  lua_pushcfunction(L, gpu_reduce_plan);
  lua_setfield(L, -2, "_reduce_plan");
  luaL_newmetatable(L, GPU_REDUCER_T);
  lua_pushcfunction(L, reducer_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, reducer_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_newtable(L);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
}
