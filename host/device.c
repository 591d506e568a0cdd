/* device.c: devices ("gpu.device" tables), device-wide synchronization, and device
 * memory: the bytes gpuhost's arrays hold, GPUHOST_MEMORY_LIMIT, what an allocation that
 * finds the device full tries, and the accounting of device bytes to Lua's collector. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

/* [-0, +(0|1), m] NULL when id names a device, else why not (pushed). */
static const char *bad_ordinal(lua_State *L, lua_Integer id) {
  int n;
  GPU_CHECK(L, backend_get()->device_count(&n));
  if (id >= 0 && id < n) return NULL;
  return lua_pushfstring(L, "no device %I (%d device%s, numbered from 0)", id, n, n == 1 ? "" : "s");
}

static int check_ordinal(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TNUMBER) luaL_typeerror(L, idx, "number");   /* not "1" */
  lua_Integer id = luaL_checkinteger(L, idx);
  const char *why = bad_ordinal(L, id);
  return why ? luaL_argerror(L, idx, why) : (int)id;
}

/* gpu._device_id(): the current device's id, as gpu.device().id (without its table and the
 * device's description: the Lua functions' checks of their arrays ask it at each call) */
static int gpu_device_id(lua_State *L) {
  GPU_CHECK(L, backend_get()->ensure_context());
  lua_pushinteger(L, backend_get()->current_device());
  return 1;
}

/* gpu.device([id]): a table describing device id (default: the current device) */
static int gpu_device(lua_State *L) {
  errors_args(L, 1, "gpu.device");
  int id = lua_isnoneornil(L, 1) ? -1 : check_ordinal(L, 1);   /* (a valid one is >= 0) */
  if (id < 0) {
    GPU_CHECK(L, backend_get()->ensure_context());
    id = backend_get()->current_device();
  }
  GpuDeviceInfo info;
  GPU_CHECK(L, backend_get()->device_info(id, &info));
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, id);
  lua_setfield(L, -2, "id");
  lua_pushstring(L, info.name);
  lua_setfield(L, -2, "name");
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, info.major);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, info.minor);
  lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "compute_capability");
  lua_pushinteger(L, (lua_Integer)info.total_memory);
  lua_setfield(L, -2, "total_memory");
  lua_pushinteger(L, info.multiprocessors);
  lua_setfield(L, -2, "multiprocessors");
  lua_pushinteger(L, info.max_threads_per_block);
  lua_setfield(L, -2, "max_threads_per_block");
  lua_pushinteger(L, info.warp_size);
  lua_setfield(L, -2, "warp_size");
  luaL_setmetatable(L, GPU_DEVICE_T);
  return 1;
}

/* The id of the device table at 1, checked as gpu.device(id) checks it. */
static int device_id(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "id");
  int isint;
  lua_Integer id = lua_tointegerx(L, -1, &isint);
  if (!isint) luaL_error(L, "device id must be an integer, got %s", luaL_tolstring(L, -1, NULL));
  const char *why = bad_ordinal(L, id);
  if (why) luaL_error(L, "%s", why);
  lua_pop(L, 1);
  return (int)id;
}

/* dev:use(): makes dev the current device */
static int device_use(lua_State *L) {
  if (lua_gettop(L) > 1)   /* (extra arguments were dropped) */
    return luaL_error(L, "dev:use takes no arguments, got %d argument%s", lua_gettop(L) - 1, lua_gettop(L) == 2 ? "" : "s");
  int id = device_id(L), cur = backend_get()->current_device();
  if (graph_capturing && id != cur)   /* (its work was recorded, and replayed on cur) */
    graph_refuse(L, "work on device %d cannot be recorded in a graph of device %d, whose replays run on "
                 "device %d: record it in a graph of its own, with device %d current", id, cur, cur, id);
  GPU_CHECK(L, backend_get()->use_device(id));
  lua_settop(L, 1);
  return 1;
}

