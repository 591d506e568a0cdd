-- vecadd_jit.lua: the seed's "Putting it all together", with the kernel written in Lua as
-- the seed writes it in Python (@cuda.jit). The twin of vecadd.lua, whose kernel is CUDA C.
-- Indices are 1-based: gpu.grid(1) is 1 for the first thread; the threads past the end of
-- the arrays read 0 and their writes are dropped, so there is no `if i <= n`.
local vecadd = gpu.jit(function(A, B, C)
  local work_index = gpu.grid(1)
  C[work_index] = A[work_index] + B[work_index]
end)

local vector_size = 2^24 + 11          -- not a power of two, not a multiple of block_size
local device = gpu.device()

-- inputs made on the GPU (random float32) and the output (zeros)
local a = gpu.random.uniform(-1, 1, vector_size)
local b = gpu.random.uniform(-1, 1, vector_size)
local c = gpu.zeros_like(a)

local block_size = 256
local grid_size = math.ceil(vector_size / block_size)
vecadd[grid_size, block_size](a, b, c)   -- compiled here, for three float32 arrays

-- good practice; the copies below would wait for the kernel anyway
device:synchronize()

-- copy the three arrays back to check the GPU's answer on the CPU
local a_h, b_h, c_h = a:tohost(), b:tohost(), c:tohost()
for i = 1, #c_h do
  local expected = a_h[i] + b_h[i]
  if math.abs(c_h[i] - expected) >= 1.5e-6 then   -- numpy's assert_array_almost_equal
    error(("Arrays are not almost equal at element %d: %g vs %g"):format(i, c_h[i], expected))
  end
end
print("Test succeeded")
