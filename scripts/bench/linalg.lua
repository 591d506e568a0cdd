-- linalg.lua: gpu.linalg (cuSOLVER) against CuPy's cupy.linalg, with
-- scripts/bench/linalg_cupy.py giving CuPy's under the same names. Prints "name<TAB>ms a
-- call" (wall time of repeated calls and a synchronization, median of 5 rounds); never
-- asserts a time. Run:
--   build/gpuhost scripts/bench/linalg.lua; python3 scripts/bench/linalg_cupy.py
local L = gpu.linalg
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local N = gpu.backend() == "cpu" and 256 or 2048
gpu.random.seed(1)
local a = gpu.random.normal(0, 1, {N, N}, "float64") + gpu.eye(N, "float64") * N
local spd = gpu.matmul(a, a.T)
local b = gpu.random.normal(0, 1, {N, 16}, "float64")
local small = gpu.random.normal(0, 1, {64, 64}, "float64") + gpu.eye(64, "float64") * 64
bench(("solve %d x %d, 16 rhs"):format(N, N), function() return L.solve(a, b) end, 5)
bench(("inv %d"):format(N), function() return L.inv(a) end, 5)
bench(("det %d"):format(N), function() return L.det(a) end, 5)
bench(("cholesky %d"):format(N), function() return L.cholesky(spd) end, 5)
bench(("qr %d"):format(N), function() return L.qr(a) end, 3)
bench(("eigh %d"):format(N), function() return L.eigh(spd) end, 2)
bench(("svd %d"):format(N), function() return L.svd(a) end, 1)
bench("inv 64", function() return L.inv(small) end, 50)
-- batches of small matrices: one batched call (cuBLAS getrfBatched / getrsBatched,
-- cuSOLVER potrfBatched) where a call a matrix was made before
local B = gpu.backend() == "cpu" and 100 or 10000
local m4 = gpu.random.normal(0, 1, {B, 4, 4}, "float64") + gpu.eye(4, "float64") * 4
local r4 = gpu.random.normal(0, 1, {B, 4, 1}, "float64")
local m32 = gpu.random.normal(0, 1, {B // 10, 32, 32}, "float64") + gpu.eye(32, "float64") * 32
local s32 = gpu.matmul(m32, m32:transpose(-1, -2))
bench(("inv %d x 4 x 4"):format(B), function() return L.inv(m4) end, 5)
bench(("solve %d x 4 x 4"):format(B), function() return L.solve(m4, r4) end, 5)
bench(("det %d x 4 x 4"):format(B), function() return L.det(m4) end, 5)
bench(("inv %d x 32 x 32"):format(B // 10), function() return L.inv(m32) end, 5)
bench(("cholesky %d x 32 x 32"):format(B // 10), function() return L.cholesky(s32) end, 5)
local s16 = gpu.matmul(m32[{{}, {1, 16}, {1, 16}}], m32[{{}, {1, 16}, {1, 16}}]:transpose(-1, -2))
bench(("eigh %d x 16 x 16"):format(B // 10), function() return L.eigh(s16) end, 5)
local g8 = gpu.random.normal(0, 1, {B, 8, 6}, "float64")
bench(("svd %d x 8 x 6"):format(B), function() return L.svd(g8) end, 5)
