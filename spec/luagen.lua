-- luagen.lua: random Lua chunks from a small grammar, for fuzzing the launch rewriter
-- (spec/rewrite_spec.lua). Every chunk it makes is valid Lua 5.4 unless launches are asked
-- for: then some statements are launches in gpuhost's spelling, k[grid, block](...), which
-- plain Lua rejects. What makes the rewriter's life hard is in it on purpose: short strings
-- with every escape (\z over newlines, a backslash before a newline or CRLF), brackets,
-- commas and quotes inside strings and comments, long brackets of any level, nested
-- index brackets and table constructors with [k] = v.
local M = {}

local R   -- the random source: R(n) is 1..n, as math.random

local function pick(t) return t[R(#t)] end

-- text that may hold what the rewriter looks for, and Lua's own delimiters
local NOISE = {"k", "[", "]", ",", "{", "}", "(", ")", "-", "--", "=", " ", "\t", "x", "1",
               "'", '"', "[[", "]]", "[=[", "]=]", "\n"}

local function noise(n, except)
  local out = {}
  for i = 1, n do
    local s = pick(NOISE)
    if not except[s] then out[#out + 1] = s end
  end
  return table.concat(out)
end

-- A short string: quote q, then characters and escapes, any of which may be a newline
-- the string continues over.
local ESCAPES = {"\\n", "\\t", "\\\\", "\\'", '\\"', "\\x41", "\\065", "\\u{48}", "\\a",
                 "\\z", "\\z \n\t  ", "\\z\r\n", "\\\n", "\\\r\n", "\\\n\r", "\\\r"}
local function short_string()
  local q = R(2) == 1 and "'" or '"'
  local out = {q}
  for _ = 1, R(6) - 1 do
    if R(3) == 1 then out[#out + 1] = pick(ESCAPES)
    else out[#out + 1] = noise(R(4), {["'"] = true, ['"'] = true, ["\n"] = true}) end
  end
  out[#out + 1] = q
  return table.concat(out)
end

-- A long bracket of level 0 to 3 whose text cannot close it early.
local function long_bracket(prefix)
  local eq = ("="):rep(R(4) - 1)
  local close = "]" .. eq .. "]"
  local body
  repeat body = noise(R(12) - 1, {}) until (body .. close):find(close, 1, true) == #body + 1
  return prefix .. "[" .. eq .. "[" .. body .. close
end

local function comment()
  if R(2) == 1 then return "-- " .. noise(R(8) - 1, {["\n"] = true}) .. "\n" end
  return long_bracket("--") .. " "
end

-- Space between tokens: blanks, newlines, sometimes a comment.
local function sp()
  local r = R(10)
  if r == 1 then return comment() end
  if r <= 3 then return pick({"\n", "\r\n", "\t"}) end
  return " "
end

local NAMES = {"a", "b", "t", "k", "x", "f", "g"}
local expr

local function prefix_expr(depth)
  local r = R(depth > 0 and 5 or 1)
  if r == 1 then return pick(NAMES) end
  if r == 2 then return pick(NAMES) .. sp() .. "[" .. sp() .. expr(depth - 1) .. sp() .. "]" end
  if r == 3 then return pick(NAMES) .. "." .. pick(NAMES) end
  if r == 4 then return "f(" .. expr(depth - 1) .. "," .. sp() .. expr(depth - 1) .. ")" end
  return "(" .. expr(depth - 1) .. ")"
end

local function table_constructor(depth)
  local fields = {}
  for i = 1, R(4) - 1 do
    local r = R(3)
    if r == 1 then fields[i] = expr(depth - 1)
    elseif r == 2 then fields[i] = "[" .. sp() .. expr(depth - 1) .. sp() .. "]" .. sp() .. "=" .. sp() .. expr(depth - 1)
    else fields[i] = pick(NAMES) .. " = " .. expr(depth - 1) end
  end
  return "{" .. table.concat(fields, pick({",", ";", ", "})) .. "}"
end

function expr(depth)
  local r = R(depth > 0 and 10 or 4)
  if r == 1 then return pick({"1", "0x1F", "2.5", "1e3", "nil", "true", "...", "-3"}) end
  if r == 2 then return short_string() end
  if r == 3 then return long_bracket("") end
  if r == 4 then return prefix_expr(0) end
  if r == 5 then return prefix_expr(depth) end
  if r == 6 then return table_constructor(depth) end
  if r == 7 then return expr(depth - 1) .. sp() .. pick({"+", "..", "==", "and", "or", "//", "<<"}) .. sp() .. expr(depth - 1) end
  if r == 8 then return pick({"- ", "not ", "#", "~ "}) .. expr(depth - 1) end
  if r == 9 then return "function(...)" .. sp() .. "return " .. expr(depth - 1) .. sp() .. "end" end
  return "(" .. expr(depth - 1) .. ")[ " .. expr(depth - 1) .. " ]"
end

-- What an assignment may assign to.
local function var(depth)
  local r = R(3)
  if r == 1 then return pick(NAMES) end
  if r == 2 then return pick(NAMES) .. "." .. pick(NAMES) end
  return prefix_expr(0) .. sp() .. "[" .. sp() .. expr(depth) .. sp() .. "]"
end

local function launch(depth)
  local cfg = expr(depth) .. "," .. sp() .. expr(depth)
  if R(3) == 1 then cfg = cfg .. ", shared = " .. expr(0) end
  return "k[" .. sp() .. cfg .. sp() .. "](" .. expr(depth) .. ")"
end

local function statement(depth, launches)
  local r = R(depth > 0 and 8 or 5)
  if launches and R(4) == 1 then return launch(depth), 1 end
  if r == 1 then return "local " .. pick(NAMES) .. " = " .. expr(depth), 0 end
  if r == 2 then return var(depth) .. sp() .. "=" .. sp() .. expr(depth), 0 end
  if r == 3 then return "f(" .. expr(depth) .. ")", 0 end
  if r == 4 then return "g" .. sp() .. short_string(), 0 end
  if r == 5 then return comment(), 0 end
  local body, n = M.block(depth - 1, launches)
  if r == 6 then return "do" .. sp() .. body .. sp() .. "end", n end
  if r == 7 then return "if " .. expr(depth - 1) .. " then" .. sp() .. body .. sp() .. "end", n end
  return "for i = 1, 2 do" .. sp() .. body .. sp() .. "end", n
end

-- A block of statements; with launches, also how many launches it holds.
function M.block(depth, launches)
  local out, count = {}, 0
  for i = 1, R(4) do
    local s, n = statement(depth, launches)
    out[i] = s
    count = count + n
  end
  return table.concat(out, pick({"\n", ";", " ", "\r\n"})), count
end

-- A chunk from seed; launches = true puts launches in it. Returns the text and the number
-- of launches.
function M.chunk(seed, launches)
  local state = seed
  R = function(n)   -- a small LCG of our own, so a seed means the same chunk everywhere
    state = (state * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
    return (state >> 33) % n + 1
  end
  local body, n = M.block(3, launches)
  return body .. "\nreturn " .. expr(1) .. "\n", n
end

return M
