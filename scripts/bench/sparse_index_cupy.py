# sparse_index_cupy.py: what scripts/bench/sparse_index.lua measures, with cupyx.scipy.sparse:
# "name<TAB>ms a call", median of 5 rounds, the same matrices and indices (0-based here).
import cupy as cp
import cupyx.scipy.sparse as sp

from timing import bench

def hashed(n, k, dt):
    e = cp.arange(n * k, dtype=cp.int64)
    row = e // k
    col = (e * 2654435761 + 12345) % n
    return sp.coo_matrix((((e % 7) + 1).astype(dt), (row, col)), shape=(n, n)).tocsr()

def picks(k, n, salt):
    return (cp.arange(k, dtype=cp.int64) * 2654435761 + salt) % n

N, K = 1 << 20, 32
A = hashed(N, K, "float64")
C = A.tocsc()
rows, cols = picks(N // 10, N, 7), picks(N // 100, N, 11)
pr, pc = picks(N, N, 3), picks(N, N, 5)
bench("rows A[idx] 2^20/10 of 2^20 x 32", lambda: A[rows], 10)
bench("rows A[::2] of 2^20 x 32", lambda: A[::2], 10)
bench("columns A[:, idx] 2^20/100 of 2^20 x 32", lambda: A[:, cols], 10)
bench("columns A[:, :n/2] of 2^20 x 32", lambda: A[:, :N // 2], 10)
bench("submatrix A[:n/16, :n/16] of 2^20 x 32", lambda: A[:N // 16, :N // 16], 10)
bench("csc columns C[:, idx] 2^20/10", lambda: C[:, rows], 10)
bench("pairs A[r, c] 2^20", lambda: A[pr, pc], 10)
bench("element A[i, j]", lambda: A[12345 % N, 776], 100)
bench("getrow", lambda: A.getrow(N // 3 - 1), 100)
B = A.copy()
B.sum_duplicates()
stored = int(B.indices[K * 5])
def assign_stored():
    B[5, stored] = 2
bench("assign A[i, j] = v, stored", assign_stored, 100)
def assign_new():
    D = B.copy()
    D[6, N - 1] = 2
    return D
bench("assign A[i, j] = v, new (a rebuild of 2^20 x 32)", assign_new, 3)
sr = picks(N // 10, N, 3)
sc = B.indices[sr * K + sr % K].astype(cp.int64)
sv = cp.arange(N // 10, dtype=cp.float64)
def assign_pairs():
    B[sr, sc] = sv
bench("assign A[r, c] = values, 2^20/10 stored pairs", assign_pairs, 10)
row = cp.arange(N, dtype=cp.float64) + 1
def assign_row():
    D = B.copy()
    D[6, :] = row
    return D
bench("assign A[i, :] = values, new (a rebuild of 2^20 x 32)", assign_row, 3)
E = sp.csr_matrix((N, N))
def assign_empty_row():
    D = E.copy()
    D[6, :] = row
    return D
bench("assign A[i, :] = values, 2^20 new into an empty row", assign_empty_row, 3)
