# compose_cupy.py: CuPy's side of scripts/bench/compose.lua, the same calls under the same
# names (0-based indices where gpuhost's are 1-based); "name<TAB>us a call", median of 5.
import time
import cupy as cp

def bench(name, f, reps):
    f(); cp.cuda.Device().synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps): f()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) / reps * 1e6)
    print("%s\t%.1f" % (name, sorted(times)[2]), flush=True)

N = 1 << 24
cp.random.seed(1)
a = cp.random.random(N, dtype=cp.float32)
idx = cp.random.randint(0, N, N)
s = cp.sort(a); mask = a > 0.5
small = cp.random.random(1000, dtype=cp.float32); three = cp.array([0, 1, 2])
bench("take N random", lambda: cp.take(a, idx), 20)
bench("a[mask], half of N", lambda: a[mask], 20)
bench("searchsorted N in N", lambda: cp.searchsorted(s, a), 10)
bench("histogram N, 100 bins", lambda: cp.histogram(a, 100, range=(0, 1)), 20)
bench("concatenate 2 x N", lambda: cp.concatenate((a, a)), 20)
bench("take 3 of 1000", lambda: cp.take(small, three), 200)
bench("linspace 1000", lambda: cp.linspace(0, 1, 1000, dtype=cp.float32), 200)
