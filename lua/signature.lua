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

-- The last character of the // comment at i: before the newline that ends it, past any
-- backslash-newline that continues it
local function line_comment_end(src, i)
  local from = i
  while true do
    local nl = src:find("\n", from, true)
    if not nl then return #src end
    local k = src:byte(nl - 1) == 13 and nl - 2 or nl - 1
    if src:byte(k) ~= 92 then return nl - 1 end
    from = nl + 1
  end
end

-- The last character of the preprocessor directive at i: before the newline that ends it,
-- past any backslash-newline (or backslash-CRLF) that continues it.
local function directive_end(src, i)
  local from, n = i, #src
  while true do
    local at = src:find("[\n/\"]", from)
    if not at then return n end
    local c = src:sub(at, at)
    if c == "\n" then
      local k = src:byte(at - 1) == 13 and at - 2 or at - 1
      if src:byte(k) ~= 92 then return at - 1 end
      from = at + 1
    elseif c == '"' then
      local q = src:find('["\n]', at + 1)
      if not q or src:sub(q, q) == "\n" then from = q or n + 1 else from = q + 1 end
    elseif src:sub(at, at + 1) == "/*" then
      -- a comment hides what it covers, newlines too: the directive goes on past it
      from = (select(2, src:find("*/", at + 2, true)) or n) + 1
    elseif src:sub(at, at + 1) == "//" then
      return line_comment_end(src, at)
    else
      from = at + 1
    end
  end
end

