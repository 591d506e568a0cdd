/* scan.c: which kernels of a source reach a barrier or a warp function. Those run their
 * threads on fibers; the others as loops the compiler vectorises. The source (comments
 * and literals blanked) is cut into its top-level definitions, each a name and a text (a
 * function, a struct, a #define, and each name a declaration ending in `;` declares: a
 * `using` or typedef alias, a variable); a definition reaches a barrier when its text
 * names one, or names a definition that does. A kernel does when its template arguments
 * in the name it is launched by ("k<WarpSum>") name one too. An operator that does may
 * be called unnamed from any kernel: then every kernel takes fibers. Names are matched as
 * words, so the answer errs towards fibers (an overload, a field of the same name), which
 * are correct for every kernel. A header the source includes from the user's -I folders
 * that names one makes every kernel of the source take fibers, as does a --pre-include
 * header that names one; so does a macro of a -D option that names one. (gpu.lua spells
 * the options "-IX", "-DX" and "--pre-include=X" whichever way the user wrote them.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "util.h"

static const char *const sync_names[] = {
  "__sync", "__shfl", "__ballot", "__any_sync", "__all_sync", "__activemask", "__match_",
  "__reduce_", "cooperative_groups", "this_thread_block", "tiled_partition", "gpuhost_rt",
  "__barrier_sync", "__uni_sync", "__cluster_barrier", "syncthreads_",
};

/* head: where its declaration begins; body: where its braces open (kernels are found by
 * it); stmt: the name of a declaration ending in `;`, no kernel. */
typedef struct Def {
  char name[128];
  const char *head, *body, *end;
  const char *targs, *targs_end;   /* a function template's parameters (their defaults), or NULL */
  size_t len;
  int syncs, stmt;
} Def;
struct Scan {
  Def *defs;
  int n, cap;
  int all;                      /* a header from the -I folders names a barrier */
  int nopts;                    /* the first defs, the -D options' macros, lie outside the source */
};

/* a barrier or warp function named in [p, end) */
static int names_sync(const char *p, const char *end) {
  for (size_t i = 0; i < sizeof sync_names / sizeof sync_names[0]; i++) {
    const char *q = strstr(p, sync_names[i]);
    if (q && q < end) return 1;
  }
  return 0;
}

/* the word w (of length n) in [p, end) */
static int names_word(const char *p, const char *end, const char *w, size_t n) {
  if (n == 0) return 0;
  for (const char *q = p; (q = strstr(q, w)) != NULL && q < end; q += n)
    if ((q == p || !is_ident(q[-1])) && !is_ident(q[n]) && q + n <= end) return 1;
  return 0;
}

static int scan_headers(const char *text, const GpuCompileJob *job, int depth);

/* The file at path names a barrier, or a header it includes does. */
static int file_syncs(const char *path, const GpuCompileJob *job, int depth) {
  size_t len;
  char *h = file_read(path, &len);
  if (h == NULL) return 0;
  char *st = source_strip(h);
  int found = st == NULL || names_sync(st, st + strlen(st)) || scan_headers(h, job, depth + 1);
  free(st);
  free(h);
  return found;
}

/* A header the text includes, found in the user's -I folders, names a barrier. */
static int header_syncs(const char *name, const GpuCompileJob *job, int depth) {
  for (int o = 0; o < job->nopts; o++) {
    char path[1200];
    if (strncmp(job->opts[o], "-I", 2) == 0 &&
        snprintf(path, sizeof path, "%s/%s", job->opts[o] + 2, name) < (int)sizeof path &&
        file_syncs(path, job, depth))
      return 1;
  }
  return 0;
}

static int scan_headers(const char *text, const GpuCompileJob *job, int depth) {
  for (const char *p = text; depth < 8 && (p = strstr(p, "#include")) != NULL; p += 8) {
    char name[256];
    if ((sscanf(p + 8, " \"%255[^\"\n]\"", name) == 1 || sscanf(p + 8, " <%255[^>\n]>", name) == 1) &&
        header_syncs(name, job, depth))
      return 1;
  }
  return 0;
}

static int add(Scan *s, const char *name, size_t len, const char *head, const char *body, const char *end) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    Def *d = realloc(s->defs, (size_t)cap * sizeof *d);
    if (d == NULL) return -1;
    s->defs = d;
    s->cap = cap;
  }
  Def *d = &s->defs[s->n++];
  if (len >= sizeof d->name) { s->all = 1; len = 0; }   /* too long to match: say fibers */
  memcpy(d->name, name, len);
  d->name[len] = '\0';
  d->len = len;
  d->head = head;
  d->body = body;
  d->end = end;
  d->syncs = names_sync(head, end);
  d->stmt = 0;
  d->targs = d->targs_end = NULL;
  return 0;
}

