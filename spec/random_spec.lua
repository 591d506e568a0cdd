-- Random numbers: gpu.random.integers, permutation, choice and key, and gpu::philox inside
-- kernels. Philox gives the same integers on every backend, so the values pinned here are
-- what a GPU must give too; Philox4x32-10 itself is checked against Random123's known
-- answer.
local S = require("spec.support")

describe("gpu.random.integers", function()
  it("gives the same integers for a seed, on any backend", function()
    gpu.random.seed(7)
    assert.are.same({954, 114, 406, 171, 6, 807, 390, 147}, gpu.random.integers(0, 1000, 8):totable())
    gpu.random.seed(7)
    local again = gpu.random.integers(0, 1000, 8)
    assert.are.same({954, 114, 406, 171, 6, 807, 390, 147}, again:totable())
    assert.are.equal("int64", again.dtype)
  end)

  it("is uniform over [low, high), in the dtype asked for", function()
    local a = gpu.random.integers(-3, 7, 20000, "int8")
    assert.are.equal("int8", a.dtype)
    assert.are.equal(-3, a:min())
    assert.are.equal(6, a:max())
    local counts = select(2, gpu.unique(a, {counts = true})):totable()
    assert.are.equal(10, #counts)
    for _, c in ipairs(counts) do assert.is_true(c > 1700 and c < 2300, c) end
    local big = gpu.random.integers(math.mininteger, math.maxinteger, 1000)
    assert.is_true(big:min() < -2^62 and big:max() > 2^62)
    assert.are.same({2, 3}, gpu.random.integers(0, 2, {2, 3}, "uint8").shape)
    -- before: float32's low + (high - low) * u rounded to high once in about 2^18 draws
    gpu.random.seed(1)
    local u = gpu.random.uniform(100, 101, 2^21)
    assert.are.same({0, "float32"}, {u:eq(101):sum(), u.dtype})
    local at = gpu.random.uniform(gpu.full({2^21}, 100, "float32"), 101, nil, "float32")
    assert.are.same({0, "float32"}, {at:eq(101):sum(), at.dtype})
  end)

  it("refuses empty or unrepresentable ranges", function()
    assert.matches("bad argument #2 to 'integers' %(high %(3%) must be above low %(3%)%)",
                   S.errof(gpu.random.integers, 3, 3, 4))
    assert.matches("%[0, 300%) is out of range for uint8", S.errof(gpu.random.integers, 0, 300, 4, "uint8"))
    assert.matches("an integer dtype expected, got float32", S.errof(gpu.random.integers, 0, 3, 4, "float32"))
    -- a dtype that is not one, named with the function and the argument
    assert.matches("bad argument #4 to 'integers' (dtype expected, got number)", S.errof(gpu.random.integers, 0, 3, 4, 5), 1, true)
    assert.matches("bad argument #2 to 'random' (dtype expected, got number)", S.errof(gpu.random.random, {3}, 5), 1, true)
    assert.matches("bad argument #4 to 'normal' (unknown dtype 'foo'", S.errof(gpu.random.normal, 0, 1, {3}, "foo"), 1, true)
    assert.matches("integer expected, got 1.5", S.errof(gpu.random.integers, 1.5, 3, 4))
  end)

  it("refuses a negative stddev and an infinite or NaN range for floats, as NumPy's", function()
    assert.matches("bad argument #2 to 'normal' (stddev must be non-negative, got -1)",
                   S.errof(gpu.random.normal, 0, -1, 4), 1, true)
    assert.matches("high - low (inf - 0) must be finite", S.errof(gpu.random.uniform, 0, math.huge, 4), 1, true)
    assert.matches("bad argument #1 to 'uniform' (low must be a number, got nan)", S.errof(gpu.random.uniform, 0 / 0, 1, 4),
                   1, true)
    assert.are.same({0, 0}, gpu.random.normal(0, 0, 2):totable())
  end)

  it("refuses float32 parameters that overflow float32 (they gave NaN), not float64's", function()
    assert.matches("bad argument to 'uniform' (low and high must be finite in float32 (|x| <= 3.4028235e+38), got -1e+300",
                   S.errof(gpu.random.uniform, -1e300, 1e300, 3, "float32"), 1, true)
    assert.matches("low and high must be finite in float32", S.errof(gpu.random.uniform, -1e300, 1e300, 3), 1, true)
    assert.matches("high - low (3e+38 - -3e+38) must be finite in float32",
                   S.errof(gpu.random.uniform, -3e38, 3e38, 3, "float32"), 1, true)
    assert.matches("mean and stddev must be finite in float32", S.errof(gpu.random.normal, 0, 1e39, 3), 1, true)
    local big = gpu.random.uniform(-1.7e38, 1.7e38, 1000, "float32")   -- within float32: values
    assert.is_true(big:isfinite():all())
    assert.is_true(gpu.random.uniform(-1e300, 1e300, 1000, "float64"):isfinite():all())
    assert.is_true(gpu.random.normal(0, 1e300, 1000, "float64"):isfinite():all())
  end)
end)

describe("gpu.random.permutation and choice", function()
  it("permute 1 .. n (the same for a seed), and the rows of an array", function()
    gpu.random.seed(7)
    assert.are.same({5, 2, 8, 4, 7, 3, 6, 1}, gpu.random.permutation(8):totable())
    local p = gpu.random.permutation(1000):totable()
    table.sort(p)
    for i = 1, 1000 do assert.are.equal(i, p[i]) end
    local rows = gpu.random.permutation(gpu.arange(12):reshape(4, 3)):totable()
    table.sort(rows, function(x, y) return x[1] < y[1] end)
    assert.are.same({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}, rows)
    assert.are.same({}, gpu.random.permutation(0):totable())
  end)

  it("choose with and without replacement, and by probabilities", function()
    local c = gpu.random.choice(5, 1000)
    assert.are.equal(1, c:min())
    assert.are.equal(5, c:max())
    local d = gpu.random.choice(50, 50, {replace = false}):totable()
    table.sort(d)
    for i = 1, 50 do assert.are.equal(i, d[i]) end
    assert.is_true(gpu.random.choice(math.maxinteger, 8):ge(1):all())   -- n + 1 would wrap
    local pool = gpu.array({10, 20, 30})
    local w = gpu.random.choice(pool, {50, 2}, {p = gpu.array({0.25, 0, 0.75})})
    assert.are.same({50, 2}, w.shape)
    assert.are.equal(0, (w:eq(20)):count_nonzero())
    assert.is_true(w:eq(30):count_nonzero() > 50)
    local once = gpu.random.choice(pool, 2, {replace = false, p = gpu.array({0.5, 0, 0.5})}):totable()
    table.sort(once)
    assert.are.same({10, 30}, once)
    -- a subnormal weight's key -log(u) / w overflowed to the zero weights' +inf: the zero taken
    for s = 1, 20 do
      gpu.random.seed(s)
      local t = gpu.random.choice(3, 2, {p = gpu.array({0, 1e-320, 1}, "float64"), replace = false}):totable()
      table.sort(t)
      assert.are.same({2, 3}, t)
    end
    assert.are.same({}, gpu.random.choice(4).shape)
    assert.matches("cannot take 6 of 5 without replacement", S.errof(gpu.random.choice, 5, 6, {replace = false}))
    -- "false" was true, and drew with replacement
    assert.matches("gpu.random.choice: option replace must be a boolean, got string",
                   S.errof(gpu.random.choice, 5, 5, {replace = "false"}), 1, true)
    assert.matches("probabilities do not sum to 1", S.errof(gpu.random.choice, 3, 2, {p = gpu.array({0.5, 0.2, 0.2})}))
    -- NumPy's tolerance, sqrt(eps) of p's dtype (it was 1e-6 for float32, 1e-8 for float64)
    for _, c in ipairs({{"float32", 3e-4, true}, {"float32", 4e-4, false}, {"float64", 1.4e-8, true}, {"float64", 1.6e-8, false}}) do
      local ok, e = pcall(gpu.random.choice, 2, 2, {p = gpu.array({0.5, 0.5 + c[2]}, c[1])})
      assert.are.equal(c[3], ok, c[1] .. " " .. c[2])
      if not ok then assert.matches("probabilities do not sum to 1", e, 1, true) end
    end
    -- a complex p lost its imaginary part; NumPy cannot cast it to float64
    assert.matches("gpu.random.choice: p must be a real array, got complex128",
                   S.errof(gpu.random.choice, 2, 2, {p = gpu.array({0.5, 0.5}, "complex128")}), 1, true)
    assert.matches("p has 1 nonzero entries", S.errof(gpu.random.choice, 3, 2, {replace = false, p = gpu.array({1, 0, 0})}))
    assert.matches("bad argument #3 to 'choice' %(an options table expected, got 5%)", S.errof(gpu.random.choice, 3, 2, 5))
    -- a shape's message is kept whole (it was cut after its first colon: '(1.1258999068426e+15)')
    assert.matches("bad argument #2 to 'choice' %(size is too large: 1.12", S.errof(gpu.random.choice, 3, 2 ^ 50))
  end)
end)

describe("gpu.random's functions", function()
  it("refuse an argument beyond their parameters (an options table, NumPy's out = or endpoint =), not drop it", function()
    local o, x = gpu.zeros({3}), gpu.zeros({3})
    local function refused(want, f, ...)
      local e = S.errof(f, ...)
      assert.is_truthy(e:find(want, 1, true), e)
      assert.are.same({0, 0, 0}, o:totable())   -- nothing drawn into o (normal wrote nowhere before either)
    end
    refused("gpu.random.normal takes 4 arguments, got a table as argument 5 (it takes no options)",
            gpu.random.normal, 0, 1, {3}, "float32", {out = o})
    refused("gpu.random.integers takes 4 arguments, got a table as argument 5 (it takes no options)",
            gpu.random.integers, 0, 1, {10}, "int64", {endpoint = true})
    refused("gpu.random.permutation takes 1 argument, got a string as argument 2 (not one it takes)",
            gpu.random.permutation, 5, "int32")
    refused("gpu.random.random takes 2 arguments, got a number as argument 3", gpu.random.random, {2}, "float32", 5)
    refused("gpu.random.shuffle takes 1 argument, got a table as argument 2", gpu.random.shuffle, x, {axis = 1})
    refused("gpu.random.choice takes 3 arguments, got a string as argument 4", gpu.random.choice, 5, {3}, {}, "extra")
    refused("gpu.random.choice takes 3 arguments, got a table as argument 4 (options go in argument 3)",
            gpu.random.choice, 5, {3}, nil, {replace = false})
    refused("gpu.random.uniform takes 4 arguments, got a table as argument 5",
            gpu.random.uniform, 0, 1, {3}, "float32", {dtype = "float64"})
    refused("gpu.random.bytes takes 1 argument, got a number as argument 2", gpu.random.bytes, 4, 5)
    refused("gpu.random.seed takes 1 argument, got a number as argument 2", gpu.random.seed, 4, 5)
    refused("gpu.random.key takes 0 arguments, got a table as argument 1", gpu.random.key, {})
    refused("gpu.random.gamma takes 4 arguments, got a table as argument 5", gpu.random.gamma, 1, 1, {3}, "float32", {})
    refused("gpu.random.standard_cauchy takes 2 arguments, got a table as argument 3",
            gpu.random.standard_cauchy, {3}, nil, {})
    refused("gpu.random.triangular takes 5 arguments, got a table as argument 6",
            gpu.random.triangular, 0, 1, 2, {3}, nil, {})
    -- a dtype where the counts are int64 keeps its own words; past its place, strict's
    refused("bad argument #3 to 'poisson' (the counts are int64: no dtype (astype the result))",
            gpu.random.poisson, 1, {3}, "int32")
    refused("gpu.random.poisson takes 2 arguments, got a table as argument 4", gpu.random.poisson, 1, {3}, nil, {})
    refused("gpu.random.multinomial takes 3 arguments, got a number as argument 5",
            gpu.random.multinomial, 3, {0.5, 0.5}, {2}, nil, 1)
    assert.matches(":%d+: gpu.random.normal takes 4", S.errof(function() gpu.random.normal(0, 1, 3, nil, {}) end))
    assert.are.same({2, 3}, gpu.random.rand(2, 3).shape)   -- (d1, ..., dn): any count
  end)
end)

describe("gpu::philox in kernels", function()
  local k = gpu.kernel([[
extern "C" __global__ void draws(unsigned long long seed, unsigned *bits, float *u, float *z, unsigned *known) {
  long long i = gpu::grid(1);
  gpu::philox r(seed, i);
  bits[i] = r.next();
  u[i] = r.uniform();
  z[i] = r.normal();
  if (i == 0) {
    gpu::philox4 v = gpu::philox4x32_10(0, 0, 0);   // Random123's known answer
    for (int j = 0; j < 4; j++) known[j] = v.v[j];
  }
}]])
  it("is Philox4x32-10, a stream a thread, seeded from gpu.random.key()", function()
    local n = 4096
    local bits, u, z, known = gpu.zeros(n, "uint32"), gpu.zeros(n), gpu.zeros(n), gpu.zeros(4, "uint32")
    gpu.random.seed(3)
    local key = gpu.random.key()
    assert.is_true(math.type(key) == "integer" and key >= 0)
    k[{n // 256, 256}](key, bits, u, z, known)
    assert.are.same({0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, known:totable())
    assert.is_true(u:min() >= 0 and u:max() < 1 and math.abs(u:mean() - 0.5) < 0.02)
    assert.is_true(math.abs(z:mean()) < 0.05 and math.abs(z:std() - 1) < 0.05)
    assert.are.equal(n, gpu.unique(bits).size)   -- distinct streams
    gpu.random.seed(3)
    assert.are.equal(key, gpu.random.key())
    assert.are_not.equal(key, gpu.random.key())
  end)
end)
