-- gpu.linspace, eye, identity, concatenate, stack, flip, isclose, allclose (lua/compose.lua):
-- NumPy's results, NumPy's errors where it has them. On both backends.
local S = require("spec.support")

describe("gpu.linspace", function()
  it("gives NumPy's numbers: start + i * step in float64, the last one stop", function()
    for _, c in ipairs({{0, 1, 7, true}, {-3.3, 17.1, 50, true}, {1e10, -2.5e-3, 33, false}, {0.1, 0.7, 3, false}}) do
      local start, stop, num, endpoint = c[1], c[2], c[3], c[4]
      local step = (stop - start) / (endpoint and num - 1 or num)
      local got = gpu.linspace(start, stop, num, {endpoint = endpoint, dtype = "float64"}):totable()
      assert.are.equal(num, #got)
      for i = 1, num do
        local want = (endpoint and i == num) and stop or (i - 1) * step + start
        assert.are.equal(want, got[i])
      end
    end
    assert.are.same({0, 0.25, 0.5, 0.75, 1}, gpu.linspace(0, 1, 5):totable())
    assert.are.equal("float32", gpu.linspace(0, 1, 5).dtype)
    assert.are.same({0, 3, 6, 10}, gpu.linspace(0, 10, 4, {dtype = "int32"}):totable())
    -- integer dtypes floor, as NumPy's (-0.5 is -1, not 0; -6.67 is -7)
    local n = gpu.linspace(-10, 0, 4, {dtype = "int32"})
    assert.are.same({-10, -7, -4, 0}, n:totable())
    assert.are.equal("int32", n.dtype)
    assert.are.same({-1, -1, 0, 0}, gpu.linspace(-1, 1, 4, {endpoint = false, dtype = "int8"}):totable())
    -- NumPy's endpoint=0 is false; Lua's 0 is true, so it was taken as true: a boolean alone
    assert.matches("gpu.linspace: option endpoint must be a boolean, got number",
                   select(2, pcall(gpu.linspace, 0, 1, 5, {endpoint = 0})), 1, true)
    assert.are.same({2}, gpu.linspace(2, 3, 1):totable())
    assert.are.same({5, 5, 5}, gpu.linspace(5, 5, 3):totable())
    assert.are.same({0}, gpu.linspace(0, 1, 0).shape)
    -- a start or stop of -0.0 kept its sign as NumPy's does (np.linspace(-0.0, -0.0, 3) is
    -- [0., 0., -0.]): it was made 0.0 when read (-0.0 + 0.0)
    local z = gpu.linspace(-0.0, -0.0, 3, {dtype = "float64"}):totable()
    assert.are.same({"0.0", "0.0", "-0.0"}, {tostring(z[1]), tostring(z[2]), tostring(z[3])})
  end)

  it("refuses what NumPy refuses, naming it", function()
    assert.matches("gpu.linspace: num must be a non-negative integer, got -1", S.errof(gpu.linspace, 0, 1, -1), 1, true)
    assert.matches("num must be a non-negative integer, got 2.5", S.errof(gpu.linspace, 0, 1, 2.5), 1, true)
    assert.matches("stop must be a finite number, got nan", S.errof(gpu.linspace, 0, 0 / 0, 2), 1, true)
    assert.matches("start must be a finite number, got inf", S.errof(gpu.linspace, math.huge, 0, 2), 1, true)
  end)
end)

