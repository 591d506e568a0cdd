-- The C API for programs that embed gpuhost (host/gpuhost.h): build/embed_example lends a
-- buffer of its own to a script, which scales it with a kernel on the program's stream;
-- the program reads an array the script made and checks everything (scripts/embed/embed.c).
local S = require("spec.support")

describe("a C program embedding gpuhost", function()
  it("lends its buffer and stream to a script and reads the script's arrays", function()
    local out, status, err = S.run("env GPU_BACKEND=" .. gpu.backend() .. " build/embed_example")
    assert.are.equal(0, status, out .. err)
    assert.are.equal("embed: ok (" .. gpu.backend() .. ")\n", out)
  end)
end)
