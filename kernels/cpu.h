// cpu.h: what the CPU backend includes before a kernel source so that the host's C++
// compiler reads CUDA C: the qualifiers, the thread indices, barriers and warp functions
// (which call the runtime in host/cpu/sched.c), atomics, intrinsics, the device heap,
// assert, and the loops that run a block's threads. The toolkit's own headers supply the
// vector types (and __half, libcu++), as they do for host code, when they are installed.
//
// A block runs on one worker thread. Kernels that name no barrier or warp function run as
// plain loops over the block's threads, the kernel inlined into the innermost loop over
// threadIdx.x, which the compiler vectorises (host/cpu/source.c writes those loops); the
// others run their threads on fibers that park at barriers. The indices are this library's
// own static thread-locals: nothing outside can reach them, so the compiler keeps them in
// registers; `__shared__` is a static thread-local too, one copy per worker, shared by the
// fibers of the block it runs.
// The user's macros (-DN=4, -DSIZE=..., a #define before the includes) must not reach this
// header's own names, as they do not reach NVRTC's built-in ones: every name it and what it
// includes (the toolkit's vector types) declare or use that is not reserved (x, N, size,
// count, kernel ...) is pushed and undefined as it begins and popped back as it ends
// (GPUHOST_NAMES 1 and 2: this file includes itself for each). host/cpu/source.c does the
// same around the entry points it writes after the kernel source.
#if defined(GPUHOST_NAMES) && GPUHOST_NAMES == 1
#ifndef GPUHOST_OWN_NAMES   // the names, once; each X(name) pushed or popped (#n: never expanded)
#define GPUHOST_STR_(s) #s
#define GPUHOST_PUSH_(n) _Pragma(GPUHOST_STR_(push_macro(#n)))
#define GPUHOST_POP_(n) _Pragma(GPUHOST_STR_(pop_macro(#n)))
#define GPUHOST_OWN_NAMES(GPUHOST_X) \
  GPUHOST_X(A) GPUHOST_X(a) GPUHOST_X(advice) GPUHOST_X(again) GPUHOST_X(ah) GPUHOST_X(al) GPUHOST_X(align) \
  GPUHOST_X(aligned) GPUHOST_X(alignment) GPUHOST_X(alloc) GPUHOST_X(ap) GPUHOST_X(apply) \
  GPUHOST_X(arg) GPUHOST_X(args) GPUHOST_X(array) GPUHOST_X(at) GPUHOST_X(atomic16) GPUHOST_X(atomic_update) \
  GPUHOST_X(atomicAdd) GPUHOST_X(atomicAnd) GPUHOST_X(atomicCAS) GPUHOST_X(atomicDec) \
  GPUHOST_X(atomicExch) GPUHOST_X(atomicInc) GPUHOST_X(atomicMax) GPUHOST_X(atomicMin) \
  GPUHOST_X(atomicOr) GPUHOST_X(atomicSub) GPUHOST_X(atomicXor) GPUHOST_X(attr) \
  GPUHOST_X(attribute) GPUHOST_X(attributes) GPUHOST_X(attrs) GPUHOST_X(avg_signed) \
  GPUHOST_X(B) GPUHOST_X(b) GPUHOST_X(barrier) GPUHOST_X(base) GPUHOST_X(base_ptr) \
  GPUHOST_X(bessel_i) GPUHOST_X(bh) GPUHOST_X(bits) GPUHOST_X(bl) GPUHOST_X(block) \
  GPUHOST_X(blocks) GPUHOST_X(buffer) GPUHOST_X(bx) GPUHOST_X(by) GPUHOST_X(bytes) \
  GPUHOST_X(bytesize) GPUHOST_X(bz) GPUHOST_X(C) GPUHOST_X(c) GPUHOST_X(call) \
  GPUHOST_X(callback) GPUHOST_X(callback_out) GPUHOST_X(capabilities) GPUHOST_X(cas16) GPUHOST_X(cbrtf) \
  GPUHOST_X(cbrtl) GPUHOST_X(ceil) GPUHOST_X(clock64) GPUHOST_X(clock_gettime) GPUHOST_X(cmp) \
  GPUHOST_X(code) GPUHOST_X(conditional) GPUHOST_X(conditional_t) GPUHOST_X(config) \
  GPUHOST_X(cooperative) GPUHOST_X(copysignf) GPUHOST_X(cosf) GPUHOST_X(cospi) \
  GPUHOST_X(cospif) GPUHOST_X(count) GPUHOST_X(cyl_bessel_i0) GPUHOST_X(cyl_bessel_i0f) \
  GPUHOST_X(cyl_bessel_i1) GPUHOST_X(cyl_bessel_i1f) GPUHOST_X(D) GPUHOST_X(d) GPUHOST_X(data) \
  GPUHOST_X(decay_t) GPUHOST_X(default_) GPUHOST_X(dependencies) GPUHOST_X(dependencies_out) \
  GPUHOST_X(depth) GPUHOST_X(desc) GPUHOST_X(desired) GPUHOST_X(destroy) GPUHOST_X(device) \
  GPUHOST_X(device_arr) GPUHOST_X(device_free) GPUHOST_X(device_malloc) GPUHOST_X(dim3) \
  GPUHOST_X(dl_iterate_phdr) GPUHOST_X(dl_phdr_info) GPUHOST_X(dlpi_phdr) GPUHOST_X(dlpi_phnum) \
  GPUHOST_X(dlpi_tls_data) GPUHOST_X(dpitch) GPUHOST_X(dptr) GPUHOST_X(dptr_out) \
  GPUHOST_X(dptrs) GPUHOST_X(dst) GPUHOST_X(dsts) GPUHOST_X(dx) GPUHOST_X(dyn) \
  GPUHOST_X(dynamic_hook) GPUHOST_X(dynamic_shared) GPUHOST_X(E) GPUHOST_X(e) GPUHOST_X(end) \
  GPUHOST_X(enter) GPUHOST_X(entered) GPUHOST_X(entry) GPUHOST_X(erfc) GPUHOST_X(erfcf) \
  GPUHOST_X(erfcinv) GPUHOST_X(erfcinv_small) GPUHOST_X(erfcinvf) GPUHOST_X(erfcl) \
  GPUHOST_X(erfcx) GPUHOST_X(erfcxf) GPUHOST_X(erfinv) GPUHOST_X(erfinvf) GPUHOST_X(erfl) \
  GPUHOST_X(error) GPUHOST_X(event) GPUHOST_X(event_out) GPUHOST_X(exch) GPUHOST_X(exp10) GPUHOST_X(exp10f) \
  GPUHOST_X(expected) GPUHOST_X(expf) GPUHOST_X(expl) GPUHOST_X(extent) GPUHOST_X(extra) \
  GPUHOST_X(F) GPUHOST_X(f) GPUHOST_X(fabsf) GPUHOST_X(fabsl) GPUHOST_X(fail) GPUHOST_X(fd) GPUHOST_X(fdivide) \
  GPUHOST_X(fdividef) GPUHOST_X(fegetround) GPUHOST_X(fence) GPUHOST_X(fesetround) \
  GPUHOST_X(field) GPUHOST_X(file) GPUHOST_X(find_tls) GPUHOST_X(first) GPUHOST_X(flags) \
  GPUHOST_X(flatten) GPUHOST_X(float2) GPUHOST_X(float4) GPUHOST_X(floor) GPUHOST_X(fma) \
  GPUHOST_X(fmaf) GPUHOST_X(fmax) GPUHOST_X(fmaxf) GPUHOST_X(fmin) GPUHOST_X(fminf) \
  GPUHOST_X(fmodl) GPUHOST_X(fmt) GPUHOST_X(fn) GPUHOST_X(format) GPUHOST_X(fptr) \
  GPUHOST_X(free) GPUHOST_X(from) GPUHOST_X(from_bits) GPUHOST_X(from_port) GPUHOST_X(func) \
  GPUHOST_X(fwrite) GPUHOST_X(G) GPUHOST_X(g) GPUHOST_X(graph) GPUHOST_X(graph_out) \
  GPUHOST_X(grid) GPUHOST_X(gx) GPUHOST_X(gy) GPUHOST_X(H) GPUHOST_X(h) GPUHOST_X(handle) \
  GPUHOST_X(height) GPUHOST_X(hi) GPUHOST_X(host) GPUHOST_X(hypot) GPUHOST_X(hypotl) \
  GPUHOST_X(I) GPUHOST_X(i) GPUHOST_X(id) GPUHOST_X(id_out) GPUHOST_X(in_local) \
  GPUHOST_X(in_mode) GPUHOST_X(in_shared) GPUHOST_X(inc) GPUHOST_X(index) \
  GPUHOST_X(index_sequence) GPUHOST_X(index_sequence_for) GPUHOST_X(info) GPUHOST_X(integrated) \
  GPUHOST_X(interrupt) GPUHOST_X(is_integral) GPUHOST_X(is_reference) GPUHOST_X(is_signed) \
  GPUHOST_X(is_void) GPUHOST_X(isfinite) GPUHOST_X(isinf) GPUHOST_X(isnan) GPUHOST_X(iterator) \
  GPUHOST_X(iterator_out) GPUHOST_X(J) GPUHOST_X(j) GPUHOST_X(K) GPUHOST_X(k) GPUHOST_X(kernel) \
  GPUHOST_X(kernels) GPUHOST_X(key) GPUHOST_X(kind) GPUHOST_X(L) GPUHOST_X(l) GPUHOST_X(lane) \
  GPUHOST_X(last) GPUHOST_X(launch) GPUHOST_X(len) GPUHOST_X(length) GPUHOST_X(level) \
  GPUHOST_X(lib) GPUHOST_X(library) GPUHOST_X(limit) GPUHOST_X(line) GPUHOST_X(linear) \
  GPUHOST_X(llmax) GPUHOST_X(llmin) GPUHOST_X(lo) GPUHOST_X(load) GPUHOST_X(location) \
  GPUHOST_X(log10f) GPUHOST_X(log2f) GPUHOST_X(logf) GPUHOST_X(logl) GPUHOST_X(loops) \
  GPUHOST_X(luid) GPUHOST_X(M) GPUHOST_X(m) GPUHOST_X(major) GPUHOST_X(make_float2) \
  GPUHOST_X(make_float4) GPUHOST_X(malloc) GPUHOST_X(map) GPUHOST_X(mask) GPUHOST_X(max) \
  GPUHOST_X(max3) GPUHOST_X(max_threads) GPUHOST_X(me) GPUHOST_X(memcpy) GPUHOST_X(memset) \
  GPUHOST_X(message) GPUHOST_X(min) GPUHOST_X(min3) GPUHOST_X(minor) GPUHOST_X(mipmap) \
  GPUHOST_X(mode) GPUHOST_X(ms) GPUHOST_X(N) GPUHOST_X(n) GPUHOST_X(name) GPUHOST_X(nearbyint) \
  GPUHOST_X(next) GPUHOST_X(node) GPUHOST_X(nodes) GPUHOST_X(noinline) GPUHOST_X(noreturn) \
  GPUHOST_X(norm) GPUHOST_X(norm3d) GPUHOST_X(norm3df) GPUHOST_X(norm4d) GPUHOST_X(norm4df) \
  GPUHOST_X(normcdf) GPUHOST_X(normcdff) GPUHOST_X(normcdfinv) GPUHOST_X(normcdfinvf) \
  GPUHOST_X(normf) GPUHOST_X(nparams) GPUHOST_X(num_bytes) GPUHOST_X(numeric_limits) \
  GPUHOST_X(O) GPUHOST_X(o) GPUHOST_X(object) GPUHOST_X(object_out) GPUHOST_X(offset) \
  GPUHOST_X(ok) GPUHOST_X(old) GPUHOST_X(Op) GPUHOST_X(op) GPUHOST_X(operations) \
  GPUHOST_X(order) GPUHOST_X(ours) GPUHOST_X(ownership) GPUHOST_X(P) GPUHOST_X(p) \
  GPUHOST_X(pad) GPUHOST_X(pairs) GPUHOST_X(param) GPUHOST_X(params) GPUHOST_X(params_out) \
  GPUHOST_X(passed) GPUHOST_X(path) GPUHOST_X(pitch) GPUHOST_X(pos) GPUHOST_X(powf) \
  GPUHOST_X(pred) GPUHOST_X(pred_hi) GPUHOST_X(pred_lo) GPUHOST_X(priority) GPUHOST_X(prop) \
  GPUHOST_X(ptr) GPUHOST_X(Q) GPUHOST_X(q) GPUHOST_X(R) GPUHOST_X(r) GPUHOST_X(rank) \
  GPUHOST_X(raw) GPUHOST_X(rcbrt) GPUHOST_X(rcbrtf) GPUHOST_X(relu) GPUHOST_X(remote) \
  GPUHOST_X(remove_const_t) GPUHOST_X(res) GPUHOST_X(reserved) GPUHOST_X(reserved0) \
  GPUHOST_X(reserved1) GPUHOST_X(reserved2) GPUHOST_X(resource) GPUHOST_X(resources) \
  GPUHOST_X(result) GPUHOST_X(result_out) GPUHOST_X(rhypot) GPUHOST_X(rhypotf) GPUHOST_X(rnorm) \
  GPUHOST_X(rnorm3d) GPUHOST_X(rnorm3df) GPUHOST_X(rnorm4d) GPUHOST_X(rnorm4df) \
  GPUHOST_X(rnormf) GPUHOST_X(rsqrt) GPUHOST_X(rsqrtf) GPUHOST_X(rt) GPUHOST_X(run_thread) \
  GPUHOST_X(S) GPUHOST_X(s) GPUHOST_X(sad) GPUHOST_X(sat) GPUHOST_X(sat_s2) GPUHOST_X(sat_s4) \
  GPUHOST_X(sat_u2) GPUHOST_X(sat_u4) GPUHOST_X(scope) GPUHOST_X(set) GPUHOST_X(set_launch) \
  GPUHOST_X(signbit) GPUHOST_X(sincosf) GPUHOST_X(sincospi) GPUHOST_X(sincospif) \
  GPUHOST_X(sinf) GPUHOST_X(sinl) GPUHOST_X(sinpi) GPUHOST_X(sinpi_reduced) GPUHOST_X(sinpif) \
  GPUHOST_X(size) GPUHOST_X(size_t) GPUHOST_X(sizes) GPUHOST_X(small) GPUHOST_X(space) \
  GPUHOST_X(spitch) GPUHOST_X(sqrt) GPUHOST_X(sqrtf) GPUHOST_X(sqrtl) GPUHOST_X(src) \
  GPUHOST_X(srcs) GPUHOST_X(stack_top) GPUHOST_X(start) GPUHOST_X(status) GPUHOST_X(std) \
  GPUHOST_X(stop) GPUHOST_X(stream) GPUHOST_X(sum) GPUHOST_X(sum_squares) GPUHOST_X(symbol) GPUHOST_X(syncthreads_and) GPUHOST_X(syncthreads_count) GPUHOST_X(syncthreads_or) \
  GPUHOST_X(T) GPUHOST_X(t) GPUHOST_X(tanf) GPUHOST_X(tanhf) GPUHOST_X(target) GPUHOST_X(term) \
  GPUHOST_X(text) GPUHOST_X(thread) GPUHOST_X(timespec) GPUHOST_X(tls) GPUHOST_X(tls_range) \
  GPUHOST_X(to) GPUHOST_X(to_int) GPUHOST_X(to_port) GPUHOST_X(top) GPUHOST_X(total) \
  GPUHOST_X(trunc) GPUHOST_X(tuple) GPUHOST_X(two_over_sqrt_pi) GPUHOST_X(type) GPUHOST_X(U) \
  GPUHOST_X(u) GPUHOST_X(uint2) GPUHOST_X(uint3) GPUHOST_X(ullmax) GPUHOST_X(ullmin) \
  GPUHOST_X(umax) GPUHOST_X(umax3) GPUHOST_X(umin) GPUHOST_X(umin3) GPUHOST_X(usage) \
  GPUHOST_X(uuid) GPUHOST_X(V) GPUHOST_X(v) GPUHOST_X(va_list) GPUHOST_X(val) GPUHOST_X(value) \
  GPUHOST_X(value_out) GPUHOST_X(visibility) GPUHOST_X(vsnprintf) GPUHOST_X(vx) GPUHOST_X(vy) \
  GPUHOST_X(vz) GPUHOST_X(W) GPUHOST_X(w) GPUHOST_X(warp) GPUHOST_X(weak) GPUHOST_X(what) \
  GPUHOST_X(why) GPUHOST_X(wide) GPUHOST_X(width) GPUHOST_X(win32) GPUHOST_X(wrap_add) \
  GPUHOST_X(X) GPUHOST_X(x) GPUHOST_X(xsize) GPUHOST_X(Y) GPUHOST_X(y) GPUHOST_X(ysize) \
  GPUHOST_X(Z) GPUHOST_X(z)
