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

local function fail(name, i, msg) error(("bad argument #%d to '%s' (%s)"):format(i, name, msg), 3) end
local function int_arg(name, i, v)
  local n = type(v) == "number" and math.tointeger(v)
  if not n then fail(name, i, "integer expected, got " .. hooks.what(v)) end
  return n
end

local function shaped(name, pos, shape)
  local ok, a = pcall(gpu.empty, shape, "int64")
  -- without a position ("file:12: "), if any: not up to any colon ("size is too large: 1e+15")
  if not ok then error(("bad argument #%d to '%s' (%s)"):format(pos, name, tostring(a):gsub("^[^:\n]*:%d+: ", "")), 3) end
  return a.shape, a.size
end

-- gpu.random.integers(low, high, shape [, dtype]): uniform integers in [low, high)
function random.integers(low, high, shape, dtype)
  low, high = int_arg("integers", 1, low), int_arg("integers", 2, high)
  dtype = hooks.dtype_name(dtype or "int64", 3)
  if not INTEGER[dtype] then fail("integers", 4, ("an integer dtype expected, got %s"):format(dtype)) end
  if low >= high then fail("integers", 2, ("high (%d) must be above low (%d)"):format(high, low)) end
  local lo, hi = table.unpack(hooks.range_of[dtype], 1, 2)
  if dtype == "uint64" then lo, hi = 0, math.maxinteger end
  if dtype == "int64" then lo, hi = math.mininteger, math.maxinteger end
  if low < lo or high - 1 > hi then
    fail("integers", 1, ("[%d, %d) is out of range for %s"):format(low, high, dtype))
  end
  local s = shaped("integers", 3, shape)
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
  local w = p:astype("float64")
  local total, least = w:sum(), n > 0 and w:min() or 0
  if total ~= total or total == math.huge then   -- NumPy: "probabilities contain NaN"
    error(("gpu.random.choice: probabilities must be finite numbers (p has %s)")
          :format(w:isnan():any() and "NaN" or "an infinity"), 3)
  end
  if least < 0 then error("gpu.random.choice: probabilities must be non-negative", 3) end
  if math.abs(total - 1) > (p.dtype == "float32" and 1e-6 or 1e-8) then
    error(("gpu.random.choice: probabilities do not sum to 1 (they sum to %.17g)"):format(total), 3)
  end
  return w
end

-- gpu.random.choice(a, [size] [, {replace = true, p = probs}]): elements of a (a 1-D device
-- array; or a number n: 1 .. n), with or without replacement, uniformly or by p
function random.choice(a, size, opts)
  if type(size) == "table" and opts == nil and getmetatable(size) == nil and size[1] == nil and next(size) ~= nil then
    size, opts = nil, size
  end
  if opts ~= nil and type(opts) ~= "table" then fail("choice", 3, "an options table expected, got " .. hooks.what(opts)) end
  opts = opts or {}
  local n, pool
  if type(a) == "number" then
    n = int_arg("choice", 1, a)
    if n < 1 then fail("choice", 1, "a population of at least 1 expected, got " .. n) end
  elseif type(a) == "userdata" and getmetatable(a) == gpu._meta.array and a.ndim == 1 then
    pool, n = a, a.size
    if n == 0 then fail("choice", 1, "an empty array has nothing to choose") end
  else
    fail("choice", 1, "a number or a 1-D device array expected, got " .. hooks.what(a))
  end
  local shape, k = shaped("choice", 2, size == nil and {} or size)
  local replace = opts.replace ~= false
  local idx
  if opts.p == nil then
    if replace then   -- 1 .. n (n + 1 wraps for math.maxinteger)
      idx = n < math.maxinteger and random.integers(1, n + 1, shape) or random.integers(0, n, shape) + 1
    elseif k > n then
      error(("gpu.random.choice: cannot take %d of %d without replacement"):format(k, n), 2)
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

-- errors at the caller's line, also those of the checks above (through int_arg: a level
-- deeper) and of an array's methods called here (a freed array)
for _, name in ipairs({"integers", "permutation", "choice", "key"}) do random[name] = gpu._api(random[name]) end

