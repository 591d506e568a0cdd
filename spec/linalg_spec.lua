-- gpu.linalg (lua/linalg.lua over host/linalg.c: cuSOLVER on the GPU, LAPACK on the CPU
-- backend): NumPy's numbers (computed with numpy 1.24 and written here), the identities
-- each factorization must satisfy, NumPy's errors. On both backends.
local S = require("spec.support")
local L = gpu.linalg
local C = gpu.complex

local A = {{4, 1, 2}, {1, 5, 3}, {2, 3, 6}}
local B = {{2, -1, 0, 3}, {1, 4, -2, 0}, {0, 3, 5, 1}, {2, 0, 1, 6}}
local H = {{C(2, 0), C(0, 1), C(0, 0)}, {C(0, -1), C(3, 0), C(1, 1)}, {C(0, 0), C(1, -1), C(4, 0)}}

-- every element of got (a device array, a number or a gpu.complex) within tol of want
local function near(want, got, tol)
  if type(want) == "table" and not (getmetatable(want) and want.re) then
    local t = type(got) == "userdata" and got.totable and got:totable() or got
    assert.are.equal(#want, #t)
    for i = 1, #want do near(want[i], t[i], tol) end
    return
  end
  local wr, wi = type(want) == "number" and want or want.re, type(want) == "number" and 0 or want.im
  local gr, gi = type(got) == "number" and got or got.re, type(got) == "number" and 0 or got.im
  local scale = math.max(1, math.abs(wr), math.abs(wi))
  if wr == gr and wi == gi then return end   -- infinities too
  if not (math.abs(wr - gr) <= tol * scale and math.abs(wi - gi) <= tol * scale) then
    error(("expected %s%+gj, got %s%+gj"):format(wr, wi, gr, gi), 2)
  end
end

-- the largest |x - y| of two device arrays
local function gap(x, y) return gpu.abs(x - y):max() end
local function ht(x) return gpu.conj(x):transpose(-1, -2) end

describe("gpu.linalg.solve and inv", function()
  it("give NumPy's solutions and inverses", function()
    local a = gpu.array(A, "float64")
    near({0, 0.14285714285714282, 0.4285714285714286}, L.solve(a, gpu.array({1, 2, 3}, "float64")), 1e-14)
    near({{0.9268292682926829, 0.12195121951219512, 0.14634146341463414, -0.4878048780487804},
          {-0.15243902439024384, 0.17073170731707316, 0.0548780487804878, 0.0670731707317073},
          {0.15853658536585366, -0.0975609756097561, 0.18292682926829268, -0.10975609756097561},
          {-0.33536585365853655, -0.024390243902439022, -0.07926829268292683, 0.3475609756097561}},
         L.inv(gpu.array(B, "float64")), 1e-14)
    local h = gpu.array(H, "complex128")
    assert.is_true(gap(gpu.matmul(h, L.inv(h)), gpu.eye(3, "complex128")) < 1e-14)
    local x = L.solve(h, gpu.array({C(1, 0), C(0, 2), C(-1, 1)}, "complex128"))
    near({C(1, 0), C(0, 2), C(-1, 1)}, gpu.matmul(h, x), 1e-14)
  end)

  it("take batches, broadcast their batch dims, and matrices of right-hand sides", function()
    local a = gpu.random.normal(0, 1, {4, 3, 3}, "float64") + gpu.eye(3, "float64") * 4
    local b = gpu.random.normal(0, 1, {3, 2}, "float64")
    local x = L.solve(a, b)
    assert.are.same({4, 3, 2}, x.shape)
    assert.is_true(gap(gpu.matmul(a, x), b:expand(4, 3, 2)) < 1e-12)
    local v = L.solve(a, gpu.array({1, 2, 3}, "float64"))   -- b 1-D: one vector for every matrix
    assert.are.same({4, 3}, v.shape)
    assert.is_true(gap(gpu.matmul(a, v:unsqueeze(-1)):squeeze(-1), gpu.array({1, 2, 3}, "float64"):expand(4, 3)) < 1e-12)
    local inv = L.inv(a)
    assert.is_true(gap(gpu.matmul(a, inv), gpu.eye(3, "float64"):expand(4, 3, 3)) < 1e-12)
  end)

  it("keep float32 and complex64, make integers float64, and leave the operands as they were", function()
    local a32 = gpu.array(A, "float32")
    assert.are.equal("float32", L.inv(a32).dtype)
    assert.are.equal("float32", L.solve(a32, gpu.ones(3, "float32")).dtype)
    assert.are.equal("float64", L.solve(a32, gpu.ones(3, "float64")).dtype)
    assert.are.equal("complex64", L.inv(gpu.array(H, "complex64")).dtype)
    local ai = gpu.array({{1, 2}, {3, 4}}, "int32")
    near({{-2, 1}, {1.5, -0.5}}, L.inv(ai), 1e-14)
    assert.are.equal("float64", L.inv(ai).dtype)
    local t = gpu.array(A, "float64").T          -- a view: read, not overwritten
    local before = t:totable()
    near({{0.3, 0, -0.1}, {0, 0.2857142857142857, -0.14285714285714285}, {-0.1, -0.14285714285714285, 0.2714285714285714}},
         L.inv(t), 1e-14)
    assert.are.same(before, t:totable())
    local r = gpu.array(B, "float64")[{ {-1, 1, -1}, {-1, 1, -1} }]   -- reversed strides
    assert.is_true(gap(gpu.matmul(r, L.inv(r)), gpu.eye(4, "float64")) < 1e-14)
  end)

  it("say singular and name the matrix of a batch, as NumPy's LinAlgError", function()
    assert.matches("gpu.linalg.inv: singular matrix", S.errof(L.inv, gpu.zeros({3, 3})), 1, true)
    assert.matches("gpu.linalg.solve: singular matrix", S.errof(L.solve, gpu.array({{1, 2}, {2, 4}}), gpu.ones(2)), 1, true)
    local batch = gpu.stack({gpu.eye(2), gpu.zeros({2, 2}), gpu.eye(2)})
    assert.matches("singular matrix (matrix 2 of the batch)", S.errof(L.inv, batch), 1, true)
  end)

  it("solve factors a without right-hand sides too: singular is an error, as NumPy's (it gave (3, 0))", function()
    assert.matches("gpu.linalg.solve: singular matrix", S.errof(L.solve, gpu.zeros({3, 3}), gpu.zeros({3, 0})), 1, true)
    local batch = gpu.stack({gpu.eye(2), gpu.zeros({2, 2})})
    assert.matches("singular matrix (matrix 2 of the batch)", S.errof(L.solve, batch, gpu.zeros({2, 2, 0})), 1, true)
    assert.are.same({3, 0}, L.solve(gpu.eye(3), gpu.zeros({3, 0})).shape)
    assert.are.same({0, 3, 2}, L.solve(gpu.zeros({0, 3, 3}), gpu.zeros({0, 3, 2})).shape)
  end)

  it("invert batches in every dtype, small ones together and large ones a matrix a call", function()
    for _, dt in ipairs({"float32", "float64", "complex64", "complex128"}) do
      local tol = (dt == "float32" or dt == "complex64") and 1e-4 or 1e-12
      for _, n in ipairs({1, 3, 130}) do   -- 130: past the batched routines' 128
        local a = (gpu.random.normal(0, 1, {3, n, n}, "float64") + gpu.eye(n, "float64") * n):astype(dt)
        if dt:find("complex") then a = a + gpu.random.normal(0, 1, {3, n, n}, "float64"):astype(dt) * gpu.full({}, gpu.complex(0, 1), dt) end
        local x = L.inv(a)
        assert.are.equal(dt, x.dtype)
        assert.is_true(gap(gpu.matmul(a, x), gpu.eye(n, dt):expand(3, n, n)) < tol * n)
        assert.is_true(gap(gpu.matmul(a[{2}], L.inv(a[{2}])), gpu.eye(n, dt)) < tol * n)   -- one matrix
        local bad = a:copy()
        bad[{2}] = 0
        assert.matches("singular matrix (matrix 2 of the batch)", S.errof(L.inv, bad), 1, true)
        if n > 1 then   -- a zero column, GETRF's status n: GETRS's own (0) must not replace it
          local last = a:copy()
          last[{3, {}, n}] = 0
          assert.matches("singular matrix (matrix 3 of the batch)", S.errof(L.inv, last), 1, true)
          assert.matches("singular matrix", S.errof(L.inv, last[{3}]), 1, true)
        end
      end
    end
  end)
end)

describe("gpu.linalg's LU factors a itself, as NumPy's", function()
  -- row 3 == row 1: a's own LU (NumPy's, a column-major copy) meets an exact 0 pivot; that of
  -- a^T (the C-ordered copy, which this factored) left -4.4e-16, and every function went on:
  -- inv gave entries of 1e15, det 9.8e-15, slogdet (1, -32.26), cond(a, 1) 4.8e16
  local rows = {{5, -4, 3}, {-3, -2, -1}, {5, -4, 3}}
  it("sees a matrix with two equal rows as singular in inv, solve, det, slogdet, cond and matrix_power", function()
    for _, dt in ipairs({"float64", "float32", "complex64", "complex128", "int64"}) do
      local a = gpu.array(rows, dt)
      assert.matches("gpu.linalg.inv: singular matrix", S.errof(L.inv, a), 1, true)
      assert.matches("gpu.linalg.solve: singular matrix", S.errof(L.solve, a, gpu.array({1, 2, 3}, "float64")), 1, true)
      assert.matches("gpu.linalg.matrix_power: singular matrix", S.errof(L.matrix_power, a, -1), 1, true)
      near(0, L.det(a), 0)
      local sign, logabs = L.slogdet(a)
      near(0, sign, 0)
      assert.are.equal(-math.huge, logabs)
      assert.are.equal(math.huge, L.cond(a, 1))
      assert.are.equal(math.huge, L.cond(a, -math.huge))
      -- in a batch (float32's det of it was -1.7e-7)
      local batch = gpu.stack({gpu.array(A, dt), a, gpu.array(A, dt)})
      near({70, 0, 70}, L.det(batch), 1e-4)
      local s3, l3 = L.slogdet(batch)
      near({1, 0, 1}, s3, 1e-6)
      assert.are.equal(-math.huge, l3:item(2))
      assert.matches("singular matrix (matrix 2 of the batch)", S.errof(L.inv, batch), 1, true)
      assert.matches("singular matrix (matrix 2 of the batch)", S.errof(L.solve, batch, gpu.ones({3, 3, 1})), 1, true)
      local c = L.cond(batch, 1):totable()
      assert.are.equal(math.huge, c[2])
      assert.is_true(c[1] < 1e3 and c[3] < 1e3)
    end
    local b = gpu.array(B, "float64")
    b[{4}] = b[{2}]
    near(0, L.det(b), 0)
    assert.matches("singular matrix", S.errof(L.inv, b), 1, true)
  end)

  it("gives NumPy's numbers for equal columns, and solutions, inverses and determinants as before", function()
    -- NumPy's LU of a^T has a pivot of rounding too: no error, a determinant of rounding's
    -- size (NumPy 9.769962616701389e-15 with OpenBLAS) and an inverse of about 1e15 (its
    -- digits are rounding's: OpenBLAS's inv(a^T)[1][1] -1.0235e15, cuSOLVER's -1.1259e15)
    local c = gpu.array(rows, "float64").T
    local d = L.det(c)
    assert.is_true(d ~= 0 and math.abs(d) < 1e-13, tostring(d))
    assert.is_true(math.abs(L.inv(c):item(1, 1)) > 1e14)
    local a = gpu.array({{2, 1, 3}, {4, 5, 7}, {2, 1, 1}}, "float64")
    local inv = L.inv(a)
    near({{1 / 6, -1 / 6, 2 / 3}, {-5 / 6, 1 / 3, 1 / 6}, {0.5, 0, -0.5}}, inv, 1e-14)
    assert.is_true(gap(gpu.matmul(a, inv), gpu.eye(3, "float64")) < 1e-14)
    near({{5 / 6, 0.5}, {-2 / 3, 0.5}, {0, -0.5}}, L.solve(a, gpu.array({{1, 0}, {0, 1}, {1, 1}}, "float64")), 1e-14)
    near(-12, L.det(a), 1e-14)
    near(16.5, L.cond(a, 1), 1e-14)
    near({{0.5, -1 / 12, -0.25}, {-1 / 3, 0.25, -7 / 12}, {-1 / 6, -1 / 12, 7 / 12}}, L.matrix_power(a, -2), 1e-14)
    -- a view of any layout is factored as the matrix it shows
    near({{1 / 6, -5 / 6, 0.5}, {-1 / 6, 1 / 3, 0}, {2 / 3, 1 / 6, -0.5}}, L.inv(a.T), 1e-14)
    local strided = gpu.zeros({3, 6}, "float64")
    strided[{ {}, {1, 6, 2} }] = a
    near(-12, L.det(strided[{ {}, {1, 6, 2} }]), 1e-14)
  end)
end)

describe("gpu.linalg.det and slogdet", function()
  it("give NumPy's determinants, a number for one matrix and an array for a batch", function()
    near(164.00000000000006, L.det(gpu.array(B, "float64")), 1e-13)
    near(70, L.det(gpu.array(A, "float64")), 1e-13)
    near(-2, L.det(gpu.array({{1, 2}, {3, 4}}, "int64")), 1e-14)
    near(C(16, 0), L.det(gpu.array(H, "complex128")), 1e-13)
    near(0, L.det(gpu.zeros({2, 2})), 0)
    near(1, L.det(gpu.zeros({0, 0})), 0)
    -- a singular matrix's determinant is +0, as NumPy's (a row swap times U's 0 gave -0)
    assert.are.equal(math.huge, 1 / L.det(gpu.array({{1, 2}, {2, 4}}, "float64")))
    local sign, logabs = L.slogdet(gpu.array({{1, 2}, {2, 4}}, "float64"))   -- slogdet's sign too
    assert.are.equal(math.huge, 1 / sign)
    assert.are.equal(-math.huge, logabs)
    assert.are.equal(math.huge, 1 / L.slogdet(gpu.array({{{1, 2}, {2, 4}}}, "float64")):item(1))
    assert.are.equal(math.huge, 1 / L.det(gpu.stack({gpu.array({{1, 2}, {2, 4}})})):item(1))
    local d = L.det(gpu.stack({gpu.array(A, "float64"), gpu.array(A, "float64") * 2}))
    assert.are.equal("float64", d.dtype)
    near({70, 560}, d, 1e-13)
    assert.are.same({2, 0}, L.det(gpu.zeros({2, 0, 3, 3})).shape)
  end)

  it("give the sign and the log of the absolute value", function()
    local s, l = L.slogdet(gpu.array(B, "float64"))
    near(1, s, 0); near(5.099866427824199, l, 1e-14)
    local a3 = gpu.array({{-2, 1, 0}, {-1, -4, 2}, {0, -3, -5}}, "float64")
    s, l = L.slogdet(a3)
    near(-1, s, 0); near(4.04305126783455, l, 1e-14)
    s, l = L.slogdet(gpu.zeros({2, 2}, "float64"))
    assert.are.same({0, -math.huge}, {s, l})
    s, l = L.slogdet(gpu.array(H, "complex64"))
    near(C(1, 0), s, 1e-6); near(2.7725887, l, 1e-6)
  end)
end)

describe("gpu.linalg.cholesky", function()
  it("gives L, lower triangular, with a = L L^H", function()
    near({{2, 0, 0}, {0.5, 2.179449471770337, 0}, {1, 1.1470786693528088, 1.9194297398747862}},
         L.cholesky(gpu.array(A, "float64")), 1e-14)
    near({{C(1.4142135623730951, 0), C(0, 0), C(0, 0)}, {C(0, -0.7071067811865475), C(1.5811388300841898, 0), C(0, 0)},
          {C(0, 0), C(0.6324555320336759, -0.6324555320336759), C(1.7888543819998317, 0)}},
         L.cholesky(gpu.array(H, "complex128")), 1e-14)
    local m = gpu.random.normal(0, 1, {5, 4, 4}, "float64")
    local spd = gpu.matmul(m, m:transpose(-1, -2)) + gpu.eye(4, "float64")
    local l = L.cholesky(spd)
    assert.is_true(gap(gpu.matmul(l, l:transpose(-1, -2)), spd) < 1e-12)
    assert.is_true(gap(l, gpu.tril(l)) == 0)
  end)

  it("reads the lower triangle only and refuses a matrix not positive definite", function()
    local a = gpu.array({{4, 99}, {2, 5}}, "float64")
    near({{2, 0}, {1, 2}}, L.cholesky(a), 1e-15)
    assert.matches("gpu.linalg.cholesky: the matrix is not positive definite",
                   S.errof(L.cholesky, gpu.array({{1, 2}, {2, 1}})), 1, true)
  end)
end)

describe("gpu.linalg.qr", function()
  it("gives Q with orthonormal columns and R upper triangular, a = Q R, in NumPy's shapes", function()
    for _, shape in ipairs({{3, 3}, {5, 3}, {3, 5}, {2, 4, 3}}) do
      local a = gpu.random.normal(0, 1, shape, "float64")
      local m, n = shape[#shape - 1], shape[#shape]
      local k = math.min(m, n)
      for _, mode in ipairs({"reduced", "complete"}) do
        local q, r = L.qr(a, mode)
        local qc = mode == "complete" and m or k
        assert.are.same({qc, n}, {r.shape[r.ndim - 1], r.shape[r.ndim]})
        assert.are.same({m, qc}, {q.shape[q.ndim - 1], q.shape[q.ndim]})
        assert.is_true(gap(gpu.matmul(q, r), a) < 1e-13)
        assert.is_true(gap(gpu.matmul(ht(q), q), gpu.eye(qc, "float64")) < 1e-13)
        assert.is_true(gap(r, gpu.triu(r)) == 0)
      end
      assert.is_true(gap(L.qr(a, "r"), select(2, L.qr(a))) == 0)
    end
    local h = gpu.array(H, "complex64")
    local q, r = L.qr(h)
    assert.are.equal("complex64", q.dtype)
    assert.is_true(gap(gpu.matmul(q, r), h) < 1e-5)
  end)

  it("gives NumPy's shapes for empty matrices and refuses an unknown mode", function()
    local q, r = L.qr(gpu.zeros({3, 0}))
    assert.are.same({{3, 0}, {0, 0}}, {q.shape, r.shape})
    q, r = L.qr(gpu.zeros({3, 0}), "complete")
    assert.are.same({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, q:totable())
    assert.are.same({3, 0}, r.shape)
    assert.matches('mode must be "reduced", "complete" or "r", got raw', S.errof(L.qr, gpu.eye(2), "raw"), 1, true)
    -- a mode of another type is named by its type, not shown by its address
    assert.matches('mode must be "reduced", "complete" or "r", got table$', S.errof(L.qr, gpu.eye(2), {mode = 0}))
  end)
end)

describe("gpu.linalg.eigh and eigvalsh", function()
  it("give NumPy's eigenvalues, ascending, and eigenvectors with a v = v diag(w)", function()
    near({2.194397167422409, 3.3867701566075485, 9.418832675970037}, L.eigvalsh(gpu.array(A, "float64")), 1e-14)
    near({1.1391941468882965, 2.7458983116349476, 5.1149075414767555}, L.eigvalsh(gpu.array(H, "complex128")), 1e-14)
    assert.are.equal("float32", L.eigvalsh(gpu.array(H, "complex64")).dtype)
    for _, dt in ipairs({"float64", "complex128"}) do
      local x = gpu.random.normal(0, 1, {3, 4, 4}, "float64"):astype(dt)
      local a = x + ht(x)
      local w, v = L.eigh(a)
      assert.are.same({3, 4}, w.shape)
      assert.is_true(gap(gpu.matmul(a, v), v * w:unsqueeze(-2)) < 1e-12)
      assert.is_true(gap(gpu.matmul(ht(v), v), gpu.eye(4, dt)) < 1e-12)
    end
  end)

  it("read the lower triangle, or the upper with UPLO \"U\"", function()
    near({1, 2}, L.eigvalsh(gpu.array({{1, 5}, {0, 2}}, "float64")), 1e-15)
    near({-3.52493781, 6.52493781}, L.eigvalsh(gpu.array({{1, 5}, {0, 2}}, "float64"), "U"), 1e-8)
    assert.matches('UPLO must be "L" or "U", got X', S.errof(L.eigh, gpu.eye(2), "X"), 1, true)
  end)

  it("take UPLO in either case, as NumPy's (\"u\" was refused)", function()
    local a = gpu.array({{1, 5}, {0, 2}}, "float64")
    near({-3.52493781, 6.52493781}, L.eigvalsh(a, "u"), 1e-8)
    near({1, 2}, L.eigvalsh(a, "l"), 1e-15)
    local w, v = L.eigh(a, "u")
    near({-3.52493781, 6.52493781}, w, 1e-8)
    assert.are.same({2, 2}, v.shape)
    assert.matches('UPLO must be "L" or "U", got x', S.errof(L.eigh, gpu.eye(2), "x"), 1, true)
  end)
end)

describe("gpu.linalg.svd, pinv and matrix_rank", function()
  local W = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 13}}
  it("give NumPy's singular values and u diag(s) vh = a, tall and wide", function()
    near({25.934601505165624, 1.528177820124978, 0.24721917065433827}, L.svd(gpu.array(W, "float64"), {compute_uv = false}), 1e-13)
    for _, shape in ipairs({{4, 3}, {3, 4}, {2, 5, 2}, {2, 2, 5}}) do
      local a = gpu.random.normal(0, 1, shape, "float64")
      local m, n = shape[#shape - 1], shape[#shape]
      local k = math.min(m, n)
      local u, s, vh = L.svd(a)
      assert.are.same({m, m, n, n}, {u.shape[u.ndim - 1], u.shape[u.ndim], vh.shape[vh.ndim - 1], vh.shape[vh.ndim]})
      assert.is_true(gap(gpu.matmul(ht(u), u), gpu.eye(m, "float64")) < 1e-13)
      assert.is_true(gap(gpu.matmul(ht(vh), vh), gpu.eye(n, "float64")) < 1e-13)
      u, s, vh = L.svd(a, {full_matrices = false})
      assert.are.equal(k, s.shape[s.ndim])
      assert.is_true(gap(gpu.matmul(u * s:unsqueeze(-2), vh), a) < 1e-13)
    end
    local c = gpu.array(H, "complex64")
    local u, s, vh = L.svd(c)
    assert.are.equal("float32", s.dtype)
    assert.is_true(gap(gpu.matmul(u * s:unsqueeze(-2), vh), c) < 1e-5)
  end)

  -- a batch is one call on the GPU (gesvdjBatched, syevjBatched, getrfBatched: up to 32 x 32
  -- for the Jacobi ones), a call a matrix on the CPU backend: the same answers either way
  it("give each matrix of a batch what it gives the matrix alone", function()
    gpu.random.seed(7)
    for _, c in ipairs({{{6, 5, 3}, "float64", 1e-12}, {{6, 3, 5}, "float32", 1e-4}, {{5, 4, 4}, "complex128", 1e-12}}) do
      local shape, dt, tol = c[1], c[2], c[3]
      local a = gpu.random.normal(0, 1, shape, dt == "complex128" and "float64" or dt):astype(dt)
      if dt == "complex128" then a = a + gpu.random.normal(0, 1, shape, "float64") * gpu.full({}, C(0, 1), dt) end
      local m, n = shape[2], shape[3]
      for _, full in ipairs({true, false}) do
        local u, s, vh = L.svd(a, {full_matrices = full})
        assert.is_true(gap(gpu.matmul(u:narrow(-1, 1, math.min(m, n)) * s:unsqueeze(-2), vh:narrow(-2, 1, math.min(m, n))), a) < tol * 10)
        assert.is_true(gap(gpu.matmul(ht(u), u), gpu.eye(u.shape[3], "float64")) < tol * 10)
        for i = 1, shape[1] do
          local si = L.svd(a[{i}], {compute_uv = false})
          assert.is_true(gap(s[{i}], si) < tol * 10)
        end
      end
      local h = gpu.matmul(a, ht(a))   -- Hermitian, m x m
      local w, v = L.eigh(h)
      assert.is_true(gap(gpu.matmul(h, v), v * w:unsqueeze(-2)) < tol * 100)
      assert.is_true(gap(w[{2}], L.eigvalsh(h[{2}])) < tol * 100)
      local x = L.inv(h + gpu.eye(m, dt) * m)
      assert.is_true(gap(gpu.matmul(x, h + gpu.eye(m, dt) * m), gpu.eye(m, "float64")) < tol * 100)
    end
  end)

  it("give NumPy's pseudo-inverse and rank", function()
    near({{-0.1666666666666695, -0.9999999999999959, 0.6666666666666649}, {-0.41666666666666263, 0.7499999999999901, -0.33333333333332826},
          {-0.6666666666666651, 2.500000000000006, -1.3333333333333373}, {0.9999999999999974, -2.0000000000000004, 1.0000000000000007}},
         L.pinv(gpu.array(W, "float64")), 1e-12)
    assert.are.equal(2, L.matrix_rank(gpu.array({{1, 2, 3}, {2, 4, 6}, {1, 0, 1}}, "float64")))
    assert.are.equal(3, L.matrix_rank(gpu.array(A)))
    assert.are.same({1, 0}, L.matrix_rank(gpu.stack({gpu.ones({2, 2}), gpu.zeros({2, 2})})):totable())
    assert.are.equal(1, L.matrix_rank(gpu.array({0, 3})))
    assert.are.same({3, 0}, L.pinv(gpu.zeros({0, 3})).shape)
  end)

  it("give NumPy's identities for empty matrices", function()
    local u, s, vh = L.svd(gpu.zeros({0, 3}))
    assert.are.same({{0, 0}, {0}}, {u.shape, s.shape})
    assert.are.same({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, vh:totable())
  end)

  it("matrix_rank of an empty batch is an empty int64 array, as NumPy's (it was a reshape's error)", function()
    for _, shape in ipairs({{0, 0, 3}, {0, 3, 0}, {0, 3, 3}}) do
      local r = L.matrix_rank(gpu.zeros(shape))
      assert.are.same({{0}, "int64"}, {r.shape, r.dtype})
    end
    assert.are.same({0, 0}, L.matrix_rank(gpu.zeros({2, 3, 0})):totable())
    assert.are.equal(0, L.matrix_rank(gpu.zeros({3, 0})))
  end)
end)

describe("gpu.linalg.matrix_power", function()
  it("multiplies by repeated squaring; 0 gives I, negative powers inv(a)'s", function()
    local f = gpu.array({{1, 1}, {1, 0}}, "float64")
    assert.are.same({{89, 55}, {55, 34}}, L.matrix_power(f, 10):totable())
    assert.are.same({{1, 0}, {0, 1}}, L.matrix_power(f, 0):totable())
    local p1 = L.matrix_power(f, 1)
    p1[{1, 1}] = 7                                  -- a new array, not f
    assert.are.equal(1, f:item(1, 1))
    near({{0, 1}, {1, -1}}, L.matrix_power(f, -1), 1e-15)
    assert.matches("the exponent must be an integer, got 1.5", S.errof(L.matrix_power, f, 1.5), 1, true)
    -- a string shown quoted ("2" was 'got 2'); 2.0 is 2, as a dim's 1.0 is 1 (it said 'got 2.0')
    assert.matches('the exponent must be an integer, got a string ("2")', S.errof(L.matrix_power, f, "2"), 1, true)
    assert.are.same(L.matrix_power(f, 2):totable(), L.matrix_power(f, 2.0):totable())
    -- math.mininteger: -2^63, whose absolute value is itself (read unsigned, 2^63)
    assert.are.same({{1, 0}, {0, 1}}, L.matrix_power(gpu.eye(2, "float64"), math.mininteger):totable())
  end)
end)

-- each of want's numbers (real or gpu.complex) matched by one of got's within tol, in any order
local function same_set(want, got, tol)
  local t, used = got:totable(), {}
  assert.are.equal(#want, #t)
  for _, w in ipairs(want) do
    local wr, wi = type(w) == "number" and w or w.re, type(w) == "number" and 0 or w.im
    local found
    for j, g in ipairs(t) do
      local gr, gi = type(g) == "number" and g or g.re, type(g) == "number" and 0 or g.im
      if not used[j] and math.abs(gr - wr) <= tol * math.max(1, math.abs(wr)) and math.abs(gi - wi) <= tol * math.max(1, math.abs(wi)) then
        found = j
        break
      end
    end
    if not found then error(("%s%+gj is not among the eigenvalues"):format(wr, wi), 2) end
    used[found] = true
  end
end

describe("gpu.linalg.eig and eigvals", function()
  it("give NumPy's eigenvalues, complex pairs of a real matrix, and vectors of norm 1 with a v = v diag(w)", function()
    local b = gpu.array(B, "float64")
    local w, v = L.eig(b)
    assert.are.same({"complex128", "complex128"}, {w.dtype, v.dtype})
    same_set({0.8684108300165843, 7.466410972997772, C(4.332589098492816, 2.55382916227274),
              C(4.332589098492816, -2.55382916227274)}, w, 1e-13)
    local bc = b:astype("complex128")
    assert.is_true(gap(gpu.matmul(bc, v), v * w:unsqueeze(-2)) < 1e-12)
    near({1, 1, 1, 1}, gpu.norm(v, 2, 1), 1e-14)
    same_set({C(-0.4422495703074081, 2.4980495329668124), C(-0.4422495703074081, -2.4980495329668124), 3.8844991406148153},
             L.eigvals(gpu.array({{1, 2, 0}, {0, 1, 3}, {4, 0, 1}}, "int32")), 1e-13)
  end)

  it("give real results when every eigenvalue is real, keep float32 and take complex matrices and batches", function()
    local w, v = L.eig(gpu.array({{2, 1}, {1, 2}}, "float32"))
    assert.are.same({"float32", "float32"}, {w.dtype, v.dtype})
    same_set({3, 1}, w, 1e-6)
    local w64 = L.eigvals(gpu.array(A, "float64"))
    assert.are.equal("float64", w64.dtype)
    local h = gpu.array(H, "complex64")
    local hw, hv = L.eig(h)
    assert.are.same({"complex64", "complex64"}, {hw.dtype, hv.dtype})
    assert.is_true(gap(gpu.matmul(h, hv), hv * hw:unsqueeze(-2)) < 1e-5)
    local batch = gpu.stack({gpu.array({{0, 1}, {-1, 0}}, "float64"), gpu.array({{2, 0}, {0, 3}}, "float64")})
    local bw, bv = L.eig(batch)
    assert.are.same({2, 2}, bw.shape)
    assert.is_true(gap(gpu.matmul(batch:astype("complex128"), bv), bv * bw:unsqueeze(-2)) < 1e-14)
    assert.are.same({0}, L.eigvals(gpu.zeros({0, 0}, "float64")).shape)
    assert.matches("gpu.linalg.eig: the matrix has a NaN or an infinity", S.errof(L.eig, gpu.full({2, 2}, 0 / 0)), 1, true)
    assert.matches("must be square, got 2 x 3", S.errof(L.eigvals, gpu.ones({2, 3})), 1, true)
  end)
end)

describe("gpu.linalg.lstsq, cond, norm, multi_dot, tensorinv and tensorsolve", function()
  it("lstsq gives NumPy's solution, residuals, rank and singular values", function()
    local a = gpu.array({{1, 1}, {1, 2}, {1, 3}, {1, 4}}, "float64")
    local x, res, rank, s = L.lstsq(a, gpu.array({6, 5, 7, 10}, "float64"))
    near({3.4999999999999996, 1.4000000000000004}, x, 1e-14)
    near({4.199999999999999}, res, 1e-14)
    assert.are.equal(2, rank)
    near({5.779378813233887, 0.773809106397227}, s, 1e-14)
    local xm = L.lstsq(a:astype("float32"), gpu.array({6, 5, 7, 10}, "float64"))   -- float64 throughout, as NumPy
    assert.are.equal("float64", xm.dtype)
    near({3.4999999999999996, 1.4000000000000004}, xm, 1e-13)
    local x2, res2 = L.lstsq(a, gpu.array({{6, 1}, {5, 2}, {7, 3}, {10, 4}}, "float64"))
    near({{3.4999999999999996, 0}, {1.4000000000000004, 1}}, x2, 1e-14)
    near({4.199999999999999, 0}, res2, 1e-13)
    -- rank-deficient: the least-norm solution, no residuals
    local r = gpu.array({{1, 2, 3}, {2, 4, 6}, {1, 0, 1}}, "float64")
    local x3, res3, rank3 = L.lstsq(r, gpu.array({1, 2, 3}, "float64"))
    near({2.3333333333333353, -1.6666666666666663, 0.6666666666666665}, x3, 1e-13)
    assert.are.same({{0}, 2}, {res3.shape, rank3})
    local xe, rese = L.lstsq(gpu.zeros({3, 0}, "float64"), gpu.ones({3, 2}, "float64"))
    assert.are.same({{0, 2}, {3, 3}}, {xe.shape, rese:totable()})
    assert.matches("gpu.linalg.lstsq: a has 4 rows but b has 3", S.errof(L.lstsq, a, gpu.ones(3)), 1, true)
  end)

  it("lstsq takes an rcond <= 0 or >= 1 as the machine precision, as NumPy's gelsd", function()
    -- NumPy: (array([1., 0.]), array([]), 1, array([1., 0.])) (this gave [nan, inf], [nan], 2)
    local x, res, rank, s = L.lstsq(gpu.array({{1, 0}, {0, 0}, {0, 0}}, "float64"), gpu.array({1, 2, 3}, "float64"), -1)
    assert.are.same({{1, 0}, {}, 1, {1, 0}}, {x:totable(), res:totable(), rank, s:totable()})
    -- NumPy's ranks: the cut at 2^-53 of the largest for rcond -1, -0.5, 0, 2 and 1; 1e-30 keeps 1.5 * 2^-53
    local b = gpu.ones(2, "float64")
    for _, case in ipairs({{-1, 2^-54, 1}, {-0.5, 1.5 * 2^-53, 2}, {0, 2^-60, 1}, {2, 2^-60, 1}, {1, 0.5, 2},
                           {1e-300, 2^-60, 2}, {0.9, 1.5 * 2^-53, 1}}) do
      local _, _, k = L.lstsq(gpu.array({{1, 0}, {0, case[2]}}, "float64"), b, case[1])
      assert.are.equal(case[3], k)
    end
  end)

  it("lstsq computes float32 and complex64 in float64 with float64's cut-off, as NumPy's, in their dtypes", function()
    -- NumPy 2.4: x [1, 1e7], residuals [0], rank 2, s [1, 1e-7] (float32's eps cut 1e-7: x [1, 0], rank 1)
    for _, dt in ipairs({"float32", "complex64"}) do
      local x, res, rank, s = L.lstsq(gpu.array({{1, 0}, {0, 1e-7}, {0, 0}}, dt), gpu.array({1, 1, 0}, "float32"))
      assert.are.same({dt, "float32", "float32", 2}, {x.dtype, res.dtype, s.dtype, rank})
      near({1, 1e7}, x, 1e-6)
      near({0}, res, 1e-6)
      near({1, 1e-7}, s, 1e-6)
    end
    -- rcond -1 is 2^-53 for float32 too (NumPy's ranks)
    local _, _, k = L.lstsq(gpu.array({{1, 0}, {0, 2^-30}}, "float32"), gpu.ones(2, "float32"), -1)
    assert.are.equal(2, k)
    local x, res = L.lstsq(gpu.array({{1, 1}, {1, 2}, {1, 3}, {1, 4}}, "float32"), gpu.array({6, 5, 7, 10}, "float32"))
    near({3.5, 1.4}, x, 1e-6)
    near({4.2}, res, 1e-6)
  end)

  it("cond and norm give NumPy's matrix norms and condition numbers, infinite for a singular matrix", function()
    local m = gpu.array({{1, 2}, {3, 4}}, "float64")
    local ords = {"fro", "nuc", 1, -1, 2, -2, math.huge, -math.huge}
    local norms = {5.477225575051661, 5.8309518948453, 6, 4, 5.464985704219043, 0.36596619062625746, 7, 3}
    local conds = {14.999999999999998, 16.999999999999996, 20.999999999999993, 5.999999999999998,
                   14.933034373659268, 0.06696562634074717, 20.999999999999993, 5.999999999999998}
    for i, p in ipairs(ords) do
      near(norms[i], L.norm(m, p), 1e-14)
      near(conds[i], L.cond(m, p), 1e-14)
    end
    near(14.933034373659268, L.cond(m), 1e-14)
    near(5.477225575051661, L.norm(m), 1e-14)
    near({20.999999999999993, math.huge}, L.cond(gpu.stack({m, gpu.array({{1, 2}, {2, 4}}, "float64")}), 1), 1e-14)
    local x = gpu.arange(24, "float64"):reshape(2, 3, 4)
    near({22.409298163270435, 61.785896875070776}, L.norm(x, 2, {2, 3}), 1e-13)
    near({29.24604696228176, 38.253513079454414, 48.24242181856119}, L.norm(x, "nuc", {3, 1}), 1e-13)
    near({{8.94427190999916, 10.344080432788601, 11.832159566199232, 13.379088160259652},
          {28.284271247461902, 29.9833287011299, 31.68595903550972, 33.391615714128}}, L.norm(x, nil, 2), 1e-14)
    assert.are.same({2, 1, 1}, L.norm(x, 1, {2, 3}, {keepdim = true}).shape)
    assert.matches("invalid norm order 3 for matrices", S.errof(L.norm, m, 3), 1, true)
    assert.matches("needs a dim for 3 dimensions", S.errof(L.norm, x, 1), 1, true)
  end)

  it("multi_dot multiplies in the cheapest order; tensorinv and tensorsolve invert reshaped operators", function()
    local a, b, c = gpu.random.normal(0, 1, {10, 100}, "float64"), gpu.random.normal(0, 1, {100, 5}, "float64"),
                    gpu.random.normal(0, 1, {5, 50}, "float64")
    local want = gpu.matmul(gpu.matmul(a, b), c)
    assert.is_true(gap(L.multi_dot({a, b, c}), want) < 1e-11)
    local v = L.multi_dot({gpu.arange(3, "float64"), gpu.ones({3, 4}, "float64"), gpu.ones({4, 5}, "float64"), gpu.arange(5, "float64")})
    assert.are.same({{}, 120}, {v.shape, v:item()})
    assert.matches("element 2 must have 2 dimensions, got 1", S.errof(L.multi_dot, {a, gpu.ones(100), c}), 1, true)
    assert.matches("element 2 has 5 rows where element 1 has 100 columns", S.errof(L.multi_dot, {a, c}), 1, true)
    -- a stray key was dropped, and a hole was "attempt to perform arithmetic on a nil value"
    assert.matches('gpu.linalg.multi_dot: argument 1 has a key "x" besides its 2 elements',
                   S.errof(L.multi_dot, {a, b, x = 1}), 1, true)
    assert.matches("gpu.linalg.multi_dot: element 2 must be a device array, got nil", S.errof(L.multi_dot, {a, nil, c}), 1, true)
    local t = gpu.eye(24, "float64"):reshape(4, 6, 8, 3) * 2
    local ti = L.tensorinv(t)
    assert.are.same({8, 3, 4, 6}, ti.shape)
    assert.is_true(gap(gpu.tensordot(t, ti, 2), gpu.eye(24, "float64"):reshape(4, 6, 4, 6)) < 1e-15)
    local k = gpu.random.normal(0, 1, {2, 3, 6}, "float64") + gpu.eye(6, "float64"):reshape(2, 3, 6) * 5
    local rhs = gpu.random.normal(0, 1, {2, 3}, "float64")
    local x = L.tensorsolve(k, rhs)
    assert.are.same({6}, x.shape)
    assert.is_true(gap(gpu.tensordot(k, x, 1), rhs) < 1e-13)
    assert.matches("they must be equal", S.errof(L.tensorinv, gpu.ones({2, 3})), 1, true)
    -- NumPy asks only that the counts agree: array([1., 1., 1., 1., 1., 1.]) (this said 'a's dim 1 is 2 but b's is 3')
    local x6 = L.tensorsolve(gpu.eye(6, "float64"):reshape(2, 3, 6), gpu.ones({3, 2}, "float64"))
    assert.are.same({1, 1, 1, 1, 1, 1}, x6:totable())
    assert.matches("gpu.linalg.tensorsolve: b has 9 elements where a's first 2 dims hold 6",
                   S.errof(L.tensorsolve, gpu.eye(6):reshape(2, 3, 6), gpu.ones({3, 3})), 1, true)
  end)

  it("tensorinv and tensorsolve name themselves and their dims (they named inv, solve and gpu.moveaxis)", function()
    local function err(f, ...)
      local ok, e = pcall(function(...) local r = f(...) return r end, ...)   -- not a tail call: the line is this one
      assert.is_false(ok)
      return tostring(e)
    end
    assert.matches("linalg_spec.lua:%d+: gpu%.linalg%.tensorinv: singular matrix$", err(L.tensorinv, gpu.zeros({2, 2, 4}), 2))
    assert.matches("linalg_spec.lua:%d+: gpu%.linalg%.tensorsolve: singular matrix$",
                   err(L.tensorsolve, gpu.zeros({2, 2, 4}), gpu.ones({2, 2})))
    local a = gpu.eye(4):reshape(2, 2, 2, 2)
    assert.matches("linalg_spec.lua:%d+: gpu%.linalg%.tensorsolve: argument 3 %(dims%): dimension 5 is out of range for 4%-D arrays$",
                   err(L.tensorsolve, a, gpu.ones({2, 2}), {5}))
    assert.matches("gpu.linalg.tensorsolve: argument 3 (dims): dimension 1 appears twice",
                   S.errof(L.tensorsolve, a, gpu.ones({2, 2}), {1, 1}), 1, true)
    assert.matches("gpu.linalg.tensorsolve: argument 3 (dims): dimension -5 is out of range",
                   S.errof(L.tensorsolve, a, gpu.ones({2, 2}), {-5}), 1, true)
    assert.are.same({{1, 1}, {1, 1}}, L.tensorsolve(a, gpu.ones({2, 2}), {1}):totable())   -- a good dims as before
    assert.matches("gpu.linalg.solve: singular matrix", S.errof(L.solve, gpu.zeros({2, 2}), gpu.ones(2)), 1, true)
  end)
end)

describe("gpu.matrix_power of integers, gpu.polyfit and gpu.roots", function()
  it("give NumPy's numbers", function()
    local a = gpu.array({{1, 2}, {3, 4}}, "int32")
    local p = L.matrix_power(a, 5)
    assert.are.equal("int32", p.dtype)
    assert.are.same({{1069, 1558}, {2337, 3406}}, p:totable())
    assert.are.equal("float64", L.matrix_power(a, -1).dtype)
    near({0.6035714285714291, -0.30928571428571516, 1.4071428571428604},
         gpu.polyfit(gpu.array({0, 1, 2, 3, 4, 5}, "float64"), gpu.array({1, 2.5, 2.9, 6.1, 9.2, 15.3}, "float64"), 2), 1e-13)
    local r = gpu.roots(gpu.array({1, -6, 11, -6}, "float64"))
    assert.are.equal("float64", r.dtype)
    same_set({3, 2, 1}, r, 1e-13)
    local z = gpu.roots(gpu.array({0, 1, 0, 4, 0, 0}, "float64"))   -- leading zeros dropped, trailing ones are roots
    assert.are.equal("complex128", z.dtype)
    same_set({C(0, 2), C(0, -2), 0, 0}, z, 1e-13)
    assert.are.same({0}, gpu.roots(gpu.zeros(3)).shape)
    -- a table, as NumPy's roots takes a list (float64 roots)
    local t = gpu.roots({1, -3, 2})
    assert.are.equal("float64", t.dtype)
    same_set({2, 1}, t, 1e-13)
    assert.matches('gpu.roots: argument 1: element [2] (a string ("x")) expected a number', S.errof(gpu.roots, {1, "x"}), 1, true)
    assert.matches("gpu.roots: argument 1 must be a 1-D device array or a table, got 2-D array",
                   S.errof(gpu.roots, gpu.ones({2, 2})), 1, true)
    assert.matches("gpu.polyfit: x and y must have the same length (3 and 2)",
                   S.errof(gpu.polyfit, gpu.ones(3), gpu.ones(2), 1), 1, true)
    -- a string deg shown quoted (it said 'got 1', as the number); 1.0 is 1, as NumPy's int(deg)
    assert.matches('gpu.polyfit: deg must be a non-negative integer, got a string ("1")',
                   S.errof(gpu.polyfit, gpu.ones(3), gpu.ones(3), "1"), 1, true)
    local px = gpu.array({0, 1, 2}, "float64")
    assert.are.same(gpu.polyfit(px, px * 3 + 1, 1):totable(), gpu.polyfit(px, px * 3 + 1, 1.0):totable())
  end)
end)

describe("gpu.linalg's errors", function()
  it("name the function and what is wrong", function()
    assert.matches("gpu.linalg.inv: argument 1 must be a device array, got table", S.errof(L.inv, {{1}}), 1, true)
    assert.matches("gpu.linalg.det: argument 1 is 1-dimensional: it must have at least two dimensions",
                   S.errof(L.det, gpu.ones(3)), 1, true)
    assert.matches("the last two dimensions of argument 1 must be square, got 2 x 3", S.errof(L.cholesky, gpu.ones({2, 3})), 1, true)
    assert.matches("gpu.linalg.solve: a is 3 x 3 but b has 2 rows", S.errof(L.solve, gpu.eye(3), gpu.ones(2)), 1, true)
    assert.matches("the batch dims of the operands do not broadcast (2 against 3 at dim 1)",
                   S.errof(L.solve, gpu.zeros({2, 2, 2}), gpu.zeros({3, 2, 1})), 1, true)
    assert.matches("argument 2 must be a table of options", S.errof(L.svd, gpu.eye(2), true), 1, true)
    local f = gpu.eye(3)
    f:free()
    assert.matches("freed", S.errof(L.inv, f), 1, true)
    assert.matches("gpu._linalg: 'a' must be a C-ordered array of 16 bytes", S.errof(gpu._linalg, "getrf", {a = gpu.ones(3), m = 2, n = 2, k = 0, batch = 1}), 1, true)
    -- 'a' freed by the table's metamethod after it was checked (the routine read address 0)
    local lu = gpu.eye(4, "float64"):contiguous()
    local t = setmetatable({a = lu, ipiv = gpu.empty(4, "int32"), info = gpu.empty(1, "int32"), m = 4, n = 4, k = 0, batch = 1},
                           {__index = function(_, k) if k == "vectors" then lu:free() end end})
    assert.matches("attempt to use a freed array (gpu._linalg)", S.errof(gpu._linalg, "getrf", t), 1, true)
  end)

  it("refuse a dimension the library cannot take, or a result too large, before any copy, naming the function", function()
    local one = gpu.zeros({1, 1}, "float32")
    local tall, wide = one:expand({1 << 31, 1}), one:expand({1, 1 << 31})   -- views: nothing is copied
    local lib = gpu.backend() == "cpu" and "LAPACK takes dimensions below 2^30" or "cuSOLVER takes dimensions below 2^31"
    local function refused(want, f, ...)
      local e = S.errof(f, ...)
      assert.matches(want .. ": " .. lib, e, 1, true)
    end
    refused("gpu.linalg.qr: the matrices are 2147483648 x 1", L.qr, tall)
    refused("gpu.linalg.svd: the matrices are 2147483648 x 1", L.svd, tall)   -- (gpu.empty's 'shape is too large')
    refused("gpu.linalg.svd: the matrices are 1 x 2147483648", L.svd, wide, {compute_uv = false})
    refused("gpu.linalg.pinv: the matrices are 2147483648 x 1", L.pinv, tall)
    refused("gpu.linalg.matrix_rank: the matrices are 1 x 2147483648", L.matrix_rank, wide)
    refused("gpu.linalg.lstsq: the matrices are 2147483648 x 1", L.lstsq, tall, gpu.zeros(1):expand(1 << 31))
    refused("gpu.linalg.norm: the matrices are 2147483648 x 1", L.norm, tall, 2)
    refused("gpu.linalg.solve: b has 2147483648 columns", L.solve, gpu.eye(1), wide)
    if gpu.backend() == "cpu" then   -- (LAPACK's own error: 'GPUHOST_LIBRARY_FAILED: LAPACK takes ...')
      refused("gpu.linalg.qr: the matrices are 1073741825 x 1", L.qr, one:expand({(1 << 30) + 1, 1}))
    end
    assert.matches("linalg_spec.lua:%d+: gpu.linalg.qr: the matrices", S.errof(function() local r = L.qr(tall); return r end))
    -- a u or Q of more elements than an array holds (2^48): gpu.empty's bare 'shape is too large'
    local long = one:expand({1 << 25, 1})
    local big = "the result's shape {33554432, 33554432} is too large: more elements than an array holds (2^48)"
    assert.matches("gpu.linalg.svd: " .. big, S.errof(L.svd, long), 1, true)
    assert.matches("gpu.linalg.qr: " .. big, S.errof(L.qr, long, "complete"), 1, true)
    assert.matches("linalg_spec.lua:%d+: gpu.linalg.svd: the result's", S.errof(function() local r = L.svd(long); return r end))
    assert.are.same({1 << 31, 0}, L.pinv(gpu.zeros({0, 1}):expand({0, 1 << 31})).shape)   -- empty: no routine
  end)

  it("gpu._linalg refuses shapes its routines cannot take, and pivots that are not rows", function()
    local info = gpu.empty(1, "int32")
    local function call(op, t) t.info = t.info or info; t.batch = t.batch or 1; t.k = t.k or 0; return gpu._linalg(op, t) end
    assert.matches("gpu._linalg: field 'info' must be a device array, got nil",
                   S.errof(gpu._linalg, "potrf", {a = gpu.eye(2), m = 2, n = 2, k = 0, batch = 1}), 1, true)
    assert.matches("orgqr takes k <= n <= m", S.errof(call, "orgqr", {a = gpu.zeros({2, 2}), tau = gpu.zeros(3), m = 2, n = 2, k = 3}), 1, true)
    assert.matches("potrf takes a square matrix", S.errof(call, "potrf", {a = gpu.zeros({1, 2}), m = 1, n = 2}), 1, true)
    assert.matches("inv takes a square matrix", S.errof(call, "inv", {a = gpu.zeros({1, 2}), m = 1, n = 2}), 1, true)
    assert.matches("gpu._linalg: 'b' must be a C-ordered float32 array of 16 bytes",
                   S.errof(call, "inv", {a = gpu.eye(2), ipiv = gpu.zeros(2, "int32"), b = gpu.zeros(3), m = 2, n = 2}), 1, true)
    assert.matches("gesvd takes m >= n", S.errof(call, "gesvd", {a = gpu.zeros({3, 2}), w = gpu.zeros(3), u = gpu.zeros({2, 3}),
                                                                 vt = gpu.zeros({3, 3}), m = 2, n = 3, vectors = true}), 1, true)
    assert.matches("would not fit in memory", S.errof(call, "getrf", {a = gpu.zeros(0), ipiv = gpu.zeros(0, "int32"),
                                                                      info = gpu.empty(0, "int32"), m = 0, n = 1, batch = 1 << 62}), 1, true)
    if gpu.backend() == "cpu" then   -- cuSOLVER reads the pivots on the device, unchecked
      assert.matches("a pivot is not a row of the matrix", S.errof(call, "getrs", {a = gpu.eye(2), ipiv = gpu.array({1000, -5}, "int32"),
                                                                                   b = gpu.ones({1, 2}), m = 2, n = 2, k = 1}), 1, true)
    end
  end)

  it("name the caller's line, from every function and every helper", function()
    local function line_of(f, ...)
      local ok, e = pcall(function(...) local r = f(...) return r end, ...)   -- not a tail call: the line is this one
      assert.is_false(ok)
      return tostring(e)
    end
    local here = "linalg_spec.lua:%d+: gpu.linalg."
    local nan = gpu.full({3, 3}, 0 / 0, "float64")
    for _, case in ipairs({{L.eigh, gpu.ones({2, 2}), "X"}, {L.eigh, gpu.ones(3)}, {L.eigvalsh, gpu.ones(3)},
                           {L.eigvalsh, nan}, {L.det, gpu.ones(3)}, {L.slogdet, gpu.ones({2, 3})},
                           {L.solve, gpu.ones({2, 3, 3}), gpu.ones({4, 3, 1})}, {L.matrix_power, gpu.zeros({2, 2}), -1},
                           {L.pinv, nan}, {L.matrix_rank, nan}, {L.svd, nan}, {L.inv, gpu.zeros({2, 2})},
                           {L.eig, nan}, {L.eigvals, gpu.ones(3)}, {L.lstsq, gpu.ones({2, 2}), gpu.ones(3)},
                           {L.cond, gpu.ones(3)}, {L.cond, gpu.ones({2, 3}), 1}, {L.norm, gpu.ones({2, 2}), 3},
                           {L.norm, gpu.ones({2, 2}), "nuc", {1, 5}}, {L.multi_dot, {gpu.ones(2)}},
                           {L.tensorinv, gpu.ones({2, 3})}, {L.tensorsolve, gpu.ones({2, 3}), gpu.ones(2)}}) do
      assert.matches(here, line_of(table.unpack(case)))
    end
    -- a dim out of range (gpu.norm named itself and lua/linalg.lua's line)
    assert.matches("linalg_spec.lua:%d+: gpu%.linalg%.norm: dim 3 is out of range", line_of(L.norm, gpu.ones({2, 2}), nil, {3}))
    assert.matches("linalg_spec.lua:%d+: gpu%.linalg%.norm: ord %-inf of an empty array", line_of(L.norm, gpu.zeros(0), -math.huge))
  end)

  it("a NaN or an infinity in svd, pinv and matrix_rank is NumPy's LinAlgError, not LAPACK's garbage", function()
    for _, dt in ipairs({"float32", "float64", "complex64", "complex128"}) do
      for _, v in ipairs({0 / 0, 1 / 0}) do
        local a = gpu.eye(3, dt)
        a[{2, 3}] = v
        for _, f in ipairs({L.svd, L.pinv, L.matrix_rank}) do
          assert.matches("the SVD did not converge", S.errof(f, a), 1, true)
        end
      end
    end
  end)
end)

describe("gpu.linalg on the CPU backend's guarded arrays, and NumPy's dtypes and infinities", function()
  it("survive LAPACK's reads past a matrix's end (complex64 SVD of side 38, float32 eigh of side 64)", function()
    gpu.random.seed(1)
    local z = gpu.random.standard_normal({38, 38}):astype("complex64")
    local s = L.svd(z, {compute_uv = false})
    assert.are.equal(38, s.size)
    local u, s2, vh = L.svd(gpu.random.standard_normal({100, 37}):astype("complex64"))
    assert.is_true(gap(gpu.eye(37, "complex64"), gpu.matmul(ht(vh), vh)) < 1e-4)
    assert.are.equal(100, u.shape[1])
    assert.are.equal(37, s2.size)
    local a = gpu.random.standard_normal({64, 64})
    local w = L.eigvalsh(a + a.T)
    assert.are.equal(64, w.size)
    assert.are.equal(64, L.matrix_rank(gpu.random.standard_normal({64, 64}):astype("complex64")))
  end)

  it("cond of a singular matrix is inf, as NumPy's; solve computes integers in float64", function()
    assert.are.same({math.huge, math.huge}, {L.cond(gpu.zeros({2, 2})), L.cond(gpu.zeros({2, 2}), -2)})
    assert.are.same({1, math.huge}, L.cond(gpu.stack({gpu.eye(2), gpu.zeros({2, 2})})):totable())
    assert.are.equal(0, L.cond(gpu.array({{1, 0}, {0, 0}}), -2))
    assert.matches("gpu.linalg.cond: cond is not defined on empty arrays", S.errof(L.cond, gpu.zeros({0, 0})), 1, true)
    assert.matches("no elements to take a quantile of", S.errof(gpu.percentile, gpu.zeros({0, 0}), 50, 1), 1, true)
    local a = gpu.array({{2, 1}, {1, 3}}, "uint8")
    assert.are.equal("float64", L.solve(a, gpu.array({1, 2}, "float32")).dtype)
    assert.are.equal("float64", L.lstsq(a, gpu.array({1, 2}, "float32")).dtype)
    assert.are.equal("complex128", L.solve(a:astype("complex64"), gpu.array({1, 2}, "int32")).dtype)
    assert.are.equal("float32", L.solve(a:astype("float32"), gpu.array({1, 2}, "float32")).dtype)
  end)

  it("solve and lstsq refuse a float16 b as they refuse a float16 a (they computed it in float64)", function()
    -- NumPy: TypeError: array type float16 is unsupported in linalg
    for _, f in ipairs({"solve", "lstsq"}) do
      assert.matches("gpu.linalg." .. f .. ": float16 arrays are not supported in linear algebra: convert with a:astype('float32')",
                     S.errof(L[f], gpu.eye(2), gpu.ones(2, "float16")), 1, true)
    end
    assert.are.same({2}, gpu.polyfit(gpu.array({0, 1, 2}, "float16"), gpu.array({1, 3, 5}, "float16"), 1).shape)   -- documented
  end)

  it("float16 products over a reversed batch dimension (a negative batch stride)", function()
    local a = gpu.array({{1, 2}, {3, 4}, {5, 6}}, "float16")
    local b = gpu.array({{1, 10, 100}, {1000, 10000, 0}}, "float16")[{{}, {-1, 1, -1}}]
    assert.are.same({100, 40032, 6004}, gpu.einsum("ij,ji->i", a, b):totable())
    local x = gpu.array({{{1, 2}}, {{3, 4}}, {{5, 6}}}, "float16")[{{-1, 1, -1}}]
    local y = gpu.array({{{1}, {2}}, {{3}, {4}}, {{5}, {6}}}, "float16")
    assert.are.same({17, 25, 17}, gpu.matmul(x, y):reshape(3):totable())
    local o = gpu.zeros({3, 1, 1}, "float16")[{{-1, 1, -1}}]
    gpu.matmul(x, y, {out = o})
    assert.are.same({17, 25, 17}, o:reshape(3):totable())
  end)
end)

describe("gpu.linalg.norm's dtypes and Lua numbers, as NumPy's", function()
  it("takes integers and bools as float64 (their sums wrapped) and gives a Lua number for one norm", function()
    -- NumPy: 16.0, 200.0, array([256., 256.]), 7.0, 3.0, 4.0, 2.0
    assert.are.equal(16.0, L.norm(gpu.array({{16}}, "uint8"), "fro"))
    assert.are.equal(200.0, L.norm(gpu.array({{100, 100}, {100, 100}}, "int8"), "fro"))
    local r = L.norm(gpu.full({2, 2, 2}, -128, "int8"), 1, {2, 3})
    assert.are.same({"float64", {256, 256}}, {r.dtype, r:totable()})
    local i32 = gpu.array({{1, -2}, {3, 4}}, "int32")
    assert.are.same({7.0, "float"}, {L.norm(i32, math.huge), math.type(L.norm(i32, math.huge))})
    assert.are.same({3.0, 4.0}, {L.norm(i32, -math.huge), L.norm(i32, -1)})
    assert.are.equal(2.0, L.norm(gpu.array({{true, true}, {true, false}}), 1))
    assert.are.equal(200.0, L.norm(gpu.array({100, 100}, "int8"), 1))
    -- a 1-D x with ord or an integer dim: NumPy's 5.0, 5.0, 4.0 (array([5.]) kept)
    local v = gpu.array({3, 4}, "float64")
    assert.are.same({5.0, 5.0, 5.0, 4.0}, {L.norm(v), L.norm(v, 2), L.norm(v, nil, 1), L.norm(v, math.huge)})
    assert.are.same({1}, L.norm(v, 2, {keepdim = true}).shape)
  end)

  it("of empty arrays is NumPy 2's: 0 where its max of norms starts at 0, an error for a min", function()
    -- NumPy 2.4: 0.0 for each (NumPy 1.24 raised for the first five)
    local e = gpu.zeros({0, 3}, "float64")
    assert.are.same({0.0, 0.0, 0.0, 0.0, 0.0}, {L.norm(e, 2), L.norm(e, math.huge), L.norm(gpu.zeros(0), math.huge),
                                                  L.norm(e.T, 1), L.norm(e, "nuc")})
    assert.are.same({0, 0}, L.norm(gpu.zeros({2, 0, 3}), 2, {2, 3}):totable())
    assert.are.same({0, 0}, L.norm(gpu.zeros({0, 2}), math.huge, 1):totable())
    assert.are.equal(math.huge, L.norm(gpu.zeros(0), -1))
    -- NumPy: ValueError: zero-size array to reduction operation minimum which has no identity
    for _, case in ipairs({{e, -2}, {e, -math.huge}, {e.T, -1}, {gpu.zeros(0), -math.huge}}) do
      assert.matches("gpu.linalg.norm: ord " .. tostring(case[2]) .. " of an empty array (or along a dim of size 0): " ..
                     "the minimum has no identity", S.errof(L.norm, case[1], case[2]), 1, true)
    end
    -- NumPy's words (it quotes the order too: 'fro'; "1" was shown as the number 1)
    assert.matches('gpu.linalg.norm: invalid norm order "fro" for vectors', S.errof(L.norm, gpu.ones(2), "fro"), 1, true)
    assert.matches('gpu.linalg.norm: invalid norm order "1" for matrices', S.errof(L.norm, gpu.ones({2, 2}), "1"), 1, true)
    -- a string dim shown quoted (it said 'got 1', as the number)
    assert.matches('gpu.linalg.norm: argument 3 must hold integer dims, got a string ("1")',
                   S.errof(L.norm, gpu.ones({2, 2}), nil, "1"), 1, true)
  end)
end)

describe("gpu.linalg #multi", function()
  it("refuses an array of another device as every operation does, and runs on its device under with_device", function()
    -- (inv, det, slogdet and solve ran on device 0 reading device 1; the others failed naming a copy)
    local on = function(f) return gpu.with_device(1, f) end
    local b, v = on(function() return gpu.eye(3, "float64") * 2, gpu.ones(3, "float64") end)
    local calls = {inv = {b}, det = {b}, slogdet = {b}, solve = {b, v}, cholesky = {b}, qr = {b}, eigh = {b},
                   eigvalsh = {b}, svd = {b}, pinv = {b}, matrix_rank = {v}, matrix_power = {b, 2}, eig = {b},
                   eigvals = {b}, lstsq = {gpu.eye(3), v}, norm = {v, 2}, cond = {b}, multi_dot = {{b, b}},
                   tensorinv = {b, 1}, tensorsolve = {b, v}}
    for name, args in pairs(calls) do
      assert.matches("gpu.linalg." .. name .. ": an array on device 1, and device 0 is current: run it with " ..
                     "gpu.with_device(1, f), or copy it here with a:to(0)", S.errof(L[name], table.unpack(args)), 1, true)
    end
    for name, f in pairs({polyfit = function() return gpu.polyfit(v, v, 1) end, roots = function() return gpu.roots(v) end}) do
      assert.matches("gpu." .. name .. ": an array on device 1, and device 0 is current", S.errof(f), 1, true)
    end
    local x, d = on(function() local x = L.solve(b, v) return x, L.det(b) end)
    assert.are.same({1, {0.5, 0.5, 0.5}, 8}, {x.device, x:totable(), d})
  end)
end)
