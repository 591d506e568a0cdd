"""bench_cupy.py: CuPy's figures for scripts/bench/run.sh (same names as bench.lua)."""
import statistics
import sys
import time

t0 = time.perf_counter()
import cupy as cp
import numpy as np

cp.cuda.Device(0).use()
cp.cuda.runtime.free(cp.cuda.runtime.malloc(1))
print(f"driver_init_ms\t{(time.perf_counter() - t0) * 1e3:.4f}")  # import + init


def out(name, v):
    print(f"{name}\t{v:.4f}", flush=True)


SRC = r'''
extern "C" __global__ void empty() {}
extern "C" __global__ void args(float *a, float *b, float *c, int n) {}
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}'''

t = time.perf_counter()
mod = cp.RawModule(code=SRC)
empty = mod.get_function("empty")
out("compile_first_ms", (time.perf_counter() - t) * 1e3)
args = mod.get_function("args")
vecadd = mod.get_function("vecadd")
t = time.perf_counter()
cp.RawModule(code=SRC.replace("vecadd", "vecadd2")).get_function("vecadd2")
out("compile_cold_ms", (time.perf_counter() - t) * 1e3)


def per_launch(f, n=20000):
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


a3, b3, c3 = cp.zeros(1024, cp.float32), cp.zeros(1024, cp.float32), cp.zeros(1024, cp.float32)
n1024 = np.int32(1024)
out("launch_empty_us", per_launch(lambda: empty((1,), (32,), ())))
out("launch_args_us", per_launch(lambda: args((1,), (32,), (a3, b3, c3, n1024))))


def device_ms(f, reps):
    f()
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


n = 2**24 + 11
a = cp.random.uniform(-1, 1, n).astype(cp.float32)
b = cp.random.uniform(-1, 1, n).astype(cp.float32)
c = cp.zeros_like(a)
grid = (n + 255) // 256
ms = device_ms(lambda: vecadd((grid,), (256,), (a, b, c, np.int32(n))), 20)
out("vecadd_GBps", 12 * n / (ms * 1e-3) / 1e9)

M = 2**26
nbytes = 4 * M
x = cp.zeros(M, cp.float32)
ms = device_ms(lambda: x.copy(), 10)
out("copy_GBps", 2 * nbytes / (ms * 1e-3) / 1e9)
for name, f in [("zeros", lambda: cp.zeros(M, cp.float32)),
                ("fill", lambda: cp.full(M, 3, cp.float32)),
                ("arange", lambda: cp.arange(M, dtype=cp.float32)),
                ("random", lambda: cp.random.random(M, dtype=cp.float32)),
                ("normal", lambda: cp.random.standard_normal(M, dtype=cp.float32))]:
    ms = device_ms(f, 10)
    out(f"{name}_GBps", nbytes / (ms * 1e-3) / 1e9)


def wall(f, reps):
    f()
    ts = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - s)
    return statistics.median(ts)


host = np.ones(M, np.float32)
dev = cp.asarray(host)
out("h2d_GBps", nbytes / wall(lambda: cp.asarray(host), 9) / 1e9)
out("d2h_new_GBps", nbytes / wall(lambda: cp.asnumpy(dev), 9) / 1e9)
pinned = cp.cuda.alloc_pinned_memory(nbytes)
hp = np.frombuffer(pinned, np.float32, M)
out("d2h_GBps", nbytes / wall(lambda: dev.get(out=hp), 9) / 1e9)
lst = [i * 0.5 for i in range(1, 2**20 + 1)]
out("table_h2d_MBps", 4 * 2**20 / wall(lambda: cp.asarray(lst, dtype=cp.float32), 5) / 1e6)

cycles = 100000
s = time.perf_counter()
for _ in range(cycles):
    t_ = cp.empty(2**18, cp.float32)
    del t_
cp.cuda.Device().synchronize()
out("alloc_free_us", (time.perf_counter() - s) / cycles * 1e6)


# array operations (gpuhost's bench.lua has the same figures)
del a, b, c, x, dev
n = 2**24 + 11
a = cp.random.uniform(-1, 1, n).astype(cp.float32)
b = cp.random.uniform(-1, 1, n).astype(cp.float32)
out("ew_add_GBps", 12 * n / (device_ms(lambda: a + b, 20) * 1e-3) / 1e9)
s1, s2 = cp.ones(1000, cp.float32), cp.ones(1000, cp.float32)
out("ew_add_small_us", per_launch(lambda: s1 + s2))
del a, b
F = 2**26
xf = cp.random.uniform(-1, 1, F).astype(cp.float32)
yf = cp.random.uniform(-1, 1, F).astype(cp.float32)


def chain(p, q):
    return ((p * 1.5 + q) * (p - q) / (q * q + 1.0) - p) * 0.5 + q


fused = cp.fuse(chain)
out("fuse10_GBps", 12 * F / (device_ms(lambda: fused(xf, yf), 10) * 1e-3) / 1e9)
out("unfused10_GBps", 12 * F / (device_ms(lambda: chain(xf, yf), 5) * 1e-3) / 1e9)
out("astype_GBps", 12 * F / (device_ms(lambda: xf.astype(cp.float64), 10) * 1e-3) / 1e9)
del xf, yf
T = cp.random.random((8192, 8192), dtype=cp.float32)
out("transpose_GBps", 8 * 8192 * 8192 / (device_ms(lambda: cp.ascontiguousarray(T.T), 10) * 1e-3) / 1e9)
del T
col = cp.random.random((8192, 1), dtype=cp.float32)
row = cp.random.random((1, 8192), dtype=cp.float32)
out("broadcast_GBps", 4 * 8192 * 8192 / (device_ms(lambda: col + row, 10) * 1e-3) / 1e9)
