-- float16 through the algorithms: sorts (both plans), unique and the set functions, scans
-- and differences, statistics, shapes and indexing, random numbers and polynomials, against
-- NumPy 1.24's values (NumPy 2's dtypes, as gpuhost promotes), written in as numbers.
local nan, inf = 0 / 0, math.huge
local function h(t) return gpu.array(t, "float16") end

-- equal tables of numbers (NaN equal to NaN, -0 to 0), nested
local function same(x, y)
  if type(x) == "table" then
    if type(y) ~= "table" or #x ~= #y then return false end
    for k = 1, #x do if not same(x[k], y[k]) then return false end end
    return true
  end
  return x == y or (x ~= x and y ~= y)
end
-- got's dtype and values (a 0-D array: its number); a failure prints both sides
local function check(want_dtype, want, got)
  assert.are.equal(want_dtype, got.dtype)
  local t = got.ndim == 0 and got:item() or got:totable()
  if not same(want, t) then assert.are.same(want, t) end
end

-- n values ((i * 0.37) mod 1.7 - 0.6, i from 0) made float16 on the host: no kernel
local function wave(n)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = math.fmod(i * 0.37, 1.7) - 0.6 end
  return h(t)
end

local function on_plan(plan, f)
  gpu._reduce_plan(plan)
  local ok, err = pcall(f)
  gpu._reduce_plan(nil)
  if not ok then error(err, 0) end
end

describe("float16 sorts", function()
  local T = {3, 1, 2, nan, -0.0, 0.0, 1, -5, inf, -inf, 0.1, 65504}
  local x = h(T)
  for _, plan in ipairs({"backend", "gpu"}) do
    it(("order as NumPy's (NaN last, -0 == 0, stable) on the %s plan"):format(plan), function()
      on_plan(plan ~= "backend" and plan or nil, function()
        local v, i = x:sort()
        check("float16", {-inf, -5, -0.0, 0, 0.0999755859375, 1, 1, 2, 3, 65504, inf, nan}, v)
        check("int64", {10, 8, 5, 6, 11, 2, 7, 3, 1, 12, 9, 4}, i)
        v, i = x:sort({descending = true})
        check("float16", {nan, inf, 65504, 3, 2, 1, 1, 0.0999755859375, -0.0, 0, -5, -inf}, v)
        check("int64", {4, 9, 12, 1, 3, 2, 7, 11, 5, 6, 8, 10}, i)
        check("int64", {10, 8, 5, 6, 11, 2, 7, 3, 1, 12, 9, 4}, gpu.argsort(x))
        -- rows longer than a tile: the GPU plan's Onesweep passes over 16-bit keys
        local big = wave(5000)
        local want = big:totable()
        table.sort(want)
        assert.are.same(want, big:sort({indices = false}):totable())
        check("float16", {{-1, 1}, {3, 2}}, h({{3, 1}, {-1, 2}}):sort(1))
      end)
    end)
  end

  it("partition, searchsorted, lexsort and topk", function()
    check("float16", {-inf, -5, -0.0, 0, 0.0999755859375, 1, 1, 2, 3, 65504, inf, nan}, gpu.partition(x, 3))
    check("int64", {3, 1, 5}, gpu.searchsorted(h({1, 2, 3, 4}), h({2.5, 0, 5})))
    check("int64", {2, 4, 1, 3}, gpu.lexsort({h({1, 1, 2, 2}), h({2, 1, 2, 1})}))
    local v, i = h({1, 5, 3, 2}):topk(2)
    check("float16", {5, 3}, v)
    check("int64", {2, 3}, i)
  end)

  it("unique and the set functions", function()
    local u, first, inverse, counts = gpu.unique(x, {index = true, inverse = true, counts = true})
    check("float16", {-inf, -5, -0.0, 0.0999755859375, 1, 2, 3, 65504, inf, nan}, u)
    check("int64", {10, 8, 5, 11, 2, 3, 1, 12, 9, 4}, first)
    check("int64", {7, 5, 6, 10, 3, 3, 5, 2, 9, 1, 4, 8}, inverse)
    check("int64", {1, 1, 2, 1, 2, 1, 1, 1, 1, 1}, counts)
    check("float16", {1, 2, 3, 4}, gpu.union1d(h({1, 2, 3}), gpu.array({3, 4}, "int8")))
  end)
end)

