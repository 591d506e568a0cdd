-- Scans: gpu.cumsum and gpu.cumprod against running sums and products in Lua, along each
-- dim and flattened, over views, into out= and in place; on the backend's plan and on the
-- GPU's (gpu._reduce_plan: 256-thread tiles with the look-back, and the transposed copy of
-- long strided lines), which the CPU backend runs too.
local S = require("spec.support")

local function near(want, got, tol)
  assert.are.equal(#want, #got)
  for i = 1, #want do
    if type(want[i]) == "table" then near(want[i], got[i], tol)
    else
      assert(math.abs(want[i] - got[i]) <= tol * math.max(1, math.abs(want[i])),
             ("element %d: expected %.9g, got %.9g"):format(i, want[i], got[i]))
    end
  end
end
local function running(t)
  local r, s = {}, 0
  for i, v in ipairs(t) do s = s + v; r[i] = s end
  return r
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

describe("gpu.cumsum", function()
  gpu.random.seed(5)
  plans(function()
    for _, n in ipairs({5, 5000, 100000}) do      -- one tile, several, many
      local a = gpu.random.uniform(0, 1, n)
      near(running(a:totable()), a:cumsum():totable(), 1e-5)
    end
    local w = gpu.random.uniform(0, 1, {20000, 3})   -- three long strided lines
    local h = w:totable()
    local cols = {{}, {}, {}}
    for i = 1, 20000 do for j = 1, 3 do cols[j][i] = h[i][j] end end
    local c = w:cumsum(1)
    for j = 1, 3 do near(running(cols[j]), c[{{}, j}]:totable(), 1e-5) end
    near(running(cols[2]), w.T:cumsum(2)[{2}]:totable(), 1e-5)   -- the same lines, contiguous
  end)

  it("gives int64 for int32, along each dim and flattened (as NumPy's)", function()
    local b = gpu.arange(12, "int32"):reshape(3, 4)
    assert.are.same({{0, 1, 2, 3}, {4, 6, 8, 10}, {12, 15, 18, 21}}, b:cumsum(1):totable())
    assert.are.same({{0, 1, 3, 6}, {4, 9, 15, 22}, {8, 17, 27, 38}}, b:cumsum(2):totable())
    assert.are.same({{0, 1, 3, 6}, {4, 9, 15, 22}, {8, 17, 27, 38}}, b:cumsum(-1):totable())
    assert.are.same({0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66}, b:cumsum():totable())
    assert.are.same({0, 4, 12, 13, 18, 27}, b.T[{{1, 2}}]:cumsum():totable())   -- a view, in C order
    assert.are.equal("int64", b:cumsum(1).dtype)
  end)

  it("writes into out= and in place, and takes a stream", function()
    local a = gpu.arange(6):reshape(2, 3)
    local o = gpu.zeros({2, 3}, "float64")
    assert.are.equal(o, gpu.cumsum(a, {dim = 2, out = o}))
    assert.are.same({{0, 1, 3}, {3, 7, 12}}, o:totable())
    gpu.cumsum(a, 1, {out = a, stream = gpu.stream()})
    assert.are.same({{0, 1, 2}, {3, 5, 7}}, a:totable())
    local v = gpu.arange(4)   -- out a shifted view of the input: read from a copy
    gpu.cumsum(v[{{1, 3}}], {out = v[{{2, 4}}]})
    assert.are.same({0, 0, 1, 3}, v:totable())
    v = gpu.arange(4)         -- and shifted the other way (flattened: no dim)
    gpu.cumsum(v[{{2, 4}}], {out = v[{{1, 3}}]})
    assert.are.same({1, 3, 6, 3}, v:totable())
  end)

  it("scans a C-ordered view from its first element, flattened (a row, a tail)", function()
    local m = gpu.arange(12):reshape(3, 4)
    assert.are.same({8, 17, 27, 38}, m[{3}]:cumsum():totable())
    assert.are.same({5, 11, 18, 26, 35, 45, 56}, m:flatten()[{{6, 12}}]:cumsum():totable())
  end)

  it("refuses bad dims and outputs", function()
    local a = gpu.zeros({2, 3})
    assert.matches("gpu.cumsum: dim 3 is out of range for an array of 2 dimensions", S.errof(gpu.cumsum, a, 3))
    assert.matches("gpu.cumsum: out has shape {3} but the result has shape {2, 3}",
                   S.errof(gpu.cumsum, a, 1, {out = gpu.zeros(3)}))
    assert.matches("gpu.cumsum: out is int32, and the result %(float32%) cannot be cast to it",
                   S.errof(gpu.cumsum, a, 1, {out = gpu.zeros({2, 3}, "int32")}))
    -- NaN shows as printing shows it, nan (0/0 has the sign bit: Lua's own text is -nan)
    assert.are.equal("gpu.cumsum: dim must be an integer, got nan", S.errof(gpu.cumsum, a, 0 / 0):match("gpu%..*"))
    assert.are.equal("gpu.sum: dim must be an integer, got nan", S.errof(gpu.sum, a, 0 / 0):match("gpu%..*"))
    -- an option that is no stream is named (luaL_checkudata said 'bad argument #-2 to 'cumsum'')
    assert.matches("bad option 'stream' %(gpu.stream expected, got number%)", S.errof(gpu.cumsum, a, 1, {stream = 3}))
  end)
end)

describe("gpu.cumsum of floats keeps a zero's sign, summing from -0.0 (IEEE's identity), as NumPy's", function()
  local INF = math.huge
  local function signs(t) local r = {} for i, v in ipairs(t) do r[i] = 1 / v end return r end
  plans(function()
    for _, dt in ipairs({"float16", "float32", "float64"}) do
      local a = gpu.array({-0.0, -0.0, 0.0, -0.0}, dt)
      assert.are.same({-INF, -INF, INF, INF}, signs(a:cumsum():totable()), dt)
      assert.are.same({-INF, -INF, INF, INF}, signs(gpu.nancumsum(a):totable()), dt)
      -- NaN reads as 0, not -0: NumPy's nancumsum({-0.0, nan, -0.0}) is {-0.0, 0.0, 0.0}
      assert.are.same({-INF, INF, INF}, signs(gpu.nancumsum(gpu.array({-0.0, 0 / 0, -0.0}, dt)):totable()), dt)
      local m = gpu.full({3, 2}, -0.0, dt)
      for d = 1, 2 do
        for _, row in ipairs(m:cumsum(d):totable()) do assert.are.same({-INF, -INF}, signs(row), dt) end
      end
      assert.are.equal(INF, 1 / gpu.full(2, -0.0, dt):sum(), dt)   -- NumPy's sum is +0.0: unchanged
    end
    local long = gpu.full(100000, -0.0):cumsum():totable()    -- many tiles
    assert.are.equal(-INF, 1 / long[1]); assert.are.equal(-INF, 1 / long[100000])
    for _, dt in ipairs({"complex64", "complex128"}) do
      local z = gpu.full(3, gpu.complex(-0.0, -0.0), dt):cumsum()
      assert.are.same({-INF, -INF, -INF}, signs(gpu.real(z):totable()), dt)
      assert.are.same({-INF, -INF, -INF}, signs(gpu.imag(z):totable()), dt)
    end
  end)
end)

describe("gpu.cumprod", function()
  it("multiplies along a dim, in int64 for int32", function()
    local b = gpu.arange(12, "int32"):reshape(3, 4) + 1
    assert.are.same({{1, 2, 6, 24}, {5, 30, 210, 1680}, {9, 90, 990, 11880}}, b:cumprod(2):totable())
    assert.are.same({{1, 2, 3, 4}, {5, 12, 21, 32}, {45, 120, 231, 384}}, b:cumprod(1):totable())
    assert.are.same({}, gpu.zeros({0}, "int32"):cumprod():totable())
  end)
end)
