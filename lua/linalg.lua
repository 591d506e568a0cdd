-- linalg.lua: gpu.linalg, NumPy's numpy.linalg (CuPy's cupy.linalg) on LAPACK's routines
-- (gpu._linalg, host/linalg.c: cuSOLVER on the GPU, LAPACK on the CPU backend). Loaded at
-- the first call of one (lua/gpu.lua). Every function takes a matrix or a batch of them
-- (the dims before the last two), works on a copy in the layout the routine wants (LAPACK
-- is column-major: a C-ordered (n, m) buffer holds an m x n matrix, so a result there is
-- its transpose, a view), and reads the routines' statuses back: a singular matrix, one
-- not positive definite or no convergence is an error, as NumPy's LinAlgError, so each
-- call waits for the device.
local gpu = ...
local linalg = gpu.linalg

local is_array = gpu._is_array

local function fail(api, level, fmt, ...)
  error(("gpu.linalg.%s: " .. fmt):format(api, ...), level + 1)
end

-- The dtype LAPACK computes a in: float32 to complex128 kept, others float64 (NumPy's)
local function la_dtype(dt)
  if dt == "float32" or dt == "float64" or dt == "complex64" or dt == "complex128" then return dt end
  return "float64"
end
local real_of = {float32 = "float32", float64 = "float64", complex64 = "float32", complex128 = "float64"}
local eps_of = {float32 = 2 ^ -23, float64 = 2 ^ -52}

-- a, checked: a device array of at least two dims (square ones when `square`); its batch
-- dims (a table), their product and the matrices' rows and columns. `up`: how many helpers
-- lie between the public function and this call (errors name the user's line).
local function matrices(a, api, square, up)
  local level = 3 + (up or 0)
  if not is_array(a) then
    fail(api, level, "argument 1 must be a device array, got %s", type(a))
  end
  if a.ndim < 2 then
    fail(api, level, "argument 1 is %d-dimensional: it must have at least two dimensions", a.ndim)
  end
  local m, n = a.shape[a.ndim - 1], a.shape[a.ndim]
  if square and m ~= n then
    fail(api, level, "the last two dimensions of argument 1 must be square, got %d x %d", m, n)
  end
  local batch, count = {}, 1
  for d = 1, a.ndim - 2 do batch[d] = a.shape[d]; count = count * a.shape[d] end
  return batch, count, m, n
end

local function shape_of(batch, ...)
  local s = table.move(batch, 1, #batch, 1, {})
  for _, d in ipairs({...}) do s[#s + 1] = d end
  return s
end

-- A new C-ordered array of shape s and dtype dt holding x (converted, broadcast): the
-- routines overwrite it, so never x itself
local function fresh(x, s, dt)
  local w = gpu.empty(s, dt)
  if w.size > 0 then w:copy_(x) end
  return w
end

-- A new buffer holding the matrices of a (batch, m, n) column-major: C-ordered (batch, n, m)
local function colmajor(a, batch, m, n, dt)
  return fresh(a:transpose(-1, -2), shape_of(batch, n, m), dt)
end

local function tr(x) return x:transpose(-1, -2) end

local messages = {getrf = "singular matrix", potrf = "the matrix is not positive definite",
                  syevd = "the eigenvalues did not converge", gesvd = "the SVD did not converge"}

-- Queues op over the batch (args: gpu._linalg's table less info and batch); the statuses
local function run(op, count, args)
  args.info = gpu.empty(count, "int32")
  args.batch = count
  if count > 0 then gpu._linalg(op, args) end
  return args.info
end

-- The statuses of op read back: a failure is an error naming the matrix of the batch
-- (`up` as matrices')
local function check(api, op, info, up)
  local t, level = info:totable(), 3 + (up or 0)
  for i = 1, #t do
    if t[i] ~= 0 then
      local which = #t > 1 and (" (matrix %d of the batch)"):format(i) or ""
      if t[i] < 0 then fail(api, level, "%s: argument %d was invalid%s", op, -t[i], which) end
      fail(api, level, "%s%s", messages[op], which)
    end
  end
end

-- The broadcast batch shape of two arrays' batch dims (their last `keep_a`, `keep_b` dims apart)
local function broadcast_batch(api, a, keep_a, b, keep_b)
  local na, nb = a.ndim - keep_a, b.ndim - keep_b
  local n, s = math.max(na, nb), {}
  for i = 1, n do
    local x = i - (n - na) >= 1 and a.shape[i - (n - na)] or 1
    local y = i - (n - nb) >= 1 and b.shape[i - (n - nb)] or 1
    if x ~= y and x ~= 1 and y ~= 1 then
      fail(api, 3, "the batch dims of the operands do not broadcast (%d against %d at dim %d)", x, y, i)
    end
    s[i] = x == 1 and y or x
  end
  return s
end

local function product(s) local c = 1 for _, d in ipairs(s) do c = c * d end return c end

-- gpu.linalg.solve(a, b): x with a @ x = b, a (..., n, n), b (..., n, k), or (n) when b is
-- 1-D (NumPy 2's rule); batch dims broadcast. LU with partial pivoting (getrf, getrs), in
-- the stored transpose: the C-ordered copy of a is a^T column-major, solved transposed.
function linalg.solve(a, b)
  local _, _, n = matrices(a, "solve", true)
  if not is_array(b) then fail("solve", 2, "argument 2 must be a device array, got %s", type(b)) end
  local vector = b.ndim == 1
  if b.ndim == 0 then fail("solve", 2, "argument 2 must have at least one dimension") end
  local bn = vector and b.shape[1] or b.shape[b.ndim - 1]
  if bn ~= n then fail("solve", 2, "a is %d x %d but b has %d rows", n, n, bn) end
  local k = vector and 1 or b.shape[b.ndim]
  local batch = broadcast_batch("solve", a, 2, b, vector and 1 or 2)
  local count, dt = product(batch), la_dtype(gpu.result_type(a, b))
  local lu = fresh(a:expand(shape_of(batch, n, n)), shape_of(batch, n, n), dt)
  local bv = vector and b:reshape(n, 1) or b
  local x = colmajor(bv:expand(shape_of(batch, n, k)), batch, n, k, dt)
  local ipiv = gpu.empty(shape_of(batch, n), "int64")
  if n > 0 and k > 0 then
    local info = run("getrf", count, {a = lu, ipiv = ipiv, m = n, n = n, k = 0})
    run("getrs", count, {a = lu, ipiv = ipiv, b = x, m = n, n = n, k = k, trans = true})
    check("solve", "getrf", info)
  end
  if vector then return x:reshape(shape_of(batch, n)) end
  return tr(x)
end

-- The inverses of a's matrices (inv's, and matrix_power's for p < 0; `up` as matrices').
-- The C-ordered copy of a is a^T column-major; solving a^T y = I gives y = inv(a)^T
-- column-major, which is inv(a) C-ordered.
local function inverse(a, api, batch, count, n, up)
  local dt = la_dtype(a.dtype)
  local lu, ipiv = fresh(a, a.shape, dt), gpu.empty(shape_of(batch, n), "int64")
  local x = fresh(gpu.eye(n, dt):expand(a.shape), a.shape, dt)
  if n > 0 then
    local info = run("getrf", count, {a = lu, ipiv = ipiv, m = n, n = n, k = 0})
    run("getrs", count, {a = lu, ipiv = ipiv, b = x, m = n, n = n, k = n})
    check(api, "getrf", info, up)
  end
  return x
end

-- gpu.linalg.inv(a): a's inverse, (..., n, n)
function linalg.inv(a)
  local batch, count, n = matrices(a, "inv", true)
  local x = inverse(a, "inv", batch, count, n, 1)
  return x
end

-- The LU factors of a's matrices (of a^T: the same determinant) and the sign of each
-- one's row swaps, (count, n, n) and (count)
local function lu_sign(a, api)
  local batch, count, n = matrices(a, api, true, 1)
  local dt = la_dtype(a.dtype)
  local lu = fresh(a, shape_of({count}, n, n), dt)
  local ipiv = gpu.empty({count, n}, "int64")
  if n > 0 then run("getrf", count, {a = lu, ipiv = ipiv, m = n, n = n, k = 0}) end   -- U(i,i) = 0: det 0
  local swaps = ipiv:ne(gpu.arange(1, n + 1, "int64")):sum(-1)
  local diag = n > 0 and lu:reshape(count, n * n)[{ {}, {1, n * n, n + 1} }] or gpu.empty({count, 0}, dt)
  return batch, diag, 1 - 2 * (swaps % 2), dt
end

-- A result over the batch: an array of its shape, a Lua number when there is none
local function per_matrix(x, batch)
  if #batch == 0 then return x:item() end
  return x:reshape(batch)
end

-- gpu.linalg.det(a): the determinant of each matrix (the product of its LU diagonal, signed
-- by its row swaps); a Lua number for one matrix
function linalg.det(a)
  local batch, diag, sign = lu_sign(a, "det")
  local d = diag:prod(-1) * sign
  return per_matrix(d:astype(diag.dtype), batch)
end

-- gpu.linalg.slogdet(a): sign, logabsdet: det(a) = sign * exp(logabsdet) without overflow
-- (sign 0 and logabsdet -inf for a singular matrix; a complex sign for complex a)
function linalg.slogdet(a)
  local batch, diag, sign = lu_sign(a, "slogdet")
  local mag = gpu.abs(diag)
  local unit = gpu.where(mag:eq(0), 0, diag / gpu.where(mag:eq(0), 1, mag))
  local s = (unit:prod(-1) * sign):astype(diag.dtype)
  local logabs = gpu.log(mag):sum(-1):astype(real_of[diag.dtype])
  return per_matrix(s, batch), per_matrix(logabs, batch)
end

-- gpu.linalg.cholesky(a): L, lower triangular, with a = L L^H, from a's lower triangle
-- (potrf on a column-major copy; the upper triangle it leaves is zeroed by tril)
function linalg.cholesky(a)
  local batch, count, n = matrices(a, "cholesky", true)
  local dt = la_dtype(a.dtype)
  local w = colmajor(a, batch, n, n, dt)
  if n > 0 then check("cholesky", "potrf", run("potrf", count, {a = w, m = n, n = n, k = 0})) end
  return gpu.tril(tr(w))
end

-- gpu.linalg.qr(a [, mode]): Q, R with a = Q R (mode "reduced", the default: Q (m, k), R
-- (k, n), k = min(m, n); "complete": Q (m, m), R (m, n)); mode "r": R alone. Householder
-- QR (geqrf), then Q made from its reflectors (orgqr) in a buffer of its own.
function linalg.qr(a, mode)
  local batch, count, m, n = matrices(a, "qr")
  mode = mode or "reduced"
  if mode ~= "reduced" and mode ~= "complete" and mode ~= "r" then
    fail("qr", 2, "mode must be \"reduced\", \"complete\" or \"r\", got %s", tostring(mode))
  end
  local dt, k = la_dtype(a.dtype), math.min(m, n)
  local w = colmajor(a, batch, m, n, dt)
  local tau = gpu.zeros(shape_of(batch, k), dt)
  if k > 0 then run("geqrf", count, {a = w, tau = tau, m = m, n = n, k = 0}) end
  local rows = mode == "complete" and m or k
  local r = gpu.triu(tr(w):narrow(-2, 1, rows))
  if mode == "r" then return r end
  local qc = mode == "complete" and m or k
  local q = gpu.zeros(shape_of(batch, qc, m), dt)
  if k > 0 then q:narrow(-2, 1, k):copy_(w:narrow(-2, 1, k)) end
  if qc > 0 and m > 0 then
    if k > 0 then run("orgqr", count, {a = q, tau = tau, m = m, n = qc, k = k})
    else q:copy_(gpu.eye(m, dt):expand(q.shape)) end   -- no reflectors: Q is I
  end
  return tr(q), r
end

-- The work of eigh and eigvalsh: syevd on the Hermitian matrix made from a's lower (uplo
-- "L") or upper ("U") triangle. The column-major copy of a has its lower triangle; that
-- of conj(a)^T (the C-ordered copy of conj(a)) has the upper one, as a lower triangle.
local function syevd(a, api, uplo, vectors)
  local batch, count, n = matrices(a, api, true, 1)
  uplo = uplo or "L"
  if uplo ~= "L" and uplo ~= "U" then fail(api, 3, "UPLO must be \"L\" or \"U\", got %s", tostring(uplo)) end
  local dt = la_dtype(a.dtype)
  local w = uplo == "L" and colmajor(a, batch, n, n, dt) or fresh(gpu.conj(a), a.shape, dt)
  local vals = gpu.empty(shape_of(batch, n), real_of[dt])
  if n > 0 then check(api, "syevd", run("syevd", count, {a = w, w = vals, m = n, n = n, k = 0, vectors = vectors}), 1) end
  return vals, tr(w)
end

-- gpu.linalg.eigh(a [, UPLO]): the eigenvalues (ascending, real) and eigenvectors (the
-- columns of v) of Hermitian (real symmetric) a, from its lower triangle ("U": upper)
function linalg.eigh(a, uplo)
  local w, v = syevd(a, "eigh", uplo, true)   -- not a tail call: syevd's errors count this frame
  return w, v
end
-- gpu.linalg.eigvalsh(a [, UPLO]): the eigenvalues alone
function linalg.eigvalsh(a, uplo) return (syevd(a, "eigvalsh", uplo, false)) end

-- The work of svd, pinv and matrix_rank (a checked by the caller, matrices): u, s, vt of
-- a's matrices. gesvd wants m >= n: a taller matrix goes column-major as it is; a wider
-- one goes C-ordered, which is a^T column-major (n x m), whose u and vt, read C-ordered,
-- are a's vh and u. A NaN or an infinity is NumPy's LinAlgError ("SVD did not converge"),
-- checked first: LAPACK's scaling would print its own complaint and return garbage.
local function svd_of(a, api, batch, count, m, n, full, uv)
  local dt, k = la_dtype(a.dtype), math.min(m, n)
  local tall = m >= n
  local rows, cols = tall and m or n, tall and n or m   -- what gesvd sees
  local w = tall and colmajor(a, batch, m, n, dt) or fresh(a, a.shape, dt)
  local s = gpu.empty(shape_of(batch, k), real_of[dt])
  local u = uv and gpu.empty(shape_of(batch, full and rows or cols, rows), dt)
  local vt = uv and gpu.empty(shape_of(batch, cols, cols), dt)
  if k > 0 and count > 0 then
    if not gpu.isfinite(w):all() then fail(api, 3, "%s (the matrix has a NaN or an infinity)", messages.gesvd) end
    check(api, "gesvd", run("gesvd", count, {a = w, w = s, u = u, vt = vt, m = rows, n = cols, k = 0,
                                             vectors = uv, full = full}), 1)
  elseif uv then   -- an empty matrix: NumPy's identities
    for _, x in ipairs({u, vt}) do
      if x.size > 0 then x:copy_(gpu.eye(x.shape[x.ndim], dt):expand(x.shape)) end
    end
  end
  if not uv then return s end
  if tall then return tr(u), s, tr(vt) end
  return vt, s, u
end

-- gpu.linalg.svd(a [, {full_matrices = false, compute_uv = false}]): u, s, vh with a = u
-- diag(s) vh, s descending (real); u (m, m) and vh (n, n), or (m, k) and (k, n) without
-- full matrices; s alone without compute_uv
function linalg.svd(a, opts)
  local batch, count, m, n = matrices(a, "svd")
  if opts ~= nil and type(opts) ~= "table" then fail("svd", 2, "argument 2 must be a table of options") end
  opts = opts or {}
  local uv = opts.compute_uv ~= false
  local u, s, vh = svd_of(a, "svd", batch, count, m, n, opts.full_matrices ~= false, uv)
  if not uv then return u end
  return u, s, vh
end

-- gpu.linalg.pinv(a [, rcond]): the Moore-Penrose pseudo-inverse, (..., n, m), from the SVD:
-- singular values at or below rcond (1e-15) times the largest are taken as 0, as NumPy
function linalg.pinv(a, rcond)
  local batch, count, m, n = matrices(a, "pinv")
  rcond = rcond or 1e-15
  if type(rcond) ~= "number" then fail("pinv", 2, "rcond must be a number, got %s", type(rcond)) end
  local dt = la_dtype(a.dtype)
  if m == 0 or n == 0 then return gpu.zeros(shape_of({table.unpack(a.shape, 1, a.ndim - 2)}, n, m), dt) end
  local u, s, vh = svd_of(a, "pinv", batch, count, m, n, false, true)
  local cutoff = s:max(-1, {keepdim = true}) * rcond
  local sinv = gpu.where(s:gt(cutoff), 1 / gpu.where(s:gt(cutoff), s, 1), 0):astype(s.dtype)
  local vs = tr(gpu.conj(vh)) * sinv:unsqueeze(-2)
  return gpu.matmul(vs:astype(dt), tr(gpu.conj(u)))
end

-- gpu.linalg.matrix_rank(a [, tol]): the number of singular values above tol (by default
-- the largest times max(m, n) times the dtype's epsilon, as NumPy); a 1-D a: 1 unless all
-- zero. A Lua integer for one matrix, else an int64 array.
function linalg.matrix_rank(a, tol)
  if is_array(a) and a.ndim < 2 then
    if a.ndim == 0 then fail("matrix_rank", 2, "argument 1 must have at least one dimension") end
    return a:ne(0):any() and 1 or 0
  end
  local batch, count, m, n = matrices(a, "matrix_rank")
  if tol ~= nil and type(tol) ~= "number" then fail("matrix_rank", 2, "tol must be a number, got %s", type(tol)) end
  local s = svd_of(a, "matrix_rank", batch, count, m, n, false, false)
  if s.shape[s.ndim] == 0 then return per_matrix(gpu.zeros(math.max(product(batch), 1), "int64"), batch) end
  local t = tol or s:max(-1, {keepdim = true}) * (math.max(m, n) * eps_of[s.dtype])
  return per_matrix(s:gt(t):sum(-1), batch)
end

-- gpu.linalg.matrix_power(a, p): a @ a @ ... (p times; p = 0 the identity, p < 0 powers of
-- inv(a)), by repeated squaring with gpu.matmul
function linalg.matrix_power(a, p)
  local batch, count = matrices(a, "matrix_power", true)
  if math.type(p) ~= "integer" then
    fail("matrix_power", 2, "the exponent must be an integer, got %s", tostring(p))
  end
  local n = a.shape[a.ndim]
  if p == 0 then return fresh(gpu.eye(n, la_dtype(a.dtype)):expand(a.shape), a.shape, a.dtype) end
  local base = p < 0 and inverse(a, "matrix_power", batch, count, n, 1) or a
  p = math.abs(p)   -- read as unsigned (>>, &): math.mininteger's stays -2^63, which is 2^63
  local result
  while p ~= 0 do
    if p & 1 == 1 then result = result and gpu.matmul(result, base) or base end
    p = p >> 1
    if p ~= 0 then base = gpu.matmul(base, base) end
  end
  return result == a and fresh(a, shape_of(batch, n, n), a.dtype) or result
end

-- gpu.linalg.norm: gpu.norm (vector norms; "fro" for matrices)
linalg.norm = gpu.norm
