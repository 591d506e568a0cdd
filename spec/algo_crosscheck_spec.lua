-- The two backends give the same results for issue 11's algorithms: sorts, unique, random
-- integers, permutations, choices, gpu::philox and integer reductions and scans bit for
-- bit; float reductions, scans, products and FFTs within a few units in the last place
-- of their size (the backends split the work differently). Runs
-- spec/data/algo_crosscheck.lua on each and compares what they print. Needs a GPU.
local S = require("spec.support")

local function run(backend)
  local out, status, err = S.run("GPU_BACKEND=" .. backend .. " " .. S.gpuhost .. " spec/data/algo_crosscheck.lua")
  assert.are.equal(0, status, err)
  local t = {}
  for name, how, hex in out:gmatch("([^\t\n]+)\t(%w+)\t(%x*)\n") do t[name] = {how, hex} end
  return t
end

local function floats(hex, size)
  local bytes = hex:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
  local t, fmt = {}, size == 4 and "<f" or "<d"
  for i = 1, #bytes, size do t[#t + 1] = string.unpack(fmt, bytes, i) end
  return t
end

describe("both backends #cuda", function()
  it("compute issue 11's algorithms alike", function()
    local cpu, gpu_ = run("cpu"), run("cuda")
    local n = 0
    for name, want in pairs(cpu) do
      local got = assert(gpu_[name], name)
      if want[1] == "exact" then
        assert.are.equal(want[2], got[2], name)
      else
        local size = want[1] == "f32" and 4 or 8
        local a, b = floats(want[2], size), floats(got[2], size)
        assert.are.equal(#a, #b, name)
        local scale = 0
        for i = 1, #a do scale = math.max(scale, math.abs(a[i])) end
        local tol = (size == 4 and 2^-12 or 2^-36) * math.max(scale, 1)   -- float32 scans and FFTs round differently
        for i = 1, #a do
          assert.is_true(math.abs(a[i] - b[i]) <= tol,
                         ("%s element %d: %.17g on the CPU, %.17g on the GPU"):format(name, i, a[i], b[i]))
        end
      end
      n = n + 1
    end
    assert.is_true(n >= 30, "only " .. n .. " results")
  end)
end)
