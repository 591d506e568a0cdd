/* graph.c: C's figures for scripts/bench/graph.lua: 1,000 dependent small kernels (and the
 * same mixed with 4 KiB device copies) launched eagerly with cuLaunchKernel and replayed
 * from a graph captured the same way gpuhost captures (cuGraphLaunch), wall time from the
 * first launch to the end of a synchronize, median of 7. Prints "name<TAB>value".
 * Build: cc -O2 graph.c -I$CUDA_HOME/include -L$CUDA_HOME/lib64/stubs -lcuda -lnvrtc */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda.h>
#include <nvrtc.h>

#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorName(r_, &s); \
  fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static CUfunction inc;
static CUdeviceptr a, src, dst;
static CUstream stream;
enum { N = 1000 };

static void chain(void) {
  float v = 1;
  void *p[] = {&a, &v};
  for (int i = 0; i < N; i++) CK(cuLaunchKernel(inc, 1, 1, 1, 32, 1, 1, 0, stream, p, NULL));
}
static void mixed(void) {
  float v = 1;
  void *p[] = {&a, &v};
  for (int i = 1; i <= N; i++) {
    if (i % 2 == 0) CK(cuLaunchKernel(inc, 1, 1, 1, 32, 1, 1, 0, stream, p, NULL));
    else CK(cuMemcpyDtoDAsync(dst, src, 4096, stream));
  }
}
static CUgraphExec exec;
static void replay(void) { CK(cuGraphLaunch(exec, stream)); }

static double wall_us(void (*f)(void)) {
  double t[7];
  f(); CK(cuStreamSynchronize(stream));
  for (int r = 0; r < 7; r++) {
    double t0 = now();
    f();
    CK(cuStreamSynchronize(stream));
    t[r] = (now() - t0) * 1e6;
  }
  qsort(t, 7, sizeof *t, cmp);
  return t[3];
}

static void capture(void (*f)(void)) {
  CUgraph g;
  CK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED));
  f();
  CK(cuStreamEndCapture(stream, &g));
  CK(cuGraphInstantiate(&exec, g, 0));
  CK(cuGraphDestroy(g));
}

int main(void) {
  CUdevice dev;
  CUcontext ctx;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  int major, minor;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
  const char *srctext = "extern \"C\" __global__ void inc(float *a, float v) { a[threadIdx.x] += v; }";
  nvrtcProgram prog;
  const char *opts[] = {arch};
  size_t n;
  if (nvrtcCreateProgram(&prog, srctext, "graph.cu", 0, NULL, NULL) || nvrtcCompileProgram(prog, 1, opts) ||
      nvrtcGetCUBINSize(prog, &n)) { fprintf(stderr, "nvrtc failed\n"); return 1; }
  char *cubin = malloc(n);
  nvrtcGetCUBIN(prog, cubin);
  CUmodule mod;
  CK(cuModuleLoadData(&mod, cubin));
  CK(cuModuleGetFunction(&inc, mod, "inc"));
  CK(cuMemAlloc(&a, 128)); CK(cuMemAlloc(&src, 4096)); CK(cuMemAlloc(&dst, 4096));
  CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  printf("graph_chain_eager_us\t%.4f\n", wall_us(chain));
  capture(chain);
  printf("graph_chain_replay_us\t%.4f\n", wall_us(replay));
  CK(cuGraphExecDestroy(exec));
  printf("graph_mixed_eager_us\t%.4f\n", wall_us(mixed));
  capture(mixed);
  printf("graph_mixed_replay_us\t%.4f\n", wall_us(replay));
  return 0;
}
