-- lex.lua: the tokens of Lua 5.4 source, for gpu.jit's parser. A token list is three
-- parallel arrays (kind, value, line): kind is "name", "number", "string", "eof", a keyword
-- or an operator; value is the name, the number (as Lua's own lexer reads it: tonumber) or
-- the string literal's text with its quotes (decoded when needed); pos has where each token
-- starts. Lexing may start at any line, since gpu.jit reads only its function's lines.
local M = {}

local keywords = {}
for w in ([[and break do else elseif end false for function goto if in local nil not or
            repeat return then true until while]]):gmatch("%a+") do keywords[w] = true end
M.keywords = keywords

local three = {["..."] = true}
local two = {["=="] = true, ["~="] = true, ["<="] = true, [">="] = true, ["<<"] = true,
             [">>"] = true, ["//"] = true, ["::"] = true, [".."] = true}
local one = {}
for c in ("+-*/%^#&~|<>=(){}[];:,."):gmatch(".") do one[c] = true end

local byte, find, sub = string.byte, string.find, string.sub
local B_NL, B_CR, B_DASH, B_LBRACKET, B_QUOTE, B_APOS, B_BACKSLASH, B_DOT =
  byte("\n"), byte("\r"), byte("-"), byte("["), byte('"'), byte("'"), byte("\\"), byte(".")

-- The position after the line end at p (\n, \r, \r\n or \n\r: one line each, as Lua's
-- lexer counts them)
local function past_line_end(s, p)
  local c, d = byte(s, p), byte(s, p + 1)
  return (d == B_NL or d == B_CR) and d ~= c and p + 2 or p + 1
end

local function count_lines(s, i, j)
  local n = 0
  local p = find(s, "[\n\r]", i)
  while p and p <= j do n = n + 1; p = find(s, "[\n\r]", past_line_end(s, p)) end
  return n
end

-- A long bracket at i ("[[", "[==["): the position after it ends, or nil when i starts none.
local function long_bracket(s, i)
  local eq = s:match("^%[(=*)%[", i)
  if not eq then return nil end
  local _, e = find(s, "]" .. eq .. "]", i + #eq + 2, true)
  return e and e + 1 or false
end

-- lex(src, pos, line, last): tokens of src from byte pos (default 1), which is on line
-- `line`, up to line `last` (default: the end). Raises {line =, msg =} on a malformed token.
function M.lex(src, pos, line, last)
  local kind, value, lines, at = {}, {}, {}, {}
  local n, i, len = 0, pos or 1, #src
  line = line or 1
  local function bad(msg) error({line = line, msg = msg}, 0) end
  while true do
    -- white space and comments
    while true do
      local s, e = find(src, "^[ \t\f\v]+", i)
      if s then i = e + 1 end
      local c = byte(src, i)
      if c == B_NL or c == B_CR then
        line, i = line + 1, past_line_end(src, i)
      elseif c == B_DASH and byte(src, i + 1) == B_DASH then
        local after = nil
        if byte(src, i + 2) == B_LBRACKET then after = long_bracket(src, i + 2) end
        if after == false then bad("unfinished long comment") end
        if after then
          line = line + count_lines(src, i, after - 1)
          i = after
        else
          i = (find(src, "[\n\r]", i) or len + 1)
        end
      else
        break
      end
    end
    n = n + 1
    lines[n], at[n] = line, i
    if i > len or (last and line > last) then kind[n] = "eof"; break end
    local c = byte(src, i)
    local s, e = find(src, "^[%a_][%w_]*", i)
    if s then
      local w = sub(src, s, e)
      if keywords[w] then kind[n] = w else kind[n], value[n] = "name", w end
      i = e + 1
    elseif find(src, "^%d", i) or (c == B_DOT and find(src, "^%.%d", i)) then
      local hex = find(src, "^0[xX]", i)
      local expo = hex and "[Pp]" or "[Ee]"
      local j = hex and i + 2 or i
      while j <= len do
        local ch = sub(src, j, j)
        if ch:find(expo) then
          j = j + 1
          if find(src, "^[+-]", j) then j = j + 1 end
        elseif ch:find("[%x%.]") then
          j = j + 1
        else
          break
        end
      end
      if find(src, "^[%a_]", j) then bad("malformed number near '" .. sub(src, i, j) .. "'") end
      local text = sub(src, i, j - 1)
      local v = tonumber(text)
      if not v then bad("malformed number near '" .. text .. "'") end
      kind[n], value[n] = "number", v
      i = j
    elseif c == B_QUOTE or c == B_APOS then
      local j = i + 1
      while true do
        local ch = byte(src, j)
        if ch == nil or ch == B_NL or ch == B_CR then bad("unfinished string") end
        if ch == B_BACKSLASH then
          if find(src, "^z", j + 1) then
            local _, ze = find(src, "^z%s*", j + 1)
            line = line + count_lines(src, j, ze)
            j = ze + 1
          else
            local nl = byte(src, j + 1)
            if nl == B_NL or nl == B_CR then line, j = line + 1, past_line_end(src, j + 1)
            else j = j + 2 end
          end
        elseif ch == c then
          break
        else
          j = j + 1
        end
      end
      kind[n], value[n] = "string", sub(src, i, j)
      i = j + 1
    elseif c == B_LBRACKET and find(src, "^%[=*%[", i) then
      local after = long_bracket(src, i)
      if not after then bad("unfinished long string") end
      kind[n], value[n] = "string", sub(src, i, after - 1)
      line = line + count_lines(src, i, after - 1)
      i = after
    else
      local op = sub(src, i, i + 2)
      if three[op] then
        i = i + 3
      else
        op = sub(src, i, i + 1)
        if two[op] then
          i = i + 2
        else
          op = sub(src, i, i)
          if not one[op] then bad("unexpected symbol near '" .. op .. "'") end
          i = i + 1
        end
      end
      kind[n] = op
    end
  end
  return {kind = kind, value = value, line = lines, pos = at, n = n}
end

-- The value of a string token (its text with quotes), as Lua reads it.
function M.string_value(text)
  return assert(load("return " .. text, "=string", "t", {}))()
end

return M
