/* backend.c: which backend runs this process's kernels, chosen once, at the first GPU call
 * (gpuhost -e 'print(1)' chooses nothing): GPU_BACKEND=cuda insists on the GPU,
 * GPU_BACKEND=cpu takes the CPU; unset or empty, the CUDA driver when it finds a device,
 * else the CPU, with one line on stderr saying why; anything else is an error (gpu.c raises
 * it when the module opens). And the CPU backend's check of kernels with NVRTC. The only
 * file that names both backends. */
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

int backend_check_enabled(const char **why) {
  if (backend_get() != &cpu_backend) return 0;
  const char *s = getenv("GPUHOST_CHECK");
  if (s == NULL || *s == '\0' || strcmp(s, "1") == 0) return 1;
  if (strcmp(s, "0") == 0) return 0;
  *why = "GPUHOST_CHECK must be 1 (the CPU backend checks kernels with NVRTC) or 0";
  return -1;
}

GpuResult backend_check_compile(const GpuCompileJob *job, GpuImage *out) {
  memset(out, 0, sizeof *out);   /* freed by the caller on any failure */
  char arch[64];
  GpuCompileJob check = *job;
  GpuResult r = cuda_backend.arch(arch, sizeof arch);   /* the default: there is no device */
  if (r.code) return r;
  check.arch = arch;
  check.check_only = 1;
  r = cuda_backend.compile(&check, out);
  if (r.code == 0 || r.source == GPU_SRC_HOST) {   /* compiled, or no NVRTC to check with */
    image_free(out, job->nnames);
    return GPU_OK;
  }
  return r;
}

const char *backend_check_id(void) {
  static char id[4200];   /* found once: the library's file does not change under a process */
  if (id[0] == '\0' && cuda_backend.compiler_id(id, sizeof id).code != 0)
    snprintf(id, sizeof id, "no NVRTC");
  return id;
}

void image_free(GpuImage *img, int nnames) {
  if (img->lowered)
    for (int i = 0; i < nnames; i++) free(img->lowered[i]);
  free(img->lowered);
  free(img->data);
  free(img->log);
  memset(img, 0, sizeof *img);
}
