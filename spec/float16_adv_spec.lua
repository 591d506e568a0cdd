-- float16, a second adversarial pass: each case failed before the fix named in its title
-- (the expected numbers are NumPy 1.24's, NEP 50's promotion where it differs, written here).
local INF, NAN = math.huge, 0 / 0

local function same(want, got, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do
    local w, g = want[i], got[i]
    if type(g) == "boolean" then g = g and 1 or 0 end
    local ok = (w ~= w and g ~= g) or (w == g and (w ~= 0 or 1 / w == 1 / g))
    assert(ok, ("%s[%d]: expected %s, got %s"):format(what or "", i, tostring(w), tostring(g)))
  end
end
local function flat(a) return a:reshape(-1):totable() end   -- (no astype: fewer kernels to compile)
local function H(t) return gpu.array(t, "float16") end

describe("float16 adversarial", function()
  it("a float16 result written to a float32 or float64 out is rounded to float16 first", function()
    local o = gpu.zeros(3, "float32")
    gpu.add(H{0, 1, 2}, 0.1, {out = o})
    same({0.0999755859375, 1.099609375, 2.099609375}, flat(o), "add into float32")
    local d = gpu.zeros(2, "float64")
    gpu.add(H{1, 3}, H{2 ^ -11, 2 ^ -11}, {out = d})
    same({1, 3}, flat(d), "add into float64")
    gpu.sqrt(gpu.array({2, 3}, "int8"), {out = o[{{1, 2}}]})
    same({1.4140625, 1.732421875}, flat(o[{{1, 2}}]), "sqrt of int8 (a float16 loop) into float32")
  end)

  it("matrix_power of float16 to a negative power is refused (an inverse), not a float64 inverse", function()
    local ok, err = pcall(gpu.linalg.matrix_power, H{{2, 0}, {0, 4}}, -1)
    assert.is_false(ok)
    assert.matches("gpu.linalg.matrix_power: float16 arrays are not supported in linear algebra", err, 1, true)
    local p = gpu.linalg.matrix_power(H{{2, 0}, {0, 4}}, 0)
    assert.are.equal("float16", p.dtype)
    same({1, 0, 0, 1}, flat(p), "p = 0")
    same({8, 0, 0, 64}, flat(gpu.linalg.matrix_power(H{{2, 0}, {0, 4}}, 3)), "p = 3")
  end)

  it("searchsorted compares a Lua number in its own type, as NumPy (not rounded to float16)", function()   -- (int8 a with 300, an error before, compares 300 too)
    local a = H{1, 2, 2048}
    assert.are.equal(4, gpu.searchsorted(a, 2049))      -- NumPy's 3, plus 1
    assert.are.equal(4, gpu.searchsorted(a, 2048.5))
    assert.are.equal(3, gpu.searchsorted(a, 2048))
    assert.are.equal(4, gpu.searchsorted(a, 2048, {side = "right"}))
    assert.are.equal(4, gpu.searchsorted(H{1, 2, 65504}, 1e6))
  end)

  it("arange with an infinite step toward stop gives start, as NumPy's", function()
    same({0}, gpu.arange(0, 10, INF, "float16"):totable(), "0, 10, inf")
    same({-2.5}, gpu.arange(-2.5, -3, -INF, "float64"):totable(), "-2.5, -3, -inf")
    assert.are.equal(0, gpu.arange(0, -10, INF, "float16").size)
    assert.are.equal(0, gpu.arange(5, 5, INF, "float16").size)
  end)

  it("polydiv of float16 rounds each step to float16, as NumPy's (it rounded only the results)", function()
    local q, r = gpu.polydiv(H{1, 0.1, 0.3, 7}, H{3, 0.7})
    assert.are.equal("float16", q.dtype)
    same({0.333251953125, -0.044464111328125, 0.1103515625}, flat(q), "q")
    same({6.921875}, flat(r), "r")
    q, r = gpu.polydiv(H{1, 0.1, 0.3, 7, 11, 0.001}, H{3, 0.7, 0.9})
    same({0.333251953125, -0.044464111328125, 0.01045989990234375, 2.34375}, flat(q), "q of 5th degree")
    same({9.3515625, -2.107421875}, flat(r), "r of 5th degree")
  end)

  it("tensorinv and tensorsolve refuse float16 in their own names, at the caller's line", function()
    local a = gpu.eye(4, "float16"):reshape(4, 2, 2)
    local ok, err = pcall(function() local r = gpu.linalg.tensorinv(a, 1); return r end)
    assert.is_false(ok)
    assert.matches("float16_adv_spec%.lua:%d+: gpu%.linalg%.tensorinv: float16 arrays are not supported", err)
    ok, err = pcall(function() local r = gpu.linalg.tensorsolve(a, gpu.ones(4, "float16")); return r end)
    assert.is_false(ok)
    assert.matches("float16_adv_spec%.lua:%d+: gpu%.linalg%.tensorsolve: float16 arrays are not supported", err)
  end)

  it("round of float16 to 5 decimals or more scales by a float32 10^d, as NumPy 1.24 (it gave NaN)", function()
    local a = H{1.5, 0.1, 1234, 0, -2.5, 65504}
    same({INF, 0.0999755859375, INF, 0, -INF, INF}, flat(gpu.round(a, 5)), "5 decimals")
    same({0, 0, 0, 0, -0.0, INF}, flat(gpu.round(a, -5)), "-5 decimals")
  end)
end)
