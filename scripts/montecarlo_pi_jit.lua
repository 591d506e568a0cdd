-- montecarlo_pi_jit.lua: numba's documentation example of random numbers in a kernel
-- (numba.cuda.random: "An example: Monte Carlo integration" of pi) with gpu.jit, and its
-- timings; scripts/bench/montecarlo_pi.py is the numba original and prints the same lines.
-- gpu.random's xoroshiro128+ generators are numba's, so both print the same estimate.
--   build/gpuhost scripts/montecarlo_pi_jit.lua [states for the timings, default 10^7]
-- numba's `from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32`
local create_xoroshiro128p_states = gpu.random.create_xoroshiro128p_states
local xoroshiro128p_uniform_float32 = gpu.random.xoroshiro128p_uniform_float32

local compute_pi = gpu.jit(function(rng_states, iterations, out)
  local thread_id = gpu.grid(1)               -- numba's thread_id + 1: indices are 1-based

  -- the share of points of the unit square that fall in the quarter circle
  local inside = 0
  for _ = 1, iterations do
    local x = xoroshiro128p_uniform_float32(rng_states, thread_id)
    local y = xoroshiro128p_uniform_float32(rng_states, thread_id)
    if x ^ 2 + y ^ 2 <= 1.0 then inside = inside + 1 end
  end

  out[thread_id] = 4.0 * inside / iterations
end)

local threads_per_block = 64
local blocks = 24
local rng_states = create_xoroshiro128p_states(threads_per_block * blocks, 1)
local out = gpu.zeros(threads_per_block * blocks, "float32")

compute_pi[blocks, threads_per_block](rng_states, 10000, out)
print(("pi: %.9g"):format(out:astype("float64"):mean()))
print(("out[1..3]: %.9g %.9g %.9g"):format(out[{1}]:item(), out[{2}]:item(), out[{3}]:item()))

-- timings (ms): making states, and compute_pi on one state a thread
local n = math.tointeger(tonumber(arg and arg[1] or "") or 10^7)
local function ms(f)
  gpu.synchronize()
  local t = gpu.clock()
  f()
  gpu.synchronize()
  return (gpu.clock() - t) * 1e3
end
for _, k in ipairs({10^6, n}) do
  k = math.tointeger(k)
  local t = ms(function() rng_states = create_xoroshiro128p_states(k, 1) end)
  print(("create_xoroshiro128p_states(%d)_ms\t%.1f"):format(k, t))
end
local threads = n // 256 * 256   -- whole blocks (as the numba script, which checks no bounds)
out = gpu.zeros(threads, "float32")
local iterations = 100
compute_pi[threads // 256, 256](rng_states, iterations, out)   -- compiled and warm
local times = {}
for r = 1, 7 do times[r] = ms(function() compute_pi[threads // 256, 256](rng_states, iterations, out) end) end
table.sort(times)
print(("compute_pi(%d threads, %d iterations)_ms\t%.2f (median of 7)"):format(threads, iterations, times[4]))
print(("pi (%d points): %.9g"):format(threads * iterations * 2, out:astype("float64"):mean()))
