# vectorize.py: what scripts/bench/vectorize.lua measures, with numba's
# @vectorize(target="cuda") and cupy.vectorize (ms a call, median of 5 rounds)
import math, time
import numpy
numpy.row_stack = numpy.vstack   # numba-cuda on numpy 2 needs it before the import
import cupy as cp
from numba import vectorize

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
x, y = rs.uniform(-1, 1, N, dtype=cp.float32), rs.uniform(-1, 1, N, dtype=cp.float32)
xs, ys = rs.uniform(-1, 1, 1024, dtype=cp.float32), rs.uniform(-1, 1, 1024, dtype=cp.float32)
out, outs = cp.empty(N, cp.float32), cp.empty(1024, cp.float32)

t0 = time.perf_counter()
@vectorize(["float32(float32, float32)"], target="cuda")
def nb_axpb(a, b):
    return a * b + 1
nb_axpb(xs, ys); cp.cuda.Device().synchronize()
print("numba first call (compile)\t%.3f" % ((time.perf_counter() - t0) * 1e3))
t0 = time.perf_counter()
cp_axpb = cp.vectorize(lambda a, b: a * b + 1)
cp_axpb(xs, ys); cp.cuda.Device().synchronize()
print("cupy first call (compile, or its cache)\t%.3f" % ((time.perf_counter() - t0) * 1e3))

@vectorize(["float32(float32)"], target="cuda")
def nb_gelu(v):
    return 0.5 * v * (1 + math.erf(v * 0.7071067811865476))
for tag, axpb, g in (("numba", lambda a, b, o: nb_axpb(a, b, out=o), lambda v, o: nb_gelu(v, out=o)),
                     ("cupy", lambda a, b, o: cp_axpb(a, b), None)):
    bench("%s a*b+1 float32 %d" % (tag, N), lambda: axpb(x, y, out), 20)
    bench("%s a*b+1 float32 1024" % tag, lambda: axpb(xs, ys, outs), 200)
    if g:
        bench("%s gelu (erf) float32 %d" % (tag, N), lambda: g(x, out), 20)
    bench("%s broadcast a*b+1 %dx1024" % (tag, N // 1024),
          lambda: axpb(x.reshape(N // 1024, 1024), ys, out.reshape(N // 1024, 1024)), 20)
