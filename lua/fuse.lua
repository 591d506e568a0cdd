-- fuse.lua: gpu.fuse(f), CuPy's @cupy.fuse. The first call with a given kind of
-- arguments (each array's dtype; int, float or boolean for each Lua value) runs f on
-- traced values that record every operation instead of computing it; the record becomes
-- the body of one elementwise kernel (codegen.lua), run like any other ufunc (broadcasting,
-- any number of dimensions, views). Later calls of that kind launch the kernel at once.
-- Types follow the eager operations exactly: each step asks its ufunc (u:_resolve).
local gpu, codegen_of = ...
local codegen = codegen_of()
local ctype = codegen.ctype

local Traced = {}        -- the metatable of traced values (host/ops.c knows it)
local Trace = {}
Trace.__index = Trace

local function new_value(trace, var, dtype, kind)
  return setmetatable({trace = trace, var = var, dtype = dtype, kind = kind or "array"}, Traced)
end
local function is_traced(v) return getmetatable(v) == Traced end

-- A Lua number or boolean as a C literal of dtype dt (bit patterns for inf and nan).
local function literal(v, dt)
  local c = ctype[dt]
  if type(v) == "boolean" then v = v and 1 or 0 end
  if dt == "bool" then return v ~= 0 and "true" or "false" end
  if dt == "float32" or dt == "float64" then
    local x = v + 0.0
    if x ~= x then return dt == "float32" and "__int_as_float(0x7fc00000)" or "__longlong_as_double(0x7ff8000000000000LL)" end
    if x == math.huge or x == -math.huge then
      local bits = dt == "float32" and (x > 0 and "__int_as_float(0x7f800000)" or "__int_as_float((int)0xff800000u)")
                   or (x > 0 and "__longlong_as_double(0x7ff0000000000000LL)" or "__longlong_as_double((long long)0xfff0000000000000ULL)")
      return bits
    end
    return ("(%s)%s"):format(c, ("%a"):format(x))
  end
  local i = math.tointeger(v) or error("not an integer: " .. tostring(v))
  if i == math.mininteger then return ("(%s)(-9223372036854775807LL - 1)"):format(c) end
  return ("(%s)%dLL"):format(c, i)
end

function Trace:emit(dtype, code)
  self.n = self.n + 1
  local var = "t" .. self.n
  self.lines[#self.lines + 1] = ("  %s %s = %s;"):format(ctype[dtype], var, code)
  return new_value(self, var, dtype)
end

-- What a value is for u:_resolve: a dtype name (arrays), or a number standing for a weak
-- scalar (a scalar argument of the fused function, or a constant).
local function resolve_arg(v)
  if is_traced(v) then
    if v.kind == "int" then return 0 elseif v.kind == "float" then return 0.5 elseif v.kind == "bool" then return false end
    return v.dtype
  end
  return v
end

-- u applied to traced values (host/ops.c sends calls with one here).
local function apply(u, ...)
  local args = table.pack(...)
  local trace
  for i = 1, args.n do
    local v = args[i]
    if is_traced(v) then
      if trace and v.trace ~= trace then error("gpu.fuse: a value from another trace", 3) end
      trace = v.trace
    end
  end
  if args.n ~= u.nin then
    error(("gpu.fuse: gpu.%s inside a fused function takes %d argument%s (no options)")
          :format(u.name, u.nin, u.nin == 1 and "" or "s"), 3)
  end
  local spec = {}
  for i = 1, args.n do
    local v = args[i]
    if not is_traced(v) and type(v) ~= "number" and type(v) ~= "boolean" then
      error(("gpu.fuse: gpu.%s argument %d is a %s; a fused function computes with its "
             .. "arguments and numbers only (pass arrays as arguments)"):format(u.name, i,
             gpu._meta.array == getmetatable(v) and "device array" or type(v)), 3)
    end
    spec[i] = resolve_arg(v)
  end
  local r = table.pack(pcall(u._resolve, u, table.unpack(spec, 1, args.n)))
  if not r[1] then error(r[2], 3) end
  local out = r[2]
  local operands = {}
  for i = 1, args.n do
    local v, loop = args[i], r[2 + i]
    if is_traced(v) then
      if v.kind == "int" or v.kind == "float" then trace:scalar_use(v, loop) end
      operands[i] = ("ew::cast<%s>(%s)"):format(ctype[loop], v.var)
    else
      operands[i] = literal(v, loop)
    end
  end
  return trace:emit(out, ("ew::cast<%s>(%s(%s))"):format(ctype[out], u.expr, table.concat(operands, ", ")))
end

-- A weak scalar argument used as an integer type must fit it when the kernel runs.
function Trace:scalar_use(v, loop)
  local uses = self.uses[v.var]
  uses[#uses + 1] = loop
end

local function binary(name) return function(a, b) return apply(gpu[name], a, b) end end
for meta, name in pairs({__add = "add", __sub = "subtract", __mul = "multiply", __div = "divide",
                         __idiv = "floor_divide", __mod = "remainder", __pow = "pow",
                         __band = "bitwise_and", __bor = "bitwise_or", __bxor = "bitwise_xor",
                         __shl = "left_shift", __shr = "right_shift"}) do
  Traced[meta] = binary(name)
end
Traced.__unm = function(a) return apply(gpu.negative, a) end
Traced.__bnot = function(a) return apply(gpu.invert, a) end
local function refuse(what)
  return function() error(("gpu.fuse: %s cannot be traced"):format(what), 2) end
end
Traced.__lt = refuse("x < y (Lua's comparisons give one boolean; use x:lt(y))")
Traced.__le = refuse("x <= y (Lua's comparisons give one boolean; use x:le(y))")
Traced.__eq = nil
Traced.__len = refuse("#x (the size is not known while tracing)")
Traced.__concat = refuse("..")
Traced.__call = refuse("calling a traced value")
Traced.__newindex = refuse("assigning into a traced value")
Traced.__tostring = function(v) return ("gpu.fuse traced value (%s)"):format(v.dtype) end
Traced.__index = function(v, k)
  if k == "astype" then
    return function(self, dtype)
      local dt = gpu.result_type(dtype)   -- checks the name
      return self.trace:emit(dt, ("ew::cast<%s>(%s)"):format(ctype[dt], self.var))
    end
  elseif k == "dtype" then
    return rawget(v, "dtype")
  elseif k == "clip" then
    return gpu.clip
  end
  local u = gpu[k]
  if type(u) == "userdata" and getmetatable(u) == gpu._meta.ufunc then return u end
  error(("gpu.fuse: x.%s cannot be traced (a fused function may use operators, gpu "
         .. "elementwise functions and their methods, and astype)"):format(tostring(k)), 2)
end
gpu._set_tracer(Traced, apply)

-- The kind of a call's arguments: each array's dtype, or the Lua kind of each value.
local function signature(args)
  local parts = {}
  for i = 1, args.n do
    local v = args[i]
    local t = type(v)
    if t == "userdata" and getmetatable(v) == gpu._meta.array then parts[i] = v.dtype
    elseif t == "number" then parts[i] = math.type(v)
    elseif t == "boolean" then parts[i] = "boolean"
    else
      error(("bad argument #%d to fused function (device array or number expected, got %s)")
            :format(i, t), 3)
    end
  end
  return table.concat(parts, ",")
end

-- Traces f for arguments like args; returns {ufunc =, scalars = {{index, loops}}}.
local function trace_for(f, name, args)
  local trace = setmetatable({n = 0, lines = {}, uses = {}}, Trace)
  local inputs, names, dtypes = {}, {}, {}
  for i = 1, args.n do
    local v, var = args[i], "x" .. (i - 1)
    names[i] = var
    if type(v) == "userdata" then
      inputs[i] = new_value(trace, var, v.dtype)
      dtypes[i] = v.dtype
    else
      local kind = math.type(v) == "integer" and "int" or math.type(v) == "float" and "float" or "bool"
      inputs[i] = new_value(trace, var, kind == "int" and "int64" or kind == "float" and "float64" or "bool", kind)
      dtypes[i] = inputs[i].dtype
      trace.uses[var] = {}
    end
  end
  local r = table.pack(pcall(f, table.unpack(inputs, 1, args.n)))
  if not r[1] then error(("gpu.fuse: could not trace %s: %s"):format(name, tostring(r[2])), 0) end
  if r.n < 2 then error(("gpu.fuse: %s returned nothing; a fused function returns arrays"):format(name), 0) end
  local body = {table.concat(trace.lines, "\n")}
  for j = 2, r.n do
    local v = r[j]
    if not is_traced(v) or v.trace ~= trace then
      error(("gpu.fuse: %s returned a %s as result %d; a fused function returns values computed "
             .. "from its arguments"):format(name, is_traced(v) and "value of another trace" or type(v), j - 1), 0)
    end
    names[#names + 1] = "o" .. (j - 2)
    dtypes[#dtypes + 1] = v.dtype
    body[#body + 1] = ("  o%d = %s;"):format(j - 2, v.var)
  end
  local u = gpu._ufunc({name = name, nin = args.n, nout = r.n - 1, dtypes = dtypes,
                        names = names, body = table.concat(body, "\n")})
  local scalars = {}
  for i = 1, args.n do
    local uses = trace.uses["x" .. (i - 1)]
    if uses then scalars[#scalars + 1] = {i, uses} end
  end
  return {ufunc = u, scalars = scalars}
end

-- gpu.fuse(f [, name]) -> a function that runs f as one kernel
function gpu.fuse(f, name)
  if type(f) ~= "function" then
    error(("bad argument #1 to 'fuse' (function expected, got %s)"):format(type(f)), 2)
  end
  if name == nil then
    local info = debug.getinfo(f, "S")
    name = ("fused_%s_%d"):format((info.short_src:match("([%w_]+)[^/]*$") or "f"), info.linedefined)
  end
  local traces, nparams = {}, debug.getinfo(f, "u").nparams
  return setmetatable({}, {
    __call = function(_, ...)
      local args = table.pack(...)
      local opts = args[args.n]
      if args.n > nparams and type(opts) == "table" and getmetatable(opts) == nil then
        args.n = args.n - 1     -- {out = ..., stream = ...}
      else
        opts = nil
      end
      local key = signature(args)
      local t = traces[key]
      if not t then
        t = trace_for(f, name, args)
        traces[key] = t
      end
      for _, s in ipairs(t.scalars) do   -- a Lua integer must fit each integer type it meets
        local v = args[s[1]]
        for _, loop in ipairs(s[2]) do
          if math.type(v) == "integer" and loop ~= "float32" and loop ~= "float64" and
             not pcall(gpu.add.result_dtype, gpu.add, loop, v) then
            error(("fused function argument %d: %d is out of range for %s"):format(s[1], v, loop), 2)
          end
        end
      end
      if opts then
        args[args.n + 1] = opts
        return t.ufunc(table.unpack(args, 1, args.n + 1))
      end
      return t.ufunc(...)
    end,
    __tostring = function() return ("gpu.fuse(%s)"):format(name) end,
  })
end
