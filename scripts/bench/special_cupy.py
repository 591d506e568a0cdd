# special_cupy.py: what scripts/bench/special.lua measures, with cupyx.scipy.special (ms a
# call, median of 5 rounds; elements a second).
import cupy as cp
import cupyx.scipy.special as S

from timing import bench

N = 1 << 24
rate = lambda t: "%.1f Gelem/s" % (N / t / 1e9)
rs = cp.random.default_rng(1)
for dt in ("float32", "float64"):
    x = rs.uniform(0.01, 10, N).astype(dt)
    p = rs.uniform(0.001, 0.999, N).astype(dt)
    o = cp.empty(N, dt)
    for f in ("erf", "erfcx", "gamma", "gammaln", "digamma", "expit", "log_ndtr", "exp1", "i0e",
              "i1", "k0", "k1e", "j0", "y1", "i0", "i1e", "k0e", "k1"):
        bench("%s %s" % (f, dt), lambda: getattr(S, f)(x, out=o), 10, rate)
    for f in ("erfinv", "ndtri", "logit", "erfcinv"):
        bench("%s %s" % (f, dt), lambda: getattr(S, f)(p, out=o), 10, rate)
    for f in ("gammainc", "gammaincc", "beta", "betaln", "xlogy", "kl_div", "zeta", "polygamma"):
        a = 2 if f == "polygamma" else 3.5 if f == "zeta" else 2.5
        if f == "polygamma":   # CuPy's polygamma takes no out=, and its n must be an array (a Python int fails in cupy.where)
            n = cp.asarray(a)
            bench("%s %s" % (f, dt), lambda: S.polygamma(n, x), 10, rate)
        else:
            bench("%s %s" % (f, dt), lambda: getattr(S, f)(a, x, out=o), 10, rate)
    bench("betainc %s" % dt, lambda: S.betainc(2.5, 3.5, p, out=o), 10, rate)
    m = x.reshape(N >> 10, 1024)
    bench("logsumexp %s rows of 1024" % dt, lambda: S.logsumexp(m, axis=1), 10, rate)
    bench("softmax %s rows of 1024" % dt, lambda: S.softmax(m, axis=1), 10, rate)
