-- distance_sweep.lua: gpu.ndimage's distance transforms on many random masks, every result
-- saved as .npy under the directory given (arg[1]), to compare two builds file by file:
--   build/gpuhost scripts/check/distance_sweep.lua /tmp/new
--   /path/to/other/gpuhost scripts/check/distance_sweep.lua /tmp/old
--   for f in /tmp/old/*.npy; do cmp -s "$f" "/tmp/new/${f##*/}" || echo "$f"; done
-- The masks come from gpu.random with a fixed seed (the same in both builds; saved too).
-- Shapes: 1-D to 3-D, odd sizes, lines longer than the kernels' bands (32 places);
-- densities of nonzeros from none to all.
local dir = assert(arg[1], "usage: distance_sweep.lua OUTDIR")
local nd = gpu.ndimage
gpu.random.seed(20261203)

local shapes = {{1}, {7}, {33}, {200}, {1000}, {1, 1}, {5, 1}, {1, 70}, {13, 9}, {70, 45}, {31, 130},
                {130, 31}, {64, 64}, {3, 4, 5}, {9, 40, 7}, {33, 5, 34}, {6, 6, 70}, {2, 500}, {500, 2}, {20, 21, 60}}
local densities = {0, 0.3, 0.7, 0.95, 0.995, 0.9995, 1}   -- the fraction of nonzeros
-- (dyadic ones, integers times powers of two, go by bands in the later passes; the others
-- by a thread a line)
local samplings = {false, 0.5, 3.0, "aniso", "dyadic", 1e-200, 0.0, 1e150}

local count = 0
local function save(name, a)
  count = count + 1
  gpu.save(("%s/%05d_%s.npy"):format(dir, count, name), a)
end

local function sampling_for(sv, ndim, k)
  if not sv then return nil end
  if sv == "aniso" or sv == "dyadic" then
    local t = {}
    local vals = sv == "aniso" and {0.7, 1.3, 2.0} or {0.25, 1.5, 3.0}
    for d = 1, ndim do t[d] = vals[(d + k) % 3 + 1] end
    return t
  end
  return sv
end

for si, shape in ipairs(shapes) do
  for di, dens in ipairs(densities) do
    local m
    if dens == 0 then m = gpu.zeros(shape, "bool")
    elseif dens == 1 then m = gpu.ones(shape, "bool")
    else m = gpu.random.uniform(0, 1, shape):lt(dens) end
    local tag = ("s%d_d%d"):format(si, di)
    save(tag .. "_mask", m:astype("uint8"))
    for k, sv in ipairs(samplings) do
      local smp = sampling_for(sv, #shape, si + di)
      local d, i = nd.distance_transform_edt(m, {sampling = smp, return_indices = true})
      save(tag .. "_edt" .. k, d); save(tag .. "_edt_i" .. k, i)
      d, i = nd.distance_transform_bf(m, {metric = "euclidean", sampling = smp, return_indices = true})
      save(tag .. "_bfe" .. k, d); save(tag .. "_bfe_i" .. k, i)
    end
    save(tag .. "_edt_only_i", nd.distance_transform_edt(m, {return_distances = false, return_indices = true}))
    for _, metric in ipairs({"chessboard", "taxicab"}) do
      local d, i = nd.distance_transform_cdt(m, {metric = metric, return_indices = true})
      save(tag .. "_cdt_" .. metric, d); save(tag .. "_cdt_i_" .. metric, i)
      d, i = nd.distance_transform_bf(m, {metric = metric, return_indices = true})
      save(tag .. "_bf_" .. metric, d); save(tag .. "_bf_i_" .. metric, i)
    end
  end
end
-- Very sparse masks with placed zeros (the later passes then see few candidates a line,
-- far apart: long walks over bands): one zero in the middle, one in a corner, a few, none,
-- on lines of 4096 and more places too
local placed = {
  {{300, 300}, {{150, 100}}}, {{300, 300}, {{1, 1}}}, {{300, 300}, {{300, 300}}},
  {{257, 263}, {{3, 250}, {200, 7}, {129, 131}}}, {{3, 4100}, {{2, 2050}}}, {{4100, 3}, {{4100, 1}}},
  {{2, 5000}, {{1, 17}, {2, 4999}, {1, 4000}}}, {{5000}, {{2500}}}, {{3, 4100}, {}},
  {{17, 19, 23}, {{9, 10, 12}}}, {{17, 19, 23}, {{1, 19, 1}, {17, 1, 23}}},
}
for pi, p in ipairs(placed) do
  local m = gpu.ones(p[1], "bool")
  for _, z in ipairs(p[2]) do m[z] = false end   -- (1-based places)
  local tag = ("p%d"):format(pi)
  save(tag .. "_mask", m:astype("uint8"))
  for k, sv in ipairs({false, "dyadic", "aniso"}) do
    local smp = sampling_for(sv, #p[1], pi)
    local d, i = nd.distance_transform_edt(m, {sampling = smp, return_indices = true})
    save(tag .. "_edt" .. k, d); save(tag .. "_edt_i" .. k, i)
  end
  save(tag .. "_edt_f32", nd.distance_transform_edt(m:astype("float32")))
  for _, metric in ipairs({"chessboard", "taxicab"}) do
    local d, i = nd.distance_transform_cdt(m, {metric = metric, return_indices = true})
    save(tag .. "_cdt_" .. metric, d); save(tag .. "_cdt_i_" .. metric, i)
  end
end
print(("%d arrays saved under %s"):format(count, dir))
