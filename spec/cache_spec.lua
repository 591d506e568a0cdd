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

  -- an elementwise or reduction program of the module is named by its recipe (operation,
  -- dtypes, layout) and this build, so a new process finds it without writing its source
  -- (which reads kernels/ops/ew.cuh and red.cuh through gpu._embedded)
  it("loads the module's own programs by their recipe, without writing their source", function()
    local dir = os.tmpname() .. "-cache"
    local code = [[
local seen, raw = {}, gpu._embedded
gpu._embedded = function(name) seen[name] = true; return raw(name) end
local a = gpu.array({1, 2, 3}, "int16")
local c = (a + a):totable()
print(c[3], a:sum(), seen["kernels/ops/ew.cuh"] and "ew written" or "ew cached",
      seen["kernels/ops/red.cuh"] and "red written" or "red cached")]]
    with_dir(dir, function()
      local first = S.host("-e " .. S.quote(code))
      assert.are.equal("6\t6\tew written\tred written\n", first)
      local n = #entries(dir)
      assert.are.equal("6\t6\tew cached\tred cached\n", (S.host("-e " .. S.quote(code))))
      assert.are.equal(n, #entries(dir))
    end)
  end)

  -- over 4 KB, a source's declarations are kept too (lua/gpu.lua's parse): a template
  -- kernel in a namespace and a plain one, read back by the next process
  it("keeps a long source's declarations for the next process", function()
    local dir = os.tmpname() .. "-cache"
    local function code(pad)
      return ([[
local src = ("// padding\n"):rep(%d) .. "namespace ns { template <typename T> __global__ void " ..
  "fill(gpu::array<T> a, T v) { a[gpu::grid(1)] = v; } }\n" ..
  "__global__ void twice(float *x, int n) { int i = gpu::grid(1); if (i < n) x[i] *= 2; }\n"
local m = gpu.module(src, {names = {"ns::fill<float>"}})
local a = gpu.zeros(4)
m["ns::fill<float>"][{1, 4}](a, 3)
gpu.kernel(src, "twice")[{1, 4}](a, 4)
print(table.concat(a:totable(), " "))]]):format(pad)
    end
    with_dir(dir, function()
      assert.are.equal("6.0 6.0 6.0 6.0\n", (S.host("-e " .. S.quote(code(1)))))
      local short = #entries(dir)
      assert.are.equal("6.0 6.0 6.0 6.0\n", (S.host("-e " .. S.quote(code(400)))))
      assert.are.equal(2 * short + 1, #entries(dir))   -- its programs, and its declarations
      assert.are.equal("6.0 6.0 6.0 6.0\n", (S.host("-e " .. S.quote(code(400)))))
      assert.are.equal(2 * short + 1, #entries(dir))
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

  it("keys on each option, not on the options joined", function()
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      local code = "print(gpu.kernel(%q, {options = %s, check = false}):compile())"
      local two = code:format(SRC, "{'-DX=1', '-DY'}")
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", (S.host("-e " .. S.quote(two))))
      -- one option with a newline in it is another program (one that does not compile)
      local one = code:format(SRC, "{'-DX=1\\n-DY'}")
      assert.are_not.matches("\tdisk\n$", (S.host("-e " .. S.quote(one))))
    end)
  end)

  it("keys on where the source is written, which a failed assert names", function()
    -- before: the key was the source alone, and the #line compiled before it was the first
    -- script's, so the second script's failed assert named the first's file and line
    local code = [[local k = gpu.kernel("__global__ void f(int *x) { assert(x[0] == 1); }", {check = false})
local ok, e = pcall(function() k[{1, 1}](gpu.zeros(1, "int32")) gpu.synchronize() end)
print(ok, e.detail)]]
    local one, two = S.tmpfile(code), S.tmpfile("\n\n\n" .. code)
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      for _, script in ipairs({one, two, one, two}) do
        local out, _, err = S.host(script)
        local line = script == one and 1 or 4
        assert.matches(script:gsub("%p", "%%%0") .. ":" .. line .. ":", out .. err)
      end
    end)
    os.remove(one)
    os.remove(two)
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

  it("takes ~/.cache/gpuhost when XDG_CACHE_HOME is relative, as the XDG spec says", function()
    local dir = os.tmpname() .. "-xdg"
    local code = ("print(gpu.kernel(%q):compile())"):format(SRC)
    local g = S.gpuhost:sub(1, 1) == "/" and S.gpuhost or "$PWD/" .. S.gpuhost
    local _, status, err = S.run(("G=%s; mkdir -p %s/home && cd %s && env -u GPUHOST_CACHE_DIR "
      .. "XDG_CACHE_HOME=rel HOME=%s/home $G -e %s"):format(g, dir, dir, dir, S.quote(code)))
    local home, rel = #entries(dir .. "/home/.cache/gpuhost"), #entries(dir .. "/rel/gpuhost")
    os.execute("rm -rf " .. dir)
    assert.are.equal(0, status, err)
    assert.are.equal(1, home)
    assert.are.equal(0, rel)
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

-- The disk memo (gpu._memo in lua/gpu.lua): what gpu.jit found and wrote, and a long
-- source's declarations, kept as text in the cache and read back only whole and of the
-- right shape; anything else is a miss (found, written, read again), never an error.
describe("the disk memo", function()
  it("keeps plain data and takes back only what has the reader's shape", function()
    local code = [=[
local shape = {name = "string?", n = "integer", x = "number", on = "boolean", tags = "{string}",
               rows = {{a = "string", t = "{integer}?"}}}
local odd = "a(b)[c]:d'e--f\n\"g\\ function \0\1-2\255"
gpu._memo("spec memo", shape, {n = math.mininteger, x = 0.1, on = false, tags = {odd, ""},
                               rows = {{a = "p"}, {a = "q", t = {-3, 7}}}, left = "out"})
local m = gpu._memo("spec memo", shape)
print(m.name, m.n == math.mininteger, math.type(m.x), m.x == 0.1, m.on, m.tags[1] == odd, #m.tags,
      m.rows[2].t[1], m.rows[1].t, m.left)
for _, x in ipairs({1 / 0, -1 / 0, -0.0, 2 ^ 63}) do
  gpu._memo("spec memo", {x = "number"}, {x = x})
  io.write(tostring(gpu._memo("spec memo", {x = "number"}).x), " ")
end
gpu._memo("spec memo", {x = "number"}, {x = 0 / 0})
local nan = gpu._memo("spec memo", {x = "number"}).x
print(nan ~= nan)
local bad = {'return {tags = {1}, n = 1, x = 1, on = true, rows = {}}',          -- a number for a string
             'return {tags = {}, n = 1.5, x = 1, on = true, rows = {}}',         -- a float for an integer
             'return {tags = {}, n = 1, x = 1, on = true, rows = {5}}',          -- a number for a record
             'return {tags = {}, n = 1, x = 1, on = true, rows = {{a = "p", t = {"q"}}}}',
             'return {tags = 5, n = 1, x = 1, on = true, rows = {}}',
             'return {tags = {}, n = 1, x = 1, on = true}',                      -- a field missing
             'return {tags = {}, n = 1, x = 1, on = true, rows = {}',            -- truncated
             'return 5', 'return nil', '', 'return {tags = {}, n = 1, x = 1, on = true, rows = {}} -- note',
             'while true do end return {}',
             'return {tags = {}, n = (function() while true do end end)(), x = 1, on = true, rows = {}}',
             'return {tags = {("x"):rep(2^40)}, n = 1, x = 1, on = true, rows = {}}',
             'return setmetatable({}, {__index = function() while true do end end})'}
for i, text in ipairs(bad) do
  gpu._jit_memo("spec memo", text)
  io.write(gpu._memo("spec memo", shape) == nil and "miss " or "HIT " .. i .. " ")
end
gpu._jit_memo("spec memo", 'return {tags = {}, n = -1, x = -1e9999, on = true, rows = {}}')
print(gpu._memo("spec memo", shape).x)
print(select(2, pcall(gpu._memo, "spec memo", shape, {tags = {}, n = 1, x = 1, on = "yes", rows = {}})))
print(select(2, pcall(gpu._memo, "spec memo", shape, {tags = {}, x = 1, on = true, rows = {}})))]=]
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      local out, status, err = S.run("timeout 60 env " .. S.gpuhost .. " -e " .. S.quote(code))
      assert.are.equal(0, status, err)
      assert.are.equal("nil\ttrue\tfloat\ttrue\tfalse\ttrue\t2\t-3\tnil\tnil\n" ..
                       "inf -inf -0.0 9.2233720368548e+18 true\n" ..
                       ("miss "):rep(15) .. "-inf\n" ..
                       "gpu._memo: string where the shape has boolean\ngpu._memo: nil where the shape has integer\n", out)
    end)
  end)

  -- Each case makes one kind of entry bad just before gpuhost reads it (the script's
  -- prelude wraps gpu._jit_memo; arg[1], the key's start; arg[2], a function of the good
  -- text): a run prints what the kernels computed and whether that entry was written (a
  -- miss); then a run without harm finds it again. One script file: the finder's key
  -- holds its name.
  local SCRIPT = [[
local raw, wrote, prefix = gpu._jit_memo, false, arg[1]
local bad = arg[2] and assert(load("return " .. arg[2]))()
gpu._jit_memo = function(key, value)
  if key:sub(1, #prefix) == prefix then
    if value then wrote = true
    elseif bad and raw(key) then
      local good = raw(key)
      local worse = bad(good)
      assert(worse ~= good, "the entry did not change")
      raw(key, worse)
    end
  end
  return raw(key, value)
end
local src = ("// padding\n"):rep(400) ..
  "__global__ void twice(float *x, int n) { int i = gpu::grid(1); if (i < n) x[i] *= 2; }\n"
local k = gpu.jit(function(y, v)
  local i = gpu.grid(1)
  y[i] = y[i] + v
end)
local y = gpu.arange(4, "float32")
k[{1, 4}](y, 1)
gpu.kernel(src, "twice")[{1, 4}](y, 4)
print(table.concat(y:totable(), " "), wrote)
]]
  local function run(script, prefix, bad)
    local out, status, err = S.run(("timeout 60 env %s %s %s %s"):format(S.gpuhost, S.quote(script),
                                   S.quote(prefix), bad and S.quote(bad) or ""))
    assert.are.equal(0, status, err)
    return out
  end
  local HARMS = {
    "function(t) return t:sub(1, #t // 2) end",
    "function(t) return 'return ' .. ('%q'):format(t) end",
    "function(t) return 'local t = {} while true do end return t' end",
    "function(t) return 'return setmetatable({}, {__index = function() while true do end end})' end",
  }
  it("takes a corrupt entry of any kind for a miss", function()
    local dir, script = os.tmpname() .. "-cache", S.tmpfile(SCRIPT)
    with_dir(dir, function()
      local want = "2.0 4.0 6.0 8.0\t"
      assert.are.equal(want .. "true\n", run(script, "gpuhost-jit 2\n"))     -- first: made and kept
      for _, kind in ipairs({
        {"gpuhost-jit-find 2\n", "function(t) return (t:gsub('free = %b{}', 'free = {1}')) end"},
        {"gpuhost-jit 2\n", "function(t) return (t:gsub('hidden = %b{}', 'hidden = 5')) end"},
        {"gpuhost-declarations 4\n", "function(t) return (t:gsub('params = \"[^\"]*\"', 'params = 3')) end"}}) do
        local prefix = kind[1]
        assert.are.equal(want .. "false\n", run(script, prefix), prefix)         -- found
        for _, bad in ipairs({kind[2], table.unpack(HARMS)}) do
          assert.are.equal(want .. "true\n", run(script, prefix, bad), prefix .. bad)   -- a miss, kept again
        end
        assert.are.equal(want .. "false\n", run(script, prefix), prefix)
      end
    end)
    os.remove(script)
  end)
end)

-- What is loaded from the cache runs as you: nobody else may be able to put it there.
describe("the compile cache's trust", function()
  local function compile_err(dir, src, prefix)
    local code = ("print(gpu.kernel(%q):compile())"):format(src or SRC)
    return S.run((prefix or "") .. "env GPU_BACKEND=" .. gpu.backend() .. " GPUHOST_CACHE_DIR=" .. dir .. " " .. S.gpuhost .. " -e " .. S.quote(code))
  end
  local C = S.compiler():gsub("%p", "%%%0")

  it("refuses a directory that others may write in, with one warning, and compiles afresh", function()
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      compile_in(dir, SRC)
      local planted = entries(dir)[1]
      os.execute("chmod 0777 " .. dir)
      local out, status, err = compile_err(dir)
      assert.are.equal(0, status, err)
      assert.matches("\t" .. C .. "\n$", out)        -- not "disk": the entry was not read
      local _, lines = err:gsub("\n", "")
      assert.are.equal(1, lines, err)
      assert.matches("^gpuhost: not using the compile cache " .. dir:gsub("%p", "%%%0") ..
                     ": its mode is 0777 %(group or others may write in it%); it must be yours " ..
                     "and writable by nobody else %(kernels are compiled afresh%)\n$", err)
      assert.are.same({planted}, entries(dir))       -- and nothing was written there
      os.execute("chmod 0750 " .. dir)               -- group-readable is fine
      out, status, err = compile_err(dir)
      assert.matches("\tdisk\n$", out)
      assert.are.equal("", err)
    end)
  end)

  it("refuses entries that are links, others' to write, FIFOs or too large, without reading them", function()
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      compile_in(dir, SRC)
      local file = dir .. "/" .. entries(dir)[1]
      local keep = os.tmpname()
      os.execute(("cp -p %s %s"):format(file, keep))
      local function fresh(setup)
        os.execute(setup)
        local out, status, err = compile_err(dir, nil, "timeout 60 ")
        assert.are.equal(0, status, setup .. ": " .. err)
        assert.matches("\t" .. C .. "\n$", out, setup)
        assert.are.equal("", err)
        assert.matches("\tdisk\n$", compile_in(dir, SRC), setup)   -- rebuilt in place, sound
      end
      fresh(("chmod 0666 %s"):format(file))
      fresh(("rm %s && ln -s %s %s"):format(file, keep, file))
      fresh(("rm %s && mkfifo %s"):format(file, file))             -- would block in open
      fresh(("rm %s && truncate -s 8G %s"):format(file, file))     -- would read 8 GiB
      -- a sparse file of a plausible size (it was read: 400 MB of memory)
      fresh(("rm %s && truncate -s 400M %s"):format(file, file))
      os.execute(("rm %s && truncate -s 400M %s"):format(file, file))
      local peak = ("print(gpu.kernel(%q):compile()) print(io.open('/proc/self/status'):read('a')" ..
                    ":match('VmHWM:%%s*(%%d+) kB'))"):format(SRC)
      local out = S.host("-e " .. S.quote(peak))
      assert.is_true(tonumber(out:match("\n(%d+)\n$")) < 200 * 1024, out)
      fresh(("rm %s"):format(file))
      for n = 1, 7 do fresh(("head -c %d %s > %s.x && mv %s.x %s"):format(n, keep, file, file, file)) end
      os.remove(keep)
    end)
  end)

  it("takes a GPUHOST_CACHE_DIR of any length, and says why when it cannot make one", function()
    local dir = os.tmpname() .. "-cache"
    local long = dir .. ("/" .. ("d"):rep(99)):rep(10)
    assert.is_true(#long > 1000)
    with_dir(long, function()
      assert.matches("\t" .. C .. "\n$", compile_in(long, SRC))
      assert.matches("^%x+%.cubin$", entries(long)[1])
      assert.matches("\tdisk\n$", compile_in(long, SRC))
    end)
    os.execute("rm -rf " .. dir)
    -- one that cannot be made is not used, and says why
    local out, status, err = compile_err(dir .. "/" .. ("n"):rep(300))
    assert.are.equal(0, status, err)
    assert.matches("\t" .. C .. "\n$", out)
    assert.matches("^gpuhost: not using the compile cache .*: File name too long %(kernels are " ..
                   "compiled afresh%)\n$", err)
  end)

  it("survives a file size limit (ulimit -f) while writing an entry", function()
    local dir = os.tmpname() .. "-cache"
    with_dir(dir, function()
      -- the key holds a source of 90 kB (a comment) and an option of 110 kB (an argument's
      -- limit is 128 KiB), so the entry (over 200 kB) is larger than the limit (100 KiB in
      -- dash's 512-byte blocks, 200 in bash's kibibytes), while each file the compile
      -- writes fits: the source, the library, the prelude's headers (cpu.h, near 50 kB)
      local code = ("print(gpu.kernel(%q .. '\\n// ' .. ('x'):rep(90000) .. '\\n', "
                    .. "{options = {'-DPAD=' .. ('x'):rep(110000)}}):compile())"):format(SRC)
      local out, status, err = S.run("ulimit -f 200; GPUHOST_CACHE_DIR=" .. dir .. " " .. S.gpuhost ..
                                     " -e " .. S.quote(code))
      assert.are.equal(0, status, err)
      assert.matches("\t" .. C .. "\n$", out)
      -- neither the program's entry nor the source's declarations (keyed by the source and
      -- the -D options since they decide its #if branches: over the limit too) is kept,
      -- and no temporary file is left
      assert.are.same({}, entries(dir))
    end)
  end)
end)

-- A real second user (as root, with setpriv): test.sh leaves these out where that cannot be.
describe("the compile cache and another user #seconduid", function()
  local NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups "
  local function compile_as(prefix, dir)
    local code = ("print(gpu.kernel(%q):compile())"):format(SRC)
    return S.run(prefix .. "env GPU_BACKEND=" .. gpu.backend() .. " GPUHOST_CACHE_DIR=" .. dir .. " " .. S.gpuhost .. " -e " .. S.quote(code))
  end

  it("keys entries by user and refuses a directory another user owns", function()
    local theirs, mine = os.tmpname() .. "-theirs", os.tmpname() .. "-mine"
    finally(function() os.execute("rm -rf " .. theirs .. " " .. mine) end)
    do
      local out, status, err = compile_as(NOBODY, theirs)   -- the other user's own cache
      assert.are.equal(0, status, err)
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", out)
      assert.are.equal("65534", (S.run("stat -c %u " .. theirs):gsub("%s+$", "")))
      assert.are.equal(1, #entries(theirs))
      compile_as("", mine)
      assert.are.equal(1, #entries(mine))
      assert.are_not.equal(entries(theirs)[1], entries(mine)[1])  -- the key has the uid
      -- their directory, even with an entry under my name, is refused
      os.execute(("cp %s/* %s/ && chmod 0755 %s"):format(mine, theirs, theirs))
      out, status, err = compile_as("", theirs)
      assert.are.equal(0, status, err)
      assert.matches("\t" .. S.compiler():gsub("%p", "%%%0") .. "\n$", out)
      assert.matches("not using the compile cache .*: it belongs to uid 65534, not to you %(uid 0%)", err)
    end
  end)

  it("reads a directory it cannot write in, and says once that what it compiles is not kept", function()
    local dir = os.tmpname() .. "-readonly"
    finally(function() os.execute("rm -rf " .. dir) end)
    local _, status, err = compile_as(NOBODY, dir)
    assert.are.equal(0, status, err)
    os.execute("chmod 0500 " .. dir)
    local out
    out, status, err = compile_as(NOBODY, dir)
    assert.are.equal(0, status, err)
    assert.matches("\tdisk\n$", out)
    assert.are.equal("", err)
    local code = ("print(gpu.kernel(%q):compile()) print(gpu.kernel(%q):compile())"):format(SRC .. " ", SRC .. "  ")
    out, status, err = S.run(NOBODY .. "env GPU_BACKEND=" .. gpu.backend() .. " GPUHOST_CACHE_DIR=" .. dir
                             .. " " .. S.gpuhost .. " -e " .. S.quote(code))
    assert.are.equal(0, status, err)
    assert.are.equal("gpuhost: cannot write in the compile cache " .. dir .. ": Permission denied "
                     .. "(kernels compiled now are not kept)\n", err)
  end)
end)
