-- Products: gpu.matmul against the same sums of products done elementwise (a broadcast
-- multiply and a sum), by NumPy's rules: 1-D operands, batches broadcast, views in any
-- layout (transposed, strided, expanded: copied first when BLAS cannot take them), out=,
-- promotion; gpu.dot's N-D rule, gpu.outer; the errors; and a BLAS that cannot be loaded.
local S = require("spec.support")

-- sum over k of a[..., m, k, 1] * b[..., 1, k, n], in float64
local function ref(a, b) return (a:astype("float64"):unsqueeze(-1) * b:astype("float64"):unsqueeze(-3)):sum(-2) end
local function close(want, got, tol)
  local d = (want - got:astype("float64")):abs():max()
  assert(d <= tol, ("off by %g"):format(d))
end

describe("gpu.matmul", function()
  gpu.random.seed(4)
  it("multiplies matrices, batches (broadcast) and vectors, as NumPy's matmul", function()
    local cases = {{{5, 7}, {7, 3}}, {{2, 1, 3, 4}, {5, 4, 2}}, {{3, 4, 5}, {5, 6}}}
    for _, c in ipairs(cases) do
      local a, b = gpu.random.uniform(-1, 1, c[1]), gpu.random.uniform(-1, 1, c[2])
      local r = gpu.matmul(a, b)
      close(ref(a, b), r, 1e-5)
      assert.are.equal("float32", r.dtype)
    end
    local a = gpu.arange(6):reshape(2, 3)
    assert.are.same({8, 26}, a:matmul(gpu.array({1, 2, 3})):totable())          -- (2, 3) @ (3)
    assert.are.same({6, 9, 12}, gpu.matmul(gpu.array({1, 2}), a):totable())      -- (2) @ (2, 3)
    local v = gpu.matmul(gpu.array({1, 2, 3}), gpu.array({4, 5, 6}))
    assert.are.same({}, v.shape)
    assert.are.equal(32, v:item())
    assert.are.same({3, 2}, gpu.matmul(gpu.ones(6), gpu.ones({3, 6, 2})).shape)
  end)

  it("takes views in any layout", function()
    local big = gpu.random.uniform(-1, 1, {8, 10})
    local v1, v2 = big[{{1, 8, 2}, {2, 7}}], big[{{3, 8}, {1, 10, 3}}]   -- strided rows, strided columns
    close(ref(v1, v2), gpu.matmul(v1, v2), 1e-5)
    close(ref(v2.T, v1.T), gpu.matmul(v2.T, v1.T), 1e-5)                  -- column-major: no copy
    local x = gpu.random.uniform(-1, 1, {2, 3, 4, 5})
    local w = gpu.random.uniform(-1, 1, {2, 1, 5, 2}):expand(2, 3, 5, 2)   -- a batch of no one stride
    close(ref(x, w), gpu.matmul(x, w), 1e-5)
    local e = gpu.random.uniform(-1, 1, {1, 4, 5}):expand(3, 4, 5)
    local b = gpu.random.uniform(-1, 1, {3, 5, 2})
    close(ref(e, b), gpu.matmul(e, b), 1e-5)
  end)

  it("promotes, writes into out=, and multiplies empty matrices", function()
    local a, b = gpu.arange(6):reshape(2, 3), gpu.arange(6, "float64"):reshape(3, 2)
    local r = gpu.matmul(a, b)
    assert.are.equal("float64", r.dtype)
    assert.are.same({{10, 13}, {28, 40}}, r:totable())
    assert.are.same({{10, 13}, {28, 40}}, gpu.matmul(gpu.arange(6, "int32"):reshape(2, 3), b):totable())
    local o = gpu.zeros({2, 2}, "float64")
    assert.are.equal(o, gpu.matmul(a, a.T, {out = o}))
    assert.are.same({{5, 14}, {14, 50}}, o:totable())
    local o32 = gpu.zeros({2, 2})
    gpu.matmul(a, a.T, {out = o32, tf32 = true})
    assert.are.same({{5, 14}, {14, 50}}, o32:totable())   -- small integers: exact even in TF32
    assert.are.same({{0, 0, 0}, {0, 0, 0}}, gpu.matmul(gpu.zeros({2, 0}), gpu.zeros({0, 3})):totable())
    assert.are.same({0, 3}, gpu.matmul(gpu.zeros({0, 2}), gpu.zeros({2, 3})).shape)
  end)

  it("multiplies integers and bools with NumPy's numbers: sums wrap in the dtype, bools or ands", function()
    local a = gpu.arange(-6, 6, "int8"):reshape(2, 2, 3)
    local b = gpu.arange(12, "int32"):reshape(3, 4) * 37
    local c = gpu.matmul(a, b)                            -- int32: a batch broadcast against a matrix
    assert.are.equal("int32", c.dtype)
    assert.are.same({{{-1924, -2479, -3034, -3589}, {-592, -814, -1036, -1258}},
                     {{740, 851, 962, 1073}, {2072, 2516, 2960, 3404}}}, c:totable())
    local x = gpu.array({{100, -128}, {127, 5}}, "int8")
    assert.are.same({{-112, -128}, {23, -103}}, gpu.matmul(x, x):totable())
    local u = gpu.array({{200, 255}, {3, 4}}, "uint8")
    assert.are.same({{61, 52}, {100, 13}}, gpu.matmul(u, u):totable())
    local big = gpu.array({{1 << 62, 3}, {5, 1 << 40}}, "int64")
    assert.are.same({{15, -4611682719892504576}, {4611691515985526784, 15}}, gpu.matmul(big, big):totable())
    local m = gpu.array({{true, false}, {false, false}}, "bool")
    local n = gpu.array({{false, true}, {true, true}}, "bool")
    assert.are.same({{false, true}, {false, false}}, gpu.matmul(m, n):totable())
    local v = gpu.arange(1, 4, "int16")
    assert.are.same({16, 22}, gpu.matmul(v, gpu.arange(6, "int16"):reshape(3, 2)):totable())
    assert.are.equal(14, gpu.matmul(v, v):item())       -- two vectors: 0-D
    assert.are.same({{{70, 76, 82, 88, 94}, {190, 212, 234, 256, 278}, {310, 348, 386, 424, 462}},
                     {{430, 484, 538, 592, 646}, {550, 620, 690, 760, 830}, {670, 756, 842, 928, 1014}}},
                    gpu.dot(gpu.arange(24, "int64"):reshape(2, 3, 4), gpu.arange(20, "int64"):reshape(4, 5)):totable())
    local o = gpu.zeros({2, 2}, "int64")                -- out= of a wider dtype, a transposed view
    gpu.matmul(x.T, x, {out = o})
    assert.are.same({{17, 123}, {123, 25}}, o:totable())   -- NumPy: int8 products, then cast
    assert.are.same({{0, 0}, {0, 0}}, gpu.matmul(gpu.ones({2, 0}, "int32"), gpu.ones({0, 2}, "int32")):totable())
    -- tiles past the edges, and a batch: against float64's exact products
    local p = gpu.random.integers(-1000, 1000, {3, 37, 53})
    local q = gpu.random.integers(-1000, 1000, {53, 19})
    assert.is_true(gpu.matmul(p, q):astype("float64"):eq(gpu.matmul(p:astype("float64"), q:astype("float64"))):all())
  end)

  it("refuses mismatched shapes (naming both), 0-D operands, and a stream for integer products", function()
    local a = gpu.zeros({2, 3})
    assert.matches("gpu.matmul: shapes {2, 3} and {2, 3} do not match: the first's last dim %(3%) is not the second's second%-to%-last %(2%)",
                   S.errof(gpu.matmul, a, a))
    assert.matches("gpu.matmul: the batch dims of shapes {2, 2, 3} and {3, 3, 2} do not broadcast",
                   S.errof(gpu.matmul, gpu.zeros({2, 2, 3}), gpu.zeros({3, 3, 2})))
    assert.matches("gpu.matmul: a 0%-D array has no rows or columns", S.errof(gpu.matmul, gpu.zeros({}), a))
    assert.matches("gpu.matmul: products of int32 arrays run on the default stream: leave out the stream",
                   S.errof(gpu.matmul, gpu.zeros({2, 2}, "int32"), gpu.zeros({2, 2}, "int32"), {stream = gpu.stream()}), 1, true)
    assert.matches("gpu.matmul: out has shape {3} but the result has shape {2, 2}",
                   S.errof(gpu.matmul, a, a.T, {out = gpu.zeros(3)}))
  end)
end)

