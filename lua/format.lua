-- format.lua: how arrays print (tostring, and so the prompt), as NumPy's do:
--   gpu.array(float32, {3}) [1, 2, 3]            0-D and 1-D: one line, the leading and
--   gpu.array(int32, {20}) [0, 1, ..., 19]        the last values past HEAD + TAIL
--   gpu.array(float32, {2, 3})                   2-D and up: rows, the values aligned;
--   [[1, 2, 3],                                   past THRESHOLD elements the first and
--    [4, 5, 6]]                                   last EDGE along each dimension
-- The values come through views (a[{...}]:totable()), so a device array is read with at
-- most one copy per corner of what is shown.
local M = {}

local HEAD, TAIL = 6, 3
local THRESHOLD, EDGE = 1000, 3

-- A float with the fewest significant digits (6 at least, as %.6g has always shown them;
-- up to 9 for float32, 17 for float64) that read back as the same value in its dtype, as
-- NumPy shows the shortest repr: distinct values never look equal.
local function unpack_f(s) return (string.unpack("f", s)) end
local function float_text(v, single)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  local most = single and 9 or 17
  local s, p = nil, 6
  while true do
    s = ("%." .. p .. "g"):format(v)
    local back = tonumber(s) + 0.0
    if single then back = unpack_f(string.pack("f", back)) end
    if back == v or p == most then break end
    p = p + 1
  end
  local x = tonumber(s:match("e%+(%d+)$"))
  if p > 6 and x and x < most then          -- past 6 digits, a whole number shows all of them
    s = ("%." .. (x + 1) .. "g"):format(v)  -- (16777220, not 1.677722e+07)
  end
  return s
end

-- A uint64 element (a Lua integer holding its 64 bits) in decimal.
local function unsigned_text(v)
  if v >= 0 then return tostring(v) end
  local q = (v >> 1) // 5                  -- the unsigned value // 10
  return tostring(q) .. tostring(v - q * 10)
end

-- The function that writes one element of an array of dtype dt.
local function formatter(dt)
  local single = dt == "float32" or dt == "complex64"
  local cache = {}
  local function part(x, sign)
    local t = float_text(x, single)
    if sign and t:sub(1, 1) ~= "-" then t = "+" .. t end
    return t
  end
  return function(v)
    local t = cache[v]
    if t then return t end
    if math.type(v) == "float" then t = float_text(v, single)
    elseif dt == "uint64" and math.type(v) == "integer" then t = unsigned_text(v)
    elseif type(v) == "userdata" and (dt == "complex64" or dt == "complex128") then
      t = part(v.re) .. part(v.im, true) .. "j"     -- as gpu.complex's tostring, every digit needed
    else t = tostring(v) end
    if v ~= 0 and v == v and type(v) ~= "userdata" then cache[v] = t end   -- -0.0 and 0 share a key
    return t
  end
end

local function shape_text(s)
  local parts = {}
  for i, d in ipairs(s) do parts[i] = tostring(d) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local function line(a, n, value)
  local vals = {}
  if n <= HEAD + TAIL then
    for i, v in ipairs(n > 0 and a:totable() or {}) do vals[i] = value(v) end
  else
    for _, v in ipairs(a[{{1, HEAD}}]:totable()) do vals[#vals + 1] = value(v) end
    vals[#vals + 1] = "..."
    for _, v in ipairs(a[{{n - TAIL + 1, n}}]:totable()) do vals[#vals + 1] = value(v) end
  end
  return "[" .. table.concat(vals, ", ") .. "]"
end

-- The positions shown along each dimension, and the values there as a nested table
-- indexed by position.
local function shown(a, shape)
  local summarize = a.size > THRESHOLD
  local pos, runs = {}, {}
  for d, n in ipairs(shape) do
    pos[d], runs[d] = {}, {}
    if summarize and n > 2 * EDGE then
      for i = 1, EDGE do pos[d][i] = i; pos[d][EDGE + i] = n - EDGE + i end
      runs[d] = {{1, EDGE, 0}, {n - EDGE + 1, n, EDGE}}
    else
      for i = 1, n do pos[d][i] = i end
      runs[d] = {{1, n, 0}}
    end
  end
  if not summarize then return pos, a:totable() end
  local vals, ndim = {}, #shape
  local function put(t, block, d, at)
    for i, x in ipairs(block) do
      local k = at[d] + i
      if d == ndim then t[k] = x
      else
        t[k] = t[k] or {}
        put(t[k], x, d + 1, at)
      end
    end
  end
  local pick = {}
  local function corners(d)
    if d > ndim then
      local key, at = {}, {}
      for k = 1, ndim do key[k] = {pick[k][1], pick[k][2]}; at[k] = pick[k][3] end
      put(vals, a[key]:totable(), 1, at)
      return
    end
    for _, r in ipairs(runs[d]) do pick[d] = r; corners(d + 1) end
  end
  corners(1)
  return pos, vals
end

local function rows(a, shape, value)
  local pos, vals = shown(a, shape)
  local ndim, width = #shape, 0
  local function measure(t, d)
    for _, x in ipairs(t) do
      if d == ndim then width = math.max(width, #value(x)) else measure(x, d + 1) end
    end
  end
  measure(vals, 1)
  local function text(t, d, indent)
    local parts, n, p = {}, shape[d], pos[d]
    for i, x in ipairs(t) do
      if i > 1 and p[i] ~= p[i - 1] + 1 then parts[#parts + 1] = "..." end
      if d == ndim then parts[#parts + 1] = (" "):rep(width - #value(x)) .. value(x)
      else parts[#parts + 1] = text(x, d + 1, indent .. " ") end
    end
    if n == 0 then return "[]" end
    local sep = d == ndim and ", " or ",\n" .. ("\n"):rep(ndim - d - 1) .. indent .. " "
    return "[" .. table.concat(parts, sep) .. "]"
  end
  return text(vals, 1, "")
end

local function show(kind, a)
  local shape, n = a.shape, a.size
  local head = ("%s(%s, %s)"):format(kind, a.dtype, shape_text(shape))
  local value = formatter(a.dtype)
  if #shape == 0 then return head .. " " .. value(a:item()) end
  if #shape == 1 then return head .. " " .. line(a, n, value) end
  if n == 0 then return head .. "\n[]" end   -- as NumPy: a dim of 2^40 rows of nothing is no 2^40 lines
  return head .. "\n" .. rows(a, shape, value)
end

function M.array(a)
  if not pcall(function() return a.size end) then return "gpu.array (freed)" end
  return show("gpu.array", a)
end

function M.hostarray(h)
  if not pcall(function() return h.size end) then return "gpu.hostarray (freed)" end
  return show("gpu.hostarray", h)
end

return M
