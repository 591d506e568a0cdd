-- cpu_algo.lua: issue 11's CPU-backend targets (run by cpu.lua, or alone: build/gpuhost
-- --cpu scripts/bench/cpu_algo.lua): a:sum() of 2^24 float32 against numpy's a.sum(), and
-- matmul 1024^3 float32 against numpy's a @ b (both through an OpenBLAS: Debian's here,
-- numpy's own in a pip numpy), with the ratio of speeds and whether the target is met.
if gpu.backend() ~= "cpu" then error("run on the CPU backend: gpuhost --cpu scripts/bench/cpu_algo.lua", 0) end
local function median(t) table.sort(t); return t[(#t + 1) // 2] end
local function time(f, reps)
  f()
  local t = {}
  for i = 1, reps do
    local t0 = gpu.clock()
    f()
    t[i] = (gpu.clock() - t0) * 1e3
  end
  return median(t)
end
local function numpy(code)
  local p = io.popen("python3 -c \"import statistics, time\nimport numpy as np\n" .. code ..
                     "\nts = []\nfor _ in range(9):\n    s = time.perf_counter(); f(); ts.append(time.perf_counter() - s)\n" ..
                     "print(statistics.median(ts) * 1e3)\" 2>/dev/null")
  local v = tonumber(p:read("a") or "")
  p:close()
  return v
end
local function row(what, mine, theirs, want)
  if not theirs then print(("  %-58s %8.2f ms   (no numpy to compare with)"):format(what, mine)) return end
  local r = theirs / mine
  print(("  %-58s %8.2f ms   numpy %.2f ms: %.2fx numpy's speed (target: %.1f or more: %s)")
        :format(what, mine, theirs, r, want, r >= want and "met" or "missed"))
end
local only_matmul = arg and arg[1] == "matmul"
if not only_matmul then
  local a = gpu.random.uniform(-1, 1, 2^24)
  local sum_ms = time(function() return a:sum() end, 9)
  local np_sum = numpy("a = np.random.uniform(-1, 1, 2**24).astype(np.float32)\ndef f(): return a.sum()")
  print("issue 11 on the CPU backend:")
  row("a:sum(), 2^24 float32", sum_ms, np_sum, 0.5)
end
local x, y = gpu.random.uniform(-1, 1, {1024, 1024}), gpu.random.uniform(-1, 1, {1024, 1024})
local o = gpu.empty({1024, 1024})
local mm_ms = time(function() gpu.matmul(x, y):free() end, 21)
local mm_out_ms = time(function() gpu.matmul(x, y, {out = o}) end, 21)
local np_mm = numpy("a = np.random.uniform(-1, 1, (1024, 1024)).astype(np.float32)\nb = a.copy()\ndef f(): return a @ b")
local blas = os.getenv("GPUHOST_BLAS") or "libopenblas.so.0"
row("gpu.matmul(a, b), 1024^3 float32 (" .. blas:match("[^/]*$") .. ")", mm_ms, np_mm, 0.9)
row("the same into out= (no new array)", mm_out_ms, np_mm, 0.9)
-- the same products through the OpenBLAS numpy ships (a pip numpy), where there is one
if not os.getenv("GPUHOST_BLAS") then
  local p = io.popen("python3 -c \"import glob, os, numpy; print((glob.glob(os.path.join(os.path.dirname(numpy.__file__), " ..
                     "'..', 'numpy.libs', 'libscipy_openblas*.so')) + [''])[0])\" 2>/dev/null")
  local lib = p and p:read("l") or ""
  if p then p:close() end
  if lib ~= "" then
    os.execute("GPUHOST_BLAS='" .. lib .. "' '" .. arg[-1] .. "' --cpu '" .. arg[0] .. "' matmul")
  end
end
