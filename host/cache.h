/* cache.h: the on-disk compile cache (cache.c). It knows nothing of Lua or of backends: an
 * entry is bytes and names under a key that program.c builds. */
#ifndef GPUHOST_CACHE_H
#define GPUHOST_CACHE_H

#include <stddef.h>

/* What an entry holds: the image (a cubin or a CPU library) and one lowered name per
 * kernel; malloc'd, free with cache_entry_free. */
typedef struct CacheEntry { char *cubin; size_t cubin_size; char **lowered; } CacheEntry;
/* 1 and the entry for key when the cache has a sound one; 0 otherwise. */
int cache_load(const char *key, size_t keylen, int nnames, CacheEntry *e);
void cache_entry_free(CacheEntry *e, int nnames);
/* Stores an entry; failures leave the cache as it was (a cache is never needed). */
void cache_store(const char *key, size_t keylen, const char *cubin, size_t cubin_size,
                 char *const *lowered, int nnames);

#endif
