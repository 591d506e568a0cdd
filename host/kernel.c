/* kernel.c: programs, kernels and launches.
 *  - A program ("gpu.program") is one source with its options, compiled at first use by
 *    the backend (NVRTC, or the host's C++ compiler) for the current device, or taken from
 *    the disk cache, and loaded as a module; lua/gpu.lua caches programs per
 *    source and options, and each keeps a module per device.
 *  - A kernel ("gpu.kernel") is one __global__ function of a program with the parameter
 *    list lua/signature.lua read from its declaration; k[{grid, block}] makes a launcher,
 *    a C closure over the configuration, and calling that marshals the arguments into a
 *    buffer the kernel owns (no allocation per launch) and calls the backend's launch. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

#define MAX_DEVICES 16
#define MAX_OPTIONS 64
#define ARRAY_ARG_SIZE 56       /* sizeof(gpu::array<T>) in kernels/gpuhost.cuh */

typedef struct GpuProgram {
  int nnames;
  int debug;                      /* compiled with GPUHOST_DEBUG: bounds errors reported */
  CUmodule module[MAX_DEVICES];
  CUfunction *functions[MAX_DEVICES];
  CUdeviceptr oob[MAX_DEVICES];   /* the kernel header's __gpuhost_oob record */
} GpuProgram;

enum { PARAM_SCALAR, PARAM_POINTER, PARAM_ARRAY };
typedef struct KParam {
  int kind;
  int dtype;                      /* -1: any (void *) */
  char name[40];
  char ctype[40];
} KParam;

typedef struct GpuKernel {
  int index;                      /* which of the program's names */
  int debug;                      /* the program's: check bounds after each launch */
  int nparams;
  int device;                     /* device of the cached function, -1 when none */
  CUfunction function;
  KParam *params;
  void **argv;                    /* argv[i] points into argbuf */
  char *argbuf;
} GpuKernel;

typedef struct GpuLauncher {
  unsigned grid[3], block[3], shared;
  int has_stream;
} GpuLauncher;

/* kernel_index checks types against metatables held as its upvalues, which is cheaper
 * than looking them up by name; a launcher is a closure over these upvalues. */
enum { UV_ARRAY_MT = 1, UV_KERNEL_MT };
enum { LU_CONFIG = 1, LU_KERNEL, LU_STREAM, LU_ARRAY_MT };

static void *fast_udata(lua_State *L, int idx, int uv) {
  void *p = lua_touserdata(L, idx);
  if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
  int same = lua_rawequal(L, -1, lua_upvalueindex(uv));
  lua_pop(L, 1);
  return same ? p : NULL;
}

#define toprogram(L, i) ((GpuProgram *)luaL_checkudata(L, i, "gpu.program"))
#define tokernel(L, i) ((GpuKernel *)luaL_checkudata(L, i, GPU_KERNEL_T))

/* gpu._program(spec): spec = {source=, names={...}, options={...}, debug=, prefix=} */
static int gpu_program(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  GpuProgram *p = lua_newuserdatauv(L, sizeof *p, 1);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, "gpu.program");
  lua_getfield(L, 1, "names");
  p->nnames = (int)luaL_len(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, 1, "debug");
  p->debug = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

static int program_gc(lua_State *L) {
  GpuProgram *p = toprogram(L, 1);
  for (int d = 0; d < MAX_DEVICES; d++) {
    if (p->module[d]) gpu_backend()->module_unload(p->module[d]);
    free(p->functions[d]);
    p->module[d] = NULL;
    p->functions[d] = NULL;
  }
  return 0;
}

static const char *spec_string(lua_State *L, int spec, const char *field) {
  lua_getfield(L, spec, field);
  const char *s = lua_tostring(L, -1);   /* kept alive by the spec table */
  lua_pop(L, 1);
  return s;
}

/* Compiles program p (at idx) for the backend's current target, or takes it from the disk
 * cache. Pushes nothing; fills *img (free with gpu_image_free) and returns where the code
 * came from ("disk" or the compiler). Raises on failure. */
