#!/bin/sh
# launch_count.sh: the instructions gpuhost spends on a launch on the CPU side, counted by
# callgrind (exact and repeatable, unlike times on a shared machine) against a stub
# libcuda.so.1 (stubcuda.c) whose cuLaunchKernel returns at once. Each form of launch runs
# N1 and N2 times in separate processes; the difference over N2 - N1 is the cost of one
# launch, the Lua loop included. The same for a C loop calling the stub's cuLaunchKernel
# gives the floor. What gpuhost adds to a launch is its count less Lua's own part (the call
# of a C function with the same arguments, lua_call_instr; for k[{1, 32}](...) the table
# and the __index call too, lua_index_call_instr) and less the floor.
# Needs valgrind and build/gpuhost; NVRTC compiles the kernels.
cd "$(dirname "$0")/../.." || exit 1
cuda=${CUDA_HOME:-/usr/local/cuda}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cc -O2 -shared -fPIC -o "$dir/libcuda.so.1" scripts/bench/stubcuda.c -I"$cuda/include" || exit 1
N1=2000 N2=12000

count() {   # count N CODE: the instructions of gpuhost running CODE with N set
  LD_LIBRARY_PATH="$dir" GPU_BACKEND=cuda GPUHOST_CACHE_DIR="$dir/cache" \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null build/gpuhost -e "N = $1" -e "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_launch() {   # per_launch LABEL CODE
  a=$(count $N1 "$2"); b=$(count $N2 "$2")
  printf '%s\t%s\n' "$1" "$(( (b - a) / (N2 - N1) ))"
}
SETUP='local k = gpu.kernel([[extern "C" __global__ void args(float *a, float *b, float *c, int n) {}]])
local e = gpu.kernel([[extern "C" __global__ void empty() {}]])
local a, b, c = gpu.zeros(32), gpu.zeros(32), gpu.zeros(32)
local run = k[{1, 32}]
run(a, b, c, 32) e[{1, 32}]()
assert(gpu.backend() == "cuda")'
# compile once, so that every counted run takes its kernels from the disk cache
LD_LIBRARY_PATH="$dir" GPU_BACKEND=cuda GPUHOST_CACHE_DIR="$dir/cache" build/gpuhost -e "$SETUP" || exit 1
per_launch launch_prepared_instr "$SETUP for _ = 1, N do run(a, b, c, 32) end"
per_launch launch_args_instr "$SETUP for _ = 1, N do k[{1, 32}](a, b, c, 32) end"
per_launch launch_empty_instr "$SETUP for _ = 1, N do e[{1, 32}]() end"
per_launch lua_loop_instr "$SETUP for _ = 1, N do end"
# what Lua itself spends on calling a C function with these arguments (one that does
# nothing with them), and on k[{1, 32}](...) when k's __index is such a function: the
# parts of a launch that any Lua binding pays
per_launch lua_call_instr "$SETUP local f = gpu.capturing for _ = 1, N do f(a, b, c, 32) end"
per_launch lua_index_call_instr "$SETUP local f = gpu.capturing
local t = setmetatable({}, {__index = function() return f end})
for _ = 1, N do t[{1, 32}](a, b, c, 32) end"

# small array operations end to end (the result left to the collector, as a loop writes
# it), an allocate + free pair, and gpu.jit launches against the same kernel in CUDA C
OPS='local s1, s2 = gpu.ones(1000), gpu.ones(1000)
local d0 = s1 + s2
assert(gpu.backend() == "cuda")'
LD_LIBRARY_PATH="$dir" GPU_BACKEND=cuda GPUHOST_CACHE_DIR="$dir/cache" build/gpuhost -e "$OPS" || exit 1
per_launch ew_add_small_instr "$OPS for _ = 1, N do local d = s1 + s2 end"
per_launch alloc_free_instr "$OPS for _ = 1, N do gpu.empty(2^18):free() end"
JIT='local kc = gpu.kernel([[extern "C" __global__ void args(gpu::array<float> a, gpu::array<float> b, gpu::array<float> c, long long n) {}]])
local kj = gpu.jit(function(a, b, c, n) end)
local a, b, c = gpu.zeros(32), gpu.zeros(32), gpu.zeros(32)
local pc, pj = kc[{1, 32}], kj[{1, 32}]
pc(a, b, c, 32) pj(a, b, c, 32)
assert(gpu.backend() == "cuda")'
LD_LIBRARY_PATH="$dir" GPU_BACKEND=cuda GPUHOST_CACHE_DIR="$dir/cache" build/gpuhost -e "$JIT" || exit 1
per_launch jit_c_args_instr "$JIT for _ = 1, N do kc[{1, 32}](a, b, c, 32) end"
per_launch jit_args_instr "$JIT for _ = 1, N do kj[{1, 32}](a, b, c, 32) end"
per_launch jit_c_prepared_instr "$JIT for _ = 1, N do pc(a, b, c, 32) end"
per_launch jit_prepared_instr "$JIT for _ = 1, N do pj(a, b, c, 32) end"
# a new process that does nothing: gpuhost -e '' (no driver is loaded)
printf 'startup_instr\t%s\n' "$(valgrind --tool=callgrind --callgrind-out-file=/dev/null build/gpuhost -e '' 2>&1 |
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p')"

# the floor: C calling the stub's cuLaunchKernel with the same arguments, through the
# pointer cuGetProcAddress gives, as gpuhost calls it
cat > "$dir/floor.c" <<'C'
#include <stdlib.h>
#include <cudaTypedefs.h>
CUresult cuGetProcAddress_v2(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = 32;
  CUdeviceptr a = 0, b = 0, c = 0;
  void *p[] = {&a, &b, &c, &m};
  PFN_cuLaunchKernel_v4000 launch;
  cuGetProcAddress_v2("cuLaunchKernel", (void **)&launch, 4000, 0, NULL);
  for (int i = 0; i < n; i++)
    if (launch((CUfunction)0x3, 1, 1, 1, 32, 1, 1, 0, NULL, p, NULL)) return 1;
  return 0;
}
C
cc -O2 -o "$dir/floor" "$dir/floor.c" -I"$cuda/include" "$dir/libcuda.so.1" || exit 1
floor() { LD_LIBRARY_PATH="$dir" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dir/floor" "$1" 2>&1 |
          sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
a=$(floor $N1); b=$(floor $N2)
printf 'launch_c_instr\t%s\n' "$(( (b - a) / (N2 - N1) ))"
