/* ops.c: calling elementwise operations: the operators of device arrays (+ - * / // % ^
 * & | ~ << >>), gpu.add, gpu.sqrt, ... and their methods (a:sqrt()). A call reads its
 * operands (device arrays and Lua numbers, which are weak scalars), finds the types
 * (promote.c), broadcasts the shapes, checks or makes the outputs ({out = c}), copies an
 * input first when it overlaps an output in another layout, and launches (ufunc.c). All
 * of it is C, so a small operation costs little more than its launch. */
#include <float.h>
#include <string.h>
#include "gpu.h"


static const char COPY_KEY = 0;     /* registry: the _copy ufunc */
static const char TRACER_KEY = 0;   /* registry: {mt = tracer metatable, apply = f} (lua/fuse.lua) */

/* [-0, +0, v] Argument idx (the pos-th) as an operand. */
static void operand_read(lua_State *L, const Ufunc *u, int idx, int pos, Operand *o) {
  o->idx = idx;
  o->a = NULL;
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      o->kind = lua_isinteger(L, idx) ? OPK_INT : OPK_FLOAT;
      return;
    case LUA_TBOOLEAN:
      o->kind = OPK_BOOL;
      return;
    case LUA_TUSERDATA:
      if ((o->a = array_test(L, idx)) != NULL) {
        if (!o->a->alive) errors_freed(L, lua_pushfstring(L, "gpu.%s argument %d", u->name, pos));
        o->kind = OPK_ARRAY;
        o->dtype = o->a->dtype;
        o->lay = array_layout(o->a);
        return;
      }
      if (hostarray_test(L, idx))
        luaL_error(L, "gpu.%s argument %d is a host array: copy it to the device with gpu.array(h)",
                   u->name, pos);
      if (luaL_testudata(L, idx, GPU_COMPLEX_T))
        luaL_error(L, "gpu.%s argument %d is a gpu.complex: make it an array, gpu.full({}, z, "
                   "\"complex128\")", u->name, pos);
      break;
    case LUA_TTABLE:
      if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING)   /* a gpu.sparse matrix */
        luaL_error(L, "gpu.%s argument %d is a %s, which it does not take", u->name, pos, lua_tostring(L, -1));
      luaL_error(L, "gpu.%s argument %d is a Lua table: copy it to the device with gpu.array(t)",
                 u->name, pos);
      break;
  }
  luaL_error(L, "gpu.%s argument %d must be a device array or a number, got %s", u->name, pos,
             luaL_typename(L, idx));
}

/* [-0, +0, v] A scalar's value as its loop type: a Lua number must fit it (NEP 50). */
static void scalar_value(lua_State *L, const Ufunc *u, Operand *o, int pos) {
  if (dtypes[o->loop].kind == 'c' && u->rule == RULE_CUSTOM)
    luaL_error(L, "gpu.%s argument %d: a complex input takes a device array, not a number", u->name, pos);
  o->dtype = dtype_real(o->loop);   /* a complex loop takes a real number: its real part */
  o->value.u = 0;
  if (o->kind == OPK_BOOL) {
    uint8_t b = (uint8_t)lua_toboolean(L, o->idx);
    element_convert(&o->value, o->loop, &b, DT_BOOL);
    return;
  }
  /* a negative Lua number, integer or float, never fits an unsigned type here (dtype_store
   * takes a negative integer's bits for uint64, as tables do: -1 would be 2^64 - 1) */
  const char *err = o->kind != OPK_BOOL && dtypes[o->loop].kind == 'u' && lua_tonumber(L, o->idx) < 0
      ? "out of range" : dtype_store(L, o->idx, o->dtype, &o->value);
  if (err)   /* (NumPy 2's where wraps such a number: np.where(c, u8, -128) holds 128) */
    luaL_error(L, "gpu.%s argument %d: %s is %s for %s (a Lua number takes the array's "
               "dtype, as a Python number does in NumPy 2%s)", u->name, pos,
               luaL_tolstring(L, o->idx, NULL), err, dtypes[o->loop].name,
               u->rule == RULE_WHERE ? "'s ufuncs, which refuse it too; NumPy's where wraps it" : "");
  char k = dtypes[o->loop].kind;
  if (strcmp(u->expr, "ew::power") == 0 && pos == 2 && k != 'f' && k != 'c' &&
      lua_isinteger(L, o->idx) && lua_tointeger(L, o->idx) < 0)
    luaL_error(L, "gpu.%s: integers to negative integer powers are not allowed", u->name);
}

