-- jit.lua: gpu.jit kernels against their CUDA C twins: vecadd, SAXPY, a 2-D stencil and a
-- shared-memory reduction. One command, from the repository root:
--   build/gpuhost scripts/bench/jit.lua
-- prints the table (device time, first launch with its compile, a launch from the disk
-- cache in a new process, launch overhead). Figures are medians; first launches are timed
-- in fresh processes, alternating C and gpu.jit rounds. Never asserts a time.
local host = arg[-1] or "build/gpuhost"
local mode, which, kind = arg[1] or "table", arg[2], arg[3]
local function median(t) table.sort(t); return t[(#t + 1) // 2] end

-- the pairs: CUDA C (as gpuhost's C kernels are written, on gpu::array) and gpu.jit
local C = {
  vecadd = [[
extern "C" __global__ void vecadd(gpu::array<float> a, gpu::array<float> b, gpu::array<float> c) {
  long long i = gpu::grid(1);
  c[i] = a[i] + b[i];
}]],
  saxpy = [[
extern "C" __global__ void saxpy(float alpha, gpu::array<float> x, gpu::array<float> y) {
  long long i = gpu::grid(1);
  y[i] = alpha * x[i] + y[i];
}]],
  stencil = [[
extern "C" __global__ void stencil(gpu::array<float> u, gpu::array<float> v) {
  gpu::position p = gpu::grid(2);
  long long i = p.y, j = p.x, h = u.shape[0], w = u.shape[1];
  if (i >= 1 && i < h - 1 && j >= 1 && j < w - 1)
    v(i, j) = 0.25f * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1));
}]],
  reduce = [[
extern "C" __global__ void reduce(gpu::array<float> a, gpu::array<float> out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = a[gpu::grid(1)];
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d /= 2) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out.ptr(), s[0]);
}]],
}

local function jit_kernel(name)
  if name == "vecadd" then
    return gpu.jit(function(a, b, c)
      local i = gpu.grid(1)
      c[i] = a[i] + b[i]
    end)
  elseif name == "saxpy" then
    return gpu.jit(function(alpha, x, y)
      local i = gpu.grid(1)
      y[i] = alpha * x[i] + y[i]
    end, {float = "float32"})
  elseif name == "stencil" then
    return gpu.jit(function(u, v)
      local j, i = gpu.grid(2)
      local h, w = u.shape[1], u.shape[2]
      if i > 1 and i < h and j > 1 and j < w then
        v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1])
      end
    end)
  else
    return gpu.jit(function(a, out)
      local s = gpu.shared.array(256, gpu.float32)
      local t = gpu.threadIdx.x
      s[t] = a[gpu.grid(1)]
      gpu.syncthreads()
      local d = gpu.blockDim.x // 2
      while d > 0 do
        if t <= d then s[t] = s[t] + s[t + d] end
        gpu.syncthreads()
        d = d // 2
      end
      if t == 1 then gpu.atomic.add(out, 1, s[1]) end
    end)
  end
end

local function make(name, k)
  if k == "c" then return gpu.kernel(C[name]) end
  return jit_kernel(name)
end

