/* cache.c: the on-disk compile cache. An entry holds what the backend's compiler made of one
 * program for one target (a cubin, or a CPU backend's library, and the lowered kernel
 * names) under a key that covers everything the output depends on (program.c builds it,
 * with the user's uid). The file is named by a 128-bit hash of the key and holds the key
 * itself, so a hash collision is a miss, and a checksum, so a truncated or corrupt entry
 * is a miss (and is rebuilt). Entries are written to a temporary file and renamed into
 * place, so readers never see half an entry; a write that fails (a full disk, ulimit -f)
 * leaves no entry.
 *
 * What is loaded from here runs as the user, so nobody else may be able to put it there
 * (CWE-494): the directory must be the user's own and writable by nobody else, or the
 * cache is not used (one warning on stderr); every file is opened relative to the
 * directory that was checked, without following links and without blocking, and is read
 * only if it is a regular file of the user's, writable by nobody else, of a plausible
 * size. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cache.h"
#include "util.h"

#define MAGIC "GPUHOSTC"
#define FORMAT 2u   /* 2: names and checksums by hash64 */
#define MAX_ENTRY ((off_t)1 << 30)   /* no cubin or kernel library comes near it */
/* magic, format, key length, name count, image length, checksum: 8 bytes each */
#define OVERHEAD (6 * sizeof(uint64_t))

/* mkdir -p with mode 0700 for what it creates; path is modified and restored */
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

/* The cache directory's path ($GPUHOST_CACHE_DIR, else $XDG_CACHE_HOME/gpuhost, else
 * ~/.cache/gpuhost), malloc'd, any length; NULL when there is none or it is "off". A
 * relative XDG_CACHE_HOME is not used (the XDG spec calls it invalid): it would put a
 * cache in whatever directory gpuhost runs in. */
static char *cache_path(void) {
  const char *dir = getenv("GPUHOST_CACHE_DIR");
  Buf b = {0};
  if (dir && strcmp(dir, "off") == 0) return NULL;
  if (dir && *dir) buf_str(&b, dir);
  else if ((dir = getenv("XDG_CACHE_HOME")) && *dir == '/') { buf_str(&b, dir); buf_str(&b, "/gpuhost"); }
  else if ((dir = getenv("HOME")) && *dir) { buf_str(&b, dir); buf_str(&b, "/.cache/gpuhost"); }
  if (b.failed || b.data == NULL) { buf_free(&b); return NULL; }
  return b.data;
}

/* Says once a process why the cache is not used. */
static void refuse(const char *path, const char *why, int unsafe) {
  static int said;
  if (said++) return;
  fprintf(stderr, "gpuhost: not using the compile cache %s: %s%s (kernels are compiled "
          "afresh)\n", path, why, unsafe ? "; it must be yours and writable by nobody else" : "");
}

/* An open descriptor of the cache directory, made if needed and checked: a directory,
 * the user's, not writable by group or others. -1 when there is none or it fails. */
static int open_dir(void) {
  char *path = cache_path(), why[96] = "";
  if (path == NULL) return -1;
  int fd = make_dirs(path) == 0 ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) != 0) { close(fd); fd = -1; }
  const char *asked = getenv("GPUHOST_CACHE_DIR");
  if (fd < 0 && asked && *asked)   /* the default place may well be missing: not worth a word */
    refuse(path, strerror(errno), 0);
  if (fd >= 0 && st.st_uid != geteuid())
    snprintf(why, sizeof why, "it belongs to uid %lu, not to you (uid %lu)",
             (unsigned long)st.st_uid, (unsigned long)geteuid());
  else if (fd >= 0 && (st.st_mode & (S_IWGRP | S_IWOTH)))
    snprintf(why, sizeof why, "its mode is %04o (group or others may write in it)",
             (unsigned)(st.st_mode & 07777));
  if (why[0]) { refuse(path, why, 1); close(fd); fd = -1; }
  free(path);
  return fd;
}

/* The entry's file name, from two hashes of the key. */
static void entry_name(char out[48], const char *key, size_t keylen) {
  uint64_t a = hash64(key, keylen, 0);
  uint64_t b = hash64(key, keylen, 0x84222325cbf29ce4ULL ^ (uint64_t)keylen);
  snprintf(out, 48, "%016llx%016llx.cubin", (unsigned long long)a, (unsigned long long)b);
}

/* Whether the file at fd (at its start) has no hole before size; a file system that
 * cannot say (lseek fails) is taken at its word. Leaves fd at its start. */
static int no_hole(int fd, off_t size) {
  off_t hole = lseek(fd, 0, SEEK_HOLE);
  return (hole < 0 || hole >= size) && lseek(fd, 0, SEEK_SET) == 0;
}

/* The whole entry `name` (malloc'd) and its size, or NULL: only a regular file of the
 * user's, writable by nobody else, of a size an entry for a key of keylen can have, with
 * no hole (entries are written whole: a sparse 1000 MB file took 1 GB to read). A FIFO
 * or a device is never read (nor waited for: O_NONBLOCK), nor is a link followed. */
