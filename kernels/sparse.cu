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

// entry p's term of a row's sum: data[p] * x[indices[p]] (sum_only 0), data[p] (1: every
// entry, the runs of sum_duplicates, indices unused) or data[p] where its column lies in the
// matrix (2: row sums); an entry whose column lies outside adds nothing
template <class T>
__device__ inline T sp_term(const int *__restrict__ indices, const T *__restrict__ data, const T *__restrict__ x,
                            long long p, long long ncols, int sum_only) {
  if (sum_only == 1) return data[p];
  int c = indices[p];
  if (c < 0 || c >= ncols) return T(0);
  return sum_only == 2 ? data[p] : data[p] * x[c];
}

#define SP_ROWS 256                                       // rows a block takes at a time (= blockDim.x)
#define SP_STAGE 16384                                    // bytes of a block's staged terms
#define SP_SHORT 32                                       // the longest row the staged path sums
#define SP_WARP_ROW 512                                   // the longest row a warp sums alone

// the sum of `lanes` lanes' values (a power of two, groups of lanes aligned in the warp),
// in the group's first lane
template <class T> __device__ inline T sp_group_sum(T s, int lanes) {
  for (int d = lanes / 2; d > 0; d /= 2) s += sp_shfl_down(s, d, lanes);
  return s;
}

