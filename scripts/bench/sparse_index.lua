-- sparse_index.lua: gpu.sparse's indexing (rows gathered, columns mapped, places looked up,
-- assignment), beside cupyx.scipy.sparse doing the same (scripts/bench/sparse_index_cupy.py
-- prints its figures under the same names). "name<TAB>ms a call": repeated calls and a
-- synchronization, median of 5 rounds. Never asserts a time.
-- Run: build/gpuhost scripts/bench/sparse_index.lua; python3 scripts/bench/sparse_index_cupy.py
local sp = gpu.sparse
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench

-- n rows of k entries each, columns from a multiplicative hash (sparse.lua's formula)
local function hashed(n, k, dt)
  local e = gpu.arange(n * k, "int64")
  local row, col = e // k, (e * 2654435761 + 12345) % n
  return sp.coo_matrix({(e % 7 + 1):astype(dt), {row, col}}, {shape = {n, n}}):tocsr()
end
-- k 1-based indices of [1, n], spread by a hash (repeats possible), as the Python script's
local function picks(k, n, salt) return (gpu.arange(k, "int64") * 2654435761 + salt) % n + 1 end

local cpu = gpu.backend() == "cpu"
local N, K = cpu and 1 << 14 or 1 << 20, 32
local lg = math.log(N, 2) // 1
local A = hashed(N, K, "float64")
local C = A:tocsc()
local rows, cols = picks(N // 10, N, 7), picks(N // 100, N, 11)
local pr, pc = picks(N, N, 3), picks(N, N, 5)
bench(("rows A[idx] 2^%d/10 of 2^%d x 32"):format(lg, lg), function() return A[{rows}] end, 10)
bench(("rows A[::2] of 2^%d x 32"):format(lg), function() return A[{{1, -1, 2}}] end, 10)
bench(("columns A[:, idx] 2^%d/100 of 2^%d x 32"):format(lg, lg), function() return A[{{}, cols}] end, 10)
bench(("columns A[:, :n/2] of 2^%d x 32"):format(lg), function() return A[{{}, {1, N // 2}}] end, 10)
bench(("submatrix A[:n/16, :n/16] of 2^%d x 32"):format(lg), function() return A[{{1, N // 16}, {1, N // 16}}] end, 10)
bench(("csc columns C[:, idx] 2^%d/10"):format(lg), function() return C[{{}, rows}] end, 10)
bench(("pairs A[r, c] 2^%d"):format(lg), function() return A[{pr, pc}] end, 10)
bench("element A[i, j]", function() return A[{12345 % N + 1, 777}] end, 100)
bench("getrow", function() return A:getrow(N // 3) end, 100)
local B = A:copy()
B:sum_duplicates()
local stored = B.indices:item(K * 5 + 1) + 1   -- a place row 6 stores
bench("assign A[i, j] = v, stored", function() B[{6, stored}] = 2 end, 100)
bench(("assign A[i, j] = v, new (a rebuild of 2^%d x 32)"):format(lg), function()
  local D = B:copy()
  D[{7, N}] = 2
  return D
end, 3)
-- array values: 2^k/10 stored places (one of each picked row's entries) set from an array
-- (an index array's places sorted to find repeats), and a whole row set from an array (its
-- new places merged: a rebuild)
local sr = picks(N // 10, N, 3)
local sc = gpu.take(B.indices, (sr - 1) * K + (sr - 1) % K + 1):astype("int64") + 1
local sv = gpu.arange(N // 10, "float64")
bench(("assign A[r, c] = values, 2^%d/10 stored pairs"):format(lg), function() B[{sr, sc}] = sv end, 10)
local row = gpu.arange(N, "float64") + 1
bench(("assign A[i, :] = values, new (a rebuild of 2^%d x 32)"):format(lg), function()
  local D = B:copy()
  D[{7, {}}] = row
  return D
end, 3)
-- the same row into a matrix that stores nothing: the merge alone (every place new, one row)
local E = sp.csr_matrix({N, N})
bench(("assign A[i, :] = values, 2^%d new into an empty row"):format(lg), function()
  local D = E:copy()
  D[{7, {}}] = row
  return D
end, 3)
