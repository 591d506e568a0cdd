/* ufunc.c: elementwise operations as Lua values ("gpu.ufunc": gpu.add, gpu.sqrt, and what
 * gpu.fuse and gpu.elementwise make). Each keeps the kernels generated for it: one program
 * per combination of operand dtypes (lua/codegen.lua writes the source, program.c compiles
 * it or finds it in the disk cache), holding one kernel per layout. A call (ops.c) checks
 * the operands; this file picks the layout's kernel and launches it:
 *   - C-ordered operands of one shape: the flat kernel, 16 bytes a load where aligned;
 *   - a copy that transposes (one input, one output): 64x64 tiles in shared memory;
 *   - a C-ordered output of rows whose inputs walk each row with stride 1 or 0 (a
 *     broadcast such as (N, 1) + (1, M)): a chunk of 16 bytes a thread;
 *   - otherwise the strided kernel for the number of dimensions left after merging the
 *     ones every operand walks in step (layout_collapse): 1, 2, 3, or up to 8. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

enum { V_FLAT, V_S1, V_S2, V_S3, V_SN, V_ROWS, V_TILE, NVARIANT };
/* each variant's kernel in a ufunc's program (gpu._ew_kernels: codegen.lua, arrays.lua) */
static const char *const variant_kernels[NVARIANT] = {
  "ew_c", "ew_s<1>", "ew_s<2>", "ew_s<3>", "ew_s<8>", "ew_r", "ew_t"
};
#define BLOCK 256
#define ITEMS 4          /* elements a thread of a strided kernel takes (lua/codegen.lua) */
#define KEYLEN (GPU_MAXOPS + 1)

typedef struct UEntry {
  uint8_t key[KEYLEN];   /* per operand 1 + dtype (+ 64: a scalar); then the count */
  int used, program, device, vec;
  int chunk;             /* elements in 16 bytes of the widest array operand (codegen.lua) */
  CUfunction fn[NVARIANT];   /* on `device` while program_unloads is `unloads`; loaded at first use */
  unsigned unloads;
} UEntry;

static const char BUILD_KEY = 0;   /* registry: lua/arrays.lua's function that makes a program */
enum { UV_DESC = 1, UV_PROGRAMS };

#define toufunc(L, i) ((Ufunc *)luaL_checkudata(L, i, GPU_UFUNC_T))
Ufunc *ufunc_check(lua_State *L, int idx) { return toufunc(L, idx); }

Ufunc *ufunc_new(lua_State *L, const char *name, int nin, int nout, int rule, const char *expr) {
  Ufunc *u = lua_newuserdatauv(L, sizeof *u, 2);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, GPU_UFUNC_T);
  u->nin = nin;
  u->nout = nout;
  u->rule = rule;
  snprintf(u->name, sizeof u->name, "%s", name);
  snprintf(u->expr, sizeof u->expr, "%s", expr ? expr : "");
  lua_newtable(L);
  lua_setiuservalue(L, -2, UV_PROGRAMS);
  return u;
}

static int ufunc_gc(lua_State *L) {
  Ufunc *u = toufunc(L, 1);
  free(u->entries);
  u->entries = NULL;
  u->capacity = u->nentries = 0;
  return 0;
}

/* Elements a thread of the flat kernel takes (codegen.lua splits them into chunks of 16
 * bytes of the widest operand); *chunk, the elements of one chunk. */
static int vec_for(const Ufunc *u, const Operand *ops, int *chunk) {
  size_t widest = 1, narrowest = 16;
  for (int i = 0; i < u->nin + u->nout; i++) {
    if (ops[i].kind != OPK_ARRAY) continue;
    size_t es = dtypes[ops[i].dtype].size;
    if (es > widest) widest = es;
    if (es < narrowest) narrowest = es;
  }
  size_t vec = 16 / narrowest;                  /* 16 bytes of the narrowest, */
  if (vec * widest > 64) vec = 64 / widest;     /* at most 64 of the widest */
  *chunk = (int)(16 / widest < vec ? 16 / widest : vec);
  return (int)vec;
}

/* The tile (64 x 65 of the output's type) fits the 48 KiB of static shared memory for
 * outputs of up to 8 bytes; complex128 takes the strided kernel. */
