/* npyhead.c: the dict of a .npy header, read as NumPy's reader reads it (ast.literal_eval,
 * then exactly the keys descr, fortran_order and shape; a key given twice counts with its
 * last value, as in a Python dict): a descr string np.dtype reads ('<f4', 'd', 'float64')
 * of a dtype gpuhost has, True or False, a tuple of Python ints. Parsed within its length,
 * never past it. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "gpu.h"

typedef struct Span { const char *p, *end; } Span;   /* the text [p, end) */

static const char *const KEYS[] = {"descr", "fortran_order", "shape"};
/* why a key's value is refused, when it is not even a Python literal */
static const char *const BAD_VALUE[] = {"its descr is not a type gpuhost reads",
                                        "its fortran_order is neither True nor False",
                                        "its shape is not a tuple of sizes"};

static int name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Spaces, newlines, backslash-newlines and # comments: what Python skips inside braces. */
static const char *skip_space(const char *p, const char *end) {
  while (p < end) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f') p++;
    else if (*p == '\\' && end - p >= 2 && p[1] == '\n') p += 2;
    else if (*p == '#') while (p < end && *p != '\n' && *p != '\r') p++;
    else break;
  }
  return p;
}

/* A one-line string literal at p ('...' or "...", u or r before it allowed): its text, escapes
 * left as they are, in *s; the end of the literal, or NULL when there is none. */
static const char *string_lit(const char *p, const char *end, Span *s) {
  if (end - p >= 2 && (*p == 'u' || *p == 'U' || *p == 'r' || *p == 'R') &&
      (p[1] == '\'' || p[1] == '"')) p++;
  if (p == end || (*p != '\'' && *p != '"')) return NULL;
  char q = *p++;
  s->p = p;
  for (; p < end && *p != q; p++) {
    if (*p == '\n' || *p == '\r') return NULL;
    if (*p == '\\' && ++p == end) return NULL;
  }
  if (p == end) return NULL;
  s->end = p;
  return p + 1;
}

/* The end of the string literals at p, which Python joins ('<' 'f4' is '<f4'); NULL when
 * there is none. */
static const char *strings(const char *p, const char *end) {
  Span s;
  const char *q = string_lit(p, end, &s), *next;
  while (q && (next = string_lit(skip_space(q, end), end, &s)) != NULL) q = next;
  return q;
}

/* The end of the Python literal at p (a string, a name or a number, or a bracketed group of
 * them), so that a value a later one of its key replaces is stepped over; NULL when there
 * is none. */
static const char *skip_value(const char *p, const char *end, int depth) {
  const char *q = strings(p, end);
  if (q) return q;
  if (p < end && (*p == '(' || *p == '[' || *p == '{')) {
    char close = *p == '(' ? ')' : *p == '[' ? ']' : '}';
    if (depth == 32) return NULL;
    for (p = skip_space(p + 1, end); p < end && *p != close; p = skip_space(p, end)) {
      if ((p = skip_value(p, end, depth + 1)) == NULL) return NULL;
      p = skip_space(p, end);
      if (p < end && *p == ':' && close == '}') {   /* a dict's key: its value follows */
        if ((p = skip_value(skip_space(p + 1, end), end, depth + 1)) == NULL) return NULL;
        p = skip_space(p, end);
      }
      if (p < end && *p == ',') p++;
      else if (p == end || *p != close) return NULL;
    }
    return p < end ? p + 1 : NULL;
  }
  if (p < end && (*p == '+' || *p == '-')) p = skip_space(p + 1, end);
  for (q = p; p < end && (name_char(*p) || *p == '.'); p++) {}
  return p > q ? p : NULL;
}

static int key_index(Span k) {
  for (int i = 0; i < 3; i++)
    if ((size_t)(k.end - k.p) == strlen(KEYS[i]) && memcmp(k.p, KEYS[i], strlen(KEYS[i])) == 0)
      return i;
  return -1;
}

/* The dict {key: value, ...} that is all of [p, end): each key's last value in v (p NULL
 * for a key not there); why not, or NULL. */
