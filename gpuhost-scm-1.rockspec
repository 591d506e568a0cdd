-- gpuhost as a LuaRocks package: `luarocks --lua-version 5.4 make` in a checkout builds
-- gpu.so for the Lua 5.4 LuaRocks uses (and the gpuhost program, Lua linked in) with the
-- Makefile, and installs both. The CUDA toolkit's headers must be in $CUDA_HOME (default
-- /usr/local/cuda); nothing of CUDA is linked (the driver and NVRTC are opened at run time).
rockspec_format = "3.0"
package = "gpuhost"
version = "scm-1"
source = {
  -- where a published copy would be fetched from by `luarocks install`; `luarocks make`
  -- builds the checkout it runs in and never reads this
  url = "git+file:///usr/src/gpuhost",
}
description = {
  summary = "Script CUDA GPUs from Lua: device arrays, run-time compiled kernels, streams",
  detailed = [[
The gpu module of gpuhost: device arrays, explicit host/device copies, CUDA C kernels
compiled at run time by NVRTC, streams, events, CUDA errors as Lua errors; a CPU backend
runs the same kernels without a GPU.]],
}
dependencies = { "lua >= 5.4, < 5.5" }
build = {
  type = "make",
  build_target = "all",
  build_variables = {
    CFLAGS = "$(CFLAGS)",
    LUA_INC = "$(LUA_INCDIR)",
    LUA_LIBDIR = "$(LUA_LIBDIR)",
    LIBFLAG = "$(LIBFLAG)",
  },
  install_target = "install",
  install_variables = {
    INST_LIBDIR = "$(LIBDIR)",
    INST_BINDIR = "$(BINDIR)",
    INST_PREFIX = "$(PREFIX)",
  },
}