/* dev:synchronize(): waits for all work on dev */
static int device_synchronize(lua_State *L) {
  if (lua_gettop(L) > 1)   /* (extra arguments were dropped) */
    return luaL_error(L, "dev:synchronize takes no arguments, got %d argument%s", lua_gettop(L) - 1, lua_gettop(L) == 2 ? "" : "s");
  int id = device_id(L), was = backend_get()->current_device();
  GPU_CHECK(L, backend_get()->use_device(id));
  GpuResult r = backend_get()->synchronize();
  if (was != id) backend_get()->use_device(was);
  GPU_CHECK(L, r);
  return 0;
}

static int device_tostring(lua_State *L) {
  lua_getfield(L, 1, "id");
  lua_getfield(L, 1, "name");
  lua_getfield(L, 1, "compute_capability");
  lua_geti(L, -1, 1);
  lua_geti(L, -2, 2);
  lua_pushfstring(L, "gpu.device(%d: %s, compute capability %d.%d)", (int)lua_tointeger(L, 2),
                  lua_tostring(L, 3), (int)lua_tointeger(L, 5), (int)lua_tointeger(L, 6));
  return 1;
}

static int gpu_device_count(lua_State *L) {
  int n;
  errors_args(L, 0, "gpu.device_count");
  GPU_CHECK(L, backend_get()->device_count(&n));
  lua_pushinteger(L, n);
  return 1;
}

/* gpu.synchronize(): waits for all work on the current device (cudaDeviceSynchronize) */
static int gpu_synchronize(lua_State *L) {
  if (luaL_testudata(L, 1, GPU_STREAM_T))   /* it waited for the whole device, silently */
    return luaL_error(L, "gpu.synchronize takes no stream: s:synchronize() waits for one");
  errors_args(L, 0, "gpu.synchronize");
  GPU_CHECK(L, backend_get()->synchronize());
  return 0;
}

/* ---- device memory: what gpuhost's arrays hold, GPUHOST_MEMORY_LIMIT, the pool ----
 * Kept per device and for the whole process, as device memory is. */
static size_t held[GPU_MAX_DEVICES];       /* bytes of live device arrays */

/* Freed blocks of up to CACHE_BLOCK bytes kept for the next allocation of their size
 * (rounded up to CACHE_ROUND), when the backend says that memory freed now may be handed
 * out again at once (backend.h's ordered): a small array made and dropped per operation
 * then costs no driver call for its memory (a pair of cuMemAllocAsync and cuMemFreeAsync
 * is over a microsecond). The collector frees dropped arrays hundreds at a time, so each
 * size keeps a stack of blocks: CACHE_SIZES sizes and CACHE_BYTES in all a device.
 * gpu.empty_cache() and an allocation that finds the device full give them back first. */
#define CACHE_BLOCK ((size_t)1 << 20)
#define CACHE_ROUND ((size_t)512)
#define CACHE_SIZES 16
#define CACHE_BYTES ((size_t)64 << 20)
typedef struct { size_t size; int n, cap; CUdeviceptr *p; } Blocks;
static struct { size_t bytes; Blocks b[CACHE_SIZES]; } cache[GPU_MAX_DEVICES];

static size_t cache_size(size_t n) { return (n + CACHE_ROUND - 1) & ~(CACHE_ROUND - 1); }

static Blocks *cache_blocks(int dev, size_t size, int make) {
  Blocks *free_slot = NULL;
  for (int i = 0; i < CACHE_SIZES; i++) {
    Blocks *b = &cache[dev].b[i];
    if (b->size == size) return b;
    if (b->n == 0 && free_slot == NULL) free_slot = b;
  }
  if (!make || free_slot == NULL) return NULL;
  free_slot->size = size;
  return free_slot;
}

static CUdeviceptr cache_take(int dev, size_t size) {
  Blocks *b = cache_blocks(dev, size, 0);
  if (b == NULL || b->n == 0) return 0;
  cache[dev].bytes -= size;
  return b->p[--b->n];
}

