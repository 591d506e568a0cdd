/* program.c: programs ("gpu.program"): one source with its options and kernel names,
 * compiled at first use by the backend for the current device, or taken from the disk
 * cache (cache.c), and loaded as a module on each device that launches one of its
 * kernels. lua/gpu.lua keeps programs per source and options; kernel.c asks a program for
 * its functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gpu.h"
#include "cache.h"

struct GpuProgram {
  int nnames;
  int debug;                          /* compiled with GPUHOST_DEBUG: bounds errors reported */
  int finalized;                      /* __gc ran: its modules are unloaded (see program_gc) */
  int check;                          /* checked with NVRTC on the CPU backend (backend.h) */
  CUmodule module[GPU_MAX_DEVICES];
  CUfunction *functions[GPU_MAX_DEVICES];   /* each looked up at its first use */
  char **lowered;                     /* the kernels' names in the module (the first image's) */
  CUdeviceptr oob[GPU_MAX_DEVICES];   /* the kernel header's __gpuhost_oob record */
};

GpuProgram *program_check(lua_State *L, int idx) {
  return (GpuProgram *)luaL_checkudata(L, idx, GPU_PROGRAM_T);
}

int program_debug(const GpuProgram *p) { return p->debug; }
int program_finalized(const GpuProgram *p) { return p->finalized; }
int program_nnames(const GpuProgram *p) { return p->nnames; }
CUdeviceptr program_oob(const GpuProgram *p, int device) { return p->oob[device]; }

/* gpu._program(spec): spec = {source=, names={...}, options={...}, debug=, check=, prefix=}; the
 * spec is kept as the program's user value. */
static int gpu_program(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  GpuProgram *p = lua_newuserdatauv(L, sizeof *p, 1);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, GPU_PROGRAM_T);
  if (lua_getfield(L, 1, "names") != LUA_TTABLE)
    return luaL_argerror(L, 1, "names must be a table of kernel names");
  lua_Integer n = luaL_len(L, -1);
  if (n < 0 || n > 1000000) return luaL_error(L, "a program has at most 1000000 kernels");
  p->nnames = (int)n;
  lua_pop(L, 1);
  lua_getfield(L, 1, "debug");
  p->debug = lua_toboolean(L, -1);
  lua_getfield(L, 1, "check");
  p->check = lua_isnil(L, -1) || lua_toboolean(L, -1);
  lua_pop(L, 2);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* __gc unloads the program's modules. Lua runs finalizers newest first, at lua_close too,
 * so a finalizer of an object made before the program may still launch one of its
 * kernels after this: the program stays finalized, and such a launch raises (kernel.c
 * asks program_finalized before it uses a function it kept; the operations' caches, in
 * ufunc.c and reduce.c, ask again once program_unloads moves). */
/* While graphs live, a finalized program's modules wait in `later` for the last graph to
 * go: a graph keeps the owners of the code it launched, but a finalizer may launch a graph
 * after theirs have run (they are collected with it, as at exit), and its replay must not
 * run unloaded code. */
typedef struct Unload { struct Unload *next; CUmodule module; } Unload;
static Unload *later;

static void unload(lua_State *L, CUmodule m) {
  Unload *u = graph_live() > 0 ? malloc(sizeof *u) : NULL;
  if (u) {
    *u = (Unload){later, m};
    later = u;
    return;
  }
  GpuResult r = backend_get()->module_unload(m);
  if (r.code) errors_warn(L, r, "unloading a kernel module");
}

void program_graphs_gone(lua_State *L) {
  while (later) {
    Unload *u = later;
    later = u->next;
    unload(L, u->module);
    free(u);
  }
}

unsigned program_unloads;

static int program_gc(lua_State *L) {
  GpuProgram *p = program_check(L, 1);
  p->finalized = 1;
  program_unloads++;   /* functions kept elsewhere (ufunc.c, reduce.c) are asked for again */
  for (int d = 0; d < GPU_MAX_DEVICES; d++) {
    if (p->module[d]) unload(L, p->module[d]);
    free(p->functions[d]);
    p->module[d] = NULL;
    p->functions[d] = NULL;
  }
  if (p->lowered)
    for (int i = 0; i < p->nnames; i++) free(p->lowered[i]);
  free(p->lowered);
  p->lowered = NULL;
  return 0;
}

