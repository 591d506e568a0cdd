# ndimage_cupy.py: what scripts/bench/ndimage.lua measures, with cupyx.scipy.ndimage:
# "name<TAB>ms a call", median of 5 rounds; GB/s counts the input read and the output
# written once.
import cupy as cp
import cupyx.scipy.ndimage as ndi

from timing import bench

g = 4096
img = cp.random.default_rng(1).uniform(0, 1, (g, g)).astype(cp.float32)
vol = cp.random.default_rng(2).uniform(0, 1, (256, 256, 256)).astype(cp.float32)
gbs = lambda a: (lambda t: "%.0f GB/s" % (2 * a.nbytes / t / 1e9))
w9 = cp.arange(1, 10, dtype=cp.float32)
bench("correlate1d 4096^2 w9 axis=last", lambda: ndi.correlate1d(img, w9, axis=-1), 20, gbs(img))
bench("correlate1d 4096^2 w9 axis=first", lambda: ndi.correlate1d(img, w9, axis=0), 20, gbs(img))
bench("gaussian_filter 4096^2 sigma=2", lambda: ndi.gaussian_filter(img, 2), 20, gbs(img))
bench("gaussian_filter 256^3 sigma=1.5", lambda: ndi.gaussian_filter(vol, 1.5), 10, gbs(vol))
bench("uniform_filter 4096^2 size=5", lambda: ndi.uniform_filter(img, 5), 20, gbs(img))
k = cp.random.default_rng(3).uniform(0, 1, (5, 5)).astype(cp.float32)
bench("correlate 4096^2 5x5 reflect", lambda: ndi.correlate(img, k), 20, gbs(img))
bench("convolve 4096^2 5x5 constant", lambda: ndi.convolve(img, k, mode="constant"), 20, gbs(img))
bench("maximum_filter 4096^2 size=3", lambda: ndi.maximum_filter(img, 3), 20, gbs(img))
bench("median_filter 4096^2 size=3", lambda: ndi.median_filter(img, 3), 10, gbs(img))
