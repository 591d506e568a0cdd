/* gpu.h: what the files of the gpu module share. The backend (cuda.c, nvrtc.c) knows
 * nothing of Lua; the Lua-facing files (device.c, array.c, ...) call it through the
 * functions declared here and turn its GpuResult into Lua errors (errors.c). */
#ifndef GPUHOST_GPU_H
#define GPUHOST_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>
#include "lua.h"
#include "lauxlib.h"

/* ---- results: every backend call returns one; code 0 is success ---- */
typedef enum { GPU_SRC_CUDA, GPU_SRC_NVRTC, GPU_SRC_HOST } GpuSource;
typedef struct GpuResult {
  int code;           /* CUresult, nvrtcResult, or one of GPU_ERR_* below */
  GpuSource source;
  const char *call;   /* the failing call as written in the source (a literal) */
} GpuResult;
#define GPU_OK ((GpuResult){0, GPU_SRC_CUDA, NULL})

/* gpuhost's own failures, where no library could be reached to give a code */
enum { GPU_ERR_NO_DRIVER = 1, GPU_ERR_NO_NVRTC, GPU_ERR_NO_SYMBOL };

/* ---- dtypes (dtype.c) ---- */
typedef enum {
  DT_FLOAT32, DT_FLOAT64, DT_INT8, DT_INT16, DT_INT32, DT_INT64,
  DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL, DT_COUNT
} GpuDtype;
typedef struct DtypeInfo {
  const char *name;   /* as Lua sees it: "float32" */
  const char *ctype;  /* as kernels spell it: "float" */
  size_t size;
  char kind;          /* 'f' float, 'i' signed, 'u' unsigned, 'b' bool */
} DtypeInfo;
extern const DtypeInfo gpu_dtypes[DT_COUNT];
int dtype_check(lua_State *L, int idx, GpuDtype def);   /* name at idx (or def if nil) */
int dtype_from_name(const char *name);                  /* -1 when unknown */
/* Stores the Lua value at idx into dst as dtype dt; returns NULL or an error text. */
const char *dtype_store(lua_State *L, int idx, GpuDtype dt, void *dst);
void dtype_push(lua_State *L, GpuDtype dt, const void *src);

/* ---- shapes ---- */
#define GPU_MAXDIM 4
typedef struct GpuShape {
  int ndim;
  int64_t dim[GPU_MAXDIM];
  int64_t size;       /* product of dims */
} GpuShape;
void shape_check(lua_State *L, int idx, GpuShape *s);   /* number or table of numbers */
int64_t size_check(lua_State *L, int idx, const char *what); /* a non-negative integral size */
void shape_push(lua_State *L, const GpuShape *s);
/* Pushes array field k (shape, dtype, size, ndim, nbytes); 0 when k is none of them. */
int field_push(lua_State *L, const char *k, const GpuShape *s, GpuDtype dt);
/* Pushes method k of the value at idx (its metatable's "methods"); 0 when none. */
int method_push(lua_State *L, int idx, const char *k);

/* ---- the CUDA driver backend (cuda.c) ---- */
typedef struct GpuDeviceInfo {
  char name[256];
  int major, minor, multiprocessors, max_threads_per_block, warp_size;
  size_t total_memory;
} GpuDeviceInfo;

GpuResult cuda_load(void);               /* dlopen libcuda, cuInit; idempotent */
const char *cuda_load_message(void);     /* why cuda_load failed, when it did */
GpuResult cuda_device_count(int *n);
GpuResult cuda_device_info(int ordinal, GpuDeviceInfo *info);
GpuResult cuda_use_device(int ordinal);  /* makes its primary context current */
GpuResult cuda_ensure_context(void);     /* cuda_load + a current context */
int cuda_current_device(void);
GpuResult cuda_synchronize(void);
GpuResult cuda_mem_info(size_t *free_bytes, size_t *total_bytes);
GpuResult cuda_alloc(CUdeviceptr *p, size_t n);
GpuResult cuda_free(CUdeviceptr p, int device);
GpuResult cuda_host_alloc(void **p, size_t n);  /* pinned */
GpuResult cuda_host_free(void *p);
GpuResult cuda_htod(CUdeviceptr dst, const void *src, size_t n);
GpuResult cuda_dtoh(void *dst, CUdeviceptr src, size_t n);
GpuResult cuda_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n);
GpuResult cuda_memset0(CUdeviceptr p, size_t n);
GpuResult cuda_module_load(CUmodule *m, const void *image);
GpuResult cuda_module_unload(CUmodule m);
GpuResult cuda_module_function(CUfunction *f, CUmodule m, const char *name);
GpuResult cuda_module_global(CUdeviceptr *p, size_t *n, CUmodule m, const char *name);
/* Size of parameter i, or -1 past the last; *known = 0 when the driver cannot say. */
GpuResult cuda_param_size(CUfunction f, int i, long *size, int *known);
GpuResult cuda_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                      unsigned shared, CUstream stream, void **params);
GpuResult cuda_stream_create(CUstream *s);
GpuResult cuda_stream_destroy(CUstream s);
GpuResult cuda_stream_synchronize(CUstream s);
GpuResult cuda_event_create(CUevent *e);
GpuResult cuda_event_destroy(CUevent e);
GpuResult cuda_event_record(CUevent e, CUstream s);
GpuResult cuda_event_synchronize(CUevent e);
GpuResult cuda_event_elapsed(float *ms, CUevent a, CUevent b);
const char *cuda_error_name(int code);   /* NULL when unknown */
const char *cuda_error_description(int code);

