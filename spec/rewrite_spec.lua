-- The launch spelling k[grid, block](...) and how gpuhost loads code.
local S = require("spec.support")

describe("gpu.rewrite", function()
  local cases = {
    {"k[g, b](x)", "k[{g, b}](x)"},
    {"k[{g, b}](x)", "k[{g, b}](x)"},
    {"k[ {1, 2}, {3, 4} ](x)", "k[{ {1, 2}, {3, 4} }](x)"},
    {"t[1]", "t[1]"},
    {"k[f(1, 2), 3](x)", "k[{f(1, 2), 3}](x)"},
    {"k[n, 256, shared = 4](x)", "k[{n, 256, shared = 4}](x)"},
    {"a[b[1, 2], 3]", "a[{b[{1, 2}], 3}]"},
    {"s = 'k[1, 2]'", "s = 'k[1, 2]'"},
    {'s = "k[1, 2]" .. "\\"[3, 4]"', 's = "k[1, 2]" .. "\\"[3, 4]"'},
    {"s = [[k[1, 2] ]]", "s = [[k[1, 2] ]]"},
    {"s = [==[k[1, 2]]==] k[1, 2]()", "s = [==[k[1, 2]]==] k[{1, 2}]()"},
    {"-- k[1, 2]\nk[3, 4]()", "-- k[1, 2]\nk[{3, 4}]()"},
    -- \r ends a line, and a short comment, as \n does (Lua reads "\r" as a line end)
    {"-- k[1, 2]\rk[3, 4]()", "-- k[1, 2]\rk[{3, 4}]()"},
    {"--[[ k[1, 2]\n]] k[3, 4]()", "--[[ k[1, 2]\n]] k[{3, 4}]()"},
    {"t = {[1] = 2, [3] = 4}", "t = {[1] = 2, [3] = 4}"},
    -- only index brackets: a table constructor's key is not a launch (Lua refuses it)
    {"t = {[1, 2] = 3}", "t = {[1, 2] = 3}"},
    {"t = {x; [1, 2] = 3, k[1, 2]}", "t = {x; [1, 2] = 3, k[{1, 2}]}"},
    {"return [1, 2]", "return [1, 2]"},
    {"f{1}[g, b]() f'x'[g, b]() f(1)[g, b]() a.k --[[c]] [g, b]()", "f{1}[{g, b}]() f'x'[{g, b}]() f(1)[{g, b}]() a.k --[[c]] [{g, b}]()"},
    {"k[\n  g,\n  b\n](x)", "k[{\n  g,\n  b\n}](x)"},
    -- \z skips white space, newlines too; a backslash before a newline (or CRLF)
    -- continues the string: neither ends it
    {"s = 'a\\z\n  k[1, 2]' k[3, 4]()", "s = 'a\\z\n  k[1, 2]' k[{3, 4}]()"},
    {"s = \"\\z \r\n\t k[1, 2]\" k[3, 4]()", "s = \"\\z \r\n\t k[1, 2]\" k[{3, 4}]()"},
    {"s = 'a\\\nk[1, 2]' k[3, 4]()", "s = 'a\\\nk[1, 2]' k[{3, 4}]()"},
    {"s = 'a\\\r\nk[1, 2]' k[3, 4]()", "s = 'a\\\r\nk[1, 2]' k[{3, 4}]()"},
    {"s = 'a\\\n\rk[1, 2]' k[3, 4]()", "s = 'a\\\n\rk[1, 2]' k[{3, 4}]()"},
    {"s = 'a\\\\' k[3, 4]()", "s = 'a\\\\' k[{3, 4}]()"},
    -- a launch still open at the end (a prompt line) gets its '{', so that it is unfinished
    {"k[g,", "k[{g,"},
    {"k[1, 2](x) t[a[3,", "k[{1, 2}](x) t[a[{3,"},
    {"t[a[1], f(2,", "t[{a[1], f(2,"},
  }
  for _, c in ipairs(cases) do
    it("reads " .. c[1]:gsub("\n", "\\n"):gsub("\r", "\\r"), function()
      assert.are.equal(c[2], gpu.rewrite(c[1]))
    end)
  end

  it("keeps line numbers", function()
    local src = "local k = {}\nk[1,\n2]\n"
    local _, n1 = src:gsub("\n", "")
    local _, n2 = gpu.rewrite(src):gsub("\n", "")
    assert.are.equal(n1, n2)
  end)

  it("needs a string", function()
    assert.has_error(function() gpu.rewrite(nil) end)
  end)
end)

