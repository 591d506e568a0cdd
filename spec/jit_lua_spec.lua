-- gpu.jit computes what Lua 5.4 computes: each function here runs twice, in plain Lua on
-- tables and as a kernel on device arrays, and the two must agree (cases a differential
-- pass found: integer literals, wrapping, uint64 elements, math.log's bases, float loops,
-- multiple assignment, pow of a half). Few kernels, since each costs a compile.
local S = require("spec.support")

-- f(a, o) run by Lua on a table copy of a (o a table of n zeros), and as a one-thread
-- kernel on a (a device array) and n zeros of dtype; both results as Lua tables
local function both(f, a, n, dtype)
  local o = {}
  for i = 1, n do o[i] = 0 end
  f(a:totable(), o)
  local k = gpu.jit(f)
  local d = gpu.zeros(n, dtype)
  k[1, 1](a, d)
  return o, d:totable()
end

-- equal as values, and -0.0 apart from 0.0, nan equal to nan
local function same(want, got)
  assert.are.equal(#want, #got)
  for i = 1, #want do
    local w, g = want[i], got[i]
    if w ~= w then assert.is_true(g ~= g, "element " .. i .. " should be nan")
    else assert.are.equal(w, g, "element " .. i); assert.are.equal(1 / w, 1 / g, "sign of " .. i) end
  end
end

describe("gpu.jit against Lua 5.4", function()
  it("keeps 64 bits where a small literal meets an integer, and wraps as Lua", function()
    local f = function(a, o)
      local n = a[1]
      o[1] = math.max(1, n)                   -- 1 was a C int: jit::max took int and cut n
      o[2] = math.min(-1, -n)
      o[3] = math.max(0, 9223372036854775807)
      local s = 3037000500                    -- s * s passes 2^63: wraps, as in Lua
      o[4] = (s * s < 0) and 1 or 0
      local p = 4611686018427387904           -- 2^62: p + p wraps
      o[5] = (p + p < 0) and 1 or 0
      o[6] = s * s
    end
    local want, got = both(f, gpu.array({5000000000}, "int64"), 6, "int64")
    assert.are.same({5000000000, -5000000000, math.maxinteger, 1, 1, 3037000500 * 3037000500}, want)
    assert.are.same(want, got)
  end)

  it("reads a uint64 element as one Lua integer however it is used", function()
    local f = function(a, o)
      local v = a[1]
      o[1] = a[1] + 0.5        -- was (double)2^64-1 straight from the element
      o[2] = v + 0.5
      o[3] = a[1] / 2
      o[4] = (a[1] < 0) and 1 or 0
    end
    local a = gpu.array({-1}, "int64"):astype("uint64")
    local want, got = both(f, a, 4, "float64")
    assert.are.same({-0.5, -0.5, -0.5, 1}, want)
    same(want, got)
  end)

  it("takes math.log's bases 2 and 10 given at run time as Lua does, and float loops' nan bounds", function()
    local f = function(a, o)
      o[1] = math.log(a[1], a[2])    -- Lua: log10 for a base of 10 (3, not 2.9999999999999996)
      o[2] = math.log(a[3], a[4])    -- log2 for 2 (29, not 29.000000000000004)
      o[3] = math.log(a[3], a[3])
      local n = 0
      for _ = a[5], 1 do n = n + 1 end          -- a nan start: Lua runs the body once
      o[4] = n
      n = 0
      for _ = 1, a[5] do n = n + 1 end          -- an integer loop's nan limit: none
      o[5] = n
      n = 0
      for _ = 1.5, 0, -0.5 do n = n + 1 end
      o[6] = n
      o[7] = a[6] ^ 0.5                         -- pow, not sqrt: (-0)^0.5 is 0, (-inf)^0.5 inf
      o[8] = a[7] ^ 0.5
    end
    -- (2^29, whose log2 both C libraries give exactly: CUDA's log2 of 3 is 1 ulp from glibc's)
    local a = gpu.array({1000, 10, 2^29, 2, 0 / 0, -0.0, -math.huge}, "float64")
    local want, got = both(f, a, 8, "float64")
    assert.are.same({3, 29, 1, 1, 0, 4, 0, math.huge}, want)
    same(want, got)
  end)

  it("gives pow's x ^ 0.5 in a grid kernel too, where the CPU backend's loops are vectorized", function()
    local k = gpu.jit(function(a, o)
      local i = gpu.grid(1)
      if i <= #o then o[i] = a[i] ^ 0.5 end   -- g++ 12 vectorized pow(x, 0.5) as sqrt(x)
    end)
    local x = {}
    for i = 1, 64 do x[i] = ({-0.0, -math.huge, 4, 2.25})[i % 4 + 1] end
    local o = gpu.zeros(64, "float64")
    k[2, 32](gpu.array(x, "float64"), o)
    local want = {}
    for i = 1, 64 do want[i] = x[i] ^ 0.5 end
    same(want, o:totable())
  end)

  it("evaluates a multiple assignment's indices before any store", function()
    local f = function(a, o)
      local i = 1
      i, a[i] = i + 1, 20          -- the manual's example: a[1] (the old i) is set
      o[1] = i
      local j = 3
      a[j], j = 30, 4
      o[2] = j
      a[2], a[a[2] - 1] = 3, 7     -- a[2] read as an index (a[1]) before a[2] is stored
      for k = 1, 5 do o[2 + k] = a[k] end
      local x = 0
      x, x = 1, 2                  -- Lua 5.4 stores the last target first: x is 1
      o[8] = x
      local b = a
      b, b[4] = o, 40              -- the old b (a) is stored into
      o[9] = a[4]
    end
    local a = gpu.array({1, 2, 3, 4, 5}, "int64")
    local want, got = both(f, a, 9, "int64")
    assert.are.same({2, 4, 7, 3, 30, 4, 5, 1, 40}, want)
    assert.are.same(want, got)
  end)

  it("refuses a device function that can end without a value, at its end", function()
    local here = debug.getinfo(1, "S").short_src
    local g = gpu.jit(function(x)
      if x > 1 then return 10 end
    end)
    local k = gpu.jit(function(o, n) o[1] = g(n) end)
    local msg = S.errof(function() k[1, 1](gpu.zeros(1, "int64"), 0) end)
    assert.matches(here .. ":%d+: this function can reach its end without returning a value", msg)
    local v = gpu.vectorize(function(x) if x > 1 then return 10 end end)
    assert.matches("can reach its end without returning a value",
                   S.errof(function() v(gpu.array({0, 5}, "int64")) end), 1, true)
    local bare = gpu.jit(function(x)
      if x > 1 then return end
      return 2
    end)
    local k2 = gpu.jit(function(o, n) o[1] = bare(n) end)
    assert.matches("returns nothing here and a value elsewhere",
                   S.errof(function() k2[1, 1](gpu.zeros(1, "int64"), 0) end), 1, true)
    -- every way that does end in a return compiles: if/else chains, a loop that never ends
    local ok = gpu.jit(function(x)
      if x > 1 then return 1 elseif x < 0 then return -1 else do return 0 end end
    end)
    local spin = gpu.jit(function(x)
      while true do
        if x > 0 then return x end
        x = x + 1
      end
    end)
    -- a loop by goto, and a goto to a label inside a loop (continue), are no way out
    local by_goto = gpu.jit(function(x)
      ::top::
      if x > 10 then return x end
      x = x + 1
      goto top
    end)
    local cont = gpu.jit(function(x)
      while (true) do
        x = x + 1
        if x % 2 == 0 then goto continue end
        if x > 10 then return x end
        ::continue::
      end
    end)
    local k3 = gpu.jit(function(o, n) o[1] = ok(n) + spin(n) + by_goto(n) + cont(n) end)
    local o = gpu.zeros(1, "int64")
    k3[1, 1](o, -3)
    assert.are.same({-1 + 1 + 11 + 11}, o:totable())
    -- a goto past the returns to a label at the end is a way out
    local skip = gpu.jit(function(x)
      if x > 0 then goto skip end
      do return 1 end
      ::skip::
    end)
    local k4 = gpu.jit(function(o, n) o[1] = skip(n) end)
    assert.matches("can reach its end without returning a value",
                   S.errof(function() k4[1, 1](gpu.zeros(1, "int64"), 5) end), 1, true)
  end)

  it("reads numba's a[i, j] as a[i][j], and takes locals named as C's functions", function()
    local k = gpu.jit(function(a, erf, tanh, ew, hypotf)
      local i, j = gpu.grid(2)
      if i <= 2 and j <= 3 then
        a[i, j] = i * 10 + j + erf + tanh + ew + hypotf + gpu.erf(0) + gpu.tanh(0)
      end
    end)
    local a = gpu.zeros({2, 3}, "float64")
    k[1, {2, 3}](a, 0, 0, 0, 0)
    assert.are.same({{11, 12, 13}, {21, 22, 23}}, a:totable())
  end)

  it("refuses an expanded view where the kernel writes it, and reads one", function()
    local e = gpu.zeros(1, "float32"):expand(3)
    local k = gpu.jit(function(a, o)
      local i = gpu.grid(1)
      if i <= #o then o[i] = a[i] + 1 end
    end)
    local o = gpu.zeros(3, "float32")
    k[1, 32](e, o)                     -- read: fine
    assert.are.same({1, 1, 1}, o:totable())
    assert.matches("kernel 'k' argument 2 (o) is an expanded view (a stride of 0) or a view of one, which the kernel writes",
                   S.errof(function() k[1, 32](o, e) end), 1, true)
    local set = gpu.jit(function(x, v) x[1] = v end)
    local through = gpu.jit(function(a, o)
      local b = o
      set(b, a[1])
    end)
    assert.matches("argument 2 (o) is an expanded view", S.errof(function() through[1, 1](o, e) end), 1, true)
    local k2 = gpu.jit(function(a) e[1] = a[1] end)   -- an upvalue: named as one (not a hidden argument 2)
    assert.matches("upvalue 'e' of the gpu.jit function 'k2' is an expanded view",
                   S.errof(function() k2[1, 1](o) end), 1, true)
    local fixed = gpu.jit(function(a, o) o[1] = a[1] end, {signature = "void(float32[:], float32[:])"})
    assert.matches("argument 2 (o) is an expanded view", S.errof(function() fixed[1, 1](o, e) end), 1, true)
    local row = gpu.zeros({1, 3}, "float32"):expand(2, 3)[{2}]   -- a row of one: C-contiguous, shared
    assert.matches("argument 2 (o) is an expanded view", S.errof(function() k[1, 32](o, row) end), 1, true)
    assert.are.same({0, 0, 0}, e:totable())
  end)

  it("evaluates an expression's operands from left to right where a later one has an effect", function()
    -- (C leaves the order of operands and arguments open: g++ took bump(c) - bump(c) from
    -- the right, -1 became 1)
    local function bump_lua(c) c[1] = c[1] + 1; return c[1] end
    local c = {0, 0, 10}
    local want = {bump_lua(c) - bump_lua(c), 0, c[3] - bump_lua(c),
                  math.max(bump_lua(c), 0) - math.max(bump_lua(c), 0), math.fmod(bump_lua(c), 100) - bump_lua(c)}
    local bump = gpu.jit(function(c) c[1] = c[1] + 1; return c[1] end)
    local k = gpu.jit(function(c, o)
      o[1] = bump(c) - bump(c)
      o[2] = gpu.atomic.add(c, 2, 1) - gpu.atomic.add(c, 2, 1)   -- 0 - 1
      o[3] = c[3] - bump(c)                                     -- c[3] read first
      o[4] = math.max(bump(c), 0) - math.max(bump(c), 0)
      o[5] = math.fmod(bump(c), 100) - bump(c)
    end)
    local dc, o = gpu.array({0, 0, 10}, "int64"), gpu.zeros(5, "int64")
    k[1, 1](dc, o)
    want[2] = -1
    assert.are.same({-1, -1, 7, -1, -1}, want)
    assert.are.same(want, o:totable())
    -- an effect before a read, indices of 2-D arrays, one target's index and its value, a
    -- for loop's bounds (start, limit, step), gpu.printf's arguments (each once)
    local BUMP = gpu.jit(function(c) return gpu.atomic.add(c, 1, 1) end)
    local m = gpu.array({{11, 12}, {21, 22}}, "int64")
    local k3 = gpu.jit(function(a, o)
      o[5] = m[BUMP(a)][BUMP(a)]                  -- m[1][2]
      o[a[1]] = BUMP(a)                           -- o[3] = 3: the index first
      local n = 0
      for i = BUMP(a), BUMP(a), BUMP(a) do n = n + 1; o[n] = i end   -- 4, 5, 6: i = 4 once
      o[2] = a[1] + 0 * BUMP(a)                   -- 7 (then 8)
    end)
    local a3, o3 = gpu.array({1}, "int64"), gpu.zeros(5, "int64")
    k3[1, 1](a3, o3)
    gpu.synchronize()
    assert.are.same({4, 7, 3, 0, 12}, o3:totable())
    assert.are.same({8}, a3:totable())
    local k4 = gpu.jit(function(a, o)
      o[1] = gpu.atomic.add(a, 1, 1) + a[1]
      o[2] = BUMP(a) * 10 + a[1]
      o[3] = a[1] - (-BUMP(a))                    -- under a parenthesis and a minus: 3 + 3
    end)
    local a4, o4 = gpu.array({1}, "int64"), gpu.zeros(3, "int64")
    k4[1, 1](a4, o4)
    assert.are.same({3, 23, 6}, o4:totable())
    -- a random draw advances its generator: it is written (an expanded view of one refused)
    local s = gpu.random.create_xoroshiro128p_states(1, 7)
    local draw = gpu.jit(function(st, o) o[1] = gpu.random.xoroshiro128p_uniform_float64(st, 1) end)
    assert.matches("argument 1 (st) is an expanded view", S.errof(function()
      draw[1, 1](s:expand(2, 2), gpu.zeros(1, "float64")) end), 1, true)
  end)

  it("floors floats that no int64 holds as a GPU converts them, and stores floats into uint64 whole", function()
    local k = gpu.jit(function(a, o)
      for i = 1, 5 do o[i] = math.floor(a[i]) end
      o[6] = math.ceil(a[6])
    end)
    local o = gpu.zeros(6, "int64")
    k[1, 1](gpu.array({0 / 0, 1e300, -math.huge, 2^63, -2.5, 2.5}, "float64"), o)
    -- (Lua keeps such a float as it is; C leaves the conversion undefined, x86 gave 2^63)
    assert.are.same({0, math.maxinteger, math.mininteger, math.maxinteger, -3, 3}, o:totable())
    local u = gpu.jit(function(a, o)
      o[1] = a[1]
      o[2] = 1.5e19
      local y
      o[3], y = a[1] * 2, 1
    end)
    local uo = gpu.zeros(3, "uint64")
    u[1, 1](gpu.array({1.5e19 / 2}, "float64"), uo)
    -- (through int64, 2^63 and up were 2^63, or 2^63 - 1 for a constant)
    assert.are.same({1.5e19 / 2, 1.5e19, 1.5e19}, uo:astype("float64"):totable())
    u[1, 1](gpu.array({-2.5}, "float64"), uo)        -- a negative one through int64, as NumPy's
    assert.are.same({-2, 1.5e19}, {uo:astype("int64"):totable()[1], uo:astype("float64"):totable()[2]})
  end)

  it("folds math.floor and math.ceil of a constant that no int64 holds as it converts a variable", function()
    -- the constant was folded to Lua's float (1e300, nan) and emitted as a C conversion C
    -- leaves undefined: math.floor(1e300) - 1 was math.maxinteger; a bitwise operator
    -- refused it as a float, ~ raised an internal error
    local k = gpu.jit(function(x, o)
      o[1] = math.floor(x) - 1
      o[2] = math.floor(1e300) - 1
      o[3] = math.floor(2^63) // 2
      o[4] = math.floor(-math.huge) + 16
      o[5] = math.floor(0 / 0) + 3
      o[6] = math.ceil(math.huge) - 8 & 1
      o[7] = ~math.ceil(1e19)
      o[8] = math.ceil(-1e300) >> 60
    end)
    local o = gpu.zeros(8, "int64")
    k[1, 1](1e300, o)
    local max, min = math.maxinteger, math.mininteger
    assert.are.same({max - 1, max - 1, max // 2, min + 16, 3, 1, min, 8}, o:totable())
  end)

  it("gives an integer 0, never -0, for math.floor and math.ceil of a float from -1 to 0", function()
    -- g++ (the CPU backend's -fno-trapping-math) folded (double)(i64)ceil(x) to ceil(x) and
    -- kept its -0: 1 / math.ceil(-0.25) was -inf, math.floor(-0.0) + 0.0 was -0.0
    local f = function(a, o)
      o[1] = 1 / math.ceil(a[1])
      o[2] = 1 / math.floor(a[2])
      o[3] = math.floor(a[2]) + 0.0
      local k = math.ceil(a[1])
      o[4] = k * 1.0
    end
    for _, dt in ipairs({"float64", "float32"}) do
      local want, got = both(f, gpu.array({-0.25, -0.0}, dt), 4, "float64")
      assert.are.same({math.huge, math.huge, 0.0, 0.0}, want)
      same(want, got)
    end
    local w = gpu.vectorize(function(x) local k = math.floor(x); return k + 0.0 end)
    same({0.0, -1.0}, w(gpu.array({-0.0, -0.5}, "float64")):totable())
  end)

  it("counts an integer loop with a nan limit as Lua 5.4: none up, down to mininteger down", function()
    -- (a nan limit ran no iterations whichever the step's sign)
    local f = function(a, o)
      local n = 0
      for _ = 1, a[1], -1 do n = n + 1; if n >= 5 then break end end
      o[1] = n
      n = 0
      for _ = 1, a[1] do n = n + 1 end
      o[2] = n
      n = 0
      for _ = math.mininteger + 2, a[1], -1 do n = n + 1 end
      o[3] = n
    end
    local want, got = both(f, gpu.array({0 / 0}, "float64"), 3, "int64")
    assert.are.same({5, 0, 3}, want)
    assert.are.same(want, got)
  end)

  it("chooses among numbers with c1 and x or c2 and y or z, parenthesized too", function()
    local f = function(a, o)
      o[1] = a[1] > 50 and 1 or a[1] > 8 and 2 or 3
      o[2] = (a[1] > 5 and 1) or 3
      o[3] = a[1] > 50 and 1 or (a[1] > 80 and 2) or a[1] > 9 and 4 or 5
      o[4] = ((a[1] > 50 and 1) or (a[1] > 8 and 2)) or 3
      o[5] = a[1] < 0 and 1 or a[1] < 5 and 2 or 3
    end
    local want, got = both(f, gpu.array({10}, "int64"), 5, "int64")
    assert.are.same({2, 1, 4, 2, 3}, want)
    assert.are.same(want, got)
  end)

  it("refuses an integer division or fmod by a zero it knows, as Lua raises", function()
    local zero = 0
    local cases = {
      {"attempt to divide by zero", function(a, o) o[1] = a[1] // zero end},     -- an upvalue (Lua 5.4.4's words)
      {"attempt to perform 'n%0'", function(a, o) o[1] = a[1] % (1 - 1) end},   -- (said 'n%%0')
      {"attempt to perform 'n%0'", function(a, o) o[1] = a[1] % (65 >> 8) end},
      {"attempt to perform 'n%0'", function(a, o) o[1] = a[1] % 0 end},
      {"bad argument #2 to 'fmod' (zero)", function(a, o) o[1] = math.fmod(a[1], 0) end},
    }
    for _, c in ipairs(cases) do
      local k = gpu.jit(c[2])
      assert.matches(c[1], S.errof(function() k[1, 1](gpu.array({7}, "int64"), gpu.zeros(1, "int64")) end), 1, true)
    end
    -- floats divide by zero as Lua's floats do
    local f = function(a, o) o[1] = math.fmod(a[1], 0.0); o[2] = a[1] // 0.0; o[3] = a[1] % 0.0 end
    same(both(f, gpu.array({7.0}, "float64"), 3, "float64"))
  end)

  it("takes a name past a local's values as one declared without a value (local x, y = 1)", function()
    -- (it was "local 'y' gets no value", where `local x, y; x = 1` was taken; lua5.4 gives 3)
    local o = gpu.zeros(1, "int64")
    local k = gpu.jit(function(r) local x, y = 1; y = 2; r[1] = x + y end)
    k[1, 1](o)
    assert.are.equal(3, o:item(1))
    local bad = gpu.jit(function(r) local x, y = 1; r[1] = x + y end)
    assert.matches("local 'y' may be nil here", S.errof(function() bad[1, 1](o) end), 1, true)
  end)

  it("refuses a read of a local that may still be nil there, where Lua raises", function()
    local here = debug.getinfo(1, "S").short_src
    local function refused(f)
      local k = gpu.jit(f)
      return S.errof(function() k[1, 1](gpu.array({4}, "int64"), gpu.zeros(1, "int64")) end)
    end
    local line = debug.getinfo(1, "l").currentline + 1
    local msg = refused(function(a, o) local x; if a[1] > 100 then x = 1 end; x = x + 1; o[1] = x end)
    -- (the C declared x = 0: the kernel gave 1)
    assert.matches(("%s:%d: local 'x' may be nil here (declared without a value at line %d"):format(here, line, line),
                   msg, 1, true)
    assert.matches("local 'x' may be nil", refused(function(a, o)
      local x
      for i = 1, a[1] do x = i end                 -- a loop may not run
      o[1] = x
    end), 1, true)
    assert.matches("local 't' may be nil", refused(function(a, o)
      for i = 1, 3 do
        local t                                    -- nil again in each iteration
        if i > 1 then o[1] = t end
        t = i
      end
    end), 1, true)
    assert.matches("local 'x' may be nil", refused(function(a, o)
      local x
      if a[1] > 1 then goto skip end
      x = 1
      ::skip::
      o[1] = x
    end), 1, true)
    -- a goto back to a label that a goto past it reaches without a value (Lua raises)
    assert.matches("local 'x' may be nil", refused(function(a, o)
      local x
      if a[1] > 5 then x = 1 else goto M end
      ::L:: o[1] = x + 0
      do return end
      ::M:: goto L
    end), 1, true)
    assert.matches("local 'x' may be nil", refused(function(a, o) local x; x, o[x] = 1, 2 end), 1, true)
    -- every way gives it a value: compiled, and Lua's numbers
    local f = function(a, o)
      local x, y, z, w, v, u
      if a[1] > 100 then x = 1 else x = 2 end
      while true do y = 3; break end
      repeat z = 5 until true
      if a[1] > 1 then w = 7 else return end
      repeat if a[1] > 0 then v = 11; break end until false   -- ends by its break only
      while not false do u = 13; break end
      o[1] = x + y + z + w + v + u
    end
    local want, got = both(f, gpu.array({4}, "int64"), 1, "int64")
    assert.are.same({41}, want)
    assert.are.same(want, got)
  end)

  it("refuses %d of a float in gpu.printf, as string.format refuses 2.5", function()
    local k = gpu.jit(function(x) gpu.printf("%d\n", x) end)
    assert.matches("gpu.printf: %d takes an integer, got a float64",
                   S.errof(function() k[1, 1](2.5) end), 1, true)
  end)

  it("passes every value of a call that ends an argument list, as Lua does", function()
    local function g() return 2, 3 end   -- what gpu.grid(2) gives the thread (2, 3)
    local function add2_lua(x, y) return x * 10 + y end
    local a = {{1, 2, 3}, {4, 5, 6}}
    local x, y = g()
    local want = {math.max(g()), math.atan(g()), a[x][y], add2_lua(g()), math.fmod(g()),
                  math.ult(g()) and 1 or 0, math.min(g()),
                  math.max(g(), 1), math.max(1, g()), math.max((g()))}   -- (cut to one value)
    local add2 = gpu.jit(add2_lua)
    local k = gpu.jit(function(o, a, c)
      local i, j = gpu.grid(2)
      if i == 2 and j == 3 then
        o[1] = math.max(gpu.grid(2))
        o[2] = math.atan(gpu.grid(2))
        o[3] = a(gpu.grid(2))
        o[4] = add2(gpu.grid(2))
        o[5] = math.fmod(gpu.grid(2))
        o[6] = math.ult(gpu.grid(2)) and 1 or 0
        o[7] = math.min(gpu.grid(2))   -- (gpu.hypot's last bit differs on a GPU)
        o[8] = math.max(gpu.grid(2), 1)
        o[9] = math.max(1, gpu.grid(2))
        o[10] = math.max((gpu.grid(2)))
        gpu.atomic.add(c, gpu.grid(2))   -- c[2] += 3
      end
    end)
    local o, c = gpu.zeros(#want, "float64"), gpu.zeros(3, "int64")
    k[1, {2, 4}](o, gpu.array(a, "float64"), c)
    same(want, o:totable())
    assert.are.same({0, y, 0}, c:totable())
    -- return gpu.grid(2) returns two values, as return x, y does: refused as it is
    local g2 = gpu.jit(function() return gpu.grid(2) end)
    local k2 = gpu.jit(function(o) local p, q = g2(); o[1] = p + q end)
    assert.matches("a gpu.jit function returns at most one value",
                   S.errof(function() k2[1, 1](gpu.zeros(1, "int64")) end), 1, true)
    local script = S.tmpfile([[
local k = gpu.jit(function()
  local i, j = gpu.grid(2)
  if i == 2 and j == 3 then gpu.printf("%d|%d %d %d\n", gpu.grid(2), 7, gpu.grid(2)) end
end)
k[1, {2, 4}]()
gpu.synchronize()
]])
    local out, status = S.host(S.quote(script))
    os.remove(script)
    assert.is_true(status == 0 or status == nil)
    assert.are.equal(string.format("%d|%d %d %d\n", x, 7, g()), out)
  end)

  -- Before: math.floor(gpu.grid(2)) said 'math.floor takes 1 argument, got 2', f3(1, 2,
  -- gpu.grid(2)) 'device function 'f3_lua' takes 3 arguments, got 4'
  it("drops the values of such a call past what the function takes, as Lua does", function()
    local function g() return 2, 3, 4 end   -- what gpu.grid(3) gives the thread (2, 3, 4)
    local function f3_lua(p, q, r) return p * 100 + q * 10 + r end
    local want = {math.floor(g()), math.abs(g()), math.atan(g()), f3_lua(1, 2, g()), f3_lua(g()),
                  math.fmod(g()), math.max(g())}
    local f3 = gpu.jit(f3_lua)
    local k = gpu.jit(function(o)
      local i, j, l = gpu.grid(3)
      if i == 2 and j == 3 and l == 4 then
        o[1] = math.floor(gpu.grid(3))
        o[2] = math.abs(gpu.grid(2))
        o[3] = math.atan(gpu.grid(3))
        o[4] = f3(1, 2, gpu.grid(3))
        o[5] = f3(gpu.grid(3))
        o[6] = math.fmod(gpu.grid(3))
        o[7] = math.max(gpu.grid(3))   -- (it takes them all)
      end
    end)
    local o = gpu.zeros(#want, "float64")
    k[1, {2, 3, 4}](o)
    same(want, o:totable())
    -- an argument written out past them is refused, as before
    local k1 = gpu.jit(function(o) o[1] = math.floor(1, gpu.grid(2)) end)
    assert.matches("math.floor takes 1 argument, got 2",
                   S.errof(function() k1[1, 1](gpu.zeros(1)) end), 1, true)
    local k2 = gpu.jit(function(o) o[1] = f3(1, 2, 3, gpu.grid(2)) end)
    assert.matches("device function 'f3_lua' takes 3 arguments, got 4",
                   S.errof(function() k2[1, 1](gpu.zeros(1)) end), 1, true)
  end)
end)
