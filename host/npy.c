/* npy.c: NumPy's .npy files (format 1.0 written; 1.0, 2.0 and 3.0 read), so that arrays go
 * to and from NumPy without a loop: gpu._npy_write(path, h) writes a contiguous host array
 * whole, atomically (a temporary file beside path, then rename, so a failure never leaves
 * half a file under path; in place where the directory refuses that); gpu._npy_read(path)
 * gives a host array and whether the file was in Fortran order. lua/npy.lua (gpu.save,
 * gpu.load) makes views contiguous, copies to and from the device and turns a Fortran-order
 * array into the view it is. Elements are little-endian on every machine gpuhost runs on;
 * big-endian files are read and swapped. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gpu.h"

static const char MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
#define MAX_HEADER 65536   /* over version 1.0's 65535 (NumPy's reader refuses over 10000 unless told) */

/* NumPy's type character for a dtype: kind and size give "<f4", "|b1", "<i8" ... */
static void descr_of(GpuDtype dt, char out[8]) {
  const DtypeInfo *d = &dtypes[dt];
  snprintf(out, 8, "%c%c%zu", d->size == 1 ? '|' : '<', d->kind, d->size);
}

/* [-0, +1, m] The header: magic, version 1.0, its length, and the dict padded with spaces
 * to a multiple of 64 bytes, ending in a newline. */
