-- codegen.lua: the CUDA C of gpuhost's elementwise kernels. Built-in operations,
-- gpu.fuse and gpu.elementwise all come here with the same description: the operands
-- (inputs, then outputs) with their dtypes, which inputs are scalars, and the body, C
-- statements that compute one element from scalar variables. One program holds every
-- layout the host (host/ufunc.c) may launch, in this order:
--   ew_c        C-ordered operands, EW_VEC elements a thread with 16-byte loads/stores
--   ew_s<1..3>  strided or broadcast operands over 1 to 3 (merged) dimensions
--   ew_s<8>     4 to 8 dimensions
--   ew_r        a C-ordered output of rows whose inputs walk each row with stride 1 or 0
--               (broadcasts such as (N, 1) + (1, M)), 16 bytes of EW_ROWS rows a thread
--   ew_t        (one input, one output) a tiled transposing copy through shared memory
-- The kernels are written as simple per-thread code (no grid-stride loop, no inline PTX)
-- so the same source compiles with NVRTC and with the CPU backend's C++ compiler.
local gpu = ...
local M = {}

local ctype, size = {}, {}
for _, d in ipairs(gpu._dtypes) do ctype[d.name], size[d.name] = d.ctype, d.size end
-- the C type an operation computes in for a loop dtype: float16 is stored, not computed in
-- (NumPy's float16 loops work in float32 and round once)
local compute = setmetatable({float16 = "float"}, {__index = ctype})
-- but for the operations whose answer depends on the type's precision (ew.cuh has float16
-- versions of them): compute_of(expr)[dtype]
-- and copies (ew::identity), which keep a float16's bits (a NaN's payload too)
local own = {["ew::nextafter"] = true, ["ew::spacing"] = true, ["ew::identity"] = true}
function M.compute_of(expr) return own[expr] and ctype or compute end
M.ctype, M.size, M.compute = ctype, size, compute

