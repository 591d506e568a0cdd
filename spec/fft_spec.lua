-- FFTs: gpu.fft against a discrete Fourier transform computed in Lua (the definition,
-- e^-2pi i jk/n), by NumPy's rules: sizes that crop or pad, dims (trailing in one call,
-- others one at a time), the three norms, real transforms and their inverses, dtypes; the
-- errors; and an FFTW that cannot be loaded.
local S = require("spec.support")
local C = gpu.complex

-- the DFT of a list of gpu.complex (or numbers); inverse: e^+, unscaled
local function dft(x, inverse)
  local n, out = #x, {}
  for k = 0, n - 1 do
    local re, im = 0, 0
    for j = 0, n - 1 do
      local v = type(x[j + 1]) == "number" and C(x[j + 1], 0) or x[j + 1]
      local t = (inverse and 2 or -2) * math.pi * j * k / n
      re = re + v.re * math.cos(t) - v.im * math.sin(t)
      im = im + v.re * math.sin(t) + v.im * math.cos(t)
    end
    out[k + 1] = C(re, im)
  end
  return out
end
local function close(want, got, tol)
  assert.are.equal(#want, #got)
  for i = 1, #want do
    if type(want[i]) == "table" then close(want[i], got[i], tol)
    else
      local w = type(want[i]) == "number" and C(want[i], 0) or want[i]
      local g = type(got[i]) == "number" and C(got[i], 0) or got[i]
      assert(math.abs(w.re - g.re) <= tol and math.abs(w.im - g.im) <= tol,
             ("element %d: expected %s, got %s"):format(i, tostring(w), tostring(g)))
    end
  end
end
local function scale(t, f) local r = {} for i, v in ipairs(t) do r[i] = type(v) == "table" and scale(v, f) or v * f end return r end

describe("gpu.fft.fft and ifft", function()
  gpu.random.seed(8)
  local x = gpu.random.uniform(-1, 1, 12, "float64") + gpu.random.uniform(-1, 1, 12, "float64") * gpu.full({}, C(0, 1), "complex128")
  local xs = x:totable()

  it("are the DFT and its inverse, scaled by NumPy's norms", function()
    assert.are.equal("complex128", x.dtype)
    close(dft(xs), gpu.fft.fft(x):totable(), 1e-12)
    close(scale(dft(xs, true), 1 / 12), gpu.fft.ifft(x):totable(), 1e-12)
    close(scale(dft(xs), 1 / math.sqrt(12)), gpu.fft.fft(x, nil, nil, "ortho"):totable(), 1e-12)
    close(scale(dft(xs), 1 / 12), gpu.fft.fft(x, {norm = "forward"}):totable(), 1e-12)
    close(dft(xs, true), gpu.fft.ifft(x, {norm = "forward"}):totable(), 1e-12)
    close(xs, gpu.fft.ifft(gpu.fft.fft(x)):totable(), 1e-12)
  end)

  -- the scaling multiplies each part by a real number: the complex product with f + 0i
  -- made an infinite part turn the other into NaN (ortho fft of {1e308+1e-300j, 1e308}
  -- was {inf+nanj, ...}, ifft of {inf+1j, 1} {inf+nanj, inf+nanj})
  it("scale each part alone (an infinite part leaves the other), as NumPy's", function()
    local w = gpu.fft.fft(gpu.array({C(1e308, 1e-300), C(1e308, 0)}, "complex128"), nil, -1, "ortho"):totable()
    assert.are.same({math.huge, 0}, {w[1].re, w[2].re})
    for i = 1, 2 do assert.is_true(math.abs(w[i].im - 1e-300 / math.sqrt(2)) < 1e-315, tostring(w[i])) end
    for _, dt in ipairs({"complex64", "complex128"}) do
      local v = gpu.array({C(math.huge, 1), 1}, dt)
      assert.are.same({C(math.huge, 0.5), C(math.huge, 0.5)}, gpu.fft.ifft(v):totable())
      assert.are.same({C(math.huge, 0.5), C(math.huge, 0.5)}, gpu.fft.fft(v, {norm = "forward"}):totable())
      assert.are.same({{C(math.huge, 0.5)}, {C(math.huge, 0.5)}}, gpu.fft.ifft(v:reshape(2, 1), nil, 1):totable())
    end
  end)

  it("crop and pad to n, and take float32 to complex64", function()
    local padded = {table.unpack(xs)}
    for i = 13, 16 do padded[i] = 0 end
    close(dft(padded), gpu.fft.fft(x, 16):totable(), 1e-12)
    close(dft({table.unpack(xs, 1, 5)}), gpu.fft.fft(x, 5):totable(), 1e-12)
    local f = gpu.array({1, 2, 3, 4, 5})
    local r = gpu.fft.fft(f)
    assert.are.equal("complex64", r.dtype)
    close(dft({1, 2, 3, 4, 5}), r:totable(), 1e-5)
  end)

  it("transform along a dim, and several dims (fft2, fftn), trailing or not", function()
    local m = gpu.random.uniform(-1, 1, {3, 4, 5}, "float64")
    local h = m:totable()
    local cols = {}   -- along dim 1 of m[{{}, 2, 3}]
    for i = 1, 3 do cols[i] = h[i][2][3] end
    close(dft(cols), gpu.fft.fft(m, nil, 1)[{{}, 2, 3}]:totable(), 1e-12)
    -- fft2 over the last two dims is the DFT along dim 3, then along dim 2
    local step = gpu.fft.fft(gpu.fft.fft(m, nil, 3), nil, 2)
    close(step:totable(), gpu.fft.fft2(m):totable(), 1e-12)
    local all = gpu.fft.fft(step, nil, 1)
    close(all:totable(), gpu.fft.fftn(m):totable(), 1e-12)
    close(gpu.fft.fft(gpu.fft.fft(m, nil, 3), nil, 1):totable(), gpu.fft.fftn(m, nil, {1, 3}):totable(), 1e-12)
    close(m:totable(), gpu.real(gpu.fft.ifftn(gpu.fft.fftn(m))):totable(), 1e-12)
    assert.are.same({3, 6, 7}, gpu.fft.fftn(m, {6, 7}).shape)
  end)
end)

describe("gpu.fft.rfft and irfft", function()
  it("keep the first n // 2 + 1 values, and invert them (n even or odd)", function()
    local r = {0.5, -1, 2, 0.25, 3, -2, 1}
    local a = gpu.array(r, "float64")
    local want = dft(r)
    close({table.unpack(want, 1, 4)}, gpu.fft.rfft(a):totable(), 1e-12)
    close(r, gpu.fft.irfft(gpu.fft.rfft(a), 7):totable(), 1e-12)
    close({table.unpack(r, 1, 6)}, gpu.fft.irfft(gpu.fft.rfft(a, 6)):totable(), 1e-12)
    assert.are.equal("float64", gpu.fft.irfft(gpu.fft.rfft(a)).dtype)
    local m = gpu.random.uniform(-1, 1, {4, 6})
    assert.are.same({4, 4}, gpu.fft.rfftn(m).shape)
    assert.are.same({3, 6}, gpu.fft.rfft(m, nil, 1).shape)
    close(m:totable(), gpu.fft.irfftn(gpu.fft.rfftn(m), {4, 6}):totable(), 1e-5)
    close(gpu.fft.fft(m, nil, 1)[{{1, 3}}]:totable(), gpu.fft.rfft(m, nil, 1):totable(), 1e-5)
  end)

  it("take the last dim given as the real one (rfftn and irfftn), as NumPy's", function()
    local m = gpu.random.uniform(-1, 1, {4, 6}, "float64")
    local h = gpu.fft.rfftn(m, nil, {2, 1})   -- the real transform along dim 1: {3, 6}
    assert.are.same({3, 6}, h.shape)
    close(gpu.fft.fft(gpu.fft.rfft(m, nil, 1), nil, 2):totable(), h:totable(), 1e-12)
    assert.are.same({3, 8}, gpu.fft.rfftn(m, {8, 4}, {2, 1}).shape)
    assert.are.same({3, 10}, gpu.fft.irfftn(h, nil, {1, 2}).shape)
    close(m:totable(), gpu.fft.irfftn(h, {6, 4}, {2, 1}):totable(), 1e-12)
  end)

  it("take -1 in s as the input's length along that dim, as NumPy 2's (it was refused)", function()
    local x = gpu.arange(12, "float64"):reshape({3, 4})
    local xc = x:astype("complex128")
    -- NumPy 2.4: irfftn(xc, s=[-1, -1], axes=[0, 1]): the real dim's length is m (4), not 2 (m - 1)
    close({{5, -0.5, 0, -0.5}, {-2, 0.5773502691896257, 0, -0.5773502691896257},
           {-2, -0.5773502691896257, 0, 0.5773502691896257}}, gpu.fft.irfftn(xc, {-1, -1}, {1, 2}):totable(), 1e-12)
    close({{3, -0.5, 0, -0.5}, {-2, 0, 0, 0}}, gpu.fft.irfft2(xc, {2, -1}):totable(), 1e-12)
    assert.are.same({3, 5}, gpu.fft.irfftn(xc, {-1, 5}).shape)
    -- fftn(x, s=[-1, 6], axes=[0, 1]); rfftn(x, s=[-1, -1]); ifftn(x, s=[-1], axes=[1]); fftn(x, s=[-1, 2], axes=[1, 1])
    assert.are.same({3, 6}, gpu.fft.fftn(x, {-1, 6}, {1, 2}).shape)
    close({{66, C(-6, 6), -6}, {C(-24, 13.856406460551018), 0, 0}, {C(-24, -13.856406460551018), 0, 0}},
          gpu.fft.rfftn(x, {-1, -1}):totable(), 1e-12)
    close(gpu.fft.ifft(x):totable(), gpu.fft.ifftn(x, -1):totable(), 1e-15)
    close({{0, C(1, 1), 2, C(1, -1)}, {8, C(9, 1), 10, C(9, -1)}, {16, C(17, 1), 18, C(17, -1)}},
          gpu.fft.fftn(x, {-1, 2}, {2, 2}):totable(), 1e-12)
    -- a 1-D transform's n = -1 stays an error, as NumPy's, and so does -2 in s
    assert.matches("gpu.fft.irfft: invalid number of data points (-1) along dim 2", S.errof(gpu.fft.irfft, xc, -1), 1, true)
    assert.matches("gpu.fft.fftn: invalid number of data points (-2) along dim 1", S.errof(gpu.fft.fftn, x, {-2, -1}), 1, true)
  end)
end)

describe("gpu.fft on streams #cuda", function()
  -- one plan serves every stream, and its executions share its work area: one on another
  -- stream than the last waits for it
  it("gives each stream's transform its own result", function()
    local n = 3^12 * 2   -- a size cuFFT does in several passes, through its work area
    local x = {gpu.random.uniform(-1, 1, {4, n}):astype("complex128"), gpu.random.uniform(-1, 1, {4, n}):astype("complex128")}
    local want = {gpu.fft.fft(x[1]), gpu.fft.fft(x[2])}
    local s = {gpu.stream(), gpu.stream()}
    local got = {}
    for r = 1, 8 do
      for i = 1, 2 do got[i] = gpu.fft.fft(x[i], {stream = s[i]}) end
      for i = 1, 2 do
        s[i]:synchronize()
        assert.is_true(gpu.abs(got[i] - want[i]):max() < 1e-9, ("round %d, stream %d"):format(r, i))
      end
    end
  end)
end)

describe("gpu.fft in a graph #cuda", function()
  -- a replay runs on the plan's tables and work area: the plan cache (16 plans) must not
  -- destroy a plan while a graph that recorded it lives, whatever else is transformed
  it("keeps the plans it recorded past the cache's evictions", function()
    local n = 1000
    local x = gpu.arange(n):astype("complex128") * gpu.full({}, gpu.complex(0.5, -0.25), "complex128")
    local want = gpu.fft.fft(x):totable()
    local y = gpu.zeros(n, "complex128")
    local g = gpu.graph(function() gpu.copy(y, gpu.fft.fft(x)) end)
    gpu.copy(y, gpu.zeros(n, "complex128"))
    for m = 1, 40 do gpu.fft.fft(gpu.ones(n + 3 * m, "complex128")) end   -- 40 other plans
    g:launch()
    close(want, y:totable(), 1e-6)
    g:update(function() gpu.copy(y, gpu.fft.ifft(x)) end)   -- the first plan goes back to the cache
    for m = 1, 40 do gpu.fft.fft(gpu.ones(n + 3 * m + 1, "complex128")) end
    g:launch()
    close(gpu.fft.ifft(x):totable(), y:totable(), 1e-6)
    g:free()
    for m = 1, 20 do gpu.fft.fft(gpu.ones(2 * m, "complex128")) end
    close(want, gpu.fft.fft(x):totable(), 1e-6)
  end)

  it("has plans of its own: replays beside calls of the same shape, two streams in one graph", function()
    local n = 3^12 * 2
    local x = {gpu.random.uniform(-1, 1, {4, n}):astype("complex128"), gpu.random.uniform(-1, 1, {4, n}):astype("complex128")}
    local want = {gpu.fft.fft(x[1]), gpu.fft.fft(x[2])}
    local s = {gpu.stream(), gpu.stream()}
    local y = {gpu.zeros({4, n}, "complex128"), gpu.zeros({4, n}, "complex128")}
    local g = gpu.graph(function()
      for i = 1, 2 do gpu.copy(y[i], gpu.fft.fft(x[i], {stream = s[i]}), {stream = s[i]}) end
    end)
    for _ = 1, 4 do
      g:launch(s[1])
      local z = gpu.fft.fft(x[2], {stream = s[2]})
      gpu.synchronize()
      for i = 1, 2 do assert.is_true(gpu.abs(y[i] - want[i]):max() < 1e-9) end
      assert.is_true(gpu.abs(z - want[2]):max() < 1e-9)
    end
  end)
end)

describe("gpu.fft errors", function()
  it("refuse integer arrays, complex rfft input, bad sizes, dims and norms", function()
    assert.matches("gpu.fft.fft: int32 arrays: FFTs take float32, float64, complex64 or complex128",
                   S.errof(gpu.fft.fft, gpu.arange(4, "int32")))
    assert.matches("gpu.fft.rfft takes a real array %(float32 or float64%), got complex64",
                   S.errof(gpu.fft.rfft, gpu.zeros(4, "complex64")))
    assert.matches("gpu.fft.fft: invalid number of data points %(0%) along dim 1", S.errof(gpu.fft.fft, gpu.zeros(4), 0))
    assert.matches("gpu.fft.fft: invalid number of data points %(%-1%) along dim 1", S.errof(gpu.fft.fft, gpu.zeros(4), -1))
    -- a size past what an array holds names the call (it was array_new's 'shape {...} is too large')
    assert.matches("gpu.fft.fft: 9223372036854775807 data points along dim 1 make an array of more than 2^48 elements",
                   S.errof(gpu.fft.fft, gpu.zeros(4, "complex128"), math.maxinteger), 1, true)
    assert.matches("gpu.fft.rfftn: 281474976710656 data points along dim 2 make an array of more than 2^48 elements",
                   S.errof(gpu.fft.rfftn, gpu.zeros({2, 4}), {2, 2^48}), 1, true)
    assert.matches("gpu.fft.fftn: 2199023255552 data points along dim 2 make an array of more than 2^48 elements",
                   S.errof(gpu.fft.fftn, gpu.zeros({2^10, 2}, "complex64"), {2^10, 2^41}), 1, true)
    -- rfft's input padded to n (its result is n/2 + 1 long), irfft's result n long
    assert.matches("gpu.fft.rfft: 422212465065984 data points along dim 1 make an array of more than 2^48 elements",
                   S.errof(gpu.fft.rfft, gpu.zeros(4), 2^48 + 2^47), 1, true)
    assert.matches("gpu.fft.irfft: 281474976710660 data points along dim 1 make an array of more than 2^48 elements",
                   S.errof(gpu.fft.irfft, gpu.zeros(4, "complex64"), 2^48 + 4), 1, true)
    -- (-1 in s is the input's length, as NumPy 2's: it was this error)
    assert.matches("gpu.fft.fftn: invalid number of data points %(%-2%) along dim 2", S.errof(gpu.fft.fftn, gpu.zeros({2, 3}), {2, -2}))
    assert.matches("gpu.fft.fft: dim 2 is out of range for an array of 1 dimension", S.errof(gpu.fft.fft, gpu.zeros(4), nil, 2))
    assert.matches("gpu.fft.fft2 takes an array of 2 or more dimensions, got 1", S.errof(gpu.fft.fft2, gpu.zeros(4)))
    assert.matches("gpu.fft.fft: norm must be \"backward\", \"ortho\" or \"forward\", got a string %(\"x\"%)",
                   S.errof(gpu.fft.fft, gpu.zeros(4), nil, nil, "x"))
    -- NaN shows as printing shows it, nan (0/0 has the sign bit: Lua's own text is -nan)
    local x = gpu.zeros(4)
    assert.are.equal("gpu.fft.fft: a size must be an integer, got nan", S.errof(gpu.fft.fft, x, 0 / 0):match("gpu%..*"))
    assert.are.equal("gpu.fft.fft: a dim must be an integer, got nan", S.errof(gpu.fft.fft, x, nil, 0 / 0):match("gpu%..*"))
    -- a numeric string is no number (lua_tointegerx made "2" the size 2)
    assert.are.equal('gpu.fft.fft: a size must be an integer, got a string ("2")', S.errof(gpu.fft.fft, x, "2"):match("gpu%..*"))
    assert.are.equal('gpu.fft.fft: a dim must be an integer, got a string ("1")', S.errof(gpu.fft.fft, x, nil, "1"):match("gpu%..*"))
    assert.are.equal('gpu.fft.fftn: a size must be an integer, got a string ("2")', S.errof(gpu.fft.fftn, x, {"2"}):match("gpu%..*"))
    assert.are.equal('gpu.fft.fft: norm must be "backward", "ortho" or "forward", got nan',
                     S.errof(gpu.fft.fft, x, nil, nil, 0 / 0):match("gpu%..*"))
    -- a value given twice is refused (fft(x, 2, {n = 8}) took 2 and dropped 8 silently)
    assert.matches("gpu.fft.fft: the size %(n or s%) is given twice", S.errof(gpu.fft.fft, x, 2, {n = 8}))
    assert.matches("gpu.fft.fftn: the size %(n or s%) is given twice", S.errof(gpu.fft.fftn, x, {n = 8, s = {4}}))
    assert.matches("gpu.fft.fft: the dim %(dim or dims%) is given twice", S.errof(gpu.fft.fft, x, nil, 1, {dim = 1}))
    assert.matches("gpu.fft.fft: norm is given twice", S.errof(gpu.fft.fft, x, nil, nil, "ortho", {norm = "ortho"}))
    assert.are.same({8}, gpu.fft.fft(x, {n = 8, dim = 1, norm = "forward"}).shape)
  end)

  it("refuse a key or a hole in a table of sizes or dims (fftn(x, {3, 4, norm = \"ortho\"}) lost the norm)", function()
    local m = gpu.ones({3, 4}, "float64")
    assert.are.equal('gpu.fft.fftn: s must be a list, and the table has a key "norm" besides its 2 elements',
                     S.errof(gpu.fft.fftn, m, {3, 4, norm = "ortho"}):match("gpu%..*"))
    assert.are.equal('gpu.fft.fftn: dims must be a list, and the table has a key "norm" besides its 2 elements',
                     S.errof(gpu.fft.fftn, m, nil, {1, 2, norm = "forward"}):match("gpu%..*"))
    assert.are.equal('gpu.fft.ifft2: dims must be a list, and the table has a key "x" besides its 2 elements',
                     S.errof(gpu.fft.ifft2, m, {dims = {1, 2, x = 1}}):match("gpu%..*"))
    -- {[1] = 2, [3] = 4} was {2}: the transform of dim 2 alone
    assert.are.equal("gpu.fft.fftn: dims[2] is nil", S.errof(gpu.fft.fftn, m, nil, {[1] = 2, [3] = 4}):match("gpu%..*"))
    assert.are.equal("gpu.fft.rfftn: s[2] is nil", S.errof(gpu.fft.rfftn, m, {[1] = 3, [3] = 4}, {1, 2, 2}):match("gpu%..*"))
    assert.are.same({3, 4}, gpu.fft.fftn(m, {3, 4}, {1, 2}, {norm = "ortho"}).shape)
  end)

  it("the 2-D transforms refuse a number as dims, as NumPy's (fft2(x, nil, 1) was fft along dim 1)", function()
    local m = gpu.ones({3, 4}, "float64")
    assert.are.equal("gpu.fft.fft2: dims must be a table of dims, got a number (gpu.fft.fft transforms one dim)",
                     S.errof(gpu.fft.fft2, m, nil, 1):match("gpu%..*"))
    assert.are.equal("gpu.fft.irfft2: dims must be a table of dims, got a number (gpu.fft.irfft transforms one dim)",
                     S.errof(gpu.fft.irfft2, m, {dims = -1}):match("gpu%..*"))
    assert.are.same({3, 4}, gpu.fft.fft2(m, nil, {2}).shape)   -- a table of one is fftn's, as NumPy's axes=(1,)
  end)

  it("transform no dim for an empty table of dims, as NumPy's (fftn(x, nil, {}) was taken as options: every dim)", function()
    local m = gpu.array({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}, "float32")
    -- NumPy: fftn(m, axes=()) is m itself; here a new array of the transform's dtype
    for _, y in ipairs({gpu.fft.fftn(m, nil, {}), gpu.fft.fft2(m, nil, {}), gpu.fft.ifftn(m, {}, {}),
                        gpu.fft.fftn(m, {}, nil, "ortho"), gpu.fft.ifft2(m, nil, {}, {norm = "forward"}),
                        gpu.fft.fftn(m, {dims = {}})}) do
      assert.are.equal("complex64", y.dtype)
      close(m:totable(), y:totable(), 0)
    end
    local z = m:astype("complex128")
    local y = gpu.fft.fftn(z, nil, {})
    assert.is_false(rawequal(y, z))
    y[{1, 1}] = 100
    assert.are.equal(1, z:totable()[1][1].re)
    -- fftn(m, {3, 4}, {}): NumPy's "Shape and axes have different lengths"; rfftn: an IndexError
    assert.are.equal("gpu.fft.fftn: 2 sizes for 0 dims", S.errof(gpu.fft.fftn, m, {3, 4}, {}):match("gpu%..*"))
    assert.are.equal("gpu.fft.rfftn: no dim given (it takes the last one given as the real one)",
                     S.errof(gpu.fft.rfftn, m, nil, {}):match("gpu%..*"))
    assert.are.equal("gpu.fft.irfft2: no dim given (it takes the last one given as the real one)",
                     S.errof(gpu.fft.irfft2, m, {dims = {}}):match("gpu%..*"))
    -- a last argument 2 with no key is an options table (of none): every dim
    close(gpu.fft.fftn(m):totable(), gpu.fft.fftn(m, {}):totable(), 1e-4)
  end)

  it("the 1-D transforms refuse a table of dims or sizes, as NumPy's (fft(x, nil, {1, 2}) was fft2)", function()
    -- NumPy: TypeError for fft(x, axis=(0, 1))
    local m = gpu.ones({2, 2}, "float64")
    for f, many in pairs({fft = "fftn", ifft = "ifftn", rfft = "rfftn", irfft = "irfftn", hfft = false, ihfft = false}) do
      local want = "gpu.fft." .. f .. " transforms one dim: the dim must be an integer, got a table" ..
                   (many and " (gpu.fft." .. many .. " takes several)" or "")
      assert.are.equal(want, S.errof(gpu.fft[f], m, nil, {1, 2}):match("gpu%..*"))
      assert.are.equal(want, S.errof(gpu.fft[f], m, {dims = {2}}):match("gpu%..*"))
    end
    assert.matches("gpu.fft.fft transforms one dim: the size n must be an integer, got a table", S.errof(gpu.fft.fft, m, {4}), 1, true)
  end)

  it("a dim given again is transformed again, as NumPy's fftn (it was refused: 'dim 2 is given twice')", function()
    local v = gpu.array({1, 2, 3}, "float64")
    -- NumPy: array([3.+0.j, 9.+0.j, 6.+0.j]); ifftn(s=(4, 2), axes=(0, 0)): [0.25, 0.375-0.125j, 0.5, 0.375+0.125j]
    close({3, 9, 6}, gpu.fft.fftn(v, nil, {1, 1}):totable(), 1e-12)
    close({0.25, C(0.375, -0.125), 0.5, C(0.375, 0.125)}, gpu.fft.ifftn(v, {4, 2}, {1, 1}):totable(), 1e-12)
    -- rfftn([1, 2, 3, 4], axes=(0, 0)): [6+2j, 14+2j, 10-2j, 10-2j] (rfft, then fft padded to 4);
    -- irfftn([1, 2, 3], axes=(0, 0)): [0.125, 0.76933757, 0.625, 0.48066243]
    close({C(6, 2), C(14, 2), C(10, -2), C(10, -2)}, gpu.fft.rfftn(gpu.array({1, 2, 3, 4}, "float64"), nil, {1, 1}):totable(), 1e-12)
    close({0.125, 0.76933757, 0.625, 0.48066243}, gpu.fft.irfftn(v, nil, {1, 1}):totable(), 1e-8)
    local m = gpu.array({{1, 2, 3, 4.5}, {0, -1, 2, 7}, {3, 3, -2, 1}}, "float64")
    local twice = gpu.fft.fft(gpu.fft.fft(m, nil, 1), nil, 1)
    assert.is_true(gpu.abs(gpu.fft.fft2(m, nil, {1, 1}) - twice):max() < 1e-12)
    assert.matches("gpu.fft.fftn: 9 dims (1 to 8, a dim given again counting again)",
                   S.errof(gpu.fft.fftn, v, nil, {1, 1, 1, 1, 1, 1, 1, 1, 1}), 1, true)
  end)
end)

describe("an FFTW that cannot be loaded #cpu", function()
  it("is an error naming it and the package, and the rest goes on working", function()
    local out = S.run("GPUHOST_FFTW=/nonexistent " .. S.gpuhost .. " --cpu -e " .. S.quote([[
      local ok, e = pcall(gpu.fft.fft, gpu.ones(4))
      print(ok, e.name, e.message)
      print(gpu.ones(3):sum())]]) .. " 2>&1")
    assert.matches("false\tGPUHOST_NO_LIBRARY\tFFTW %(/nonexistent/libfftw3f.so.3%) could not be loaded", out)
    assert.matches("install it %(the libfftw3%-single3 package%), or unset GPUHOST_FFTW", out)
    assert.matches("\n3.0\n", out)
  end)
end)
