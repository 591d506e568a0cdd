// convolve.cu: the kernel behind gpu.convolve and gpu.correlate (lua/stats.lua launches it
// after kernels/ops/ew.cuh and complex.cuh, whose casts and arithmetic it shares with the
// elementwise operations). One thread an output element of the full convolution of x (n
// elements, the longer operand) and y (m): out[t] = sum of x[i] * y[k - i], k = first + t,
// over the i where both exist (taps past either end are not read: NumPy's dot of the
// overlap), in ascending i. Each product is computed as gpu.multiply computes it in the
// result type R (C: float for float16, rounded back to R), then summed in A as gpu.sum sums
// (float64 for float16 and float32, complex128 for complex64; integers wrap in R, bool is
// or-ed), and the sum cast to R once. Any strides (a flipped view too); grid-stride loop.

template <typename X, typename Y, typename R, typename C, typename A>
__global__ void convolve(gpu::array<X> x, gpu::array<Y> y, R *out, long long first, long long count) {
  const long long n = x.size, m = y.size, sx = x.stride[0], sy = y.stride[0];
  const X *px = x.ptr();
  const Y *py = y.ptr();
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < count;
       t += (long long)gridDim.x * blockDim.x) {
    const long long k = first + t;
    const long long lo = k - m + 1 > 0 ? k - m + 1 : 0, hi = k < n - 1 ? k : n - 1;
    A acc = A(0);
    for (long long i = lo; i <= hi; i++) {
      const R p = ew::cast<R>(ew::multiply<C>(ew::cast<C>(px[i * sx]), ew::cast<C>(py[(k - i) * sy])));
      acc = ew::add<A>(acc, ew::cast<A>(p));
    }
    out[t] = ew::cast<R>(acc);
  }
}