static const char *program_build(lua_State *L, int idx, GpuImage *img) {
  const GpuBackend *be = gpu_backend();
  GpuProgram *p = toprogram(L, idx);
  int top = lua_gettop(L);
  lua_getiuservalue(L, idx, 1);
  int spec = lua_gettop(L);
  const char *source = spec_string(L, spec, "source");
  const char *prefix = spec_string(L, spec, "prefix");
  const EmbeddedFile *hdr = embedded_find("kernels/gpuhost.cuh");
  const char *opts[MAX_OPTIONS], *names[256];
  lua_getfield(L, spec, "options");
  int o = lua_gettop(L), nopts = 0;
  for (lua_Integer i = 1; i <= luaL_len(L, o) && nopts < MAX_OPTIONS; i++) {
    lua_geti(L, o, i);
    opts[nopts++] = lua_tostring(L, -1);
    lua_pop(L, 1);   /* the string stays alive in the options table */
  }
  lua_getfield(L, spec, "names");
  int nt = lua_gettop(L);
  int nn = p->nnames < 256 ? p->nnames : 256;
  for (int i = 0; i < nn; i++) {
    lua_geti(L, nt, i + 1);
    names[i] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  char arch[64], compiler[4200];
  GPU_CHECK(L, be->arch(arch, sizeof arch));
  GPU_CHECK(L, be->compiler_id(compiler, sizeof compiler));

  /* the cache key: everything the compiled code depends on */
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  lua_pushfstring(L, "gpuhost-cache 2\n%s\n%s\n%s\n%s\n", be->name, compiler, arch,
                  p->debug ? "debug" : "");
  luaL_addvalue(&b);
  for (int i = 0; i < nopts; i++) { luaL_addstring(&b, opts[i]); luaL_addchar(&b, '\n'); }
  luaL_addchar(&b, '\1');
  for (int i = 0; i < nn; i++) { luaL_addstring(&b, names[i]); luaL_addchar(&b, '\n'); }
  luaL_addlstring(&b, hdr->data, hdr->size);
  luaL_addchar(&b, '\0');
  luaL_addstring(&b, source);
  luaL_pushresult(&b);
  size_t keylen;
  const char *key = lua_tolstring(L, -1, &keylen);
  CacheEntry e;
  if (cache_load(key, keylen, nn, &e)) {
    memset(img, 0, sizeof *img);
    img->data = e.cubin;
    img->size = e.cubin_size;
    img->lowered = e.lowered;
    lua_settop(L, top);
    return "disk";
  }
  lua_pushfstring(L, "%s%s", prefix ? prefix : "", source);
  GpuCompileJob job = {
    .source = lua_tostring(L, -1), .progname = nn > 0 ? names[0] : "kernel",
    .header = hdr->data, .header_size = hdr->size, .nopts = nopts, .opts = opts,
    .nnames = nn, .names = names, .debug = p->debug, .arch = arch,
  };
  GpuResult r = be->compile(&job, img);
  if (r.code) {
    /* copy what we need onto the Lua stack, free, then raise (gpu_raise does not return) */
    lua_pushstring(L, img->log ? img->log : "");
    gpu_image_free(img, nn);
    gpu_raise(L, r, lua_tostring(L, -1));
  }
  cache_store(key, keylen, img->data, img->size, img->lowered, nn);
  lua_settop(L, top);
  return be == &gpu_cuda_backend ? "nvrtc" : "c++";
}

/* The function `index` of program p (at idx) on the current device, compiling and loading
 * the program there first if needed. */
static CUfunction program_function(lua_State *L, int idx, int index, const char **origin) {
  const GpuBackend *be = gpu_backend();
  GpuProgram *p = toprogram(L, idx);
  *origin = "memory";
  GPU_CHECK(L, be->ensure_context());
  int dev = be->current_device();
  if (dev >= MAX_DEVICES) luaL_error(L, "device %d: gpuhost handles %d devices", dev, MAX_DEVICES);
  if (p->functions[dev] == NULL) {
    GpuImage img;
    *origin = program_build(L, idx, &img);
    CUmodule m;
    GpuResult r = be->module_load(&m, &img);
    if (r.code) { gpu_image_free(&img, p->nnames); gpu_raise(L, r, gpu_backend_detail()); }
    CUfunction *fns = calloc((size_t)p->nnames, sizeof *fns);
    for (int i = 0; i < p->nnames && r.code == 0; i++)
      r = be->module_function(&fns[i], m, img.lowered[i]);
    if (r.code == 0 && p->debug) {
      size_t n;
      r = be->module_global(&p->oob[dev], &n, m, "__gpuhost_oob");
    }
    gpu_image_free(&img, p->nnames);
    if (r.code) { free(fns); be->module_unload(m); gpu_raise(L, r, NULL); }
    p->module[dev] = m;
    p->functions[dev] = fns;
  }
  return p->functions[dev][index];
}

/* p:compile(): compiles for the current device, or (CUDA without a GPU) for a default
 * architecture, so compile errors show anywhere. Returns the target and where the code
 * came from: "memory" (this process had it), "disk" (the cache), "nvrtc" or "c++". */
static int program_compile(lua_State *L) {
  toprogram(L, 1);
  const GpuBackend *be = gpu_backend();
  int n;
  const char *origin;
  char arch[64];
  if (be->device_count(&n).code == 0 && n > 0) {
    program_function(L, 1, 0, &origin);
  } else {
    GpuImage img;
    origin = program_build(L, 1, &img);
    gpu_image_free(&img, toprogram(L, 1)->nnames);
  }
  GPU_CHECK(L, be->arch(arch, sizeof arch));
  lua_pushstring(L, arch);
  lua_pushstring(L, origin);
  return 2;
}

/* ---- kernels ---- */

/* gpu._kernel(program, index, params, name): params = {{kind=, dtype=, name=, ctype=}, ...} */
static int gpu_kernel(lua_State *L) {
  GpuProgram *p = toprogram(L, 1);
  int index = (int)luaL_checkinteger(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checkstring(L, 4);
  if (index < 1 || index > p->nnames) return luaL_argerror(L, 2, "no such kernel");
  int n = (int)luaL_len(L, 3);
  size_t size = sizeof(GpuKernel) + (size_t)n * (sizeof(KParam) + sizeof(void *) + ARRAY_ARG_SIZE);
  GpuKernel *k = lua_newuserdatauv(L, size, 3);   /* program, name, last launcher */
  memset(k, 0, size);
  luaL_setmetatable(L, GPU_KERNEL_T);
  k->index = index - 1;
  k->debug = p->debug;
  k->nparams = n;
  k->device = -1;
  k->params = (KParam *)(k + 1);
  k->argv = (void **)(k->params + n);
  k->argbuf = (char *)(k->argv + n);
  for (int i = 0; i < n; i++) {
    KParam *q = &k->params[i];
    lua_geti(L, 3, i + 1);
    lua_getfield(L, -1, "kind");
    const char *kind = luaL_checkstring(L, -1);
    q->kind = strcmp(kind, "array") == 0 ? PARAM_ARRAY
            : strcmp(kind, "pointer") == 0 ? PARAM_POINTER : PARAM_SCALAR;
    lua_getfield(L, -2, "dtype");
    q->dtype = lua_isnil(L, -1) ? -1 : dtype_from_name(lua_tostring(L, -1));
    lua_getfield(L, -3, "name");
    snprintf(q->name, sizeof q->name, "%s", luaL_optstring(L, -1, "?"));
    lua_getfield(L, -4, "ctype");
    snprintf(q->ctype, sizeof q->ctype, "%s", luaL_optstring(L, -1, "?"));
    lua_pop(L, 5);
    if (q->kind == PARAM_SCALAR && q->dtype < 0)
      return luaL_error(L, "kernel parameter %d (%s) has a type gpuhost cannot pass", i + 1, q->name);
    k->argv[i] = k->argbuf + (size_t)i * ARRAY_ARG_SIZE;
  }
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, 4);
  lua_setiuservalue(L, -2, 2);
  return 1;
}

static const char *kernel_name(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, 2);
  const char *s = lua_tostring(L, -1);
  lua_pop(L, 1);   /* the kernel keeps the string alive */
  return s;
}

