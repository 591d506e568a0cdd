-- arrays.lua: the Lua side of array operations: making a ufunc's program from the source
-- codegen.lua writes (host/ufunc.c asks for one the first time a combination of dtypes is
-- launched), gpu.clip (either bound may be nil), and the NumPy names that are aliases.
local gpu, codegen_of = ...   -- codegen_of(): codegen.lua, loaded at the first program made

local function builtin_names(nin)
  local names = {}
  for i = 1, nin do names[i] = "x" .. (i - 1) end
  names[nin + 1] = "o0"
  return names
end

-- A built-in operation's program is named by its recipe (host/program.c's key: the
-- operation, each operand's dtype, the type it computes in and whether it is a scalar,
-- the vector width, the tile), so a program the disk cache has is loaded without loading
-- codegen.lua or writing the source; gpu.elementwise's and gpu.fuse's are named by their
-- source, which holds the user's code.
local function recipe(u, ops, vec, tile)
  local r = {"ufunc", u.name, u.expr or "-", u.nin, vec, tile and "tile" or "-"}
  for _, op in ipairs(ops) do r[#r + 1] = ("%s/%s/%s"):format(op.dtype, op.loop, op.scalar and "s" or "a") end
  return table.concat(r, " ")
end

-- The program of u for these operands: on a GPU one program of every layout's kernel
-- (NVRTC compiles the seven in about the time of one, and CUDA loads each at its first
-- launch); on the CPU backend a table that makes the program of a layout's kernel alone
-- at its first launch (host/ufunc.c asks it for [variant + 1]): the C++ compiler takes
-- three times as long for all seven as for one (sin of float64: 1.12 s against 0.37 s).
gpu._set_builder(function(u, ops, vec, tile)
  local function source(only)
    local codegen = codegen_of()
    local d
    if u.rule == "custom" then
      local desc = u._desc
      d = {names = desc.names, body = desc.body, typedefs = desc.typedefs, prelude = desc.prelude,
           load_outputs = desc.load_outputs}
    else
      d = {names = builtin_names(u.nin), body = codegen.builtin_body(u.expr, ops, u.nin)}
    end
    d.nin, d.ops, d.vec, d.tile, d.only = u.nin, ops, vec, tile, only
    return codegen.source(d)
  end
  local function program(only)   -- only: a kernel's place in gpu._ew_kernels, or nil for all
    -- no fused multiply-add, so that a * b + c gives the same bits as the CPU backend
    local spec = {options = {"--fmad=false"}, debug = false, prefix = ""}
    if u.rule == "custom" then
      spec.source, spec.names = source(only)
    else
      spec.key = recipe(u, ops, vec, tile) .. (only and " kernel " .. only or "")
      spec.source = function() return (source(only)) end
      spec.names = only and {gpu._ew_kernels[only]} or {table.unpack(gpu._ew_kernels, 1, tile and 7 or 6)}
    end
    return gpu._program(spec)
  end
  if gpu.backend() ~= "cpu" then return program() end
  return setmetatable({}, {__index = function(t, v)
    local p = program(v)
    t[v] = p
    return p
  end})
end)

-- The integer dtype of clip's array (a device array, or gpu.fuse's traced one: a table of
-- kind "array", lua/fuse.lua's new_value), or nil.
local function integer_dtype(a)
  local dt = gpu._is_array(a) and a.dtype
             or type(a) == "table" and rawget(a, "kind") == "array" and rawget(a, "dtype")
  return dt and dt:match("^u?int%d+$")
end

-- f(...) as gpu.clip's: f's messages name clip, and f's argument n as clip's places[n].
local function as_clip(name, places, f, ...)
  return gpu._arg.renamed(name, "clip", places, pcall(f, ...))
end

-- gpu.clip(a, lo, hi [, {out =}]): a limited to [lo, hi]; nil for either leaves that side, for
-- both a copy (NumPy 2's positive(a)). A Lua integer bound of an integer array at or past its
-- dtype's end of that side is none, as NumPy 2 drops a Python int there (the bounds compare,
-- they are not converted): uint8 clip(-1, 300) is a copy, clip(300, nil) out of range.
function gpu.clip(a, lo, hi, opts)
  local dt = integer_dtype(a)
  if dt then
    local range = gpu.iinfo(dt)
    if math.type(lo) == "integer" and lo <= range.min then lo = nil end
    if math.type(hi) == "integer" and hi >= range.max then hi = nil end
  end
  if lo == nil and hi == nil then return as_clip("where", {1, 1, 1}, gpu.where, true, a, a, opts) end
  if lo == nil then return as_clip("minimum", {1, 3}, gpu.minimum, a, hi, opts) end
  if hi == nil then return as_clip("maximum", {1, 2}, gpu.maximum, a, lo, opts) end
  return gpu._clip(a, lo, hi, opts)
end

local clip = gpu._api(gpu.clip)   -- errors at the caller's line, not at the calls above
gpu.clip = gpu._arg.strict("clip", clip, nil, 4)   -- (an argument past the options table: an error)

gpu.power, gpu.mod, gpu.bitwise_not = gpu.pow, gpu.remainder, gpu.invert
local methods = gpu._meta.array.methods
methods.clip = gpu._arg.strict("a:clip", clip, nil, 4)
