# newfuncs_cupy.py: CuPy doing what scripts/bench/newfuncs.lua does, under the same names
# (ms a call, median of 5 rounds); a function this CuPy lacks prints "-"
import time
import cupy as cp

def bench(name, f, reps):
    try:
        f(); cp.cuda.Device().synchronize()
    except (AttributeError, NotImplementedError, TypeError) as e:
        print("%s\t- (%s)" % (name, type(e).__name__), flush=True)
        return
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) / reps * 1e3)
    times.sort()
    print("%s\t%.3f" % (name, times[2]), flush=True)

N, M = 2048, 10**7
rs = cp.random.default_rng(1)
ia = rs.integers(-100, 100, (N, N), dtype=cp.int32)
bench("matmul int32 %d" % N, lambda: ia @ ia, 5)
x, y = rs.standard_normal((64, 256, 256), dtype=cp.float32), rs.standard_normal((64, 256, 256), dtype=cp.float32)
bench("einsum bij,bjk->bik 64x256x256", lambda: cp.einsum("bij,bjk->bik", x, y), 10)
u, v = rs.standard_normal((4096, 1024), dtype=cp.float32), rs.standard_normal((4096, 1024), dtype=cp.float32)
bench("einsum ij,ij->i 4096x1024", lambda: cp.einsum("ij,ij->i", u, v), 10)
g = rs.standard_normal((512, 512))
bench("eigvals 512", lambda: cp.linalg.eigvals(g), 2)
bench("eig 512", lambda: cp.linalg.eig(g), 2)
ta, tb = rs.standard_normal((4096, 256)), rs.standard_normal(4096)
bench("lstsq 4096x256", lambda: cp.linalg.lstsq(ta, tb, rcond=None), 3)
bench("gamma(2) %d" % M, lambda: cp.random.gamma(2, 1, M, dtype=cp.float32), 5)
bench("poisson(5) %d" % M, lambda: cp.random.poisson(5, M), 5)
bench("binomial(100, 0.3) %d" % M, lambda: cp.random.binomial(100, 0.3, M), 5)
s1, s2 = rs.integers(0, 1 << 20, M // 10), rs.integers(0, 1 << 20, M // 10)
bench("union1d %d" % (M // 10), lambda: cp.union1d(s1, s2), 3)
bench("intersect1d %d" % (M // 10), lambda: cp.intersect1d(s1, s2), 3)
bench("intersect1d %d, return_indices" % (M // 10), lambda: cp.intersect1d(s1, s2, return_indices=True), 3)
img = rs.standard_normal((4096, 4096), dtype=cp.float32)
bench("fftshift 4096x4096", lambda: cp.fft.fftshift(img), 10)
bench("rfft2 4096x4096", lambda: cp.fft.rfft2(img), 5)
bench("gradient 4096x4096", lambda: cp.gradient(img), 5)
