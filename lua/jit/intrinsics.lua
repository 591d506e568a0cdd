-- intrinsics.lua: what gpu.* and math.* mean inside a gpu.jit function. Each entry has
-- its type rule (call or value, used by infer.lua) and its C (emit, used by emit.lua,
-- which passes itself as E: E.cv(e, t) converts an expression, E.helper(name) asks for a
-- helper of emit.lua's prelude). Indices are 1-based (gpu.grid, threadIdx, blockIdx, lane
-- ids, array subscripts); counts and sizes (blockDim, gridDim, gridsize) are not.
local types, lex, gpu = ...
local M = {}

local namespaces = {gpu = true, math = true, ["gpu.shared"] = true, ["gpu.atomic"] = true,
                    ["gpu.threadIdx"] = true, ["gpu.blockIdx"] = true, ["gpu.blockDim"] = true,
                    ["gpu.gridDim"] = true}
local entries = {}

local function fail(ctx, line, fmt, ...) error({file = ctx.file, line = line, msg = fmt:format(...)}, 0) end

-- The values of a call ending e's arguments (infer's spread) past the hi that e's callee
-- takes, dropped, as Lua drops them: math.floor(gpu.grid(2)) is math.floor(x). Arguments
-- written out past hi stay, for nargs to refuse.
function M.drop_spread(e, hi)
  while #e.args > hi and e.args[#e.args].spread do e.args[#e.args] = nil end
end

local function nargs(ctx, e, lo, hi)
  M.drop_spread(e, hi)
  local n = #e.args
  if n < lo or n > hi then
    local want = lo == hi and tostring(lo) or (hi == math.huge and lo .. " or more" or lo .. " to " .. hi)
    fail(ctx, e.line, "%s takes %s argument%s, got %d", e.intr, want, (lo == 1 and hi == 1) and "" or "s", n)
  end
end

-- The value of a constant argument (a literal, a constant upvalue, or folded arithmetic).
local function const_of(ctx, e, typeof, what)
  typeof(e)
  if e.tag == "String" then return lex.string_value(e.text) end
  if e.const == nil then fail(ctx, e.line, "%s must be a constant", what) end
  return e.const
end

-- (an integral float, 2^3 or 3.0, is its integer: as an array's shape takes it)
local function const_int(ctx, e, typeof, what, lo, hi)
  local v = const_of(ctx, e, typeof, what)
  if math.type(v) == "float" then v = math.tointeger(v) or v end
  if math.type(v) ~= "integer" or v < lo or v > hi then
    fail(ctx, e.line, "%s must be an integer constant from %d to %d", what, lo, hi)
  end
  return v
end

local function numeric_arg(ctx, e, typeof, what)
  local t = typeof(e)
  if types.complex(t) then
    local name = what:match("^math%.(%a+)$")
    local hint = (name == "abs" or name == "sqrt" or name == "exp" or name == "log" or name == "sin" or
                  name == "cos" or name == "tan" or name == "asin" or name == "acos" or name == "atan")
                 and (" (gpu.%s takes complex ones)"):format(name) or ""
    fail(ctx, e.line, "%s needs a real number, got %s%s", what, types.a(t), hint)
  end
  if t ~= nil and not types.numeric(t) then
    fail(ctx, e.line, "%s needs a number, got %s", what, types.a(t))
  end
  return t
end

local function bool_arg(ctx, e, typeof, what)
  local t = typeof(e)
  if t ~= nil and t ~= "bool" then
    fail(ctx, e.line, "%s needs a boolean (a comparison), got %s", what, types.a(t))
  end
  return t
end

------------------------------------------------------------------------------------
-- thread indices

local axes = {x = true, y = true, z = true}
for _, v in ipairs({"threadIdx", "blockIdx", "blockDim", "gridDim"}) do
  local index = v == "threadIdx" or v == "blockIdx"
  for ax in pairs(axes) do
    entries["gpu." .. v .. "." .. ax] = {
      value = "int64",
      emit = function() return index and ("((long long)%s.%s + 1)"):format(v, ax)
                                     or ("(long long)%s.%s"):format(v, ax) end,
    }
  end
end
entries["gpu.laneid"] = {value = "int64", emit = function(E) E.helper("laneid"); return "jit::laneid()" end}
entries["gpu.warpsize"] = {value = "wint", const = 32}

-- gpu.grid(n), gpu.gridsize(n): n values
local function grid_like(name, plus)
  return {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 1, 1)
      local n = const_int(ctx, e.args[1], typeof, name .. "'s argument", 1, 3)
      e.nvalues, e.types = n, {"int64", "int64", "int64"}
      return "int64"
    end,
    emit = function(_, e, k)
      local ax = ({"x", "y", "z"})[k or 1]
      local n = e.args[1].const
      if plus then return ("(gpu::%s(%d).%s + 1)"):format(name, n, ax) end
      return ("gpu::%s(%d).%s"):format(name, n, ax)
    end,
  }
end
entries["gpu.grid"] = grid_like("grid", true)
entries["gpu.gridsize"] = grid_like("gridsize", false)

------------------------------------------------------------------------------------
-- synchronization

local function void_call(name, c)
  entries[name] = {
    call = function(ctx, e) nargs(ctx, e, 0, 0); return "void" end,
    emit = function() return c end,
  }
end
void_call("gpu.syncthreads", "__syncthreads()")
void_call("gpu.threadfence", "__threadfence()")
void_call("gpu.threadfence_block", "__threadfence_block()")
void_call("gpu.threadfence_system", "__threadfence_system()")

