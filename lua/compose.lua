-- compose.lua: NumPy functions made of the module's own operations and views (gpu.linspace,
-- gpu.eye and gpu.identity, gpu.concatenate and gpu.stack, gpu.flip, gpu.isclose and
-- gpu.allclose), and indexing with arrays (gpu.take, gpu.extract: kernels/builtin.cu's
-- take_dim and extract_rows; searchsorted and histogram: a module an instantiation, at its
-- first use). Loaded at the first
-- call of one (lua/gpu.lua). Dimensions are 1-based, negative ones counting from the end,
-- as everywhere in gpuhost.
local gpu = ...
local array_meta = gpu._meta.array

local is_array, described = gpu._is_array, gpu._described

-- A number as it reads shortest (2, not 2.0; nan, not -nan), anything else as tostring
local function show(v)
  if type(v) == "string" then return ("a string (%q)"):format(v) end   -- ("1" read as the number 1)
  if type(v) ~= "number" then return gpu._arg.shown(v) end   -- (a table by its type, not its address)
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= v then return "nan" end
  if v == math.huge or v == -math.huge then return v > 0 and "inf" or "-inf" end
  for digits = 15, 17 do
    local t = ("%." .. digits .. "g"):format(v)
    if tonumber(t) == v then return t end
  end
end

local function count(v, api, what)
  if math.type(v) == "float" and v == math.floor(v) and v >= 0 and v < 2 ^ 63 then v = math.tointeger(v) end
  if math.type(v) ~= "integer" or v < 0 then
    error(("gpu.%s: %s must be a non-negative integer, got %s"):format(api, what, show(v)), 3)
  end
  return v
end

local function integer(v, api, what)
  if math.type(v) == "float" and v == math.floor(v) then v = math.tointeger(v) or v end
  if math.type(v) ~= "integer" then error(("gpu.%s: %s must be an integer, got %s"):format(api, what, show(v)), 3) end
  return v
end

local function finite(v, api, what)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    error(("gpu.%s: %s must be a finite number, got %s"):format(api, what, show(v)), 3)
  end
  return v * 1.0   -- (-0.0 + 0.0 is 0.0)
end

