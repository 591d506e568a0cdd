-- complete.lua: what Tab offers at gpuhost's prompt (host/complete.c asks). Given the word
-- before the cursor ("gpu.ra", "a:to", "pri"), the words that continue it: global names and
-- keywords, fields of tables (and of what their metatables' __index tables hold), and the
-- methods of gpuhost's values (their metatables' `methods`). Nothing is called: tables are
-- read with rawget, so completing never runs a metamethod. The functions it uses are taken
-- when it loads, as the state is made (host/complete.c's complete_prepare), before LUA_INIT,
-- -e, -l and the script run: their global `type = "float32"`, `next = 1` or own
-- getmetatable neither stops completion nor gets called by it.
local type, next, getmetatable, rawget, pairs, ipairs, G = type, next, getmetatable, rawget, pairs, ipairs, _G
local match, sub, gmatch, find, sort = string.match, string.sub, string.gmatch, string.find, table.sort
local keywords = {"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
                  "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
                  "true", "until", "while"}

-- Adds the string keys of t (and of its metatable's __index and methods tables, a few
-- levels up) that start with partial to set.
local function collect(t, partial, set, depth, only_functions)
  if depth > 4 then return end
  if type(t) == "table" then
    for k, v in next, t do
      if type(k) == "string" and match(k, "^[%a_][%w_]*$") and sub(k, 1, #partial) == partial
         and (not only_functions or type(v) == "function") then
        set[k] = true
      end
    end
  end
  local mt = getmetatable(t)
  if type(mt) == "table" then
    local methods, index = rawget(mt, "methods"), rawget(mt, "__index")
    if type(methods) == "table" then collect(methods, partial, set, depth + 1, only_functions) end
    if type(index) == "table" then collect(index, partial, set, depth + 1, only_functions) end
  end
end

-- The value a dotted path names ("gpu.random"), read without metamethods; nil if none.
local function resolve(path)
  local v = G
  for name in gmatch(path, "[^.:]+") do
    if type(v) == "table" then
      v = rawget(v, name)
    else
      local mt = getmetatable(v)
      local methods = type(mt) == "table" and rawget(mt, "methods")
      v = type(methods) == "table" and rawget(methods, name) or nil
    end
    if v == nil then return nil end
  end
  return v
end

return function(word)
  local set, prefix = {}, ""
  local path, sep, partial = match(word, "^([%a_][%w_.:]-)([.:])([%w_]*)$")
  if path and not find(path, "[.:]$") then
    local v = resolve(path)
    if v == nil then return {} end
    collect(v, partial, set, 0, sep == ":")
    prefix = path .. sep
  else
    partial = match(word, "^[%a_][%w_]*$") and word or nil
    if not partial then return {} end
    collect(G, partial, set, 0, false)
    for _, k in ipairs(keywords) do
      if sub(k, 1, #partial) == partial then set[k] = true end
    end
  end
  local list = {}
  for k in pairs(set) do list[#list + 1] = prefix .. k end
  sort(list)
  return list
end
