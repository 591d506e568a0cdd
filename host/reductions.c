/* reductions.c: gpu.sum, prod, min, max, argmin, argmax, mean, var, std, any, all,
 * count_nonzero and norm (also as methods: a:sum(...)), and calling the reducers that
 * gpu.reduction makes. A call reads the array, the dims (1-based, a number or a table;
 * none: all of them), keepdim, out and stream, finds the result's dtype as NumPy does,
 * checks or makes the output and runs reduce.c's engine. A reduction over every dim with
 * neither keepdim nor out returns a Lua number, and so waits for the device as a:item()
 * does; any other returns a device array without waiting. */
#include <math.h>
#include <string.h>
#include "reduce.h"

enum { RR_WIDE, RR_SAME, RR_INDEX, RR_BOOL, RR_COUNT, RR_FLOAT, RR_REAL };
typedef struct RedDef { const char *name; int rule, identity, one_dim; } RedDef;
static const RedDef defs[] = {
  {"sum", RR_WIDE, 1, 0}, {"prod", RR_WIDE, 1, 0}, {"min", RR_SAME, 0, 0}, {"max", RR_SAME, 0, 0},
  {"argmin", RR_INDEX, 0, 1}, {"argmax", RR_INDEX, 0, 1}, {"any", RR_BOOL, 1, 0},
  {"all", RR_BOOL, 1, 0}, {"count_nonzero", RR_COUNT, 1, 0}, {"mean", RR_FLOAT, 1, 0},
};
#define NDEFS ((int)(sizeof defs / sizeof defs[0]))

/* NumPy's result types: sums and products of small integers in 64 bits; means in float64
 * unless float16, float32 or complex; variances and norms real: float16 for float16,
 * float32 for float32 and complex64, float64 otherwise. */
static GpuDtype result_of(int rule, GpuDtype t) {
  const DtypeInfo *d = &dtypes[t];
  switch (rule) {
    case RR_WIDE:
      if (d->kind == 'b' || (d->kind == 'i' && d->size < 8)) return DT_INT64;
      if (d->kind == 'u' && d->size < 8) return DT_UINT64;
      return t;
    case RR_INDEX: case RR_COUNT: return DT_INT64;
    case RR_BOOL: return DT_BOOL;
    case RR_FLOAT: return d->kind == 'c' || t == DT_FLOAT32 || t == DT_FLOAT16 ? t : DT_FLOAT64;
    case RR_REAL: return t == DT_FLOAT32 || t == DT_COMPLEX64 ? DT_FLOAT32 : t == DT_FLOAT16 ? t : DT_FLOAT64;
    default: return t;
  }
}

/* What a call says: the array, dims, options. */
typedef struct Args {
  int arr, dims, out, keepdim;   /* stack indices (0: not given) */
  GpuArray *a;
  CUstream stream;
  double ddof;
  int reduced[GPU_MAXDIM], all;  /* all: no dim given (every dim reduced) */
} Args;

/* a table of dims (an options table has no [1]: {"x"} is a bad dim, not options) */
static int is_dims(lua_State *L, int idx) {
  int r = lua_geti(L, idx, 1) != LUA_TNIL;
  lua_pop(L, 1);
  return r;
}

static int dim_of(lua_State *L, const char *name, int idx, int ndim) {
  lua_Integer d;
  if (!errors_integer(L, idx, &d))
    luaL_error(L, "gpu.%s: dim must be an integer, got %s", name,
               lua_isstring(L, idx) ? errors_value(L, idx) : luaL_typename(L, idx));
  lua_Integer k = d < 0 ? d + ndim + 1 : d;
  if (k < 1 || k > ndim)
    luaL_error(L, "gpu.%s: dim %I is out of range for an array of %d dimension%s", name, d, ndim,
               ndim == 1 ? "" : "s");
  return (int)k - 1;
}