/* What a compile takes from the spec. Every string it points to is on the Lua stack. */
typedef struct Spec {
  const char *source, *prefix;
  const char *key;              /* a recipe that names the program instead of its source, or NULL */
  int source_fn;                /* with a key: the stack index of the function that writes the source (0: given) */
  int nopts, nnames;
  const char **opts, **names;   /* in userdata on the stack */
} Spec;

/* [-0, +(n+2), e] Pushes an array of pointers (a userdata), list field `field` of the
 * table at spec, and its n strings; returns the array, NULL-terminated, and n. */
static const char **push_strings(lua_State *L, int spec, const char *field, int *count) {
  lua_getfield(L, spec, field);
  int t = lua_gettop(L);
  lua_Integer n = lua_istable(L, t) ? luaL_len(L, t) : 0;
  if (n < 0 || n > 1000000) luaL_error(L, "too many %s", field);
  luaL_checkstack(L, (int)n + 2, "too many kernel names or options");
  const char **list = lua_newuserdatauv(L, sizeof(char *) * ((size_t)n + 1), 0);
  lua_insert(L, t);            /* under the table and its strings */
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_geti(L, t + 1, i) != LUA_TSTRING) luaL_error(L, "%s[%I] must be a string", field, i);
    list[i - 1] = lua_tostring(L, -1);
  }
  list[n] = NULL;
  *count = (int)n;
  return list;
}

/* [-0, +k, e] Reads program p's spec (at idx) into *s; the strings stay on the stack. */
static void spec_read(lua_State *L, int idx, Spec *s) {
  lua_getiuservalue(L, idx, 1);
  int spec = lua_gettop(L);
  int kt = lua_getfield(L, spec, "key");
  s->key = kt == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  int st = lua_getfield(L, spec, "source");
  s->source_fn = 0;
  if (st == LUA_TFUNCTION && s->key) s->source_fn = lua_gettop(L);
  else if (st != LUA_TSTRING)
    luaL_error(L, "a program's source must be a string, got %s", luaL_typename(L, -1));
  s->source = s->source_fn ? NULL : lua_tostring(L, -1);
  lua_getfield(L, spec, "prefix");
  s->prefix = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
  s->opts = push_strings(L, spec, "options", &s->nopts);
  s->names = push_strings(L, spec, "names", &s->nnames);
}

/* Adds n strings to b, each after its length: no two lists make the same text (options
 * {"-DA=1\n-DB"} and {"-DA=1", "-DB"} did, and the second's entry was loaded for the first). */
static void add_list(luaL_Buffer *b, const char *const *list, int n) {
  char len[24];
  for (int i = 0; i < n; i++) {
    snprintf(len, sizeof len, "%zu:", strlen(list[i]));
    luaL_addstring(b, len);
    luaL_addstring(b, list[i]);
  }
}

/* [-0, +1, m] The cache key: everything the compiled code depends on (the #line prefix
 * too: an assert reports it, and one script's entry named its file and line in another's),
 * and the user, so that no two users of one installation share an entry's name. A program
 * the module writes itself (an elementwise or reduction kernel) may be named by its recipe
 * (the operation, the operands' dtypes, the layouts) with this build's embedded files,
 * which write the source from it: then a cached program is loaded without writing its
 * source. */
static void push_key(lua_State *L, const GpuBackend *be, const Spec *s, const char *arch,
                     const char *compiler, int debug, int check) {
  const EmbeddedFile *hdr = embedded_find("kernels/gpuhost.cuh");
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  lua_pushfstring(L, "gpuhost-cache 5\nuid %I\n%s\n%s\n%s\n%s%s%s\n%d options %d names\n",
                  (lua_Integer)geteuid(), be->name, compiler, arch, debug ? "debug" : "",
                  check ? " check by " : "", check ? backend_check_id() : "", s->nopts, s->nnames);
  luaL_addvalue(&b);
  add_list(&b, s->opts, s->nopts);
  add_list(&b, s->names, s->nnames);
  add_list(&b, &s->prefix, 1);   /* the #line compiled before the source (assert names it) */
  luaL_addlstring(&b, hdr->data, hdr->size);
  luaL_addchar(&b, '\0');
  if (s->key) {
    char id[17];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)embedded_id());
    lua_pushfstring(L, "recipe of build %s\n", id);
    luaL_addvalue(&b);
    luaL_addstring(&b, s->key);
  } else {
    luaL_addstring(&b, s->source);
  }
  luaL_pushresult(&b);
}

