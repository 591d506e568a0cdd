-- functional.lua: NumPy's remaining general functions: applying a Lua function along or over
-- dimensions (apply_along_axis, apply_over_axes, piecewise, fromfunction), bits packed in
-- uint8 (packbits, unpackbits), a few shape, sort and polynomial helpers, NumPy's deprecated
-- aliases, and the dtype helpers (promote_types, can_cast, finfo, iinfo, ...), these built on
-- gpu.result_type (host/promote.c's rules) with no table of their own. Loaded at the first
-- call of one (lua/gpu.lua). Dimensions and indices are 1-based, negative from the end.
local gpu = ...

local is_array, described = gpu._is_array, gpu._described
local dim_of = gpu._arg.dim_of

-- Every check raises through here, at level 0: gpu._api puts the caller's line on it
local function fail(api, at, fmt, ...)
  error(("bad argument #%d to 'gpu.%s' (" .. fmt .. ")"):format(at, api, ...), 0)
end

local function array_arg(v, api, at)
  if not is_array(v) then fail(api, at, "device array expected, got %s", described(v)) end
  return v
end

local function callable(f)
  if type(f) == "function" then return true end
  local mt = getmetatable(f)
  return type(mt) == "table" and mt.__call ~= nil
end

local function function_arg(f, api, at)
  if not callable(f) then fail(api, at, "function expected, got %s", described(f)) end
  return f
end

local function integer_arg(v, api, at, what)
  if math.type(v) == "float" and v == math.floor(v) then v = math.tointeger(v) or v end
  if math.type(v) ~= "integer" then
    fail(api, at, "%s must be an integer, got %s", what, type(v) == "number" and gpu._arg.shown(v) or described(v))
  end
  return v
end

local product = gpu._arg.product

local function shape_text(s) return "{" .. table.concat(s, ", ") .. "}" end

-- A result a user's function gave: a device array, or a number or boolean as a 0-D one
local function as_result(r, api)
  if is_array(r) then return r end
  if type(r) == "number" or type(r) == "boolean" then return gpu.asarray(r) end
  error(("gpu.%s: the function must return a device array, a number or a boolean, got %s")
        :format(api, described(r)), 0)
end

------------------------------------------------------------------------------------------
-- dtypes

local KIND, SIZE, NAME, SMALLEST = {}, {}, {}, {}
for _, d in ipairs(gpu._dtypes) do
  KIND[d.name], SIZE[d.name], NAME[d.name] = d.kind, d.size, d.name
  for _, a in ipairs(d.aliases) do NAME[a] = d.name end
  if not SMALLEST[d.kind] or d.size < SIZE[SMALLEST[d.kind]] then SMALLEST[d.kind] = d.name end
end

-- A dtype name (or alias), or an array's dtype, as its canonical name
local function dtype_arg(t, api, at)
  if is_array(t) then return t.dtype end
  local n = type(t) == "string" and NAME[t]
  if not n then
    fail(api, at, "dtype name or device array expected, got %s", type(t) == "string" and "'" .. t .. "'" or described(t))
  end
  return n
end

-- NumPy's one-character codes, for mintypecode and typename
local CHAR = {float16 = "e", float32 = "f", float64 = "d", complex64 = "F", complex128 = "D", int8 = "b", uint8 = "B",
              int16 = "h", uint16 = "H", int32 = "i", uint32 = "I", int64 = "l", uint64 = "L", bool = "?"}

function gpu.promote_types(t1, t2)
  return gpu.result_type(dtype_arg(t1, "promote_types", 1), dtype_arg(t2, "promote_types", 2))
end

-- NumPy's min_scalar_type of a Lua value: the smallest dtype that holds it. NumPy's bounds
-- for a float: float16 inside +-65000 (or not finite), float32 inside +-3.4e38; a complex:
-- complex64 when both parts are inside +-3.4e38 (so not nan or inf)
local function fits_float32(x) return math.abs(x) < 3.4e38 end
local function float_type(x)
  local a = math.abs(x)
  if a < 65000 or a ~= a or a == math.huge then return "float16" end
  return a < 3.4e38 and "float32" or "float64"
end
local function int_type(v)
  if v >= 0 then
    return v < 256 and "uint8" or v < 65536 and "uint16" or v < 4294967296 and "uint32" or "uint64"
  end
  return v >= -128 and "int8" or v >= -32768 and "int16" or v >= -2147483648 and "int32" or "int64"
end
local function scalar_type(v, api)
  if type(v) == "boolean" then return "bool" end
  if math.type(v) == "integer" then return int_type(v) end
  if math.type(v) == "float" then return float_type(v) end
  if gpu._arg.is_complex(v) then
    return fits_float32(v.re) and fits_float32(v.im) and "complex64" or "complex128"
  end
  fail(api, 1, "number, boolean, gpu.complex or device array expected, got %s", described(v))
end

function gpu.min_scalar_type(v)
  if is_array(v) then
    if v.ndim > 0 or KIND[v.dtype] == "b" then return v.dtype end
    local x = v:item()   -- a 0-D array goes by its value, as NumPy's
    if v.dtype == "uint64" and math.type(x) == "integer" and x < 0 then return "uint64" end
    local t = scalar_type(x, "min_scalar_type")
    -- never wider than the array's own dtype (a float16 0-D array of 65504 stays float16)
    if KIND[t] == KIND[v.dtype] and SIZE[t] > SIZE[v.dtype] then return v.dtype end
    return t
  end
  return scalar_type(v, "min_scalar_type")
end

local function safe(from, to) return gpu.result_type(from, to) == to end
local CASTING = {
  no = function(from, to) return from == to end,
  equiv = function(from, to) return from == to end,
  safe = safe,
  -- within a kind or up the order bool, unsigned, signed, float, complex: what the
  -- smallest type of from's kind promotes to with `to` is still of to's kind
  same_kind = function(from, to)
    return safe(from, to) or KIND[gpu.result_type(SMALLEST[KIND[from]], to)] == KIND[to]
  end,
  unsafe = function() return true end,
}

-- can_cast of a Lua number goes by its value, as NumPy 1.24's: a non-negative integer
-- also as the smallest signed type that holds it
function gpu.can_cast(from, to, casting)
  to = dtype_arg(to, "can_cast", 2)
  if casting == nil then casting = "safe" end
  local rule = CASTING[casting]
  if not rule then
    fail("can_cast", 3, "casting must be 'no', 'equiv', 'safe', 'same_kind' or 'unsafe', got %s",
         type(casting) == "string" and "'" .. casting .. "'" or described(casting))
  end
  if is_array(from) or type(from) == "string" then return rule(dtype_arg(from, "can_cast", 1), to) end
  local t = scalar_type(from, "can_cast")
  if math.type(from) == "integer" and from >= 0 and KIND[to] == "i" then
    local signed = from < 128 and "int8" or from < 32768 and "int16" or from < 2147483648 and "int32" or "int64"
    return rule(t, to) or rule(signed, to)
  end
  return rule(t, to)
end

function gpu.common_type(...)
  local n = select("#", ...)
  if n == 0 then error("gpu.common_type: no arrays given", 0) end
  local bits, complex = 0, false
  for i = 1, n do
    local a = array_arg(select(i, ...), "common_type", i)
    local k = KIND[a.dtype]
    if k == "b" then fail("common_type", i, "numeric array expected, got a bool array") end
    local b = (k == "f" and SIZE[a.dtype]) or (k == "c" and SIZE[a.dtype] / 2) or 8
    bits, complex = math.max(bits, b), complex or k == "c"
  end
  if complex then return bits <= 4 and "complex64" or "complex128" end
  return bits == 2 and "float16" or bits == 4 and "float32" or "float64"
end

local BY_SIZE = "GDFgdfQqLlIiHhBb?"   -- NumPy's codes, largest first (float16's "e" not among them)
function gpu.mintypecode(typechars, typeset, default)
  typeset, default = typeset or "GDFgdf", default or "d"
  if type(typeset) ~= "string" then fail("mintypecode", 2, "string expected, got %s", described(typeset)) end
  if type(default) ~= "string" then fail("mintypecode", 3, "string expected, got %s", described(default)) end
  local codes = {}
  if type(typechars) == "string" then
    for c in typechars:gmatch(".") do codes[#codes + 1] = c end
  elseif type(typechars) == "table" and not is_array(typechars) then
    gpu._arg.array_list(typechars, "mintypecode", "the table of codes", 1)
    for i = 1, #typechars do
      local t = typechars[i]
      codes[i] = (is_array(t) and CHAR[t.dtype]) or (type(t) == "string" and (CHAR[NAME[t] or ""] or t)) or
                 fail("mintypecode", 1, "type codes, dtype names or device arrays expected, got %s at %d", described(t), i)
    end
  else
    fail("mintypecode", 1, "string or table expected, got %s", described(typechars))
  end
  local found, best = {}, nil
  for _, c in ipairs(codes) do
    if #c == 1 and typeset:find(c, 1, true) then found[c] = true end
  end
  if next(found) == nil then return default end
  if found.F and found.d then return "D" end
  -- the largest of those found (NumPy's first in its order by size)
  for c in BY_SIZE:gmatch(".") do if found[c] and not best then best = c end end
  for c in pairs(found) do if not BY_SIZE:find(c, 1, true) then best = nil end end   -- NumPy raises
  if not best then fail("mintypecode", 2, "no size order for the codes %s (NumPy's: %s)", table.concat((function()
    local t = {} for c in pairs(found) do t[#t + 1] = c end table.sort(t) return t end)(), ", "), BY_SIZE) end
  return best
end

local KINDS = {integer = "iu", signedinteger = "i", unsignedinteger = "u", floating = "f", complexfloating = "c",
               number = "iufc", inexact = "fc", generic = "iufcb"}
function gpu.issubdtype(t, kind)
  t = dtype_arg(t, "issubdtype", 1)
  if KINDS[kind] then return KINDS[kind]:find(KIND[t], 1, true) ~= nil end
  if type(kind) == "string" and NAME[kind] then return NAME[kind] == t end
  fail("issubdtype", 2, "a kind (%s) or a dtype name expected, got %s",
       "integer, signedinteger, unsignedinteger, floating, complexfloating, number, inexact, generic, bool",
       type(kind) == "string" and "'" .. kind .. "'" or described(kind))
end

function gpu.isscalar(v)
  local t = type(v)
  return t == "number" or t == "string" or t == "boolean" or gpu._arg.is_complex(v)
end

function gpu.iterable(v)
  if is_array(v) then return v.ndim > 0 end
  if type(v) == "userdata" and getmetatable(v) == gpu._meta.hostarray then return #v.shape > 0 end
  return type(v) == "table" or type(v) == "string"
end

local TYPENAME = {S1 = "character", ["?"] = "bool", b = "signed char", B = "unsigned char", h = "short",
                  H = "unsigned short", i = "integer", I = "unsigned integer", l = "long integer",
                  L = "unsigned long integer", q = "long long integer", Q = "unsigned long long integer",
                  e = "half precision", f = "single precision", d = "double precision", g = "long precision",
                  F = "complex single precision", D = "complex double precision",
                  G = "complex long double precision", S = "string", U = "unicode", V = "void", O = "object"}
function gpu.typename(c)
  if type(c) == "string" and NAME[c] then c = CHAR[NAME[c]] end
  local s = type(c) == "string" and TYPENAME[c]
  if not s then fail("typename", 1, "a type code or dtype name expected, got %s", type(c) == "string" and "'" .. c .. "'" or described(c)) end
  return s
end

local DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
function gpu.base_repr(n, base, padding)
  n = integer_arg(n, "base_repr", 1, "number")
  base = integer_arg(base == nil and 2 or base, "base_repr", 2, "base")
  padding = integer_arg(padding == nil and 0 or padding, "base_repr", 3, "padding")
  if base < 2 or base > 36 then fail("base_repr", 2, "base must be from 2 to 36, got %d", base) end
  if padding < 0 then fail("base_repr", 3, "padding must be non-negative, got %d", padding) end
  local u, out = n < 0 and -n or n, {}   -- -math.mininteger wraps to itself: 2^63 unsigned
  while u ~= 0 do
    -- unsigned division by base (u may be 2^63 and up, a negative Lua integer)
    local q = ((u >> 1) // base) << 1
    local r = u - q * base
    if math.ult(r, base) then q = q else q, r = q + 1, r - base end
    out[#out + 1] = DIGITS:sub(r + 1, r + 1)
    u = q
  end
  local s = string.rep("0", padding) .. table.concat(out):reverse()
  if n < 0 then s = "-" .. s end
  return s == "" and "0" or s
end

function gpu.binary_repr(n, width)
  n = integer_arg(n, "binary_repr", 1, "number")
  if width ~= nil then
    width = integer_arg(width, "binary_repr", 2, "width")
    if width < 0 then fail("binary_repr", 2, "width must be non-negative, got %d", width) end
  end
  local sign = ""
  if n < 0 and width == nil then sign, n = "-", -n end   -- math.mininteger stays: 2^63 unsigned
  local m = 1   -- the fewest bits that hold n (unsigned; two's complement for a negative n)
  if sign ~= "" or n >= 0 then
    while m < 64 and (n >> m) ~= 0 do m = m + 1 end
  else
    while m < 64 and n < -(1 << (m - 1)) do m = m + 1 end
  end
  local bits = {}
  for i = m - 1, 0, -1 do bits[#bits + 1] = (n >> i) & 1 end
  local s = table.concat(bits)
  if width and width > m then s = string.rep(n < 0 and "1" or "0", width - m) .. s end
  return sign .. s   -- a width too small gives the bits that n needs, as NumPy 1.24 (with a warning there)
end

-- NumPy's finfo and iinfo numbers
local FINFO = {
  float16 = {bits = 16, eps = 0x1p-10, epsneg = 0x1p-11, max = 65504.0, min = -65504.0, tiny = 0x1p-14,
             smallest_normal = 0x1p-14, smallest_subnormal = 0x1p-24, resolution = 0x1.064p-10, precision = 3,
             iexp = 5, machep = -10, maxexp = 16, minexp = -14, negep = -11, nexp = 5, nmant = 10, dtype = "float16"},
  float32 = {bits = 32, eps = 0x1p-23, epsneg = 0x1p-24, max = 0x1.fffffep+127, min = -0x1.fffffep+127,
             tiny = 0x1p-126, smallest_normal = 0x1p-126, smallest_subnormal = 0x1p-149,
             resolution = 0x1.0c6f7ap-20, precision = 6, iexp = 8, machep = -23, maxexp = 128, minexp = -126,
             negep = -24, nexp = 8, nmant = 23, dtype = "float32"},
  float64 = {bits = 64, eps = 0x1p-52, epsneg = 0x1p-53, max = 0x1.fffffffffffffp+1023,
             min = -0x1.fffffffffffffp+1023, tiny = 0x1p-1022, smallest_normal = 0x1p-1022,
             smallest_subnormal = 0x0.0000000000001p-1022, resolution = 1e-15, precision = 15, iexp = 11,
             machep = -52, maxexp = 1024, minexp = -1022, negep = -53, nexp = 11, nmant = 52, dtype = "float64"},
}
function gpu.finfo(t)
  t = dtype_arg(t, "finfo", 1)
  local k = KIND[t]
  if k ~= "f" and k ~= "c" then fail("finfo", 1, "float or complex dtype expected, got %s", t) end
  local f = FINFO[t == "float16" and t or (t == "complex64" or t == "float32") and "float32" or "float64"]
  local r = {}
  for key, v in pairs(f) do r[key] = v end
  return r
end

function gpu.iinfo(t)
  t = dtype_arg(t, "iinfo", 1)
  local k = KIND[t]
  if k ~= "i" and k ~= "u" then fail("iinfo", 1, "integer dtype expected, got %s", t) end
  local bits = 8 * SIZE[t]
  local lo, hi
  if k == "u" then lo, hi = 0, bits == 64 and 0x1p64 or (1 << bits) - 1
  else lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1 end
  return {bits = bits, min = lo, max = hi, kind = k, dtype = t}
end

------------------------------------------------------------------------------------------
-- Applying functions

-- The C-order successor of the 1-based index tuple idx within shape (in place)
local function next_index(idx, shape)
  for k = #shape, 1, -1 do
    if idx[k] < shape[k] then idx[k] = idx[k] + 1; return end
    idx[k] = 1
  end
end

-- gpu.apply_along_axis(f, dim, a, ...): f called with each 1-D slice of a along dim (and
-- the extra arguments); its results (of one shape) take dim's place
function gpu.apply_along_axis(f, dim, a, ...)
  local api = "apply_along_axis"
  function_arg(f, api, 1)
  array_arg(a, api, 3)
  if a.ndim == 0 then fail(api, 3, "array of at least 1 dimension expected, got a 0-D array") end
  local d = dim_of(dim, a.ndim, api)
  local b = gpu.moveaxis(a, d, -1)
  local outer = {}
  for k = 1, a.ndim - 1 do outer[k] = b.shape[k] end
  local n = product(outer)
  if n == 0 then
    error(("gpu.apply_along_axis: cannot apply along dimension %d of a %s array: another dimension is empty")
          :format(d, shape_text(a.shape)), 0)
  end
  local idx, out, rshape = {}, nil, nil
  for k = 1, #outer do idx[k] = 1 end
  for _ = 1, n do
    local slice = #idx == 0 and b or b[idx]
    local r = as_result(f(slice, ...), api)
    if not out then
      rshape = r.shape
      local s = {table.unpack(outer)}
      for _, v in ipairs(rshape) do s[#s + 1] = v end
      out = gpu.with_device(a.device, gpu.empty, s, r.dtype)
    elseif shape_text(r.shape) ~= shape_text(rshape) then
      error(("gpu.apply_along_axis: the function returned a %s array, then a %s one")
            :format(shape_text(rshape), shape_text(r.shape)), 0)
    end
    local place = #idx == 0 and out or out[idx]
    place:copy_(r)
    next_index(idx, outer)
  end
  -- out holds the outer dimensions, then the result's: these go where dim was
  local perm, no, nr = {}, #outer, #rshape
  for k = 1, d - 1 do perm[#perm + 1] = k end
  for k = 1, nr do perm[#perm + 1] = no + k end
  for k = d, no do perm[#perm + 1] = k end
  if #perm < 2 then return out end
  return gpu.transpose(out, perm)
end

-- gpu.apply_over_axes(f, a, dims): f(a, dim) for each dim in turn, a result with one
-- dimension fewer given it back as size 1
function gpu.apply_over_axes(f, a, dims)
  local api = "apply_over_axes"
  function_arg(f, api, 1)
  array_arg(a, api, 2)
  if type(dims) ~= "table" then dims = {dims} end
  gpu._arg.list(dims, api, "dims")   -- ({1, nil, 3} was {1})
  local val, nd = a, a.ndim
  for _, dim in ipairs(dims) do
    local d = dim_of(dim, nd, api)
    local r = as_result(f(val, d), api)
    if r.ndim == val.ndim - 1 then
      r = gpu.expand_dims(r, d)
    elseif r.ndim ~= val.ndim then
      error(("gpu.apply_over_axes: the function must return an array of %d or %d dimensions, got %d")
            :format(val.ndim, val.ndim - 1, r.ndim), 0)
    end
    val = r
  end
  return val
end

-- gpu.piecewise(x, condlist, funclist, ...): funclist[k] (a function of x's elements where
-- condition k holds, or a value) there, the last of n + 1 where none holds; 0 elsewhere
function gpu.piecewise(x, condlist, funclist, ...)
  local api = "piecewise"
  if type(x) == "number" or type(x) == "boolean" then x = gpu.asarray(x) end
  array_arg(x, api, 1)
  if is_array(condlist) or type(condlist) == "boolean" then condlist = {condlist} end
  if type(condlist) ~= "table" then fail(api, 2, "table of bool arrays expected, got %s", described(condlist)) end
  if type(funclist) ~= "table" or is_array(funclist) then
    fail(api, 3, "table of functions and values expected, got %s", described(funclist))
  end
  gpu._arg.array_list(condlist, api, "condlist", 1)
  gpu._arg.array_list(funclist, api, "funclist", 1)
  local n, conds = #condlist, {}
  for k = 1, n do
    local c = condlist[k]
    if type(c) == "boolean" then
      c = gpu.with_device(x.device, gpu.full, x.shape, c, "bool")
    elseif not is_array(c) then
      fail(api, 2, "condition %d must be a bool array or a boolean, got %s", k, described(c))
    elseif c.dtype ~= "bool" then
      c = c:ne(0)
    end
    if shape_text(c.shape) ~= shape_text(x.shape) then
      fail(api, 2, "condition %d has shape %s, x %s", k, shape_text(c.shape), shape_text(x.shape))
    end
    conds[k] = c
  end
  if #funclist == n + 1 then
    local any = gpu.with_device(x.device, gpu.zeros, x.shape, "bool")
    for _, c in ipairs(conds) do any = gpu.logical_or(any, c) end
    conds[n + 1] = gpu.logical_not(any)
  elseif #funclist ~= n then
    fail(api, 3, "%d or %d functions expected for %d conditions, got %d", n, n + 1, n, #funclist)
  end
  local y = gpu.zeros_like(x)
  for k = 1, #funclist do
    local c, item = conds[k], funclist[k]
    if callable(item) then
      local vals = gpu.extract(c, x)
      if vals.size > 0 then
        local r = item(vals, ...)
        if type(r) == "number" or type(r) == "boolean" then y[c] = r
        elseif is_array(r) and r.size ~= 1 and r.size ~= vals.size then
          error(("gpu.piecewise: function %d gave %d values for the %d where its condition is true"):format(k, r.size, vals.size), 0)
        elseif is_array(r) then gpu.place(y, c, r.dtype == y.dtype and r or r:astype(y.dtype))   -- cast as NumPy's y[c] = r
        else error(("gpu.piecewise: function %d must return a device array or a number, got %s"):format(k, described(r)), 0) end
      end
    elseif type(item) == "number" or type(item) == "boolean" then
      y[c] = item
    else
      fail(api, 3, "entry %d must be a function or a number, got %s", k, described(item))
    end
  end
  return y
end

-- gpu.fromfunction(f, shape [, dtype]): f called once with gpu.indices' planes (1-based)
function gpu.fromfunction(f, shape, dtype)
  function_arg(f, "fromfunction", 1)
  if type(shape) == "number" then shape = {shape} end
  if type(shape) ~= "table" or is_array(shape) then fail("fromfunction", 2, "shape expected, got %s", described(shape)) end
  local idx = gpu.indices(shape, dtype or "float64")
  local planes = {}
  for k = 1, #shape do planes[k] = idx[{k}] end
  return f(table.unpack(planes, 1, #shape))
end

------------------------------------------------------------------------------------------
-- Bits

local function bitorder_arg(v, api, at)
  if v == nil or v == "big" then return "big" end
  if v == "little" then return "little" end
  fail(api, at, "bitorder must be 'big' or 'little', got %s", type(v) == "string" and "'" .. v .. "'" or described(v))
end

-- The dim argument (nil: a flattened) and the array with that dim last, C-ordered
local function along_last(a, dim, api)
  if dim == nil then return gpu.ravel(a):contiguous(), nil end
  if a.ndim == 0 then fail(api, 2, "dim given for a 0-D array") end
  local d = dim_of(dim, a.ndim, api)
  return gpu.moveaxis(a, d, -1):contiguous(), d
end

local function back(r, d)
  if d == nil then return r end
  return gpu.moveaxis(r, -1, d):contiguous()
end

-- kernels/builtin.cu's packbits and unpackbits, one module, compiled at the first use
local bits_kernel = gpu._builtins({"packbits", "unpackbits"})
local function config(n) return {math.max(1, math.min(65536, (n + 255) // 256)), 256} end

-- gpu.packbits(a [, dim] [, bitorder]): each 8 elements (nonzero or not) along dim (of a
-- flattened) as one uint8, zeros after the last
function gpu.packbits(a, dim, bitorder)
  local api = "packbits"
  array_arg(a, api, 1)
  local k = KIND[a.dtype]
  if k ~= "b" and k ~= "i" and k ~= "u" then fail(api, 1, "integer or bool array expected, got %s", a.dtype) end
  if type(dim) == "string" and bitorder == nil then dim, bitorder = nil, dim end
  local little = bitorder_arg(bitorder, api, 3) == "little"
  local b, d = along_last(k == "b" and a or a:ne(0), dim, api)
  local s = {table.unpack(b.shape)}
  local n = s[#s]
  local m = (n + 7) // 8
  s[#s] = m
  local out = gpu.with_device(a.device, gpu.empty, s, "uint8")
  local rows = n > 0 and b.size // n or out.size // math.max(m, 1)
  if out.size > 0 then
    bits_kernel("packbits")[config(out.size)](b, out, rows, n, m, little and 1 or 0)
  end
  return back(out, d)
end

-- gpu.unpackbits(a [, dim] [, count] [, bitorder]): the bits of uint8 a along dim (of a
-- flattened), 8 elements each; count keeps that many (negative: drops that many at the end,
-- at most all 8 * n of them, as NumPy's)
function gpu.unpackbits(a, dim, count, bitorder)
  local api = "unpackbits"
  array_arg(a, api, 1)
  if a.dtype ~= "uint8" then fail(api, 1, "uint8 array expected, got %s", a.dtype) end
  local little = bitorder_arg(bitorder, api, 4) == "little"
  if count ~= nil then count = integer_arg(count, api, 3, "count") end
  local b, d = along_last(a, dim, api)
  local s = {table.unpack(b.shape)}
  local n = s[#s]
  if count ~= nil and count < -8 * n then
    fail(api, 3, "count must not drop more than the %d bits there, got %d", 8 * n, count)
  end
  local want = count == nil and 8 * n or count >= 0 and count or 8 * n + count
  s[#s] = want
  local out = gpu.with_device(a.device, gpu.empty, s, "uint8")
  if out.size > 0 then
    bits_kernel("unpackbits")[config(out.size)](b, out, out.size // want, n, want, little and 1 or 0)
  end
  return back(out, d)
end

------------------------------------------------------------------------------------------
-- Shapes, sorts, polynomials

-- gpu.rollaxis(a, dim [, start]): dimension dim moved to just before dimension start
-- (1 by default; ndim + 1 puts it last), a view
function gpu.rollaxis(a, dim, start)
  local api = "rollaxis"
  array_arg(a, api, 1)
  local nd = a.ndim
  local d = dim_of(dim, nd, api)
  local s = start == nil and 1 or integer_arg(start, api, 3, "start")
  if s < 0 then s = nd + 1 + s end
  if s < 1 or s > nd + 1 then
    fail(api, 3, "start must be from %d to %d, got %s", -nd, nd + 1, gpu._arg.shown(start))
  end
  if d < s then s = s - 1 end
  if d == s then return a[{}] end
  return gpu.moveaxis(a, d, s)
end

-- gpu.msort(a): a copy sorted along its first dimension (complex numbers as sort_complex)
function gpu.msort(a)
  array_arg(a, "msort", 1)
  if a.ndim == 0 then fail("msort", 1, "array of at least 1 dimension expected, got a 0-D array") end
  if KIND[a.dtype] == "c" then return gpu.moveaxis(gpu.sort_complex(gpu.moveaxis(a, 1, -1)), -1, 1):contiguous() end
  return gpu.sort(a, 1, {indices = false})
end

-- gpu.sort_complex(a): complex, sorted along the last dimension by the real part, then the
-- imaginary (two stable sorts); real arrays are sorted and made complex as NumPy makes them
local SMALL = {int8 = true, uint8 = true, int16 = true, uint16 = true}
function gpu.sort_complex(a)
  array_arg(a, "sort_complex", 1)
  if a.ndim == 0 then fail("sort_complex", 1, "array of at least 1 dimension expected, got a 0-D array") end
  if KIND[a.dtype] ~= "c" then
    return gpu.sort(a, -1, {indices = false}):astype(SMALL[a.dtype] and "complex64" or "complex128")
  end
  local _, i = gpu.sort(gpu.imag(a), -1)
  local b = gpu.take_along_axis(a, i, -1)
  _, i = gpu.sort(gpu.real(b), -1)
  return gpu.take_along_axis(b, i, -1)
end

-- gpu.poly(seq): the coefficients (highest power first) of the monic polynomial whose roots
-- are seq (1-D), or of a square matrix's characteristic polynomial
function gpu.poly(seq)
  local api = "poly"
  if type(seq) == "number" then seq = {seq} end
  if type(seq) == "table" and not is_array(seq) then seq = gpu.array(seq, "float64") end
  array_arg(seq, api, 1)
  local r
  if seq.ndim == 2 and seq.shape[1] == seq.shape[2] and seq.shape[1] > 0 then
    r = gpu.linalg.eigvals(seq)
  elseif seq.ndim <= 1 then
    r = seq.ndim == 0 and seq:reshape(1) or seq
    if (KIND[r.dtype] ~= "f" and KIND[r.dtype] ~= "c") or r.dtype == "float16" then r = r:astype("float64") end
  else
    fail(api, 1, "1-D roots or a non-empty square matrix expected, got a %s array", shape_text(seq.shape))
  end
  local n = r.shape[1]
  if n == 0 then return 1.0 end
  local one = gpu.with_device(r.device, gpu.ones, 1, r.dtype)
  local zero = gpu.with_device(r.device, gpu.zeros, 1, r.dtype)
  local c = one
  for k = 1, n do
    -- c(x) (x - r_k): c shifted up one power, less r_k times c
    c = gpu.concatenate({c, zero}) - r:narrow(1, k, 1) * gpu.concatenate({zero, c})
    c[{1}] = 1   -- exactly, also where r_k is NaN or infinite (1 - r_k * 0 is NaN), as NumPy's
  end
  if KIND[c.dtype] == "c" and gpu.array_equal(gpu.sort_complex(r), gpu.sort_complex(gpu.conj(r))) then
    c = gpu.real(c):copy()   -- roots in conjugate pairs: real coefficients, as NumPy gives
  end
  return c
end

-- gpu.mask_indices(n, mask_func [, k]): the 1-based indices where mask_func(ones(n, n), k)
-- is nonzero, rows then columns
function gpu.mask_indices(n, mask_func, k)
  local api = "mask_indices"
  n = integer_arg(n, api, 1, "n")
  if n < 0 then fail(api, 1, "n must be non-negative, got %d", n) end
  function_arg(mask_func, api, 2)
  local m = as_result(mask_func(gpu.ones({n, n}, "int64"), k == nil and 0 or k), api)
  return gpu.nonzero(m:ne(0))
end

------------------------------------------------------------------------------------------
-- Checks and conversions

-- An array argument, or a Lua number or boolean as a 0-D array, or a table
local function array_like(v, api, at)
  if is_array(v) then return v end
  if type(v) == "number" or type(v) == "boolean" or type(v) == "table" then return gpu.asarray(v) end
  fail(api, at, "device array, table or number expected, got %s", described(v))
end

function gpu.array_equiv(a1, a2)
  a1, a2 = array_like(a1, "array_equiv", 1), array_like(a2, "array_equiv", 2)
  local ok, why = pcall(gpu.broadcast_shapes, a1.shape, a2.shape)
  if not ok and tostring(why):find("does not broadcast", 1, true) then return false end
  if a1.size == 0 or a2.size == 0 then return true end
  if not ok then   -- past 2^48 elements: NumPy's broadcast fails past 2^63 - 1 (False)
    local s1, s2, shape, count = a1.shape, a2.shape, {}, 1
    for k = 1, math.max(#s1, #s2) do
      local n = math.max(s1[#s1 - k + 1] or 1, s2[#s2 - k + 1] or 1)
      if count > math.maxinteger // n then return false end
      shape[math.max(#s1, #s2) - k + 1], count = n, count * n
    end
    error(("gpu.array_equiv: the broadcast shape {%s} is too large: more elements than an array holds (2^48)")
          :format(table.concat(shape, ", ")), 2)
  end
  return gpu.all(a1:eq(a2))
end

function gpu.asarray_chkfinite(a, dtype)
  if dtype ~= nil then dtype = dtype_arg(dtype, "asarray_chkfinite", 2) end
  local r = gpu.asarray(array_like(a, "asarray_chkfinite", 1), dtype)
  local k = KIND[r.dtype]
  if (k == "f" or k == "c") and r.size > 0 and not gpu.all(gpu.isfinite(r)) then
    error("gpu.asarray_chkfinite: array must not contain infs or NaNs", 0)
  end
  return r
end

local function writeable(a) return a:_writeable() end

local FLAGS = {C = "C", CONTIGUOUS = "C", C_CONTIGUOUS = "C", W = "W", WRITEABLE = "W", O = "O", OWNDATA = "O",
               A = "A", ALIGNED = "A", E = "E", ENSUREARRAY = "E"}
-- gpu.require(a [, dtype] [, requirements]): a, or a copy, of dtype with the flags asked for
function gpu.require(a, dtype, requirements)
  local api = "require"
  if requirements == nil and (type(dtype) == "table" or (type(dtype) == "string" and not NAME[dtype])) then
    dtype, requirements = nil, dtype
  end
  if dtype ~= nil then dtype = dtype_arg(dtype, api, 2) end
  if type(requirements) == "string" then requirements = {requirements} end
  if requirements ~= nil and type(requirements) ~= "table" then
    fail(api, 3, "flag or table of flags expected, got %s", described(requirements))
  end
  local want = {}
  for _, f in ipairs(requirements or {}) do
    local u = type(f) == "string" and f:upper()
    if u == "F" or u == "F_CONTIGUOUS" or u == "FORTRAN" then
      fail(api, 3, "flag '%s': gpuhost arrays are C-ordered, a Fortran-ordered one cannot be given", f)
    end
    if not FLAGS[u] then
      fail(api, 3, "flag %s is not one of C, W, O, A, E (CONTIGUOUS, WRITEABLE, OWNDATA, ALIGNED, ENSUREARRAY)",
           type(f) == "string" and "'" .. f .. "'" or described(f))
    end
    want[FLAGS[u]] = true
  end
  local r = gpu.asarray(array_like(a, api, 1), dtype)
  if (want.C and not r:is_contiguous()) or (want.O and r.base ~= nil) or (want.W and not writeable(r)) then
    r = r:copy()
  end
  return r
end

------------------------------------------------------------------------------------------
-- NumPy's deprecated names

-- (through gpu._api: an error names the caller's line, not this file's)
gpu.cumproduct = gpu._api(function(...) return gpu.cumprod(...) end)
gpu.product = gpu._api(function(...) return gpu.prod(...) end)
gpu.alltrue = gpu._api(function(...) return gpu.all(...) end)
gpu.sometrue = gpu._api(function(...) return gpu.any(...) end)

local NAMES = {"promote_types", "can_cast", "min_scalar_type", "common_type", "mintypecode", "issubdtype",
               "typename", "base_repr", "binary_repr", "finfo", "iinfo", "apply_along_axis", "apply_over_axes",
               "piecewise", "fromfunction", "packbits", "unpackbits", "rollaxis", "msort", "sort_complex", "poly",
               "mask_indices", "array_equiv", "asarray_chkfinite", "require"}
for _, name in ipairs(NAMES) do gpu[name] = gpu._api(gpu[name]) end