#endif
GPUHOST_OWN_NAMES(GPUHOST_PUSH_)
#undef A
#undef a
#undef advice
#undef again
#undef ah
#undef al
#undef align
#undef aligned
#undef alignment
#undef alloc
#undef ap
#undef apply
#undef arg
#undef args
#undef array
#undef at
#undef atomic16
#undef atomic_update
#undef atomicAdd
#undef atomicAnd
#undef atomicCAS
#undef atomicDec
#undef atomicExch
#undef atomicInc
#undef atomicMax
#undef atomicMin
#undef atomicOr
#undef atomicSub
#undef atomicXor
#undef attr
#undef attribute
#undef attributes
#undef attrs
#undef avg_signed
#undef B
#undef b
#undef barrier
#undef base
#undef base_ptr
#undef bessel_i
#undef bh
#undef bits
#undef bl
#undef block
#undef blocks
#undef buffer
#undef bx
#undef by
#undef bytes
#undef bytesize
#undef bz
#undef C
#undef c
#undef call
#undef callback
#undef callback_out
#undef capabilities
#undef cas16
#undef cbrtf
#undef cbrtl
#undef ceil
#undef clock64
#undef clock_gettime
#undef cmp
#undef code
#undef conditional
#undef conditional_t
#undef config
#undef cooperative
#undef copysignf
#undef cosf
#undef cospi
#undef cospif
#undef count
#undef cyl_bessel_i0
#undef cyl_bessel_i0f
#undef cyl_bessel_i1
#undef cyl_bessel_i1f
#undef D
#undef d
#undef data
#undef decay_t
#undef default_
#undef dependencies
#undef dependencies_out
#undef depth
#undef desc
#undef desired
#undef destroy
#undef device
#undef device_arr
#undef device_free
#undef device_malloc
#undef dim3
#undef dl_iterate_phdr
#undef dl_phdr_info
#undef dlpi_phdr
#undef dlpi_phnum
#undef dlpi_tls_data
#undef dpitch
#undef dptr
#undef dptr_out
#undef dptrs
#undef dst
#undef dsts
#undef dx
#undef dyn
#undef dynamic_hook
#undef dynamic_shared
#undef E
#undef e
#undef end
#undef enter
#undef entered
#undef entry
#undef erfc
#undef erfcf
#undef erfcinv
#undef erfcinv_small
#undef erfcinvf
#undef erfcl
#undef erfcx
#undef erfcxf
#undef erfinv
#undef erfinvf
#undef erfl
#undef error
#undef event
#undef event_out
#undef exch
#undef exp10
#undef exp10f
#undef expected
#undef expf
#undef expl
#undef extent
#undef extra
#undef F
#undef f
#undef fabsf
#undef fabsl
#undef fail
#undef fd
#undef fdivide
#undef fdividef
#undef fegetround
#undef fence
#undef fesetround
#undef field
#undef file
#undef find_tls
#undef first
#undef flags
#undef flatten
#undef float2
#undef float4
#undef floor
#undef fma
#undef fmaf
#undef fmax
#undef fmaxf
#undef fmin
#undef fminf
#undef fmodl
#undef fmt
#undef fn
#undef format
#undef fptr
#undef free
#undef from
#undef from_bits
#undef from_port
#undef func
#undef fwrite
#undef G
#undef g
#undef graph
#undef graph_out
#undef grid
#undef gx
#undef gy
#undef H
#undef h
#undef handle
#undef height
#undef hi
#undef host
#undef hypot
#undef hypotl
#undef I
#undef i
#undef id
#undef id_out
#undef in_local
#undef in_mode
#undef in_shared
#undef inc
#undef index
#undef index_sequence
#undef index_sequence_for
#undef info
#undef integrated
#undef interrupt
#undef is_integral
#undef is_reference
#undef is_signed
#undef is_void
#undef isfinite
#undef isinf
#undef isnan
#undef iterator
#undef iterator_out
#undef J
#undef j
#undef K
#undef k
#undef kernel
#undef kernels
#undef key
#undef kind
#undef L
#undef l
#undef lane
#undef last
#undef launch
#undef len
#undef length
#undef level
#undef lib
#undef library
#undef limit
#undef line
#undef linear
#undef llmax
#undef llmin
#undef lo
#undef load
#undef location
#undef log10f
#undef log2f
#undef logf
#undef logl
#undef loops
#undef luid
#undef M
#undef m
#undef major
#undef make_float2
#undef make_float4
#undef malloc
#undef map
#undef mask
#undef max
#undef max3
#undef max_threads
#undef me
#undef memcpy
#undef memset
#undef message
#undef min
#undef min3
#undef minor
#undef mipmap
#undef mode
#undef ms
#undef N
#undef n
#undef name
#undef nearbyint
#undef next
#undef node
#undef nodes
#undef noinline
#undef noreturn
#undef norm
#undef norm3d
#undef norm3df
#undef norm4d
#undef norm4df
#undef normcdf
#undef normcdff
#undef normcdfinv
#undef normcdfinvf
#undef normf
#undef nparams
#undef num_bytes
#undef numeric_limits
#undef O
#undef o
#undef object
#undef object_out
#undef offset
#undef ok
#undef old
#undef Op
#undef op
#undef operations
#undef order
#undef ours
#undef ownership
#undef P
#undef p
#undef pad
#undef pairs
#undef param
#undef params
#undef params_out
#undef passed
#undef path
#undef pitch
#undef pos
#undef powf
#undef pred
#undef pred_hi
#undef pred_lo
#undef priority
#undef prop
#undef ptr
#undef Q
#undef q
#undef R
#undef r
#undef rank
#undef raw
#undef rcbrt
#undef rcbrtf
#undef relu
#undef remote
#undef remove_const_t
#undef res
#undef reserved
#undef reserved0
#undef reserved1
#undef reserved2
#undef resource
#undef resources
#undef result
#undef result_out
#undef rhypot
#undef rhypotf
#undef rnorm
#undef rnorm3d
#undef rnorm3df
#undef rnorm4d
#undef rnorm4df
#undef rnormf
#undef rsqrt
#undef rsqrtf
#undef rt
#undef run_thread
#undef S
#undef s
#undef sad
#undef sat
#undef sat_s2
#undef sat_s4
#undef sat_u2
#undef sat_u4
#undef scope
#undef set
#undef set_launch
#undef signbit
#undef sincosf
#undef sincospi
#undef sincospif
#undef sinf
#undef sinl
#undef sinpi
#undef sinpi_reduced
#undef sinpif
#undef size
#undef size_t
#undef sizes
#undef small
#undef space
#undef spitch
#undef sqrt
#undef sqrtf
#undef sqrtl
#undef src
#undef srcs
#undef stack_top
#undef start
#undef status
#undef std
#undef stop
#undef stream
#undef sum
#undef sum_squares
#undef symbol
#undef syncthreads_and
#undef syncthreads_count
#undef syncthreads_or
#undef T
#undef t
#undef tanf
#undef tanhf
#undef target
#undef term
#undef text
#undef thread
#undef timespec
#undef tls
#undef tls_range
#undef to
#undef to_int
#undef to_port
#undef top
#undef total
#undef trunc
#undef tuple
#undef two_over_sqrt_pi
#undef type
#undef U
#undef u
#undef uint2
#undef uint3
#undef ullmax
#undef ullmin
#undef umax
#undef umax3
#undef umin
#undef umin3
#undef usage
#undef uuid
#undef V
#undef v
#undef va_list
#undef val
#undef value
#undef value_out
#undef visibility
#undef vsnprintf
#undef vx
#undef vy
#undef vz
#undef W
#undef w
#undef warp
#undef weak
#undef what
#undef why
#undef wide
#undef width
#undef win32
#undef wrap_add
#undef X
#undef x
#undef xsize
#undef Y
#undef y
#undef ysize
#undef Z
#undef z
#elif defined(GPUHOST_NAMES) && GPUHOST_NAMES == 2
GPUHOST_OWN_NAMES(GPUHOST_POP_)
#elif !defined(GPUHOST_CPU_H)
#define GPUHOST_CPU_H
#define GPUHOST_NAMES 1
#include "gpuhost_cpu.h"
#undef GPUHOST_NAMES

