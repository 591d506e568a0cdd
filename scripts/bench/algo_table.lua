-- algo_table.lua: the table of issue 11's figures (scripts/bench/algo.sh): gpuhost's and
-- CuPy's from the name<TAB>value files algo-gpuhost.tsv and algo-cupy.tsv in the folder
-- arg[1], then each target of the issue with its ratio and whether it is met.
local dir = arg[1] or "build/bench"
local function load(name)
  local t = {}
  local f = io.open(dir .. "/" .. name)
  if f then
    for line in f:lines() do
      local k, v = line:match("^(%S+)\t(%S+)")
      if k then t[k] = tonumber(v) end
    end
    f:close()
  end
  return t
end
local g, c = load("algo-gpuhost.tsv"), load("algo-cupy.tsv")
local rows = {
  {"read_GBps", "read bandwidth: a kernel reading 2^28 float32, 16 bytes a load", "GB/s", "higher"},
  {"sum_GBps", "a:sum() of 2^28 float32 (into a 0-D array)", "GB/s", "higher"},
  {"argmax_GBps", "a:argmax() of 2^28 float32", "GB/s", "higher"},
  {"sum_tall_last_ms", "sum along the last dim of (2^20, 256) float32", "ms", "lower"},
  {"sum_tall_first_ms", "sum along the first dim of (2^20, 256)", "ms", "lower"},
  {"sum_wide_last_ms", "sum along the last dim of (256, 2^20)", "ms", "lower"},
  {"sum_wide_first_ms", "sum along the first dim of (256, 2^20)", "ms", "lower"},
  {"sum_thin_ms", "sum(2) of (10^6, 2) float32", "ms", "lower"},
  {"cumsum_GBps", "cumsum of 2^28 float32 (read + write)", "GB/s", "higher"},
  {"sort_ms", "sort of 2^26 float32 (values and int64 indices; CuPy: cupy.sort, values only)", "ms", "lower"},
  {"sort_values_ms", "sort of 2^26 float32, values only", "ms", "lower"},
  {"argsort_ms", "argsort of 2^26 float32", "ms", "lower"},
  {"matmul_f32_TFLOPS", "matmul 8192^3 float32", "TFLOPS", "higher"},
  {"matmul_f64_TFLOPS", "matmul 8192^3 float64", "TFLOPS", "higher"},
  {"matmul_tf32_TFLOPS", "matmul 8192^3 float32, TF32 (CuPy: CUPY_TF32=1 not set: plain)", "TFLOPS", "higher"},
  {"matmul64_us", "matmul 64x64 float32, end to end (a loop, synchronized at its end)", "µs", "lower"},
  {"fft_c64_ms", "FFT of 2^24 complex64", "ms", "lower"},
}
local function fmt(v)
  if not v then return "" end
  if v >= 100 then return ("%.0f"):format(v) elseif v >= 10 then return ("%.1f"):format(v) end
  return ("%.3g"):format(v)
end
print("| figure | unit | better | gpuhost | CuPy | gpuhost/CuPy |")
print("| --- | --- | --- | ---: | ---: | ---: |")
for _, r in ipairs(rows) do
  local a, b = g[r[1]], c[r[1]]
  if a or b then
    print(("| %s | %s | %s | %s | %s | %s |"):format(r[2], r[3], r[4], fmt(a), fmt(b),
          a and b and b ~= 0 and ("%.2f"):format(a / b) or ""))
  end
end

-- The targets: speed as a ratio to CuPy's (times inverted, so more is better) or to a
-- figure of gpuhost's own, against the wanted bound.
local targets = {
  {"a:sum() 2^28 float32 vs CuPy", "sum_GBps", "cupy", ">=", 1.0},
  {"a:sum() 2^28 float32 vs the read bandwidth", "sum_GBps", "read_GBps", ">=", 0.9},
  {"sum along the last dim of (2^20, 256) vs CuPy", "sum_tall_last_ms", "cupy", ">=", 1.0},
  {"sum along the first dim of (2^20, 256) vs CuPy", "sum_tall_first_ms", "cupy", ">=", 1.0},
  {"sum along the last dim of (256, 2^20) vs CuPy", "sum_wide_last_ms", "cupy", ">=", 1.0},
  {"sum along the first dim of (256, 2^20) vs CuPy", "sum_wide_first_ms", "cupy", ">=", 1.0},
  {"sum(2) of (10^6, 2) vs CuPy", "sum_thin_ms", "cupy", ">=", 1.0},
  {"argmax 2^28 float32 vs CuPy", "argmax_GBps", "cupy", ">=", 1.0},
  {"cumsum 2^28 float32 vs CuPy", "cumsum_GBps", "cupy", ">=", 0.9},
  {"sort 2^26 float32 vs CuPy (values only)", "sort_values_ms", "cupy", ">=", 0.8},
  {"argsort 2^26 float32 vs CuPy", "argsort_ms", "cupy", ">=", 0.8},
  {"matmul 8192^3 float32 vs cupy.matmul", "matmul_f32_TFLOPS", "cupy", ">=", 0.95},
  {"matmul 8192^3 float64 vs cupy.matmul", "matmul_f64_TFLOPS", "cupy", ">=", 0.95},
  {"matmul 64x64 end to end: time vs CuPy's (lower is better)", "matmul64_us", "cupy_time", "<=", 1.2},
  {"FFT 2^24 complex64 vs cupy.fft.fft", "fft_c64_ms", "cupy", ">=", 0.95},
}
local lower = {}
for _, r in ipairs(rows) do lower[r[1]] = r[4] == "lower" end
print()
print("| target | gpuhost | against | ratio | wanted | met |")
print("| --- | ---: | ---: | ---: | --- | --- |")
for _, t in ipairs(targets) do
  local a = g[t[2]]
  local b, r
  if t[3] == "cupy" or t[3] == "cupy_time" then b = c[t[2]] else b = g[t[3]] end
  if a and b and a ~= 0 and b ~= 0 then
    if t[3] == "cupy_time" then r = a / b
    elseif lower[t[2]] then r = b / a
    else r = a / b end
  end
  local met = r and ((t[4] == ">=" and r >= t[5]) or (t[4] == "<=" and r <= t[5]))
  print(("| %s | %s | %s | %s | %s %s | %s |"):format(t[1], fmt(a), fmt(b), r and ("%.2f"):format(r) or "",
        t[4] == ">=" and "≥" or "≤", t[5], r == nil and "not measured" or met and "yes" or "no"))
end
