-- ufuncs.lua: NumPy's elementwise functions that are more than one built-in operation
-- (host/opdefs.c): those of two results (gpu.divmod, gpu.modf, gpu.frexp), gpu.ldexp's
-- integer exponents, rounding to decimals (gpu.around, gpu.round(a, decimals)), and the
-- questions of complex numbers (gpu.iscomplex, gpu.isreal, gpu.iscomplexobj,
-- gpu.isrealobj, gpu.real_if_close). Loaded at the first call of one (lua/gpu.lua).
local gpu = ...

local is_array, described = gpu._is_array, gpu._described

local function kind(dtype)
  if dtype == "bool" then return "b" end
  return dtype:match("^complex") and "c" or dtype:match("^float") and "f" or dtype:match("^uint") and "u" or "i"
end
-- an operand's dtype: an array's own; a Lua number's as NumPy takes it alone
local function dtype_of(x, api)
  if is_array(x) then return x.dtype end
  if math.type(x) == "integer" then return "int64" end
  if type(x) == "number" then return "float64" end
  if type(x) == "boolean" then return "bool" end
  error(("gpu.%s: an array or a number expected, got %s"):format(api, described(x)), 3)
end

-- The options of a function of two results: {out = {first, second}, stream = s}, as the
-- options each of its operations takes
local function two_options(opts, api)
  if opts == nil then return nil, nil end
  if type(opts) ~= "table" then error(("gpu.%s: the options must be a table, got %s"):format(api, type(opts)), 3) end
  gpu._arg.options(opts, api, "out stream")
  local out = opts.out
  if out ~= nil and (type(out) ~= "table" or is_array(out) or #out ~= 2) then
    error(("gpu.%s: out must be a table of two arrays {first, second}"):format(api), 3)
  end
  out = out or {}
  return {out = out[1], stream = opts.stream}, {out = out[2], stream = opts.stream}
end

-- u(x [, y] [, opts]): a ufunc given its options table only where there is one (it
-- counts a nil as an argument)
local function call(u, opts, x, ...)
  local args = table.pack(x, ...)
  if opts then args.n, args[args.n + 1] = args.n + 1, opts end
  return u(table.unpack(args, 1, args.n))
end

-- An operation of f's on behalf of gpu.api: its errors name api (gpu.divmod's arguments, or out)
local function on_behalf(api, ok, ...)
  if ok then return ... end
  local e = ...
  if type(e) == "string" then   -- (without the line here that called it: gpu._api names the caller's)
    e = e:gsub("^%[gpu%] lua/[%w_]+%.lua:%d+: ", ""):gsub("^gpu%.[%w_]+", "gpu." .. api)
  end
  error(e, 0)
end

-- x, or a copy of it where an array of out may share its memory: the two results are two
-- kernels, and the first's writing must not change what the second reads (NumPy's result)
local function apart(x, o1, o2)
  if not is_array(x) then return x end
  for _, o in ipairs({o1 and o1.out or false, o2 and o2.out or false}) do
    if is_array(o) and gpu.may_share_memory(x, o) then return x:copy() end
  end
  return x
end

-- gpu.divmod(a, b [, {out = {q, r}, stream =}]): floor_divide and remainder, as NumPy's
function gpu.divmod(a, b, opts)
  local o1, o2 = two_options(opts, "divmod")
  a, b = apart(a, o1, o2), apart(b, o1, o2)
  local q = on_behalf("divmod", pcall(call, gpu.floor_divide, o1, a, b))
  return q, on_behalf("divmod", pcall(call, gpu.remainder, o2, a, b))
end

