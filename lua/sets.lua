-- sets.lua: NumPy's set functions (in1d, intersect1d, union1d, setdiff1d, setxor1d), the
-- sorts made of gpu.sort (lexsort, partition, digitize) and the index functions (take_along_axis,
-- put, place, compress, choose, select, delete, insert, resize, repeat, ...), all composed of
-- the module's sorts, searches, gathers and gpu.where. Loaded at the first call of one
-- (lua/gpu.lua). Indices and dimensions are 1-based, negative ones counting from the end.
local gpu = ...
local array_meta = gpu._meta.array

local is_array, described = gpu._is_array, gpu._described

local KIND = {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name] = d.kind end

-- Every check raises through here: level 0, so gpu._api puts the caller's line on it
local function fail(api, fmt, ...) error(("gpu.%s: " .. fmt):format(api, ...), 0) end

local function array_arg(v, api, what)
  if not is_array(v) then fail(api, "%s must be a device array, got %s", what, described(v)) end
  return v
end

local function ordered(v, api, what)
  array_arg(v, api, what)
  if KIND[v.dtype] == "c" then fail(api, "%s is complex: it has no order", what) end
  return v
end

-- the options table at argument `at`, each key one of `known` (gpu._arg.options)
local function options(opts, api, at, known)
  if opts ~= nil and type(opts) ~= "table" then fail(api, "argument %d must be a table of options, got %s", at, type(opts)) end
  return gpu._arg.options(opts, api, known)
end

local function integer(v, api, what)
  if type(v) == "number" and v == math.floor(v) then v = math.tointeger(v) or v end
  if math.type(v) ~= "integer" then   -- (a string shown as one: "2" read as the number)
    fail(api, "%s must be an integer, got %s", what, type(v) == "string" and ("a string (%q)"):format(v) or gpu._arg.shown(v))
  end
  return v
end

local function dim_of(d, ndim, api)
  d = integer(d, api, "dim")
  local k = d < 0 and d + ndim + 1 or d
  if k < 1 or k > ndim then
    fail(api, "dim %d is out of range for an array of %d dimension%s", d, ndim, ndim == 1 and "" or "s")
  end
  return k
end

-- gpu._arg.index_array, a string entry named as one (its "ind[1] must be an integer, got 2"
-- read as a number)
local function index_array(v, api, what)
  local list = type(v) == "table" and not is_array(v) and v or {v}
  for k, x in ipairs(list) do
    if type(x) == "string" then
      fail(api, "%s must be an integer, got a string (%q)", list == v and ("%s[%d]"):format(what, k) or what, x)
    end
  end
  return gpu._arg.index_array(v, api, what)
end

-- k (int64) made 0-based, after checking each is among 1..hi (n by default) or -n..-1 (it
-- reads one back)
local function zero_based(k, n, api, what, hi)
  hi = hi or n
  local bad = gpu.logical_or(gpu.logical_or(k:lt(-n), k:gt(hi)), k:eq(0))
  if k.size > 0 and gpu.any(bad) then
    local valid = n == 0 and (": the array is empty" .. (hi > 0 and ", so 1 (after the last) is the only index" or ""))
                  or (" (1-based%s; -%d to -1 from the end)"):format(hi > n and ", n + 1 after the last" or "", n)
    fail(api, "index %d is out of range for %s of size %d%s", gpu.extract(bad:reshape(-1), k:reshape(-1)):item(1), what, n, valid)
  end
  return gpu.where(k:lt(0), k + n, k - 1)
end

