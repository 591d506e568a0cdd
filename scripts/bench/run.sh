#!/bin/sh
# run.sh: runs the benchmarks of gpuhost (bench.lua), the C floor (bench.c), CuPy and
# numba.cuda on this machine's GPU and prints one table, then the array operations' targets
# (issue 10) met or missed, and draws the table as a chart (scripts/bench/chart.svg, where
# python3 has matplotlib). Needs build/gpuhost; CuPy and
# numba are used when python3 has them. Raw figures go to $BENCH_OUT (default build/bench).
cd "$(dirname "$0")/../.." || exit 1
out=${BENCH_OUT:-build/bench}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
host=build/gpuhost

if [ ! -x build/bench_c ]; then
  cc -O2 -o build/bench_c scripts/bench/bench.c -I"$cuda/include" -L"$cuda/lib64" \
     -L"$cuda/lib64/stubs" -lcuda -lnvrtc || exit 1
fi
echo "bench: C" >&2
build/bench_c > "$out/c.tsv" || exit 1
echo "bench: gpuhost" >&2
GPUHOST_CACHE_DIR=off $host scripts/bench/bench.lua > "$out/gpuhost.tsv" || exit 1
# launches and compiles vary from run to run on a shared machine: 5 alternating rounds of
# C and gpuhost, each figure the median of its rounds
echo "bench: launch rounds" >&2
: > "$out/c-rounds.tsv"; : > "$out/gpuhost-rounds.tsv"
for i in 1 2 3 4 5; do
  build/bench_c launch >> "$out/c-rounds.tsv"
  GPUHOST_CACHE_DIR=off $host scripts/bench/bench.lua launch >> "$out/gpuhost-rounds.tsv"
done
$host scripts/bench/median.lua "$out/c-rounds.tsv" >> "$out/c.tsv"
$host scripts/bench/median.lua "$out/gpuhost-rounds.tsv" >> "$out/gpuhost.tsv"

# start-up, each in a fresh process: gpuhost -e '' (median of 21), driver init, and the
# first launch of a kernel compiled now or found in the disk cache
$host -e '
local t = {}
for i = 1, 21 do
  local t0 = gpu.clock()
  os.execute("build/gpuhost -e \"\"")
  t[i] = (gpu.clock() - t0) * 1e3
end
table.sort(t)
print(("startup_ms\t%.4f"):format(t[11]))' >> "$out/gpuhost.tsv"
GPUHOST_CACHE_DIR=off $host scripts/bench/bench.lua startup | grep first_launch >> "$out/gpuhost.tsv"
GPUHOST_CACHE_DIR=off $host scripts/bench/bench.lua startup_ops >> "$out/gpuhost.tsv"
cache=$(mktemp -d)
GPUHOST_CACHE_DIR=$cache $host scripts/bench/bench.lua startup > /dev/null
GPUHOST_CACHE_DIR=$cache $host scripts/bench/bench.lua startup_ops > /dev/null
for i in 1 2 3 4 5; do
  GPUHOST_CACHE_DIR=$cache $host scripts/bench/bench.lua startup
  GPUHOST_CACHE_DIR=$cache $host scripts/bench/bench.lua startup_ops
done > "$out/startup.tsv"
rm -rf "$cache"
$host scripts/bench/median.lua "$out/startup.tsv" >> "$out/gpuhost.tsv"

# graphs: 1,000 small kernels (and a mix with 4 KiB copies), eager and replayed, C and gpuhost
if [ ! -x build/bench_graph_c ]; then
  cc -O2 -o build/bench_graph_c scripts/bench/graph.c -I"$cuda/include" -L"$cuda/lib64" \
     -L"$cuda/lib64/stubs" -lcuda -lnvrtc || exit 1
fi
echo "bench: graphs" >&2
build/bench_graph_c >> "$out/c.tsv" || exit 1
GPUHOST_CACHE_DIR=off $host scripts/bench/graph.lua >> "$out/gpuhost.tsv" || exit 1
# what gpuhost spends on a launch on the CPU side, in instructions (callgrind, stub driver)
if command -v valgrind >/dev/null 2>&1; then
  echo "bench: launch instructions" >&2
  sh scripts/bench/launch_count.sh > "$out/instr.tsv" &&
    grep -v '^launch_c_instr' "$out/instr.tsv" >> "$out/gpuhost.tsv" &&
    awk -F '\t' '$1 == "launch_c_instr" { print "launch_prepared_instr\t" $2; print "launch_args_instr\t" $2 }' \
      "$out/instr.tsv" >> "$out/c.tsv"
fi

if python3 -c 'import cupy' 2>/dev/null; then
  echo "bench: CuPy" >&2
  python3 scripts/bench/bench_cupy.py > "$out/cupy.tsv"
fi
if python3 -c 'import numpy; numpy.row_stack = numpy.vstack; import numba.cuda' 2>/dev/null; then
  echo "bench: numba" >&2
  python3 scripts/bench/bench_numba.py > "$out/numba.tsv"
fi
$host scripts/bench/table.lua "$out"
# the same as a chart, next to the README (matplotlib from the machine's python3)
$host scripts/bench/table.lua "$out" tsv > "$out/table.tsv"
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 scripts/bench/chart.py "$out/table.tsv" "${BENCH_CHART:-scripts/bench/chart.svg}" &&
    echo "bench: chart in ${BENCH_CHART:-scripts/bench/chart.svg}" >&2
fi
# issue 11's algorithms (reductions, scans, sorting, matmul, FFT) against CuPy, with targets
sh scripts/bench/algo.sh
