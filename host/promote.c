/* promote.c: NumPy 2's type promotion (NEP 50) over gpuhost's dtypes, and each
 * elementwise operation's rule for the types it computes in and gives. Lua numbers are
 * weak scalars, as Python's int and float: they take the array's type when its kind can
 * hold them (float32 * 2.5 is float32, int32 + 1 is int32) and otherwise give the
 * default of their kind (int32 / 2.5 is float64). spec/data/promotion.lua holds NumPy's
 * own answers, which the specs compare with these. No Lua here. */
#include <string.h>
#include "gpu.h"

static GpuDtype signed_of(size_t size) {
  return size == 1 ? DT_INT8 : size == 2 ? DT_INT16 : size == 4 ? DT_INT32 : DT_INT64;
}

/* The float an integer type computes in where only floats make sense (NumPy's: float16
 * for bool, int8 and uint8, float32 for 16 bits). */
static GpuDtype float_for(GpuDtype t) {
  if (dtypes[t].kind == 'f' || dtypes[t].kind == 'c') return t;
  return dtypes[t].size == 1 ? DT_FLOAT16 : dtypes[t].size == 2 ? DT_FLOAT32 : DT_FLOAT64;
}

GpuDtype promote_types(GpuDtype a, GpuDtype b) {
  if (a == b) return a;
  const DtypeInfo *x = &dtypes[a], *y = &dtypes[b];
  if (x->kind == 'c' || y->kind == 'c') {   /* the complex whose parts hold both */
    GpuDtype p = promote_types(dtype_real(a), dtype_real(b));
    return p == DT_FLOAT32 || p == DT_FLOAT16 ? DT_COMPLEX64 : DT_COMPLEX128;
  }
  if (x->kind == 'b') return b;
  if (y->kind == 'b') return a;
  if (x->kind == 'f' || y->kind == 'f') {
    if (x->kind == 'f' && y->kind == 'f') return x->size >= y->size ? a : b;
    /* the float, or the float that holds the integers exactly, whichever is wider */
    GpuDtype f = x->kind == 'f' ? a : b, g = float_for(x->kind == 'f' ? b : a);
    return dtypes[f].size >= dtypes[g].size ? f : g;
  }
  if (x->kind == y->kind) return x->size >= y->size ? a : b;
  const DtypeInfo *s = x->kind == 'i' ? x : y, *u = x->kind == 'i' ? y : x;
  if (s->size > u->size) return x->kind == 'i' ? a : b;
  if (u->size < 8) return signed_of(2 * u->size);
  return DT_FLOAT64;   /* uint64 with a signed integer */
}

int can_cast_same_kind(GpuDtype from, GpuDtype to) {
  char f = dtypes[from].kind, t = dtypes[to].kind;
  if (f == 'b') return 1;
  if (f == 'u') return t != 'b';
  if (f == 'i') return t == 'i' || t == 'f' || t == 'c';
  if (f == 'f') return t == 'f' || t == 'c';
  return t == 'c';
}

/* Complex first, then floats, integers, bools: the order three or more arrays' dtypes are
 * promoted in. promote_types is not associative across kinds (int8 with uint8 is int16, and
 * int16 with float16 float32, but float16 holds both); in this order the result is NumPy's
 * result_type of them all, whatever their order (checked against NumPy for every 4 dtypes).
 * Two are promoted as they come (promote_types is commutative): a launch's usual case. */
static int kind_rank(GpuDtype d) {
  char k = dtypes[d].kind;
  return k == 'c' ? 0 : k == 'f' ? 1 : k == 'b' ? 3 : 2;
}

GpuDtype result_type(int n, const Operand *ops) {
  int strong = -1, weak = OPK_ARRAY, arrays = 0;
  for (int i = 0; i < n; i++) {
    if (ops[i].kind == OPK_ARRAY) arrays++;
    else if (weak == OPK_ARRAY || ops[i].kind > weak) weak = ops[i].kind;
  }
  for (int r = arrays > 2 ? 0 : -1; r < (arrays > 2 ? 4 : 0); r++)   /* -1: all in one pass */
    for (int i = 0; i < n; i++) {
      if (ops[i].kind != OPK_ARRAY || (r >= 0 && kind_rank(ops[i].dtype) != r)) continue;
      strong = strong < 0 ? (int)ops[i].dtype : (int)promote_types((GpuDtype)strong, ops[i].dtype);
    }
  if (strong < 0)
    return weak == OPK_FLOAT ? DT_FLOAT64 : weak == OPK_INT ? DT_INT64 : DT_BOOL;
  char k = dtypes[strong].kind;
  if (weak == OPK_FLOAT && k != 'f' && k != 'c') return DT_FLOAT64;
  if (weak == OPK_INT && k == 'b') return DT_INT64;
  return (GpuDtype)strong;
}


/* What a scalar operand is passed as when it keeps its own kind. */
static GpuDtype scalar_own(const Operand *o) {
  return o->kind == OPK_FLOAT ? DT_FLOAT64 : o->kind == OPK_INT ? DT_INT64 : DT_BOOL;
}

static const char *no_bool(GpuDtype c, const char *what) {
  return dtypes[c].kind == 'b' ? what : NULL;
}

