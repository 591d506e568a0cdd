-- The gpuhost program: command line, scripts, errors, the prompt.
local S = require("spec.support")

describe("gpuhost", function()
  it("runs -e", function()
    local out, status = S.host("-e 'print(1 + 1)'")
    assert.are.equal("2\n", out)
    assert.are.equal(0, status)
  end)

  it("sets arg as lua5.4 does", function()
    local f = S.tmpfile("print(#arg, arg[0] ~= nil, arg[1], arg[2], arg[-1] ~= nil)\nprint(...)\n")
    local out = S.host(f .. " one two")
    os.remove(f)
    assert.are.equal("2\ttrue\tone\ttwo\ttrue\none\ttwo\n", out)
  end)

  it("sets arg as lua5.4 does without a script: the program at 0, options after it", function()
    local out = S.host("-e 'print(arg[0], arg[1], arg[2] ~= nil, arg[-1], #arg)'")
    assert.are.equal(S.gpuhost .. "\t-e\ttrue\tnil\t2\n", out)
    out = S.host("--", "print(arg[0], arg[1], arg[-1])\n")
    assert.are.equal(S.gpuhost .. "\t--\tnil\n", out)
  end)

  it("skips a first line starting with #", function()
    local f = S.tmpfile("#!/usr/bin/env gpuhost\nprint(debug.getinfo(1, 'l').currentline)\n")
    local out = S.host(f)
    os.remove(f)
    assert.are.equal("2\n", out)
  end)

  it("skips a UTF-8 byte order mark, then a # line, as lua5.4 does", function()
    local f = S.tmpfile("\239\187\191#!/usr/bin/env gpuhost\nprint(debug.getinfo(1, 'l').currentline)\n")
    local out, status, err = S.host(f)
    os.remove(f)
    assert.are.equal(0, status, err)
    assert.are.equal("2\n", out)
  end)

  it("loads a binary chunk after a # line, as lua5.4 (the newline kept made it text)", function()
    local f = S.tmpfile("#!/x\n" .. string.dump(load("print('binary chunk')")))
    local out, status = S.host(f)
    os.remove(f)
    assert.are.same({"binary chunk\n", 0}, {out, status})
  end)

  it("names the user's bracket when a line read as the launch spelling is unfinished", function()
    local _, _, err = S.host("-e 'x = a[1, 2'")
    local _, _, err2 = S.host("-e 't = {a[1, 2]'")
    assert.matches("(command line):1: ']' expected near <eof>", err, 1, true)   -- it said '}'
    assert.matches("(command line):1: '}' expected near <eof>", err2, 1, true)  -- the user's own
  end)

  it("takes --cpu more than once, as lua5.4 takes -W twice", function()
    local out, status = S.host("--cpu --cpu -e 'print(gpu.backend(), #arg)'")
    assert.are.same({"cpu\t2\n", 0}, {out, status})   -- arg: -e and its code
  end)

  it("passes the script arg[1] .. arg[#arg], nils and __len as lua5.4's", function()
    local f = S.tmpfile("print(select('#', ...), ...)\n")
    local out = S.host("-e 'arg[2] = nil' " .. f .. " a b c")
    local out2 = S.host("-e 'setmetatable(arg, {__len = function() return 3 end})' " .. f .. " a")
    os.remove(f)
    assert.are.same({"3\ta\tnil\tc\n", "3\ta\tnil\tnil\n"}, {out, out2})
  end)

  it("finds Lua modules with package and package.searchpath as they were, as lua5.4's searcher", function()
    local dir = os.tmpname() .. "-mods"
    os.execute("mkdir -p " .. dir)
    local m = io.open(dir .. "/host_spec_mod.lua", "w")
    m:write("return 'found'\n")
    m:close()
    local out = S.host("-e 'package.path = \"" .. dir .. "/?.lua\"; package.searchpath = nil; " ..
                       "local r = require \"host_spec_mod\"; package = nil; print(r)'")
    local out2 = S.host("-e 'package.path = nil; print(select(2, pcall(require, \"host_spec_none\")))'")
    os.execute("rm -rf " .. dir)
    assert.are.same({"found\n", "'package.path' must be a string\n"}, {out, out2})
  end)

  it("says why a script cannot be read", function()
    local dir = os.tmpname() .. "-dir"
    os.execute("mkdir " .. dir)
    local _, status, err = S.host(dir)
    os.execute("rmdir " .. dir)
    assert.are.equal(1, status)
    assert.matches("cannot read " .. dir .. ": Is a directory", err, 1, true)
  end)

  it("reads the script from stdin with -", function()
    local out = S.host("-", "print('from stdin')\n")
    assert.are.equal("from stdin\n", out)
  end)

  it("requires modules with -l", function()
    local out = S.host("-l string -e 'print(type(string.format))'")
    assert.are.equal("function\n", out)
  end)

  it("prints its version with -v", function()
    local out = S.host("-v")
    assert.matches("^gpuhost %S+ %(Lua 5%.4", out)
  end)

  it("has gpu as a global and from require", function()
    local out = S.host("-e 'print(type(gpu), require(\"gpu\") == gpu)'")
    assert.are.equal("table\ttrue\n", out)
  end)

  it("reports an uncaught error with a traceback and status 1", function()
    local f = S.tmpfile("local function f() error('boom') end\nf()\n")
    local out, status, err = S.host(f)
    os.remove(f)
    assert.are.equal("", out)
    assert.are.equal(1, status)
    assert.matches(":1: boom", err, 1, true)
    assert.matches("stack traceback:", err, 1, true)
  end)

  it("prints error objects through __tostring", function()
    local out, status, err = S.host([[-e 'error(setmetatable({}, {__tostring = function() return "custom!" end}))']])
    assert.are.equal(1, status)
    assert.matches("custom!", err, 1, true)
  end)

  it("rejects unknown options", function()
    local _, status, err = S.host("-z")
    assert.are.equal(1, status)
    assert.matches("unrecognized option '-z'", err, 1, true)
  end)

  it("does not touch CUDA unless asked", function()
    local out = S.host([[-e 'for l in io.lines("/proc/self/maps") do if l:find("libcuda") or l:find("libnvrtc") then print(l) end end']])
    assert.are.equal("", out)
  end)

  it("is an interactive prompt with -i", function()
    local out = S.host("-i", "1 + 1\nt = {\n3,\n4 }\nprint(#t)\nx = 5\nx, 'y'\n")
    assert.matches("> 2\n", out, 1, true)
    assert.matches("> >> >> > 2\n", out, 1, true)   -- a statement over three lines
    assert.matches("5\ty\n", out, 1, true)
  end)

  it("keeps the prompt alive after an error", function()
    local out, _, err = S.host("-i", "error('oops')\nprint('still here')\n")
    assert.matches("oops", err, 1, true)
    assert.matches("still here", out, 1, true)
  end)

  it("reads =expr at the prompt as return expr, as lua5.4 does", function()
    local out, _, err = S.host("-i", "=1 + 1\n= 'a', 3\n=1 +\n2\n")
    assert.are.equal("", err)
    assert.matches("> 2\n> a\t3\n> >> 3\n", out, 1, true)   -- (=1 + on two lines, as lua5.4's)
  end)

  it("reads a line holding a zero byte as one line, the next line after it", function()
    local out, _, err = S.host("-i", "x = 1 --\0junk\nprint('second')\nprint('third')\n")
    assert.are.equal("", err)
    assert.matches("second\n", out, 1, true)
    assert.matches("third\n", out, 1, true)
  end)

  it("keeps a zero byte in a line read as an expression, or with '=', as in a statement", function()
    local out, _, err = S.host("-i", 'return #"a\0b"\n#"a\0b"\n=#"a\0b"\nprint(1)\n')
    assert.are.equal("", err)
    assert.matches("> 3\n> 3\n> 3\n> 1\n", out, 1, true)
  end)

  it("says 'arg' is not a table when a script's arg was taken away, as lua5.4", function()
    local f = S.tmpfile("print('ran')\n")
    local out, status, err = S.host("-e 'arg = nil' " .. f .. " a")
    os.remove(f)
    assert.are.equal("", out)
    assert.are.equal(1, status)
    assert.matches("'arg' is not a table", err, 1, true)
  end)

  it("says why a statement left unfinished at the end of input fails", function()
    local _, status, err = S.host("-i", "print(1,\n")
    assert.are.equal(0, status)
    assert.are.equal("stdin:1: unexpected symbol near <eof>\n", err)
  end)

  it("keeps the prompt when _PROMPT cannot be made a string", function()
    local out, status, err = S.host("-i", "_PROMPT = setmetatable({}, {__tostring = function() error('no') end})\n"
                                    .. "print(40 + 2)\n")
    assert.are.equal(0, status)
    assert.matches("42\n", out, 1, true)
    assert.matches("_PROMPT cannot be shown (stdin:1: no)", err, 1, true)
  end)

  it("prints the prompt's messages without a program name", function()
    local _, _, err = S.host("-i", "print = nil\n1\n")
    assert.are.equal("error calling 'print' (attempt to call a nil value)\n", err)
  end)

  it("reads the launch spelling at the prompt", function()
    local out = S.host("-i", "k = setmetatable({}, {__index = function(_, c) return function() return c[1] + c[2] end end})\nk[3, 4]()\n")
    assert.matches("\n?7\n", out)
  end)

  it("stops a running chunk on Ctrl-C", function()
    local _, status, err = S.run("sh -c '" .. S.gpuhost .. " -e \"while true do end\" & pid=$!; sleep 0.5; kill -INT $pid; wait $pid'")
    assert.are.equal(1, status)
    assert.matches("interrupted!", err, 1, true)
  end)

  it("stops a blocking read on Ctrl-C at once, as lua5.4", function()
    -- stdin stays open, empty, for 5 s: "early" says gpuhost ended before that
    local fifo = os.tmpname()
    os.remove(fifo)
    local out, status, err = S.run("sh -c 'mkfifo " .. fifo .. "; sleep 5 > " .. fifo .. " & w=$!; "
      .. S.gpuhost .. " -e \"print(1, io.read())\" < " .. fifo .. " & pid=$!; sleep 0.5; kill -INT $pid; "
      .. "wait $pid; s=$?; kill -0 $w 2>/dev/null && echo early; kill $w; rm -f " .. fifo .. "; exit $s'")
    assert.are.equal(1, status)
    assert.are.equal("early\n", out)
    assert.matches("interrupted!", err, 1, true)
  end)

  -- Runs script until it writes "ready" on stderr, then sends it one Ctrl-C.
  local function interrupt_when_ready(script)
    local f, err = S.tmpfile(script), os.tmpname()
    local out, status = S.run("sh -c '" .. S.gpuhost .. " " .. f .. " 2>" .. err .. " & pid=$!; "
      .. "until grep -q ready " .. err .. "; do sleep 0.1; done; sleep 0.5; kill -INT $pid; wait $pid'")
    local e = assert(io.open(err)):read("a")
    os.remove(f); os.remove(err)
    return out, status, e
  end

  it("answers one Ctrl-C with one error, which pcall catches", function()
    local out, status = interrupt_when_ready([[
local a = gpu.arange(100) + 1
io.stderr:write("ready\n")
print(pcall(function() while true do end end))
print(pcall(function() return (a + 1):sum() end))
]])
    assert.are.equal(0, status)
    assert.matches("^false\t[^\n]*interrupted!\ntrue\t5150%.0\n$", out)
  end)

  it("lets pcall catch GPUHOST_INTERRUPTED from a long kernel, and goes on", function()
    local out, status, err = interrupt_when_ready([[
local k = gpu.kernel([=[extern "C" __global__ void spin(long long *x, long long n) {
  long long s = 0; for (long long i = 0; i < n; i++) s += i ^ (s >> 3); x[0] = s; }]=])
local a = gpu.zeros(1, "int64")
k[{1, 1}](a, 1)
io.stderr:write("ready\n")
local ok, e = pcall(function() k[{1000000, 1}](a, 10000000); gpu.synchronize() end)
print(ok, e.name)
print("next")
]])
    assert.are.equal(0, status, err)
    assert.are.equal("false\tGPUHOST_INTERRUPTED\nnext\n", out)
  end)

  it("keeps the prompt after Ctrl-C", function()
    local fifo = os.tmpname()
    os.remove(fifo)
    local out, _, err = S.run("sh -c 'mkfifo " .. fifo .. "; (printf \"while true do end\\n\"; sleep 1; printf \"print(40 + 2)\\n\") > "
      .. fifo .. " & " .. S.gpuhost .. " -i < " .. fifo .. " & pid=$!; sleep 0.5; kill -INT $pid; wait $pid; rm -f " .. fifo .. "'")
    assert.matches("interrupted!", err, 1, true)
    assert.matches("42\n", out)
  end)

  it("works as busted's interpreter (this spec runs in it)", function()
    assert.is_table(gpu)
    assert.is_function(gpu.rewrite)
  end)
end)

describe("gpu.so #stocklua", function()
  it("loads into stock lua5.4", function()
    local out = S.run("lua5.4 -e 'package.cpath = \"build/?.so;\" .. package.cpath; local g = require(\"gpu\"); print(type(g.zeros), g.rewrite(\"k[1, 2]\"))'")
    assert.are.equal("function\tk[{1, 2}]\n", out)
    -- gpu.host is a module too, unless the program's own of that name was loaded first
    out = S.run("lua5.4 -e 'package.cpath = \"build/?.so;\" .. package.cpath; local g = require(\"gpu\"); "
                .. "print(require(\"gpu.host\") == g.host)'")
    assert.are.equal("true\n", out)
    out = S.run("lua5.4 -e 'package.cpath = \"build/?.so;\" .. package.cpath; package.loaded[\"gpu.host\"] = {mine = 1}; "
                .. "local g = require(\"gpu\"); print(require(\"gpu.host\").mine, g.host.zeros ~= nil)'")
    assert.are.equal("1\ttrue\n", out)
    -- Before: a false there (Lua's require reads it as not loaded) kept gpu.fft unregistered:
    -- require 'gpu.fft' failed "module 'gpu.fft' not found"
    out = S.run("lua5.4 -e 'package.cpath = \"build/?.so;\" .. package.cpath; package.loaded[\"gpu.fft\"] = false; "
                .. "local g = require(\"gpu\"); print(require(\"gpu.fft\") == g.fft)'")
    assert.are.equal("true\n", out)
    -- and runs kernels there
    out = S.run([[lua5.4 -e 'package.cpath = "build/?.so;" .. package.cpath
local g = require("gpu")
local k = g.kernel("__global__ void k(int *x) { x[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }")
local a = g.zeros(64, "int32")
k[{2, 32}](a)
print(a:totable()[64])']])
    assert.are.equal("31\n", out)
    -- and compiles Lua kernels with gpu a local (the jit's modules read a global gpu:
    -- "attempt to index a nil value (field 'gpu')")
    -- (in a file: stock lua5.4 reads a function's source from its file)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write([[package.cpath = "build/?.so;" .. package.cpath
local g = require("gpu")
local a = g.zeros(2)
local k = g.jit(function(o) o[1] = 5 end)
k[{1, 1}](a)
local add1 = g.vectorize(function(x) return x + 1 end)
local sum = g.reduce(function(x, y) return x + y end)
print(add1(a):totable()[1], sum(a))
]])
    f:close()
    out = S.run("lua5.4 " .. path)
    os.remove(path)
    assert.are.equal("6.0\t5.0\n", out)
  end)
end)
