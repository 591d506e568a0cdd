-- random.lua: gpu.random.integers, permutation, choice and key, on kernels/builtin.cu's
-- Philox kernels (a module of their own, compiled at the first use of one of these) and
-- gpuhost's sort: a permutation is the order of random 64-bit keys, a choice without
-- replacement the first of a permutation (or of keys -log(u)/p with probabilities).
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