/* The dims at idx (0: none given) as a mask over ndim dims. */
static void read_dims(lua_State *L, const char *name, int idx, int ndim, int one, Args *g) {
  memset(g->reduced, 0, sizeof g->reduced);
  g->all = idx == 0 || lua_isnil(L, idx);
  if (g->all) {
    for (int d = 0; d < ndim; d++) g->reduced[d] = 1;
  } else if (lua_type(L, idx) == LUA_TNUMBER) {
    g->reduced[dim_of(L, name, idx, ndim)] = 1;
  } else if (lua_type(L, idx) == LUA_TTABLE && !one) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);   /* read raw, as shapes: {1, x = 2} was {1} */
    const char *bad = table_not_list(L, idx, n);
    if (bad) luaL_error(L, "gpu.%s: dim must be a number or a list of numbers, and the table has %s", name, bad);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, idx, i);
      int d = dim_of(L, name, -1, ndim);
      lua_pop(L, 1);
      if (g->reduced[d]) luaL_error(L, "gpu.%s: dim %d is given twice", name, d + 1);
      g->reduced[d] = 1;
    }
  } else {
    luaL_error(L, one ? "gpu.%s takes one dim (a number), got %s"
                      : "gpu.%s: dim must be a number or a table of numbers, got %s",
               name, luaL_typename(L, idx));
  }
}

/* [-0, +0, e] gpu.<name>(a, p1 ... pn [, opts]): positional argument k at pos[k] (0 when
 * absent); dim at pos[dimpos]; the options read into g. */
static void read_args(lua_State *L, const char *name, int npos, int *pos, int dimpos, int one, Args *g) {
  memset(g, 0, sizeof *g);
  int n = lua_gettop(L), opts = 0;
  g->arr = 1;
  g->a = array_test(L, 1);
  if (g->a == NULL)
    array_expected(L, 1, name, 1);
  if (!g->a->alive) errors_freed(L, lua_pushfstring(L, "gpu.%s argument 1", name));
  if (errors_nil_options(L, npos + 2, n)) n--;   /* (then the table before it: f(x, {dim = 1}, nil)) */
  if (n >= 2 && lua_type(L, n) == LUA_TTABLE && !is_dims(L, n)) opts = n--;
  if (n - 1 > npos)
    luaL_error(L, "gpu.%s takes an array, %d more argument%s and an options table, got %d arguments",
               name, npos, npos == 1 ? "" : "s", lua_gettop(L));
  for (int k = 0; k < npos; k++) pos[k] = k + 2 <= n && !lua_isnil(L, k + 2) ? k + 2 : 0;
  int dims = dimpos >= 0 ? pos[dimpos] : 0;
  if (opts) {
    int var = strcmp(name, "var") == 0 || strcmp(name, "std") == 0;
    errors_options(L, opts, name, var ? "dim keepdim out stream ddof" : "dim keepdim out stream");
    if (lua_getfield(L, opts, "dim") != LUA_TNIL) {
      if (dims) luaL_error(L, "gpu.%s: dim is given twice (as an argument and as an option)", name);
      dims = lua_gettop(L);
    }
    g->keepdim = errors_flag(L, opts, name, "keepdim", 0);
    if (lua_getfield(L, opts, "out") != LUA_TNIL) g->out = lua_gettop(L);
    if (lua_getfield(L, opts, "ddof") != LUA_TNIL) {
      if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "gpu.%s: ddof must be a number, got %s", name, luaL_typename(L, -1));
      g->ddof = lua_tonumber(L, -1);
      if (g->ddof != g->ddof) luaL_error(L, "gpu.%s: ddof must be a number, got nan", name);
    }
    /* the stream last: the table's metamethods run before it is read, not after */
    if (lua_getfield(L, opts, "stream") != LUA_TNIL) g->stream = stream_named(L, -1, "gpu.", name, 1);
  }
  read_dims(L, name, dims, g->a->shape.ndim, one, g);
}

/* ---- outputs ---- */

static void result_shape(const GpuShape *full, const Args *g, GpuShape *s) {
  memset(s, 0, sizeof *s);
  s->size = 1;
  for (int d = 0; d < full->ndim; d++) {
    if (!g->reduced[d]) s->dim[s->ndim++] = full->dim[d];
    else if (g->keepdim) s->dim[s->ndim++] = 1;
    if (!g->reduced[d]) s->size *= full->dim[d];
  }
}

static int overlaps(const GpuArray *a, const GpuArray *b) {
  if (a->base == 0 || a->base != b->base) return 0;
  GpuLayout la = array_layout(a), lb = array_layout(b);
  return layout_overlap(&la, &lb);
}

/* [-0, +1, e] out (o, at g->out) when it shares no memory with the inputs ins, else a new
 * array of shape rs and dtype dt, which out_back copies into out. */
static GpuArray *out_apart(lua_State *L, const Args *g, GpuArray *o, const GpuShape *rs, GpuDtype dt,
                           int nin, const int *ins) {
  for (int i = 0; i < nin; i++)
    if (overlaps(o, array_check(L, ins[i]))) return array_new(L, rs, dt);
  lua_pushvalue(L, g->out);
  return o;
}

