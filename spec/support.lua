-- support.lua: helpers the specs share.
local M = {}

M.gpuhost = os.getenv("GPUHOST") or "build/gpuhost"

-- The seed's vecadd, on gpu::array (no `if (i < n)`).
M.VECADD = [[
extern "C" __global__ void vecadd(gpu::array<float> A, gpu::array<float> B, gpu::array<float> C) {
  long long i = gpu::grid(1);
  C[i] = A[i] + B[i];
}
]]

-- Runs a shell command; returns its stdout, its exit status and its stderr.
function M.run(cmd, stdin)
  local errfile = os.tmpname()
  local infile
  if stdin then
    infile = os.tmpname()
    local f = assert(io.open(infile, "w")); f:write(stdin); f:close()
    cmd = cmd .. " < " .. infile
  end
  local p = assert(io.popen(cmd .. " 2>" .. errfile, "r"))
  local out = p:read("a")
  local _, _, status = p:close()
  local f = assert(io.open(errfile)); local err = f:read("a"); f:close()
  os.remove(errfile)
  if infile then os.remove(infile) end
  return out, status, err
end

-- Runs gpuhost with the given arguments (a shell-quoted string).
function M.host(args, stdin) return M.run(M.gpuhost .. " " .. args, stdin) end

function M.quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- A chunk for a fresh process (gpuhost -e): sweep(call, changed, reset) runs call() with a debug
-- hook raising once at its n-th Lua instruction, for n = 1, 2, ... until call() ends; in the
-- main thread, in a coroutine (asked before coroutine.close) and in a coroutine whose hook
-- raises at every instruction from the n-th on. It returns "restored" where changed() was
-- false after each, else the counts where not (reset() puts the state back).
M.HOOK_SWEEP = [[
local function once(n) local c = 0; return function() c = c + 1; if c == n then debug.sethook(); error("hook") end end end
local function every(n) local c = 0; return function() c = c + 1; if c >= n then error("hook") end end end
local function sweep(call, changed, reset)
  local left = {}
  for _, way in ipairs({"main", "coroutine", "every"}) do
    local n, done = 0, false
    repeat
      n = n + 1
      local function run()
        debug.sethook(way == "every" and every(n) or once(n), "", 1)
        call(); debug.sethook(); done = true
      end
      local co = way ~= "main" and coroutine.create(run)
      if co then coroutine.resume(co) else pcall(run) end
      debug.sethook()
      if changed() then left[#left + 1] = way .. " " .. n; reset() end
      if co then coroutine.close(co) end
    until done or n == 100000
    if not done then left[#left + 1] = way .. ": the call never ended" end
  end
  return #left == 0 and "restored" or "left changed at " .. table.concat(left, ", ")
end
]]

-- Writes text to a new temporary file and returns its name.
function M.tmpfile(text, suffix)
  local name = os.tmpname() .. (suffix or ".lua")
  local f = assert(io.open(name, "w")); f:write(text); f:close()
  return name
end

-- The error f(...) raises, as a string (through tostring for error objects).
function M.errof(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error, got none")
  return tostring(e), e
end

function M.has_gpu()
  local ok, n = pcall(gpu.device_count)
  return ok and n > 0 and gpu.backend() == "cuda"
end

-- What k:compile() returns on this backend: the target's pattern, and the compiler's name.
function M.target() return gpu.backend() == "cuda" and "^sm_%d+$" or "^cpu" end
function M.compiler() return gpu.backend() == "cuda" and "nvrtc" or "c++" end

-- got (a device array) against want (nested tables, as the ndimage specs paste scipy's
-- numbers): within tol (relative to max(1, |want|); 0: equal), NaN where want has NaN
function M.close(want, got, tol)
  local g = got:totable()
  local function walk(w, v, at)
    if type(w) == "table" then
      assert(type(v) == "table" and #v == #w, ("%s: expected %d elements, got %s"):format(at, #w, type(v) == "table" and #v or tostring(v)))
      for i = 1, #w do walk(w[i], v[i], at .. "[" .. i .. "]") end
    elseif w ~= w then
      assert(v ~= v, ("%s: expected nan, got %s"):format(at, tostring(v)))
    else
      local ok = tol == 0 and w == v or math.abs(w - v) <= tol * math.max(1, math.abs(w))
      assert(ok, ("%s: expected %s, got %s"):format(at, tostring(w), tostring(v)))
    end
  end
  walk(want, g, "element")
end

-- device arrays of one shape and equal elements (the message shows both)
function M.same_array(want, got)
  local assert = require("luassert")   -- (busted's: a spec file's assert is not a global)
  assert.are.same(want.shape, got.shape, ("shapes {%s} and {%s}: %s"):format(table.concat(want.shape, ", "),
                                                                          table.concat(got.shape, ", "), debug.traceback()))
  assert.is_true(gpu.array_equal(want, got), ("expected %s, got %s"):format(tostring(want), tostring(got)))
end

-- a sparse result R of format fmt against a dense 2-D reference
function M.like_sparse(want, R, fmt)
  local assert = require("luassert")
  assert.is_true(gpu.sparse.issparse(R))
  assert.are.equal(fmt, R.format)
  M.same_array(want:contiguous(), R:toarray())
end

-- the sparse specs' matrices: {format, dtype, shape, seed} for CSR and CSC of each dtype
M.SPARSE_CASES = {}
for _, fmt in ipairs({"csr", "csc"}) do
  for k, dt in ipairs({"float64", "float32", "complex128", "bool"}) do
    M.SPARSE_CASES[#M.SPARSE_CASES + 1] = {fmt, dt, ({{6, 5}, {5, 7}, {4, 4}, {7, 4}})[k], #M.SPARSE_CASES + 1}
  end
end

-- A random m x n gpu.sparse matrix (format "csr" or "csc", dtype float64, float32,
-- complex128 or bool) whose rows (CSC: columns) hold unsorted entries, duplicates, explicit
-- zeros and empty ones
function M.random_sparse(m, n, fmt, dt, seed)
  math.randomseed(seed)
  local major, minor = m, n
  if fmt == "csc" then major, minor = n, m end
  local re, im, ind, ptr = {}, {}, {}, {0}
  for _ = 1, major do
    local len = math.random(0, 3) == 0 and 0 or math.random(1, minor + 1)
    for _ = 1, len do
      ind[#ind + 1] = math.random(0, minor - 1)
      re[#re + 1] = math.random(0, 5) == 0 and 0 or math.random(-4, 5)
      im[#im + 1] = math.random(-3, 3)
    end
    ptr[#ptr + 1] = #ind
  end
  local data = gpu.array(re, "float64")
  if dt == "complex128" then
    data = data:astype(dt) + gpu.array(im, "float64"):astype(dt) * gpu.full({}, gpu.complex(0, 1), dt)
  elseif dt == "bool" then
    data = data:ne(0)
  else
    data = data:astype(dt)
  end
  local ctor = fmt == "csr" and gpu.sparse.csr_matrix or gpu.sparse.csc_matrix
  return ctor({data, gpu.array(ind, "int32"), gpu.array(ptr, "int32")}, {shape = {m, n}})
end

return M
