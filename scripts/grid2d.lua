-- grid2d.lua: the seed's launch configuration and thread indices: a 1-D grid where
-- idx = threadIdx.x + blockIdx.x * blockDim.x = gpu::grid(1), then a 2-D grid of 2-D blocks,
-- function[(gridX, gridY), (blockX, blockY)] written k[{gridX, gridY}, {blockX, blockY}].

local indices = gpu.kernel([[
extern "C" __global__ void indices(gpu::array<int> manual, gpu::array<int> shorthand) {
  int idx = threadIdx.x + blockIdx.x * blockDim.x;
  manual[idx] = idx;
  shorthand[gpu::grid(1)] = (int)gpu::grid(1);
}
]])
local blocks, threads = 3, 256                      -- gridDim.x = 3, blockDim.x = 256
local n = blocks * threads                           -- N = 768
local manual, shorthand = gpu.zeros(n, gpu.int32), gpu.zeros(n, gpu.int32)
indices[blocks, threads](manual, shorthand)
local m, s = manual:tohost(), shorthand:tohost()
local same = true
for i = 1, n do same = same and m[i] == i - 1 and s[i] == i - 1 end
print(("1-D: gridDim.x = %d, blockDim.x = %d, N = %d; idx covers 0..%d: %s")
      :format(blocks, threads, n, n - 1, tostring(same)))

-- 2-D: each thread writes its global (x, y) into a width x height matrix
local where = gpu.kernel([[
extern "C" __global__ void where(gpu::array<int> out, int width) {
  gpu::position p = gpu::grid(2);
  out(p.y, p.x) = (int)(p.y * 100 + p.x);
  (void)width;
}
]])
local width, height = 6, 4
local out = gpu.zeros({height, width}, gpu.int32)
local gridX, gridY, blockX, blockY = 2, 2, 3, 2
where[{gridX, gridY}, {blockX, blockY}](out, width)
print(("2-D: grid (%d, %d), block (%d, %d); out[y][x] = 100*y + x:")
      :format(gridX, gridY, blockX, blockY))
for _, row in ipairs(out:totable()) do
  local cells = {}
  for x, v in ipairs(row) do cells[x] = ("%3d"):format(v) end
  print(table.concat(cells, " "))
end
