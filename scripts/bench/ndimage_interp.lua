-- ndimage_interp.lua: gpu.ndimage's interpolation beside cupyx.scipy.ndimage doing the same
-- (scripts/bench/ndimage_interp_cupy.py prints its figures under the same names). "name<TAB>ms
-- a call", median of 5 rounds; GB/s counts the input read and the output written once. Never
-- asserts a time. Run: build/gpuhost scripts/bench/ndimage_interp.lua; python3
-- scripts/bench/ndimage_interp_cupy.py
local nd = gpu.ndimage
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local cpu = gpu.backend() == "cpu"
local g = cpu and 256 or 4096
gpu.random.seed(1)
local img = gpu.random.uniform(0, 1, {g, g})                   -- float32
-- coordinates: every point moved by up to 2 elements, float32 as the image
local coords = gpu.random.uniform(-2, 2, {2, g, g}) + gpu.indices({g, g}):astype("float32")
local gbs = function(a, out) return function(t) return ("%.0f GB/s"):format((a.nbytes + out) / t / 1e9) end end
local n4 = g * g * 4
local r = math.floor(g * (math.cos(math.pi / 6) + 0.5) + 0.5)   -- rotate's output side
for _, o in ipairs({0, 1, 3}) do
  bench(("zoom %d^2 x1.5 order=%d"):format(g, o), function() return nd.zoom(img, 1.5, {order = o}) end, 10,
        gbs(img, math.floor(g * 1.5 + 0.5) ^ 2 * 4))
  bench(("rotate %d^2 30deg order=%d"):format(g, o), function() return nd.rotate(img, 30, {order = o}) end, 10,
        gbs(img, r * r * 4))
  bench(("map_coordinates %d^2 order=%d"):format(g, o), function() return nd.map_coordinates(img, coords, {order = o}) end, 10,
        gbs(img, n4 + 2 * n4))
  bench(("shift %d^2 (0.5, -1.25) order=%d"):format(g, o), function() return nd.shift(img, {0.5, -1.25}, {order = o}) end, 10,
        gbs(img, n4))
end
bench(("spline_filter %d^2 order=3"):format(g), function() return nd.spline_filter(img) end, 10, gbs(img, 2 * n4))
bench(("zoom %d^2 x1.5 order=3 prefilter=false"):format(g), function() return nd.zoom(img, 1.5, {prefilter = false}) end, 10,
      gbs(img, math.floor(g * 1.5 + 0.5) ^ 2 * 4))
