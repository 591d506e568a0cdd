-- Without a CUDA driver the first GPU call raises an error object that names what is
-- missing, and the host goes on. (Tagged: it runs only where no driver is installed.)
local S = require("spec.support")

describe("without a CUDA driver #nodriver", function()
  it("raises a clear error at the first GPU call", function()
    for _, f in ipairs({function() return gpu.zeros(4) end, gpu.device_count, gpu.device,
                        gpu.stream, gpu.event, function() return gpu.random.random(3) end}) do
      local msg, err = S.errof(f)
      assert.are.equal("GPUHOST_NO_DRIVER", err.name)
      assert.matches("libcuda.so.1", msg, 1, true)
      assert.matches("is the NVIDIA driver installed?", err.message, 1, true)
      assert.are.equal('dlopen("libcuda.so.1")', err.call)
    end
  end)

  it("still makes host arrays in plain memory", function()
    local h = gpu.host.array({1, 2})
    assert.is_false(h.pinned)
    assert.are.same({1, 2}, h:totable())
  end)

  it("concatenates and prints the error object", function()
    local _, err = S.errof(gpu.zeros, 3)
    assert.are.equal("Exception occurred: " .. tostring(err), "Exception occurred: " .. err)
    assert.matches("^GPUHOST_NO_DRIVER: ", tostring(err))
  end)
end)
