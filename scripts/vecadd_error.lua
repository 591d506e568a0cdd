-- vecadd_error.lua: the seed's error check. A block of 2048 threads is more than any GPU
-- allows, so the launch fails; the CUDA error is a Lua error that pcall catches.
local vecadd = gpu.kernel([[
extern "C" __global__ void vecadd(gpu::array<float> A, gpu::array<float> B, gpu::array<float> C) {
  long long work_index = gpu::grid(1);
  C[work_index] = A[work_index] + B[work_index];
}
]])

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
