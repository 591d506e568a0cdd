-- table.lua: prints the table of scripts/bench/run.sh from the name<TAB>value files in
-- the folder arg[1]: each figure for gpuhost, C, CuPy and numba, and gpuhost's ratio to
-- each (gpuhost's figure divided by the other's; "better" says which way is good). With
-- arg[2] == "tsv", the same rows as tab-separated values for scripts/bench/chart.py.
local dir = arg[1] or "build/bench"
local as_tsv = arg[2] == "tsv"
local rows = {
  {"startup_ms", "gpuhost -e '' (process start to exit)", "ms", "lower"},
  {"driver_init_ms", "driver init and context (Python: with import)", "ms", "lower"},
  {"launch_empty_us", "launch, empty kernel: k[{1, 32}]()", "µs", "lower"},
  {"launch_args_us", "launch, 3 arrays and an int: k[{1, 32}](a, b, c, n)", "µs", "lower"},
  {"launch_prepared_us", "launch, prepared: run(a, b, c, n) (C: cuLaunchKernel, args)", "µs", "lower"},
  {"vecadd_GBps", "vecadd 2^24+11 float32 (3 x 4 x N bytes)", "GB/s", "higher"},
  {"copy_GBps", "device-to-device copy, 256 MiB (read + write)", "GB/s", "higher"},
  {"zeros_GBps", "zeros, 256 MiB (bytes written)", "GB/s", "higher"},
  {"fill_GBps", "full(3), 256 MiB", "GB/s", "higher"},
  {"arange_GBps", "arange, 256 MiB", "GB/s", "higher"},
  {"random_GBps", "random uniform, 256 MiB", "GB/s", "higher"},
  {"normal_GBps", "random normal, 256 MiB", "GB/s", "higher"},
  {"h2d_GBps", "host to device, 256 MiB (C: pinned cuMemcpy)", "GB/s", "higher"},
  {"d2h_GBps", "device to host into an existing host array", "GB/s", "higher"},
  {"d2h_new_GBps", "device to host, new host array", "GB/s", "higher"},
  {"h2d_pageable_GBps", "host to device, pageable", "GB/s", "higher"},
  {"d2h_pageable_GBps", "device to host, pageable", "GB/s", "higher"},
  {"table_h2d_MBps", "Lua table / Python list of 2^20 to the device", "MB/s", "higher"},
  {"compile_first_ms", "first compile in a process", "ms", "lower"},
  {"compile_cold_ms", "compile of a new source", "ms", "lower"},
  {"compile_warm_ms", "the same source again (in memory)", "ms", "lower"},
  {"module_load_ms", "loading a compiled module", "ms", "lower"},
  {"first_alloc_ms", "first allocation of a process (the driver's pool)", "ms", "lower"},
  {"first_launch_nvrtc_ms", "new process: kernel, compile, first launch", "ms", "lower"},
  {"first_launch_cached_ms", "new process: the same from the disk cache", "ms", "lower"},
  {"alloc_free_us", "allocate + free 1 MiB (C: cuMemAlloc/cuMemFree)", "µs", "lower"},
  {"alloc_async_us", "allocate + free 1 MiB, cuMemAllocAsync", "µs", "lower"},
  {"graph_chain_eager_us", "1,000 dependent small kernels, launched one by one (to the end of a sync)", "µs", "lower"},
  {"graph_chain_replay_us", "the same 1,000 kernels replayed from a graph", "µs", "lower"},
  {"graph_mixed_eager_us", "500 kernels and 500 4 KiB device copies, one by one", "µs", "lower"},
  {"graph_mixed_replay_us", "the same replayed from a graph", "µs", "lower"},
  {"graph_update_ms", "graph of 1,000 kernels: record anew and update in place", "ms", "lower"},
  {"graph_rebuild_ms", "graph of 1,000 kernels: record and instantiate anew", "ms", "lower"},
  {"launch_prepared_instr", "instructions a prepared launch costs the CPU (stub driver; C: the call alone)", "instr", "lower"},
  {"launch_args_instr", "instructions of k[{1, 32}](a, b, c, n) (stub driver; C: the call alone)", "instr", "lower"},
  {"launch_empty_instr", "instructions of k[{1, 32}]() (stub driver)", "instr", "lower"},
  {"lua_loop_instr", "instructions of the Lua loop around a launch", "instr", "lower"},
  {"ew_add_small_instr", "instructions of c = a + b, 1000 float32, end to end (stub driver)", "instr", "lower"},
  {"alloc_free_instr", "instructions of gpu.empty(2^18):free() (stub driver)", "instr", "lower"},
  {"jit_c_args_instr", "instructions of k[{1, 32}](a, b, c, n), CUDA C on gpu::array (stub driver)", "instr", "lower"},
  {"jit_args_instr", "the same, gpu.jit, types inferred", "instr", "lower"},
  {"jit_c_prepared_instr", "instructions of run(a, b, c, n), CUDA C on gpu::array (stub driver)", "instr", "lower"},
  {"jit_prepared_instr", "the same, gpu.jit, types inferred", "instr", "lower"},
  {"startup_instr", "instructions of gpuhost -e ''", "instr", "lower"},
  {"lua_call_instr", "instructions Lua spends calling an empty C function with the same arguments", "instr", "lower"},
  {"lua_index_call_instr", "instructions of t[{1, 32}](a, b, c, n) with a Lua __index giving that function", "instr", "lower"},
  {"ew_add_GBps", "c = a + b, 2^24+11 float32 (C: vecadd kernel)", "GB/s", "higher"},
  {"ew_add_small_us", "c = a + b, 1000 float32, end to end", "µs", "lower"},
  {"fuse10_GBps", "10 operations fused, 2^26 float32 (C: one hand-written kernel)", "GB/s", "higher"},
  {"unfused10_GBps", "the same 10 operations unfused", "GB/s", "higher"},
  {"transpose_GBps", "a.T:contiguous(), 8192 x 8192 float32 (read + write)", "GB/s", "higher"},
  {"astype_GBps", "a:astype(\"float64\"), 2^26 float32 (4 + 8 bytes an element)", "GB/s", "higher"},
  {"broadcast_GBps", "(8192, 1) + (1, 8192) float32 (bytes written)", "GB/s", "higher"},
  {"first_add_compiled_ms", "new process: first a + b, compiled", "ms", "lower"},
  {"first_add_cached_ms", "new process: first a + b, from the disk cache", "ms", "lower"},
}
local impls = {"gpuhost", "c", "cupy", "numba"}
local data = {}
for _, impl in ipairs(impls) do
  data[impl] = {}
  local f = io.open(dir .. "/" .. impl .. ".tsv")
  if f then
    for line in f:lines() do
      local k, v = line:match("^(%S+)\t(%S+)")
      if k then data[impl][k] = tonumber(v) end
    end
    f:close()
  end
