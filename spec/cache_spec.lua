-- The on-disk compile cache: a new process takes a compiled kernel from it; corrupt or
-- truncated entries are rebuilt. Each case runs gpuhost with its own cache directory.
local S = require("spec.support")

local function compile_in(dir, src)
  local code = ("print(gpu.kernel(%q):compile())"):format(src)
  local out, status, err = S.host("-e " .. S.quote(code), nil)
  assert.are.equal(0, status, err)
  return out
end

local function with_dir(dir, f)
  local saved = S.gpuhost
  S.gpuhost = "GPUHOST_CACHE_DIR=" .. dir .. " " .. saved
  local ok, e = pcall(f)
  S.gpuhost = saved
  os.execute("rm -rf " .. dir)
  if not ok then error(e, 0) end
end

local function entries(dir)
  local list = {}
  local p = io.popen("ls " .. dir .. " 2>/dev/null")
  for name in p:lines() do list[#list + 1] = name end
  p:close()
  return list
end

local SRC = "__global__ void cached(int *x) { x[threadIdx.x] = 7; }"

describe("the compile cache", function()
  it("is made 0700 and used by the next process", function()
    local dir = os.tmpname() .. "-cache/sub"
    with_dir(dir, function()
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", compile_in(dir, SRC))
      local files = entries(dir)
      assert.are.equal(1, #files)
      assert.matches("^%x+%.cubin$", files[1])
      assert.are.equal("700", (S.run("stat -c %a " .. dir):gsub("%s+$", "")))
      assert.are.equal("600", (S.run("stat -c %a " .. dir .. "/" .. files[1]):gsub("%s+$", "")))
      assert.matches("\tdisk\n$", compile_in(dir, SRC))
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", compile_in(dir, SRC .. " "))   -- another source
      assert.are.equal(2, #entries(dir))
    end)
  end)

  it("keys on options", function()
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      compile_in(dir, SRC)
      local code = ("print(gpu.kernel(%q, {options = {'-DX=1'}}):compile())"):format(SRC)
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", (S.host("-e " .. S.quote(code))))
      code = ("print(gpu.kernel(%q, {debug = true}):compile())"):format(SRC)
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", (S.host("-e " .. S.quote(code))))
      assert.are.equal(3, #entries(dir))
    end)
  end)

  it("rebuilds truncated and corrupt entries", function()
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      compile_in(dir, SRC)
      local file = dir .. "/" .. entries(dir)[1]
      local f = assert(io.open(file, "rb")); local good = f:read("a"); f:close()
      -- truncated
      f = assert(io.open(file, "wb")); f:write(good:sub(1, #good // 2)); f:close()
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", compile_in(dir, SRC))
      assert.matches("\tdisk\n$", compile_in(dir, SRC))
      -- one byte flipped in the middle
      local mid = #good // 2
      f = assert(io.open(file, "wb"))
      f:write(good:sub(1, mid - 1) .. string.char((good:byte(mid) + 1) % 256) .. good:sub(mid + 1))
      f:close()
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", compile_in(dir, SRC))
      assert.matches("\tdisk\n$", compile_in(dir, SRC))
      -- empty
      f = assert(io.open(file, "wb")); f:close()
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", compile_in(dir, SRC))
    end)
  end)

  it("is off with GPUHOST_CACHE_DIR=off", function()
    with_dir("off", function()
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", compile_in("off", SRC))
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", compile_in("off", SRC))
    end)
  end)

  it("is skipped within a process that has the program", function()
    local k = gpu.kernel(SRC .. "  ")
    k:compile()
    local again = gpu.kernel(SRC .. "  ")
    local _, origin = again:compile()
    assert.are.equal("memory", origin)
  end)
end)