-- each pair's data and launch: returns a function that launches kernel k once (first
-- launches are timed on small data: they time the compile and the launch, not the kernel)
local small = mode == "first"
local N = small and 1024 or gpu.backend() == "cuda" and 2^24 + 11 or 2^20 + 11
local SIDE = small and 64 or gpu.backend() == "cuda" and 4096 or 1024
local function workload(name)
  if name == "vecadd" or name == "saxpy" then
    local x, y, z = gpu.random.uniform(-1, 1, N), gpu.random.uniform(-1, 1, N), gpu.zeros(N)
    local cfg = {math.ceil(N / 256), 256}
    if name == "vecadd" then return function(k) k[cfg](x, y, z) end, 3 * 4 * N end
    return function(k) k[cfg](2.5, x, y) end, 3 * 4 * N
  elseif name == "stencil" then
    local u, v = gpu.random.random({SIDE, SIDE}), gpu.zeros({SIDE, SIDE})
    local cfg = {{SIDE // 16, SIDE // 16}, {16, 16}}   -- x along a row, y down the rows
    return function(k) k[cfg](u, v) end, 2 * 4 * SIDE * SIDE
  else
    local a, out = gpu.random.random(N), gpu.zeros(1)
    local cfg = {math.ceil(N / 256), 256}
    return function(k) k[cfg](a, out) end, 4 * N
  end
end

local names = {"vecadd", "saxpy", "stencil", "reduce"}

if mode == "first" then
  -- a fresh process: driver and first allocation first, then the kernel made, compiled
  -- (or found in the disk cache) and launched once
  gpu.device()
  gpu.empty(32)
  local launch = workload(which)
  gpu.synchronize()
  local t0 = gpu.clock()
  local k = make(which, kind)
  launch(k)
  gpu.synchronize()
  print(("%.4f"):format((gpu.clock() - t0) * 1e3))
  return
end

local function run(args, env)
  local p = assert(io.popen(("%s %s %s scripts/bench/jit.lua %s"):format(env or "", host, "", args)))
  local out = p:read("a")
  p:close()
  return tonumber(out:match("[%d.]+"))
end

-- device time: events around repeated launches, median of 5
local function device_ms(launch, k, reps)
  launch(k); gpu.synchronize()
  local e0, e1, t = gpu.event(), gpu.event(), {}
  for _ = 1, 5 do
    e0:record()
    for _ = 1, reps do launch(k) end
    e1:record()
    e1:synchronize()
    t[#t + 1] = gpu.elapsed(e0, e1) / reps
  end
  return median(t)
end

local rows = {}
local function row(figure, unit, better, c, j, target, met)
  rows[#rows + 1] = {figure, unit, better, c, j, target, met}
end
-- launch overhead "= C": within 5%, which is below this measurement's noise
local function equal(c, j) return j / c <= 1.05 end

local reps = gpu.backend() == "cuda" and 50 or 3
for _, name in ipairs(names) do
  local launch, bytes = workload(name)
  local kc, kj = make(name, "c"), make(name, "jit")
  local tc, tj = {}, {}
  for _ = 1, 3 do   -- alternate, to even out the clock
    tc[#tc + 1] = device_ms(launch, kc, reps)
    tj[#tj + 1] = device_ms(launch, kj, reps)
  end
  local c, j = median(tc), median(tj)
  row(("%s: device time (GB/s: %.0f C, %.0f gpu.jit)"):format(name, bytes / (c * 1e-3) / 1e9,
      bytes / (j * 1e-3) / 1e9), "ms", "lower", c, j, "gpu.jit/C <= 1/0.97 = 1.03", function(c, j) return j / c <= 1 / 0.97 end)
end

-- first launch, compile included (NVRTC or the C++ compiler, disk cache off), fresh processes
local rounds = 5
for _, name in ipairs(names) do
  local c, j = {}, {}
  for _ = 1, rounds do
    c[#c + 1] = run("first " .. name .. " c", "GPUHOST_CACHE_DIR=off")
    j[#j + 1] = run("first " .. name .. " jit", "GPUHOST_CACHE_DIR=off")
  end
  row(name .. ": first launch in a new process, compile included", "ms", "lower", median(c), median(j),
      "gpu.jit/C <= 1.2", function(c, j) return j / c <= 1.2 end)
end

-- the same from the disk cache (a new process: gpu.jit reads, types and emits the
-- function, then finds the compiled code on disk)
local cache = os.tmpname()
os.remove(cache)
for _, name in ipairs(names) do
  local env = "GPUHOST_CACHE_DIR=" .. cache
  run("first " .. name .. " c", env); run("first " .. name .. " jit", env)
  local c, j = {}, {}
  for _ = 1, rounds do
    c[#c + 1] = run("first " .. name .. " c", env)
    j[#j + 1] = run("first " .. name .. " jit", env)
  end
  row(name .. ": first launch in a new process, from the disk cache", "ms", "lower", median(c), median(j),
      "gpu.jit <= 1 ms", function(_, j) return j <= 1 end)
end
os.execute("rm -rf " .. cache)

-- launch overhead: back-to-back launches of a kernel that does nothing with 3 arrays and
-- an integer, per launch, median of 7 batches
local L = gpu.backend() == "cuda" and 20000 or 50000
local ARGS = [[extern "C" __global__ void args(gpu::array<float> a, gpu::array<float> b, gpu::array<float> c, long long n) {}]]
local kc = gpu.kernel(ARGS)
local kj = gpu.jit(function(a, b, c, n) end)
local ks = gpu.jit(function(a, b, c, n) end, {signature = "void(float32[:], float32[:], float32[:], int64)"})
local a3, b3, c3 = gpu.zeros(1024), gpu.zeros(1024), gpu.zeros(1024)
local function per_launch(loop)
  loop(); gpu.synchronize()
  local t = {}
  for _ = 1, 7 do
    local t0 = gpu.clock()
    loop()
    gpu.synchronize()
    t[#t + 1] = (gpu.clock() - t0) / L * 1e6
  end
  return median(t)
end
local lc, lj, ls = {}, {}, {}
local pc, pj, ps = kc[{1, 32}], kj[{1, 32}], ks[{1, 32}]
local plc, plj, pls = {}, {}, {}
for _ = 1, 3 do
  lc[#lc + 1] = per_launch(function() for _ = 1, L do kc[{1, 32}](a3, b3, c3, 1024) end end)
  lj[#lj + 1] = per_launch(function() for _ = 1, L do kj[{1, 32}](a3, b3, c3, 1024) end end)
  ls[#ls + 1] = per_launch(function() for _ = 1, L do ks[{1, 32}](a3, b3, c3, 1024) end end)
  plc[#plc + 1] = per_launch(function() for _ = 1, L do pc(a3, b3, c3, 1024) end end)
  plj[#plj + 1] = per_launch(function() for _ = 1, L do pj(a3, b3, c3, 1024) end end)
  pls[#pls + 1] = per_launch(function() for _ = 1, L do ps(a3, b3, c3, 1024) end end)
end
row("launch: k[{1, 32}](a, b, c, n), types inferred", "µs", "lower", median(lc), median(lj), "= C (within 5%)", equal)
row("launch: k[{1, 32}](a, b, c, n), with a signature", "µs", "lower", median(lc), median(ls), "= C (within 5%)", equal)
row("launch, prepared: run(a, b, c, n), types inferred", "µs", "lower", median(plc), median(plj), "= C (within 5%)", equal)
row("launch, prepared: run(a, b, c, n), with a signature", "µs", "lower", median(plc), median(pls), "= C (within 5%)", equal)

local function fmt(v)
  if v >= 100 then return ("%.0f"):format(v) elseif v >= 10 then return ("%.1f"):format(v) end
  return ("%.3f"):format(v)
end
local dev = gpu.device()
print(("gpu.jit against CUDA C, %s (%s backend); vecadd/SAXPY/reduce of %d float32, stencil %d x %d")
      :format(dev.name, gpu.backend(), N, SIDE, SIDE))
print()
print("| figure | unit | CUDA C | gpu.jit | gpu.jit/C | target | met |")
print("| --- | --- | ---: | ---: | ---: | --- | --- |")
for _, r in ipairs(rows) do
  print(("| %s | %s | %s | %s | %.2f | %s | %s |"):format(r[1], r[2], fmt(r[4]), fmt(r[5]), r[5] / r[4], r[6],
        r[7](r[4], r[5]) and "yes" or "no"))
end
