/* npz.c: NumPy's .npz files (a zip of .npy files, stored as numpy.savez writes them or
 * deflated as numpy.savez_compressed does) through libzip (Debian's libzip4), opened with
 * dlopen at the first use so that gpuhost starts without it: gpu._npz_write(path, {name =
 * h, ...}) and gpu._npz_write(path, arrays, true) deflated, gpu._npz_read(path) -> {name =
 * h, ...}, h contiguous host arrays (lua/npy.lua makes them so). libzip streams each
 * member from its host array into a file that npy.c's npy_write_file puts in place as
 * gpu.save puts a .npy (a temporary beside path, renamed, so a failure never leaves half a
 * file under path; in place where the directory refuses that): the archive is never whole
 * in memory. An archive an error leaves open while reading is discarded by the collector.
 * Declared here, not from zip.h: the few entry points and constants gpuhost calls, as
 * libzip 1.x's stable ABI has them. */
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
       ZIP_ER_INTERNAL = 20, ZIP_STAT_SIZE = 4, ZIP_STAT_MTIME = 16 };
/* the commands a zip_source_function callback is given (those of a readable source) */
enum { ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE };
typedef int64_t (*zip_source_callback)(void *, void *, uint64_t, int);

static struct {
  int tried;
  zip_t *(*open)(const char *, int, int *);
  zip_source_t *(*source_function)(zip_t *, zip_source_callback, void *);
  void (*stat_init)(zip_stat_t *);
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

/* An open archive and the member being read, and the file before libzip has it, closed by
 * the collector if an error leaves them open; whoever closes one first sets it to NULL (-1). */
typedef struct ZipBox { zip_t *zip; zip_file_t *file; int fd; } ZipBox;

static int box_gc(lua_State *L) {
  ZipBox *box = lua_touserdata(L, 1);
  if (box->file) z.fclose(box->file);
  if (box->zip) z.discard(box->zip);
  if (box->fd >= 0) close(box->fd);
  box->file = NULL;
  box->zip = NULL;
  box->fd = -1;
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
  SYM(file_add, "zip_file_add") SYM(set_file_compression, "zip_set_file_compression")
  SYM(source_free, "zip_source_free") SYM(close, "zip_close") SYM(discard, "zip_discard")
  SYM(get_num_entries, "zip_get_num_entries") SYM(get_name, "zip_get_name")
  SYM(fopen_index, "zip_fopen_index") SYM(fread, "zip_fread") SYM(fclose, "zip_fclose")
  SYM(strerror, "zip_strerror") SYM(fdopen, "zip_fdopen") SYM(stat_index, "zip_stat_index")
  SYM(file_strerror, "zip_file_strerror") SYM(error_init_with_code, "zip_error_init_with_code")
  SYM(error_strerror, "zip_error_strerror") SYM(error_fini, "zip_error_fini")
  SYM(source_function, "zip_source_function") SYM(stat_init, "zip_stat_init")
  SYM(open, "zip_open")   /* last: loaded means all are */
#undef SYM
}

/* [-0, +1, m] An empty ZipBox. */
static ZipBox *push_box(lua_State *L) {
  ZipBox *box = lua_newuserdatauv(L, sizeof *box, 0);
  box->zip = NULL;
  box->file = NULL;
  box->fd = -1;
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

/* An archive of no members: its end of central directory record alone, as numpy.savez
 * writes it. libzip makes none of it (and removes the one under path). */
static const char EMPTY_ZIP[22] = "PK\5\6";

/* An NpyMaker's make: the empty archive, into fd. */
static int empty_make(void *ud, int fd, const char *name) {
  (void)ud, (void)name;
  return fd_write_all(fd, EMPTY_ZIP, sizeof EMPTY_ZIP) != 0 ? errno : 0;
}

/* One member being written: its .npy header, held here, and its host array's bytes, which
 * libzip reads through member_source a chunk at a time (at: how far it has read). */
typedef struct Member { const char *data; uint64_t size, at; size_t hn; char hdr[]; } Member;

/* A zip_source_function callback, a readable source of member m's bytes: the header, then
 * the data, never copied whole. Raises nothing. */
static int64_t member_source(void *ud, void *data, uint64_t len, int cmd) {
  Member *m = ud;
  uint64_t total = m->hn + m->size;
  if (cmd == ZIP_SOURCE_OPEN) m->at = 0;
  if (cmd == ZIP_SOURCE_OPEN || cmd == ZIP_SOURCE_CLOSE || cmd == ZIP_SOURCE_FREE) return 0;
  if (cmd == ZIP_SOURCE_READ) {
    uint64_t n = len < total - m->at ? len : total - m->at, head = 0;
    if (m->at < m->hn) memcpy(data, m->hdr + m->at, head = m->hn - m->at < n ? m->hn - m->at : n);
    if (n > head) memcpy((char *)data + head, m->data + (m->at + head - m->hn), n - head);
    m->at += n;
    return (int64_t)n;
  }
  if (cmd == ZIP_SOURCE_STAT && len >= sizeof(zip_stat_t)) {
    zip_stat_t *st = data;
    z.stat_init(st);
    st->size = total;
    st->mtime = time(NULL);
    st->valid |= ZIP_STAT_SIZE | ZIP_STAT_MTIME;
    return sizeof *st;
  }
  if (cmd == ZIP_SOURCE_ERROR && len >= 2 * sizeof(int)) {   /* libzip's code, then errno */
    ((int *)data)[0] = ZIP_ER_INTERNAL;
    ((int *)data)[1] = 0;
    return 2 * sizeof(int);
  }
  return -1;   /* a command a readable source need not know */
}

/* [-0, +0, e] The members of the arrays at index 2 into the table at index 3: a name
 * (x.npy) and a Member each, in turn. Their count. */
static int push_members(lua_State *L, const char *shown) {
  int count = 0;
  for (lua_pushnil(L); lua_next(L, 2); lua_pop(L, 1)) {
    HostArray *h = hostarray_test(L, -1);
    if (lua_type(L, -2) != LUA_TSTRING || h == NULL || !h->alive || !h->contiguous)
      luaL_error(L, "cannot write '%s': every entry must be a name and an array", shown);
    lua_pushfstring(L, "%s.npy", lua_tostring(L, -2));
    lua_rawseti(L, 3, 2 * ++count - 1);
    npy_push_header(L, h);
    size_t hn;
    const char *hdr = lua_tolstring(L, -1, &hn);
    Member *m = lua_newuserdatauv(L, sizeof *m + hn, 0);
    *m = (Member){h->data, h->nbytes, 0, hn};
    memcpy(m->hdr, hdr, hn);
    lua_rawseti(L, 3, 2 * count);
    lua_pop(L, 1);   /* the header */
  }
  return count;
}

/* What savez writes: count members at index keep of L (push_members), stored or deflated
 * (method); why: libzip's words for a failure. */
typedef struct ZipJob { lua_State *L; int keep, count, method; char why[200]; } ZipJob;

/* Gives up on the open archive zf, its error in job->why: -1. */
static int zip_quit(ZipJob *job, zip_t *zf) {
  snprintf(job->why, sizeof job->why, "%s", z.strerror(zf));
  z.discard(zf);
  return -1;
}

/* An NpyMaker's make, by name: the archive, which libzip writes into name (its own
 * temporary beside it, renamed over it at zip_close), each member streamed from its host
 * array. Raises nothing: a failure is -1, job->why saying why. */
static int zip_make(void *ud, int fd, const char *name) {
  ZipJob *job = ud;
  int code = 0;
  (void)fd;
  zip_t *zf = z.open(name, ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (zf == NULL) {
    zip_error_t e;
    z.error_init_with_code(&e, code);
    snprintf(job->why, sizeof job->why, "libzip: %s", z.error_strerror(&e));
    z.error_fini(&e);
    return -1;
  }
  for (int i = 1; i <= job->count; i++) {
    lua_rawgeti(job->L, job->keep, 2 * i - 1);
    lua_rawgeti(job->L, job->keep, 2 * i);
    const char *member = lua_tostring(job->L, -2);   /* the table holds it */
    zip_source_t *src = z.source_function(zf, member_source, lua_touserdata(job->L, -1));
    lua_pop(job->L, 2);
    int64_t at = src ? z.file_add(zf, member, src, 0) : -1;
    if (at < 0 || z.set_file_compression(zf, (uint64_t)at, job->method, 0) != 0) {
      if (src && at < 0) z.source_free(src);
      return zip_quit(job, zf);
    }
  }
  sigset_t mask;
  xfsz_block(&mask);   /* past a file size limit, a write error, not the end of the process */
  int failed = z.close(zf) != 0;
  xfsz_restore(&mask, failed);
  return failed ? zip_quit(job, zf) : 0;   /* a failed zip_close leaves zf open */
}

/* gpu._npz_write(path, arrays [, deflate]): arrays maps names to contiguous host arrays */
static int npz_write(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  ZipJob job = {L, 3, 0, lua_toboolean(L, 3) ? ZIP_CM_DEFLATE : ZIP_CM_STORE, ""};
  zip_load(L);
  lua_settop(L, 2);
  lua_newtable(L);                 /* 3: the members, alive until zip_close */
  const char *shown = path;
  path = npy_target(L, path);   /* 4: a link's target, which the rename replaces */
  if (path == NULL)
    return luaL_error(L, "cannot write '%s': not a regular file or a link to one (gpu.savez writes a new file and "
                      "renames it there)", shown);
  job.count = push_members(L, shown);
  NpyMaker maker = job.count ? (NpyMaker){zip_make, &job, 1} : (NpyMaker){empty_make, NULL, 0};
  int err = npy_write_file(path, &maker);
  if (err < 0) return luaL_error(L, "cannot write '%s': %s", shown, job.why);
  if (err) return luaL_error(L, "cannot write '%s': %s", shown, strerror(err));
  return 0;
}

/* A member being read: its first bytes (pre, when they were looked at for the .npy magic)
 * come first, then the rest from f. */
typedef struct ZipSource { NpySource s; zip_file_t *f; size_t npre; char pre[6]; } ZipSource;

static size_t member_read(NpySource *s, void *buf, size_t n) {
  ZipSource *zs = (ZipSource *)s;
  zip_file_t *f = zs->f;
  size_t got = n < zs->npre ? n : zs->npre;
  memcpy(buf, zs->pre, got);
  memmove(zs->pre, zs->pre + got, zs->npre -= got);
  while (got < n) {
    int64_t r = z.fread(f, (char *)buf + got, n - got);
    if (r < 0) s->error = z.file_strerror(f);   /* a bad CRC shows at the end, here */
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

/* [-0, +1, e] The bytes of src, a member that is not a .npy, as a Lua string (what NumPy's
 * NpzFile gives for one: bytes); never more than the archive says it holds. */
static void member_bytes(lua_State *L, ZipSource *src) {
  luaL_Buffer b;
  uint64_t total = 0;
  luaL_buffinit(L, &b);
  for (size_t n;; total += n) {
    n = member_read(&src->s, luaL_prepbuffer(&b), LUAL_BUFFERSIZE);
    luaL_addsize(&b, n);
    if (src->s.size >= 0 && total + n > (uint64_t)src->s.size)
      luaL_error(L, "cannot read %s: the archive says it holds %I bytes, it holds more", src->s.who,
                 (lua_Integer)src->s.size);
    if (n == 0 || src->s.error) break;
  }
  if (src->s.error) luaL_error(L, "cannot read %s: %s", src->s.who, src->s.error);
  luaL_pushresult(&b);
}

/* [-0, +2, e] Member i (name) of box->zip: the key given (the name's first keylen bytes:
 * all, or all less .npy where it ends so), and its host array; for a member that does not
 * start with the .npy magic, whatever its name, its bytes (NumPy's NpzFile reads both so). The header comes first, and the
 * size the archive gives for the member must be the header's and its shape's before any
 * data is read: a small deflated member of gigabytes is refused unread, and never more than
 * the shape needs is allocated. */
static void read_member(lua_State *L, ZipBox *box, uint64_t i, const char *name, size_t keylen,
                        const char *path) {
  zip_stat_t st;
  int sized = z.stat_index(box->zip, i, 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE) &&
              st.size <= INT64_MAX;
  lua_pushlstring(L, name, keylen);
  const char *who = lua_pushfstring(L, "'%s' in '%s'", name, path);
  if ((box->file = z.fopen_index(box->zip, i, 0)) == NULL)
    luaL_error(L, "cannot read %s: %s", who, z.strerror(box->zip));
  ZipSource src = {{member_read, NULL, who, "the member", sized ? (int64_t)st.size : -1}, box->file, 0, ""};
  src.npre = member_read(&src.s, src.pre, sizeof src.pre);   /* its magic, given again */
  src.npre = src.s.error ? 0 : src.npre;   /* (the error shows at the next read) */
  if (src.npre < sizeof src.pre || memcmp(src.pre, "\x93NUMPY", sizeof src.pre) != 0) {
    member_bytes(L, &src);
    z.fclose(box->file);
    box->file = NULL;
    lua_remove(L, -2);   /* who */
    return;
  }
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

static uint64_t le(const unsigned char *p, int n) {   /* a little-endian number of n bytes */
  uint64_t v = 0;
  while (n-- > 0) v = v << 8 | p[n];
  return v;
}

/* Raises naming the first member whose name holds a zero byte in the central directory that
 * may lie at off (len bytes), before limit, of the archive on fd: libzip's names are C
 * strings (it shows a zero byte as a space), so the member would be loaded under another
 * name. A directory that does not fit there, or that is not one, is passed over; one that
 * starts as one is read whole, out of *budget bytes for all (a forged archive's thousands
 * of end records, each leading to the file's megabytes, took a read of them each). */
static void check_directory(lua_State *L, int fd, uint64_t off, uint64_t len, uint64_t limit,
                            uint64_t *budget, const char *path) {
  unsigned char sig[4];
  if (len < 46 || off > limit || len > limit - off || len > SIZE_MAX) return;
  if (pread(fd, sig, 4, (off_t)off) != 4 || memcmp(sig, "PK\1\2", 4) != 0) return;
  if (len > *budget)
    luaL_error(L, "cannot read '%s': its end records lead to more central directory than the "
               "archive holds (not a zip file NumPy writes)", path);
  *budget -= len;
  size_t n = (size_t)len;
  unsigned char *cd = lua_newuserdatauv(L, n, 0);
  if (pread(fd, cd, n, (off_t)off) != (ssize_t)n) n = 0;
  for (size_t p = 0; p + 46 <= n && memcmp(cd + p, "PK\1\2", 4) == 0;) {
    size_t nlen = le(cd + p + 28, 2);
    if (p + 46 + nlen > n) break;
    if (memchr(cd + p + 46, 0, nlen)) {
      luaL_Buffer b;   /* the name as a Lua string shows it: "a\0b.npy" */
      luaL_buffinit(L, &b);
      for (size_t k = 0; k < nlen; k++)
        cd[p + 46 + k] ? luaL_addchar(&b, (char)cd[p + 46 + k]) : luaL_addstring(&b, "\\0");
      luaL_pushresult(&b);
      luaL_error(L, "cannot read '%s': \"%s\" is not a member name (it holds a zero byte)", path,
                 lua_tostring(L, -1));
    }
    p += 46 + nlen + le(cd + p + 30, 2) + le(cd + p + 32, 2);
  }
  lua_pop(L, 1);
}

/* check_directory at the offset an end record gives, and where the directory ends at the
 * record (limit), if that is elsewhere (a file with bytes before the archive). */
static void check_both(lua_State *L, int fd, uint64_t off, uint64_t len, uint64_t limit,
                       uint64_t *budget, const char *path) {
  check_directory(L, fd, off, len, limit, budget, path);
  if (len <= limit && limit - len != off) check_directory(L, fd, limit - len, len, limit, budget, path);
}

/* check_both for every end record in the last bytes of the archive on fd (size bytes) that
 * libzip could take for the archive's (its signature, its comment within the file: one in a
 * comment too), and for the zip64 record its locator leads to, where one is just before it:
 * whichever libzip settles on (zip64's where a count, a size or an offset is too large for
 * the 32-bit record, or all of them), its names have been looked at. The directories read
 * may come to four times the archive (an archive NumPy writes has one). */
static void check_names(lua_State *L, int fd, uint64_t size, const char *path) {
  size_t t = size < 20 + 22 + 65535 ? (size_t)size : 20 + 22 + 65535;
  unsigned char *b = lua_newuserdatauv(L, t, 0), r[56];
  uint64_t at = size - t, budget = size < UINT64_MAX / 4 ? 4 * size : UINT64_MAX;
  if (t < 22 || pread(fd, b, t, (off_t)at) != (ssize_t)t) t = 0;
  for (size_t e = 0; e + 22 <= t; e++) {
    if (memcmp(b + e, "PK\5\6", 4) != 0 || e + 22 + le(b + e + 20, 2) > t) continue;
    check_both(L, fd, le(b + e + 16, 4), le(b + e + 12, 4), at + e, &budget, path);
    uint64_t rec = e >= 20 && memcmp(b + e - 20, "PK\6\7", 4) == 0 ? le(b + e - 12, 8) : UINT64_MAX;
    if (at + e >= 76 && rec <= at + e - 76 && pread(fd, r, 56, (off_t)rec) == 56 && memcmp(r, "PK\6\6", 4) == 0)
      check_both(L, fd, le(r + 48, 8), le(r + 40, 8), rec, &budget, path);
  }
  lua_pop(L, 1);
}

/* The name of member i of box->zip. */
static const char *member_name(lua_State *L, ZipBox *box, int64_t i, const char *path) {
  const char *name = z.get_name(box->zip, (uint64_t)i, 0);
  if (name == NULL) luaL_error(L, "cannot read '%s': %s", path, z.strerror(box->zip));
  return name;
}

/* Whether the table at index names has the key name[0, len) followed by suffix. */
static int has_name(lua_State *L, int names, const char *name, size_t len, const char *suffix) {
  lua_pushlstring(L, name, len);
  lua_pushstring(L, suffix);
  lua_concat(L, 2);
  int has = lua_rawget(L, names) != LUA_TNIL;
  lua_pop(L, 1);
  return has;
}

/* [-0, +1, e] The members of box->zip as NumPy's NpzFile gives them, {key = value}: a key is
 * a member's name, less .npy where it ends so, and its value is the member named the key,
 * else the one named the key and .npy ('a' wins over 'a.npy', whichever comes first); of
 * members of one name, the last (zipfile's). */
static void read_members(lua_State *L, ZipBox *box, const char *path) {
  int64_t count = z.get_num_entries(box->zip, 0);
  lua_newtable(L);   /* name -> the index of the last member of that name */
  int names = lua_gettop(L);
  for (int64_t i = 0; i < count; i++) {
    lua_pushinteger(L, i);
    lua_setfield(L, names, member_name(L, box, i, path));
  }
  lua_newtable(L);
  for (int64_t i = 0; i < count; i++) {
    const char *name = member_name(L, box, i, path);
    size_t len = strlen(name);
    int npy = len >= 4 && strcmp(name + len - 4, ".npy") == 0;
    lua_getfield(L, names, name);
    int last = lua_tointeger(L, -1) == i;
    lua_pop(L, 1);
    if (last && !(npy && has_name(L, names, name, len - 4, ""))) {   /* unless the key names a member */
      read_member(L, box, (uint64_t)i, name, npy ? len - 4 : len, path);
      lua_rawset(L, -3);
    }
    if (last && npy && has_name(L, names, name, len, ".npy")) {   /* the key of name.npy, which names this one */
      read_member(L, box, (uint64_t)i, name, len, path);
      lua_rawset(L, -3);
    }
  }
  lua_remove(L, names);
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
  int fd = box->fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
  if (fd < 0 || fstat(fd, &st) != 0) err = errno;
  else if (S_ISDIR(st.st_mode)) err = EISDIR;
  if (err)
    return luaL_error(L, "cannot read '%s': %s", path, err == EISDIR ? "it is a directory" : strerror(err));
  check_names(L, fd, (uint64_t)st.st_size, path);
  if ((box->zip = z.fdopen(fd, ZIP_RDONLY, &err)) == NULL)   /* which closes fd when it opens */
    return luaL_error(L, "cannot read '%s': %s", path, open_error(L, err));
  box->fd = -1;
  read_members(L, box, path);
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
