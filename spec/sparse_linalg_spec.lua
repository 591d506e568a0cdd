-- lua/sparse_linalg.lua: gpu.sparse.linalg's iterative solvers (cg, cgs, gmres) and
-- LinearOperator, on dense matrices and operators; iteration counts and solutions are
-- scipy 1.11's (scipy.sparse.linalg with tol and atol = 0 given), computed once and written
-- here. On both backends.
local L = gpu.sparse.linalg

local function close(want, got, tol, what)
  assert.is_true(math.abs(want - got) <= tol * math.max(1, math.abs(want)),
                 ("%s: want %.17g, got %.17g"):format(what or "value", want, got))
end

-- the 1-D Laplacian, n x n: 2 on the diagonal, -1 beside it
local function laplacian(n, dt)
  return gpu.eye(n, n, 0, dt) * 2 - gpu.eye(n, n, 1, dt) - gpu.eye(n, n, -1, dt)
end

-- diag(1 .. n) with -0.5 beside the diagonal (Jacobi's preconditioner helps it)
local function graded(n)
  return gpu.diag(gpu.arange(1, n + 1, 1, "float64")) - gpu.eye(n, n, 1, "float64") * 0.5
         - gpu.eye(n, n, -1, "float64") * 0.5
end

local function solve_count(f, A, b, opts)
  local count = 0
  opts = opts or {}
  opts.callback = function() count = count + 1 end
  local x, info = L[f](A, b, opts)
  return x, info, count
end

describe("gpu.sparse.linalg.cg and cgs", function()
  local n = 100
  local A = laplacian(n, "float64")
  local b = gpu.arange(1, n + 1, 1, "float64") / n

  it("take scipy's iterations to scipy's solution", function()
    for _, f in ipairs({"cg", "cgs"}) do
      local x, info, count = solve_count(f, A, b, {rtol = 1e-8, atol = 0})   -- rtol: tol's newer name
      assert.are.equal(0, info)
      assert.are.equal(100, count, f)                      -- scipy's cg and cgs: 100 each
      assert.are.equal("float64", x.dtype)
      close(17, x:item(1), 1e-9, f); close(33.99, x:item(2), 1e-9, f); close(641.75, x:item(50), 1e-9, f)
      assert.is_true(gpu.linalg.norm(gpu.matmul(A, x) - b) <= 1e-8 * gpu.linalg.norm(b))
    end
  end)

  it("take a preconditioner M, and a LinearOperator for A", function()
    local G = graded(60)
    local ones = gpu.ones(60, "float64")
    local _, _, plain = solve_count("cg", G, ones, {tol = 1e-10, atol = 0})
    assert.are.equal(47, plain)                            -- scipy: 47 iterations, 10 with Jacobi
    local Minv = gpu.diag(1 / gpu.arange(1, 61, 1, "float64"))
    local x, info, count = solve_count("cg", G, ones, {tol = 1e-10, atol = 0, M = Minv})
    assert.are.equal(0, info); assert.are.equal(10, count)
    close(1.50880320706052, x:item(1), 1e-9); close(0.016810335751102055, x:item(60), 1e-9)
    local op = L.LinearOperator({60, 60}, function(v) return gpu.matmul(G, v) end)
    local y = L.cg(op, ones, {tol = 1e-10, atol = 0, M = L.aslinearoperator(Minv)})
    assert.is_true(gpu.allclose(x, y, {rtol = 1e-12, atol = 1e-12}))
  end)

  it("solve complex Hermitian systems, and keep float32 and complex64", function()
    local n2 = 60
    local G = graded(n2):astype("complex128")
    local skew = (gpu.eye(n2, n2, 1, "float64") - gpu.eye(n2, n2, -1, "float64")) * 0.25
    local Z = G + gpu.full({}, gpu.complex(0, 1), "complex128") * skew
    local x, info, count = solve_count("cg", Z, gpu.ones(n2, "float64"), {tol = 1e-10, atol = 0})
    assert.are.equal(0, info); assert.are.equal(47, count)   -- scipy: 47
    assert.are.equal("complex128", x.dtype)
    local x1 = x[{1}]:item()
    close(1.5560341704992307, x1.re, 1e-9); close(-0.22291464101569664, x1.im, 1e-9)
    local x32 = L.cg(Z:astype("complex64"), gpu.ones(n2, "float32"))
    assert.are.equal("complex64", x32.dtype)
    local f32 = L.cg(A:astype("float32"), b:astype("float32"), {tol = 1e-4})
    assert.are.equal("float32", f32.dtype)
    close(17, f32:item(1), 1e-2)
  end)

  it("start from x0, stop at maxiter with info, and take b of n x 1", function()
    local x, info = L.cg(A, b:reshape(n, 1), {tol = 1e-8, atol = 0, maxiter = 5})
    assert.are.equal(5, info)
    assert.are.equal(1, x.ndim)
    local x2, info2, count = solve_count("cg", A, b, {x0 = x, tol = 1e-8, atol = 0})
    assert.are.equal(0, info2)
    close(641.75, x2:item(50), 1e-9)
    -- from the solution, no step (scipy's tests x0 first; CuPy's took a step)
    local x3, info3, none = solve_count("cg", A, b, {x0 = x2, tol = 1e-6, atol = 0})
    assert.are.equal(0, info3); assert.are.equal(0, none)
    assert.is_true(gpu.array_equal(x2, x3))
    -- an x0 that solves it exactly is x (the first step was 0 / 0: nan, till maxiter)
    local D = gpu.sparse.csr_matrix(gpu.array({{2, 0}, {0, 4}}, "float64"))
    for _, f in ipairs({"cg", "cgs", "gmres"}) do
      local xe, ie = L[f](D, gpu.array({2, 4}, "float64"), {x0 = gpu.array({1, 1}, "float64")})
      assert.are.same({{1, 1}, 0}, {xe:totable(), ie}, f)
    end
    -- x0 is not written
    assert.is_true(gpu.linalg.norm(gpu.matmul(A, x) - b) > 1e-3)
    -- b = 0 gives 0 at once; an empty system an empty x
    local z, zi = L.cg(A, gpu.zeros(n, "float64"))
    assert.are.equal(0, zi); assert.are.equal(0, gpu.abs(z):max())
    local e, ei = L.cgs(gpu.empty({0, 0}, "float64"), gpu.empty(0, "float64"))
    assert.are.equal(0, ei); assert.are.equal(0, e.size)
  end)
end)

describe("gpu.sparse.linalg on sparse matrices", function()
  it("solves CSR, CSC and COO systems as the dense one, a sparse M too", function()
    local sp = gpu.sparse
    local n = 100
    local b = gpu.arange(1, n + 1, 1, "float64") / n
    for _, fmt in ipairs({"csr", "csc", "coo"}) do
      local A = sp.diags({-1, 2, -1}, {-1, 0, 1}, {shape = {n, n}, format = fmt})
      local x, info, count = solve_count("cg", A, b, {tol = 1e-8, atol = 0})
      assert.are.equal(0, info); assert.are.equal(100, count, fmt)
      close(17, x:item(1), 1e-9, fmt); close(641.75, x:item(50), 1e-9, fmt)
      local g = L.gmres(A, b, {restart = n, tol = 1e-10, atol = 0})
      close(641.75, g:item(50), 1e-7, fmt)
    end
    local G = sp.csr_matrix(graded(60))
    local Minv = sp.diags(1 / gpu.arange(1, 61, 1, "float64"), 0)
    local x, info, count = solve_count("cg", G, gpu.ones(60, "float64"), {tol = 1e-10, atol = 0, M = Minv})
    assert.are.equal(0, info); assert.are.equal(10, count)    -- scipy: 10
    close(1.50880320706052, x:item(1), 1e-9)
    assert.are.same({60, 60}, L.aslinearoperator(G).shape)
    assert.is_true(gpu.allclose(L.aslinearoperator(G):matvec(gpu.ones(60, "float64")),
                                gpu.matmul(graded(60), gpu.ones(60, "float64"))))
  end)
end)

describe("gpu.sparse.linalg.gmres", function()
  local n = 100
  local A = laplacian(n, "float64")
  local b = gpu.arange(1, n + 1, 1, "float64") / n

  it("solves in one cycle when restart is n, and counts steps in maxiter as CuPy", function()
    local x, info = L.gmres(A, b, {tol = 1e-8, atol = 0, restart = n})
    assert.are.equal(0, info)
    close(17, x:item(1), 1e-6); close(641.75, x:item(50), 1e-6)
    -- restart 20, maxiter 10 n steps (50 cycles): not enough for this matrix (scipy's maxiter
    -- counts cycles and takes 1986 steps)
    local _, info2, count = solve_count("gmres", A, b, {tol = 1e-8, atol = 0})
    assert.are.equal(1000, info2); assert.are.equal(50, count)
    -- maxiter that is no multiple of restart still says it did not converge
    local _, info3 = L.gmres(A, b, {maxiter = 5, restart = 2})
    assert.are.equal(6, info3)
  end)

  it("starts from x0 itself with M (CuPy's started from M x0)", function()
    local S = gpu.sparse.csr_matrix(gpu.array({{4, 1, 0, 0}, {1, 3, 1, 0}, {0, 1, 2, 1}, {0, 0, 1, 5}}, "float64"))
    local rhs = gpu.array({1, 2, 3, 4}, "float64")
    local P = gpu.sparse.diags({{0.25, 1 / 3, 0.5, 0.2}}, {0})
    -- one step from x0 = 1, right-preconditioned: x0 + y M r0 / |r0|, y the least-squares
    -- step (worked by hand: r0 = {-4, -3, -1, -2}, M r0 = {-1, -1, -0.5, -0.4})
    local x = L.gmres(S, rhs, {x0 = gpu.ones(4, "float64"), M = P, maxiter = 1, restart = 1})
    local want = {2 / 7, 2 / 7, 9 / 14, 5 / 7}
    for i = 1, 4 do close(want[i], x:item(i), 1e-12) end
    -- x0 that solves it is kept, M or not
    local sol = gpu.array({0.18987341772151906, 0.24050632911392392, 1.0886075949367089, 0.5822784810126581}, "float64")
    local xs, is = L.gmres(S, rhs, {x0 = sol, M = P, tol = 1e-10})
    assert.are.equal(0, is); assert.is_true(gpu.array_equal(xs, sol))
  end)

  it("solves nonsymmetric and complex systems, stopping early where the space closes", function()
    local N = graded(40) + gpu.eye(40, 40, 2, "float64") * 0.3
    local rhs = gpu.ones(40, "float64")
    local x, info = L.gmres(N, rhs, {restart = 40, tol = 1e-12, atol = 0})
    assert.are.equal(0, info)
    assert.is_true(gpu.linalg.norm(gpu.matmul(N, x) - rhs) <= 1e-10)
    local Z = N:astype("complex128") + gpu.full({}, gpu.complex(0, 1), "complex128") * gpu.eye(40, 40, -1, "float64")
    local z, zi = L.gmres(Z, rhs, {restart = 40, tol = 1e-12, atol = 0})
    assert.are.equal(0, zi); assert.are.equal("complex128", z.dtype)
    assert.is_true(gpu.linalg.norm(gpu.matmul(Z, z) - rhs:astype("complex128")) <= 1e-10)
    -- the identity: b spans an invariant space at once (a zero subdiagonal after one step)
    local I = gpu.eye(40, 40, 0, "float64")
    local y, yi = L.gmres(I, rhs, {restart = 40})
    assert.are.equal(0, yi)
    assert.is_true(gpu.allclose(y, rhs))
    -- callback_type "x" gets the iterate
    local seen
    L.gmres(N, rhs, {restart = 40, callback_type = "x", callback = function(v) seen = v end})
    assert.is_true(gpu._is_array(seen))
  end)
end)

describe("gpu.sparse.linalg with a complex b and a real A", function()
  it("solves in complex, as scipy's (not dropping b's imaginary part)", function()
    local A = gpu.sparse.csr_matrix(gpu.array({{4, 1}, {1, 3}}, "float64"))
    local b = gpu.array({gpu.complex(1, 1), 2}, "complex128")
    for _, f in ipairs({"cg", "gmres"}) do
      local x, info = L[f](A, b, {tol = 1e-12})
      assert.are.equal(0, info)
      assert.are.equal("complex128", x.dtype)
      local t = x:totable()
      close(1 / 11, t[1].re, 1e-9, f); close(3 / 11, t[1].im, 1e-9, f)
      close(7 / 11, t[2].re, 1e-9, f); close(-1 / 11, t[2].im, 1e-9, f)
    end
  end)
end)

describe("gpu.sparse.linalg's bad inputs", function()
  local A = laplacian(4, "float64")
  local b = gpu.ones(4, "float64")
  local cases = {
    {function() L.cg(gpu.ones({3, 4}), b) end, "A must be square, got 3 x 4"},
    {function() L.cg(A:astype("int32"), b) end, "A's dtype must be float32, float64, complex64 or complex128, got int32"},
    {function() L.cg(A, gpu.ones(5)) end, "b must have shape {4} or {4, 1} to match A, got {5}"},
    {function() L.cg(A, {1, 2, 3, 4}) end, "b must be a device array, got table"},
    {function() L.cg("A", b) end, "A must be a sparse matrix, a 2%-D device array or a LinearOperator, got string"},
    {function() L.cg(gpu.ones(4), b) end, "A must be 2%-D, got 1%-D"},
    {function() L.cg(A, b, {tol = -1}) end, "tol must be a non%-negative number, got %-1"},
    {function() L.cg(A, b, {maxiter = 0}) end, "maxiter must be a positive integer, got 0"},
    {function() L.cg(A, b, {M = gpu.eye(3)}) end, "M must be 4 x 4 to match A, got 3 x 3"},
    {function() L.cg(A, b, {callback = 1}) end, "callback must be a function, got number"},
    {function() L.cg(A, b, {axis = 1}) end, "unknown option 'axis'"},
    {function() L.cg(A, b, {tol = 1e-3, rtol = 1e-3}) end, "tol and rtol are one option: give one"},
    {function() L.cg(A, b, {rtol = -1}) end, "tol must be a non%-negative number, got %-1"},
    {function() L.cg(A, b, {x0 = gpu.ones(3)}) end, "x0 must have 4 elements, got 3"},
    {function() L.gmres(A, b, {restart = 0}) end, "restart must be a positive integer, got 0"},
    {function() L.gmres(A, b, {callback_type = "y"}) end, "callback_type must be"},
    {function() L.LinearOperator({4}, print) end, "shape must be a table {m, n}, got a table of 1 entry"},
    {function() L.LinearOperator({4, -1}, print) end, "shape%[2%] must be a non%-negative integer, got %-1"},
    -- a string shown quoted ("4" was 'got 4'), a table by its type, not its address
    {function() L.LinearOperator({"4", 4}, print) end, 'shape%[1%] must be a non%-negative integer, got a string %("4"%)'},
    {function() L.LinearOperator({4, 4, 4}, print) end, "shape must be a table {m, n}, got a table of 3 entries$"},
    {function() L.LinearOperator({4, 4}, 5) end, "matvec must be a function, got number"},
    {function() L.LinearOperator({4, 4}, print, {dtype = "float8"}) end, "dtype must be a dtype name, got float8"},
    {function() L.LinearOperator({4, 4}, print):rmatvec(b) end, "this operator has no rmatvec"},
    {function() L.cg(L.LinearOperator({4, 4}, function() return gpu.ones(3, "float64") end), b) end,
     "A's matvec must return a device array of 4 elements, got shape {3}"},
    {function() L.gmres(L.LinearOperator({4, 4}, function() return 5 end), b) end,
     "A's matvec must return a device array of 4 elements, got number"},
    {function() L.cgs(A, b, {M = L.LinearOperator({4, 4}, function() end)}) end,
     "M's matvec must return a device array of 4 elements, got nil"},
  }
  it("raise clear errors", function()
    for i, c in ipairs(cases) do
      local ok, e = pcall(c[1])
      assert.is_false(ok, "case " .. i)
      assert.is_truthy(tostring(e):find(c[2]), ("case %d: %s"):format(i, tostring(e)))
    end
    local freed = gpu.ones(4, "float64"); freed:free()
    assert.is_false(pcall(L.cg, A, freed))
    -- and the host goes on
    assert.are.equal(0, select(2, L.cg(A, b)))
  end)
end)
