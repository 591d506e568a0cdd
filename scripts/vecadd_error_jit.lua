-- vecadd_error_jit.lua: the seed's error check, with the kernel written in Lua (the twin of
-- vecadd_error.lua). A block of 2048 threads is more than any GPU allows, so the launch
-- fails; the CUDA error is a Lua error that pcall catches.
local vecadd = gpu.jit(function(A, B, C)
  local work_index = gpu.grid(1)
  C[work_index] = A[work_index] + B[work_index]
end)

local ok, e = pcall(function()
  local vector_size = 2^24 + 11
  local device = gpu.device()
  local a = gpu.random.uniform(-1, 1, vector_size)
  local b = gpu.random.uniform(-1, 1, vector_size)
  local c = gpu.zeros_like(a)
  local block_size = 2048                         -- too large for any GPU
  local grid_size = math.ceil(vector_size / block_size)
  vecadd[grid_size, block_size](a, b, c)          -- error: invalid block size
  device:synchronize()
  print("Test did not encounter any errors")
end)
if not ok then print("Exception occurred: " .. e) end
