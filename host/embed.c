/* embed.c: the Lua files of lua/ and the CUDA sources of kernels/, compiled into the
 * binary (the assembler's .incbin), so gpuhost and gpu.so are single files. lua/jit/ goes
 * in as bytecode (the Makefile's build/jit/), under the names of its sources. */
#include <string.h>
#include "util.h"

#define EMBED(sym, path) \
  __asm__(".section .rodata\n.global " #sym "\n.hidden " #sym "\n.balign 16\n" #sym ":\n" \
          ".incbin \"" path "\"\n.global " #sym "_end\n.hidden " #sym "_end\n" #sym "_end:\n" \
          ".byte 0\n.previous\n"); \
  extern const char sym[], sym##_end[];

EMBED(embed_gpu_lua, "lua/gpu.lua")
EMBED(embed_signature_lua, "lua/signature.lua")
EMBED(embed_format_lua, "lua/format.lua")
EMBED(embed_complete_lua, "lua/complete.lua")
EMBED(embed_gpuhost_cuh, "kernels/gpuhost.cuh")
EMBED(embed_builtin_cu, "kernels/builtin.cu")
EMBED(embed_cpu_h, "kernels/cpu.h")
EMBED(embed_cpu_cg_h, "kernels/cpu_cooperative_groups.h")
EMBED(embed_cpu_abi_h, "kernels/gpuhost_cpu_abi.h")
EMBED(embed_jit_lua, "build/jit/jit.luac")
EMBED(embed_jit_lex_lua, "build/jit/lex.luac")
EMBED(embed_jit_parse_lua, "build/jit/parse.luac")
EMBED(embed_jit_scan_lua, "build/jit/scan.luac")
EMBED(embed_jit_stamp, "build/jit/stamp")
EMBED(embed_jit_types_lua, "build/jit/types.luac")
EMBED(embed_jit_intrinsics_lua, "build/jit/intrinsics.luac")
EMBED(embed_jit_infer_lua, "build/jit/infer.luac")
EMBED(embed_jit_emit_lua, "build/jit/emit.luac")

EMBED(embed_arrays_lua, "lua/arrays.lua")
EMBED(embed_codegen_lua, "lua/codegen.lua")
EMBED(embed_fuse_lua, "lua/fuse.lua")
EMBED(embed_elementwise_lua, "lua/elementwise.lua")
EMBED(embed_ew_cuh, "kernels/ops/ew.cuh")

#define FILE_ENTRY(name, sym) {name, sym, (size_t)(sym##_end - sym)}

const EmbeddedFile *embedded_find(const char *name) {
  static EmbeddedFile files[23];
  if (files[0].name == NULL) {
    const EmbeddedFile all[23] = {
      {"lua/gpu.lua", embed_gpu_lua, (size_t)(embed_gpu_lua_end - embed_gpu_lua)},
      {"lua/signature.lua", embed_signature_lua,
       (size_t)(embed_signature_lua_end - embed_signature_lua)},
      {"lua/format.lua", embed_format_lua, (size_t)(embed_format_lua_end - embed_format_lua)},
      {"lua/complete.lua", embed_complete_lua, (size_t)(embed_complete_lua_end - embed_complete_lua)},
      {"kernels/gpuhost.cuh", embed_gpuhost_cuh,
       (size_t)(embed_gpuhost_cuh_end - embed_gpuhost_cuh)},
      {"kernels/builtin.cu", embed_builtin_cu, (size_t)(embed_builtin_cu_end - embed_builtin_cu)},
      {"kernels/cpu.h", embed_cpu_h, (size_t)(embed_cpu_h_end - embed_cpu_h)},
      {"kernels/cpu_cooperative_groups.h", embed_cpu_cg_h, (size_t)(embed_cpu_cg_h_end - embed_cpu_cg_h)},
      {"kernels/gpuhost_cpu_abi.h", embed_cpu_abi_h, (size_t)(embed_cpu_abi_h_end - embed_cpu_abi_h)},
      FILE_ENTRY("lua/jit/jit.lua", embed_jit_lua),
      FILE_ENTRY("lua/jit/lex.lua", embed_jit_lex_lua),
      FILE_ENTRY("lua/jit/parse.lua", embed_jit_parse_lua),
      FILE_ENTRY("lua/jit/scan.lua", embed_jit_scan_lua),
      FILE_ENTRY("lua/jit/stamp", embed_jit_stamp),
      FILE_ENTRY("lua/jit/types.lua", embed_jit_types_lua),
      FILE_ENTRY("lua/jit/intrinsics.lua", embed_jit_intrinsics_lua),
      FILE_ENTRY("lua/jit/infer.lua", embed_jit_infer_lua),
      FILE_ENTRY("lua/jit/emit.lua", embed_jit_emit_lua),
      FILE_ENTRY("lua/arrays.lua", embed_arrays_lua),
      FILE_ENTRY("lua/codegen.lua", embed_codegen_lua),
      FILE_ENTRY("lua/fuse.lua", embed_fuse_lua),
      FILE_ENTRY("lua/elementwise.lua", embed_elementwise_lua),
      FILE_ENTRY("kernels/ops/ew.cuh", embed_ew_cuh),
    };
    memcpy(files, all, sizeof all);
  }
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    if (strcmp(files[i].name, name) == 0) return &files[i];
  return NULL;
}
