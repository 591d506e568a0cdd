-- numba.cuda.random's xoroshiro128+ in gpuhost: gpu.random.create_xoroshiro128p_states (made
-- on the device from the jump's matrices, lua/random.lua), gpu.jit's
-- gpu.random.xoroshiro128p_* and gpuhost.cuh's gpu::xoroshiro128p_*. The expected states and
-- draws come from a plain-Python rewrite of numba's random.py (its sequential seeding and
-- jumps), written here as numbers: uint64 states as Lua's integers (the same 64 bits).
local S = require("spec.support")
local R = gpu.random

local here = debug.getinfo(1, "S").short_src

-- every generator's first draws, in numba's order: uniform_float32, uniform_float64,
-- normal_float32, normal_float64 (each two steps), uniform_float64; rows `rounds` times,
-- generator i writes rows i, i + n, ...
local draws = gpu.jit(function(states, out)
  local i, n = gpu.grid(1), states.shape[1]
  if i > n then return end
  for r = i, out.shape[1], n do
    out[r][1] = gpu.random.xoroshiro128p_uniform_float32(states, i)
    out[r][2] = gpu.random.xoroshiro128p_uniform_float64(states, i)
    out[r][3] = gpu.random.xoroshiro128p_normal_float32(states, i)
    out[r][4] = gpu.random.xoroshiro128p_normal_float64(states, i)
  end
end)

-- numba's documentation example: pi from the share of points in the quarter circle (its
-- function read from an upvalue, as numba's imported name)
local xoroshiro128p_uniform_float32 = gpu.random.xoroshiro128p_uniform_float32
local compute_pi = gpu.jit(function(rng_states, iterations, out)
  local thread_id = gpu.grid(1)
  local inside = 0
  for _ = 1, iterations do
    local x = xoroshiro128p_uniform_float32(rng_states, thread_id)
    local y = xoroshiro128p_uniform_float32(rng_states, thread_id)
    if x ^ 2 + y ^ 2 <= 1.0 then inside = inside + 1 end
  end
  out[thread_id] = 4.0 * inside / iterations
end)

local function close(a, b, tol) return math.abs(a - b) <= (tol or 1e-6) * math.max(1e-30, math.abs(b)) end

-- seed 1's generators 1 .. 4 (numba's 0 .. 3): the five draws above, then the state
local SEED1 = {
  {0.13312314450740814, 0.37805969057650834, -1.660347819328308, 1.2706192432696535, 0.5277742648365985,
   5143719668971843914, 3605279336325349996},
  {0.8763487339019775, 0.21028068449282, 1.1530495882034302, 1.0597236379743995, 0.41318100063035146,
   -5123151322091438420, -8999481965638119892},
  {0.8710908889770508, 0.4541151748849914, -0.4430192708969116, -0.2263727330600322, 0.8782692012691632,
   8821943212364176347, 8051431445548498544},
  {0.9364807605743408, 0.9279626462850302, 0.13793563842773438, -0.42477900745688435, 0.3248531463655462,
   -8180522765553800599, 2834581564590309497},
}

