-- gpu.jit on complex numbers: complex64 and complex128 arrays, their arithmetic with NumPy's
-- promotion, z.real and z.imag, gpu.complex, gpu's functions of complex numbers, and what is
-- refused (with its line). The expected values are NumPy 1.24's, computed when this was
-- written (float64 to 1e-14, float32 to 1e-6); the Mandelbrot counts are numba's example
-- run in Python on the same grid.
local S = require("spec.support")

local here = debug.getinfo(1, "S").short_src
local INF, NAN = math.huge, 0 / 0

-- values of NumPy 1.24 for the rows of A, B, X below
-- (generated: a table a column, see each comment)
local O = {  -- a + b, a - b, a * b, a / b, -a, a * x, x / a, a + 1, a ^ 2, a ^ b, gpu.complex(x, 2.5),
  -- conj, sqrt, exp, log, sin, cos, x stored
  {{4.0, 1.0}, {-2.0, 3.0}, {5.0, 5.0}, {0.1, 0.7000000000000001}, {-1.0, -2.0}, {0.5, 1.0}, {0.1, -0.2}, {2.0, 2.0}, {-3.0, 4.0}, {-27.43638199160605, 19.789310365010714}, {0.5, 2.5}, {1.0, -2.0}, {1.272019649514069, 0.7861513777574233}, {-1.1312043837568135, 2.4717266720048188}, {0.8047189562170503, 1.1071487177940904}, {3.165778513216168, 1.9596010414216063}, {2.0327230070196656, -3.0518977991518}, {0.5, 0.0}},
  {{-5.5, 4.25}, {-1.5, -3.75}, {6.0, -14.5}, {0.4, 0.675}, {3.5, -0.25}, {7.0, -0.5}, {0.5685279187817259, 0.04060913705583757}, {-2.5, 0.25}, {12.1875, -1.75}, {1.6435522181016544e-07, -3.38980166189467e-07}, {-2.0, 2.5}, {-3.5, -0.25}, {0.0667727935036041, 1.8720199266974362}, {0.029258619901043496, 0.007470952217808493}, {1.2553075032491037, 3.070285188804503}, {0.3618024162571129, -0.23656049336703044}, {-0.9658736947415564, -0.08861216384412209}, {-2.0, 0.0}},
  {{1.25, -1.0}, {0.25, -2.0}, {1.125, -0.375}, {-0.75, -2.25}, {-0.75, 1.5}, {2.25, -4.5}, {0.8, 1.6}, {1.75, -1.5}, {-1.6875, -2.25}, {2.1552724684515225, -0.6550461441995039}, {3.0, 2.5}, {0.75, 1.5}, {1.1016013305921617, -0.6808270643580653}, {0.14975065710566118, -2.111696903211843}, {0.5170368837652692, -1.1071487177940904}, {1.6034935732013755, -1.5579700760145927}, {1.7212319305052317, 1.4513994075139918}, {3.0, 0.0}},
  {{2.001, 2.0}, {1.999, -2.0}, {0.002, 4.0}, {0.0004999998750000312, -0.9999997500000625}, {-2.0, -0.0}, {-0.5, 0.0}, {-0.125, 0.0}, {3.0, 0.0}, {4.0, 0.0}, {0.18358418150951172, 0.9837093595218139}, {-0.25, 2.5}, {2.0, -0.0}, {1.4142135623730951, 0.0}, {7.38905609893065, 0.0}, {0.6931471805599453, 0.0}, {0.9092974268256817, -0.0}, {-0.4161468365471424, -0.0}, {-0.25, 0.0}},
  {{1.0, 1.0}, {1.0, 1.0}, {0.0, 0.0}, {INF, INF}, {-1.0, -1.0}, {1.0, 1.0}, {0.5, -0.5}, {2.0, 1.0}, {0.0, 2.0}, {1.0, 0.0}, {1.0, 2.5}, {1.0, -1.0}, {1.09868411346781, 0.45508986056222733}, {1.4686939399158851, 2.2873552871788423}, {0.34657359027997264, 0.7853981633974483}, {1.2984575814159773, 0.6349639147847361}, {0.8337300251311491, -0.9888977057628651}, {1.0, 0.0}},
  {{INF, 1.0}, {-INF, 1.0}, {INF, INF}, {0.0, 0.0}, {-1.0, -1.0}, {1.0, 1.0}, {0.5, -0.5}, {2.0, 1.0}, {0.0, 2.0}, {INF, NAN}, {1.0, 2.5}, {1.0, -1.0}, {1.09868411346781, 0.45508986056222733}, {1.4686939399158851, 2.2873552871788423}, {0.34657359027997264, 0.7853981633974483}, {1.2984575814159773, 0.6349639147847361}, {0.8337300251311491, -0.9888977057628651}, {1.0, 0.0}},
  {{INF, 2.0}, {INF, 0.0}, {INF, INF}, {INF, -INF}, {-INF, -1.0}, {INF, NAN}, {0.0, 0.0}, {INF, 1.0}, {INF, INF}, {INF, NAN}, {1.0, 2.5}, {INF, -1.0}, {INF, 0.0}, {INF, INF}, {INF, 0.0}, {NAN, NAN}, {NAN, NAN}, {1.0, 0.0}},
  {{NAN, 0.0}, {NAN, 0.0}, {NAN, NAN}, {NAN, NAN}, {NAN, -0.0}, {NAN, NAN}, {NAN, NAN}, {NAN, 0.0}, {NAN, NAN}, {NAN, 0.0}, {1.0, 2.5}, {NAN, -0.0}, {NAN, NAN}, {NAN, 0.0}, {NAN, NAN}, {NAN, 0.0}, {NAN, 0.0}, {1.0, 0.0}},
}
local R = {  -- z.real, z.imag, gpu.abs, gpu.angle, gpu.real, gpu.imag
  {1.0, 2.0, 2.23606797749979, 1.1071487177940904, 1.0, 2.0},
  {-3.5, 0.25, 3.5089172119045497, 3.070285188804503, -3.5, 0.25},
  {0.75, -1.5, 1.6770509831248424, -1.1071487177940904, 0.75, -1.5},
  {2.0, 0.0, 2.0, 0.0, 2.0, 0.0},
  {1.0, 1.0, 1.4142135623730951, 0.7853981633974483, 1.0, 1.0},
  {1.0, 1.0, 1.4142135623730951, 0.7853981633974483, 1.0, 1.0},
  {INF, 1.0, INF, 0.0, INF, 1.0},
  {NAN, 0.0, NAN, NAN, NAN, 0.0},
}
local BO = {  -- a == b, a ~= b, a == x, isnan, isinf, isfinite
  {false, true, false, false, false, true},
  {false, true, false, false, false, true},
  {false, true, false, false, false, true},
  {false, true, false, false, false, true},
  {false, true, false, false, false, true},
  {false, true, false, false, false, true},
  {false, true, false, false, true, false},
  {false, true, false, true, false, false},
}
local C32 = {  -- a * f32, a * f64, a * n, a * 0.5, a + 1, gpu.complex(f32, f32), a / f32, a * a - a, sqrt, exp
  {{0.15000000596046448, -0.05000000074505806}, {0.15000000000000002, -0.05}, {4.5, -1.5}, {0.75, -0.25}, {2.5, -0.5}, {0.10000000149011612, 0.10000000149011612}, {15.0, -5.0}, {0.5, -1.0}, {1.2411967515945435, -0.20141850411891937}, {3.9330520629882812, -2.1486361026763916}},
  {{0.625, -5.0}, {0.625, -5.0}, {1.75, -14.0}, {-0.125, 1.0}, {0.75, 2.0}, {-2.5, -2.5}, {0.10000000149011612, -0.800000011920929}, {-3.6875, -3.0}, {0.9395648837089539, 1.0643224716186523}, {-0.3240954875946045, 0.7081615328788757}},
  {{9.899999618530273, 13.199999809265137}, {9.899999999999999, 13.2}, {6.0, 8.0}, {1.5, 2.0}, {4.0, 4.0}, {3.299999952316284, 3.299999952316284}, {0.9090909361839294, 1.2121212482452393}, {-10.0, 20.0}, {2.0, 1.0}, {-13.128783226013184, -15.200784683227539}},
}
local ABS32 = {1.5811388492584229, 2.015564441680908, 5.0}
local MANDEL = {
  {0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1},
  {0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 8, 45, 3, 3, 2, 2, 1, 1, 1, 1},
  {0, 0, 1, 2, 2, 2, 2, 2, 3, 3, 3, 4, 5, 7, 60, 60, 6, 4, 4, 2, 2, 1, 1, 1},
  {0, 2, 2, 2, 2, 2, 3, 4, 4, 4, 6, 19, 60, 60, 60, 60, 60, 22, 19, 4, 2, 2, 2, 1},
  {0, 2, 3, 3, 4, 5, 12, 8, 9, 8, 44, 60, 60, 60, 60, 60, 60, 60, 60, 5, 3, 2, 2, 1},
  {0, 3, 3, 5, 6, 11, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 4, 3, 2, 2, 1},
  {0, 3, 3, 5, 6, 11, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 60, 4, 3, 2, 2, 1},
  {0, 2, 3, 3, 4, 5, 12, 8, 9, 8, 44, 60, 60, 60, 60, 60, 60, 60, 60, 5, 3, 2, 2, 1},
  {0, 2, 2, 2, 2, 2, 3, 4, 4, 4, 6, 19, 60, 60, 60, 60, 60, 22, 19, 4, 2, 2, 2, 1},
  {0, 0, 1, 2, 2, 2, 2, 2, 3, 3, 3, 4, 5, 7, 60, 60, 6, 4, 4, 2, 2, 1, 1, 1},
  {0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 8, 45, 3, 3, 2, 2, 1, 1, 1, 1},
  {0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1},
}

