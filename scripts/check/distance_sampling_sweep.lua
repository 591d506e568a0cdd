-- distance_sampling_sweep.lua: gpu.ndimage's Euclidean distance transforms (edt and bf)
-- with samplings whose products round, on many masks, every result's bytes appended to
-- one file (arg[1]), to compare two builds:
--   /path/to/old/gpuhost scripts/check/distance_sampling_sweep.lua /tmp/old.bin
--   build/gpuhost scripts/check/distance_sampling_sweep.lua /tmp/new.bin
--   cmp /tmp/old.bin /tmp/new.bin
-- Masks: 1-D to 3-D, lines shorter and longer than the kernels' bands (32 places, and 4100); random
-- ones of varied density, a single zero, all zeros, none, and tie-heavy lattices
-- (checkerboards, stripes, zeros every p by q places). Samplings: non-dyadic (1.3, 0.1,
-- 1/3, 7.77, 1e-3, 1e5), negative, mixed per dim, extreme ratios between dims, and a few
-- dyadic ones; return_indices on and off. Lua's generator with a fixed seed (both builds
-- draw the same masks).
local path = assert(arg[1], "usage: distance_sampling_sweep.lua OUTFILE")
local nd = gpu.ndimage
local out = assert(io.open(path, "wb"))
math.randomseed(20261203)

local shapes = {{1}, {40}, {200}, {1000}, {2, 33}, {33, 2}, {13, 9}, {70, 45}, {31, 130}, {130, 31},
                {64, 64}, {1, 100}, {100, 1}, {3, 4, 5}, {9, 40, 7}, {33, 5, 34}, {6, 6, 70},
                {40, 3, 40}, {2, 500}, {500, 2}, {2, 4100}, {4100, 2}}

-- patterns: the value (0: a zero, 1: not) at coordinates c (0-based) of shape sh, case r
local patterns = {
  function() return math.random() < 0.5 and 0 or 1 end,
  function() return math.random() < 0.1 and 0 or 1 end,
  function() return math.random() < 0.01 and 0 or 1 end,
  function() return math.random() < 0.9 and 0 or 1 end,
  function() return 0 end,
  function() return 1 end,
  "single",
  function(c) local s = 0; for k = 1, #c do s = s + c[k] end; return s % 2 end,   -- checkerboard
  function(c) return c[#c] % 3 == 0 and 0 or 1 end,                            -- stripes
  function(c)                                                                   -- a lattice
    local z = true
    for k = 1, #c do z = z and c[k] % (k + 3) == 0 end
    return z and 0 or 1
  end,
  function(c)                                                                   -- sparse lattice
    local z = true
    for k = 1, #c do z = z and c[k] % (2 * k + 9) == 1 end
    return z and 0 or 1
  end,
  function(c) local s = 0; for k = 1, #c do s = s + c[k] * k end; return s % 7 == 0 and 0 or 1 end,
}

local samplings = {1.3, 0.1, 1 / 3, 7.77, 1e-3, 1e5, -1.3, 0.7,
                   {1, 1.3, 0.7}, {1.3, 1, 2.5}, {0.1, 3.3, 1 / 7}, {1e5, 1e-3, 1}, {1e-3, 1, 1e5},
                   {1, 1e-9, 1}, {1, 1e-5, 1}, {1, 3e-6, 1}, {3e-6, 1, 1}, {2, -0.3, 1.1}, {0.25, 1.3, 0.5}, {1.5, 3, 0.375}, {1e150, 1, 1}, {1e-200, 1.3, 1}}

local function sampling_for(v, ndim)
  if type(v) == "number" then return v end
  local t = {}
  for k = 1, ndim do t[k] = v[k] end
  return t
end

local function mask(shape, pat)
  local n = 1
  for k = 1, #shape do n = n * shape[k] end
  local flat, c = {}, {}
  local one = math.random(n)
  for i = 1, n do
    local r = i - 1
    for k = #shape, 1, -1 do c[k] = r % shape[k]; r = r // shape[k] end
    if pat == "single" then flat[i] = i == one and 0 or 1 else flat[i] = pat(c) end
  end
  return gpu.array(flat, "uint8"):reshape(shape):ne(0)
end

local count = 0
local function put(a)
  count = count + 1
  local b = a:tobytes()
  out:write(string.pack("<i4i4", count, #b), b)
end

for _, shape in ipairs(shapes) do
  for _, pat in ipairs(patterns) do
    local m = mask(shape, pat)
    for _, sv in ipairs(samplings) do
      local smp = sampling_for(sv, #shape)
      put(nd.distance_transform_edt(m, {sampling = smp}))
      local d, i = nd.distance_transform_edt(m, {sampling = smp, return_indices = true})
      put(d); put(i)
      put(nd.distance_transform_edt(m, {sampling = smp, return_distances = false, return_indices = true}))
      d, i = nd.distance_transform_bf(m, {sampling = smp, return_indices = true})
      put(d); put(i)
    end
  end
end
out:close()
print(("%d results written to %s"):format(count, path))