static int cache_put(int dev, CUdeviceptr p, size_t size) {
  Blocks *b = cache[dev].bytes + size <= CACHE_BYTES ? cache_blocks(dev, size, 1) : NULL;
  if (b == NULL) return 0;
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 64;
    CUdeviceptr *grown = realloc(b->p, sizeof *grown * (size_t)cap);
    if (grown == NULL) return 0;
    b->p = grown;
    b->cap = cap;
  }
  b->p[b->n++] = p;
  cache[dev].bytes += size;
  return 1;
}

static GpuResult cache_release(int dev) {
  GpuResult r = GPU_OK;
  for (int i = 0; i < CACHE_SIZES; i++) {
    Blocks *b = &cache[dev].b[i];
    while (b->n > 0) {
      GpuResult f = backend_get()->free(b->p[--b->n], dev);
      if (r.code == 0) r = f;
    }
  }
  cache[dev].bytes = 0;
  return r;
}

static struct { int read; size_t bytes; } limits[GPU_MAX_DEVICES];   /* bytes 0: none */
static _Thread_local char why[320];        /* a failure's detail, until the next one */
static _Thread_local char said[330];       /* and why in parentheses: its message's note */

/* An out-of-memory failure says what was asked in its message (as CuPy's
 * OutOfMemoryError) and its detail. */
static GpuResult oom_said(GpuResult r) {
  snprintf(said, sizeof said, "(%s)", why);
  r.note = said;
  r.detail = why;
  return r;
}

static int is_oom(GpuResult r) {
  return r.source == GPU_SRC_CUDA && r.code == CUDA_ERROR_OUT_OF_MEMORY;
}

static GpuResult limit_failure(void) {
  return (GpuResult){GPU_ERR_MEMORY_LIMIT, GPU_SRC_HOST, "GPUHOST_MEMORY_LIMIT", why, NULL};
}

/* GPUHOST_MEMORY_LIMIT for device dev, read at its first allocation: bytes, or a
 * percentage of the device's memory ("50%"); unset, empty or 0, no limit. */
static GpuResult memory_limit(int dev, size_t *limit) {
  if (!limits[dev].read) {
    const char *s = getenv("GPUHOST_MEMORY_LIMIT");
    size_t len = s ? strlen(s) : 0, bytes = 0;
    long v = 0;
    int ok = 1;
    if (len > 1 && len < 32 && s[len - 1] == '%') {
      char pct[32];
      GpuDeviceInfo info;
      memcpy(pct, s, len - 1);
      pct[len - 1] = '\0';
      ok = parse_long(pct, 0, LONG_MAX, &v) == 0;
      if ((ok && v > 100) || (!ok && strspn(pct, "0123456789") == len - 1)) {   /* or past LONG_MAX */
        snprintf(why, sizeof why, "'%s' is over 100%% of the device's memory", s);
        return limit_failure();
      }
      ok = ok && backend_get()->device_info(dev, &info).code == 0;
      if (ok) bytes = info.total_memory / 100 * (size_t)v;
    } else if (len > 0) {
      ok = parse_long(s, 0, LONG_MAX, &v) == 0;
      bytes = (size_t)v;
    }
    if (!ok) {
      snprintf(why, sizeof why, "'%s' is neither a number of bytes nor a percentage of the "
               "device's memory ('50%%')", s);
      return limit_failure();
    }
    limits[dev].read = 1;
    limits[dev].bytes = bytes;
  }
  *limit = limits[dev].bytes;
  return GPU_OK;
}

/* Would n more bytes pass device dev's limit? A full collection first, as arrays Lua no
 * longer reaches count until they are collected. */
