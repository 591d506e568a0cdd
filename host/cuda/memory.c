/* memory.c: device memory, from CUDA's stream-ordered allocator where the device has it,
 * and copies. Allocations and frees are ordered in the default stream, which waits for
 * (and is waited for by) every other stream gpuhost makes; while a capture runs they go
 * at once to its side stream instead (graph.c), and copies to the host are refused. */
#include <stdlib.h>
#include "cuda_internal.h"

/* The default memory pool keeps what is freed for the next allocation, which makes an
 * allocate/free pair cost little more than a function call. Past a synchronization it
 * keeps what gpuhost's arrays hold plus a sixteenth of the device's memory (its release
 * threshold, which cuda_hold moves with the arrays), so memory a script dropped beyond
 * that goes back to the driver, for other processes and for libraries that allocate
 * outside the pool, while a loop that drops a large array and makes the next one is
 * served from the pool; cuda_trim gives back the rest. Sets d->pool (NULL: plain
 * cuMemAlloc). */
void cuda_use_pool(CudaDevice *d, CUdevice dev) {
  int supported = 0;
  CUmemoryPool pool;
  size_t total = 0;
  d->pool = NULL;
  if (!drv.cuMemAllocAsync || !drv.cuMemFreeAsync || !drv.cuDeviceGetDefaultMemPool ||
      !drv.cuMemPoolSetAttribute || !drv.cuMemPoolTrimTo) return;
  if (drv.cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev)
      != CUDA_SUCCESS || !supported || drv.cuDeviceTotalMem(&total, dev) != CUDA_SUCCESS)
    return;
  cuuint64_t keep = total / 16;
  if (drv.cuDeviceGetDefaultMemPool(&pool, dev) != CUDA_SUCCESS ||
      drv.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != CUDA_SUCCESS)
    return;
  d->pool = pool;
  d->total = total;
  d->keep = keep;
}

/* device.c tells what the arrays of device hold after an allocation or a free that
 * reached the pool: the release threshold becomes that plus a sixteenth of the device's
 * memory. Without it, a script whose arrays hold more than the sixteenth had each freed
 * block given back at the next synchronization and mapped anew by the next allocation
 * (0.8 ms for 512 MiB on an H200). It is set again only when it moved by more than a
 * sixty-fourth of the device's memory, so it seldom costs a driver call. */
void cuda_hold(int device, size_t held) {
  if (device < 0 || device >= GPU_MAX_DEVICES) return;
  CudaDevice *d = &devices[device];
  if (!d->pool || d->lost.code) return;
  cuuint64_t keep = held + d->total / 16, step = d->total / 64;
  if (keep <= d->keep + step && keep + step >= d->keep) return;
  if (drv.cuMemPoolSetAttribute(d->pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) == CUDA_SUCCESS)
    d->keep = keep;
}

GpuResult cuda_mem_info(size_t *free_bytes, size_t *total_bytes) {
  GpuResult r = cuda_ensure_context();
  if (r.code) return r;
  ALIVE("cuMemGetInfo(free_bytes, total_bytes)");
  TRY(drv.cuMemGetInfo(free_bytes, total_bytes));
  return GPU_OK;
}

GpuResult cuda_alloc(CUdeviceptr *p, size_t n) {
  QUEUES("cuMemAllocAsync(p, n, NULL)", 1);
  CUmemoryPool pool = devices[current].pool;
  if (cuda_side && !pool)
    return cuda_not_while_capturing("an allocation outside the stream-ordered pool",
                                    "cuMemAlloc(p, n)");
  if (pool) TRY(drv.cuMemAllocAsync(p, n, cuda_side));
  else TRY(drv.cuMemAlloc(p, n));
  return GPU_OK;
}

GpuResult cuda_free(CUdeviceptr p, int device) {
  if (device >= 0 && device < GPU_MAX_DEVICES && devices[device].lost.code)
    return GPU_OK;                  /* it went with the context */
  int was = current;
  if (device != current && device >= 0) {
    GpuResult r = cuda_use_device(device);
    if (r.code) return r;
  }
  CUmemoryPool pool = devices[device].pool;
  if (nccl_out) {   /* a free is queued too; cuMemFree synchronizes */
    if (!pool) nccl_throttle_quietly(1, "cuMemFree(p)");
    else if (++nccl_entries > nccl_due) nccl_throttle_quietly(0, "cuMemFreeAsync(p, NULL)");
  }
  CUresult r = pool ? drv.cuMemFreeAsync(p, cuda_side) : drv.cuMemFree(p);
  if (pool && r == CUDA_SUCCESS) cuda_queued(cuda_side);
  GpuResult res = cuda_released(r, pool ? "cuMemFreeAsync(p, NULL)" : "cuMemFree(p)");
  if (was != current && was >= 0) cuda_use_device(was);
  return res;
}