/* The inputs' types for u, checked; the outputs' in out[]. */
static void resolve(lua_State *L, const Ufunc *u, Operand *ops, const Operand *given, GpuDtype *out) {
  int nin = u->nin;
  if (u->rule == RULE_CUSTOM) {
    for (int i = 0; i < nin; i++) {
      ops[i].loop = u->declared[i];
      if (ops[i].kind == OPK_ARRAY && ops[i].dtype != u->declared[i])
        luaL_error(L, "gpu.%s argument %d is a %s array; it takes %s", u->name, i + 1,
                   dtypes[ops[i].dtype].name, dtypes[u->declared[i]].name);
    }
    for (int j = 0; j < u->nout; j++) out[j] = u->declared[nin + j];
    return;
  }
  if (u->rule == RULE_CAST) {
    out[0] = given && given[0].a ? given[0].dtype : ops[0].kind == OPK_ARRAY ? ops[0].dtype : DT_FLOAT64;
    ops[0].loop = ops[0].kind == OPK_ARRAY ? ops[0].dtype : out[0];
    return;
  }
  const char *err = resolve_types(u->rule, nin, ops, out);
  if (err) luaL_error(L, "gpu.%s: %s", u->name, err);
  int cx = dtypes[out[0]].kind == 'c';   /* or a complex input of a real result (abs, signbit) */
  for (int i = 0; i < nin; i++) cx |= dtypes[ops[i].loop].kind == 'c';
  if (cx) {
    if (u->cx == UFUNC_CX_NO)
      luaL_error(L, strncmp(u->name, "special.", 8) ? "gpu.%s is not defined for complex arrays (as in NumPy)"
                                                     : "gpu.%s: complex arrays are not supported", u->name);
    if (u->cx == UFUNC_CX_REAL) out[0] = dtype_real(out[0]);
  }
}

/* The shape the array inputs broadcast to. */
static void broadcast(lua_State *L, const Ufunc *u, const Operand *ops, GpuShape *s) {
  int first = 1;
  for (int i = 0; i < u->nin; i++) {
    if (ops[i].kind != OPK_ARRAY) continue;
    if (first) { *s = ops[i].lay.shape; first = 0; continue; }
    GpuShape r;
    if (shape_broadcast(s, &ops[i].lay.shape, &r) != 0) {
      char a[160], b[160];
      shape_format(s, a, sizeof a);
      shape_format(&ops[i].lay.shape, b, sizeof b);
      luaL_error(L, "gpu.%s: shapes %s and %s do not broadcast", u->name, a, b);
    }
    *s = r;
  }
  if (first) {   /* only scalars: one element (gpu.fuse of numbers, a fill) */
    memset(s, 0, sizeof *s);
    s->size = 1;
  }
}