-- Random chunks from a small grammar (spec/luagen.lua): valid Lua is never changed, and
-- chunks with launches always load once rewritten, with their lines kept. 400 chunks of a
-- fixed seed and 400 of this run's (GPUHOST_FUZZ_SEED=n repeats a run).
describe("gpu.rewrite under fuzzing", function()
  local G = require("spec.luagen")
  local run_seed = tonumber(os.getenv("GPUHOST_FUZZ_SEED")) or os.time()
  local seeds = {}
  for i = 1, 400 do seeds[#seeds + 1] = i; seeds[#seeds + 1] = run_seed * 1000 + i end
  local function lines(s) return select(2, s:gsub("\n", "")) end

  it("never changes valid Lua (run seed " .. run_seed .. ")", function()
    for _, seed in ipairs(seeds) do
      local chunk = G.chunk(seed, false)
      assert(load(chunk), "chunk " .. seed .. " is not valid Lua (a generator bug):\n" .. chunk)
      assert.are.equal(chunk, gpu.rewrite(chunk), "chunk " .. seed .. " was changed")
    end
  end)

  it("rewrites every launch so that the chunk loads (run seed " .. run_seed .. ")", function()
    local launches = 0
    for _, seed in ipairs(seeds) do
      local chunk, n = G.chunk(seed, true)
      local out = gpu.rewrite(chunk)
      local ok, err = load(out)
      assert(ok, ("chunk %d does not load once rewritten (%s):\n%s\n--- rewritten:\n%s")
                 :format(seed, err, chunk, out))
      assert.are.equal(#chunk + 2 * n, #out, "chunk " .. seed .. ": braces for each launch only")
      assert.are.equal(lines(chunk), lines(out), "chunk " .. seed .. ": lines kept")
      launches = launches + n
    end
    assert.is_true(launches > 200)                  -- the grammar does make launches
  end)
end)

describe("gpuhost loading the launch spelling", function()
  local function launcher_script(body)
    -- a fake kernel: indexing with a table gives a function that reports what it got
    return [[
local k = setmetatable({}, {__index = function(_, cfg)
  return function(...) print(#cfg, cfg[1], cfg[2], cfg.shared, ...) end
end})
]] .. body
  end

  it("in scripts", function()
    local f = S.tmpfile(launcher_script("k[4, 256](1, 2)\nk[{8, 32}](3)\n"))
    local out, status = S.host(f)
    os.remove(f)
    assert.is_true(status == 0)
    assert.are.equal("2\t4\t256\tnil\t1\t2\n2\t8\t32\tnil\t3\n", out)
  end)

  it("in -e", function()
    local out = S.host("-e " .. S.quote(launcher_script("k[1, 2, shared = 64]('x')")))
    assert.are.equal("2\t1\t2\t64\tx\n", out)
  end)

  it("in modules found by require", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir)
    local f = assert(io.open(dir .. "/launchmod.lua", "w"))
    f:write(launcher_script("k[5, 6]()\nreturn true\n"))
    f:close()
    local out = S.host("-e " .. S.quote("package.path = '" .. dir .. "/?.lua;' .. package.path; require 'launchmod'"))
    os.execute("rm -rf " .. dir)
    assert.are.equal("2\t5\t6\tnil\n", out)
  end)

  it("in loadfile and dofile", function()
    local f = S.tmpfile(launcher_script("k[7, 8]()\n"))
    local out = S.host("-e " .. S.quote("loadfile('" .. f .. "')() dofile('" .. f .. "')"))
    os.remove(f)
    assert.are.equal("2\t7\t8\tnil\n2\t7\t8\tnil\n", out)
  end)

  it("at the prompt, over several lines", function()
    local script = launcher_script("k[1,\n2](3)\nk[{4,\n5}](6)\n"):gsub("^local k", "k")
    local out, _, err = S.host("-i", script)
    assert.are.equal("", err)
    assert.matches("2\t1\t2\tnil\t3\n", out, 1, true)
    assert.matches("2\t4\t5\tnil\t6\n", out, 1, true)
  end)

  it("reports syntax errors at the user's line", function()
    local f = S.tmpfile("local k = {}\nk[1, 2]()\nlocal x = = 1\n")
    local _, status, err = S.host(f)
    os.remove(f)
    assert.is_false(status == 0)
    assert.matches(":3: unexpected symbol near '='", err, 1, true)
  end)

  it("says the user's ']' in syntax errors, never a '}' of the rewrite", function()
    local function err_of(code)
      local _, status, err = S.host("-e " .. S.quote(code))
      assert.are.equal(1, status)
      return err:match("^[^\n]*")
    end
    local pre = S.gpuhost .. ": (command line):1: "
    assert.are.equal(pre .. "']' expected near '3'", err_of("k = {} k[1, 2 3](a)"))
    assert.are.equal(pre .. "unexpected symbol near ']'", err_of("x = t[1, 2 +]"))
    assert.are.equal(pre .. "')' expected near ']'", err_of("k[1, f(2]()"))
    assert.are.equal(pre .. "']' expected near <eof>", err_of("k[1, 2"))
    assert.are.equal(S.gpuhost .. ": (command line):3: ']' expected (to close '[' at line 1) near '3'",
                     err_of("k[1,\n2\n3]()"))
    -- the user's own braces stay theirs
    assert.are.equal(pre .. "'}' expected near '3'", err_of("k[1, {2 3}]()"))
    assert.are.equal(pre .. "unexpected symbol near '}'", err_of("k[1, {2 +}]()"))
    -- a table constructor's key is not rewritten: Lua's error
    assert.are.equal(pre .. "']' expected near ','", err_of("t = {[1, 2] = 3}"))
  end)
end)