describe("gpu.eye", function()
  it("puts ones on diagonal k of an n x m array", function()
    assert.are.same({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, gpu.eye(3):totable())
    assert.are.same({{0, 1, 0, 0}, {0, 0, 1, 0}}, gpu.eye(2, 4, 1):totable())
    assert.are.same({{0, 0}, {1, 0}, {0, 1}}, gpu.eye(3, 2, -1):totable())
    assert.are.same({{0, 0}, {0, 0}}, gpu.eye(2, 2, 5):totable())
    assert.are.same({{0, 0}, {0, 0}}, gpu.eye(2, 2, -2):totable())
    assert.are.same({0, 3}, gpu.eye(0, 3).shape)
    assert.are.equal("int32", gpu.eye(2, "int32").dtype)
    assert.are.equal("float64", gpu.eye(2, 3, "float64").dtype)
    assert.are.same({{1, 0}, {0, 1}}, gpu.identity(2, "uint8"):totable())
    assert.matches("gpu.eye: k must be an integer, got 0.5", S.errof(gpu.eye, 2, 2, 0.5), 1, true)
    assert.matches("gpu.eye: n must be a non-negative integer", S.errof(gpu.eye, -1), 1, true)
  end)
end)

describe("gpu.concatenate and gpu.stack", function()
  it("write into out and make dtype, as NumPy's; an unknown option is an error", function()
    -- (out and any other option were ignored: out stayed zeros)
    local a, o = gpu.arange(10, "float64"), gpu.zeros(10, "float64")
    assert.is_true(rawequal(o, gpu.concatenate({a[{{1, 5}}], a[{{6, 10}}]}, 1, {out = o})))
    assert.are.same(a:totable(), o:totable())
    local o2 = gpu.zeros({2, 3}, "float32")
    gpu.stack({gpu.ones(3), gpu.zeros(3)}, {out = o2})
    assert.are.same({{1, 1, 1}, {0, 0, 0}}, o2:totable())
    assert.are.equal("float32", gpu.concatenate({a, a}, {dtype = "float32"}).dtype)
    local b = gpu.arange(6, "float64")              -- out overlaps the inputs: read unchanged
    gpu.concatenate({b[{{4, 6}}], b[{{1, 3}}]}, 1, {out = b})
    assert.are.same({3, 4, 5, 0, 1, 2}, b:totable())
    assert.matches("gpu.concatenate: unknown option 'bogus' (it takes out, dtype)",
                   S.errof(gpu.concatenate, {a, a}, 1, {bogus = 1}), 1, true)
    assert.matches("gpu.stack: out has shape {3}, the result {2, 10}",
                   S.errof(gpu.stack, {a, a}, 1, {out = gpu.zeros(3)}), 1, true)
    -- NumPy's casting rule for joins, same_kind: float to int and complex to real are refused
    local f, i8 = gpu.array({1.5, -2.7, 300}), gpu.array({1, 2, 3}, "int8")
    assert.matches("gpu.concatenate: array 1 (float32) cannot be cast to int8 by NumPy's rule 'same_kind'",
                   S.errof(gpu.concatenate, {f, i8}, 1, {dtype = "int8"}), 1, true)
    assert.matches("gpu.concatenate: array 1 (float32) cannot be cast to int8",
                   S.errof(gpu.concatenate, {f, i8}, 1, {out = gpu.zeros(6, "int8")}), 1, true)
    assert.matches("gpu.stack: array 1 (complex64) cannot be cast to float32",
                   S.errof(gpu.stack, {gpu.array({gpu.complex(1, 5)}, "complex64"), f}, 1, {dtype = "float32"}), 1, true)
    assert.are.same({1, 2, 3, 1, 2, 3}, gpu.concatenate({i8, i8}, {dtype = "int16"}):totable())
    assert.matches("gpu.concatenate: option dtype: unknown dtype 'float'",
                   S.errof(gpu.concatenate, {i8, i8}, {dtype = "float"}), 1, true)
    assert.are.equal("float32", gpu.concatenate({i8, i8}, {out = gpu.zeros(6)}).dtype)
  end)

  local a = gpu.arange(6, "float32"):reshape(2, 3)

  it("join along a dimension, in the arrays' result type", function()
    local c = gpu.concatenate({a, gpu.arange(3, "int64"):reshape(1, 3)})
    assert.are.equal("float64", c.dtype)
    assert.are.same({{0, 1, 2}, {3, 4, 5}, {0, 1, 2}}, c:totable())
    assert.are.same({{0, 1, 2, 0, 1, 2}, {3, 4, 5, 3, 4, 5}}, gpu.concatenate({a, a}, 2):totable())
    assert.are.same({{0, 3, 0}, {1, 4, 1}, {2, 5, 2}},
                    gpu.concatenate({a.T, a[{1}]:unsqueeze(2)}, -1):totable())   -- views
    assert.are.same({2, 3}, gpu.concatenate({gpu.zeros({0, 3}), a}).shape)
    assert.are.same({{0, 1, 2}, {3, 4, 5}}, gpu.concatenate({a}):totable())
  end)

  it("#multi make the result on the arrays' device, and refuse arrays of two", function()
    local b = gpu.with_device(1, gpu.ones, {2, 2})
    local c = gpu.concatenate({b, b})
    assert.are.same({1, 0}, {c.device, gpu.device().id})
    assert.are.same({4, 2}, c.shape)
    assert.matches("array 2 is 2-D on device 1, array 1 2-D on device 0", S.errof(gpu.concatenate, {gpu.ones({2, 2}), b}), 1, true)
  end)

  it("stack along a new dimension", function()
    local s = gpu.stack({a, a + 10})
    assert.are.same({2, 2, 3}, s.shape)
    assert.are.same({{10, 11, 12}, {13, 14, 15}}, s[{2}]:totable())
    assert.are.same({{{0, 10}, {1, 11}, {2, 12}}, {{3, 13}, {4, 14}, {5, 15}}}, gpu.stack({a, a + 10}, -1):totable())
    assert.are.same({1, 2}, gpu.stack({gpu.full({}, 1), gpu.full({}, 2)}):totable())
  end)

  it("refuse arrays that do not fit, naming them", function()
    assert.matches("gpu.concatenate: no arrays to join", S.errof(gpu.concatenate, {}), 1, true)
    assert.matches("a table of arrays expected as argument 1, got an array", S.errof(gpu.concatenate, a), 1, true)
    assert.matches("element 2 of the table is a number", S.errof(gpu.concatenate, {a, 3}), 1, true)
    -- a key besides the list's (a misplaced dim = 2, an array after a hole) was dropped: {a, a, dim = 2} joined along 1
    assert.matches('gpu.concatenate: the table of arrays has a key "dim" besides its 2 elements (options go after it)',
                   S.errof(gpu.concatenate, {a, a, dim = 2}), 1, true)
    local holed = {a}
    holed[3] = a
    assert.matches("gpu.stack: the table of arrays has a key 3 besides its 1 elements", S.errof(gpu.stack, holed), 1, true)
    assert.matches("array 2 has size 2 in dimension 2, array 1 3 (only dimension 1 may differ)",
                   S.errof(gpu.concatenate, {a, gpu.zeros({2, 2})}), 1, true)
    assert.matches("array 2 is 1-D on device 0, array 1 2-D", S.errof(gpu.concatenate, {a, gpu.zeros(3)}), 1, true)
    assert.matches("dimension 3 is out of range for 2-D arrays", S.errof(gpu.concatenate, {a, a}, 3), 1, true)
    assert.matches("0-D arrays cannot be joined", S.errof(gpu.concatenate, {gpu.zeros({})}), 1, true)
    assert.matches("gpu.stack: array 2 has shape {3, 2}, array 1 {2, 3}", S.errof(gpu.stack, {a, a.T}), 1, true)
    assert.matches("dimension 4 is out of range for 3-D arrays", S.errof(gpu.stack, {a, a}, 4), 1, true)
    local f = gpu.zeros(2)
    f:free()
    assert.matches("freed", S.errof(gpu.concatenate, {a:flatten(), f}), 1, true)
  end)
end)

describe("gpu.flip", function()
  it("is a view with the dimensions reversed", function()
    local a = gpu.arange(6, "int32"):reshape(2, 3)
    assert.are.same({{5, 4, 3}, {2, 1, 0}}, gpu.flip(a):totable())
    assert.are.same({{2, 1, 0}, {5, 4, 3}}, a:flip(2):totable())
    assert.are.same({{3, 4, 5}, {0, 1, 2}}, gpu.flip(a, {-2}):totable())
    local v = gpu.flip(a, 1)
    v[{1, 1}] = 42
    assert.are.equal(42, a:item(2, 1))   -- shares a's memory
    assert.are.same({0, 2}, gpu.flip(gpu.zeros({0, 2})).shape)
    assert.are.equal(3, gpu.flip(gpu.full({}, 3)):item())
    assert.matches("gpu.flip: dimension 1 appears twice", S.errof(gpu.flip, a, {1, -2}), 1, true)
    assert.matches("dimension 3 is out of range for 2-D arrays", S.errof(gpu.flip, a, 3), 1, true)
    assert.matches("gpu.flip: a device array expected, got number", S.errof(gpu.flip, 3), 1, true)
    -- a hole in dims: {nil, 2} flipped nothing, {1, nil, 2} dim 1 alone; a stray key was dropped
    assert.matches("gpu.flip: dims[1] is nil", S.errof(gpu.flip, a, {nil, 2}), 1, true)
    assert.matches("gpu.flip: dims[2] is nil", S.errof(gpu.flip, a, {1, nil, 2}), 1, true)
    assert.matches('gpu.flip: dims must be a list, and the table has a key "x" besides its 1 elements',
                   S.errof(gpu.flip, a, {1, x = 2}), 1, true)
  end)
end)

describe("gpu.isclose and gpu.allclose", function()
  it("compare as NumPy does: tolerances, infinities, NaN", function()
    local x = gpu.array({1, 1 / 0, 0 / 0, 1e-9, 1, -1 / 0}, "float64")
    local y = gpu.array({1 + 1e-6, 1 / 0, 0 / 0, 0, 1.1, 1 / 0}, "float64")
    assert.are.same({true, true, false, true, false, false}, gpu.isclose(x, y):totable())
    assert.are.same({true, true, true, true, false, false}, gpu.isclose(x, y, {equal_nan = true}):totable())
    assert.are.same({true, true, false, true, true, false}, gpu.isclose(x, y, {rtol = 0.1}):totable())
    assert.are.same({false, true, false, false, false, false}, gpu.isclose(x, y, {rtol = 0, atol = 0}):totable())
    assert.are.same({false, true, false}, gpu.isclose(gpu.arange(3, "int32"), 1):totable())   -- broadcast
    assert.is_false(gpu.allclose(x, x))
    assert.is_true(gpu.allclose(x, x, {equal_nan = true}))
    assert.is_true(gpu.allclose(gpu.ones(4), 1 + 1e-7))
    assert.matches("gpu.isclose: arrays or numbers expected, got string", S.errof(gpu.isclose, x, "y"), 1, true)
    -- b left out named gpu.result_type (ipairs stopped at the nil)
    assert.are.equal("gpu.allclose: arrays or numbers expected, got nil", S.errof(gpu.allclose, x))
    assert.matches("rtol and atol must be numbers", S.errof(gpu.isclose, x, y, {atol = "0"}), 1, true)
    -- NumPy 2's rule: a == b, or within the tolerances with b finite; equal finite values were
    -- "not close" under rtol = inf (0 * inf is NaN) or atol < 0, and a finite b beside an
    -- infinite a never close (np.isclose(inf, 1e308, atol=inf) is True)
    local z = gpu.array({0, 1}, "float64")
    assert.are.same({true, true}, gpu.isclose(z, z, {rtol = math.huge}):totable())
    assert.are.same({true, true}, gpu.isclose(z, z, {atol = -1}):totable())
    assert.is_true(gpu.allclose(z, z, {rtol = math.huge}))
    local big, inf = gpu.array({1 / 0, 1e308}, "float64"), gpu.array({1e308, 1 / 0}, "float64")
    assert.are.same({true, false}, gpu.isclose(big, inf, {atol = math.huge}):totable())
  end)
end)

describe("gpu.take and gpu.extract", function()
  local a = gpu.arange(12, "float32"):reshape(3, 4)

  it("refuse a uint64 index at or above 2^63 (int64 would read it as an index from the end)", function()
    local big = gpu.array({2, 0}, "uint64") - 1   -- {1, 2^64 - 1}
    local v = gpu.array({10, 20, 30})
    assert.matches("gpu.take: index 18446744073709551615 is out of range for dimension 1 of size 3",
                   S.errof(gpu.take, v, big), 1, true)
    assert.matches("index 18446744073709551615 is out of range", S.errof(function() return v[big] end), 1, true)
    assert.matches("gpu.put: ind holds 18446744073709551615, out of range (uint64 values must be below 2^63)",
                   S.errof(gpu.put, v, big, 5), 1, true)
    assert.matches("gpu.unravel_index: indices holds 18446744073709551615", S.errof(gpu.unravel_index, big, {3}), 1, true)
    assert.matches("gpu.sparse.index: row index 18446744073709551615 out of range for a matrix of 3 rows",
                   S.errof(function() return gpu.sparse.csr_matrix(gpu.eye(3))[{big}] end), 1, true)
    assert.matches("gpu.sparse.index: column index 9223372036854775808 out of range for a matrix of 3 columns",
                   S.errof(function() return gpu.sparse.csr_matrix(gpu.eye(3))[{1, gpu.array({2, 1}, "uint64") << 62}] end), 1, true)
    assert.are.same({20, 10}, v[gpu.array({2, 1}, "uint64")]:totable())   -- below 2^63: as before
    assert.are.same({30, 10}, gpu.take(v, gpu.array({3, 1}, "uint64")):totable())
    assert.are.same({10, 20, 30}, v:totable())   -- (put refused before writing)
  end)

  it("take elements at 1-based indices along a dimension, or of the flattened array", function()
    assert.are.same({0, 11, 4}, gpu.take(a, {1, -1, 5}):totable())
    assert.are.same({{8, 9, 10, 11}, {0, 1, 2, 3}}, gpu.take(a, {3, 1}, 1):totable())
    assert.are.same({{{1, 1}, {0, 3}}, {{5, 5}, {4, 7}}, {{9, 9}, {8, 11}}},
                    a:take(gpu.array({{2, 2}, {1, 4}}, "int32"), 2):totable())
    assert.are.same({1, 5, 9}, gpu.take(a, 2, 2):totable())
    assert.are.same({6}, gpu.take(a.T, {8}):totable())   -- a view, flattened in C order
    assert.are.same({3, 0}, gpu.take(a, {}, 2).shape)
    for _, dt in ipairs({"int8", "uint16", "float64", "complex128", "bool"}) do
      local x = gpu.arange(5, "int64"):astype(dt)
      assert.are.same(gpu.arange(5, "int64"):astype(dt):totable()[5], gpu.take(x, {-1}):totable()[1])
    end
  end)

  it("refuse indices out of range, naming the first it met", function()
    assert.matches("gpu.take: index 13 is out of range for dimension 1 of size 12 (1-based; -12 to -1 from the end)",
                   S.errof(gpu.take, a, {13}), 1, true)
    assert.matches("index 0 is out of range", S.errof(gpu.take, a, {2, 0}), 1, true)
    assert.matches("index -4 is out of range for dimension 1 of size 3", S.errof(gpu.take, a, {-4}, 1), 1, true)
    assert.matches("index 1 is out of range for dimension 1 of size 0", S.errof(gpu.take, gpu.zeros({0, 3}), {1}, 1), 1, true)
    assert.matches("the indices must be an integer array, a table or a number, got float32 array",
                   S.errof(gpu.take, a, gpu.array({1.5})), 1, true)
    assert.matches("a 0-D array has no dimension", S.errof(gpu.take, gpu.zeros({}), {1}, 1), 1, true)
    -- a hole said gpu.array's words alone ("element [2] (nil) expected a number for int64")
    assert.matches("gpu.take: indices[2] is nil", S.errof(gpu.take, a, {1, nil, 3}), 1, true)
    assert.matches("dimension 3 is out of range for 2-D arrays", S.errof(gpu.take, a, {1}, 3), 1, true)
    -- an empty result checks them too (NumPy: index 98 is out of bounds for axis 0 with size 2)
    local e = gpu.zeros({2, 0})
    assert.matches("gpu.take: index 99 is out of range for dimension 1 of size 2 (1-based; -2 to -1 from the end)",
                   S.errof(gpu.take, e, {99}, 1), 1, true)
    assert.matches("gpu.take: index -99 is out of range for dimension 1 of size 2",
                   S.errof(function() return e[gpu.array({-99, 0}, "int64")] end), 1, true)
    assert.matches("index 0 is out of range", S.errof(function() return e[gpu.array({1, 0}, "int64")] end), 1, true)
    assert.are.same({2, 0}, e[gpu.array({-1, 2}, "int64")].shape)
    -- the function and the argument, not gpu.full's or "out of range"
    assert.matches("gpu.take: indices must be an integer, got 1.5", S.errof(gpu.take, gpu.arange(3), 1.5), 1, true)
    assert.matches("gpu.take: dim must be an integer, got 1.5", S.errof(gpu.take, gpu.arange(3), {1}, 1.5), 1, true)
    assert.matches('gpu.take: dim must be an integer, got a string ("1")', S.errof(gpu.take, gpu.arange(3), {1}, "1"), 1, true)
    assert.matches('gpu.triu: k must be an integer, got a string ("1")', S.errof(gpu.triu, gpu.ones({2, 2}), "1"), 1, true)
  end)

  it("extract the elements, or the subarrays, where a mask is true", function()
    assert.are.same({6, 7, 8, 9, 10, 11}, gpu.extract(a:gt(5), a):totable())
    assert.are.same({{0, 1, 2, 3}, {8, 9, 10, 11}}, gpu.extract(gpu.array({true, false, true}, "bool"), a):totable())
    assert.are.same({{4, 5, 6, 7}}, gpu.extract(gpu.array({0, 3, 0}, "int32"), a):totable())
    assert.are.same({0}, gpu.extract(a:gt(100), a).shape)
    assert.are.same({0, 2}, gpu.extract(gpu.zeros({0}, "bool"), gpu.zeros({0, 2})).shape)
    local odd = gpu.arange(1000, "int64") % 3
    local want = {}
    for i = 0, 999 do if i % 3 ~= 0 then want[#want + 1] = i end end
    assert.are.same(want, gpu.extract(odd, gpu.arange(1000, "int64")):totable())
    local c = gpu.array({gpu.complex(1, 2), gpu.complex(3, 4)}, "complex128")
    assert.are.equal(3, gpu.extract(gpu.real(c):gt(2), c):totable()[1].re)
    assert.matches("gpu.extract: the mask's shape {2} is not a's {3, 4} nor that of its first dimensions",
                   S.errof(gpu.extract, gpu.array({true, false}, "bool"), a), 1, true)
  end)
end)

describe("gpu.nonzero, diff, tril, triu, diagonal, a:trace, meshgrid, repeat_interleave, tile", function()
  local a = gpu.arange(12, "float32"):reshape(3, 4)

  it("give NumPy's results, with 1-based indices", function()
    local i, j = gpu.nonzero(gpu.array({{0, 2, 0}, {3, 0, 4}}, "int32"))
    assert.are.same({{1, 2, 2}, {2, 1, 3}, "int64"}, {i:totable(), j:totable(), i.dtype})
    assert.are.same({2, 3, 5}, gpu.nonzero(gpu.array({0, 1, 1, 0, 5})):totable())
    assert.are.same({0}, gpu.nonzero(gpu.zeros(4)).shape)
    assert.are.same({3, 5, 7}, gpu.diff(gpu.array({1, 4, 9, 16})):totable())
    assert.are.same({2, 2}, gpu.diff(gpu.array({1, 4, 9, 16}), 2):totable())
    assert.are.same({{4, 4, 4, 4}, {4, 4, 4, 4}}, gpu.diff(a, 1, 1):totable())
    assert.are.same({false, true}, gpu.diff(gpu.array({true, true, false}, "bool")):totable())
    assert.are.same({0}, gpu.diff(gpu.zeros(1)).shape)
    local d0 = gpu.array({1, 2, 3})
    assert.are.equal(d0, gpu.diff(d0, 0, {prepend = 0}))   -- a itself, as NumPy's (was a copy)
    assert.are.same({{0, 0, 0, 0}, {4, 5, 0, 0}, {8, 9, 10, 0}}, gpu.tril(a):totable())
    assert.are.same({{0, 1, 2, 3}, {0, 0, 6, 7}, {0, 0, 0, 11}}, gpu.triu(a, 1):totable())
    assert.are.same({{0, 0, 0, 0}, {4, 0, 0, 0}, {8, 9, 0, 0}}, gpu.tril(a, -1.0):totable())
    assert.are.same({2, 2, 2}, gpu.triu(gpu.ones({2, 2, 2})).shape)   -- a stack of matrices
    -- a 1-D array was refused; NumPy 2.4's is each row of a square matrix
    local v = gpu.array({1, 2, 3}, "int32")
    assert.are.same({{1, 2, 0}, {1, 2, 3}, {1, 2, 3}}, gpu.tril(v, 1):totable())   -- np.tril([1, 2, 3], 1)
    assert.are.same({{0, 0, 3}, {0, 0, 0}, {0, 0, 0}}, gpu.triu(v, 2):totable())
    assert.are.same({{true, false}, {false, false}}, gpu.triu(gpu.array({true, false})):totable())
    assert.are.same({0, 0}, gpu.tril(gpu.zeros(0)).shape)
    assert.are.same({0, 5, 10}, gpu.diagonal(a):totable())
    assert.are.same({1, 6, 11}, a:diagonal(1):totable())
    assert.are.same({8}, gpu.diagonal(a, -2):totable())
    assert.are.same({0}, gpu.diagonal(a, 5).shape)
    assert.are.same({0, 5, 10}, gpu.diagonal(a.T):totable())   -- a view
    assert.are.same({15, 18}, {a:trace(), a:trace(1)})
    -- an out was dropped: the sum came back and out was never written
    assert.matches("a:trace takes 1 argument, got a table as argument 2 (it takes no options)",
                   select(2, pcall(a.trace, a, 0, {out = gpu.zeros({})})), 1, true)
    local x, y = gpu.meshgrid(gpu.arange(3), gpu.arange(2) + 10)
    assert.are.same({{{0, 1, 2}, {0, 1, 2}}, {{10, 10, 10}, {11, 11, 11}}}, {x:totable(), y:totable()})
    local p, q = gpu.meshgrid(gpu.arange(3), gpu.arange(2) + 10, {indexing = "ij"})
    assert.are.same({{{0, 0}, {1, 1}, {2, 2}}, {{10, 11}, {10, 11}, {10, 11}}}, {p:totable(), q:totable()})
    assert.are.same({1, 1, 1, 2, 2, 2}, gpu.repeat_interleave(gpu.array({1, 2}), 3):totable())
    assert.are.same({{0, 1}, {0, 1}, {2, 3}, {2, 3}}, gpu.repeat_interleave(gpu.arange(4):reshape(2, 2), 2, 1):totable())
    assert.are.same({0}, gpu.repeat_interleave(a, 0).shape)
    assert.are.same({1, 2, 1, 2}, gpu.tile(gpu.array({1, 2}), 2):totable())
    assert.are.same({{1, 2, 1, 2}, {1, 2, 1, 2}}, gpu.tile(gpu.array({1, 2}), {2, 2}):totable())
    local t = gpu.tile(a, 1)
    assert.is_true(t ~= a)   -- a copy, as NumPy's
    assert.are.same(a:totable(), t:totable())
    -- before: a view of a where nothing repeats (tile by 1s, meshgrid of one array or of
    -- others of size 1), so that writing the result wrote a
    assert.is_false(gpu.shares_memory(a, t))
    local m = gpu.arange(3, "float32")
    gpu.meshgrid(m):fill(9)
    local mx = gpu.meshgrid(m, gpu.zeros(1))
    mx[{1, 1}] = 42
    gpu.tile(m:reshape(1, 3), {1, 1}):fill(5)
    assert.are.same({0, 1, 2}, m:totable())
  end)

  it("repeat_interleave and tile give an empty result of any dims NumPy's has, making nothing", function()
    -- (each made an index array of a dimension's length first: 2^33 of them, 64 GiB, was
    -- CUDA_ERROR_OUT_OF_MEMORY for a result of no elements)
    local t = gpu.tile(gpu.empty({0}, "int16"), {1 << 33, 1})
    assert.are.same({{1 << 33, 0}, "int16"}, {t.shape, t.dtype})   -- NumPy: (8589934592, 0)
    local r = gpu.repeat_interleave(gpu.empty({0, 3}, "float64"), 1 << 40, 2)
    assert.are.same({{0, 3 << 40}, "float64"}, {r.shape, r.dtype})   -- NumPy: (0, 3298534883328)
    assert.are.same({2, 0}, gpu.repeat_interleave(gpu.ones({2, 3}), 0, 2).shape)
    assert.are.same({0}, gpu.repeat_interleave(gpu.empty(0), 1 << 45).shape)
    assert.are.same({1 << 40, 0, 0}, gpu.tile(gpu.empty({0, 0}), {1 << 40, 3, 1}).shape)
    assert.is_false(gpu.shares_memory(t, gpu.tile(t, 1)))
    -- dims whose product no array's strides reach are refused, naming the function (it
    -- was arange's "bad argument to 'arange' (... elements: more than an array holds")
    assert.are.equal("gpu.tile: the result's shape {4611686018427387904, 0} is too large: more elements than an array holds (2^48)",
                     S.errof(gpu.tile, gpu.empty({0}), {1 << 62, 1 << 62}))
    assert.are.equal("gpu.repeat_interleave: the result's shape {4611686018427387904, 3} is too large: more elements " ..
                     "than an array holds (2^48)", S.errof(gpu.repeat_interleave, gpu.ones({2, 3}), 1 << 61, 1))
    assert.are.equal("gpu.repeat_interleave: the result's shape {0, 6917529027641081856} is too large: more elements " ..
                     "than an array holds (2^48)", S.errof(gpu.repeat_interleave, gpu.empty({0, 3}), 1 << 61, 2))
  end)

  it("refuse what NumPy refuses, naming it", function()
    assert.matches("gpu.nonzero: a 0-D array has no indices", S.errof(gpu.nonzero, gpu.zeros({})), 1, true)
    assert.matches("gpu.diff: n must be a non-negative integer, got -1", S.errof(gpu.diff, a, -1), 1, true)
    -- prepend and append as NumPy's asanyarray makes them: a table, a gpu.complex (they named
    -- gpu.full); one that does not fit is named (it was gpu.concatenate: array 2 has size 2 ...)
    local i8 = gpu.array({1, 4, 9}, "int8")
    assert.are.same({1, -1, 3, 5}, gpu.diff(i8, 1, 1, {prepend = {1, 2}}):totable())   -- NumPy: [ 1 -1  3  5] (int64)
    assert.are.equal("int64", gpu.diff(i8, 1, 1, {prepend = {1, 2}}).dtype)
    local z = gpu.diff(gpu.array({1, 4, 9}), {prepend = gpu.complex(1, 2)})   -- NumPy: [0.-2.j 3.+0.j 5.+0.j]
    assert.are.same({"complex128", 0, -2, 3}, {z.dtype, z:item(1).re, z:item(1).im, z:item(2).re})
    assert.matches("gpu.diff: prepend of shape {3, 1} does not fit a of shape {2, 3} along dim 2: it must be {2, k}",
                   S.errof(gpu.diff, gpu.ones({2, 3}), 1, 2, {prepend = gpu.ones({3, 1})}), 1, true)
    assert.matches("gpu.diff: append must be a number, a table or a device array, got string",
                   S.errof(gpu.diff, i8, {append = "x"}), 1, true)
    assert.are.equal("gpu.tril: a 1-D array, a matrix or a stack of them expected, got a 0-D array", S.errof(gpu.tril, gpu.zeros({})))
    assert.matches("gpu.triu: k must be an integer, got 0.5", S.errof(gpu.triu, a, 0.5), 1, true)
    assert.matches("gpu.diagonal: a matrix expected, got 3-D array", S.errof(gpu.diagonal, gpu.zeros({1, 1, 1})), 1, true)
    -- a:trace said gpu.diagonal's words, naming gpu.diagonal, which it was not called as
    local a3 = gpu.zeros({1, 1, 1})
    assert.matches("^a:trace: a matrix expected, got 3%-D array$", S.errof(a3.trace, a3))
    assert.matches("^a:trace: k must be an integer, got 0.5$", S.errof(a.trace, a, 0.5))
    assert.matches("indexing must be \"xy\" or \"ij\"", S.errof(gpu.meshgrid, a, {indexing = "yx"}), 1, true)
    assert.matches("gpu.meshgrid: argument 2 is a number", S.errof(gpu.meshgrid, a, 3), 1, true)
    -- a nil between the arrays said "shape[1] must be a size or -1" (ipairs stopped at it)
    assert.matches("gpu.meshgrid: argument 2 is a nil, not a device array", S.errof(gpu.meshgrid, a, nil, a), 1, true)
    -- options before a nil in the options' place (a wrapper's f(x, y, z, opts) called as
    -- f(x, y, {indexing = "ij"})) said "argument 3 is a table, not a device array"
    local u, w = gpu.arange(2), gpu.arange(3)
    assert.are.same({2, 3}, gpu.meshgrid(u, w, {indexing = "ij"}, nil).shape)
    assert.are.same({3, 2}, gpu.meshgrid(u, w, nil).shape)
    assert.matches("gpu.meshgrid: argument 3 is a nil, not a device array", S.errof(gpu.meshgrid, u, w, nil, nil), 1, true)
    assert.matches("repeats must be a non-negative integer", S.errof(gpu.repeat_interleave, a, -2), 1, true)
    assert.matches("gpu.tile: each repetition must be a non-negative integer", S.errof(gpu.tile, a, {2, -1}), 1, true)
    -- a hole in reps was a 1 ({2, nil, 2} tiled to {2, 3, 8}), as NumPy's None raises
    assert.matches("gpu.tile: reps[2] is nil", S.errof(gpu.tile, a, {2, nil, 2}), 1, true)
    -- a result past 8 dims said the view's or the shape's words ("unsqueeze: an array has at
    -- most 8 dimensions", "shape must have 0 to 8 dimensions, got 9"), naming no function
    local d8, v = gpu.zeros({1, 1, 1, 1, 1, 1, 1, 1}), gpu.zeros(2)
    assert.are.equal("gpu.stack: the result would have 9 dimensions, more than an array has (8)", S.errof(gpu.stack, {d8, d8}))
    assert.are.equal("gpu.meshgrid: the result would have 9 dimensions, more than an array has (8)",
                     S.errof(gpu.meshgrid, v, v, v, v, v, v, v, v, v))
    assert.are.same({2, 1, 1, 1, 1, 1, 1, 1}, gpu.stack({d8:squeeze(1), d8:squeeze(1)}).shape)
  end)
end)

describe("gpu.searchsorted and gpu.histogram", function()
  it("find places as NumPy's searchsorted (plus 1), NaN last", function()
    local a = gpu.array({1, 2, 2, 3, 5, 0 / 0}, "float64")
    local v = gpu.array({0, 2, 2.5, 6, 0 / 0}, "float64")
    assert.are.same({1, 2, 4, 6, 6}, gpu.searchsorted(a, v):totable())
    assert.are.same({1, 4, 4, 6, 7}, a:searchsorted(v, {side = "right"}):totable())
    local r = gpu.arange(10, "int32")
    assert.are.same({6, 5, 6}, {gpu.searchsorted(r, 4.5), gpu.searchsorted(r, 4), gpu.searchsorted(r, 4, {side = "right"})})
    assert.are.equal("integer", math.type(gpu.searchsorted(r, 4)))
    assert.are.same({{1, 11}}, gpu.searchsorted(r, gpu.array({{-1, 100}}, "int64")):totable())
    assert.are.same({1}, gpu.searchsorted(gpu.zeros(0), {7}):totable())
    assert.are.equal(2, gpu.searchsorted(gpu.array({false, true}, "bool"), true))
    -- a table of integers is int64, as NumPy's list (it was float64: 2^53 + 1 became 2^53)
    local b = 9007199254740992
    local big = gpu.array({b, b + 1, b + 2}, "int64")
    assert.are.same({2}, gpu.searchsorted(big, {b + 1}):totable())
    assert.are.same({{1}, 1}, {gpu.digitize({b + 1}, big, true):totable(), gpu.digitize(b + 1, big, true)})
    assert.are.same({1, 2}, gpu.digitize({1.5, 2}, {1, 2, 3}):totable())
    assert.matches("gpu.searchsorted: a must be 1-D, got 2-D", S.errof(gpu.searchsorted, gpu.zeros({2, 2}), 1), 1, true)
    assert.matches("side must be \"left\" or \"right\"", S.errof(gpu.searchsorted, r, 1, {side = "up"}), 1, true)
    assert.matches("a is complex: it has no order", S.errof(gpu.searchsorted, gpu.zeros(2, "complex64"), 1), 1, true)
  end)

  it("count as NumPy's histogram: even bins, the last closed, edges of the data's float type", function()
    local x = gpu.array({0.5, 1, 1.5, 2, 2.5, 3, 3, 0 / 0, 10, -1}, "float64")
    local c, e = gpu.histogram(x, 4, {range = {0, 4}})
    assert.are.same({{1, 2, 2, 2}, "int64", {0, 1, 2, 3, 4}}, {c:totable(), c.dtype, e:totable()})
    c, e = gpu.histogram(gpu.arange(100, "int32"), 7)
    assert.are.same({15, 14, 14, 14, 14, 14, 15}, c:totable())
    assert.are.same({"float64", 99}, {e.dtype, e:totable()[8]})
    c, e = gpu.histogram(gpu.full(5, 3), 2)   -- one value: a bin of width 1 around it
    assert.are.same({{0, 5}, {2.5, 3, 3.5}, "float32"}, {c:totable(), e:totable(), e.dtype})
    -- every value in the bin its edges say, on a large sample: a count a bin, checked on the host
    gpu.random.seed(7)
    local r = gpu.random.normal(0, 1, 20000)
    c, e = gpu.histogram(r, 37)
    local values, edges, want = r:totable(), e:totable(), {}
    for b = 1, 37 do want[b] = 0 end
    for _, v in ipairs(values) do
      local b = 1
      while b < 37 and v >= edges[b + 1] do b = b + 1 end
      want[b] = want[b] + 1
    end
    assert.are.same(want, c:totable())
    assert.are.same({10}, gpu.histogram(gpu.zeros(0)).shape)
    c, e = gpu.histogram(gpu.array({true, false, true}, "bool"), 2)   -- as uint8, as NumPy
    assert.are.same({{1, 2}, {0, 0.5, 1}}, {c:totable(), e:totable()})
    assert.matches("the range found in the data, [nan, nan], is not finite", S.errof(gpu.histogram, x), 1, true)
    assert.matches("gpu.histogram: bins must be positive", S.errof(gpu.histogram, x, 0), 1, true)
    -- bins as the edges themselves, as NumPy's (NaN and values outside not counted, the last edge in the last bin)
    c, e = gpu.histogram(gpu.array({1, 2, 2, 3, 5, 0 / 0, -1, 7}), gpu.array({0, 1, 2.5, 5}))
    assert.are.same({{0, 3, 2}, {0, 1, 2.5, 5}}, {c:totable(), e:totable()})
    assert.are.equal("int64", c.dtype)
    assert.matches("gpu.histogram: bin edges must increase monotonically", S.errof(gpu.histogram, x, gpu.array({0, 3, 2})), 1, true)
    -- two edges too (counts [0], edges [1, 0] before; NumPy: bins must increase monotonically)
    assert.matches("gpu.histogram: bin edges must increase monotonically",
                   S.errof(gpu.histogram, gpu.array({0.5}), gpu.array({1, 0}, "float64")), 1, true)
    -- equal edges (all 1e17 before), as NumPy 2's "Too many bins for data range. Cannot create 3 finite-sized bins."
    assert.matches("gpu.histogram: too many bins for the range [1e+17, 1e+17]: cannot make 3 finite-sized bins in float64",
                   S.errof(gpu.histogram, gpu.array({1e17}, "float64"), 3), 1, true)
    assert.are.same({1, 0, 1}, gpu.histogram(gpu.array({1e17, 1e17 + 1e3}, "float64"), 3):totable())   -- distinct: NumPy's
    assert.matches("range's lo 2 is above its hi 1", S.errof(gpu.histogram, x, 3, {range = {2, 1}}), 1, true)
    assert.matches("got host array (make a device array of it with gpu.array(h))",
                   S.errof(gpu.histogram, gpu.zeros(2):tohost()), 1, true)
  end)
end)

describe("indexing with arrays", function()
  it("a[indices] takes rows, a[mask] extracts, a[mask] = v sets, as NumPy's", function()
    local a = gpu.arange(12, "float32"):reshape(3, 4)
    assert.are.same({{8, 9, 10, 11}, {0, 1, 2, 3}}, a[gpu.array({3, 1}, "int64")]:totable())
    assert.are.same({{8, 9, 10, 11}}, a[gpu.array({-1}, "int8")]:totable())
    assert.are.same({9, 10, 11}, a[a:gt(8)]:totable())
    assert.are.same({{0, 1, 2, 3}, {8, 9, 10, 11}}, a[gpu.array({true, false, true}, "bool")]:totable())
    a[a:gt(8)] = -1
    a[gpu.array({0, 1, 0}, "int32"):ne(0)] = 7
    assert.are.same({{0, 1, 2, 3}, {7, 7, 7, 7}, {8, -1, -1, -1}}, a:totable())
    local c = gpu.zeros(3, "complex64")
    c[gpu.array({true, false, true}, "bool")] = gpu.complex(1, 2)
    assert.are.same({1, 0, 1}, {c:totable()[1].re, c:totable()[2].re, c:totable()[3].re})
    assert.matches("must be a bool mask or hold 1-based integer indices, got a float32 array",
                   S.errof(function() return a[gpu.array({1.5})] end), 1, true)
    assert.matches("a[indices] = v is not supported", S.errof(function() a[gpu.array({1}, "int32")] = 3 end), 1, true)
    assert.matches("a[mask] = v takes a number, a boolean or a gpu.complex, got an array",
                   S.errof(function() a[a:gt(0)] = gpu.ones(12) end), 1, true)
    -- a Lua value takes the array's dtype, as in a[{...}] = v (not gpu.where's promotion)
    local n = gpu.arange(4, "int32")
    n[n:gt(1)] = 2.0
    local b = gpu.zeros(3, "bool")
    b[gpu.array({true, false, true}, "bool")] = 5
    assert.are.same({{0, 1, 2, 2}, {true, false, true}}, {n:totable(), b:totable()})
    assert.matches("a[mask] = v: 2.5 not an integer for int32", S.errof(function() n[n:gt(1)] = 2.5 end), 1, true)
    -- (it said out is float32, and the result (complex128) cannot be cast)
    local f = gpu.zeros(3)
    assert.matches("a[mask] = v: cannot store 1+2j, a complex value, in a float32 array",
                   S.errof(function() f[f:eq(0)] = gpu.complex(1, 2) end), 1, true)
    assert.matches("index 9 is out of range for dimension 1 of size 3", S.errof(function() return a[gpu.array({9}, "int32")] end), 1, true)
    assert.are.equal(6, a:trace())
  end)
end)

describe("#multi a[mask]", function()
  it("names the mask on another device (it said gpu.cumsum: an array on device 1)", function()
    local a = gpu.arange(3)
    local m = gpu.with_device(1, function() return gpu.array({true, false, true}, "bool") end)
    assert.matches("a[mask]: the mask on device 1, and device 0 is current", S.errof(function() return a[m] end), 1, true)
    assert.matches("a[mask] = v: the mask on device 1, and device 0 is current", S.errof(function() a[m] = 1 end), 1, true)
    assert.matches("gpu.extract: mask on device 1, and device 0 is current", S.errof(gpu.extract, m, a), 1, true)
  end)
end)