/* Reads {out = a or {a, ...}, stream = s} at opts into given[] and *stream. */
static void read_options(lua_State *L, const Ufunc *u, int opts, Operand *given, CUstream *stream) {
  for (int j = 0; j < u->nout; j++) given[j].a = NULL;
  if (!opts) return;
  errors_options(L, opts, u->name, "out stream");
  int t = lua_getfield(L, opts, "out");
  int top = lua_gettop(L);
  /* the stream last: a metamethod of the table (reading out) runs before it, not after */
  if (lua_getfield(L, opts, "stream") != LUA_TNIL) *stream = stream_named(L, -1, "gpu.", u->name, 1);
  lua_pop(L, 1);
  if (t == LUA_TNIL) { lua_pop(L, 1); return; }
  if (t == LUA_TTABLE && lua_geti(L, top, u->nout + 1) != LUA_TNIL)   /* (it was ignored) */
    luaL_error(L, "gpu.%s has %d output%s: out has more arrays", u->name, u->nout, u->nout == 1 ? "" : "s");
  if (t == LUA_TTABLE) lua_pop(L, 1);
  for (int j = 0; j < u->nout; j++) {
    if (t == LUA_TTABLE) lua_geti(L, top, j + 1);
    else if (j == 0) lua_pushvalue(L, top);
    else luaL_error(L, "gpu.%s has %d outputs: give out = {a, b, ...}", u->name, u->nout);
    GpuArray *a = array_test(L, -1);
    if (a == NULL)
      luaL_error(L, "gpu.%s: out must be a device array%s, got %s", u->name,
                 u->nout > 1 ? " or a table of them" : "", luaL_typename(L, t == LUA_TTABLE ? -1 : top));
    if (!a->alive) errors_freed(L, lua_pushfstring(L, "gpu.%s out", u->name));
    given[j].a = a;
    given[j].idx = lua_gettop(L);   /* left on the stack: it is returned */
    given[j].kind = OPK_ARRAY;
    given[j].dtype = a->dtype;
    given[j].lay = array_layout(a);
  }
}

/* [-0, +k, e] The outputs: checked when given, else made; each left on the stack. */
static void outputs(lua_State *L, const Ufunc *u, Operand *ops, Operand *given, const GpuDtype *dt,
                    GpuShape *s) {
  char a[160], b[160];
  for (int j = 0; j < u->nout; j++) {
    Operand *o = &ops[u->nin + j];
    if (!given[j].a) {
      o->a = array_new(L, s, dt[j]);
      o->idx = lua_gettop(L);
      o->kind = OPK_ARRAY;
      o->dtype = o->loop = dt[j];
      o->lay = array_layout(o->a);
      continue;
    }
    *o = given[j];
    o->loop = dt[j];
    GpuShape r;   /* the first output may be larger than the result (broadcast into it); the
                   * others have the first's shape (a larger one was written past its end) */
    if (shape_broadcast(s, &o->lay.shape, &r) != 0 || r.ndim != o->lay.shape.ndim ||
        r.size != o->lay.shape.size || (j > 0 && (r.ndim != s->ndim || r.size != s->size))) {
      shape_format(&o->lay.shape, a, sizeof a);
      shape_format(s, b, sizeof b);
      luaL_error(L, "gpu.%s: out has shape %s but the result has shape %s", u->name, a, b);
    }
    if (u->rule == RULE_CUSTOM && o->dtype != dt[j])   /* CuPy's ElementwiseKernel: the declared type */
      luaL_error(L, "gpu.%s: output %d is %s, and the kernel declares it %s", u->name, j + 1,
                 dtypes[o->dtype].name, dtypes[dt[j]].name);
    if (u->rule != RULE_CUSTOM && u->rule != RULE_CAST && !can_cast_same_kind(dt[j], o->dtype))
      luaL_error(L, "gpu.%s: out is %s, and the result (%s) cannot be cast to it", u->name,
                 dtypes[o->dtype].name, dtypes[dt[j]].name);
    if (array_shares(o->a)) errors_shared(L, lua_pushfstring(L, "gpu.%s", u->name));
    if (j == 0) *s = o->lay.shape;
  }
}

static int overlaps(const Operand *in, const Operand *out) {
  if (in->a->base == 0 || in->a->base != out->a->base) return 0;
  return layout_overlap(&in->lay, &out->lay) && !layout_same(&in->lay, &out->lay);
}

/* Inputs that share memory with an output in another layout are copied first, so that
 * writing the output cannot change what is still to be read. */
