# windows_cupy.py: what scripts/bench/windows.lua measures, with cupyx.scipy.ndimage:
# "name<TAB>ms a call", median of 5 rounds.
import cupy as cp
import cupyx.scipy.ndimage as ndi

from timing import bench

n = 10000000
x = cp.random.default_rng(1).uniform(0, 1, n)
for f in ("minimum_filter1d", "uniform_filter1d"):
    for size in (3, 65, 1001, 10001, 100001):
        bench("%s %d float64 size=%d" % (f, n, size),
              lambda: getattr(ndi, f)(x, size), 5 if size > 10000 else 20)