static int tile_possible(const Ufunc *u, const Operand *ops) {
  return u->nin == 1 && u->nout == 1 && ops[0].kind == OPK_ARRAY && dtypes[ops[1].dtype].size <= 8;
}

/* [-0, +0, e] Makes the program for these operands (lua/arrays.lua, through codegen; on the
 * CPU backend a table that makes a program a kernel: entry_function); its index in u's. */
static int program_make(lua_State *L, int uidx, Ufunc *u, const Operand *ops, int vec) {
  int n = u->nin + u->nout;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &BUILD_KEY);
  lua_pushvalue(L, uidx);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, dtypes[ops[i].dtype].name);
    lua_setfield(L, -2, "dtype");
    lua_pushstring(L, dtypes[ops[i].loop].name);
    lua_setfield(L, -2, "loop");
    lua_pushboolean(L, ops[i].kind != OPK_ARRAY);
    lua_setfield(L, -2, "scalar");
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushinteger(L, vec);
  lua_pushboolean(L, tile_possible(u, ops));
  lua_call(L, 4, 1);
  lua_getiuservalue(L, uidx, UV_PROGRAMS);
  lua_insert(L, -2);
  lua_rawseti(L, -2, ++u->nprograms);
  lua_pop(L, 1);
  return u->nprograms;
}

static size_t slot_of(const Ufunc *u, const uint8_t *key) {
  return (size_t)fnv1a(key, KEYLEN, FNV_OFFSET) & (size_t)(u->capacity - 1);
}

static void table_grow(lua_State *L, Ufunc *u) {
  int cap = u->capacity ? 2 * u->capacity : 16;
  UEntry *old = u->entries, *fresh = calloc((size_t)cap, sizeof *fresh);
  if (fresh == NULL) luaL_error(L, "not enough memory for the kernels of gpu.%s", u->name);
  int oldcap = u->capacity;
  u->entries = fresh;
  u->launched = NULL;
  u->quick.valid = 0;   /* its entry moved */
  u->capacity = cap;
  for (int i = 0; i < oldcap; i++) {
    if (!old[i].used) continue;
    size_t h = slot_of(u, old[i].key);
    while (fresh[h].used) h = (h + 1) & (size_t)(cap - 1);
    fresh[h] = old[i];
  }
  free(old);
}

/* The entry of key, or NULL. Lua code (a builder, a compile, a finalizer's operation) may
 * add entries and so move them all (table_grow): a pointer kept across it is found again. */
static UEntry *entry_find(const Ufunc *u, const uint8_t *key) {
  if (u->capacity == 0) return NULL;
  for (size_t h = slot_of(u, key); u->entries[h].used; h = (h + 1) & (size_t)(u->capacity - 1))
    if (memcmp(u->entries[h].key, key, KEYLEN) == 0) return &u->entries[h];
  return NULL;
}

/* [-0, +0, e] u's kernels for these operands, made on first use. */
static UEntry *entry_get(lua_State *L, int uidx, Ufunc *u, const Operand *ops) {
  uint8_t key[KEYLEN] = {0};
  int n = u->nin + u->nout;
  for (int i = 0; i < n; i++)
    key[i] = (uint8_t)(1 + ops[i].dtype + (ops[i].kind == OPK_ARRAY ? 0 : 64));
  key[GPU_MAXOPS] = (uint8_t)n;
  UEntry *found = entry_find(u, key);
  if (found) return found;
  int chunk, vec = vec_for(u, ops, &chunk);
  int program = program_make(L, uidx, u, ops, vec);   /* may raise: nothing inserted yet */
  if (2 * (u->nentries + 1) > u->capacity) table_grow(L, u);
  size_t h = slot_of(u, key);
  while (u->entries[h].used) h = (h + 1) & (size_t)(u->capacity - 1);
  UEntry *e = &u->entries[h];
  memset(e, 0, sizeof *e);
  memcpy(e->key, key, KEYLEN);
  e->used = 1;
  e->program = program;
  e->device = -1;
  e->vec = vec;
  e->chunk = chunk;
  u->nentries++;
  return e;
}