static void separate(lua_State *L, const Ufunc *u, Operand *ops, CUstream stream) {
  for (int i = 0; i < u->nin; i++) {
    if (ops[i].kind != OPK_ARRAY) continue;
    for (int j = u->nin; j < u->nin + u->nout; j++) {
      if (!overlaps(&ops[i], &ops[j])) continue;
      GpuArray *c = array_new(L, &ops[i].a->shape, ops[i].a->dtype);
      int cidx = lua_gettop(L);
      ops_copy(L, cidx, ops[i].idx, stream);
      GpuShape s = ops[i].lay.shape;
      ops[i].a = c;
      ops[i].idx = cidx;
      ops[i].lay = array_layout(c);
      layout_broadcast(&ops[i].lay, &s);
      break;
    }
  }
}

static void check_devices(lua_State *L, const Ufunc *u, const Operand *ops, int n) {
  int dev = backend_get()->current_device();
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (ops[i].kind == OPK_ARRAY && ops[j].kind == OPK_ARRAY && ops[i].a->device != ops[j].a->device)
        luaL_error(L, "gpu.%s: arrays on device %d and device %d: copy one to the other's "
                   "device first (a:to(dev))", u->name, ops[j].a->device, ops[i].a->device);
  for (int i = 0; i < n; i++)
    if (ops[i].kind == OPK_ARRAY && ops[i].a->device != dev)
      luaL_error(L, "gpu.%s: the arrays are on device %d, and device %d is current: run it "
                 "with gpu.with_device(%d, f) or gpu.device(%d):use()", u->name, ops[i].a->device,
                 dev, ops[i].a->device, ops[i].a->device);
}

/* A launch of arrays only, into an output it made: what ufunc_quick repeats. */
static void remember(Ufunc *u, const Operand *ops, const Operand *given) {
  if (u->nout != 1 || given[0].a || u->launched == NULL || ops[u->nin].lay.shape.size == 0) return;
  for (int i = 0; i < u->nin; i++)
    if (ops[i].kind != OPK_ARRAY) return;   /* before any is written: what is there stays whole */
  for (int i = 0; i < u->nin; i++) u->quick.in[i] = ops[i].dtype;
  u->quick.out = ops[u->nin].dtype;
  u->quick.entry = u->launched;
  u->quick.valid = 1;
}

/* The common path once the inputs are read: types, shapes, outputs (given[j].a NULL: make
 * one), launch. Pushes the outputs. */
static int run(lua_State *L, int uidx, Ufunc *u, Operand *ops, Operand *given, CUstream stream) {
  GpuDtype dt[GPU_MAXOPS];
  GpuShape s;
  resolve(L, u, ops, given, dt);
  for (int i = 0; i < u->nin; i++)
    if (ops[i].kind != OPK_ARRAY) scalar_value(L, u, &ops[i], i + 1);
  broadcast(L, u, ops, &s);
  check_devices(L, u, ops, u->nin);   /* before outputs are made on the current device */
  outputs(L, u, ops, given, dt, &s);
  for (int i = 0; i < u->nin; i++)
    if (ops[i].kind == OPK_ARRAY) layout_broadcast(&ops[i].lay, &s);
  check_devices(L, u, ops, u->nin + u->nout);
  separate(L, u, ops, stream);
  ufunc_launch(L, uidx, u, ops, stream);
  remember(u, ops, given);
  for (int j = 0; j < u->nout; j++) lua_pushvalue(L, ops[u->nin + j].idx);
  return u->nout;
}

/* [-0, +?, e] A traced argument (lua/fuse.lua's tracer) among the arguments: the call is
 * recorded by the tracer instead of run; returns the number of results, or -1. */
