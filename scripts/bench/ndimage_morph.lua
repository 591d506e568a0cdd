-- ndimage_morph.lua: gpu.ndimage's morphology and measurements beside cupyx.scipy.ndimage
-- doing the same (scripts/bench/ndimage_morph_cupy.py prints its figures under the same
-- names). "name<TAB>ms a call", median of 5 rounds. Never asserts a time. Run:
-- build/gpuhost scripts/bench/ndimage_morph.lua; python3 scripts/bench/ndimage_morph_cupy.py
local nd = gpu.ndimage
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local g = gpu.backend() == "cpu" and 256 or 4096
gpu.random.seed(1)
local img = gpu.random.uniform(0, 1, {g, g})   -- float32
-- blobs: smoothed noise above its mean (components of a few hundred points, holes in them)
local smooth = nd.gaussian_filter(img, 4)
local blobs = smooth:gt(gpu.mean(smooth))
local noise = img:gt(0.5)
local s8 = nd.generate_binary_structure(2, 2)
local st = {{0, 1, 0}, {1, 2, 1}, {0, 1, 0}}
bench(("binary_erosion %d^2 cross"):format(g), function() return nd.binary_erosion(noise) end, 20)
bench(("binary_dilation %d^2 3x3 iterations=5"):format(g), function() return nd.binary_dilation(noise, s8, {iterations = 5}) end, 10)
bench(("binary_fill_holes %d^2 blobs"):format(g), function() return nd.binary_fill_holes(blobs) end, 3)
bench(("grey_erosion %d^2 size=3"):format(g), function() return nd.grey_erosion(img, 3) end, 20)
bench(("grey_dilation %d^2 3x3 structure"):format(g), function() return nd.grey_dilation(img, {structure = st}) end, 20)
bench(("white_tophat %d^2 size=5"):format(g), function() return nd.white_tophat(img, 5) end, 10)
bench(("label %d^2 noise"):format(g), function() return nd.label(noise) end, 10)
bench(("label %d^2 blobs 8-connected"):format(g), function() return nd.label(blobs, s8) end, 10)
local labels, n = nd.label(blobs)
local index = gpu.arange(1, n + 1, "int32")
print(("(%d blobs)"):format(n))
bench(("sum_labels %d^2 %d labels"):format(g, n), function() return nd.sum_labels(img, labels, index) end, 10)
bench(("maximum %d^2 %d labels"):format(g, n), function() return nd.maximum(img, labels, index) end, 10)
bench(("center_of_mass %d^2 %d labels"):format(g, n), function() return nd.center_of_mass(img, labels, index) end, 5)
bench(("find_objects %d^2 %d labels"):format(g, n), function() return nd.find_objects(labels) end, 5)
bench(("find_objects %d^2 %d labels max_label"):format(g, n), function() return nd.find_objects(labels, n) end, 5)
-- distance transforms: to the nearest false of a random mask (half false) and of the blobs'
-- background (far fewer, farther zeros)
bench(("distance_transform_edt %d^2 noise"):format(g), function() return nd.distance_transform_edt(noise) end, 5)
bench(("distance_transform_edt %d^2 noise return_indices"):format(g),
      function() return nd.distance_transform_edt(noise, {return_indices = true}) end, 5)
bench(("distance_transform_edt %d^2 blobs"):format(g), function() return nd.distance_transform_edt(blobs) end, 5)
bench(("distance_transform_cdt %d^2 blobs"):format(g), function() return nd.distance_transform_cdt(blobs) end, 5)
-- (the exact passes' harder cases: zeros 1 in 10^4, a single zero (a long way to the
-- nearest for most), and a sampling that rounds (its later pass by bands too, as the
-- exact ones; {1e5, 1e-3} would keep a thread a line))
local sparse = img:lt(0.9999)
local single = gpu.ones({g, g}, "bool")
single[{g // 2, g // 3}] = false
bench(("distance_transform_edt %d^2 sparse"):format(g), function() return nd.distance_transform_edt(sparse) end, 5)
bench(("distance_transform_edt %d^2 one zero"):format(g), function() return nd.distance_transform_edt(single) end, 5)
bench(("distance_transform_edt %d^2 noise sampling"):format(g),
      function() return nd.distance_transform_edt(noise, {sampling = {1, 1.3}}) end, 5)
