/* kernel.c: kernels and launches.
 *  - A kernel ("gpu.kernel") is one __global__ function of a program with the parameter
 *    list lua/signature.lua read from its declaration; k[{grid, block}] makes a launcher,
 *    a C closure over the configuration, and calling that marshals the arguments into a
 *    buffer the kernel owns (no allocation per launch) and calls the backend's launch.
 *  Programs (the compiled code a kernel belongs to) are program.c's. */
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

#define ARRAY_ARG_SIZE 152      /* sizeof(gpu::array<T>): kernels/gpuhost.cuh pins it */
_Static_assert(sizeof(((GpuArray *)0)->header) == ARRAY_ARG_SIZE - 8,
               "GpuArray's header is a gpu::array<T> argument after its pointer");

enum { PARAM_SCALAR, PARAM_POINTER, PARAM_ARRAY };
#define ALIGN16(x) (((x) + 15) & ~(uintptr_t)15)   /* argv, argbuf, its slots: complex<double>s load so */
#define ARG_SLOT ALIGN16(ARRAY_ARG_SIZE)
typedef struct KParam {
  int kind;
  int dtype;                      /* -1: any (void *) */
  int written;                    /* gpu.jit knows the kernel writes it: no expanded view */
  char name[40];
  char ctype[40];
} KParam;

#define GPU_KERNEL_MAGIC 0x6770756b65726e6cULL   /* "gpukernl": kernel_index's quick check */
typedef struct GpuLauncher GpuLauncher;
typedef struct GpuKernel {
  uint64_t magic;                 /* GPU_KERNEL_MAGIC */
  int index;                      /* which of the program's names */
  int debug;                      /* the program's: check bounds after each launch */
  int nparams;
  int device;                     /* device of the cached function, -1 when none */
  CUfunction function;
  const GpuProgram *program;      /* its program (a user value): kept alive by the kernel */
  KParam *params;
  void **argv;                    /* argv[i] points into argbuf */
  char *argbuf;
  const GpuLauncher *last;        /* the configuration of its last launcher (KU_LAUNCHER) */
} GpuKernel;

struct GpuLauncher {
  unsigned grid[3], block[3], shared;
  int has_stream;
  GpuKernel *kernel;              /* its kernel, kept alive by the closure's LU_KERNEL */
};

/* kernel_index's upvalues: the names of a configuration's fields, so that reading them
 * makes and looks up no string; a launcher is a closure over its configuration (a
 * userdata), its kernel and its stream. Arguments are told by magic numbers in their
 * structs, cheaper than comparing metatables (array_arg, kernel_arg). */
enum { UV_SHARED = 1, UV_STREAM };
enum { LU_CONFIG = 1, LU_KERNEL, LU_STREAM };
/* a kernel's user values */
enum { KU_PROGRAM = 1, KU_NAME, KU_LAUNCHER };

#define tokernel(L, i) ((GpuKernel *)luaL_checkudata(L, i, GPU_KERNEL_T))

/* ---- kernels ---- */

/* gpu._kernel(program, index, params, name): params = {{kind=, dtype=, name=, ctype=}, ...} */
static int gpu_kernel(lua_State *L) {
  GpuProgram *p = program_check(L, 1);
  lua_Integer index = luaL_checkinteger(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checkstring(L, 4);
  if (index < 1 || index > program_nnames(p)) return luaL_argerror(L, 2, "no such kernel");
  lua_Integer n = luaL_len(L, 3);
  if (n < 0 || n > 4096) return luaL_argerror(L, 3, "a kernel takes at most 4096 parameters");
  size_t size = sizeof(GpuKernel) + (size_t)n * (sizeof(KParam) + sizeof(void *) + ARG_SLOT) + 32;
  GpuKernel *k = lua_newuserdatauv(L, size, 3);   /* program, name, last launcher */
  memset(k, 0, size);
  luaL_setmetatable(L, GPU_KERNEL_T);
  k->magic = GPU_KERNEL_MAGIC;
  k->index = (int)index - 1;
  k->debug = program_debug(p);
  k->nparams = (int)n;
  k->device = -1;
  k->program = p;
  k->params = (KParam *)(k + 1);
  k->argv = (void **)ALIGN16((uintptr_t)(k->params + n));   /* (Lua aligns the block to 8) */
  k->argbuf = (char *)ALIGN16((uintptr_t)(k->argv + n));
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
    k->argv[i] = k->argbuf + (size_t)i * ARG_SLOT;
  }
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, KU_PROGRAM);
  lua_pushvalue(L, 4);
  lua_setiuservalue(L, -2, KU_NAME);
  return 1;
}

