-- Data-parallel training of a small linear model, y = X w + b, by gradient descent: each
-- rank holds its own shard of the data, computes its gradient, and an all_reduce averages
-- the gradients, so every rank takes the same step and the weights stay the same.
--   gpuhost scripts/train_dp.lua                  one process, every GPU
--   mpirun -np 2 gpuhost scripts/train_dp.lua     one process per GPU
local D, ROWS, STEPS, LR = 8, 4096, 200, 0.1
local launched = os.getenv("OMPI_COMM_WORLD_RANK") or os.getenv("PMI_RANK") or os.getenv("SLURM_PROCID")
local devices = {}
for d = 0, gpu.device_count() - 1 do devices[#devices + 1] = d end
local comm = launched and gpu.nccl.comm() or gpu.nccl.comm(devices)

local kernels = gpu.module([[
// r[i] = X[i,:] . w + b - y[i], one thread a row
extern "C" __global__ void residual(gpu::array<float> X, gpu::array<float> w, gpu::array<float> y,
                                    gpu::array<float> r) {
  long long i = gpu::grid(1);
  if (i >= r.size) return;
  float s = w[w.size - 1];                       // the bias is w's last element
  for (int j = 0; j < X.shape[1]; j++) s += X(i, j) * w[j];
  r[i] = s - y[i];
}
// g[j] = 2/n sum_i r[i] * X[i,j] (g[D]: the bias's), one thread a weight
extern "C" __global__ void gradient(gpu::array<float> X, gpu::array<float> r, gpu::array<float> g) {
  long long j = gpu::grid(1);
  if (j >= g.size) return;
  long long n = r.size, d = X.shape[1];
  float s = 0;
  for (long long i = 0; i < n; i++) s += r[i] * (j < d ? (float)X(i, j) : 1.0f);
  g[j] = 2.0f * s / (float)n;
}
]])

-- the true model, the same on every rank; each rank's data its own
local w_true = {}
for j = 1, D + 1 do w_true[j] = (j % 3) - 1 + j / 10 end
local shards = {}
for i, dev in ipairs(comm.devices) do
  shards[i] = gpu.with_device(dev, function()
    gpu.random.seed(7 + comm.ranks[i])
    local X = gpu.random.uniform(-1, 1, {ROWS, D})
    local wt = gpu.array(w_true)
    local y = gpu.zeros(ROWS)
    kernels.residual[math.ceil(ROWS / 256), 256](X, wt, gpu.zeros(ROWS), y)   -- y = X w_true + b
    return {X = X, y = y, w = gpu.zeros(D + 1), g = gpu.zeros(D + 1), r = gpu.zeros(ROWS)}
  end)
end

local function grads() local t = {} for i, s in ipairs(shards) do t[i] = s.g end return #t == 1 and t[1] or t end
for step = 1, STEPS do
  for i, s in ipairs(shards) do
    gpu.with_device(comm.devices[i], function()
      kernels.residual[math.ceil(ROWS / 256), 256](s.X, s.w, s.y, s.r)
      kernels.gradient[1, 32](s.X, s.r, s.g)
    end)
  end
  comm:all_reduce(grads(), {op = "avg"})           -- the gradient over all the data
  for i, s in ipairs(shards) do
    gpu.with_device(comm.devices[i], function() gpu.subtract(s.w, s.g * LR, {out = s.w}) end)
  end
end

local w = shards[1].w:totable()
local err = 0
for j = 1, D + 1 do err = math.max(err, math.abs(w[j] - w_true[j])) end
if comm.rank == 0 then
  print(("trained %d weights on %d rows over %d rank%s in %d steps: max |w - w_true| = %.2e"):format(
    D + 1, ROWS * comm.size, comm.size, comm.size == 1 and "" or "s", STEPS, err))
end
