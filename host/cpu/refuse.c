/* refuse.c: what the CPU backend cannot run (inline PTX, CUB's and Thrust's headers ...),
 * found in the code the preprocessor keeps: the conditional directives a source's text
 * can settle (`#if 0`, `#ifdef __CUDA_ARCH__` and its `#else`, a macro of a -D option or
 * of an earlier #define ...) blank the branches the host's compiler skips; one it cannot
 * settle keeps both. What a #define names counts only where the macro is used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "util.h"

/* The macros the text has defined so far, known to be defined (1) or not (0). */
#define MAX_MACROS 256
typedef struct Macros {
  const GpuCompileJob *job;
  int n, included;   /* included: an #include seen, whose macros are unknown */
  struct { char name[64]; int defined; } m[MAX_MACROS];
} Macros;

static void macro_set(Macros *ms, const char *name, size_t len, int defined) {
  if (len == 0 || len >= sizeof ms->m[0].name) return;
  for (int i = 0; i < ms->n; i++)
    if (strlen(ms->m[i].name) == len && strncmp(ms->m[i].name, name, len) == 0) { ms->m[i].defined = defined; return; }
  if (ms->n == MAX_MACROS) return;
  snprintf(ms->m[ms->n].name, sizeof ms->m[0].name, "%.*s", (int)len, name);
  ms->m[ms->n++].defined = defined;
}

/* Whether the macro is defined: 1, 0, or -1 when the text cannot say. __CUDA_ARCH__ (and
 * __CUDA_ARCH_...) is never defined here (README: the host branch). */
static int macro_defined(const Macros *ms, const char *name, size_t len) {
  if (len >= 11 && strncmp(name, "__CUDA_ARCH", 11) == 0) return 0;
  if (len == 11 && strncmp(name, "GPUHOST_CPU", 11) == 0) return 1;   /* kernels/cpu.h's */
  if (len >= 7 && strncmp(name, "GPUHOST", 7) == 0) return -1;
  for (int i = ms->n - 1; i >= 0; i--)
    if (strlen(ms->m[i].name) == len && strncmp(ms->m[i].name, name, len) == 0) return ms->m[i].defined;
  if (len > 0 && name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) return -1;
  return ms->included ? -1 : 0;   /* reserved names are the compiler's or a header's */
}

static const char *skip_blank(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\r') p++;
  return p;
}

/* The value of an #if (or #elif) expression at p: 1, 0, or -1 when it is more than `!`
 * before a number, a `defined(X)`, `defined X` or an undefined name. */
static int condition(const Macros *ms, const char *p) {
  int negate = 0, value = -1;
  for (p = skip_blank(p); *p == '!'; p = skip_blank(p + 1)) negate ^= 1;
  if (*p >= '0' && *p <= '9') {
    char *e;
    value = strtol(p, &e, 0) != 0;
    while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L') e++;
    p = e;
  } else if (is_ident(*p)) {
    const char *w = p;
    while (is_ident(*p)) p++;
    if ((size_t)(p - w) == 7 && strncmp(w, "defined", 7) == 0) {
      int paren = *(p = skip_blank(p)) == '(';
      const char *n = skip_blank(p + paren), *e = n;
      while (is_ident(*e)) e++;
      value = macro_defined(ms, n, (size_t)(e - n));
      p = skip_blank(e);
      if (paren && *p++ != ')') return -1;
    } else if ((value = macro_defined(ms, w, (size_t)(p - w))) != 0) value = -1;   /* its value is unknown */
  }
  p = skip_blank(p);
  if (*p != '\n' && *p != '\0') return -1;
  return value < 0 ? -1 : value ^ negate;
}

/* The conditional directives open at a line: whether each keeps its text (1, 0, or -1 when
 * unknown, kept) and whether a branch of it was taken (1), may have been (-1) or not. */
typedef struct Conds { int n, keep[64], taken[64]; } Conds;

static int active(const Conds *c) {
  for (int i = 0; i < c->n && i < 64; i++) if (c->keep[i] == 0) return 0;
  return 1;
}

/* Whether the text at a line is kept for certain (1), may be (-1) or is not (0): a macro a
 * branch that may be skipped defines or undefines is unknown after it. */