/* [-0, +1, e] The array the kernel writes: out (checked) when given and apart from the
 * inputs, else a new one of the result's shape and dtype (for out to be copied into). */
static GpuArray *make_output(lua_State *L, const char *name, const Args *g, const GpuShape *rs,
                             GpuDtype dt, int nin, const int *ins) {
  if (g->out) {
    GpuArray *o = array_out(L, g->out, name);
    char a[160], b[160];
    int same = o->shape.ndim == rs->ndim;
    for (int d = 0; same && d < rs->ndim; d++) same = o->shape.dim[d] == rs->dim[d];
    if (!same && !(g->all && !g->keepdim && o->shape.size == 1)) {
      shape_format(&o->shape, a, sizeof a);
      shape_format(rs, b, sizeof b);
      luaL_error(L, "gpu.%s: out has shape %s but the result has shape %s", name, a, b);
    }
    if (!can_cast_same_kind(dt, o->dtype))
      luaL_error(L, "gpu.%s: out is %s, and the result (%s) cannot be cast to it", name,
                 dtypes[o->dtype].name, dtypes[dt].name);
    if (array_shares(o)) errors_shared(L, lua_pushfstring(L, "gpu.%s", name));
    return out_apart(L, g, o, rs, dt, nin, ins);
  }
  return array_new(L, rs, dt);
}

/* [-0, +0, e] Reducer at ridx over inputs ins (stack indices of arrays, broadcast to full)
 * into the array at oidx. */
static void engine(lua_State *L, int ridx, int nin, const int *ins, int oidx, const GpuShape *full,
                   const Args *g, GpuDtype result, double p0) {
  Reducer *r = reducer_check(L, ridx);
  RedCall c;
  memset(&c, 0, sizeof c);
  c.nin = nin;
  c.nout = 1;
  c.full = *full;
  memcpy(c.reduced, g->reduced, sizeof c.reduced);
  c.result = result;
  c.param[0] = p0;
  c.stream = g->stream;
  for (int i = 0; i <= nin; i++) {
    Operand *o = &c.ops[i];
    o->idx = i < nin ? ins[i] : oidx;
    o->a = array_operand(L, o->idx, r->name, i + 1);   /* on the current device */
    o->kind = OPK_ARRAY;
    o->dtype = o->loop = o->a->dtype;
    o->lay = array_layout(o->a);
    if (i < nin) layout_broadcast(&o->lay, full);
  }
  reduce_launch(L, ridx, r, &c);
}

/* [-0, +0, e] Raised when nothing is reduced into each result (however many) by a reducer without
 * an identity (NumPy's "zero-size array to reduction operation ..."). */
static void check_empty(lua_State *L, const char *name, const GpuShape *full, const Args *g, int identity) {
  int64_t k = 1;
  for (int d = 0; d < full->ndim; d++)
    if (g->reduced[d]) k *= full->dim[d];
  if (k == 0 && !identity)   /* NumPy raises even where the result is empty */
    luaL_error(L, "gpu.%s of an empty array (or along a dim of size 0): %s has no identity", name, name);
}

/* [-1, +1, e] The result on top: copied into out when it was computed apart (out_apart),
 * and out put in its place; 1 if so. */
static int out_back(lua_State *L, const Args *g) {
  if (!g->out || lua_rawequal(L, -1, g->out)) return 0;
  ops_copy(L, g->out, -1, g->stream);
  lua_pop(L, 1);
  lua_pushvalue(L, g->out);
  return 1;
}

/* [-1, +1, e] The result on top returned: out_back's; a Lua number (waiting for it) for a
 * reduction over all dims with no keepdim and no out. */
static int finish(lua_State *L, const Args *g, const char *name) {
  if (out_back(L, g)) return 1;
  if (g->all && !g->keepdim && !g->out) {
    GpuArray *a = array_check(L, -1);
    unsigned char buf[16] = {0};
    if (a->nbytes) GPU_CHECK(L, backend_get()->dtoh(buf, a->ptr, dtypes[a->dtype].size));
    else luaL_error(L, "gpu.%s gave no value", name);
    lua_getfield(L, -1, "free");
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
    lua_pop(L, 1);
    dtype_push(L, a->dtype, buf);
  }
  return 1;
}