static int traced(lua_State *L, int uidx, int first, int nargs) {
  int top = lua_gettop(L), found = 0;
  for (int i = 0; i < nargs && !found; i++) {
    if (lua_type(L, first + i) != LUA_TTABLE || !lua_getmetatable(L, first + i)) continue;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &TRACER_KEY);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "mt");
      found = lua_rawequal(L, -1, -3);
    }
    lua_settop(L, top);
  }
  if (!found) return -1;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &TRACER_KEY);
  lua_getfield(L, -1, "apply");
  lua_remove(L, -2);
  lua_pushvalue(L, uidx);
  for (int i = 0; i < nargs; i++) lua_pushvalue(L, first + i);
  lua_call(L, nargs + 1, LUA_MULTRET);
  return lua_gettop(L) - top;
}

int ops_call(lua_State *L, int uidx, Ufunc *u, int first, int nargs) {
  Operand ops[GPU_MAXOPS], given[GPU_MAXOPS];
  CUstream stream = NULL;
  int nin = u->nin, opts = 0;
  if (errors_nil_options(L, first + nin, first + nargs - 1)) nargs = nin;
  if (ufunc_quick(L, uidx, u, first, nargs)) return 1;
  int r = traced(L, uidx, first, nargs);
  if (r >= 0) return r;
  if (nargs == nin + 1 && lua_istable(L, first + nin)) opts = first + nin;
  else if (nargs != nin)
    return luaL_error(L, "gpu.%s takes %d argument%s (and an options table), got %d", u->name,
                      nin, nin == 1 ? "" : "s", nargs);
  for (int i = 0; i < nin; i++) operand_read(L, u, first + i, i + 1, &ops[i]);
  read_options(L, u, opts, given, &stream);
  return run(L, uidx, u, ops, given, stream);
}

void ops_copy(lua_State *L, int dst, int src, CUstream stream) {
  dst = lua_absindex(L, dst);
  src = lua_absindex(L, src);
  int top = lua_gettop(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &COPY_KEY);
  int uidx = lua_gettop(L);
  Ufunc *u = lua_touserdata(L, uidx);
  Operand ops[2], given[1];
  operand_read(L, u, src, 1, &ops[0]);
  given[0].a = array_check(L, dst);
  given[0].idx = dst;
  given[0].kind = OPK_ARRAY;
  given[0].dtype = given[0].a->dtype;
  given[0].lay = array_layout(given[0].a);
  run(L, uidx, u, ops, given, stream);
  lua_settop(L, top);
}

/* u:result_dtype(x, ...): the dtype u gives for operands x, ... (a dtype name stands for
 * an array of that dtype, a Lua number for a weak scalar), or the error it raises. With
 * loops (u:_resolve, for lua/fuse.lua), the types each input is computed in follow. */
static int resolve_dtypes(lua_State *L, int loops) {
  Ufunc *u = ufunc_check(L, 1);
  Operand ops[GPU_MAXOPS];
  GpuDtype dt[GPU_MAXOPS];
  if (lua_gettop(L) - 1 != u->nin)
    return luaL_error(L, "gpu.%s takes %d operand%s", u->name, u->nin, u->nin == 1 ? "" : "s");
  for (int i = 0; i < u->nin; i++) {
    int idx = i + 2;
    if (lua_type(L, idx) == LUA_TSTRING) {
      ops[i].kind = OPK_ARRAY;
      ops[i].dtype = dtype_check(L, idx, DT_FLOAT32);
      ops[i].idx = idx;
    } else {
      operand_read(L, u, idx, i + 1, &ops[i]);
    }
  }
  resolve(L, u, ops, NULL, dt);
  for (int i = 0; i < u->nin; i++)
    if (ops[i].kind != OPK_ARRAY) scalar_value(L, u, &ops[i], i + 1);
  for (int j = 0; j < u->nout; j++) lua_pushstring(L, dtypes[dt[j]].name);
  for (int i = 0; loops && i < u->nin; i++) lua_pushstring(L, dtypes[ops[i].loop].name);
  return u->nout + (loops ? u->nin : 0);
}
static int ufunc_result_dtype(lua_State *L) { return resolve_dtypes(L, 0); }
static int ufunc_resolve(lua_State *L) { return resolve_dtypes(L, 1); }

