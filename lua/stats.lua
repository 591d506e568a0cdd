-- stats.lua: NumPy's statistics made of the module's reductions, sorts and operations:
-- the NaN-ignoring reductions (gpu.nansum ... gpu.nanargmax), order statistics (median,
-- percentile, quantile, their nan forms) on gpu.sort, ptp and average. Loaded at the
-- first call of one (lua/gpu.lua). Dimensions are 1-based, negative ones counting from the
-- end, as everywhere in gpuhost.
local gpu = ...
local array_meta = gpu._meta.array

local is_array, described = gpu._is_array, gpu._described

local KIND, CTYPE = {}, {}
for _, d in ipairs(gpu._dtypes) do KIND[d.name], CTYPE[d.name] = d.kind, d.ctype end
-- NumPy's same_kind casting between kinds: bool to anything, unsigned to signed, up to complex
local KIND_RANK = {b = 1, u = 2, i = 3, f = 4, c = 5}
local function floating(a) return KIND[a.dtype] == "f" or KIND[a.dtype] == "c" end
-- The real dtype of a float or complex dtype
local REAL = {float16 = "float16", float32 = "float32", float64 = "float64", complex64 = "float32", complex128 = "float64"}

local function device_array(a, api)
  if not is_array(a) then error(("gpu.%s: a device array expected as argument 1, got %s"):format(api, described(a)), 3) end
  return a
end

local function dim_of(d, ndim, api)
  if math.type(d) == "float" and d == math.floor(d) then d = math.tointeger(d) or d end
  if math.type(d) ~= "integer" then
    error(("gpu.%s: dim must be an integer, got %s"):format(api, type(d) == "number" and tostring(d) or type(d)), 4)
  end
  local k = d < 0 and d + ndim + 1 or d
  if k < 1 or k > ndim then
    error(("gpu.%s: dim %d is out of range for an array of %d dimension%s"):format(api, d, ndim, ndim == 1 and "" or "s"), 4)
  end
  return k
end

-- whether table t has a numbered entry (a list of dims, holes and all: not options)
local function numbered(t)
  for k in next, t do if math.type(k) == "integer" then return true end end
  return false
end

