/* layout.c: the arithmetic of views: strides for a shape, slicing, permuting, broadcasting,
 * reshaping without a copy, and merging dimensions before a kernel loops over them. No
 * Lua and no backend here: shapes and integers only (view.c and ops.c are the callers). */
#include <stdio.h>
#include <string.h>
#include "gpu.h"

int64_t shape_count(const GpuShape *s) {
  int64_t size = 1;
  int over = 0;
  for (int d = 0; d < s->ndim; d++) {
    if (s->dim[d] == 0) return 0;
    over |= __builtin_mul_overflow(size, s->dim[d], &size);
  }
  return over ? INT64_MAX : size;
}

static void shape_resize(GpuShape *s) {
  s->size = shape_count(s);
  for (int d = s->ndim; d < GPU_MAXDIM; d++) s->dim[d] = 0;
}

void layout_init(GpuLayout *l, const GpuShape *s) {
  memset(l, 0, sizeof *l);
  l->shape = *s;
  int64_t stride = 1;
  for (int d = s->ndim - 1; d >= 0; d--) {
    l->strides[d] = stride;
    stride *= s->dim[d] > 1 ? s->dim[d] : 1;
  }
}

int layout_contiguous(const GpuLayout *l) {
  if (l->shape.size <= 1) return 1;
  int64_t stride = 1;
  for (int d = l->shape.ndim - 1; d >= 0; d--) {
    if (l->shape.dim[d] == 1) continue;   /* a size-1 dim's stride is never used */
    if (l->strides[d] != stride) return 0;
    stride *= l->shape.dim[d];
  }
  return 1;
}

int layout_expanded(const GpuLayout *l) {
  if (l->shape.size <= 1) return 0;
  for (int d = 0; d < l->shape.ndim; d++)
    if (l->shape.dim[d] > 1 && l->strides[d] == 0) return 1;
  return 0;
}

int layout_same(const GpuLayout *a, const GpuLayout *b) {
  if (a->shape.ndim != b->shape.ndim || a->offset != b->offset) return 0;
  for (int d = 0; d < a->shape.ndim; d++) {
    if (a->shape.dim[d] != b->shape.dim[d]) return 0;
    if (a->shape.dim[d] > 1 && a->strides[d] != b->strides[d]) return 0;
  }
  return 1;
}

/* Whether two layouts over the same memory touch a common element: their extents meet. */
int layout_overlap(const GpuLayout *a, const GpuLayout *b) {
  int64_t lo1, hi1, lo2, hi2;
  layout_extent(a, &lo1, &hi1);
  layout_extent(b, &lo2, &hi2);
  return lo1 < hi2 && lo2 < hi1;
}

void layout_extent(const GpuLayout *l, int64_t *lo, int64_t *hi) {
  *lo = *hi = l->offset;
  if (l->shape.size == 0) return;
  for (int d = 0; d < l->shape.ndim; d++) {
    int64_t span = (l->shape.dim[d] - 1) * l->strides[d];
    if (span < 0) *lo += span; else *hi += span;
  }
  *hi += 1;
}

int64_t layout_at(const GpuLayout *l, int64_t flat) {
  int64_t at = l->offset;
  for (int d = l->shape.ndim - 1; d >= 0; d--) {
    int64_t n = l->shape.dim[d];
    at += (flat % n) * l->strides[d];
    flat /= n;
  }
  return at;
}

void layout_slice(GpuLayout *l, int d, int64_t first, int64_t len, int64_t step) {
  if (len > 0) l->offset += first * l->strides[d];
  l->shape.dim[d] = len;
  l->strides[d] *= step;
  shape_resize(&l->shape);
}

void layout_select(GpuLayout *l, int d, int64_t i) {
  l->offset += i * l->strides[d];
  for (int k = d; k + 1 < l->shape.ndim; k++) {
    l->shape.dim[k] = l->shape.dim[k + 1];
    l->strides[k] = l->strides[k + 1];
  }
  l->shape.ndim--;
  l->strides[l->shape.ndim] = 0;
  shape_resize(&l->shape);
}

void layout_permute(GpuLayout *l, const int *perm) {
  GpuLayout old = *l;
  for (int k = 0; k < l->shape.ndim; k++) {
    l->shape.dim[k] = old.shape.dim[perm[k]];
    l->strides[k] = old.strides[perm[k]];
  }
}

void layout_insert(GpuLayout *l, int d) {
  for (int k = l->shape.ndim; k > d; k--) {
    l->shape.dim[k] = l->shape.dim[k - 1];
    l->strides[k] = l->strides[k - 1];
  }
  l->shape.dim[d] = 1;
  l->strides[d] = d + 1 <= l->shape.ndim ? l->strides[d + 1] * (l->shape.dim[d + 1] > 0 ? l->shape.dim[d + 1] : 1) : 1;
  l->shape.ndim++;
  shape_resize(&l->shape);
}

