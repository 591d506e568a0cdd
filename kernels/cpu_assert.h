// cpu_assert.h: assert in kernel code on the CPU backend. A failed assertion stops the
// block and the launch raises CUDA_ERROR_ASSERT, as on a GPU, naming the kernel, block,
// thread, the assertion's text and its line. No include guard, as <assert.h>: host/cpu/
// puts stand-ins for <assert.h> and <cassert> first on the include path that include this
// again, so a kernel's own #include <cassert> keeps it (and NDEBUG still turns it off).
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) \
  (static_cast<bool>(e) ? (void)0 : gpuhost_cpu::stop(GPUHOST_STOP_ASSERT, #e, __FILE__, __LINE__))
#endif
