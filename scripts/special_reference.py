# special_reference.py: the reference tables of spec/special_spec.lua (ONE, TWO, RIEMANN,
# BETAINC, EDGES, F32), printed as Lua from scipy.special (1.11) and, at four points where scipy is off, mpmath's
# values. Run: python3 scripts/special_reference.py, and paste its output over the tables.
import numpy as np, scipy.special as sc
np.seterr(all='ignore')
inf, nan = np.inf, np.nan
def lua(v):
    v = float(v)
    if np.isnan(v): return "nan"
    if np.isinf(v): return "inf" if v > 0 else "-inf"
    r = repr(v)
    return r
one = {
 'erf': (sc.erf, [0, -0.5, 1e-20, 2.5, -6, inf, -inf, nan]),
 'erfc': (sc.erfc, [0, -0.5, 1e-20, 2.5, 10, 26, -inf, nan]),
 'erfcx': (sc.erfcx, [0, -0.5, 1e-20, 2.5, 10, 30, 1e10, -10, -30, inf, -inf, nan]),
 'erfinv': (sc.erfinv, [0, 0.5, -0.9, 0.999999, 1e-30, 1, -1, 1.5, nan]),
 'erfcinv': (sc.erfcinv, [1, 0.5, 1.9, 1e-100, 1e-300, 0, 2, -0.1, 2.5, nan]),
 'ndtr': (sc.ndtr, [0, 1, -1, -10, 5, -20, inf, -inf, nan]),
 'ndtri': (sc.ndtri, [0.5, 0.975, 0.025, 1e-10, 1e-300, 1 - 1e-12, 0, 1, -0.5, nan]),
 'log_ndtr': (sc.log_ndtr, [0, 1, -1, -10, -100, -1e5, 5, inf, -inf, nan]),
 'gamma': (sc.gamma, [0.5, 5, 171.5, 1e-10, -0.5, -2.5, -100.5, 0, -1, -3, 180, inf, nan]),
 'gammaln': (sc.gammaln, [0.5, 5, 1e-10, -0.5, -2.5, 1e300, 0, -1, inf, nan]),
 'loggamma': (sc.loggamma, [0.5, 5, 1e-10, 1e300, 100.25, 0, -0.5, inf, nan]),
 'digamma': (sc.psi, [1, 0.5, 1.4616321449683622, 1.5, 10.5, 1e-10, -0.5, -2.25, 1e300, 0, -1, inf, nan]),
 'expit': (sc.expit, [0, 1, -1, 40, -40, -700, inf, -inf, nan]),
 'logit': (sc.logit, [0.5, 0.25, 0.9, 1e-10, 0.50001, 0, 1, -0.5, nan]),
 'log_expit': (sc.log_expit, [0, 1, -1, 40, -40, -800, 800, inf, -inf, nan]),
 'entr': (sc.entr, [0, 0.5, 1, 10, -1, inf, nan]),
 'exp1': (sc.exp1, [1e-10, 0.5, 1, 2.5, 50, 700, 0, -1, inf, nan]),
 'sinc': (sc.sinc, [0, 0.5, 1.5, -2.25]),
 'i0': (sc.i0, [0, 1, -2.5, 20, 25, 700, nan]),
 'i0e': (sc.i0e, [0, 1, -2.5, 20, 25, 1e4, inf, nan]),
 'i1': (sc.i1, [0, 1, -2.5, 20, 25, 700, 1e-300, nan]),
 'i1e': (sc.i1e, [0, 1, -2.5, 20, 25, 1e4, inf, -inf, nan]),
 'k0': (sc.k0, [1e-300, 0.5, 1, 1.5, 2, 10, 700, 0, -1, inf, nan]),
 'k0e': (sc.k0e, [1e-10, 0.5, 1, 1.5, 2, 10, 1e4, 0, -1, inf, nan]),
 'k1': (sc.k1, [1e-300, 0.5, 1, 1.5, 2, 10, 700, 0, -1, inf, nan]),
 'k1e': (sc.k1e, [1e-10, 0.5, 1, 1.5, 2, 10, 1e4, 0, -1, inf, nan]),
 'j0': (sc.j0, [0, 1, -3, 10.5, 100.25, nan]),
 'j1': (sc.j1, [0, 1, -3, 10.5, 100.25, nan]),
 'y0': (sc.y0, [1e-10, 1, 3, 10.5, 100.25, 0, -1, nan]),
 'y1': (sc.y1, [1e-10, 1, 3, 10.5, 100.25, 0, -1, nan]),
}
two = {
 'polygamma': (sc.polygamma, [(0, 1), (1, 1), (1, 0.5), (2, 3.5), (3, 10), (1, -0.5), (4, -2.25), (1, 1e-5), (1, 0), (2, 0), (1, -1), (-1, 1), (1.5, 1), (nan, 1), (1, nan)]),
 'beta': (sc.beta, [(1, 1), (0.5, 0.5), (2.5, 3.25), (100, 50), (1e-10, 1), (-0.5, 2), (-1.5, 0.25), (1e6, 1), (300, 300.5), (0, 1), (-1, 2), (nan, 1)]),
 'betaln': (sc.betaln, [(1, 1), (0.5, 0.5), (2.5, 3.25), (100, 50), (1e-10, 1), (-0.5, 2), (1e6, 1e6), (1e10, 2.5), (0, 1), (nan, 1)]),
 'gammainc': (sc.gammainc, [(1, 1), (0.5, 2), (3, 0.1), (10, 10), (100, 90), (1000, 1100), (1e-3, 0.5), (25, 1e-5), (5, 100), (0, 1), (1, 0), (0, 0), (-1, 1), (1, -1), (1, inf), (inf, 1), (nan, 1)]),
 'gammaincc': (sc.gammaincc, [(1, 1), (0.5, 2), (3, 0.1), (10, 10), (100, 90), (1000, 1100), (1e-3, 0.5), (0.01, 0.01), (5, 100), (0, 1), (1, 0), (0, 0), (-1, 1), (1, -1), (1, inf), (inf, 1), (nan, 1)]),
 'xlogy': (sc.xlogy, [(2, 3), (0, 0), (0, -1), (0, nan), (1, 0), (-1, 0.5), (nan, 1), (1, -1)]),
 'xlog1py': (sc.xlog1py, [(2, 3), (0, -1), (0, -2), (0, nan), (1, -1), (2, 1e-20), (1, -2)]),
 'rel_entr': (sc.rel_entr, [(1, 2), (0.5, 0.25), (0, 0), (0, 1), (0, -1), (1, 0), (-1, 1), (nan, 1), (1, inf)]),
 'kl_div': (sc.kl_div, [(1, 2), (0.5, 0.25), (0, 0), (0, 1), (0, -1), (1, 0), (-1, 1), (nan, 1)]),
 'huber': (sc.huber, [(1, 0.5), (1, 2), (1, -3), (0, 1), (2.5, -1), (-1, 1), (nan, 1), (1, nan), (inf, 1)]),
 'pseudo_huber': (sc.pseudo_huber, [(1, 0.5), (1, 2), (1, -3), (0, 1), (2.5, -1), (1e-5, 3), (1, 1e-10), (-1, 1), (nan, 1), (1, nan)]),
 'expn': (sc.expn, [(0, 1), (1, 1), (2, 0.5), (5, 2.5), (10, 30), (50, 0.1), (3, 1e-10), (0, 0), (1, 0), (3, 0), (-1, 1), (1, -1), (2, inf), (nan, 1)]),
 'zeta': (sc.zeta, [(2, 1), (3, 2), (1.5, 0.5), (10, 1), (50, 3), (2, -0.5), (3, -1.5), (1.0001, 1), (1, 1), (0.5, 1), (2, 0), (2, -1), (2.5, -0.5), (nan, 1)]),
}
riemann = [2, 3, 0.5, 0, -1, -2, -2.5, -13.5, -170.5, -250.5, 1.5, 1, 0.999, 100, inf, -inf, nan]
# where scipy 1.11 is not within 1e-13 of the function: mpmath's values (40 digits)
MP = {('logit', 0.50001): 4.000000000515129228563877924648937533581e-05,
      ('beta', 1e6, 1.0): 1e-06, ('beta', 300.0, 300.5): 3.488368743253567962257786603728201794828e-182,
      ('betainc', 87.5, 97.75, 0.2): 5.426777620759241379456172598512782852682e-17}
