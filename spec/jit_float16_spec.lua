-- gpu.jit on float16: float16 arrays (any layout), values, locals, shared and local arrays,
-- a float16 scalar in a signature, atomics, gpu.vectorize and gpu.reduce over float16 arrays,
-- NumPy 2's promotion, and what is refused. The expected values are NumPy 1.24's float16
-- results, computed when this was written (each operation in float32, rounded once): they
-- are compared bit for bit. Few kernels, many cases each: each is a compile.
local S = require("spec.support")

local here = debug.getinfo(1, "S").short_src
local INF, NAN = math.huge, 0 / 0

local function same(got, want, what)
  if want ~= want then
    assert(got ~= got, ("%s: expected nan, got %s"):format(what, tostring(got)))
  else
    assert(got == want, ("%s: expected %.17g, got %.17g"):format(what, want, got))
  end
end

local function same_list(got, want, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do same(got[i], want[i], ("%s [%d]"):format(what, i)) end
end

-- the rows of A and B (float16 arrays), as NumPy holds them
local A = {0.1, -2.5, 3.0, 1000.0, 0.33, -7.75, 65504, 1e-5}
local B = {3, 0.7, -2, 0.001, 0.33, 2.5, 2, 3}
-- NumPy 1.24 on np.float16 arrays a and b (a column a case)
local O = {
  {0.0999755859375, -2.5, 3.0, 1000.0, 0.330078125, -7.75, 65504.0, 1.0013580322265625e-05},  -- a stored
  {3.099609375, -1.7998046875, 1.0, 1000.0, 0.66015625, -5.25, 65504.0, 3.0},  -- a + b
  {-2.900390625, -3.19921875, 5.0, 1000.0, 0.0, -10.25, 65504.0, -3.0},  -- a - b
  {0.2998046875, -1.75, -6.0, 1.0, 0.10894775390625, -19.375, INF, 3.0040740966796875e-05},  -- a * b
  {0.0333251953125, -3.5703125, -1.5, INF, 1.0, -3.099609375, 32752.0, 3.337860107421875e-06},  -- a / b
  {0.0, -4.0, -2.0, INF, 1.0, -4.0, 32752.0, 0.0},  -- a // b (np.floor_divide)
  {0.0999755859375, 0.30078125, -1.0, 0.0008058547973632812, 0.0, 2.25, 0.0, 1.0013580322265625e-05},  -- a % b
  {0.0099945068359375, 6.25, 9.0, INF, 0.10894775390625, 60.0625, INF, 0.0},  -- a ^ 2
  {-0.0999755859375, 2.5, -3.0, -1000.0, -0.330078125, 7.75, -65504.0, -1.0013580322265625e-05},  -- -a
  {0.0099945068359375, -0.25, 0.2998046875, 100.0, 0.032989501953125, -0.77490234375, 6548.0, 1.0132789611816406e-06},  -- a * 0.1
  {1.099609375, -1.5, 4.0, 1001.0, 1.330078125, -6.75, 65504.0, 1.0},  -- a + 1
  {0.316162109375, 1.5810546875, 1.732421875, 31.625, 0.57470703125, 2.783203125, 255.875, 0.0031642913818359375},  -- sqrt(abs(a))
  {20.078125, 2.013671875, 0.1353759765625, 1.0009765625, 1.390625, 12.1796875, 7.390625, 20.078125},  -- exp(b)
  {0.09979248046875, -0.5986328125, 0.14111328125, 0.82666015625, 0.32421875, -0.99462890625, 0.9755859375, 1.0013580322265625e-05},  -- sin(a)
  {3.0, 0.7001953125, 3.0, 1000.0, 0.330078125, 2.5, 65504.0, 3.0},  -- max(a, b)
  {0.0999755859375, -2.5, -2.0, 0.0010004043579101562, 0.330078125, -7.75, 2.0, 1.0013580322265625e-05},  -- minimum(a, b)
  {0.10003662109375, -2.498046875, 2.998046875, 999.5, 0.330078125, -7.74609375, 65472.0, 1.0073184967041016e-05},  -- nextafter(a, b)
  {1.0, 1.0, 4.0, 4.0, 2.0, 1.0, 4.0, 1.0},  -- (a < b) + 2 (a == 0.33) + 4 (a >= 3)
  {1.3994140625, -4.75, -17.5, 3.5, 0.8271484375, -57.625, INF, 0.5},  -- a * b * 3 + 0.5
  {0.0333251953125, -0.83349609375, 1.0, 333.25, 0.11004638671875, -2.583984375, 21840.0, 3.337860107421875e-06},  -- a / 3
  {0.09967041015625, -0.98681640625, 0.9951171875, 1.0, 0.318603515625, -1.0, 1.0, 1.0013580322265625e-05},  -- tanh(a)
}
-- into a float64 array: what other types give
local P = {
  {0.19997557997703552, -2.4000000953674316, 3.0999999046325684, 1000.0999755859375, 0.4300781190395355, -7.650000095367432, 65504.1015625, 0.10001001507043839},  -- a + float32 0.1: float32
  {1.0999755859375, -0.5, 6.0, 1004.0, 5.330078125, -1.75, 65511.0, 8.000010013580322},  -- a + i (int64): float64
  {0.0, -3.0, 3.0, 1000.0, 0.0, -8.0, 65504.0, 0.0},  -- math.floor(a): an integer
}

describe("gpu.jit on float16", function()
  it("computes as NumPy's float16 loops: in float32, rounded to float16 once an operation", function()
    local ops = gpu.jit(function(a, b, c, o, p)
      local i = gpu.grid(1)
      if i > #a then return end
      local x, y = a[i], b[i]
      o[1][i] = x
      o[2][i] = x + y
      o[3][i] = x - y
      o[4][i] = x * y
      o[5][i] = x / y
      o[6][i] = x // y
      o[7][i] = x % y
      o[8][i] = x ^ 2
      o[9][i] = -x
      o[10][i] = x * 0.1
      o[11][i] = x + 1
      o[12][i] = math.sqrt(gpu.abs(x))
      o[13][i] = gpu.exp(y)
      o[14][i] = gpu.sin(x)
      o[15][i] = math.max(x, y)
      o[16][i] = gpu.minimum(x, y)
      o[17][i] = gpu.nextafter(x, y)
      o[18][i] = (x < y and 1 or 0) + (x == 0.33 and 2 or 0) + (x >= 3 and 4 or 0)
      local t = x * y
      t = t * 3
      o[19][i] = t + 0.5
      o[20][i] = x / 3
      o[21][i] = gpu.tanh(x)
      p[1][i] = x + c[i]
      p[2][i] = x + i
      p[3][i] = math.floor(x)
    end)
    local a, b = gpu.array(A, "float16"), gpu.array(B, "float16")
    local o, p = gpu.zeros({#O, 8}, "float16"), gpu.zeros({#P, 8}, "float64")
    ops[1, 8](a, b, gpu.full(8, 0.1, "float32"), o, p)
    local got = o:totable()
    for k = 1, #O do same_list(got[k], O[k], "case " .. k) end
    got = p:totable()
    for k = 1, #P do same_list(got[k], P[k], "float64 case " .. k) end
    assert.are.same({"void(float16[::1], float16[::1], float32[::1], float16[::1], float64[::1])"}, ops:signatures())
  end)

  it("takes strided views and a float16 scalar in a signature; shared and local arrays, "
     .. "device functions and atomics (add, sub, max, min, exch) in float16", function()
    local dev = gpu.jit(function(x, y) return x * y - 1 end)
    local k = gpu.jit(function(a, out, s)
      local i = gpu.grid(1)
      local sh = gpu.shared.array(8, "float16")
      local cnt = gpu.shared.array(1, gpu.float16)
      local lo = gpu.local_array({2, 2}, "half")
      if i == 1 then cnt[1] = 0 end
      sh[i] = a[i] * s
      lo[1][1] = a[i]
      lo[2][2] = s
      gpu.syncthreads()
      out[i] = dev(sh[9 - i], lo(2, 2)) + lo[1][1]
      gpu.atomic.add(out, 9, 1)
      gpu.atomic.add(out, 10, 1)       -- from 2047: 2048, then 2048 + 1 rounds back to 2048
      gpu.atomic.max(out, 11, a[i])
      gpu.atomic.min(out, 12, a[i])
      gpu.atomic.sub(out, 13, 0.25)
      gpu.atomic.add(cnt, 1, 1)
      gpu.syncthreads()
      if i == 1 then
        out[14] = cnt[1]
        out[15] = gpu.atomic.exch(out, 16, 7.5)
      end
    end, {signature = "void(float16[:], float16[:], f2)"})
    local base = gpu.array({0.5, 9, -1.25, 9, 3.3, 9, 100.7, 9, -0.001, 9, 7, 9, 2.2, 9, 60000, 9}, "float16")
    local a = base[{{1, 16, 2}}]
    assert.is_false(a:is_contiguous())
    local out = gpu.array({0, 0, 0, 0, 0, 0, 0, 0, 0, 2047, 0, 100, 0, 0, 0, 3}, "float16")
    k[1, 8](a, out, 0.3)
    same_list(out:totable(), {5400.0, -2.052734375, 2.9296875, 99.6875, 8.0703125, 6.296875, 1.0869140625, 60000.0,
                              8, 2048, 60000, -1.25, -2, 8, 3, 7.5}, "out")
    assert.are.same({"void(float16[:], float16[:], float16)"}, k:signatures())
  end)

  it("types as NumPy 2 promotes: float16 with a weak number stays float16, with float32 "
     .. "float32, with an integer (int64) float64, with complex64 complex64", function()
    local f = gpu.jit(function(h, g, f32, f64, n, c, out)
      local a1 = h[1] + g[1]
      local a2 = h[1] * 0.5
      local a3 = h[1] + 1
      local a4 = h[1] + f32[1]
      local a5 = h[1] + f64[1]
      local a6 = h[1] + n
      local a7 = math.sqrt(h[1])
      local a8 = gpu.exp(h[1]) / 2
      local a9 = gpu.complex(h[1], 1)
      local a10 = h[1] * c[1]
      local a11 = math.floor(h[1])
      local a12 = h[1] < 0.5
      local a13 = gpu.abs(h[1])
      for q = h[1], 10 do out[1] = q end
      out[2] = a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9.real + a10.imag + a11 + (a12 and 1 or 0) + a13
    end)
    local src = f:source("void(float16[:], float16[:], float32[:], float64[:], int64, complex64[:], float64[:])")
    for _, decl in ipairs({"gpu::half a1 =", "gpu::half a2 =", "gpu::half a3 =", "float a4 =", "double a5 =",
                           "double a6 =", "gpu::half a7 =", "gpu::half a8 =", "gpu::complex64 a9 =",
                           "gpu::complex64 a10 =", "long long a11 =", "bool a12 =", "gpu::half a13 =",
                           "float q =", "gpu::array<gpu::half> h"}) do
      assert.is_truthy(src:find(decl, 1, true), decl)
    end
    -- a literal is rounded to float16 where a float16 takes it: 0.5 and 0.1 (0.0999755859375)
    local g = gpu.jit(function(h) h[1] = h[2] > 0.1 and h[2] or 0.1 end)
    assert.matches("gpu::half::from_bits(0x2e66)", g:source("void(float16[:])"), 1, true)
  end)

  it("compares a float16 with an integer literal rounded to float16 first, as NumPy 2 and its arithmetic; "
     .. "with an integer variable exactly", function()
    local k = gpu.jit(function(h, n, o)
      o[1] = h[1] == 2049 and 1 or 0   -- 2049 is float16's 2048, as h[1] - 2049 == 0 and h:eq(2049)
      o[2] = h[1] < 2049 and 1 or 0
      o[3] = 2049 <= h[1] and 1 or 0
      o[4] = h[2] < 65519 and 1 or 0   -- 65519 is 65504, 65520 inf
      o[5] = h[2] < 65520 and 1 or 0
      o[6] = h[1] ~= 2049 and 1 or 0
      o[7] = (h[1] - 2049 == 0) and 1 or 0
      o[8] = h[1] == n and 1 or 0      -- an int64: compared exactly, as Lua does
      o[9] = h[1] < n and 1 or 0
    end)
    local h, o = gpu.array({2048, 65504}, "float16"), gpu.zeros(9, "int64")
    k[1, 1](h, 2049, o)
    assert.are.same({1, 0, 1, 0, 1, 0, 1, 0, 1}, o:totable())
    assert.are.same({true, false}, h:eq(2049):totable())
  end)

  it("gpu.vectorize gives float16 for float16 arrays and Lua floats; gpu.reduce folds float16 arrays",
     function()
    local f = gpu.vectorize(function(x, y) return x * y + 0.1 end)
    local a, b = gpu.array(A, "float16"), gpu.array(B, "float16")
    local r = f(a, b)
    assert.are.equal("float16", r.dtype)
    same_list(r:totable(), {0.39990234375, -1.650390625, -5.8984375, 1.099609375, 0.208984375, -19.28125, INF,
                            0.0999755859375}, "f(a, b)")
    r = f(a, 2.5)
    assert.are.equal("float16", r.dtype)
    same_list(r:totable(), {0.35009765625, -6.1484375, 7.6015625, 2500.0, 0.92529296875, -19.28125, INF,
                            0.0999755859375}, "f(a, 2.5)")
    local sum = gpu.reduce(function(x, y) return x + y end)
    assert.are.equal(36, sum(gpu.array({1, 2, 3, 4, 5, 6, 7, 8}, "float16")))
    -- each step rounded to float16: 2048 + 1 is 2048
    assert.are.equal(2048, sum(gpu.array({{2048}, {1}}, "float16")))
    same(sum(a, {size = 2, init = 0.1}), -2.30078125, "a[1] + a[2] + 0.1")
    local res = gpu.zeros(2, "float16")
    sum(a, {size = 2, res = res})
    same(res:item(1), -2.400390625, "res")
  end)

  it("refuses bitwise operators, float16 indices, complex stores and bitwise atomics", function()
    local function refuses(pattern, fn)
      local line = debug.getinfo(fn, "S").linedefined
      local msg = S.errof(function() return gpu.jit(fn):source("void(float16[:], complex64[:])") end)
      assert.matches(here .. ":" .. line .. ": " .. pattern, msg)
    end
    refuses("the operand of '&' must be an integer, got a float16 %(convert it with math.floor: // of a float is a float, as in Lua%)",
            function(h, c) h[1] = h[2] & 1 end)
    refuses("an array index must be an integer, got a float16", function(h, c) h[1] = h[h[2]] end)
    refuses("storing a complex64 in a float16 array would drop its imaginary part", function(h, c) h[1] = c[1] end)
    refuses("gpu%.atomic%.and_ on a float16 array: it takes int32, int64, uint32, uint64 arrays",
            function(h, c) gpu.atomic.and_(h, 1, 1) end)
    refuses("a condition must be a boolean, got a float16", function(h, c) if h[1] then h[2] = 1 end end)
  end)

  it("writes C that NVRTC compiles for the GPU (no GPU needed)", function()
    local script = S.tmpfile([==[
local dev = gpu.jit(function(x, y) return x * y - 1 end)
local k = gpu.jit(function(a, o, s)
  local i = gpu.grid(1)
  local sh = gpu.shared.array(8, "float16")
  sh[gpu.threadIdx.x] = a[i] % 3 + a[i] // 2 + a[i] ^ 3 - dev(a[i], s) + gpu.nextafter(a[i], 1)
  local v = gpu.shfl_down(sh[1], 1)
  o[i] = gpu.sign(v) * math.abs(v) + (v > 0.5 and v or 2) + (v <= 2049 and 1 or 0) + math.fmod(v, 2) + gpu.hypot(v, 2) + gpu.complex(v, 1).real
  gpu.printf("%f %d %s\n", v, math.floor(v), v)
  o[2] = gpu.atomic.add(a, 1, v) + gpu.atomic.sub(a, 1, 1) + gpu.atomic.max(sh, 1, v) + gpu.atomic.min(o, 1, v)
    + gpu.atomic.exch(a, 2, 0.5)
end, {signature = "void(float16[:], float16[:], float16)"})
print(k:compile())
]==])
    local out, status, err = S.run("GPU_BACKEND=cuda GPUHOST_CACHE_DIR=off " .. S.gpuhost .. " " .. S.quote(script))
    os.remove(script)
    assert.are.equal("", err)
    assert.are.equal("sm_90\tnvrtc\n", out:gsub("sm_%d+", "sm_90"))
    assert.is_true(status == 0 or status == nil)
  end)
end)
