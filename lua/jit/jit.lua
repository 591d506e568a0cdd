-- jit.lua: gpu.jit, kernels written in Lua. gpu.jit(f) finds f's source (its file, or the
-- text gpuhost's loader kept for a chunk without one), parses it (parse.lua) and checks
-- its constructs (scan.lua); at the first launch with given argument types it types the
-- function (infer.lua), generates CUDA C (emit.lua) and hands it to gpu.kernel, so
-- compiling, caching in memory and on disk, both backends, launches and errors are
-- gpu.kernel's. Each distinct signature compiles once; the C it made is kept on disk too
-- (the memo, below), so a new process finds it without loading the compiler.
-- Loaded by lua/gpu.lua at the first gpu.jit.
local gpu = ...

local function module(name, ...)
  return assert(load(gpu._embedded("lua/jit/" .. name .. ".lua"), "=[gpu] lua/jit/" .. name .. ".lua",
                     "bt"))(...)
end
-- the reader (loaded when a function is not in the finder's memo, below) and the
-- compiler (loaded at the first compile)
local lex, parse, scan
local function reader()
  if scan then return end
  lex, parse, scan = module("lex"), module("parse"), module("scan")
end
local types, intrinsics, infer, emit
local function compiler()
  if emit then return end
  reader()
  types = module("types")
  intrinsics = module("intrinsics", types, lex, gpu)
  for k, v in pairs(gpu.random) do   -- gpu.random.xoroshiro128p_* read from an upvalue
    if intrinsics.get("gpu.random." .. k) then intrinsics.functions[v] = "gpu.random." .. k end
  end
  infer = module("infer", types, intrinsics, scan)
  emit = module("emit", types, intrinsics, gpu)
end

local M = {}
local array_mt = gpu._meta.array
local states = setmetatable({}, {__mode = "k"})   -- gpu.jit object -> its state
local mtype, getmetatable, select, type = math.type, getmetatable, select, type

------------------------------------------------------------------------------------
-- where a function's source is

-- the text of f's chunk, as gpuhost's loader kept it (lua/gpu.lua)
local function chunk_text(f, info)
  local text, why = gpu._chunk_text(f, info.source)
  if why == "changed" then
    error(("gpu.jit: %s has changed since the function at line %d was loaded from it (gpuhost "
           .. "keeps the text of the files its own loader loads; this one was loaded by another)")
          :format(info.short_src, info.linedefined), 4)
  end
  return text
end

-- The position after the first line end at or after pos, or nil: \n, \r, \r\n or \n\r,
-- one line each, as Lua counts them (and lex.lua; this file needs no lexer to find a line)
local function next_line(text, pos)
  local p = text:find("[\n\r]", pos)
  if not p then return nil end
  local c, d = text:byte(p, p + 1)
  return (d == 10 or d == 13) and d ~= c and p + 2 or p + 1
end

local function line_start(text, line)
  local pos = 1
  for _ = 2, line do
    pos = next_line(text, pos)
    if not pos then return nil end
  end
  return pos
end

local function same_params(fn, f, info)
  if #fn.params ~= info.nparams or fn.vararg ~= info.isvararg then return false end
  for i, p in ipairs(fn.params) do
    if debug.getlocal(f, i) ~= p then return false end
  end
  return true
end

-- The name a kernel takes: the function's own (local function name), or the name it is
-- assigned to (`local name = gpu.jit(function`, `name = function`).
local function name_of(toks, i, fn)
  if fn.name then return fn.name end
  local k, v = toks.kind, toks.value
  local j = i - 1
  if k[j] == "(" then
    j = j - 1
    while k[j] == "name" and k[j - 1] == "." do j = j - 2 end
    if k[j] ~= "name" then return nil end
    j = j - 1
  end
  if k[j] == "=" and k[j - 1] == "name" then return v[j - 1] end
end

-- The names a function's text uses and does not declare (roughly its upvalues).
local function free_of(node, used, declared)
  for k, v in pairs(node) do
    if type(v) == "table" then
      if v.tag == "Name" then used[v.name] = true end
      if v.tag == "Local" then for _, n in ipairs(v.names) do declared[n] = true end end
      if v.tag == "Fornum" then declared[v.var] = true end
      if v.tag == "Forin" then for _, n in ipairs(v.names) do declared[n] = true end end
      if v.tag == "Function" then for _, n in ipairs(v.params) do declared[n] = true end end
      if v.tag == "LocalFunction" then declared[v.name] = true end
      if k ~= "key" or v.tag ~= "String" then free_of(v, used, declared) end
    end
  end
end

-- Do f's upvalues fit a candidate's text? Every upvalue but _ENV is a name it uses; with
-- no _ENV, it uses no other name.
local function same_upvalues(fn, f)
  local used, declared, ups = {}, {}, {}
  for _, p in ipairs(fn.params) do declared[p] = true end
  free_of(fn.body, used, declared)
  for i = 1, math.huge do
    local n = debug.getupvalue(f, i)
    if not n then break end
    ups[n] = true
    if n ~= "_ENV" and not used[n] then return false end
  end
  if not ups._ENV then
    for n in pairs(used) do if not declared[n] and not ups[n] then return false end end
  end
  return true
end

-- Finds f in its chunk's text: a `function` on its first line that parses up to an `end`
-- on its last line and has its parameters (and, when two do, its upvalues). Returns the
-- Function node, its tokens and name.
local function find(f, info, text)
  reader()
  local function scan(toks)
    local found = {}
    for i = 1, toks.n do
      if toks.kind[i] == "function" and toks.line[i] == info.linedefined then
        local ok, fn = parse.function_at(toks, i)
        if ok and fn.lastline == info.lastlinedefined and same_params(fn, f, info) then
          found[#found + 1] = {fn = fn, toks = toks, at = i, name = name_of(toks, i, fn)}
        end
      end
    end
    if #found > 1 then
      local fit = {}
      for _, c in ipairs(found) do if same_upvalues(c.fn, f) then fit[#fit + 1] = c end end
      if #fit ~= 1 then return nil, "ambiguous" end
      return fit[1]
    end
    return found[1]
  end
  local pos = line_start(text, info.linedefined)
  if pos then
    local ok, toks = pcall(lex.lex, text, pos, info.linedefined, info.lastlinedefined)
    if ok then
      local found, why = scan(toks)
      if found then found.from = pos end   -- lexed from its first line: the memo may keep it
      if found or why then return found, why end
    end
  end
  -- the function's first line may start inside a long string or comment: lex it all
  local ok, toks = pcall(lex.lex, text, 1, 1, info.lastlinedefined)
  if ok then return scan(toks) end
end

local function jit_error(e, level)
  if type(e) == "table" and e.msg then
    error(("%s:%d: %s"):format(e.file or "?", e.line or 0, e.msg), level)
  end
  error(e, level)
end

------------------------------------------------------------------------------------
-- the finder's memo: what finding and checking a function gave (its name, the names it
-- reads from outside, where its text is), kept in the disk cache under a key of the text
-- it was found in (its lines, from where lexing started to where it stopped), its
-- parameters' and upvalues' names and the build of gpu.jit; so a new process neither
-- lexes, parses nor checks a function it has seen before (the compiler, which needs the
-- tree, finds it again at a compile)

local stamp
local function build_stamp()
  stamp = stamp or gpu._embedded("lua/jit/stamp")
  return stamp
end

-- The line-end position of line `last` counted from pos (on line `first`), or #text.
local function lines_end(text, pos, first, last)
  for _ = first, last do
    pos = next_line(text, pos)
    if not pos then return #text end
  end
  return pos - 1
end

local function finder_key(f, info, text)
  local pos = line_start(text, info.linedefined)
  if not pos then return nil end
  local names = {}
  for i = 1, info.nparams do names[#names + 1] = debug.getlocal(f, i) end
  names[#names + 1] = info.isvararg and "..." or ""
  for i = 1, info.nups do names[#names + 1] = "^" .. debug.getupvalue(f, i) end
  local stop = lines_end(text, pos, info.linedefined, info.lastlinedefined)
  return ("gpuhost-jit-find 2\n%s\n%s\n%d %d\n%s\n%s"):format(build_stamp(), info.source,
         info.linedefined, info.lastlinedefined, table.concat(names, " "), text:sub(pos, stop)), pos, stop
end

-- What the memo keeps of found (from find and scan), or nil when it was not found from
-- its first line; `tail` is what lexing read past the last line (a comment that runs on),
-- `ended` whether it stopped at the end of the text.
local FOUND = {name = "string?", free = "{string}", from = "integer", to = "integer",
               tail = "string", ended = "boolean"}
local function finder_entry(found, free, stop, text)
  if not found.from then return nil end
  local toks = found.toks
  local after = toks.pos[toks.n]   -- where the eof token is: the first byte lexing did not read
  return {name = found.name, free = free, from = toks.pos[found.at] - found.from,
          to = toks.pos[found.fn.last] + 2 - found.from, tail = text:sub(stop + 1, after - 1),
          ended = after > #text}
end

-- found (without its tree) from the memo, or nil
local function remembered(key, pos, stop, text, info)
  local m = gpu._memo(key, FOUND)
  if not m or text:sub(stop + 1, stop + #m.tail) ~= m.tail or (m.ended and #text ~= stop + #m.tail) then
    return nil
  end
  return {name = m.name, free = m.free, info = info, text = text,
          body = text:sub(pos + m.from, pos + m.to)}
end

local function source_of(f)
  if type(f) ~= "function" then
    error(("bad argument #1 to 'jit' (function expected, got %s)"):format(type(f)), 3)
  end
  local info = debug.getinfo(f, "Su")
  if info.what ~= "Lua" or info.linedefined == 0 then
    error("bad argument #1 to 'jit' (a Lua function written with `function ... end` expected)", 3)
  end
  local text = chunk_text(f, info)
  if not text then
    error(("gpu.jit: the source of the function at %s:%d is not available (define it in a file, "
           .. "at the gpuhost prompt, or in a string loaded with load(s) without a chunk name)")
          :format(info.short_src, info.linedefined), 3)
  end
  if text:sub(1, 1) == "#" then   -- a #! line is not Lua: blanked, keeping every offset
    text = text:gsub("^[^\n]*", function(l) return (" "):rep(#l) end)
  end
  local key, pos, stop = finder_key(f, info, text)
  local found = key and remembered(key, pos, stop, text, info)
  if found then return found end
  local why
  found, why = find(f, info, text)
  if not found then
    error(("gpu.jit: cannot find the function of %s:%d in its source%s"):format(info.short_src,
          info.linedefined, why and " (two functions there look the same: put one on a line of its own)" or ""), 3)
  end
  -- check the constructs now, so a kernel that cannot compile fails where it is defined;
  -- the names it reads from outside are part of its memo's key
  local ok, free = pcall(scan.scan, found.fn, info.short_src)
  if not ok then jit_error(free, 0) end
  found.info, found.text, found.free = info, text, free
  found.body = text:sub(found.toks.pos[found.at], found.toks.pos[found.fn.last] + 2)
  local entry = key and finder_entry(found, free, stop, text)
  if entry then gpu._memo(key, FOUND, entry) end
  return found
end

-- found with its tree (the compiler's): found again when it came from the memo
local function with_tree(st)
  local found = st.found
  if not found.toks then
    local again = find(st.f, found.info, found.text)
    assert(again, "gpu.jit: the function's text changed")
    found.fn, found.toks, found.at = again.fn, again.toks, again.at
  end
  return found
end

------------------------------------------------------------------------------------
-- signatures

local dtype_aliases = {
  f4 = "float32", f8 = "float64", i1 = "int8", i2 = "int16", i4 = "int32", i8 = "int64",
  u1 = "uint8", u2 = "uint16", u4 = "uint32", u8 = "uint64", b1 = "bool", boolean = "bool",
  double = "float64", float = "float32", c8 = "complex64", c16 = "complex128", f2 = "float16",
  half = "float16",
}
for _, d in ipairs(gpu.dtypes) do dtype_aliases[d] = d end

-- "void(float32[:], float32[:], int32)" (numba's spelling; "void" may be left out) ->
-- list of {dtype =, array =}
-- Whether dims (a type's brackets) are numba's array dimensions: `:` each, the last `::1`
-- for a C-contiguous array
local function numba_dims(dims)
  local list = {}
  for part in (dims:sub(2, -2) .. ","):gmatch("([^,]*),") do list[#list + 1] = part:gsub("%s", "") end
  for i, p in ipairs(list) do
    if p ~= ":" and not (p == "::1" and i == #list) then return false end
  end
  return true
end

local function parse_signature(sig, level)
  if type(sig) ~= "string" then
    error(("signature must be a string like 'void(float32[:], float32[:])', got %s"):format(type(sig)), level)
  end
  local _, opened = sig:gsub("%(", "")
  local _, closed = sig:gsub("%)", "")
  if opened ~= closed then
    error(("signature '%s': unbalanced parentheses (%d '(' and %d ')')"):format(sig, opened, closed), level)
  end
  local returns = sig:match("^%s*([%w_]+)%s*%(")
  if returns and returns ~= "void" then
    error(("signature '%s': a kernel returns nothing: its signature is void(...), not %s(...)"):format(sig, returns), level)
  end
  local inner = sig:match("^%s*void%s*(%b())%s*$") or sig:match("^%s*(%b())%s*$")
  if not inner and opened > 0 then
    error(("signature '%s': expected void(type, ...), with nothing after the ')'"):format(sig), level)
  end
  if not inner then inner = "(" .. sig .. ")" end
  local list = {}
  inner = inner:sub(2, -2)
  local parts, depth, from = {}, 0, 1
  for i = 1, #inner do
    local c = inner:sub(i, i)
    if c == "[" then depth = depth + 1 elseif c == "]" then depth = depth - 1
    elseif c == "," and depth == 0 then parts[#parts + 1] = inner:sub(from, i - 1); from = i + 1 end
  end
  parts[#parts + 1] = inner:sub(from)
  if inner:find("%S") then
    for _, part in ipairs(parts) do
      local name, dims = gpu._arg.trim(part):match("^([%w_]+)%s*(.*)$")
      local dtype = name and (dims == "" or dims:find("^%b[]$")) and dtype_aliases[name]
      if not dtype then
        error(("signature '%s': unknown type '%s' (float32, float64, int32, int64, ..., bool; "
               .. "arrays as float32[:])"):format(sig, gpu._arg.trim(part)), level)
      end
      if dims ~= "" and not numba_dims(dims) then
        error(("signature '%s': '%s' is not numba's array dimensions (float32[:], float32[:, :], "
               .. "float32[:, ::1])"):format(sig, gpu._arg.trim(part)), level)
      end
      -- numba's float32[::1]: C-contiguous (what k:signatures() says of a launch with one)
      list[#list + 1] = {dtype = dtype, array = dims ~= "", contiguous = dims:find("::%s*1%s*%]$") ~= nil}
    end
  end
  return list
end

local element = {int8 = "int64", int16 = "int64", int32 = "int64", int64 = "int64", uint8 = "int64",
                 uint16 = "int64", uint32 = "int64", uint64 = "int64", float32 = "float32",
                 float64 = "float64", bool = "bool", complex64 = "complex64", complex128 = "complex128",
                 float16 = "float16"}

local function type_of_param(p)
  if p.array then return types.array(p.dtype, p.contiguous) end
  return element[p.dtype]
end

local function signature_text(params)
  local parts = {}
  for i, p in ipairs(params) do
    parts[i] = p.array and p.dtype .. (p.contiguous and "[::1]" or "[:]") or p.dtype
  end
  return "void(" .. table.concat(parts, ", ") .. ")"
end

------------------------------------------------------------------------------------
-- compiling one signature


local next_id = 0

-- The meaning of a free name of st's function (an upvalue or a global), read now.
local function free_names(st, ctx)
  local ups, env = {}, nil
  for i = 1, math.huge do
    local n, v = debug.getupvalue(st.f, i)
    if not n then break end
    if n == "_ENV" then env = v end
    ups[n] = {v}
  end
  local cache = {}
  return function(name, line)
    if cache[name] then return cache[name] end
    local v
    if ups[name] then
      v = ups[name][1]
    elseif type(env) == "table" then
      local ok, x = pcall(function() return env[name] end)
      if ok then v = x end
    end
    local d
    if v == gpu then d = {kind = "ns", path = "gpu"}
    elseif v == math then d = {kind = "ns", path = "math"}
    elseif type(v) == "number" then d = {kind = "value", ty = infer.const_type(v), value = v}
    elseif type(v) == "boolean" then d = {kind = "value", ty = "bool", value = v}
    elseif type(v) == "string" then d = {kind = "value", ty = "str", value = v}
    elseif intrinsics.function_of(v) then d = {kind = "intr", path = intrinsics.function_of(v)}
    elseif type(v) == "table" and states[v] then d = {kind = "jit", obj = v, nparams = states[v].nparams}
    elseif getmetatable(v) == array_mt then
      if gpu._jit_code(v) > 100 then   -- (its dtype cannot be read: say whose it is)
        infer.fail(ctx, line, "attempt to use a freed array (%s '%s' of the gpu.jit function '%s')",
                   ups[name] and "upvalue" or "global", name, ctx.name)
      end
      if not ctx.kernel then
        infer.fail(ctx, line, "device function '%s' reads the device array '%s' from outside: "
                   .. "pass it as an argument", ctx.name, name)
      end
      d = {kind = "array", dtype = v.dtype, obj = v, name = name}
    elseif v == nil then
      -- (Lua folds a <const> local of a constant value where it is used: no upvalue holds it)
      infer.fail(ctx, line, "'%s' is nil here (a gpu.jit function reads its upvalues and globals "
                 .. "when it compiles%s)", name, ups[name] and "" or
                 "; a <const> local outside it, given a number, is neither: Lua folds it away, "
                 .. "so drop the <const>")
    else
      local what = type(v) == "function" and "a Lua function: call gpu.jit functions, gpu.* and math.*"
        or ("a %s: a gpu.jit function can use numbers, booleans, device arrays, gpu.jit functions, "
            .. "gpu and math"):format(type(v))
      infer.fail(ctx, line, "'%s' is %s", name, what)
    end
    cache[name] = d
    return d
  end
end

-- A typed function: a fresh tree of st's function, resolved and inferred for param_types.
local function typed(st, U, param_types, kernel, device)
  local found = with_tree(st)
  local ok, fn = parse.function_at(found.toks, found.at)
  assert(ok, fn)
  local ctx = {file = found.info.short_src, name = st.name, fn = fn, kernel = kernel,
               param_types = param_types, device = device}
  ctx.free = free_names(st, ctx)
  infer.resolve(ctx, fn)
  if #param_types ~= #ctx.params then
    infer.fail(ctx, fn.line, "%s '%s' takes %d argument%s, got %d", kernel and "kernel" or "device function",
               st.name, #ctx.params, #ctx.params == 1 and "" or "s", #param_types)
  end
  infer.infer(ctx)
  return ctx
end

-- The typer of the device functions a compile unit calls: each (function, argument
-- types) typed once, recursion refused.
local function device_typer(U)
  local devices, busy = {}, {}
  local function device(obj, argtypes, line, fname, caller)
    local dst = states[obj]
    local key = dst.id .. "(" .. types.key(argtypes) .. ")"
    local d = devices[key]
    if d then return d end
    if busy[key] then
      infer.fail(caller, line, "'%s' calls itself: recursive gpu.jit functions are not supported", fname)
    end
    if #argtypes ~= dst.nparams then
      infer.fail(caller, line, "device function '%s' takes %d argument%s, got %d", dst.name, dst.nparams,
                 dst.nparams == 1 and "" or "s", #argtypes)
    end
    busy[key] = true
    d = typed(dst, U, argtypes, false, device)
    busy[key] = nil
    devices[key] = d
    return d
  end
  return device
end

local function compile(st, params)
  compiler()
  local U = emit.unit(st.debug)
  local device = device_typer(U)
  local ptypes = {}
  for i, p in ipairs(params) do ptypes[i] = type_of_param(p) end
  local ctx = typed(st, U, ptypes, true, device)
  ctx.param_dtypes = {}
  for i, p in ipairs(params) do ctx.param_dtypes[i] = not p.array and p.dtype or nil end
  -- device arrays read from upvalues and globals become extra parameters (emit.lua
  -- names them as it meets them), one a name: two names of one array may part later
  local hidden, extra, names, by_name = {}, {}, {}, {}
  function U.hidden(d)
    local h = by_name[d.name]
    if not h then
      h = {dtype = d.dtype}
      by_name[d.name] = h
      hidden[#hidden + 1] = h
      extra[#extra + 1] = d.obj
      names[#names + 1] = d.name
    end
    return h
  end
  ctx.hidden = hidden
  local ok, err = pcall(emit.func, U, ctx)
  if not ok then jit_error(err, 0) end
  local sig = signature_text(params)
  local comment = ("// gpu.jit: %s, %s:%d, %s"):format(st.name, emit.shown_file(ctx.file), ctx.fn.line, sig)
  local src = emit.source(U, comment)
  -- the kernel's parameters it writes (its own, then the arrays from outside, which follow
  -- them), where the launcher refuses an expanded view
  local writes = {}
  for i = 1, #params do if ctx.writes[i] then writes[#writes + 1] = i end end
  for i, obj in ipairs(extra) do if ctx.writes_free[obj] then writes[#writes + 1] = #params + i end end
  return {source = src, name = ctx.cname, extra = #extra > 0 and extra or nil, signature = sig,
          options = st.kernel_options, sites = U.sites, hidden = names, writes = writes}
end

------------------------------------------------------------------------------------
-- the memo: the C of a signature, kept in the disk cache under a key of everything it
-- depends on: the function's text and place, its name, the signature, the debug option,
-- what each name it reads from outside is now (device functions by their own key), and
-- the build of gpu.jit itself

local math_names = {}
for k, v in pairs(math) do if type(v) == "function" then math_names[v] = "math." .. k end end
for k, v in pairs(gpu.random) do if k:find("^xoroshiro128p_") then math_names[v] = "gpu.random." .. k end end

-- The value of a name st's function reads from outside: an upvalue, else a global.
local function value_of(st, name)
  local env
  for i = 1, math.huge do
    local n, v = debug.getupvalue(st.f, i)
    if not n then break end
    if n == name then return v end
    if n == "_ENV" then env = v end
  end
  if type(env) == "table" then
    local ok, v = pcall(function() return env[name] end)
    if ok then return v end
  end
end

local fingerprint
local function describe(v, seen)
  if v == gpu then return "gpu" elseif v == math then return "math" end
  local t = type(v)
  if t == "number" then return (mtype(v) == "integer" and "i%d" or "f%a"):format(v)
  elseif t == "string" then return ("s%q"):format(v)
  elseif t == "function" then return math_names[v] or "function"
  elseif t == "table" and states[v] then return "j{" .. fingerprint(states[v], seen) .. "}"
  elseif getmetatable(v) == array_mt then
    local ok, d = pcall(function() return v.dtype end)
    return ok and "a" .. d or "freed"
  end
  return tostring(t == "boolean" and v or t)
end

fingerprint = function(st, seen)
  if seen[st] then return "recursive " .. st.name end
  seen[st] = true
  local info = st.found.info
  local parts = {info.short_src, info.linedefined, st.name, tostring(st.debug), st.text}
  for _, n in ipairs(st.free) do parts[#parts + 1] = n .. "=" .. describe(value_of(st, n), seen) end
  seen[st] = nil
  return table.concat(parts, "\n")
end

local function memo_key(st, sig)
  return "gpuhost-jit 2\n" .. build_stamp() .. "\n" .. sig .. "\n" .. fingerprint(st, {})
end

local SPEC = {name = "string", source = "string", hidden = "{string}", sites = "{string}",
              writes = "{integer}"}

-- The spec the memo keeps under key, or nil.
local function memo_spec(st, key, sig)
  local m = gpu._memo(key, SPEC)
  if not m then return nil end
  local extra = {}
  for i, n in ipairs(m.hidden) do extra[i] = value_of(st, n) end
  return {source = m.source, name = m.name, extra = #extra > 0 and extra or nil, signature = sig,
          options = st.kernel_options, sites = m.sites, hidden = m.hidden, writes = m.writes}
end

-- The spec of params (compiled at most once), or raises with the function's location.
local function specialize(st, params)
  local sig = signature_text(params)
  local spec = st.specs[sig]
  if spec then return spec end
  local key = memo_key(st, sig)
  spec = memo_spec(st, key, sig)
  if not spec then
    local ok, r = pcall(compile, st, params)
    if not ok then jit_error(r, 0) end
    spec = r
    gpu._memo(key, SPEC, spec)
  end
  -- the declaration emit.lua wrote, so that gpu.kernel need not read the whole source
  local decl = spec.source:match('\nextern "C" __global__ void ' .. spec.name .. '%b()')
  if decl then
    spec.kernel = gpu._kernel_declared(spec.source, decl:sub(2) .. " {}", spec.name, spec.options, st.params)
  else
    spec.kernel = gpu.kernel(spec.source, spec.name, spec.options)
  end
  gpu._kernel_writes(spec.kernel, spec.writes)
  st.specs[sig] = spec
  st.order[#st.order + 1] = sig
  st.last = spec
  return spec
end

------------------------------------------------------------------------------------
-- launches

-- Is v, a device array, freed? (a dispatcher's type code for a live array is its dtype's,
-- 1 to 100; anything else is above)
local function freed(v) return gpu._jit_code(v) > 100 end

local function arg_param(st, v, i)
  local mt = mtype(v)
  if mt == "integer" then return {dtype = st.integer} end
  if mt == "float" then return {dtype = st.float} end
  if type(v) == "boolean" then return {dtype = "bool"} end
  if gpu._arg.is_complex(v) then   -- gpu.complex(re, im): complex64 under float = "float32"
    return {dtype = st.float == "float32" and "complex64" or "complex128"}
  end
  local why
  if getmetatable(v) == array_mt then
    if freed(v) then
      -- as the C launcher says it (kernel.c), with the parameter's name
      error(("attempt to use a freed array (kernel '%s' argument %d (%s))"):format(st.name, i,
            st.params[i] or "?"), 4)
    end
    -- the dispatcher's code says whether it is C-contiguous (host/jit.c: 33 and up)
    return {dtype = v.dtype, array = true, contiguous = gpu._jit_code(v) > 32}
  end
  if gpu._meta.hostarray == getmetatable(v) then why = "is a host array: copy it to the device first with gpu.array(h)"
  elseif type(v) == "table" then why = "is a Lua table: copy it to the device first with gpu.array(t)"
  else why = ("must be a number, a boolean or a device array, got %s"):format(type(v)) end
  -- as the C launcher says it (kernel.c), at the launch (miss < dispatcher < the caller)
  error(("kernel '%s' argument %d (%s) %s"):format(st.name, i, st.params[i] or "?", why), 4)
end

-- "file:line: " of the launch: the first caller that is neither C nor this file
local here = debug.getinfo(1, "S").source
local function launch_site()
  for level = 3, math.huge do
    local info = debug.getinfo(level, "Sl")
    if not info then return "" end
    if info.what ~= "C" and info.source ~= here then
      return info.currentline > 0 and ("%s:%d: "):format(info.short_src, info.currentline) or ""
    end
  end
end

-- The arrays a kernel reads from outside (its extra arguments) are read again at each
-- launch: a name given another array of the dtype compiled for passes that one; a freed
-- array, or a name that holds anything else now, is an error at the launch naming the
-- upvalue or global (the C launcher would name an argument the user never passed)
local function extra_error(st, name, slot, why)
  local what = slot and slot > 0 and "upvalue" or "global"
  error(why:format(launch_site(), ("%s '%s' of the gpu.jit function '%s'"):format(what, name, st.name)), 0)
end
local function index(t, k) return t[k] end
local function check_extra(st, spec, ...)
  local dts, slots = spec.extra_dtypes, spec.extra_slots
  if not dts then   -- the dtypes compiled for (the memo's key holds them), and where each name is
    dts, slots = {}, {}
    for i, a in ipairs(spec.extra) do dts[i] = not freed(a) and a.dtype end
    for i, name in ipairs(spec.hidden) do
      for u = 1, math.huge do   -- an upvalue's index, else _ENV's, negated (a global)
        local n = debug.getupvalue(st.f, u)
        if n == nil then break end
        if n == name then slots[i] = u; break end
        if n == "_ENV" then slots[i] = -u end
      end
    end
    spec.extra_dtypes, spec.extra_slots = dts, slots
    spec.extra_written = {}   -- the extra arrays the kernel writes (spec.writes: by parameter)
    for _, p in ipairs(spec.writes or {}) do
      if p > st.nparams then spec.extra_written[p - st.nparams] = true end
    end
  end
  local dev   -- the current device, asked once a launch
  for i, name in ipairs(spec.hidden) do
    local slot, v = slots[i], nil
    if slot and slot > 0 then v = select(2, debug.getupvalue(st.f, slot))
    elseif slot then
      local env = select(2, debug.getupvalue(st.f, -slot))
      local ok, got = pcall(index, env, name)
      v = ok and got or nil
    end
    if getmetatable(v) == array_mt and freed(v) then extra_error(st, name, slot, "%sattempt to use a freed array (%s)") end
    if v ~= spec.extra[i] and getmetatable(v) == array_mt and v.dtype == dts[i] then
      spec.extra[i] = v
    elseif v ~= spec.extra[i] then
      local now = getmetatable(v) == array_mt and "a " .. v.dtype .. " array" or v == nil and "nil" or "a " .. gpu._described(v)
      extra_error(st, name, slot, ("%%s%%s holds %s now, and its kernel was compiled for %s array (an array read "
                  .. "from outside may change, but not its dtype: pass it as an argument)"):format(now, dts[i] and "a " .. dts[i] or "an"))
    end
    if spec.extra_written[i] and not v:_writeable() then   -- (the C launcher's would name it so too)
      extra_error(st, name, slot, "%s%s is an expanded view (a stride of 0) or a view of one, which the "
                  .. "kernel writes: its elements share memory; give it a:contiguous()")
    end
    dev = dev or gpu._device_id()   -- (the C launcher would name it by its place among the arguments)
    if v.device ~= dev then
      for j = 1, select("#", ...) do   -- an argument of the user's on another device: named first, by C
        local a = select(j, ...)
        if getmetatable(a) == array_mt and a.device ~= dev then return end
      end
      local on = v.device
      extra_error(st, name, slot, ("%%s%%s holds an array on device %d, and device %d is current: launch the "
                  .. "kernel with device %d current (gpu.with_device(%d, f)), or copy the array with a:to(%d)")
                  :format(on, dev, on, on, dev))
    end
  end
end

local function with_extra(run, extra, ...)
  local args = table.pack(...)
  for i, a in ipairs(extra) do args[args.n + i] = a end
  return run(table.unpack(args, 1, args.n + #extra))
end

-- debug: the launch, then the first out-of-range access as an error naming its Lua line
-- (the record of the first out-of-range access is the kernel's last argument)
local function debug_launch(st, spec, run, ...)
  spec.record = spec.record or gpu.zeros(17, gpu.int64)
  local extra = table.move(spec.extra or {}, 1, #(spec.extra or {}), 1, {})
  extra[#extra + 1] = spec.record
  local ok, err = pcall(with_extra, run, extra, ...)
  local r = spec.record:totable()
  if r[1] == 0 then
    if not ok then error(err, 0) end
    return
  end
  spec.record = nil
  local n, idx, shape = r[3], {}, {}
  for i = 1, n do idx[i] = r[3 + i] end
  for i = 1, math.min(r[7], 3) do shape[i] = r[7 + i] end
  local what
  if n == 1 then what = ("index %d out of range for an array of %d elements"):format(idx[1], r[11])
  elseif r[7] ~= n then what = ("index (%s) on a %d-dimensional array"):format(table.concat(idx, ", "), r[7])
  else what = ("index (%s) out of range for an array of shape %s"):format(table.concat(idx, ", "),
              table.concat(shape, " x ")) end
  local where
  if r[13] == 1 and r[14] == 1 and r[16] == 1 and r[17] == 1 then
    where = ("block %d, thread %d"):format(r[12], r[15])
  else
    where = ("block (%d, %d, %d), thread (%d, %d, %d)"):format(r[12], r[13], r[14], r[15], r[16], r[17])
  end
  error(("%s: kernel '%s': %s (%s)"):format(spec.sites[r[2]] or "?", st.name, what, where), 0)
end

-- A signature's b1 parameters (bools: their indices) take booleans: gpu.kernel's launcher
-- takes a number for a bool as C does (0 is false), where in Lua every number is true
local function check_bools(st, bools, ...)
  for _, i in ipairs(bools) do
    if type((select(i, ...))) == "number" then
      error(("kernel '%s' argument %d (%s): b1 takes a boolean, got a number (in Lua every number "
             .. "is true, 0 too: pass %s ~= 0)"):format(st.name, i, st.params[i], st.params[i]), 3)
    end
  end
end

-- What launches a spec: its kernel (k[config] is the launcher), or for a kernel that takes
-- extra arguments, checks bounds or has a signature with b1, a table whose [config] is a
-- launcher that adds them, or checks. Its errors name the launch's line (gpu._api): the
-- user calls a fixed signature's launcher, the dispatcher (host/jit.c, C) the others for
-- the user; the C launcher's own errors (an array of another device) named none, raised
-- where a frame of this file (no line) or the dispatcher called it.
local function leaf_of(st, spec)
  local bools = spec == st.fixed and spec.bools
  if not spec.extra and not st.debug and not bools then return spec.kernel end
  local level = spec == st.fixed and 2 or 3
  return setmetatable({}, {__index = function(_, config)
    local run = spec.kernel[config]
    local function check(...)   -- (counted here: the C launcher counted the extra arguments too)
      local n = select("#", ...)
      if n ~= st.nparams then
        error(("kernel '%s' takes %d argument%s, got %d"):format(st.name, st.nparams, st.nparams == 1 and "" or "s", n), 0)
      end
      if bools then check_bools(st, bools, ...) end
      if spec.extra then check_extra(st, spec, ...) end
    end
    if st.debug then
      return gpu._api(function(...)
        check(...)
        return debug_launch(st, spec, run, ...)
      end, level)
    end
    return gpu._api(function(...)
      check(...)
      if not spec.extra then return run(...) end
      return with_extra(run, spec.extra, ...)
    end, level)
  end})
end

-- A launch whose argument types have no kernel yet: compiles one, adds it to the tree
-- host/jit.c's dispatcher walks, and launches it.
local function miss(st, config, ...)
  local n = select("#", ...)
  local params = {}
  if n == st.nparams then
    for i = 1, n do params[i] = arg_param(st, select(i, ...), i) end
  end
  if n ~= st.nparams then
    error(("kernel '%s' takes %d argument%s, got %d"):format(st.name, st.nparams,
          st.nparams == 1 and "" or "s", n), 3)
  end
  local spec = specialize(st, params)
  local node = st.tree
  for i = 1, n do
    local code = gpu._jit_code((select(i, ...)))
    node[code] = node[code] or {}
    node = node[code]
  end
  spec.leaf = spec.leaf or leaf_of(st, spec)
  node[0] = spec.leaf
  return spec.leaf[config](...)
end

-- miss's errors (a freed array, an array's method called here) at the launch's line: the
-- dispatcher (C) calls it for the caller
local miss_at_caller = gpu._api(miss, 3)

local function same_dims(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" or #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

-- whether config has no field but grid, block, shared and stream (one with another field
-- is refused at its launch, and is never kept, nor taken for one kept)
local function known_fields(config)
  for key in pairs(config) do
    if key ~= 1 and key ~= 2 and key ~= "shared" and key ~= "stream" then return false end
  end
  return true
end

-- A grid or block table's 1 to 3 numbers, copied (anything else as it is: read_dims in
-- host/kernel.c refuses it)
local function dims_copy(d)
  if type(d) ~= "table" then return d end
  local n = #d
  if n < 1 or n > 3 then return d end
  return {d[1], d[2], d[3]}
end

-- config as it is now: the launch reads it by value at k[config], as gpu.kernel's does, so
-- that a grid or block table changed later changes no launcher made or kept before
local function config_copy(config)
  local copy = {}
  for key, v in next, config do copy[key] = v end
  copy[1], copy[2] = dims_copy(config[1]), dims_copy(config[2])
  return copy
end

-- k[config]: the launcher of a fixed signature, else a dispatcher (host/jit.c), made from a
-- copy of config (the dispatcher reads it at each launch of new argument types); kept for
-- the next k[config] with the same configuration, compared by value (__index below
-- compares the common case, numbers for grid and block, itself)
local function launcher(st, config)
  local last, known = st.last_config, known_fields(config)
  if last and known and same_dims(last[1], config[1]) and same_dims(last[2], config[2]) and
     last.shared == config.shared and last.stream == config.stream then
    return st.last_launcher
  end
  config = config_copy(config)
  local fixed, run = st.fixed, nil
  if fixed then
    fixed.leaf = fixed.leaf or leaf_of(st, fixed)
    run = fixed.leaf[config]
  else
    run = gpu._jit_dispatcher(st.tree, config, miss_at_caller, st)
  end
  if known then st.last_config, st.last_launcher = config, run end
  return run
end

------------------------------------------------------------------------------------
-- the object

local methods = {}

local function state(k, what)
  local st = states[k]
  if not st then error(("bad self for '%s' (gpu.jit function expected)"):format(what), 3) end
  return st
end

-- A signature's parameters, refused unless it has a type for each parameter of st's
-- function, where it is read (an error at level, from here)
local function signature_for(st, sig, level)
  local params = parse_signature(sig, level + 1)
  if #params ~= st.nparams then
    local names = table.concat(st.params, ", ")
    error(("gpu.jit: signature '%s' has %d type%s for the %d parameter%s of '%s'%s"):format(sig, #params,
          #params == 1 and "" or "s", st.nparams, st.nparams == 1 and "" or "s", st.name,
          names ~= "" and " (" .. names .. ")" or ""), level)
  end
  return params
end

-- The spec a method names: a signature string, or the last compiled (or fixed) one.
local function spec_named(st, sig, what)
  if sig ~= nil then return specialize(st, signature_for(st, sig, 4)) end
  local spec = st.fixed or st.last
  if not spec then
    error(("gpu.jit function '%s' has no signature compiled yet: launch it, or name one: "
           .. "k:%s('void(float32[:], float32[:])')"):format(st.name, what), 3)
  end
  return spec
end

-- k:source([signature]): the CUDA C generated for a signature
function methods.source(k, sig) return spec_named(state(k, "source"), sig, "source").source end

-- k:compile([signature]): compiles now; returns the target and where the code came from
function methods.compile(k, sig) return spec_named(state(k, "compile"), sig, "compile").kernel:compile() end

-- k:signatures(): the signatures compiled so far, in order
function methods.signatures(k)
  local st = state(k, "signatures")
  return table.move(st.order, 1, #st.order, 1, {})
end

for name, m in pairs(methods) do methods[name] = gpu._api(m) end   -- errors at the caller's line

-- launcher's errors (a fixed signature's bad configuration, which gpu.kernel's k[config]
-- raises at a line of this file, stripped: none) at the line of k[config]
local launcher_at_caller = gpu._api(launcher, 3)

local MT = {__name = "gpu.jit", methods = methods}   -- methods: for spec/docs_spec.lua
MT.__index = function(k, key)
  local st = states[k]
  if type(key) == "table" then
    local last = st.last_config
    if last and key[1] == last[1] and key[2] == last[2] and key.shared == last.shared and
       key.stream == last.stream and known_fields(key) then
      return st.last_launcher
    end
    return launcher_at_caller(st, key)   -- (a tail call: < jit_index (C) < caller)
  end
  if key == "name" then return st.name end
  local m = methods[key]
  if m then return m end
  error(("gpu.jit function has no field or method '%s'"):format(tostring(key)), 3)   -- < jit_index (C) < caller
end
-- in C: the common case, the last configuration again, costs what gpu.kernel's k[config] does
MT.__index = gpu._jit_index(MT.__index)
MT.__newindex = function() error("a gpu.jit function has no fields to set", 2) end
MT.__call = function(k)
  error(("gpu.jit function '%s' needs a launch configuration: k[grid, block](...) (from another "
         .. "gpu.jit function it is called as a device function)"):format(states[k].name), 2)
end
MT.__tostring = function(k) return ("gpu.jit(%s)"):format(states[k].name) end

-- gpu.jit(f [, options])
function M.new(f, options)
  local found = source_of(f)
  options = options or {}
  if type(options) ~= "table" then
    error(("bad argument #2 to 'jit' (options table expected, got %s)"):format(type(options)), 2)
  end
  gpu._arg.options(options, "jit", "signature name options debug float integer")
  gpu._arg.flag(options, "debug", "jit", nil, 2)   -- (0 and "false" were taken as true)
  for _, which in ipairs({"float", "integer"}) do
    local d = options[which]
    local ok = d == nil or (which == "float" and (d == "float32" or d == "float64")) or
               (which == "integer" and element[d] == "int64")
    if not ok then
      error(("bad argument #2 to 'jit' (option %s must be %s, got %s)")
            :format(which, which == "float" and "float32 or float64" or "an integer dtype", tostring(d)), 2)
    end
  end
  next_id = next_id + 1
  local name = options.name or found.name or "kernel"
  if type(name) ~= "string" or not name:find("^[%a_][%w_]*$") then
    error(("bad argument #2 to 'jit' (option name must be an identifier, got %s)"):format(tostring(name)), 2)
  end
  local params = {}
  for i = 1, found.info.nparams do params[i] = debug.getlocal(f, i) end
  local st = {f = f, found = found, name = name, id = name .. "#" .. next_id, specs = {}, order = {},
              tree = {}, nparams = found.info.nparams, params = params, float = options.float or "float64",
              integer = options.integer or "int64", debug = options.debug and true or false,
              kernel_options = {options = options.options, debug = options.debug},
              free = found.free, text = found.body}
  local k = setmetatable({}, MT)
  states[k] = st
  if options.signature ~= nil then
    local params = signature_for(st, options.signature, 3)
    -- its launcher is gpu.kernel's, which takes an array of any layout: so compiled for any
    for _, p in ipairs(params) do p.contiguous = nil end
    st.fixed = specialize(st, params)
    local bools = {}
    for i, p in ipairs(params) do if p.dtype == "bool" and not p.array then bools[#bools + 1] = i end end
    st.fixed.bools = #bools > 0 and bools or nil
  end
  return k
end

-- gpu.vectorize's and gpu.reduce's question: the C of gpu.jit function k as a device function for
-- arguments of these types ("int64", "float32", "float64", "bool"): its helpers, the
-- device functions it calls and itself; with its C name and the type it returns ("void"
-- for nothing). Raises at level as a compile does when it cannot be typed. Kept on disk
-- as the kernels' C is (under the same kind of key), so a new process need not parse k.
local DEVICE = {ret = "string", name = "string", source = "string"}
local returns = {void = true, bool = true, int64 = true, float32 = true, float64 = true, complex64 = true,
                 complex128 = true, float16 = true}

function M.device_source(k, argtypes, level)
  local st = states[k]
  local sig = "device(" .. table.concat(argtypes, ", ") .. ")"
  st.devices = st.devices or {}
  local d = st.devices[sig]
  if d then return d end
  local key = memo_key(st, sig)
  d = gpu._memo(key, DEVICE)
  if not (d and returns[d.ret] and d.name:find("^[%a_][%w_]*$")) then
    compiler()
    local U = emit.unit(false)
    U.prefix = "lua_"
    local ok, ctx = pcall(typed, st, U, argtypes, false, device_typer(U))
    if ok then ok, ctx = pcall(function() emit.func(U, ctx); return ctx end) end
    if not ok then jit_error(ctx, level + 1) end
    local comment = ("// gpu.jit: %s as a device function, %s:%d, %s"):format(st.name, emit.shown_file(ctx.file),
                                                                             ctx.fn.line, sig)
    d = {ret = ctx.ret and types.concrete(ctx.ret) or "void", name = ctx.cname,
         source = emit.source(U, comment) .. '#line 1 "[gpu.vectorize]"\n'}
    gpu._memo(key, DEVICE, d)
  end
  st.devices[sig] = d
  return d
end

-- gpu.vectorize (lua/jit/vectorize.lua), loaded at its first use
local vectorize
function M.vectorize(f, options)
  vectorize = vectorize or module("vectorize", gpu, M)
  return vectorize(f, options)
end

-- gpu.reduce (lua/jit/reduce.lua), loaded at its first use
local reduce
function M.reduce(f, options)
  reduce = reduce or module("reduce", gpu, M)
  return reduce(f, options)
end

function M.is_jit(v) return states[v] ~= nil end
-- The f and options of gpu.vectorize and gpu.reduce (api: which): a gpu.jit function as it
-- is, a Lua function made one (options.name, the only option); errors at the api's caller
function M.as_jit(f, options, api)
  if options ~= nil and type(options) ~= "table" then
    error(("bad argument #2 to '%s' (options table expected, got %s)"):format(api, type(options)), 4)
  end
  options = options or {}
  gpu._arg.options(options, api, "name")
  if states[f] then return f, options end
  local info = type(f) == "function" and debug.getinfo(f, "S")
  if info and (info.what ~= "Lua" or info.linedefined == 0) then   -- (print: gpu.jit's words named 'jit')
    error(("bad argument #1 to '%s' (a Lua function written with `function ... end` or a gpu.jit function "
           .. "expected, got %s)"):format(api, info.what == "C" and "a C function" or "a chunk"), 4)
  end
  if info then return gpu.jit(f, {name = options.name}), options end
  error(("bad argument #1 to '%s' (a Lua function or a gpu.jit function expected, got %s)")
        :format(api, type(f)), 4)
end
function M.nparams(k) return states[k].nparams end
M.parse_signature = parse_signature
return M