local A = {{1, 2}, {-3.5, 0.25}, {0.75, -1.5}, {2, 0}, {1, 1}, {1, 1}, {INF, 1}, {NAN, 0}}
local B = {{3, -1}, {-2, 4}, {0.5, 0.5}, {1e-3, 2}, {0, 0}, {INF, 0}, {1, 1}, {1, 0}}
local X = {0.5, -2.0, 3.0, -0.25, 1.0, 1.0, 1.0, 1.0}

local function cxarray(list, dtype)
  local t = {}
  for i, p in ipairs(list) do t[i] = gpu.complex(p[1], p[2]) end
  return gpu.array(t, dtype)
end

-- a number as NumPy gives it: the same inf, nan or zero, else within tol
local function near(got, want, tol, what)
  local ok
  if want ~= want then ok = got ~= got
  elseif want == INF or want == -INF or want == 0 then ok = got == want
  else ok = math.abs(got - want) <= tol * math.max(1, math.abs(want)) end
  assert(ok, ("%s: got %.17g, NumPy gives %.17g"):format(what, got, want))
end
local function cnear(got, want, tol, what)
  near(got.re, want[1], tol, what .. " (real part)")
  near(got.im, want[2], tol, what .. " (imaginary part)")
end

local function refused(line, pattern, f, ...)
  local msg = S.errof(f, ...)
  assert.matches(here .. ":" .. line .. ": " .. pattern, msg, 1, false)