/* The compiled function of kernel k (at idx) for the current device; checks once per
 * device that the parameter list we read matches what the compiler produced. */
static CUfunction kernel_function(lua_State *L, int idx, GpuKernel *k, int dev) {
  if (k->device >= 0 && k->device == dev) return k->function;
  lua_getiuservalue(L, idx, 1);
  const char *origin;
  CUfunction f = program_function(L, lua_gettop(L), k->index, &origin);
  lua_pop(L, 1);
  for (int i = 0; i <= k->nparams; i++) {
    long size;
    int known;
    GPU_CHECK(L, gpu_backend()->param_size(f, i, &size, &known));
    if (!known) break;
    if (i == k->nparams) {
      if (size >= 0)
        luaL_error(L, "kernel '%s': its declaration reads as %d parameters but the compiled "
                   "kernel has more", kernel_name(L, idx), k->nparams);
      break;
    }
    KParam *q = &k->params[i];
    long want = q->kind == PARAM_ARRAY ? ARRAY_ARG_SIZE
              : q->kind == PARAM_POINTER ? (long)sizeof(void *) : (long)gpu_dtypes[q->dtype].size;
    if (size != want)
      luaL_error(L, "kernel '%s': parameter %d (%s %s) is %d bytes in the compiled kernel, "
                 "not %d as its declaration reads", kernel_name(L, idx), i + 1, q->ctype,
                 q->name, (int)size, (int)want);
  }
  k->function = f;
  k->device = gpu_backend()->current_device();   /* program_function made one current */
  return f;
}