-- The parameters of gpu.elementwise and gpu.reduction (CuPy's kernels): "float32 x, T y" ->
-- {{type = "float32", name = "x"}, {var = "T", name = "y"}}. api names the caller in errors,
-- raised at the level of its own caller; reserved (names) and why say what it keeps; seen
-- (names) is shared by the inputs and the outputs.
local canonical = {}
for _, d in ipairs(gpu._dtypes) do
  canonical[d.name] = d.name
  for _, a in ipairs(d.aliases) do canonical[a] = d.name end
end
M.canonical = canonical   -- a dtype's name or alias -> its name
-- Words C++ keeps (a parameter or placeholder named so cannot compile), and the dtype a C
-- type name means where it is one
local cwords = {}
for w in ([[auto break case catch char class const constexpr continue default delete do else enum
  explicit extern false for friend goto if inline int long mutable namespace new operator private
  protected public register return short signed sizeof static struct switch template this throw
  true try typedef typename union unsigned using virtual void volatile while float size_t
  nullptr]]):gmatch("%S+") do cwords[w] = true end
local ctypes = {float = "float32", int = "int32", long = "int64", short = "int16", char = "int8",
                signed = "int32", unsigned = "uint32", size_t = "uint64"}
M.ctypes = ctypes
-- Names the kernel's C already has (types and macros of C, CUDA, gpuhost_portable.h and
-- gpuhost.cuh; the generated code's rd_ and ew_ names): a parameter so named did not
-- compile, with the compiler's words about the generated source
local taken = {}
for w in ([[int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t
  intmax_t uintmax_t ptrdiff_t ssize_t uint ushort ulong uchar half nv_bfloat16 dim3 complex64
  complex128 NAN INFINITY HUGE_VAL HUGE_VALF NULL EOF errno assert gpu ew red std threadIdx
  blockIdx blockDim gridDim warpSize]]):gmatch("%S+") do taken[w] = true end
-- Macros: a parameter named as one is replaced by its text (INT_MAX, EW_VEC, M_PI). Those
-- of the headers the kernels include on either backend are read from them (#define and
-- #undef); the C library's that the CPU backend's system headers add are its families
-- below; the generated code's are EW_ and RD_ names.
local MACRO_FAMILIES = {"^FLT_", "^DBL_", "^LDBL_", "^FP_", "^FE_", "^M_", "^U?INT%d*_", "^U?INT_LEAST",
  "^U?INT_FAST", "^U?INTMAX_", "^U?INTPTR_", "^U?LL?ONG_", "^U?S?CHAR_", "^U?SHRT_", "^PTRDIFF_",
  "^SIZE_", "^SIG_ATOMIC_", "^WCHAR_", "^WINT_", "^EXIT_", "^SEEK_", "^EW_", "^RD_", "^GPUHOST_", "^CUDART_"}
for w in ([[RAND_MAX BUFSIZ FILENAME_MAX CLOCKS_PER_SEC MB_CUR_MAX MB_LEN_MAX TMP_MAX FOPEN_MAX
  L_tmpnam MATH_ERRNO MATH_ERREXCEPT math_errhandling]]):gmatch("%S+") do taken[w] = true end
local HEADERS = {"kernels/gpuhost_portable.h", "kernels/gpuhost.cuh", "kernels/ops/ew.cuh", "kernels/ops/complex.cuh",
  "kernels/ops/red.cuh", "kernels/special.cuh", "kernels/cpu.h", "kernels/cpu_half.h", "kernels/cpu_simd.h",
  "kernels/cpu_assert.h", "kernels/cpu_cooperative_groups.h", "kernels/gpuhost_cpu_abi.h"}
local header_macros
local function macro(w)
  if not header_macros then   -- each header's macros left defined at its end (its own helpers are #undef'd)
    header_macros = {}
    for _, file in ipairs(HEADERS) do
      local defined = {}
      for line in (gpu._embedded(file) or ""):gmatch("[^\n]+") do
        local directive, name = line:match("^%s*#%s*(%a+)%s+([%a_][%w_]*)")
        if directive == "define" then defined[name] = true elseif directive == "undef" then defined[name] = nil end
      end
      for name in pairs(defined) do header_macros[name] = true end
    end
  end
  if header_macros[w] then return true end
  for _, pattern in ipairs(MACRO_FAMILIES) do
    if w:match(pattern) and w:match("^[%u%d_]+$") then return true end
  end
end
local function taken_name(w)
  return taken[w] or macro(w) or w:match("^_?_?u?int_%a+%d+_t$") or w:match("^rd_") or w:match("^ew_") or w:match("^__")
    or w:match("^u?char[1-4]$") or w:match("^u?short[1-4]$") or w:match("^u?int[1-4]$")
    or w:match("^u?long[1-4]$") or w:match("^u?longlong[1-4]$") or w:match("^float[1-4]$") or w:match("^double[1-4]$")
end

function M.params(list, api, what, seen, reserved, why)
  if type(list) ~= "string" then
    error(("bad argument to '%s' (%s: a string of parameters expected, got %s)"):format(api, what, type(list)), 3)
  end
  local params = {}
  for text in (list .. ","):gmatch("([^,]*),") do
    local words, spelled = {}, gpu._arg.trim(text)
    for w in text:gmatch("%S+") do words[#words + 1] = w end
    if words[1] == "raw" then error(("gpu.%s: raw parameters are not supported (%s)"):format(api, spelled), 3) end
    if #words > 0 and (#words ~= 2 or not words[2]:match("^[%a_][%w_]*$") or not words[1]:match("^[%a_][%w_]*$")) then
      error(("gpu.%s: bad %s parameter '%s' (write 'dtype name' or 'T name')"):format(api, what, spelled), 3)
    end
    local t, name = words[1], words[2]
    if ctypes[t] then
      error(("gpu.%s: '%s' in %s parameter '%s' is a C type, not a dtype: write %s (a placeholder "
             .. "cannot be named after a C type)"):format(api, t, what, name, ctypes[t]), 3)
    end
    for _, w in ipairs(words) do
      if cwords[w] then error(("gpu.%s: '%s' is a C++ keyword: it cannot name a parameter or a placeholder"):format(api, w), 3) end
      if not canonical[w] and taken_name(w) then
        error(("gpu.%s: '%s' is a name the kernel's C already has (a type or macro of C, CUDA or "
               .. "gpuhost's headers, or of the generated code): it cannot name a parameter or a placeholder"):format(api, w), 3)
      end
    end
    if reserved[name] then error(("gpu.%s: the name '%s' is reserved (%s)"):format(api, name, why), 3) end
    if name and seen[name] then error(("gpu.%s: parameter '%s' appears twice"):format(api, name), 3) end
    if name then
      seen[name] = true
      params[#params + 1] = {name = name, type = canonical[t], var = not canonical[t] and t or nil}
    end
  end
  return params
end

M.NAMES = gpu._ew_kernels   -- {"ew_c", "ew_s<1>", ..., "ew_r", "ew_t"}: host/ufunc.c's variants
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
-- (the type placeholders' typedefs inside it: a placeholder named as a function or a
-- namespace of the headers, min or sp, hides it there, where at file scope it clashed)
local function body_fn(d, P)
  local args = list(#P, function(i)
    local p = P[i + 1]
    return p.type .. (p.out and " &" or " ") .. d.names[i + 1]
  end)
  return ("__device__ __forceinline__ void ew_body(%s, long long i, long long n) {\n%s%s\n}\n")
         :format(table.concat(args, ", "), d.typedefs or "", d.body)
end

-- a call of the body; arg(p) says what each operand is at this element
local function call(P, arg, index)
  return ("ew_body(%s, %s, n)"):format(table.concat(list(#P, function(i) return arg(P[i + 1]) end), ", "), index)
end

-- The flat kernel. On a GPU a thread takes EW_UNROLL chunks of EW_VEC elements, a chunk
-- being 16 bytes of the widest operand (so every load and store is at most 16 bytes and
-- each warp's accesses are consecutive), the chunks of a thread a block's width apart, all
-- loaded before the first is used: a conversion float32 -> float64 reads 8 and writes 16
-- bytes a chunk, two chunks a thread. The CPU backend, which runs a block's threads as a
-- loop for the compiler to vectorise, gets one element a thread.
local function flat_kernel(P)
  local L = {}
  local function add(s) L[#L + 1] = s end
  local function scalar_element(indent)
    for _, p in ipairs(P) do
      if p.out then add(("%s%s %s%s;"):format(indent, p.type, p.var, p.load and (" = %s[i]"):format(p.param) or "")) end
    end
    add(indent .. call(P, function(p)
      return p.out and p.var or p.scalar and p.param or p.param .. "[i]" end, "i") .. ";")
    for _, p in ipairs(P) do
      if p.out then add(("%s%s[i] = %s;"):format(indent, p.param, p.var)) end
    end
  end
  add(("extern \"C\" __global__ void ew_c(%s, long long n, int vec) {"):format(params(P)))
  add("#if EW_VEC == 1 && EW_UNROLL == 1")
  add("  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;")
  add("  if (i >= n) return;")
  scalar_element("  ")
  add("  (void)vec;")
  add("#else")
  add("  const long long step = (long long)blockDim.x * EW_VEC;")
  add("  const long long first = (long long)blockIdx.x * step * EW_UNROLL + (long long)threadIdx.x * EW_VEC;")
  add("  if (vec && (long long)blockIdx.x * step * EW_UNROLL + step * EW_UNROLL <= n) {")
  for _, p in ipairs(P) do
    if p.out then
      add(("    ew::vec<%s, EW_VEC> %s[EW_UNROLL];"):format(p.type, p.var))
    elseif not p.scalar then
      add(("    ew::vec<%s, EW_VEC> %s[EW_UNROLL];"):format(p.type, p.var))
    end
  end
  add("#pragma unroll")
  add("    for (int u = 0; u < EW_UNROLL; u++) {")
  for _, p in ipairs(P) do
    if (p.out and p.load) or (not p.out and not p.scalar) then
      add(("      %s[u] = ew::vload<EW_VEC>(%s + first + u * step);"):format(p.var, p.param))
    end
  end
  add("    }")
  add("#pragma unroll")
  add("    for (int u = 0; u < EW_UNROLL; u++)")
  add("#pragma unroll")
  add("      for (int k = 0; k < EW_VEC; k++) " .. call(P, function(p)
    return p.scalar and p.param or p.var .. "[u].v[k]" end, "first + u * step + k") .. ";")
  add("#pragma unroll")
  add("    for (int u = 0; u < EW_UNROLL; u++) {")
  for _, p in ipairs(P) do
    if p.out then add(("      ew::vstore<EW_VEC>(%s + first + u * step, %s[u]);"):format(p.param, p.var)) end
  end
  add("    }")
  add("  } else {")
  add("    for (int u = 0; u < EW_UNROLL; u++)")
  add("      for (int k = 0; k < EW_VEC; k++) {")
  add("        long long i = first + u * step + k;")
  add("        if (i >= n) break;")
  scalar_element("        ")
  add("      }")
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

-- Rows: C-ordered output of rows x cols (cols a multiple of EW_VEC), each input walking a
-- row with stride 1 or 0 (a broadcast (N, 1) + (1, M) is one of each). blockIdx.x and the
-- x threads take a row's chunks of EW_VEC consecutive elements; blockIdx.y and the y
-- threads groups of rows, EW_ROWS a thread, blockDim.y apart (a block of short rows thus
-- covers blockDim.y * EW_ROWS consecutive rows; grid-striding past 65535 groups): a thread
-- loads its chunk of each of its rows (a vector from an input of stride 1, one element
-- from one of stride 0), then computes and stores them, with no division for the place.
local function rows_kernel(P)
  local L = {}
  local function add(s) L[#L + 1] = s end
  local A = {}
  for _, p in ipairs(P) do if not p.scalar then A[#A + 1] = p end end
  add(("extern \"C\" __global__ void ew_r(%s, ew::rows<%d> r) {"):format(params(P), #A))
  add("  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;")
  add("  if (c >= r.per_row) return;")
  add("  const long long n = r.rows * r.cols, col = c * EW_VEC;")
  add("  const long long span = (long long)blockDim.y * EW_ROWS;")
  add("  for (long long row0 = (long long)blockIdx.y * span + threadIdx.y; row0 < r.rows; row0 += (long long)gridDim.y * span) {")
  for a, p in ipairs(A) do
    add(("    ew::vec<%s, EW_VEC> %s[EW_ROWS];"):format(p.type, p.var))
  end
  add("#pragma unroll")
  add("    for (int k = 0; k < EW_ROWS; k++) {")
  add("      const long long row = row0 + k * (long long)blockDim.y;")
  add("      if (row >= r.rows) break;")
  for a, p in ipairs(A) do
    local j = a - 1
    if p.out then
      if p.load then add(("      %s[k] = ew::vload<EW_VEC>(%s + row * r.cols + col);"):format(p.var, p.param)) end
    else
      add(("      const %s *%s_at = %s + row * r.row_stride[%d];"):format(p.type, p.var, p.param, j))
      add(("      if (r.inner[%d]) %s[k] = ew::vload<EW_VEC>(%s_at + col);"):format(j, p.var, p.var))
      add(("      else { const %s x = *%s_at;"):format(p.type, p.var))
      add("#pragma unroll")
      add(("        for (int e = 0; e < EW_VEC; e++) %s[k].v[e] = x; }"):format(p.var))
    end
  end
  add("    }")
  add("#pragma unroll")
  add("    for (int k = 0; k < EW_ROWS; k++) {")
  add("      const long long row = row0 + k * (long long)blockDim.y;")
  add("      if (row >= r.rows) break;")
  add("#pragma unroll")
  add("      for (int e = 0; e < EW_VEC; e++) " .. call(P, function(p)
    return p.scalar and p.param or p.var .. "[k].v[e]" end, "row * r.cols + col + e") .. ";")
  for _, p in ipairs(P) do
    if p.out then add(("      ew::vstore<EW_VEC>(%s + row * r.cols + col, %s[k]);"):format(p.param, p.var)) end
  end
  add("    }")
  add("  }")
  add("}")
  return table.concat(L, "\n") .. "\n"
end

-- One input, one output: 64x64 tiles through shared memory, read along the input's
-- stride-1 dimension and written along the output's (32x8 threads, 16 elements each, all
-- 16 loads issued before the first store; a row of the tile is 65 wide, so neither phase
-- has bank conflicts). Full tiles take no bounds checks.
local function tile_kernel(P)
  local i, o = P[1], P[2]
  -- an operation that reads its output (y += x) starts from the output's element (r, c)
  local load = o.load and " = out[(long long)r * t.out_s[1] + c]" or ""
  return ([==[
extern "C" __global__ void ew_t(const %s *p0, %s *q0, ew::tile t) {
  __shared__ %s tile[64][65];
  const long long n = t.rows * t.cols * t.batch;
  const long long b = blockIdx.z, r0 = (long long)blockIdx.y * 64, c0 = (long long)blockIdx.x * 64;
  const int tx = threadIdx.x, ty = threadIdx.y;
  // the input's rows have stride 1, the output's columns (host/ufunc.c's tile_fits)
  const %s *in = p0 + b * t.in_s[0] + r0 + c0 * t.in_s[2];
  %s *out = q0 + b * t.out_s[0] + r0 * t.out_s[1] + c0;
  const long long first = (b * t.rows + r0) * t.cols + c0;
  if (r0 + 64 <= t.rows && c0 + 64 <= t.cols) {
    %s v[16];
#pragma unroll
    for (int k = 0; k < 16; k++) v[k] = in[(tx + 32 * (k & 1)) + (long long)(ty + 8 * (k >> 1)) * t.in_s[2]];
#pragma unroll
    for (int k = 0; k < 16; k++) {
      const int r = tx + 32 * (k & 1), c = ty + 8 * (k >> 1);
      %s o%s;
      ew_body(v[k], o, first + (long long)r * t.cols + c, n);
      tile[c][r] = o;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; k++) {
      const int c = tx + 32 * (k & 1), r = ty + 8 * (k >> 1);
      out[(long long)r * t.out_s[1] + c] = tile[c][r];
    }
    return;
  }
  for (int k = 0; k < 16; k++) {
    const int r = tx + 32 * (k & 1), c = ty + 8 * (k >> 1);
    if (r0 + r < t.rows && c0 + c < t.cols) {
      %s o%s;
      ew_body(in[r + (long long)c * t.in_s[2]], o, first + (long long)r * t.cols + c, n);
      tile[c][r] = o;
    }
  }
  __syncthreads();
  for (int k = 0; k < 16; k++) {
    const int c = tx + 32 * (k & 1), r = ty + 8 * (k >> 1);
    if (r0 + r < t.rows && c0 + c < t.cols) out[(long long)r * t.out_s[1] + c] = tile[c][r];
  }
}
]==]):format(i.type, o.type, o.type, i.type, o.type, i.type, o.type, load, o.type, load)
end

-- d: {ops = {{dtype =, scalar =}, ...} (inputs, then outputs), nin =, names = {...} (the
-- body's name for each operand), body =, typedefs = (the placeholders', in the body),
-- prelude = (C at file scope before it: gpu.vectorize's function), vec =, load_outputs = {...},
-- tile = bool, only = the place in NAMES of the one kernel to write, or nil for all}
-- -> source, kernel names
function M.source(d)
  local P = pieces(d)
  local parts = {gpu._embedded("kernels/ops/ew.cuh"), gpu._embedded("kernels/ops/complex.cuh")}
  -- gpu.special's functions (and gpu.elementwise's or gpu.fuse's calls of them) only where named
  if (d.body .. (d.typedefs or "") .. (d.prelude or "")):find("sp::", 1, true) then parts[#parts + 1] = gpu._embedded("kernels/special.cuh") end
  for _, p in ipairs(P) do parts[#parts + 1] = ("typedef %s %s;\n"):format(ctype[p.dtype], p.type) end
  -- d.vec elements a thread (host/ufunc.c's vec_for): chunks of 16 bytes of the widest array
  local widest = 1
  for _, p in ipairs(P) do if not p.scalar then widest = math.max(widest, size[p.dtype]) end end
  local chunk = math.min(d.vec, 16 // widest)
  parts[#parts + 1] = ("#define EW_ROWS 4\n#ifdef GPUHOST_CPU\n#define EW_VEC 1\n#define EW_UNROLL 1\n#else\n#define EW_VEC %d\n#define EW_UNROLL %d\n#endif\n")
                      :format(chunk, d.vec // chunk)
  parts[#parts + 1] = d.prelude
  parts[#parts + 1] = body_fn(d, P)
  if d.only then   -- one kernel (the CPU backend's programs: lua/arrays.lua)
    local only = d.only
    local kernel = only == 1 and flat_kernel or only <= 5 and strided_kernel or only == 6 and rows_kernel or tile_kernel
    parts[#parts + 1] = kernel(P)
    return table.concat(parts), {M.NAMES[only]}
  end
  parts[#parts + 1] = flat_kernel(P)
  parts[#parts + 1] = strided_kernel(P)
  parts[#parts + 1] = rows_kernel(P)
  local names = {table.unpack(M.NAMES, 1, 6)}
  if d.tile then
    parts[#parts + 1] = tile_kernel(P)
    names[7] = M.NAMES[7]
  end
  return table.concat(parts), names
end

-- The body of a built-in operation: expr (a function of ew.cuh) applied to the inputs
-- converted to the types it computes in, the result converted to the output's (through
-- the result's own type where it is not the computing one: a float16 result written to a
-- float32 out is rounded to float16 first, as NumPy's float16 loop rounds it).
function M.builtin_body(expr, ops, nin)
  local args = {}
  local c = M.compute_of(expr)
  for i = 1, nin do args[i] = ("ew::cast<%s>(x%d)"):format(c[ops[i].loop], i - 1) end
  local r, o = ("%s(%s)"):format(expr, table.concat(args, ", ")), ops[nin + 1]
  if o.dtype ~= o.loop and c[o.loop] ~= ctype[o.loop] then r = ("ew::cast<%s>(%s)"):format(ctype[o.loop], r) end
  return ("  o0 = ew::cast<ew_O0>(%s);"):format(r)
end

return M