end
local function fmt(v)
  if not v then return "" end
  if v >= 100 then return ("%.0f"):format(v) elseif v >= 10 then return ("%.1f"):format(v) end
  return ("%.2f"):format(v)
end
local function ratio(a, b) if a and b and b ~= 0 then return ("%.2f"):format(a / b) end return "" end
if as_tsv then
  print("figure\tunit\tbetter\tgpuhost\tC\tCuPy\tnumba")
else
  print("| figure | unit | better | gpuhost | C | CuPy | numba | gpuhost/C | gpuhost/CuPy | gpuhost/numba |")
  print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
end
for _, r in ipairs(rows) do
  local g, c, p, n = data.gpuhost[r[1]], data.c[r[1]], data.cupy[r[1]], data.numba[r[1]]
  if as_tsv and (g or c or p or n) then
    local function v(x) return x and ("%.6g"):format(x) or "" end
    print(table.concat({r[2], r[3], r[4], v(g), v(c), v(p), v(n)}, "\t"))
  elseif g or c or p or n then
    print(("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"):format(r[2], r[3], r[4],
      fmt(g), fmt(c), fmt(p), fmt(n), ratio(g, c), ratio(g, p), ratio(g, n)))
  end
end

-- The targets of issue 10 (array operations): each a ratio of two figures (or one figure
-- against a bound), met or missed. Not part of the chart's rows.
if as_tsv then return end
local targets = {
  {"a + b, 2^24+11 float32, vs the C floor's vecadd", "gpuhost", "ew_add_GBps", "c", "vecadd_GBps", ">=", 0.97},
  {"a + b, 2^24+11 float32, vs CuPy's a + b", "gpuhost", "ew_add_GBps", "cupy", "ew_add_GBps", ">=", 1.2},
  {"a + b of 1000 float32 vs a prepared launch", "gpuhost", "ew_add_small_us", "gpuhost", "launch_prepared_us", "<=", 2},
  {"a + b of 1000 float32 vs CuPy's a + b", "gpuhost", "ew_add_small_us", "cupy", "ew_add_small_us", "<=", 0.5},
  {"10 operations fused vs a hand-written kernel", "gpuhost", "fuse10_GBps", "c", "fuse10_GBps", ">=", 0.9},
  {"10 operations fused vs the same unfused", "gpuhost", "fuse10_GBps", "gpuhost", "unfused10_GBps", ">=", 4},
  {"10 operations fused vs cupy.fuse", "gpuhost", "fuse10_GBps", "cupy", "fuse10_GBps", ">=", 1.0},
  {"a.T:contiguous() 8192^2 float32 vs a device copy", "gpuhost", "transpose_GBps", "gpuhost", "copy_GBps", ">=", 0.8},
  {"astype float64 of 2^26 float32 vs a device copy", "gpuhost", "astype_GBps", "gpuhost", "copy_GBps", ">=", 0.9},
  {"(N, 1) + (1, M) vs a device copy", "gpuhost", "broadcast_GBps", "gpuhost", "copy_GBps", ">=", 0.9},
  {"first a + b of a process, warm disk cache (ms)", "gpuhost", "first_add_cached_ms", nil, nil, "<=", 1.0},
  {"gpuhost -e '' start-up (ms), as before the module grew", "gpuhost", "startup_ms", nil, nil, "<=", 2.4},
}
print()
print("| target | gpuhost | against | ratio | wanted | met |")
print("| --- | ---: | ---: | ---: | --- | --- |")
for _, t in ipairs(targets) do
  local g = data[t[2]][t[3]]
  local o = t[4] and data[t[4]][t[5]]
  local r = g and (t[4] == nil and g or (o and o ~= 0 and g / o))
  local met = r and ((t[6] == ">=" and r >= t[7]) or (t[6] == "<=" and r <= t[7]))
  print(("| %s | %s | %s | %s | %s %s | %s |"):format(t[1], fmt(g), t[4] and fmt(o) or "", r and ("%.2f"):format(r) or "",
        t[6] == ">=" and "≥" or "≤", t[7], r == nil and "not measured" or met and "yes" or "no"))
end
