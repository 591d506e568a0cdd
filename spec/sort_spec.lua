-- Sorting: a:sort, gpu.argsort, a:topk and gpu.unique against Lua's own sorting (made
-- stable by the index), with NaN, -0, ties, descending order, dims, views, empty and 0-D
-- arrays; and the GPU's radix sort (the block sort, and Onesweep passes over one and over
-- several rows), run on the CPU backend by gpu._reduce_plan("gpu"), giving exactly the
-- order the CPU backend's std::stable_sort gives.
local S = require("spec.support")

-- the stable order of t by NumPy's rules (NaN last, -0 equal to 0): 1-based indices
local function order_of(t, desc)
  local ix = {}
  for i = 1, #t do ix[i] = i end
  local function key(v) return v ~= v and math.huge or v end
  table.sort(ix, function(a, b)
    local x, y = t[a], t[b]
    local xn, yn = x ~= x, y ~= y
    if xn ~= yn then return desc and xn or (not desc and yn) end
    if not xn and x ~= y then
      if desc then return key(x) > key(y) else return key(x) < key(y) end
    end
    return a < b
  end)
  return ix
end
local function pick(t, ix) local r = {} for k, i in ipairs(ix) do r[k] = t[i] end return r end
local function same(x, y)
  if type(x) == "table" then
    if #x ~= #y then return false end
    for k = 1, #x do if not same(x[k], y[k]) then return false end end
    return true
  end
  return x == y or (x ~= x and y ~= y)
end

local function on_plan(plan, f)
  gpu._reduce_plan(plan)
  local ok, a, b = pcall(f)
  gpu._reduce_plan(nil)
  if not ok then error(a, 0) end
  return a, b
end

describe("a:sort", function()
  local T = {3, 1, 2, 0 / 0, -0.0, 0.0, 1, -5, math.huge, -math.huge}
  local a = gpu.array(T)

  for _, plan in ipairs({"backend", "gpu"}) do
    it(("sorts values with 1-based indices, stable, NaN last (first descending) on the %s plan"):format(plan), function()
      on_plan(plan ~= "backend" and plan or nil, function()
        for _, desc in ipairs({false, true}) do
          local v, i = a:sort({descending = desc})
          local want = order_of(T, desc)
          assert.are.same(want, i:totable())
          assert.is_true(same(pick(T, want), v:totable()))
          assert.are.equal("int64", i.dtype)
          assert.are.same(want, gpu.argsort(a, {descending = desc}):totable())
        end
      end)
    end)
  end

  it("takes descending, and refuses topk's largest (which turned {descending = true, largest = false} ascending)", function()
    assert.are.same({3, 2, 1}, gpu.array({3, 1, 2}):sort({descending = true}):totable())
    assert.matches("gpu.sort: unknown option 'largest' (it takes dim, descending, indices, stream)",
                   S.errof(gpu.sort, gpu.array({3, 1, 2}), {descending = true, largest = false}), 1, true)
  end)

  it("sorts along a dim, of views too", function()
    local b = gpu.array({{3, 1, 2}, {9, 8, 7}, {1, 1, 0}}, "int32")
    local v, i = b:sort(1)
    assert.are.same({{1, 1, 0}, {3, 1, 2}, {9, 8, 7}}, v:totable())
    assert.are.same({{3, 1, 3}, {1, 3, 1}, {2, 2, 2}}, i:totable())
    v, i = b:sort(2)
    assert.are.same({{1, 2, 3}, {7, 8, 9}, {0, 1, 1}}, v:totable())
    assert.are.same({{2, 3, 1}, {3, 2, 1}, {3, 1, 2}}, i:totable())
    assert.are.same({{2, 3, 1}, {3, 2, 1}, {3, 1, 2}}, gpu.argsort(b.T, 1).T:totable())   -- b's rows
    assert.are.same({{2, 3}, {7, 9}, {0, 1}}, b[{{}, {1, 3, 2}}]:sort(2):totable())
  end)

  it("gives the same order on the GPU's plan (block sort; Onesweep over one and several rows)", function()
    gpu.random.seed(9)
    for _, x in ipairs({gpu.random.uniform(-1, 1, {7, 300}),           -- a block a row
                        (gpu.random.uniform(0, 16, 5000)):floor(),      -- one long row, ties
                        gpu.random.uniform(-50, 50, {2, 4500}):astype("int32")}) do
      for _, desc in ipairs({false, true}) do
        local v1, i1 = x:sort({descending = desc})
        local v2, i2 = on_plan("gpu", function() return x:sort({descending = desc}) end)
        assert.is_true(same(v1:totable(), v2:totable()))
        assert.are.same(i1:totable(), i2:totable())
      end
    end
    -- values alone (no index carried: so_pass_keys), full tiles and a partial one, NaN,
    -- -0, inf and ties, 4-, 8- and 2-byte keys, both directions
    local y = gpu.random.uniform(-3, 3, 9001):floor()
    y[{{5, 300, 7}}] = 0 / 0
    y[{{301, 600, 5}}] = -0.0
    y[{{601, 700}}] = math.huge
    for _, dt in ipairs({"float32", "float64", "int16"}) do
      local z = y:astype(dt)
      for _, desc in ipairs({false, true}) do
        local v = on_plan("gpu", function() return z:sort({descending = desc, indices = false}) end)
        assert.is_true(same(z:sort({descending = desc}):totable(), v:totable()), dt)
      end
    end
  end)

  it("gives the same order on the GPU's plan where passes only copy (a byte the same in every key)", function()
    gpu.random.seed(12)
    for _, x in ipairs({gpu.random.integers(0, 5, 6000),                     -- int64: 7 of 8 passes copy
                        gpu.random.integers(-3, 3, {3, 5000}):astype("int32"), -- rows, negative keys
                        gpu.full(4100, 7, "uint64"),                            -- every pass copies
                        gpu.random.integers(0, 300, 4097):astype("float64")}) do
      for _, desc in ipairs({false, true}) do
        local v1, i1 = x:sort({descending = desc})
        local v2, i2 = on_plan("gpu", function() return x:sort({descending = desc}) end)
        assert.is_true(same(v1:totable(), v2:totable()))
        assert.are.same(i1:totable(), i2:totable())
        local v3 = on_plan("gpu", function() return x:sort({descending = desc, indices = false}) end)
        assert.is_true(same(v1:totable(), v3:totable()))
      end
    end
  end)

  it("takes empty and 0-D arrays", function()
    local v, i = gpu.zeros({0}):sort()
    assert.are.same({}, v:totable())
    assert.are.same({}, i:totable())
    v, i = gpu.full({}, 7):sort()
    assert.are.equal(7, v:item())
    assert.are.equal(1, i:item())
    -- a new array, as for any other shape (it was the 0-D array itself)
    local z = gpu.full({}, 5, "float32")
    for _, got in ipairs({z:sort(), (z:topk(1)), gpu.sort(z, {indices = false}), z:topk(1, {indices = false})}) do
      assert.is_false(gpu.shares_memory(got, z))
    end
    z:sort():fill(9)
    assert.are.equal(5, z:item())
  end)
end)