static const char *read_dict(const char *p, const char *end, Span v[3], char why[NPY_WHY]) {
  const char *bad = "its header is not a Python dict";
  p = skip_space(p, end);
  if (p == end || *p != '{') return bad;
  for (p = skip_space(p + 1, end); p < end && *p != '}'; p = skip_space(p, end)) {
    Span key;
    const char *q = string_lit(p, end, &key);
    if (q == NULL) return bad;
    int k = key_index(key);
    if (k < 0) {
      snprintf(why, NPY_WHY, "its header has a key other than descr, fortran_order and shape: '%.*s'",
               key.end - key.p > 32 ? 32 : (int)(key.end - key.p), key.p);
      return why;
    }
    p = skip_space(q, end);
    if (p == end || *p != ':') return bad;
    v[k].p = p = skip_space(p + 1, end);
    if ((p = skip_value(p, end, 0)) == NULL) return BAD_VALUE[k];
    v[k].end = p;
    p = skip_space(p, end);
    if (p < end && *p == ',') p++;
    else if (p == end || *p != '}') return bad;
  }
  if (p == end || skip_space(p + 1, end) != end) return bad;   /* nothing after the dict */
  return NULL;
}

/* NumPy's one-character type codes ('d', '<e', '?'), each a kind and a size in bytes as
 * np.dtype reads them on Linux (l and p 8 bytes; g and G, long double, no gpuhost dtype). */
static const char CODES[] = "?bBhHiIlLqQpPefdgFDG", CODE_KINDS[] = "biuiuiuiuiuiuffffccc";
static const unsigned char CODE_SIZES[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 8, 8, 8, 8, 2, 4, 8, 16, 8, 16, 32};

/* '<f4', '|b1', 'i8', '<i08', a type code ('d', '>h') or a dtype's name ('float64'): the
 * dtype strings np.dtype reads for the dtypes gpuhost has, as h's dtype. */
static const char *read_descr(Span v, NpyHeader *h) {
  if (v.p < v.end && *v.p == '[')
    return "its descr is not a simple type string (structured arrays are not read)";
  char text[16];
  size_t n = 0;
  for (const char *p = v.p; p < v.end; p = skip_space(p, v.end)) {   /* the strings, joined */
    Span s;
    if ((p = string_lit(p, v.end, &s)) == NULL || (size_t)(s.end - s.p) > sizeof text - n)
      return BAD_VALUE[0];
    memcpy(text + n, s.p, (size_t)(s.end - s.p));
    n += (size_t)(s.end - s.p);
  }
  h->swap = 0;
  for (int i = 0; i < DT_COUNT; i++)   /* a name, without a byte order (np.dtype refuses one) */
    if (strlen(dtypes[i].name) == n && memcmp(text, dtypes[i].name, n) == 0) {
      h->dtype = (GpuDtype)i;
      return NULL;
    }
  const char *c = text, *end = text + n, *code;
  char order = c < end && strchr("<>|=", *c) ? *c++ : '=', kind;
  size_t size = 0;
  if (end - c == 1 && *c && (code = strchr(CODES, *c)) != NULL) {
    kind = CODE_KINDS[code - CODES];
    size = CODE_SIZES[code - CODES];
  } else {
    if (end - c < 2 || !isalpha((unsigned char)c[0])) return BAD_VALUE[0];
    for (kind = *c++; c < end; c++) {   /* the size, leading zeros too ('<i08'), never 0 */
      if (!isdigit((unsigned char)*c)) return BAD_VALUE[0];
      if (size < 1000) size = size * 10 + (size_t)(*c - '0');   /* no dtype is that large */
    }
    if (size == 0) return BAD_VALUE[0];
  }
  for (int i = 0; i < DT_COUNT; i++)
    if (dtypes[i].kind == kind && dtypes[i].size == size) {
      h->dtype = (GpuDtype)i;
      h->swap = order == '>' && size > 1;
      return NULL;
    }
  return "its dtype has no gpuhost dtype";
}

