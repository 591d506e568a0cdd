/* embed.c: a C program that embeds gpuhost (host/gpuhost.h). It makes a buffer of its own
 * (device memory from its own CUDA context on a GPU, plain memory on the CPU backend),
 * lends it to a Lua script as a device array, lets the script scale it with a kernel on
 * the program's stream, reads an array the script made, and checks the results. Built by
 * `make` as build/embed_example; it prints "embed: ok (BACKEND)" and exits 0 when all is
 * right. The CUDA driver is opened with dlopen, as gpuhost itself opens it, so the program
 * runs where there is none. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cudaTypedefs.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "gpuhost.h"

#define N 1000

static struct {   /* the few driver calls the program makes itself */
  PFN_cuInit_v2000 cuInit;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuCtxCreate_v12050 cuCtxCreate;   /* CUDA 13 keeps only this one's signature */
  PFN_cuCtxDestroy_v4000 cuCtxDestroy;
  PFN_cuMemAlloc_v3020 cuMemAlloc;
  PFN_cuMemFree_v3020 cuMemFree;
  PFN_cuMemcpyHtoD_v3020 cuMemcpyHtoD;
  PFN_cuMemcpyDtoH_v3020 cuMemcpyDtoH;
  PFN_cuStreamCreate_v2000 cuStreamCreate;
  PFN_cuStreamDestroy_v4000 cuStreamDestroy;
} cu;

static int load_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  PFN_cuGetProcAddress_v12000 get = lib ? (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2") : NULL;
  if (get == NULL) return -1;
#define GET(name, ver) if (get(#name, (void **)&cu.name, ver, CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL)) return -1;
  GET(cuInit, 2000) GET(cuDeviceGet, 2000) GET(cuCtxCreate, 12050) GET(cuCtxDestroy, 4000) GET(cuMemAlloc, 3020)
  GET(cuMemFree, 3020) GET(cuMemcpyHtoD, 3020) GET(cuMemcpyDtoH, 3020)
  GET(cuStreamCreate, 2000) GET(cuStreamDestroy, 4000)
#undef GET
  return 0;
}

static int released;   /* how many times gpuhost gave the buffer back */
static void release(void *ud, gpuhost_deviceptr p) {
  (void)p;
  released++;
  *(int *)ud = 1;
}

static int fail(const char *what) {
  fprintf(stderr, "embed: FAILED: %s\n", what);
  return 1;
}

/* A release that raises (the program's own error): called once all the same */
static lua_State *raising_state;
static int raised;
static void release_raising(void *ud, gpuhost_deviceptr p) {
  (void)ud, (void)p;
  raised++;
  luaL_error(raising_state, "the program's release failed");
}

/* Lends buf with a shape, strides or a span past gpuhost's limits (case 0, 1, 2): a Lua
 * error, nothing lent */
static int push_bad(lua_State *L) {
  int64_t shape[2] = {(int64_t)1 << 40, (int64_t)1 << 40}, one[1] = {4}, far[1] = {(int64_t)1 << 62};
  int64_t wide[2] = {(int64_t)1 << 24, (int64_t)1 << 24}, apart[2] = {(int64_t)1 << 48, (int64_t)1 << 48};
  gpuhost_deviceptr buf = (gpuhost_deviceptr)lua_tointeger(L, lua_upvalueindex(1));
  lua_Integer which = lua_tointeger(L, 1);
  if (which == 1) gpuhost_push_array(L, buf, "float32", 1, one, far, release, NULL);
  else if (which == 2) gpuhost_push_array(L, buf, "float32", 2, wide, apart, release, NULL);
  else gpuhost_push_array(L, buf, "float32", 2, shape, NULL, release, NULL);
  return 1;
}

static int refused(lua_State *L, gpuhost_deviceptr buf, int which, const char *says) {
  lua_pushinteger(L, (lua_Integer)buf);
  lua_pushcclosure(L, push_bad, 1);
  lua_pushinteger(L, which);
  int ok = lua_pcall(L, 1, 1, 0) != LUA_OK && strstr(lua_tostring(L, -1), says) != NULL;
  lua_pop(L, 1);
  return ok;
}

static int push_early(lua_State *L) {
  int64_t one[1] = {1};
  gpuhost_deviceptr buf = (gpuhost_deviceptr)lua_tointeger(L, lua_upvalueindex(1));
  if (lua_toboolean(L, 1)) gpuhost_push_stream(L, NULL);
  else gpuhost_push_array(L, buf, "float32", 1, one, NULL, release, NULL);
  return 1;
}

/* In a state where gpuhost_open has not run, lending is an error (the array would have
 * no __gc: release would never come), for the array and for the stream. */
static int refused_before_open(gpuhost_deviceptr buf) {
  lua_State *L = luaL_newstate();
  int ok = 1;
  for (int stream = 0; stream < 2; stream++) {
    lua_pushinteger(L, (lua_Integer)buf);
    lua_pushcclosure(L, push_early, 1);
    lua_pushboolean(L, stream);
    ok = ok && lua_pcall(L, 1, 1, 0) != LUA_OK && strstr(lua_tostring(L, -1), "call gpuhost_open first");
    lua_pop(L, 1);
  }
  lua_close(L);
  return ok;
}

