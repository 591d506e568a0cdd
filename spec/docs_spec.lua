-- The README is the reference: every public function and field of the gpu module, and every
-- method of its objects, is named in it; and every gpu.name and :method( it names exists.
-- (As luv's docs coverage script checks its docs against the module.)
local gpu = require("gpu")

local function slurp(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end
local readme = slurp("README.md")

-- Whether the README holds s as a whole name: not inside a longer identifier.
local function named(s)
  local from = 1
  while true do
    local a, b = readme:find(s, from, true)
    if not a then return false end
    local before = readme:sub(a - 1, a - 1)
    if not readme:sub(b + 1, b + 1):match("[%w_]") and
       (not s:match("^[%w_]") or not before:match("[%w_.:]")) then
      return true
    end
    from = b + 1
  end
end

-- The metatables of the module's objects, by name: those registered (gpu.array, gpu.stream,
-- gpu.nccl.comm, ...) and gpu.jit's, which lives in Lua.
local function object_types()
  local types = {}
  for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and name:match("^gpu%.") and type(mt) == "table" then
      types[name] = mt
    end
  end
  types["gpu.jit"] = getmetatable(gpu.jit(function() end))
  types["gpu.sparse"] = getmetatable(gpu.sparse.csr_matrix({1, 1}))
  types["gpu.sparse.linalg.LinearOperator"] = getmetatable(gpu.sparse.linalg.LinearOperator({1, 1}, print))
  return types
end

local function methods_of(mt)
  local m = rawget(mt, "methods")
  if m == nil and type(rawget(mt, "__index")) == "table" then m = mt.__index end
  local names = {}
  for k in pairs(m or {}) do
    if type(k) == "string" and not k:match("^_") then names[#names + 1] = k end
  end
  table.sort(names)
  return names
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    if type(k) == "string" and not k:match("^_") then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end

describe("the README", function()
  it("names every public function and field of gpu and of its sub-tables", function()
    local missing = {}
    local function walk(t, path, depth)
      for _, k in ipairs(sorted_keys(t)) do
        local full = path .. "." .. k
        -- in a table of names, a row may name a function of gpu by its name alone
        if not named(full) and not (depth == 0 and named("`" .. k)) then
          missing[#missing + 1] = full
        end
        local v = t[k]
        if type(v) == "table" and getmetatable(v) == nil and k ~= "dtypes" and depth < 2 then
          walk(v, full, depth + 1)
        end
      end
    end
    walk(gpu, "gpu", 0)
    assert.are.same({}, missing)
  end)

  it("names every method of the module's objects", function()
    local missing = {}
    for name, mt in pairs(object_types()) do
      for _, m in ipairs(methods_of(mt)) do
        if not (named(":" .. m) or named("." .. m) or named("`" .. m)) then
          missing[#missing + 1] = name .. ":" .. m
        end
      end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  -- Names the README uses that are not the host's gpu module: files (gpu.so), the
  -- intrinsics of gpu.jit's kernels (below), a placeholder and what the prompt completes.
  local not_module = {["gpu.so"] = true, ["gpu.h"] = true, ["gpu.c"] = true, ["gpu.lua"] = true,
                      ["gpu.f"] = true, ["gpu.lins"] = true}   -- (prefixes: tab completion)
  local function intrinsics()
    local function module(name, ...)
      return assert(load(gpu._embedded("lua/jit/" .. name .. ".lua"), "=" .. name, "bt"))(...)
    end
    local lex = module("lex")
    return module("intrinsics", module("types"), lex)
  end

  it("names only gpu functions and fields that exist", function()
    local intr = intrinsics()
    local types = object_types()
    local unknown, seen = {}, {}
    for tok in readme:gmatch("gpu%.[%a_][%w_.]*") do
      tok = tok:gsub("%.+$", "")
      local v = gpu
      for part in tok:gmatch("%.([^.]+)") do v = type(v) == "table" and v[part] or nil end
      local known = v ~= nil or not_module[tok] or types[tok] or intr.lookup(tok)
      if not known and not seen[tok] then
        seen[tok] = true
        unknown[#unknown + 1] = tok
      end
    end
    table.sort(unknown)
    assert.are.same({}, unknown)
  end)

  it("calls only methods that exist", function()
    local methods = {}
    for _, mt in pairs(object_types()) do
      for _, m in ipairs(methods_of(mt)) do methods[m] = true end
    end
    for k in pairs(string) do methods[k] = true end           -- ("%d"):format(...)
    for k in pairs(getmetatable(io.stdout).__index) do methods[k] = true end   -- f:read()
    -- named to say that gpuhost has none (see "Errors": a device is never reset)
    methods.reset = true
    local unknown, seen = {}, {}
    for m in readme:gmatch("[%w_%]%)]:([%a_][%w_]*)%(") do
      if not methods[m] and not seen[m] then
        seen[m] = true
        unknown[#unknown + 1] = ":" .. m
      end
    end
    table.sort(unknown)
    assert.are.same({}, unknown)
  end)

  it("has a table of contents that lists its sections in order", function()
    local toc = readme:match("\n## Contents\n(.-)\n## ")
    assert.is_not_nil(toc, "a section '## Contents' before the first section")
    local listed = {}
    for title in toc:gmatch("%[([^%]]+)%]%(#[^)]+%)") do listed[#listed + 1] = title end
    local sections = {}
    for level, title in readme:gmatch("\n(##+) ([^\n]+)") do
      if title ~= "Contents" and #level <= 3 then sections[#sections + 1] = title end
    end
    assert.are.same(sections, listed)
  end)

  it("ends with its figures", function()
    local last = nil
    for title in readme:gmatch("\n## ([^\n]+)") do last = title end
    assert.are.equal("Figures", last)
  end)
end)
