-- Elementwise operations on device arrays: each operator and function against the same
-- computation done in Lua (float32 results rounded as float32 rounds, integers wrapping
-- as they wrap), broadcasting, out=, streams, layouts (contiguous, strided over 1 to 8
-- dimensions, transposing copies), and the bad inputs.
local S = require("spec.support")

local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end
local function wrap(x, bits, signed)   -- an integer as a C integer of `bits` bits holds it
  local m = 1 << bits
  x = x & (m - 1)
  if signed and x >= m >> 1 then x = x - m end
  return x
end
local function map(t, f) local r = {} for i, v in ipairs(t) do r[i] = f(v, i) end return r end
local function zip(a, b, f) local r = {} for i = 1, #a do r[i] = f(a[i], b[i]) end return r end

local A = {1.5, -2.25, 3, 1e-3, -7.75, 100, 0.1, -0.5, 12345.678}
local B = {0.5, 4, -3, 2.5e-2, 0.3, -8, 3.3, 7, -0.125}

describe("arithmetic", function()
  local a, b = gpu.array(A), gpu.array(B)
  local fa, fb = map(A, f32), map(B, f32)

  it("+ - * / on float32 round as float32 does", function()
    assert.are.same(zip(fa, fb, function(x, y) return f32(x + y) end), (a + b):totable())
    assert.are.same(zip(fa, fb, function(x, y) return f32(x - y) end), (a - b):totable())
    assert.are.same(zip(fa, fb, function(x, y) return f32(x * y) end), (a * b):totable())
    assert.are.same(zip(fa, fb, function(x, y) return f32(x / y) end), (a / b):totable())
    assert.are.same(map(fa, function(x) return f32(x * 2.5) end), (a * 2.5):totable())
    assert.are.same(map(fa, function(x) return f32(1 - x) end), (1 - a):totable())
    assert.are.same(map(fa, function(x) return -x end), (-a):totable())
    assert.are.equal("float32", (a * 2.5).dtype)
  end)

  it("take each call's own kernel when a call with a number came between calls with arrays", function()
    -- the fast path for repeated calls of arrays only once kept a number's call's dtypes with
    -- the kernel of the call before: float64 * int64 ran float32 * int64's kernel
    local f64 = gpu.array({70, 560}, "float64")
    assert.are.same({3}, (gpu.array({3}, "float32") * gpu.array({1}, "int64")):totable())
    assert.are.same({140, 1120}, (f64 * 2):totable())
    assert.are.same({70, 560}, (f64 * gpu.array({1, 1}, "int64")):totable())
    assert.are.same({140, 1120}, (f64 + f64):totable())
    assert.are.same({1, 1}, (1 + gpu.array({0, 0}, "int8")):totable())
    assert.are.same({71, 561}, (f64 + gpu.array({1, 1}, "int8")):totable())
  end)

  it("keep integer types, wrapping, with Python's floor division and remainder", function()
    local I, J = {7, -7, 100, -128, 127, 5, 0, -1}, {2, 2, -3, -1, 1, 0, 3, 2}
    local x, y = gpu.array(I, "int8"), gpu.array(J, "int8")
    assert.are.same(zip(I, J, function(p, q) return wrap(p + q, 8, true) end), (x + y):totable())
    assert.are.same(zip(I, J, function(p, q) return wrap(p * q, 8, true) end), (x * y):totable())
    assert.are.same(zip(I, J, function(p, q) return q == 0 and 0 or wrap(p // q, 8, true) end), (x // y):totable())
    assert.are.same(zip(I, J, function(p, q) return q == 0 and 0 or p % q end), (x % y):totable())
    assert.are.equal("int8", (x + 1).dtype)
    assert.are.same({-128, 127, 1}, (gpu.array({127, -128, 0}, "int8") + gpu.array({1, -1, 1}, "int8")):totable())
    local u = gpu.array({250, 3}, "uint8")
    assert.are.same({4, 13}, (u + 10):totable())
    assert.are.same({252, 0}, (u - u + 252 * gpu.array({1, 0}, "uint8")):totable())
    local big = gpu.array({math.maxinteger, math.mininteger}, "int64")
    assert.are.same({math.mininteger, math.maxinteger}, (big + gpu.array({1, -1}, "int64")):totable())
    assert.are.same({3.5, -3.5}, (gpu.array({7, -7}, "int32") / 2):totable())
  end)

  it("raise to powers: floats and integers (by squaring, wrapping)", function()
    assert.are.same({1, 8, 81}, (gpu.array({1, 2, 3}, "int32") ^ gpu.array({5, 3, 4}, "int32")):totable())
    assert.are.same({0, 1, 4, 9}, (gpu.arange(4, "int64") ^ 2):totable())
    assert.are.equal("int64", (gpu.arange(4, "int64") ^ 2).dtype)
    assert.are.equal("float64", (gpu.arange(4, "int64") ^ 2.0).dtype)
    local p = (gpu.array({2, 9}) ^ 0.5):totable()
    assert.is_true(math.abs(p[1] - math.sqrt(2)) < 1e-6 and p[2] == 3)
    assert.are.same({1, 0, -1}, (gpu.array({1, 2, -1}, "int32") ^ gpu.array({-1, -1, -1}, "int32")):totable())
    assert.matches("gpu.pow: integers to negative integer powers are not allowed",
                   S.errof(function() return gpu.arange(3, "int32") ^ -1 end), 1, true)
  end)

  it("bitwise and shift integers and bools, NumPy's way past the width", function()
    local x = gpu.array({12, -5, 255}, "int16")
    assert.are.same({8, 3, 0}, (x & gpu.array({10, 3, 256}, "int16")):totable())
    assert.are.same({14, -5, 255}, (x | 2):totable())
    assert.are.same({6, 4, 254}, (x ~ gpu.array({10, -1, 1}, "int16")):totable())
    assert.are.same({-13, 4, -256}, (~x):totable())
    assert.are.same({48, -20, 0}, (x << gpu.array({2, 2, 16}, "int16")):totable())
    assert.are.same({3, -1, 0}, (x >> gpu.array({2, 20, 9}, "int16")):totable())
    local t, f = gpu.array({true, true, false}, "bool"), gpu.array({true, false, false}, "bool")
    assert.are.same({true, false, false}, (t & f):totable())
    assert.are.same({false, true, false}, (t ~ f):totable())
    assert.are.same({false, false, true}, (~t):totable())
    assert.are.same({true, true, false}, (t + f):totable())   -- bool + bool: or, as NumPy
  end)

  it("compare into bool arrays, integers of any two types exactly", function()
    local x = gpu.array({1, 2, 3}, "int32")
    assert.are.same({true, false, false}, x:lt(2):totable())
    assert.are.same({true, true, false}, x:le(2):totable())
    assert.are.same({false, false, true}, x:gt(2):totable())
    assert.are.same({false, true, true}, x:ge(2):totable())
    assert.are.same({false, true, false}, x:eq(2):totable())
    assert.are.same({true, false, true}, gpu.ne(x, 2):totable())
    assert.are.equal("bool", x:eq(2).dtype)
    assert.are.same({true, true, true}, gpu.array({1, 2, 3}, "uint8"):lt(300):totable())   -- NumPy 2 too
    assert.are.same({false, false}, gpu.array({0, 2^63}, "uint64"):eq(gpu.array({-1, math.mininteger}, "int64")):totable())
    assert.are.same({true, false}, gpu.array({-1, 5}, "int64"):lt(gpu.array({0, 5}, "uint64")):totable())
    -- uint64 with int64 (whose common type is float64, which rounds both): exactly too
    local u = gpu.array({math.mininteger, 1 << 53}, "uint64")                 -- 2^63, 2^53
    local i = gpu.array({math.maxinteger, (1 << 53) + 1}, "int64")            -- 2^63 - 1, 2^53 + 1
    assert.are.same({false, false}, u:eq(i):totable())
    assert.are.same({true, false}, u:gt(i):totable())
    assert.are.same({false, true}, i:gt(u):totable())
    assert.is_false(gpu.array_equal(u, i))
    local nan = gpu.array({0 / 0, 1})
    assert.are.same({false, true}, nan:eq(nan):totable())
    assert.are.same({false, false}, nan:lt(0):totable())
    assert.are.same({true, false}, nan:ne(nan):totable())
    assert.matches("compare arrays with a:lt(b)", S.errof(function() return x < x end), 1, true)
  end)

  it("where, logical_and/or/xor/not, maximum, minimum, clip (NaN propagates)", function()
    local c = gpu.array({true, false, true}, "bool")
    assert.are.same({1, -2, 3}, gpu.where(c, gpu.array({1, 2, 3}), gpu.array({-1, -2, -3})):totable())
    assert.are.equal("int64", gpu.where(c, 1, 0).dtype)
    assert.are.same({1, 0, 1}, gpu.where(c, 1, 0):totable())
    assert.are.same({true, false, false}, gpu.logical_and(c, gpu.array({1, 1, 0})):totable())
    assert.are.same({true, true, true}, gpu.logical_or(c, gpu.array({0, 2, 0})):totable())
    assert.are.same({false, true, true}, gpu.logical_xor(c, gpu.array({1, 2, 0})):totable())
    assert.are.same({false, true, false}, gpu.logical_not(c):totable())
    local n = gpu.array({1, 0 / 0, 5})
    local mx = gpu.maximum(n, 2):totable()
    assert.are.equal(2, mx[1]); assert.is_true(mx[2] ~= mx[2]); assert.are.equal(5, mx[3])
    assert.are.same({1, 2}, gpu.minimum(gpu.array({1, 4}), gpu.array({3, 2})):totable())
    assert.are.same({2, 2.5, 3}, gpu.array({1, 2.5, 9}):clip(2, 3):totable())
    assert.are.same({1, 2.5, 3}, gpu.array({1, 2.5, 9}):clip(nil, 3):totable())
    assert.are.same({2, 2.5, 9}, gpu.clip(gpu.array({1, 2.5, 9}), 2):totable())
    -- its messages name clip and the argument given, not gpu._clip or gpu.minimum's
    local u = gpu.arange(5, "uint8")
    assert.matches("gpu.clip: out has shape {3}", S.errof(gpu.clip, u, 1, nil, {out = gpu.zeros(3)}), 1, true)
  end)

  -- NumPy 2.4's clip: a Python int bound at or past an integer array's end of its side is
  -- none (the bounds compare with the elements, they are not cast), so uint8 clip(-1, 300)
  -- is uint8 a (it said '-1 is out of range for uint8'); a bound past the far end, a float
  -- or an array bound is as before. Both nil: a copy (it said 'bad argument to 'clip'').
  it("clip's integer bounds past an integer array's range, and no bounds", function()
    local u = gpu.array({0, 5, 200}, "uint8")
    local function same(dtype, t, r) assert.are.equal(dtype, r.dtype); assert.are.same(t, r:totable()) end
    same("uint8", {0, 5, 200}, gpu.clip(u, -1, 300))
    same("uint8", {0, 5, 100}, gpu.clip(u, -1, 100))
    same("uint8", {10, 10, 200}, u:clip(10, 300))
    same("uint8", {0, 5, 200}, gpu.clip(u, nil, 300))
    same("uint8", {0, 5, 200}, gpu.clip(u, -1, nil))
    same("int8", {-100, 0, 50}, gpu.clip(gpu.array({-100, 0, 100}, "int8"), -1000, 50))
    same("int64", {math.mininteger, 3}, gpu.clip(gpu.array({math.mininteger, 3}, "int64"), math.mininteger, math.maxinteger))
    same("uint64", {0, 5, 10}, gpu.clip(gpu.array({0, 5, 7000}, "uint64"), -1, 10))
    same("float64", {0, 2.5, 2.5}, gpu.clip(u, -1, 2.5))      -- a float bound: float64, as NumPy
    same("float64", {0.5, 2.5, 2.5}, gpu.clip(u, 0.5, 2.5))
    same("float64", {0, 5, 200}, gpu.clip(u, -1.0, 300.0))
    same("int64", {1, 0}, gpu.clip(gpu.array({true, false}, "bool"), -1, 5))   -- bool: not an integer array
    local o = gpu.zeros(3, "int16")
    assert.is_true(rawequal(o, gpu.clip(u, -1, 300, {out = o})))
    same("int16", {0, 5, 200}, o)
    same("uint8", {0, 5, 200}, gpu.fuse(function(x) return gpu.clip(x, -1, 300) end)(u))
    -- past the far end it is still out of range, naming the argument given
    assert.matches("gpu.clip argument 2: 300 is out of range for uint8", S.errof(gpu.clip, u, 300, 400), 1, true)
    assert.matches("gpu.clip argument 2: 300 is out of range for uint8", S.errof(gpu.clip, u, 300, nil), 1, true)
    assert.matches("gpu.clip argument 3: -1 is out of range for uint8", S.errof(gpu.clip, u, -5, -1), 1, true)
    assert.matches("gpu.clip argument 3: -1 is out of range for uint8", S.errof(gpu.clip, u, nil, -1), 1, true)
    assert.matches("gpu.clip argument 2: 200 is out of range for int8",
                   S.errof(gpu.clip, gpu.array({1}, "int8"), 200, 300), 1, true)
    -- no bounds: a copy of a, in its dtype (out and stream as the others')
    local c = gpu.clip(u, nil, nil)
    same("uint8", {0, 5, 200}, c)
    c[{1}] = 7
    assert.are.equal(0, u:item(1))
    local h = gpu.array({1, -0.0}, "float16")
    local f = gpu.zeros(2, "float32")
    assert.is_true(rawequal(f, h:clip(nil, nil, {out = f})))
    assert.are.equal(1 / -0.0, 1 / f:item(2))
    assert.matches("gpu.clip: out is int32, and the result (float16) cannot be cast to it",
                   S.errof(gpu.clip, h, nil, nil, {out = gpu.zeros(2, "int32")}), 1, true)
    assert.matches("gpu.clip: out has shape {2} but the result has shape {3}",
                   S.errof(gpu.clip, u, nil, nil, {out = gpu.zeros(2, "uint8")}), 1, true)
    assert.matches("gpu.clip argument 1 must be a device array or a number, got string",
                   S.errof(gpu.clip, "x", nil, nil), 1, true)
    -- an argument past the options table was dropped: clip(a, lo, hi, {}, {out = o}) left o as it was
    assert.matches("gpu.clip takes 4 arguments, got a table as argument 5 (options go in argument 4)",
                   S.errof(gpu.clip, u, 1, 2, {}, {out = u}), 1, true)
    assert.matches("a:clip takes 3 arguments, got a number as argument 4", S.errof(u.clip, u, 1, 2, nil, 5), 1, true)
    assert.matches("gpu.clip: unknown option 'axis'", S.errof(gpu.clip, u, nil, nil, {axis = 1}), 1, true)
  end)
end)

describe("math functions", function()
  local X = {0.25, 0.5, 0.75, 1.5, 2, 3.75}
  local x32, x64 = gpu.array(X), gpu.array(X, "float64")
  -- CUDA's bounds (programming guide, maximum ulp error) are at most 4 ulp for these in
  -- float32 and 2 in float64; compare relatively, with room
  local function close(want, got, tol)
    for i = 1, #want do
      local w, g = want[i], got[i]
      assert.is_true(math.abs(w - g) <= tol * math.max(1, math.abs(w)), ("%d: %.17g vs %.17g"):format(i, w, g))
    end
  end
  local fns = {
    sqrt = math.sqrt, exp = math.exp, exp2 = function(v) return 2 ^ v end, log = math.log,
    log2 = function(v) return math.log(v, 2) end, log10 = function(v) return math.log(v, 10) end,
    log1p = function(v) return math.log(1 + v) end, expm1 = function(v) return math.exp(v) - 1 end,
    sin = math.sin, cos = math.cos, tan = math.tan, atan = math.atan,
    sinh = function(v) return (math.exp(v) - math.exp(-v)) / 2 end,
    cosh = function(v) return (math.exp(v) + math.exp(-v)) / 2 end,
    tanh = function(v) return (math.exp(v) - math.exp(-v)) / (math.exp(v) + math.exp(-v)) end,
  }

  it("agree with Lua's math within CUDA's error bounds, in float32 and float64", function()
    for name, f in pairs(fns) do
      local want = map(X, function(v) return f(v) end)
      close(want, gpu[name](x32):totable(), 4e-6)
      if name == "sqrt" or name == "exp" or name == "log" or name == "sin" then
        close(want, x64[name](x64):totable(), 1e-13)
      end
      assert.are.equal("float32", gpu[name](x32).dtype, name)
    end
    close({math.asin(0.25), math.asin(0.5)}, gpu.asin(gpu.array({0.25, 0.5})):totable(), 4e-6)
    close({math.acos(0.25), math.acos(0.5)}, gpu.acos(gpu.array({0.25, 0.5})):totable(), 4e-6)
    close({math.atan(1, -2), math.atan(-3, 0.5)}, gpu.atan2(gpu.array({1, -3}), gpu.array({-2, 0.5})):totable(), 4e-6)
    assert.are.equal("float64", gpu.sqrt(gpu.arange(3, "int32")).dtype)
    assert.are.equal("float16", gpu.sqrt(gpu.arange(3, "uint8")).dtype)   -- NumPy's too
  end)

  it("round, floor, ceil, trunc, abs, sign, isnan, isinf, isfinite", function()
    local v = gpu.array({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7})
    assert.are.same({-2, -2, -0.0, 0, 2, 2, 3}, v:round():totable())    -- half to even
    assert.are.same({-3, -2, -1, 0, 1, 2, 2}, gpu.floor(v):totable())
    assert.are.same({-2, -1, -0.0, 1, 2, 3, 3}, gpu.ceil(v):totable())
    assert.are.same({-2, -1, -0.0, 0, 1, 2, 2}, gpu.trunc(v):totable())
    assert.are.same(map({2.5, 1.5, 0.5, 0.5, 1.5, 2.5, 2.7}, f32), gpu.abs(v):totable())
    assert.are.same({-1, 1, 0}, gpu.sign(gpu.array({-3, 2, 0}, "int32")):totable())
    local w = gpu.array({0 / 0, 1 / 0, -1 / 0, 1})
    assert.are.same({true, false, false, false}, w:isnan():totable())
    assert.are.same({false, true, true, false}, w:isinf():totable())
    assert.are.same({false, false, false, true}, w:isfinite():totable())
    assert.are.same({false, false}, gpu.isnan(gpu.array({1, 2}, "int32")):totable())
    assert.are.equal("int16", gpu.abs(gpu.array({-3}, "int16")).dtype)
    assert.are.same({3, 128 - 256}, gpu.abs(gpu.array({-3, -128}, "int8")):totable())
  end)

  it("take {out = c}: no allocation, the result cast to c's dtype when the kind allows", function()
    local x = gpu.array({1, 4, 9})
    local c = gpu.zeros(3, "float64")
    assert.are.equal(c, gpu.sqrt(x, {out = c}))
    assert.are.same({1, 2, 3}, c:totable())
    x:sqrt({out = x})
    assert.are.same({1, 2, 3}, x:totable())
    local i = gpu.zeros(3, "int64")
    gpu.add(gpu.array({1, 2, 3}, "int8"), 1, {out = i})
    assert.are.same({2, 3, 4}, i:totable())
    local grid = gpu.zeros({2, 3})
    gpu.multiply(gpu.array({1, 2, 3}), gpu.array({{1}, {10}}), {out = grid})
    assert.are.same({{1, 2, 3}, {10, 20, 30}}, grid:totable())
  end)
end)

describe("broadcasting", function()
  it("follows NumPy's rules up to 8 dimensions", function()
    local col, row = gpu.arange(3):reshape(3, 1), gpu.arange(4):reshape(1, 4) * 10
    assert.are.same({{0, 10, 20, 30}, {1, 11, 21, 31}, {2, 12, 22, 32}}, (col + row):totable())
    assert.are.same({3, 4}, (col + gpu.arange(4)).shape)
    local s = gpu.array({5}):reshape()                  -- 0-d
    assert.are.same({}, s.shape)
    assert.are.same({6, 7}, (s + gpu.array({1, 2})):totable())
    local d8 = gpu.ones({2, 1, 2, 1, 2, 1, 2, 1})
    local d8b = gpu.arange(2):reshape(2, 1, 1, 1, 1, 1, 1, 1)
    local r = d8 + d8b
    assert.are.same({2, 1, 2, 1, 2, 1, 2, 1}, r.shape)
    assert.are.equal(1, r:item(1, 1, 2, 1, 2, 1, 1, 1))
    assert.are.equal(2, r:item(2, 1, 2, 1, 2, 1, 1, 1))
    local e = gpu.ones({2, 3, 2, 3, 2}) * gpu.arange(3):reshape(3, 1, 1, 1)
    assert.are.equal(2, e:item(2, 3, 2, 3, 2))
    assert.are.equal(0, e:item(2, 1, 2, 3, 2))
  end)

  it("runs on views of any layout: strided, reversed, transposed, 5 to 8 dimensions", function()
    local m = gpu.arange(60):reshape(3, 4, 5)
    local t = m:transpose({3, 1, 2})
    local want = {}
    for i = 1, 5 do for j = 1, 3 do for k = 1, 4 do want[#want + 1] = 2 * m:item(j, k, i) end end end
    assert.are.same(want, (t + t):flatten():totable())
    local r = m[{{3, 1, -1}, {}, {5, 1, -2}}]
    assert.are.same(r:contiguous():totable(), (r * 1):totable())
    local six = gpu.arange(64):reshape(2, 2, 2, 2, 2, 2):transpose({6, 5, 4, 3, 2, 1})
    assert.are.same(six:contiguous():flatten():totable(), (six + 0):flatten():totable())
    local tt = gpu.arange(70 * 45):reshape(70, 45)           -- a tiled transposing copy
    local tr = tt.T:contiguous()
    assert.are.equal(tt:item(70, 1), tr:item(1, 70))
    assert.are.equal(tt:item(33, 41), tr:item(41, 33))
    local batch = gpu.arange(3 * 40 * 33, "int32"):reshape(3, 40, 33):transpose({1, 3, 2}):contiguous()
    assert.are.equal(2 * 40 * 33 + 39 * 33 + 32, batch:item(3, 33, 40))
  end)

  -- sizes that give a GPU's kernels full blocks and a partial one: the flat kernel's
  -- chunks (a conversion between widths), the rows kernel ((N, 1) + (1, M)), 64x64 tiles
  it("agrees element by element on rows, tiles and conversions between widths", function()
    local N, M = 70, 132
    local col = gpu.arange(N):astype("float32"):reshape(N, 1)
    local row = (gpu.arange(M):astype("float32") * 1000):reshape(1, M)
    local full = gpu.arange(N * M):astype("float32"):reshape(N, M)
    local s, p, t = (col + row):totable(), (full * col):totable(), full.T:contiguous():totable()
    for i = 1, N do
      for j = 1, M do
        local k = (i - 1) * M + j - 1
        assert(s[i][j] == (i - 1) + (j - 1) * 1000 and p[i][j] == k * (i - 1) and t[j][i] == k,
               ("at %d, %d"):format(i, j))
      end
    end
    -- more row groups than a grid's y has (65535): the kernel strides on. A group is 4 rows
    -- a thread; on a GPU a block of one-chunk rows has 256 threads of rows (5 GiB here:
    -- only where the device has four times that free)
    local G = 4 * 65535 * (gpu.backend() == "cpu" and 1 or 256)
    local R = G + 6
    if gpu.backend() == "cpu" or gpu.mem_info() > 4 * 20 * R then
      local tall = gpu.arange(R, "int32"):reshape(R, 1) + gpu.array({0, 1, 2, 3}, "int32"):reshape(1, 4)
      for _, i in ipairs({1, 2, 1000, G, G + 1, R}) do
        assert.are.same({i - 1, i, i + 1, i + 2}, tall[{{i, i}}]:flatten():totable())
      end
      tall:free()
    end
    local odd = (gpu.arange(M):astype("float32") * 1000)[{{2, M}}]:reshape(1, M - 1)  -- not aligned
    assert.are.same((col + odd):totable(), (col + odd:contiguous()):totable())
    local x = gpu.arange(3001):astype("float32") * 0.5
    local d, h = x:astype("float64"):totable(), x:astype("float64"):astype("float32"):totable()
    for i = 1, 3001 do assert(d[i] == (i - 1) * 0.5 and h[i] == (i - 1) * 0.5, i) end
  end)

  it("refuses shapes that do not broadcast, naming both", function()
    assert.matches("gpu.add: shapes {2, 3} and {4} do not broadcast",
                   S.errof(function() return gpu.zeros({2, 3}) + gpu.zeros(4) end), 1, true)
    assert.matches("gpu.where: shapes {3} and {2} do not broadcast",
                   S.errof(gpu.where, gpu.zeros(3, "bool"), gpu.zeros(2), 1), 1, true)
  end)

  it("refuses a number that does not fit the array's dtype, as NumPy 2's ufuncs do", function()
    local u8 = gpu.array({1, 2}, "uint8")
    assert.matches("gpu.add argument 2: -128 is out of range for uint8 (a Lua number takes the array's dtype, " ..
                   "as a Python number does in NumPy 2)", S.errof(gpu.add, u8, -128), 1, true)
    -- where said NumPy 2 refuses it too, where NumPy 2.4's where wraps it ([1 128])
    assert.matches("gpu.where argument 3: -128 is out of range for uint8 (a Lua number takes the array's dtype, " ..
                   "as a Python number does in NumPy 2's ufuncs, which refuse it too; NumPy's where wraps it)",
                   S.errof(gpu.where, gpu.array({true, false}), u8, -128), 1, true)
  end)
end)

describe("operations refuse", function()
  local a = gpu.zeros(3)
  it("freed arrays, host arrays, tables and strings as operands", function()
    local f = gpu.zeros(2)
    f:free()
    assert.matches("attempt to use a freed array (gpu.add argument 1)", S.errof(function() return f + 1 end), 1, true)
    assert.matches("gpu.add argument 2 is a host array: copy it to the device with gpu.array(h)",
                   S.errof(function() return a + gpu.host.zeros(3) end), 1, true)
    assert.matches("gpu.multiply argument 2 is a Lua table: copy it to the device with gpu.array(t)",
                   S.errof(function() return a * {1, 2, 3} end), 1, true)
    assert.matches("gpu.add argument 2 must be a device array or a number, got string",
                   S.errof(function() return a + "x" end), 1, true)
  end)

  it("bitwise operators on floats and weak scalars that do not fit", function()
    assert.matches("gpu.bitwise_and: bitwise operations need integer or bool arrays, not float",
                   S.errof(function() return a & 1 end), 1, true)
    assert.matches("gpu.left_shift: shifts need integer arrays, not float", S.errof(function() return a << 1 end), 1, true)
    -- uint64 with a signed integer has no common integer type (NumPy: float64, and a
    -- TypeError); the message says so, not 'not float' of integer arrays
    local u, i = gpu.array({12}, "uint64"), gpu.array({18}, "int64")
    local nocommon = "have no common integer type (NumPy promotes them to float64)"
    assert.matches("gpu.bitwise_and: uint64 and int64 " .. nocommon, S.errof(gpu.bitwise_and, u, i), 1, true)
    assert.matches("gpu.bitwise_xor: int64 and uint64 " .. nocommon, S.errof(gpu.bitwise_xor, i, u), 1, true)
    assert.matches("gpu.bitwise_or: uint64 and int8 " .. nocommon,
                   S.errof(function() return u | gpu.array({1}, "int8") end), 1, true)
    assert.matches("gpu.right_shift: uint64 and int32 " .. nocommon,
                   S.errof(function() return u >> gpu.array({1}, "int32") end), 1, true)
    assert.matches("gpu.gcd: uint64 and int64 " .. nocommon, S.errof(gpu.gcd, u, i), 1, true)
    assert.matches("gpu.lcm: int16 and uint64 " .. nocommon, S.errof(gpu.lcm, gpu.array({2}, "int16"), u), 1, true)
    assert.matches("gpu.left_shift: uint64 and int64 " .. nocommon,
                   S.errof(gpu.left_shift.result_dtype, gpu.left_shift, "uint64", "int64"), 1, true)
    -- a float among them is still the float's message; a negative Lua number never fits uint64
    assert.matches("gpu.bitwise_and: bitwise operations need integer or bool arrays, not float",
                   S.errof(gpu.bitwise_and, u, 2.5), 1, true)
    assert.matches("gpu.bitwise_and argument 2: -1 is out of range for uint64",
                   S.errof(function() return u & -1 end), 1, true)
    assert.are.same({4}, (u & gpu.array({6}, "uint32")):totable())
    assert.matches("gpu.add argument 2: 300 is out of range for uint8",
                   S.errof(function() return gpu.zeros(2, "uint8") + 300 end), 1, true)
    assert.matches("gpu.subtract argument 2: -1 is out of range for uint64",
                   S.errof(function() return gpu.zeros(2, "uint64") - (-1) end), 1, true)
    -- a negative float is no more an unsigned value than a negative integer (fill(-1.0)
    -- of a uint64 array wrote 2^64 - 1)
    assert.matches("a:fill: cannot store -1.0 in a uint64 array: out of range",
                   S.errof(function() return gpu.zeros(2, "uint64"):fill(-1.0) end), 1, true)
    assert.matches("in a uint64 array: out of range",
                   S.errof(function() return gpu.zeros(2, "uint64"):fill(-2.0^63) end), 1, true)
    assert.matches("gpu.negative: bool arrays cannot be subtracted or negated",
                   S.errof(function() return -gpu.zeros(2, "bool") end), 1, true)
  end)

  it("an out of the wrong shape, dtype, or that is not an array; wrong argument counts", function()
    assert.matches("gpu.add: out has shape {4} but the result has shape {3}",
                   S.errof(gpu.add, a, a, {out = gpu.zeros(4)}), 1, true)
    assert.matches("gpu.add: out is int32, and the result (float32) cannot be cast to it",
                   S.errof(gpu.add, a, a, {out = gpu.zeros(3, "int32")}), 1, true)
    assert.matches("gpu.sqrt: out must be a device array, got nil", S.errof(gpu.sqrt, a, {out = {}}), 1, true)
    assert.matches("gpu.add takes 2 arguments (and an options table), got 1", S.errof(gpu.add, a), 1, true)
  end)

  -- a nil where the options table goes is none, as in the ufuncs written in Lua (gpu.divmod):
  -- gpu.add(x, y, nil) said 'takes 2 arguments (and an options table), got 3'
  it("no trailing argument but a nil in the options' place", function()
    local x = gpu.array({1, 4, 9})
    local function add(p, q, opts) return gpu.add(p, q, opts) end
    assert.are.same({2, 8, 18}, add(x, x):totable())
    assert.are.same({1, 2, 3}, gpu.sqrt(x, nil):totable())
    assert.are.same({2, 8, 18}, x:add(x, nil):totable())
    assert.are.same({1, 2, 3}, x:sqrt(nil):totable())
    assert.are.same({1, 4, 9}, gpu.where(true, x, x, nil):totable())
    assert.are.same({1, 4, 9}, gpu.nan_to_num(x, nil):totable())
    assert.are.same({1, 4, 9}, x:nan_to_num(nil):totable())
    assert.matches("gpu.add takes 2 arguments (and an options table), got 4", S.errof(gpu.add, x, x, nil, nil), 1, true)
    assert.matches("gpu.add takes 2 arguments (and an options table), got 3", S.errof(gpu.add, x, x, 5), 1, true)
    assert.matches("gpu.sqrt takes 1 argument (and an options table), got 3", S.errof(gpu.sqrt, x, nil, {}), 1, true)
    assert.matches("gpu.nan_to_num takes an array and an options table", S.errof(gpu.nan_to_num, x, nil, nil), 1, true)
  end)
end)

describe("NumPy's other names", function()
  it("are the same functions", function()
    assert.are.equal(gpu.pow, gpu.power)
    assert.are.equal(gpu.remainder, gpu.mod)
    assert.are.equal(gpu.invert, gpu.bitwise_not)
    assert.are.equal("gpu.ufunc(add)", tostring(gpu.add))
    assert.are.equal(2, gpu.add.nin)
  end)
end)

describe("operations on streams", function()
  it("queue on the stream given", function()
    local s = gpu.stream()
    local x = gpu.arange(1000)
    local y = gpu.multiply(x, 2, {stream = s})
    s:synchronize()
    assert.are.equal(1998, y:item(1000))
  end)
end)

-- Before: "bad option 'stream' (gpu.stream expected, got number)" named no function, a
-- gpu.event was "userdata", and a stream of another device or a destroyed one named none
describe("a stream option", function()
  it("that is wrong names the function it was given to", function()
    local a = gpu.arange(8, "float32")
    local cases = {
      {"gpu.sum", "number", function() return gpu.sum(a, {stream = 5}) end},
      {"gpu.add", "string", function() return gpu.add(a, a, {stream = "x"}) end},
      {"gpu.cumsum", "number", function() return gpu.cumsum(a, {stream = 5}) end},
      {"gpu.fft.fft", "number", function() return gpu.fft.fft(a, {stream = 5}) end},
      {"gpu.matmul", "number", function() return gpu.matmul(a:reshape(2, 4), a:reshape(4, 2), {stream = 5}) end},
      {"gpu.sum", "gpu.event", function() return a:sum({stream = gpu.event()}) end},
    }
    for _, c in ipairs(cases) do
      assert.matches(c[1] .. ": bad option 'stream' (gpu.stream expected, got " .. c[2] .. ")", S.errof(c[3]), 1, true)
    end
    local s = gpu.stream()
    s:destroy()
    assert.matches("gpu.max: attempt to use a destroyed stream", S.errof(gpu.max, a, {stream = s}), 1, true)
    assert.matches("a:tohost: attempt to use a destroyed stream", S.errof(a.tohost, a, {stream = s}), 1, true)
    assert.matches("gpu.copy: attempt to use a destroyed stream", S.errof(gpu.copy, gpu.zeros(8), a, {stream = s}), 1, true)
    assert.matches("a:to: attempt to use a destroyed stream", S.errof(a.to, a, 0, {stream = s}), 1, true)
  end)

  it("of another device names the function #multi", function()
    local s = gpu.with_device(1, gpu.stream)
    assert.matches("gpu.multiply: a stream of device 1, and device 0 is current",
                   S.errof(gpu.multiply, gpu.ones(2), 2, {stream = s}), 1, true)
  end)
end)
