-- signature.lua: how long reading a kernel's declarations takes as a source grows by
-- #define lines (lua/signature.lua; it must grow linearly). Nothing is compiled: gpu.kernel
-- only reads the source until the first launch.
--   build/gpuhost scripts/bench/signature.lua
for _, n in ipairs({1000, 4000, 16000, 64000}) do
  local src = {}
  for i = 1, n do src[i] = ("#define D%d %d"):format(i, i) end
  src[#src + 1] = ("__global__ void k%d(int *x) { x[0] = D1; }"):format(n)
  local text = table.concat(src, "\n")
  local t0 = gpu.clock()
  gpu.kernel(text)
  local t = gpu.clock() - t0
  print(("%6d #define lines (%7d bytes): %8.2f ms, %6.3f us a line"):format(n, #text, t * 1e3, t * 1e6 / n))
end