-- gpu.linspace(start, stop, num [, opts]): num numbers from start to stop, evenly spaced
-- (opts.endpoint = false leaves stop out), computed in float64 as NumPy does
-- (start + i * step, the last one stop itself), then made opts.dtype (float32 by default;
-- integer dtypes take the floor first, as NumPy's since 1.20, not the truncation)
function gpu.linspace(start, stop, num, opts)
  start, stop = finite(start, "linspace", "start"), finite(stop, "linspace", "stop")
  num = gpu._arg.elements(count(num, "linspace", "num"), "linspace", 3)
  opts = opts or {}
  if type(opts) ~= "table" then error("gpu.linspace: argument 4 must be a table of options", 2) end
  gpu._arg.options(opts, "linspace", "endpoint dtype")
  local endpoint = gpu._arg.flag(opts, "endpoint", "linspace", true)
  local dtype = gpu._arg.dtype_option(opts, "linspace", "float32", 2)
  local div = endpoint and num - 1 or num
  local y = gpu.arange(num, "float64")
  if div > 0 then y = y * ((stop - start) / div) + start else y = y + start end
  if endpoint and num > 1 then y[{ -1 }] = stop end
  if dtype ~= "float64" and gpu.issubdtype(dtype, "integer") then y = gpu.floor(y) end
  return dtype == "float64" and y or y:astype(dtype)
end

-- gpu.eye(n [, m [, k]] [, dtype]): n x m (m = n) zeros with ones on diagonal k (0 the main
-- one, k > 0 above it, k < 0 below); gpu.identity(n [, dtype])
function gpu.eye(n, m, k, dtype)
  local at = type(m) == "string" and 2 or type(k) == "string" and 3 or 4
  if type(m) == "string" then m, k, dtype = nil, nil, m elseif type(k) == "string" then k, dtype = nil, k end
  if dtype ~= nil then gpu._arg.dtype(dtype, "eye", at) end
  n = count(n, "eye", "n")
  m = m == nil and n or count(m, "eye", "m")
  gpu._arg.elements(gpu._arg.times(n, m, "eye", "rows", 3), "eye", 3)
  gpu._arg.reach({n, m}, "eye", 3)   -- ({0, 2^62} was gpu.zeros' bare "shape[2] is too large")
  k = integer(k or 0, "eye", "k")
  local a = gpu.zeros({n, m}, dtype)
  local first = k >= 0 and k or -k * m                       -- 0-based, in C order
  local len = k >= 0 and math.min(n, m - k) or math.min(n + k, m)
  if len > 0 then
    local flat = a:reshape(n * m)
    flat[{ {first + 1, first + 1 + (len - 1) * (m + 1), m + 1} }] = 1
  end
  return a
end

function gpu.identity(n, dtype)
  if dtype ~= nil then gpu._arg.dtype(dtype, "identity", 2) end
  n = count(n, "identity", "n")
  gpu._arg.elements(gpu._arg.times(n, n, "identity", "rows", 3), "identity", 3)
  return gpu.eye(n, nil, 0, dtype)
end

-- A dimension of an ndim-D array as a 1-based number (negative from the end)
local function dim_of(d, ndim, api)
  if math.type(d) == "float" and d == math.floor(d) then d = math.tointeger(d) or d end
  if math.type(d) ~= "integer" and (type(d) ~= "number" or d ~= math.floor(d)) then   -- (not "out of range")
    error(("gpu.%s: dim must be an integer, got %s"):format(api, show(d)), 3)
  end
  if math.type(d) ~= "integer" or d == 0 or d > ndim or d < -ndim then
    error(("gpu.%s: dimension %s is out of range for %d-D arrays"):format(api, show(d), ndim), 3)
  end
  return d < 0 and ndim + 1 + d or d
end

local function arrays_of(list, api)
  if type(list) ~= "table" or is_array(list) then
    error(("gpu.%s: a table of arrays expected as argument 1, got %s"):format(api, is_array(list) and "an array" or described(list)), 3)
  end
  if #list == 0 then error(("gpu.%s: no arrays to join"):format(api), 3) end
  gpu._arg.array_list(list, api, "the table of arrays", 3, "options go after it")
  for i = 1, #list do
    if not is_array(list[i]) then
      error(("gpu.%s: element %d of the table is a %s, not a device array"):format(api, i, described(list[i])), 3)
    end
  end
  return list
end

-- gpu.concatenate(arrays [, dim]): the arrays joined along dim (1 by default), which is
-- the only dimension whose sizes may differ; the dtype is their result_type, on their device
-- The options of concatenate and stack (dim left out: the table in its place), checked:
-- out (a device array of the result's shape, written) and dtype (the result's)
local function join_options(dim, opts, api)
  if type(dim) == "table" and opts == nil then dim, opts = nil, dim end
  if opts ~= nil and type(opts) ~= "table" then
    error(("gpu.%s: argument 3 must be a table of options, got %s"):format(api, described(opts)), 3)
  end
  opts = gpu._arg.options(opts, api, "out dtype", 3)
  if opts.out ~= nil and not is_array(opts.out) then
    error(("gpu.%s: out must be a device array, got %s"):format(api, described(opts.out)), 3)
  end
  return dim, opts
end

-- Each array casts to dtype and out's dtype by NumPy's default rule for joins, same_kind
-- (float to int and complex to real are refused, as NumPy's TypeError)
local function same_kind(list, opts, api)
  if opts.dtype ~= nil then
    local ok, why = pcall(gpu.result_type, opts.dtype)
    if not ok or type(opts.dtype) ~= "string" then
      error(("gpu.%s: option dtype: %s"):format(api, ok and "a dtype name expected, got " .. type(opts.dtype)
                                                  or gpu._arg.unwrapped(why)), 3)
    end
  end
  for _, to in ipairs({opts.dtype or false, opts.out and opts.out.dtype or false}) do
    for i, a in ipairs(to and list or {}) do
      if not gpu.can_cast(a.dtype, to, "same_kind") then
        error(("gpu.%s: array %d (%s) cannot be cast to %s by NumPy's rule 'same_kind'"):format(api, i, a.dtype, to), 3)
      end
    end
  end
end

-- The joined result into out, when asked: out has its shape, and gets it whole (a copy
-- first, so an out that overlaps an input reads it unchanged), as NumPy's out=
local function into(out, r, api)
  if out == nil then return r end
  local s, o = r.shape, out.shape
  if #s ~= #o or table.concat(s, ",") ~= table.concat(o, ",") then
    error(("gpu.%s: out has shape {%s}, the result {%s}"):format(api, table.concat(o, ", "), table.concat(s, ", ")), 3)
  end
  out:copy_(r)
  return out
end

function gpu.concatenate(list, dim, opts)
  arrays_of(list, "concatenate")
  dim, opts = join_options(dim, opts, "concatenate")
  same_kind(list, opts, "concatenate")
  local first = list[1]
  if first.ndim == 0 then error("gpu.concatenate: 0-D arrays cannot be joined (use gpu.stack)", 2) end
  dim = dim_of(dim or 1, first.ndim, "concatenate")
  local shape, total = first.shape, 0
  for i, a in ipairs(list) do
    if a.ndim ~= first.ndim or a.device ~= first.device then
      error(("gpu.concatenate: array %d is %d-D on device %d, array 1 %d-D on device %d"):format(
        i, a.ndim, a.device, first.ndim, first.device), 2)
    end
    local s = a.shape
    for d = 1, first.ndim do
      if d ~= dim and s[d] ~= shape[d] then
        error(("gpu.concatenate: array %d has size %d in dimension %d, array 1 %d (only dimension %d may differ)"):format(
          i, s[d], d, shape[d], dim), 2)
      end
    end
    total = total + (total > 1 << 62 and s[dim] + 0.0 or s[dim])   -- (refused below, not wrapped)
  end
  shape[dim] = total
  gpu._arg.reach(shape, "concatenate", 3)   -- (gpu.empty's bare "shape[1] is too large")
  if is_array(opts.out) and opts.out.device ~= first.device then   -- (as stack's: it was written across devices)
    error(("gpu.concatenate: arrays[1] on device %d and out on device %d: copy one to the other's device first (a:to(dev))")
          :format(first.device, opts.out.device), 2)
  end
  local out = gpu.with_device(first.device, gpu.empty, shape, opts.dtype or gpu._arg.result_type_of(list))
  local at = 1
  for _, a in ipairs(list) do
    local len = a.shape[dim]
    if len > 0 and a.size > 0 then out:narrow(dim, at, len):copy_(a) end
    at = at + len
  end
  return into(opts.out, out, "concatenate")
end

-- gpu.stack(arrays [, dim]): arrays of one shape joined along a new dimension dim (1 by
-- default; -1 is after the last)
function gpu.stack(list, dim, opts)
  arrays_of(list, "stack")
  dim, opts = join_options(dim, opts, "stack")
  same_kind(list, opts, "stack")
  local shape = list[1].shape
  local ndim = #shape
  for i, a in ipairs(list) do
    local s = a.shape
    local same = #s == ndim
    for d = 1, ndim do same = same and s[d] == shape[d] end
    if not same then
      error(("gpu.stack: array %d has shape {%s}, array 1 {%s}: stacked arrays must have one shape"):format(
        i, table.concat(s, ", "), table.concat(shape, ", ")), 2)
    end
  end
  dim = dim_of(dim or 1, gpu._arg.dims(ndim + 1, "stack", 3), "stack")
  local views = {}
  for i, a in ipairs(list) do views[i] = a:unsqueeze(dim) end
  local joined = gpu._arg.renamed("concatenate", "stack", nil, pcall(gpu.concatenate, views, dim, {dtype = opts.dtype}))
  return into(opts.out, joined, "stack")
end

-- gpu.flip(a [, dims]): a view with dims (a number or a table; every one by default)
-- reversed
function gpu.flip(a, dims)
  if not is_array(a) then error(("gpu.flip: a device array expected, got %s"):format(described(a)), 2) end
  local ndim, flip = a.ndim, {}
  if dims == nil then
    for d = 1, ndim do flip[d] = true end
  else
    if type(dims) ~= "table" then dims = {dims} end
    gpu._arg.list(dims, "flip", "dims")   -- ({nil, 2} flipped nothing)
    for _, d in ipairs(dims) do
      d = dim_of(d, ndim, "flip")
      if flip[d] then error(("gpu.flip: dimension %d appears twice"):format(d), 2) end
      flip[d] = true
    end
  end
  local key, shape = {}, a.shape
  for d = 1, ndim do key[d] = (flip[d] and shape[d] > 0) and {-1, 1, -1} or {} end
  return a[key]
end

-- gpu.isclose(a, b [, opts]): where a == b, or |a - b| <= atol + rtol * |b| with b finite
-- (opts.rtol 1e-5, opts.atol 1e-8: NumPy 2's rule), NaN close to nothing unless
-- opts.equal_nan; computed in result_type(a, b, 1.0); gpu.allclose: whether everywhere
local function isclose(api, a, b, opts)
  opts = opts or {}
  if type(opts) ~= "table" then error(("gpu.%s: argument 3 must be a table of options"):format(api), 3) end
  gpu._arg.options(opts, api, "rtol atol equal_nan")
  local rtol, atol = opts.rtol or 1e-5, opts.atol or 1e-8
  if type(rtol) ~= "number" or type(atol) ~= "number" then error(("gpu.%s: rtol and atol must be numbers"):format(api), 3) end
  for k = 1, 2 do   -- (each: ipairs stopped at a nil b)
    local v = k == 1 and a or b
    if not is_array(v) and type(v) ~= "number" then
      error(("gpu.%s: arrays or numbers expected, got %s"):format(api, described(v)), 3)
    end
  end
  local dt = gpu.result_type(a, b, 1.0)
  local x = is_array(a) and a.dtype ~= dt and a:astype(dt) or a
  local y = is_array(b) and b.dtype ~= dt and b:astype(dt) or b
  local close = gpu.abs(x - y):le(gpu.abs(y) * rtol + atol)
  local r = gpu.logical_or(gpu.logical_and(close, gpu.isfinite(y)), gpu.eq(x, y))
  if gpu._arg.flag(opts, "equal_nan", api) then r = gpu.logical_or(r, gpu.logical_and(gpu.isnan(x), gpu.isnan(y))) end
  return r
end
function gpu.isclose(a, b, opts) return (isclose("isclose", a, b, opts)) end
function gpu.allclose(a, b, opts) return isclose("allclose", a, b, opts):all() end

-- Kernels move words: an element of 1, 2, 4 or 8 bytes, or 8 bytes of a complex128
local WORD = {[1] = "unsigned char", [2] = "unsigned short", [4] = "unsigned int", [8] = "unsigned long long"}
-- One module an instantiation, for kernels of many types of which a script uses few
local CTYPE, typed_modules = {}, {}
for _, d in ipairs(gpu._dtypes) do CTYPE[d.name] = d.ctype end
local function typed(name)
  local m = typed_modules[name]
  if not m then
    m = gpu.module(gpu._embedded("kernels/builtin.cu"), {names = {name}})
    typed_modules[name] = m
  end
  return m[name]
end

-- take_dim or extract_rows for elements of bytes bytes
local function kernel(name, bytes) return typed(("%s<%s>"):format(name, WORD[bytes] or WORD[8])) end
local function config(n) return {math.max(1, math.min(65536, (n + 255) // 256)), 256} end

local SIZE = {}
for _, d in ipairs(gpu._dtypes) do SIZE[d.name] = d.size end
-- The element size of a, and inner (a count of its elements) in words
local function words(a, inner)
  local bytes = SIZE[a.dtype]
  return bytes, WORD[bytes] and inner or inner * bytes // 8
end

local function product(t, i, j)
  local p = 1
  for k = i, j do p = p * t[k] end
  return p
end

-- The first of the 1-based indices i64 (an int64 array) outside 1 .. n and -n .. -1, or nil
local function first_outside(i64, n)
  local outside = i64:gt(n):logical_or(i64:lt(-n)):logical_or(i64:eq(0))
  return gpu.any(outside) and gpu.extract(outside, i64):item(1) or nil
end

-- gpu.take(a, indices [, dim]): the elements of a at the 1-based indices (negative ones
-- from the end) along dim, or of a flattened without dim, as NumPy's take: dimension dim
-- is replaced by the indices' shape. indices: an integer array, a table or a number. An
-- index out of range is an error (read back after the kernel, so take waits for it).
function gpu.take(a, indices, dim)
  if not is_array(a) then error(("gpu.take: a device array expected as argument 1, got %s"):format(described(a)), 2) end
  local idx = indices
  if type(idx) == "number" or type(idx) == "table" and not is_array(idx) then
    idx = gpu._arg.index_array(idx, "take", "indices")   -- (1.5 or "2" named full or array)
  end
  if not is_array(idx) or not idx.dtype:match("int") then
    error(("gpu.take: the indices must be an integer array, a table or a number, got %s"):format(
      is_array(idx) and idx.dtype .. " array" or type(idx)), 2)
  end
  -- as every operation's words (the kernel's named take_dim<unsigned int>' argument 3)
  local here = gpu.device().id
  if a.device ~= here then
    error(("gpu.take: the arrays are on device %d, and device %d is current: run it with gpu.with_device(%d, f)")
          :format(a.device, here, a.device), 2)
  end
  if idx.device ~= a.device then
    error(("gpu.take: arrays on device %d and device %d: copy one to the other's device first"):format(a.device, idx.device), 2)
  end
  local src = dim == nil and a:reshape(-1) or a
  if src.ndim == 0 then error("gpu.take: a 0-D array has no dimension to take from", 2) end
  local d = dim_of(dim or 1, src.ndim, "take")
  local shape, ishape, oshape = src.shape, idx.shape, {}
  for k = 1, d - 1 do oshape[#oshape + 1] = shape[k] end
  for _, s in ipairs(ishape) do oshape[#oshape + 1] = s end
  for k = d + 1, #shape do oshape[#oshape + 1] = shape[k] end
  local out = gpu.empty(oshape, src.dtype)
  if idx.size > 0 and shape[d] == 0 then
    error(("gpu.take: index %d is out of range for dimension %d of size 0"):format(idx:reshape(-1):item(1), d), 2)
  end
  if idx.size == 0 then return out end
  local bytes, inner = words(src, product(shape, d + 1, #shape))
  local i64, big = gpu._arg.int64_index(idx)
  local bad = big or out.size == 0 and first_outside(i64, shape[d])   -- (no kernel to check them)
  if out.size > 0 and not big then
    local flag = gpu.zeros(2, "int64")
    kernel("take_dim", bytes)[config(out.size)](src:contiguous(), out, i64:contiguous(),
      product(shape, 1, d - 1), shape[d], idx.size, inner, flag)
    flag = flag:totable()
    bad = flag[1] ~= 0 and flag[2]
  end
  if bad then
    error(("gpu.take: index %s is out of range for dimension %d of size %d (1-based; -%d to -1 from the end)"):format(
      bad, d, shape[d], shape[d]), 2)
  end
  return out
end

-- mask as a bool array (nonzero is true), if its shape is a's or that of a's first
-- dimensions (a 0-D one: none, as NumPy's a[True] is a[None]); what names the caller
local function bool_mask(mask, a, what)
  local ms, as = mask.shape, a.shape
  local fits = #ms <= #as
  for k = 1, #ms do fits = fits and ms[k] == as[k] end
  if not fits then
    error(("%s: the mask's shape {%s} is not a's {%s} nor that of its first dimensions"):format(
      what, table.concat(ms, ", "), table.concat(as, ", ")), 3)
  end
  return mask.dtype == "bool" and mask or mask:ne(0)
end

-- gpu.extract(mask, a): the elements of a where mask is true (nonzero), in C order, as
-- NumPy's a[mask]: mask has a's shape (a 1-D result) or that of its first k dimensions
-- (the selected subarrays, stacked). Counting them reads a number back: extract waits.
function gpu.extract(mask, a)
  if not is_array(mask) or not is_array(a) then
    error(("gpu.extract: device arrays expected (mask, a), got %s and %s"):format(described(mask), described(a)), 2)
  end
  gpu._arg.here("extract", {mask, "mask", a, "a"})   -- (cumsum's words named neither)
  local ms, as = mask.shape, a.shape
  mask = bool_mask(mask, a, "gpu.extract"):contiguous()
  local rows = mask.size
  local oshape = {0}
  for k = #ms + 1, #as do oshape[#oshape + 1] = as[k] end
  if rows == 0 then return gpu.empty(oshape, a.dtype) end
  local pos = mask:reshape(-1):cumsum()
  oshape[1] = pos:item(rows)
  local out = gpu.empty(oshape, a.dtype)
  if out.size == 0 then return out end
  local bytes, inner = words(a, a.size // rows)
  kernel("extract_rows", bytes)[config(a.size)](a:contiguous(), out, mask, pos, rows, inner)
  return out
end

-- gpu.nonzero(a): the 1-based indices of a's nonzero elements, one int64 array a dimension
-- (as many results), in C order, as NumPy's nonzero
function gpu.nonzero(a)
  if not is_array(a) then error(("gpu.nonzero: a device array expected, got %s"):format(described(a)), 2) end
  if a.ndim == 0 then error("gpu.nonzero: a 0-D array has no indices (use a:item())", 2) end
  local flat = gpu.extract(a:ne(0):reshape(-1), gpu.arange(a.size, "int64")) -- 0-based, C order
  local shape, out, stride = a.shape, {}, 1
  for d = #shape, 1, -1 do
    out[d] = (d == 1 and flat // stride or flat // stride % shape[d]) + 1
    stride = stride * shape[d]
  end
  return table.unpack(out, 1, #shape)
end

-- diff's prepend or append (what) as an array of a's shape but along dim d: a number,
-- boolean or gpu.complex as NumPy's asanyarray makes it (int64, float64, bool, complex128),
-- broadcast to one slice; a table as it makes it; an array as it is (gpu.full and
-- gpu.concatenate named themselves)
local function diff_part(v, what, a, d)
  if type(v) == "table" and not is_array(v) then
    local ok, r = pcall(gpu._arg.list_array, v)
    if not ok then error(("gpu.diff: %s: %s"):format(what, gpu._arg.unwrapped(r)), 3) end
    v = r
  elseif type(v) == "number" or type(v) == "boolean" or gpu._arg.is_complex(v) then
    v = gpu.full({}, v, type(v) == "boolean" and "bool" or math.type(v) == "integer" and "int64"
                 or math.type(v) == "float" and "float64" or "complex128")
  elseif not is_array(v) then
    error(("gpu.diff: %s must be a number, a table or a device array, got %s"):format(what, described(v)), 3)
  end
  local want, fits = a.shape, v.ndim == a.ndim
  for k = 1, a.ndim do fits = fits and (k == d or v.shape[k] == want[k]) end
  want[d] = v.ndim == 0 and 1 or "k"
  if v.ndim == 0 then return gpu.broadcast_to(v, want) end
  if not fits then
    error(("gpu.diff: %s of shape {%s} does not fit a of shape {%s} along dim %d: it must be {%s}"):format(
      what, table.concat(v.shape, ", "), table.concat(a.shape, ", "), d, table.concat(want, ", ")), 3)
  end
  return v
end

-- gpu.diff(a [, n [, dim]] [, {prepend =, append =}]): the n-th difference (1 by default)
-- along dim (the last by default): a[i + 1] - a[i], n times; bools give a[i + 1] ~= a[i],
-- as NumPy's; prepend and append (a number or an array, of a's shape but along dim where
-- it has that many dims, else broadcast to one slice) go before and after a along dim
function gpu.diff(a, n, dim, opts)
  if opts == nil and type(dim) == "table" then dim, opts = nil, dim end
  if opts == nil and dim == nil and type(n) == "table" then n, opts = nil, n end
  if not is_array(a) then error(("gpu.diff: a device array expected, got %s"):format(described(a)), 2) end
  n = count(n or 1, "diff", "n")
  if a.ndim == 0 then error("gpu.diff: a 0-D array has no dimension to difference", 2) end
  local d = dim_of(dim or -1, a.ndim, "diff")
  opts = gpu._arg.options(opts, "diff", "prepend append")
  if n > 0 and (opts.prepend ~= nil or opts.append ~= nil) then   -- NumPy's n = 0: a itself
    local parts = {}
    for _, v in ipairs({{opts.prepend, "prepend"}, {a, "a"}, {opts.append, "append"}}) do
      if v[1] ~= nil then parts[#parts + 1] = v[2] == "a" and a or diff_part(v[1], v[2], a, d) end
    end
    a = gpu.concatenate(parts, d)
  end
  for _ = 1, n do
    local len = a.shape[d]
    if len == 0 then break end
    local hi, lo = a:narrow(d, 2, len - 1), a:narrow(d, 1, len - 1)
    a = a.dtype == "bool" and hi:ne(lo) or hi - lo
  end
  return a   -- (n = 0: a itself, as NumPy's)
end

-- The lower (k and below) or upper triangle of the last two dimensions of a, zeros elsewhere;
-- a 1-D a of n elements is each row of an n x n matrix, as NumPy's (its mask is n x n)
local function triangle(a, k, api, lower)
  if not is_array(a) then error(("gpu.%s: a device array expected, got %s"):format(api, described(a)), 3) end
  if a.ndim < 1 then error(("gpu.%s: a 1-D array, a matrix or a stack of them expected, got a 0-D array"):format(api), 3) end
  k = integer(k or 0, api, "k")
  local shape = a.shape
  if a.ndim == 1 then shape = {shape[1], shape[1]} end
  local rows = gpu.arange(shape[#shape - 1], "int64"):unsqueeze(2)
  local cols = gpu.arange(shape[#shape], "int64"):unsqueeze(1)
  local keep = lower and (cols - rows):le(k) or (cols - rows):ge(k)
  return gpu.where(keep, a, gpu.zeros({}, a.dtype))   -- a's zero: a bool 0 made int64
end
function gpu.tril(a, k) return triangle(a, k, "tril", true) end
function gpu.triu(a, k) return triangle(a, k, "triu", false) end

-- gpu.diagonal(a [, k]): a new 1-D array, diagonal k of matrix a (0 the main one, above it
-- for k > 0); a:trace([k]): its sum, a Lua number (gpu.trace is the profiler's switch)
function gpu.diagonal(a, k)
  if not is_array(a) or a.ndim ~= 2 then
    error(("gpu.diagonal: a matrix expected, got %s"):format(is_array(a) and a.ndim .. "-D array" or described(a)), 2)
  end
  k = integer(k or 0, "diagonal", "k")
  local n, m = a.shape[1], a.shape[2]
  local len = k >= 0 and math.min(n, m - k) or math.min(n + k, m)
  if len <= 0 then return gpu.empty(0, a.dtype) end
  local first = k >= 0 and k or -k * m   -- 0-based, in C order
  return gpu.take(a, gpu.arange(len, "int64") * (m + 1) + (first + 1))
end
local function trace(a, k)   -- (diagonal's words said as a:trace's)
  local ok, d = pcall(gpu.diagonal, a, k)
  if not ok then error(type(d) == "string" and (gpu._arg.unwrapped(d):gsub("^gpu%.diagonal:", "a:trace:")) or d, 2) end
  return d:sum()
end

-- gpu.meshgrid(x1, ..., xn [, {indexing = "xy"}]): n arrays of the grid's shape, array k
-- holding xk along its dimension, as NumPy's (copies; "xy" swaps the first two
-- dimensions, as NumPy does by default; "ij" does not)
function gpu.meshgrid(...)
  local n, xs, opts = select("#", ...), {...}, {}
  -- a nil in the options' place is none, and a table before it the options: a wrapper's
  -- f(x, y, z, opts) called as f(x, y, {indexing = "ij"}) (the options were an argument)
  if n > 0 and xs[n] == nil then n = n - 1 end
  if n > 0 and type(xs[n]) == "table" and not is_array(xs[n]) then
    opts = gpu._arg.options(xs[n], "meshgrid", "indexing")
    xs[n], n = nil, n - 1
  end
  local indexing = opts.indexing or "xy"
  if indexing ~= "xy" and indexing ~= "ij" then
    error(("gpu.meshgrid: indexing must be \"xy\" or \"ij\", got %s"):format(gpu._arg.choice(indexing)), 2)
  end
  local shape = {}
  for i = 1, n do   -- (each, a nil too: ipairs stopped at it)
    local x = xs[i]
    if not is_array(x) then error(("gpu.meshgrid: argument %d is a %s, not a device array"):format(i, described(x)), 2) end
    shape[i] = x.size
  end
  gpu._arg.dims(n, "meshgrid", 3)
  local xy = indexing == "xy" and #xs >= 2
  if xy then shape[1], shape[2] = shape[2], shape[1] end
  gpu._arg.reach(shape, "meshgrid", 3)   -- (it was a:expand's "shape is too large")
  local out = {}
  for i, x in ipairs(xs) do
    local at = xy and i <= 2 and 3 - i or i
    local view = {}
    for d = 1, #xs do view[d] = d == at and x.size or 1 end
    out[i] = gpu.with_device(x.device, function() return x:reshape(view):expand(shape):copy() end)   -- new arrays, as NumPy's, on x's device
  end
  return table.unpack(out, 1, #xs)
end

-- gpu.repeat_interleave(a, repeats [, dim]): each element (or each slice along dim) repeats
-- times in a row, as NumPy's repeat (a flattened without dim); gpu.tile(a, reps): a
-- repeated reps times (a number, or a table a dimension, leading 1s added as NumPy's)
function gpu.repeat_interleave(a, repeats, dim)
  if not is_array(a) then error(("gpu.repeat_interleave: a device array expected, got %s"):format(described(a)), 2) end
  local r = count(repeats, "repeat_interleave", "repeats")
  local src = dim == nil and a:reshape(-1) or a
  if src.ndim == 0 then error("gpu.repeat_interleave: a 0-D array has no dimension", 2) end
  local d = dim_of(dim or 1, src.ndim, "repeat_interleave")
  local n = gpu._arg.times(src.shape[d], r, "repeat_interleave", "repeats", 3)
  local shape = src.shape
  shape[d] = n
  gpu._arg.reach(shape, "repeat_interleave", 3)
  if src.size == 0 or n == 0 then   -- (no index array of n: 2^40 of them were 8 TB)
    return gpu.with_device(a.device, gpu.empty, shape, a.dtype)
  end
  return gpu.take(src, gpu.arange(n, "int64") // math.max(r, 1) + 1, d)
end

function gpu.tile(a, reps)
  if not is_array(a) then error(("gpu.tile: a device array expected, got %s"):format(described(a)), 2) end
  if type(reps) ~= "table" then reps = {reps} end
  gpu._arg.list(reps, "tile", "reps")
  local nd = math.max(a.ndim, #reps)
  local shape = a.shape
  for _ = a.ndim + 1, nd do table.insert(shape, 1, 1) end
  local out, total, rs = a:reshape(shape), 1, {}
  for d = 1, nd do
    rs[d] = count(reps[d - (nd - #reps)] or 1, "tile", "each repetition")
    total = gpu._arg.times(total, gpu._arg.times(shape[d], rs[d], "tile", "repetitions", 3), "tile", "repetitions", 3)
  end
  gpu._arg.elements(total, "tile", 3)
  local oshape = {}
  for d = 1, nd do oshape[d] = shape[d] * rs[d] end
  gpu._arg.reach(oshape, "tile", 3)
  for d = 1, nd do   -- a repeat is a take, on the current device (nothing repeated: a copy on a's)
    if rs[d] ~= 1 then gpu._arg.here("tile", {a, "a"}) end
  end
  if total == 0 then   -- (no index arrays: a dimension of 2^33 took 64 GiB for nothing)
    return gpu.with_device(a.device, gpu.empty, oshape, a.dtype)
  end
  local copied = false   -- a new array, as NumPy's, also where nothing repeats
  for d = 1, nd do
    local r = rs[d]
    if r ~= 1 then
      out, copied = gpu.take(out, gpu.arange(shape[d] * r, "int64") % math.max(shape[d], 1) + 1, d), true
    end
  end
  return copied and out or gpu.with_device(a.device, out.copy, out)   -- on a's device, as take's
end

local function real_array(a, api, what)
  if not is_array(a) then error(("gpu.%s: %s must be a device array, got %s"):format(api, what, described(a)), 3) end
  if a.dtype:match("complex") then error(("gpu.%s: %s is complex: it has no order"):format(api, what), 3) end
  return a
end

-- gpu.searchsorted(a, v [, {side = "right"}]): for each value of v (an array, a table or a
-- number), the 1-based place in the sorted 1-D array a where it would go, as NumPy's
-- searchsorted plus 1 (NaN sorts last): an int64 array of v's shape, a Lua integer for a number
function gpu.searchsorted(a, v, opts)
  real_array(a, "searchsorted", "a")
  if a.ndim ~= 1 then error(("gpu.searchsorted: a must be 1-D, got %d-D"):format(a.ndim), 2) end
  if opts ~= nil and type(opts) ~= "table" then error("gpu.searchsorted: argument 3 must be a table of options", 2) end
  opts = gpu._arg.options(opts, "searchsorted", "side")
  local side = opts.side or "left"
  if side ~= "left" and side ~= "right" then
    error(("gpu.searchsorted: side must be \"left\" or \"right\", got %s"):format(gpu._arg.choice(side)), 2)
  end
  if type(v) == "boolean" then v = v and 1 or 0 end
  local number = type(v) == "number"
  -- a number compares in its own type, not as a weak scalar, as NumPy's (float16 a with
  -- 2049 compares 2049, not float16's 2048; int8 a with 300 compares 300)
  if number then v = gpu.full({}, v, math.type(v) == "integer" and "int64" or "float64") end
  if type(v) == "table" and not is_array(v) then v = gpu._arg.list_array(v) end
  real_array(v, "searchsorted", "v")
  local dt = gpu.result_type(a, v)
  local x = v.dtype == dt and v:contiguous() or v:astype(dt)
  local sorted = a.dtype == dt and a:contiguous() or a:astype(dt)
  local out = gpu.empty(x.shape, "int64")
  if x.size > 0 then
    typed(("search_sorted<%s>"):format(CTYPE[dt]))[config(x.size)](sorted, a.size, x, x.size, side == "right" and 1 or 0, out)
  end
  if number then return math.tointeger(out:item()) end
  return out
end

-- gpu.histogram(a [, bins [, {range = {lo, hi}}]]): counts (int64) of a's values in bins
-- equal bins (10 by default) from lo to hi (a's least and greatest by default)

-- bins + 1 edges (float16 and float32 for such data, else float64), as NumPy's: the last bin
-- closed, values outside not counted
function gpu.histogram(a, bins, opts)
  real_array(a, "histogram", "a")
  if a.dtype == "bool" then a = a:astype("uint8") end   -- as NumPy converts it
  if is_array(bins) then   -- the edges themselves (range is not read), as NumPy's
    if opts ~= nil and type(opts) ~= "table" then error("gpu.histogram: argument 3 must be a table of options", 2) end
    gpu._arg.options(opts, "histogram", "range")
    local ok, e = pcall(gpu.histogram_bin_edges, a, bins)
    if not ok then error(type(e) == "string" and e:gsub("^.-gpu%.histogram_bin_edges:", "gpu.histogram:") or e, 2) end
    return gpu.histogramdd({a:reshape(-1)}, {e}):astype("int64"), e
  end
  bins = count(bins or 10, "histogram", "bins")
  if bins == 0 then error("gpu.histogram: bins must be positive", 2) end
  gpu._arg.bins(bins, "histogram", 3)
  if opts ~= nil and type(opts) ~= "table" then error("gpu.histogram: argument 3 must be a table of options", 2) end
  opts = gpu._arg.options(opts, "histogram", "range")
  local lo, hi
  if opts.range ~= nil then
    if type(opts.range) ~= "table" then error("gpu.histogram: range must be a table {lo, hi}", 2) end
    lo, hi = finite(opts.range[1], "histogram", "range[1]"), finite(opts.range[2], "histogram", "range[2]")
    if lo > hi then error(("gpu.histogram: range's lo %s is above its hi %s"):format(show(lo), show(hi)), 2) end
  elseif a.size == 0 then
    lo, hi = 0.0, 1.0
  else
    lo, hi = gpu._arg.extent(a)
    if lo ~= lo or hi ~= hi or lo == -math.huge or hi == math.huge then
      error(("gpu.histogram: the range found in the data, [%s, %s], is not finite: give {range = {lo, hi}}"):format(
        show(lo), show(hi)), 2)
    end
  end
  if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
  local et = (a.dtype == "float32" or a.dtype == "float16") and a.dtype or "float64"
  if et == "float16" and math.max(-lo, hi) > 65504 then et = "float32" end   -- NumPy 1.24's, not inf
  if et == "float16" and hi - lo > 65504 then et = "float32" end
  -- a bin is found from (x - lo) / (hi - lo): a span the dtype cannot hold counted 2e38 in
  -- float32's second of four bins, and dropped every value of float64's (NumPy raises too)
  if hi - lo == math.huge or (et == "float32" and hi - lo > 3.4028234663852886e38) then
    error(("gpu.histogram: the range [%s, %s] is wider than %s holds (hi - lo overflows): give a "
           .. "narrower {range = {lo, hi}}"):format(show(lo), show(hi), et), 2)
  end
  local edges = gpu._arg.distinct_edges(gpu.linspace(lo, hi, bins + 1, {dtype = et}), lo, hi, bins, et, "histogram", show)
  local counts = gpu.zeros(bins, "uint64")
  if a.size > 0 then   -- up to 8192 bins counted in a block's shared memory first
    local shared = bins <= 8192
    local c = config(a.size)
    if shared then c = {math.min(c[1], 1024), c[2], shared = bins * 4} end
    typed(("histogram_%s<%s, %s>"):format(shared and "shared" or "global", CTYPE[a.dtype], CTYPE[et]))[c](
      a:contiguous(), a.size, edges, bins, counts)
  end
  return counts:astype("int64"), edges
end

-- gpu._int_matmul(a, b, dt): a @ b of integer and bool arrays (host/blas.c calls it, the
-- shapes checked, dt their promoted dtype): kernels/builtin.cu's int_matmul on C-ordered
-- copies over the broadcast batch; a 1-D operand is a row (a) or a column (b), dropped after
function gpu._int_matmul(a, b, dt)
  local a2 = a.ndim == 1 and a:unsqueeze(1) or a
  local b2 = b.ndim == 1 and b:unsqueeze(-1) or b
  local m, k, n = a2.shape[a2.ndim - 1], a2.shape[a2.ndim], b2.shape[b2.ndim]
  local nb = math.max(a2.ndim, b2.ndim) - 2
  local batch = {}
  local function dim(x, i)   -- x's batch dim at the broadcast batch's dim i, 1 if none
    local j = i - nb + x.ndim - 2
    return j >= 1 and x.shape[j] or 1
  end
  for i = 1, nb do batch[i] = dim(a2, i) == 1 and dim(b2, i) or dim(a2, i) end
  local function shaped(r, c)
    local s = table.move(batch, 1, nb, 1, {})
    s[nb + 1], s[nb + 2] = r, c
    return s
  end
  local function operand(x, r, c)
    local w = gpu.empty(shaped(r, c), dt)
    if w.size > 0 then w:copy_(x:expand(w.shape)) end
    return w
  end
  local A, B, C = operand(a2, m, k), operand(b2, k, n), gpu.empty(shaped(m, n), dt)
  if C.size > 0 then
    local count = product(batch, 1, nb)
    local grid = {math.min((n + 63) // 64, 65535), math.min((m + 63) // 64, 65535), math.min(count, 65535)}
    local sum = SIZE[dt] == 8 and "unsigned long long" or "unsigned int"
    typed(("int_matmul<%s, %s>"):format(CTYPE[dt], sum))[{grid, {16, 16}}](A, B, C, count, m, n, k)
  end
  if a.ndim == 1 then C = C:squeeze(-2) end
  if b.ndim == 1 then C = C:squeeze(-1) end
  return C
end

-- their arrays on the current device, checked first (a kernel or operation inside named
-- itself); copies and views, made on their arrays' device, take arrays of one device (tile
-- checks a repeat's itself); concatenate and take check theirs themselves
local ALONG = {stack = true, flip = true, meshgrid = true, tile = true}
for _, name in ipairs({"linspace", "eye", "identity", "concatenate", "stack", "flip", "isclose", "allclose",
                       "take", "extract", "nonzero", "diff", "tril", "triu", "diagonal",
                       "meshgrid", "repeat_interleave", "tile", "searchsorted", "histogram"}) do
  local f = gpu[name]
  if name ~= "concatenate" and name ~= "take" then
    f = gpu._arg.on_device(name, f, name == "stack" and {"arrays"} or nil, ALONG[name])
  end
  gpu[name] = gpu._api(f)
end
array_meta.methods.flip = gpu.flip
array_meta.methods.take = gpu.take
array_meta.methods.nonzero, array_meta.methods.diagonal = gpu.nonzero, gpu.diagonal
array_meta.methods.trace = gpu._arg.strict("a:trace", gpu._api(gpu._arg.on_device("a:trace", trace)))
array_meta.methods.searchsorted = gpu.searchsorted
-- a[indices] (along the first dimension), a[mask], a[mask] = v (a number, boolean or
-- gpu.complex): host/array.c's __index and __newindex call these
array_meta.methods._take_rows = gpu._api(function(a, idx) return gpu.take(a, idx, 1) end, 3)
-- a and the mask of a[mask] (what) on the current device, as gpu._arg.here words it
local function mask_here(what, a, mask)
  local ok, e = pcall(gpu._arg.here, "", {mask, "the mask", a, "a"})
  if not ok then error(what .. gpu._arg.unwrapped(e):gsub("^gpu%.", ""), 3) end
end
array_meta.methods._extract = gpu._api(function(a, mask)
  mask_here("a[mask]", a, mask)
  return gpu.extract(mask, a)
end, 3)
array_meta.methods._put_mask = gpu._api(function(a, mask, v)
  mask_here("a[mask] = v", a, mask)
  if type(v) ~= "number" and type(v) ~= "boolean" and not gpu._arg.is_complex(v) then
    error(("a[mask] = v takes a number, a boolean or a gpu.complex, got %s: for arrays use gpu.where(mask, v, a, {out = a})"):format(
      is_array(v) and "an array" or described(v)), 2)
  end
  local ms, as = mask.shape, a.shape
  mask = bool_mask(mask, a, "a[mask] = v")
  for _ = #ms + 1, #as do mask = mask:unsqueeze(-1) end
  if type(v) ~= "number" and type(v) ~= "boolean" then   -- a gpu.complex: where takes arrays
    if not a.dtype:match("complex") then   -- (where said the result (complex128) cannot be cast)
      error(("a[mask] = v: cannot store %s, a complex value, in a %s array"):format(tostring(v), a.dtype), 2)
    end
    v = gpu.full({}, v, a.dtype)
  else   -- a Lua value takes a's dtype, checked, as a[{...}] = v takes it (not where's promotion)
    local ok, z = pcall(gpu.full, {}, v, a.dtype)
    if not ok then error(("a[mask] = v: %s"):format(tostring(z):match("%((.*)%)$") or tostring(z)), 2) end
    v = z
  end
  local ok, e = pcall(gpu.where, mask, v, a, {out = a})
  if not ok then error(type(e) == "string" and e:gsub("gpu%.where:", "a[mask] = v:", 1) or e, 2) end
end, 3)