/* [-0, +1, e] Raises r with the log of img (freed first). */
static void compile_failed(lua_State *L, GpuResult r, GpuImage *img, int nnames) {
  lua_pushstring(L, img->log ? img->log : "");
  image_free(img, nnames);
  errors_raise(L, r, lua_tostring(L, -1));
}

/* [-0, +1, e] Compiles s into *img, after NVRTC's check when asked (check); raises with
 * the compiler's log on failure. */
static void compile_spec(lua_State *L, const Spec *s, const char *arch, int debug, int check,
                         GpuImage *img) {
  const EmbeddedFile *hdr = embedded_find("kernels/gpuhost.cuh");
  lua_pushfstring(L, "%s%s", s->prefix, s->source);
  GpuCompileJob job = {
    .source = lua_tostring(L, -1), .progname = s->nnames > 0 ? s->names[0] : "kernel",
    .header = hdr->data, .header_size = hdr->size, .nopts = s->nopts, .opts = s->opts,
    .nnames = s->nnames, .names = s->names, .debug = debug, .arch = arch,
  };
  GpuResult r = check ? backend_check_compile(&job, img) : GPU_OK;
  if (r.code) compile_failed(L, r, img, s->nnames);
  r = backend_get()->compile(&job, img);
  if (r.code) compile_failed(L, r, img, s->nnames);   /* frees, then raises (no return) */
}

/* [-0, +0, e] A setting that is neither unset, empty, 0 nor 1 raises GPUHOST_BAD_SETTING
 * (no position: the script's line is not what is wrong), what says what 1 does. */
static void setting_01(lua_State *L, const char *name, const char *what) {
  const char *v = getenv(name);
  if (v == NULL || *v == '\0' || strcmp(v, "0") == 0 || strcmp(v, "1") == 0) return;
  const char *msg = lua_pushfstring(L, "%s must be 1 (%s) or 0, not '%s'", name, what, v);
  errors_raise(L, (GpuResult){GPU_ERR_BAD_SETTING, GPU_SRC_HOST, name, msg, NULL}, NULL);
}

/* [-0, +0, e] Compiles the program at idx for the backend's current target, or takes it
 * from the disk cache. Fills *img (free with image_free) and returns where the code came
 * from ("disk" or the compiler's name). Raises on failure. */
static const char *program_build(lua_State *L, int idx, GpuImage *img) {
  const GpuBackend *be = backend_get();
  GpuProgram *p = program_check(L, idx);
  memset(img, 0, sizeof *img);   /* whatever raises below may free it */
  int top = lua_gettop(L);
  Spec s;
  spec_read(L, idx, &s);
  char arch[64], compiler[4200];
  GPU_CHECK(L, be->arch(arch, sizeof arch));
  GPU_CHECK(L, be->compiler_id(compiler, sizeof compiler));
  const char *why = NULL;
  int check = p->check ? backend_check_enabled(&why) : 0;
  if (check < 0) setting_01(L, "GPUHOST_CHECK", "the CPU backend checks kernels with NVRTC");
  /* read by the CUDA backend's tracing (cuda/nvtx.c), which has no way to refuse it */
  setting_01(L, "GPUHOST_TRACE", "launches and copies are named for Nsight");
  push_key(L, be, &s, arch, compiler, p->debug, check);
  size_t keylen;
  const char *key = lua_tolstring(L, -1, &keylen);
  CacheEntry e;
  const char *origin = "disk";
  if (cache_load(key, keylen, s.nnames, &e)) {
    img->data = e.cubin;
    img->size = e.cubin_size;
    img->lowered = e.lowered;
  } else {
    if (s.source_fn) {   /* named by its recipe: the source is written now */
      lua_pushvalue(L, s.source_fn);
      lua_call(L, 0, 1);
      if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "a program's source function must return a string, got %s", luaL_typename(L, -1));
      s.source = lua_tostring(L, -1);
    }
    compile_spec(L, &s, arch, p->debug, check, img);
    cache_store(key, keylen, img->data, img->size, img->lowered, s.nnames);
    origin = be->compiler;
  }
  lua_settop(L, top);
  return origin;
}

