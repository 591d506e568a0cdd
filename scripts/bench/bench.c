/* bench.c: the floor for scripts/bench/run.sh: the same figures as bench.lua, through the
 * CUDA driver API and NVRTC called directly from C. Prints "name<TAB>value" lines.
 * Build: cc -O2 bench.c -I$CUDA_HOME/include -L$CUDA_HOME/lib64 -L$CUDA_HOME/lib64/stubs -lcuda -lnvrtc */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda.h>
#include <nvrtc.h>

#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s; cuGetErrorName(r_, &s); \
  fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)
#define NK(x) do { nvrtcResult r_ = (x); if (r_) { fprintf(stderr, "%s: %s\n", #x, \
  nvrtcGetErrorString(r_)); exit(1); } } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *t, int n) { qsort(t, n, sizeof *t, cmp); return t[n / 2]; }
static void out(const char *name, double v) { printf("%s\t%.4f\n", name, v); fflush(stdout); }

/* Device milliseconds of one op(arg): events around `reps` of them, median of 5. The first
 * op is a warm-up. */
typedef struct Op { CUfunction f; void **params; unsigned grid; CUdeviceptr dst, src; size_t bytes; } Op;
static void op_vecadd(const Op *o) { CK(cuLaunchKernel(o->f, o->grid, 1, 1, 256, 1, 1, 0, NULL, o->params, NULL)); }
static void op_copy(const Op *o) { CK(cuMemcpyDtoDAsync(o->dst, o->src, o->bytes, NULL)); }
static void op_memset(const Op *o) { CK(cuMemsetD32Async(o->dst, 0, o->bytes / 4, NULL)); }
static double device_ms(void (*op)(const Op *), const Op *o, int reps) {
  CUevent e0, e1;
  double times[5];
  CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
  op(o);
  for (int r = 0; r < 5; r++) {
    CK(cuEventRecord(e0, NULL));
    for (int i = 0; i < reps; i++) op(o);
    CK(cuEventRecord(e1, NULL));
    CK(cuEventSynchronize(e1));
    float ms;
    CK(cuEventElapsedTime(&ms, e0, e1));
    times[r] = ms / reps;
  }
  cuEventDestroy(e0); cuEventDestroy(e1);
  return median(times, 5);
}

static const char *SRC =
  "extern \"C\" __global__ void empty() {}\n"
  "extern \"C\" __global__ void args(float *a, float *b, float *c, int n) {}\n"
  "extern \"C\" __global__ void vecadd(const float *a, const float *b, float *c, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) c[i] = a[i] + b[i];\n"
  "}\n";

/* the ten operations of bench.lua's fuse10, written by hand: one element a thread */
static const char *FUSED =
  "extern \"C\" __global__ void fused10(const float *x, const float *y, float *o, long long n) {\n"
  "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) { float p = x[i], q = y[i]; o[i] = ((p * 1.5f + q) * (p - q) / (q * q + 1.0f) - p) * 0.5f + q; }\n"
  "}\n";

static char *compile_src(const char *src, const char *arch, double *ms) {
  double t0 = now();
  nvrtcProgram p;
  NK(nvrtcCreateProgram(&p, src, "bench.cu", 0, NULL, NULL));
  const char *opts[] = {arch};
  NK(nvrtcCompileProgram(p, 1, opts));
  size_t n;
  NK(nvrtcGetCUBINSize(p, &n));
  char *cubin = malloc(n);
  NK(nvrtcGetCUBIN(p, cubin));
  nvrtcDestroyProgram(&p);
  *ms = (now() - t0) * 1e3;
  return cubin;
}
static char *compile(const char *arch, double *ms) { return compile_src(SRC, arch, ms); }

/* fuse10_GBps: the hand-written kernel over 2^26 float32 (12 bytes an element) */
static void fused_figure(const char *arch) {
  double ms;
  char *cubin = compile_src(FUSED, arch, &ms);
  CUmodule mod;
  CUfunction f;
  CK(cuModuleLoadData(&mod, cubin));
  CK(cuModuleGetFunction(&f, mod, "fused10"));
  long long n = 1LL << 26;
  CUdeviceptr x, y, o;
  CK(cuMemAlloc(&x, 4 * (size_t)n)); CK(cuMemAlloc(&y, 4 * (size_t)n)); CK(cuMemAlloc(&o, 4 * (size_t)n));
  CK(cuMemsetD32(x, 0x3f000000, (size_t)n)); CK(cuMemsetD32(y, 0x3e800000, (size_t)n));
  void *p[] = {&x, &y, &o, &n};
  Op v = {.f = f, .params = p, .grid = (unsigned)((n + 255) / 256)};
  out("fuse10_GBps", 12.0 * (double)n / (device_ms(op_vecadd, &v, 10) * 1e-3) / 1e9);
  cuMemFree(x); cuMemFree(y); cuMemFree(o);
  cuModuleUnload(mod);
  free(cubin);
}

/* argv[1] == "launch": only the figures run.sh takes in alternating rounds with
 * gpuhost's (launches and compiles, which vary from run to run on a shared machine) */