-- gpu.modf(x [, opts]): the fractional and integral parts, each with x's sign, in
-- floats (integers as sqrt's rule); the integral part is trunc's, into a float array
function gpu.modf(x, opts)
  local o1, o2 = two_options(opts, "modf")
  x = apart(x, o1, o2)
  local frac = call(gpu._modf, o1, x)
  o2 = o2 or {}
  local int = o2.out or gpu.empty(frac.shape, frac.dtype)
  return frac, on_behalf("modf", pcall(gpu.trunc, x, {out = int, stream = o2.stream}))
end

-- gpu.frexp(x [, opts]): mantissas (floats, 0.5 <= |m| < 1) and int32 exponents with
-- x = m * 2^e; the exponent kernel gives them as floats, made int32 here
function gpu.frexp(x, opts)
  local o1, o2 = two_options(opts, "frexp")
  x = apart(x, o1, o2)
  local m = call(gpu._frexp, o1, x)
  local e = call(gpu._frexp_exponent, o2 and {stream = o2.stream}, x)
  if o2 and o2.out then
    if not is_array(o2.out) or kind(o2.out.dtype) ~= "i" and kind(o2.out.dtype) ~= "u" then
      error("gpu.frexp: out's second array must be an integer array", 2)
    end
    on_behalf("frexp", pcall(o2.out.copy_, o2.out, e))
    return m, o2.out
  end
  return m, e:astype("int32")
end

-- gpu.ldexp(x, e [, opts]): x * 2^e; e integers (an integer or bool array, a Lua integer),
-- the result x's float (sqrt's rule). The exponents are passed as that float, which holds
-- every one that matters (beyond +-4000 all have overflowed or vanished).
function gpu.ldexp(x, e, opts)
  if type(opts) == "table" then gpu._arg.options(opts, "ldexp", "out stream") end
  local ft = gpu.sqrt:result_dtype(is_array(x) and x.dtype or dtype_of(x, "ldexp") and x)
  if is_array(e) then
    local k = kind(e.dtype)
    if k == "f" or k == "c" or e.dtype == "uint64" then
      error(("gpu.ldexp: the exponents must be integers of at most 63 bits, got %s"):format(e.dtype), 2)
    end
    if e.dtype ~= ft then e = e:astype(ft) end
  elseif math.type(e) ~= "integer" and type(e) ~= "boolean" then
    error(("gpu.ldexp: the exponent must be an integer or an integer array, got %s"):format(
      type(e) == "number" and "float " .. tostring(e) or described(e)), 2)
  elseif type(e) == "boolean" then
    e = e and 1 or 0
  end
  if not is_array(e) and (type(x) == "boolean" or is_array(x) and x.dtype == "bool") then
    x = gpu.asarray(x, ft)   -- a bool with a Lua integer would promote to int64, so float64
  end
  return call(gpu._ldexp, opts, x, e)
end

-- gpu.iscomplex(x), gpu.isreal(x): bool arrays, whether each imaginary part is nonzero (or
-- zero); real arrays' are all zero. gpu.iscomplexobj, gpu.isrealobj: whether the dtype is
-- complex, a Lua boolean.
local function imag_test(api, zero)
  return function(x)
    local dt = dtype_of(x, api)
    if kind(dt) == "c" then return zero and gpu.eq(gpu.imag(x), 0) or gpu.ne(gpu.imag(x), 0) end
    return gpu.full(is_array(x) and x.shape or {}, zero, "bool")
  end
end
gpu.iscomplex, gpu.isreal = imag_test("iscomplex", false), imag_test("isreal", true)
function gpu.iscomplexobj(x) return kind(dtype_of(x, "iscomplexobj")) == "c" end
function gpu.isrealobj(x) return kind(dtype_of(x, "isrealobj")) ~= "c" end

local EPS = {complex64 = 2 ^ -23, complex128 = 2 ^ -52}
-- gpu.real_if_close(a [, tol]): a's real parts (a new array) where every imaginary part is
-- below tol (100 by default) machine epsilons of a's dtype (tol itself when below 1), else a
function gpu.real_if_close(a, tol)
  if not is_array(a) then
    error(("gpu.real_if_close: an array expected as argument 1, got %s"):format(described(a)), 2)
  end
  tol = tol == nil and 100 or tol
  if type(tol) ~= "number" or tol ~= tol then error("gpu.real_if_close: tol must be a number", 2) end
  if kind(a.dtype) ~= "c" then return a end
  if tol > 1 then tol = tol * EPS[a.dtype] end
  if a.size == 0 or gpu.abs(gpu.imag(a)):max() < tol then return gpu.real(a) end
  return a
end

-- 10^n as NumPy makes it, by repeated multiplication (exact up to 10^22)
local function power_of_ten(n)   -- NumPy's, a product of tens: past 10^308 inf
  local f = 1.0
  for _ = 1, math.min(n, 400) do f = f * 10 end
  return f
end
local round = gpu._round   -- the ufunc, half to even (gpu.round is gpu.around with decimals)

-- re + i im made by parts, into z (a sum re + im * 1j would make inf * 0 a NaN part)
local complex_of
local function by_parts(re, im, z, stream)
  complex_of = complex_of or gpu.elementwise("R re, R im", "C z", "z = C(re, im)", "around")   -- (named in its errors)
  return complex_of(re, im, z, {stream = stream})