-- values (an array, a table, a number, a boolean or a gpu.complex) as an array of dtype
-- f(...)'s array, or its error as api's about `what` (not gpu.full's argument 2)
local function made(api, what, ok, v)
  if ok then return v end
  fail(api, "%s: %s", what, gpu._arg.unwrapped(v))
end
local function values_of(v, dtype, api, what)
  if is_array(v) then return v.dtype == dtype and v or v:astype(dtype) end
  if type(v) == "table" then return made(api, what, pcall(gpu.array, v, dtype)) end
  if type(v) == "boolean" and dtype ~= "bool" then v = v and 1 or 0 end   -- NumPy's True is 1
  if type(v) == "number" or type(v) == "boolean" or gpu._arg.is_complex(v) then
    return made(api, what, pcall(gpu.full, {}, v, dtype))
  end
  fail(api, "%s must be a device array, a table or a number, got %s", what, described(v))
end

-- values_of for place and putmask: a device array of values is cast to a's dtype only where
-- NumPy's 'safe' rule allows it, as theirs (np.putmask(int8_array, m, int64_array) raises)
local function safe_values_of(v, a, api, what)
  if is_array(v) and not gpu.can_cast(v.dtype, a.dtype, "safe") then
    fail(api, "cannot cast %s of %s to a's %s by NumPy's 'safe' rule (astype them first)", what, v.dtype, a.dtype)
  end
  return values_of(v, a.dtype, api, what)
end

-- a mask (bool array, or nonzero) of a's shape, or a table of one
local function mask_of(m, a, api)
  if type(m) == "table" and not is_array(m) then m = gpu.array(m, "bool") end
  array_arg(m, api, "mask")
  if m.size ~= a.size then fail(api, "mask has %d elements but a has %d", m.size, a.size) end
  return (m.dtype == "bool" and m or m:ne(0)):reshape(a.shape)
end

-- v flattened and repeated (or cut) to n elements, as NumPy's put and putmask cycle values
local function cycled(v, n, api)
  v = v:reshape(-1)
  if v.size == n then return v end
  if v.size == 0 then fail(api, "cannot take values from an empty array") end
  return gpu.take(v, gpu.arange(n, "int64") % v.size + 1)
end

-- v broadcast to shape (a view), or an error of api's naming v as what
local function broadcast(v, shape, api, what)
  local ok, b = pcall(gpu.broadcast_to, v, shape)
  if not ok then
    fail(api, "%s of shape {%s} does not broadcast to {%s}", what, table.concat(v.shape, ", "), table.concat(shape, ", "))
  end
  return b
end

------------------------------------------------------------------------------------
-- writes at computed places

-- a's elements at the 0-based C-order flat positions pos set to vals (pos's shape, a's
-- dtype), in place: for each element, a binary search for the last position equal to its
-- own in the stably sorted positions. A place named twice gets the later value, as NumPy's
-- sequential writes give, on the GPU too, where a scatter kernel's order would not be fixed.
local function scatter(a, pos, vals)
  pos, vals = pos:reshape(-1), vals:reshape(-1)
  if pos.size == 0 or a.size == 0 then return end
  local s, order = gpu.sort(pos)
  local places = gpu.arange(a.size, "int64")
  local at = gpu.searchsorted(s, places, {side = "right"}) - 1   -- the last one <= each (0: none)
  local j = gpu.maximum(at, 1)
  local hit = gpu.logical_and(at:gt(0), gpu.take(s, j):eq(places))
  gpu.where(hit:reshape(a.shape), gpu.take(vals, gpu.take(order, j)):reshape(a.shape), a, {out = a})
end

