/* shared.c: the source with each `extern __shared__` array made a pointer to the block's
 * dynamic shared memory (source.c copies it so into the translation unit). Every spelling
 * C++ allows is read: qualifiers and comments between the words, `__shared__ extern`,
 * __align__(n), more than one array in a declaration and arrays of arrays (`s[][2]`).
 * A declaration a macro writes is left alone (refuse.c refuses it where it is used). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "util.h"

static int blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static const char *back_blank(const char *s, const char *p) {
  while (p > s && blank(p[-1])) p--;
  return p;
}

/* The start of the balanced (...) or [...] that ends at p of s, or NULL */
static const char *back_group(const char *s, const char *p) {
  char close = p[-1], open = close == ')' ? '(' : '[';
  for (int depth = 0; p > s;) {
    p--;
    depth += (*p == close) - (*p == open);
    if (depth == 0) return p;
  }
  return NULL;
}

static int word_is(const char *w, const char *e, const char *word) {
  return (size_t)(e - w) == strlen(word) && strncmp(w, word, (size_t)(e - w)) == 0;
}

/* The word that ends at e of s (after blanks): its start, *e its end */
static const char *back_word(const char *s, const char **e) {
  const char *w = *e = back_blank(s, *e);
  while (w > s && is_ident(w[-1])) w--;
  return w;
}

/* p of s moved back over the blanks and attributes that end at it: [[...]],
 * __attribute__((...)), alignas(...), __declspec(...) */
static const char *back_attributes(const char *s, const char *p) {
  static const char *const words[] = {"__attribute__", "__attribute", "__declspec", "alignas", "_Alignas", "__align__"};
  for (;;) {
    p = back_blank(s, p);
    if (p - s < 2 || (p[-1] != ')' && !(p[-1] == ']' && p[-2] == ']'))) return p;
    const char *g = back_group(s, p), *e = g, *w = g ? back_word(s, &e) : NULL;
    if (g == NULL) return p;
    if (*g == '[') { if (g[1] != '[') return p; p = g; continue; }
    size_t i = 0;
    while (i < sizeof words / sizeof words[0] && !word_is(w, e, words[i])) i++;
    if (i == sizeof words / sizeof words[0]) return p;
    p = w;
  }
}

/* Whether the text defines the function-like macro [w, e) with the word namespace in its
 * body (`#define NS(n) namespace n`: `NS(a) {` opens a namespace, not a function) */
static int namespace_macro(const char *s, const char *w, const char *e) {
  size_t n = (size_t)(e - w);
  if (n == 0) return 0;
  for (const char *d = s; (d = find_word(d, "define")) != NULL; d += 6) {
    const char *h = d, *m = d + 6, *end;
    while (h > s && (h[-1] == ' ' || h[-1] == '\t')) h--;
    while (*m == ' ' || *m == '\t') m++;
    if (h == s || h[-1] != '#' || strncmp(m, w, n) != 0 || m[n] != '(') continue;
    for (end = m; *end && !(*end == '\n' && end[-1] != '\\'); end++) {}
    const char *k = find_word(m, "namespace");
    if (k != NULL && k < end) return 1;
  }
  return 0;
}

/* Whether the '{' at p of stripped text s opens a function's body: it follows ')' (or
 * const, noexcept ... or a trailing return type after one), attributes aside; a
 * namespace's (attributes or a macro of the text's own `NS(a) {` too), extern "C"'s or a
 * class's does not. A macro the text does not define is read as a function's: where it is
 * not, the array's rewrite does not compile (declarators). */
static int opens_function(const char *s, const char *p) {
  static const char *const words[] = {"const", "noexcept", "override", "final", "mutable", "volatile"};
  const char *q = p;   /* a trailing return type: `) -> T {` */
  while (q > s && !strchr(";{}()", q[-1])) q--;
  if (q > s && q[-1] == ')' && memmem(q, (size_t)(p - q), "->", 2) != NULL) return 1;
  p = back_attributes(s, p);
  if (p > s && p[-1] == ')') {
    const char *g = back_group(s, p), *e = g, *w = g ? back_word(s, &e) : NULL;
    return !(w && namespace_macro(s, w, e));
  }
  const char *w = back_word(s, &p);
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (word_is(w, p, words[i])) return 1;
  return 0;
}