/* [-0, +0, e] Kernel v of entry *ep on the current device (*ep found again: entry_find) */
static CUfunction entry_function(lua_State *L, int uidx, Ufunc *u, UEntry **ep, int v) {
  UEntry *e = *ep;
  int dev = backend_get()->current_device();
  if (e->device != dev || e->unloads != program_unloads) {
    memset(e->fn, 0, sizeof e->fn);
    e->device = dev;
    e->unloads = program_unloads;
  }
  if (e->fn[v] == NULL) {
    const char *origin;
    int index = v;
    uint8_t key[KEYLEN];
    memcpy(key, e->key, KEYLEN);
    lua_getiuservalue(L, uidx, UV_PROGRAMS);
    if (lua_rawgeti(L, -1, e->program) == LUA_TTABLE) {   /* the CPU backend's: a program a kernel */
      lua_geti(L, -1, v + 1);   /* (made now, the first time: lua/arrays.lua) */
      lua_remove(L, -2);
      index = 0;
    }
    CUfunction f = program_function(L, lua_gettop(L), index, &origin);
    lua_pop(L, 2);
    *ep = e = entry_find(u, key);   /* (never removed: found) */
    e->fn[v] = f;
  }
  return e->fn[v];
}

/* [-0, +0, m] graph_keep(L, idx), which allocates, and e found again after it (entry_find) */
static UEntry *graph_kept(lua_State *L, Ufunc *u, UEntry *e, int idx) {
  uint8_t key[KEYLEN];
  memcpy(key, e->key, KEYLEN);
  graph_keep(L, idx);
  return entry_find(u, key);
}

/* What a launch passes: a slot per operand (pointer or scalar), and the layout. */
typedef struct Launch {
  uint64_t slot[GPU_MAXOPS];
  void *argv[GPU_MAXOPS + 3];
  int64_t layout[2 + GPU_MAXDIM + GPU_MAXOPS * GPU_MAXDIM + GPU_MAXDIM];
  long long n;
  int vec;
  unsigned grid[3], block[3];
} Launch;

static unsigned blocks_for(lua_State *L, int64_t threads) {
  int64_t b = (threads + BLOCK - 1) / BLOCK;
  if (b > 0x7fffffff) luaL_error(L, "an array of this size needs more blocks than a grid has");
  return (unsigned)(b > 0 ? b : 1);
}

/* The tiled transpose applies to a copy whose merged layout is rows x cols (x batch), the
 * input walking rows with stride 1 and the output cols. On the CPU backend, whose threads
 * are fibers that each barrier of a tile switches between (all 256), only where the tiles
 * are full: a (10000, 4, 4) array's transposed copy took 173 ms there in 10000 tiles of 16
 * elements, 1.3 ms strided; a 4096 x 4096 one is twice as fast tiled. */
static int tile_fits(const GpuLayout *in, const GpuLayout *out, int nd, int cpu) {
  if (nd != 2 && nd != 3) return 0;
  int r = nd - 2, c = nd - 1;
  if (cpu && (in->shape.dim[r] < 64 || in->shape.dim[c] < 64)) return 0;
  return in->strides[r] == 1 && in->strides[c] != 1 && out->strides[c] == 1 &&
         (nd == 2 || in->shape.dim[0] <= 65535);
}

static void set_tile(Launch *g, const GpuLayout *in, const GpuLayout *out, int nd) {
  int b = nd == 3, r = nd - 2, c = nd - 1;
  int64_t t[9] = {in->shape.dim[r], in->shape.dim[c], b ? in->shape.dim[0] : 1,
                  b ? in->strides[0] : 0, in->strides[r], in->strides[c],
                  b ? out->strides[0] : 0, out->strides[r], out->strides[c]};
  memcpy(g->layout, t, sizeof t);
  g->grid[0] = (unsigned)((t[1] + 63) / 64);
  g->grid[1] = (unsigned)((t[0] + 63) / 64);
  g->grid[2] = (unsigned)t[2];
  g->block[0] = 32;
  g->block[1] = 8;
}

/* The rows kernel applies to two merged dimensions when every output is C-ordered and
 * every input walks a row with stride 1 or 0, with whole chunks aligned to 16 bytes:
 * the columns a multiple of the chunk, and so each walking input's row stride and start. */
static int rows_fit(const Ufunc *u, const Operand *ops, const GpuLayout *ls, int nd, int chunk,
                    int aligned) {
  if (nd != 2 || !aligned || ls[0].shape.dim[1] % chunk != 0) return 0;
  for (int i = 0, a = 0; i < u->nin + u->nout; i++) {
    if (ops[i].kind != OPK_ARRAY) continue;
    const int64_t *st = ls[a++].strides;
    if (i >= u->nin ? st[1] != 1 || st[0] != ls[0].shape.dim[1]
                    : (st[1] != 0 && st[1] != 1) || (st[1] == 1 && st[0] % chunk != 0))
      return 0;
  }
  return 1;
}

