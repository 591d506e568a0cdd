-- sparse.lua: gpu.sparse, cupyx.scipy.sparse's (and scipy.sparse's) CSR, CSC and COO
-- matrices: constructors, conversions, products and arithmetic, on the module's own
-- operations (sorts, searchsorted, take, ...) and kernels/sparse.cu (products, toarray, the
-- sums of runs). Loaded at the first use of gpu.sparse (lua/gpu.lua).
--
-- Errors: every bad argument raises `gpu.sparse.NAME: ...` at the caller's line. A matrix's
-- arrays are checked on the device when it is made from the user's arrays (one small read
-- back); afterwards a user may write into them, so the kernels clamp each row's range and
-- skip entries outside the matrix, and conversions go through operations that stay inside
-- their arrays whatever the indices hold.
local gpu = ...
local S = gpu.sparse

local INT32_MAX = 2 ^ 31 - 1
local DTYPES = {bool = true, float32 = true, float64 = true, complex64 = true, complex128 = true}
local FORMAT_NAME = {csr = "Compressed Sparse Row", csc = "Compressed Sparse Column", coo = "COOrdinate"}
local CTYPE, KIND = {}, {}
for _, d in ipairs(gpu._dtypes) do CTYPE[d.name], KIND[d.name] = d.ctype, d.kind end

local function fail(api, fmt, ...) error(("gpu.sparse.%s: " .. fmt):format(api, ...), 0) end
local is_array = gpu._is_array
-- what v is, for a message: a device array, a host array (with its hint), a type
local function described(v) return gpu._is_array(v) and "a device array" or gpu._described(v) end

local meta = {}   -- format -> metatable
local function is_sparse(v)
  if type(v) ~= "table" then return false end
  local mt = getmetatable(v)
  return mt ~= nil and meta[rawget(v, "format") or false] == mt
end