static int certainly(const Conds *c) {
  int v = active(c);
  for (int i = 0; v && i < c->n && i < 64; i++) if (c->keep[i] < 0) v = -1;
  return v;
}

/* One directive (p after its '#'); updates the conditions and the macros. */
static void directive(Conds *c, Macros *ms, const char *p) {
  p = skip_blank(p);
  const char *w = p;
  while (is_ident(*p)) p++;
  size_t len = (size_t)(p - w);
  int was = certainly(c), v;
  const char *a = skip_blank(p), *e = a;
  while (is_ident(*e)) e++;
  if (len == 2 && strncmp(w, "if", 2) == 0) v = condition(ms, p);
  else if (len == 5 && strncmp(w, "ifdef", 5) == 0) v = macro_defined(ms, a, (size_t)(e - a));
  else if (len == 6 && strncmp(w, "ifndef", 6) == 0) v = (v = macro_defined(ms, a, (size_t)(e - a))) < 0 ? -1 : !v;
  else {
    int i = c->n - 1;
    if ((len == 4 && strncmp(w, "else", 4) == 0) || (len == 4 && strncmp(w, "elif", 4) == 0)) {
      if (i < 0 || i >= 64) return;
      v = w[2] == 's' ? 1 : condition(ms, p);
      int taken = c->taken[i];
      c->keep[i] = taken == 1 ? 0 : taken == -1 ? (v == 0 ? 0 : -1) : v;
      if (c->keep[i] != 0) c->taken[i] = taken == 0 ? c->keep[i] : -1;
    } else if (len == 5 && strncmp(w, "endif", 5) == 0) {
      if (c->n > 0) c->n--;
    } else if (was && len == 6 && strncmp(w, "define", 6) == 0) macro_set(ms, a, (size_t)(e - a), was > 0 ? 1 : -1);
    else if (was && len == 5 && strncmp(w, "undef", 5) == 0) macro_set(ms, a, (size_t)(e - a), was > 0 ? 0 : -1);
    else if (was && len == 7 && strncmp(w, "include", 7) == 0) ms->included = 1;
    return;
  }
  if (c->n < 64) { c->keep[c->n] = v; c->taken[c->n] = v; }
  c->n++;
}

/* The start of the logical line (continued with backslashes) that holds p in s. */
static const char *line_start(const char *s, const char *p) {
  while (p > s && p[-1] != '\n') p--;
  while (p - 1 > s && p[-2] == '\\') { p--; while (p > s && p[-1] != '\n') p--; }
  return p;
}

/* stripped with the text the preprocessor skips blanked (newlines kept); malloc'd. */
static char *kept_text(const char *stripped, const GpuCompileJob *job) {
  char *t = strdup(stripped);
  Macros *ms = calloc(1, sizeof *ms);
  Conds c = {0};
  if (t == NULL || ms == NULL) { free(ms); return t; }
  for (int i = 0; job && i < job->nopts; i++)
    if (strncmp(job->opts[i], "-D", 2) == 0 || strncmp(job->opts[i], "-U", 2) == 0)
      macro_set(ms, job->opts[i] + 2, strcspn(job->opts[i] + 2, "="), job->opts[i][1] == 'D');
    else if (strncmp(job->opts[i], "--pre-include", 13) == 0 || strncmp(job->opts[i], "-include", 8) == 0)
      ms->included = 1;   /* a header's macros, unknown here */
  for (char *p = t; *p;) {
    char *nl = p;   /* the logical line */
    while (*nl && !(*nl == '\n' && (nl == t || nl[-1] != '\\'))) nl++;
    const char *h = skip_blank(p);
    int kept = active(&c);   /* a directive in skipped text is skipped too */
    if (*h == '#') directive(&c, ms, h + 1);
    if (!kept || (*h != '#' && !active(&c)))
      for (char *q = p; q < nl; q++) if (*q != '\n') *q = ' ';
    p = *nl ? nl + 1 : nl;
  }
  free(ms);
  return t;
}

/* Whether the word at hit of kept text s counts: where it is in a #define, the macro is
 * used in kept text (outside directives other than #define). seen: the #define lines on
 * the way here; one met again counts no more (the preprocessor does not expand a macro in
 * its own expansion: `#define A asm A`, or A and B that name each other). */
