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

-- Arrays of another device are refused as every operation refuses them (host/array.c's
-- array_here): LAPACK works on the current device (the copies it made there read the
-- other device's memory, or failed naming the copy)
local function here(api, ...)
  local list = {}
  for i, x in ipairs({...}) do list[2 * i - 1], list[2 * i] = x, "an array" end
  gpu._arg.here("linalg." .. api, list)
end

-- The dtype LAPACK computes a in: float32 to complex128 kept, others float64 (NumPy's)
local function la_dtype(dt)
  if dt == "float32" or dt == "float64" or dt == "complex64" or dt == "complex128" then return dt end
  return "float64"
end
-- ... of two arrays: each one's (an integer or bool counts as float64), then promoted, as
-- NumPy's _commonType (uint8 with float32 is float64, where their result_type is float32)
local function la_common(a, b) return gpu.result_type(la_dtype(a.dtype), la_dtype(b.dtype)) end
local real_of = {float32 = "float32", float64 = "float64", complex64 = "float32", complex128 = "float64"}
local eps_of = {float32 = 2 ^ -23, float64 = 2 ^ -52}

-- The dimensions the backend's library takes (an int: LAPACK's below 2^30 on the CPU backend,
-- host/cpu/lapack.c; cuSOLVER's below 2^31): d refused in words naming api, before any copy
-- (`what`: what is that large; `level` as fail's). The library's own error named neither.
local function lapack_dim(d, what, api, level)
  local lib, bits = "cuSOLVER", 31
  if gpu.backend() == "cpu" then lib, bits = "LAPACK", 30 end
  if d >= 1 << bits then
    fail(api, level + 1, "%s: %s takes dimensions below 2^%d", what, lib, bits)
  end
end

-- a, checked: a device array of at least two dims (square ones when `square`); its batch
-- dims (a table), their product and the matrices' rows and columns. `up`: how many helpers
-- lie between the public function and this call (errors name the user's line).
local function matrices(a, api, square, up)
  local level = 3 + (up or 0)
  if not is_array(a) then
    fail(api, level, "argument 1 must be a device array, got %s", type(a))
  end
  here(api, a)
  if a.ndim < 2 then
    fail(api, level, "argument 1 is %d-dimensional: it must have at least two dimensions", a.ndim)
  end
  if a.dtype == "float16" and api ~= "matrix_power" then   -- NumPy and CuPy refuse it too
    fail(api, level, "float16 arrays are not supported in linear algebra: convert with a:astype('float32')")
  end
  local m, n = a.shape[a.ndim - 1], a.shape[a.ndim]
  if square and m ~= n then
    fail(api, level, "the last two dimensions of argument 1 must be square, got %d x %d", m, n)
  end
  if m > 0 and n > 0 then   -- (an empty matrix reaches no routine)
    lapack_dim(math.max(m, n), ("the matrices are %d x %d"):format(m, n), api, level)
  end
  local batch, count = {}, 1
  for d = 1, a.ndim - 2 do batch[d] = a.shape[d]; count = count * a.shape[d] end
  return batch, count, m, n
end

-- The refusal matrices() makes, for b of solve and lstsq and for the functions that reach
-- it through inv or solve (so that the error names them and the user's line)
local function no_float16(api, ...)
  for _, x in ipairs({...}) do
    if x.dtype == "float16" then
      fail(api, 3, "float16 arrays are not supported in linear algebra: convert with a:astype('float32')")
    end
  end
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
  if info.size > 8 and info:count_nonzero() == 0 then return end   -- a large batch's statuses read as one number
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

local product = gpu._arg.product

-- gpu.linalg.solve(a, b): x with a @ x = b, a (..., n, n), b (..., n, k), or (n) when b is
-- 1-D (NumPy 2's rule); batch dims broadcast. LU with partial pivoting (getrf, getrs) of a
-- itself, a column-major copy, as NumPy's: that of a^T (the C-ordered copy) pivots on
-- columns, and two equal rows of a left a pivot of rounding (-4e-16) where a's own LU has
-- an exact 0, so a singular a was solved into garbage. Errors name api (tensorsolve's
-- too: they named solve).
local function solve(api, a, b)
  local _, _, n = matrices(a, api, true)
  if not is_array(b) then fail(api, 2, "argument 2 must be a device array, got %s", type(b)) end
  here(api, b)
  no_float16(api, b)   -- la_common would take it as float64
  local vector = b.ndim == 1
  if b.ndim == 0 then fail(api, 2, "argument 2 must have at least one dimension") end
  local bn = vector and b.shape[1] or b.shape[b.ndim - 1]
  if bn ~= n then fail(api, 2, "a is %d x %d but b has %d rows", n, n, bn) end
  local k = vector and 1 or b.shape[b.ndim]
  if n > 0 then lapack_dim(k, ("b has %d columns"):format(k), api, 2) end
  local batch = broadcast_batch(api, a, 2, b, vector and 1 or 2)
  local count, dt = product(batch), la_common(a, b)
  local lu = colmajor(a:expand(shape_of(batch, n, n)), batch, n, n, dt)
  local bv = vector and b:reshape(n, 1) or b
  local x = colmajor(bv:expand(shape_of(batch, n, k)), batch, n, k, dt)
  local ipiv = gpu.empty(shape_of(batch, n), "int32")
  if n > 0 then   -- a singular a is an error without right-hand sides too (k = 0), as NumPy's
    local info = run("getrf", count, {a = lu, ipiv = ipiv, m = n, n = n, k = 0})
    if k > 0 then run("getrs", count, {a = lu, ipiv = ipiv, b = x, m = n, n = n, k = k}) end
    check(api, "getrf", info)
  end
  if vector then return x:reshape(shape_of(batch, n)) end
  return tr(x)
end
function linalg.solve(a, b)
  local x = solve("solve", a, b)
  return x
end

-- The inverses of a's matrices, with GETRF's statuses (INV: the LU factors, then the
-- inverse out of place). a is factored itself, a column-major copy, as solve's (NumPy's
-- LU: a singular a's exact 0 pivot); its inverse lands column-major: a transposed view.
local function inverted(a, batch, count, n)
  local dt = la_dtype(a.dtype)
  local lu, ipiv, x = colmajor(a, batch, n, n, dt), gpu.empty(shape_of(batch, n), "int32"), gpu.empty(a.shape, dt)
  local info = n > 0 and run("inv", count, {a = lu, ipiv = ipiv, b = x, m = n, n = n, k = n})
  return tr(x), info
end

-- The inverses of a's matrices (inv's, and matrix_power's for p < 0; `up` as matrices'):
-- a singular one is an error
local function inverse(a, api, batch, count, n, up)
  local x, info = inverted(a, batch, count, n)
  if info then check(api, "getrf", info, up) end
  return x
end

-- gpu.linalg.inv(a): a's inverse, (..., n, n)
function linalg.inv(a)
  local batch, count, n = matrices(a, "inv", true)
  local x = inverse(a, "inv", batch, count, n, 1)
  return x
end

-- The LU factors of a's matrices (of a itself, column-major, as NumPy's: a singular
-- matrix's pivot is an exact 0, where a^T's could be rounding) and the sign of each
-- one's row swaps, (count, n, n) and (count)
local function lu_sign(a, api)
  local batch, count, n = matrices(a, api, true, 1)
  local dt = la_dtype(a.dtype)
  local lu = colmajor(a, batch, n, n, dt):reshape(count, n, n)
  local ipiv = gpu.empty({count, n}, "int32")
  if n > 0 then run("getrf", count, {a = lu, ipiv = ipiv, m = n, n = n, k = 0}) end   -- U(i,i) = 0: det 0
  local swaps = ipiv:ne(gpu.arange(1, n + 1, "int32")):sum(-1)
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
  d = gpu.where(d:eq(0), 0, d)   -- a singular matrix's 0 is +0, as NumPy's (sign times -0 was -0)
  return per_matrix(d:astype(diag.dtype), batch)
end

-- gpu.linalg.slogdet(a): sign, logabsdet: det(a) = sign * exp(logabsdet) without overflow
-- (sign 0 and logabsdet -inf for a singular matrix; a complex sign for complex a)
function linalg.slogdet(a)
  local batch, diag, sign = lu_sign(a, "slogdet")
  local mag = gpu.abs(diag)
  local unit = gpu.where(mag:eq(0), 0, diag / gpu.where(mag:eq(0), 1, mag))
  local s = (unit:prod(-1) * sign):astype(diag.dtype)
  s = gpu.where(s:eq(0), 0, s)   -- a singular matrix's sign is +0, as NumPy's (a row swap times 0 was -0)
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
    fail("qr", 2, "mode must be \"reduced\", \"complete\" or \"r\", got %s", gpu._arg.choice(mode))
  end
  local dt, k = la_dtype(a.dtype), math.min(m, n)
  if mode == "complete" then gpu._arg.reach(shape_of(batch, m, m), "linalg.qr", 3) end   -- Q (gpu.zeros' bare words)
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
-- "L") or upper ("U"; either case) triangle. The column-major copy of a has its lower triangle; that
-- of conj(a)^T (the C-ordered copy of conj(a)) has the upper one, as a lower triangle.
local function syevd(a, api, uplo, vectors)
  local batch, count, n = matrices(a, api, true, 1)
  local given = uplo
  uplo = type(uplo) == "string" and uplo:upper() or uplo or "L"   -- "u" too, as NumPy's
  if uplo ~= "L" and uplo ~= "U" then fail(api, 3, "UPLO must be \"L\" or \"U\", got %s", gpu._arg.choice(given)) end
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
  if uv and full then gpu._arg.reach(shape_of(batch, rows, rows), "linalg." .. api, 4) end   -- (gpu.empty's bare words)
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
  opts = gpu._arg.options(opts, "linalg.svd", "full_matrices compute_uv")
  local uv = gpu._arg.flag(opts, "compute_uv", "linalg.svd", true)
  local full = gpu._arg.flag(opts, "full_matrices", "linalg.svd", true)
  local u, s, vh = svd_of(a, "svd", batch, count, m, n, full, uv)
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
    here("matrix_rank", a)
    return a:ne(0):any() and 1 or 0
  end
  local batch, count, m, n = matrices(a, "matrix_rank")
  if tol ~= nil and type(tol) ~= "number" then fail("matrix_rank", 2, "tol must be a number, got %s", type(tol)) end
  local s = svd_of(a, "matrix_rank", batch, count, m, n, false, false)
  if s.shape[s.ndim] == 0 then return #batch == 0 and 0 or gpu.zeros(batch, "int64") end   -- (an empty batch too)
  local t = tol or s:max(-1, {keepdim = true}) * (math.max(m, n) * eps_of[s.dtype])
  return per_matrix(s:gt(t):sum(-1), batch)
end

-- gpu.linalg.matrix_power(a, p): a @ a @ ... (p times; p = 0 the identity, p < 0 powers of
-- inv(a)), by repeated squaring with gpu.matmul
function linalg.matrix_power(a, p)
  local batch, count = matrices(a, "matrix_power", true)
  if math.type(p) == "float" and p == math.floor(p) then p = math.tointeger(p) or p end   -- (2.0 too, as a dim's)
  if math.type(p) ~= "integer" then
    fail("matrix_power", 2, "the exponent must be an integer, got %s", gpu._arg.shown(p))
  end
  if p < 0 and a.dtype == "float16" then   -- an inverse: linear algebra, which refuses it
    fail("matrix_power", 2, "float16 arrays are not supported in linear algebra: convert with a:astype('float32')")
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

-- The complex dtype of a real one's precision
local complex_of = {float32 = "complex64", float64 = "complex128"}

-- The right eigenvectors of a real matrix as geev packs them (x: (..., n, n), column j a
-- vector), made complex: of a conjugate pair j, j+1 (im > 0 at j, < 0 at j+1), columns j
-- and j+1 are x_j + i x_{j+1} and x_j - i x_{j+1}; im (..., n) the eigenvalues' imaginary parts
local function unpack_pairs(x, im, cx)
  local n = x.shape[x.ndim]
  local zero = gpu.zeros_like(x:narrow(-1, 1, 1))
  local next = n > 1 and gpu.concatenate({x:narrow(-1, 2, n - 1), zero}, -1) or zero
  local prev = n > 1 and gpu.concatenate({zero, x:narrow(-1, 1, n - 1)}, -1) or zero
  im = im:unsqueeze(-2)
  local re = gpu.where(im:lt(0), prev, x)
  local imv = gpu.where(im:gt(0), next, gpu.where(im:lt(0), -x, 0))
  local i = gpu.full({}, gpu.complex(0, 1), cx)
  return re:astype(cx) + imv:astype(cx) * i
end

-- The work of eig and eigvals: geev on a column-major copy of a. A real a whose
-- eigenvalues are all real (over the whole batch) gives real results, as NumPy's.
local function geev(a, api, vectors)
  local batch, count, n = matrices(a, api, true, 1)
  local dt = la_dtype(a.dtype)
  local cx = complex_of[real_of[dt]]
  local w = colmajor(a, batch, n, n, dt)
  if n > 0 and count > 0 and not gpu.isfinite(w):all() then
    fail(api, 3, "the matrix has a NaN or an infinity")
  end
  local vals = gpu.empty(shape_of(batch, n), cx)
  local vr = vectors and gpu.empty(shape_of(batch, n, n), dt)
  if n > 0 then
    check(api, "geev", run("geev", count, {a = w, w = vals, vt = vr, m = n, n = n, k = 0, vectors = vectors}), 1)
  end
  local v = vectors and tr(vr)
  if dt == cx then return vals, v end
  local im = gpu.imag(vals)
  if vals.size == 0 or not im:ne(0):any() then return gpu.real(vals):astype(dt), v end
  return vals, vectors and unpack_pairs(v, im, cx)
end
messages.geev = "the eigenvalues did not converge"

-- gpu.linalg.eig(a): the eigenvalues and right eigenvectors (the columns of v, each of norm
-- 1) of square a, in no particular order; complex unless a is real and they all are real
function linalg.eig(a)
  local w, v = geev(a, "eig", true)   -- not a tail call: geev's errors count this frame
  return w, v
end
-- gpu.linalg.eigvals(a): the eigenvalues alone
function linalg.eigvals(a) return (geev(a, "eigvals", false)) end

local function dims_of(x) return {table.unpack(x.shape, 1, x.ndim)} end

-- gpu.linalg.lstsq(a, b [, rcond]): x minimizing |b - a x| (a (m, n), b (m) or (m, k)),
-- the least-norm one when a has not full rank; the sums of squared residuals (shape (k),
-- or (1) for a 1-D b; empty unless the rank is n < m), the rank and a's singular values, as
-- NumPy's. Singular values at or below rcond (by default float64's eps * max(m, n); <= 0
-- or >= 1: the machine precision, 2^-53) times the largest count as 0. From the SVD: x = V
-- diag(1/s) U^H b, in float64 (complex128) whatever the dtypes, as NumPy's, then cast back.
function linalg.lstsq(a, b, rcond)
  local _, _, m, n = matrices(a, "lstsq")
  if a.ndim ~= 2 then fail("lstsq", 2, "argument 1 must be 2-dimensional, got %d dimensions", a.ndim) end
  if not is_array(b) then fail("lstsq", 2, "argument 2 must be a device array, got %s", type(b)) end
  here("lstsq", b)
  no_float16("lstsq", b)
  if b.ndim < 1 or b.ndim > 2 then fail("lstsq", 2, "argument 2 must be 1- or 2-dimensional, got %d", b.ndim) end
  if b.shape[1] ~= m then fail("lstsq", 2, "a has %d rows but b has %d", m, b.shape[1]) end
  if rcond ~= nil and type(rcond) ~= "number" then fail("lstsq", 2, "rcond must be a number, got %s", type(rcond)) end
  -- the results' dtype, and the one computed in: float64 (complex128) throughout, as
  -- NumPy's, its cut-off too (float32's eps over float32's noise dropped a singular
  -- value of 1e-7 that NumPy keeps)
  local dt = la_common(a, b)
  local real = real_of[dt]
  local wdt = dt:find("complex") and "complex128" or "float64"
  local vector, k = b.ndim == 1, b.ndim == 1 and 1 or b.shape[2]
  local bm = (vector and b:reshape(m, 1) or b):astype(wdt)
  rcond = rcond or eps_of.float64 * math.max(m, n)
  -- NumPy's gelsd takes an rcond <= 0 or >= 1 as LAPACK's machine precision (its
  -- unit roundoff, half of eps_of): -1 is NumPy's documented "machine precision"
  if rcond <= 0 or rcond >= 1 then rcond = eps_of.float64 / 2 end
  local aw = a:astype(wdt)
  local x, s, rank
  if m == 0 or n == 0 then
    x, s, rank = gpu.zeros({n, k}, wdt), gpu.empty(0, "float64"), 0
  else
    local u, sv, vh = svd_of(aw, "lstsq", {}, 1, m, n, false, true)
    local keep = sv:gt(sv:max() * rcond)
    local sinv = gpu.where(keep, 1 / gpu.where(keep, sv, 1), 0):astype("float64")
    local ub = gpu.matmul(tr(gpu.conj(u)), bm) * sinv:unsqueeze(-1)
    x, s, rank = gpu.matmul(tr(gpu.conj(vh)), ub:astype(wdt)), sv, keep:sum()
  end
  local resid = gpu.empty(0, real)
  if rank == n and m > n then
    local r = gpu.abs(bm - (n > 0 and gpu.matmul(aw, x) or 0))
    resid = (r * r):sum(1):astype(real)
  end
  x = x:astype(dt)
  if vector then x = x:reshape(n) end
  return x, resid, rank, s:astype(real)
end

-- The max or min of norms y (real) along dim d, keepdim as the reductions': NumPy 2's max
-- of norms starts at 0, so over a dim of size 0 it is 0; a min there is an error, as NumPy's
local function extreme(y, how, d, keep, ord, api)
  if y.shape[d] > 0 then return y[how](y, d, {keepdim = keep}) end
  if how == "min" then
    fail(api, 4, "ord %s of an empty array (or along a dim of size 0): the minimum has no identity", tostring(ord))
  end
  local s = dims_of(y)
  s[d] = 1
  local z = gpu.zeros(s, y.dtype)
  return keep and z or z:squeeze(d)
end

-- Matrix norms (NumPy's ord for matrices) of x over its dims r and c (distinct, positive):
-- 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; keepdim as the reductions'
local function matrix_norm(x, ord, r, c, keepdim, api)
  local absx = function() return gpu.abs(x) end
  local function reduce(y, how, d, keep) return y[how](y, d, {keepdim = keep}) end
  if ord == nil or ord == "fro" then
    local a = absx()
    return gpu.sqrt(reduce(a * a, "sum", {r, c}, keepdim))
  elseif ord == 1 or ord == -1 or ord == math.huge or ord == -math.huge then
    local sum_dim, pick_dim = r, c                     -- 1: column sums, their max
    if math.abs(ord) == math.huge then sum_dim, pick_dim = c, r end
    local sums = reduce(absx(), "sum", sum_dim, true)
    local picked = extreme(sums, ord > 0 and "max" or "min", pick_dim, true, ord, api)
    if keepdim then return picked end
    local d1, d2 = math.max(r, c), math.min(r, c)
    return picked:squeeze(d1):squeeze(d2)
  elseif ord == 2 or ord == -2 or ord == "nuc" then
    local moved = gpu.moveaxis(x, {r, c}, {-2, -1})
    local batch, count, m, n = matrices(moved, api, false, 1)
    local s = svd_of(moved, api, batch, count, m, n, false, false)
    local v = ord == "nuc" and s:sum(-1) or extreme(s, ord == 2 and "max" or "min", s.ndim, false, ord, api)
    if keepdim then v = v:unsqueeze(math.min(r, c)):unsqueeze(math.max(r, c)) end
    return v
  end
  fail(api, 3, "invalid norm order %s for matrices", type(ord) == "string" and ("%q"):format(ord) or tostring(ord))
end

local function norm_dim(d, ndim, i)
  d = type(d) == "number" and math.tointeger(d) or d   -- 1.0 is dim 1, as gpu.norm's
  if math.type(d) ~= "integer" then fail("norm", 3, "argument 3 must hold integer dims, got %s", gpu._arg.shown(d)) end
  local k = d < 0 and d + ndim + 1 or d
  if k < 1 or k > ndim then fail("norm", 3, "dim %d is out of range for %d dimensions", d, ndim) end
  return k, i
end

-- Vector norms of x (float or complex) along dim d (gpu.norm's, which has no ord inf over
-- nothing: NumPy 2's max starts at 0); NumPy's orders are numbers
local function vector_norm(x, ord, d, keepdim)
  if type(ord) ~= "number" then
    fail("norm", 3, "invalid norm order %s for vectors", type(ord) == "string" and ("%q"):format(ord) or tostring(ord))
  end
  if (ord == math.huge or ord == -math.huge) and x.shape[d] == 0 then
    return extreme(gpu.zeros(dims_of(x), real_of[x.dtype] or x.dtype), ord > 0 and "max" or "min", d, keepdim, ord, "norm")
  end
  return gpu.norm(x, ord, d, {keepdim = keepdim})
end

-- A reduction to a 0-D array read as a Lua number, as gpu.norm's full reductions are
local function plain(v) return (is_array(v) and v.ndim == 0) and v:item() or v end

-- gpu.linalg.norm(x [, ord [, dim]] [, {keepdim =}]): NumPy's numpy.linalg.norm. No dim:
-- the 2-norm of every element when ord is nil, else a vector norm of 1-D x or a matrix norm
-- of 2-D x. dim an integer: vector norms along it (gpu.norm); a pair {r, c}: matrix norms
-- over those dims ('fro', 'nuc', 1, -1, 2, -2, inf, -inf: NumPy's).
function linalg.norm(x, ord, dim, opts)
  if type(ord) == "table" and dim == nil and opts == nil then ord, opts = nil, ord end
  if type(dim) == "table" and #dim == 0 and opts == nil then dim, opts = nil, dim end
  if not is_array(x) then fail("norm", 2, "argument 1 must be a device array, got %s", type(x)) end
  here("norm", x)
  if opts ~= nil and type(opts) ~= "table" then fail("norm", 2, "the options must be a table") end
  if opts ~= nil then gpu._arg.options(opts, "linalg.norm", "keepdim") end
  local keepdim = gpu._arg.flag(opts, "keepdim", "linalg.norm", false)
  if not (x.dtype:find("^float") or x.dtype:find("^complex")) then
    x = x:astype("float64")   -- NumPy's: in their dtype, the sums of integers wrap
  end
  if dim == nil then
    if ord == nil then return opts and gpu.norm(x, 2, opts) or gpu.norm(x, 2) end
    if x.ndim == 1 then dim = 1 end
    if x.ndim == 0 or x.ndim > 2 then fail("norm", 2, "ord %s needs a dim for %d dimensions (1 or 2 without)", tostring(ord), x.ndim) end
    dim = dim or {1, 2}
  end
  if type(dim) == "table" and #dim == 1 then dim = dim[1] end
  if type(dim) ~= "table" then return plain(vector_norm(x, ord or 2, norm_dim(dim, x.ndim), keepdim)) end
  if #dim ~= 2 then fail("norm", 2, "dim must be an integer or two of them, got %d", #dim) end
  local r, c = norm_dim(dim[1], x.ndim), norm_dim(dim[2], x.ndim)
  if r == c then fail("norm", 2, "the two dims are both %d", r) end
  return plain(matrix_norm(x, ord, r, c, keepdim, "norm"))
end

-- gpu.linalg.cond(x [, p]): the condition number of each matrix: by the SVD (the largest
-- singular value over the smallest; p = -2 the inverse) for p nil, 2, -2; else norm(x, p)
-- times norm(inv(x), p), infinite for a singular matrix, as NumPy's
function linalg.cond(x, p)
  local batch, count, m, n = matrices(x, "cond")
  if m * n == 0 then fail("cond", 2, "cond is not defined on empty arrays") end   -- (NumPy's words)
  if p == nil or p == 2 or p == -2 then
    local s = svd_of(x, "cond", batch, count, m, n, false, false)
    local big, small = s:max(-1), s:min(-1)
    local r = p == -2 and small / big or big / small
    -- NumPy's: a singular matrix's 0 / 0 is inf (a NaN in x is an error above)
    return per_matrix(gpu.where(gpu.isnan(r), math.huge, r), batch)
  end
  if m ~= n then fail("cond", 2, "the last two dimensions of argument 1 must be square for p = %s", tostring(p)) end
  local dt = la_dtype(x.dtype)
  local inv, info = inverted(x, batch, count, n)
  info = info or gpu.zeros(math.max(count, 1), "int32")
  local nd = x.ndim
  local r = matrix_norm(x, p, nd - 1, nd, false, "cond") * matrix_norm(inv, p, nd - 1, nd, false, "cond")
  local singular = info:ne(0):reshape(#batch > 0 and batch or {})
  return per_matrix(gpu.where(singular, math.huge, r):astype(real_of[dt]), batch)
end

-- gpu.linalg.multi_dot(arrays): arrays[1] @ arrays[2] @ ..., in the order of products
-- that costs the fewest multiplications (the textbook chain order); a first 1-D array
-- is a row, a last one a column, and those dims are dropped from the result, as NumPy's
function linalg.multi_dot(arrays)
  if type(arrays) ~= "table" then fail("multi_dot", 2, "argument 1 must be a table of device arrays") end
  local k = #arrays
  if k < 2 then fail("multi_dot", 2, "expecting at least two arrays, got %d", k) end
  gpu._arg.array_list(arrays, "linalg.multi_dot", "argument 1", 1)
  local mats = {}
  for i = 1, k do
    local a = arrays[i]
    if not is_array(a) then fail("multi_dot", 2, "element %d must be a device array, got %s", i, type(a)) end
    here("multi_dot", a)
    local want = (i == 1 or i == k) and "1 or 2" or "2"
    if not (a.ndim == 2 or (a.ndim == 1 and (i == 1 or i == k))) then
      fail("multi_dot", 2, "element %d must have %s dimensions, got %d", i, want, a.ndim)
    end
    mats[i] = a.ndim == 2 and a or (i == 1 and a:reshape(1, a.shape[1]) or a:reshape(a.shape[1], 1))
  end
  local p = {mats[1].shape[1]}
  for i, a in ipairs(mats) do
    if a.shape[1] ~= p[i] then
      fail("multi_dot", 2, "element %d has %d rows where element %d has %d columns", i, a.shape[1], i - 1, p[i])
    end
    p[i + 1] = a.shape[2]
  end
  local cost, split = {}, {}
  for i = 1, k do cost[i] = {[i] = 0}; split[i] = {} end
  for len = 2, k do
    for i = 1, k - len + 1 do
      local j = i + len - 1
      for s = i, j - 1 do
        local c = cost[i][s] + cost[s + 1][j] + p[i] * p[s + 1] * p[j + 1]
        if not cost[i][j] or c < cost[i][j] then cost[i][j], split[i][j] = c, s end
      end
    end
  end
  local function chain(i, j)
    if i == j then return mats[i] end
    return gpu.matmul(chain(i, split[i][j]), chain(split[i][j] + 1, j))
  end
  local r = chain(1, k)
  if arrays[k].ndim == 1 then r = r:squeeze(2) end
  if arrays[1].ndim == 1 then r = r:squeeze(1) end
  return r
end

-- gpu.linalg.tensorinv(a [, ind]): the inverse of a as an operator from its last dims to
-- its first ind (2 by default): a:reshape(p, q) inverted (p = q), shaped
-- (a.shape[ind+1 ..], a.shape[1 .. ind])
function linalg.tensorinv(a, ind)
  ind = ind or 2
  if not is_array(a) then fail("tensorinv", 2, "argument 1 must be a device array, got %s", type(a)) end
  if math.type(ind) ~= "integer" or ind <= 0 or ind > a.ndim then
    fail("tensorinv", 2, "ind must be a positive integer no larger than the dimensions (%d), got %s", a.ndim, tostring(ind))
  end
  here("tensorinv", a)
  no_float16("tensorinv", a)
  local rows, cols = product(a.shape, 1, ind), product(a.shape, ind + 1, a.ndim)
  if rows ~= cols then fail("tensorinv", 2, "the first %d dims hold %d elements and the others %d: they must be equal", ind, rows, cols) end
  local shape = {table.unpack(a.shape, ind + 1, a.ndim)}
  for i = 1, ind do shape[#shape + 1] = a.shape[i] end
  local m = a:reshape(rows, cols)   -- inverted here: a singular one named inv
  local batch, count, n = matrices(m, "tensorinv", true)
  return inverse(m, "tensorinv", batch, count, n, 1):reshape(shape)
end

-- gpu.linalg.tensorsolve(a, b [, dims]): x with tensordot(a, x, x.ndim) = b, x of a's last
-- dims (after moving `dims` of a to the end, in order), as NumPy's
function linalg.tensorsolve(a, b, dims)
  if not is_array(a) then fail("tensorsolve", 2, "argument 1 must be a device array, got %s", type(a)) end
  if not is_array(b) then fail("tensorsolve", 2, "argument 2 must be a device array, got %s", type(b)) end
  here("tensorsolve", a, b)
  no_float16("tensorsolve", a, b)
  if dims ~= nil then
    if type(dims) ~= "table" then fail("tensorsolve", 2, "argument 3 must be a table of dims") end
    local last = {}
    for i = 1, #dims do last[i] = a.ndim - #dims + i end
    local ok, r = pcall(gpu.moveaxis, a, dims, last)   -- its errors named gpu.moveaxis alone
    if not ok then
      local e = gpu._arg.unwrapped(r):gsub("^gpu%.moveaxis: ", ""):gsub("^src ", "")
      fail("tensorsolve", 2, "argument 3 (dims): %s", e)
    end
    a = r
  end
  local xdims = a.ndim - b.ndim
  if xdims < 0 then fail("tensorsolve", 2, "b has more dimensions (%d) than a (%d)", b.ndim, a.ndim) end
  -- NumPy's rule: only the counts of elements agree (b's shape need not be a's first dims')
  local shape = {table.unpack(a.shape, b.ndim + 1, a.ndim)}
  local rows, cols = product(a.shape, 1, b.ndim), product(a.shape, b.ndim + 1, a.ndim)
  if rows ~= cols then fail("tensorsolve", 2, "a is not square as an operator (%d x %d)", rows, cols) end
  if b.size ~= rows then fail("tensorsolve", 2, "b has %d elements where a's first %d dims hold %d", b.size, b.ndim, rows) end
  local x = solve("tensorsolve", a:reshape(rows, cols), b:reshape(rows))
  return x:reshape(shape)
end

-- gpu.polyfit(x, y, deg [, {rcond =, w =, full =}]): the least-squares polynomial of degree
-- deg through (x, y) (y (m) or (m, k): a fit per column), coefficients highest power first,
-- float64 (complex128 for complex inputs: NumPy's Vandermonde matrix promotes x with int64),
-- as NumPy's: lstsq on the Vandermonde matrix with its
-- columns scaled to norm 1; with full, also residuals, rank, singular values and rcond
function gpu.polyfit(x, y, deg, opts)
  local function bad(fmt, ...) error(("gpu.polyfit: " .. fmt):format(...), 3) end
  if not is_array(x) or x.ndim ~= 1 then bad("x must be a 1-D device array") end
  if not is_array(y) or (y.ndim ~= 1 and y.ndim ~= 2) then bad("y must be a 1-D or 2-D device array") end
  gpu._arg.here("polyfit", {x, "an array", y, "an array"})
  if y.shape[1] ~= x.shape[1] then bad("x and y must have the same length (%d and %d)", x.shape[1], y.shape[1]) end
  if math.type(deg) == "float" and deg == math.floor(deg) then deg = math.tointeger(deg) or deg end   -- (1.0 too, as NumPy's)
  if math.type(deg) ~= "integer" or deg < 0 then bad("deg must be a non-negative integer, got %s", gpu._arg.shown(deg)) end
  if x.shape[1] == 0 then bad("x is empty") end
  if opts ~= nil and type(opts) ~= "table" then bad("the options must be a table") end
  opts = gpu._arg.options(opts, "polyfit", "rcond full w")
  local full = gpu._arg.flag(opts, "full", "polyfit")
  local dt = la_dtype(gpu.result_type(x, y)):find("complex") and "complex128" or "float64"
  local m = x.shape[1]
  local rcond = opts.rcond or m * eps_of[real_of[dt]]
  local lhs = gpu.vander(x:astype(dt), deg + 1)
  local rhs = y:astype(dt)
  if opts.w ~= nil then
    if not is_array(opts.w) or opts.w.ndim ~= 1 or opts.w.shape[1] ~= m then bad("w must be a 1-D device array of x's length") end
    gpu._arg.here("polyfit", {opts.w, "an array"})
    local w = opts.w:astype(dt)
    lhs = lhs * w:unsqueeze(-1)
    rhs = y.ndim == 2 and rhs * w:unsqueeze(-1) or rhs * w
  end
  local a2 = gpu.abs(lhs)
  local scale = gpu.sqrt((a2 * a2):sum(1)):astype(real_of[dt])
  scale = gpu.where(scale:eq(0), 1, scale):astype(real_of[dt])
  local c, resids, rank, s = linalg.lstsq(lhs / scale, rhs, rcond)
  c = (y.ndim == 2 and c / scale:unsqueeze(-1) or c / scale):astype(dt)
  if full then return c, resids, rank, s, rcond end
  return c
end

-- gpu.roots(p): the roots of the polynomial with coefficients p (highest power first), as
-- NumPy's: the eigenvalues of its companion matrix, with a zero root for each trailing zero
function gpu.roots(p)
  if type(p) == "table" and not is_array(p) then   -- a list, as NumPy's asarray makes it
    local ok, r = pcall(gpu._arg.list_array, p)
    if not ok then error("gpu.roots: argument 1: " .. gpu._arg.unwrapped(r), 2) end
    p = r
  end
  if not is_array(p) or p.ndim ~= 1 then error(("gpu.roots: argument 1 must be a 1-D device array or a table, got %s"):format(
    is_array(p) and p.ndim .. "-D array" or gpu._described(p)), 2) end
  gpu._arg.here("roots", {p, "an array"})
  local dt = la_dtype(p.dtype)
  if not gpu.all(gpu.isfinite(p)) then   -- eigvals' own error named it and this file
    error("gpu.roots: the coefficients have a NaN or an infinity", 2)
  end
  local nz = gpu.flatnonzero(p:ne(0)):totable()
  if #nz == 0 then return gpu.empty(0, dt) end
  local first, last = nz[1], nz[#nz]
  local trailing = p.shape[1] - last
  local c = p:narrow(1, first, last - first + 1):astype(dt)
  local n = c.shape[1] - 1
  local roots
  if n < 1 then roots = gpu.empty(0, dt)
  else
    local comp = gpu.zeros({n, n}, dt)
    if n > 1 then comp:narrow(1, 2, n - 1):copy_(gpu.eye(n - 1, n, dt)) end
    comp:narrow(1, 1, 1):copy_((-c:narrow(1, 2, n) / c:narrow(1, 1, 1)):reshape(1, n))
    roots = linalg.eigvals(comp)
  end
  if trailing == 0 then return roots end
  return gpu.concatenate({roots, gpu.zeros(trailing, roots.dtype)})
end

-- errors at the caller's line, not at the calls inside (gpu.norm's dim out of range named
-- lua/linalg.lua)
for _, name in ipairs({"solve", "inv", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh", "svd", "pinv",
                       "matrix_rank", "matrix_power", "eig", "eigvals", "lstsq", "norm", "cond", "multi_dot",
                       "tensorinv", "tensorsolve"}) do
  linalg[name] = gpu._api(linalg[name])
end
