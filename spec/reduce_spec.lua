-- Reductions: gpu.sum ... gpu.norm against the same sums, extremes and counts done in Lua
-- (float32 sums accumulate in float64 and round once, so they match a Lua sum rounded to
-- float32 to within an ulp), over every dim, along dims of views (transposed, strided),
-- with keepdim and out=, NaN as NumPy has it, empty arrays, the result dtypes, the errors;
-- then gpu.reduction. The kernels' GPU plan (lanes, shuffles, split blocks) also runs here
-- on the CPU backend (gpu._reduce_plan), so CI checks the layouts a GPU takes.
local S = require("spec.support")

local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end
local function flat(t, out)
  out = out or {}
  for _, v in ipairs(t) do if type(v) == "table" then flat(v, out) else out[#out + 1] = v end end
  return out
end
local function near(want, got, tol)
  if type(want) == "table" then
    assert.are.equal(#want, #got)
    for i = 1, #want do near(want[i], got[i], tol) end
    return
  end
  local ok = math.abs(want - got) <= tol * math.max(1, math.abs(want))
  assert(ok, ("expected %.17g, got %.17g"):format(want, got))
end

-- rows, columns and all of a 2-D table
local function sums(h)
  local rows, cols, all = {}, {}, 0
  for j = 1, #h[1] do cols[j] = 0 end
  for i = 1, #h do
    rows[i] = 0
    for j = 1, #h[1] do rows[i] = rows[i] + h[i][j]; cols[j] = cols[j] + h[i][j]; all = all + h[i][j] end
  end
  return rows, cols, all
end

local function plans(body)
  for _, plan in ipairs({"backend", "gpu"}) do
    it(("on the %s plan"):format(plan), function()
      gpu._reduce_plan(plan ~= "backend" and plan or nil)
      local ok, e = pcall(body)
      gpu._reduce_plan(nil)
      if not ok then error(e, 0) end
    end)
  end
end

describe("gpu.sum", function()
  gpu.random.seed(11)
  local shapes = {{37, 53}, {3, 3000}, {3000, 3}, {70000, 2}, {2, 20000}}
  plans(function()
    for _, sh in ipairs(shapes) do
      local a = gpu.random.uniform(-1, 1, sh)
      local h = a:totable()
      local rows, cols, all = sums(h)
      near(f32(all), a:sum(), 1e-6)
      near(cols, a:sum(1):totable(), 1e-5)
      near(rows, a:sum(2):totable(), 1e-5)
      near(rows, a:sum(-1):totable(), 1e-5)
      near(cols, a.T:sum(2):totable(), 1e-5)    -- the same sums along a transposed view
      near(rows, a.T:sum(1):totable(), 1e-5)
      near(f32(all), a:sum({1, 2}):item(), 1e-6)
      assert.are.same({sh[1], 1}, a:sum(2, {keepdim = true}).shape)
      assert.are.same({1, 1}, a:sum({keepdim = true}).shape)
    end
  end)

  it("accumulates float32 in float64: the error does not grow with the size", function()
    local n = 2^22
    local a = gpu.full(n, 0.1)
    assert.are.equal(f32(n * f32(0.1)), a:sum())
    assert.are.equal(f32(n * f32(0.1)) / n, f32(a:mean()))
  end)

  it("gives int64 for small integers, uint64 for small unsigned ones, keeps 64-bit and float types", function()
    assert.are.equal(300, gpu.array({100, 100, 100}, "int8"):sum())
    assert.are.equal("int64", gpu.array({1}, "int8"):sum(1).dtype)
    assert.are.equal(2^31 + 2^31, gpu.array({2^31 - 1, 2^31 - 1, 2}, "int32"):sum())
    assert.are.equal(260, gpu.array({250, 10}, "uint8"):sum())
    assert.are.equal("uint64", gpu.array({1}, "uint16"):sum(1).dtype)
    assert.are.equal(2, gpu.array({true, false, true}, "bool"):sum())
    assert.are.equal("int64", gpu.array({true}, "bool"):sum(1).dtype)
    assert.are.equal(math.mininteger, gpu.array({math.maxinteger, 1}, "int64"):sum())   -- wraps
    assert.are.equal("float64", gpu.array({1}, "float64"):sum(1).dtype)
  end)

  it("writes into out= (converting within the kind), also into a view, and stays on the device", function()
    local b = gpu.arange(6):reshape(2, 3)
    local o = gpu.zeros(3, "float64")
    assert.are.equal(o, gpu.sum(b, {dim = 1, out = o}))
    assert.are.same({3, 5, 7}, o:totable())
    local big = gpu.zeros({2, 4})
    gpu.sum(b, {dim = 2, out = big[{{}, 2}]})
    assert.are.same({{0, 3, 0, 0}, {0, 12, 0, 0}}, big:totable())
    local one = gpu.zeros({})
    assert.are.equal(one, gpu.sum(b, {out = one}))
    assert.are.equal(15, one:item())
    local c = gpu.arange(6):reshape(2, 3)   -- out overlapping the input: computed apart first
    gpu.sum(c, {dim = 2, out = c[{{}, 1}]})
    assert.are.same({{3, 1, 2}, {12, 4, 5}}, c:totable())
  end)

  it("takes a stream and the option table forms", function()
    local s = gpu.stream()
    local b = gpu.arange(6):reshape(2, 3)
    assert.are.same({3, 12}, gpu.sum(b, {dim = 2, stream = s}):totable())
    assert.are.same({{3}, {12}}, b:sum({dim = 2, keepdim = true}):totable())
    assert.are.same({3, 12}, b:sum(-1):totable())
    -- a table with a [1] is dims, whatever [1] is: {"x"} is no options table reducing everything
    assert.matches('gpu.sum: dim must be an integer, got a string ("x")', S.errof(b.sum, b, {"x"}), 1, true)
    assert.matches('gpu.sum: dim must be an integer, got a string ("1")', S.errof(b.sum, b, {"1"}), 1, true)
    assert.matches("gpu.max: dim must be an integer, got table", S.errof(b.max, b, {{1}}), 1, true)
  end)

  it("reduces over no dim for {dim = {}} or ({}, opts), as NumPy's axis=(); {} alone is options", function()
    local b = gpu.arange(6, "int32"):reshape(2, 3)
    -- an empty table alone cannot be told from an empty options table: every dim
    assert.are.equal(15, b:sum({}))
    assert.are.equal(15, gpu.sum(b, {}))
    for _, r in ipairs({b:sum({dim = {}}), b:sum({}, {}), gpu.sum(b, {dim = {}})}) do
      assert.are.equal("int64", r.dtype)                 -- sum's type, as NumPy's
      assert.are.same({{0, 1, 2}, {3, 4, 5}}, r:totable())
    end
    assert.are.equal("int32", b:max({dim = {}}).dtype)
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, b:max({dim = {}}):totable())
    assert.are.same({{0, 0, 0}, {0, 0, 0}}, b:var({dim = {}}):totable())
    assert.are.same({2, 3}, b:mean({}, {keepdim = true}).shape)
    assert.are.same({0}, gpu.zeros(0):max({dim = {}}).shape)   -- nothing reduced: no error
  end)

  it("reduces empty arrays to the identity", function()
    assert.are.equal(0, gpu.zeros({0}):sum())
    assert.are.equal(1, gpu.zeros({0}):prod())
    assert.are.same({0, 0, 0}, gpu.zeros({3, 0}):sum(2):totable())
    assert.are.same({0}, {#gpu.zeros({3, 0}):sum(1)})
    assert.is_false(gpu.zeros({0}):any())
    assert.is_true(gpu.zeros({0}):all())
    assert.are.equal(0, gpu.zeros({0}):count_nonzero())
    local m = gpu.zeros({0}):mean()
    assert.is_true(m ~= m)
  end)
end)

describe("gpu.min, max, argmin, argmax", function()
  plans(function()
    local a = gpu.random.uniform(-1, 1, {300, 7})
    local h = a:totable()
    local v = flat(h)
    local mx, imx, mn, imn = -math.huge, 0, math.huge, 0
    for i, x in ipairs(v) do
      if x > mx then mx, imx = x, i end
      if x < mn then mn, imn = x, i end
    end
    assert.are.equal(mx, a:max())
    assert.are.equal(mn, a:min())
    assert.are.equal(imx, a:argmax())
    assert.are.equal(imn, a:argmin())
    local am, ac = {}, {}
    for i = 1, 300 do
      local m, k = -math.huge, 0
      for j = 1, 7 do if h[i][j] > m then m, k = h[i][j], j end end
      am[i] = k
    end
    for j = 1, 7 do
      local m, k = math.huge, 0
      for i = 1, 300 do if h[i][j] < m then m, k = h[i][j], i end end
      ac[j] = k
    end
    assert.are.same(am, a:argmax(2):totable())
    assert.are.same(ac, a:argmin(1):totable())
    assert.are.equal("int64", a:argmax(1).dtype)
  end)

  it("propagate NaN; argmax and argmin find the first NaN; ties go to the first", function()
    local nan = 0 / 0
    local a = gpu.array({1, nan, 3, nan})
    local m = a:max()
    assert.is_true(m ~= m)
    m = a:min()
    assert.is_true(m ~= m)
    assert.are.equal(2, a:argmax())
    assert.are.equal(2, a:argmin())
    assert.are.equal(2, gpu.array({1, 5, 5, 5}):argmax())
    assert.are.equal(1, gpu.array({0, 5, 0, 5}):argmin())
    assert.are.same({2, 1}, gpu.array({{1, 5, 5}, {7, 7, 2}}):argmax(2):totable())
  end)

  -- long enough for the vector loads, the lanes' rounds and the splits: an accumulator
  -- takes its elements in order (argmax's step), and -inf or a late NaN must still count
  it("find the first best of long arrays: ties, -inf throughout, a NaN late", function()
    local function first(t, better)
      local b = 1
      for i = 2, #t do
        if t[b] == t[b] and (t[i] ~= t[i] or better(t[i], t[b])) then b = i end
      end
      return b
    end
    local gt, lt = function(x, y) return x > y end, function(x, y) return x < y end
    for _, n in ipairs({5, 4099, 70001}) do
      local ties, ninf, nan = {}, {}, {}
      for i = 1, n do
        ties[i] = (i * 7919) % 4
        ninf[i] = -math.huge
        nan[i] = (i * 31) % 1000 / 8
      end
      nan[n - 1], nan[n] = 0 / 0, 0 / 0
      for _, dt in ipairs({"float32", "float64"}) do
        local a = gpu.array(ties, dt)
        assert.are.equal(first(ties, gt), a:argmax())
        assert.are.equal(first(ties, lt), a:argmin())
        assert.are.equal(1, gpu.array(ninf, dt):argmax())
        assert.are.equal(1, gpu.array(ninf, dt):argmin())
        assert.are.equal(n - 1, gpu.array(nan, dt):argmax())
        assert.are.equal(n - 1, gpu.array(nan, dt):argmin())
      end
      assert.are.equal(first(ties, gt), gpu.array(ties, "int32"):argmax())
    end
  end)

  it("keep integer types, exactly", function()
    local a = gpu.array({5, -7, math.maxinteger, math.mininteger}, "int64")
    assert.are.equal(math.maxinteger, a:max())
    assert.are.equal(math.mininteger, a:min())
    assert.are.equal(3, a:argmax())
    local i = gpu.array({3, 9, -2}, "int32")
    assert.are.equal(9, i:max())
    assert.are.equal("int32", i:max(1).dtype)
  end)

  it("refuse an empty array, as NumPy does", function()
    assert.matches("gpu.max of an empty array %(or along a dim of size 0%): max has no identity",
                   S.errof(gpu.max, gpu.zeros({0})))
    assert.matches("argmax has no identity", S.errof(gpu.argmax, gpu.zeros({2, 0}), 2))
    assert.are.same({}, gpu.zeros({0, 3}):max(2):totable())   -- nothing to compute
    -- NumPy raises where a dim reduced has size 0 even when the result is empty
    for _, f in ipairs({gpu.max, gpu.argmin, gpu.nanmax, gpu.ptp}) do
      assert.matches("of an empty array (or along a dim of size 0)", S.errof(f, gpu.zeros({0, 2, 0}), 1), 1, true)
    end
    assert.matches("attempt to get argmax of an empty sequence", S.errof(gpu.nanargmax, gpu.zeros({0, 2, 0}), 1), 1, true)
    assert.are.same({0}, gpu.sum(gpu.zeros({0, 2, 0}), {1, 2}).shape)
  end)

  it("write indices into an integer out only (NumPy refuses a float out), nan* ones too", function()
    local a = gpu.array({{1, 5, 2}, {7, 0, 7}}, "float64")
    for _, api in ipairs({"argmax", "argmin", "nanargmax", "nanargmin"}) do
      for _, dt in ipairs({"float32", "float64", "complex64"}) do
        assert.matches("gpu." .. api .. ": out is " .. dt .. ", and the result is int64 indices: out must be an integer array",
                       S.errof(gpu[api], a, 2, {out = gpu.zeros(2, dt)}), 1, true)
      end
      assert.matches("gpu." .. api .. ": out has shape {3} but the result has shape {2}",
                     S.errof(gpu[api], a, 2, {out = gpu.zeros(3, "int64")}), 1, true)
    end
    local o = gpu.zeros(2, "int16")
    assert.are.equal(o, gpu.argmax(a, 2, {out = o}))
    assert.are.same({2, 1}, o:totable())
    assert.are.same({1, 2}, gpu.nanargmin(a, 2, {out = o}):totable())
  end)

  it("have NumPy's other names (amax, amin), whose errors name the caller's line", function()
    local a = gpu.array({3, 9, -2}, "int32")
    assert.are.equal(9, gpu.amax(a))
    assert.are.equal(-2, gpu.amin(a))
    local e = S.errof(function() local r = gpu.amin(gpu.zeros(0)); return r end)
    assert.matches("^[^%[]*reduce_spec.lua:%d+: gpu.min of an empty array", e)
    e = S.errof(function() return gpu.amax(gpu.zeros(0)) end)   -- a tail call: the line still
    assert.matches("^[^%[]*reduce_spec.lua:%d+: gpu.max of an empty array", e)
  end)
end)

describe("gpu.prod, any, all, count_nonzero, mean, var, std", function()
  it("multiply complex numbers without the identity: an overflowed product is inf+0j, not nan", function()
    local C = gpu.complex
    local function parts(z) return {z.re, z.im} end
    for _, dt in ipairs({"complex64", "complex128"}) do
      local big = dt == "complex64" and 1e30 or 1e300
      assert.are.same({1 / 0, 0}, parts(gpu.prod(gpu.array({C(big, 0), C(big, 0)}, dt))))
      assert.are.same({-1 / 0, 3}, parts(gpu.prod(gpu.array({C(-1 / 0, 3)}, dt))))
      local c = gpu.cumprod(gpu.array({C(1 / 0, 0), C(2, 0)}, dt)):totable()
      assert.are.same({1 / 0, 0}, parts(c[1]))                -- the first element itself
      assert.are.equal(1 / 0, c[2].re)                         -- (inf+0j)(2+0j): NumPy's inf+nanj
      assert.is_true(c[2].im ~= c[2].im)
      -- long rows take the tree and tile paths: the same
      local long = gpu.full(5000, C(1, 0), dt)
      long[{1}] = C(big, 0); long[{5000}] = C(big, 0)
      assert.are.same({1 / 0, 0}, parts(gpu.prod(long)))
      assert.are.same({1 / 0, 0}, parts(gpu.cumprod(long)[{5000}]:item()))
    end
  end)

  local b = gpu.arange(12):reshape(3, 4) + 1

  it("multiply, and test for truth (NaN counts as true)", function()
    assert.are.same({24, 1680, 11880}, b:prod(2):totable())
    assert.is_true(gpu.array({0, 0 / 0}):any())
    assert.is_false(gpu.array({0, 0}):any())
    assert.is_true(b:all())
    assert.are.same({false, true, true}, (b - 1):all(2):totable())
    assert.are.equal(11, (b - 1):count_nonzero())
    assert.are.same({2, 3, 3, 3}, (b - 1):count_nonzero(1):totable())
    assert.are.equal("bool", b:any(1).dtype)
  end)

  it("average, in float64 for integers, with ddof", function()
    assert.are.equal(6.5, b:mean())
    assert.are.same({5, 6, 7, 8}, b:mean(1):totable())
    assert.are.equal("float64", gpu.arange(4, "int32"):mean(1).dtype)
    assert.are.equal(1.5, gpu.arange(4, "int32"):mean())
    local v = 0
    for x = 1, 12 do v = v + (x - 6.5)^2 end
    near(v / 12, b:var(), 1e-6)
    near(v / 11, b:var({ddof = 1}), 1e-6)
    near(math.sqrt(v / 12), b:std(), 1e-6)
    near({1.25, 1.25, 1.25}, b:var(2):totable(), 1e-6)
    near({4, 4, 4, 4}, b:std(1, {ddof = 1}):totable(), 1e-6)   -- columns 1, 5, 9 ...
    assert.are.equal(math.huge, gpu.array({1, 2, 3}):var({ddof = 3}))
    local n = gpu.array({1, 1}):var({ddof = 2})
    assert.is_true(n ~= n)
    -- a NaN ddof is refused (it gave inf: max(N - nan, 0) was 0)
    assert.matches("gpu.var: ddof must be a number, got nan", S.errof(gpu.var, gpu.arange(4), {ddof = 0 / 0}), 1, true)
    assert.matches("gpu.nanstd: ddof must be a number, got nan", S.errof(gpu.nanstd, gpu.arange(4), {ddof = 0 / 0}), 1, true)
  end)
end)

describe("gpu.norm", function()
  local x = gpu.array({3, -4, 0, 12})
  it("takes NumPy's vector orders", function()
    assert.are.equal(13, x:norm())
    assert.are.equal(13, x:norm("fro"))
    assert.are.equal(19, x:norm(1))
    assert.are.equal(3, x:norm(0))
    assert.are.equal(12, x:norm(math.huge))
    assert.are.equal(0, x:norm(-math.huge))
    near((27 + 64 + 1728) ^ (1 / 3), x:norm(3), 1e-6)
    assert.are.same({5, 12}, gpu.array({{3, 4}, {0, 12}}):norm(2, 2):totable())
    assert.are.equal("float64", gpu.arange(3, "int32"):norm(2, 1).dtype)
  end)
end)

describe("gpu.reduction", function()
  it("runs CuPy's ReductionKernel: map, reduce, post-map, identity, type placeholders", function()
    local l2 = gpu.reduction("T x", "T y", "x * x", "a + b", "y = sqrt(a)", 0, "l2norm")
    local x = gpu.arange(12):reshape(3, 4)
    near({math.sqrt(14), math.sqrt(126), math.sqrt(366)}, l2(x, {dim = 2}):totable(), 1e-6)
    near(math.sqrt(506), l2(x):item(), 1e-6)
    local dot = gpu.reduction("float32 x, float32 y", "float64 z", "(double)x * y", "a + b", "z = a", "0", "dot")
    assert.are.same({80, 107, 140, 179}, dot(x, x, {dim = 1}):totable())
    local out = gpu.zeros({1, 4}, "float64")
    assert.are.equal(out, dot(x, x, {dim = 1, keepdim = true, out = out}))
    assert.are.equal("gpu.reduction(dot)", tostring(dot))
    assert.matches("gpu.dot argument 1 is a int32 array; it takes float32",
                   S.errof(dot, gpu.arange(3, "int32"), gpu.arange(3)))
  end)

  it("takes any Lua number as the identity: inf, and floats and integers to the last bit", function()
    local mx = gpu.reduction("T x", "T y", "x", "a > b ? a : b", "y = a", -math.huge, "maxof")
    assert.are.equal(-6, mx(gpu.arange(5, "float64") - 10):item())
    assert.are.equal(-math.huge, mx(gpu.zeros(0, "float64")):item())
    assert.are.equal(0.1, gpu.reduction("T x", "T y", "x", "a + b", "y = a", 0.1, "from01")(gpu.zeros(0, "float64")):item())
    -- -0.0 keeps its sign (it was written -0, the integer 0)
    local nz = gpu.reduction("T x", "T y", "x", "a + b", "y = a", -0.0, "negzero")(gpu.zeros(0, "float64")):item()
    assert.are.equal(-math.huge, 1 / nz)
  end)

  it("reduces into an out that overlaps its input, as gpu.sum does (the kernel read what it wrote)", function()
    local s = gpu.reduction("T x", "T y", "x", "a + b", "y = a", 0, "ovsum")
    local x, want = gpu.arange(9):astype("float64"):reshape(3, 3), gpu.arange(9):astype("float64"):reshape(3, 3)
    local o = s(x, {dim = 2, out = x:reshape(-1)[{{5, 7}}]})
    gpu.sum(want, {dim = 2, out = want:reshape(-1)[{{5, 7}}]})
    assert.are.same({{0, 1, 2}, {3, 3, 12}, {21, 7, 8}}, want:totable())   -- NumPy's add.reduce
    assert.are.same(want:totable(), x:totable())
    assert.are.same({3, 12, 21}, o:totable())
  end)

  it("takes any parameter names but the reserved ones (an output o or A, an input acc), refuses a shared out and NUL bytes", function()
    local x = gpu.ones(8, "float32")
    assert.are.equal(8, gpu.reduction("float32 x", "float32 o", "x", "a + b", "o = a", 0, "ro")(x):item())
    assert.are.equal(8, gpu.reduction("float32 x", "float32 A", "x", "a + b", "A = a", 0, "rA")(x):item())
    assert.are.equal(8, gpu.reduction("float32 acc", "float32 y", "acc", "a + b", "y = a", 0, "racc")(x):item())
    local s = gpu.reduction("float32 x", "float32 y", "x", "a + b", "y = a", 0, "rs")
    assert.matches("cannot write into an expanded view", S.errof(function()
      return s(gpu.ones({2, 4}, "float32"), {dim = 2, out = gpu.zeros(1, "float32"):expand(2)})
    end), 1, true)
    assert.matches("gpu.reduction's argument #3 has a NUL byte at position 2",
                   S.errof(gpu.reduction, "float32 x", "float32 y", "x\0", "a + b", "y = a", 0, "rn"), 1, true)
    assert.matches("gpu.elementwise's argument #3 has a NUL byte at position 7",
                   S.errof(gpu.elementwise, "float32 x", "float32 z", "z = x;\0 z = 5"), 1, true)
  end)

  it("bind a placeholder of the output alone from out, count the inputs first, and refuse too many parameters when built", function()
    local r = gpu.reduction("float32 x", "T y", "x", "a + b", "y = a", 0, "outonly")
    local y = r(gpu.ones({4}, "float32"), {out = gpu.zeros({}, "float64")})
    assert.are.equal("float64", y.dtype)
    assert.are.equal(4, y:item())
    assert.matches("gpu.outonly: cannot tell what T is: it is the output's type only: pass out",
                   S.errof(r, gpu.ones({4}, "float32")), 1, true)
    local s = gpu.reduction("T x", "T y", "x", "a + b", "y = a", 0, "s")
    assert.matches("gpu.s takes 1 input (and an options table), got 0", S.errof(s), 1, true)
    assert.matches("gpu.s takes 1 input (and an options table), got 2", S.errof(s, gpu.ones(2), gpu.ones(2)), 1, true)
    local ins = {}
    for i = 1, 16 do ins[i] = "float32 x" .. i end
    assert.matches("gpu.reduction: a reduction has at most 16 parameters (inputs and outputs), got 17",
                   S.errof(gpu.reduction, table.concat(ins, ", "), "float32 y", "x1", "a + b", "y = a", 0, "many"), 1, true)
  end)
end)
