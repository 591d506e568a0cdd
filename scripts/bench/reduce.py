# reduce.py: what scripts/bench/reduce.lua measures, with numba's cuda.reduce and CuPy's
# cp.sum (ms a call, median of 5 rounds). "-> number" waits for the result at every call
# (numba's host scalar, float(cp.sum(x))); "-> res" leaves it in a device array.
import time
import numpy
numpy.row_stack = numpy.vstack   # numba-cuda on numpy 2 needs it before the import
import cupy as cp
from numba import cuda

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
    print("%s\t%.4f" % (name, times[2]), flush=True)

N = 1 << 24
rs = cp.random.default_rng(1)
x, xs = rs.uniform(-1, 1, N, dtype=cp.float32), rs.uniform(-1, 1, 1024, dtype=cp.float32)
nx, nxs = cuda.as_cuda_array(x), cuda.as_cuda_array(xs)
res = cp.empty(1, cp.float32)
nres = cuda.as_cuda_array(res)

t0 = time.perf_counter()
nb_sum = cuda.reduce(lambda a, b: a + b)
nb_sum(nxs)
print("numba first call (compile)\t%.3f" % ((time.perf_counter() - t0) * 1e3))
nb_max = cuda.reduce(lambda a, b: max(a, b))
for a, na, n, reps in ((x, nx, N, 20), (xs, nxs, 1024, 200)):
    bench("numba sum float32 %d -> number" % n, lambda: nb_sum(na), reps)
    bench("numba sum float32 %d -> res" % n, lambda: nb_sum(na, res=nres), reps)
    bench("numba max float32 %d -> res" % n, lambda: nb_max(na, res=nres, init=-numpy.inf), reps)
    bench("cupy float(cp.sum) float32 %d -> number" % n, lambda: float(cp.sum(a)), reps)
    bench("cupy cp.sum float32 %d -> res" % n, lambda: cp.sum(a, out=res[0]), reps)
