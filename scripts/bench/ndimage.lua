-- ndimage.lua: gpu.ndimage's filters beside cupyx.scipy.ndimage doing the same
-- (scripts/bench/ndimage_cupy.py prints its figures under the same names). "name<TAB>ms a
-- call", median of 5 rounds; GB/s counts the input read and the output written once. Never
-- asserts a time. Run: build/gpuhost scripts/bench/ndimage.lua; python3 scripts/bench/ndimage_cupy.py
local nd = gpu.ndimage
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local cpu = gpu.backend() == "cpu"
local g, v = cpu and 256 or 4096, cpu and 32 or 256
gpu.random.seed(1)
local img = gpu.random.uniform(0, 1, {g, g})               -- float32
local vol = gpu.random.uniform(0, 1, {v, v, v})
local gbs = function(a) return function(t) return ("%.0f GB/s"):format(2 * a.nbytes / t / 1e9) end end
local w9 = {1, 2, 3, 4, 5, 6, 7, 8, 9}
bench(("correlate1d %d^2 w9 axis=last"):format(g), function() return nd.correlate1d(img, w9, -1) end, 20, gbs(img))
bench(("correlate1d %d^2 w9 axis=first"):format(g), function() return nd.correlate1d(img, w9, 1) end, 20, gbs(img))
bench(("gaussian_filter %d^2 sigma=2"):format(g), function() return nd.gaussian_filter(img, 2) end, 20, gbs(img))
bench(("gaussian_filter %d^3 sigma=1.5"):format(v), function() return nd.gaussian_filter(vol, 1.5) end, 10, gbs(vol))
bench(("uniform_filter %d^2 size=5"):format(g), function() return nd.uniform_filter(img, 5) end, 20, gbs(img))
local k = gpu.random.uniform(0, 1, {5, 5})
bench(("correlate %d^2 5x5 reflect"):format(g), function() return nd.correlate(img, k) end, 20, gbs(img))
bench(("convolve %d^2 5x5 constant"):format(g), function() return nd.convolve(img, k, {mode = "constant"}) end, 20, gbs(img))
bench(("maximum_filter %d^2 size=3"):format(g), function() return nd.maximum_filter(img, 3) end, 20, gbs(img))
bench(("median_filter %d^2 size=3"):format(g), function() return nd.median_filter(img, 3) end, 10, gbs(img))
