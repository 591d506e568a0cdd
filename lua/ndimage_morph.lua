-- ndimage_morph.lua: gpu.ndimage's morphology (binary and grey erosions, dilations and what
-- is made of them) and measurements (label, per-label statistics, find_objects), scipy
-- 1.11's, on kernels/ndimage_morph.cu and on the filters of lua/ndimage.lua (a flat grey
-- erosion is a minimum filter). Structures and indices are small: read on the host; the
-- images and labels never leave the device. Loaded at the first call of one (lua/gpu.lua).
-- Every check raises through fail (level 0, gpu._api puts the caller's line on it).
local gpu = ...
local nd = gpu.ndimage
local M = {}   -- this file's functions (nd gets them wrapped by gpu._api at the end)
local is_array, described, shown = gpu._is_array, gpu._described, gpu._arg.shown

local KIND, CTYPE = {}, {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name], CTYPE[d.name] = d.kind, d.ctype end

-- the filters' checks (lua/ndimage.lua): input_of(a, api), integer(v, api, what),
-- options(opts, api, at, known), mode_of(m, api), nd_origins(api, origin, shape)
local common = gpu._ndimage
local fail, input_of, integer, options = common.fail, common.input_of, common.integer, common.options
local mode_of, origins_of = common.mode_of, common.nd_origins
local BLOCK, MAX_GRID = 256, 65536
local INT32_MAX = 2147483647
local NAN = string.unpack("<d", string.pack("<i8", 0x7ff8000000000000))   -- (0 / 0 is -nan on x86)

------------------------------------------------------------------------------------
-- kernels: the module of kernels/ndimage_morph.cu after kernels/ndimage.cu, a module for
-- each set of template arguments

local modules = {}
local function kernel(name, ...)
  local targs = select("#", ...) > 0 and "<" .. table.concat({...}, ", ") .. ">" or ""
  local m = modules[targs]
  if not m then
    local names = {}
    if targs == "" then
      names = {"ndm_binary", "ndm_label_init", "ndm_label_merge", "ndm_label_flatten", "ndm_label_number",
               "ndm_extrema_values", "ndm_seed", "ndm_reach", "ndm_boxes_init"}
    else
      for _, k in ipairs({"ndm_grey", "ndm_bins", "ndm_extrema", "ndm_boxes"}) do
        local n = select("#", ...)
        if (k == "ndm_grey") == (n == 2) then names[#names + 1] = k .. targs end
      end
    end
    m = gpu.module(gpu._embedded("kernels/ndimage.cu") .. "\n" .. gpu._embedded("kernels/ndimage_morph.cu"),
                   {names = names})
    modules[targs] = m
  end
  return m[name .. targs]
end

local function launch(k, n, ...)
  k[{math.max(1, math.min(MAX_GRID, (n + BLOCK - 1) // BLOCK)), BLOCK}](...)
end

------------------------------------------------------------------------------------
-- checks

-- (x [, opts]) where x may be left out for the options table: x and the options
local function optional(x, opts)
  if type(x) == "table" and not is_array(x) and next(x) ~= nil and #x == 0 and opts == nil then return nil, x end
  return x, opts
end

-- v as a device array (a nested table made one of dtype), not complex
local function array_arg(api, v, what, dtype)
  if type(v) == "table" and not is_array(v) then
    local leaf = v   -- a table of booleans is a bool array, as scipy takes [[True, ...]]
    while type(leaf) == "table" and not is_array(leaf) do leaf = leaf[1] end
    if type(leaf) == "boolean" then dtype = "bool" end
    local ok, r = pcall(gpu.array, v, dtype)
    if not ok then fail(api, "%s must be a device array or a nested table (%s)", what, tostring(r)) end
    v = r
  end
  if not is_array(v) then fail(api, "%s must be a device array or a nested table, got %s", what, described(v)) end
  if KIND[v.dtype] == "c" then fail(api, "%s is %s: complex arrays are not supported", what, v.dtype) end
  return v
end

-- A nested table of numbers, regular (every table of a level as long, none empty, nothing
-- but its list part) read on the host: its shape and elements in C order as floats, what
-- gpu.array(t, "float64") and a read back give without a copy each way (a wait for the
-- device); nil for any other table (read_structure then makes it an array, whose errors it
-- gives)
local function host_structure(t)
  local shape, level = {}, t
  while type(level) == "table" and not is_array(level) do
    if #level == 0 or #shape >= 8 then return nil end
    shape[#shape + 1] = #level
    level = level[1]
  end
  local flat, nd = {}, #shape
  local function walk(x, d)
    if d > nd then
      if math.type(x) == nil then return false end
      flat[#flat + 1] = x + 0.0
      return true
    end
    if type(x) ~= "table" or is_array(x) or #x ~= shape[d] then return false end
    local n = 0
    for _ in pairs(x) do n = n + 1 end
    if n ~= shape[d] then return false end
    for i = 1, shape[d] do
      if not walk(x[i], d + 1) then return false end
    end
    return true
  end
  if not walk(t, 1) then return nil end
  return shape, flat
end

-- A structure or footprint: a device array or nested table of `ndim` dims (nil: any), read
-- back: its shape and its elements in C order as numbers (true: 1)
local function read_structure(api, s, ndim, what)
  if type(s) == "table" and not is_array(s) then
    local shape, flat = host_structure(s)
    if shape then
      if ndim and #shape ~= ndim then fail(api, "%s must have input's number of dims (%d), got %d", what, ndim, #shape) end
      return shape, flat
    end
  end
  s = array_arg(api, s, what, "float64")
  if ndim and s.ndim ~= ndim then fail(api, "%s must have input's number of dims (%d), got %d", what, ndim, s.ndim) end
  local shape = {}
  for d = 1, s.ndim do shape[d] = s.shape[d] end
  local flat = {}
  if s.size > 0 and s.dtype == "bool" then   -- (read as it is: no conversion launched)
    local h = gpu.ascontiguousarray(s):reshape(-1):tohost()
    for k = 1, s.size do flat[k] = h[k] and 1 or 0 end
  elseif s.size > 0 then
    local h = gpu.ascontiguousarray(s, "float64"):reshape(-1):tohost()
    for k = 1, s.size do flat[k] = h[k] end
  end
  return shape, flat
end

-- The taps of the elements of shape where keep(value, k) is true (the filters'
-- footprint_taps): their offsets k_d - shape_d // 2 - origin_d in one list, a row a tap
-- (negated: a dilation's reflected structure), and the values there
local function taps_of(shape, flat, origins, keep, negate)
  local kept, vals, offs = {}, {}, {}
  for k, v in ipairs(flat) do
    kept[k] = keep(v, k) and true or false
    if kept[k] then vals[#vals + 1] = v end
  end
  for _, row in ipairs(common.footprint_taps(shape, origins, kept)) do
    for d = 1, #shape do offs[#offs + 1] = negate and -row[d] or row[d] end
  end
  return offs, vals
end

local function int64s(list)
  if #list == 0 then return gpu.zeros({1}, "int64") end
  return gpu.array(list, "int64")
end

-- What ndm_binary and ndm_grey read of the taps (offs: rows of nd offsets), in one copy to
-- the device (device int64: K, nd, nd, then K nd values): their places relative to a point
-- in units of strides, the margins they reach below and above along each dim (to take a
-- point whose taps all lie inside without checking each), then offs itself; and whether
-- to use the first three (not past NDM_TAPS taps or 8 dims)
local NDM_TAPS = 512   -- kernels/ndimage_morph.cu's
local function inner_of(offs, nd, strides)
  local K = #offs // nd
  local g = {}
  for d = 1, nd do g[K + d], g[K + nd + d] = 0, 0 end
  for k = 1, K do
    local f = 0
    for d = 1, nd do
      local o = offs[(k - 1) * nd + d]
      f = f + o * strides[d]
      if -o > g[K + d] then g[K + d] = -o end
      if o > g[K + nd + d] then g[K + nd + d] = o end
    end
    g[k] = f
  end
  for j = 1, #offs do g[K + 2 * nd + j] = offs[j] end
  return int64s(g), (K > NDM_TAPS or nd > 8) and 0 or 1
end

-- The dtype of a result and, where output is an array, that array (of input's shape)
local function output_of(api, out, input, default)
  if out == nil then return default end
  return common.output_of(out, input, api)
end

-- r (a new array) as the caller asked: cast to dt, or copied into out
local function deliver(r, dt, out)
  if out then
    out[{}] = r
    r:free()
    return out
  end
  if r.dtype == dt then return r end
  local c = r:astype(dt)
  r:free()
  return c
end

-- The message of an error of another gpu.ndimage function, named as `api`
local function as(api, f, ...)
  local r = table.pack(pcall(f, ...))
  if not r[1] then
    local e = r[2]
    error(type(e) == "string" and e:gsub("gpu%.ndimage%.[%w_]+:", "gpu.ndimage." .. api .. ":", 1) or e, 0)
  end
  return table.unpack(r, 2, r.n)
end

------------------------------------------------------------------------------------
-- structures

-- The elements (C order, true or false) of the 3 x ... x 3 structure of rank >= 1 dims whose
-- elements lie within `connectivity` steps (each along one dim) of the centre
local function structure_flat(rank, connectivity)
  local flat, idx = {}, {}
  for d = 1, rank do idx[d] = 0 end
  for k = 1, 3 ^ rank do
    local far = 0
    for d = 1, rank do far = far + (idx[d] == 1 and 0 or 1) end
    flat[k] = far <= math.max(connectivity, 1)
    for d = rank, 1, -1 do
      idx[d] = idx[d] + 1
      if idx[d] < 3 then break end
      idx[d] = 0
    end
  end
  return flat
end

-- generate_binary_structure(rank, connectivity): the bool 3 x ... x 3 array whose elements
-- lie within `connectivity` steps (each along one dim) of the centre
function M.generate_binary_structure(rank, connectivity)
  local api = "generate_binary_structure"
  rank = integer(rank, api, "rank")
  connectivity = integer(connectivity, api, "connectivity")
  if rank < 0 then fail(api, "rank must be a non-negative integer, got %d", rank) end
  if rank > 8 then fail(api, "rank must be at most 8 (gpuhost's most dims), got %d", rank) end
  if rank == 0 then return gpu.full({}, true, "bool") end
  local shape = {}
  for d = 1, rank do shape[d] = 3 end
  return gpu.array(structure_flat(rank, connectivity), "bool"):reshape(shape)
end

------------------------------------------------------------------------------------
-- binary morphology

local BKNOWN = "structure iterations mask output border_value origin brute_force"

-- The checked arguments of a binary operation: input as a C-ordered bool array (a new one,
-- or input itself), the structure's shape and elements, the mask (C-ordered bool or nil),
-- and opts
local function binary_args(api, input, structure, opts)
  input_of(input, api)
  structure, opts = optional(structure, opts)
  opts = options(opts, api, 3, BKNOWN)
  if structure ~= nil and opts.structure ~= nil then fail(api, "structure given twice (as argument 2 and as option structure)") end
  structure = structure or opts.structure
  if input.ndim == 0 then fail(api, "input is 0-D: give an array of at least one dim") end
  local shape, flat
  if structure == nil then
    -- (generate_binary_structure's elements made here: no array to make and read back)
    shape, flat = {}, {}
    for d = 1, input.ndim do shape[d] = 3 end
    for k, v in ipairs(structure_flat(input.ndim, 1)) do flat[k] = v and 1 or 0 end
  else
    shape, flat = read_structure(api, structure, input.ndim, "structure")
    if #flat == 0 then fail(api, "structure must not be empty") end
  end
  local mask
  if opts.mask ~= nil then
    local m = array_arg(api, opts.mask, "mask", "bool")
    common.here(m, api, "mask")
    local same = m.ndim == input.ndim
    for d = 1, input.ndim do same = same and m.shape[d] == input.shape[d] end
    if not same then fail(api, "mask must have input's shape {%s}, got {%s}", table.concat(input.shape, ", "), table.concat(m.shape, ", ")) end
    mask = gpu.ascontiguousarray(m, "bool")
  end
  local iterations = opts.iterations == nil and 1 or integer(opts.iterations, api, "iterations")
  local border = opts.border_value == nil and 0 or opts.border_value
  if type(border) == "boolean" then border = border and 1 or 0 end
  if type(border) ~= "number" then fail(api, "border_value must be a number or a boolean, got %s", described(border)) end
  local origins = origins_of(api, opts.origin, shape)
  return gpu.ascontiguousarray(input, "bool"), shape, flat, mask, iterations, border ~= 0 and 1 or 0, origins, opts
end

-- The connected components of x's true points (x C-ordered bool, neighbours along the taps
-- offs of n dims, a row each, which hold each tap's negation too): L (int32), each point's
-- root (its component's first point in C order; -1 for false points), by a union-find
-- (kernels/ndimage_morph.cu), and a scratch int32 array of x's size. Each pair of neighbours
-- is joined once, from the later point: along the taps whose first nonzero offset is negative.
local function components(x, offs, n)
  local before = {}
  for k = 1, n > 0 and #offs // n or 0 do
    local first = 0
    for d = 1, n do
      first = offs[(k - 1) * n + d]
      if first ~= 0 then break end
    end
    if first < 0 then
      for d = 1, n do before[#before + 1] = offs[(k - 1) * n + d] end
    end
  end
  -- (the taps go to the device before the first launch: a copy from the host waits for
  -- the work queued before it)
  local taps = #before > 0 and int64s(before)
  local chain = 0   -- whether the taps hold the left one (kernels/ndimage_morph.cu's ndm_label_merge)
  for k = 1, #before // n do
    local left = before[k * n] == -1
    for d = 1, n - 1 do left = left and before[(k - 1) * n + d] == 0 end
    if left then chain = 1 end
  end
  local L, scratch = gpu.empty({x.size}, "int32"), gpu.empty({x.size}, "int32")
  launch(kernel("ndm_label_init"), x.size, x, L)
  if taps then launch(kernel("ndm_label_merge"), x.size, x, L, taps, #before // n, chain) end
  launch(kernel("ndm_label_flatten"), x.size, L, x.size, scratch)
  return L, scratch
end

-- whether the taps (rows of n offsets) hold each one's negation
local function symmetric(offs, n)
  local set = {}
  for k = 1, #offs // n do set[table.concat(offs, ",", (k - 1) * n + 1, k * n)] = true end
  for k = 1, #offs // n do
    local neg = {}
    for d = 1, n do neg[d] = -offs[(k - 1) * n + d] end
    if not set[table.concat(neg, ",")] then return false end
  end
  return true
end

-- x (C-ordered bool) dilated within mask (C-ordered bool, or nil: everywhere) until nothing
-- changes, in five launches where the dilation's taps offs (n dims) are symmetric and, for
-- an x true somewhere in mask, hold the centre (then the points of mask reached are the
-- components of mask, by the taps, that hold a seed: kernels/ndimage_morph.cu's ndm_seed);
-- nil where they are not so
local function propagated(x, offs, n, mask, border)
  if x.size == 0 or x.size > INT32_MAX or not symmetric(offs, n) then return nil end
  local centre = false
  for k = 1, #offs // n do
    local zero = true
    for d = 1, n do zero = zero and offs[(k - 1) * n + d] == 0 end
    centre = centre or zero
  end
  local m = mask or gpu.ones(x.shape, "bool")
  if not centre and gpu.any(x:logical_and(m)) then
    if m ~= mask then m:free() end
    return nil
  end
  local L, touch = components(m, offs, n)
  touch:fill(0)
  local r = gpu.empty(x.shape, "bool")
  launch(kernel("ndm_seed"), x.size, m, x, L, int64s(offs), #offs // n, border, touch)
  launch(kernel("ndm_reach"), x.size, m, x, L, touch, r, x.size)
  L:free(); touch:free()
  if m ~= mask then m:free() end
  return r
end

-- x (C-ordered bool) eroded (or dilated) `iterations` times (< 1: until nothing changes);
-- a new array. x itself is never written.
local function binary(x, taps, K, mask, iterations, border, dilate)
  local k = kernel("ndm_binary")
  -- (the flag is read only until nothing changes: set to 0 before each batch there)
  local track = iterations < 1 and 1 or 0
  local flag = gpu.empty({1}, "int32")
  local a, b = x, nil   -- (b: the array the next step writes; nil: make one, x is never written)
  local cstrides, s = {}, 1   -- (x is C-ordered)
  for d = x.ndim, 1, -1 do cstrides[d], s = s, s * x.shape[d] end
  local geo, inner = inner_of(taps, x.ndim, cstrides)
  local function step()
    local dst = b or gpu.empty(x.shape, "bool")
    launch(k, (x.size + 3) // 4, a, dst, mask or a, mask and 1 or 0, K, geo, inner, border, dilate, flag, track)
    a, b = dst, a ~= x and a or nil
  end
  if x.size == 0 then return gpu.empty(x.shape, "bool") end
  if iterations >= 1 then
    for _ = 1, iterations do step() end
  else
    -- until a batch of steps changes nothing (steps past the fixed point change nothing);
    -- a batch, then one read of the flag. A structure with its centre changes points one
    -- way only, so it settles within x.size steps; one without can swing for ever (scipy's
    -- then never returns): stopped after x.size + 1.
    local batch, steps = 1, 0
    repeat
      flag:fill(0)
      for _ = 1, batch do step() end
      steps = steps + batch
      batch = math.min(batch * 2, 16)
    until flag:item() == 0 or steps > x.size
  end
  if b then b:free() end
  geo:free(); flag:free()
  return a
end

local function binary_op(api, dilate, input, structure, opts)
  local x, shape, flat, mask, iterations, border, origins
  x, shape, flat, mask, iterations, border, origins, opts = binary_args(api, input, structure, opts)
  local dt, out = output_of(api, opts.output, input, "bool")
  local offs, vals = taps_of(shape, flat, origins, function(v) return v ~= 0 end, dilate)
  local r = dilate and iterations < 1 and propagated(x, offs, #shape, mask, border)
  r = r or binary(x, offs, #vals, mask, iterations, border, dilate and 1 or 0)
  return deliver(r, dt, out)
end

function M.binary_erosion(input, structure, opts) return binary_op("binary_erosion", false, input, structure, opts) end
function M.binary_dilation(input, structure, opts) return binary_op("binary_dilation", true, input, structure, opts) end

-- opening: the erosion, then the dilation of that (closing the other way), both with the
-- iterations, mask, border value and origin given
local function binary_pair(api, first, input, structure, opts)
  local x, shape, flat, mask, iterations, border, origins
  x, shape, flat, mask, iterations, border, origins, opts = binary_args(api, input, structure, opts)
  local dt, out = output_of(api, opts.output, input, "bool")
  local keep = function(v) return v ~= 0 end
  local eo, ev = taps_of(shape, flat, origins, keep, false)
  local doff, dv = taps_of(shape, flat, origins, keep, true)
  local steps = {{eo, #ev, 0}, {doff, #dv, 1}}
  if first == 1 then steps[1], steps[2] = steps[2], steps[1] end
  local t = binary(x, steps[1][1], steps[1][2], mask, iterations, border, steps[1][3])
  local r = binary(t, steps[2][1], steps[2][2], mask, iterations, border, steps[2][3])
  t:free()
  return deliver(r, dt, out)
end

function M.binary_opening(input, structure, opts) return binary_pair("binary_opening", 0, input, structure, opts) end
function M.binary_closing(input, structure, opts) return binary_pair("binary_closing", 1, input, structure, opts) end

-- binary_propagation(input [, structure] [, opts]): the dilation repeated until nothing
-- changes, within mask
function M.binary_propagation(input, structure, opts)
  local api = "binary_propagation"
  structure, opts = optional(structure, opts)
  opts = options(opts, api, 3, "structure mask output border_value origin")
  local o = {iterations = -1}
  for k, v in pairs(opts) do o[k] = v end
  return as(api, binary_op, api, true, input, structure, o)
end

-- binary_fill_holes(input [, structure] [, opts]): the background that the border does not
-- reach (scipy's: a dilation of nothing within the background, the outside true, until
-- nothing changes) added to input
function M.binary_fill_holes(input, structure, opts)
  local api = "binary_fill_holes"
  input_of(input, api)
  structure, opts = optional(structure, opts)
  opts = options(opts, api, 3, "structure output origin")
  if structure ~= nil and opts.structure ~= nil then fail(api, "structure given twice (as argument 2 and as option structure)") end
  structure = structure or opts.structure
  if input.ndim == 0 then fail(api, "input is 0-D: give an array of at least one dim") end
  local dt, out = output_of(api, opts.output, input, "bool")
  local shape, flat = read_structure(api, structure == nil and M.generate_binary_structure(input.ndim, 1) or structure,
                                     input.ndim, "structure")
  if #flat == 0 then fail(api, "structure must not be empty") end
  local origins = origins_of(api, opts.origin, shape)
  local offs, vals = taps_of(shape, flat, origins, function(v) return v ~= 0 end, true)
  local background = gpu.ascontiguousarray(input, "bool"):logical_not()
  local none = gpu.zeros(input.shape, "bool")
  local reached = propagated(none, offs, #shape, background, 1)
    or binary(none, offs, #vals, background, -1, 1, 1)
  local r = reached:logical_not()
  reached:free(); none:free(); background:free()
  return deliver(r, dt, out)
end

-- binary_hit_or_miss(input [, structure1 [, structure2]] [, opts]): where structure1 fits
-- the foreground and structure2 (not structure1 by default) the background; opts origin1,
-- origin2 (origin2 origin1's by default), output
function M.binary_hit_or_miss(input, structure1, structure2, opts)
  local api = "binary_hit_or_miss"
  input_of(input, api)
  if opts == nil and type(structure2) == "table" and not is_array(structure2) and next(structure2) ~= nil and #structure2 == 0 then
    structure2, opts = nil, structure2
  end
  structure1, opts = optional(structure1, opts)
  opts = options(opts, api, 4, "origin1 origin2 output")
  if input.ndim == 0 then fail(api, "input is 0-D: give an array of at least one dim") end
  local s1 = structure1 == nil and M.generate_binary_structure(input.ndim, 1) or structure1
  local shape1, flat1 = read_structure(api, s1, input.ndim, "structure1")
  local shape2, flat2
  if structure2 == nil then
    shape2, flat2 = shape1, {}
    for k, v in ipairs(flat1) do flat2[k] = v ~= 0 and 0 or 1 end
  else
    shape2, flat2 = read_structure(api, structure2, input.ndim, "structure2")
  end
  -- (the filters' check, its message naming origin1 or origin2)
  local function named(o, shape, name)
    local ok, r = pcall(origins_of, api, o, shape)
    if not ok then error(type(r) == "string" and r:gsub(": origin", ": " .. name, 1) or r, 0) end
    return r
  end
  local o1 = named(opts.origin1, shape1, "origin1")
  local o2 = opts.origin2 == nil and o1 or named(opts.origin2, shape2, "origin2")
  local dt, out = output_of(api, opts.output, input, "bool")
  local keep = function(v) return v ~= 0 end
  local x = gpu.ascontiguousarray(input, "bool")
  local off1, v1 = taps_of(shape1, flat1, o1, keep)
  local hit = binary(x, off1, #v1, nil, 1, 0, 0)
  local inverse = x:logical_not()
  local off2, v2 = taps_of(shape2, flat2, o2, keep)
  local miss = binary(inverse, off2, #v2, nil, 1, 1, 0)   -- outside is background
  local r = hit:logical_and(miss)
  hit:free(); miss:free(); inverse:free()
  return deliver(r, dt, out)
end

-- iterate_structure(structure, iterations [, origin]): structure dilated by itself
-- iterations - 1 times (a bool device array); with origin also the origins times iterations
function M.iterate_structure(structure, iterations, origin)
  local api = "iterate_structure"
  iterations = integer(iterations, api, "iterations")
  local shape, flat = read_structure(api, structure, nil, "structure")
  if #shape == 0 then fail(api, "structure is 0-D: give an array of at least one dim") end
  if #flat == 0 then fail(api, "structure must not be empty") end
  local r
  if iterations < 2 then
    r = gpu.array(flat, "float64"):ne(0):reshape(shape)
  else
    local ni, big = iterations - 1, {}
    for d = 1, #shape do big[d] = shape[d] + ni * (shape[d] - 1) end
    local x = gpu.zeros(big, "bool")
    local key = {}
    for d = 1, #shape do key[d] = {ni * (shape[d] // 2) + 1, ni * (shape[d] // 2) + shape[d]} end
    x[key] = gpu.array(flat, "float64"):ne(0):reshape(shape)
    local zero = {}
    for d = 1, #shape do zero[d] = 0 end
    local offs, vals = taps_of(shape, flat, zero, function(v) return v ~= 0 end, true)
    r = binary(x, offs, #vals, nil, ni, 0, 1)
    x:free()
  end
  if origin == nil then return r end
  local list = {}
  if type(origin) == "table" then
    if #origin ~= #shape then fail(api, "origin must be one value or a table of %d (one a dim), got a table of %d", #shape, #origin) end
    for d = 1, #shape do list[d] = iterations * integer(origin[d], api, ("origin[%d]"):format(d)) end
  else
    local o = integer(origin, api, "origin")
    for d = 1, #shape do list[d] = iterations * o end
  end
  return r, list
end

------------------------------------------------------------------------------------
-- grey morphology

local GKNOWN = "size footprint structure output mode cval origin"

-- grey erosion (maximum false) or dilation of input: a flat one (size, footprint) is
-- scipy's minimum or maximum filter (the dilation's footprint reflected and origin
-- mirrored); with a structure, the least of input - structure (the greatest of input +
-- structure reflected) by ndm_grey
local function grey(api, maximum, input, size, opts)
  input_of(input, api)
  size, opts = optional(size, opts)
  opts = options(opts, api, 3, GKNOWN)
  if size ~= nil and opts.size ~= nil then fail(api, "size given twice (as argument 2 and as option size)") end
  size = size or opts.size
  if size == nil and opts.footprint == nil and opts.structure == nil then
    fail(api, "give a size, a footprint or a structure (argument 2, or options size =, footprint =, structure =)")
  end
  if input.ndim == 0 then fail(api, "input is 0-D: give an array of at least one dim") end
  if opts.structure == nil then
    local o = {mode = opts.mode, cval = opts.cval, origin = opts.origin, output = opts.output}
    local filter = maximum and nd.maximum_filter or nd.minimum_filter
    if maximum then
      local fshape
      if opts.footprint ~= nil then
        local f = array_arg(api, opts.footprint, "footprint", "bool")
        if f.ndim ~= input.ndim then fail(api, "footprint must have input's number of dims (%d), got %d", input.ndim, f.ndim) end
        o.footprint = gpu.flip(f)
        fshape = f.shape
      else
        fshape = {}
        for d = 1, input.ndim do
          fshape[d] = type(size) == "table" and size[d] or size
        end
      end
      local n, sizes = input.ndim, {}
      for d = 1, n do
        local sz = math.tointeger(fshape[d])
        if not sz or sz < 1 then sizes = nil; break end
        sizes[d] = sz
      end
      if sizes then   -- (else the filter says what is wrong with size)
        local origins = origins_of(api, opts.origin, sizes)
        for d = 1, n do origins[d] = -origins[d] - (sizes[d] % 2 == 0 and 1 or 0) end
        o.origin = origins
      end
    else
      o.footprint = opts.footprint
    end
    if opts.footprint ~= nil then return as(api, filter, input, o) end
    return as(api, filter, input, size, o)
  end
  local shape, flat = read_structure(api, opts.structure, input.ndim, "structure")
  if #flat == 0 then fail(api, "structure must not be empty") end
  local keep = function() return true end
  if opts.footprint ~= nil then
    local fshape, fflat = read_structure(api, opts.footprint, input.ndim, "footprint")
    for d = 1, #shape do
      if fshape[d] ~= shape[d] then
        fail(api, "footprint must have structure's shape {%s}, got {%s}", table.concat(shape, ", "), table.concat(fshape, ", "))
      end
    end
    keep = function(_, k) return fflat[k] ~= 0 end
  end
  local origins = origins_of(api, opts.origin, shape)
  local mode = mode_of(opts.mode, api)
  local cval = opts.cval == nil and 0.0 or opts.cval
  if type(cval) ~= "number" then fail(api, "cval must be a number, got %s", described(cval)) end
  local dt, out = output_of(api, opts.output, input, input.dtype)
  local offs, vals = taps_of(shape, flat, origins, keep, maximum)
  if #vals == 0 then fail(api, "footprint has no true element") end
  if maximum then   -- scipy reverses the structure: its first tap (not cast) is the last one
    local n, K, ro, rv = input.ndim, #vals, {}, {}
    for k = 1, K do
      rv[k] = vals[K + 1 - k]
      for d = 1, n do ro[(k - 1) * n + d] = offs[(K - k) * n + d] end
    end
    offs, vals = ro, rv
  end
  local r = gpu.empty(input.shape, dt)
  if input.size > 0 then
    local geo, inner = inner_of(offs, input.ndim, input.strides)
    launch(kernel("ndm_grey", CTYPE[input.dtype], CTYPE[dt]), input.size, input, r,
           gpu.array(vals, "float64"), #vals, geo, inner, maximum and 1 or 0, mode, cval * 1.0)
    geo:free()
  end
  return deliver(r, dt, out)
end

function M.grey_erosion(input, size, opts) return grey("grey_erosion", false, input, size, opts) end
function M.grey_dilation(input, size, opts) return grey("grey_dilation", true, input, size, opts) end

-- The options of a grey operation made of others: output left out (the parts are made in
-- input's dtype, as scipy's)
local function parts(api, input, size, opts)
  size, opts = optional(size, opts)
  opts = options(opts, api, 3, GKNOWN)
  local o = {}
  for k, v in pairs(opts) do if k ~= "output" then o[k] = v end end
  return size, o, opts.output
end

local function finish(api, r, input, output)
  local dt, out = output_of(api, output, input, r.dtype)
  return deliver(r, dt, out)
end

local function grey_pair(api, first, second, input, size, opts)
  input_of(input, api)
  local o, output
  size, o, output = parts(api, input, size, opts)
  local t = first(api, input, size, o)
  local r = second(api, t, size, o)
  t:free()
  return finish(api, r, input, output)
end
local function erode(api, x, size, o) return grey(api, false, x, size, o) end
local function dilate(api, x, size, o) return grey(api, true, x, size, o) end

function M.grey_opening(input, size, opts) return grey_pair("grey_opening", erode, dilate, input, size, opts) end
function M.grey_closing(input, size, opts) return grey_pair("grey_closing", dilate, erode, input, size, opts) end

-- morphological_gradient: dilation - erosion; morphological_laplace: dilation + erosion -
-- 2 input; white_tophat: input - opening (xor for bool); black_tophat: closing - input
-- (in input's dtype: integers wrap, as NumPy's)
local function combined(api, input, size, opts, how)
  input_of(input, api)
  local o, output
  size, o, output = parts(api, input, size, opts)
  return finish(api, how(size, o), input, output)
end

function M.morphological_gradient(input, size, opts)
  local api = "morphological_gradient"
  return combined(api, input, size, opts, function(s, o)
    local d, e = dilate(api, input, s, o), erode(api, input, s, o)
    local r = d - e
    d:free(); e:free()
    return r
  end)
end

function M.morphological_laplace(input, size, opts)
  local api = "morphological_laplace"
  return combined(api, input, size, opts, function(s, o)
    local d, e = dilate(api, input, s, o), erode(api, input, s, o)
    local t = d + e
    local r = t - input - input
    d:free(); e:free(); t:free()
    return r
  end)
end

-- white: input less its opening (xor for bool); black: its closing less input
local function tophat(api, white, input, size, opts)
  return combined(api, input, size, opts, function(s, o)
    local first, second = erode, dilate
    if not white then first, second = dilate, erode end
    local a = first(api, input, s, o)
    local t = second(api, a, s, o)
    a:free()
    local r
    if input.dtype == "bool" and t.dtype == "bool" then r = gpu.logical_xor(input, t)
    elseif white then r = input - t
    else r = t - input end
    t:free()
    return r
  end)
end

function M.white_tophat(input, size, opts) return tophat("white_tophat", true, input, size, opts) end
function M.black_tophat(input, size, opts) return tophat("black_tophat", false, input, size, opts) end

------------------------------------------------------------------------------------
-- label

-- label(input [, structure] [, opts]): the connected components of input's nonzero
-- elements (neighbours: structure, 3 x ... x 3 and symmetric; connectivity 1 by default),
-- numbered 1, 2, ... in the C order of their first elements (0: background), int32 (or
-- opts.output's dtype, or into opts.output), and their number
function M.label(input, structure, opts)
  local api = "label"
  input_of(input, api)
  structure, opts = optional(structure, opts)
  opts = options(opts, api, 3, "structure output")
  if structure ~= nil and opts.structure ~= nil then fail(api, "structure given twice (as argument 2 and as option structure)") end
  structure = structure or opts.structure
  local n = math.max(input.ndim, 1)
  local shape, flat = {}, {}
  if structure == nil then   -- (made here: no device array to make and read back)
    for d = 1, n do shape[d] = 3 end
    for k, v in ipairs(structure_flat(n, 1)) do flat[k] = v and 1 or 0 end
  else
    shape, flat = read_structure(api, structure, input.ndim, "structure")
  end
  for d = 1, #shape do
    if shape[d] ~= 3 then fail(api, "structure must be 3 along every dim, got {%s}", table.concat(shape, ", ")) end
  end
  for k = 1, #flat do
    if (flat[k] ~= 0) ~= (flat[#flat + 1 - k] ~= 0) then fail(api, "structure must be symmetric (through its centre)") end
  end
  local dt, out = output_of(api, opts.output, input, "int32")
  if input.size > INT32_MAX then fail(api, "input has %d elements: at most %d are labelled", input.size, INT32_MAX) end
  if input.size == 0 then return deliver(gpu.zeros(input.shape, "int32"), dt, out), 0 end
  local labels = gpu.empty(input.shape, "int32")   -- (ndm_label_number writes every element)
  local x = gpu.ascontiguousarray(input, "bool")
  if input.ndim == 0 then x = x:reshape({1}) end
  local zero = {}
  for d = 1, #shape do zero[d] = 0 end
  local offs = taps_of(shape, flat, zero, function(v) return v ~= 0 end)
  local L, rank = components(x, offs, #shape)
  gpu.cumsum(rank, {out = rank})   -- in place, in int32 (a count of at most x.size)
  launch(kernel("ndm_label_number"), x.size, L, rank, labels, x.size)
  local count = rank[{-1}]:item()
  L:free(); rank:free()
  local top = dt == "bool" and 1 or not dt:find("float") and gpu.iinfo(dt).max
  if top and count > top then   -- as scipy's: the labels would wrap
    labels:free()
    fail(api, "insufficient bit-depth in the output type %s for %d labels", dt, math.tointeger(count) or count)
  end
  return deliver(labels, dt, out), math.tointeger(count) or count
end

------------------------------------------------------------------------------------
-- measurements

local function label_array(api, labels, input)
  if not is_array(labels) then fail(api, "labels must be a device array, got %s", described(labels)) end
  if KIND[labels.dtype] ~= "i" and KIND[labels.dtype] ~= "u" and KIND[labels.dtype] ~= "b" then
    fail(api, "labels must be of an integer or bool dtype, got %s", labels.dtype)
  end
  common.here(labels, api, "labels")
  local ok, r = pcall(gpu.broadcast_to, labels, input.shape)
  if not ok then
    fail(api, "labels of shape {%s} do not broadcast to input's shape {%s}", table.concat(labels.shape, ", "), table.concat(input.shape, ", "))
  end
  return r
end

-- The regions of a measurement: bin (int32, input's size, C order: 1 + the region's number,
-- 0 outside every region), the number of regions nb, and pick(values): for the caller's
-- index (nil or a number: a single region; a table or array: a region each) the values of
-- a Lua list of nb + 1 (entry 1: outside) as scipy gives them, a Lua value or a list in the
-- index's order; `missing` for an index that is no integer (a label not found, as scipy's
-- sum and mean take it). keys: the regions' label values (sorted, distinct).
local function regions(api, input, labels, index)
  local n = input.size
  local single = labels == nil or index == nil or type(index) == "number"
  local bin
  local keys, order = {}, {}
  if labels == nil then
    bin = gpu.ones({n}, "int32")
    keys = {1}
  else
    labels = label_array(api, labels, input)
    if index == nil then
      bin = gpu.ascontiguousarray(labels:gt(0), "int32"):reshape({n})
      keys = {1}
    else
      local list = {}
      if type(index) == "number" then
        list = {index}
      elseif is_array(index) then
        if KIND[index.dtype] == "c" then fail(api, "index is %s: complex arrays are not supported", index.dtype) end
        local h = gpu.ascontiguousarray(index, "float64"):reshape(-1):tohost()
        for k = 1, index.size do list[k] = h[k] end
      elseif type(index) == "table" then
        for k, v in ipairs(index) do
          if type(v) ~= "number" then fail(api, "index[%d] must be a number, got %s", k, described(v)) end
          list[k] = v
        end
      else
        fail(api, "index must be a number, a table of numbers or a device array, got %s", described(index))
      end
      -- distinct integer keys, sorted; a label value that is no integer matches nothing
      local seen, ints = {}, {}
      for _, v in ipairs(list) do
        local i = math.tointeger(v)
        if i and not seen[i] then seen[i] = true; ints[#ints + 1] = i end
      end
      table.sort(ints)
      local place = {}
      for k, v in ipairs(ints) do place[v] = k end
      for k, v in ipairs(list) do order[k] = place[math.tointeger(v) or false] or 0 end
      keys = ints
      bin = gpu.empty({n}, "int32")
      if n > 0 then launch(kernel("ndm_bins", CTYPE[labels.dtype]), n, labels, int64s(ints), #ints, bin) end
    end
  end
  local nb = #keys
  local function pick(values, missing)
    if single then
      if order[1] == 0 then return missing end   -- (a number that is no integer: no region)
      return values[2]
    end
    local r = {}
    for k, p in ipairs(order) do r[k] = p > 0 and values[p + 1] or missing end
    return r
  end
  return bin, nb, pick, single, order
end

-- h: a host list, or a device array read back, as a Lua list
local function listed(a)
  local h, t = a:tohost(), {}
  for k = 1, a.size do t[k] = h[k] end
  return t
end

-- a list of numbers as scipy gives it for an array index: a device array of dtype
local function as_array(list, dtype)
  if #list == 0 then return gpu.empty({0}, dtype) end
  return gpu.array(list, "float64"):astype(dtype)
end

-- (input [, labels [, index]]): the checked input (C-ordered, flat), the regions
local function measured(api, input, labels, index)
  input_of(input, api)
  local x = gpu.ascontiguousarray(input):reshape({input.size})
  local bin, nb, pick, single = regions(api, input, labels, index)
  return x, bin, nb, pick, single
end

-- bin (regions' own array, made for one call) sorted once for all the sums of the call
local sorted_bins = setmetatable({}, {__mode = "k"})
local function runs_of(bin, nb)
  local r = sorted_bins[bin]
  if r == nil then
    r = gpu._bin_runs(bin, nb + 1)
    sorted_bins[bin] = r
  end
  return r
end
local function sums_of(x, bin, nb, weights) return listed(runs_of(bin, nb).sums(weights or x)) end
local function counts_of(bin, nb) return listed(runs_of(bin, nb).counts()) end

local function statistic(api, input, labels, index, f)
  local x, bin, nb, pick, single = measured(api, input, labels, index)
  local values = f(x, bin, nb)
  local r = pick(values, values.missing)
  if single then return r end
  return as_array(r, "float64")
end

-- sum_labels(input [, labels [, index]]) (and sum): the sum of each region
function M.sum_labels(input, labels, index)
  return statistic("sum_labels", input, labels, index, function(x, bin, nb)
    local t = sums_of(x, bin, nb)
    t.missing = 0.0
    return t
  end)
end
function M.sum(input, labels, index) return as("sum", M.sum_labels, input, labels, index) end

local function means(x, bin, nb)
  local s, c = sums_of(x, bin, nb), counts_of(bin, nb)
  local m = {missing = NAN}
  for k = 1, nb + 1 do m[k] = c[k] > 0 and s[k] / c[k] or NAN end   -- (0 / 0 would print -nan)
  return m, c
end

function M.mean(input, labels, index) return statistic("mean", input, labels, index, means) end

-- variance: the mean of the squares of each value less its region's mean
local function variances(x, bin, nb)
  local m, c = means(x, bin, nb)
  local full = {}
  for k = 1, nb + 1 do full[k] = m[k] == m[k] and m[k] or 0.0 end
  local centred = x:astype("float64") - gpu.take(gpu.array(full, "float64"), bin + 1)
  local s = sums_of(x, bin, nb, centred * centred)
  local v = {missing = NAN}
  for k = 1, nb + 1 do v[k] = c[k] > 0 and s[k] / c[k] or NAN end
  return v
end

function M.variance(input, labels, index) return statistic("variance", input, labels, index, variances) end
function M.standard_deviation(input, labels, index)
  return statistic("standard_deviation", input, labels, index, function(x, bin, nb)
    local v = variances(x, bin, nb)
    for k = 1, nb + 1 do v[k] = math.sqrt(v[k]) end
    return v
  end)
end

-- The least and greatest values of each region (0 for an empty one) and, with positions,
-- their flat places (0-based: the first of the least; the last of the greatest where `last`
-- (an index table or array: scipy's argsort path), else the first, as scipy's single-group
-- argmax; 0 for an empty region)
local function extremes(x, bin, nb, positions, last)
  local kmin = gpu.full({nb + 1}, -1, "uint64")
  local kmax = gpu.zeros({nb + 1}, "uint64")
  local T = CTYPE[x.dtype]
  local k = kernel("ndm_extrema", T)
  local dummy = gpu.zeros({1}, "int64")
  if x.size > 0 then launch(k, x.size, x, bin, nb + 1, kmin, kmax, dummy, dummy, 0, 0) end
  local vmin, vmax = gpu.empty({nb + 1}, "float64"), gpu.empty({nb + 1}, "float64")
  launch(kernel("ndm_extrema_values"), nb + 1, kmin, kmax, vmin, vmax, nb + 1)
  local r = {min = listed(vmin), max = listed(vmax)}
  -- a NaN in a region makes its least and greatest NaN, as scipy's (the ordered keys put a
  -- NaN at one end: the minimum passed over it)
  if (x.dtype == "float16" or x.dtype == "float32" or x.dtype == "float64") and x.size > 0 then
    local nan = gpu.isnan(x)
    if nan:any() then
      local c = sums_of(x, bin, nb, nan:astype("float64"))
      for j = 1, nb + 1 do if c[j] > 0 then r.min[j], r.max[j] = NAN, NAN end end
    end
  end
  if positions then
    local pmin = gpu.full({nb + 1}, x.size, "int64")
    local pmax = gpu.full({nb + 1}, last and -1 or x.size, "int64")
    if x.size > 0 then launch(k, x.size, x, bin, nb + 1, kmin, kmax, pmin, pmax, 1, last and 1 or 0) end
    r.pmin, r.pmax = listed(pmin), listed(pmax)
    for j = 1, nb + 1 do
      if r.pmin[j] >= x.size then r.pmin[j] = 0 end
      if r.pmax[j] < 0 or r.pmax[j] >= x.size then r.pmax[j] = 0 end
    end
  end
  return r
end

-- a flat place (0-based) as 1-based coordinates in shape
local function coordinates(p, shape)
  local c = {}
  for d = #shape, 1, -1 do
    c[d] = p % shape[d] + 1
    p = p // shape[d]
  end
  return c
end

-- (scipy's reductions of an empty input raise too)
local function nonempty(api, input)
  if is_array(input) and input.size == 0 then fail(api, "input is empty: it has no least or greatest value") end
end

local function extreme(api, input, labels, index, which)
  local x, bin, nb, pick, single = measured(api, input, labels, index)
  nonempty(api, input)
  local e = extremes(x, bin, nb, which == "pmin" or which == "pmax", not single)
  local r = pick(e[which], 0.0)
  if which == "min" or which == "max" then
    if single then return r end
    return as_array(r, input.dtype)
  end
  if single then return coordinates(math.tointeger(r), input.shape) end
  for k, p in ipairs(r) do r[k] = coordinates(math.tointeger(p), input.shape) end
  return r
end

function M.minimum(input, labels, index) return extreme("minimum", input, labels, index, "min") end
function M.maximum(input, labels, index) return extreme("maximum", input, labels, index, "max") end
function M.minimum_position(input, labels, index) return extreme("minimum_position", input, labels, index, "pmin") end
function M.maximum_position(input, labels, index) return extreme("maximum_position", input, labels, index, "pmax") end

-- extrema: the minimum, maximum and their positions (4 results)
function M.extrema(input, labels, index)
  local api = "extrema"
  local x, bin, nb, pick, single = measured(api, input, labels, index)
  nonempty(api, input)
  local e = extremes(x, bin, nb, true, not single)
  local lo, hi, plo, phi = pick(e.min, 0.0), pick(e.max, 0.0), pick(e.pmin, 0), pick(e.pmax, 0)
  if single then
    return lo, hi, coordinates(math.tointeger(plo), input.shape), coordinates(math.tointeger(phi), input.shape)
  end
  for k = 1, #plo do
    plo[k] = coordinates(math.tointeger(plo[k]), input.shape)
    phi[k] = coordinates(math.tointeger(phi[k]), input.shape)
  end
  return as_array(lo, input.dtype), as_array(hi, input.dtype), plo, phi
end

-- center_of_mass: each region's mean coordinates weighted by the values (1-based)
function M.center_of_mass(input, labels, index)
  local api = "center_of_mass"
  local x, bin, nb, pick, single = measured(api, input, labels, index)
  local total = sums_of(x, bin, nb)
  local w = x:astype("float64"):reshape(input.shape)
  local dims = {}
  for d = 1, input.ndim do
    local view = {}
    for e = 1, input.ndim do view[e] = e == d and input.shape[d] or 1 end
    local grid = gpu.arange(input.shape[d], "float64"):reshape(view)
    local s = sums_of(x, bin, nb, (w * grid):reshape({input.size}))
    local c = {}
    for k = 1, nb + 1 do
      local m = s[k] / total[k] + 1
      c[k] = m == m and m or NAN
    end
    dims[d] = pick(c, NAN)
  end
  if single then return dims end
  local r = {}
  for k = 1, #(dims[1] or {}) do
    r[k] = {}
    for d = 1, input.ndim do r[k][d] = dims[d][k] end
  end
  return r
end

-- median: the middle value of each region (the mean of the two middle ones for an even
-- count), float64 (float input: its dtype, as scipy's); NaN for a label not found. A
-- sort of the values by region, then by value (gpu.lexsort).
function M.median(input, labels, index)
  local api = "median"
  local x, bin, nb, pick, single = measured(api, input, labels, index)
  local float = KIND[input.dtype] == "f"
  local dt = float and input.dtype or "float64"
  local mids = {false}
  if x.size > 0 then
    local order = gpu.lexsort({x:astype("float64"), bin})
    local sorted = gpu.take(x, order)
    local sb = gpu.take(bin, order)
    local ids = gpu.arange(1, nb + 1, "int32")
    local lo = listed(gpu.searchsorted(sb, ids))
    local hi = listed(gpu.searchsorted(sb, ids, {side = "right"}))
    local at_lo, at_hi, found = {}, {}, {}
    for j = 1, nb do
      local a, b = lo[j], hi[j] - 1   -- 1-based, both included
      found[j] = b >= a
      if not found[j] then a, b = 1, 1 end
      local step = (b - a) // 2
      at_lo[j], at_hi[j] = a + step, b - step
    end
    local v1 = gpu.take(sorted, gpu.array(at_lo, "int64")):astype(dt)
    local v2 = gpu.take(sorted, gpu.array(at_hi, "int64")):astype(dt)
    local m = listed(((v1 + v2) / 2):astype(dt))
    for j = 1, nb do mids[j + 1] = found[j] and m[j] or NAN end
  else
    for j = 1, nb do mids[j + 1] = NAN end
  end
  local r = pick(mids, NAN)
  if single then return r end
  return as_array(r, dt)
end

-- labeled_comprehension(input, labels, index, func, out_dtype, default [, pass_positions]):
-- func (a Lua function) of each region's values (a 1-D device array, C order; and with
-- pass_positions their 1-based flat places, int64), default for an empty region; a Lua
-- value for a single region, else a device array of out_dtype
function M.labeled_comprehension(input, labels, index, func, out_dtype, default, pass_positions)
  local api = "labeled_comprehension"
  if type(func) ~= "function" and not (getmetatable(func) or {}).__call then
    fail(api, "func must be a function, got %s", described(func))
  end
  if pass_positions ~= nil and type(pass_positions) ~= "boolean" then   -- (0 and "false" passed them)
    fail(api, "pass_positions must be a boolean, got %s", described(pass_positions))
  end
  local dt = output_of(api, out_dtype, input, "float64")
  local x, bin, nb, pick, single = measured(api, input, labels, index)
  local places = pass_positions and gpu.arange(1, x.size + 1, "int64") or nil
  local values = {false}
  for j = 1, nb do
    local here = bin:eq(j)
    local v = gpu.extract(here, x)
    local r
    if v.size == 0 then
      r = default
    else
      if places then r = func(v, gpu.extract(here, places)) else r = func(v) end
      -- (nil became default, as an empty region's value; an array of more than one
      -- element reached r:item()'s words)
      if is_array(r) and r.size ~= 1 then
        fail(api, "func must give a number, got an array of %d elements (of a region of %d values)", r.size, v.size)
      end
      if is_array(r) then r = r:item() end
      if r == nil then fail(api, "func must give a number, got nil (of a region of %d values)", v.size) end
    end
    values[j + 1] = r
    here:free()
  end
  local r = pick(values, default)
  if single then return r end
  for k = 1, #r do
    local v = r[k]
    if type(v) == "boolean" then v = v and 1 or 0 end
    if type(v) ~= "number" then fail(api, "func must give numbers, got %s", described(v)) end
    r[k] = v
  end
  return as_array(r, dt)
end

-- histogram(input, min, max, bins [, labels [, index]]): NumPy's histogram of each
-- region's values in `bins` equal bins from min to max (int64 counts; a table of them for
-- an index table or array)
function M.histogram(input, min, max, bins, labels, index)
  local api = "histogram"
  input_of(input, api)
  if type(min) ~= "number" then fail(api, "min must be a number, got %s", described(min)) end
  if type(max) ~= "number" then fail(api, "max must be a number, got %s", described(max)) end
  bins = integer(bins, api, "bins")
  if bins < 1 then fail(api, "bins must be a positive integer, got %d", bins) end
  if not (max > min) then fail(api, "max must be greater than min, got min %s and max %s", shown(min), shown(max)) end
  local x, bin, nb, pick, single = measured(api, input, labels, index)
  local per = {false}
  for j = 1, nb do
    local values = gpu.extract(bin:eq(j), x)
    per[j + 1] = gpu.histogram(values, bins, {range = {min, max}})
    values:free()
  end
  local r = pick(per, false)
  if single then return r or gpu.zeros({bins}, "int64") end
  for k, h in ipairs(r) do if not h then r[k] = gpu.zeros({bins}, "int64") end end
  return r
end

-- The greatest of labels (integer or bool, not empty) as int64 (so a uint64 at or above 2^63
-- counts as negative): gpu.max on labels themselves, but for uint64 (whose order differs)
local function greatest(labels)
  if labels.dtype == "uint64" then return math.tointeger(gpu.max(labels:astype("int64"))) end
  local m = gpu.max(labels)
  if type(m) == "boolean" then return m and 1 or 0 end
  return math.tointeger(m)
end

-- find_objects(input [, max_label]): for labels 1 .. max_label (input's greatest by
-- default), the box of each: a table of {first, last} a dim (1-based, both included: a
-- view's key, input[box]), or false where the label does not occur
function M.find_objects(input, max_label)
  local api = "find_objects"
  input_of(input, api)
  if KIND[input.dtype] ~= "i" and KIND[input.dtype] ~= "u" and KIND[input.dtype] ~= "b" then
    fail(api, "input must be of an integer or bool dtype (labels), got %s", input.dtype)
  end
  if input.ndim == 0 then fail(api, "input is 0-D: give an array of at least one dim") end
  max_label = max_label == nil and 0 or integer(max_label, api, "max_label")
  if max_label < 1 then max_label = input.size > 0 and greatest(input) or 0 end
  if max_label < 1 then return {} end
  -- the kernel leaves the boxes as the table's own numbers, {first, last} a dim and label,
  -- so that one a:totable() (C) makes the whole result; a label that does not occur keeps
  -- last 0 and becomes false
  local n = input.ndim
  local box = gpu.empty({max_label, n, 2}, "int64")
  launch(kernel("ndm_boxes_init"), max_label * n, box, max_label * n)
  launch(kernel("ndm_boxes", CTYPE[input.dtype]), input.size, input, max_label, box)
  local r = box:totable()
  box:free()
  for l = 1, max_label do
    if r[l][1][2] == 0 then r[l] = false end
  end
  return r
end

-- their arrays (structure, mask, labels, ... too) on the current device, checked first
for name, f in pairs(M) do nd[name] = gpu._api(gpu._arg.on_device("ndimage." .. name, f)) end
