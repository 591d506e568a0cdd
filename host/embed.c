/* embed.c: the Lua files of lua/ (gpu.jit's as bytecode) and the CUDA sources of kernels/,
 * compiled into the binary (the assembler's .incbin), so gpuhost and gpu.so are single
 * files. A file to embed is one line of EMBEDDED_FILES (and its path in the Makefile's
 * EMBEDDED, so that embed.o is rebuilt when it changes). */
#include <string.h>
#include "util.h"

/* X(symbol, the name embedded_find knows it by, the file that is embedded) */
#define EMBEDDED_FILES(X) \
  X(embed_gpu_lua, "lua/gpu.lua", "build/lua/gpu.luac") \
  X(embed_signature_lua, "lua/signature.lua", "build/lua/signature.luac") \
  X(embed_format_lua, "lua/format.lua", "build/lua/format.luac") \
  X(embed_complete_lua, "lua/complete.lua", "lua/complete.lua") \
  X(embed_arrays_lua, "lua/arrays.lua", "build/lua/arrays.luac") \
  X(embed_codegen_lua, "lua/codegen.lua", "build/lua/codegen.luac") \
  X(embed_fuse_lua, "lua/fuse.lua", "build/lua/fuse.luac") \
  X(embed_elementwise_lua, "lua/elementwise.lua", "build/lua/elementwise.luac") \
  X(embed_npy_lua, "lua/npy.lua", "build/lua/npy.luac") \
  X(embed_compose_lua, "lua/compose.lua", "build/lua/compose.luac") \
  X(embed_linalg_lua, "lua/linalg.lua", "build/lua/linalg.luac") \
  X(embed_shape_lua, "lua/shape.lua", "build/lua/shape.luac") \
  X(embed_stats_lua, "lua/stats.lua", "build/lua/stats.luac") \
  X(embed_functional_lua, "lua/functional.lua", "build/lua/functional.luac") \
  X(embed_sets_lua, "lua/sets.lua", "build/lua/sets.luac") \
  X(embed_numeric_lua, "lua/numeric.lua", "build/lua/numeric.luac") \
  X(embed_einsum_lua, "lua/einsum.lua", "build/lua/einsum.luac") \
  X(embed_fft_lua, "lua/fft.lua", "build/lua/fft.luac") \
  X(embed_ufuncs_lua, "lua/ufuncs.lua", "build/lua/ufuncs.luac") \
  X(embed_ndimage_lua, "lua/ndimage.lua", "build/lua/ndimage.luac") \
  X(embed_ndimage_interp_lua, "lua/ndimage_interp.lua", "build/lua/ndimage_interp.luac") \
  X(embed_ndimage_morph_lua, "lua/ndimage_morph.lua", "build/lua/ndimage_morph.luac") \
  X(embed_ndimage_distance_lua, "lua/ndimage_distance.lua", "build/lua/ndimage_distance.luac") \
  X(embed_sparse_lua, "lua/sparse.lua", "build/lua/sparse.luac") \
  X(embed_sparse_linalg_lua, "lua/sparse_linalg.lua", "build/lua/sparse_linalg.luac") \
  X(embed_special_lua, "lua/special.lua", "build/lua/special.luac") \
  X(embed_jit_lua, "lua/jit/jit.lua", "build/jit/jit.luac") \
  X(embed_jit_lex_lua, "lua/jit/lex.lua", "build/jit/lex.luac") \
  X(embed_jit_parse_lua, "lua/jit/parse.lua", "build/jit/parse.luac") \
  X(embed_jit_scan_lua, "lua/jit/scan.lua", "build/jit/scan.luac") \
  X(embed_jit_stamp, "lua/jit/stamp", "build/jit/stamp") \
  X(embed_jit_types_lua, "lua/jit/types.lua", "build/jit/types.luac") \
  X(embed_jit_intrinsics_lua, "lua/jit/intrinsics.lua", "build/jit/intrinsics.luac") \
  X(embed_jit_infer_lua, "lua/jit/infer.lua", "build/jit/infer.luac") \
  X(embed_jit_emit_lua, "lua/jit/emit.lua", "build/jit/emit.luac") \
  X(embed_jit_vectorize_lua, "lua/jit/vectorize.lua", "build/jit/vectorize.luac") \
  X(embed_jit_reduce_lua, "lua/jit/reduce.lua", "build/jit/reduce.luac") \
  X(embed_gpuhost_cuh, "kernels/gpuhost.cuh", "kernels/gpuhost.cuh") \
  X(embed_builtin_cu, "kernels/builtin.cu", "kernels/builtin.cu") \
  X(embed_ndimage_cu, "kernels/ndimage.cu", "kernels/ndimage.cu") \
  X(embed_ndimage_interp_cu, "kernels/ndimage_interp.cu", "kernels/ndimage_interp.cu") \
  X(embed_ndimage_morph_cu, "kernels/ndimage_morph.cu", "kernels/ndimage_morph.cu") \
  X(embed_ndimage_distance_cu, "kernels/ndimage_distance.cu", "kernels/ndimage_distance.cu") \
  X(embed_sparse_cu, "kernels/sparse.cu", "kernels/sparse.cu") \
  X(embed_convolve_cu, "kernels/convolve.cu", "kernels/convolve.cu") \
  X(embed_ew_cuh, "kernels/ops/ew.cuh", "kernels/ops/ew.cuh") \
  X(embed_complex_cuh, "kernels/ops/complex.cuh", "kernels/ops/complex.cuh") \
  X(embed_special_cuh, "kernels/special.cuh", "kernels/special.cuh") \
  X(embed_random_lua, "lua/random.lua", "lua/random.lua") \
  X(embed_sort_cuh, "kernels/ops/sort.cuh", "kernels/ops/sort.cuh") \
  X(embed_sort_lua, "lua/sort.lua", "lua/sort.lua") \
  X(embed_scan_cuh, "kernels/ops/scan.cuh", "kernels/ops/scan.cuh") \
  X(embed_reduction_lua, "lua/reduction.lua", "build/lua/reduction.luac") \
  X(embed_red_cuh, "kernels/ops/red.cuh", "kernels/ops/red.cuh") \
  X(embed_cpu_h, "kernels/cpu.h", "kernels/cpu.h") \
  X(embed_cpu_cg_h, "kernels/cpu_cooperative_groups.h", "kernels/cpu_cooperative_groups.h") \
  X(embed_cpu_abi_h, "kernels/gpuhost_cpu_abi.h", "kernels/gpuhost_cpu_abi.h") \
  X(embed_portable_h, "kernels/gpuhost_portable.h", "kernels/gpuhost_portable.h") \
  X(embed_cpu_half_h, "kernels/cpu_half.h", "kernels/cpu_half.h") \
  X(embed_cpu_assert_h, "kernels/cpu_assert.h", "kernels/cpu_assert.h") \
  X(embed_cpu_simd_h, "kernels/cpu_simd.h", "kernels/cpu_simd.h")

