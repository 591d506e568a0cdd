-- lua/sparse.lua's assignment of arrays, tables and sparse matrices (A[key] = v, scipy's
-- __setitem__ with an array-like value fitted to the selection) and kernels/sparse.cu's
-- csr_set and csr_merge with a value a place. Expected results come from a Lua reference that
-- applies scipy's rule place by place, in the selection's C order, to A's dense form and to
-- where A stores something (a dense value: every place set and stored, a repeated place's
-- last value winning; a sparse value: the selection's stored places set to 0, then the
-- value's entries set and stored); the literals of the layouts are scipy 1.11.4's (indices
-- 0-based, as scipy's).
local S = require("spec.support")
local sp = gpu.sparse
local same, like, random_matrix = S.same_array, S.like_sparse, S.random_sparse

local function err(msg, f, ...) assert.matches(msg, S.errof(f, ...), 1, true) end
local function i64(t) return gpu.array(t, "int64") end

-- where a matrix stores something (duplicates and explicit zeros too): a dense bool array
local function stored(A)
  local C = A:astype("float64")
  C.data = gpu.ones(C.data.size, "float64")
  return C:toarray():ne(0)
end

-- v (a table or a device array) as dtype dt broadcast to shape: a flat Lua list
local function flat(v, dt, shape)
  local x = type(v) == "table" and gpu.array(v, dt) or v:astype(dt)
  return gpu.broadcast_to(x, shape):contiguous():reshape(-1):totable()
end

-- the places of rows x cols (lists of 1-based indices), in C order
local function grid(rows, cols)
  local t = {}
  for _, i in ipairs(rows) do
    for _, j in ipairs(cols) do t[#t + 1] = {i, j} end
  end
  return t
end
local function upto(n, from, step)   -- from, from + step, ... up to (down to) n
  local t = {}
  for i = from or 1, n, step or 1 do t[#t + 1] = i end
  return t
end

-- B[key] = v on a copy of A against the reference: places (a list of {i, j} in C order), vals
-- (their values, flat, A's dtype) and has (where a sparse value stores one; nil: a dense value)
local function check(A, key, v, places, vals, has)
  local W, St = A:toarray():totable(), stored(A):totable()
  if has then
    for _, p in ipairs(places) do if St[p[1]][p[2]] then W[p[1]][p[2]] = 0 end end
  end
  for k, p in ipairs(places) do
    if not has or has[k] then W[p[1]][p[2]], St[p[1]][p[2]] = vals[k], true end
  end
  local B = A:copy()
  B[key] = v
  like(gpu.array(W, A.dtype), B, A.format)
  same(gpu.array(St, "bool"), stored(B))
  if A.has_canonical_format then   -- stays canonical: each row's (CSC: column's) indices increase
    assert.is_true(B.has_canonical_format)
    local ind, ptr = B.indices:totable(), B.indptr:totable()
    for r = 1, #ptr - 1 do
      for p = ptr[r] + 2, ptr[r + 1] do assert.is_true(ind[p - 1] < ind[p]) end
    end
  end
end

-- a sparse value X for a selection of (2-D) shape s: its values and where it stores one
local function sparse_ref(X, dt, s) return flat(X:toarray(), dt, s), flat(stored(X), "bool", s) end

-- values of a shape: small integers with zeros (complex: with imaginary parts), as a device array
local function values(shape, dt, seed)
  math.randomseed(seed)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  local re, im = {}, {}
  for k = 1, n do re[k], im[k] = math.random(0, 3) == 0 and 0 or math.random(-4, 6), math.random(-2, 2) end
  local x = gpu.array(re, "float64")
  if dt == "complex128" then x = x:astype(dt) + gpu.array(im, "float64"):astype(dt) * gpu.full({}, gpu.complex(0, 1), dt) end
  return x:reshape(shape)
end

local CASES = S.SPARSE_CASES

describe("gpu.sparse assignment of arrays", function()
  for _, case in ipairs(CASES) do
    local fmt, dt, shape, seed = case[1], case[2], case[3], case[4]
    local m, n = shape[1], shape[2]
    local R = random_matrix(m, n, fmt, dt, seed)
    local C = R:copy()
    C:sum_duplicates()
    for _, A in ipairs({R, C}) do
      describe(("into a %dx%d %s %s matrix%s"):format(m, n, dt, fmt, A.has_canonical_format and " (canonical)" or ""), function()
        local vdt = dt == "complex128" and dt or "float64"   -- (a value's dtype, cast to A's)

        it("fits a dense value to rows, columns and ranges (reshaped or broadcast, as scipy's)", function()
          local v = values({n}, vdt, 1)
          check(A, {2, {}}, v:totable(), grid({2}, upto(n)), flat(v, dt, {n}))   -- (a table; 1 x n)
          check(A, 2, v, grid({2}, upto(n)), flat(v, dt, {n}))
          v = values({m}, vdt, 2)
          check(A, {{}, 3}, v, grid(upto(m), {3}), flat(v, dt, {m}))   -- (a 1-D column into m x 1)
          check(A, {{}, -1}, v:reshape(1, m), grid(upto(m), {n}), flat(v, dt, {m}))
          local h = (m + 1) // 2
          v = values({h, 2}, vdt, 3)
          check(A, {{1, -1, 2}, {2, 3}}, v, grid(upto(m, 1, 2), {2, 3}), flat(v, dt, {h, 2}))
          v = values({n}, vdt, 4)
          check(A, {{1, -1, 2}}, v, grid(upto(m, 1, 2), upto(n)), flat(v, dt, {h, n}))   -- (a row broadcast)
          v = values({2, 1}, vdt, 5)
          check(A, {{2, 3}, {}}, v, grid({2, 3}, upto(n)), flat(v, dt, {2, n}))   -- (a column broadcast)
          v = values({m}, vdt, 6)
          check(A, {{-1, 1, -1}, 1}, v, grid(upto(1, m, -1), {1}), flat(v, dt, {m}))   -- (a negative step)
          v = values({1, 1}, vdt, 7)
          check(A, {{2, 3}, {1, 2}}, v, grid({2, 3}, {1, 2}), flat(v, dt, {2, 2}))
          v = values({m, n}, vdt, 8)   -- (zeros at places not stored become explicit zeros)
          check(A, {}, v, grid(upto(m), upto(n)), flat(v, dt, {m, n}))
        end)

        it("sets index arrays' rows, columns and pairs, a repeated place's last value winning", function()
          local v = values({3, n}, vdt, 9)
          check(A, {i64({3, 1, 3})}, v, grid({3, 1, 3}, upto(n)), flat(v, dt, {3, n}))
          check(A, i64({3, 1, 3}), v:totable(), grid({3, 1, 3}, upto(n)), flat(v, dt, {3, n}))
          v = values({m, 3}, vdt, 10)
          check(A, {{}, i64({2, -1, 2})}, v:astype("float32"), grid(upto(m), {2, n, 2}), flat(v:astype("float32"), dt, {m, 3}))
          v = values({2}, vdt, 11)   -- (a number and an index array: 1-D, as scipy's)
          check(A, {2, i64({1, 3})}, v, grid({2}, {1, 3}), flat(v, dt, {2}))
          check(A, {i64({m, 1}), 2}, v:reshape(2, 1), grid({m, 1}, {2}), flat(v, dt, {2}))
          v = values({4}, vdt, 12)
          check(A, {i64({1, 2, 1, m}), i64({2, 2, 2, n})}, v, {{1, 2}, {2, 2}, {1, 2}, {m, n}}, flat(v, dt, {4}))
          v = values({2, 2}, vdt, 13)
          check(A, {i64({{1, 2}, {m, 1}}), i64({{1, n}, {2, 1}})}, v, {{1, 1}, {2, n}, {m, 2}, {1, 1}}, flat(v, dt, {2, 2}))
          v = values({2}, vdt, 14)   -- (pairs of shape 2 x 2, a row broadcast)
          check(A, {i64({{1, 2}, {m, 1}}), i64({{1, n}, {2, 1}})}, v, {{1, 1}, {2, n}, {m, 2}, {1, 1}}, flat(v, dt, {2, 2}))
          v = values({2, 3}, vdt, 15)   -- (scipy's outer form)
          check(A, {i64({1, m}):reshape(2, 1), i64({2, 1, 2})}, v, grid({1, m}, {2, 1, 2}), flat(v, dt, {2, 3}))
          v = values({1}, vdt, 16)
          check(A, {i64({2, 2}), {1, 2}}, v, grid({2, 2}, {1, 2}), flat(v, dt, {2, 2}))
        end)

        it("sets masks' places and elements", function()
          local D = A:toarray()
          local M = D:ne(0)
          local places = {}
          for i, row in ipairs(M:totable()) do
            for j, b in ipairs(row) do if b then places[#places + 1] = {i, j} end end
          end
          local k = #places
          local v = values({k}, vdt, 17)
          check(A, M, v, places, flat(v, dt, {k}))
          check(A, sp.csr_matrix(M), v:totable(), places, flat(v, dt, {k}))
          local rm = {}
          for i = 1, m do rm[i] = i % 2 == 0 end
          v = values({n}, vdt, 18)
          check(A, {gpu.array(rm, "bool")}, v, grid(upto(m, 2, 2), upto(n)), flat(v, dt, {m // 2, n}))
          local one = dt == "complex128" and gpu.complex(2, -1) or 5
          check(A, {2, 3}, {one}, {{2, 3}}, flat({one}, dt, {1}))
          check(A, {-1, -1}, gpu.array({{one}}, vdt), {{m, n}}, flat({one}, dt, {1}))
        end)

        it("sets a sparse value's entries, zeroing the selection's stored places it lacks", function()
          local X = random_matrix(2, 2, "csr", dt == "complex128" and dt or "float64", 20 + case[4])
          local vals, has = sparse_ref(X, dt, {2, 2})
          check(A, {{1, 2}, {2, 3}}, X, grid({1, 2}, {2, 3}), vals, has)
          X = random_matrix(1, n, "csc", "float64", 30 + case[4])   -- (a row broadcast)
          local h = (m + 1) // 2
          vals, has = sparse_ref(X, dt, {h, n})
          check(A, {{1, -1, 2}}, X, grid(upto(m, 1, 2), upto(n)), vals, has)
          X = sp.csr_matrix(gpu.array({{1}, {0}, {2}}, "float64"))   -- (a column broadcast)
          vals, has = sparse_ref(X, dt, {3, n})
          check(A, {{1, 3}, {}}, X, grid(upto(3), upto(n)), vals, has)
          X = sp.csr_matrix(gpu.array({{0, 3, 4}}, "float32"))   -- (pairs: a 1 x k value)
          vals, has = sparse_ref(X, dt, {1, 3})
          check(A, {i64({1, 2, 1}), i64({2, 2, 2})}, X, {{1, 2}, {2, 2}, {1, 2}}, vals, has)
          -- a repeated row: per place, the last occurrence the value stores (scipy sets its entries in order)
          X = sp.csr_matrix({gpu.array({1, 2, 0, 6, 5}, "float64"), gpu.array({0, 1, 2, 1, 3}, "int32"),
                             gpu.array({0, 2, 3, 5}, "int32")}, {shape = {3, n}})
          vals, has = sparse_ref(X, dt, {3, n})
          check(A, {i64({2, 1, 2})}, X, grid({2, 1, 2}, upto(n)), vals, has)
          check(A, {}, sp.csr_matrix({m, n}), grid(upto(m), upto(n)), flat({0}, dt, {m * n}), flat({false}, "bool", {m * n}))
        end)
      end)
    end
  end

  it("keeps scipy's layout: new entries before a row's old ones, duplicates summed where touched", function()
    local function N()
      return sp.csr_matrix({gpu.array({1, 2, 3, 4, 0}, "float64"), gpu.array({2, 0, 2, 1, 0}, "int32"),
                            gpu.array({0, 3, 3, 5}, "int32")}, {shape = {3, 3}})
    end
    local function layout(B) return {B.data:totable(), B.indices:totable(), B.indptr:totable(), B.has_canonical_format} end
    local B = N(); B[{2, i64({1, 3})}] = {7, 8}
    assert.are.same({{1, 2, 3, 7, 8, 4, 0}, {2, 0, 2, 0, 2, 1, 0}, {0, 3, 5, 7}, false}, layout(B))
    B = N(); B[{i64({2, 3}), 2}] = {7, 8}
    assert.are.same({{1, 2, 3, 7, 8, 0}, {2, 0, 2, 1, 1, 0}, {0, 3, 4, 6}, false}, layout(B))
    B = N(); B[{3, {}}] = {7, 8, 9}
    assert.are.same({{1, 2, 3, 9, 8, 7}, {2, 0, 2, 2, 1, 0}, {0, 3, 3, 6}, false}, layout(B))
    B = N(); B[{1, 2}] = {6}
    assert.are.same({{6, 1, 2, 3, 4, 0}, {1, 2, 0, 2, 1, 0}, {0, 4, 4, 6}, false}, layout(B))
    B = N(); B[{1, {}}] = sp.csr_matrix(gpu.array({{0, 5, 0}}, "float64"))
    assert.are.same({{0, 5, 0, 0, 4}, {0, 1, 2, 0, 1}, {0, 3, 3, 5}, true}, layout(B))
    local A = sp.csr_matrix(gpu.array({{1, 0, 2}, {0, 0, 3}, {4, 5, 0}}, "float64"))
    B = A:copy(); B[{{1, 2}, {2, 3}}] = sp.csr_matrix(gpu.array({{0, 7}, {8, 0}}, "float64"))
    assert.are.same({{1, 7, 8, 0, 4, 5}, {0, 2, 1, 2, 0, 1}, {0, 2, 4, 6}, true}, layout(B))
    B = A:copy(); B[{{1, 2}, {1, 2}}] = sp.csr_matrix({gpu.array({1, 2, 0}, "float64"), gpu.array({0, 0, 1}, "int32"),
                                                      gpu.array({0, 3, 3}, "int32")}, {shape = {2, 2}})
    assert.are.same({{3, 0, 2, 3, 4, 5}, {0, 1, 2, 2, 0, 1}, {0, 3, 4, 6}, true}, layout(B))
    B = A:copy(); B[{1, 1}] = true   -- (a boolean into a float matrix: 1, as scipy's)
    assert.are.same({{1, 2, 3, 4, 5}, {0, 2, 2, 0, 1}, {0, 2, 3, 5}, true}, layout(B))
    B = sp.csr_matrix(gpu.array({{true, false}, {false, false}}, "bool")); B[{{}, 2}] = {0.5, 0}
    assert.are.same({{true, true, false}, {0, 1, 1}, {0, 2, 3}, true}, layout(B))
  end)

  it("merges a value a place across many rows and blocks", function()
    math.randomseed(7)
    local A = random_matrix(300, 40, "csr", "float64", 11)
    local r, c, v = {}, {}, {}
    for k = 1, 700 do r[k], c[k], v[k] = math.random(-300, 300), math.random(1, 40), math.random(-5, 5) end
    for k = 1, 700 do if r[k] == 0 then r[k] = 1 end end
    local places = {}
    for k = 1, 700 do places[k] = {r[k] < 0 and r[k] + 301 or r[k], c[k]} end
    for _, fmt in ipairs({"csr", "csc"}) do
      local B = fmt == "csr" and A or A:tocsc()
      for _, canonical in ipairs({false, true}) do
        if canonical then B = B:copy(); B:sum_duplicates() end
        check(B, {i64(r), i64(c)}, gpu.array(v, "float64"), places, v)
      end
    end
  end)

  it("merges by rank: new places between old ones, empty and all-new rows, repeated keys", function()
    -- row 1 stores the even columns, row 2 nothing, row 3 every column, row 4 the last few,
    -- row 5 columns 1 and n, row 6 nothing (CSC: the same as columns)
    local n = 300
    local ind, ptr = {}, {0}
    local function row(cols) for _, c in ipairs(cols) do ind[#ind + 1] = c end; ptr[#ptr + 1] = #ind end
    row(upto(n - 1, 0, 2)); row({}); row(upto(n - 1, 0)); row(upto(n - 1, n - 6)); row({0, n - 1}); row({})
    local data = gpu.arange(#ind, "float64") + 1
    for _, fmt in ipairs({"csr", "csc"}) do
      local ctor = fmt == "csr" and sp.csr_matrix or sp.csc_matrix
      local shape = fmt == "csr" and {6, n} or {n, 6}
      for _, canonical in ipairs({true, false}) do
        local A = ctor({data, gpu.array(ind, "int32"), gpu.array(ptr, "int32")}, {shape = shape})
        A.has_canonical_format = canonical   -- (sorted either way: a non-canonical A puts new entries first)
        local function line(i, v)   -- row i (CSC: column i) set whole from v
          local x = gpu.array(v, "float64")
          if fmt == "csr" then check(A, {i, {}}, x, grid({i}, upto(n)), v)
          else check(A, {{}, i}, x, grid(upto(n), {i}), v) end
        end
        local v = flat(gpu.arange(n, "float64") - 7, "float64", {n})
        for _, i in ipairs({1, 2, 3, 4, 5, 6}) do line(i, v) end
        -- every row at once, then a repeated set of lines (the last value of a place wins)
        local all = values(shape, "float64", 3)
        check(A, {{}}, all, grid(upto(shape[1]), upto(shape[2])), flat(all, "float64", shape))
        local lines = {2, 6, 1, 2, -1, 4, 2}
        local rows = {}
        for k, i in ipairs(lines) do rows[k] = i < 0 and i + 7 or i end
        local x = values(fmt == "csr" and {#lines, n} or {n, #lines}, "float64", 5)
        if fmt == "csr" then
          check(A, {i64(lines)}, x, grid(rows, upto(n)), flat(x, "float64", {#lines, n}))
        else
          check(A, {{}, i64(lines)}, x, grid(upto(n), rows), flat(x, "float64", {n, #lines}))
        end
        -- pairs repeated, some stored and some not, spread over the rows
        local r, c, pv, places = {}, {}, {}, {}
        math.randomseed(9)
        for k = 1, 400 do
          r[k], c[k], pv[k] = math.random(1, shape[1]), math.random(1, shape[2]), math.random(-9, 9)
          places[k] = {r[k], c[k]}
        end
        check(A, {i64(r), i64(c)}, gpu.array(pv, "float64"), places, pv)
      end
    end
  end)

  it("densifies a sparse value in one launch: every format, duplicates, broadcast, many blocks", function()
    local m, n = 40, 30
    local R = random_matrix(m, n, "csr", "float64", 41)
    local C = R:copy()
    C:sum_duplicates()
    for _, A in ipairs({R, C}) do
      local function each(X, key, s, places)   -- X in every format, canonical or not (csr_densify's two ways)
        local Y = X:copy()
        Y:sum_duplicates()
        for _, V in ipairs({X, Y, X:tocsc(), Y:tocsc(), X:tocoo()}) do
          local vals, has = sparse_ref(V, "float64", s)
          check(A, key, V, places, vals, has)
        end
      end
      local all = grid(upto(m), upto(n))
      each(random_matrix(m, n, "csr", "float64", 42), {{}}, {m, n}, all)   -- (duplicates, unsorted rows)
      each(random_matrix(1, n, "csr", "float32", 43), {{}}, {m, n}, all)   -- a row down every row
      each(random_matrix(m, 1, "csc", "float64", 44), {{}}, {m, n}, all)   -- a column across
      each(sp.csr_matrix(gpu.array({{2.5}}, "float64")), {{}}, {m, n}, all)   -- one value everywhere
      each(random_matrix(5, 1, "csr", "bool", 45), {{3, 7}, {2, 30, 3}}, {5, 10},
           grid(upto(7, 3), upto(30, 2, 3)))
    end
    -- an explicit -0.0 becomes 0 (0 + -0, as toarray's sum), stored
    local B = C:copy()
    B[{{1, 2}, {1, 2}}] = sp.csr_matrix({gpu.array({-0.0, 4}, "float64"), gpu.array({0, 1}, "int32"),
                                        gpu.array({0, 1, 2}, "int32")}, {shape = {2, 2}})
    assert.are.equal(math.huge, 1 / B[{1, 1}])
    assert.are.equal(4, B[{2, 2}])
  end)

  it("refuses values of another shape or kind, naming both shapes", function()
    local A = random_matrix(5, 4, "csr", "float64", 1)
    local function set(key, v) return function() A[key] = v end end
    err("gpu.sparse.assign: a value of shape {2} does not broadcast to the selection's shape {2, 4}", set({{1, 2}}, {1, 2}))
    err("gpu.sparse.assign: a value of shape {3, 2} does not broadcast to the selection's shape {2, 3}",
        set({{1, 2}, {1, 3}}, gpu.ones({3, 2})))
    err("gpu.sparse.assign: a value of shape {2, 2} does not broadcast to the selection's shape {2}",
        set({i64({1, 2}), i64({1, 2})}, gpu.ones({2, 2})))
    err("gpu.sparse.assign: a value of shape {1, 1} does not broadcast to the selection's shape {2}",
        set({1, i64({1, 2})}, {{1}}))   -- (scipy's: a number and an index array select a 1-D shape)
    err("gpu.sparse.assign: a value of shape {3} does not broadcast to the selection's shape {0, 2}",
        set({{2, 1}, {1, 2}}, {1, 2, 3}))   -- (checked when nothing is selected, as scipy's)
    err("gpu.sparse.assign: one element takes one value, got a value of shape {2}", set({1, 1}, {1, 2}))
    err("gpu.sparse.assign: one element takes one value, got a value of shape {0}", set({1, 1}, gpu.ones(0)))
    err("gpu.sparse.assign: a sparse matrix cannot be assigned to one element (scipy: setting an array element with a sequence)",
        set({1, 1}, sp.csr_matrix({1, 1})))
    err("gpu.sparse.assign: a sparse value of shape 1x5 does not fit the selection's shape {5, 1}",
        set({{}, 2}, sp.csr_matrix({1, 5})))
    err("gpu.sparse.assign: a sparse value of shape 2x4 does not fit the selection's shape {3, 4}",
        set({{1, 3}}, sp.csr_matrix({2, 4})))
    err("gpu.sparse.assign: a complex value (a complex128 array) cannot be assigned into a float64 matrix (take its real part)",
        set({1}, gpu.zeros(4, "complex128")))
    err("gpu.sparse.assign: a complex value (1+2j) cannot be assigned into a float64 matrix (take its real part)",
        set({1, 1}, gpu.complex(1, 2)))
    err("gpu.sparse.assign: a complex value (a table of gpu.complex) cannot be assigned into a float64 matrix",
        set({1, {1, 2}}, {gpu.complex(1, 2), 3}))
    err("gpu.sparse.assign: a complex value (a complex64 matrix) cannot be assigned into a float64 matrix",
        set({{1, 2}, {1, 2}}, sp.csr_matrix({2, 2}, {dtype = "complex64"})))
    err("gpu.sparse.assign: the value: ragged table: [2] has 1 elements, expected 2", set({{1, 2}, {1, 2}}, {{1, 2}, {3}}))
    err('gpu.sparse.assign: the value: element [2] (a string ("x")) expected a number for float64', set({1, {1, 2}}, {1, "x"}))
    local x = gpu.ones(4)
    x:free()
    err("gpu.sparse.assign: the value is a freed array", set({1}, x))
    err("gpu.sparse.assign: the value must be a number, a boolean, a gpu.complex, a device array, a table or a sparse matrix, got function",
        set({1}, print))
    err("gpu.sparse.assign: row index 9 out of range for a matrix of 5 rows", set({9, 1}, {1, 2}))   -- (the key first)
    like(random_matrix(5, 4, "csr", "float64", 1):toarray(), A, "csr")   -- (untouched)
  end)
end)
