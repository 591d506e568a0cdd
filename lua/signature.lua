-- signature.lua: reads the __global__ declarations of a CUDA C source, so the host knows
-- each kernel's parameter types (kernel.c checks them against the compiled kernel's sizes).
-- It reads declarations, not all of C++: comments, strings and preprocessor lines are
-- blanked first; a template's parameters are replaced by the arguments of its name
-- expression ("scale<float>").
local M = {}

-- C type spellings of each dtype: the spellings of host/gpu.h's dtype table
local gpu = ...
local ctypes = {}
for _, d in ipairs(gpu._dtypes) do
  for _, c in ipairs(d.spellings) do ctypes[c] = d.name end
end
M.ctypes = ctypes

-- words that are part of a type spelling, never a parameter's name
local typewords = {
  ["char"] = true, short = true, int = true, long = true, signed = true, unsigned = true,
  float = true, double = true, bool = true, void = true,
}
-- qualifiers and attributes that do not change how an argument is passed
local ignored = {
  const = true, volatile = true, __restrict__ = true, __restrict = true, restrict = true,
  __grid_constant__ = true, register = true, struct = true, class = true, typename = true,
}
-- words before a kernel's name that take a parenthesised argument
local attributes = {
  __launch_bounds__ = true, __maxnreg__ = true, __cluster_dims__ = true,
  __attribute__ = true, __declspec = true, alignas = true,
}

-- Blanks comments, string and character literals and preprocessor lines, keeping length
-- and newlines.
local function blank(s) return (s:gsub("[^\n]", " ")) end

-- Is src[i] the first character of its line but for spaces and tabs? Looks back only over
-- the blanks before i, so a scan that asks at each '#' stays linear.
local function line_start(src, i)
  local k = i - 1
  while k >= 1 and (src:byte(k) == 32 or src:byte(k) == 9) do k = k - 1 end
  return k == 0 or src:byte(k) == 10
end

-- The last character of the preprocessor directive at i: before the newline that ends it,
-- past any backslash-newline (or backslash-CRLF) that continues it.
local function directive_end(src, i)
  local from = i
  while true do
    local nl = src:find("\n", from, true)
    if not nl then return #src end
    local k = src:byte(nl - 1) == 13 and nl - 2 or nl - 1
    if src:byte(k) ~= 92 then return nl - 1 end
    from = nl + 1
  end
end