static int counts_in(const char *s, const char *hit, const char **seen, int nseen) {
  const char *line = line_start(s, hit), *h = skip_blank(line);
  if (*h != '#') return 1;
  h = skip_blank(h + 1);
  if (strncmp(h, "define", 6) != 0) return 0;   /* in #if, #pragma ...: no code */
  const char *n = skip_blank(h + 6), *e = n;
  while (is_ident(*e)) e++;
  char name[64];
  if (e == n || (size_t)(e - n) >= sizeof name) return 1;
  for (int i = 0; i < nseen; i++) if (seen[i] == line) return 0;
  if (nseen == 32) return 1;   /* macros deeper than that: counted */
  seen[nseen] = line;
  snprintf(name, sizeof name, "%.*s", (int)(e - n), n);
  for (const char *u = s; (u = find_word(u, name)) != NULL; u += e - n)
    if (u != n && counts_in(s, u, seen, nseen + 1)) return 1;
  return 0;
}

static int counts(const char *s, const char *hit) {
  const char *seen[32];
  return counts_in(s, hit, seen, 0);
}

/* The first counting occurrence of word w in kept text s (find_word), or NULL. */
static const char *find_counted(const char *s, const char *w) {
  for (const char *p = s; (p = find_word(p, w)) != NULL; p += strlen(w))
    if (counts(s, p)) return p;
  return NULL;
}

/* past blanks and continued lines; past newlines too unless in a #define's body */
static const char *skip_space(const char *q, int define) {
  while (*q == ' ' || *q == '\t' || (*q == '\\' && q[1] == '\n') || (*q == '\n' && !define))
    q += *q == '\\' ? 2 : 1;
  return q;
}

/* q past asm's qualifiers (volatile, inline, goto, in any order, in GCC's spellings too:
 * __volatile__, __volatile, __inline__, __inline) and the space after each */
static const char *skip_qualifiers(const char *q, int define) {
  static const char *const quals[] = {"volatile", "__volatile__", "__volatile", "inline", "__inline__", "__inline", "goto"};
  for (size_t i = 0; i < sizeof quals / sizeof quals[0]; i++) {
    size_t n = strlen(quals[i]);
    if (strncmp(q, quals[i], n) == 0 && !is_ident(q[n])) { q = skip_space(q + n, define); i = (size_t)-1; }
  }
  return q;
}

/* Whether the word at p of kept text s, in a #define's body, is one of that macro's
 * parameters (`#define F(asm) asm`: no asm). */
static int macro_parameter(const char *s, const char *p, size_t len) {
  const char *h = skip_blank(skip_blank(line_start(s, p)) + 1);
  if (strncmp(h, "define", 6) != 0) return 0;
  const char *n = skip_blank(h + 6);
  while (is_ident(*n)) n++;
  if (*n != '(') return 0;   /* a function-like macro's '(' follows its name at once */
  const char *e = strchr(n, ')');
  if (e == NULL || p < e) return 0;
  for (const char *a = n + 1; a < e; a++)
    if (is_ident(*a) && !is_ident(a[-1]) && strncmp(a, p, len) == 0 && !is_ident(a[len])) return 1;
  return 0;
}

/* an asm statement: asm, __asm or __asm__, maybe volatile, inline or goto, then '('; in a
 * #define, also one its body ends with (`#define ASM asm volatile`: its use gives the '(') */
static int names_asm(const char *kept) {
  static const char *const words[] = {"asm", "__asm", "__asm__"};
  for (size_t i = 0; i < 3; i++)
    for (const char *p = kept; (p = find_counted(p, words[i])) != NULL; p++) {
      int define = *skip_blank(line_start(kept, p)) == '#';
      if (define && macro_parameter(kept, p, strlen(words[i]))) continue;
      const char *q = skip_qualifiers(skip_space(p + strlen(words[i]), define), define);
      if (*q == '(' || (define && (*q == '\n' || *q == '\0'))) return 1;
    }
  return 0;
}

/* The cooperative groups function the CPU backend lacks that code of a source including
 * <cooperative_groups.h> calls (as a word followed by '(' or '<'), or NULL. */