static const char *SCRIPT =
  "local scale = gpu.kernel([[extern \"C\" __global__ void scale(gpu::array<float> x, float f) {\n"
  "  long long i = gpu::grid(1); x[i] = f * x[i]; }]])\n"
  "scale[{(#x + 255) // 256, 256, stream = s}](x, 2)\n"
  "s:synchronize()\n"
  "made = gpu.arange(6, 'int32'):reshape({2, 3})\n";

int main(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  gpuhost_open(L);
  lua_pop(L, 1);
  const char *backend = gpuhost_backend();   /* (not NULL: gpuhost_open checked GPU_BACKEND) */
  int cuda = strcmp(backend, "cuda") == 0, gone = 0;
  float host[N];
  for (int i = 0; i < N; i++) host[i] = (float)i;
  CUcontext ctx = NULL;
  CUstream stream = NULL;
  gpuhost_deviceptr buf;
  if (cuda) {   /* the program's own context, memory and stream */
    CUdevice dev;
    CUdeviceptr p;
    if (load_driver()) return fail("the driver's entry points");
    if (cu.cuInit(0) || cu.cuDeviceGet(&dev, 0)) return fail("cuInit, cuDeviceGet");
    if (cu.cuCtxCreate(&ctx, NULL, 0, dev)) return fail("cuCtxCreate (a context of the program's own)");
    if (gpuhost_use_context(0, ctx) != 0) return fail("gpuhost_use_context");
    if (cu.cuMemAlloc(&p, sizeof host) || cu.cuMemcpyHtoD(p, host, sizeof host)) return fail("memory");
    if (cu.cuStreamCreate(&stream, CU_STREAM_DEFAULT)) return fail("a stream");
    buf = p;
  } else {
    if (gpuhost_use_context(0, (void *)1) != -1) return fail("gpuhost_use_context on the CPU");
    float *p = malloc(sizeof host);
    if (p == NULL) return fail("memory");
    memcpy(p, host, sizeof host);
    buf = (gpuhost_deviceptr)(uintptr_t)p;
  }
  if (!refused(L, buf, 0, "shape {1099511627776, 1099511627776} is too large") ||
      !refused(L, buf, 1, "strides[0] is 4611686018427387904 elements, beyond 2^48") ||
      !refused(L, buf, 2, "the layout spans more than 2^48 elements"))
    return fail("a lent array past the limits");
  if (!refused_before_open(buf) || released != 0) return fail("lending before gpuhost_open");
  int64_t shape[1] = {N};
  gpuhost_push_array(L, buf, "float32", 1, shape, NULL, release, &gone);
  lua_setglobal(L, "x");
  gpuhost_push_stream(L, stream);
  lua_setglobal(L, "s");
  if (luaL_dostring(L, SCRIPT) != LUA_OK) {
    fprintf(stderr, "embed: %s\n", lua_tostring(L, -1));
    return fail("the script");
  }
  gpuhost_info info;
  lua_getglobal(L, "made");
  if (!gpuhost_array_info(L, -1, &info) || strcmp(info.dtype, "int32") != 0 || info.ndim != 2 ||
      info.shape[0] != 2 || info.shape[1] != 3 || info.strides[0] != 3 || !info.contiguous)
    return fail("gpuhost_array_info of the script's array");
  if (gpuhost_array_info(L, 1, NULL) || gpuhost_array_info(L, 100, &info) ||
      gpuhost_array_info(L, -50, &info) || gpuhost_array_info(L, 0, &info))
    return fail("bad indices");
  lua_pop(L, 1);
  int64_t two[1] = {2};   /* a release that raises is not called again by a:free(), <close> or __gc */
  raising_state = L;
  gpuhost_push_array(L, buf, "float32", 1, two, NULL, release_raising, NULL);
  lua_setglobal(L, "r");
  if (luaL_dostring(L, "local ok, e = pcall(r.free, r)\n"
                       "assert(not ok and e:find('release failed'), e)\n"
                       "assert(not pcall(function() return r:sum() end))\n"
                       "do local c <close> = r end") != LUA_OK) {
    fprintf(stderr, "embed: %s\n", lua_tostring(L, -1));
    return fail("a release that raises");
  }
  if (raised != 1) return fail("a release that raises: called once");
  float back[N];
  if (cuda) {
    if (cu.cuMemcpyDtoH(back, (CUdeviceptr)buf, sizeof back)) return fail("the copy back");
  } else {
    memcpy(back, (void *)(uintptr_t)buf, sizeof back);
  }
  for (int i = 0; i < N; i++)
    if (back[i] != 2.0f * (float)i) return fail("the kernel's results");
  lua_close(L);   /* gpuhost gives the buffer back: once */
  if (released != 1 || !gone) return fail("the release callback");
  if (cuda) {
    cu.cuMemFree((CUdeviceptr)buf);
    cu.cuStreamDestroy(stream);
    cu.cuCtxDestroy(ctx);
  } else {
    free((void *)(uintptr_t)buf);
  }
  printf("embed: ok (%s)\n", backend);
  return 0;
}
