-- lua/sparse.lua's indexing of CSR and CSC matrices (A[{i, j}], rows, columns, ranges, index
-- arrays, masks, pairs, assignment, getrow, getcol, take) and kernels/sparse.cu's csr_take_*,
-- csr_col_*, csr_lookup and csr_set. Expected values come from the dense matrix (A:toarray()
-- indexed with the dense views, gpu.take, gpu.extract) over random matrices with duplicates,
-- explicit zeros and empty rows; the literals of the quirky cases are scipy 1.11.4's
-- (indices 0-based, as scipy's).
local S = require("spec.support")
local sp = gpu.sparse

local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end
local same, like, random_matrix = S.same_array, S.like_sparse, S.random_sparse

local function i64(t) return gpu.array(t, "int64") end
local function one(dt) return dt == "bool" and true or dt == "complex128" and gpu.complex(2, -1) or 3 end

local CASES = S.SPARSE_CASES

describe("gpu.sparse indexing", function()
  for _, case in ipairs(CASES) do
    local fmt, dt, shape, seed = case[1], case[2], case[3], case[4]
    local m, n = shape[1], shape[2]
    describe(("of a %dx%d %s %s matrix"):format(m, n, dt, fmt), function()
      local A = random_matrix(m, n, fmt, dt, seed)
      local D = A:toarray()

      it("gives elements as Lua values, duplicates summed, 0 where none is stored", function()
        for i = 1, m do
          for j = 1, n do assert.are.equal(D:item(i, j), A[{i, j}]) end
        end
        assert.are.equal(D:item(m, n), A[{-1, -1}])
        assert.are.equal(D:item(1, n - 1), A[{-m, -2}])
        assert.are.equal(D:item(2, 3), A[{2.0, 3}])
      end)

      it("gives rows and columns as 1 x n and m x 1 matrices of its format", function()
        for i = 1, m do
          local want = D[{{i}, {}}]
          like(want, A[{i}], fmt)
          like(want, A[{i, {}}], fmt)
          like(want, A[{{i}}], fmt)
          like(want, A[i], fmt)
          like(want, A:getrow(i), "csr")
        end
        for j = 1, n do
          like(D[{{}, {j}}], A[{{}, j}], fmt)
          like(D[{{}, {j}}], A:getcol(j), fmt)
        end
        like(D[{{-1}, {}}], A:getrow(-1), "csr")
        like(D[{{}, {-1}}], A:getcol(-1), fmt)
      end)

      it("slices ranges as the dense views do (steps, negative steps, empty ranges)", function()
        for _, key in ipairs({
          {{2, -1}, {}}, {{-1, 1, -1}, {1, -1, 2}}, {{}, {-1, 1, -2}}, {{1, 3, 2}, {2}}, {{3, 2}, {}},
          {{}, {3, 1}}, {{2}, {-2}}, {{-2, 1, -3}, {2, 4}}, {{}, {}}, {{1, -1, 3}}, {{nil, nil, -1}, {nil, nil, -1}},
        }) do
          like(D[key], A[key], fmt)
        end
        like(D[{{2}, {1, 3}}], A[{2, {1, 3}}], fmt)
        like(D[{{}, {3}}], A[{{}, 3}], fmt)
        local C = A[{}]
        like(D, C, fmt)
        assert.are_not.equal(A.data, C.data)   -- a copy, as scipy's A[:, :]
      end)

      it("takes rows and columns at index arrays (repeats repeated, negative from the end) and masks", function()
        local r, c = i64({2, -1, 2, 1}), i64({3, 1, 3, -2, 3})
        like(gpu.take(D, r, 1), A[{r}], fmt)
        like(gpu.take(D, r, 1), A[r], fmt)
        like(gpu.take(D, c, 2), A[{{}, c}], fmt)
        like(gpu.take(gpu.take(D, r, 1), c, 2), A[{r:reshape(4, 1), c}], fmt)
        like(gpu.take(D, r, 1)[{{}, {2, 4}}], A[{r, {2, 4}}], fmt)
        like(gpu.take(D[{{-1, 1, -1}}], c, 2), A[{{-1, 1, -1}, c}], fmt)
        like(gpu.take(D, c, 2)[{{3}}], A[{3, c}], fmt)
        like(gpu.take(D, r, 1)[{{}, {2}}], A[{r, 2}], fmt)
        like(gpu.take(D, c:astype("int32"), 2), A[{{}, c:astype("int32")}], fmt)
        like(gpu.take(D, r[{{-1, 1, -2}}], 1), A[{r[{{-1, 1, -2}}]}], fmt)   -- a strided view
        local rm, cm = {}, {}
        for i = 1, m do rm[i] = i % 2 == 0 end
        for j = 1, n do cm[j] = j ~= 2 end
        rm, cm = gpu.array(rm, "bool"), gpu.array(cm, "bool")
        like(gpu.compress(rm, D, 1), A[{rm}], fmt)
        like(gpu.compress(rm, D, 1)[{{}, {1, 3}}], A[{rm, {1, 3}}], fmt)
        like(gpu.compress(cm, D, 2), A[{{}, cm}], fmt)
        like(D[{{1, 0}}], A[{i64({})}], fmt)   -- no rows
        -- A:take, gpu.take's spelling, takes tables too
        like(gpu.take(D, r, 1), A:take({2, -1, 2, 1}, 1), fmt)
        like(gpu.take(D, c, 2), A:take({3, 1, 3, -2, 3}, 2), fmt)
        like(gpu.take(D, i64({2}), 2), A:take(2, 2), fmt)
        like(gpu.compress(cm, D, 2), A:take(cm:totable(), 2), fmt)
        same(gpu.take(D, i64({1, m * n, 7, -1})), A:take({1, m * n, 7, -1}))
      end)

      it("gives the values at pairs of index arrays, and at a bool mask's places, as a 1-D device array", function()
        local r, c = i64({1, m, 2, 1, -1}), i64({1, n, 2, 1, 3})
        local flat = (gpu.where(r:lt(0), r + m, r - 1)) * n + c
        same(gpu.take(D, flat), A[{r, c}])
        same(gpu.take(D, flat[{{1, 1}}]), A[{r[{{1, 1}}], c[{{1, 1}}]}])
        same(gpu.take(D, flat):reshape(1, 5), A[{r:reshape(1, 5), c}])   -- broadcast: that shape
        same(gpu.extract(D:ne(0), D), A[D:ne(0)])
        same(gpu.extract(D:ne(0), D), A[sp.csr_matrix(D:ne(0))])
        assert.are.equal(0, A[{i64({}), i64({})}].size)
      end)

      it("assigns a number to an element, a row, a column, a submatrix and pairs", function()
        local v = one(dt)
        for _, key in ipairs({{2, 3}, {1, 1}, {-1, {}}, {{}, 2}, {{1, -1, 2}, {2, 3}}, {{}, {}}}) do
          local B, W = A:copy(), D:copy()
          B[key] = v
          W[key] = v
          like(W, B, fmt)
        end
        local B, W = A:copy(), D:copy()
        B[{2, 3}] = 0   -- a place not stored gets an explicit zero, as scipy's
        W[{2, 3}] = 0
        like(W, B, fmt)
        B = A:copy()
        B[{i64({1, 2, 1}), i64({2, 2, 2})}] = v
        W = D:copy()
        W[{1, 2}] = v
        W[{2, 2}] = v
        like(W, B, fmt)
        B = A:copy()
        B[{i64({m, 1}), i64({n, 1})}] = v
        W = D:copy()
        W[{m, n}] = v
        W[{1, 1}] = v
        like(W, B, fmt)
        like(D, A, fmt)   -- (A untouched by its copies' assignments)
      end)
    end)
  end

  it("keeps scipy's layout: A's order within a row, repeats, duplicates", function()
    local A = sp.csr_matrix({gpu.array({1, 2, 3, 4, 0}, "float64"), gpu.array({2, 0, 2, 1, 0}, "int32"),
                             gpu.array({0, 3, 3, 5}, "int32")}, {shape = {3, 3}})
    local function layout(B) return {B.format, B.shape, B.data:totable(), B.indices:totable(), B.indptr:totable(), B.has_canonical_format} end
    assert.are.equal(4, A[{1, 3}])
    assert.are.equal(0, A[{3, 1}])
    assert.are.equal(0, A[{2, 2}])
    assert.are.same({"csr", {3, 3}, {1, 1, 2, 3, 3, 0}, {0, 2, 1, 0, 2, 1}, {0, 5, 5, 6}, false},
                    layout(A[{{}, i64({3, 1, 3})}]))
    assert.are.same({"csr", {3, 3}, {4, 0, 1, 2, 3, 4, 0}, {1, 0, 2, 0, 2, 1, 0}, {0, 2, 5, 7}, false},
                    layout(A[{i64({3, 1, 3})}]))
    assert.are.same({"csr", {2, 2}, {1, 3, 4}, {1, 1, 0}, {0, 2, 3}, false}, layout(A[{{1, 3, 2}, {2, 3}}]))
    assert.are.same({"csr", {3, 2}, {0, 1, 2, 3}, {0, 1, 0, 1}, {0, 1, 1, 4}, false}, layout(A[{{-1, 1, -1}, {1, -1, 2}}]))
    assert.are.same({"csr", {1, 3}, {1, 2, 3}, {2, 0, 2}, {0, 3}, false}, layout(A:getrow(1)))
    assert.are.same({"csr", {3, 1}, {1, 3}, {0, 0}, {0, 2, 2, 2}, false}, layout(A:getcol(3)))
    assert.are.same({"csr", {3, 1}, {1, 3}, {0, 0}, {0, 2, 2, 2}, false}, layout(A[{{}, 3}]))
    assert.are.same({4, 4, 4}, A[{i64({1, 1, 3}), i64({3, 3, 2})}]:totable())   -- (scipy: matrix([[4., 4., 4.]]))
    local C = A:tocsc()
    assert.are.same({"csc", {3, 3}, {2, 0, 4, 1, 3}, {0, 2, 2, 0, 0}, {0, 2, 3, 5}, false}, layout(C))
    assert.are.same({"csc", {3, 3}, {2, 0, 0, 4, 4, 1, 3}, {1, 0, 2, 0, 2, 1, 1}, {0, 3, 5, 7}, false},
                    layout(C[{i64({3, 1, 3})}]))
    assert.are.same({"csc", {3, 3}, {1, 3, 2, 0, 1, 3}, {0, 0, 0, 2, 0, 0}, {0, 2, 4, 6}, false},
                    layout(C[{{}, i64({3, 1, 3})}]))
    assert.are.same({"csr", {1, 3}, {2, 1, 3}, {0, 2, 2}, {0, 3}, false}, layout(C:getrow(1)))
    assert.are.same({"csc", {3, 1}, {1, 3}, {0, 0}, {0, 2}, false}, layout(C:getcol(3)))
    -- assignment: a new place goes before the row's old entries (A is not canonical), a place
    -- holding duplicates makes A canonical first (scipy's sum_duplicates)
    local B = A:copy(); B[{2, 3}] = 7
    assert.are.same({"csr", {3, 3}, {1, 2, 3, 7, 4, 0}, {2, 0, 2, 2, 1, 0}, {0, 3, 4, 6}, false}, layout(B))
    B = A:copy(); B[{1, 2}] = 7
    assert.are.same({"csr", {3, 3}, {7, 1, 2, 3, 4, 0}, {1, 2, 0, 2, 1, 0}, {0, 4, 4, 6}, false}, layout(B))
    B = A:copy(); B[{3, {}}] = 5
    assert.are.same({"csr", {3, 3}, {1, 2, 3, 5, 5, 5}, {2, 0, 2, 2, 1, 0}, {0, 3, 3, 6}, false}, layout(B))
    B = A:copy(); B[{1, 3}] = 5
    assert.are.same({"csr", {3, 3}, {2, 5, 0, 4}, {0, 2, 0, 1}, {0, 2, 2, 4}, true}, layout(B))
    B = A:copy(); B[{2, {}}] = 0   -- explicit zeros stored, as scipy's
    assert.are.equal(8, B.nnz)
    -- a bool matrix's element is a Lua boolean (scipy: numpy.bool_)
    local Z = sp.csr_matrix(gpu.array({{true, false}, {false, true}}, "bool"))
    assert.are.equal(true, Z[{1, 1}])
    assert.are.equal(false, Z[{1, 2}])
  end)

  it("gathers rows across many blocks of csr_take_rows, maps column ranges, merges insertions", function()
    -- 300 x 40: rows of 0 to 41 entries and two of 600 (a block's 256 entries span one row or
    -- many), unsorted, with duplicates
    math.randomseed(11)
    local ind, ptr, val = {}, {0}, {}
    for r = 1, 300 do
      local len = (r == 7 or r == 200) and 600 or (r % 5 == 0 and 0 or math.random(1, 41))
      for _ = 1, len do ind[#ind + 1] = math.random(0, 39); val[#val + 1] = math.random(-3, 9) end
      ptr[#ptr + 1] = #ind
    end
    local A = sp.csr_matrix({gpu.array(val, "float64"), gpu.array(ind, "int32"), gpu.array(ptr, "int32")}, {shape = {300, 40}})
    local D = A:toarray()
    like(D[{{1, -1, 2}, {}}], A[{{1, -1, 2}}], "csr")
    like(D[{{-2, 3, -3}, {}}], A[{{-2, 3, -3}}], "csr")
    local pick = i64({7, 200, 5, 299, 7, 1, -1, 200})
    like(gpu.take(D, pick, 1), A[{pick}], "csr")
    like(D[{{}, {3, 37, 5}}], A[{{}, {3, 37, 5}}], "csr")
    like(D[{{}, {38, 2, -4}}], A[{{}, {38, 2, -4}}], "csr")
    like(D[{{2, 250, 3}, {-1, 1, -1}}], A[{{2, 250, 3}, {-1, 1, -1}}], "csr")
    local C = A:tocsc()
    like(D[{{}, {-1, 1, -3}}], C[{{}, {-1, 1, -3}}], "csc")
    like(D[{{10, 290, 7}, {}}], C[{{10, 290, 7}, {}}], "csc")
    for _, canonical in ipairs({false, true}) do
      for _, fmt in ipairs({"csr", "csc"}) do
        local B = fmt == "csr" and A:copy() or A:tocsc()
        if canonical then B:sum_duplicates() end
        local W = B:toarray()
        local r, c = i64({5, 10, 5, 300, 1, 10}), i64({1, 40, 1, 40, 13, 39})
        B[{r, c}] = 4
        for i = 1, 6 do W[{r:item(i), c:item(i)}] = 4 end
        like(W, B, fmt)
        assert.are.equal(canonical, B.has_canonical_format)
      end
    end
  end)

  it("says when the result is canonical", function()
    local A = random_matrix(6, 5, "csr", "float64", 3)
    A:sum_duplicates()
    assert.is_true(A.has_canonical_format)
    for _, key in ipairs({{i64({3, 1, 3})}, {{}, {2, 4}}, {{}, 3}, {{-1, 1, -1}, {1, -1, 2}}, {2}}) do
      assert.is_true(A[key].has_canonical_format)
    end
    assert.is_false(A[{{}, {-1, 1, -1}}].has_canonical_format)
    assert.is_false(A[{{}, i64({1, 2})}].has_canonical_format)
    local B = A:copy()
    B[{1, {}}] = 2
    B[{{}, 3}] = 1
    assert.is_true(B.has_canonical_format)
    local ind, ptr = B.indices:totable(), B.indptr:totable()
    assert.are.equal(5, ptr[2] - ptr[1])
    for r = 1, 6 do
      for p = ptr[r] + 2, ptr[r + 1] do assert.is_true(ind[p - 1] < ind[p]) end
    end
  end)

  it("indexes empty and zero-size matrices, with index arrays of any integer dtype", function()
    local E = sp.csr_matrix({3, 4})
    assert.are.equal(0, E[{2, 3}])
    assert.are.same({1, 4}, E[{2}].shape)
    like(gpu.zeros({3, 2}, "float64"), E[{{}, i64({1, 1})}], "csr")
    E[{1, {}}] = 2
    like(gpu.array({{2, 2, 2, 2}, {0, 0, 0, 0}, {0, 0, 0, 0}}, "float64"), E, "csr")
    assert.is_true(E.has_canonical_format)
    assert.are.same({0, 2}, sp.csc_matrix({0, 3})[{{}, {2, 3}}].shape)
    assert.are.same({1, 0}, sp.csr_matrix({4, 0})[{2}].shape)
    local A = sp.csr_matrix(gpu.array({{1, 2}, {3, 4}}, "float64"))
    like(gpu.array({{3, 4}, {1, 2}}, "float64"), A[{gpu.array({2, 1}, "uint8")}], "csr")
    assert.are.same({3, 1}, A[{gpu.array({2, 1}, "int32"), gpu.array({1, 1}, "int16")}]:totable())
    local T = A.T   -- shares A's arrays, as scipy's: a stored place set in place shows there
    A[{1, 1}] = 9
    like(gpu.array({{9, 3}, {2, 4}}, "float64"), T, "csc")
  end)

  it("maps index arrays of every integer dtype (csr_index), naming the first entry out of range", function()
    local A = random_matrix(7, 6, "csr", "float64", 4)
    local D = A:toarray()
    for _, dt in ipairs({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}) do
      local signed = dt:sub(1, 1) == "i"
      local ok = signed and {3, -1, 7, -7, 1, 3} or {3, 7, 1, 6, 3}
      local rows = {}
      for k, i in ipairs(ok) do rows[k] = i < 0 and i + 8 or i end
      like(gpu.take(D, i64(rows), 1), A[{gpu.array(ok, dt)}], "csr")
      like(gpu.take(D, i64({6, 1}), 2), A[{{}, gpu.array(signed and {-1, 1} or {6, 1}, dt)}], "csr")
      same(gpu.array({D:item(2, 3), D:item(7, 6)}, "float64"), A[{gpu.array({2, 7}, dt), gpu.array({3, 6}, dt)}])
      -- bad entries first, in the middle, last, several (the first named), across blocks (300 entries)
      local big = signed and 100 or 200
      for _, case in ipairs({{{8, 1, 2}, 8}, {{1, 0, 2, 9}, 0}, {{1, 2, 3, big}, big}, {{big, 9, 0}, big}}) do
        err(("gpu.sparse.index: row index %d out of range for a matrix of 7 rows"):format(case[2]),
            function() return A[{gpu.array(case[1], dt)}] end)
        err(("gpu.sparse.assign: column index %d out of range for a matrix of 6 columns"):format(case[2]),
            function() A[{{}, gpu.array(case[1], dt)}] = 1 end)
      end
      if signed then
        err("gpu.sparse.index: row index -8 out of range for a matrix of 7 rows",
            function() return A[{gpu.array({-7, -8, 8}, dt)}] end)
      end
      local long = {}
      for k = 1, 300 do long[k] = k % 7 + 1 end
      long[260], long[290], long[20] = 9, 0, 1
      err("gpu.sparse.index: row index 9 out of range for a matrix of 7 rows",
          function() return A[{gpu.array(long, dt)}] end)
      err("gpu.sparse.index: row index 9 out of range for a matrix of 7 rows",   -- (2-D: flat C order)
          function() return A[{gpu.array(long, dt):reshape(30, 10), i64({1})}] end)
    end
  end)

  it("never reads or writes outside a matrix whose arrays were overwritten", function()
    local A = random_matrix(5, 4, "csr", "float64", 9)
    local k = A.nnz
    local bad_ind, bad_ptr = {}, {0, k + 7, 2, -3, 1, k}
    for p = 1, k do bad_ind[p] = ({99, -5, 0, 3, 2147483647})[p % 5 + 1] end
    A.indices:copy_(bad_ind)
    A.indptr:copy_(bad_ptr)
    for _, key in ipairs({{2, 2}, {1}, {{}, 2}, {{-1, 1, -1}, {1, 4, 2}}, {i64({1, 5, 2})}, {{}, i64({4, 1, 4})},
                          {i64({1, 2, 3}), i64({1, 2, 4})}}) do
      local R = A[key]
      if sp.issparse(R) then R:toarray() end
    end
    A[{3, 3}] = 1
    A[{{}, 2}] = 1
    A:toarray()
    local C = random_matrix(4, 5, "csc", "float64", 10)
    C.indices:copy_(gpu.full(C.nnz, -7, "int32"))
    C[{{}, 2}]:toarray()
    C[{i64({1, 1})}]:toarray()
  end)

  it("refuses bad keys, naming the dimension", function()
    local A = random_matrix(5, 4, "csr", "float64", 1)
    err("gpu.sparse.index: row index 7 out of range for a matrix of 5 rows", function() return A[{7, 1}] end)
    err("gpu.sparse.index: column index -5 out of range for a matrix of 4 columns", function() return A[{1, -5}] end)
    err("gpu.sparse.index: row index 0 out of range for a matrix of 5 rows", function() return A[{0}] end)
    err("gpu.sparse.index: column index 9 out of range for a matrix of 4 columns", function() return A[{{}, {2, 9}}] end)
    err("gpu.sparse.index: row index 6 out of range for a matrix of 5 rows", function() return A[{i64({1, 6})}] end)
    err("gpu.sparse.index: column index 0 out of range for a matrix of 4 columns", function() return A[{{}, i64({1, 0})}] end)
    err("gpu.sparse.index: a row index must be an integer, got 1.5", function() return A[{1.5, 1}] end)
    err("gpu.sparse.index: a column range's step must be an integer, got 0.5", function() return A[{{}, {1, 3, 0.5}}] end)
    err("gpu.sparse.index: a row range's step must not be 0", function() return A[{{1, 3, 0}}] end)
    err("gpu.sparse.index: too many indices (3) for a sparse matrix (2 dimensions)", function() return A[{1, 2, 3}] end)
    err("gpu.sparse.index: a row range is {first, last [, step]}, got 4 numbers", function() return A[{{1, 2, 1, 1}}] end)
    err("gpu.sparse.index: a row mask must be 1-D of the matrix's 5 rows, got shape {2}",
        function() return A[{gpu.array({true, false}, "bool")}] end)
    err("gpu.sparse.index: column index arrays must be integer or bool, got float64",
        function() return A[{{}, gpu.array({1, 2}, "float64")}] end)
    err("gpu.sparse.index: a column index must be a number, a range {first, last [, step]} or a device array, got string",
        function() return A[{1, "x"}] end)
    err("gpu.sparse.index: a 2-D index array needs an index array for the other dimension",
        function() return A[{i64({1, 2}):reshape(2, 1), {}}] end)
    err("gpu.sparse.index: row and column index arrays of shapes {2} and {3} do not broadcast",
        function() return A[{i64({1, 2}), i64({1, 2, 3})}] end)
    err("gpu.sparse.index: a matrix as a key must be a bool mask of shape 5x4, got bool of shape 4x5",
        function() return A[gpu.zeros({4, 5}, "bool")] end)
    err("gpu.sparse.index: 'coo_matrix' object is not subscriptable, as scipy's: index A:tocsr() or A:tocsc()",
        function() return A:tocoo()[{1, 1}] end)
    err("gpu.sparse.assign: 'coo_matrix' object does not support item assignment, as scipy's",
        function() local O = A:tocoo(); O[{1, 1}] = 2 end)
    err("gpu.sparse.assign: the value must be a number, a boolean, a gpu.complex, a device array, a table or a sparse matrix, got string",
        function() A[{1, 1}] = "x" end)
    err("gpu.sparse.assign: row index 6 out of range for a matrix of 5 rows", function() A[{6, 1}] = 1 end)
    -- an assignment's error names the assigning line, as an index's does (not lua/sparse.lua's)
    assert.matches("^spec/sparse_index_spec%.lua:%d+: gpu%.sparse%.assign: row index 6",
                   select(2, pcall(function() A[{6, 1}] = 1 end)))
    assert.matches("^spec/sparse_index_spec%.lua:%d+: gpu%.sparse%.index: row index 6",
                   select(2, pcall(function() return A[{6, 1}] end)))
    err("gpu.sparse.getrow: row index 6 out of range for a matrix of 5 rows", function() return A:getrow(6) end)
    err("gpu.sparse.getcol: column index -5 out of range for a matrix of 4 columns", function() return A:getcol(-5) end)
    err("gpu.sparse.getrow: the row must be an integer, got table", function() return A:getrow({1}) end)
    err("gpu.sparse.take: element index 21 out of range for a matrix of 20 elements", function() return A:take({21}) end)
    assert.is_nil(A[nil])   -- as a table's t[nil]
    -- the error names the caller's line
    local _, line = pcall(function() return A[{9, 1}] end)
    assert.matches("sparse_index_spec.lua:%d+: gpu.sparse.index: row index 9", line)
    -- a COO matrix's rows through getrow and getcol (CSR, as scipy's)
    local O = A:tocoo()
    like(A:toarray()[{{2}, {}}], O:getrow(2), "csr")
    like(A:toarray()[{{}, {3}}], O:getcol(3), "csr")
  end)
end)
