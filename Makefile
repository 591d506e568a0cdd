# gpuhost: build/gpuhost (Lua 5.4 + the gpu module in one binary) and build/gpu.so
# (the module alone, for stock lua5.4). `make test` runs the busted specs.

CUDA_HOME ?= /usr/local/cuda
LUA_INC   ?= /usr/include/lua5.4
LUA_A     ?= $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/liblua5.4.a /usr/lib/*/liblua5.4.a /usr/lib/liblua5.4.a))

CC      ?= cc
WARN     = -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -I$(LUA_INC) -I$(CUDA_HOME)/include -Ibuild -Ihost \
             -DGPUHOST_CUDA_HOME='"$(CUDA_HOME)"'

# The gpu module (shared by both targets) and the host program.
MOD_SRC  = host/rewrite.c host/loader.c host/errors.c host/cuda.c host/nvrtc.c host/device.c host/stream.c host/event.c host/array.c \
           host/hostarray.c host/cache.c host/kernel.c host/dtype.c host/backend.c host/cpu.c host/gpu.c host/embed.c
HOST_SRC = host/main.c
EMBEDDED = lua/gpu.lua lua/signature.lua lua/format.lua kernels/gpuhost.cuh kernels/builtin.cu \
           kernels/cpu.h kernels/cpu_cooperative_groups.h

MOD_OBJ  = $(MOD_SRC:host/%.c=build/obj/%.o)
PIC_OBJ  = $(MOD_SRC:host/%.c=build/pic/%.o)
HOST_OBJ = $(HOST_SRC:host/%.c=build/obj/%.o)

all: build/gpuhost build/gpu.so

build/gpuhost: $(MOD_OBJ) $(HOST_OBJ)
	$(CC) -o $@ $^ $(LUA_A) -Wl,-E -lm -ldl -lpthread

build/gpu.so: $(PIC_OBJ)
	$(CC) -shared -o $@ $^ -lm -ldl -lpthread

build/obj/%.o: host/%.c host/gpu.h host/rewrite.h build/cuda_errors.h | build/obj
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/pic/%.o: host/%.c host/gpu.h host/rewrite.h build/cuda_errors.h | build/pic
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<

build/obj/embed.o build/pic/embed.o: $(EMBEDDED)

# Error descriptions come from the comments of cuda.h's CUresult enum.
build/cuda_errors.h: scripts/gen_cuda_errors.awk $(CUDA_HOME)/include/cuda.h | build
	awk -f scripts/gen_cuda_errors.awk $(CUDA_HOME)/include/cuda.h > $@.tmp && mv $@.tmp $@

build build/obj build/pic:
	mkdir -p $@

# Installs what a fresh Debian/Ubuntu machine lacks (as root), else prints the apt-get line.
deps:
	@sh scripts/deps.sh

# deps first, then a fresh make that sees what deps installed
example:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	build/gpuhost scripts/vecadd.lua

test:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@sh scripts/test.sh

clean:
	rm -rf build

.PHONY: all deps example test clean
