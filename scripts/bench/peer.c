/* peer.c: the floor for the peer-copy figure of scripts/bench/nccl.sh: 1 GiB from device 0
 * to device 1 with cuMemcpyPeer from C (peer access enabled where possible). Prints
 * "name<TAB>value" lines.
 * Build: cc -O2 peer.c -I$CUDA_HOME/include -L$CUDA_HOME/lib64/stubs -lcuda */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda.h>

#define CK(x) do { CUresult r_ = (x); if (r_ && r_ != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) { \
  const char *s; cuGetErrorName(r_, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 30;
  int n, can = 0, reps = 20;
  CUdevice d0, d1;
  CUcontext c0, c1;
  CUdeviceptr a, b;
  CK(cuInit(0));
  CK(cuDeviceGetCount(&n));
  if (n < 2) { fprintf(stderr, "peer: two devices needed\n"); return 1; }
  CK(cuDeviceGet(&d0, 0));
  CK(cuDeviceGet(&d1, 1));
  CK(cuDevicePrimaryCtxRetain(&c0, d0));
  CK(cuDevicePrimaryCtxRetain(&c1, d1));
  CK(cuDeviceCanAccessPeer(&can, d1, d0));
  CK(cuCtxSetCurrent(c1));
  if (can) CK(cuCtxEnablePeerAccess(c0, 0));
  CK(cuMemAlloc(&b, bytes));
  CK(cuCtxSetCurrent(c0));
  if (can) CK(cuCtxEnablePeerAccess(c1, 0));
  CK(cuMemAlloc(&a, bytes));
  CK(cuMemcpyPeer(b, c1, a, c0, bytes));   /* warm-up */
  double best = 1e30;
  for (int round = 0; round < 5; round++) {
    CK(cuCtxSynchronize());
    double t0 = now();
    for (int i = 0; i < reps; i++) CK(cuMemcpyPeer(b, c1, a, c0, bytes));
    CK(cuCtxSynchronize());
    double t = (now() - t0) / reps;
    if (t < best) best = t;
  }
  printf("peer_copy_GBs\t%.2f\n", bytes / best / 1e9);
  printf("peer_access\t%d\n", can);
  return 0;
}
