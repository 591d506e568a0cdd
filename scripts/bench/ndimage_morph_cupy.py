# ndimage_morph_cupy.py: what scripts/bench/ndimage_morph.lua measures, with
# cupyx.scipy.ndimage: "name<TAB>ms a call", median of 5 rounds.
import cupy as cp
import cupyx.scipy.ndimage as ndi

from timing import bench

g = 4096
img = cp.random.default_rng(1).uniform(0, 1, (g, g)).astype(cp.float32)
smooth = ndi.gaussian_filter(img, 4)
blobs = smooth > smooth.mean()
noise = img > 0.5
s8 = ndi.generate_binary_structure(2, 2)
st = cp.array([[0, 1, 0], [1, 2, 1], [0, 1, 0]], cp.float64)
bench("binary_erosion %d^2 cross" % g, lambda: ndi.binary_erosion(noise), 20)
bench("binary_dilation %d^2 3x3 iterations=5" % g, lambda: ndi.binary_dilation(noise, s8, iterations=5, brute_force=True), 10)
try:   # (CuPy 14 repeats dilations only by brute force: it may refuse)
    bench("binary_fill_holes %d^2 blobs" % g, lambda: ndi.binary_fill_holes(blobs), 3)
except NotImplementedError as e:
    print("binary_fill_holes %d^2 blobs\tn/a (%s)" % (g, e))
bench("grey_erosion %d^2 size=3" % g, lambda: ndi.grey_erosion(img, 3), 20)
bench("grey_dilation %d^2 3x3 structure" % g, lambda: ndi.grey_dilation(img, footprint=cp.ones((3, 3), bool), structure=st), 20)   # CuPy 14 wants a footprint beside a structure (scipy makes it of ones)
bench("white_tophat %d^2 size=5" % g, lambda: ndi.white_tophat(img, 5), 10)
bench("label %d^2 noise" % g, lambda: ndi.label(noise), 10)
bench("label %d^2 blobs 8-connected" % g, lambda: ndi.label(blobs, s8), 10)
labels, n = ndi.label(blobs)
index = cp.arange(1, n + 1, dtype=cp.int32)
print("(%d blobs)" % n)
bench("sum_labels %d^2 %d labels" % (g, n), lambda: ndi.sum_labels(img, labels, index), 10)
bench("maximum %d^2 %d labels" % (g, n), lambda: ndi.maximum(img, labels, index), 10)
bench("center_of_mass %d^2 %d labels" % (g, n), lambda: ndi.center_of_mass(img, labels, index), 5)
bench("find_objects %d^2 %d labels" % (g, n), lambda: ndi.find_objects(labels), 5)
bench("find_objects %d^2 %d labels max_label" % (g, n), lambda: ndi.find_objects(labels, n), 5)
# distance transforms: to the nearest false of a random mask (half false) and of the blobs'
# background (far fewer, farther zeros)
bench("distance_transform_edt %d^2 noise" % g, lambda: ndi.distance_transform_edt(noise), 5)
bench("distance_transform_edt %d^2 noise return_indices" % g,
      lambda: ndi.distance_transform_edt(noise, return_indices=True), 5)
bench("distance_transform_edt %d^2 blobs" % g, lambda: ndi.distance_transform_edt(blobs), 5)
try:   # (CuPy may not have the chamfer transform)
    bench("distance_transform_cdt %d^2 blobs" % g, lambda: ndi.distance_transform_cdt(blobs), 5)
except (AttributeError, NotImplementedError) as e:
    print("distance_transform_cdt %d^2 blobs\tn/a (%s)" % (g, e))
# (the exact passes' harder cases: zeros 1 in 10^4, a single zero, and a sampling)
sparse = img < 0.9999
single = cp.ones((g, g), bool)
single[g // 2 - 1, g // 3 - 1] = False
bench("distance_transform_edt %d^2 sparse" % g, lambda: ndi.distance_transform_edt(sparse), 5)
bench("distance_transform_edt %d^2 one zero" % g, lambda: ndi.distance_transform_edt(single), 5)
bench("distance_transform_edt %d^2 noise sampling" % g,
      lambda: ndi.distance_transform_edt(noise, sampling=(1, 1.3)), 5)