for name, ret in pairs({count = "int64", ["and"] = "bool", ["or"] = "bool"}) do
  entries["gpu.syncthreads_" .. name] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 1, 1)
      bool_arg(ctx, e.args[1], typeof, e.intr)
      return ret
    end,
    emit = function(E, e)
      local c = ("__syncthreads_%s(%s)"):format(name, E.cv(e.args[1], "bool"))
      return ret == "bool" and "(" .. c .. " != 0)" or "(long long)" .. c
    end,
  }
end

entries["gpu.syncwarp"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 0, 1)
    if e.args[1] then numeric_arg(ctx, e.args[1], typeof, "gpu.syncwarp's mask") end
    return "void"
  end,
  emit = function(E, e)
    if not e.args[1] then return "__syncwarp()" end
    return ("__syncwarp((unsigned)%s)"):format(E.cv(e.args[1], "int64"))
  end,
}

------------------------------------------------------------------------------------
-- warp functions: a value of any number type; lanes are 1-based

-- arg: "lane" (a 1-based source lane), "delta" (a lane offset) or "mask" (xor's lane mask)
local function shuffle(name, c, masked, arg)
  entries["gpu." .. name] = {
    call = function(ctx, e, typeof)
      local off = masked and 1 or 0
      nargs(ctx, e, 2 + off, 3 + off)
      if masked then numeric_arg(ctx, e.args[1], typeof, "the mask") end
      local t = numeric_arg(ctx, e.args[1 + off], typeof, "the shuffled value")
      local k = typeof(e.args[2 + off])
      if k ~= nil and not types.integer(k) then
        fail(ctx, e.line, "%s's %s must be an integer", e.intr, arg == "lane" and "lane" or "offset")
      end
      if e.args[3 + off] then numeric_arg(ctx, e.args[3 + off], typeof, "the width") end
      return t and types.concrete(t)
    end,
    emit = function(E, e)
      local off = masked and 1 or 0
      local t = types.concrete(e.ty)
      local mask = masked and ("(unsigned)" .. E.cv(e.args[1], "int64")) or "0xffffffffu"
      local k = E.cv(e.args[2 + off], "int64")
      if arg == "lane" then k = ("(int)(%s - 1)"):format(k)
      elseif arg == "delta" then k = ("(unsigned)%s"):format(k)
      else k = ("(int)%s"):format(k) end
      local w = e.args[3 + off] and (", (int)" .. E.cv(e.args[3 + off], "int64")) or ""
      return ("%s(%s, %s, %s%s)"):format(c, mask, E.cv(e.args[1 + off], t), k, w)
    end,
  }
end
for _, masked in ipairs({false, true}) do
  local sfx = masked and "_sync" or ""
  shuffle("shfl" .. sfx, "__shfl_sync", masked, "lane")
  shuffle("shfl_up" .. sfx, "__shfl_up_sync", masked, "delta")
  shuffle("shfl_down" .. sfx, "__shfl_down_sync", masked, "delta")
  shuffle("shfl_xor" .. sfx, "__shfl_xor_sync", masked, "mask")
end

for name, ret in pairs({ballot_sync = "int64", any_sync = "bool", all_sync = "bool"}) do
  entries["gpu." .. name] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 2, 2)
      numeric_arg(ctx, e.args[1], typeof, "the mask")
      bool_arg(ctx, e.args[2], typeof, e.intr)
      return ret
    end,
    emit = function(E, e)
      local c = ("__%s((unsigned)%s, %s)"):format(name, E.cv(e.args[1], "int64"), E.cv(e.args[2], "bool"))
      return ret == "bool" and "(" .. c .. " != 0)" or "(long long)" .. c
    end,
  }
end
entries["gpu.activemask"] = {
  call = function(ctx, e) nargs(ctx, e, 0, 0); return "int64" end,
  emit = function() return "(long long)__activemask()" end,
}

------------------------------------------------------------------------------------
-- shared and local arrays: `local s = gpu.shared.array(256, gpu.float32)`

local dtype_names = {}
for _, d in ipairs({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                    "uint32", "uint64", "bool", "complex64", "complex128"}) do
  dtype_names[d] = d
  entries["gpu." .. d] = {value = "dtype", dtype = d}
end
dtype_names.double = "float64"
dtype_names.half = "float16"
M.dtype_names = dtype_names

local function dtype_arg(ctx, e, typeof)
  if e == nil then return "float32" end
  local t = typeof(e)
  local d
  if t == "dtype" then d = e.dtype
  elseif t == "str" then d = dtype_names[const_of(ctx, e, typeof, "the dtype")] end
  if not d then fail(ctx, e.line, "the dtype must be gpu.float32, gpu.int32 ... or its name") end
  return d
end

local function local_array(shared)
  local what = shared and "gpu.shared.array" or "gpu.local_array"
  return {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 1, 2)
      if not e.declares then
        fail(ctx, e.line, "%s must be the value of a local: local s = %s(256, gpu.float32)", what, what)
      end
      if e.larr then return e.larr end
      local dims, shape = {}, e.args[1]
      local items = {}
      if shape.tag == "Table" then
        for i, item in ipairs(shape.items) do items[i] = item.value end
      else
        items[1] = shape
      end
      if #items < 1 or #items > 3 then fail(ctx, e.line, "%s takes 1 to 3 dimensions", what) end
      local total = 1
      for i, d in ipairs(items) do
        dims[i] = const_int(ctx, d, typeof, what .. "'s size", 1, 1 << 30)
        total = total * dims[i]
      end
      if total > (shared and (1 << 16) or (1 << 20)) then
        fail(ctx, e.line, "%s of %d elements is too large", what, total)
      end
      local dtype = dtype_arg(ctx, e.args[2], typeof)
      e.larr = {local_array = dtype, dims = dims, shared = shared, total = total}
      return e.larr
    end,
    -- emitted by emit.lua as a declaration
  }