// The C++ library first, before the qualifiers are macros: GCC 13's <string> and <memory>
// write __attribute__((__noinline__)), which the __noinline__ macro below would break
// ("'noinline' was not declared"); included here, a kernel's own includes of them (libcu++
// reaches <string>) are no-ops.
#include <algorithm>
#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <link.h>   // dl_iterate_phdr: where static __shared__ memory lies (__isShared)

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __grid_constant__
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define GPUHOST_CPU 1

#include "gpuhost_cpu_abi.h"

#if __has_include(<vector_types.h>)
// the toolkit's vector types and make_* functions, as host code sees them
#include <vector_types.h>
#include <vector_functions.h>
#else
// no toolkit: the same types, declared here
struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
#define GPUHOST_VEC2(T, N, A) struct alignas(A) N##2 { T x, y; }; \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define GPUHOST_VEC3(T, N) struct N##3 { T x, y, z; }; \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define GPUHOST_VEC4(T, N, A) struct alignas(A) N##4 { T x, y, z, w; }; \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
GPUHOST_VEC2(float, float, 8) GPUHOST_VEC3(float, float) GPUHOST_VEC4(float, float, 16)
GPUHOST_VEC2(double, double, 16) GPUHOST_VEC3(double, double) GPUHOST_VEC4(double, double, 16)
GPUHOST_VEC2(int, int, 8) GPUHOST_VEC3(int, int) GPUHOST_VEC4(int, int, 16)
GPUHOST_VEC2(unsigned int, uint, 8) GPUHOST_VEC4(unsigned int, uint, 16)
GPUHOST_VEC2(long long, longlong, 16) GPUHOST_VEC2(unsigned long long, ulonglong, 16)
GPUHOST_VEC2(short, short, 4) GPUHOST_VEC4(short, short, 8)
GPUHOST_VEC2(char, char, 2) GPUHOST_VEC4(char, char, 4)
GPUHOST_VEC2(unsigned char, uchar, 2) GPUHOST_VEC4(unsigned char, uchar, 4)
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
#endif
#undef __maxnreg__
#define __maxnreg__(...)
#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif

// the C math library's classification functions, unqualified, as CUDA has them
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

// ---- indices: this library's own (see the top) ----
static thread_local uint3 gpuhost_threadIdx, gpuhost_blockIdx;
static thread_local dim3 gpuhost_blockDim, gpuhost_gridDim;
#define threadIdx gpuhost_threadIdx
#define blockIdx gpuhost_blockIdx
#define blockDim gpuhost_blockDim
#define gridDim gpuhost_gridDim
#define warpSize 32

// ---- the runtime (gpuhost_cpu_abi.h's gpuhost_runtime, given at load) ----
static const gpuhost_runtime *gpuhost_rt;
extern "C" __attribute__((visibility("default"))) void gpuhost_cpu_bind(const gpuhost_runtime *rt) {
  gpuhost_rt = rt;
}

namespace gpuhost_cpu {
// A thread that parks comes back after others ran: it restores its own index.
// (and the top of its stack, which __isLocal reads)
static thread_local void *stack_top;
inline int barrier(int op, int pred) {
  uint3 me = gpuhost_threadIdx;
  void *top = stack_top;
  int r = gpuhost_rt->barrier(op, pred);
  gpuhost_threadIdx = me;
  stack_top = top;
  return r;
}
inline unsigned long long warp(int op, unsigned mask, unsigned long long v, int arg, int width) {
  uint3 me = gpuhost_threadIdx;
  void *top = stack_top;
  unsigned long long r = gpuhost_rt->warp(op, mask, v, arg, width);
  gpuhost_threadIdx = me;
  stack_top = top;
  return r;
}
template <class T> inline unsigned long long bits(T v) {
  static_assert(sizeof(T) <= 8, "the CPU backend exchanges values of up to 8 bytes between lanes");
  unsigned long long raw = 0;
  std::memcpy(&raw, &v, sizeof(T));
  return raw;
}
template <class T> inline T from_bits(unsigned long long raw) {
  T r;
  std::memcpy(&r, &raw, sizeof(T));
  return r;
}
[[noreturn]] inline void stop(int why, const char *what, const char *file, unsigned line) {
  gpuhost_rt->stop(why, what, file, line);
  __builtin_unreachable();
}
}  // namespace gpuhost_cpu

