/* backend.c: which backend runs this process's kernels, chosen once, at the first GPU call
 * (gpuhost -e 'print(1)' chooses nothing): GPU_BACKEND=cuda insists on the GPU,
 * GPU_BACKEND=cpu takes the CPU; otherwise the CUDA driver when it finds a device, else the
 * CPU, with one line on stderr saying why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"

static const GpuBackend *chosen;

const GpuBackend *gpu_backend(void) {
  if (chosen) return chosen;
  const char *want = getenv("GPU_BACKEND");
  if (want && strcmp(want, "cpu") == 0) return chosen = &gpu_cpu_backend;
  if (want && strcmp(want, "cuda") == 0) return chosen = &gpu_cuda_backend;
  int n = 0;
  GpuResult r = cuda_load();
  if (r.code == 0) r = gpu_cuda_backend.device_count(&n);
  if (r.code == 0 && n > 0) return chosen = &gpu_cuda_backend;
  const char *why = r.code == 0 ? "the CUDA driver finds no device"
                  : r.source == GPU_SRC_HOST ? "no CUDA driver (libcuda.so.1)"
                  : cuda_error_name(r.code);
  fprintf(stderr, "gpuhost: %s; kernels run on the CPU backend (GPU_BACKEND=cuda to insist on a GPU)\n",
          why ? why : "no CUDA device");
  return chosen = &gpu_cpu_backend;
}

void gpu_image_free(GpuImage *img, int nnames) {
  if (img->lowered)
    for (int i = 0; i < nnames; i++) free(img->lowered[i]);
  free(img->lowered);
  free(img->data);
  free(img->log);
  memset(img, 0, sizeof *img);
}
