/* backend.c: which backend runs this process's kernels, chosen once, at the first GPU call
 * (gpuhost -e 'print(1)' chooses nothing): GPU_BACKEND=cuda insists on the GPU,
 * GPU_BACKEND=cpu takes the CPU; unset or empty, the CUDA driver when it finds a device,
 * else the CPU, with one line on stderr saying why; anything else is an error (gpu.c raises
 * it when the module opens). The only file that names both backends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static const GpuBackend *chosen;

volatile sig_atomic_t backend_interrupted;

int backend_take_interrupt(void) {
  if (!backend_interrupted) return 0;
  backend_interrupted = 0;
  return 1;
}

const char *backend_wanted(void) {
  const char *want = getenv("GPU_BACKEND");
  if (want == NULL || *want == '\0') return "";
  if (strcmp(want, "cpu") == 0 || strcmp(want, "cuda") == 0) return want;
  return NULL;
}

const GpuBackend *backend_get(void) {
  if (chosen) return chosen;
  /* a GPU_BACKEND that is neither was refused when the gpu module opened (gpu.c) */
  const char *want = backend_wanted();
  if (want && strcmp(want, "cpu") == 0) return chosen = &cpu_backend;
  if (want && strcmp(want, "cuda") == 0) return chosen = &cuda_backend;
  int n = 0;
  GpuResult r = cuda_backend.device_count(&n);
  if (r.code == 0 && n > 0) return chosen = &cuda_backend;
  const char *why = r.code == 0 ? "the CUDA driver finds no device"
                  : r.source == GPU_SRC_HOST ? "no CUDA driver (libcuda.so.1)" : result_name(r);
  fprintf(stderr, "gpuhost: %s; kernels run on the CPU backend (GPU_BACKEND=cuda to insist on a GPU)\n",
          why ? why : "no CUDA device");
  return chosen = &cpu_backend;
}

void image_free(GpuImage *img, int nnames) {
  if (img->lowered)
    for (int i = 0; i < nnames; i++) free(img->lowered[i]);
  free(img->lowered);
  free(img->data);
  free(img->log);
  memset(img, 0, sizeof *img);
}
