/* util.c: hashing, growable buffers, strict numbers from the environment and whole-file
 * reads (util.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ULL; }
  return h;
}

void buf_add(Buf *b, const void *p, size_t n) {
  if (b->failed) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = 2 * (b->n + n + 1);
    char *d = realloc(b->data, cap);
    if (d == NULL) { b->failed = 1; return; }
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->n, p, n);
  b->n += n;
  b->data[b->n] = '\0';
}

void buf_str(Buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_free(Buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

int parse_long(const char *s, long lo, long hi, long *out) {
  if (s == NULL || !((*s >= '0' && *s <= '9') || ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9')))
    return -1;   /* strtol would skip leading spaces and take "" as 0 */
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

long env_long(const char *name, long lo, long hi, long def, int *bad) {
  const char *s = getenv(name);
  long v;
  if (bad) *bad = 0;
  if (s == NULL || *s == '\0') return def;
  if (parse_long(s, lo, hi, &v) == 0) return v;
  if (bad) *bad = 1;
  return def;
}

char *file_read(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *data = NULL;
  long size;
  if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = malloc((size_t)size + 1);
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) { free(data); data = NULL; }
    if (data) { data[size] = '\0'; *n = (size_t)size; }
  }
  fclose(f);
  return data;
}

int fd_write_all(int fd, const void *data, size_t n) {
  sigset_t xfsz, old;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &xfsz, &old);
  const char *p = data;
  int ok = 0;
  for (size_t done = 0; done < n;) {
    ssize_t w = write(fd, p + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) { ok = -1; break; }
    done += (size_t)w;
  }
  if (ok != 0 && !sigismember(&old, SIGXFSZ)) {
    struct timespec now = {0, 0};
    while (sigtimedwait(&xfsz, NULL, &now) == SIGXFSZ) {}   /* the one this write raised */
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return ok;
}

int file_write(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  int ok = fd_write_all(fd, data, n);
  if (close(fd) != 0) ok = -1;
  return ok;
}