describe("float16 scans and differences", function()
  local y = h({1, 2.5, 0.1, 3, 1000, 60000})
  it("keep float16, with float64 running values each rounded once", function()
    check("float16", {1, 3.5, 3.599609375, 6.6015625, 1006.5, 60992}, y:cumsum())
    check("float16", {1, 2, 6, 3}, h({1, 2, 3, 0.5}):cumprod())
    -- 10000 values: NumPy's running float16 sum stalls (1288 at 5000, 2340 at the end);
    -- gpuhost's float64 one gives the exact sums rounded (NumPy's float64 cumsum, rounded)
    local c = wave(10000):cumsum()
    assert.are.same({-0.60009765625, 1240, 2486}, {c:item(1), c:item(5000), c:item(10000)})
  end)
  it("diff", function()
    check("float16", {1.5, -2.400390625, 2.900390625, 997, 59008}, gpu.diff(y))
  end)
end)

describe("float16 statistics", function()
  local s = h({3, 1, 2, 7, 0.1, 100, 5})
  local sn = h({3, 1, nan, 7, 0.1, 100, 5})
  it("median and quantiles (float16, NumPy 2's dtype)", function()
    assert.are.equal(3, gpu.median(s))
    check("float16", nan, gpu.median(sn, 1))
    check("float16", {0.64013671875, 3, 72.125}, gpu.percentile(s, {10, 50, 95}))
    check("float16", 1.7998046875, gpu.quantile(s, 0.3, 1))
    check("float16", 2, gpu.nanpercentile(sn, 30, 1))
  end)
  it("the nan reductions", function()
    assert.are.equal(19.359375, gpu.nanmean(sn))   -- NumPy's: the float16 sum / the count
    check("float16", 19.359375, gpu.nanmean(sn, 1))
    check("float16", 36.125, gpu.nanstd(sn, 1))
    check("float16", 1567, gpu.nanvar(sn, 1, {ddof = 1}))
    -- a count past float16's 2048 integers stays exact
    check("float16", 1, gpu.nanmean(gpu.ones(5000, "float16"), 1))
  end)
  it("histogram edges", function()
    local c, e = gpu.histogram(s, 3)
    check("int64", {6, 0, 1}, c)
    check("float16", {0.0999755859375, 33.40625, 66.6875, 100}, e)
    check("float16", {0.0999755859375, 33.40625, 66.6875, 100}, gpu.histogram_bin_edges(s, 3))
    c, e = gpu.histogram(h({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}), 7)
    check("int64", {1, 1, 1, 1, 1, 1, 1}, c)
    check("float16", {0.0999755859375, 0.1856689453125, 0.271484375, 0.357177734375, 0.44287109375,
                      0.52880859375, 0.6142578125, 0.7001953125}, e)
    c, e = gpu.histogram(s, 4, {range = {0, 8}})
    check("int64", {2, 2, 1, 1}, c)
    check("float16", {0, 2, 4, 6, 8}, e)
    c, e = gpu.histogram(s, 3, {range = {0, 1e5}})   -- edges past float16's range: float32
    check("int64", {7, 0, 0}, c)
    check("float32", {0, 33333.33203125, 66666.6640625, 100000}, e)
  end)
  it("nan_to_num: float16's largest finite numbers", function()
    check("float16", {0, 65504, -65504, 1}, gpu.nan_to_num(h({nan, inf, -inf, 1})))
    check("float16", {7, inf, -3, 1}, gpu.nan_to_num(h({nan, inf, -inf, 1}), {nan = 7, posinf = 1e6, neginf = -3}))
  end)
end)

describe("float16 shapes and indexing", function()
  local a = h({{1, 2.5, 3}, {4, 0.1, -6}})
  local A = {{1, 2.5, 3}, {4, 0.0999755859375, -6}}
  it("concatenate promotes as NumPy 2", function()
    local row = {7, 8, 9}
    for dt, want in pairs({int8 = "float16", int16 = "float32", int32 = "float64"}) do
      local o = dt == "bool" and gpu.array({{true, false, true}}, "bool") or gpu.array({row}, dt)
      local r = gpu.concatenate({a, o})
      assert.are.equal(want, r.dtype, dt)
      assert.are.same(dt == "bool" and {1, 0, 1} or row, r[{3}]:astype("float64"):totable(), dt)
      assert.are.equal(want, gpu.concatenate({o, a}).dtype, dt)
    end
    -- any number of arrays (result_type takes 16 operands: the list is folded)
    local many = {}
    for i = 1, 20 do many[i] = gpu.full(2, i, i == 19 and "int16" or "int8") end
    many[20] = a[{1}]
    local r = gpu.concatenate(many)
    assert.are.same({"float32", 41}, {r.dtype, r.size})
    assert.are.same({19, 19}, r[{{37, 38}}]:totable())
  end)
  it("where, take, masks and fancy indexing", function()
    check("float16", {{0, 2.5, 3}, {4, 0, 0}}, gpu.where(a:gt(1), a, 0))
    check("float16", {{3, 1}, {-6, 4}}, gpu.take(a, gpu.array({3, 1}, "int64"), 2))
    check("float16", {2.5, 3, 4}, a[a:gt(1)])
    check("float16", {A[2], A[1], A[2]}, a[gpu.array({2, 1, 2}, "int64")])
  end)
  it("repeat, tile, pad, flip and roll", function()
    check("float16", {1, 1, 2.5, 2.5}, gpu["repeat"](h({1, 2.5}), 2))
    check("float16", {1, 2.5, 1, 2.5}, gpu.tile(h({1, 2.5}), 2))
    check("float16", {0, 0, 1, 2.5, 0, 0}, gpu.pad(h({1, 2.5}), 2))
    check("float16", {3, 2.5, 1, 2.5, 3, 2.5, 1}, gpu.pad(h({1, 2.5, 3}), 2, {mode = "reflect"}))
    check("float16", {2.5, 3, 1, 2.5, 3, 1, 2.5}, gpu.pad(h({1, 2.5, 3}), 2, {mode = "wrap"}))
    check("float16", {{3, 2.5, 1}, {-6, 0.0999755859375, 4}}, gpu.flip(a, 2))
    check("float16", {{3, 1, 2.5}, {-6, 4, 0.0999755859375}}, gpu.roll(a, 1, 2))
    check("float16", {{0.0999755859375, -6, 1}, {2.5, 3, 4}}, gpu.roll(a, 2))
    check("float16", {1, 0.5, 2, 3}, gpu.insert(h({1, 2, 3}), 2, 0.5))
  end)
end)

