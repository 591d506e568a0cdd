-- LuaRocks: `luarocks make` in a copy of the checkout builds and installs gpu.so and the
-- gpuhost program into a tree, and both work from there. (Tagged: it runs where luarocks
-- is installed; `make test` installs it as root.)
local S = require("spec.support")

describe("the rockspec #rock", function()
  it("builds and installs gpu.so and gpuhost with luarocks make", function()
    local dir = os.tmpname()
    os.remove(dir)
    local src, tree = dir .. "/src", dir .. "/tree"
    local _, status, err = S.run(("mkdir -p %s && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t %s")
                                 :format(src, src))
    assert.are.equal(0, status, err)
    local out
    out, status, err = S.run(("cd %s && luarocks --lua-version 5.4 make --tree %s gpuhost-scm-1.rockspec")
                             :format(src, tree))
    assert.are.equal(0, status, out .. err)
    out, status, err = S.run(("lua5.4 -e 'package.cpath = %q .. package.cpath; local gpu = require \"gpu\"; "
                              .. "print(gpu.backend(), gpu.ones(3):totable()[3])'")
                             :format(tree .. "/lib/lua/5.4/?.so;"))
    assert.are.equal(0, status, err)
    assert.matches("^%a+\t1%.0\n$", out)
    out, status = S.run(tree .. "/bin/gpuhost -v")
    assert.are.equal(0, status)
    assert.matches("^gpuhost %d", out)
    os.execute("rm -rf " .. dir)
  end)

  it("says what is missing without the CUDA headers", function()
    local out, status, err = S.run("make -s CUDA_HOME=/nonexistent build/cuda_errors.h")
    assert.is_not.equal(0, status)
    assert.matches("gpuhost needs the CUDA toolkit's headers: /nonexistent/include/cuda.h is missing",
                   out .. err, 1, true)
  end)
end)
