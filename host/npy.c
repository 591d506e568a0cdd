/* npy.c: NumPy's .npy files (format 1.0 written; 1.0, 2.0 and 3.0 read), so that arrays go
 * to and from NumPy without a loop: gpu._npy_write(path, h) writes a contiguous host array
 * whole, atomically (a temporary file beside path, then rename, so a failure never leaves
 * half a file under path); gpu._npy_read(path) gives a host array and whether the file was
 * in Fortran order. lua/npy.lua (gpu.save, gpu.load) makes views contiguous, copies to and
 * from the device and turns a Fortran-order array into the view it is. Elements are
 * little-endian on every machine gpuhost runs on; big-endian files are read and swapped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gpu.h"

static const char MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
#define MAX_HEADER 65536   /* NumPy's own reader refuses longer ones too */

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

/* gpu._npy_write(path, h): h contiguous; raises naming the path when it cannot */
static int npy_write(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  HostArray *h = hostarray_check(L, 2);
  if (!h->contiguous) return luaL_argerror(L, 2, "a contiguous host array expected");
  npy_push_header(L, h);
  size_t hn;
  const char *hdr = lua_tolstring(L, -1, &hn);
  char *tmp = malloc(strlen(path) + 16);
  if (tmp == NULL) return luaL_error(L, "cannot write '%s': out of memory", path);
  sprintf(tmp, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp), err = 0;
  mode_t mask = umask(0);   /* the file gets the mode a new file would, not mkstemp's 0600 */
  umask(mask);
  if (fd < 0) err = errno;
  else if (fchmod(fd, 0666 & ~mask) != 0) err = errno;
  else if (fd_write_all(fd, hdr, hn) != 0 || fd_write_all(fd, h->data, h->nbytes) != 0) err = errno ? errno : EIO;
  if (fd >= 0 && fsync(fd) != 0 && !err) err = errno;
  if (fd >= 0 && close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, path) != 0) err = errno;
  if (err && fd >= 0) unlink(tmp);
  free(tmp);
  if (err) return luaL_error(L, "cannot write '%s': %s", path, strerror(err));
  return 0;
}

/* ---- reading ---- */


void npy_swap(unsigned char *p, size_t n, size_t size) {
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

/* The header at the start of the len bytes at p (a whole .npy file in memory): fills *h and
 * *offset (where the data starts); why it cannot (maybe in why), or NULL. */
const char *npy_parse(const char *p, size_t len, NpyHeader *h, size_t *offset, char why[NPY_WHY]) {
  const unsigned char *u = (const unsigned char *)p;
  if (len < 10 || memcmp(p, MAGIC, 6) != 0) return "it is not a .npy file (no \\x93NUMPY magic)";
  const char *bad = check_version(u, why);
  if (bad) return bad;
  size_t hl = (size_t)u[8] | (size_t)u[9] << 8, at = 10;
  if (u[6] >= 2) {
    if (len < 12) return "its header is truncated";
    hl |= (size_t)u[10] << 16 | (size_t)u[11] << 24;
    at = 12;
  }
  if (hl > MAX_HEADER || len - at < hl) return "its header is truncated";
  if ((bad = npy_parse_header(p + at, hl, u[6], h, why)) != NULL) return bad;
  size_t want = (size_t)h->shape.size * dtypes[h->dtype].size;
  if (len - at - hl != want) return "its data is not the size its shape says";
  *offset = at + hl;
  return NULL;
}

/* Reads the magic, version and header text of f and parses it into *h; raises with what is
 * wrong, leaves f at the data. */
static void read_preamble(lua_State *L, FILE *f, const char *path, NpyHeader *h) {
  unsigned char pre[12];
  char why[NPY_WHY];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, MAGIC, 6) != 0) {
    fclose(f);
    luaL_error(L, "'%s' is not a .npy file (no \\x93NUMPY magic)", path);
  }
  const char *bad = check_version(pre, why);
  if (bad) { fclose(f); luaL_error(L, "cannot read '%s': %s", path, bad); }
  size_t len = (size_t)pre[8] | (size_t)pre[9] << 8;
  if (pre[6] >= 2) {   /* versions 2.0 and 3.0: a 4-byte length */
    if (fread(pre + 10, 1, 2, f) != 2) { fclose(f); luaL_error(L, "'%s': truncated header", path); }
    len |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  }
  char *dict = len <= MAX_HEADER ? malloc(len + 1) : NULL;
  if (dict == NULL || fread(dict, 1, len, f) != len) {
    free(dict);
    fclose(f);
    luaL_error(L, "'%s': truncated or oversized header", path);
  }
  bad = npy_parse_header(dict, len, pre[6], h, why);
  free(dict);
  if (bad) { fclose(f); luaL_error(L, "cannot read '%s': %s", path, bad); }
}

/* gpu._npy_read(path): a host array and whether the file is in Fortran order */
static int npy_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  FILE *f = fopen(path, "rb");
  if (f == NULL) return luaL_error(L, "cannot open '%s': %s", path, strerror(errno));
  NpyHeader h;
  read_preamble(L, f, path, &h);
  long at = ftell(f);
  struct stat st;
  size_t want = (size_t)h.shape.size * dtypes[h.dtype].size;
  int sized = at >= 0 && fstat(fileno(f), &st) == 0 && (size_t)st.st_size - (size_t)at == want;
  fclose(f);   /* before anything that may raise; opened again for the data */
  if (!sized)
    return luaL_error(L, "cannot read '%s': its shape says %I bytes of data, the file holds %I",
                      path, (lua_Integer)want, (lua_Integer)(at < 0 ? 0 : st.st_size - at));
  GpuShape s = h.shape;
  if (h.fortran)   /* read as the C-order array of reversed shape whose transpose it is */
    for (int i = 0; i < s.ndim / 2; i++) {
      int64_t t = s.dim[i]; s.dim[i] = s.dim[s.ndim - 1 - i]; s.dim[s.ndim - 1 - i] = t;
    }
  HostArray *a = hostarray_new(L, &s, h.dtype);
  f = fopen(path, "rb");
  size_t got = f && fseek(f, at, SEEK_SET) == 0 && want ? fread(a->data, 1, want, f) : 0;
  if (f) fclose(f);
  if (got != want) return luaL_error(L, "cannot read '%s': the data is truncated", path);
  if (h.swap) {   /* each part of a complex on its own */
    size_t parts = dtypes[h.dtype].kind == 'c' ? 2 : 1;
    npy_swap(a->data, (size_t)s.size * parts, dtypes[h.dtype].size / parts);
  }
  lua_pushboolean(L, h.fortran);
  return 2;
}

static const luaL_Reg npy_funcs[] = {
  {"_npy_write", npy_write},
  {"_npy_read", npy_read},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void npy_open(lua_State *L) { luaL_setfuncs(L, npy_funcs, 0); }