def fix(name, args, ys):
    ys = np.array(ys, float)
    for i in range(len(ys)):
        k = (name,) + tuple(float(a[i]) for a in args)
        if k in MP: ys[i] = MP[k]
    return ys
out = ["-- made by scipy 1.11.4 at float64 (but for three values, mpmath's: see TOL below)"]
out.append("local ONE = {")
for name, (f, xs) in one.items():
    xs = np.array(xs, float)
    ys = fix(name, [xs], f(xs))
    out.append('  {"%s", {%s},\n    {%s}},' % (name, ", ".join(lua(x) for x in xs), ", ".join(lua(y) for y in ys)))
out.append("}")
out.append("local TWO = {")
for name, (f, ps) in two.items():
    a = np.array([p[0] for p in ps], float); b = np.array([p[1] for p in ps], float)
    ys = fix(name, [a, b], f(a, b))
    out.append('  {"%s", {%s}, {%s},\n    {%s}},' % (name, ", ".join(lua(x) for x in a), ", ".join(lua(x) for x in b), ", ".join(lua(y) for y in ys)))
out.append("}")
three = [(1, 1, 0.5), (2, 3, 0.3), (6.836067753241037, 0.0070545413528564005, 0.9064023551754857), (0.5, 0.5, 0.1), (10, 20, 0.4), (87.5, 97.75, 0.2), (0.1, 5, 0.99),
         (5, 0.5, 0.999), (2, 3, 0), (2, 3, 1), (0, 1, 0.5), (1, 0, 0.5), (-1, 1, 0.5), (1, 1, 1.5), (1, 1, -0.5), (inf, 1, 0.5), (1, 1, nan)]
