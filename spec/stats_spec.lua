-- gpu.nansum ... gpu.nanargmax, median, percentile, quantile, ptp, average (lua/stats.lua):
-- NumPy's results (the literals computed with NumPy), NumPy's errors where it has them.
local S = require("spec.support")

local nan = 0 / 0
local function same(want, got, tol)
  tol = tol or 1e-12
  if type(want) == "table" then
    assert.are.equal(#want, #got)
    for i = 1, #want do same(want[i], got[i], tol) end
  elseif want ~= want then
    assert.is_true(got ~= got, ("NaN expected, got %s"):format(tostring(got)))
  else
    assert.is_true(math.abs(got - want) <= tol * math.max(1, math.abs(want)),
                   ("%s expected, got %s"):format(tostring(want), tostring(got)))
  end
end

-- a row of NaNs alone, NaNs scattered elsewhere
local M = {{1, nan, 3, 4}, {nan, nan, nan, nan}, {-2, 5, nan, 0.5}}

describe("NaN-ignoring reductions", function()
  local m = gpu.array(M, "float64")

  it("leave NaNs out, over every dim (a Lua number) or some", function()
    assert.are.equal(11.5, gpu.nansum(m))
    same({8, 0, 3.5}, gpu.nansum(m, 2):totable())
    same({-1, 5, 3, 4.5}, m:nansum(1):totable())
    same({12, 1, -5}, gpu.nanprod(m, 2):totable())
    -- a complex slice of NaNs alone gives its first NaN element, as NumPy's (nan+infj, not nan+0j)
    local z = gpu.nanmax(gpu.array({{gpu.complex(0 / 0, 2), gpu.complex(1, 1)}, {gpu.complex(0 / 0, 3), gpu.complex(0 / 0, 1)}}, "complex128"), 2):totable()
    assert.are.same({1, 1, 3}, {z[1].re, z[1].im, z[2].im})
    assert.is_true(z[2].re ~= z[2].re)
    assert.are.equal(math.huge, gpu.nanmin(gpu.array({gpu.complex(0 / 0, 1 / 0)}, "complex64")).im)
    -- complex: a NaN counts as 1+0j (it counted as 1+1j)
    local z = gpu.nanprod(gpu.array({2, 3, gpu.complex(0 / 0, 0 / 0)}, "complex128"))
    assert.are.same({6, 0}, {z.re, z.im})
    same({4, nan, 5}, gpu.nanmax(m, 2):totable())
    same({-2, 5, 3, 0.5}, m:nanmin(1):totable())
    assert.are.equal(5, gpu.nanmax(m))
    same({2.6666666666666665, nan, 1.1666666666666667}, gpu.nanmean(m, {dim = 2}):totable())
    same(1.9166666666666667, m:nanmean())
    same({2.333333333333333, nan, 12.583333333333332}, gpu.nanvar(m, 2, {ddof = 1}):totable())
    same({1.5, 0, 0, 1.75}, gpu.nanstd(m, 1):totable())
    same(5.534722222222222, gpu.nanvar(m))
  end)

  it("give the 1-based index of the extreme, NaNs read as -inf (inf)", function()
    assert.are.same({1, 3, 1, 1}, gpu.nanargmax(m, 1):totable())
    assert.are.same({3, 3, 1, 3}, m:nanargmin(1):totable())
    assert.are.equal(10, gpu.nanargmax(m))
    assert.are.equal("int64", gpu.nanargmax(m, 1).dtype)
    assert.are.equal(1, gpu.nanargmax(gpu.array({nan, -math.huge})))   -- as NumPy's
    assert.matches("gpu.nanargmax: All-NaN slice encountered", S.errof(gpu.nanargmax, m, 2), 1, true)
    assert.matches("gpu.nanargmin: attempt to get argmin of an empty sequence", S.errof(gpu.nanargmin, gpu.zeros({0, 2}), 1), 1, true)
  end)

  it("take keepdim and out as gpu.sum does", function()
    local r = gpu.nanmax(m, 2, {keepdim = true})
    assert.are.same({3, 1}, r.shape)
    assert.are.same({1, 1}, gpu.nansum(m, {keepdim = true}).shape)
    local o = gpu.zeros({4}, "float64")
    assert.are.equal(o, gpu.nanmean(m, 1, {out = o}))
    same({-0.5, 5, 3, 2.25}, o:totable())
    assert.matches("gpu.nanmean: out has shape {3} but the result has shape {4}",
                   S.errof(gpu.nanmean, m, 1, {out = gpu.zeros(3, "float64")}), 1, true)
    assert.matches("gpu.nansum: out is int32, and the result (float64) cannot be cast to it",
                   S.errof(gpu.nansum, m, 1, {out = gpu.zeros(4, "int32")}), 1, true)
    assert.matches("gpu.nanmax: dim 3 is out of range for an array of 2 dimensions", S.errof(gpu.nanmax, m, 3), 1, true)
    assert.matches("gpu.nansum: dim 1 is given twice", S.errof(gpu.nansum, m, {1, -2}), 1, true)
    assert.matches("gpu.nanargmax takes one dim (a number), got table", S.errof(gpu.nanargmax, m, {1}), 1, true)
  end)

  it("keep NumPy's dtypes; integers reduce as the plain reductions", function()
    local f = gpu.array({3.5, nan, -1.25, 8, 2}, "float32")
    assert.are.equal("float32", gpu.nanmean(f, 1).dtype)
    same(3.0625, f:nanmean())
    same(11.074219, f:nanvar(), 1e-7)
    same(3.3277948, f:nanstd(), 1e-7)
    assert.are.equal("float32", gpu.nanstd(f, 1).dtype)
    local i = gpu.array({{3, -7, 2}, {5, 0, 9}}, "int32")
    assert.are.equal("int64", gpu.nansum(i, 2).dtype)
    assert.are.same({-2, 14}, gpu.nansum(i, 2):totable())
    assert.are.same({4, -3.5, 5.5}, gpu.nanmean(i, 1):totable())
    assert.are.equal(24.0, gpu.nanvar(i))
    assert.are.same({3, 9}, gpu.nanmax(i, 2):totable())
    assert.are.equal("int32", gpu.nanmax(i, 2).dtype)
    assert.are.same({2, 2}, gpu.nanargmin(i, 2):totable())
    assert.are.same({15, 0, 18}, gpu.nanprod(i, 1):totable())
  end)

  it("give NumPy's answers for no elements", function()
    local e = gpu.zeros({0}, "float64")
    assert.are.equal(0, gpu.nansum(e))
    assert.are.equal(1, gpu.nanprod(e))
    same(nan, gpu.nanmean(e))
    same(nan, gpu.nanvar(e))
    assert.are.same({0}, gpu.nanmax(gpu.zeros({0, 3}), 2).shape)
    assert.matches("gpu.nanmax of an empty array", S.errof(gpu.nanmax, e), 1, true)
    assert.matches("gpu.nanmin of an empty array", S.errof(gpu.nanmin, gpu.zeros({0, 3}), 1), 1, true)
  end)
end)

describe("gpu.median, percentile and quantile", function()
  local x = gpu.array({7, 1, 3.5, 10, -2, 4}, "float64")

  it("give NumPy's values ('linear' method)", function()
    assert.are.equal(3.75, gpu.median(x))
    assert.are.equal(3.5, gpu.median(x[{ {1, 5} }]))
    same(2.25, gpu.percentile(x, 30))
    same({-2, 1.625, 9.925, 10}, gpu.percentile(x, {0, 25, 99.5, 100}):totable())
    same(3.125, gpu.quantile(x, 0.37))
    same({3, 6}, gpu.median(gpu.array({{4, 1, 3}, {2, 8, 6}}, "int64"), 2):totable())
    assert.are.equal("float64", gpu.median(gpu.array({{4, 1, 3}}, "int64"), 2).dtype)
    assert.are.equal(2.5, gpu.quantile(gpu.array({1, 2, 3, 4}, "int16"), 0.5))
  end)

  it("reduce over dims, q's dimension first", function()
    local y = gpu.arange(24, "float64"):reshape(2, 3, 4) ^ 1.5
    same({42.62980882152882, 65.21855912710005, 90.8009931988078}, gpu.percentile(y, 60, {1, 3}):totable())
    local p = gpu.percentile(y, {10, 90}, 2, {keepdim = true})
    assert.are.same({2, 2, 1, 4}, p.shape)
    same({1.6, 3.03606797749979, 5.202129391136767, 7.860973773655733, 46.055375505322445, 51.51629239192553,
          57.180069205497574, 63.03961613994356, 19.701933598375618, 23.83606797749979, 28.23760897268685,
          32.89034999061795, 84.35417527999327, 91.00583080235816, 97.82482384652178, 104.80711601440859},
         p:reshape(-1):totable())
  end)

  it("propagate NaN, or leave it out in the nan forms", function()
    local n = gpu.array({{1, nan, 5, 2}, {nan, nan, nan, nan}}, "float64")
    same({nan, nan}, gpu.median(n, 2):totable())
    same({2, nan}, gpu.nanmedian(n, 2):totable())
    same(1.8, gpu.nanpercentile(n[{1}], 40))
    same({1.8, nan}, gpu.nanquantile(n, 0.4, 2):totable())
    same(nan, gpu.percentile(gpu.array({1, nan, 3}), 50))
    -- a 0-D q is one q, as NumPy's np.array(0.5) (it was indexed as a table)
    same(2.5, gpu.quantile(gpu.array({1, 2, 3, 4}, "float64"), gpu.full({}, 0.5, "float64")))
    same(2.5, gpu.percentile(gpu.array({1, 2, 3, 4}, "float64"), gpu.full({}, 50, "int64")))
    -- a range no float holds the width of is NumPy's error, not wrong counts
    assert.matches("gpu.histogram: the range [-1.9999999360571385e+38, 1.9999999360571385e+38] is wider "
                   .. "than float32 holds", S.errof(gpu.histogram, gpu.array({-2e38, 2e38}, "float32"), 4), 1, true)
    assert.matches("is wider than float64 holds", S.errof(gpu.histogram, gpu.array({-1e308, 0, 1e308}, "float64"), 4), 1, true)
    assert.are.same({1, 0, 0, 1}, (gpu.histogram(gpu.array({-1e38, 1e38}, "float32"), 4)):totable())
    -- rows of one element, a NaN (the element above the middle was looked for past the row)
    same(nan, gpu.nanpercentile(gpu.array({nan}), 50))
    same({nan, nan}, gpu.nanquantile(gpu.array({nan}), {0.5, 1}):totable())
    same({nan, 1}, gpu.nanquantile(gpu.array({{nan}, {1}}), 0.5, 2):totable())
  end)

  it("keep float32 (computed in float64, rounded once)", function()
    local f = gpu.array({0.1, 0.7, 0.2}, "float32")
    assert.are.equal("float32", gpu.median(f, 1).dtype)
    assert.are.equal("float32", gpu.percentile(f, 30, 1).dtype)
    same(0.16, gpu.percentile(f, 30), 1e-7)
    -- Before: b - a in the input's dtype overflowed (an infinite quantile of finite data)
    -- or rounded to float16 first
    local h = gpu.array({-65504, 65504}, "float16")
    same({0, 0, 0}, {gpu.percentile(h, 50), gpu.quantile(h, 0.5), gpu.nanpercentile(h, 50)})
    local b = gpu.array({-3e38, 3e38}, "float32")
    same(-1.5e38, gpu.percentile(b, 25), 1e-7)
    same(0, gpu.percentile(b, 50))
    same(-3.904104232788086e-05, gpu.percentile(gpu.array({-2.646, 9.38}, "float16"), 22))
  end)

  it("refuse what NumPy refuses", function()
    assert.matches("gpu.percentile: percentiles must be in the range [0, 100], got 101", S.errof(gpu.percentile, x, 101), 1, true)
    assert.matches("gpu.quantile: quantiles must be in the range [0, 1], got -0.5", S.errof(gpu.quantile, x, {0.5, -0.5}), 1, true)
    -- a string said "must be in the range [0, 100], got 50" (shown as the number)
    assert.matches('gpu.percentile: q[1] must be a number, got a string ("50")', S.errof(gpu.percentile, x, {"50"}), 1, true)
    assert.matches("gpu.quantile: q[2] must be a number, got boolean", S.errof(gpu.quantile, x, {0.5, true}), 1, true)
    assert.matches("gpu.median: a is complex", S.errof(gpu.median, gpu.zeros(3, "complex64")), 1, true)
    -- a bool array gave values (NumPy 2.4: TypeError, numpy boolean subtract); median takes it, as NumPy's
    local b = gpu.array({true, false, true})
    for _, f in ipairs({"percentile", "quantile", "nanpercentile", "nanquantile"}) do
      assert.are.equal(("gpu.%s: a bool array has no 'linear' quantile (NumPy's boolean subtract is a TypeError): " ..
                        'give a:astype("uint8")'):format(f), S.errof(gpu[f], b, 0.5))
    end
    assert.are.same({1, 0.5}, {gpu.median(b), gpu.nanmedian(b[{{1, 2}}])})   -- NumPy: 1.0, 0.5
    assert.matches("gpu.percentile: no elements", S.errof(gpu.percentile, gpu.zeros(0), 50), 1, true)
    same(nan, gpu.median(gpu.zeros(0, "float64")))
  end)
end)

describe("edges found by an adversarial pass", function()
  it("nanvar keeps inf - inf NaN; float16 medians and uint64 histograms do not overflow", function()
    -- NumPy: np.nanvar([1, nan, inf, 2]), np.nanvar([-inf, inf, 2]), np.nanvar([inf]) are nan
    same(nan, gpu.nanvar(gpu.array({1, nan, math.huge, 2}, "float64")))
    same(nan, gpu.nanvar(gpu.array({-math.huge, math.huge, 2}, "float64")))
    same(nan, gpu.nanstd(gpu.array({math.huge, nan}, "float32")))
    same({1, 1}, gpu.nanvar(gpu.array({{1, nan, 3}, {4, 6, nan}}), 2):totable())
    -- np.median(np.array([65504, 65504], np.float16)) is 65504 (the sum of two in float32)
    local m = gpu.median(gpu.array({65504, 65504}, "float16"))
    same(65504, m)
    same(60000, gpu.nanmedian(gpu.array({60000, nan, 60000}, "float16")), 1e-3)
    same(3, gpu.median(gpu.array({1, 2, 4, 8}, "float16")))
    -- np.histogram(np.array([0, 2**64 - 1], np.uint64), 4): [1, 0, 0, 1], edges to 2^64
    local counts, edges = gpu.histogram(gpu.array({0, -1}, "int64"):astype("uint64"), 4)
    assert.are.same({1, 0, 0, 1}, counts:totable())
    same({0, 2 ^ 62, 2 ^ 63, 3 * 2 ^ 62, 2 ^ 64}, edges:totable())
  end)
end)

describe("gpu.ptp and gpu.average", function()
  it("ptp: max - min in the dtype, as NumPy's", function()
    local i = gpu.array({{3, -7, 2}, {5, 0, 9}}, "int32")
    assert.are.same({10, 9}, gpu.ptp(i, 2):totable())
    assert.are.equal(16, i:ptp())
    assert.are.equal(-56, gpu.ptp(gpu.array({-100, 100}, "int8")))   -- wraps, as NumPy's
    assert.matches("gpu.ptp: bool arrays cannot be subtracted", S.errof(gpu.ptp, gpu.zeros(2, "bool")), 1, true)
  end)

  it("average: the mean, or weighted along a dim or over all", function()
    local a = gpu.array({{1, 2, 3}, {4, 5, 6}}, "float32")
    assert.are.equal(3.5, gpu.average(a))
    local r = gpu.average(a, {dim = 2, weights = gpu.array({3, 1, 0.5}, "float32")})
    assert.are.equal("float32", r.dtype)
    same({1.4444444, 4.4444447}, r:totable(), 1e-7)
    local i = gpu.array({{3, -7, 2}, {5, 0, 9}}, "int32")
    assert.are.equal(2.0, gpu.average(i, {weights = gpu.full({2, 3}, 2, "int64")}))
    assert.matches("gpu.average: weights sum to zero", S.errof(gpu.average, a, {weights = gpu.zeros({2, 3})}), 1, true)
    assert.matches("gpu.average: 1-D weights must have the length of dim 2 (3)",
                   S.errof(gpu.average, a, {dim = 2, weights = gpu.ones(2)}), 1, true)
  end)
end)

describe("gpu.bincount, isin, argwhere, flatnonzero and interp", function()
  it("bincount: counts (int64) or sums of weights (float64) of 0 ... max, as NumPy's", function()
    local x = gpu.array({3, 0, 1, 3, 7, 3, 1}, "int64")
    assert.are.same({1, 2, 0, 3, 0, 0, 0, 1}, gpu.bincount(x):totable())
    assert.are.equal("int64", gpu.bincount(x).dtype)
    assert.are.same({1, 2, 0, 3, 0, 0, 0, 1, 0, 0}, gpu.bincount(x, {minlength = 10}):totable())
    local w = gpu.array({0.5, 2, -1, 0.25, 1, 0.125, 3}, "float64")
    same({2, 2, 0, 0.875, 0, 0, 0, 1}, gpu.bincount(x, {weights = w}):totable())
    assert.are.same({0, 0, 0}, gpu.bincount(gpu.zeros(0, "int64"), {minlength = 3}):totable())
    assert.matches("gpu.bincount: x must have no negative elements, got -1", S.errof(gpu.bincount, gpu.array({1, -1}, "int64")), 1, true)
    assert.matches("gpu.bincount: x must hold integers", S.errof(gpu.bincount, gpu.array({1.5})), 1, true)
    -- a string minlength shown quoted (it said 'got 5', as the number)
    assert.matches('gpu.bincount: minlength must be a non-negative integer, got a string ("5")',
                   S.errof(gpu.bincount, gpu.zeros(1, "int64"), {minlength = "5"}), 1, true)
    -- uint64 was refused ("safely int64"); NumPy 2.4 casts it to int64: [0 1 1], and a value past 2^63 - 1 is refused
    local u = gpu.array({1, 2, 2}, "uint64")
    assert.are.same({0, 1, 2}, gpu.bincount(u):totable())
    same({0, 0.5, 3}, gpu.bincount(u, {weights = gpu.array({0.5, 1, 2}, "float64")}):totable())
    assert.are.equal("gpu.bincount: x holds a uint64 element past 2^63 - 1, which int64 (NumPy's cast) does not hold",
                     S.errof(gpu.bincount, gpu.array({1, -1}, "uint64")))
  end)

  it("bincount: each bin sums its own weights alone (an inf, NaN or huge weight reaches no other)", function()
    local x = gpu.array({0, 2, 1, 2, 0}, "int64")
    same({1e20, 1, 2}, gpu.bincount(x, {weights = gpu.array({1e20, 1, 1, 1, 0}, "float64")}):totable())
    local r = gpu.bincount(x, {weights = gpu.array({math.huge, 1, nan, 1, 1}, "float64")}):totable()
    assert.are.equal(math.huge, r[1]); same({nan, 2}, {r[2], r[3]})
  end)

  it("bincount: runs longer than a warp's piece (1024) are summed in pieces, each bin alone", function()
    -- bin 0 holds 5000 elements (5 pieces), bin 1 1023, bin 2 1025, bin 4 one NaN among 2048
    local xs, ws, want = {}, {}, {0, 0, 0, 0, 0}
    local function put(bin, count, w)
      for _ = 1, count do xs[#xs + 1] = bin; ws[#ws + 1] = w; want[bin + 1] = want[bin + 1] + w end
    end
    put(0, 5000, 3); put(2, 1025, -1); put(1, 1023, 0.5); put(4, 2047, 2); put(4, 1, nan)
    local perm = gpu.random.permutation(#xs)   -- (1-based) the order of the elements must not matter
    local x = gpu.take(gpu.array(xs, "int64"), perm)
    local w = gpu.take(gpu.array(ws, "float64"), perm)
    local r = gpu.bincount(x, {weights = w}):totable()
    same({15000, 511.5, -1025, 0}, {r[1], r[2], r[3], r[4]})
    assert.is_true(r[5] ~= r[5])
    assert.are.same({5000, 1023, 1025, 0, 2048}, gpu.bincount(x):totable())
  end)

  it("bincount: a greatest element or minlength too big for memory is an error before any allocation", function()
    for _, v in ipairs({math.tointeger(2 ^ 50), math.maxinteger}) do
      assert.matches(("gpu.bincount: x's greatest element is %d: that many bins would not fit"):format(v),
                     S.errof(gpu.bincount, gpu.array({0, v}, "int64")), 1, true)
    end
    assert.matches("gpu.bincount: minlength is 1125899906842624: that many bins would not fit",
                   S.errof(gpu.bincount, gpu.zeros(1, "int64"), {minlength = math.tointeger(2 ^ 50)}), 1, true)
  end)

  it("isin: whether each element is among the test elements (NaN never is)", function()
    local e = gpu.array({{1, 5, -2}, {7, nan, 3}}, "float64")
    assert.are.same({{true, false, false}, {false, false, true}}, gpu.isin(e, {3, 1, 9, nan}):totable())
    assert.are.same({{false, true, true}, {true, true, false}},
                    gpu.isin(e, gpu.array({3, 1, 9}, "int64"), {invert = true}):totable())
    assert.are.same({false, false}, gpu.isin(gpu.arange(2, "float64"), gpu.zeros(0, "float64")):totable())
    -- a table of integers is taken as int64, exact past 2^53 (as float64, 2^53 + 1 was 2^53)
    local big = math.tointeger(2 ^ 53)
    assert.are.same({false, true}, gpu.isin(gpu.array({big + 1, big}, "int64"), {big}):totable())
    assert.are.same({true}, gpu.isin(gpu.array({2.5}, "float64"), {1, 2.5}):totable())
    -- one test element as a number or a boolean (NumPy's isin(a, 2))
    assert.are.same({false, true, false}, gpu.isin(gpu.array({1, 2, 3}, "int32"), 2):totable())
    assert.are.same({true, false}, gpu.isin(gpu.array({0.5, 0.1}, "float32"), 0.5):totable())   -- (0.1 in float32 is not 0.1)
    assert.are.same({false, false}, gpu.isin(gpu.array({0.5, 0.1}, "float32"), 0.1):totable())
    assert.are.same({false, true}, gpu.isin(gpu.array({0.5, 0.1}, "float32"), 0.5, {invert = true}):totable())
    assert.are.same({true, false}, gpu.isin(gpu.array({true, false}, "bool"), true):totable())
    assert.matches("test_elements must be a device array, a table, a number or a boolean, got string",
                   select(2, pcall(gpu.isin, gpu.array({1}), "x")), 1, true)
  end)

  it("argwhere and flatnonzero: 1-based indices", function()
    local a = gpu.array({{0, 2, 0}, {1, 0, 3}}, "float64")
    assert.are.same({{1, 2}, {2, 1}, {2, 3}}, gpu.argwhere(a):totable())
    assert.are.same({0, 2}, gpu.argwhere(gpu.zeros({2, 2}, "float64")).shape)
    assert.are.same({2, 4, 6}, gpu.flatnonzero(a):totable())
  end)

  it("interp: NumPy's piecewise-linear values, left and right outside", function()
    local xp = gpu.array({-1.0, 0.5, 0.5, 2, 4.25, 7}, "float64")
    local fp = gpu.array({3.0, -1, 2, 2, 10, 0}, "float64")
    local x = gpu.array({-3, -1, 0, 0.5, 1.7, 2, 3, 7, 9, nan}, "float64")
    same({3, 3, 0.3333333333333335, 2, 2, 2, 5.555555555555555, 0, 0, nan}, gpu.interp(x, xp, fp):totable())
    same({-9, 3, 0.3333333333333335, 2, 2, 2, 5.555555555555555, 0, 99, nan},
         gpu.interp(x, xp, fp, {left = -9, right = 99}):totable())
    same(5.555555555555555, gpu.interp(3, xp, fp))
    assert.matches("gpu.interp: fp and xp are not of the same length (5 and 6)", S.errof(gpu.interp, x, xp, fp[{ {1, 5} }]), 1, true)
    assert.matches("gpu.interp: array of sample points is empty",
                   S.errof(gpu.interp, x, gpu.zeros(0, "float64"), gpu.zeros(0, "float64")), 1, true)
  end)
end)

describe("gpu.cov, corrcoef, convolve, correlate and trapezoid", function()
  local m = gpu.array({{1, 4, 2.5, 0}, {3, -1, 2, 5}, {0.5, 0.5, 1, -2}}, "float64")

  it("cov and corrcoef: NumPy's matrices (rows the variables unless rowvar = false)", function()
    same({3.0625, -4.291666666666666, 1.6666666666666665, -4.291666666666666, 6.25, -2.333333333333333,
          1.6666666666666665, -2.333333333333333, 1.8333333333333333}, gpu.cov(m):reshape(-1):totable())
    local c = gpu.cov(m[{1}])
    assert.are.same({}, c.shape)
    same(3.0625, c:item())
    same({1.1666666666666665, -1.3333333333333333, 0.25, 3.1666666666666665},
         gpu.cov(m, {rowvar = false, bias = true})[{1}]:totable())
    same({1, -0.9809523809523808, 0.7033799484533299, -0.9809523809523808, 1, -0.6893123494842632,
          0.7033799484533299, -0.6893123494842632, 1}, gpu.corrcoef(m):reshape(-1):totable())
    assert.are.equal("float64", gpu.cov(gpu.ones({2, 3}, "float32")).dtype)
    -- corrcoef's x was named as cov's m
    assert.are.equal("gpu.corrcoef: x must be 1-D or 2-D, got 3-D", S.errof(gpu.corrcoef, gpu.ones({2, 2, 2})))
    -- a 0-D array is one observation of one variable, as NumPy's atleast_2d makes it: nan
    -- (it said gpu.mean: dim 2 is out of range)
    for _, f in ipairs({gpu.cov, gpu.corrcoef}) do
      local z = f(gpu.asarray(1.0))
      assert.are.same({}, z.shape)
      assert.is_true(z:item() ~= z:item())
    end
    -- NumPy's 1 / max(N - ddof, 0): inf past N observations, nan of none (not negative)
    local c2 = gpu.array({{1, 2, 4}, {0, 1, 5}}, "float64")
    assert.are.same({1 / 0, 1 / 0, 1 / 0, 1 / 0}, gpu.cov(c2, {ddof = 5}):reshape(-1):totable())
    local e = gpu.cov(gpu.zeros({2, 0}, "float64")):reshape(-1):totable()
    for k = 1, 4 do assert.is_true(e[k] ~= e[k]) end
    -- complex: the imaginary parts are clipped to [-1, 1] too
    local x = gpu.array({0.3, -1.2, 2.5, 0.7}, "float64")
    local z = gpu.stack({x:astype("complex128"), x * gpu.full({}, gpu.complex(0, 3.7), "complex128")})
    local im = gpu.imag(gpu.corrcoef(z))
    assert.is_true(im:max() <= 1 and im:min() >= -1)
    assert.are.equal(1, gpu.abs(im):max())
    -- one row stays one variable with rowvar = false (NumPy transposes only more rows), and
    -- one variable gives a 0-D result, as NumPy's squeeze
    local row = gpu.array({{1, 2, 4}}, "float64")
    for _, c1 in ipairs({gpu.cov(row), gpu.cov(row, {rowvar = false}), gpu.cov(row.T, {rowvar = false})}) do
      assert.are.same({}, c1.shape)
      same(7 / 3, c1:item())
    end
    assert.are.same({}, gpu.corrcoef(row, {rowvar = false}).shape)
    assert.are.same({3, 3}, gpu.cov(row.T).shape)
  end)

  it("convolve and correlate: NumPy's modes, dtypes and conjugation", function()
    local a, v = gpu.array({1, 2, 3, 4}, "int32"), gpu.array({0, 1, -1}, "int32")
    assert.are.same({0, 1, 1, 1, 1, -4}, gpu.convolve(a, v):totable())
    assert.are.equal("int32", gpu.convolve(a, v).dtype)
    assert.are.same({1, 1, 1, 1}, gpu.convolve(a, v, "same"):totable())
    assert.are.same({1, 1}, gpu.convolve(a, v, "valid"):totable())
    assert.are.same({-1, -1}, gpu.correlate(a, v):totable())
    assert.are.same({-1, -1, -1, -1, 4, 0}, gpu.correlate(a, v, "full"):totable())
    assert.are.same({4, -1, -1, -1}, gpu.correlate(v, a, "same"):totable())
    local z = gpu.correlate(gpu.array({1, 2, 3}, "complex128"), gpu.array({gpu.complex(1, 2), gpu.complex(3, -1)}, "complex128"), "full")
    local want = {{3, 1}, {7, 0}, {11, -1}, {3, -6}}
    for i, w in ipairs(want) do
      local e = z:item(i)
      assert.are.same(w, {e.re, e.im})
    end
    assert.matches("gpu.convolve: v cannot be empty", S.errof(gpu.convolve, a, gpu.zeros(0, "int32")), 1, true)
    assert.matches("gpu.correlate: mode must be \"full\", \"same\" or \"valid\", got middle", S.errof(gpu.correlate, a, v, "middle"), 1, true)
    assert.matches("gpu.correlate: mode must be \"full\", \"same\" or \"valid\", got table$", S.errof(gpu.correlate, a, v, {}))
  end)

  it("convolve and correlate: each kept output sums the products where the operands overlap, nothing more", function()
    -- an inf in v is read only where it overlaps a (it was multiplied by the zeros padding
    -- a, giving NaN): np.convolve([1., 2, 3, 4], [inf, 1, 1], m), np.correlate both ways
    local inf = math.huge
    local a, v = gpu.array({1, 2, 3, 4}, "float64"), gpu.array({inf, 1, 1}, "float64")
    local want = {full = {{inf, inf, inf, inf, 7, 4}, {1, 3, inf, inf, inf, inf}, {inf, inf, inf, inf, 3, 1}},
                  same = {{inf, inf, inf, 7}, {3, inf, inf, inf}, {inf, inf, inf, 3}},
                  valid = {{inf, inf}, {inf, inf}, {inf, inf}}}
    for m, w in pairs(want) do
      assert.are.same(w, {gpu.convolve(a, v, m):totable(), gpu.correlate(a, v, m):totable(), gpu.correlate(v, a, m):totable()})
    end
    assert.are.same({1, -inf, -inf, -inf}, gpu.convolve(gpu.array({1, 2, 3}, "float32"), gpu.array({1, -inf}, "float32")):totable())
    -- only the outputs the mode keeps, in memory of their size: under a 4 MB cap, where the
    -- n + m - 1 rows of m products it gathered took 32 MB (valid, same) and 64 MB (polymul)
    local out = S.run("GPUHOST_MEMORY_LIMIT=4000000 " .. S.gpuhost .. " -e " .. S.quote([[
      local x, w = gpu.ones(20000, "float64"), gpu.ones(200, "float64")
      local r, s = gpu.convolve(x, w, "valid"), gpu.correlate(x, w, "same")
      local p = gpu.polymul(gpu.ones(2000, "float64"), gpu.ones(2000, "float64"))
      print(r.size, r:item(1), gpu.sum(r), s.size, s:item(1), s:item(20000), p.size, p:item(2000), gpu.sum(p))]]) .. " 2>&1")
    assert.are.equal("19801\t200.0\t3960200.0\t20000\t100.0\t101.0\t3999\t2000.0\t4000000.0\n", out)
  end)

  it("trapezoid (trapz): NumPy's trapezoidal rule, by dx or x, along a dim", function()
    local y = gpu.array({{1, 2, 4}, {0, 3, 9}}, "int64")
    same({4.5, 7.5}, gpu.trapz(y):totable())
    same({0.25, 1.25, 3.25}, gpu.trapezoid(y, {dx = 0.5, dim = 1}):totable())
    -- x as a table, as NumPy's np.trapz([1, 2, 3], [0, 1, 3]) = 6.5 (it said the options table has a number key)
    same(6.5, gpu.trapezoid(gpu.array({1, 2, 3}, "float64"), {0, 1, 3}))
    same(5.25, gpu.trapz(y[{1}], gpu.array({0, 0.5, 2.0}, "float64")))
    assert.are.equal("float32", gpu.trapz(gpu.ones({2, 3}, "float32")).dtype)
    assert.are.equal(0.0, gpu.trapz(gpu.zeros(0, "float64")))
  end)
end)

describe("gpu.tensordot, inner, kron, cross, vander and polyval", function()
  it("tensordot and inner: sums over dims, by matmul or, for integers, a product summed", function()
    local a, b = gpu.arange(6, "float64"):reshape(2, 3), gpu.arange(12, "float64"):reshape(3, 4) - 5
    same({5, 8, 11, 14, -4, 8, 20, 32}, gpu.tensordot(a, b, 1):reshape(-1):totable())
    same({5, 14, 14, 50}, gpu.inner(a, a):reshape(-1):totable())
    local A, B = gpu.arange(24, "int64"):reshape(2, 3, 4), gpu.arange(24, "int64"):reshape(4, 2, 3)
    local r = gpu.tensordot(A, B, {{1, 3}, {2, 1}})
    assert.are.equal("int64", r.dtype)
    assert.are.same({{762, 822, 882}, {1098, 1190, 1282}, {1434, 1558, 1682}}, r:totable())
    assert.matches("gpu.tensordot: dim 1 of a (2) and dim 1 of b (4) differ", S.errof(gpu.tensordot, A, B, {1, 1}), 1, true)
    -- past 8 dims: the shape's words ("shape must have 0 to 8 dimensions, got 10"), and
    -- inner's said as tensordot's
    local d5 = gpu.ones({1, 1, 1, 1, 1})
    assert.are.equal("gpu.tensordot: the result would have 10 dimensions, more than an array has (8)",
                     S.errof(gpu.tensordot, d5, d5, 0))
    local d6 = gpu.ones({1, 1, 1, 1, 1, 1})
    assert.are.equal("gpu.inner: the result would have 10 dimensions, more than an array has (8)", S.errof(gpu.inner, d6, d6))
    assert.are.same({1, 1, 1, 1, 1, 1, 1, 1}, gpu.inner(d5, d5).shape)
  end)

  it("kron, cross, vander and polyval: NumPy's values and dtypes", function()
    assert.are.same({{0, 1, 0, 2}, {1, 0, 2, 0}, {0, 3, 0, 4}, {3, 0, 4, 0}},
                    gpu.kron(gpu.array({{1, 2}, {3, 4}}, "int64"), gpu.array({{0, 1}, {1, 0}}, "int64")):totable())
    assert.are.same({-3, 6, -3}, gpu.cross(gpu.array({1, 2, 3}, "int64"), gpu.array({4, 5, 6}, "int64")):totable())
    assert.are.same({{0, -1, 0}, {1, 0, 0}},
                    gpu.cross(gpu.array({{1, 0, 0}, {0, 1, 0}}, "int64"), gpu.array({0, 0, 1}, "int64")):totable())
    assert.are.equal(-2, gpu.cross(gpu.array({1, 2}, "int64"), gpu.array({3, 4}, "int64")):item())
    -- dims of size 1 are not split to interleave: 5-D operands fit (they raised "shape must
    -- have 0 to 8 dimensions, got 10"), and what cannot fit says so
    local k5 = gpu.kron(gpu.arange(1, 5, "int64"):reshape(2, 1, 1, 1, 2), gpu.arange(1, 7, "int64"):reshape(1, 2, 1, 1, 3))
    assert.are.same({2, 2, 1, 1, 6}, k5.shape)
    assert.are.same({1, 2, 3, 2, 4, 6}, k5[{1, 1, 1, 1}]:totable())
    assert.are.same({4, 5, 6, 8, 10, 12}, k5[{1, 2, 1, 1}]:totable())
    assert.matches("gpu.kron: shapes {2, 2, 2, 2, 2} and {2, 2, 2, 2, 2} need 10 dimensions",
                   S.errof(gpu.kron, gpu.ones({2, 2, 2, 2, 2}), gpu.ones({2, 2, 2, 2, 2})), 1, true)
    assert.matches("gpu.tensordot: dim 1 of b is named twice",
                   S.errof(gpu.tensordot, gpu.ones({3, 3}), gpu.ones({3, 3}), {{1, 2}, {1, 1}}), 1, true)
    -- a 2-vector's missing component takes no part, as NumPy's (0 * inf made [2, nan, -inf])
    local inf = math.huge
    assert.are.same({2, -1, -inf}, gpu.cross(gpu.array({1, 2}, "float64"), gpu.array({inf, 1, 1}, "float64")):totable())
    assert.are.same({-2, 1, inf}, gpu.cross(gpu.array({inf, 1, 1}, "float64"), gpu.array({1, 2}, "float64")):totable())
    assert.matches("gpu.cross: incompatible dimensions", S.errof(gpu.cross, gpu.ones(4), gpu.ones(3)), 1, true)
    local v = gpu.vander(gpu.array({1, 2, 3}, "int32"))
    assert.are.same({{1, 1, 1}, {4, 2, 1}, {9, 3, 1}}, v:totable())
    assert.are.equal("int64", v.dtype)
    assert.are.same({{1, 2, 4}, {1, 3, 9}}, gpu.vander(gpu.array({2, 3}, "float64"), 3, {increasing = true}):totable())
    same({2.5, 21.5, 2.125}, gpu.polyval({3, 0, -2, 1.5}, gpu.array({1, 2, -0.5}, "float64")):totable())
    -- in x's and p's dtype together, as NumPy 2's: 300 into an int8 x was refused by gpu.add
    local y = gpu.polyval(gpu.array({300, 1}, "int64"), gpu.array({1, 2}, "int8"))
    assert.are.equal("int64", y.dtype)
    same({301, 601}, y:totable())
    same({300, 400}, gpu.polyval({100, 100}, gpu.array({2, 3}, "int8")):totable())
    assert.are.equal("float64", gpu.polyval({1.5, 2}, gpu.array({2, 3}, "float32")).dtype)
    assert.are.equal("float32", gpu.polyval(gpu.array({1.5, 2}, "float32"), gpu.array({2, 3}, "float32")).dtype)
    assert.are.equal("int16", gpu.polyval(gpu.array({1, 2}, "int8"), gpu.array({2, 3}, "uint8")).dtype)
    assert.are.equal(5, gpu.polyval(gpu.array({1, 2}, "int64"), 3))
    assert.matches("gpu.polyval: coefficient 2 must be a number, got string", S.errof(gpu.polyval, {1, "a"}, 2), 1, true)
    local k0 = gpu.kron(gpu.full({}, 2, "int64"), gpu.full({}, 3, "int64"))   -- two 0-D: 0-D, as NumPy's
    assert.are.same({{}, 6}, {k0.shape, k0:item()})
  end)
end)

describe("a list of numbers (q, dims, coefficients)", function()
  local x, m = gpu.arange(6, "float64"), gpu.arange(6, "float64"):reshape(2, 3)

  it("with a hole is refused, naming the place: ipairs dropped what followed it", function()
    -- percentile(x, {10, nil, 90}) gave [0.5] (90 dropped), {nil, 90} gave []; polyval({1, nil,
    -- 3}, 2) gave 1; nansum(m, {1, nil, 2}) summed dim 1 alone; NumPy raises for a None in each
    assert.matches("gpu.percentile: q[2] is nil", S.errof(gpu.percentile, x, {10, nil, 90}), 1, true)
    assert.matches("gpu.percentile: q[1] is nil", S.errof(gpu.percentile, x, {nil, 90}), 1, true)
    assert.matches("gpu.quantile: q[2] is nil", S.errof(gpu.quantile, x, {0.1, nil, 0.9}), 1, true)
    assert.matches("gpu.nanpercentile: q[2] is nil", S.errof(gpu.nanpercentile, x, {10, nil, 90}), 1, true)
    assert.matches("gpu.nanquantile: q[1] is nil", S.errof(gpu.nanquantile, x, {nil, 0.9}), 1, true)
    assert.matches("gpu.polyval: p[2] is nil", S.errof(gpu.polyval, {1, nil, 3}, 2), 1, true)
    assert.matches("gpu.polyval: p[1] is nil", S.errof(gpu.polyval, {nil, 3}, x), 1, true)
    assert.matches("gpu.nansum: dim[2] is nil", S.errof(gpu.nansum, m, {1, nil, 2}), 1, true)
    assert.matches("gpu.median: dim[2] is nil", S.errof(gpu.median, m, {1, nil, 2}), 1, true)
    assert.matches("gpu.ptp: dim[2] is nil", S.errof(gpu.ptp, m, {1, nil, 2}), 1, true)
    assert.matches("gpu.average: dim[2] is nil", S.errof(gpu.average, m, {dim = {1, nil, 2}}), 1, true)
    -- {nil, 2} is dims with a hole, not an options table ("the options table has a number key")
    assert.matches("gpu.nanmean: dim[1] is nil", S.errof(gpu.nanmean, m, {nil, 2}), 1, true)
    assert.matches("gpu.tensordot: dims[1][2] is nil", S.errof(gpu.tensordot, m, m, {{1, nil, 2}, {1, nil, 2}}), 1, true)
    -- a key besides the list's: {10, 90, dim = 1} dropped the misplaced dim
    assert.matches('gpu.percentile: q must be a list, and the table has a key "dim" besides its 2 elements',
                   S.errof(gpu.percentile, m, {10, 90, dim = 1}), 1, true)
    -- lists without holes, and options tables, as before
    same({0.5, 4.5}, gpu.percentile(x, {10, 90}):totable())
    assert.are.equal(16, gpu.polyval({1, 2, 1}, 3))
    assert.are.equal(15, gpu.nansum(m, {1, 2}):item())
    same({1.5, 2.5, 3.5}, gpu.nanmean(m, {dim = 1}):totable())
  end)
end)
