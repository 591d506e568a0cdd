-- ndimage_sweep.lua: gpu.ndimage's filters over dtypes, dims, modes, views, NaN, -0 and
-- ties, each result's bytes written in a row to the file arg[1], so that two builds' files
-- compare byte for byte (cmp) after a change meant to leave the numbers as they were.
-- Run: build/gpuhost scripts/check/ndimage_sweep.lua /tmp/a.bin (the CPU backend will do)
local nd = gpu.ndimage
local f = assert(io.open(assert(arg and arg[1], "usage: ndimage_sweep.lua OUT"), "wb"))
local n = 0
local function out(name, ok, r)
  n = n + 1
  if not ok then f:write(name, " error ", tostring(r), "\n"); return end
  f:write(name, " ", r.dtype, " ", table.concat(r.shape, "x"), "\n", r:tobytes(), "\n")
end
local function run(name, fn, ...) out(name, pcall(fn, ...)) end
gpu.random.seed(7)
local shapes = {{23}, {7, 9}, {5, 6, 7}}
local modes = {"reflect", "mirror", "nearest", "wrap", "constant"}
for _, dt in ipairs({"float32", "float64", "int32", "uint8", "float16", "int64"}) do
  for _, shape in ipairs(shapes) do
    -- small integers: ties; for floats a NaN, a -0 and zeros in some of them
    local base = gpu.floor(gpu.random.uniform(-4, 12, shape, "float64"))
    local x = base:astype(dt)
    local variants = {{"", x}}
    if dt:sub(1, 5) == "float" then
      local y = base:copy():reshape(-1)
      y[{3}] = 0 / 0; y[{5}] = -0.0
      variants[2] = {"nan", y:reshape(shape):astype(dt)}
    end
    if #shape >= 2 then variants[#variants + 1] = {"T", x:transpose()} end
    for _, v in ipairs(variants) do
      local tag, a = v[1], v[2]
      local nd_ = a.ndim
      for _, m in ipairs(modes) do
        local key = ("%s %s %s %s"):format(dt, table.concat(shape, "x"), tag, m)
        local o = {mode = m, cval = -1.5}
        for d = 1, nd_ do
          run(key .. " c1d" .. d, nd.correlate1d, a, {1, -2, 3.5}, d, o)
          run(key .. " v1d" .. d, nd.convolve1d, a, {0.25, 0.5, 0.125, 2}, d, o)
          run(key .. " min1d" .. d, nd.minimum_filter1d, a, 3, d, o)
          run(key .. " max1d" .. d, nd.maximum_filter1d, a, 4, d, o)
          run(key .. " u1d" .. d, nd.uniform_filter1d, a, 5, d, o)
        end
        run(key .. " gauss", nd.gaussian_filter, a, 1.2, o)
        run(key .. " gauss-o", nd.gaussian_filter, a, 0.8, {mode = m, cval = 2, order = 1})
        run(key .. " unif", nd.uniform_filter, a, 3, o)
        run(key .. " min", nd.minimum_filter, a, 3, o)
        run(key .. " max", nd.maximum_filter, a, 2, o)
        for _, s in ipairs({2, 3, 5}) do
          run(key .. " med" .. s, nd.median_filter, a, s, o)
          run(key .. " rank" .. s, nd.rank_filter, a, 1, s, o)
          run(key .. " rankn" .. s, nd.rank_filter, a, -2, s, o)
          run(key .. " pct" .. s, nd.percentile_filter, a, 70, s, o)
        end
        local sz = {}
        for d = 1, nd_ do sz[d] = d == 1 and 3 or (d == 2 and 1 or 2) end
        run(key .. " med-sz", nd.median_filter, a, sz, o)
        -- N-D weights and footprints
        local wshape, fshape = {}, {}
        for d = 1, nd_ do wshape[d] = d == nd_ and 3 or 2; fshape[d] = 3 end
        local w = gpu.random.uniform(-1, 1, wshape, "float64")
        local wz = w:copy():reshape(-1); wz[{2}] = 0
        run(key .. " corr", nd.correlate, a, w, o)
        run(key .. " corr0", nd.correlate, a, wz:reshape(wshape), o)
        run(key .. " conv", nd.convolve, a, w, o)
        local fp = gpu.random.uniform(0, 1, fshape, "float64"):lt(0.6)
        fp:reshape(-1)[{1}] = true
        run(key .. " medfp", nd.median_filter, a, {footprint = fp, mode = m, cval = -1.5})
        run(key .. " minfp", nd.minimum_filter, a, {footprint = fp, mode = m, cval = -1.5})
        run(key .. " maxfp", nd.maximum_filter, a, {footprint = fp, mode = m, cval = -1.5})
        run(key .. " sobel", nd.sobel, a, 1, o)
        run(key .. " laplace", nd.laplace, a, o)
        run(key .. " ggm", nd.gaussian_gradient_magnitude, a, 1.0, o)
        run(key .. " glap", nd.gaussian_laplace, a, 0.7, o)
        run(key .. " out-f64", nd.uniform_filter, a, 3, {mode = m, output = "float64"})
        run(key .. " out-i16", nd.correlate1d, a, {1.5, -2, 3}, -1, {mode = m, output = "int16"})
        run(key .. " med-f32", nd.median_filter, a, 3, {mode = m, output = "float32"})
      end
    end
  end
