-- codegen.lua: the CUDA C of gpuhost's elementwise kernels. Built-in operations,
-- gpu.fuse and gpu.elementwise all come here with the same description: the operands
-- (inputs, then outputs) with their dtypes, which inputs are scalars, and the body, C
-- statements that compute one element from scalar variables. One program holds every
-- layout the host (host/ufunc.c) may launch, in this order:
--   ew_c        C-ordered operands, EW_VEC elements a thread with 16-byte loads/stores
--   ew_s<1..3>  strided or broadcast operands over 1 to 3 (merged) dimensions
--   ew_s<8>     4 to 8 dimensions
--   ew_t        (one input, one output) a tiled transposing copy through shared memory
-- The kernels are written as simple per-thread code (no grid-stride loop, no inline PTX)
-- so the same source compiles with NVRTC and with the CPU backend's C++ compiler.
local gpu = ...
local M = {}

local ctype = {}
for _, d in ipairs(gpu._dtypes) do ctype[d.name] = d.ctype end
M.ctype = ctype

M.NAMES = {"ew_c", "ew_s<1>", "ew_s<2>", "ew_s<3>", "ew_s<8>", "ew_t"}
local ITEMS = 4   -- elements a thread of a strided kernel takes (host/ufunc.c agrees)

local function list(n, f)
  local t = {}
  for i = 1, n do t[i] = f(i - 1) end
  return t
end

-- Names of each operand's pieces: type, kernel parameter, body argument.
local function pieces(d)
  local P = {}
  for k, op in ipairs(d.ops) do
    local i, out = k - 1, k > d.nin
    local j = out and i - d.nin or i
    P[k] = {
      type = (out and "ew_O" or "ew_T") .. j,
      param = out and ("q" .. j) or op.scalar and ("s" .. j) or ("p" .. j),
      var = out and ("r" .. j) or ("a" .. j),
      out = out, scalar = op.scalar, dtype = op.dtype,
      load = out and d.load_outputs and d.load_outputs[j + 1],
    }
  end
  return P
end

local function params(P)
  return table.concat(list(#P, function(i)
    local p = P[i + 1]
    if p.scalar then return p.type .. " " .. p.param end
    return (p.out and "" or "const ") .. p.type .. " *" .. p.param
  end), ", ")
end

-- the body as a function of scalar values (inputs) and references (outputs)
local function body_fn(d, P)
  local args = list(#P, function(i)
    local p = P[i + 1]
    return p.type .. (p.out and " &" or " ") .. d.names[i + 1]
  end)
  return ("__device__ __forceinline__ void ew_body(%s, long long i, long long n) {\n%s\n}\n")
         :format(table.concat(args, ", "), d.body)
end

