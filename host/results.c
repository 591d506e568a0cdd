/* results.c: the names and descriptions of results, from data: CUresult names and texts
 * and nvrtcResult names come from the toolkit's headers at build time (build/cuda_errors.h,
 * build/nvrtc_errors.h, by scripts/gen_errors.awk), so they are there even when neither
 * library can be loaded; gpuhost's own codes are named here. */
#include <stddef.h>
#include "util.h"

static const struct { int code; const char *name, *text; } cuda_errors[] = {
#include "cuda_errors.h"
};

static const struct { int code; const char *name; } nvrtc_errors[] = {
#include "nvrtc_errors.h"
};

static const char *const host_errors[] = {
  [GPU_ERR_NO_DRIVER] = "GPUHOST_NO_DRIVER",
  [GPU_ERR_NO_NVRTC] = "GPUHOST_NO_NVRTC",
  [GPU_ERR_NO_SYMBOL] = "GPUHOST_MISSING_SYMBOL",
  [GPU_ERR_CPU_COMPILE] = "GPUHOST_CPU_COMPILATION",
  [GPU_ERR_CPU_UNSUPPORTED] = "GPUHOST_CPU_UNSUPPORTED",
  [GPU_ERR_INTERRUPTED] = "GPUHOST_INTERRUPTED",
  [GPU_ERR_CONTEXT_LOST] = "GPUHOST_CONTEXT_LOST",
  [GPU_ERR_NOT_CAPTURABLE] = "GPUHOST_NOT_CAPTURABLE",
  [GPU_ERR_MEMORY_LIMIT] = "GPUHOST_MEMORY_LIMIT",
  [GPU_ERR_BAD_SETTING] = "GPUHOST_BAD_SETTING",
  [GPU_ERR_NO_NCCL] = "GPUHOST_NO_NCCL",
  [GPU_ERR_NO_MPI] = "GPUHOST_NO_MPI",
  [GPU_ERR_NCCL] = "GPUHOST_NCCL_ERROR",
  [GPU_ERR_MPI] = "GPUHOST_MPI_ERROR",
  [GPU_ERR_COMM_FAILED] = "GPUHOST_COMM_FAILED",
  [GPU_ERR_COMM_MISMATCH] = "GPUHOST_COMM_MISMATCH",
  [GPU_ERR_NO_LIBRARY] = "GPUHOST_NO_LIBRARY",
  [GPU_ERR_LIBRARY] = "GPUHOST_LIBRARY_FAILED",
};

const char *result_name(GpuResult r) {
  switch (r.source) {
    case GPU_SRC_CUDA:
      for (size_t i = 0; i < sizeof cuda_errors / sizeof cuda_errors[0]; i++)
        if (cuda_errors[i].code == r.code) return cuda_errors[i].name;
      return NULL;
    case GPU_SRC_NVRTC:
      for (size_t i = 0; i < sizeof nvrtc_errors / sizeof nvrtc_errors[0]; i++)
        if (nvrtc_errors[i].code == r.code) return nvrtc_errors[i].name;
      return NULL;
    case GPU_SRC_HOST:
      if (r.code > 0 && (size_t)r.code < sizeof host_errors / sizeof host_errors[0])
        return host_errors[r.code];
      return NULL;
  }
  return NULL;
}

const char *cuda_description(int code) {
  for (size_t i = 0; i < sizeof cuda_errors / sizeof cuda_errors[0]; i++)
    if (cuda_errors[i].code == code) return cuda_errors[i].text;
  return NULL;
}