-- gpu.put(a, ind, v): a's elements at the 1-based flat (C-order) indices ind set to v's, v
-- repeated as needed, in place
function gpu.put(a, ind, v)
  gpu._arg.writeable(array_arg(a, "put", "a"), "put", "a")
  gpu._arg.here("put", {a, "a", ind, "ind", v, "v"})   -- (gpu.lt's words named neither)
  local i = index_array(ind, "put", "ind")
  v = values_of(v, a.dtype, "put", "v")
  if v.size == 0 then return end   -- no values: nothing written, no place read (NumPy 2's)
  local k = zero_based(i, a.size, "put", "a flattened")
  scatter(a, k, cycled(v, k.size, "put"))
end

-- gpu.place(a, mask, vals): a's elements where mask is true set to vals' in turn (repeated)
function gpu.place(a, mask, vals)
  gpu._arg.writeable(array_arg(a, "place", "a"), "place", "a")
  local m = mask_of(mask, a, "place")
  local v = safe_values_of(vals, a, "place", "vals"):reshape(-1)
  if v.size == 0 then
    if gpu.any(m) then fail("place", "cannot insert from an empty array") end
    return
  end
  local nth = m:reshape(-1):cumsum() - 1          -- 0-based: which true element each is
  gpu.where(m, gpu.take(v, nth % v.size + 1):reshape(a.shape), a, {out = a})
end

-- gpu.putmask(a, mask, values): a[i] = values[i] where mask[i], values repeated over a flattened
function gpu.putmask(a, mask, values)
  gpu._arg.writeable(array_arg(a, "putmask", "a"), "putmask", "a")
  local m = mask_of(mask, a, "putmask")
  local v = safe_values_of(values, a, "putmask", "values")
  if v.size == 0 then return end        -- NumPy's leaves a as it is
  gpu.where(m, cycled(v, a.size, "putmask"):reshape(a.shape), a, {out = a})
end

-- NumPy's same_kind casting: from kind to the kind of dtype
local RANK = {b = 1, u = 2, i = 3, f = 4, c = 5}
local function same_kind(from, to) return from == to or (RANK[from] < RANK[to] and not (from == "i" and to == "u")) end

-- The kind of a copyto source: a Lua value's is that of the least dtype that holds it
local function kind_of(v)
  if is_array(v) then return KIND[v.dtype] end
  if type(v) == "boolean" then return "b" end
  if math.type(v) == "integer" then return v >= 0 and "u" or "i" end
  if type(v) == "number" then return "f" end
  return "c"
end

-- gpu.copyto(dst, src [, {where = mask}]): src (broadcast) into dst, where mask is true
function gpu.copyto(dst, src, opts)
  gpu._arg.writeable(array_arg(dst, "copyto", "dst"), "copyto", "dst")
  opts = options(opts, "copyto", 3, "where")
  if not is_array(src) and type(src) ~= "number" and type(src) ~= "boolean" and
     not gpu._arg.is_complex(src) then
    fail("copyto", "src must be a device array or a number, got %s", described(src))
  end
  if not same_kind(kind_of(src), KIND[dst.dtype]) then
    fail("copyto", "cannot cast %s to %s under the same_kind rule", is_array(src) and src.dtype or type(src), dst.dtype)
  end
  local where = opts.where
  if where == false then return end
  local v = broadcast(values_of(src, dst.dtype, "copyto", "src"), dst.shape, "copyto", "src")
  if where ~= nil and where ~= true then
    if type(where) == "table" and not is_array(where) then where = gpu.array(where, "bool") end
    array_arg(where, "copyto", "where")
    gpu.where(broadcast(where, dst.shape, "copyto", "where"), v, dst, {out = dst})
    return
  end
  dst:copy_(v)
end

------------------------------------------------------------------------------------
-- gathers

-- The 0-based flat positions in C-ordered a of NumPy's arr[..., idx, ...] along d (idx
-- of a's ndim, broadcast against a's other dimensions)
local function along(a, idx, d, api)
  if idx.ndim ~= a.ndim then
    fail(api, "indices and a must have the same number of dimensions, got %d and %d", idx.ndim, a.ndim)
  end
  local shape, ishape, stride = a.shape, idx.shape, 1
  local pos = zero_based(idx, shape[d], api, ("dimension %d"):format(d))
  for j = a.ndim, 1, -1 do
    if j == d then
      pos = pos * stride
    elseif shape[j] ~= ishape[j] and shape[j] ~= 1 and ishape[j] ~= 1 then
      fail(api, "indices' dimension %d (%d) does not match a's (%d)", j, ishape[j], shape[j])
    end
    stride = stride * shape[j]
  end
  stride = 1
  for j = a.ndim, 1, -1 do
    if j ~= d then
      local view = {}
      for i = 1, a.ndim do view[i] = i == j and shape[j] or 1 end
      pos = pos + gpu.arange(shape[j], "int64"):reshape(view) * stride
    end
    stride = stride * shape[j]
  end
  return pos
end

-- (a, idx, dim) of take_along_axis and put_along_axis: without dim, a flattened
local function along_args(a, idx, dim, api)
  array_arg(a, api, "a")
  idx = index_array(array_arg(idx, api, "indices"), api, "indices")
  if dim == nil then
    if idx.ndim ~= 1 then fail(api, "indices must be 1-D without dim, got %d-D", idx.ndim) end
    return a:reshape(-1), idx, 1
  end
  if a.ndim == 0 then fail(api, "a 0-D array has no dimension") end
  return a, idx, dim_of(dim, a.ndim, api)
end

function gpu.take_along_axis(a, indices, dim)
  local src, idx, d = along_args(a, indices, dim, "take_along_axis")
  return gpu.take(src:contiguous():reshape(-1), along(src, idx, d, "take_along_axis") + 1)
end

function gpu.put_along_axis(a, indices, values, dim)
  local dst, idx, d = along_args(a, indices, dim, "put_along_axis")
  gpu._arg.writeable(a, "put_along_axis", "a")
  local pos = along(dst, idx, d, "put_along_axis")
  local v = values_of(values, a.dtype, "put_along_axis", "values")
  scatter(a, pos, broadcast(v, pos.shape, "put_along_axis", "values"))   -- on a, whose C-order positions are those of a flattened
end

-- gpu.compress(condition, a [, dim]): the slices along dim (of a flattened without) where
-- the 1-D condition is true
function gpu.compress(condition, a, dim)
  if type(condition) == "table" and not is_array(condition) then condition = gpu.array(condition, "bool") end
  array_arg(condition, "compress", "condition")
  array_arg(a, "compress", "a")
  if condition.ndim ~= 1 then fail("compress", "condition must be 1-D, got %d-D", condition.ndim) end
  local src = dim == nil and a:reshape(-1) or a
  if src.ndim == 0 then fail("compress", "a 0-D array has no dimension") end
  local d = dim_of(dim or 1, src.ndim, "compress")
  local n = src.shape[d]
  local picked = condition.size == 0 and gpu.empty({0}, "int64") or (gpu.nonzero(condition))
  if picked.size > 0 and picked:item(picked.size) > n then
    fail("compress", "condition is true at %d, past dimension %d's %d elements", picked:item(picked.size), d, n)
  end
  return gpu.take(src, picked, d)
end

-- gpu.where(cond, choices[j], choices[y] or y (an array)), its error naming the choice, not
-- where's argument (a number out of range of an array choice's dtype)
local function chosen(cond, choices, j, y)
  local ok, r = pcall(gpu.where, cond, choices[j], math.type(y) and choices[y] or y)
  if ok then return r end
  local pos, rest = tostring(r):match("^gpu%.where argument (%d): (.*)$")
  local bad = pos == "2" and j or pos == "3" and math.type(y) and y
  if bad then fail("choose", "choices[%d]: %s", bad, rest) end
  error(r, 0)
end

