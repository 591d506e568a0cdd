/* opdefs.c: the built-in elementwise operations: each one's name (gpu.<name> and a method
 * of arrays), number of inputs, type rule (promote.c), function of kernels/ops/ew.cuh,
 * operator, and what complex operands do. ops.c makes them. No Lua here. */
#include "gpu.h"

enum { CX = UFUNC_CX_YES, NOCX = UFUNC_CX_NO, REAL = UFUNC_CX_REAL };
const OpDef ops_builtins[] = {
  {"add", 2, RULE_ARITH, "ew::add", "__add", CX},
  {"subtract", 2, RULE_SUB, "ew::subtract", "__sub", CX},
  {"multiply", 2, RULE_ARITH, "ew::multiply", "__mul", CX},
  {"divide", 2, RULE_DIV, "ew::divide", "__div", CX},
  {"floor_divide", 2, RULE_INTDIV, "ew::floor_divide", "__idiv", NOCX},
  {"remainder", 2, RULE_INTDIV, "ew::remainder", "__mod", NOCX},
  {"pow", 2, RULE_INTDIV, "ew::power", "__pow", CX},
  {"negative", 1, RULE_SUB, "ew::negative", "__unm", CX},
  {"bitwise_and", 2, RULE_BITWISE, "ew::bitwise_and", "__band", NOCX},
  {"bitwise_or", 2, RULE_BITWISE, "ew::bitwise_or", "__bor", NOCX},
  {"bitwise_xor", 2, RULE_BITWISE, "ew::bitwise_xor", "__bxor", NOCX},
  {"invert", 1, RULE_BITWISE, "ew::invert", "__bnot", NOCX},
  {"left_shift", 2, RULE_SHIFT, "ew::left_shift", "__shl", NOCX},
  {"right_shift", 2, RULE_SHIFT, "ew::right_shift", "__shr", NOCX},
  {"eq", 2, RULE_COMPARE, "ew::eq", NULL, CX}, {"ne", 2, RULE_COMPARE, "ew::ne", NULL, CX},
  {"lt", 2, RULE_COMPARE, "ew::lt", NULL, CX}, {"le", 2, RULE_COMPARE, "ew::le", NULL, CX},
  {"gt", 2, RULE_COMPARE, "ew::gt", NULL, CX}, {"ge", 2, RULE_COMPARE, "ew::ge", NULL, CX},
  {"logical_and", 2, RULE_LOGICAL, "ew::logical_and", NULL, CX},
  {"logical_or", 2, RULE_LOGICAL, "ew::logical_or", NULL, CX},
  {"logical_xor", 2, RULE_LOGICAL, "ew::logical_xor", NULL, CX},
  {"logical_not", 1, RULE_LOGICAL, "ew::logical_not", NULL, CX},
  {"where", 3, RULE_WHERE, "ew::where", NULL, CX},
  {"maximum", 2, RULE_ARITH, "ew::maximum", NULL, CX},
  {"minimum", 2, RULE_ARITH, "ew::minimum", NULL, CX},
  {"_clip", 3, RULE_ARITH, "ew::clip", NULL, CX},
  {"atan2", 2, RULE_FLOAT, "ew::atan2", NULL, NOCX},
  {"sqrt", 1, RULE_FLOAT, "ew::sqrt", NULL, CX}, {"exp", 1, RULE_FLOAT, "ew::exp", NULL, CX},
  {"exp2", 1, RULE_FLOAT, "ew::exp2", NULL, CX}, {"log", 1, RULE_FLOAT, "ew::log", NULL, CX},
  {"log2", 1, RULE_FLOAT, "ew::log2", NULL, CX}, {"log10", 1, RULE_FLOAT, "ew::log10", NULL, CX},
  {"log1p", 1, RULE_FLOAT, "ew::log1p", NULL, CX}, {"expm1", 1, RULE_FLOAT, "ew::expm1", NULL, CX},
  {"sin", 1, RULE_FLOAT, "ew::sin", NULL, CX}, {"cos", 1, RULE_FLOAT, "ew::cos", NULL, CX},
  {"tan", 1, RULE_FLOAT, "ew::tan", NULL, CX}, {"asin", 1, RULE_FLOAT, "ew::asin", NULL, CX},
  {"acos", 1, RULE_FLOAT, "ew::acos", NULL, CX}, {"atan", 1, RULE_FLOAT, "ew::atan", NULL, CX},
  {"sinh", 1, RULE_FLOAT, "ew::sinh", NULL, CX}, {"cosh", 1, RULE_FLOAT, "ew::cosh", NULL, CX},
  {"tanh", 1, RULE_FLOAT, "ew::tanh", NULL, CX},
  {"abs", 1, RULE_KEEP, "ew::abs", NULL, REAL}, {"sign", 1, RULE_SIGN, "ew::sign", NULL, CX},
  {"floor", 1, RULE_KEEP, "ew::floor", NULL, NOCX}, {"ceil", 1, RULE_KEEP, "ew::ceil", NULL, NOCX},
  {"trunc", 1, RULE_KEEP, "ew::trunc", NULL, NOCX}, {"round", 1, RULE_ROUND, "ew::round", NULL, CX},
  {"isnan", 1, RULE_PREDICATE, "ew::isnan", NULL, CX},
  {"isinf", 1, RULE_PREDICATE, "ew::isinf", NULL, CX},
  {"isfinite", 1, RULE_PREDICATE, "ew::isfinite", NULL, CX},
  {"real", 1, RULE_KEEP, "ew::real", NULL, REAL}, {"imag", 1, RULE_KEEP, "ew::imag", NULL, REAL},
  {"conj", 1, RULE_INTDIV, "ew::conj", NULL, CX},
  {"asinh", 1, RULE_FLOAT, "ew::asinh", NULL, CX}, {"acosh", 1, RULE_FLOAT, "ew::acosh", NULL, CX},
  {"atanh", 1, RULE_FLOAT, "ew::atanh", NULL, CX}, {"cbrt", 1, RULE_FLOAT, "ew::cbrt", NULL, NOCX},
  {"hypot", 2, RULE_FLOAT, "ew::hypot", NULL, NOCX},
  /* C's (and scipy.special's erf, erfc, gammaln, gamma): not NumPy's, but gpu.jit has them */
  {"erf", 1, RULE_FLOAT, "ew::erf", NULL, NOCX}, {"erfc", 1, RULE_FLOAT, "ew::erfc", NULL, NOCX},
  {"lgamma", 1, RULE_FLOAT, "ew::lgamma", NULL, NOCX},
  {"tgamma", 1, RULE_FLOAT, "ew::tgamma", NULL, NOCX},
  {"copysign", 2, RULE_FLOAT, "ew::copysign", NULL, NOCX},
  {"nextafter", 2, RULE_FLOAT, "ew::nextafter", NULL, NOCX},
  {"logaddexp", 2, RULE_FLOAT, "ew::logaddexp", NULL, NOCX},
  {"logaddexp2", 2, RULE_FLOAT, "ew::logaddexp2", NULL, NOCX},
  {"deg2rad", 1, RULE_FLOAT, "ew::deg2rad", NULL, NOCX},
  {"rad2deg", 1, RULE_FLOAT, "ew::rad2deg", NULL, NOCX},
  {"sinc", 1, RULE_FLOAT, "ew::sinc", NULL, CX},
  {"heaviside", 2, RULE_FLOAT, "ew::heaviside", NULL, NOCX},
  {"rint", 1, RULE_FLOAT, "ew::round", NULL, CX},
  {"fabs", 1, RULE_FLOAT, "ew::abs", NULL, NOCX},   /* a float, unlike abs */
  {"angle", 1, RULE_FLOAT, "ew::angle", NULL, REAL},
  {"float_power", 2, RULE_FLOAT64, "ew::power", NULL, CX},
  {"square", 1, RULE_INTDIV, "ew::square", NULL, CX},
  {"reciprocal", 1, RULE_INTDIV, "ew::reciprocal", NULL, CX},
  {"fmod", 2, RULE_INTDIV, "ew::fmod", NULL, NOCX},
  {"fmax", 2, RULE_ARITH, "ew::fmax", NULL, CX}, {"fmin", 2, RULE_ARITH, "ew::fmin", NULL, CX},
  {"gcd", 2, RULE_INTEGER, "ew::gcd", NULL, NOCX}, {"lcm", 2, RULE_INTEGER, "ew::lcm", NULL, NOCX},
  {"signbit", 1, RULE_PREDICATE, "ew::signbit", NULL, NOCX},
  {"fix", 1, RULE_KEEP, "ew::trunc", NULL, NOCX},
  {"positive", 1, RULE_SIGN, "ew::identity", NULL, CX},
  {"_nan_to_num", 4, RULE_KEEP, "ew::nan_to_num", NULL, CX},   /* gpu.nan_to_num's (ops.c) */
  /* NumPy's other names, each its own ufunc so that its errors name what was called */
  {"absolute", 1, RULE_KEEP, "ew::abs", NULL, REAL}, {"conjugate", 1, RULE_INTDIV, "ew::conj", NULL, CX},
  {"arcsin", 1, RULE_FLOAT, "ew::asin", NULL, CX}, {"arccos", 1, RULE_FLOAT, "ew::acos", NULL, CX},
  {"arctan", 1, RULE_FLOAT, "ew::atan", NULL, CX}, {"arctan2", 2, RULE_FLOAT, "ew::atan2", NULL, NOCX},
  {"arcsinh", 1, RULE_FLOAT, "ew::asinh", NULL, CX}, {"arccosh", 1, RULE_FLOAT, "ew::acosh", NULL, CX},
  {"arctanh", 1, RULE_FLOAT, "ew::atanh", NULL, CX},
  {"radians", 1, RULE_FLOAT, "ew::deg2rad", NULL, NOCX},
  {"degrees", 1, RULE_FLOAT, "ew::rad2deg", NULL, NOCX},
  {"true_divide", 2, RULE_DIV, "ew::divide", NULL, CX},
  {"equal", 2, RULE_COMPARE, "ew::eq", NULL, CX}, {"not_equal", 2, RULE_COMPARE, "ew::ne", NULL, CX},
  {"less", 2, RULE_COMPARE, "ew::lt", NULL, CX}, {"less_equal", 2, RULE_COMPARE, "ew::le", NULL, CX},
  {"greater", 2, RULE_COMPARE, "ew::gt", NULL, CX},
  {"greater_equal", 2, RULE_COMPARE, "ew::ge", NULL, CX},
  /* NumPy's functions of a float's parts; lua/ufuncs.lua makes modf, frexp and ldexp of them */
  {"spacing", 1, RULE_FLOAT, "ew::spacing", NULL, NOCX},
  {"isposinf", 1, RULE_PREDICATE, "ew::isposinf", NULL, NOCX},
  {"isneginf", 1, RULE_PREDICATE, "ew::isneginf", NULL, NOCX},
  {"i0", 1, RULE_DIV, "ew::i0", NULL, NOCX},   /* integers and bool give float64, as NumPy's */
  {"_modf", 1, RULE_FLOAT, "ew::modf_frac", NULL, NOCX},
  {"_frexp", 1, RULE_FLOAT, "ew::frexp_mantissa", NULL, NOCX},
  {"_frexp_exponent", 1, RULE_FLOAT, "ew::frexp_exponent", NULL, NOCX},
  {"_ldexp", 2, RULE_FLOAT, "ew::ldexp", NULL, NOCX},
  {"_copy", 1, RULE_CAST, "ew::identity", NULL, CX},
};
const int ops_nbuiltins = (int)(sizeof ops_builtins / sizeof ops_builtins[0]);

