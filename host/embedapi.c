/* embedapi.c: the C API of gpuhost.h, for programs that embed the gpu module (see there).
 * It is a thin layer over the module's own types: a lent buffer is an ordinary device
 * array whose memory the program releases. */
#include <string.h>
#include "gpu.h"
#include "gpuhost.h"
#include "rewrite.h"

/* [-0, +0, v] Raises where package.loaded.gpu holds something other than the gpu module
 * (luaL_requiref would open nothing, and make that the global gpu). The module is the
 * table whose _meta.array is the registry's array metatable (luaopen_gpu made both). */
static void check_loaded(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  int t = lua_getfield(L, -1, "gpu");
  if (!lua_toboolean(L, -1)) {
    lua_pop(L, 2);
    return;
  }
  int ours = t == LUA_TTABLE && lua_getfield(L, -1, "_meta") == LUA_TTABLE &&
             lua_getfield(L, -1, "array") == LUA_TTABLE && luaL_getmetatable(L, GPU_ARRAY_T) &&
             lua_rawequal(L, -1, -2);
  if (!ours)
    luaL_error(L, "gpuhost_open: package.loaded.gpu already holds a %s that is not gpuhost's gpu "
               "module (set it to nil first to open gpuhost's)", lua_typename(L, t));
  lua_pop(L, 5);
}

int gpuhost_open(lua_State *L) {
  check_loaded(L);
  luaL_requiref(L, "gpu", luaopen_gpu, 1);
  loader_open(L, 0);
  return 1;
}

const char *gpuhost_backend(void) { return backend_wanted() ? backend_get()->name : NULL; }

int gpuhost_use_context(int device, void *cucontext) {
  const GpuBackend *be = backend_get();
  if (be->adopt_context == NULL || cucontext == NULL) return -1;
  return be->adopt_context(device, cucontext).code == 0 ? 0 : -1;
}

/* [-0, +0, v] The layout of a lent buffer, checked: sizes as gpuhost's own arrays (at
 * most 2^48 elements), strides within as many elements either way and the last element
 * within as many of the first, so that what the layout code computes from them (stride
 * times index, summed) cannot overflow. */
#define LENT_STRIDE ((int64_t)1 << 48)
static GpuLayout lent_layout(lua_State *L, int ndim, const int64_t *shape, const int64_t *strides) {
  GpuLayout l;
  memset(&l, 0, sizeof l);
  if (ndim < 0 || ndim > GPU_MAXDIM || (ndim > 0 && shape == NULL))
    luaL_error(L, "gpuhost_push_array: ndim must be 0 to %d, with a shape", GPU_MAXDIM);
  l.shape.ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] < 0) luaL_error(L, "gpuhost_push_array: shape[%d] is negative", d);
    l.shape.dim[d] = shape[d];
  }
  array_shape_fits(L, &l.shape);   /* before the products below, which could overflow */
  l.shape.size = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    l.strides[d] = strides ? strides[d] : (d == ndim - 1 ? 1 : l.strides[d + 1] * shape[d + 1]);
    if (l.strides[d] > LENT_STRIDE || l.strides[d] < -LENT_STRIDE)
      luaL_error(L, "gpuhost_push_array: strides[%d] is %I elements, beyond 2^48", d,
                 (lua_Integer)l.strides[d]);
    l.shape.size *= shape[d];
  }
  int64_t span = 0;   /* elements between the first and the farthest */
  for (int d = 0; d < ndim && l.shape.size > 0; d++) {
    int64_t s = l.strides[d] < 0 ? -l.strides[d] : l.strides[d], n = shape[d] - 1;
    if (n > 0 && s > (LENT_STRIDE - span) / n)
      luaL_error(L, "gpuhost_push_array: the layout spans more than 2^48 elements (at dim %d)", d);
    span += s * n;
  }
  return l;
}

/* [-0, +0, v] Raises unless gpuhost_open ran in L: an array or stream pushed without the
 * module's metatables has no methods and no __gc (a lent buffer's release never came). */
static void check_opened(lua_State *L, const char *fname) {
  if (luaL_getmetatable(L, GPU_ARRAY_T) == LUA_TNIL)
    luaL_error(L, "%s: the gpu module is not open in this Lua state (call gpuhost_open first)", fname);
  lua_pop(L, 1);
}

void gpuhost_push_array(lua_State *L, gpuhost_deviceptr ptr, const char *dtype, int ndim,
                        const int64_t *shape, const int64_t *strides,
                        void (*release)(void *ud, gpuhost_deviceptr ptr), void *ud) {
  check_opened(L, "gpuhost_push_array");
  int dt = dtype ? dtype_from_name(dtype) : -1;
  if (dt < 0) luaL_error(L, "gpuhost_push_array: unknown dtype '%s'", dtype ? dtype : "(null)");
  GpuLayout l = lent_layout(L, ndim, shape, strides);
  if (ptr == 0 && l.shape.size > 0) luaL_error(L, "gpuhost_push_array: a NULL pointer");
  if (ptr % dtypes[dt].size)   /* a GPU's loads of it would fault */
    luaL_error(L, "gpuhost_push_array: pointer %p is not aligned to a %s's %d bytes", (void *)ptr, dtype,
               (int)dtypes[dt].size);
  GpuArray *a = array_lend(L, (CUdeviceptr)ptr, &l, (GpuDtype)dt);
  a->release = (void (*)(void *, CUdeviceptr))release;
  a->release_ud = ud;
}

int gpuhost_array_info(lua_State *L, int idx, gpuhost_info *out) {
  /* 0 or an index past the stack's top holds no array (Lua's API would read beyond it) */
  if (idx > LUA_REGISTRYINDEX && (idx == 0 || (idx < 0 ? -idx : idx) > lua_gettop(L))) return 0;
  GpuArray *a = out ? array_test(L, idx) : NULL;
  if (a == NULL || !a->alive) return 0;
  memset(out, 0, sizeof *out);
  out->ptr = a->ptr;
  out->dtype = dtypes[a->dtype].name;
  out->ndim = a->shape.ndim;
  for (int d = 0; d < a->shape.ndim; d++) {
    out->shape[d] = a->shape.dim[d];
    out->strides[d] = a->strides[d];
  }
  out->device = a->device;
  out->contiguous = a->contiguous;
  return 1;
}

void gpuhost_push_stream(lua_State *L, void *custream) {
  check_opened(L, "gpuhost_push_stream");
  stream_push_borrowed(L, (CUstream)custream);
}