/* Why value at idx cannot be an array argument, as advice. */
static int bad_array_arg(lua_State *L, int idx, const char *kname, int i, const KParam *q) {
  const char *why;
  if (hostarray_test(L, idx)) why = "is a host array: copy it to the device first with gpu.array(h)";
  else if (lua_istable(L, idx)) why = "is a Lua table: copy it to the device first with gpu.array(t)";
  else why = lua_pushfstring(L, "must be a device array, got %s", luaL_typename(L, idx));
  return luaL_error(L, "kernel '%s' argument %d (%s) %s", kname, i, q->name, why);
}

/* Writes the arguments at first.. into k's buffer. */
static void marshal(lua_State *L, int kidx, GpuKernel *k, int first, int nargs, int dev) {
  if (nargs != k->nparams)
    luaL_error(L, "kernel '%s' takes %d argument%s, got %d", kernel_name(L, kidx), k->nparams,
               k->nparams == 1 ? "" : "s", nargs);
  for (int i = 0; i < k->nparams; i++) {
    KParam *q = &k->params[i];
    int idx = first + i;
    char *dst = k->argbuf + (size_t)i * ARRAY_ARG_SIZE;
    if (q->kind == PARAM_SCALAR) {
      const char *err = dtype_store(L, idx, q->dtype, dst);
      if (err) luaL_error(L, "kernel '%s' argument %d (%s %s): %s %s", kernel_name(L, kidx),
                          i + 1, q->ctype, q->name, luaL_tolstring(L, idx, NULL), err);
      continue;
    }
    GpuArray *a = fast_udata(L, idx, LU_ARRAY_MT);
    if (a == NULL) bad_array_arg(L, idx, kernel_name(L, kidx), i + 1, q);
    if (!a->alive) luaL_error(L, "attempt to use a freed array (kernel '%s' argument %d)",
                              kernel_name(L, kidx), i + 1);
    if (q->dtype >= 0 && (int)a->dtype != q->dtype)
      luaL_error(L, "kernel '%s' argument %d (%s %s) is a %s array; the kernel takes %s",
                 kernel_name(L, kidx), i + 1, q->ctype, q->name, gpu_dtypes[a->dtype].name,
                 gpu_dtypes[q->dtype].name);
    if (a->device != dev)
      luaL_error(L, "kernel '%s' argument %d (%s) lives on device %d, not the current device %d",
                 kernel_name(L, kidx), i + 1, q->name, a->device, dev);
    uint64_t ptr = a->ptr;
    memcpy(dst, &ptr, sizeof ptr);
    if (q->kind == PARAM_ARRAY) {
      int64_t hdr[6] = {a->shape.size, a->shape.dim[0], a->shape.dim[1], a->shape.dim[2],
                        a->shape.dim[3], a->shape.ndim};
      memcpy(dst + 8, hdr, sizeof hdr);
    }
  }
}

