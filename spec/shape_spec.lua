-- NumPy's functions of shapes and layouts (lua/shape.lua): the values NumPy 1.24 gives for the
-- same input (computed with it and written here, with 1 added to indices), views that
-- share memory where NumPy's do (written through), NumPy's errors where it has them.
local S = require("spec.support")

-- a 2 x 3 x 4 float32 array of 0 ... 23
local function a3() return gpu.arange(24):reshape(2, 3, 4) end
local function flat(a) return gpu.ravel(a):totable() end
local function pieces(list)
  local out = {}
  for i, p in ipairs(list) do out[i] = p:totable() end
  return out
end
-- The message of the error f(...) raises, which must name this file's line
local function err(f, ...)
  local args = table.pack(...)
  local ok, e = pcall(function() f(table.unpack(args, 1, args.n)) end)
  assert(not ok, "expected an error, got none")
  assert.matches("shape_spec%.lua:%d+: gpu%.", tostring(e))
  return tostring(e)
end

describe("gpu.expand_dims, squeeze, swapaxes, moveaxis", function()
  it("give NumPy's shapes as views", function()
    local a = a3()
    assert.are.same({1, 2, 3, 4}, gpu.expand_dims(a, 1).shape)
    assert.are.same({2, 3, 4, 1}, gpu.expand_dims(a, -1).shape)
    assert.are.same({1, 2, 3, 4, 1}, gpu.expand_dims(a, {1, -1}).shape)
    assert.are.same({2, 1, 3, 1, 4}, gpu.expand_dims(a, {2, 4}).shape)
    assert.are.same({1}, gpu.expand_dims(gpu.full({}, 1), 1).shape)
    assert.are.same({0, 1, 3}, gpu.expand_dims(gpu.empty({0, 3}), 2).shape)
    local v = gpu.expand_dims(a.T, 2)   -- a view of a view
    v[{1, 1, 2, 1}] = -1
    assert.are.equal(-1, a:item(1, 2, 1))

    local o = gpu.ones({1, 3, 1}, "int8")
    assert.are.same({3}, gpu.squeeze(o).shape)
    assert.are.same({3, 1}, gpu.squeeze(o, 1).shape)
    assert.are.same({3}, gpu.squeeze(o, {1, -1}).shape)
    assert.are.same({}, gpu.squeeze(gpu.ones({1, 1})).shape)
    assert.are.same({0}, gpu.squeeze(gpu.empty({1, 0})).shape)
    local s = gpu.squeeze(o, {-1})
    s[{1, 2}] = 5
    assert.are.equal(5, o:item(1, 2, 1))

    assert.are.same({4, 3, 2}, gpu.swapaxes(a, 1, 3).shape)
    assert.are.same({2, 4, 3}, a:swapaxes(-1, 2).shape)
    a:swapaxes(1, 3)[{4, 3, 2}] = 100
    assert.are.equal(100, a:item(2, 3, 4))

    assert.are.same({3, 4, 2}, gpu.moveaxis(a, 1, -1).shape)
    assert.are.same({4, 2, 3}, gpu.moveaxis(a, 3, 1).shape)
    assert.are.same({4, 2, 3}, gpu.moveaxis(a, {3, 1}, {1, 2}).shape)
    local m = a3():moveaxis({1, 2}, {-1, -2})
    assert.are.same({4, 3, 2}, m.shape)
    assert.are.same({0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23}, flat(m))
    assert.are.same({0, 1, 2}, gpu.moveaxis(gpu.arange(3), 1, -1):totable())
    m = gpu.moveaxis(a, 3, 1)
    m[{4, 2, 3}] = -7
    assert.are.equal(-7, a:item(2, 3, 4))
  end)

  it("refuse what NumPy refuses", function()
    local a = a3()
    assert.matches("gpu.squeeze: cannot squeeze dimension 2 of size 3", err(gpu.squeeze, a, 2), 1, true)
    assert.matches("gpu.squeeze: dimension 4 is out of range for 3-D arrays", err(gpu.squeeze, a, 4), 1, true)
    assert.matches("gpu.expand_dims: dimension 1 appears twice", err(gpu.expand_dims, a, {1, -5}), 1, true)
    assert.matches("gpu.expand_dims: dimension 6 is out of range for 5-D arrays", err(gpu.expand_dims, a, {1, 6}), 1, true)
    assert.matches("gpu.swapaxes: dimension 0 is out of range", err(gpu.swapaxes, a, 0, 1), 1, true)
    assert.matches("gpu.moveaxis: 2 source dimensions and 1 destinations", err(gpu.moveaxis, a, {1, 2}, 3), 1, true)
    assert.matches("gpu.moveaxis: dimension 3 appears twice", err(gpu.moveaxis, a, {1, 2}, {3, -1}), 1, true)
    assert.matches("gpu.expand_dims: a must be a device array, got table", err(gpu.expand_dims, {1}, 1), 1, true)
    -- past 8 dims: the view's words ("unsqueeze: an array has at most 8 dimensions") and the
    -- shape's ("shape must have 0 to 8 dimensions, got 9") named no function
    local d7 = gpu.zeros({1, 1, 1, 1, 1, 1, 1})
    assert.matches(": gpu.expand_dims: the result would have 9 dimensions, more than an array has (8)",
                   err(gpu.expand_dims, d7, {1, 2}), 1, true)
    assert.matches(": gpu.broadcast_to: the result would have 9 dimensions, more than an array has (8)",
                   err(gpu.broadcast_to, d7, {1, 1, 1, 1, 1, 1, 1, 1, 1}), 1, true)
    assert.matches(": gpu.indices: the result would have 9 dimensions, more than an array has (8)",
                   err(gpu.indices, {1, 1, 1, 1, 1, 1, 1, 1}), 1, true)
    assert.are.same({1, 1, 1, 1, 1, 1, 1, 1}, gpu.expand_dims(d7, 1).shape)
  end)
end)

