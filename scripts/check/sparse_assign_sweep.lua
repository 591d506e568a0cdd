-- sparse_assign_sweep.lua: gpu.sparse's assignment (A[key] = v: stored places set, new ones
-- merged, sparse values, index arrays of every integer dtype) and indexing by index arrays,
-- on random matrices (long rows among short ones, empty and full rows, duplicates, explicit
-- zeros, unsorted rows; CSR and CSC, canonical or not) and random keys. Each result's arrays
-- (or its error message) are written in a row to the file arg[1], so that two builds' files
-- compare byte for byte (cmp) after a change meant to leave the results as they were.
-- Run: build/gpuhost --cpu scripts/check/sparse_assign_sweep.lua /tmp/a.bin [rounds]
local sp = gpu.sparse
local f = assert(io.open(assert(arg and arg[1], "usage: sparse_assign_sweep.lua OUT [rounds]"), "wb"))
local rounds = tonumber(arg[2]) or 30
local n_out = 0

local function bytes(a) return a.size == 0 and "" or a:contiguous():tobytes() end
local function out(name, ok, r)
  n_out = n_out + 1
  if not ok then f:write(name, " error ", tostring(r), "\n"); return end
  if sp.issparse(r) then
    f:write(name, " ", r.format, " ", r.dtype, " ", tostring(r.has_canonical_format), " ", r.data.size, "\n",
            bytes(r.data), bytes(r.indices), bytes(r.indptr), "\n")
  else
    f:write(name, " ", r.dtype, " ", table.concat(r.shape, "x"), "\n", bytes(r), "\n")
  end
end