inline void __syncthreads() { gpuhost_cpu::barrier(GPUHOST_SYNC, 0); }
inline int __syncthreads_count(int p) { return gpuhost_cpu::barrier(GPUHOST_SYNC_COUNT, p); }
inline int __syncthreads_and(int p) { return gpuhost_cpu::barrier(GPUHOST_SYNC_AND, p); }
inline int __syncthreads_or(int p) { return gpuhost_cpu::barrier(GPUHOST_SYNC_OR, p); }
// sm_20_intrinsics.h's older spellings
inline int syncthreads_count(bool p) { return __syncthreads_count(p); }
inline bool syncthreads_and(bool p) { return __syncthreads_and(p) != 0; }
inline bool syncthreads_or(bool p) { return __syncthreads_or(p) != 0; }
inline void __syncwarp(unsigned mask = 0xffffffffu) { gpuhost_cpu::warp(GPUHOST_SYNCWARP, mask, 0, 0, 32); }
inline void *gpuhost_dynamic_shared() { return gpuhost_rt->dynamic_shared(); }
namespace gpuhost_cpu {
// An `extern __shared__` array at namespace scope is a thread-local pointer with a hook
// (host/cpu/source.c writes both) that set_launch runs as a launch begins on a worker.
struct dynamic_hook {
  void (*set)(void *);
  const dynamic_hook *next;
  static inline const dynamic_hook *first = nullptr;
  explicit dynamic_hook(void (*s)(void *)) : set(s), next(first) { first = this; }
};
}  // namespace gpuhost_cpu

// ---- warp functions: the lanes of a warp exchange through the runtime ----
template <class T> inline T gpuhost_shuffle(int op, unsigned mask, T v, int arg, int width) {
  return gpuhost_cpu::from_bits<T>(gpuhost_cpu::warp(op, mask, gpuhost_cpu::bits(v), arg, width));
}
template <class T> inline T __shfl_sync(unsigned m, T v, int src, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_IDX, m, v, src, w); }
template <class T> inline T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_UP, m, v, (int)d, w); }
template <class T> inline T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_DOWN, m, v, (int)d, w); }
template <class T> inline T __shfl_xor_sync(unsigned m, T v, int l, int w = 32) { return gpuhost_shuffle(GPUHOST_SHFL_XOR, m, v, l, w); }
inline unsigned __ballot_sync(unsigned m, int p) { return (unsigned)gpuhost_cpu::warp(GPUHOST_BALLOT, m, p != 0, 0, 32); }
inline int __any_sync(unsigned m, int p) { return (int)gpuhost_cpu::warp(GPUHOST_ANY, m, p != 0, 0, 32); }
inline int __all_sync(unsigned m, int p) { return (int)gpuhost_cpu::warp(GPUHOST_ALL, m, p != 0, 0, 32); }
inline unsigned __activemask() { return (unsigned)gpuhost_cpu::warp(GPUHOST_ACTIVEMASK, 0, 0, 0, 32); }
// __match_*: values of 4 or 8 bytes; the width tells 0x1 from 0x100000001 apart
template <class T> inline unsigned __match_any_sync(unsigned m, T v) {
  return (unsigned)gpuhost_cpu::warp(GPUHOST_MATCH_ANY, m, gpuhost_cpu::bits(v), (int)sizeof(T), 32);
}
template <class T> inline unsigned __match_all_sync(unsigned m, T v, int *pred) {
  unsigned long long r = gpuhost_cpu::warp(GPUHOST_MATCH_ALL, m, gpuhost_cpu::bits(v), (int)sizeof(T), 32);
  *pred = (int)(r >> 32);
  return (unsigned)r;
}
#define GPUHOST_REDUCE(name, T, op) \
  inline T name(unsigned m, T v) { return (T)gpuhost_cpu::warp(op, m, (unsigned)v, 0, 32); }
GPUHOST_REDUCE(__reduce_add_sync, unsigned, GPUHOST_REDUCE_ADD)
GPUHOST_REDUCE(__reduce_add_sync, int, GPUHOST_REDUCE_ADD)
GPUHOST_REDUCE(__reduce_min_sync, unsigned, GPUHOST_REDUCE_UMIN)
GPUHOST_REDUCE(__reduce_min_sync, int, GPUHOST_REDUCE_MIN)
GPUHOST_REDUCE(__reduce_max_sync, unsigned, GPUHOST_REDUCE_UMAX)
GPUHOST_REDUCE(__reduce_max_sync, int, GPUHOST_REDUCE_MAX)
GPUHOST_REDUCE(__reduce_and_sync, unsigned, GPUHOST_REDUCE_AND)
GPUHOST_REDUCE(__reduce_or_sync, unsigned, GPUHOST_REDUCE_OR)
GPUHOST_REDUCE(__reduce_xor_sync, unsigned, GPUHOST_REDUCE_XOR)

// ---- stopping: assert, __trap ----
inline void __trap() { gpuhost_cpu::stop(GPUHOST_STOP_TRAP, "__trap()", nullptr, 0); }
inline void __brkpt() { gpuhost_cpu::stop(GPUHOST_STOP_TRAP, "__brkpt()", nullptr, 0); }
#include "gpuhost_cpu_assert.h"   // assert (kernels/cpu_assert.h)

// ---- fences and clocks ----
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_cluster() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline long long clock64() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
inline long long __globaltimer() { return clock64(); }
inline void __nanosleep(unsigned) {}

// ---- atomics: blocks run on several cores at once, so these are real atomics ----
#define GPUHOST_ATOMIC_INT(T) \
  inline T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
  inline T atomicSub(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); } \
  inline T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
  inline T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); } \
  inline T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); } \
  inline T atomicXor(T *p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); } \
  inline T atomicCAS(T *p, T cmp, T v) { \
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return cmp; } \
  inline T atomicMin(T *p, T v) { T old = __atomic_load_n(p, __ATOMIC_RELAXED); \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} \
    return old; } \
  inline T atomicMax(T *p, T v) { T old = __atomic_load_n(p, __ATOMIC_RELAXED); \
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} \
    return old; }
GPUHOST_ATOMIC_INT(int)
GPUHOST_ATOMIC_INT(unsigned int)
GPUHOST_ATOMIC_INT(long long)
GPUHOST_ATOMIC_INT(unsigned long long)
// int64_t and uint64_t are long and unsigned long here (long long under NVRTC)
GPUHOST_ATOMIC_INT(long)
GPUHOST_ATOMIC_INT(unsigned long)
inline unsigned short atomicCAS(unsigned short *p, unsigned short cmp, unsigned short v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return cmp;
}

// floating point: a compare-and-swap loop on the bits
template <class F, class U>
inline F gpuhost_atomic_float(F *p, F v, int op) {
  U *u = reinterpret_cast<U *>(p);
  U old = __atomic_load_n(u, __ATOMIC_RELAXED), next;
  F f, r;
  do {
    std::memcpy(&f, &old, sizeof f);
    r = op == 0 ? f + v : op == 1 ? v : op == 2 ? (v < f ? v : f) : (v > f ? v : f);
    std::memcpy(&next, &r, sizeof next);
  } while (!__atomic_compare_exchange_n(u, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return f;
}
inline float atomicAdd(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 0); }
inline double atomicAdd(double *p, double v) { return gpuhost_atomic_float<double, unsigned long long>(p, v, 0); }
inline float atomicExch(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 1); }
inline float atomicMin(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 2); }
inline float atomicMax(float *p, float v) { return gpuhost_atomic_float<float, unsigned>(p, v, 3); }
inline double atomicMin(double *p, double v) { return gpuhost_atomic_float<double, unsigned long long>(p, v, 2); }
inline double atomicMax(double *p, double v) { return gpuhost_atomic_float<double, unsigned long long>(p, v, 3); }
inline unsigned atomicInc(unsigned *p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
inline unsigned atomicDec(unsigned *p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, (old == 0 || old > limit) ? limit : old - 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}
// float2 and float4 (sm_90): each element atomic apart, as CUDA promises no more
inline float2 atomicAdd(float2 *p, float2 v) {
  return make_float2(atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y));
}
inline float4 atomicAdd(float4 *p, float4 v) {
  return make_float4(atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y), atomicAdd(&p->z, v.z), atomicAdd(&p->w, v.w));
}
// sm_90's 16-byte atomicCAS and atomicExch, of any trivially copyable type of 16 bytes
// aligned to 16 (crt/sm_90_rt.h's condition): the processor's 16-byte compare-and-swap
// (GCC's __atomic builtins of 16 bytes call libatomic, which kernels are not linked with)
namespace gpuhost_cpu {
template <class T> using atomic16 = std::enable_if_t<sizeof(T) == 16 && alignof(T) >= 16 &&
                                                     std::is_trivially_copyable<T>::value, T>;
template <class T> inline T cas16(T *p, T cmp, T v, bool exch) {
  unsigned __int128 *u = reinterpret_cast<unsigned __int128 *>(p), c, n, old;
  std::memcpy(&n, &v, 16);
  if (exch) std::memcpy(&c, p, 16);   /* a guess: the loop checks it */
  else std::memcpy(&c, &cmp, 16);
  while ((old = __sync_val_compare_and_swap(u, c, n)) != c && exch) c = old;
  T r;
  std::memcpy(&r, &old, 16);
  return r;
}
}  // namespace gpuhost_cpu
template <class T> inline gpuhost_cpu::atomic16<T> atomicCAS(T *p, T cmp, T v) { return gpuhost_cpu::cas16(p, cmp, v, false); }
template <class T> inline gpuhost_cpu::atomic16<T> atomicExch(T *p, T v) { return gpuhost_cpu::cas16(p, v, v, true); }