describe("gpu.ravel and gpu.ascontiguousarray", function()
  it("give a view of a C-ordered array, else a copy, as NumPy's", function()
    local a = a3()
    local r = gpu.ravel(a)
    r[{3}] = 50
    assert.are.equal(50, a:item(1, 1, 3))
    local t = a.T:ravel()
    assert.are.same({0, 12, 4, 16, 8}, t[{{1, 5}}]:totable())
    t[{1}] = 9
    assert.are.equal(0, a:item(1, 1, 1))   -- a copy: a is untouched
    local strided = gpu.arange(10)[{{1, 10, 2}}]
    assert.are.same({0, 2, 4, 6, 8}, gpu.ravel(strided):totable())
    assert.is_nil(gpu.ravel(strided).base)  -- NumPy copies a strided 1-D array too
    assert.are.same({4, 3, 2, 1, 0}, gpu.ravel(gpu.arange(5):flip()):totable())
    assert.are.same({1}, gpu.ravel(gpu.full({}, 7)).shape)
    assert.are.same({0}, gpu.ravel(gpu.empty({3, 0}).T).shape)

    assert.are.equal(a, gpu.ascontiguousarray(a))
    local c = gpu.ascontiguousarray(a.T)
    assert.is_true(c:is_contiguous())
    assert.are.same(a.T:totable(), c:totable())
    assert.are.same({1}, gpu.ascontiguousarray(gpu.full({}, 2)).shape)   -- at least 1-D, as NumPy's
    assert.are.equal("int16", gpu.ascontiguousarray(a, "int16").dtype)
  end)
end)

describe("gpu.broadcast_to, broadcast_arrays and atleast_nd", function()
  it("give expanded views, which cannot be written to", function()
    local v = gpu.arange(3, "int32")
    local b = gpu.broadcast_to(v, {2, 3})
    assert.are.same({{0, 1, 2}, {0, 1, 2}}, b:totable())
    assert.are.same({0, 1}, b.strides)
    v[{2}] = 7
    assert.are.same({0, 7, 2}, b[{2}]:totable())   -- shares v's memory
    assert.matches("cannot write into an expanded view", S.errof(function() b[{1, 1}] = 1 end), 1, true)
    assert.are.same({3, 0}, gpu.broadcast_to(gpu.empty({0}), {3, 0}).shape)
    assert.are.same({4}, gpu.broadcast_to(gpu.full({}, 1), 4).shape)
    assert.matches("gpu.broadcast_to: shape {3} cannot be broadcast to {3, 2}", err(gpu.broadcast_to, v, {3, 2}), 1, true)
    assert.matches("gpu.broadcast_to: shape {3} cannot be broadcast to {}", err(gpu.broadcast_to, v, {}), 1, true)
    assert.matches("gpu.broadcast_to: each size must be a non-negative integer, got -1", err(gpu.broadcast_to, v, {-1, 3}), 1, true)

    local x, y, z = gpu.broadcast_arrays(gpu.arange(3), gpu.arange(2):reshape(2, 1), gpu.full({}, 5, "int8"))
    assert.are.same({{0, 1, 2}, {0, 1, 2}}, x:totable())
    assert.are.same({{0, 0, 0}, {1, 1, 1}}, y:totable())
    assert.are.same({{5, 5, 5}, {5, 5, 5}}, z:totable())
    assert.are.equal("int8", z.dtype)
    local e1, e2 = gpu.broadcast_arrays(gpu.empty({0, 1}), gpu.empty({4}))
    assert.are.same({{0, 4}, {0, 4}}, {e1.shape, e2.shape})
    assert.matches("gpu.broadcast_arrays: shapes {3} and {2} do not broadcast (arrays 1 and 2)",
                   err(gpu.broadcast_arrays, gpu.arange(3), gpu.arange(2)), 1, true)
    -- before: "shapes {1} and {4} ... (array 3)", the first shape whatever it was
    assert.matches("gpu.broadcast_arrays: shapes {3} and {4} do not broadcast (arrays 2 and 3)",
                   err(gpu.broadcast_arrays, gpu.zeros(1), gpu.zeros(3), gpu.zeros(4)), 1, true)
    -- before: views that repeat nothing were written into, and a with them; NumPy's are read-only
    local a = gpu.arange(3, "float32")
    for _, v in ipairs({gpu.broadcast_to(a, {3}), gpu.broadcast_to(a, {1, 3}), (gpu.broadcast_arrays(a, gpu.zeros({3})))}) do
      assert.matches("cannot write into an expanded view", S.errof(v.fill, v, 7), 1, true)
      assert.matches("cannot write into an expanded view", S.errof(function() v[v:eq(1)] = 5 end), 1, true)
    end
    assert.are.same({0, 1, 2}, a:totable())

    local s = gpu.full({}, 1)
    assert.are.same({1}, gpu.atleast_1d(s).shape)
    assert.are.same({{1}}, gpu.atleast_2d(s):totable())
    assert.are.same({1, 1, 1}, gpu.atleast_3d(s).shape)
    assert.are.same({1, 3}, gpu.atleast_2d(v).shape)
    assert.are.same({1, 3, 1}, gpu.atleast_3d(v).shape)
    assert.are.same({3, 4, 1}, gpu.atleast_3d(a3()[{1}]).shape)
    local p, q = gpu.atleast_2d(v, a3())
    assert.are.same({{1, 3}, {2, 3, 4}}, {p.shape, q.shape})
    p[{1, 1}] = 3
    assert.are.equal(3, v:item(1))
    assert.matches("gpu.atleast_1d: argument 2 must be a device array, got number", err(gpu.atleast_1d, v, 2), 1, true)
  end)
end)