int cuda_ordered(int device) {
  return device >= 0 && device < GPU_MAX_DEVICES && !cuda_implicit && devices[device].pool &&
         !devices[device].elsewhere && !devices[device].lost.code;
}

/* Gives back what the device's pool keeps, once the work before now (the frees among it)
 * is done. */
GpuResult cuda_trim(int device) {
  if (device < 0 || device >= GPU_MAX_DEVICES || devices[device].context == NULL ||
      !devices[device].pool || devices[device].lost.code || cuda_side)
    return GPU_OK;
  int was = current;
  GpuResult r = device == current ? GPU_OK : cuda_use_device(device);
  if (r.code == 0) r = cuda_wait_idle("cuMemPoolTrimTo(pool, 0)");
  CUresult t = r.code ? CUDA_SUCCESS : drv.cuMemPoolTrimTo(devices[device].pool, 0);
  if (t != CUDA_SUCCESS) r = cuda_failed(t, "cuMemPoolTrimTo(pool, 0)");
  if (was != current && was >= 0) cuda_use_device(was);
  return r;
}

GpuResult cuda_host_alloc(void **p, size_t n) { TRY(drv.cuMemHostAlloc(p, n, 0)); return GPU_OK; }
GpuResult cuda_host_free(void *p) {
  if (nccl_out) nccl_throttle_quietly(1, "cuMemFreeHost(p)");   /* it synchronizes */
  return cuda_released(drv.cuMemFreeHost(p), "cuMemFreeHost(p)");
}

/* Synchronous copies wait for the work before them: interruptibly, first. A copy to the
 * device runs at once during a capture too (it is not recorded); a copy to the host
 * cannot be captured: what it would read is not there until the graph runs. */
GpuResult cuda_htod(CUdeviceptr dst, const void *src, size_t n) {
  ALIVE("cuMemcpyHtoD(dst, src, n)");
  GpuResult r = cuda_wait_idle("cuMemcpyHtoD(dst, src, n)");
  if (r.code) return r;
  if (cuda_tracing()) cuda_trace_copy("htod", n);
  CUresult c = drv.cuMemcpyHtoD(dst, src, n);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return cuda_failed(c, "cuMemcpyHtoD(dst, src, n)");
  return GPU_OK;
}

GpuResult cuda_dtoh(void *dst, CUdeviceptr src, size_t n) {
  ALIVE("cuMemcpyDtoH(dst, src, n)");
  if (cuda_implicit)
    return cuda_not_while_capturing("a copy from the device to the host", "cuMemcpyDtoH(dst, src, n)");
  GpuResult r = cuda_wait_idle("cuMemcpyDtoH(dst, src, n)");
  if (r.code) return r;
  if (cuda_tracing()) cuda_trace_copy("dtoh", n);
  CUresult c = drv.cuMemcpyDtoH(dst, src, n);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return cuda_failed(c, "cuMemcpyDtoH(dst, src, n)");
  return GPU_OK;
}

/* ordered in the default stream like a kernel; the host does not wait */
GpuResult cuda_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  QUEUES("cuMemcpyDtoDAsync(dst, src, n, NULL)", 1);
  if (cuda_tracing()) cuda_trace_copy("dtod", n);
  CUresult c = drv.cuMemcpyDtoDAsync(dst, src, n, cuda_implicit);
  cuda_queued(cuda_implicit);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return cuda_failed(c, "cuMemcpyDtoDAsync(dst, src, n, NULL)");
  return GPU_OK;
}

/* Copies queued on a stream (NULL: the default one); the host does not wait, and pinned
 * host memory is read or written when the stream gets there. While a capture runs they
 * behave as the copies above: to the device at once, to the host refused, on the device
 * recorded. */
GpuResult cuda_htod_async(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  if (cuda_implicit) return cuda_htod(dst, src, n);
  QUEUES("cuMemcpyHtoDAsync(dst, src, n, s)", 1);
  TRY(drv.cuMemcpyHtoDAsync(dst, src, n, s));
  cuda_queued(s);
  return GPU_OK;
}
GpuResult cuda_dtoh_async(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  if (cuda_implicit) return cuda_dtoh(dst, src, n);
  QUEUES("cuMemcpyDtoHAsync(dst, src, n, s)", 1);
  TRY(drv.cuMemcpyDtoHAsync(dst, src, n, s));
  cuda_queued(s);
  return GPU_OK;
}
GpuResult cuda_dtod_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  QUEUES("cuMemcpyDtoDAsync(dst, src, n, s)", 1);
  CUstream on = cuda_stream_for(s);
  TRY(drv.cuMemcpyDtoDAsync(dst, src, n, on));
  cuda_queued(on);
  return GPU_OK;
}

