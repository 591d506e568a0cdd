#!/bin/sh
# algo.sh: issue 11's benchmarks (reductions, scans, sorting, matmul, FFT): gpuhost
# (algo.lua) and CuPy (algo_cupy.py, when python3 has it) on this machine's GPU, then the
# table and the targets met or missed (algo_table.lua). run.sh runs it too. Raw figures go
# to $BENCH_OUT (default build/bench). `sh scripts/bench/algo.sh reduce` runs one group.
cd "$(dirname "$0")/../.." || exit 1
out=${BENCH_OUT:-build/bench}
mkdir -p "$out"
echo "bench: issue 11, gpuhost" >&2
build/gpuhost scripts/bench/algo.lua "$@" > "$out/algo-gpuhost.tsv" || exit 1
if python3 -c 'import cupy' 2>/dev/null; then
  echo "bench: issue 11, CuPy" >&2
  python3 scripts/bench/algo_cupy.py "$@" > "$out/algo-cupy.tsv"
fi
build/gpuhost scripts/bench/algo_table.lua "$out"
