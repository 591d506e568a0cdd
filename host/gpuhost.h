/* gpuhost.h: the C API for programs that embed gpuhost's gpu module in a Lua 5.4 state of
 * their own: open the module, give it the CUDA context and device buffers the program
 * already has, and read back the arrays scripts make. Link with libgpuhost.a (build/, or
 * PREFIX/lib after `make install`), Lua 5.4, -ldl -lpthread -lm. It needs no CUDA headers:
 * device pointers, contexts and streams are passed as the integers and pointers they are.
 *
 * Preconditions are checked where that is cheap: a function given a NULL pointer or an
 * index that holds no array fails (returns 0 or -1, or raises a Lua error where it runs
 * inside Lua, as said) rather than crashing. Errors raised by the functions marked so are
 * ordinary Lua errors: call them under lua_pcall, or from a C function Lua called. */
#ifndef GPUHOST_H
#define GPUHOST_H

#include <stdint.h>
#include "lua.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long long gpuhost_deviceptr;   /* a CUdeviceptr */

/* What gpuhost_array_info tells of an array. */
typedef struct gpuhost_info {
  gpuhost_deviceptr ptr;     /* element 0 (a host pointer on the CPU backend) */
  const char *dtype;         /* "float32", ...: a static string */
  int ndim;                  /* 0 to 8 */
  int64_t shape[8];
  int64_t strides[8];        /* in elements */
  int device;
  int contiguous;            /* C order from ptr on */
} gpuhost_info;

/* [-0, +1, e] Opens the gpu module in L as the global `gpu` and pushes it; also makes
 * loadfile, dofile and require read the launch spelling k[grid, block](...). Raises
 * where package.loaded.gpu holds anything but the module (called again: the module). */
int gpuhost_open(lua_State *L);

/* "cuda" or "cpu": the backend that runs this process's kernels (choosing it if no GPU
 * call has yet); NULL when GPU_BACKEND is set to anything else (gpuhost_open raises). */
const char *gpuhost_backend(void);

/* Before gpuhost first uses device (no array, kernel or stream made on it yet): use the
 * program's CUcontext instead of the device's primary context; the program keeps owning
 * it and must not destroy it while gpuhost runs. 0, or -1 (the backend has no contexts,
 * the device is already in use, or context is NULL). */
int gpuhost_use_context(int device, void *cucontext);

/* [-0, +1, e] Pushes a device array over memory the program owns: ptr on the current
 * device, dtype a gpuhost dtype name, ndim 0 to 8, shape[ndim], strides[ndim] in elements
 * or NULL for C order. release(ud, ptr) is called once when the array is freed or
 * collected; NULL lends it for the array's life (the program frees it after). A stride
 * of 0 makes it an expanded view: neither it nor a view of it is written. */
void gpuhost_push_array(lua_State *L, gpuhost_deviceptr ptr, const char *dtype, int ndim,
                        const int64_t *shape, const int64_t *strides,
                        void (*release)(void *ud, gpuhost_deviceptr ptr), void *ud);

/* The array at idx, if it is a live device array (1); else 0 and *out untouched. */
int gpuhost_array_info(lua_State *L, int idx, gpuhost_info *out);

/* [-0, +1, e] Pushes a gpu.stream for one of the program's CUstreams, so that scripts can
 * launch on it (k[{grid, block, stream = s}]); gpuhost never destroys it. This and
 * gpuhost_push_array raise in a state where gpuhost_open has not run. */
void gpuhost_push_stream(lua_State *L, void *custream);

#ifdef __cplusplus
}
#endif
#endif
