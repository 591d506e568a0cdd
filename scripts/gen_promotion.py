#!/usr/bin/env python3
"""gen_promotion.py: writes spec/data/promotion.lua, NumPy 2's answers on type promotion
for gpuhost's dtypes, which spec/promotion_spec.lua compares gpuhost's with:
  result_type   np.result_type of every pair of dtypes, and of a dtype with a weak Python
                int (1), float (1.5) and bool (True, written "true")
  ops           for each gpuhost operation, the dtype NumPy's ufunc gives for every dtype
                (unary) or pair of dtypes, and a dtype with weak int and float scalars
                ("error" where NumPy raises)
  overflow      weak integers out of a dtype's range, which NumPy 2 refuses
Run once with NumPy 2 (pip install numpy); the output is checked in.
Usage: python3 scripts/gen_promotion.py > spec/data/promotion.lua"""
import warnings
import numpy as np

warnings.simplefilter("ignore")
assert np.__version__.split(".")[0] == "2", "NumPy 2 is needed (NEP 50 promotion)"

DTYPES = ["float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "float16"]
# gpuhost's name -> NumPy's ufunc (np.round is not a ufunc but its types are the rule)
BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "divide": np.true_divide, "floor_divide": np.floor_divide,
          "remainder": np.remainder, "pow": np.power, "bitwise_and": np.bitwise_and,
          "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
          "left_shift": np.left_shift, "right_shift": np.right_shift, "eq": np.equal,
          "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
          "ge": np.greater_equal, "logical_and": np.logical_and,
          "logical_or": np.logical_or, "logical_xor": np.logical_xor,
          "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2}
UNARY = {"negative": np.negative, "invert": np.invert, "logical_not": np.logical_not,
         "abs": np.absolute, "sign": np.sign, "floor": np.floor, "ceil": np.ceil,
         "trunc": np.trunc, "round": np.round, "isnan": np.isnan, "isinf": np.isinf,
         "isfinite": np.isfinite}
for name in ["sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sin", "cos",
             "tan", "sinh", "cosh", "tanh"]:
    UNARY[name] = getattr(np, name)
UNARY.update({"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
              "real": np.real, "imag": np.imag, "conj": np.conjugate})


def name(dt):
    return np.dtype(dt).name


def outcome(f, *args):
    try:
        return name(f(*args).dtype)
    except (TypeError, OverflowError, ValueError):
        return "error"


def arr(dt):
    return np.ones(2, dtype=dt)


def lua_table(d, indent="  "):
    lines = []
    for k in sorted(d):
        lines.append('%s["%s"] = "%s",' % (indent, k, d[k]))
    return "\n".join(lines)


def main():
    rt = {}
    for a in DTYPES:
        for b in DTYPES:
            rt["%s,%s" % (a, b)] = name(np.result_type(np.dtype(a), np.dtype(b)))
        rt["%s,int" % a] = name(np.result_type(np.dtype(a), 1))
        rt["%s,float" % a] = name(np.result_type(np.dtype(a), 1.5))
        rt["%s,true" % a] = name(np.result_type(np.dtype(a), True))
    ops = {}
    for op, f in sorted(BINARY.items()):
        t = {}
        for a in DTYPES:
            for b in DTYPES:
                t["%s,%s" % (a, b)] = outcome(f, arr(a), arr(b))
            t["%s,int" % a] = outcome(f, arr(a), 1)
            t["int,%s" % a] = outcome(f, 1, arr(a))
            t["%s,float" % a] = outcome(f, arr(a), 1.5)
        ops[op] = t
    for op, f in sorted(UNARY.items()):
        ops[op] = {a: outcome(f, arr(a)) for a in DTYPES}
    overflow = {}
    for a in DTYPES[2:10]:   # the integer dtypes
        info = np.iinfo(a)
        for v in (int(info.max) + 1, int(info.min) - 1):
            if -2**63 <= v < 2**63:   # what a Lua integer can be
                overflow["%s,%d" % (a, v)] = outcome(np.add, arr(a), v)
    print("-- NumPy %s's type promotion for gpuhost's dtypes." % np.__version__)
    print("-- Written by scripts/gen_promotion.py; do not edit.")
    print("return {")
    print("result_type = {\n%s\n}," % lua_table(rt))
    print("ops = {")
    for op in sorted(ops):
        print("%s = {\n%s\n}," % (op, lua_table(ops[op], "    ")))
    print("},")
    print("overflow = {\n%s\n}," % lua_table(overflow))
    print("}")


main()
