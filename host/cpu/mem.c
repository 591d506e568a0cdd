/* mem.c: device memory of the CPU backend. An array gets a mapping of its own that ends
 * at a guard page (with one before it too), so a kernel that runs past its end through a
 * raw pointer faults (pool.c reports it). Each such array costs the process three memory
 * mappings, and Linux allows about 65,530 (vm.max_map_count): once an eighth of that many
 * guarded arrays are alive, new arrays under 64 KiB are carved from shared 4 MiB slabs,
 * packed without guards between them, and larger ones get a mapping without guards, so a
 * million small arrays fit. A freed mapping is kept, its pages in place, for the next
 * array of about its size (as CUDA's pool keeps freed blocks): up to KEEP_BLOCKS of them
 * and a sixteenth of the machine's memory, the oldest unmapped first; cpu_trim unmaps
 * them all. Without it every new array's pages were faulted in and zeroed by the kernel
 * again as they were first written (a 4 MiB matrix product's result: about 1 ms on 2
 * cores, more on many, where each unmapping also interrupts every core the process runs
 * on). Kernel code's malloc and free use the same memory, from a heap of DEVICE_HEAP
 * bytes, as CUDA's. Copies are plain memory copies. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cpu_internal.h"

enum { A_GUARDED = 1, A_PLAIN, A_SLAB };
#define MIN_CLASS 8                   /* 256 bytes: device memory is 256-byte aligned */
#define NCLASSES 9                    /* 256 B .. 64 KiB */
#define SLAB_SIZE (4L * 1024 * 1024)
#define HUGE_FROM ((size_t)4 << 20)   /* arrays from 4 MiB on are advised to use huge pages */
#define KEEP_BLOCKS 64                /* freed mappings kept at most */

typedef struct Kept { char *map; size_t map_size; unsigned char kind; } Kept;

typedef struct Alloc {
  uintptr_t data;                     /* 0: an empty slot, 1: a removed one */
  char *map;                          /* its own mapping (guarded, plain), else NULL */
  size_t map_size, size;
  unsigned char kind, cls, heap;
} Alloc;

static struct {
  pthread_mutex_t mu;
  Alloc *slots;                       /* open addressing on data */
  size_t cap, used;                   /* used counts removed slots too */
  long guarded, guard_limit;
  void *free_list[NCLASSES];          /* freed slab pieces, linked through their first word */
  char *slab_next[NCLASSES], *slab_end[NCLASSES];
  size_t heap_used;
  Kept kept[KEEP_BLOCKS];             /* freed mappings, the oldest first */
  int nkept;
  size_t kept_bytes, keep_limit;      /* keep_limit 0: not yet read */
} mem = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, -1, {0}, {0}, {0}, 0, {{0}}, 0, 0, 0};

static size_t hash(uintptr_t p) { return (size_t)((p >> 8) * 0x9e3779b97f4a7c15ull); }

/* The slot of p, or NULL. */
static Alloc *find(uintptr_t p) {
  if (mem.cap == 0) return NULL;
  for (size_t i = hash(p) & (mem.cap - 1);; i = (i + 1) & (mem.cap - 1)) {
    if (mem.slots[i].data == p) return &mem.slots[i];
    if (mem.slots[i].data == 0) return NULL;
  }
}

static int insert(Alloc a);
/* Rehashes into a table twice as large, or as large when most slots are removed ones. */
static int grow(void) {
  size_t live = 0, oldcap = mem.cap;
  for (size_t i = 0; i < oldcap; i++) live += mem.slots[i].data > 1;
  size_t cap = oldcap == 0 ? 1024 : live * 4 > oldcap ? 2 * oldcap : oldcap;
  Alloc *old = mem.slots, *slots = calloc(cap, sizeof *slots);
  if (slots == NULL) return -1;
  mem.slots = slots;
  mem.cap = cap;
  mem.used = 0;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i].data > 1) insert(old[i]);
  free(old);
  return 0;
}

static int insert(Alloc a) {
  if ((mem.used + 1) * 2 > mem.cap && grow() != 0) return -1;
  size_t i = hash(a.data) & (mem.cap - 1);
  while (mem.slots[i].data > 1) i = (i + 1) & (mem.cap - 1);
  if (mem.slots[i].data == 0) mem.used++;
  mem.slots[i] = a;
  return 0;
}

static long guard_limit(void) {
  long limit = 65530;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  if (f) {
    if (fscanf(f, "%ld", &limit) != 1) limit = 65530;
    fclose(f);
  }
  return limit / 8;
}

