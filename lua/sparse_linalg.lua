-- sparse_linalg.lua: gpu.sparse.linalg, iterative solvers of A x = b that only multiply by
-- A (cupyx.scipy.sparse.linalg's cg, cgs, gmres and minres, with the same iterations, so
-- the same iteration counts), and LinearOperator. A is a sparse matrix, a dense 2-D device
-- array or a LinearOperator; every vector stays on the device, and one number a step (the
-- residual's norm) comes to the host to decide whether to stop. Loaded at the first use of
-- gpu.sparse.linalg (gpu.lua).
local gpu, M = ...

local FLOATS = {float32 = true, float64 = true, complex64 = true, complex128 = true}

-- (raised without a place: gpu._api, below, puts the caller's line before it, from any depth)
local function fail(api, fmt, ...)
  error(("gpu.sparse.linalg.%s: " .. fmt):format(api, ...), 0)
end

-- LinearOperator: shape {m, n}, dtype, and functions applying it (scipy's; matvec is
-- required, matmat defaults to matvec column by column, rmatvec is optional)
local Operator = {}
Operator.__index = Operator
Operator.__name = "gpu.sparse.linalg.LinearOperator"
function Operator:__tostring()
  return ("<%d x %d LinearOperator with dtype=%s>"):format(self.shape[1], self.shape[2], self.dtype)
end
function Operator:matvec(x) return self._matvec(x) end
function Operator:rmatvec(x)
  if not self._rmatvec then error("gpu.sparse.linalg.LinearOperator: this operator has no rmatvec", 2) end
  return self._rmatvec(x)
end
function Operator:matmat(X)
  if self._matmat then return self._matmat(X) end
  local cols = {}
  for j = 1, X.shape[2] do cols[j] = self._matvec(X[{ {}, j }]) end
  return gpu.stack(cols, 2)
end
function Operator:dot(x)
  if gpu._is_array(x) and x.ndim == 2 then return self:matmat(x) end
  return self:matvec(x)
end

local function dims_of(shape, api)
  if type(shape) ~= "table" or #shape ~= 2 then
    fail(api, "shape must be a table {m, n}, got %s", type(shape) == "table"
         and ("a table of %d entr%s"):format(#shape, #shape == 1 and "y" or "ies") or gpu._arg.shown(shape))
  end
  for k = 1, 2 do
    local v = shape[k]
    if math.type(v) == "float" and v == math.floor(v) then v = math.tointeger(v) end
    if math.type(v) ~= "integer" or v < 0 then
      fail(api, "shape[%d] must be a non-negative integer, got %s", k, gpu._arg.shown(shape[k]))
    end
    shape[k] = v
  end
  return {shape[1], shape[2]}
end

-- gpu.sparse.linalg.LinearOperator(shape, matvec [, {rmatvec =, matmat =, dtype =}])
function M.LinearOperator(shape, matvec, opts)
  local api = "LinearOperator"
  shape = dims_of(shape, api)
  if type(matvec) ~= "function" then fail(api, "matvec must be a function, got %s", type(matvec)) end
  opts = gpu._arg.options(opts, "sparse.linalg.LinearOperator", "rmatvec matmat dtype")
  for _, k in ipairs({"rmatvec", "matmat"}) do
    if opts[k] ~= nil and type(opts[k]) ~= "function" then fail(api, "%s must be a function, got %s", k, type(opts[k])) end
  end
  local dtype = opts.dtype or "float64"
  local known = false
  for _, d in ipairs(gpu.dtypes) do known = known or d == dtype end
  if not known then fail(api, "dtype must be a dtype name, got %s", tostring(dtype)) end
  return setmetatable({shape = shape, dtype = dtype, ndim = 2, _matvec = matvec,
                       _rmatvec = opts.rmatvec, _matmat = opts.matmat}, Operator)
end

local function is_operator(v) return getmetatable(v) == Operator end

-- A as an operator: a LinearOperator, a dense 2-D device array or a sparse matrix
local function as_operator(A, api, what)
  if is_operator(A) then return A end
  if gpu._is_array(A) then
    if A.ndim ~= 2 then fail(api, "%s must be 2-D, got %d-D", what, A.ndim) end
    return setmetatable({shape = {A.shape[1], A.shape[2]}, dtype = A.dtype, ndim = 2,
                         _matvec = function(x) return gpu.matmul(A, x) end,
                         _rmatvec = function(x) return gpu.matmul(gpu.conj(A.T), x) end,
                         _matmat = function(X) return gpu.matmul(A, X) end}, Operator)
  end
  if gpu.sparse.issparse(A) then
    return setmetatable({shape = {A.shape[1], A.shape[2]}, dtype = A.dtype, ndim = 2,
                         _matvec = function(x) return A:dot(x) end,
                         _rmatvec = function(x) return A:conj():transpose():dot(x) end,
                         _matmat = function(X) return A:dot(X) end}, Operator)
  end
  fail(api, "%s must be a sparse matrix, a 2-D device array or a LinearOperator, got %s",
       what, gpu._described(A))
end

-- gpu.sparse.linalg.aslinearoperator(A)
function M.aslinearoperator(A) return as_operator(A, "aslinearoperator", "A") end

-- CuPy's stopping rule: ||r|| <= atol, atol = max(atol, tol * ||b||) (tol, or rtol, 1e-5)
local function tolerance(opts, bnorm)
  local tol = opts.tol or 1e-5
  if opts.atol == nil then return tol * bnorm end
  return math.max(opts.atol, tol * bnorm)
end

local function norm(v) return gpu.linalg.norm(v) end

-- The system's pieces, checked (CuPy's _make_system): A square of a float dtype, b of n
-- elements (n or n x 1) in A's dtype, x0 (zeros by default) a copy, M an operator (the
-- identity by default)
local function system(api, A, b, opts, known)
  local given = gpu._arg.options(opts, "sparse.linalg." .. api, known .. " rtol") or {}
  opts = {}   -- a copy: the caller's table is left as it was
  for k, v in pairs(given) do opts[k] = v end
  if opts.rtol ~= nil then   -- scipy 1.12's and CuPy 14's name for tol
    if opts.tol ~= nil then fail(api, "tol and rtol are one option: give one") end
    opts.tol, opts.rtol = opts.rtol, nil
  end
  A = as_operator(A, api, "A")
  local n = A.shape[1]
  if A.shape[2] ~= n then fail(api, "A must be square, got %d x %d", A.shape[1], A.shape[2]) end
  if not FLOATS[A.dtype] then
    fail(api, "A's dtype must be float32, float64, complex64 or complex128, got %s", A.dtype)
  end
  if not gpu._is_array(b) then fail(api, "b must be a device array, got %s", gpu._described(b)) end
  if not (b.ndim == 1 or (b.ndim == 2 and b.shape[2] == 1)) or b.shape[1] ~= n then
    fail(api, "b must have shape {%d} or {%d, 1} to match A, got {%s}", n, n, table.concat(b.shape, ", "))
  end
  if b.dtype:find("^complex") and not A.dtype:find("^complex") then
    -- a complex b with a real A: solved in complex, as scipy's (CuPy's drops b's imaginary part)
    local dt = A.dtype == "float32" and "complex64" or "complex128"
    A = setmetatable({shape = A.shape, dtype = dt, ndim = 2, _matvec = A._matvec, _rmatvec = A._rmatvec,
                      _matmat = A._matmat}, Operator)
  end
  b = b:reshape(n):astype(A.dtype)
  local x
  if opts.x0 ~= nil then
    local x0 = opts.x0
    if not gpu._is_array(x0) then fail(api, "x0 must be a device array, got %s", gpu._described(x0)) end
    if x0.size ~= n then fail(api, "x0 must have %d elements, got %d", n, x0.size) end
    x = x0:reshape(n):astype(A.dtype)   -- (a new array always)
  else
    x = gpu.zeros(n, A.dtype)
  end
  local Mop
  if opts.M ~= nil then
    Mop = as_operator(opts.M, api, "M")
    if Mop.shape[1] ~= n or Mop.shape[2] ~= n then
      fail(api, "M must be %d x %d to match A, got %d x %d", n, n, Mop.shape[1], Mop.shape[2])
    end
  end
  for _, k in ipairs({"tol", "atol"}) do
    if opts[k] ~= nil and (type(opts[k]) ~= "number" or opts[k] < 0 or opts[k] ~= opts[k]) then
      fail(api, "%s must be a non-negative number, got %s", k, tostring(opts[k]))
    end
  end
  local maxiter = opts.maxiter
  if maxiter ~= nil then
    if math.type(maxiter) == "float" and maxiter == math.floor(maxiter) then maxiter = math.tointeger(maxiter) end
    if math.type(maxiter) ~= "integer" or maxiter < 1 then
      fail(api, "maxiter must be a positive integer, got %s", tostring(opts.maxiter))
    end
  end
  if opts.callback ~= nil and type(opts.callback) ~= "function" then
    fail(api, "callback must be a function, got %s", type(opts.callback))
  end
  -- what an operator returns: n elements (n or n x 1), in the system's dtype
  local function result(v, what)
    if not gpu._is_array(v) or v.size ~= n then
      fail(api, "%s's matvec must return a device array of %d elements, got %s", what, n,
           gpu._is_array(v) and ("shape {" .. table.concat(v.shape, ", ") .. "}") or gpu._described(v))
    end
    v = v:reshape(n)
    return v.dtype == A.dtype and v or v:astype(A.dtype)
  end
  local matvec = function(v) return result(A._matvec(v), "A") end
  local psolve = Mop and function(v) return result(Mop._matvec(v), "M") end or function(v) return v end
  -- an empty system, or b = 0, is solved at once (`done`); else the stopping norm
  local bnorm = n > 0 and norm(b) or 0
  local done = n == 0 and gpu.empty(0, A.dtype) or bnorm == 0 and b or nil
  return A, b, x, matvec, psolve, opts, maxiter or 10 * n, done, bnorm, not done and tolerance(opts, bnorm) or nil
end


-- gpu.sparse.linalg.cg(A, b [, {x0 =, tol =, atol =, maxiter =, M =, callback =}]): x and
-- info (0: converged; else the iterations made): conjugate gradients, for A Hermitian
-- positive definite
function M.cg(A, b, opts)
  local x, matvec, psolve, maxiter, done, bnorm, atol
  A, b, x, matvec, psolve, opts, maxiter, done, bnorm, atol = system("cg", A, b, opts, "x0 tol atol maxiter M callback")
  if done then return done, 0 end
  local r = b - matvec(x)
  local p, rho
  local resid = norm(r)
  if resid <= atol then return x, 0 end   -- x0 solves it (its first step would be 0 / 0)
  local iters = 0
  while iters < maxiter do
    local z = psolve(r)
    local rho1 = rho
    rho = gpu.vdot(r, z)
    if iters == 0 then p = z:copy() else p = z + (rho / rho1) * p end
    local q = matvec(p)
    local alpha = rho / gpu.vdot(p, q)
    x = x + alpha * p
    r = r - alpha * q
    iters = iters + 1
    if opts.callback then opts.callback(x) end
    resid = norm(r)
    if resid <= atol then break end
  end
  local info = 0
  if iters == maxiter and not (resid <= atol) then info = iters end
  return x, info
end

-- gpu.sparse.linalg.cgs(A, b [, opts as cg's]): conjugate gradients squared (any square A)
function M.cgs(A, b, opts)
  local x, matvec, psolve, maxiter, done, bnorm, atol
  A, b, x, matvec, psolve, opts, maxiter, done, bnorm, atol = system("cgs", A, b, opts, "x0 tol atol maxiter M callback")
  if done then return done, 0 end
  local r0 = b - matvec(x)
  local resid = norm(r0)
  if resid <= atol then return x, 0 end   -- x0 solves it (its first step would be 0 / 0)
  local rho = gpu.vdot(r0, r0)
  local r, u, p = r0:copy(), r0:copy(), r0:copy()
  local iters = 0
  while iters < maxiter do
    local y = psolve(p)
    local v = matvec(y)
    local alpha = rho / gpu.vdot(r0, v)
    local q = u - alpha * v
    local z = psolve(u + q)
    x = x + alpha * z
    r = r - alpha * matvec(z)
    iters = iters + 1
    if opts.callback then opts.callback(x) end
    resid = norm(r)
    if resid <= atol then break end
    local rho1 = rho
    rho = gpu.vdot(r0, r)
    local beta = rho / rho1
    u = r + beta * q
    p = u + beta * (q + beta * p)
  end
  local info = 0
  if iters == maxiter and not (resid <= atol) then info = iters end
  return x, info
end

-- The least-squares solution y of H y = e (H (k+1) x k upper Hessenberg, e = beta e1), on
-- the host by Givens rotations: H's k + 1 rows of complex numbers as {re, im} pairs
local function cmul(a, b) return {a[1] * b[1] - a[2] * b[2], a[1] * b[2] + a[2] * b[1]} end
local function cconj(a) return {a[1], -a[2]} end
local function cabs(a) return math.sqrt(a[1] * a[1] + a[2] * a[2]) end
local function cdiv(a, b)
  local d = b[1] * b[1] + b[2] * b[2]
  return {(a[1] * b[1] + a[2] * b[2]) / d, (a[2] * b[1] - a[1] * b[2]) / d}
end
local function hessenberg_lstsq(H, beta, k)
  local g = {{beta, 0}}
  for i = 2, k + 1 do g[i] = {0, 0} end
  for j = 1, k do
    local a, b = H[j][j], H[j + 1][j]
    local r = math.sqrt(cabs(a) ^ 2 + cabs(b) ^ 2)
    local c, s   -- c real, s complex: [c s; -conj(s) c] [a; b] = [r'; 0]
    if r == 0 then c, s = 1, {0, 0}
    else
      local abs_a = cabs(a)
      if abs_a == 0 then c, s = 0, cdiv(cconj(b), {cabs(b), 0})
      else
        c = abs_a / r
        local phase = {a[1] / abs_a, a[2] / abs_a}
        s = cmul(phase, cdiv(cconj(b), {r, 0}))
      end
    end
    for col = j, k do
      local x, y = H[j][col], H[j + 1][col]
      local nx = {c * x[1] + cmul(s, y)[1], c * x[2] + cmul(s, y)[2]}
      local sc = cmul(cconj(s), x)
      H[j][col], H[j + 1][col] = nx, {c * y[1] - sc[1], c * y[2] - sc[2]}
    end
    local x, y = g[j], g[j + 1]
    local sy, sc = cmul(s, y), cmul(cconj(s), x)
    g[j], g[j + 1] = {c * x[1] + sy[1], c * x[2] + sy[2]}, {c * y[1] - sc[1], c * y[2] - sc[2]}
  end
  local y = {}
  for i = k, 1, -1 do
    local acc = g[i]
    for j = i + 1, k do
      local t = cmul(H[i][j], y[j])
      acc = {acc[1] - t[1], acc[2] - t[2]}
    end
    y[i] = H[i][i][1] == 0 and H[i][i][2] == 0 and {0, 0} or cdiv(acc, H[i][i])
  end
  return y
end

-- H's first k + 1 rows and k columns, on the host as {re, im} pairs
local function host_matrix(Hd, k, complex)
  local t = Hd[{ {1, k + 1}, {1, k} }]:astype(complex and "complex128" or "float64"):totable()
  local H = {}
  for i = 1, k + 1 do
    H[i] = {}
    for j = 1, k do
      local v = t[i][j]
      H[i][j] = complex and {v.re, v.im} or {v, 0}
    end
  end
  return H
end

-- gpu.sparse.linalg.gmres(A, b [, {x0 =, tol =, atol =, restart =, maxiter =, M =,
-- callback =, callback_type =}]): restarted GMRES (CuPy's: `restart` Arnoldi steps a
-- cycle, classical Gram-Schmidt on the device, the small least-squares problem on the host;
-- maxiter counts steps, as CuPy's, where scipy's counts cycles). A cycle that finds an exact
-- solution early (a zero subdiagonal) stops there, where CuPy's would divide by zero; info
-- is the steps made unless it converged, where CuPy's is 0 when maxiter is not a multiple of
-- restart.
function M.gmres(A, b, opts)
  local x, matvec, psolve, maxiter, done, bnorm, atol
  A, b, x, matvec, psolve, opts, maxiter, done, bnorm, atol = system("gmres", A, b, opts,
    "x0 tol atol restart maxiter M callback callback_type")
  if done then return done, 0 end
  local n = A.shape[1]
  local restart = opts.restart or 20
  if math.type(restart) == "float" and restart == math.floor(restart) then restart = math.tointeger(restart) end
  if math.type(restart) ~= "integer" or restart < 1 then
    fail("gmres", "restart must be a positive integer, got %s", tostring(opts.restart))
  end
  restart = math.min(restart, n)
  local ctype = opts.callback_type or "pr_norm"
  if ctype ~= "pr_norm" and ctype ~= "x" and ctype ~= "legacy" then
    fail("gmres", "callback_type must be \"pr_norm\", \"x\" or \"legacy\", got %s", tostring(ctype))
  end
  local complex = A.dtype:find("^complex") ~= nil
  local V = gpu.empty({restart, n}, A.dtype)        -- the basis, a row a vector
  local H = gpu.zeros({restart + 1, restart}, A.dtype)
  -- right-preconditioned: the iterate is x itself (x0 first), its steps M (V y); CuPy's takes
  -- M x as the iterate, so that x0 itself was never tried (M x0 was)
  local iters, r_norm = 0, nil
  while true do
    local r = b - matvec(x)
    r_norm = norm(r)
    if opts.callback then
      if ctype == "x" then opts.callback(x)
      elseif iters > 0 then opts.callback(r_norm / bnorm) end
    end
    if r_norm <= atol or iters >= maxiter then break end
    V[{1}] = r / r_norm
    H:fill(0)
    local k = restart
    for j = 1, restart do
      local u = matvec(psolve(V[{j}]))
      local Vj = V[{ {1, j} }]
      local h = gpu.matmul(gpu.conj(Vj), u)           -- <v_i, u>, i = 1..j
      u = u - gpu.matmul(h, Vj)
      H[{ {1, j}, j }] = h
      local unorm = norm(u)
      H[{ j + 1, j }] = unorm
      if unorm == 0 then k = j; break end               -- the space is invariant: exact
      if j < restart then V[{j + 1}] = u / unorm end
    end
    local y = hessenberg_lstsq(host_matrix(H, k, complex), r_norm, k)
    local yv
    if complex then
      local z = {}
      for i = 1, k do z[i] = gpu.complex(y[i][1], y[i][2]) end
      yv = gpu.array(z, A.dtype)
    else
      local re = {}
      for i = 1, k do re[i] = y[i][1] end
      yv = gpu.array(re, A.dtype)
    end
    x = x + psolve(gpu.matmul(yv, V[{ {1, k} }]))
    iters = iters + restart
  end
  return x, (r_norm <= atol) and 0 or iters   -- CuPy's gives 0 when maxiter is not a multiple of restart
end

-- their arrays and matrices (x0's, M's too) on the current device, checked first
for _, name in ipairs({"LinearOperator", "aslinearoperator", "cg", "cgs", "gmres"}) do
  M[name] = gpu._api(gpu._arg.on_device("sparse.linalg." .. name, M[name]))
end
return M