/* One of grid or block: a number or a table of 1 to 3 numbers. */
static void read_dims(lua_State *L, int idx, const char *what, unsigned out[3]) {
  out[0] = out[1] = out[2] = 1;
  int n = 1, t = lua_type(L, idx);
  if (t == LUA_TTABLE) {
    n = (int)luaL_len(L, idx);
    if (n < 1 || n > 3) luaL_error(L, "launch %s must have 1 to 3 dimensions, got %d", what, n);
  } else if (t != LUA_TNUMBER) {
    luaL_error(L, "launch %s must be a number or a table of numbers, got %s", what,
               luaL_typename(L, idx));
  }
  for (int i = 0; i < n; i++) {
    if (t == LUA_TTABLE) lua_geti(L, idx, i + 1);
    else lua_pushvalue(L, idx);
    int isint;
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    if (!isint || v < 0 || v > 0xffffffffLL)
      luaL_error(L, "launch %s must be made of non-negative integers, got %s", what,
                 luaL_tolstring(L, -1, NULL));
    out[i] = (unsigned)v;
    lua_pop(L, 1);
  }
}

/* The launch after a debug kernel: waits, and raises the first out-of-range access. */
static void check_bounds(lua_State *L, int kidx) {
  lua_getiuservalue(L, kidx, 1);
  GpuProgram *p = toprogram(L, -1);
  lua_pop(L, 1);
  int dev = gpu_backend()->current_device();
  uint64_t rec[4];
  GPU_CHECK(L, gpu_backend()->dtoh(rec, p->oob[dev], sizeof rec));
  if (rec[0] == 0) return;
  GPU_CHECK(L, gpu_backend()->memset0(p->oob[dev], sizeof rec));
  luaL_error(L, "kernel '%s': index %I out of range for an array of %I elements "
             "(block %I, thread %I)", kernel_name(L, kidx), (lua_Integer)rec[1],
             (lua_Integer)rec[2], (lua_Integer)(rec[3] >> 32), (lua_Integer)(rec[3] & 0xffffffffu));
}

static void kernel_launch(lua_State *L, int kidx, GpuKernel *k, const GpuLauncher *g,
                          CUstream stream, int first, int nargs) {
  const GpuBackend *be = gpu_backend();   /* asked once a launch */
  CUfunction f = kernel_function(L, kidx, k, be->current_device());
  marshal(L, kidx, k, first, nargs, be->current_device());
  GpuResult r = be->launch(f, g->grid, g->block, g->shared, stream, k->argv);
  if (r.code) {
    const char *more = gpu_backend_detail();
    gpu_raise(L, r, more ? lua_pushfstring(L, "kernel '%s' %s", kernel_name(L, kidx), more)
                         : kernel_name(L, kidx));
  }
  if (k->debug) check_bounds(L, kidx);
}

/* launcher(args...): the launch itself; the closure's upvalues hold the configuration,
 * the kernel, the stream and the array metatable. */
static int launcher_call(lua_State *L) {
  GpuLauncher *g = lua_touserdata(L, lua_upvalueindex(LU_CONFIG));
  GpuKernel *k = lua_touserdata(L, lua_upvalueindex(LU_KERNEL));
  CUstream stream = g->has_stream ? stream_check(L, lua_upvalueindex(LU_STREAM)) : NULL;
  kernel_launch(L, lua_upvalueindex(LU_KERNEL), k, g, stream, 1, lua_gettop(L));
  return 0;
}

/* k[config]: a launcher; config = {grid, block, shared = bytes, stream = s}. The kernel
 * keeps its last launcher and gives it again for the same configuration, so a loop of
 * k[{g, b}](...) makes no launcher after the first. */