-- gpu.choose(a, choices): choices[a[i]][i] (1-based, negative from the end), a and the
-- choices (a table of arrays or numbers) broadcast together
function gpu.choose(a, choices, ...)
  if select("#", ...) > 0 then   -- NumPy's mode = "raise" only; an options table was ignored
    fail("choose", "takes a and choices only (an index out of range is an error, NumPy's mode = 'raise')")
  end
  local k = index_array(a, "choose", "a")
  if type(choices) ~= "table" or is_array(choices) then
    fail("choose", "choices must be a table of arrays or numbers, got %s", is_array(choices) and "an array" or type(choices))
  end
  local n = #choices
  if n == 0 then fail("choose", "choices is empty") end
  gpu._arg.array_list(choices, "choose", "choices", 1)
  for j = 1, n do
    if not is_array(choices[j]) and type(choices[j]) ~= "number" then
      fail("choose", "choices[%d] must be a device array or a number, got %s", j, described(choices[j]))
    end
  end
  k = zero_based(k, n, "choose", "choices") + 1
  local out = chosen(k:eq(1), choices, 1, n)
  for j = 2, n - 1 do out = chosen(k:eq(j), choices, j, out) end
  return out
end

-- gpu.select(condlist, choicelist [, default]): where each element's first true condition
-- points, default (0) where none is
function gpu.select(condlist, choicelist, default)
  if type(condlist) ~= "table" or is_array(condlist) or type(choicelist) ~= "table" or is_array(choicelist) then
    fail("select", "condlist and choicelist must be tables, got %s and %s", type(condlist), type(choicelist))
  end
  if #condlist ~= #choicelist then
    fail("select", "condlist and choicelist must be of one length, got %d and %d", #condlist, #choicelist)
  end
  if #condlist == 0 then fail("select", "condlist is empty") end
  gpu._arg.array_list(condlist, "select", "condlist", 1)
  gpu._arg.array_list(choicelist, "select", "choicelist", 1)
  for j = 1, #condlist do
    local c = condlist[j]
    if not is_array(c) or c.dtype ~= "bool" then
      fail("select", "condlist[%d] must be a bool array, got %s", j, is_array(c) and c.dtype .. " array" or described(c))
    end
    local v = choicelist[j]
    if not is_array(v) and type(v) ~= "number" and type(v) ~= "boolean" then
      fail("select", "choicelist[%d] must be a device array or a number, got %s", j, described(v))
    end
  end
  local out = default == nil and 0 or default
  for j = #condlist, 1, -1 do
    local ok, r = pcall(gpu.where, condlist[j], choicelist[j], out)
    if not ok then   -- where's words (its argument 2 is choicelist[j], 3 the default or what follows)
      local what = j == #condlist and type(out) ~= "userdata" and "default" or ("choicelist[%d]"):format(j)
      fail("select", "%s", (gpu._arg.unwrapped(r):gsub("^gpu%.where argument 3", what)
                                                  :gsub("^gpu%.where argument 2", ("choicelist[%d]"):format(j))
                                                  :gsub("^gpu%.where: ", "")))
    end
    out = r
  end
  return out
end

-- (a, dim) of delete and insert: a flattened without dim
local function flat_or_dim(a, dim, api)
  array_arg(a, api, "a")
  local src = dim == nil and a:reshape(-1) or a
  if src.ndim == 0 then fail(api, "a 0-D array has no dimension") end
  return src, dim_of(dim or 1, src.ndim, api)
end

-- gpu.delete(a, obj [, dim]): a new array without the slices at obj (1-based indices, or a
-- bool mask of the dim's length) along dim, or of a flattened
function gpu.delete(a, obj, dim)
  local src, d = flat_or_dim(a, dim, "delete")
  local n, keep = src.shape[d], nil
  if is_array(obj) and obj.dtype == "bool" then
    if obj.ndim ~= 1 or obj.size ~= n then
      fail("delete", "a mask must be 1-D of dimension %d's length %d, got shape {%s}", d, n, table.concat(obj.shape, ", "))
    end
    keep = gpu.logical_not(obj)
  else
    local k = zero_based(index_array(obj, "delete", "obj"), n, "delete", ("dimension %d"):format(d))
    keep = gpu.isin(gpu.arange(n, "int64"), k:reshape(-1), {invert = true})
  end
  return gpu.take(src, n == 0 and gpu.empty({0}, "int64") or (gpu.nonzero(keep)), d)
end

-- values for insert: NumPy's array(values, ndmin = ndim) in a's dtype; for one place (a
-- number) its first dimension moved to dim, as NumPy's
local function insert_values(values, src, d, one)
  local v = values_of(values, src.dtype, "insert", "values")
  local shape = v.shape
  while #shape < src.ndim do table.insert(shape, 1, 1) end
  v = v:reshape(shape)
  if one and v.ndim > 0 then v = gpu.moveaxis(v, 1, d) end
  return v
end

-- gpu.insert(a, obj, values [, dim]): a new array with values before the 1-based indices obj
-- (a number, a table or an integer array; n + 1 is after the last) along dim
function gpu.insert(a, obj, values, dim)
  local src, d = flat_or_dim(a, dim, "insert")
  local n, one = src.shape[d], type(obj) == "number" or (is_array(obj) and obj.ndim == 0)
  local q = index_array(obj, "insert", "obj"):reshape(-1)
  q = zero_based(q, n, "insert", ("dimension %d"):format(d), n + 1)   -- 0-based, 0..n
  local v = insert_values(values, src, d, one)
  local tshape, oshape = src.shape, src.shape
  tshape[d] = one and v.shape[d] or q.size
  oshape[d] = n + tshape[d]
  gpu._arg.reach(oshape, "insert", 3)   -- (a 2^48 a was an arange of 2^48, out of memory)
  if one then q = gpu.full({tshape[d]}, q:item(1), "int64") end
  local w = v   -- without extra leading 1s, as NumPy's setitem drops them ({{5}} into {1})
  while w.ndim > #tshape and w.shape[1] == 1 do w = w:squeeze(1) end
  local vb = broadcast(pcall(gpu.broadcast_to, w, tshape) and w or v, tshape, "insert", "values")
  -- a stable sort of the keys 2i + 1 (a's slice i) and 2q (an inserted one, before slice q)
  local keys = gpu.concatenate({gpu.arange(n, "int64") * 2 + 1, q * 2})
  return gpu.take(gpu.concatenate({src, vb}, d), gpu.argsort(keys), d)
end

-- gpu.resize(a, shape): a flattened, repeated as needed to fill shape (zeros for an empty a)
function gpu.resize(a, shape)
  array_arg(a, "resize", "a")
  if type(shape) == "number" then shape = {shape} end
  if type(shape) ~= "table" or is_array(shape) then fail("resize", "shape must be a number or a table, got %s", described(shape)) end
  gpu._arg.list(shape, "resize", "shape")
  local size = 1
  for j, s in ipairs(shape) do
    s = integer(s, "resize", ("shape[%d]"):format(j))
    if s < 0 then fail("resize", "shape[%d] is negative (%d)", j, s) end
    size = gpu._arg.times(size, s, "resize", "rows", 3)
  end
  gpu._arg.elements(size, "resize", 3)
  if a.size == 0 then return gpu.zeros(shape, a.dtype) end
  return gpu.take(a:reshape(-1), gpu.arange(size, "int64") % a.size + 1):reshape(shape)
end

-- gpu["repeat"](a, repeats [, dim]): each slice along dim (element of a flattened) repeats
-- times in a row: repeats a number, or one a slice (the place of output j is found by a
-- binary search in repeats' cumulative sum)
local function repeat_(a, repeats, dim)
  local src, d = flat_or_dim(a, dim, "repeat")
  local n = src.shape[d]
  local r = repeats
  if type(r) ~= "number" then
    r = index_array(r, "repeat", "repeats"):reshape(-1)
    if r.size == 1 then r = r:item(1) elseif r.size ~= n then
      fail("repeat", "repeats has %d elements for dimension %d of %d", r.size, d, n)
    end
  end
  if type(r) == "number" then
    r = integer(r, "repeat", "repeats")
    if r < 0 then fail("repeat", "repeats must not be negative, got %d", r) end
    return gpu.take(src, gpu.arange(gpu._arg.times(n, r, "repeat", "repeats", 0), "int64") // math.max(r, 1) + 1, d)
  end
  if n > 0 and gpu.any(r:lt(0)) then fail("repeat", "repeats must not be negative") end
  -- their running sum in float64, which cannot wrap as int64's would past 2^63 - 1 (and is
  -- exact below 2^53; a total past that is more than memory holds): one read-back for it
  local ends = r:astype("float64"):cumsum()
  local total = n > 0 and ends:item(n) or 0
  if total >= 2 ^ 62 then fail("repeat", "the repeats add up to too many elements for an array") end
  total = math.tointeger(total)
  return gpu.take(src, gpu.searchsorted(ends, gpu.arange(total, "int64"), {side = "right"}), d)
end
gpu["repeat"] = repeat_

-- gpu.trim_zeros(a [, trim]): a view of 1-D a without its leading ("f") and trailing ("b") zeros
function gpu.trim_zeros(a, trim)
  array_arg(a, "trim_zeros", "a")
  if a.ndim ~= 1 then fail("trim_zeros", "a must be 1-D, got %d-D", a.ndim) end
  trim = trim or "fb"
  if type(trim) ~= "string" or not trim:upper():match("^[FB]*$") then
    fail("trim_zeros", "trim must be a string of \"f\" and \"b\", got %s", gpu._arg.choice(trim))
  end
  trim = trim:upper()
  local nz = a.size > 0 and (gpu.nonzero(a)) or gpu.empty({0}, "int64")
  if nz.size == 0 then return (trim == "" and a) or a:narrow(1, 1, 0) end
  local first = trim:find("F") and nz:item(1) or 1
  local last = trim:find("B") and nz:item(nz.size) or a.size
  return a:narrow(1, first, last - first + 1)
end

------------------------------------------------------------------------------------
-- sets: on gpu.unique, gpu.sort and gpu.isin; complex arrays are refused (no order)

local function two(api, a, b)
  ordered(a, api, "ar1")
  ordered(b, api, "ar2")
  return a:reshape(-1), b:reshape(-1)
end

-- gpu.in1d(ar1, ar2 [, {invert =, assume_unique =}]): gpu.isin of ar1 flattened
function gpu.in1d(a, b, opts)
  a, b = two("in1d", a, b)
  opts = options(opts, "in1d", 3, "invert assume_unique")
  gpu._arg.flag(opts, "assume_unique", "in1d")
  return gpu.isin(a, b, {invert = gpu._arg.flag(opts, "invert", "in1d")})
end

-- gpu.union1d(ar1, ar2): the sorted distinct values of both
function gpu.union1d(a, b)
  a, b = two("union1d", a, b)
  return (gpu.unique(gpu.concatenate({a, b})))
end

-- gpu.setdiff1d(ar1, ar2 [, {assume_unique = true}]): ar1's distinct values not in ar2
-- (assume_unique: ar1's values in their order, not sorted, as NumPy's)
function gpu.setdiff1d(a, b, opts)
  a, b = two("setdiff1d", a, b)
  local u = gpu._arg.flag(options(opts, "setdiff1d", 3, "assume_unique"), "assume_unique", "setdiff1d") and a
            or (gpu.unique(a))
  return gpu.extract(gpu.isin(u, b, {invert = true}), u)
end

-- a and b in the dtype they meet in (gpu.result_type's): converted before anything makes
-- them distinct, since values distinct in one dtype can be one in the other (uint64 with
-- a signed or float array meets in float64, where 2^64 - 1 and 2^64 - 2 are one number)
local function converted(a, b)
  local dt = gpu.result_type(a, b)
  return a.dtype == dt and a or a:astype(dt), b.dtype == dt and b or b:astype(dt)
end

-- The sorted values of ar1 and ar2 together, made distinct in each (in the dtype they meet
-- in) unless assume_unique; with `where` also their positions in the concatenation
-- (1-based): sorting values alone is the faster sort
local function merged(a, b, assume_unique, where)
  if not assume_unique then
    a, b = converted(a, b)
    a, b = gpu.unique(a), (gpu.unique(b))
  end
  local s, perm = gpu.sort(gpu.concatenate({a, b}), {indices = where})
  return s, perm, a.size
end

-- The sorted values in both a and b (in concatenate's dtype): each sorted (stably), then
-- a's looked up in b's by a binary search and kept where found and first of their run,
-- which is faster than making each distinct and sorting the two together; with `where`
-- also their first indices in each (1-based: the stable sorts' at the runs' starts)
local function common(a, b, where)
  a, b = converted(a, b)
  local n = a.size
  if n == 0 or b.size == 0 then
    local none = gpu.empty({0}, "int64")
    if where then return a:narrow(1, 1, 0), none, none end
    return a:narrow(1, 1, 0)
  end
  local sa, pa = gpu.sort(a, {indices = where})
  local sb, pb = gpu.sort(b, {indices = where})
  local pos, keep = gpu._sorted_find(sb, sa)   -- NaN is found nowhere, as NumPy's
  if n > 1 then   -- and not a repeat of the value before it (-0 repeats 0, as unique's)
    local rest = keep:narrow(1, 2, n - 1)
    gpu.logical_and(rest, sa:narrow(1, 2, n - 1):ne(sa:narrow(1, 1, n - 1)), {out = rest})
  end
  local c = gpu.extract(keep, sa)
  if not where then return c end
  return c, gpu.extract(keep, pa), gpu.take(pb, gpu.extract(keep, pos))
end

-- gpu.intersect1d(ar1, ar2 [, {assume_unique =, return_indices =}]): the sorted values in
-- both; with return_indices also the 1-based indices of their first places in each
function gpu.intersect1d(a, b, opts)
  a, b = two("intersect1d", a, b)
  opts = options(opts, "intersect1d", 3, "assume_unique return_indices")
  local indices = gpu._arg.flag(opts, "return_indices", "intersect1d", false)
  if not gpu._arg.flag(opts, "assume_unique", "intersect1d") then return common(a, b, indices) end
  local s, perm, na = merged(a, b, true, indices)
  local n = s.size
  if n < 2 then
    local none = gpu.empty({0}, "int64")
    if indices then return s:narrow(1, 1, 0), none, none end
    return s:narrow(1, 1, 0)
  end
  local pair = s:narrow(1, 2, n - 1):eq(s:narrow(1, 1, n - 1))   -- NaN pairs with nothing, as NumPy's
  local both = gpu.extract(pair, s:narrow(1, 1, n - 1))
  if not indices then return both end
  return both, gpu.extract(pair, perm:narrow(1, 1, n - 1)), gpu.extract(pair, perm:narrow(1, 2, n - 1)) - na
end

-- gpu.setxor1d(ar1, ar2 [, {assume_unique = true}]): the sorted values in exactly one of them
function gpu.setxor1d(a, b, opts)
  a, b = two("setxor1d", a, b)
  local s = merged(a, b, gpu._arg.flag(options(opts, "setxor1d", 3, "assume_unique"), "assume_unique", "setxor1d"), false)
  local n = s.size
  if n < 2 then return s end
  local yes = gpu.ones(1, "bool")
  local new = gpu.concatenate({yes, s:narrow(1, 2, n - 1):ne(s:narrow(1, 1, n - 1)), yes})
  return gpu.extract(gpu.logical_and(new:narrow(1, 1, n), new:narrow(1, 2, n)), s)
end

------------------------------------------------------------------------------------
-- sorts

-- the order of a list of 1-D keys, the first sorting last: a stable sort a key (argsort's
-- options `on`: a stream)
local function lexsorted(list, on)
  local idx = gpu.argsort(list[1], on)
  for k = 2, #list do idx = gpu.take(idx, gpu.argsort(gpu.take(list[k], idx), on)) end
  return idx
end

-- gpu.lexsort(keys): the 1-based indices that sort by the last key, ties by the one before,
-- ...: keys a table of 1-D arrays of one length, or a 2-D array (its rows). A stable sort
-- a key, from the first (least significant) to the last.
function gpu.lexsort(keys)
  local list = keys
  if is_array(keys) then
    if keys.ndim > 2 or keys.ndim == 0 then fail("lexsort", "keys must be 1-D or 2-D arrays, got %d-D", keys.ndim) end
    list = {}
    if keys.ndim == 1 then list[1] = keys else for k = 1, keys.shape[1] do list[k] = keys:select(1, k) end end
  elseif type(keys) ~= "table" then
    fail("lexsort", "keys must be a table of arrays or a 2-D array, got %s", described(keys))
  end
  if #list == 0 then fail("lexsort", "keys is empty") end
  gpu._arg.array_list(list, "lexsort", "keys", 1)
  for k = 1, #list do
    local key = list[k]
    ordered(key, "lexsort", ("keys[%d]"):format(k))
    if key.ndim ~= 1 or key.size ~= list[1].size then
      fail("lexsort", "keys[%d] has shape {%s}: every key must be 1-D of length %d", k, table.concat(key.shape, ", "), list[1].size)
    end
  end
  return lexsorted(list)
end

-- (a, kth, dim) of partition and argpartition: kth 1-based places (a number or a table)
local function partition_args(a, kth, dim, api)
  ordered(a, api, "a")
  if a.ndim == 0 then fail(api, "a 0-D array has no dimension to partition") end
  local d = dim_of(dim or -1, a.ndim, api)
  local n = a.shape[d]
  if type(kth) == "table" then gpu._arg.list(kth, api, "kth", 0) end
  for j, k in ipairs(type(kth) == "table" and kth or {kth}) do
    k = integer(k, api, type(kth) == "table" and ("kth[%d]"):format(j) or "kth")
    if k == 0 or k > n or k < -n then fail(api, "kth %d is out of range for dimension %d of size %d", k, d, n) end
  end
  return d
end

-- gpu.partition(a, kth [, dim]), gpu.argpartition: a full (stable) sort along dim (the last),
-- which is one of the partitions NumPy may return for any kth
function gpu.partition(a, kth, dim)
  return (gpu.sort(a, partition_args(a, kth, dim, "partition"), {indices = false}))
end

function gpu.argpartition(a, kth, dim)
  return gpu.argsort(a, partition_args(a, kth, dim, "argpartition"))
end

-- digitize's right: a boolean, or an options table {right = boolean} (a table was truthy:
-- {right = false} read as right)
local function right_of(right)
  if type(right) == "table" and not is_array(right) then right = options(right, "digitize", 3, "right").right end
  if right ~= nil and type(right) ~= "boolean" then
    fail("digitize", "right must be a boolean (or an options table {right = boolean}), got %s", described(right))
  end
  return right == true
end

-- How bins run: 1 increasing, -1 decreasing, and how many NaNs end them. NumPy takes NaNs
-- at the end (no comparison with one breaks its check): after bins that rise they sort
-- above every number, as searchsorted has them; all-NaN bins it reads as decreasing. After
-- bins that never rise NumPy reads them as decreasing too, and its binary search's answers
-- follow no order ([1, nan, nan, nan, nan] puts 6 past the NaNs): refused, as a NaN before
-- the end is.
local function direction(bins)
  local n, nans = bins.size, 0
  if KIND[bins.dtype] == "f" and n > 0 and gpu.any(gpu.isnan(bins)) then
    nans = math.tointeger(gpu.sum(gpu.isnan(bins):astype("int64")))
    if nans < n and gpu.any(gpu.isnan(bins:narrow(1, 1, n - nans))) then
      fail("digitize", "bins must be monotonically increasing or decreasing (a NaN may only end them)")
    end
  end
  local m = n - nans
  local up, down = true, true
  if m >= 2 then
    local after, before = bins:narrow(1, 2, m - 1), bins:narrow(1, 1, m - 1)   -- (a diff wraps in uint8)
    up = gpu.all(after:ge(before))
    down = (not up or nans > 0) and gpu.all(after:le(before))   -- (rising, without NaNs, is enough)
  end
  if not up and not down then fail("digitize", "bins must be monotonically increasing or decreasing") end
  if nans == 0 or n == 1 then return up and 1 or -1, nans end   -- (constant bins: increasing)
  if m == 0 then return -1, nans end
  if down then fail("digitize", "bins that do not increase must not end in NaN (NumPy's answers there follow no order)") end
  return 1, nans
end

-- gpu.digitize(x, bins [, right | {right =}]): how many of the (monotonic) bins are <= each x
-- (< when right; >= and > for decreasing bins): NumPy's numbers (int64; a Lua integer for a
-- number x); NaNs may end increasing bins (above every number, as NumPy has them)
function gpu.digitize(x, bins, right)
  if type(bins) == "table" and not is_array(bins) then bins = gpu._arg.list_array(bins) end
  ordered(bins, "digitize", "bins")
  if bins.ndim ~= 1 then fail("digitize", "bins must be 1-D, got %d-D", bins.ndim) end
  if type(x) == "table" and not is_array(x) then x = gpu._arg.list_array(x) end
  if type(x) ~= "number" and not is_array(x) then fail("digitize", "x must be a device array or a number, got %s", described(x)) end
  if type(x) ~= "number" then ordered(x, "digitize", "x") end
  local n, side = bins.size, right_of(right) and "left" or "right"
  local dir, nans = direction(bins)
  if dir == 1 then return gpu.searchsorted(bins, x, {side = side}) - 1 end
  if nans == 0 then return n - (gpu.searchsorted(gpu.flip(bins), x, {side = side}) - 1) end
  -- all NaN: numbers lie past them (below NaN), NaN past them only when right (NaN >= NaN)
  if type(x) == "number" then return (x == x or side == "left") and n or 0 end
  return gpu.where(side == "left" and gpu.ones(x.shape, "bool") or gpu.isnan(x):logical_not(), n, gpu.zeros(x.shape, "int64"))
end

-- gpu.unique(a, {dim = d [, index =, inverse =, counts =, stream =]}): NumPy's unique with an axis:
-- the distinct slices along dim d, in lexicographic order (a row's first element first),
-- each slice a whole; index (each one's first place along d), inverse (each slice's one,
-- 1-D) and counts are 1-based and int64, as gpu.unique's. The slices are sorted by
-- gpu.lexsort, a stable sort a column: m columns cost m sorts. NaNs differ from each
-- other, so slices holding them are all kept, as NumPy's. The sorts, comparisons and sums
-- go on `stream` (gathers and fills, which take none, on the default stream, which it
-- orders with). (gpu.unique, a C function, hands its calls with a dim to this.)
function gpu._unique_dim(a, opts)
  ordered(a, "unique", "a")
  opts = options(opts, "unique", 2, "dim index inverse counts stream")
  for _, key in ipairs({"index", "inverse", "counts"}) do gpu._arg.flag(opts, key, "unique") end
  local s = opts.stream
  if s ~= nil and not (type(s) == "userdata" and (getmetatable(s) or {}).__name == "gpu.stream") then
    fail("unique", "stream must be a gpu.stream, got %s", described(s))
  end
  local on = {stream = s}
  if a.ndim == 0 then fail("unique", "a 0-D array has no dim %s", tostring(opts.dim)) end
  local d = dim_of(opts.dim, a.ndim, "unique")
  local moved = gpu.moveaxis(a, d, 1)
  local n, rest, m = a.shape[d], {}, 1
  for k = 2, moved.ndim do rest[#rest + 1] = moved.shape[k]; m = m * moved.shape[k] end
  local rows = moved:contiguous():reshape(n, m)
  local perm, first
  if n == 0 or m == 0 then   -- no slices, or slices of nothing (all equal)
    perm = gpu.arange(n, "int64") + 1
    first = gpu.zeros(n, "bool")
    if n > 0 then first[{1}] = true end
  else
    local keys = {}
    for k = m, 1, -1 do keys[#keys + 1] = rows:select(2, k) end   -- the last key sorts first
    perm = lexsorted(keys, on)
    rows = gpu.take(rows, perm, 1)
    first = gpu.ones(n, "bool")
    if n > 1 then
      local step = gpu.ne(rows:narrow(1, 2, n - 1), rows:narrow(1, 1, n - 1), on)
      first[{{2, n}}] = gpu.any(step, {dim = 2, stream = s})
    end
  end
  local starts = gpu.flatnonzero(first)
  local nu = starts.size
  local shape = {nu, table.unpack(rest)}
  local u = gpu.moveaxis(gpu.take(rows, starts, 1):reshape(shape), 1, d):contiguous()
  local r = {u}
  if opts.index then r[#r + 1] = gpu.take(perm, starts) end
  if opts.inverse then r[#r + 1] = gpu.take(gpu.cumsum(first:astype("int64"), on), gpu.argsort(perm, on)) end
  if opts.counts then r[#r + 1] = gpu.diff(gpu.concatenate({starts, gpu.full({1}, n + 1, "int64")})) end
  return table.unpack(r)
end

local API = {"put", "place", "putmask", "copyto", "take_along_axis", "put_along_axis", "compress", "choose",
             "select", "delete", "insert", "resize", "repeat", "trim_zeros", "in1d", "union1d", "setdiff1d",
             "intersect1d", "setxor1d", "lexsort", "partition", "argpartition", "digitize"}
-- their arrays on the current device, checked first (an operation inside named itself)
local AR = {"ar1", "ar2"}   -- (the README's names)
local NAMES = {in1d = AR, union1d = AR, setdiff1d = AR, intersect1d = AR, setxor1d = AR}
for _, name in ipairs(API) do gpu[name] = gpu._api(gpu._arg.on_device(name, gpu[name], NAMES[name])) end
-- called by gpu.unique (C) for the user: its errors at the line that called gpu.unique
gpu._unique_dim = gpu._api(gpu._arg.on_device("unique", gpu._unique_dim, {"a"}), 3)
array_meta.methods["repeat"] = gpu["repeat"]
