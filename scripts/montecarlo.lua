-- A Monte Carlo estimate of pi split across GPUs: each rank throws its own points, counts
-- those inside the quarter circle, and an all_reduce sums the counts.
--   gpuhost scripts/montecarlo.lua [points per rank]          one process, every GPU
--   mpirun -np 2 gpuhost scripts/montecarlo.lua [points]      one process per GPU
local per_rank = math.tointeger(tonumber(arg and arg[1] or "") or 2^22)
local launched = os.getenv("OMPI_COMM_WORLD_RANK") or os.getenv("PMI_RANK") or os.getenv("SLURM_PROCID")
local devices = {}
for d = 0, gpu.device_count() - 1 do devices[#devices + 1] = d end
local comm = launched and gpu.nccl.comm() or gpu.nccl.comm(devices)

local count = gpu.kernel([[
extern "C" __global__ void count_inside(gpu::array<float> x, gpu::array<float> y,
                                        gpu::array<unsigned long long> hits) {
  long long i = gpu::grid(1);
  if (i < x.size && x[i] * x[i] + y[i] * y[i] <= 1.0f) atomicAdd(&hits[0], 1ULL);
}
]])

-- each device this process drives throws its points
local hits = {}
for i, dev in ipairs(comm.devices) do
  hits[i] = gpu.with_device(dev, function()
    gpu.random.seed(1234 + comm.ranks[i])
    local x, y = gpu.random.random(per_rank), gpu.random.random(per_rank)
    local h = gpu.zeros(1, "uint64")
    count[math.ceil(per_rank / 256), 256](x, y, h)
    return h
  end)
end
comm:all_reduce(#hits == 1 and hits[1] or hits)
local total = hits[1]:item()
local pi = 4 * total / (per_rank * comm.size)
if comm.rank == 0 then
  print(("pi ~ %.5f from %d points on %d rank%s (error %.5f)"):format(pi, per_rank * comm.size,
        comm.size, comm.size == 1 and "" or "s", math.abs(pi - math.pi)))
end
