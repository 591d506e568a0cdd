-- Without a CUDA driver, GPU_BACKEND=cuda makes the first GPU call raise an error object
-- that names what is missing, and the host goes on; without GPU_BACKEND the CPU backend
-- takes over, saying so once. (Tagged: it runs only where no driver is installed.)
local S = require("spec.support")

local function cuda(code)
  return S.run("GPU_BACKEND=cuda " .. S.gpuhost .. " -e " .. S.quote(code))
end

describe("without a CUDA driver #nodriver", function()
  it("raises a clear error at the first GPU call under GPU_BACKEND=cuda", function()
    for _, call in ipairs({"gpu.zeros(4)", "gpu.device_count()", "gpu.device()", "gpu.stream()",
                           "gpu.event()", "gpu.random.random(3)"}) do
      local out = cuda(([[
local ok, e = pcall(function() return %s end)
print(ok, e.name, e.call)
print(e.message)
print(gpu.host.array({1, 2}):totable()[2], gpu.host.array({1}).pinned)]]):format(call))
      assert.matches('^false\tGPUHOST_NO_DRIVER\tdlopen%("libcuda.so.1"%)\n', out)
      assert.matches("libcuda.so.1", out, 1, true)
      assert.matches("is the NVIDIA driver installed?", out, 1, true)
      assert.matches("\n2%.0\tfalse\n$", out)   -- host arrays in plain memory, and the host goes on
    end
  end)

  it("concatenates and prints the error object", function()
    local out = cuda([[local _, e = pcall(gpu.zeros, 3) print("Exception occurred: " .. e) print(tostring(e) == e.name .. ": " .. e.message)]])
    assert.matches("^Exception occurred: GPUHOST_NO_DRIVER: the CUDA driver library", out)
    assert.matches("\ntrue\n$", out)
  end)

  it("runs kernels on the CPU backend otherwise, saying so on stderr", function()
    local out, status, err = S.run("env -u GPU_BACKEND " .. S.gpuhost .. " -e 'print(gpu.backend(), gpu.ones(2):totable()[2])'")
    assert.are.equal(0, status)
    assert.are.equal("cpu\t1.0\n", out)
    assert.matches("no CUDA driver %(libcuda.so.1%); kernels run on the CPU backend", err)
  end)
end)
