-- The two backends give the same results: bit for bit for + - * /, conversions,
-- comparisons, integer operations and a fused expression (but for NaN payloads); the math functions within the
-- bounds CUDA's programming guide gives (a few ulp). Runs spec/data/crosscheck.lua on
-- each and compares what they print. Needs a GPU.
local S = require("spec.support")

local function run(backend)
  local out, status, err = S.run("GPU_BACKEND=" .. backend .. " " .. S.gpuhost .. " spec/data/crosscheck.lua")
  assert.are.equal(0, status, err)
  local t = {}
  for name, hex in out:gmatch("([^\t\n]+)\t(%x*)\n") do t[name] = hex end
  return t
end

local function floats(hex, size)
  local bytes = hex:gsub("%x%x", function(h) return string.char(tonumber(h, 16)) end)
  local t, fmt = {}, size == 4 and "<f" or "<d"
  for i = 1, #bytes, size do t[#t + 1] = string.unpack(fmt, bytes, i) end
  return t
end

describe("both backends #cuda", function()
  it("compute elementwise operations alike", function()
    local cpu, gpu_ = run("cpu"), run("cuda")
    local n = 0
    for name, want in pairs(cpu) do
      local got = assert(gpu_[name], name)
      if name:match("^math") then
        local size = name:match("float32") and 4 or 8
        local a, b = floats(want, size), floats(got, size)
        local tol = size == 4 and 6 * 2^-23 or 4 * 2^-52   -- CUDA's bound (4 / 2 ulp) and glibc's
        for i = 1, #a do
          local ok = (a[i] ~= a[i] and b[i] ~= b[i]) or a[i] == b[i] or
                     math.abs(a[i] - b[i]) <= tol * math.max(math.abs(a[i]), 2^-126)
          assert.is_true(ok, ("%s element %d: %.17g on the CPU, %.17g on the GPU"):format(name, i, a[i], b[i]))
        end
      elseif name:match("^float") and want ~= got then
        -- bit for bit, but for the payload of a NaN: IEEE 754 leaves it open, and x86 makes
        -- 0/0 the negative quiet NaN (0xffc00000) where an NVIDIA GPU makes 0x7fffffff
        local size = name:match("^float32") and 4 or 8
        local a, b = floats(want, size), floats(got, size)
        assert.are.equal(#a, #b, name)
        for i = 1, #a do
          local same = (a[i] ~= a[i] and b[i] ~= b[i]) or
                       string.pack(size == 4 and "<f" or "<d", a[i]) == string.pack(size == 4 and "<f" or "<d", b[i])
          assert.is_true(same, ("%s element %d: %.17g on the CPU, %.17g on the GPU"):format(name, i, a[i], b[i]))
        end
      else
        assert.are.equal(want, got, name)
      end
      n = n + 1
    end
    assert.is_true(n > 121 + 40, "only " .. n .. " results")
  end)
end)
