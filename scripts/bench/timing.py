# timing.py: the timing loop the CuPy twins of the benchmark scripts share (half_cupy.py,
# sparse_cupy.py, ndimage_cupy.py; timing.lua is the Lua side's): bench(name, f, reps,
# rate) calls f once to warm it, then times 5 rounds of `reps` calls, each round closed by a
# synchronization, and prints "cupy name<TAB>ms a call<TAB>rate(t)" for the median round.
import time
import cupy as cp

def bench(name, f, reps, rate=None):
    f(); cp.cuda.Device().synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) / reps)
    times.sort()
    t = times[2]
    print("cupy %s\t%.4f\t%s" % (name, t * 1e3, rate(t) if rate else ""), flush=True)