static GpuResult check_limit(lua_State *L, int dev, size_t n) {
  size_t limit;
  GpuResult r = memory_limit(dev, &limit);
  if (r.code || limit == 0 || n <= limit - (held[dev] < limit ? held[dev] : limit)) return r;
  lua_gc(L, LUA_GCCOLLECT, 0);
  if (held[dev] <= limit && n <= limit - held[dev]) return GPU_OK;
  snprintf(why, sizeof why, "allocating %zu bytes on device %d would pass the limit: arrays "
           "hold %zu bytes there, and GPUHOST_MEMORY_LIMIT allows %zu", n, dev, held[dev], limit);
  return limit_failure();
}

GpuResult mem_alloc(lua_State *L, int host, void *out, size_t n) {
  const GpuBackend *be = backend_get();
  if (host) {
    GpuResult r = be->host_alloc((void **)out, n);
    if (is_oom(r)) { lua_gc(L, LUA_GCCOLLECT, 0); r = be->host_alloc((void **)out, n); }
    if (is_oom(r)) snprintf(why, sizeof why, "allocating %zu bytes of host memory", n);
    return is_oom(r) ? oom_said(r) : r;
  }
  int dev = be->current_device();
  if (dev < 0 || dev >= GPU_MAX_DEVICES) return be->alloc((CUdeviceptr *)out, n);
  GpuResult r = check_limit(L, dev, n);
  if (r.code) return r;
  size_t size = n <= CACHE_BLOCK ? cache_size(n) : n;
  if (size <= CACHE_BLOCK && !graph_capturing && (*(CUdeviceptr *)out = cache_take(dev, size))) {
    held[dev] += n;
    return GPU_OK;
  }
  r = be->alloc((CUdeviceptr *)out, size);
  if (is_oom(r)) {               /* arrays Lua no longer reaches, then the pool's reserve */
    lua_gc(L, LUA_GCCOLLECT, 0);
    cache_release(dev);
    r = be->alloc((CUdeviceptr *)out, size);
  }
  if (is_oom(r) && be->trim && be->trim(dev).code == 0) r = be->alloc((CUdeviceptr *)out, size);
  if (r.code == 0) {
    held[dev] += n;
    if (be->hold) be->hold(dev, held[dev]);
  } else if (is_oom(r)) {
    snprintf(why, sizeof why, "allocating %zu bytes on device %d, where gpuhost's arrays hold "
             "%zu bytes", n, dev, held[dev]);
    r = oom_said(r);
  }
  return r;
}

GpuResult mem_free(CUdeviceptr p, int device, size_t n) {
  const GpuBackend *be = backend_get();
  gc_release(n);
  if (device < 0 || device >= GPU_MAX_DEVICES) return be->free(p, device);
  held[device] -= n < held[device] ? n : held[device];
  if (n <= CACHE_BLOCK && be->ordered && be->ordered(device) && cache_put(device, p, cache_size(n)))
    return GPU_OK;
  if (be->hold) be->hold(device, held[device]);
  return be->free(p, device);
}

/* gpu.mem_info(): free and total bytes of the current device, and the bytes gpuhost's
 * arrays hold there */
static int gpu_mem_info(lua_State *L) {
  size_t f, t;
  errors_args(L, 0, "gpu.mem_info");
  GPU_CHECK(L, backend_get()->mem_info(&f, &t));
  int dev = backend_get()->current_device();
  lua_pushinteger(L, (lua_Integer)f);
  lua_pushinteger(L, (lua_Integer)t);
  lua_pushinteger(L, (lua_Integer)(dev >= 0 && dev < GPU_MAX_DEVICES ? held[dev] : 0));
  return 3;
}

/* gpu.empty_cache(): collects the arrays Lua no longer reaches and gives the memory the
 * devices' pools keep back to the driver, for other processes and libraries */
