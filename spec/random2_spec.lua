-- NumPy's distributions in gpu.random (lua/random.lua, kernels/builtin.cu's continuous and
-- discrete kernels): the mean and variance of 10^5 seeded draws against each
-- distribution's exact ones, the share at or below a point against the exact distribution
-- function, the support, reproducibility after gpu.random.seed, shuffle and the legacy
-- names (rand, randn, randint, random_sample), and the parameters NumPy refuses.
local S = require("spec.support")
local R = gpu.random
local N = 100000
local pi, euler = math.pi, 0.5772156649015329

-- a's mean within 5 standard errors of `mean`, its variance within rel of `var`
local function moments(name, a, mean, var, rel)
  local x = a:astype("float64")
  local m, v = x:mean(), x:var()
  local se = math.sqrt(var / N)
  assert(math.abs(m - mean) <= 5 * se, ("%s: mean %.6g, expected %.6g (se %.3g)"):format(name, m, mean, se))
  assert(math.abs(v - var) <= (rel or 0.05) * var, ("%s: variance %.6g, expected %.6g"):format(name, v, var))
end

-- the share of a's elements where mask(a) holds, within 5 standard errors of p
local function share(name, mask, p)
  local got = mask:astype("float64"):mean()
  local se = math.sqrt(p * (1 - p) / N)
  assert(math.abs(got - p) <= 5 * se, ("%s: share %.6g, expected %.6g"):format(name, got, p))
end

describe("gpu.random's continuous distributions", function()
  it("have their exact means and variances", function()
    R.seed(11)
    moments("exponential(2)", R.exponential(2, N, "float64"), 2, 4)
    moments("standard_exponential", R.standard_exponential(N, "float64"), 1, 1)
    moments("gamma(0.5, 2)", R.gamma(0.5, 2, N, "float64"), 1, 2)
    moments("gamma(3.5, 1)", R.gamma(3.5, 1, N, "float64"), 3.5, 3.5)
    moments("gamma(2, 3) float32", R.gamma(2, 3, N), 6, 18)
    moments("standard_gamma(7)", R.standard_gamma(7, N, "float64"), 7, 7)
    moments("beta(0.5, 0.5)", R.beta(0.5, 0.5, N, "float64"), 0.5, 0.125)
    moments("beta(2, 5)", R.beta(2, 5, N, "float64"), 2 / 7, 10 / (49 * 8))
    moments("chisquare(3)", R.chisquare(3, N, "float64"), 3, 6)
    moments("lognormal(0.5, 0.5)", R.lognormal(0.5, 0.5, N, "float64"), math.exp(0.625), (math.exp(0.25) - 1) * math.exp(1.25))
    moments("laplace(1, 2)", R.laplace(1, 2, N, "float64"), 1, 8)
    moments("logistic(1, 2)", R.logistic(1, 2, N, "float64"), 1, 4 * pi ^ 2 / 3)
    moments("gumbel(1, 2)", R.gumbel(1, 2, N, "float64"), 1 + 2 * euler, pi ^ 2 / 6 * 4)
    moments("rayleigh(2)", R.rayleigh(2, N, "float64"), 2 * math.sqrt(pi / 2), (4 - pi) / 2 * 4)
    moments("weibull(2)", R.weibull(2, N, "float64"), math.sqrt(pi) / 2, 1 - pi / 4)
    moments("pareto(5)", R.pareto(5, N, "float64"), 1 / 4, 5 / (16 * 3), 0.1)
    moments("power(3)", R.power(3, N, "float64"), 3 / 4, 3 / (16 * 5))
    moments("standard_t(5)", R.standard_t(5, N, "float64"), 0, 5 / 3, 0.1)
    moments("triangular(0, 1, 4)", R.triangular(0, 1, 4, N, "float64"), 5 / 3, 13 / 18)
    moments("standard_normal", R.standard_normal(N, "float64"), 0, 1)
  end)

  it("have their exact distribution functions at a point (computed with Python's math)", function()
    R.seed(15)
    share("gamma(0.5, 2) <= 1", R.gamma(0.5, 2, N, "float64"):le(1), 0.682689492137086)
    share("gamma(3.5, 1) <= 3", R.gamma(3.5, 1, N, "float64"):le(3), 0.4602506496044427)
    share("beta(2, 5) <= 0.2", R.beta(2, 5, N, "float64"):le(0.2), 0.34464)
  end)

  it("stay in their support, and the Cauchy's quartiles are -1 and 1", function()
    R.seed(12)
    local b = R.beta(0.3, 0.2, N, "float64")
    assert.is_true(b:min() >= 0 and b:max() <= 1)
    local p = R.power(0.5, N, "float64")
    assert.is_true(p:min() >= 0 and p:max() <= 1)
    local t = R.triangular(-2, 3, 3, N, "float64")
    assert.is_true(t:min() >= -2 and t:max() <= 3)
    for _, a in ipairs({R.exponential(1, N), R.gamma(0.1, 1, N), R.rayleigh(1, N), R.weibull(0.5, N), R.pareto(1, N),
                        R.chisquare(0.5, N)}) do
      assert.is_true(a:min() >= 0)
      assert.is_false(a:isnan():any())
    end
    local c = R.standard_cauchy(N, "float64")
    share("|cauchy| < 1", gpu.abs(c):lt(1), 0.5)
    share("gumbel(0, 1) <= 0", R.gumbel(0, 1, N, "float64"):le(0), math.exp(-1))
  end)

  it("are float32 unless float64 is asked for", function()
    assert.are.equal("float32", R.gamma(2, 1, 3).dtype)
    assert.are.equal("float64", R.laplace(0, 1, {2, 2}, "float64").dtype)
    assert.are.same({2, 3}, R.standard_t(3, {2, 3}).shape)
    assert.are.same({}, R.exponential(1, {}).shape)
    assert.are.same({0}, R.beta(1, 2, 0).shape)
  end)
end)