/* The common type's rule: what the loop computes in (*loop) and gives (*out), or why not. */
static const char *common_rule(int rule, GpuDtype c, GpuDtype *loop, GpuDtype *out) {
  char k = dtypes[c].kind;
  *loop = *out = c;
  switch (rule) {
    case RULE_SUB:
      return no_bool(c, "bool arrays cannot be subtracted or negated: use gpu.logical_xor "
                        "or gpu.logical_not");
    case RULE_DIV:
      *loop = *out = k == 'f' || k == 'c' ? c : DT_FLOAT64;
      return NULL;
    case RULE_INTDIV: case RULE_SHIFT:
      if (rule == RULE_SHIFT && (k == 'f' || k == 'c')) return "shifts need integer arrays, not float";
      if (k == 'b') *loop = *out = DT_INT8;
      return NULL;
    case RULE_BITWISE:
      return k == 'f' || k == 'c' ? "bitwise operations need integer or bool arrays, not float" : NULL;
    case RULE_SIGN:
      return no_bool(c, "not defined for bool arrays (as in NumPy)");
    case RULE_INTEGER:
      return k == 'i' || k == 'u' ? NULL : "takes integer arrays only, as NumPy's";
    case RULE_FLOAT64:
      *loop = *out = k == 'c' ? DT_COMPLEX128 : DT_FLOAT64;
      return NULL;
    case RULE_ROUND:
      if (k == 'b') *loop = *out = DT_FLOAT16;
      return NULL;
    default:
      return NULL;
  }
}

#define NO_COMMON(a, b) a " and " b " have no common integer type (NumPy promotes them to float64)"
static const char *const no_common[2][4] = {   /* [uint64 first?][the signed type: int8 .. int64] */
  {NO_COMMON("int8", "uint64"), NO_COMMON("int16", "uint64"),
   NO_COMMON("int32", "uint64"), NO_COMMON("int64", "uint64")},
  {NO_COMMON("uint64", "int8"), NO_COMMON("uint64", "int16"),
   NO_COMMON("uint64", "int32"), NO_COMMON("uint64", "int64")}};

/* Why an operation of integers alone has no integer type to compute in (uint64 with a signed
 * array, whose common type is float64), or NULL: a float or complex operand is the reason. */
static const char *no_common_integer(int nin, const Operand *ops) {
  if (nin != 2 || ops[0].kind != OPK_ARRAY || ops[1].kind != OPK_ARRAY) return NULL;
  const DtypeInfo *x = &dtypes[ops[0].dtype], *y = &dtypes[ops[1].dtype];
  if (!((x->kind == 'u' && y->kind == 'i') || (x->kind == 'i' && y->kind == 'u'))) return NULL;
  size_t size = x->kind == 'i' ? x->size : y->size;
  return no_common[x->kind == 'u'][size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3];
}

const char *resolve_types(int rule, int nin, Operand *ops, GpuDtype *out) {
  GpuDtype c = result_type(nin, ops), loop = c;
  const char *err = NULL;
  switch (rule) {
    case RULE_COMPARE: {   /* integers exactly in their own types (uint64 with a signed type
                            * too, whose common type is float64); floats in the common one */
      int exact = 1;
      for (int i = 0; i < nin; i++) {
        GpuDtype own = ops[i].kind == OPK_ARRAY ? ops[i].dtype : scalar_own(&ops[i]);
        if (dtypes[own].kind == 'f' || dtypes[own].kind == 'c') exact = 0;
      }
      for (int i = 0; i < nin; i++)
        ops[i].loop = !exact ? c : ops[i].kind == OPK_ARRAY ? ops[i].dtype : scalar_own(&ops[i]);
      *out = DT_BOOL;
      return NULL;
    }
    case RULE_LOGICAL: case RULE_PREDICATE:
      for (int i = 0; i < nin; i++)
        ops[i].loop = ops[i].kind == OPK_ARRAY ? ops[i].dtype : scalar_own(&ops[i]);
      *out = DT_BOOL;
      return NULL;
    case RULE_WHERE:
      ops[0].loop = ops[0].kind == OPK_ARRAY ? ops[0].dtype : scalar_own(&ops[0]);
      c = result_type(2, ops + 1);
      ops[1].loop = ops[2].loop = *out = c;
      return NULL;
    case RULE_FLOAT:   /* the smallest float every input converts to exactly */
      if (dtypes[c].kind != 'f' && dtypes[c].kind != 'c') {   /* a weak scalar counts as the common type */
        GpuDtype f = DT_FLOAT16;
        for (int i = 0; i < nin; i++) {
          GpuDtype g = float_for(ops[i].kind == OPK_ARRAY ? ops[i].dtype : c);
          if (dtypes[g].size > dtypes[f].size) f = g;
        }
        c = f;
      }
      for (int i = 0; i < nin; i++) ops[i].loop = c;
      *out = c;
      return NULL;
    default:
      err = common_rule(rule, c, &loop, out);
      if (err && dtypes[c].kind == 'f') {
        const char *why = no_common_integer(nin, ops);
        if (why) err = why;
      }
      for (int i = 0; i < nin; i++) ops[i].loop = loop;
      return err;
  }
}