/* [-0, +1, -] The name of the kernel at idx, left on the stack (for messages). */
static const char *kernel_name(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, KU_NAME);
  return lua_tostring(L, -1);
}

/* The compiled function of kernel k (at idx) for the current device; checks once per
 * device that the parameter list we read matches what the compiler produced. */
static CUfunction kernel_function(lua_State *L, int idx, GpuKernel *k, int dev) {
  if (k->device >= 0 && k->device == dev && !program_finalized(k->program)) return k->function;
  lua_getiuservalue(L, idx, KU_PROGRAM);
  const char *origin;
  CUfunction f = program_function(L, lua_gettop(L), k->index, &origin);
  lua_pop(L, 1);
  for (int i = 0; i <= k->nparams; i++) {
    long size;
    int known;
    GPU_CHECK(L, backend_get()->param_size(f, i, &size, &known));
    if (!known) break;
    if (i == k->nparams) {
      if (size >= 0)
        luaL_error(L, "kernel '%s': its declaration reads as %d parameters but the compiled "
                   "kernel has more", kernel_name(L, idx), k->nparams);
      break;
    }
    KParam *q = &k->params[i];
    long want = q->kind == PARAM_ARRAY ? ARRAY_ARG_SIZE
              : q->kind == PARAM_POINTER ? (long)sizeof(void *) : (long)dtypes[q->dtype].size;
    if (size != want)
      luaL_error(L, "kernel '%s': parameter %d (%s %s) is %d bytes in the compiled kernel, "
                 "not %d as its declaration reads", kernel_name(L, idx), i + 1, q->ctype,
                 q->name, (int)size, (int)want);
  }
  k->function = f;
  k->device = backend_get()->current_device();   /* program_function made one current */
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

/* What a gpu::array<T> argument holds after its pointer: size, shape, strides, ndim and
 * whether it is contiguous; built once an array (its layout never changes). */
static const unsigned char *array_header(GpuArray *a) {
  if (!a->header_ready) {
    int64_t hdr[1 + 2 * GPU_MAXDIM];
    int32_t tail[2] = {a->shape.ndim, a->contiguous};
    _Static_assert(sizeof hdr + sizeof tail == sizeof a->header, "the header's layout");
    hdr[0] = a->shape.size;
    for (int d = 0; d < GPU_MAXDIM; d++) {
      hdr[1 + d] = d < a->shape.ndim ? a->shape.dim[d] : 0;
      hdr[1 + GPU_MAXDIM + d] = d < a->shape.ndim ? a->strides[d] : 0;
    }
    memcpy(a->header, hdr, sizeof hdr);
    memcpy(a->header + sizeof hdr, tail, sizeof tail);
    a->header_ready = 1;
  }
  return a->header;
}

/* A device array argument, told without its metatable: a full userdata of GpuArray's size
 * that holds GPU_ARRAY_MAGIC (only gpuhost's C code can make one, so Lua cannot forge it). */
static GpuArray *array_arg(lua_State *L, int idx) {
  GpuArray *a = lua_touserdata(L, idx);
  if (a == NULL || lua_rawlen(L, idx) != sizeof *a || a->magic != GPU_ARRAY_MAGIC) return NULL;
  return a;
}

/* The common scalars stored without dtype_store's generality, as it would store them: a
 * Lua integer for an int32, int64 or float parameter, a number for a float one. 0 when the
 * value needs the general path (which checks it and says what is wrong). */
static int scalar_fast(lua_State *L, int idx, int dt, char *dst) {
  if (lua_isinteger(L, idx)) {
    lua_Integer v = lua_tointeger(L, idx);
    switch (dt) {
      case DT_INT32: {
        if (v < INT32_MIN || v > INT32_MAX) return 0;
        int32_t x = (int32_t)v;
        memcpy(dst, &x, sizeof x);
        return 1;
      }
      case DT_INT64: memcpy(dst, &v, sizeof v); return 1;
      case DT_FLOAT32: { float x = (float)v; memcpy(dst, &x, sizeof x); return 1; }   /* rounded once */
      case DT_FLOAT64: { double x = (double)(lua_Number)v; memcpy(dst, &x, sizeof x); return 1; }
      default: return 0;
    }
  }
  if ((dt != DT_FLOAT32 && dt != DT_FLOAT64) || lua_type(L, idx) != LUA_TNUMBER) return 0;
  lua_Number v = lua_tonumber(L, idx);
  if (dt == DT_FLOAT32) { float x = (float)v; memcpy(dst, &x, sizeof x); }
  else { double x = (double)v; memcpy(dst, &x, sizeof x); }
  return 1;
}

/* Writes the arguments at first.. into k's buffer. */
static void marshal(lua_State *L, int kidx, GpuKernel *k, int first, int nargs, int dev) {
  if (nargs != k->nparams)
    luaL_error(L, "kernel '%s' takes %d argument%s, got %d", kernel_name(L, kidx), k->nparams,
               k->nparams == 1 ? "" : "s", nargs);
  for (int i = 0; i < k->nparams; i++) {
    KParam *q = &k->params[i];
    int idx = first + i;
    char *dst = k->argbuf + (size_t)i * ARG_SLOT;
    if (q->kind == PARAM_SCALAR) {
      if (scalar_fast(L, idx, q->dtype, dst)) continue;
      const char *err = dtype_store(L, idx, (GpuDtype)q->dtype, dst);
      if (err && lua_type(L, idx) == LUA_TNUMBER)   /* a value out of range: shown, and the range */
        luaL_error(L, "kernel '%s' argument %d (%s %s): %s %s%s", kernel_name(L, kidx), i + 1, q->ctype, q->name,
                   luaL_tolstring(L, idx, NULL), err, strcmp(err, "out of range") ? "" : dtype_range(L, q->dtype));
      if (err)   /* named, not printed: printing a device array copies it (not while capturing) */
        luaL_error(L, "kernel '%s' argument %d (%s %s): %s, got %s", kernel_name(L, kidx),
                   i + 1, q->ctype, q->name, err,
                   luaL_getmetafield(L, idx, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx));
      continue;
    }
    GpuArray *a = array_arg(L, idx);
    if (a == NULL) bad_array_arg(L, idx, kernel_name(L, kidx), i + 1, q);
    if (!a->alive) errors_freed(L, lua_pushfstring(L, "kernel '%s' argument %d",
                                                   kernel_name(L, kidx), i + 1));
    if (q->dtype >= 0 && (int)a->dtype != q->dtype)
      luaL_error(L, "kernel '%s' argument %d (%s %s) is a %s array; the kernel takes %s",
                 kernel_name(L, kidx), i + 1, q->ctype, q->name, dtypes[a->dtype].name,
                 dtypes[q->dtype].name);
    if (a->device != dev)
      luaL_error(L, "kernel '%s' argument %d (%s) is on device %d, and device %d is current: "
                 "launch it with device %d current (gpu.with_device(%d, f)), or copy the array "
                 "with a:to(%d)", kernel_name(L, kidx), i + 1, q->name, a->device, dev,
                 a->device, a->device, dev);
    if (q->written && array_shares(a))
      luaL_error(L, "kernel '%s' argument %d (%s) is an expanded view (a stride of 0) or a view of "
                 "one, which the kernel writes: its elements share memory; pass a:contiguous()",
                 kernel_name(L, kidx), i + 1, q->name);
    if (q->kind == PARAM_POINTER && !a->contiguous)
      luaL_error(L, "kernel '%s' argument %d (%s %s) is a view that is not contiguous: pass "
                 "a:contiguous() (a copy), or declare the parameter gpu::array<T>, which "
                 "follows strides", kernel_name(L, kidx), i + 1, q->ctype, q->name);
    if (graph_capturing) graph_keep(L, idx);   /* the graph keeps what it launches on */
    uint64_t ptr = a->ptr;
    memcpy(dst, &ptr, sizeof ptr);
    if (q->kind == PARAM_ARRAY) memcpy(dst + 8, array_header(a), sizeof a->header);
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
    luaL_error(L, "launch %s must be a number or a table of numbers, got %s", what, luaL_typename(L, idx));
  }
  for (int i = 0; i < n; i++) {
    if (t == LUA_TTABLE) lua_geti(L, idx, i + 1);
    else lua_pushvalue(L, idx);
    int vt = lua_type(L, -1);
    lua_Integer v;
    int isint = errors_integer(L, -1, &v);   /* (a string: lua_tointegerx would convert it) */
    if (!isint || v < 0 || v > 0xffffffffLL)
      luaL_error(L, "launch %s must be made of non-negative integers, got %s%s", what,
                 luaL_tolstring(L, -1, NULL), vt == LUA_TSTRING ? " (a string)" : "");
    out[i] = (unsigned)v;
    lua_pop(L, 1);
  }
}

/* The launch after a debug kernel: waits, and raises the first out-of-range access. */
static void check_bounds(lua_State *L, int kidx) {
  if (graph_capturing) graph_refuse(L, "kernel '%s' was made with {debug = true}: its bounds check "
                                  "copies to the host after a launch, which a graph cannot record", kernel_name(L, kidx));
  lua_getiuservalue(L, kidx, KU_PROGRAM);
  GpuProgram *p = program_check(L, -1);
  lua_pop(L, 1);
  CUdeviceptr oob = program_oob(p, backend_get()->current_device());
  uint64_t rec[4];
  GPU_CHECK(L, backend_get()->dtoh(rec, oob, sizeof rec));
  if (rec[0] == 0) return;
  GPU_CHECK(L, backend_get()->memset0(oob, sizeof rec));
  lua_Integer i = (lua_Integer)rec[1], n = (lua_Integer)rec[2], d = (lua_Integer)(rec[0] >> 8);
  if ((rec[0] & 0xff) == 2)   /* a(i, j ...): gpuhost.cuh's record says which */
    lua_pushfstring(L, "index %I out of range for dim %I of extent %I", i, d + 1, n);
  else if ((rec[0] & 0xff) == 3)
    lua_pushfstring(L, "%I indices for an array of %I dimension%s", d, i, i == 1 ? "" : "s");
  else
    lua_pushfstring(L, "index %I out of range for an array of %I elements", i, n);
  luaL_error(L, "kernel '%s': %s (block %I, thread %I)", kernel_name(L, kidx), lua_tostring(L, -1),
             (lua_Integer)(rec[3] >> 32), (lua_Integer)(rec[3] & 0xffffffffu));
}

static void kernel_launch(lua_State *L, int kidx, GpuKernel *k, const GpuLauncher *g,
                          CUstream stream, int first, int nargs) {
  const GpuBackend *be = backend_get();   /* asked once a launch */
  int dev = be->current_device();
  CUfunction f = kernel_function(L, kidx, k, dev);
  marshal(L, kidx, k, first, nargs, dev);
  if (graph_capturing) graph_keep(L, kidx);   /* its program: a replay runs its code */
  GpuResult r = be->launch(f, g->grid, g->block, g->shared, stream, k->argv);
  if (r.code) {
    const char *more = r.detail;   /* copied before anything else calls the backend */
    errors_raise(L, r, more ? lua_pushfstring(L, "kernel '%s' %s", kernel_name(L, kidx), more)
                         : kernel_name(L, kidx));
  }
  if (k->debug) check_bounds(L, kidx);
}

/* launcher(args...): the launch itself; the closure's upvalues hold the configuration,
 * the kernel and the stream (jit.c's dispatchers hold the same three first, and call this
 * as their own). */
int kernel_launcher_call(lua_State *L) {
  GpuLauncher *g = lua_touserdata(L, lua_upvalueindex(LU_CONFIG));
  CUstream stream = g->has_stream ? stream_here(L, lua_upvalueindex(LU_STREAM)) : NULL;
  kernel_launch(L, lua_upvalueindex(LU_KERNEL), g->kernel, g, stream, 1, lua_gettop(L));
  return 0;
}

/* The stack slots of kernel_index once it has read a configuration. */
enum { KI_KERNEL = 1, KI_CONFIG, KI_GRID, KI_BLOCK, KI_SHARED, KI_STREAM, KI_LAST };

/* The kernel at idx, told without its metatable (see array_arg), or NULL. */
static GpuKernel *kernel_arg(lua_State *L, int idx) {
  GpuKernel *k = lua_touserdata(L, idx);
  if (k == NULL || lua_rawlen(L, idx) < sizeof *k || k->magic != GPU_KERNEL_MAGIC) return NULL;
  return k;
}

/* A grid or block given as one integer, the common case, without read_dims' generality;
 * 0 when it needs that. */
static int dims_fast(lua_State *L, int idx, unsigned out[3]) {
  if (!lua_isinteger(L, idx)) return 0;
  lua_Integer v = lua_tointeger(L, idx);
  if (v < 0 || v > 0xffffffffLL) return 0;
  out[0] = (unsigned)v;
  out[1] = out[2] = 1;
  return 1;
}

/* [-0, +0, e] Refuses a configuration field other than grid, block, shared and stream,
 * which a launch would ignore: k[g, b, 1024] (CUDA's <<<g, b, shared>>>) or a misspelt
 * key would run without the shared memory or stream it meant. */
static void config_fields(lua_State *L) {
  lua_pushnil(L);
  while (lua_next(L, KI_CONFIG)) {
    lua_pop(L, 1);
    int isint = lua_isinteger(L, -1);
    lua_Integer i = isint ? lua_tointeger(L, -1) : 0;
    if ((isint && (i == 1 || i == 2)) || lua_rawequal(L, -1, lua_upvalueindex(UV_SHARED)) ||
        lua_rawequal(L, -1, lua_upvalueindex(UV_STREAM)))
      continue;
    const char *key = luaL_tolstring(L, -1, NULL);
    luaL_error(L, "launch configuration has an unknown field [%s]: it is {grid, block, "
               "shared = bytes, stream = s}", lua_type(L, -2) == LUA_TSTRING ? lua_pushfstring(L, "'%s'", key) : key);
  }
}

/* [-0, +0, e] Reads the configuration table at KI_CONFIG into *c, leaving its fields in
 * the slots KI_GRID .. KI_STREAM. Its fields are read raw (the keys are upvalues, so no
 * string is made or looked up per launch). */
static void read_config(lua_State *L, GpuLauncher *c) {
  memset(c, 0, sizeof *c);
  lua_settop(L, KI_CONFIG);
  lua_rawgeti(L, KI_CONFIG, 1);
  lua_rawgeti(L, KI_CONFIG, 2);
  if (lua_isnil(L, KI_GRID) || lua_isnil(L, KI_BLOCK))
    luaL_error(L, "launch configuration must be {grid, block}");
  if (!dims_fast(L, KI_GRID, c->grid)) read_dims(L, KI_GRID, "grid", c->grid);
  if (!dims_fast(L, KI_BLOCK, c->block)) read_dims(L, KI_BLOCK, "block", c->block);
  lua_pushvalue(L, lua_upvalueindex(UV_SHARED));
  if (lua_rawget(L, KI_CONFIG) != LUA_TNIL) {
    int64_t shared = size_check(L, KI_SHARED, "shared memory size");
    if (shared > 0xffffffffLL)
      luaL_error(L, "shared memory size is too large: %I bytes", (lua_Integer)shared);
    c->shared = (unsigned)shared;
  }
  lua_pushvalue(L, lua_upvalueindex(UV_STREAM));
  if (lua_rawget(L, KI_CONFIG) != LUA_TNIL) {
    if (!luaL_testudata(L, KI_STREAM, GPU_STREAM_T))
      luaL_error(L, "launch stream must be a gpu.stream, got %s", luaL_typename(L, KI_STREAM));
    stream_check(L, KI_STREAM);
    c->has_stream = 1;
  }
  config_fields(L);
}

/* Is the kernel's last launcher one for configuration c (the stream at KI_STREAM)? */
static int same_launcher(lua_State *L, const GpuKernel *k, const GpuLauncher *c) {
  const GpuLauncher *last = k->last;
  if (last == NULL || memcmp(last->grid, c->grid, sizeof c->grid) != 0 ||
      memcmp(last->block, c->block, sizeof c->block) != 0 || last->shared != c->shared ||
      last->has_stream != c->has_stream)
    return 0;
  if (!c->has_stream) return 1;
  lua_getiuservalue(L, KI_KERNEL, KU_LAUNCHER);
  lua_getupvalue(L, -1, LU_STREAM);
  int same = lua_rawequal(L, -1, KI_STREAM);
  lua_pop(L, 2);
  return same;
}

/* k[config]: a launcher; config = {grid, block, shared = bytes, stream = s}. The kernel
 * keeps its last launcher and gives it again for the same configuration, so a loop of
 * k[{g, b}](...) makes no launcher after the first. */
static int kernel_index(lua_State *L) {
  GpuKernel *k = kernel_arg(L, KI_KERNEL);
  if (k == NULL) tokernel(L, KI_KERNEL);   /* raises */
  int t = lua_type(L, KI_CONFIG);
  if (t == LUA_TSTRING) {
    const char *key = lua_tostring(L, KI_CONFIG);
    if (strcmp(key, "name") == 0) { lua_getiuservalue(L, KI_KERNEL, KU_NAME); return 1; }
    if (method_push(L, KI_KERNEL, key)) return 1;
    return luaL_error(L, "gpu.kernel has no field or method '%s'", key);
  }
  if (t != LUA_TTABLE)
    return luaL_error(L, "launch configuration must be {grid, block}, got %s", luaL_typename(L, KI_CONFIG));
  GpuLauncher c;
  read_config(L, &c);
  if (same_launcher(L, k, &c)) { lua_getiuservalue(L, KI_KERNEL, KU_LAUNCHER); return 1; }
  lua_settop(L, KI_STREAM);
  GpuLauncher *g = lua_newuserdatauv(L, sizeof *g, 0);
  *g = c;
  g->kernel = k;
  lua_pushvalue(L, KI_KERNEL);
  lua_pushvalue(L, KI_STREAM);
  lua_pushcclosure(L, kernel_launcher_call, 3);   /* upvalues: LU_CONFIG .. LU_STREAM */
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, KI_KERNEL, KU_LAUNCHER);
  k->last = g;                             /* alive while its closure is the kernel's */
  return 1;
}