/* Loads img on the current device as program p's module there (dev); raises on failure,
 * with img freed. The program keeps the first image's kernel names; each kernel is looked
 * up at its first use (program_function), since a lookup loads the kernel's code on the
 * device (CUDA's lazy loading): the first a + b of a process loads one of the seven
 * kernels of its program, not all of them. */
static void program_load(lua_State *L, GpuProgram *p, GpuImage *img, int dev) {
  const GpuBackend *be = backend_get();
  CUmodule m;
  GpuResult r = be->module_load(&m, img);
  if (r.code) { image_free(img, p->nnames); errors_raise(L, r, NULL); }
  CUfunction *fns = calloc((size_t)p->nnames + 1, sizeof *fns);
  if (fns == NULL) r = GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "calloc");
  if (r.code == 0 && p->debug) {
    size_t n;
    r = be->module_global(&p->oob[dev], &n, m, "__gpuhost_oob");
  }
  if (r.code == 0 && p->lowered == NULL) {   /* the names stay with the program */
    p->lowered = img->lowered;
    img->lowered = NULL;
  }
  image_free(img, p->nnames);
  if (r.code) { free(fns); be->module_unload(m); errors_raise(L, r, NULL); }
  p->module[dev] = m;
  p->functions[dev] = fns;
}

CUfunction program_function(lua_State *L, int idx, int index, const char **origin) {
  const GpuBackend *be = backend_get();
  GpuProgram *p = program_check(L, idx);
  *origin = "memory";
  if (p->finalized)
    luaL_error(L, "kernel launched after its program was finalized (from a finalizer that "
               "ran after the program's: at exit, or in the collection that freed both)");
  GPU_CHECK(L, be->ensure_context());
  int dev = be->current_device();
  if (dev < 0 || dev >= GPU_MAX_DEVICES)
    luaL_error(L, "device %d: gpuhost handles %d devices", dev, GPU_MAX_DEVICES);
  if (p->functions[dev] == NULL) {
    GpuImage img = {0};
    *origin = program_build(L, idx, &img);
    program_load(L, p, &img, dev);
  }
  CUfunction *f = &p->functions[dev][index];
  if (*f == NULL && index < p->nnames)
    GPU_CHECK(L, be->module_function(f, p->module[dev], p->lowered[index]));
  return *f;
}

/* p:compile(): compiles for the current device, or (CUDA without a GPU) for a default
 * architecture, so compile errors show anywhere. Returns the target and where the code
 * came from: "memory" (this process had it), "disk" (the cache), "nvrtc" or "c++". */
int program_compile(lua_State *L) {
  GpuProgram *p = program_check(L, 1);
  const GpuBackend *be = backend_get();
  int n;
  const char *origin;
  char arch[64];
  if (be->device_count(&n).code == 0 && n > 0) {
    program_function(L, 1, 0, &origin);
  } else {
    GpuImage img = {0};
    origin = program_build(L, 1, &img);
    image_free(&img, p->nnames);
  }
  GPU_CHECK(L, be->arch(arch, sizeof arch));
  lua_pushstring(L, arch);
  lua_pushstring(L, origin);
  return 2;
}

static const luaL_Reg program_funcs[] = {
  {"_program", gpu_program},
  {NULL, NULL}
};

static const luaL_Reg program_meta[] = {
  {"__gc", program_gc},
  {"compile", program_compile},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void program_open(lua_State *L) {
  luaL_setfuncs(L, program_funcs, 0);
  luaL_newmetatable(L, GPU_PROGRAM_T);
  luaL_setfuncs(L, program_meta, 0);
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