describe("gpu.dot and gpu.outer", function()
  it("follow NumPy: dot sums over a's last dim and b's second-to-last", function()
    local d = gpu.dot(gpu.arange(24):reshape(2, 3, 4), gpu.arange(8):reshape(2, 4, 1))
    assert.are.same({2, 3, 2, 1}, d.shape)
    assert.are.same({{{14}, {38}}, {{38}, {126}}, {{62}, {214}}}, d[{1}]:totable())
    assert.are.equal(1992, d:sum())
    assert.are.equal(14, gpu.dot(gpu.arange(4), gpu.arange(4)):item())
    assert.are.same({0, 2, 4}, gpu.dot(gpu.arange(3), 2):totable())
    assert.are.same({{1, 2, 3}, {2, 4, 6}}, gpu.outer(gpu.array({1, 2}), gpu.array({1, 2, 3})):totable())
    assert.are.same({4, 3}, gpu.outer(gpu.ones({2, 2}), gpu.ones(3)).shape)
    -- its errors are its own, at the caller's line (they named gpu.multiply, with no line)
    local a = gpu.ones(3)
    assert.matches("blas_spec.lua:%d+: gpu.outer: out has shape {2, 2} but the result has shape {3, 3}",
                   S.errof(function() gpu.outer(a, a, {out = gpu.zeros({2, 2})}) end))
  end)

  it("sum nothing over a dim of 0 in the N-D rule: zeros of the whole shape", function()
    local d = gpu.dot(gpu.ones({2, 3, 0}), gpu.ones({4, 0, 5}))
    assert.are.same({2, 3, 4, 5}, d.shape)
    assert.are.equal(120, d.size)
    assert.are.equal(0, d:abs():max())
  end)

  it("take out= as matmul does, with numbers and 0-D operands too", function()
    local a, o = gpu.arange(6):reshape(2, 3), gpu.zeros({2, 3})
    assert.are.equal(o, gpu.dot(2, a, {out = o}))
    assert.are.same({{0, 2, 4}, {6, 8, 10}}, o:totable())
    assert.are.equal(6, gpu.dot(2, 3):item())
    local x, y = gpu.ones({2, 2, 3}), gpu.ones({2, 3, 1})
    local r = gpu.zeros({2, 2, 2, 1})
    assert.are.equal(r, gpu.dot(x, y, {out = r}))
    assert.are.equal(3, r:min())
    assert.matches("gpu.dot: out has shape {2, 2, 2, 2} but the result has shape {2, 2, 2, 1}",
                   S.errof(gpu.dot, x, y, {out = gpu.zeros({2, 2, 2, 2})}))
    assert.matches("gpu.dot: out is int32, and the result %(float32%) cannot be cast to it",
                   S.errof(gpu.dot, x, y, {out = gpu.zeros({2, 2, 2, 1}, "int32")}))
    assert.matches("gpu.dot takes two arrays and an options table", S.errof(gpu.dot, a, a.T, 7))
    assert.matches("bad argument #2 to 'dot' %(device array expected, got string%)", S.errof(gpu.dot, 2, "x"))
  end)
end)

