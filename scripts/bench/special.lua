-- special.lua: gpu.special's functions on 2^24 elements (into out: no allocation), float32
-- and float64, ms a call (median of 5 rounds) and elements a second; special_cupy.py is
-- the same with cupyx.scipy.special. Run: build/gpuhost scripts/bench/special.lua (N=4096 in the
-- environment for a smaller size)
local bench = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua").bench
local S = gpu.special
local N = tonumber(os.getenv("N") or "") or 1 << 24
local rate = function(t) return ("%.1f Gelem/s"):format(N / t / 1e9) end
for _, dt in ipairs({"float32", "float64"}) do
  local x = gpu.random.uniform(0.01, 10, {N}):astype(dt)   -- positive: every function's domain
  local p = gpu.random.uniform(0.001, 0.999, {N}):astype(dt)
  local o = gpu.empty({N}, dt)
  local one = {"erf", "erfcx", "gamma", "gammaln", "digamma", "expit", "log_ndtr", "exp1", "i0e",
               "i1", "k0", "k1e", "j0", "y1", "i0", "i1e", "k0e", "k1"}
  for _, f in ipairs(one) do bench(("%s %s"):format(f, dt), function() S[f](x, {out = o}) end, 10, rate) end
  for _, f in ipairs({"erfinv", "ndtri", "logit", "erfcinv"}) do
    bench(("%s %s"):format(f, dt), function() S[f](p, {out = o}) end, 10, rate)
  end
  for _, f in ipairs({"gammainc", "gammaincc", "beta", "betaln", "xlogy", "kl_div", "zeta", "polygamma"}) do
    local a = f == "polygamma" and 2 or f == "zeta" and 3.5 or 2.5
    bench(("%s %s"):format(f, dt), function() S[f](a, x, {out = o}) end, 10, rate)
  end
  bench(("betainc %s"):format(dt), function() S.betainc(2.5, 3.5, p, {out = o}) end, 10, rate)
  local m = x:reshape({N >> 10, 1024})
  bench(("logsumexp %s rows of 1024"):format(dt), function() S.logsumexp(m, 2) end, 10, rate)
  bench(("softmax %s rows of 1024"):format(dt), function() S.softmax(m, 2) end, 10, rate)
end
