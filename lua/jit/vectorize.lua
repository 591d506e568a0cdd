-- vectorize.lua: gpu.vectorize(f), numba's @vectorize(target="cuda") and cupy.vectorize:
-- a gpu.jit function of numbers applied to every element of arrays, broadcast as NumPy
-- broadcasts them. gpu.jit writes f's C as a device function for the arguments' types
-- (jit.lua's device_source), and an elementwise operation of gpu's own (gpu._ufunc, as
-- gpu.elementwise makes them: host/ufunc.c, lua/codegen.lua) calls it, so broadcasting,
-- views, outputs, streams and the kernels' 16-byte loads are the ufuncs'. The result's
-- dtype is what f returns for the elements' types. Loaded by jit.lua at the first use.
local gpu, jit = ...

local type, mtype, select = type, math.type, select
local array_mt = gpu._meta.array

local dtype_of = {int64 = "int64", float32 = "float32", float64 = "float64", bool = "bool",
                  complex64 = "complex64", complex128 = "complex128", float16 = "float16"}
-- the type of an element of an array of dtype, inside gpu.jit (integers are Lua's int64)
local element = {int8 = "int64", int16 = "int64", int32 = "int64", int64 = "int64", uint8 = "int64",
                 uint16 = "int64", uint32 = "int64", uint64 = "int64", float32 = "float32",
                 float64 = "float64", bool = "bool", complex64 = "complex64", complex128 = "complex128",
                 float16 = "float16"}
-- gpu's complex functions, which gpu.jit copies into a source that uses them: the
-- elementwise kernel has them already
local EW_BLOCK = "// gpu%.jit: gpu's complex functions {\n.-// } gpu%.jit: gpu's complex functions"

local MT = {}
MT.__index = MT
MT.__name = "gpu.vectorize"
MT.__tostring = function(v) return ("gpu.vectorize(%s)"):format(v.name) end

local function fail(v, i, what, level)
  error(("bad argument #%d to '%s' (%s)"):format(i, v.name, what), level + 1)
end

-- The options table (a table that is not an array, last), and the count of arguments.
local function dtype_of_array(a) return a.dtype end

local function split(v, ...)
  local n = select("#", ...)
  local last = n > 0 and select(n, ...)
  if type(last) == "table" and getmetatable(last) ~= array_mt then
    gpu._arg.options(last, ("'%s'"):format(v.name), "out stream", 3)   -- (split, __call, the caller)
    return last, n - 1
  end
  return nil, n
end

-- The ufunc's results, or its error raised at the caller's line, naming the function as
-- the user named it: 'add', not gpu.add (which is gpuhost's)
local function named(v, ok, ...)
  if ok then return ... end
  local e = ...
  if type(e) ~= "string" then error(e, 0) end
  local prefix = "gpu." .. v.name .. ": "
  if e:sub(1, #prefix) == prefix then e = ("'%s': %s"):format(v.name, e:sub(#prefix + 1)) end
  error(e, 2)   -- (a tail call from __call: level 2 is its caller)
end

MT.__call = function(v, ...)
  local traced = rawget(gpu, "_is_traced")   -- (gpu.fuse's, once loaded: its values are tables)
  for i = 1, traced and select("#", ...) or 0 do
    if traced((select(i, ...))) then
      error(("'%s', a gpu.vectorize function, cannot be called inside a fused function"):format(v.name), 2)
    end
  end
  local opts, n = split(v, ...)
  if n ~= v.nparams then
    error(("'%s' takes %d argument%s, got %d"):format(v.name, v.nparams, v.nparams == 1 and "" or "s", n), 2)
  end
  local args, pattern, types = {...}, {}, {}
  for i = 1, n do
    local a = args[i]
    if getmetatable(a) == array_mt then
      local ok, dt = pcall(dtype_of_array, a)   -- (a freed array's a.dtype raised, at no line)
      if not ok then fail(v, i, "attempt to use a freed array", 2) end
      local t = element[dt]
      if not t then fail(v, i, ("a %s array: gpu.vectorize takes integer, float, complex and bool arrays"):format(dt), 2) end
      pattern[i], types[i] = "a", t
    elseif mtype(a) == "integer" then
      pattern[i], types[i] = "s", "int64"
    elseif mtype(a) == "float" then
      pattern[i], types[i] = "s", "float64"
    elseif type(a) == "boolean" then
      pattern[i], types[i] = "s", "bool"
    elseif gpu._arg.is_complex(a) then   -- passed as a 0-D array (gpu's operations take no complex value)
      pattern[i], types[i] = "c", "complex128"
    else
      fail(v, i, ("a device array, number, boolean or gpu.complex expected, got %s"):format(gpu._described(a)), 2)
    end
  end
  pattern = table.concat(pattern)
  -- a Lua float is weak, as in gpu's own functions (gpu.multiply(a, 2.5) stays float32):
  -- float32 when the float and complex arrays are all float32 and complex64 (or float16),
  -- float16 when they are all float16; a gpu.complex is weak too, as Python's complex is in
  -- NumPy 2: complex64 where a float is float32 or float16, else complex128
  local float = "float64"
  for i = 1, n do
    if types[i] == "float16" and float == "float64" then float = "float16" end
  end
  for i = 1, n do
    if types[i] == "float32" or types[i] == "complex64" then float = "float32" end
  end
  for i = 1, n do
    if (types[i] == "float64" or types[i] == "complex128") and pattern:sub(i, i) == "a" then float = "float64" end
  end
  local dtypes = {}
  for i = 1, n do
    if pattern:sub(i, i) == "s" and types[i] == "float64" then types[i] = float end
    if pattern:sub(i, i) == "c" then
      types[i] = float == "float64" and "complex128" or "complex64"
      args[i] = gpu.full({}, args[i], types[i])
    end
    dtypes[i] = pattern:sub(i, i) == "a" and args[i].dtype or types[i]
  end
  local d = jit.device_source(v.f, types, 2)
  if d.ret == "void" then
    error(("gpu.vectorize: '%s' returns nothing for (%s): it must return a number or a boolean")
          :format(v.name, table.concat(types, ", ")), 2)
  end
  local out = opts and opts.out
  if out ~= nil and getmetatable(out) ~= array_mt then fail(v, n + 1, "option out must be a device array", 2) end
  if out ~= nil and gpu._arg.freed(out) then fail(v, n + 1, "option out: attempt to use a freed array", 2) end
  if out ~= nil then gpu._arg.writeable(out, ("vectorize '%s'"):format(v.name), "out") end
  dtypes[n + 1] = out and out.dtype or dtype_of[d.ret]
  local key = table.concat(dtypes, ",")
  local u = v.ufuncs[key]
  if not u then
    local names, call = {}, {}
    for i = 1, n do names[i] = "x" .. i; call[i] = "x" .. i end
    names[n + 1] = "out"
    u = gpu._ufunc({name = v.name, nin = n, nout = 1, dtypes = dtypes, names = names,
                    body = ("out = %s(%s);"):format(d.name, table.concat(call, ", ")),
                    prelude = (d.source:gsub(EW_BLOCK, "")),
                    load_outputs = {false}})
    v.ufuncs[key] = u
  end
  args[n + 1] = {stream = opts and opts.stream, out = out and {out}}
  return named(v, pcall(u, table.unpack(args, 1, n + 1)))
end

-- gpu.vectorize(f [, {name =}])
return function(f, options)
  local k
  k, options = jit.as_jit(f, options, "vectorize")
  local name = options.name or k.name
  local nparams = jit.nparams(k)
  if nparams == 0 then
    error("bad argument #1 to 'vectorize' (a function of at least one argument expected)", 3)
  end
  return setmetatable({f = k, name = name, nparams = nparams, ufuncs = {}}, MT)
end
