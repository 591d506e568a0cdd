-- ndimage_distance.lua: gpu.ndimage's distance transforms (scipy 1.11's distance_transform_edt,
-- _cdt and _bf) on kernels/ndimage_distance.cu. The exact ones (Euclidean, taxicab,
-- chessboard) go a dim at a time on the device, carrying each element's nearest zero; a
-- chamfer transform by another structure runs scipy's raster passes. Loaded at the first call
-- of one (lua/gpu.lua); every check raises through fail (level 0, gpu._api adds the line).
local gpu = ...
local nd = gpu.ndimage
local M = {}
local is_array, described = gpu._is_array, gpu._described

local KIND = {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name] = d.kind end

local common = gpu._ndimage
local fail, input_of, options = common.fail, common.input_of, common.options
local BLOCK, MAX_GRID = 256, 65536
local INT32_MAX = 2147483647
local EUCLIDEAN, TAXICAB, CHESSBOARD = 0, 1, 2   -- the kernels' metrics
local EDT, CDT, BF = 0, 1, 2                      -- and whose results ndd_finish gives

local module
local function kernel(name)
  module = module or gpu.module(gpu._embedded("kernels/ndimage_distance.cu"),
                                {names = {"ndd_init", "ndd_offline", "ndd_envelope", "ndd_take", "ndd_near_bands", "ndd_near_take",
                                          "ndd_band_env", "ndd_band_links", "ndd_band_take", "ndd_finish", "ndd_chamfer", "ndd_chamfer_init",
                                          "ndd_unravel"}})
  return module[name]
end