------------------------------------------------------------------------------------
-- NumPy's distributions, on builtin.cu's continuous and discrete kernels (a module of their
-- own, compiled at the first draw from one: their samplers take the CPU backend's compiler
-- longer than the kernels above, which integers and shuffles need alone): each element its
-- own Philox stream, so the numbers depend only on the seed, the call and the index, on
-- either backend. The parameters are Lua numbers (NumPy's also take arrays), checked here
-- as NumPy checks them, and NaN refused (a rejection loop would never end on it).

local dist_module
local function dists()
  dist_module = dist_module or gpu.module(gpu._embedded("kernels/builtin.cu"),
                                          {names = {"continuous<float>", "continuous<double>", "discrete<long long>"}})
  return dist_module
end

-- builtin.cu's DIST_ numbers (continuous) and DISCRETE_ numbers
local KIND = {exponential = 1, gamma = 2, beta = 3, chisquare = 4, lognormal = 5, laplace = 6, logistic = 7,
              gumbel = 8, rayleigh = 9, weibull = 10, pareto = 11, power = 12, standard_cauchy = 13,
              standard_t = 14, triangular = 15}
local DISCRETE = {poisson = 1, binomial = 2, geometric = 3}

local function number_arg(name, i, what, v)
  if type(v) ~= "number" or v ~= v then fail(name, i, ("%s must be a number, got %s"):format(what, hooks.what(v))) end
  return v
end

-- The rule each parameter keeps, as NumPy words it
local RULES = {
  ["non-negative"] = function(v) return v >= 0 end,
  positive = function(v) return v > 0 end,
}
local function param(name, i, what, v, rule)
  v = number_arg(name, i, what, v)
  if rule and not RULES[rule](v) then fail(name, i, ("%s must be %s, got %s"):format(what, rule, hooks.what(v))) end
  return v
end

-- An array of shape (argument #spos of the function `name`) and dtype (#spos + 1: float32
-- or float64) drawn from the continuous distribution `kind` with parameters p1, p2, p3
local function continuous(name, kind, spos, shape, dtype, p1, p2, p3)
  dtype = hooks.dtype_name(dtype, 4)
  if dtype ~= "float32" and dtype ~= "float64" then
    fail(name, spos + 1, ("random numbers are float32 or float64, not %s"):format(dtype))
  end
  local s = shaped(name, spos, shape)
  local a = gpu.empty(s, dtype)
  local seed, call = hooks.draw()
  if a.size > 0 then
    local launch = dists()[("continuous<%s>"):format(ctype[dtype])][hooks.config(a.size)]
    launch(a, a.size, seed, call, KIND[kind], p1 or 0, p2 or 0, p3 or 0)
  end
  return a
end

local function discrete(name, spos, shape, count, p)
  local s = shaped(name, spos, shape)
  local a = gpu.empty(s, "int64")
  local seed, call = hooks.draw()
  if a.size > 0 then
    dists()["discrete<long long>"][hooks.config(a.size)](a, a.size, seed, call, DISCRETE[name], count, p)
  end
  return a
end

-- gpu.random.exponential(scale, shape [, dtype]) and the others of one parameter and a scale
function random.exponential(scale, shape, dtype)
  return continuous("exponential", "exponential", 2, shape, dtype, param("exponential", 1, "scale", scale, "non-negative"))
end
function random.standard_exponential(shape, dtype)
  return continuous("standard_exponential", "exponential", 1, shape, dtype, 1)
end
function random.gamma(k, scale, shape, dtype)
  k = param("gamma", 1, "shape_k", k, "non-negative")
  scale = param("gamma", 2, "scale", scale, "non-negative")
  return continuous("gamma", "gamma", 3, shape, dtype, k, scale)
end
function random.standard_gamma(k, shape, dtype)
  return continuous("standard_gamma", "gamma", 2, shape, dtype, param("standard_gamma", 1, "shape_k", k, "non-negative"), 1)
end
function random.beta(a, b, shape, dtype)
  a, b = param("beta", 1, "a", a, "positive"), param("beta", 2, "b", b, "positive")
  return continuous("beta", "beta", 3, shape, dtype, a, b)
end
function random.chisquare(df, shape, dtype)
  return continuous("chisquare", "chisquare", 2, shape, dtype, param("chisquare", 1, "df", df, "positive"))
end
function random.lognormal(mean, sigma, shape, dtype)
  mean, sigma = param("lognormal", 1, "mean", mean), param("lognormal", 2, "sigma", sigma, "non-negative")
  return continuous("lognormal", "lognormal", 3, shape, dtype, mean, sigma)
end
-- laplace, logistic, gumbel: (loc, scale, shape [, dtype])
for _, name in ipairs({"laplace", "logistic", "gumbel"}) do
  random[name] = function(loc, scale, shape, dtype)
    loc, scale = param(name, 1, "loc", loc), param(name, 2, "scale", scale, "non-negative")
    return continuous(name, name, 3, shape, dtype, loc, scale)
  end
end
function random.rayleigh(scale, shape, dtype)
  return continuous("rayleigh", "rayleigh", 2, shape, dtype, param("rayleigh", 1, "scale", scale, "non-negative"))
end
function random.weibull(a, shape, dtype)
  return continuous("weibull", "weibull", 2, shape, dtype, param("weibull", 1, "a", a, "non-negative"))
end
function random.pareto(a, shape, dtype)
  return continuous("pareto", "pareto", 2, shape, dtype, param("pareto", 1, "a", a, "positive"))
end
function random.power(a, shape, dtype)
  return continuous("power", "power", 2, shape, dtype, param("power", 1, "a", a, "positive"))
end
function random.standard_cauchy(shape, dtype) return continuous("standard_cauchy", "standard_cauchy", 1, shape, dtype) end
function random.standard_t(df, shape, dtype)
  return continuous("standard_t", "standard_t", 2, shape, dtype, param("standard_t", 1, "df", df, "positive"))
end
function random.triangular(left, mode, right, shape, dtype)
  left, mode = param("triangular", 1, "left", left), param("triangular", 2, "mode", mode)
  right = param("triangular", 3, "right", right)
  if left > mode then fail("triangular", 1, ("left (%s) must not be above mode (%s)"):format(hooks.what(left), hooks.what(mode))) end
  if mode > right then fail("triangular", 3, ("mode (%s) must not be above right (%s)"):format(hooks.what(mode), hooks.what(right))) end
  if left == right then fail("triangular", 3, ("left and right must differ, both are %s"):format(hooks.what(left))) end
  return continuous("triangular", "triangular", 4, shape, dtype, left, mode, right)
end

-- NumPy's limit: above it a draw could pass int64's largest value
local POISSON_LAM_MAX = 9223372006484771000.0
function random.poisson(lam, shape)
  lam = param("poisson", 1, "lam", lam, "non-negative")
  if lam > POISSON_LAM_MAX then fail("poisson", 1, ("lam is too large (%s; at most %.17g)"):format(hooks.what(lam), POISSON_LAM_MAX)) end
  return discrete("poisson", 2, shape, 0, lam)
end
function random.binomial(n, p, shape)
  n = int_arg("binomial", 1, n)
  if n < 0 then fail("binomial", 1, ("n must be non-negative, got %d"):format(n)) end
  p = number_arg("binomial", 2, "p", p)
  if p < 0 or p > 1 then fail("binomial", 2, ("p must be in [0, 1], got %s"):format(hooks.what(p))) end
  return discrete("binomial", 3, shape, n, p)
end
function random.geometric(p, shape)
  p = number_arg("geometric", 1, "p", p)
  if p <= 0 or p > 1 then fail("geometric", 1, ("p must be in (0, 1], got %s"):format(hooks.what(p))) end
  return discrete("geometric", 2, shape, 0, p)
end

-- gpu.random.shuffle(a): a's rows (along its first dim) put in a random order, in place
function random.shuffle(a)
  if type(a) ~= "userdata" or getmetatable(a) ~= gpu._meta.array then
    fail("shuffle", 1, "a device array expected, got " .. hooks.what(a))
  end
  if a.ndim == 0 then fail("shuffle", 1, "a 0-D array has no rows to shuffle") end
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
  if high == nil then low, high = 0, int_arg("randint", 1, low) end
  return renamed("randint", "integers", pcall(random.integers, low, high, shape == nil and {} or shape, dtype))
end

-- errors at the caller's line, also those of the checks above
for _, name in ipairs({"exponential", "standard_exponential", "gamma", "standard_gamma", "beta", "chisquare",
                       "lognormal", "laplace", "logistic", "gumbel", "rayleigh", "weibull", "pareto", "power",
                       "standard_cauchy", "standard_t", "triangular", "poisson", "binomial", "geometric", "shuffle",
                       "rand", "randn", "random_sample", "standard_normal", "randint"}) do
  random[name] = gpu._api(random[name])
end
