-- gpu.lua: the parts of the gpu module written in Lua: kernels and modules (reading
-- declarations, the compile cache, where a kernel's source sits in its script), array
-- constructors built on the module's own kernels (kernels/builtin.cu), random numbers,
-- dtype names and printing. The C parts (host/*.c) run first and pass the table in.
local gpu = ...

-- gpu._api(f [, level]): f, for a public function written in Lua, whose errors name the
-- caller's line as a C function's do. An error naming a line of gpuhost's own Lua files (a
-- C function or an array's method called there, a check raised at a level that counted
-- wrong) or no line at all is raised again at the caller's line (`level`, from the
-- wrapper: 2, its caller; 3 where C calls it for the user, as a dispatcher does), without
-- gpuhost's line; one naming another line (the caller's own, a line of a function it
-- passed) and error objects go on unchanged.
local function relocate(level, relabel, ok, ...)
  if ok then return ... end
  local e = ...
  if relabel then e = relabel(e) end
  if type(e) == "string" then
    local s, own, k = e, 0, 0
    repeat s, k = s:gsub("^%[gpu%] lua/[%w_/]+%.lua:%d+: ", ""); own = own + k until k == 0
    local chunk = s:match("^(.-):%d+: ")
    if own > 0 or not chunk or chunk:find(": ", 1, true) then error(s, level) end
  end
  error(e, 0)
end
local arity = setmetatable({}, {__mode = "k"})   -- a wrapper -> the parameters of the f it wraps
function gpu._api(f, level, relabel)   -- relabel(e): the error as it goes on (a builder's)
  level = level or 2
  local w = function(...) return relocate(level, relabel, pcall(f, ...)) end
  local info = debug.getinfo(f, "u")
  arity[w] = arity[f] or not info.isvararg and info.nparams or nil
  return w
end

-- A compile error of a kernel gpu.elementwise or gpu.reduction built names the builder,
-- the kernel and the script's line that built it before the part (`operation(1): error:
-- ...`, where the source has `#line 1 "operation"`: the same in every script, so that one
-- operation compiles once, wherever it is built): relabel(e) for gpu._api
local PARTS = {"operation", "map_expr", "reduce_expr", "post_map_expr", "identity"}
function gpu._relabeler(api, name)
  local where = ("gpu.%s '%s'"):format(api, name)
  for level = 3, 12 do   -- past pcall and gpu._api's wrapper
    local info = debug.getinfo(level, "Sl")
    if not info then break end
    if info.what ~= "C" and not info.short_src:match("^%[gpu%]") then
      where = ("%s (%s:%d)"):format(where, info.short_src, info.currentline)
      break
    end
  end
  where = where:gsub("%%", "%%%%")   -- a replacement below
  return function(e)
    if type(e) ~= "table" or type(e.message) ~= "string" then return e end
    for _, field in ipairs({"message", "log", "detail"}) do
      if type(e[field]) == "string" then
        for _, part in ipairs(PARTS) do
          e[field] = e[field]:gsub("%f[%w_]" .. part .. "([(:]%d)", where .. ": " .. part .. "%1")
        end
      end
    end
    return e
  end
end

-- What the Lua files check arguments with (compose.lua, shape.lua, stats.lua, linalg.lua):
-- whether v is a device array, and what v is, for a message that wanted one
function gpu._is_array(v) return type(v) == "userdata" and getmetatable(v) == gpu._meta.array end
function gpu._described(v)
  if type(v) == "userdata" and getmetatable(v) == gpu._meta.hostarray then
    return "host array (make a device array of it with gpu.array(h))"
  end
  return type(v)
end

-- The checks of numbers and dims that shape.lua and numeric.lua share. Each raises its
-- error at level 3: the line that called the public function calling it.
local arg = {}
gpu._arg = arg
-- v as a Lua integer where it is one (a whole float too), else nil
local function whole(v)
  if math.type(v) == "float" and v == math.floor(v) then return math.tointeger(v) end
  return math.type(v) == "integer" and v or nil
end
-- n * r (r >= 0): the elements of n things repeated r times, refused past 2^63 - 1, where
-- Lua's integers wrap (repeat in sets.lua, repeat_interleave and tile in compose.lua); the
-- error at `level`, as each caller raises its others
function arg.times(n, r, api, noun, level)
  if r > 0 and n > math.maxinteger // r then
    error(("gpu.%s: %d %s of %d elements are too many for an array"):format(api, r, noun, n), level)
  end
  return n * r
end
-- total, the elements of a result, refused past 2^48 (an array's most: host/dtype.c's
-- MAX_SIZE) before anything is made for it (tile and tri made index arrays of 10^9 first)
function arg.elements(total, api, level)
  if total > 1 << 48 then
    error(("gpu.%s: the result would have %d elements, more than an array holds (2^48)"):format(api, total), level)
  end
  return total
end
-- n bins of a histogram, refused where their n + 1 edges are more than an array holds (they
-- said gpu.linspace's "the result would have ... elements")
function arg.bins(n, api, level)
  if n >= 1 << 48 then error(("gpu.%s: %d bins have more edges than an array holds (2^48)"):format(api, n), level) end
  return n
end
-- shape, a result's, refused where its nonzero dims come to more than 2^48 (as host/dtype.c's
-- shape_fits: what its strides reach), also where it has no elements: an empty result is
-- made as gpu.empty(shape), which would refuse it in words of its own
function arg.reach(shape, api, level)
  local reach = 1
  for _, n in ipairs(shape) do
    if n > 0 and reach > (1 << 48) // n then
      error(("gpu.%s: the result's shape {%s} is too large: more elements than an array holds (2^48)")
            :format(api, table.concat(shape, ", ")), level)
    end
    reach = n > 0 and reach * n or reach
  end
  return shape
end
-- ndim, the dims of a result gpu.<api> adds dims for, refused past an array's most before a
-- view or a shape inside says it in its own words ("unsqueeze: ...", "shape must have ...")
function arg.dims(ndim, api, level)
  if ndim > gpu._MAXDIM then
    error(("gpu.%s: the result would have %d dimensions, more than an array has (%d)"):format(api, ndim, gpu._MAXDIM), level)
  end
  return ndim
end
-- A's least and greatest elements as floats (the histograms' range); uint64 ones past 2^63,
-- which come back as negative Lua integers, as their values
function arg.extent(a)
  local lo, hi = gpu.min(a) + 0.0, gpu.max(a) + 0.0
  if a.dtype == "uint64" then lo, hi = lo < 0 and lo + 2 ^ 64 or lo, hi < 0 and hi + 2 ^ 64 or hi end
  return lo, hi
end
-- A histogram's edges (n + 1 of them, gpu.linspace's over [lo, hi] in et) refused where two
-- are equal, as NumPy 2's "too many bins for data range" (1.24 raised an IndexError; 1e17
-- +- 0.5 gave equal edges): read back only where a step is within a few units of the last
-- place; show (arg.shown) writes lo and hi in the caller's words
local EPS = {float64 = 2 ^ -52, float32 = 2 ^ -23, float16 = 2 ^ -10}
function arg.distinct_edges(edges, lo, hi, n, et, api, show)
  show = show or arg.shown
  if (hi - lo) / n < 4 * EPS[et] * math.max(math.abs(lo), math.abs(hi)) and gpu.any(gpu.diff(edges):le(0)) then
    error(("gpu.%s: too many bins for the range [%s, %s]: cannot make %d finite-sized bin%s in %s"):format(
      api, show(lo), show(hi), n, n == 1 and "" or "s", et), 3)
  end
  return edges
end
-- An error another gpuhost function raised, as words of the caller's own: without a
-- position ("file:12: ") and without "bad argument #k to 'f' (...)" around it
function arg.unwrapped(e)
  local msg = tostring(e):gsub("^[^:\n]*:%d+: ", "")
  return msg:match("^bad argument #%d+ to '[^']*' %((.*)%)$") or msg
end
-- f's results from pcall (ok, ...), or f's error said as gpu.<to>'s: "gpu.<from>" before ":"
-- or " " becomes "gpu.<to>", and "gpu.<from> argument n" "gpu.<to> argument places[n]" where
-- the places differ (gpu.clip through gpu.maximum, gpu.nancumsum through gpu.cumsum)
function arg.renamed(from, to, places, ok, ...)
  if ok then return ... end
  local e = ...
  if type(e) ~= "string" then error(e, 0) end
  if places then
    e = e:gsub("gpu%." .. from .. " argument (%d)", function(n) return ("gpu.%s argument %s"):format(to, places[tonumber(n)]) end)
  end
  error((e:gsub("gpu%." .. from .. "([: ])", "gpu." .. to .. "%1")), 0)
end
-- whether x, an array or host array, has been freed (reading any field of a freed one raises)
local function size_of(x) return x.size end
function arg.freed(x) return not pcall(size_of, x) end
-- An integer index array as int64 (itself where it is int64) and, where a uint64 array holds
-- a value at or above 2^63 (which int64 reads as negative: an index from the end), the
-- least such value as text, for the caller to raise as out of range (NumPy's IndexError);
-- one reduction, for uint64 arrays alone
function arg.int64_index(v)
  if v.dtype == "int64" then return v end
  local x = v:astype("int64")
  if v.dtype == "uint64" and x.size > 0 then
    local low = gpu.min(x)
    if low < 0 then return x, ("%u"):format(low) end
  end
  return x
end
-- Indices (a number, a table of integers or an integer device array) as an int64 array,
-- and whether they were a number: the one conversion of gpu.put, take_along_axis, choose,
-- delete, insert, repeat (sets.lua), unravel_index and ravel_multi_index (shape.lua). A
-- float entry, an array of another dtype and a uint64 value at or above 2^63 raise, naming
-- `what` (without a position, as the C functions' errors)
local function index_fail(api, fmt, ...) error(("gpu.%s: " .. fmt):format(api, ...), 0) end
local function index_entry(x, api, name)
  local i = whole(x)
  if i == nil then index_fail(api, "%s must be an integer, got %s", name, arg.shown(x)) end
  return i
end
function arg.index_array(v, api, what)
  if type(v) == "number" then return gpu.full({}, index_entry(v, api, what), "int64"), true end
  local array = gpu._is_array(v)
  if type(v) == "table" and not array then
    arg.list(v, api, what, 0)   -- ({2, nil, 4}: gpu.array's words, not the function's)
    for k, x in ipairs(v) do   -- (nested tables: gpu.array checks their entries)
      if type(x) ~= "table" then index_entry(x, api, ("%s[%d]"):format(what, k)) end
    end
    return gpu.array(v, "int64"), false
  end
  if not array or not v.dtype:match("int") then
    index_fail(api, "%s must be an integer array, a table or a number, got %s", what,
               array and v.dtype .. " array" or gpu._described(v))
  end
  local x, big = arg.int64_index(v)
  if big then index_fail(api, "%s holds %s, out of range (uint64 values must be below 2^63)", what, big) end
  return x, false
end
-- whether v is a gpu.complex number
local COMPLEX_MT = getmetatable(gpu.complex(0))
function arg.is_complex(v) return getmetatable(v) == COMPLEX_MT end
-- the result_type of a list of arrays or dtype names, however many
function arg.result_type_of(list) return gpu.result_type(table.unpack(list)) end
-- a (nested) table of Lua numbers as NumPy makes it an array: int64 when all are integers,
-- else float64 (not gpu.array's float32: an integer past 2^53 would be rounded)
function arg.list_array(t)
  local function integral(x)
    if type(x) ~= "table" then return math.type(x) == "integer" end
    for _, v in ipairs(x) do if not integral(v) then return false end end
    return true
  end
  return gpu.array(t, integral(t) and "int64" or "float64")
end
-- a chunk's name as a #line directive or a comment of C shows it: its control characters
-- (a raw \r of load(s)'s name ends the line for the C preprocessor) as Lua's escapes
function arg.shown_file(file)
  return (file:gsub("%c", function(c)
    return ({["\r"] = "\\r", ["\n"] = "\\n", ["\t"] = "\\t"})[c] or ("\\%03d"):format(c:byte())
  end))
end
-- a number as a message shows it: a whole float without its ".0", NaN as nan (0/0 has the
-- sign bit set, which Lua's own text shows as -nan)
function arg.shown(v)
  local mt = type(v) == "userdata" and getmetatable(v)
  if type(mt) == "table" and type(rawget(mt, "__name")) == "string" and mt ~= gpu._meta.hostarray then
    return rawget(mt, "__name")   -- gpu.array, gpu.stream ..., as the C side names them
  end
  if type(v) == "table" or type(v) == "userdata" or type(v) == "function" then return gpu._described(v) end   -- not its address
  if type(v) == "string" then return ("a string (%q)"):format(v) end   -- ("1" was shown as the number 1)
  if v ~= v then return "nan" end
  if math.type(v) == "float" and v == math.floor(v) and math.abs(v) < 2 ^ 63 then return ("%.0f"):format(v) end
  return tostring(v)
end
-- an option's value in "must be A or B, got %s": a string as itself, anything else as shown
-- (a table by its type: "got table: 0x55d0..." told nothing)
function arg.choice(v) return type(v) == "string" and v or arg.shown(v) end
-- string t without the characters of the pattern class set ("%s" by default) at either end,
-- in time linear in t (a lazy (.-) before a class's run and $ rescans an inner run from
-- each of its places: "1" .. 20000 spaces .. "2" took seconds)
function arg.trim(t, set)
  set = set or "%s"
  local i = t:find("[^" .. set .. "]")
  if not i then return "" end
  return t:sub(i, (t:find("[^" .. set .. "][" .. set .. "]*$", i)))
end
-- a device array, else an error naming `what` (default "a")
function arg.array(a, api, what)
  if not gpu._is_array(a) then
    error(("gpu.%s: %s must be a device array, got %s"):format(api, what or "a", gpu._described(a)), 3)
  end
  return a
end
function arg.integer(v, api, what)
  local i = whole(v)
  if i == nil then error(("gpu.%s: %s must be an integer, got %s"):format(api, what, arg.shown(v)), 3) end
  return i
end
function arg.count(v, api, what)
  v = arg.integer(v, api, what)
  if v < 0 then error(("gpu.%s: %s must be a non-negative integer, got %d"):format(api, what, v), 3) end
  return v
end
-- An options table (nil: an empty one) whose every key is one of `known` (names separated
-- by spaces): a misspelt option, or NumPy's axis for gpuhost's dim, is an error, not
-- ignored (host/errors.c words it, for the C functions too); the error points at the
-- caller's caller, or at level (counted from the function calling arg.options, as error's)
function arg.options(opts, api, known, level)
  local ok, r = pcall(gpu._options, opts, api, known)
  if not ok then error(r, (level or 2) + 1) end
  return r
end
-- The product of t[from .. to] (all of t by default): how many elements a shape holds
-- (functional.lua, linalg.lua)
function arg.product(t, from, to)
  local n = 1
  for k = from or 1, to or #t do n = n * t[k] end
  return n
end
-- A dimension of an ndim-D array as a 1-based number (negative from the end)
function arg.dim_of(d, ndim, api)
  if type(d) ~= "number" then   -- (a table: {dim = 1} where dims come before the options)
    error(("gpu.%s: a dimension (a number) expected, got %s"):format(api, type(d) == "table" and "a table" or type(d)), 3)
  end
  if math.type(d) == "float" and d == math.floor(d) then d = math.tointeger(d) or d end
  if math.type(d) ~= "integer" or d == 0 or d > ndim or d < -ndim then
    error(("gpu.%s: dimension %s is out of range for %d-D arrays"):format(api, arg.shown(d), ndim), 3)
  end
  return d < 0 and ndim + 1 + d or d
end

local API = debug.getinfo(gpu._api(print), "S")   -- the wrapper's function, for location below

local function embedded(name, ...)
  return assert(load(gpu._embedded(name), "=[gpu] " .. name, "bt"))(gpu, ...)
end
-- The parts a script may never use are loaded at their first use, so that a new process
-- starts without compiling them: the declarations' reader (signature.lua, at the first
-- gpu.kernel), printing (format.lua), the elementwise kernels' source (codegen.lua, at the
-- first operation that compiles one; shared through gpu._codegen()), gpu.fuse,
-- gpu.elementwise and the NumPy files (npy.lua).
local loaded = {}
local lazy = {}   -- file -> {table, name} of each public function on_first_call gave it
-- f, for a public function of fixed parameters: an argument beyond them that is not nil
-- (an options table, NumPy's out = or axis) is an error, never dropped as Lua drops it;
-- the call is a tail call, so f's errors still name the caller's line. params: their count,
-- where f's own does not say (a function of ...); options_at: the place of f's options
-- table, if it has one; api a method's ("a:trace"): its counts without self, as C's
local function strict(api, f, params, options_at)
  local info = type(f) == "function" and debug.getinfo(f, "u")
  local n = info and (params or arity[f] or not info.isvararg and info.nparams)
  if not n then return f end
  local self = api:match("^[ah]:") and 1 or 0
  local name = self == 1 and api or "gpu." .. api
  local options_go = options_at and ("options go in argument %d"):format(options_at - self) or "it takes no options"
  return function(...)
    for k = select("#", ...), n + 1, -1 do
      local v = select(k, ...)
      if v ~= nil then
        local options = type(v) == "table" and getmetatable(v) == nil
        local mt = type(v) == "userdata" and getmetatable(v)
        local what = options and "a table" or gpu._is_array(v) and ("a %s array"):format(v.dtype)
                     or "a " .. (type(mt) == "table" and type(mt.__name) == "string" and mt.__name or gpu._described(v))
        error(("%s takes %d argument%s, got %s as argument %d (%s)"):format(name, n - self, n - self == 1 and "" or "s",
              what, k - self, options and options_go or "not one it takes"), 2)
      end
    end
    return f(...)
  end
end
arg.strict = strict   -- (for the files loaded later: random.lua, compose.lua)
local function module(name, ...)
  local m = loaded[name]
  if m == nil then
    m = embedded(name, ...) or true
    loaded[name] = m
    local methods = gpu._meta.array.methods
    for _, e in ipairs(lazy[name] or {}) do
      local f = e[1][e[2]]
      e[1][e[2]] = strict(e[3], f, nil, e[4])
      for k, m in pairs(methods) do   -- a:flip(...) as gpu.flip (the file set the method)
        if m == f then methods[k] = e[1][e[2]] end
      end
    end
  end
  return m
end
function gpu._codegen() return module("lua/codegen.lua") end
local function signature() return module("lua/signature.lua") end
local function format() return module("lua/format.lua") end
embedded("lua/arrays.lua", gpu._codegen)
-- The first call loads the file, which defines the function anew, and calls that: a tail
-- call, so that its errors name the caller's line.
local function on_first_call(name, file, ...)
  local args = table.pack(...)
  if name:sub(1, 1) ~= "_" then
    lazy[file] = lazy[file] or {}
    table.insert(lazy[file], {gpu, name, name})
  end
  gpu[name] = function(...)
    module(file, table.unpack(args, 1, args.n))
    return gpu[name](...)
  end
end
on_first_call("fuse", "lua/fuse.lua", gpu._codegen)
on_first_call("elementwise", "lua/elementwise.lua", gpu._codegen)
for _, name in ipairs({"save", "load", "savez", "savez_compressed", "loadz", "savetxt", "loadtxt", "genfromtxt",
                       "fromfile", "frombuffer", "fromstring", "_tofile", "_tobytes"}) do
  on_first_call(name, "lua/npy.lua")   -- NumPy's files, binary and text (npy.lua)
end
for _, meta in ipairs({gpu._meta.array, gpu._meta.hostarray}) do
  meta.methods.tofile = function(...) return gpu._tofile(...) end
  meta.methods.tobytes = function(...) return gpu._tobytes(...) end
end
for _, name in ipairs({"linspace", "eye", "identity", "concatenate", "stack", "flip", "isclose", "allclose",
                       "take", "extract", "nonzero", "diff", "tril", "triu", "diagonal", "meshgrid",
                       "repeat_interleave", "tile", "searchsorted", "histogram"}) do
  assert(gpu[name] == nil, name)   -- a name the C parts took already
  on_first_call(name, "lua/compose.lua")
end
on_first_call("_int_matmul", "lua/compose.lua")   -- integer and bool products (host/blas.c)
for _, name in ipairs({"flip", "take", "nonzero", "diagonal", "searchsorted"}) do
  gpu._meta.array.methods[name] = function(...) return gpu[name](...) end
end
-- NumPy's functions of shapes and layouts (lua/shape.lua, which defines them anew)
for _, name in ipairs({"expand_dims", "squeeze", "swapaxes", "moveaxis", "ravel", "ascontiguousarray",
                       "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "hstack",
                       "vstack", "dstack", "column_stack", "append", "split", "array_split", "hsplit", "vsplit",
                       "dsplit", "roll", "pad", "rot90", "fliplr", "flipud", "diag", "diagflat", "indices",
                       "tril_indices", "triu_indices", "unravel_index", "ravel_multi_index", "array_equal",
                       "logspace", "geomspace"}) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/shape.lua")
end
for _, name in ipairs({"swapaxes", "ravel", "moveaxis"}) do
  gpu._meta.array.methods[name] = function(...) return gpu[name](...) end
end
-- statistics (lua/stats.lua): NaN-ignoring reductions, order statistics, ...
local STATS = {"nansum", "nanprod", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean", "nanvar", "nanstd",
               "median", "nanmedian", "percentile", "quantile", "nanpercentile", "nanquantile", "ptp", "average",
               "argwhere", "flatnonzero", "isin", "bincount", "interp", "cov", "corrcoef", "convolve",
               "correlate", "trapezoid", "trapz", "tensordot", "inner", "kron", "cross", "vander", "polyval"}
for _, name in ipairs(STATS) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/stats.lua")
end
on_first_call("_bin_runs", "lua/stats.lua")   -- a sort shared by several bincounts (gpu.ndimage's measurements)
on_first_call("_sorted_find", "lua/stats.lua")   -- isin's lookup, intersect1d's too
for _, name in ipairs({"nansum", "nanprod", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean", "nanvar",
                       "nanstd", "ptp"}) do
  gpu._meta.array.methods[name] = function(...) return gpu[name](...) end
end
-- sets, sorts and index functions (lua/sets.lua); `repeat`, a Lua keyword, is
-- gpu["repeat"] and a["repeat"]
for _, name in ipairs({"in1d", "intersect1d", "union1d", "setdiff1d", "setxor1d", "lexsort", "partition",
                       "argpartition", "digitize", "take_along_axis", "put_along_axis", "put", "place", "putmask",
                       "compress", "choose", "select", "delete", "insert", "resize", "repeat", "trim_zeros",
                       "copyto"}) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/sets.lua")
end
on_first_call("_unique_dim", "lua/sets.lua")   -- gpu.unique with a dim (host/sort.c)
gpu._meta.array.methods["repeat"] = function(...) return gpu["repeat"](...) end
-- numerical helpers (lua/numeric.lua): gradients, histograms in D dimensions, polynomials,
-- windows, small constructors and shape queries
for _, name in ipairs({"gradient", "ediff1d", "unwrap", "nancumsum", "nancumprod", "histogram_bin_edges",
                       "histogram2d", "histogramdd", "polyadd", "polysub", "polymul", "polyder", "polyint",
                       "polydiv", "bartlett", "blackman", "hamming", "hanning", "kaiser", "tri", "diag_indices",
                       "diag_indices_from", "tril_indices_from", "triu_indices_from", "fill_diagonal", "ix_",
                       "block", "broadcast_shapes", "may_share_memory", "shares_memory", "transpose", "reshape",
                       "ndim", "shape", "size", "asarray"}) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/numeric.lua")
end
-- NumPy's remaining general functions (lua/functional.lua): applying functions along
-- dimensions, packed bits, dtype helpers, deprecated aliases
for _, name in ipairs({"apply_along_axis", "apply_over_axes", "piecewise", "fromfunction", "packbits", "unpackbits",
                       "rollaxis", "msort", "sort_complex", "poly", "mask_indices", "array_equiv",
                       "asarray_chkfinite", "require", "cumproduct", "product", "alltrue", "sometrue",
                       "promote_types", "can_cast", "min_scalar_type", "common_type", "mintypecode", "issubdtype",
                       "isscalar", "iterable", "typename", "base_repr", "binary_repr", "finfo", "iinfo"}) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/functional.lua")
end
-- Einstein summation and vdot (lua/einsum.lua)
for _, name in ipairs({"einsum", "vdot"}) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/einsum.lua")
end
-- numpy.fft's helpers (lua/fft.lua, which defines them anew in gpu.fft, host/fft.c's table;
-- strict then: fftfreq(4, 1, {}, {dtype = "float64"}) dropped the dtype)
for _, name in ipairs({"fftfreq", "rfftfreq", "fftshift", "ifftshift"}) do
  assert(gpu.fft[name] == nil, name)
  lazy["lua/fft.lua"] = lazy["lua/fft.lua"] or {}
  table.insert(lazy["lua/fft.lua"], {gpu.fft, name, "fft." .. name, name:find("freq") and 3 or nil})
  gpu.fft[name] = function(...)
    module("lua/fft.lua")
    return gpu.fft[name](...)
  end
end
-- NumPy's elementwise functions of two results, of decimals and of complex numbers
-- (lua/ufuncs.lua); gpu.round(a, decimals) and a:round(decimals) are gpu.around there,
-- gpu.round(a [, opts]) the round ufunc (also gpu._round, for result_dtype)
for _, name in ipairs({"divmod", "modf", "frexp", "ldexp", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
                       "real_if_close", "around"}) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/ufuncs.lua")
end
gpu._round = gpu.round
local round_decimals = gpu._api(function(_, a, decimals, ...)
  if decimals == nil then return gpu._round(a, ...) end   -- no nil passed on: a second argument
  if type(decimals) == "table" then return gpu._round(a, decimals, ...) end
  local ok, e = pcall(gpu.around, a, decimals, ...)
  if ok then return e end
  error(type(e) == "string" and e:gsub("gpu%.around:", "gpu.round:", 1) or e, 0)   -- named as called
end)
-- still the ufunc's fields and methods (gpu.round:result_dtype(...), .name ...), on gpu._round
gpu.round = setmetatable({}, {__call = round_decimals, __index = function(_, k)
  local v = gpu._round[k]
  if type(v) ~= "function" then return v end
  return function(self, ...) return v(self == gpu.round and gpu._round or self, ...) end
end})
gpu._meta.array.methods.round = function(a, ...) return round_decimals(nil, a, ...) end
-- NumPy's other names of these (each looked up at the call: some load their file then)
for alias, name in pairs({amax = "max", amin = "min", round_ = "around", row_stack = "vstack"}) do
  assert(gpu[alias] == nil, alias)
  local f = gpu[name]   -- a C function itself (its errors name the caller's line, also after a
  gpu[alias] = type(f) == "function" and debug.getinfo(f, "S").what == "C" and f   -- tail call)
               or gpu._api(function(...) return gpu[name](...) end)
end
-- a:trace(), a[indices], a[mask], a[mask] = v (host/array.c calls the last three;
-- compose.lua defines them anew)
for _, name in ipairs({"trace", "_take_rows", "_extract", "_put_mask"}) do
  gpu._meta.array.methods[name] = function(...)
    module("lua/compose.lua")
    return gpu._meta.array.methods[name](...)
  end
end
-- gpu.linalg (lua/linalg.lua), each function loading the file at its first call
gpu.linalg = {}
for _, name in ipairs({"solve", "inv", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh", "svd",
                       "pinv", "matrix_rank", "matrix_power", "norm", "eig", "eigvals", "lstsq", "cond",
                       "multi_dot", "tensorinv", "tensorsolve"}) do
  lazy["lua/linalg.lua"] = lazy["lua/linalg.lua"] or {}
  table.insert(lazy["lua/linalg.lua"], {gpu.linalg, name, "linalg." .. name})
  gpu.linalg[name] = function(...)
    module("lua/linalg.lua")
    return gpu.linalg[name](...)
  end
end
for _, name in ipairs({"polyfit", "roots"}) do
  assert(gpu[name] == nil, name)
  on_first_call(name, "lua/linalg.lua")
end
-- gpu.ndimage (lua/ndimage.lua): scipy.ndimage's filters, each loading the file at its first call.
-- Each function, once its file has defined it, refuses an argument beyond its parameters
-- (strict); for one whose last parameter is an options table the message says where they
-- go (strict's "it takes no options" would be wrong)
gpu.ndimage = {}
local nd_plain = {}   -- the functions without an options table
for _, name in ipairs({"generate_binary_structure", "iterate_structure", "sum_labels", "sum", "mean", "variance",
                       "standard_deviation", "minimum", "maximum", "minimum_position", "maximum_position", "extrema",
                       "center_of_mass", "median", "labeled_comprehension", "histogram", "find_objects"}) do
  nd_plain[name] = true
end
local function nd_strict(name, f)
  local api, n = "ndimage." .. name, arity[f]
  if nd_plain[name] or not n then return strict(api, f) end
  local check = function() end
  arity[check] = n
  check = strict(api, check)
  return function(...)
    if select("#", ...) > n then
      local ok, e = pcall(check, ...)
      if not ok then error((tostring(e):gsub("%(it takes no options%)$", ("(options go in argument %d)"):format(n))), 2) end
    end
    return f(...)
  end
end
local nd_files = {}   -- file -> the names of its functions, until it is loaded and they are wrapped
local function nd_load(file)
  module(file)
  local names = nd_files[file]
  if names then
    nd_files[file] = nil
    for _, name in ipairs(names) do gpu.ndimage[name] = nd_strict(name, gpu.ndimage[name]) end
  end
end
-- the functions of file (which uses the filters' checks: ndimage.lua is loaded first), each
-- loading the files at its first call
local function nd_register(file, names)
  nd_files[file] = names
  for _, name in ipairs(names) do
    gpu.ndimage[name] = function(...)
      nd_load("lua/ndimage.lua")
      nd_load(file)
      return gpu.ndimage[name](...)
    end
  end
end
nd_register("lua/ndimage.lua", {"correlate1d", "convolve1d", "correlate", "convolve", "gaussian_filter1d", "gaussian_filter",
                                "uniform_filter1d", "uniform_filter", "minimum_filter1d", "maximum_filter1d",
                                "minimum_filter", "maximum_filter", "median_filter", "rank_filter", "percentile_filter",
                                "sobel", "prewitt", "laplace", "gaussian_laplace", "gaussian_gradient_magnitude"})
-- interpolation (lua/ndimage_interp.lua): spline filters, map_coordinates, affine_transform,
-- shift, zoom, rotate, the Fourier filters
nd_register("lua/ndimage_interp.lua", {"spline_filter1d", "spline_filter", "map_coordinates", "affine_transform", "shift",
                                       "zoom", "rotate", "fourier_gaussian", "fourier_uniform", "fourier_ellipsoid",
                                       "fourier_shift"})
-- morphology and measurements (lua/ndimage_morph.lua, which also uses the filters)
nd_register("lua/ndimage_morph.lua", {"generate_binary_structure", "iterate_structure", "binary_erosion", "binary_dilation",
                                      "binary_opening", "binary_closing", "binary_propagation", "binary_fill_holes",
                                      "binary_hit_or_miss", "grey_erosion", "grey_dilation", "grey_opening", "grey_closing",
                                      "morphological_gradient", "morphological_laplace", "white_tophat", "black_tophat",
                                      "label", "sum_labels", "sum", "mean", "variance", "standard_deviation", "minimum",
                                      "maximum", "minimum_position", "maximum_position", "extrema", "center_of_mass",
                                      "histogram", "find_objects", "median", "labeled_comprehension"})
-- the distance transforms (lua/ndimage_distance.lua)
nd_register("lua/ndimage_distance.lua", {"distance_transform_edt", "distance_transform_cdt", "distance_transform_bf"})
-- gpu.sparse, cupyx.scipy.sparse's matrices (lua/sparse.lua, loaded at the first gpu.sparse.*
-- use), and gpu.matmul's path for a sparse operand (host/blas.c calls gpu._sparse_matmul)
gpu.sparse = setmetatable({}, {__index = function(t, k) module("lua/sparse.lua"); return rawget(t, k) end})
on_first_call("_sparse_matmul", "lua/sparse.lua")
-- gpu.sparse.linalg (lua/sparse_linalg.lua): iterative solvers, loaded at its first use
rawset(gpu.sparse, "linalg", setmetatable({}, {__index = function(t, name)
  setmetatable(t, nil)
  embedded("lua/sparse_linalg.lua", t)
  return rawget(t, name)
end}))
-- gpu.special: scipy.special's functions; its ufuncs are host/opdefs.c's, the rest
-- (zeta, softmax, log_softmax, logsumexp) lua/special.lua's, loaded at their first use
for _, name in ipairs({"zeta", "softmax", "log_softmax", "logsumexp"}) do
  lazy["lua/special.lua"] = lazy["lua/special.lua"] or {}   -- strict once defined, their options argument 3
  table.insert(lazy["lua/special.lua"], {gpu.special, name, "special." .. name, 3})
  gpu.special[name] = function(...)
    module("lua/special.lua")
    return gpu.special[name](...)
  end
end
-- reductions' kernels (lua/reduction.lua: the builder host/reduce.c calls) and
-- gpu.reduction, at their first use
gpu._set_reduce_builder(function(...) return module("lua/reduction.lua").build(...) end)
on_first_call("reduction", "lua/reduction.lua")
-- sorts' programs (lua/sort.lua: the builder host/sort.c calls), at the first sort
gpu._set_sort_builder(function(...) return module("lua/sort.lua").build(...) end)

-- print options and NumPy's text of arrays and floats (format.lua, which prints arrays too)
for _, name in ipairs({"set_printoptions", "get_printoptions", "printoptions", "array2string", "array_str",
                       "array_repr", "format_float_positional", "format_float_scientific", "_format_repr"}) do
  on_first_call(name, "lua/format.lua")
end
gpu._meta.array.__tostring = function(a) return format().array(a) end
gpu._meta.hostarray.__tostring = function(h) return format().hostarray(h) end

-- dtypes: names, aliases and the C spelling gpuhost's own kernels use, from the one table
-- (host/gpu.h)
gpu.dtypes = {}
local ctype_of, canonical, range_of = {}, {}, {}
-- The values arange may give a dtype: what it holds, and for 64-bit integers what float64
-- (in which arange computes) holds exactly.
local function value_range(d)
  local bits = 8 * d.size
  if d.kind == "b" then return 0, 1 end
  if d.kind == "f" or d.kind == "c" then   -- a complex dtype: its parts'
    local max = ({[16] = 65504.0, [32] = 3.4028234663852886e38})[d.kind == "c" and bits // 2 or bits] or math.huge
    return -max, max
  end
  if bits == 64 then return d.kind == "u" and 0 or 1 - 2^53, 2^53 - 1, "arange computes in float64" end
  if d.kind == "u" then return 0, (1 << bits) - 1 end
  return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
end
for i, d in ipairs(gpu._dtypes) do
  gpu.dtypes[i] = d.name
  gpu[d.name] = d.name
  ctype_of[d.name] = d.ctype
  canonical[d.name] = d.name
  range_of[d.name] = table.pack(value_range(d))
  for _, a in ipairs(d.aliases) do canonical[a] = d.name end
end

------------------------------------------------------------------------------------
-- the disk memo: small records kept in the user's compile cache (gpu._jit_memo, host/jit.c)
-- by gpu.jit's finder and its C memo (lua/jit/jit.lua) and by parse below. A record is
-- plain data, written as `return {...}` text and taken back only if it has the shape its
-- reader declares: a corrupt, old or foreign entry is a miss, never an error.
--
-- A shape: "string", "integer", "number" or "boolean", with a trailing "?" if nil may
-- stand for it; "{T}" (or "{T}?"): an array of T's, T one of those four; a table {S}: an
-- array of S's (S a shape); a table of fields: a record with those fields (each field's
-- name a Lua name, not a keyword, without "function" in it). Only what a shape names is
-- written and looked at: a reader sees nothing else of the record.

-- What a shape says, made once per shape: for a string, {its type ("table" for an array),
-- whether nil may stand for it, an array's shape}; for a table, false (a record's field
-- names, sorted, go in `names`)
local kinds, names = {}, {}
local function kind_of(shape)
  local k = false
  if type(shape) == "string" then
    local opt = shape:byte(-1) == 63   -- "?"
    local base = opt and shape:sub(1, -2) or shape
    local elem = base:match("^{(.*)}$")
    k = {elem and "table" or base, opt, elem and {elem}}
  elseif shape[1] == nil then
    local list = {}
    for f in next, shape do list[#list + 1] = f end
    table.sort(list)
    names[shape] = list
  end
  kinds[shape] = k
  return k
end

-- Has v the shape? (An array is its elements 1 to #v, as ipairs and # see it.)
local function fits(v, shape)
  local k = kinds[shape]
  if k == nil then k = kind_of(shape) end
  if k then
    if v == nil then return k[2] end
    if not k[3] then
      local t = type(v)
      return t == k[1] or t == "number" and k[1] == "integer" and math.type(v) == "integer"
    end
    shape = k[3]
  end
  if type(v) ~= "table" then return false end
  local elem = shape[1]
  if elem ~= nil then
    for i = 1, #v do
      if not fits(v[i], elem) then return false end
    end
    return true
  end
  local list = names[shape]
  for i = 1, #list do
    local f = list[i]
    if not fits(v[f], shape[f]) then return false end
  end
  return true
end

-- v as text in out, as the shape has it (a record's fields in their names' order, what the
-- shape does not name left out), or raises where v does not have the shape. %q writes
-- floats in hex, inf as 1e9999, the least integer in hex and NaN as (0/0): here 0/0; in a
-- string, what `plain` refuses is an escape.
local escapes = {["("] = "\\040", ["["] = "\\091", [":"] = "\\058", ["'"] = "\\039", ["-"] = "\\045"}
local function write(v, shape, out)
  local k = kinds[shape]
  if k == nil then k = kind_of(shape) end
  if k and not k[3] then
    if v == nil or not fits(v, shape) then
      error(("gpu._memo: %s where the shape has %s"):format(type(v), shape), 0)
    end
    local q = v ~= v and "0/0" or ("%q"):format(v)
    if k[1] == "string" then q = q:gsub("[%(%[:'%-]", escapes):gsub("function", "\\102unction") end
    out[#out + 1] = q
    return
  end
  shape = k and k[3] or shape
  if type(v) ~= "table" then error(("gpu._memo: %s where the shape has a table"):format(type(v)), 0) end
  out[#out + 1] = "{"
  if shape[1] ~= nil then
    for i, x in ipairs(v) do
      if i > 1 then out[#out + 1] = ", " end
      write(x, shape[1], out)
    end
  else
    local sep = ""
    for _, f in ipairs(names[shape]) do
      if v[f] ~= nil or not fits(nil, shape[f]) then   -- an optional field left out when nil
        out[#out + 1] = sep .. f .. " = "
        write(v[f], shape[f], out)
        sep = ", "
      end
    end
  end
  out[#out + 1] = "}"
end

-- Is text one `return` of an expression that can neither call nor make a function? It
-- starts with `return {` and holds no parenthesis, bracket, colon, single quote, `--` or
-- `function` (write makes them escapes in strings): so there is no comment and no
-- long string, no statement but that return (no assignment, no loop), and in it a name
-- can only be a global of the empty env (nil), nothing can be called or indexed but nil:
-- the one expression runs in time and memory linear in the text. (Plain finds, not a
-- lexer: this runs at a new process's first gpu.arange, on builtin.cu's declarations.)
local function plain(text)
  return text:find("^%s*return%s*{") ~= nil and not (text:find("(", 1, true) or text:find("[", 1, true)
    or text:find(":", 1, true) or text:find("'", 1, true) or text:find("--", 1, true)
    or text:find("function", 1, true))
end

-- gpu._memo(key, shape): the record kept under key if it has the shape, else nil;
-- gpu._memo(key, shape, v): keeps v (its fields the shape names) under key.
function gpu._memo(key, shape, v)
  if v ~= nil then
    local out = {"return "}
    write(v, shape, out)
    return gpu._jit_memo(key, table.concat(out))
  end
  local text = gpu._jit_memo(key)
  local chunk = text and plain(text) and load(text, "=[gpu memo]", "t", {})
  if not chunk then return nil end
  local ok, r = pcall(chunk)
  if ok and fits(r, shape) then return r end
  return nil
end

------------------------------------------------------------------------------------
-- kernels

-- What string.dump writes of f after its chunk's name: its lines, code, constants, names
-- and nested functions, byte for byte as the dump of the chunk it was defined in holds them
-- (Lua 5.4's format: a header, the upvalue count, then the name as a size and its bytes).
local name_at = string.dump(load("", "=?")):find("=?", 1, true) - 1
local function code_of(f)
  local d, i, size = string.dump(f), name_at, 0
  repeat
    local b = d:byte(i)
    size, i = size * 128 + b % 128, i + 1
  until b >= 128
  return d:sub(i + math.max(size - 1, 0))
end
local dumps = setmetatable({}, {__mode = "k"})   -- a chunk -> string.dump of it
local function holds(chunk, f)
  dumps[chunk] = dumps[chunk] or string.dump(chunk)
  return dumps[chunk]:find(code_of(f), 1, true) ~= nil
end

-- gpu._chunk_text(f, source): the text of the chunk that Lua function f was defined in
-- (source: its debug.getinfo source), as it was loaded. gpuhost's loader keeps the text of
-- what it loads (host/loader.c: a file read again may have changed since, or be a FIFO
-- that blocks) under the id of the chunk's _ENV upvalue, and in the list of the chunks of
-- that name, where f's code is looked for; a file another loader loaded (the script of
-- stock lua5.4) is read again and taken only if it still compiles to f's code (else nil
-- and "changed"). A string loaded with load(s) is its source; "=name" otherwise: nil.
function gpu._chunk_text(f, source)
  local c = source:sub(1, 1)
  if c ~= "@" and c ~= "=" then   -- load(s)'s source is s, but load(s, "kernels")'s is a name
    local chunk = load(source, "=?", "t")
    if chunk and holds(chunk, f) then return source end
    return nil
  end
  local kept = debug.getregistry()["gpuhost.sources"]
  if kept then
    for i = 1, debug.getinfo(f, "u").nups do
      if debug.getupvalue(f, i) == "_ENV" then
        local text = kept[debug.upvalueid(f, i)]
        if text then return text end
      end
    end
    local chunks = kept[source]
    for i = chunks and #chunks or 0, 1, -1 do
      if holds(chunks[i][1], f) then return chunks[i][2] end
    end
  end
  if c == "=" then return nil end
  local fh = io.open(source:sub(2), "rb")
  local text = fh and fh:read("a")
  if fh then fh:close() end
  if not text then return nil end
  local chunk = load((text:gsub("^\xEF\xBB\xBF", ""):gsub("^#[^\n]*", "")), source)   -- as Lua loads a file
  if chunk and holds(chunk, f) then return text end
  return nil, "changed"
end

-- A chunk's text with its line ends as Lua's lexer reads them: \n, \r, \r\n and \n\r each
-- one line, made "\n", as a long string holds them (a [[...]] kernel of a CRLF script is
-- found as Lua gave it); so counting "\n" counts the lines Lua counts
local function lua_lines(text)
  if not text:find("\r", 1, true) then return text end
  return (text:gsub("[\n\r][\n\r]?", function(e) return #e == 2 and e:sub(1, 1) == e:sub(2) and "\n\n" or "\n" end))
end

-- The `#line` that makes compiler messages name the script's file and line: where in the
-- calling chunk the kernel's source text starts. A source that is not there as written (read
-- from a file, built with .. or gsub) is named by the call instead, and its lines are its own.
local function location(source, level)
  local info = debug.getinfo(level, "Slf")
  while info and (info.what == "C" or (info.source == API.source and info.linedefined == API.linedefined)) do
    -- pcall and gpu._api's wrapper, between gpu.kernel and its caller
    level = level + 1
    info = debug.getinfo(level, "Slf")
  end
  if not info then return "" end
  local chunk, name, at = info.source, info.short_src, nil
  local text   -- (a "=" chunk's kernels keep their own lines, named by the call)
  if chunk:sub(1, 1) ~= "=" then text = gpu._chunk_text(info.func, chunk) end
  if chunk:sub(1, 1) == "@" then name = chunk:sub(2) end
  local line = math.max(info.currentline, 1)
  if text then
    text = lua_lines(text)
    local from, l = 1, 1
    for _ = 2, line do  -- the call's own line is where to start looking
      local nl = text:find("\n", from, true)
      if not nl then break end
      from, l = nl + 1, l + 1
    end
    at = text:find(source, from, true) or text:find(source, 1, true)
    if at then
      local _, newlines = text:sub(1, at - 1):gsub("\n", "")
      line = newlines + 1
    end
  end
  if not at then name, line = ("[kernel source given at %s:%d]"):format(name, line), 1 end
  return ('#line %d "%s"\n'):format(line, (arg.shown_file(name):gsub('[\\"]', "\\%0")))
end

-- The compilers read sources, options and names as C strings: what follows a NUL byte
-- would be dropped without a word, so a NUL is an error.
local function no_nul(s, what, level)
  local at = s:find("\0", 1, true)
  if at then
    error(("%s has a NUL byte at position %d (the compiler would stop reading there)")
          :format(what, at), level + 1)
  end
end

-- gpu.elementwise's and gpu.reduction's arguments: no string among them with a NUL byte
function arg.no_nuls(api, level, ...)
  for i = 1, select("#", ...) do
    local s = select(i, ...)
    if type(s) == "string" then no_nul(s, ("%s's argument #%d"):format(api, i), level + 1) end
  end
end

-- The options NVRTC reads with a value, each spelt as the CPU backend's compiler reads it
-- ("-DX"): NVRTC takes "-D X", "-D=X", "--define-macro X" and "--define-macro=X" alike, and
-- so every reader after this (signature.lua's #if, the CPU backend's command line and its
-- barrier scan) sees one spelling. -include/--pre-include stays "--pre-include=X".
local VALUED = {{"--define-macro", "-D"}, {"--undefine-macro", "-U"}, {"--include-path", "-I"},
                {"--pre-include", "--pre-include="}, {"-include", "--pre-include="},
                {"-D", "-D", true}, {"-U", "-U", true}, {"-I", "-I", true}}
local function one_spelling(f, what, level)
  for _, v in ipairs(VALUED) do
    local name, short = v[1], v[3]
    -- (a long name is followed by "=", a space or nothing; -DX is short for -D X)
    if f:sub(1, #name) == name and (short or f:find("^[=%s]", #name + 1) or #f == #name) then
      local value = f:sub(#name + 1):match("^[=%s]*(.*)$")
      if value == "" then
        -- NVRTC would take the next option as the value; the CPU backend's compiler the
        -- next word of its own command line
        error(("%s is '%s' alone: give it and its value in one string ('%s%sX')"):format(what, f, name,
              short and "" or "="), level + 1)
      end
      return v[2] .. value
    end
  end
  return f
end

-- A list of strings without NUL bytes, or nil; options in their one spelling (a new table).
-- A kernel's name as NVRTC's name expressions spell it: an identifier, with its namespaces
-- and template arguments if any ("k", "ns::k", "k<float>"); another ("k<", "k+1") would
-- reach the compiler only at the first launch, as an error in a name map of its own. The
-- name as gpuhost keeps it: without spaces at its ends or around "::" ("ns :: k" is "ns::k",
-- as C++ reads it)
local function name_shape(n, what, level)
  no_nul(n, what, level + 1)
  local given = n
  if n:find("::", 1, true) then   -- (each part trimmed alone: a pattern would rescan long runs)
    local parts, at = {}, 1
    repeat
      local i = n:find("::", at, true)
      parts[#parts + 1] = arg.trim(n:sub(at, (i or 0) - 1))
      at = i and i + 2
    until not i
    n = table.concat(parts, "::")
  end
  local qual, rest = arg.trim(n):match("^([%w_:]+)%s*(.*)$")
  local ok = qual and (rest == "" or rest:find("^<.*>$"))
  for part in ((qual or ""):gsub("^::", "") .. "::"):gmatch("(.-)::") do
    ok = ok and part:find("^[%a_][%w_]*$")
  end
  if not ok then
    error(("%s is '%s', which is not a kernel's name (an identifier, with its namespaces and "
           .. "template arguments if any: 'k', 'ns::k', 'k<float>')"):format(what, given), level + 1)
  end
  return arg.trim(n)
end

local function check_list(list, field, level)
  if list ~= nil and type(list) ~= "table" then
    error(("options.%s must be a list of strings"):format(field), level + 1)
  end
  local out = {}
  for i, f in ipairs(list or {}) do
    local what = ("options.%s[%d]"):format(field, i)
    if type(f) ~= "string" then error(what .. " must be a string", level + 1) end
    if field == "names" then f = name_shape(f, what, level + 1) else no_nul(f, what, level + 1) end
    out[i] = field == "options" and one_spelling(f, what, level + 1) or f
  end
  return list and out
end

local function check_options(options, api, level)
  if options == nil then return {} end
  if type(options) ~= "table" then
    error(("options must be a table, got %s"):format(type(options)), level)
  end
  arg.options(options, api, "options names debug check")   -- a misspelt one is not ignored
  arg.flag(options, "debug", api, nil, level)
  arg.flag(options, "check", api, nil, level)
  local checked = {}
  for k, v in pairs(options) do checked[k] = v end
  checked.options = check_list(options.options, "options", level)
  checked.names = check_list(options.names, "names", level)
  return checked
end

-- A list as one string: its length, then each string after its own length, so no two
-- lists give one text ({"-DA=1\1-DB"} and {"-DA=1", "-DB"} did, joined by "\1")
local function list_key(list)
  local out = {#list, " "}
  for _, s in ipairs(list) do out[#out + 1] = #s .. ":" .. s end
  return table.concat(out)
end

-- A cache whose values stay while anything else holds them, and the last n stored in any
-- case: a loop making the same thing again finds it, one making a new one each time
-- (generated sources, a gpu.jit kernel whose upvalue changes) does not keep them all
-- (the third function returned sets n, returning the old: for the specs)
local function recent_cache(n)
  local ring, stored = {}, 0
  local values = setmetatable({}, {__mode = "v"})
  return values, function(key, value)
    values[key] = value
    stored = stored % n + 1
    ring[stored] = value
  end, function(new)
    local old = n
    n, ring, stored = new, {}, 0
    return old
  end
end

-- Programs are kept per source, options and names (each compiles once per device), and
-- their kernels per name, so making a kernel again costs a table look-up. A source made a
-- kernel of at two places is one program: the #line compiled into it (what compiler
-- messages and a failed assert name) is the first place's. A program is kept while one of
-- its kernels or modules lives (owner: the kernel's program, an ephemeron) and while it is
-- among the last 64 made; then it is collected, its code unloaded (host/program.c).
local programs, keep_program, programs_kept = recent_cache(64)
local owner = setmetatable({}, {__mode = "k"})
gpu._programs_kept = programs_kept
local function program(source, names, options, level)
  local flags = options.options or {}
  local key = table.concat({list_key(flags), list_key(names), options.debug and "debug" or "",
                            options.check == false and "" or "check", source}, "\0")
  local p = programs[key]
  if not p then
    p = {kernels = {},
         program = gpu._program({source = source, names = names, options = flags,
                                 debug = options.debug and true or false,
                                 check = options.check ~= false,
                                 prefix = location(source, level + 1)})}
    keep_program(key, p)
  end
  return p
end

local declarations, keep_declarations = recent_cache(64)   -- source -> what signature.parse read in it

-- A long source's declarations are kept on disk too (gpu._memo: the user's cache, under
-- the source and this build): reading builtin.cu's took 6 ms of a new process's first
-- gpu.arange (2-core VM)
local MEMO_BYTES = 4096
local DECLS = {{name = "string", params = "string", template = "{string}?", unsure = "string?", aka = "{string}?",
                types = "{string}?"}}

-- (flags: the compile options; their -D and -U decide #if branches)
local function parse(source, flags)
  local macros = {}
  for _, f in ipairs(flags or {}) do
    if f:find("^%-[DU]") then macros[#macros + 1] = f end
  end
  local id = list_key(macros) .. "\0" .. source
  local d = declarations[id]
  if d then return d end
  local key = #source >= MEMO_BYTES and "gpuhost-declarations 4\n" .. gpu._build() .. "\n" .. id
  d = key and gpu._memo(key, DECLS)
  if not d then
    d = signature().parse(source, macros)
    if key then gpu._memo(key, DECLS, d) end
  end
  keep_declarations(id, d)
  return d
end

local function index_of(list, x)
  for i, v in ipairs(list) do if v == x then return i end end
end

-- The full name that a name expression's name ("ns::scale" of "ns::scale<float>") starts with
local function full_name(name) return ((name:match("^%s*([%w_:]+)") or ""):gsub("^::", "")) end

-- Does declaration d have a name (its own, or one of d.aka: "a::k" for a::v1::k in an
-- inline namespace) that is full, or (tail) that ends with "::" .. full?
local function named(d, full, tail)
  for i = 0, #(d.aka or {}) do
    local n = i == 0 and d.name or d.aka[i]
    if n == full and not tail or tail and n:sub(-#full - 2) == "::" .. full then return true end
  end
  return false
end

-- The declaration of kernel `name`: the one of that full name, else the one whose name
-- ends with it ("k" and "m::k" for n::m::k); nil and why when several do (a::k and b::k:
-- which one?)
local function find_decl(decls, name)
  local _, targs = signature().split_name(name)
  local full = full_name(name)
  local found
  for _, d in ipairs(decls) do
    if named(d, full) then found = d; break end
  end
  for _, d in ipairs(found and {} or decls) do
    if named(d, full, true) then
      if found then
        return nil, nil, ("the source has several kernels named '%s' (%s and %s): name one in full")
                         :format(full, found.name, d.name)
      end
      found = d
    end
  end
  if found and targs and not found.template then
    -- NVRTC would refuse the name only when the program is compiled, at the first launch
    return nil, nil, ("kernel '%s' is not a template: name it without template arguments ('%s')")
                     :format(found.name, full)
  end
  return found, found and targs
end

local function declared_names(decls)
  local have = {}
  for i, x in ipairs(decls) do have[i] = x.name end
  return #have > 0 and table.concat(have, ", ") or "none"
end

-- The names a program compiles: its plain kernels and the instantiations asked for (a
-- module's options.names, each of which must name a kernel of the source: level given)
local function program_names(decls, extra, level)
  local names, seen = {}, {}
  for _, d in ipairs(decls) do
    if not d.template then names[#names + 1] = d.name; seen[d.name] = true end
  end
  for i, n in ipairs(extra) do
    if level then
      local d, _, why = find_decl(decls, n)
      if why or not d then
        error(("options.names[%d] is '%s': %s"):format(i, n, why or ("no __global__ function of that name in the source (it has: %s)")
              :format(declared_names(decls))), level + 1)
      end
    end
    if not seen[n] then names[#names + 1] = n; seen[n] = true end
  end
  return names
end

local function kernel_of(prog, names, decls, name)
  local k = prog.kernels[name]
  if k then return k end
  local d, targs, why = find_decl(decls, name)
  if why then error(why, 0) end
  if not d then
    error(("no __global__ function '%s' in the source (it has: %s)"):format(name, declared_names(decls)), 0)
  end
  local params = signature().params(d, targs, name)
  for i, shown in ipairs(d.shown or {}) do params[i].name = shown end
  k = gpu._kernel(prog.program, index_of(names, name), params, name)
  prog.kernels[name] = k
  owner[k] = prog
  return k
end

-- gpu.kernel(source [, name] [, options]) -> kernel, compiled at its first launch
local kernel_in
function gpu.kernel(source, name, options)
  if type(source) ~= "string" then
    error(("bad argument #1 to 'kernel' (source string expected, got %s)"):format(type(source)), 2)
  end
  no_nul(source, "the source", 2)
  if type(name) == "table" then name, options = nil, name end
  options = check_options(options, "kernel", 3)
  return kernel_in(source, parse(source, options.options), name, options)
end

-- A kernel of source whose declarations are decls (what the source's __global__
-- functions are): gpu.kernel's work after reading them
kernel_in = function(source, decls, name, options)
  if name == nil then
    if #decls ~= 1 then
      error(("the source has %d __global__ functions: name the kernel, gpu.kernel(source, name)")
            :format(#decls), 2)
    end
    name = decls[1].name
  elseif type(name) ~= "string" then
    error(("bad argument #2 to 'kernel' (name string expected, got %s)"):format(type(name)), 2)
  else
    name = name_shape(name, "the name", 2)
    -- "k" (or "m::k") for a kernel declared in a namespace is "ns::k" ("n::m::k"), the name
    -- expression compilers take
    local d, _, why = find_decl(decls, name)
    if why then error(why, 2) end
    local full = full_name(name)
    if d and d.name ~= full then name = d.name .. (name:gsub("^%s*[%w_:]+", "")) end
  end
  local names = program_names(decls, {name})
  local prog = program(source, names, options, 3)
  local ok, k = pcall(kernel_of, prog, names, decls, name)
  if not ok then error(k, 2) end
  return k
end

-- gpu._kernel_declared(source, decl, name, options, shown): gpu.kernel(source, name, options)
-- for gpu.jit, which knows its kernel's declaration (decl: the __global__ line alone) and so
-- spares gpu.kernel reading its helpers' C for declarations (0.4 ms for a 2 KB source);
-- shown: the names the launcher's messages give its first parameters (the Lua function's,
-- where the C has n_arg)
function gpu._kernel_declared(source, decl, name, options, shown)
  local decls = parse(decl)
  if decls[1] then decls[1].shown = shown end
  return kernel_in(source, decls, name, check_options(options, "kernel", 3))
end

-- gpu.module(source [, options]) -> module; mod.name is one of its kernels.
-- options.names lists template instantiations to compile with it.
function gpu.module(source, options)
  if type(source) ~= "string" then
    error(("bad argument #1 to 'module' (source string expected, got %s)"):format(type(source)), 2)
  end
  no_nul(source, "the source", 2)
  options = check_options(options, "module", 3)
  local decls = parse(source, options.options)
  local names = program_names(decls, options.names or {}, 2)
  local prog = program(source, names, options, 3)
  return setmetatable({}, {
    __index = function(_, name)
      if prog.kernels[name] then return prog.kernels[name] end
      if not index_of(names, name) then
        local d = type(name) == "string" and find_decl(decls, name)
        if d and d.template and not name:find("<", 1, true) then
          error(("module kernel '%s' is a template: name its instantiations when making the module, "
                 .. "gpu.module(source, {names = {\"%s<float>\"}}), then m[\"%s<float>\"]")
                :format(name, name, name), 2)
        end
        error(("module has no kernel '%s' (it has: %s)"):format(tostring(name),
              table.concat(names, ", ")), 2)
      end
      local ok, k = pcall(kernel_of, prog, names, decls, name)
      if not ok then error(k, 2) end
      return k
    end,
    __tostring = function() return "gpu.module(" .. table.concat(names, ", ") .. ")" end,
  })
end

-- gpu.jit(f [, options]): a kernel written in Lua (lua/jit/), loaded at its first use
local jit
function gpu.jit(f, options)
  jit = jit or embedded("lua/jit/jit.lua")
  return jit.new(f, options)
end
-- gpu.vectorize(f [, options]): f applied to every element of arrays (lua/jit/vectorize.lua)
function gpu.vectorize(f, options)
  jit = jit or embedded("lua/jit/jit.lua")
  return jit.vectorize(f, options)
end
-- gpu.reduce(f [, options]): numba's cuda.reduce, f folding an array into one value (lua/jit/reduce.lua)
function gpu.reduce(f, options)
  jit = jit or embedded("lua/jit/jit.lua")
  return jit.reduce(f, options)
end
gpu.reduce = gpu._api(gpu.reduce)

------------------------------------------------------------------------------------
-- constructors and random numbers, on kernels/builtin.cu

local builtin
local function builtins()
  if not builtin then
    local names = {"uniform_float32", "uniform_float64", "normal_float32", "normal_float64"}
    for _, d in ipairs(gpu.dtypes) do
      names[#names + 1] = ("fill<%s>"):format(ctype_of[d])
      names[#names + 1] = ("arange<%s>"):format(ctype_of[d])
    end
    builtin = gpu.module(gpu._embedded("kernels/builtin.cu"), {names = names})
  end
  return builtin
end

-- gpu._builtins(names): a loader of a few of kernels/builtin.cu's kernels (the module of
-- those names compiled at the loader's first call): loader(name) is the kernel
function gpu._builtins(names)
  local m
  return function(name)
    m = m or gpu.module(gpu._embedded("kernels/builtin.cu"), {names = names})
    return m[name]
  end
end

local BLOCK, MAX_GRID = 256, 65536
local function config(n)
  return {math.max(1, math.min(MAX_GRID, (n + BLOCK - 1) // BLOCK)), BLOCK}
end

-- (api and pos, where given, name the function and the argument: "bad argument #4 to
-- 'random' (dtype expected, got number)")
local function dtype_name(dtype, level, api, pos)
  local name = canonical[dtype or "float32"]
  local why
  if not name and type(dtype) ~= "string" then   -- an options table, a number: not a name
    why = ("dtype expected, got %s"):format(type(dtype))
  elseif not name then
    why = ("unknown dtype '%s' (%s)"):format(tostring(dtype), table.concat(gpu.dtypes, ", "))
  end
  if why and api then error(("bad argument #%d to '%s' (%s)"):format(pos, api, why), level) end
  if why then error(why, level) end
  return name
end

-- The arrays among ... (others skipped) that gpu.<api> reads or writes, named by the
-- strings after each ({a, "input", out, "output"}): on the current device, as the C
-- operations check (a kernel's own words named neither the function nor the argument)
local function elsewhere(api, what, device, here)   -- (a copy of an output here would take the result)
  local out = what == "output" or what == "out"
  return ("%s: %s on device %d, and device %d is current: run it with gpu.with_device(%d, f)%s")
         :format(api:find(":", 1, true) and api or "gpu." .. api, what, device, here, device,
                 out and "" or (", or copy it here with a:to(%d)"):format(here))
end
function arg.here(api, list)
  local here = gpu._device_id()
  for i = 1, #list, 2 do
    local a = list[i]
    if gpu._is_array(a) and a.device ~= here then error(elsewhere(api, list[i + 1], a.device, here), 3) end
  end
end

-- The device of v, a device array or a sparse matrix (its arrays'), or nil (a freed array
-- too: the function's own check names it)
local function device_of(v)
  if type(v) == "table" and rawget(v, "format") and type(getmetatable(v)) == "table" then v = rawget(v, "data") end
  if not gpu._is_array(v) or arg.freed(v) then return nil end
  return v.device
end
-- The arrays a function is given, each named as a message names it: argument k by names[k]
-- ("argument k" past them), one in a table argument (a list's, an options table's, a list
-- of lists') as name[i] or by its key. Tables are read raw (a list object's metatable is
-- not asked), and a list whose first element is no table or array is taken for a list of
-- numbers, not walked (a million of them cost nothing). Each is checked as it is found: on
-- the current device, or (together) on the first one's; the message, or nil, and the first
-- array's device and name.
local function visit(api, together, name, d, first, first_name)
  if not together then
    local here = gpu._device_id()
    if d ~= here then return elsewhere(api, name, d, here) end
  elseif first and d ~= first then
    return ("%s: %s on device %d and %s on device %d: copy one to the other's device first (a:to(dev))")
           :format(api:find(":", 1, true) and api or "gpu." .. api, first_name, first, name, d)
  end
  return nil, first or d, first_name or name
end
local function walk(api, together, v, name, depth, first, first_name)
  local d = device_of(v)
  if d then return visit(api, together, name, d, first, first_name) end
  if type(v) ~= "table" or depth > 2 then return nil, first, first_name end
  local n, m = rawlen(v), nil
  if n > 0 then
    local t = type(rawget(v, 1))
    if t ~= "userdata" and t ~= "table" then return nil, first, first_name end
    for i = 1, n do
      local x = rawget(v, i)
      local tx = type(x)
      if tx == "userdata" or tx == "table" then
        m, first, first_name = walk(api, together, x, ("%s[%d]"):format(name, i), depth + 1, first, first_name)
        if m then return m end
      end
    end
    return nil, first, first_name
  end
  for k, x in next, v do
    local tx = type(x)
    if tx == "userdata" or tx == "table" then
      m, first, first_name = walk(api, together, x, type(k) == "string" and k or name, depth + 1, first, first_name)
      if m then return m end
    end
  end
  return nil, first, first_name
end

-- f, for gpu.<api> (or a method, "a:name"), whose arrays (walk's: its arguments named by names, else by f's
-- parameters) are checked before f does any work, as the C operations check theirs: on the
-- current device; or, with together (a copy or a view, made on its arrays' device), on one
-- device. The wrapper keeps f's arity (strict's check of extra arguments).
function arg.on_device(api, f, names, together)
  local info = debug.getinfo(f, "u")
  if not names then
    names = {}
    for i = 1, info.nparams do names[i] = debug.getlocal(f, i) end
  end
  local function check(n, ...)
    local m, first, first_name
    for k = 1, n do
      local v = (select(k, ...))
      local t = type(v)
      if t == "userdata" or t == "table" then
        m, first, first_name = walk(api, together, v, names[k] or ("argument %d"):format(k), 1, first, first_name)
        if m then error(m, 3) end
      end
    end
  end
  local w = function(...)
    check(select("#", ...), ...)
    return f(...)
  end
  arity[w] = arity[f] or not info.isvararg and info.nparams or nil
  return w
end

-- The first key of t besides 1 to n, as a message shows it ("x", or 4), or nil
local function stray_key(t, n)
  for k in next, t do
    if math.type(k) ~= "integer" or k < 1 or k > n then
      return type(k) == "string" and ("%q"):format(k) or tostring(k)
    end
  end
end

-- A list argument of gpu.<api> (a shape, dims, repetitions, quantiles, coefficients),
-- named what, read raw as the C functions read shapes: a hole is an error naming its place
-- ({10, nil, 90}: "gpu.percentile: q[2] is nil", where ipairs stopped at it and dropped
-- the 90, and # may count past it or not), and so is a key besides 1 to #t ({2, 3, x = 1}
-- was {2, 3}); at `level` (2: the caller's caller), counted from the function calling this,
-- as error's (0: none)
function arg.list(t, api, what, level)
  level = level == 0 and 0 or (level or 2) + 1
  local last, stray = 0, nil   -- one pass over the keys: the largest positive integer, another
  for k in next, t do
    if math.type(k) == "integer" and k >= 1 then
      if k > last then last = k end
    elseif stray == nil then
      stray = k
    end
  end
  for i = 1, last do   -- (past # too: a border # chose before a hole)
    if rawget(t, i) == nil then error(("gpu.%s: %s[%d] is nil"):format(api, what, i), level) end
  end
  if stray ~= nil then   -- (no hole: # is last)
    error(("gpu.%s: %s must be a list, and the table has a key %s besides its %d elements"):format(
      api, what, type(stray) == "string" and ("%q"):format(stray) or tostring(stray), last), level)
  end
  return t
end

-- A table of arrays (concatenate's, block's, lexsort's keys, choose's choices ...), `what`
-- in messages: a key besides 1..n (a misplaced option, an array after a hole) is an error,
-- not dropped; at `level` from the caller, as error's. hint: what a misplaced option's key
-- (a string) is told ("options go after it")
function arg.array_list(t, api, what, level, hint)
  local n = #t
  local k = stray_key(t, n)
  if k then
    error(("gpu.%s: %s has a key %s besides its %d elements%s"):format(api, what, k, n,
          hint and k:sub(1, 1) == '"' and " (" .. hint .. ")" or ""), level + 1)
  end
end

-- Option key of gpu.<api>'s options table opts (or nil): a boolean, dflt where absent (nil
-- there); any other value (0 and "false", which Lua takes as true) is an error, as
-- host/errors.c's errors_flag says it for the C functions, at the caller's caller (or at
-- level, counted from the function calling arg.flag, as error's)
function arg.flag(opts, key, api, dflt, level)
  local v = opts and opts[key]
  if v == nil then return dflt end
  if type(v) ~= "boolean" then
    error(("%s: option %s must be a boolean, got %s"):format(api:find(":", 1, true) and api or "gpu." .. api, key,
          type(v)), level and level + 1 or 3)
  end
  return v
end

-- An output array of gpu.<api>, named what: one that may be written (not an expanded
-- view or a view of one, as gpu.broadcast_to's)
function arg.writeable(a, api, what)
  local ok, w = pcall(a._writeable, a)   -- (a freed one: the caller's own check says so)
  if ok and not w then
    error(("gpu.%s: %s is an expanded view (a stride of 0) or a view of one (gpu.broadcast_to's are), "
           .. "which cannot be written: its elements may share memory"):format(api, what), 3)
  end
  return a
end

-- A dtype argument of gpu.<api> at argument pos, checked before any work: its name (an
-- error names the line that called gpu.<api>)
function arg.dtype(dtype, api, pos) return dtype_name(dtype, 4, "gpu." .. api, pos) end
-- opts.dtype of gpu.<api>, canonical (dflt where it is nil), or an error at `level` from the
-- function calling this: "gpu.linspace: option dtype: unknown dtype 'flaot32' (...)"
function arg.dtype_option(opts, api, dflt, level)
  if opts.dtype == nil then return dflt end
  local ok, name = pcall(dtype_name, opts.dtype, 0)
  if not ok then error(("gpu.%s: option dtype: %s"):format(api, name), level + 1) end
  return name
end

local function show(v)
  if v ~= v then return "nan" end
  if math.type(v) == "integer" then return tostring(v) end
  if v == math.floor(v) and math.abs(v) < 2^64 then return ("%.0f"):format(v) end
  return ("%.14g"):format(v)
end

-- What a value is, for messages: a number shown, else its type (userdata by __name).
local function what(v)
  if type(v) == "number" then return show(v) end
  local mt = getmetatable(v)
  return type(mt) == "table" and type(mt.__name) == "string" and mt.__name or type(v)
end

-- Calls f(...) for the public function `name`: an error it raises (a message naming
-- gpu.lua's own call) is said as name's, at `level` from here (3: name's caller when name
-- calls this itself); args maps f's argument numbers to name's ({[1] = 3}). Error objects
-- pass unchanged.
local function as(name, level, args, f, ...)
  local ok, r = pcall(f, ...)
  if ok then return r end
  if type(r) == "string" then
    r = r:gsub("^%[gpu%] lua/gpu%.lua:%d+: ", ""):gsub("^bad argument #(%d+) to '[%w_.]+'",
          function(i) return ("bad argument #%d to '%s'"):format(args[tonumber(i)] or i, name) end)
    -- a shape's own words (gpu.empty's "size must be non-negative") as that argument's
    if args.shape and not r:find("^bad argument") then r = ("bad argument #%d to '%s' (%s)"):format(args.shape, name, r) end
  end
  error(r, level)
end

-- The array behind full, ones and their _like forms, for the public function `name` whose
-- caller is at `level` from here; value is argument #vpos there.
local function full(name, level, vpos, shape, value, dtype)
  local inferred = dtype == nil   -- float32, or complex128 for a gpu.complex (NumPy's full(2, 1+1j))
  if inferred and arg.is_complex(value) then dtype = "complex128" end
  if inferred and type(value) == "boolean" then dtype = "bool" end   -- NumPy's full(2, True)
  dtype = dtype_name(dtype, level + 1, name, vpos == 0 and 2 or vpos + 1)   -- (ones' dtype is #2)
  local vt = type(value)
  if vt == "boolean" and dtype ~= "bool" then value, vt = value and 1 or 0, "number" end   -- NumPy's True is 1
  if vt ~= "number" and not (dtype == "bool" and vt == "boolean") and
     not (dtype:find("^complex") and arg.is_complex(value)) then
    error(("bad argument #%d to '%s' (%s expected, got %s)"):format(vpos, name,
          (inferred or dtype:find("^complex")) and "number, boolean or gpu.complex" or "number or boolean", what(value)), level)
  end
  local a = as(name, level + 1, {shape = 1}, gpu.empty, shape, dtype)
  if a.size > 0 then
    local launch = builtins()[("fill<%s>"):format(ctype_of[dtype])][config(a.size)]
    local ok, e = pcall(launch, a, a.size, value)
    if not ok then   -- the value out of the dtype's range, as the launch says it (with the range)
      error(type(e) == "string" and e:gsub("^.-kernel 'fill<[^']*' argument 3 %([^)]*%): (.*)$", function(why)
        if not why:find(" for ", 1, true) then why = why .. " for " .. dtype end
        return ("bad argument #%d to '%s' (%s)"):format(vpos, name, why)
      end) or e, level)
    end
  end
  return a
end

-- gpu.full(shape, value [, dtype]), gpu.ones(shape [, dtype])
function gpu.full(shape, value, dtype) local a = full("full", 3, 2, shape, value, dtype); return a end
function gpu.ones(shape, dtype) local a = full("ones", 3, 0, shape, 1, dtype); return a end

-- The shape and dtype of an array argument of name.
local function like(a, name)
  local ok, shape = pcall(function() return a.shape end)
  if type(a) ~= "userdata" or not ok or type(shape) ~= "table" then
    local freed = type(a) == "userdata" and not ok and tostring(shape):match("attempt to use a freed array")
    error(("bad argument #1 to '%s' (%s)"):format(name, freed or "array expected, got " .. what(a)), 3)
  end
  return shape, a.dtype
end
function gpu.zeros_like(a, dtype)
  local s, d = like(a, "zeros_like")
  local r = as("zeros_like", 3, {[2] = 2}, gpu.zeros, s, dtype or d)
  return r
end
function gpu.empty_like(a, dtype)
  local s, d = like(a, "empty_like")
  local r = as("empty_like", 3, {[2] = 2}, gpu.empty, s, dtype or d)
  return r
end
function gpu.ones_like(a, dtype)
  local s, d = like(a, "ones_like")
  local r = full("ones_like", 3, 0, s, 1, dtype or d)
  return r
end
function gpu.full_like(a, v, dtype)
  local s, d = like(a, "full_like")
  local r = full("full_like", 3, 2, s, v, dtype or d)
  return r
end

-- The first and last values of an arange must be ones its dtype holds (it is monotonic,
-- so then all are): out of range, a conversion from float64 is undefined in C (the GPU
-- saturates, the CPU wraps). Integer dtypes truncate toward 0, as C does.
local function check_arange(first, last, dtype)
  local lo, hi, why = table.unpack(range_of[dtype], 1, 3)
  local integral = not (dtype:match("^float") or dtype:match("^complex"))
  for _, v in ipairs({first, last}) do
    local out = integral and (v <= lo - 1 or v >= hi + 1) or (not integral and (v < lo or v > hi))
    if out then
      error(("bad argument to 'arange' (%s is out of range for %s: %s to %s%s)")
            :format(show(v), dtype, show(lo), show(hi), why and ", as " .. why or ""), 3)
    end
  end
end

-- Sums of two Lua integers as NumPy's Python ints give them, exact and then rounded once to
-- float64, also past int64's range (where Lua's wraps): v is the wrapped sum, negative
-- whether the true one is; it is 2^64 from v
local function unwrapped(v, negative)
  local u = negative and -v or v   -- its magnitude, an unsigned 64-bit integer (0: 2^64)
  local f = u == 0 and 2^64 or (u >> 32) * 4294967296.0 + (u & 0xffffffff)   -- (one rounding)
  return negative and -f or f
end
local function exact_sum(x, y)
  local s = x + y
  if math.type(s) ~= "integer" then return s end
  if (x < 0) == (y < 0) and (s < 0) ~= (x < 0) then return unwrapped(s, x < 0) end
  return s + 0.0
end
local function exact_difference(x, y)
  local d = x - y
  if math.type(d) ~= "integer" then return d end
  if (x < 0) ~= (y < 0) and (d < 0) ~= (x < 0) then return unwrapped(d, x < 0) end
  return d + 0.0
end

-- The quotient and remainder of two unsigned 64-bit integers (held in Lua's signed ones)
local function unsigned_divmod(n, d)
  local q
  if d < 0 then   -- d is 2^63 or more: the quotient is 0 or 1
    q = math.ult(n, d) and 0 or 1
  else            -- halve n so that // is signed, then at most one correction
    q = ((n >> 1) // d) << 1
    if not math.ult(n - q * d, d) then q = q + 1 end
  end
  return q, n - q * d
end

-- NumPy's count for three Lua integers (Python ints): ceil of (stop - start) / step, the
-- quotient of the exact difference rounded once to float64 (Python's int / int), not of a
-- difference rounded first: arange(0, 3 * 2^60 + 1, 2^60) has 3 values, as NumPy's
local function integer_count(start, stop, step)
  if stop == start or (stop > start) ~= (step > 0) then return 0 end
  local d = stop > start and stop - start or start - stop   -- magnitudes, unsigned
  local s = step > 0 and step or -step
  local q, r = unsigned_divmod(d, s)
  if not math.ult(q, 1 << 53) then return unwrapped(q, false) end   -- (far too many)
  if r == 0 or q == 0 then return q + (r == 0 and 0 or 1) end
  -- q + r / s lies between q and q + 1: it rounds to q where r / s is below half of
  -- q's ulp, 2^(e - 53) for q in [2^e, 2^(e + 1)), or at half of it where q is even there
  local e = 0
  while q >> (e + 1) ~= 0 do e = e + 1 end
  local k = 53 - e
  local half, low = s >> k, s & ((1 << k) - 1)
  if r < half or (r == half and low ~= 0) then return q end
  if r == half and low == 0 and (e < 52 or q % 2 == 0) then return q end
  return q + 1
end

-- gpu.arange(stop), gpu.arange(start, stop [, step] [, dtype]): start, start+step, ... < stop
function gpu.arange(start, stop, step, dtype)
  local dpos = type(stop) == "string" and 2 or type(step) == "string" and 3 or 4
  if type(stop) == "string" then stop, step, dtype = nil, nil, stop end
  if type(step) == "string" then step, dtype = nil, step end
  local given = {start, stop or 0, step or 1}
  for i = 1, 3 do
    local v = given[i]
    if type(v) ~= "number" or v ~= v then
      error(("bad argument #%d to 'arange' (number expected, got %s)"):format(i, what(v)), 2)
    end
  end
  if stop == nil then start, stop = 0, start end
  step = step or 1
  if step == 0 then error("bad argument #3 to 'arange' (step must not be 0)", 2) end
  dtype = dtype_name(dtype, 3, "arange", dpos)
  local given_start, delta = start, exact_difference(stop, start)
  local q = delta / step
  local n = math.max(0, math.ceil(q))
  if q == 0 and stop ~= start and 1 / q > 0 then n = 1 end   -- NumPy's: an infinite step toward stop gives start
  if math.type(start) == "integer" and math.type(stop) == "integer" and math.type(step) == "integer" then
    n = integer_count(start, stop, step)
  end
  if n == 1 then step = 0 end   -- (the kernel's start + 0 * inf would be NaN)
  local second = start + step   -- the second value, which NumPy stores as it is
  if n > 1 and dtype ~= "bool" then   -- NumPy's step: the first two values' difference, in
    local function trunc(v) return (v < 0 and math.ceil(v) or math.floor(v)) + 0.0 end   -- float64
    second = exact_sum(start, step)   -- (NumPy's start + step, of Python ints if both are)
    start = start * 1.0   -- (a float, -0.0 kept)
    if not dtype:match("^float") and not dtype:match("^complex") then start, second = trunc(start), trunc(second) end
    step = second - start
  end
  -- (gpu.empty's "size is too large" named neither arange nor the count); first, unless start
  -- or stop is infinite (out of the dtype's range): 1 / 5e-324 elements are inf, not a value
  local function too_many()
    error(("bad argument to 'arange' (%s elements: more than an array holds, 2^48)"):format(show(n)), 3)
  end
  if n > 2 ^ 48 and math.abs(delta) < math.huge then too_many() end
  if n > 0 then check_arange(given_start, n == 2 and second or start + (n - 1) * step, dtype) end
  if n > 2 ^ 48 then too_many() end
  local a = as("arange", 3, {}, gpu.empty, n, dtype)
  if n > 0 then
    builtins()[("arange<%s>"):format(ctype_of[dtype])][config(n)](a, n, start, second, step)
  end
  return a
end

local random = {}
gpu.random = random
local seed, calls = (os.time() * 2654435761 + math.floor(os.clock() * 1e6)) % (1 << 52), 0

-- gpu.random.seed(s): the same seed gives the same numbers; s is an integer in [0, 2^63)
-- (what the kernels take as unsigned long long without a change of sign)
function random.seed(s)
  local i = type(s) == "number" and math.tointeger(s)
  if not i or i < 0 then
    error(("bad argument #1 to 'seed' (an integer from 0 to 2^63 - 1 expected, got %s)")
          :format(type(s) == "number" and show(s) or type(s)), 2)
  end
  seed, calls = i, 0
end

-- Random numbers for the public function `name` (its caller 3 levels up from here), whose
-- shape is its argument #spos, dtype #spos + 1, and the two parameters #1 and #2.
local function generate(name, kind, spos, shape, dtype, p1, p2)
  dtype = dtype_name(dtype, 4, name, spos + 1)
  if dtype ~= "float32" and dtype ~= "float64" then
    error(("bad argument #%d to '%s' (random numbers are float32 or float64, not %s)")
          :format(spos + 1, name, dtype), 3)
  end
  local params = {p1, p2}
  for i = 1, 2 do
    if type(params[i]) ~= "number" then
      error(("bad argument #%d to '%s' (number expected, got %s)"):format(i, name, what(params[i])), 3)
    end
  end
  local a = as(name, 4, {spos, shape = spos}, gpu.empty, shape, dtype)
  local n = a.size
  if n > 0 then
    local per = dtype == "float32" and 4 or 2
    builtins()[kind .. "_" .. dtype][config((n + per - 1) // per)](a, n, seed, calls, p1, p2)
  end
  calls = calls + 1
  return a
end

-- The float32 kernels take their parameters as float32 and compute in it: parameters
-- (and for uniform high - low) finite in float64 that overflow float32 are refused, not
-- turned into inf and NaN (inf and NaN given go on as in float64).
local F32_ROUNDS_TO_INF = 0x1.ffffffp127   -- FLT_MAX and half its ulp: from here on, inf
local function float32_params(name, dtype, params, what, diff, high, low)
  if canonical[dtype or "float32"] ~= "float32" then return end
  for i = 1, 2 do if type(params[i]) ~= "number" then return end end   -- said by generate
  for i = 1, 2 do
    local v = params[i]
    if math.abs(v) >= F32_ROUNDS_TO_INF and math.abs(v) < math.huge then
      error(("bad argument to '%s' (%s must be finite in float32 (|x| <= 3.4028235e+38), got %s: "
             .. "use float64)"):format(name, what, show(v)), 3)
    end
  end
  if diff then
    local f32 = function(x) return (string.unpack("f", string.pack("f", x))) end
    if math.abs(f32(high) - f32(low)) >= F32_ROUNDS_TO_INF then
      error(("bad argument to '%s' (%s (%s - %s) must be finite in float32 (|x| <= 3.4028235e+38): "
             .. "use float64)"):format(name, diff, show(high), show(low)), 3)
    end
  end
end

-- gpu.random.random(shape [, dtype]): uniform on [0, 1)
function random.random(shape, dtype)
  local a = generate("random", "uniform", 1, shape, dtype, 0, 1)
  return a
end
-- gpu.random.uniform(low, high, shape [, dtype]): uniform on [low, high)
function random.uniform(low, high, shape, dtype)
  if gpu._is_array(low) or gpu._is_array(high) then return random._arrays("uniform", low, high, shape, dtype) end
  if type(low) == "number" and type(high) == "number" and not (math.abs(high - low) < math.huge) then
    if low ~= low or high ~= high then   -- the one that is NaN named (the first if both)
      error(("bad argument #%d to 'uniform' (%s must be a number, got nan)"):format(low ~= low and 1 or 2,
            low ~= low and "low" or "high"), 2)
    end
    error(("bad argument #2 to 'uniform' (high - low (%s - %s) must be finite, as NumPy's)"):format(show(high), show(low)), 2)
  end
  float32_params("uniform", dtype, {low, high}, "low and high", "high - low", high, low)
  local a = generate("uniform", "uniform", 3, shape, dtype, low, high)
  return a
end
-- gpu.random.normal(mean, stddev, shape [, dtype])
function random.normal(mean, stddev, shape, dtype)
  if gpu._is_array(mean) or gpu._is_array(stddev) then return random._arrays("normal", mean, stddev, shape, dtype) end
  if type(stddev) == "number" and stddev < 0 then
    error(("bad argument #2 to 'normal' (stddev must be non-negative, got %s)"):format(show(stddev)), 2)
  end
  float32_params("normal", dtype, {mean, stddev}, "mean and stddev")
  local a = generate("normal", "normal", 3, shape, dtype, mean, stddev)
  return a
end

------------------------------------------------------------------------------------
-- devices

-- f(...) between a change and its undo, also when f raises (the error goes on) and when a
-- coroutine suspended in f is closed (a to-be-closed guard; a pcall alone left the state set
-- there). change and undo are lists {C function, its arguments...}. The guard exists before
-- the change; host/gpu.c's _guarded makes the change, arming the guard, calls f and undoes
-- the change in one C call, and the guard's __close is C too: a debug hook that raises at any
-- Lua instruction finds the state as it was (the change came before the guard, and an undo in
-- Lua could stop halfway). (gpu.with_device, gpu.printoptions, gpu.range)
local guarded, guard_mt = gpu._guarded, {__close = gpu._guard_undo}
function arg.guarded(change, undo, f, ...)
  local guard <close> = setmetatable(undo, guard_mt)
  return guarded(guard, change, f, ...)
end
-- a function, or a value whose metatable has __call (gpu.sqrt, gpu.add)
local function callable(f)
  local mt = type(f) ~= "function" and debug.getmetatable(f)
  return type(f) == "function" or (type(mt) == "table" and rawget(mt, "__call") ~= nil)
end
arg.callable = callable

-- gpu.with_device(id, f, ...): f(...) with device id current; the device current before
-- is current again afterwards (arg.guarded)
function gpu.with_device(id, f, ...)
  local n = gpu.device_count()
  if type(id) == "table" then id = id.id end   -- gpu.device(1), as a:to takes it (device.c's device_ordinal)
  if type(id) == "number" then id = math.tointeger(id) or id end   -- 1.0 names device 1, as gpu.device(1.0) does ("1" does not)
  if math.type(id) ~= "integer" or id < 0 or id >= n then
    error(("gpu.with_device: no device %s (%d device%s, numbered from 0)"):format(
      type(id) == "number" and show(id) or type(id) == "string" and ("%q"):format(id) or tostring(id),
      n, n == 1 and "" or "s"), 2)
  end
  if not callable(f) then   -- (a table or userdata with __call too: gpu.sqrt was refused)
    error("gpu.with_device: a function (or a callable value) expected as argument 2, got " .. type(f), 2)
  end
  local prev = gpu.device()
  return arg.guarded({prev.use, gpu.device(id)}, {prev.use, prev}, f, ...)
end

-- gpu.range(name, f, ...): f(...) inside a range named name (host/profile.c's range_push
-- and range_pop); its results. The range is closed also when f raises, and the error goes on.
function gpu.range(...)
  local name, f = ...
  if type(name) ~= "string" and type(name) ~= "number" then
    error(("bad argument #1 to 'gpu.range' (string expected, got %s)"):format(
      select("#", ...) == 0 and "no value" or type(name)), 2)
  end
  if not callable(f) then   -- (a table or userdata with __call too: gpu.sqrt was refused)
    error(("bad argument #2 to 'gpu.range' (function or callable value expected, got %s)"):format(
      select("#", ...) < 2 and "no value" or type(f)), 2)
  end
  return arg.guarded({gpu.range_push, name}, {gpu.range_pop}, f, select(3, ...))
end

-- errors at the caller's line, also those of the calls these make
for _, name in ipairs({"kernel", "module", "jit", "vectorize"}) do gpu[name] = gpu._api(gpu[name]) end
for _, name in ipairs({"full", "ones", "zeros_like", "empty_like", "ones_like", "full_like", "arange"}) do
  gpu[name] = strict(name, gpu._api(gpu[name]))   -- NumPy's shape =, order = refused, not dropped
end
for _, name in ipairs({"seed", "random", "uniform", "normal"}) do
  random[name] = strict("random." .. name, gpu._api(random[name]))   -- normal(0, 1, {3}, "float32", {out = o}) refused
end

-- gpu.random.integers, permutation, choice, key and NumPy's distributions (lua/random.lua,
-- loaded at the first of them, which defines them anew): each call draws from the
-- generator's state here
local random_hooks = {
  draw = function() local c = calls; calls = calls + 1; return seed, c end,
  config = config, dtype_name = dtype_name, what = what, range_of = range_of,
}
for _, name in ipairs({"integers", "permutation", "choice", "key", "exponential", "standard_exponential", "gamma",
                       "standard_gamma", "beta", "chisquare", "lognormal", "laplace", "logistic", "gumbel", "rayleigh",
                       "weibull", "pareto", "power", "standard_cauchy", "standard_t", "triangular", "poisson",
                       "binomial", "geometric", "shuffle", "rand", "randn", "random_sample", "standard_normal",
                       "randint", "f", "noncentral_chisquare", "noncentral_f", "vonmises", "wald", "negative_binomial",
                       "zipf", "logseries", "hypergeometric", "_arrays", "ranf", "sample", "random_integers", "bytes",
                       "multinomial", "dirichlet", "multivariate_normal"}) do
  random[name] = function(...)
    module("lua/random.lua", random_hooks)
    return random[name](...)
  end
end
-- numba's xoroshiro128+ states for gpu.jit's gpu.random.xoroshiro128p_* (lua/random.lua too)
function random.create_xoroshiro128p_states(...)
  module("lua/random.lua", random_hooks)
  return random.create_xoroshiro128p_states(...)
end
-- what gpu.jit kernels draw from them (lua/jit/intrinsics.lua; also read from an upvalue,
-- as numba's imported names are: local uniform = gpu.random.xoroshiro128p_uniform_float32)
for _, name in ipairs({"uniform_float32", "uniform_float64", "normal_float32", "normal_float64"}) do
  random["xoroshiro128p_" .. name] = function()
    error(("gpu.random.xoroshiro128p_%s draws inside gpu.jit kernels only"):format(name), 2)
  end
end
