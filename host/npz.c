/* npz.c: NumPy's .npz files (a zip of .npy files, stored as numpy.savez writes them or
 * deflated as numpy.savez_compressed does) through libzip (Debian's libzip4), opened with dlopen at the first use so
 * that gpuhost starts without it: gpu._npz_write(path, {name = h, ...}) and
 * gpu._npz_write(path, arrays, true) deflated, gpu._npz_read(path) -> {name = h, ...}, h contiguous host arrays (lua/npy.lua makes them
 * so). The archive is made in memory (a libzip buffer source) and written as gpu.save
 * writes a .npy (npy_replace: a temporary file beside path, renamed, so a failure never
 * leaves half a file under path); an archive an error leaves open is discarded by the
 * collector. Declared here, not from zip.h: the few entry points and
 * constants gpuhost calls, as libzip 1.x's stable ABI has them. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "gpu.h"

typedef struct zip zip_t;
typedef struct zip_file zip_file_t;
typedef struct zip_source zip_source_t;
typedef struct zip_error { int zip_err, sys_err; char *str; } zip_error_t;
typedef struct zip_stat {
  uint64_t valid;
  const char *name;
  uint64_t index, size, comp_size;
  time_t mtime;
  uint32_t crc;
  uint16_t comp_method, encryption_method;
  uint32_t flags;
} zip_stat_t;
enum { ZIP_CREATE = 1, ZIP_TRUNCATE = 8, ZIP_RDONLY = 16, ZIP_CM_STORE = 0, ZIP_CM_DEFLATE = 8, ZIP_ER_NOZIP = 19,
       ZIP_STAT_SIZE = 4 };

static struct {
  int tried;
  zip_source_t *(*source_buffer_create)(const void *, uint64_t, int, zip_error_t *);
  zip_t *(*open_from_source)(zip_source_t *, int, zip_error_t *);
  void (*source_keep)(zip_source_t *);
  int (*source_open)(zip_source_t *);
  int (*source_stat)(zip_source_t *, zip_stat_t *);
  int64_t (*source_read)(zip_source_t *, void *, uint64_t);
  int (*source_close)(zip_source_t *);
  void (*error_init)(zip_error_t *);
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
  zip_t *(*fdopen)(int, int, int *);
  int (*stat_index)(zip_t *, uint64_t, uint32_t, zip_stat_t *);
  const char *(*file_strerror)(zip_file_t *);
  void (*error_init_with_code)(zip_error_t *, int);
  const char *(*error_strerror)(zip_error_t *);
  void (*error_fini)(zip_error_t *);
} z;

/* An open archive, the member being read and the buffer an archive is written into (a
 * reference of gpuhost's own), closed by the collector if an error leaves them open;
 * whoever closes one first sets it to NULL. */
typedef struct ZipBox { zip_t *zip; zip_file_t *file; zip_source_t *buf; } ZipBox;

static int box_gc(lua_State *L) {
  ZipBox *box = lua_touserdata(L, 1);
  if (box->file) z.fclose(box->file);
  if (box->zip) z.discard(box->zip);
  if (box->buf) z.source_free(box->buf);
  box->file = NULL;
  box->zip = NULL;
  box->buf = NULL;
  return 0;
}

/* libzip, or an error naming it and the package that has it. */
static void zip_load(lua_State *L) {
  if (z.open_from_source) return;
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
  SYM(fclose, "zip_fclose") SYM(strerror, "zip_strerror") SYM(fdopen, "zip_fdopen")
  SYM(stat_index, "zip_stat_index") SYM(file_strerror, "zip_file_strerror")
  SYM(error_init_with_code, "zip_error_init_with_code") SYM(error_strerror, "zip_error_strerror")
  SYM(error_fini, "zip_error_fini") SYM(source_buffer_create, "zip_source_buffer_create")
  SYM(source_keep, "zip_source_keep") SYM(source_open, "zip_source_open")
  SYM(source_stat, "zip_source_stat") SYM(source_read, "zip_source_read")
  SYM(source_close, "zip_source_close") SYM(error_init, "zip_error_init")
  SYM(open_from_source, "zip_open_from_source")   /* last: loaded means all are */
#undef SYM
}

