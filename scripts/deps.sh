#!/bin/sh
# Installs the Debian/Ubuntu packages gpuhost needs to build and test when they are
# missing (as root), or prints the apt-get line that would (otherwise). The CUDA toolkit
# (headers; NVRTC for kernels) is expected in $CUDA_HOME, default /usr/local/cuda.
need=""
# libopenblas0 and libfftw3-*: the CPU backend's matrix products and FFTs (opened at run time);
# libopenblas64-0: blas_spec's check of a BLAS with 64-bit integers (GPUHOST_BLAS)
for p in make gcc g++ liblua5.4-dev lua5.4 lua-busted libedit-dev luarocks libzip4 python3-numpy \
         openmpi-bin libopenmpi-dev libopenblas0 libopenblas64-0 libfftw3-single3 libfftw3-double3; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
cuda=${CUDA_HOME:-/usr/local/cuda}
[ -f "$cuda/include/cuda.h" ] || echo "deps: no CUDA toolkit headers in $cuda/include (set CUDA_HOME)" >&2
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "deps: installing$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $need >/dev/null && exit 0
  echo "deps: apt-get failed" >&2
  exit 1
fi
echo "deps: missing packages; run: sudo apt-get install -y$need" >&2
exit 1