static const char *read_fortran(Span v, NpyHeader *h) {
  size_t n = (size_t)(v.end - v.p);
  if (n == 4 && memcmp(v.p, "True", 4) == 0) h->fortran = 1;
  else if (n == 5 && memcmp(v.p, "False", 5) == 0) h->fortran = 0;
  else return BAD_VALUE[1];
  return NULL;
}

static int digit_of(char c) {
  if (isdigit((unsigned char)c)) return c - '0';
  return isalpha((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10 : 99;
}

/* A Python int literal at p (decimal, 0x, 0o or 0b; _ between digits; a sign before it; an
 * L after it, as Python 2 wrote longs, when py2) in *v, INT64_MAX when larger; its end, or
 * NULL when there is none. */
static const char *read_int(const char *p, const char *end, int py2, int64_t *v) {
  int neg = 0, base = 10;
  if (p < end && (*p == '+' || *p == '-')) { neg = *p == '-'; p = skip_space(p + 1, end); }
  if (end - p >= 2 && p[0] == '0' && p[1] != '\0' && strchr("xXoObB", p[1])) {
    base = p[1] == 'x' || p[1] == 'X' ? 16 : p[1] == 'o' || p[1] == 'O' ? 8 : 2;
    p += 2;
    if (p < end && *p == '_') p++;
  }
  const char *start = p;
  int64_t n = 0;
  for (; p < end && digit_of(*p) < base; p++) {
    int d = digit_of(*p);
    n = n > (INT64_MAX - d) / base ? INT64_MAX : n * base + d;
    if (end - p >= 3 && p[1] == '_' && digit_of(p[2]) < base) p++;
  }
  if (p == start || (base == 10 && *start == '0' && n != 0)) return NULL;   /* 01 is no int; 00 is */
  if (py2 && p < end && *p == 'L') p++;
  if (p < end && (name_char(*p) || *p == '.')) return NULL;   /* 2.0, 2j, 2e3: not ints */
  *v = neg ? -n : n;
  return p;
}

/* A tuple of sizes: (), (3,), (3, 4) ...; (3) is 3, not a tuple, as NumPy finds too. */
static const char *read_shape(Span v, int py2, NpyHeader *h) {
  const char *bad = BAD_VALUE[2], *p = v.p, *end = v.end;
  if (end - p < 2 || *p != '(' || end[-1] != ')') return bad;
  end--;
  memset(&h->shape, 0, sizeof h->shape);
  h->shape.size = 1;
  int comma = 0;
  int64_t reach = 1;   /* the product of the sizes but 0, at most 2^48 as shape_fits wants */
  for (p = skip_space(p + 1, end); p < end; p = skip_space(p, end)) {
    int64_t n;
    if ((p = read_int(p, end, py2, &n)) == NULL) return bad;
    if (n < 0) return "its shape holds a negative size";
    if (h->shape.ndim == GPU_MAXDIM) return "it has more dimensions than gpuhost's 8";
    if (n != 0 && reach > ((int64_t)1 << 48) / n) return "its shape is too large";
    if (n != 0) reach *= n;
    h->shape.dim[h->shape.ndim++] = n;
    h->shape.size *= n;
    p = skip_space(p, end);
    if ((comma = p < end && *p == ',')) p++;
    else if (p < end) return bad;
  }
  return h->shape.ndim == 1 && !comma ? bad : NULL;
}

const char *npy_parse_header(const char *text, size_t n, int major, NpyHeader *h, char why[NPY_WHY]) {
  if (memchr(text, '\0', n)) return "its header holds a zero byte";
  Span v[3] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
  const char *bad = read_dict(text, text + n, v, why);
  if (bad) return bad;
  for (int i = 0; i < 3; i++)
    if (v[i].p == NULL) {
      snprintf(why, NPY_WHY, "its header has no %s", KEYS[i]);
      return why;
    }
  /* NumPy reads headers of versions 1.0 and 2.0 again without the L of Python 2's longs */
  if ((bad = read_shape(v[2], major <= 2, h)) || (bad = read_fortran(v[1], h))) return bad;
  return read_descr(v[0], h);
}
