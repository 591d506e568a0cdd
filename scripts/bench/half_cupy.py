# half_cupy.py: what scripts/bench/half.lua measures, with CuPy (ms a call, median of 5
# rounds; TFLOP/s for products, GB/s for memory-bound rows).
import cupy as cp

from timing import bench

N, M = 1 << 26, 8192
rs = cp.random.default_rng(1)
for dt in ("float16", "float32"):
    a = rs.uniform(-1, 1, N).astype(dt)
    b = rs.uniform(-1, 1, N).astype(dt)
    c = cp.empty(N, dt)
    es = 2 if dt == "float16" else 4
    gbs = lambda n: (lambda t: "%.0f GB/s" % (n / t / 1e9))
    bench("add %s 2^26 (out)" % dt, lambda: cp.add(a, b, out=c), 20, gbs(3 * N * es))
    bench("a * 0.5 + b %s 2^26" % dt, lambda: a * 0.5 + b, 20)
    bench("sum %s 2^26 -> number" % dt, lambda: float(a.sum()), 20, gbs(N * es))
    bench("astype float32->%s 2^26" % dt, lambda: b.astype("float32").astype(dt), 10)
    x = rs.uniform(-1, 1, (M, M)).astype(dt)
    y = rs.uniform(-1, 1, (M, M)).astype(dt)
    z = cp.empty((M, M), dt)
    bench("matmul %s %dx%d" % (dt, M, M), lambda: cp.matmul(x, y, out=z), 10,
          lambda t: "%.1f TFLOP/s" % (2 * M ** 3 / t / 1e12))
