"""algo_cupy.py: CuPy's figures for issue 11's targets, under algo.lua's names."""
import statistics
import sys

import cupy as cp

only = sys.argv[1] if len(sys.argv) > 1 else None


def out(name, v):
    print(f"{name}\t{v:.6g}", flush=True)


def device_ms(f, reps):
    f()
    cp.cuda.Device().synchronize()
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(5):
        e0.record()
        for _ in range(reps):
            f()
        e1.record()
        e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1) / reps)
    return statistics.median(ts)


def wall_us(f, n):
    import time
    f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(7):
        s = time.perf_counter()
        for _ in range(n):
            f()
        cp.cuda.Device().synchronize()
        ts.append((time.perf_counter() - s) / n * 1e6)
    return statistics.median(ts)


def want(name):
    return only is None or only == name


if want("reduce"):
    N = 2**28
    a = cp.random.uniform(-1, 1, N).astype(cp.float32)
    o = cp.zeros((), cp.float32)
    out("sum_GBps", 4 * N / (device_ms(lambda: cp.sum(a, out=o), 10) * 1e-3) / 1e9)
    out("argmax_GBps", 4 * N / (device_ms(lambda: cp.argmax(a), 10) * 1e-3) / 1e9)
    R = 2**20
    tall, wide, thin = a[:R * 256].reshape(R, 256), a[:R * 256].reshape(256, R), a[:2 * 10**6].reshape(10**6, 2)
    out("sum_tall_last_ms", device_ms(lambda: tall.sum(axis=1), 10))
    out("sum_tall_first_ms", device_ms(lambda: tall.sum(axis=0), 10))
    out("sum_wide_last_ms", device_ms(lambda: wide.sum(axis=1), 10))
    out("sum_wide_first_ms", device_ms(lambda: wide.sum(axis=0), 10))
    out("sum_thin_ms", device_ms(lambda: thin.sum(axis=1), 10))
    del a, tall, wide, thin

if want("scan"):
    N = 2**28
    a = cp.random.uniform(-1, 1, N).astype(cp.float32)
    o = cp.empty(N, cp.float32)
    out("cumsum_GBps", 8 * N / (device_ms(lambda: cp.cumsum(a, out=o), 10) * 1e-3) / 1e9)
    del a, o

if want("sort"):
    N = 2**26
    a = cp.random.uniform(-1, 1, N).astype(cp.float32)
    out("sort_values_ms", device_ms(lambda: cp.sort(a), 5))
    out("argsort_ms", device_ms(lambda: cp.argsort(a), 5))
    del a

if want("matmul"):
    M = 8192
    for dt, name in [(cp.float32, "f32"), (cp.float64, "f64")]:
        a = cp.random.uniform(-1, 1, (M, M)).astype(dt)
        b = cp.random.uniform(-1, 1, (M, M)).astype(dt)
        c = cp.empty((M, M), dt)
        ms = device_ms(lambda: cp.matmul(a, b, out=c), 5)
        out(f"matmul_{name}_TFLOPS", 2 * M**3 / (ms * 1e-3) / 1e12)
        del a, b, c
    a = cp.random.uniform(-1, 1, (64, 64)).astype(cp.float32)
    b = cp.random.uniform(-1, 1, (64, 64)).astype(cp.float32)
    out("matmul64_us", wall_us(lambda: cp.matmul(a, b), 20000))

if want("fft"):
    N = 2**24
    x = cp.random.uniform(-1, 1, N).astype(cp.complex64)
    out("fft_c64_ms", device_ms(lambda: cp.fft.fft(x), 20))
    del x