// y[r] = the sum of row r's terms (sp_term). Launched with blocks of SP_ROWS threads, each
// block taking SP_ROWS consecutive rows at a time, in one of two ways:
// - staged, where the rows' entries fit in SP_STAGE bytes and none has more than SP_SHORT
//   (short rows, as CSR-Adaptive's CSR-stream): the block's threads compute the terms of all
//   its entries, a thread an entry (loads of consecutive entries, many in flight), into shared
//   memory; then a thread a row (lanes <= 4), or sub-warps of `lanes` threads a row, sum them
//   from there;
// - otherwise sub-warps of `lanes` threads a row, each lane every lanes-th entry. A row
//   longer than 8 * lanes waits for the sub-warps to finish, then a warp sums it (up to
//   SP_WARP_ROW entries, eight rows at a time) or the whole block does (so a few long rows
//   among short ones do not hold a sub-warp for thousands of steps).
// `lanes` (a power of two up to 32) comes from the mean row length (lua/sparse.lua). Row
// ranges are clamped to [0, nnz], so no indptr reads or writes outside the arrays.
template <class T>
__global__ void csr_spmv(const int *__restrict__ indptr, const int *__restrict__ indices,
                         const T *__restrict__ data, const T *__restrict__ x, T *__restrict__ y, long long m,
                         long long ncols, long long nnz, int lanes, int sum_only) {
  __shared__ __align__(16) unsigned char stage[SP_STAGE];
  __shared__ int longs[SP_ROWS], rlo[SP_ROWS], rhi[SP_ROWS];   // long rows; each row's clamped range
  __shared__ int nlong;
  T *terms = (T *)stage;
  const long long cap = SP_STAGE / (long long)sizeof(T);
  int shift = 0;
  while ((1 << shift) < lanes) shift++;
  const int t = (int)threadIdx.x, lane = t & (lanes - 1), group = t >> shift, groups = SP_ROWS >> shift;
  const int wl = t & 31, warp = t >> 5;
  for (long long base = (long long)blockIdx.x * SP_ROWS; base < m; base += (long long)gridDim.x * SP_ROWS) {
    long long end = base + SP_ROWS < m ? base + SP_ROWS : m, r = base + t;
    long long lo = 0, hi = 0, blo, bhi, unused;
    if (r < m) sp_row(indptr, r, nnz, lo, hi);
    rlo[t] = (int)lo;   // (nnz < 2^31: int32 indices)
    rhi[t] = (int)hi;
    sp_row(indptr, base, nnz, blo, unused);
    sp_row(indptr, end - 1, nnz, unused, bhi);
    if (bhi < blo) bhi = blo;
    // staged where every row lies in the block's span (it does unless indptr was written
    // after the matrix was made: then each row's own clamped range is summed, as unstaged);
    // every thread reaches the barrier, the condition is the block's
    if (!__syncthreads_or(hi - lo > SP_SHORT || (hi > lo && (lo < blo || hi > bhi))) && bhi - blo <= cap) {
#pragma unroll 4
      for (long long p = blo + t; p < bhi; p += SP_ROWS) terms[p - blo] = sp_term(indices, data, x, p, ncols, sum_only);
      __syncthreads();
      if (lanes <= 4) {   // rows of a few entries: a thread its own (where lanes took 1.4 times as long)
        if (r < m) {
          T s = T(0);
          for (long long p = lo; p < hi; p++) s += terms[p - blo];
          y[r] = s;
        }
      } else {
        for (int k = group; k < SP_ROWS; k += groups) {   // as many turns for every group: shuffles stay together
          T s = T(0);
          for (int p = rlo[k] + lane; p < rhi[k]; p += lanes) s += terms[p - blo];
          s = sp_group_sum(s, lanes);
          if (base + k < m && lane == 0) y[base + k] = s;
        }
      }
      __syncthreads();   // the terms are read before the next rows' overwrite them
      continue;
    }
    if (t == 0) nlong = 0;
    __syncthreads();
    for (int k = group; k < SP_ROWS; k += groups) {
      long long row = base + k;
      bool mine = row < m;
      T s = T(0);
      if (mine) {
        long long a = rlo[k], b = rhi[k];
        if (b - a > 8LL * lanes) {
          if (lane == 0) longs[atomicAdd(&nlong, 1)] = k;
          mine = false;
        } else {
          for (long long p = a + lane; p < b; p += lanes) s += sp_term(indices, data, x, p, ncols, sum_only);
        }
      }
      s = sp_group_sum(s, lanes);
      if (mine && lane == 0) y[row] = s;
    }
    __syncthreads();
    const int nl = nlong;
    for (int i = warp; i < nl; i += SP_ROWS / 32) {   // a warp a long row
      long long row = base + longs[i], a, b;
      sp_row(indptr, row, nnz, a, b);
      if (b - a > SP_WARP_ROW) continue;
      T s = T(0);
#pragma unroll 4
      for (long long p = a + wl; p < b; p += 32) s += sp_term(indices, data, x, p, ncols, sum_only);
      s = sp_group_sum(s, 32);
      if (wl == 0) y[row] = s;
    }
    for (int i = 0; i < nl; i++) {   // the whole block a longer row
      long long row = base + longs[i], a, b;
      sp_row(indptr, row, nnz, a, b);
      if (b - a <= SP_WARP_ROW) continue;
      T s = T(0);
#pragma unroll 4
      for (long long p = a + t; p < b; p += SP_ROWS) s += sp_term(indices, data, x, p, ncols, sum_only);
      s = sp_group_sum(s, 32);
      if (wl == 0) terms[warp] = s;
      __syncthreads();
      if (t == 0) {
        for (int w = 1; w < SP_ROWS / 32; w++) s += terms[w];
        y[row] = s;
      }
      __syncthreads();
    }
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

// Per row (the CSR form's: a CSC matrix's columns) of a canonical matrix (rows sorted,
// without duplicates), scipy's max (want_max) or min along it and its argmax or argmin:
// the extreme of the stored entries (the first where they tie; a NaN, the first, wins as
// NumPy's reductions), joined by the implicit zeros where the row holds fewer than ncols
// entries, and the column scipy's argmax finds: the stored entry's where it beats zero or
// the row is full, else the first missing column (or the entry's, if earlier, where the
// extreme is zero itself). A row without entries gives 0 at column 0. gaps[r]: the row's
// first missing column (ncols where it is full).
template <class T>
__global__ void csr_extreme(const int *__restrict__ indptr, const int *__restrict__ indices,
                            const T *__restrict__ data, long long m, long long ncols, long long nnz, int want_max,
                            T *val, long long *arg, long long *gaps) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) {
    long long lo, hi, at = -1, count = 0, gap = 0;
    sp_row(indptr, r, nnz, lo, hi);
    T best = T(0);
    for (long long p = lo; p < hi; p++) {
      int c = indices[p];
      if (c < 0 || c >= ncols) continue;
      T v = data[p];
      if (at < 0 || (best == best && (v != v || (want_max ? best < v : v < best)))) { best = v; at = c; }
      if (c == gap) gap++;   // the first column missing (sorted, distinct columns)
      count++;
    }
    T value = best;
    long long col = at;
    if (at < 0) { value = T(0); col = 0; }
    else if (count < ncols && !(want_max ? T(0) < best : best < T(0))) {
      col = best == T(0) && at < gap ? at : gap;
      if (best == best) value = T(0);   // (a NaN stays)
    }
    val[r] = value;
    arg[r] = col;
    gaps[r] = count < ncols ? gap : ncols;
  }
}

