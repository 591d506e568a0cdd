"""nccl_cupy.py: the anchor for scripts/bench/nccl.sh: the same collectives through CuPy's
NCCL binding (cupy.cuda.nccl). In one process it drives every device (initAll); under
mpirun one device per process, the unique id passed through a file (no mpi4py needed).
Rank 0 prints "name<TAB>value" lines, as scripts/bench/nccl.lua does."""
import os, sys, time
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
import cupy as cp
from cupy.cuda import nccl

BYTES = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 30
REPS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
rank_env = os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ.get("PMI_RANK")
if rank_env is not None:
    rank, n = int(rank_env), int(os.environ.get("OMPI_COMM_WORLD_SIZE") or os.environ["PMI_SIZE"])
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", rank))
    path = os.environ.get("NCCL_CUPY_ID", "/tmp/nccl_cupy_id")
    if rank == 0:
        with open(path + ".tmp", "wb") as f: f.write(bytes(b % 256 for b in nccl.get_unique_id()))
        os.rename(path + ".tmp", path)
    else:
        while not os.path.exists(path): time.sleep(0.01)
    with open(path, "rb") as f: raw = f.read()
    cp.cuda.Device(local).use()
    devices = [local]
    try:   # CuPy 14 takes the id as bytes, older ones as a tuple of signed bytes
        comms = [nccl.NcclCommunicator(n, raw, rank)]
    except TypeError:
        comms = [nccl.NcclCommunicator(n, tuple(b if b < 128 else b - 256 for b in raw), rank)]
else:
    rank, n = 0, cp.cuda.runtime.getDeviceCount()
    devices = list(range(n))
    comms = nccl.NcclCommunicator.initAll(devices)

def per_device(f):
    out = []
    for d in devices:
        with cp.cuda.Device(d): out.append(f())
    return out

def sync_all():
    for d in devices:
        cp.cuda.Device(d).synchronize()

def run(op):
    nccl.groupStart()
    for i, (c, d) in enumerate(zip(comms, devices)):
        with cp.cuda.Device(d): op(c, i)
    nccl.groupEnd()

def barrier():
    run(lambda c, i: c.allReduce(one[i].data.ptr, one[i].data.ptr, 1, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, 0))
    sync_all()

def timed(f, reps):
    f(); sync_all(); barrier()
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps): f()
        sync_all()
        ts.append((time.perf_counter() - t0) / reps)
        barrier()
    return sorted(ts)[2]

def out(name, v):
    if rank == 0: print("%s\t%.4f" % (name, v), flush=True)

one = per_device(lambda: cp.ones(1, cp.float32))
count = BYTES // 4
x = per_device(lambda: cp.ones(count, cp.float32))
t = timed(lambda: run(lambda c, i: c.allReduce(x[i].data.ptr, x[i].data.ptr, count, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, 0)), REPS)
out("all_reduce_busbw_GBs", BYTES / t / 1e9 * 2 * (n - 1) / n)
part = count // n
small = per_device(lambda: cp.ones(part, cp.float32))
big = per_device(lambda: cp.empty(part * n, cp.float32))
t = timed(lambda: run(lambda c, i: c.allGather(small[i].data.ptr, big[i].data.ptr, part, nccl.NCCL_FLOAT32, 0)), REPS)
out("all_gather_busbw_GBs", part * n * 4 / t / 1e9 * (n - 1) / n)
t = timed(lambda: run(lambda c, i: c.broadcast(x[i].data.ptr, x[i].data.ptr, count, nccl.NCCL_FLOAT32, 0, 0)), REPS)
out("broadcast_busbw_GBs", BYTES / t / 1e9)
tiny = per_device(lambda: cp.ones(2, cp.float32))
t = timed(lambda: run(lambda c, i: c.allReduce(tiny[i].data.ptr, tiny[i].data.ptr, 2, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, 0)), 1000)
out("all_reduce_8B_us", t * 1e6)
