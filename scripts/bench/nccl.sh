#!/bin/sh
# nccl.sh: issue 14's figures on a host with two GPUs or more (NCCL, Open MPI and CuPy
# installed): gpu.nccl (scripts/bench/nccl.lua) against CuPy's NCCL binding
# (nccl_cupy.py), in one process over every GPU and in one process per GPU under mpirun,
# and gpuhost's peer copy against cuMemcpyPeer from C (peer.c). Prints each target, the
# ratio and whether it is met. NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0.
# Both load the same NCCL: the one CuPy finds (GPUHOST_NCCL_LIBRARY names it to gpuhost).
#   sh scripts/bench/nccl.sh [bytes] [reps]        (default 1 GiB, 20)
cd "$(dirname "$0")/../.." || exit 1
export NCCL_NVLS_ENABLE=0
bytes=${1:-1073741824} reps=${2:-20}
cuda=${CUDA_HOME:-/usr/local/cuda}
np=$(build/gpuhost -e 'io.write(gpu.device_count())')
out=build/bench-nccl
mkdir -p "$out"
cc -O2 -o build/bench_peer scripts/bench/peer.c -I"$cuda/include" -L"$cuda/lib64/stubs" -lcuda || exit 1
# The NCCL CuPy loads (pip's nvidia-nccl, often newer than the system's libnccl2) is the
# one gpuhost loads here too, so that the figures compare the bindings, not two NCCLs
lib=$(python3 -c '
import cupy.cuda.nccl as n
n.NcclCommunicator.initAll([0])
print(next((l.split()[-1] for l in open("/proc/self/maps") if "/libnccl.so" in l), ""))' 2>/dev/null)
if [ -n "$lib" ]; then export GPUHOST_NCCL_LIBRARY="$lib"; fi
echo "NCCL: $(build/gpuhost -e 'io.write(gpu.nccl.version())') from ${GPUHOST_NCCL_LIBRARY:-libnccl.so.2}; CuPy's: $(python3 -c 'import cupy.cuda.nccl as n; print(n.get_version())')"
mpi="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x GPUHOST_NCCL_LIBRARY -np $np"
build/bench_peer "$bytes" > "$out/c.tsv" || exit 1
build/gpuhost scripts/bench/nccl.lua "$bytes" "$reps" > "$out/g1.tsv" || exit 1
python3 scripts/bench/nccl_cupy.py "$bytes" "$reps" > "$out/p1.tsv" || exit 1
$mpi build/gpuhost scripts/bench/nccl.lua "$bytes" "$reps" > "$out/g2.tsv" || exit 1
rm -f /tmp/nccl_cupy_id
$mpi python3 scripts/bench/nccl_cupy.py "$bytes" "$reps" > "$out/p2.tsv" || exit 1
rm -f /tmp/nccl_cupy_id
# get FILE NAME: the value
get() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$out/$1"; }
# row LABEL OURS THEIRS TARGET HIGHER(1)/LOWER(0)
row() {
  awk -v l="$1" -v a="$2" -v b="$3" -v t="$4" -v up="$5" 'BEGIN {
    r = a / b; ok = up ? r >= t : r <= t
    printf "| %s | %.2f | %.2f | %.3f | %s %.2f | %s |\n", l, a, b, r, up ? ">=" : "<=", t, ok ? "met" : "MISSED" }'
}
line=450   # GB/s each way: NVLink 4 on an H200, 18 links x 25 GB/s per direction
echo "| figure ($np GPUs, $bytes bytes) | gpuhost | anchor | ratio | target | |"
echo "| --- | ---: | ---: | ---: | --- | --- |"
for mode in 1 2; do
  what=$([ $mode = 1 ] && echo "one process" || echo "mpirun -np $np")
  row "all_reduce busbw GB/s, $what (CuPy)" "$(get g$mode.tsv all_reduce_busbw_GBs)" "$(get p$mode.tsv all_reduce_busbw_GBs)" 0.95 1
  row "all_gather busbw GB/s, $what (CuPy)" "$(get g$mode.tsv all_gather_busbw_GBs)" "$(get p$mode.tsv all_gather_busbw_GBs)" 0.95 1
  row "broadcast busbw GB/s, $what (CuPy)" "$(get g$mode.tsv broadcast_busbw_GBs)" "$(get p$mode.tsv broadcast_busbw_GBs)" 0.95 1
  row "8-byte all_reduce us, $what (CuPy)" "$(get g$mode.tsv all_reduce_8B_us)" "$(get p$mode.tsv all_reduce_8B_us)" 1.1 0
  awk -v a="$(get g$mode.tsv all_reduce_busbw_GBs)" -v l=$line -v w="$what" 'BEGIN {
    printf "| all_reduce busbw against NVLink (%d GB/s each way), %s | %.2f | %d | %.3f | (stated) | |\n", l, w, a, l, a / l }'
done
row "peer copy GB/s, 0 -> 1 (C: cuMemcpyPeer)" "$(get g1.tsv peer_copy_GBs)" "$(get c.tsv peer_copy_GBs)" 0.95 1