/* ew::rows<NA>: rows, per_row, cols, row_stride[NA], inner[NA] (int). Blocks of x take a
 * row's chunks, blocks of y groups of EW_ROWS (4) rows, at most 65535 of them (the kernel
 * strides over more). On the CPU backend, where every thread of a block is a call, a block
 * is no wider than a row's chunks (short rows left most of 256 threads idle: broadcasting
 * 16 float64 to 10000 rows took 24 ns an element). */
static void set_rows(lua_State *L, Launch *g, const GpuLayout *ls, int na, int chunk, int cpu) {
  char *p = (char *)g->layout;
  int64_t rows = ls[0].shape.dim[0], cols = ls[0].shape.dim[1], per_row = cols / chunk;
  int64_t head[3] = {rows, per_row, cols};
  memcpy(p, head, sizeof head);
  for (int a = 0; a < na; a++) {
    int32_t inner = ls[a].strides[1] != 0;
    memcpy(p + 24 + 8 * a, &ls[a].strides[0], 8);
    memcpy(p + 24 + 8 * na + 4 * a, &inner, 4);
  }
  /* a block as wide as a row's chunks (at most BLOCK); on a GPU its other threads take
   * further rows (its y), so short rows leave none idle */
  unsigned wide = (unsigned)(per_row < BLOCK ? per_row : BLOCK), tall = cpu ? 1 : BLOCK / wide;
  int64_t groups = (rows + 4 * (int64_t)tall - 1) / (4 * (int64_t)tall);   /* 4: EW_ROWS */
  g->block[0] = wide;
  g->block[1] = tall;
  g->grid[0] = blocks_for(L, per_row);   /* one when the rows are shorter than a block */
  g->grid[1] = (unsigned)(groups < 65535 ? groups : 65535);
}

/* ew::strided<ND, NA>: n, nd (and padding), shape[ND], stride[NA][ND], magic[ND], shift[ND]. */
static void set_strided(lua_State *L, Launch *g, const GpuLayout *ls, int na, int nd, int64_t n) {
  int ND = nd <= 3 ? nd : 8;
  int32_t dims[2] = {nd, 0};
  uint32_t *tail = (uint32_t *)&g->layout[2 + ND + na * ND];
  g->layout[0] = n;
  memcpy(&g->layout[1], dims, sizeof dims);
  for (int d = 0; d < ND; d++) {
    int64_t size = d < nd ? ls[0].shape.dim[d] : 1;
    g->layout[2 + d] = size;
    for (int a = 0; a < na; a++) g->layout[2 + ND + a * ND + d] = d < nd ? ls[a].strides[d] : 0;
    layout_magic(size, &tail[d], &tail[ND + d]);
  }
  g->grid[0] = blocks_for(L, (n + ITEMS - 1) / ITEMS);
}

/* Launches variant of e with g's arguments; arrays[0..n) are those whose pointers g holds.
 * Building the kernel and keeping it for a graph allocate, and so may run finalizers, one
 * of which may free an operand after its pointer was read: they are checked last (a freed
 * operand's pointer was 0, and the kernel faulted). */
static void launch(lua_State *L, int uidx, Ufunc *u, UEntry *e, int variant, Launch *g,
                   CUstream stream, const GpuArray *const *arrays, int n) {
  CUfunction f = entry_function(L, uidx, u, &e, variant);
  if (graph_capturing) e = graph_kept(L, u, e, uidx);   /* its programs: a replay runs their code */
  for (int i = 0; i < n; i++)
    if (!arrays[i]->alive) errors_freed(L, lua_pushfstring(L, "gpu.%s, freed while it started", u->name));
  GpuResult r = backend_get()->launch(f, g->grid, g->block, 0, stream, g->argv);
  if (r.code) {
    const char *more = r.detail;
    errors_raise(L, r, more ? lua_pushfstring(L, "gpu.%s %s", u->name, more) : u->name);
  }
  u->launched = e;
}