// CUDA 12.8's __nv_atomic_* builtins, over GCC's __atomic ones: the orders are GCC's, and
// every scope is the whole process (a scope allows a wider one)
#define __NV_ATOMIC_RELAXED __ATOMIC_RELAXED
#define __NV_ATOMIC_CONSUME __ATOMIC_CONSUME
#define __NV_ATOMIC_ACQUIRE __ATOMIC_ACQUIRE
#define __NV_ATOMIC_RELEASE __ATOMIC_RELEASE
#define __NV_ATOMIC_ACQ_REL __ATOMIC_ACQ_REL
#define __NV_ATOMIC_SEQ_CST __ATOMIC_SEQ_CST
#define __NV_THREAD_SCOPE_THREAD 0
#define __NV_THREAD_SCOPE_BLOCK 1
#define __NV_THREAD_SCOPE_CLUSTER 2
#define __NV_THREAD_SCOPE_DEVICE 3
#define __NV_THREAD_SCOPE_SYSTEM 4
namespace gpuhost_cpu {
// *p = f(*p) atomically by compare-and-swap on its bits; the old value
template <class T, class F> inline T atomic_update(T *p, F f, int order) {
  using U = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  static_assert(sizeof(T) == sizeof(U), "atomics of 4 or 8 bytes");
  U *u = reinterpret_cast<U *>(p), old = __atomic_load_n(u, __ATOMIC_RELAXED), next;
  T t;
  do {
    std::memcpy(&t, &old, sizeof t);
    T r = f(t);
    std::memcpy(&next, &r, sizeof next);
  } while (!__atomic_compare_exchange_n(u, &old, next, true, order, __ATOMIC_RELAXED));
  return t;
}
}  // namespace gpuhost_cpu
// fetch_<name>: integers by GCC's builtin, floating point (add, sub) by compare-and-swap
#define GPUHOST_NV_FETCH(name, expr) \
  template <class T, class V> inline T __nv_atomic_fetch_##name(T *p, V v, int order, int = 4) { \
    T w = (T)v; \
    if constexpr (std::is_integral<T>::value) return __atomic_fetch_##name(p, w, order); \
    else return gpuhost_cpu::atomic_update(p, [w](T o) { return (T)(expr); }, order); }
GPUHOST_NV_FETCH(add, o + w)
GPUHOST_NV_FETCH(sub, o - w)
GPUHOST_NV_FETCH(and, o & w)
GPUHOST_NV_FETCH(or, o | w)
GPUHOST_NV_FETCH(xor, o ^ w)
// min and max (integers only, as NVRTC has them) by compare-and-swap
template <class T, class V> inline T __nv_atomic_fetch_min(T *p, V v, int order, int = 4) {
  T w = (T)v;
  return gpuhost_cpu::atomic_update(p, [w](T o) { return w < o ? w : o; }, order);
}
template <class T, class V> inline T __nv_atomic_fetch_max(T *p, V v, int order, int = 4) {
  T w = (T)v;
  return gpuhost_cpu::atomic_update(p, [w](T o) { return w > o ? w : o; }, order);
}
template <class T> inline T __nv_atomic_load_n(const T *p, int order, int = 4) { return __atomic_load_n(p, order); }
template <class T> inline void __nv_atomic_load(const T *p, T *r, int order, int = 4) { __atomic_load(p, r, order); }
template <class T, class V> inline void __nv_atomic_store_n(T *p, V v, int order, int = 4) { __atomic_store_n(p, (T)v, order); }
template <class T> inline void __nv_atomic_store(T *p, T *v, int order, int = 4) { __atomic_store(p, v, order); }
template <class T, class V> inline T __nv_atomic_exchange_n(T *p, V v, int order, int = 4) {
  return __atomic_exchange_n(p, (T)v, order);
}
template <class T> inline void __nv_atomic_exchange(T *p, T *v, T *r, int order, int = 4) { __atomic_exchange(p, v, r, order); }
template <class T, class V>
inline bool __nv_atomic_compare_exchange_n(T *p, T *expected, V desired, bool weak, int ok, int fail, int = 4) {
  return __atomic_compare_exchange_n(p, expected, (T)desired, weak, ok, fail);
}
template <class T>
inline bool __nv_atomic_compare_exchange(T *p, T *expected, T *desired, bool weak, int ok, int fail, int = 4) {
  return __atomic_compare_exchange(p, expected, desired, weak, ok, fail);
}
inline void __nv_atomic_thread_fence(int order, int = 4) { __atomic_thread_fence(order); }

// the _block and _system scopes: every atomic here is atomic for the whole process
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor

// ---- math and intrinsics ----
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __tanhf(float x) { return tanhf(x); }
inline void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
inline void sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
// a GPU's: ex2.approx(y * lg2.approx(x)) (libdevice's __nv_fast_powf), so a negative x
// gives NaN, as 0 to the 0 does, where powf gives 4 for (-2, 2) and 1 for (0, 0)
inline float __powf(float x, float y) { return exp2f(y * log2f(x)); }
// a times the reciprocal of b, which a GPU flushes to 0 past 2^126: there the quotient is
// a signed 0 (NaN for an infinite a), as CUDA documents it
inline float __fdividef(float a, float b) { return fabsf(b) > 0x1p126f ? a * copysignf(0.0f, b) : a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline double fdivide(double a, double b) { return a / b; }   // div.rn.f64, as nvcc gives it
// the performance monitor's counters %pm0..%pm3, which a profiler sets up: none counts here
inline unsigned __pm0() { return 0; }
inline unsigned __pm1() { return 0; }
inline unsigned __pm2() { return 0; }
inline unsigned __pm3() { return 0; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float exp10f(float x) { return powf(10.0f, x); }
// sin(pi x) and cos(pi x): x reduced exactly to [-1/2, 1/2] first, so integers give 0
// and halves give 0 and 1 exactly, as CUDA's do (sinf((float)M_PI * x) gave -8.7e-8 at 1)
namespace gpuhost_cpu {
inline long double sinpi_reduced(long double r) {   // |r| <= 1/2
  return sinl(3.141592653589793238462643383279502884L * r);
}
inline long double sinpi(long double x) {
  long double r = fmodl(x, 2.0L);   // exact, in (-2, 2)
  if (r > 1.0L) r -= 2.0L; else if (r < -1.0L) r += 2.0L;
  if (r > 0.5L) r = 1.0L - r; else if (r < -0.5L) r = -1.0L - r;
  return r == 0 ? x * 0.0L : sinpi_reduced(r);   // 0 with x's sign (NaN for inf)
}
inline long double cospi(long double x) {
  long double r = fabsl(fmodl(x, 2.0L));   // exact, in [0, 2)
  if (r > 1.0L) r = 2.0L - r;
  return x - x == 0 ? sinpi_reduced(0.5L - r) + 0.0L : NAN;
}
}  // namespace gpuhost_cpu
inline float sinpif(float x) { return (float)gpuhost_cpu::sinpi(x); }
inline float cospif(float x) { return (float)gpuhost_cpu::cospi(x); }
inline double sinpi(double x) { return (double)gpuhost_cpu::sinpi(x); }
inline double cospi(double x) { return (double)gpuhost_cpu::cospi(x); }
inline float sinpi(float x) { return sinpif(x); }
inline float cospi(float x) { return cospif(x); }
inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
inline void sincospi(float x, float *s, float *c) { sincospif(x, s, c); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }

// ---- math functions CUDA has and the C library has not, in long double (to a double's
// last bit or so; a float one is the double one rounded) ----
namespace gpuhost_cpu {
constexpr long double two_over_sqrt_pi = 1.128379167095512573896158903121545172L;
// erfc(x) = y for y in (0, 0.5]: Newton on log(erfc), which is smooth for the tiny y
inline long double erfcinv_small(long double y) {
  long double x = sqrtl(-logl(y));
  for (int i = 0; i < 60; i++) {
    long double e = erfcl(x), dx = (logl(e) - logl(y)) * e / (two_over_sqrt_pi * expl(-x * x));
    x += dx;
    if (fabsl(dx) <= 1e-19L * x) break;
  }
  return x;
}
inline long double erfinv(long double y) {
  if (!(fabsl(y) <= 1.0L)) return NAN;
  if (fabsl(y) == 1.0L) return y * INFINITY;
  if (fabsl(y) > 0.5L) return (y < 0 ? -1 : 1) * erfcinv_small(1.0L - fabsl(y));   // 1 - |y| exact
  long double x = y * 0.886226925452758013649L;
  for (int i = 0; i < 8; i++) x -= (erfl(x) - y) / (two_over_sqrt_pi * expl(-x * x));
  return x;
}
inline long double erfcinv(long double y) {
  if (!(y >= 0.0L && y <= 2.0L)) return NAN;
  if (y == 0.0L) return INFINITY;
  if (y == 2.0L) return -INFINITY;
  if (y <= 0.5L) return erfcinv_small(y);
  if (y < 1.5L) return erfinv(1.0L - y);   // exact: y in (0.5, 1.5)
  return -erfcinv_small(2.0L - y);          // exact: y in [1.5, 2)
}
inline long double erfcx(long double x) {
  if (x < 100.0L) return expl(x * x) * erfcl(x);
  long double r = 1.0L / (2.0L * x * x);   // the asymptotic series: its terms fall fast here
  return (1.0L - r + 3.0L * r * r - 15.0L * r * r * r) / (x * 1.772453850905516027298L);
}
// I0 and I1 by their power series: positive terms, so the sum is stable
inline long double bessel_i(long double x, int order) {
  if (fabsl(x) > 720.0L) return order && x < 0 ? -INFINITY : INFINITY;
  long double q = x * x / 4.0L, term = order ? x / 2.0L : 1.0L, sum = term;
  for (int k = 1; k < 2000 && fabsl(term) > 1e-21L * fabsl(sum); k++) {
    term *= q / ((long double)k * (k + order));
    sum += term;
  }
  return sum;
}
template <class T> inline long double sum_squares(int n, const T *a) {
  long double s = 0;
  for (int i = 0; i < n; i++) s += (long double)a[i] * a[i];
  return s;
}
}  // namespace gpuhost_cpu
inline double erfinv(double y) { return (double)gpuhost_cpu::erfinv(y); }
inline float erfinvf(float y) { return (float)(double)gpuhost_cpu::erfinv(y); }
inline double erfcinv(double y) { return (double)gpuhost_cpu::erfcinv(y); }
inline float erfcinvf(float y) { return (float)(double)gpuhost_cpu::erfcinv(y); }
inline double normcdfinv(double p) { return (double)(-1.414213562373095048802L * gpuhost_cpu::erfcinv(2.0L * p)); }
inline float normcdfinvf(float p) { return (float)normcdfinv(p); }
inline double erfcx(double x) { return (double)gpuhost_cpu::erfcx(x); }
inline float erfcxf(float x) { return (float)erfcx(x); }
inline double cyl_bessel_i0(double x) { return (double)gpuhost_cpu::bessel_i(x, 0); }
inline double cyl_bessel_i1(double x) { return (double)gpuhost_cpu::bessel_i(x, 1); }
inline float cyl_bessel_i0f(float x) { return (float)cyl_bessel_i0(x); }
inline float cyl_bessel_i1f(float x) { return (float)cyl_bessel_i1(x); }
inline double rcbrt(double x) { return (double)(1.0L / cbrtl(x)); }
inline double rhypot(double x, double y) { return (double)(1.0L / hypotl(x, y)); }
inline float rhypotf(float x, float y) { return (float)(1.0 / hypot(x, y)); }
inline double norm3d(double a, double b, double c) { double v[3] = {a, b, c}; return (double)sqrtl(gpuhost_cpu::sum_squares(3, v)); }
inline double rnorm3d(double a, double b, double c) { double v[3] = {a, b, c}; return (double)(1.0L / sqrtl(gpuhost_cpu::sum_squares(3, v))); }
inline double norm4d(double a, double b, double c, double d) { double v[4] = {a, b, c, d}; return (double)sqrtl(gpuhost_cpu::sum_squares(4, v)); }
inline double rnorm4d(double a, double b, double c, double d) { double v[4] = {a, b, c, d}; return (double)(1.0L / sqrtl(gpuhost_cpu::sum_squares(4, v))); }
inline float norm3df(float a, float b, float c) { return (float)norm3d(a, b, c); }
inline float rnorm3df(float a, float b, float c) { return (float)rnorm3d(a, b, c); }
inline float norm4df(float a, float b, float c, float d) { return (float)norm4d(a, b, c, d); }
inline float rnorm4df(float a, float b, float c, float d) { return (float)rnorm4d(a, b, c, d); }
inline double norm(int n, const double *a) { return (double)sqrtl(gpuhost_cpu::sum_squares(n, a)); }
inline double rnorm(int n, const double *a) { return (double)(1.0L / sqrtl(gpuhost_cpu::sum_squares(n, a))); }
inline float normf(int n, const float *a) { return (float)(double)sqrtl(gpuhost_cpu::sum_squares(n, a)); }
inline float rnormf(int n, const float *a) { return (float)(double)(1.0L / sqrtl(gpuhost_cpu::sum_squares(n, a))); }
// the float overloads CUDA's C++ gives these (a float argument gives a float, computed so)
inline float erfinv(float y) { return erfinvf(y); }
inline float erfcinv(float y) { return erfcinvf(y); }
inline float normcdfinv(float p) { return normcdfinvf(p); }
inline float normcdf(float x) { return normcdff(x); }
inline float erfcx(float x) { return erfcxf(x); }
inline float cyl_bessel_i0(float x) { return cyl_bessel_i0f(x); }
inline float cyl_bessel_i1(float x) { return cyl_bessel_i1f(x); }
inline float rcbrt(float x) { return rcbrtf(x); }
inline float rsqrt(float x) { return rsqrtf(x); }
inline float exp10(float x) { return exp10f(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (s & 31)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (s & 31));
}
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
inline double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, 8); return x; }
template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }

// ---- rounding modes and conversions, as a GPU's instructions define them ----
namespace gpuhost_cpu {
// Rounded r of F to integer I: what is out of range gives the nearest bound, and NaN 0 for a
// float to a 32-bit integer but the top bit alone otherwise (INT_MIN, 2^31, 2^63), as an
// H200's cvt does (the host's own conversion is undefined there: INT_MIN for 1e10f).
template <class I, class F> inline I to_int(F r) {
  if (r != r) return sizeof(F) == 4 && sizeof(I) == 4 ? (I)0 : (I)(1ULL << (8 * sizeof(I) - 1));
  if (r <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
  if (r >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
  return (I)r;
}
// op() in rounding mode m. op reads its operands from volatile copies and stores its result
// to one, so the compiler can neither compute it before the mode is set nor after it is
// restored (it assumes the default mode otherwise).
template <class T, class Op> inline T in_mode(int m, Op op) {
  int old = fegetround();
  fesetround(m);
  T r = op();
  fesetround(old);
  return r;
}
}  // namespace gpuhost_cpu
#define GPUHOST_MODE_rn FE_TONEAREST
#define GPUHOST_MODE_rz FE_TOWARDZERO
#define GPUHOST_MODE_rd FE_DOWNWARD
#define GPUHOST_MODE_ru FE_UPWARD
#define GPUHOST_ROUND_rn nearbyint
#define GPUHOST_ROUND_rz trunc
#define GPUHOST_ROUND_rd floor
#define GPUHOST_ROUND_ru ceil
// name##_rn ... _ru(params) computing expr over the volatile copies of the arguments
#define GPUHOST_IN_MODES(R, name, params, copies, expr) \
  GPUHOST_IN_MODE(R, name, rn, params, copies, expr) GPUHOST_IN_MODE(R, name, rz, params, copies, expr) \
  GPUHOST_IN_MODE(R, name, rd, params, copies, expr) GPUHOST_IN_MODE(R, name, ru, params, copies, expr)
#define GPUHOST_IN_MODE(R, name, m, params, copies, expr) \
  inline R name##_##m params { copies; \
    return gpuhost_cpu::in_mode<R>(GPUHOST_MODE_##m, [&] { volatile R r = (expr); return r; }); }
#define GPUHOST_V1(T) volatile T x = a
#define GPUHOST_V2(T) volatile T x = a; volatile T y = b
#define GPUHOST_V3(T) volatile T x = a; volatile T y = b; volatile T z = c
GPUHOST_IN_MODES(float, __fadd, (float a, float b), GPUHOST_V2(float), x + y)
GPUHOST_IN_MODES(float, __fsub, (float a, float b), GPUHOST_V2(float), x - y)
GPUHOST_IN_MODES(float, __fmul, (float a, float b), GPUHOST_V2(float), x * y)
GPUHOST_IN_MODES(float, __fdiv, (float a, float b), GPUHOST_V2(float), x / y)
GPUHOST_IN_MODES(float, __fmaf, (float a, float b, float c), GPUHOST_V3(float), fmaf(x, y, z))
GPUHOST_IN_MODES(float, __fmaf_ieee, (float a, float b, float c), GPUHOST_V3(float), fmaf(x, y, z))
GPUHOST_IN_MODES(float, __frcp, (float a), GPUHOST_V1(float), 1.0f / x)
GPUHOST_IN_MODES(float, __fsqrt, (float a), GPUHOST_V1(float), sqrtf(x))
GPUHOST_IN_MODES(double, __dadd, (double a, double b), GPUHOST_V2(double), x + y)
GPUHOST_IN_MODES(double, __dsub, (double a, double b), GPUHOST_V2(double), x - y)
GPUHOST_IN_MODES(double, __dmul, (double a, double b), GPUHOST_V2(double), x * y)
GPUHOST_IN_MODES(double, __ddiv, (double a, double b), GPUHOST_V2(double), x / y)
GPUHOST_IN_MODES(double, __fma, (double a, double b, double c), GPUHOST_V3(double), fma(x, y, z))
GPUHOST_IN_MODES(double, __drcp, (double a), GPUHOST_V1(double), 1.0 / x)
GPUHOST_IN_MODES(double, __dsqrt, (double a), GPUHOST_V1(double), sqrt(x))
GPUHOST_IN_MODES(float, __double2float, (double a), GPUHOST_V1(double), (float)x)
GPUHOST_IN_MODES(float, __int2float, (int a), GPUHOST_V1(int), (float)x)
GPUHOST_IN_MODES(float, __uint2float, (unsigned a), GPUHOST_V1(unsigned), (float)x)
GPUHOST_IN_MODES(float, __ll2float, (long long a), GPUHOST_V1(long long), (float)x)
GPUHOST_IN_MODES(float, __ull2float, (unsigned long long a), GPUHOST_V1(unsigned long long), (float)x)
GPUHOST_IN_MODES(double, __ll2double, (long long a), GPUHOST_V1(long long), (double)x)
GPUHOST_IN_MODES(double, __ull2double, (unsigned long long a), GPUHOST_V1(unsigned long long), (double)x)
inline double __int2double_rn(int a) { return a; }
inline double __uint2double_rn(unsigned a) { return a; }
// one rounding to float from the double result (that one exact or nearly so)
inline float __frsqrt_rn(float x) { return (float)(1.0 / sqrt((double)x)); }
inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }   // NaN: 0
// float and double to integers, rounded each way
#define GPUHOST_TO_INT(F, P, I, suffix) \
  inline I P##2##suffix##_rn(F x) { return gpuhost_cpu::to_int<I>((F)GPUHOST_ROUND_rn(x)); } \
  inline I P##2##suffix##_rz(F x) { return gpuhost_cpu::to_int<I>((F)GPUHOST_ROUND_rz(x)); } \
  inline I P##2##suffix##_rd(F x) { return gpuhost_cpu::to_int<I>((F)GPUHOST_ROUND_rd(x)); } \
  inline I P##2##suffix##_ru(F x) { return gpuhost_cpu::to_int<I>((F)GPUHOST_ROUND_ru(x)); }
GPUHOST_TO_INT(float, __float, int, int) GPUHOST_TO_INT(float, __float, unsigned, uint)
GPUHOST_TO_INT(float, __float, long long, ll) GPUHOST_TO_INT(float, __float, unsigned long long, ull)
GPUHOST_TO_INT(double, __double, int, int) GPUHOST_TO_INT(double, __double, unsigned, uint)
GPUHOST_TO_INT(double, __double, long long, ll) GPUHOST_TO_INT(double, __double, unsigned long long, ull)
inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)((unsigned long long)(unsigned)hi << 32 | (unsigned)lo));
}