/* gpu.special's ufuncs (scipy.special's; kernels/special.cuh), named gpu.special.<name>.
 * Two-argument ones broadcast as gpu.add; floats as sqrt's rule; no complex numbers. */
#define SPECIAL(name, nin) {name, nin, RULE_FLOAT, "sp::" name, NULL, NOCX}
const OpDef ops_special[] = {
  {"erf", 1, RULE_FLOAT, "ew::erf", NULL, NOCX}, {"erfc", 1, RULE_FLOAT, "ew::erfc", NULL, NOCX},
  {"sinc", 1, RULE_FLOAT, "ew::sinc", NULL, NOCX}, SPECIAL("gammaln", 1),
  SPECIAL("erfcx", 1), SPECIAL("erfinv", 1), SPECIAL("erfcinv", 1),
  SPECIAL("ndtr", 1), SPECIAL("ndtri", 1), SPECIAL("log_ndtr", 1),
  SPECIAL("gamma", 1), SPECIAL("loggamma", 1), SPECIAL("digamma", 1), SPECIAL("polygamma", 2),
  SPECIAL("beta", 2), SPECIAL("betaln", 2), SPECIAL("betainc", 3),
  SPECIAL("gammainc", 2), SPECIAL("gammaincc", 2),
  SPECIAL("expit", 1), SPECIAL("logit", 1), SPECIAL("log_expit", 1),
  SPECIAL("xlogy", 2), SPECIAL("xlog1py", 2), SPECIAL("entr", 1), SPECIAL("rel_entr", 2),
  SPECIAL("kl_div", 2), SPECIAL("huber", 2), SPECIAL("pseudo_huber", 2),
  SPECIAL("exp1", 1), SPECIAL("expn", 2),
  SPECIAL("i0", 1), SPECIAL("i0e", 1), SPECIAL("i1", 1), SPECIAL("i1e", 1),
  SPECIAL("k0", 1), SPECIAL("k0e", 1), SPECIAL("k1", 1), SPECIAL("k1e", 1),
  SPECIAL("j0", 1), SPECIAL("j1", 1), SPECIAL("y0", 1), SPECIAL("y1", 1),
  {"psi", 1, RULE_FLOAT, "sp::digamma", NULL, NOCX},   /* scipy's other name of digamma */
  {"_zeta", 2, RULE_FLOAT, "sp::zeta", NULL, NOCX},   /* lua/special.lua's zeta(x, q) */
  {"_riemann_zeta", 1, RULE_FLOAT, "sp::riemann_zeta", NULL, NOCX},   /* and zeta(x) */
};
#undef SPECIAL
const int ops_nspecial = (int)(sizeof ops_special / sizeof ops_special[0]);
