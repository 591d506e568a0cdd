-- elementwise.lua: gpu.elementwise(inputs, outputs, operation, name), CuPy's
-- ElementwiseKernel: C statements that compute one element, run over arrays with
-- broadcasting, outputs made when not given, and type placeholders ("T x, T y") bound
-- from the arrays passed. Each binding of the placeholders is one ufunc (host/ufunc.c),
-- whose kernels codegen.lua writes around the operation.
local gpu, codegen_of = ...
local codegen = codegen_of()

local reserved = {i = true, n = true}
local function parse(list, what, seen)
  return codegen.params(list, "elementwise", what, seen, reserved, "the index i and the size n")
end

-- Does the operation read output `name`: anything but a plain `name = ...`, or a plain one
-- that may not run (a branch, a loop, a jump, a conditional or short-circuit operator, a
-- block): the element keeps its value where nothing is assigned, as CuPy's output
-- reference does, so it is loaded
-- C text without its string and character literals (and comments), escapes skipped
local function code_of(body)
  local out, i, n = {}, 1, #body
  while i <= n do
    local c, two = body:sub(i, i), body:sub(i, i + 1)
    if c == '"' or c == "'" then
      local j = i + 1
      while j <= n and body:sub(j, j) ~= c do j = j + (body:sub(j, j) == "\\" and 2 or 1) end
      i = j + 1
    elseif two == "//" then
      i = (body:find("\n", i, true) or n) + 1
    elseif two == "/*" then
      i = (select(2, body:find("*/", i + 2, true)) or n) + 1
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return table.concat(out)
end

local CONDITIONAL = {}
for w in ("if for while do switch goto return break continue case and or"):gmatch("%S+") do CONDITIONAL[w] = true end
local function conditional(body)
  local code = code_of(body)
  for word in code:gmatch("[%a_][%w_]*") do
    if CONDITIONAL[word] then return true end
  end
  return code:find("[?{]") ~= nil or code:find("&&", 1, true) ~= nil or code:find("||", 1, true) ~= nil
end

local function reads(body, name)
  if conditional(body) then return true end
  local count, plain = 0, 0
  for pre, post in body:gmatch("()" .. name .. "()") do
    local before, after = body:sub(pre - 1, pre - 1), body:sub(post, post + 1)
    if not before:match("[%w_]") and not after:sub(1, 1):match("[%w_]") then
      count = count + 1
      if after:match("^%s*=") and not body:sub(post):match("^%s*==") then plain = plain + 1 end
    end
  end
  return count ~= plain or count == 0
end

-- gpu.elementwise(inputs, outputs, operation [, name]) -> kernel; kernel(x, y [, z ...])
function gpu.elementwise(inputs, outputs, operation, name)
  gpu._arg.no_nuls("gpu.elementwise", 2, inputs, outputs, operation, name)
  local seen = {}
  local ins, outs = parse(inputs, "input", seen), parse(outputs, "output", seen)
  if #outs == 0 then error("gpu.elementwise: at least one output parameter is needed", 2) end
  if #ins + #outs > gpu._MAXOPS then
    error(("gpu.elementwise: a kernel has at most %d parameters (inputs and outputs), got %d"):format(gpu._MAXOPS, #ins + #outs), 2)
  end
  if type(operation) ~= "string" then
    error(("bad argument #3 to 'elementwise' (operation string expected, got %s)"):format(type(operation)), 2)
  end
  name = name or "elementwise"
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    error("bad argument #4 to 'elementwise' (a C identifier expected for the name)", 2)
  end
  local relabel = gpu._relabeler("elementwise", name)
  local all, names, load = {}, {}, {}
  for _, p in ipairs(ins) do all[#all + 1] = p; names[#names + 1] = p.name end
  for j, p in ipairs(outs) do all[#all + 1] = p; names[#names + 1] = p.name; load[j] = reads(operation, p.name) end
  local ufuncs = {}

  local function bind(args, n)
    local vars = {}
    for k = 1, n do
      local p, v = all[k], args[k]
      if p.var and type(v) == "userdata" and getmetatable(v) == gpu._meta.array then
        if vars[p.var] and vars[p.var] ~= v.dtype then
          error(("gpu.%s: %s is %s from '%s' but %s from an earlier argument"):format(name, p.var, v.dtype, p.name, vars[p.var]), 3)
        end
        vars[p.var] = v.dtype
      end
    end
    local dtypes = {}
    for k, p in ipairs(all) do
      dtypes[k] = p.type or vars[p.var] or error(("gpu.%s: cannot tell what %s is: pass an array for '%s'")
                                                :format(name, p.var, p.name), 3)
    end
    return vars, dtypes
  end

  return setmetatable({}, {
    __call = gpu._api(function(_, ...)   -- errors at the caller's line
      local args = table.pack(...)
      local traced = rawget(gpu, "_is_traced")   -- (gpu.fuse's, once loaded)
      for k = 1, traced and args.n or 0 do
        if traced(args[k]) then error(("gpu.%s, a gpu.elementwise kernel, cannot be called inside a fused function"):format(name), 2) end
      end
      local opts
      if args[args.n] == nil and (args.n == #ins + 1 or args.n == #all + 1) then   -- (x, nil): none
        args.n = args.n - 1
      elseif args.n > 0 and type(args[args.n]) == "table" and getmetatable(args[args.n]) == nil then
        opts = args[args.n]
        args.n = args.n - 1
      end
      if args.n ~= #ins and args.n ~= #all then
        error(("gpu.%s takes %d inputs (and optionally its %d outputs), got %d arguments")
              :format(name, #ins, #outs, args.n), 2)
      end
      local vars, dtypes = bind(args, args.n)
      local key = table.concat(dtypes, ",")
      local u = ufuncs[key]
      if not u then
        local typedefs = {}
        for var, dt in pairs(vars) do typedefs[#typedefs + 1] = ("typedef %s %s;\n"):format(codegen.ctype[dt], var) end
        table.sort(typedefs)
        u = gpu._ufunc({name = name, nin = #ins, nout = #outs, dtypes = dtypes, names = names,
                        body = '#line 1 "operation"\n' .. operation .. '\n;\n#line 1 "ew (generated)"', typedefs = table.concat(typedefs), load_outputs = load})
        ufuncs[key] = u
      end
      local call = {table.unpack(args, 1, #ins)}
      local o = {}
      for k, v in pairs(opts or {}) do o[k] = v end
      if args.n == #all then
        if o.out ~= nil then
          error(("gpu.%s: out is given twice: as argument%s and in the options")
                :format(name, #outs == 1 and " " .. #all or ("s %d to %d"):format(#ins + 1, #all)), 2)
        end
        o.out = {table.unpack(args, #ins + 1, #all)}
      end
      call[#ins + 1] = o
      return u(table.unpack(call, 1, #ins + 1))
    end, nil, relabel),
    __tostring = function() return ("gpu.elementwise(%s)"):format(name) end,
  })
end
gpu.elementwise = gpu._api(gpu.elementwise)