void npy_push_header(lua_State *L, const HostArray *h) {
  char descr[8];
  descr_of(h->dtype, descr);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  lua_pushfstring(L, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  luaL_addvalue(&b);
  for (int i = 0; i < h->shape.ndim; i++) {   /* (), (3,), (3, 4) as Python writes them */
    lua_pushfstring(L, i ? ", %I" : "%I", (lua_Integer)h->shape.dim[i]);
    luaL_addvalue(&b);
  }
  luaL_addstring(&b, h->shape.ndim == 1 ? ",), }" : "), }");
  luaL_pushresult(&b);
  size_t n;
  const char *dict = lua_tolstring(L, -1, &n);
  size_t total = (10 + n + 1 + 63) / 64 * 64, pad = total - 10 - n - 1;
  luaL_buffinit(L, &b);
  luaL_addlstring(&b, MAGIC, 6);
  luaL_addchar(&b, '\1');
  luaL_addchar(&b, '\0');
  luaL_addchar(&b, (char)((total - 10) & 0xff));
  luaL_addchar(&b, (char)((total - 10) >> 8));
  luaL_addlstring(&b, dict, n);
  for (size_t i = 0; i < pad; i++) luaL_addchar(&b, ' ');
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  lua_remove(L, -2);
}

/* The mode for the file that replaces path, not mkstemp's 0600: the mode of the file there
 * (as NumPy, writing into it, keeps it), or a new file's. */
static mode_t new_mode(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

/* The temporary file's name beside path: its directory, and as much of its name as leaves
 * room for ".tmp-XXXXXX" and for the ".XXXXXX" libzip adds to it for its own temporary
 * (zip_open writes "<name>.XXXXXX" and renames it at zip_close) within the directory's
 * longest name (a name of 250 bytes is valid, its name and the suffixes would not be).
 * NULL: no memory. */
static char *temp_name(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0, base = strlen(path) - dir;
  char *tmp = malloc(dir + base + 16);
  if (tmp == NULL) return NULL;
  memcpy(tmp, path, dir);
  tmp[dir] = '\0';
  long max = pathconf(dir ? tmp : ".", _PC_NAME_MAX);   /* -1: no limit, or no such directory */
  size_t keep = base;
  if (max > 32 && base > (size_t)max - 18) keep = (size_t)max - 18;
  memcpy(tmp + dir, path + dir, keep);
  strcpy(tmp + dir + keep, ".tmp-XXXXXX");
  return tmp;
}

/* A temporary file's name in $TMPDIR (or /tmp), for a file written in place from a copy.
 * NULL: no memory. */
static char *other_temp(void) {
  const char *dir = getenv("TMPDIR");
  if (dir == NULL || dir[0] != '/') dir = "/tmp";
  char *tmp = malloc(strlen(dir) + 16);
  if (tmp) sprintf(tmp, "%s/gpuhost-XXXXXX", dir);
  return tmp;
}

/* The two parts of a .npy: a maker's (gpu.h) bytes, written into fd. */
typedef struct Parts { const void *a; size_t an; const void *b; size_t bn; } Parts;

static int parts_make(void *ud, int fd, const char *name) {
  const Parts *p = ud;
  (void)name;
  if (fd_write_all(fd, p->a, p->an) != 0 || fd_write_all(fd, p->b, p->bn) != 0) return errno ? errno : EIO;
  return 0;
}

/* The file made by m in the new, empty temporary tmp, open as fd, which is closed; with
 * mode_of, given the mode of the file there (new_mode) and synced. 0, errno, or -1. */
static int temp_make(const NpyMaker *m, const char *tmp, int fd, const char *mode_of) {
  int err = m->make(m->ud, fd, tmp);
  if (close(fd) != 0 && !err) err = errno;
  if (err || mode_of == NULL) return err;
  if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) < 0) return errno;   /* by name: libzip renamed one over it */
  if (fchmod(fd, new_mode(mode_of)) != 0 || fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  return err;
}

#define COPY_CHUNK (1 << 20)

/* The bytes of the file from written into fd, a chunk at a time: 0, or errno. */
static int copy_into(int fd, const char *from) {
  int in = open(from, O_RDONLY | O_CLOEXEC), err = 0;
  char *buf = in < 0 ? NULL : malloc(COPY_CHUNK);
  if (in < 0 || buf == NULL) err = in < 0 ? errno : ENOMEM;
  for (ssize_t n; !err && (n = read(in, buf, COPY_CHUNK)) != 0;) {
    if (n < 0 && errno != EINTR) err = errno;
    else if (n > 0 && fd_write_all(fd, buf, (size_t)n) != 0) err = errno ? errno : EIO;
  }
  free(buf);
  if (in >= 0) close(in);
  return err;
}

/* Writes the file at old, open for writing (closed here), in place, as NumPy writes it,
 * where its directory refused a temporary or the rename: from made, the temporary that
 * holds it, or straight from m, or, for a maker that writes only by name (libzip), from a
 * temporary made in $TMPDIR first, so that a failure to make it leaves the file as it was.
 * 0, errno, or -1. */
static int in_place(int old, const NpyMaker *m, const char *made) {
  char *elsewhere = NULL;
  int err = 0;
  if (made == NULL && m->by_name) {
    int fd = (elsewhere = other_temp()) ? mkstemp(elsewhere) : -1;
    if (fd < 0) err = elsewhere ? errno : ENOMEM;
    else err = temp_make(m, made = elsewhere, fd, NULL);
  }
  if (!err && ftruncate(old, 0) != 0) err = errno;
  if (!err) err = made ? copy_into(old, made) : m->make(m->ud, old, NULL);
  if (close(old) != 0 && !err) err = errno;
  if (made && made == elsewhere) unlink(elsewhere);
  free(elsewhere);
  return err;
}

/* Replaces path with the file m makes, atomically: a temporary file beside it, then
 * rename, so a failure leaves nothing under path (and no temporary). A file there is
 * opened for writing first, as io.open opens it, so that one the user may not write is
 * refused (the rename needs only the directory's permission); where the directory
 * refuses the temporary or the rename (not writable, or sticky and another's file), that
 * file is written in place (in_place). 0, errno, or -1 (m's ud says why). A directory at
 * path is EISDIR (rename would call "dir/" ENOTDIR, after writing the file into it). */
int npy_write_file(const char *path, const NpyMaker *m) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return EISDIR;
  int old = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);   /* not truncated: only a check */
  if (old < 0 && errno != ENOENT) return errno;
  char *tmp = temp_name(path);
  int fd = tmp ? mkstemp(tmp) : -1, made = 0, err = tmp == NULL ? ENOMEM : fd < 0 ? errno : 0;
  if (fd >= 0 && (err = temp_make(m, tmp, fd, path)) == 0) {
    made = 1;
    if (rename(tmp, path) == 0) fd = -1;   /* nothing left to remove */
    else err = errno;
  }
  if (old >= 0 && (err == EACCES || err == EPERM || err == EBUSY) && (made || fd < 0)) {   /* refused (EBUSY: a mount) */
    err = in_place(old, m, made ? tmp : NULL);
    old = -1;
  }
  if (old >= 0) close(old);
  if (fd >= 0) unlink(tmp);
  free(tmp);
  return err;
}

/* npy_write_file of the n bytes at each of two parts. */
static int npy_replace(const char *path, const void *a, size_t an, const void *b, size_t bn) {
  Parts p = {a, an, b, bn};
  NpyMaker m = {parts_make, &p, 0};
  return npy_write_file(path, &m);
}

/* [-0, +1, m] The file that writing path replaces: path itself (a regular file, or none
 * yet), or the regular file a symbolic link there leads to (rename would put a file in the
 * link's place, as NumPy does not); NULL (nil pushed) for anything else: a device, a FIFO,
 * a link that leads nowhere, which cannot be replaced by a rename, and a link into /proc
 * (/dev/stdout: an open file, which a rename would take from under its descriptor). */
