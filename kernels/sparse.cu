// sparse.cu: the kernels of gpu.sparse (lua/sparse.lua) over compressed rows (CSR; a CSC
// matrix is the CSR matrix of its transpose). A module per value type T, compiled at the
// first use of that dtype. Whatever indptr and indices hold at launch (a user may write into
// them), every kernel clamps a row's range to [0, nnz] and skips an entry whose column lies
// outside [0, ncols): no launch reads or writes outside its arrays. The inputs are read-only
// in every launch (__restrict__: the read-only data path), which may pass one array twice.

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

// y[r] = sum over row r of data[p] * x[indices[p]]; sum_only 1: of data[p] alone, every entry
// (the runs of sum_duplicates, whose indptr is the runs' starts and indices unused); 2: of
// data[p] alone, the entries inside the matrix (row sums). `lanes`
// threads a row (1, 2, ..., 32: a sub-warp, chosen from the mean row length), each taking
// every lanes-th entry, then summed by shuffles. The loop runs while the warp's first
// thread has a row, so a warp's lanes shuffle together.
template <class T>
__global__ void csr_spmv(const int *__restrict__ indptr, const int *__restrict__ indices,
                         const T *__restrict__ data, const T *__restrict__ x, T *__restrict__ y, long long m,
                         long long ncols, long long nnz, int lanes, int sum_only) {
  long long stride = (long long)gridDim.x * blockDim.x;
  int lane = threadIdx.x & (lanes - 1), warp_lane = threadIdx.x & 31;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t - warp_lane < m * lanes; t += stride) {
    long long r = t / lanes;
    T s = T(0);
    bool mine = r < m;
    if (mine) {
      long long lo, hi;
      sp_row(indptr, r, nnz, lo, hi);
      if (sum_only == 1) {
        for (long long p = lo + lane; p < hi; p += lanes) s += data[p];
      } else if (sum_only == 2) {
        for (long long p = lo + lane; p < hi; p += lanes) {
          int c = indices[p];
          if (c >= 0 && c < ncols) s += data[p];
        }
      } else {
        for (long long p = lo + lane; p < hi; p += lanes) {
          int c = indices[p];
          if (c >= 0 && c < ncols) s += data[p] * x[c];
        }
      }
    }
    for (int d = lanes / 2; d > 0; d /= 2) s += sp_shfl_down(s, d, lanes);
    if (mine && lane == 0) y[r] = s;
  }
}

// Y (m, k) = A @ X, X (ncols, k) and Y C-ordered: a thread an element of Y, threadIdx.x along
// Y's row (consecutive threads read consecutive elements of X's rows), threadIdx.y a row
// (lua/sparse.lua launches blocks of w x 256 / w threads, w the power of two at or above k,
// at most 32).
template <class T>
__global__ void csr_spmm(const int *__restrict__ indptr, const int *__restrict__ indices,
                         const T *__restrict__ data, const T *__restrict__ x, T *__restrict__ y, long long m,
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
__global__ void csr_todense(const int *__restrict__ indptr, const int *__restrict__ indices,
                            const T *__restrict__ data, T *__restrict__ out, long long m,
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

// C = A + B of two CSR matrices of one shape whose rows are sorted without duplicates
// (canonical), a thread a row merging its two rows; sums of zero are left out, as scipy's.
// Pass 0 writes each row's count to counts[r]; pass 1, given C's indptr cp (the counts'
// running sum), writes the row's entries into ci and cd, never past cp[r + 1] nor cnnz. Both
// passes walk the rows alike, so their counts agree; a matrix whose arrays were written after
// it was made (unsorted, out of range) gives unspecified entries, never a write outside C.
template <class T>
__global__ void csr_add(const int *ap, const int *ai, const T *ad, long long annz, const int *bp, const int *bi,
                        const T *bd, long long bnnz, long long m, long long ncols, int *counts, const int *cp,
                        int *ci, T *cd, long long cnnz, int pass) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) {
    long long i, ahi, j, bhi;
    sp_row(ap, r, annz, i, ahi);
    sp_row(bp, r, bnnz, j, bhi);
    long long w = 0, at = 0, end = 0;
    if (pass == 1) {
      at = cp[r];
      end = cp[r + 1];
      at = at < 0 ? 0 : at;
      end = end > cnnz ? cnnz : end;
    }
    while (i < ahi || j < bhi) {
      long long ca = i < ahi ? (long long)ai[i] : ncols, cb = j < bhi ? (long long)bi[j] : ncols;
      if (i < ahi && (ca < 0 || ca >= ncols)) { i++; continue; }
      if (j < bhi && (cb < 0 || cb >= ncols)) { j++; continue; }
      T v;
      long long c;
      if (ca < cb) { v = ad[i++]; c = ca; }
      else if (cb < ca) { v = bd[j++]; c = cb; }
      else { v = ad[i++] + bd[j++]; c = ca; }
      if (v != T(0)) {
        if (pass == 1 && at + w < end) { ci[at + w] = (int)c; cd[at + w] = v; }
        w++;
      }
    }
    if (pass == 0) counts[r] = (int)(w < 2147483647LL ? w : 2147483647LL);
  }
}
