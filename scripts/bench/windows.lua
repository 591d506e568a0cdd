-- windows.lua: gpu.ndimage.minimum_filter1d and uniform_filter1d of 10^7 float64 values
-- (10^6 on the CPU backend) for windows from 3 to 100,001 taps, beside cupyx.scipy.ndimage
-- doing the same (scripts/bench/windows_cupy.py prints its figures under the same names).
-- Minima of more than 64 taps and means of more than 256 take the van Herk / Gil-Werman
-- scan (README "Image filters"). "name<TAB>ms a call", median of 5 rounds. Never asserts a
-- time. Run: build/gpuhost scripts/bench/windows.lua
local nd = gpu.ndimage
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local n = gpu.backend() == "cpu" and 1000000 or 10000000
gpu.random.seed(1)
local x = gpu.random.uniform(0, 1, n, "float64")
for _, f in ipairs({"minimum_filter1d", "uniform_filter1d"}) do
  for _, size in ipairs({3, 65, 1001, 10001, 100001}) do
    bench(("%s %d float64 size=%d"):format(f, n, size),
          function() return nd[f](x, size) end, size > 10000 and 5 or 20)
  end
end