describe("a BLAS that cannot be loaded #cpu", function()
  it("is an error naming it and the package, and the rest goes on working", function()
    local out = S.run("GPUHOST_BLAS=/nonexistent/libblas.so " .. S.gpuhost .. " --cpu -e " .. S.quote([[
      local ok, e = pcall(gpu.matmul, gpu.ones({2, 2}), gpu.ones({2, 2}))
      print(ok, e.name, e.message)
      print(gpu.ones(3):sum())]]) .. " 2>&1", nil)
    assert.matches("false\tGPUHOST_NO_LIBRARY\ta BLAS with cblas_sgemm %(/nonexistent/libblas.so%) could not be loaded", out)
    assert.matches("install OpenBLAS %(the libopenblas0 package%), or unset GPUHOST_BLAS", out)
    assert.matches("\n3.0\n", out)
  end)
end)

-- A BLAS built with 64-bit integers: Debian's libopenblas64-0 keeps the plain cblas_sgemm
-- names (its openblas_get_config says USE64BITINT), numpy's wheels name them
-- scipy_cblas_sgemm64_; 32-bit dimensions passed to either are read as garbage.
local blas64 = io.popen("ldconfig -p 2>/dev/null"):read("a"):match("libopenblas64%.so%.0") and "libopenblas64.so.0"
describe("a BLAS of 64-bit integers (GPUHOST_BLAS=libopenblas64.so.0, Debian's libopenblas64-0) #cpu", function()
  it("gives the products of each dtype, batched and transposed", function()
    if not blas64 then return pending("no libopenblas64.so.0 here (scripts/deps.sh installs it)") end
    local out = S.run("GPUHOST_BLAS=" .. blas64 .. " " .. S.gpuhost .. " --cpu -e " .. S.quote([[
      local function ref(a, b) return (a:astype("complex128"):unsqueeze(-1) * b:astype("complex128"):unsqueeze(-3)):sum(-2) end
      for _, dt in ipairs({"float32", "float64", "complex64", "complex128"}) do
        local a = gpu.random.uniform(-1, 1, {3, 70, 50}):astype(dt)
        local b = gpu.random.uniform(-1, 1, {50, 30}):astype(dt)
        local at = gpu.random.uniform(-1, 1, {50, 70}):astype(dt).T
        local d1 = (ref(a, b) - gpu.matmul(a, b)):abs():max()
        local d2 = (ref(at, b) - gpu.matmul(at, b)):abs():max()
        print(dt, d1 < 1e-3 and d2 < 1e-3, d1, d2)
      end]]) .. " 2>&1", nil)
    for _, dt in ipairs({"float32", "float64", "complex64", "complex128"}) do
      assert.matches(dt .. "\ttrue\t", out)
    end
  end)
end)