// CSR -> CSC (and CSC -> CSR: the same arrays read the other way) without a sort, in three
// launches: csr_count counts each column's entries (a thread an entry), lua/sparse.lua makes
// the column starts (a running sum) and a copy of them as cursors; csr_place puts each
// entry's position p and row at its column's next place (a thread a row; atomics, so in no
// set order); csr_order writes each entry's value and row at its rank by p among its
// column's (a thread a column, counting the places below each: k^2 reads, so lua/sparse.lua
// uses it only where no column holds more than SP_ORDER entries; read-only, not an insertion
// sort in place, whose stores and reloads went through L2 and took 0.88 of 1.47 ms for
// 21 million entries). Ordered by p, a column lists its entries in the rows' order, as a
// stable sort would. Places are bounded by the column's end: a matrix whose arrays were
// written after it was made leaves some places at p = -1 (value 0, row 0; ties ranked by
// place, so the ranks stay a permutation), never a write outside.
#define SP_ORDER 64
template <class T>
__global__ void csr_count(const int *__restrict__ indices, long long nnz, long long ncols, int *counts) {
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += (long long)gridDim.x * blockDim.x) {
    int c = indices[p];
    if (c >= 0 && c < ncols) atomicAdd(&counts[c], 1);
  }
}

template <class T>
__global__ void csr_place(const int *__restrict__ indptr, const int *__restrict__ indices, long long m, long long ncols,
                          long long nnz, const int *__restrict__ starts, int *cursor, int *pos, int *rows) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (long long)gridDim.x * blockDim.x) {
    long long lo, hi;
    sp_row(indptr, r, nnz, lo, hi);
    for (long long p = lo; p < hi; p++) {
      int c = indices[p];
      if (c < 0 || c >= ncols) continue;
      int at = atomicAdd(&cursor[c], 1);
      if (at < starts[c + 1] && at >= 0 && at < nnz) {
        pos[at] = (int)p;
        rows[at] = (int)r;
      }
    }
  }
}

template <class T>
__global__ void csr_order(const int *__restrict__ starts, long long ncols, long long nnz, const int *__restrict__ pos,
                          const int *__restrict__ rows, const T *__restrict__ data, T *vals, int *rows_out) {
  for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < ncols; c += (long long)gridDim.x * blockDim.x) {
    long long lo = starts[c], hi = starts[c + 1];
    lo = lo < 0 ? 0 : (lo > nnz ? nnz : lo);
    hi = hi < lo ? lo : (hi > nnz ? nnz : hi);
    for (long long i = lo; i < hi; i++) {   // its rank among the column's places: ties by place
      int p = pos[i];
      long long at = lo;
      for (long long j = lo; j < hi; j++) {
        int q = pos[j];
        at += q < p || (q == p && j < i);
      }
      bool placed = p >= 0 && p < nnz;
      vals[at] = placed ? data[p] : T(0);
      rows_out[at] = placed ? rows[i] : 0;
    }
    if (c == ncols - 1)   // past the last column: the places of entries whose column is outside
      for (long long i = hi; i < nnz; i++) {
        vals[i] = T(0);
        rows_out[i] = 0;
      }
  }
}

// ---- indexing (lua/sparse.lua's A[{...}]): rows gathered, columns mapped, elements looked up ----

// the i-th wanted row: sel[i] where step is 0 (an index array), else first + i * step (a range:
// no array of its rows; sel unread)
__device__ inline long long sp_sel(const long long *sel, long long i, long long first, long long step) {
  return step == 0 ? sel[i] : first + i * step;
}

// counts[i + 1] = the clamped length of the i-th wanted row (0-based; a row outside [0, m) has
// none) and counts[0] = 0, so that the inclusive running sum of the k + 1 counts is the
// result's row starts
template <class T>
__global__ void csr_take_count(const int *__restrict__ indptr, const long long *__restrict__ sel, long long k,
                               long long first, long long step, long long m, long long nnz, long long *counts) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += (long long)gridDim.x * blockDim.x) {
    long long r = sp_sel(sel, i, first, step), lo = 0, hi = 0;
    if (r >= 0 && r < m) sp_row(indptr, r, nnz, lo, hi);
    counts[i + 1] = hi - lo;
    if (i == 0) counts[0] = 0;
  }
}

// the last i in [a, b) with starts[i] <= q, for starts[a] <= q (a binary search)
template <class I> __device__ inline long long sp_last_le(const I *starts, long long a, long long b, long long q) {
  while (b - a > 1) {
    long long mid = a + (b - a) / 2;
    if (starts[mid] <= q) a = mid; else b = mid;
  }
  return a;
}

