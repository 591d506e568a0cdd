-- grid2d_jit.lua: the seed's launch configuration and thread indices, with the kernels
-- written in Lua (the twin of grid2d.lua). In a gpu.jit kernel every index is 1-based, as
-- everywhere in Lua: gpu.threadIdx.x runs from 1 to gpu.blockDim.x, gpu.blockIdx.x from 1
-- to gpu.gridDim.x, and the seed's idx = threadIdx.x + blockIdx.x * blockDim.x becomes
-- gpu.threadIdx.x + (gpu.blockIdx.x - 1) * gpu.blockDim.x = gpu.grid(1). The kernels store
-- the 0-based ids the seed talks about (idx - 1), so this prints what grid2d.lua prints.

local indices = gpu.jit(function(manual, shorthand)
  local idx = gpu.threadIdx.x + (gpu.blockIdx.x - 1) * gpu.blockDim.x
  manual[idx] = idx - 1
  shorthand[gpu.grid(1)] = gpu.grid(1) - 1
end)
local blocks, threads = 3, 256                      -- gridDim.x = 3, blockDim.x = 256
local n = blocks * threads                           -- N = 768
local manual, shorthand = gpu.zeros(n, gpu.int32), gpu.zeros(n, gpu.int32)
indices[blocks, threads](manual, shorthand)
local m, s = manual:tohost(), shorthand:tohost()
local same = true
for i = 1, n do same = same and m[i] == i - 1 and s[i] == i - 1 end
print(("1-D: gridDim.x = %d, blockDim.x = %d, N = %d; idx covers 0..%d: %s")
      :format(blocks, threads, n, n - 1, tostring(same)))

-- 2-D: each thread writes its global (x, y), 0-based, into a width x height matrix
local where = gpu.jit(function(out, width)
  local x, y = gpu.grid(2)                          -- 1-based
  out[y][x] = (y - 1) * 100 + (x - 1)
end)
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