void ufunc_launch(lua_State *L, int uidx, Ufunc *u, Operand *ops, CUstream stream) {
  int n_ops = u->nin + u->nout, na = 0, flat = 1, variant;
  int64_t n = ops[u->nin].lay.shape.size;
  if (n == 0) return;
  UEntry *e = entry_get(L, uidx, u, ops);
  /* the CPU backend's kernels take one element a thread (codegen.lua) */
  int cpu = strcmp(backend_get()->name, "cpu") == 0, chunk = cpu ? 1 : e->chunk;
  Launch g;
  GpuLayout ls[GPU_MAXOPS];
  const GpuArray *arrays[GPU_MAXOPS];
  size_t align = 16;
  for (int i = 0; i < n_ops; i++) {
    g.argv[i] = &g.slot[i];
    if (ops[i].kind != OPK_ARRAY) { g.slot[i] = ops[i].value.u; continue; }
    if (graph_capturing) e = graph_kept(L, u, e, ops[i].idx);   /* a graph keeps what it runs on */
    size_t es = dtypes[ops[i].dtype].size;
    arrays[na] = ops[i].a;
    ls[na] = ops[i].lay;
    g.slot[i] = (uint64_t)(ops[i].a->base + (CUdeviceptr)(ops[i].lay.offset * (int64_t)es));
    size_t need = (size_t)chunk * es;
    if (g.slot[i] % need) align = 0;
    if (!layout_contiguous(&ls[na])) flat = 0;
    na++;
  }
  g.grid[1] = g.grid[2] = g.block[1] = g.block[2] = 1;
  g.block[0] = BLOCK;
  g.n = n;
  if (flat) {
    int vec = cpu ? 1 : e->vec;
    variant = V_FLAT;
    g.vec = align != 0;
    g.argv[n_ops] = &g.n;
    g.argv[n_ops + 1] = &g.vec;
    g.grid[0] = blocks_for(L, (n + vec - 1) / vec);
  } else {
    int nd = layout_collapse(na, ls);
    if (tile_possible(u, ops) && tile_fits(&ls[0], &ls[1], nd, cpu)) {
      variant = V_TILE;
      set_tile(&g, &ls[0], &ls[1], nd);
    } else if (rows_fit(u, ops, ls, nd, chunk, align != 0)) {
      variant = V_ROWS;
      set_rows(L, &g, ls, na, chunk, cpu);
    } else {
      variant = nd <= 3 ? V_S1 + nd - 1 : V_SN;
      set_strided(L, &g, ls, na, nd, n);
    }
    g.argv[n_ops] = g.layout;
  }
  launch(L, uidx, u, e, variant, &g, stream, arrays, na);
}

int ufunc_quick(lua_State *L, int uidx, Ufunc *u, int first, int nargs) {
  if (!u->quick.valid || nargs != u->nin || graph_capturing) return 0;
  int dev = backend_get()->current_device();
  const GpuArray *a0 = NULL;
  for (int i = 0; i < nargs; i++) {
    const GpuArray *a = array_test(L, first + i);
    if (a == NULL || !a->alive || !a->contiguous || a->dtype != u->quick.in[i] || a->device != dev)
      return 0;
    if (i == 0) a0 = a;
    else if (a->shape.ndim != a0->shape.ndim ||
             memcmp(a->shape.dim, a0->shape.dim, sizeof a->shape.dim[0] * (size_t)a->shape.ndim))
      return 0;
  }
  if (a0 == NULL) return 0;
  GpuShape s = a0->shape;
  const GpuArray *out = array_new(L, &s, u->quick.out);   /* may collect: check again after */
  UEntry *e = u->quick.valid ? u->quick.entry : NULL;
  if (e == NULL) { lua_pop(L, 1); return 0; }
  if (s.size == 0) return 1;
  int cpu = strcmp(backend_get()->name, "cpu") == 0, vec = cpu ? 1 : e->vec, aligned = 1;
  Launch g;
  const GpuArray *arrays[GPU_MAXOPS];
  for (int i = 0; i <= nargs; i++) {
    const GpuArray *a = i < nargs ? lua_touserdata(L, first + i) : out;
    arrays[i] = a;
    g.slot[i] = (uint64_t)a->ptr;
    g.argv[i] = &g.slot[i];
    if (g.slot[i] % ((size_t)(cpu ? 1 : e->chunk) * dtypes[a->dtype].size)) aligned = 0;
  }
  g.n = s.size;
  g.vec = aligned;
  g.argv[nargs + 1] = &g.n;
  g.argv[nargs + 2] = &g.vec;
  g.grid[0] = blocks_for(L, (s.size + vec - 1) / vec);
  g.grid[1] = g.grid[2] = g.block[1] = g.block[2] = 1;
  g.block[0] = BLOCK;
  launch(L, uidx, u, e, V_FLAT, &g, NULL, arrays, nargs + 1);
  return 1;
}