/* gpu.sum(a [, dim] [, opts]) ... gpu.mean: upvalue 1 the reducer, 2 its row of defs */
static int red_simple(lua_State *L) {
  const RedDef *def = &defs[lua_tointeger(L, lua_upvalueindex(2))];
  Args g;
  int pos[1];
  read_args(L, def->name, 1, pos, 0, def->one_dim, &g);
  GpuShape rs, full = g.a->shape;
  GpuDtype dt = result_of(def->rule, g.a->dtype);
  check_empty(L, def->name, &full, &g, def->identity);
  result_shape(&full, &g, &rs);
  int in = g.arr;
  GpuArray *o = g.out ? array_test(L, g.out) : NULL;
  if (def->rule == RR_INDEX && o && (dtypes[o->dtype].kind == 'f' || dtypes[o->dtype].kind == 'c'))
    luaL_error(L, "gpu.%s: out is %s, and the result is int64 indices: out must be an integer array",
               def->name, dtypes[o->dtype].name);
  make_output(L, def->name, &g, &rs, dt, 1, &in);
  engine(L, lua_upvalueindex(1), 1, &in, lua_gettop(L), &full, &g, dt, 0);
  return finish(L, &g, def->name);
}

/* gpu.var(a [, dim] [, {ddof =, ...}]), gpu.std: the mean (float64, dims kept), then the
 * squared deviations from it. Upvalues: the mean reducer, the var (or std) reducer, the
 * name. */
static int red_var(lua_State *L) {
  const char *name = lua_tostring(L, lua_upvalueindex(3));
  Args g;
  int pos[1];
  read_args(L, name, 1, pos, 0, 0, &g);
  GpuShape rs, ms, full = g.a->shape;
  GpuDtype dt = result_of(RR_REAL, g.a->dtype), mt = dtypes[g.a->dtype].kind == 'c' ? DT_COMPLEX128 : DT_FLOAT64;
  result_shape(&full, &g, &rs);
  Args keep = g;
  keep.keepdim = 1;
  result_shape(&full, &keep, &ms);
  array_new(L, &ms, mt);
  int ins[2] = {g.arr, lua_gettop(L)};
  engine(L, lua_upvalueindex(1), 1, ins, ins[1], &full, &keep, mt, 0);
  make_output(L, name, &g, &rs, dt, 1, ins);
  engine(L, lua_upvalueindex(2), 2, ins, lua_gettop(L), &full, &g, dt, g.ddof);
  return finish(L, &g, name);
}

/* gpu.norm(a [, ord [, dim]] [, opts]): vector norms over the dims (all: the flattened
 * array, which is the Frobenius norm of a matrix). Upvalues: norm2, norm1, norm0, normp,
 * norminf, normninf. */
static int red_norm(lua_State *L) {
  Args g;
  int pos[2], which = 1;
  read_args(L, "norm", 2, pos, 1, 0, &g);
  double p = 2;
  if (pos[0] && lua_type(L, pos[0]) == LUA_TSTRING && strcmp(lua_tostring(L, pos[0]), "fro") == 0) p = 2;
  else if (pos[0] && lua_type(L, pos[0]) == LUA_TNUMBER) p = lua_tonumber(L, pos[0]);
  else if (pos[0])
    luaL_error(L, "gpu.norm: ord must be a number (2, 1, 0, math.huge, -math.huge, p) or \"fro\", got %s",
               errors_value(L, pos[0]));
  if (isnan(p)) luaL_error(L, "gpu.norm: ord must not be nan");
  which = p == 2 ? 1 : p == 1 ? 2 : p == 0 ? 3 : isinf(p) ? (p > 0 ? 5 : 6) : 4;
  GpuShape rs, full = g.a->shape;
  GpuDtype dt = result_of(RR_REAL, g.a->dtype);
  check_empty(L, "norm", &full, &g, which < 5);
  result_shape(&full, &g, &rs);
  int in = g.arr;
  make_output(L, "norm", &g, &rs, dt, 1, &in);
  engine(L, lua_upvalueindex(which), 1, &in, lua_gettop(L), &full, &g, dt, p);
  return finish(L, &g, "norm");
}

/* ---- gpu.reduction's reducers: r(x, ... [, {dim =, keepdim =, out =, stream =}]) ---- */

