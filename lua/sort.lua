-- sort.lua: the programs of host/sort.c's sorts, one per key dtype and plan: the GPU's
-- radix sort (so_hist, so_pass and so_pass_keys, so_block) or the CPU backend's (so_cpu),
-- with the kernels gpu.unique adds (so_flags, so_scatter, so_counts); kernels/ops/sort.cuh
-- has them all.
local gpu = ...
local ctype, size_of = {}, {}
for _, d in ipairs(gpu._dtypes) do ctype[d.name], size_of[d.name] = d.ctype, d.size end

-- so_pass_keys (values alone) fits 64 registers a thread, so 4 blocks an SM (2^26 float32
-- on an H200: 2.16 ms with 3, 2.00 ms with 4); so_pass carries indices in 80
local WRAPPERS = [[
extern "C" __global__ void so_hist(const so_K *k, long long n, int npk, int nps, long long seg, int desc, unsigned long long *out) {
  srt::hist<so_K>(k, n, npk, nps, seg, desc, out);
}
extern "C" __global__ void __launch_bounds__(256, 3) so_pass(srt::pass_args a) { srt::pass<so_K, SO_IT, true>(a); }
extern "C" __global__ void __launch_bounds__(256, 4) so_pass_keys(srt::pass_args a) { srt::pass<so_K, SO_IT, false>(a); }
extern "C" __global__ void so_block(const so_K *kin, so_K *kout, long long *iout, long long len, int passes, int desc) {
  srt::block_sort<so_K, SO_IT>(kin, kout, iout, len, passes, desc);
}
#ifdef GPUHOST_CPU
extern "C" __global__ void so_cpu(const so_K *kin, so_K *kout, long long *iout, long long len, int desc, void *scratch) {
  srt::cpu_sort<so_K>(kin, kout, iout, len, desc, scratch);
}
#endif
extern "C" __global__ void so_flags(const so_K *s, long long n, long long *flags) { srt::unique_flags<so_K>(s, n, flags); }
extern "C" __global__ void so_scatter(const so_K *s, const long long *p, const long long *pos, long long n, so_K *u,
                                      long long *first, long long *index, long long *inverse) {
  srt::unique_scatter<so_K>(s, p, pos, n, u, first, index, inverse);
}
extern "C" __global__ void so_counts(const long long *first, long long nu, long long n, long long *counts) {
  srt::unique_counts(first, nu, n, counts);
}
]]

local programs = {}
-- the program for dtype and plan (its kernels in host/sort.c's order)
local function build(dtype, gpu_plan)
  local key = dtype .. (gpu_plan and ":gpu" or ":cpu")
  local p = programs[key]
  if p then return p end
  local source = table.concat({
    gpu._embedded("kernels/ops/ew.cuh"), gpu._embedded("kernels/ops/sort.cuh"),
    ("typedef %s so_K;\n#define SO_IT %d\n"):format(ctype[dtype], size_of[dtype] <= 4 and 16 or 8),
    WRAPPERS})
  local names = gpu_plan and {"so_hist", "so_pass", "so_block", "so_flags", "so_scatter", "so_counts",
                             "so_pass_keys"}
                or {"so_cpu", "so_flags", "so_scatter", "so_counts"}
  -- the CPU plan's so_cpu exists only under GPUHOST_CPU, so NVRTC cannot check that plan
  -- (the CPU backend's check, backend.h); the GPU plan is checked
  p = gpu._program({source = source, names = names, options = {}, debug = false, prefix = "",
                    check = gpu_plan})
  programs[key] = p
  return p
end
gpu._sort_program = build   -- for tools that compile them ahead
return {build = build}