const char *npy_target(lua_State *L, const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return lua_pushstring(L, path);
  char real[PATH_MAX];
  ssize_t n = S_ISLNK(st.st_mode) ? readlink(path, real, sizeof real - 1) : -1;
  int proc = n >= 6 && memcmp(real, "/proc/", 6) == 0;
  if (n >= 0 && !proc && stat(path, &st) == 0 && S_ISREG(st.st_mode) && realpath(path, real))
    return lua_pushstring(L, real);
  lua_pushnil(L);
  return NULL;
}

/* Writes the n bytes at each of two parts into path as it is (np.save's way with
 * /dev/stdout or a FIFO, where a rename cannot go). 0, or errno. */
static int npy_write_through(const char *path, const void *a, size_t an, const void *b, size_t bn) {
  Parts p = {a, an, b, bn};
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int err = parts_make(&p, fd, path);
  if (close(fd) != 0 && !err) err = errno;
  return err;
}

/* gpu._npy_write(path, h): h contiguous; raises naming the path when it cannot */
static int npy_write(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  HostArray *h = hostarray_check(L, 2);
  if (!h->contiguous) return luaL_argerror(L, 2, "a contiguous host array expected");
  const char *target = npy_target(L, path);
  npy_push_header(L, h);
  size_t hn;
  const char *hdr = lua_tolstring(L, -1, &hn);
  int err = target ? npy_replace(target, hdr, hn, h->data, h->nbytes)
                   : npy_write_through(path, hdr, hn, h->data, h->nbytes);
  if (err) return luaL_error(L, "cannot write '%s': %s", path, strerror(err));
  return 0;
}

/* ---- reading ---- */

static void npy_swap(unsigned char *p, size_t n, size_t size) {
  for (size_t i = 0; i < n; i++, p += size)
    for (size_t a = 0, b = size - 1; a < b; a++, b--) {
      unsigned char t = p[a]; p[a] = p[b]; p[b] = t;
    }
}

/* The version in a .npy file's magic: why it is not one NumPy reads, or NULL. */
static const char *check_version(const unsigned char *pre, char why[NPY_WHY]) {
  if (pre[7] == 0 && pre[6] >= 1 && pre[6] <= 3) return NULL;
  snprintf(why, NPY_WHY, "its .npy version is %d.%d: gpuhost reads 1.0, 2.0 and 3.0", pre[6], pre[7]);
  return why;
}

/* Raises "cannot read <who>: <fmt ...>". */
static int source_error(lua_State *L, NpySource *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lua_pushfstring(L, "cannot read %s: ", s->who);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_concat(L, 2);
  return lua_error(L);
}

/* n bytes of s into buf, or an error: why s fell short, else short_why. */
static void source_need(lua_State *L, NpySource *s, void *buf, size_t n, const char *short_why) {
  if (s->read(s, buf, n) != n) source_error(L, s, "%s", s->error ? s->error : short_why);
}

/* The magic, version and header of s, parsed into *h; *at: the bytes read. Raises with what is
 * wrong. */
static void read_header(lua_State *L, NpySource *s, NpyHeader *h, size_t *at) {
  unsigned char pre[12];
  char why[NPY_WHY];
  size_t got = s->read(s, pre, 10);
  if (got < 10 && s->error) source_error(L, s, "%s", s->error);
  if (got == 0) source_error(L, s, "it is empty");
  if (memcmp(pre, MAGIC, got < 6 ? got : 6) != 0)
    source_error(L, s, "it is not a .npy file (no \\x93NUMPY magic)");
  if (got < 10) source_error(L, s, "it is truncated (it ends before its header)");
  const char *bad = check_version(pre, why);
  if (bad) source_error(L, s, "%s", bad);
  size_t len = (size_t)pre[8] | (size_t)pre[9] << 8;
  if (pre[6] >= 2) {   /* versions 2.0 and 3.0: a 4-byte length */
    source_need(L, s, pre + 10, 2, "its header is truncated");
    len |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  }
  if (len > MAX_HEADER) source_error(L, s, "its header is over %d bytes", MAX_HEADER);
  char *text = lua_newuserdatauv(L, len, 0);   /* collected, should anything raise */
  source_need(L, s, text, len, "its header is truncated");
  bad = npy_parse_header(text, len, pre[6], h, why);
  lua_pop(L, 1);
  if (bad) source_error(L, s, "%s", bad);
  *at = (pre[6] >= 2 ? 12 : 10) + len;
}

/* hostarray_new(L, shape at 1, dtype at 2), for lua_pcall */
static int data_alloc(lua_State *L) {
  hostarray_new(L, lua_touserdata(L, 1), (GpuDtype)lua_tointeger(L, 2));
  return 1;
}

