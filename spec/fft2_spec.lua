-- numpy.fft's other functions: rfft2, irfft2, hfft, ihfft (host/fft.c) and fftfreq,
-- rfftfreq, fftshift, ifftshift (lua/fft.lua), against NumPy 1.24's values (computed with
-- numpy.fft and written here as literals: the specs need no NumPy), and their errors.
local S = require("spec.support")
local C = gpu.complex

-- a's values, flat, within tol of want (numbers, or {re, im} pairs for complex arrays)
local function close(want, a, tol)
  local got = a:ravel():totable()
  assert.are.equal(#want, #got)
  for i, w in ipairs(want) do
    local g = got[i]
    local wr, wi = type(w) == "table" and w[1] or w, type(w) == "table" and w[2] or 0
    local gr, gi = type(g) == "number" and g or g.re, type(g) == "number" and 0 or g.im
    assert(math.abs(wr - gr) <= tol and math.abs(wi - gi) <= tol,
           ("element %d: expected %s%+gi, got %s%+gi"):format(i, wr, wi, gr, gi))
  end
end

local function complex_array(pairs)
  local re, im = {}, {}
  for i, p in ipairs(pairs) do re[i], im[i] = p[1], p[2] end
  return gpu.array(re, "float64") + gpu.array(im, "float64") * gpu.full({}, C(0, 1), "complex128")
end

describe("gpu.fft.rfft2 and irfft2", function()
  local x = gpu.array({{1, 2, -3, 0.5}, {4, -1, 2, 2}, {0, 3, 1, -2}}, "float64")
  local X = gpu.fft.rfft2(x)

  it("are NumPy's rfft2 and irfft2 over the last two dims, with sizes and norms", function()
    assert.are.same({3, 3}, X.shape)
    assert.are.equal("complex128", X.dtype)
    close({{9.5, 0}, {5, -3.5}, {0.5, 0}, {-4, -4.3301270189221928}, {10.428203230275509, -3.098076211353316},
           {-7, -4.3301270189221928}, {-4, 4.3301270189221928}, {-3.4282032302755088, 2.098076211353316},
           {-7, 4.3301270189221928}}, X, 1e-12)
    local o = gpu.fft.rfft2(x, {2, 6}, nil, "ortho")
    assert.are.same({2, 4}, o.shape)
    close({{2.1650635094610968, 0}, {1.0103629710818454, 0}, {2.1650635094610968, -0.5}, {0.14433756729740632, 0},
           {-1.8763883748662837, 0}, {0.72168783648703205, 0.5}, {-1.0103629710818449, -2}, {-2.7424137786507221, 0}},
          o, 1e-12)
    local back = gpu.fft.irfft2(X, {3, 4})
    assert.are.same({3, 4}, back.shape)
    assert.are.equal("float64", back.dtype)
    close({1, 2, -3, 0.5, 4, -1, 2, 2, 0, 3, 1, -2}, back, 1e-12)
    close({12, 24, -36, 6, 48, -12, 24, 24, 0, 36, 12, -24}, gpu.fft.irfft2(X, nil, nil, "forward"), 1e-11)
    -- float32 gives complex64 and back float32; with dims {2, 1} the real dim is 1 (the last
    -- given), here the first dim of x: the transposed result
    assert.are.equal("complex64", gpu.fft.rfft2(x:astype("float32")).dtype)
    assert.are.equal("float32", gpu.fft.irfft2(gpu.fft.rfft2(x:astype("float32"))).dtype)
    close({9.5, 5, 0.5}, gpu.fft.rfft2(gpu.swapaxes(x, 1, 2):contiguous(), nil, {2, 1})[{{}, 1}]:real(), 1e-12)
  end)
end)

describe("gpu.fft.hfft and ihfft", function()
  local c = complex_array({{1.5, -0.5}, {-2, 1}, {0.25, 3}, {4, -2}})
  local r = gpu.array({0.5, -1.25, 2, 3.5, -0.75}, "float64")

  it("are NumPy's: irfft and rfft of the conjugate, the norm's direction swapped", function()
    local h = gpu.fft.hfft(c)
    assert.are.same({6}, h.shape)
    assert.are.equal("float64", h.dtype)
    close({2, 2.1782032302755088, 3.7858983848622456, 2, 10.714101615137753, -11.678203230275507}, h, 1e-12)
    close({-0.89442719099991586, 2.3649764340218407, 0.16091097637541379, 4.213353602249386, -2.4907118553970404},
          gpu.fft.hfft(c, 5, nil, "ortho"), 1e-12)
    close({1 / 3, 0.36303387171258478, 0.63098306414370753, 1 / 3, 1.7856836025229588, -1.9463672050459178},
          gpu.fft.hfft(c, {norm = "forward"}), 1e-12)
    local i = gpu.fft.ihfft(r)
    assert.are.equal("complex128", i.dtype)
    close({{0.8, 0}, {-0.91352549156242135, -0.27144122731725728}, {0.76352549156242122, 0.22653842965929877}}, i, 1e-12)
    close({{1.6329931618554523, 0}, {-1.7350552344714181, 0.5303300858899106}, {1.6329931618554523, -1.4142135623730954},
           {-0.20412414523193154, 0}}, gpu.fft.ihfft(r, 6, nil, "ortho"), 1e-12)
    close({{4, 0}, {-4.5676274578121063, -1.3572061365862864}, {3.8176274578121059, 1.1326921482964938}},
          gpu.fft.ihfft(r, nil, 1, "forward"), 1e-12)
  end)

  it("leave their input as it was, and hfft(ihfft(r), n) is r", function()
    gpu.fft.hfft(c)
    close({{1.5, -0.5}, {-2, 1}, {0.25, 3}, {4, -2}}, c, 0)
    close({0.5, -1.25, 2, 3.5, -0.75}, gpu.fft.hfft(gpu.fft.ihfft(r), 5), 1e-12)
  end)

  it("name themselves in errors", function()
    assert.matches("gpu.fft.ihfft takes a real array %(float32 or float64%), got complex128", S.errof(gpu.fft.ihfft, c))
    assert.matches("gpu.fft.hfft: invalid number of data points %(0%) along dim 1", S.errof(gpu.fft.hfft, c, 0))
    assert.matches("gpu.fft.hfft: norm must be", S.errof(gpu.fft.hfft, c, nil, nil, "both"))
    assert.matches("bad argument #1 to 'hfft' %(device array expected, got number%)", S.errof(gpu.fft.hfft, 3))
  end)
end)

describe("gpu.fft.fftfreq and rfftfreq", function()
  it("are NumPy's frequencies, float32 unless a dtype is given", function()
    local f = gpu.fft.fftfreq(7, 0.3, {dtype = "float64"})
    assert.are.equal("float64", f.dtype)
    assert.are.same({0, 0.47619047619047616, 0.95238095238095233, 1.4285714285714284, -1.4285714285714284,
                     -0.95238095238095233, -0.47619047619047616}, f:totable())
    assert.are.same({0, 0.37037037037037041, 0.74074074074074081, 1.1111111111111112, 1.4814814814814816},
                    gpu.fft.rfftfreq(9, 0.3, {dtype = "float64"}):totable())
    local g = gpu.fft.fftfreq(4)
    assert.are.equal("float32", g.dtype)
    assert.are.same({0, 0.25, -0.5, -0.25}, g:totable())
    assert.are.same({0, 0.25, 0.5}, gpu.fft.rfftfreq(4):totable())
    assert.are.same({0, 0.25, -0.5, -0.25}, gpu.fft.fftfreq(4, {dtype = "float64"}):totable())
    assert.are.equal("float64", gpu.fft.rfftfreq(4, {dtype = "float64"}).dtype)
    assert.are.same({0}, gpu.fft.fftfreq(1):totable())
    assert.are.same({0}, gpu.fft.rfftfreq(1):totable())
  end)

  it("refuse a size below 1 and a spacing of 0, at the caller's line", function()
    local e = S.errof(gpu.fft.fftfreq, 0)
    assert.matches("gpu.fft.fftfreq: n must be a positive integer, got 0", e)
    assert.matches("gpu.fft.rfftfreq: n must be a positive integer, got 2.5", S.errof(gpu.fft.rfftfreq, 2.5))
    assert.matches("gpu.fft.fftfreq: d %(the sample spacing%) must be a nonzero number, got 0", S.errof(gpu.fft.fftfreq, 4, 0))
    assert.matches("gpu.fft.fftfreq: an options table", S.errof(gpu.fft.fftfreq, 4, 1, "float64"))
    assert.matches("gpu.fft.fftfreq: d %(the sample spacing%) must be a nonzero number, got nan$", S.errof(gpu.fft.fftfreq, 4, 0 / 0))
    local ok, msg = pcall(function() gpu.fft.fftfreq(-1) end)
    assert.is_false(ok)
    assert.matches("fft2_spec%.lua:%d+: gpu%.fft%.fftfreq", msg)
    -- an argument past the options is refused (fftfreq(4, 1, {}, {dtype =}) dropped the dtype)
    assert.matches("gpu.fft.fftfreq takes 3 arguments, got a table as argument 4 (options go in argument 3)",
                   S.errof(gpu.fft.fftfreq, 4, 1, {}, {dtype = "float64"}), 1, true)
    assert.matches("gpu.fft.rfftfreq takes 3 arguments, got a number as argument 4 (not one it takes)",
                   S.errof(gpu.fft.rfftfreq, 4, 1, nil, 5), 1, true)
    assert.matches("gpu.fft.ifftshift takes 2 arguments, got a table as argument 3 (it takes no options)",
                   S.errof(gpu.fft.ifftshift, gpu.arange(4), 1, {}), 1, true)
  end)
end)

describe("gpu.fft.fftfreq and rfftfreq of a huge n", function()
  it("refuse more values than an array holds, naming the function (it was \"bad argument to 'arange'\")", function()
    local ok, msg = pcall(function() gpu.fft.fftfreq(2^60) end)
    assert.is_false(ok)
    assert.matches("fft2_spec%.lua:%d+: gpu%.fft%.fftfreq: the result would have 1152921504606846976 elements, " ..
                   "more than an array holds %(2%^48%)", msg)
    assert.matches("gpu.fft.rfftfreq: the result would have 281474976710657 elements", S.errof(gpu.fft.rfftfreq, 1 << 49), 1, true)
    assert.are.same({141}, gpu.fft.rfftfreq(280).shape)
  end)
end)

describe("gpu.fft.fftfreq and rfftfreq's dtype", function()
  it("refuse a dtype that is not a float one (int64 made [0, 0.25, -0.5, -0.25] zeros)", function()
    for _, dt in ipairs({"int64", "bool", "uint8", "complex64"}) do
      assert.matches("gpu.fft.fftfreq: option dtype must be float16, float32 or float64 (the frequencies are real), got " .. dt,
                     S.errof(gpu.fft.fftfreq, 4, 1, {dtype = dt}), 1, true)
    end
    assert.matches("gpu.fft.rfftfreq: option dtype must be float16, float32 or float64 (the frequencies are real), got int32",
                   S.errof(gpu.fft.rfftfreq, 4, {dtype = "int32"}), 1, true)
    assert.are.same({"float16", {0, 0.25, -0.5, -0.25}}, {gpu.fft.fftfreq(4, {dtype = "float16"}).dtype,
                                                           gpu.fft.fftfreq(4, {dtype = "float16"}):totable()})
  end)
end)

describe("gpu.fft.fftshift and ifftshift", function()
  local y = gpu.arange(24, "float64"):reshape({2, 3, 4})

  it("roll NumPy's way, over every dim or those given (1-based, negative from the end)", function()
    assert.are.same({22, 23, 20, 21, 14, 15, 12, 13, 18, 19, 16, 17, 10, 11, 8, 9, 2, 3, 0, 1, 6, 7, 4, 5},
                    gpu.fft.fftshift(y):ravel():totable())
    assert.are.same({18, 19, 16, 17, 22, 23, 20, 21, 14, 15, 12, 13, 6, 7, 4, 5, 10, 11, 8, 9, 2, 3, 0, 1},
                    gpu.fft.ifftshift(y):ravel():totable())
    assert.are.same({14, 15, 12, 13, 18, 19, 16, 17, 22, 23, 20, 21, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9},
                    gpu.fft.fftshift(y, {1, 3}):ravel():totable())
    assert.are.same({2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 18, 19, 16, 17, 22, 23, 20, 21},
                    gpu.fft.ifftshift(y, -1):ravel():totable())
    local odd = gpu.arange(5, "int32")
    assert.are.same({3, 4, 0, 1, 2}, gpu.fft.fftshift(odd):totable())
    assert.are.same({2, 3, 4, 0, 1}, gpu.fft.ifftshift(odd):totable())
    assert.are.same({0, 1, 2, 3, 4}, gpu.fft.ifftshift(gpu.fft.fftshift(odd)):totable())
    assert.are.equal("int32", gpu.fft.fftshift(odd).dtype)
  end)

  it("shift a dim given again again, as NumPy's (it was 'dim 1 appears twice')", function()
    -- NumPy: fftshift(arange(5), axes=(0, 0)) and ifftshift(..., axes=(0, 0, 0)): [1, 2, 3, 4, 0];
    -- fftshift(y, axes=(0, -3)) is y; ifftshift(y, axes=(2, 2, 1))
    local odd = gpu.arange(5, "int32")
    assert.are.same({1, 2, 3, 4, 0}, gpu.fft.fftshift(odd, {1, 1}):totable())
    assert.are.same({1, 2, 3, 4, 0}, gpu.fft.ifftshift(odd, {1, -1, 1}):totable())
    assert.are.same(y:ravel():totable(), gpu.fft.fftshift(y, {1, -3}):ravel():totable())
    assert.are.same({4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 16, 17, 18, 19, 20, 21, 22, 23, 12, 13, 14, 15},
                    gpu.fft.ifftshift(y, {3, 3, 2}):ravel():totable())
  end)

  it("refuse dims out of range, and what is not an array", function()
    assert.matches("gpu.fft.fftshift: dim 4 is out of range for 3%-D arrays", S.errof(gpu.fft.fftshift, y, 4))
    -- a string dim shown quoted ("1" was 'dim string is out of range'), 1.5 no integer
    assert.matches('gpu.fft.fftshift: dim must be an integer, got a string ("1")', S.errof(gpu.fft.fftshift, y, "1"), 1, true)
    assert.matches("gpu.fft.ifftshift: dim must be an integer, got 1.5", S.errof(gpu.fft.ifftshift, y, {1, 1.5}), 1, true)
    assert.matches('gpu.fft.fftfreq: n must be a positive integer, got a string ("4")', S.errof(gpu.fft.fftfreq, "4"), 1, true)
    assert.matches("gpu.fft.fftshift: x must be a device array, got table", S.errof(gpu.fft.fftshift, {1, 2}))
    -- a table of dims is a list: {axes = 1} (NumPy's name) was no dim, an unshifted copy
    assert.matches('gpu.fft.fftshift: dims must be a list, and the table has a key "axes" besides its 0 elements',
                   S.errof(gpu.fft.fftshift, y, {axes = 1}), 1, true)
    assert.matches('gpu.fft.ifftshift: dims must be a list, and the table has a key "x"',
                   S.errof(gpu.fft.ifftshift, y, {1, x = 2}), 1, true)
    assert.matches("gpu.fft.fftshift: dims[2] is nil", S.errof(gpu.fft.fftshift, y, {1, nil, 3}), 1, true)
  end)
end)

describe("gpu.fft.fftshift and ifftshift #multi", function()
  it("refuse an array of another device as the transforms do, and shift it on its device", function()
    -- (they failed naming a copy: 'copy: between devices (1 to 0) the arrays must be C-ordered')
    local b = gpu.with_device(1, function() return gpu.arange(4, "float64") end)
    for _, name in ipairs({"fftshift", "ifftshift"}) do
      assert.matches("gpu.fft." .. name .. ": an array on device 1, and device 0 is current: run it with " ..
                     "gpu.with_device(1, f), or copy it here with a:to(0)", S.errof(gpu.fft[name], b), 1, true)
    end
    local r = gpu.with_device(1, gpu.fft.fftshift, b)
    assert.are.same({1, {2, 3, 0, 1}}, {r.device, r:totable()})
  end)
end)
