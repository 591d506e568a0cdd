/* strided.c: host-side loops over views: copying between any two layouts (broadcasting
 * the source) with dtype conversion. Conversions follow the generated kernels' ew::cast
 * (kernels/ops/ew.cuh) bit for bit: to bool is `!= 0`; float to integer truncates,
 * saturates at the type's range and gives 0 for NaN; integers wrap; a complex becomes its
 * real part (NumPy drops the imaginary part, with a warning), and anything complex with
 * an imaginary part of 0; the rest is C's rounding conversion. No Lua here. */
#include <math.h>
#include <string.h>
#include "gpu.h"

/* An element: kind 'F' float32, 'f' float64, 'i', 'u'; a complex's real part is f (or
 * f32, kind 'F') and its imaginary part im. */
typedef struct Value { char kind; int64_t i; uint64_t u; double f; float f32; double im; float im32; } Value;

static Value load(const void *p, GpuDtype dt) {
  Value v = {dtypes[dt].kind, 0, 0, 0, 0, 0, 0};
  size_t n = dtypes[dt].size;
  if (v.kind == 'c') {   /* its parts: float32 parts stay float32 */
    if (n == 8) { float z[2]; memcpy(z, p, 8); v.f32 = z[0]; v.im32 = z[1]; v.f = z[0]; v.im = z[1]; v.kind = 'F'; }
    else { memcpy(&v.f, p, 8); memcpy(&v.im, (const char *)p + 8, 8); v.f32 = (float)v.f; v.im32 = (float)v.im; v.kind = 'f'; }
  } else if (v.kind == 'f') {
    if (n == 4) { memcpy(&v.f32, p, 4); v.f = v.f32; v.kind = 'F'; }
    else if (n == 2) { uint16_t h; memcpy(&h, p, 2); v.f = half_to_double(h); v.f32 = (float)v.f; v.kind = 'F'; }
    else memcpy(&v.f, p, 8);
  } else if (v.kind == 'i') {
    switch (n) {
      case 1: { int8_t x; memcpy(&x, p, 1); v.i = x; break; }
      case 2: { int16_t x; memcpy(&x, p, 2); v.i = x; break; }
      case 4: { int32_t x; memcpy(&x, p, 4); v.i = x; break; }
      default: memcpy(&v.i, p, 8);
    }
  } else {
    memcpy(&v.u, p, n);   /* little-endian: the low bytes */
    v.kind = 'u';
  }
  return v;
}

/* A float to an integer of `bits` bits: truncated, saturated, NaN to 0 (CUDA's rule). */
static uint64_t float_to_int(double f, int is_signed, int bits) {
  if (isnan(f)) return 0;
  if (is_signed) {
    double lo = -ldexp(1, bits - 1), hi = ldexp(1, bits - 1);
    if (f <= lo) return (uint64_t)(int64_t)lo;
    if (f >= hi) return (uint64_t)(bits == 64 ? INT64_MAX : (int64_t)hi - 1);
    return (uint64_t)(int64_t)f;
  }
  double hi = ldexp(1, bits);
  if (f <= 0) return 0;
  if (f >= hi) return bits == 64 ? UINT64_MAX : (uint64_t)hi - 1;
  return (uint64_t)f;
}

static void store(void *p, GpuDtype dt, const Value *v) {
  const DtypeInfo *d = &dtypes[dt];
  int isfloat = v->kind == 'f' || v->kind == 'F';
  if (d->kind == 'c') {   /* the real part as a float of the part's size, the imaginary part */
    Value re = *v, im = {v->kind, 0, 0, v->im, v->im32, 0, 0};
    if (!isfloat) im = (Value){'u', 0, 0, 0, 0, 0, 0};
    store(p, dtype_real(dt), &re);
    store((char *)p + d->size / 2, dtype_real(dt), &im);
  } else if (d->kind == 'b') {
    uint8_t b = isfloat ? v->f != 0 || v->im != 0 : v->kind == 'i' ? v->i != 0 : v->u != 0;
    memcpy(p, &b, 1);
  } else if (d->kind == 'f' && d->size == 4) {
    /* from float32 exactly; from the others, one rounding (never through double) */
    float x = v->kind == 'F' ? v->f32 : v->kind == 'f' ? (float)v->f
            : v->kind == 'i' ? (float)v->i : (float)v->u;
    memcpy(p, &x, 4);
  } else if (d->kind == 'f' && d->size == 2) {   /* one rounding: from double, exact for the rest */
    double x = isfloat ? v->f : v->kind == 'i' ? (double)v->i : (double)v->u;
    uint16_t h = half_from_double(x);
    memcpy(p, &h, 2);
  } else if (d->kind == 'f') {
    double x = isfloat ? v->f : v->kind == 'i' ? (double)v->i : (double)v->u;
    memcpy(p, &x, 8);
  } else {
    uint64_t bits = isfloat ? float_to_int(v->f, d->kind == 'i', (int)(8 * d->size))
                  : v->kind == 'i' ? (uint64_t)v->i : v->u;
    memcpy(p, &bits, d->size);
  }
}

void element_convert(void *dst, GpuDtype dt, const void *src, GpuDtype st) {
  if (dt == st) { memcpy(dst, src, dtypes[dt].size); return; }
  if (dtypes[st].kind == 'b') {   /* a bool is 0 or 1 whatever its byte holds */
    uint8_t b = *(const uint8_t *)src != 0;
    Value v = {'u', 0, b, 0, 0, 0, 0};
    store(dst, dt, &v);
    return;
  }
  Value v = load(src, st);
  store(dst, dt, &v);
}

void strided_copy(void *dst, const GpuLayout *dl, GpuDtype dt, const void *src,
                  const GpuLayout *sl, GpuDtype st) {
  if (dl->shape.size == 0) return;
  GpuLayout ls[2] = {*dl, *sl};
  layout_broadcast(&ls[1], &dl->shape);
  size_t des = dtypes[dt].size, ses = dtypes[st].size;
  int nd = layout_collapse(2, ls);
  char *d = (char *)dst + ls[0].offset * (int64_t)des;
  const char *s = (const char *)src + ls[1].offset * (int64_t)ses;
  int64_t inner = ls[0].shape.dim[nd - 1], dstep = ls[0].strides[nd - 1] * (int64_t)des,
          sstep = ls[1].strides[nd - 1] * (int64_t)ses;
  int64_t idx[GPU_MAXDIM] = {0};
  for (int64_t done = 0; done < dl->shape.size; done += inner) {
    int64_t doff = 0, soff = 0;
    for (int k = 0; k < nd - 1; k++) {
      doff += idx[k] * ls[0].strides[k];
      soff += idx[k] * ls[1].strides[k];
    }
    char *dp = d + doff * (int64_t)des;
    const char *sp = s + soff * (int64_t)ses;
    if (dt == st && dstep == (int64_t)des && sstep == (int64_t)ses)
      memcpy(dp, sp, (size_t)inner * des);
    else
      for (int64_t j = 0; j < inner; j++) element_convert(dp + j * dstep, dt, sp + j * sstep, st);
    for (int k = nd - 2; k >= 0; k--) {   /* the next run: an odometer over the outer dims */
      if (++idx[k] < ls[0].shape.dim[k]) break;
      idx[k] = 0;
    }
  }
}
