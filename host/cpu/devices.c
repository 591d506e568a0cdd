/* devices.c: the CPU backend's devices. The machine is one device, or GPUHOST_CPU_DEVICES
 * of them (1 to GPU_MAX_DEVICES, read strictly): each is the whole machine, with arrays,
 * streams and kernels of its own as far as gpuhost's checks go, so that scripts and specs
 * for several GPUs run here. A copy between two of them is a plain copy. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu_internal.h"
#include "util.h"

static int ndevices;           /* 0 until read */

/* The cores this process may run on (its affinity: taskset, a container's cpuset), as
 * nproc counts them; the machine's online cores where the mask cannot be read. */
long cpu_cores(void) {
  cpu_set_t set;
  long n = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n;
}
static int current_dev;

GpuResult cpu_device_count(int *n) {
  if (ndevices == 0) {
    int bad;
    long v = env_long("GPUHOST_CPU_DEVICES", 1, GPU_MAX_DEVICES, 1, &bad);
    if (bad)
      return cpu_fail((GpuResult){GPU_ERR_BAD_SETTING, GPU_SRC_HOST, "GPUHOST_CPU_DEVICES", NULL, NULL},
                      "GPUHOST_CPU_DEVICES='%s': a whole number of devices from 1 to %d expected",
                      getenv("GPUHOST_CPU_DEVICES"), GPU_MAX_DEVICES);
    ndevices = (int)v;
  }
  *n = ndevices;
  return GPU_OK;
}

GpuResult cpu_device_info(int ordinal, GpuDeviceInfo *info) {
  int n;
  GpuResult r = cpu_device_count(&n);
  if (r.code) return r;
  if (ordinal < 0 || ordinal >= n)
    return GPU_FAIL(CUDA_ERROR_INVALID_DEVICE, GPU_SRC_CUDA, "cuDeviceGet (CPU backend)");
  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "CPU (%ld cores)", cpu_cores());
  info->multiprocessors = (int)cpu_cores();
  info->max_threads_per_block = MAX_BLOCK_THREADS;
  info->warp_size = 32;
  info->total_memory = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
  return GPU_OK;
}

GpuResult cpu_use_device(int ordinal) {
  GpuDeviceInfo info;
  GpuResult r = cpu_device_info(ordinal, &info);
  if (r.code == 0) current_dev = ordinal;
  return r;
}

GpuResult cpu_ensure_context(void) {
  int n;
  return cpu_device_count(&n);
}

int cpu_current_device(void) { return current_dev; }

/* Streams run in order, so the copy is done at once (recorded while a capture runs). */
GpuResult cpu_peer_copy(CUdeviceptr dst, int dst_dev, CUdeviceptr src, int src_dev, size_t n,
                        CUstream stream) {
  (void)dst_dev;
  (void)src_dev;
  (void)stream;
  return cpu_rec_peer(dst, src, n);
}