// The row of output entry q: the last i in [0, k) with starts[i] <= q (starts, the k + 1
// running counts, never decrease; starts[0] = 0). It starts at the row q would lie in were
// all rows of the mean length, q / (total / k), and gallops from there (1, 2, 4 ... rows) to a
// bracket to search: a few loads where rows have similar lengths, about 2 log2(k) at worst.
__device__ inline long long sp_row_of(const long long *starts, long long k, long long total, long long q) {
  long long g = total > 0 ? q / (total / k > 0 ? total / k : 1) : 0, a, b, d = 1;
  g = g < k ? g : k - 1;
  if (starts[g] <= q) {
    a = g;
    while (a + d < k && starts[a + d] <= q) {
      a += d;
      d *= 2;
    }
    b = a + d < k ? a + d : k;
  } else {
    b = g;
    while (b - d > 0 && starts[b - d] > q) {
      b -= d;
      d *= 2;
    }
    a = b - d > 0 ? b - d : 0;
  }
  return sp_last_le(starts, a, b, q);
}

// The entries of the wanted rows (k of them, k >= 1; sp_sel) one after the other: a thread an
// output entry q, its row found by sp_row_of, its source the row's start plus q - starts[i].
// A source outside the row (counts and starts made from other arrays) writes column -1 and 0,
// never reads outside. Threads q <= k also write the result's indptr, optr[q] = starts[q]
// (int32: total was checked to fit), so the grid covers max(total, k + 1).
template <class T>
__global__ void csr_take_rows(const int *__restrict__ indptr, const int *__restrict__ indices,
                              const T *__restrict__ data, const long long *__restrict__ sel, long long k,
                              long long first, long long step, long long m, long long nnz,
                              const long long *__restrict__ starts, long long total, int *oind, T *odata,
                              int *optr) {
  long long n = total > k + 1 ? total : k + 1;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n; q += (long long)gridDim.x * blockDim.x) {
    if (q <= k) optr[q] = (int)starts[q];
    if (q >= total) continue;
    long long a = sp_row_of(starts, k, total, q);
    long long r = sp_sel(sel, a, first, step), lo = 0, hi = 0;
    if (r >= 0 && r < m) sp_row(indptr, r, nnz, lo, hi);
    long long p = lo + (q - starts[a]);
    if (p >= lo && p < hi) {
      oind[q] = indices[p];
      odata[q] = data[p];
    } else {
      oind[q] = -1;
      odata[q] = T(0);
    }
  }
}

// the new columns of old column c: map[mapptr[c] .. mapptr[c + 1]), clamped to [0, nmap]
__device__ inline void sp_map(const long long *mapptr, long long c, long long nmap, long long &a, long long &b) {
  a = mapptr[c];
  b = mapptr[c + 1];
  a = a < 0 ? 0 : (a > nmap ? nmap : a);
  b = b < a ? a : (b > nmap ? nmap : b);
}

// The new columns of old column c (inside [0, ncols)): where step is 0, map[a .. b) with a, b
// from mapptr (clamped to [0, nmap]); else the range of nmap columns first, first + step, ...:
// the one place (c - first) / step where c lies on it (a = that place, b = a + 1; no sort)
__device__ inline void sp_cols(const long long *mapptr, long long c, long long nmap, long long first, long long step,
                               long long &a, long long &b) {
  if (step == 0) {
    sp_map(mapptr, c, nmap, a, b);
    return;
  }
  long long d = c - first, j = d / step;
  a = j;
  b = (j * step == d && j >= 0 && j < nmap) ? j + 1 : j;
}

// counts[p] = how many new columns entry p's column becomes (0 outside the matrix)
template <class T>
__global__ void csr_col_count(const int *__restrict__ indices, long long nnz, long long ncols,
                              const long long *__restrict__ mapptr, long long nmap, long long first, long long step,
                              long long *counts) {
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += (long long)gridDim.x * blockDim.x) {
    int c = indices[p];
    long long a = 0, b = 0;
    if (c >= 0 && c < ncols) sp_cols(mapptr, c, nmap, first, step, a, b);
    counts[p] = b - a;
  }
}