/* ---- NVRTC (nvrtc.c) ---- */
typedef struct NvrtcJob {
  const char *source, *progname;
  int nheaders;
  const char *const *headers, *const *header_names;
  int nopts;
  const char *const *opts;
  int nnames;
  const char *const *names;     /* name expressions; lowered[i] is filled for each */
  /* results, malloc'd; free with nvrtc_job_free */
  char *cubin;
  size_t cubin_size;
  char *log;
  char **lowered;
} NvrtcJob;
GpuResult nvrtc_compile(NvrtcJob *job);
void nvrtc_job_free(NvrtcJob *job);
GpuResult nvrtc_version(int *major, int *minor);
/* Names the NVRTC nvrtc_compile would use, without opening it where it can (cache keys). */
GpuResult nvrtc_identity(char *out, size_t n);
const char *nvrtc_load_message(void);
const char *nvrtc_error_name(int code);
const char *cuda_include_dir(void);       /* NULL when no toolkit headers are found */

/* ---- the on-disk compile cache (cache.c) ---- */
typedef struct CacheEntry { char *cubin; size_t cubin_size; char **lowered; } CacheEntry;
/* 1 and the entry for key when the cache has a sound one; 0 otherwise. */
int cache_load(const char *key, size_t keylen, int nnames, CacheEntry *e);
void cache_entry_free(CacheEntry *e, int nnames);
void cache_store(const char *key, size_t keylen, const char *cubin, size_t cubin_size,
                 char *const *lowered, int nnames);

/* ---- Lua side: errors (errors.c) ---- */
#define GPU_ERROR_T "gpu.error"
/* Raises the error object for a failed result; does not return. */
int gpu_raise(lua_State *L, GpuResult r, const char *detail);
#define GPU_CHECK(L, expr) do { GpuResult r_ = (expr); \
    if (r_.code != 0) gpu_raise(L, r_, NULL); } while (0)
void errors_open(lua_State *L);

/* ---- Lua side: device arrays (array.c) ---- */
#define GPU_ARRAY_T "gpu.array"
typedef struct GpuArray {
  CUdeviceptr ptr;     /* 0 while unallocated, after free, and for size 0 */
  size_t nbytes;
  GpuShape shape;
  GpuDtype dtype;
  int device;
  int alive;           /* 0 once freed: any later use raises */
} GpuArray;
GpuArray *array_check(lua_State *L, int idx);     /* a live device array */
GpuArray *array_new(lua_State *L, const GpuShape *s, GpuDtype dt);  /* pushes it */
void array_open(lua_State *L);

/* ---- Lua side: host arrays (hostarray.c) ---- */
#define GPU_HOSTARRAY_T "gpu.hostarray"
typedef struct HostArray {
  void *data;
  size_t nbytes;
  GpuShape shape;
  GpuDtype dtype;
  size_t capacity;     /* bytes of the buffer, which may be larger (pooled) */
  int pinned;          /* 1: cuMemHostAlloc; 0: malloc (no driver) */
  int alive;
} HostArray;
HostArray *hostarray_test(lua_State *L, int idx);  /* NULL when not a host array */
HostArray *hostarray_check(lua_State *L, int idx);
HostArray *hostarray_new(lua_State *L, const GpuShape *s, GpuDtype dt);
void hostarray_open(lua_State *L);
/* Fills dst (s->size elements of dt) from the (nested) table at idx. */
void table_read(lua_State *L, int idx, const GpuShape *s, GpuDtype dt, void *dst);
void table_shape(lua_State *L, int idx, GpuShape *s);
void table_push(lua_State *L, const void *src, const GpuShape *s, GpuDtype dt);

/* ---- the other Lua-visible types ---- */
#define GPU_STREAM_T "gpu.stream"
#define GPU_EVENT_T "gpu.event"
#define GPU_KERNEL_T "gpu.kernel"
#define GPU_DEVICE_T "gpu.device"
CUstream stream_check(lua_State *L, int idx);
void stream_open(lua_State *L);
void event_open(lua_State *L);
void device_open(lua_State *L);
void kernel_open(lua_State *L);
void device_account(lua_State *L, long delta);   /* tells the GC about device bytes */

/* ---- embedded files (embed.c) ---- */
typedef struct EmbeddedFile { const char *name; const char *data; size_t size; } EmbeddedFile;
const EmbeddedFile *embedded_find(const char *name);

int luaopen_gpu(lua_State *L);

#endif
