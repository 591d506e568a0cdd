-- reduce.lua: gpu.reduce(f), numba's cuda.reduce: a gpu.jit function of two numbers that
-- folds every element of an array into one. gpu.jit writes f's C as a device function
-- (jit.lua's device_source) and gpu.reduction's engine (host/reduce.c, lua/reduction.lua:
-- one launch, any layout, streams) calls it as the reduction's combine. f has no identity,
-- so the accumulator carries a flag, "holds a value"; init reaches the kernel as the call's
-- _param and is folded in once, at the end. One kernel per (array dtype, result dtype).
-- Loaded by jit.lua at the first use.
local gpu, jit = ...

local type, mtype = type, math.type
local array_mt = gpu._meta.array

-- the type of an element of an array of dtype, inside gpu.jit (integers are Lua's int64)
local element = {int8 = "int64", int16 = "int64", int32 = "int64", int64 = "int64", uint8 = "int64",
                 uint16 = "int64", uint32 = "int64", uint64 = "int64", float32 = "float32",
                 float64 = "float64", bool = "bool", float16 = "float16"}
local ctype = {int64 = "long long", float32 = "float", float64 = "double", bool = "bool", float16 = "gpu::half"}
local size = {int64 = 8, float32 = 4, float64 = 8, bool = 1, float16 = 2}
-- init, from _param (doubles): an int64 as its high and low 32 bits, so every one is exact
local init_of = {
  int64 = "(long long)(((unsigned long long)(long long)p[0] << 32) | (unsigned long long)p[1])",
  float32 = "(float)p[0]", float64 = "p[0]", bool = "p[0] != 0", float16 = "gpu::half(p[0])",
}

local MT = {}
MT.__index = MT
MT.__name = "gpu.reduce"
MT.__tostring = function(r) return ("gpu.reduce(%s)"):format(r.name) end

local function fail(r, i, what)
  error(("bad argument #%d to '%s' (%s)"):format(i, r.name, what), 3)
end

-- The accumulator's type R for elements of jit type t: what f returns for two of them,
-- which f must return for two R as well (elements are converted to R first).
local function result_type(r, t)
  local d = jit.device_source(r.f, {t, t}, 4)
  local R = d.ret
  local want = t == "bool" and "a boolean" or "a number"
  if R == "void" or (R == "bool") ~= (t == "bool") then
    error(("gpu.reduce: '%s' returns %s for (%s, %s): it must return %s for a%s %s array")
          :format(r.name, R == "void" and "nothing" or R == "bool" and "a boolean" or "a number",
                  t, t, want, t == "int64" and "n" or "", t == "int64" and "integer" or t), 4)
  end
  if R == "int64" and t ~= "int64" then
    -- (the elements would be made integers before f saw them, toward zero: f of no element)
    error(("gpu.reduce: '%s' returns an integer for (%s, %s), and %s elements cannot be made "
           .. "integers before it sees them: return a float (math.floor(x) + 0.0)")
          :format(r.name, t, t, t), 4)
  end
  if R ~= t then
    d = jit.device_source(r.f, {R, R}, 4)
    if d.ret ~= R then
      error(("gpu.reduce: '%s' returns %s for (%s, %s) but %s for (%s, %s): it must return one type")
            :format(r.name, R, t, t, d.ret, R, R), 4)
    end
  end
  return R, d
end

-- The reducer of arrays of dtype T into a result of dtype O (R computed): gpu._reducer's
-- description, f's C before it.
local function reducer(r, T, O, R, d)
  local key = T .. "," .. O
  local f = r.reducers[key]
  if f then return f end
  local C = ctype[R]
  local prelude = table.concat({
    d.source,
    ("typedef %s rg_R;"):format(C),
    "struct rg_acc { rg_R v; bool h; };   // h: whether v holds a value (f has no identity)",
    ("__device__ __forceinline__ rg_R rg_f(rg_R a, rg_R b) { return (rg_R)%s(a, b); }"):format(d.name),
    ("__device__ __forceinline__ rg_R rg_init(const double *p) { return %s; }"):format(init_of[R]),
  }, "\n") .. "\n"
  local _
  _, f = gpu._reducer({name = "reduce", nin = 1, nout = 1, dtypes = {T, O}, names = {"x", "y"},
                       acc = "rg_acc", accsize = 2 * size[R], identity = "rg_acc{rg_R(), false}",
                       map = "rg_acc{ew::cast<rg_R>(x), true}",
                       reduce = "!a.h ? b : !b.h ? a : rg_acc{rg_f(a.v, b.v), true}",
                       post = "y = ew::cast<rd_O0>(a.h ? rg_f(a.v, rg_init(_param)) : rg_init(_param));",
                       prelude = prelude})
  r.reducers[key] = f
  return f
end

-- init as _param for a result of type R
local function param_of(r, R, init)
  if R == "bool" then
    if type(init) == "boolean" then return init and 1 or 0 end
    if type(init) == "number" then return init ~= 0 and 1 or 0 end
    fail(r, 2, ("option init must be a boolean or a number for a bool array, got %s"):format(type(init)))
  end
  if type(init) ~= "number" then
    fail(r, 2, ("option init must be a number, got %s"):format(type(init)))
  end
  if R ~= "int64" then return init end
  local i = math.tointeger(init)
  if not i then
    fail(r, 2, ("option init must be an integer for an integer array, got %s"):format(gpu._arg.shown(init)))
  end
  return {i // (1 << 32), i & 0xffffffff}
end

-- The first n elements of a in C order (all of them: a itself), as an array to reduce.
local function first(r, a, n)
  local total = a.size
  if n == nil then return a end
  if mtype(n) == "float" and n == math.floor(n) then n = math.tointeger(n) or n end
  if mtype(n) ~= "integer" or n < 0 or n > total then
    fail(r, 2, ("option size must be an integer from 0 to %d, got %s"):format(total, gpu._arg.shown(n)))
  end
  if n == total then return a end
  if a.ndim ~= 1 then a = a:ravel() end
  return a[{{1, n}}]
end

-- res: a device array whose first element gets the result, which casts to it within its kind
local function first_of(r, res, R)
  if getmetatable(res) ~= array_mt then
    fail(r, 2, ("option res must be a device array, got %s"):format(gpu._described(res)))
  end
  if gpu._arg.freed(res) then fail(r, 2, "option res: attempt to use a freed array") end
  if res.size == 0 then fail(r, 2, "option res must have an element, got an empty array") end
  if not gpu.can_cast(R, res.dtype, "same_kind") then
    fail(r, 2, ("option res is %s, and the result (%s) cannot be cast to it"):format(res.dtype, R))
  end
  if res.ndim == 0 then return res end
  local index = {}
  for i = 1, res.ndim do index[i] = {1, 1} end
  return res[index]
end

MT.__call = gpu._api(function(r, a, opts)
  local traced = rawget(gpu, "_is_traced")   -- (gpu.fuse's, once loaded: its values are tables)
  if traced and (traced(a) or traced(opts)) then
    error(("'%s', a gpu.reduce function, cannot be called inside a fused function: reductions are not fused"):format(r.name), 2)
  end
  if getmetatable(a) ~= array_mt then
    fail(r, 1, ("a device array expected, got %s"):format(gpu._described(a)))
  end
  if gpu._arg.freed(a) then fail(r, 1, "attempt to use a freed array") end   -- (a.dtype said it, naming nothing)
  if opts ~= nil and type(opts) ~= "table" then fail(r, 2, ("options table expected, got %s"):format(type(opts))) end
  opts = opts or {}
  gpu._arg.options(opts, "reduce", "size res init stream")
  local T = a.dtype
  local t = element[T]
  if not t then fail(r, 1, ("a %s array: gpu.reduce takes integer, float and bool arrays"):format(T)) end
  local R, d = result_type(r, t)
  local param = param_of(r, R, opts.init == nil and 0 or opts.init)
  local res = opts.res
  local out = res ~= nil and first_of(r, res, R) or nil
  local x = first(r, a, opts.size)
  local y = reducer(r, T, out and out.dtype or R, R, d)(x, {out = out, stream = opts.stream, param = param})
  if res ~= nil then return res end
  return y:item()
end)

-- gpu.reduce(f [, {name =}])
return function(f, options)
  local k
  k, options = jit.as_jit(f, options, "reduce")
  local nparams = jit.nparams(k)
  if nparams ~= 2 then
    error(("bad argument #1 to 'reduce' (a function of two arguments expected, got one of %d)"):format(nparams), 3)
  end
  return setmetatable({f = k, name = options.name or k.name, reducers = {}}, MT)
end