describe("gpu.hstack, vstack, dstack, column_stack and append", function()
  it("join as NumPy's", function()
    local r2, r3 = gpu.arange(2, "int32"), gpu.arange(3, "int32")
    assert.are.same({0, 1, 0, 1, 2}, gpu.hstack({r2, r3}):totable())
    local h = gpu.hstack({gpu.ones({2, 1}), gpu.zeros({2, 2}, "float64")})
    assert.are.same({{1, 0, 0}, {1, 0, 0}}, h:totable())
    assert.are.equal("float64", h.dtype)
    assert.are.same({{0, 1}, {5, 6}}, gpu.vstack({r2, r2 + 5}):totable())
    assert.are.same({{{0, 5}, {1, 6}}}, gpu.dstack({r2, r2 + 5}):totable())
    assert.are.same({{0, 5, 1, 1}, {1, 6, 1, 1}}, gpu.column_stack({r2, r2 + 5, gpu.ones({2, 2})}):totable())
    assert.are.same({2}, gpu.hstack({gpu.full({}, 1), gpu.full({}, 2)}).shape)
    assert.are.same({1, 2}, gpu.column_stack({gpu.full({}, 1), gpu.full({}, 2)}).shape)
    assert.are.same({2, 1}, gpu.vstack({gpu.full({}, 1), gpu.full({}, 2)}).shape)
    assert.are.same({{2, 0}, {3, 1}}, gpu.vstack({gpu.arange(4):reshape(2, 2).T[{{}, {-1, 1, -1}}]}):totable())
    assert.are.same({0, 3}, gpu.vstack({gpu.empty({0, 3}), gpu.empty({0, 3})}).shape)
    assert.matches("gpu.hstack: no arrays to join", err(gpu.hstack, {}), 1, true)
    assert.matches('gpu.vstack: the table of arrays has a key "dim" besides its 1 elements', err(gpu.vstack, {r2, dim = 2}), 1, true)
    assert.matches("gpu.vstack: argument 2 must be a device array, got number", err(gpu.vstack, {r2, 1}), 1, true)

    local a = a3()
    assert.are.same({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1}, gpu.append(a[{1}], gpu.arange(2)):totable())
    assert.are.same({2, 6, 4}, gpu.append(a, a, 2).shape)
    assert.are.same({3, 3, 2, 1, 0}, gpu.append(gpu.full({}, 3), gpu.arange(4):flip()):totable())
    -- a dim or shapes that do not join named gpu.concatenate
    assert.matches(': gpu.append: dim must be an integer, got a string ("x")', err(gpu.append, a, a, "x"), 1, true)
    assert.matches(": gpu.append: array 2 has size 3 in dimension 2, array 1 2 (only dimension 1 may differ)",
                   err(gpu.append, gpu.ones({2, 2}), gpu.ones({1, 3}), 1), 1, true)
  end)
end)

describe("gpu.split, array_split, hsplit, vsplit, dsplit", function()
  it("give views, split at 1-based indices as NumPy's at 0-based ones", function()
    local r = gpu.arange(7, "int64")
    assert.are.same({{0, 1}, {2, 3}, {4, 5, 6}}, pieces(gpu.split(r, {3, 5})))
    -- NumPy's [4, 2, 20]: a piece may be empty, an index past the end is the end
    assert.are.same({{0, 1, 2, 3}, {}, {2, 3, 4, 5, 6}, {}}, pieces(gpu.split(r, {5, 3, 21})))
    assert.are.same({{0, 1, 2, 3, 4}, {5, 6}}, pieces(gpu.split(r, {-2})))
    assert.are.same({{}, {0, 1, 2, 3, 4, 5, 6}}, pieces(gpu.split(r, {-20})))
    assert.are.same({{0, 1, 2}, {3, 4}, {5, 6}}, pieces(gpu.array_split(r, 3)))
    assert.are.same({{0}, {1}, {}}, pieces(gpu.array_split(gpu.arange(2), 3)))
    assert.are.same({{0, 1, 2, 3, 4, 5, 6}}, pieces(gpu.split(r, 1)))
    local parts = gpu.split(r, 7)
    parts[4][{1}] = 30
    assert.are.equal(30, r:item(4))   -- views

    local m = gpu.arange(12):reshape(3, 4)
    local cols = gpu.split(m, 2, 2)
    assert.are.same({{{0, 1}, {4, 5}, {8, 9}}, {{2, 3}, {6, 7}, {10, 11}}}, pieces(cols))
    assert.are.same(pieces(cols), pieces(gpu.hsplit(m, 2)))
    assert.are.same({{{0, 1, 2, 3}}, {{4, 5, 6, 7}, {8, 9, 10, 11}}}, pieces(gpu.vsplit(m, {2})))
    local t = gpu.split(m.T[{{-1, 1, -1}}], {-1})   -- a transposed, reversed view
    assert.are.same({{{3, 7, 11}, {2, 6, 10}, {1, 5, 9}}, {{0, 4, 8}}}, pieces(t))
    t[2][{1, 2}] = -4
    assert.are.equal(-4, m:item(2, 1))
    assert.are.same({{0, 1, 2}, {3}}, pieces(gpu.hsplit(gpu.arange(4), {4})))
    local d = gpu.dsplit(a3(), 2)
    assert.are.same({{2, 3, 2}, {2, 3, 2}}, {d[1].shape, d[2].shape})
    local e = gpu.split(gpu.empty({0, 3}), 2)
    assert.are.same({{0, 3}, {0, 3}}, {e[1].shape, e[2].shape})
    assert.are.same({{3, 0}, {3, 0}, {3, 0}}, {gpu.split(gpu.empty({3, 0}), 3, 2)[3].shape, gpu.split(gpu.empty({3, 0}), {1}, 2)[1].shape,
                                             gpu.split(gpu.empty({3, 0}), {1}, 2)[2].shape})
  end)

  it("refuse what NumPy refuses", function()
    local r = gpu.arange(7)
    assert.matches("gpu.split: 3 sections do not divide dimension 1 of size 7 equally (gpu.array_split allows it)",
                   err(gpu.split, r, 3), 1, true)
    assert.matches("gpu.array_split: the number of sections must be positive", err(gpu.array_split, r, 0), 1, true)
    assert.matches("gpu.split: split index 0: indices are 1-based", err(gpu.split, r, {0, 3}), 1, true)
    assert.matches("gpu.split: each split index must be an integer, got 1.5", err(gpu.split, r, {1.5}), 1, true)
    assert.matches("gpu.split: a 0-D array has no dimension to split", err(gpu.split, gpu.full({}, 1), 1), 1, true)
    assert.matches("gpu.vsplit: an array of 2-D or more expected, got 1-D", err(gpu.vsplit, r, 7), 1, true)
    assert.matches("gpu.dsplit: an array of 3-D or more expected, got 2-D", err(gpu.dsplit, gpu.ones({2, 2}), 1), 1, true)
    assert.matches("gpu.hsplit: a 0-D array has no dimension to split", err(gpu.hsplit, gpu.full({}, 1), 1), 1, true)
  end)
end)