static const char *cg_function(const char *kept) {
  static const char *const names[][2] = {
    {"invoke_one", "cooperative groups' invoke_one"},
    {"invoke_one_broadcast", "cooperative groups' invoke_one_broadcast"},
    {"labeled_partition", "cooperative groups' labeled_partition"},
    {"binary_partition", "cooperative groups' binary_partition"},
    {"barrier_arrive", "cooperative groups' barrier_arrive (split barriers)"},
    {"barrier_wait", "cooperative groups' barrier_wait (split barriers)"},
    {"memcpy_async", "cooperative groups' memcpy_async"},
    {"reduce_update_async", "cooperative groups' reduce_update_async"},
    {"reduce_store_async", "cooperative groups' reduce_store_async"},
  };
  if (!find_word(kept, "cooperative_groups")) return NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    for (const char *p = kept; (p = find_counted(p, names[i][0])) != NULL; p++) {
      const char *q = p + strlen(names[i][0]);
      while (*q == ' ' || *q == '\t' || *q == '\n') q++;
      if (*q == '(' || *q == '<') return names[i][1];
    }
  return NULL;
}

/* Whether a #define that is used declares an `extern __shared__` array (shared.c rewrites
 * the declarations of the source, not those a macro writes). */
static int macro_extern_shared(const char *kept) {
  for (const char *p = kept; (p = find_word(p, "__shared__")) != NULL; p += 10) {
    const char *h = line_start(kept, p), *nl = h;
    while (*nl && !(*nl == '\n' && nl[-1] != '\\')) nl++;
    const char *x = find_word(h, "extern");
    if (*skip_blank(h) == '#' && x && x < nl && counts(kept, p)) return 1;
  }
  return 0;
}

/* Whether a kept `#include` directive of source names a header that starts with prefix
 * (read in the source, at the kept text's offsets: the stripped text blanks "..."). */
static int includes(const char *source, const char *kept, const char *prefix) {
  for (const char *p = kept; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    const char *h = skip_blank(p);
    if (*h != '#') continue;
    h = skip_blank(h + 1);
    if (strncmp(h, "include", 7) != 0 && strncmp(h, "include_next", 12) != 0) continue;
    const char *r = skip_blank(source + (h - kept) + (h[7] == '_' ? 12 : 7));
    if ((*r == '<' || *r == '"') && strncmp(r + 1, prefix, strlen(prefix)) == 0) return 1;
  }
  return 0;
}

const char *source_refused(const char *source, const GpuCompileJob *job) {
  static const struct { const char *header, *what; } headers[] = {
    {"cub/", "CUB's headers (cub/...): their block and warp algorithms are PTX"},
    {"thrust/", "Thrust's headers (thrust/...)"},
    {"cuda/barrier>", "cuda::barrier (<cuda/barrier>)"},
    {"cuda/pipeline>", "cuda::pipeline (<cuda/pipeline>)"},
    {"cuda_fp8.h>", "8-bit floating point (<cuda_fp8.h>)"},
    {"mma.h>", "warp matrix functions (<mma.h>)"},
  };
  char *stripped = source_strip(source), *kept = stripped ? kept_text(stripped, job) : NULL;
  const char *what = NULL;
  if (kept == NULL) what = NULL;
  else if (names_asm(kept)) what = "inline PTX assembly (asm)";
  else if (find_counted(kept, "__cluster_dims__")) what = "thread block clusters (__cluster_dims__)";
  else if ((what = cg_function(kept)) != NULL) {}
  else if (macro_extern_shared(kept))
    what = "an extern __shared__ array declared by a macro (#define): write the declaration out";
  for (size_t i = 0; kept && !what && i < sizeof headers / sizeof headers[0]; i++) {
    char h[32];   /* "cuda/barrier>" is also "cuda/barrier\"" */
    snprintf(h, sizeof h, "%s", headers[i].header);
    if (includes(source, kept, h)) what = headers[i].what;
    else if (h[strlen(h) - 1] == '>' && (h[strlen(h) - 1] = '"') && includes(source, kept, h)) what = headers[i].what;
  }
  free(kept);
  free(stripped);
  return what;
}
