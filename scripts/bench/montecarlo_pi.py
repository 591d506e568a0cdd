"""montecarlo_pi.py: numba's documentation example of random numbers in a kernel (Monte
Carlo integration of pi with numba.cuda.random), printing the lines that
scripts/montecarlo_pi_jit.lua prints, for a side-by-side run on one GPU:
    python3 scripts/bench/montecarlo_pi.py [states for the timings, default 10^7]
numba makes the states one after the other on the CPU; gpuhost on the device."""
import sys
import time

import numpy as np
np.row_stack = np.vstack  # numba-cuda on the H200 machine still calls it
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


@cuda.jit
def compute_pi(rng_states, iterations, out):
    """out[t]: 4 times the share of thread t's random points in the quarter circle"""
    thread_id = cuda.grid(1)

    # the share of points of the unit square that fall in the quarter circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x**2 + y**2 <= 1.0:
            inside += 1

    out[thread_id] = 4.0 * inside / iterations


threads_per_block = 64
blocks = 24
rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
out = np.zeros(threads_per_block * blocks, dtype=np.float32)

compute_pi[blocks, threads_per_block](rng_states, 10000, out)
print(f"pi: {out.astype(np.float64).mean():.9g}")
print(f"out[1..3]: {out[0]:.9g} {out[1]:.9g} {out[2]:.9g}")


def ms(f):
    cuda.synchronize()
    t = time.perf_counter()
    f()
    cuda.synchronize()
    return (time.perf_counter() - t) * 1e3


n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**7
for k in (10**6, n):
    def make(k=k):
        global rng_states
        rng_states = create_xoroshiro128p_states(k, seed=1)
    print(f"create_xoroshiro128p_states({k})_ms\t{ms(make):.1f}")
threads = n // 256 * 256  # whole blocks (numba checks no bounds), one state each
out = cuda.device_array(threads, dtype=np.float32)
iterations = 100
compute_pi[threads // 256, 256](rng_states, iterations, out)  # compiled and warm
times = sorted(ms(lambda: compute_pi[threads // 256, 256](rng_states, iterations, out)) for _ in range(7))
print(f"compute_pi({threads} threads, {iterations} iterations)_ms\t{times[3]:.2f} (median of 7)")
print(f"pi ({threads * iterations * 2} points): {out.copy_to_host().astype(np.float64).mean():.9g}")