// entry p written once for each of its new columns (map[j], or j for a range), from
// ends[p] - (its count) on (ends: the inclusive running counts), so a row keeps its entries'
// order; never past total
template <class T>
__global__ void csr_col_write(const int *__restrict__ indices, const T *__restrict__ data, long long nnz,
                              long long ncols, const long long *__restrict__ mapptr,
                              const long long *__restrict__ map, long long nmap, long long first, long long step,
                              const long long *__restrict__ ends, long long total, int *oind, T *odata) {
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += (long long)gridDim.x * blockDim.x) {
    int c = indices[p];
    if (c < 0 || c >= ncols) continue;
    long long a, b;
    sp_cols(mapptr, c, nmap, first, step, a, b);
    long long at = ends[p] - (b - a);
    for (long long j = a; j < b; j++) {
      long long q = at + (j - a);
      if (q >= 0 && q < total) {
        oind[q] = (int)(step == 0 ? map[j] : j);
        odata[q] = data[p];
      }
    }
  }
}

// the new indptr of a column selection: row r starts where the entries before indptr[r]
// (clamped) end, ends[indptr[r] - 1] (ends: the inclusive running counts; 0 before entry 0)
template <class T>
__global__ void csr_col_ptr(const int *__restrict__ indptr, long long m, long long nnz,
                            const long long *__restrict__ ends, int *optr) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r <= m; r += (long long)gridDim.x * blockDim.x) {
    long long p = indptr[r];
    p = p < 0 ? 0 : (p > nnz ? nnz : p);
    optr[r] = p == 0 ? 0 : (int)ends[p - 1];
  }
}

// For each place (rows[i], cols[i]): the sum of its stored values (vals[i], 0 where none),
// the first entry holding it (offsets[i], -1 where none) and how many do (counts[i]). A binary search in a row when
// `sorted` (a canonical matrix), else a scan of the row.
template <class T>
__global__ void csr_lookup(const int *__restrict__ indptr, const int *__restrict__ indices,
                           const T *__restrict__ data, long long m, long long ncols, long long nnz,
                           const long long *__restrict__ rows, const long long *__restrict__ cols, long long k,
                           int sorted, T *vals, long long *offsets, long long *counts) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += (long long)gridDim.x * blockDim.x) {
    long long r = rows[i], c = cols[i], at = -1, count = 0;
    T s = T(0);
    if (r >= 0 && r < m && c >= 0 && c < ncols) {
      long long lo, hi;
      sp_row(indptr, r, nnz, lo, hi);
      if (sorted) {
        long long a = lo, b = hi;   // the first entry whose column is >= c
        while (a < b) {
          long long mid = a + (b - a) / 2;
          if (indices[mid] < c) a = mid + 1; else b = mid;
        }
        lo = a;
      }
      for (long long p = lo; p < hi; p++) {
        int ci = indices[p];
        if (ci == c) {
          s += data[p];
          if (at < 0) at = p;
          count++;
        } else if (sorted && ci > c) {
          break;
        }
      }
    }
    vals[i] = s;
    offsets[i] = at;
    counts[i] = count;
  }
}

// data[offsets[i]] = v[i * vstride] where the offset lies in [0, nnz) (vstride 0: one value for
// all, 1: a value a place; the places are distinct, so no two threads write one entry)
template <class T>
__global__ void csr_set(T *data, long long nnz, const long long *__restrict__ offsets, long long k,
                        const T *__restrict__ v, long long vstride) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += (long long)gridDim.x * blockDim.x) {
    long long p = offsets[i];
    if (p >= 0 && p < nnz) data[p] = v[i * vstride];
  }
}