/* Whether position at of stripped text s lies inside a function's body. */
static int in_function(const char *s, const char *at) {
  int depth = 0, body = 0;   /* body: the depth of the open function body, 0 for none */
  for (const char *p = s; p < at; p++) {
    if (*p == '{') {
      depth++;
      if (!body && opens_function(s, p)) body = depth;
    } else if (*p == '}' && depth > 0) {
      if (depth == body) body = 0;
      depth--;
    }
  }
  return body != 0;
}

/* The type of a declaration whose specifiers are [p, e) of stripped text: without extern,
 * __shared__ and __align__(n) (the array's alignment: dynamic shared memory has more). */
static void decl_type(Buf *type, const char *p, const char *e) {
  while (p < e) {
    const char *w = p;
    if (!is_ident(*p)) { buf_add(type, *p == '\n' ? " " : p, 1); p++; continue; }
    while (p < e && is_ident(*p)) p++;
    size_t n = (size_t)(p - w);
    if ((n == 6 && strncmp(w, "extern", 6) == 0) || (n == 10 && strncmp(w, "__shared__", 10) == 0)) continue;
    if (n == 9 && strncmp(w, "__align__", 9) == 0) {   /* past its balanced parentheses */
      for (int depth = 0; p < e; p++) {
        depth += (*p == '(') - (*p == ')');
        if (depth == 0 && *p == ')') { p++; break; }
      }
      continue;
    }
    buf_add(type, w, n);
  }
}

/* The declarators [d, e) (`s1[], s2[][2]`), each a pointer: in a function read as it runs
 * (through a lambda with a capture-default, which C++ refuses outside a function: a
 * namespace taken for a function does not compile, where it ran at load and crashed);
 * at namespace scope (an initialiser would run as the library loads, before any launch:
 * it crashed the process) a thread-local pointer that a hook of kernels/cpu.h points at
 * the block's memory as each launch begins on a worker. */
static void declarators(Buf *out, const char *type, const char *d, const char *e, int local, Buf *seen, const char *scope) {
  while (d < e) {
    while (d < e && !is_ident(*d)) d++;
    const char *ns = d, *rest, *end, *bounds;
    while (d < e && is_ident(*d)) d++;
    rest = memchr(d, ']', (size_t)(e - d));   /* the first bound's end: the rest are kept */
    rest = rest ? rest + 1 : e;
    int depth = 0;
    for (bounds = rest; bounds < e && (*bounds == '[' || depth > 0 || strchr(" \t\n", *bounds)); bounds++)
      depth += (*bounds == '[') - (*bounds == ']');   /* more bounds; not __attribute__(...) after them */
    for (end = bounds, depth = 0; end < e && !(depth == 0 && *end == ','); end++)
      depth += (*end == '[' || *end == '(') - (*end == ']' || *end == ')');
    int n = (int)(d - ns), r = (int)(bounds - rest);
    if (n == 0) break;
    Buf key = {0};   /* a namespace-scope array declared again in its namespace: declared, not defined */
    buf_printf(&key, " %s::%.*s ", scope, n, ns);
    if (!local && seen->data && key.data && strstr(seen->data, key.data))
      buf_printf(out, "extern thread_local %s(*%.*s)%.*s; ", type, n, ns, r, rest);
    else if (local)
      buf_printf(out, "%s(*%.*s)%.*s = reinterpret_cast<%s(*)%.*s>([&] { return gpuhost_dynamic_shared(); }()); ",
                type, n, ns, r, rest, type, r, rest);
    else
      buf_printf(out, "static thread_local %s(*%.*s)%.*s; static const gpuhost_cpu::dynamic_hook "
                "gpuhost_hook_%.*s([](void *p) { %.*s = reinterpret_cast<%s(*)%.*s>(p); }); ",
                type, n, ns, r, rest, n, ns, n, ns, type, r, rest);
    if (!local && key.data) buf_str(seen, key.data);
    buf_free(&key);
    d = end < e ? end + 1 : e;
  }
}