// ---- integer intrinsics ----
// __mul24: the low 24 bits of each operand, as signed (or unsigned) 24-bit numbers
inline int __mul24(int a, int b) {
  long long x = (int)((unsigned)a << 8) >> 8, y = (int)((unsigned)b << 8) >> 8;
  return (int)(unsigned long long)(x * y);
}
inline unsigned __umul24(unsigned a, unsigned b) {
  return (unsigned)((unsigned long long)(a & 0xffffffu) * (b & 0xffffffu));
}
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
inline unsigned __sad(int a, int b, unsigned c) { return (a > b ? (unsigned)a - (unsigned)b : (unsigned)b - (unsigned)a) + c; }
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (s < 32 ? s : 32)) >> 32);
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (s < 32 ? s : 32));
}
// dot products of packed bytes (and 16-bit halves) with a 32-bit accumulator, wrapping
template <class B> inline long long gpuhost_dp(unsigned a, unsigned b, int pairs, int wide, int hi) {
  long long sum = 0;
  for (int i = 0; i < pairs; i++) {
    long long x = wide ? (long long)(B)(short)(a >> (16 * i)) : (long long)(B)(a >> (8 * i));
    long long y = (long long)(B)(b >> (8 * (i + 2 * hi)));
    if (wide && !std::is_signed<B>::value) x = (unsigned short)(a >> (16 * i));
    sum += x * y;
  }
  return sum;
}
inline int __dp4a(int a, int b, int c) { return (int)(unsigned)(gpuhost_dp<signed char>((unsigned)a, (unsigned)b, 4, 0, 0) + c); }
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) { return (unsigned)(gpuhost_dp<unsigned char>(a, b, 4, 0, 0) + c); }
inline int __dp2a_lo(int a, int b, int c) { return (int)(unsigned)(gpuhost_dp<signed char>((unsigned)a, (unsigned)b, 2, 1, 0) + c); }
inline int __dp2a_hi(int a, int b, int c) { return (int)(unsigned)(gpuhost_dp<signed char>((unsigned)a, (unsigned)b, 2, 1, 1) + c); }
inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) { return (unsigned)(gpuhost_dp<unsigned char>(a, b, 2, 1, 0) + c); }
inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) { return (unsigned)(gpuhost_dp<unsigned char>(a, b, 2, 1, 1) + c); }
inline unsigned short __nv_bswap16(unsigned short x) { return __builtin_bswap16(x); }
inline unsigned __nv_bswap32(unsigned x) { return __builtin_bswap32(x); }
inline unsigned long long __nv_bswap64(unsigned long long x) { return __builtin_bswap64(x); }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }
inline void __prof_trigger(int) {}

// min and max for the mixes CUDA C allows
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned min(int a, unsigned b) { return min((unsigned)a, b); }
inline unsigned min(unsigned a, int b) { return min(a, (unsigned)b); }
inline unsigned max(int a, unsigned b) { return max((unsigned)a, b); }
inline unsigned max(unsigned a, int b) { return max(a, (unsigned)b); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
// the signed and unsigned mixes of CUDA's, compared as unsigned (as its int ones above)
inline unsigned long min(long a, unsigned long b) { return min((unsigned long)a, b); }
inline unsigned long min(unsigned long a, long b) { return min(a, (unsigned long)b); }
inline unsigned long max(long a, unsigned long b) { return max((unsigned long)a, b); }
inline unsigned long max(unsigned long a, long b) { return max(a, (unsigned long)b); }
inline unsigned long long min(long long a, unsigned long long b) { return min((unsigned long long)a, b); }
inline unsigned long long min(unsigned long long a, long long b) { return min(a, (unsigned long long)b); }
inline unsigned long long max(long long a, unsigned long long b) { return max((unsigned long long)a, b); }
inline unsigned long long max(unsigned long long a, long long b) { return max(a, (unsigned long long)b); }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double max(double a, float b) { return fmax(a, b); }

// ---- __fns, barriers by id, __uni_sync, address spaces, clusters; the SIMD intrinsics ----
// the position of the |offset|-th set bit of mask from bit base, upwards (offset > 0) or
// downwards; offset 0: base itself if set; 0xffffffff when there is none (PTX's fns)
inline unsigned __fns(unsigned mask, unsigned base, int offset) {
  if (base > 31) return 0xffffffffu;
  if (offset == 0) return (mask >> base & 1) ? base : 0xffffffffu;
  int count = (offset > 0 ? offset : -offset) - 1, inc = offset > 0 ? 1 : -1;
  for (int pos = (int)base; pos >= 0 && pos < 32; pos += inc)
    if ((mask >> pos & 1) && count-- == 0) return (unsigned)pos;
  return 0xffffffffu;
}
#define __builtin_assume(e) ((e) ? (void)0 : __builtin_unreachable())
// a barrier's id names one of a GPU's 16 block-wide barriers: each is the block's here
inline void __barrier_sync(unsigned) { __syncthreads(); }
inline void __barrier_sync_count(unsigned, unsigned count) {
  unsigned n = blockDim.x * blockDim.y * blockDim.z;
  if (count != (n + 31) / 32 * 32)
    gpuhost_cpu::stop(GPUHOST_STOP_UNSUPPORTED, "__barrier_sync_count for fewer warps than the block's", nullptr, 0);
  __syncthreads();
}
inline int __uni_sync(unsigned m, int p) {
  unsigned b = (unsigned)gpuhost_cpu::warp(GPUHOST_BALLOT, m, p != 0, 0, 32);
  return b == 0 || b == m;
}
// One address space: global memory, __constant__ and __device__ variables are the
// process's; static __shared__ is the library's thread-locals (this worker's copy), dynamic
// shared memory the block's; local memory the thread's stack, from the frame of the
// caller of __isLocal up to the kernel's first frame (run_thread's or the loops').
namespace gpuhost_cpu {
struct tls_range { const char *lo, *hi; };
inline int find_tls(struct dl_phdr_info *info, size_t, void *data) {
  tls_range *r = static_cast<tls_range *>(data);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const char *lo = static_cast<const char *>(info->dlpi_tls_data);
    if (info->dlpi_phdr[i].p_type != PT_TLS || lo == nullptr) continue;
    const char *hi = lo + info->dlpi_phdr[i].p_memsz, *ours = reinterpret_cast<const char *>(&gpuhost_threadIdx);
    if (ours >= lo && ours < hi) { r->lo = lo; r->hi = hi; return 1; }
  }
  return 0;
}
inline bool in_shared(const void *p) {
  static thread_local tls_range tls;   // this worker's copy of the library's thread-locals
  if (tls.lo == nullptr) dl_iterate_phdr(find_tls, &tls);
  const char *c = static_cast<const char *>(p), *dyn = static_cast<const char *>(gpuhost_dynamic_shared());
  return (c >= tls.lo && c < tls.hi) || (dyn && c >= dyn && c < dyn + 48 * 1024);
}
__attribute__((noinline)) inline bool in_local(const void *p) {
  const char *c = static_cast<const char *>(p);
  return c >= static_cast<const char *>(__builtin_frame_address(0)) && c < static_cast<const char *>(stack_top);
}
}  // namespace gpuhost_cpu
inline unsigned __isShared(const void *p) { return gpuhost_cpu::in_shared(p); }
inline unsigned __isCtaShared(const void *p) { return gpuhost_cpu::in_shared(p); }
inline unsigned __isClusterShared(const void *p) { return gpuhost_cpu::in_shared(p); }
inline unsigned __isLocal(const void *p) { return gpuhost_cpu::in_local(p); }
inline unsigned __isConstant(const void *) { return 0; }
inline unsigned __isGridConstant(const void *) { return 0; }
inline unsigned __isGlobal(const void *p) {
  return p != nullptr && !gpuhost_cpu::in_shared(p) && !gpuhost_cpu::in_local(p);
}
// the __cvta_ conversions: the address itself (a GPU's shared and local addresses are
// offsets in their windows)
#define GPUHOST_CVTA(space) \
  inline size_t __cvta_generic_to_##space(const void *p) { return (size_t)p; } \
  inline void *__cvta_##space##_to_generic(size_t a) { return (void *)a; }
GPUHOST_CVTA(global) GPUHOST_CVTA(shared) GPUHOST_CVTA(constant) GPUHOST_CVTA(local) GPUHOST_CVTA(grid_constant)
#undef GPUHOST_CVTA
// clusters: every launch here is a cluster of one block (a kernel with __cluster_dims__ is
// refused), as a GPU launches a kernel without __cluster_dims__
inline dim3 __clusterDim() { return dim3(1, 1, 1); }
inline dim3 __clusterIdx() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
inline dim3 __clusterGridDimInClusters() { return gridDim; }
inline dim3 __clusterRelativeBlockIdx() { return dim3(0, 0, 0); }
inline unsigned __clusterRelativeBlockRank() { return 0; }
inline unsigned __clusterSizeInBlocks() { return 1; }
inline unsigned __clusterDimIsSpecified() { return 0; }
inline unsigned __cluster_query_shared_rank(const void *) { return 0; }
inline void *__cluster_map_shared_rank(const void *p, unsigned rank) {
  if (rank != 0)
    gpuhost_cpu::stop(GPUHOST_STOP_UNSUPPORTED, "__cluster_map_shared_rank to a block rank other than 0 "
                      "(a cluster is one block here)", nullptr, 0);
  return const_cast<void *>(p);
}
inline uint2 __cluster_map_shared_multicast(const void *, unsigned) {
  gpuhost_cpu::stop(GPUHOST_STOP_UNSUPPORTED, "__cluster_map_shared_multicast", nullptr, 0);
}
// the cluster's barrier is the block's: arriving is waiting's first half
inline void __cluster_barrier_arrive() {}
inline void __cluster_barrier_arrive_relaxed() {}
inline void __cluster_barrier_wait() { __syncthreads(); }
#include "gpuhost_cpu_simd.h"   // __vadd4 ... (kernels/cpu_simd.h)

