-- reduction.lua: the CUDA C of reductions. host/reduce.c asks for a program the first time
-- a reducer meets a combination of dtypes; this file writes it: a reducer struct (rd_f:
-- the accumulator type, identity, map, combine, post) around kernels/ops/red.cuh's one
-- kernel, red::run. The built-in reductions (gpu.sum, gpu.argmax, ...) are rows of the
-- table below; gpu.reduction (CuPy's ReductionKernel) writes its rows from the user's C.
local gpu = ...
local ctype = {}
for _, d in ipairs(gpu._dtypes) do ctype[d.name] = d.ctype end
local M = {}

local size_of = {}
for _, d in ipairs(gpu._dtypes) do size_of[d.name] = d.size end

-- Built-ins: for input dtype T and result dtype R, the accumulator (a dtype, or a C type
-- and its size), identity, map (an expression of x, or x and m, and the index _k), combine
-- (of a and b) and post (statements that set y from a, _n and _param).
local function cast_post(expr) return ("y = ew::cast<rd_O0>(%s);"):format(expr) end
-- float16 and float32 accumulate in float64, complex64 in complex128
local WIDE = {float16 = "float64", float32 = "float64", complex64 = "complex128"}
local function sum_like(T, R, identity, combine)
  return {acc = WIDE[R] or R, identity = identity, map = "x", combine = combine, post = cast_post("a")}
end
local arg
-- A complex min or max is its arg reduction's value: the first NaN (as NumPy's, whose
-- NaNs differ: 3+nanj and nan+0j), where a tree of maximum() took whichever it met
local function minmax(T, ident, combine, which)
  if T:find("^complex") then
    local r = arg(T, which)
    r.post = cast_post("a.v")
    return r
  end
  return {acc = T, identity = ("red::%s<rd_acc>()"):format(ident), map = "x", combine = combine,
          post = cast_post("a")}