-- a call of the body; arg(p) says what each operand is at this element
local function call(P, arg, index)
  return ("ew_body(%s, %s, n)"):format(table.concat(list(#P, function(i) return arg(P[i + 1]) end), ", "), index)
end

-- The flat kernel: on a GPU each thread takes EW_VEC elements with 16-byte loads and
-- stores (when vec says the pointers allow); the CPU backend, which runs a block's threads
-- as a loop for the compiler to vectorise, gets one element a thread.
local function flat_kernel(P)
  local L = {}
  local function add(s) L[#L + 1] = s end
  add(("extern \"C\" __global__ void ew_c(%s, long long n, int vec) {"):format(params(P)))
  add("#if EW_VEC == 1")
  add("  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;")
  add("  if (i >= n) return;")
  for _, p in ipairs(P) do
    if p.out then add(("  %s %s%s;"):format(p.type, p.var, p.load and (" = %s[i]"):format(p.param) or "")) end
  end
  add("  " .. call(P, function(p)
    return p.out and p.var or p.scalar and p.param or p.param .. "[i]" end, "i") .. ";")
  for _, p in ipairs(P) do
    if p.out then add(("  %s[i] = %s;"):format(p.param, p.var)) end
  end
  add("  (void)vec;")
  add("#else")
  add("  long long base = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * EW_VEC;")
  add("  if (vec && base + EW_VEC <= n) {")
  for _, p in ipairs(P) do
    if p.out then
      add(("    ew::vec<%s, EW_VEC> %s%s;"):format(p.type, p.var,
          p.load and (" = ew::vload<EW_VEC>(%s + base)"):format(p.param) or ""))
    elseif not p.scalar then
      add(("    ew::vec<%s, EW_VEC> %s = ew::vload<EW_VEC>(%s + base);"):format(p.type, p.var, p.param))
    end
  end
  add("#pragma unroll")
  add("    for (int k = 0; k < EW_VEC; k++) " .. call(P, function(p)
    return p.scalar and p.param or p.var .. ".v[k]" end, "base + k") .. ";")
  for _, p in ipairs(P) do
    if p.out then add(("    ew::vstore<EW_VEC>(%s + base, %s);"):format(p.param, p.var)) end
  end
  add("  } else {")
  add("    for (int k = 0; k < EW_VEC; k++) {")
  add("      long long i = base + k;")
  add("      if (i >= n) break;")
  for _, p in ipairs(P) do
    if p.out then add(("      %s %s%s;"):format(p.type, p.var, p.load and (" = %s[i]"):format(p.param) or "")) end
  end
  add("      " .. call(P, function(p)
    return p.out and p.var or p.scalar and p.param or p.param .. "[i]" end, "i") .. ";")
  for _, p in ipairs(P) do
    if p.out then add(("      %s[i] = %s;"):format(p.param, p.var)) end
  end
  add("    }")
  add("  }")
  add("#endif")
  add("}")
  return table.concat(L, "\n") .. "\n"
end

-- Strided: a block takes ITEMS * blockDim consecutive elements (C order over the merged
-- shape), each thread every blockDim-th of them, so that a warp's accesses are
-- consecutive wherever the layout allows; an element's place comes from dividing its
-- index by each dimension, by multiplying with a precomputed magic number (32-bit
-- indices) or by dividing (64-bit).
local function strided_kernel(P)
  local A = {}   -- the array operands, in order: their stride rows
  for _, p in ipairs(P) do if not p.scalar then A[#A + 1] = p end end
  local na = #A
  local L = {}
  local function add(s) L[#L + 1] = s end
  local function each(fmt) for a, p in ipairs(A) do add((fmt:gsub("@", tostring(a - 1)))) end end
  add("template <class I, int ND>")
  add(("__device__ __forceinline__ void ew_run(%s, const ew::strided<ND, %d> &st) {"):format(params(P), na))
  add("  const int nd = ND == 8 ? st.nd : ND;")
  add("  const long long n = st.n;")
  add(("  const I base = (I)blockIdx.x * ((I)blockDim.x * (I)%d) + (I)threadIdx.x;"):format(ITEMS))
  add(("  for (int k = 0; k < %d; k++) {"):format(ITEMS))
  add("    const I i = base + (I)k * (I)blockDim.x;")
  add("    if (i >= (I)n) break;")
  add("    I rem = i;")
  each("    long long f@ = 0;")
  add("    for (int d = nd - 1; d > 0; d--) {")
  add("      const I q = ew::divide_by(rem, st, d), r = rem - q * (I)st.shape[d];")
  add("      rem = q;")
  each("      f@ += (long long)r * st.stride[@][d];")
  add("    }")
  each("    f@ += (long long)rem * st.stride[@][0];")
  local fi = {}
  for a, p in ipairs(A) do fi[p] = "f" .. (a - 1) end
  for _, p in ipairs(P) do
    if p.out then add(("    %s %s%s;"):format(p.type, p.var, p.load and (" = %s[%s]"):format(p.param, fi[p]) or "")) end
  end
  add("    " .. call(P, function(p)
    return p.out and p.var or p.scalar and p.param or ("%s[%s]"):format(p.param, fi[p]) end,
    "(long long)i") .. ";")
  for _, p in ipairs(P) do
    if p.out then add(("    %s[%s] = %s;"):format(p.param, fi[p], p.var)) end
  end
  add("  }")
  add("}")
  local names = list(#P, function(i) return P[i + 1].param end)
  add("template <int ND>")
  add(("__global__ void ew_s(%s, ew::strided<ND, %d> st) {"):format(params(P), na))
  -- 32-bit index arithmetic where the size allows (a GPU divides those far faster)
  add(("  if (st.n <= 0x7fffffffLL) ew_run<unsigned, ND>(%s, st);"):format(table.concat(names, ", ")))
  add(("  else ew_run<unsigned long long, ND>(%s, st);"):format(table.concat(names, ", ")))
  add("}")
  return table.concat(L, "\n") .. "\n"
end

-- One input, one output: 32x32 tiles through shared memory, read along the input's
-- stride-1 dimension and written along the output's.
local function tile_kernel(P)
  local i, o = P[1], P[2]
  return ([==[
extern "C" __global__ void ew_t(const %s *p0, %s *q0, ew::tile t) {
  __shared__ %s tile[32][33];
  const long long n = t.rows * t.cols * t.batch;
  long long b = blockIdx.z, r0 = (long long)blockIdx.y * 32, c0 = (long long)blockIdx.x * 32;
  const %s *in = p0 + b * t.in_s[0];
  %s *out = q0 + b * t.out_s[0];
  int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = ty; j < 32; j += 8) {
    long long r = r0 + tx, c = c0 + j;
    if (r < t.rows && c < t.cols) {
      %s v;
      ew_body(in[r * t.in_s[1] + c * t.in_s[2]], v, (b * t.rows + r) * t.cols + c, n);
      tile[j][tx] = v;
    }
  }
  __syncthreads();
  for (int j = ty; j < 32; j += 8) {
    long long r = r0 + j, c = c0 + tx;
    if (r < t.rows && c < t.cols) out[r * t.out_s[1] + c * t.out_s[2]] = tile[tx][j];
  }
}
]==]):format(i.type, o.type, o.type, i.type, o.type, o.type)
end

-- d: {ops = {{dtype =, scalar =}, ...} (inputs, then outputs), nin =, names = {...} (the
-- body's name for each operand), body =, typedefs =, vec =, load_outputs = {...},
-- tile = bool} -> source, kernel names
function M.source(d)
  local P = pieces(d)
  local parts = {gpu._embedded("kernels/ops/ew.cuh")}
  for _, p in ipairs(P) do parts[#parts + 1] = ("typedef %s %s;\n"):format(ctype[p.dtype], p.type) end
  parts[#parts + 1] = d.typedefs or ""
  parts[#parts + 1] = ("#ifdef GPUHOST_CPU\n#define EW_VEC 1\n#else\n#define EW_VEC %d\n#endif\n"):format(d.vec)
  parts[#parts + 1] = body_fn(d, P)
  parts[#parts + 1] = flat_kernel(P)
  parts[#parts + 1] = strided_kernel(P)
  local names = {table.unpack(M.NAMES, 1, 5)}
  if d.tile then
    parts[#parts + 1] = tile_kernel(P)
    names[6] = M.NAMES[6]
  end
  return table.concat(parts), names
end

-- The body of a built-in operation: expr (a function of ew.cuh) applied to the inputs
-- converted to the types it computes in, the result converted to the output's.
function M.builtin_body(expr, ops, nin)
  local args = {}
  for i = 1, nin do args[i] = ("ew::cast<%s>(x%d)"):format(ctype[ops[i].loop], i - 1) end
  return ("  o0 = ew::cast<ew_O0>(%s(%s));"):format(expr, table.concat(args, ", "))
end

return M