/* [-0, +0, e] The inputs (arguments 1 to nin) checked against r; their broadcast shape. */
static void custom_inputs(lua_State *L, const Reducer *r, GpuShape *full) {
  for (int i = 0; i < r->nin; i++) {
    GpuArray *a = array_operand(L, i + 1, r->name, i + 1);
    if (a->dtype != r->declared[i])
      luaL_error(L, "gpu.%s argument %d is a %s array; it takes %s", r->name, i + 1,
                 dtypes[a->dtype].name, dtypes[r->declared[i]].name);
    GpuShape s;
    if (shape_broadcast(i ? full : &a->shape, &a->shape, &s) != 0) {
      char x[160], y[160];
      shape_format(full, x, sizeof x);
      shape_format(&a->shape, y, sizeof y);
      luaL_error(L, "gpu.%s: shapes %s and %s do not broadcast", r->name, x, y);
    }
    *full = s;
  }
}

/* [-0, +0, e] Output j of r (operand i of c): out when given (one output) and apart from
 * the inputs, else new (copied into out after). */
static void custom_output(lua_State *L, const Reducer *r, const Args *g, const GpuShape *rs, Operand *o, int i) {
  if (g->out) {
    GpuArray *a = array_test(L, g->out);
    if (a == NULL || !a->alive) luaL_error(L, "gpu.%s: out must be a live device array", r->name);
    char x[160], y[160];
    int same = a->shape.ndim == rs->ndim;
    for (int d = 0; same && d < rs->ndim; d++) same = a->shape.dim[d] == rs->dim[d];
    if (!same && !(g->all && a->shape.size == 1)) {
      shape_format(&a->shape, x, sizeof x);
      shape_format(rs, y, sizeof y);
      luaL_error(L, "gpu.%s: out has shape %s but the result has shape %s", r->name, x, y);
    }
    if (a->dtype != r->declared[i])
      luaL_error(L, "gpu.%s: out is %s; the output is %s", r->name, dtypes[a->dtype].name, dtypes[r->declared[i]].name);
    if (array_shares(a)) errors_shared(L, lua_pushfstring(L, "gpu.%s", r->name));   /* as make_output */
    int ins[GPU_MAXOPS];
    for (int k = 0; k < r->nin; k++) ins[k] = k + 1;
    out_apart(L, g, a, rs, a->dtype, r->nin, ins);
  } else {
    array_new(L, rs, r->declared[i]);
  }
  o->idx = lua_gettop(L);
}

/* [-0, +0, e] Option param at idx: a number, or a table of one or two, into p[0], p[1]
 * (what the expressions read as _param[0], _param[1]). */