static int gpu_empty_cache(lua_State *L) {
  const GpuBackend *be = backend_get();
  int n;
  errors_args(L, 0, "gpu.empty_cache");
  lua_gc(L, LUA_GCCOLLECT, 0);
  GPU_CHECK(L, be->device_count(&n));
  for (int d = 0; d < n && d < GPU_MAX_DEVICES; d++) {
    GPU_CHECK(L, cache_release(d));
    if (be->trim) GPU_CHECK(L, be->trim(d));
  }
  return 0;
}

/* The collector does not see device (or pinned host) bytes. It is told of them in steps:
 * once the bytes allocated since the last step and not freed since (by :free() or by the
 * collector) reach a quantum, the next allocation first makes a step sized by them, so a
 * loop that drops large arrays collects them as if Lua itself had allocated that much,
 * while one that frees what it makes, or makes small arrays, costs the collector little
 * (a step per allocation cost more than the allocation). The step comes before the new
 * array is made (array_new, hostarray_new call gc_due first): what it frees is then in
 * the pool when the pool is asked, and the new array does not live through it.
 *
 * gpuhost collects generationally, where a step is a minor collection, and an object that
 * lives through two of them is old: only a full collection frees it, and those come when
 * Lua's own heap has doubled, which a few hundred bytes an array seldom make it do. With a
 * step every MiB, as before, a call that made two large arrays and dropped them saw two
 * steps while its first was alive, which then stayed until a full collection (each call's
 * memory mapped anew by the pool, 0.13 ms for 128 + 64 MiB on an H200, and held). So the
 * steps come as Lua's own would: after as many bytes as the arrays held after the last
 * one (what lives), at least a 512th of the device's memory (between 1 MiB and 1 GiB: 275
 * MiB on an H200) and at most a sixteenth (the spare memory the pool keeps: host/cuda/
 * memory.c); a temporary then dies young. And a full collection comes after as many bytes
 * as lived after the last, at least a sixteenth of the device's memory, for the arrays that
 * grew old while a loop held them and were then dropped. */
static size_t gc_pending;      /* bytes allocated since the last step and not freed since */
static size_t gc_since_full;   /* bytes allocated since the last full collection, not freed */
static size_t gc_floor, gc_sixteenth, gc_step_every, gc_full_every;

static size_t held_now(void) {
  size_t n = 0;
  for (int d = 0; d < GPU_MAX_DEVICES; d++) n += held[d];
  return n;
}

static size_t clamp_size(size_t v, size_t lo, size_t hi) { return v < lo ? lo : v > hi ? hi : v; }

void gc_due(lua_State *L) {
  if (gc_floor == 0) {   /* sized once, by the first device that allocates */
    size_t f = 0, t = 0;
    if (backend_get()->mem_info(&f, &t).code != 0 || t == 0) t = (size_t)1 << 30;
    gc_floor = clamp_size(t / 512, (size_t)1 << 20, (size_t)1 << 30);
    gc_sixteenth = t / 16 > gc_floor ? t / 16 : gc_floor;
    gc_step_every = gc_floor;
    gc_full_every = gc_sixteenth;
  }
  if (gc_since_full >= gc_full_every) {
    gc_since_full = gc_pending = 0;
    lua_gc(L, LUA_GCCOLLECT, 0);
    size_t lives = held_now();
    gc_full_every = lives > gc_sixteenth ? lives : gc_sixteenth;
    gc_step_every = clamp_size(lives, gc_floor, gc_sixteenth);
  } else if (gc_pending >= gc_step_every) {
    size_t k = gc_pending / 1024;
    gc_pending = 0;
    lua_gc(L, LUA_GCSTEP, (int)(k > (1u << 30) ? (1u << 30) : k));
    gc_step_every = clamp_size(held_now(), gc_floor, gc_sixteenth);
  }
}

void gc_account(lua_State *L, size_t bytes) {
  (void)L;
  gc_pending += bytes;
  gc_since_full += bytes;
}

void gc_release(size_t bytes) {
  gc_pending -= bytes < gc_pending ? bytes : gc_pending;
  gc_since_full -= bytes < gc_since_full ? bytes : gc_since_full;
}

