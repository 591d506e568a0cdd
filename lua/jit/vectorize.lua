-- vectorize.lua: gpu.vectorize(f), numba's @vectorize(target="cuda") and cupy.vectorize:
-- a gpu.jit function of numbers applied to every element of arrays, broadcast as NumPy
-- broadcasts them. For each pattern of arguments (which are arrays) it makes a gpu.jit
-- kernel, from Lua text, that calls f as a device function in a grid-stride loop; the
-- result's dtype is what f returns for the elements' types (jit.lua's M.returns). So
-- compiling, caches and both backends are gpu.jit's. Loaded by jit.lua at the first use.
local gpu, jit = ...

local type, mtype, select = type, math.type, select
local array_mt = gpu._meta.array

local dtype_of = {int64 = "int64", float32 = "float32", float64 = "float64", bool = "bool"}
-- the type of an element of an array of dtype, inside gpu.jit (integers are Lua's int64)
local element = {int8 = "int64", int16 = "int64", int32 = "int64", int64 = "int64", uint8 = "int64",
                 uint16 = "int64", uint32 = "int64", uint64 = "int64", float32 = "float32",
                 float64 = "float64", bool = "bool"}

local function same_shape(a, b)
  if #a ~= #b then return false end
  for d = 1, #a do if a[d] ~= b[d] then return false end end
  return true
end

-- The Lua text of the kernel for a pattern ("a" an array, "s" a number or boolean, one
-- letter an argument): f is its upvalue, so gpu.jit calls it as a device function.
local function kernel_text(pattern)
  local params, args = {"out"}, {}
  for i = 1, #pattern do
    params[i + 1] = "x" .. i
    args[i] = pattern:sub(i, i) == "a" and ("x%d[i]"):format(i) or "x" .. i
  end
  return ("local f = ...\nreturn function(%s)\n  for i = gpu.grid(1), #out, gpu.gridsize(1) do\n"
          .. "    out[i] = f(%s)\n  end\nend\n"):format(table.concat(params, ", "), table.concat(args, ", "))
end

local MT = {}
MT.__index = MT
MT.__name = "gpu.vectorize"
MT.__tostring = function(v) return ("gpu.vectorize(%s)"):format(v.name) end

local function fail(v, i, what, level)
  error(("bad argument #%d to '%s' (%s)"):format(i, v.name, what), level + 1)
end

-- The options table (a table that is not an array, last), and the count of arguments.
local function split(v, ...)
  local n = select("#", ...)
  local last = n > 0 and select(n, ...)
  if type(last) == "table" and getmetatable(last) ~= array_mt then
    gpu._arg.options(last, v.name, "out stream")
    return last, n - 1
  end
  return nil, n
end

MT.__call = function(v, ...)
  local opts, n = split(v, ...)
  if n ~= v.nparams then
    error(("'%s' takes %d argument%s, got %d"):format(v.name, v.nparams, v.nparams == 1 and "" or "s", n), 2)
  end
  local args, pattern, types, shapes = {...}, {}, {}, {}
  for i = 1, n do
    local a = args[i]
    if getmetatable(a) == array_mt then
      local dt = a.dtype
      local t = element[dt]
      if not t then fail(v, i, ("a %s array: gpu.vectorize takes integer, float and bool arrays"):format(dt), 2) end
      pattern[i], types[i], shapes[#shapes + 1] = "a", t, a.shape
    elseif mtype(a) == "integer" then
      pattern[i], types[i] = "s", "int64"
    elseif mtype(a) == "float" then
      pattern[i], types[i] = "s", "float64"
    elseif type(a) == "boolean" then
      pattern[i], types[i] = "s", "bool"
    else
      fail(v, i, ("a device array, number or boolean expected, got %s"):format(gpu._described(a)), 2)
    end
  end
  pattern = table.concat(pattern)
  -- a Lua float is weak, as in gpu's own functions (gpu.multiply(a, 2.5) stays float32):
  -- float32 when the float arrays are all float32
  local float = "float64"
  for i = 1, n do
    if types[i] == "float32" then float = "float32" end
  end
  for i = 1, n do
    if types[i] == "float64" and pattern:sub(i, i) == "a" then float = "float64" end
  end
  if float == "float32" then
    for i = 1, n do
      if pattern:sub(i, i) == "s" and types[i] == "float64" then types[i] = "float32" end
    end
  end
  local ret = jit.returns(v.f, types, 2)
  if ret == "void" then
    error(("gpu.vectorize: '%s' returns nothing for (%s): it must return a number or a boolean")
          :format(v.name, table.concat(types, ", ")), 2)
  end
  local ok, shape = pcall(gpu.broadcast_shapes, table.unpack(shapes))
  if not ok then
    error(("'%s': the arrays do not broadcast together (%s)"):format(v.name, tostring(shape):gsub("^.-: ", "")), 2)
  end
  for i = 1, n do
    if pattern:sub(i, i) == "a" and not same_shape(args[i].shape, shape) then
      args[i] = gpu.broadcast_to(args[i], shape)
    end
  end
  local out = opts and opts.out
  if out ~= nil then
    if getmetatable(out) ~= array_mt then fail(v, n + 1, "option out must be a device array", 2) end
    if not same_shape(out.shape, shape) then
      fail(v, n + 1, ("option out has shape {%s}, the result {%s}"):format(table.concat(out.shape, ", "),
           table.concat(shape, ", ")), 2)
    end
  else
    out = gpu.empty(shape, dtype_of[ret])
  end
  local size = out.size
  if size == 0 then return out end
  local key = pattern .. " " .. float
  local k = v.kernels[key]
  if not k then
    k = gpu.jit(load(kernel_text(pattern))(v.f), {name = v.cname, debug = v.debug, float = float})
    v.kernels[key] = k
  end
  local grid = math.min((size + 255) // 256, 65536)
  k[{grid, 256, stream = opts and opts.stream}](out, table.unpack(args, 1, n))
  return out
end

-- gpu.vectorize(f [, {name =, debug =}])
return function(f, options)
  if options ~= nil and type(options) ~= "table" then
    error(("bad argument #2 to 'vectorize' (options table expected, got %s)"):format(type(options)), 3)
  end
  options = options or {}
  gpu._arg.options(options, "vectorize", "name debug")
  local k
  if jit.is_jit(f) then
    k = f
  elseif type(f) == "function" then
    k = gpu.jit(f, {name = options.name})
  else
    error(("bad argument #1 to 'vectorize' (a Lua function or a gpu.jit function expected, got %s)")
          :format(type(f)), 3)
  end
  local name = options.name or k.name
  return setmetatable({f = k, name = name, cname = name .. "_vectorized", debug = options.debug and true or false,
                       nparams = jit.nparams(k), kernels = {}}, MT)
end
