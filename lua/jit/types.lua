-- types.lua: the types of gpu.jit and the rules that combine them.
--   "bool", "int64", "float16", "float32", "float64", "complex64", "complex128": what values
--     and locals hold (float16 is gpuhost.cuh's gpu::half, whose arithmetic emit.lua writes
--     in float, rounded to float16 once an operation, as NumPy's float16 loops; complex ones
--     are gpu::complex64 and gpu::complex128);
--   "wint", "wfloat": weak numbers: literals, constant upvalues and what is made of them
--     alone (NumPy 2's rule for Python scalars): a weak number takes the type of the other
--     operand, so `x * 0.5` stays float32 when x is; alone it is int64 or float64;
--   arrays: {array = dtype} (device arrays), {local_array = dtype, dims = {...}, shared =}.
-- Integers are Lua's: every integer operation is on int64 and wraps; an array's narrower
-- integers are widened when read. Mixed operations follow NumPy: int64 with float32 gives
-- float64; a complex type with a real one gives the complex type that holds both
-- (complex64 with float64 or int64 gives complex128, with float32 complex64).
local M = {}

local int_dtypes = {int8 = true, int16 = true, int32 = true, int64 = true, uint8 = true,
                    uint16 = true, uint32 = true, uint64 = true}
M.int_dtypes = int_dtypes

M.ctype = {bool = "bool", int64 = "long long", float32 = "float", float64 = "double",
           wint = "long long", wfloat = "double", int8 = "signed char", int16 = "short",
           int32 = "int", uint8 = "unsigned char", uint16 = "unsigned short",
           uint32 = "unsigned int", uint64 = "unsigned long long", complex64 = "gpu::complex64",
           complex128 = "gpu::complex128", float16 = "gpu::half"}

local numeric = {int64 = true, float16 = true, float32 = true, float64 = true, wint = true, wfloat = true}
function M.numeric(t) return numeric[t] == true end
function M.integer(t) return t == "int64" or t == "wint" end
function M.float(t) return t == "float32" or t == "float64" or t == "wfloat" or t == "float16" end
function M.weak(t) return t == "wint" or t == "wfloat" end
function M.complex(t) return t == "complex64" or t == "complex128" end
-- a real number or a complex one
function M.number(t) return numeric[t] == true or t == "complex64" or t == "complex128" end
-- the real type of a complex one's parts, and the complex type of a real one
function M.real_of(t) return t == "complex64" and "float32" or t == "complex128" and "float64" or t end
function M.complex_of(t) return (t == "float32" or t == "float16") and "complex64" or "complex128" end

-- What a weak type becomes where it must be stored.
function M.concrete(t)
  if t == "wint" then return "int64" elseif t == "wfloat" then return "float64" end
  return t
end

-- The type of an element read from an array of dtype.
function M.element(dtype)
  if int_dtypes[dtype] then return "int64" end
  return dtype
end

local arrays, contiguous_arrays = {}, {}
-- a device array of dtype; contiguous: known to be C-contiguous (a kernel's parameter, for
-- a launch with such an array: its flat a[i] needs no branch to strided views)
function M.array(dtype, contiguous)
  if contiguous then
    local a = contiguous_arrays[dtype]
    if not a then a = {array = dtype, contiguous = true}; contiguous_arrays[dtype] = a end
    return a
  end
  local a = arrays[dtype]
  if not a then a = {array = dtype}; arrays[dtype] = a end
  return a
end

-- The common type of two numbers (nil when either is unknown yet).
function M.promote(a, b)
  if a == nil or b == nil then return nil end
  if a == b then return a end
  if M.complex(a) or M.complex(b) then
    -- the complex type that holds both: complex64 only when the other is complex64,
    -- float32 or weak
    local c, other = a, b
    if not M.complex(a) then c, other = b, a end
    -- (float16 too, as NumPy's float16 with complex64)
    if c == "complex128" or other == "complex128" or other == "float64" or other == "int64" then
      return "complex128"
    end
    return "complex64"
  end
  if M.integer(a) and M.integer(b) then return "int64" end   -- wint with int64
  if a == "float64" or b == "float64" then return "float64" end
  if a == "float32" or b == "float32" then
    local other = a == "float32" and b or a
    return other == "int64" and "float64" or "float32"
  end
  -- float16 with a weak number stays float16; with int64 (every integer here) float64
  if a == "float16" or b == "float16" then
    local other = a == "float16" and b or a
    return other == "int64" and "float64" or "float16"
  end
  -- wfloat with wint or int64
  if a == "int64" or b == "int64" then return "float64" end
  return "wfloat"
end

-- The float type of `/` and `^`: ints become float64 (weak ints weak floats).
function M.floated(t)
  if t == "wint" then return "wfloat" elseif t == "int64" then return "float64" end
  return t
end

-- The type of a local that holds both a and b: nil and why when none.
function M.unify(a, b)
  if a == nil then return b end
  if b == nil or a == b then return a end
  if M.number(a) and M.number(b) then return M.promote(a, b) end
  return nil
end

function M.name(t)
  if t == nil then return "nothing" end
  if type(t) == "table" then
    if t.array then return t.array .. " array" end
    if t.local_array then
      return ("%s %s array of %s"):format(t.shared and "shared" or "local", t.local_array,
                                          table.concat(t.dims, " x "))
    end
    return "?"
  end
  if t == "wint" then return "integer" elseif t == "wfloat" then return "float" end
  if t == "str" then return "string" end
  if t == "void" then return "call that returns nothing" end
  return t
end

-- The name with its article, for messages.
function M.a(t)
  local n = M.name(t)
  return (n:find("^[aeiou]") and "an " or "a ") .. n
end

-- A key for a list of types (device function specializations).
function M.key(list)
  local parts = {}
  for i, t in ipairs(list) do
    if type(t) == "table" then
      if t.array then parts[i] = t.array .. (t.contiguous and "[::1]" or "[]")
      else parts[i] = ("%s%s[%s]"):format(t.shared and "shared " or "", t.local_array,
                                         table.concat(t.dims, ",")) end
    else
      parts[i] = t
    end
  end
  return table.concat(parts, ", ")
end

return M
