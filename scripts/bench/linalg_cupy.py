# linalg_cupy.py: CuPy's cupy.linalg doing what scripts/bench/linalg.lua does, under the
# same names (ms a call, median of 5 rounds)
import time
import cupy as cp

def bench(name, f, reps):
    f(); cp.cuda.Device().synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) / reps * 1e3)
    times.sort()
    print("%s\t%.3f" % (name, times[2]), flush=True)

N = 2048
rs = cp.random.default_rng(1)
a = rs.standard_normal((N, N)) + cp.eye(N) * N
spd = a @ a.T
b = rs.standard_normal((N, 16))
small = rs.standard_normal((64, 64)) + cp.eye(64) * 64
L = cp.linalg
bench("solve %d x %d, 16 rhs" % (N, N), lambda: L.solve(a, b), 5)
bench("inv %d" % N, lambda: L.inv(a), 5)
bench("det %d" % N, lambda: L.det(a), 5)
bench("cholesky %d" % N, lambda: L.cholesky(spd), 5)
bench("qr %d" % N, lambda: L.qr(a), 3)
bench("eigh %d" % N, lambda: L.eigh(spd), 2)
bench("svd %d" % N, lambda: L.svd(a), 1)
bench("inv 64", lambda: L.inv(small), 50)
B = 10000
m4 = rs.standard_normal((B, 4, 4)) + cp.eye(4) * 4
r4 = rs.standard_normal((B, 4, 1))
m32 = rs.standard_normal((B // 10, 32, 32)) + cp.eye(32) * 32
s32 = m32 @ m32.transpose(0, 2, 1)
bench("inv %d x 4 x 4" % B, lambda: L.inv(m4), 5)
bench("solve %d x 4 x 4" % B, lambda: L.solve(m4, r4), 5)
bench("det %d x 4 x 4" % B, lambda: L.det(m4), 5)
bench("inv %d x 32 x 32" % (B // 10), lambda: L.inv(m32), 5)
bench("cholesky %d x 32 x 32" % (B // 10), lambda: L.cholesky(s32), 5)
s16 = m32[:, :16, :16] @ m32[:, :16, :16].transpose(0, 2, 1)
bench("eigh %d x 16 x 16" % (B // 10), lambda: L.eigh(s16), 5)
g8 = rs.standard_normal((B, 8, 6))
bench("svd %d x 8 x 6" % B, lambda: L.svd(g8), 5)
