-- gpu.random's parameter arrays (broadcast as NumPy's, checked on the device) and the rest
-- of numpy.random (lua/random.lua, kernels/builtin.cu's continuous_at and discrete_at):
-- the mean and variance of 10^5 seeded draws against each distribution's exact ones
-- (computed with Python), the support, the shapes and dtypes, and the parameters refused.
local S = require("spec.support")
local R = gpu.random
local N = 100000

-- a's mean within 5 standard errors of `mean`, its variance within rel (5%) of `var`
local function moments(name, a, mean, var, rel)
  local x = a:astype("float64")
  local m, v = x:mean(), x:var()
  local se = math.sqrt(var / x.size)
  assert(math.abs(m - mean) <= 5 * se, ("%s: mean %.6g, expected %.6g (se %.3g)"):format(name, m, mean, se))
  assert(math.abs(v - var) <= (rel or 0.05) * var, ("%s: variance %.6g, expected %.6g"):format(name, v, var))
end

-- the share of a's elements where mask(a) holds, within 5 standard errors of p
local function share(name, mask, p)
  local got = mask:astype("float64"):mean()
  local se = math.sqrt(p * (1 - p) / mask.size)
  assert(math.abs(got - p) <= 5 * se, ("%s: share %.6g, expected %.6g"):format(name, got, p))
end

describe("gpu.random's parameters as device arrays", function()
  it("broadcast against each other and against the shape, as NumPy's", function()
    R.seed(21)
    local mu = gpu.array({0, 10, 100})
    local a = R.normal(mu, 2, {N // 3, 3}, "float64")
    assert.are.same({N // 3, 3}, a.shape)
    moments("normal(0, 2)", a[{{}, 1}], 0, 4)
    moments("normal(10, 2)", a[{{}, 2}], 10, 4)
    moments("normal(100, 2)", a[{{}, 3}], 100, 4)
    local n = gpu.array({{10}, {1000}}, "int64")
    local p = gpu.array({0.1, 0.5, 0.9})
    local b = R.binomial(n, p, {N // 10, 2, 3})
    assert.are.equal("int64", b.dtype)
    local means = b:astype("float64"):mean(1):totable()
    for i, ni in ipairs({10, 1000}) do
      for j, pj in ipairs({0.1, 0.5, 0.9}) do
        local se = math.sqrt(ni * pj * (1 - pj) / (N // 10))
        assert(math.abs(means[i][j] - ni * pj) <= 5 * se, ("binomial(%d, %g): mean %g"):format(ni, pj, means[i][j]))
      end
    end
    assert.are.same({2, 3}, R.binomial(n, p).shape)   -- no shape: the parameters'
    assert.are.same({3}, R.gamma(gpu.array({1, 2, 3}), 1).shape)
    moments("poisson(lam array)", R.poisson(gpu.full({N}, 4.0)), 4, 4)
    moments("gamma(k array, scale array)", R.gamma(gpu.full({N}, 3.0), gpu.full({1}, 2.0), nil, "float64"), 6, 12)
    moments("uniform(low array, 5)", R.uniform(gpu.full({N}, 1.0), 5, N, "float64"), 3, 16 / 12)
    local t = R.triangular(gpu.array({0, 1}), 2, gpu.array({{4}, {20}}))
    assert.are.same({2, 2}, t.shape)
    assert.are.equal("float32", t.dtype)
  end)

  it("draw the numbers number parameters draw", function()
    R.seed(5)
    local a = R.gamma(2.5, 2, 200, "float64"):totable()
    local b = R.poisson(30, 200):totable()
    local c = R.beta(0.5, 2, 200):totable()
    R.seed(5)
    assert.are.same(a, R.gamma(gpu.full({200}, 2.5), 2, nil, "float64"):totable())
    assert.are.same(b, R.poisson(gpu.full({200}, 30.0)):totable())
    assert.are.same(c, R.beta(0.5, gpu.full({1}, 2.0), 200):totable())
  end)

  it("are checked on the device, with NumPy's rules", function()
    local cases = {
      {"bad argument #1 to 'poisson' (lam must be non-negative, got an array with lam < 0 or NaN)",
       R.poisson, gpu.array({1, -1})},
      {"bad argument #1 to 'poisson' (lam must be non-negative, got an array with lam < 0 or NaN)",
       R.poisson, gpu.array({0 / 0})},
      {"bad argument #2 to 'binomial' (p must be in [0, 1], got an array with p < 0, > 1 or NaN)",
       R.binomial, 5, gpu.array({0.5, 1.5})},
      {"bad argument #1 to 'binomial' (n must be non-negative, got an array with n < 0 or NaN)",
       R.binomial, gpu.array({-1}, "int64"), 0.5},
      -- uint64 values of 2^63 or more were read back below 0: "n < 0" (or, with a smaller one, drawn as 0)
      {"bad argument #1 to 'binomial' (n must be below 2^63, got a uint64 array holding 2^63 or more)",
       R.binomial, gpu.array({1 << 63}, "uint64"), 0.5},
      {"bad argument #1 to 'binomial' (n must be below 2^63, got a uint64 array holding 2^63 or more)",
       R.binomial, gpu.array({1 << 63, 5}, "uint64"), 0.5},
      {"bad argument #1 to 'hypergeometric' (ngood must be below 2^63, got a uint64 array holding 2^63 or more)",
       R.hypergeometric, gpu.array({math.mininteger + 7}, "uint64"), 5, 3},
      {"bad argument #1 to 'poisson' (lam is too large (at most 9.2233720064847708e+18), got an array with more)",
       R.poisson, gpu.array({1 << 63}, "uint64")},
      {"bad argument #1 to 'binomial' (n must be an integer array, got float32)", R.binomial, gpu.array({1}), 0.5},
      {"bad argument #2 to 'normal' (stddev must be non-negative, got an array with stddev < 0 or NaN)",
       R.normal, 0, gpu.array({-1})},
      {"bad argument #1 to 'gamma' (shape_k must be non-negative", R.gamma, gpu.array({-2}), 1},
      {"bad argument #3 to 'normal' (a shape the parameters (shape {3}) broadcast to expected, got {2})",
       R.normal, gpu.zeros(3), 1, 2},
      {"bad argument #1 to 'normal' (parameters that broadcast together expected", R.normal, gpu.zeros(3), gpu.ones(2)},
      -- their checks subtracted them first: "gpu.subtract: shapes {2} and {3} do not broadcast"
      {"bad argument #1 to 'uniform' (parameters that broadcast together expected", R.uniform, gpu.zeros(3), gpu.ones(2)},
      {"bad argument #1 to 'triangular' (parameters that broadcast together expected",
       R.triangular, gpu.zeros(3), gpu.ones(2), 4},
      {"bad argument #3 to 'normal' (shape (a number or a table of numbers) expected, got string)",
       R.normal, gpu.zeros(3), 1, "x"},
      {"bad argument #2 to 'zipf' (shape (a number or a table of numbers) expected, got string)", R.zipf, 2, "x"},
      {"bad argument #1 to 'triangular' (left must not be above mode", R.triangular, gpu.array({2}), 1, 3},
      {"bad argument #3 to 'hypergeometric' (nsample must not be above ngood + nbad",
       R.hypergeometric, gpu.array({1}, "int64"), 1, 3},
      {"bad argument #2 to 'hypergeometric' (ngood + nbad must be at most 2^53",   -- not wrapped to a negative sum
       R.hypergeometric, gpu.array({1 << 62}, "int64"), gpu.array({1 << 62}, "int64"), 5, {2}},
    }
    for _, c in ipairs(cases) do assert.matches(c[1], S.errof(table.unpack(c, 2)), 1, true) end
    -- NumPy's shape when one is given: the parameters broadcast to it
    assert.are.same({2, 3}, R.normal(gpu.zeros(3), 1, {2, 3}).shape)
    assert.are.same({0, 3}, R.normal(gpu.zeros(3), 1, {0, 3}).shape)
  end)
end)

describe("the rest of NumPy's distributions", function()
  it("have their exact means and variances", function()
    R.seed(31)
    moments("f(10, 20)", R.f(10, 20, N, "float64"), 20 / 18, 0.43209876543209874, 0.1)
    moments("noncentral_chisquare(3, 2)", R.noncentral_chisquare(3, 2, N, "float64"), 5, 14)
    moments("noncentral_chisquare(0.5, 1)", R.noncentral_chisquare(0.5, 1, N, "float64"), 1.5, 5)
    moments("noncentral_f(10, 20, 3)", R.noncentral_f(10, 20, 3, N, "float64"), 1.4444444444444444,
            0.7052469135802469, 0.1)
    moments("vonmises(0, 2)", R.vonmises(0, 2, N, "float64"), 0, 0.7644618798112247)
    moments("vonmises(0, 0.5)", R.vonmises(0, 0.5, N, "float64"), 0, 2.348803343669686)
    moments("wald(2, 3)", R.wald(2, 3, N, "float64"), 2, 8 / 3)
    moments("negative_binomial(3, 0.4)", R.negative_binomial(3, 0.4, N), 4.5, 11.25)
    moments("negative_binomial(0.5, 0.8)", R.negative_binomial(0.5, 0.8, N), 0.125, 0.15625)
    moments("zipf(8)", R.zipf(8, N), 1.0042545737712434, 0.004684587482915781, 0.25)
    local z = R.zipf(3, N)
    share("zipf(3) = 1", z:eq(1), 0.8319073725807224)
    share("zipf(3) <= 2", z:le(2), 0.9358957941533127)
    moments("logseries(0.6)", R.logseries(0.6, N), 1.6370350019059372, 1.412703907299671)
    local l = R.logseries(0.9, N)
    moments("logseries(0.9)", l, 3.9086503371292673, 23.808955913351948, 0.1)
    share("logseries(0.9) = 1", l:eq(1), 0.39086503371292664)
    moments("hypergeometric(20, 30, 10)", R.hypergeometric(20, 30, 10, N), 4, 10 * 0.4 * 0.6 * 40 / 49)
    moments("hypergeometric(10^8, 3 * 10^8, 1000)", R.hypergeometric(100000000, 300000000, 1000, N), 250,
            187.49953171874884)
  end)

  it("stay in their support, also at the ends of their parameters", function()
    R.seed(32)
    local v = R.vonmises(3, 1, N, "float64")
    assert.is_true(v:min() >= -math.pi and v:max() <= math.pi)
    assert.is_true(gpu.abs(R.vonmises(1, 1e7, 100, "float64") - 1):max() < 0.01)
    assert.is_true(R.wald(1, 0.1, N):min() > 0)
    local h = R.hypergeometric(5, 3, 6, N)
    assert.are.same({3, 5}, {h:min(), h:max()})
    assert.are.same({3, 3}, R.hypergeometric(5, 0, 3, 2):totable())
    assert.are.same({0, 0}, R.hypergeometric(0, 5, 3, 2):totable())
    assert.are.same({4, 4}, R.hypergeometric(4, 6, 10, 2):totable())
    assert.are.same({1, 1, 1}, R.logseries(0, 3):totable())
    assert.are.same({0, 0}, R.negative_binomial(2, 1, 2):totable())
    assert.are.equal(1, R.zipf(1.5, N):min())
    assert.are.same({1, 1}, R.zipf(math.huge, 2):totable())   -- P(X > 1) = 0: no endless rejection
  end)

  it("zipf: a just above 1 draws at once (its Pareto drawn below 9.2e18, as NumPy's Generator below 2^63 - 1)", function()
    -- each draw took about 1 / (a - 1) rejections of an infinite Pareto value: endless
    local out = S.run("timeout 60 " .. S.gpuhost .. " -e " .. S.quote([[
      gpu.random.seed(5)
      local z = gpu.random.zipf(1 + 1e-15, 1000)
      print(z:min() >= 1, z:max() < math.maxinteger, gpu.random.zipf(1 + 2^-52, 3):min() >= 1)]]))
    assert.are.equal("true\ttrue\ttrue\n", out)
  end)

  it("wald: positive and exact for a huge mean (its chi-square root computed without cancelling)", function()
    -- NumPy's legacy form (gpuhost's before) gave zeros (most of them) and negatives (min -76293.9)
    -- at 1e10, NumPy 2's Generator's zeros at 1e16;
    -- the shares are scipy.stats.invgauss(mean, scale=1).cdf(1) and cdf(0.1)
    R.seed(1)
    local w = R.wald(1e10, 1, N, "float64")
    assert.is_true(w:min() > 0, "wald(1e10, 1): min " .. w:min())
    share("wald(1e10, 1) < 1", w:lt(1), 0.3173105078946452)
    local v = R.wald(1e16, 1, N, "float64")
    assert.is_true(v:min() > 0, "wald(1e16, 1): min " .. v:min())
    share("wald(1e16, 1) < 1", v:lt(1), 0.3173105078629142)
    share("wald(1e16, 1) < 0.1", v:lt(0.1), 0.0015654022580025495)
    assert.is_true(gpu.isfinite(R.wald(1e200, 1, N, "float64")):all(), "wald(1e200, 1): not all finite")
  end)

  it("give NumPy's dtypes and shapes", function()
    assert.are.equal("float32", R.f(1, 2, 3).dtype)
    assert.are.equal("float64", R.wald(1, 2, {2, 2}, "float64").dtype)
    for _, a in ipairs({R.zipf(2, {2, 3}), R.logseries(0.5, {2, 3}), R.negative_binomial(1, 0.5, {2, 3}),
                        R.hypergeometric(3, 4, 2, {2, 3})}) do
      assert.are.equal("int64", a.dtype)
      assert.are.same({2, 3}, a.shape)
    end
    assert.are.same({0}, R.vonmises(0, 1, 0).shape)
    assert.are.same({}, R.noncentral_f(1, 2, 3, {}).shape)
    assert.are.same({0, 2}, R.zipf(2, {0, 2}).shape)
  end)
end)

describe("multinomial, dirichlet and multivariate_normal", function()
  it("multinomial: counts summing to n, each a binomial", function()
    R.seed(41)
    local m = R.multinomial(20, {0.2, 0.3, 0.5}, N)
    assert.are.same({N, 3}, m.shape)
    assert.are.equal("int64", m.dtype)
    assert.are.same({20, 20}, {m:sum(2):min(), m:sum(2):max()})
    moments("multinomial[1]", m[{{}, 1}], 4, 3.2)
    moments("multinomial[3]", m[{{}, 3}], 10, 5)
    assert.are.same({2}, R.multinomial(5, gpu.array({0.5, 0.5})).shape)
    assert.are.same({2, 4, 1}, R.multinomial(5, {1}, {2, 4}).shape)
    assert.are.same({{5, 0}}, R.multinomial(5, {1, 0}, 1):totable())
  end)

  it("dirichlet: rows on the simplex with the exact means and variances", function()
    R.seed(42)
    assert.are.same({3, 0}, R.dirichlet({}, 3).shape)   -- no components, as NumPy's
    -- a dtype after the size was dropped (float64, int64 and int64 all the same)
    assert.matches("bad argument #3 to 'dirichlet' (the values are float64: no dtype", S.errof(R.dirichlet, {1, 1}, 2, "float32"), 1, true)
    assert.matches("bad argument #4 to 'multinomial' (the counts are int64: no dtype", S.errof(R.multinomial, 5, {0.5, 0.5}, 2, "int32"), 1, true)
    assert.matches("bad argument #4 to 'random_integers' (the values are int64: no dtype", S.errof(R.random_integers, 1, 6, 3, "uint8"), 1, true)
    local d = R.dirichlet({1, 2, 3}, N)
    assert.are.same({N, 3}, d.shape)
    assert.are.equal("float64", d.dtype)
    local sums = d:sum(2)
    assert.is_true(math.abs(sums:min() - 1) < 1e-12 and math.abs(sums:max() - 1) < 1e-12)
    moments("dirichlet[1]", d[{{}, 1}], 1 / 6, 5 / (36 * 7))
    moments("dirichlet[3]", d[{{}, 3}], 0.5, 9 / (36 * 7))
    assert.are.same({3}, R.dirichlet(gpu.array({0.5, 0.5, 4})).shape)
  end)

  it("multivariate_normal: the mean and the covariance, by each method", function()
    R.seed(43)
    local mean, cov = {1, -2}, {{2, 0.6}, {0.6, 1}}
    for _, method in ipairs({"svd", "cholesky", "eigh"}) do
      local x = R.multivariate_normal(mean, cov, N, {method = method})
      assert.are.same({N, 2}, x.shape)
      moments(method .. "[1]", x[{{}, 1}], 1, 2)
      moments(method .. "[2]", x[{{}, 2}], -2, 1)
      local c = gpu.cov(x, {rowvar = false}):totable()
      assert(math.abs(c[1][2] - 0.6) < 0.03, method .. ": covariance " .. c[1][2])
    end
    assert.are.same({2}, R.multivariate_normal(gpu.zeros(2), gpu.eye(2)).shape)
    assert.are.same({3, 4, 2}, R.multivariate_normal({0, 0}, {{1, 0}, {0, 1}}, {3, 4}).shape)
    assert.are.same({0, 2}, R.multivariate_normal({0, 0}, {{1, 0}, {0, 1}}, 0).shape)
  end)

  it("multivariate_normal: a cov refused leaves the generator where it was (it drew first)", function()
    R.seed(42)
    assert.is_false(pcall(R.multivariate_normal, {0, 0}, {{1, 2}, {2, 1}}, 3, {method = "cholesky"}))
    assert.is_false(pcall(R.multivariate_normal, {0, 0}, {{1, 2}, {2, 1}}, 0, {method = "cholesky"}))   -- NumPy's too
    local after = R.random(4):totable()
    R.seed(42)
    assert.are.same(R.random(4):totable(), after)
  end)
end)

describe("NumPy's other legacy names", function()
  it("random_integers is closed, ranf and sample are random_sample, bytes a string", function()
    R.seed(51)
    local i = R.random_integers(3, nil, 1000)
    assert.are.same({1, 3}, {i:min(), i:max()})
    local j = R.random_integers(-2, 2, {10, 100})
    assert.are.same({-2, 2}, {j:min(), j:max()})
    assert.are.same({}, R.random_integers(4).shape)
    assert.are.same({}, R.ranf().shape)
    assert.are.equal("float64", R.sample({3}, "float64").dtype)
    local u = R.ranf(N)
    assert.is_true(u:min() >= 0 and u:max() < 1)
    R.seed(52)
    local b = R.bytes(N)
    assert.are.equal("string", type(b))
    assert.are.equal(N, #b)
    assert.are.equal("", R.bytes(0))
    moments("bytes", gpu.array(gpu.host.frombytes(b, "uint8")), 127.5, (256 ^ 2 - 1) / 12)
    R.seed(52)
    assert.are.equal(b, R.bytes(N))
  end)
end)

describe("the new names refuse", function()
  it("the parameters NumPy refuses, naming the function and the argument", function()
    local cases = {
      {"bad argument #1 to 'f' (dfnum must be positive, got 0)", R.f, 0, 1, 4},
      {"bad argument #2 to 'f' (dfden must be positive, got 0)", R.f, 1, 0, 4},
      {"bad argument #2 to 'noncentral_chisquare' (nonc must be non-negative, got -1)", R.noncentral_chisquare, 1, -1, 4},
      {"bad argument #3 to 'noncentral_f' (nonc must be non-negative, got -1)", R.noncentral_f, 1, 1, -1, 4},
      {"bad argument #2 to 'vonmises' (kappa must be non-negative, got -1)", R.vonmises, 0, -1, 4},
      {"bad argument #1 to 'wald' (mean must be positive, got 0)", R.wald, 0, 1, 4},
      {"bad argument #1 to 'negative_binomial' (n must be positive, got 0)", R.negative_binomial, 0, 0.5, 4},
      {"bad argument #2 to 'negative_binomial' (p must be in (0, 1], got 0)", R.negative_binomial, 1, 0, 4},
      -- (every draw was int64's largest value)
      {"bad argument #1 to 'negative_binomial' (n too large or p too small: n (1 - p) / p is 9.2233720368547758e+18, above 9.2233720064847708e+18, as NumPy's Generator refuses)",
       R.negative_binomial, 2^63, 0.5, 4},
      {"bad argument #1 to 'negative_binomial' (n too large or p too small: n (1 - p) / p is 4.9999999999998813e+300, above 9.2233720064847708e+18, as NumPy's Generator refuses)",
       R.negative_binomial, gpu.array({5, 5}, "int64"), gpu.array({0.5, 1e-300}, "float64"), 2},
      {"bad argument #1 to 'negative_binomial' (parameters that broadcast together expected: ",   -- (not gpu.multiply's)
       R.negative_binomial, gpu.array({1, 2, 3}), gpu.array({0.5, 0.5}), 3},
      {"bad argument #1 to 'zipf' (a must be above 1, got 1)", R.zipf, 1, 4},
      {"bad argument #1 to 'zipf' (a must be a number, got nan)", R.zipf, 0 / 0, 4},
      {"bad argument #1 to 'logseries' (p must be in [0, 1), got 1)", R.logseries, 1, 4},
      {"bad argument #3 to 'hypergeometric' (nsample must be non-negative, got -1)", R.hypergeometric, 1, 1, -1, 4},
      {"bad argument #1 to 'hypergeometric' (ngood must be non-negative, got -1)", R.hypergeometric, -1, 1, 1, 4},
      {"bad argument #3 to 'hypergeometric' (nsample (3) must not be above ngood + nbad (2))", R.hypergeometric, 1, 1, 3, 4},
      {"bad argument #1 to 'hypergeometric' (integer expected, got 1.5)", R.hypergeometric, 1.5, 1, 1, 4},
      {"bad argument #1 to 'multinomial' (n must be non-negative, got -1)", R.multinomial, -1, {0.5, 0.5}},
      {"bad argument #2 to 'multinomial' (pvals must be in [0, 1], got -0.5 at 2)", R.multinomial, 10, {0.5, -0.5, 1}},
      {"bad argument #2 to 'multinomial' (pvals but the last must sum to at most 1, got 1.1)", R.multinomial, 10, {0.5, 0.6, 0}},
      {"bad argument #2 to 'multinomial' (pvals must be 1-D, got 2-D)", R.multinomial, 10, {{0.5, 0.5}}},
      {"bad argument #1 to 'dirichlet' (alpha must be non-negative, got an array with alpha < 0 or NaN)", R.dirichlet, {1, -1}},
      {"bad argument #2 to 'multivariate_normal' (cov must be square, got 3x2)",
       R.multivariate_normal, {0, 0}, {{1, 0}, {0, 1}, {0, 0}}},
      {"bad argument #2 to 'multivariate_normal' (mean and cov must have the same length, got 3 and 2x2)",
       R.multivariate_normal, {0, 0, 0}, {{1, 0}, {0, 1}}},
      {"bad argument #4 to 'multivariate_normal' (method must be \"cholesky\", \"svd\" or \"eigh\", got \"qr\")",
       R.multivariate_normal, {0}, {{1}}, 2, {method = "qr"}},
      {"bad argument #2 to 'random_integers' (high (3) must not be below low (5))", R.random_integers, 5, 3},
      {"bad argument #1 to 'bytes' (a length must be non-negative, got -1)", R.bytes, -1},
      {"bad argument #2 to 'ranf' (random numbers are float32 or float64, not int32)", R.ranf, 3, "int32"},
      {"bad argument #3 to 'wald' (size must be non-negative, got -4)", R.wald, 1, 1, -4},
      {"bad argument #4 to 'vonmises' (random numbers are float32 or float64, not int64)", R.vonmises, 0, 1, 4, "int64"},
    }
    for _, c in ipairs(cases) do assert.matches(c[1], S.errof(table.unpack(c, 2)), 1, true) end
  end)

  it("at the caller's line", function()
    local ok, e = pcall(function() local _ = R.zipf(0.5, 4) end)
    assert.is_false(ok)
    assert.matches("random3_spec%.lua:%d+: bad argument #1 to 'zipf'", e)
    ok, e = pcall(function() local _ = R.poisson(gpu.array({-1})) end)
    assert.matches("random3_spec%.lua:%d+: bad argument #1 to 'poisson'", e)
    ok, e = pcall(function() local _ = R.normal(gpu.zeros(2), gpu.array({-1})) end)
    assert.matches("random3_spec%.lua:%d+: bad argument #2 to 'normal'", e)
  end)
end)

-- From a pass against NumPy 1.24: a shape checked with an int64 array of it (8 bytes an
-- element more than the draw), saturated draws, NaN rows and arguments dropped
describe("gpu.random at its edges", function()
  it("checks a shape without making an array of it, and names the function that was called", function()
    local out = S.run("GPUHOST_MEMORY_LIMIT=10000000 " .. S.gpuhost .. " -e " .. S.quote([[
      print(gpu.random.integers(0, 2, 5000000, "int8").size)
      print(select(2, pcall(gpu.random.bytes, 1 << 40)))]]))
    assert.matches("^5000000\nbad argument #1 to 'bytes' %(GPUHOST_MEMORY_LIMIT: allocating 1099511627776 bytes", out)
    assert.matches("bad argument #1 to 'random' (size must be non-negative, got -1)", S.errof(R.random, -1), 1, true)
    assert.matches("bad argument #3 to 'uniform' (size is too large", S.errof(R.uniform, 0, 1, 1e18), 1, true)
  end)

  it("names the function and the parameter of a freed array (a bare 'attempt to use a freed array' before)", function()
    local x = gpu.ones({3})
    x:free()
    for _, c in ipairs({{"#1 to 'normal' (mean:", R.normal, x, 1}, {"#2 to 'uniform' (high:", R.uniform, 0, x},
                        {"#1 to 'choice' (a:", R.choice, x, 2}, {"#3 to 'choice' (p:", R.choice, 3, 2, {p = x}},
                        {"#1 to 'shuffle' (a:", R.shuffle, x}, {"#1 to 'binomial' (n:", R.binomial, x, 0.5},
                        {"#2 to 'hypergeometric' (nbad:", R.hypergeometric, 5, x, 2}}) do
      assert.matches("bad argument " .. c[1] .. " attempt to use a freed array)", S.errof(table.unpack(c, 2)), 1, true)
    end
  end)

  it("takes the degenerate inputs NumPy's Generator takes (they were refused)", function()
    assert.are.same({0}, R.integers(5, 5, 0).shape)   -- low >= high refused only where something is drawn
    assert.are.same({2, 0}, R.integers(6, 5, {2, 0}).shape)
    assert.are.same({0}, R.integers(-1, 5, 0, "uint8").shape)
    assert.are.same({"int64", 0}, {R.choice(0, 0).dtype, R.choice(0, 0).size})
    assert.are.same({0}, R.choice(-1, 0, {replace = false}).shape)
    assert.are.same({"float64", 0}, {R.choice(gpu.array({}, "float64"), 0).dtype, R.choice(gpu.array({}, "float64"), 0).size})
    assert.matches("a population of at least 1 expected, got 0", S.errof(R.choice, 0, 1), 1, true)
    assert.matches("an empty array has nothing to choose", S.errof(R.choice, gpu.array({}, "float64")), 1, true)
    assert.are.same({0, 0, 0}, R.hypergeometric(5, 5, 0, 3):totable())
    assert.are.same({0, 0}, R.hypergeometric(gpu.array({5}, "int64"), 5, gpu.array({0}, "int64"), 2):totable())
    assert.are.same({{0, 1}, {0, 1}}, R.dirichlet({0, 1}, 2):totable())
    assert.are.same({{0, 0}, {0, 0}}, R.dirichlet({0, 0}, 2):totable())
    assert.are.same({{0, 1}, {0, 1}}, R.dirichlet({0, 0.01}, 2):totable())   -- stick-breaking: no beta of 0
    assert.are.same({{1, 0}, {1, 0}}, R.dirichlet({0.01, 0}, 2):totable())
  end)

  it("refuses a nonc whose Poisson count would saturate, and a dtype for counts", function()
    assert.matches("bad argument #2 to 'noncentral_chisquare' (nonc is too large",
                   S.errof(R.noncentral_chisquare, 3, 1e20, 3, "float64"), 1, true)
    assert.matches("bad argument #3 to 'noncentral_f' (nonc is too large", S.errof(R.noncentral_f, 3, 5, 1e30, 3), 1, true)
    assert.matches("bad argument #3 to 'poisson' (the counts are int64: no dtype", S.errof(R.poisson, 2, 3, "float64"), 1, true)
    assert.matches("bad argument #4 to 'binomial' (the counts are int64", S.errof(R.binomial, 5, 0.5, 3, "float64"), 1, true)
  end)

  it("draws Dirichlet points of tiny alphas by NumPy's stick-breaking (the gammas underflowed: NaN)", function()
    R.seed(3)
    local d = R.dirichlet({0.05, 0.02, 0.09}, N)
    assert.are.same({N, 3}, d.shape)
    assert.is_true(gpu.all(gpu.isfinite(d)) and math.abs(d:sum(2):min() - 1) < 1e-12 and math.abs(d:sum(2):max() - 1) < 1e-12)
    local m = d:mean(1):totable()   -- alpha / sum(alpha), within 5 standard errors (sd <= 0.5)
    for j, want in ipairs({0.05 / 0.16, 0.02 / 0.16, 0.09 / 0.16}) do
      assert.is_true(math.abs(m[j] - want) < 5 * 0.5 / math.sqrt(N), ("part %d: %g, want %g"):format(j, m[j], want))
    end
    assert.is_false(gpu.any(gpu.isnan(R.dirichlet({1e-6, 1e-6}, 3))))
    assert.are.same({{1}, {1}, {1}}, R.dirichlet({0.001}, 3):totable())   -- one alpha too
  end)

  it("beta and dirichlet of subnormal parameters: 0s and 1s, as NumPy's (Johnk's logs were -inf - -inf: NaN)", function()
    R.seed(1)
    local x = R.beta(1e-310, 1e-310, 1000, "float64")
    assert.is_true(gpu.all(gpu.logical_or(x:eq(0), x:eq(1))))
    assert.is_true(math.abs(x:mean() - 0.5) < 5 * 0.5 / math.sqrt(1000))
    assert.are.same({0, 0, 0}, R.beta(5e-324, 1e-310, 3, "float64"):totable())   -- a far smaller: 0
    local d = R.dirichlet({5e-324, 5e-324}, 20)
    assert.is_true(gpu.all(gpu.logical_or(d:eq(0), d:eq(1))) and d:sum(2):min() == 1 and d:sum(2):max() == 1)
  end)
end)
