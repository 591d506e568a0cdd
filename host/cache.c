/* cache.c: the on-disk compile cache. An entry holds what the backend's compiler made of one
 * program for one target (a cubin, or a CPU backend's library, and the lowered kernel names) under a key that covers everything
 * the output depends on (program.c builds it). The file is named by a 128-bit hash of the
 * key and holds the key itself, so a hash collision is a miss, and a checksum, so a
 * truncated or corrupt entry is a miss (and is rebuilt). Entries are written to a
 * temporary file and renamed into place, so readers never see half an entry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cache.h"
#include "util.h"

#define MAGIC "GPUHOSTC"
#define FORMAT 1u

/* mkdir -p with mode 0700 for what it creates */
static int make_dirs(char *path) {
  for (char *p = path + 1; ; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      int r = mkdir(path, 0700);
      *p = c;
      if (r != 0 && errno != EEXIST) return -1;
      if (c == '\0') return 0;
    }
  }
}

/* The cache directory ($GPUHOST_CACHE_DIR, else $XDG_CACHE_HOME/gpuhost, else
 * ~/.cache/gpuhost), created 0700; 0 when there is none or it is turned off ("off"). */
static int cache_dir(char *out, size_t n) {
  const char *dir = getenv("GPUHOST_CACHE_DIR");
  if (dir && strcmp(dir, "off") == 0) return 0;
  if (dir && *dir) snprintf(out, n, "%s", dir);
  else if ((dir = getenv("XDG_CACHE_HOME")) && *dir) snprintf(out, n, "%s/gpuhost", dir);
  else if ((dir = getenv("HOME")) && *dir) snprintf(out, n, "%s/.cache/gpuhost", dir);
  else return 0;
  return make_dirs(out) == 0;
}

static int entry_path(char *out, size_t n, const char *key, size_t keylen) {
  char dir[900];
  if (!cache_dir(dir, sizeof dir)) return 0;
  uint64_t a = fnv1a(key, keylen, FNV_OFFSET);
  uint64_t b = fnv1a(key, keylen, 0x84222325cbf29ce4ULL ^ (uint64_t)keylen);
  snprintf(out, n, "%s/%016llx%016llx.cubin", dir, (unsigned long long)a, (unsigned long long)b);
  return 1;
}

/* A reader over a whole entry that fails softly: any short read marks it bad. */
typedef struct Reader { const char *p, *end; int bad; } Reader;
static const void *take(Reader *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) { r->bad = 1; return NULL; }
  const void *q = r->p;
  r->p += n;
  return q;
}
static uint64_t take_u64(Reader *r) {
  uint64_t v = 0;
  const void *q = take(r, sizeof v);
  if (q) memcpy(&v, q, sizeof v);
  return v;
}

int cache_load(const char *key, size_t keylen, int nnames, CacheEntry *e) {
  char path[1024];
  memset(e, 0, sizeof *e);
  if (!entry_path(path, sizeof path, key, keylen)) return 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  char *data = NULL;
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc((size_t)size);
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) { free(data); data = NULL; }
  }
  fclose(f);
  if (data == NULL) return 0;
  Reader r = {data, data + size - sizeof(uint64_t), 0};
  uint64_t sum;
  memcpy(&sum, data + size - sizeof sum, sizeof sum);
  int ok = size > (long)(sizeof sum + 8) && fnv1a(data, (size_t)size - sizeof sum, FNV_OFFSET) == sum;
  const char *magic = ok ? take(&r, 8) : NULL;
  ok = ok && memcmp(magic, MAGIC, 8) == 0 && take_u64(&r) == FORMAT;
  uint64_t kl = ok ? take_u64(&r) : 0;
  const char *k = ok ? take(&r, kl) : NULL;
  ok = ok && !r.bad && kl == keylen && memcmp(k, key, keylen) == 0;
  ok = ok && take_u64(&r) == (uint64_t)nnames;
  if (ok) {
    e->lowered = calloc((size_t)nnames + 1, sizeof(char *));
    for (int i = 0; i < nnames && !r.bad; i++) {
      uint64_t n = take_u64(&r);
      const char *s = take(&r, n);
      if (s) { e->lowered[i] = malloc(n + 1); memcpy(e->lowered[i], s, n); e->lowered[i][n] = '\0'; }
    }
    uint64_t n = take_u64(&r);
    const char *cubin = take(&r, n);
    if (cubin && !r.bad && r.p == r.end) {
      e->cubin = malloc(n);
      memcpy(e->cubin, cubin, n);
      e->cubin_size = n;
    } else {
      ok = 0;
    }
  }
  free(data);
  if (!ok) { cache_entry_free(e, nnames); return 0; }
  return 1;
}

void cache_entry_free(CacheEntry *e, int nnames) {
  if (e->lowered)
    for (int i = 0; i < nnames; i++) free(e->lowered[i]);
  free(e->lowered);
  free(e->cubin);
  memset(e, 0, sizeof *e);
}

static void put_u64(Buf *w, uint64_t v) { buf_add(w, &v, sizeof v); }

void cache_store(const char *key, size_t keylen, const char *cubin, size_t cubin_size,
                 char *const *lowered, int nnames) {
  char path[1024], tmp[1100];
  if (!entry_path(path, sizeof path, key, keylen)) return;
  Buf w = {0};
  buf_add(&w, MAGIC, 8);
  put_u64(&w, FORMAT);
  put_u64(&w, keylen);
  buf_add(&w, key, keylen);
  put_u64(&w, (uint64_t)nnames);
  for (int i = 0; i < nnames; i++) {
    size_t n = strlen(lowered[i]);
    put_u64(&w, n);
    buf_add(&w, lowered[i], n);
  }
  put_u64(&w, cubin_size);
  buf_add(&w, cubin, cubin_size);
  put_u64(&w, fnv1a(w.data, w.n, FNV_OFFSET));
  if (w.failed) { buf_free(&w); return; }
  snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp);   /* created 0600 */
  if (fd >= 0) {
    ssize_t done = write(fd, w.data, w.n);
    if (close(fd) == 0 && done == (ssize_t)w.n) {
      if (rename(tmp, path) != 0) unlink(tmp);
    } else {
      unlink(tmp);
    }
  }
  buf_free(&w);
}