/* What the block the '{' at o of stripped text s opens adds to the name of a namespace:
 * "::a" (attributes, any blanks), "::<unnamed>", nothing for extern "C" { ... }; one
 * it cannot read (a macro's `NS(a) {`) is its own, so that no two merge */
static void block_name(Buf *name, const char *s, const char *o) {
  const char *e = back_attributes(s, o), *w = e;
  if (e > s && e[-1] == '"') return;
  while (w > s && (is_ident(w[-1]) || w[-1] == ':')) w--;
  if (word_is(w, e, "namespace")) { buf_str(name, "::<unnamed>"); return; }
  const char *k = back_attributes(s, w), *kw = back_word(s, &k);
  if (w < e && word_is(kw, k, "namespace"))
    buf_printf(name, "%s%.*s", strncmp(w, "::", 2) == 0 ? "" : "::", (int)(e - w), w);
  else
    buf_printf(name, "::<block at %ld>", (long)(o - s));
}

/* The full name of the namespace that holds position at of stripped text s, into name
 * ("::a::b"; "" for the global one): a namespace opened again is the same one. */
static void scope_name(Buf *name, const char *s, const char *at) {
  const char *open[64];
  int depth = 0;
  for (const char *p = s; p < at; p++)
    if (*p == '{') { if (depth < 64) open[depth] = p; depth++; }
    else if (*p == '}' && depth > 0) depth--;
  buf_str(name, "");
  for (int i = 0; i < depth && i < 64; i++) block_name(name, s, open[i]);
}

/* Whether the line holding p of s is a directive's (a #define's body, say). */
static int in_directive(const char *s, const char *p) {
  while (p > s && !(p[-1] == '\n' && (p - 1 == s || p[-2] != '\\'))) p--;
  while (*p == ' ' || *p == '\t') p++;
  return *p == '#';
}

/* The declaration around the `__shared__` at w of stripped text t, when it is an `extern`
 * one of arrays: its start, *name (its first declarator) and *semi; else NULL. */
static const char *extern_shared(const char *t, const char *w, const char **name, const char **semi) {
  const char *start = w;
  for (;;) {   /* back over the words (and __align__(n)) before it */
    const char *q = start;
    while (q > t && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n')) q--;
    if (q > t && q[-1] == ')')
      for (int depth = 0; q > t;) { q--; depth += (*q == ')') - (*q == '('); if (depth == 0) break; }
    if (q == t || !is_ident(q[-1])) break;
    while (q > t && is_ident(q[-1])) q--;
    start = q;
  }
  const char *e = w + strcspn(w, ";{}"), *br = memchr(w, '[', (size_t)(e - w));
  if (*e != ';' || br == NULL || in_directive(t, w)) return NULL;
  const char *x = find_word(start, "extern");
  if (x == NULL || x > br) return NULL;
  const char *ne = br;
  while (ne > w && !is_ident(ne[-1])) ne--;
  while (ne > w && is_ident(ne[-1])) ne--;
  *name = ne;
  *semi = e;
  return start;
}

void source_rewrite(Buf *out, const char *s) {
  char *t = source_strip(s);
  if (t == NULL) { out->failed = 1; return; }
  const char *p = t;   /* copied up to here (offsets in s are the same) */
  Buf seen = {0};      /* the namespace-scope arrays so far, " ::<namespace>::<name> " */
  for (const char *w = t; (w = find_word(w, "__shared__")) != NULL;) {
    const char *name, *semi, *start = extern_shared(t, w, &name, &semi);
    if (start == NULL || start < p) { w += 10; continue; }
    buf_add(out, s + (p - t), (size_t)(start - p));
    Buf type = {0};
    decl_type(&type, start, name);
    Buf scope = {0};
    scope_name(&scope, t, start);
    declarators(out, type.data ? type.data : "char ", name, semi, in_function(t, start), &seen,
                scope.data ? scope.data : "");
    buf_free(&scope);
    buf_free(&type);
    for (const char *c = start; c < semi; c++)   /* its lines, so that those after keep theirs */
      if (*c == '\n') buf_add(out, "\n", 1);
    p = w = semi + 1;
  }
  buf_str(out, s + (p - t));
  buf_free(&seen);
  free(t);
}