describe("float16 random numbers", function()
  it("the float generators refuse float16 (as NumPy's Generator and CuPy), naming their dtypes", function()
    local R = gpu.random
    for name, f in pairs({
      random = function() return R.random({3}, "float16") end,
      uniform = function() return R.uniform(0, 1, {3}, "float16") end,
      normal = function() return R.normal(0, 1, {3}, "half") end,
      standard_normal = function() return R.standard_normal({3}, "float16") end,
      exponential = function() return R.exponential(1, {3}, "float16") end,
      gamma = function() return R.gamma(2, 1, {3}, "float16") end,
      triangular = function() return R.triangular(0, 1, 2, {3}, "float16") end,
    }) do
      local ok, err = pcall(f)
      assert.is_false(ok, name)
      assert.matches("to '" .. name .. "' %(random numbers are float32 or float64, not float16%)", err, 1, false)
    end
    local ok, err = pcall(R.integers, 0, 5, {3}, "float16")
    assert.is_false(ok)
    assert.matches("an integer dtype expected, got float16", err, 1, true)
  end)
  it("permutation, shuffle and choice keep float16 values; float16 p sums to 1 within 2^-5", function()
    local x = h({1, 2.5, 3, 0.1})
    local p = gpu.random.permutation(x)
    assert.are.equal("float16", p.dtype)
    check("float16", {0.0999755859375, 1, 2.5, 3}, p:sort({indices = false}))
    local c = x:copy()
    gpu.random.shuffle(c)
    check("float16", {0.0999755859375, 1, 2.5, 3}, c:sort({indices = false}))
    local k = gpu.random.choice(3, 50, {p = h({0.1, 0.2, 0.7})})   -- sums to 1.0001220703125
    assert.is_true(gpu.all(k:ge(1)) and gpu.all(k:le(3)))
    local ok, err = pcall(gpu.random.choice, 3, 4, {p = h({0.1, 0.2, 0.75})})
    assert.is_false(ok)
    assert.matches("probabilities do not sum to 1", err, 1, true)
  end)
end)

describe("float16 polynomials and products", function()
  local p, x = h({1, -2, 0.5}), h({0.5, 2, 3})
  it("keep float16 as NumPy's", function()
    check("float16", {-0.25, 0.5, 3.5}, gpu.polyval(p, x))
    check("float16", {0.5, 1, -0.75, -5, 1.5}, gpu.convolve(p, x))
    check("float16", {3, -4, -2, 0, 0.25}, gpu.correlate(p, x, "full"))
    -- FFTs of float16 transform it as float32 (CuPy's complex64; NumPy gives complex128)
    local f = gpu.fft.fft(h({1, 2, 3, 4}))
    assert.are.equal("complex64", f.dtype)
    assert.are.same({10, -2, -2, -2, 0, 2, 0, -2}, {f:item(1).re, f:item(2).re, f:item(3).re, f:item(4).re,
                                                    f:item(1).im, f:item(2).im, f:item(3).im, f:item(4).im})
    assert.are.equal("complex64", gpu.fft.rfft(h({1, 2, 3, 4})).dtype)
  end)
  it("give float64 where NumPy does", function()
    check("float64", {2, -2}, gpu.polyder(p))
    check("float64", {1 / 3, -1, 0.5, 0}, gpu.polyint(p))
    check("float64", {1, -3, 2}, gpu.poly(h({1, 2})))
  end)
end)