end
entries["gpu.shared.array"] = local_array(true)
entries["gpu.local_array"] = local_array(false)

------------------------------------------------------------------------------------
-- atomics: gpu.atomic.add(a, i, v) on a[i] (a[i][j]: gpu.atomic.add(a, i, j, v)); each
-- returns the old value

local atomic_types = {
  add = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1, float32 = 1, float64 = 1, float16 = 1},
  sub = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1, float32 = 1, float64 = 1, float16 = 1},
  max = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1, float32 = 1, float64 = 1, float16 = 1},
  min = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1, float32 = 1, float64 = 1, float16 = 1},
  exch = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1, float32 = 1, float64 = 1, float16 = 1},
  and_ = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1},
  or_ = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1},
  xor = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1},
  inc = {uint32 = 1},
  dec = {uint32 = 1},
  cas = {int32 = 1, uint32 = 1, int64 = 1, uint64 = 1},
}
M.atomic_types = atomic_types

for op, allowed in pairs(atomic_types) do
  local values = op == "cas" and 2 or 1
  entries["gpu.atomic." .. op] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 1 + 1 + values, 1 + 3 + values)
      local a = e.args[1]
      local at = typeof(a)
      if at == nil then return nil end
      if type(at) ~= "table" then
        fail(ctx, e.line, "%s takes an array first, got %s", e.intr, types.a(at))
      end
      local dtype = at.array or at.local_array
      if not allowed[dtype] then
        local ok = {}
        for d in pairs(allowed) do ok[#ok + 1] = d end
        table.sort(ok)
        fail(ctx, e.line, "%s on %s array: it takes %s arrays", e.intr, types.a(dtype), table.concat(ok, ", "))
      end
      local nidx = #e.args - 1 - values
      if at.local_array and nidx ~= 1 and nidx ~= #at.dims then
        fail(ctx, e.line, "%s: this %s takes 1 or %d indices", e.intr, types.name(at), #at.dims)
      end
      for k = 2, 1 + nidx do
        local t = typeof(e.args[k])
        if t ~= nil and not types.integer(t) then
          fail(ctx, e.args[k].line, "an array index must be an integer%s", ctx.widened_note(e.args[k]))
        end
      end
      for k = 2 + nidx, #e.args do numeric_arg(ctx, e.args[k], typeof, e.intr) end
      e.atomic = {op = op, arr = at, nidx = nidx, dtype = dtype}
      return types.element(dtype)
    end,
    emit = function(E, e)
      local at = e.atomic
      local idx = {}
      for k = 2, 1 + at.nidx do idx[#idx + 1] = e.args[k] end
      local ptr = E.address(e.args[1], at.arr, idx, e.line)
      local ct = types.ctype[at.dtype]
      local vals = {}
      for k = 2 + at.nidx, #e.args do
        vals[#vals + 1] = ("(%s)%s"):format(ct, E.cv(e.args[k], types.concrete(types.element(at.dtype))))
      end
      local name = op:gsub("_$", "")
      E.helper(at.dtype == "float16" and "atomic_half" or "atomic_" .. name)
      return ("jit::atomic_%s(%s, %s)"):format(name, ptr, table.concat(vals, ", "))
    end,
  }
end

------------------------------------------------------------------------------------
-- gpu.printf(format, ...): C's printf with Lua's conversions (%d takes any integer)

local function c_string(s)
  return '"' .. s:gsub('[%c"\\?\128-\255]', function(c)
    if c == "\n" then return "\\n" elseif c == "\t" then return "\\t" end
    if c == '"' or c == "\\" or c == "?" then return "\\" .. c end
    return ("\\%03o"):format(c:byte())
  end) .. '"'
end
M.c_string = c_string

-- The format read as Lua 5.4's string.format reads it (lstrlib.c's str_format, getformat,
-- checkformat): a list of literal text ("%%" is a percent sign, kept as C's "%%") and
-- conversions {spec = flags, width and precision, conv = the letter, form = the whole};
-- string.format's errors, as fail's arguments, for the first that is wrong.
local fmt_flags = {c = "-", s = "-", p = "-", d = "-+ 0", i = "-+ 0", u = "-0", o = "-#0", x = "-#0",
                   X = "-#0", q = ""}
for c in ("aAeEfFgG"):gmatch(".") do fmt_flags[c] = "-+ #0" end

local function format_items(fmt)
  local items, pos = {}, 1
  while pos <= #fmt do
    local at = fmt:find("%", pos, true)
    if not at then items[#items + 1] = fmt:sub(pos); break end
    if at > pos then items[#items + 1] = fmt:sub(pos, at - 1) end
    if fmt:sub(at + 1, at + 1) == "%" then
      items[#items + 1] = "%%"
      pos = at + 2
    else
      local spec = fmt:match("^[-+ #0-9.]*", at + 1)
      local conv = fmt:sub(at + 1 + #spec, at + 1 + #spec)
      items[#items + 1] = {spec = spec, conv = conv, form = "%" .. spec .. conv}
      pos = at + 2 + #spec
    end
  end
  return items
end

-- Is a conversion's spec one string.format takes (flags of its conversion, then a width and
-- a precision of 2 digits at most, a width not starting with 0)?
local function spec_ok(spec, flags, precision)
  local i = 1
  while i <= #spec and flags:find(spec:sub(i, i), 1, true) do i = i + 1 end
  local function digits(j)
    if spec:find("^%d", j) then j = j + 1; if spec:find("^%d", j) then j = j + 1 end end
    return j
  end
  if spec:sub(i, i) ~= "0" then
    i = digits(i)
    if spec:sub(i, i) == "." and precision then i = digits(i + 1) end
  end
  return i > #spec
end

-- The checks string.format makes of conversion k (its argument #k + 1), in its order.
local function check_conversion(ctx, e, item, k)
  if not e.args[k + 1] then fail(ctx, e.line, "gpu.printf: bad argument #%d (no value)", k + 1) end
  if #item.spec + 1 >= 22 then fail(ctx, e.line, "gpu.printf: invalid format (too long)") end
  local flags = fmt_flags[item.conv]
  if not flags then fail(ctx, e.line, "gpu.printf: invalid conversion '%s' to 'format'", item.form) end
  if item.conv == "q" or item.conv == "p" then
    fail(ctx, e.line, "gpu.printf: conversion '%%%s' is not supported", item.conv)
  end
  if not spec_ok(item.spec, flags, item.conv ~= "c") then
    fail(ctx, e.line, "gpu.printf: invalid conversion specification: '%s'", item.form)
  end
end

entries["gpu.printf"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 1, math.huge)
    local fmt = const_of(ctx, e.args[1], typeof, "gpu.printf's format")
    if type(fmt) ~= "string" then fail(ctx, e.line, "gpu.printf's format must be a string") end
    local items, specs, k = format_items(fmt), {}, 1
    for _, item in ipairs(items) do
      if type(item) == "table" then
        check_conversion(ctx, e, item, k)
        k = k + 1
        local a, conv = e.args[k], item.conv
        local t = typeof(a)
        if types.complex(t) then
          fail(ctx, a.line, "gpu.printf cannot print %s: print its parts, z.real and z.imag", types.a(t))
        end
        specs[#specs + 1] = {arg = a, ty = t}
        if conv == "s" then
          if t ~= "str" and t ~= "bool" and t ~= nil and not types.numeric(t) then
            fail(ctx, a.line, "gpu.printf: %%s takes a string constant, a boolean or a number")
          end
          if t == "str" then specs[#specs].str = const_of(ctx, a, typeof, "a %s string") end
          if t ~= "str" and t ~= "bool" and item.spec:find(".", 1, true) then
            fail(ctx, a.line, "gpu.printf: %%s with a precision (%s) takes a string constant or a boolean",
                 item.form)
          end
        elseif t ~= nil and not types.numeric(t) then
          fail(ctx, a.line, "gpu.printf: %%%s takes a number, got %s", conv, types.a(t))
        elseif conv:find("^[diuoxXc]$") and types.float(t) and not (a.const ~= nil and math.tointeger(a.const)) then
          -- string.format's %d refuses 2.5 ("number has no integer representation"), which a
          -- kernel cannot say when it prints: a float is refused where it is compiled
          fail(ctx, a.line, "gpu.printf: %%%s takes an integer, got %s (string.format refuses a "
               .. "float that is not whole: convert it with math.floor, or print it with %%g)", conv, types.a(t))
        end
        if specs[#specs].str and specs[#specs].str:find("\0", 1, true) then
          fail(ctx, a.line, "gpu.printf: %%s cannot print a string with a zero byte (C's printf ends it there)")
        end
      end
    end
    -- arguments past the conversions are evaluated and not printed, as string.format does
    local extra = {}
    for i = k + 1, #e.args do
      local t = typeof(e.args[i])
      local a = e.args[i]
      if (t == "bool" or types.numeric(t)) and a.const == nil and a.tag ~= "True" and a.tag ~= "False" then
        extra[#extra + 1] = a
      end
    end
    e.printf = {items = items, specs = specs, extra = extra}
    return "void"
  end,
  emit = function(E, e)
    local p, i, args, fmt = e.printf, 0, {}, {}
    for _, item in ipairs(p.items) do
      if type(item) == "string" then
        -- a zero byte would end C's format: printed by a %c of 0, as string.format prints it
        fmt[#fmt + 1] = item:gsub("%z", function() args[#args + 1] = "0"; return "%c" end)
      else
        i = i + 1
        local s, spec, conv = p.specs[i], item.spec, item.conv
        local c
        if conv == "s" then
          if s.str then
            args[#args + 1] = c_string(s.str)
            c = "s"
          elseif s.ty == "bool" then
            args[#args + 1] = ("(%s ? \"true\" : \"false\")"):format(E.cv(s.arg, "bool"))
            c = "s"
          elseif types.integer(s.ty) then
            args[#args + 1] = E.cv(s.arg, "int64")
            c = "lld"
          else
            args[#args + 1] = ("(double)%s"):format(E.cv(s.arg, types.concrete(s.ty)))
            c = ".14g"
          end
        elseif conv:find("^[diuoxX]$") then
          args[#args + 1] = ("(long long)%s"):format(E.cv(s.arg, types.concrete(s.ty)))
          c = "ll" .. (conv == "i" and "d" or conv)
        elseif conv == "c" then
          args[#args + 1] = ("(int)%s"):format(E.cv(s.arg, types.concrete(s.ty)))
          c = "c"
        else
          args[#args + 1] = ("(double)%s"):format(E.cv(s.arg, types.concrete(s.ty)))
          c = conv
        end
        fmt[#fmt + 1] = "%" .. spec .. c
      end
    end
    local list = #args > 0 and (", " .. table.concat(args, ", ")) or ""
    local call = ("printf(%s%s)"):format(c_string(table.concat(fmt)), list)
    if #p.extra == 0 then return call end
    local parts = {}
    for k, a in ipairs(p.extra) do
      parts[k] = ("(void)(%s)"):format(E.cv(a, types.concrete(a.ty)))
    end
    parts[#parts + 1] = call
    return "(" .. table.concat(parts, ", ") .. ")"
  end,
}

------------------------------------------------------------------------------------
-- random numbers: numba.cuda.random's xoroshiro128+ (gpuhost.cuh's gpu::xoroshiro128p_*):
-- gpu.random.xoroshiro128p_uniform_float32(states, i) advances generator i (1-based) of
-- states, a uint64 array of n x 2 (gpu.random.create_xoroshiro128p_states), in place

namespaces["gpu.random"] = true
for name, ret in pairs({uniform_float32 = "float32", uniform_float64 = "float64", normal_float32 = "float32",
                        normal_float64 = "float64"}) do
  local intr = "gpu.random.xoroshiro128p_" .. name
  entries[intr] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 2, 2)
      local a, at = e.args[1], typeof(e.args[1])
      if at ~= nil and not (type(at) == "table" and at.array == "uint64") then
        fail(ctx, e.line, "%s's states%s must be a uint64 device array of n x 2 "
             .. "(gpu.random.create_xoroshiro128p_states), got %s", intr,
             a.tag == "Name" and " ('" .. a.name .. "')" or "", types.a(at))
      end
      local t = typeof(e.args[2])
      if t ~= nil and not types.integer(t) then fail(ctx, e.args[2].line, "%s's index must be an integer", intr) end
      return ret
    end,
    emit = function(E, e)
      local states, i = E.cv(e.args[1]), E.cv(e.args[2], "int64")
      local site, record = E.checks(e.line)
      if site then
        E.helper("rng_row")
        i = ("jit::rng_row(%s, %s, %d, %s)"):format(states, i, site, record)
      else
        i = i .. " - 1"
      end
      return ("gpu::xoroshiro128p_%s(%s, %s)"):format(name, states, i)
    end,
  }
end

------------------------------------------------------------------------------------
-- math

entries["math.pi"] = {value = "wfloat", const = math.pi}
entries["math.huge"] = {value = "wfloat", const = math.huge}
entries["math.maxinteger"] = {value = "wint", const = math.maxinteger}
entries["math.mininteger"] = {value = "wint", const = math.mininteger}

-- one float argument (ints become float64), the result's type is the argument's
local function float_fn(name, c64, c32)
  entries["math." .. name] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 1, 1)
      local t = numeric_arg(ctx, e.args[1], typeof, "math." .. name)
      return t and types.floated(t)
    end,
    emit = function(E, e)
      local t = types.concrete(e.ty)
      return ("%s(%s)"):format(t == "float32" and c32 or c64, E.cv(e.args[1], t))
    end,
  }
end
float_fn("sqrt", "sqrt", "sqrtf")
float_fn("exp", "exp", "expf")
float_fn("sin", "sin", "sinf")
float_fn("cos", "cos", "cosf")
float_fn("tan", "tan", "tanf")
float_fn("asin", "asin", "asinf")
float_fn("acos", "acos", "acosf")

entries["math.atan"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 1, 2)
    local t = numeric_arg(ctx, e.args[1], typeof, "math.atan")
    if e.args[2] then t = types.promote(t, numeric_arg(ctx, e.args[2], typeof, "math.atan")) end
    return t and types.floated(t)
  end,
  emit = function(E, e)
    local t = types.concrete(e.ty)
    local f = t == "float32" and "atan2f" or "atan2"
    local x = e.args[2] and E.cv(e.args[2], t) or (t == "float32" and "1.0f" or "1.0")
    return ("%s(%s, %s)"):format(f, E.cv(e.args[1], t), x)
  end,
}

entries["math.log"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 1, 2)
    local t = numeric_arg(ctx, e.args[1], typeof, "math.log")
    if e.args[2] then t = types.promote(t, numeric_arg(ctx, e.args[2], typeof, "math.log")) end
    return t and types.floated(t)
  end,
  emit = function(E, e)
    local t = types.concrete(e.ty)
    local f = t == "float32" and "f" or ""
    local x = E.cv(e.args[1], t)
    local b = e.args[2]
    if not b then return ("log%s(%s)"):format(f, x) end
    if b.const == 2 then return ("log2%s(%s)"):format(f, x) end
    if b.const == 10 then return ("log10%s(%s)"):format(f, x) end
    E.helper("logb")
    return ("jit::logb(%s, %s)"):format(x, E.cv(b, t))
  end,
}

-- floor and ceil give integers, as Lua's do for a float that fits one (one that does not:
-- jit::toint's, where Lua keeps the float)
local function toint(v)   -- jit::toint's value for a constant floored (or ceiled) v
  if math.type(v) == "integer" then return v end
  if v ~= v then return 0 end
  if v >= 2.0 ^ 63 then return math.maxinteger end
  if v < -2.0 ^ 63 then return math.mininteger end
  return math.tointeger(v)
end
for _, name in ipairs({"floor", "ceil"}) do
  entries["math." .. name] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 1, 1)
      local t = numeric_arg(ctx, e.args[1], typeof, "math." .. name)
      if e.args[1].const ~= nil then e.const = toint(math[name](e.args[1].const)); return "wint" end
      return t and "int64"
    end,
    emit = function(E, e)
      local t = types.concrete(e.args[1].ty)
      if types.integer(t) then return E.cv(e.args[1], "int64") end
      if t == "float16" then t = "float32" end   -- exactly a float
      E.helper("toint")
      return ("jit::toint(%s%s(%s))"):format(name, t == "float32" and "f" or "", E.cv(e.args[1], t))
    end,
  }
end

entries["math.abs"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 1, 1)
    return numeric_arg(ctx, e.args[1], typeof, "math.abs")
  end,
  emit = function(E, e)
    local t = types.concrete(e.ty)
    if t == "int64" then E.helper("int_iabs"); return ("jit::iabs(%s)"):format(E.cv(e.args[1], t)) end
    return ("%s(%s)"):format(t == "float32" and "fabsf" or "fabs", E.cv(e.args[1], t))
  end,
}

entries["math.fmod"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 2, 2)
    local a = numeric_arg(ctx, e.args[1], typeof, "math.fmod")
    local b = numeric_arg(ctx, e.args[2], typeof, "math.fmod")
    local t = a and b and types.promote(a, b)
    if t and types.integer(t) and e.args[2].const == 0 then
      fail(ctx, e.line, "bad argument #2 to 'fmod' (zero)")   -- Lua's error (at run time: 0)
    end
    return t
  end,
  emit = function(E, e)
    local t = types.concrete(e.ty)
    local a, b = E.cv(e.args[1], t), E.cv(e.args[2], t)
    if t == "int64" then E.helper("int_ifmod"); return ("jit::ifmod(%s, %s)"):format(a, b) end
    return ("%s(%s, %s)"):format(t == "float32" and "fmodf" or "fmod", a, b)
  end,
}

-- math.max/min: the first argument unless a later one is greater (smaller), as Lua's
for _, name in ipairs({"max", "min"}) do
  entries["math." .. name] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, 1, math.huge)
      local t
      for i, a in ipairs(e.args) do
        local at = numeric_arg(ctx, a, typeof, "math." .. name)
        if at == nil then return nil end
        t = i == 1 and at or types.promote(t, at)
      end
      return t
    end,
    emit = function(E, e)
      local t = types.concrete(e.ty)
      E.helper("minmax")
      local code = E.cv(e.args[1], t)
      for i = 2, #e.args do code = ("jit::%s(%s, %s)"):format(name, code, E.cv(e.args[i], t)) end
      return code
    end,
  }
end

entries["math.ult"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 2, 2)
    for _, a in ipairs(e.args) do
      local t = typeof(a)
      if t ~= nil and not types.integer(t) then fail(ctx, a.line, "math.ult takes integers") end
    end
    return "bool"
  end,
  emit = function(E, e)
    return ("((unsigned long long)%s < (unsigned long long)%s)"):format(E.cv(e.args[1], "int64"),
                                                                        E.cv(e.args[2], "int64"))
  end,
}

------------------------------------------------------------------------------------
-- gpu.<function>: the elementwise functions of arrays, on numbers (NumPy's rules: a
-- float function of an integer is a float64, of a float32 a float32; gpu.floor, ceil,
-- trunc, abs, sign and square keep the type, so gpu.floor(x) is a float where
-- math.floor(x) is an integer; predicates give booleans). The C is the C library's
-- (float32 functions on float32) or emit.lua's "npmath" helpers.

local npmath = {}   -- name -> {kind, c64, c32} or {kind, jit = helper function}
local function def(kind, names, c64, c32)
  for name in names:gmatch("%S+") do
    npmath[name] = {kind = kind, c64 = c64 or name, c32 = c32 or (c64 or name) .. "f"}
  end
end
for _, n in ipairs({"sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sin",
                    "cos", "tan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt",
                    "erf", "erfc", "lgamma", "tgamma", "rint"}) do
  def("float1", n)
end
def("float1", "asin arcsin", "asin")
def("float1", "acos arccos", "acos")
def("float1", "atan arctan", "atan")
def("float1", "arcsinh", "asinh")
def("float1", "arccosh", "acosh")
def("float1", "arctanh", "atanh")
def("float1", "fabs", "fabs")
def("float1", "deg2rad radians", "jit::deg2rad", "jit::deg2rad")
def("float1", "rad2deg degrees", "jit::rad2deg", "jit::rad2deg")
def("float2", "atan2 arctan2", "atan2")
def("float2", "hypot")
def("float2", "copysign")
def("float2", "nextafter")
def("float2", "logaddexp", "jit::logaddexp", "jit::logaddexp")
def("float2", "logaddexp2", "jit::logaddexp2", "jit::logaddexp2")
def("keep1", "floor")
def("keep1", "ceil")
def("keep1", "trunc fix", "trunc")
def("keep1", "abs absolute", "fabs")
def("keep1", "sign", "jit::sign", "jit::sign")
def("keep1", "square", "jit::square", "jit::square")
def("keep2", "maximum", "jit::maximum", "jit::maximum")
def("keep2", "minimum", "jit::minimum", "jit::minimum")
def("keep2", "fmax")
def("keep2", "fmin")
def("pred", "isnan", "jit::isnan", "jit::isnan")
def("pred", "isinf", "jit::isinf", "jit::isinf")
def("pred", "isfinite", "jit::isfinite", "jit::isfinite")
def("pred", "signbit", "jit::signbit", "jit::signbit")

local arity = {float1 = 1, float2 = 2, keep1 = 1, keep2 = 2, pred = 1, cx = 1}

-- on complex numbers: the functions kernels/ops/complex.cuh defines (gpu's own complex
-- array functions), abs (the real modulus), square, isnan, isinf, isfinite; and the
-- functions of complex numbers (kind cx), which take real ones too
local complex_ok = {square = true, abs = true, absolute = true, isnan = true, isinf = true, isfinite = true}
for _, n in ipairs({"sqrt", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sin", "cos",
                    "tan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "asin", "arcsin", "acos",
                    "arccos", "atan", "arctan", "arcsinh", "arccosh", "arctanh"}) do
  complex_ok[n] = "ew"
end
def("cx", "real")
def("cx", "imag")
def("cx", "conj")
def("cx", "conjugate", "conj")
def("cx", "angle")

for name, f in pairs(npmath) do
  local what = "gpu." .. name
  entries[what] = {
    call = function(ctx, e, typeof)
      local n = arity[f.kind]
      nargs(ctx, e, n, n)
      local t0 = typeof(e.args[1])
      if f.kind == "cx" then
        local t = t0 and (types.complex(t0) and t0 or numeric_arg(ctx, e.args[1], typeof, what))
        if t == nil then return nil end
        if name == "real" or name == "imag" then return types.real_of(t) end
        if name == "angle" then return types.floated(types.real_of(t)) end
        return t
      end
      if types.complex(t0) then
        if not complex_ok[name] then
          fail(ctx, e.line, "%s takes real numbers, got %s", what, types.a(t0))
        end
        if n == 2 then numeric_arg(ctx, e.args[2], typeof, what) end
        if f.kind == "pred" then return "bool" end
        if name == "abs" or name == "absolute" then return types.real_of(t0) end
        return t0
      end
      local t = numeric_arg(ctx, e.args[1], typeof, what)
      if n == 2 then t = types.promote(t, numeric_arg(ctx, e.args[2], typeof, what)) end
      if f.kind == "pred" then return "bool" end
      if f.kind == "float1" or f.kind == "float2" then return t and types.floated(t) end
      return t
    end,
    emit = function(E, e)
      if f.c64:find("^jit::") then E.helper("npmath") end
      local at = types.concrete(e.args[1].ty)
      if f.kind == "cx" then
        local t = types.concrete(e.ty)
        if types.complex(at) then
          local z = E.cv(e.args[1], at)
          if name == "angle" then E.ew(); return ("ew::angle(%s)"):format(z) end
          if name == "real" or name == "imag" then
            return ("%s.%s"):format((z:find("^%b()$") or z:find("^[%w_]+$")) and z or "(" .. z .. ")", name == "real" and "re" or "im")
          end
          return ("gpu::conj(%s)"):format(z)
        end
        if name == "angle" then
          return ("%s((%s)0, %s)"):format(t == "float32" and "atan2f" or "atan2", types.ctype[t], E.cv(e.args[1], t))
        end
        -- (x evaluated for its effects; parenthesised twice: the emitter strips the outer
        -- pair of a stored value, an initialiser or an argument, where a bare comma is not C's)
        if name == "imag" then return ("(((void)%s, (%s)0))"):format(E.cv(e.args[1], at), types.ctype[t]) end
        return E.cv(e.args[1], t)   -- real and conj of a real number: itself
      end
      if types.complex(at) then
        local z = E.cv(e.args[1], at)
        if name == "abs" or name == "absolute" then return ("gpu::abs(%s)"):format(z) end
        if complex_ok[name] == "ew" then E.ew(); return ("ew::%s(%s)"):format(f.c64, z) end
        E.helper("npmath")
        return ("%s(%s)"):format(f.c64, z)   -- jit::square, jit::isnan ...
      end
      if f.kind == "pred" then
        local t = types.concrete(e.args[1].ty)
        if types.integer(t) then   -- an integer is finite, not nan, and has the sign it shows
          local x = E.cv(e.args[1], "int64")
          if name == "isfinite" then return ("(((void)%s, true))"):format(x) end   -- (twice: as imag's)
          if name == "signbit" then return ("(%s < 0)"):format(x) end
          return ("(((void)%s, false))"):format(x)
        end
        if t == "float16" then t = "float32" end   -- exactly a float
        return ("%s(%s)"):format(f.c64, E.cv(e.args[1], t))
      end
      local t = types.concrete(e.ty)
      local args = {}
      for i, a in ipairs(e.args) do args[i] = E.cv(a, t) end
      if t == "int64" then   -- keep1 and keep2 on integers: Lua's integers, wrapping
        if name == "abs" or name == "absolute" then E.helper("int_iabs"); return ("jit::iabs(%s)"):format(args[1]) end
        if name == "square" then E.helper("int_mul"); return ("jit::mul(%s, %s)"):format(args[1], args[1]) end
        if f.kind == "keep1" and name ~= "sign" then return args[1] end   -- floor, ceil, trunc
        if name == "fmax" or name == "fmin" then
          E.helper("npmath")
          return ("jit::%s(%s)"):format(name == "fmax" and "maximum" or "minimum", table.concat(args, ", "))
        end
        return ("%s(%s)"):format(f.c64, table.concat(args, ", "))
      end
      return ("%s(%s)"):format(t == "float32" and f.c32 or f.c64, table.concat(args, ", "))
    end,
  }
end

-- gpu.special.<name>(x [, y [, z]]): gpu.special's functions (kernels/special.cuh, put
-- before the kernel where one is called; erf, erfc and sinc are ew.cuh's), real
-- numbers only: float32 (and float16, computed in float32) stays, integers give float64
namespaces["gpu.special"] = true
local special = {}   -- name -> {arguments, C function}
for name, n in ([[erf=1 erfc=1 gammaln=1 sinc=1 erfcx=1 erfinv=1 erfcinv=1 ndtr=1 ndtri=1
  log_ndtr=1 gamma=1 loggamma=1 digamma=1 polygamma=2 beta=2 betaln=2 betainc=3 gammainc=2
  gammaincc=2 expit=1 logit=1 log_expit=1 xlogy=2 xlog1py=2 entr=1 rel_entr=2 kl_div=2 huber=2
  pseudo_huber=2 exp1=1 expn=2 i0=1 i0e=1 i1=1 i1e=1 k0=1 k0e=1 k1=1 k1e=1 j0=1 j1=1 y0=1
  y1=1]]):gmatch("([%w_]+)=(%d)") do
  special[name] = {n = tonumber(n), c = "sp::" .. name}
end
for _, name in ipairs({"erf", "erfc", "sinc"}) do special[name].c = "ew::" .. name end
special.psi = {n = 1, c = "sp::digamma"}
special.zeta = {n = 2, lo = 1, c = "sp::zeta", c1 = "sp::riemann_zeta"}   -- zeta(x [, q])
for name, f in pairs(special) do
  local what = "gpu.special." .. name
  entries[what] = {
    call = function(ctx, e, typeof)
      nargs(ctx, e, f.lo or f.n, f.n)
      local t
      for i = 1, #e.args do
        local ti = numeric_arg(ctx, e.args[i], typeof, what)
        t = i == 1 and ti or (t and ti and types.promote(t, ti))
      end
      if t == "bool" then t = "float64" end
      return t and types.floated(t)
    end,
    emit = function(E, e)
      local t = types.concrete(e.ty)
      local c = (t == "float32" or t == "float16") and "float32" or "float64"
      local args = {}
      for i, a in ipairs(e.args) do args[i] = E.cv(a, c) end
      if f.c:find("^ew::") then E.ew() else E.special() end
      local code = ("%s(%s)"):format(#args == 1 and f.c1 or f.c, table.concat(args, ", "))
      return t == "float16" and ("gpu::half(%s)"):format(code) or code
    end,
  }
end

-- gpu.complex(re [, im]): a complex64 when the parts are float32 (or one float32 and a
-- weak number), else a complex128
entries["gpu.complex"] = {
  call = function(ctx, e, typeof)
    nargs(ctx, e, 1, 2)
    local t = numeric_arg(ctx, e.args[1], typeof, "gpu.complex")
    if e.args[2] then t = types.promote(t, numeric_arg(ctx, e.args[2], typeof, "gpu.complex")) end
    local c = types.concrete(t)
    return t and ((c == "float32" or c == "float16") and "complex64" or "complex128")
  end,
  emit = function(E, e)
    local rt = types.real_of(e.ty)
    local im = e.args[2] and ", " .. E.cv(e.args[2], rt) or ""
    return ("%s(%s%s)"):format(types.ctype[e.ty], E.cv(e.args[1], rt), im)
  end,
}

-- The name of an intrinsic a host value stands for when a kernel reads it from an upvalue
-- or a global: math.sqrt, or an elementwise function of gpu (local tanh = gpu.tanh).
function M.function_of(v)
  if type(v) == "function" then return M.functions[v] end
  if type(v) ~= "userdata" then return nil end
  local name = tostring(v):match("^gpu%.ufunc%(([%w_]+)%)$")
  if name and npmath[name] and rawequal(gpu[name], v) then return "gpu." .. name end
  name = tostring(v):match("^gpu%.ufunc%(special%.([%w_]+)%)$")
  if name and special[name] and name ~= "zeta" and rawequal(gpu.special[name], v) then return "gpu.special." .. name end
end

------------------------------------------------------------------------------------

-- lookup(path): "ns" for a namespace, the entry for an intrinsic, nil for neither.
function M.lookup(path)
  if namespaces[path] then return "ns" end
  return entries[path]
end

function M.get(path) return entries[path] end
-- What a call of the intrinsic does besides giving a value: "writes" its first argument (an
-- atomic; a random draw advances its generator's state), "prints" (gpu.printf), else nil.
-- infer.lua marks the function and the array, emit.lua orders the operands around it.
function M.effect(path)
  if not path then return nil end
  if path:find("^gpu%.atomic%.") or path:find("^gpu%.random%.xoroshiro128p_") then return "writes" end
  if path == "gpu.printf" then return "prints" end
  return nil
end

-- The type of a value intrinsic (gpu.threadIdx.x, math.pi, gpu.float32).
function M.value_type(ctx, e, path)
  local spec = entries[path]
  if not spec.value then fail(ctx, e.line, "%s is a function: call it", path) end
  if spec.const ~= nil then e.const = spec.const end
  if spec.dtype then e.dtype = spec.dtype end
  return spec.value
end

-- Host functions that name an intrinsic when a kernel reads them from an upvalue
-- (local sqrt = math.sqrt).
M.functions = {}
if gpu and gpu.complex then M.functions[gpu.complex] = "gpu.complex" end
for k, v in pairs(math) do
  if type(v) == "function" and entries["math." .. k] then M.functions[v] = "math." .. k end
end

return M
