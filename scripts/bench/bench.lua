-- bench.lua: gpuhost's figures for scripts/bench/run.sh (launches, compiles, transfers,
-- array operations). Prints "name<TAB>value" lines;
-- times are medians of repeated runs after a warm-up, in microseconds or milliseconds as
-- the name says; bandwidths in GB/s. Never asserts a time.
local mode = arg[1] or "all"
local function out(name, v) print(("%s\t%.4f"):format(name, v)); io.stdout:flush() end
local function median(t) table.sort(t); return t[(#t + 1) // 2] end

-- modes run in fresh processes by run.sh
if mode == "startup" then
  -- driver init and context; the first allocation (the driver sets up its memory pool);
  -- then making a kernel and its first launch, from the disk cache or compiled
  local t0 = gpu.clock()
  gpu.device()
  local t1 = gpu.clock()
  local a = gpu.empty(32)
  local t2 = gpu.clock()
  local k = gpu.kernel([[extern "C" __global__ void cached(float *x) { x[threadIdx.x] = 1; }]])
  k[{1, 32}](a)
  gpu.synchronize()
  local t3 = gpu.clock()
  out("driver_init_ms", (t1 - t0) * 1e3)
  out("first_alloc_ms", (t2 - t1) * 1e3)
  out(os.getenv("GPUHOST_CACHE_DIR") == "off" and "first_launch_nvrtc_ms" or "first_launch_cached_ms",
      (t3 - t2) * 1e3)
  return
end

if mode == "startup_ops" then
  -- the first a + b of a process whose disk cache has the kernel: its arrays already
  -- made (the first allocation is the driver's, timed apart above)
  local a, b = gpu.ones(1000), gpu.ones(1000)
  gpu.synchronize()
  local t0 = gpu.clock()
  local c = a + b
  gpu.synchronize()
  out(os.getenv("GPUHOST_CACHE_DIR") == "off" and "first_add_compiled_ms" or "first_add_cached_ms",
      (gpu.clock() - t0) * 1e3)
  assert(c:item(1000) == 2)
  return
end

local EMPTY = [[extern "C" __global__ void empty() {}]]
local ARGS = [[extern "C" __global__ void args(float *a, float *b, float *c, int n) {}]]
local VECADD = [[
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}]]

-- launches: per launch, over N back-to-back launches, median of 7 batches. Each loop is
-- written out, as a user would write it, with no function call around the launch.
local N = 20000
local function batches(loop)
  loop(); gpu.synchronize()
  local times = {}
  for _ = 1, 7 do
    local t0 = gpu.clock()
    loop()
    gpu.synchronize()
    times[#times + 1] = (gpu.clock() - t0) / N * 1e6
  end
  return median(times)
end
local empty, kargs = gpu.kernel(EMPTY), gpu.kernel(ARGS)
local a3, b3, c3 = gpu.zeros(1024), gpu.zeros(1024), gpu.zeros(1024)
local prepared = kargs[{1, 32}]
out("launch_empty_us", batches(function() for _ = 1, N do empty[{1, 32}]() end end))
out("launch_args_us", batches(function() for _ = 1, N do kargs[{1, 32}](a3, b3, c3, 1024) end end))
out("launch_prepared_us", batches(function() for _ = 1, N do prepared(a3, b3, c3, 1024) end end))

-- compile: a new source (NVRTC; run.sh turns the disk cache off), then it again
local function compile_figures()
  local t0 = gpu.clock()
  gpu.kernel((VECADD:gsub("vecadd", "vecadd_new"))):compile()
  out("compile_cold_ms", (gpu.clock() - t0) * 1e3)
  t0 = gpu.clock()
  gpu.kernel((VECADD:gsub("vecadd", "vecadd_new"))):compile()
  out("compile_warm_ms", (gpu.clock() - t0) * 1e3)
end
if mode == "launch" then compile_figures() return end

local function device_time(f, reps)
  f(); gpu.synchronize()
  local e0, e1, times = gpu.event(), gpu.event(), {}
  for _ = 1, 5 do
    e0:record()
    for _ = 1, reps do f() end
    e1:record()
    e1:synchronize()
    times[#times + 1] = gpu.elapsed(e0, e1) / reps
  end
  return median(times)   -- ms
end

-- vecadd bandwidth (3 x 4 x n bytes), events around 20 launches, median of 5
local n = 2^24 + 11
local vecadd = gpu.kernel(VECADD)
local a, b, c = gpu.random.uniform(-1, 1, n), gpu.random.uniform(-1, 1, n), gpu.zeros(n)
local run = vecadd[{math.ceil(n / 256), 256}]
local ms = device_time(function() run(a, b, c, n) end, 20)
out("vecadd_GBps", 3 * 4 * n / (ms * 1e-3) / 1e9)

-- built-in kernels against a device-to-device copy of the same bytes
local M = 2^26            -- 256 MiB of float32
local x, y = gpu.zeros(M), gpu.zeros(M)
local bytes = 4 * M
ms = device_time(function() x:copy():free() end, 10)
out("copy_GBps", 2 * bytes / (ms * 1e-3) / 1e9)      -- read + write
local cases = {
  {"zeros", function() return gpu.zeros(M) end},
  {"fill", function() return gpu.full(M, 3) end},
  {"arange", function() return gpu.arange(M) end},
  {"random", function() return gpu.random.random(M) end},
  {"normal", function() return gpu.random.normal(0, 1, M) end},
}
for _, case in ipairs(cases) do
  ms = device_time(function() local t = case[2](); t:free() end, 10)
  out(case[1] .. "_GBps", bytes / (ms * 1e-3) / 1e9)  -- written bytes
end
x:free(); y:free()

-- transfers of 256 MiB
local dev = gpu.zeros(M)
local host = dev:tohost()
local function wall(f, reps)
  f()
  local times = {}
  for _ = 1, reps do
    local t0 = gpu.clock()
    f()
    gpu.synchronize()
    times[#times + 1] = gpu.clock() - t0
  end
  return median(times)
end
out("h2d_GBps", bytes / wall(function() gpu.array(host):free() end, 9) / 1e9)
out("d2h_GBps", bytes / wall(function() dev:tohost(host) end, 9) / 1e9)
out("d2h_new_GBps", bytes / wall(function() dev:tohost():free() end, 9) / 1e9)
local t = {}
for i = 1, 2^20 do t[i] = i * 0.5 end
out("table_h2d_MBps", 4 * 2^20 / wall(function() gpu.array(t):free() end, 5) / 1e6)

-- allocation: 10^5 cycles of 1 MiB
local cycles = 100000
local t0 = gpu.clock()
for _ = 1, cycles do gpu.empty(2^18):free() end
gpu.synchronize()
out("alloc_free_us", (gpu.clock() - t0) / cycles * 1e6)

-- array operations: bytes moved per second, device times as above
out("ew_add_GBps", 3 * 4 * n / (device_time(function() local d = a + b; d:free() end, 20) * 1e-3) / 1e9)
a:free(); b:free(); c:free()
-- small arrays: a + b end to end, as a loop writes it (the results left to the collector)
local s1, s2 = gpu.ones(1000), gpu.ones(1000)
out("ew_add_small_us", batches(function() for _ = 1, N do local d = s1 + s2 end end))
-- ten operations over 2^26 float32, fused and not (12 bytes an element either way)
local F = 2^26
local x, y = gpu.random.uniform(-1, 1, F), gpu.random.uniform(-1, 1, F)
local function chain(p, q) return ((p * 1.5 + q) * (p - q) / (q * q + 1.0) - p) * 0.5 + q end
local fused = gpu.fuse(chain)
out("fuse10_GBps", 12 * F / (device_time(function() fused(x, y):free() end, 10) * 1e-3) / 1e9)
out("unfused10_GBps", 12 * F / (device_time(function() chain(x, y):free() end, 5) * 1e-3) / 1e9)
out("astype_GBps", 12 * F / (device_time(function() x:astype("float64"):free() end, 10) * 1e-3) / 1e9)
x:free(); y:free()
-- a transposing copy of 8192 x 8192 float32 (read + written), and (N, 1) + (1, M)
local T = gpu.random.random({8192, 8192})
out("transpose_GBps", 2 * 4 * 8192 * 8192 / (device_time(function() T.T:contiguous():free() end, 10) * 1e-3) / 1e9)
T:free()
local col, row = gpu.random.random({8192, 1}), gpu.random.random({1, 8192})
out("broadcast_GBps", 4 * 8192 * 8192 / (device_time(function() (col + row):free() end, 10) * 1e-3) / 1e9)