int main(int argc, char **argv) {
  int launch_only = argc > 1 && strcmp(argv[1], "launch") == 0;
  double t0 = now();
  CK(cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  if (!launch_only) out("driver_init_ms", (now() - t0) * 1e3);
  int major, minor;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
  double ms1, ms2;
  char *cubin = compile(arch, &ms1);
  free(compile(arch, &ms2));
  if (!launch_only) out("compile_first_ms", ms1);
  out("compile_cold_ms", ms2);
  CUmodule mod;
  t0 = now();
  CK(cuModuleLoadData(&mod, cubin));
  if (!launch_only) out("module_load_ms", (now() - t0) * 1e3);
  CUfunction fempty, fargs, fvecadd;
  CK(cuModuleGetFunction(&fempty, mod, "empty"));
  CK(cuModuleGetFunction(&fargs, mod, "args"));
  CK(cuModuleGetFunction(&fvecadd, mod, "vecadd"));

  /* launches */
  int N = 20000;
  double times[9];
  CUdeviceptr a, b, c;
  int n1024 = 1024;
  CK(cuMemAlloc(&a, 4096)); CK(cuMemAlloc(&b, 4096)); CK(cuMemAlloc(&c, 4096));
  void *params[] = {&a, &b, &c, &n1024};
  for (int which = 0; which < 2; which++) {
    CUfunction f = which ? fargs : fempty;
    void **p = which ? params : NULL;
    CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, p, NULL));
    CK(cuCtxSynchronize());
    for (int r = 0; r < 7; r++) {
      double s = now();
      for (int i = 0; i < N; i++) CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, p, NULL));
      CK(cuCtxSynchronize());
      times[r] = (now() - s) / N * 1e6;
    }
    double us = median(times, 7);
    out(which ? "launch_args_us" : "launch_empty_us", us);
    if (which) out("launch_prepared_us", us);   /* C has no other way to launch */
  }
  cuMemFree(a); cuMemFree(b); cuMemFree(c);
  if (launch_only) return 0;

  /* the first stream-ordered allocation of a process */
  t0 = now();
  CK(cuMemAllocAsync(&a, 4096, NULL));
  CK(cuMemFreeAsync(a, NULL));
  out("first_alloc_ms", (now() - t0) * 1e3);

  /* vecadd */
  int n = (1 << 24) + 11;
  CK(cuMemAlloc(&a, 4 * (size_t)n)); CK(cuMemAlloc(&b, 4 * (size_t)n)); CK(cuMemAlloc(&c, 4 * (size_t)n));
  CK(cuMemsetD32(a, 0x3f800000, n)); CK(cuMemsetD32(b, 0x3f800000, n));
  void *vp[] = {&a, &b, &c, &n};
  Op v = {.f = fvecadd, .params = vp, .grid = (unsigned)(n + 255) / 256};
  out("vecadd_GBps", 12.0 * n / (device_ms(op_vecadd, &v, 20) * 1e-3) / 1e9);
  cuMemFree(a); cuMemFree(b); cuMemFree(c);

  fused_figure(arch);

  /* device-to-device copy, and memset, of 256 MiB */
  size_t bytes = (size_t)256 << 20;
  CK(cuMemAlloc(&a, bytes)); CK(cuMemAlloc(&b, bytes));
  Op m = {.dst = b, .src = a, .bytes = bytes};
  out("copy_GBps", 2.0 * bytes / (device_ms(op_copy, &m, 10) * 1e-3) / 1e9);
  out("zeros_GBps", 1.0 * bytes / (device_ms(op_memset, &m, 10) * 1e-3) / 1e9);

  /* transfers of 256 MiB: pinned and pageable */
  void *pinned, *pageable = malloc(bytes);
  memset(pageable, 1, bytes);
  CK(cuMemHostAlloc(&pinned, bytes, 0));
  memset(pinned, 1, bytes);
  struct { const char *name; int h2d; void *buf; } cases[] = {
    {"h2d_GBps", 1, pinned}, {"d2h_GBps", 0, pinned},
    {"h2d_pageable_GBps", 1, pageable}, {"d2h_pageable_GBps", 0, pageable},
  };
  for (int k = 0; k < 4; k++) {
    for (int r = 0; r < 9; r++) {
      double s = now();
      if (cases[k].h2d) CK(cuMemcpyHtoD(a, cases[k].buf, bytes));
      else CK(cuMemcpyDtoH(cases[k].buf, a, bytes));
      times[r] = now() - s;
    }
    out(cases[k].name, bytes / median(times, 9) / 1e9);
  }
  cuMemFreeHost(pinned);
  free(pageable);
  cuMemFree(a); cuMemFree(b);

  /* allocation: 10^5 cycles of 1 MiB */
  int cycles = 100000;
  double s = now();
  for (int i = 0; i < cycles; i++) { CK(cuMemAlloc(&a, 1 << 20)); CK(cuMemFree(a)); }
  out("alloc_free_us", (now() - s) / cycles * 1e6);
  s = now();
  for (int i = 0; i < cycles; i++) { CK(cuMemAllocAsync(&a, 1 << 20, NULL)); CK(cuMemFreeAsync(a, NULL)); }
  CK(cuCtxSynchronize());
  out("alloc_async_us", (now() - s) / cycles * 1e6);
  free(cubin);
  return 0;
}
