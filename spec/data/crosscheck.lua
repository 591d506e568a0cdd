-- crosscheck.lua: elementwise results as bytes, one "name<TAB>hex" line each, for
-- spec/crosscheck_spec.lua to compare between the backends (run with GPU_BACKEND=cpu and
-- GPU_BACKEND=cuda). Inputs are made here in Lua, the same on both.
local seed = 12345
local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648 return seed / 2147483648 end
local N = 512
local function values(kind)
  local t = {}
  local special = {0, -0.0, 1 / 0, -1 / 0, 0 / 0, 1e-40, -1e-45, 3.4e38, 1e300, -2.5, 0.5, 127.5,
                   -128.5, 255.9, 65535.5, 4294967296.5, -9.3e18, 1.9e19}
  for i = 1, N do
    if kind == "float" then
      t[i] = special[i] or (rnd() - 0.5) * 10 ^ math.floor(rnd() * 12 - 4)
    else
      t[i] = math.floor((rnd() - 0.5) * 2 ^ math.floor(rnd() * 40))
    end
  end
  return t
end
local function hex(s) return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end
local function out(name, a) print(name .. "\t" .. hex(a:tohost():bytes())) end

local F, G = values("float"), values("float")
local I, J = values("int"), values("int")
local DT = {"float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"}
local fa, fb = gpu.array(F, "float64"), gpu.array(G, "float64")
local ia, ib = gpu.array(I, "int64"), gpu.array(J, "int64")

-- conversions: every pair, from values that test the saturating rule
for _, from in ipairs(DT) do
  local src = (from == "float32" or from == "float64") and fa:astype(from) or ia:astype(from)
  for _, to in ipairs(DT) do out("astype " .. from .. " " .. to, src:astype(to)) end
end
-- + - * / and comparisons: bit for bit
for _, dt in ipairs({"float32", "float64"}) do
  local a, b = fa:astype(dt), fb:astype(dt)
  out(dt .. " +", a + b); out(dt .. " -", a - b); out(dt .. " *", a * b); out(dt .. " /", a / b)
  out(dt .. " * 2.5", a * 2.5); out(dt .. " lt", a:lt(b)); out(dt .. " eq", a:eq(b)); out(dt .. " ge", a:ge(b))
  out(dt .. " //", a // b); out(dt .. " %", a % b)
  out(dt .. " fused", gpu.fuse(function(x, y) return (x * y + x) / (y - 1.5) end)(a, b))
end
for _, dt in ipairs({"int8", "int32", "int64", "uint16", "uint64"}) do
  local a, b = ia:astype(dt), ib:astype(dt)
  out(dt .. " +", a + b); out(dt .. " *", a * b); out(dt .. " //", a // b); out(dt .. " %", a % b)
  out(dt .. " lt", a:lt(b)); out(dt .. " >>", a >> (b & 7)); out(dt .. " <<", a << (b & 7))
end
out("int64 lt uint64", ia:lt(ib:astype("uint64")))
-- math: compared within bounds
for _, name in ipairs({"sqrt", "exp", "log", "sin", "cos", "tan", "atan", "tanh", "exp2", "log2", "log1p", "expm1"}) do
  local x = gpu.abs(fa:astype("float32")) * 0.001
  out("math float32 " .. name, gpu[name](x))
  out("math float64 " .. name, gpu[name](gpu.abs(fa) * 0.001))
end
