/* util.h: what the Lua side and the backends share that is neither Lua nor a backend: the
 * names of results, hashing, growable buffers, whole-file reads and the files embedded in
 * the binary. Nothing here includes lua.h. */
#ifndef GPUHOST_UTIL_H
#define GPUHOST_UTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "backend.h"

/* ---- names of results (results.c, tables generated from cuda.h and nvrtc.h) ---- */
/* "CUDA_ERROR_INVALID_VALUE", "NVRTC_ERROR_COMPILATION", "GPUHOST_NO_DRIVER", or NULL for
 * a code this build does not know. */
const char *result_name(GpuResult r);
/* The description cuda.h documents for a CUresult, or NULL. */
const char *cuda_description(int code);

/* ---- FNV-1a, 64 bits; chain calls by passing the last hash as h ---- */
#define FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t fnv1a(const void *data, size_t n, uint64_t h);
/* a fast 64-bit hash of n bytes from seed (file names and checksums; not for security) */
uint64_t hash64(const void *data, size_t n, uint64_t seed);

/* ---- a growable byte buffer, always NUL-terminated; on out-of-memory it stops growing
 * and sets failed (writes are dropped), so callers check once at the end ---- */
typedef struct Buf { char *data; size_t n, cap; int failed; } Buf;
void buf_add(Buf *b, const void *p, size_t n);
void buf_str(Buf *b, const char *s);
/* printf into the buffer (any length) */
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(Buf *b);

/* ---- numbers from the environment, read strictly ----
 * parse_long: s is a whole decimal integer (optional sign, no spaces, nothing after it)
 * in [lo, hi]; 0 and *out, or -1 (*out untouched).
 * env_long: the variable name parsed so; def when it is unset or empty; when it is set to
 * anything else (garbage, "12abc", out of [lo, hi], overflowing) def too, with *bad set
 * to 1 (callers say so: an error, or a warning naming the variable). bad may be NULL. */
int parse_long(const char *s, long lo, long hi, long *out);
long env_long(const char *name, long lo, long hi, long def, int *bad);

/* ---- float16 (IEEE binary16) to and from double: rounded to nearest, ties to even, once,
 * as the GPU's cvt.rn.f16.f64 and gpu::half (kernels/gpuhost.cuh) round ---- */
uint16_t half_from_double(double v);
double half_to_double(uint16_t h);
/* dst[i] = dst[i] op src[i] for n float16 elements (op GPU_RED_SUM, PROD, MIN, MAX; AVG
 * sums), each result rounded as a GPU's float16 arithmetic rounds it; NaN propagates */
void half_combine(uint16_t *dst, const uint16_t *src, size_t n, int op);
/* dst[i] = src[i] * (the half nearest 1 / nranks), rounded once: GPU_RED_AVG's first step,
 * as NCCL's (PreMulSum: each rank's value scaled, then summed) */
void half_premul(uint16_t *dst, const uint16_t *src, size_t n, int nranks);

/* ---- collectives in host memory (the CPU backend's, host/cpu/coll.c) ---- */
/* dst[i] = dst[i] op src[i] for n elements of GPU_CT_* type t (GPU_RED_SUM, PROD, MIN, MAX) */
void host_combine(void *dst, const void *src, size_t n, int t, int op);
/* GPU_RED_AVG as NCCL's for floats: dst[i] = src[i] times 1/nranks in t (float16: the half
 * nearest it), to be summed (the sum divided after overflowed: float16 60000s gave inf) */
void host_premul(void *dst, const void *src, size_t n, int t, int nranks);

/* ---- whole files ---- */
/* The contents of path (NUL-terminated, malloc'd) and its size, or NULL. */
char *file_read(const char *path, size_t *n);
/* Writes n bytes to path (created 0600, truncated); 0 or -1. */
int file_write(const char *path, const void *data, size_t n);
/* Writes n bytes to fd; 0, or -1 on any failure. A write past a file size limit (ulimit
 * -f) fails with EFBIG and raises SIGXFSZ, whose default ends the process: the signal is
 * blocked meanwhile and the one the write raised taken back, so gpuhost's own writes
 * (the compile cache, a kernel's files) just fail in a program that embeds gpuhost too
 * (the gpuhost program catches the signal in every thread: main.c). */
int fd_write_all(int fd, const void *data, size_t n);
/* The same for writes another library makes (libzip's): SIGXFSZ blocked in this thread by
 * xfsz_block, then the mask given back by xfsz_restore, which takes back the signal a
 * write raised when failed is set (errno kept). */
void xfsz_block(sigset_t *old);
void xfsz_restore(const sigset_t *old, int failed);

/* ---- files of lua/ and kernels/ compiled into the binary (embed.c) ---- */
typedef struct EmbeddedFile { const char *name; const char *data; size_t size; } EmbeddedFile;
const EmbeddedFile *embedded_find(const char *name);   /* NULL when there is none */
/* A hash of every embedded file, names and contents (this build's Lua parts and kernel
 * sources): what a program named by a recipe instead of its source depends on besides */
uint64_t embedded_id(void);

#endif