/* Words a declaration's names are not: the implementation's (__align__(16)) and C++'s
 * before a parenthesis (`void (*hook)()` declares hook, `alignas(16)` nothing). */
static int not_a_name(const char *q, size_t n) {
  static const char *const words[] = {"alignas", "alignof", "decltype", "sizeof", "static_assert",
    "noexcept", "operator", "void", "char", "short", "int", "long", "float", "double", "signed",
    "unsigned", "bool", "auto", "const", "volatile", "typename", "struct", "class", "union", "enum"};
  if (n >= 2 && q[0] == '_' && q[1] == '_') return 1;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strlen(words[i]) == n && strncmp(q, words[i], n) == 0) return 1;
  return 0;
}

/* The declaration [p, semi] ending in `;` at the top level: a definition for each name it
 * declares, an identifier outside its parentheses, brackets and braces that `=`, `,`,
 * `;`, `[`, `(` or `{` follows (`using R = W;`, `typedef W R;`, `__device__ W a, b[4];`).
 * A namespace's alias is none: what is called through it is named anyway (w::reduce). */
static int add_statement(Scan *sc, const char *p, const char *semi) {
  int depth = 0;
  while (p < semi && strchr(" \t\n", *p)) p++;
  if (strncmp(p, "namespace", 9) == 0 || strncmp(p, "using namespace", 15) == 0) return 0;
  for (const char *q = p; q < semi; q++) {
    if (strchr("([{", *q)) depth++;
    else if (strchr(")]}", *q)) depth--;
    if (depth != 0 || !is_ident(*q) || (q > p && is_ident(q[-1])) || (*q >= '0' && *q <= '9')) continue;
    const char *e = q, *n;
    while (is_ident(*e)) e++;
    for (n = e; n < semi && strchr(" \t\n", *n); n++) {}
    const char *a = n + 1;   /* after a parenthesis: `(*hook)` declares no function */
    while (a < semi && strchr(" \t\n", *a)) a++;
    if (*n && strchr("=,;[({", *n) && strncmp(n, "==", 2) != 0 && !not_a_name(q, (size_t)(e - q)) &&
        !(*n == '(' && (*a == '*' || *a == '&'))) {
      if (add(sc, q, (size_t)(e - q), p, semi, semi) != 0) return -1;
      sc->defs[sc->n - 1].stmt = 1;
    }
    q = e - 1;
  }
  return 0;
}

/* The name a definition whose body opens at brace declares, when it is no class's (those
 * class_head names): the identifier before the last parenthesised list before it (a
 * function), else the last identifier before it (an enum, an initialised variable); its
 * length in *len, 0 when there is none. */
static const char *def_name(const char *start, const char *brace, size_t *len) {
  const char *p = brace;
  while (p > start && strchr(" \t\n", p[-1])) p--;
  const char *close = NULL;
  for (const char *q = p; q > start && !strchr(";}", q[-1]); q--)
    if (q[-1] == ')') { close = q - 1; break; }
  if (close) {
    int depth = 0;
    for (p = close; p > start; p--) {
      depth += (*p == ')') - (*p == '(');
      if (depth == 0) break;
    }
  }
  while (p > start && !is_ident(p[-1]) && !strchr(";}", p[-1])) p--;
  const char *e = p;
  while (p > start && is_ident(p[-1])) p--;
  *len = (size_t)(e - p);
  return p;
}

/* p past the attribute at p (`__align__(16)`, `alignas(16)`, `__attribute__((...))`,
 * `[[...]]`, a word of the implementation's before the name: `__device_builtin__ D`), or p. */
static const char *past_attribute(const char *p, const char *end) {
  if (p[0] == '[' && p[1] == '[') {
    const char *e = strstr(p + 2, "]]");
    return e && e < end ? e + 2 : p;
  }
  const char *e = p, *q;
  while (e < end && is_ident(*e)) e++;
  for (q = e; q < end && strchr(" \t\n", *q); q++) {}
  if (e > p && q < end && *q == '(') {   /* a word with arguments: to its parenthesis' end */
    for (int depth = 0; q < end; q++) {
      depth += (*q == '(') - (*q == ')');
      if (depth == 0) return q + 1;
    }
    return end;
  }
  return e - p >= 2 && p[0] == '_' && p[1] == '_' && q > e && q < end && is_ident(*q) ? q : p;
}