describe("gpu.random.create_xoroshiro128p_states", function()
  it("makes numba's states for a seed", function()
    local s = R.create_xoroshiro128p_states(3, 1)
    assert.are.equal("uint64", s.dtype)
    assert.are.same({3, 2}, s.shape)
    assert.are.same({{-7995527694508729151, -7995527694508729151}, {8341117667364343960, 7824662623250379246},
                      {809817624983272012, -3187770912559697798}}, s:totable())
    -- 10^6 of them: state 1000 and the last, numba's jumped 10^6 - 1 times
    local big = R.create_xoroshiro128p_states(1e6, 42)
    assert.are.same({1000000, 2}, big.shape)
    assert.are.same({{-4767286540954276203, -4767286540954276203}, {313611670190079035, 410834281257317300}},
                    big[{{1, 2}}]:totable())
    assert.are.same({3960469996611835494, 6173072550953812027}, big[{1001}]:totable())
    assert.are.same({-5177944095754706481, -2846691985254011798}, big[{1000000}]:totable())
    -- a subsequence_start jumps the first one, and a negative seed is seed + 2^64 (numba's uint64)
    assert.are.same({{1286922890730759638, 4953010336843359863}, {-8876623879378753939, 9094515782524185886},
                      {7849063420089748963, 7693269692229016906}},
                    R.create_xoroshiro128p_states(3, 7, {subsequence_start = 5}):totable())
    assert.are.same({{-1956407806741107680, -1956407806741107680}, {-1121866263189424504, 6708399602603917828}},
                    R.create_xoroshiro128p_states(2, -1):totable())
    assert.are.same(big[{{999001, 1000000}}]:totable(),
                    R.create_xoroshiro128p_states(1000, 42, {subsequence_start = 999000}):totable())
    assert.are.same({0, 2}, R.create_xoroshiro128p_states(0, 1).shape)
    local st = gpu.stream()
    local on = R.create_xoroshiro128p_states(1001, 42, {stream = st})
    st:synchronize()
    assert.are.same({3960469996611835494, 6173072550953812027}, on[{1001}]:totable())
  end)

  -- (a fresh process: the jump's tables are made once a process, at the first need)
  local function fresh(code)
    local out, status, err = S.host("-e " .. S.quote(code))
    assert.are.equal(0, status, err)
    return out
  end

  it("is recorded in a graph when the jump's tables are made inside it, and replays as it runs", function()
    -- their upload was followed by a gpu.synchronize(): "GPUHOST_NOT_CAPTURABLE: ...
    -- gpu.synchronize() cannot be captured", a call the script never made
    assert.are.equal("true\ttrue\n", fresh([[
      local R, st, far = gpu.random
      local g = gpu.graph(function()
        st = R.create_xoroshiro128p_states(100, 42)
        far = R.create_xoroshiro128p_states(3, 5, {subsequence_start = 1 << 50})   -- more tables
      end)
      st:fill(0); far:fill(0); g:launch()
      local function same(a, b)
        a, b = a:totable(), b:totable()
        for i = 1, #b do if a[i][1] ~= b[i][1] or a[i][2] ~= b[i][2] then return false end end
        return #a == #b
      end
      print(same(st, R.create_xoroshiro128p_states(100, 42)),
            same(far, R.create_xoroshiro128p_states(3, 5, {subsequence_start = 1 << 50})))]]))
  end)

  it("makes more of the jump's tables while a graph keeps the old ones, which its replays read", function()
    -- they were freed, and a graph pinned them: "attempt to free an array that a graph uses"
    assert.are.equal("true\ttrue\ttrue\n", fresh([[
      local R = gpu.random
      R.create_xoroshiro128p_states(4, 1)
      local st
      local g = gpu.graph(function() st = R.create_xoroshiro128p_states(4, 42) end)
      local want = R.create_xoroshiro128p_states(4, 42):totable()
      local more = R.create_xoroshiro128p_states(1000, 7)
      local far = R.create_xoroshiro128p_states(4, 7, {subsequence_start = 1 << 40})
      collectgarbage(); collectgarbage()
      st:fill(0); g:launch()
      local same = true
      for i, row in ipairs(st:totable()) do same = same and row[1] == want[i][1] and row[2] == want[i][2] end
      local function eq(a, b) return a[1] == b[1] and a[2] == b[2] end
      print(eq(more[{1000}]:totable(), R.create_xoroshiro128p_states(1, 7, {subsequence_start = 999})[{1}]:totable()),
            eq(far[{4}]:totable(), R.create_xoroshiro128p_states(1, 7, {subsequence_start = (1 << 40) + 3})[{1}]:totable()),
            same)]]))
  end)

  it("refuses bad arguments", function()
    local f = R.create_xoroshiro128p_states
    local function refused(pattern, ...)
      local args = table.pack(...)
      local msg = S.errof(function() local s = f(table.unpack(args, 1, args.n)); return s end)
      assert.matches(here .. ":%d+: " .. pattern, msg)
    end
    refused("bad argument #1 to 'create_xoroshiro128p_states' %(an integer expected, got 1.5%)", 1.5, 1)
    refused("bad argument #1 to 'create_xoroshiro128p_states' %(an integer expected, got string%)", "4", 1)
    refused("bad argument #1 to 'create_xoroshiro128p_states' %(a number of states must be non%-negative, got %-1%)", -1, 1)
    refused("bad argument #1 to 'create_xoroshiro128p_states' %(shape%[1%] is too large", 2^60, 1)
    refused("bad argument #2 to 'create_xoroshiro128p_states' %(an integer seed expected %(numba's from 2%^63 on are Lua's seed %- 2%^64%), got 0.5%)", 4, 0.5)
    refused("bad argument #2 to 'create_xoroshiro128p_states' %(an integer seed expected .*, got nil%)", 4)
    refused("bad argument #3 to 'create_xoroshiro128p_states' %(an options table expected, got 2%)", 4, 1, 2)
    refused("gpu.random.create_xoroshiro128p_states: unknown option 'subsequence' %(it takes subsequence_start, stream%)",
            4, 1, {subsequence = 2})
    refused("bad argument #3 to 'create_xoroshiro128p_states' %(subsequence_start must be a non%-negative integer, got %-2%)",
            4, 1, {subsequence_start = -2})
    refused("bad argument #3 to 'create_xoroshiro128p_states' %(stream must be a gpu.stream, got 5%)", 4, 1, {stream = 5})
    -- the draws are gpu.jit's: on the host, an error
    assert.matches("gpu.random.xoroshiro128p_normal_float64 draws inside gpu.jit kernels only",
                   S.errof(R.xoroshiro128p_normal_float64, R.create_xoroshiro128p_states(1, 1), 1))
  end)
end)

describe("gpu.random.xoroshiro128p_* in gpu.jit kernels", function()
  it("draw numba's numbers, the states advanced in place; a second kernel goes on from there", function()
    local s = R.create_xoroshiro128p_states(4, 1)
    local out = gpu.zeros({4, 4}, "float64")
    draws[{1, 32}](s, out)
    local got = out:totable()
    for i, want in ipairs(SEED1) do
      assert.are.equal(want[1], got[i][1])
      assert.are.equal(want[2], got[i][2])
      assert(close(got[i][3], want[3]), ("normal_float32 %d: %.17g, numba %.17g"):format(i, got[i][3], want[3]))
      assert(close(got[i][4], want[4]), ("normal_float64 %d: %.17g, numba %.17g"):format(i, got[i][4], want[4]))
    end
    -- compute_pi, one iteration: two more uniform_float32 each
    local pi = gpu.zeros(4, "float64")
    compute_pi[{1, 4}](s, 1, pi)
    assert.are.same({4, 4, 0, 4}, pi:totable())
    assert.are.same({{8909904119483077630, 1131303350817192914}, {960851433262130655, 8870692703232867604},
                     {-7618710172597259034, 5698842096301738522}, {4371859350950559653, -1811958833276759917}},
                    s:totable())
  end)

  it("have numba's distributions: pi, and the moments of 10^5 draws", function()
    local n = 256
    local s = R.create_xoroshiro128p_states(n, 3)
    local pi = gpu.zeros(n, "float64")
    compute_pi[{n // 64, 64}](s, 1000, pi)
    local est = 0
    for _, v in ipairs(pi:totable()) do est = est + v / n end
    assert(math.abs(est - math.pi) < 0.02, "pi: " .. est)
    local out = gpu.zeros({100000, 4}, "float64")
    draws[{4, 256}](R.create_xoroshiro128p_states(1000, 5), out)
    -- the moments on the host (a reduction's kernels would compile for longer than this takes)
    local h, sum, sq = out:tohost(), {0, 0, 0, 0}, {0, 0, 0, 0}
    for r = 1, 100000 do
      for k = 1, 4 do
        local x = h[(r - 1) * 4 + k]
        sum[k], sq[k] = sum[k] + x, sq[k] + x * x
        if k <= 2 then assert(x >= 0 and x < 1, "uniform out of [0, 1): " .. x) end
      end
    end
    local want = {{0.5, 1 / 12}, {0.5, 1 / 12}, {0, 1}, {0, 1}}
    for k, w in ipairs(want) do
      local mean = sum[k] / 100000
      local var = sq[k] / 100000 - mean * mean
      local se = math.sqrt(w[2] / 100000)
      assert(math.abs(mean - w[1]) < 5 * se, ("column %d: mean %.6g"):format(k, mean))
      assert(math.abs(var - w[2]) < 0.03 * w[2], ("column %d: variance %.6g"):format(k, var))
    end
  end)

  it("are gpuhost.cuh's gpu::xoroshiro128p_* (0-based) in CUDA C kernels", function()
    local k = gpu.kernel([[
extern "C" __global__ void draws(gpu::array<unsigned long long> states, gpu::array<double> out) {
  long long i = gpu::grid(1);
  if (i >= out.shape[0]) return;
  out(i, 0) = gpu::xoroshiro128p_uniform_float32(states, i);
  out(i, 1) = gpu::xoroshiro128p_uniform_float64(states, i);
  out(i, 2) = gpu::xoroshiro128p_normal_float32(states, i);
  out(i, 3) = gpu::xoroshiro128p_normal_float64(states, i);
}]], "draws")
    local s, out = R.create_xoroshiro128p_states(4, 1), gpu.zeros({5, 4}, "float64")
    k[{1, 32}](s, out)
    local a, b = gpu.zeros({4, 4}, "float64"), R.create_xoroshiro128p_states(4, 1)
    draws[{1, 32}](b, a)
    assert.are.same(a:totable(), out[{{1, 4}}]:totable())
    assert.are.same(b:totable(), s:totable())
    -- row 5: no generator 4 (0-based): NaN, nothing written
    for _, v in ipairs(out[{5}]:totable()) do assert(v ~= v) end
    -- rows that are not contiguous (a transposed 2 x 4 array), or 3 words a row: NaN, untouched
    local t = gpu.array({{1, 2, 3, 4}, {5, 6, 7, 8}}, "uint64")
    local wide = gpu.array({{1, 2, 3}, {4, 5, 6}}, "uint64")
    out:fill(0)
    k[{1, 32}](t.T, out)
    for i = 1, 4 do for _, v in ipairs(out[{i}]:totable()) do assert(v ~= v) end end
    k[{1, 32}](wide, out)
    for _, v in ipairs(out[{1}]:totable()) do assert(v ~= v) end
    assert.are.same({{1, 2, 3, 4}, {5, 6, 7, 8}}, t:totable())
    assert.are.same({{1, 2, 3}, {4, 5, 6}}, wide:totable())
  end)

  it("leave a generator out of range alone (NaN); debug reports it; a states array must be uint64", function()
    local s = R.create_xoroshiro128p_states(2, 1)
    local before = s:totable()
    local out = gpu.zeros({3, 4}, "float64")
    draws[{1, 32}](s[{{1, 1}}], out)   -- generator 1 of a view: rows 1 and 2 and 3 are its draws
    assert.are_not.same(before[1], s:totable()[1])
    assert.are.same(before[2], s:totable()[2])
    local bad = gpu.jit(function(states, out)
      local i = gpu.grid(1)
      if i <= out.size then out[i] = gpu.random.xoroshiro128p_uniform_float64(states, i + 1) end
    end, {debug = true})
    local o = gpu.zeros(2, "float64")
    local msg = S.errof(function() bad[{1, 32}](s, o) end)
    assert.matches(here .. ":%d+: kernel '[^']+': index %(3, 1%) out of range for an array of shape 2 x 2 %(block 1, thread 2%)", msg)
    msg = S.errof(function() draws[{1, 32}](gpu.zeros({4, 2}, "int64"), out) end)
    assert.matches("gpu.random.xoroshiro128p_uniform_float32's states %('states'%) must be a uint64 device array of n x 2 "
                   .. "%(gpu.random.create_xoroshiro128p_states%), got an int64 array", msg)
    local float_index = gpu.jit(function(states, out)
      out[1] = gpu.random.xoroshiro128p_normal_float32(states, 1.5)
    end)
    msg = S.errof(function() float_index[{1, 1}](s, out) end)
    assert.matches(here .. ":%d+: gpu.random.xoroshiro128p_normal_float32's index must be an integer", msg)
  end)
end)