end

describe("gpu.jit on complex numbers", function()
  it("does arithmetic, comparisons and functions as NumPy does, complex128", function()
    local ops = gpu.jit(function(a, b, x, o, r, bo)
      local i = gpu.grid(1)
      if i > #a then return end
      local z, w, t = a[i], b[i], x[i]
      o[i][1] = z + w
      o[i][2] = a[i] - b[i]
      o[i][3] = z * w
      o[i][4] = z / w
      o[i][5] = -z
      o[i][6] = z * t
      o[i][7] = t / z
      o[i][8] = z + 1
      o[i][9] = z ^ 2
      o[i][10] = z ^ w
      o[i][11] = gpu.complex(t, 2.5)
      o[i][12] = gpu.conj(z)
      o[i][13] = gpu.sqrt(z)
      o[i][14] = gpu.exp(z)
      o[i][15] = gpu.log(z)
      o[i][16] = gpu.sin(z)
      o[i][17] = gpu.cos(z)
      o[i][18] = t                       -- a real number stored: (t, 0)
      r[i][1] = z.real
      r[i][2] = a[i].imag
      r[i][3] = gpu.abs(z)
      r[i][4] = gpu.angle(z)
      r[i][5] = gpu.real(z)
      r[i][6] = gpu.imag(z)
      bo[i][1] = z == w
      bo[i][2] = z ~= w
      bo[i][3] = z == t
      bo[i][4] = gpu.isnan(z)
      bo[i][5] = gpu.isinf(z)
      bo[i][6] = gpu.isfinite(z)
    end)
    local n = #A
    local a, b, x = cxarray(A, "complex128"), cxarray(B, "complex128"), gpu.array(X, "float64")
    local o, r, bo = gpu.zeros({n, 18}, "complex128"), gpu.zeros({n, 6}, "float64"), gpu.zeros({n, 6}, "bool")
    ops[1, 32](a, b, x, o, r, bo)
    local oh, rh, bh = o:totable(), r:totable(), bo:totable()
    for i = 1, n do
      -- rows 5 to 8 (zeros, infinities, nan) are checked for +, -, *, /, unary -, the
      -- real operand's cases, storing and gpu.complex
      local cols = i <= 4 and 18 or 8
      for j = 1, cols do cnear(oh[i][j], O[i][j], 1e-14, ("row %d, column %d"):format(i, j)) end
      cnear(oh[i][11], O[i][11], 0, "gpu.complex, row " .. i)
      cnear(oh[i][18], O[i][18], 0, "a real stored, row " .. i)
      for j = 1, 6 do near(rh[i][j], R[i][j], 1e-14, ("real row %d, column %d"):format(i, j)) end
      assert.are.same(BO[i], bh[i])
    end
    local src = ops:source()
    assert.matches("gpu::array<gpu::complex128> a", src, 1, true)
    assert.matches("gpu::complex128 z = ", src, 1, true)
    assert.matches("double t = ", src, 1, true)
  end)

  it("promotes as NumPy: complex64 with float32 or a weak number stays complex64", function()
    local prom = gpu.jit(function(a, f32, f64, n, o, m)
      local i = gpu.grid(1)
      local z = a[i]
      local p1 = z * f32[i]
      local p2 = z * f64[i]
      local p3 = z * n[i]
      local p4 = z * 0.5
      local p5 = z + 1
      local p6 = gpu.complex(f32[i], f32[i])
      local s = 0                       -- widened to complex64
      s = s + z / f32[i]
      local v = f32[i]                  -- widened to complex64 too
      v = z * z - z
      o[i][1], o[i][2], o[i][3], o[i][4], o[i][5] = p1, p2, p3, p4, p5
      o[i][6], o[i][7], o[i][8] = p6, s, v
      o[i][9], o[i][10] = gpu.sqrt(z), gpu.exp(z)
      m[i] = gpu.abs(z)
    end)
    local a = cxarray({{1.5, -0.5}, {-0.25, 2}, {3, 4}}, "complex64")
    local f32, f64 = gpu.array({0.1, -2.5, 3.3}, "float32"), gpu.array({0.1, -2.5, 3.3}, "float64")
    local n = gpu.array({3, -7, 2}, "int64")
    local o, m = gpu.zeros({3, 10}, "complex128"), gpu.zeros(3, "float32")
    prom[1, 32](a, f32, f64, n, o, m)
    local src = prom:source()
    for name, t in pairs({p1 = "complex64", p2 = "complex128", p3 = "complex128", p4 = "complex64",
                          p5 = "complex64", p6 = "complex64", s = "complex64", v = "complex64"}) do
      assert.matches("gpu::" .. t .. " " .. name .. " = ", src, 1, true)
    end
    local oh, mh = o:totable(), m:totable()
    for i = 1, 3 do
      for j = 1, 10 do
        -- complex128 results (2, 3) to float64's digits, the others to float32's
        local tol = (j == 2 or j == 3) and 1e-14 or 1e-6
        cnear(oh[i][j], C32[i][j], tol, ("row %d, column %d"):format(i, j))
      end
      near(mh[i], ABS32[i], 1e-6, "gpu.abs of complex64")
    end
  end)

  it("runs numba's Mandelbrot example (a device function of a complex number)", function()
    local escape = gpu.jit(function(c, max_iters)
      local z = 0
      for k = 0, max_iters - 1 do
        z = z * z + c
        if z.real * z.real + z.imag * z.imag >= 4 then return k end
      end
      return max_iters
    end)
    local mandel = gpu.jit(function(xs, ys, out, max_iters)
      local x, y = gpu.grid(2)
      if x <= #xs and y <= #ys then out[y][x] = escape(gpu.complex(xs[x], ys[y]), max_iters) end
    end)
    -- NumPy's linspace(lo, hi, n), made here (gpu.linspace would compile kernels)
    local function linspace(lo, hi, n)
      local t, step = {}, (hi - lo) / (n - 1)
      for i = 1, n - 1 do t[i] = (i - 1) * step + lo end
      t[n] = hi
      return gpu.array(t, "float64")
    end
    local out = gpu.zeros({12, 24}, "int32")
    mandel[{{3, 2}, {8, 8}}](linspace(-2, 1, 24), linspace(-1.2, 1.2, 12), out, 60)
    assert.are.same(MANDEL, out:totable())
  end)

  it("gpu.vectorize over complex arrays: the result's dtype is what f returns", function()
    local sq = gpu.vectorize(function(z, s) return z * z + s end)
    local a = cxarray({{1.5, -0.5}, {-0.25, 2}, {3, 4}}, "complex64")
    local r = sq(a, 0.5)                       -- a Lua float is weak: complex64, as NumPy's a * a + 0.5
    assert.are.equal("complex64", r.dtype)
    local want = {{2.5, -1.5}, {-3.4375, -1}, {-6.5, 24}}
    for i, z in ipairs(r:totable()) do cnear(z, want[i], 0, "z * z + 0.5") end
    local m = gpu.vectorize(function(x) return gpu.abs(gpu.complex(x, 1)) end)(gpu.array({0, 3}, "float64"))
    assert.are.equal("float64", m.dtype)
    near(m:totable()[2], 3.1622776601683795, 1e-15, "|3 + 1i|")
  end)

  it("takes complex arrays and scalars in a signature, and gpu.complex values", function()
    local k = gpu.jit(function(a, b, z) b[1] = a[1] * 2 + z end, {signature = "void(c8[:], complex128[:], c16)"})
    local b = gpu.zeros(1, "complex128")
    k[1, 1](cxarray({{1, -2}}, "complex64"), b, gpu.complex(0.5, 0.25))
    cnear(b:totable()[1], {2.5, -3.75}, 0, "c8 * 2 + z")
    -- a complex128 scalar in the second slot (its bytes were 8 off 16: the CPU backend faulted)
    local k2 = gpu.jit(function(a, z, b) b[1] = a[1] * 2 + z end, {signature = "void(c8[:], c16, complex128[:])"})
    k2[1, 1](cxarray({{1, -2}}, "complex64"), gpu.complex(0.5, 0.25), b)
    cnear(b:totable()[1], {2.5, -3.75}, 0, "z in the second slot")
    local f = gpu.jit(function(z, x, b) b[1] = z * x; b[2] = z.imag end)
    f[1, 1](gpu.complex(1, 2), 3, b)    -- a gpu.complex is a complex128
    cnear(b:totable()[1], {3, 6}, 0, "a gpu.complex argument")
    f[1, 1](gpu.complex(-1, 0.5), 2, b) -- the same kernel, launched by the C dispatcher
    cnear(b:totable()[1], {-2, 1}, 0, "a gpu.complex argument, again")
    assert.are.same({"void(complex128, int64, complex128[::1])"}, f:signatures())
  end)
end)