/* Whether [start, brace) is a class's head: struct, class or union outside any <...> and
 * parentheses, its name after attributes (`struct __align__(16) D`, `struct alignas(16)
 * D`), then no parameter list before its base classes (`struct S f(int x) {` is a
 * function; `struct D final : B<sizeof(int)> {` is D). The name's last part (ns::D) in
 * *name, its length in *len (0 for none: `struct {`). */
static int class_head(const char *start, const char *brace, const char **name, size_t *len) {
  static const char *const keys[] = {"struct", "class", "union"};
  int angle = 0, paren = 0;
  const char *p = start, *key = NULL;
  for (; p < brace && !key; p++) {
    paren += (*p == '(') - (*p == ')');
    if (paren == 0) angle += (*p == '<') - (*p == '>');
    for (size_t k = 0; k < 3 && !angle && !paren && (p == start || !is_ident(p[-1])); k++)
      if (strncmp(p, keys[k], strlen(keys[k])) == 0 && !is_ident(p[strlen(keys[k])])) key = p + strlen(keys[k]);
  }
  if (key == NULL) return 0;
  for (p = key; p < brace;) {   /* past the attributes */
    while (p < brace && strchr(" \t\n", *p)) p++;
    const char *q = past_attribute(p, brace);
    if (q == p) break;
    p = q;
  }
  const char *e = p;
  while (e < brace && (is_ident(*e) || (e[0] == ':' && e[1] == ':'))) e += e[0] == ':' ? 2 : 1;
  for (*name = e; *name > p && is_ident((*name)[-1]);) (*name)--;
  *len = (size_t)(e - *name);
  for (angle = 0; e < brace; e++) {   /* a parameter list before any base class: a function's */
    angle += (*e == '<') - (*e == '>');
    if (*e == ':' && angle == 0) return 1;
    if (*e == '(' && angle == 0) return 0;
  }
  return 1;
}

/* A function template's parameter list in [stmt, brace), `template <...>` (its defaults
 * name what the function calls: template <class R = WarpSum>): in *targs and *targs_end. */
static void template_params(const char *stmt, const char *brace, const char **targs, const char **targs_end) {
  const char *p = stmt;
  while (p < brace && strchr(" \t\n", *p)) p++;
  if (strncmp(p, "template", 8) != 0 || is_ident(p[8])) return;
  int depth = 0, paren = 0;
  for (const char *q = p + 8; q < brace; q++) {
    paren += (*q == '(') - (*q == ')');
    if (paren == 0) depth += (*q == '<') - (*q == '>');
    if (depth == 0 && *q == '>') { *targs = p; *targs_end = q + 1; return; }
  }
}

/* The definition whose body opens at top-level brace p, its declaration from stmt (after
 * the last preprocessor line from): 1 for a namespace's or extern "C"'s brace, which
 * opens none; 0, with *fn whether it is a function; -1 when out of memory. */
static int open_def(Scan *sc, const char *from, const char *stmt, const char *p, int *fn) {
  size_t len;
  const char *name;
  int cls = class_head(stmt, p, &name, &len);
  if (!cls) {
    name = def_name(from, p, &len);
    const char *kw = name;
    while (kw > from && strchr(" \t\n", kw[-1])) kw--;
    if ((kw - from >= 9 && strncmp(kw - 9, "namespace", 9) == 0) ||
        (len == 9 && strncmp(name, "namespace", 9) == 0) || (len == 6 && strncmp(name, "extern", 6) == 0))
      return 1;
  }
  *fn = !cls && memchr(stmt, ')', (size_t)(p - stmt)) != NULL;   /* a function's parameters */
  if (add(sc, name, len, *fn || stmt > p ? p : stmt, p, p) != 0) return -1;
  if (*fn) template_params(stmt, p, &sc->defs[sc->n - 1].targs, &sc->defs[sc->n - 1].targs_end);
  return 0;
}

/* Cuts stripped text s into definitions: top-level braces (namespaces are seen through),
 * the names of declarations ending in `;`, and #define lines. A definition's name is
 * looked for after the last preprocessor line (a `#define M _Pragma("unroll")` before
 * `namespace n {` names nothing). A struct's text begins with its declaration (its base
 * classes, a template's defaults), after the last `;`, function or namespace brace, and
 * goes on to its `;` for the names it declares (`struct {...} s;`); a function's is its
 * body (its parameters' types would reach too far: a struct is named by its fields), and
 * a function template's parameters, for their defaults. */
