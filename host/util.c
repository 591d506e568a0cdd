/* util.c: hashing, growable buffers, strict numbers from the environment, whole-file
 * reads and float16 conversions (util.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ULL; }
  return h;
}

/* hash64: xxHash64's structure (four lanes of 8-byte words, each a round of multiply,
 * rotate, multiply; the lanes merged, the tail folded in, the result mixed), so a cache
 * entry of a few hundred KiB is hashed at several bytes a cycle, where FNV-1a waits on a
 * multiply for every byte (0.3 ms of a cached program's load). Words are read in the
 * machine's order: the hashes name and check files of this machine's cache only. */
#define H_P1 0x9E3779B185EBCA87ULL
#define H_P2 0xC2B2AE3D27D4EB4FULL
#define H_P3 0x165667B19E3779F9ULL
#define H_P4 0x85EBCA77C2B2AE63ULL
#define H_P5 0x27D4EB2F165667C5ULL
static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t word64(const unsigned char *p) { uint64_t w; memcpy(&w, p, 8); return w; }
static uint64_t lane_round(uint64_t acc, uint64_t w) { return rotl64(acc + w * H_P2, 31) * H_P1; }

uint64_t hash64(const void *data, size_t n, uint64_t seed) {
  const unsigned char *p = data, *end = p + n;
  uint64_t h = seed + H_P5;
  if (n >= 32) {
    uint64_t v0 = seed + H_P1 + H_P2, v1 = seed + H_P2, v2 = seed, v3 = seed - H_P1;
    for (; end - p >= 32; p += 32) {
      v0 = lane_round(v0, word64(p));
      v1 = lane_round(v1, word64(p + 8));
      v2 = lane_round(v2, word64(p + 16));
      v3 = lane_round(v3, word64(p + 24));
    }
    h = rotl64(v0, 1) + rotl64(v1, 7) + rotl64(v2, 12) + rotl64(v3, 18);
    h = (h ^ lane_round(0, v0)) * H_P1 + H_P4;
    h = (h ^ lane_round(0, v1)) * H_P1 + H_P4;
    h = (h ^ lane_round(0, v2)) * H_P1 + H_P4;
    h = (h ^ lane_round(0, v3)) * H_P1 + H_P4;
  }
  h += (uint64_t)n;
  for (; end - p >= 8; p += 8) h = rotl64(h ^ lane_round(0, word64(p)), 27) * H_P1 + H_P4;
  if (end - p >= 4) {
    uint32_t w;
    memcpy(&w, p, 4);
    h = rotl64(h ^ (uint64_t)w * H_P1, 23) * H_P2 + H_P3;
    p += 4;
  }
  for (; p < end; p++) h = rotl64(h ^ (uint64_t)*p * H_P5, 11) * H_P1;
  h ^= h >> 33;
  h *= H_P2;
  h ^= h >> 29;
  h *= H_P3;
  return h ^ (h >> 32);
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

void buf_printf(Buf *b, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) { b->failed = 1; return; }
  if ((size_t)n < sizeof line) { buf_add(b, line, (size_t)n); return; }
  char *big = malloc((size_t)n + 1);
  if (big == NULL) { b->failed = 1; return; }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  buf_add(b, big, (size_t)n);
  free(big);
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

void xfsz_block(sigset_t *old) {
  sigset_t xfsz;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &xfsz, old);
}

void xfsz_restore(const sigset_t *old, int failed) {
  int err = errno;
  if (failed && !sigismember(old, SIGXFSZ)) {
    sigset_t xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    struct timespec now = {0, 0};
    while (sigtimedwait(&xfsz, NULL, &now) == SIGXFSZ) {}   /* the one the write raised */
  }
  pthread_sigmask(SIG_SETMASK, old, NULL);
  errno = err;   /* the write's (EFBIG), not sigtimedwait's EAGAIN */
}

int fd_write_all(int fd, const void *data, size_t n) {
  sigset_t old;
  xfsz_block(&old);
  const char *p = data;
  int ok = 0, err = 0;
  for (size_t done = 0; done < n;) {
    ssize_t w = write(fd, p + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) { ok = -1, err = w < 0 ? errno : EIO; break; }
    done += (size_t)w;
  }
  if (ok != 0) errno = err;
  xfsz_restore(&old, ok != 0);
  return ok;
}

int file_write(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  int ok = fd_write_all(fd, data, n);
  if (close(fd) != 0) ok = -1;
  return ok;
}