-- The end (its closing quote) of the raw string literal (R"d(...)d", maybe LR, uR, UR or
-- u8R) whose opening quote is at i of src, or nil when none starts there
local function raw_string_end(src, i)
  local before = src:sub(math.max(1, i - 4), i - 1):match("[%w_]*$")
  if not (before == "R" or before == "LR" or before == "uR" or before == "UR" or before == "u8R") then return nil end
  local d = src:match('^([^%s()\\"]*)%(', i + 1)
  if d == nil or #d > 16 then return nil end
  local _, e = src:find(")" .. d .. '"', i + 2 + #d, true)
  return e or #src
end

-- Whether the ' at i of src is a C++14 digit separator: inside a number (1'000, 0xFF'FF)
local function digit_separator(src, i)
  local w = src:sub(math.max(1, i - 64), i - 1):match("[%w_'.]*$")
  return w:find("^%d") ~= nil or w:find("^%.%d") ~= nil
end

-- strip(src [, directives]): src blanked; each preprocessor directive, {from, to, text}, is
-- added to the list directives
function M.strip(src, directives)
  local out, i, n = {}, 1, #src
  while i <= n do
    local c, c2 = src:sub(i, i), src:sub(i, i + 1)
    local j
    if c2 == "//" then
      j = line_comment_end(src, i)
      out[#out + 1] = blank(src:sub(i, j))
    elseif c2 == "/*" then
      j = select(2, src:find("*/", i + 2, true)) or n
      out[#out + 1] = blank(src:sub(i, j))
    elseif c == '"' and raw_string_end(src, i) then   -- R"d(...)d": no escapes, may span lines
      j = raw_string_end(src, i)
      out[#out + 1] = c .. blank(src:sub(i + 1, j - 1)) .. c
    elseif c == "'" and digit_separator(src, i) then   -- 1'000
      j = i
      out[#out + 1] = c
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
      if directives then directives[#directives + 1] = {from = i, to = j, text = src:sub(i, j)} end
    else
      j = (src:find("[/\"'#]", i + 1) or n + 1) - 1
      out[#out + 1] = src:sub(i, j)
    end
    i = j + 1
  end
  return table.concat(out)
end

local function trim(s) return gpu._arg.trim(s) end   -- (linear: gsub("%s+$", "") is not)

-- ---- the preprocessor's conditionals ----
-- Which code the compilers see: #if/#ifdef/#ifndef/#elif/#else/#endif are evaluated where
-- their conditions are decided by what is known on both backends (the -D/-U options, the
-- source's own #define/#undef, integer literals); a name no option or #define defines is
-- undefined until an #include of a header not gpuhost's own. Names of the compilers and
-- libraries (__CUDACC_RTC__, GPUHOST_*, INT_MAX ...), any name after such an #include, a
-- function-like macro's value and C's unsigned arithmetic are not known: a branch they
-- decide is "maybe" (read as today, but see M.parse's `unsure`).

-- Names the C library, the compilers, the CUDA headers or gpuhost may define
local function library_name(n)
  for _, p in ipairs({"^_[_%u]", "^GPUHOST_", "^CUDA", "^CUB_", "^THRUST_", "^CCCL_", "^NV_",
                      "_MAX$", "_MIN$", "^FLT_", "^DBL_", "^LDBL_", "^M_", "^FP_", "_C$", "^HUGE_VAL",
                      "^MATH_ERR", "^CHAR_BIT$", "^INFINITY$", "^NAN$", "^NULL$", "^assert$",
                      "^offsetof$", "^math_errhandling$"}) do
    if n:find(p) then return true end
  end
  return false
end

-- The macros the options define (-DX, -DX=v) and undefine (-UX), as gpu.lua spells them
-- whichever way the user wrote them: name -> {body = text} | false
local function option_macros(flags)
  local macros = {}
  for _, f in ipairs(flags or {}) do
    local d, u = f:match("^%-D(.*)$"), f:match("^%-U(.*)$")
    if d then
      local name, rest = d:match("^([%a_][%w_]*)(.*)$")
      if name and rest:sub(1, 1) == "(" then macros[name] = {func = true}
      elseif name then macros[name] = {body = rest:match("^=(.*)$") or "1"} end
    elseif u and u:match("^[%a_][%w_]*$") then
      macros[u] = false
    end
  end
  return macros
end

local TWO = {["&&"] = true, ["||"] = true, ["<<"] = true, [">>"] = true, ["<="] = true,
             [">="] = true, ["=="] = true, ["!="] = true}
local function tokens(text)
  local t, i = {}, 1
  while i <= #text do
    local s, e = text:find("^%s+", i)
    if s then i = e + 1
    else
      local w = text:match("^[%a_][%w_]*", i) or text:match("^%.?%d[%w%.]*", i)
      if w then
        local v
        if w:find("^%d") then
          -- (C's unsigned arithmetic is not Lua's: a u-suffixed literal, or one past
          -- int64, makes the expression not known)
          local cut = #w   -- (not w:match("^(.-)([uUlL]*)$"), which rescans a run of u from each place)
          while cut > 0 and w:find("^[uUlL]", cut) do cut = cut - 1 end
          local digits, suffix = w:sub(1, cut), w:sub(cut + 1)
          local hex, oct = digits:match("^0[xX]0*(%x+)$"), digits:match("^0(%d+)$")
          if suffix:find("[uU]") then v = nil
          elseif hex then v = (#hex < 16 or #hex == 16 and hex:sub(1, 1) <= "7") and tonumber(hex, 16) or nil
          elseif digits:find("^0[xX]0*$") then v = 0
          elseif oct then v = #oct <= 21 and tonumber(oct, 8) or nil
          else v = math.tointeger(tonumber(digits)) end
          t[#t + 1] = {value = v, unknown = v == nil}
        else
          t[#t + 1] = {id = w}
        end
        i = i + #w
      else
        local op = text:sub(i, i + 1)
        if not TWO[op] then op = text:sub(i, i) end
        t[#t + 1] = {op = op}
        i = i + #op
      end
    end
  end
  return t
end

-- Is name defined: true, false, or nil (not known)
local function defined(macros, name, opaque)
  local m = macros[name]
  if m == "unknown" then return nil end
  if m ~= nil then return m and true end   -- (a function-like macro is defined too)
  if opaque or library_name(name) then return nil end
  return false
end

-- The tokens of a #if's condition with `defined` and macros replaced by values (value nil
-- and unknown: not known)
local function expand(toks, macros, opaque, out, busy)
  local i = 1
  while i <= #toks do
    local t, n = toks[i], 1
    if t.id == "defined" then
      local a, b, c = toks[i + 1], toks[i + 2], toks[i + 3]
      local name
      if a and a.op == "(" and b and b.id and c and c.op == ")" then name, n = b.id, 4
      elseif a and a.id then name, n = a.id, 2 end
      local d = name and defined(macros, name, opaque)
      out[#out + 1] = d == nil and {unknown = true} or {value = d and 1 or 0}
    elseif t.id then
      local m = macros[t.id]
      if t.id == "true" or t.id == "false" then out[#out + 1] = {value = t.id == "true" and 1 or 0}
      elseif type(m) == "table" and m.body and not busy[t.id] then
        busy[t.id] = true
        expand(tokens(m.body), macros, opaque, out, busy)
        busy[t.id] = nil
      else
        out[#out + 1] = (defined(macros, t.id, opaque) == false or busy[t.id]) and {value = 0} or {unknown = true}
      end
    else
      out[#out + 1] = t
    end
    i = i + n
  end
  return out
end

local PREC = {["||"] = 1, ["&&"] = 2, ["|"] = 3, ["^"] = 4, ["&"] = 5, ["=="] = 6, ["!="] = 6,
              ["<"] = 7, [">"] = 7, ["<="] = 7, [">="] = 7, ["<<"] = 8, [">>"] = 8,
              ["+"] = 9, ["-"] = 9, ["*"] = 10, ["/"] = 10, ["%"] = 10}
local function truth(v) return v ~= nil and v ~= 0 end
local APPLY = {
  ["||"] = function(a, b) if truth(a) or truth(b) then return 1 end; return a and b and 0 end,
  ["&&"] = function(a, b) if a == 0 or b == 0 then return 0 end; return a and b and 1 end,
  ["|"] = function(a, b) return a | b end, ["^"] = function(a, b) return a ~ b end,
  ["&"] = function(a, b) return a & b end,
  ["<<"] = function(a, b) assert(b >= 0 and b < 63 and a >= 0, "shift"); return a << b end,
  [">>"] = function(a, b) assert(b >= 0 and b < 63, "shift"); return a // (1 << b) end, ["+"] = function(a, b) return a + b end,
  ["-"] = function(a, b) return a - b end, ["*"] = function(a, b) return a * b end,
  -- C's / and % truncate toward zero (Lua's // floors); by zero raises (not known)
  ["/"] = function(a, b)
    local q = a // b
    if q < 0 and q * b ~= a then q = q + 1 end
    return q
  end,
  ["%"] = function(a, b) return math.fmod(a, b) end,
  ["=="] = function(a, b) return a == b and 1 or 0 end, ["!="] = function(a, b) return a ~= b and 1 or 0 end,
  ["<"] = function(a, b) return a < b and 1 or 0 end, [">"] = function(a, b) return a > b and 1 or 0 end,
  ["<="] = function(a, b) return a <= b and 1 or 0 end, [">="] = function(a, b) return a >= b and 1 or 0 end,
}

-- Precedence climbing over p.toks from p.i; a value, or nil when it is not known. Raises
-- on what it cannot read (the caller takes that as not known).
local expr
local function unary(p)
  local t = p.toks[p.i]
  assert(t, "end")
  p.i = p.i + 1
  if t.op == "(" then
    local v = expr(p, 0)
    assert(p.toks[p.i] and p.toks[p.i].op == ")", ")")
    p.i = p.i + 1
    return v
  elseif t.op == "!" then local v = unary(p); return v and (v == 0 and 1 or 0)
  elseif t.op == "-" then local v = unary(p); return v and -v
  elseif t.op == "~" then local v = unary(p); return v and ~v
  elseif t.op == "+" then return unary(p)
  elseif t.unknown then return nil
  end
  return assert(t.value, "token")
end
expr = function(p, min)
  local v = unary(p)
  while p.toks[p.i] do
    local op = p.toks[p.i].op
    if op == "?" and min == 0 then
      p.i = p.i + 1
      local a = expr(p, 0)
      assert(p.toks[p.i] and p.toks[p.i].op == ":", ":")
      p.i = p.i + 1
      local b = expr(p, 0)
      if v == nil then v = a == b and a or nil else v = v ~= 0 and a or b end
    else
      local prec = PREC[op]
      if not prec or prec < min then break end
      p.i = p.i + 1
      local r = expr(p, prec + 1)
      local f = APPLY[op]
      if op == "||" or op == "&&" then v = f(v, r) else v = v and r and f(v, r) end
    end
  end
  return v
end

-- A #if's condition: true, false, or nil (not known)
local function condition(text, macros, opaque)
  local p = {toks = expand(tokens(text), macros, opaque, {}, {}), i = 1}
  local ok, v = pcall(expr, p, 0)
  if not ok or p.i <= #p.toks or v == nil then return nil end
  return v ~= 0
end

-- Headers whose macros are all library names: gpuhost's own (README, "Inside kernels");
-- any other header (a -I folder's, cuda_fp16.h's) may define anything
local OWN_HEADERS = {}
for _, h in ipairs({"gpuhost.cuh", "gpuhost_portable.h", "cstdint", "cmath", "climits", "cfloat",
                    "cassert", "cstddef", "limits", "stdint.h", "math.h", "limits.h", "float.h",
                    "assert.h", "stddef.h"}) do
  OWN_HEADERS["<" .. h .. ">"], OWN_HEADERS['"' .. h .. '"'] = true, true
end
local function opaque_include(arg) return not OWN_HEADERS[trim(arg)] end

-- A directive's text without comments and line continuations
local function directive_text(t)
  t = t:gsub("\\\r?\n", " "):gsub("/%*.-%*/", " "):gsub("//.*$", "")
  return t
end

local function combine(parent, own)
  if parent == "off" or own == false then return "off" end
  if parent == "maybe" or own == nil then return "maybe" end
  return "on"
end

-- Walks the directives of src (M.strip's list): the regions ({from, to}) the compilers
-- skip and those they may skip, and the macros that are object-like type names (aliases).
local function conditionals(directives, n, macros)
  local off, maybe, stack, state, mark, opaque = {}, {}, {}, "on", 1, false
  local aliases = {}
  local function close(at)
    local list = state == "off" and off or state == "maybe" and maybe
    if list and at > mark then list[#list + 1] = {mark, at - 1} end
  end
  for _, d in ipairs(directives) do
    local word, rest = gpu._arg.trim(directive_text(d.text)):match("^#%s*([%a_]*)%s*(.*)$")
    local top = stack[#stack]
    local branch = word == "if" or word == "ifdef" or word == "ifndef" or
                   ((word == "elif" or word == "else" or word == "endif") and top)
    if branch then close(d.from); mark = d.to + 1 end
    if word == "if" or word == "ifdef" or word == "ifndef" then
      local v = false
      if state ~= "off" then
        local name = rest:match("^[%a_][%w_]*")
        if word == "if" then v = condition(rest, macros, opaque)
        else v = name and defined(macros, name, opaque); if word == "ifndef" and v ~= nil then v = not v end end
      end
      stack[#stack + 1] = {parent = state, done = v}
      state = combine(state, v)
    elseif word == "elif" and top then
      local own = false
      if top.parent ~= "off" and top.done ~= true then
        local v = condition(rest, macros, opaque)
        if top.done == false then own = v else own = v ~= false and nil end
        if v ~= false then top.done = v or nil end
      end
      state = combine(top.parent, own)
    elseif word == "else" and top then
      local own = top.done == false or (top.done == nil and nil)
      top.done = true
      state = combine(top.parent, own)
    elseif word == "endif" and top then
      stack[#stack] = nil
      state = top.parent
    elseif (word == "define" or word == "undef") and state ~= "off" then
      local name, params, body = rest:match("^([%a_][%w_]*)(%(?)%s*(.*)$")   -- (rest is trimmed)
      if name and state == "maybe" then macros[name] = "unknown"
      elseif name and word == "undef" then macros[name] = false
      elseif name then macros[name] = params == "" and {body = body} or {func = true} end
      if name and word == "define" and params == "" then aliases[#aliases + 1] = {name, body} end
    elseif word == "include" and state ~= "off" then
      opaque = opaque or opaque_include(rest)
    end
  end
  close(n + 1)
  return off, maybe, aliases
end

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
-- Its second result: whether pos is at namespace scope (no function, struct or class body
-- open there); its third: the prefix without inline namespaces ("a::" in inline namespace
-- a::v1, whose members C++ finds as a::x too).
local function namespaces(s)
  local stack, depth, at, other, inlines = {}, 0, 1, {}, {}
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
        if name then
          local full = {}   -- a reopened inline namespace stays inline (C++ keeps it so)
          for i, n in ipairs(stack) do full[i] = n.name end
          full[#full + 1] = name
          full = table.concat(full, "::")
          if before:find("%f[%w_]inline%s+namespace%s+[%a_][%w_:]*%s*$") then inlines[full] = true end
          stack[#stack + 1] = {name = name, depth = depth, inline = inlines[full] == true}
        elseif not before:find("%f[%w_]namespace%s*$") and not before:find('%f[%w_]extern%s*"[^"]*"%s*$') then
          other[#other + 1] = depth
        end
      else
        if #stack > 0 and stack[#stack].depth == depth then stack[#stack] = nil end
        if #other > 0 and other[#other] == depth then other[#other] = nil end
        depth = depth - 1
      end
      at = b + 1
    end
    local prefix, visible = {}, {}
    for i, n in ipairs(stack) do
      prefix[i] = n.name .. "::"
      if not n.inline then visible[#visible + 1] = prefix[i] end
    end
    return table.concat(prefix), #other == 0, table.concat(visible)
  end
end

-- Blanks the regions ({from, to}, in order) of s
local function blank_regions(s, regions)
  local out, at = {}, 1
  for _, r in ipairs(regions) do
    out[#out + 1] = s:sub(at, r[1] - 1)
    out[#out + 1] = blank(s:sub(r[1], r[2]))
    at = r[2] + 1
  end
  out[#out + 1] = s:sub(at)
  return table.concat(out)
end

-- The type aliases of stripped source s (typedef, using X = ..., object-like #define and
-- -D of a type): name -> {[where] = the type it names there, resolved through the others},
-- where is the namespace ("a::b::", "" global) of each, or true for a macro. A name given
-- two types in one scope (in #if branches, in two structs) is left out there; one given
-- a type in each of two namespaces keeps both (alias_at picks the one C++ finds).
-- Only aliases at namespace scope count (one in a function or struct body names nothing
-- outside it). A name that is also a struct, class, union or enum is left out.
local alias_at
local function type_aliases(s, defines)
  local found = {}
  local function add(name, body, where)
    body = trim(body)
    if not body:find("^[%w_:%s%*<>]*[%a_][%w_:%s%*<>]*$") or body:find("%f[%w_]%d") then return end
    local f = found[name] or {}
    found[name] = f
    if f[where] ~= nil and f[where] ~= body then f[where] = false else f[where] = body end
  end
  local list = {}
  -- (the text up to ";" taken whole, then trimmed: a lazy capture before %s*; rescanned a
  -- run of spaces inside it from each of its places)
  for at, decl in s:gmatch("()%f[%w_]typedef%s+([^;{}()%[%],]*);") do
    local body, name = trim(decl):match("^(.*[^%w_])([%a_][%w_]*)$")
    if body then list[#list + 1] = {at, name, body} end
  end
  for at, name, body in s:gmatch("()%f[%w_]using%s+([%a_][%w_]*)%s*=%s*([^;{}()%[%],]*);") do
    list[#list + 1] = {at, name, trim(body)}
  end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  local ns = namespaces(s)
  for _, a in ipairs(list) do
    local prefix, global = ns(a[1])
    if global then add(a[2], a[3], prefix) end
  end
  for _, d in ipairs(defines) do add(d[1], d[2], true) end
  for _, w in ipairs({"struct", "class", "union", "enum"}) do
    for name in s:gmatch("%f[%w_]" .. w .. "%s+([%a_][%w_]*)") do found[name] = {[true] = false} end
  end
  local function resolve(name, prefix, depth)
    local body, where = alias_at(found, name, prefix)
    if not body or depth > 8 then return nil end
    local inner = where == true and prefix or where
    return (body:gsub("[%a_][%w_:]*", function(w) return w ~= name and resolve(w, inner, depth + 1) or nil end))
  end
  local resolved = {}
  for name, f in pairs(found) do
    for where in pairs(f) do
      resolved[name] = resolved[name] or {}   -- false: unknown there (it hides outer ones)
      resolved[name][where] = resolve(name, where == true and "" or where, 0) or false
    end
  end
  return resolved
end

-- The alias (of type_aliases) that name is where namespace prefix is open, and its scope:
-- a macro's, else the innermost enclosing namespace's; nil when none
function alias_at(aliases, name, prefix)
  local f = aliases[name]
  if not f then return nil end
  if f[true] ~= nil then return f[true] or nil, true end
  local best
  for where in pairs(f) do
    if prefix:sub(1, #where) == where and (not best or #where > #best) then best = where end
  end
  if best then return f[best] or nil, best end
  return nil
end

-- Parameter list params "(...)" with the aliases whose scope encloses namespace prefix
-- substituted in each parameter's type, not its name; own: names not to substitute (a
-- template's parameters)
local function substitute(params, aliases, prefix, own)
  local out = {}
  for _, text in ipairs(split_top(params:sub(2, -2))) do
    -- the words at the top level (outside <>, (), []), before any default argument
    local top, depth = {}, 0
    for i = 1, #text do
      local c = text:sub(i, i)
      if c == "<" or c == "(" or c == "[" then depth = depth + 1
      elseif c == ">" or c == ")" or c == "]" then depth = depth - 1
      elseif c == "=" and depth == 0 then break
      elseif depth == 0 and c:find("[%a_]") and (i == 1 or not text:sub(i - 1, i - 1):find("[%w_:]")) then
        local w = text:match("^[%a_][%w_:]*", i)
        if not ignored[w] and w ~= "__attribute__" then top[#top + 1] = {i, w} end
      end
    end
    local last = #top >= 2 and not typewords[top[#top][2]] and top[#top][1]
    out[#out + 1] = text:gsub("()([%a_][%w_:]*)", function(at, w)
      if at == last or own[w] then return nil end
      return (alias_at(aliases, w, prefix))
    end)
  end
  return "(" .. table.concat(out, ", ") .. ")"
end

-- The parameter types of a parameter list, as M.params reads them (names left out)
local param
local function types_of(params)
  local t = {}
  for i, text in ipairs(split_top(params:sub(2, -2))) do
    local p = param(text, {})
    t[i] = p and p.kind .. " " .. p.ctype or text:gsub("%s+", "")
  end
  if #t == 1 and (t[1] == "" or t[1]:find("^scalar void") or t[1] == "void") then return "" end
  return table.concat(t, ",")
end

-- The line of position pos in src
local function line_of(src, pos) return select(2, src:sub(1, pos):gsub("\n", "")) + 1 end

-- The object-like macros (defines: {name, body}) that expand to a __global__ (through
-- others too: #define G __global__, #define KERNEL extern "C" G void), as a list
local function global_macros(defines)
  local found, list, changed = {}, {}, true
  while changed do
    changed = false
    for _, d in ipairs(defines) do
      if not found[d[1]] then
        for w in d[2]:gmatch("[%a_][%w_]*") do
          if w == "__global__" or found[w] then
            found[d[1]], changed = true, true
            list[#list + 1] = d[1]
            break
          end
        end
      end
    end
  end
  return list
end

-- The next __global__, or use of a macro of names that expands to one, at or after pos in
-- s: its start and end. next: each macro's next use found so far (found once each).
local function next_global(s, pos, names, next)
  local gs, ge = s:find("%f[%w_]__global__%f[^%w_]", pos)
  for _, n in ipairs(names) do
    local at = next[n]
    if at ~= false and (not at or at[1] < pos) then
      local a, b = s:find("%f[%w_]" .. n .. "%f[^%w_]", pos)
      at = a and {a, b} or false
      next[n] = at
    end
    if at and (not gs or at[1] < gs) then gs, ge = at[1], at[2] end
  end
  return gs, ge
end

-- Adds to each kernel's aka the names that the namespace aliases at namespace scope of
-- stripped source s give it: "vl::k" for very_long::k where `namespace vl = very_long;`
-- (the target looked up from the alias's namespace outwards, as C++ does; an alias of an
-- alias too, in source order)
local function namespace_aliases(s, kernels)
  local ns = namespaces(s)
  for at, alias, target in s:gmatch("()%f[%w_]namespace%s+([%a_][%w_]*)%s*=%s*([%w_:%s]-)%s*;") do
    local prefix, global = ns(at)
    target = target:gsub("%s+", "")
    local tries = {}
    if target:sub(1, 2) == "::" then tries[1] = target:sub(3)
    else
      local p = prefix
      repeat
        tries[#tries + 1] = p .. target
        p = p:match("^(.*::)[%a_][%w_]*::$") or (p ~= "" and "" or nil)
      until not p
    end
    for _, t in ipairs(global and tries or {}) do
      local hit = false
      for _, d in ipairs(kernels) do
        for i = 0, #(d.aka or {}) do
          local n = i == 0 and d.name or d.aka[i]
          if n:sub(1, #t + 2) == t .. "::" then
            d.aka = d.aka or {}
            d.aka[#d.aka + 1] = prefix .. alias .. n:sub(#t + 1)
            hit = true
          end
        end
      end
      if hit then break end
    end
  end
end

-- The type aliases (type_aliases) as a name expression's template arguments name them, read
-- at global scope: "I=long", "ns::J=int" for one in namespace ns, sorted
local function global_types(aliases)
  local list = {}
  for name, f in pairs(aliases) do
    for where, t in pairs(f) do
      if t and (f[true] == nil or where == true) then list[#list + 1] = (where == true and "" or where) .. name .. "=" .. t end
    end
  end
  table.sort(list)
  return list
end

-- parse(src [, flags]) -> list of {name = , params = "(...)", template = {names} or nil,
-- unsure = why or nil}, in order; a kernel declared in a namespace is named with it
-- ("ns::k"), as a name expression is (aka: the other names C++ finds it by, "a::k" for one
-- in inline namespace a::v1, "vl::k" through `namespace vl = a;`; types: a template's, the
-- type aliases its name expression's arguments may name, "I=long"); one declared through an object-like macro that
-- expands to __global__ (#define KERNEL extern "C" __global__ void) is read too. flags: the compile options, whose -D and -U decide
-- #if branches with the source's #define and #undef; code in a branch the compilers skip
-- declares nothing. Type aliases are resolved in params. A kernel declared twice with
-- different parameters where one of them is in a branch that cannot be decided is
-- `unsure`: which declaration the compilers see is not known.
function M.parse(src, flags)
  local directives = {}
  local s = M.strip(src, directives)
  local off, maybe, defines = conditionals(directives, #s, option_macros(flags))
  for name, m in pairs(option_macros(flags)) do
    if type(m) == "table" and m.body then defines[#defines + 1] = {name, m.body} end
  end
  s = blank_regions(s, off)
  local aliases = type_aliases(s, defines)
  local ns = namespaces(s)
  local macros, next = global_macros(defines), {}
  local kernels, seen, pos, mi = {}, {}, 1, 1
  local stmt, scanned = 1, 1   -- where the statement holding the last __global__ starts
  while true do
    local gs, ge = next_global(s, pos, macros, next)
    if not gs then break end
    while true do   -- past the last ';' or '}' before gs, scanning each character once
      local e = s:find("[;}]", scanned)
      if not e or e >= gs then break end
      stmt, scanned = e + 1, e + 1
    end
    while maybe[mi] and maybe[mi][2] < gs do mi = mi + 1 end
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
    local short
    if name and not name:find("::", 1, true) then
      local prefix, _, visible = ns(gs)
      name, short = prefix .. name, visible .. name
    end
    if name and params then
      local tnames = tlist and template_names(tlist) or nil
      local own = {}
      for _, t in ipairs(tnames or {}) do own[t] = true end
      params = substitute(params, aliases, ns(gs), own)
      local d, undecided = seen[name], maybe[mi] and maybe[mi][1] <= gs
      if not d then
        d = {name = name, params = params, template = tnames, at = gs, maybe = undecided,
             aka = short ~= name and {short} or nil}
        seen[name] = d
        kernels[#kernels + 1] = d
      elseif (d.maybe or undecided) and types_of(params) ~= types_of(d.params) then
        d.unsure = d.unsure or ("lines %d and %d"):format(line_of(src, d.at), line_of(src, gs))
      end
    end
    pos = ge + 1
  end
  namespace_aliases(s, kernels)
  local types = global_types(aliases)
  for _, d in ipairs(kernels) do
    if d.template and #types > 0 then d.types = types end
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

-- The words of C's integer types, in any order and number ("long unsigned int"), as the
-- dtype table spells them ("unsigned long"); other words as they are, without std::
local INTWORDS = {signed = true, unsigned = true, short = true, long = true, int = true, ["char"] = true}
local function canonical(words)
  local n, all = {}, #words > 0
  for _, w in ipairs(words) do
    if not INTWORDS[w] then all = false end
    n[w] = (n[w] or 0) + 1
  end
  if not all or (n.signed and n.unsigned) or (n.char and (n.int or n.short or n.long)) or
     (n.short and n.long) or (n.long or 0) > 2 then
    return (table.concat(words, " "):gsub("^std::", ""))
  end
  local sign = n.unsigned and "unsigned " or n.signed and n.char and "signed " or ""
  local t = n.char and "char" or n.short and "short" or n.long == 2 and "long long" or
            n.long and "long" or "int"
  return sign .. t
end

-- Are words a C type of its own words only (int, long double, wchar_t)? Not void.
local CWORDS = {signed = true, unsigned = true, short = true, long = true, int = true,
                ["char"] = true, float = true, double = true, bool = true, wchar_t = true,
                char8_t = true, char16_t = true, char32_t = true, __int128 = true}
local function builtin(words)
  for _, w in ipairs(words) do if not CWORDS[w] then return false end end
  return #words > 0
end

-- One parameter's text -> {kind = "scalar"|"pointer"|"array", dtype = , name = , ctype = }
-- or nil and why.
function param(text, subst)
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
    local ws = {}
    for w in t:gmatch("[%a_][%w_:]*") do if not ignored[w] then ws[#ws + 1] = w end end
    if not t:find("[<*]") then t = canonical(ws) end
    local pname = text:match("%b<>%s*([%a_][%w_]*)%s*$")
    local dt = ctypes[t]
    if not dt then return nil, "gpu::array of " .. t end
    return {kind = "array", dtype = dt, name = pname or "?", ctype = "gpu::array<" .. t .. ">"}
  end
  -- C's adjustment of an array parameter: T a[] and T a[N] are T *a; T a[][N] points to
  -- rows of T, which any C-ordered array of T can be
  local dims = 0
  text = text:gsub("%b[]", function() dims = dims + 1; return "" end)
  local words, stars = {}, dims > 0 and 1 or 0
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
  local base = canonical(words)
  if stars == 0 then
    local dt = ctypes[base]
    if not dt then return nil, base end
    return {kind = "scalar", dtype = dt, name = pname, ctype = base}
  elseif stars == 1 then
    -- a pointer to an element type we know must match the array's dtype; void* or a
    -- pointer to another type (float4*, a struct) takes any array, but not one to a C
    -- type no dtype is (long double*, wchar_t*)
    if not ctypes[base] and builtin(words) then return nil, base .. "*" end
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
    local types = {}   -- (a type alias in an argument, "k<I>", is its type)
    for _, a in ipairs(decl.types or {}) do
      local n, t = a:match("^(.-)=(.*)$")
      types[n] = t
    end
    for i, n in ipairs(decl.template) do
      subst[n] = targs[i] and (trim(targs[i]):gsub(":?:?([%a_][%w_:]*)", types))
    end
  end
  if decl.unsure then
    error(("kernel '%s' is declared with different parameters in #if branches that gpuhost "
           .. "cannot decide (%s), so its arguments cannot be checked: decide them with "
           .. "options = {\"-DNAME\"} or {\"-UNAME\"}, or give the declarations one parameter list")
          :format(display or decl.name, decl.unsure), 0)
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