/* gpu.result_type(x, ...): NumPy's result_type over dtype names, arrays and Lua numbers */
static int gpu_result_type(lua_State *L) {
  Operand few[GPU_MAXOPS], *ops = few;
  int n = lua_gettop(L);
  if (n < 1) return luaL_error(L, "result_type takes 1 operand or more");
  if (n > GPU_MAXOPS) ops = lua_newuserdatauv(L, (size_t)n * sizeof *ops, 0);   /* (a list's) */
  Ufunc probe = {.name = "result_type"};
  for (int i = 0; i < n; i++) {
    if (lua_type(L, i + 1) == LUA_TSTRING) {
      ops[i].kind = OPK_ARRAY;
      ops[i].dtype = dtype_check(L, i + 1, DT_FLOAT32);
    } else {
      operand_read(L, &probe, i + 1, i + 1, &ops[i]);
    }
  }
  lua_pushstring(L, dtypes[result_type(n, ops)].name);
  return 1;
}

/* An operator: the ufunc is upvalue 1, its event (__add, ...) upvalue 2; unary ones get
 * their operand twice from Lua. A table operand with that operator of its own (a
 * gpu.sparse matrix: dense - A) takes the call, as its reflected operator would in Python. */
static int ops_meta(lua_State *L) {
  Ufunc *u = lua_touserdata(L, lua_upvalueindex(1));
  int nargs = u->nin == 1 ? 1 : lua_gettop(L);
  for (int i = 1; nargs == 2 && i <= 2; i++) {
    if (lua_type(L, i) != LUA_TTABLE || luaL_getmetafield(L, i, lua_tostring(L, lua_upvalueindex(2))) == LUA_TNIL)
      continue;
    lua_insert(L, 1);
    lua_settop(L, 3);
    lua_call(L, 2, 1);
    return 1;
  }
  return ops_call(L, lua_upvalueindex(1), u, 1, nargs);
}

/* gpu.nan_to_num(x [, {nan =, posinf =, neginf =, out =, stream =}]): NumPy's: NaN and
 * infinities of float and complex arrays (each part) replaced, by 0 and the dtype's
 * largest finite numbers unless given; other dtypes copied. The _nan_to_num ufunc
 * (upvalue 1) takes the three values as weak scalars, which take x's dtype. */
static int gpu_nan_to_num(lua_State *L) {
  static const char *const keys[] = {"nan", "posinf", "neginf"};
  int opts = lua_istable(L, 2) ? 2 : 0, n = lua_gettop(L);
  if (errors_nil_options(L, 2, n)) n = 1;
  if (n < 1 || n > 2 || (n == 2 && !opts))
    return luaL_error(L, "gpu.nan_to_num takes an array and an options table {nan =, posinf =, neginf =}");
  if (opts) errors_options(L, opts, "nan_to_num", "nan posinf neginf out stream");
  GpuArray *a = array_test(L, 1);
  GpuDtype dt = a ? a->dtype : lua_isinteger(L, 1) ? DT_INT64 : DT_FLOAT64;
  int fp = dtypes[dt].kind == 'f' || dtypes[dt].kind == 'c';
  double big = dtype_real(dt) == DT_FLOAT32 ? FLT_MAX : dt == DT_FLOAT16 ? 65504.0 : DBL_MAX,
         value[] = {0, big, -big};
  lua_pushvalue(L, lua_upvalueindex(1));
  int uidx = lua_gettop(L);
  lua_pushvalue(L, 1);
  for (int i = 0; i < 3; i++) {
    if (opts && lua_getfield(L, opts, keys[i]) != LUA_TNIL) {
      if (!lua_isnumber(L, -1))
        return luaL_error(L, "gpu.nan_to_num: %s must be a number, got %s", keys[i], luaL_typename(L, -1));
      value[i] = lua_tonumber(L, -1);
    }
    if (opts) lua_pop(L, 1);
    if (!fp && dt == DT_BOOL) lua_pushboolean(L, 0);   /* unused: a weak scalar of x's kind */
    else if (!fp) lua_pushinteger(L, 0);
    else lua_pushnumber(L, value[i]);
  }
  if (opts) {   /* out and stream, for the ufunc */
    lua_createtable(L, 0, 2);
    lua_getfield(L, opts, "out");
    lua_setfield(L, -2, "out");
    lua_getfield(L, opts, "stream");
    lua_setfield(L, -2, "stream");
  }
  return ops_call(L, uidx, lua_touserdata(L, uidx), uidx + 1, opts ? 5 : 4);
}