/* ---- float16 ---- */
/* In plain C arithmetic (no _Float16, which not every compiler has): the rounding is
 * nearbyint's (to nearest, ties to even) on the value over its ulp, a power of two, so
 * exact; one rounding from double, as the GPU's conversion. */
uint16_t half_from_double(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isnan(v)) return sign | 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00;   /* past the last half, 65504, by half an ulp: inf */
  int e;
  frexp(a, &e);   /* a = m * 2^e, m in [0.5, 1) */
  double ulp = e - 1 >= -14 ? ldexp(1.0, e - 11) : 0x1p-24;   /* normals: 11 bits; subnormals */
  double r = nearbyint(a / ulp) * ulp;
  if (r < 0x1p-14) return sign | (uint16_t)(r / 0x1p-24);     /* subnormal (or 0x400: 2^-14) */
  frexp(r, &e);
  return sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(r / ldexp(1.0, e - 1) * 1024 - 1024);
}

double half_to_double(uint16_t h) {
  int exp = h >> 10 & 0x1f, man = h & 0x3ff;
  double a = exp == 0 ? ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY)
           : ldexp(1024 + man, exp - 25);
  return h & 0x8000 ? -a : a;
}

void half_combine(uint16_t *dst, const uint16_t *src, size_t n, int op) {
  for (size_t i = 0; i < n; i++) {
    float d = (float)half_to_double(dst[i]), s = (float)half_to_double(src[i]);
    switch (op) {
      case GPU_RED_PROD: dst[i] = half_from_double(d * s); break;
      case GPU_RED_MIN: if (s < d || d != d) dst[i] = src[i]; break;   /* NCCL's __hmin: */
      case GPU_RED_MAX: if (s > d || d != d) dst[i] = src[i]; break;   /* a NaN loses */
      default: dst[i] = half_from_double(d + s);
    }
  }
}

void half_premul(uint16_t *dst, const uint16_t *src, size_t n, int nranks) {
  float s = (float)half_to_double(half_from_double(1.0 / nranks));   /* NCCL's scalar, a half */
  for (size_t i = 0; i < n; i++) dst[i] = half_from_double((float)half_to_double(src[i]) * s);
}

/* ---- collectives in host memory (the CPU backend's) ---- */

/* NCCL's functions: integers wrap (in unsigned arithmetic: no overflow to speak of), min
 * and max of floats are fmin and fmax (a NaN loses to a number) */
#define REDUCE_LOOP(T, U) { T *d = (T *)dst; const T *s = (const T *)src; \
    for (size_t i = 0; i < n; i++) switch (op) { \
      case GPU_RED_PROD: d[i] = (T)(U)((U)d[i] * (U)s[i]); break; \
      case GPU_RED_MIN: if (s[i] < d[i] || d[i] != d[i]) d[i] = s[i]; break; \
      case GPU_RED_MAX: if (s[i] > d[i] || d[i] != d[i]) d[i] = s[i]; break; \
      default: d[i] = (T)(U)((U)d[i] + (U)s[i]); } }

void host_combine(void *dst, const void *src, size_t n, int t, int op) {
  switch (t) {
    case GPU_CT_INT8: REDUCE_LOOP(int8_t, uint8_t) break;    case GPU_CT_UINT8: REDUCE_LOOP(uint8_t, uint8_t) break;
    case GPU_CT_INT32: REDUCE_LOOP(int32_t, uint32_t) break;  case GPU_CT_UINT32: REDUCE_LOOP(uint32_t, uint32_t) break;
    case GPU_CT_INT64: REDUCE_LOOP(int64_t, uint64_t) break;  case GPU_CT_UINT64: REDUCE_LOOP(uint64_t, uint64_t) break;
    case GPU_CT_FLOAT32: REDUCE_LOOP(float, float) break;     case GPU_CT_FLOAT64: REDUCE_LOOP(double, double) break;
    case GPU_CT_FLOAT16: half_combine(dst, src, n, op); break;
    default: break;
  }
}

void host_premul(void *dst, const void *src, size_t n, int t, int nr) {
  if (t == GPU_CT_FLOAT32) for (size_t i = 0; i < n; i++) ((float *)dst)[i] = ((const float *)src)[i] * (float)(1.0 / nr);
  if (t == GPU_CT_FLOAT64) for (size_t i = 0; i < n; i++) ((double *)dst)[i] = ((const double *)src)[i] * (1.0 / nr);
  if (t == GPU_CT_FLOAT16) half_premul(dst, src, n, nr);
}
