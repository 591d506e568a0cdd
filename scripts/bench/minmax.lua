-- minmax.lua: gpu.ndimage.minimum_filter1d of 10^7 float64 values (10^6 on the CPU backend)
-- for windows from 3 to 100,001 taps, beside cupyx.scipy.ndimage doing the same
-- (scripts/bench/minmax_cupy.py prints its figures under the same names). More than 64
-- taps take the van Herk / Gil-Werman scan (README "Image filters"). "name<TAB>ms a call",
-- median of 5 rounds. Never asserts a time. Run: build/gpuhost scripts/bench/minmax.lua
local nd = gpu.ndimage
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local n = gpu.backend() == "cpu" and 1000000 or 10000000
gpu.random.seed(1)
local x = gpu.random.uniform(0, 1, n, "float64")
for _, size in ipairs({3, 65, 1001, 10001, 100001}) do
  bench(("minimum_filter1d %d float64 size=%d"):format(n, size),
        function() return nd.minimum_filter1d(x, size) end, size > 10000 and 5 or 20)
end
