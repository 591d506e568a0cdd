-- shape.lua: NumPy's functions of shapes and layouts, made of views where NumPy's give
-- views (expand_dims, squeeze, swapaxes, moveaxis, ravel, broadcast_to, split, rot90, ...)
-- and of gpu.concatenate, gpu.take and operations where NumPy's copy (roll, the stacks,
-- pad, diag, indices). Loaded at the first call of one (lua/gpu.lua). Dimensions and
-- indices are 1-based, negative ones counting from the end, as everywhere in gpuhost.
local gpu = ...
local array_meta = gpu._meta.array

local is_array, described = gpu._is_array, gpu._described

local shown, array, integer, count, dim_of = gpu._arg.shown, gpu._arg.array, gpu._arg.integer, gpu._arg.count,
                                            gpu._arg.dim_of

-- dims (a number or a table of them, without holes; named what) as distinct 1-based
-- dimensions of an ndim-D array
local function dims_of(dims, ndim, api, what)
  if type(dims) ~= "table" then dims = {dims} end
  gpu._arg.list(dims, api, what, 3)
  local out, seen = {}, {}
  for i, d in ipairs(dims) do
    d = dim_of(d, ndim, api)
    if seen[d] then error(("gpu.%s: dimension %d appears twice"):format(api, d), 3) end
    seen[d], out[i] = true, d
  end
  return out
end

local function shape_text(s) return "{" .. table.concat(s, ", ") .. "}" end

------------------------------------------------------------------------------------
-- dimensions added, dropped and moved: views