a, b, x = (np.array([p[i] for p in three], float) for i in range(3))
out.append('local BETAINC = {{%s}, {%s}, {%s},\n  {%s}}' % tuple(", ".join(lua(v) for v in t) for t in (a, b, x, fix('betainc', [a, b, x], sc.betainc(a, b, x)))))
xs = np.array(riemann, float)
out.append('local RIEMANN = {{%s},\n  {%s}}' % (", ".join(lua(x) for x in xs), ", ".join(lua(y) for y in sc.zeta(xs))))
print("\n".join(out))
# just below and above each edge of kernels/special.cuh's expansions (scripts/gen_special_cheb.py)
nx = lambda v, d: float(np.nextafter(v, d))
both = lambda v: [nx(v, -inf), v, nx(v, inf)]
e9 = float(np.exp(-9.0))   # erfcinv's first guess changes interval at w = sqrt(-log q) = 3
edges = {
 'erfinv': (sc.erfinv, both(0.5) + both(-0.5)),
 'erfcinv': (sc.erfcinv, both(0.5) + both(1.5) + both(e9) + both(2 - e9)),
 'ndtri': (sc.ndtri, both(0.25) + both(0.75) + both(e9 / 2)),
 'erfcx': (sc.erfcx, both(1e8) + both(4.0) + [1e-300, -1e-300]),
 'i0': (sc.i0, both(8.0) + both(-8.0)), 'i0e': (sc.i0e, both(8.0) + both(-8.0)),
 'i1': (sc.i1, both(8.0) + both(-8.0)), 'i1e': (sc.i1e, both(8.0) + both(-8.0)),
 'exp1': (sc.exp1, both(0.5) + both(2.0)),
 'k0': (sc.k0, both(1.0)), 'k0e': (sc.k0e, both(1.0)), 'k1': (sc.k1, both(1.0)), 'k1e': (sc.k1e, both(1.0)),
}
out = ["local EDGES = {"]
for name, (f, xs) in edges.items():
    xs = np.array(xs, float)
    out.append('  {"%s", {%s},\n    {%s}},' % (name, ", ".join(lua(x) for x in xs), ", ".join(lua(y) for y in f(xs))))
out.append("}")
print("\n".join(out))
# float32: inputs rounded to float32 first, the float64 value of those, in float32's range
out = ["local F32 = {"]
for name, (f, xs) in one.items():
    xs = np.array([x for x in xs if np.isfinite(x)], float).astype(np.float32).astype(float)
    ys = f(xs)
    keep = np.isfinite(ys) & (np.abs(ys) < 3e38) & ((np.abs(ys) > 1.2e-38) | (ys == 0))
    xs, ys = xs[keep], ys[keep]
    out.append('  {"%s", {%s},\n    {%s}},' % (name, ", ".join(lua(x) for x in xs), ", ".join(lua(y) for y in ys)))
for name, (f, ps) in two.items():
    a = np.array([p[0] for p in ps], float).astype(np.float32).astype(float); b = np.array([p[1] for p in ps], float).astype(np.float32).astype(float)
    ys = f(a, b)
    keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(ys) & (np.abs(ys) < 3e38) & ((np.abs(ys) > 1.2e-38) | (ys == 0))
    a, b, ys = a[keep], b[keep], ys[keep]
    out.append('  {"%s", {%s}, {%s},\n    {%s}},' % (name, ", ".join(lua(x) for x in a), ", ".join(lua(x) for x in b), ", ".join(lua(y) for y in ys)))
out.append("}")
print("\n".join(out))
