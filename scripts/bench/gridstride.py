# gridstride.py: numba's grid-stride loop, as scripts/bench/gridstride.lua's gpu.jit one
# (out[i] = a[i] * 2 + out[i], 2^24 float32); ms a launch, median of 21 rounds of 10.
import time
import numpy as np
np.row_stack = np.vstack  # numba-cuda on the H200 machine still calls it
from numba import cuda

n = 1 << 24


@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < a.size:
        out[i] = a[i] * 2 + out[i]
        i += step


a = cuda.to_device(np.arange(n, dtype=np.float32))
out = cuda.to_device(np.zeros(n, dtype=np.float32))


def median(f):
    t = []
    for _ in range(21):
        cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(10):
            f()
        cuda.synchronize()
        t.append((time.perf_counter() - t0) * 1e3 / 10)
    return sorted(t)[10]


for blocks in (264, 1056, 65536):
    k[blocks, 256](a, out)
    print(f"numba_blocks{blocks}\t{median(lambda: k[blocks, 256](a, out)):.4f}")
