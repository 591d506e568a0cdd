-- special.lua: gpu.special's functions that are not one ufunc (lua/gpu.lua loads this at
-- the first use of one): zeta, which takes one argument or two, and scipy.special's
-- softmax, log_softmax and logsumexp, made of gpu's reductions and ufuncs.
local gpu = ...
local S = gpu.special

-- f(...), its error raised again at zeta's caller (level 2: zeta tail-calls this), without the
-- position inside this file
local function at_caller(f, ...)
  local ok, r = pcall(f, ...)
  if ok then return r end
  if type(r) == "string" then error((r:gsub("^%[gpu%] lua/special%.lua:%d+: ", "")), 2) end
  error(r, 0)
end

-- zeta(x [, q] [, opts]): Riemann's zeta of x, or Hurwitz's of x and q
function S.zeta(x, q, opts)
  if type(q) == "table" and getmetatable(q) == nil and (#q > 0 or next(q) == 1) then
    error("gpu.special.zeta argument 2 is a Lua table: copy it to the device with gpu.array(t)", 2)
  end
  if q == nil or (type(q) == "table" and getmetatable(q) == nil) then
    if opts ~= nil then error("bad argument #3 to 'gpu.special.zeta' (no third argument after the options)", 2) end
    if q == nil then return at_caller(S._riemann_zeta, x) end
    return at_caller(S._riemann_zeta, x, q)
  end
  if opts == nil then return at_caller(S._zeta, x, q) end
  return at_caller(S._zeta, x, q, opts)
end

-- the options of the three reductions: dim (nil: every element), keepdim, b (logsumexp)
local TAKES = {dim = true, keepdim = true, b = true}
local function options(name, x, dim, opts)
  local list = type(dim) == "table" and #dim > 0
  for k in pairs(type(dim) == "table" and dim or {}) do
    list = list and math.type(k) == "integer" and k >= 1 and k <= #dim
  end
  if type(dim) == "table" and getmetatable(dim) == nil and opts == nil and not list then   -- options, not dims
    dim, opts = dim.dim, dim
  end
  opts = opts or {}
  if type(opts) ~= "table" then error(("bad argument to 'gpu.special.%s' (options table expected, got %s)"):format(name, type(opts)), 3) end
  for k in pairs(opts) do   -- (scipy's axis and keepdims too: never dropped without a word)
    if not TAKES[k] or (k ~= "dim" and name ~= "logsumexp") then
      error(("gpu.special.%s: unknown option '%s' (it takes %s)"):format(name, tostring(k),
            name == "logsumexp" and "dim, keepdim, b" or "dim"), 3)
    end
  end
  if not gpu._is_array(x) then
    if type(x) ~= "table" and type(x) ~= "number" then
      error(("bad argument #1 to 'gpu.special.%s' (device array, table or number expected, got %s)"):format(name, type(x)), 3)
    end
    x = gpu.asarray(x)
  end
  -- each dim an integer (1.0 too, as gpu.sum's) in range: gpu.max's message would name gpu.max
  local dims = {}
  if type(dim) == "table" then gpu._arg.list(dim, "special." .. name, "dim", 3) end   -- ({1, nil, 2}: gpu.max's words)
  for k, d in pairs(type(dim) == "table" and dim or {dim}) do dims[k] = d end
  for i, d in ipairs(dims) do
    if math.type(d) == "float" and d == math.floor(d) then d = math.tointeger(d) or d end
    if math.type(d) ~= "integer" then
      error(("gpu.special.%s: dim must be an integer, got %s"):format(name, gpu._arg.shown(d)), 3)
    end
    if d == 0 or d > x.ndim or d < -x.ndim then
      error(("gpu.special.%s: dim %d is out of range for an array of %d dimensions"):format(name, d, x.ndim), 3)
    end
    dims[i] = d
  end
  if dim ~= nil then dim = type(dim) == "table" and dims or dims[1] end
  local k = x.dtype
  if k:find("complex") then error(("gpu.special.%s: complex arrays are not supported"):format(name), 3) end
  if not k:find("float") then x = x:astype("float64") end
  if x.size == 0 and dim == nil and name ~= "logsumexp" then error(("gpu.special.%s: an empty array has no maximum"):format(name), 3) end
  return x, dim, opts
end

-- max over dim (kept), its infinities and NaN made 0 (so that x - m stays finite where x is);
-- raw: as it is (scipy's softmax: softmax({inf, 1}) is NaN, NaN). An empty x (along dim)
-- has no maximum: 0 for logsumexp (whose empty sum gives -inf, as scipy's), else an error
local function shift(x, dim, name, raw)
  if x.size == 0 then
    if name ~= "logsumexp" then error(("gpu.special.%s: an empty array has no maximum"):format(name), 3) end
    local shape = {}
    for d = 1, x.ndim do shape[d] = x.shape[d] end
    for d = 1, x.ndim do if dim == nil then shape[d] = 1 end end
    for _, d in ipairs(type(dim) == "table" and dim or {dim}) do shape[d < 0 and d + x.ndim + 1 or d] = 1 end
    return gpu.zeros(shape, x.dtype)
  end
  local m = gpu.max(x, dim, {keepdim = true})
  return raw and m or gpu.where(gpu.isfinite(m), m, 0)
end

-- an array of the kept dims back to the reduced shape (a Lua number for every dim)
local function unkeep(r, x, dim, keepdim)
  if keepdim then return r end
  if dim == nil then return r:item() end
  local dims = type(dim) == "table" and dim or {dim}
  local drop = {}
  for _, d in ipairs(dims) do drop[d < 0 and d + x.ndim + 1 or d] = true end
  local shape = {}
  for d = 1, x.ndim do if not drop[d] then shape[#shape + 1] = x.shape[d] end end
  return r:reshape(shape)
end

-- logsumexp(a [, dim] [, {keepdim =, b =}]): log(sum(b * exp(a))) over dim, without overflow
function S.logsumexp(a, dim, opts)
  local x, d, o = options("logsumexp", a, dim, opts)
  local keepdim = gpu._arg.flag(o, "keepdim", "special.logsumexp", false, 2)
  local m = shift(x, d, "logsumexp")
  local e = gpu.exp(x - m)
  if o.b ~= nil then e = e * o.b end
  local r = gpu.log(gpu.sum(e, d, {keepdim = true})) + m
  return unkeep(r, x, d, keepdim)
end

-- softmax(x [, dim]): exp(x) / sum(exp(x)) over dim (every element by default, as scipy's)
function S.softmax(x, dim, opts)
  local y, d = options("softmax", x, dim, opts)
  local e = gpu.exp(y - shift(y, d, "softmax", true))
  return e / gpu.sum(e, d, {keepdim = true})
end

-- log_softmax(x [, dim]): x - logsumexp(x) over dim
function S.log_softmax(x, dim, opts)
  local y, d = options("log_softmax", x, dim, opts)
  local z = y - shift(y, d, "log_softmax")
  return z - gpu.log(gpu.sum(gpu.exp(z), d, {keepdim = true}))
end

return S
