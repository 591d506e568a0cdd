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
      d = {names = desc.names, body = desc.body, typedefs = desc.typedefs,
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

-- gpu.clip(a, lo, hi [, {out =}]): a limited to [lo, hi]; nil for either leaves that side
function gpu.clip(a, lo, hi, opts)
  if lo == nil and hi == nil then error("bad argument to 'clip' (lo or hi expected)", 2) end
  local f, x, y = gpu._clip, lo, hi
  if lo == nil then f, x, y = gpu.minimum, hi, nil
  elseif hi == nil then f, x, y = gpu.maximum, lo, nil end
  if y == nil then   -- maximum's or minimum's messages name clip and its argument
    local pos = lo == nil and "3" or "2"
    local function named(ok, ...)
      if ok then return ... end
      local e = ...
      if type(e) ~= "string" then error(e, 0) end
      e = e:gsub("gpu%.m%l+mum argument 2", "gpu.clip argument " .. pos):gsub("gpu%.m%l+mum", "gpu.clip")
      error(e, 0)
    end
    if opts then return named(pcall(f, a, x, opts)) end
    return named(pcall(f, a, x))
  end
  if opts then return f(a, x, y, opts) end
  return f(a, x, y)
end

gpu.clip = gpu._api(gpu.clip)   -- errors at the caller's line, not at the calls above

gpu.power, gpu.mod, gpu.bitwise_not = gpu.pow, gpu.remainder, gpu.invert
local methods = gpu._meta.array.methods
methods.clip = gpu.clip