static int kernel_index(lua_State *L) {
  if (fast_udata(L, 1, UV_KERNEL_MT) == NULL) tokernel(L, 1);   /* raises */
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *key = lua_tostring(L, 2);
    if (strcmp(key, "name") == 0) { lua_getiuservalue(L, 1, 2); return 1; }
    if (method_push(L, 1, key)) return 1;
    return luaL_error(L, "gpu.kernel has no field or method '%s'", key);
  }
  if (!lua_istable(L, 2))
    return luaL_error(L, "launch configuration must be {grid, block}, got %s", luaL_typename(L, 2));
  GpuLauncher c;
  memset(&c, 0, sizeof c);
  lua_settop(L, 2);
  lua_rawgeti(L, 2, 1);
  lua_rawgeti(L, 2, 2);
  if (lua_isnil(L, 3) || lua_isnil(L, 4))
    return luaL_error(L, "launch configuration must be {grid, block}");
  read_dims(L, 3, "grid", c.grid);
  read_dims(L, 4, "block", c.block);
  if (lua_getfield(L, 2, "shared") != LUA_TNIL)
    c.shared = (unsigned)size_check(L, 5, "shared memory size");
  if (lua_getfield(L, 2, "stream") != LUA_TNIL) {   /* slot 6 */
    stream_check(L, 6);
    c.has_stream = 1;
  }
  /* the last launcher, if it is the same */
  if (lua_getiuservalue(L, 1, 3) == LUA_TFUNCTION) {   /* slot 7 */
    lua_getupvalue(L, 7, LU_CONFIG);
    GpuLauncher *last = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (memcmp(last->grid, c.grid, sizeof c.grid) == 0 &&
        memcmp(last->block, c.block, sizeof c.block) == 0 && last->shared == c.shared &&
        last->has_stream == c.has_stream) {
      if (!c.has_stream) return 1;
      lua_getupvalue(L, 7, LU_STREAM);
      if (lua_rawequal(L, -1, 6)) { lua_pop(L, 1); return 1; }
    }
  }
  lua_settop(L, 6);
  GpuLauncher *g = lua_newuserdatauv(L, sizeof *g, 0);
  *g = c;
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 6);
  lua_pushvalue(L, lua_upvalueindex(UV_ARRAY_MT));
  lua_pushcclosure(L, launcher_call, 4);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, 1, 3);
  return 1;
}

static int kernel_call(lua_State *L) {
  return luaL_error(L, "kernel '%s' needs a launch configuration: k[{grid, block}](...)",
                    kernel_name(L, 1));
}

/* k:compile(): compiles now (see program_compile); returns the architecture */
static int kernel_compile(lua_State *L) {
  tokernel(L, 1);
  lua_getiuservalue(L, 1, 1);
  lua_replace(L, 1);
  return program_compile(L);
}

static int kernel_tostring(lua_State *L) {
  lua_pushfstring(L, "gpu.kernel(%s)", kernel_name(L, 1));
  return 1;
}

static const luaL_Reg kernel_funcs[] = {
  {"_program", gpu_program},
  {"_kernel", gpu_kernel},
  {NULL, NULL}
};

static const luaL_Reg kernel_methods[] = {
  {"compile", kernel_compile},
  {NULL, NULL}
};

/* Expects the gpu table on top (and array_open done). */
void kernel_open(lua_State *L) {
  luaL_setfuncs(L, kernel_funcs, 0);
  luaL_newmetatable(L, "gpu.program");
  lua_pushcfunction(L, program_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, program_compile);
  lua_setfield(L, -2, "compile");
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_newmetatable(L, GPU_KERNEL_T);
  luaL_getmetatable(L, GPU_ARRAY_T);
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, kernel_index, 2);   /* upvalues: UV_ARRAY_MT, UV_KERNEL_MT */
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, kernel_call);
  lua_setfield(L, -2, "__call");
  lua_pushcfunction(L, kernel_tostring);
  lua_setfield(L, -2, "__tostring");
  luaL_newlib(L, kernel_methods);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
}