static char *read_entry(int dir, const char *name, size_t keylen, size_t *size) {
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  char *data = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
      !(st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_size >= (off_t)(OVERHEAD + keylen) &&
      st.st_size <= MAX_ENTRY && no_hole(fd, st.st_size) &&
      (data = malloc((size_t)st.st_size)) != NULL) {
    size_t done = 0, want = (size_t)st.st_size;
    while (done < want) {
      ssize_t r = read(fd, data + done, want - done);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      done += (size_t)r;
    }
    if (done == want) *size = want;
    else { free(data); data = NULL; }
  }
  close(fd);
  return data;
}

/* A reader over a whole entry that fails softly: any short read marks it bad. */
typedef struct Reader { const char *p, *end; int bad; } Reader;
static const void *take(Reader *r, uint64_t n) {
  if (r->bad || (uint64_t)(r->end - r->p) < n) { r->bad = 1; return NULL; }
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
/* A copy of the next n bytes as a NUL-terminated string (malloc'd), or NULL. */
static char *take_copy(Reader *r, uint64_t n) {
  const char *s = take(r, n);
  char *c = s ? malloc((size_t)n + 1) : NULL;
  if (c) { memcpy(c, s, (size_t)n); c[n] = '\0'; }
  else r->bad = 1;
  return c;
}

/* Parses a whole entry of size bytes (at least OVERHEAD + keylen) into *e; 1 when it is
 * sound and for this key. */
static int parse_entry(const char *data, size_t size, const char *key, size_t keylen,
                       int nnames, CacheEntry *e) {
  uint64_t sum;
  memcpy(&sum, data + size - sizeof sum, sizeof sum);
  if (hash64(data, size - sizeof sum, 0) != sum) return 0;
  Reader r = {data, data + size - sizeof sum, 0};
  const char *magic = take(&r, 8);
  if (magic == NULL || memcmp(magic, MAGIC, 8) != 0 || take_u64(&r) != FORMAT) return 0;
  if (take_u64(&r) != keylen) return 0;
  const char *k = take(&r, keylen);
  if (k == NULL || memcmp(k, key, keylen) != 0 || take_u64(&r) != (uint64_t)nnames) return 0;
  e->lowered = calloc((size_t)nnames + 1, sizeof(char *));
  if (e->lowered == NULL) return 0;
  for (int i = 0; i < nnames && !r.bad; i++) e->lowered[i] = take_copy(&r, take_u64(&r));
  uint64_t n = take_u64(&r);
  const char *cubin = take(&r, n);
  if (cubin == NULL || r.bad || r.p != r.end || (e->cubin = malloc(n ? (size_t)n : 1)) == NULL)
    return 0;
  memcpy(e->cubin, cubin, (size_t)n);
  e->cubin_size = (size_t)n;
  return 1;
}

int cache_load(const char *key, size_t keylen, int nnames, CacheEntry *e) {
  memset(e, 0, sizeof *e);
  int dir = open_dir();
  if (dir < 0) return 0;
  char name[48];
  size_t size = 0;
  entry_name(name, key, keylen);
  char *data = read_entry(dir, name, keylen, &size);
  close(dir);
  if (data == NULL) return 0;
  int ok = parse_entry(data, size, key, keylen, nnames, e);
  free(data);
  if (!ok) cache_entry_free(e, nnames);
  return ok;
}

void cache_entry_free(CacheEntry *e, int nnames) {
  if (e->lowered)
    for (int i = 0; i < nnames; i++) free(e->lowered[i]);
  free(e->lowered);
  free(e->cubin);
  memset(e, 0, sizeof *e);
}

/* Says once a process that the cache cannot be written in (its mode, a read-only file
 * system): every run would compile afresh what it lacks, with no word of why. A full disk
 * or a file size limit is passing, and said nothing of. */
static void unwritable(int err) {
  static int said;
  if ((err != EACCES && err != EPERM && err != EROFS) || said++) return;
  char *path = cache_path();
  fprintf(stderr, "gpuhost: cannot write in the compile cache %s: %s (kernels compiled now "
          "are not kept)\n", path ? path : "", strerror(err));
  free(path);
}

/* Writes the entry w into the directory under name, through a temporary file renamed
 * into place; failures leave the directory as it was. */
static void write_entry(int dir, const char *name, const Buf *w) {
  char tmp[96];
  int fd = -1;
  for (int i = 0; i < 16 && fd < 0; i++) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%lx-%d", name, (long)getpid(),
             (unsigned long)t.tv_nsec, i);
    fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) { unwritable(errno); return; }
  }
  if (fd < 0) return;
  int ok = fd_write_all(fd, w->data, w->n) == 0;
  if (close(fd) != 0) ok = 0;
  if (!ok || renameat(dir, tmp, dir, name) != 0) unlinkat(dir, tmp, 0);
}

static void put_u64(Buf *w, uint64_t v) { buf_add(w, &v, sizeof v); }

void cache_store(const char *key, size_t keylen, const char *cubin, size_t cubin_size,
                 char *const *lowered, int nnames) {
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
  put_u64(&w, hash64(w.data, w.n, 0));
  int dir = w.failed || (off_t)w.n > MAX_ENTRY ? -1 : open_dir();
  if (dir >= 0) {
    char name[48];
    entry_name(name, key, keylen);
    write_entry(dir, name, &w);
    close(dir);
  }
  buf_free(&w);
}