/* A piece of class c from a slab; NULL when no slab can be mapped. */
static char *slab_piece(int c) {
  size_t size = (size_t)1 << (c + MIN_CLASS), page = (size_t)sysconf(_SC_PAGESIZE);
  if (mem.free_list[c]) {
    char *p = mem.free_list[c];
    mem.free_list[c] = *(void **)p;
    return p;
  }
  if (mem.slab_next[c] == NULL || mem.slab_next[c] + size > mem.slab_end[c]) {
    char *m = mmap(NULL, SLAB_SIZE + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (mprotect(m + page, SLAB_SIZE, PROT_READ | PROT_WRITE) != 0) { munmap(m, SLAB_SIZE + 2 * page); return NULL; }
    mem.slab_next[c] = m + page;
    mem.slab_end[c] = m + page + SLAB_SIZE;
  }
  char *p = mem.slab_next[c];
  mem.slab_next[c] += size;
  return p;
}

/* Takes kept[i] out of the kept mappings. */
static Kept unkeep(int i) {
  Kept k = mem.kept[i];
  memmove(&mem.kept[i], &mem.kept[i + 1], sizeof k * (size_t)(mem.nkept - i - 1));
  mem.nkept--;
  mem.kept_bytes -= k.map_size;
  return k;
}

/* Keeps a freed mapping for reuse; 0 when it is not kept (the caller unmaps it). */
static int keep(char *map, size_t map_size, unsigned char kind) {
  if (mem.keep_limit == 0)
    mem.keep_limit = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE) / 16;
  if (map_size > mem.keep_limit) return 0;
  while (mem.nkept == KEEP_BLOCKS || mem.kept_bytes + map_size > mem.keep_limit) {
    Kept old = unkeep(0);
    munmap(old.map, old.map_size);
  }
  /* Its pages stay in place, not marked MADV_FREE for the kernel to take back: on a
   * 32-core host that made the next array's first writes fault again (a 1024^3 matmul
   * into a new array 2.30 ms against 1.50 into an existing one; 1.50 and 1.63 without). */
  mem.kept[mem.nkept++] = (Kept){map, map_size, kind};
  mem.kept_bytes += map_size;
  return 1;
}

/* The smallest kept mapping of kind whose map_size is from want to an eighth over it (of
 * those, the last freed: its pages are the likeliest to be in memory and in the caches),
 * taken out of the kept ones; map NULL when none. */
static Kept kept_take(size_t want, unsigned char kind) {
  int best = -1;
  for (int i = 0; i < mem.nkept; i++) {
    const Kept *k = &mem.kept[i];
    if (k->kind == kind && k->map_size >= want && k->map_size - want <= want / 8 &&
        (best < 0 || k->map_size <= mem.kept[best].map_size))
      best = i;
  }
  return best < 0 ? (Kept){NULL, 0, 0} : unkeep(best);
}

/* n bytes in a mapping of their own, ending at a guard page when guarded: a kept one of
 * about that size, else a new one. */
static int own_mapping(Alloc *a, size_t n, int guarded) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t data = (n + 15) / 16 * 16, body = (data + page - 1) / page * page;
  unsigned char kind = guarded ? A_GUARDED : A_PLAIN;
  Kept k = kept_take(guarded ? body + 2 * page : body, kind);
  if (k.map) {
    body = guarded ? k.map_size - 2 * page : k.map_size;
  } else {
    k.map_size = guarded ? body + 2 * page : body;
    k.map = mmap(NULL, k.map_size, guarded ? PROT_NONE : PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (k.map == MAP_FAILED) return -1;
    if (guarded && mprotect(k.map + page, body, PROT_READ | PROT_WRITE) != 0) {
      munmap(k.map, k.map_size);
      return -1;
    }
    /* large arrays in 2 MiB pages where the kernel allows (as numpy's): a first touch then
     * faults once per 2 MiB, not per 4 KiB */
    if (body >= HUGE_FROM) madvise(guarded ? k.map + page : k.map, body, MADV_HUGEPAGE);
  }
  a->map = k.map;
  a->map_size = k.map_size;
  a->data = (uintptr_t)(guarded ? k.map + page + body - data : k.map);
  a->kind = kind;
  return 0;
}

/* Unmaps every kept mapping, holding mem.mu. */
static void unkeep_all(void) {
  while (mem.nkept > 0) {
    Kept k = unkeep(mem.nkept - 1);
    munmap(k.map, k.map_size);
  }
}

