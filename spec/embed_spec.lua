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

  -- Before: the CPU backend took the program's SIGSEGV handler for good, gpuhost_open put
  -- its searcher over the program's at package.searchers[2] and gave a sandbox its dofile
  -- back, a state without the standard libraries failed at a line of gpu.lua, a misaligned
  -- buffer was lent, and gpuhost_backend() chose a backend for GPU_BACKEND=bogus; a fault
  -- of the program's own on a thread that had launched before, while another thread's
  -- kernel ran, was taken for that kernel's (the program's handler never ran; the process
  -- hung or crashed), and a launch put the CPU backend's alternate signal stack in place of
  -- the thread's own for good (under ASan the thread aborted at its end); a lent buffer with
  -- a stride of 0 was written through a view of it (a row set every element), and
  -- gpuhost_open over a package.loaded.gpu of the program's opened nothing, silently
  it("keeps the program's fault handler, searcher and sandbox, and refuses clearly", function()
    local out, status, err = S.run("env GPU_BACKEND=" .. gpu.backend() .. " build/embed_check")
    assert.are.equal(0, status, out .. err)
    assert.are.equal("embed_check: ok\n", out)
  end)
end)