function M.strip(src)
  local out, i, n = {}, 1, #src
  while i <= n do
    local c, c2 = src:sub(i, i), src:sub(i, i + 1)
    local j
    if c2 == "//" then
      j = (src:find("\n", i, true) or n + 1) - 1
      out[#out + 1] = blank(src:sub(i, j))
    elseif c2 == "/*" then
      j = select(2, src:find("*/", i + 2, true)) or n
      out[#out + 1] = blank(src:sub(i, j))
    elseif c == '"' or c == "'" then
      j = i + 1
      while j <= n do
        local d = src:sub(j, j)
        if d == "\\" then j = j + 1 elseif d == c or d == "\n" then break end
        j = j + 1
      end
      out[#out + 1] = c .. blank(src:sub(i + 1, j - 1)) .. c
    elseif c == "#" and line_start(src, i) then
      j = directive_end(src, i)
      out[#out + 1] = blank(src:sub(i, j))
    else
      j = (src:find("[/\"'#]", i + 1) or n + 1) - 1
      out[#out + 1] = src:sub(i, j)
    end
    i = j + 1
  end
  return table.concat(out)
end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- Splits s at commas outside (), <>, [] and {}.
local function split_top(s)
  local parts, depth, start = {}, 0, 1
  for i = 1, #s do
    local c = s:sub(i, i)
    if c == "(" or c == "<" or c == "[" or c == "{" then depth = depth + 1
    elseif c == ")" or c == ">" or c == "]" or c == "}" then depth = depth - 1
    elseif c == "," and depth == 0 then
      parts[#parts + 1] = trim(s:sub(start, i - 1))
      start = i + 1
    end
  end
  local last = trim(s:sub(start))
  if last ~= "" or #parts > 0 then parts[#parts + 1] = last end
  return parts
end
M.split_top = split_top

-- The names of a template's parameters, from "<typename T, int N = 4>".
local function template_names(list)
  local names = {}
  for _, p in ipairs(split_top(list:sub(2, -2))) do
    p = p:gsub("=.*$", "")
    names[#names + 1] = p:match("([%a_][%w_]*)%s*$")
  end
  return names
end

-- A reader of the namespaces open at increasing positions of stripped source s:
-- at(pos) -> "a::b::" ("" at global scope); anonymous namespaces and extern "C" blocks add
-- nothing.
local function namespaces(s)
  local stack, depth, at = {}, 0, 1
  return function(pos)
    while true do
      local b = s:find("[{}]", at)
      if not b or b >= pos then break end
      if s:sub(b, b) == "{" then
        depth = depth + 1
        local before = s:sub(math.max(1, b - 300), b - 1)
        -- (a plain find first: the pattern, tried at each of 300 places, is slow)
        local name = before:find("namespace", 1, true) and
                     before:match("%f[%w_]namespace%s+([%a_][%w_:]*)%s*$")
        if name then stack[#stack + 1] = {name = name, depth = depth} end
      else
        if #stack > 0 and stack[#stack].depth == depth then stack[#stack] = nil end
        depth = depth - 1
      end
      at = b + 1
    end
    local prefix = {}
    for i, n in ipairs(stack) do prefix[i] = n.name .. "::" end
    return table.concat(prefix)
  end
end

-- parse(src) -> list of {name = , params = "(...)", template = {names} or nil}, in order;
-- a kernel declared in a namespace is named with it ("ns::k"), as a name expression is.
function M.parse(src)
  local s = M.strip(src)
  local ns = namespaces(s)
  local kernels, seen, pos = {}, {}, 1
  local stmt, scanned = 1, 1   -- where the statement holding the last __global__ starts
  while true do
    local gs, ge = s:find("%f[%w_]__global__%f[^%w_]", pos)
    if not gs then break end
    while true do   -- past the last ';' or '}' before gs, scanning each character once
      local e = s:find("[;}]", scanned)
      if not e or e >= gs then break end
      stmt, scanned = e + 1, e + 1
    end
    local pre = s:sub(stmt, gs - 1)
    local tlist = pre:match("template%s*(%b<>)")
    local i, name, params = ge + 1, nil, nil
    local stop = s:find("[;{]", ge) or #s + 1   -- the name is in this declaration, or none is
    while true do
      local _, b, ident = s:find("([%a_][%w_:]*)%s*%(", i)
      if not ident or b > stop then break end   -- (an explicit instantiation, "k<float>(", names none)
      if attributes[ident] then
        local _, pe = s:find("%b()", b)
        i = (pe or b) + 1
      else
        name, params = ident, s:match("^%b()", b)
        i = b
        break
      end
    end
    if name and not name:find("::", 1, true) then name = ns(gs) .. name end
    if name and params and not seen[name] then
      seen[name] = true
      kernels[#kernels + 1] = {name = name, params = params,
                               template = tlist and template_names(tlist) or nil}
    end
    pos = ge + 1
  end
  return kernels
end

-- Splits a name expression "ns::scale<float, 4>" into "scale" and {"float", "4"}.
function M.split_name(expr)
  local base, args = expr:match("^%s*([%w_:]+)%s*(%b<>)%s*$")
  if not base then base = trim(expr) end
  base = base:match("([%a_][%w_]*)$") or base
  return base, args and split_top(args:sub(2, -2)) or nil
end

-- One parameter's text -> {kind = "scalar"|"pointer"|"array", dtype = , name = , ctype = }
-- or nil and why.
local function param(text, subst)
  text = text:gsub("=.*$", "")
  text = text:gsub("__attribute__%s*%b()", " ")
  -- gpu::complex<float> as one word (the split below would drop its <...>)
  text = text:gsub("gpu%s*::%s*complex%s*<%s*float%s*>", "gpu::complex64")
             :gsub("gpu%s*::%s*complex%s*<%s*double%s*>", "gpu::complex128")
  -- gpu::array<T> (the array type of kernels/gpuhost.cuh)
  local elem = text:match("^%s*[%w_%s]*%f[%w_]gpu%s*::%s*array%s*(%b<>)") or
               text:match("^%s*[%w_%s]*%f[%w_]array%s*(%b<>)")
  if elem then
    local t = trim(elem:sub(2, -2))
    t = subst[t] or t
    local pname = text:match("%b<>%s*([%a_][%w_]*)%s*$")
    local dt = ctypes[t]
    if not dt then return nil, "gpu::array of " .. t end
    return {kind = "array", dtype = dt, name = pname or "?", ctype = "gpu::array<" .. t .. ">"}
  end
  local words, stars = {}, 0
  for w in text:gmatch("[%a_][%w_:]*") do
    if not ignored[w] then
      local sub = subst[w]
      if sub then
        for x in sub:gmatch("[%a_][%w_:]*") do if not ignored[x] then words[#words + 1] = x end end
        stars = stars + select(2, sub:gsub("%*", ""))
      else
        words[#words + 1] = w
      end
    end
  end
  stars = stars + select(2, text:gsub("%*", ""))
  if text:find("&", 1, true) then return nil, trim(text) .. " (a reference)" end
  local pname = "?"
  if #words >= 2 and not typewords[words[#words]] then pname = table.remove(words) end
  local base = table.concat(words, " "):gsub("^std::", "")
  if stars == 0 then
    local dt = ctypes[base]
    if not dt then return nil, base end
    return {kind = "scalar", dtype = dt, name = pname, ctype = base}
  elseif stars == 1 then
    -- a pointer to an element type we know must match the array's dtype; void* or a
    -- pointer to another type (float4*, a struct) takes any array
    return {kind = "pointer", dtype = ctypes[base], name = pname, ctype = base .. "*"}
  end
  return nil, base .. string.rep("*", stars)
end

-- params(decl, targs) -> list of parameters, or raises naming what it cannot pass.
function M.params(decl, targs, display)
  local subst = {}
  if decl.template then
    if not targs then
      error(("kernel '%s' is a template: name an instantiation, e.g. '%s<float>'")
            :format(decl.name, decl.name), 0)
    end
    for i, n in ipairs(decl.template) do subst[n] = targs[i] and trim(targs[i]) end
  end
  local list = {}
  local inner = trim(decl.params:sub(2, -2))
  if inner == "" or inner == "void" then return list end
  for i, text in ipairs(split_top(inner)) do
    local p, why = param(text, subst)
    if not p then
      error(("kernel '%s' parameter %d has type '%s', which gpuhost cannot pass from Lua")
            :format(display or decl.name, i, why), 0)
    end
    list[i] = p
  end
  return list
end

return M
