// builtin.cu: the kernels behind gpu.full, gpu.ones, gpu.arange and gpu.random
// (lua/gpu.lua launches them). Each loops over its elements with a grid stride, so any
// grid size is correct.
//
// Random numbers come from Philox4x32-10 (Salmon et al., "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011), a counter-based generator: element group g of call c under
// seed s is philox({g, c}, s), so the numbers depend only on seed, call and index.

struct philox_out { unsigned int v[4]; };

__device__ inline philox_out philox4x32_10(unsigned long long group, unsigned long long call,
                                           unsigned long long seed) {
  unsigned int c0 = (unsigned int)group, c1 = (unsigned int)(group >> 32);
  unsigned int c2 = (unsigned int)call, c3 = (unsigned int)(call >> 32);
  unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32);
#pragma unroll
  for (int round = 0; round < 10; round++) {
    unsigned int hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    unsigned int hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  philox_out r = {{c0, c1, c2, c3}};
  return r;
}

// [0, 1) from 24 or 53 random bits
__device__ inline float unit_float(unsigned int a) { return (a >> 8) * (1.0f / 16777216.0f); }
__device__ inline double unit_double(unsigned int a, unsigned int b) {
  return ((unsigned long long)(a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0);
}

// Most of the array is written 16 bytes at a time (allocations are 256-byte aligned).
template <typename T>
__global__ void fill(T *a, long long n, T value) {
  long long stride = (long long)gridDim.x * blockDim.x, first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int per = 16 / sizeof(T);
  union { uint4 v; T e[16 / sizeof(T)]; } pattern;
  for (int j = 0; j < per; j++) pattern.e[j] = value;
  long long vectors = n / per;
  uint4 *v = reinterpret_cast<uint4 *>(a);
  for (long long i = first; i < vectors; i += stride) v[i] = pattern.v;
  for (long long i = vectors * per + first; i < n; i += stride) a[i] = value;
}

template <typename T>
__global__ void arange(T *a, long long n, double start, double step) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    a[i] = (T)(start + (double)i * step);
}

// float32: 4 elements a group; float64: 2
__global__ void uniform_float32(float *a, long long n, unsigned long long seed,
                                unsigned long long call, float lo, float hi) {
  long long groups = (n + 3) / 4;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    float4 f = make_float4(lo + (hi - lo) * unit_float(r.v[0]), lo + (hi - lo) * unit_float(r.v[1]),
                           lo + (hi - lo) * unit_float(r.v[2]), lo + (hi - lo) * unit_float(r.v[3]));
    if (4 * g + 3 < n) reinterpret_cast<float4 *>(a)[g] = f;
    else for (int j = 0; j < 4 && 4 * g + j < n; j++) a[4 * g + j] = (&f.x)[j];
  }
}

__global__ void uniform_float64(double *a, long long n, unsigned long long seed,
                                unsigned long long call, double lo, double hi) {
  long long groups = (n + 1) / 2;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    double2 d = make_double2(lo + (hi - lo) * unit_double(r.v[0], r.v[1]),
                             lo + (hi - lo) * unit_double(r.v[2], r.v[3]));
    if (2 * g + 1 < n) reinterpret_cast<double2 *>(a)[g] = d;
    else a[2 * g] = d.x;
  }
}

// Box-Muller: each pair of uniforms gives a pair of normals
__global__ void normal_float32(float *a, long long n, unsigned long long seed,
                               unsigned long long call, float mean, float stddev) {
  long long groups = (n + 3) / 4;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    float4 f;
    for (int j = 0; j < 4; j += 2) {
      float u1 = 1.0f - unit_float(r.v[j]), u2 = unit_float(r.v[j + 1]);
      float rad = sqrtf(-2.0f * logf(u1)), s, c;
      sincospif(2.0f * u2, &s, &c);
      (&f.x)[j] = mean + stddev * rad * c;
      (&f.x)[j + 1] = mean + stddev * rad * s;
    }
    if (4 * g + 3 < n) reinterpret_cast<float4 *>(a)[g] = f;
    else for (int j = 0; j < 4 && 4 * g + j < n; j++) a[4 * g + j] = (&f.x)[j];
  }
}

__global__ void normal_float64(double *a, long long n, unsigned long long seed,
                               unsigned long long call, double mean, double stddev) {
  long long groups = (n + 1) / 2;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
       g += (long long)gridDim.x * blockDim.x) {
    philox_out r = philox4x32_10((unsigned long long)g, call, seed);
    double u1 = 1.0 - unit_double(r.v[0], r.v[1]), u2 = unit_double(r.v[2], r.v[3]);
    double rad = sqrt(-2.0 * log(u1)), s, c;
    sincospi(2.0 * u2, &s, &c);
    if (2 * g + 1 < n) reinterpret_cast<double2 *>(a)[g] = make_double2(mean + stddev * rad * c, mean + stddev * rad * s);
    else a[2 * g] = mean + stddev * rad * c;
  }
}