GpuResult cuda_memset0(CUdeviceptr p, size_t n) {
  QUEUES("cuMemsetD8Async(p, 0, n, NULL)", 1);
  TRY(drv.cuMemsetD8Async(p, 0, n, cuda_implicit));
  cuda_queued(cuda_implicit);
  return GPU_OK;
}

/* Peer access between two devices, tried once per direction (the current one to peer) */
static void enable_peer(int peer) {
  CudaDevice *d = &devices[current];
  if (d->peers[peer]) return;
  int can = 0;
  CUdevice a, b;
  d->peers[peer] = 2;
  if (drv.cuDeviceGet(&a, current) != CUDA_SUCCESS || drv.cuDeviceGet(&b, peer) != CUDA_SUCCESS ||
      drv.cuDeviceCanAccessPeer(&can, a, b) != CUDA_SUCCESS || !can) return;
  CUresult r = drv.cuCtxEnablePeerAccess(devices[peer].context, 0);
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) d->peers[peer] = 1;
}

/* Made current: device dev, with its peer event */
static GpuResult enter(int dev) {
  GpuResult r = cuda_use_device(dev);
  if (r.code) return r;
  ALIVE("cuMemcpyPeerAsync(dst, dctx, src, sctx, n, s)");
  if (!devices[dev].peer) TRY(drv.cuEventCreate(&devices[dev].peer, CU_EVENT_DISABLE_TIMING));
  return GPU_OK;
}

/* On src_dev's stream s (NULL: its default stream), after the work queued on both
 * devices' default streams, and before what they are given next */
static GpuResult peer_copy(CUdeviceptr dst, int dst_dev, CUdeviceptr src, int src_dev, size_t n,
                           CUstream s) {
  if (!drv.cuMemcpyPeerAsync || !drv.cuCtxEnablePeerAccess || !drv.cuDeviceCanAccessPeer)
    return (GpuResult){GPU_ERR_NO_SYMBOL, GPU_SRC_HOST, "cuGetProcAddress(\"cuMemcpyPeerAsync\")",
                       "the CUDA driver has no peer copies", NULL};
  if (cuda_implicit) return cuda_not_while_capturing("a copy between devices", "cuMemcpyPeerAsync");
  QUEUES("cuMemcpyPeerAsync(dst, dctx, src, sctx, n, s)", 6);
  GpuResult r = enter(dst_dev);
  if (r.code) return r;
  enable_peer(src_dev);
  TRY(drv.cuEventRecord(devices[dst_dev].peer, NULL));
  if ((r = enter(src_dev)).code) return r;
  enable_peer(dst_dev);
  if (cuda_tracing()) cuda_trace_copy("peer", n);
  CUresult c = drv.cuStreamWaitEvent(s, devices[dst_dev].peer, 0);
  if (c == CUDA_SUCCESS)
    c = drv.cuMemcpyPeerAsync(dst, devices[dst_dev].context, src, devices[src_dev].context, n, s);
  if (cuda_tracing()) cuda_range_pop();
  if (c != CUDA_SUCCESS) return cuda_failed(c, "cuMemcpyPeerAsync(dst, dctx, src, sctx, n, s)");
  cuda_queued(s);   /* dst_dev's default stream waits for the copy below; src_dev's may not */
  TRY(drv.cuEventRecord(devices[src_dev].peer, s));
  if ((r = enter(dst_dev)).code) return r;
  TRY(drv.cuStreamWaitEvent(NULL, devices[src_dev].peer, 0));
  return GPU_OK;
}

/* The copy, with the device that was current made current again (a copy to device 1 left
 * device 1 current, and the caller's next call then ran there) */
GpuResult cuda_peer_copy(CUdeviceptr dst, int dst_dev, CUdeviceptr src, int src_dev, size_t n,
                         CUstream s) {
  int was = current;
  GpuResult r = peer_copy(dst, dst_dev, src, src_dev, n, s);
  if (was >= 0 && current != was) {
    GpuResult back = cuda_use_device(was);
    if (r.code == 0) r = back;
  }
  return r;
}
