"""bench_numba.py: numba.cuda's figures for scripts/bench/run.sh (same names as bench.lua)."""
import statistics
import time

t0 = time.perf_counter()
import numpy as np
np.row_stack = np.vstack  # numba-cuda on the H200 machine still calls it
from numba import cuda, float32, int32

cuda.current_context()
print(f"driver_init_ms\t{(time.perf_counter() - t0) * 1e3:.4f}", flush=True)


def out(name, v):
    print(f"{name}\t{v:.4f}", flush=True)


@cuda.jit("void()")
def empty():
    pass


t = time.perf_counter()


@cuda.jit("void(float32[:], float32[:], float32[:], int32)")
def args(a, b, c, n):
    pass


out("compile_first_ms", (time.perf_counter() - t) * 1e3)


@cuda.jit
def vecadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


t = time.perf_counter()


@cuda.jit("void(float32[:], float32[:], float32[:])")
def vecadd2(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


out("compile_cold_ms", (time.perf_counter() - t) * 1e3)


def per_launch(f, n=20000):
    f()
    cuda.synchronize()
    ts = []
    for _ in range(7):
        s = time.perf_counter()
        for _ in range(n):
            f()
        cuda.synchronize()
        ts.append((time.perf_counter() - s) / n * 1e6)
    return statistics.median(ts)


a3 = cuda.to_device(np.zeros(1024, np.float32))
b3 = cuda.to_device(np.zeros(1024, np.float32))
c3 = cuda.to_device(np.zeros(1024, np.float32))
out("launch_empty_us", per_launch(lambda: empty[1, 32]()))
out("launch_args_us", per_launch(lambda: args[1, 32](a3, b3, c3, 1024), 5000))


def device_ms(f, reps):
    f()
    e0, e1 = cuda.event(), cuda.event()
    ts = []
    for _ in range(5):
        e0.record()
        for _ in range(reps):
            f()
        e1.record()
        e1.synchronize()
        ts.append(cuda.event_elapsed_time(e0, e1) / reps)
    return statistics.median(ts)


n = 2**24 + 11
a = cuda.to_device(np.random.uniform(-1, 1, n).astype(np.float32))
b = cuda.to_device(np.random.uniform(-1, 1, n).astype(np.float32))
c = cuda.device_array(n, np.float32)
grid = (n + 255) // 256
ms = device_ms(lambda: vecadd[grid, 256](a, b, c), 20)
out("vecadd_GBps", 12 * n / (ms * 1e-3) / 1e9)


def wall(f, reps):
    f()
    ts = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        cuda.synchronize()
        ts.append(time.perf_counter() - s)
    return statistics.median(ts)


M = 2**26
nbytes = 4 * M
host = np.ones(M, np.float32)
dev = cuda.to_device(host)
out("h2d_GBps", nbytes / wall(lambda: cuda.to_device(host), 9) / 1e9)
out("d2h_new_GBps", nbytes / wall(lambda: dev.copy_to_host(), 9) / 1e9)
hp = cuda.pinned_array(M, np.float32)
out("d2h_GBps", nbytes / wall(lambda: dev.copy_to_host(hp), 9) / 1e9)

cycles = 100000
s = time.perf_counter()
for _ in range(cycles):
    t_ = cuda.device_array(2**18, np.float32)
    del t_
cuda.synchronize()
out("alloc_free_us", (time.perf_counter() - s) / cycles * 1e6)