describe("gpu.roll", function()
  it("gives NumPy's results, a new array", function()
    local a = a3()
    assert.are.same({19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, flat(gpu.roll(a, 5)))
    assert.are.same({14, 15, 12, 13, 18, 19, 16, 17, 22, 23, 20, 21, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9},
                    flat(gpu.roll(a, {1, -2}, {1, 3})))
    -- a dimension named twice: its shifts add up, as NumPy's
    assert.are.same({1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 17, 18, 19, 16, 21, 22, 23, 20},
                    flat(gpu.roll(a, {1, 2}, {3, 3})))
    assert.are.same({2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23, 0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21}, flat(gpu.roll(a.T, 2, 1)))
    assert.are.same({2, 3, 4, 5, 0, 1}, gpu.roll(gpu.arange(6, "int16"), {1, 3}):totable())
    assert.are.same({1, 0, 4, 3, 2}, gpu.roll(gpu.arange(5):flip(), 2):totable())
    assert.are.same({2, 3, 4, 0, 1}, gpu.roll(gpu.arange(5, "int8"), -12):totable())
    local same = gpu.roll(a, 3, 2)
    same[{1, 1, 1}] = -1
    assert.are.equal(0, a:item(1, 1, 1))   -- a copy, even for a whole turn
    assert.are.same({}, gpu.roll(gpu.full({}, 3), 1).shape)
    assert.are.same({2, 0}, gpu.roll(gpu.empty({2, 0}), 1, 2).shape)
    assert.are.same({{false, true}, {true, false}}, gpu.roll(gpu.array({{true, false}, {false, true}}, "bool"), 1, 1):totable())
    assert.matches("gpu.roll: 2 shifts and 3 dimensions", err(gpu.roll, a, {1, 2}, {1, 2, 3}), 1, true)
    assert.matches("gpu.roll: shift must be an integer, got 0.5", err(gpu.roll, a, 0.5, 1), 1, true)
  end)
end)

describe("gpu.pad", function()
  it("gives NumPy's results in each mode and form of width", function()
    local m = gpu.array({{1, 2}, {3, 4}}, "int32")
    local c = gpu.pad(m, {{1, 2}, {0, 1}}, {value = 9})
    assert.are.same({{9, 9, 9}, {1, 2, 9}, {3, 4, 9}, {9, 9, 9}, {9, 9, 9}}, c:totable())
    assert.are.equal("int32", c.dtype)
    assert.are.same({{0, 0, 0, 0}, {0, 1, 2, 0}, {0, 3, 4, 0}, {0, 0, 0, 0}}, gpu.pad(m, 1):totable())
    assert.are.same({{0, 0, 0}, {0, 1, 2}, {0, 3, 4}}, gpu.pad(m, {1, 0}):totable())
    assert.are.same({{0, 0, 0}, {0, 1, 2}, {0, 3, 4}}, gpu.pad(m, {{1, 0}}):totable())
    assert.are.same({{4, 3, 4, 3}, {2, 1, 2, 1}, {4, 3, 4, 3}, {2, 1, 2, 1}}, gpu.pad(m, 1, {mode = "reflect"}):totable())
    for _, c1 in ipairs({
      {"edge", {1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
      {"reflect", {2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}},
      {"symmetric", {1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2}},
      {"wrap", {3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2}},
    }) do
      assert.are.same(c1[2], gpu.pad(gpu.array({1, 2, 3}, "uint8"), {7, 8}, {mode = c1[1]}):totable())
    end
    -- a reversed, strided view, padded more than its size: NumPy's arange(12).reshape(3, 4)[::-1, ::2]
    local b = gpu.arange(12, "int64"):reshape(3, 4)[{{-1, 1, -1}, {1, 4, 2}}]
    local want = {
      edge = {{8, 8, 10, 10, 10, 10, 10}, {8, 8, 10, 10, 10, 10, 10}, {8, 8, 10, 10, 10, 10, 10}, {4, 4, 6, 6, 6, 6, 6},
              {0, 0, 2, 2, 2, 2, 2}, {0, 0, 2, 2, 2, 2, 2}, {0, 0, 2, 2, 2, 2, 2}, {0, 0, 2, 2, 2, 2, 2}},
      reflect = {{2, 0, 2, 0, 2, 0, 2}, {6, 4, 6, 4, 6, 4, 6}, {10, 8, 10, 8, 10, 8, 10}, {6, 4, 6, 4, 6, 4, 6},
                 {2, 0, 2, 0, 2, 0, 2}, {6, 4, 6, 4, 6, 4, 6}, {10, 8, 10, 8, 10, 8, 10}, {6, 4, 6, 4, 6, 4, 6}},
      symmetric = {{4, 4, 6, 6, 4, 4, 6}, {8, 8, 10, 10, 8, 8, 10}, {8, 8, 10, 10, 8, 8, 10}, {4, 4, 6, 6, 4, 4, 6},
                   {0, 0, 2, 2, 0, 0, 2}, {0, 0, 2, 2, 0, 0, 2}, {4, 4, 6, 6, 4, 4, 6}, {8, 8, 10, 10, 8, 8, 10}},
      -- periodic, as NumPy 2's (1.24 repeats a piece of the left padding when both sides are
      -- wider than the dimension: this is NumPy's take of b at (j mod n) in each dimension)
      wrap = {{6, 4, 6, 4, 6, 4, 6}, {2, 0, 2, 0, 2, 0, 2}, {10, 8, 10, 8, 10, 8, 10}, {6, 4, 6, 4, 6, 4, 6},
              {2, 0, 2, 0, 2, 0, 2}, {10, 8, 10, 8, 10, 8, 10}, {6, 4, 6, 4, 6, 4, 6}, {2, 0, 2, 0, 2, 0, 2}},
    }
    for mode, w in pairs(want) do assert.are.same(w, gpu.pad(b, {{2, 3}, {1, 4}}, {mode = mode}):totable(), mode) end
    assert.are.same({{0, 0, 2}, {0, 0, 2}, {1, 1, 3}}, gpu.pad(gpu.arange(4):reshape(2, 2).T, {1, 0}, {mode = "symmetric"}):totable())
    assert.are.same({{5, 5, 5}}, gpu.pad(gpu.array({{5}}, "float64"), {{0, 0}, {1, 1}}, {mode = "reflect"}):totable())
    assert.are.same({{1.5, 1.5}, {1.5, 1.5}}, gpu.pad(gpu.empty({0, 2}), {{2, 0}, {0, 0}}, {value = 1.5}):totable())
    assert.are.same({0, 4}, gpu.pad(gpu.empty({0, 2}), {{0, 0}, {1, 1}}, {mode = "edge"}).shape)
    -- an empty result of a wide padding: no index array of its width (2^40 of them were
    -- CUDA_ERROR_OUT_OF_MEMORY, 8 TB), NumPy's (0, 1099511627780)
    for _, mode in ipairs({"constant", "edge", "reflect", "symmetric", "wrap"}) do
      local e = gpu.pad(gpu.empty({0, 3}, "int8"), {{0, 0}, {1 << 40, 1}}, {mode = mode})
      assert.are.same({{0, (1 << 40) + 4}, "int8"}, {e.shape, e.dtype}, mode)
      assert.are.equal("gpu.pad: the result's shape {0, 1125899906842627} is too large: more elements than an array holds (2^48)",
                       S.errof(gpu.pad, gpu.empty({0, 3}), {{0, 0}, {1 << 50, 0}}, {mode = mode}), mode)
    end
    assert.are.same({true, false, true}, gpu.pad(gpu.array({false}, "bool"), 1, {value = true}):totable())
    local z = gpu.pad(m, 0)
    z[{1, 1}] = 0
    assert.are.equal(1, m:item(1, 1))   -- a copy
  end)

  it("refuses what NumPy refuses", function()
    local m = gpu.ones({2, 2})
    -- before: value dropped in another mode, and errors named gpu.full's argument #2
    local A = gpu.array({1, 2, 3}, "int32")
    assert.matches("gpu.pad: value is for mode \"constant\" only, got mode \"edge\"", S.errof(gpu.pad, A, 1, {mode = "edge", value = 5}), 1, true)
    assert.matches("gpu.pad: value: 2.5 not an integer for int32", S.errof(gpu.pad, A, 1, {value = 2.5}), 1, true)
    assert.matches("gpu.pad: value must be a number, got table", S.errof(gpu.pad, A, 1, {value = {7, 9}}), 1, true)
    assert.matches("gpu.pad: cannot pad dimension 1 of size 0 with mode \"edge\"", err(gpu.pad, gpu.empty({0, 2}), 1, {mode = "edge"}), 1, true)
    assert.matches("gpu.pad: mode must be \"constant\", \"edge\", \"reflect\", \"symmetric\" or \"wrap\", got mean",
                   err(gpu.pad, m, 1, {mode = "mean"}), 1, true)
    assert.matches("gpu.pad: 3 pairs of widths for a 2-D array", err(gpu.pad, m, {{1, 1}, {1, 1}, {1, 1}}), 1, true)
    assert.matches("gpu.pad: each width must be a non-negative integer, got -1", err(gpu.pad, m, -1), 1, true)
    assert.matches("gpu.pad: width must be n, {before, after}", err(gpu.pad, m, {1, 2, 3}), 1, true)
    -- widths whose sum wraps Lua's integers: once a negative shape, or a narrow of the whole
    assert.matches("gpu.pad: widths 4611686018427387904 and 4611686018427387904 make dimension 1 too large",
                   err(gpu.pad, m, 2 ^ 62), 1, true)
    assert.matches("make dimension 2 too large", err(gpu.pad, m, {{0, 0}, {0, math.maxinteger}}, {mode = "edge"}), 1, true)
  end)
end)

describe("gpu.rot90, fliplr, flipud", function()
  it("give NumPy's views", function()
    local a = a3()
    local m = a[{1}]
    assert.are.same({{3, 7, 11}, {2, 6, 10}, {1, 5, 9}, {0, 4, 8}}, gpu.rot90(m):totable())
    assert.are.same({{8, 4, 0}, {9, 5, 1}, {10, 6, 2}, {11, 7, 3}}, gpu.rot90(m, 3):totable())
    assert.are.same(gpu.rot90(m, 3):totable(), gpu.rot90(m, -1):totable())
    assert.are.same({{11, 10, 9, 8}, {7, 6, 5, 4}, {3, 2, 1, 0}}, gpu.rot90(m, 2):totable())
    local r = gpu.rot90(a, 1, {2, 3})
    assert.are.same({2, 4, 3}, r.shape)
    assert.are.same({3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8, 15, 19, 23, 14, 18, 22, 13, 17, 21, 12, 16, 20}, flat(r))
    assert.are.same({15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8},
                    flat(gpu.rot90(a, 2, {3, 1})))
    r[{1, 4, 1}] = -8
    assert.are.equal(-8, a:item(1, 1, 1))
    local same = gpu.rot90(m, 4)
    same[{1, 2}] = -9
    assert.are.equal(-9, a:item(1, 1, 2))
    assert.are.same({4, 0}, gpu.rot90(gpu.empty({0, 4})).shape)

    local f = gpu.fliplr(m)
    assert.are.same({11, 10, 9, 8}, f[{3}]:totable())
    f[{1, 4}] = 42
    assert.are.equal(42, m:item(1, 1))
    assert.are.same({2, 1, 0}, gpu.flipud(gpu.arange(3)):totable())
    assert.are.same({{8, 9, 10, 11}, {4, 5, 6, 7}}, gpu.flipud(m)[{{1, 2}}]:totable())

    assert.matches("gpu.rot90: an array of 2-D or more expected, got 1-D", err(gpu.rot90, gpu.arange(3)), 1, true)
    assert.matches("gpu.rot90: dimension 2 appears twice", err(gpu.rot90, m, 1, {2, -1}), 1, true)
    assert.matches("gpu.rot90: dims must be a table of two dimensions", err(gpu.rot90, a, 1, {1, 2, 3}), 1, true)
    assert.matches("gpu.fliplr: an array of 2-D or more expected, got 1-D", err(gpu.fliplr, gpu.arange(3)), 1, true)
    assert.matches("gpu.flipud: a 0-D array has no dimension to flip", err(gpu.flipud, gpu.full({}, 1)), 1, true)
  end)
end)

describe("gpu.diag, diagflat, indices, tril_indices, triu_indices", function()
  it("give NumPy's results", function()
    local v = gpu.array({1, 2, 3}, "int16")
    local d = gpu.diag(v, 1)
    assert.are.same({{0, 1, 0, 0}, {0, 0, 2, 0}, {0, 0, 0, 3}, {0, 0, 0, 0}}, d:totable())
    assert.are.equal("int16", d.dtype)
    assert.are.same({{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 2, 0, 0, 0}, {0, 0, 3, 0, 0}}, gpu.diag(v, -2):totable())
    assert.are.same({{3, 0, 0}, {0, 2, 0}, {0, 0, 1}}, gpu.diag(v:flip()):totable())
    assert.are.same({{true, false}, {false, false}}, gpu.diag(gpu.array({true, false}, "bool")):totable())
    assert.are.same({{0, 0}, {0, 0}}, gpu.diag(gpu.empty(0), -2):totable())
    local m = gpu.arange(12):reshape(3, 4)
    assert.are.same({1, 6, 11}, gpu.diag(m, 1):totable())
    assert.are.same({4, 9}, gpu.diag(m, -1):totable())
    assert.are.same({0}, gpu.diag(m, 5).shape)
    assert.are.same({1, 6, 11}, gpu.diag(m.T, -1):totable())
    assert.are.same({{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 2, 0, 0, 0}, {0, 0, 3, 0, 0}, {0, 0, 0, 4, 0}},
                    gpu.diagflat(gpu.array({{1, 2}, {3, 4}}), -1):totable())
    assert.are.same({{1, 0}, {0, 2}}, gpu.diagflat(gpu.array({{1, 2}, {3, 4}}).T[{{}, 1}]):totable())
    assert.matches("gpu.diag: a 1-D or 2-D array expected, got 3-D", err(gpu.diag, a3()), 1, true)
    assert.matches("gpu.diag: k must be an integer, got 0.5", err(gpu.diag, v, 0.5), 1, true)
    assert.matches(": gpu.diagflat: k must be an integer, got 0.5", err(gpu.diagflat, v, 0.5), 1, true)   -- (was gpu.diag's)

    local i = gpu.indices({2, 3})
    assert.are.same({{{1, 1, 1}, {2, 2, 2}}, {{1, 2, 3}, {1, 2, 3}}}, i:totable())
    assert.are.equal("int64", i.dtype)
    assert.are.equal("int32", gpu.indices(2, "int32").dtype)
    assert.are.same({{1, 2}}, gpu.indices(2):totable())
    assert.are.same({2, 0, 2}, gpu.indices({0, 2}).shape)
    assert.are.same({0}, gpu.indices({}).shape)

    local function both(r, c) return {r:totable(), c:totable()} end
    assert.are.same({{1, 2, 2, 3, 3, 3}, {1, 1, 2, 1, 2, 3}}, both(gpu.tril_indices(3, 0, 4)))
    assert.are.same({{2, 3, 3, 4, 4, 4}, {1, 1, 2, 1, 2, 3}}, both(gpu.tril_indices(4, -1)))
    assert.are.same({{1, 1, 1, 2, 2, 3}, {2, 3, 4, 3, 4, 4}}, both(gpu.triu_indices(4, 1)))
    assert.are.same({{1, 1, 2, 2, 3}, {1, 2, 1, 2, 2}}, both(gpu.triu_indices(3, -1, 2)))
    assert.are.same({{}, {}}, both(gpu.tril_indices(0)))
    assert.are.equal("int64", gpu.triu_indices(2).dtype)
    assert.matches("gpu.tril_indices: n must be a non-negative integer, got -1", err(gpu.tril_indices, -1), 1, true)
  end)
end)

describe("gpu.unravel_index and gpu.ravel_multi_index", function()
  it("convert 1-based indices as NumPy's do 0-based ones", function()
    local i, j, k = gpu.unravel_index(gpu.array({1, 5, 24, 12}, "int32"), {2, 3, 4})
    assert.are.same({{1, 1, 2, 1}, {1, 2, 3, 3}, {1, 1, 4, 4}}, {i:totable(), j:totable(), k:totable()})
    assert.are.equal("int64", i.dtype)
    assert.are.same({2, 2, 1}, {gpu.unravel_index(17, {2, 3, 4})})
    local r, c = gpu.unravel_index({{1, 2}, {3, 4}}, {2, 2})
    assert.are.same({{{1, 1}, {2, 2}}, {{1, 2}, {1, 2}}}, {r:totable(), c:totable()})
    assert.are.same({0}, gpu.unravel_index(gpu.empty(0, "int64"), {0}).shape)
    assert.matches("gpu.unravel_index: index 25 is out of range 1 to 24", err(gpu.unravel_index, 25, {2, 3, 4}), 1, true)
    assert.matches("gpu.unravel_index: index 0 is out of range 1 to 24", err(gpu.unravel_index, {3, 0}, {2, 3, 4}), 1, true)
    assert.matches("gpu.unravel_index: indices must be an integer array, a table or a number, got float32 array",
                   err(gpu.unravel_index, gpu.ones(2), {2, 3}), 1, true)

    assert.are.same({12, 16}, gpu.ravel_multi_index({gpu.array({1, 2}, "int64"), {3, 1}, 4}, {2, 3, 4}):totable())
    assert.are.equal(13, gpu.ravel_multi_index({2, 1, 1}, {2, 3, 4}))
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, gpu.ravel_multi_index({gpu.array({{1}, {2}}, "int8"), {1, 2, 3}}, {2, 3}):totable())
    local x, y = gpu.unravel_index(gpu.arange(1, 13, "int64"), {3, 4})
    assert.are.same(gpu.arange(1, 13):totable(), gpu.ravel_multi_index({x, y}, {3, 4}):totable())
    assert.matches("gpu.ravel_multi_index: index of dimension 2 4 is out of range 1 to 3",
                   err(gpu.ravel_multi_index, {1, 4}, {2, 3}), 1, true)
    assert.matches("gpu.ravel_multi_index: a table of 2 index arrays (one a dimension) expected",
                   err(gpu.ravel_multi_index, {1}, {2, 3}), 1, true)
    -- a key besides the list's was dropped; a hole was "each index must be ..."
    assert.matches('gpu.ravel_multi_index: the table of indices has a key "mode" besides its 2 elements',
                   err(gpu.ravel_multi_index, {1, 2, mode = "clip"}, {2, 3}), 1, true)
    assert.matches("gpu.ravel_multi_index: index of dimension 2 must be an integer array, a table or a number, got nil",
                   err(gpu.ravel_multi_index, {1, nil, 1}, {2, 3, 4}), 1, true)
  end)

  it("refuse a shape of more elements than an int64 counts (whose strides would wrap)", function()
    assert.matches("gpu.ravel_multi_index: the shape {1099511627776, 1099511627776} has more elements than an int64 counts",
                   err(gpu.ravel_multi_index, {2 ^ 39, 5}, {2 ^ 40, 2 ^ 40}), 1, true)
    assert.matches("gpu.ravel_multi_index: the shape {4, 4611686018427387904} has more",
                   err(gpu.ravel_multi_index, {3, 2 ^ 62}, {4, 2 ^ 62}), 1, true)
    assert.matches("gpu.unravel_index: the shape {4294967296, 4294967296} has more",   -- (whose product wraps to 0)
                   err(gpu.unravel_index, 5, {2 ^ 32, 2 ^ 32}), 1, true)
    -- a size of 0 makes any shape empty; the largest that fits is fine
    assert.matches("gpu.unravel_index: index 1 is out of range 1 to 0", err(gpu.unravel_index, 1, {2 ^ 62, 0, 2 ^ 62}), 1, true)
    assert.are.equal(math.maxinteger, gpu.ravel_multi_index({math.maxinteger}, {math.maxinteger}))
  end)
end)

describe("gpu.array_equal", function()
  it("is whether the shapes and elements are equal, a Lua boolean", function()
    local a = a3()
    assert.is_true(gpu.array_equal(a, a:copy()))
    assert.is_true(gpu.array_equal(a.T, a:copy().T))
    assert.is_false(gpu.array_equal(a, a:reshape(6, 4)))
    assert.is_false(gpu.array_equal(gpu.arange(3), gpu.arange(3):expand(1, 3)))   -- no broadcasting
    assert.is_true(gpu.array_equal(gpu.arange(3, "int32"), gpu.arange(3, "float64")))
    assert.is_false(gpu.array_equal(gpu.arange(3, "int32"), gpu.arange(3):flip()))
    assert.is_true(gpu.array_equal(gpu.empty({0, 2}), gpu.empty({0, 2}, "int8")))
    local n = gpu.array({1, 0 / 0})
    assert.is_false(gpu.array_equal(n, n))
    assert.is_true(gpu.array_equal(n, n, {equal_nan = true}))
    assert.is_false(gpu.array_equal(n, n, {equal_nan = false}))
    -- equal_nan a boolean ({equal_nan = 0} was true), checked for arrays of other shapes too
    assert.matches("gpu.array_equal: option equal_nan must be a boolean, got number", err(gpu.array_equal, n, n, {equal_nan = 0}), 1, true)
    assert.matches("gpu.array_equal: option equal_nan must be a boolean, got string", err(gpu.array_equal, n, a, {equal_nan = "false"}), 1, true)
    assert.is_true(gpu.array_equal(gpu.array({true, false}, "bool"), gpu.array({1, 0}, "uint8")))
    assert.matches("gpu.array_equal: b must be a device array, got table", err(gpu.array_equal, a, {1}), 1, true)
  end)
end)

describe("gpu.logspace and gpu.geomspace", function()
  -- float64 results within 2 ulps of NumPy's (pow on the device may differ from C's in the last bits)
  local function near(want, got)
    assert.are.equal(#want, #got)
    for i = 1, #want do
      assert(math.abs(got[i] - want[i]) <= 4.5e-16 * math.abs(want[i]), ("element %d: %.17g, NumPy %.17g"):format(i, got[i], want[i]))
    end
  end

  it("give NumPy's float64 numbers", function()
    near({1.0, 3.1622776601683795, 10.0, 31.622776601683793, 100.0}, gpu.logspace(0, 2, 5, {dtype = "float64"}):totable())
    near({0.08838834764831845, 0.19040494562249452, 0.410167678003819, 0.883577490747535, 1.9033903060212396, 4.1002568478635, 8.832716109390502},
         gpu.logspace(-3.5, 4.25, 7, {endpoint = false, base = 2, dtype = "float64"}):totable())
    local f = gpu.logspace(1, 3, 4)
    assert.are.equal("float32", f.dtype)
    near({10.0, 46.415889739990234, 215.44346618652344, 1000.0}, f:totable())
    assert.are.same({0}, gpu.logspace(0, 1, 0).shape)

    local g = gpu.geomspace(2, 7, 6, {dtype = "float64"}):totable()
    near({2.0, 2.5694703142468787, 3.3010888478979767, 4.24102489968264, 5.448593790858196, 7.0}, g)
    assert.are.same({2, 7}, {g[1], g[6]})   -- the ends exactly
    local n = gpu.geomspace(-1, -1000, 4, {dtype = "float64"}):totable()
    near({-1, -10, -100, -1000}, n)
    assert.are.same({-1, -1000}, {n[1], n[4]})
    near({0.001, 0.009170040432046712, 0.08408964152537145, 0.7711054127039704, 7.071067811865475, 64.84197773255048,
          594.6035575013605, 5452.538663326288, 50000.0}, gpu.geomspace(1e-3, 5e4, 9, {dtype = "float64"}):totable())
    near({3.0, 1.8250930256796172, 1.11032151746146, 0.6754800192603065, 0.41093795737930633},
         gpu.geomspace(3, 0.25, 5, {endpoint = false, dtype = "float64"}):totable())
    assert.are.equal("float32", gpu.geomspace(1, 10, 3).dtype)
    assert.are.same({5}, gpu.geomspace(5, 9, 1, {dtype = "float64"}):totable())

    assert.matches("gpu.geomspace: a geometric sequence cannot include 0", err(gpu.geomspace, 0, 1, 3), 1, true)
    assert.matches("gpu.geomspace: start and stop must have one sign", err(gpu.geomspace, -1, 1, 3), 1, true)
    assert.matches("gpu.logspace: num must be a non-negative integer, got -2", err(gpu.logspace, 0, 1, -2), 1, true)
    assert.matches("gpu.logspace: stop must be a finite number, got inf", err(gpu.logspace, 0, math.huge, 2), 1, true)
  end)
end)

describe("the functions that copy elements", function()
  it("keep every dtype's elements and dtype", function()
    for _, dt in ipairs(gpu.dtypes) do
      local v = gpu.array({1, 0, 1, 1}, dt)
      assert.are.same({1, 1, 1, 0}, gpu.roll(v, -2):astype("int32"):totable(), dt)
      assert.are.same({1, 1, 0, 1, 1, 1, 0}, gpu.pad(v, {1, 2}, {mode = "wrap"}):astype("int32"):totable(), dt)
      local d = gpu.diag(v:narrow(1, 1, 2), 1)
      assert.are.same({{0, 1, 0}, {0, 0, 0}, {0, 0, 0}}, d:astype("int32"):totable(), dt)
      assert.are.same({{1, 0}, {1, 1}}, gpu.vstack(gpu.split(v, 2)):astype("int32"):totable(), dt)
      for _, r in ipairs({d, gpu.roll(v, 1), gpu.pad(v, 1), gpu.append(v, v), gpu.hstack({v, v})}) do
        assert.are.equal(dt, r.dtype)
      end
      assert.is_true(gpu.array_equal(v, gpu.pad(v, 0)), dt)
    end
  end)
end)

describe("a list of numbers (dims, sizes, split indices, shifts, widths)", function()
  it("with a hole is refused, naming the place: ipairs dropped what followed it", function()
    local a, x = a3(), gpu.arange(6)
    -- expand_dims({1, nil, 3}) gave {1, 6}, moveaxis moved two dims, split gave 2 pieces,
    -- indices({2, nil, 3}) had shape {1, 2}; NumPy raises for a None in each
    assert.matches("gpu.expand_dims: dim[2] is nil", err(gpu.expand_dims, x, {1, nil, 3}), 1, true)
    assert.matches("gpu.squeeze: dim[2] is nil", err(gpu.squeeze, gpu.ones({1, 3, 1}), {1, nil, 3}), 1, true)
    assert.matches("gpu.moveaxis: src[2] is nil", err(gpu.moveaxis, a, {1, nil, 2}, {3, nil, 1}), 1, true)
    assert.matches("gpu.moveaxis: dst[1] is nil", err(gpu.moveaxis, a, {1, 2}, {nil, 3}), 1, true)
    assert.matches("gpu.rot90: dims[1] is nil", err(gpu.rot90, a, 1, {nil, 2}), 1, true)
    assert.matches("gpu.split: sections[2] is nil", err(gpu.split, x, {2, nil, 4}), 1, true)
    assert.matches("gpu.array_split: sections[2] is nil", err(gpu.array_split, x, {2, nil, 4}), 1, true)
    assert.matches("gpu.hsplit: sections[1] is nil", err(gpu.hsplit, x, {nil, 4}), 1, true)
    assert.matches("gpu.roll: shift[2] is nil", err(gpu.roll, a, {1, nil, 1}, {1, 2, 3}), 1, true)
    assert.matches("gpu.roll: dim[2] is nil", err(gpu.roll, a, 1, {1, nil, 3}), 1, true)
    assert.matches("gpu.pad: width[2] is nil", err(gpu.pad, a, {{1, 1}, nil, {1, 1}}), 1, true)
    assert.matches("gpu.indices: shape[2] is nil", err(gpu.indices, {2, nil, 3}), 1, true)
    assert.matches("gpu.unravel_index: shape[2] is nil", err(gpu.unravel_index, 5, {2, nil, 3}), 1, true)
    assert.matches("gpu.broadcast_to: shape[2] is nil", err(gpu.broadcast_to, x, {2, nil, 6}), 1, true)
    assert.matches("gpu.ravel_multi_index: multi_index[1][2] is nil",
                   err(gpu.ravel_multi_index, {{1, nil, 2}, {1, 1, 1}}, {2, 3}), 1, true)
    -- a hole past the border # chose is one too
    local late = {2}
    late[3] = 3
    assert.matches("gpu.indices: shape[2] is nil", err(gpu.indices, late), 1, true)
    -- a key besides the list's, as the shapes' readers refuse it ({1, x = 3} was {1})
    assert.matches('gpu.expand_dims: dim must be a list, and the table has a key "x" besides its 1 elements',
                   err(gpu.expand_dims, x, {1, x = 3}), 1, true)
    -- lists without holes as before
    assert.are.same({1, 6, 1}, gpu.expand_dims(x, {1, 3}).shape)
    assert.are.same({4, 2, 3}, gpu.moveaxis(a, {1, 2}, {2, 3}).shape)
    assert.are.same({{0, 1}, {2, 3}, {4, 5}}, pieces(gpu.split(x, {3, 5})))
    assert.are.same({2, 2, 3}, gpu.indices({2, 3}).shape)
  end)
end)
