-- Kernels: reading declarations and compiling them, with NVRTC or (CPU backend) the host's
-- C++ compiler. k:compile() targets the current device, so none of this needs a GPU.
local S = require("spec.support")

local VECADD = S.VECADD

describe("gpu.kernel", function()
  it("takes the only kernel of a source", function()
    local k = gpu.kernel(VECADD)
    assert.are.equal("vecadd", k.name)
    assert.are.equal("gpu.kernel(vecadd)", tostring(k))
  end)

  it("compiles", function()
    assert.matches(S.target(), gpu.kernel(VECADD):compile())
  end)

  it("compiles C++ linkage, templates and the samples' idioms", function()
    local src = [[
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <typename T>
__global__ void __launch_bounds__(256) scale(T *x, const T a, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
__global__ void reduce(const float *__restrict__ in, float *out, int n) {
  extern __shared__ float sdata[];
  cg::thread_block block = cg::this_thread_block();
  unsigned int t = block.thread_rank();
  sdata[t] = (t < n) ? in[t] : 0.0f;
  block.sync();
  if (t == 0) { float s = 0; for (unsigned i = 0; i < blockDim.x; i++) s += sdata[i]; *out = s; }
}
]]
    assert.matches(S.target(), gpu.kernel(src, "scale<float>"):compile())
    assert.matches(S.target(), gpu.kernel(src, "scale<double>"):compile())
    assert.matches(S.target(), gpu.kernel(src, "reduce"):compile())
  end)

  it("reports compile errors with the script's file and line", function()
    local msg, err = S.errof(function()
      local k = gpu.kernel([[
__global__ void broken(float *x) {
  x[0] = undefined_name;
}
]])
      k:compile()
    end)
    local line = 0   -- the line of `x[0] = undefined_name;` in this file
    for l in io.lines(debug.getinfo(1, "S").source:sub(2)) do
      line = line + 1
      if l:find("x[0] = undefined_name;", 1, true) then break end
    end
    assert.matches("COMPILATION$", err.name)   -- NVRTC_ERROR_ or GPUHOST_CPU_
    -- NVRTC writes file(line): error, the host's compiler file:line:column: error
    assert.matches("compile_spec%.lua[(:]" .. line .. "[):]", msg)
    assert.matches("undefined_name", msg, 1, true)
    assert.matches("undefined_name", err.log, 1, true)
    assert.is_number(err.code)
  end)

  -- Before: the line was found by opening the script again: one read from a FIFO hung
  -- there, and one changed since it was loaded gave the line of the new text
  it("finds the script's line in the text it ran, also of a script read from a FIFO", function()
    local fifo = os.tmpname()
    os.remove(fifo)
    assert(os.execute("mkfifo " .. fifo))
    local code = "print('before')\n\nlocal k = gpu.kernel([[__global__ void f7(float *a) {\n  a[0] = nosuch;\n}]])\n" ..
                 "print(select(2, pcall(k.compile, k)))\n"
    local out, status, err = S.run(("(printf '%%s' %s > %s &); timeout 60 %s %s"):format(S.quote(code), fifo,
                                   S.gpuhost, fifo))
    os.remove(fifo)
    assert.are.equal(0, status, err)
    assert.matches("^before\n", out)
    assert.matches(fifo .. "[(:]4[):]", out)
  end)

  it("asks for a name when the source has several kernels", function()
    local src = "__global__ void a(int *x) {}\n__global__ void b(int *x) {}\n"
    assert.matches("the source has 2 __global__ functions: name the kernel",
                   S.errof(gpu.kernel, src), 1, true)
    assert.matches("no __global__ function 'c' in the source (it has: a, b)",
                   S.errof(gpu.kernel, src, "c"), 1, true)
    assert.are.equal("b", gpu.kernel(src, "b").name)
  end)

  it("asks for an instantiation of a template", function()
    local src = "template <typename T> __global__ void t(T *x) {}\n"
    assert.matches("kernel 't' is a template: name an instantiation, e.g. 't<float>'",
                   S.errof(gpu.kernel, src), 1, true)
  end)

  it("refuses parameter types it cannot pass", function()
    local src = "struct P { int a; };\n__global__ void k(P p, float **q) {}\n"
    assert.matches("kernel 'k' parameter 1 has type 'P', which gpuhost cannot pass from Lua",
                   S.errof(gpu.kernel, src), 1, true)
    src = "__global__ void k(float **q) {}\n"
    assert.matches("parameter 1 has type 'float**'", S.errof(gpu.kernel, src), 1, true)
  end)

  it("checks its arguments", function()
    assert.matches("source string expected, got nil", S.errof(gpu.kernel), 1, true)
    assert.matches("name string expected, got number", S.errof(gpu.kernel, VECADD, 3), 1, true)
    assert.matches("options must be a table", S.errof(gpu.kernel, VECADD, "vecadd", 3), 1, true)
    assert.matches("options.options[1] must be a string",
                   S.errof(gpu.kernel, VECADD, {options = {1}}), 1, true)
  end)

  it("refuses misspelt options and NUL bytes, which the compiler would drop unread", function()
    assert.matches("gpu.kernel: unknown option 'option' (it takes options, names, debug, check)",
                   S.errof(gpu.kernel, VECADD, {option = {"-DN=4"}}), 1, true)
    assert.matches("gpu.module: unknown option 'nmes' (it takes options, names, debug, check)", S.errof(gpu.module, VECADD, {nmes = {}}), 1, true)
    assert.matches("the source has a NUL byte at position 3",
                   S.errof(gpu.kernel, "//\0" .. VECADD), 1, true)
    assert.matches("the source has a NUL byte", S.errof(gpu.module, VECADD .. "\0x"), 1, true)
    assert.matches("options.options[2] has a NUL byte at position 4",
                   S.errof(gpu.kernel, VECADD, {options = {"-DA", "-DB\0-DC"}}), 1, true)
    assert.matches("options.names[1] has a NUL byte",
                   S.errof(gpu.module, VECADD, {names = {"k\0"}}), 1, true)
    assert.matches("the name has a NUL byte at position 7 (the compiler would stop reading there)",
                   S.errof(gpu.kernel, VECADD, "vecadd\0anything"), 1, true)
  end)

  it("refuses a name that is not a kernel's name when the kernel is made, not at its launch", function()
    local src = "template <class T> __global__ void s(T *a) {}\n" .. VECADD
    for _, n in ipairs({"vecadd<", "vecadd+1", "vecadd()", "&vecadd", "s<float>x", "ns : : vecadd", "n s::vecadd", "vecadd::"}) do
      assert.matches("the name is '" .. n .. "', which is not a kernel's name (an identifier, with its "
                     .. "namespaces and template arguments if any: 'k', 'ns::k', 'k<float>')",
                     S.errof(gpu.kernel, src, n), 1, true)
    end
    assert.matches("options.names[2] is 'vecadd<', which is not a kernel's name",
                   S.errof(gpu.module, src, {names = {"s<int>", "vecadd<"}}), 1, true)
    assert.matches("kernel 'vecadd' is not a template: name it without template arguments ('vecadd')",
                   S.errof(gpu.kernel, src, "vecadd<float>"), 1, true)
    assert.matches("options.names[1] is 'vecadd<int>': kernel 'vecadd' is not a template",
                   S.errof(gpu.module, src, {names = {"vecadd<int>"}}), 1, true)
    -- names NVRTC takes, spaces and all
    for _, n in ipairs({" vecadd ", "::vecadd", "s<float>", " s< float > "}) do
      assert.matches(S.target(), gpu.kernel(src, n):compile())
    end
    assert.matches("options.options[1] is '-I' alone: give it and its value in one string ('-IX')",
                   S.errof(gpu.kernel, VECADD, {options = {"-I", "/usr/include"}}), 1, true)
  end)

  -- Before: "ns :: k" (spaces around "::", as C++ allows) was refused as not a kernel's name.
  it("takes spaces around :: in a kernel's name, and keeps the name without them", function()
    local src = "namespace ns { __global__ void q(float *a) { a[0] = 7; }\n"
                .. "template <class T> __global__ void t(T *a) { a[0] = 8; } }\n"
    local q = gpu.kernel(src, "ns :: q")
    assert.are.equal("ns::q", q.name)
    local a = gpu.zeros(1)
    q[1, 1](a)
    assert.are.equal(7, a:item())
    assert.are.equal("ns::q", gpu.kernel(src, " ns::q ").name)
    local m = gpu.module(src, {names = {"ns :: t<float>"}})
    m["ns::t<float>"][1, 1](a)
    assert.are.equal(8, a:item())
    assert.are.equal("no __global__ function 'ns::vecadd' in the source (it has: vecadd)",
                     S.errof(gpu.kernel, VECADD, "ns :: vecadd"))
  end)

  it("passes NVRTC options", function()
    local src = "__global__ void k(int *x) {\n#ifndef MY_FLAG\n#error MY_FLAG is not set\n#endif\n}\n"
    assert.matches("MY_FLAG is not set", S.errof(function() gpu.kernel(src):compile() end), 1, true)
    assert.matches(S.target(), gpu.kernel(src, {options = {"-DMY_FLAG=1"}}):compile())
  end)

  it("keeps programs and declarations per option, not per the options joined", function()
    -- before: options were joined by "\1", so {"-DA=1\1-DB=2"} (one option: B undefined)
    -- and {"-DA=1", "-DB=2"} were one program and one declaration (int *x: float64 refused)
    local src = "#ifdef B\n__global__ void f(double *x) { x[0] = B; }\n#else\n" ..
                "__global__ void f(int *x) { x[0] = -1; }\n#endif\n"
    local a, b = gpu.zeros(1, "int32"), gpu.zeros(1, "float64")
    gpu.kernel(src, {options = {"-DA=1\1-DB=2"}, check = false})[{1, 1}](a)
    gpu.kernel(src, {options = {"-DA=1", "-DB=2"}, check = false})[{1, 1}](b)
    assert.are.same({-1, 2}, {a:item(1), b:item(1)})
  end)

  -- Before: the CPU backend compiled C++17 whatever -std said ("'requires' does not name a type")
  it("compiles C++20 with -std=c++20, on both backends", function()
    local src = [[
template <class T> concept Small = sizeof(T) <= 4;
template <Small T> __device__ T twice(T x) { return x + x; }
__global__ void k(int *a) { a[0] = twice(a[0]) == 4 ? 1 : 2; }]]
    for _, opt in ipairs({"-std=c++20", "--std=c++20"}) do
      local a = gpu.array({2}, "int32")
      gpu.kernel(src, "k", {options = {opt}})[{1, 1}](a)
      assert.are.equal(1, a:item(1))
    end
  end)

  it("reads every spelling NVRTC takes of -D, -U, -I and --pre-include, on both backends", function()
    -- the CPU backend forwarded only "-DX", "-UX" and "-IX" to its compiler: the long
    -- spellings were dropped ("v.h: No such file") and "-D=X=1" defined a macro "=X"
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. dir))
    local f = assert(io.open(dir .. "/v.h", "w"))
    f:write("#define VAL 7\n")
    f:close()
    local src = [[
#include "v.h"
#ifdef WIDE
__global__ void k(double *a) { a[0] = VAL + X + 0.5; }
#else
__global__ void k(int *a) { a[0] = VAL + X; }
#endif
]]
    local function run(opts, dt)
      local a = gpu.zeros(1, dt or "int32")
      gpu.kernel(src, "k", {options = opts})[{1, 1}](a)
      return a:item(1)
    end
    assert.are.equal(8, run({"-I" .. dir, "-DX=1", "-UWIDE"}))
    assert.are.equal(8, run({"--include-path=" .. dir, "--define-macro=X=1", "--undefine-macro=WIDE"}))
    assert.are.equal(8, run({"-I " .. dir, "-D=X=1", "-U WIDE"}))
    assert.are.equal(8, run({"-I=" .. dir, "-D X=1", "--define-macro WIDE", "--undefine-macro=WIDE"}))
    assert.are.equal(8.5, run({"--include-path " .. dir, "-DX=1", "--define-macro=WIDE"}, "float64"))
    -- the declaration read is the branch the options take (after the #include, a name no
    -- option decides is undecided): an int32 array is refused there
    assert.matches("double", S.errof(run, {"-I" .. dir, "-DX=1", "-D=WIDE"}, "int32"), 1, true)
    local pre = dir .. "/x.h"
    f = assert(io.open(pre, "w"))
    f:write("#define X 2\n")
    f:close()
    assert.are.equal(9, run({"-I" .. dir, "--pre-include=" .. pre, "-U=WIDE"}))
    assert.are.equal(9, run({"-I" .. dir, "-include " .. pre, "--undefine-macro WIDE"}))
    -- and the file pre-included is read after the qualifiers are known, as NVRTC reads it
    -- (the CPU backend read it before its prelude: "'__device__' does not name a type")
    f = assert(io.open(pre, "w"))
    f:write("#define X 2\n__device__ inline int twice(int x) { return 2 * x; }\n")
    f:close()
    local a = gpu.zeros(1, "int32")
    gpu.kernel("__global__ void k(int *a) { a[0] = twice(X) + INT_MAX / INT_MAX; }", "k", {options = {"--pre-include=" .. pre}})[{1, 1}](a)
    assert.are.equal(5, a:item(1))
    for _, o in ipairs({"-D ", "-D=", "--define-macro=", "--include-path ", "-U=", "--define-macro",
                        "--undefine-macro", "--include-path", "-include", "--pre-include"}) do
      assert.matches("options.options[1] is '" .. o .. "' alone: give it and its value in one string",
                     S.errof(gpu.kernel, src, "k", {options = {o, "-DX=1"}}), 1, true)
    end
    os.remove(pre)
    os.remove(dir .. "/v.h")
    os.remove(dir)
  end)

  it("needs a launch configuration", function()
    assert.matches("kernel 'vecadd' needs a launch configuration: k[{grid, block}](...)",
                   S.errof(function() gpu.kernel(VECADD)(1, 2, 3) end), 1, true)
    assert.matches("launch configuration must be {grid, block}, got number",
                   S.errof(function() return gpu.kernel(VECADD)[3] end), 1, true)
  end)

  it("refuses launch configuration fields a launch would ignore", function()
    local k = gpu.kernel(VECADD)
    assert.matches("launch configuration has an unknown field [3]",
                   S.errof(function() return k[{1, 32, 1024}] end), 1, true)
    assert.matches("unknown field ['sharde']", S.errof(function() return k[{1, 32, sharde = 4}] end), 1, true)
    assert.matches("unknown field [true]", S.errof(function() return k[{1, 32, [true] = 1}] end), 1, true)
    assert.is_function(k[{1, 32, shared = 0, stream = gpu.stream()}])
  end)

  it("checks launch configurations before anything runs", function()
    local k = gpu.kernel(VECADD)
    assert.matches("launch configuration must be {grid, block}", S.errof(function() return k[{4}] end), 1, true)
    assert.matches("launch grid must be made of non-negative integers, got -1",
                   S.errof(function() return k[{-1, 32}] end), 1, true)
    assert.matches("launch block must be made of non-negative integers, got 1.5",
                   S.errof(function() return k[{1, 1.5}] end), 1, true)
    assert.matches("launch block must be made of non%-negative integers, got %-?nan",
                   S.errof(function() return k[{1, 0/0}] end))
    assert.matches("launch grid must have 1 to 3 dimensions, got 4",
                   S.errof(function() return k[{{1, 1, 1, 1}, 32}] end), 1, true)
    assert.matches("launch block must be a number or a table of numbers, got string",
                   S.errof(function() return k[{1, "x"}] end), 1, true)
    assert.matches("shared memory size must be non-negative",
                   S.errof(function() return k[{1, 1, shared = -4}] end), 1, true)
  end)