/* ---- another device current for a piece of work (device_enter, device_call): the one
 * before is current again at once when it ends or raises, not by a to-be-closed slot, which
 * Lua closes in a coroutine an error ended only at coroutine.close. device_call runs f(L, ud)
 * protected, the whole stack its arguments (the caller's indices), its results then the
 * stack (f returns lua_gettop(L) where its caller goes on with it) ---- */
int device_enter(lua_State *L, int dev) {
  int cur = backend_get()->current_device();
  if (cur == dev) return -1;
  if (graph_capturing)   /* (a copy of its arrays' device: CUDA queued it on cur's capture) */
    graph_refuse(L, "work on device %d cannot be recorded in a graph of device %d, whose replays run on "
                 "device %d: record it in a graph of its own, with device %d current", dev, cur, cur, dev);
  GPU_CHECK(L, backend_get()->use_device(dev));
  return cur;
}

GpuResult device_leave(int was) { return was >= 0 ? backend_get()->use_device(was) : GPU_OK; }

/* device_call's message handler: C called from C raises without "file:line: ": the user's */
static int call_where(lua_State *L) {
  lua_Debug ar;
  if (lua_type(L, 1) == LUA_TSTRING && lua_getstack(L, 1, &ar) && lua_getinfo(L, "S", &ar) &&
      *ar.what == 'C' && lua_getstack(L, 2, &ar) && lua_getinfo(L, "l", &ar) && ar.currentline <= 0)
    lua_pushfstring(L, "%s%s", lua_tostring(L, lua_upvalueindex(1)), lua_tostring(L, 1));
  return 1;
}

typedef struct Work { int (*f)(lua_State *L, void *ud); void *ud; } Work;
static int work_run(lua_State *L) {
  Work *w = lua_touserdata(L, lua_upvalueindex(1));
  return w->f(L, w->ud);
}

int device_call(lua_State *L, int dev, int (*f)(lua_State *L, void *ud), void *ud) {
  if (backend_get()->current_device() == dev) return f(L, ud);
  int n = lua_gettop(L);
  Work w = {f, ud};
  luaL_where(L, 1);
  lua_pushcclosure(L, call_where, 1);
  lua_pushlightuserdata(L, &w);
  lua_pushcclosure(L, work_run, 1);
  lua_rotate(L, 1, 2);   /* the handler and the work under the stack, its arguments */
  int was = device_enter(L, dev);   /* (raises before the switch) */
  int status = lua_pcall(L, n, LUA_MULTRET, 1);
  GpuResult back = device_leave(was);
  lua_remove(L, 1);
  if (status != LUA_OK) lua_error(L);
  GPU_CHECK(L, back);
  return lua_gettop(L);
}

int device_ordinal(lua_State *L, int idx) {
  if (lua_istable(L, idx)) {
    lua_getfield(L, idx, "id");
    lua_replace(L, idx);
  }
  return check_ordinal(L, idx);
}

/* gpu.backend(): "cuda" or "cpu", the backend that runs this process's kernels */
static int gpu_backend(lua_State *L) {
  lua_pushstring(L, backend_get()->name);
  return 1;
}

static const luaL_Reg device_funcs[] = {
  {"backend", gpu_backend},
  {"device", gpu_device},
  {"_device_id", gpu_device_id},
  {"device_count", gpu_device_count},
  {"synchronize", gpu_synchronize},
  {"mem_info", gpu_mem_info},
  {"empty_cache", gpu_empty_cache},
  {NULL, NULL}
};

static const luaL_Reg device_methods[] = {
  {"use", device_use},
  {"synchronize", device_synchronize},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void device_open(lua_State *L) {
  luaL_setfuncs(L, device_funcs, 0);
  luaL_newmetatable(L, GPU_DEVICE_T);
  luaL_newlib(L, device_methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, device_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
}