-- gpu.expand_dims(a, dim): a view with a dimension of size 1 at each dim (a number or a
-- table), which number the result's dimensions, as NumPy's
function gpu.expand_dims(a, dim)
  array(a, "expand_dims")
  local dims = type(dim) == "table" and dim or {dim}
  local at = dims_of(dims, gpu._arg.dims(a.ndim + #dims, "expand_dims", 3), "expand_dims", "dim")
  table.sort(at)
  for _, d in ipairs(at) do a = a:unsqueeze(d) end
  return a
end

-- gpu.squeeze(a [, dim]): a:squeeze([dim]), dim also a table of dimensions (each of size 1)
function gpu.squeeze(a, dim)
  array(a, "squeeze")
  if dim == nil then return a:squeeze() end
  local dims, shape = dims_of(dim, a.ndim, "squeeze", "dim"), a.shape
  table.sort(dims, function(x, y) return x > y end)   -- the last first: the others keep their numbers
  for _, d in ipairs(dims) do
    if shape[d] ~= 1 then error(("gpu.squeeze: cannot squeeze dimension %d of size %d"):format(d, shape[d]), 2) end
    a = a:squeeze(d)
  end
  return a
end

-- gpu.swapaxes(a, d1, d2): a view with the two dimensions swapped
function gpu.swapaxes(a, d1, d2)
  array(a, "swapaxes")
  if a.ndim == 0 then error("gpu.swapaxes: a 0-D array has no dimensions to swap", 2) end
  return a:transpose(dim_of(d1, a.ndim, "swapaxes"), dim_of(d2, a.ndim, "swapaxes"))
end

-- gpu.moveaxis(a, src, dst): a view with dimensions src (a number or a table) moved to dst
-- (as many), the others keeping their order, as NumPy's
function gpu.moveaxis(a, src, dst)
  array(a, "moveaxis")
  local from, to = dims_of(src, a.ndim, "moveaxis", "src"), dims_of(dst, a.ndim, "moveaxis", "dst")
  if #from ~= #to then
    error(("gpu.moveaxis: %d source dimensions and %d destinations: give as many"):format(#from, #to), 2)
  end
  local moved, order = {}, {}
  for _, d in ipairs(from) do moved[d] = true end
  for d = 1, a.ndim do if not moved[d] then order[#order + 1] = d end end
  local pairs_ = {}
  for i = 1, #from do pairs_[i] = {to[i], from[i]} end
  table.sort(pairs_, function(x, y) return x[1] < y[1] end)
  for _, p in ipairs(pairs_) do table.insert(order, p[1], p[2]) end
  if a.ndim < 2 then return a[{}] end
  return a:transpose(order)
end

-- gpu.ravel(a [, order]): a 1-D view of a C-ordered a, else a C-ordered copy, as NumPy's;
-- in order "F" ("A" for an F-ordered a) the elements first dim fastest
function gpu.ravel(a, order)
  array(a, "ravel")
  if order ~= nil and order ~= "C" and order ~= "F" and order ~= "A" then
    error(('gpu.ravel: order must be "C", "F" or "A", got %s'):format(type(order) == "string" and '"' .. order .. '"' or gpu._arg.shown(order)), 2)
  end
  if order == "F" or order == "A" then return a:flatten(order) end
  if a:is_contiguous() then return a:reshape(-1) end
  return gpu.empty(a.size, a.dtype):copy_(a)   -- on the current device, as a:copy()
end

-- gpu.ascontiguousarray(a [, dtype]): a itself when C-ordered (and of dtype), else a
-- C-ordered copy; at least 1-D, as NumPy's
function gpu.ascontiguousarray(a, dtype)
  array(a, "ascontiguousarray")
  if dtype ~= nil then dtype = gpu._arg.dtype(dtype, "ascontiguousarray", 2) end   -- (a:astype named itself)
  if dtype ~= nil and dtype ~= a.dtype then a = a:astype(dtype) end
  a = a:contiguous()
  return a.ndim == 0 and a:reshape(1) or a
end

------------------------------------------------------------------------------------
-- broadcasting

-- The shape that shapes broadcast to, as NumPy's (sizes aligned from the last)
local function broadcast_shape(shapes, api)
  local nd = 0
  for _, s in ipairs(shapes) do nd = math.max(nd, #s) end
  local out = {}
  for k = 1, nd do
    local size, from = 1, nil   -- from: the first array of a size other than 1 here
    for i, s in ipairs(shapes) do
      local n = s[#s - nd + k] or 1
      if n ~= 1 then
        if size ~= 1 and n ~= size then
          error(("gpu.%s: shapes %s and %s do not broadcast (arrays %d and %d)"):format(
            api, shape_text(shapes[from]), shape_text(s), from, i), 3)
        end
        size, from = n, from or i
      end
    end
    out[k] = size
  end
  return out
end

-- gpu.broadcast_to(a, shape): a view of a expanded to shape (sizes of 1 repeated by a
-- stride of 0, new leading dimensions), which cannot be written to, as NumPy's
function gpu.broadcast_to(a, shape)
  array(a, "broadcast_to")
  if type(shape) ~= "table" then shape = {shape} end
  gpu._arg.list(shape, "broadcast_to", "shape")
  local s = {}
  local reach = 1.0   -- (in float64: a product of integers would wrap)
  for i, n in ipairs(shape) do
    s[i] = count(n, "broadcast_to", "each size")
    reach = reach * math.max(s[i], 1)
  end
  gpu._arg.dims(#s, "broadcast_to", 3)
  if reach > 2 ^ 48 then
    error(("gpu.broadcast_to: shape %s is too large: more elements than an array holds (2^48)"):format(shape_text(s)), 2)
  end
  local as = a.shape
  local fits = #s >= #as
  for k = 1, #as do fits = fits and (as[k] == 1 or as[k] == s[#s - #as + k]) end
  if not fits then
    error(("gpu.broadcast_to: shape %s cannot be broadcast to %s"):format(shape_text(as), shape_text(s)), 2)
  end
  return gpu._readonly(a:expand(s))
end

-- gpu.broadcast_arrays(a1, ..., an): the arrays as views of their broadcast shape, which
-- are not written into (as broadcast_to's; NumPy's warn that they will not be)
function gpu.broadcast_arrays(...)
  local list, shapes = table.pack(...), {}
  for i = 1, list.n do
    array(list[i], "broadcast_arrays", "argument " .. i)
    shapes[i] = list[i].shape
  end
  local shape, out = broadcast_shape(shapes, "broadcast_arrays"), {}
  for i = 1, list.n do out[i] = gpu._readonly(list[i]:expand(shape)) end
  return table.unpack(out, 1, list.n)
end

-- atleast_nd's view of one array: 0-D and 1-D ones put where NumPy puts them
local function atleast(a, n, api, i)
  array(a, api, "argument " .. i)
  local nd = a.ndim
  if nd >= n then return a end
  if nd == 0 then return a:reshape(table.unpack({1, 1, 1}, 1, n)) end
  if nd == 1 then return n == 2 and a:unsqueeze(1) or a:unsqueeze(1):unsqueeze(3) end
  return a:unsqueeze(3)   -- a matrix, for atleast_3d
end
local function atleast_each(n, api, ...)
  local list, out = table.pack(...), {}
  if list.n == 0 then error(("gpu.%s: no arrays given"):format(api), 3) end
  for i = 1, list.n do out[i] = atleast(list[i], n, api, i) end
  return table.unpack(out, 1, list.n)
end
-- gpu.atleast_1d(a1, ...), atleast_2d, atleast_3d: views with at least that many dimensions
function gpu.atleast_1d(...) return atleast_each(1, "atleast_1d", ...) end
function gpu.atleast_2d(...) return atleast_each(2, "atleast_2d", ...) end
function gpu.atleast_3d(...) return atleast_each(3, "atleast_3d", ...) end

------------------------------------------------------------------------------------
-- joining and splitting

-- The arrays of list, each made at least n-D, for gpu.concatenate
local function each_atleast(list, n, api)
  if type(list) ~= "table" or is_array(list) then
    error(("gpu.%s: a table of arrays expected as argument 1, got %s"):format(api, is_array(list) and "an array" or described(list)), 3)
  end
  if #list == 0 then error(("gpu.%s: no arrays to join"):format(api), 3) end
  gpu._arg.array_list(list, api, "the table of arrays", 3)
  local out = {}
  for i = 1, #list do out[i] = atleast(list[i], n, api, i) end
  return out
end

-- gpu.hstack(arrays): joined along the second dimension (the first for 1-D ones);
-- gpu.vstack: along the first, 1-D ones as rows; gpu.dstack: along the third, as NumPy's
-- (concatenate's errors in the words of the function called: "gpu.vstack: ...")
local function join(api, l, dim) return gpu._arg.renamed("concatenate", api, nil, pcall(gpu.concatenate, l, dim)) end
function gpu.hstack(list)
  local l = each_atleast(list, 1, "hstack")
  return join("hstack", l, #l > 0 and l[1].ndim == 1 and 1 or 2)
end
function gpu.vstack(list) return join("vstack", each_atleast(list, 2, "vstack"), 1) end
function gpu.dstack(list) return join("dstack", each_atleast(list, 3, "dstack"), 3) end

-- gpu.column_stack(arrays): 1-D arrays as the columns of a matrix (and 2-D ones as they
-- are) joined along the second dimension
function gpu.column_stack(list)
  local l = each_atleast(list, 0, "column_stack")
  for i, a in ipairs(l) do
    if a.ndim < 2 then l[i] = a:reshape(a.size, 1) end
  end
  return join("column_stack", l, 2)
end

-- gpu.append(a, values [, dim]): a new array, values after a along dim, or both flattened
-- without dim, as NumPy's
function gpu.append(a, values, dim)
  array(a, "append")
  array(values, "append", "values")
  if dim == nil then return gpu.concatenate({gpu.ravel(a), gpu.ravel(values)}, 1) end
  return gpu._arg.renamed("concatenate", "append", nil, pcall(gpu.concatenate, {a, values}, dim))
end

-- The 1-based split point i of a dimension of size n as where its piece starts, 1 to n + 1:
-- -k is n + 1 - k, as a 1-based index of an element; beyond either end, the end
local function split_point(i, n, api)
  i = integer(i, api, "each split index")
  if i == 0 then error(("gpu.%s: split index 0: indices are 1-based (1 is the first element)"):format(api), 4) end
  if i < 0 then i = n + 1 + i end
  return math.max(1, math.min(n + 1, i))
end

-- The pieces of a along d from 1-based starts (ascending or not: a piece may be empty)
local function pieces(a, d, starts)
  local n, out = a.shape[d], {}
  for k = 1, #starts + 1 do
    local first, stop = starts[k - 1] or 1, starts[k] or n + 1
    out[k] = a:narrow(d, first, math.max(0, stop - first))
  end
  return out
end

-- Split into sections (a number; equal ones unless uneven is allowed, as array_split) or at
-- split points (a table), for gpu.api
local function split(a, sections, dim, api, uneven)
  array(a, api)
  if a.ndim == 0 then error(("gpu.%s: a 0-D array has no dimension to split"):format(api), 3) end
  local d = dim_of(dim or 1, a.ndim, api)
  local n, starts = a.shape[d], {}
  if type(sections) == "table" then
    gpu._arg.list(sections, api, "sections", 3)
    for k, i in ipairs(sections) do starts[k] = split_point(i, n, api) end
  else
    local s = count(sections, api, "the number of sections")
    if s == 0 then error(("gpu.%s: the number of sections must be positive"):format(api), 3) end
    if not uneven and n % s ~= 0 then
      error(("gpu.%s: %d sections do not divide dimension %d of size %d equally (gpu.array_split allows it)"):format(
        api, s, d, n), 3)
    end
    local each, extra, at = n // s, n % s, 1
    for k = 1, s - 1 do
      at = at + each + (k <= extra and 1 or 0)
      starts[k] = at
    end
  end
  return pieces(a, d, starts)
end

-- gpu.split(a, sections_or_indices [, dim]): a table of views of a along dim (1 by default):
-- sections equal pieces, or pieces starting at 1-based split indices ({3, 5}: a[1..2],
-- a[3..4], a[5..]); gpu.array_split lets the sections differ by one (the first ones longer)
function gpu.split(a, sections, dim) return split(a, sections, dim, "split", false) end
function gpu.array_split(a, sections, dim) return split(a, sections, dim, "array_split", true) end
-- gpu.hsplit: along the second dimension (the first of a 1-D array); vsplit: along the
-- first of an array of 2-D or more; dsplit: along the third of 3-D or more
function gpu.hsplit(a, sections)
  array(a, "hsplit")
  return split(a, sections, a.ndim == 1 and 1 or 2, "hsplit", false)
end
local function split_at_least(a, sections, nd, api)
  array(a, api)
  if a.ndim < nd then error(("gpu.%s: an array of %d-D or more expected, got %d-D"):format(api, nd, a.ndim), 3) end
  return split(a, sections, nd == 2 and 1 or 3, api, false)
end
function gpu.vsplit(a, sections) return split_at_least(a, sections, 2, "vsplit") end
function gpu.dsplit(a, sections) return split_at_least(a, sections, 3, "dsplit") end

-- gpu.roll(a, shift [, dim]): a new array, the elements moved shift places along dim (shift
-- and dim may be tables of as many, or one of them a number applied to each), those past
-- the end coming back at the start; without dim, a flattened then given a's shape
function gpu.roll(a, shift, dim)
  array(a, "roll")
  if dim == nil then
    return gpu.roll(gpu.ravel(a), shift, 1):reshape(a.shape)
  end
  local shifts, dims = type(shift) == "table" and shift or {shift}, type(dim) == "table" and dim or {dim}
  gpu._arg.list(shifts, "roll", "shift")
  gpu._arg.list(dims, "roll", "dim")
  if #shifts ~= #dims and #shifts ~= 1 and #dims ~= 1 then
    error(("gpu.roll: %d shifts and %d dimensions: give as many, or one of either"):format(#shifts, #dims), 2)
  end
  local by = {}   -- the shift of each dimension, summed as NumPy does for a repeated one
  for k = 1, math.max(#shifts, #dims) do
    local d = dim_of(dims[math.min(k, #dims)], a.ndim, "roll")
    by[d] = (by[d] or 0) + integer(shifts[math.min(k, #shifts)], "roll", "shift")
  end
  local moved = {}   -- {dim, length, shift} of each dimension that moves
  for d = 1, a.ndim do
    local n = a.shape[d]
    local s = n > 0 and (by[d] or 0) % n or 0
    if s ~= 0 then moved[#moved + 1] = {d, n, s} end
  end
  if #moved == 0 then return a:copy() end
  -- one copy a block: along each moved dimension its last s elements go first, the rest
  -- after them; 2^k blocks for k dimensions, each element read and written once
  local out = gpu.empty(a.shape, a.dtype)
  for mask = 0, (1 << #moved) - 1 do
    local src, dst = a, out
    for k, m in ipairs(moved) do
      local d, n, s = m[1], m[2], m[3]
      if mask & (1 << (k - 1)) ~= 0 then
        src, dst = src:narrow(d, n - s + 1, s), dst:narrow(d, 1, s)
      else
        src, dst = src:narrow(d, 1, n - s), dst:narrow(d, s + 1, n - s)
      end
    end
    dst:copy_(src)
  end
  return out
end

------------------------------------------------------------------------------------
-- padding

-- width in NumPy's forms (n; {before, after}; one pair a dimension; {n} or {{b, a}} for
-- all) as a pair for each of ndim dimensions
local function pad_widths(width, ndim)
  local function pair(p)
    if type(p) == "number" then p = {p} end
    if type(p) ~= "table" or #p < 1 or #p > 2 then
      error("gpu.pad: width must be n, {before, after} or one such pair a dimension", 4)
    end
    return {count(p[1], "pad", "each width"), count(p[#p], "pad", "each width")}
  end
  if type(width) == "table" then gpu._arg.list(width, "pad", "width", 3) end
  if type(width) ~= "table" or type(width[1]) ~= "table" then
    local p = pair(width)
    width = {}
    for d = 1, ndim do width[d] = p end
    return width
  end
  if #width ~= 1 and #width ~= ndim then
    error(("gpu.pad: %d pairs of widths for a %d-D array: give one, or one a dimension"):format(#width, ndim), 3)
  end
  local out = {}
  for d = 1, ndim do out[d] = pair(width[#width == 1 and 1 or d]) end
  return out
end

-- For each place of a dimension of size n padded by before and after, the 0-based place of
-- the element it repeats (j from -before), as an int64 array: NumPy's modes, which repeat
-- periodically however wide the padding
local INDEX = {
  edge = function(j, n) return gpu.clip(j, 0, n - 1) end,
  wrap = function(j, n) return j % n end,
  reflect = function(j, n)
    if n == 1 then return j * 0 end
    local m = j % (2 * n - 2)
    return gpu.where(m:ge(n), 2 * n - 2 - m, m)
  end,
  symmetric = function(j, n)
    local m = j % (2 * n)
    return gpu.where(m:ge(n), 2 * n - 1 - m, m)
  end,
}

-- gpu.pad(a, width [, {mode =, value =}]): a new array, a with width more elements before
-- and after each dimension: value (0) for mode "constant", else repeating a's as NumPy's
-- "edge", "reflect", "symmetric" and "wrap"
function gpu.pad(a, width, opts)
  array(a, "pad")
  opts = opts or {}
  if type(opts) ~= "table" then error("gpu.pad: argument 3 must be a table of options", 2) end
  gpu._arg.options(opts, "pad", "mode value")
  local mode = opts.mode or "constant"
  if mode ~= "constant" and not INDEX[mode] then
    error(("gpu.pad: mode must be \"constant\", \"edge\", \"reflect\", \"symmetric\" or \"wrap\", got %s"):format(gpu._arg.choice(mode)), 2)
  end
  if opts.value ~= nil and mode ~= "constant" then   -- (it was dropped), as NumPy refuses it
    error(("gpu.pad: value is for mode \"constant\" only, got mode %q"):format(mode), 2)
  end
  if opts.value ~= nil and type(opts.value) ~= "number" and type(opts.value) ~= "boolean" and not gpu._arg.is_complex(opts.value) then
    error(("gpu.pad: value must be a number, got %s"):format(gpu._described(opts.value)), 2)
  end
  local w, shape = pad_widths(width, a.ndim), a.shape
  for d = 1, a.ndim do   -- before Lua's integers wrap in the sums below
    if w[d][1] > math.maxinteger - shape[d] - w[d][2] then
      error(("gpu.pad: widths %s and %s make dimension %d too large"):format(w[d][1], w[d][2], d), 2)
    end
  end
  local oshape = {}
  for d = 1, a.ndim do oshape[d] = shape[d] + w[d][1] + w[d][2] end
  gpu._arg.reach(oshape, "pad", 3)
  if mode == "constant" then
    local ok, out = pcall(gpu.full, oshape, opts.value or 0, a.dtype)
    if not ok then error("gpu.pad: value: " .. (tostring(out):match("%((.*)%)$") or tostring(out)), 2) end
    local inner = out
    for d = 1, a.ndim do inner = inner:narrow(d, w[d][1] + 1, shape[d]) end
    if a.size > 0 then inner:copy_(a) end
    return out
  end
  for d = 1, a.ndim do
    if shape[d] == 0 and w[d][1] + w[d][2] > 0 then
      error(("gpu.pad: cannot pad dimension %d of size 0 with mode %q (only \"constant\")"):format(d, mode), 2)
    end
  end
  if a.size == 0 then   -- (nothing to repeat: no index arrays, 2^40 of them were 8 TB)
    return gpu.with_device(a.device, gpu.empty, oshape, a.dtype)
  end
  local out = a
  for d = 1, a.ndim do
    local before, after, n = w[d][1], w[d][2], shape[d]
    if before + after > 0 then
      local j = gpu.arange(-before, n + after, "int64")
      out = gpu.take(out, INDEX[mode](j, n) + 1, d)
    end
  end
  return out == a and a:copy() or out
end

------------------------------------------------------------------------------------
-- rotations and flips: views

-- gpu.rot90(a [, k [, dims]]): a view of a turned k times (1 by default) by 90 degrees in
-- the plane of dims ({1, 2} by default), from the first toward the second, as NumPy's
function gpu.rot90(a, k, dims)
  array(a, "rot90")
  k = integer(k or 1, "rot90", "k") % 4
  dims = dims or {1, 2}
  if type(dims) ~= "table" or #dims ~= 2 then error("gpu.rot90: dims must be a table of two dimensions", 2) end
  if a.ndim < 2 then error(("gpu.rot90: an array of 2-D or more expected, got %d-D"):format(a.ndim), 2) end
  local d = dims_of(dims, a.ndim, "rot90", "dims")
  if k == 0 then return a[{}] end
  if k == 2 then return gpu.flip(a, d) end
  if k == 1 then return gpu.flip(a, d[2]):transpose(d[1], d[2]) end
  return gpu.flip(a:transpose(d[1], d[2]), d[2])
end

-- gpu.fliplr(a): a view with dimension 2 reversed; gpu.flipud: dimension 1
function gpu.fliplr(a)
  array(a, "fliplr")
  if a.ndim < 2 then error(("gpu.fliplr: an array of 2-D or more expected, got %d-D"):format(a.ndim), 2) end
  return gpu.flip(a, 2)
end
function gpu.flipud(a)
  array(a, "flipud")
  if a.ndim < 1 then error("gpu.flipud: a 0-D array has no dimension to flip", 2) end
  return gpu.flip(a, 1)
end

------------------------------------------------------------------------------------
-- diagonals and indices

-- gpu.diag(v [, k]): for a 1-D v, a new square matrix with v on diagonal k (0 the main one,
-- above it for k > 0), zeros elsewhere; for a matrix, gpu.diagonal(v, k) (a new array)
-- (api: the public function, diag or diagflat, whose caller is 3 levels up from here)
local function diag(v, k, api)
  if v.ndim == 2 then return gpu.diagonal(v, k) end
  if v.ndim ~= 1 then error(("gpu.diag: a 1-D or 2-D array expected, got %d-D"):format(v.ndim), 3) end
  local len = v.size
  if k < -(1 << 48) or k > 1 << 48 then   -- (math.abs(math.mininteger) wraps)
    error(("gpu.%s: k is %d: the result would have more elements than an array holds (2^48)"):format(api, k), 3)
  end
  local n = len + math.abs(k)
  gpu._arg.elements(gpu._arg.times(n, n, api, "rows", 4), api, 4)
  local out = gpu.zeros({n, n}, v.dtype)
  if len > 0 then
    local first = k >= 0 and k or -k * n   -- 0-based, in C order
    out:reshape(n * n)[{ {first + 1, first + 1 + (len - 1) * (n + 1), n + 1} }] = v
  end
  return out
end

-- gpu.diagflat(v [, k]): gpu.diag of v flattened
function gpu.diag(v, k)
  array(v, "diag", "v")
  local r = diag(v, integer(k or 0, "diag", "k"), "diag")
  return r
end
function gpu.diagflat(v, k)
  array(v, "diagflat", "v")
  local r = diag(gpu.ravel(v), integer(k or 0, "diagflat", "k"), "diagflat")
  return r
end

-- The sizes of a shape argument (a number or a table)
local function sizes(shape, api)
  if type(shape) ~= "table" then shape = {shape} end
  gpu._arg.list(shape, api, "shape", 3)
  local s, total, over, empty = {}, 1, false, false
  for i, n in ipairs(shape) do
    s[i] = count(n, api, "each size")
    over = over or (s[i] > 0 and total > math.maxinteger // s[i])
    empty = empty or s[i] == 0
    total = total * s[i]
  end
  if over and not empty then
    error(("gpu.%s: the shape {%s} has more elements than an int64 counts"):format(api, table.concat(s, ", ")), 3)
  end
  return s, empty and 0 or total
end

-- gpu.indices(shape [, dtype]): an array of shape {#shape, shape...} whose k-th plane holds
-- each element's 1-based index in dimension k (int64 by default), as NumPy's plus 1
function gpu.indices(shape, dtype)
  local s, total = sizes(shape, "indices")
  gpu._arg.dims(#s + 1, "indices", 3)   -- (the planes stacked)
  gpu._arg.elements(gpu._arg.times(total, #s, "indices", "planes", 3), "indices", 3)
  if dtype ~= nil and gpu._arg.dtype(dtype, "indices", 2) == "bool" then
    error("gpu.indices: a bool array cannot hold 1-based indices: give an integer or float dtype", 2)
  end
  local planes = {}
  for k = 1, #s do
    local view = {}
    for d = 1, #s do view[d] = d == k and s[k] or 1 end
    planes[k] = (gpu.arange(1, s[k] + 1, dtype or "int64"):reshape(view)):expand(s)
  end
  if #s == 0 then return gpu.empty(0, dtype or "int64") end
  return gpu.stack(planes, 1)
end

-- The 1-based row and column indices where a triangle of an n x m matrix is true
local function triangle_indices(n, k, m, api, lower)
  n = count(n, api, "n")
  m = m == nil and n or count(m, api, "m")
  k = integer(k or 0, api, "k")
  gpu._arg.elements(gpu._arg.times(n, m, api, "rows", 4), api, 4)   -- (the mask is n x m)
  local rows = gpu.arange(n, "int64"):unsqueeze(2)
  local cols = gpu.arange(m, "int64"):unsqueeze(1)
  local keep = lower and (cols - rows):le(k) or (cols - rows):ge(k)
  if n * m == 0 then return gpu.empty(0, "int64"), gpu.empty(0, "int64") end
  return gpu.nonzero(keep)
end
-- gpu.tril_indices(n [, k [, m]]): the 1-based (rows, columns) of the lower triangle of an
-- n x m matrix (diagonal k and below), in C order; gpu.triu_indices: the upper
function gpu.tril_indices(n, k, m) return triangle_indices(n, k, m, "tril_indices", true) end
function gpu.triu_indices(n, k, m) return triangle_indices(n, k, m, "triu_indices", false) end

local index_array = gpu._arg.index_array

-- An error if an index of idx is outside 1..n (it reads the extremes back)
local function in_range(idx, n, api, what)
  if idx.size == 0 then return end
  local lo, hi = idx:min(), idx:max()
  if lo < 1 or hi > n then
    error(("gpu.%s: %s %d is out of range 1 to %d"):format(api, what, lo < 1 and lo or hi, n), 3)
  end
end

-- gpu.unravel_index(indices, shape): the 1-based index in each dimension of shape of each
-- 1-based flat index (C order), as many int64 arrays of indices' shape (Lua integers for a
-- number), as NumPy's plus 1
function gpu.unravel_index(indices, shape)
  local s = sizes(shape, "unravel_index")
  local idx, scalar = index_array(indices, "unravel_index", "indices")
  local total = 1
  for _, n in ipairs(s) do total = total * n end
  in_range(idx, total, "unravel_index", "index")
  local flat, out, stride = idx - 1, {}, 1
  for d = #s, 1, -1 do
    out[d] = flat // stride % s[d] + 1
    stride = stride * s[d]
  end
  if scalar then for d = 1, #s do out[d] = math.tointeger(out[d]:item()) end end
  return table.unpack(out, 1, #s)
end

-- gpu.ravel_multi_index(indices, shape): the 1-based flat index (C order) of the 1-based
-- indices (a table of one array, table or number a dimension, which broadcast), an int64
-- array (a Lua integer for numbers), as NumPy's plus 1; an index out of range is an error
function gpu.ravel_multi_index(multi, shape)
  local s = sizes(shape, "ravel_multi_index")
  if type(multi) ~= "table" or is_array(multi) or #multi ~= #s then
    error(("gpu.ravel_multi_index: a table of %d index arrays (one a dimension) expected"):format(#s), 2)
  end
  gpu._arg.array_list(multi, "ravel_multi_index", "the table of indices", 1)
  local flat, scalar, stride = nil, true, 1
  for d = 1, #s do   -- (a hole named as multi_index's, not "index of dimension 1[2]")
    if type(multi[d]) == "table" and not is_array(multi[d]) then
      gpu._arg.list(multi[d], "ravel_multi_index", ("multi_index[%d]"):format(d))
    end
  end
  for d = #s, 1, -1 do
    local idx, number = index_array(multi[d], "ravel_multi_index", ("index of dimension %d"):format(d))
    in_range(idx, s[d], "ravel_multi_index", ("index of dimension %d"):format(d))
    scalar = scalar and number
    local term = (idx - 1) * stride
    flat = flat and flat + term or term
    stride = stride * s[d]
  end
  if #s == 0 then error("gpu.ravel_multi_index: the shape has no dimensions", 2) end
  flat = flat + 1
  if scalar then return math.tointeger(flat:item()) end
  return flat
end

------------------------------------------------------------------------------------
-- comparisons and sequences

-- gpu.array_equal(a, b [, {equal_nan = true}]): whether a and b have one shape and equal
-- elements (a Lua boolean); NaNs equal each other only with equal_nan
function gpu.array_equal(a, b, opts)
  array(a, "array_equal")
  array(b, "array_equal", "b")
  local equal_nan = gpu._arg.flag(gpu._arg.options(opts, "array_equal", "equal_nan"), "equal_nan", "array_equal")
  local sa, sb = a.shape, b.shape
  if #sa ~= #sb then return false end
  for d = 1, #sa do if sa[d] ~= sb[d] then return false end end
  if a.size == 0 then return true end
  local eq = gpu.eq(a, b)
  if equal_nan then eq = gpu.logical_or(eq, gpu.logical_and(gpu.isnan(a), gpu.isnan(b))) end
  return eq:all()
end

local function finite(v, api, what)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    error(("gpu.%s: %s must be a finite number, got %s"):format(api, what, tostring(v)), 3)
  end
  return v * 1.0   -- (-0.0 + 0.0 is 0.0)
end

local function options(opts, api, known)
  opts = opts or {}
  if type(opts) ~= "table" then error(("gpu.%s: argument 4 must be a table of options"):format(api), 3) end
  return gpu._arg.options(opts, api, known)
end

-- base ^ linspace(start, stop, num) in float64, as NumPy's logspace computes
local function logspace64(start, stop, num, endpoint, base)
  num = gpu._arg.elements(count(num, "logspace", "num"), "logspace", 4)
  local y = gpu.linspace(start, stop, num, {endpoint = endpoint, dtype = "float64"})
  return gpu.pow(base + 0.0, y)
end

-- gpu.logspace(start, stop, num [, {endpoint =, base = 10, dtype =}]): base ^ x for num x
-- evenly spaced from start to stop, in float64 as NumPy's, then made dtype (float32)
function gpu.logspace(start, stop, num, opts)
  opts = options(opts, "logspace", "endpoint base dtype")
  local dtype = gpu._arg.dtype_option(opts, "logspace", "float32", 2)
  local base = finite(opts.base or 10, "logspace", "base")
  local y = logspace64(finite(start, "logspace", "start"), finite(stop, "logspace", "stop"), num,
                       gpu._arg.flag(opts, "endpoint", "logspace", true), base)
  return dtype == "float64" and y or y:astype(dtype)
end

-- gpu.geomspace(start, stop, num [, {endpoint =, dtype =}]): num numbers from start to stop
-- (both nonzero, of one sign) evenly spaced on a log scale, in float64 as NumPy's (10 ^
-- linspace(log10 start, log10 stop), the ends start and stop themselves), then made dtype
function gpu.geomspace(start, stop, num, opts)
  opts = options(opts, "geomspace", "endpoint dtype")
  local dtype = gpu._arg.dtype_option(opts, "geomspace", "float32", 2)
  start, stop = finite(start, "geomspace", "start"), finite(stop, "geomspace", "stop")
  num = gpu._arg.elements(count(num, "geomspace", "num"), "geomspace", 3)
  if start == 0 or stop == 0 then error("gpu.geomspace: a geometric sequence cannot include 0", 2) end
  if (start < 0) ~= (stop < 0) then
    error("gpu.geomspace: start and stop must have one sign (between them the sequence would be complex)", 2)
  end
  local sign = start < 0 and -1.0 or 1.0
  local endpoint = gpu._arg.flag(opts, "endpoint", "geomspace", true)
  local y = logspace64(math.log(sign * start, 10), math.log(sign * stop, 10), num, endpoint, 10.0)
  if num > 0 then y[{ 1 }] = sign * start end
  if num > 1 and endpoint then y[{ -1 }] = sign * stop end
  if sign < 0 then y = -y end
  return dtype == "float64" and y or y:astype(dtype)
end

local NAMES = {"expand_dims", "squeeze", "swapaxes", "moveaxis", "ravel", "ascontiguousarray", "broadcast_to",
               "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack",
               "column_stack", "append", "split", "array_split", "hsplit", "vsplit", "dsplit", "roll", "pad",
               "rot90", "fliplr", "flipud", "diag", "diagflat", "indices", "tril_indices", "triu_indices",
               "unravel_index", "ravel_multi_index", "array_equal", "logspace", "geomspace"}
-- their arrays on the current device, checked first (an operation inside named itself);
-- the views and the joins, copies made on their arrays' device, take arrays of one device
-- (ascontiguousarray and ravel copy as a:contiguous() does: onto the current device)
local ALONG = {}
for _, name in ipairs({"expand_dims", "squeeze", "swapaxes", "moveaxis", "ravel", "ascontiguousarray", "broadcast_to", "broadcast_arrays",
                       "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack", "split",
                       "array_split", "hsplit", "vsplit", "dsplit", "rot90", "fliplr", "flipud"}) do
  ALONG[name] = true
end
local ARRAYS = {"arrays"}   -- (the README's names)
local PARAMS = {hstack = ARRAYS, vstack = ARRAYS, dstack = ARRAYS, column_stack = ARRAYS, ravel_multi_index = {"multi_index"}}
for _, name in ipairs(NAMES) do gpu[name] = gpu._api(gpu._arg.on_device(name, gpu[name], PARAMS[name], ALONG[name])) end
array_meta.methods.swapaxes, array_meta.methods.ravel = gpu.swapaxes, gpu.ravel
array_meta.methods.moveaxis = gpu.moveaxis
