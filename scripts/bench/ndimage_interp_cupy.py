# ndimage_interp_cupy.py: what scripts/bench/ndimage_interp.lua measures, with
# cupyx.scipy.ndimage: "name<TAB>ms a call", median of 5 rounds; GB/s counts the input read
# and the output written once.
import math

import cupy as cp
import cupyx.scipy.ndimage as ndi

from timing import bench

g = 4096
img = cp.random.default_rng(1).uniform(0, 1, (g, g)).astype(cp.float32)
coords = (cp.random.default_rng(2).uniform(-2, 2, (2, g, g)) + cp.indices((g, g))).astype(cp.float32)
gbs = lambda a, out: (lambda t: "%.0f GB/s" % ((a.nbytes + out) / t / 1e9))
n4 = g * g * 4
r = int(g * (math.cos(math.pi / 6) + 0.5) + 0.5)  # rotate's output side
for o in (0, 1, 3):
    bench("zoom 4096^2 x1.5 order=%d" % o, lambda: ndi.zoom(img, 1.5, order=o), 10, gbs(img, 6144 ** 2 * 4))
    bench("rotate 4096^2 30deg order=%d" % o, lambda: ndi.rotate(img, 30, order=o), 10, gbs(img, r * r * 4))
    bench("map_coordinates 4096^2 order=%d" % o, lambda: ndi.map_coordinates(img, coords, order=o), 10, gbs(img, 3 * n4))
    bench("shift 4096^2 (0.5, -1.25) order=%d" % o, lambda: ndi.shift(img, (0.5, -1.25), order=o), 10, gbs(img, n4))
bench("spline_filter 4096^2 order=3", lambda: ndi.spline_filter(img), 10, gbs(img, 2 * n4))
bench("zoom 4096^2 x1.5 order=3 prefilter=false", lambda: ndi.zoom(img, 1.5, prefilter=False), 10, gbs(img, 6144 ** 2 * 4))
