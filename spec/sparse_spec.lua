-- lua/sparse.lua and kernels/sparse.cu: gpu.sparse's CSR, CSC and COO matrices. The literals
-- are scipy 1.11.4's results for the same inputs (indices 0-based, as scipy's); larger
-- products are checked against gpu.matmul of the dense matrix (the BLAS).
local S = require("spec.support")
local sp = gpu.sparse

local function same(want, got)
  if type(want) == "table" then
    assert.are.equal(#want, #got)
    for i = 1, #want do same(want[i], got[i]) end
  else
    assert.are.equal(want, got)
  end
end
local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end
local function i32(t) return gpu.array(t, "int32") end
local function f64(t) return gpu.array(t, "float64") end

local DENSE = {{1, 0, 2}, {0, 0, 3}, {4, 5, 0}}

describe("gpu.sparse matrices", function()
  local A = sp.csr_matrix(f64(DENSE))

  it("are made from dense arrays as scipy's", function()
    assert.are.equal("csr", A.format)
    assert.are.equal("float64", A.dtype)
    same({3, 3}, A.shape)
    assert.are.equal(5, A.nnz)
    assert.are.equal(2, A.ndim)
    assert.is_true(A.has_canonical_format)
    same({1, 2, 3, 4, 5}, A.data:totable())
    same({0, 2, 2, 0, 1}, A.indices:totable())
    same({0, 2, 3, 5}, A.indptr:totable())
    assert.are.equal("int32", A.indices.dtype)
    assert.are.equal("<3x3 sparse matrix of type '<class 'numpy.float64'>'\n\twith 5 stored elements in "
                     .. "Compressed Sparse Row format>", tostring(A))
    local C = sp.csc_matrix(f64(DENSE))
    same({1, 4, 5, 2, 3}, C.data:totable())
    same({0, 2, 2, 0, 1}, C.indices:totable())
    same({0, 2, 3, 5}, C.indptr:totable())
    same(DENSE, C:toarray():totable())
    local O = sp.coo_matrix(f64(DENSE))
    same({0, 0, 1, 2, 2}, O.row:totable())
    same({0, 2, 2, 0, 1}, O.col:totable())
    assert.matches("COOrdinate format>$", tostring(O))
    -- a Lua table goes through gpu.array (float64), a 1-D array is a row
    same(DENSE, sp.csr_matrix(DENSE):toarray():totable())
    same({1, 3}, sp.csr_matrix(f64({0, 2, 0})).shape)
    local B = sp.csr_matrix(gpu.array(DENSE, "float32"), {dtype = "complex64"})
    assert.are.equal("complex64", B.dtype)
    local E = sp.csr_matrix({3, 4})
    assert.are.equal("float64", E.dtype)
    same({0, 0, 0, 0}, E.indptr:totable())
    same({{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}, E:toarray():totable())
    assert.is_true(sp.issparse(A))
    assert.is_false(sp.issparse(A.data))
    assert.is_true(sp.isspmatrix_csr(A))
    assert.is_false(sp.isspmatrix_csc(A))
    assert.is_true(sp.isspmatrix_coo(O))
  end)

  it("take (data, indices, indptr) and (data, {row, col}) forms, checked", function()
    local D = sp.csr_matrix({f64({1, 2, 3, 4}), i32({2, 0, 0, 1}), i32({0, 2, 4})}, {shape = {2, 3}})
    assert.is_false(D.has_canonical_format)
    same({{2, 0, 1}, {3, 4, 0}}, D:toarray():totable())
    local E = D:tocsc()
    same({2, 3, 4, 1}, E.data:totable())
    same({0, 1, 1, 0}, E.indices:totable())
    same({0, 2, 3, 4}, E.indptr:totable())
    local F = D:copy()
    F:sort_indices()
    same({2, 1, 3, 4}, F.data:totable())
    same({0, 2, 0, 1}, F.indices:totable())
    same({1, 2, 3, 4}, D.data:totable())   -- the copy's
    -- the shape guessed from indices (int64 and tables are made int32)
    local G = sp.csr_matrix({{5, 6}, gpu.array({1, 3}, "int64"), {0, 1, 2}})
    same({2, 4}, G.shape)
    assert.are.equal("int32", G.indptr.dtype)
    -- COO: duplicates kept, summed by tocsr (scipy's)
    local C = sp.coo_matrix({{1.0, 2.0, 3.0}, {{0, 0, 1}, {1, 1, 2}}}, {shape = {2, 3}})
    assert.are.equal(3, C.nnz)
    same({{0, 3, 0}, {0, 0, 3}}, C:toarray():totable())
    same({6, 9}, (C * f64({1, 2, 3})):totable())   -- the duplicates added by the kernel
    local R = C:tocsr()
    assert.are.equal(2, R.nnz)
    same({3, 3}, R.data:totable())
    same({1, 2}, R.indices:totable())
    same({0, 1, 2}, R.indptr:totable())
    same({3, 3}, sp.csr_matrix({{1.0, 2.0, 3.0}, {{0, 0, 1}, {1, 1, 2}}}).data:totable())
    local S2 = C:copy()
    S2:sum_duplicates()
    same({3, 3}, S2.data:totable())
    same({0, 1}, S2.row:totable())
  end)

  it("convert between formats, transpose and copy", function()
    local T = A.T
    assert.are.equal("csc", T.format)
    assert.are.equal(A.data, T.data)   -- shared, as scipy's
    same({{1, 0, 4}, {0, 0, 5}, {2, 3, 0}}, T:toarray():totable())
    same({{1, 0, 4}, {0, 0, 5}, {2, 3, 0}}, T:tocsr():toarray():totable())
    same({{1, 0, 4}, {0, 0, 5}, {2, 3, 0}}, A:tocoo():transpose():tocsc():toarray():totable())
    same(DENSE, A:tocsc():tocoo():tocsr():todense():totable())
    same(DENSE, sp.csc_matrix(A):toarray():totable())
    local B = sp.csr_matrix(A, {copy = true})
    assert.are_not.equal(A.data, B.data)
    assert.are.equal(A, sp.csr_matrix(A))
    local F = A:astype("float32")
    assert.are.equal("float32", F.dtype)
    assert.are.equal("float32", F.data.dtype)
    local Z = sp.csr_matrix(f64({{0, 1, 0}, {2, 0, 0}}))
    Z.data:copy_({0, 2})
    Z:eliminate_zeros()
    same({2}, Z.data:totable())
    same({0}, Z.indices:totable())
    same({0, 0, 1}, Z.indptr:totable())
    -- CSR -> CSC keeps duplicates and each column in the rows' order (the counting transpose);
    -- a column of more than 64 entries takes the sort, with the same result
    local U = sp.csr_matrix({f64({1, 2, 3, 4, 5}), i32({2, 0, 2, 1, 0}), i32({0, 3, 3, 5})}, {shape = {3, 3}})
    local V = U:tocsc()
    same({0, 2, 3, 5}, V.indptr:totable())
    same({0, 2, 2, 0, 0}, V.indices:totable())
    same({2, 5, 4, 1, 3}, V.data:totable())
    same(U:toarray():totable(), V:tocsr():toarray():totable())
    local tall = gpu.arange(0, 300, 1, "float64"):reshape(100, 3) + 1
    local W = sp.csr_matrix(tall):tocsc()
    same({0, 100, 200, 300}, W.indptr:totable())
    same(gpu.arange(0, 100, 1, "int32"):totable(), W.indices[{{1, 100}}]:totable())
    same(tall:totable(), W:tocsr():toarray():totable())
  end)

  it("multiply arrays by their own kernels, in result_type's dtype", function()
    local x = f64({1, 2, 3})
    same({7, 9, 14}, A:dot(x):totable())
    same({7, 9, 14}, (A * x):totable())
    same({7, 9, 14}, gpu.matmul(A, x):totable())
    same({7, 9, 14}, A:tocsc():dot(x):totable())
    same({7, 9, 14}, A:tocoo():dot(x):totable())
    same({13, 15, 8}, gpu.matmul(x, A):totable())
    same({{11, 14}, {15, 18}, {19, 28}}, (A * f64({{1, 2}, {3, 4}, {5, 6}})):totable())
    same({{13, 15, 8}, {28, 30, 23}}, gpu.matmul(f64({{1, 2, 3}, {4, 5, 6}}), A):totable())
    local A32 = A:astype("float32")
    assert.are.equal("float64", (A32 * x).dtype)
    assert.are.equal("float32", (A32 * gpu.array({1, 2, 3}, "float32")).dtype)
    same({7, 9, 14}, (A32 * gpu.array({1, 2, 3}, "float32")):totable())
    local B = sp.csr_matrix(gpu.array(DENSE):ne(0))
    assert.are.equal("bool", B.dtype)
    assert.matches("numpy.bool_", tostring(B), 1, true)
    local BB = B * B:toarray()
    assert.are.equal("bool", BB.dtype)
    same({{true, true, true}, {true, true, false}, {true, false, true}}, BB:totable())
    local Bi = B * gpu.array({1, 2, 3}, "int32")
    assert.are.equal("int32", Bi.dtype)
    same({4, 3, 3}, Bi:totable())
    local z = gpu.array({gpu.complex(1, 2), 0, 0, gpu.complex(3, -1)}, "complex64"):reshape(2, 2)
    local y = sp.csr_matrix(z) * gpu.array({1, gpu.complex(0, 1)}, "complex64")
    assert.are.equal("complex64", y.dtype)
    local t = y:totable()
    assert.are.equal(gpu.complex(1, 2), t[1])
    assert.are.equal(gpu.complex(1, 3), t[2])
  end)

  it("give the dense product for rows of every length", function()
    for _, case in ipairs({{60, 40, 5}, {6, 300, 2}, {33, 20, 1}, {50, 10, 4}, {40, 48, 4}, {40, 6, 4}}) do
      local m, n, p = case[1], case[2], case[3]
      local i = gpu.arange(0, m, 1, "float64"):reshape(m, 1)
      local j = gpu.arange(0, n, 1, "float64"):reshape(1, n)
      local d = gpu.where(((i * 7 + j * 3) % p):eq(0), (i + 1) * 0.5 - j * 0.25, 0)
      local x = gpu.arange(0, n, 1, "float64") * 0.1 - 1
      local X = gpu.arange(0, n * 3, 1, "float64"):reshape(n, 3) * 0.01
      local Y = gpu.arange(0, m * 3, 1, "float64"):reshape(3, m) * 0.01
      local W = gpu.arange(0, n * 40, 1, "float64"):reshape(n, 40) * 0.001   -- wider than a warp
      for _, M in ipairs({sp.csr_matrix(d), sp.csc_matrix(d)}) do
        assert.is_true(gpu.allclose(gpu.matmul(d, x), M * x, {rtol = 1e-12}))
        assert.is_true(gpu.allclose(gpu.matmul(d, X), M * X, {rtol = 1e-12}))
        assert.is_true(gpu.allclose(gpu.matmul(d, W), M * W, {rtol = 1e-12}))
        assert.is_true(gpu.allclose(gpu.matmul(Y, d), gpu.matmul(Y, M), {rtol = 1e-12}))
      end
    end
  end)

  it("give the dense product with a few long rows among short ones", function()
    -- rows 1 and 7 (of 200) hold 800 and 400 entries, the others 2: 2 lanes a row, row 7
    -- summed by a warp, row 1 by the whole block (kernels/sparse.cu); then the rows are moved
    -- (indptr written): still right
    local m, n = 200, 800
    local i = gpu.arange(0, m, 1, "float64"):reshape(m, 1)
    local j = gpu.arange(0, n, 1, "float64"):reshape(1, n)
    local short = gpu.logical_or((j - i):eq(0), (j - (i * 7 + 3) % n):eq(0))
    local long = gpu.logical_or(i:eq(0), gpu.logical_and(i:eq(6), (j % 2):eq(0)))
    local d = gpu.where(gpu.logical_or(short, long), (i + 1) * 0.5 - j * 0.25, 0)
    local x = gpu.arange(0, n, 1, "float64") * 0.1 - 1
    for _, dt in ipairs({"float64", "float32", "complex128"}) do
      local A = sp.csr_matrix(d:astype(dt))
      assert.is_true(gpu.allclose(gpu.matmul(d, x):astype(dt), A * x:astype(dt), {rtol = 1e-5}), dt)
    end
    local A = sp.csr_matrix(d)
    local y = A * x
    -- the same entries, the rows' order reversed through the arrays themselves
    local B = sp.csr_matrix(gpu.flip(d, 1))
    A.indptr:copy_(B.indptr); A.indices:copy_(B.indices); A.data:copy_(B.data)
    assert.is_true(gpu.allclose(gpu.flip(y, 1), A * x, {rtol = 1e-12}))
  end)

  it("give the product and row sums for skewed row lengths, in every dtype", function()
    -- 2999 rows (not a multiple of 256) of one entry, but row 1000 of 5000 (the whole block)
    -- and rows of 32, 33, 256, 257, 512, 513 and 0 entries; against sums made here in Lua
    local m, n = 2999, 5000
    local len = {}
    for r = 1, m do len[r] = 1 end
    len[1000] = 5000
    for k, l in ipairs({32, 33, 256, 257, 512, 513, 0, 0}) do len[k * 301] = l end
    len[m] = 513
    local ptr, ind, val = {0}, {}, {}
    for r = 1, m do
      for k = 0, len[r] - 1 do
        ind[#ind + 1] = (r * 37 + k * 13) % n
        val[#val + 1] = ((r + 3 * k) % 11 - 5) / 4
      end
      ptr[r + 1] = #ind
    end
    local x = {}
    for c = 1, n do x[c] = (c % 7 - 3) / 8 end
    local want_y, want_s = {}, {}
    for r = 1, m do
      local y, t = 0, 0
      for p = ptr[r] + 1, ptr[r + 1] do y, t = y + val[p] * x[ind[p] + 1], t + val[p] end
      want_y[r], want_s[r] = y, t
    end
    local A = sp.csr_matrix({f64(val), i32(ind), i32(ptr)}, {shape = {m, n}})
    for _, dt in ipairs({"float64", "float32", "complex64", "complex128"}) do
      local B = A:astype(dt)
      local tol = (dt == "float32" or dt == "complex64") and 1e-4 or 1e-12
      local xd = f64(x):astype(dt)
      for _, y in ipairs({B:dot(xd), B * xd, gpu.matmul(B, xd), B:tocsc() * xd, B:tocoo() * xd}) do
        assert.is_true(gpu.allclose(y, f64(want_y):astype(dt), {rtol = tol, atol = tol}), dt)
      end
      assert.is_true(gpu.allclose(B:sum(2):reshape(m), f64(want_s):astype(dt), {rtol = tol, atol = tol}), dt)
    end
    -- bool: a row is true where any entry's value and x are both true
    local Bb, xb = A:astype("bool"), f64(x):ne(0)
    local want_b = {}
    for r = 1, m do
      local any = false
      for p = ptr[r] + 1, ptr[r + 1] do any = any or (val[p] ~= 0 and x[ind[p] + 1] ~= 0) end
      want_b[r] = any
    end
    same(want_b, (Bb * xb):totable())
    -- the COO form with every entry split in three duplicates, then summed
    local C = A:tocoo()
    local D = sp.coo_matrix({gpu.concatenate({C.data * 0.25, C.data * 0.5, C.data * 0.25}),
                             {gpu.concatenate({C.row, C.row, C.row}), gpu.concatenate({C.col, C.col, C.col})}}, {shape = {m, n}})
    assert.is_true(gpu.allclose(D * f64(x), f64(want_y), {rtol = 1e-12, atol = 1e-12}))
    D:sum_duplicates()
    assert.are.equal(#val, D.nnz)
    assert.is_true(gpu.allclose(D:tocsr() * f64(x), f64(want_y), {rtol = 1e-12, atol = 1e-12}))
    -- one row; no entries at all
    local one = sp.csr_matrix({f64({1, 2, 3}), i32({0, 4, 9}), i32({0, 3})}, {shape = {1, 10}})
    same({1 * 0 + 2 * 4 + 3 * 9}, one:dot(gpu.arange(0, 10, 1, "float64")):totable())
    same({0, 0, 0}, sp.csr_matrix({3, 700}):dot(gpu.ones(700, "float64")):totable())
  end)

  it("multiply two sparse matrices as scipy's", function()
    local P = A * A
    assert.are.equal("csr", P.format)
    assert.are.equal(7, P.nnz)
    same({{9, 10, 2}, {12, 15, 0}, {4, 0, 23}}, P:toarray():totable())
    same({0, 3, 5, 7}, P.indptr:totable())
    same({{5, 6, 4}, {6, 9, 0}, {4, 0, 41}}, gpu.matmul(A, A.T):toarray():totable())
    same({{1, 0}, {0, 0}, {4, -5}}, (A:tocoo() * sp.csr_matrix(f64({{1, 0}, {0, -1}, {0, 0}}))):toarray():totable())
    local Z = sp.csr_matrix(f64({{1, 1}, {0, 0}})) * sp.csr_matrix(f64({{1, 0}, {-1, 0}}))
    assert.are.equal(0, Z.nnz)   -- cancelled sums removed, as scipy's
    local B = sp.csr_matrix(gpu.array(DENSE):ne(0))
    same({{true, true, true}, {true, true, false}, {true, false, true}}, (B * B):toarray():totable())
    same({{0, 0}, {0, 0}}, (sp.csr_matrix({2, 3}) * sp.csr_matrix({3, 2})):toarray():totable())
  end)

  it("add, subtract, scale and multiply elementwise", function()
    same({{2, 0, 4}, {0, 0, 6}, {8, 10, 0}}, (A * 2):toarray():totable())
    same({{2, 0, 4}, {0, 0, 6}, {8, 10, 0}}, (2 * A):toarray():totable())
    same({0.5, 1, 1.5, 2, 2.5}, (A / 2).data:totable())
    same({-1, -2, -3, -4, -5}, (-A).data:totable())
    local S2 = A + A.T
    assert.are.equal("csr", S2.format)
    assert.is_true(S2.has_canonical_format)
    same({{2, 0, 6}, {0, 0, 8}, {6, 8, 0}}, S2:toarray():totable())
    assert.are.equal(0, (A - A).nnz)   -- zeros removed, as scipy's
    same({{0, 0, -2}, {0, 0, -2}, {2, 2, 0}}, (A - A.T):toarray():totable())
    same({{2, 1, 3}, {1, 1, 4}, {5, 6, 1}}, (A + gpu.ones({3, 3}, "float64")):totable())
    -- a dense array on the left: its operator hands the call to the matrix's, as Python's
    -- reflected ones (before: "argument 2 is a Lua table"); x * A is x @ A (spmatrix's)
    same({{2, 1, 3}, {1, 1, 4}, {5, 6, 1}}, (gpu.ones({3, 3}, "float64") + A):totable())
    same({{0, 1, -1}, {1, 1, -2}, {-3, -4, 1}}, (gpu.ones({3, 3}, "float64") - A):totable())
    same({13, 15, 8}, (f64({1, 2, 3}) * A):totable())
    assert.matches("gpu.pow argument 2 is a gpu.sparse.csr_matrix, which it does not take",
                   S.errof(function() return gpu.ones({3, 3}, "float64") ^ A end), 1, true)
    assert.matches("a gpu.sparse.csr_matrix is not a table of values: use A:toarray()",
                   S.errof(gpu.array, A), 1, true)   -- (before: an empty float32 array)
    -- bool: scipy's difference is true where the two differ (before: gpu.negative refused it)
    local Bp = sp.csr_matrix(gpu.array({{true, false}, {true, true}}))
    local Bq = sp.csr_matrix(gpu.array({{true, true}, {false, true}}))
    local Bd = Bp - Bq
    assert.are.equal("bool", Bd.dtype)
    assert.are.equal(2, Bd.nnz)
    same({{false, true}, {true, false}}, Bd:toarray():totable())
    assert.are.equal(0, (Bp - Bp).nnz)
    same(DENSE, (A + 0):toarray():totable())
    same({{1, 0, 4}, {0, 0, 9}, {16, 25, 0}}, A:multiply(A):toarray():totable())
    same({{1, 0, 8}, {0, 0, 15}, {8, 15, 0}}, A:multiply(A.T):toarray():totable())
    same({{1, 0, 6}, {0, 0, 9}, {4, 10, 0}}, A:multiply(f64({1, 2, 3})):toarray():totable())
    same({{2, 0, 4}, {0, 0, 6}, {8, 10, 0}}, A:multiply(2):toarray():totable())
    -- scipy's: a NaN or an infinity times the other's implicit zero is NaN, kept; zero
    -- products (an explicit zero of the other) are left out
    local P = sp.csr_matrix({f64({1, 0 / 0, 1 / 0}), i32({0, 2, 1}), i32({0, 2, 3})}, {shape = {2, 3}})
    local Q = sp.csr_matrix({f64({0, 5, 3}), i32({0, 1, 2}), i32({0, 2, 3})}, {shape = {2, 3}})
    for _, R in ipairs({P:multiply(Q), Q:multiply(P)}) do
      same({0, 1, 2}, R.indptr:totable())
      same({2, 1}, R.indices:totable())
      local d = R.data:totable()
      assert.is_true(d[1] ~= d[1] and d[2] ~= d[2])
    end
    local N = sp.csr_matrix(f64({{-1, 0}, {0, 2}}))
    same({{1, 0}, {0, 2}}, N:abs():toarray():totable())
    -- duplicates summed first, as scipy's: |1 + -3|, not |1| + |-3|
    local D = sp.csr_matrix({f64({1, -3, 2}), i32({0, 0, 1}), i32({0, 2, 3})}, {shape = {2, 2}})
    same({{2, 0}, {0, 2}}, D:abs():toarray():totable())
    same({{2, 0}, {0, 2}}, D:tocoo():abs():toarray():totable())
    -- scalars: a gpu.complex (complex128 of float64, complex64 of float32) and booleans
    local zA = (A * gpu.complex(0, 1)):toarray()
    assert.are.equal("complex128", zA.dtype)
    assert.are.equal(gpu.complex(0, 4), zA:totable()[3][1])
    assert.are.equal(gpu.complex(0, 4), (gpu.complex(0, 1) * A):toarray():totable()[3][1])   -- z * A too
    assert.are.equal("complex64", (sp.csr_matrix(A:toarray():astype("float32")) / gpu.complex(0, 2)).dtype)
    same(DENSE, (A * true):toarray():totable())
    local Bo = sp.csr_matrix(gpu.array({{false, true}, {true, false}}, "bool"))
    assert.matches("a bool matrix times 2 gives int64, which gpu.sparse does not hold",
                   S.errof(function() return Bo * 2 end), 1, true)
    same({{0, 2.5}, {2.5, 0}}, (Bo * 2.5):toarray():totable())
    local z = sp.csr_matrix(gpu.array({gpu.complex(1, 2), 0, 0, gpu.complex(3, -1)}, "complex128"):reshape(2, 2))
    local t = z:conj():toarray():totable()
    assert.are.equal(gpu.complex(1, -2), t[1][1])
    assert.are.equal(gpu.complex(3, 1), t[2][2])
  end)

  it("sum, take diagonals and count as scipy's", function()
    assert.are.equal(15, A:sum())
    local c = A:sum(1)
    same({1, 3}, c.shape)
    same({{5, 5, 5}}, c:totable())
    same({{3}, {3}, {9}}, A:sum(2):totable())
    same({{3}, {3}, {9}}, A:sum(-1):totable())
    same({{5, 5, 5}}, A:tocsc():sum(1):totable())
    same({{3}, {3}, {9}}, A:tocoo():sum(2):totable())
    assert.are.equal("float32", A:astype("float32"):sum(1).dtype)
    local B = sp.csr_matrix(gpu.array(DENSE):ne(0))
    assert.are.equal(5, B:sum())
    assert.are.equal("int64", B:sum(1).dtype)
    -- a bool matrix's duplicates are one true (toarray's, scipy's sum): before, 3 and {1, 2, 0}
    local Bd = sp.csr_matrix({gpu.array({true, true, true}), i32({1, 1, 0}), i32({0, 3, 3})}, {shape = {2, 3}})
    assert.are.equal(2, Bd:sum())
    same({{1, 1, 0}}, Bd:sum(1):totable())
    same({{2}, {0}}, Bd:sum(2):totable())
    assert.are.equal(2, Bd:tocoo():sum())
    same({1, 0, 0}, A:diagonal():totable())
    same({0, 3}, A:diagonal(1):totable())
    same({4}, A:diagonal(-2):totable())
    same({}, A:diagonal(5):totable())
    local C = sp.coo_matrix({{1.0, 2.0, 3.0}, {{0, 0, 1}, {0, 0, 1}}})
    same({3, 3}, C:diagonal():totable())
    assert.are.equal(5, A:count_nonzero())
    assert.are.equal(2, C:count_nonzero())
  end)

  it("take max, min, argmax, argmin and mean as scipy's, implicit zeros included", function()
    local nan = 0 / 0
    local M = sp.csr_matrix(f64({{0, 0, 0}, {0, -2, 0}, {3, 0, 1}, {-1, -5, -3}, {nan, 0, 2}, {0, 0, 0}}))
    local function vals(a) local t = {}; for i, v in ipairs(a:reshape(-1):totable()) do t[i] = v ~= v and "nan" or v end; return t end
    -- scipy 1.11: A.max(axis=1), A.min(axis=1) (sparse), A.argmax(axis=1) ... (0-based there)
    same({0, 0, 3, -1, "nan", 0}, vals(M:max(2):toarray()))
    same({0, -2, 0, -5, "nan", 0}, vals(M:min(2):toarray()))
    assert.are.equal("coo", M:max(2).format)
    same({1, 1, 1, 1, 2, 1}, M:argmax(2):reshape(-1):totable())
    same({1, 2, 2, 2, 2, 1}, M:argmin(2):reshape(-1):totable())
    same({{1, 1, 5}}, M:argmax(1):totable())
    same({{1, 4, 4}}, M:argmin(1):totable())
    same({"nan", 0, 2}, vals(M:tocsc():max(1):toarray()))
    local mx, mn = M:max(), M:min()
    assert.is_true(mx ~= mx and mn ~= mn)
    assert.are.same({1, 1}, {M:argmax(), M:argmin()})
    local E = sp.csr_matrix(f64({{-1, 0}, {0, -3}}))
    assert.are.same({0.0, 2, -3.0, 4}, {E:max(), E:argmax(), E:min(), E:argmin()})
    local Z = sp.csr_matrix(f64({{0, 0}, {0, 0}}))
    assert.are.same({0.0, 1}, {Z:max(), Z:argmax()})
    same({{1, 1}}, Z:argmax(1):totable())
    local G = sp.coo_matrix(f64({{nan, 1}, {2, 3}}))
    assert.are.same({1, 1}, {G:argmax(), G:argmin()})
    local H = sp.csr_matrix(gpu.array({{true, false}, {false, true}}, "bool"))
    assert.are.same({true, 1, false, 2, 0.5}, {H:max(), H:argmax(), H:min(), H:argmin(), H:mean()})
    -- mean: sum over the count, in the matrix's dtype (bool: float64)
    same({{1 / 3, -7 / 6, 0}}, sp.csr_matrix(f64({{0, 0, 0}, {0, -2, 0}, {3, 0, 1}, {-1, -5, -3}, {0, 0, 2}, {0, 0, 0}})):mean(1):totable())
    assert.are.equal("float32", sp.csr_matrix(gpu.array({{1, 2}, {3, 4}}, "float32")):mean(2).dtype)
    err("zero-size array to reduction operation", M.max, sp.csr_matrix({0, 3}))
    err("zero-size array to reduction operation", M.max, sp.csr_matrix({0, 3}), 1)
    same({1, 0}, sp.csr_matrix({2, 0}):max(1).shape)
    err("complex matrices have no order", M.argmax, sp.csr_matrix(gpu.array({{1, 2}}, "complex128")))
  end)

  it("apply scipy's elementwise functions and powers to the stored values, and find entries", function()
    local D = f64({{1, 0, 2, 0}, {0, 3, 0, 4}, {5, 0, 0, 6}})
    local M = sp.csr_matrix(D)
    assert.is_true(gpu.allclose(gpu.sin(D), M:sin():toarray()))
    assert.is_true(gpu.allclose(gpu.sqrt(D), M:sqrt():toarray()))
    -- duplicates summed first: sqrt(1 + 3), not sqrt(1) + sqrt(3)
    local C = sp.coo_matrix({f64({1, 3}), {i32({0, 0}), i32({0, 0})}}, {shape = {1, 1}})
    same({{2}}, C:sqrt():toarray():totable())
    same({{1, 0, 4, 0}, {0, 9, 0, 16}, {25, 0, 0, 36}}, M:power(2):toarray():totable())
    assert.are.equal("float32", M:power(2, "float32").dtype)
    err("a zero power is not supported", M.power, M, 0)
    err("the exponent must be a number", M.power, M, "2")
    err("which gpu.sparse does not hold", M.sin, sp.csr_matrix(gpu.array({{true}}, "bool")))
    assert.are.same({4.0, 6.0}, {M:trace(), M:trace(1)})
    -- an empty diagonal sums to scipy's 0.0 (it was the integer 0); bool sums in int64: 0
    assert.are.equal("float", math.type(M:trace(10)))
    assert.are.equal("float", math.type(M:astype("float32"):trace(-5)))
    local Bm = sp.csr_matrix(gpu.array({{true, false}, {false, true}}, "bool"))
    assert.are.same({"integer", 2, "integer", 0}, {math.type(Bm:trace()), Bm:trace(), math.type(Bm:trace(3)), Bm:trace(3)})
    local r, c = M:nonzero()
    same({1, 1, 2, 2, 3, 3}, r:totable())
    same({1, 3, 2, 4, 1, 4}, c:totable())
    local fr, fc, fv = sp.find(sp.coo_matrix({f64({1, -1, 7}), {i32({0, 0, 2}), i32({1, 1, 0})}}, {shape = {3, 2}}))
    same({{3}, {1}, {7}}, {fr:totable(), fc:totable(), fv:totable()})   -- (0, 1) summed to 0: left out
    same({{1, 0, 0, 0}, {0, 3, 0, 0}, {5, 0, 0, 0}}, sp.tril(M):toarray():totable())
    same({{0, 0, 2, 0}, {0, 0, 0, 4}, {0, 0, 0, 6}}, sp.triu(M, 1, {format = "csr"}):toarray():totable())
    assert.are.equal("coo", sp.tril(M, -1).format)
    assert.are.equal("csr", sp.triu(M, {format = "csr"}).format)
    local B = gpu.array({{0, 1}, {2, 0}}, "float32")
    local K = sp.kron(sp.csr_matrix(B), M)
    same({6, 8, 12, "float64", "coo"}, {K.shape[1], K.shape[2], K.nnz, K.dtype, K.format})
    assert.is_true(gpu.allclose(gpu.kron(B, D), K:toarray()))
    assert.is_true(gpu.allclose(gpu.kron(D, B), sp.kron(M, B, {format = "csc"}):toarray()))
    same({0, 0}, {sp.kron(M, sp.csr_matrix({2, 2})).nnz, 0})
    err("the matrix must be a sparse matrix or a device array", sp.find, {1})
  end)

  it("make identities, diagonals and random matrices", function()
    same({{0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}, sp.eye(3, 4, 1):toarray():totable())
    local I = sp.identity(3, {dtype = "float32", format = "csc"})
    assert.are.equal("csc", I.format)
    assert.are.equal("float32", I.dtype)
    same({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, I:toarray():totable())
    same({{0, 0}, {1, 0}, {0, 1}}, sp.eye(3, 2, -1):toarray():totable())
    -- offsets past the matrix, even past int32, give no entries (scipy's)
    for _, k in ipairs({3, 2 ^ 40, -(2 ^ 40), math.maxinteger, math.mininteger}) do
      local E = sp.eye(3, 3, k)
      assert.are.equal(0, E.nnz)
      same({0, 0, 0, 0}, E.indptr:totable())
    end
    same({{1, 4, 0}, {0, 2, 5}, {0, 0, 3}}, sp.diags({{1, 2, 3}, {4, 5}}, {0, 1}):toarray():totable())
    same({{1, 0}, {3, 2}, {0, 3}}, sp.diags({{1, 2}, {3, 3}}, {0, -1}, {shape = {3, 2}}):toarray():totable())
    same({{2, 0}, {0, 2}}, sp.diags(2, 0, {shape = {2, 2}}):toarray():totable())
    -- zeros are not stored, as scipy's (they were: nnz 5 and 2); a NaN is
    local Z = sp.diags({{1, 0, 2}, {0, 5}}, {0, 1}, {format = "coo"})
    assert.are.equal(3, Z.nnz)
    same({{1, 0, 0}, {0, 0, 5}, {0, 0, 2}}, Z:toarray():totable())
    assert.are.equal(3, sp.diags({{1, 0, 2}, {0, 5}}, {0, 1}, {format = "csc"}).nnz)
    assert.are.equal(0, sp.diags({0, 0}, 0).nnz)
    same({0, 0, 0}, sp.diags({0, 0}, 0).indptr:totable())
    assert.are.equal(1, sp.diags({{0 / 0, 0}}, {0}).nnz)
    local R = sp.random(5, 6, {density = 0.5, seed = 3})
    assert.are.equal("coo", R.format)
    assert.are.equal(15, R.nnz)
    assert.are.equal(15, R:tocsr().nnz)   -- distinct places
    assert.is_true(R.data:min() >= 0 and R.data:max() < 1)
    local R2 = sp.random(5, 6, {density = 0.5, seed = 3})
    same(R:toarray():totable(), R2:toarray():totable())
    local R3 = sp.random(200, 100, {density = 0.25, format = "csr", dtype = "float32"})
    assert.are.equal(5000, R3.nnz)
    assert.are.equal("float32", R3.dtype)
    assert.is_true(math.abs(R3.data:mean() - 0.5) < 0.02)
    -- round(density * m * n) is Python's, halves to even (scipy's): before 3, 3 and 4
    same({2, 2, 4}, {sp.random(1, 5, {density = 0.5}).nnz, sp.random(5, 5, {density = 0.1}).nnz,
                     sp.random(1, 7, {density = 0.5}).nnz})
    -- complex values are scipy's uniform + uniform * 1j: the imaginary parts were all 0
    for _, dt in ipairs({"complex64", "complex128"}) do
      local C = sp.random(200, 100, {density = 0.25, dtype = dt, seed = 0})
      assert.are.equal(dt, C.dtype)
      local re, im = gpu.real(C.data), gpu.imag(C.data)
      assert.is_true(re:min() >= 0 and re:max() < 1 and im:min() >= 0 and im:max() < 1)
      assert.is_true(math.abs(im:mean() - 0.5) < 0.02 and math.abs(re:mean() - 0.5) < 0.02)
    end
    -- bool: true values, as scipy 1.17's (it was refused)
    local RB = sp.random(3, 4, {density = 0.5, dtype = "bool", format = "csr"})
    assert.are.equal("bool", RB.dtype)
    assert.are.equal(6, RB.nnz)
    same({true, true, true, true, true, true}, RB.data:totable())
    local R4 = sp.random(100000, 100000, {density = 1e-7, format = "csr"})   -- 10^10 places: O(nnz) memory
    assert.are.equal(1000, R4.nnz)
    assert.are.equal(1000, R4:tocoo():tocsr().nnz)
  end)

  it("stack blocks as scipy's", function()
    local V = sp.vstack({A, sp.eye(2, 3)})
    assert.are.equal("csr", V.format)
    assert.are.equal(7, V.nnz)
    same({{1, 0, 2}, {0, 0, 3}, {4, 5, 0}, {1, 0, 0}, {0, 1, 0}}, V:toarray():totable())
    local H = sp.hstack({A:tocsc(), sp.eye(3, 1, {format = "csc", dtype = "float32"})})
    assert.are.equal("csc", H.format)
    assert.are.equal("float64", H.dtype)
    same({{1, 0, 2, 1}, {0, 0, 3, 0}, {4, 5, 0, 0}}, H:toarray():totable())
    local M = sp.hstack({A, A:tocoo()})
    assert.are.equal("coo", M.format)
    same({3, 6}, M.shape)
    assert.are.equal(10, M.nnz)
    assert.are.equal("csr", sp.hstack({A, A}, {format = "csr"}).format)
    -- blocks all CSR (all CSC) keep it stacked either way, as scipy's (CSR across and CSC down gave COO)
    local HR = sp.hstack({A, sp.eye(3, 1, {format = "csr"})})
    assert.are.equal("csr", HR.format)
    same({{1, 0, 2, 1}, {0, 0, 3, 0}, {4, 5, 0, 0}}, HR:toarray():totable())
    local VC = sp.vstack({A:tocsc(), sp.eye(1, 3, {format = "csc"})})
    assert.are.equal("csc", VC.format)
    same({{1, 0, 2}, {0, 0, 3}, {4, 5, 0}, {1, 0, 0}}, VC:toarray():totable())
    assert.are.equal("coo", sp.hstack({A, A}, {format = "coo"}).format)
    assert.are.equal("csr", sp.vstack({A:tocsc(), A:tocsc()}, {format = "csr"}).format)
    assert.are.equal("coo", sp.vstack({A:tocsc(), A}).format)
    err("gpu.sparse.vstack: block 2 is 2x2, block 1 3x3: their numbers of columns differ", sp.vstack, {A, sp.eye(2)})
    err("gpu.sparse.vstack: a table of sparse matrices expected, got a sparse matrix", sp.vstack, A)
    err("gpu.sparse.hstack: block 2 is not a sparse matrix (a device array)", sp.hstack, {A, gpu.ones({3, 3})})
    -- a key besides the list's was dropped ({A, A, format = "csc"} gave COO), and so was a block after a hole
    err('gpu.sparse.hstack: the table of sparse matrices has a key "format" besides its 2 elements (options go after it)',
        sp.hstack, {A, A, format = "csc"})
    err('gpu.sparse.vstack: the table of sparse matrices has a key "format" besides its 2 elements', sp.vstack, {A, A, format = "csc"})
    err("gpu.sparse.vstack: block 2 is not a sparse matrix (nil)", sp.vstack, {A, nil, A})
  end)

  it("refuse bad input with clear errors", function()
    local d = f64({1, 2, 3})
    err("indices must lie in [0, 3), got 0 to 5", sp.csr_matrix, {d, i32({0, 5, 1}), i32({0, 2, 3})}, {shape = {2, 3}})
    err("indptr must not decrease (a step of -1)", sp.csr_matrix, {d, i32({0, 1, 1}), i32({0, 2, 1, 3})}, {shape = {3, 3}})
    err("indptr must start at 0, got 1", sp.csr_matrix, {d, i32({0, 1, 1}), i32({1, 2, 3})}, {shape = {2, 3}})
    err("indptr must end at nnz (3), got 4", sp.csr_matrix, {d, i32({0, 1, 1}), i32({0, 2, 4})}, {shape = {2, 3}})
    err("indptr has 2 entries, expected 3 (shape {2, 3})", sp.csr_matrix, {d, i32({0, 1, 1}), i32({0, 3})}, {shape = {2, 3}})
    err("data and indices must have one length, got 3 and 2", sp.csr_matrix, {d, i32({0, 1}), i32({0, 2, 3})})
    err("indices must be an integer array, got float32", sp.csr_matrix, {d, gpu.array({0, 1, 1}), i32({0, 2, 3})})
    err("gpu.sparse.coo_matrix: row indices must lie in [0, 3), got 0 to 3", sp.coo_matrix, {{1, 2}, {{0, 3}, {0, 1}}}, {shape = {3, 3}})
    err("col indices must lie in [0, 2), got -1 to 1", sp.coo_matrix, {{1, 2}, {{0, 1}, {-1, 1}}}, {shape = {2, 2}})
    err("only bool, float32, float64, complex64 and complex128 matrices are supported, got int32",
        sp.csr_matrix, gpu.array({{1, 2}, {3, 4}}, "int32"))
    err("got float16", sp.csr_matrix, gpu.ones({2, 2}), {dtype = "float16"})
    err("a dense matrix must be 2-D, got a 3-D array", sp.csr_matrix, gpu.ones({2, 2, 2}))
    err("gpu.sparse.csr_matrix: a device array, a sparse matrix, a shape {m, n} or a table of arrays expected, got string",
        sp.csr_matrix, "x")
    err("shape[2] must be a non-negative integer, got -1", sp.csr_matrix, {2, -1})
    err("sizes above 2^31 - 1 are not supported (int32 indices)", sp.csr_matrix, {2 ^ 31, 1})
    err("unknown option 'axis'", sp.csr_matrix, gpu.ones({2, 2}), {axis = 1})
    err("shape {3, 3} given for a {2, 2} array", sp.csr_matrix, gpu.ones({2, 2}), {shape = {3, 3}})
    err("format must be \"csr\", \"csc\" or \"coo\", got dia", sp.eye, 3, {format = "dia"})
    err("offset 0 is repeated", sp.diags, {{1, 2}, {3, 4}}, {0, 0})
    -- keys besides the lists' were dropped: the format of {{1, 2}, {3}, format = "csc"} was CSR
    err('gpu.sparse.diags: diagonals has a key "format" besides its 2 elements', sp.diags, {{1, 2}, {3}, format = "csc"}, {0, 1})
    err('gpu.sparse.diags: offsets has a key "format" besides its 2 elements (options go after it)',
        sp.diags, {{1, 2}, {3}}, {0, 1, format = "csc"})
    err("density must be a number in [0, 1], got 2", sp.random, 3, 3, {density = 2})
    err("gpu.sparse.__mul: a 3x3 sparse matrix and an array of shape {4} do not match (3 and 4)",
        function() return A * gpu.ones(4) end)
    err("the array must be 1-D or 2-D, got 3-D", function() return A * gpu.ones({3, 1, 1}) end)
    err("gpu.sparse.__add: shapes 3x3 and 2x2 differ", function() return A + sp.eye(2) end)
    err("adding a nonzero number to a sparse matrix is not supported", function() return A + 1 end)
    -- a scalar equal to 0 is a copy, as scipy's (false and a gpu.complex 0 were refused); -A of bool named gpu.negative
    same(A:toarray():totable(), (A + false):toarray():totable())
    same((-A):toarray():totable(), (gpu.complex(0, 0) - A):toarray():totable())
    assert.are.equal("float64", (A + gpu.complex(0, 0)).dtype)
    err("gpu.sparse.__add: adding true to a sparse matrix is not supported", function() return A + true end)
    -- a 0-d array is its scalar, as scipy's (it was a dense array: A:toarray() + x)
    assert.is_true(sp.issparse(A + gpu.full({}, 0)))
    same(A:toarray():totable(), (A + gpu.full({}, 0)):toarray():totable())
    same((-A):toarray():totable(), (gpu.full({}, 0, "int32") - A):toarray():totable())
    same(A:toarray():totable(), (A - gpu.full({}, false, "bool")):toarray():totable())
    err("gpu.sparse.__add: adding a nonzero number to a sparse matrix", function() return A + gpu.full({}, 1) end)
    err("gpu.sparse.__sub: adding a nonzero gpu.complex to a sparse matrix",
        function() return gpu.full({}, gpu.complex(0, 1), "complex64") - A end)
    err("gpu.sparse.__add: adding a nonzero gpu.complex to a sparse matrix", function() return A + gpu.complex(0, 1) end)
    local Bo = sp.csr_matrix(gpu.array({{true, false}}, "bool"))
    err("gpu.sparse.__unm: negating a bool sparse matrix is not supported", function() return -Bo end)
    err("gpu.sparse.__sub: negating a bool sparse matrix is not supported", function() return 0 - Bo end)
    same({{true, false}}, (Bo - false):toarray():totable())
    err("gpu.sparse.__mul: a 3x3 and a 2x2 sparse matrix do not match (3 and 2)", function() return A * sp.eye(2) end)
    err("gpu.matmul: a 3x3 and a 2x2 sparse matrix do not match (3 and 2)", gpu.matmul, A, sp.eye(2))
    err("gpu.matmul: a device array expected as argument 2, got string", gpu.matmul, A, "x")
    err("gpu.matmul: a device array or a sparse matrix expected as argument 2, got table", gpu.matmul, gpu.ones(2), {})
    err("gpu.matmul: options are not supported with a sparse operand", gpu.matmul, A, gpu.ones(3), {out = gpu.ones(3)})
    err("gpu.sparse.__div: a sparse matrix divides by a number only", function() return A / A end)
    err("gpu.sparse.sum: dimension 3 is out of range for 2-D arrays", A.sum, A, 3)
    err("gpu.sparse.astype: only bool, float32, float64, complex64 and complex128", A.astype, A, "int32")
    err("does not broadcast to 3x3", A.multiply, A, gpu.ones(4))
    -- the dense path of gpu.matmul is unchanged
    assert.are.equal(3, gpu.matmul(gpu.ones(3), gpu.ones(3)):item())
  end)

  it("stay inside their arrays when indices are written after construction", function()
    local x = f64({1, 2, 3})
    local B = A:copy()
    B.indices:copy_({0, 99, -5, 0, 1})   -- entries outside the matrix are skipped
    same({1, 0, 14}, B:dot(x):totable())
    same({{1}, {0}, {9}}, B:sum(2):totable())
    same({{1, 0, 0}, {0, 0, 0}, {4, 5, 0}}, B:toarray():totable())
    B.indptr:copy_({3, -7, 100, 2})      -- each row's range clamped to [0, nnz]
    same({0, 15, 0}, B:dot(x):totable())
    same({{0, 0}, {10, 10}, {0, 0}}, (B * gpu.ones({3, 2}, "float64")):totable())
    same({{0, 0, 0}, {5, 5, 0}, {0, 0, 0}}, B:toarray():totable())
    local Mu = A:copy()
    Mu.indices:copy_({0, 99, -5, 0, 1})
    same({{1, 0, 2}, {0, 0, 0}, {4, 0, 23}}, (Mu * A):toarray():totable())
    assert.are.equal(3, #B:tocsc():toarray():totable())   -- no crash; the values are not specified
    -- indices and indptr overwritten with anything: every operation returns its shape
    local state = 12345
    local function rnd()   -- a small linear congruential generator, the same on every run
      state = (state * 1103515245 + 12345) % 2147483648
      local r = state % 7
      return r == 0 and state - 2 ^ 30 or r == 1 and -1 or r - 2
    end
    local base = sp.csr_matrix(f64({{1, 0, 2, 0}, {0, 0, 3, 1}, {4, 5, 0, 0}}))
    for it = 1, 9 do
      local fmt = ({"csr", "csc", "coo"})[it % 3 + 1]
      local M = fmt == "csr" and base:copy() or fmt == "csc" and base:tocsc() or base:tocoo()
      for _, t in ipairs(fmt == "coo" and {"row", "col"} or {"indices", "indptr"}) do
        local v = {}
        for i = 1, M[t].size do v[i] = rnd() end
        M[t]:copy_(i32(v))
      end
      same({3}, M:dot(gpu.ones(4, "float64")).shape)
      same({3, 2}, (M * gpu.ones({4, 2}, "float64")).shape)
      same({4}, gpu.matmul(gpu.ones(3, "float64"), M).shape)
      same({3, 4}, M:toarray().shape)
      for _, f in ipairs({"tocsr", "tocsc", "tocoo"}) do same({3, 4}, M[f](M):toarray().shape) end
      same({1, 4}, M:sum(1).shape)
      same({3}, M:diagonal().shape)
      same({3, 4}, (M + base):toarray().shape)
      same({3, 4}, M:multiply(base):toarray().shape)
      same({3, 4}, M:multiply(gpu.ones(4, "float64")):toarray().shape)
      same({3, 3}, (M * base.T):toarray().shape)
    end
    -- sums merge rows flagged canonical: written arrays give some entries, in the matrix
    local S2 = B + Mu
    assert.are.same({3, 3}, S2:toarray().shape)
    assert.is_true(S2.nnz <= 8)
    local C = A:copy()
    C.indptr = i32({0, 1})
    err("the matrix's indptr has 2 entries, expected 4", C.dot, C, x)
    C = A:copy()
    C.indices = C.indices:astype("int64")
    err("the matrix's indices and indptr must be int32, got int64 and int32", C.dot, C, x)
    C = A:copy()
    C.data:free()
    err("gpu.sparse.dot: the matrix's data is a freed array", C.dot, C, x)
    local gone = gpu.ones(3, "float64")
    gone:free()
    err("gpu.sparse.dot: argument 2 is a freed array", A.dot, A, gone)
    err("gpu.sparse.multiply: the array is a freed array", A.multiply, A, gone)
    -- a field set to nil, or data of another dtype than the matrix's: clear errors
    C = A:copy()
    C.data = nil
    err("the matrix's data is not a device array (nil)", C.toarray, C)
    C = A:copy()
    C.data = C.data:astype("int64")
    err("the matrix's data is int64, its dtype float64", C.toarray, C)
  end)
end)

describe("gpu.sparse: a product with a dense array in NumPy's dtype, dims and solver errors (second review)", function()
  it("multiply by a dense array gives result_type's dtype, one gpu.sparse holds", function()
    local A = sp.csr_matrix(gpu.array({{true, false}, {true, true}}, "bool"))
    local M = gpu.array({{true, true}, {false, true}}, "bool")
    assert.are.equal("bool", A:multiply(M).dtype)                 -- (a Lua 0 made it int64)
    local F = sp.csr_matrix(f64({{1, 0}, {2, 3}}):astype("float32"))
    assert.are.equal("float32", F:multiply(M).dtype)
    same({{1, 0}, {0, 3}}, F:multiply(M):toarray():totable())
    assert.are.equal("complex64", F:astype("complex64"):multiply(M).dtype)
    err("gpu.sparse.multiply: only bool, float32, float64, complex64 and complex128 matrices are supported, got float16",
        A.multiply, A, gpu.array({{1, 2}, {3, 4}}, "float16"))
    err("gpu.sparse.sum: a dimension (a number) expected, got a table", A.sum, A, {dim = 1})
  end)

  it("solver argument errors name the caller's line", function()
    local L = sp.linalg
    local A = sp.csr_matrix({2, 3})
    local e = S.errof(function() local x = L.cg(A, gpu.zeros(2, "float64")) return x end)
    assert.matches("sparse_spec.lua:%d+: gpu.sparse.linalg.cg: A must be square, got 2 x 3", e)
    e = S.errof(function() local x = L.gmres(sp.eye(3):astype("float64"), gpu.zeros(2, "float64")) return x end)
    assert.matches("sparse_spec.lua:%d+: gpu.sparse.linalg.gmres: b must have shape {3}", e)
  end)
end)
