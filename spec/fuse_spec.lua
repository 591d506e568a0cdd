-- gpu.fuse (one kernel for a traced Lua function) and gpu.elementwise (CuPy's
-- ElementwiseKernel): the same results and types as the eager operations, one trace per
-- kind of arguments, broadcasting and views, and the refusals.
local S = require("spec.support")

describe("gpu.fuse", function()
  local x, y = gpu.array({3, 6, -1.5}), gpu.array({4, 8, 2})

  it("gives the eager result, bit for bit, with one kernel", function()
    local body = function(a, b) return gpu.sqrt(a * a + b * b) * 0.5 end
    local f = gpu.fuse(body)
    assert.are.same(body(x, y):totable(), f(x, y):totable())
    assert.are.equal("float32", f(x, y).dtype)
    local g = gpu.fuse(function(a, b) return (a - b) / (a + 1) ^ 2, a:lt(b) end)
    local r, m = g(x, y)
    assert.are.same(((x - y) / (x + 1) ^ 2):totable(), r:totable())
    assert.are.same({true, true, true}, m:totable())
    assert.are.equal("bool", m.dtype)
  end)

  it("types each step as the eager operations do, weak scalars included", function()
    local f = gpu.fuse(function(a, s) return a * s + 1 end)
    local i = gpu.array({1, 2}, "int32")
    assert.are.equal("int32", f(i, 3).dtype)
    assert.are.same({4, 7}, f(i, 3):totable())
    assert.are.equal("float64", f(i, 0.5).dtype)                 -- a second trace
    assert.are.same({1.5, 2}, f(i, 0.5):totable())
    assert.are.equal("float32", f(x, 2).dtype)
    local c = gpu.fuse(function(a) return gpu.where(a:gt(0), a, 0):astype("int16") end)
    assert.are.same({3, 6, 0}, c(x):totable())
    assert.are.equal("int16", c(x).dtype)
    local u = gpu.fuse(function(a, k) return a + k end)
    assert.matches("fused function argument 2: 300 is out of range for uint8",
                   S.errof(u, gpu.zeros(2, "uint8"), 300), 1, true)
  end)

  it("keeps Lua arithmetic on numbers alone weak, as eagerly: the same dtypes and values", function()
    local bodies = {
      function(a, s) return a + (s + 1) end,
      function(a, s) return gpu.sqrt(a * a + s * s) * 0.5 end,
      function(a, s) return a * (s // 2) - s % 3 end,
      function(a, s) return a + s / 2 end,
      function(a, s) return a - (-s) ^ 2 end,
      function(a, s) return (a + (s * 3 - 1)) * 2 end,
      function(a, s) return a + ((s << 2) | 1) end,
      function(a, s, t) return a * (s + t) + (s - t) // 2 end,
    }
    local arrays = {gpu.array({127, 1, 3}, "int8"), gpu.array({255, 0, 7}, "uint8"),
                    gpu.array({1.5, -2, 3e38}, "float32"), gpu.array({-1, 2, 2^40}, "int64")}
    local numbers = {0, 1, -3, 2.5, 126, 2^62}
    local compared = 0
    for b, body in ipairs(bodies) do
      local f = gpu.fuse(body)
      for _, a in ipairs(arrays) do
        for _, s in ipairs(numbers) do
          local t = 2
          local ok1, e = pcall(body, a, s, t)
          local ok2, r = pcall(f, a, s, t)
          local what = ("body %d, %s, %s"):format(b, a.dtype, tostring(s))
          assert.are.equal(ok1, ok2, what .. ": " .. tostring(ok1 and r or e))
          if ok1 then
            assert.are.equal(e.dtype, r.dtype, what)
            assert.are.same(e:totable(), r:totable(), what)
            compared = compared + 1
          end
        end
      end
    end
    assert.is_true(compared > 100)
    local x = gpu.array({3, 4}, "float32")       -- the README's example, with a number for y
    local g = gpu.fuse(function(p, q) return gpu.sqrt(p * p + q * q) * 0.5 end)
    assert.are.equal("float32", g(x, 4).dtype)
    assert.are.same({2.5, gpu.sqrt(x * x + 16):totable()[2] * 0.5}, g(x, 4):totable())
    local i8 = gpu.array({127, 1}, "int8")
    assert.are.same({-128, 2}, gpu.fuse(function(p, q) return p + (q + 1) end)(i8, 0):totable())
  end)

  it("computes numbers from numbers by Lua's rules, with Lua's errors", function()
    local i8 = gpu.array({1, 2}, "int8")
    local f = gpu.fuse(function(a, s) return a + (s + 1) end)
    assert.matches("fused function: 128 (computed from its number arguments) is out of range for int8",
                   S.errof(f, i8, 127), 1, true)
    local d = gpu.fuse(function(a, s) return a + s // 0 end)
    local ok, eager = pcall(function(s) return s // 0 end, 1)
    assert.is_false(ok)
    assert.matches(eager:gsub("^.-:%d+: ", ""), S.errof(d, i8, 1), 1, true)
    assert.are.same({math.huge, math.huge}, d(i8, 1.0):totable())     -- 1.0 // 0 is inf: float64
    assert.are.equal("float64", d(i8, 1.0).dtype)
    assert.matches("number has no integer representation",
                   S.errof(gpu.fuse(function(a, s) return a + (s & 1) end), i8, 1.5), 1, true)
    assert.matches("attempt to perform arithmetic on a boolean value",
                   S.errof(gpu.fuse(function(a, s) return a + (s + 1) end), i8, true), 1, true)
    -- integers wrap as Lua's do, // and % floor
    local w = gpu.fuse(function(a, s) return a:astype("int64") + (s + 1), a:astype("int64") + (-s) // 4, a + (-s) % 4 end)
    local r1, r2, r3 = w(i8, math.maxinteger)
    assert.are.same({math.mininteger + 1, math.mininteger + 2}, r1:totable())
    assert.are.equal("int64", r1.dtype)
    assert.are.equal(math.mininteger // 4 + 1, r2:totable()[1])
    assert.are.same({2, 3}, r3:totable())
    -- a number computed from numbers may be returned: as its Lua type's dtype
    local two, n = gpu.fuse(function(a, s) return a * 2, s * 2 end)(i8, 3)
    assert.are.same({2, 4}, two:totable())
    assert.are.same({6, 6}, n:totable())
    assert.are.equal("int64", n.dtype)
  end)

  it("broadcasts, takes views and {out = }", function()
    local f = gpu.fuse(function(a, b) return a * 10 + b end)
    local col, row = gpu.arange(3):reshape(3, 1), gpu.arange(4)
    assert.are.same((col * 10 + row):totable(), f(col, row):totable())
    local m = gpu.arange(12):reshape(3, 4)
    assert.are.same((m.T * 10 + 1):totable(), f(m.T, 1):totable())
    local out = gpu.zeros({3, 4})
    f(col, row, {out = out})
    assert.are.equal(22, out:item(3, 3))
    -- an out of another dtype within the result's kind, as eagerly (it was refused)
    local twice = gpu.fuse(function(x) return x * 2 end, "twice")
    local o64, o32 = gpu.zeros(4, "float64"), gpu.zeros(4, "float32")
    assert.is_true(rawequal(o64, twice(gpu.arange(1, 5, "float32"), {out = o64})))
    assert.are.same({2, 4, 6, 8}, o64:totable())
    assert.are.same({2, 4, 6, 8}, twice(gpu.arange(1, 5, "float64"), {out = o32}):totable())
    assert.matches("gpu.twice: out is int32, and the result (float64) cannot be cast to it",
                   S.errof(twice, gpu.arange(1, 5, "float64"), {out = gpu.zeros(4, "int32")}), 1, true)
    assert.matches("gpu.cp: output 1 is float64, and the kernel declares it float32",
                   S.errof(gpu.elementwise("float32 x", "float32 z", "z = x", "cp"), gpu.ones(4), o64), 1, true)
  end)

  it("takes a Lua number with a complex array, as its real part (it said 'not an integer: 1.5')", function()
    local C = gpu.complex
    local z = gpu.array({C(1, 2), C(-1, 0.5)}, "complex64")
    local f = gpu.fuse(function(x) return x * 1.5 + 2 end)
    assert.are.equal(tostring(z * 1.5 + 2), tostring(f(z)))
    local g = gpu.fuse(function(x, m) return gpu.where(m, x, true) - 0.25 end)
    local w = gpu.array({C(3, -4), C(0, 1)}, "complex128")
    local m = gpu.array({false, true}, "bool")
    assert.are.equal(tostring(gpu.where(m, w, true) - 0.25), tostring(g(w, m)))
  end)

  -- a -0.0 in the traced function was written into the kernel as 0.0 (-0.0 + 0.0): x * -0.0
  -- gave 0.0 for a positive x, where the eager product (and NumPy's) is -0.0
  it("keeps the sign of a -0.0 it writes into the kernel", function()
    local f = gpu.fuse(function(x) return x * -0.0 end)
    local x = gpu.array({5, -5}, "float64")
    local got, eager = f(x):totable(), (x * -0.0):totable()
    assert.are.same({"-0.0", "0.0"}, {tostring(got[1]), tostring(got[2])})
    assert.are.same({tostring(eager[1]), tostring(eager[2])}, {tostring(got[1]), tostring(got[2])})
  end)

  it("refuses what cannot be traced, naming it", function()
    local captured = gpu.zeros(3)
    assert.matches("gpu.fuse: could not trace", S.errof(gpu.fuse(function(a) return math.sqrt(a) end), x), 1, true)
    assert.matches("use x:lt(y)", S.errof(gpu.fuse(function(a) return a < 1 end), x), 1, true)
    assert.matches("x.sum cannot be traced", S.errof(gpu.fuse(function(a) return a:sum() end), x), 1, true)
    assert.matches("a fused function computes with its arguments and numbers only",
                   S.errof(gpu.fuse(function(a) return a + captured end), x), 1, true)
    assert.matches("returned a number as result 1", S.errof(gpu.fuse(function() return 1 end), x), 1, true)
    assert.matches("returned nothing", S.errof(gpu.fuse(function() end), x), 1, true)
    -- kernels, reductions and fused functions inside a fused function say so (they said
    -- 'cannot tell what T is' and 'device array expected, got table')
    local k = gpu.elementwise("T x", "T z", "z = x * 2", "ewdbl")
    assert.matches("gpu.ewdbl, a gpu.elementwise kernel, cannot be called inside a fused function",
                   S.errof(gpu.fuse(function(a) return k(a) end), x), 1, true)
    local r = gpu.reduction("T x", "T y", "x", "a + b", "y = a", 0, "rsum")
    assert.matches("gpu.rsum, a gpu.reduction kernel, cannot be called inside a fused function: reductions are not fused",
                   S.errof(gpu.fuse(function(a) return r(a) end), x), 1, true)
    -- gpu.vectorize and gpu.reduce functions too (they said "unknown option 'trace'" and
    -- "a device array expected, got table")
    local v = gpu.vectorize(function(z, w) return z + w end, {name = "vadd"})
    assert.matches("'vadd', a gpu.vectorize function, cannot be called inside a fused function",
                   S.errof(gpu.fuse(function(a) return v(2, a) end), x), 1, true)
    local rr = gpu.reduce(function(p, q) return p + q end, {name = "radd"})
    assert.matches("'radd', a gpu.reduce function, cannot be called inside a fused function: reductions are not fused",
                   S.errof(gpu.fuse(function(a) return rr(a) end), x), 1, true)
    assert.matches("bad argument #1 to 'sum' (device array expected, got a value traced by gpu.fuse, which fuses "
                   .. "elementwise operations only (no reductions or other functions))",
                   S.errof(gpu.fuse(function(a) return gpu.sum(a) end), x), 1, true)
    local inner = gpu.fuse(function(a) return a * 2 end)
    assert.matches("a fused function cannot be called inside another fused function",
                   S.errof(gpu.fuse(function(a) return inner(a) + 1 end), x), 1, true)
    assert.matches("bad argument #1 to fused function (device array or number expected, got table)",
                   S.errof(gpu.fuse(function(a) return a end), {1}), 1, true)
    assert.matches("bad argument #1 to 'fuse' (function expected, got number)", S.errof(gpu.fuse, 3), 1, true)
    -- arguments beyond f's parameters are dropped, as a Lua call drops them (an array
    -- among them broadcast the result to its shape)
    local add = gpu.fuse(function(a, b) return a + b end, "add2")
    assert.are.same({3}, add(x, x, gpu.zeros({2, 1})).shape)
    assert.are.same({3}, add(x, x, gpu.zeros({2, 1}), {out = gpu.zeros(3)}).shape)
    assert.are.same({2, 3}, gpu.fuse(function(...) return select(1, ...) + select(2, ...) end)(x, gpu.zeros({2, 1})).shape)
  end)

  it("refuses == of traced values and branches on a boolean argument by its value (both were decided once)", function()
    local v = gpu.array({1, 2, 3}, "float32")
    local h = gpu.fuse(function(a, b) if a == b then return a + 100 end return a + b end)
    assert.matches("gpu.fuse: x == y (Lua's == gives one boolean", S.errof(h, v, v), 1, true)
    local ne = gpu.fuse(function(a, n) if n ~= a then return a * n end return a end)
    assert.matches("use x:eq(y)", S.errof(ne, v, 2), 1, true)
    local b = gpu.fuse(function(a, flag) if flag then return a + 1 end return a * 2 end)
    assert.are.same({2, 4, 6}, b(v, false):totable())
    assert.are.same({2, 3, 4}, b(v, true):totable())
    assert.are.same({2, 4, 6}, b(v, false):totable())
    assert.matches("attempt to perform arithmetic on a boolean value",
                   S.errof(gpu.fuse(function(a, s, t) return a + (s * t) end), v, 2, true), 1, true)
  end)

  it("refuses an integer array to a negative Lua integer power, as eagerly (it ran: -1 ^ -1 gave -1, 3 ^ -1 gave 0)", function()
    local i16 = gpu.array({-1, 0, 3}, "int16")
    local eager = S.errof(function() return i16 ^ -1 end)
    assert.matches("gpu.pow: integers to negative integer powers are not allowed", eager, 1, true)
    local p = gpu.fuse(function(a, n) return a ^ n end)
    assert.are.same({1, 0, 9}, p(i16, 2):totable())
    assert.matches("gpu.pow: integers to negative integer powers are not allowed (fused function argument 2 is -1)",
                   S.errof(p, i16, -1), 1, true)
    assert.matches("gpu.pow: integers to negative integer powers are not allowed (fused function computes -1)",
                   S.errof(gpu.fuse(function(a, n) return a ^ (n - 2) end), i16, 1), 1, true)
    assert.are.same((i16:astype("float32") ^ -1):totable(), p(i16:astype("float32"), -1):totable())
  end)
end)

describe("gpu.elementwise", function()
  it("runs CuPy's squared difference, making the output", function()
    local k = gpu.elementwise("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "sqdiff")
    assert.are.same({4, 9}, k(gpu.array({1, 2}), gpu.array({3, 5})):totable())
    local row, col = gpu.array({1, 2, 3}), gpu.array({{1}, {2}})
    assert.are.same({{0, 1, 4}, {1, 0, 1}}, k(row, col):totable())       -- broadcast
    local z = gpu.zeros(2)
    assert.are.equal(z, k(gpu.array({0, 0}), gpu.array({1, 2}), z))      -- into an output
    assert.are.same({1, 4}, z:totable())
  end)

  it("binds type placeholders from the arrays, and takes numbers, i and n", function()
    local k = gpu.elementwise("T x, T y", "T z", "z = x * y + (T)1", "mul_add")
    local r = k(gpu.array({1, 2}, "int32"), gpu.array({3, 5}, "int32"))
    assert.are.equal("int32", r.dtype)
    assert.are.same({4, 11}, r:totable())
    assert.are.same({2.5, 4}, k(gpu.array({1, 2}, "float64"), 1.5):totable())
    local idx = gpu.elementwise("float32 x", "int64 j, float32 w", "j = i; w = x * n", "index")
    local j, w = idx(gpu.array({7, 7, 7}))
    assert.are.same({0, 1, 2}, j:totable())
    assert.are.same({21, 21, 21}, w:totable())
    local acc = gpu.elementwise("float32 x", "float32 y", "y += x", "accumulate")
    local y = gpu.ones(3)
    acc(gpu.array({1, 2, 3}), y)
    assert.are.same({2, 3, 4}, y:totable())                  -- an output it reads is read first
  end)

  it("keeps an output's elements where a branch or loop assigns nothing (CuPy's output reference)", function()
    local x = gpu.array({-1, 2, -3, 4})
    local pos = gpu.elementwise("float32 x", "float32 z", "if (x > 0) z = x", "positive")
    local z = gpu.full({4}, 7)
    pos(x, z)
    assert.are.same({7, 2, 7, 4}, z:totable())
    local two = gpu.elementwise("float32 x", "float32 z, float32 w", "z = x; if (x < 0) w = -x", "negated")
    local w = gpu.full({4}, 9)
    two(x, z, w)
    assert.are.same({-1, 2, -3, 4}, z:totable())
    assert.are.same({1, 9, 3, 9}, w:totable())
    local loop = gpu.elementwise("float32 x", "float32 z", "for (int j = 0; j < (int)x; j++) z = j", "counted")
    loop(x, z)
    assert.are.same({-1, 1, -3, 3}, z:totable())
    local short = gpu.elementwise("float32 x", "float32 z", "x > 0 && (z = 2 * x)", "shortcut")
    short(x, z)
    assert.are.same({-1, 4, -3, 8}, z:totable())
    -- C++'s spelling `and`, and a branch between two quote characters, are conditional too
    local spelt = gpu.elementwise("float32 x", "float32 z", "(void)(x > 0 and (z = 3 * x))", "spelt")
    spelt(x, z)
    assert.are.same({-1, 6, -3, 12}, z:totable())
    local quoted = gpu.elementwise("float32 x", "float32 z", "char q = '\"'; if (x > 0) z = x; q = '\"'; (void)q", "quoted")
    quoted(x, z)
    assert.are.same({-1, 2, -3, 4}, z:totable())
    -- a comment at the end of the operation does not swallow the statement's end
    local commented = gpu.elementwise("float32 x", "float32 z", "z = x * 2 // twice", "commented")
    assert.are.same({-2, 4, -6, 8}, commented(x):totable())
    -- a chunk name with a newline (it broke the #line before the operation)
    local chunk = load("return gpu.elementwise('float32 x', 'float32 z', 'z = x + 1', 'named')(...)", "=my\nscript")
    assert.are.same({0, 3, -2, 5}, chunk(x):totable())
  end)

  it("refuses what does not fit, naming it", function()
    local k = gpu.elementwise("T x, T y", "T z", "z = x + y", "tsum")
    assert.matches("gpu.tsum: T is float64 from 'y' but float32 from an earlier argument",
                   S.errof(k, gpu.zeros(2), gpu.zeros(2, "float64")), 1, true)
    assert.matches("gpu.tsum: cannot tell what T is: pass an array for 'x'", S.errof(k, 1, 2), 1, true)
    local f = gpu.elementwise("float32 x", "float32 y", "y = x", "f32only")
    assert.matches("gpu.f32only argument 1 is a int32 array; it takes float32", S.errof(f, gpu.zeros(2, "int32")), 1, true)
    assert.matches("gpu.f32only takes 1 inputs", S.errof(f), 1, true)
    -- out both as arguments and in the options: the options' was dropped
    local dbl = gpu.elementwise("T x", "T z", "z = x * 2", "dbl")
    local z, w = gpu.zeros({3}, "float32"), gpu.zeros({3}, "float32")
    assert.matches("gpu.dbl: out is given twice: as argument 2 and in the options",
                   S.errof(dbl, gpu.ones(3), z, {out = w}), 1, true)
    assert.matches("bad input parameter 'float32'", S.errof(gpu.elementwise, "float32", "float32 y", "y = 1"), 1, true)
    local many = {}
    for p = 1, 20 do many[p] = "float32 x" .. p end
    assert.matches("gpu.elementwise: a kernel has at most 16 parameters (inputs and outputs), got 21",
                   S.errof(gpu.elementwise, table.concat(many, ", "), "float32 z", "z = x1"), 1, true)
    assert.matches('x:astype("foo"): unknown dtype \'foo\'',
                   S.errof(gpu.fuse(function(v) return v:astype("foo") end), gpu.ones(2)), 1, true)
    assert.matches("raw parameters are not supported", S.errof(gpu.elementwise, "raw float32 x", "float32 y", "y = 1"), 1, true)
    assert.matches("the name 'i' is reserved", S.errof(gpu.elementwise, "float32 i", "float32 y", "y = 1"), 1, true)
    assert.matches("parameter 'x' appears twice", S.errof(gpu.elementwise, "float32 x", "float32 x", "x = 1"), 1, true)
    assert.matches("'float' in input parameter 'x' is a C type, not a dtype: write float32",
                   S.errof(gpu.elementwise, "float x", "float32 y", "y = x"), 1, true)
    assert.matches("'int' is a C++ keyword", S.errof(gpu.elementwise, "float32 x", "float32 int", "int = x"), 1, true)
    assert.matches("'const' is a C++ keyword", S.errof(gpu.elementwise, "const x", "float32 y", "y = x"), 1, true)
    -- names the kernel's C has: they reached the compiler, which spoke of the generated source
    for _, p in ipairs({{"int32_t x", "int32_t"}, {"uint x", "uint"}, {"float32 NAN", "NAN"}, {"float32 float4", "float4"},
                        {"T INT_MAX", "INT_MAX"}, {"T EW_VEC", "EW_VEC"}, {"float32 M_PI", "M_PI"}, {"float32 FLT_MAX", "FLT_MAX"},
                        {"float32 EW_ROWS", "EW_ROWS"}, {"float32 GPUHOST_CPU", "GPUHOST_CPU"}, {"LDBL_MAX x", "LDBL_MAX"}}) do
      assert.matches("gpu.elementwise: '" .. p[2] .. "' is a name the kernel's C already has",
                     S.errof(gpu.elementwise, p[1], "float32 y", "y = 1"), 1, true)
    end
    assert.matches("gpu.reduction: 'INT_MAX' is a name the kernel's C already has",
                   S.errof(gpu.reduction, "T INT_MAX", "T y", "INT_MAX", "a + b", "y = a", 0, "rmax"), 1, true)
    -- a placeholder named as a function or namespace of C hides it (typedef float sqrt clashed at file scope)
    assert.are.same({2, 2}, gpu.elementwise("sqrt y", "sqrt z", "z = y * 2", "ps")(gpu.ones(2)):totable())
    assert.are.same({1, 1}, gpu.elementwise("min y, sp w", "min z", "z = y", "pm")(gpu.ones(2), gpu.ones(2)):totable())
    assert.are.equal(3, gpu.reduction("min x", "min y", "x", "a + b", "y = a", 0, "rmin")(gpu.ones(3)):item())
    -- ordinary names the headers use (their own helper macros are #undef'd) stay free
    assert.are.same({1, 1}, gpu.elementwise("T x, T a, T N", "T y", "y = x * a * N", "free3")(gpu.ones(2), gpu.ones(2), gpu.ones(2)):totable())
    assert.matches("gpu.reduction: 'rd_acc' is a name the kernel's C already has",
                   S.errof(gpu.reduction, "float32 rd_acc", "float32 y", "rd_acc", "a + b", "y = a", 0, "r1"), 1, true)
    assert.matches("gpu.reduction: 'long' in output parameter 'y' is a C type, not a dtype: write int64",
                   S.errof(gpu.reduction, "T x", "long y", "x", "a + b", "y = a", "0"), 1, true)
    assert.matches("gpu.reduction: reduce_type 'float' is a C type, not a dtype: write float32",
                   S.errof(gpu.reduction, "T x", "T y", "x", "a + b", "y = a", "0", "r", "float"), 1, true)
    local bad, line = gpu.elementwise("float32 x", "float32 y", "y = x +", "broken"), debug.getinfo(1, "l").currentline
    -- the CPU backend checks sources with NVRTC first where NVRTC is installed
    local err = S.errof(bad, gpu.zeros(1))
    assert.truthy(err:find("NVRTC_ERROR_COMPILATION", 1, true) or
                  gpu.backend() == "cpu" and err:find("GPUHOST_CPU_COMPILATION", 1, true), err)
    -- the compilers name the builder, the script's line and the part (not ew_c(807))
    assert.matches(("gpu.elementwise 'broken' (spec/fuse_spec.lua:%d): operation"):format(line), err, 1, true)
    local red, at = gpu.reduction("T x", "T y", "x", "a + q", "y = a", "0", "badred"), debug.getinfo(1, "l").currentline
    assert.matches(("gpu.reduction 'badred' (spec/fuse_spec.lua:%d): reduce_expr"):format(at),
                   S.errof(red, gpu.zeros(1)), 1, true)
  end)

  -- Before: a second output larger than the first was accepted and written over the first's
  -- shape with its own strides (past its end on the strided path), and an operation that
  -- reads its output (y += x) on the transposing tile path started from garbage
  it("refuse outputs of other shapes than the first", function()
    local k = gpu.elementwise("T x", "T a, T b", "a = x; b = x", "two")
    local x = gpu.arange(0, 1000, 1, "float32")[{{-1, 1, -1}}]
    for _, outs in ipairs({{gpu.zeros(3), gpu.zeros({2, 3})}, {gpu.zeros({2, 3}), gpu.zeros({3, 2})},
                           {gpu.zeros({1, 3}), gpu.zeros(3)}}) do
      assert.matches("gpu.two: out has shape", S.errof(k, gpu.array({1, 2, 3}), outs[1], outs[2]), 1, true)
    end
    assert.matches("out has shape {2, 1000} but the result has shape {1000}",
                   S.errof(k, x, gpu.zeros(1000), gpu.zeros({2, 1000})), 1, true)
    local two = gpu.fuse(function(v) return v + 1, v * 2 end)
    assert.matches("out has shape {2, 1000}", S.errof(two, x, {out = {gpu.zeros(1000), gpu.zeros({2, 1000})}}), 1, true)
    local a, b = k(gpu.array({1, 2, 3}), gpu.zeros({2, 3}), gpu.zeros({2, 3}))
    assert.are.same({{1, 2, 3}, {1, 2, 3}}, b:totable())
  end)

  it("read their output on the transposing tile path too (y += x)", function()
    local acc = gpu.elementwise("T x", "T y", "y += x", "acc")
    local keep = gpu.elementwise("T x", "T y", "if (x > 100000) y = x", "keep")
    for _, n in ipairs({{64, 64}, {70, 130}}) do
      local t = gpu.arange(0, n[1] * n[2], 1, "float64"):reshape(n[1], n[2]).T
      local y = gpu.ones({n[2], n[1]}, "float64")
      acc(t, y)
      assert.are.same((t + 1):totable(), y:totable())
      local z = gpu.full({n[2], n[1]}, 7, "float64")
      keep(t, z)
      assert.are.same({7, 7}, {z:min(), z:max()})
    end
  end)
end)