/* gpu._set_tracer(mt, apply): calls with an argument of metatable mt go to apply */
static int gpu_set_tracer(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "mt");
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "apply");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &TRACER_KEY);
  return 0;
}

/* Expects the gpu table on top (array_open and ufunc_open done): the built-in ufuncs as
 * gpu.<name> and as methods of arrays, the operators as metamethods. */
void ops_open(lua_State *L) {
  int gpu = lua_gettop(L);
  luaL_getmetatable(L, GPU_ARRAY_T);
  int mt = lua_gettop(L);
  lua_getfield(L, mt, "methods");
  int methods = lua_gettop(L);
  for (int i = 0; i < ops_nbuiltins; i++) {
    const OpDef *d = &ops_builtins[i];
    ((Ufunc *)ufunc_new(L, d->name, d->nin, 1, d->rule, d->expr))->cx = d->cx;
    if (d->meta) {
      lua_pushvalue(L, -1);
      lua_pushstring(L, d->meta);
      lua_pushcclosure(L, ops_meta, 2);
      lua_setfield(L, mt, d->meta);
    }
    if (d->rule == RULE_CAST) {   /* copies: a:copy(), gpu.copy, assignment (copy.c) */
      snprintf(((Ufunc *)lua_touserdata(L, -1))->name, sizeof ((Ufunc *)0)->name, "copy");
      lua_rawsetp(L, LUA_REGISTRYINDEX, &COPY_KEY);
      continue;
    }
    if (d->name[0] != '_') {
      lua_pushvalue(L, -1);
      lua_setfield(L, methods, d->name);
    } else {   /* gpu._clip is gpu.clip's: its messages name what the user called */
      snprintf(((Ufunc *)lua_touserdata(L, -1))->name, sizeof ((Ufunc *)0)->name, "%s", d->name + 1);
    }
    lua_setfield(L, gpu, d->name);
  }
  lua_createtable(L, 0, ops_nspecial);   /* gpu.special: its ufuncs; lua/special.lua the rest */
  for (int i = 0; i < ops_nspecial; i++) {
    const OpDef *d = &ops_special[i];
    Ufunc *u = ufunc_new(L, d->name, d->nin, 1, d->rule, d->expr);
    u->cx = d->cx;
    /* the two zetas' messages both name gpu.special.zeta, which calls them */
    snprintf(u->name, sizeof u->name, "special.%s", d->name[0] == '_' ? "zeta" : d->name);
    lua_setfield(L, -2, d->name);
  }
  lua_setfield(L, gpu, "special");
  lua_getfield(L, gpu, "_nan_to_num");
  lua_pushcclosure(L, gpu_nan_to_num, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, methods, "nan_to_num");
  lua_setfield(L, gpu, "nan_to_num");
  lua_settop(L, gpu);
  luaL_getmetatable(L, GPU_UFUNC_T);
  lua_getfield(L, -1, "methods");
  lua_pushcfunction(L, ufunc_result_dtype);
  lua_setfield(L, -2, "result_dtype");
  lua_pushcfunction(L, ufunc_resolve);
  lua_setfield(L, -2, "_resolve");
  lua_settop(L, gpu);
  lua_pushcfunction(L, gpu_result_type);
  lua_setfield(L, gpu, "result_type");
  lua_pushcfunction(L, gpu_set_tracer);
  lua_setfield(L, gpu, "_set_tracer");
}
