-- lua/sets.lua: set functions, lexsort, partition, digitize and the index functions. The
-- literals are NumPy 1.24's results for the same inputs (indices plus 1, gpuhost's 1-based
-- ones); partitions are checked by their property, as NumPy leaves the halves' order open.
local S = require("spec.support")

local nan = 0 / 0
local function same(want, got)
  if type(want) == "table" then
    assert.are.equal(#want, #got)
    for i = 1, #want do same(want[i], got[i]) end
  elseif want ~= want then
    assert.is_true(got ~= got, ("NaN expected, got %s"):format(tostring(got)))
  else
    assert.are.equal(want, got)
  end
end
local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end

-- n values of f(i), i = 0 .. n - 1, as the NumPy side made them
local function seq(n, f, dtype)
  local t = {}
  for i = 0, n - 1 do t[#t + 1] = f(i) end
  return gpu.array(t, dtype)
end

describe("set functions", function()
  local A = seq(40, function(i) return i * 7 % 13 end, "int64")
  local B = seq(25, function(i) return i * 5 % 11 + 3 end, "int32")

  it("give NumPy's sorted results and dtypes", function()
    local u = gpu.union1d(A, B)
    assert.are.equal("int64", u.dtype)
    same({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, u:totable())
    local c, i1, i2 = gpu.intersect1d(A, B, {return_indices = true})
    same({3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, c:totable())
    same({7, 9, 11, 13, 2, 4, 6, 8, 10, 12}, i1:totable())
    same({1, 10, 8, 6, 4, 2, 11, 9, 7, 5}, i2:totable())
    same(c:totable(), gpu.intersect1d(A, B):totable())
    local d = gpu.setdiff1d(A, B)
    assert.are.equal("int64", d.dtype)
    same({0, 1, 2}, d:totable())
    local e = gpu.setdiff1d(B, A)
    assert.are.equal("int32", e.dtype)
    same({13}, e:totable())
    same({0, 1, 2, 13}, gpu.setxor1d(A, B):totable())
    same({1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24},
         gpu.flatnonzero(gpu.in1d(B, A)):totable())
    same({3, 14, 25}, gpu.flatnonzero(gpu.in1d(B, A, {invert = true})):totable())
  end)

  it("treat NaN as NumPy does, and promote as its concatenate", function()
    local a = gpu.array({5, 1, 3, 3, 7, nan, 2}, "float64")
    local b = gpu.array({3, 2, 2, 9, nan}, "float32")
    same({false, false, true, true, false, false, true}, gpu.in1d(a, b):totable())
    same({1, 2, 3, 5, 7, 9, nan}, gpu.union1d(a, b):totable())
    same({1, 5, 7, nan}, gpu.setdiff1d(a, b):totable())
    same({1, 5, 7, 9, nan, nan}, gpu.setxor1d(a, b):totable())
    local c, i1, i2 = gpu.intersect1d(a, b, {return_indices = true})
    assert.are.equal("float64", c.dtype)
    same({2, 3}, c:totable()); same({7, 3}, i1:totable()); same({2, 1}, i2:totable())
    assert.are.equal("float64", gpu.union1d(gpu.empty({0}, "int64"), gpu.array({1.5}, "float32")).dtype)
  end)

  it("intersect1d converts before making each distinct: values that become one are one", function()
    -- uint64 with int8 meet in float64, where 2^64 - 1 and 2^64 - 2 are one number: it is
    -- in a only (NumPy 2, converting after, would pair a's two and return it too)
    local a = gpu.array({-1, -2, 3, 5}, "int64"):astype("uint64")
    local b = gpu.array({5, -1, 3}, "int8")
    local c, i1, i2 = gpu.intersect1d(a, b, {return_indices = true})
    assert.are.equal("float64", c.dtype)
    same({3, 5}, c:totable()); same({3, 4}, i1:totable()); same({3, 1}, i2:totable())
    same({3, 5}, gpu.intersect1d(b, a):totable())
    -- assume_unique sorts the two together, as NumPy's: a's two meet there
    same({3, 5, 2 ^ 64}, gpu.intersect1d(a, b, {assume_unique = true}):totable())
  end)

  it("setxor1d converts before making each distinct, as intersect1d", function()
    -- a's 2^64 - 1 and 2^64 - 2 are one float64, in a only (NumPy, converting after
    -- making each distinct, pairs them and returns {5})
    local a = gpu.array({-1, 3, -2}, "int64"):astype("uint64")
    local x = gpu.setxor1d(a, gpu.array({3, 5}, "int8"))
    assert.are.equal("float64", x.dtype)
    same({5, 2 ^ 64}, x:totable())
    same({5, 2 ^ 64}, gpu.setxor1d(gpu.array({3, 5}, "int8"), a):totable())
    -- in one dtype nothing changes: uint64 with uint64 keeps every bit
    same({1, 2}, gpu.setxor1d(gpu.array({1, 7}, "uint64"), gpu.array({7, 2}, "uint64")):totable())
  end)

  it("digitize reads the bins' order without a difference that wraps; repeats too many refused", function()
    -- NumPy: [3 2 1 0], [0 1 2], [2 1 0]
    same({3, 2, 1, 0}, gpu.digitize(gpu.array({0, 5, 9, 20}, "uint8"), gpu.array({15, 8, 1}, "uint8")):totable())
    same({0, 1, 2}, gpu.digitize(gpu.array({-120, 0, 120}, "int8"), gpu.array({-100, 100}, "int8")):totable())
    same({2, 1, 0}, gpu.digitize(gpu.array({-120, 0, 120}, "int8"), gpu.array({100, -100}, "int8")):totable())
    err("bins must be monotonically increasing or decreasing", gpu.digitize, gpu.array({1}), gpu.array({1, 3, 2}))
    -- n * repeats past 2^63 - 1 wrapped to a small size and returned a wrong array
    local a = gpu.arange(4, "int64")
    err("gpu.repeat: 4611686018427387905 repeats of 4 elements are too many", gpu["repeat"], a, (1 << 62) + 1)
    err("gpu.repeat: the repeats add up to too many elements", gpu["repeat"], a, {1 << 62, 1 << 62, 1 << 62, 2})
    err("gpu.tile: 4611686018427387905 repetitions of 4 elements are too many", gpu.tile, a, (1 << 62) + 1)
    err("gpu.repeat_interleave: 4611686018427387905 repeats of 4 elements", gpu.repeat_interleave, a, (1 << 62) + 1)
    same({0, 2, 2}, gpu["repeat"](gpu.arange(3, "int64"), {1, 0, 2}):totable())
  end)

  it("keep assume_unique's order and handle empty arrays", function()
    same({4, 1}, gpu.setdiff1d(gpu.array({4, 1, 3}, "int64"), gpu.array({3}, "int64"), {assume_unique = true}):totable())
    local c, i1, i2 = gpu.intersect1d(gpu.empty({0}), gpu.arange(3), {return_indices = true})
    assert.are.same({{0}, {0}, {0}}, {c.shape, i1.shape, i2.shape})
    assert.are.equal(0, gpu.setxor1d(gpu.empty({0}), gpu.empty({0})).size)
    assert.are.equal(0, gpu.setdiff1d(gpu.empty({0}), gpu.arange(3)).size)
    same({1, 2}, gpu.union1d(gpu.empty({0}), gpu.array({{2, 1}})):totable())
  end)

  it("refuse what has no order or is not an array", function()
    err("gpu.union1d: ar2 must be a device array, got table", gpu.union1d, A, {1, 2})
    err("gpu.intersect1d: ar1 is complex: it has no order", gpu.intersect1d, gpu.zeros(1, "complex64"), A)
    err("gpu.setdiff1d: argument 3 must be a table of options, got boolean", gpu.setdiff1d, A, B, true)
  end)
end)

describe("sorts", function()
  local function keys()
    return seq(30, function(i) return i * 3 % 5 end, "int64"), seq(30, function(i) return i * 7 % 4 end, "int32"),
           seq(30, function(i) return i * 11 % 3 end, "float32")
  end

  it("lexsort: the last key first, as NumPy's", function()
    local k1, k2, k3 = keys()
    same({1, 13, 25, 16, 28, 4, 7, 19, 10, 22, 21, 9, 12, 24, 3, 15, 27, 6, 18, 30, 5, 17, 29, 8, 20, 11, 23, 26, 2, 14},
         gpu.lexsort({k1, k2, k3}):totable())
    same({1, 21, 13, 5, 25, 17, 9, 29, 16, 8, 28, 20, 12, 4, 24, 11, 3, 23, 15, 7, 27, 19, 6, 26, 18, 10, 30, 2, 22, 14},
         gpu.lexsort(gpu.stack({k1, k2:astype("int64")})):totable())
    err("gpu.lexsort: keys is empty", gpu.lexsort, {})
    err("gpu.lexsort: keys[2] has shape {4}: every key must be 1-D of length 3", gpu.lexsort, {gpu.arange(3), gpu.arange(4)})
    -- a key besides the list's was dropped, and a hole named gpu.take ("a device array expected as argument 1, got nil")
    err('gpu.lexsort: keys has a key "dim" besides its 2 elements', gpu.lexsort, {k1, k2, dim = 1})
    local holed = {k1}
    holed[3] = k3
    err("gpu.lexsort: keys has a key 3 besides its 1 elements", gpu.lexsort, holed)
    err("gpu.lexsort: keys[2] must be a device array, got nil", gpu.lexsort, {k1, nil, k3})
  end)

  -- v (a 1-D table) is partitioned at k: nothing before is above v[k], nothing after below
  local function partitioned(v, k, all)
    local sorted = {table.unpack(all)}
    table.sort(sorted)
    assert.are.equal(sorted[k], v[k])
    for i = 1, #v do
      if i < k then assert.is_true(v[i] <= v[k]) elseif i > k then assert.is_true(v[i] >= v[k]) end
    end
  end

  it("partition and argpartition: the kth element in place, the rest on its sides", function()
    local a = seq(31, function(i) return i * 17 % 31 - 10 end, "float32")
    local all = a:totable()
    for _, k in ipairs({1, 10, 31, -1}) do
      local kk = k < 0 and 31 + k + 1 or k
      partitioned(gpu.partition(a, k):totable(), kk, all)
      partitioned(gpu.take(a, gpu.argpartition(a, k)):totable(), kk, all)
    end
    local m = a:narrow(1, 1, 30):reshape(5, 6)
    local p = gpu.partition(m, {2, 4}, 1)
    for j = 1, 6 do partitioned(p:select(2, j):totable(), 2, m:select(2, j):totable()) end
    err("gpu.partition: kth 32 is out of range for dimension 1 of size 31", gpu.partition, a, 32)
    -- a string was shown as the number ("kth must be an integer, got 2")
    err('gpu.partition: kth must be an integer, got a string ("2")', gpu.partition, a, "2")
    -- a hole in kth: {2, nil, 99} went unchecked past the 2
    err("gpu.partition: kth[2] is nil", gpu.partition, a, {2, nil, 99})
    err('gpu.argpartition: dim must be an integer, got a string ("1")', gpu.argpartition, a, 2, "1")
    err("gpu.argpartition: a 0-D array has no dimension to partition", gpu.argpartition, gpu.full({}, 1), 1)
  end)

  it("digitize: NumPy's bin numbers, increasing or decreasing bins, right or not", function()
    local x = gpu.array({-1.5, 0, 0.5, 1, 2.49, 2.5, 3, 9.99, 10, 11, nan}, "float64")
    local bins = gpu.array({0, 1, 2.5, 4, 10}, "float64")
    local down = gpu.flip(bins)
    same({0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 5}, gpu.digitize(x, bins):totable())
    same({0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 5}, gpu.digitize(x, bins, true):totable())
    same({5, 4, 4, 3, 3, 2, 2, 1, 0, 0, 0}, gpu.digitize(x, down):totable())
    same({5, 5, 4, 4, 3, 3, 2, 1, 1, 0, 0}, gpu.digitize(x, down, true):totable())
    assert.are.equal(3, gpu.digitize(2.5, {0, 1, 2.5}))
    assert.are.equal("int64", gpu.digitize(x, bins).dtype)
    err("gpu.digitize: bins must be monotonically increasing or decreasing", gpu.digitize, x, {1, 3, 2})
    -- an options table: {right = false} read as right (a table is true)
    same({0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 5}, gpu.digitize(x, bins, {right = false}):totable())
    same({5, 5, 4, 4, 3, 3, 2, 1, 1, 0, 0}, gpu.digitize(x, down, {right = true}):totable())
    same({0, 1, 1, 2, 2, 3, 3, 4, 5, 5, 5}, gpu.digitize(x, bins, {}):totable())
    err("gpu.digitize: unknown option 'rigth'", gpu.digitize, x, bins, {rigth = true})
    err("gpu.digitize: right must be a boolean (or an options table {right = boolean}), got number", gpu.digitize, x, bins, {right = 1})
    err("gpu.digitize: right must be a boolean (or an options table {right = boolean}), got string", gpu.digitize, x, bins, "yes")
  end)

  it("digitize takes bins that end in NaN as NumPy does (above every number)", function()
    local x = gpu.array({0, 1, 1.5, 2, 5, nan}, "float64")
    same({1, 2}, gpu.digitize(gpu.array({1, 5}, "float64"), gpu.array({1, 2, nan}, "float64")):totable())
    same({0, 1, 1, 2, 2, 3}, gpu.digitize(x, {1, 2, nan}):totable())
    same({0, 0, 1, 1, 2, 2}, gpu.digitize(x, {1, 2, nan}, true):totable())
    same({0, 1, 1, 2, 2, 4}, gpu.digitize(x, {1, 2, nan, nan}):totable())
    same({0, 0, 0, 0, 0, 1}, gpu.digitize(x, {nan}):totable())
    same({2, 2, 2, 2, 2, 0}, gpu.digitize(x, {nan, nan}):totable())   -- all NaN: decreasing, as NumPy reads them
    same({2, 2, 2, 2, 2, 2}, gpu.digitize(x, {nan, nan}, true):totable())
    assert.are.equal(2, gpu.digitize(5, {1, 2, nan}))
    assert.are.equal(0, gpu.digitize(nan, {nan, nan}))
    -- NumPy takes these too, but its answers follow no order ([1, nan, nan, nan, nan] puts 6 past the NaNs)
    err("gpu.digitize: bins that do not increase must not end in NaN", gpu.digitize, x, {3, 2, nan})
    err("gpu.digitize: bins that do not increase must not end in NaN", gpu.digitize, x, {2, 2, nan})
    err("(a NaN may only end them)", gpu.digitize, x, {1, nan, 2})
  end)
end)

describe("gathers and writes along a dimension", function()
  local a3 = seq(24, function(i) return i % 5 end, "float64"):reshape(2, 3, 4)

  it("take_along_axis: NumPy's result, indices broadcast against the other dims", function()
    local idx = gpu.argsort(a3, 2)
    same({{{1, 2, 3, 3}, {3, 1, 2, 2}, {2, 3, 1, 1}}, {{3, 3, 3, 1}, {2, 2, 2, 3}, {1, 1, 1, 2}}}, idx:totable())
    same({{{0, 0, 0, 1}, {3, 1, 1, 2}, {4, 4, 2, 3}}, {{0, 1, 2, 0}, {1, 2, 3, 3}, {2, 3, 4, 4}}},
         gpu.take_along_axis(a3, idx, 2):totable())
    local b = gpu.take_along_axis(a3, gpu.array({{{1}, {3}, {-3}}}, "int64"), 3)
    assert.are.same({2, 3, 1}, b.shape)
    same({{{0}, {1}, {4}}, {{2}, {3}, {1}}}, b:totable())
    same({4, 0}, gpu.take_along_axis(gpu.arange(5), gpu.array({-1, 1}, "int64")):totable())
    err("gpu.take_along_axis: index 5 is out of range for dimension 3 of size 4", gpu.take_along_axis, a3,
        gpu.array({{{5}}}, "int64"), 3)
    err("gpu.take_along_axis: indices and a must have the same number of dimensions, got 1 and 3",
        gpu.take_along_axis, a3, gpu.array({1}, "int64"), 1)
    err("gpu.take_along_axis: indices must be an integer array, a table or a number, got float32 array",
        gpu.take_along_axis, a3, gpu.ones({1, 1, 1}), 1)
  end)

  it("put_along_axis: in place, values broadcast, the later of two writes kept", function()
    local b = a3:copy()
    gpu.put_along_axis(b, gpu.array({{{4, 1}}, {{2, 2}}}, "int64"), gpu.array({{{-1, -2}}}, "float64"), 3)
    same({{{-2, 1, 2, -1}, {-2, 0, 1, -1}, {-2, 4, 0, -1}}, {{2, -2, 4, 0}, {1, -2, 3, 4}, {0, -2, 2, 3}}}, b:totable())
    err("gpu.put_along_axis: values of shape {3} does not broadcast to {2, 1}", gpu.put_along_axis,
        gpu.zeros({2, 3}), gpu.array({{1}, {1}}, "int64"), gpu.arange(3), 2)
  end)
end)

describe("writes at indices and masks", function()
  it("put: flat indices, values cycled, the last of repeated indices kept", function()
    local c = gpu.arange(5, "int64")
    gpu.put(c, {1, 3, 1}, {-44, -55, -66})
    same({-66, 1, -55, 3, 4}, c:totable())
    local m = gpu.zeros({2, 3}, "float32"):transpose()      -- C order of the view, as NumPy's
    gpu.put(m, gpu.array({-1, 2}, "int32"), 7.5)
    same({{0, 7.5}, {0, 0}, {0, 7.5}}, m:totable())
    err("gpu.put: index 7 is out of range for a flattened of size 6 (1-based; -6 to -1 from the end)",
        gpu.put, gpu.zeros({2, 3}), {7}, 1)
    -- an empty array says so (it said -0 to -1 from the end)
    err("gpu.put: index 1 is out of range for a flattened of size 0: the array is empty", gpu.put, gpu.zeros({0}), {1}, 5)
    err('gpu.put: ind[1] must be an integer, got a string ("2")', gpu.put, gpu.zeros({3}), {"2"}, 5)   -- (it said got 2)
    -- no values write nothing, as NumPy 2's put (it said "cannot take values from an empty array")
    local z = gpu.arange(1, 11, "int64")
    gpu.put(z, {1}, gpu.empty({0}, "int64"))
    gpu.put(z, {100, -50}, {})
    same({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, z:totable())
    err("gpu.insert: index 2 is out of range for dimension 1 of size 0: the array is empty, so 1 (after the last) is the only index",
        gpu.insert, gpu.zeros({0}), 2, 5)
  end)

  it("place cycles values over the true elements, putmask over all", function()
    local d = gpu.arange(6, "int64"):reshape(2, 3)
    gpu.place(d, d:gt(2), {44, 55})
    same({{0, 1, 2}, {44, 55, 44}}, d:totable())
    local e = gpu.arange(6, "int64"):reshape(2, 3)
    gpu.putmask(e, e:gt(2), gpu.array({-33, -44}, "int64"))
    same({{0, 1, 2}, {-44, -33, -44}}, e:totable())
    err("gpu.place: cannot insert from an empty array", gpu.place, d, gpu.ones(6, "bool"), {})
    err("gpu.putmask: mask has 2 elements but a has 6", gpu.putmask, e, {true, false}, 1)
  end)

  it("place and putmask cast a device array of values by NumPy's 'safe' rule", function()
    local a = gpu.zeros({3}, "int8")
    local all = gpu.ones({3}, "bool")
    err("gpu.putmask: cannot cast values of float64 to a's int8 by NumPy's 'safe' rule (astype them first)",
        gpu.putmask, a, all, gpu.array({300, 2.7, -1}, "float64"))
    err("gpu.place: cannot cast vals of int64 to a's int8 by NumPy's 'safe' rule (astype them first)",
        gpu.place, a, all, gpu.array({1, 2, 3}, "int64"))
    err("gpu.putmask: cannot cast values of complex64 to a's float64 by NumPy's 'safe' rule (astype them first)",
        gpu.putmask, gpu.zeros(3, "float64"), all, gpu.array({1}, "complex64"))
    same({0, 0, 0}, a:totable())                      -- nothing written by the refusals
    gpu.putmask(a, all, gpu.array({1, 2}, "int8"))
    same({1, 2, 1}, a:totable())
    gpu.place(a, all, gpu.array({true}, "bool"))
    same({1, 1, 1}, a:totable())
    local f = gpu.zeros({3}, "float64")
    gpu.putmask(f, all, gpu.array({1.5}, "float32"))  -- safe: widened
    same({1.5, 1.5, 1.5}, f:totable())
    gpu.place(f, all, {2, 3})                         -- tables and numbers are a's dtype, as NumPy's lists
    same({2, 3, 2}, f:totable())
  end)

  it("copyto: broadcast, where, NumPy's same_kind casting", function()
    local f = gpu.zeros({2, 3}, "float32")
    gpu.copyto(f, gpu.array({1, 2, 3}, "int64"))
    same({{1, 2, 3}, {1, 2, 3}}, f:totable())
    gpu.copyto(f, 7, {where = gpu.array({true, false, true}, "bool")})
    same({{7, 2, 7}, {7, 2, 7}}, f:totable())
    err("gpu.copyto: cannot cast float32 to int64 under the same_kind rule", gpu.copyto, gpu.zeros(3, "int64"), gpu.ones(3))
    err("gpu.copyto: cannot cast number to uint8 under the same_kind rule", gpu.copyto, gpu.zeros(3, "uint8"), -1)
    err("gpu.copyto: where of shape {4} does not broadcast to {2, 3}", gpu.copyto, f, 1, {where = gpu.ones(4, "bool")})
    gpu.copyto(f, 0, {where = false})
    same({{7, 2, 7}, {7, 2, 7}}, f:totable())
    local i8 = gpu.zeros(3, "int8")   -- a boolean is 1 or 0, a safe cast as NumPy's True
    gpu.copyto(i8, true)
    same({1, 1, 1}, i8:totable())
  end)
end)

describe("selections", function()
  local a = gpu.array({{10, 30, 20}, {60, 40, 50}}, "int64")

  it("compress: the slices where the condition is true", function()
    same({{30, 20}, {40, 50}}, gpu.compress({false, true, true}, a, 2):totable())
    same({{60, 40, 50}}, gpu.compress({false, true}, a, 1):totable())
    same({30, 20}, gpu.compress(gpu.array({false, true, true}, "bool"), a):totable())
    err("gpu.compress: condition is true at 3, past dimension 1's 2 elements", gpu.compress, {true, true, true}, a, 1)
  end)

  it("choose and select", function()
    local ch = {}
    for k = 0, 3 do ch[k + 1] = gpu.arange(4, "int64") + 10 * k end
    same({0, 31, 12, 23}, gpu.choose(gpu.array({1, 4, 2, -2}, "int64"), ch):totable())
    err("gpu.choose: index 3 is out of range for choices of size 2", gpu.choose, gpu.array({1, 3}, "int64"), {ch[1], ch[2]})
    -- the choice, not gpu.where's argument 3 (NumPy 1.24 promotes to int16; gpuhost takes NumPy 2's rule)
    err("gpu.choose: choices[2]: 1000 is out of range for int8", gpu.choose, gpu.array({1, 2}, "int64"), {gpu.array({1, 2}, "int8"), 1000})
    err("gpu.choose: choices[1]: 1000 is out of range for int8", gpu.choose, gpu.array({1, 2}, "int64"), {1000, gpu.array({1, 2}, "int8")})
    local x = gpu.arange(6, "float32")
    local s = gpu.select({x:lt(3), x:gt(3)}, {x, x * x}, 42)
    assert.are.equal("float32", s.dtype)
    same({0, 1, 2, 42, 16, 25}, s:totable())
    same({0, 1, 2, 0, 4, 5}, gpu.select({x:ne(3)}, {x}):totable())
    err("gpu.select: condlist[1] must be a bool array, got float32 array", gpu.select, {x}, {x})
    err("gpu.select: condlist and choicelist must be of one length, got 1 and 0", gpu.select, {x:gt(0)}, {})
    err("gpu.select: choicelist[1] must be a device array or a number, got string", gpu.select, {x:gt(0)}, {"x"})
    -- keys besides the lists' were dropped: {x:gt(5), default = 9} gave 0s, mode = "clip" was taken
    err('gpu.select: condlist has a key "default" besides its 1 elements', gpu.select, {x:gt(5), default = 9}, {x})
    err('gpu.select: choicelist has a key "x" besides its 1 elements', gpu.select, {x:gt(5)}, {x, x = 1})
    err("gpu.select: condlist[2] must be a bool array, got nil", gpu.select, {x:gt(4), nil, x:gt(1)}, {x, x, x})
    err('gpu.choose: choices has a key "mode" besides its 2 elements', gpu.choose, gpu.array({1, 2}, "int64"),
        {ch[1], ch[2], mode = "clip"})
    -- where's errors in select's words (they named gpu.where and its argument 3)
    local i8 = gpu.array({1, 2, 3}, "int8")
    err("gpu.select: default: 300 is out of range for int8", gpu.select, {i8:gt(1)}, {i8}, 300)
    err("gpu.select: shapes {3} and {2} do not broadcast", gpu.select, {i8:gt(1)}, {gpu.ones(2)}, 0)
    err("gpu.select: default must be a device array or a number, got string", gpu.select, {i8:gt(1)}, {i8}, "zero")
  end)

  it("delete and insert: 1-based places, NumPy's shapes of values", function()
    same({{10, 20}, {60, 50}}, gpu.delete(a, 2, 2):totable())
    same({1, 2, 3, 4}, gpu.delete(gpu.arange(6, "int64"), {1, -1}):totable())
    same({{60, 40, 50}}, gpu.delete(a, gpu.array({true, false}, "bool"), 1):totable())
    same({0, 99, 1, 2, 3, 4}, gpu.insert(gpu.arange(5, "int64"), 2, 99):totable())
    same({0, 90, 91, 1, 2, 3, 93, 4, 92}, gpu.insert(gpu.arange(5, "int64"), {2, 2, 6, -1}, {90, 91, 92, 93}):totable())
    same({{10, 5, 30, 20}, {60, 5, 40, 50}}, gpu.insert(a, 2, 5, 2):totable())
    same({{10, 7, 30, 20}, {60, 8, 40, 50}}, gpu.insert(a, 2, {7, 8}, 2):totable())
    same({{10, 7, 30, 20}, {60, 8, 40, 50}}, gpu.insert(a, {2}, {{7}, {8}}, 2):totable())
    err("gpu.delete: index 4 is out of range for dimension 2 of size 3", gpu.delete, a, 4, 2)
    err("gpu.insert: index 5 is out of range for dimension 2 of size 3", gpu.insert, a, 5, 1, 2)
    err("gpu.insert: values of shape {1, 3} does not broadcast to {2, 1}", gpu.insert, a, {2}, {1, 2, 3}, 2)
    -- extra leading 1s go, as NumPy's setitem drops them: np.insert(np.arange(4.), 0, [[5]]) is [5, 0, 1, 2, 3]
    same({5, 0, 1, 2, 3}, gpu.insert(gpu.arange(4, "float64"), 1, {{5}}):totable())
    same({0, 5, 1, 6, 2, 3}, gpu.insert(gpu.arange(4, "float64"), {2, 3}, {{5, 6}}):totable())   -- NumPy's too
    err("gpu.insert: values of shape {1, 2} does not broadcast to {1}", gpu.insert, gpu.arange(4, "float64"), 1, {{5, 6}})
    -- a hole in a table of indices said gpu.array's words alone ("element [2] (nil) expected a number for int64")
    err("gpu.delete: obj[2] is nil", gpu.delete, gpu.arange(6, "int64"), {1, nil, 3})
    err("gpu.insert: obj[2] is nil", gpu.insert, gpu.arange(6, "int64"), {1, nil, 3}, 0)
  end)

  it("resize, repeat (gpu[\"repeat\"] and a[\"repeat\"]) and trim_zeros", function()
    same({{0, 1, 2}, {3, 0, 1}}, gpu.resize(gpu.array({{0, 1}, {2, 3}}, "int64"), {2, 3}):totable())
    same({0, 0, 0}, gpu.resize(gpu.empty({0}), 3):totable())
    same({10, 10, 30, 30, 20, 20, 60, 60, 40, 40, 50, 50}, gpu["repeat"](a, 2):totable())
    same({{10, 30, 20}, {60, 40, 50}, {60, 40, 50}}, gpu["repeat"](a, {1, 2}, 1):totable())
    same({{30, 30, 20}, {40, 40, 50}}, a["repeat"](a, gpu.array({0, 2, 1}, "int64"), 2):totable())
    err("gpu.repeat: repeats has 3 elements for dimension 1 of 6", gpu["repeat"], a, {1, 2, 3})
    local z = gpu.array({0, 0, 0, 1, 2, 3, 0, 2, 1, 0})
    same({1, 2, 3, 0, 2, 1}, gpu.trim_zeros(z):totable())
    same({0, 0, 0, 1, 2, 3, 0, 2, 1}, gpu.trim_zeros(z, "b"):totable())
    assert.are.equal(0, gpu.trim_zeros(gpu.zeros(3)).size)
    err("gpu.resize: shape[1] is negative (-1)", gpu.resize, a, {-1})
    err("gpu.resize: shape[2] is nil", gpu.resize, a, {2, nil, 3})   -- (it said "shape[2] must be a size or -1")
  end)
end)

-- NumPy's unique with an axis: gpu.unique(a, {dim = d}), the distinct slices along d
describe("gpu.unique along a dim", function()
  local a = gpu.array({{1, 0, 0}, {1, 0, 0}, {2, 3, 4}, {0, 5, 1}, {2, 3, 4}}, "int64")

  it("gives NumPy's slices, first indices, inverse and counts", function()
    local u, i, inv, c = gpu.unique(a, {dim = 1, index = true, inverse = true, counts = true})
    same({{0, 5, 1}, {1, 0, 0}, {2, 3, 4}}, u:totable())
    assert.are.equal("int64", u.dtype)
    same({4, 1, 3}, i:totable())
    same({2, 2, 3, 1, 3}, inv:totable())
    same({1, 2, 2}, c:totable())
    u, i, inv, c = gpu.unique(a, {dim = 2, index = true, inverse = true, counts = true})
    same({{0, 0, 1}, {0, 0, 1}, {3, 4, 2}, {5, 1, 0}, {3, 4, 2}}, u:totable())
    same({2, 3, 1}, i:totable())
    same({3, 1, 2}, inv:totable())
    same({1, 1, 1}, c:totable())
    same(gpu.unique(a, {dim = 1}):totable(), a:unique({dim = -2}):totable())
  end)

  it("takes N-D arrays, empty ones and NaNs as NumPy does", function()
    local b = gpu.array({{{1, 2}, {1, 2}}, {{0, 1}, {1, 2}}, {{1, 2}, {1, 2}}})
    local u, inv = gpu.unique(b, {dim = 1, inverse = true})
    same({{{0, 1}, {1, 2}}, {{1, 2}, {1, 2}}}, u:totable())
    same({2, 1, 2}, inv:totable())
    local _, c = gpu.unique(b, {dim = 3, counts = true})
    same({1, 1}, c:totable())
    same({3, 2, 2}, gpu.unique(b, {dim = -1}).shape)
    same({1, 0}, gpu.unique(gpu.zeros({3, 0}), {dim = 1}).shape)   -- slices of nothing: one
    local e, ei = gpu.unique(gpu.zeros({0, 3}), {dim = 1, index = true})
    same({0, 3}, e.shape)
    same({0}, ei.shape)
    local n, nc = gpu.unique(gpu.array({{nan}, {nan}, {1}}), {dim = 1, counts = true})
    same({{1}, {nan}, {nan}}, n:totable())   -- NaNs differ from each other
    same({1, 1, 1}, nc:totable())
    same({1, 3}, gpu.unique(gpu.array({3, 1, 3}), {dim = 1}):totable())
  end)

  it("takes a stream, which gives the same slices", function()
    -- np.unique([[1, 2], [3, 4], [1, 2], [0, 9]], axis=0, return_index=True, return_inverse=True,
    -- return_counts=True): [[0, 9], [1, 2], [3, 4]], [3, 0, 1], [1, 2, 1, 0], [1, 2, 1]
    local s = gpu.stream()
    local u, i, inv, c = gpu.unique(gpu.array({{1, 2}, {3, 4}, {1, 2}, {0, 9}}),
                                    {dim = 1, index = true, inverse = true, counts = true, stream = s})
    s:synchronize()
    same({{0, 9}, {1, 2}, {3, 4}}, u:totable())
    same({4, 1, 2}, i:totable())
    same({2, 3, 2, 1}, inv:totable())
    same({1, 2, 1}, c:totable())
    same({0, 3}, gpu.unique(gpu.zeros({0, 3}), {dim = 1, stream = s}).shape)
    err("gpu.unique: stream must be a gpu.stream, got number", gpu.unique, a, {dim = 1, stream = 1})
  end)

  it("refuses what NumPy refuses", function()
    err("gpu.unique: dim 3 is out of range", gpu.unique, a, {dim = 3})
    err("gpu.unique: a 0-D array has no dim 1", gpu.unique, gpu.zeros({}), {dim = 1})
    err("complex", gpu.unique, gpu.zeros({2, 2}, "complex64"), {dim = 1})
    err("gpu.unique: unknown option 'axis'", gpu.unique, a, {dim = 1, axis = 0})
  end)
end)

describe("#multi the index functions", function()
  it("name the argument on another device (gpu.put said gpu.lt: the arrays are on device 1)", function()
    local a = gpu.arange(3)
    local i = gpu.with_device(1, function() return gpu.array({1}, "int64") end)
    err("gpu.put: ind on device 1, and device 0 is current", gpu.put, a, i, 5)
  end)
end)