end)

describe("gpu.module", function()
  local src = [[
extern "C" __global__ void one(float *x) { x[0] = 1; }
extern "C" __global__ void two(float *x) { x[0] = 2; }
template <typename T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }
]]
  it("gives its kernels by name", function()
    local m = gpu.module(src, {names = {"fill<int>"}})
    assert.are.equal("one", m.one.name)
    assert.are.equal("two", m.two.name)
    assert.are.equal("fill<int>", m["fill<int>"].name)
    assert.are.equal(m.one, m.one)
    assert.matches(S.target(), m.two:compile())
    assert.are.equal("gpu.module(one, two, fill<int>)", tostring(m))
  end)

  it("says which kernels it has", function()
    local m = gpu.module(src)
    assert.matches("module has no kernel 'three' (it has: one, two)",
                   S.errof(function() return m.three end), 1, true)
  end)
end)

describe("kernels/gpuhost.cuh", function()
  it("is on every kernel's include path, debug or not", function()
    local src = [[
__global__ void k(gpu::array<double> a, gpu::array<int> b) {
  gpu::position p = gpu::grid(2);
  long long n = gpu::gridsize(1);
  a(p.y, p.x) += 1.0;
  b[p.x]++;
  a[n] = a[0] * 2;
}
]]
    assert.matches(S.target(), gpu.kernel(src):compile())
    assert.matches(S.target(), gpu.kernel(src, {debug = true}):compile())
  end)
end)