/* [-0, +1, m] An empty ZipBox. */
static ZipBox *push_box(lua_State *L) {
  ZipBox *box = lua_newuserdatauv(L, sizeof *box, 0);
  box->zip = NULL;
  box->file = NULL;
  box->buf = NULL;
  if (luaL_newmetatable(L, "gpu.zipfile")) {
    lua_pushcfunction(L, box_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return box;
}

/* [-0, +1, m] libzip's words for the error code zip_open gave. */
static const char *open_error(lua_State *L, int code) {
  zip_error_t e;
  z.error_init_with_code(&e, code);
  const char *s = lua_pushfstring(L, code == ZIP_ER_NOZIP ? "it is not a zip file (libzip: %s)"
                                                          : "libzip: %s", z.error_strerror(&e));
  z.error_fini(&e);
  return s;
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

/* An archive of no members: its end of central directory record alone, as numpy.savez
 * writes it. libzip makes none of it (and removes the one under path). */
static const char EMPTY_ZIP[22] = "PK\5\6";

/* Raises "cannot write '<shown>': libzip: <e's words>", e freed first. */
static int zip_fail(lua_State *L, const char *shown, zip_error_t *e) {
  lua_pushfstring(L, "cannot write '%s': libzip: %s", shown, z.error_strerror(e));
  z.error_fini(e);
  return lua_error(L);
}

/* [-0, +0, e] A new archive in box: an empty buffer (box->buf, gpuhost's reference) that
 * zip_close writes the archive into. */
static zip_t *open_buffer(lua_State *L, ZipBox *box, const char *shown) {
  zip_error_t e;
  z.error_init(&e);
  if ((box->buf = z.source_buffer_create(NULL, 0, 0, &e)) == NULL) zip_fail(L, shown, &e);
  z.source_keep(box->buf);   /* a second reference, the archive's */
  if ((box->zip = z.open_from_source(box->buf, ZIP_CREATE | ZIP_TRUNCATE, &e)) == NULL) {
    z.source_free(box->buf);   /* the archive's, which it did not take */
    zip_fail(L, shown, &e);
  }
  z.error_fini(&e);
  return box->zip;
}

/* [-0, +1, e] The bytes zip_close wrote into box->buf, as a userdata; *n their count. */
static const void *push_buffer(lua_State *L, ZipBox *box, const char *shown, size_t *n) {
  zip_stat_t st;
  if (z.source_stat(box->buf, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) || z.source_open(box->buf) != 0)
    luaL_error(L, "cannot write '%s': libzip could not read back the archive it made", shown);
  void *bytes = lua_newuserdatauv(L, (size_t)st.size, 0);
  int64_t got = z.source_read(box->buf, bytes, st.size);
  z.source_close(box->buf);
  if (got < 0 || (uint64_t)got != st.size)
    luaL_error(L, "cannot write '%s': libzip could not read back the archive it made", shown);
  *n = (size_t)st.size;
  return bytes;
}

/* [-0, +1, e] The .npz of the arrays at index 2 (each member's bytes kept in the table at
 * index 3 until zip_close), made in memory through box. */
static const void *push_archive(lua_State *L, ZipBox *box, int method, const char *shown, size_t *size) {
  zip_t *zf = open_buffer(L, box, shown);
  for (lua_pushnil(L); lua_next(L, 2); lua_pop(L, 1)) {
    HostArray *h = hostarray_test(L, -1);
    if (lua_type(L, -2) != LUA_TSTRING || h == NULL || !h->alive || !h->contiguous)
      luaL_error(L, "cannot write '%s': every entry must be a name and an array", shown);
    lua_pushfstring(L, "%s.npy", lua_tostring(L, -2));
    push_npy(L, h);
    size_t n;
    const char *bytes = lua_tolstring(L, -1, &n);
    zip_source_t *src = z.source_buffer(zf, bytes, n, 0);
    int64_t at = src ? z.file_add(zf, lua_tostring(L, -2), src, 0) : -1;
    if (at < 0 || z.set_file_compression(zf, (uint64_t)at, method, 0) != 0) {
      if (src && at < 0) z.source_free(src);
      luaL_error(L, "cannot write '%s': %s", shown, z.strerror(zf));
    }
    lua_rawseti(L, 3, (lua_Integer)lua_rawlen(L, 3) + 1);   /* keep the bytes */
    lua_pop(L, 1);                                          /* the member's name */
  }
  if (z.close(zf) != 0)   /* on failure zf is still open: the box discards it */
    luaL_error(L, "cannot write '%s': %s", shown, z.strerror(zf));
  box->zip = NULL;
  return push_buffer(L, box, shown, size);
}

/* gpu._npz_write(path, arrays [, deflate]): arrays maps names to contiguous host arrays */
static int npz_write(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int method = lua_toboolean(L, 3) ? ZIP_CM_DEFLATE : ZIP_CM_STORE;
  zip_load(L);
  lua_settop(L, 2);
  lua_newtable(L);                 /* 3: the members' bytes, alive until zip_close */
  ZipBox *box = push_box(L);       /* 4 */
  const char *shown = path;
  path = npy_target(L, path);   /* 5: a link's target, which the rename replaces */
  if (path == NULL)
    return luaL_error(L, "cannot write '%s': not a regular file or a link to one (gpu.savez writes a new file and "
                      "renames it there)", shown);
  lua_pushnil(L);
  size_t n = sizeof EMPTY_ZIP;
  const void *bytes = EMPTY_ZIP;
  if (lua_next(L, 2)) {
    lua_pop(L, 2);
    bytes = push_archive(L, box, method, shown, &n);
  }
  int err = npy_replace(path, bytes, n, NULL, 0);
  if (err) return luaL_error(L, "cannot write '%s': %s", shown, strerror(err));
  return 0;
}

typedef struct ZipSource { NpySource s; zip_file_t *f; } ZipSource;

static size_t member_read(NpySource *s, void *buf, size_t n) {
  zip_file_t *f = ((ZipSource *)s)->f;
  size_t got = 0;
  while (got < n) {
    int64_t r = z.fread(f, (char *)buf + got, n - got);
    if (r < 0) s->error = z.file_strerror(f);   /* a bad CRC shows at the end, here */
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

/* [-0, +2, e] Member i (name, a .npy) of box->zip: its name less .npy, and its host array.
 * The header comes first, and the size the archive gives for the member must be the header's
 * and its shape's before any data is read: a small deflated member of gigabytes is refused
 * unread, and never more than the shape needs is allocated. */
static void read_member(lua_State *L, ZipBox *box, uint64_t i, const char *name, const char *path) {
  zip_stat_t st;
  int sized = z.stat_index(box->zip, i, 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE) &&
              st.size <= INT64_MAX;
  lua_pushlstring(L, name, strlen(name) - 4);
  const char *who = lua_pushfstring(L, "'%s' in '%s'", name, path);
  if ((box->file = z.fopen_index(box->zip, i, 0)) == NULL)
    luaL_error(L, "cannot read %s: %s", who, z.strerror(box->zip));
  ZipSource src = {{member_read, NULL, who, "the member", sized ? (int64_t)st.size : -1}, box->file};
  int fortran = npy_read_array(L, &src.s);
  z.fclose(box->file);
  box->file = NULL;
  lua_remove(L, -2);   /* who */
  if (fortran) {   /* as lua/npy.lua does for a .npy: the transpose is the array */
    lua_getfield(L, -1, "transpose");
    lua_insert(L, -2);
    lua_call(L, 1, 1);
  }
}

/* gpu._npz_read(path): {name = host array, ...}. The path is opened once, here, so that a
 * missing file and a directory are named as such; a missing file is named before libzip
 * is looked for, where libzip is missing too. */
static int npz_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  struct stat st;
  if (stat(path, &st) != 0) return luaL_error(L, "cannot read '%s': %s", path, strerror(errno));
  zip_load(L);
  ZipBox *box = push_box(L);
  int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
  if (fd < 0 || fstat(fd, &st) != 0) err = errno;
  else if (S_ISDIR(st.st_mode)) err = EISDIR;
  if (err) {
    if (fd >= 0) close(fd);
    return luaL_error(L, "cannot read '%s': %s", path, err == EISDIR ? "it is a directory" : strerror(err));
  }
  if ((box->zip = z.fdopen(fd, ZIP_RDONLY, &err)) == NULL) {   /* which closes fd when it opens */
    close(fd);
    return luaL_error(L, "cannot read '%s': %s", path, open_error(L, err));
  }
  lua_newtable(L);
  int64_t count = z.get_num_entries(box->zip, 0);
  for (int64_t i = 0; i < count; i++) {
    const char *name = z.get_name(box->zip, (uint64_t)i, 0);
    size_t len = name ? strlen(name) : 0;
    if (len < 5 || strcmp(name + len - 4, ".npy") != 0) continue;   /* not an array */
    read_member(L, box, (uint64_t)i, name, path);
    lua_rawset(L, -3);
  }
  z.discard(box->zip);
  box->zip = NULL;
  return 1;
}

static const luaL_Reg npz_funcs[] = {
  {"_npz_write", npz_write},
  {"_npz_read", npz_read},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void npz_open(lua_State *L) { luaL_setfuncs(L, npz_funcs, 0); }
