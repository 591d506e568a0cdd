-- lua/functional.lua: apply_along_axis, apply_over_axes, piecewise, fromfunction, packbits,
-- unpackbits, rollaxis, msort, sort_complex, poly, mask_indices, array_equiv,
-- asarray_chkfinite, require, NumPy's deprecated aliases and the dtype helpers. Expected
-- values are NumPy 1.24's, computed once and written here (indices plus 1); on both backends.
local S = require("spec.support")

local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end

local function near(want, got, tol)
  assert.are.equal(#want, #got)
  for i = 1, #want do
    assert.is_true(math.abs(want[i] - got[i]) <= tol, ("at %d: want %.17g, got %.17g"):format(i, want[i], got[i]))
  end
end

describe("gpu.apply_along_axis", function()
  local a = gpu.arange(12, "float64"):reshape(3, 4)

  it("calls f with each 1-D slice; its results take the dimension's place", function()
    local r = gpu.apply_along_axis(function(v) return gpu.stack({v:sum(1), v:max(1)}) end, 1, a)
    assert.are.same({{12, 15, 18, 21}, {8, 9, 10, 11}}, r:totable())
    assert.are.same({12, 15, 18, 21}, gpu.apply_along_axis(function(v) return v:sum() end, 1, a):totable())
    local b = gpu.arange(24, "int64"):reshape(2, 3, 4)
    r = gpu.apply_along_axis(function(v) return gpu.flip(v):narrow(1, 1, 2) end, 2, b)
    assert.are.same({2, 2, 4}, r.shape)
    assert.are.equal("int64", r.dtype)
    assert.are.same({{{8, 9, 10, 11}, {4, 5, 6, 7}}, {{20, 21, 22, 23}, {16, 17, 18, 19}}}, r:totable())
    -- a 2-D result in place of one dimension, extra arguments passed on
    local outer = function(v, k) local o = v:reshape(3, 1) * v:reshape(1, 3); return o:narrow(1, 1, k):narrow(2, 1, k) end
    r = gpu.apply_along_axis(outer, -1, gpu.arange(6, "float64"):reshape(2, 3), 2)
    assert.are.same({{{0, 0}, {0, 1}}, {{9, 12}, {12, 16}}}, r:totable())
  end)

  it("refuses bad arguments", function()
    err("bad argument #1 to 'gpu.apply_along_axis' (function expected, got number)", gpu.apply_along_axis, 1, 1, a)
    err("bad argument #3 to 'gpu.apply_along_axis' (device array expected, got table)", gpu.apply_along_axis, print, 1, {})
    err("dimension 3 is out of range for 2-D arrays", gpu.apply_along_axis, print, 3, a)
    err("another dimension is empty", gpu.apply_along_axis, print, 1, gpu.zeros({2, 0}))
    err("the function returned a {1} array, then a {2} one", gpu.apply_along_axis, function(v)
      return v:narrow(1, 1, v:item(1) == 0 and 1 or 2) end, 2, a)
    err("the function must return a device array, a number or a boolean, got string",
        gpu.apply_along_axis, function() return "x" end, 1, a)
  end)
end)

describe("gpu.apply_over_axes", function()
  it("applies f(a, dim) over each dim, keeping the dimension", function()
    local b = gpu.arange(24, "int64"):reshape(2, 3, 4)
    assert.are.same({{{60}, {92}, {124}}}, gpu.apply_over_axes(gpu.sum, b, {1, 3}):totable())
    assert.are.same({{{3}, {7}, {11}}, {{15}, {19}, {23}}}, gpu.apply_over_axes(gpu.max, b, -1):totable())
    assert.are.same({66}, gpu.apply_over_axes(gpu.sum, gpu.arange(12, "int64"), 1):totable())
  end)

  it("refuses a function that changes the dimensions otherwise", function()
    err("must return an array of 2 or 1 dimensions, got 3", gpu.apply_over_axes, function(x) return x:reshape(1, 1, 4) end,
        gpu.ones({2, 2}), 1)
    err("bad argument #2 to 'gpu.apply_over_axes' (device array expected, got number)", gpu.apply_over_axes, gpu.sum, 1, 1)
    -- a hole in dims: {1, nil, 3} summed over dim 1 alone (NumPy raises for the None)
    err("gpu.apply_over_axes: dims[2] is nil", gpu.apply_over_axes, gpu.sum, gpu.ones({2, 3, 4}), {1, nil, 3})
  end)
end)

describe("gpu.piecewise", function()
  local x = gpu.array({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5}, "float64")

  it("gives each condition's function or value, the last where none holds", function()
    local y = gpu.piecewise(x, {x:lt(0), x:ge(1)}, {function(v) return -v end, function(v) return v * v end, 7})
    assert.are.same({2.5, 1.5, 0.5, 7.0, 2.25, 6.25}, y:totable())
    local i = gpu.arange(5, "int64")
    assert.are.same({0, 0, 0, 9, 9}, gpu.piecewise(i, {i:gt(2)}, {9}):totable())
    assert.are.same({4, 4, 4, 9, 9}, gpu.piecewise(i, i:gt(2), {9, 4}):totable())
    assert.are.equal("int64", gpu.piecewise(i, i:gt(2), {9, 4}).dtype)
    -- a function's values of another dtype are cast to x's, as NumPy's y[cond] = f(x[cond])
    assert.are.same({0, 0, 0, 4, 6}, gpu.piecewise(i, {i:gt(2)}, {function(v) return v * 1.5 end}):totable())
  end)

  it("refuses mismatched lists", function()
    err("1 or 2 functions expected for 1 conditions, got 3", gpu.piecewise, x, {x:lt(0)}, {1, 2, 3})
    err("condition 1 has shape {2}, x {6}", gpu.piecewise, x, {gpu.empty(2, "bool")}, {1})
    err("entry 1 must be a function or a number, got string", gpu.piecewise, x, {x:lt(0)}, {"a"})
    -- keys besides the lists' were dropped, and so were the entries after a hole
    err('gpu.piecewise: condlist has a key "y" besides its 1 elements', gpu.piecewise, x, {x:lt(0), y = 1}, {1})
    err('gpu.piecewise: funclist has a key "x" besides its 1 elements', gpu.piecewise, x, {x:lt(0)}, {1, x = 2})
    err("condition 2 must be a bool array or a boolean, got nil", gpu.piecewise, x, {x:lt(0), nil, x:gt(3)}, {1, 2, 3})
    err("entry 2 must be a function or a number, got nil", gpu.piecewise, x, {x:lt(0), x:gt(3)}, {1, nil, 3})
  end)
end)

describe("gpu.fromfunction", function()
  it("calls f once with the 1-based index planes (float64 by default)", function()
    local calls = 0
    local r = gpu.fromfunction(function(i, j) calls = calls + 1; return i * 10 + j end, {2, 3})
    assert.are.equal(1, calls)
    assert.are.equal("float64", r.dtype)
    assert.are.same({{11, 12, 13}, {21, 22, 23}}, r:totable())
    assert.are.same({{true, false}, {false, true}}, gpu.fromfunction(function(i, j) return i:eq(j) end, {2, 2}, "int64"):totable())
    err("bad argument #1 to 'gpu.fromfunction' (function expected, got table)", gpu.fromfunction, {}, {2})
  end)
end)

describe("gpu.packbits and gpu.unpackbits", function()
  local bits = gpu.array({{{1, 0, 1, 1, 0, 0, 1, 0, 1}, {0, 0, 0, 0, 0, 0, 0, 1, 1}},
                          {{1, 1, 1, 1, 1, 1, 1, 1, 0}, {0, 1, 0, 1, 0, 1, 0, 1, 0}}}, "int64")

  it("pack 8 elements along a dimension into a uint8, big- or little-endian", function()
    local p = gpu.packbits(bits, 2)
    assert.are.equal("uint8", p.dtype)
    assert.are.same({{{128, 0, 128, 128, 0, 0, 128, 64, 192}}, {{128, 192, 128, 192, 128, 192, 128, 192, 0}}}, p:totable())
    assert.are.same({{{77, 1}, {128, 1}}, {{255, 0}, {170, 0}}}, gpu.packbits(bits, -1, "little"):totable())
    assert.are.same({160, 96}, gpu.packbits(gpu.array({{1, 0, 1}, {0, 1, 1}}, "int64"), -1):reshape(2):totable())
    assert.are.same({131, 1}, gpu.packbits(gpu.array({1, 1, 0, 0, 0, 0, 0, 1, 1}, "bool"), "little"):totable())
    assert.are.same({128}, gpu.packbits(gpu.full({}, 5, "int64")):totable())
    assert.are.same({0}, {gpu.packbits(gpu.zeros(0, "bool")).size})
  end)

  it("unpack uint8 into bits, count keeping or dropping some", function()
    local u = gpu.array({{200, 3}, {255, 16}}, "uint8")
    assert.are.same({{1, 0}, {1, 0}, {0, 0}, {0, 0}, {1, 0}, {0, 0}, {0, 1}, {0, 1}, {1, 0}, {1, 0}, {1, 0}, {1, 1},
                     {1, 0}, {1, 0}, {1, 0}, {1, 0}}, gpu.unpackbits(u, 1):totable())
    assert.are.same({{0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}},
                    gpu.unpackbits(u, 2, 11, "little"):totable())
    local two = gpu.array({2, 7}, "uint8")
    assert.are.same({0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, gpu.unpackbits(two, nil, -3):totable())
    assert.are.same({0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
                    gpu.unpackbits(two, nil, 20, "little"):totable())
    assert.are.equal(0, gpu.unpackbits(two, nil, 0).size)
    -- np.unpackbits(np.array([2, 7], np.uint8), count=-16): shape (0,); count=-17 raises
    -- "-count larger than number of elements"; along axis 1 of a (2, 2): shape (2, 0)
    assert.are.same({0}, gpu.unpackbits(two, nil, -16).shape)
    assert.are.same({2, 0}, gpu.unpackbits(u, 2, -16).shape)
    assert.are.same({0}, gpu.unpackbits(gpu.empty(0, "uint8"), nil, 0).shape)
  end)

  it("refuse other dtypes and bit orders", function()
    err("bad argument #1 to 'gpu.packbits' (integer or bool array expected, got float32)", gpu.packbits, gpu.ones(3))
    err("bad argument #3 to 'gpu.packbits' (bitorder must be 'big' or 'little', got 'middle')",
        gpu.packbits, gpu.empty(3, "uint8"), 1, "middle")
    err("bad argument #1 to 'gpu.unpackbits' (uint8 array expected, got int32)", gpu.unpackbits, gpu.empty(3, "int32"))
    err("bad argument #3 to 'gpu.unpackbits' (count must be an integer, got 1.5)", gpu.unpackbits, gpu.empty(3, "uint8"), 1, 1.5)
    err("bad argument #3 to 'gpu.unpackbits' (count must not drop more than the 16 bits there, got -17)",
        gpu.unpackbits, gpu.array({2, 7}, "uint8"), nil, -17)
    err("bad argument #3 to 'gpu.unpackbits' (count must not drop more than the 16 bits there, got -100)",
        gpu.unpackbits, gpu.array({{200, 3}, {255, 16}}, "uint8"), 2, -100)
    err("bad argument #3 to 'gpu.unpackbits' (count must not drop more than the 0 bits there, got -1)",
        gpu.unpackbits, gpu.empty(0, "uint8"), nil, -1)
  end)
end)

describe("gpu.rollaxis, gpu.msort, gpu.sort_complex", function()
  it("rollaxis moves a dimension before another", function()
    local a = gpu.ones({3, 4, 5, 6})
    assert.are.same({3, 6, 4, 5}, gpu.rollaxis(a, 4, 2).shape)
    assert.are.same({5, 3, 4, 6}, gpu.rollaxis(a, 3).shape)
    assert.are.same({3, 5, 6, 4}, gpu.rollaxis(a, 2, 5).shape)
    assert.are.same({4, 5, 3, 6}, gpu.rollaxis(a, 1, -1).shape)
    err("start must be from -4 to 5, got 6", gpu.rollaxis, a, 1, 6)
  end)

  it("msort sorts along the first dimension", function()
    assert.are.same({{1, 1, 0}, {2, 2, 2}, {3, 5, 2}}, gpu.msort(gpu.array({{3, 1, 2}, {1, 5, 0}, {2, 2, 2}})):totable())
    local z = gpu.msort(gpu.array({{gpu.complex(1, 2), 5}, {gpu.complex(1, -1), 4}}, "complex128")):totable()
    assert.are.same({{1, -1}, {1, 2}, {4, 0}, {5, 0}}, {{z[1][1].re, z[1][1].im}, {z[2][1].re, z[2][1].im},
                                                      {z[1][2].re, z[1][2].im}, {z[2][2].re, z[2][2].im}})
  end)

  it("sort_complex orders by the real part, then the imaginary, in NumPy's dtypes", function()
    local z = gpu.array({gpu.complex(1, 2), gpu.complex(1, -1), gpu.complex(0, 5), gpu.complex(1, 0), gpu.complex(-1, -1)},
                        "complex128")
    local r = gpu.sort_complex(z):totable()
    local want = {{-1, -1}, {0, 5}, {1, -1}, {1, 0}, {1, 2}}
    for i, w in ipairs(want) do assert.are.same(w, {r[i].re, r[i].im}) end
    local f = gpu.sort_complex(gpu.array({3, 1}, "float32"))
    assert.are.equal("complex128", f.dtype)   -- NumPy's, where int8 to uint16 give complex64
    assert.are.same({1, 3}, {f:totable()[1].re, f:totable()[2].re})
    err("bad argument #1 to 'gpu.sort_complex' (array of at least 1 dimension expected, got a 0-D array)",
        gpu.sort_complex, gpu.ones({}))
  end)
end)

describe("gpu.poly", function()
  it("gives the coefficients of roots or of a matrix's characteristic polynomial", function()
    assert.are.same({1, -6, 11, -6}, gpu.poly({1, 2, 3}):totable())
    assert.are.equal("float32", gpu.poly(gpu.array({1, 2, 3}, "float32")).dtype)
    assert.are.equal("float64", gpu.poly(gpu.array({1, 2, 3}, "int64")).dtype)
    near({1.0, -5.0, -1.9999999999999998}, gpu.poly(gpu.array({{1, 2}, {3, 4}}, "float64")):totable(), 1e-14)
    near({1.0, -10.0, 31.0, -30.0}, gpu.poly(gpu.array({{2, 0, 0}, {0, 3, 0}, {0, 0, 5}}, "float64")):totable(), 1e-12)
    assert.are.equal(1.0, gpu.poly({}))
  end)

  it("makes coefficients of conjugate pairs real, as NumPy", function()
    local r = gpu.poly(gpu.array({gpu.complex(1, 1), gpu.complex(1, -1)}, "complex128"))
    assert.are.equal("float64", r.dtype)
    assert.are.same({1, -2, 2}, r:totable())
    local c = gpu.poly(gpu.array({gpu.complex(0, 1), 2}, "complex128")):totable()
    local want = {{1, 0}, {-2, -1}, {0, 2}}
    for i, w in ipairs(want) do assert.are.same(w, {c[i].re, c[i].im}) end
  end)

  it("refuses other shapes", function()
    err("bad argument #1 to 'gpu.poly' (1-D roots or a non-empty square matrix expected, got a {2, 3} array)",
        gpu.poly, gpu.ones({2, 3}))
  end)
end)

describe("gpu.mask_indices, gpu.array_equiv, gpu.asarray_chkfinite, gpu.require", function()
  it("mask_indices gives the 1-based places of a mask function's nonzeros", function()
    local i, j = gpu.mask_indices(4, gpu.triu, -1)
    assert.are.same({1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4}, i:totable())
    assert.are.same({1, 2, 3, 4, 1, 2, 3, 4, 2, 3, 4, 3, 4}, j:totable())
    i, j = gpu.mask_indices(3, gpu.tril)
    assert.are.same({1, 2, 2, 3, 3, 3}, i:totable())
    assert.are.same({1, 1, 2, 1, 2, 3}, j:totable())
    err("bad argument #1 to 'gpu.mask_indices' (n must be non-negative, got -1)", gpu.mask_indices, -1, gpu.triu)
  end)

  it("array_equiv: equal once broadcast", function()
    assert.is_false(gpu.array_equiv(gpu.array({1, 2}), gpu.array({{1, 2}, {1, 3}})))
    assert.is_true(gpu.array_equiv(gpu.array({{1}, {1}}), gpu.array({1, 1, 1})))
    assert.is_true(gpu.array_equiv(gpu.zeros({0, 3}), gpu.zeros(3)))
    assert.is_false(gpu.array_equiv(gpu.array({1, 2}), gpu.array({1, 2, 3})))
    -- a broadcast past 2^63 - 1 elements fails in NumPy's, which then says False; past 2^48
    -- and below that, the error names array_equiv (before: "shape {..} is too large (more
    -- than 2^48 elements)", naming nothing, for both)
    local one = gpu.array({1})
    assert.is_false(gpu.array_equiv(gpu.broadcast_to(one, {1 << 40}), gpu.broadcast_to(one, {1 << 40, 1})))
    assert.is_false(gpu.array_equiv(gpu.broadcast_to(one, {1 << 31}), gpu.broadcast_to(one, {1 << 32, 1})))
    assert.are.equal("gpu.array_equiv: the broadcast shape {33554432, 33554432} is too large: more elements than an array holds (2^48)",
                     S.errof(gpu.array_equiv, gpu.broadcast_to(one, {1 << 25}), gpu.broadcast_to(one, {1 << 25, 1})))
  end)

  it("asarray_chkfinite refuses NaN and infinities", function()
    assert.are.same({1, 2}, gpu.asarray_chkfinite({1, 2}):totable())
    err("gpu.asarray_chkfinite: array must not contain infs or NaNs", gpu.asarray_chkfinite, gpu.array({1, 0 / 0}))
    err("array must not contain infs or NaNs", gpu.asarray_chkfinite, gpu.array({1, math.huge}, "float64"))
  end)

  it("require copies where a flag asks for it", function()
    local a = gpu.arange(6, "float64"):reshape(2, 3)
    assert.are.equal(a, gpu.require(a, {"C", "W"}))
    assert.is_true(gpu.require(a.T, "C_CONTIGUOUS"):is_contiguous())
    assert.is_nil(gpu.require(a[{1}], "O").base)
    local row = gpu.ones(2):expand(3, 2)[{1}]
    local w = gpu.require(row, "writeable")
    assert.are_not.equal(row, w)
    w:fill(3)
    assert.are.same({3, 3}, w:totable())
    assert.are.equal("float32", gpu.require(a, "float32", {"A"}).dtype)
    err("gpuhost arrays are C-ordered", gpu.require, a, nil, "F")
    err("flag 'X' is not one of C, W, O, A, E", gpu.require, a, nil, {"X"})
  end)
end)

describe("NumPy's deprecated aliases", function()
  it("are cumprod, prod, all and any", function()
    assert.are.same({1, 2, 6, 24}, gpu.cumproduct(gpu.array({1, 2, 3, 4})):totable())
    assert.are.same({3, 8}, gpu.product(gpu.array({{1, 2}, {3, 4}}, "int64"), 1):totable())
    assert.is_false(gpu.alltrue(gpu.array({1, 0})))
    assert.is_true(gpu.sometrue(gpu.array({0, 0, 2})))
  end)
end)

describe("dtype helpers", function()
  local NAMES = {"float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
                 "complex64", "complex128"}
  -- numpy.can_cast(from, to, casting): a row of 0/1 a `from`, in NAMES' order
  local CAN = {
    no = "1000000000000 0100000000000 0010000000000 0001000000000 0000100000000 0000010000000 0000001000000 " ..
         "0000000100000 0000000010000 0000000001000 0000000000100 0000000000010 0000000000001",
    safe = "1100000000011 0100000000001 1111110000011 1101110000011 0100110000001 0100010000001 1101111111011 " ..
           "1100110111011 0100010011001 0100000001001 1111111111111 0000000000011 0000000000001",
    same_kind = "1100000000011 1100000000011 1111110000011 1111110000011 1111110000011 1111110000011 1111111111011 " ..
                "1111111111011 1111111111011 1111111111011 1111111111111 0000000000011 0000000000011",
  }
  CAN.equiv = CAN.no
  CAN.unsafe = ("1111111111111 "):rep(13)

  it("can_cast gives NumPy's table for each casting rule", function()
    for casting, rows in pairs(CAN) do
      local i = 0
      for row in rows:gmatch("%d+") do
        i = i + 1
        for j = 1, #NAMES do
          assert.are.equal(row:sub(j, j) == "1", gpu.can_cast(NAMES[i], NAMES[j], casting),
                           ("%s -> %s (%s)"):format(NAMES[i], NAMES[j], casting))
        end
      end
    end
    assert.is_false(gpu.can_cast(gpu.empty(2, "int64"), "float32"))
  end)

  it("can_cast of a Lua value goes by its value, as NumPy 1.24's", function()
    local cases = {{3, "int8", true}, {300, "uint8", false}, {-1, "uint8", false}, {1.5, "float32", true},
                   {1e39, "float32", false}, {3, "float32", true}, {true, "int8", true}, {-129, "int8", false},
                   {1 << 40, "int64", true}, {1 << 40, "float32", false}, {gpu.complex(1, 2), "complex64", true},
                   {gpu.complex(1, 2), "float64", false}}
    for _, c in ipairs(cases) do assert.are.equal(c[3], gpu.can_cast(c[1], c[2]), tostring(c[1]) .. " " .. c[2]) end
    err("bad argument #3 to 'gpu.can_cast' (casting must be 'no', 'equiv', 'safe', 'same_kind' or 'unsafe', got 'maybe')",
        gpu.can_cast, "int8", "int16", "maybe")
    err("bad argument #2 to 'gpu.can_cast' (dtype name or device array expected, got 'int128')", gpu.can_cast, "int8", "int128")
  end)

  it("promote_types, min_scalar_type, common_type, mintypecode", function()
    assert.are.equal("float64", gpu.promote_types("int64", "uint64"))
    assert.are.equal("int16", gpu.promote_types("int8", "uint8"))
    assert.are.equal("complex128", gpu.promote_types("complex64", "double"))
    assert.are.equal("float16", gpu.promote_types("float16", "int8"))
    assert.are.equal("float32", gpu.promote_types("float16", "uint16"))
    assert.are.equal("complex64", gpu.promote_types("float16", "complex64"))
    err("bad argument #1 to 'gpu.promote_types' (dtype name or device array expected, got 'bfloat16')",
        gpu.promote_types, "bfloat16", "int8")
    local ms = {{10, "uint8"}, {-10, "int8"}, {255, "uint8"}, {256, "uint16"}, {-128, "int8"}, {-129, "int16"},
                {1 << 40, "uint64"}, {1e5, "float32"}, {1e39, "float64"}, {true, "bool"}, {1.5, "float16"}}
    for _, c in ipairs(ms) do assert.are.equal(c[2], gpu.min_scalar_type(c[1]), tostring(c[1])) end
    assert.are.equal("uint8", gpu.min_scalar_type(gpu.full({}, 10, "int64")))
    assert.are.equal("int64", gpu.min_scalar_type(gpu.full({1}, 10, "int64")))
    assert.are.equal("complex64", gpu.min_scalar_type(gpu.complex(1, 2)))
    assert.are.equal("float64", gpu.common_type(gpu.empty(2, "int8")))
    assert.are.equal("float32", gpu.common_type(gpu.empty(2, "float32")))
    assert.are.equal("complex64", gpu.common_type(gpu.empty(2, "float32"), gpu.empty(2, "complex64")))
    assert.are.equal("complex128", gpu.common_type(gpu.empty(2, "float32"), gpu.empty(2, "int8"), gpu.empty(2, "complex64")))
    err("bad argument #1 to 'gpu.common_type' (numeric array expected, got a bool array)", gpu.common_type, gpu.empty(1, "bool"))
    assert.are.equal("d", gpu.mintypecode({"d", "f", "S"}))
    assert.are.equal("D", gpu.mintypecode("idF"))
    assert.are.equal("d", gpu.mintypecode("bi"))
    assert.are.equal("f", gpu.mintypecode({"float32"}))
    -- a key besides the list's, and the codes after a hole, were dropped ({"f", x = "D"} gave "f")
    err('gpu.mintypecode: the table of codes has a key "x" besides its 1 elements', gpu.mintypecode, {"f", x = "D"})
    err("type codes, dtype names or device arrays expected, got nil at 2", gpu.mintypecode, {"f", nil, "D"})
  end)

  it("issubdtype, isscalar, iterable, typename", function()
    local KINDS = {integer = "0011111111000", signedinteger = "0011110000000", unsignedinteger = "0000001111000",
                   floating = "1100000000000", complexfloating = "0000000000011", number = "1111111111011",
                   bool = "0000000000100", inexact = "1100000000011", generic = "1111111111111"}
    for kind, row in pairs(KINDS) do
      for j, t in ipairs(NAMES) do assert.are.equal(row:sub(j, j) == "1", gpu.issubdtype(t, kind), t .. " " .. kind) end
    end
    assert.is_true(gpu.issubdtype("double", "float64"))
    assert.is_false(gpu.issubdtype("float32", "float64"))
    err("bad argument #2 to 'gpu.issubdtype' (a kind", gpu.issubdtype, "int8", "real")
    assert.is_true(gpu.isscalar(3) and gpu.isscalar("s") and gpu.isscalar(false) and gpu.isscalar(gpu.complex(1)))
    assert.is_false(gpu.isscalar(gpu.ones({})) or gpu.isscalar({1}) or gpu.isscalar(nil))
    assert.is_true(gpu.iterable({}) and gpu.iterable(gpu.ones(2)) and gpu.iterable("ab"))
    assert.is_false(gpu.iterable(3) or gpu.iterable(gpu.ones({})))
    assert.are.equal("complex single precision", gpu.typename("F"))
    assert.are.equal("unsigned long integer", gpu.typename("L"))
    assert.are.equal("double precision", gpu.typename("float64"))
    err("bad argument #1 to 'gpu.typename' (a type code or dtype name expected, got 'k')", gpu.typename, "k")
  end)

  it("base_repr and binary_repr", function()
    assert.are.equal("0", gpu.base_repr(0))
    assert.are.equal("000", gpu.base_repr(0, 2, 3))
    assert.are.equal("-00FF", gpu.base_repr(-255, 16, 2))
    assert.are.equal("Z", gpu.base_repr(35, 36))
    assert.are.equal("-8000000000000000", gpu.base_repr(math.mininteger, 16))
    assert.are.equal("7FFFFFFFFFFFFFFF", gpu.base_repr(math.maxinteger, 16))
    err("bad argument #2 to 'gpu.base_repr' (base must be from 2 to 36, got 37)", gpu.base_repr, 5, 37)
    assert.are.equal("-11", gpu.binary_repr(-3))
    assert.are.equal("11101", gpu.binary_repr(-3, 5))
    assert.are.equal("000101", gpu.binary_repr(5, 6))
    assert.are.equal("0", gpu.binary_repr(0))
    assert.are.equal("1" .. ("0"):rep(63), gpu.binary_repr(math.mininteger, 64))
    assert.are.equal("-1" .. ("0"):rep(63), gpu.binary_repr(math.mininteger))
    assert.are.equal("-101", gpu.binary_repr(-5))
    -- too narrow a width: the bits n needs, as NumPy 1.24 gives them (with a warning)
    assert.are.equal("101", gpu.binary_repr(5, 2))
    assert.are.equal("1011", gpu.binary_repr(-5, 2))
    assert.are.equal("1011", gpu.binary_repr(-5, 3))
    assert.are.equal("1000", gpu.binary_repr(-8, 4))
    assert.are.equal("1", gpu.binary_repr(-1, 1))
    err("bad argument #1 to 'gpu.binary_repr' (number must be an integer, got 1.5)", gpu.binary_repr, 1.5)
  end)

  it("finfo and iinfo hold NumPy's numbers", function()
    local f = gpu.finfo("float32")
    assert.are.same({32, 2 ^ -23, 2 ^ -24, 3.4028234663852886e38, -3.4028234663852886e38, 2 ^ -126, 2 ^ -126, 2 ^ -149,
                     9.999999974752427e-07, 6, -23, 128, -126, 8, 23, "float32"},
                    {f.bits, f.eps, f.epsneg, f.max, f.min, f.tiny, f.smallest_normal, f.smallest_subnormal, f.resolution,
                     f.precision, f.machep, f.maxexp, f.minexp, f.nexp, f.nmant, f.dtype})
    local d = gpu.finfo("complex128")
    assert.are.same({64, 2.220446049250313e-16, 1.7976931348623157e308, 2.2250738585072014e-308, 5e-324, 1e-15, 15,
                     "float64"}, {d.bits, d.eps, d.max, d.tiny, d.smallest_subnormal, d.resolution, d.precision, d.dtype})
    assert.are.equal("float32", gpu.finfo(gpu.empty(1, "complex64")).dtype)
    err("bad argument #1 to 'gpu.finfo' (float or complex dtype expected, got int32)", gpu.finfo, "int32")
    assert.are.same({bits = 8, min = -128, max = 127, kind = "i", dtype = "int8"}, gpu.iinfo("int8"))
    assert.are.same({bits = 32, min = 0, max = 4294967295, kind = "u", dtype = "uint32"}, gpu.iinfo("uint32"))
    assert.are.equal(math.mininteger, gpu.iinfo("int64").min)
    assert.are.equal(math.maxinteger, gpu.iinfo("int64").max)
    assert.are.equal(2 ^ 64, gpu.iinfo("uint64").max)
    err("bad argument #1 to 'gpu.iinfo' (integer dtype expected, got bool)", gpu.iinfo, "bool")
  end)
end)

-- what an adversarial review found (lua/functional.lua, lua/numeric.lua)
describe("NumPy's general functions at their edges", function()
  it("refuse a piecewise result of the wrong size, keep poly's leading 1, and refuse freed arrays", function()
    local x = gpu.linspace(-2.5, 2.5, 6)
    err("gpu.piecewise: function 1 gave 2 values for the 3 where its condition is true",
        gpu.piecewise, x, {x:lt(0)}, {function() return gpu.arange(2) + 5 end})
    assert.are.same({5, 5, 5, 0, 0, 0}, gpu.piecewise(x, {x:lt(0)}, {function() return gpu.full({1}, 5) end}):totable())
    local p = gpu.poly({0 / 0, 1}):totable()   -- NumPy: [1, nan, nan]
    assert.are.equal(1, p[1])
    assert.is_true(p[2] ~= p[2] and p[3] ~= p[3])
    assert.are.same({1, -math.huge}, gpu.poly({math.huge}):totable())
    err("no size order for the codes e", gpu.mintypecode, "e", "e")   -- NumPy: ValueError
    local dead = gpu.zeros(3); dead:free()
    err("attempt to use a freed array", gpu.require, dead)
    err("attempt to use a freed array", gpu.asarray, dead)
  end)
end)
