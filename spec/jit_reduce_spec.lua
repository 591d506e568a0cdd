-- gpu.reduce: numba's cuda.reduce, a gpu.jit function of two numbers folding an array into
-- one value on gpu.reduction's engine. Expected values from NumPy 1.24. Few kernels: each
-- (function, array dtype) compiles one (seconds on the CPU backend): five here.
local S = require("spec.support")

local N = 100003   -- 10^5 + 3: several blocks, and a tail past the vector loads

local function made(n, f, dtype)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = f(i) end
  return gpu.array(t, dtype)
end

local function flat(a)
  local h, t = a:tohost(), {}
  for i = 1, #h do t[i] = h[i] end
  return t
end

describe("gpu.reduce", function()
  local sum = gpu.reduce(function(a, b) return a + b end)
  local big = gpu.jit(function(a, b) return math.max(a, b) end)
  local max = gpu.reduce(big, {name = "biggest"})
  local x32 = made(N, function(i) return i % 7 end, "float32")   -- x32.sum() 300006

  it("sums float32 arrays into a Lua number, with init, size and one element", function()
    assert.are.equal("gpu.reduce(sum)", tostring(sum))
    local r = sum(x32)
    assert.are.equal("float", math.type(r))
    assert.are.equal(300006, r)
    assert.are.equal(x32:sum(), r)
    assert.are.equal(2997.5, sum(x32, {size = 1000, init = 0.5}))   -- x32[:1000].sum() 2997
    assert.are.equal(300006, sum(x32, {size = N}))
    assert.are.equal(2.5, sum(gpu.array({2.5}, "float32")))
    assert.are.equal(-1.25, sum(gpu.array({2.5}, "float32"), {init = -3.75}))
    -- nothing to reduce: init, as numba's (0 by default)
    assert.are.equal(0, sum(x32, {size = 0}))
    assert.are.equal(7, sum(gpu.zeros(0, "float32"), {init = 7}))
    assert.are.equal(7, sum(gpu.zeros({3, 0}, "float32"), {init = 7}))
  end)

  it("takes gpu.jit functions, any view and any number of dims, as a flat C-ordered array", function()
    assert.are.equal("gpu.reduce(biggest)", tostring(max))
    local y = made(N, function(i) return ((i * 7919) % 100003 - 50000) * 0.5 end, "float64")
    local low = {init = -math.huge}
    assert.are.equal(25001, max(y, low))
    assert.are.equal(25000.5, max(y[{{1, -1, 3}}], low))   -- y[::3]
    assert.are.equal(10635.5, max(y, {size = 10, init = -math.huge}))
    assert.are.equal(25001, max(y[{{1, 100002}}]:reshape(2, 50001):transpose(), low))
    -- init is folded in once, as numba's: the default 0 is bigger than these
    assert.are.equal(0, max(y, {size = 3}))
    local m = gpu.arange(12, "float64"):reshape(3, 4)
    -- the first size elements in C order: of m's transpose 0, 4, 8, 1, 5
    assert.are.equal(8, max(m:transpose(), {size = 5, init = -1}))
    assert.are.equal(10, max(m[{{}, {2, 3}}], {init = -1}))
    assert.are.equal(5, max(m[{{}, {2, 3}}], {size = 3, init = -1}))
  end)

  it("reduces integers as Lua integers (int64), exactly, and writes res", function()
    local z = made(N, function(i) return (i * 37) % 1000 - 500 end, "int32")
    local r = sum(z)
    assert.are.equal("integer", math.type(r))
    assert.are.equal(-51389, r)
    assert.are.equal(112, sum(z, {size = 777}))
    assert.are.equal((1 << 62) + 1 - 51389, sum(z, {init = (1 << 62) + 1}))
    assert.are.equal(math.mininteger + 5 - 51389, sum(z, {init = math.mininteger + 5}))
    assert.are.equal(-51389 - 7.0, sum(z, {init = -7.0}))
    -- res: its first element gets the result (any shape, a view too), and res comes back
    local res = gpu.full({2, 3}, -1, "int64")
    local view = res:transpose()
    assert.are.equal(view, sum(z, {res = view}))
    assert.are.same({-51389, -1, -1, -1, -1, -1}, flat(res))
    sum(z, {res = res[{2, {2, 3}}], size = 777})
    assert.are.equal(112, res:item(2, 2))
    sum(z, {res = res[{2, 3}], size = 0, init = 9})   -- a 0-D view
    assert.are.equal(9, res:item(2, 3))
  end)

  it("keeps int64's wrapping, and init is combined with the result", function()
    local mul = gpu.reduce(function(a, b) return a * b end)
    local w = gpu.array({1, 2, -1, 3, 1, 1, 2, -2, 1, 5}, "int64")
    assert.are.equal(120, mul(w, {init = 1}))
    assert.are.equal(0, mul(w))   -- numba's default init 0, folded in
    assert.are.equal(-6, mul(w, {size = 4, init = 1}))
    assert.are.equal(-6289078614652622815, mul(gpu.full(40, 3, "int64"), {init = 1}))   -- 3^40, wrapped
    assert.are.equal(1, mul(gpu.zeros(0, "int64"), {init = 1}))
  end)

  it("reduces bool arrays with a function of booleans into a Lua boolean", function()
    local xor = gpu.reduce(function(a, b) return a ~= b end)
    local b = made(N, function(i) return i % 3 == 0 end, "bool")   -- 33335 true
    assert.is_true(xor(b))
    assert.is_false(xor(b, {init = true}))
    assert.is_false(xor(b, {size = 4}))                -- two true
    assert.is_true(xor(b, {size = 4, init = 1}))      -- a number: whether it is not 0
    assert.is_false(xor(gpu.zeros(0, "bool")))
    local res = gpu.zeros(2, "bool")
    xor(b, {res = res})
    assert.are.same({true, false}, flat(res))
  end)

  it("queues on a stream", function()
    local s = gpu.stream()
    local res = gpu.zeros(3, "float32")
    local tail = res[{{2, 3}}]
    assert.are.equal(tail, sum(x32, {res = tail, stream = s}))
    s:synchronize()
    assert.are.same({0, 300006, 0}, flat(res))
    assert.are.equal(300006, sum(x32, {stream = s}))
  end)

  it("runs on gpu.reduction's param: numbers its expressions read, changed without a compile", function()
    local scaled = gpu.reduction("T x", "T y", "x * _param[0]", "a + b", "y = a + _param[1]", 0, "scaled")
    local v = gpu.arange(1, 5, 1, "float64")   -- 1, 2, 3, 4
    assert.are.equal(25, scaled(v, {param = {2.5, 0}}):item())
    assert.are.equal(9, scaled(v, {param = {1, -1}}):item())
    assert.are.equal(-10, scaled(v, {param = -1}):item())
    assert.are.same({-3, -7}, scaled(v:reshape(2, 2), {dim = 2, param = {-1}}):totable())
    assert.matches("gpu.scaled: option param must be a number or a table of one or two numbers",
                   S.errof(scaled, v, {param = {1, 2, 3}}), 1, true)
    assert.matches("option param must be", S.errof(scaled, v, {param = "x"}), 1, true)
  end)

  it("refuses bad arguments with clear errors, and the host goes on", function()
    local a = gpu.array({1, 2, 3}, "float32")
    assert.matches("bad argument #1 to 'reduce' (a Lua function or a gpu.jit function expected, got number)",
                   S.errof(gpu.reduce, 5), 1, true)
    -- a C function said "bad argument #1 to 'jit'"
    assert.matches("bad argument #1 to 'reduce' (a Lua function written with `function ... end` or a gpu.jit function "
                   .. "expected, got a C function)", S.errof(gpu.reduce, math.max), 1, true)
    assert.matches("bad argument #1 to 'reduce' (a function of two arguments expected, got one of 1)",
                   S.errof(gpu.reduce, function(p) return p end), 1, true)
    assert.matches("got one of 3", S.errof(gpu.reduce, function(p, q, r) return p + q + r end), 1, true)
    assert.matches("gpu.reduce: unknown option 'nam'", S.errof(gpu.reduce, function(p, q) return p end, {nam = "x"}), 1, true)
    local none = gpu.reduce(function(p, q) local c = p + q end)
    assert.matches("gpu.reduce: 'none' returns nothing for (float32, float32): it must return a number for a float32 array",
                   S.errof(none, a), 1, true)
    local less = gpu.reduce(function(p, q) return p < q end)
    assert.matches("'less' returns a boolean for (int64, int64): it must return a number for an integer array",
                   S.errof(less, gpu.array({1, 2}, "int32")), 1, true)
    -- float elements and f returning an integer: the elements were made integers first, toward
    -- zero (math.floor(math.max(p, q)) of {-0.5, -2.7, -1.5} gave 0, f of no element)
    local floor_max = gpu.reduce(function(p, q) return math.floor(math.max(p, q)) end)
    local xs = {-0.5, -2.7, -1.5}
    assert.matches("gpu.reduce: 'floor_max' returns an integer for (float64, float64), and float64 elements "
                   .. "cannot be made integers before it sees them: return a float (math.floor(x) + 0.0)",
                   S.errof(floor_max, gpu.array(xs, "float64"), {init = -1e9}), 1, true)
    local floor_max_f = gpu.reduce(function(p, q) return math.floor(math.max(p, q)) + 0.0 end)
    local want = -1e9
    for _, x in ipairs(xs) do want = math.floor(math.max(want, x)) + 0.0 end   -- Lua's fold
    assert.are.equal(want, floor_max_f(gpu.array(xs, "float64"), {init = -1e9}))
    assert.matches("'+' needs a number, got a bool", S.errof(sum, gpu.array({true}, "bool")), 1, true)
    assert.matches("bad argument #1 to 'sum' (a device array expected, got host array", S.errof(sum, a:tohost()), 1, true)
    assert.matches("bad argument #1 to 'sum' (a device array expected, got number)", S.errof(sum, 3), 1, true)
    assert.matches("bad argument #1 to 'sum' (a complex64 array: gpu.reduce takes integer, float and bool arrays)",
                   S.errof(sum, gpu.zeros(2, "complex64")), 1, true)
    local dead = gpu.zeros(3, "float32")
    dead:free()
    -- (a freed array, named by neither argument: 'attempt to use a freed array')
    assert.matches("bad argument #1 to 'sum' (attempt to use a freed array)", S.errof(sum, dead), 1, true)
    assert.matches("bad argument #2 to 'sum' (option res: attempt to use a freed array)", S.errof(sum, a, {res = dead}), 1, true)
    assert.matches("bad argument #2 to 'sum' (option size must be an integer from 0 to 3, got 4)",
                   S.errof(sum, a, {size = 4}), 1, true)
    assert.matches("got -1)", S.errof(sum, a, {size = -1}), 1, true)
    assert.matches("got 1.5)", S.errof(sum, a, {size = 1.5}), 1, true)
    assert.matches("bad argument #2 to 'sum' (option res must be a device array, got number)",
                   S.errof(sum, a, {res = 3}), 1, true)
    assert.matches("got host array", S.errof(sum, a, {res = a:tohost()}), 1, true)
    assert.matches("bad argument #2 to 'sum' (option res is int32, and the result (float32) cannot be cast to it)",
                   S.errof(sum, a, {res = gpu.zeros(1, "int32")}), 1, true)
    assert.matches("option res must have an element, got an empty array", S.errof(sum, a, {res = gpu.zeros(0)}), 1, true)
    assert.matches("option init must be an integer for an integer array, got 1.5",
                   S.errof(sum, gpu.array({1}, "int64"), {init = 1.5}), 1, true)
    assert.matches("option init must be a number, got string", S.errof(sum, a, {init = "1"}), 1, true)
    assert.matches("gpu.reduce: unknown option 'sise'", S.errof(sum, a, {sise = 1}), 1, true)
    assert.matches("bad argument #2 to 'sum' (options table expected, got number)", S.errof(sum, a, 2), 1, true)
    assert.are.equal(6, sum(a))
  end)

  it("takes functions in locals named as their kernels' own C names (rd, n, a, i)", function()
    local rd = gpu.reduce(function(x, y) return x + y end)
    assert.are.equal(4, rd(gpu.ones(4)))
    local n = gpu.vectorize(function(x) return x * 2 end)
    assert.are.same({2, 2}, n(gpu.ones(2)):totable())
  end)
end)