static void read_param(lua_State *L, int idx, const char *name, double *p) {
  int n = lua_istable(L, idx) ? (int)lua_rawlen(L, idx) : 1;
  for (int i = 0; i < n && i < 3; i++) {
    if (lua_istable(L, idx)) lua_rawgeti(L, idx, i + 1);
    else lua_pushvalue(L, idx);
    if (i == 2 || lua_type(L, -1) != LUA_TNUMBER)
      luaL_error(L, "gpu.%s: option param must be a number or a table of one or two numbers", name);
    p[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
}

/* r(x, ... [, {dim =, keepdim =, out =, stream =, param =}]): the reducer is upvalue 1 */
static int reducer_call(lua_State *L) {
  Reducer *r = reducer_check(L, lua_upvalueindex(1));
  int n = lua_gettop(L), opts = 0, dims = 0;
  double param[2] = {0, 0};
  if (n >= 1 && lua_type(L, n) == LUA_TTABLE) opts = n--;
  else if (errors_nil_options(L, r->nin + 1, n)) n--;
  if (n != r->nin)
    luaL_error(L, "gpu.%s takes %d input%s (and an options table), got %d", r->name, r->nin,
               r->nin == 1 ? "" : "s", n);
  Args g;
  memset(&g, 0, sizeof g);
  GpuShape full = {0}, rs;
  full.size = 1;
  custom_inputs(L, r, &full);
  if (opts) {
    errors_options(L, opts, r->name, "dim keepdim out stream param");
    if (lua_getfield(L, opts, "dim") != LUA_TNIL) dims = lua_gettop(L);
    g.keepdim = errors_flag(L, opts, r->name, "keepdim", 0);
    if (lua_getfield(L, opts, "out") != LUA_TNIL) g.out = lua_gettop(L);
    if (lua_getfield(L, opts, "stream") != LUA_TNIL) g.stream = stream_named(L, -1, "gpu.", r->name, 1);
    if (lua_getfield(L, opts, "param") != LUA_TNIL) read_param(L, lua_gettop(L), r->name, param);
  }
  if (r->nout != 1 && g.out)
    luaL_error(L, "gpu.%s: out= takes one array; this reduction has %d outputs", r->name, r->nout);
  read_dims(L, r->name, dims, full.ndim, 0, &g);
  result_shape(&full, &g, &rs);
  RedCall c;
  memset(&c, 0, sizeof c);
  c.nin = r->nin;
  c.nout = r->nout;
  c.full = full;
  memcpy(c.reduced, g.reduced, sizeof c.reduced);
  c.result = r->declared[r->nin];
  c.stream = g.stream;
  memcpy(c.param, param, sizeof param);
  int first_out = 0;
  for (int i = 0; i < r->nin + r->nout; i++) {
    Operand *o = &c.ops[i];
    if (i < r->nin) o->idx = i + 1;
    else custom_output(L, r, &g, &rs, o, i);
    if (i == r->nin) first_out = o->idx;
    o->a = array_operand(L, o->idx, r->name, i + 1);   /* on the current device */
    o->kind = OPK_ARRAY;
    o->dtype = o->loop = o->a->dtype;
    o->lay = array_layout(o->a);
    if (i < r->nin) layout_broadcast(&o->lay, &full);
  }
  reduce_launch(L, lua_upvalueindex(1), r, &c);
  for (int j = 0; j < r->nout; j++) lua_pushvalue(L, first_out + j);
  out_back(L, &g);   /* out is given for one output only */
  return r->nout;
}

/* gpu._reducer(desc): a reducer for gpu.reduction (lua/reduction.lua), desc = {name =,
 * nin =, nout =, dtypes = {...} (inputs, then outputs), acc =, map =, ...} */
static int gpu_reducer(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "name");
  lua_getfield(L, 1, "nin");
  lua_getfield(L, 1, "nout");
  const char *name = luaL_checkstring(L, -3);
  lua_Integer nin = luaL_checkinteger(L, -2), nout = luaL_checkinteger(L, -1);
  if (nin < 1 || nout < 1 || nin + nout > GPU_MAXOPS)
    return luaL_error(L, "a reduction has 1 to %d operands (inputs and outputs)", GPU_MAXOPS);
  Reducer *r = reducer_new(L, name, "custom", (int)nin, (int)nout, 1);
  lua_getfield(L, 1, "dtypes");
  for (int i = 0; i < nin + nout; i++) {
    lua_geti(L, -1, i + 1);
    r->declared[i] = dtype_check(L, lua_gettop(L), DT_FLOAT32);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, REDUCER_UV_DESC);
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, reducer_call, 1);   /* the reducer as its own upvalue: kept alive */
  return 2;
}

/* [-0, +0, m] f with upvalues (the reducers of kinds[]) as gpu.<name> and a method. */
static void add_function(lua_State *L, int gpu, int methods, const char *name, lua_CFunction f,
                         const char *const *kinds, int n, int extra) {
  for (int i = 0; i < n; i++) {
    int ident = strcmp(kinds[i], "norminf") != 0 && strcmp(kinds[i], "normninf") != 0;
    int two = strcmp(kinds[i], "var") == 0 || strcmp(kinds[i], "std") == 0;   /* x and its mean */
    reducer_new(L, name, kinds[i], two ? 2 : 1, 1, ident);
  }
  if (extra >= 0) lua_pushinteger(L, extra);
  else if (extra == -2) lua_pushstring(L, name);
  lua_pushcclosure(L, f, n + (extra != -1));
  lua_pushvalue(L, -1);
  lua_setfield(L, methods, name);
  lua_setfield(L, gpu, name);
}

/* Expects the gpu table on top. */
void reductions_open(lua_State *L) {
  int gpu = lua_gettop(L);
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_getfield(L, -1, "methods");
  int methods = lua_gettop(L);
  for (int i = 0; i < NDEFS; i++) {
    const char *kind[1] = {defs[i].name};
    add_function(L, gpu, methods, defs[i].name, red_simple, kind, 1, i);
  }
  const char *var[2] = {"mean", "var"}, *std[2] = {"mean", "std"};
  add_function(L, gpu, methods, "var", red_var, var, 2, -2);
  add_function(L, gpu, methods, "std", red_var, std, 2, -2);
  const char *norms[6] = {"norm2", "norm1", "norm0", "normp", "norminf", "normninf"};
  add_function(L, gpu, methods, "norm", red_norm, norms, 6, -1);
  lua_settop(L, gpu);
  lua_pushcfunction(L, gpu_reducer);
  lua_setfield(L, gpu, "_reducer");
}