/* Allocates n > 0 bytes, holding mem.mu; 0 when there is no memory. */
static uintptr_t alloc_locked(size_t n, int heap) {
  Alloc a = {0};
  a.size = n;
  a.heap = (unsigned char)heap;
  if (mem.guard_limit < 0) mem.guard_limit = guard_limit();
  int small = n <= ((size_t)1 << (MIN_CLASS + NCLASSES - 1));
  if (mem.guarded < mem.guard_limit || !small) {
    if (own_mapping(&a, n, mem.guarded < mem.guard_limit) != 0) return 0;
  } else {
    int c = 0;
    while (((size_t)1 << (c + MIN_CLASS)) < n) c++;
    char *p = slab_piece(c);
    if (p == NULL) return 0;
    a.data = (uintptr_t)p;
    a.kind = A_SLAB;
    a.cls = (unsigned char)c;
  }
  if (insert(a) != 0) {
    if (a.map) munmap(a.map, a.map_size);
    return 0;
  }
  if (a.kind == A_GUARDED) mem.guarded++;
  return a.data;
}

static void release_locked(Alloc *a) {
  if (a->kind == A_SLAB) {
    *(void **)a->data = mem.free_list[a->cls];
    mem.free_list[a->cls] = (void *)a->data;
  } else {
    if (!keep(a->map, a->map_size, a->kind)) munmap(a->map, a->map_size);
    if (a->kind == A_GUARDED) mem.guarded--;
  }
  if (a->heap) mem.heap_used -= a->size;
  a->data = 1;
}

/* Gives the kept mappings back (gpu.empty_cache(), an allocation that failed): memory is
 * the whole process's here, so for every device. */
GpuResult cpu_trim(int device) {
  (void)device;
  pthread_mutex_lock(&mem.mu);
  unkeep_all();
  pthread_mutex_unlock(&mem.mu);
  return GPU_OK;
}

GpuResult cpu_alloc(CUdeviceptr *p, size_t n) {
  GpuResult oom = GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "mmap (CPU backend)");
  if (n > (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE)) return oom;   /* as a GPU would */
  pthread_mutex_lock(&mem.mu);
  uintptr_t d = alloc_locked(n, 0);
  pthread_mutex_unlock(&mem.mu);
  if (d == 0) return oom;
  *p = (CUdeviceptr)d;
  return GPU_OK;
}

GpuResult cpu_free(CUdeviceptr p, int device) {
  (void)device;
  pthread_mutex_lock(&mem.mu);
  Alloc *a = find((uintptr_t)p);
  if (a && !a->heap) release_locked(a);
  pthread_mutex_unlock(&mem.mu);
  return a && !a->heap ? GPU_OK : GPU_FAIL(CUDA_ERROR_INVALID_VALUE, GPU_SRC_CUDA, "cuMemFree (CPU backend)");
}

void *cpu_device_malloc(size_t n, size_t align) {
  uintptr_t d = 0;
  if (align == 0 || (align & (align - 1)) != 0 || align > (size_t)sysconf(_SC_PAGESIZE)) return NULL;
  if (n == 0) n = 1;
  /* a size of a multiple of align, up to a page, is aligned to it: a slab's piece (of a
   * power of two, on a page), the end of a guarded mapping less it, a mapping's start */
  if (align > 16 && (n = (n + align - 1) / align * align) < align) return NULL;
  pthread_mutex_lock(&mem.mu);
  if (n <= DEVICE_HEAP - mem.heap_used && (d = alloc_locked(n, 1)) != 0) mem.heap_used += n;
  pthread_mutex_unlock(&mem.mu);
  return (void *)d;
}

int cpu_device_free(void *p) {
  if (p == NULL) return 0;
  pthread_mutex_lock(&mem.mu);
  Alloc *a = find((uintptr_t)p);
  int ok = a && a->heap;
  if (ok) release_locked(a);
  pthread_mutex_unlock(&mem.mu);
  return ok ? 0 : -1;
}

GpuResult cpu_host_alloc(void **p, size_t n) {
  *p = malloc(n);
  return *p ? GPU_OK : GPU_FAIL(CUDA_ERROR_OUT_OF_MEMORY, GPU_SRC_CUDA, "malloc (CPU backend)");
}
GpuResult cpu_host_free(void *p) { free(p); return GPU_OK; }
GpuResult cpu_htod(CUdeviceptr dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return GPU_OK;
}
GpuResult cpu_dtoh(void *dst, CUdeviceptr src, size_t n) {
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return GPU_OK;
}
GpuResult cpu_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return GPU_OK;
}
GpuResult cpu_memset0(CUdeviceptr p, size_t n) {
  memset((void *)(uintptr_t)p, 0, n);
  return GPU_OK;
}
