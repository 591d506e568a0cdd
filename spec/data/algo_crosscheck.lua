-- algo_crosscheck.lua: issue 11's algorithms on sizes that take the GPU's multi-block
-- paths (split reductions, look-back scans over many tiles, Onesweep sorts of long rows,
-- batched products and FFTs), one "name<TAB>how<TAB>hex" line each, for
-- spec/algo_crosscheck_spec.lua to compare between the backends: how is "exact" (the same
-- bytes), or "f32"/"f64" (floats within a tolerance the spec knows).
gpu.random.seed(2024)
local function hex(s) return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end
local function out(name, how, a) print(name .. "\t" .. how .. "\t" .. hex(a:contiguous():tohost():bytes())) end
local function num(name, how, v, dt) out(name, how, gpu.full({}, v, dt)) end

local N = 300001
local x = gpu.random.uniform(-1, 1, N)
local xi = gpu.random.integers(-1000, 1000, N, "int32")
local m = gpu.random.uniform(-1, 1, {1000, 300})

-- reductions
num("sum_f32", "f32", x:sum(), "float32")
num("sum_i32", "exact", xi:sum(), "int64")
num("argmax", "exact", x:argmax(), "int64")
num("argmin_i32", "exact", xi:argmin(), "int64")
out("sum_rows", "f32", m:sum(2))
out("sum_cols", "f32", m:sum(1))
out("max_cols", "exact", m:max(1))
out("argmax_rows", "exact", m:argmax(2))
out("mean_var", "f32", gpu.array({m:mean(), m:var(), m:std({ddof = 1}), m:norm()}))
out("count_any", "exact", gpu.array({x:gt(0.5):count_nonzero(), m:lt(-0.99):any(2):count_nonzero()}, "int64"))
-- scans
out("cumsum_i32", "exact", xi:cumsum())
out("cumsum_cols", "f32", m:cumsum(1))
out("cumsum_f32", "f32", x[{{1, 5000}}]:cumsum())
-- sorting
local v, i = x:sort()
out("sort_values", "exact", v)
out("sort_indices", "exact", i)
out("argsort_desc", "exact", gpu.argsort(xi, {descending = true}))
out("sort_rows", "exact", gpu.argsort(m, 2))
out("sort_cols", "exact", gpu.argsort(m, 1))
local tv, ti = m:topk(5)
out("topk", "exact", ti)
local u, first, inverse, counts = gpu.unique(xi, {index = true, inverse = true, counts = true})
out("unique", "exact", u)
out("unique_index", "exact", first)
out("unique_inverse", "exact", inverse)
out("unique_counts", "exact", counts)
-- random numbers
out("integers", "exact", gpu.random.integers(0, 1000000, 10000))
out("permutation", "exact", gpu.random.permutation(100000))
out("choice", "exact", gpu.random.choice(500, 100, {replace = false}))
out("choice_p", "exact", gpu.random.choice(5, 1000, {p = gpu.array({0.1, 0.2, 0.3, 0.15, 0.25}, "float64")}))
local k = gpu.kernel([[
extern "C" __global__ void draws(unsigned long long seed, unsigned *bits, float *u) {
  long long i = gpu::grid(1);
  gpu::philox r(seed, i);
  bits[i] = r.next();
  u[i] = r.uniform();
}]])
local bits, un = gpu.zeros(4096, "uint32"), gpu.zeros(4096)
k[{16, 256}](gpu.random.key(), bits, un)
out("philox_bits", "exact", bits)
out("philox_uniform", "exact", un)
-- products and FFTs
local a, b = gpu.random.uniform(-1, 1, {4, 65, 33}), gpu.random.uniform(-1, 1, {33, 70})
out("matmul_f32", "f32", gpu.matmul(a, b))
out("matmul_f64", "f64", gpu.matmul(a:astype("float64"), b:astype("float64").T:contiguous().T))
local z = gpu.random.uniform(-1, 1, 4096):astype("complex64")
out("fft_c64", "f32", gpu.fft.fft(z))
out("rfft2_f64", "f64", gpu.fft.rfftn(m:astype("float64")))
out("ifft_cols", "f32", gpu.fft.ifft(m, nil, 1))