static int cut(Scan *sc, const char *s) {
  int depth = 0, ns = 0, fn = 0;   /* ns: open namespace braces, at depth 0 */
  const char *from = s, *stmt = s;
  for (const char *p = s; *p; p++) {
    if (*p == '#' && (p == s || p[-1] == '\n')) {   /* a directive: skipped, a #define kept */
      const char *e = p;
      while (*e && !(*e == '\n' && e[-1] != '\\')) e++;
      if (depth == 0 && strncmp(p, "#define", 7) == 0) {
        const char *n = p + 7;
        while (*n == ' ' || *n == '\t') n++;
        const char *ne = n;
        while (is_ident(*ne)) ne++;
        if (add(sc, n, (size_t)(ne - n), ne, ne, e) != 0) return -1;
      }
      if (depth == 0) from = stmt = e;
      p = *e ? e : e - 1;
    } else if (*p == '{' && depth == 0) {
      int r = open_def(sc, from, stmt, p, &fn);
      if (r < 0) return -1;
      if (r > 0) { ns++; stmt = p + 1; }   /* a namespace: seen through */
      else depth = 1;
    } else if (*p == '{') {
      depth++;
    } else if (*p == '}' && depth > 0) {
      if (--depth > 0) continue;
      Def *d = &sc->defs[sc->n - 1];
      d->end = p;
      d->syncs = names_sync(d->head, p);
      if (fn) stmt = p + 1;
    } else if (*p == '}' && ns > 0) {
      ns--;
      stmt = p + 1;
    } else if (*p == ';' && depth == 0) {
      if (add_statement(sc, stmt, p) != 0) return -1;
      stmt = p + 1;
    }
  }
  return 0;
}

/* The macros of the -D options (-DSYNC=__syncthreads()), each a definition. */
static int add_options(Scan *s, const GpuCompileJob *job) {
  for (int o = 0; o < job->nopts; o++) {
    const char *d = strncmp(job->opts[o], "-D", 2) == 0 ? job->opts[o] + 2 : NULL;
    const char *e = d;
    while (e && is_ident(*e)) e++;
    if (e && e > d && add(s, d, (size_t)(e - d), e, e, e + strlen(e)) != 0) return -1;
  }
  s->nopts = s->n;
  return 0;
}

/* A definition that reaches a barrier is named in [p, end). */
static int names_syncing(const Scan *s, const char *p, const char *end) {
  for (int k = 0; k < s->n; k++)
    if (s->defs[k].syncs && s->defs[k].len > 0 && names_word(p, end, s->defs[k].name, s->defs[k].len))
      return 1;
  return 0;
}

Scan *scan_new(const char *stripped, const GpuCompileJob *job) {
  Scan *s = calloc(1, sizeof *s);
  if (s == NULL) return NULL;
  s->all = scan_headers(job->source, job, 0);
  for (int o = 0; o < job->nopts && !s->all; o++) {   /* --pre-include=h: where the compiler looks */
    const char *h = strncmp(job->opts[o], "--pre-include=", 14) == 0 ? job->opts[o] + 14 : NULL;
    s->all = h && (file_syncs(h, job, 0) || header_syncs(h, job, 0));
  }
  if (add_options(s, job) != 0 || cut(s, stripped) != 0) { scan_free(s); return NULL; }
  for (int changed = 1; changed;) {   /* what reaches a definition that syncs, syncs */
    changed = 0;
    for (int i = 0; i < s->n; i++) {
      Def *d = &s->defs[i];
      if (d->syncs) continue;
      if (names_syncing(s, d->head, d->end) || (d->targs && names_syncing(s, d->targs, d->targs_end)))
        d->syncs = changed = 1;
    }
  }
  for (int i = s->nopts; i < s->n; i++)   /* an operator: called unnamed, from any kernel */
    if (s->defs[i].syncs && strcmp(s->defs[i].name, "operator") == 0) s->all = 1;
  return s;
}

int scan_syncs(const Scan *s, const char *decl, const char *name) {
  const char *targs = strchr(name, '<');   /* "k<WarpSum>": its template arguments */
  if (s->all || (targs && names_syncing(s, targs, targs + strlen(targs)))) return 1;
  for (int i = s->nopts; i < s->n; i++)   /* the first definition whose body opens after decl */
    if (!s->defs[i].stmt && s->defs[i].body > decl) return s->defs[i].syncs;
  return 1;
}

void scan_free(Scan *s) {
  if (s) free(s->defs);
  free(s);
}
