-- memory_jit.lua: the seed's "Memory in GPU computing", with its kernel written in Lua (the
-- twin of memory.lua): arrays made on the GPU, explicit copies between host and device, and
-- the rule that data is never copied behind your back.

-- a 1024 x 1024 matrix of zeros on the GPU; float32 when no dtype is given
local A_device = gpu.zeros({1024, 1024})
print("A_device", A_device.dtype, table.concat(A_device.shape, " x "))
-- 2^20 random doubles on the GPU
local B_device = gpu.random.random(2^20, gpu.float64)
print("B_device", B_device.dtype, B_device.size)
-- zeros with the shape and dtype of an existing array
local C_device = gpu.zeros_like(A_device)
print("C_device", C_device.dtype, table.concat(C_device.shape, " x "))

-- host -> device: cp.array(A_host)
local A_host = gpu.host.zeros({1024, 1024})       -- host memory
local A_dev2 = gpu.array(A_host)                  -- H->D copy
print("copied to the device:", A_dev2)

-- device -> host: cp.asnumpy(B_device)
local B_dev = gpu.random.random({1024, 1024})     -- GPU memory
local B_host = B_dev:tohost()                     -- D->H copy
print("copied to the host:", B_host)
local inside = true
for i = 1, #B_host do
  if B_host[i] < 0 or B_host[i] >= 1 then inside = false end
end
print("all values in [0, 1):", inside)

-- an array lives on one side only; using it on the other side is an error
local twice = gpu.jit(function(x) local i = gpu.grid(1); x[i] = 2 * x[i] end)
local k = twice
local ok, err = pcall(function() k[4, 256](B_host) end)
print("host array to a kernel ->", ok, err)
ok, err = pcall(function() return B_dev[1] end)
print("device array read from Lua ->", ok, err)
ok, err = pcall(gpu.host.array, B_dev)
print("device array where host data is expected ->", ok, err)