end
function arg(T, which)
  local al = size_of[T] >= 16 and 16 or 8   -- the struct's alignment: complex128's, else the index's
  return {acc = "red::arg<rd_T0>", accsize = ((8 * ((size_of[T] + 7) // 8) + 8 + al - 1) // al) * al,
          identity = "rd_acc{rd_T0(), -1}", map = "rd_acc{x, _k}",
          combine = ("red::%s_of(a, b)"):format(which), post = cast_post("a.i + 1"),
          -- in index order: the first NaN stays; else a NaN, or a strictly better value, wins
          step = ("(a.i < 0 || (!red::isnan_(a.v) && (red::isnan_(x) || x %s a.v))) ? rd_acc{x, _k} : a")
                 :format(which == "argmax" and ">" or "<")}
end
local function float_sum(map, post)
  return {acc = "float64", identity = "0", map = map, combine = "a + b", post = post}
end
local VAR = "double d = (double)_n - _param[0]; double v = a / (d > 0 ? d : 0.0); "

local builtins = {
  sum = function(T, R) return sum_like(T, R, "0", "ew::add(a, b)") end,
  prod = function(T, R) return sum_like(T, R, "1", R:find("^complex") and "red::times(a, b)" or "ew::multiply(a, b)") end,
  min = function(T) return minmax(T, "highest", "ew::minimum(a, b)", "argmin") end,
  max = function(T) return minmax(T, "lowest", "ew::maximum(a, b)", "argmax") end,
  argmin = function(T) return arg(T, "argmin") end,
  argmax = function(T) return arg(T, "argmax") end,
  any = function() return {acc = "bool", identity = "false", map = "x != rd_T0(0)", combine = "a || b", post = "y = a;"} end,
  all = function() return {acc = "bool", identity = "true", map = "x != rd_T0(0)", combine = "a && b", post = "y = a;"} end,
  count_nonzero = function()
    return {acc = "int64", identity = "0", map = "x != rd_T0(0)", combine = "a + b", post = cast_post("a")}
  end,
  mean = function(T, R)
    if R:find("^complex") then
      return {acc = "complex128", identity = "0", map = "x", combine = "a + b", post = cast_post("a / rd_acc(_n)")}
    end
    return float_sum("x", cast_post("a / (double)_n"))
  end,
  -- the second pass of var and std: x and its mean m (float64, complex128), broadcast
  var = function() return float_sum("red::mag2(ew::cast<rd_T1>(x) - m)", VAR .. cast_post("v")) end,
  std = function() return float_sum("red::mag2(ew::cast<rd_T1>(x) - m)", VAR .. cast_post("sqrt(v)")) end,
  norm2 = function() return float_sum("red::mag2(x)", cast_post("sqrt(a)")) end,
  norm1 = function() return float_sum("red::mag(x)", cast_post("a")) end,
  norm0 = function() return float_sum("(double)(x != rd_T0(0))", cast_post("a")) end,
  normp = function() return float_sum("pow(red::mag(x), _param[0])", cast_post("pow(a, 1.0 / _param[0])")) end,
  norminf = function()
    return {acc = "float64", identity = "0", map = "red::mag(x)", combine = "ew::maximum(a, b)", post = cast_post("a")}
  end,
  normninf = function()
    return {acc = "float64", identity = "red::highest<double>()", map = "red::mag(x)",
            combine = "ew::minimum(a, b)", post = cast_post("a")}
  end,
}
M.builtins = builtins
gpu._reduction = M   -- for specs and tools that compile its sources

local function list(n, f)
  local t = {}
  for i = 1, n do t[i] = f(i - 1) end
  return t
end

-- the kernels of a reduction's program and of a scan's (host/reduce.c and scan.c's order)
local RD_KERNELS, SC_KERNELS = {"rd"}, {"sc_rows", "sc_tiles"}
local function accsize_of(d) return d.accsize or size_of[d.acc] end

-- d: {ins = {dtypes}, outs = {dtypes}, names = {inputs' names, outputs' names}, acc =
-- (a dtype or C type), accsize =, identity =, map =, combine =, post =, typedefs = (the
-- placeholders', in each function), prelude = (C at file scope, before them), step =
-- (optional: an element x of index _k into a, all of whose elements come before it)}
-- -> source, names, the accumulator's size
function M.source(d)
  local nin, nout = #d.ins, #d.outs
  local accsize = accsize_of(d)
  local L = {gpu._embedded("kernels/ops/ew.cuh"), gpu._embedded("kernels/ops/complex.cuh"),
             gpu._embedded("kernels/ops/red.cuh")}
  local function add(s) L[#L + 1] = s end
  -- a line holding the user's expression `part` (gpu.reduction), after the #line that
  -- names it in compiler messages
  local function user(part, s)
    if not d.user then return add(s) end
    add(('#line 1 "%s"\n%s'):format(part, s))
    add('#line 1 "rd (generated)"')
  end
  for i, t in ipairs(d.ins) do add(("typedef %s rd_T%d;"):format(ctype[t], i - 1)) end
  for j, t in ipairs(d.outs) do add(("typedef %s rd_O%d;"):format(ctype[t], j - 1)) end
  add(d.prelude or "")   -- (file scope: gpu.reduce's function and accumulator)
  add(("typedef %s rd_acc;"):format(ctype[d.acc] or d.acc))
  add(("static_assert(sizeof(rd_acc) == %d, \"the accumulator's size\");"):format(accsize))
  local ptrs = list(nin, function(i) return ("const rd_T%d *p%d;"):format(i, i) end)
  for j = 0, nout - 1 do ptrs[#ptrs + 1] = ("rd_O%d *q%d;"):format(j, j) end
  add(("struct rd_args { %s };"):format(table.concat(ptrs, " ")))
  add("struct rd_f {")
  add("  typedef rd_acc acc; typedef rd_args args;")
  add(("  enum { NIN = %d, NOUT = %d, NOP = %d };"):format(nin, nout, nin + nout))
  -- the type placeholders' typedefs in each function of the user's C: a placeholder named
  -- as a function or a namespace of the headers (min, sp) hides it there, where at file
  -- scope it clashed, and one named as rd_f's own names (acc, map) does not clash with them
  local td = (d.typedefs or ""):gsub("\n", " ")
  add("  __device__ __forceinline__ static acc identity() { " .. td)
  user("identity", "    return (rd_acc)(" .. d.identity .. "); }")
  add("  __device__ __forceinline__ static acc combine(const acc &a, const acc &b) { " .. td)
  user("reduce_expr", "    return (rd_acc)(" .. d.combine .. "); }")
  local margs = list(nin, function(i) return ("rd_T%d %s"):format(i, d.names[i + 1]) end)
  add(("  __device__ __forceinline__ static acc map(%s, long long _k, const double *_param) {")
      :format(table.concat(margs, ", ")))
  add("    (void)_k; (void)_param; " .. td)
  user("map_expr", "    return (rd_acc)(" .. d.map .. ");")   -- (rd_acc: an input may be named acc)
  add("  }")
  if nin == 1 then
    add("  typedef rd_T0 in0;")
    add("  __device__ __forceinline__ static const rd_T0 *ptr0(const args &A) { return A.p0; }")
    add("  __device__ __forceinline__ static acc map1(rd_T0 x, long long k, const double *p) { return map(x, k, p); }")
    -- step: element x (index _k) into a, whose elements all come before it
    add("  __device__ __forceinline__ static acc step(const acc &a, rd_T0 x, long long _k, const double *_param) {")
    add("    " .. (d.step and ("(void)_param; return " .. d.step .. ";") or "return combine(a, map1(x, _k, _param));"))
    add("  }")
  end
  add("  __device__ __forceinline__ static acc load(const args &A, const long long *o, long long k, const double *p) {")
  add(("    return map(%s, k, p);"):format(table.concat(list(nin, function(i) return ("A.p%d[o[%d]]"):format(i, i) end), ", ")))
  add("  }")
  -- (its own names reserved: an output may be named A or o)
  add("  __device__ __forceinline__ static void post(const args &_A, const long long *_o, const acc &a, long long _n, const double *_param) {")
  add("    (void)_n; (void)_param; " .. td)
  for j = 0, nout - 1 do add(("    rd_O%d %s = rd_O%d();"):format(j, d.names[nin + j + 1], j)) end
  user("post_map_expr", "    " .. d.post)
  for j = 0, nout - 1 do add(("    _A.q%d[_o[%d]] = %s;"):format(j, nin + j, d.names[nin + j + 1])) end
  add("  }")
  add("};")
  local params = list(nin, function(i) return ("const rd_T%d *p%d"):format(i, i) end)
  for j = 0, nout - 1 do params[#params + 1] = ("rd_O%d *q%d"):format(j, j) end
  local names = list(nin + nout, function(i) return i < nin and "p" .. i or "q" .. (i - nin) end)
  add(("extern \"C\" __global__ void rd(%s, red::layout<%d> L, unsigned char *scratch) {")
      :format(table.concat(params, ", "), nin + nout))
  add(("  rd_args A = {%s};"):format(table.concat(names, ", ")))
  add("  red::run<rd_f>(A, L, scratch);")
  add("}")
  return table.concat(L, "\n") .. "\n", RD_KERNELS, accsize
end

-- A scan (cumsum, cumprod) of T into O, accumulated in R: kernels/ops/scan.cuh's two
-- kernels around the scanner struct.
local function scan_source(kind, T, O, R)
  local combine = kind == "cumsum" and "ew::add(a, b)" or R:find("^complex") and "red::times(a, b)" or "ew::multiply(a, b)"
  local L = {gpu._embedded("kernels/ops/ew.cuh"), gpu._embedded("kernels/ops/complex.cuh"),
             gpu._embedded("kernels/ops/red.cuh"), gpu._embedded("kernels/ops/scan.cuh")}
  L[#L + 1] = ("typedef %s sc_T; typedef %s sc_O; typedef %s sc_A;"):format(ctype[T], ctype[O], ctype[R])
  L[#L + 1] = ("#define SCAN_ITEMS %d"):format(size_of[R] <= 4 and 16 or 8)
  L[#L + 1] = "struct sc_f {"
  L[#L + 1] = "  typedef sc_T in; typedef sc_O out; typedef sc_A acc;"
  -- a float sum starts from -0, IEEE's additive identity (-0 + x is x for every x, +0 too;
  -- +0 + -0 is +0), so {-0.0, -0.0} sums to -0.0 at each step, as NumPy's cumsum
  local identity = kind == "cumprod" and "(acc)1" or R:find("^complex") and "acc(-0.0, -0.0)"
                   or R:find("^float") and "(acc)-0.0" or "(acc)0"
  L[#L + 1] = ("  __device__ __forceinline__ static acc identity() { return %s; }"):format(identity)
  L[#L + 1] = ("  __device__ __forceinline__ static acc combine(const acc &a, const acc &b) { return %s; }"):format(combine)
  L[#L + 1] = "  __device__ __forceinline__ static acc load(in x) { return ew::cast<acc>(x); }"
  L[#L + 1] = "  __device__ __forceinline__ static out store(const acc &a) { return ew::cast<out>(a); }"
  L[#L + 1] = "};"
  L[#L + 1] = "extern \"C\" __global__ void sc_rows(const sc_T *x, sc_O *y, scan::layout L) { scan::rows<sc_f>(x, y, L); }"
  L[#L + 1] = "extern \"C\" __global__ void __launch_bounds__(256, 3) sc_tiles(const sc_T *x, sc_O *y, scan::layout L, unsigned char *scratch) {"
  L[#L + 1] = "  scan::tiles<sc_f, SCAN_ITEMS>(x, y, L, scratch);"
  L[#L + 1] = "}"
  return table.concat(L, "\n") .. "\n", SC_KERNELS, size_of[R]
end
M.scan_source = scan_source

-- host/reduce.c's builder (lua/gpu.lua hands it over): (kind, ops, desc) -> program, the
-- accumulator's size. ops: {{dtype =}, ...} inputs then outputs; R the result's dtype;
-- desc (gpu.reduction's) or nil.
function M.build(kind, ops, R, desc)
  local spec = {options = {"--fmad=false"}, debug = false, prefix = ""}
  local dtypes = {}
  for i, op in ipairs(ops) do dtypes[i] = op.dtype end
  if kind == "cumsum" or kind == "cumprod" then
    -- a float16 scan runs in float64, each output rounded once (the same on either plan)
    local A = R == "float16" and "float64" or R
    -- named by its recipe (host/program.c): a cached program is loaded without writing it
    spec.key = ("scan %s %s %s"):format(kind, table.concat(dtypes, ","), A)
    spec.source = function() return (scan_source(kind, ops[1].dtype, ops[2].dtype, A)) end
    spec.names = SC_KERNELS
    return gpu._program(spec), size_of[A]
  end
  local d
  if desc then
    d = {acc = desc.acc, accsize = desc.accsize, identity = desc.identity, map = desc.map, combine = desc.reduce,
         post = desc.post, names = desc.names, typedefs = desc.typedefs, prelude = desc.prelude, user = true}
  else
    d = builtins[kind](ops[1].dtype, R)
    d.names = #ops == 3 and {"x", "m", "y"} or {"x", "y"}
  end
  d.ins, d.outs = {}, {}
  for i = 1, #ops - 1 do d.ins[i] = ops[i].dtype end
  d.outs[1] = ops[#ops].dtype
  if desc then
    d.ins, d.outs = {}, {}
    for i = 1, desc.nin do d.ins[i] = ops[i].dtype end
    for j = 1, #ops - desc.nin do d.outs[j] = ops[desc.nin + j].dtype end
    local source, names, accsize = M.source(d)
    spec.source, spec.names = source, names
    return gpu._program(spec), accsize
  end
  -- a built-in: named by its recipe, as a scan
  spec.key = ("reduce %s %s %s"):format(kind, table.concat(dtypes, ","), R)
  spec.source = function() return (M.source(d)) end
  spec.names = RD_KERNELS
  return gpu._program(spec), accsize_of(d)
end


------------------------------------------------------------------------------------
-- gpu.reduction(inputs, outputs, map_expr, reduce_expr, post_map_expr, identity [, name]
-- [, reduce_type]): CuPy's ReductionKernel. Parameters are written as gpu.elementwise's
-- ("float32 x, T y"); type placeholders are bound from the arrays passed, one reducer per
-- binding.

local reserved = {a = true, b = true, _k = true, _n = true, _param = true, _A = true, _o = true}
local function parse(list, what, seen)
  return gpu._codegen().params(list, "reduction", what, seen, reserved, "a and b in reduce_expr, _k, _n, _param, _A, _o")
end

-- a Lua number as a C literal with the same value: every bit of a float (tostring keeps
-- 14 digits; a float with no point or exponent gets ".0", so -0.0 stays a double's -0 and
-- not the integer 0), inf and nan (tostring's "inf" is no C), and the least integer, whose
-- digits without the sign are no long long
local function literal(v)
  if math.type(v) == "integer" then
    return v == math.mininteger and "(-9223372036854775807LL - 1)" or ("%dLL"):format(v)
  end
  if v ~= v then return "(0.0 / 0.0)" end
  if v == math.huge or v == -math.huge then return v > 0 and "(1.0 / 0.0)" or "(-1.0 / 0.0)" end
  local text = ("%.17g"):format(v)
  return text:find("[.e]") and text or text .. ".0"
end

local function check_string(v, i, what)
  if type(v) == "number" then return literal(v) end
  if type(v) ~= "string" then
    error(("bad argument #%d to 'reduction' (%s string expected, got %s)"):format(i, what, type(v)), 3)
  end
  return v
end

function gpu.reduction(inputs, outputs, map_expr, reduce_expr, post_map_expr, identity, name, reduce_type)
  gpu._arg.no_nuls("gpu.reduction", 2, inputs, outputs, map_expr, reduce_expr, post_map_expr, identity, name, reduce_type)
  local seen = {}
  local ins, outs = parse(inputs, "input", seen), parse(outputs, "output", seen)
  if #ins == 0 then error("gpu.reduction: at least one input parameter is needed", 2) end
  if #outs == 0 then error("gpu.reduction: at least one output parameter is needed", 2) end
  if #ins + #outs > gpu._MAXOPS then
    error(("gpu.reduction: a reduction has at most %d parameters (inputs and outputs), got %d"):format(gpu._MAXOPS, #ins + #outs), 2)
  end
  map_expr = check_string(map_expr, 3, "map_expr")
  reduce_expr = check_string(reduce_expr, 4, "reduce_expr")
  post_map_expr = check_string(post_map_expr, 5, "post_map_expr")
  identity = check_string(identity, 6, "identity")
  name = name or "reduction"
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    error("bad argument #7 to 'reduction' (a C identifier expected for the name)", 2)
  end
  if reduce_type ~= nil and type(reduce_type) ~= "string" then
    error("bad argument #8 to 'reduction' (a dtype or a type placeholder expected)", 2)
  end
  local all, names = {}, {}
  for _, p in ipairs(ins) do all[#all + 1] = p; names[#names + 1] = p.name end
  for _, p in ipairs(outs) do all[#all + 1] = p; names[#names + 1] = p.name end
  local canonical, ctypes = gpu._codegen().canonical, gpu._codegen().ctypes
  if ctypes[reduce_type] then
    error(("gpu.reduction: reduce_type '%s' is a C type, not a dtype: write %s"):format(reduce_type, ctypes[reduce_type]), 2)
  end
  local relabel = gpu._relabeler("reduction", name)
  local acc_param = reduce_type and {type = canonical[reduce_type], var = not canonical[reduce_type] and reduce_type or nil, name = "reduce_type"}
                    or outs[1]
  local calls, in_ins = {}, {}
  for _, p in ipairs(ins) do if p.var then in_ins[p.var] = true end end
  local only_out = #outs == 1 and outs[1].var and not in_ins[outs[1].var] and outs[1].var
  -- the placeholders' dtypes from the input arrays, then from out (one output; its dtype
  -- checked against the output's by host/reductions.c)
  local function bind(args, out)
    local vars = {}
    for k, p in ipairs(ins) do
      local v = args[k]
      if p.var and gpu._is_array(v) then
        if vars[p.var] and vars[p.var] ~= v.dtype then
          error(("gpu.%s: %s is %s from '%s' but %s from an earlier argument"):format(name, p.var, v.dtype, p.name, vars[p.var]), 3)
        end
        vars[p.var] = v.dtype
      end
    end
    if only_out and gpu._is_array(out) then vars[only_out] = out.dtype end
    local function resolve(p)
      if p.type or vars[p.var] then return p.type or vars[p.var] end
      if p.var == only_out then
        error(("gpu.%s: cannot tell what %s is: it is the output's type only: pass out"):format(name, p.var), 4)
      end
      error(("gpu.%s: cannot tell what %s is: pass an array for an input of type %s"):format(name, p.var, p.var), 4)
    end
    local dts = {}
    for k, p in ipairs(all) do dts[k] = resolve(p) end
    return vars, dts, resolve(acc_param)
  end
  return setmetatable({}, {
    __call = gpu._api(function(_, ...)   -- errors at the caller's line
      local args = table.pack(...)
      local traced = rawget(gpu, "_is_traced")   -- (gpu.fuse's, once loaded)
      for k = 1, traced and args.n or 0 do
        if traced(args[k]) then error(("gpu.%s, a gpu.reduction kernel, cannot be called inside a fused function: reductions are not fused"):format(name), 2) end
      end
      local n, opts = args.n, nil
      if type(args[n]) == "table" then opts, n = args[n], n - 1
      elseif n == #ins + 1 and args[n] == nil then n = n - 1 end   -- as host/reductions.c counts
      if n ~= #ins then   -- (host/reductions.c's message, before the placeholders are asked)
        error(("gpu.%s takes %d input%s (and an options table), got %d"):format(name, #ins, #ins == 1 and "" or "s", n), 2)
      end
      local vars, dts, acc = bind(args, opts and rawget(opts, "out"))
      local key = table.concat(dts, ",") .. ";" .. acc
      local f = calls[key]
      if not f then
        local typedefs = {}
        for var, dt in pairs(vars) do typedefs[#typedefs + 1] = ("typedef %s %s;\n"):format(ctype[dt], var) end
        table.sort(typedefs)
        local _
        _, f = gpu._reducer({name = name, nin = #ins, nout = #outs, dtypes = dts, names = names, acc = acc,
                             identity = identity, map = map_expr, reduce = reduce_expr,
                             post = post_map_expr .. ";", typedefs = table.concat(typedefs)})
        calls[key] = f
      end
      return f(...)
    end, nil, relabel),
    __tostring = function() return ("gpu.reduction(%s)"):format(name) end,
  })
end
gpu.reduction = gpu._api(gpu.reduction)

return M
