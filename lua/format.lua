-- format.lua: how arrays print: dtype, shape and the leading values (the last ones too
-- when there are many), e.g. gpu.array(float32, {3}) [1, 2, 3].
local M = {}

local HEAD, TAIL = 6, 3

local function value(v)
  if math.type(v) == "float" then
    if v ~= v then return "nan" end
    if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
    return ("%.6g"):format(v)
  end
  return tostring(v)
end

local function shape(s)
  local parts = {}
  for i, d in ipairs(s) do parts[i] = tostring(d) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

-- get(first, count) -> list of count values from 0-based flat index first
local function show(kind, a, get)
  local n, vals = a.size, {}
  if n <= HEAD + TAIL then
    for i, v in ipairs(get(0, n)) do vals[i] = value(v) end
  else
    for _, v in ipairs(get(0, HEAD)) do vals[#vals + 1] = value(v) end
    vals[#vals + 1] = "..."
    for _, v in ipairs(get(n - TAIL, TAIL)) do vals[#vals + 1] = value(v) end
  end
  return ("%s(%s, %s) [%s]"):format(kind, a.dtype, shape(a.shape), table.concat(vals, ", "))
end

function M.array(a)
  if not pcall(function() return a.size end) then return "gpu.array (freed)" end
  return show("gpu.array", a, function(first, count) return a:_peek(first, count) end)
end

function M.hostarray(h)
  if not pcall(function() return h.size end) then return "gpu.hostarray (freed)" end
  return show("gpu.hostarray", h, function(first, count)
    local t = {}
    for i = 1, count do t[i] = h[first + i] end
    return t
  end)
end

return M