/* A new host array of shape d (want bytes), or an error naming s where they cannot be had */
static HostArray *data_array(lua_State *L, NpySource *s, GpuShape *d, GpuDtype dt, size_t want) {
  lua_pushcfunction(L, data_alloc);
  lua_pushlightuserdata(L, d);
  lua_pushinteger(L, (lua_Integer)dt);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK)
    source_error(L, s, "its shape says %I bytes of data, which cannot be allocated (%s)", (lua_Integer)want,
                 luaL_tolstring(L, -1, NULL));
  return lua_touserdata(L, -1);
}

#define PROBE ((size_t)1 << 20)   /* a pipe's first data bytes, read before its array is allocated */

int npy_read_array(lua_State *L, NpySource *s) {
  NpyHeader h;
  size_t at;
  read_header(L, s, &h, &at);
  size_t want = (size_t)h.shape.size * dtypes[h.dtype].size;
  const char *says = "its shape says %I bytes of data, %s holds %I";
  if (s->size >= 0 && (uint64_t)s->size < at)   /* (an archive's word for a member's size) */
    source_error(L, s, "%s holds %I bytes, less than its %I-byte header", s->what, (lua_Integer)s->size,
                 (lua_Integer)at);
  if (s->size >= 0 && (uint64_t)s->size != at + want)   /* before allocating what it says */
    source_error(L, s, says, (lua_Integer)want, s->what, (lua_Integer)s->size - (lua_Integer)at);
  GpuShape d = h.shape;
  if (h.fortran)   /* read as the C-order array of reversed shape whose transpose it is */
    for (int i = 0; i < d.ndim / 2; i++) {
      int64_t t = d.dim[i]; d.dim[i] = d.dim[d.ndim - 1 - i]; d.dim[d.ndim - 1 - i] = t;
    }
  size_t first = s->size < 0 && want > 0 ? (want < PROBE ? want : PROBE) : 0;   /* (a pipe: some */
  char *probe = first ? lua_newuserdatauv(L, first, 0) : NULL;    /* data first, not its header's word) */
  size_t got = first ? s->read(s, probe, first) : 0;
  if (s->error) source_error(L, s, "%s", s->error);
  if (got < first) source_error(L, s, says, (lua_Integer)want, s->what, (lua_Integer)got);
  HostArray *a = data_array(L, s, &d, h.dtype, want);
  if (first) {
    memcpy(a->data, probe, first);
    lua_remove(L, -2);
  }
  char more;
  if (want > first) got += s->read(s, (char *)a->data + first, want - first);
  size_t extra = got == want && !s->error ? s->read(s, &more, 1) : 0;   /* the end, not more */
  if (s->error) source_error(L, s, "%s", s->error);
  if (got < want) source_error(L, s, says, (lua_Integer)want, s->what, (lua_Integer)got);
  if (extra)
    source_error(L, s, "its shape says %I bytes of data, %s holds more", (lua_Integer)want, s->what);
  if (h.swap) {   /* each part of a complex on its own */
    size_t parts = dtypes[h.dtype].kind == 'c' ? 2 : 1;
    npy_swap(a->data, (size_t)d.size * parts, dtypes[h.dtype].size / parts);
  }
  hostarray_bools(a);
  return h.fortran;
}

/* ---- a file: gpu._npy_read ---- */

typedef struct FileSource { NpySource s; FILE *f; } FileSource;

static size_t stdio_read(NpySource *s, void *buf, size_t n) {
  FILE *f = ((FileSource *)s)->f;
  size_t got = fread(buf, 1, n, f);
  if (got < n && ferror(f)) s->error = strerror(errno);
  return got;
}

static int file_gc(lua_State *L) {
  FILE **box = lua_touserdata(L, 1);
  if (*box) fclose(*box);
  *box = NULL;
  return 0;
}

/* gpu._npy_read(path): a host array and whether the file is in Fortran order. One open file
 * for the header and the data, so that a file renamed over path in between cannot mix two. */
static int npy_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  FILE **box = lua_newuserdatauv(L, sizeof *box, 0);   /* closed by the collector on an error */
  *box = NULL;
  if (luaL_newmetatable(L, "gpu.npyfile")) {
    lua_pushcfunction(L, file_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  FILE *f = *box = fopen(path, "rb");
  if (f == NULL) return luaL_error(L, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0) return luaL_error(L, "cannot read '%s': %s", path, strerror(errno));
  if (S_ISDIR(st.st_mode)) return luaL_error(L, "cannot read '%s': it is a directory", path);
  FileSource src = {{stdio_read, NULL, lua_pushfstring(L, "'%s'", path), "the file",
                     S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1}, f};   /* a pipe: -1 */
  int fortran = npy_read_array(L, &src.s);
  fclose(f);
  *box = NULL;
  lua_pushboolean(L, fortran);
  return 2;
}

static const luaL_Reg npy_funcs[] = {
  {"_npy_write", npy_write},
  {"_npy_read", npy_read},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void npy_open(lua_State *L) { luaL_setfuncs(L, npy_funcs, 0); }
