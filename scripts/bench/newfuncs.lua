-- newfuncs.lua: the functions added on 2026-12-02 (integer products, einsum, eig, lstsq,
-- random distributions, sets, FFT helpers) against CuPy, with scripts/bench/newfuncs_cupy.py
-- giving CuPy's under the same names. Prints "name<TAB>ms a call" (wall time of repeated
-- calls and a synchronization, median of 5 rounds); never asserts a time. Run:
--   build/gpuhost scripts/bench/newfuncs.lua; python3 scripts/bench/newfuncs_cupy.py
local L = gpu.linalg
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local cpu = gpu.backend() == "cpu"
local N, M = cpu and 256 or 2048, cpu and 1e5 or 1e7
gpu.random.seed(1)
local ia = gpu.random.integers(-100, 100, {N, N}, "int32")
bench(("matmul int32 %d"):format(N), function() return gpu.matmul(ia, ia) end, 5)
local x, y = gpu.random.normal(0, 1, {64, 256, 256}), gpu.random.normal(0, 1, {64, 256, 256})
bench("einsum bij,bjk->bik 64x256x256", function() return gpu.einsum("bij,bjk->bik", x, y) end, 10)
local u, v = gpu.random.normal(0, 1, {4096, 1024}), gpu.random.normal(0, 1, {4096, 1024})
bench("einsum ij,ij->i 4096x1024", function() return gpu.einsum("ij,ij->i", u, v) end, 10)
local g = gpu.random.normal(0, 1, {512, 512}, "float64")
bench("eigvals 512", function() return L.eigvals(g) end, 2)
bench("eig 512", function() return L.eig(g) end, 2)
local ta, tb = gpu.random.normal(0, 1, {4096, 256}, "float64"), gpu.random.normal(0, 1, {4096}, "float64")
bench("lstsq 4096x256", function() return L.lstsq(ta, tb) end, 3)
bench(("gamma(2) %d"):format(M), function() return gpu.random.gamma(2, 1, M) end, 5)
bench(("poisson(5) %d"):format(M), function() return gpu.random.poisson(5, M) end, 5)
bench(("binomial(100, 0.3) %d"):format(M), function() return gpu.random.binomial(100, 0.3, M) end, 5)
local s1 = gpu.random.integers(0, 1 << 20, M // 10)
local s2 = gpu.random.integers(0, 1 << 20, M // 10)
bench(("union1d %d"):format(M // 10), function() return gpu.union1d(s1, s2) end, 3)
bench(("intersect1d %d"):format(M // 10), function() return gpu.intersect1d(s1, s2) end, 3)
bench(("intersect1d %d, return_indices"):format(M // 10),
      function() return gpu.intersect1d(s1, s2, {return_indices = true}) end, 3)
local img = gpu.random.normal(0, 1, {4096, 4096})
bench("fftshift 4096x4096", function() return gpu.fft.fftshift(img) end, 10)
bench("rfft2 4096x4096", function() return gpu.fft.rfft2(img) end, 5)
bench("gradient 4096x4096", function() return gpu.gradient(img) end, 5)