-- (a [, dim] [, opts]) read as gpu.sum reads them (an options table has no numbered entry:
-- {nil, 2} is a list of dims with a hole; {} alone is options, {} before options reduces no
-- dim); one: a single dim (a number), as argmax's.
-- The reduction R: reduced[d], dims (the list), all (no dim given), keepdim, out, ddof,
-- n (elements reduced into each result), m (results), kshape (dims kept as 1s), shape.
local function reduction(api, a, dim, opts, one)
  device_array(a, api)
  if opts == nil and type(dim) == "table" and not is_array(dim) and not numbered(dim) then dim, opts = nil, dim end
  opts = opts or {}
  if type(opts) ~= "table" then error(("gpu.%s: the options must be a table, got %s"):format(api, type(opts)), 3) end
  gpu._arg.options(opts, api, (api == "nanvar" or api == "nanstd") and "dim keepdim out ddof" or "dim keepdim out")
  if opts.dim ~= nil then
    if dim ~= nil then error(("gpu.%s: dim is given twice (as an argument and as an option)"):format(api), 3) end
    dim = opts.dim
  end
  if opts.ddof ~= nil and (type(opts.ddof) ~= "number" or opts.ddof ~= opts.ddof) then
    error(("gpu.%s: ddof must be a number, got %s"):format(api, type(opts.ddof) == "number" and "nan" or type(opts.ddof)), 3)
  end
  local ndim, reduced = a.ndim, {}
  if dim == nil then
    for d = 1, ndim do reduced[d] = true end
  elseif type(dim) == "number" then
    reduced[dim_of(dim, ndim, api)] = true
  elseif type(dim) == "table" and not is_array(dim) and not one then
    gpu._arg.list(dim, api, "dim", 3)
    for _, d in ipairs(dim) do
      d = dim_of(d, ndim, api)
      if reduced[d] then error(("gpu.%s: dim %d is given twice"):format(api, d), 3) end
      reduced[d] = true
    end
  else
    error((one and "gpu.%s takes one dim (a number), got %s" or "gpu.%s: dim must be a number or a table of numbers, got %s"):format(
      api, type(dim)), 3)
  end
  local R = {api = api, dim = dim, reduced = reduced, all = dim == nil, keepdim = gpu._arg.flag(opts, "keepdim", api, false),
             out = opts.out, ddof = opts.ddof or 0, dims = {}, n = 1, m = 1, kshape = {}, shape = {}}
  for d, size in ipairs(a.shape) do
    R.kshape[d] = reduced[d] and 1 or size
    if reduced[d] then
      R.dims[#R.dims + 1], R.n = d, R.n * size
    else
      R.shape[#R.shape + 1], R.m = size, R.m * size
    end
  end
  if R.keepdim then R.shape = R.kshape end
  return R
end

local function same_shape(s, t)
  if #s ~= #t then return false end
  for k = 1, #s do if s[k] ~= t[k] then return false end end
  return true
end

-- r (of R's shape with the reduced dims kept, after lead when given: percentiles' q) as the
-- caller asked: without those dims unless keepdim, copied into out (checked as gpu.sum
-- checks it), or a Lua value for a reduction over every dim
local function finish(R, r, lead)
  local shape = {table.unpack(R.keepdim and R.kshape or R.shape)}
  if lead then table.insert(shape, 1, lead) end
  r = r:reshape(shape)
  local out = R.out
  if out ~= nil then
    if not is_array(out) then error(("gpu.%s: out must be a device array, got %s"):format(R.api, described(out)), 3) end
    if not same_shape(out.shape, shape) and not (R.all and not R.keepdim and not lead and out.size == 1) then
      error(("gpu.%s: out has shape {%s} but the result has shape {%s}"):format(
        R.api, table.concat(out.shape, ", "), table.concat(shape, ", ")), 3)
    end
    if KIND_RANK[KIND[out.dtype]] < KIND_RANK[KIND[r.dtype]] or (KIND[out.dtype] == "u" and KIND[r.dtype] == "i") then
      error(("gpu.%s: out is %s, and the result (%s) cannot be cast to it"):format(R.api, out.dtype, r.dtype), 3)
    end
    return out:copy_(r)
  end
  if R.all and not R.keepdim and not lead then return r:item() end
  return r
end

-- Raised where a reducer without an identity meets no elements for a result (NumPy's
-- "zero-size array to reduction operation ...")
local function nonempty(R)
  if R.n == 0 then
    error(("gpu.%s of an empty array (or along a dim of size 0): it has no identity"):format(R.api), 3)
  end
end

-- a with its NaNs replaced by v (a number; both parts v for complex arrays)
local function nan_to(a, v)   -- (a complex identity 1 is 1+0j; an infinity is one in both parts)
  if KIND[a.dtype] == "c" then v = gpu.full({}, gpu.complex(v, (v == 1 / 0 or v == -1 / 0) and v or 0), a.dtype) end
  return gpu.where(gpu.isnan(a), v, a)
end
-- Whether each result's elements are all NaN (dims kept)
local function all_nan(a, R) return gpu.all(gpu.isnan(a), R.dims, {keepdim = true}) end

-- gpu.nansum, gpu.nanprod: NaNs counted as 0 (1); integers as gpu.sum (prod)
local function nan_identity(api, plain, identity)
  return function(a, dim, opts)
    local R = reduction(api, a, dim, opts)
    local x = floating(a) and nan_to(a, identity) or a
    return finish(R, plain(x, R.dims, {keepdim = true}))
  end
end

-- gpu.nanmax, gpu.nanmin: NaNs left out; NaN for a slice of NaNs alone, as NumPy's
local function nan_extreme(api, plain, fill)
  return function(a, dim, opts)
    local R = reduction(api, a, dim, opts)
    nonempty(R)
    if not floating(a) then return finish(R, plain(a, R.dims, {keepdim = true})) end
    local m = plain(nan_to(a, fill), R.dims, {keepdim = true})
    -- a slice of NaNs alone: NaN; a complex one's first NaN element itself, as NumPy's (nan+infj)
    local none = KIND[a.dtype] == "c" and plain(a, R.dims, {keepdim = true}) or 0 / 0
    return finish(R, gpu.where(all_nan(a, R), none, m))
  end
end

-- gpu.nanargmax, gpu.nanargmin: NaNs read as -inf (inf) as NumPy does; a slice of NaNs
-- alone is an error, as NumPy's
local function nan_arg(api, plain, fill)
  return function(a, dim, opts)
    local R = reduction(api, a, dim, opts, true)
    if R.n == 0 then error(("gpu.%s: attempt to get %s of an empty sequence"):format(api, api:sub(4)), 2) end
    local x = a
    if floating(a) then
      if R.m > 0 and gpu.any(all_nan(a, R)) then error(("gpu.%s: All-NaN slice encountered"):format(api), 2) end
      x = nan_to(a, fill)
    end
    local ok, r = pcall(plain, x, R.dim, {keepdim = R.keepdim, out = R.out})
    if ok then return r end
    error(type(r) == "string" and r:gsub("gpu%.arg", "gpu.nanarg", 1) or r, 2)   -- out's checks: named as called
  end
end

-- The sum of a's non-NaN elements and their count, dims kept: in float64 (complex128) for
-- float16 and float32 (complex64) when wide, as gpu.var computes its mean (a float16 count
-- is float64: float16 holds integers only up to 2048)
local WIDE = {float16 = "float64", float32 = "float64", complex64 = "complex128"}
local function nan_sum_count(a, R, wide)
  local x = wide and WIDE[a.dtype] and a:astype(WIDE[a.dtype]) or a
  local s = gpu.sum(nan_to(x, 0), R.dims, {keepdim = true})
  local c = gpu.sum(gpu.logical_not(gpu.isnan(a)), R.dims, {keepdim = true})
  return s, c:astype(s.dtype == "float16" and "float64" or REAL[s.dtype]), x
end

-- gpu.nanmean: the mean of the non-NaN elements (NaN where there are none); integers as gpu.mean
local function nanmean(a, dim, opts)
  local R = reduction("nanmean", a, dim, opts)
  if not floating(a) then return finish(R, gpu.mean(a, R.dims, {keepdim = true})) end
  local s, c = nan_sum_count(a, R)   -- float16: the sum rounded, divided in float64 (NumPy's)
  local m = s / c
  return finish(R, m.dtype == a.dtype and m or m:astype(a.dtype))
end

-- The variance of the non-NaN elements over count - ddof (NaN where that is not positive),
-- in float64 for float32 (two passes, as gpu.var); integers as gpu.var
local function nan_variance(R, a)
  if not floating(a) then return gpu.var(a, R.dims, {keepdim = true, ddof = R.ddof}) end
  local s, c, x = nan_sum_count(a, R, true)
  local dev = x - s / c
  local d = gpu.where(gpu.isnan(x), gpu.zeros({}, dev.dtype), dev)   -- (inf - inf stays NaN, as NumPy's)
  local sq = KIND[d.dtype] == "c" and gpu.real(d) * gpu.real(d) + gpu.imag(d) * gpu.imag(d) or d * d
  local dof = c - R.ddof
  local v = gpu.where(dof:le(0), 0 / 0, gpu.sum(sq, R.dims, {keepdim = true}) / dof)
  return v:astype(REAL[a.dtype])
end

local function nanvar(a, dim, opts)
  local R = reduction("nanvar", a, dim, opts)
  return finish(R, nan_variance(R, a))
end

local function nanstd(a, dim, opts)
  local R = reduction("nanstd", a, dim, opts)
  return finish(R, gpu.sqrt(nan_variance(R, a)))
end

gpu.nansum = nan_identity("nansum", gpu.sum, 0)
gpu.nanprod = nan_identity("nanprod", gpu.prod, 1)
gpu.nanmax = nan_extreme("nanmax", gpu.max, -math.huge)
gpu.nanmin = nan_extreme("nanmin", gpu.min, math.huge)
gpu.nanargmax = nan_arg("nanargmax", gpu.argmax, -math.huge)
gpu.nanargmin = nan_arg("nanargmin", gpu.argmin, math.huge)
gpu.nanmean, gpu.nanvar, gpu.nanstd = nanmean, nanvar, nanstd

------------------------------------------------------------------------------------
-- order statistics: the reduced elements of each result made a row, sorted (NaN last)

-- a as (results, reduced) rows, C-ordered, sorted along each row (an orderable dtype)
local function sorted_rows(a, R)
  if KIND[a.dtype] == "c" then error(("gpu.%s: a is complex: it has no order"):format(R.api), 3) end
  if a.dtype == "bool" then a = a:astype("uint8") end
  local perm = {}
  for d = 1, a.ndim do if not R.reduced[d] then perm[#perm + 1] = d end end
  for d = 1, a.ndim do if R.reduced[d] then perm[#perm + 1] = d end end
  local rows = (a.ndim > 1 and a:transpose(perm) or a):reshape(R.m, R.n)
  if R.n == 0 then return rows end
  return gpu.sort(rows, 2, {indices = false})
end

-- The elements at 0-based places pos (int64, one per row) of rows (m, n), flat
local function at(rows, pos)
  local m, n = rows.shape[1], rows.shape[2]
  return gpu.take(rows:reshape(-1), gpu.arange(m, "int64") * n + pos + 1)
end

-- How many elements of each sorted row count: all of them, or the non-NaN ones (nan)
local function counts(rows, nan)
  if not nan or not floating(rows) then return gpu.full({rows.shape[1]}, rows.shape[2], "int64") end
  return gpu.sum(gpu.logical_not(gpu.isnan(rows)), 2)
end

-- NaN for the rows with no element to count (nan) or a NaN among them (not nan: it sorted last)
local function nan_rows(r, rows, k, nan)
  if not floating(r) then return r end
  local bad = k:eq(0)
  if not nan and floating(rows) and rows.shape[2] > 0 then bad = gpu.logical_or(bad, gpu.isnan(rows[{ {}, -1 }])) end
  return gpu.where(bad, 0 / 0, r)
end

-- The median of each sorted row's first k elements, as NumPy's mean of the middle one or
-- two: in the dtype for floats, float64 for integers
local function row_median(rows, k, nan)
  local lo, hi = gpu.maximum((k - 1) // 2, 0), gpu.maximum(k // 2, 0)
  local a, b = at(rows, lo), at(rows, hi)
  local half = rows.dtype == "float16"   -- (its sum of two may overflow: float32, as NumPy's mean)
  if half or not floating(rows) then a, b = a:astype(half and "float32" or "float64"), b:astype(half and "float32" or "float64") end
  local m = gpu.where(lo:eq(hi), a, (a + b) / 2)
  return nan_rows(half and m:astype("float16") or m, rows, k, nan)
end

local function median_of(api, nan)
  return function(a, dim, opts)
    local R = reduction(api, a, dim, opts)
    local rows = sorted_rows(a, R)
    if R.n == 0 then   -- NumPy's mean of nothing
      return finish(R, gpu.full({R.m}, 0 / 0, floating(a) and a.dtype or "float64"))
    end
    return finish(R, row_median(rows, counts(rows, nan), nan))
  end
end

-- The q-th quantiles (q from 0 to 1) of each sorted row's first k elements, by NumPy's
-- default ('linear') method, with its arithmetic: the difference in the dtype (float64 for
-- integers), the rest in float64
local function row_quantile(rows, k, q, nan)
  local last = gpu.maximum(k - 1, 0):astype("float64")
  local vi = (k - 1):astype("float64") * q
  local above = vi:ge(last)
  local lo = gpu.where(above, last, gpu.maximum(gpu.floor(vi), 0))   -- below 0 only where k is 0
  -- (a row of NaNs only, k = 0, has lo 0: its hi stays in the row, whose result is NaN)
  local hi = gpu.where(above, last, gpu.minimum(lo + 1, rows.shape[2] - 1))
  local g = vi - lo
  local a, b = at(rows, lo:astype("int64")), at(rows, hi:astype("int64"))
  -- in float64 from the elements on (b - a in float16 or float32 overflowed: an infinite
  -- quantile of finite data, or rounded first)
  a, b = a:astype("float64"), b:astype("float64")
  local diff = b - a
  local r = nan_rows(gpu.where(g:ge(0.5), b - diff * (1 - g), a + diff * g), rows, k, nan)
  return (rows.dtype == "float32" or rows.dtype == "float16") and r:astype(rows.dtype) or r
end

-- q (a number, a table of them or a 1-D device array) as a table of fractions from 0 to
-- 1 (percentiles: / 100), and whether it was a number
local function fractions(q, api, scale)
  if is_array(q) and q.ndim == 0 then q = q:astype("float64"):item() end   -- NumPy's 0-D q: one
  local one = type(q) == "number"
  if is_array(q) then
    if q.ndim > 1 then error(("gpu.%s: q must be a number or 1-D, got a %d-D array"):format(api, q.ndim), 3) end
    q = q:astype("float64"):totable()
  elseif one then
    q = {q}
  elseif type(q) ~= "table" then
    error(("gpu.%s: q must be a number, a table of numbers or a 1-D device array, got %s"):format(api, type(q)), 3)
  else
    gpu._arg.list(q, api, "q", 3)   -- ({10, nil, 90} was {10})
  end
  local f = {}
  for i, v in ipairs(q) do
    if type(v) ~= "number" then   -- ("50" was "must be in the range [0, 100], got 50")
      error(("gpu.%s: q[%d] must be a number, got %s"):format(api, i, type(v) == "string" and ("a string (%q)"):format(v) or described(v)), 3)
    end
    if not (v >= 0 and v <= scale) then
      error(("gpu.%s: %s must be in the range [0, %d], got %s"):format(api, scale == 100 and "percentiles" or "quantiles",
        scale, tostring(v)), 3)
    end
    f[i] = scale == 100 and v / 100 or v + 0.0
  end
  return f, one
end

local QDT = {float16 = "float16", float32 = "float32"}   -- the quantiles' dtype (NumPy 2's), else float64
local function quantile_of(api, scale, nan)
  return function(a, q, dim, opts)
    local R = reduction(api, a, dim, opts)
    if a.dtype == "bool" then   -- (median takes it, as NumPy's: its mean of two is no subtraction)
      error(("gpu.%s: a bool array has no 'linear' quantile (NumPy's boolean subtract is a TypeError): " ..
             "give a:astype(\"uint8\")"):format(api), 2)
    end
    local f, one = fractions(q, api, scale)
    local rows = sorted_rows(a, R)
    if R.n == 0 and not nan then   -- (also into an empty result, as NumPy's)
      error(("gpu.%s: no elements to take a quantile of (a dim of size 0)"):format(api), 2)
    end
    local k = counts(rows, nan)
    local r = {}
    for i, v in ipairs(f) do
      r[i] = R.n == 0 and gpu.full({R.m}, 0 / 0, QDT[a.dtype] or "float64")
             or row_quantile(rows, k, v, nan)
    end
    if one then return finish(R, r[1]) end
    if #r == 0 then return finish(R, gpu.empty({0, R.m}, QDT[a.dtype] or "float64"), 0) end
    return finish(R, gpu.stack(r), #r)
  end
end

gpu.median = median_of("median", false)
gpu.nanmedian = median_of("nanmedian", true)
gpu.percentile = quantile_of("percentile", 100, false)
gpu.quantile = quantile_of("quantile", 1, false)
gpu.nanpercentile = quantile_of("nanpercentile", 100, true)
gpu.nanquantile = quantile_of("nanquantile", 1, true)

-- gpu.ptp(a [, dim] [, opts]): max - min, in a's dtype (integers wrap, as NumPy's)
function gpu.ptp(a, dim, opts)
  local R = reduction("ptp", a, dim, opts)
  if a.dtype == "bool" then error("gpu.ptp: bool arrays cannot be subtracted (NumPy refuses them too)", 2) end
  nonempty(R)
  return finish(R, gpu.max(a, R.dims, {keepdim = true}) - gpu.min(a, R.dims, {keepdim = true}))
end

-- The weights of gpu.average, broadcast to a's shape: a's shape, or 1-D along the one dim
local function weights_for(a, w, R)
  if not is_array(w) then error(("gpu.average: weights must be a device array, got %s"):format(described(w)), 3) end
  if same_shape(w.shape, a.shape) then return w end
  if R.all or #R.dims ~= 1 then
    error("gpu.average: weights of another shape than a's need one dim (a number) to lie along", 3)
  end
  local d = R.dims[1]
  if w.ndim ~= 1 or w.size ~= a.shape[d] then
    error(("gpu.average: 1-D weights must have the length of dim %d (%d), got shape {%s}"):format(
      d, a.shape[d], table.concat(w.shape, ", ")), 3)
  end
  local shape = {}
  for k = 1, a.ndim do shape[k] = k == d and w.size or 1 end
  return w:reshape(shape)
end

-- gpu.average(a [, opts]): the mean over opts.dim, weighted by opts.weights, as NumPy's:
-- computed in result_type(a, weights) (float64 at least for integers and bool)
function gpu.average(a, opts)
  if opts ~= nil and type(opts) ~= "table" then error("gpu.average: argument 2 must be a table of options", 2) end
  opts = gpu._arg.options(opts, "average", "dim weights keepdim out")
  local R = reduction("average", a, nil, {dim = opts.dim, keepdim = opts.keepdim, out = opts.out})
  if opts.weights == nil then return finish(R, gpu.mean(a, R.dims, {keepdim = true})) end
  local w = weights_for(a, opts.weights, R)
  local dt = floating(a) and gpu.result_type(a, w) or gpu.result_type(a, w, "float64")
  local scl = gpu.sum(w:astype(dt), R.dims, {keepdim = true})
  if gpu.any(scl:eq(0)) then error("gpu.average: weights sum to zero, can't be normalized", 2) end
  return finish(R, gpu.sum(a:astype(dt) * w:astype(dt), R.dims, {keepdim = true}) / scl)
end

------------------------------------------------------------------------------------
-- counting and searching, on gpu.nonzero, gpu.sort, gpu.searchsorted and gpu.histogram

-- gpu.argwhere(a): the 1-based indices of a's nonzero elements, a row each (N, ndim), int64
function gpu.argwhere(a)
  device_array(a, "argwhere")
  if a.ndim == 0 then return gpu.empty({a:ne(0):item() and 1 or 0, 0}, "int64") end
  return gpu.stack({gpu.nonzero(a)}, 2)
end

-- gpu.flatnonzero(a): the 1-based indices of a's nonzero elements in a flattened (C order)
function gpu.flatnonzero(a)
  device_array(a, "flatnonzero")
  return (gpu.nonzero(a:reshape(-1)))
end

local function options(opts, api, at, known)
  if opts ~= nil and type(opts) ~= "table" then error(("gpu.%s: argument %d must be a table of options"):format(api, at), 3) end
  return gpu._arg.options(opts, api, known)
end

-- gpu.isin(elements, test_elements [, {invert = true}]): whether each element is among
-- test_elements (bool, elements' shape), by a sort of test_elements and a binary search
function gpu.isin(elements, test, opts)
  device_array(elements, "isin")
  opts = options(opts, "isin", 3, "invert assume_unique")
  local invert = gpu._arg.flag(opts, "invert", "isin")
  gpu._arg.flag(opts, "assume_unique", "isin")
  if type(test) == "number" then test = {test} end   -- (one test element, as NumPy's isin(a, 2))
  if type(test) == "boolean" then test = gpu.array({test}, "bool") end
  if type(test) == "table" and not is_array(test) then test = gpu._arg.list_array(test) end   -- (int64 for integers: exact past 2^53)
  if not is_array(test) then
    error(("gpu.isin: test_elements must be a device array, a table, a number or a boolean, got %s"):format(described(test)), 2)
  end
  for _, v in ipairs({elements, test}) do
    if KIND[v.dtype] == "c" then error("gpu.isin: complex arrays are not supported (compare gpu.real and gpu.imag)", 2) end
  end
  local found
  if test.size == 0 or elements.size == 0 then
    found = gpu.zeros(elements.shape, "bool")
  else
    found = select(2, gpu._sorted_find(gpu.sort(test:reshape(-1), {indices = false}), elements))
  end
  return invert and gpu.logical_not(found) or found
end

-- gpu._sorted_find(s, x): for each value of x, its 1-based place in the sorted 1-D array s
-- (not empty) by a binary search (past the end: s's last), and whether s holds it there
-- (NaN: never); isin's test and intersect1d's (lua/sets.lua)
function gpu._sorted_find(s, x)
  local pos = gpu.minimum(gpu.searchsorted(s, x), s.size)
  return pos, gpu.eq(gpu.take(s, pos), x)
end

-- The number of bins for bincount: x's greatest value + 1, or minlength (above: it is
-- more), refused before anything is allocated where the five int64 arrays of that many it
-- makes would not fit in the device's free memory (NumPy's MemoryError); so hi + 1 cannot overflow
local function bins_that_fit(top, above)
  local free = gpu.mem_info()
  if top >= free // 40 then
    error(("gpu.bincount: %s %d: that many bins would not fit in the device's free memory (%d bytes)"):format(
      above and "minlength is" or "x's greatest element is", top, free), 3)
  end
  return above and top or top + 1
end

-- kernels/builtin.cu's run sums, one module, compiled at the first weighted bincount
local runs_kernel = gpu._builtins({"run_pieces", "run_totals"})
local function warps(n) return {math.max(1, math.min(65536, (n + 7) // 8)), 256} end

-- The sums of the float64 weights v (sorted by their bins) over each bin's run, the run of
-- bin b from 1-based place starts[b] to ends[b] - 1: pieces of 1024 a warp, then each bin's
-- pieces (kernels/builtin.cu), so that a NaN or inf reaches no other bin, the order of the
-- additions is fixed, and one bin holding most elements is summed by many warps
local function run_sums(v, starts, ends)
  local bins = starts.size
  local first = gpu.cumsum((ends - starts + 1023) // 1024)
  -- at most ceil(n / 1024) + bins pieces (a run's last piece may be short): psum sized so,
  -- the kernel reading how many there are (no wait for first's last value)
  local pieces = (v.size + 1023) // 1024 + bins
  local psum = gpu.empty({math.max(pieces, 1)}, "float64")
  local out = gpu.empty({bins}, "float64")
  runs_kernel("run_pieces")[warps(pieces)](v, v.size, starts, ends, first, bins, pieces, psum)
  runs_kernel("run_totals")[warps(bins)](psum, pieces, first, bins, out)
  return out
end

-- gpu._bin_runs(x, n): the bins 0 .. n - 1 of the 1-D integer array x (its values checked
-- by the caller), x sorted once so that each value's elements lie together: counts() (int64)
-- and sums(w) (float64, of the real weights w of x's shape), as often as needed (the
-- measurements of gpu.ndimage take several sums over one labelling)
function gpu._bin_runs(x, n)
  local xs, order = gpu.sort(x)
  local values = gpu.arange(n, "int64")
  local starts = gpu.searchsorted(xs, values)
  local ends = gpu.searchsorted(xs, values, {side = "right"})
  xs:free()
  return {
    counts = function() return ends - starts end,
    sums = function(w) return run_sums(gpu.take(w:astype("float64"), order), starts, ends) end,
  }
end

-- gpu.bincount(x [, {weights =, minlength =}]): how many times each of 0, 1, ... max(x)
-- occurs in the 1-D non-negative integer array x (int64; at least minlength of them), or
-- the sums of the weights of those elements (float64), as NumPy's
function gpu.bincount(x, opts)
  device_array(x, "bincount")
  opts = options(opts, "bincount", 2, "weights minlength")
  if x.ndim ~= 1 then error(("gpu.bincount: x must be 1-D, got %d-D"):format(x.ndim), 2) end
  if KIND[x.dtype] ~= "i" and KIND[x.dtype] ~= "u" and KIND[x.dtype] ~= "b" then
    error(("gpu.bincount: x must hold integers, got %s"):format(x.dtype), 2)
  end
  local minlength = opts.minlength or 0
  if math.type(minlength) == "float" and minlength == math.floor(minlength) then minlength = math.tointeger(minlength) end
  if math.type(minlength) ~= "integer" or minlength < 0 then
    error(("gpu.bincount: minlength must be a non-negative integer, got %s"):format(gpu._arg.shown(opts.minlength)), 2)
  end
  local w = opts.weights
  if w ~= nil and (not is_array(w) or not same_shape(w.shape, x.shape)) then
    error(("gpu.bincount: weights must be a device array of x's shape {%d}"):format(x.size), 2)
  end
  if w ~= nil and KIND[w.dtype] == "c" then error("gpu.bincount: complex weights are not supported", 2) end
  if x.dtype == "bool" then x = x:astype("uint8") end
  local lo, hi = 0, -1
  if x.size > 0 then lo, hi = math.tointeger(gpu.min(x) + 0), math.tointeger(gpu.max(x) + 0) end
  if x.dtype == "uint64" then   -- NumPy's: cast to int64 (a greatest one past 2^63 - 1 comes back negative)
    if hi < 0 then error("gpu.bincount: x holds a uint64 element past 2^63 - 1, which int64 (NumPy's cast) does not hold", 2) end
    x = x:astype("int64")
  end
  if lo < 0 then error(("gpu.bincount: x must have no negative elements, got %d"):format(lo), 2) end
  local n = bins_that_fit(math.max(minlength, hi), hi < minlength)
  if x.size == 0 or n == 0 then return gpu.zeros(n, w and "float64" or "int64") end
  local r = gpu._bin_runs(x, n)
  if w == nil then return r.counts() end
  return r.sums(w)
end

local function finite_number(v, api, what)
  if type(v) ~= "number" then error(("gpu.%s: %s must be a number, got %s"):format(api, what, type(v)), 3) end
  return v
end

-- gpu.interp(x, xp, fp [, {left =, right =}]): the piecewise-linear function through the
-- points (xp, fp) (xp increasing) at x, as NumPy's (float64; left and right, fp's first
-- and last by default, outside xp); x a device array or a number (a Lua number back)
function gpu.interp(x, xp, fp, opts)
  opts = options(opts, "interp", 4, "left right")
  local number = type(x) == "number"
  if number then x = gpu.full({}, x, "float64") end
  device_array(x, "interp")
  for _, v in ipairs({{xp, "xp"}, {fp, "fp"}}) do
    if not is_array(v[1]) or v[1].ndim ~= 1 then
      error(("gpu.interp: %s must be a 1-D device array, got %s"):format(v[2], is_array(v[1]) and v[1].ndim .. "-D" or described(v[1])), 2)
    end
    if KIND[v[1].dtype] == "c" then error(("gpu.interp: %s is complex: not supported"):format(v[2]), 2) end
  end
  local n = xp.size
  if fp.size ~= n then error(("gpu.interp: fp and xp are not of the same length (%d and %d)"):format(fp.size, n), 2) end
  if n == 0 then error("gpu.interp: array of sample points is empty", 2) end
  local left = opts.left ~= nil and finite_number(opts.left, "interp", "left") or nil
  local right = opts.right ~= nil and finite_number(opts.right, "interp", "right") or nil
  xp, fp, x = xp:astype("float64"), fp:astype("float64"), x:astype("float64")
  local r
  if n == 1 then
    r = fp:reshape({}):expand(x.shape)
  else
    local lo = gpu.clip(gpu.searchsorted(xp, x, {side = "right"}) - 1, 1, n - 1)   -- 1-based: xp[lo] <= x < xp[lo + 1]
    local xl, xh, yl, yh = gpu.take(xp, lo), gpu.take(xp, lo + 1), gpu.take(fp, lo), gpu.take(fp, lo + 1)
    local slope = (yh - yl) / (xh - xl)
    r = slope * (x - xl) + yl
    -- NumPy's fallbacks where that is NaN (an infinite slope or value), and its exact points
    r = gpu.where(gpu.isnan(r), slope * (x - xh) + yh, r)
    r = gpu.where(gpu.logical_and(gpu.isnan(r), yl:eq(yh)), yl, r)
    r = gpu.where(x:eq(xl), yl, r)
  end
  local first, last = xp[{ {1} }], xp[{ {n} }]
  r = gpu.where(x:eq(last), fp[{ {n} }], r)
  r = gpu.where(x:gt(last), right or fp[{ {n} }], r)
  r = gpu.where(x:lt(first), left or fp[{ {1} }], r)
  if number then return r:item() end
  return r
end

------------------------------------------------------------------------------------
-- covariance and 1-D signals, on gpu.matmul, gpu.take and reductions

-- gpu.cov(m [, {rowvar =, bias =, ddof =}]): NumPy's covariance matrix of the variables
-- (m's rows; its columns with rowvar = false; a 1-D m is one variable), float64 at least
function gpu.cov(m, opts)
  device_array(m, "cov")
  opts = options(opts, "cov", 2, "rowvar bias ddof")
  if m.ndim > 2 then error(("gpu.cov: m must be 1-D or 2-D, got %d-D"):format(m.ndim), 2) end
  local x = m.ndim < 2 and m:reshape(1, -1) or m   -- (0-D too: NumPy's atleast_2d)
  if not gpu._arg.flag(opts, "rowvar", "cov", true) and x.shape[1] ~= 1 then x = x.T end   -- NumPy's: one row stays a variable
  local ddof = opts.ddof
  if ddof == nil then ddof = gpu._arg.flag(opts, "bias", "cov") and 0 or 1 end
  if type(ddof) ~= "number" then error(("gpu.cov: ddof must be a number, got %s"):format(type(ddof)), 2) end
  x = x:astype(gpu.result_type(x, "float64"))
  local d = x - x:mean(2, {keepdim = true})
  -- NumPy's: times 1 / max(N - ddof, 0), so inf (nan for 0) where ddof leaves no degrees of freedom
  local c = gpu.matmul(d, gpu.conj(d).T) * (1 / math.max(x.shape[2] - ddof, 0))
  return x.shape[1] == 1 and c:reshape({}) or c   -- one variable: 0-D, as NumPy's squeeze
end

-- gpu.corrcoef(x [, {rowvar =}]): NumPy's correlation coefficients (cov over the product of
-- the standard deviations; real and imaginary parts clipped to [-1, 1])
function gpu.corrcoef(x, opts)
  device_array(x, "corrcoef")
  opts = options(opts, "corrcoef", 2, "rowvar")
  if x.ndim > 2 then error(("gpu.corrcoef: x must be 1-D or 2-D, got %d-D"):format(x.ndim), 2) end   -- (not as cov's m)
  local c = gpu.cov(x, {rowvar = gpu._arg.flag(opts, "rowvar", "corrcoef")})
  if c.ndim == 0 then return c / c end
  local sd = gpu.sqrt(gpu.real(gpu.diagonal(c)))
  c = c / sd:unsqueeze(2) / sd:unsqueeze(1)
  if KIND[c.dtype] == "c" then
    return gpu.clip(gpu.real(c), -1, 1) + gpu.clip(gpu.imag(c), -1, 1) * gpu.full({}, gpu.complex(0, 1), c.dtype)
  end
  return gpu.clip(c, -1, 1)
end

local MODES = {full = true, same = true, valid = true}
-- The 1-D operands of convolve and correlate, checked
local function signal(v, api, what)
  if not is_array(v) or v.ndim ~= 1 then
    error(("gpu.%s: %s must be a 1-D device array, got %s"):format(api, what, is_array(v) and v.ndim .. "-D" or described(v)), 3)
  end
  if v.size == 0 then error(("gpu.%s: %s cannot be empty"):format(api, what), 3) end
  return v
end

-- kernels/convolve.cu's kernel for operands of dtypes X and Y and the result R (C: what the
-- products are computed in; A: what they are summed in, as gpu.sum sums R), one module each
local conv_source
local conv_modules = {}
local function conv_kernel(X, Y, R)
  local C = R == "float16" and "float32" or R
  local A = (R == "float16" or R == "float32") and "float64" or R == "complex64" and "complex128" or R
  local name = ("convolve<%s, %s, %s, %s, %s>"):format(CTYPE[X], CTYPE[Y], CTYPE[R], CTYPE[C], CTYPE[A])
  local m = conv_modules[name]
  if not m then
    conv_source = conv_source or gpu._embedded("kernels/ops/ew.cuh") .. gpu._embedded("kernels/ops/complex.cuh")
                                 .. gpu._embedded("kernels/convolve.cu")
    -- (no fused multiply-adds: each product rounded, then each sum, as the operations do)
    m = gpu.module(conv_source, {names = {name}, options = {"--fmad=false"}})
    conv_modules[name] = m
  end
  return m[name]
end

-- The convolution of a (n) and v (m) in result_type(a, v), only the part mode keeps, as
-- NumPy's (same: max(n, m) centred; valid: where they overlap wholly): each output the sum
-- of the products where the operands overlap (kernels/convolve.cu), the longer operand first
local function convolution(a, v, mode, api, inverted)
  if not MODES[mode] then error(("gpu.%s: mode must be \"full\", \"same\" or \"valid\", got %s"):format(api, gpu._arg.choice(mode)), 3) end
  local dt = gpu.result_type(a, v)
  local n, m = a.size, v.size
  if m > n then a, v, n, m = v, a, m, n end
  local first, count = 0, n + m - 1
  -- NumPy's correlate of a shorter a computes correlate(v, a) and reverses it: its window
  -- is centred from the other end (they differ for an even m)
  if mode == "same" then first, count = inverted and m // 2 or (m - 1) // 2, n end
  if mode == "valid" then first, count = m - 1, n - m + 1 end
  local out = gpu.empty(gpu._arg.reach({count}, api, 4), dt)   -- (gpu.empty's "shape[1] is too large")
  conv_kernel(a.dtype, v.dtype, dt)[{math.max(1, math.min(65536, (count + 255) // 256)), 256}](a, v, out, first, count)
  return out
end

-- gpu.convolve(a, v [, mode]): NumPy's convolve of two 1-D arrays (mode "full" by default)
function gpu.convolve(a, v, mode)
  return convolution(signal(a, "convolve", "a"), signal(v, "convolve", "v"), mode or "full", "convolve")
end

-- gpu.correlate(a, v [, mode]): NumPy's correlate, sum_n a[n + k] * conj(v[n]) (mode
-- "valid" by default): the convolution with v conjugated and reversed
function gpu.correlate(a, v, mode)
  signal(a, "correlate", "a"); signal(v, "correlate", "v")
  local w = gpu.flip(v)
  if KIND[v.dtype] == "c" then w = gpu.conj(w) end
  return convolution(a, w, mode or "valid", "correlate", a.size < v.size)
end

-- gpu.trapezoid(y [, x] [, {dx =, dim =}]) (also gpu.trapz): NumPy's trapezoidal rule along
-- dim (the last by default): sum(d * (y[i + 1] + y[i]) / 2), d the differences of x (of y's
-- shape, or 1-D along dim) or dx (1); a Lua number for a 1-D y
function gpu.trapezoid(y, x, opts)
  device_array(y, "trapezoid")
  if type(x) == "table" and not is_array(x) then
    if x[1] == nil then x, opts = nil, x   -- options; a list is x, as NumPy's asanyarray makes it
    else x = gpu._arg.list_array(x) end   -- (it said the options table has a number key)
  end
  opts = options(opts, "trapezoid", 3, "dx dim")
  if y.ndim == 0 then error("gpu.trapezoid: y must have a dimension to integrate along", 2) end
  local d = dim_of(opts.dim or -1, y.ndim, "trapezoid")
  local n = y.shape[d]
  local step = opts.dx or 1.0
  if x ~= nil then
    if not is_array(x) then error(("gpu.trapezoid: x must be a device array, got %s"):format(described(x)), 2) end
    if x.ndim == 1 then
      if x.size ~= n then error(("gpu.trapezoid: x has %d elements, y %d along dim %d"):format(x.size, n, d), 2) end
      local shape = {}
      for k = 1, y.ndim do shape[k] = k == d and n or 1 end
      x = x:reshape(shape)
    end
    step = gpu.diff(x, 1, d)
  elseif type(step) ~= "number" then
    error(("gpu.trapezoid: dx must be a number, got %s"):format(type(step)), 2)
  end
  local len = math.max(n - 1, 0)
  local t = step * (y:narrow(d, len > 0 and 2 or 1, len) + y:narrow(d, 1, len)) / 2.0
  if y.ndim == 1 then return t:sum() end
  return t:sum(d)
end
gpu.trapz = gpu.trapezoid

------------------------------------------------------------------------------------
-- products and polynomials, on gpu.matmul, broadcasting and views

-- gpu.tensordot(a, b [, dims]): NumPy's tensordot: the sum over a's dims dims[1] and b's
-- dims[2] (1-based; a number n: a's last n with b's first n, 2 by default), the result's
-- dims a's others then b's others; by gpu.matmul (floats) or a broadcast product summed
function gpu.tensordot(a, b, dims)
  device_array(a, "tensordot")
  if not is_array(b) then error(("gpu.tensordot: b must be a device array, got %s"):format(described(b)), 2) end
  dims = dims or 2
  local da, db = {}, {}
  if type(dims) == "number" then
    if dims < 0 or dims > a.ndim or dims > b.ndim or dims ~= math.floor(dims) then
      error(("gpu.tensordot: %s dims cannot be summed over for %d-D and %d-D arrays"):format(tostring(dims), a.ndim, b.ndim), 2)
    end
    for k = 1, dims do da[k], db[k] = a.ndim - dims + k, k end
  elseif type(dims) == "table" and #dims == 2 then
    gpu._arg.list(dims, "tensordot", "dims")
    for k = 1, 2 do
      if type(dims[k]) == "table" then gpu._arg.list(dims[k], "tensordot", ("dims[%d]"):format(k)) end
    end
    local pa = type(dims[1]) == "table" and dims[1] or {dims[1]}
    local pb = type(dims[2]) == "table" and dims[2] or {dims[2]}
    if #pa ~= #pb then error("gpu.tensordot: the two lists of dims differ in length", 2) end
    local seen = {{}, {}}
    for k = 1, #pa do
      da[k], db[k] = dim_of(pa[k], a.ndim, "tensordot"), dim_of(pb[k], b.ndim, "tensordot")
      for i, d in ipairs({da[k], db[k]}) do
        if seen[i][d] then error(("gpu.tensordot: dim %d of %s is named twice"):format(d, i == 1 and "a" or "b"), 2) end
        seen[i][d] = true
      end
    end
  else
    error("gpu.tensordot: dims must be a number or a table {dims of a, dims of b}", 2)
  end
  local sa, sb, k = a.shape, b.shape, 1
  for i = 1, #da do
    if sa[da[i]] ~= sb[db[i]] then
      error(("gpu.tensordot: dim %d of a (%d) and dim %d of b (%d) differ"):format(da[i], sa[da[i]], db[i], sb[db[i]]), 2)
    end
    k = k * sa[da[i]]
  end
  local function split(x, summed, last)   -- x's free dims and x transposed to (free, summed) or (summed, free)
    local used, free, perm, shape = {}, {}, {}, x.shape
    for _, d in ipairs(summed) do used[d] = true end
    for d = 1, x.ndim do if not used[d] then free[#free + 1] = d end end
    if last then table.move(free, 1, #free, 1, perm); table.move(summed, 1, #summed, #free + 1, perm)
    else table.move(summed, 1, #summed, 1, perm); table.move(free, 1, #free, #summed + 1, perm) end
    local fshape, n = {}, 1
    for i, d in ipairs(free) do fshape[i], n = shape[d], n * shape[d] end
    return fshape, n, (x.ndim > 1 and x:transpose(perm) or x)
  end
  local fa, m, ta = split(a, da, true)
  local fb, n, tb = split(b, db, false)
  gpu._arg.dims(#fa + #fb, "tensordot", 3)
  local dt = gpu.result_type(a, b)
  local A, B = ta:reshape(m, k):astype(dt), tb:reshape(k, n):astype(dt)
  local r
  if floating(A) then r = gpu.matmul(A, B)
  else r = (A:unsqueeze(3) * B:unsqueeze(1)):sum(2):astype(dt) end
  local shape = {table.unpack(fa)}
  table.move(fb, 1, #fb, #shape + 1, shape)
  return r:reshape(shape)
end

-- gpu.inner(a, b): NumPy's inner: the sum over the last dims of both
function gpu.inner(a, b)
  device_array(a, "inner")
  if not is_array(b) then error(("gpu.inner: b must be a device array, got %s"):format(described(b)), 2) end
  if a.ndim == 0 or b.ndim == 0 then return a * b end
  if a.shape[a.ndim] ~= b.shape[b.ndim] then
    error(("gpu.inner: the last dims of a (%d) and b (%d) differ"):format(a.shape[a.ndim], b.shape[b.ndim]), 2)
  end
  gpu._arg.dims(a.ndim + b.ndim - 2, "inner", 3)   -- (before tensordot says it as its own)
  return gpu.tensordot(a, b, {-1, -1})
end

-- gpu.kron(a, b): NumPy's Kronecker product: blocks a[i, j] * b (dims padded with leading 1s)
function gpu.kron(a, b)
  device_array(a, "kron")
  if not is_array(b) then error(("gpu.kron: b must be a device array, got %s"):format(described(b)), 2) end
  local nd = math.max(a.ndim, b.ndim)
  if nd == 0 then return a * b end   -- two 0-D arrays: a 0-D product, as NumPy's
  local sa, sb = a.shape, b.shape
  while #sa < nd do table.insert(sa, 1, 1) end
  while #sb < nd do table.insert(sb, 1, 1) end
  -- a dim where both sizes pass 1 is split in two (a's size, then b's) to interleave; one of
  -- size 1 on either side is broadcast as it is, which keeps within 8 dims where it can
  local va, vb, shape = {}, {}, {}
  for d = 1, nd do
    if sa[d] ~= 1 and sb[d] ~= 1 then
      va[#va + 1], va[#va + 2], vb[#vb + 1], vb[#vb + 2] = sa[d], 1, 1, sb[d]
    else
      va[#va + 1], vb[#vb + 1] = sa[d], sb[d]
    end
    shape[d] = sa[d] * sb[d]
  end
  if #va > 8 then
    error(("gpu.kron: shapes %s and %s need %d dimensions to interleave, more than an array's 8"):format(
      "{" .. table.concat(a.shape, ", ") .. "}", "{" .. table.concat(b.shape, ", ") .. "}", #va), 2)
  end
  return (a:reshape(va) * b:reshape(vb)):reshape(shape)
end

-- gpu.cross(a, b): NumPy's cross product of 3-vectors (or 2-vectors: the z component) along
-- the last dim, broadcast
function gpu.cross(a, b)
  device_array(a, "cross")
  if not is_array(b) then error(("gpu.cross: b must be a device array, got %s"):format(described(b)), 2) end
  local na, nb = a.ndim > 0 and a.shape[a.ndim] or 0, b.ndim > 0 and b.shape[b.ndim] or 0
  if (na ~= 2 and na ~= 3) or (nb ~= 2 and nb ~= 3) then
    error(("gpu.cross: incompatible dimensions for cross product (dimension must be 2 or 3), got %d and %d"):format(na, nb), 2)
  end
  local function c(x, i, n) return i <= n and x:select(x.ndim, i) or nil end
  local a1, a2, a3, b1, b2, b3 = c(a, 1, na), c(a, 2, na), c(a, 3, na), c(b, 1, nb), c(b, 2, nb), c(b, 3, nb)
  -- p * q - r * s without the products of a 2-vector's missing third component, as NumPy
  -- leaves them out (0 * inf would be NaN): the third is never missing from both
  local function minus(p, q, r, s)
    if not (r and s) then return p * q end
    if not (p and q) then return gpu.negative(r * s) end
    return p * q - r * s
  end
  if na == 2 and nb == 2 then return minus(a1, b2, a2, b1) end
  -- each component holds a product of both, so all three have the broadcast shape
  local parts = {minus(a2, b3, a3, b2), minus(a3, b1, a1, b3), minus(a1, b2, a2, b1)}
  return gpu.stack(parts, -1)
end

-- gpu.vander(x [, n [, {increasing = true}]]): NumPy's Vandermonde matrix: columns x^(n-1)
-- ... x^0 (n = #x), products accumulated as NumPy's, in promote(x, int64)
function gpu.vander(x, n, opts)
  device_array(x, "vander")
  if type(n) == "table" then n, opts = nil, n end
  opts = options(opts, "vander", 3, "increasing")
  local increasing = gpu._arg.flag(opts, "increasing", "vander")
  if x.ndim ~= 1 then error(("gpu.vander: x must be 1-D, got %d-D"):format(x.ndim), 2) end
  n = n or x.size
  if math.type(n) ~= "integer" and not (type(n) == "number" and n == math.floor(n)) or n < 0 then
    error(("gpu.vander: n must be a non-negative integer, got %s"):format(gpu._arg.shown(n)), 2)
  end
  n = math.tointeger(n)
  gpu._arg.elements(gpu._arg.times(x.size, n, "vander", "columns", 3), "vander", 3)
  local dt = gpu.result_type(x.dtype, "int64")
  local cols = {gpu.ones({x.size, math.min(n, 1)}, dt)}
  if n > 1 then cols[2] = gpu.cumprod(x:astype(dt):unsqueeze(2):expand(x.size, n - 1), 2) end
  local v = gpu.concatenate(cols, 2)
  return increasing and v or gpu.flip(v, 2):contiguous()
end

-- gpu.polyval(p, x): NumPy's polyval, Horner's rule with p's coefficients (highest power
-- first; a device array or a table) as Lua numbers: y = y * x + p[i]
function gpu.polyval(p, x)
  local pdt   -- p's dtype, as NumPy's asarray(p) has it: int64 for a table of integers
  if is_array(p) then
    if p.ndim ~= 1 then error(("gpu.polyval: p must be 1-D, got %d-D"):format(p.ndim), 2) end
    if KIND[p.dtype] == "c" then error("gpu.polyval: complex coefficients are not supported", 2) end
    pdt, p = p.dtype, p:totable()
  end
  if type(p) ~= "table" then error(("gpu.polyval: p must be a device array or a table, got %s"):format(described(p)), 2) end
  gpu._arg.list(p, "polyval", "p")   -- ({1, nil, 3} was {1})
  for i, c in ipairs(p) do
    if type(c) ~= "number" then error(("gpu.polyval: coefficient %d must be a number, got %s"):format(i, described(c)), 2) end
    if not pdt or pdt == "int64" then pdt = math.type(c) == "integer" and "int64" or "float64" end
  end
  if type(x) == "number" then
    local y = 0
    for _, c in ipairs(p) do y = y * x + c end
    return y
  end
  device_array(x, "polyval")
  -- in the dtype of x and p together, as NumPy 2's: an int8 x with coefficient 300 is
  -- int64 (y * x + c in x's dtype refused 300, naming gpu.add)
  local y = gpu.zeros(x.shape, pdt and gpu.result_type(x.dtype, pdt) or x.dtype)
  for _, c in ipairs(p) do y = y * x + c end
  return y
end

local API = {"nansum", "nanprod", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean", "nanvar", "nanstd",
             "median", "nanmedian", "percentile", "quantile", "nanpercentile", "nanquantile", "ptp", "average",
             "argwhere", "flatnonzero", "isin", "bincount", "interp", "cov", "corrcoef", "convolve", "correlate",
             "trapezoid", "trapz", "tensordot", "inner", "kron", "cross", "vander", "polyval"}
-- their arrays on the current device, checked first (an operation inside named itself)
for _, name in ipairs(API) do
  gpu[name] = gpu._api(gpu._arg.on_device(name, gpu[name], name == "isin" and {"elements", "test_elements"} or nil))
end
for _, name in ipairs({"nansum", "nanprod", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean", "nanvar",
                       "nanstd", "ptp"}) do
  array_meta.methods[name] = gpu[name]
end
