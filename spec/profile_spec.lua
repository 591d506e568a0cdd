-- Profiler ranges and marks (NVTX on CUDA; nothing on the CPU backend): the calls behave
-- the same everywhere, and tracing launches and copies changes no result.
local S = require("spec.support")

describe("profiler ranges", function()
  it("gpu.range calls its function with the arguments and returns its results", function()
    assert.are.same({5, "r"}, {gpu.range("add", function(a, b) return a + b, "r" end, 2, 3)})
    assert.are.same({}, {gpu.range("nothing", function() end)})
    -- a callable value (gpu.sqrt, a table with __call) was refused: "function expected"
    assert.are.same({2, 3}, gpu.range("sqrt", gpu.sqrt, gpu.array({4, 9})):totable())
    assert.are.equal(3, gpu.range("call", setmetatable({}, {__call = function(_, x) return x + 1 end}), 2))
  end)

  it("gpu.range closes the range when the function raises, and the error goes on", function()
    local ok, e = pcall(gpu.range, "fails", function() error({code = 7}) end)
    assert.is_false(ok)
    assert.are.same({code = 7}, e)
    assert.are.same({1}, {gpu.range("after", function() return 1 end)})
  end)

  -- Before, gpu.range caught the error to close the range and raised it again: an uncaught
  -- one's traceback began at gpu.range, without the frames inside it
  it("gpu.range keeps the traceback of an error raised inside it", function()
    local script = S.tmpfile("local function inner()\n  error('boom')\nend\n" ..
                             "gpu.range('r', function()\n  inner()\nend)\n")
    local _, status, err = S.host(script)
    os.remove(script)
    assert.are_not.equal(0, status)
    assert.matches(":2: boom\nstack traceback:\n", err, 1, true)
    assert.matches(":2: in upvalue 'inner'\n", err, 1, true)
    assert.matches(":5: in ", err, 1, true)   -- (f's own frame)
  end)

  -- Before, a yield inside raised "attempt to yield across a C-call boundary"
  it("gpu.range lets its function yield, as gpu.with_device does", function()
    local co = coroutine.wrap(function(x)
      return gpu.range("yields", function(y) return coroutine.yield(y + 1) * 2 end, x)
    end)
    assert.are.equal(2, co(1))
    assert.are.equal(10, co(5))
    local failing = coroutine.wrap(function()
      return pcall(gpu.range, "fails later", function() coroutine.yield() error("after") end)
    end)
    failing()
    local ok, e = failing()
    assert.is_false(ok)
    assert.matches("after", e)
  end)

  it("take names, and gpu.trace a boolean", function()
    assert.matches("bad argument #1 to 'gpu.range' (string expected, got no value)",
                   S.errof(gpu.range), 1, true)
    assert.matches("bad argument #2 to 'gpu.range' (function or callable value expected, got no value)",
                   S.errof(gpu.range, "x"), 1, true)
    assert.matches("bad argument #1 to 'gpu.mark' (string expected, got table)",
                   S.errof(gpu.mark, {}), 1, true)
    assert.matches("bad argument #1 to 'gpu.trace' (boolean expected, got number)",
                   S.errof(gpu.trace, 1), 1, true)
    gpu.range_push("pushed")
    gpu.mark("an instant")
    gpu.range_pop()
  end)

  it("name launches and copies without changing them", function()
    local k = gpu.kernel(S.VECADD)
    gpu.trace(true)
    local a = gpu.array({1, 2, 3})
    local c = gpu.zeros(3)
    k[{1, 32}](a, a, c)
    local t = c:totable()
    gpu.trace(false)
    assert.are.same({2, 4, 6}, t)
    local out, status = S.run("GPUHOST_TRACE=1 " .. S.gpuhost .. " -e " ..
      S.quote("local k = gpu.kernel([[" .. S.VECADD .. "]]) local a = gpu.ones(4) " ..
              "k[1, 4](a, a, a) print(a:totable()[4])"))
    assert.are.equal(0, status)
    assert.are.equal("2.0\n", out)
  end)

  it("refuse a GPUHOST_TRACE other than 0 or 1, as the other settings", function()
    local code = S.quote("print(pcall(function() return gpu.ones(2) + 1 end))")
    for _, v in ipairs({"yes", "2"}) do
      local out = S.run("GPUHOST_TRACE=" .. v .. " " .. S.gpuhost .. " -e " .. code)
      assert.are.equal("false\tGPUHOST_BAD_SETTING: GPUHOST_TRACE must be 1 (launches and copies are "
                       .. "named for Nsight) or 0, not '" .. v .. "'\n", out)
    end
    local out = S.run("GPUHOST_TRACE=0 " .. S.gpuhost .. " -e " .. code)
    assert.matches("^true\tgpu%.array", out)
  end)
end)