-- a random m x n matrix of format fmt and dtype dt: rows (CSC: columns) empty, short, long
-- or full, columns at random (repeats and unsorted rows) or increasing, some stored zeros
local function matrix(m, n, fmt, dt)
  local major, minor = m, n
  if fmt == "csc" then major, minor = n, m end
  local vals, ind, ptr = {}, {}, {0}
  for _ = 1, major do
    local kind, len = math.random(1, 5), 0
    if kind == 1 then len = 0
    elseif kind == 2 then len = math.random(1, 3)
    elseif kind == 3 then len = math.random(1, minor * 2)
    elseif kind == 4 then len = minor
    else len = math.random(1, minor) end
    local inc = math.random(1, 2) == 1
    for k = 1, len do
      ind[#ind + 1] = (kind == 4 or inc) and (k - 1) % minor or math.random(0, minor - 1)
      vals[#vals + 1] = math.random(0, 5) == 0 and 0 or math.random(-9, 9) + math.random(0, 3) / 4
    end
    ptr[#ptr + 1] = #ind
  end
  local data = gpu.array(#vals > 0 and vals or {0}, "float64")
  if #vals == 0 then data = gpu.zeros(0, "float64") end
  if dt == "bool" then data = data:ne(0)
  elseif dt == "complex128" then data = data:astype(dt) + (data * 0.5):astype(dt) * gpu.full({}, gpu.complex(0, 1), dt)
  else data = data:astype(dt) end
  local ctor = fmt == "csr" and sp.csr_matrix or sp.csc_matrix
  local A = ctor({data, gpu.array(#ind > 0 and ind or {0}, "int32")[{{1, #ind}}], gpu.array(ptr, "int32")},
                 {shape = {m, n}})
  if math.random(1, 2) == 1 then A:sum_duplicates() end
  return A
end

local function ints(k, lo, hi)
  local t = {}
  for i = 1, k do
    local v = math.random(lo, hi)
    t[i] = v == 0 and 1 or v
  end
  return t
end
local function idx(t, dt) return gpu.array(t, dt or "int64") end
local function dense(shape, dt)
  local k = 1
  for _, d in ipairs(shape) do k = k * d end
  local t = {}
  for i = 1, k do t[i] = math.random(0, 3) == 0 and 0 or math.random(-5, 5) end
  return gpu.array(t, "float64"):reshape(shape):astype(dt)
end
local function range(n)
  local a, b = math.random(1, n), math.random(1, n)
  if math.random(1, 3) == 1 then return {b, a, -1} end
  return {math.min(a, b), math.max(a, b), math.random(1, 2)}
end
local function len_of(r, n)
  if r == nil then return n end
  local a, b, s = r[1] or 1, r[2] or n, r[3] or 1
  if (s > 0 and b < a) or (s < 0 and a < b) then return 0 end
  return math.abs(b - a) // math.abs(s) + 1
end
-- a sparse value of shape {a, b} (a random format, dtype, duplicates)
local function sparse_val(a, b, dt)
  local X = matrix(a, b, ({"csr", "csc"})[math.random(1, 2)], dt)
  local pick = math.random(1, 3)
  if pick == 1 then return X:tocoo() end
  return X
end

local DTYPES = {"float64", "float32", "complex128", "bool"}
local INTS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
math.randomseed(20261203)
for round = 1, rounds do
  local m, n = math.random(1, 40), math.random(1, 40)
  if round % 7 == 0 then m = 1 end
  if round % 5 == 0 then n = math.random(200, 600) end
  local fmt, dt = ({"csr", "csc"})[math.random(1, 2)], DTYPES[math.random(1, #DTYPES)]
  local A = matrix(m, n, fmt, dt)
  local tag = ("r%d %dx%d %s %s %s"):format(round, m, n, fmt, dt, tostring(A.has_canonical_format))
  local function try(name, key, v)
    out(tag .. " " .. name, pcall(function()
      local B = A:copy()
      B[key] = v
      return B
    end))
  end
  local i, j = math.random(1, m), math.random(1, n)
  -- whole rows and columns from arrays and numbers
  try("row array", {i, {}}, dense({n}, dt))
  try("row number", {i, {}}, 3)
  try("col array", {{}, j}, dense({m}, dt))
  try("rows all", {{}}, dense({m, n}, dt))
  try("element", {i, j}, 2)
  -- ranges
  local rr, cr = range(m), range(n)
  try("ranges array", {rr, cr}, dense({len_of(rr, m), len_of(cr, n)}, dt))
  try("ranges bcast", {rr, cr}, dense({1, len_of(cr, n)}, dt))
  try("ranges zero", {rr, cr}, 0)
  -- index arrays (repeats, negatives), pairs, masks
  local ri, ci = ints(math.random(1, 12), -m, m), ints(math.random(1, 12), -n, n)
  try("idx rows", {idx(ri)}, dense({#ri, n}, dt))
  try("idx cols", {{}, idx(ci)}, dense({m, #ci}, dt))
  try("idx outer", {idx(ri):reshape(#ri, 1), idx(ci)}, dense({#ri, #ci}, dt))
  local pc = ints(#ri, -n, n)
  try("pairs", {idx(ri), idx(pc)}, dense({#ri}, dt))
  try("pairs one", {idx(ri), idx(pc)}, 5)
  local mask = {}
  for k = 1, m do mask[k] = math.random(1, 2) == 1 end
  try("mask rows", {gpu.array(mask, "bool")}, 7)
  -- sparse values: the selection's shape, broadcast rows, broadcast columns, 1x1; other dtypes
  local a, b = len_of(rr, m), len_of(cr, n)
  if a > 0 and b > 0 then
    local xdt = DTYPES[math.random(1, #DTYPES)]
    if dt ~= "complex128" and xdt == "complex128" then xdt = "float32" end
    try("sparse same " .. xdt, {rr, cr}, sparse_val(a, b, xdt))
    try("sparse row", {rr, cr}, sparse_val(1, b, xdt))
    try("sparse col", {rr, cr}, sparse_val(a, 1, xdt))
    try("sparse one", {rr, cr}, sparse_val(1, 1, xdt))
  end
  try("sparse whole row", {i, {}}, sparse_val(1, n, dt))
  try("sparse idx", {idx(ri)}, sparse_val(#ri, n, dt))
  -- index arrays of every integer dtype, some out of range, at random positions
  for _, it in ipairs(INTS) do
    local lim = it == "int8" and 127 or it == "uint8" and 255 or 1000
    local signed = it:sub(1, 1) == "i"
    local t = {}
    for k = 1, math.random(1, 9) do
      local v = math.random(1, 12) == 1 and math.random(signed and -lim or 0, lim) or math.random(1, m)
      t[k] = v
    end
    local x = gpu.array(t, it)
    out(tag .. " get " .. it, pcall(function() return A[{x}] end))
    try("set " .. it, {x}, 4)
    local y = gpu.array(t, it)
    if #t >= 2 then out(tag .. " get2d " .. it, pcall(function() return A[{y:reshape(#t, 1), idx({1, -1})}] end)) end
  end
  -- sums after index arrays of every dtype (a bool matrix sums in int64: the kernels of a value
  -- type and those of an index type kept apart)
  out(tag .. " sums", pcall(function() return A:sum(2) end))
end
-- a row far longer than the others, whole, into a matrix that lacks it or holds some of it
for _, fill in ipairs({0, 3, 1000}) do
  local n = 5000
  local rows, cols, vals = {}, {}, {}
  for k = 1, fill do rows[k], cols[k], vals[k] = 2, (k * 37) % n, k end
  for k = 1, 50 do rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = k % 4 + 1, (k * 101) % n, -k end
  local A = sp.coo_matrix({gpu.array(vals, "float64"), {gpu.array(rows, "int64") - 1, gpu.array(cols, "int64")}},
                          {shape = {4, n}}):tocsr()
  for _, canon in ipairs({true, false}) do
    local B = A:copy()
    B.has_canonical_format = canon
    local C = B:copy()
    C[{2, {}}] = gpu.arange(n, "float64") + 1
    out(("long row %d %s"):format(fill, tostring(canon)), true, C)
    C = B:copy()
    C[{{2, 3}, {1, -1, 2}}] = 9
    out(("long rows %d %s"):format(fill, tostring(canon)), true, C)
  end
end
f:close()
print(("%d results written"):format(n_out))
