-- Kernels in the style of NVIDIA's CUDA samples. Each result is checked against Lua's own
-- arithmetic, so the suite passing on both backends shows they compute the same.
local S = require("spec.support")

local function close(a, b, tol) return math.abs(a - b) <= tol * math.max(1, math.abs(b)) end

describe("CUDA samples", function()
  it("vectorAdd", function()
    local k = gpu.kernel([[
__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}]])
    local n = 50000
    gpu.random.seed(3)
    local a, b, c = gpu.random.random(n), gpu.random.random(n), gpu.zeros(n)
    k[{(n + 255) // 256, 256}](a, b, c, n)
    local ah, bh, ch = a:tohost(), b:tohost(), c:tohost()
    for i = 1, n, 7 do assert.is_true(close(ch[i], ah[i] + bh[i], 1e-6)) end
  end)

  it("matrixMul with __shared__ tiles and cooperative groups", function()
    local k = gpu.kernel([[
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  cg::thread_block cta = cg::this_thread_block();
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    cg::sync(cta);
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    cg::sync(cta);
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}]], "MatrixMulCUDA<16>")
    local hA, wA, wB = 48, 32, 64
    local A, B = {}, {}
    for i = 1, hA do A[i] = {} for j = 1, wA do A[i][j] = (i * 3 + j) % 7 - 3 end end
    for i = 1, wA do B[i] = {} for j = 1, wB do B[i][j] = (i + 2 * j) % 5 - 2 end end
    local dA, dB, dC = gpu.array(A), gpu.array(B), gpu.zeros({hA, wB})
    k[{{wB // 16, hA // 16}, {16, 16}}](dC, dA, dB, wA, wB)
    local C = dC:totable()
    for i = 1, hA do
      for j = 1, wB do
        local s = 0
        for t = 1, wA do s = s + A[i][t] * B[t][j] end
        assert.are.equal(s, C[i][j])
      end
    end
  end)

  it("reduction with extern __shared__ memory and clock()", function()
    local k = gpu.kernel([[
__global__ void timedReduction(const float *input, float *output, long long *timer) {
  extern __shared__ float shared[];
  const int tid = threadIdx.x, bid = blockIdx.x;
  if (tid == 0) timer[bid] = clock64();
  shared[tid] = input[tid + bid * blockDim.x * 2];
  shared[tid + blockDim.x] = input[tid + blockDim.x + bid * blockDim.x * 2];
  for (int d = blockDim.x; d > 0; d /= 2) {
    __syncthreads();
    if (tid < d) {
      float f0 = shared[tid], f1 = shared[tid + d];
      if (f1 < f0) shared[tid] = f1;
    }
  }
  if (tid == 0) output[bid] = shared[0];
  __syncthreads();
  if (tid == 0) timer[bid + gridDim.x] = clock64();
  clock_t c = clock();   // the 32-bit clock exists too
  (void)c;
}]])
    local blocks, threads = 16, 128
    local input = {}
    for i = 1, blocks * threads * 2 do input[i] = (i * 7919) % 1000 + 0.5 end
    local din, dout = gpu.array(input), gpu.zeros(blocks)
    local timer = gpu.zeros(2 * blocks, "int64")
    k[{blocks, threads, shared = 2 * threads * 4}](din, dout, timer)
    local out, t = dout:totable(), timer:totable()
    for b = 1, blocks do
      local m = math.huge
      for i = (b - 1) * threads * 2 + 1, b * threads * 2 do m = math.min(m, input[i]) end
      assert.are.equal(m, out[b])
      assert.is_true(t[blocks + b] >= t[b])
    end
  end)

  it("warp-shuffle reduction", function()
    local k = gpu.kernel([[
__inline__ __device__ int warpReduceSum(int v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}
__global__ void reduceSum(const int *in, int *out, int n) {
  __shared__ int partial[32];
  int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = warpReduceSum(i < n ? in[i] : 0);
  if (lane == 0) partial[wid] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / warpSize) ? partial[lane] : 0;
  if (wid == 0) v = warpReduceSum(v);
  if (threadIdx.x == 0) atomicAdd(out, v);
}]])
    local n = 50001   -- the sum stays inside an int
    local input, sum = gpu.arange(n, "int32"), gpu.zeros(1, "int32")
    k[{(n + 255) // 256, 256}](input, sum, n)
    assert.are.equal(n * (n - 1) // 2, sum:tohost()[1])
  end)

  it("atomic histogram in shared memory", function()
    local k = gpu.kernel([==[
__global__ void histogram256(const unsigned char *data, unsigned int *hist, int n) {
  __shared__ unsigned int local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], local[i]);
}]==])
    local n, data, expect = 20000, {}, {}
    for i = 1, 256 do expect[i] = 0 end
    for i = 1, n do
      local v = (i * i * 31 + 7) % 256
      data[i] = v
      expect[v + 1] = expect[v + 1] + 1
    end
    local hist = gpu.zeros(256, "uint32")
    k[{8, 128}](gpu.array(data, "uint8"), hist, n)
    assert.are.same(expect, hist:totable())
  end)

  it("warp votes, barrier counts and tiles", function()
    local k = gpu.kernel([[
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void votes(int *out) {
  int t = threadIdx.x;
  unsigned ballot = __ballot_sync(0xffffffff, t % 3 == 0);
  int any = __any_sync(0xffffffff, t == 5), all = __all_sync(0xffffffff, t < 1000);
  int count = __syncthreads_count(t % 2), both = __syncthreads_and(t >= 0), some = __syncthreads_or(t == 63);
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int v = t;
  for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);
  int x = __shfl_xor_sync(0xffffffff, t, 1), up = __shfl_up_sync(0xffffffff, t, 1), idx = __shfl_sync(0xffffffff, t, 3);
  if (t == 32) { out[0] = (int)ballot; out[1] = any; out[2] = all; out[3] = count; out[4] = both; out[5] = some;
                 out[6] = v; out[7] = x; out[8] = up; out[9] = idx; }
  unsigned active = __activemask();   // outside any branch: the whole warp on both backends
  if (t == 32) out[10] = (int)active;
}]])
    local out = gpu.zeros(11, "int32")
    k[{1, 64}](out)
    local o = out:totable()
    local ballot = 0
    for l = 0, 31 do if (32 + l) % 3 == 0 then ballot = ballot | (1 << l) end end
    if ballot >= 2^31 then ballot = ballot - 2^32 end
    local lanesum = 0
    for t = 32, 63 do lanesum = lanesum + t end
    assert.are.same({ballot, 0, 1, 32, 1, 1, lanesum, 33, 32, 35, -1}, o)
  end)

  it("atomics, intrinsics and vector types", function()
    local k = gpu.kernel([[
__global__ void ops(int *i, unsigned *u, float *f, float4 *v) {
  int t = threadIdx.x;
  atomicMin(&i[0], 100 - t); atomicMax(&i[1], t); atomicAdd(&i[2], 2); atomicSub(&i[3], 1);
  atomicOr(&i[4], 1 << (t % 8)); atomicCAS(&i[5], 0, 7); atomicExch(&i[6], 9);
  atomicInc(&u[0], 9); atomicAdd(&f[0], 0.5f);
  __threadfence();
  if (t == 0) {
    i[7] = __popc(0xF0F0u); i[8] = __clz(1); i[9] = __ffs(8); i[10] = min(3, -4); i[11] = max(3u, 4u);
    f[1] = rsqrtf(16.0f); f[2] = __saturatef(1.7f); f[3] = fminf(2.0f, -1.0f); f[4] = __fdividef(1.0f, 4.0f);
    f[5] = expf(0.0f) + __expf(0.0f); f[6] = fmaf(2.0f, 3.0f, 1.0f);
    float4 q = make_float4(1, 2, 3, 4); float2 p = make_float2(5, 6);
    v[0] = make_float4(q.w, q.z, p.x, p.y);
  }
}]])
    local i = gpu.array({1000, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "int32")
    local u, f, v = gpu.zeros(1, "uint32"), gpu.zeros(7), gpu.zeros(4)
    k[{1, 64}](i, u, f, v)
    assert.are.same({37, 63, 128, -64, 255, 7, 9, 8, 31, 4, -4, 4}, i:totable())
    assert.are.same({64 % 10}, u:totable())
    assert.are.same({32, 0.25, 1, -1, 0.25, 2, 7}, f:totable())
    assert.are.same({4, 3, 5, 6}, v:totable())
  end)

  it("printf from a kernel", function()
    local f = S.tmpfile([[
local k = gpu.kernel('__global__ void hello(int n) { if (threadIdx.x == 0) printf("hello %d from block %d\\n", n, blockIdx.x); }')
k[1, 32](42)
gpu.synchronize()
]])
    local out = S.host(f)
    os.remove(f)
    assert.are.equal("hello 42 from block 0\n", out)
  end)
end)

describe("the CPU backend #cpu", function()
  it("reports a stray pointer as CUDA_ERROR_ILLEGAL_ADDRESS with the kernel, block and thread", function()
    -- an address nothing is ever mapped at (before: 256 MiB past an array, which another
    -- mapping could hold on a busy 16-core host)
    local k = gpu.kernel([[
__global__ void stray(float *p, unsigned long long bad) {
  if (blockIdx.x == 2 && threadIdx.x == 5) *(volatile float *)bad = 1;
  else p[0] = 0;
}]])
    local a = gpu.zeros(16)
    local msg, err = S.errof(function() k[{4, 32}](a, 64) end)
    assert.are.equal("CUDA_ERROR_ILLEGAL_ADDRESS", err.name)
    assert.matches("^CUDA_ERROR_ILLEGAL_ADDRESS: While executing a kernel", msg)
    assert.matches("^kernel 'stray' block %(2, 0, 0%) thread %(5, 0, 0%): address 0x%x+$", err.detail)
    -- and the host goes on: the same kernel and others still run
    k[{1, 32}](a, 64)
    assert.are.same({2, 2}, gpu.full(2, 2):totable())
  end)

  it("catches a read just past an allocation (guard pages)", function()
    local k = gpu.kernel([[__global__ void past(const int *p, int *out) { out[0] = p[4096 / 4 + threadIdx.x]; }]])
    local msg = S.errof(function() k[{1, 1}](gpu.zeros(4, "int32"), gpu.zeros(1, "int32")) end)
    assert.matches("CUDA_ERROR_ILLEGAL_ADDRESS", msg, 1, true)
  end)

  it("names what it does not support", function()
    local p = gpu.kernel([[__global__ void ptx(int *x) { asm volatile("membar.gl;"); }]])
    local msg, err = S.errof(function() p:compile() end)
    assert.are.equal("GPUHOST_CPU_UNSUPPORTED", err.name)
    assert.matches("the CPU backend does not support inline PTX assembly (asm)", msg, 1, true)
    local c = gpu.kernel("#include <cub/block/block_reduce.cuh>\n__global__ void k(int *x) { x[0] = 1; }")
    msg, err = S.errof(function() c:compile() end)
    assert.are.equal("GPUHOST_CPU_UNSUPPORTED", err.name)
    assert.matches("the CPU backend does not support CUB's headers (cub/...)", msg, 1, true)
  end)

  it("stops a block whose threads of one warp wait at different barriers", function()
    local k = gpu.kernel([[__global__ void split(int *x) {
      if (threadIdx.x < 16) __syncthreads(); else x[0] = __shfl_sync(0xffffffff, 1, 0); }]])
    local msg = S.errof(function() k[{1, 32}](gpu.zeros(1, "int32")) end)
    assert.matches("some threads wait at __syncthreads%(%) while others wait in a warp function", msg)
  end)

  it("checks each new kernel with NVRTC first, unless told not to", function()
    local src = "__global__ void k(int *x) { exit(1); }   // samples"
    local msg, err = S.errof(function() gpu.kernel(src):compile() end)
    assert.are.equal("NVRTC_ERROR_COMPILATION", err.name)
    assert.are.equal("nvrtcCompileProgram(prog, n, opts)", err.call)   -- (was "cr")
    assert.matches('samples_spec%.lua%(%d+%): error: identifier "exit" is undefined', msg)
    msg, err = S.errof(function() gpu.kernel(src, {check = false}):compile() end)
    assert.are.equal("GPUHOST_CPU_COMPILATION", err.name)
    assert.matches("exit() is host code: kernel code cannot call it", msg, 1, true)
    local code = S.quote("print(pcall(function() return gpu.kernel('__global__ void k(int *x) { exit(1); }'):compile() end))")
    local out = S.run("GPUHOST_CHECK=0 " .. S.gpuhost .. " --cpu -e " .. code)
    assert.matches("^false\tGPUHOST_CPU_COMPILATION", out)
    out = S.run("GPUHOST_CHECK=yes " .. S.gpuhost .. " --cpu -e " .. code)
    assert.matches("GPUHOST_CHECK must be 1 (the CPU backend checks kernels with NVRTC) or 0", out, 1, true)
    -- a bad setting as the others are (GPUHOST_CPU_DEVICES): no position of the script's line
    assert.are.equal("false\tGPUHOST_BAD_SETTING: GPUHOST_CHECK must be 1 (the CPU backend checks "
                     .. "kernels with NVRTC) or 0, not 'yes'\n", out)
  end)

  it("reports compile errors of the host's compiler", function()
    local msg, err = S.errof(function() gpu.kernel("__global__ void k(int *x) { x[0] = nope; }", {check = false}):compile() end)
    assert.are.equal("GPUHOST_CPU_COMPILATION", err.name)
    assert.matches("nope", msg, 1, true)
    assert.matches("nope", err.log, 1, true)
  end)

  it("is chosen by gpuhost --cpu", function()
    assert.are.equal("cpu\n", (S.host("--cpu -e 'print(gpu.backend())'")))
  end)
end)

describe("both backends #cuda", function()
  it("give the same random numbers for a seed", function()
    local code = [[
gpu.random.seed(1234)
local u = gpu.random.uniform(-1, 1, 1000):totable()
local d = gpu.random.random(1000, "float64"):totable()
local n = gpu.random.normal(0, 1, 1000):totable()
for i = 1, 1000 do print(("%.9g %.17g %.9g"):format(u[i], d[i], n[i])) end]]
    local cpu, s1, e1 = S.run("GPU_BACKEND=cpu " .. S.gpuhost .. " -e " .. S.quote(code))
    local gpu_out, s2, e2 = S.run("GPU_BACKEND=cuda " .. S.gpuhost .. " -e " .. S.quote(code))
    assert.are.equal(0, s1, e1)
    assert.are.equal(0, s2, e2)
    local a, b = {}, {}
    for l in cpu:gmatch("[^\n]+") do a[#a + 1] = l end
    for l in gpu_out:gmatch("[^\n]+") do b[#b + 1] = l end
    assert.are.equal(1000, #a)
    assert.are.equal(1000, #b)
    for i = 1, 1000 do
      local u1, d1, n1 = a[i]:match("(%S+) (%S+) (%S+)")
      local u2, d2, n2 = b[i]:match("(%S+) (%S+) (%S+)")
      assert.are.equal(u2, u1)             -- uniform: bit for bit
      assert.are.equal(d2, d1)
      assert.is_true(math.abs(tonumber(n1) - tonumber(n2)) < 1e-5)   -- log and sin may differ in the last bit
    end
  end)

  it("run a kernel with the same results", function()
    local code = [[
local k = gpu.kernel("__global__ void sq(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * x[i] + 1.0f; }")
gpu.random.seed(5)
local x = gpu.random.random(4096)
local y = gpu.zeros(4096)
k[{16, 256}](x, y, 4096)
local t = y:totable()
for i = 1, 4096, 97 do print(("%.9g"):format(t[i])) end]]
    local function run(backend)
      local out, status, err = S.run("GPU_BACKEND=" .. backend .. " " .. S.gpuhost .. " -e " .. S.quote(code))
      assert.are.equal(0, status, err)
      local v = {}
      for x in out:gmatch("%S+") do v[#v + 1] = tonumber(x) end
      return v
    end
    local a, b = run("cuda"), run("cpu")
    assert.are.equal(43, #a)
    assert.are.equal(#a, #b)
    -- the GPU may fuse x * x + 1 into one fma: the last bit may differ
    for i = 1, #a do assert.is_true(close(a[i], b[i], 2e-7), a[i] .. " vs " .. b[i]) end
  end)
end)
