# gpuhost: build/gpuhost (Lua 5.4 + the gpu module in one binary) and build/gpu.so
# (the module alone, for stock lua5.4). `make test` runs the busted specs.

CUDA_HOME ?= /usr/local/cuda
LUA_INC   ?= /usr/include/lua5.4
LUA_LIBDIR ?=
LUA_A     ?= $(firstword $(wildcard $(LUA_LIBDIR)/liblua5.4.a /usr/lib/x86_64-linux-gnu/liblua5.4.a \
                                    /usr/lib/*/liblua5.4.a /usr/lib/liblua5.4.a))
LIBFLAG   ?= -shared
# make install (and LuaRocks, which sets these to its tree's folders)
PREFIX      ?= /usr/local
INST_PREFIX ?= $(PREFIX)
INST_BINDIR ?= $(INST_PREFIX)/bin
INST_LIBDIR ?= $(INST_PREFIX)/lib/lua/5.4

CC      ?= cc
WARN     = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wundef -Wcast-qual -Wwrite-strings \
           -Wconversion
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -I$(LUA_INC) -isystem $(CUDA_HOME)/include -Ibuild -Ihost \
             -Ikernels -DGPUHOST_CUDA_HOME='"$(CUDA_HOME)"' -MMD -MP
# The backends and what they share know nothing of Lua (gpu.h refuses to be included
# there). Every file is held to -Wconversion: a Lua number narrowed on its way to a driver
# parameter (an unsigned, an int) must be range-checked and cast where it is checked.
BACKEND_CFLAGS = -DGPUHOST_NO_LUA

# Where things live (README, "Building"): host/*.c the Lua-facing module and the program;
# host/cuda/ and host/cpu/ the two backends behind host/backend.h.
LUA_SIDE = host/rewrite.c host/loader.c host/errors.c host/device.c host/stream.c host/event.c \
           host/array.c host/hostarray.c host/program.c host/kernel.c host/dtype.c host/gpu.c \
           host/profile.c host/jit.c host/graph.c host/layout.c host/view.c host/table.c \
           host/strided.c host/copy.c host/peer.c host/promote.c host/ufunc.c host/ops.c host/opdefs.c host/npy.c host/npyhead.c host/npz.c \
           host/embedapi.c host/comm.c host/collective.c host/group.c \
           host/reduce.c host/reductions.c host/scan.c host/sort.c host/blas.c host/complex.c host/fft.c host/linalg.c
SHARED   = host/backend.c host/util.c host/results.c host/cache.c host/embed.c host/mpi.c host/launcher.c
BACKENDS = host/cuda/cuda.c host/cuda/driver.c host/cuda/memory.c host/cuda/graph.c \
           host/cuda/nvrtc.c host/cuda/nvtx.c host/cuda/nccl.c host/cuda/blas.c host/cuda/fft.c host/cuda/solver.c \
           host/cpu/cpu.c host/cpu/fiber.c host/cpu/sched.c host/cpu/pool.c host/cpu/mem.c \
           host/cpu/compile.c host/cpu/prelude.c host/cpu/source.c host/cpu/shared.c host/cpu/refuse.c host/cpu/scan.c host/cpu/limits.c host/cpu/module.c host/cpu/graph.c \
           host/cpu/devices.c host/cpu/coll.c host/cpu/blas.c host/cpu/fft.c host/cpu/lapack.c
MOD_SRC  = $(LUA_SIDE) $(SHARED) $(BACKENDS)
HOST_SRC = host/main.c host/complete.c
# gpu.jit (lua/jit/) is embedded as bytecode, which loads in a fifth of the time its
# source compiles in: a new process's first gpu.jit pays for it
JIT_LUA  = lua/jit/jit.lua lua/jit/lex.lua lua/jit/parse.lua lua/jit/scan.lua lua/jit/types.lua \
           lua/jit/intrinsics.lua lua/jit/infer.lua lua/jit/emit.lua lua/jit/vectorize.lua \
           lua/jit/reduce.lua
JIT_LUAC = $(JIT_LUA:lua/jit/%.lua=build/jit/%.luac) build/jit/stamp
# lua/*.lua goes in as bytecode too, with its debug information (messages and tracebacks
# name its lines as the source would): nothing is compiled at start, nor at a first use
MOD_LUA  = lua/gpu.lua lua/arrays.lua lua/signature.lua lua/format.lua lua/codegen.lua lua/fuse.lua \
           lua/elementwise.lua lua/npy.lua lua/reduction.lua lua/sort.lua lua/random.lua lua/compose.lua \
           lua/functional.lua \
           lua/linalg.lua lua/shape.lua lua/stats.lua lua/sets.lua lua/numeric.lua \
           lua/einsum.lua lua/fft.lua lua/ufuncs.lua lua/ndimage.lua lua/sparse.lua lua/sparse_linalg.lua \
           lua/ndimage_interp.lua lua/ndimage_morph.lua lua/ndimage_distance.lua lua/special.lua
MOD_LUAC = $(MOD_LUA:lua/%.lua=build/lua/%.luac)
EMBEDDED = $(MOD_LUAC) lua/complete.lua kernels/gpuhost.cuh kernels/builtin.cu kernels/ndimage.cu kernels/sparse.cu \
           kernels/ndimage_interp.cu kernels/ndimage_morph.cu kernels/ndimage_distance.cu \
           kernels/convolve.cu kernels/gpuhost_portable.h kernels/cpu.h kernels/cpu_cooperative_groups.h kernels/gpuhost_cpu_abi.h \
           kernels/cpu_half.h kernels/cpu_assert.h kernels/cpu_simd.h $(JIT_LUAC) \
           kernels/ops/ew.cuh kernels/ops/red.cuh kernels/ops/scan.cuh kernels/ops/sort.cuh kernels/ops/complex.cuh \
           kernels/special.cuh

MOD_OBJ  = $(MOD_SRC:host/%.c=build/obj/%.o)
PIC_OBJ  = $(MOD_SRC:host/%.c=build/pic/%.o)
HOST_OBJ = $(HOST_SRC:host/%.c=build/obj/%.o)
GENERATED = build/cuda_errors.h build/nvrtc_errors.h

all: build/gpuhost build/gpu.so build/libgpuhost.a build/embed_example build/embed_check

# CFLAGS go on the link lines too (-fsanitize=..., -flto, -pg need them there)
build/gpuhost: $(MOD_OBJ) $(HOST_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LUA_A) -Wl,-E -lm -ldl -lpthread

# the C API for programs that embed gpuhost (host/gpuhost.h), and the example of it
build/libgpuhost.a: $(PIC_OBJ)
	rm -f $@ && ar rcs $@ $^

build/embed_example: scripts/embed/embed.c host/gpuhost.h build/libgpuhost.a
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(LDFLAGS) -I$(LUA_INC) -isystem $(CUDA_HOME)/include -Ihost \
	  -o $@ $< build/libgpuhost.a $(LUA_A) -Wl,-E -lm -ldl -lpthread

build/embed_check: scripts/embed/check.c host/gpuhost.h build/libgpuhost.a
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(LDFLAGS) -I$(LUA_INC) -Ihost \
	  -o $@ $< build/libgpuhost.a $(LUA_A) -Wl,-E -lm -ldl -lpthread

build/gpu.so: $(PIC_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) $(LIBFLAG) -o $@ $^ -lm -ldl -lpthread

$(BACKENDS:host/%.c=build/obj/%.o) $(BACKENDS:host/%.c=build/pic/%.o) \
$(SHARED:host/%.c=build/obj/%.o) $(SHARED:host/%.c=build/pic/%.o): ALL_CFLAGS += $(BACKEND_CFLAGS)

build/obj/%.o: host/%.c $(GENERATED)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/pic/%.o: host/%.c $(GENERATED)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<

build/obj/embed.o build/pic/embed.o: $(EMBEDDED)

# bytecode made by the Lua gpuhost links (scripts/luac.c), so it always loads
build/luac: scripts/luac.c
	@mkdir -p build
	$(CC) -std=c11 -O2 -I$(LUA_INC) -o $@ $< $(LUA_A) -lm -ldl

build/jit/%.luac: lua/jit/%.lua build/luac
	@mkdir -p build/jit
	build/luac $< $@

build/lua/%.luac: lua/%.lua build/luac
	@mkdir -p build/lua
	build/luac -g "=[gpu] $<" $< $@

# what the C gpu.jit keeps on disk was made by (a checksum of its code, and of gpu's complex
# functions and gpu.special's, which it copies into kernels that use them): in the memo's keys
build/jit/stamp: $(JIT_LUA:lua/jit/%.lua=build/jit/%.luac) kernels/ops/ew.cuh kernels/ops/complex.cuh \
                 kernels/special.cuh
	cat $^ | cksum | tr -d ' \n' > $@

# Error names and descriptions come from the toolkit's headers.
build/cuda_errors.h: scripts/gen_errors.awk $(CUDA_HOME)/include/cuda.h
	@mkdir -p build
	awk -f scripts/gen_errors.awk $(CUDA_HOME)/include/cuda.h > $@.tmp && mv $@.tmp $@
build/nvrtc_errors.h: scripts/gen_errors.awk $(CUDA_HOME)/include/nvrtc.h
	@mkdir -p build
	awk -f scripts/gen_errors.awk $(CUDA_HOME)/include/nvrtc.h > $@.tmp && mv $@.tmp $@

# Without the CUDA toolkit's headers there is nothing to build against: say so plainly.
$(CUDA_HOME)/include/%.h:
	@echo "gpuhost needs the CUDA toolkit's headers: $@ is missing (install the CUDA toolkit, or set CUDA_HOME)" >&2; exit 1

-include $(MOD_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(HOST_OBJ:.o=.d)

# Installs what a fresh Debian/Ubuntu machine lacks (as root), else prints the apt-get line.
deps:
	@sh scripts/deps.sh

# deps first, then a fresh make that sees what deps installed
example:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	build/gpuhost scripts/vecadd.lua

# the layout rules (scripts/check_layout.sh), then the specs
test:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@sh scripts/check_layout.sh
	@sh scripts/test.sh

# The sanitizer variant (ASan + UBSan) in build/, from scratch; `sh scripts/test.sh` then
# runs the specs under it (scripts/sanitize.sh sets ASAN_OPTIONS and UBSAN_OPTIONS; .ci/run
# does both). Any CFLAGS/LDFLAGS work the same way: make clean && make CFLAGS=... LDFLAGS=...
SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
asan:
	@$(MAKE) --no-print-directory clean
	@$(MAKE) --no-print-directory all CFLAGS="-O2 -g $(SANITIZE)" LDFLAGS="$(SANITIZE)"

# gpu.so where Lua 5.4's require finds C modules, gpuhost among programs
install: all
	mkdir -p $(DESTDIR)$(INST_LIBDIR) $(DESTDIR)$(INST_BINDIR)
	cp build/gpu.so $(DESTDIR)$(INST_LIBDIR)/gpu.so
	cp build/gpuhost $(DESTDIR)$(INST_BINDIR)/gpuhost
	mkdir -p $(DESTDIR)$(INST_PREFIX)/include $(DESTDIR)$(INST_PREFIX)/lib
	cp host/gpuhost.h $(DESTDIR)$(INST_PREFIX)/include/gpuhost.h
	cp build/libgpuhost.a $(DESTDIR)$(INST_PREFIX)/lib/libgpuhost.a

clean:
	rm -rf build

.PHONY: all deps example test asan install clean
