-- sparse.lua: gpu.sparse's products and conversions, beside cupyx.scipy.sparse (cuSPARSE)
-- doing the same (scripts/bench/sparse_cupy.py prints its figures under the same names).
-- "name<TAB>ms a call": repeated calls and a synchronization, median of 5 rounds; products
-- also give GB/s (the matrix's bytes and the vectors' read and written once, over the time).
-- Never asserts a time. Run: build/gpuhost scripts/bench/sparse.lua; python3 scripts/bench/sparse_cupy.py
local sp = gpu.sparse
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench

-- the 5-point Laplacian of a g x g grid (n = g^2), as sparse_cupy.py's
local function poisson2d(g, dt)
  local n = g * g
  local i = gpu.arange(n, "int64")
  local x = i % g
  local rows, cols, vals = {i}, {i}, {gpu.full(n, 4, dt)}
  for _, c in ipairs({{x:gt(0), -1}, {x:lt(g - 1), 1}, {i:ge(g), -g}, {i:lt(n - g), g}}) do
    local r = i[c[1]]
    rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = r, r + c[2], gpu.full(r.size, -1, dt)
  end
  return sp.coo_matrix({gpu.concatenate(vals), {gpu.concatenate(rows), gpu.concatenate(cols)}},
                       {shape = {n, n}}):tocsr()
end

-- n rows of k entries each, columns from a multiplicative hash (sparse_cupy.py's formula)
local function hashed(n, k, dt)
  local e = gpu.arange(n * k, "int64")
  local row, col = e // k, (e * 2654435761 + 12345) % n
  return sp.coo_matrix({(e % 7 + 1):astype(dt), {row, col}}, {shape = {n, n}}):tocsr()
end

-- row i (0-based) has max(1, 4096 // (i + 1)) + 8 entries: a few long rows, many short ones
local function skewed(n, dt)
  local lens = gpu.maximum(4096 // (gpu.arange(n, "int64") + 1), 1) + 8
  local ends = lens:cumsum()
  local nnz = ends:item(n)
  local e = gpu.arange(nnz, "int64")
  local row = gpu.searchsorted(ends, e, {side = "right"}) - 1   -- gpu's searchsorted is 1-based
  local col = (e * 2654435761 + 777) % n
  return sp.coo_matrix({gpu.ones(nnz, dt), {row, col}}, {shape = {n, n}}):tocsr()
end

local function gbs(A, nvec)
  local es = A.data.nbytes // math.max(A.data.size, 1)
  local b = A.nnz * (es + 4) + (A.shape[1] + 1) * 4 + nvec * A.shape[1] * es * 2
  return function(t) return ("%.0f GB/s"):format(b / t / 1e9) end
end

local cpu = gpu.backend() == "cpu"
local G, N = cpu and 128 or 2048, cpu and 1 << 12 or 1 << 20
for _, dt in ipairs({"float32", "float64"}) do
  local A = poisson2d(G, dt)
  local x = gpu.ones(A.shape[2], dt)
  bench(("spmv poisson2d %d^2 %s"):format(G, dt), function() return A:dot(x) end, 50, gbs(A, 1))
  local X = gpu.ones({A.shape[2], 8}, dt)
  bench(("spmm poisson2d %d^2 x 8 %s"):format(G, dt), function() return A:dot(X) end, 10, gbs(A, 8))
  local H = hashed(N, 32, dt)
  x = gpu.ones(H.shape[2], dt)
  bench(("spmv hashed 2^%d x 32 %s"):format(math.log(N, 2) // 1, dt), function() return H:dot(x) end, 50, gbs(H, 1))
  local S = skewed(N, dt)
  bench(("spmv skewed 2^%d %s"):format(math.log(N, 2) // 1, dt), function() return S:dot(x) end, 50, gbs(S, 1))
end
local A = poisson2d(G, "float64")
local C = A:tocoo()
bench(("coo->csr poisson2d %d^2"):format(G), function() return C:tocsr() end, 10)
bench(("csr->csc poisson2d %d^2"):format(G), function() return A:tocsc() end, 10)
bench(("csr + csr poisson2d %d^2"):format(G), function() return A + A end, 10)
bench(("csr * 2 poisson2d %d^2"):format(G), function() return A * 2.0 end, 20)
bench(("sum(axis=1) poisson2d %d^2"):format(G), function() return A:sum(2) end, 20)
local small = hashed(4096, 40, "float32")
bench("toarray 4096^2 (1%)", function() return small:toarray() end, 20)
gpu.synchronize()
local t0 = gpu.clock(); hashed(N, 32, "float32"); gpu.synchronize()
print(("build hashed 2^%d x 32 (coo->csr)\t%.4f"):format(math.log(N, 2) // 1, (gpu.clock() - t0) * 1e3))
if rawget(gpu.sparse, "linalg") then
  local P = poisson2d(cpu and 64 or 512, "float64")
  local b = gpu.ones(P.shape[1], "float64")
  local L = gpu.sparse.linalg
  bench(("cg poisson2d %d^2 200 steps"):format(cpu and 64 or 512),
        function() return L.cg(P, b, {rtol = 0, atol = 0, maxiter = 200}) end, 3)
  bench(("gmres poisson2d %d^2 restart 20, 200 steps"):format(cpu and 64 or 512),
        function() return L.gmres(P, b, {rtol = 0, atol = 0, restart = 20, maxiter = 200}) end, 3)
end
