-- gpu.jit: kernels written in Lua. Results are checked against Lua's own arithmetic and
-- against the CUDA C twins, on whichever backend runs the suite; what the generated C looks
-- like is checked through k:source(), and every refused construct by its message and line.
local S = require("spec.support")

local here = debug.getinfo(1, "S").short_src

-- The error of f(...) as a string, with the line (in this file) it must name.
local function refused(line, pattern, f, ...)
  local msg = S.errof(f, ...)
  assert.matches(here .. ":" .. line .. ": " .. pattern, msg, 1, false)
end

-- The first line of this file that has s, other than the lines that look for it.
local function line_of(s)
  local n = 0
  for l in io.lines(here) do
    n = n + 1
    if l:find(s, 1, true) and not l:find("line_of(", 1, true) then return n end
  end
end

local function close(a, b, tol) return math.abs(a - b) <= (tol or 1e-12) * math.max(1, math.abs(b)) end

describe("gpu.jit", function()
  it("runs the seed's vecadd written in Lua, as its CUDA C twin does", function()
    local vecadd = gpu.jit(function(a, b, c)
      local i = gpu.grid(1)
      c[i] = a[i] + b[i]
    end)
    local twin = gpu.kernel(S.VECADD)
    local n = 100003
    gpu.random.seed(11)
    local a, b = gpu.random.uniform(-1, 1, n), gpu.random.uniform(-1, 1, n)
    local c, d = gpu.zeros(n), gpu.zeros(n)
    vecadd[{math.ceil(n / 256), 256}](a, b, c)
    twin[{math.ceil(n / 256), 256}](a, b, d)
    local ch, dh = c:tohost(), d:tohost()
    for i = 1, n, 101 do assert.are.equal(dh[i], ch[i]) end
    assert.are.equal(dh[n], ch[n])
    assert.are.equal("vecadd", vecadd.name)
    assert.are.equal("gpu.jit(vecadd)", tostring(vecadd))
    assert.are.same({"void(float32[::1], float32[::1], float32[::1])"}, vecadd:signatures())
  end)

  it("follows Lua 5.4's integer rules: // and % floor, wraparound, shifts, fmod", function()
    local K = 7
    local clamp = gpu.jit(function(x, lo, hi)
      if x < lo then return lo elseif x > hi then return hi end
      return x
    end)
    local ints = gpu.jit(function(a, out)
      local i = gpu.grid(1)
      if i > #a then return end
      local x = a[i]
      out[i][1] = x // 3
      out[i][2] = x % 3
      out[i][3] = x // -3
      out[i][4] = x % -3
      out[i][5] = math.fmod(x, 3)
      out[i][6] = x * K
      out[i][7] = (x << 3) >> 1
      out[i][8] = x ~ 5 | 64 & ~x
      out[i][9] = math.abs(x)
      out[i][10] = clamp(x, -3, 3)
      out[i][11] = math.maxinteger + x
      out[i][12] = x // (x - x)   -- a 0 at run time gives 0 (a 0 known here: an error)
      out[i][13] = -x
      out[i][14] = math.max(x, 2, -1) + math.min(x, 2)
      out[i][15] = math.ult(x, 5) and 1 or 0
      out[i][16] = x >> 70
      out[i][17] = math.mininteger // -1
      out[i][18] = x > 0 and 1 or -1
    end)
    local vals = {-7, -1, 0, 1, 2, 5, 9, 100, math.maxinteger}
    local out = gpu.zeros({#vals, 18}, gpu.int64)
    ints[{1, 32}](gpu.array(vals, gpu.int64), out)
    local got = out:totable()
    local function clampl(x, lo, hi) if x < lo then return lo elseif x > hi then return hi end return x end
    for i, x in ipairs(vals) do
      local want = {x // 3, x % 3, x // -3, x % -3, math.fmod(x, 3), x * K, (x << 3) >> 1, x ~ 5 | 64 & ~x,
                    math.abs(x), clampl(x, -3, 3), math.maxinteger + x, 0, -x,
                    math.max(x, 2, -1) + math.min(x, 2), math.ult(x, 5) and 1 or 0, x >> 70,
                    math.mininteger // -1, x > 0 and 1 or -1}
      assert.are.same(want, got[i])
    end
  end)

  it("follows Lua's float rules and has the math library", function()
    local scale = gpu.jit(function(x, s) return x * s end)
    local floats = gpu.jit(function(a, out)
      local i = gpu.grid(1)
      local x = a[i]
      out[i][1] = x / 3
      out[i][2] = x // 0.5
      out[i][3] = x % 0.75
      out[i][4] = x ^ 2 + 2 ^ 0.5
      out[i][5] = math.sqrt(math.abs(x))
      out[i][6] = math.floor(x) + math.ceil(x) * 1000
      out[i][7] = scale(x, 0.5)
      out[i][8] = math.exp(x / 10) + math.log(math.abs(x) + 1) + math.log(8, 2) + math.log(100, 10)
      out[i][9] = math.sin(x) * math.cos(x) + math.atan(x, 2) + math.tan(0.5) + math.asin(0.5) + math.acos(0.5)
      out[i][10] = math.pi * x + (x < math.huge and 1 or 0)
      out[i][11] = math.fmod(x, 0.75) + math.max(x, 0.5)
      out[i][12] = 7 // 2 + 7 / 2 + 2 ^ -1
    end)
    local vals = {-2.5, -1, 0, 0.25, 1.5, 3.75}
    local out = gpu.zeros({#vals, 12}, gpu.float64)
    floats[{1, 32}](gpu.array(vals, gpu.float64), out)
    local got = out:totable()
    for i, x in ipairs(vals) do
      local want = {x / 3, x // 0.5, x % 0.75, x ^ 2 + 2 ^ 0.5, math.sqrt(math.abs(x)),
        math.floor(x) + math.ceil(x) * 1000, x * 0.5,
        math.exp(x / 10) + math.log(math.abs(x) + 1) + math.log(8, 2) + math.log(100, 10),
        math.sin(x) * math.cos(x) + math.atan(x, 2) + math.tan(0.5) + math.asin(0.5) + math.acos(0.5),
        math.pi * x + 1, math.fmod(x, 0.75) + math.max(x, 0.5), 7 // 2 + 7 / 2 + 2 ^ -1}
      for j = 1, 12 do assert.is_true(close(got[i][j], want[j]), ("row %d col %d: %s vs %s"):format(i, j, got[i][j], want[j])) end
    end
  end)

  -- % and // against Lua's own results: every pair of a table of values, for int64,
  -- float64 and float32 arrays, and with the divisor a constant (the C takes shortcuts there)
  it("gives Lua 5.4's % and // for every pair of signs, 0, -0.0, inf, nan and the integer limits", function()
    local function same(a, b)   -- the same number, -0.0 apart from 0.0, nan equal to nan
      if a ~= a or b ~= b then return a ~= a and b ~= b end
      return a == b and math.type(a) == math.type(b) and (a ~= 0 or 1 / a == 1 / b)
    end
    local function pairs_of(vals, skip)
      local as, bs = {}, {}
      for _, x in ipairs(vals) do
        for _, y in ipairs(vals) do
          if not (skip and skip(x, y)) then as[#as + 1] = x; bs[#bs + 1] = y end
        end
      end
      return as, bs
    end
    local modiv = gpu.jit(function(a, b, o)
      local i = gpu.grid(1)
      if i <= #a then
        o[i][1] = a[i] % b[i]
        o[i][2] = a[i] // b[i]
      end
    end)
    local mn, mx = math.mininteger, math.maxinteger
    -- integers (not by 0: Lua raises an error there)
    local ia, ib = pairs_of({-7, 7, -2, 2, -3, 3, -1, 1, 0, 5, -5, 1000000007, 1 << 62, mn, mn + 1, mx, mx - 1},
                            function(_, y) return y == 0 end)
    local out = gpu.zeros({#ia, 2}, gpu.int64)
    modiv[{math.ceil(#ia / 128), 128}](gpu.array(ia, gpu.int64), gpu.array(ib, gpu.int64), out)
    for i, row in ipairs(out:totable()) do
      local x, y = ia[i], ib[i]
      assert.is_true(row[1] == x % y and row[2] == x // y,
                     ("%d %% %d, %d // %d: got %d, %d, Lua %d, %d"):format(x, y, x, y, row[1], row[2], x % y, x // y))
    end
    -- floats: float64 exactly; float32 as Lua's result rounded to float32 (the values are
    -- float32's own, and their quotients round alike)
    local inf, nan = math.huge, 0 / 0
    local fvals = {-7.5, 7.5, -2.0, 2.0, -0.75, 0.75, 5.25, -5.25, 3.0, -3.0, 1.0, 0.0, -0.0, inf, -inf, nan}
    local fa, fb = pairs_of(fvals)
    local function f32(v) return (string.unpack("f", string.pack("f", v))) end
    for _, dt in ipairs({"float64", "float32"}) do
      local o = gpu.zeros({#fa, 2}, dt)
      modiv[{math.ceil(#fa / 128), 128}](gpu.array(fa, dt), gpu.array(fb, dt), o)
      for i, row in ipairs(o:totable()) do
        local x, y = fa[i], fb[i]
        local m, q = x % y, x // y
        if dt == "float32" then m, q = f32(m), f32(q) end
        assert.is_true(same(row[1], m) and same(row[2], q),
                       ("%s: %s %% %s, %s // %s: got %s, %s, Lua %s, %s"):format(dt, x, y, x, y, row[1], row[2], m, q))
      end
    end
    -- a constant divisor (powers of 2 are a shift and a mask), an integer with a float
    local consts = gpu.jit(function(a, oi, of)
      local i = gpu.grid(1)
      if i <= #a then
        local x = a[i]
        oi[i][1] = x % 4;  oi[i][2] = x // 4;  oi[i][3] = x % -4; oi[i][4] = x // -4
        oi[i][5] = x % 3;  oi[i][6] = x // -3; oi[i][7] = x % 1;  oi[i][8] = x // -1
        oi[i][9] = x % mn; oi[i][10] = x // mn; oi[i][11] = x % mx; oi[i][12] = x // (1 << 62)
        of[i][1] = x % -2.5; of[i][2] = x // 2.5; of[i][3] = x % -0.0; of[i][4] = x // inf
        of[i][5] = x % -inf; of[i][6] = x % inf
      end
    end)
    local xs = {-9, -4, -1, 0, 1, 3, 4, 9, mn, mn + 1, mx}
    local oi, of = gpu.zeros({#xs, 12}, gpu.int64), gpu.zeros({#xs, 6}, gpu.float64)
    consts[{1, 32}](gpu.array(xs, gpu.int64), oi, of)
    oi, of = oi:totable(), of:totable()
    for i, x in ipairs(xs) do
      local want = {x % 4, x // 4, x % -4, x // -4, x % 3, x // -3, x % 1, x // -1, x % mn, x // mn, x % mx,
                    x // (1 << 62), x % -2.5, x // 2.5, x % -0.0, x // inf, x % -inf, x % inf}
      for j, w in ipairs(want) do
        local got = j <= 12 and oi[i][j] or of[i][j - 12]
        assert.is_true(same(got, w), ("x = %d, column %d: got %s, Lua %s"):format(x, j, got, w))
      end
    end
  end)

  -- an integer and a float compare exactly, as Lua 5.4 does (lvm.c's LTintfloat, LEintfloat,
  -- LTfloatint, LEfloatint, luaV_equalobj), not as two doubles
  it("compares integers with floats exactly, as Lua 5.4 does: (1 << 53) + 1 ~= 2^53", function()
    local two53, mn, mx, inf, nan = 1 << 53, math.mininteger, math.maxinteger, math.huge, 0 / 0
    local ints = {two53, two53 + 1, two53 - 1, -two53, -two53 - 1, mx, mx - 1, mn, mn + 1, 0, 1, -1,
                  (1 << 24) + 1, 1 << 24, 1 << 62}
    local floats = {2.0 ^ 53, 2.0 ^ 53 + 2, 2.0 ^ 63, -2.0 ^ 63, 2.0 ^ 62, nan, inf, -inf, -0.0, 0.0, 0.5, -0.5, 1.0,
                    mx + 0.0, 2.0 ^ 24, 2.0 ^ 24 + 2, 2.0 ^ 64, 1e300}
    local both = gpu.jit(function(ia, fa, o)
      local k = gpu.grid(1)
      if k <= #ia then
        local i, f = ia[k], fa[k]
        o[k][1] = i == f;  o[k][2] = i ~= f;  o[k][3] = i < f;  o[k][4] = i <= f;  o[k][5] = i > f
        o[k][6] = i >= f;  o[k][7] = f == i;  o[k][8] = f ~= i; o[k][9] = f < i;  o[k][10] = f <= i
        o[k][11] = f > i;  o[k][12] = f >= i
      end
    end)
    local function f32(v) return (string.unpack("f", string.pack("f", v))) end
    for _, dt in ipairs({"float64", "float32"}) do
      local ia, fa = {}, {}
      for _, i in ipairs(ints) do
        for _, f in ipairs(floats) do ia[#ia + 1] = i; fa[#fa + 1] = dt == "float32" and f32(f) or f end
      end
      local o = gpu.zeros({#ia, 12}, gpu.bool)
      both[{math.ceil(#ia / 128), 128}](gpu.array(ia, gpu.int64), gpu.array(fa, dt), o)
      for k, row in ipairs(o:totable()) do
        local i, f = ia[k], fa[k]
        local want = {i == f, i ~= f, i < f, i <= f, i > f, i >= f, f == i, f ~= i, f < i, f <= i, f > i, f >= i}
        for j = 1, 12 do
          assert.are.equal(want[j], row[j], ("%s: %d and %s, column %d"):format(dt, i, f, j))
        end
      end
    end
    -- with constants (weak literals and upvalues), on either side, and of constants alone
    local consts = gpu.jit(function(ia, fa, o)
      local k = gpu.grid(1)
      if k <= #ia then
        local i, f = ia[k], fa[k]
        o[k][1] = i == 2 ^ 53;     o[k][2] = 2 ^ 53 ~= i;    o[k][3] = i < 2 ^ 63;    o[k][4] = i >= -2 ^ 63
        o[k][5] = i <= 0.5;        o[k][6] = i > -0.0;       o[k][7] = i == -0.0;     o[k][8] = i < inf
        o[k][9] = i < nan;         o[k][10] = i ~= nan;      o[k][11] = nan >= i;     o[k][12] = -inf < i
        o[k][13] = f < two53 + 1;  o[k][14] = f == two53 + 1; o[k][15] = two53 + 1 <= f; o[k][16] = f == 16777217
        o[k][17] = f < mx;         o[k][18] = mn <= f;       o[k][19] = f == 0;        o[k][20] = f >= 16777217
        o[k][21] = (1 << 53) + 1 == 2 ^ 53; o[k][22] = math.maxinteger < 2 ^ 63; o[k][23] = math.mininteger == -2 ^ 63
        o[k][24] = math.maxinteger + 0.0 == math.maxinteger; o[k][25] = (1 << 53) + 1 > 2 ^ 53
        o[k][26] = 2 ^ 53 + 1 > 2 ^ 53
      end
    end)
    local ia = {two53, two53 + 1, mx, mn, 0, -1, 1, (1 << 24) + 1}
    local fa = {2.0 ^ 53, 2.0 ^ 53 + 2, 2.0 ^ 63, -2.0 ^ 63, 0.0, -0.0, 2.0 ^ 24, nan}
    for _, dt in ipairs({"float64", "float32"}) do
      local o = gpu.zeros({#ia, 26}, gpu.bool)
      consts[{1, 32}](gpu.array(ia, gpu.int64), gpu.array(fa, dt), o)
      for k, row in ipairs(o:totable()) do
        local i, f = ia[k], dt == "float32" and f32(fa[k]) or fa[k]
        local want = {i == 2 ^ 53, 2 ^ 53 ~= i, i < 2 ^ 63, i >= -2 ^ 63, i <= 0.5, i > -0.0, i == -0.0, i < inf,
                      i < nan, i ~= nan, nan >= i, -inf < i,
                      f < two53 + 1, f == two53 + 1, two53 + 1 <= f, f == 16777217, f < mx, mn <= f, f == 0,
                      f >= 16777217, (1 << 53) + 1 == 2 ^ 53, math.maxinteger < 2 ^ 63, math.mininteger == -2 ^ 63,
                      math.maxinteger + 0.0 == math.maxinteger, (1 << 53) + 1 > 2 ^ 53, 2 ^ 53 + 1 > 2 ^ 53}
        for j = 1, 26 do
          assert.are.equal(want[j], row[j], ("%s: i = %d, f = %s, column %d"):format(dt, i, f, j))
        end
      end
    end
    assert.are.same({false, true, true}, {(1 << 53) + 1 == 2 ^ 53, math.maxinteger < 2 ^ 63, f32(16777216) < 16777217})
    -- integers with integers and floats with floats stay plain C comparisons
    local src = consts:source()
    assert.matches("= i == 9007199254740992LL;", src, 1, true)
    assert.matches("= f == 0.0f;", src, 1, true)
    assert.matches("jit::lt_if(i, ", src, 1, true)
    local plain = gpu.jit(function(a, b, x, y, o) o[1] = a < b; o[2] = x < y; o[3] = x < 1 end)
    plain[{1, 1}](1, 2, 1.5, 2.5, gpu.zeros(3, gpu.bool))
    local psrc = plain:source()
    assert.matches("o.contig(0) = a < b;", psrc, 1, true)
    assert.matches("o.contig(1) = x < y;", psrc, 1, true)
    assert.matches("o.contig(2) = x < 1.0;", psrc, 1, true)
    assert.is_nil(psrc:find("_if(", 1, true))
  end)

  it("has if, numeric for (integer and float), while, repeat, break, goto and early return", function()
    local flow = gpu.jit(function(a, out)
      local i = gpu.grid(1)
      local x = a[i]
      if i > #a then return end
      local s = 0
      for k = 1, x do s = s + k end
      out[i][1] = s
      local t = 0
      for k = 10, 1, -3 do t = t * 10 + k end
      out[i][2] = t
      local n = 0
      for _ = 1, x / 2 do n = n + 1 end        -- a float limit is floored
      out[i][3] = n
      local f = 0
      for v = 0.5, 2.0, 0.5 do f = f + v end
      out[i][4] = f
      local w = 0
      while true do
        w = w + 1
        if w >= 5 then break end
      end
      out[i][5] = w
      local r = 0
      repeat local q = r + 1; r = q until q >= 3   -- until sees the body's locals
      out[i][6] = r
      local c = 0
      for k = 1, 10 do
        if k % 2 == 0 then goto continue end
        c = c + k
        ::continue::
      end
      out[i][7] = c
      local m
      if x < 0 then m = -1 elseif x == 0 then m = 0 else m = 1 end
      out[i][8] = m
      do
        local x = 3                                -- shadows
        out[i][9] = x
      end
      out[i][10] = x
      local u, v = 1, 2
      u, v = v, u
      out[i][11] = u * 10 + v
      local big = 0
      for k = math.maxinteger - 2, math.maxinteger do big = big + 1 end  -- no overflow
      out[i][12] = big
    end)
    local vals = {-3, 0, 1, 4, 9}
    local out = gpu.zeros({#vals, 12}, gpu.int64)
    flow[{1, 32}](gpu.array(vals, gpu.int64), out)
    local got = out:totable()
    for i, x in ipairs(vals) do
      local s = 0 for k = 1, x do s = s + k end
      local n = 0 for _ = 1, x / 2 do n = n + 1 end
      assert.are.same({s, 10741, n, 5, 5, 3, 25, x < 0 and -1 or x == 0 and 0 or 1, 3, x, 21, 3}, got[i])
    end
  end)

  it("has shared memory, barriers and atomics: the shared-memory reduction", function()
    local reduce = gpu.jit(function(a, out)
      local sm = gpu.shared.array(256, gpu.float64)
      local tid = gpu.threadIdx.x
      sm[tid] = a[gpu.grid(1)]
      gpu.syncthreads()
      local s = gpu.blockDim.x // 2
      while s > 0 do
        if tid <= s then sm[tid] = sm[tid] + sm[tid + s] end
        gpu.syncthreads()
        s = s // 2
      end
      if tid == 1 then gpu.atomic.add(out, 1, sm[1]) end
    end)
    local n = 10000
    local out = gpu.zeros(1, gpu.float64)
    reduce[{math.ceil(n / 256), 256}](gpu.arange(1, n + 1, gpu.float64), out)
    assert.are.equal(n * (n + 1) / 2, out:totable()[1])
  end)

  it("has every atomic on every dtype it takes, returning the old value", function()
    local ops = gpu.jit(function(i32, u32, i64, u64, f32, f64, old)
      local t = gpu.threadIdx.x
      gpu.atomic.add(i32, 1, t); gpu.atomic.add(u32, 1, t); gpu.atomic.add(i64, 1, t)
      gpu.atomic.add(u64, 1, t); gpu.atomic.add(f32, 1, t); gpu.atomic.add(f64, 1, t)
      gpu.atomic.sub(i32, 2, t); gpu.atomic.sub(i64, 2, t); gpu.atomic.sub(f64, 2, t)
      gpu.atomic.max(i32, 3, t); gpu.atomic.max(u64, 3, t); gpu.atomic.max(f32, 3, t); gpu.atomic.max(f64, 3, -t)
      gpu.atomic.min(i64, 4, -t); gpu.atomic.min(u32, 4, t); gpu.atomic.min(f32, 4, -t); gpu.atomic.min(f64, 4, t)
      gpu.atomic.or_(i32, 5, 1 << (t - 1)); gpu.atomic.xor(u64, 5, 1 << (t - 1)); gpu.atomic.and_(i64, 5, ~(1 << (t - 1)))
      gpu.atomic.inc(u32, 6, 5); gpu.atomic.dec(u32, 7, 100)
      if t == 1 then
        old[1] = gpu.atomic.exch(f64, 8, 2.5)
        old[2] = gpu.atomic.cas(i64, 9, 0, 42)
        old[3] = gpu.atomic.cas(i64, 9, 0, 43)
        old[4] = gpu.atomic.exch(i32, 10, 7)
        old[5] = gpu.atomic.add(i32, 11, 1)      -- out of range: nothing happens, 0
      end
    end)
    local z = {}
    for d, fill in pairs({int32 = 0, uint32 = 0, int64 = 0, uint64 = 0, float32 = 0, float64 = 0}) do
      z[d] = gpu.full(10, fill, d)
    end
    z.uint32 = gpu.array({0, 0, 0, 1000, 0, 0, 0, 0, 0, 0}, gpu.uint32)
    z.int64 = gpu.array({0, 0, 0, 0, -1, 0, 0, 0, 0, 0}, gpu.int64)
    z.float32 = gpu.array({0, 0, 0, 1000, 0, 0, 0, 0, 0, 0}, gpu.float32)
    z.float64 = gpu.array({0, 0, 0, 1000, 0, 0, 0, 1, 0, 0}, gpu.float64)
    local old = gpu.zeros(5, gpu.float64)
    ops[{1, 8}](z.int32, z.uint32, z.int64, z.uint64, z.float32, z.float64, old)
    local r = {}
    for d, a in pairs(z) do r[d] = a:totable() end
    assert.are.equal(36, r.int32[1]); assert.are.equal(36, r.uint32[1]); assert.are.equal(36, r.int64[1])
    assert.are.equal(36, r.uint64[1]); assert.are.equal(36, r.float32[1]); assert.are.equal(36, r.float64[1])
    assert.are.equal(-36, r.int32[2]); assert.are.equal(-36, r.int64[2]); assert.are.equal(-36, r.float64[2])
    assert.are.equal(8, r.int32[3]); assert.are.equal(8, r.uint64[3]); assert.are.equal(8, r.float32[3])
    assert.are.equal(0, r.float64[3])
    assert.are.equal(-8, r.int64[4]); assert.are.equal(1, r.uint32[4]); assert.are.equal(-8, r.float32[4])
    assert.are.equal(1, r.float64[4])
    assert.are.equal(255, r.int32[5]); assert.are.equal(255, r.uint64[5]); assert.are.equal(-256, r.int64[5])
    assert.are.equal(2, r.uint32[6])         -- 0,1,2,3,4,5,0,1,2: wraps past 5
    assert.are.equal(93, r.uint32[7])         -- 0 -> 100 (the limit), then down by one
    assert.are.equal(2.5, r.float64[8])
    assert.are.equal(42, r.int64[9])
    assert.are.equal(7, r.int32[10])
    assert.are.same({1, 0, 42, 0, 0}, old:totable())
  end)

  it("has warp shuffles, ballots, lane ids and syncthreads_count", function()
    local warp = gpu.jit(function(a, out)
      local i = gpu.grid(1)
      local v = a[i]
      local off = 16
      while off > 0 do
        v = v + gpu.shfl_down(v, off)
        off = off // 2
      end
      local lane = gpu.laneid
      local first = gpu.shfl(v, 1)
      local up = gpu.shfl_up_sync(0xffffffff, lane, 1)
      local x = gpu.shfl_xor(lane, 1)
      local b = gpu.ballot_sync(0xffffffff, lane <= 4)
      local n = gpu.syncthreads_count(lane % 2 == 0)
      local any = gpu.any_sync(0xffffffff, lane == 7) and 1 or 0      -- every lane votes
      local all = gpu.all_sync(0xffffffff, lane == 7) and 1 or 0
      if lane == 3 then
        out[1] = first; out[2] = up; out[3] = x; out[4] = b; out[5] = n
        out[6] = any; out[7] = all; out[8] = gpu.warpsize
      end
    end)
    local out = gpu.zeros(8, gpu.int64)
    warp[{1, 32}](gpu.arange(1, 33, gpu.int64), out)
    assert.are.same({528, 2, 4, 15, 16, 1, 0, 32}, out:totable())
  end)

  it("has 2-D grids, a[i][j] and a(i, j), #a, a.size, a.ndim and a.shape[d]", function()
    local where = gpu.jit(function(m, info)
      local x, y = gpu.grid(2)
      m[y][x] = y * 100 + x + m(y, x) * 0
      if x == 1 and y == 1 then
        info[1] = #m; info[2] = m.size; info[3] = m.ndim
        info[4] = m.shape[1]; info[5] = m.shape[2]; info[6] = m.shape[3]
        local w, h = gpu.gridsize(2)
        info[7] = w * 10 + h
        info[8] = gpu.blockDim.x * 10 + gpu.gridDim.y + gpu.blockIdx.x * 0 + gpu.threadIdx.y * 0
      end
    end)
    local m, info = gpu.zeros({3, 4}, gpu.int32), gpu.zeros(8, gpu.int64)
    where[{{2, 2}, {2, 2}}](m, info)
    assert.are.same({{101, 102, 103, 104}, {201, 202, 203, 204}, {301, 302, 303, 304}}, m:totable())
    assert.are.same({12, 12, 2, 3, 4, 0, 44, 22}, info:totable())
  end)

  it("has local arrays, 2-D shared arrays, booleans and narrow integers", function()
    local loc = gpu.jit(function(small, flags, out)
      local t = gpu.local_array(8, gpu.int64)
      local m = gpu.shared.array({2, 3}, gpu.int16)
      for k = 1, 8 do t[k] = k * k end
      local i = gpu.grid(1)
      if i <= 6 then m[(i - 1) // 3 + 1][(i - 1) % 3 + 1] = i * 10 end
      gpu.syncthreads()
      out[i] = t[i] + m[2][3] + t[9] + #t + m.shape[2]
      flags[i] = small[i] > 2 and not (small[i] == 4)
      small[i] = small[i] * 5000                -- wraps in int16
    end)
    local small, flags, out = gpu.arange(8, gpu.int16), gpu.zeros(8, gpu.bool), gpu.zeros(8, gpu.int64)
    loc[{1, 8}](small, flags, out)
    local want = {}
    for i = 1, 8 do want[i] = i * i + 60 + 0 + 8 + 3 end
    assert.are.same(want, out:totable())
    assert.are.same({false, false, false, true, false, true, true, true}, flags:totable())
    assert.are.same({0, 5000, 10000, 15000, 20000, 25000, 30000, 35000 - 65536}, small:totable())
  end)

  it("takes integral floats as local and shared arrays' sizes, as an array's shape does", function()
    local k = gpu.jit(function(o)
      local s = gpu.shared.array(2^3, gpu.int32)           -- was: "size must be an integer constant"
      local m = gpu.shared.array({2^1, 3.0}, gpu.int32)
      local t = gpu.local_array(4.0, gpu.int32)
      s[8], m[2][3], t[4] = 1, 2, 3
      o[1], o[2], o[3], o[4] = s[8] + #s, m[2][3] + m.shape[1] * 10 + m.shape[2] * 100, t[4] + #t, 0
    end)
    local o = gpu.zeros(4, "int32")
    k[1, 1](o)
    assert.are.same({9, 322, 7, 0}, o:totable())
    assert.matches("gpu%.local_array's size must be an integer constant from 1 to",
                   S.errof(function() gpu.jit(function(o) local t = gpu.local_array(2.5, gpu.int32) end)[1, 1](o) end))
  end)

  it("bakes number upvalues in as constants and passes device arrays it reads as arguments", function()
    local alpha = 2.5
    local table_ = gpu.array({10, 20, 30})
    local shift = gpu.jit(function(a) return a + 1 end)
    local k = gpu.jit(function(x, y)
      local i = gpu.grid(1)
      y[i] = alpha * x[i] + table_[i] + shift(0)
    end)
    local x, y = gpu.array({1, 2, 3}), gpu.zeros(3)
    k[{1, 4}](x, y)
    assert.are.same({13.5, 26, 38.5}, y:totable())
    local src = k:source()
    assert.matches("2.5f * (float)x.contig(i - 1)", src, 1, true)
    assert.matches("gpu::array<float> upvalue_table_)", src, 1, true)
    local prepared = k[1, 4]
    prepared(x, y)
    assert.are.same({13.5, 26, 38.5}, y:totable())
  end)

  it("calls gpu.jit functions as device functions, with device, shared and local arrays", function()
    local get = gpu.jit(function(a, i) return a[i] end)
    local put = gpu.jit(function(s, i, v) s[i] = v end)
    local sum = gpu.jit(function(s)
      local total = 0
      for i = 1, #s do total = total + s[i] end
      return total
    end)
    local k = gpu.jit(function(a, out)
      local s = gpu.shared.array(4, gpu.float32)
      local l = gpu.local_array(2, gpu.int32)
      local t = gpu.threadIdx.x
      put(s, t, get(a, t) * 2)
      put(l, 1, t); put(l, 2, 0)               -- local arrays start uninitialized, as in numba
      gpu.syncthreads()
      if t == 1 then out[1] = sum(s) + sum(l) end
    end)
    local out = gpu.zeros(1)
    k[{1, 4}](gpu.array({1, 2, 3, 4}), out)
    assert.are.same({21}, out:totable())
    local src = k:source()
    assert.matches("__device__ void put(float (&s)[4], long long i, float v) {", src, 1, true)
    assert.matches("__device__ float get(gpu::array<float> a, long long i) {", src, 1, true)
    assert.matches("put(s, t, get(a, t) * 2.0f);", src, 1, true)
  end)

  it("reads globals as upvalues are read: when it compiles", function()
    JIT_SPEC_N = 4
    local k = gpu.jit(function(a) a[1] = JIT_SPEC_N end)
    local a = gpu.zeros(1, gpu.int32)
    k[{1, 1}](a)
    JIT_SPEC_N = 5
    k[{1, 1}](a)                                 -- already compiled: still 4
    assert.are.same({4}, a:totable())
    JIT_SPEC_N = nil
  end)

  it("types locals by their first value and widens them, the NumPy way", function()
    local k = gpu.jit(function(a, n, out)
      local s = 0                  -- a literal: takes float32 from a[i]
      for i = 1, n do s = s + a[i] end
      local t = 0
      t = t + 0.5                  -- widened to float64
      local j = n                  -- int64 ...
      local u = j * a[1]           -- ... times float32 is float64
      local c = 3                  -- int64
      out[1] = s + t + u + c
    end)
    local src = k:source("void(float32[:], int64, float32[:])")
    assert.matches("float s = 0.0f;", src, 1, true)
    assert.matches("double t = 0.0;", src, 1, true)
    assert.matches("long long j = n;", src, 1, true)
    assert.matches("double u = (double)j * (double)a[0];", src, 1, true)
    assert.matches("long long c = 3LL;", src, 1, true)   -- a long long (jit::max(1, n) kept n's 64 bits)
    assert.matches("s = s + (float)a[i - 1];", src, 1, true)
  end)

  it("compiles once per signature: Lua integers int64, floats float64, or as options say", function()
    local k = gpu.jit(function(a, v) a[1] = v end)
    local a = gpu.zeros(1, gpu.float64)
    k[{1, 1}](a, 3); k[{1, 1}](a, 4); k[{1, 1}](a, 0.5); k[{1, 1}](a, true and 2 or 0)
    assert.are.same({"void(float64[::1], int64)", "void(float64[::1], float64)"}, k:signatures())
    assert.are.equal(2, a:totable()[1])
    local f32 = gpu.jit(function(a, v) a[1] = v end, {float = "float32", integer = "int32"})
    assert.matches("float v", f32:source("void(float64[:], float32)"), 1, true)
    local f = gpu.zeros(1)
    f32[{1, 1}](f, 0.25); f32[{1, 1}](f, 7)
    assert.are.same({"void(float64[:], float32)", "void(float32[::1], float32)", "void(float32[::1], int32)"},
                    f32:signatures())
    -- an integer int32 cannot hold: named by its Lua name (the C's is v_arg), with int32's range
    assert.matches("kernel 'f32' argument 2 (int v): 1099511627776 out of range for int32: -2147483648 to 2147483647",
                   S.errof(function() f32[{1, 1}](f, 1 << 40) end), 1, true)
    -- a float past float32's range rounds to inf, as NumPy's float32(1e300) (the README says so)
    f32[{1, 1}](f, 1e300)
    assert.are.equal(math.huge, f:totable()[1])
    f32[{1, 1}](f, -1e300)
    assert.are.equal(-math.huge, f:totable()[1])
  end)

  it("compiles a C-contiguous array's a[i] apart (float32[::1], numba's), and views for any layout", function()
    local twice = gpu.jit(function(x) return x[2] * 2 end)
    local k = gpu.jit(function(a, out)
      local i = gpu.grid(1)
      if i <= #out then out[i] = a[i] + twice(a) end
    end)
    local a = gpu.arange(12):astype("float32")
    local out = gpu.zeros(6, "float32")
    k[1, 32](a, out)                               -- contiguous: a[i] as a.contig(i)
    assert.are.same({2, 3, 4, 5, 6, 7}, out:totable())
    k[1, 32](a[{{2, 12, 2}}], out)                 -- a strided view: another signature
    assert.are.same({7, 9, 11, 13, 15, 17}, out:totable())
    k[1, 32](a:reshape({3, 4}).T, out)             -- a transposed 2-D view, read flat in C order
    assert.are.same({8, 12, 16, 9, 13, 17}, out:totable())
    k[1, 32](a:reshape({2, 6}), out)               -- a contiguous 2-D array, read flat
    assert.are.same({2, 3, 4, 5, 6, 7}, out:totable())
    assert.are.same({"void(float32[::1], float32[::1])", "void(float32[:], float32[::1])"}, k:signatures())
    assert.matches("out.contig(i - 1) = ", k:source("void(float32[::1], float32[::1])"), 1, true)
    assert.matches("a.contig(i - 1)", k:source("void(float32[::1], float32[::1])"), 1, true)
    assert.matches("a[i - 1]", k:source("void(float32[:], float32[::1])"), 1, true)
    -- a fixed signature's launcher takes any layout, so [::1] there compiles for any
    local f = gpu.jit(function(a, out)
      local i = gpu.grid(1)
      if i <= #out then out[i] = a[i] end
    end, {signature = "void(float32[::1], float32[::1])"})
    f[1, 32](a[{{1, 12, 2}}], out)
    assert.are.same({0, 2, 4, 6, 8, 10}, out:totable())
    assert.is_nil(f:source():find("contig(", 1, true))
  end)

  it("keeps the C it made on disk for new processes, keyed by everything it depends on", function()
    local cache = os.tmpname()
    os.remove(cache)
    local script = S.tmpfile([[
local alpha, helper = tonumber(arg[1]), gpu.jit(function(x) return x + tonumber_offset end)
local k = gpu.jit(function(y) y[1] = alpha * 2 + helper(1) end)
local y = gpu.zeros(1)
local origin = select(2, k:compile("void(float32[:])"))
k[{1, 1}](y)
print(y:totable()[1], origin)
]])
    local function run(a, offset)
      return (S.run(("GPUHOST_CACHE_DIR=%s %s -e 'tonumber_offset = %s' %s %s"):format(cache, S.gpuhost,
              offset, S.quote(script), a)))
    end
    assert.are.equal("6.0\tc++\n", (run(2, 1):gsub("nvrtc", "c++")))
    assert.are.equal("6.0\tdisk\n", run(2, 1))          -- the memo and the compiled code found
    assert.are.equal("8.0\tc++\n", (run(3, 1):gsub("nvrtc", "c++")))   -- an upvalue changed
    assert.are.equal("9.0\tc++\n", (run(3, 2):gsub("nvrtc", "c++")))   -- a device function's global
    assert.are.equal("9.0\tdisk\n", run(3, 2))
    os.remove(script)
    os.execute("rm -rf " .. S.quote(cache))
  end)

  it("writes C's signed + - * where the values are known small, and wraps as Lua elsewhere", function()
    local k = gpu.jit(function(a, n)
      local i = gpu.grid(1)
      local m = i
      m = m * 4611686018427387904   -- assigned again: not known small
      a[i] = (i + 1) * 2 - 3 + n + m
    end)
    local a = gpu.zeros(2, gpu.int64)
    k[{1, 2}](a, math.maxinteger)
    local want = {}
    for i = 1, 2 do want[i] = (i + 1) * 2 - 3 + math.maxinteger + i * 4611686018427387904 end
    assert.are.same(want, a:totable())   -- both wrapped past 2^63, as Lua's integers do
    local src = k:source()
    assert.matches("a.contig(i - 1) = jit::add(jit::add((((i + 1LL) * 2LL) - 3LL), n), m);", src, 1, true)
    assert.matches("m = jit::mul(m, 4611686018427387904LL);", src, 1, true)
  end)

  it("finds a function it has found before without reading it again, and never another for it", function()
    local cache, path = os.tmpname(), os.tmpname() .. ".lua"
    os.remove(cache)
    -- prints whether gpu.jit loaded its reader (parse.lua), then what the kernels wrote
    local head = [[
local read, embedded = false, gpu._embedded
gpu._embedded = function(name)
  if name == "lua/jit/parse.lua" then read = true end
  return embedded(name)
end
]]
    local tail = [[
local y = gpu.zeros(2)
k[{1, 1}](y, 1)
k[{1, 1}](y, 0.5)
print(read, y:totable()[1], y:totable()[2])
]]
    local function run(text)
      local f = assert(io.open(path, "w")); f:write(head, text, tail); f:close()
      local out, status, err = S.run(("GPUHOST_CACHE_DIR=%s %s %s"):format(cache, S.gpuhost, S.quote(path)))
      assert.are.equal(0, status, err)
      return out
    end
    local k1 = "local k = gpu.jit(function(y, v)\n  y[1] = y[1] + v\nend)\n"
    assert.are.equal("true\t1.5\t0.0\n", run(k1))
    assert.are.equal("false\t1.5\t0.0\n", run(k1))       -- found in the memo: not read
    -- another body on the same lines is read again
    local k2 = "local k = gpu.jit(function(y, v)\n  y[2] = y[2] - v\nend)\n"
    assert.are.equal("true\t0.0\t-1.5\n", run(k2))
    assert.are.equal("false\t0.0\t-1.5\n", run(k2))
    -- a long comment opened on the function's last line: what lexing read past it is checked
    local k3 = "local k = gpu.jit(function(y, v)\n  y[1] = v\nend) --[[\nfirst]]\n"
    assert.are.equal("true\t0.5\t0.0\n", run(k3))
    assert.are.equal("false\t0.5\t0.0\n", run(k3))
    assert.are.equal("true\t0.5\t0.0\n", run((k3:gsub("first", "second"))))
    -- found from the memo, then a signature the C memo lacks: the compiler reads it then
    local k4 = "local k = gpu.jit(function(y, v)\n  y[1] = y[1] + 2 * v\nend)\n"
    run(k4)
    local f = assert(io.open(path, "w"))
    f:write(head, k4, "local y = gpu.zeros(1, gpu.float64)\nk[{1, 1}](y, 3)\n",
            "print(read, y:totable()[1])\n")
    f:close()
    assert.are.equal("true\t6.0\n", (S.run(("GPUHOST_CACHE_DIR=%s %s %s"):format(cache, S.gpuhost, S.quote(path)))))
    os.remove(path)
    os.execute("rm -rf " .. S.quote(cache))
  end)

  it("takes a numba signature, compiled now and launched through the C launcher", function()
    local saxpy = gpu.jit(function(a, x, y)
      local i = gpu.grid(1)
      y[i] = a * x[i] + y[i]
    end, {signature = "void(float32, float32[:], float32[:])"})
    assert.matches("extern \"C\" __global__ void saxpy(float a, gpu::array<float> x, gpu::array<float> y)",
                   saxpy:source(), 1, true)
    local x, y = gpu.array({1, 2}), gpu.array({10, 20})
    saxpy[{1, 2}](2, x, y)
    assert.are.same({12, 24}, y:totable())
    assert.matches("kernel 'saxpy' argument 2 %(gpu::array<float> x%) is a float64 array; the kernel takes float32",
                   S.errof(function() saxpy[{1, 2}](2, gpu.zeros(2, gpu.float64), y) end))
    local five = gpu.jit(function(a, b, c, d, e) end, {signature = "void(f4, f8[:, :], i4, u1[::1], b1)"})
    assert.matches("(float a, gpu::array<double> b, int c_arg, gpu::array<unsigned char> d, bool e) {\n"
                   .. "  long long c = (long long)c_arg;", five:source(), 1, true)
    local two = gpu.jit(function(a, b) end, {signature = "(int64, bool)"})
    assert.matches("(long long a, bool b)", two:source(), 1, true)
    -- a b1 takes a boolean: in Lua every number is true, 0 too (the C launcher made 0 false)
    local pick = gpu.jit(function(o, c) if c then o[1] = 1 else o[1] = 2 end end, {signature = "void(int64[:], b1)"})
    local o = gpu.zeros(1, "int64")
    assert.matches("kernel 'pick' argument 2 (c): b1 takes a boolean, got a number (in Lua every number is true, "
                   .. "0 too: pass c ~= 0)", S.errof(function() pick[1, 1](o, 0) end), 1, true)
    assert.are.same({0}, o:totable())
    pick[1, 1](o, false)
    assert.are.same({2}, o:totable())
    assert.matches("signature 'void%(float33%)': unknown type 'float33'",
                   S.errof(gpu.jit, function(a) end, {signature = "void(float33)"}))
  end)

  it("prints with gpu.printf", function()
    local script = S.tmpfile([[
local k = gpu.jit(function(a)
  local i = gpu.grid(1)
  if i == 2 then gpu.printf("i = %d, x = %.2f, %s, %s %%\n", i, a[i], true, "ok") end
end)
k[{1, 4}](gpu.array({1, 2.5, 3}))
gpu.synchronize()
]])
    local out, status = S.host(S.quote(script))
    os.remove(script)
    assert.is_true(status == 0 or status == nil)
    assert.are.equal("i = 2, x = 2.50, true, ok %\n", out)
  end)

  it("reads gpu.printf's format as string.format does: %% is a percent sign, extra arguments are ignored", function()
    local script = S.tmpfile([[
local k = gpu.jit(function(a, c)
  gpu.printf("progress 50%% done, x=%d\n", 7)
  gpu.printf("%%d=%d\n", 5, 6)
  gpu.printf("%5.1f%%|%%%%|%-3d%% %u %#x %+d % i|%-6s|%5s|\n", a[1], 42, 3, 255, 4, 5, true, "ok")
  gpu.printf("%%%d%%%%\n", 9, gpu.atomic.add(c, 1, 1))
  gpu.printf("no conversions\n", a[1], true, "x")
end)
local c = gpu.zeros(1, gpu.int32)
k[{1, 1}](gpu.array({2.25, 3}), c)
gpu.synchronize()
print(c:totable()[1])   -- the extra argument was evaluated, as Lua evaluates it
]])
    local out, status = S.host(S.quote(script))
    os.remove(script)
    assert.is_true(status == 0 or status == nil)
    local want = string.format("progress 50%% done, x=%d\n", 7) .. string.format("%%d=%d\n", 5, 6)
      .. string.format("%5.1f%%|%%%%|%-3d%% %u %#x %+d % i|%-6s|%5s|\n", 2.25, 42, 3, 255, 4, 5, true, "ok")
      .. string.format("%%%d%%%%\n", 9, 1) .. string.format("no conversions\n", 2.25, true, "x") .. "1\n"
    assert.are.equal(want, out)
  end)

  it("reads functions defined at the prompt, with -e, on stdin and in load(s)", function()
    local prog = "k = gpu.jit(function(a) a[gpu.grid(1)] = 7 end)\na = gpu.zeros(2)\nk[{1, 2}](a)\nprint(a[1] == nil)\n"
    local out = S.host("-i", "k = gpu.jit(function(a) a[gpu.grid(1)] = 7 end)\na = gpu.zeros(2)\nk[{1, 2}](a)\nprint(a:totable()[2])\n")
    assert.matches("\n7%.0\n", "\n" .. out:gsub("> ", ""))
    out = S.host("-e " .. S.quote("local k = gpu.jit(function(a) a[2] = 5 end) local a = gpu.zeros(2) k[{1, 1}](a) print(a:totable()[2])"))
    assert.are.equal("5.0\n", out)
    out = S.host("-", "local k = gpu.jit(function(a) a[1] = 6 end) local a = gpu.zeros(2) k[{1, 1}](a) print(a:totable()[1])")
    assert.are.equal("6.0\n", out)
    local f = load("return function(a) a[1] = 9 end")()
    local a = gpu.zeros(1)
    gpu.jit(f)[{1, 1}](a)
    assert.are.same({9}, a:totable())
    assert.matches("gpu.jit: the source of the function at x:1 is not available",
                   S.errof(gpu.jit, load("return function(a) end", "=x")()), 1, true)
    -- a name given to load without "=" or "@" is no source: it was taken as one ("cannot find
    -- the function"), and a name that was Lua text holding a like function was compiled
    assert.matches('gpu.jit: the source of the function at [string "kernels"]:1 is not available',
                   S.errof(gpu.jit, load("return function(a) a[1] = 1 end", "kernels")()), 1, true)
    local name = "return function(a) a[1] = 999 end"
    assert.matches("is not available", S.errof(gpu.jit, load("return function(a) a[1] = 1 end", name)()), 1, true)
  end)

  -- load(s)'s chunk name holds the first line of s, whose \r (a CRLF line end) went raw into
  -- the generated C's #line and comment, where the preprocessor ends a line at it
  it("compiles functions of load(s) whose first line has a \\r or other control characters", function()
    local a = gpu.zeros(3)
    gpu.jit(load("return \t\v\f\r\nfunction(a) local i = gpu.grid(1); if i <= #a then a[i] = i end end")())[{1, 3}](a)
    assert.are.same({1, 2, 3}, a:totable())
    local twice = gpu.vectorize(load("return\r\nfunction(x) return x * 2 end")())
    assert.are.same({0, 2, 4}, twice(gpu.arange(3)):totable())
    local d = gpu.jit(load("return\r\nfunction(x) return x * 3 end")())
    local o = gpu.zeros(2)
    gpu.jit(function(o) local i = gpu.grid(1); if i <= #o then o[i] = d(i) end end)[{1, 2}](o)
    assert.are.same({3, 6}, o:totable())
  end)

  -- Lua ends a line at \r, \n, \r\n and \n\r alike; gpu.jit counted \n alone (a chunk of \r
  -- line ends: 'cannot find the function'), and a backslash before \r\n in a string stopped
  -- its lexer there ('unfinished string': the function was not found either)
  it("finds its function in a chunk of \\r, \\r\\n or \\n\\r line ends, at Lua's lines", function()
    for _, nl in ipairs({"\r", "\r\n", "\n\r"}) do
      local src = table.concat({"-- a comment", "local s = 'a\\", "b'; return gpu.jit(function(x)",
        "  local i = gpu.grid(1)", "  if i <= #x then x[i] = i + 3 end", "end), gpu.jit(function(x)",
        "  x[1] = zz", "end)"}, nl)
      local k, k2 = assert(load(src))()
      local a = gpu.zeros(3)
      k[{1, 3}](a)
      assert.are.same({4, 5, 6}, a:totable(), (nl:gsub("\r", "CR"):gsub("\n", "LF")))
      assert.matches("^%[string \"%-%- a comment.-\"%]:7: 'zz' is nil here", S.errof(function() k2[{1, 1}](a) end))
    end
  end)

  it("reads a function that reads no global in its own -e or prompt line, not a later one", function()
    local use = "a = gpu.zeros(1) gpu.jit(f)[{1, 1}](a) print(a:totable()[1])"
    local out = S.host("-e 'f = function(a) a[1] = 7 end' -e " .. S.quote("g = function(a) a[1] = 8 end " .. use))
    assert.are.equal("7.0\n", out)
    out = S.host("-e 'f = function(a) a[1] = 7 end' -e " .. S.quote(use))
    assert.are.equal("7.0\n", out)
    out = S.host("-e 'local n = 6 function mk() return function(a) a[1] = n end end' -e 'f = mk()' -e "
                 .. S.quote("h = function(a) a[1] = 2 end " .. use))
    assert.are.equal("6.0\n", out)
    out = S.host("-i", "f = function(a) a[1] = 7 end\ng = function(a) a[1] = 8 end " .. use .. "\n")
    assert.matches("\n7%.0\n", "\n" .. out:gsub("> ", ""))
    local _, status, err = S.run(S.gpuhost .. " -e " .. S.quote("f = load('return function(a) a[1] = 7 end', '=(command line)')()")
                                 .. " -e " .. S.quote(use))
    assert.are.equal(1, status)
    assert.matches("gpu.jit: the source of the function at (command line):1 is not available", err, 1, true)
  end)

  -- Before: gpu.jit read a file's text from disk when it ran: a script that changed (an
  -- edit saved while it ran) changed its kernels, and a script read from a FIFO hung
  it("compiles the code that was loaded, not what the file says later, and reads FIFOs once", function()
    local script = S.tmpfile([[
local f = io.open(arg[0], "rb"); local t = f:read("a"); f:close()
f = io.open(arg[0], "wb"); f:write((t:gsub("a%[i%] = 1", "a[i] = 2", 1))); f:close()
local k = gpu.jit(function(a)
  local i = gpu.grid(1)
  a[i] = 1
end)
local a = gpu.zeros(2, "int32")
k[{1, 2}](a)
print(a:totable()[2])
]])
    local out, status, err = S.run("GPUHOST_CACHE_DIR=off " .. S.gpuhost .. " " .. script)
    os.remove(script)
    assert.are.equal(0, status, err)
    assert.are.equal("1\n", out)
    local fifo = os.tmpname()
    os.remove(fifo)
    assert(os.execute("mkfifo " .. fifo))
    out, status, err = S.run(("(printf '%%s' %s > %s &); timeout 60 %s %s"):format(S.quote(
      "local k = gpu.jit(function(a) a[2] = 3 end)\nlocal a = gpu.zeros(2)\nk[{1, 1}](a)\nprint(a:totable()[2])\n"),
      fifo, S.gpuhost, fifo))
    os.remove(fifo)
    assert.are.equal(0, status, err)
    assert.are.equal("3.0\n", out)
  end)

  it("refuses a function of a file another loader loaded that has changed since", function()
    local name = os.tmpname()
    local src = "return function(a)\n  a[1] = 1\nend\n"
    local function write(text) local f = assert(io.open(name, "w")); f:write(text); f:close() end
    write(src)
    local a = gpu.zeros(1, "int32")
    gpu.jit(load(src, "@" .. name)())[{1, 1}](a)   -- (load: not gpuhost's loader)
    assert.are.same({1}, a:totable())
    local fn = load(src, "@" .. name)()
    write((src:gsub("= 1", "= 2")))
    assert.matches("gpu.jit: " .. name .. " has changed since the function at line 1 was loaded from it",
                   S.errof(gpu.jit, fn), 1, true)
    os.remove(name)
  end)

  it("names the Lua line of an out-of-range access with debug = true", function()
    local over = gpu.jit(function(a, m)
      local i = gpu.grid(1)
      a[i] = i                                   -- debug-spec-1
      if i == 3 then m[i][7] = 1 end
    end, {debug = true})
    local a, m = gpu.zeros(100), gpu.zeros({4, 5})
    local l = line_of("-- debug-spec-1")
    assert.are.equal(here .. ":" .. l .. ": kernel 'over': index 101 out of range for an array of 100 elements (block 1, thread 101)",
                     S.errof(function() over[{1, 101}](a, gpu.zeros({4, 8})) end))
    assert.are.equal(here .. ":" .. (l + 1) .. ": kernel 'over': index (3, 7) out of range for an array of shape 4 x 5 (block 1, thread 3)",
                     S.errof(function() over[{1, 64}](a, m) end))
    over[{1, 64}](a, gpu.zeros({4, 8}))          -- nothing out of range: no error
    assert.are.equal(64, a:totable()[64])
  end)

  it("points the generated C at the Lua lines, so compiler errors name the script", function()
    local k = gpu.jit(function(a)                -- line-spec-1
      local i = gpu.grid(1)
      a[i] = 1
    end)
    local src = k:source("void(float32[:])")
    local l = line_of("-- line-spec-1")
    assert.matches('#line ' .. l .. ' "' .. here .. '"\nextern "C" __global__ void k(gpu::array<float> a) {\n', src, 1, true)
    -- a compiler error in the body is reported at the Lua line it comes from
    local broken = src:gsub("a%[i %- 1%] = 1%.0f;", "a[i - 1] = not_declared;")
    local msg = S.errof(function() gpu.kernel(broken, "k"):compile() end)
    assert.matches(here .. "[:(]" .. (l + 2) .. "[:)]", msg)
  end)
end)

describe("gpu.jit on both backends #cuda", function()
  it("gives the same integers, and floats within a rounding of fused multiply-adds", function()
    local code = [[
local k = gpu.jit(function(a, ints, floats)
  local i = gpu.grid(1)
  local x = a[i]
  local s = gpu.shared.array(128, gpu.int64)
  local t = gpu.threadIdx.x
  s[t] = x * x // 7 - x % 5 + (x << 3 ~ x) + math.maxinteger * x
  gpu.syncthreads()
  local d = gpu.blockDim.x // 2
  while d > 0 do
    if t <= d then s[t] = s[t] + s[t + d] end
    gpu.syncthreads()
    d = d // 2
  end
  if t == 1 then gpu.atomic.add(ints, 1, s[1]) end
  local v = gpu.shfl_down(x, 1) + gpu.laneid
  ints[i + 1] = v
  local f = x * 0.5
  floats[i] = math.sqrt(f) * math.exp(-f / 1000) + f // 3 + f % 0.75
end)
local n = 1024
local a = gpu.arange(1, n + 1, gpu.int64)
local ints, floats = gpu.zeros(n + 1, gpu.int64), gpu.zeros(n, gpu.float32)
k[n // 128, 128](a, ints, floats)
for _, v in ipairs(ints:totable()) do print(v) end
for _, v in ipairs(floats:totable()) do print(("%.9g"):format(v)) end]]
    local cpu, s1, e1 = S.run("GPU_BACKEND=cpu " .. S.gpuhost .. " -e " .. S.quote(code))
    local gpu_out, s2, e2 = S.run("GPU_BACKEND=cuda " .. S.gpuhost .. " -e " .. S.quote(code))
    assert.are.equal(0, s1, e1)
    assert.are.equal(0, s2, e2)
    local a, b = {}, {}
    for l in cpu:gmatch("[^\n]+") do a[#a + 1] = l end
    for l in gpu_out:gmatch("[^\n]+") do b[#b + 1] = l end
    assert.are.equal(1025 + 1024, #a)
    assert.are.equal(#a, #b)
    for i = 1, 1025 do assert.are.equal(a[i], b[i]) end
    for i = 1026, #a do
      assert.is_true(math.abs(tonumber(a[i]) - tonumber(b[i])) <= 1e-5 * math.max(1, math.abs(tonumber(a[i]))))
    end
  end)
end)

describe("the seed's examples in Lua (scripts/*_jit.lua)", function()
  it("print what their CUDA C twins print", function()
    for _, name in ipairs({"grid2d", "memory", "vecadd_error"}) do
      local c = S.host("-e 'gpu.random.seed(1)' scripts/" .. name .. ".lua")
      local jit = S.host("-e 'gpu.random.seed(1)' scripts/" .. name .. "_jit.lua")
      assert.are.equal(c:gsub("scripts/" .. name .. ".lua", "?"), (jit:gsub("scripts/" .. name .. "_jit.lua", "?")))
    end
  end)
end)

describe("gpu.jit launch configurations", function()
  it("with a field past grid, block, shared and stream are refused every time, and poison none", function()
    local k = gpu.jit(function(o) o[1] = o[1] + 1 end)
    local o = gpu.zeros(4)
    assert.matches("unknown field %[3%]", S.errof(function() k[{1, 1, 1024}](o) end))
    k[{1, 1}](o)                                          -- was: the refused config, kept
    assert.matches("unknown field %[3%]", S.errof(function() k[{1, 1, 1024}](o) end))   -- was: k[{1, 1}]'s
    assert.matches("unknown field %['sharde'%]", S.errof(function() k[{1, 1, sharde = 4096}](o) end))
    k[{1, 1}](o)
    assert.are.equal(2, o:totable()[1])
  end)

  it("are read by value at k[config], as gpu.kernel's are: a grid or block table changed later counts", function()
    local src = function(o) gpu.atomic.add(o, 1, 1) end
    local o = gpu.zeros(1, "int32")
    local function threads(run) o:fill(0); run(o); return o:item(1) end
    for _, options in ipairs{{}, {signature = "void(int32[:])"}} do
      local k = gpu.jit(src, options)
      threads(k[1, 1])
      local grid = {1, 1}
      for _, n in ipairs{2, 5, 9} do
        grid[1] = n
        assert.are.equal(n * 4, threads(k[grid, 4]))       -- was: 8 each time (the first grid's)
      end
      local b = {1, 3}
      assert.are.equal(3, threads(k[{1, b}]))
      b[2] = 7
      assert.are.equal(7, threads(k[{1, b}]))             -- was: 3
      assert.are.equal(7, threads(k[{1, {1, 7}}]))        -- was: 3
      local cfg = {2, 4}
      local run = k[cfg]
      cfg[1] = 10
      assert.are.equal(8, threads(run))                   -- was: 40 without a signature
      assert.are.equal(40, threads(k[cfg]))
    end
  end)
end)

describe("gpu.jit refuses", function()
  -- f's refusal names this file and f's first line (+ offset); `at` is when it comes:
  -- "define" (gpu.jit), or the first compile, for signature sig (default float32[:])
  local function refuses(pattern, f, at, sig, offset)
    local line = debug.getinfo(f, "S").linedefined + (offset or 0)
    refused(line, pattern, function()
      local k = gpu.jit(f)
      assert.are.equal("compile", at, "refused only when compiled")
      return k:source(sig or "void(float32[:])")
    end)
  end

  it("tables, closures, varargs, strings, nil, .., method calls and generic for", function()
    refuses("a table constructor %({...}%) is not supported in a gpu.jit function: use a device array, "
            .. "gpu.shared.array or gpu.local_array",
            function(a) local t = {1, 2} end, "define")
    refuses("a function defined inside a gpu.jit function is not supported in a gpu.jit function: "
            .. "define it outside with gpu.jit and call it",
            function(a) local g = function() end end, "define")
    refuses("'%.%.%.' in the parameter list is not supported in a gpu.jit function: name the parameters",
            function(...) end, "define")
    refuses("string concatenation %(%.%.%) is not supported",
            function(a) local s = a .. a end, "define")
    refuses("a method call %(a:f%(%)%) is not supported in a gpu.jit function$",
            function(a) a:free() end, "define")
    refuses("a generic for %(for %.%.%. in%) is not supported in a gpu.jit function: use a numeric for",
            function(a) for k, v in ipairs(a) do end end, "define")
    refuses("nil is not supported in a gpu.jit function: kernel values are numbers, booleans and arrays",
            function(a) local z = nil end, "define")
    refuses("local 'q' cannot hold a string",
            function(a) local q = "text" end, "compile")
    refuses("a function defined inside a gpu.jit function",
            function(a) local function inner() end end, "define")
    refuses("local 'c <close>' is not supported in a gpu.jit function: only <const> is",
            function(a) local c <close> = a end, "define")
  end)

  it("assignments outside the function, unknown names and calls to Lua functions", function()
    local up = 1
    refuses("assigning to 'up', which is not a local of the gpu.jit function",
            function(a) up = 2 end, "define")
    refuses("assigning to 'JIT_SPEC_G'",
            function(a) JIT_SPEC_G = 1 end, "define")
    refuses("gpu%.nothing is not available in a gpu.jit function",
            function(a) gpu.nothing() end, "compile")
    refuses("math%.random is not available",
            function(a) a[1] = math.random() end, "compile")
    refuses("'print' is a Lua function: call gpu.jit functions, gpu%.%* and math%.%*",
            function(a) print(a) end, "compile")
    refuses("'undefined_x' is nil here",
            function(a) a[1] = undefined_x end, "compile")
    local t = {}
    refuses("'t' is a table: a gpu.jit function can use numbers, booleans, device arrays, gpu.jit functions, gpu and math",
            function(a) a[1] = t[1] end, "compile")
    local _ = up
  end)

  it("type mistakes: numbers as conditions, mixed locals, bad indices and operands", function()
    refuses("a condition must be a boolean, got a float32 %(in Lua every number is true, 0 too",
            function(a) if a[1] then a[1] = 0 end end, "compile")
    refuses("local 'x' is given a bool here, and an integer at line %d+: a local holds one kind of value",
            function(a)
              local x = 1
              x = true
            end, "compile", nil, 2)
    refuses("an array index must be an integer, got a float",
            function(a) a[1.5] = 0 end, "compile")
    refuses("the operand of '&' must be an integer, got a float32",
            function(a) a[1] = a[1] & 1 end, "compile")
    -- a local made a float by a later assignment: named, with that line
    local later = function(a)
      local i = 1
      a[i] = 1
      i = i / 2
    end
    local l = debug.getinfo(later, "S").linedefined
    refuses(("an array index must be an integer, got a float: local 'i' is given an integer at "
             .. "line %d and a float at line %d, which makes it a float everywhere"):format(l + 1, l + 3),
            later, "compile", nil, 2)
    -- a local made a float by reading one: that one named, with its lines (it named j, given
    -- an integer and a float both at j's line)
    local through = function(a)
      local i = 1
      local j = i
      a[j] = 1
      i = 1.5
    end
    l = debug.getinfo(through, "S").linedefined
    refuses(("an array index must be an integer, got a float: local 'j' is a float because local 'i' is "
             .. "given an integer at line %d and a float at line %d, which makes it a float everywhere")
            :format(l + 1, l + 4), through, "compile", nil, 3)
    local shifted = function(a, n)
      a[1] = 1 << (n + 1)
      n = 0.5
    end
    l = debug.getinfo(shifted, "S").linedefined
    refuses(("the operand of '<<' must be an integer, got a float64: parameter 'n' is an int64 and is "
             .. "given a float at line %d, which makes it a float64 everywhere"):format(l + 2),
            shifted, "compile", "void(float32[:], int64)", 1)
    refuses("storing a bool in a float32 array",
            function(a) a[1] = true end, "compile")
    refuses("'and' on an integer: in Lua a number is always true",
            function(a) local v = 1 and 2 end, "compile")
    refuses("attempt to ", -- Lua's own message for 1 // 0
            function(a) a[1] = 1 // 0 end, "compile")
    refuses("gpu%.shared%.array's size must be a constant",
            function(a, n) local s = gpu.shared.array(n, gpu.float32) end, "compile", "void(float32[:], int64)")
    refuses("gpu%.atomic%.add on an int8 array: it takes float16, float32, float64, int32, int64, uint32, uint64 arrays",
            function(a) gpu.atomic.add(a, 1, 2) end, "compile", "void(int8[:])")
  end)

  it("gpu.printf formats string.format refuses, and too few arguments for one", function()
    refuses("gpu%.printf: bad argument #3 %(no value%)$",
            function(a) gpu.printf("%d and %d\n", 1) end, "compile")
    refuses("gpu%.printf: bad argument #2 %(no value%)$",
            function(a) gpu.printf("100%% of %d\n") end, "compile")
    refuses("gpu%.printf: invalid conversion '%%y' to 'format'$",
            function(a) gpu.printf("%y\n", 1) end, "compile")
    refuses("gpu%.printf: invalid conversion '%%' to 'format'$",
            function(a) gpu.printf("100%", 1) end, "compile")
    refuses("gpu%.printf: invalid conversion '%%5%%' to 'format'$",
            function(a) gpu.printf("%5%", 1) end, "compile")
    refuses("gpu%.printf: invalid conversion specification: '%%#d'$",
            function(a) gpu.printf("%#d", 1) end, "compile")
    refuses("gpu%.printf: invalid conversion specification: '%%123d'$",
            function(a) gpu.printf("%123d", 1) end, "compile")
    refuses("gpu%.printf: conversion '%%q' is not supported",
            function(a) gpu.printf("%q", 1) end, "compile")
    refuses("gpu%.printf: %%s takes a string constant, a boolean or a number",
            function(a) gpu.printf("%s", a) end, "compile")
    refuses("gpu%.printf: %%s with a precision %(%%5%.1s%) takes a string constant or a boolean",
            function(a) gpu.printf("%5.1s", a[1]) end, "compile")
    -- what string.format says of the same formats
    for _, f in ipairs({{"%d and %d\n", 1}, {"100%% of %d\n"}, {"%y\n", 1}, {"100%", 1}, {"%5%", 1}, {"%#d", 1},
                        {"%123d", 1}}) do
      assert.is_false(pcall(string.format, table.unpack(f)))
    end
  end)

  it("freed arrays, naming the argument, upvalue or global at the launch's line", function()
    local function at(l, pattern) return "^" .. here:gsub("%p", "%%%0") .. ":" .. l .. ": " .. pattern .. "$" end
    -- an argument: by its number and name, on the first launch and on later ones
    local k = gpu.jit(function(a, b) a[1] = b end)
    local freed = gpu.zeros(1)
    freed:free()
    assert.matches(at(line_of("-- freed-arg-1"), "attempt to use a freed array %(kernel 'k' argument 1 %(a%)%)"),
                   S.errof(function() k[{1, 1}](freed, 1) end))   -- freed-arg-1
    k[{1, 1}](gpu.zeros(1), 1)
    assert.matches(at(line_of("-- freed-arg-2"), "attempt to use a freed array %(kernel 'k' argument 1 %(a%)%)"),
                   S.errof(function() k[{1, 1}](freed, 1) end))   -- freed-arg-2
    local run = k[{1, 1}]
    assert.matches(at(line_of("-- freed-arg-3"), "attempt to use a freed array %(kernel 'k' argument 1 %(a%)%)"),
                   S.errof(function() run(freed, 2) end))         -- freed-arg-3
    -- an upvalue (a global) the kernel reads: by its name, not as an argument the user never passed
    local x = gpu.zeros(4)
    local up = gpu.jit(function(a) a[1] = x[1] end)
    local checked = gpu.jit(function(a) a[1] = x[2] end, {debug = true})
    local fixed = gpu.jit(function(a) a[1] = x[3] end, {signature = "void(float32[:])"})
    JIT_SPEC_FREED = gpu.zeros(4)
    local global = gpu.jit(function(a) a[1] = JIT_SPEC_FREED[1] end)
    up[{1, 1}](gpu.zeros(4))
    checked[{1, 1}](gpu.zeros(4))
    global[{1, 1}](gpu.zeros(4))
    x:free()
    JIT_SPEC_FREED:free()
    for _ = 1, 2 do
      assert.matches(at(line_of("-- freed-up-1"), "attempt to use a freed array %(upvalue 'x' of the gpu.jit function 'up'%)"),
                     S.errof(function() up[{1, 1}](gpu.zeros(4)) end))        -- freed-up-1
      assert.matches(at(line_of("-- freed-up-2"), "attempt to use a freed array %(upvalue 'x' of the gpu.jit function 'checked'%)"),
                     S.errof(function() checked[{1, 1}](gpu.zeros(4)) end))   -- freed-up-2
      assert.matches(at(line_of("-- freed-up-3"), "attempt to use a freed array %(upvalue 'x' of the gpu.jit function 'fixed'%)"),
                     S.errof(function() fixed[{1, 1}](gpu.zeros(4)) end))     -- freed-up-3
      assert.matches(at(line_of("-- freed-up-4"), "attempt to use a freed array %(global 'JIT_SPEC_FREED' of the gpu.jit function 'global'%)"),
                     S.errof(function() global[{1, 1}](gpu.zeros(4)) end))    -- freed-up-4
    end
    JIT_SPEC_FREED = nil
    -- freed before the first launch, which compiles: named too (it was the bare message)
    local y = gpu.zeros(2)
    local first = gpu.jit(function(a) a[1] = y[1] end)
    y:free()
    assert.matches("attempt to use a freed array (upvalue 'y' of the gpu.jit function 'first')",
                   S.errof(function() first[{1, 1}](gpu.zeros(1)) end), 1, true)
  end)

  it("a signature whose types do not match the parameters, where the signature is read", function()
    local function f(a) a[1] = 1 end
    assert.matches(here .. ":" .. line_of("-- sig-count-1") .. ": gpu.jit: signature 'void%(float32%[:%], int64%)' has 2 "
                   .. "types for the 1 parameter of 'f' %(a%)$",
                   S.errof(function() local k = gpu.jit(f, {signature = "void(float32[:], int64)"}) return k end))   -- sig-count-1
    local two = gpu.jit(function(a, b) end)
    assert.matches(here .. ":" .. line_of("-- sig-count-2") .. ": gpu.jit: signature 'void%(float32%[:%]%)' has 1 "
                   .. "type for the 2 parameters of 'two' %(a, b%)$",
                   S.errof(function() local src = two:source("void(float32[:])") return src end))   -- sig-count-2
    assert.matches("gpu.jit: signature 'void%(%)' has 0 types for the 2 parameters of 'two' %(a, b%)$",
                   S.errof(function() return two:compile("void()") end))
  end)

  it("malformed signatures, saying what is wrong", function()
    local function f(x, a) a[1] = x end
    for sig, why in pairs({["void(f4, f4[:]"] = "unbalanced parentheses (1 '(' and 0 ')')",
                           ["void(f4, f4[:]))"] = "unbalanced parentheses (1 '(' and 2 ')')",
                           ["f4(f4, f4[:])"] = "a kernel returns nothing: its signature is void(...), not f4(...)",
                           ["void(f4, f4[:]) x"] = "expected void(type, ...), with nothing after the ')'",
                           ["void(f4, f4[banana])"] = "'f4[banana]' is not numba's array dimensions",
                           ["void(f4, f4[::1, :])"] = "'f4[::1, :]' is not numba's array dimensions",
                           ["void(f4, f4[])"] = "'f4[]' is not numba's array dimensions"}) do
      assert.matches("signature '" .. sig .. "': " .. why, S.errof(gpu.jit, f, {signature = sig}), 1, true)
    end
    for _, sig in ipairs({"void(f4, f4[:, :])", "void(f4, f4[ :, ::1 ])", "(f4, f4[::1])", "f4, f4[:]"}) do
      assert.matches("^void%(float32, float32%[", gpu.jit(f, {signature = sig}):signatures()[1])
    end
  end)

  it("an array upvalue or global given another array: passed at the next launch if of its dtype, else an error", function()
    local w = gpu.array({10, 20, 30}, "float32")
    local k = gpu.jit(function(o) local i = gpu.grid(1) if i <= #o then o[i] = w[i] end end)
    local o32, o64 = gpu.zeros(3, "float32"), gpu.zeros(3, "float64")
    k[{1, 32}](o32)
    w = gpu.array({1, 2, 3}, "float32")
    k[{1, 32}](o32); k[{1, 32}](o64)    -- (the float32 kernel passed the first array)
    assert.are.same({1, 2, 3}, o32:totable())
    assert.are.same({1, 2, 3}, o64:totable())
    w:free(); w = gpu.array({4, 5, 6}, "float32")
    k[{1, 32}](o32)
    assert.are.same({4, 5, 6}, o32:totable())
    w = gpu.array({1, 2, 3}, "float64")
    assert.matches(":%d+: upvalue 'w' of the gpu.jit function 'k' holds a float64 array now, and its kernel was "
                   .. "compiled for a float32 array %(an array read from outside may change, but not its dtype",
                   S.errof(function() k[{1, 32}](o32) end))
    w = 7
    assert.matches("upvalue 'w' of the gpu.jit function 'k' holds a number now", S.errof(function() k[{1, 32}](o32) end))
    w = gpu.array({4, 5, 6}, "float32"); w:free()
    assert.matches("attempt to use a freed array (upvalue 'w' of the gpu.jit function 'k')", S.errof(function() k[{1, 32}](o32) end), 1, true)
    local x = gpu.array({1, 2, 3}, "float64")   -- two names of one array part later: each read anew
    local p, q = x, x
    local two = gpu.jit(function(o) local i = gpu.grid(1) if i <= o.size then o[i] = p[i] + 10 * q[i] end end)
    local o = gpu.zeros(3, "float64")
    two[{1, 3}](o)
    q = gpu.array({4, 5, 6}, "float64")
    two[{1, 3}](o)
    assert.are.same({41, 52, 63}, o:totable())
    _G.JIT_SPEC_G = gpu.array({7, 8, 9}, "int32")
    local kg = gpu.jit(function(o) local i = gpu.grid(1) if i <= #o then o[i] = JIT_SPEC_G[i] end end, {debug = true})
    kg[{1, 32}](o32)
    _G.JIT_SPEC_G = gpu.array({1, 1, 2}, "int32")
    kg[{1, 32}](o32)
    assert.are.same({1, 1, 2}, o32:totable())
    _G.JIT_SPEC_G = nil
    assert.matches("global 'JIT_SPEC_G' of the gpu.jit function 'kg' holds nil now", S.errof(function() kg[{1, 32}](o32) end), 1, true)
  end)

  it("an expanded view in an array upvalue it writes: an error naming the upvalue", function()
    local up2 = gpu.zeros(1, "float32"):expand(3)
    local kw = gpu.jit(function(o) up2[2] = o[1] end)
    local o = gpu.ones(1, "float32")
    -- was: "kernel 'kw' argument 2 (upvalue_up2) is an expanded view", kw taking one argument
    assert.matches(":%d+: upvalue 'up2' of the gpu.jit function 'kw' is an expanded view %(a stride of 0%) or a "
                   .. "view of one, which the kernel writes", S.errof(function() kw[{1, 1}](o) end))
    up2 = gpu.zeros(3, "float32")
    kw[{1, 1}](o)
    assert.are.same({0, 1, 0}, up2:totable())
    local r = gpu.zeros(1, "float32"):expand(3)   -- read only: passes
    local kr = gpu.jit(function(o) o[1] = r[2] + 5 end)
    kr[{1, 1}](o)
    assert.are.same({5}, o:totable())
  end)

  it("kernels that return values, recursion and wrong argument counts", function()
    refuses("a kernel returns nothing",
            function(a) return a[1] end, "compile")
    local rec
    rec = gpu.jit(function(x) return rec(x) end)
    refused(debug.getinfo(1, "l").currentline - 1, "'rec' calls itself: recursive gpu.jit functions are not supported",
            function() return gpu.jit(function(a) a[1] = rec(1) end):source("void(float32[:])") end)
    local two = gpu.jit(function(x, y) return x + y end)
    refuses("device function 'two' takes 2 arguments, got 1",
            function(a) a[1] = two(1) end, "compile")
    local k = gpu.jit(function(a, b) end)
    assert.matches(":%d+: kernel 'k' takes 2 arguments, got 1$", S.errof(function() k[{1, 1}](gpu.zeros(1)) end))
    assert.matches(":%d+: kernel 'k' argument 1 %(a%) is a host array: copy it to the device first with gpu.array%(h%)$",
                   S.errof(function() k[{1, 1}](gpu.host.zeros(1), 1) end))
    assert.matches(":%d+: kernel 'k' argument 2 %(b%) is a Lua table: copy it to the device first with gpu.array%(t%)$",
                   S.errof(function() k[{1, 1}](gpu.zeros(1), {}) end))
    local freed = gpu.zeros(1)
    freed:free()
    assert.matches("attempt to use a freed array", S.errof(function() k[{1, 1}](freed, 1) end))
    assert.matches("gpu.jit function 'k' needs a launch configuration", S.errof(function() k(1, 2) end))
    assert.matches("bad argument #1 to 'jit' %(function expected, got number%)", S.errof(gpu.jit, 1))
    local nothing = function() end
    assert.matches("gpu.jit: unknown option 'fast' (it takes signature, name, options, debug, float, integer)", S.errof(gpu.jit, nothing, {fast = true}), 1, true)
    -- debug a boolean, as gpu.kernel's ({debug = 0} and {debug = "false"} turned the checks on)
    local line = debug.getinfo(1, "l").currentline + 1
    local e = S.errof(function() local k2 = gpu.jit(nothing, {debug = 0}); return k2 end)
    assert.are.equal(("%s:%d: gpu.jit: option debug must be a boolean, got number"):format(here, line), e)
    assert.matches("gpu.jit: option debug must be a boolean, got string", S.errof(gpu.jit, nothing, {debug = "false"}), 1, true)
    assert.matches("has no signature compiled yet", S.errof(function() return gpu.jit(nothing):source() end))
  end)
end)

describe("gpu.jit's generated C", function()
  -- every gpu.* and math.* a kernel may use, and every atomic on every dtype it takes
  local program = [==[
local all = "void(float32[:], float64[:], int32[:], int64[:], uint32[:], uint64[:], float32, int64)"
local ks = {}
ks[1] = gpu.jit(function(f, d, i, l, u, q, x, n)
  local t = gpu.threadIdx.x
  local sm = gpu.shared.array({4, 32}, gpu.float32)
  local loc = gpu.local_array(8, gpu.int32)
  sm[1][t] = f[gpu.grid(1)]
  loc[t % 8 + 1] = t
  gpu.syncthreads()
  local v = gpu.shfl_down(sm[1][t], 1) + gpu.shfl_up_sync(0xffffffff, x, 2) + gpu.shfl_xor(n, 1) + gpu.shfl(d[1], 3)
  v = v + gpu.ballot_sync(0xffffffff, t > 3) + gpu.syncthreads_count(t > 1) + gpu.laneid + gpu.activemask()
  if gpu.any_sync(0xffffffff, v > 0) and gpu.all_sync(0xffffffff, v > 0) and gpu.syncthreads_and(v > 0)
     and gpu.syncthreads_or(v > 0) then gpu.syncwarp() end
  gpu.threadfence(); gpu.threadfence_block(); gpu.threadfence_system()
  gpu.printf("%d %f %s %x %5.2g\n", n, x, true, t, v)
  f[1] = math.sqrt(x) + math.exp(x) + math.log(x) + math.log(x, 2) + math.log(x, 10) + math.log(x, 3)
       + math.sin(x) + math.cos(x) + math.tan(x) + math.asin(x) + math.acos(x) + math.atan(x) + math.atan(x, 2)
       + math.abs(x) + math.floor(x) + math.ceil(x) + math.fmod(x, 2) + math.max(x, 1) + math.min(x, 1)
       + x ^ 3 + x % 2 + x // 2 + loc[2] + sm[2][t]
  d[1] = math.sqrt(n) + math.abs(n) + math.fmod(n, 3) + (math.ult(n, 3) and 1 or 0) + n // 3 + n % 3
       + (n << 2) + (n >> 1) + d[2] ^ 0.5
  for k = 1, n, 2 do l[k] = k end
  for k = x, 1, -0.5 do d[2] = k end
end, {signature = all})
ks[2] = gpu.jit(function(f, d, i, l, u, q, x, n)
  local sm = gpu.shared.array(8, gpu.float64)
  local old = gpu.atomic.add(f, 1, x) + gpu.atomic.add(d, 1, x) + gpu.atomic.add(i, 1, n) + gpu.atomic.add(l, 1, n)
    + gpu.atomic.add(u, 1, n) + gpu.atomic.add(q, 1, n) + gpu.atomic.add(sm, 1, x)
  old = old + gpu.atomic.sub(f, 2, x) + gpu.atomic.sub(d, 2, x) + gpu.atomic.sub(i, 2, n) + gpu.atomic.sub(l, 2, n)
    + gpu.atomic.sub(u, 2, n) + gpu.atomic.sub(q, 2, n)
  old = old + gpu.atomic.max(f, 3, x) + gpu.atomic.max(d, 3, x) + gpu.atomic.max(i, 3, n) + gpu.atomic.max(l, 3, n)
    + gpu.atomic.max(u, 3, n) + gpu.atomic.max(q, 3, n)
  old = old + gpu.atomic.min(f, 4, x) + gpu.atomic.min(d, 4, x) + gpu.atomic.min(i, 4, n) + gpu.atomic.min(l, 4, n)
    + gpu.atomic.min(u, 4, n) + gpu.atomic.min(q, 4, n)
  old = old + gpu.atomic.exch(f, 5, x) + gpu.atomic.exch(d, 5, x) + gpu.atomic.exch(i, 5, n) + gpu.atomic.exch(l, 5, n)
    + gpu.atomic.exch(u, 5, n) + gpu.atomic.exch(q, 5, n)
  old = old + gpu.atomic.and_(i, 6, n) + gpu.atomic.and_(l, 6, n) + gpu.atomic.and_(u, 6, n) + gpu.atomic.and_(q, 6, n)
    + gpu.atomic.or_(i, 7, n) + gpu.atomic.or_(l, 7, n) + gpu.atomic.or_(u, 7, n) + gpu.atomic.or_(q, 7, n)
    + gpu.atomic.xor(i, 8, n) + gpu.atomic.xor(l, 8, n) + gpu.atomic.xor(u, 8, n) + gpu.atomic.xor(q, 8, n)
    + gpu.atomic.inc(u, 9, 10) + gpu.atomic.dec(u, 9, 10)
    + gpu.atomic.cas(i, 10, 0, n) + gpu.atomic.cas(l, 10, 0, n) + gpu.atomic.cas(u, 10, 0, n) + gpu.atomic.cas(q, 10, 0, n)
  d[3] = old
end, {signature = all})
ks[3] = gpu.jit(function(f, d, i, l, u, q, x, n)
  f[gpu.grid(1)] = f[1] + d[2] * x
  d[gpu.grid(1)] = n
end, {signature = all, debug = true})
for _, k in ipairs(ks) do print(k:compile()) end
]==]

  it("compiles with NVRTC for the GPU wherever the toolkit is (no GPU needed)", function()
    local script = S.tmpfile(program)
    local out, status, err = S.run("GPU_BACKEND=cuda GPUHOST_CACHE_DIR=off " .. S.gpuhost .. " " .. S.quote(script))
    os.remove(script)
    assert.are.equal("", err)
    assert.are.equal(("sm_90\tnvrtc\n"):rep(3), out:gsub("sm_%d+", "sm_90"))
    assert.is_true(status == 0 or status == nil)
  end)

  it("compiles every atomic on this backend too", function()
    local chunk = assert(load((program:gsub("for _, k in ipairs%(ks%) do print%(k:compile%(%)%) end",
                                            "assert(ks[2]:compile())"))))
    chunk()
  end)
end)
