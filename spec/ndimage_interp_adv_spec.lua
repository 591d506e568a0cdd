-- gpu.ndimage's interpolation on the inputs an adversarial pass tried: bool outputs (scipy's
-- C cast, not rounded), grid-constant's padding of integer and float32 inputs (cval in the
-- input's dtype, as np.pad puts it), results too large to make, non-finite angles, freed
-- arrays, an output sharing the coordinates' memory. Expected numbers from scipy 1.11.4
-- (the calls next to each test).
local S = require("spec.support")
local nd = gpu.ndimage
local close = S.close

local function err(pattern, f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  assert.matches(pattern, tostring(e), 1, true)
end

describe("gpu.ndimage's interpolation, adversarial inputs", function()
  it("stores into bool as scipy's C cast does (truncated: 0.7 is false, -1.2 true)", function()
    -- ndi.shift(np.array([0, 1, 0, 0, 1, 1], bool), 0.3, order=1)
    local b = gpu.array({0, 1, 0, 0, 1, 1}, "bool")
    assert.same({false, false, false, false, false, true}, nd.shift(b, 0.3, {order = 1}):totable())
    -- ndi.shift(np.array([0, 1, 0, 0, 1, 1.]) * 3 - 1.2, 0.3, order=1, output=bool)
    local f = gpu.array({0, 1, 0, 0, 1, 1}, "float64") * 3 - 1.2
    assert.same({false, false, false, true, false, true}, nd.shift(f, 0.3, {order = 1, output = "bool"}):totable())
    -- ndi.spline_filter1d(np.array([0.3, -1.5, 256.2, 2.7, -0.7, 1e10, 0.5, 0.2, 3]), order=2,
    -- output=bool): the prefilter's values (-4.2e6 .. 1.4e10) cast as C casts on x86
    local s = gpu.array({0.3, -1.5, 256.2, 2.7, -0.7, 1e10, 0.5, 0.2, 3}, "float64")
    assert.same({true, true, true, true, false, false, false, true, true},
                nd.spline_filter1d(s, {order = 2, output = "bool"}):totable())
  end)

  it("pads grid-constant's prefilter with cval in the input's dtype, as scipy's np.pad", function()
    -- ndi.shift(np.array([1, 5, 2, 8, 3]), 0.5, mode='grid-constant', cval=65.7, output=float)
    local i = gpu.array({1, 5, 2, 8, 3}, "int64")
    close({32.43224107466369, -2.8118754625351903, 4.440260775477064, 6.300832360626933, 0.1064097820152039},
          nd.shift(i, 0.5, {mode = "grid-constant", cval = 65.7, output = "float64"}), 1e-12)
    -- the same of np.float32 input and cval=0.1
    close({0.015856471028089514, 3.5838836437337234, 3.161108954223281, 5.021680539373148, 6.502168888284126},
          nd.shift(i:astype("float32"), 0.5, {mode = "grid-constant", cval = 0.1, output = "float64"}), 1e-12)
  end)

  it("copies orders 0 and 1, and pads grid-constant, with numpy's casts (wrapped, not saturated)", function()
    -- ndi.spline_filter1d(np.array([-17.6, 3.2, 300.7, -1.5, 70000.9, 5]), order=1, output=dt)
    local x = gpu.array({-17.6, 3.2, 300.7, -1.5, 70000.9, 5}, "float64")
    assert.same({4294967279, 3, 300, 4294967295, 70000, 5}, nd.spline_filter1d(x, {order = 1, output = "uint32"}):totable())
    assert.same({239, 3, 44, 255, 112, 5}, nd.spline_filter1d(x:astype("float32"), {order = 0, output = "uint8"}):totable())
    assert.same({-17, 3, 300, -1, 4464, 5}, nd.spline_filter1d(x, {order = 1, output = "int16"}):totable())
    -- ndi.spline_filter(np.array(-3.7), output=np.uint8)
    assert.equal(253, nd.spline_filter(gpu.zeros({}, "float64") - 3.7, {output = "uint8"}):item())
    -- ndi.shift(np.array([3, 9, 1, 7, 2], np.uint16), 0.4, mode='grid-constant', cval=-28.4,
    -- output=np.float64): np.pad puts -28.4 as 65508
    close({25016.862121269245, -5445.725620651595, 995.32036133715, 1491.772175302996, -6936.289062549133},
          nd.shift(gpu.array({3, 9, 1, 7, 2}, "uint16"), 0.4, {mode = "grid-constant", cval = -28.4, output = "float64"}), 1e-12)
    -- the same of np.int8 input, cval=200.5 (padded as -56)
    close({-20.464200011146527, 12.691844445646613, 2.880822228560069, 3.112866640113121, 10.787711210987442},
          nd.shift(gpu.array({3, 9, 1, 7, 2}, "int8"), 0.4, {mode = "grid-constant", cval = 200.5, output = "float64"}), 1e-12)
  end)

  -- before: a float past the type's range went through an int64 and was wrapped to the
  -- width (3e9 into int32 was -1294967296, 4e9 + 7 into int8 7), where scipy's C casts and
  -- NumPy's cast take an int32 on x86-64 (INT_MIN, then its low bits)
  it("casts spline_filter's outputs and the copies of orders 0 and 1 as x86-64 does (through an int32)", function()
    -- scipy 1.17.1, x = [3e9, -3e9, 4e9 + 7, nan, 5e9, 300.7]: ndi.spline_filter1d(x, order=1, output=dt)
    local x = gpu.array({3e9, -3e9, 4e9 + 7, 0 / 0, 5e9, 300.7}, "float64")
    local want = {int8 = {0, 0, 0, 0, 0, 44}, uint8 = {0, 0, 0, 0, 0, 44}, int16 = {0, 0, 0, 0, 0, 300},
                  int32 = {-2147483648, -2147483648, -2147483648, -2147483648, -2147483648, 300},
                  int64 = {3000000000, -3000000000, 4000000007, math.mininteger, 5000000000, 300}}
    for dt, w in pairs(want) do assert.same(w, nd.spline_filter1d(x, {order = 1, output = dt}):totable(), dt) end
    -- y = [3e9, 1e9, 0, 0, 1e4, 7.7]: ndi.spline_filter1d(y, order=3, output=dt), the
    -- prefilter's values 4267942775.08, 464114449.83, -124400574.42, ...
    local y = gpu.array({3e9, 1e9, 0, 0, 1e4, 7.7}, "float64")
    assert.same({0, 17, 66, -25, 32, -4}, nd.spline_filter1d(y, {output = "int8"}):totable())
    assert.same({0, -11503, -13246, -1049, 17440, -8708}, nd.spline_filter1d(y, {output = "int16"}):totable())
    assert.same({-2147483648, 464114449, -124400574, 33487847, -9550816, 4775420},
                nd.spline_filter1d(y, {output = "int32"}):totable())
    -- ndi.spline_filter(np.array(3e9), output=np.int32) -2147483648
    assert.equal(-2147483648, nd.spline_filter(gpu.full({}, 3e9, "float64"), {output = "int32"}):item())
  end)

  -- before: NaN was stored as 0 in every integer type, int64's 2^63 as its greatest and
  -- uint64's 2^64 and more as its greatest, where scipy's clamp and C cast give INT_MIN and
  -- INT64_MIN, INT64_MIN and 0
  it("stores NaN and values past int64's and uint64's range as scipy's interpolation does", function()
    -- scipy 1.17.1, x = [nan, 2.**63, 1e19, 2e19, 2.**64, -1e19, 3e9, -2.5, 2.5, inf]:
    -- ndi.map_coordinates(x, [np.arange(10.)], order=0, output=dt), the same by shift(x, 0, order=0)
    local x = gpu.array({0 / 0, 2 ^ 63, 1e19, 2e19, 2 ^ 64, -1e19, 3e9, -2.5, 2.5, math.huge}, "float64")
    local c = gpu.arange(10, "float64"):reshape(1, 10)
    local big, least = math.maxinteger, math.mininteger
    local want = {
      int8 = {0, 127, 127, 127, 127, -128, 127, -3, 3, 127},
      int16 = {0, 32767, 32767, 32767, 32767, -32768, 32767, -3, 3, 32767},
      int32 = {-2147483648, 2147483647, 2147483647, 2147483647, 2147483647, -2147483648, 2147483647, -3, 3, 2147483647},
      int64 = {least, least, big, big, big, least, 3000000000, -3, 3, big},
      uint8 = {0, 255, 255, 255, 255, 0, 255, 0, 3, 255},
      uint32 = {0, 4294967295, 4294967295, 4294967295, 4294967295, 0, 3000000000, 0, 3, 4294967295},
      -- (uint64 shown as int64 holds it: 2^63 as its least, 1e19 less 2^64)
      uint64 = {0, least, -8446744073709551616, 0, 0, 0, 3000000000, 0, 3, 0}}
    for dt, w in pairs(want) do
      assert.same(w, nd.map_coordinates(x, c, {order = 0, output = dt}):totable(), dt)
      assert.same(w, nd.shift(x, 0, {order = 0, output = dt}):totable(), dt)
    end
  end)

  -- before: a zoom of 1 resampled (the spline through the input, at its own points), so
  -- float64 values came back off in the last bits and integer outputs rounded or clamped
  it("zooms by 1 along every dim with the prefilter as scipy 1.17's copy (NumPy's cast)", function()
    -- scipy 1.17.1, x = [0.3, 2.7, -1.5, 300.7, 7.25, 1e-3, 5.5]: ndi.zoom(x, 1) == x,
    -- ndi.zoom(x, 1, output=np.int16) [0 2 -1 300 7 0 5] (truncated),
    -- ndi.zoom(np.array([3000000000, -1, 256]), 1, order=1, output=np.uint8) [0 255 0] (wrapped)
    local t = {0.3, 2.7, -1.5, 300.7, 7.25, 1e-3, 5.5}
    local x = gpu.array(t, "float64")
    assert.same(t, nd.zoom(x, 1):totable())
    assert.same({t}, nd.zoom(x:reshape(1, 7), {1, 1}, {mode = "grid-wrap", grid_mode = true}):totable())
    assert.same({0, 2, -1, 300, 7, 0, 5}, nd.zoom(x, 1, {output = "int16"}):totable())
    assert.same({0, 255, 0}, nd.zoom(gpu.array({3000000000, -1, 256}, "int64"), 1, {order = 1, output = "uint8"}):totable())
    -- without the prefilter it resamples: ndi.zoom(x, 1, prefilter=False, order=1, output=np.int16)
    -- [0 3 -2 301 7 0 6] (rounded)
    assert.same({0, 3, -2, 301, 7, 0, 6}, nd.zoom(x, 1, {prefilter = false, order = 1, output = "int16"}):totable())
  end)

  it("refuses a result too large to make, a non-finite angle and freed arrays, naming the function", function()
    local a = gpu.arange(0, 12, 1, "float64"):reshape(3, 4)
    err("gpu.ndimage.zoom: the result of shape {3e+300, 4e+300} cannot be made (", nd.zoom, a, 1e300)
    err("gpu.ndimage.zoom: the result of shape {3000000000, 4000000000} cannot be made (", nd.zoom, a, 1e9)
    err("gpu.ndimage.affine_transform: the result of shape {4000000000000, 4} cannot be made (",
        nd.affine_transform, a, {1, 1}, {output_shape = {4000000000000, 4}})
    -- a string size shown quoted (it said 'got 3', as the number)
    err('gpu.ndimage.affine_transform: output_shape[1] must be a non-negative integer, got a string ("3")',
        nd.affine_transform, a, {1, 1}, {output_shape = {"3", 4}})
    err("gpu.ndimage.rotate: angle must be finite, got inf", nd.rotate, a, math.huge, {reshape = false})
    err("gpu.ndimage.rotate: angle must be finite, got ", nd.rotate, a, 0 / 0)
    local f = gpu.zeros({3, 4})
    f:free()
    err("gpu.ndimage.shift: input is a freed array", nd.shift, f, 1)
    err("gpu.ndimage.map_coordinates: coordinates is a freed array", nd.map_coordinates, a, f)
    err("gpu.ndimage.zoom: output is a freed array", nd.zoom, a, 1, {output = f})
    err("gpu.ndimage.affine_transform: matrix is a freed array", nd.affine_transform, a, f)
    err("gpu.ndimage.fourier_ellipsoid: input is a freed array", nd.fourier_ellipsoid, f, 1)
    err("gpu.ndimage.fourier_shift: input is a freed array", nd.fourier_shift, f, 1)
    err("gpu.ndimage.spline_filter: input is a freed array", nd.spline_filter, f)
  end)

  it("writes an output sharing the coordinates' memory after reading them", function()
    -- coordinates and output views of one array: the result goes through a new array
    local x = gpu.arange(0, 8, 1, "float64")
    local buf = gpu.array({0.5, 1, 1.5, 2, 6, 7, 9, 9}, "float64")
    nd.map_coordinates(x, buf:reshape(1, 8)[{{}, {1, 4}}], {output = buf[{{3, 6}}], order = 1})
    assert.same({0.5, 1, 0.5, 1, 1.5, 2, 9, 9}, buf:totable())
  end)

  it("handles 0-D, 1-element and 5-D inputs", function()
    err("gpu.ndimage.shift: input is 0-D: it needs at least one dim", nd.shift, gpu.zeros({}), 1)
    assert.equal(2, nd.spline_filter(gpu.zeros({}, "float64") + 2):item())
    -- ndi.zoom(np.array([5.]), 3, mode='mirror'), ndi.shift(np.array([5.]), 0.3, mode='grid-constant')
    close({4.999999999999999, 4.999999999999999, 4.999999999999999}, nd.zoom(gpu.array({5}, "float64"), 3, {mode = "mirror"}), 1e-15)
    close({4.173211986847346}, nd.shift(gpu.array({5}, "float64"), 0.3, {mode = "grid-constant"}), 1e-13)
    -- ndi.shift(np.arange(72.).reshape(2, 3, 2, 3, 2), 0.5, order=1).sum() == 142.0
    local v = gpu.arange(0, 72, 1, "float64"):reshape(2, 3, 2, 3, 2)
    assert.near(142, nd.shift(v, 0.5, {order = 1}):sum(), 1e-9)
  end)

  -- before: each named a kernel's argument ("kernel 'ndi_pad<double>' argument 1 (in) is on
  -- device 1"), whose advice to copy an output would have lost the result
  it("#multi names the function and the argument on another device", function()
    local b = gpu.with_device(1, function() return gpu.arange(0, 6, 1, "float64") end)
    local a = gpu.arange(0, 6, 1, "float64")
    err("gpu.ndimage.zoom: input on device 1, and device 0 is current: run it with gpu.with_device(1, f), or copy it here with a:to(0)",
        nd.zoom, b, 2)
    local e = select(2, pcall(nd.shift, a, 1, {order = 1, output = gpu.with_device(1, gpu.zeros, {6}, "float64")}))
    assert.equal("gpu.ndimage.shift: output on device 1, and device 0 is current: run it with gpu.with_device(1, f)",
                 tostring(e):match("gpu%.ndimage.*"))
    err("gpu.ndimage.map_coordinates: coordinates on device 1", nd.map_coordinates, a, b:reshape(1, 6))
    err("gpu.ndimage.fourier_shift: input on device 1", nd.fourier_shift, b, 1)
    err("gpu.ndimage.spline_filter1d: input on device 1", nd.spline_filter1d, b)
  end)

  -- before: shift, zoom, affine_transform, rotate and map_coordinates wrote through a
  -- read-only view into the array under it (x became [0, 0, 1, 2]); the others refused
  -- naming a[key] = v
  it("refuse an output that cannot be written (an expanded view), naming the function", function()
    local x = gpu.zeros({4}, "float64")
    local ro = gpu.broadcast_to(x, {4})
    local src = gpu.arange(0, 4, 1, "float64")
    local why = "output is an expanded view (a stride of 0) or a view of one (gpu.broadcast_to's are), which cannot be written"
    err("gpu.ndimage.shift: " .. why, nd.shift, src, 1, {order = 1, output = ro})
    err("gpu.ndimage.zoom: " .. why, nd.zoom, gpu.array({7, 8}, "float64"), 2, {order = 0, output = ro})
    err("gpu.ndimage.affine_transform: " .. why, nd.affine_transform, src, {1}, {output = ro})
    err("gpu.ndimage.spline_filter: " .. why, nd.spline_filter, src, {output = ro})
    err("gpu.ndimage.fourier_gaussian: " .. why, nd.fourier_gaussian, src, 1, {output = ro})
    local y = gpu.zeros({1}, "float64")
    err("gpu.ndimage.map_coordinates: " .. why, nd.map_coordinates, gpu.array({5, 6}, "float64"), {{1}},
        {order = 1, output = y:expand({4})[{{2, 2}}]})
    local x2 = gpu.zeros({2, 2}, "float64")
    err("gpu.ndimage.rotate: " .. why, nd.rotate, gpu.ones({2, 2}, "float64"), 90, {output = gpu.broadcast_to(x2, {2, 2})})
    assert.same({0, 0, 0, 0}, x:totable())
    assert.same({0}, y:totable())
    assert.same({{0, 0}, {0, 0}}, x2:totable())
  end)

  it("#multi keeps its tables on the input's device: a launch refused there spoils no later call", function()
    local b = gpu.with_device(1, function() return gpu.arange(0, 12, 1, "float64"):reshape(3, 4) end)
    err("gpu.ndimage.shift: input on device 1, and device 0 is current", nd.shift, b, 1)   -- device 1's tables, made while 0 was current
    err("on device 1, and device 0 is current", gpu.ndimage.uniform_filter, b, 3)
    local a = b:to(0)
    local want = {nd.shift(a, 1), nd.map_coordinates(a, {{1.5}, {2}}), gpu.ndimage.uniform_filter(a, 3)}
    gpu.with_device(1, function()
      local got = {nd.shift(b, 1), nd.map_coordinates(b, {{1.5}, {2}}), gpu.ndimage.uniform_filter(b, 3)}
      for i = 1, 3 do assert.same(want[i]:totable(), got[i]:totable()) end
    end)
  end)
end)