// Assignment's insertion of places not stored, merged by rank: a thread an output entry q
// (so the work is spread over the entries, whatever the rows' lengths). Row r's old entries
// [lo, hi) (clamped) and its new ones, columns ncol[a .. b) (a, b from newptr, clamped to
// [0, kn]; sorted, distinct), of values v[j * vstride] (vstride 0: one value for all, 1: kn
// values), fill the output from lo + a to hi + b: starts[r] = lo + a (the new indptr, int64,
// which never decreases for a matrix whose indptr does), so q's row is the last r with
// starts[r] <= q (sp_row_of) and its place in the row k = q - starts[r]. Where `sorted` (a
// canonical matrix) the two lists are merged by column, a new entry before an old one of its
// column: the first k outputs hold i old entries, i found by a binary search along the
// diagonal (merge path: old entry i - 1 lies before new entry k - i, which lies before old
// entry i); else the new ones come first, then the old in their order (as a stable sort by
// row of the new entries and then the old ones). A q outside its row's span (an indptr
// written after the matrix was made) gets column 0 and value 0; every read and write stays
// inside the arrays. Rows with unsorted columns in a `sorted` matrix (indices written
// after) give an unspecified order.
template <class T>
__global__ void csr_merge(const int *__restrict__ indptr, const int *__restrict__ indices,
                          const T *__restrict__ data, long long m, long long nnz,
                          const long long *__restrict__ newptr, const int *__restrict__ ncol, long long kn,
                          const T *__restrict__ v, long long vstride, int sorted,
                          const long long *__restrict__ starts, int *oind, T *odata) {
  const long long total = nnz + kn;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (long long)gridDim.x * blockDim.x) {
    long long r = sp_row_of(starts, m, total, q), lo, hi, a = newptr[r], b = newptr[r + 1];
    sp_row(indptr, r, nnz, lo, hi);
    a = a < 0 ? 0 : (a > kn ? kn : a);
    b = b < a ? a : (b > kn ? kn : b);
    long long k = q - (lo + a), nold = hi - lo, nnew = b - a;
    if (k < 0 || k >= nold + nnew) {
      oind[q] = 0;
      odata[q] = T(0);
      continue;
    }
    long long i;   // the old entries among the row's first k outputs
    if (!sorted) {
      i = k > nnew ? k - nnew : 0;
    } else {
      long long s = k > nnew ? k - nnew : 0, e = k < nold ? k : nold;
      while (s < e) {
        long long mid = s + (e - s) / 2;
        if (indices[lo + mid] < ncol[a + (k - 1 - mid)]) s = mid + 1; else e = mid;
      }
      i = s;
    }
    long long j = k - i;
    if (j < nnew && (i >= nold || !sorted || ncol[a + j] <= indices[lo + i])) {
      oind[q] = ncol[a + j];
      odata[q] = v[(a + j) * vstride];
    } else {
      oind[q] = indices[lo + i];
      odata[q] = data[lo + i];
    }
  }
}

// An index array of a dimension of n (integer type I, C-ordered, k entries; 1-based,
// negative from the end, as the dense views read it) made 0-based int64 in out: x - 1, or
// x + n below 0. An entry 0 or outside [-n, n] (a uint64 at or above 2^63 among them, which
// int64 would read as an index from the end) writes 0 and lowers *bad (k before the launch)
// to its position: after the launch *bad is the first bad entry's, in one read.
template <class I>
__global__ void csr_index(const I *__restrict__ x, long long k, long long n, long long *out, long long *bad) {
  const bool is_unsigned = (I)-1 > (I)0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += (long long)gridDim.x * blockDim.x) {
    long long v = (long long)x[i];
    if (v == 0 || v < -n || v > n || (is_unsigned && v < 0)) {
      out[i] = 0;
      atomicMin(bad, i);
    } else {
      out[i] = v < 0 ? v + n : v - 1;
    }
  }
}

// A sparse value's dense form for an assignment's selection of s1 x s2 (flat, C order, out
// and has zero before the launch): out[i * s2 + j] += each entry's value and has[...] = true,
// entry (r, c) of the CSR form being the matrix's (r, c), or (c, r) where `csc`; copied
// reps1 times down (the value has one row, the selection reps1) and reps2 across (one
// column). A thread a row of the CSR form and copy (a row's duplicates summed in its order,
// as csr_todense's), or where `per_entry` (a canonical value: an entry a place) a thread an
// entry and copy, its row the last one starting at or before it (a binary search). Entries
// whose column lies outside the value are skipped, every row range clamped.
template <class T>
__global__ void csr_densify(const int *__restrict__ indptr, const int *__restrict__ indices,
                            const T *__restrict__ data, long long major, long long minor, long long nnz, int csc,
                            int per_entry, long long s2, long long reps1, long long reps2, T *out, bool *has) {
  const long long units = per_entry ? nnz : major, n = units * reps1 * reps2;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += (long long)gridDim.x * blockDim.x) {
    long long e = u % units, k = u / units, k1 = k / reps2, k2 = k % reps2, r = e, lo, hi;
    if (per_entry) r = sp_last_le(indptr, 0, major, e);
    sp_row(indptr, r, nnz, lo, hi);
    if (per_entry) {
      if (e < lo || e >= hi) continue;
      lo = e;
      hi = e + 1;
    }
    for (long long p = lo; p < hi; p++) {
      long long c = indices[p];
      if (c < 0 || c >= minor) continue;
      long long at = ((csc ? c : r) + k1) * s2 + (csc ? r : c) + k2;
      out[at] += data[p];
      has[at] = true;
    }
  }
}
