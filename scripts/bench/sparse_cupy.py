# sparse_cupy.py: what scripts/bench/sparse.lua measures, with cupyx.scipy.sparse (cuSPARSE):
# "name<TAB>ms a call", median of 5 rounds; products also give GB/s (the bytes of the matrix
# and the vectors read and written once, over the time). The matrices are built from the same
# formulas as sparse.lua's, so both sides multiply the same matrices.
import time
import cupy as cp
import cupyx.scipy.sparse as sp

from timing import bench

def poisson2d(g, dt):
    # the 5-point Laplacian of a g x g grid (n = g^2), as sparse.lua's
    n = g * g
    i = cp.arange(n, dtype=cp.int64)
    x = i % g
    rows, cols, vals = [i], [i], [cp.full(n, 4.0, dt)]
    for keep, off in ((x > 0, -1), (x < g - 1, 1), (i >= g, -g), (i < n - g, g)):
        r = i[keep]
        rows.append(r); cols.append(r + off); vals.append(cp.full(r.size, -1.0, dt))
    return sp.coo_matrix((cp.concatenate(vals), (cp.concatenate(rows), cp.concatenate(cols))),
                         shape=(n, n)).tocsr()

def hashed(n, k, dt):
    # n rows of k entries each, columns from a multiplicative hash (sparse.lua's formula)
    e = cp.arange(n * k, dtype=cp.int64)
    row = e // k
    col = (e * 2654435761 + 12345) % n
    val = ((e % 7) + 1).astype(dt)
    return sp.coo_matrix((val, (row, col)), shape=(n, n)).tocsr()

def skewed(n, dt):
    # row i has max(1, 4096 // (i + 1)) + 8 entries: a few long rows, many short ones
    lens = cp.maximum(1, 4096 // (cp.arange(n, dtype=cp.int64) + 1)) + 8
    ends = cp.cumsum(lens)
    nnz = int(ends[-1])
    e = cp.arange(nnz, dtype=cp.int64)
    row = cp.searchsorted(ends, e, side="right")
    col = (e * 2654435761 + 777) % n
    return sp.coo_matrix((cp.ones(nnz, dt), (row, col)), shape=(n, n)).tocsr()

def gbs(A, nvec):
    b = A.data.nbytes + A.indices.nbytes + A.indptr.nbytes + nvec * A.shape[0] * A.data.itemsize * 2
    return lambda t: "%.0f GB/s" % (b / t / 1e9)

for dt in ("float32", "float64"):
    A = poisson2d(2048, dt)
    x = cp.ones(A.shape[1], dt)
    bench("spmv poisson2d 2048^2 %s" % dt, lambda: A @ x, 50, gbs(A, 1))
    X = cp.ones((A.shape[1], 8), dt)
    bench("spmm poisson2d 2048^2 x 8 %s" % dt, lambda: A @ X, 10, gbs(A, 8))
    H = hashed(1 << 20, 32, dt)
    x = cp.ones(H.shape[1], dt)
    bench("spmv hashed 2^20 x 32 %s" % dt, lambda: H @ x, 50, gbs(H, 1))
    S = skewed(1 << 20, dt)
    bench("spmv skewed 2^20 %s" % dt, lambda: S @ x, 50, gbs(S, 1))
A = poisson2d(2048, "float64")
C = A.tocoo()
bench("coo->csr poisson2d 2048^2", lambda: C.tocsr(), 10)
bench("csr->csc poisson2d 2048^2", lambda: A.tocsc(), 10)
bench("csr + csr poisson2d 2048^2", lambda: A + A, 10)
bench("csr * 2 poisson2d 2048^2", lambda: A * 2.0, 20)
bench("sum(axis=1) poisson2d 2048^2", lambda: A.sum(axis=1), 20)
small = hashed(4096, 40, "float32")
bench("toarray 4096^2 (1%)", lambda: small.toarray(), 20)
t0 = time.perf_counter(); hashed(1 << 20, 32, "float32"); cp.cuda.Device().synchronize()
print("cupy build hashed 2^20 x 32 (coo->csr)\t%.4f" % ((time.perf_counter() - t0) * 1e3))
import cupyx.scipy.sparse.linalg as spl
P = poisson2d(512, "float64")
b = cp.ones(P.shape[0])
bench("cg poisson2d 512^2 200 steps", lambda: spl.cg(P, b, rtol=0, atol=0, maxiter=200), 3)
bench("gmres poisson2d 512^2 restart 20, 200 steps", lambda: spl.gmres(P, b, rtol=0, atol=0, restart=20, maxiter=200), 3)