#define EMBED(sym, name, path) \
  __asm__(".section .rodata\n.global " #sym "\n.hidden " #sym "\n.balign 16\n" #sym ":\n" \
          ".incbin \"" path "\"\n.global " #sym "_end\n.hidden " #sym "_end\n" #sym "_end:\n" \
          ".byte 0\n.previous\n"); \
  extern const char sym[], sym##_end[];
EMBEDDED_FILES(EMBED)
#undef EMBED

/* The embedded files, sized (a section's size is known at link time, not as a constant). */
static const EmbeddedFile *embedded_table(size_t *n) {
#define ENTRY(sym, name, path) {name, sym, 0},
  static EmbeddedFile files[] = { EMBEDDED_FILES(ENTRY) };
#undef ENTRY
  static int sized;
  if (!sized) {
    const char *ends[] = {
#define END(sym, name, path) sym##_end,
      EMBEDDED_FILES(END)
#undef END
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
      files[i].size = (size_t)(ends[i] - files[i].data);
    sized = 1;
  }
  *n = sizeof files / sizeof files[0];
  return files;
}

const EmbeddedFile *embedded_find(const char *name) {
  size_t n;
  const EmbeddedFile *files = embedded_table(&n);
  for (size_t i = 0; i < n; i++)
    if (strcmp(files[i].name, name) == 0) return &files[i];
  return NULL;
}

uint64_t embedded_id(void) {
  static uint64_t id;
  if (id == 0) {
    size_t n;
    const EmbeddedFile *files = embedded_table(&n);
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++) {
      h = hash64(files[i].name, strlen(files[i].name), h);
      h = hash64(files[i].data, files[i].size, h);
    }
    id = h ? h : 1;
  }
  return id;
}
