/* npz.c: NumPy's .npz files (a zip of .npy files, stored uncompressed as numpy.savez
 * writes them) through libzip (Debian's libzip4), opened with dlopen at the first use so
 * that gpuhost starts without it: gpu._npz_write(path, {name = h, ...}) and
 * gpu._npz_read(path) -> {name = h, ...}, h contiguous host arrays (lua/npy.lua makes them
 * so). libzip writes to a temporary file and renames it at zip_close, so a failure never
 * leaves half a file under path; an archive an error leaves open is discarded by the
 * collector. Declared here, not from zip.h: the few entry points and
 * constants gpuhost calls, as libzip 1.x's stable ABI has them. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

typedef struct zip zip_t;
typedef struct zip_file zip_file_t;
typedef struct zip_source zip_source_t;
enum { ZIP_CREATE = 1, ZIP_TRUNCATE = 8, ZIP_RDONLY = 16, ZIP_CM_STORE = 0 };

static struct {
  int tried;
  zip_t *(*open)(const char *, int, int *);
  zip_source_t *(*source_buffer)(zip_t *, const void *, uint64_t, int);
  int64_t (*file_add)(zip_t *, const char *, zip_source_t *, uint32_t);
  int (*set_file_compression)(zip_t *, uint64_t, int32_t, uint32_t);
  void (*source_free)(zip_source_t *);
  int (*close)(zip_t *);
  void (*discard)(zip_t *);
  int64_t (*get_num_entries)(zip_t *, uint32_t);
  const char *(*get_name)(zip_t *, uint64_t, uint32_t);
  zip_file_t *(*fopen_index)(zip_t *, uint64_t, uint32_t);
  int64_t (*fread)(zip_file_t *, void *, uint64_t);
  int (*fclose)(zip_file_t *);
  const char *(*strerror)(zip_t *);
} z;

static int box_gc(lua_State *L) {
  zip_t **box = lua_touserdata(L, 1);
  if (*box) z.discard(*box);
  *box = NULL;
  return 0;
}

/* libzip, or an error naming it and the package that has it. */
static void zip_load(lua_State *L) {
  if (z.open) return;
  void *lib = dlopen("libzip.so.4", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) lib = dlopen("libzip.so.5", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    luaL_error(L, ".npz files need libzip (libzip.so.4: Debian's and Ubuntu's package libzip4), "
               "which could not be loaded");
#define SYM(field, name) *(void **)&z.field = dlsym(lib, name); \
  if (z.field == NULL) luaL_error(L, "libzip has no %s: it is too old", name);
  SYM(source_buffer, "zip_source_buffer") SYM(file_add, "zip_file_add")
  SYM(set_file_compression, "zip_set_file_compression") SYM(source_free, "zip_source_free")
  SYM(close, "zip_close") SYM(discard, "zip_discard") SYM(get_num_entries, "zip_get_num_entries")
  SYM(get_name, "zip_get_name") SYM(fopen_index, "zip_fopen_index") SYM(fread, "zip_fread")
  SYM(fclose, "zip_fclose") SYM(strerror, "zip_strerror") SYM(open, "zip_open")
#undef SYM
}

/* [-0, +1, e] An open zip archive, closed (discarded) by the collector if an error leaves
 * it behind; *box is set to NULL by whoever closes it first. */
static zip_t **push_box(lua_State *L) {
  zip_t **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = NULL;
  if (luaL_newmetatable(L, "gpu.zipfile")) {
    lua_pushcfunction(L, box_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return box;
}

/* [-0, +1, m] One member: the .npy bytes of host array h. */
static void push_npy(lua_State *L, HostArray *h) {
  luaL_Buffer b;
  npy_push_header(L, h);
  luaL_buffinit(L, &b);
  lua_insert(L, -2);
  luaL_addvalue(&b);
  luaL_addlstring(&b, h->data, h->nbytes);
  luaL_pushresult(&b);
}

/* gpu._npz_write(path, arrays): arrays maps names to contiguous host arrays */
static int npz_write(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  zip_load(L);
  lua_settop(L, 2);
  lua_newtable(L);                 /* 3: the members' bytes, alive until zip_close */
  zip_t **box = push_box(L);       /* 4 */
  int err = 0;
  zip_t *zf = *box = z.open(path, ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (zf == NULL) return luaL_error(L, "cannot write '%s': libzip error %d", path, err);
  for (lua_pushnil(L); lua_next(L, 2); lua_pop(L, 1)) {
    HostArray *h = hostarray_test(L, -1);
    if (lua_type(L, -2) != LUA_TSTRING || h == NULL || !h->alive || !h->contiguous)
      return luaL_error(L, "cannot write '%s': every entry must be a name and an array", path);
    lua_pushfstring(L, "%s.npy", lua_tostring(L, -2));
    push_npy(L, h);
    size_t n;
    const char *bytes = lua_tolstring(L, -1, &n);
    zip_source_t *src = z.source_buffer(zf, bytes, n, 0);
    int64_t at = src ? z.file_add(zf, lua_tostring(L, -2), src, 0) : -1;
    if (at < 0 || z.set_file_compression(zf, (uint64_t)at, ZIP_CM_STORE, 0) != 0) {
      if (src && at < 0) z.source_free(src);
      return luaL_error(L, "cannot write '%s': %s", path, z.strerror(zf));
    }
    lua_rawseti(L, 3, (lua_Integer)lua_rawlen(L, 3) + 1);   /* keep the bytes */
    lua_pop(L, 1);                                          /* the member's name */
  }
  if (z.close(zf) != 0)   /* on failure zf is still open: the box discards it */
    return luaL_error(L, "cannot write '%s': %s", path, z.strerror(zf));
  *box = NULL;
  return 0;
}

/* [-0, +1, e] The whole member i of zf as a string; NULL (nothing pushed) when it cannot
 * be read. */
static const char *read_member(lua_State *L, zip_t *zf, uint64_t i, size_t *n) {
  zip_file_t *f = z.fopen_index(zf, i, 0);
  if (f == NULL) return NULL;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  int64_t got;
  char chunk[65536];
  while ((got = z.fread(f, chunk, sizeof chunk)) > 0) luaL_addlstring(&b, chunk, (size_t)got);
  z.fclose(f);
  luaL_pushresult(&b);
  if (got < 0) { lua_pop(L, 1); return NULL; }
  return lua_tolstring(L, -1, n);
}

/* [-0, +1, e] The host array in the .npy bytes at p (n of them), named for errors. */
static void push_member_array(lua_State *L, const char *p, size_t n, const char *path,
                              const char *name) {
  NpyHeader h;
  size_t at;
  char buf[NPY_WHY];
  const char *why = npy_parse(p, n, &h, &at, buf);
  if (why) luaL_error(L, "cannot read '%s' in '%s': %s", name, path, why);
  GpuShape s = h.shape;
  if (h.fortran)
    for (int i = 0; i < s.ndim / 2; i++) {
      int64_t t = s.dim[i]; s.dim[i] = s.dim[s.ndim - 1 - i]; s.dim[s.ndim - 1 - i] = t;
    }
  HostArray *a = hostarray_new(L, &s, h.dtype);
  if (a->nbytes) memcpy(a->data, p + at, a->nbytes);
  if (h.swap) {   /* each part of a complex on its own */
    size_t parts = dtypes[h.dtype].kind == 'c' ? 2 : 1;
    npy_swap(a->data, (size_t)s.size * parts, dtypes[h.dtype].size / parts);
  }
  if (h.fortran) {   /* as lua/npy.lua does for a .npy: the transpose is the array */
    lua_getfield(L, -1, "transpose");
    lua_insert(L, -2);
    lua_call(L, 1, 1);
  }
}

/* gpu._npz_read(path): {name = host array, ...} */
static int npz_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  FILE *probe = fopen(path, "rb");   /* a missing file is named as such, libzip or not */
  if (probe == NULL) return luaL_error(L, "cannot read '%s': %s", path, strerror(errno));
  fclose(probe);
  zip_load(L);
  zip_t **box = push_box(L);
  int err = 0;
  zip_t *zf = *box = z.open(path, ZIP_RDONLY, &err);
  if (zf == NULL)
    return luaL_error(L, "cannot read '%s': not a zip file, or not there (libzip error %d)", path, err);
  lua_newtable(L);
  int64_t count = z.get_num_entries(zf, 0);
  for (int64_t i = 0; i < count; i++) {
    const char *name = z.get_name(zf, (uint64_t)i, 0);
    size_t len = name ? strlen(name) : 0, n;
    if (len < 5 || strcmp(name + len - 4, ".npy") != 0) continue;   /* not an array */
    lua_pushlstring(L, name, len - 4);
    const char *p = read_member(L, zf, (uint64_t)i, &n);
    if (p == NULL) return luaL_error(L, "cannot read '%s': member %s", path, name);
    push_member_array(L, p, n, path, name);
    lua_remove(L, -2);            /* the bytes */
    lua_rawset(L, -3);
  }
  z.discard(zf);
  *box = NULL;
  return 1;
}

static const luaL_Reg npz_funcs[] = {
  {"_npz_write", npz_write},
  {"_npz_read", npz_read},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void npz_open(lua_State *L) { luaL_setfuncs(L, npz_funcs, 0); }
