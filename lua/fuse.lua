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
gpu._is_traced = is_traced   -- (elementwise.lua's and reduction.lua's kernels refuse traced values)

-- A Lua number or boolean as a C literal of dtype dt (bit patterns for inf and nan).
local function literal(v, dt)
  local c = ctype[dt]
  if type(v) == "boolean" then v = v and 1 or 0 end
  if dt == "bool" then return v ~= 0 and "true" or "false" end
  if dt == "complex64" or dt == "complex128" then   -- a real number: the real part
    return ("%s(%s)"):format(c, literal(v, dt == "complex64" and "float32" or "float64"))
  end
  if dt == "float16" then return ("%s(%s)"):format(c, literal(v, "float64")) end   -- one rounding
  if dt == "float32" or dt == "float64" then
    local x = v * 1.0   -- (-0.0 stays -0.0: x * -0.0 is -0.0 for a positive x)
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

-- A traced Lua number (an argument, or one computed from numbers only) as a kernel
-- variable: one computed from numbers becomes an extra input of the kernel the first time
-- an array operation (or astype, or a return) uses it; its value is computed by Lua itself
-- at each call (see `derive`).
function Trace:var_of(v)
  local var = rawget(v, "var")
  if not var then
    self.extra[#self.extra + 1] = rawget(v, "derived")
    var = "x" .. (self.nargs + #self.extra - 1)
    rawset(v, "var", var)
    self.uses[var] = {}
  end
  return var
end

-- What a value is for u:_resolve: a dtype name (arrays), or a number standing for a weak
-- scalar (a scalar argument of the fused function, or a constant).
local function resolve_arg(v)
  if is_traced(v) then
    if v.kind == "int" then return 0 elseif v.kind == "float" then return 0.5 end
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
      local var = trace:var_of(v)
      local c = codegen.compute_of(u.expr)[loop]
      if v.kind == "int" or v.kind == "float" then
        trace:scalar_use(v, loop, i == 2 and u.expr == "ew::power" and u.name)
        -- a weak scalar takes the loop's dtype first (float16 rounds it), then computes
        if c ~= ctype[loop] then var = ("ew::cast<%s>(%s)"):format(ctype[loop], var) end
      end
      operands[i] = ("ew::cast<%s>(%s)"):format(c, var)
    else
      operands[i] = literal(v, loop)   -- a float16 one rounded so, then computed in float
      local c = codegen.compute_of(u.expr)[loop]
      if c ~= ctype[loop] then operands[i] = ("ew::cast<%s>(%s)"):format(c, operands[i]) end
    end
  end
  return trace:emit(out, ("ew::cast<%s>(%s(%s))"):format(ctype[out], u.expr, table.concat(operands, ", ")))
end

-- A weak scalar argument used as an integer type must fit it when the kernel runs; as the
-- exponent of an integer power (pow names the ufunc) it must not be negative, as eagerly.
function Trace:scalar_use(v, loop, pow)
  local uses = self.uses[v.var]
  uses[#uses + 1] = loop
  if pow and not loop:find("^float") and not loop:find("^complex") then uses.pow = pow end
end

-- Lua's operators on numbers alone (eagerly `y + 1` for a number y is Lua arithmetic and
-- stays a weak Lua number): the traced result is such a number too, computed by Lua at each
-- call, so its kind (integer or float), its value (integer wrap-around, // and % of Lua)
-- and its errors (n//0, a float with no integer representation) are Lua's.
local lua_op = {
  __add = function(a, b) return a + b end, __sub = function(a, b) return a - b end,
  __mul = function(a, b) return a * b end, __div = function(a, b) return a / b end,
  __idiv = function(a, b) return a // b end, __mod = function(a, b) return a % b end,
  __pow = function(a, b) return a ^ b end, __band = function(a, b) return a & b end,
  __bor = function(a, b) return a | b end, __bxor = function(a, b) return a ~ b end,
  __shl = function(a, b) return a << b end, __shr = function(a, b) return a >> b end,
  __unm = function(a) return -a end, __bnot = function(a) return ~a end,
}
local bitwise = {__band = true, __bor = true, __bxor = true, __shl = true, __shr = true, __bnot = true}

local function is_number(v)
  return type(v) == "number" or (is_traced(v) and v.kind ~= "array")
end

-- The traced number `meta`(a [, b]) gives, for operands that are all numbers.
local function derive(meta, a, b)
  local operands = {a, b}
  local n = meta == "__unm" and 1 or meta == "__bnot" and 1 or 2
  local trace, kinds = nil, {}
  for i = 1, n do
    local v = operands[i]
    if is_traced(v) then
      trace = trace or v.trace
      if v.trace ~= trace then error("gpu.fuse: a value from another trace", 3) end
      kinds[i] = v.kind
    else
      kinds[i] = math.type(v) == "integer" and "int" or "float"
    end
  end
  local kind
  if bitwise[meta] then kind = "int"
  elseif meta == "__div" or meta == "__pow" then kind = "float"
  else kind = (kinds[1] == "int" and (n == 1 or kinds[2] == "int")) and "int" or "float" end
  local refs = {}
  for i = 1, n do
    local v = operands[i]
    refs[i] = is_traced(v) and {arg = rawget(v, "arg"), derived = rawget(v, "derived")} or {value = v}
  end
  local derived = trace.derived
  local v = new_value(trace, nil, kind == "int" and "int64" or "float64", kind)
  derived[#derived + 1] = {op = lua_op[meta], refs = refs, n = n, dtype = v.dtype}
  rawset(v, "derived", #derived)
  return v
end

local function binary(meta, name)
  return function(a, b)
    if is_number(a) and is_number(b) then return derive(meta, a, b) end
    if (is_number(a) and type(b) == "boolean") or (type(a) == "boolean" and is_number(b)) then
      error(("attempt to perform %s on a boolean value"):format(bitwise[meta] and "bitwise operation" or "arithmetic"), 2)
    end
    return apply(gpu[name], a, b)
  end
end
for meta, name in pairs({__add = "add", __sub = "subtract", __mul = "multiply", __div = "divide",
                         __idiv = "floor_divide", __mod = "remainder", __pow = "pow",
                         __band = "bitwise_and", __bor = "bitwise_or", __bxor = "bitwise_xor",
                         __shl = "left_shift", __shr = "right_shift"}) do
  Traced[meta] = binary(meta, name)
end
Traced.__unm = function(a)
  if a.kind ~= "array" then return derive("__unm", a) end
  return apply(gpu.negative, a)
end
Traced.__bnot = function(a)
  if a.kind ~= "array" then return derive("__bnot", a) end
  return apply(gpu.invert, a)
end

-- The values of a trace's numbers computed from numbers, for a call's arguments.
local function derived_values(derived, args)
  local vals = {}
  for j, d in ipairs(derived) do
    local x = {}
    for i = 1, d.n do
      local r = d.refs[i]
      if r.arg then x[i] = args[r.arg] elseif r.derived then x[i] = vals[r.derived] else x[i] = r.value end
    end
    vals[j] = d.op(x[1], x[2])
  end
  return vals
end
local function refuse(what)
  return function() error(("gpu.fuse: %s cannot be traced"):format(what), 2) end
end
Traced.__lt = refuse("x < y (Lua's comparisons give one boolean; use x:lt(y))")
Traced.__le = refuse("x <= y (Lua's comparisons give one boolean; use x:le(y))")
-- (== of a traced value and a number or nil is never asked of it: Lua says false, so a
-- number argument is not compared while tracing; README says so)
Traced.__eq = refuse("x == y (Lua's == gives one boolean, and the trace cannot tell which arguments are one array; use x:eq(y))")
Traced.__len = refuse("#x (the size is not known while tracing)")
Traced.__concat = refuse("..")
Traced.__call = refuse("calling a traced value")
Traced.__newindex = refuse("assigning into a traced value")
-- (what host/array.c's "device array expected, got ..." says of one: gpu.sum(x) in f)
Traced.__name = "a value traced by gpu.fuse, which fuses elementwise operations only (no reductions or other functions)"
Traced.__tostring = function(v) return ("gpu.fuse traced value (%s)"):format(v.dtype) end
Traced.__index = function(v, k)
  if k == "astype" then
    return function(self, dtype)
      local ok, dt = pcall(gpu.result_type, dtype)   -- checks the name
      if not ok or type(dtype) ~= "string" then
        error(("x:astype(%s): %s"):format(type(dtype) == "string" and ("%q"):format(dtype) or gpu._arg.shown(dtype), ok and "a dtype name expected" or gpu._arg.unwrapped(dt)), 2)
      end
      return self.trace:emit(dt, ("ew::cast<%s>(%s)"):format(ctype[dt], self.trace:var_of(self)))
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
    elseif t == "boolean" then parts[i] = tostring(v)   -- traced as itself: `if flag` works
    elseif is_traced(v) then
      error("a fused function cannot be called inside another fused function (call the function it fuses)", 3)
    else
      error(("bad argument #%d to fused function (device array or number expected, got %s)")
            :format(i, t), 3)
    end
  end
  return table.concat(parts, ",")
end

-- Traces f for arguments like args; returns {ufunc =, scalars = {{index, loops}}}.
local function trace_for(f, name, args)
  local trace = setmetatable({n = 0, lines = {}, uses = {}, nargs = args.n, derived = {}, extra = {}}, Trace)
  local inputs, names, dtypes = {}, {}, {}
  for i = 1, args.n do
    local v, var = args[i], "x" .. (i - 1)
    names[i] = var
    if type(v) == "userdata" then
      inputs[i] = new_value(trace, var, v.dtype)
      dtypes[i] = v.dtype
    elseif type(v) == "boolean" then   -- its value (a kernel each), so f may branch on it
      inputs[i], dtypes[i] = v, "bool"
    else
      local kind = math.type(v) == "integer" and "int" or "float"
      inputs[i] = new_value(trace, var, kind == "int" and "int64" or "float64", kind)
      rawset(inputs[i], "arg", i)
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
    body[#body + 1] = ("  o%d = %s;"):format(j - 2, trace:var_of(v))
  end
  local nin = args.n + #trace.extra    -- the numbers computed from numbers that the kernel reads
  for k, j in ipairs(trace.extra) do
    names[args.n + k] = "x" .. (args.n + k - 1)
    dtypes[args.n + k] = trace.derived[j].dtype
  end
  for j = 2, r.n do
    names[nin + j - 1] = "o" .. (j - 2)
    dtypes[nin + j - 1] = r[j].dtype
  end
  local u = gpu._ufunc({name = name, nin = nin, nout = r.n - 1, dtypes = dtypes,
                        names = names, body = table.concat(body, "\n")})
  local scalars = {}
  for i = 1, nin do
    local uses = trace.uses["x" .. (i - 1)]
    if uses then scalars[#scalars + 1] = {i, uses} end
  end
  local results = {}
  for j = 2, r.n do results[j - 1] = r[j].dtype end
  return {ufunc = u, scalars = scalars, derived = trace.derived, extra = trace.extra, results = results}
end

-- An out of another dtype than its result (eager operations cast within its kind: float32
-- into float64, float64 into float32): the results made, checked and copied in, as NumPy's
-- casting = same_kind
local function cast_out(t, name, args, n, opts, outs)
  local o, temps = {}, {}
  for k, v in pairs(opts) do o[k] = v end
  for j, r in ipairs(outs) do
    local want = t.results[j]
    if want and r.dtype ~= want then
      if not gpu.can_cast(want, r.dtype, "same_kind") then
        error(("gpu.%s: out is %s, and the result (%s) cannot be cast to it"):format(name, r.dtype, want), 3)
      end
      temps[j] = gpu.with_device(r.device, gpu.empty, r.shape, want)
    end
  end
  o.out = {}
  for j, r in ipairs(outs) do o.out[j] = temps[j] or r end
  args[n + 1] = o
  t.ufunc(table.unpack(args, 1, n + 1))
  for j, r in pairs(temps) do outs[j]:copy_(r) end
  return table.unpack(outs)
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
  local info = debug.getinfo(f, "u")
  local traces, nparams = {}, info.nparams
  return setmetatable({}, {
    __call = gpu._api(function(_, ...)   -- errors at the caller's line
      local args = table.pack(...)
      local opts = args[args.n]
      if args.n > nparams and type(opts) == "table" and getmetatable(opts) == nil then
        args.n = args.n - 1     -- {out = ..., stream = ...}
      else
        opts = nil
      end
      if args.n > nparams and not info.isvararg then   -- f drops them, as a Lua call does (an
        args.n = nparams                                -- array among them broadcast the result)
      end
      local key = signature(args)
      local t = traces[key]
      if not t then
        t = trace_for(f, name, args)
        traces[key] = t
      end
      local n = args.n
      if #t.derived > 0 then             -- numbers computed from numbers, by Lua
        local ok, vals = pcall(derived_values, t.derived, args)
        if not ok then   -- Lua's message (n//0, no integer representation), without fuse.lua's line
          error(("gpu.fuse: %s: %s"):format(name, (tostring(vals):gsub("^[^:]*fuse%.lua:%d+: ", ""):gsub(" %(local '[ab]'%)", ""))), 2)
        end
        for k, j in ipairs(t.extra) do args[n + k] = vals[j] end
        n = n + #t.extra
      end
      for _, s in ipairs(t.scalars) do   -- a Lua integer must fit each integer type it meets
        local v = args[s[1]]
        if s[2].pow and math.type(v) == "integer" and v < 0 then   -- host/ops.c's check, eager
          error(("gpu.%s: integers to negative integer powers are not allowed (fused function %s %d)")
                :format(s[2].pow, s[1] <= args.n and "argument " .. s[1] .. " is" or "computes", v), 2)
        end
        for _, loop in ipairs(s[2]) do
          if math.type(v) == "integer" and loop ~= "float32" and loop ~= "float64" and
             not pcall(gpu.add.result_dtype, gpu.add, loop, v) then
            if s[1] <= args.n then
              error(("fused function argument %d: %d is out of range for %s"):format(s[1], v, loop), 2)
            end
            error(("fused function: %d (computed from its number arguments) is out of range for %s")
                  :format(v, loop), 2)
          end
        end
      end
      if opts then
        local outs = opts.out
        if type(outs) == "userdata" then outs = {outs} end
        local cast = false
        for j, o in ipairs(type(outs) == "table" and outs or {}) do
          cast = cast or gpu._is_array(o) and t.results[j] and o.dtype ~= t.results[j]
        end
        if cast then return cast_out(t, name, args, n, opts, outs) end
        args[n + 1] = opts
        return t.ufunc(table.unpack(args, 1, n + 1))
      end
      if n == args.n and n == select("#", ...) then return t.ufunc(...) end
      return t.ufunc(table.unpack(args, 1, n))
    end),
    __tostring = function() return ("gpu.fuse(%s)"):format(name) end,
  })
end
gpu.fuse = gpu._api(gpu.fuse)