static int kernel_call(lua_State *L) {
  return luaL_error(L, "kernel '%s' needs a launch configuration: k[{grid, block}](...)",
                    kernel_name(L, 1));
}

/* k:compile(): compiles now (see program_compile); returns the architecture */
static int kernel_compile(lua_State *L) {
  tokernel(L, 1);
  lua_getiuservalue(L, 1, KU_PROGRAM);
  lua_replace(L, 1);
  return program_compile(L);
}

static int kernel_tostring(lua_State *L) {
  lua_pushfstring(L, "gpu.kernel(%s)", kernel_name(L, 1));
  return 1;
}

/* gpu._kernel_writes(k, {i, ...}): the parameters the kernel writes (gpu.jit knows them) */
static int gpu_kernel_writes(lua_State *L) {
  GpuKernel *k = tokernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  for (lua_Integer j = 1, n = luaL_len(L, 2); j <= n; j++, lua_pop(L, 1)) {
    lua_Integer i = (lua_geti(L, 2, j), lua_tointeger(L, -1));
    if (i >= 1 && i <= k->nparams) k->params[i - 1].written = 1;
  }
  return 0;
}

static const luaL_Reg kernel_funcs[] = {
  {"_kernel", gpu_kernel},
  {"_kernel_writes", gpu_kernel_writes},
  {NULL, NULL}
};

static const luaL_Reg kernel_methods[] = {
  {"compile", kernel_compile},
  {NULL, NULL}
};

/* Expects the gpu table on top (and array_open done). */
void kernel_open(lua_State *L) {
  luaL_setfuncs(L, kernel_funcs, 0);
  luaL_newmetatable(L, GPU_KERNEL_T);
  lua_pushliteral(L, "shared");
  lua_pushliteral(L, "stream");
  lua_pushcclosure(L, kernel_index, 2);   /* upvalues: UV_SHARED, UV_STREAM */
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, kernel_call);
  lua_setfield(L, -2, "__call");
  lua_pushcfunction(L, kernel_tostring);
  lua_setfield(L, -2, "__tostring");
  luaL_newlib(L, kernel_methods);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
}