end
-- larger arrays: groups of 4 along the last dim with all taps inside, in 2-D and 3-D
for _, dt in ipairs({"float32", "float64", "uint8"}) do
  for _, shape in ipairs({{11, 17}, {6, 5, 13}, {3, 4, 9, 10}, {30, 37}, {4, 1, 22}, {9, 8}}) do
    local y = gpu.floor(gpu.random.uniform(-4, 12, shape, "float64")):reshape(-1)
    if dt ~= "uint8" then y[{7}] = 0 / 0; y[{20}] = -0.0 end
    local a = y:reshape(shape):astype(dt)
    for _, m in ipairs(modes) do
      local key = ("big %s %s %s"):format(dt, table.concat(shape, "x"), m)
      local o = {mode = m, cval = 0.5}
      local ws, fs = {}, {}
      for d = 1, #shape do ws[d] = d == #shape and 5 or 3; fs[d] = 3 end
      local w = gpu.random.uniform(-1, 1, ws, "float64")
      local wz = w:copy():reshape(-1); wz[{3}] = 0; wz[{8}] = 0
      run(key .. " corr", nd.correlate, a, w, o)
      run(key .. " corr0", nd.correlate, a, wz:reshape(ws), o)
      run(key .. " conv", nd.convolve, a, w, {mode = m, cval = 0.5, origin = 1})
      local ws4 = {}
      for d = 1, #shape do ws4[d] = d == #shape and 4 or 2 end
      run(key .. " corr4", nd.correlate, a, gpu.random.uniform(-1, 1, ws4, "float64"), {mode = m, cval = 0.5, origin = -1})
      if #shape >= 2 then run(key .. " corrT", nd.correlate, a:transpose(), gpu.random.uniform(-1, 1, {3, 3}):reshape(
        (function() local r = {} for d = 1, #shape do r[d] = d <= 2 and 3 or 1 end return r end)()), o) end
      local fp = gpu.random.uniform(0, 1, fs, "float64"):lt(0.7)
      fp:reshape(-1)[{1}] = true
      run(key .. " minfp", nd.minimum_filter, a, {footprint = fp, mode = m, cval = 0.5})
      run(key .. " maxfp", nd.maximum_filter, a, {footprint = fp, mode = m, cval = 0.5})
      local us = {}
      for d = 1, #shape do us[d] = ({3, 1, 4, 5})[d] end
      run(key .. " unif", nd.uniform_filter, a, us, {mode = m})
      run(key .. " gauss", nd.gaussian_filter, a, 1.5, o)
      run(key .. " lap", nd.laplace, a, o)
      run(key .. " med", nd.median_filter, a, 3, o)
      run(key .. " c1d", nd.correlate1d, a, {1, 2, 3, 4, 5, 6, 7}, 1, o)
      run(key .. " v1d", nd.convolve1d, a, {1, 2, 3, 4, 5, 6}, -1, o)
    end
  end
end
f:close()
print(("%d results"):format(n))
