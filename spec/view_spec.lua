-- Views of device and host arrays: 1-based slicing a[{ {first, last, step}, {}, i }] and the
-- view methods, checked against the same selections made on nested Lua tables; strides,
-- offsets, lifetimes, assignment into views, kernels reading views, and the bad inputs.
local S = require("spec.support")

-- The reference: a key applied to a nested table, as the README defines it.
local function ref(node, key, k)
  k = k or 1
  local e = key[k]
  if e == nil then return node end
  local n = #node
  if type(e) == "number" then return ref(node[e < 0 and n + e + 1 or e], key, k + 1) end
  local f, l, s
  if #e == 0 then f, l, s = 1, n, 1
  elseif #e == 1 then f, l, s = e[1], e[1], 1
  else f, l, s = e[1], e[2], e[3] or 1 end
  if s < 0 and #e == 0 then f, l = n, 1 end
  if f < 0 then f = n + f + 1 end
  if l < 0 then l = n + l + 1 end
  local out = {}
  for i = f, l, s do out[#out + 1] = ref(node[i], key, k + 1) end
  return out
end

local function cube()   -- 2 x 3 x 4, element (i, j, k) = 100 i + 10 j + k
  local t = {}
  for i = 1, 2 do
    t[i] = {}
    for j = 1, 3 do
      t[i][j] = {}
      for k = 1, 4 do t[i][j][k] = 100 * i + 10 * j + k end
    end
  end
  return t
end

local function keytext(key)
  local parts = {}
  for i, e in ipairs(key) do
    parts[i] = type(e) == "number" and tostring(e) or "{" .. table.concat(e, ", ") .. "}"
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local KEYS = {
  {1}, {-1}, {{}}, {{2}}, {{}, 2}, {{}, {}, 3}, {2, 3, 4}, {{}, {2, 3}}, {{}, {1, 3, 2}},
  {{}, {3, 1, -1}}, {{}, {}, {4, 1, -2}}, {-1, {-2, -1}, {2, -1}}, {{1, 2}, -3, {}},
  {{2, 1, -1}, {}, {1, 4, 3}}, {{}, {2, 1}},   -- the last: an empty range
}

describe("views", function()
  local t = cube()
  local a = gpu.array(t, "float32")
  local h = gpu.host.array(t, "int32")

  it("select what the same key selects from a nested table, on the device and the host", function()
    for _, key in ipairs(KEYS) do
      local want = ref(t, key)
      local name = keytext(key)
      local v, hv = a[key], h[key]
      if type(want) == "number" then
        assert.are.same({}, v.shape)
        assert.are.equal(want, v:item())
        assert.are.equal(want, hv)                      -- a host element is its value
      else
        assert.are.same(want, v:totable(), name)
        assert.are.same(want, hv:totable(), name)
        assert.are.same(want, v:contiguous():totable(), name)
      end
    end
  end)

  it("share memory with their owner and say how: strides, offset, base", function()
    local v = a[{2, {}, {2, 4, 2}}]
    assert.are.same({3, 2}, v.shape)
    assert.are.same({4, 2}, v.strides)
    assert.are.equal(13, v.offset)
    assert.are.equal(a, v.base)
    assert.is_nil(a.base)
    assert.are.same({12, 4, 1}, a.strides)
    assert.is_false(v:is_contiguous())
    assert.is_true(a[{2}]:is_contiguous())
    local m = gpu.zeros({2, 3})
    m[{1, 2}] = 5
    assert.are.same({{0, 5, 0}, {0, 0, 0}}, m:totable())
    local w = m[{{}, {2, 3}}][{2}]            -- a view of a view: the same owner
    assert.are.equal(m, w.base)
    w:fill(7)
    assert.are.same({{0, 5, 0}, {0, 7, 7}}, m:totable())
  end)

  it("narrow, select, transpose, squeeze, unsqueeze, expand, flatten", function()
    assert.are.same(ref(t, {{}, {2, 3}}), a:narrow(2, 2, 2):totable())
    assert.are.same(ref(t, {{}, {}, 4}), a:select(3, 4):totable())
    assert.are.same(ref(t, {{}, -1}), a:select(-2, 3):totable())
    local m = gpu.array({{1, 2, 3}, {4, 5, 6}})
    assert.are.same({{1, 4}, {2, 5}, {3, 6}}, m.T:totable())
    assert.are.same({{1, 4}, {2, 5}, {3, 6}}, m:transpose():totable())
    assert.are.same({{1, 4}, {2, 5}, {3, 6}}, m:transpose(1, 2):totable())
    local p = a:transpose({3, 1, 2})
    assert.are.same({4, 2, 3}, p.shape)
    assert.are.equal(a:item(2, 3, 1), p:item(1, 2, 3))
    assert.are.same({2, 1, 3}, m:unsqueeze(2).shape)
    assert.are.same({2, 3, 1}, m:unsqueeze(-1).shape)
    assert.are.same({3}, gpu.zeros({1, 3, 1}):squeeze().shape)
    assert.are.same({3, 1}, gpu.zeros({1, 3, 1}):squeeze(1).shape)
    -- dims as a table, as gpu.squeeze takes them (the method refused one)
    assert.are.same({3}, gpu.zeros({1, 3, 1}):squeeze({1, -1}).shape)
    assert.are.same({3}, gpu.host.zeros({1, 3, 1}):squeeze({3, 1}).shape)
    assert.matches("squeeze: dimension 1 is named twice", S.errof(function() return gpu.zeros({1, 3}):squeeze({1, 1}) end), 1, true)
    assert.matches("cannot squeeze dimension 2 of size 3", S.errof(function() return gpu.zeros({1, 3}):squeeze({2}) end), 1, true)
    -- (a numeric string was taken as the dim; then refused as 'dims[1] is not a dimension (1 to 2)', as if 1 were not one)
    assert.matches('squeeze: dims[1] must be an integer, got a string ("1")', S.errof(function() return gpu.zeros({1, 3}):squeeze({"1"}) end), 1, true)
    assert.matches("squeeze: dims[2] must be an integer, got 1.5", S.errof(function() return gpu.zeros({1, 3}):squeeze({1, 1.5}) end), 1, true)
    assert.matches("squeeze: dims[1] is not a dimension (1 to 2)", S.errof(function() return gpu.zeros({1, 3}):squeeze({3}) end), 1, true)
    local e = gpu.array({{1}, {2}}):expand(3, 2, 4)
    assert.are.same({3, 2, 4}, e.shape)
    assert.are.same({0, 1, 0}, e.strides)
    assert.are.same({{2, 2, 2, 2}}, e[{3, {2}}]:totable())
    assert.are.same({2, 3}, gpu.zeros({2, 1}):expand({-1, 3}).shape)
    assert.are.same({1, 4, 2, 5, 3, 6}, m.T:flatten():totable())
    assert.are.same({6}, m:flatten().shape)
    assert.are.equal(m, m:flatten().base)                     -- C order: a view
  end)

  it("reshape: a view when the strides allow, else a copy", function()
    local r = a:reshape(6, 4)
    assert.are.equal(a, r.base)
    assert.are.same(ref(t, {2, 3}), r[{6}]:totable())
    assert.are.same({4, 3, 2}, a:reshape({4, -1, 2}).shape)
    local s = a[{{}, {}, {1, 4, 2}}]:reshape(12)                 -- strided, still a view
    assert.are.equal(a, s.base)
    assert.are.same({111, 113, 121, 123, 131, 133, 211, 213, 221, 223, 231, 233}, s:totable())
    local c = a:transpose({3, 2, 1}):reshape(24)                 -- needs a copy
    assert.are_not.equal(a, c.base)
    assert.are.same(121, c:item(3))                            -- (1, 2, 1) of the transpose
    assert.are.same({{1, 2}, {3, 4}}, gpu.array({1, 2, 3, 4}):reshape(2, 2):totable())
    assert.are.same({{111, 112}, {113, 114}}, h[{1, 1}]:reshape(2, 2):totable())
  end)

  it("assign arrays (broadcast), numbers, host arrays and tables into views", function()
    local m = gpu.zeros({3, 4}, "int32")
    m[{{}, 2}] = 5
    m[{3}] = gpu.array({1, 2, 3, 4}, "int32")
    m[{{1, 2}, {3, 4}}] = gpu.array({{-1}, {-2}}, "float64")      -- broadcast and convert
    m[{1, 1}] = gpu.host.array({9}, "int32"):reshape()            -- a 0-d host array
    m[{2, {}}] = {6, 7, 8, 9}
    assert.are.same({{9, 5, -1, -1}, {6, 7, 8, 9}, {1, 2, 3, 4}}, m:totable())
    local hm = gpu.host.zeros({2, 3}, "float64")
    hm[{{}, {2, 3}}] = 1.5
    hm[{2}] = m[{3, {1, 3}}]
    hm[{1, 1}] = -1
    assert.are.same({{-1, 1.5, 1.5}, {1, 2, 3}}, hm:totable())
    hm[{}] = gpu.host.array({7, 8, 9}, "int8")                   -- broadcast over rows
    assert.are.same({{7, 8, 9}, {7, 8, 9}}, hm:totable())
    -- a value's leading sizes of 1 past the view's dimensions are dropped, as NumPy's
    m[{2}] = gpu.array({{{4, 3, 2, 1}}}, "int32")
    m[{1, 1}] = gpu.array({0}, "int32")
    hm[{1}] = gpu.host.array({{1, 2, 3}}, "float64")
    assert.are.same({{0, 5, -1, -1}, {4, 3, 2, 1}, {1, 2, 3, 4}}, m:totable())
    assert.are.same({{1, 2, 3}, {7, 8, 9}}, hm:totable())
    assert.matches("cannot assign an array of shape {2, 1, 3} to a view of shape {3} (it does not broadcast to it)",
                   S.errof(function() hm[{1}] = gpu.host.zeros({2, 1, 3}) end), 1, true)
  end)

  it("store a Lua value by one rule on the device and the host, naming the assignment", function()
    -- true is 1 (NumPy's), into any dtype, by every route; uint64 takes any integer's bits
    for _, dt in ipairs({"int8", "int32", "uint64", "float16", "float32", "complex64"}) do
      local d, h, m = gpu.zeros(3, dt), gpu.host.zeros(3, dt), gpu.zeros(3, dt)
      d[{{1, 2}}] = true
      h[{{1, 2}}] = true
      m[m:eq(0)] = true
      assert.are.same({1, 1, 0}, gpu.real(d):astype("int64"):totable(), dt)
      assert.are.same({1, 1, 0}, gpu.real(gpu.array(h)):astype("int64"):totable(), dt)
      assert.are.same({1, 1, 1}, gpu.real(m):astype("int64"):totable(), dt)
      assert.are.same({1, 1}, gpu.real(gpu.full(2, true, dt)):astype("int64"):totable(), dt)
      assert.are.same({0, 0}, gpu.real(gpu.full(2, false, dt)):astype("int64"):totable(), dt)
    end
    assert.are.equal("bool", gpu.array({{true}, {false}}).dtype)   -- booleans alone: bool, as NumPy's
    assert.are.equal("bool", gpu.host.array({true, false}).dtype)
    assert.are.same({1, 2}, gpu.array({true, 2}):totable())     -- mixed: the default, float32
    local u = gpu.zeros(2, "uint64")
    u[{1}] = -1
    u[{2}]:fill(-2)
    assert.are.same({-1, -2}, u:tohost():totable())   -- (Lua integers show uint64's bits)
    local a = gpu.zeros(4, "int32")
    for _, f in ipairs({function() a[{}] = 2.5 end, function() a[{2}] = 0 / 0 end}) do
      assert.matches("a%[key%] = v: cannot store [%w.]+ in a int32 array: not an integer", S.errof(f))
    end
    assert.matches("a:fill: cannot store 300 in a int8 array: out of range", S.errof(gpu.zeros(2, "int8").fill, gpu.zeros(2, "int8"), 300), 1, true)
    assert.matches("cannot assign an array of shape {3} to a view of shape {4}", S.errof(function() a[{}] = {1, 2, 3} end), 1, true)
    a[{}] = {{1, 2, 3, 4}}   -- a table as an array: its leading 1 dropped, as NumPy's
    assert.are.same({1, 2, 3, 4}, a:totable())
    assert.matches("a[key] = v: cannot assign a string to an array", S.errof(function() a[{}] = "x" end), 1, true)
    local e = gpu.zeros({1, 3}):expand(2, 3)
    assert.matches("a[key] = v: cannot write into an expanded view", S.errof(function() e[{1}] = 1 end), 1, true)
    assert.matches("a[mask] = v: cannot write into an expanded view", S.errof(function() e[e:eq(0)] = 1 end), 1, true)
    assert.matches("a:fill: cannot write into an expanded view", S.errof(e.fill, e, 1), 1, true)
  end)

  it("take {first, nil, step} to the end, and refuse an empty range's ends past the dimension", function()
    local a = gpu.arange(6, "int32")
    assert.are.same({1, 3, 5}, a[{{2, nil, 2}}]:totable())
    assert.are.same({4, 3, 2, 1, 0}, a[{{5, nil, -1}}]:totable())
    assert.are.same({5, 3, 1}, a[{{nil, nil, -2}}]:totable())
    assert.are.same({0, 1, 2}, a[{{nil, 3}}]:totable())
    assert.are.same({1}, a[{{2}}]:totable())
    assert.are.same({1}, a[{{2, nil}}]:totable())   -- a list of length 1, as the README warns
    assert.are.same({1, 2, 3, 4, 5}, a[{{2, -1}}]:totable())
    for _, r in ipairs({{7, 6}, {1, 0}, {2, 1}, {1, -7}, {0, 1, -1}, {6, 7, -1}, {-7, 1, -1}}) do
      assert.are.equal(0, a[{r}].size)
    end
    for _, c in ipairs({{{20, 5}, 20}, {{0, -20}, 0}, {{7, 7}, 7}, {{0, 0}, 0}, {{7, 1, -1}, 7}, {{1, 8, -1}, 8}}) do
      assert.matches("index " .. c[2] .. " out of range for dimension 1 of size 6", S.errof(function() return a[{c[1]}] end), 1, true)
    end
    assert.are.equal(0, gpu.zeros(0)[{{1, 0}}].size)
  end)

  it("take a 0-D mask as NumPy's a[True]: one more dimension, of size 1 or 0", function()
    local a = gpu.arange(6, "int32"):reshape(2, 3)
    assert.are.same({{{0, 1, 2}, {3, 4, 5}}}, a[gpu.full({}, true, "bool")]:totable())
    assert.are.same({0, 2, 3}, a[gpu.full({}, false, "bool")].shape)
  end)

  it("copy overlapping C-ordered views of one array as if through a copy (cuMemcpy promises no order)", function()
    for _, shift in ipairs({1, 3, 1000, -1, -7, -1000}) do
      local n = 1 << 16
      local a = gpu.arange(n, "int32")
      local lo, hi = math.max(1, 1 - shift), math.min(n, n - shift)
      gpu.copy(a[{{lo + shift, hi + shift}}], a[{{lo, hi}}])
      local want = gpu.arange(n, "int32")
      want[{{lo + shift, hi + shift}}] = gpu.arange(lo - 1, hi, 1, "int32")
      assert.is_true(gpu.array_equal(want, a), tostring(shift))
      local b = gpu.arange(n, "float32")
      b[{{lo + shift, hi + shift}}]:copy_(b[{{lo, hi}}])
      assert.is_true(gpu.array_equal(want:astype("float32"), b), tostring(shift))
    end
  end)

  it("copy first when a view assigned into overlaps its source", function()
    local m = gpu.array({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
    m[{}] = m.T
    assert.are.same({{1, 4, 7}, {2, 5, 8}, {3, 6, 9}}, m:totable())
    local v = gpu.arange(6, "int32")
    v[{{2, 6}}] = v[{{1, 5}}]
    assert.are.same({0, 0, 1, 2, 3, 4}, v:totable())
    gpu.add(m, m.T, {out = m})
    assert.are.same({{2, 6, 10}, {6, 10, 14}, {10, 14, 18}}, m:totable())
    -- host arrays too: assignment, copy_ and gpu.copy (they read what they had written)
    for _, put in ipairs({function(h) h[{}] = h.T end, function(h) h:copy_(h.T) end,
                          function(h) gpu.copy(h, h.T) end}) do
      local h = gpu.host.array({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, "int32")
      put(h)
      assert.are.same({{1, 4, 7}, {2, 5, 8}, {3, 6, 9}}, h:totable())
    end
    local h = gpu.host.array({1, 2, 3, 4, 5, 6})
    h[{{-1, 1, -1}}] = h
    assert.are.same({6, 5, 4, 3, 2, 1}, h:totable())
  end)

  it("keep their owner's memory alive, and an owner with live views is not freed", function()
    local v
    do
      local owner = gpu.arange(10, "int32")
      v = owner[{{4, 6}}]
    end
    collectgarbage()
    collectgarbage()
    assert.are.same({3, 4, 5}, v:totable())
    local owner = v.base
    assert.matches("cannot free an array while 1 view of it is alive: free the views first",
                   S.errof(owner.free, owner), 1, true)
    v:free()
    assert.matches("attempt to use a freed array", S.errof(v.totable, v), 1, true)
    owner:free()
    local h = gpu.host.zeros(4)
    local hv = h[{{2, 3}}]
    assert.matches("cannot free an array while 1 view of it is alive", S.errof(h.free, h), 1, true)
    hv = nil
    h:free()     -- the dropped view is collected first
    assert.is_nil(hv)
  end)

  it("read one element with item (a copy from the device)", function()
    assert.are.equal(234, a:item(2, 3, 4))
    assert.are.equal(111, a:item(1, 1, 1))
    assert.are.equal(234, a:item(-1, -1, -1))
    assert.are.equal(5, gpu.array({5}):item())
    assert.are.equal(221, h:item(2, 2, 1))
    assert.matches("item: an array of 24 elements needs one index per dimension (3)", S.errof(a.item, a), 1, true)
    assert.matches("item: 2 indices for an array of 3 dimensions", S.errof(a.item, a, 1, 1), 1, true)
    assert.matches("index 5 out of range for dimension 3 of size 4", S.errof(a.item, a, 1, 1, 5), 1, true)
  end)

  it("refuse keys and arguments that do not fit", function()
    assert.matches("too many indices (4) for an array of 3 dimensions", S.errof(function() return a[{1, 1, 1, 1}] end), 1, true)
    assert.matches("index 3 out of range for dimension 1 of size 2", S.errof(function() return a[{3}] end), 1, true)
    assert.matches("index -3 out of range for dimension 1 of size 2", S.errof(function() return a[{-3}] end), 1, true)
    assert.matches("index 0 out of range for dimension 2 of size 3", S.errof(function() return a[{{}, {0, 2}}] end), 1, true)
    assert.matches("index 5 out of range for dimension 3 of size 4", S.errof(function() return h[{{}, {}, {2, 5}}] end), 1, true)
    assert.matches("slice step must not be 0 (index 2)", S.errof(function() return a[{{}, {1, 3, 0}}] end), 1, true)
    assert.matches("an index must be an integer, got 1.5", S.errof(function() return a[{1.5}] end), 1, true)
    assert.matches("index 1 must be a number or a range {first, last [, step]}, got string",
                   S.errof(function() return a[{"x"}] end), 1, true)
    assert.matches("narrow: 3 elements from 2 do not fit in dimension 2 of size 3", S.errof(a.narrow, a, 2, 2, 3), 1, true)
    assert.matches("dimension 4 out of range (1 to 3)", S.errof(a.select, a, 4, 1), 1, true)
    -- a string is not a number here (lua_tointegerx read "2" as 2: v[{{"2", "4"}}] was [1, 2, 3])
    local v = gpu.arange(6, "float64")
    assert.matches("slice start must be an integer, got string", S.errof(function() return v[{{"2", "4"}}] end), 1, true)
    assert.matches("an index must be an integer, got string", S.errof(v.item, v, "3"), 1, true)
    assert.matches("first must be an integer, got string", S.errof(v.narrow, v, 1, "2", 2), 1, true)
    assert.matches("dimension must be an integer, got string", S.errof(v.select, v, "1", 6), 1, true)
    assert.matches("index must be an integer, got string", S.errof(v.select, v, 1, "6"), 1, true)
    assert.matches("shape[1] must be a size or -1", S.errof(v.reshape, v, {"2", 3}), 1, true)
    -- a field besides the list is refused ({first = 2, last = 3} took all 6 elements; dim was ignored)
    assert.matches("index 1: a range is a list {first, last [, step]}, got a table with a key \"",   -- (either, as next meets them)
                   S.errof(function() return v[{{first = 2, last = 3}}] end), 1, true)
    assert.matches("index 1: a range is a list {first, last [, step]}, got a table with a key \"first\" besides its",
                   S.errof(function() return v[{{2, first = 2}}] end), 1, true)
    assert.matches("a key is a list of indices and ranges {i, {first, last}, ...}, got a table with a key \"dim\" besides its",
                   S.errof(function() return v[{{2, 3}, dim = 1}] end), 1, true)
    assert.matches("got a table with a key \"dim\" besides its", S.errof(function() v[{{2, 3}, dim = 1}] = 0 end), 1, true)
    assert.are.same({0, 0, 0, 0, 0, 0}, (v * 0):totable())
    assert.are.same({1, 2}, v[{{2, 3}}]:totable())
    assert.matches("cannot reshape an array of shape {2, 3, 4} (24 elements) to {5, 5}", S.errof(a.reshape, a, 5, 5), 1, true)
    assert.matches("reshape: only one dimension can be -1", S.errof(a.reshape, a, -1, -1), 1, true)
    -- a -1 that no size fills (it was left in the shape, and reshaping read past its dims)
    assert.matches("cannot reshape an array of shape {2, 3, 4} (24 elements) to {5, -1}", S.errof(a.reshape, a, 5, -1), 1, true)
    assert.matches("to {-1, 5, 1}", S.errof(a.reshape, a, -1, 5, 1), 1, true)
    assert.matches("to {0, -1}", S.errof(a.reshape, a[{{1, 0}}], 0, -1), 1, true)
    assert.matches("to {2, -1}", S.errof(function() return gpu.host.zeros(7):reshape(2, -1) end), 1, true)
    assert.matches("cannot expand shape {2, 3, 4} to {2, 2, 4}", S.errof(a.expand, a, 2, 2, 4), 1, true)
    assert.matches("cannot squeeze dimension 2 of size 3", S.errof(a.squeeze, a, 2), 1, true)
    assert.matches("transpose: dimension 1 appears twice", S.errof(a.transpose, a, {1, 1, 2}), 1, true)
    assert.matches("transpose: the permutation has 2 entries for 3 dimensions", S.errof(a.transpose, a, {1, 2}), 1, true)
    local e = gpu.zeros({3, 1}):expand(3, 4)
    assert.matches("cannot write into an expanded view (a stride of 0)", S.errof(function() e[{1}] = 1 end), 1, true)
    assert.matches("cannot write into an expanded view (a stride of 0)", S.errof(e.fill, e, 2), 1, true)
    assert.matches("cannot write into an expanded view", S.errof(gpu.add, e, 1, {out = e}), 1, true)
    local he = gpu.host.zeros({3, 1}):expand(3, 4)
    assert.matches("cannot write into an expanded view", S.errof(function() he[{2}] = 1 end), 1, true)
    -- nor into views of one, whose own strides are not 0 (a row, one element): they wrote
    -- into every row (NumPy's broadcast views are read-only, and their views too)
    local row = gpu.zeros({1, 3}):expand(2, 3)[{1}]
    local hrow = gpu.host.zeros({1, 3}):expand(2, 3)[{1}]
    for what, f in pairs({["a[{1, 1}] = 5"] = function() e[{1, 1}] = 5 end, fill = function() row:fill(7) end,
                          ["h[1] = 5"] = function() hrow[1] = 5 end, ["h[{2}] = 5"] = function() hrow[{2}] = 5 end,
                          out = function() gpu.add(gpu.ones(3), 1, {out = row}) end,
                          cumsum = function() gpu.cumsum(gpu.ones(3), {out = row}) end,
                          sum = function() gpu.sum(gpu.ones({3, 2}), 2, {out = row}) end,
                          copy = function() gpu.copy(row, gpu.ones(3)) end,
                          copy_ = function() row:copy_({1, 2, 3}) end,
                          all_reduce = function() gpu.nccl.comm({0}):all_reduce(row) end}) do
      assert.matches("cannot write into an expanded view %(a stride of 0%) or a view of one", S.errof(f), nil, what)
    end
    assert.are.same({0, 0, 0}, row:totable())
    -- a C-ordered read-only view (gpu.broadcast_to's of its own shape): gpu.matmul wrote
    -- it, and the in-place functions written in Lua refused naming gpu.where, a[key] = v or
    -- nothing; each names itself and its argument now
    local x = gpu.zeros({2, 2}, "float64")
    local ro = gpu.broadcast_to(x, {2, 2})
    local eye = gpu.eye(2, "float64")
    for what, f in pairs({
      ["gpu.matmul: out"] = function() gpu.matmul(eye, eye, {out = ro}) end,
      ["gpu.put: a is"] = function() gpu.put(ro, {1}, 5) end,
      ["gpu.place: a is"] = function() gpu.place(ro, ro:eq(0), {5}) end,
      ["gpu.putmask: a is"] = function() gpu.putmask(ro, ro:eq(0), 5) end,
      ["gpu.copyto: dst is"] = function() gpu.copyto(ro, 5) end,
      ["gpu.fill_diagonal: a is"] = function() gpu.fill_diagonal(ro, 5) end,
      ["gpu.put_along_axis: a is"] = function() gpu.put_along_axis(ro, gpu.array({{1}, {1}}, "int64"), 5, 2) end,
      ["gpu.random.shuffle: a is"] = function() gpu.random.shuffle(ro) end,
      ["gpu.einsum: out is"] = function() gpu.einsum("ij->ij", eye, {out = ro}) end,
      ["gpu.around: out is"] = function() gpu.around(eye, 1, {out = ro}) end,
      ["gpu.vectorize 'plus': out is"] = function() gpu.vectorize(function(v) return v + 1 end, {name = "plus"})(eye, {out = ro}) end,
    }) do
      assert.matches(what, S.errof(f), 1, true)
    end
    assert.are.same({{0, 0}, {0, 0}}, x:totable())
    assert.are.same({7, 7, 7}, row:contiguous():fill(7):totable())   -- a copy, which is written
    assert.are.same({7, 7, 7}, hrow:contiguous():fill(7):totable())
    local base = gpu.zeros({1, 3})
    local wide = base:expand(2, 3)
    base:fill(9)                                                      -- the owner is written
    assert.are.same({{9, 9, 9}, {9, 9, 9}}, wide:totable())
    local f = gpu.zeros(4)
    local fv = f[{{1, 2}}]
    fv:free()
    assert.matches("attempt to use a freed array", S.errof(function() return fv[{1}] end), 1, true)
    assert.matches("attempt to index a device array from Lua", S.errof(function() return f[1] end), 1, true)
  end)

  it("refuse sizes, lengths and steps that would overflow, and print an empty array as []", function()
    local maxi, mini = math.maxinteger, math.mininteger
    assert.matches("narrow: " .. maxi .. " elements from 3 do not fit in dimension 3 of size 4",
                   S.errof(a.narrow, a, 3, 3, maxi), 1, true)
    assert.matches("narrow: 1 elements from " .. maxi, S.errof(a.narrow, a, 3, maxi, 1), 1, true)
    -- a step past the dim takes one element, with a stride that does not wrap
    local v = a[{{1, 2, maxi}, {}, {-1, 1, mini}}]
    assert.same({1, 3, 1}, v.shape)
    assert.same({12, 4, 1}, v.strides)
    assert.same({{{114}, {124}, {134}}}, v:totable())
    assert.same({{{114}, {124}, {134}}}, h[{{1, 2, 2^62}, {}, {-1, 1, mini}}]:totable())
    assert.matches("index " .. mini .. " out of range", S.errof(function() return a[{{mini, maxi}}] end), 1, true)
    for _, f in ipairs({
      function() return gpu.zeros(1):expand(2^40, 2^40) end,
      function() return gpu.zeros(0):reshape(0, 2^40, 2^40) end,
      function() return a:reshape(2^32, 2^32, 24) end,
      function() return gpu.zeros({0, 2^40, 2^40}) end,
      function() return gpu.host.zeros({0, 2^40, 2^40}) end,
    }) do
      assert.matches("shape is too large", S.errof(f), 1, true)
    end
    assert.equal("gpu.array(float32, {1099511627776, 0})\n[]", tostring(gpu.zeros(0):reshape(2^40, -1)))
    assert.equal("gpu.hostarray(int32, {3, 0, 2})\n[]", tostring(gpu.host.zeros({3, 0, 2}, "int32")))
  end)

  -- NumPy's order "F": the elements read and placed first dim fastest (before: refused,
  -- and gpu.ravel(a, "F") and gpu.reshape(a, s, "F") gave C order without a word)
  it("reshape, flatten and ravel in Fortran order as NumPy's", function()
    local a = gpu.arange(24, "int32"):reshape(2, 3, 4)
    local want = {{0, 8, 5, 2, 10, 7}, {12, 20, 17, 14, 22, 19}, {4, 1, 9, 6, 3, 11}, {16, 13, 21, 18, 15, 23}}
    assert.are.same(want, a:reshape({4, 6}, "F"):totable())
    assert.are.same(want, a:reshape(4, 6, "F"):totable())
    assert.are.same(want, gpu.reshape(a, {4, -1}, "F"):totable())
    assert.are.same(want, a:tohost():reshape({4, 6}, "F"):totable())
    local flat = {0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23}
    assert.are.same(flat, a:flatten("F"):totable())
    assert.are.same(flat, gpu.ravel(a, "F"):totable())
    -- NumPy: a.ravel('F').reshape(4, 6).T.reshape((4, 6), order='F').reshape(6, 4).T
    assert.are.same({{0, 10, 17, 4, 3, 21}, {8, 7, 14, 1, 11, 18}, {5, 12, 22, 9, 16, 15}, {2, 20, 19, 6, 13, 23}},
                    gpu.reshape(gpu.ravel(a, "F"), {4, 6}, "C"):transpose():reshape({4, 6}, "F")
                      :reshape({6, 4}, "C"):transpose():totable())
    -- "A": Fortran order for an F-ordered array (a view of its memory in order), C otherwise
    local t = a:transpose()
    local seq = {}
    for i = 1, 24 do seq[i] = i - 1 end
    assert.are.same(seq, t:flatten("A"):totable())
    assert.are.same(seq, a:flatten("A"):totable())
    assert.are.same(flat, gpu.ravel(t, "C"):totable())
    t:flatten("A")[{1}] = 100   -- a view: the strides allow it
    assert.are.equal(100, a[{1, 1, 1}]:item())
    a[{1, 1, 1}] = 0
    -- a view that F order must copy, and a view it need not
    assert.are.same({{0, 1, 2, 3}, {12, 13, 14, 15}, {4, 5, 6, 7}, {16, 17, 18, 19}},
                    a[{{}, {1, 2}}]:reshape({4, 4}, "F"):totable())
    local v = t:reshape({4, 6}, "F")   -- t's memory is a's, C order: F order of t is a view
    v[{1, 1}] = -1
    assert.are.equal(-1, a[{1, 1, 1}]:item())
    assert.matches("cannot reshape an array of shape {2, 3, 4} (24 elements) to {5, 5}",
                   S.errof(function() return a:reshape({5, 5}, "F") end), 1, true)
  end)

  -- Before: each of these dropped its last argument and gave C order, the old shape, an
  -- unchecked cast or a swap of two dims without a word
  it("refuse arguments and options they do not take (NumPy's order, shape, casting)", function()
    local r = gpu.arange(6, "int32"):reshape(2, 3)
    for _, c in ipairs({
      {'a:reshape: order must be "C", "F" or "A", got "K"', function() return r:reshape({3, 2}, "K") end},
      {"a:reshape takes 1 argument, got a string as argument 2", function() return r:reshape({3, 2}, "x", "F") end},
      {"a:reshape takes 1 argument, got a table as argument 2 (it takes no options)", function() return r:reshape({3, 2}, {order = "F"}) end},
      {'a:flatten: order must be "C", "F" or "A", got "f"', function() return r:flatten("f") end},
      {'gpu.ravel: order must be "C", "F" or "A", got "K"', function() return gpu.ravel(r, "K") end},
      {"a:copy takes 0 arguments, got a string as argument 1", function() return r:copy("F") end},
      {"a:contiguous takes 0 arguments", function() return r:contiguous("F") end},
      {"a:astype takes 1 argument, got a table as argument 2", function() return r:astype("int8", {casting = "safe"}) end},
      {"a:transpose takes 2 arguments, got a number as argument 3", function() return gpu.zeros({2, 3, 4}):transpose(1, 3, 2) end},
      {"a:transpose takes 1 argument, got a string as argument 2", function() return r:transpose({2, 1}, "x") end},
      {"a:squeeze takes 1 argument, got a string as argument 2", function() return r:squeeze(nil, "x") end},
      {"a:expand takes 1 argument, got a string as argument 2", function() return r:expand({2, 3}, "x") end},
      {"gpu.zeros takes 2 arguments, got a table as argument 3", function() return gpu.zeros({2, 3}, "int32", {order = "F"}) end},
      {"gpu.empty takes 2 arguments, got a string as argument 3", function() return gpu.empty({2}, "int32", "F") end},
      {"gpu.array takes 2 arguments, got a table as argument 3", function() return gpu.array({1, 2}, "int32", {copy = false}) end},
      {"gpu.host.zeros takes 2 arguments, got a number as argument 3", function() return gpu.host.zeros(3, "int32", 5) end},
      {"gpu.host.empty takes 2 arguments, got a table as argument 3", function() return gpu.host.empty({2}, "int32", {pinned = true}) end},
      {"gpu.ones takes 2 arguments, got a gpu.complex as argument 3", function() return gpu.ones(2, "complex64", gpu.complex(1, 2)) end},
      {"gpu.zeros_like takes 2 arguments, got a table as argument 3", function() return gpu.zeros_like(r, "int32", {2, 2}) end},
      {"gpu.full_like takes 3 arguments, got a table as argument 4", function() return gpu.full_like(r, 3, "int32", {4}) end},
      {"gpu.full takes 3 arguments, got a string as argument 4", function() return gpu.full({2}, 1, "int32", "F") end},
      {"gpu.arange takes 4 arguments, got a string as argument 5", function() return gpu.arange(0, 5, 1, "float64", "x") end},
    }) do
      assert.matches(c[1], S.errof(c[2]), 1, true)
    end
    assert.are.same({3, 2}, r:transpose(nil).shape)
    assert.are.same({3, 2}, r:transpose(1, 2, nil).shape)
  end)
end)

describe("kernels receive views", function()
  local COPY = [[
extern "C" __global__ void flat(gpu::array<float> a, gpu::array<float> out) {
  long long i = gpu::grid(1);
  out[i] = a[i];          // a[i]: flat, in C order over a's shape, strides followed
}
extern "C" __global__ void twod(gpu::array<float> a, gpu::array<float> out) {
  long long i = gpu::grid(1);
  if (i < out.size) out[i] = a(i / a.shape[1], i % a.shape[1]);
}
extern "C" __global__ void raw(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i];
}
]]
  local m = gpu.module(COPY)
  local src = gpu.arange(20):reshape(4, 5)

  it("follow strides in a[i] and a(i, j): transposed, stepped, reversed", function()
    for _, v in ipairs({src.T, src[{{}, {1, 5, 2}}], src[{{4, 1, -1}, {2, 4}}], src:expand(2, 4, 5)[{2}]}) do
      local want = v:contiguous():totable()
      local out = gpu.zeros(v.shape)
      m.flat[{1, 64}](v, out)
      assert.are.same(want, out:totable())
      if v.ndim == 2 then
        out:fill(0)
        m.twod[{1, 64}](v, out)
        assert.are.same(want, out:totable())
      end
    end
  end)

  it("take a C-ordered view as a raw pointer, and refuse a strided one", function()
    local out = gpu.zeros(5)
    m.raw[{1, 32}](src[{3}], out, 5)
    assert.are.same({10, 11, 12, 13, 14}, out:totable())
    assert.matches("kernel 'raw' argument 1 (float* a) is a view that is not contiguous: "
                   .. "pass a:contiguous() (a copy), or declare the parameter gpu::array<T>",
                   S.errof(function() m.raw[{1, 32}](src.T, out, 5) end), 1, true)
  end)

  it("take &a[i] as a real pointer: atomics on gpu::array, out of range a harmless sink", function()
    local k = gpu.kernel([==[
extern "C" __global__ void hist(gpu::array<int> bins, gpu::array<int> x) {
  long long i = gpu::grid(1);
  if (i < x.size) atomicAdd(&bins[x[i]], 1);   // x[i] past bins: the sink
}]==])
    local bins = gpu.zeros(4, "int32")
    k[{2, 32}](bins, gpu.array({0, 1, 1, 3, 3, 3, 9, -1}, "int32"))
    assert.are.same({1, 2, 0, 3}, bins:totable())
    local even = gpu.zeros(8, "int32")[{{1, 8, 2}}]       -- atomics through a strided view
    k[{1, 32}](even, gpu.array({0, 0, 2}, "int32"))
    assert.are.same({2, 0, 0, 0, 1, 0, 0, 0}, even.base:totable())
  end)
end)
