-- The prompt's Tab completion and history. lua/complete.lua decides what to offer (tested
-- directly here), host/complete.c hands it to libedit (tested through a terminal: #libedit,
-- where libedit and script(1) are installed).
local S = require("spec.support")

local complete = assert(load(gpu._embedded("lua/complete.lua")))()

describe("completion at the prompt", function()
  it("offers fields of the gpu module and its tables", function()
    assert.are.same({"gpu.random"}, complete("gpu.rand"))
    assert.are.same({"gpu.random.normal"}, complete("gpu.random.nor"))
    assert.are.same({"string.format"}, complete("string.form"))
  end)

  it("offers global names and keywords", function()
    assert.are.same({"print"}, complete("prin"))
    assert.are.same({"repeat", "require", "return"}, complete("re"))
  end)

  it("offers the methods of gpuhost's values after ':'", function()
    _G.completion_probe = gpu.zeros(2)
    assert.are.same({"completion_probe:to", "completion_probe:tobytes", "completion_probe:tofile",
                     "completion_probe:tohost", "completion_probe:topk", "completion_probe:totable"},
                    complete("completion_probe:to"))
    _G.completion_probe = nil
  end)

  it("offers only functions after ':' and nothing for what does not exist", function()
    _G.completion_probe = {count = 1, call = function() end}
    assert.are.same({"completion_probe:call"}, complete("completion_probe:c"))
    assert.are.same({"completion_probe.call", "completion_probe.count"}, complete("completion_probe.c"))
    _G.completion_probe = nil
    assert.are.same({}, complete("no_such_global.x"))
    assert.are.same({}, complete("1 + "))
  end)

  it("never runs a metamethod", function()
    local called = false
    _G.completion_probe = setmetatable({}, {__index = function() called = true end})
    assert.are.same({}, complete("completion_probe.x"))
    assert.is_false(called)
    _G.completion_probe = nil
  end)

  -- Before, it looked type, next, table.sort ... up in the globals at each Tab: a script's
  -- `type = "float32"` stopped completion (the error was dropped), and a user's function of
  -- that name was called
  it("keeps working when a script reuses the names of the functions it uses", function()
    local saved = {type = type, next = next, table = table, getmetatable = getmetatable, G = _G}
    local called = false
    _G.type, _G.next, _G.table = "float32", 1, {}
    _G.getmetatable = function() called = true end
    local ok, list = pcall(complete, "prin")
    _G.type, _G.next, _G.table, _G.getmetatable = saved.type, saved.next, saved.table, saved.getmetatable
    assert.is_true(ok, list)
    assert.are.same({"print"}, list)
    assert.is_false(called)
  end)

  it("completes a word with Tab in a terminal #libedit", function()
    local out, status = S.run("printf 'x = gpu.rand\\t\\nprint(x == gpu.random, 42)\\nos.exit(0)\\n' | HOME=/tmp timeout 60 script -eqc "
                              .. S.quote(S.gpuhost) .. " /dev/null")
    assert.are.equal(0, status)
    assert.matches("true\t42", out, 1, true)
  end)

  -- lua/complete.lua was loaded at the prompt's start, after them: `type = "float32"` from -e
  -- stopped completion, and a script's getmetatable was called at each Tab
  it("completes with the libraries' functions after -e, a script or LUA_INIT changed their globals #libedit", function()
    local home = os.tmpname() .. "-home"
    local script = S.tmpfile('function getmetatable() print("user getmetatable called") end\n')
    os.execute("mkdir -p " .. home)
    for _, run in ipairs({{"-i -e " .. S.quote('type = "float32"'), ""}, {"-i " .. script, ""},
                          {"-i", "LUA_INIT_5_4=" .. S.quote("next = 1 string.match = nil")}}) do
      local args, env = run[1], run[2]
      local out, status = S.run("printf 'x = gpu.rand\\t\\nprint(x == gpu.random, 42)\\nos.exit(0)\\n' | HOME=" .. home .. " " ..
                                env .. " timeout 60 script -eqc " .. S.quote(S.quote(S.gpuhost) .. " " .. args) .. " /dev/null")
      assert.are.equal(0, status, args)
      assert.matches("true\t42", out, 1, true)
      assert.is_nil(out:find("user getmetatable called", 1, true), args)
    end
    os.execute("rm -rf " .. home .. " " .. script)
  end)
end)

describe("the prompt's history", function()
  it("keeps history in $HOME/.gpuhost_history for a HOME of any length #libedit", function()
    local base = os.tmpname() .. "-home"
    local home = base .. ("/" .. ("d"):rep(99)):rep(11)
    os.execute("mkdir -p " .. home)
    local _, status = S.run("printf 'x = 41\\nprint(x + 1)\\nos.exit(0)\\n' | HOME=" .. home .. " timeout 60 script -eqc "
                            .. S.quote(S.gpuhost) .. " /dev/null")
    local f = io.open(home .. "/.gpuhost_history")
    local history = f and f:read("a")
    if f then f:close() end
    local files = S.run("find " .. base .. " -type f | wc -l")
    os.execute("rm -rf " .. base)
    assert.are.equal(0, status)
    assert.matches("print(x", history or "", 1, true)
    assert.are.equal("1", (files:gsub("%s", "")))   -- that file only, none at a cut path
  end)

  it("keeps bytes past ASCII and the history of a session ended by os.exit #libedit", function()
    local home = os.tmpname() .. "-home"
    os.execute("mkdir -p " .. home)
    -- LANG unset: libedit read in the C locale, which dropped "é" (print gave 4, "hllo")
    local out, status = S.run("printf 's = \"h\\303\\251llo\"\nprint(#s, s)\nos.exit(0)\n' | " ..
                              "env -u LANG -u LC_ALL -u LC_CTYPE HOME=" .. home .. " timeout 60 script -eqc " ..
                              S.quote(S.gpuhost) .. " /dev/null")
    local f = io.open(home .. "/.gpuhost_history")
    local history = f and f:read("a")
    if f then f:close() end
    os.execute("rm -rf " .. home)
    assert.are.equal(0, status)
    assert.matches("6\th\195\169llo", out)
    assert.matches("print(#s,", history or "", 1, true)
  end)
end)