describe("gpu.jit refuses on complex numbers", function()
  -- f's compile for sig refused at f's first line + offset
  local function refuses(pattern, f, offset, sig)
    local line = debug.getinfo(f, "S").linedefined + (offset or 0)
    refused(line, pattern, function()
      return gpu.jit(f):source(sig or "void(complex128[:], float64[:])")
    end)
  end

  it("a complex number stored in a real array, ordered, or floor-divided", function()
    refuses("storing a complex128 in a float64 array would drop its imaginary part: store z.real, "
            .. "or use a complex array", function(a, r)
      r[1] = a[1] * 2
    end, 1)
    refuses("'<' on a complex128: complex numbers are not ordered %(compare z.real, z.imag or gpu.abs%(z%)%)",
            function(a, r)
      if a[1] < a[2] then r[1] = 1 end
    end, 1)
    refuses("'//' on a complex128: complex numbers have no floor division or remainder", function(a, r)
      a[1] = a[1] // 2
    end, 1)
    refuses("'%%' on a complex128: complex numbers have no floor division or remainder", function(a, r)
      a[1] = 3 % a[2]
    end, 1)
    refuses("a condition must be a boolean, got a complex128", function(a, r)
      if a[1] then r[1] = 1 end
    end, 1)
    refuses("a 'for' limit on a complex128: a numeric 'for' counts with real numbers", function(a, r)
      for i = 1, a[1] do r[i] = 1 end
    end, 1)
  end)

  it("printing, atomics and real functions of a complex number", function()
    refuses("gpu.printf cannot print a complex128: print its parts, z.real and z.imag", function(a, r)
      gpu.printf("%f\n", a[1])
    end, 1)
    refuses("gpu.atomic.add on a complex128 array: it takes float16, float32, float64, int32", function(a, r)
      gpu.atomic.add(a, 1, 1.0)
    end, 1)
    refuses("math.sqrt needs a real number, got a complex128 %(gpu.sqrt takes complex ones%)", function(a, r)
      r[1] = math.sqrt(a[1])
    end, 1)
    refuses("gpu.floor takes real numbers, got a complex128", function(a, r)
      a[1] = gpu.floor(a[1])
    end, 1)
    refuses("field 'x' of a complex128 is not available %(real and imag are%)", function(a, r)
      r[1] = a[1].x
    end, 1)
  end)
end)
