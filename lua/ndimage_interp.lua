-- ndimage_interp.lua: gpu.ndimage's interpolation, scipy.ndimage's (1.11): the B-spline
-- prefilters (spline_filter1d, spline_filter), the resampling functions (map_coordinates,
-- affine_transform, shift, zoom, rotate) and the Fourier filters (fourier_gaussian, ...)
-- on kernels/ndimage_interp.cu's kernels.
-- Loaded at the first call of one (lua/gpu.lua). Dims are 1-based, negative from the end;
-- every check raises through fail (level 0, gpu._api puts the caller's line on it).
local gpu = ...
local nd = gpu.ndimage
local is_array, described = gpu._is_array, gpu._described
local shown = gpu._arg.shown

local KIND, CTYPE, SIZE = {}, {}, {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name], CTYPE[d.name], SIZE[d.name] = d.kind, d.ctype, d.size end

local common = gpu._ndimage   -- lua/ndimage.lua's checks
local fail, number, options = common.fail, common.number, common.options
local constant = common.constant   -- small tables on the device, kept by contents and device

-- scipy's modes, numbered as the kernels' interp:: enum
local MODES = {nearest = 0, wrap = 1, reflect = 2, ["grid-mirror"] = 2, mirror = 3, constant = 4,
               ["grid-wrap"] = 5, ["grid-constant"] = 6}
local NEAREST, GRID_CONSTANT = 0, 6
-- the prefilter's boundary for each mode (scipy's apply_filter): mirror, wrap or reflect
local INIT = {[0] = 2, [1] = 0, [2] = 2, [3] = 0, [4] = 0, [5] = 1, [6] = 0}
local COORDS, AFFINE, ZOOM_SHIFT = 0, 1, 2
local PAD = 12   -- scipy pads the input by 12 for the nearest and grid-constant prefilters
local BLOCK, LINE_BLOCK, MAX_GRID = 256, 32, 65536
local SMALL_INDEX = 2 ^ 31 - 2 * MAX_GRID * BLOCK   -- (an int index plus the grid's stride fits)
local LOW_MAP_POINTS = 2   -- points a thread of ndi_map_low (its U), so that its grid's stride stays below 2^25

------------------------------------------------------------------------------------
-- checks

-- a (a device array) unless freed: an error naming api and `what`
local function live(a, api, what)
  if gpu._arg.freed(a) then fail(api, "%s is a freed array", what) end
  return a
end

-- the filters' input check, a freed array named as such first
local function input_of(a, api)
  if is_array(a) then live(a, api, "input") end
  return common.input_of(a, api)   -- (which checks the device too)
end

local function mode_of(m, api, default)
  if m == nil then m = default end
  local code = type(m) == "string" and MODES[m]
  if not code then
    fail(api, "mode must be 'constant', 'grid-constant', 'nearest', 'reflect', 'grid-mirror', 'mirror', 'grid-wrap' or 'wrap', got %s",
         type(m) == "string" and "'" .. m .. "'" or described(m))
  end
  return code
end

local function order_of(o, api, lo)
  if o == nil then return 3 end
  if type(o) == "number" and o == math.floor(o) then o = math.tointeger(o) or o end
  if math.type(o) ~= "integer" or o < lo or o > 5 then
    fail(api, "order must be an integer %d .. 5, got %s", lo, type(o) == "number" and shown(o) or described(o))
  end
  return o
end

local function flag(v, api, what, default)
  if v == nil then return default end
  if type(v) ~= "boolean" then fail(api, "%s must be a boolean, got %s", what, described(v)) end
  return v
end

-- v (a number or a table of n) as a list of n numbers
local function per_dim(v, n, api, what)
  if type(v) == "table" and not is_array(v) then
    gpu._arg.list(v, "ndimage." .. api, what, 0)   -- (a nil was 0: shift {nil, 1} moved neither way)
    if #v ~= n then fail(api, "%s must be a number or a table of %d (one a dim), got a table of %d", what, n, #v) end
    local t = {}
    for i = 1, n do t[i] = number(v[i], api, ("%s[%d]"):format(what, i)) end
    return t
  end
  if type(v) ~= "number" then fail(api, "%s must be a number or a table of %d (one a dim), got %s", what, n, described(v)) end
  local t = {}
  for i = 1, n do t[i] = v + 0.0 end
  return t
end

local function size_of(shape)
  local s = 1
  for _, v in ipairs(shape) do s = s * v end
  return s
end

local function shape_text(s) return "{" .. table.concat(s, ", ") .. "}" end

-- The output's dtype and, where `output` is an array, that array (of shape `shape`)
local function output_of(out, default, shape, api, complex_ok)
  return common.result_output(out, default, shape, api, "the result's shape", complex_ok)
end

------------------------------------------------------------------------------------
-- the kernels

local SOURCE
local kernels = {}
local function kernel(name)
  local k = kernels[name]
  if not k then
    SOURCE = SOURCE or gpu._embedded("kernels/ndimage_interp.cu")
    k = gpu.module(SOURCE, {names = {name}})[name]
    kernels[name] = k
  end
  return k
end

local function grid_for(n, block) return math.max(1, math.min(MAX_GRID, (n + block - 1) // block)) end

-- input as a new float64 C-ordered array, dim d widened by pads[d] on both sides with the
-- edge's values (edge) or cval
local function padded(input, pads, edge, cval)
  local shape, any = {}, false
  for d = 1, input.ndim do
    shape[d] = input.shape[d] + 2 * pads[d]
    any = any or pads[d] > 0
  end
  local out = gpu.empty(shape, "float64")
  if out.size == 0 then return out end
  local plan = {}
  for d = 1, math.max(1, input.ndim) do plan[d] = pads[d] or 0 end
  kernel(("ndi_pad<%s>"):format(CTYPE[input.dtype]))[{grid_for(out.size, BLOCK), BLOCK}](
    input, out, constant(plan, "int64", input.device), out.size, edge and 1 or 0, cval or 0.0)
  return out
end

-- scipy's poles of the B-spline prefilter of each order (the roots of its polynomial
-- inside the unit circle)
local POLES = {
  [2] = {math.sqrt(8.0) - 3.0},
  [3] = {math.sqrt(3.0) - 2.0},
  [4] = {math.sqrt(664.0 - math.sqrt(438976.0)) + math.sqrt(304.0) - 19.0,
         math.sqrt(664.0 + math.sqrt(438976.0)) - math.sqrt(304.0) - 19.0},
  [5] = {math.sqrt(67.5 - math.sqrt(4436.25)) + math.sqrt(26.25) - 6.5,
         math.sqrt(67.5 + math.sqrt(4436.25)) - math.sqrt(26.25) - 6.5},
}

-- The prefilter of `order` (2..5) along dim d of c (float64, C-ordered), in place; the
-- result also into out (C-ordered of c's shape, of any dtype; or c itself)
local function spline_pass(c, out, d, order, mode)
  if c.size == 0 then return end
  local len, inner = c.shape[d], 1
  for e = d + 1, c.ndim do inner = inner * c.shape[e] end
  local poles, gain = POLES[order], 1.0
  for _, z in ipairs(poles) do gain = gain * (1.0 - z) * (1.0 - 1.0 / z) end
  local lines = c.size // len
  kernel(("ndi_spline<%s>"):format(CTYPE[out.dtype]))[{grid_for(lines, LINE_BLOCK), LINE_BLOCK}](
    c, out, lines, len, inner, #poles, poles[1], poles[2] or 0.0, gain, INIT[mode])
end

-- input in dtype dt as scipy's copy (numpy's cast) makes it: a float input into an integer
-- dtype as x86-64's conversions (the prefilter's C cast, ndi_spline's lines of one: NaN and
-- values past int32's range, int64's for uint32 and int64, are the least of those, wrapped
-- to the width), where astype would saturate; any other pair by astype
local function copied(input, dt)
  if KIND[input.dtype] ~= "f" or (KIND[dt] ~= "i" and KIND[dt] ~= "u") or input.size == 0 then return input:astype(dt) end
  local pads = {}
  for e = 1, input.ndim do pads[e] = 0 end
  local c, r = padded(input, pads), gpu.empty(input.shape, dt)
  kernel(("ndi_spline<%s>"):format(CTYPE[dt]))[{grid_for(c.size, LINE_BLOCK), LINE_BLOCK}](
    c, r, c.size, 1, 1, 1, 0.0, 0.0, 1.0, 0)
  c:free()
  return r
end

-- v as a value of dtype dt holds it, as numpy's cast puts it (np.pad's constant_values):
-- integers truncated and wrapped to the width, bool v ~= 0, float32 rounded
local function numpy_value(v, dt)
  local k = KIND[dt]
  if dt == "float32" then return (string.unpack("f", string.pack("f", v))) end
  if dt == "bool" then return v ~= 0 and 1.0 or 0.0 end
  if (k == "i" or k == "u") and math.abs(v) < 2 ^ 63 then
    local t = math.tointeger(v < 0 and math.ceil(v) or math.floor(v))
    local bits = 8 * SIZE[dt]
    if bits < 64 then
      t = t & ((1 << bits) - 1)
      if k == "i" and t >= 1 << (bits - 1) then t = t - (1 << bits) end
    elseif k == "u" and t < 0 then
      return t + 2.0 ^ 64
    end
    return t + 0.0
  end
  if k == "i" or k == "u" then   -- NaN, infinities, past int64: astype's (saturated, NaN 0)
    local h = gpu.array({v}, "float64"):astype(dt):item()
    return h + 0.0
  end
  return v
end

-- The result r put where the caller asked: into output (an array) or returned
local function deliver(r, out)
  if not out or r == out then return r end
  out[{}] = r
  r:free()
  return out
end

------------------------------------------------------------------------------------
-- spline filters

-- spline_filter1d(input [, dim] [, opts]): the prefilter along dim (the last by default);
-- opts {order = 3, mode = "mirror", output = "float64"}. Orders 0 and 1 copy.
function nd.spline_filter1d(input, dim, opts)
  local api = "spline_filter1d"
  input_of(input, api)
  if type(dim) == "table" and opts == nil then dim, opts = nil, dim end
  opts = options(opts, api, 3, "order mode output")
  if input.ndim == 0 then fail(api, "input is 0-D: it has no dim to filter along") end
  if dim == nil then dim = -1 end
  if type(dim) == "number" and dim == math.floor(dim) then dim = math.tointeger(dim) or dim end
  if math.type(dim) ~= "integer" or dim == 0 or dim > input.ndim or dim < -input.ndim then
    fail(api, "dim %s is out of range for %d-D arrays", type(dim) == "number" and shown(dim) or described(dim), input.ndim)
  end
  local d = dim < 0 and dim + input.ndim + 1 or dim
  local order = order_of(opts.order, api, 0)
  local mode = mode_of(opts.mode, api, "mirror")
  local dt, out = output_of(opts.output, "float64", input.shape, api)
  if order < 2 then return deliver(copied(input, dt), out) end
  local pads = {}
  for e = 1, input.ndim do pads[e] = 0 end
  local c = padded(input, pads)
  local r = dt == "float64" and c or gpu.empty(input.shape, dt)
  spline_pass(c, r, d, order, mode)
  if r ~= c then c:free() end
  return deliver(r, out)
end

-- spline_filter(input [, opts]): the prefilter along every dim in turn, each pass written
-- in the output's dtype as scipy's; opts {order = 3 (2..5), mode = "mirror", output = "float64"}
function nd.spline_filter(input, opts)
  local api = "spline_filter"
  input_of(input, api)
  opts = options(opts, api, 2, "order mode output")
  local order = order_of(opts.order, api, 2)
  local mode = mode_of(opts.mode, api, "mirror")
  local dt, out = output_of(opts.output, "float64", input.shape, api)
  if input.ndim == 0 then return deliver(copied(input, dt), out) end
  local pads = {}
  for e = 1, input.ndim do pads[e] = 0 end
  local c = padded(input, pads)
  local r = dt == "float64" and c or gpu.empty(input.shape, dt)
  for d = 1, input.ndim do spline_pass(c, r, d, order, mode) end
  if r ~= c then c:free() end
  return deliver(r, out)
end

------------------------------------------------------------------------------------
-- resampling

local KNOWN = "output order mode cval prefilter"

-- A resampling function's checks of input (of at least min_ndim dims) and of its options
-- (KNOWN and `extra`): the options, then order, mode, cval and prefilter
local function begin(api, input, opts, extra, min_ndim)
  input_of(input, api)
  opts = options(opts, api, 3, extra and KNOWN .. " " .. extra or KNOWN)
  local order = order_of(opts.order, api, 0)
  local mode = mode_of(opts.mode, api, "constant")
  local cval = number(opts.cval, api, "cval", 0.0)
  local prefilter = flag(opts.prefilter, api, "prefilter", true)
  if input.ndim < (min_ndim or 1) then
    if input.ndim == 0 then fail(api, "input is 0-D: it needs at least one dim") end
    fail(api, "input must have at least %d dims, got %d", min_ndim, input.ndim)
  end
  return opts, order, mode, cval, prefilter
end

-- What the interpolation reads: input's spline coefficients along the dims `dims` (all
-- where nil), as scipy's: padded by 12 first for the nearest and grid-constant modes
-- (by the edge, by cval), float64; or input itself (order 0 or 1, or no prefilter).
-- Returns the array and the padding of each dim.
local function coefficients(input, dims, order, mode, cval, prefilter)
  local pads, along = {}, {}
  for d = 1, input.ndim do pads[d], along[d] = 0, dims == nil end
  for _, d in ipairs(dims or {}) do along[d] = true end
  if not prefilter or order < 2 then return input, pads end
  for d = 1, input.ndim do
    if along[d] and (mode == NEAREST or mode == GRID_CONSTANT) then pads[d] = PAD end
  end
  -- (scipy pads with np.pad, which puts cval in the input's dtype: an integer input's is
  -- truncated and wrapped, a float32's rounded)
  local pad_value = mode == GRID_CONSTANT and numpy_value(cval, input.dtype) or cval
  local c = padded(input, pads, mode == NEAREST, pad_value)
  for d = 1, input.ndim do
    if along[d] then spline_pass(c, c, d, order, mode) end
  end
  return c, pads
end

-- A new array of shape and dtype dt for api's result, or an error naming api (a shape
-- too large to hold, the device's memory short)
local function new_result(api, shape, dt)
  local ok, r = pcall(gpu.empty, shape, dt)
  if not ok then
    local t = {}
    for i, v in ipairs(shape) do t[i] = shown(v) end
    fail(api, "the result of shape {%s} cannot be made (%s)", table.concat(t, ", "), tostring(r))
  end
  return r
end

local dummies = {}   -- the coordinates that kinds other than COORDS pass, a device
-- The output of shape `shape` (dtype dt, or into out) of input's spline at the coordinates
-- `how` gives: {kind =, coords = (COORDS), matrix = (AFFINE, rows of shape's length),
-- offset =, zoom = (ZOOM_SHIFT), shift =, grid = , dims = (the interpolated dims; all
-- where nil)}
local function resample(api, input, shape, dt, out, how, order, mode, cval, prefilter)
  local n = input.ndim
  -- written in place where output shares no memory with what the kernel reads
  local function root(a) return a and (a.base or a) end
  local into = out and out:is_contiguous() and root(out) ~= root(input) and root(out) ~= root(how.coords) and out or nil
  local r = into or new_result(api, shape, dt)
  if r.size == 0 then return deliver(r, out) end
  local c, pads = coefficients(input, how.dims, order, mode, cval, prefilter)
  local plan, par = {}, {}
  for d = 1, 19 do plan[d] = 0 end
  for d = 1, 88 do par[d] = 0.0 end
  for d = 1, n do
    plan[d], plan[8 + d] = how.dims == nil and 1 or 0, pads[d]
  end
  for _, d in ipairs(how.dims or {}) do plan[d] = 1 end
  if how.kind == AFFINE then
    local od = #shape
    for d = 1, n do
      for l = 1, od do par[(d - 1) * od + l] = how.matrix[d][l] end
      par[64 + d] = how.offset[d]
    end
  elseif how.kind == ZOOM_SHIFT then
    for d = 1, n do
      par[72 + d], par[80 + d] = how.zoom and how.zoom[d] or 0.0, how.shift and how.shift[d] or 0.0
    end
    plan[17], plan[18], plan[19] = how.zoom and 1 or 0, how.shift and 1 or 0, how.grid and 1 or 0
  end
  local coords = how.coords
  if not coords then
    dummies[input.device] = dummies[input.device] or gpu.with_device(input.device, gpu.zeros, {1}, "float64")
    coords = dummies[input.device]
  end
  -- Inputs of 1 to 3 dims by a kernel of their order, mode and kind, whose tables of taps
  -- fit in registers and whose boundary handling is straight-line code (a kernel each,
  -- compiled at its first use; at orders 0 and 1 the work a point is small beside the
  -- boundary's, and at 2 to 5 the taps inside the input skip it). Indices in
  -- 32 bits where every one the kernel makes stays below 2^31: out's and coords' elements
  -- (and the grid's stride past them), input's dims and offsets.
  local fixed = n <= 3
  local extent, longest = 0, 0
  for d = 1, n do
    extent = extent + math.abs(c.strides[d]) * math.max(c.shape[d] - 1, 0)
    longest = math.max(longest, c.shape[d])   -- (a dim of stride 0 adds no extent)
  end
  local small = math.max(r.size, coords.size, extent, longest) <= SMALL_INDEX
  local dev = input.device
  -- Orders 0 and 1 of 1 to 3 dims, int indices: the kernels that keep several points' taps
  -- in flight a thread (map_coordinates, and zoom, shift and affine maps of the input's ndim
  -- that interpolate every dim: a 2-D grid over the output's last dim and its rows)
  local every_dim = true
  for d = 1, n do every_dim = every_dim and plan[d] == 1 end
  if small and n <= 3 and order <= 1 and (how.kind ~= AFFINE or (#shape == n and every_dim)) then
    local T, O = CTYPE[c.dtype], CTYPE[dt]
    if how.kind == COORDS then
      kernel(("ndi_map_low<%s, %s, %s, %d, %d, %d, %d>"):format(T, O, coords.dtype == "float32" and "float" or "double", n,
                                                                 order, mode, LOW_MAP_POINTS))[{grid_for(r.size, BLOCK * LOW_MAP_POINTS), BLOCK}](
        c, r, coords, cval)
    else
      local cols = shape[#shape]
      local rows = r.size // cols
      local bx = 32
      while bx < cols and bx < BLOCK do bx = bx * 2 end
      local by = BLOCK // bx
      -- rows in groups of `per` a thread (the kernel's U); a thread takes up to 4 groups (its
      -- setup and ZOOM_SHIFT's last-dim taps made once for them) while the grid keeps 4096 blocks
      local per = n == 1 and 1 or how.kind == ZOOM_SHIFT and 4 or 2
      local gx = grid_for(cols, bx)
      local groups = (rows + by * per - 1) // (by * per)
      local gy = math.min(groups, MAX_GRID - 1, math.max((groups + 3) // 4, (4096 + gx - 1) // gx))
      kernel(("ndi_interp_low<%s, %s, %d, %d, %d, %d, %d>"):format(T, O, n, order, mode, how.kind, per))[{{gx, gy}, {bx, by}}](
        c, r, constant(par, "float64", dev), plan[17], plan[18], plan[19], cval)
    end
    return deliver(r, out)
  end
  local name = ("ndi_interp<%s, %s, %s, %d, %d, %d, %d, %s>"):format(
    CTYPE[c.dtype], CTYPE[dt], coords.dtype == "float32" and "float" or "double", n <= 3 and n or 0,
    n <= 3 and order or -1, fixed and mode or -1, fixed and how.kind or -1, small and "int" or "long long")
  kernel(name)[{grid_for(r.size, BLOCK), BLOCK}](c, r, coords, constant(plan, "int64", dev), constant(par, "float64", dev),
                                                 how.kind, order, mode, cval)
  if c ~= input then c:free() end
  return deliver(r, out)
end

-- map_coordinates(input, coordinates [, opts]): the input's spline at each point of
-- coordinates (a device array or nested table of shape {input.ndim, ...}: the result's
-- shape is the rest)
function nd.map_coordinates(input, coordinates, opts)
  local api = "map_coordinates"
  local order, mode, cval, prefilter
  opts, order, mode, cval, prefilter = begin(api, input, opts)
  local coords = coordinates
  if type(coords) == "table" and not is_array(coords) then
    local ok, r = pcall(gpu.array, coords, "float64")
    if not ok then fail(api, "coordinates must be a device array or a nested table of numbers (%s)", tostring(r)) end
    coords = r
  elseif not is_array(coords) then
    fail(api, "coordinates must be a device array or a nested table of numbers, got %s", described(coords))
  elseif live(coords, api, "coordinates") and KIND[coords.dtype] == "c" then
    fail(api, "coordinates are %s: complex coordinates are not supported", coords.dtype)
  end
  gpu._arg.here("ndimage." .. api, {coords, "coordinates"})
  if coords.ndim < 2 or coords.shape[1] ~= input.ndim then
    fail(api, "coordinates must have the shape {%d, ...} (input's ndim, then the result's shape), got %s",
         input.ndim, shape_text(coords.shape))
  end
  if coords.dtype ~= "float32" and coords.dtype ~= "float64" then coords = coords:astype("float64")
  elseif not coords:is_contiguous() then coords = gpu.ascontiguousarray(coords) end
  local shape = {}
  for d = 2, coords.ndim do shape[d - 1] = coords.shape[d] end
  local dt, out = output_of(opts.output, input.dtype, shape, api)
  if input.size == 0 and coords.size > 0 then fail(api, "input is empty: there is nothing to interpolate") end
  return resample(api, input, shape, dt, out, {kind = COORDS, coords = coords}, order, mode, cval, prefilter)
end

-- A matrix as rows of numbers: a table of numbers (one row), a nested table, or a device or
-- host array of 1 or 2 dims
local function matrix_rows(m, api)
  if is_array(m) or (type(m) == "userdata" and getmetatable(m) == gpu._meta.hostarray) then
    live(m, api, "matrix")
    if KIND[m.dtype] == "c" then fail(api, "matrix is %s: complex matrices are not supported", m.dtype) end
    if m.ndim ~= 1 and m.ndim ~= 2 then fail(api, "matrix must have 1 or 2 dims, got %d", m.ndim) end
    local t = gpu.array(m):astype("float64"):totable()
    return t, m.ndim
  end
  if type(m) ~= "table" then fail(api, "matrix must be a table of numbers, a nested table or an array, got %s", described(m)) end
  if #m == 0 then fail(api, "matrix must not be empty") end
  if type(m[1]) == "number" then
    for i, x in ipairs(m) do
      if type(x) ~= "number" then fail(api, "matrix[%d] must be a number, got %s", i, described(x)) end
    end
    return m, 1
  end
  for i, row in ipairs(m) do
    if type(row) ~= "table" or #row ~= #m[1] then fail(api, "matrix must be rows of equal length (row %d)", i) end
    for j, x in ipairs(row) do
      if type(x) ~= "number" then fail(api, "matrix[%d][%d] must be a number, got %s", i, j, described(x)) end
    end
  end
  return m, 2
end

local function shape_of(s, api, what)
  if type(s) ~= "table" or is_array(s) then fail(api, "%s must be a table of sizes, got %s", what, described(s)) end
  local t = {}
  for i = 1, #s do
    local v = s[i]
    if type(v) == "number" and v == math.floor(v) then v = math.tointeger(v) or v end
    if math.type(v) ~= "integer" or v < 0 then fail(api, "%s[%d] must be a non-negative integer, got %s", what, i, gpu._arg.shown(v)) end
    t[i] = v
  end
  if #t == 0 then fail(api, "%s must have at least one dim", what) end
  return t
end

-- affine_transform(input, matrix [, opts]): the input's spline at matrix * o + offset for
-- each output index o; matrix of shape {ndim} (a diagonal), {ndim, out ndim},
-- {ndim, ndim + 1} or {ndim + 1, ndim + 1} (homogeneous: its last column the offset);
-- opts KNOWN and {offset = 0, output_shape =}
function nd.affine_transform(input, matrix, opts)
  local api = "affine_transform"
  local order, mode, cval, prefilter
  opts, order, mode, cval, prefilter = begin(api, input, opts, "offset output_shape")
  local n = input.ndim
  local shape = opts.output_shape and shape_of(opts.output_shape, api, "output_shape")
    or is_array(opts.output) and opts.output.shape or input.shape
  local dt, out = output_of(opts.output, input.dtype, shape, api)
  local m, mdims = matrix_rows(matrix, api)
  local offset = opts.offset
  if mdims == 2 and #m[1] == n + 1 and (#m == n or #m == n + 1) then
    if #m == n + 1 then
      for j = 1, n + 1 do
        if m[n + 1][j] ~= (j == n + 1 and 1 or 0) then
          fail(api, "a homogeneous matrix (%d x %d) must end in the row {0, ..., 0, 1}", n + 1, n + 1)
        end
      end
    end
    offset = {}
    local rows = {}
    for d = 1, n do
      rows[d] = {}
      for j = 1, n do rows[d][j] = m[d][j] end
      offset[d] = m[d][n + 1]
    end
    m = rows
  end
  if #m ~= n then fail(api, "matrix must have input's ndim (%d) rows, got %d", n, #m) end
  if mdims == 2 and #m[1] ~= #shape then fail(api, "matrix must have the output's ndim (%d) columns, got %d", #shape, #m[1]) end
  offset = per_dim(offset or 0, n, api, "offset")
  if input.size == 0 and size_of(shape) > 0 then fail(api, "input is empty: there is nothing to interpolate") end
  if mdims == 1 then   -- scipy's zoom and shift: (o + offset / m) * m
    if #shape ~= n then fail(api, "output_shape must have input's ndim (%d) for a matrix of one dim, got %d", n, #shape) end
    local shift = {}
    for d = 1, n do shift[d] = offset[d] / m[d] end
    return resample(api, input, shape, dt, out, {kind = ZOOM_SHIFT, zoom = m, shift = shift}, order, mode, cval, prefilter)
  end
  return resample(api, input, shape, dt, out, {kind = AFFINE, matrix = m, offset = offset}, order, mode, cval, prefilter)
end

-- shift(input, shift [, opts]): the input moved by shift (a number or one a dim)
function nd.shift(input, shift, opts)
  local api = "shift"
  local order, mode, cval, prefilter
  opts, order, mode, cval, prefilter = begin(api, input, opts)
  local s = per_dim(shift, input.ndim, api, "shift")
  for d = 1, #s do s[d] = -s[d] end
  local dt, out = output_of(opts.output, input.dtype, input.shape, api)
  return resample(api, input, input.shape, dt, out, {kind = ZOOM_SHIFT, shift = s}, order, mode, cval, prefilter)
end

-- Python's round(): to the nearest integer, halves to the even one
local function round_even(x)
  local f = math.floor(x)
  local r = x - f
  if r > 0.5 or (r == 0.5 and f % 2 == 1) then f = f + 1 end
  return math.tointeger(f) or f
end

-- zoom(input, zoom [, opts]): the input resampled to round(shape * zoom) (a number or one
-- a dim); opts KNOWN and {grid_mode = false}
function nd.zoom(input, zoom, opts)
  local api = "zoom"
  local order, mode, cval, prefilter
  opts, order, mode, cval, prefilter = begin(api, input, opts, "grid_mode")
  local grid = flag(opts.grid_mode, api, "grid_mode", false)
  local n = input.ndim
  local z = per_dim(zoom, n, api, "zoom")
  local shape, factors = {}, {}
  for d = 1, n do
    if not (z[d] >= 0 and z[d] < math.huge) then fail(api, "zoom must be finite and non-negative, got %s", shown(z[d])) end
    shape[d] = round_even(input.shape[d] * z[d])
    local num, div = input.shape[d], shape[d]
    if not grid then num, div = num - 1, div - 1 end
    factors[d] = div ~= 0 and num / div or 1.0   -- scipy's: a zoom to one element is 1
  end
  local dt, out = output_of(opts.output, input.dtype, shape, api)
  if input.size == 0 and size_of(shape) > 0 then fail(api, "input is empty: there is nothing to interpolate") end
  -- a zoom of 1 along every dim with the prefilter: the input, copied as NumPy casts it (a
  -- float into an integer truncated, not rounded), whatever the order and mode, as scipy
  -- 1.17's early exit (gh-20999)
  local same = prefilter
  for d = 1, n do same = same and z[d] == 1 end
  if same then return deliver(copied(input, dt), out) end
  return resample(api, input, shape, dt, out, {kind = ZOOM_SHIFT, zoom = factors, grid = grid}, order, mode, cval, prefilter)
end

-- cos and sin of an angle in degrees, exact at multiples of 90 (as scipy's cosdg, sindg)
local function cos_sin_degrees(a)
  local r = math.fmod(a, 360.0)
  if r < 0 then r = r + 360.0 end
  if r == 0 then return 1.0, 0.0 elseif r == 90 then return 0.0, 1.0
  elseif r == 180 then return -1.0, 0.0 elseif r == 270 then return 0.0, -1.0 end
  local t = math.rad(r)
  return math.cos(t), math.sin(t)
end

-- rotate(input, angle [, opts]): the input rotated by angle degrees in the plane of dims
-- (two dims, {1, 2} by default), about its centre; the other dims' planes each alike.
-- opts KNOWN and {dims =, reshape = true (the output grows to hold the whole input)}
function nd.rotate(input, angle, opts)
  local api = "rotate"
  local order, mode, cval, prefilter
  opts, order, mode, cval, prefilter = begin(api, input, opts, "dims reshape", 2)
  local n = input.ndim
  angle = number(angle, api, "angle")
  if not (math.abs(angle) < math.huge) then fail(api, "angle must be finite, got %s", shown(angle)) end
  local dims = opts.dims or {1, 2}
  if type(dims) ~= "table" or #dims ~= 2 then
    fail(api, "dims must be a table of two dims, got %s", type(dims) == "table" and ("a table of %d"):format(#dims) or described(dims))
  end
  local ab = {}
  for i = 1, 2 do
    local v = dims[i]
    if type(v) == "number" and v == math.floor(v) then v = math.tointeger(v) or v end
    if math.type(v) ~= "integer" or v == 0 or v > n or v < -n then
      fail(api, "dims[%d] is out of range for %d-D arrays, got %s", i, n, tostring(dims[i]))
    end
    ab[i] = v < 0 and v + n + 1 or v
  end
  if ab[1] == ab[2] then fail(api, "dims must be two different dims, got %d twice", ab[1]) end
  table.sort(ab)
  local reshape = flag(opts.reshape, api, "reshape", true)
  local c, s = cos_sin_degrees(angle)
  local iy, ix = input.shape[ab[1]], input.shape[ab[2]]
  local oy, ox = iy, ix
  if reshape then   -- the rotated corners' extent (scipy's int(ptp + 0.5))
    local ys = {0.0, s * ix, c * iy, c * iy + s * ix}
    local xs = {0.0, c * ix, -s * iy, -s * iy + c * ix}
    local function extent(v) return math.max(table.unpack(v)) - math.min(table.unpack(v)) end
    oy, ox = math.floor(extent(ys) + 0.5), math.floor(extent(xs) + 0.5)
    oy, ox = math.tointeger(oy), math.tointeger(ox)
  end
  local cy, cx = (oy - 1) / 2, (ox - 1) / 2
  local offset = {}
  for d = 1, n do offset[d] = 0.0 end
  offset[ab[1]] = (iy - 1) / 2 - (c * cy + s * cx)
  offset[ab[2]] = (ix - 1) / 2 - (-s * cy + c * cx)
  local shape, matrix = {}, {}
  for d = 1, n do
    shape[d] = input.shape[d]
    matrix[d] = {}
    for e = 1, n do matrix[d][e] = 0.0 end
  end
  shape[ab[1]], shape[ab[2]] = oy, ox
  matrix[ab[1]][ab[1]], matrix[ab[1]][ab[2]] = c, s
  matrix[ab[2]][ab[1]], matrix[ab[2]][ab[2]] = -s, c
  local dt, out = output_of(opts.output, input.dtype, shape, api)
  if input.size == 0 and size_of(shape) > 0 then fail(api, "input is empty: there is nothing to interpolate") end
  return resample(api, input, shape, dt, out, {kind = AFFINE, matrix = matrix, offset = offset, dims = ab},
                  order, mode, cval, prefilter)
end

------------------------------------------------------------------------------------
-- Fourier filters (scipy's fourier_gaussian, fourier_uniform, fourier_ellipsoid,
-- fourier_shift): the input is an FFT's output; each element times a factor made from
-- one table a dim, computed here in scipy's order of operations

local PRODUCT, ELLIPSOID, SHIFT = 0, 1, 2
local FLOAT_OUT = {float32 = true, float64 = true, complex64 = true, complex128 = true}

-- The frequency index of each element along a dim of n: 0, 1, ..., then the negative ones
-- (an FFT's order), or 0 .. n-1 along the real transform's dim
local function frequencies(n, real)
  local k = {}
  if real then
    for j = 0, n - 1 do k[#k + 1] = j end
  else
    for j = 0, (n + 1) // 2 - 1 do k[#k + 1] = j end
    for j = -(n // 2), -1 do k[#k + 1] = j end
  end
  return k
end

-- f(api, kind, input, values, opts, factor_of): values one a dim; factor_of(value, length
-- of the dim as the transform saw it, the dim's size) gives the function of a frequency
-- index that makes that dim's table, or nil (no table: a factor of 1)
local function fourier(api, kind, input, values, opts, factor_of)
  if not is_array(input) then fail(api, "input must be a device array, got %s", described(input)) end
  live(input, api, "input")
  gpu._arg.here("ndimage." .. api, {input, "input"})
  opts = options(opts, api, 3, "n dim output")
  local nd_ = input.ndim
  local n = opts.n == nil and -1 or opts.n
  if type(n) == "number" and n == math.floor(n) then n = math.tointeger(n) or n end
  if math.type(n) ~= "integer" then fail(api, "n must be an integer, got %s", type(n) == "number" and shown(n) or described(n)) end
  local axis = opts.dim == nil and -1 or opts.dim
  if type(axis) == "number" and axis == math.floor(axis) then axis = math.tointeger(axis) or axis end
  if nd_ > 0 and (math.type(axis) ~= "integer" or axis == 0 or axis > nd_ or axis < -nd_) then
    fail(api, "dim %s is out of range for %d-D arrays", type(axis) == "number" and shown(axis) or described(axis), nd_)
  end
  axis = nd_ > 0 and (axis < 0 and axis + nd_ + 1 or axis) or 0
  local complex_in = KIND[input.dtype] == "c"
  -- scipy's outputs: the input's dtype where it is complex or float32 (fourier_shift:
  -- complex, complex128 for a real input), else float64
  local default
  if kind == SHIFT then
    default = complex_in and input.dtype or "complex128"
  else
    default = (complex_in or input.dtype == "float32") and input.dtype or "float64"
  end
  local dt, out = output_of(opts.output, default, input.shape, api, true)
  if not FLOAT_OUT[dt] or (kind == SHIFT or complex_in) and KIND[dt] ~= "c" then
    local allowed = (kind == SHIFT or complex_in) and "complex64 or complex128" or "float32, float64, complex64 or complex128"
    fail(api, "output must be %s, got %s", allowed, dt)
  end
  local vals = per_dim(values, nd_, api, api == "fourier_shift" and "shift" or api == "fourier_gaussian" and "sigma" or "size")
  local tab, at = {}, {}
  for d = 1, nd_ do
    local size = input.shape[d]
    local real = d == axis and n >= 0
    local f = factor_of(vals[d], real and n or size, size)
    if f then
      at[d] = #tab
      for _, k in ipairs(frequencies(size, real)) do tab[#tab + 1] = f(k) end
    else
      at[d] = -1
    end
  end
  local r = gpu.empty(input.shape, dt)
  if r.size > 0 then
    if #tab == 0 then tab[1] = 0.0 end
    if nd_ == 0 then at[1] = -1 end
    kernel(("ndi_fourier<%s, %s>"):format(CTYPE[input.dtype], CTYPE[dt]))[{grid_for(r.size, BLOCK), BLOCK}](
      input, r, gpu.array(tab, "float64"), constant(at, "int64", input.device), kind)
  end
  return deliver(r, out)
end

-- fourier_gaussian(input, sigma [, opts]): times exp(-2 (pi sigma k / n)^2) a dim (0 where
-- the exponent is below -50); opts {n = -1, dim = -1, output =}: n >= 0 says the input is a
-- real FFT's (rfft) along dim, n the length before it
function nd.fourier_gaussian(input, sigma, opts)
  return fourier("fourier_gaussian", PRODUCT, input, sigma, opts, function(s, len, size)
    if size <= 1 then return nil end
    local a = s * math.pi / len
    a = -2.0 * a * a
    return function(k)
      local e = a * k * k
      return math.abs(e) > 50.0 and 0.0 or math.exp(e)
    end
  end)
end

-- fourier_uniform(input, size [, opts]): times sin(pi size k / n) / (pi size k / n) a dim
function nd.fourier_uniform(input, size, opts)
  return fourier("fourier_uniform", PRODUCT, input, size, opts, function(s, len, n)
    if n <= 1 then return nil end
    local a = math.pi * s / len
    return function(k)
      if k == 0 then return 1.0 end
      local x = a * k
      return a > 0.0 and math.sin(x) / x or 0.0
    end
  end)
end

-- fourier_ellipsoid(input, size [, opts]): the transform of an ellipsoid of the sizes'
-- axes (inputs of 1, 2 or 3 dims, as scipy's)
function nd.fourier_ellipsoid(input, size, opts)
  if is_array(input) then live(input, "fourier_ellipsoid", "input") end
  if is_array(input) and input.ndim > 3 then
    fail("fourier_ellipsoid", "input must have 1, 2 or 3 dims, got %d", input.ndim)
  end
  local squared = is_array(input) and input.ndim > 1
  return fourier("fourier_ellipsoid", ELLIPSOID, input, size, opts, function(s, len)
    local a = math.pi * s / len
    return function(k)
      local x = k * a
      return squared and x * x or x
    end
  end)
end

-- fourier_shift(input, shift [, opts]): times exp(-2 pi i shift k / n) a dim: the input
-- moved by shift, cyclically, once transformed back
function nd.fourier_shift(input, shift, opts)
  return fourier("fourier_shift", SHIFT, input, shift, opts, function(s, len, size)
    if size <= 1 then return nil end
    local a = -2.0 * math.pi * s / len
    return function(k) return a * k end
  end)
end

-- their arrays (matrix, coordinates, output, ... too) on the current device, checked first
for _, name in ipairs({"fourier_gaussian", "fourier_uniform", "fourier_ellipsoid", "fourier_shift", "spline_filter1d",
                       "spline_filter", "map_coordinates", "affine_transform", "shift", "zoom", "rotate"}) do
  nd[name] = gpu._api(gpu._arg.on_device("ndimage." .. name, nd[name]))
end
