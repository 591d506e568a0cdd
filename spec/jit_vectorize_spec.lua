-- gpu.vectorize: a gpu.jit function of numbers over every element of arrays, broadcast as
-- NumPy broadcasts (numba's @vectorize(target="cuda"), cupy.vectorize). Few kernels: each
-- pattern of arguments compiles one (seconds on the CPU backend).
local S = require("spec.support")

local function flat(a)
  local h, t = a:tohost(), {}
  for i = 1, #h do t[i] = h[i] end
  return t
end

describe("gpu.vectorize", function()
  local fma = gpu.vectorize(function(x, y) return x * y + 1 end)

  it("applies f to every element, broadcasting, in the type f returns", function()
    local a = gpu.array({1, 2, 3}, "float32")
    local b = gpu.array({{10}, {-0.5}}, "float32")
    local r = fma(a, b)
    assert.are.equal("float32", r.dtype)
    assert.are.same({2, 3}, r.shape)
    assert.are.same(flat(a * b + 1), flat(r))
    assert.are.same({11, 21, 31, 0.5, 0, -0.5}, flat(r))
    -- a Lua integer is an int64 argument, as in gpu.jit launches (int64 with float32 gives
    -- float64); a Lua float takes the arrays' float type, as gpu.multiply(a, 2.5) does
    local s = fma(a, 2)
    assert.are.equal("float64", s.dtype)
    assert.are.same({3, 5, 7}, flat(s))
    local w = fma(a, 2.5)
    assert.are.equal("float32", w.dtype)
    assert.are.same(flat(a * 2.5 + 1), flat(w))
    -- a gpu.complex is an argument, weak as Python's complex in NumPy 2 (complex64 with
    -- float32 and complex64 arrays, else complex128), as gpu.jit kernels take it (it said
    -- a device array, number or boolean expected, got userdata)
    local C = gpu.complex
    local add = gpu.vectorize(function(x, c) return x + c end)
    for dt, want in pairs({complex64 = "complex64", float32 = "complex64", float16 = "complex64",
                           complex128 = "complex128", float64 = "complex128", int32 = "complex128"}) do
      local z = add(gpu.ones(2, dt), C(0.5, -1 / 0))
      assert.are.equal(want, z.dtype, dt)
      assert.are.same({C(1.5, -1 / 0), C(1.5, -1 / 0)}, z:totable())
    end
    assert.are.equal(C(1, 4), add(C(1, 2), C(0, 2)):item())
    assert.are.equal("float64", fma(a:astype("float64"), 2.5).dtype)
    assert.are.equal("float64", fma(gpu.array({1, 2, 3}, "int32"), 2.5).dtype)
    -- integers are Lua's: an int32 array gives int64 results, which wrap as Lua's do
    local i = fma(gpu.array({1, 2, math.maxinteger}, "int64"), gpu.array({3, 4, 2}, "int32"))
    assert.are.equal("int64", i.dtype)
    assert.are.same({4, 9, math.maxinteger * 2 + 1}, flat(i))
    -- only numbers: a 0-D array
    local z = fma(3, 4)
    assert.are.same({}, z.shape)
    assert.are.same({13}, flat(z))
    -- no elements: no launch
    assert.are.same({0, 3}, fma(gpu.zeros({0, 1}, "float32"), a).shape)
  end)

  it("takes gpu.jit functions, which may call others, and gives booleans", function()
    local soft = gpu.jit(function(x) return gpu.log1p(gpu.exp(x)) end)
    local act = gpu.jit(function(x, t)
      if x > t then return x end
      return soft(x) * 0.5
    end)
    local v = gpu.vectorize(act, {name = "act"})
    assert.are.equal("gpu.vectorize(act)", tostring(v))
    local x = gpu.array({-1, 0.5, 3}, "float64")
    local r = v(x, 1.0)
    local h = flat(r)
    assert.are.equal(3, h[3])
    assert.is_true(math.abs(h[1] - 0.5 * math.log(1 + math.exp(-1))) < 1e-15)
    assert.is_true(math.abs(h[2] - 0.5 * math.log(1 + math.exp(0.5))) < 1e-15)
    local pos = gpu.vectorize(function(x) return x > 0.5 end)
    local p = pos(x)
    assert.are.equal("bool", p.dtype)
    assert.are.same({false, false, true}, flat(p))
  end)

  it("writes into out (converting, views too) and queues on a stream", function()
    local a = gpu.array({1, 2, 3}, "float32")
    local b = gpu.array({{10}, {20}}, "float32")
    local o = gpu.zeros({3, 2}, "float64")
    local r = fma(a, b, {out = o:transpose()})
    assert.are.same({11, 21, 21, 41, 31, 61}, flat(o))
    assert.are.same({2, 3}, r.shape)
    local s = gpu.stream()
    local q = fma(a, b, {stream = s})
    s:synchronize()
    assert.are.same({11, 21, 31, 21, 41, 61}, flat(q))
  end)

  it("refuses bad arguments with clear errors, and the host goes on", function()
    local a = gpu.array({1, 2, 3}, "float32")
    assert.matches("'fma' takes 2 arguments, got 1", S.errof(fma, a), 1, true)
    assert.matches("bad argument #2 to 'fma' (a device array, number, boolean or gpu.complex expected, got string)",
                   S.errof(fma, a, "x"), 1, true)
    assert.matches("got host array", S.errof(fma, a, a:tohost()), 1, true)
    assert.matches("'fma': shapes {3} and {2} do not broadcast", S.errof(fma, a, gpu.zeros(2)), 1, true)
    assert.matches("'fma': out has shape {2}", S.errof(fma, a, 1, {out = gpu.zeros(2)}), 1, true)
    assert.matches("option out must be a device array", S.errof(fma, a, 1, {out = 3}), 1, true)
    assert.matches("unknown option", S.errof(fma, a, 1, {outt = 3}), 1, true)
    local line = debug.getinfo(1, "l").currentline + 1
    local _, e = pcall(function() local r = fma(a, 1, {outt = 3}); return r end)   -- the caller's line
    assert.matches(("jit_vectorize_spec.lua:%d: 'fma': unknown option 'outt' (it takes out, stream)"):format(line), e, 1, true)
    local dead = gpu.zeros(3)
    dead:free()
    -- a freed array said 'attempt to use a freed array' at no line, naming no argument; a C
    -- function was 'bad argument #1 to 'jit''
    line = debug.getinfo(1, "l").currentline + 1
    _, e = pcall(function() local r = fma(a, dead); return r end)
    assert.matches(("jit_vectorize_spec.lua:%d: bad argument #2 to 'fma' (attempt to use a freed array)"):format(line), e, 1, true)
    assert.matches("bad argument #3 to 'fma' (option out: attempt to use a freed array)", S.errof(fma, a, 1, {out = dead}), 1, true)
    assert.matches("bad argument #1 to 'vectorize' (a Lua function or a gpu.jit function expected, got number)",
                   S.errof(gpu.vectorize, 5), 1, true)
    assert.matches("bad argument #1 to 'vectorize' (a Lua function written with `function ... end` or a gpu.jit function "
                   .. "expected, got a C function)", S.errof(gpu.vectorize, print), 1, true)
    assert.matches("unknown option", S.errof(gpu.vectorize, function(x) return x end, {nam = "x"}), 1, true)
    assert.matches("a function of at least one argument expected", S.errof(gpu.vectorize, function() return 1 end), 1, true)
    local none = gpu.vectorize(function(x) local y = x end)
    assert.matches("returns nothing for (float32): it must return a number or a boolean", S.errof(none, a), 1, true)
    assert.matches("string concatenation", S.errof(gpu.vectorize, function(x) return x .. "s" end), 1, true)
    assert.are.same({2, 3, 4}, flat(fma(a, 1)))
  end)
end)
