-- Trustworthy under attack and accident (issue 8): inputs that once crashed or hung the
-- host, or gave a silently wrong result, now give a clear error or the right answer. Cases
-- that can end a process run in a child gpuhost.
local S = require("spec.support")

-- Runs a chunk in a child gpuhost on this backend; its stdout, status and stderr.
local function child(code, env)
  local f = S.tmpfile(code)
  local out, status, err = S.run("env GPU_BACKEND=" .. gpu.backend() .. " " .. (env or "") .. " " ..
                                 S.gpuhost .. " " .. f)
  os.remove(f)
  return out, status, err
end

describe("the gpuhost program", function()
  it("takes thousands of script arguments, as lua5.4 does", function()
    local f = S.tmpfile("print(select('#', ...), #arg, arg[#arg], (select(20000, ...)))\n")
    local args = {}
    for i = 1, 20000 do args[i] = tostring(i) end
    local out, status, err = S.host(f .. " " .. table.concat(args, " "))
    os.remove(f)
    assert.are.equal(0, status, err)
    assert.are.equal("20000\t20000\t20000\t20000\n", out)
  end)

  it("reads prompt lines of any length without libedit", function()
    local long = ("x"):rep(10000)
    local out, status, err = S.host("-i", ("s = '%s'\nprint(#s, s == ('x'):rep(10000))\n"):format(long))
    assert.are.equal(0, status, err)
    assert.matches("10000\ttrue\n", out, 1, true)
    assert.are.equal("", err)
  end)

  it("is not ended by a file size limit: its own writes fail softly", function()
    -- the kernel's source (200 kB of comment) is larger than the limit: on the CPU backend
    -- it cannot be written for the compiler; on CUDA the cache entry cannot be written
    local code = [[
local src = "__global__ void big(int *x) { x[0] = 1; }\n/*" .. ("x"):rep(200000) .. "*/\n"
local ok, e = pcall(function() return gpu.kernel(src):compile() end)
print("kernel", ok or tostring(e):match("^[%w_]+"))
print("alive")
]]
    local f = S.tmpfile(code)
    local dir = os.tmpname() .. "-cache"
    local out, status, err = S.run("ulimit -f 64; env GPU_BACKEND=" .. gpu.backend() ..
                                   " GPUHOST_CACHE_DIR=" .. dir .. " " .. S.gpuhost .. " " .. f)
    os.remove(f)
    local left = S.run("ls -A " .. dir)
    os.execute("rm -rf " .. dir)
    assert.are.equal(0, status, err)
    assert.matches("\nalive\n$", out)
    assert.are.equal("", left)                       -- no entry, no temporary file
    if gpu.backend() == "cpu" then
      assert.matches("^kernel\tGPUHOST_CPU_COMPILATION\n", out)
    else
      assert.matches("^kernel\ttrue\n", out)
    end
  end)

  it("refuses a GPU_BACKEND that is neither cuda nor cpu", function()
    local out, status, err = S.run("GPU_BACKEND=garbage " .. S.gpuhost .. " -e 'print(1)'")
    assert.are.equal(1, status)
    assert.are.equal("", out)
    assert.matches("GPU_BACKEND is 'garbage': it must be 'cuda', 'cpu', or unset %(the GPU " ..
                   "when there is one, else the CPU%)", err)
    out = S.run("GPU_BACKEND=" .. gpu.backend() .. " " .. S.gpuhost .. " -e 'io.write(gpu.backend())'")
    assert.are.equal(gpu.backend(), out)
  end)
end)

-- At lua_close, Lua runs finalizers newest first: a finalizer of an object made before a
-- kernel runs after the kernel's program has unloaded its module.
describe("finalization order", function()
  local LATE = [[
local t = setmetatable({}, {__gc = function()
  local ok, e = pcall(function() K[{1, 1}](7) end)
  io.write("late launch: ", tostring(e), "\n")
end})
K = gpu.kernel("__global__ void k(int x) { if (x == 8) printf(\"no\"); }")
K[{1, 1}](7)
print("ran")
]]
  local MSG = "kernel launched after its program was finalized (from a finalizer that " ..
              "ran after the program's, as at exit)"

  it("makes a launch from a late finalizer at exit raise, not use an unloaded module", function()
    local out, status, err = child(LATE)
    assert.are.equal(0, status, err)
    assert.matches("^ran\nlate launch: .-:2: " .. MSG:gsub("%p", "%%%0") .. "\n$", out)
  end)
end)
