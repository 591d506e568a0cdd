/* gpu.h: what the Lua-facing files of the gpu module share (one file per Lua-visible type,
 * in the shape of liolib.c). They reach the machine only through backend.h's table and
 * turn its GpuResult into Lua errors (errors.c).
 *
 * Helpers that touch the Lua stack carry the manual's stack-effect tag [-o, +p, x]: o
 * values popped, p pushed, x what errors it may raise ('-' none, 'm' memory, 'e' any,
 * 'v' argument errors as luaL_check* raise). */
#ifndef GPUHOST_GPU_H
#define GPUHOST_GPU_H
#ifdef GPUHOST_NO_LUA
#error "a backend (or what backends share) includes gpu.h: backends know nothing of Lua"
#endif

#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "util.h"
#include "lua.h"
#include "lauxlib.h"

/* ---- dtypes (dtype.c): this table is the one place a dtype is defined ----
 * X(ENUM, name, host type, kind, aliases, spellings):
 *   name       what Lua calls it; aliases: other names Lua accepts, '|' between;
 *   host type  what holds one element on the host (its size is the element's size);
 *   kind       'f' float, 'i' signed integer, 'u' unsigned integer, 'b' bool;
 *   spellings  the C types a kernel parameter may use for it, '|' between; the first is
 *              how gpuhost's own generated kernels spell it.
 * Everything else (gpu.dtypes, gpu.float32 ..., the C spellings lua/signature.lua reads,
 * conversions to and from Lua values) is derived from it. */
#define GPU_DTYPES(X) \
  X(FLOAT32, "float32", float,    'f', "",       "float") \
  X(FLOAT64, "float64", double,   'f', "double", "double") \
  X(INT8,    "int8",    int8_t,   'i', "", "signed char|char|int8_t") \
  X(INT16,   "int16",   int16_t,  'i', "", "short|short int|signed short|signed short int|int16_t") \
  X(INT32,   "int32",   int32_t,  'i', "", "int|signed|signed int|int32_t") \
  X(INT64,   "int64",   int64_t,  'i', "", "long long|long long int|signed long long|long|long int|" \
                                           "signed long|int64_t|ptrdiff_t|intptr_t") \
  X(UINT8,   "uint8",   uint8_t,  'u', "", "unsigned char|uint8_t") \
  X(UINT16,  "uint16",  uint16_t, 'u', "", "unsigned short|unsigned short int|uint16_t") \
  X(UINT32,  "uint32",  uint32_t, 'u', "", "unsigned int|unsigned|uint32_t") \
  X(UINT64,  "uint64",  uint64_t, 'u', "", "unsigned long long|unsigned long long int|unsigned long|" \
                                           "unsigned long int|uint64_t|size_t|uintptr_t") \
  X(BOOL,    "bool",    uint8_t,  'b', "", "bool")

#define DTYPE_ENUM(E, name, T, kind, aliases, spellings) DT_##E,
typedef enum { GPU_DTYPES(DTYPE_ENUM) DT_COUNT } GpuDtype;
#undef DTYPE_ENUM

typedef struct DtypeInfo {
  const char *name;
  const char *aliases;
  const char *spellings;
  size_t size;
  char kind;
} DtypeInfo;
extern const DtypeInfo dtypes[DT_COUNT];

int dtype_from_name(const char *name);                 /* -1 when unknown (aliases too) */
GpuDtype dtype_check(lua_State *L, int idx, GpuDtype def);   /* [-0, +0, v] name at idx, or def if nil */
/* [-0, +0, -] Stores the Lua value at idx into dst as dtype dt; NULL, or why not. */
const char *dtype_store(lua_State *L, int idx, GpuDtype dt, void *dst);
void dtype_push(lua_State *L, GpuDtype dt, const void *src);   /* [-0, +1, -] */
void dtype_open(lua_State *L);   /* [-0, +0, m] gpu._dtypes, with the gpu table on top */

/* ---- shapes (dtype.c) ---- */
#define GPU_MAXDIM 4
typedef struct GpuShape {
  int ndim;
  int64_t dim[GPU_MAXDIM];
  int64_t size;       /* product of dims */
} GpuShape;
void shape_check(lua_State *L, int idx, GpuShape *s);      /* [-0, +0, v] a number or a table of them */
int64_t size_check(lua_State *L, int idx, const char *what); /* [-0, +0, v] a non-negative integral size */
void shape_push(lua_State *L, const GpuShape *s);          /* [-0, +1, m] */
/* [-0, +(0|1), m] Pushes array field k (shape, dtype, size, ndim, nbytes); 0 when k is
 * none of them. */
int field_push(lua_State *L, const char *k, const GpuShape *s, GpuDtype dt);
/* [-0, +(0|1), m] Pushes method k of the value at idx (from its metatable's "methods");
 * 0, with nothing pushed, when there is none. */
int method_push(lua_State *L, int idx, const char *k);

/* ---- errors (errors.c) ---- */
#define GPU_ERROR_T "gpu.error"
/* [-0, +0, e] Raises the error object for a failed result; detail (or else r.detail) goes
 * into the object's detail or log. Does not return. */
int errors_raise(lua_State *L, GpuResult r, const char *detail);
#define GPU_CHECK(L, expr) do { GpuResult r_ = (expr); \
    if (r_.code != 0) errors_raise(L, r_, NULL); } while (0)
