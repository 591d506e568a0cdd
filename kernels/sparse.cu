// sparse.cu: the kernels of gpu.sparse (lua/sparse.lua) over compressed rows (CSR; a CSC
// matrix is the CSR matrix of its transpose). A module per value type T, compiled at the
// first use of that dtype. Whatever indptr and indices hold at launch (a user may write into
// them), every kernel clamps a row's range to [0, nnz] and skips an entry whose column lies
// outside [0, ncols): no launch reads or writes outside its arrays.

// the entries [lo, hi) of row r, clamped
__device__ inline void sp_row(const int *indptr, long long r, long long nnz, long long &lo, long long &hi) {
  lo = indptr[r];
  hi = indptr[r + 1];
  lo = lo < 0 ? 0 : (lo > nnz ? nnz : lo);
  hi = hi < lo ? lo : (hi > nnz ? nnz : hi);
}

// a value moved down d lanes within groups of w lanes, word by word (complex ones too)
template <class T> __device__ inline T sp_shfl_down(T v, int d, int w) {
  union { T v; unsigned w[(sizeof(T) + 3) / 4]; } u;
  u.v = v;
  for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++) u.w[i] = __shfl_down_sync(0xffffffffu, u.w[i], d, w);
  return u.v;
}

// y[r] = sum over row r of data[p] * x[indices[p]] (sum_only: of data[p] alone, every entry:
// row sums, and the runs of sum_duplicates, whose indptr is the runs' starts). `lanes`
// threads a row (1, 2, ..., 32: a sub-warp, chosen from the mean row length), each taking
// every lanes-th entry, then summed by shuffles. The loop runs while the warp's first
// thread has a row, so a warp's lanes shuffle together.
template <class T>
__global__ void csr_spmv(const int *indptr, const int *indices, const T *data, const T *x, T *y, long long m,
                         long long ncols, long long nnz, int lanes, int sum_only) {
  long long stride = (long long)gridDim.x * blockDim.x;
  int lane = threadIdx.x & (lanes - 1), warp_lane = threadIdx.x & 31;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t - warp_lane < m * lanes; t += stride) {
    long long r = t / lanes;
    T s = T(0);
    if (r < m) {
      long long lo, hi;
      sp_row(indptr, r, nnz, lo, hi);
      if (sum_only) {
        for (long long p = lo + lane; p < hi; p += lanes) s += data[p];
      } else {
        for (long long p = lo + lane; p < hi; p += lanes) {
          int c = indices[p];
          if (c >= 0 && c < ncols) s += data[p] * x[c];
        }
      }
    }
    for (int d = lanes / 2; d > 0; d /= 2) s += sp_shfl_down(s, d, lanes);
    if (r < m && lane == 0) y[r] = s;
  }
}

// Y (m, k) = A @ X, X (ncols, k) and Y C-ordered: a thread an element of Y, threadIdx.x along
// Y's row (consecutive threads read consecutive elements of X's rows), threadIdx.y a row.
template <class T>
__global__ void csr_spmm(const int *indptr, const int *indices, const T *data, const T *x, T *y, long long m,
                         long long ncols, long long nnz, long long k) {
  for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < m; r += (long long)gridDim.y * blockDim.y) {
    long long lo, hi;
    sp_row(indptr, r, nnz, lo, hi);
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < k; j += (long long)gridDim.x * blockDim.x) {
      T s = T(0);
      for (long long p = lo; p < hi; p++) {
        int c = indices[p];
        if (c >= 0 && c < ncols) s += data[p] * x[c * k + j];
      }
      y[r * k + j] = s;
    }
  }
}

// out[r * rs + c * cs] += data[p] for the entries (r, c) of each row: a thread a row, so
// duplicates add up without atomics. out holds zeros (a dense matrix, C-ordered: rs = n,
// cs = 1 for CSR; rs = 1, cs = n for CSC, whose rows are the matrix's columns).
template <class T>
__global__ void csr_todense(const int *indptr, const int *indices, const T *data, T *out, long long m,
                            long long ncols, long long nnz, long long rs, long long cs) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) {
    long long lo, hi;
    sp_row(indptr, r, nnz, lo, hi);
    for (long long p = lo; p < hi; p++) {
      int c = indices[p];
      if (c >= 0 && c < ncols) out[r * rs + c * cs] += data[p];
    }
  }
}