end

-- gpu.around(a [, decimals [, opts]]): NumPy's: a * 10^d rounded half to even, divided
-- back (a / 10^-d, rounded, multiplied, for negative d), in a's dtype; integers unchanged
-- for d >= 0, and for d < 0 rounded in float64 and made a's dtype again; complex numbers
-- each part alone, as NumPy's (a product with 10^d + 0j made inf + 1j NaN and lost -0)
function gpu.around(a, decimals, opts)
  if type(decimals) == "table" and opts == nil then decimals, opts = nil, decimals end
  decimals = decimals or 0
  if math.type(decimals) == "float" and decimals == math.floor(decimals) then decimals = math.tointeger(decimals) end
  if math.type(decimals) ~= "integer" then
    error(("gpu.around: decimals must be an integer, got %s"):format(gpu._arg.shown(decimals)), 2)
  end
  if decimals == 0 then return call(round, opts, a) end
  if decimals < -0x7fffffff or decimals > 0x7fffffff then   -- NumPy's C int
    error(("gpu.around: decimals %d is out of range (a 32-bit integer, as NumPy's)"):format(decimals), 2)
  end
  local k = kind(dtype_of(a, "around"))
  if k == "b" then error("gpu.around: bool arrays round to 0 decimals only, as NumPy's", 2) end
  local f = power_of_ten(math.abs(decimals))
  local out = opts and gpu._arg.options(opts, "around", "out stream").out
  if gpu._is_array(out) then gpu._arg.writeable(out, "around", "out") end
  if k == "i" or k == "u" then
    if not is_array(a) then a = gpu.full({}, a, "int64") end
    local r = decimals > 0 and a or gpu.multiply(round(gpu.divide(a, f)), f)
    if out then
      out:copy_(r)
      return out
    end
    return decimals > 0 and a:copy() or r:astype(a.dtype)
  end
  if k == "c" then
    local o = opts and gpu._arg.options(opts, "around", "out stream") or {}
    if o.out ~= nil and kind(gpu._arg.array(o.out, "around", "out").dtype) ~= "c" then
      error(("gpu.around: out is %s, and the result (%s) cannot be cast to it"):format(o.out.dtype, a.dtype), 2)
    end
    local s = {stream = o.stream}
    local re, im = gpu.around(gpu.real(a, s), decimals, s), gpu.around(gpu.imag(a, s), decimals, s)
    return by_parts(re, im, o.out or gpu.empty(a.shape, a.dtype), o.stream)
  end
  local wide = is_array(a) and ({float32 = "float64", float16 = "float64"})[a.dtype]
  if wide and f > 3.4028234663852886e38 then
    -- 10^d past float32's range (NumPy 1.24 makes that Python float a float64): in float64,
    -- then a's dtype (10^39 as a float32 was inf: 0 * inf made every result NaN)
    local o = opts and gpu._arg.options(opts, "around", "out stream") or {}
    local r = gpu.around(a:astype(wide), decimals, {stream = o.stream})
    if o.out then return o.out:copy_(r) end
    return r:astype(a.dtype)
  end
  if is_array(a) and a.dtype == "float16" and f > 65504 then
    -- NumPy 1.24's 10^d, past float16's range, is a float32 one: each step computes in
    -- float32 and is stored in out, or in float16 (10^d weak here would be inf, every
    -- result NaN)
    local F, o = gpu.full({}, f, "float32"), opts and gpu._arg.options(opts, "around", "out stream") or {}
    local into = o.out or gpu.empty(a.shape, "float16")
    local scaled = (decimals > 0 and gpu.multiply or gpu.divide)(a, F, {out = into, stream = o.stream})
    round(scaled, {out = scaled, stream = o.stream})
    return (decimals > 0 and gpu.divide or gpu.multiply)(scaled, F, {out = scaled, stream = o.stream})
  end
  local scaled = decimals > 0 and gpu.multiply(a, f) or gpu.divide(a, f)
  round(scaled, {out = scaled})
  return call(decimals > 0 and gpu.divide or gpu.multiply, opts, scaled, f)
end

for _, name in ipairs({"divmod", "modf", "frexp", "ldexp", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
                       "real_if_close", "around"}) do
  gpu[name] = gpu._api(gpu[name])
end