// ---- the device heap: malloc and free in kernel code (bound here, -Wl,-Bsymbolic) ----
// Before the runtime is bound (the library's constructors, which GCC 13's C++ library may
// give it), glibc's own.
extern "C" void *__libc_malloc(size_t n);
extern "C" void __libc_free(void *p);
extern "C" void *malloc(size_t n) noexcept { return gpuhost_rt ? gpuhost_rt->device_malloc(n, 16) : __libc_malloc(n); }
extern "C" void free(void *p) noexcept { if (gpuhost_rt) gpuhost_rt->device_free(p); else __libc_free(p); }
// aligned to align, a power of two (NULL otherwise, and here for one over a page), freed
// by free
extern "C" inline void *__nv_aligned_device_malloc(size_t n, size_t align) {
  return gpuhost_rt->device_malloc(n, align);
}

// ---- printf: formatted first into memory of the thread's own (vsnprintf takes no lock),
// then written out. Through glibc's printf, a fault while formatting (a %s of a bad
// pointer) jumped out of printf with stdout's lock held, and the next kernel's printf
// waited for it for ever. A macro, so that the compiler does not turn a printf into a puts
// (which would fault inside the lock the same way). ----
inline void gpuhost_print(const char *fmt, ...) {
  char small[1024], *text = small;
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof small && (text = (char *)__libc_malloc((size_t)n + 1)) != nullptr)
    vsnprintf(text, (size_t)n + 1, fmt, again);
  va_end(again);
  if (text == nullptr) text = small, n = (int)sizeof small - 1;   /* cut short */
  if (n > 0) fwrite(text, 1, (size_t)n, stdout);
  if (text != small) __libc_free(text);
}
// CUDA's printf returns the number of arguments after the format (-1 for no format)
template <class... A> inline int gpuhost_printf(const char *fmt, A... args) {
  if (fmt == nullptr) return -1;
  gpuhost_print(fmt, args...);
  return (int)sizeof...(A);
}
#define printf gpuhost_printf

// ---- what a GPU does not have, refused when kernel code calls it, as NVRTC refuses it:
// exit and abort here (a call that is compiled is an error), throw by -fno-exceptions ----
#define GPUHOST_REFUSE(name) \
  [[noreturn]] void gpuhost_refused_##name(...) \
      __attribute__((error(#name "() is host code: kernel code cannot call it")));
GPUHOST_REFUSE(exit)
GPUHOST_REFUSE(abort)
GPUHOST_REFUSE(quick_exit)
GPUHOST_REFUSE(_Exit)
namespace std {
using ::gpuhost_refused_exit;
using ::gpuhost_refused_abort;
using ::gpuhost_refused_quick_exit;
using ::gpuhost_refused__Exit;
}
#define exit(...) gpuhost_refused_exit(__VA_ARGS__)
#define abort(...) gpuhost_refused_abort(__VA_ARGS__)
#define quick_exit(...) gpuhost_refused_quick_exit(__VA_ARGS__)
#define _Exit(...) gpuhost_refused__Exit(__VA_ARGS__)

// ---- the loops that run a kernel (host/cpu/source.c instantiates them per kernel) ----
namespace gpuhost_cpu {
template <class F> struct kernel;
template <class R, class... A> struct kernel<R (*)(A...)> {
  static_assert(std::is_void<R>::value, "a __global__ function must have a void return type");
  static constexpr long space() { return 0; }
};
// A parameter as a GPU passes it: a reference as a pointer (PTX's .param .u64)
template <class A> using passed = std::conditional_t<std::is_reference<A>::value, void *, A>;
template <class... A> struct kernel<void (*)(A...)> {
  static constexpr int count = sizeof...(A);
  static constexpr long sizes[sizeof...(A) + 1] = {(long)sizeof(passed<A>)..., 0};
  // the parameters' bytes, each at its alignment, as a GPU lays them out
  static constexpr long space() {
    long at = 0;
    ((at = (at + (long)alignof(passed<A>) - 1) / (long)alignof(passed<A>) * (long)alignof(passed<A>) +
           (long)sizeof(passed<A>)), ...);
    return at;
  }
  using args = std::tuple<std::decay_t<A>...>;
  template <std::size_t... I> static args load(void **a, std::index_sequence<I...>) {
    return args(*static_cast<std::decay_t<A> *>(a[I])...);
  }
  static args load(void **a) { return load(a, std::index_sequence_for<A...>{}); }
};

inline void set_launch(const gpuhost_launch *l) {
  gpuhost_blockDim = dim3(l->block.x, l->block.y, l->block.z);
  gpuhost_gridDim = dim3(l->grid.x, l->grid.y, l->grid.z);
  for (const dynamic_hook *h = dynamic_hook::first; h != nullptr; h = h->next) h->set(gpuhost_dynamic_shared());
}

// The fiber path: a thread of block b, and of the blocks after it, on the fiber that thread
// has (a thread that reaches a barrier parks it, and the runtime resumes it when the barrier
// is passed). The kernel is inlined here and a returned thread parks here too, so that
// every switch between a block's fibers leaves and resumes the same chain of calls, whose
// returns the processor predicts.
template <auto F> __attribute__((flatten)) void run_thread(const gpuhost_block *b) {
  do {
    const gpuhost_launch *l = b->launch;
    set_launch(l);
    gpuhost_blockIdx = uint3{b->index.x, b->index.y, b->index.z};
    gpuhost_threadIdx = uint3{b->thread.x, b->thread.y, b->thread.z};
    stack_top = __builtin_frame_address(0);
    std::apply(F, kernel<decltype(F)>::load(l->args));
  } while (gpuhost_rt->barrier(GPUHOST_EXIT, 0));
}

// The loop path: a launch's blocks first..last-1 with the arguments in locals.
template <auto F> struct blocks {
  typename kernel<decltype(F)>::args args;
  const gpuhost_launch *l;
  unsigned bx, by, bz;
  explicit blocks(const gpuhost_launch *launch)
      : args(kernel<decltype(F)>::load(launch->args)), l(launch), bx(launch->block.x),
        by(launch->block.y), bz(launch->block.z) {
    set_launch(launch);
  }
  // Enters block b; false when the launch must stop (a failure elsewhere, Ctrl-C).
  bool enter(long b) {
    if (*l->stop | *l->interrupt) return false;
    *l->entered = b;
    long gx = l->grid.x, gy = l->grid.y;
    gpuhost_blockIdx = uint3{(unsigned)(b % gx), (unsigned)(b / gx % gy), (unsigned)(b / (gx * gy))};
    return true;
  }
  void call() { std::apply(F, args); }
};

// The loops over a chunk of blocks, each block's threads innermost along x, with the kernel
// inlined: host/cpu/source.c expands them per kernel. The index along x is an int (base +
// x), which the compiler sees cannot wrap, as `int i = blockIdx.x * blockDim.x +
// threadIdx.x` needs to vectorise; the runtime uses the loops when grid.x * block.x fits
// an int (fibers otherwise).
#define GPUHOST_THREADS(F) \
  for (unsigned gpuhost_z = 0; gpuhost_z < gpuhost_k.bz; gpuhost_z++) \
    for (unsigned gpuhost_y = 0; gpuhost_y < gpuhost_k.by; gpuhost_y++) { \
      _Pragma("GCC ivdep") \
      for (int gpuhost_g = (int)gpuhost_base; gpuhost_g < (int)(gpuhost_base + gpuhost_k.bx); gpuhost_g++) { \
        gpuhost_threadIdx = uint3{(unsigned)gpuhost_g - gpuhost_base, gpuhost_y, gpuhost_z}; \
        gpuhost_k.call(); \
      } \
      gpuhost_threadIdx = uint3{0, 0, 0}; /* the last thread's index is not needed after */ \
    }
/* Block 0 apart: in the others the compiler knows the index is at least 1 (the launch
 * keeps grid.x * block.x within an int), so a kernel's `if (i > 0 && i < n - 1)` leaves it
 * one bound to split the loop at, and the loop runs unmasked. */
#define GPUHOST_LOOPS(name, F) \
  static void name(const gpuhost_launch *gpuhost_l, long gpuhost_first, long gpuhost_last) { \
    gpuhost_cpu::stack_top = __builtin_frame_address(0); \
    gpuhost_cpu::blocks<F> gpuhost_k(gpuhost_l); \
    for (long gpuhost_b = gpuhost_first; gpuhost_b < gpuhost_last && gpuhost_k.enter(gpuhost_b); gpuhost_b++) { \
      unsigned gpuhost_base = gpuhost_blockIdx.x * gpuhost_k.bx; \
      if ((int)gpuhost_base < 0 || (int)(gpuhost_base + gpuhost_k.bx) < 0) __builtin_unreachable(); \
      if (gpuhost_base == 0) GPUHOST_THREADS(F) else GPUHOST_THREADS(F) \
    } \
  }

template <auto F> constexpr gpuhost_entry entry(void (*loops)(const gpuhost_launch *, long, long),
                                                long max_threads) {
  return gpuhost_entry{run_thread<F>, loops, kernel<decltype(F)>::count, kernel<decltype(F)>::sizes,
                       max_threads};
}
}  // namespace gpuhost_cpu

#define GPUHOST_NAMES 2
#include "gpuhost_cpu.h"
#undef GPUHOST_NAMES
#endif