-- ---- kernels: a module a value type, at its first use ----
local modules = {}
local function kernel(name, dtype)
  local c = CTYPE[dtype]
  if name == "csr_index" then   -- (an index array's dtype: a module of that kernel alone)
    local key = "index " .. c
    modules[key] = modules[key] or gpu.module(gpu._embedded("kernels/sparse.cu"), {names = {("csr_index<%s>"):format(c)}})
    return modules[key][("csr_index<%s>"):format(c)]
  end
  local m = modules[c]
  if not m then
    local names = {}
    for _, k in ipairs({"csr_spmv", "csr_spmm", "csr_todense", "csr_add", "csr_count", "csr_place", "csr_order",
                       "csr_take_count", "csr_take_rows", "csr_col_count", "csr_col_write", "csr_col_ptr",
                       "csr_lookup", "csr_set", "csr_merge", "csr_densify"}) do
      names[#names + 1] = ("%s<%s>"):format(k, c)
    end
    if KIND[dtype] ~= "c" then names[#names + 1] = ("csr_extreme<%s>"):format(c) end   -- (no order on complex)
    m = gpu.module(gpu._embedded("kernels/sparse.cu"), {names = names})
    modules[c] = m
  end
  return m[("%s<%s>"):format(name, c)]
end
local function blocks(n, per) return math.max(1, math.min(65535, (n + per - 1) // per)) end

-- csr_spmv's lanes a row (where its rows are not staged, kernels/sparse.cu) for m rows of nnz
-- entries: the power of two at or below the mean row length, up to 32 (the one above it left
-- lanes idle: on Poisson's 5-point rows 4 lanes took 0.151 ms on an H200 where 8 took 0.235).
-- Rows far longer than the mean go to the whole block in the kernel.
local function row_lanes(m, nnz)
  local lanes = 1
  while lanes < 32 and lanes * 2 <= nnz / m do lanes = lanes * 2 end
  return lanes
end

-- ---- making matrices ----
local function swap(fmt, a, b) if fmt == "csc" then return b, a end return a, b end

local function compressed(fmt, data, indices, indptr, shape, canonical)
  return setmetatable({format = fmt, shape = {shape[1], shape[2]}, dtype = data.dtype, data = data,
                       indices = indices, indptr = indptr, has_canonical_format = canonical or false}, meta[fmt])
end
local function coo(data, row, col, shape, canonical)
  return setmetatable({format = "coo", shape = {shape[1], shape[2]}, dtype = data.dtype, data = data, row = row,
                       col = col, has_canonical_format = canonical or false}, meta.coo)
end

-- the first n elements of 1-D a (a itself when it has n)
local function head(a, n)
  if a.size == n then return a end
  if n == 0 then return gpu.empty(0, a.dtype) end
  return a[{{1, n}}]
end

local function int32(n) return gpu.arange(0, n, 1, "int32") end

-- The arrays of a compressed matrix as the kernels take them: C-ordered, the dtypes and
-- sizes they must have (metadata only: no wait). Returns data, indices, indptr, the number
-- of rows of the CSR form (major), its columns (minor) and nnz.
local function parts(api, A)
  local data, indices, indptr = A.data, A.indices, A.indptr
  for _, name in ipairs({"data", "indices", "indptr"}) do   -- (a list: a nil field is seen too)
    if not is_array(A[name]) then fail(api, "the matrix's %s is not a device array (%s)", name, described(A[name])) end
    if gpu._arg.freed(A[name]) then fail(api, "the matrix's %s is a freed array", name) end
  end
  if data.dtype ~= A.dtype then fail(api, "the matrix's data is %s, its dtype %s (use astype)", data.dtype, tostring(A.dtype)) end
  if indices.dtype ~= "int32" or indptr.dtype ~= "int32" then
    fail(api, "the matrix's indices and indptr must be int32, got %s and %s", indices.dtype, indptr.dtype)
  end
  local major, minor = swap(A.format, A.shape[1], A.shape[2])
  if indptr.ndim ~= 1 or indptr.size ~= major + 1 then
    fail(api, "the matrix's indptr has %d entries, expected %d", indptr.size, major + 1)
  end
  return data:contiguous(), indices:contiguous(), indptr:contiguous(), major, minor, math.min(data.size, indices.size)
end

-- The row (major index) of each entry of a compressed matrix, int32: the last row whose
-- start is at or before the entry (a binary search; clipped, so a broken indptr gives
-- wrong rows, never an index outside the matrix)
local function rows_of(indptr, nnz, major)
  if nnz == 0 or major == 0 then return gpu.zeros(nnz, "int32") end
  local r = gpu.searchsorted(indptr, int32(nnz), {side = "right"}) - 2
  return gpu.clip(r, 0, major - 1):astype("int32")
end

-- Entries (data, major, minor: 1-D, major and minor int32) sorted by (major, minor), their
-- duplicates summed when `sum` is set: data, indices, indptr of a compressed matrix of
-- `nmajor` rows and `nminor` columns, and whether it is canonical (sorted, no duplicates).
-- Summing reads the number of distinct entries back (one wait). `in_minor_order`: the
-- entries come ordered by minor already (a CSR matrix's rows made a CSC's minor, and back),
-- so a stable sort of the int32 major alone orders them (4 radix passes, not 8 of a key
-- major * nminor + minor).
local function compress(data, major, minor, nmajor, nminor, sum, canonical, in_minor_order)
  local n = data.size
  if n > 0 and not canonical then
    local key, order
    if in_minor_order and not sum then order = gpu.argsort(major)
    else
      key = major:astype("int64") * nminor + minor
      order = gpu.argsort(key)
    end
    data, major, minor = gpu.take(data, order), gpu.take(major, order), gpu.take(minor, order)
    if sum and n > 1 then
      key = gpu.take(key, order)
      local first = gpu.concatenate({gpu.ones(1, "bool"), key[{{2, n}}]:ne(key[{{1, n - 1}}])})
      local starts = gpu.flatnonzero(first)   -- 1-based
      if starts.size < n then
        local runs = gpu.concatenate({(starts - 1):astype("int32"), gpu.full(1, n, "int32")})
        local out = gpu.empty(starts.size, data.dtype)
        kernel("csr_spmv", data.dtype)[{blocks(starts.size, 256), 256}](runs, runs, data, data, out, starts.size,
                                                                        0, n, row_lanes(starts.size, n), 1)
        data, major, minor = out, gpu.take(major, starts), gpu.take(minor, starts)
      end
    end
    canonical = canonical or sum
  elseif n == 0 then
    canonical = true
  end
  local indptr
  if nmajor == 0 then indptr = gpu.zeros(1, "int32")
  elseif data.size == 0 then indptr = gpu.zeros(nmajor + 1, "int32")
  else indptr = (gpu.searchsorted(major, int32(nmajor + 1)) - 1):astype("int32") end
  return data:contiguous(), minor:contiguous(), indptr, canonical
end

-- ---- argument checks ----
local function check_dtype(api, dt)
  if DTYPES[dt] then return dt end
  fail(api, "only bool, float32, float64, complex64 and complex128 matrices are supported, got %s%s", tostring(dt),
       KIND[dt] and " (convert with astype, or give a dtype)" or "")
end

local function dim_arg(api, v, what)
  if math.type(v) == "float" and v == math.floor(v) then v = math.tointeger(v) or v end
  if math.type(v) ~= "integer" or v < 0 then fail(api, "%s must be a non-negative integer, got %s", what, gpu._arg.shown(v)) end
  if v > INT32_MAX then fail(api, "%s is %d: sizes above 2^31 - 1 are not supported (int32 indices)", what, v) end
  return v
end
local function shape_arg(api, s, what)
  if type(s) ~= "table" or #s ~= 2 then fail(api, "%s must be a table {m, n}, got %s", what, type(s) == "table" and ("a table of %d"):format(#s) or type(s)) end
  return {dim_arg(api, s[1], what .. "[1]"), dim_arg(api, s[2], what .. "[2]")}
end

local function options(api, opts, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" then fail(api, "options must be a table, got %s", type(opts)) end
  local ok, r = pcall(gpu._options, opts, "sparse." .. api, known)
  if not ok then error(r, 0) end
  return opts
end

-- an index array (device array of an integer dtype, or a table) as given, 1-D
local function index_arg(api, v, what)
  if type(v) == "table" and not is_sparse(v) then
    local ok, r = pcall(gpu.array, v, "int64")
    if not ok then fail(api, "%s: %s", what, tostring(r):gsub("^.-:%d+: ", "")) end
    v = r
  end
  if not is_array(v) then fail(api, "%s must be a device array or a table, got %s", what, described(v)) end
  if KIND[v.dtype] ~= "i" and KIND[v.dtype] ~= "u" then fail(api, "%s must be an integer array, got %s", what, v.dtype) end
  if v.ndim ~= 1 then fail(api, "%s must be 1-D, got a %d-D array", what, v.ndim) end
  return v
end
local function data_arg(api, v, dtype)
  if type(v) == "table" and not is_sparse(v) then
    local ok, r = pcall(gpu.array, v, dtype or "float64")
    if not ok then fail(api, "data: %s", tostring(r):gsub("^.-:%d+: ", "")) end
    v = r
  end
  if not is_array(v) then fail(api, "data must be a device array or a table, got %s", described(v)) end
  if v.ndim ~= 1 then fail(api, "data must be 1-D, got a %d-D array", v.ndim) end
  return v
end

-- The extremes of some integer arrays, in one read back: {min, max} of each (nil for an
-- empty one) and of the differences of `steps` (its smallest step)
local function extremes(arrays, steps)
  local parts_ = {}
  for _, a in ipairs(arrays) do
    if a.size > 0 then
      parts_[#parts_ + 1] = a:min({keepdim = true}):astype("int64")
      parts_[#parts_ + 1] = a:max({keepdim = true}):astype("int64")
    end
  end
  if steps and steps.size > 1 then parts_[#parts_ + 1] = gpu.diff(steps:astype("int64")):min({keepdim = true}) end
  if #parts_ == 0 then return {} end
  local t = gpu.concatenate(parts_):totable()
  local r, k = {}, 1
  for i, a in ipairs(arrays) do
    if a.size > 0 then r[i] = {t[k], t[k + 1]}; k = k + 2 end
  end
  if steps and steps.size > 1 then r.step = t[k] end
  return r
end

-- (data, indices, indptr) of a compressed matrix, checked on the device
local function from_compressed(api, fmt, t, o)
  local dt = o.dtype and check_dtype(api, o.dtype)
  local data = data_arg(api, t[1], dt)
  local indices = index_arg(api, t[2], "indices")
  local indptr = index_arg(api, t[3], "indptr")
  if data.size ~= indices.size then
    fail(api, "data and indices must have one length, got %d and %d", data.size, indices.size)
  end
  if data.size > INT32_MAX then fail(api, "%d stored elements: more than 2^31 - 1 are not supported (int32 indices)", data.size) end
  if indptr.size == 0 then fail(api, "indptr must have at least one entry") end
  local x = extremes({indptr, indices}, indptr)
  local lo, hi = x[1][1], x[1][2]
  local shape
  if o.shape then shape = shape_arg(api, o.shape, "shape")
  else
    local minor = x[2] and x[2][2] + 1 or 0
    shape = {swap(fmt, indptr.size - 1, minor)}
    dim_arg(api, minor, "the number of columns")
  end
  local major, minor = swap(fmt, shape[1], shape[2])
  if indptr.size ~= major + 1 then fail(api, "indptr has %d entries, expected %d (shape {%d, %d})", indptr.size, major + 1, shape[1], shape[2]) end
  -- once the steps are known not to decrease, the extremes are the first and the last
  if x.step and x.step < 0 then fail(api, "indptr must not decrease (a step of %d)", x.step) end
  local first, last = lo, hi
  if first ~= 0 then fail(api, "indptr must start at 0, got %d", first) end
  if last ~= data.size then fail(api, "indptr must end at nnz (%d), got %d", data.size, last) end
  if x[2] and (x[2][1] < 0 or x[2][2] >= minor) then
    fail(api, "indices must lie in [0, %d), got %d to %d", minor, x[2][1], x[2][2])
  end
  local copy = gpu._arg.flag(o, "copy", "sparse." .. api)
  data = dt and data.dtype ~= dt and data:astype(dt) or (copy and data:copy() or data)
  check_dtype(api, data.dtype)
  local ind = indices.dtype == "int32" and (copy and indices:copy() or indices) or indices:astype("int32")
  local ptr = indptr.dtype == "int32" and (copy and indptr:copy() or indptr) or indptr:astype("int32")
  return compressed(fmt, data:contiguous(), ind:contiguous(), ptr:contiguous(), shape, false)
end

-- (data, {row, col}): a COO matrix, checked on the device
local function from_triplets(api, t, o)
  local dt = o.dtype and check_dtype(api, o.dtype)
  local copy = gpu._arg.flag(o, "copy", "sparse." .. api)
  local data = data_arg(api, t[1], dt)
  local row, col = index_arg(api, t[2][1], "row"), index_arg(api, t[2][2], "col")
  if row.size ~= data.size or col.size ~= data.size then
    fail(api, "data, row and col must have one length, got %d, %d and %d", data.size, row.size, col.size)
  end
  if data.size > INT32_MAX then fail(api, "%d stored elements: more than 2^31 - 1 are not supported (int32 indices)", data.size) end
  local x = extremes({row, col})
  local shape
  if o.shape then shape = shape_arg(api, o.shape, "shape")
  else shape = {dim_arg(api, x[1] and x[1][2] + 1 or 0, "the number of rows"), dim_arg(api, x[2] and x[2][2] + 1 or 0, "the number of columns")} end
  for i, what in ipairs({"row", "col"}) do
    if x[i] and (x[i][1] < 0 or x[i][2] >= shape[i]) then
      fail(api, "%s indices must lie in [0, %d), got %d to %d", what, shape[i], x[i][1], x[i][2])
    end
  end
  data = dt and data.dtype ~= dt and data:astype(dt) or (copy and data:copy() or data)
  check_dtype(api, data.dtype)
  row = row.dtype == "int32" and (copy and row:copy() or row) or row:astype("int32")
  col = col.dtype == "int32" and (copy and col:copy() or col) or col:astype("int32")
  return coo(data:contiguous(), row:contiguous(), col:contiguous(), shape, false)
end

-- a dense 2-D array's nonzero entries, as CSR (or CSC: of its transpose), canonical
local function from_dense(api, fmt, a, o)
  if a.ndim == 1 then a = a:reshape(1, a.size) end
  if a.ndim ~= 2 then fail(api, "a dense matrix must be 2-D, got a %d-D array", a.ndim) end
  local shape = {dim_arg(api, a.shape[1], "the number of rows"), dim_arg(api, a.shape[2], "the number of columns")}
  if o.shape then
    local s = shape_arg(api, o.shape, "shape")
    if s[1] ~= shape[1] or s[2] ~= shape[2] then fail(api, "shape {%d, %d} given for a {%d, %d} array", s[1], s[2], shape[1], shape[2]) end
  end
  local dt = check_dtype(api, o.dtype or a.dtype)
  local major, minor = swap(fmt, shape[1], shape[2])
  local m = (fmt == "csc" and a.T or a):contiguous():reshape(-1)
  local where = gpu.flatnonzero(m)
  if where.size > INT32_MAX then fail(api, "%d nonzero elements: more than 2^31 - 1 are not supported (int32 indices)", where.size) end
  local data = gpu.take(m, where)
  if data.dtype ~= dt then data = data:astype(dt) end
  local flat = where - 1
  local r, c = (flat // math.max(minor, 1)):astype("int32"), (flat % math.max(minor, 1)):astype("int32")
  local d, ind, ptr = compress(data, r, c, major, minor, false, true)
  local A = compressed(fmt == "coo" and "csr" or fmt, d, ind, ptr, shape, true)
  if fmt == "coo" then return A:tocoo() end
  return A
end

local function construct(fmt, arg1, opts)
  local api = fmt .. "_matrix"
  local o = options(api, opts, "shape dtype copy")
  if o.dtype then check_dtype(api, o.dtype) end
  local copy = gpu._arg.flag(o, "copy", "sparse." .. api)
  local A
  if is_sparse(arg1) then
    A = fmt == "csr" and arg1:tocsr() or fmt == "csc" and arg1:tocsc() or arg1:tocoo()
    if o.shape then
      local s = shape_arg(api, o.shape, "shape")
      if s[1] ~= A.shape[1] or s[2] ~= A.shape[2] then fail(api, "shape {%d, %d} given for a %dx%d matrix", s[1], s[2], A.shape[1], A.shape[2]) end
    end
    if A == arg1 and copy then A = A:copy() end
    if o.dtype and o.dtype ~= A.dtype then A = A:astype(o.dtype) end
    return A
  elseif is_array(arg1) then
    return from_dense(api, fmt, arg1, o)
  elseif type(arg1) ~= "table" then
    fail(api, "a device array, a sparse matrix, a shape {m, n} or a table of arrays expected, got %s", described(arg1))
  end
  local n = #arg1
  if n == 2 and type(arg1[1]) == "number" and type(arg1[2]) == "number" then   -- a shape: empty
    local s = shape_arg(api, arg1, "shape")
    if o.shape then fail(api, "a shape given twice") end
    local dt = o.dtype or "float64"
    if fmt == "coo" then return coo(gpu.zeros(0, dt), gpu.zeros(0, "int32"), gpu.zeros(0, "int32"), s, true) end
    local major = swap(fmt, s[1], s[2])
    return compressed(fmt, gpu.zeros(0, dt), gpu.zeros(0, "int32"), gpu.zeros(major + 1, "int32"), s, true)
  end
  local function part(v) return is_array(v) or (type(v) == "table" and not is_sparse(v)) end
  if n == 2 and type(arg1[2]) == "table" and not is_array(arg1[2]) and #arg1[2] == 2 and part(arg1[2][1])
     and type(arg1[2][1]) ~= "number" and part(arg1[2][2]) then
    local A = from_triplets(api, arg1, o)
    if fmt == "coo" then return A end
    return fmt == "csr" and A:tocsr() or A:tocsc()
  end
  if n == 3 and fmt ~= "coo" and (is_array(arg1[1]) or is_array(arg1[2]) or is_array(arg1[3]) or o.shape) then
    return from_compressed(api, fmt, arg1, o)
  end
  local ok, a = pcall(gpu.array, arg1, o.dtype or "float64")
  if not ok then fail(api, "a table that is neither a shape, (data, indices, indptr), (data, {row, col}) nor a dense matrix: %s", tostring(a):gsub("^.-:%d+: ", "")) end
  return from_dense(api, fmt, a, o)
end

-- ---- methods ----
local M = {}   -- the methods, shared by the three formats

local function canonical_coo(A)
  -- (data, row, col) of any matrix, sorted by (row, col), duplicates summed
  local C = A:tocsr()
  if not C.has_canonical_format then C = C:copy(); C:sum_duplicates() end
  return C:tocoo()
end

function M.copy(A)
  if A.format == "coo" then return coo(A.data:copy(), A.row:copy(), A.col:copy(), A.shape, A.has_canonical_format) end
  return compressed(A.format, A.data:copy(), A.indices:copy(), A.indptr:copy(), A.shape, A.has_canonical_format)
end
-- a matrix of A's structure (its index arrays copied) holding data
local function with_data(A, data)
  if A.format == "coo" then return coo(data, A.row:copy(), A.col:copy(), A.shape, A.has_canonical_format) end
  return compressed(A.format, data, A.indices:copy(), A.indptr:copy(), A.shape, A.has_canonical_format)
end
function M.astype(A, dt)
  check_dtype("astype", dt)
  return with_data(A, A.data:astype(dt))
end
function M.conj(A)
  if KIND[A.dtype] ~= "c" then return A:copy() end
  return with_data(A, gpu.conj(A.data))
end
M.conjugate = M.conj

-- (data, indices, indptr) of a CSR matrix's CSC form, or of a CSC's CSR form: where no column
-- (CSC: row) holds more than 64 entries (its counts' largest read back), kernels/sparse.cu's
-- counting transpose (csr_count, csr_place, csr_order: no sort); else a stable sort of the
-- new major index.
local function swapped(api, A)
  local data, indices, indptr, major, minor, nnz = parts(api, A)
  if nnz > 0 and minor > 0 then
    local counts = gpu.zeros(minor + 1, "int32")
    local k = function(name) return kernel(name, data.dtype) end
    k("csr_count")[{blocks(nnz, 256), 256}](indices, nnz, minor, counts)
    if counts:max() <= 64 then
      local starts = gpu.zeros(minor + 1, "int32")
      gpu.cumsum(counts:narrow(1, 1, minor), {out = starts:narrow(1, 2, minor)})
      local cursor = starts:copy()
      local pos, rows = gpu.full(nnz, -1, "int32"), gpu.empty(nnz, "int32")   -- rows read where pos is set
      k("csr_place")[{blocks(major, 256), 256}](indptr, indices, major, minor, nnz, starts, cursor, pos, rows)
      local vals, out = gpu.empty(nnz, data.dtype), gpu.empty(nnz, "int32")    -- every place written
      k("csr_order")[{blocks(minor, 256), 256}](starts, minor, nnz, pos, rows, data, vals, out)
      return vals, out, starts
    end
  end
  local row = rows_of(indptr, nnz, major)
  return compress(head(data, nnz), head(indices, nnz), row, minor, major, false, false, true)
end

function M.tocsr(A, copy)
  if A.format == "csr" then return copy and A:copy() or A end
  if A.format == "csc" then
    local d, ind, ptr = swapped("tocsr", A)
    return compressed("csr", d, ind, ptr, A.shape, A.has_canonical_format)
  end
  local d, ind, ptr = compress(A.data, A.row, A.col, A.shape[1], A.shape[2], true, A.has_canonical_format)
  return compressed("csr", d, ind, ptr, A.shape, true)
end
function M.tocsc(A, copy)
  if A.format == "csc" then return copy and A:copy() or A end
  if A.format == "csr" then
    local d, ind, ptr = swapped("tocsc", A)
    return compressed("csc", d, ind, ptr, A.shape, A.has_canonical_format)
  end
  local d, ind, ptr = compress(A.data, A.col, A.row, A.shape[2], A.shape[1], true, false)
  return compressed("csc", d, ind, ptr, A.shape, true)
end
function M.tocoo(A, copy)
  if A.format == "coo" then return copy and A:copy() or A end
  local data, indices, indptr, major, _, nnz = parts("tocoo", A)
  local r = rows_of(indptr, nnz, major)
  local c = head(indices, nnz):copy()
  data = head(data, nnz):copy()
  if A.format == "csc" then r, c = c, r end
  return coo(data, r, c, A.shape, A.format == "csr" and A.has_canonical_format)
end

-- in place, as scipy's: sum_duplicates (also sorting), sort_indices, eliminate_zeros
function M.sum_duplicates(A)
  if A.has_canonical_format then return end
  local B
  if A.format == "coo" then
    local d, ind, ptr = compress(A.data, A.row, A.col, A.shape[1], A.shape[2], true, false)
    B = compressed("csr", d, ind, ptr, A.shape, true):tocoo()
    A.data, A.row, A.col = B.data, B.row, B.col
  else
    local data, indices, indptr, major, minor, nnz = parts("sum_duplicates", A)
    local d, ind, ptr = compress(head(data, nnz), rows_of(indptr, nnz, major), head(indices, nnz), major, minor,
                                 true, false)
    A.data, A.indices, A.indptr = d, ind, ptr
  end
  A.has_canonical_format = true
end
function M.sort_indices(A)
  if A.format == "coo" or A.has_canonical_format then return end
  local data, indices, indptr, major, minor, nnz = parts("sort_indices", A)
  local d, ind, ptr = compress(head(data, nnz), rows_of(indptr, nnz, major), head(indices, nnz), major, minor,
                               false, false)
  A.data, A.indices, A.indptr = d, ind, ptr
end
function M.eliminate_zeros(A)
  local keep = gpu.flatnonzero(A.data)
  if keep.size == A.data.size then return end
  if A.format == "coo" then
    A.data, A.row, A.col = gpu.take(A.data, keep), gpu.take(A.row, keep), gpu.take(A.col, keep)
    return
  end
  local data, indices, indptr, major, minor, nnz = parts("eliminate_zeros", A)
  keep = keep[keep:le(nnz)]
  local r = gpu.take(rows_of(indptr, nnz, major), keep)
  local d, ind, ptr = compress(gpu.take(data, keep), r, gpu.take(indices, keep), major, minor, false, true)
  A.data, A.indices, A.indptr = d, ind, ptr
end

function M.toarray(A)
  local C = A.format == "coo" and A:tocsr() or A
  local data, indices, indptr, major, minor, nnz = parts("toarray", C)
  local out = gpu.zeros(C.shape, C.dtype)
  if nnz > 0 and major > 0 then
    local rs, cs = C.shape[2], 1
    if C.format == "csc" then rs, cs = 1, C.shape[2] end
    kernel("csr_todense", C.dtype)[{blocks(major, 128), 128}](indptr, indices, data, out, major, minor, nnz, rs, cs)
  end
  return out
end
M.todense = M.toarray

function M.transpose(A)
  if A.format == "coo" then return coo(A.data, A.col, A.row, {A.shape[2], A.shape[1]}, false) end
  return compressed(A.format == "csr" and "csc" or "csr", A.data, A.indices, A.indptr, {A.shape[2], A.shape[1]},
                    A.has_canonical_format)
end

function M.count_nonzero(A)
  local C = A
  if not A.has_canonical_format then C = A:copy(); C:sum_duplicates() end
  return C.data:count_nonzero()
end

-- Row sums (the CSR form's rows: a CSC matrix's columns) as a 1-D array of dtype dt
local function major_sums(A, dt)
  local data, indices, indptr, major, minor, nnz = parts("sum", A)
  if data.dtype ~= dt then data = data:astype(dt) end
  local out = gpu.empty(major, dt)
  if major > 0 then
    kernel("csr_spmv", dt)[{blocks(major, 256), 256}](indptr, indices, data, data, out, major, minor, nnz,
                                                      row_lanes(major, nnz), 2)
  end
  return out
end
function M.sum(A, dim)
  local dt = (A.dtype == "bool") and "int64" or A.dtype
  if A.dtype == "bool" and not A.has_canonical_format then   -- a place's duplicates are one true, as toarray's
    A = A:copy()
    A:sum_duplicates()
  end
  if dim == nil then
    if A.data.size == 0 then return KIND[dt] == "c" and gpu.complex(0, 0) or (dt == "int64" and 0 or 0.0) end
    if A.format ~= "coo" then local d, _, _, _, _, nnz = parts("sum", A); return head(d, nnz):astype(dt):sum() end
    return A.data:astype(dt):sum()
  end
  local d = gpu._arg.dim_of(dim, 2, "sparse.sum")
  local C = A.format == "coo" and A:tocsr() or A
  -- dim 2 sums each row (the CSR form's rows of a CSR matrix), dim 1 each column
  local want = d == 2 and "csr" or "csc"
  if C.format ~= want then C = want == "csr" and C:tocsr() or C:tocsc() end
  local s = major_sums(C, dt)
  return d == 2 and s:reshape(A.shape[1], 1) or s:reshape(1, A.shape[2])
end

function M.diagonal(A, k)
  k = k == nil and 0 or gpu._arg.integer(k, "sparse.diagonal", "k")
  local m, n = A.shape[1], A.shape[2]
  local len = k >= 0 and math.min(m, n - k) or math.min(m + k, n)
  if len <= 0 then return gpu.zeros(0, A.dtype) end
  local C = canonical_coo(A)
  local out = gpu.zeros(len + 1, A.dtype)
  if C.data.size > 0 then
    local on = (C.col - C.row):eq(k)
    local pos = gpu.where(on, C.row:astype("int64") - math.max(0, -k) + 1, len + 1)
    gpu.put(out, pos, gpu.where(on, C.data, gpu.zeros(1, A.dtype)))
  end
  return out[{{1, len}}]:copy()
end

-- ---- scipy's reductions and elementwise functions of the stored values ----
local function deduped(A)   -- A, or a copy of it with its duplicates summed (f(a + b) is not f(a) + f(b))
  if A.has_canonical_format then return A end
  local C = A:copy()
  C:sum_duplicates()
  return C
end

-- scipy's functions f with f(0) = 0, applied to the stored values (their duplicates summed first)
for _, f in ipairs({"arcsin", "arcsinh", "arctan", "arctanh", "ceil", "deg2rad", "expm1", "floor", "log1p", "rad2deg",
                    "rint", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"}) do
  M[f] = function(A)
    local C = deduped(A)
    local d = gpu[f](C.data)
    if not DTYPES[d.dtype] then fail(f, "%s of a %s matrix gives %s, which gpu.sparse does not hold", f, A.dtype, d.dtype) end
    return with_data(C, d)
  end
end
function M.abs(A)   -- |a + b|, not |a| + |b|, for duplicates
  local C = deduped(A)
  return with_data(C, gpu.abs(C.data))
end
function M.power(A, n, dtype)
  if type(n) ~= "number" then fail("power", "the exponent must be a number, got %s", described(n)) end
  if n == 0 then fail("power", "a zero power is not supported: it would make every element 1") end
  local C = deduped(A)
  local d = dtype and C.data:astype(check_dtype("power", dtype)) or C.data
  d = d ^ n
  if not DTYPES[d.dtype] then fail("power", "a %s matrix to a power gives %s, which gpu.sparse does not hold", A.dtype, d.dtype) end
  return with_data(C, d)
end

function M.mean(A, dim)
  local dt = (A.dtype == "bool") and "float64" or A.dtype
  local count = dim == nil and A.shape[1] * A.shape[2] or A.shape[gpu._arg.dim_of(dim, 2, "sparse.mean")]
  if dim == nil then return A:astype(dt):sum() / count end
  return A:astype(dt):sum(dim) / count
end

-- the max or min (want_max) of every row (dim 2) or column (dim 1), scipy's argmax or argmin
-- there (1-based) and each one's first missing place (0-based; its length where it is full)
local function extremes_along(api, A, d, want_max)
  if KIND[A.dtype] == "c" then fail(api, "complex matrices have no order") end
  local C = deduped(d == 2 and A:tocsr() or A:tocsc())
  if A.shape[d] == 0 then fail(api, "zero-size array to reduction operation") end
  local data, indices, indptr, major, minor, nnz = parts(api, C)
  local val, arg, gaps = gpu.empty(major, A.dtype), gpu.empty(major, "int64"), gpu.empty(major, "int64")
  if major > 0 then
    kernel("csr_extreme", A.dtype)[{blocks(major, 256), 256}](indptr, indices, data, major, minor, nnz,
                                                               want_max and 1 or 0, val, arg, gaps)
  end
  local shape = d == 2 and {A.shape[1], 1} or {1, A.shape[2]}
  return val:reshape(shape), (arg + 1):reshape(shape), gaps
end
-- the max or min of the whole matrix (its implicit zeros included) and scipy's argmax or
-- argmin, 1-based in C order: from the rows' (the first row holding the extreme, its place
-- there; where a NaN is stored, scipy's gives the first implicit zero's place unless the
-- matrix is full)
local function extreme(api, A, want_max)
  if A.shape[1] * A.shape[2] == 0 then fail(api, "zero-size array to reduction operation") end
  local val, arg, gaps = extremes_along(api, A, 2, want_max)
  val = val:reshape(-1)
  local n = A.shape[2]
  local r
  if KIND[A.dtype] == "f" and gpu.isnan(val):any() then
    local open = gaps:lt(n)
    local first_nan = gpu.argmax(gpu.isnan(val))
    if open:any() then
      r = gpu.argmax(open)
      return val:item(first_nan), (r - 1) * n + gaps:item(r) + 1
    end
    r = first_nan
  else
    r = want_max and gpu.argmax(val) or gpu.argmin(val)
  end
  return val:item(r), (r - 1) * n + arg:item(r, 1)
end
for _, which in ipairs({{"max", true}, {"min", false}}) do
  local name, want_max = which[1], which[2]
  -- scipy's: a number, or along a dim a sparse COO matrix of the extremes
  M[name] = function(A, dim)
    if dim == nil then return (extreme(name, A, want_max)) end
    local val = extremes_along(name, A, gpu._arg.dim_of(dim, 2, "sparse." .. name), want_max)
    return from_dense("max", "coo", val, {})
  end
  -- scipy's: a 1-based index (a Lua integer), or along a dim an int64 array of them
  M["arg" .. name] = function(A, dim)
    if dim == nil then return select(2, extreme("arg" .. name, A, want_max)) end
    local _, arg = extremes_along("arg" .. name, A, gpu._arg.dim_of(dim, 2, "sparse.arg" .. name), want_max)
    return arg
  end
end

function M.trace(A, offset)
  local d = A:diagonal(offset)
  if d.size == 0 then   -- the sum of nothing, as scipy's: 0.0 (float), 0j, or 0 (bool: int64)
    return KIND[A.dtype] == "c" and gpu.complex(0, 0) or A.dtype == "bool" and 0 or 0.0
  end
  return d:astype(A.dtype == "bool" and "int64" or A.dtype):sum()
end

-- the 1-based row and column indices (int64, C order) of the stored values that are not zero
local function found(A)
  local C = canonical_coo(A)
  local keep = gpu.flatnonzero(C.data:ne(0))
  return gpu.take(C.row, keep):astype("int64") + 1, gpu.take(C.col, keep):astype("int64") + 1, gpu.take(C.data, keep)
end
function M.nonzero(A)
  local r, c = found(A)
  return r, c
end

-- ---- products ----
local COMPUTE = {bool = "bool", float32 = "float32", float64 = "float64", complex64 = "complex64",
                 complex128 = "complex128", float16 = "float32"}
local function compute_type(dt) return COMPUTE[dt] or (KIND[dt] == "c" and dt or "int64") end

-- A (a CSR or CSC matrix) @ x (a 1-D or 2-D device array), a new array
local function spmatmul(api, A, x)
  local m, n = A.shape[1], A.shape[2]
  if A.format == "coo" then   -- sorted, the duplicates left for the kernel to add (no wait)
    local d, ind, ptr = compress(A.data, A.row, A.col, m, n, false, A.has_canonical_format)
    A = compressed("csr", d, ind, ptr, A.shape, false)
  elseif A.format == "csc" then
    A = A:tocsr()
  end
  if x.ndim ~= 1 and x.ndim ~= 2 then fail(api, "the array must be 1-D or 2-D, got %d-D", x.ndim) end
  if x.shape[1] ~= n then
    fail(api, "a %dx%d sparse matrix and an array of shape {%s} do not match (%d and %d)", m, n,
         table.concat(x.shape, ", "), n, x.shape[1])
  end
  local rt = gpu.result_type(A.dtype, x.dtype)
  local ct = compute_type(rt)
  local data, indices, indptr, _, _, nnz = parts(api, A)
  if data.dtype ~= ct then data = data:astype(ct) end
  x = (x.dtype ~= ct and x:astype(ct) or x):contiguous()
  local y
  if x.ndim == 1 then
    y = gpu.empty(m, ct)
    if m > 0 then
      kernel("csr_spmv", ct)[{blocks(m, 256), 256}](indptr, indices, data, x, y, m, n, nnz, row_lanes(m, nnz), 0)
    end
  else
    local k = x.shape[2]
    y = gpu.empty({m, k}, ct)
    if m > 0 and k > 0 then
      -- w threads along a row of the result (the power of two at or above k, at most 32),
      -- 256 / w rows a block, so that narrow results keep the warps full
      local w = 1
      while w < 32 and w < k do w = w * 2 end
      kernel("csr_spmm", ct)[{{blocks(k, w), blocks(m, 256 // w)}, {w, 256 // w}}](indptr, indices, data, x, y, m,
                                                                                 n, nnz, k)
    end
  end
  if ct ~= rt then y = y:astype(rt) end
  return y
end

local function dense_arg(api, x, at)
  if type(x) == "table" and not is_sparse(x) then
    local ok, r = pcall(gpu.array, x, "float64")
    if not ok then fail(api, "%s", tostring(r):gsub("^.-:%d+: ", "")) end
    return r
  end
  if is_array(x) and gpu._arg.freed(x) then fail(api, "%s is a freed array", at and "argument " .. at or "the array") end
  return x
end

-- A @ B of two sparse matrices, CSR: every product of an entry (i, p) of A with an entry
-- (p, j) of B's row p listed (their number read back), then summed by (i, j) and the zeros
-- removed, as scipy's. Memory: the number of products. An entry of A whose column is
-- outside B's rows, and B's row ranges, are clamped as the kernels clamp them.
local function spgemm(api, A, B)
  if A.shape[2] ~= B.shape[1] then
    fail(api, "a %dx%d and a %dx%d sparse matrix do not match (%d and %d)", A.shape[1], A.shape[2], B.shape[1],
         B.shape[2], A.shape[2], B.shape[1])
  end
  local dt = gpu.result_type(A.dtype, B.dtype)
  local m, k, n = A.shape[1], A.shape[2], B.shape[2]
  A, B = A:tocsr(), B:tocsr()
  local dA, iA, pA, _, _, nnzA = parts(api, A)
  local dB, iB, pB, _, _, nnzB = parts(api, B)
  if nnzA == 0 or nnzB == 0 or k == 0 then return construct("csr", {m, n}, {dtype = dt}) end
  local startB = gpu.clip(pB[{{1, k}}], 0, nnzB):astype("int64")
  local lenB = gpu.clip(gpu.clip(pB[{{2, k + 1}}], 0, nnzB) - startB, 0, nil)
  local colA = head(iA, nnzA)
  local ok = gpu.logical_and(colA:ge(0), colA:lt(k))
  local safe = gpu.where(ok, colA, 0):astype("int64") + 1
  local count = gpu.where(ok, gpu.take(lenB, safe), 0):astype("int64")
  local e = gpu["repeat"](gpu.arange(1, nnzA + 1, 1, "int64"), count)   -- 1-based entries of A
  local total = e.size
  if total == 0 then return construct("csr", {m, n}, {dtype = dt}) end
  local first = gpu.cumsum(count) - count
  local b = gpu.take(startB, gpu.take(safe, e)) + (gpu.arange(0, total, 1, "int64") - gpu.take(first, e)) + 1
  local vals = gpu.take(head(dA, nnzA), e):astype(dt) * gpu.take(head(dB, nnzB), b):astype(dt)
  local rows = gpu.take(rows_of(pA, nnzA, m), e)
  local d, ind, ptr = compress(vals, rows, gpu.take(head(iB, nnzB), b), m, n, true, false)
  if d.size > INT32_MAX then fail(api, "the product has %d stored elements: more than 2^31 - 1 are not supported", d.size) end
  local C = compressed("csr", d, ind, ptr, {m, n}, true)
  C:eliminate_zeros()
  return C
end

-- a @ b with one of them sparse (gpu.matmul's path for operands that are not arrays)
local function matmul(api, a, b)
  a, b = dense_arg(api, a, 1), dense_arg(api, b, 2)
  if is_sparse(a) and is_sparse(b) then return spgemm(api, a, b) end
  if is_sparse(a) then
    if not is_array(b) then fail(api, "a device array expected as argument 2, got %s", described(b)) end
    return spmatmul(api, a, b)
  end
  if not is_array(a) then fail(api, "a device array or a sparse matrix expected as argument 1, got %s", described(a)) end
  if not is_sparse(b) then fail(api, "a sparse matrix expected as argument 2, got %s", described(b)) end
  -- x @ B = (B^T @ x^T)^T
  if a.ndim ~= 1 and a.ndim ~= 2 then fail(api, "the array must be 1-D or 2-D, got %d-D", a.ndim) end
  if a.shape[a.ndim] ~= b.shape[1] then
    fail(api, "an array of shape {%s} and a %dx%d sparse matrix do not match (%d and %d)",
         table.concat(a.shape, ", "), b.shape[1], b.shape[2], a.shape[a.ndim], b.shape[1])
  end
  local Bt = b:transpose()
  if a.ndim == 1 then return spmatmul(api, Bt, a) end
  return spmatmul(api, Bt, a.T).T:contiguous()
end

function M.dot(A, x) return matmul("dot", A, x) end

-- ---- arithmetic ----
local function same_shape(api, A, B)
  if A.shape[1] ~= B.shape[1] or A.shape[2] ~= B.shape[2] then
    fail(api, "shapes %dx%d and %dx%d differ", A.shape[1], A.shape[2], B.shape[1], B.shape[2])
  end
end

-- A + B (A - B) of two sparse matrices: CSR, canonical, zeros left out (as scipy's), by
-- csr_add merging the rows of their canonical CSR forms: a pass counting each row's
-- entries, their running sum (whose total is read back: one wait), a pass writing them
local function add_sparse(api, A, B, negate)
  same_shape(api, A, B)
  local dt = gpu.result_type(A.dtype, B.dtype)
  local function canonical_csr(X)
    X = X:tocsr()
    if not X.has_canonical_format then X = X:copy(); X:sum_duplicates() end
    return X
  end
  local a, b = canonical_csr(A), canonical_csr(B)
  local ad, ai, ap, m, n, annz = parts(api, a)
  local bd, bi, bp, _, _, bnnz = parts(api, b)
  ad, bd = head(ad, annz), head(bd, bnnz)
  local work = (negate and dt == "bool") and "float32" or dt   -- scipy's bool difference: true where they differ
  if ad.dtype ~= work then ad = ad:astype(work) end
  if bd.dtype ~= work then bd = bd:astype(work) end
  if negate then bd = -bd end
  if m == 0 or annz + bnnz == 0 then
    return compressed("csr", gpu.empty(0, dt), gpu.empty(0, "int32"), gpu.zeros(m + 1, "int32"), A.shape, true)
  end
  local add = kernel("csr_add", work)[{blocks(m, 256), 256}]
  local counts = gpu.empty(m, "int32")
  add(ap, ai, ad, annz, bp, bi, bd, bnnz, m, n, counts, ap, ai, ad, 0, 0)
  local ends = counts:cumsum()
  local nnz = ends:item(m)
  if nnz > INT32_MAX then fail(api, "the sum has %d entries: more than 2^31 - 1 (int32 indices)", nnz) end
  local indptr = gpu.concatenate({gpu.zeros(1, "int32"), ends:astype("int32")})
  local ci, cd = gpu.empty(nnz, "int32"), gpu.empty(nnz, work)
  if nnz > 0 then add(ap, ai, ad, annz, bp, bi, bd, bnnz, m, n, counts, indptr, ci, cd, nnz, 1) end
  return compressed("csr", work == dt and cd or cd:astype(dt), ci, indptr, A.shape, true)
end

-- A times (over) a number, a boolean or a gpu.complex: a dtype gpu.sparse does not hold (a bool matrix
-- times an integer is int64, as scipy's) is refused
local function is_scalar(v) return type(v) == "number" or type(v) == "boolean" or gpu._arg.is_complex(v) end
local function scale(api, A, s, divide)
  if type(s) ~= "number" and type(s) ~= "boolean" then   -- a gpu.complex: a weak scalar, as NumPy's Python complex
    s = gpu.full({}, s, (A.dtype == "float32" or A.dtype == "complex64") and "complex64" or "complex128")
  end
  local d = divide and A.data / s or A.data * s
  if not DTYPES[d.dtype] then
    local dt = d.dtype
    d:free()
    fail(api, "a %s matrix %s %s gives %s, which gpu.sparse does not hold (convert with astype first)",
         A.dtype, divide and "over" or "times", gpu._arg.shown(s), dt)
  end
  return with_data(A, d)
end

-- -A: scipy refuses a bool matrix's
local function negated(api, A)
  if A.dtype == "bool" then fail(api, "negating a bool sparse matrix is not supported (as scipy's)") end
  return with_data(A, -A.data)
end

local function add(api, a, b, negate)
  if is_sparse(a) and is_sparse(b) then return add_sparse(api, a, b, negate) end
  local A, other, first = a, b, true
  if not is_sparse(a) then A, other, first = b, a, false end
  if is_array(other) and other.ndim == 0 then other = dense_arg(api, other):item() end   -- 0-d: its scalar, as scipy's
  if is_scalar(other) then   -- a scalar equal to 0 (0, false, a gpu.complex 0) gives a copy, as scipy's
    local zero = other == 0 or other == false or (type(other) ~= "number" and type(other) ~= "boolean" and other.re == 0 and other.im == 0)
    if not zero then
      fail(api, "adding %s to a sparse matrix is not supported (it would be dense): use A:toarray()",
           type(other) == "number" and "a nonzero number" or type(other) == "boolean" and "true" or "a nonzero gpu.complex")
    end
    local r = A:copy()
    if negate and not first then r = negated(api, r) end
    return r
  end
  other = dense_arg(api, other)
  if not is_array(other) then fail(api, "a sparse matrix, a device array or a number expected, got %s", described(other)) end
  local d = A:toarray()
  if negate then return first and d - other or other - d end
  return d + other
end

function M.multiply(A, B)
  local api = "multiply"
  if is_scalar(B) then return scale(api, A, B) end
  if is_sparse(B) then
    same_shape(api, A, B)
    local a, b = canonical_coo(A), canonical_coo(B)
    local n = A.shape[2]
    local ka = a.row:astype("int64") * n + a.col
    local kb = b.row:astype("int64") * n + b.col
    local dt = gpu.result_type(A.dtype, B.dtype)
    local _, ia, ib = gpu.intersect1d(ka, kb, {return_indices = true})
    local data = gpu.take(a.data, ia):astype(dt) * gpu.take(b.data, ib):astype(dt)
    local row, col, sorted = gpu.take(a.row, ia), gpu.take(a.col, ia), true
    if KIND[dt] == "f" or KIND[dt] == "c" then
      -- as scipy's: an entry of one times the other's implicit zero is kept when it is not
      -- zero, i.e. a NaN or an infinity (giving NaN)
      for _, t in ipairs({{a, ka, kb}, {b, kb, ka}}) do
        local X = t[1]
        local lone = gpu.flatnonzero(gpu.logical_and(gpu.logical_not(gpu.isfinite(X.data)), gpu.logical_not(gpu.isin(t[2], t[3]))))
        if lone.size > 0 then
          data = gpu.concatenate({data, gpu.take(X.data, lone):astype(dt) * 0})
          row, col, sorted = gpu.concatenate({row, gpu.take(X.row, lone)}), gpu.concatenate({col, gpu.take(X.col, lone)}), false
        end
      end
    end
    local d, ind, ptr = compress(data, row, col, A.shape[1], n, false, sorted)
    local C = compressed("csr", d, ind, ptr, A.shape, true)
    C:eliminate_zeros()   -- (scipy's leaves zero products out)
    return C
  end
  B = dense_arg(api, B)
  if not is_array(B) then fail(api, "a sparse matrix, a device array or a number expected, got %s", described(B)) end
  local ok, full = pcall(function() return B:expand(A.shape[1], A.shape[2]) end)
  if not ok then
    fail(api, "an array of shape {%s} does not broadcast to %dx%d", table.concat(B.shape, ", "), A.shape[1], A.shape[2])
  end
  local C = canonical_coo(A)
  -- (an entry outside the matrix, where indices were written after construction, gets 0)
  local inside = gpu.logical_and(gpu.logical_and(C.row:ge(0), C.row:lt(A.shape[1])),
                                 gpu.logical_and(C.col:ge(0), C.col:lt(A.shape[2])))
  local idx = gpu.where(inside, C.row:astype("int64") * A.shape[2] + C.col + 1, 1)
  -- NumPy's product of the two dtypes (a Lua 0 in where made bool int64), one gpu.sparse holds
  local dt = check_dtype(api, gpu.result_type(A.dtype, B.dtype))
  local vals = gpu.where(inside, gpu.take(full:contiguous():reshape(-1), idx), gpu.zeros({}, B.dtype))
  local d, ind, ptr = compress(C.data:astype(dt) * vals:astype(dt), C.row, C.col, A.shape[1], A.shape[2], false, true)
  return compressed("csr", d, ind, ptr, A.shape, true)
end

-- ---- indexing: A[{rows, cols}] and A[{rows, cols}] = v, scipy's __getitem__ and __setitem__ ----
-- A key's entries are the dense views' (1-based, negative from the end): a number, a range
-- {first, last [, step]} ({} the whole dimension, {i} one kept), or a device array (integer:
-- indices, repeats repeated; bool: a mask of the dimension's length). A selection, 0-based:
-- {int = p}, {first = f, len = l, step = s} or {idx = an int64 array [, dup = true]} (dup: an
-- integer array, which may repeat an index; a mask's indices are distinct). The work is on the
-- device: rows are gathered (kernels/sparse.cu's csr_take_count, a running sum, csr_take_rows),
-- columns mapped (csr_col_count, a running sum, csr_col_write: each old column's new places
-- from a sort of the wanted ones), elements looked up (csr_lookup); a CSC matrix is the CSR
-- matrix of its transpose, so its columns are gathered and its rows mapped.
local DIM_NAME = {"row", "column", "element"}   -- (3: A:take's flat indices)

local function index_int(api, v, what)
  local i = math.type(v) == "integer" and v or math.type(v) == "float" and math.tointeger(v)
  if not i then fail(api, "%s must be an integer, got %s", what, type(v) == "number" and gpu._arg.shown(v) or described(v)) end
  return i
end
local function position(api, i, n, d)
  local p = i < 0 and i + n or i - 1
  if p < 0 or p >= n then fail(api, "%s index %d out of range for a matrix of %d %ss", DIM_NAME[d], i, n, DIM_NAME[d]) end
  return p
end

-- a range {first, last [, step]} of a dimension of n, as the dense views read it
local function range_sel(api, t, n, d)
  local k, what = #t, DIM_NAME[d]
  if k > 3 then fail(api, "a %s range is {first, last [, step]}, got %d numbers", what, k) end
  local step = t[3] == nil and 1 or index_int(api, t[3], ("a %s range's step"):format(what))
  if step == 0 then fail(api, "a %s range's step must not be 0", what) end
  local first, last = step > 0 and 1 or n, step > 0 and n or 1
  if t[1] ~= nil then first = index_int(api, t[1], ("a %s range's first"):format(what)); last = first end
  if t[2] ~= nil then last = index_int(api, t[2], ("a %s range's last"):format(what)) end
  local f, e = first < 0 and first + n + 1 or first, last < 0 and last + n + 1 or last
  if (step > 0 and e < f) or (step < 0 and f < e) then return {first = 0, len = 0, step = 1} end
  position(api, first, n, d)
  position(api, last, n, d)
  local len = (step > 0 and e - f or f - e) // math.abs(step) + 1
  return {first = f - 1, len = len, step = len > 1 and step or 1}
end

-- an index array or mask (a device array) of a dimension of n; one read back (its first
-- entry out of range, or a mask's count)
local function array_sel(api, v, n, d)
  local what = DIM_NAME[d]
  if gpu._arg.freed(v) then fail(api, "the %s index is a freed array", what) end
  if v.dtype == "bool" then
    if v.ndim ~= 1 or v.size ~= n then
      fail(api, "a %s mask must be 1-D of the matrix's %d %ss, got shape {%s}", what, n, what, table.concat(v.shape, ", "))
    end
    return {idx = gpu.flatnonzero(v) - 1}
  end
  if KIND[v.dtype] ~= "i" and KIND[v.dtype] ~= "u" then fail(api, "%s index arrays must be integer or bool, got %s", what, v.dtype) end
  if v.ndim < 1 or v.ndim > 2 then fail(api, "%s index arrays must be 1-D (or 2-D with another array), got %d-D", what, v.ndim) end
  -- csr_index maps the entries and finds the first bad one (a launch, a read back)
  local x, k = v:contiguous(), v.size
  local idx = gpu.empty(v.shape, "int64")
  if k > 0 then
    local bad = gpu.full(1, k, "int64")
    kernel("csr_index", v.dtype)[{blocks(k, 256), 256}](x, k, n, idx, bad)
    local at = bad:item()
    if at < k then
      local bad_entry = x:reshape(-1):astype("int64"):item(at + 1)   -- (a uint64's 2^63 and above read as negative)
      fail(api, "%s index %s out of range for a matrix of %d %ss", what,
           v.dtype == "uint64" and ("%u"):format(bad_entry) or bad_entry, n, what)
    end
  end
  return {idx = idx, dup = true}
end

local function sel_of(api, v, n, d)
  if v == nil then return nil end
  if type(v) == "number" then return {int = position(api, index_int(api, v, ("a %s index"):format(DIM_NAME[d])), n, d)} end
  if is_array(v) then return array_sel(api, v, n, d) end
  if type(v) == "table" and not is_sparse(v) then return range_sel(api, v, n, d) end
  fail(api, "a %s index must be a number, a range {first, last [, step]} or a device array, got %s", DIM_NAME[d],
       is_sparse(v) and "a sparse matrix" or described(v))
end
local function sel_len(s, n)
  if s == nil then return n end
  return s.int and 1 or s.idx and s.idx.size or s.len
end
-- the 0-based places of a selection (int64)
local function sel_array(s, n)
  if s == nil then return gpu.arange(0, n, 1, "int64") end
  if s.int then return gpu.full(1, s.int, "int64") end
  if s.idx then return s.idx:reshape(-1) end
  if s.len == 0 then return gpu.zeros(0, "int64") end
  return gpu.arange(s.first, s.first + s.len * s.step, s.step, "int64")
end

-- the inclusive running sum of counts (int64, not empty), its total (read back: one wait), and
-- the indices and data arrays of that many entries
local function running(api, counts, dt)
  local ends = counts:cumsum()
  local total = ends:item(counts.size)
  if total > INT32_MAX then fail(api, "the result has %d stored elements: more than 2^31 - 1 (int32 indices)", total) end
  return ends, total, gpu.empty(total, "int32"), gpu.empty(total, dt)
end

-- The rows s (a selection of the CSR form's rows: a number, a range or an index array) of a
-- compressed matrix's arrays, in s's order: data, indices, indptr of the result, and its nnz
-- (read back: one wait). Three launches and no copy: csr_take_count writes each row's length
-- after a 0, whose running sum is the new indptr (int64), which csr_take_rows also writes as
-- int32 beside the entries; a range's rows are computed in the kernels (no array of them).
local function take_major(api, dt, data, indices, indptr, major, nnz, s)
  local k = sel_len(s)
  if k == 0 then return gpu.zeros(0, dt), gpu.zeros(0, "int32"), gpu.zeros(1, "int32"), 0 end
  local counts = gpu.empty(k + 1, "int64")
  local sel, first, step = counts, 0, 0   -- (sel unread for a number or a range)
  if s.idx then sel = s.idx:reshape(-1):contiguous()
  elseif s.int then first, step = s.int, 1
  else first, step = s.first, s.step end
  kernel("csr_take_count", dt)[{blocks(k, 256), 256}](indptr, sel, k, first, step, major, nnz, counts)
  local starts, total, oind, odata = running(api, counts, dt)
  local optr = gpu.empty(k + 1, "int32")
  kernel("csr_take_rows", dt)[{blocks(math.max(total, k + 1), 256), 256}](indptr, indices, data, sel, k, first, step,
                                                                          major, nnz, starts, total, oind, odata, optr)
  return odata, oind, optr, total
end

-- The columns s (a selection, the CSR form's columns) of a compressed matrix's arrays: each
-- entry written once for each new place of its column, in the row's order. A number or a
-- range maps a column to its place in the kernels ((c - first) / step); an index array is
-- sorted, which gives each old column its new places (a searchsorted of minor + 1). One wait
-- (the result's nnz).
local function take_minor(api, dt, data, indices, indptr, major, minor, nnz, s)
  local k = sel_len(s)
  if k == 0 or nnz == 0 then return gpu.zeros(0, dt), gpu.zeros(0, "int32"), gpu.zeros(major + 1, "int32") end
  local mapptr, order, first, step
  if s.idx then
    local sorted
    sorted, order = gpu.sort(s.idx:reshape(-1))   -- (stable: a repeated column's places in order)
    order = order - 1
    mapptr = gpu.searchsorted(sorted, gpu.arange(0, minor + 1, 1, "int64")) - 1
    first, step = 0, 0
  else
    mapptr = gpu.zeros(1, "int64")   -- (unread)
    order = mapptr
    if s.int then first, step = s.int, 1 else first, step = s.first, s.step end
  end
  local counts = gpu.empty(nnz, "int64")
  kernel("csr_col_count", dt)[{blocks(nnz, 256), 256}](indices, nnz, minor, mapptr, k, first, step, counts)
  local ends, total, oind, odata = running(api, counts, dt)
  if total > 0 then
    kernel("csr_col_write", dt)[{blocks(nnz, 256), 256}](indices, data, nnz, minor, mapptr, order, k, first, step,
                                                         ends, total, oind, odata)
  end
  local optr = gpu.empty(major + 1, "int32")
  kernel("csr_col_ptr", dt)[{blocks(major + 1, 256), 256}](indptr, major, nnz, ends, optr)
  return odata, oind, optr
end

-- rows rs and columns cs (selections; nil: all) of a CSR or CSC matrix, in its format. The
-- result is canonical where A is and its columns (CSC: rows) are taken in increasing order
-- by a number or a range (an index array or a negative step may reorder or repeat them).
local function whole(s, n)   -- a range of every index in order is no selection ({} of A[{{}, cols}])
  if s and s.len == n and s.first == 0 and s.step == 1 then return nil end
  return s
end
local function submatrix(api, A, rs, cs)
  rs, cs = whole(rs, A.shape[1]), whole(cs, A.shape[2])
  if rs == nil and cs == nil then return A:copy() end
  local shape = {sel_len(rs, A.shape[1]), sel_len(cs, A.shape[2])}
  local data, indices, indptr, major, minor, nnz = parts(api, A)
  local ms, ns = swap(A.format, rs, cs)
  local dt = A.dtype
  local canonical = A.has_canonical_format and (ns == nil or ns.int ~= nil or (ns.step ~= nil and ns.step > 0))
  if ms ~= nil then
    data, indices, indptr, nnz = take_major(api, dt, data, indices, indptr, major, nnz, ms)
    major = sel_len(ms)
  end
  if ns ~= nil then data, indices, indptr = take_minor(api, dt, data, indices, indptr, major, minor, nnz, ns) end
  return compressed(A.format, data, indices, indptr, shape, canonical)
end

-- the values at the places (r[i], c[i]) (int64, 0-based, 1-D, one size; inside the matrix),
-- duplicates summed, each place's first entry (-1 where none is stored) and their number
local function lookup(api, A, r, c)
  local data, indices, indptr, major, minor, nnz = parts(api, A)
  r, c = swap(A.format, r:contiguous(), c:contiguous())
  local k = r.size
  local vals, offs, counts = gpu.empty(k, A.dtype), gpu.empty(k, "int64"), gpu.empty(k, "int64")
  if k > 0 then
    kernel("csr_lookup", A.dtype)[{blocks(k, 256), 256}](indptr, indices, data, major, minor, nnz, r, c, k,
                                                         A.has_canonical_format and 1 or 0, vals, offs, counts)
  end
  return vals, offs, counts
end

-- a key as rows and columns: a table {rows [, cols]}, a number or a device array (rows), or
-- a bool mask of A's shape (a device array or a sparse matrix: its places, as pairs)
local function key_parts(api, A, key)
  if type(key) == "table" and not is_sparse(key) then
    local len = #key
    if len > 2 then fail(api, "too many indices (%d) for a sparse matrix (2 dimensions)", len) end
    return key[1], key[2]
  end
  local m, n = A.shape[1], A.shape[2]
  if is_sparse(key) or (is_array(key) and key.dtype == "bool" and key.ndim == 2) then
    if key.dtype ~= "bool" or key.shape[1] ~= m or key.shape[2] ~= n then
      fail(api, "a matrix as a key must be a bool mask of shape %dx%d, got %s of shape %dx%d", m, n, key.dtype,
           key.shape[1], key.shape[2])
    end
    local r, c = key:nonzero()
    return nil, nil, r - 1, c - 1
  end
  return key, nil
end

-- row and column index arrays broadcast together (views)
local function broadcast_pair(api, r, c)
  local ok, br, bc = pcall(gpu.broadcast_arrays, r, c)
  if not ok then
    fail(api, "row and column index arrays of shapes {%s} and {%s} do not broadcast", table.concat(r.shape, ", "),
         table.concat(c.shape, ", "))
  end
  return br, bc
end

-- A[{rows, cols}] of two index arrays: the pairs (r, c: int64, 0-based, 1-D) and their shape,
-- or nothing for scipy's outer form (rows {k, 1} against 1-D columns: a submatrix)
local function pairs_of(api, rs, cs)
  local r, c = rs.idx, cs.idx
  if r.ndim == 2 and r.shape[2] == 1 and (c.ndim == 1 or c.shape[1] == 1) then return nil end
  local br, bc = broadcast_pair(api, r, c)
  return br:contiguous():reshape(-1), bc:contiguous():reshape(-1), br.shape
end

local function check_2d(api, rs, cs)
  if (rs and rs.idx and rs.idx.ndim ~= 1) or (cs and cs.idx and cs.idx.ndim ~= 1) then
    fail(api, "a 2-D index array needs an index array for the other dimension")
  end
end

-- A[key]
local function get(api, A, rk, ck, pr, pc)
  if A.format == "coo" then
    fail(api, "'coo_matrix' object is not subscriptable, as scipy's: index A:tocsr() or A:tocsc()")
  end
  if pr then return (lookup(api, A, pr, pc)) end
  local rs, cs = sel_of(api, rk, A.shape[1], 1), sel_of(api, ck, A.shape[2], 2)
  if rs and cs and rs.int and cs.int then
    return (lookup(api, A, gpu.full(1, rs.int, "int64"), gpu.full(1, cs.int, "int64"))):item()
  end
  if rs and cs and rs.idx and cs.idx then
    local r, c, shape = pairs_of(api, rs, cs)
    if r then return (lookup(api, A, r, c)):reshape(shape) end
    return submatrix(api, A, {idx = rs.idx:reshape(-1)}, {idx = cs.idx:reshape(-1)})
  end
  check_2d(api, rs, cs)
  return submatrix(api, A, rs, cs)
end
local function getitem(A, key)
  return get("index", A, key_parts("index", A, key))
end

-- ---- assignment: A[key] = v, scipy's __setitem__ ----
-- The key's places in the C order of scipy's selection shape (nil: one element), and whether
-- a place may repeat. scipy's shape: a range (a missing entry: the whole dimension) is a
-- dimension, a number none, an index array its own shape, broadcast, rows made a column where
-- the columns are a range (A[{i, {}}] is 1 x n, A[{idx, j}] is 1-D).
local function assign_places(api, A, rk, ck, pr, pc)
  if pr then return pr, pc, {pr.size}, false end
  local m, n = A.shape[1], A.shape[2]
  local rs, cs = sel_of(api, rk, m, 1), sel_of(api, ck, n, 2)
  if rs and cs and rs.int and cs.int then return gpu.full(1, rs.int, "int64"), gpu.full(1, cs.int, "int64") end
  local dup = (rs and rs.dup) or (cs and cs.dup) or false
  if rs and cs and rs.idx and cs.idx then
    local br, bc = broadcast_pair(api, rs.idx, cs.idx)
    return br:contiguous():reshape(-1), bc:contiguous():reshape(-1), br.shape, dup
  end
  check_2d(api, rs, cs)
  local r, c = sel_array(rs, m), sel_array(cs, n)
  local a, b = r.size, c.size
  local ranged = rs == nil or rs.len ~= nil or cs == nil or cs.len ~= nil
  return r:reshape(a, 1):expand(a, b):contiguous():reshape(-1), c:reshape(1, b):expand(a, b):contiguous():reshape(-1),
         ranged and {a, b} or {a * b}, dup
end

local function shown(shape) return "{" .. table.concat(shape, ", ") .. "}" end
local function complex_into(api, A, what)
  fail(api, "a complex value (%s) cannot be assigned into a %s matrix (take its real part)", what, A.dtype)
end

-- The value as a device array of A's dtype (a copy) and whether it is a single value (a
-- number, a boolean or a gpu.complex): a device array is cast as NumPy's astype, a Lua table
-- (nested lists) goes through gpu.array. Complex into a matrix of another dtype is refused:
-- scipy refuses a complex number or list (float() of it), and casts a NumPy complex array
-- dropping the imaginary part (a ComplexWarning).
local function value_arg(api, A, v)
  local dt = A.dtype
  if type(v) == "number" or type(v) == "boolean" then
    if type(v) == "boolean" and dt ~= "bool" then v = v and 1 or 0 end
    return gpu.full(1, v, dt), true
  end
  if gpu._arg.is_complex(v) then
    if KIND[dt] ~= "c" then complex_into(api, A, tostring(v)) end
    return gpu.full(1, v, dt), true
  end
  if is_array(v) then
    if gpu._arg.freed(v) then fail(api, "the value is a freed array") end
    if KIND[v.dtype] == "c" and KIND[dt] ~= "c" then complex_into(api, A, "a " .. v.dtype .. " array") end
    return v:astype(dt), false
  end
  if type(v) == "table" and not is_sparse(v) then
    local leaf = v
    while type(leaf) == "table" do leaf = leaf[1] end
    local ok, x = pcall(gpu.array, v, type(leaf) == "boolean" and "bool" or dt)
    if not ok then
      if gpu._arg.is_complex(leaf) and KIND[dt] ~= "c" then complex_into(api, A, "a table of gpu.complex") end
      fail(api, "the value: %s", (tostring(x):gsub("^.-:%d+: ", "")))
    end
    return x:astype(dt), false
  end
  fail(api, "the value must be a number, a boolean, a gpu.complex, a device array, a table or a sparse matrix, got %s",
       described(v))
end

-- a dense value x fitted to the selection's shape as scipy's: reshaped where the two shapes
-- are one but for dimensions of 1 (a 1-D column into A[{{}, j}]), else broadcast (NumPy's
-- rules); flat, C-ordered
local function squeezed(shape)
  local t = {}
  for _, d in ipairs(shape) do if d ~= 1 then t[#t + 1] = d end end
  return table.concat(t, ",")
end
local function fit(api, x, shape)
  if squeezed(x.shape) == squeezed(shape) then return x:reshape(-1) end
  local ok, b = pcall(gpu.broadcast_to, x, shape)
  if not ok then fail(api, "a value of shape %s does not broadcast to the selection's shape %s", shown(x.shape), shown(shape)) end
  return b:contiguous():reshape(-1)
end

-- A sparse value X for a selection of `shape`, as scipy's: the selection made 2-D (a 1-D one
-- a row), each dimension of X equal to its or 1 (broadcast). Its values there (0 where X
-- stores nothing) and where it stores something (duplicates summed, explicit zeros stored),
-- flat; nil where X has no elements
local function sparse_value(api, A, X, shape)
  local s = #shape == 1 and {1, shape[1]} or shape
  local a, b = X.shape[1], X.shape[2]
  if not ((a == s[1] or (a == 1 and s[1] ~= 1)) and (b == s[2] or (b == 1 and s[2] ~= 1))) then
    fail(api, "a sparse value of shape %dx%d does not fit the selection's shape %s", a, b, shown(shape))
  end
  if KIND[X.dtype] == "c" and KIND[A.dtype] ~= "c" then complex_into(api, A, "a " .. X.dtype .. " matrix") end
  if a == 0 or b == 0 then return nil end
  -- one launch writes both at the selection's shape (csr_densify: X's sums in its dtype, as
  -- toarray's, then cast), broadcasting X's one row or column there
  local C = X.format == "coo" and X:tocsr() or X
  local data, indices, indptr, major, minor, nnz = parts(api, C)
  local k = s[1] * s[2]
  local vals, has = gpu.zeros(k, C.dtype), gpu.zeros(k, "bool")
  if k > 0 and nnz > 0 and major > 0 then
    local reps1, reps2 = a == s[1] and 1 or s[1], b == s[2] and 1 or s[2]
    local per_entry = C.has_canonical_format
    kernel("csr_densify", C.dtype)[{blocks((per_entry and nnz or major) * reps1 * reps2, 256), 256}](
      indptr, indices, data, major, minor, nnz, C.format == "csc" and 1 or 0, per_entry and 1 or 0, s[2], reps1, reps2,
      vals, has)
  end
  if C.dtype ~= A.dtype then vals = vals:astype(A.dtype) end
  return vals, has
end

-- the 1-based places of the last of each run of equal key // group in key's stable sort: each
-- distinct place's last occurrence (group 2: the key's low bit a flag, which sorts a place's
-- flagged occurrences after the others)
local function last_of(key, group)
  local k = key.size
  local sorted, order = gpu.sort(key)
  if k == 1 then return order end
  local g = group == 1 and sorted or sorted // group
  return order[gpu.concatenate({g[{{1, k - 1}}]:ne(g[{{2, k}}]), gpu.full(1, true, "bool")})]
end

-- Sets the places (r[i], c[i]) (int64, 0-based, 1-D, inside A) to val: one value (`one`: a
-- 1-element array) or a value a place. `has` (bool, a place each; nil: all) marks the places a
-- sparse value stores: a stored place it lacks becomes 0, a place not stored is inserted only
-- where it has one. `dup`: a place may repeat; its last occurrence wins, as scipy's (of those
-- a sparse value stores: scipy zeroes the selection, then sets the value's entries in order).
-- Stored places are set in place (where a place holds duplicates, A's are summed first); the
-- places not stored are merged into new arrays: in column order into a canonical A, else
-- before each row's old entries.
local function assign(api, A, r, c, val, one, has, dup)
  if r.size == 0 then return end
  if dup and not one then
    local key = r * A.shape[2] + c   -- (< 2^62: m, n < 2^31)
    if has then key = key * 2 + has:astype("int64") end
    local keep = last_of(key, has and 2 or 1)
    r, c, val = gpu.take(r, keep), gpu.take(c, keep), gpu.take(val, keep)
    if has then has = gpu.take(has, keep) end
  end
  local _, offs, counts = lookup(api, A, r, c)
  if not A.has_canonical_format and counts:gt(1):any() then
    A:sum_duplicates()
    _, offs = lookup(api, A, r, c)
  end
  local data, indices, indptr, major, minor, nnz = parts(api, A)
  local stride = one and 0 or 1
  kernel("csr_set", A.dtype)[{blocks(r.size, 256), 256}](data, nnz, offs, r.size, val, stride)
  if data ~= A.data then A.data = data end
  local new = offs:lt(0)
  if has then new = gpu.logical_and(new, has) end
  local missing = gpu.flatnonzero(new)
  if missing.size == 0 then return end
  -- the places not stored, once each (a pair may be given twice), sorted by row and column of
  -- the CSR form, merged into each row's entries (csr_merge: a thread an output entry, its
  -- row and its place in the merge found by binary searches; no sort of nnz)
  local mr, mc = swap(A.format, gpu.take(r, missing), gpu.take(c, missing))
  local w = math.max(minor, 1)
  local key, nval = mr * w + mc, val
  if one then key = gpu.unique(key)
  else   -- (distinct already)
    local order = gpu.argsort(key)
    key, nval = gpu.take(key, order), gpu.take(gpu.take(val, missing), order)
  end
  local kn = key.size
  local newptr = gpu.searchsorted(key // w, gpu.arange(0, major + 1, 1, "int64")) - 1   -- (1-based)
  local nc = (key % w):astype("int32")
  local starts = gpu.clip(indptr:astype("int64"), 0, nnz) + newptr   -- (the new indptr)
  local oind, odata = gpu.empty(nnz + kn, "int32"), gpu.empty(nnz + kn, A.dtype)   -- (every entry written)
  kernel("csr_merge", A.dtype)[{blocks(nnz + kn, 256), 256}](indptr, indices, data, major, nnz, newptr, nc, kn, nval,
                                                             stride, A.has_canonical_format and 1 or 0, starts, oind,
                                                             odata)
  A.data, A.indices = odata, oind
  A.indptr = starts:astype("int32")
end

-- A[key] = v: the key checked first, then the value, as scipy's
local function setitem(A, key, v)
  local api = "assign"
  if A.format == "coo" then
    fail(api, "'coo_matrix' object does not support item assignment, as scipy's: assign into A:tocsr() or A:tocsc()")
  end
  local r, c, shape, dup = assign_places(api, A, key_parts(api, A, key))
  local val, one, has
  if is_sparse(v) then
    if not shape then fail(api, "a sparse matrix cannot be assigned to one element (scipy: setting an array element with a sequence)") end
    val, has = sparse_value(api, A, v, shape)
    if not val then return end
  else
    val, one = value_arg(api, A, v)
    if not shape then
      if val.size ~= 1 then fail(api, "one element takes one value, got a value of shape %s", shown(val.shape)) end
      val, one = val:reshape(1), true
    elseif not one then
      val = fit(api, val, shape)
    end
  end
  assign(api, A, r, c, val, one, has, dup)
end

-- scipy's getrow (CSR, 1 x n, for every format) and getcol (m x 1: CSC for CSC, else CSR)
function M.getrow(A, i)
  local api = "getrow"
  if type(i) ~= "number" then fail(api, "the row must be an integer, got %s", described(i)) end
  local C = A.format == "coo" and A:tocsr() or A
  return submatrix(api, C, sel_of(api, i, A.shape[1], 1), nil):tocsr()
end
function M.getcol(A, j)
  local api = "getcol"
  if type(j) ~= "number" then fail(api, "the column must be an integer, got %s", described(j)) end
  local C = A.format == "coo" and A:tocsr() or A
  return submatrix(api, C, nil, sel_of(api, j, A.shape[2], 2))
end

-- A:take(indices [, dim]): the rows (dim 1) or columns (dim 2) at 1-based indices (a table, an
-- integer array or a number; a bool table or array is a mask), or without dim the values at
-- flat (C-order) indices, as gpu.take's spelling for what A[{...}] takes only as a device array
function M.take(A, indices, dim)
  local api = "take"
  if type(indices) == "table" and not is_sparse(indices) then
    local ok, r = pcall(gpu.array, indices, type(indices[1]) == "boolean" and "bool" or "int64")
    if not ok then fail(api, "indices: %s", tostring(r):gsub("^.-:%d+: ", "")) end
    indices = r
  elseif type(indices) == "number" then
    indices = gpu.full(1, index_int(api, indices, "an index"), "int64")
  elseif not is_array(indices) then
    fail(api, "indices must be a table, a number or a device array, got %s", described(indices))
  end
  if dim == nil then
    local m, n = A.shape[1], A.shape[2]
    if A.format == "coo" then get(api, A) end   -- (its error)
    local s = array_sel(api, indices:reshape(-1), m * n, 3)
    return (lookup(api, A, s.idx // math.max(n, 1), s.idx % math.max(n, 1)))
  end
  local d = gpu._arg.dim_of(dim, 2, "sparse.take")
  if indices.ndim ~= 1 then fail(api, "indices must be 1-D with a dim, got %d-D", indices.ndim) end
  if d == 1 then return get(api, A, indices, nil) end
  return get(api, A, nil, indices)
end

-- ---- text ----
local function repr(A)
  local nnz = A.format == "coo" and A.data.size or math.min(A.data.size, A.indices.size)
  return ("<%dx%d sparse matrix of type '<class 'numpy.%s'>'\n\twith %d stored elements in %s format>"):format(
    A.shape[1], A.shape[2], A.dtype == "bool" and "bool_" or A.dtype, nnz, FORMAT_NAME[A.format])
end

-- ---- the metatables ----
local api_methods = {}
-- f for gpu.sparse.<api> (a method's name, as its messages), its arrays and matrices on the
-- current device, checked before any work (a kernel inside named its own argument)
local function here(api, f, names) return gpu._api(gpu._arg.on_device("sparse." .. api, f, names)) end
for name, f in pairs(M) do api_methods[name] = here(name, f) end
local index_api, assign_api = here("index", getitem), here("assign", setitem)
local function fields(A, k)
  if k == nil then return nil end   -- (as a table's t[nil])
  if type(k) ~= "string" then return index_api(A, k) end
  if k == "nnz" then
    return A.format == "coo" and rawget(A, "data").size or math.min(rawget(A, "data").size, rawget(A, "indices").size)
  elseif k == "ndim" then return 2
  elseif k == "T" then return A:transpose()
  end
  return api_methods[k]
end
local mul = here("__mul", function(a, b)
  if is_scalar(a) then return scale("__mul", b, a) end
  if is_scalar(b) then return scale("__mul", a, b) end
  return matmul("__mul", a, b)
end)
local div = here("__div", function(a, b)
  if not is_sparse(a) or not is_scalar(b) then fail("__div", "a sparse matrix divides by a number only, got %s / %s",
                                                     is_sparse(a) and "a sparse matrix" or described(a),
                                                     is_sparse(b) and "a sparse matrix" or described(b)) end
  return scale("__div", a, b, true)
end)
for _, fmt in ipairs({"csr", "csc", "coo"}) do
  meta[fmt] = {
    __index = fields,
    __newindex = function(A, k, v)
      if type(k) == "string" then rawset(A, k, v) else return assign_api(A, k, v) end   -- (a tail call: errors name the caller's line)
    end,
    __tostring = repr,
    __name = "gpu.sparse." .. fmt .. "_matrix",
    methods = api_methods,   -- (what spec/docs_spec.lua reads)
    __mul = mul,
    __div = div,
    __unm = here("__unm", function(A) return negated("__unm", A) end),
    __add = here("__add", function(a, b) return add("__add", a, b, false) end),
    __sub = here("__sub", function(a, b) return add("__sub", a, b, true) end),
  }
end

-- ---- module functions ----
local function format_of(api, f, default)
  f = f or default
  if f ~= "csr" and f ~= "csc" and f ~= "coo" then fail(api, "format must be \"csr\", \"csc\" or \"coo\", got %s", tostring(f)) end
  return f
end
local function as_format(A, f) return f == "csr" and A:tocsr() or f == "csc" and A:tocsc() or A:tocoo() end

-- entries (data, row, col: int32) sorted by row and column, distinct, as a matrix of format f
local function from_sorted(A_data, row, col, shape, f)
  local d, ind, ptr = compress(A_data, row, col, shape[1], shape[2], false, true)
  return as_format(compressed("csr", d, ind, ptr, shape, true), f)
end

function S.eye(m, n, k, opts)
  local api = "eye"
  if type(n) == "table" then n, k, opts = nil, nil, n elseif type(k) == "table" then k, opts = nil, k end
  local o = options(api, opts, "dtype format")
  m = dim_arg(api, m, "m")
  n = n == nil and m or dim_arg(api, n, "n")
  k = k == nil and 0 or gpu._arg.integer(k, "sparse.eye", "k")
  local dt = check_dtype(api, o.dtype or "float64")
  local f = format_of(api, o.format, "csr")
  local len = math.max(0, k >= 0 and math.min(m, n - k) or math.min(m + k, n))
  if len == 0 then k = 0 end   -- (an offset past the matrix, maybe past int32: no entries)
  local r0 = math.max(0, -k)
  local row = gpu.arange(r0, r0 + len, 1, "int32")
  return from_sorted(gpu.ones(len, dt), row, row + k, {m, n}, f)
end
function S.identity(n, opts)
  if type(opts) ~= "nil" and type(opts) ~= "table" then fail("identity", "options must be a table, got %s", type(opts)) end
  return S.eye(n, n, 0, opts)
end

function S.diags(diagonals, offsets, opts)
  local api = "diags"
  if type(offsets) == "table" and not offsets[1] and next(offsets) ~= nil and opts == nil then offsets, opts = 0, offsets end
  local o = options(api, opts, "shape format dtype")
  offsets = offsets == nil and 0 or offsets
  if type(diagonals) == "number" then diagonals = {diagonals} end
  if type(diagonals) ~= "table" and not is_array(diagonals) then fail(api, "diagonals must be a table or a device array, got %s", described(diagonals)) end
  local single = type(offsets) == "number"
  if single then
    if is_array(diagonals) or type(diagonals[1]) == "number" then diagonals = {diagonals} end
    offsets = {offsets}
  end
  if type(offsets) ~= "table" then fail(api, "offsets must be a number or a table, got %s", type(offsets)) end
  if #diagonals ~= #offsets then fail(api, "%d diagonals and %d offsets", #diagonals, #offsets) end
  if not is_array(diagonals) then gpu._arg.array_list(diagonals, "sparse.diags", "diagonals", 1, "options go after offsets") end
  gpu._arg.array_list(offsets, "sparse.diags", "offsets", 1, "options go after it")
  local seen, ds = {}, {}
  local dt = o.dtype
  for i = 1, #offsets do
    local off = gpu._arg.integer(offsets[i], "sparse.diags", "an offset")
    if seen[off] then fail(api, "offset %d is repeated", off) end
    seen[off] = true
    offsets[i] = off
    local d = diagonals[i]
    if type(d) == "number" then d = gpu.full(1, d, o.dtype or "float64")
    elseif type(d) == "table" then d = data_arg(api, d, o.dtype)
    elseif not is_array(d) then fail(api, "diagonal %d must be a table, a number or a device array, got %s", i, described(d))
    end
    if d.ndim ~= 1 then d = d:reshape(-1) end
    ds[i] = d
  end
  if not dt then
    local args = {}
    for i, d in ipairs(ds) do args[i] = d.dtype end
    dt = #args > 0 and gpu._arg.result_type_of(args) or "float64"
  end
  check_dtype(api, dt)
  local shape
  if o.shape then shape = shape_arg(api, o.shape, "shape")
  else
    if #ds == 0 then fail(api, "the shape of no diagonals cannot be guessed: give shape") end
    local s = dim_arg(api, ds[1].size + math.abs(offsets[1]), "the size")
    shape = {s, s}
  end
  local m, n = shape[1], shape[2]
  local data, rows, cols = {}, {}, {}
  for i, off in ipairs(offsets) do
    local len = off >= 0 and math.min(m, n - off) or math.min(m + off, n)
    if len < 0 then fail(api, "offset %d is outside a %dx%d matrix", off, m, n) end
    local d = ds[i]
    if d.size == 1 and len > 1 then d = d:expand(len)
    elseif d.size < len then fail(api, "diagonal %d has %d values, its offset %d needs %d", i, d.size, off, len) end
    if len > 0 then
      local r = gpu.arange(math.max(0, -off), math.max(0, -off) + len, 1, "int32")
      data[#data + 1] = d[{{1, len}}]:astype(dt)
      rows[#rows + 1] = r
      cols[#cols + 1] = r + off
    end
  end
  local f = format_of(api, o.format, "csr")
  if #data == 0 then return construct(f, {m, n}, {dtype = dt}) end
  -- zeros are not stored, as scipy's (its DIA matrix's conversion drops them; a NaN stays)
  local all, row, col = gpu.concatenate(data), gpu.concatenate(rows), gpu.concatenate(cols)
  local keep = gpu.flatnonzero(all:ne(0))
  if keep.size == 0 then return construct(f, {m, n}, {dtype = dt}) end
  if keep.size < all.size then all, row, col = gpu.take(all, keep), gpu.take(row, keep), gpu.take(col, keep) end
  local d, ind, ptr = compress(all, row, col, m, n, true, false)
  return as_format(compressed("csr", d, ind, ptr, shape, true), f)
end

-- k distinct numbers of [0, N), uniformly: a permutation's first k where N is small next to
-- k; else draws with replacement, their distinct values (a set uniform given its size), and k
-- of those, so that the memory is O(k), not O(N)
local function distinct_places(N, k)
  if k == 0 then return gpu.zeros(0, "int64") end
  if N <= 4 * k or N <= 2 ^ 20 then return gpu.random.choice(N, k, {replace = false}) - 1 end
  local got = gpu.zeros(0, "int64")
  repeat
    got = gpu.unique(gpu.concatenate({got, gpu.random.integers(0, N, k + k // 8 + 16, "int64")}))
  until got.size >= k
  return gpu.random.choice(got, k, {replace = false})
end

function S.random(m, n, opts)
  local api = "random"
  local o = options(api, opts, "density format dtype seed")
  m, n = dim_arg(api, m, "m"), dim_arg(api, n, "n")
  local density = o.density == nil and 0.01 or o.density
  if type(density) ~= "number" or not (density >= 0 and density <= 1) then
    fail(api, "density must be a number in [0, 1], got %s", tostring(density))
  end
  local dt = check_dtype(api, o.dtype or "float64")
  local f = format_of(api, o.format, "coo")
  if o.seed ~= nil then gpu.random.seed(o.seed) end
  local x = density * m * n   -- Python's round (halves to even), as scipy's int(round(...))
  local k = math.floor(x)
  if x - k > 0.5 or (x - k == 0.5 and k % 2 == 1) then k = k + 1 end
  if k > INT32_MAX then fail(api, "%d stored elements: more than 2^31 - 1 are not supported (int32 indices)", k) end
  local pos = distinct_places(m * n, k)
  local row, col = (pos // n):astype("int32"), (pos % math.max(n, 1)):astype("int32")
  local real = (dt == "float32" or dt == "complex64") and "float32" or "float64"
  local vals = dt == "bool" and gpu.ones(k, "bool") or gpu.random.random(k, real):astype(dt)   -- (bool: true, scipy's)
  if KIND[dt] == "c" then   -- scipy's uniform + uniform * 1j: the imaginary parts drawn after the real ones
    vals = vals + gpu.random.random(k, real):astype(dt) * gpu.full({}, gpu.complex(0, 1), dt)
  end
  local A = coo(vals, row, col, {m, n}, false)
  return as_format(A, f)
end

-- blocks stacked down (dim 1) or across (dim 2): their COO entries, shifted, joined; scipy's
-- format (CSR for CSR blocks, CSC for CSC blocks, either way; else COO) unless one is given
local function stack(api, blocks_, dim, opts)
  local o = options(api, opts, "format dtype")
  if type(blocks_) ~= "table" or is_sparse(blocks_) or #blocks_ == 0 then
    fail(api, "a table of sparse matrices expected, got %s", is_sparse(blocks_) and "a sparse matrix" or type(blocks_) == "table" and "an empty table" or described(blocks_))
  end
  gpu._arg.array_list(blocks_, "sparse." .. api, "the table of sparse matrices", 1, "options go after it")
  local other = 3 - dim
  local fmt, dts, datas, rows, cols, at = nil, {}, {}, {}, {}, 0
  for i = 1, #blocks_ do
    local B = blocks_[i]
    if not is_sparse(B) then fail(api, "block %d is not a sparse matrix (%s)", i, described(B)) end
    if B.shape[other] ~= blocks_[1].shape[other] then
      fail(api, "block %d is %dx%d, block 1 %dx%d: their %s differ", i, B.shape[1], B.shape[2], blocks_[1].shape[1],
           blocks_[1].shape[2], dim == 1 and "numbers of columns" or "numbers of rows")
    end
    fmt = (fmt == nil or fmt == B.format) and B.format or "mixed"
    dts[i] = B.dtype
    local C = B:tocoo()
    datas[i], rows[i], cols[i] = C.data, C.row, C.col
    if dim == 1 then rows[i] = C.row + at else cols[i] = C.col + at end
    at = at + B.shape[dim]
  end
  if at > INT32_MAX then fail(api, "the result has %d %s: more than 2^31 - 1 are not supported (int32 indices)", at, dim == 1 and "rows" or "columns") end
  local dt = check_dtype(api, o.dtype or gpu._arg.result_type_of(dts))
  for i, d in ipairs(datas) do datas[i] = d:astype(dt) end
  local shape = dim == 1 and {at, blocks_[1].shape[2]} or {blocks_[1].shape[1], at}
  local A = coo(gpu.concatenate(datas), gpu.concatenate(rows):astype("int32"), gpu.concatenate(cols):astype("int32"),
                shape, false)
  local default = (fmt == "csr" or fmt == "csc") and fmt or "coo"
  return as_format(A, format_of(api, o.format, default))
end
-- a sparse matrix argument, or a dense 2-D device array made one (COO)
local function matrix_arg(api, A, what)
  if is_sparse(A) then return A end
  if is_array(A) then return from_dense(api, "coo", A, {}) end
  fail(api, "%s must be a sparse matrix or a device array, got %s", what, described(A))
end

-- scipy's find: the 1-based rows and columns (int64) and the values of the nonzero entries,
-- duplicates summed, in C order
function S.find(A)
  return found(matrix_arg("find", A, "the matrix"))
end

-- the entries of A on and below (tril) or above (triu) diagonal k, as scipy's: COO unless a
-- format is given, duplicates kept
local function triangle(api, A, k, opts, lower)
  if type(k) == "table" and opts == nil then k, opts = nil, k end
  local o = options(api, opts, "format")
  A = matrix_arg(api, A, "the matrix")
  k = k == nil and 0 or gpu._arg.integer(k, "sparse." .. api, "k")
  local C = A:tocoo()
  local off = C.col:astype("int64") - C.row
  local keep = gpu.flatnonzero(lower and off:le(k) or off:ge(k))
  local T = coo(gpu.take(C.data, keep), gpu.take(C.row, keep), gpu.take(C.col, keep), A.shape, C.has_canonical_format)
  return as_format(T, format_of(api, o.format, "coo"))
end
function S.tril(A, k, opts) return triangle("tril", A, k, opts, true) end
function S.triu(A, k, opts) return triangle("triu", A, k, opts, false) end

-- the Kronecker product of two matrices: block (i, j) is A[i, j] * B; COO unless a format is
-- given, every product of a stored entry of A with one of B stored (nnz(A) * nnz(B))
function S.kron(A, B, opts)
  local api = "kron"
  local o = options(api, opts, "format")
  A, B = matrix_arg(api, A, "A"), matrix_arg(api, B, "B")
  local m, n = A.shape[1] * B.shape[1], A.shape[2] * B.shape[2]
  dim_arg(api, m, "the number of rows")
  dim_arg(api, n, "the number of columns")
  local CA, CB = A:tocoo(), B:tocoo()
  local na, nb = CA.data.size, CB.data.size
  if na * nb > INT32_MAX then fail(api, "%d x %d stored entries: more than 2^31 - 1 are not supported (int32 indices)", na, nb) end
  local dt = gpu.result_type(A.dtype, B.dtype)
  if na * nb == 0 then return as_format(coo(gpu.zeros(0, dt), gpu.zeros(0, "int32"), gpu.zeros(0, "int32"), {m, n}, true),
                                        format_of(api, o.format, "coo")) end
  local function outer(a, b) return (a:reshape(na, 1) + b:reshape(1, nb)):reshape(-1) end
  local row = outer(CA.row:astype("int64") * B.shape[1], CB.row:astype("int64"))
  local col = outer(CA.col:astype("int64") * B.shape[2], CB.col:astype("int64"))
  local data = (CA.data:astype(dt):reshape(na, 1) * CB.data:astype(dt):reshape(1, nb)):reshape(-1)
  local K = coo(data, row:astype("int32"), col:astype("int32"), {m, n}, false)
  return as_format(K, format_of(api, o.format, "coo"))
end

function S.vstack(blocks_, opts) return stack("vstack", blocks_, 1, opts) end
function S.hstack(blocks_, opts) return stack("hstack", blocks_, 2, opts) end

for _, fmt in ipairs({"csr", "csc", "coo"}) do
  S[fmt .. "_matrix"] = here(fmt .. "_matrix", function(arg1, opts) return construct(fmt, arg1, opts) end, {"arg"})
  S["isspmatrix_" .. fmt] = function(v) return is_sparse(v) and v.format == fmt end
end
S.issparse = is_sparse
S.isspmatrix = is_sparse
for _, name in ipairs({"eye", "identity", "diags", "random", "vstack", "hstack", "find", "tril", "triu", "kron"}) do
  S[name] = here(name, S[name], (name == "vstack" or name == "hstack") and {"blocks"} or nil)
end

-- gpu.matmul(a, b [, opts]) when a or b is not a device array (host/blas.c calls this)
gpu._sparse_matmul = gpu._api(gpu._arg.on_device("matmul", function(a, b, opts)
  if opts ~= nil and (type(opts) ~= "table" or next(opts) ~= nil) then
    error("gpu.matmul: options are not supported with a sparse operand", 0)
  end
  if not is_sparse(a) and not is_sparse(b) then
    error(("gpu.matmul: a device array or a sparse matrix expected as argument %d, got %s"):format(
      is_array(a) and 2 or 1, described(is_array(a) and b or a)), 0)
  end
  local ok, r = pcall(matmul, "matmul", a, b)
  if not ok then error(type(r) == "string" and r:gsub("^gpu%.sparse%.matmul:", "gpu.matmul:") or r, 0) end
  return r
end), 3)