/* [-0, +0, v] "attempt to use a freed array", with what (or nothing) in parentheses. */
int errors_freed(lua_State *L, const char *what);
/* [-0, +0, -] A cleanup failed where nothing can be raised (__gc): a warning (lua_warning). */
void errors_warn(lua_State *L, GpuResult r, const char *what);
void errors_open(lua_State *L);

/* ---- device arrays (array.c) ---- */
#define GPU_ARRAY_T "gpu.array"
typedef struct GpuArray {
  CUdeviceptr ptr;     /* 0 while unallocated, after free, and for size 0 */
  size_t nbytes;
  GpuShape shape;
  GpuDtype dtype;
  int device;
  int alive;           /* 0 once freed: any later use raises */
  int pins;            /* graphs that use it (graph.c): it cannot be freed while any does */
} GpuArray;
GpuArray *array_check(lua_State *L, int idx);                    /* [-0, +0, v] a live device array */
GpuArray *array_new(lua_State *L, const GpuShape *s, GpuDtype dt);  /* [-0, +1, e] */
void array_open(lua_State *L);

/* ---- host arrays (hostarray.c) ---- */
#define GPU_HOSTARRAY_T "gpu.hostarray"
#define GPU_PINNEDPOOL_T "gpu.pinnedpool"
typedef struct HostArray {
  void *data;
  size_t nbytes;
  GpuShape shape;
  GpuDtype dtype;
  size_t capacity;     /* bytes of the buffer, which may be larger (pooled) */
  int pinned;          /* 1: the backend's host_alloc; 0: malloc (no driver) */
  int alive;
} HostArray;
HostArray *hostarray_test(lua_State *L, int idx);   /* [-0, +0, -] NULL when not a host array */
HostArray *hostarray_check(lua_State *L, int idx);  /* [-0, +0, v] a live host array */
HostArray *hostarray_new(lua_State *L, const GpuShape *s, GpuDtype dt);   /* [-0, +1, e] */
void hostarray_open(lua_State *L);
/* [-0, +0, e] Fills dst (s->size elements of dt) from the (nested) table at idx. */
void table_read(lua_State *L, int idx, const GpuShape *s, GpuDtype dt, void *dst);
void table_shape(lua_State *L, int idx, GpuShape *s);   /* [-0, +0, e] */
void table_push(lua_State *L, const void *src, const GpuShape *s, GpuDtype dt);  /* [-0, +1, m] */

/* ---- devices and memory (device.c) ---- */
#define GPU_DEVICE_T "gpu.device"
void device_open(lua_State *L);
/* [-0, +0, -] Tells the collector about kbytes of memory it cannot see. */
void gc_account(lua_State *L, long kbytes);
/* [-0, +0, -] The backend's alloc (host = 0, *out a CUdeviceptr) or host_alloc (host = 1,
 * *out a void *); when memory is full, runs a full collection (which may free arrays Lua
 * no longer reaches) and tries once more. */
GpuResult mem_alloc(lua_State *L, int host, void *out, size_t n);
/* [-0, +0, -] Device memory's allocation, as mem_alloc (host = 0) tries it: within
 * GPUHOST_MEMORY_LIMIT (GPUHOST_MEMORY_LIMIT errors, with what was asked, held and
 * allowed), and when the device is full, after a full collection and after the backend's
 * trim; counted as held by the device's arrays until mem_free. */
GpuResult mem_free(CUdeviceptr p, int device, size_t n);   /* the backend's free, uncounted */

/* ---- the other Lua-visible types ---- */
#define GPU_STREAM_T "gpu.stream"
#define GPU_EVENT_T "gpu.event"
#define GPU_KERNEL_T "gpu.kernel"
#define GPU_PROGRAM_T "gpu.program"
CUstream stream_check(lua_State *L, int idx);   /* [-0, +0, v] a live stream */
void stream_open(lua_State *L);
void event_open(lua_State *L);
void kernel_open(lua_State *L);
void program_open(lua_State *L);
void profile_open(lua_State *L);
void jit_open(lua_State *L);   /* gpu.jit's dispatcher (jit.c) */
void graph_open(lua_State *L);
/* graph.c: while gpu.graph records, every array the recorded work uses is kept (and
 * pinned) by the graph: array_new, launches and device copies call graph_keep. */
extern int graph_capturing;
void graph_keep(lua_State *L, int idx);   /* [-0, +0, m] the array at idx */

/* ---- programs (program.c), for kernel.c ---- */
typedef struct GpuProgram GpuProgram;
GpuProgram *program_check(lua_State *L, int idx);   /* [-0, +0, v] */
int program_debug(const GpuProgram *p);
int program_finalized(const GpuProgram *p);   /* its __gc ran: no launch may use it */
int program_nnames(const GpuProgram *p);
/* [-0, +0, e] The function `index` of the program at idx on the current device, compiling
 * and loading it there first if needed; *origin says where the code came from. */
CUfunction program_function(lua_State *L, int idx, int index, const char **origin);
/* [-0, +0, e] The device address of the program's bounds record (debug programs). */
CUdeviceptr program_oob(const GpuProgram *p, int device);
int program_compile(lua_State *L);   /* p:compile(); k:compile() calls it too */

int luaopen_gpu(lua_State *L);

#endif
