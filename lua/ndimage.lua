-- ndimage.lua: gpu.ndimage, scipy.ndimage's filters (correlations and convolutions, the
-- Gaussian, uniform, minimum, maximum, median, rank and percentile filters) on
-- kernels/ndimage.cu's one kernel: the footprint's taps are planned here from the shape and
-- strides (tiny tables), the values never leave the device. Loaded at the first call of one (lua/gpu.lua).
-- Dimensions are 1-based, negative from the end; every check raises through fail (level 0,
-- gpu._api puts the caller's line on it).
local gpu = ...
local nd = gpu.ndimage
local is_array, described = gpu._is_array, gpu._described

local KIND, CTYPE, SIZE = {}, {}, {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name], CTYPE[d.name], SIZE[d.name] = d.kind, d.ctype, d.size end

local function fail(api, fmt, ...) error(("gpu.ndimage.%s: " .. fmt):format(api, ...), 0) end
local shown = gpu._arg.shown

-- scipy's boundary modes (and its grid- names, which its filters read as these) to the
-- kernel's numbers
local MODES = {reflect = 0, mirror = 1, nearest = 2, wrap = 3, constant = 4,
               ["grid-mirror"] = 0, ["grid-wrap"] = 3, ["grid-constant"] = 4}
local SUM, SKIP0, MIN, MAX, MEAN, GATHER, RANK, SYM, ANTI, LAST, COPY = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local STORE, ADD, SQUARE, ADD_SQUARE, ADD_SQUARE_SQRT = 0, 1, 2, 3, 4
local RANK_MAX = 64   -- kernels/ndimage.cu's

------------------------------------------------------------------------------------
-- checks

-- an array argument (what: its name) on the current device, as the C operations check (a
-- kernel's own words named neither the function nor the argument)
local function here(a, api, what) gpu._arg.here("ndimage." .. api, {a, what}) end

local function input_of(a, api)
  if not is_array(a) then fail(api, "input must be a device array, got %s", described(a)) end
  if KIND[a.dtype] == "c" then fail(api, "input is %s: complex arrays are not supported", a.dtype) end
  here(a, api, "input")
  return a
end

local function integer(v, api, what)
  if type(v) == "number" and v == math.floor(v) then v = math.tointeger(v) or v end
  if math.type(v) ~= "integer" then fail(api, "%s must be an integer, got %s", what, type(v) == "number" and shown(v) or described(v)) end
  return v
end

local function dim_of(d, ndim, api)
  if d == nil then d = -1 end
  d = integer(d, api, "dim")
  local k = d < 0 and d + ndim + 1 or d
  if k < 1 or k > ndim then fail(api, "dim %d is out of range for %d-D arrays", d, ndim) end
  return k
end

local function mode_of(m, api)
  if m == nil then return MODES.reflect end
  local code = type(m) == "string" and MODES[m]
  if not code then
    fail(api, "mode must be 'reflect', 'constant', 'nearest', 'mirror' or 'wrap' (or 'grid-mirror', 'grid-constant', 'grid-wrap'), got %s",
         type(m) == "string" and "'" .. m .. "'" or described(m))
  end
  return code
end

local function number(v, api, what, default)
  if v == nil then return default end
  if type(v) ~= "number" then fail(api, "%s must be a number, got %s", what, described(v)) end
  return v * 1.0   -- (a float: -0.0 + 0.0 would be 0.0, and a cval of -0.0 is scipy's -0.0)
end

-- v (nil, a value or a table of one a dim) as a list of n values, each checked by check
local function per_dim(v, n, api, what, check)
  local list = {}
  if type(v) == "table" and not is_array(v) then
    gpu._arg.list(v, "ndimage." .. api, what, 0)   -- (a nil was the default: order {nil, 1} read 0)
    if #v ~= n then fail(api, "%s must be one value or a table of %d (one a dim), got a table of %d", what, n, #v) end
    for i = 1, n do list[i] = check(v[i], api, ("%s[%d]"):format(what, i)) end
  else
    local x = check(v, api, what)
    for i = 1, n do list[i] = x end
  end
  return list
end

local function origin_ok(o, size, api, what)
  if o < -(size // 2) or o > (size - 1) // 2 then
    fail(api, "%s must lie in -(size // 2) .. (size - 1) // 2 = %d .. %d for a filter of size %d, got %d",
         what, -(size // 2), (size - 1) // 2, size, o)
  end
end

-- The options table at argument `at` (keys among `known`)
local function options(opts, api, at, known)
  if opts ~= nil and type(opts) ~= "table" then fail(api, "argument %d must be a table of options, got %s", at, described(opts)) end
  return gpu._arg.options(opts, "ndimage." .. api, known)
end

-- The dtype of a result (default: `dtype`) and, where `out` is an array, that array, which
-- must have `shape` (`whose`: the words naming that shape in the error); complex dtypes
-- only where complex_ok (the Fourier filters'). lua/ndimage_interp.lua's results too.
local function result_output(out, dtype, shape, api, whose, complex_ok)
  if out == nil then return dtype end
  if is_array(out) then
    if gpu._arg.freed(out) then fail(api, "output is a freed array") end
    here(out, api, "output")
    gpu._arg.writeable(out, "ndimage." .. api, "output")   -- (the kernels write it as it is: a module's launch checks neither)
    if KIND[out.dtype] == "c" and not complex_ok then fail(api, "output is %s: complex arrays are not supported", out.dtype) end
    local same = out.ndim == #shape
    for d = 1, #shape do same = same and out.shape[d] == shape[d] end
    if not same then fail(api, "output must have %s {%s}, got {%s}", whose, table.concat(shape, ", "), table.concat(out.shape, ", ")) end
    return out.dtype, out
  end
  local dt
  if type(out) == "string" then   -- a name or an alias ("double"), as gpu.empty reads it
    local ok, e = pcall(gpu.empty, {0}, out)
    dt = ok and e.dtype or nil
  end
  if not dt then
    fail(api, "output must be a dtype name or a device array, got %s", type(out) == "string" and "'" .. out .. "'" or described(out))
  end
  if KIND[dt] == "c" and not complex_ok then fail(api, "output is %s: complex arrays are not supported", dt) end
  return dt
end

-- The dtype of the result and, where output is an array, that array (of input's shape)
local function output_of(out, input, api) return result_output(out, input.dtype, input.shape, api, "input's shape") end

------------------------------------------------------------------------------------
-- the kernel

local SOURCE
local modules = {}
-- the kernel for input dtype T and output dtype O: ndi_filter, or ndi_line where line is
-- true (both compiled at once: one compile a pair of dtypes)
local function kernel(T, O, line)
  local types = ("<%s, %s>"):format(CTYPE[T], CTYPE[O])
  local m = modules[types]
  if not m then
    SOURCE = SOURCE or gpu._embedded("kernels/ndimage.cu")
    -- (no fused multiply-adds: each product rounded, then each sum, as scipy's C)
    m = gpu.module(SOURCE, {names = {"ndi_filter" .. types, "ndi_line" .. types}, options = {"--fmad=false"}})
    modules[types] = m
  end
  return m[(line and "ndi_line" or "ndi_filter") .. types]
end

local BLOCK, MAX_GRID = 256, 65536

-- The small constant arrays of a launch (plans, weights), kept by their exact contents and
-- device: a filter applied again to arrays of one layout copies nothing to the device
local constants, n_constants = {}, 0
local host_of = setmetatable({}, {__mode = "k"})   -- a float64 constant -> its list (pass reads weights)
local function constant(list, dtype, device)
  if #list > 100000 then   -- past what table.unpack takes
    local a = gpu.with_device(device, gpu.array, list, dtype)
    host_of[a] = list
    return a
  end
  local key = string.pack("s1j", dtype, device) .. string.pack((dtype == "int64" and "j" or "d"):rep(#list), table.unpack(list))
  local a = constants[key]
  if not a then
    if n_constants >= 256 then constants, n_constants = {}, 0 end
    a = gpu.with_device(device, gpu.array, list, dtype)   -- (on the key's device, whichever is current)
    constants[key], n_constants = a, n_constants + 1
    host_of[a] = list
  end
  return a
end

-- Whether taps lie in a line along one dim, one apart: that dim (0-based), the first tap's
-- offset and the step (1 or -1); -1, 0, 0 otherwise
local function line_of(taps, ndim)
  local K = #taps
  for d = 1, ndim do
    local step = K > 1 and taps[2][d] - taps[1][d] or 1
    local ok = step == 1 or step == -1
    for k = 1, K do
      if not ok then break end
      local row = taps[k]
      for e = 1, ndim do
        if e ~= d and row[e] ~= 0 then ok = false end
      end
      ok = ok and row[d] == taps[1][d] + (k - 1) * step
    end
    if ok then return d - 1, taps[1][d], step end
  end
  return -1, 0, 0
end

-- The taps (C order) in rows for ndi_line: runs of taps one apart along dim g (line, 0-based,
-- or the last dim where line is -1), the others' offsets equal; {first tap (0-based), taps,
-- step} each
local function rows_of(taps, ndim, line)
  local g = line >= 0 and line + 1 or ndim
  local rows, row = {}, nil
  for k, t in ipairs(taps) do
    local prev = taps[k - 1]
    local s = prev and t[g] - prev[g]
    local joins = row and (s == 1 or s == -1) and (row[2] == 1 or s == row[3])
    for e = 1, ndim do
      if not joins then break end
      if e ~= g and t[e] ~= prev[e] then joins = false end
    end
    if joins then
      row[2], row[3] = row[2] + 1, s
    else
      row = {k - 1, 1, 1}
      rows[#rows + 1] = row
    end
  end
  return rows
end

-- A minimum or maximum of more than 64 taps along a line, step 1, or a mean of more than
-- 256 (SCAN_K): kernels/ndimage.cu's ndi_minmax_scan, ndi_minmax_carry and ndi_minmax_out
-- (O(1) a point, where the fold is O(K): the same values; a mean's two partial sums round
-- as they do), a block of K folded in pieces of MINMAX_S, a chunk of lines at a time, so
-- that their scratch (two float64 values an extended point, n + K - 1 a line) stays under
-- 2^24 values each where a line allows
local SCAN_K, MINMAX_S = {[MIN] = 64, [MAX] = 64, [MEAN] = 256}, 128
local minmax_modules = {}
local function minmax_line(input, out, gd, first, K, op, mode, cval, how)
  local types = ("<%s, %s>"):format(CTYPE[input.dtype], CTYPE[out.dtype])
  local m = minmax_modules[types]
  if not m then
    SOURCE = SOURCE or gpu._embedded("kernels/ndimage.cu")
    local scan = ("ndi_minmax_scan<%s>"):format(CTYPE[input.dtype])
    m = gpu.module(SOURCE, {names = {scan, "ndi_minmax_carry", "ndi_minmax_out" .. types}})
    m = {scan = m[scan], carry = m.ndi_minmax_carry, out = m["ndi_minmax_out" .. types]}
    minmax_modules[types] = m
  end
  local n = input.shape[gd + 1]
  local lines, E, S = input.size // n, n + K - 1, MINMAX_S
  local chunk = math.max(1, math.min(lines, (1 << 24) // E))
  local g, h = gpu.empty(chunk * E, "float64"), gpu.empty(chunk * E, "float64")
  local nblocks, P = (E + K - 1) // K, (K + S - 1) // S
  local gc, hc = g, h   -- (the carries, where a block has more than one piece)
  if P > 1 then gc, hc = gpu.empty(chunk * nblocks * P, "float64"), gpu.empty(chunk * nblocks * P, "float64") end
  local function grid(threads) return {math.max(1, math.min(MAX_GRID, (threads + BLOCK - 1) // BLOCK)), BLOCK} end
  for l0 = 0, lines - 1, chunk do
    local c = math.min(chunk, lines - l0)
    m.scan[grid(c * nblocks * P)](input, g, h, gd, first, K, S, op, mode, cval, E, l0, c)
    if P > 1 then m.carry[grid(c * nblocks)](g, h, gc, hc, K, S, op, E, c) end
    m.out[grid(c * n)](input, out, g, h, gc, hc, gd, K, S, op, E, l0, c, how or STORE)
  end
  for _, a in ipairs(P > 1 and {g, h, gc, hc} or {g, h}) do a:free() end
  return out
end

-- The fold of a 1-D correlation's weights (a list), in scipy's NI_Correlate1D's order
-- (kernels/ndimage.cu's pairs): SYM or ANTI for an odd count symmetric or antisymmetric
-- within DBL_EPSILON about the centre (its test), else LAST (the last tap's product first,
-- then the others in order)
local EPS = 2.0 ^ -52
local function symmetry(h)
  local K = #h
  if K % 2 == 0 then return LAST end
  local c, sym, anti = K // 2 + 1, true, true
  for i = 1, K // 2 do
    if math.abs(h[c + i] - h[c - i]) > EPS then sym = false end
    if math.abs(h[c + i] + h[c - i]) > EPS then anti = false end
  end
  return sym and SYM or anti and ANTI or LAST
end

-- One pass: input folded under taps (a list of offset rows, one entry a dim of input) with
-- weights w (a float64 device array of #taps, or nil: ones) into a new C-ordered array of
-- dtype dt (shape: input's, with #taps more last for GATHER)
-- (or into `into`, a C-ordered array of that dtype and shape, as `how` says: kernels/
-- ndimage.cu's STORE, ADD, ...)
local function pass(input, taps, w, op, mode, cval, dt, rank, into, how)
  local n, K, ndim = input.ndim, #taps, input.ndim
  local shape = {}
  for d = 1, n do shape[d] = input.shape[d] end
  if op == GATHER then shape[n + 1] = K end
  local out = into or gpu.empty(shape, dt)
  if input.size == 0 then return out end
  -- the line the taps lie along (line_taps' own, which needs no rows read; of one tap,
  -- line_of's dim), then the scan, which needs no plan
  local line, gd, first, step = rawget(taps, "line"), nil, nil, nil
  if line and K > 1 then gd, first, step = line[1], line[2], line[3] else gd, first, step = line_of(taps, ndim) end
  if SCAN_K[op] and K > SCAN_K[op] and gd >= 0 and step == 1 then
    return minmax_line(input, out, gd, first, K, op, mode, cval, how)
  end
  local plan = {}
  for d = 1, 20 do plan[d] = 0 end
  for k, row in ipairs(taps) do
    local delta = 0
    for d = 1, ndim do
      local o = row[d]
      if o < plan[d] then plan[d] = o end
      if o > plan[8 + d] then plan[8 + d] = o end
      delta = delta + o * input.strides[d]
      plan[20 + K + (k - 1) * ndim + d] = o
    end
    plan[20 + k] = delta
  end
  plan[17], plan[18], plan[19] = gd, first, step
  if op == SUM and plan[17] >= 0 and plan[19] == 1 and w and host_of[w] then op = symmetry(host_of[w]) end
  if not w then
    local ones = {}
    for k = 1, K do ones[k] = 1 end
    w = constant(ones, "float64", input.device)
  end
  -- a fold of at most 256 taps in rows (runs one apart along the line, or along the last
  -- dim) on ndi_line, GROUP (4) outputs a thread: all of a line's; an N-D footprint's where
  -- its rows are long enough, ndi_filter then making the elements near the edges (a
  -- launch of those alone)
  local rows = K <= 256 and ndim >= 1 and (op == SUM or op == SKIP0 or op == MIN or op == MAX or op == MEAN or op == SYM or op == ANTI or op == LAST)
    and rows_of(taps, ndim, plan[17])
  if rows and plan[17] < 0 and #rows * 2 > K then rows = nil end
  local grid = math.max(1, math.min(MAX_GRID, (input.size + BLOCK - 1) // BLOCK))
  local args, edges
  if rows then
    local at = 20 + K + K * ndim
    for j, r in ipairs(rows) do plan[at + 3 * j - 2], plan[at + 3 * j - 1], plan[at + 3 * j] = r[1], r[2], r[3] end
    plan[20] = #rows
    if plan[17] < 0 then   -- an N-D footprint: the box of the groups ndi_line makes (all taps
      -- inside: both kernels read it from here), whose elements ndi_filter leaves; their
      -- count first (kernels/ndimage.cu)
      local A, B, inbox = {}, {}, 1
      for d = 1, ndim do
        local len = input.shape[d]
        local a, b = -plan[d], len - plan[8 + d]   -- c + lo >= 0 and c + hi < len
        if d == ndim then   -- groups of 4 from 0 along the last dim, all of a group's taps inside
          a = (a + 3) // 4 * 4
          b = (len - 4 - plan[8 + d]) // 4 * 4 + 4
        end
        A[d], B[d] = a, math.max(a, b)
        inbox = inbox * (B[d] - A[d])
      end
      if inbox == 0 then for d = 1, ndim do A[d], B[d] = 0, 0 end end
      local tail = 20 + K + K * ndim + 3 * #rows
      plan[tail + 1] = input.size - inbox
      for d = 1, ndim do plan[tail + 1 + d], plan[tail + 1 + ndim + d] = A[d], B[d] end
      edges = input.size - inbox
    end
    local n = input.shape[plan[17] >= 0 and plan[17] + 1 or ndim]
    local items = input.size // n * ((n + 3) // 4)
    args = {input, out, constant(plan, "int64", input.device), w, K, op, mode, cval, rank or 0, how or STORE}
    kernel(input.dtype, dt, true)[{math.max(1, math.min(MAX_GRID, (items + BLOCK - 1) // BLOCK)), BLOCK}](table.unpack(args))
    if plan[17] >= 0 or edges == 0 then return out end
    grid = math.max(1, math.min(MAX_GRID, (edges + BLOCK - 1) // BLOCK))
  end
  args = args or {input, out, constant(plan, "int64", input.device), w, K, op, mode, cval, rank or 0, how or STORE}
  kernel(input.dtype, dt)[{grid, BLOCK}](table.unpack(args))
  return out
end

-- The taps of a 1-D filter of `size` along dim d of an ndim-D array (reversed: its weights
-- read last to first, as a convolution does, without reversing them on the device)
-- (a filter longer than 2^20 along a dimension is refused at once: its taps, a table each,
-- filled the host's memory for a size of 1e12 before anything failed)
local MAX_TAPS = 1 << 20
-- (line_taps' rows are made as they are read, so that a pass the scan takes never makes
-- its `size` of them: a window of 100,001 took 0.1 s in Lua alone)
local LINE = {
  __len = function(t) return t.size end,
  __index = function(t, k)
    if math.type(k) ~= "integer" or k < 1 or k > t.size then return nil end
    local row = {}
    for e = 1, t.ndim do row[e] = 0 end
    row[t.d] = t.line[2] + (k - 1) * t.line[3]
    rawset(t, k, row)
    return row
  end,
}
local function line_taps(size, origin, d, ndim, reversed)
  if size > MAX_TAPS then
    error(("gpu.ndimage: a filter of %s taps along a dimension is more than gpuhost makes (at most %d)")
          :format(shown(size), MAX_TAPS), 0)
  end
  local first = (reversed and size - 1 or 0) - size // 2 - origin
  -- line: {dim (0-based), tap 0's offset, step}, as line_of finds it
  return setmetatable({size = size, ndim = ndim, d = d, line = {d - 1, first, reversed and -1 or 1}}, LINE)
end

-- Where a result may be written straight: into out when it is C-ordered and not input's
-- memory (a filter reads its input while it writes)
local function direct(out, input)
  if out and out:is_contiguous() and (out.base or out) ~= (input.base or input) then return out end
  return nil
end

-- The result r put where the caller asked: into output (an array) or returned
local function deliver(r, out)
  if not out then return r end
  out[{}] = r
  r:free()
  return out
end

-- One pass whose result goes to out (written straight where it can be) or is returned
local function single(input, taps, w, op, mode, cval, dt, out, rank)
  local into = direct(out, input)
  local r = pass(input, taps, w, op, mode, cval, dt, rank, into)
  if into then return into end
  return deliver(r, out)
end

-- Weights: a table of numbers or a 1-D device array, as a float64 device array (reversed
-- for a convolution)
local function weights1d(w, api, reversed, device)
  local t
  if is_array(w) then
    if KIND[w.dtype] == "c" then fail(api, "weights are %s: complex weights are not supported", w.dtype) end
    if w.ndim ~= 1 then fail(api, "weights must be 1-D, got a %d-D array", w.ndim) end
    if w.size == 0 then fail(api, "weights must not be empty (no filter weights given)") end
    here(w, api, "weights")
    local h = gpu.ascontiguousarray(w, "float64"):tohost()   -- (read: their symmetry decides the fold)
    t = {}
    for i = 1, w.size do t[reversed and w.size + 1 - i or i] = h[i] end
    return constant(t, "float64", device), #t
  end
  if type(w) ~= "table" then fail(api, "weights must be a table of numbers or a 1-D device array, got %s", described(w)) end
  if #w == 0 then fail(api, "weights must not be empty (no filter weights given)") end
  t = {}
  for i, x in ipairs(w) do
    if type(x) ~= "number" then fail(api, "weights[%d] must be a number, got %s", i, described(x)) end
    t[reversed and #w + 1 - i or i] = x
  end
  return constant(t, "float64", device), #t
end

------------------------------------------------------------------------------------
-- 1-D filters

-- args after input and the size's argument: dim, then an options table (which may come in
-- the dim's place)
local function dim_and_opts(api, input, dim, opts, known)
  if type(dim) == "table" and opts == nil then dim, opts = nil, dim end
  opts = options(opts, api, 4, known)
  if input.ndim == 0 then fail(api, "input is 0-D: it has no dim to filter along") end
  return dim_of(dim, input.ndim, api), opts
end

local function common(api, input, opts, size)
  local mode = mode_of(opts.mode, api)
  local cval = number(opts.cval, api, "cval", 0.0)
  local origin = opts.origin == nil and 0 or integer(opts.origin, api, "origin")
  if size then origin_ok(origin, size, api, "origin") end
  local dt, out = output_of(opts.output, input, api)
  return mode, cval, origin, dt, out
end

local KNOWN = "mode cval origin output"

local function correlate1d(api, input, weights, dim, opts, convolve)
  input_of(input, api)
  local d
  d, opts = dim_and_opts(api, input, dim, opts, KNOWN)
  local w, K, flipped = weights1d(weights, api, convolve, input.device)
  local origin = opts.origin == nil and 0 or integer(opts.origin, api, "origin")
  origin_ok(origin, K, api, "origin")   -- (the caller's: the mirrored one lies in the same range)
  if convolve then origin = -origin - (K % 2 == 0 and 1 or 0) end
  local mode, cval, _, dt, out = common(api, input, {mode = opts.mode, cval = opts.cval, output = opts.output})
  return single(input, line_taps(K, origin, d, input.ndim, flipped), w, SUM, mode, cval, dt, out)
end

function nd.correlate1d(input, weights, dim, opts) return correlate1d("correlate1d", input, weights, dim, opts, false) end
function nd.convolve1d(input, weights, dim, opts) return correlate1d("convolve1d", input, weights, dim, opts, true) end

-- The sum of t[from .. from + n - 1] as NumPy's sum adds a float64 array (its pairwise_sum:
-- in order below 8 elements, else 8 running sums to 128, halves past that), so that the
-- normalised weights below have scipy's bits
local function pairwise_sum(t, from, n)
  if n < 8 then
    local s = 0.0
    for i = from, from + n - 1 do s = s + t[i] end
    return s
  elseif n <= 128 then
    local r = {}
    for j = 0, 7 do r[j] = t[from + j] end
    local i = 8
    while i < n - n % 8 do
      for j = 0, 7 do r[j] = r[j] + t[from + i + j] end
      i = i + 8
    end
    local s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for k = i, n - 1 do s = s + t[from + k] end
    return s
  end
  local n2 = n // 2
  n2 = n2 - n2 % 8
  return pairwise_sum(t, from, n2) + pairwise_sum(t, from + n2, n - n2)
end

-- scipy's Gaussian kernel of `order` on -radius .. radius (float64, as its
-- _gaussian_kernel1d): exp(-x^2 / (2 sigma^2)) normalised, times the derivative's polynomial
local function gaussian_weights(sigma, order, radius)
  local s2 = sigma * sigma
  local phi = {}
  for i = 1, 2 * radius + 1 do
    local x = i - 1 - radius
    phi[i] = math.exp(-0.5 / s2 * (x * x))
  end
  local sum = pairwise_sum(phi, 1, #phi)
  for i = 1, #phi do phi[i] = phi[i] / sum end
  if order > 0 then
    -- q: the coefficients of the polynomial q(x) with d^n/dx^n phi = q(x) phi; each
    -- derivative maps q to q' - q x / sigma^2
    local q = {[0] = 1.0}
    for k = 1, order do q[k] = 0.0 end
    for _ = 1, order do
      local nq = {}
      for k = 0, order do
        nq[k] = (k < order and (k + 1) * q[k + 1] or 0.0) + (k > 0 and -q[k - 1] / s2 or 0.0)
      end
      q = nq
    end
    for i = 1, #phi do
      local x, v = i - 1 - radius, 0.0
      for k = 0, order do v = v + (x + 0.0) ^ k * q[k] end
      phi[i] = v * phi[i]
    end
  end
  local rev = {}
  for i = 1, #phi do rev[i] = phi[#phi + 1 - i] end   -- scipy correlates with it reversed
  return rev
end

local function sigma_of(s, api, what)
  if type(s) ~= "number" or s ~= s then fail(api, "%s must be a number, got %s", what, type(s) == "number" and "nan" or described(s)) end
  if s < 0 then fail(api, "%s must be non-negative, got %s", what, shown(s)) end
  return s + 0.0
end

local function order_of(o, api, what)
  o = integer(o == nil and 0 or o, api, what)
  if o < 0 or o > 3 then fail(api, "%s must be 0, 1, 2 or 3, got %d", what, o) end
  return o
end

local function radius_for(api, sigma, truncate, radius, what)
  if radius ~= nil then
    radius = integer(radius, api, what)
    if radius < 0 then fail(api, "%s must be a non-negative integer, got %d", what, radius) end
    if radius > MAX_TAPS // 2 then fail(api, "%s %d is more than gpuhost takes (at most %d)", what, radius, MAX_TAPS // 2) end
    return radius
  end
  local r = math.floor(truncate * sigma + 0.5)
  if r < 0 then fail(api, "truncate must make a non-negative radius, got truncate = %s", shown(truncate)) end
  if r > MAX_TAPS // 2 then
    fail(api, "truncate * sigma makes a radius of %s, more than gpuhost takes (at most %d)", shown(r), MAX_TAPS // 2)
  end
  return math.tointeger(r) or fail(api, "the radius %s is too large", shown(r))
end

local GKNOWN = "order mode cval truncate radius output"

function nd.gaussian_filter1d(input, sigma, dim, opts)
  local api = "gaussian_filter1d"
  input_of(input, api)
  local d
  d, opts = dim_and_opts(api, input, dim, opts, GKNOWN)
  sigma = sigma_of(sigma, api, "sigma")
  if sigma == 0 then fail(api, "sigma must be positive, got 0") end
  local order = order_of(opts.order, api, "order")
  local truncate = number(opts.truncate, api, "truncate", 4.0)
  local radius = radius_for(api, sigma, truncate, opts.radius, "radius")
  local mode, cval, _, dt, out = common(api, input, opts)
  local w = gaussian_weights(sigma, order, radius)
  return single(input, line_taps(#w, 0, d, input.ndim), constant(w, "float64", input.device), SUM, mode, cval, dt, out)
end

local function size_of(s, api, what)
  s = integer(s, api, what)
  if s < 1 then fail(api, "%s must be a positive integer, got %d", what, s) end
  return s
end

-- uniform_filter1d, minimum_filter1d, maximum_filter1d: a window of `size` along dim
local function window1d(api, op, input, size, dim, opts)
  input_of(input, api)
  local d
  d, opts = dim_and_opts(api, input, dim, opts, KNOWN)
  size = size_of(size, api, "size")
  local mode, cval, origin, dt, out = common(api, input, opts, size)
  return single(input, line_taps(size, origin, d, input.ndim), nil, op, mode, cval, dt, out)
end

function nd.uniform_filter1d(input, size, dim, opts) return window1d("uniform_filter1d", MEAN, input, size, dim, opts) end
function nd.minimum_filter1d(input, size, dim, opts) return window1d("minimum_filter1d", MIN, input, size, dim, opts) end
function nd.maximum_filter1d(input, size, dim, opts) return window1d("maximum_filter1d", MAX, input, size, dim, opts) end

------------------------------------------------------------------------------------
-- filters over several dims: one 1-D pass a dim, each written in the output's dtype as
-- scipy's are

-- The dims to filter (opts.dims: a number or a table; default every one), 1-based, each once
local function dims_of(api, dims, ndim)
  local list = {}
  if dims == nil then
    for d = 1, ndim do list[d] = d end
    return list
  end
  local seen = {}
  if type(dims) == "table" then gpu._arg.list(dims, "ndimage." .. api, "dims", 0) end   -- ({1, nil, 3} was {1})
  for i, d in ipairs(type(dims) == "table" and dims or {dims}) do
    d = dim_of(d, ndim, api)
    if seen[d] then fail(api, "dim %d appears twice in dims", d) end
    seen[d], list[i] = true, d
  end
  return list
end

-- passes: {d, taps, w, op, mode} in order; none: a copy of input in dt, cast as NumPy's
-- astype (COPY), as scipy's filters copy it where they make no pass (output[...] =
-- input[...]: int64 3e9 into int32 is -1294967296, 0.5 into bool true, where their
-- passes' C casts give INT_MIN and false). The last pass writes into `into`
-- (as `how` says) where one is given, else into out where it can (direct), else into a new
-- array that deliver copies to out. A bool dt's passes but the last write uint8: scipy's
-- write the byte their cast leaves into the bool output (255 for -1), and the next reads it.
local function separable(input, passes, cval, dt, out, into, how)
  if #passes == 0 then
    local still = {}
    for d = 1, input.ndim do still[d] = 0 end
    passes = {{taps = {still}, op = COPY, mode = 0}}
  end
  local last = into or direct(out, input)
  local x, between = input, dt == "bool" and "uint8" or dt
  for i, p in ipairs(passes) do
    local y = pass(x, p.taps, p.w, p.op, p.mode, cval, i == #passes and dt or between, nil, i == #passes and last or nil,
                   i == #passes and how or nil)
    if i > 1 then x:free() end
    x = y
  end
  if into or x == out then return x end
  return deliver(x, out)
end

local function modes_of(api, m, n)
  return per_dim(m, n, api, "mode", function(v, a) return mode_of(v, a) end)
end

-- The passes of a Gaussian filter along dims (lists of one a dim; sigma 0 skipped)
local function gaussian_passes(api, input, dims, sigmas, orders, modes, truncate, radii)
  local passes = {}
  for i, d in ipairs(dims) do
    if sigmas[i] > 1e-15 then
      local w = gaussian_weights(sigmas[i], orders[i], radius_for(api, sigmas[i], truncate, radii[i], "radius"))
      passes[#passes + 1] = {taps = line_taps(#w, 0, d, input.ndim), w = constant(w, "float64", input.device), op = SUM, mode = modes[i]}
    end
  end
  return passes
end

function nd.gaussian_filter(input, sigma, opts)
  local api = "gaussian_filter"
  input_of(input, api)
  opts = options(opts, api, 3, GKNOWN .. " dims")
  local dims = dims_of(api, opts.dims, input.ndim)
  local n = #dims
  local sigmas = per_dim(sigma, n, api, "sigma", sigma_of)
  local orders = per_dim(opts.order, n, api, "order", order_of)
  local modes = modes_of(api, opts.mode, n)
  local radii = per_dim(opts.radius, n, api, "radius", function(v) return v end)
  local truncate = number(opts.truncate, api, "truncate", 4.0)
  local cval = number(opts.cval, api, "cval", 0.0)
  local dt, out = output_of(opts.output, input, api)
  return separable(input, gaussian_passes(api, input, dims, sigmas, orders, modes, truncate, radii), cval, dt, out)
end

-- uniform_filter, and minimum_filter / maximum_filter with a size: windows of sizes along
-- dims (those of size 1 skipped, as scipy's)
local function windows(api, op, input, sizes, opts)
  local dims = dims_of(api, opts.dims, input.ndim)
  local n = #dims
  sizes = per_dim(sizes, n, api, "size", size_of)
  local origins = per_dim(opts.origin or 0, n, api, "origin", integer)
  local modes = modes_of(api, opts.mode, n)
  local cval = number(opts.cval, api, "cval", 0.0)
  local dt, out = output_of(opts.output, input, api)
  local passes = {}
  for i, d in ipairs(dims) do
    origin_ok(origins[i], sizes[i], api, n > 1 and ("origin[%d]"):format(i) or "origin")
    if sizes[i] > 1 then
      passes[#passes + 1] = {taps = line_taps(sizes[i], origins[i], d, input.ndim), op = op, mode = modes[i]}
    end
  end
  return separable(input, passes, cval, dt, out)
end

function nd.uniform_filter(input, size, opts)
  local api = "uniform_filter"
  input_of(input, api)
  if type(size) == "table" and not is_array(size) and #size == 0 and opts == nil then size, opts = nil, size end
  opts = options(opts, api, 3, KNOWN .. " dims")
  return windows(api, MEAN, input, size == nil and 3 or size, opts)
end

------------------------------------------------------------------------------------
-- derivatives: scipy's sobel, prewitt, laplace and the Gaussian ones, made of the passes
-- above and of the module's elementwise operations in the output's dtype, as scipy's

local DKNOWN = "mode cval output"

-- sobel(input [, dim [, opts]]), prewitt: the difference [-1, 0, 1] along dim, smoothed
-- along the others ([1, 2, 1], [1, 1, 1]); mode a value or one a dim
local function edges(api, smooth, input, dim, opts)
  input_of(input, api)
  local d
  d, opts = dim_and_opts(api, input, dim, opts, DKNOWN)
  local n = input.ndim
  local modes = modes_of(api, opts.mode, n)
  local cval = number(opts.cval, api, "cval", 0.0)
  local dt, out = output_of(opts.output, input, api)
  local passes = {{taps = line_taps(3, 0, d, n), w = constant({-1, 0, 1}, "float64", input.device), op = SUM, mode = modes[d]}}
  for e = 1, n do
    if e ~= d then
      passes[#passes + 1] = {taps = line_taps(3, 0, e, n), w = constant(smooth, "float64", input.device), op = SUM, mode = modes[e]}
    end
  end
  return separable(input, passes, cval, dt, out)
end

function nd.sobel(input, dim, opts) return edges("sobel", {1, 2, 1}, input, dim, opts) end
function nd.prewitt(input, dim, opts) return edges("prewitt", {1, 1, 1}, input, dim, opts) end

-- The sum over every dim of derivative(d, mode of d, into, how), each in dt, added in dt
-- by the last pass of each (scipy's generic_laplace; squared, then the square root, for
-- gaussian_gradient_magnitude), into out where it can be written straight
local function summed(input, dt, out, modes, derivative, squared)
  local acc = direct(out, input) or gpu.empty(input.shape, dt)
  local n = input.ndim
  if squared and n == 1 then acc:fill(0) end   -- then 0 + t * t, its square root
  for d = 1, n do
    local how = d == 1 and (squared and SQUARE or STORE) or not squared and ADD or d < n and ADD_SQUARE or ADD_SQUARE_SQRT
    if squared and n == 1 then how = ADD_SQUARE_SQRT end
    derivative(d, modes[d], acc, how)
  end
  if acc == out then return out end
  return deliver(acc, out)
end

-- laplace(input [, opts]): the sum of the second differences [1, -2, 1] along every dim
function nd.laplace(input, opts)
  local api = "laplace"
  input_of(input, api)
  opts = options(opts, api, 2, DKNOWN)
  local modes = modes_of(api, opts.mode, input.ndim)
  local cval = number(opts.cval, api, "cval", 0.0)
  local dt, out = output_of(opts.output, input, api)
  if input.ndim == 0 or input.size == 0 then return separable(input, {}, cval, dt, out) end
  local w = constant({1, -2, 1}, "float64", input.device)
  return summed(input, dt, out, modes, function(d, mode, into, how)
    pass(input, line_taps(3, 0, d, input.ndim), w, SUM, mode, cval, dt, nil, into, how)
  end)
end

-- The Gaussian derivative of `order` along d (0 along the others) in every dim's mode `mode`,
-- as scipy's derivative helpers call gaussian_filter; its last pass into `into` as `how` says
local function gaussian_derivative(api, input, sigmas, d, order, mode, cval, dt, truncate, radii, into, how)
  local dims, orders, modes = {}, {}, {}
  for e = 1, input.ndim do dims[e], orders[e], modes[e] = e, e == d and order or 0, mode end
  separable(input, gaussian_passes(api, input, dims, sigmas, orders, modes, truncate, radii), cval, dt, nil, into, how)
end

local GDKNOWN = "mode cval output truncate radius"

local function gaussian_derivatives(api, order, input, sigma, opts)
  input_of(input, api)
  opts = options(opts, api, 3, GDKNOWN)
  local n = input.ndim
  local sigmas = per_dim(sigma, n, api, "sigma", sigma_of)
  local radii = per_dim(opts.radius, n, api, "radius", function(v) return v end)
  local modes = modes_of(api, opts.mode, n)
  local truncate = number(opts.truncate, api, "truncate", 4.0)
  local cval = number(opts.cval, api, "cval", 0.0)
  local dt, out = output_of(opts.output, input, api)
  if n == 0 or input.size == 0 then return separable(input, {}, cval, dt, out) end
  return summed(input, dt, out, modes, function(d, mode, into, how)
    gaussian_derivative(api, input, sigmas, d, order, mode, cval, dt, truncate, radii, into, how)
  end, order == 1)
end

-- gaussian_laplace(input, sigma [, opts]): the sum of the second Gaussian derivatives;
-- gaussian_gradient_magnitude: the norm of the first ones
function nd.gaussian_laplace(input, sigma, opts) return gaussian_derivatives("gaussian_laplace", 2, input, sigma, opts) end
function nd.gaussian_gradient_magnitude(input, sigma, opts)
  return gaussian_derivatives("gaussian_gradient_magnitude", 1, input, sigma, opts)
end

------------------------------------------------------------------------------------
-- filters of an N-D footprint

-- The taps of an N-D footprint of shape `shape` (C order), those where keep(k) is true, with
-- origins: offsets k_d - shape_d // 2 - origin_d
local function footprint_taps(shape, origins, keep)
  local taps, n, idx = {}, #shape, {}
  for d = 1, n do idx[d] = 0 end
  local total = 1
  for d = 1, n do total = total * shape[d] end
  for k = 1, total do
    if not keep or keep[k] then
      local row = {}
      for d = 1, n do row[d] = idx[d] - shape[d] // 2 - origins[d] end
      taps[#taps + 1] = row
    end
    for d = n, 1, -1 do
      idx[d] = idx[d] + 1
      if idx[d] < shape[d] then break end
      idx[d] = 0
    end
  end
  return taps
end

local function nd_origins(api, origin, shape)
  local origins = per_dim(origin or 0, #shape, api, "origin", integer)
  for d = 1, #shape do origin_ok(origins[d], shape[d], api, #shape > 1 and ("origin[%d]"):format(d) or "origin") end
  return origins
end

local function correlate(api, input, weights, opts, convolve)
  input_of(input, api)
  opts = options(opts, api, 3, KNOWN)
  if type(weights) == "table" and not is_array(weights) then
    local ok, r = pcall(gpu.array, weights, "float64")
    if not ok then fail(api, "weights must be a device array or a nested table of numbers (%s)", tostring(r)) end
    weights = r
  elseif not is_array(weights) then
    fail(api, "weights must be a device array or a nested table of numbers, got %s", described(weights))
  elseif KIND[weights.dtype] == "c" then
    fail(api, "weights are %s: complex weights are not supported", weights.dtype)
  end
  if weights.ndim ~= input.ndim then
    fail(api, "weights must have input's number of dims (%d), got %d", input.ndim, weights.ndim)
  end
  here(weights, api, "weights")
  if weights.size == 0 then fail(api, "weights must not be empty (no filter weights given)") end
  local shape = weights.shape
  local origins = per_dim(opts.origin or 0, #shape, api, "origin", integer)
  -- the caller's origins checked (mirrored, each lies in the same range)
  for d = 1, #shape do origin_ok(origins[d], shape[d], api, #shape > 1 and ("origin[%d]"):format(d) or "origin") end
  if convolve then   -- the weights reversed along every dim, the origins mirrored
    for d = 1, #shape do origins[d] = -origins[d] - (shape[d] % 2 == 0 and 1 or 0) end
  end
  local mode = mode_of(opts.mode, api)
  local cval = number(opts.cval, api, "cval", 0.0)
  local dt, out = output_of(opts.output, input, api)
  -- (summed in the C order of the weights as scipy's NI_Correlate reads them: a
  -- convolution's reversed, so its last weight first)
  local w = gpu.ascontiguousarray(convolve and gpu.flip(weights) or weights, "float64"):reshape(-1)
  return single(input, footprint_taps(shape, origins), w, SKIP0, mode, cval, dt, out)
end

function nd.correlate(input, weights, opts) return correlate("correlate", input, weights, opts, false) end
function nd.convolve(input, weights, opts) return correlate("convolve", input, weights, opts, true) end

-- minimum_filter, maximum_filter, median_filter: size= (a box) or footprint= (a bool
-- device array or nested table of input's ndim, read back: it decides the taps)
local FKNOWN = KNOWN .. " size footprint"

local function footprint_of(api, f, ndim)
  if type(f) == "table" and not is_array(f) then
    local ok, r = pcall(gpu.array, f, "bool")
    if not ok then fail(api, "footprint must be a device array or a nested table, got %s", tostring(r)) end
    f = r
  elseif not is_array(f) then
    fail(api, "footprint must be a device array or a nested table, got %s", described(f))
  end
  if f.ndim ~= ndim then fail(api, "footprint must have input's number of dims (%d), got %d", ndim, f.ndim) end
  if f.size == 0 then fail(api, "footprint must not be empty") end
  here(f, api, "footprint")
  local h = (f.dtype == "bool" and f or f:ne(0)):reshape(-1):tohost()
  local keep, count = {}, 0
  for k = 1, f.size do keep[k] = h[k] and true or false; if keep[k] then count = count + 1 end end
  if count == 0 then fail(api, "footprint has no true element") end
  return f.shape, keep, count
end

-- v (a double) as scipy's C casts it to dtype, as kernels/ndimage.cu's put stores a result
-- (x86-64's conversions): truncated toward 0 to an int32 for types of up to 32 bits (uint32
-- to an int64), NaN and values past that range giving its least, and wrapped to the width;
-- uint64 from 2^63 on as it is (0 from 2^64 on); bool 1 where the low byte is nonzero; a
-- float rounded; as the double the kernel then reads
local function typed(v, dtype)
  if dtype == "float64" then return v end
  if dtype == "float32" then return (string.unpack("f", string.pack("f", v))) end
  if dtype == "float16" then return gpu.full({}, v, "float64"):astype("float16"):item() end
  if dtype == "uint64" and v >= 2 ^ 63 then return v < 2 ^ 64 and math.floor(v) + 0.0 or 0.0 end
  local wide = SIZE[dtype] == 8 or dtype == "uint32"
  local inside = wide and v >= -2 ^ 63 and v < 2 ^ 63 or not wide and v > -2 ^ 31 - 1 and v < 2 ^ 31
  local i = inside and math.tointeger(v < 0 and math.ceil(v) or math.floor(v)) or wide and math.mininteger or -(1 << 31)
  if dtype == "bool" then return (i & 0xff) ~= 0 and 1.0 or 0.0 end
  local bits = 8 * SIZE[dtype]
  if bits < 64 then
    i = i & ((1 << bits) - 1)
    if KIND[dtype] == "i" and i >= 1 << (bits - 1) then i = i - (1 << bits) end
  elseif KIND[dtype] == "u" and i < 0 then
    return i + 2.0 ^ 64
  end
  return i + 0.0
end

-- The cval a footprint filter reads, as scipy's: its C casts it to input's type, but the
-- least or greatest over a box is its separable 1-D filters', which read it as a double, and
-- scipy 1.17's 1-D rank filter (1-D input, a rank between, a footprint not past about twice
-- the input) reads it as int64 (integer and bool input) or float32 (float16, float32)
local function footprint_cval(cval, input, op, box, length, origin)
  if op ~= GATHER and box then return cval end
  local dt = input.dtype
  if op == GATHER and input.ndim == 1 and (input.size == 1 or input.size - ((length - 1) // 2 - origin) >= 0) then
    dt = dt == "float64" and dt or KIND[dt] == "f" and "float32" or "int64"
  end
  return typed(cval, dt)
end

-- A box of `size` (one value or one a dim) for a rank: its shape and count of elements
local function box_of(api, size, ndim)
  local shape = per_dim(size, ndim, api, "size", size_of)
  local count = 1
  for d = 1, ndim do
    if count > (1 << 53) // shape[d] then fail(api, "a window of more than 2^53 elements is more than gpuhost makes") end
    count = count * shape[d]
  end
  return shape, count
end

-- f(input, size [, opts]) or f(input, opts): size a number or a table of one a dim. For
-- GATHER, rank_of(count) gives the rank (0-based) to take among a window's count values: a
-- rank of 0 or count - 1 is the minimum or maximum filter's, as scipy's _rank_filter calls
-- them (over a box: one 1-D pass a dim, each stored in the output's dtype)
local function footprint_filter(api, op, input, size, opts, rank_of)
  input_of(input, api)
  if type(size) == "table" and not is_array(size) and #size == 0 and opts == nil then size, opts = nil, size end
  opts = options(opts, api, 3, FKNOWN)
  if size ~= nil and opts.size ~= nil then fail(api, "size given twice (as argument 2 and as option size)") end
  size = size or opts.size
  local shape, keep, count
  if opts.footprint ~= nil then
    shape, keep, count = footprint_of(api, opts.footprint, input.ndim)
  elseif size == nil then
    fail(api, "give a size or a footprint (argument 2, or options size = or footprint =)")
  elseif op ~= GATHER then
    shape = size
  else
    shape, count = box_of(api, size, input.ndim)
  end
  local rank = rank_of and rank_of(count)
  if rank == 0 then op = MIN elseif rank and rank == count - 1 then op = MAX end
  local box = keep == nil or count == #keep
  if op ~= GATHER and box then   -- a box, as scipy's: its separable filters
    return windows(api, op, input, shape, {mode = opts.mode, cval = opts.cval, origin = opts.origin, output = opts.output})
  end
  if keep == nil and count > MAX_TAPS then   -- (a window's taps, a table each)
    fail(api, "a window of %s elements is more than gpuhost makes (at most %d)", shown(count), MAX_TAPS)
  end
  local origins = nd_origins(api, opts.origin, shape)
  local mode = mode_of(opts.mode, api)
  local cval = number(opts.cval, api, "cval", 0.0)
  cval = footprint_cval(cval, input, op, box, shape[1], origins[1])
  local dt, out = output_of(opts.output, input, api)
  if input.ndim == 0 then return separable(input, {}, cval, dt, out) end
  local taps = footprint_taps(shape, origins, keep)
  if op ~= GATHER then return single(input, taps, nil, op, mode, cval, dt, out) end
  -- the value of that rank in each point's window: selected in the kernel, or for a large
  -- footprint each window gathered in a row and sorted
  if count <= RANK_MAX then return single(input, taps, nil, RANK, mode, cval, dt, out, rank) end
  local rows = pass(input, taps, nil, GATHER, mode, cval, input.dtype)
  local sorted = gpu.sort(rows, -1, {indices = false})
  rows:free()
  local mid = sorted:select(input.ndim + 1, rank + 1)
  return deliver(mid.dtype == dt and mid:copy() or mid:astype(dt), out)
end

function nd.minimum_filter(input, size, opts) return footprint_filter("minimum_filter", MIN, input, size, opts) end
function nd.maximum_filter(input, size, opts) return footprint_filter("maximum_filter", MAX, input, size, opts) end
-- the middle value, the upper middle for an even count, as scipy's
function nd.median_filter(input, size, opts)
  return footprint_filter("median_filter", GATHER, input, size, opts, function(count) return count // 2 end)
end

-- rank_filter(input, rank [, size] [, opts]): the value of rank `rank` (0-based as scipy's,
-- negative from the greatest: -1 the maximum) in each window
function nd.rank_filter(input, rank, size, opts)
  local api = "rank_filter"
  rank = integer(rank, api, "rank")
  return footprint_filter(api, GATHER, input, size, opts, function(count)
    local r = rank < 0 and rank + count or rank
    if r < 0 or r >= count then fail(api, "rank must lie in -%d .. %d for a footprint of %d elements, got %d", count, count - 1, count, rank) end
    return r
  end)
end

-- percentile_filter(input, percentile [, size] [, opts]): scipy's rank for a percentile
-- (negative from 100): floor(count * percentile / 100), count - 1 at 100
function nd.percentile_filter(input, percentile, size, opts)
  local api = "percentile_filter"
  if type(percentile) ~= "number" then fail(api, "percentile must be a number, got %s", described(percentile)) end
  local p = percentile < 0 and percentile + 100.0 or percentile + 0.0
  if not (p >= 0 and p <= 100) then fail(api, "percentile must lie in -100 .. 100, got %s", shown(percentile)) end
  return footprint_filter(api, GATHER, input, size, opts, function(count)
    return p == 100 and count - 1 or math.floor(count * p / 100.0)
  end)
end

-- the checks that lua/ndimage_morph.lua, ndimage_interp.lua and ndimage_distance.lua share (lua/gpu.lua
-- loads this file before them)
gpu._ndimage = {fail = fail, input_of = input_of, here = here, integer = integer, number = number, options = options,
                mode_of = mode_of, output_of = output_of, result_output = result_output, nd_origins = nd_origins,
                footprint_taps = footprint_taps, constant = constant}

-- their arrays (weights, footprint, output, ... too) on the current device, checked first
-- (the other files' functions, still gpu.lua's loaders here, check theirs as they load)
local SOURCE = debug.getinfo(1, "S").source
for name, f in pairs(nd) do
  nd[name] = gpu._api(debug.getinfo(f, "S").source == SOURCE and gpu._arg.on_device("ndimage." .. name, f) or f)
end