describe("a:topk", function()
  local a = gpu.array({{5, 1, 9, 3}, {2, 8, 8, 0}})
  it("gives the k largest (or smallest) along a dim, in order, ties first come", function()
    local v, i = a:topk(2)
    assert.are.same({{9, 5}, {8, 8}}, v:totable())
    assert.are.same({{3, 1}, {2, 3}}, i:totable())
    v, i = a:topk(1, 1, {largest = false})
    assert.are.same({{2, 1, 8, 0}}, v:totable())
    assert.are.same({{2, 1, 2, 2}}, i:totable())
    assert.are.same({2, 0}, a:topk(0).shape)
    -- {indices = false}: the values alone, as a:sort's (the option was ignored)
    assert.are.equal(1, select("#", a:topk(2, {indices = false})))
    assert.are.same({{9, 5}, {8, 8}}, a:topk(2, {indices = false}):totable())
    assert.are.same({{2, 1, 8, 0}}, a:topk(1, 1, {largest = false, indices = false}):totable())
    assert.are.equal(1, select("#", gpu.full({}, 7):topk(1, {indices = false})))
    assert.matches("gpu.topk: k = 5 is out of range for a dim of size 4 %(0 to 4%)", S.errof(a.topk, a, 5))
    local z = gpu.full({}, 7)   -- a 0-D array: k is 1 (no 0-D array holds nothing)
    assert.are.equal(7, z:topk(1):item())
    assert.matches("gpu.topk: k = 0 is out of range for a 0-D array (1 only)", S.errof(z.topk, z, 0), 1, true)
    -- NaN shows as printing shows it, nan (0/0 has the sign bit: Lua's own text is -nan)
    assert.are.equal("gpu.topk: k must be an integer, got nan", S.errof(a.topk, a, 0 / 0):match("gpu%..*"))
    assert.are.equal("gpu.sort: dim must be an integer, got nan", S.errof(a.sort, a, 0 / 0):match("gpu%..*"))
    assert.are.equal("gpu.topk: k must be an integer, got no value", S.errof(a.topk, a):match("gpu%..*"))
    -- a numeric string is no number (lua_tointegerx made "1" dim 1)
    assert.are.equal('gpu.sort: dim must be an integer, got a string ("1")', S.errof(gpu.sort, a, "1"):match("gpu%..*"))
    assert.are.equal('gpu.sort: dim must be an integer, got a string ("1")', S.errof(gpu.sort, a, {dim = "1"}):match("gpu%..*"))
    assert.are.equal('gpu.argsort: dim must be an integer, got a string ("1")', S.errof(gpu.argsort, a, "1"):match("gpu%..*"))
    assert.are.equal('gpu.topk: k must be an integer, got a string ("1")', S.errof(a.topk, a, "1"):match("gpu%..*"))
    assert.are.equal('gpu.topk: dim must be an integer, got a string ("1")', S.errof(a.topk, a, 1, "1"):match("gpu%..*"))
    assert.matches("gpu.sort: bad option 'stream' (gpu.stream expected, got number)", S.errof(a.sort, a, {stream = 1}), 1, true)
    assert.matches("gpu.topk: bad option 'stream' (gpu.stream expected, got string)", S.errof(a.topk, a, 1, {stream = "s"}), 1, true)
  end)
end)

describe("gpu.unique", function()
  it("gives the sorted distinct values (one NaN), first indices, the inverse and counts", function()
    local x = gpu.array({{3, 1, 3}, {0 / 0, 2, 0 / 0}})
    local u, index, inverse, counts = gpu.unique(x, {index = true, inverse = true, counts = true})
    assert.is_true(same({1, 2, 3, 0 / 0}, u:totable()))
    assert.are.same({2, 5, 1, 4}, index:totable())
    assert.are.same({{3, 1, 3}, {4, 2, 4}}, inverse:totable())
    assert.are.same({1, 1, 2, 2}, counts:totable())
    assert.are.same({1, 2, 3}, gpu.unique(gpu.array({3, 3, 2, 1, 2}, "int32")):totable())
    local c = select(2, gpu.unique(gpu.array({3, 3, 2, 1, 2}, "int32"), {counts = true}))
    assert.are.same({1, 2, 2}, c:totable())
    assert.are.same({}, gpu.unique(gpu.zeros({0})):totable())
    -- a C-ordered view from its first element (a row read as the array's first row)
    local m = gpu.array({{5, 5, 1}, {9, 7, 9}}, "int32")
    local u2, first = gpu.unique(m[{2}], {index = true})
    assert.are.same({7, 9}, u2:totable())
    assert.are.same({2, 1}, first:totable())
  end)

  it("takes booleans for its flags, not any value Lua reads as true (0, 'false')", function()
    local a = gpu.array({3, 1, 2})
    for _, call in ipairs{
        function() return a:sort({descending = 0}) end, function() return a:topk(1, {largest = "false"}) end,
        function() return a:sort({indices = 0}) end, function() return gpu.unique(a, {counts = 1}) end} do
      local ok, err = pcall(call)
      assert.is_false(ok)
      assert.matches("gpu%.%a+: option %a+ must be a boolean, got %a+", err)
    end
    assert.are.same({1, 2}, a:topk(2, {largest = false}):totable())
    assert.are.equal(1, select("#", a:sort({indices = false})))
  end)

  it("takes a dim as NumPy's axis: the distinct rows (more in spec/sets_spec.lua)", function()
    assert.are.same({{1, 2}}, gpu.unique(gpu.array({{1, 2}, {1, 2}}), {dim = 1}):totable())
  end)

  -- the options table (and the stream only it holds) must outlive the call's allocations:
  -- a collection in between destroyed the stream the kernels were then queued on
  it("#cuda keeps the stream of its options through the call, as gpu.fft does", function()
    local x = gpu.arange(3000):remainder(7)
    local mode = collectgarbage("incremental", 0, 1000)
    local ok, err = pcall(function()
      for _ = 1, 20 do
        local u, c = gpu.unique(x, {counts = true, stream = gpu.stream()})
        assert.are.same({0, 1, 2, 3, 4, 5, 6}, u:totable())
        assert.are.equal(3000, c:sum())
        assert.are.equal(x:sum(), gpu.real(gpu.fft.fft(x, {stream = gpu.stream()})):item(1))
      end
    end)
    collectgarbage(mode)
    assert(ok, err)
  end)
end)