/* Reshaping without a copy: each run of old dims that becomes a run of new dims must be
 * one block of memory in C order; the new dims of the run then get the strides that walk
 * that block. Size-1 dims are left out first (their strides mean nothing). */
int layout_reshape(const GpuLayout *l, const GpuShape *to, GpuLayout *out) {
  int64_t odim[GPU_MAXDIM], ostr[GPU_MAXDIM], offset = l->offset, size = l->shape.size;
  int on = 0;
  for (int d = 0; d < l->shape.ndim; d++)
    if (l->shape.dim[d] != 1) { odim[on] = l->shape.dim[d]; ostr[on++] = l->strides[d]; }
  layout_init(out, to);   /* out may be l: what is needed of l was read above */
  out->offset = offset;
  if (size == 0 || on == 0) return 1;
  int oi = 0, oj = 1, ni = 0, nj = 1, nn = to->ndim;
  while (ni < nn && oi < on) {
    int64_t np = to->dim[ni], op = odim[oi];
    while (np != op) {
      if (np < op) np *= to->dim[nj++];
      else op *= odim[oj++];
    }
    for (int k = oi; k < oj - 1; k++)
      if (ostr[k] != odim[k + 1] * ostr[k + 1]) return 0;
    out->strides[nj - 1] = ostr[oj - 1];
    for (int k = nj - 1; k > ni; k--) out->strides[k - 1] = out->strides[k] * to->dim[k];
    ni = nj++;
    oi = oj++;
  }
  for (int k = ni; k < nn; k++) out->strides[k] = 1;   /* trailing size-1 dims */
  return 1;
}

int shape_broadcast(const GpuShape *a, const GpuShape *b, GpuShape *out) {
  int n = a->ndim > b->ndim ? a->ndim : b->ndim;
  GpuShape r = {0};
  r.ndim = n;
  for (int k = 0; k < n; k++) {
    int ia = k - (n - a->ndim), ib = k - (n - b->ndim);
    int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
    if (da == db || db == 1) r.dim[k] = da;
    else if (da == 1) r.dim[k] = db;
    else return -1;
  }
  shape_resize(&r);
  *out = r;
  return 0;
}

void layout_broadcast(GpuLayout *l, const GpuShape *to) {
  GpuLayout old = *l;
  int lead = to->ndim - old.shape.ndim;
  l->shape = *to;
  for (int k = 0; k < to->ndim; k++) {
    int j = k - lead;
    l->strides[k] = (j < 0 || (old.shape.dim[j] == 1 && to->dim[k] != 1)) ? 0 : old.strides[j];
  }
  for (int k = to->ndim; k < GPU_MAXDIM; k++) l->strides[k] = 0;
}

int layout_collapse(int n, GpuLayout *ls) {
  int nd = ls[0].shape.ndim;
  int64_t dim[GPU_MAXDIM], st[16][GPU_MAXDIM];
  int m = 0;
  for (int d = nd - 1; d >= 0; d--) {    /* innermost first */
    int64_t size = ls[0].shape.dim[d];
    if (size == 1 && ls[0].shape.size != 0) continue;
    int merge = m > 0;
    for (int i = 0; merge && i < n; i++)
      if (ls[i].strides[d] != st[i][m - 1] * dim[m - 1]) merge = 0;
    if (merge) { dim[m - 1] *= size; continue; }
    dim[m] = size;
    for (int i = 0; i < n; i++) st[i][m] = ls[i].strides[d];
    m++;
  }
  if (m == 0) {   /* one element */
    dim[0] = 1;
    for (int i = 0; i < n; i++) st[i][0] = 0;
    m = 1;
  }
  for (int i = 0; i < n; i++) {
    GpuLayout *l = &ls[i];
    l->shape.ndim = m;
    for (int k = 0; k < GPU_MAXDIM; k++) {
      l->shape.dim[k] = k < m ? dim[m - 1 - k] : 0;
      l->strides[k] = k < m ? st[i][m - 1 - k] : 0;
    }
  }
  return m;
}

void shape_format(const GpuShape *s, char *buf, size_t n) {
  size_t at = (size_t)snprintf(buf, n, "{");
  for (int d = 0; d < s->ndim && at < n; d++)
    at += (size_t)snprintf(buf + at, n - at, "%s%lld", d ? ", " : "", (long long)s->dim[d]);
  if (at < n) snprintf(buf + at, n - at, "}");
}

void layout_magic(int64_t d, uint32_t *magic, uint32_t *shift) {
  uint32_t s = 0;
  while (s < 31 && ((int64_t)1 << s) < d) s++;
  *shift = s;
  *magic = d < 1 ? 0 : (uint32_t)(((uint64_t)1 << 32) * (((uint64_t)1 << s) - (uint64_t)d) / (uint64_t)d + 1);
}