local function launch_by(block, name, n, ...)
  kernel(name)[{math.max(1, math.min(MAX_GRID, (n + block - 1) // block)), block}](...)
end

local function launch(name, n, ...) launch_by(BLOCK, name, n, ...) end

------------------------------------------------------------------------------------
-- checks

local function shape_text(shape) return "{" .. table.concat(shape, ", ") .. "}" end

local function flag(v, api, what, default)
  if v == nil then return default end
  if type(v) ~= "boolean" then fail(api, "%s must be a boolean, got %s", what, described(v)) end
  return v
end

-- sampling: nil, a number or a table of one number a dim, as a list of ndim numbers (or nil)
local function sampling_of(api, v, ndim)
  if v == nil then return nil end
  local list = {}
  if type(v) == "number" then
    for k = 1, ndim do list[k] = v + 0.0 end
  elseif type(v) == "table" and not is_array(v) then
    if #v ~= ndim then fail(api, "sampling has %d values, expected %d (one a dim)", #v, ndim) end
    for k = 1, ndim do
      if type(v[k]) ~= "number" then fail(api, "sampling[%d] must be a number, got %s", k, described(v[k])) end
      list[k] = v[k] + 0.0
    end
  else
    fail(api, "sampling must be a number or a table of numbers (one a dim), got %s", described(v))
  end
  return list
end

-- an output array given as option `what`: of `shape` and dtype dt
local function output(api, v, what, shape, dt)
  if v == nil then return nil end
  if not is_array(v) then fail(api, "%s must be a device array, got %s", what, described(v)) end
  local same = v.ndim == #shape
  for k = 1, #shape do same = same and v.shape[k] == shape[k] end
  if not same then fail(api, "%s must have shape %s, got %s", what, shape_text(shape), shape_text(v.shape)) end
  if v.dtype ~= dt then fail(api, "%s must be %s, got %s", what, dt, v.dtype) end
  common.here(v, api, what)
  return v
end

-- The checked common arguments: input as a C-ordered bool array (true: nonzero), the
-- options, whether distances and indices are wanted, and the arrays given for them
local function args_of(api, input, opts, known, dist_dtype)
  input_of(input, api)
  opts = options(opts, api, 2, known .. " return_distances return_indices distances indices")
  if input.ndim == 0 then fail(api, "input is 0-D: give an array of at least one dim") end
  local want_d = flag(opts.return_distances, api, "return_distances", true)
  local want_i = flag(opts.return_indices, api, "return_indices", false)
  if not want_d and not want_i then fail(api, "at least one of return_distances and return_indices must be true") end
  if opts.distances ~= nil and not want_d then fail(api, "return_distances must be true where distances is given") end
  if opts.indices ~= nil and not want_i then fail(api, "return_indices must be true where indices is given") end
  -- (coordinates, and the chamfer passes' flat places, are int32, as scipy's)
  if input.size > INT32_MAX then fail(api, "input has %d elements: at most 2^31 - 1 are supported", input.size) end
  local shape, ishape = {}, {input.ndim}
  for k = 1, input.ndim do shape[k], ishape[k + 1] = input.shape[k], input.shape[k] end
  local dist_out = output(api, opts.distances, "distances", shape, dist_dtype)
  local ind_out = output(api, opts.indices, "indices", ishape, "int32")
  return gpu.ascontiguousarray(input, "bool"), opts, want_d, want_i, dist_out, ind_out, shape, ishape
end

-- the results as scipy gives them: distances, then indices, each unless written in place
local function results(want_d, want_i, dist, ind, dist_out, ind_out)
  local r = {}
  if want_d then
    if dist_out then dist_out[{}] = dist; dist:free() else r[#r + 1] = dist end
  end
  if want_i then
    if ind_out then ind_out[{}] = ind; ind:free() else r[#r + 1] = ind end
  end
  return table.unpack(r)
end

------------------------------------------------------------------------------------
-- the exact transforms

local BAND = 32   -- places of a line a band's thread takes (ndd_near_*, ndd_band_*)

-- whether the first pass may go by ndd_near_* (its cost growing with the distance along
-- the line alone, distinct for distinct distances: see the kernels)
local function near_ok(metric, sampling, d, len)
  if metric ~= EUCLIDEAN or not sampling then return true end
  local s = math.abs(sampling[d])
  return s >= 1e-100 and s * len <= 1e100
end

-- whether the later passes may go by bands (ndd_band_*): every cost an exact double, a
-- multiple of 2^-2e below 2^52 of them, where each sampling is an integer times 2^-e (or less)
local function bands_ok(x, metric, sampling)
  local finest, sum = 0, 0.0
  for k = 1, x.ndim do
    local s = sampling and math.abs(sampling[k]) or 1.0
    if s ~= s or s == 0 or s == math.huge then return false end
    local m, e = s, 0
    while m ~= math.floor(m) and e < 60 do m, e = m * 2, e + 1 end
    if m ~= math.floor(m) then return false end
    finest = math.max(finest, e)
    sum = sum + (x.shape[k] * s) ^ 2
  end
  return sum * 4.0 ^ finest < 2.0 ^ 52
end

-- whether the later pass along dim d may go by bands though its costs round (a Euclidean
-- sampling not all dyadic): where every cost C on the array (at most the sum over dims of
-- (size * sampling)^2) is below 2^45 * s^2 (s: dim d's sampling; both far from under- and
-- overflow), the rounding errors of two costs at a place (at most 4.01 * 2^-53 * C each)
-- are far below the least step by which their exact difference moves from a place to the
-- next (2 * s^2), so that "the later candidate wins" changes at most once along the line
-- and the bands make the one envelope's choices (see the kernels)
local function rounded_bands_ok(x, metric, sampling, d)
  if metric ~= EUCLIDEAN or not sampling then return false end
  local s = math.abs(sampling[d])
  if not (s >= 1e-150 and s <= 1e150) then return false end   -- (NaN too)
  local sum = 0.0
  for k = 1, x.ndim do sum = sum + (x.shape[k] * math.abs(sampling[k])) ^ 2 end
  return sum <= 1e300 and sum <= 2.0 ^ 45 * s * s   -- (NaN or infinite sums refused)
end

-- The nearest zero of each element of x (C-ordered bool, true: nonzero) by `metric`, a
-- pass a dim in `order` (ties to the earlier place along each, or the later where `later`):
-- then the results of ndd_finish for scipy's function `how`
local function exact(x, metric, sampling, order, later, how, want_d, want_i, dist_dtype, shape, ishape)
  local n = x.size
  local dist = want_d and gpu.empty(shape, dist_dtype) or nil
  local ind = want_i and gpu.empty(ishape, "int32") or nil
  if n == 0 then return dist, ind end
  local F, G = gpu.empty({x.ndim * n}, "int32"), gpu.empty({x.ndim * n}, "int32")
  local exact_costs = bands_ok(x, metric, sampling)
  local by_bands, any_bands = {}, false   -- (by pass)
  for pass, d in ipairs(order) do
    by_bands[pass] = pass > 1 and (exact_costs or rounded_bands_ok(x, metric, sampling, d))
    any_bands = any_bands or by_bands[pass]
  end
  local w = sampling and gpu.array(sampling, "float64") or gpu.zeros({1}, "float64")
  local has_s, lt = sampling and 1 or 0, later and 1 or 0
  local scratch = {}   -- s, t, H, cnt ...: made at the first pass that needs them
  local most_bands = 0   -- (bands of BAND places, over all lines, of the pass with most)
  for _, d in ipairs(order) do
    most_bands = math.max(most_bands, n // x.shape[d] * ((x.shape[d] + BAND - 1) // BAND))
  end
  launch("ndd_init", n, x, F)
  for pass, d in ipairs(order) do
    local len = x.shape[d]
    local lines = n // len
    local tasks = lines * ((len + BAND - 1) // BAND)   -- bands of BAND places, over all lines
    local sw = sampling and sampling[d] or 1.0
    if pass == 1 and near_ok(metric, sampling, d, len) then
      local bnd = gpu.empty({2 * tasks}, "int32")
      launch("ndd_near_bands", tasks, x, F, bnd, d - 1, BAND)
      launch("ndd_near_take", tasks, x, F, G, bnd, d - 1, BAND, lt)
      bnd:free()
    else
      local sc = scratch
      if not sc.s then
        local shortest = math.huge
        for k = 1, x.ndim do shortest = math.min(shortest, x.shape[k]) end
        sc.s, sc.t, sc.H = gpu.empty({n}, "int32"), gpu.empty({n}, "int32"), gpu.empty({n}, "float64")
        -- a count a line (ndd_envelope) or a band (ndd_band_env): at most n // shortest
        -- lines, or the most bands of any pass (no fewer) where a pass goes by bands
        sc.cnt = gpu.empty({any_bands and most_bands or n // shortest}, "int32")
      end
      launch("ndd_offline", n, x, F, sc.H, d - 1, metric, w, has_s)
      if by_bands[pass] then
        if not sc.prevb then
          sc.prevb, sc.nextb = gpu.empty({most_bands}, "int32"), gpu.empty({most_bands}, "int32")
          sc.hmin = gpu.empty({most_bands}, "float64")
        end
        -- (blocks of a warp: each thread's stack in shared memory)
        launch_by(32, "ndd_band_env", tasks, x, F, sc.H, sc.s, sc.t, sc.cnt, sc.hmin, d - 1, metric, sw, lt, BAND)
        launch("ndd_band_links", tasks, x, sc.cnt, sc.prevb, sc.nextb, d - 1, BAND)
        launch("ndd_band_take", n, x, F, G, sc.H, sc.s, sc.t, sc.cnt, sc.prevb, sc.nextb, sc.hmin, d - 1, metric,
               sw, lt, BAND)
      else
        -- (a thread a line, often few: blocks of a warp spread them over every SM, whose
        -- caches then hold each thread's stretch of its line)
        launch_by(32, "ndd_envelope", lines, x, F, sc.H, sc.s, sc.t, sc.cnt, d - 1, metric, w, has_s, lt)
        launch("ndd_take", n, x, F, G, sc.s, sc.t, sc.cnt, d - 1)
      end
    end
    F, G = G, F
  end
  local dd = (dist and dist_dtype == "float64") and dist or gpu.zeros({1}, "float64")
  local di = (dist and dist_dtype == "int32") and dist or gpu.zeros({1}, "int32")
  local du = (dist and dist_dtype == "uint32") and dist or gpu.zeros({1}, "uint32")
  launch("ndd_finish", n, x, F, how, metric, w, has_s, dist and 1 or 0, dd, di, du,
         ind and 1 or 0, ind or gpu.zeros({1}, "int32"))
  F:free(); G:free()
  for _, v in pairs(scratch) do v:free() end
  return dist, ind
end

local function dims(n, backwards)
  local order = {}
  for k = 1, n do order[k] = backwards and n + 1 - k or k end
  return order
end

-- distance_transform_edt(input [, {sampling =, return_distances = true, return_indices =
-- false, distances =, indices =}]): each element's Euclidean distance to the nearest zero
-- (float64) and its 1-based coordinates (int32, {ndim, ...}); ties as scipy's Maurer passes
-- break them: dim 1 first, each to the earlier place
function M.distance_transform_edt(input, opts)
  local api = "distance_transform_edt"
  local x, o, want_d, want_i, dist_out, ind_out, shape, ishape = args_of(api, input, opts, "sampling", "float64")
  local sampling = sampling_of(api, o.sampling, x.ndim)
  local dist, ind = exact(x, EUCLIDEAN, sampling, dims(x.ndim), false, EDT, want_d, want_i, "float64", shape, ishape)
  if x ~= input then x:free() end
  return results(want_d, want_i, dist, ind, dist_out, ind_out)
end

local BF_METRICS = {euclidean = EUCLIDEAN, taxicab = TAXICAB, cityblock = TAXICAB, manhattan = TAXICAB,
                    chessboard = CHESSBOARD}

-- distance_transform_bf(input [, {metric = "euclidean", sampling =, ...}]): scipy's brute
-- force results (float64 Euclidean distances, uint32 for taxicab and chessboard) by the
-- exact passes; ties go to the last nearest zero in C order, as scipy's search finds it
function M.distance_transform_bf(input, opts)
  local api = "distance_transform_bf"
  local name = type(opts) == "table" and not is_array(opts) and opts.metric or nil
  if name == nil then name = "euclidean" end
  local metric = type(name) == "string" and BF_METRICS[name:lower()]
  if not metric then
    fail(api, "metric must be 'euclidean', 'taxicab' (or 'cityblock', 'manhattan') or 'chessboard', got %s",
         type(name) == "string" and "'" .. name .. "'" or described(name))
  end
  local dt = metric == EUCLIDEAN and "float64" or "uint32"
  local x, o, want_d, want_i, dist_out, ind_out, shape, ishape = args_of(api, input, opts, "metric sampling", dt)
  local sampling = sampling_of(api, o.sampling, x.ndim)
  if metric ~= EUCLIDEAN then sampling = nil end   -- (scipy's C reads it for the Euclidean one only)
  local dist, ind = exact(x, metric, sampling, dims(x.ndim, true), true, BF, want_d, want_i, dt, shape, ishape)
  if x ~= input then x:free() end
  return results(want_d, want_i, dist, ind, dist_out, ind_out)
end

------------------------------------------------------------------------------------
-- the chamfer transform

local CDT_METRICS = {taxicab = 1, cityblock = 1, manhattan = 1, chessboard = 0}

-- The taps of the first half of a 3 x ... x 3 structure (its elements before the centre in
-- C order, where nonzero): their offsets in one list, a row a tap
local function first_half(flat, ndim)
  local offs = {}
  for k = 1, #flat // 2 do
    if flat[k] ~= 0 then   -- (NaN too, as bool(nan))
      local r = k - 1
      local row = {}
      for d = ndim, 1, -1 do
        row[d] = r % 3 - 1
        r = r // 3
      end
      for d = 1, ndim do offs[#offs + 1] = row[d] end
    end
  end
  return offs
end

-- whether the taps (a list of rows of ndim offsets) are those of the first half of the
-- structure of connectivity 1 (taxicab) or ndim (chessboard)
local function separable_metric(offs, ndim)
  local faces, count = true, #offs // ndim
  for k = 1, count do
    local away = 0
    for d = 1, ndim do away = away + (offs[(k - 1) * ndim + d] ~= 0 and 1 or 0) end
    faces = faces and away == 1
  end
  if faces and count == ndim then return TAXICAB end
  if count == (3 ^ ndim - 1) // 2 then return CHESSBOARD end
  return nil
end

-- distance_transform_cdt(input [, {metric = "chessboard", ...}]): scipy's chamfer
-- distances (int32; -1 where no zero is reachable); "chessboard" and "taxicab" (and
-- structures of their taps) by the exact passes, another structure by scipy's raster passes
function M.distance_transform_cdt(input, opts)
  local api = "distance_transform_cdt"
  local x, o, want_d, want_i, dist_out, ind_out, shape, ishape = args_of(api, input, opts, "metric", "int32")
  local n, ndim = x.size, x.ndim
  local metric, offs = o.metric == nil and "chessboard" or o.metric, nil
  local sep
  if type(metric) == "string" then
    local c = CDT_METRICS[metric]
    if not c then
      fail(api, "metric must be 'chessboard', 'taxicab' (or 'cityblock', 'manhattan') or a structure, got '%s'", metric)
    end
    sep = c == 1 and TAXICAB or CHESSBOARD
  else
    if type(metric) == "table" and not is_array(metric) then
      local ok, r = pcall(gpu.array, metric, "float64")
      if not ok then fail(api, "metric must be a string, a device array or a nested table (%s)", tostring(r)) end
      metric = r
    end
    if not is_array(metric) then fail(api, "metric must be a string, a device array or a nested table, got %s", described(metric)) end
    if KIND[metric.dtype] == "c" then fail(api, "metric is %s: complex arrays are not supported", metric.dtype) end
    if metric.ndim ~= ndim then fail(api, "metric must have input's number of dims (%d), got %d", ndim, metric.ndim) end
    for d = 1, ndim do
      if metric.shape[d] ~= 3 then fail(api, "metric's sizes must all be 3, got %s", shape_text(metric.shape)) end
    end
    local h = gpu.ascontiguousarray(metric, "float64"):reshape(-1):tohost()
    local flat = {}
    for k = 1, metric.size do flat[k] = h[k] end
    offs = first_half(flat, ndim)
    sep = separable_metric(offs, ndim)
  end
  if sep then
    local dist, ind = exact(x, sep, nil, dims(ndim), false, CDT, want_d, want_i, "int32", shape, ishape)
    if x ~= input then x:free() end
    return results(want_d, want_i, dist, ind, dist_out, ind_out)
  end
  local dist = gpu.empty(shape, "int32")
  local ind = want_i and gpu.empty(ishape, "int32") or nil
  if n > 0 then
    local ft = gpu.empty({n}, "int32")
    launch("ndd_chamfer_init", n, x, dist, ft)
    local taps = #offs > 0 and gpu.array(offs, "int64") or gpu.zeros({1}, "int64")
    local chamfer = kernel("ndd_chamfer")
    chamfer[{1, 1}](x, dist, ft, want_i and 1 or 0, taps, #offs // ndim, 1)
    chamfer[{1, 1}](x, dist, ft, want_i and 1 or 0, taps, #offs // ndim, -1)
    if ind then launch("ndd_unravel", n, x, ft, ind) end
    ft:free()
    taps:free()
  end
  if x ~= input then x:free() end   -- (x is the caller's array when it was a C-contiguous bool one)
  if not want_d then dist:free(); dist = nil end
  return results(want_d, want_i, dist, ind, dist_out, ind_out)
end

-- their arrays (sampling's, an output's too) on the current device, checked first
for name, f in pairs(M) do nd[name] = gpu._api(gpu._arg.on_device("ndimage." .. name, f)) end
