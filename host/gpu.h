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
/* GPU_SRC_HOST codes are gpuhost's own (below); GPU_SRC_CUDA codes are CUresult values, which
 * the CPU backend gives too where the GPU would fail the same way. */
typedef struct GpuResult {
  int code;           /* CUresult, nvrtcResult, or one of GPU_ERR_* below */
  GpuSource source;
  const char *call;   /* the failing call as written in the source (a literal) */
} GpuResult;
#define GPU_OK ((GpuResult){0, GPU_SRC_CUDA, NULL})

/* gpuhost's own failures, where no library could be reached to give a code */
enum { GPU_ERR_NO_DRIVER = 1, GPU_ERR_NO_NVRTC, GPU_ERR_NO_SYMBOL, GPU_ERR_CPU_COMPILE,
       GPU_ERR_CPU_UNSUPPORTED };

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

/* ---- backends ----
 * Two machines run kernels: the CUDA driver (cuda.c, with NVRTC in nvrtc.c) and the CPU
 * (cpu.c, kernels compiled by the host's C++ compiler). Both give the same table; the
 * Lua-facing files call gpu_backend()->... and never a backend directly. Handles are
 * CUDA's opaque types; the CPU backend puts its own pointers in them. */
typedef struct GpuDeviceInfo {
  char name[256];
  int major, minor, multiprocessors, max_threads_per_block, warp_size;
  size_t total_memory;
} GpuDeviceInfo;

typedef struct GpuCompileJob {
  const char *source;           /* the kernel source, after its #line prefix */
  const char *progname;
  const char *header;           /* kernels/gpuhost.cuh, included before the source */
  size_t header_size;
  int nopts;
  const char *const *opts;      /* the user's options */
  int nnames;
  const char *const *names;     /* kernel name expressions */
  int debug;
  const char *arch;             /* from arch() */
} GpuCompileJob;

typedef struct GpuImage {       /* what compile makes; malloc'd, gpu_image_free */
  char *data;
  size_t size;
  char **lowered;               /* one per name: what module_function takes */
  char *log;                    /* the compiler's messages, on failure too */
} GpuImage;
void gpu_image_free(GpuImage *img, int nnames);

typedef struct GpuBackend {
  const char *name;             /* "cuda" or "cpu" */
  int pinned_host;              /* host_alloc gives page-locked memory */
  GpuResult (*device_count)(int *n);
  GpuResult (*device_info)(int ordinal, GpuDeviceInfo *info);
  GpuResult (*use_device)(int ordinal);
  GpuResult (*ensure_context)(void);       /* init + a current device */
  int (*current_device)(void);
  GpuResult (*synchronize)(void);
  GpuResult (*mem_info)(size_t *free_bytes, size_t *total_bytes);
  GpuResult (*alloc)(CUdeviceptr *p, size_t n);
  GpuResult (*free)(CUdeviceptr p, int device);
  GpuResult (*host_alloc)(void **p, size_t n);
  GpuResult (*host_free)(void *p);
  GpuResult (*htod)(CUdeviceptr dst, const void *src, size_t n);
  GpuResult (*dtoh)(void *dst, CUdeviceptr src, size_t n);
  GpuResult (*dtod)(CUdeviceptr dst, CUdeviceptr src, size_t n);
  GpuResult (*memset0)(CUdeviceptr p, size_t n);
  GpuResult (*arch)(char *out, size_t n);           /* what compile targets now */
  GpuResult (*compiler_id)(char *out, size_t n);    /* names the compiler, for cache keys */
  GpuResult (*compile)(const GpuCompileJob *job, GpuImage *out);
  GpuResult (*module_load)(CUmodule *m, const GpuImage *img);
  GpuResult (*module_unload)(CUmodule m);
  GpuResult (*module_function)(CUfunction *f, CUmodule m, const char *lowered);
  GpuResult (*module_global)(CUdeviceptr *p, size_t *n, CUmodule m, const char *name);
  /* Size of parameter i, or -1 past the last; *known = 0 when the backend cannot say. */
  GpuResult (*param_size)(CUfunction f, int i, long *size, int *known);
  GpuResult (*launch)(CUfunction f, const unsigned grid[3], const unsigned block[3],
                      unsigned shared, CUstream stream, void **params);
  GpuResult (*stream_create)(CUstream *s);
  GpuResult (*stream_destroy)(CUstream s);
  GpuResult (*stream_synchronize)(CUstream s);
  GpuResult (*event_create)(CUevent *e);
  GpuResult (*event_destroy)(CUevent e);
  GpuResult (*event_record)(CUevent e, CUstream s);
  GpuResult (*event_synchronize)(CUevent e);
  GpuResult (*event_elapsed)(float *ms, CUevent a, CUevent b);
} GpuBackend;

extern const GpuBackend gpu_cuda_backend, gpu_cpu_backend;
/* The backend of this process, chosen at the first GPU call: GPU_BACKEND=cpu or cuda, or
 * the CUDA driver when it finds a device and the CPU otherwise (saying so on stderr). */
const GpuBackend *gpu_backend(void);
/* What the backend can say of its last failed launch or module load beyond the code (CPU). */
const char *gpu_backend_detail(void);

/* the CUDA driver (cuda.c) */
GpuResult cuda_load(void);               /* dlopen libcuda, cuInit; idempotent */
const char *cuda_load_message(void);     /* why cuda_load failed, when it did */
const char *cuda_error_name(int code);   /* NULL when unknown */
const char *cuda_error_description(int code);

/* ---- NVRTC (nvrtc.c) ---- */
GpuResult nvrtc_version(int *major, int *minor);
/* Names the NVRTC that would compile, without opening it where it can (cache keys). */
GpuResult nvrtc_identity(char *out, size_t n);
GpuResult nvrtc_compile_cuda(const GpuCompileJob *job, GpuImage *out);
const char *nvrtc_load_message(void);
const char *nvrtc_error_name(int code);

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
