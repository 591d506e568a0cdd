-- random.lua: gpu.random.integers, permutation, choice, key, shuffle and NumPy's
-- distributions (gamma, poisson, binomial, ...), on kernels/builtin.cu's Philox kernels (a
-- module of their own, compiled at the first use of one of these) and gpuhost's sort: a
-- permutation is the order of random 64-bit keys, a choice without replacement the first
-- of a permutation (or of keys -log(u)/p with probabilities).
local gpu, hooks = ...
local random = gpu.random
local ctype = {}
for _, d in ipairs(gpu._dtypes) do ctype[d.name] = d.ctype end
local INTEGER = {int8 = true, int16 = true, int32 = true, int64 = true, uint8 = true, uint16 = true,
                 uint32 = true, uint64 = true}
local BITS = {[1] = "unsigned char", [2] = "unsigned short", [4] = "unsigned int", [8] = "unsigned long long"}

local module
local function kernels()
  if not module then
    local names = {"random_bits", "search_cdf", "weighted_keys"}
    for dt in pairs(INTEGER) do names[#names + 1] = ("integers<%s>"):format(ctype[dt]) end
    for _, t in pairs(BITS) do names[#names + 1] = ("take_rows<%s>"):format(t) end
    table.sort(names)
    module = gpu.module(gpu._embedded("kernels/builtin.cu"), {names = names})
  end
  return module
end

-- each function's parameters as messages name them, where its own (a wrapper's ...) do not
local PARAMS = {permutation = {"a"}}
local ARITY = {}   -- the parameters' count of each function of `...` whose count is fixed
local OPTIONS = {choice = 3, multivariate_normal = 4, create_xoroshiro128p_states = 3}   -- their options' place
local function param_names(f)
  local names = {}
  for i = 1, debug.getinfo(f, "u").nparams do names[i] = debug.getlocal(f, i) end
  return names
end
-- The public function random[name]: its arrays on the current device, checked before any
-- work or draw (a refused call leaves the generator where it was), its errors at the
-- caller's line (also those of the checks below: through int_arg a level deeper, of an
-- array's methods called here: a freed array); an argument beyond its parameters refused
-- (gpu.lua's strict), not dropped
-- f, refusing a freed array among its arguments (or in a table argument: choice's p) by
-- the function's and the parameter's names (it raised a bare 'attempt to use a freed array')
local function no_freed(name, f, names)
  local function freed(v) return type(v) == "userdata" and gpu._is_array(v) and gpu._arg.freed(v) end
  return function(...)
    for k = 1, select("#", ...) do
      local v, what = (select(k, ...)), names[k] or ("argument %d"):format(k)
      if freed(v) then error(("bad argument #%d to '%s' (%s: attempt to use a freed array)"):format(k, name, what)) end
      if type(v) == "table" and (rawlen(v) == 0 or type(rawget(v, 1)) == "userdata") then   -- not a list of numbers
        for key, x in next, v do
          if freed(x) then
            error(("bad argument #%d to '%s' (%s: attempt to use a freed array)")
                  :format(k, name, type(key) == "string" and key or ("%s[%s]"):format(what, key)))
          end
        end
      end
    end
    return f(...)
  end
end
local function public(name)
  local f = random[name]
  local info, names = debug.getinfo(f, "u"), PARAMS[name] or param_names(f)   -- (f's: no_freed's wrapper takes ...)
  random[name] = gpu._arg.strict("random." .. name, gpu._api(gpu._arg.on_device("random." .. name,
                                 no_freed(name, f, names), names)),
                                 ARITY[name] or not info.isvararg and info.nparams or nil, OPTIONS[name])
end

local function fail(name, i, msg) error(("bad argument #%d to '%s' (%s)"):format(i, name, msg), 3) end
local function int_arg(name, i, v)
  local n = type(v) == "number" and math.tointeger(v)
  if not n then fail(name, i, "integer expected, got " .. hooks.what(v)) end
  return n
end

local function shaped(name, pos, shape)
  local ok, s, size = pcall(gpu._shape, shape)   -- gpu.empty's reading, nothing allocated
  if not ok then error(("bad argument #%d to '%s' (%s)"):format(pos, name, gpu._arg.unwrapped(s)), 3) end
  return s, size
end

-- gpu.random.integers(low, high, shape [, dtype]): uniform integers in [low, high)
function random.integers(low, high, shape, dtype)
  low, high = int_arg("integers", 1, low), int_arg("integers", 2, high)
  dtype = hooks.dtype_name(dtype or "int64", 3, "integers", 4)
  if not INTEGER[dtype] then fail("integers", 4, ("an integer dtype expected, got %s"):format(dtype)) end
  local s, size = shaped("integers", 3, shape)
  if size == 0 then return gpu.empty(s, dtype) end   -- no bounds checked where nothing is drawn, as NumPy's
  if low >= high then fail("integers", 2, ("high (%d) must be above low (%d)"):format(high, low)) end
  local lo, hi = table.unpack(hooks.range_of[dtype], 1, 2)
  if dtype == "uint64" then lo, hi = 0, math.maxinteger end
  if dtype == "int64" then lo, hi = math.mininteger, math.maxinteger end
  if low < lo or high - 1 > hi then
    fail("integers", 1, ("[%d, %d) is out of range for %s"):format(low, high, dtype))
  end
  local a = gpu.empty(s, dtype)
  local seed, call = hooks.draw()
  if a.size > 0 then
    kernels()[("integers<%s>"):format(ctype[dtype])][hooks.config((a.size + 1) // 2)](a, a.size, seed, call, low, high - low)
  end
  return a
end

-- n random 64-bit keys' order: a permutation of 1 .. n (int64)
local function perm(n)
  local keys = gpu.empty(n, "uint64")
  local seed, call = hooks.draw()
  if n > 0 then kernels().random_bits[hooks.config((n + 1) // 2)](keys, n, seed, call) end
  local p = gpu.argsort(keys)
  keys:free()
  return p
end

-- the rows of x (contiguous) in the order of the 1-based int64 indices idx (n of them)
local function take(x, idx, shape)
  local rows = x.ndim > 0 and x.shape[1] or 1
  local len = rows > 0 and x.size // rows or 0
  local size = gpu.empty(1, x.dtype).nbytes
  local t, n = BITS[size] or BITS[8], idx.size
  if not BITS[size] then len = len * size // 8 end
  local out = gpu.empty(shape, x.dtype)
  if n * len > 0 then
    kernels()[("take_rows<%s>"):format(t)][hooks.config(n * len)](x:contiguous(), out, idx:contiguous(), n, len)
  end
  return out
end

-- gpu.random.permutation(n): 1 .. n in a random order (int64); permutation(a): a's rows
-- (along its first dim) in a random order
function random.permutation(x)
  if type(x) == "number" then
    local n = int_arg("permutation", 1, x)
    if n < 0 then fail("permutation", 1, "a size must be non-negative, got " .. n) end
    gpu._arg.elements(n, "random.permutation", 3)
    return perm(n)
  end
  if type(x) ~= "userdata" or getmetatable(x) ~= gpu._meta.array then
    fail("permutation", 1, "a number or a device array expected, got " .. hooks.what(x))
  end
  if x.ndim == 0 then fail("permutation", 1, "a 0-D array has no rows to shuffle") end
  return take(x, perm(x.shape[1]), x.shape)
end

local function probabilities(p, n)
  if type(p) ~= "userdata" or getmetatable(p) ~= gpu._meta.array or p.ndim ~= 1 or p.size ~= n then
    error(("gpu.random.choice: p must be a 1-D device array of %d probabilities"):format(n), 3)
  end
  if p.dtype:find("complex", 1, true) then   -- NumPy: cannot cast complex to float64 (the imaginary part was dropped)
    error(("gpu.random.choice: p must be a real array, got %s"):format(p.dtype), 3)
  end
  local w = p:astype("float64")
  local total, least = w:sum(), n > 0 and w:min() or 0
  if total ~= total or total == math.huge then   -- NumPy: "probabilities contain NaN"
    error(("gpu.random.choice: probabilities must be finite numbers (p has %s)")
          :format(w:isnan():any() and "NaN" or "an infinity"), 3)
  end
  if least < 0 then error("gpu.random.choice: probabilities must be non-negative", 3) end
  -- NumPy allows sqrt(eps) of p's float dtype (float64's for others) off 1
  if math.abs(total - 1) > math.sqrt(p.dtype == "float16" and 2^-10 or p.dtype == "float32" and 2^-23 or 2^-52) then
    error(("gpu.random.choice: probabilities do not sum to 1 (they sum to %.17g)"):format(total), 3)
  end
  return w
end

-- (size, opts) of a function of a size and options (argument #at): a table of named keys
-- alone is the options; opts checked to be among `known`
local function size_and_options(name, at, size, opts, known)
  if type(size) == "table" and opts == nil and getmetatable(size) == nil and size[1] == nil and next(size) ~= nil then
    size, opts = nil, size
  end
  if opts ~= nil and type(opts) ~= "table" then fail(name, at, "an options table expected, got " .. hooks.what(opts)) end
  return size, gpu._arg.options(opts, "random." .. name, known)
end

-- gpu.random.choice(a, [size] [, {replace = true, p = probs}]): elements of a (a 1-D device
-- array; or a number n: 1 .. n), with or without replacement, uniformly or by p
function random.choice(a, size, opts)
  size, opts = size_and_options("choice", 3, size, opts, "replace p")
  local n, pool
  if type(a) == "number" then
    n = int_arg("choice", 1, a)
  elseif type(a) == "userdata" and getmetatable(a) == gpu._meta.array and a.ndim == 1 then
    pool, n = a, a.size
  else
    fail("choice", 1, "a number or a 1-D device array expected, got " .. hooks.what(a))
  end
  local shape, k = shaped("choice", 2, size == nil and {} or size)
  -- no population: refused only where something is taken, as NumPy's Generator
  if n < 1 and k > 0 then
    fail("choice", 1, pool and "an empty array has nothing to choose" or "a population of at least 1 expected, got " .. n)
  end
  n = math.max(n, 0)
  local replace = gpu._arg.flag(opts, "replace", "random.choice", true)
  local idx
  if opts.p == nil then
    if replace then   -- 1 .. n (n + 1 wraps for math.maxinteger)
      idx = n < math.maxinteger and random.integers(1, n + 1, shape) or random.integers(0, n, shape) + 1
    elseif k > n then
      error(("gpu.random.choice: cannot take %d of %d without replacement"):format(k, n), 2)
    elseif n > 1 << 48 then   -- (a permutation of 1 .. n: gpu.empty's bare "size is too large")
      error(("gpu.random.choice: choosing without replacement permutes 1 .. n, and n = %d is more than an array holds (2^48)"):format(n), 2)
    else idx = perm(n)[{{1, k}}]:contiguous():reshape(shape) end
  else
    local w = probabilities(opts.p, n)
    if replace then
      local cdf, u = w:cumsum(), random.random(shape, "float64")
      idx = gpu.empty(shape, "int64")
      if k > 0 then kernels().search_cdf[hooks.config(k)](cdf, n, u, k, idx) end
    else
      if k > w:count_nonzero() then
        error(("gpu.random.choice: cannot take %d without replacement: p has %d nonzero entries"):format(k, w:count_nonzero()), 2)
      end
      local keys = gpu.empty(n, "float64")
      local seed, call = hooks.draw()
      kernels().weighted_keys[hooks.config(n)](w, n, seed, call, keys)
      idx = gpu.argsort(keys)[{{1, k}}]:contiguous():reshape(shape)
    end
  end
  if pool then return take(pool, idx:reshape(k), shape) end
  return idx
end

-- gpu.random.key(): a seed for gpu::philox in a kernel (0 to 2^63 - 1), a new one each call,
-- the same ones after the same gpu.random.seed(s)
function random.key()
  local seed, call = hooks.draw()
  local z = seed + (call + 1) * 0x9E3779B97F4A7C15   -- splitmix64 of the state
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return (z ~ (z >> 31)) & math.maxinteger
end

for _, name in ipairs({"integers", "permutation", "choice", "key"}) do public(name) end

------------------------------------------------------------------------------------
-- NumPy's distributions, on builtin.cu's continuous and discrete kernels (a module of their
-- own, compiled at the first draw from one: their samplers take the CPU backend's compiler
-- longer than the kernels above, which integers and shuffles need alone): each element its
-- own Philox stream, so the numbers depend only on the seed, the call and the index, on
-- either backend. The parameters are Lua numbers, checked here as NumPy checks them: a NaN
-- one gives NaN draws for a continuous distribution without a launch (a rejection loop
-- would never end on it), as NumPy's Generator and legacy functions give NaN, and is refused
-- by a discrete one, as NumPy refuses it; or device arrays, broadcast as NumPy's, checked on
-- the device (a reduction each; NaN refused where a rule is) and drawn from by the `_at` kernels.

local dists = gpu._builtins({
  "continuous<float>", "continuous<double>", "discrete<long long>", "continuous_at<float>", "continuous_at<double>",
  "discrete_at<long long>"})

-- builtin.cu's DIST_ numbers (continuous) and DISCRETE_ numbers
local KIND = {exponential = 1, gamma = 2, beta = 3, chisquare = 4, lognormal = 5, laplace = 6, logistic = 7,
              gumbel = 8, rayleigh = 9, weibull = 10, pareto = 11, power = 12, standard_cauchy = 13,
              standard_t = 14, triangular = 15, f = 16, noncentral_chisquare = 17, noncentral_f = 18,
              vonmises = 19, wald = 20, normal = 21, uniform = 22}
local DISCRETE = {poisson = 1, binomial = 2, geometric = 3, negative_binomial = 4, zipf = 5, logseries = 6,
                  hypergeometric = 7}

local function number_arg(name, i, what, v)
  if type(v) ~= "number" or v ~= v then fail(name, i, ("%s must be a number, got %s"):format(what, hooks.what(v))) end
  return v
end

-- The rule each parameter keeps, as NumPy words it: bounds (each open or closed; none: nil)
-- and NumPy's words for the values outside
local RULES = {
  ["non-negative"] = {0, true, nil, nil, "%s < 0"},
  positive = {0, false, nil, nil, "%s <= 0"},
  ["in [0, 1]"] = {0, true, 1, true, "%s < 0, > 1"},
  ["in (0, 1]"] = {0, false, 1, true, "%s <= 0, > 1"},
  ["in [0, 1)"] = {0, true, 1, false, "%s < 0, >= 1"},
  ["above 1"] = {1, false, nil, nil, "%s <= 1"},
  ["at least 1"] = {1, true, nil, nil, "%s < 1"},
}
-- whether v keeps the rule: a number, or an array's least and greatest (NaN if it has one)
local function keeps(rule, least, most)
  local r = RULES[rule]
  most = most or least
  if r[1] and not (least > r[1] or r[2] and least == r[1]) then return false end
  if r[3] and not (most < r[3] or r[4] and most == r[3]) then return false end
  return true
end
local function param(name, i, what, v, rule, nan)
  if nan and v ~= v then return v end   -- a NaN number, where `nan` lets it through
  v = number_arg(name, i, what, v)
  if rule and not keeps(rule, v) then fail(name, i, ("%s must be %s, got %s"):format(what, rule, hooks.what(v))) end
  return v
end

-- An array parameter's check: its min (and for a rule of two bounds its max), reductions
-- on the device, each read back once; NaN fails as either is NaN
local function array_param(name, i, what, a, rule, integer)
  if integer and not INTEGER[a.dtype] and a.dtype ~= "bool" then
    fail(name, i, ("%s must be an integer array, got %s"):format(what, a.dtype))
  end
  if a.dtype:find("complex", 1, true) then fail(name, i, ("%s must be a real array, got %s"):format(what, a.dtype)) end
  local b = a.dtype == "bool" and a:astype("int64") or a
  if a.dtype == "uint64" and a.size > 0 and a:max() < 0 then   -- 2^63 or more, read back below 0
    if integer then fail(name, i, ("%s must be below 2^63, got a uint64 array holding 2^63 or more"):format(what)) end
    b = a:astype("float64")   -- (its rule, and a bound of its own, as a number's)
  end
  if rule and a.size > 0 and not keeps(rule, RULES[rule][1] and b:min() or 0, RULES[rule][3] and b:max() or 0) then
    fail(name, i, ("%s must be %s, got an array with %s or NaN"):format(what, rule, RULES[rule][5]:format(what)))
  end
  return a
end

-- A parameter for the `_at` kernels: a float64 (int64: integer) array of the result's
-- shape `s` (size n) and its stride, 1; or of one element and 0
local function operand(v, s, n, integer)
  local dt = integer and "int64" or "float64"
  if not gpu._is_array(v) then return gpu.full({1}, v or 0, dt), 0 end
  if v.size == 1 or n == 0 then return v:astype(dt):reshape({v.size}), 0 end
  return gpu.broadcast_to(v:astype(dt), s):contiguous(), 1
end

-- The result's shape: `shape` (argument #spos), which the array parameters must broadcast
-- to, or without one (nil) theirs broadcast
local function result_shape(name, spos, shape, arrays)
  local shapes = {}
  for _, a in ipairs(arrays) do shapes[#shapes + 1] = a.shape end
  local ok, b = pcall(gpu.broadcast_shapes, table.unpack(shapes))
  if not ok then
    local why = tostring(b):gsub("^[^:\n]*:%d+: ", "")
    if not why:find("does not broadcast", 1, true) then   -- (too large)
      fail(name, 1, (why:gsub("^gpu%.broadcast_shapes: the broadcast shape", "the parameters' broadcast shape")))
    end
    fail(name, 1, "parameters that broadcast together expected: " .. why)
  end
  if shape == nil then return (shaped(name, spos, b)) end
  local s = shaped(name, spos, shape)
  local both = select(2, pcall(gpu.broadcast_shapes, s, b))
  if type(both) ~= "table" or #both ~= #s or table.concat(both, ",") ~= table.concat(s, ",") then
    fail(name, spos, ("a shape the parameters (shape {%s}) broadcast to expected, got {%s}")
         :format(table.concat(b, ", "), table.concat(s, ", ")))
  end
  return s
end

-- Checks the parameters `ps` ({value, what, rule [, integer]}, argument #1, #2, ... of the
-- function `name`): numbers as above (NaN let through with `nan`: a continuous
-- distribution's), arrays on the device; whether any is an array
local function checked(name, ps, nan)
  local any = false
  for i, p in ipairs(ps) do
    if gpu._is_array(p[1]) then
      any = true
      array_param(name, i, p[2], p[1], p[3], p[4])
    elseif p[4] then
      local n = int_arg(name, i, p[1])
      if p[3] and not keeps(p[3], n) then fail(name, i, ("%s must be %s, got %d"):format(p[2], p[3], n)) end
      p[1] = n
    else
      p[1] = param(name, i, p[2], p[1], p[3], nan)
    end
  end
  return any
end

local function float_dtype(name, spos, dtype)
  dtype = hooks.dtype_name(dtype, 5, name, spos + 1)
  if dtype ~= "float32" and dtype ~= "float64" then
    fail(name, spos + 1, ("random numbers are float32 or float64, not %s"):format(dtype))
  end
  return dtype
end

-- An array of shape (argument #spos of the function `name`) and dtype (#spos + 1: float32
-- or float64) drawn from the continuous distribution `kind` with parameters p1, p2, p3:
-- numbers, or (any of them) device arrays; a NaN number: NaN draws, as NumPy's
local function continuous(name, kind, spos, shape, dtype, p1, p2, p3)
  dtype = float_dtype(name, spos, dtype)
  local ps, arrays, nan = {p1, p2, p3}, {}, false
  for k = 1, 3 do
    if gpu._is_array(ps[k]) then arrays[#arrays + 1] = ps[k] end
    nan = nan or ps[k] ~= ps[k]
  end
  if nan then   -- the call draws still, so that the calls after it draw what they would
    local s = #arrays == 0 and shaped(name, spos, shape) or result_shape(name, spos, shape, arrays)
    local a = gpu.full(s, 0 / 0, dtype)
    hooks.draw()
    return a
  end
  if #arrays == 0 then
    local s = shaped(name, spos, shape)
    local a = gpu.empty(s, dtype)
    local seed, call = hooks.draw()
    if a.size > 0 then
      local launch = dists(("continuous<%s>"):format(ctype[dtype]))[hooks.config(a.size)]
      launch(a, a.size, seed, call, KIND[kind], p1 or 0, p2 or 0, p3 or 0)
    end
    return a
  end
  local s = result_shape(name, spos, shape, arrays)
  local a = gpu.empty(s, dtype)   -- drawn in float64, stored in dtype (uniform's [low, high) there)
  local n = a.size
  local o1, s1 = operand(p1, s, n)
  local o2, s2 = operand(p2, s, n)
  local o3, s3 = operand(p3, s, n)
  local seed, call = hooks.draw()
  if n > 0 then
    dists(("continuous_at<%s>"):format(ctype[dtype]))[hooks.config(n)](a, n, seed, call, KIND[kind], o1, s1, o2, s2, o3, s3)
  end
  return a
end

-- int64 counts of shape (argument #spos) from the discrete distribution `name`, with the
-- integer parameter count and the real ones p and q; number parameters of the older
-- three (poisson, binomial, geometric) on the discrete kernel, the rest on discrete_at
local function discrete(name, spos, shape, count, p, q)
  local arrays = {}
  for _, v in ipairs({count or 0, p or 0, q or 0}) do if gpu._is_array(v) then arrays[#arrays + 1] = v end end
  if #arrays == 0 and DISCRETE[name] <= 3 then
    local s = shaped(name, spos, shape)
    local a = gpu.empty(s, "int64")
    local seed, call = hooks.draw()
    if a.size > 0 then
      -- at most 1024 blocks: a block first sums its table (kernels/builtin.cu), so each
      -- block should then draw many elements
      local cfg = hooks.config(a.size)
      cfg[1] = math.min(cfg[1], 1024)
      dists("discrete<long long>")[cfg](a, a.size, seed, call, DISCRETE[name], count, p)
    end
    return a
  end
  local s = #arrays > 0 and result_shape(name, spos, shape, arrays) or shaped(name, spos, shape)
  local a = gpu.empty(s, "int64")
  local n = a.size
  local oc, sc = operand(count, s, n, true)
  local op, sp = operand(p, s, n)
  local oq, sq = operand(q, s, n)
  local seed, call = hooks.draw()
  if n > 0 then dists("discrete_at<long long>")[hooks.config(n)](a, n, seed, call, DISCRETE[name], oc, sc, op, sp, oq, sq) end
  return a
end

-- Public functions of the continuous distributions: (p1, ..., pk, shape [, dtype]), each
-- parameter {what, rule}; `fixed` the kernel's parameters after them (a standard one's)
local function continuous_api(name, kind, params, fixed)
  PARAMS[name], ARITY[name] = {}, #params + 2   -- (p1, ..., pk, shape, dtype)
  for i, p in ipairs(params) do PARAMS[name][i] = p[1] end
  random[name] = function(...)
    local args, ps = table.pack(...), {}
    for i, p in ipairs(params) do ps[i] = {args[i], p[1], p[2]} end
    checked(name, ps, true)
    local k, vals = #params, {}
    for i = 1, k do vals[i] = ps[i][1] end
    for i, v in ipairs(fixed or {}) do vals[k + i] = v end
    return continuous(name, kind, k + 1, args[k + 1], args[k + 2], vals[1], vals[2], vals[3])
  end
end
continuous_api("exponential", "exponential", {{"scale", "non-negative"}})
continuous_api("standard_exponential", "exponential", {}, {1})
continuous_api("gamma", "gamma", {{"shape_k", "non-negative"}, {"scale", "non-negative"}})
continuous_api("standard_gamma", "gamma", {{"shape_k", "non-negative"}}, {1})
continuous_api("beta", "beta", {{"a", "positive"}, {"b", "positive"}})
continuous_api("chisquare", "chisquare", {{"df", "positive"}})
continuous_api("lognormal", "lognormal", {{"mean"}, {"sigma", "non-negative"}})
for _, name in ipairs({"laplace", "logistic", "gumbel"}) do   -- (loc, scale, shape [, dtype])
  continuous_api(name, name, {{"loc"}, {"scale", "non-negative"}})
end
continuous_api("rayleigh", "rayleigh", {{"scale", "non-negative"}})
continuous_api("weibull", "weibull", {{"a", "non-negative"}})
continuous_api("pareto", "pareto", {{"a", "positive"}})
continuous_api("power", "power", {{"a", "positive"}})
continuous_api("standard_cauchy", "standard_cauchy", {})
continuous_api("standard_t", "standard_t", {{"df", "positive"}})
continuous_api("f", "f", {{"dfnum", "positive"}, {"dfden", "positive"}})
continuous_api("noncentral_chisquare", "noncentral_chisquare", {{"df", "positive"}, {"nonc", "non-negative"}})
continuous_api("noncentral_f", "noncentral_f", {{"dfnum", "positive"}, {"dfden", "positive"}, {"nonc", "non-negative"}})
continuous_api("vonmises", "vonmises", {{"mu"}, {"kappa", "non-negative"}})
continuous_api("wald", "wald", {{"mean", "positive"}, {"scale", "positive"}})

-- the greatest element of f(...) of the arrays (numbers made 0-D arrays): one reduction,
-- one read back; NaN if f gives one; -inf if empty
local function most(f, ...)
  local args = table.pack(...)
  for i = 1, args.n do if not gpu._is_array(args[i]) then args[i] = gpu.full({}, args[i], "float64") end end
  local m = f(table.unpack(args, 1, args.n))
  return m.size > 0 and m:max() or -math.huge
end
local function above0(x) return not (x <= 0) end   -- NaN too
-- The parameters' shapes checked as the draw checks them, before the checks above compute
-- with them (which said "gpu.subtract: shapes ... do not broadcast")
local function broadcast_first(name, spos, shape, ...)
  local arrays = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if gpu._is_array(v) then arrays[#arrays + 1] = v end
  end
  result_shape(name, spos, shape, arrays)
end
function random.triangular(left, mode, right, shape, dtype)
  local ps = {{left, "left"}, {mode, "mode"}, {right, "right"}}
  if not checked("triangular", ps, true) then
    left, mode, right = ps[1][1], ps[2][1], ps[3][1]
    if left > mode then fail("triangular", 1, ("left (%s) must not be above mode (%s)"):format(hooks.what(left), hooks.what(mode))) end
    if mode > right then fail("triangular", 3, ("mode (%s) must not be above right (%s)"):format(hooks.what(mode), hooks.what(right))) end
    if left == right then fail("triangular", 3, ("left and right must differ, both are %s"):format(hooks.what(left))) end
  else
    -- NaN in an array fails these; a NaN number (NaN draws) passes those it is in, as
    -- NumPy's comparisons with it are false, and the others are NumPy's still
    local function nan(v) return v ~= v end
    broadcast_first("triangular", 4, shape, left, mode, right)
    if not (nan(left) or nan(mode)) and above0(most(function(l, m) return l - m end, left, mode)) then
      fail("triangular", 1, "left must not be above mode, got arrays with left > mode or NaN")
    end
    if not (nan(mode) or nan(right)) and above0(most(function(m, r) return m - r end, mode, right)) then
      fail("triangular", 3, "mode must not be above right, got arrays with mode > right or NaN")
    end
    -- equal ones (left above right passes when mode is a NaN number, as NumPy's)
    if not (nan(left) or nan(right)) and not (most(function(l, r) return gpu.abs(l - r) * -1 end, left, right) < 0) then
      fail("triangular", 3, "left and right must differ, got arrays with left == right")
    end
  end
  return continuous("triangular", "triangular", 4, shape, dtype, left, mode, right)
end

-- normal and uniform with parameter arrays (gpu.lua's take numbers and pass arrays here)
function random._arrays(name, p1, p2, shape, dtype)
  local names = name == "normal" and {"mean", "stddev"} or {"low", "high"}
  for i, v in ipairs({p1, p2}) do
    if gpu._is_array(v) and gpu._arg.freed(v) then fail(name, i, names[i] .. ": attempt to use a freed array") end
  end
  gpu._arg.here("random." .. name, {p1, names[1], p2, names[2]})
  if name == "normal" then
    local ps = {{p1, "mean"}, {p2, "stddev", "non-negative"}}
    checked("normal", ps, true)
    return continuous("normal", "normal", 3, shape, dtype, ps[1][1], ps[2][1])
  end
  local ps = {{p1, "low"}, {p2, "high"}}
  checked("uniform", ps)
  broadcast_first("uniform", 3, shape, ps[1][1], ps[2][1])
  -- as the numbers' (gpu.lua) and NumPy's ("high - low range exceeds valid bounds")
  local function span(l, h) return gpu.abs(h:astype("float64") - l:astype("float64")) end
  if not (most(span, ps[1][1], ps[2][1]) < math.huge) then
    for i, v in ipairs({ps[1][1], ps[2][1]}) do   -- an array holding NaN named (low first; a NaN number was)
      if gpu._is_array(v) and v:astype("float64"):isnan():sum() > 0 then
        fail("uniform", i, names[i] .. " must not be NaN, got an array with NaN")
      end
    end
    fail("uniform", 2, "high - low must be finite, as NumPy's, got arrays with an infinite or NaN difference")
  end
  return continuous("uniform", "uniform", 3, shape, dtype, ps[1][1], ps[2][1])
end

-- NumPy's limit: above it a draw could pass int64's largest value
local POISSON_LAM_MAX = 9223372006484771000.0
function random.poisson(lam, shape)
  local ps = {{lam, "lam", "non-negative"}}
  if checked("poisson", ps) then
    if lam.size > 0 and lam:astype("float64"):max() > POISSON_LAM_MAX then
      fail("poisson", 1, ("lam is too large (at most %.17g), got an array with more"):format(POISSON_LAM_MAX))
    end
  elseif ps[1][1] > POISSON_LAM_MAX then
    fail("poisson", 1, ("lam is too large (%s; at most %.17g)"):format(hooks.what(lam), POISSON_LAM_MAX))
  end
  return discrete("poisson", 2, shape, 0, ps[1][1])
end
-- A noncentral chi-square is a chi-square plus twice a Poisson(nonc / 2) count, an int64:
-- past twice the Poisson limit it would saturate (every draw 1.8e19), so such nonc is refused
for _, nc in ipairs({{"noncentral_chisquare", 2}, {"noncentral_f", 3}}) do
  local name, pos, draw = nc[1], nc[2], random[nc[1]]
  random[name] = function(...)
    local nonc, most_ = select(pos, ...), 2 * POISSON_LAM_MAX
    if (type(nonc) == "number" and nonc > most_) or
       (gpu._is_array(nonc) and nonc.size > 0 and nonc:astype("float64"):max() > most_) then
      fail(name, pos, ("nonc is too large (at most %.17g)"):format(most_))
    end
    return draw(...)
  end
end

function random.binomial(n, p, shape)
  local ps = {{n, "n", "non-negative", true}, {p, "p", "in [0, 1]"}}
  checked("binomial", ps)
  return discrete("binomial", 3, shape, ps[1][1], ps[2][1])
end
-- the discrete distributions of one real parameter, (p, shape): geometric, zipf, logseries
local function discrete_api(name, what, rule)
  PARAMS[name] = {what}
  random[name] = function(p, shape)
    local ps = {{p, what, rule}}
    checked(name, ps)
    return discrete(name, 2, shape, 0, ps[1][1])
  end
end
discrete_api("geometric", "p", "in (0, 1]")
-- NumPy's legacy one takes p = 0 (and gives int64's smallest value); refused here, as its Generator does
-- NumPy's Generator refuses the mean's gamma rate n (1 - p) / p past its Poisson limit (the
-- draws would pass int64's largest value: every one was that value)
function random.negative_binomial(n, p, shape)
  local ps = {{n, "n", "positive"}, {p, "p", "in (0, 1]"}}
  checked("negative_binomial", ps)
  local nn, pp = ps[1][1], ps[2][1]
  local rate
  if gpu._is_array(nn) or gpu._is_array(pp) then   -- (shapes that do not broadcast: discrete's error)
    local pf = gpu._is_array(pp) and pp:astype("float64") or pp
    local ok, r = pcall(gpu.multiply, gpu._is_array(nn) and nn:astype("float64") or nn,
                        gpu.exp(gpu.subtract(gpu.log1p(gpu.negative(pf)), gpu.log(pf))))
    rate = not ok and 0 or gpu._is_array(r) and (r.size > 0 and r:max() or 0) or r
  else
    rate = nn * ((1 - pp) / pp)
  end
  if rate > POISSON_LAM_MAX then
    fail("negative_binomial", 1, ("n too large or p too small: n (1 - p) / p is %.17g, above %.17g, as NumPy's Generator refuses")
         :format(rate, POISSON_LAM_MAX))
  end
  return discrete("negative_binomial", 3, shape, 0, nn, pp)
end
discrete_api("zipf", "a", "above 1")
discrete_api("logseries", "p", "in [0, 1)")
-- above 2^53 the kernel's float64 counts would round
local HYPER_MAX = 1 << 53
function random.hypergeometric(ngood, nbad, nsample, shape)
  local ps = {{ngood, "ngood", "non-negative", true}, {nbad, "nbad", "non-negative", true},
              {nsample, "nsample", "non-negative", true}}   -- 0: Generator's (legacy's refuses it)
  if checked("hypergeometric", ps) then
    -- each at most 2^53 first, so that the sums below cannot wrap
    if most(function(g, b) return gpu.maximum(g, b) end, ngood, nbad) > HYPER_MAX or
       most(function(g, b) return g + b end, ngood, nbad) > HYPER_MAX then
      fail("hypergeometric", 2, "ngood + nbad must be at most 2^53, got arrays with more")
    end
    if most(function(g, b, s) return s - g - b end, ngood, nbad, nsample) > 0 then
      fail("hypergeometric", 3, "nsample must not be above ngood + nbad, got arrays with ngood + nbad < nsample")
    end
  else
    local g, b, s = ps[1][1], ps[2][1], ps[3][1]
    if g + b > HYPER_MAX or g + b < 0 then fail("hypergeometric", 2, ("ngood + nbad must be at most 2^53, got %d + %d"):format(g, b)) end
    if g + b < s then fail("hypergeometric", 3, ("nsample (%d) must not be above ngood + nbad (%d)"):format(s, g + b)) end
  end
  return discrete("hypergeometric", 4, shape, ps[3][1], ps[1][1], ps[2][1])
end

-- The counts are int64, whatever follows the shape: a dtype there was dropped without a word
-- (random_integers, multinomial and dirichlet below too)
local function no_dtype(names, what)
  for name, n in pairs(names) do
    PARAMS[name] = PARAMS[name] or param_names(random[name])
    local draw = gpu._arg.strict("random." .. name, random[name])   -- after the dtype's place: strict's words
    random[name] = function(...)
      if select("#", ...) > n and select(n + 1, ...) ~= nil then
        fail(name, n + 1, ("the %s: no dtype (astype the result)"):format(what))
      end
      return draw(...)
    end
  end
end
no_dtype({poisson = 2, binomial = 3, geometric = 2, negative_binomial = 3, zipf = 2, logseries = 2,
          hypergeometric = 4}, "counts are int64")

-- gpu.random.shuffle(a): a's rows (along its first dim) put in a random order, in place
function random.shuffle(a)
  if type(a) ~= "userdata" or getmetatable(a) ~= gpu._meta.array then
    fail("shuffle", 1, "a device array expected, got " .. hooks.what(a))
  end
  if a.ndim == 0 then fail("shuffle", 1, "a 0-D array has no rows to shuffle") end
  gpu._arg.writeable(a, "random.shuffle", "a")
  a[{}] = random.permutation(a)
end

-- NumPy's legacy names: rand(d1, ..., dn), randn(d1, ..., dn) (float32; no dims: 0-D),
-- random_sample(shape [, dtype]), randint(low [, high] [, shape [, dtype]])
local function dims(name, ...)
  local s = table.pack(...)
  for i = 1, s.n do
    if math.type(s[i]) ~= "integer" and not (type(s[i]) == "number" and math.tointeger(s[i])) then
      fail(name, i, "a dimension (an integer) expected, got " .. hooks.what(s[i]))
    end
  end
  return (shaped(name, 1, {...}))
end
function random.rand(...) return random.random(dims("rand", ...)) end
function random.randn(...) return random.normal(0, 1, dims("randn", ...)) end

-- f's results, or its error (one of gpu.random.`from`) said as gpu.random.name's: its
-- arguments have the same places
local function renamed(name, from, ok, ...)
  if ok then return ... end
  local e = ...
  if type(e) == "string" then e = e:gsub("to '" .. from .. "'", "to '" .. name .. "'", 1) end
  error(e, 0)
end
function random.random_sample(shape, dtype)
  shape = shaped("random_sample", 1, shape == nil and {} or shape)
  return renamed("random_sample", "random", pcall(random.random, shape, dtype))
end
function random.standard_normal(shape, dtype)
  shape = shaped("standard_normal", 1, shape)
  -- normal's dtype is its argument #4, here #2
  local ok, r = pcall(random.normal, 0, 1, shape, dtype)
  if not ok and type(r) == "string" then r = r:gsub("#([34]) to 'normal'", function(i) return ("#%d to 'normal'"):format(i - 2) end) end
  return renamed("standard_normal", "normal", ok, r)
end
function random.randint(low, high, shape, dtype)
  if high == nil then   -- one bound, as the caller wrote it: [0, low) (it was named high, argument #2)
    low, high = 0, int_arg("randint", 1, low)
    if high <= 0 and select(2, shaped("randint", 3, shape == nil and {} or shape)) > 0 then
      fail("randint", 1, ("with one bound the range is [0, low): low must be above 0, got %d"):format(high))
    end
  end
  return renamed("randint", "integers", pcall(random.integers, low, high, shape == nil and {} or shape, dtype))
end

-- more of NumPy's legacy names: ranf and sample (random_sample's), random_integers (closed)
function random.ranf(shape, dtype)
  shape = shaped("ranf", 1, shape == nil and {} or shape)
  return renamed("ranf", "random", pcall(random.random, shape, dtype))
end
function random.sample(shape, dtype)
  shape = shaped("sample", 1, shape == nil and {} or shape)
  return renamed("sample", "random", pcall(random.random, shape, dtype))
end
function random.random_integers(low, high, shape)
  if high == nil then low, high = 1, int_arg("random_integers", 1, low) end
  low, high = int_arg("random_integers", 1, low), int_arg("random_integers", 2, high)
  if high < low then fail("random_integers", 2, ("high (%d) must not be below low (%d)"):format(high, low)) end
  if high == math.maxinteger then fail("random_integers", 2, "high must be below 2^63 - 1") end
  return renamed("random_integers", "integers", pcall(random.integers, low, high + 1, shape == nil and {} or shape))
end

-- gpu.random.bytes(n): a Lua string of n random bytes
function random.bytes(n)
  n = int_arg("bytes", 1, n)
  if n < 0 then fail("bytes", 1, ("a length must be non-negative, got %d"):format(n)) end
  if n == 0 then return "" end
  local ok, a = pcall(random.integers, 0, 256, n, "uint8")
  if not ok then   -- integers' words, as bytes' (its argument 3 was named)
    fail("bytes", 1, gpu._arg.unwrapped(a))
  end
  local h = a:tohost()
  local s = h:bytes()
  h:free()
  a:free()
  return s
end

-- a Lua table of numbers or a device array as a float64 device array of `ndim` dims
local function float_array(name, i, what, v, ndim)
  local a
  if gpu._is_array(v) then a = v:astype("float64")
  elseif type(v) == "table" then
    local ok, r = pcall(gpu.array, v, "float64")
    if not ok then fail(name, i, ("%s: a table of numbers expected (%s)"):format(what, tostring(r):gsub("^[^:\n]*:%d+: ", ""))) end
    a = r
  else fail(name, i, ("%s: a table of numbers or a device array expected, got %s"):format(what, hooks.what(v))) end
  if a.ndim ~= ndim then fail(name, i, ("%s must be %d-D, got %d-D"):format(what, ndim, a.ndim)) end
  return a
end
local function appended(s, k)
  local out = {table.unpack(s)}
  out[#out + 1] = k
  return out
end

-- gpu.random.multinomial(n, pvals [, size]): int64 counts of shape size .. {k}, by k - 1
-- binomials of the draws left (pvals' last is what the others leave, as NumPy's)
function random.multinomial(n, pvals, size)
  n = int_arg("multinomial", 1, n)
  if n < 0 then fail("multinomial", 1, ("n must be non-negative, got %d"):format(n)) end
  -- the probabilities on the host: k numbers, metadata for the k - 1 launches
  local p = float_array("multinomial", 2, "pvals", pvals, 1):totable()
  local k, before = #p, 0
  if k == 0 then fail("multinomial", 2, "pvals must hold at least one probability") end
  for j = 1, k do
    if not (p[j] >= 0 and p[j] <= 1) then
      fail("multinomial", 2, ("pvals must be in [0, 1], got %s at %d"):format(hooks.what(p[j]), j))
    end
    if j < k then before = before + p[j] end
  end
  if before > 1 + 1e-12 then
    fail("multinomial", 2, ("pvals but the last must sum to at most 1, got %.15g"):format(before))
  end
  local s = shaped("multinomial", 3, size == nil and {} or size)
  local left, cols, rest = gpu.full(s, n, "int64"), {}, 1.0
  for j = 1, k - 1 do
    local pj = rest > 0 and math.min(1, p[j] / rest) or 0
    cols[j] = discrete("binomial", 3, s, left, pj)
    left = left - cols[j]
    rest = rest - p[j]
  end
  cols[k] = left
  return gpu.stack(cols, -1)
end

-- NumPy's Generator for alphas all below 0.1, whose gammas all underflow to 0 (0 / 0 rows
-- of NaN): part j of what is left is a beta(alpha_j, alpha_j+1 + ... + alpha_k) draw
local function stick_breaking(a, out)
  local k, alphas = a.size, a:astype("float64"):totable()
  local rows = {}
  for d = 1, #out - 1 do rows[d] = out[d] end
  local left, parts, after = gpu.ones(rows, "float64"), {}, {[k + 1] = 0}
  for j = k, 2, -1 do after[j] = after[j + 1] + alphas[j] end   -- NumPy's reversed cumsum
  for j = 1, k - 1 do   -- an alpha of 0: its part 0 (its beta's a); the alphas after all 0: all that is left
    if alphas[j] == 0 then parts[j] = gpu.zeros(rows, "float64")
    elseif after[j + 1] == 0 then parts[j], left = left, gpu.zeros(rows, "float64")
    else
      local v = random.beta(alphas[j], after[j + 1], rows, "float64")
      parts[j] = left * v
      left = left * (1 - v)
    end
  end
  parts[k] = left
  return gpu.stack(parts, #out)
end

-- gpu.random.dirichlet(alpha [, size]): float64 of shape size .. {k}, gammas of alpha
-- normalized along the last dim
function random.dirichlet(alpha, size)
  local a = float_array("dirichlet", 1, "alpha", alpha, 1)
  array_param("dirichlet", 1, "alpha", a, "non-negative")   -- (as Generator's: its part 0)
  local out = appended(shaped("dirichlet", 2, size == nil and {} or size), a.size)
  if a.size == 0 then return gpu.empty(out, "float64") end   -- no components: NumPy's (size, 0)
  if a:max() == 0 then return gpu.zeros(out, "float64") end   -- every alpha 0: zeros, as Generator's
  if a:max() < 0.1 then return stick_breaking(a, out) end
  local g = continuous("dirichlet", "gamma", 2, out, "float64", a, 1)
  return g / g:sum(#out, {keepdim = true})
end

-- gpu.random.multivariate_normal(mean, cov [, size] [, {method =}]): float64 of shape
-- size .. {k}, z @ A + mean for standard normals z and A^T A = cov, A from gpu.linalg's
-- cholesky, svd (NumPy's default) or eigh
local FACTOR = {
  cholesky = function(cov) return gpu.linalg.cholesky(cov).T end,
  svd = function(cov)
    local _, sv, vh = gpu.linalg.svd(cov)
    return gpu.sqrt(sv):reshape({sv.size, 1}) * vh
  end,
  eigh = function(cov)
    local w, v = gpu.linalg.eigh(cov)
    return (v * gpu.sqrt(gpu.maximum(w, 0)):reshape({1, w.size})).T
  end,
}
function random.multivariate_normal(mean, cov, size, opts)
  size, opts = size_and_options("multivariate_normal", 4, size, opts, "method")
  local method = opts.method or "svd"
  if not FACTOR[method] then
    fail("multivariate_normal", 4, ("method must be \"cholesky\", \"svd\" or \"eigh\", got %s")
         :format(type(method) == "string" and ("%q"):format(method) or hooks.what(method)))
  end
  local m = float_array("multivariate_normal", 1, "mean", mean, 1)
  local c = float_array("multivariate_normal", 2, "cov", cov, 2)
  local k = m.size
  if c.shape[1] ~= c.shape[2] then fail("multivariate_normal", 2, ("cov must be square, got %dx%d"):format(c.shape[1], c.shape[2])) end
  if c.shape[1] ~= k then
    fail("multivariate_normal", 2, ("mean and cov must have the same length, got %d and %dx%d"):format(k, c.shape[1], c.shape[2]))
  end
  local s = shaped("multivariate_normal", 3, size == nil and {} or size)
  local out, rows = appended(s, k), 1
  for _, d in ipairs(s) do rows = rows * d end
  local a = FACTOR[method](c)   -- before the draw: a cov it refuses leaves the generator (and
  if rows * k == 0 then return gpu.zeros(out, "float64") end   -- refused for no rows too, as NumPy's)
  local z = random.normal(0, 1, {rows, k}, "float64")
  return (gpu.matmul(z, a) + m):reshape(out)
end

for _, name in ipairs({"exponential", "standard_exponential", "gamma", "standard_gamma", "beta", "chisquare",
                       "lognormal", "laplace", "logistic", "gumbel", "rayleigh", "weibull", "pareto", "power",
                       "standard_cauchy", "standard_t", "triangular", "poisson", "binomial", "geometric", "shuffle",
                       "rand", "randn", "random_sample", "standard_normal", "randint", "f", "noncentral_chisquare",
                       "noncentral_f", "vonmises", "wald", "negative_binomial", "zipf", "logseries", "hypergeometric",
                       "_arrays", "ranf", "sample", "random_integers", "bytes", "multinomial", "dirichlet",
                       "multivariate_normal"}) do
  if name == "_arrays" then random._arrays = gpu._api(random._arrays) else public(name) end
end

------------------------------------------------------------------------------------
-- numba's xoroshiro128+ generators (numba.cuda.random), the same numbers: the states that
-- gpu.jit kernels' gpu.random.xoroshiro128p_* and gpuhost.cuh's gpu::xoroshiro128p_*
-- advance. numba makes state i from state i - 1 with a jump of 2^64 steps, one after the
-- other on the CPU; here each is made on the device at once from state 0, with the jump's
-- matrices over GF(2) (builtin.cu's xoroshiro_states), made here once, lazily.

-- xoroshiro128+'s step (its state's part: the output s0 + s1 is not needed here) and jump
local function rotl(x, k) return (x << k) | (x >> (64 - k)) end
local function step(s0, s1)
  s1 = s1 ~ s0
  return rotl(s0, 55) ~ s1 ~ (s1 << 14), rotl(s1, 36)
end
local JUMP = {0xBEAC0467EBA5FACB, 0xD86B048B86AA9922}
local function jump(s0, s1)
  local a, b = 0, 0
  for w = 1, 2 do
    for bit = 0, 63 do
      if (JUMP[w] >> bit) & 1 == 1 then a, b = a ~ s0, b ~ s1 end
      s0, s1 = step(s0, s1)
    end
  end
  return a, b
end

-- Matrix k (J^(2^k)) as 16 tables, one a byte of the state (8 of s0, then 8 of s1), of the
-- 256 sums of that byte's 8 columns: tables[k + 1][(j * 256 + v) * 2 + 1 .. + 2], for byte
-- j of value v. Each matrix's columns are the last one's applied to themselves.
local LOW = {}   -- the lowest set bit (0 to 7) of 1 .. 255
for v = 1, 255 do local b = 0; while (v >> b) & 1 == 0 do b = b + 1 end; LOW[v] = b end
local jump_tables, jump_columns = {}, nil
local function byte_tables(cols)
  local t = {}
  for j = 0, 15 do
    local base = j * 512
    t[base + 1], t[base + 2] = 0, 0
    for v = 1, 255 do
      local c, prev = (8 * j + LOW[v]) * 2, base + (v & (v - 1)) * 2
      t[base + v * 2 + 1], t[base + v * 2 + 2] = t[prev + 1] ~ cols[c + 1], t[prev + 2] ~ cols[c + 2]
    end
  end
  return t
end
local function apply(t, s0, s1)
  local a, b = 0, 0
  for j = 0, 7 do
    local e = j * 512 + ((s0 >> (8 * j)) & 255) * 2
    a, b = a ~ t[e + 1], b ~ t[e + 2]
    e = (j + 8) * 512 + ((s1 >> (8 * j)) & 255) * 2
    a, b = a ~ t[e + 1], b ~ t[e + 2]
  end
  return a, b
end
local function matrices(bits)
  if not jump_columns then
    jump_columns = {}
    for j = 0, 127 do
      local s0, s1 = j < 64 and 1 << j or 0, j >= 64 and 1 << (j - 64) or 0
      jump_columns[2 * j + 1], jump_columns[2 * j + 2] = jump(s0, s1)
    end
  end
  for k = #jump_tables + 1, bits do
    local t = byte_tables(jump_columns)
    jump_tables[k] = t
    local cols = {}
    for c = 1, 256, 2 do cols[c], cols[c + 1] = apply(t, jump_columns[c], jump_columns[c + 1]) end
    jump_columns = cols
  end
end

-- the matrices of bits 0 .. bits - 1 on the current device, made at the first need; kept
-- (true) once a graph's recording used them: that graph pins them, and its replays read them
local device_tables = {}
local function tables_on_device(bits)
  local dev, capturing = gpu.device().id, gpu.capturing()
  local have = device_tables[dev]
  if have and have.bits >= bits then
    have.kept = have.kept or capturing
    return have.array
  end
  matrices(bits)
  local parts = {}
  for k = 1, bits do parts[k] = string.pack(("<" .. ("j"):rep(8192)), table.unpack(jump_tables[k])) end
  -- the device synchronized around the swap (a few times a process at most): a launch on
  -- another stream may be reading the old tables, or start before the new ones are there.
  -- Not while a graph records (it cannot wait; the upload is done at once, and the launch
  -- runs at the replays): the old tables are then left to the collector, as are those a
  -- graph keeps (freeing them would raise, and its replays read them)
  if have and not capturing then
    gpu.synchronize()
    if not have.kept then have.array:free() end
  end
  local a = gpu.array(gpu.frombuffer(table.concat(parts), "uint64"))
  if not capturing then gpu.synchronize() end
  device_tables[dev] = {bits = bits, array = a, kept = capturing}
  return a
end

local xoro = gpu._builtins({"xoroshiro_states"})
local function splitmix64(z)
  z = z + 0x9E3779B97F4A7C15
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return z ~ (z >> 31)
end

-- gpu.random.create_xoroshiro128p_states(n, seed [, {subsequence_start = k, stream = s}]):
-- numba's generators as an n x 2 uint64 device array (row i: s0, s1 of generator i): state
-- 0 from splitmix64 of seed (an integer; a negative one is seed + 2^64), jumped k times by
-- 2^64 steps, state i state 0 jumped i times more
function random.create_xoroshiro128p_states(n, seed, opts)
  local name = "create_xoroshiro128p_states"
  n = type(n) == "number" and math.tointeger(n) or n
  if math.type(n) ~= "integer" then fail(name, 1, "an integer expected, got " .. hooks.what(n)) end
  if n < 0 then fail(name, 1, "a number of states must be non-negative, got " .. n) end
  seed = type(seed) == "number" and math.tointeger(seed) or seed
  if math.type(seed) ~= "integer" then
    fail(name, 2, "an integer seed expected (numba's from 2^63 on are Lua's seed - 2^64), got " .. hooks.what(seed))
  end
  if opts ~= nil and type(opts) ~= "table" then fail(name, 3, "an options table expected, got " .. hooks.what(opts)) end
  opts = gpu._arg.options(opts, "random." .. name, "subsequence_start stream")
  local start = opts.subsequence_start or 0
  start = type(start) == "number" and math.tointeger(start) or start
  if math.type(start) ~= "integer" or start < 0 then
    fail(name, 3, "subsequence_start must be a non-negative integer, got " .. hooks.what(start))
  end
  local stream = opts.stream
  if stream ~= nil and not (type(stream) == "userdata" and (getmetatable(stream) or {}).__name == "gpu.stream") then
    fail(name, 3, "stream must be a gpu.stream, got " .. hooks.what(stream))
  end
  local ok, out = pcall(gpu.empty, {n, 2}, "uint64")
  if not ok then fail(name, 1, (tostring(out):gsub("^[^:\n]*:%d+: ", ""))) end
  if n == 0 then return out end
  -- 2^p threads (up to 2^18, what an H200 holds at once), and the matrices of the bits of
  -- the largest jump count (below 2^64) and of 2^p
  local p = 0
  while p < 18 and (1 << p) < n do p = p + 1 end
  local bits, m = p + 1, (start + (n - 1)) >> (p + 1)
  while m ~= 0 do bits, m = bits + 1, m >> 1 end
  local block = math.min(1 << p, 256)
  xoro("xoroshiro_states")[{(1 << p) // block, block, stream = stream}](
    out, n, splitmix64(seed), start, tables_on_device(bits), p)
  return out
end
public("create_xoroshiro128p_states")
no_dtype({multinomial = 3}, "counts are int64")
no_dtype({random_integers = 3}, "values are int64")
no_dtype({dirichlet = 2}, "values are float64")