/* gpu._set_builder(f): f(ufunc, operands, vec, tile) makes a program (lua/arrays.lua) */
static int gpu_set_builder(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &BUILD_KEY);
  return 0;
}

/* gpu._ufunc(desc): a ufunc of declared types (gpu.fuse, gpu.elementwise); desc = {name =,
 * nin =, nout =, dtypes = {...} (inputs, then outputs), ...} is kept for the builder */
static int gpu_ufunc(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "name");
  lua_getfield(L, 1, "nin");
  lua_getfield(L, 1, "nout");
  const char *name = luaL_checkstring(L, -3);
  lua_Integer nin = luaL_checkinteger(L, -2), nout = luaL_checkinteger(L, -1);
  if (nin < 0 || nout < 1 || nin + nout > GPU_MAXOPS)
    return luaL_error(L, "gpu.%s: a kernel has at most %d operands (inputs and outputs), got %d", name, GPU_MAXOPS, (int)(nin + nout));
  Ufunc *u = ufunc_new(L, name, (int)nin, (int)nout, RULE_CUSTOM, NULL);
  lua_getfield(L, 1, "dtypes");
  for (int i = 0; i < nin + nout; i++) {
    lua_geti(L, -1, i + 1);
    u->declared[i] = dtype_check(L, lua_gettop(L), DT_FLOAT32);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, UV_DESC);
  return 1;
}

static const char *const rule_names[] = {
  "arith", "sub", "div", "intdiv", "bitwise", "shift", "float", "keep", "sign", "round",
  "integer", "float64", "compare", "logical", "predicate", "where", "cast", "custom"
};

static int ufunc_index(lua_State *L) {
  Ufunc *u = toufunc(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (method_push(L, 1, k)) return 1;
  if (strcmp(k, "name") == 0) lua_pushstring(L, u->name);
  else if (strcmp(k, "nin") == 0) lua_pushinteger(L, u->nin);
  else if (strcmp(k, "nout") == 0) lua_pushinteger(L, u->nout);
  else if (strcmp(k, "expr") == 0) lua_pushstring(L, u->expr);
  else if (strcmp(k, "rule") == 0) lua_pushstring(L, rule_names[u->rule]);
  else if (strcmp(k, "_desc") == 0) lua_getiuservalue(L, 1, UV_DESC);
  else return luaL_error(L, "gpu.ufunc has no field or method '%s'", k);
  return 1;
}

static int ufunc_call(lua_State *L) {
  Ufunc *u = toufunc(L, 1);
  return ops_call(L, 1, u, 2, lua_gettop(L) - 1);
}

static int ufunc_tostring(lua_State *L) {
  lua_pushfstring(L, "gpu.ufunc(%s)", toufunc(L, 1)->name);
  return 1;
}

static const luaL_Reg ufunc_funcs[] = {
  {"_set_builder", gpu_set_builder},
  {"_ufunc", gpu_ufunc},
  {NULL, NULL}
};

static const luaL_Reg ufunc_meta[] = {
  {"__index", ufunc_index},
  {"__call", ufunc_call},
  {"__tostring", ufunc_tostring},
  {"__gc", ufunc_gc},
  {NULL, NULL}
};

/* Expects the gpu table on top. ops_open adds the methods (result_dtype). */
void ufunc_open(lua_State *L) {
  luaL_setfuncs(L, ufunc_funcs, 0);
  lua_createtable(L, NVARIANT, 0);
  for (int v = 0; v < NVARIANT; v++) {
    lua_pushstring(L, variant_kernels[v]);
    lua_rawseti(L, -2, v + 1);
  }
  lua_setfield(L, -2, "_ew_kernels");
  luaL_newmetatable(L, GPU_UFUNC_T);
  luaL_setfuncs(L, ufunc_meta, 0);
  lua_newtable(L);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
}
