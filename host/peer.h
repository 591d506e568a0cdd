/* peer.h: copies between devices (peer.c), which copy.c's copies between two devices make,
 * and copy.c's reading of {stream = s} that a:to shares. */
#ifndef GPUHOST_PEER_H
#define GPUHOST_PEER_H
#include "gpu.h"

/* [-0, +1, e] A new C-ordered copy of the device array at idx on device dev (a view packed
 * on its device first), the peer copy queued on stream (of idx's device; NULL: its default) */
void peer_to(lua_State *L, int idx, int dev, CUstream stream);
/* [-0, +0, e] dst = src, device arrays of two devices, C-ordered with one dtype: one peer
 * copy on stream (sidx: its index); what names the user's call */
void peer_copy_into(lua_State *L, int dst, int src, CUstream stream, int sidx, const char *what);
/* [-0, +1, e] array_new's array on device dev, made current meanwhile (device_call) */
GpuArray *array_new_on(lua_State *L, int dev, const GpuShape *s, GpuDtype dt);
void peer_open(lua_State *L);   /* [-0, +0, e] a:to, into the methods table on top */
/* [-0, +1, e] (copy.c) The stream of the options at idx ({stream = s}; nil or none: no
 * options), pushed (nil when none) and returned; name: the user's call */
CUstream copy_stream_option(lua_State *L, int idx, const char *name);

#endif