describe("gpu.random's discrete distributions", function()
  it("are int64 with their exact means, variances and probabilities", function()
    R.seed(13)
    local p3 = R.poisson(3, N)
    assert.are.equal("int64", p3.dtype)
    moments("poisson(3)", p3, 3, 3)
    share("poisson(3) = 0", p3:eq(0), math.exp(-3))
    moments("poisson(50)", R.poisson(50, N), 50, 50)
    moments("poisson(1e6)", R.poisson(1e6, N), 1e6, 1e6)
    local b = R.binomial(10, 0.3, N)
    assert.are.equal("int64", b.dtype)
    moments("binomial(10, 0.3)", b, 3, 2.1)
    share("binomial(10, 0.3) = 0", b:eq(0), 0.7 ^ 10)
    moments("binomial(1000, 0.4)", R.binomial(1000, 0.4, N), 400, 240)
    moments("binomial(1000, 0.9)", R.binomial(1000, 0.9, N), 900, 90)
    share("binomial(1000, 0.4) <= 390", R.binomial(1000, 0.4, N):le(390), 0.27031962529018644)
    share("binomial(1000, 0.9) <= 895", R.binomial(1000, 0.9, N):le(895), 0.31377421017657925)
    share("poisson(50) <= 45", R.poisson(50, N):le(45), 0.2668664740596435)
    moments("binomial(10^9, 0.7)", R.binomial(1000000000, 0.7, N), 7e8, 2.1e8)
    local g = R.geometric(0.2, N)
    moments("geometric(0.2)", g, 5, 20)
    share("geometric(0.2) = 1", g:eq(1), 0.2)
    moments("geometric(0.9)", R.geometric(0.9, N), 1 / 0.9, 0.1 / 0.81)
  end)

  it("binomial: a huge n with a tiny p, from its block's table and from an array", function()
    -- q^n was exp(n * log(1 - p)): 1 at p = 1e-17 (every draw 0), 0.8% high at p = 1e-14
    R.seed(15)
    local big, n15 = 1000000000000000000, 1000000000000000
    moments("binomial(10^18, 1e-17)", R.binomial(big, 1e-17, N), 10, 10)
    moments("binomial(10^15, 1e-14)", R.binomial(n15, 1e-14, N), 10, 10)
    moments("binomial(10^15 array, 1e-14 array)",
            R.binomial(gpu.full({N}, n15, "int64"), gpu.full({N}, 1e-14, "float64")), 10, 10)
    moments("binomial(10^18 array, 1e-17)", R.binomial(gpu.full({N}, big, "int64"), 1e-17), 10, 10)
  end)

  it("binomial: a huge n with p near 1, drawn as n minus a binomial of 1 - p", function()
    -- the halving by beta order statistics took p - x of p = 1 - 1e-15: 4 times the variance
    R.seed(16)
    local big = 1000000000000000000
    local m = big * (1 - (1 - 1e-15))   -- 999.2: 1 - 1e-15 rounded
    moments("binomial(10^18, 1 - 1e-15)", big - R.binomial(big, 1 - 1e-15, N), m, m)
    moments("binomial(10^18 array, 1 - 1e-15)", big - R.binomial(gpu.full({N}, big, "int64"), 1 - 1e-15), m, m)
    moments("binomial(10^18, 0.5)", R.binomial(big, 0.5, N) - big // 2, 0, big / 4)
  end)

  it("stay in their support, also at the ends of their parameters", function()
    R.seed(14)
    local p = R.poisson(0.5, N)
    assert.is_true(p:min() == 0)
    local b = R.binomial(7, 0.5, N)
    assert.are.same({0, 7}, {b:min(), b:max()})
    local big = R.binomial(100, 0.99, N)
    assert.is_true(big:min() >= 0 and big:max() == 100)
    assert.are.equal(1, R.geometric(0.5, N):min())
    assert.are.same({0, 0, 0}, R.poisson(0, 3):totable())
    assert.are.same({0, 0, 0}, R.binomial(0, 0.5, 3):totable())
    assert.are.same({5, 5, 5}, R.binomial(5, 1, 3):totable())
    assert.are.same({0, 0, 0}, R.binomial(5, 0, 3):totable())
    assert.are.same({1, 1, 1}, R.geometric(1, 3):totable())
  end)

  it("give a number parameter's draws (a block's table) as its array's (each element's own sums)", function()
    local n = 5000   -- several blocks
    local function same(what, f, g)
      R.seed(17)
      local a = f()
      R.seed(17)
      assert.is_true(gpu.array_equal(a, g()), what)
    end
    for _, lam in ipairs({0, 2.5, 10 - 2 ^ -49}) do
      same("poisson " .. lam, function() return R.poisson(lam, n) end,
           function() return R.poisson(gpu.full({n}, lam, "float64"), n) end)
    end
    -- p > 1/2 (drawn as n minus 1 - p's), n p just within 30 and just past it (no table)
    for _, c in ipairs({{1, 0.3}, {60, 0.5}, {61, 0.5}, {100, 0.75}, {40, 0.9}, {1 << 62, 5e-18}}) do
      same("binomial " .. c[1] .. " " .. c[2], function() return R.binomial(c[1], c[2], n) end,
           function() return R.binomial(gpu.full({n}, c[1], "int64"), gpu.full({n}, c[2], "float64"), n) end)
    end
  end)
end)

describe("gpu.random.seed", function()
  it("makes every distribution give its numbers again; the next call others", function()
    local function draws()
      return {R.gamma(2.5, 1, 64, "float64"), R.poisson(20, 64), R.binomial(500, 0.3, 64), R.beta(0.5, 0.7, 64),
              R.standard_t(4, 64), R.geometric(0.1, 64), R.triangular(0, 0.2, 1, 64)}
    end
    R.seed(99)
    local a = draws()
    R.seed(99)
    local b = draws()
    for i = 1, #a do assert.are.same(a[i]:totable(), b[i]:totable()) end
    local c = draws()
    assert.are_not.same(a[1]:totable(), c[1]:totable())
    assert.are_not.same(a[2]:totable(), c[2]:totable())
  end)
end)

describe("gpu.random.shuffle and NumPy's legacy names", function()
  it("shuffle puts the rows in a random order, in place", function()
    R.seed(3)
    local a = gpu.arange(40, "int32"):reshape({20, 2})
    assert.is_nil(R.shuffle(a))
    local rows = a:totable()
    local seen, moved = {}, 0
    for i, r in ipairs(rows) do
      assert.are.equal(r[1] + 1, r[2])
      seen[r[1] // 2 + 1] = true
      if r[1] ~= 2 * (i - 1) then moved = moved + 1 end
    end
    for i = 1, 20 do assert.is_true(seen[i]) end
    assert.is_true(moved > 10)
    R.seed(3)
    local again = gpu.arange(40, "int32"):reshape({20, 2})
    R.shuffle(again)
    assert.are.same(rows, again:totable())
    local v = gpu.arange(10):reshape({5, 2})[{{}, 1}]   -- a strided view: its owner changes
    R.shuffle(v)
    assert.are.same({0, 2, 4, 6, 8}, v:sort({indices = false}):totable())
  end)

  it("rand, randn, random_sample and randint are NumPy's, in gpuhost's dtypes", function()
    R.seed(4)
    local u = R.rand(200, 500)
    assert.are.same({200, 500}, u.shape)
    assert.are.equal("float32", u.dtype)
    moments("rand", u, 0.5, 1 / 12)
    assert.is_true(u:min() >= 0 and u:max() < 1)
    local z = R.randn(N)
    assert.are.equal("float32", z.dtype)
    moments("randn", z, 0, 1)
    assert.are.same({}, R.rand().shape)
    assert.are.same({}, R.random_sample().shape)
    assert.are.equal("float64", R.random_sample({3}, "float64").dtype)
    local i = R.randint(5, nil, 1000)
    assert.are.equal("int64", i.dtype)
    assert.are.same({0, 4}, {i:min(), i:max()})
    local j = R.randint(-3, 3, {10, 100}, "int8")
    assert.are.equal("int8", j.dtype)
    assert.are.same({-3, 2}, {j:min(), j:max()})
    assert.are.same({}, R.randint(1, 2).shape)
  end)
end)

-- NumPy 1.24 (default_rng(0) and the legacy np.random functions alike): a NaN parameter of a
-- continuous distribution gives NaN draws (normal(nan), laplace(0, nan), vonmises(nan, 1),
-- triangular(0, nan, 1), ...); the discrete ones raise ("lam < 0 or lam is NaN", "a <= 1 or
-- a is NaN", ...), uniform raises ("high - low range exceeds valid bounds")
describe("a NaN number parameter", function()
  local nan = 0 / 0
  it("gives NaN draws where NumPy's do, and an error where NumPy raises", function()
    local continuous = {
      {"normal", 0, 1}, {"exponential", 1}, {"gamma", 1, 1}, {"standard_gamma", 1}, {"beta", 1, 1},
      {"chisquare", 1}, {"lognormal", 0, 1}, {"laplace", 0, 1}, {"logistic", 0, 1}, {"gumbel", 0, 1},
      {"rayleigh", 1}, {"weibull", 1}, {"pareto", 1}, {"power", 1}, {"standard_t", 1}, {"f", 1, 1},
      {"noncentral_chisquare", 1, 1}, {"noncentral_f", 1, 1, 1}, {"vonmises", 0, 1}, {"wald", 1, 1},
      {"triangular", 0, 0.5, 1},
    }
    for _, c in ipairs(continuous) do
      for i = 2, #c do
        local args = {table.unpack(c, 2)}
        args[i - 1] = nan
        args[#args + 1] = {2, 3}
        local a = R[c[1]](table.unpack(args))
        assert.are.same({2, 3}, a.shape, c[1])
        assert.are.equal("float32", a.dtype, c[1])
        assert.are.equal(6, a:isnan():sum(), c[1] .. " with NaN as parameter " .. (i - 1))
      end
    end
    local refused = {
      {"bad argument #1 to 'poisson' (lam must be a number, got nan)", R.poisson, nan, 3},
      {"bad argument #1 to 'binomial' (integer expected, got nan)", R.binomial, nan, 0.5, 3},
      {"bad argument #2 to 'binomial' (p must be a number, got nan)", R.binomial, 5, nan, 3},
      {"bad argument #1 to 'geometric' (p must be a number, got nan)", R.geometric, nan, 3},
      {"bad argument #1 to 'negative_binomial' (n must be a number, got nan)", R.negative_binomial, nan, 0.5, 3},
      {"bad argument #1 to 'zipf' (a must be a number, got nan)", R.zipf, nan, 3},
      {"bad argument #1 to 'logseries' (p must be a number, got nan)", R.logseries, nan, 3},
      -- the argument that is NaN named (#2 was blamed for a NaN low: "high - low (1 - nan) must be finite")
      {"bad argument #1 to 'uniform' (low must be a number, got nan)", R.uniform, nan, 1, 3},
      {"bad argument #2 to 'uniform' (high must be a number, got nan)", R.uniform, 0, nan, 3},
      {"bad argument #2 to 'uniform' (high - low (1 - inf) must be finite", R.uniform, math.huge, 1, 3},
      -- the other parameter is checked still: NumPy's gamma(nan, -1) raises "scale < 0"
      {"bad argument #2 to 'gamma' (scale must be non-negative, got -1)", R.gamma, nan, -1, 3},
      {"bad argument #1 to 'triangular' (left (2) must not be above mode (1))", R.triangular, 2, 1, nan, 3},
    }
    for _, c in ipairs(refused) do assert.matches(c[1], S.errof(table.unpack(c, 2)), 1, true) end
  end)

  it("with array parameters, fills their broadcast shape; the draws after it are as they would be", function()
    local a = R.laplace(gpu.zeros({2, 1}), nan, {2, 3}, "float64")
    assert.are.same({2, 3}, a.shape)
    assert.are.equal("float64", a.dtype)
    assert.are.equal(6, a:isnan():sum())
    assert.are.equal(2, R.normal(nan, gpu.ones(2)):isnan():sum())
    assert.are.equal(2, R.triangular(0, gpu.full({2}, 0.5), nan):isnan():sum())
    -- the arrays' checks that do not take the NaN stay: NumPy's triangular(nan, [0.5], [0.2])
    -- raises "mode > right"; triangular([0.7], nan, [0.2]) gives NaN (left > right is no check)
    assert.matches("bad argument #3 to 'triangular' (mode must not be above right",
                   S.errof(R.triangular, nan, gpu.full({1}, 0.5), gpu.full({1}, 0.2), 2), 1, true)
    assert.matches("bad argument #3 to 'triangular' (left and right must differ",
                   S.errof(R.triangular, gpu.full({1}, 0.5), nan, 0.5, 2), 1, true)
    assert.are.equal(2, R.triangular(gpu.full({1}, 0.7), nan, gpu.full({1}, 0.2), 2):isnan():sum())
    -- uniform's arrays, as its numbers: NumPy's uniform([nan], 1) and uniform(0, [1, inf]) raise
    assert.matches("bad argument #1 to 'uniform' (low must not be NaN, got an array with NaN)",
                   S.errof(R.uniform, gpu.full({1}, nan), 1, 2), 1, true)
    assert.matches("bad argument #2 to 'uniform' (high must not be NaN, got an array with NaN)",
                   S.errof(R.uniform, 0, gpu.array({1, nan}, "float64"), 2), 1, true)
    assert.matches("bad argument #1 to 'uniform' (low must be a number, got nan)",
                   S.errof(R.uniform, nan, gpu.ones(2), 2), 1, true)
    assert.matches("bad argument #2 to 'uniform' (high - low must be finite",
                   S.errof(R.uniform, 0, gpu.array({1, math.huge}, "float64"), 2), 1, true)
    R.seed(7)
    R.exponential(1, 3)
    local want = R.exponential(1, 3):totable()
    R.seed(7)
    R.exponential(nan, 3)
    assert.are.same(want, R.exponential(1, 3):totable())
  end)
end)

describe("gpu.random's distributions refuse", function()
  it("the parameters NumPy refuses, naming the function and the argument", function()
    local cases = {
      {"bad argument #1 to 'exponential' (scale must be non-negative, got -1)", R.exponential, -1, 4},
      {"bad argument #2 to 'gamma' (scale must be non-negative, got -2)", R.gamma, 1, -2, 4},
      {"bad argument #1 to 'standard_gamma' (shape_k must be non-negative, got -1)", R.standard_gamma, -1, 4},
      {"bad argument #2 to 'gamma' (scale must be non-negative, got -1)", R.gamma, 0 / 0, -1, 4},
      {"bad argument #1 to 'poisson' (lam must be a number, got nan)", R.poisson, 0 / 0, 4},
      {"bad argument #2 to 'beta' (b must be positive, got 0)", R.beta, 1, 0, 4},
      {"bad argument #1 to 'chisquare' (df must be positive, got 0)", R.chisquare, 0, 4},
      {"bad argument #2 to 'lognormal' (sigma must be non-negative, got -1)", R.lognormal, 0, -1, 4},
      {"bad argument #2 to 'laplace' (scale must be non-negative, got -1)", R.laplace, 0, -1, 4},
      {"bad argument #2 to 'logistic' (scale must be non-negative, got -1)", R.logistic, 0, -1, 4},
      {"bad argument #2 to 'gumbel' (scale must be non-negative, got -1)", R.gumbel, 0, -1, 4},
      {"bad argument #1 to 'rayleigh' (scale must be non-negative, got -1)", R.rayleigh, -1, 4},
      {"bad argument #1 to 'weibull' (a must be non-negative, got -1)", R.weibull, -1, 4},
      {"bad argument #1 to 'pareto' (a must be positive, got 0)", R.pareto, 0, 4},
      {"bad argument #1 to 'power' (a must be positive, got 0)", R.power, 0, 4},
      {"bad argument #1 to 'standard_t' (df must be positive, got 0)", R.standard_t, 0, 4},
      {"bad argument #1 to 'triangular' (left (2) must not be above mode (1))", R.triangular, 2, 1, 3, 4},
      {"bad argument #3 to 'triangular' (mode (3) must not be above right (2))", R.triangular, 1, 3, 2, 4},
      {"bad argument #3 to 'triangular' (left and right must differ, both are 1)", R.triangular, 1, 1, 1, 4},
      {"bad argument #1 to 'poisson' (lam must be non-negative, got -1)", R.poisson, -1, 4},
      {"bad argument #1 to 'poisson' (lam is too large", R.poisson, 1e19, 4},
      {"bad argument #2 to 'binomial' (p must be in [0, 1], got 1.5)", R.binomial, 10, 1.5, 4},
      {"bad argument #2 to 'binomial' (p must be a number, got nan)", R.binomial, 10, 0 / 0, 4},
      {"bad argument #1 to 'binomial' (n must be non-negative, got -1)", R.binomial, -1, 0.5, 4},
      {"bad argument #1 to 'binomial' (integer expected, got 2.5)", R.binomial, 2.5, 0.5, 4},
      {"bad argument #1 to 'geometric' (p must be in (0, 1], got 0)", R.geometric, 0, 4},
      {"bad argument #3 to 'exponential' (random numbers are float32 or float64, not int32)", R.exponential, 1, 4, "int32"},
      {"bad argument #2 to 'exponential' (size must be non-negative, got -4)", R.exponential, 1, -4},
      {"bad argument #1 to 'exponential' (scale must be a number, got string)", R.exponential, "a", 4},
      {"bad argument #2 to 'standard_normal' (random numbers are float32 or float64, not int32)", R.standard_normal, 4, "int32"},
      {"bad argument #1 to 'standard_normal' (size must be non-negative, got -4)", R.standard_normal, -4},
      {"bad argument #2 to 'randint' (high (3) must be above low (5))", R.randint, 5, 3},
      {"bad argument #1 to 'randint' (integer expected, got string)", R.randint, "x"},
      -- one bound given: it was named argument #2, high, against a low the caller never wrote
      {"bad argument #1 to 'randint' (with one bound the range is [0, low): low must be above 0, got 0)", R.randint, 0},
      {"bad argument #1 to 'random_sample' (shape[1] must be non-negative, got -1)", R.random_sample, {-1}},
      {"bad argument #1 to 'rand' (a dimension (an integer) expected, got 2.5)", R.rand, 2.5},
      {"bad argument #1 to 'shuffle' (a device array expected, got 3)", R.shuffle, 3},
      {"bad argument #1 to 'shuffle' (a 0-D array has no rows to shuffle)", R.shuffle, gpu.zeros({})},
    }
    for _, c in ipairs(cases) do
      assert.matches(c[1], S.errof(table.unpack(c, 2)), 1, true)
    end
  end)

  it("at the caller's line", function()
    local ok, e = pcall(function() local _ = R.gamma(-1, 1, 4) end)
    assert.is_false(ok)
    assert.matches("random2_spec%.lua:%d+: bad argument #1 to 'gamma'", e)
    ok, e = pcall(function() local _ = R.randint(3, 3) end)
    assert.matches("random2_spec%.lua:%d+: bad argument #2 to 'randint'", e)
  end)
end)
