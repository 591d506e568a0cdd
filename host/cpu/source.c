/* source.c: the translation unit the host's C++ compiler gets for a kernel source, and
 * what it reports back. The source is copied with each `extern __shared__` array made a
 * pointer to the block's dynamic shared memory (shared.c); after it come, for each kernel,
 * its entry (at the line of its declaration in the script, so that an error there points at it), the
 * loops that run whole blocks when it names no barrier or warp function (on a line of
 * its own in "gpuhost-loops"), and the entry table. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "util.h"

int is_ident(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* Whether the ' at p of t is a digit separator (C++14: 1'000, 0xFF'FF): inside a number. */
static int digit_separator(const char *t, const char *p) {
  const char *w = p;
  while (w > t && (is_ident(w[-1]) || w[-1] == '\'' || w[-1] == '.')) w--;
  return w < p && ((*w >= '0' && *w <= '9') || (*w == '.' && w[1] >= '0' && w[1] <= '9'));
}

/* The end of the raw string literal (R"d(...)d", maybe LR, uR, UR or u8R) whose '"' is at
 * p of t, past its closing quote; NULL when p starts none. */
static char *raw_string_end(char *t, char *p) {
  char *w = p, close[20] = ")";
  while (w > t && is_ident(w[-1])) w--;
  size_t n = (size_t)(p - w), d = strcspn(p + 1, "( )\\\t\n\"");
  if (n == 0 || w[n - 1] != 'R' || (n > 1 && strncmp(w, "LR", n) && strncmp(w, "uR", n) && strncmp(w, "UR", n) &&
                                    strncmp(w, "u8R", n)) || d > 16 || p[1 + d] != '(')
    return NULL;
  snprintf(close + 1, sizeof close - 1, "%.*s\"", (int)d, p + 1);
  char *e = strstr(p + 2 + d, close);
  return e ? e + strlen(close) : p + strlen(p);
}

/* s with comments, string and character literals blanked (newlines kept), malloc'd. A
 * CR before a newline becomes a blank (a continued line's backslash moves onto it). */
char *source_strip(const char *s) {
  char *t = strdup(s);
  if (t == NULL) return NULL;
  for (char *p = t; *p; p++)
    if (p[0] == '\r' && p[1] == '\n') {
      if (p > t && p[-1] == '\\') p[-1] = ' ', p[0] = '\\';
      else p[0] = ' ';
    }
  for (char *p = t; *p;) {
    char *e = p;
    if (p[0] == '/' && p[1] == '/') { while (*e && !(*e == '\n' && e[-1] != '\\')) e++; }
    else if (p[0] == '/' && p[1] == '*') { e = strstr(p + 2, "*/"); e = e ? e + 2 : p + strlen(p); }
    else if (*p == '"' && (e = raw_string_end(t, p)) != NULL) { p++; if (e > p && e[-1] == '"') e--; }   /* keep the quotes */
    else if (*p == '\'' && digit_separator(t, p)) { p++; continue; }
    else if (*p == '"' || *p == '\'') {
      for (e = p + 1; *e && *e != *p && *e != '\n'; e++)
        if (*e == '\\' && e[1]) e++;
      if (*e == *p) e++;
      if (e - p >= 2) p++, e--;   /* keep the quotes */
    } else { p++; continue; }
    for (; p < e; p++) if (*p != '\n') *p = ' ';
    if (*p == '"' || *p == '\'') p++;
  }
  return t;
}

/* the word w in s, as a whole identifier; NULL when it is not there */
const char *find_word(const char *s, const char *w) {
  size_t n = strlen(w);
  for (const char *p = s; (p = strstr(p, w)) != NULL; p += n)
    if ((p == s || !is_ident(p[-1])) && !is_ident(p[n])) return p;
  return NULL;
}

/* ---- where each kernel is declared ---- */

/* The #line prefix gpu.lua puts before a source: its line and (escaped) file; the text
 * after it. */
static const char *prefix_of(const char *s, long *line, char *file, size_t n) {
  *line = 1;
  snprintf(file, n, "kernel.cu");
  if (strncmp(s, "#line ", 6) != 0) return s;
  const char *q = strchr(s, '"'), *nl = strchr(s, '\n'), *e = nl;
  if (!q || !nl || q > nl) return s;
  *line = strtol(s + 6, NULL, 10);
  while (e > q && *e != '"') e--;
  snprintf(file, n, "%.*s", (int)(e - q - 1 > 0 ? e - q - 1 : 0), q + 1);
  return nl + 1;
}

/* The namespaces open at position at of stripped text s, as "a::b::" (empty at global scope). */
static void namespaces_at(const char *s, const char *at, char *out, size_t n) {
  int depth = 0, ns_depth[16], nns = 0;
  char names[16][64];
  for (const char *p = s; p < at; p++) {
    if (*p == '{') depth++;
    else if (*p == '}') { depth--; while (nns > 0 && ns_depth[nns - 1] > depth) nns--; }
    else if (strncmp(p, "namespace", 9) == 0 && (p == s || !is_ident(p[-1])) && !is_ident(p[9])) {
      char name[64] = "";
      int end = 0;
      if (sscanf(p + 9, " %63[A-Za-z0-9_:] %n", name, &end) == 1 && end > 0 && p[9 + end] == '{' && nns < 16) {
        snprintf(names[nns], sizeof names[nns], "%s", name);
        ns_depth[nns++] = depth + 1;
      }
    }
  }
  out[0] = '\0';
  for (int i = 0; i < nns; i++)
    if (strlen(out) + strlen(names[i]) + 3 < n) { strcat(out, names[i]); strcat(out, "::"); }
}

/* The argument of a `__launch_bounds__(` at p, up to its first top-level comma. */
static void bounds_arg(const char *p, char *out, size_t n) {
  const char *q = strchr(p, '(') + 1, *e = q;   /* as the preprocessor splits a macro's: < > are operators */
  for (int depth = 0; *e && !(depth == 0 && (*e == ')' || *e == ',')); e++)
    depth += (*e == '(') - (*e == ')');
  snprintf(out, n, "%.*s", (int)(e - q), q);
}

/* The name a `__global__` at g declares: the first identifier before a '(' that is not an
 * attribute's; its start, and its length in *len. NULL when there is none. */
static const char *declared_name(const char *g, size_t *len) {
  static const char *const attributes[] = {"__launch_bounds__", "__attribute__", "__maxnreg__",
                                           "__cluster_dims__", "alignas", "__declspec"};
  for (const char *p = g + 10; *p && *p != ';' && *p != '{';) {
    if (!is_ident(*p) || (p > g && is_ident(p[-1]))) { p++; continue; }
    const char *e = p;
    while (is_ident(*e) || (e[0] == ':' && e[1] == ':')) e += e[0] == ':' ? 2 : 1;
    const char *q = e;
    while (*q == ' ' || *q == '\t' || *q == '\n') q++;
    if (*q != '(') { p = e; continue; }
    int attr = 0;
    for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++)
      attr |= (size_t)(e - p) == strlen(attributes[i]) && strncmp(p, attributes[i], (size_t)(e - p)) == 0;
    if (!attr) { *len = (size_t)(e - p); return p; }
    for (int depth = 0; *q; q++) {   /* past the attribute's parentheses */
      depth += (*q == '(') - (*q == ')');
      if (depth == 0) break;
    }
    p = *q ? q + 1 : q;
  }
  return NULL;
}

/* The __launch_bounds__ of the declaration of the kernel whose `__global__` is at g and
 * name at p, if any ("0" if none, or if it depends on a template's parameters). */
static void decl_bounds(const char *s, const char *g, const char *p, char *bounds, size_t nb) {
  const char *stmt = g;
  while (stmt > s && !strchr(";{}", stmt[-1])) stmt--;
  const char *lb = find_word(stmt, "__launch_bounds__");
  snprintf(bounds, nb, "0");
  if (lb && lb < p) {
    const char *t = find_word(stmt, "template");
    bounds_arg(lb, bounds, nb);
    if (t && t < g && strspn(bounds, " 0123456789") != strlen(bounds)) snprintf(bounds, nb, "0");
  }
}

/* Whether the declaration whose name ends at e has a body: after its balanced parameter
 * list, a '{' comes before a ';' (`__global__ void k(int *o);` is a declaration only). */
static int has_body(const char *e) {
  const char *q = strchr(e, '(');
  for (int depth = 0; q && *q; q++) {
    depth += (*q == '(') - (*q == ')');
    if (depth == 0 && (*q == '{' || *q == ';')) return *q == '{';
  }
  return 0;
}

/* The declaration of kernel `name` ("k", "ns::k", "scale<float>") in stripped body s: the
 * position of its name, the namespaces around it, and its __launch_bounds__, if any ("0"
 * if none, or if it depends on a template's parameters). Its definition (the one with a
 * body: scan.c reads the body after it) when one of them has one, else the first; bounds
 * from the first that has them. NULL when it is not found. */
static const char *find_decl(const char *s, const char *name, char *ns, size_t nns, char *bounds, size_t nb) {
  char base[200], first_ns[256] = "";
  snprintf(base, sizeof base, "%s", name);
  base[strcspn(base, "<")] = '\0';
  const char *last = base, *want = base + (strncmp(base, "::", 2) == 0 ? 2 : 0), *first = NULL;
  for (const char *c = base; (c = strstr(c, "::")) != NULL; c += 2) last = c + 2;
  snprintf(bounds, nb, "0");
  /* the declaration of that full name first ("k" at global scope before ns::k), then any
   * of that last name (what the name expression finds, for what namespaces_at misreads) */
  for (int pass = 0; pass < 2 && first == NULL; pass++)
  for (const char *g = s; (g = find_word(g, "__global__")) != NULL; g += 10) {
    size_t len;
    const char *p = declared_name(g, &len), *plast = p;
    if (p == NULL) continue;
    for (const char *c = p; (c = strstr(c, "::")) != NULL && c < p + len; c += 2) plast = c + 2;
    if ((size_t)(p + len - plast) != strlen(last) || strncmp(plast, last, strlen(last)) != 0) continue;
    namespaces_at(s, p, ns, nns);
    char full[512];
    snprintf(full, sizeof full, "%s%.*s", ns, (int)len, p);
    if (pass == 0 && strcmp(full, want) != 0) continue;
    if (strcmp(bounds, "0") == 0) decl_bounds(s, g, p, bounds, nb);
    if (has_body(p + len)) return p;
    if (first == NULL) { first = p; snprintf(first_ns, sizeof first_ns, "%s", ns); }
  }
  if (first) snprintf(ns, nns, "%s", first_ns);
  return first;
}

/* ---- the translation unit ---- */

/* Kernel i's __launch_bounds__ as a constant, where its own names resolve: after the source
 * (its macros still defined) in the namespace of its declaration. */
static void emit_bounds(Buf *src, int i, const char *name, const char *stripped, long line, const char *file) {
  char ns[256], bounds[200];
  const char *p = find_decl(stripped, name, ns, sizeof ns, bounds, sizeof bounds);
  if (p == NULL) { ns[0] = '\0'; snprintf(bounds, sizeof bounds, "0"); }
  for (const char *c = stripped; p && c < p; c++) line += *c == '\n';
  int n = (int)strlen(ns) - 2;   /* "a::b::" opened as "namespace a::b {" */
  buf_printf(src, "#line %ld \"%s\"\n", line, file);
  if (n > 0) buf_printf(src, "namespace %.*s { constexpr long gpuhost_bounds%d = (long)(%s); }\n", n, ns, i, bounds);
  else buf_printf(src, "constexpr long gpuhost_bounds%d = (long)(%s);\n", i, bounds);
}

/* Kernel i: its entry at the line of its declaration, and its loops when it names no
 * barrier or warp function (scan.c); returns whether it has loops. */
static int emit_kernel(Buf *src, int i, const char *name, const char *stripped, const Scan *scan,
                       long line, const char *file) {
  char ns[256], bounds[200];
  const char *p = find_decl(stripped, name, ns, sizeof ns, bounds, sizeof bounds);
  int loops = p && scan && !scan_syncs(scan, p, name);
  if (p == NULL) { ns[0] = '\0'; snprintf(bounds, sizeof bounds, "0"); }
  for (const char *c = stripped; p && c < p; c++) line += *c == '\n';
  buf_printf(src, "#line %ld \"%s\"\n", line, file);
  buf_printf(src, "constexpr auto gpuhost_f%d = &%s%s; constexpr long gpuhost_lb%d = ::%sgpuhost_bounds%d;\n",
            i, strstr(name, "::") ? "" : ns, name, i, ns, i);
  /* its parameter space, as the size of a symbol (source_limits reads it) */
  buf_printf(src, "static char gpuhost_params%d[gpuhost_cpu::kernel<std::remove_const_t<decltype(gpuhost_f%d)>>::space() + 1] "
            "__attribute__((used));\n", i, i);
  if (loops)
    buf_printf(src, "#line %d \"gpuhost-loops\"\nGPUHOST_LOOPS(gpuhost_x%d, gpuhost_f%d)\n", i + 1, i, i);
  return loops;
}

int source_emit(Buf *src, const GpuCompileJob *job, int *loops) {
  long line;
  char file[1024];
  const char *body = prefix_of(job->source, &line, file, sizeof file);
  char *stripped = source_strip(body);
  if (stripped == NULL) return -1;
  Scan *scan = scan_new(stripped, job);
  buf_str(src, "#include \"gpuhost_cpu.h\"\n#include \"gpuhost.cuh\"\n");
  source_rewrite(src, job->source);
  buf_str(src, "\n");
  for (int i = 0; i < job->nnames; i++) emit_bounds(src, i, job->names[i], stripped, line, file);
  /* the entry points read the prelude's names: the user's macros of those names are put
   * aside around them, as kernels/cpu.h puts them aside around itself */
  buf_str(src, "\n// entry points for the CPU backend\n#define GPUHOST_NAMES 1\n#include \"gpuhost_cpu.h\"\n"
          "#undef GPUHOST_NAMES\n");
  for (int i = 0; i < job->nnames; i++)
    loops[i] = emit_kernel(src, i, job->names[i], stripped, scan, line, file);
  scan_free(scan);
  free(stripped);
  buf_printf(src, "#line 1 \"gpuhost-entries\"\n"
            "extern \"C\" __attribute__((visibility(\"default\"))) const int gpuhost_entry_count = %d;\n"
            "extern \"C\" __attribute__((visibility(\"default\"))) const gpuhost_entry gpuhost_entries[] = {\n",
            job->nnames);
  for (int i = 0; i < job->nnames; i++) {
    if (loops[i]) buf_printf(src, "  gpuhost_cpu::entry<gpuhost_f%d>(gpuhost_x%d, gpuhost_lb%d),\n", i, i, i);
    else buf_printf(src, "  gpuhost_cpu::entry<gpuhost_f%d>(nullptr, gpuhost_lb%d),\n", i, i);
  }
  buf_str(src, "  {nullptr, nullptr, 0, nullptr, 0}};\n#define GPUHOST_NAMES 2\n#include \"gpuhost_cpu.h\"\n"
          "#undef GPUHOST_NAMES\n");
  return src->failed ? -1 : 0;
}

/* ---- what the compiler reports ---- */

int source_frames(const char *su, CpuLibraryInfo *info, char *largest, size_t n) {
  size_t named = 0, ours_named = 0;   /* the largest frames of the script's and of ours */
  info->max_frame = 0;
  info->dynamic_frames = 0;
  largest[0] = '\0';
  for (const char *p = su; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    const char *tab = strchr(p, '\t'), *nl = strchr(p, '\n');
    if (tab == NULL || (nl && tab > nl)) continue;
    size_t bytes = strtoul(tab + 1, NULL, 10);
    const char *quals = strchr(tab + 1, '\t');
    if (quals && (!nl || quals < nl) && strncmp(quals + 1, "dynamic", 7) == 0 &&
        strncmp(quals + 1, "dynamic,bounded", 15) != 0)
      info->dynamic_frames = 1;
    if (bytes > info->max_frame) info->max_frame = bytes;
    /* the message names the script's own function where one has the frame */
    int ours = strncmp(p, "/tmp/gpuhost-", 13) == 0 || strncmp(p, "gpuhost-", 8) == 0;
    size_t *best = ours ? &ours_named : &named;
    if (bytes > *best) {
      *best = bytes;
      if (!ours || named == 0) snprintf(largest, n, "%.*s", (int)(tab - p), p);
    }
  }
  return 0;
}

/* The owner's length in sym[0..len) as "_ZZ<owner>E<length><name>", or 0. */
static size_t owner_in(const char *sym, size_t len) {
  for (size_t name = 1; name + 4 < len; name++) {   /* E, the name's length, then the name */
    size_t at = len - name, digits = 0, value = 0, scale = 1;
    while (digits < 6 && digits < at && sym[at - 1 - digits] >= '0' && sym[at - 1 - digits] <= '9') {
      value += (size_t)(sym[at - 1 - digits] - '0') * scale;
      scale *= 10;
      digits++;
    }
    if (digits && value == name && at > digits + 4 && sym[at - 1 - digits] == 'E')
      return at - 1 - digits - 3;
  }
  return 0;
}

/* The length of the part of a function-local static's symbol that names its function
 * ("_ZZ<function>E<length><name>", then maybe a discriminator "_<n>" or "__<n>_"), or 0
 * for any other symbol. */
static size_t local_owner(const char *sym) {
  if (strncmp(sym, "_ZZ", 3) != 0) return 0;
  size_t len = strlen(sym), own = owner_in(sym, len);
  if (own || len < 8) return own;
  size_t closed = sym[len - 1] == '_', d = len - closed;
  while (d > 4 && sym[d - 1] >= '0' && sym[d - 1] <= '9') d--;
  if (d == len - closed || sym[d - 1] != '_') return 0;   /* no digits, or not after '_' */
  if (closed) return sym[d - 2] == '_' ? owner_in(sym, d - 2) : 0;
  return owner_in(sym, d - 1);
}

/* The section header i of the image, or 0 when it lies outside. */
int source_section(const char *image, size_t n, const Elf64_Ehdr *eh, size_t i, Elf64_Shdr *sh) {
  size_t at = eh->e_shoff + i * eh->e_shentsize;
  if (i >= eh->e_shnum || at + sizeof *sh > n) return 0;
  memcpy(sh, image + at, sizeof *sh);
  return sh->sh_offset + sh->sh_size <= n;
}

/* Static __shared__ memory is thread-local in the library. A block's kernel has its own
 * statics (the symbols of function-local ones name their function) and those at namespace
 * scope; the largest such sum over the functions of the library, less the runtime's own
 * (gpuhost_*). Statics of a __device__ function count apart from its callers'. */
size_t source_static_shared(const char *image, size_t n) {
  Elf64_Ehdr eh;
  Elf64_Shdr sym, str;
  if (n < sizeof eh) return 0;
  memcpy(&eh, image, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return 0;
  size_t i = 0, global = 0, best = 0;
  while (i < eh.e_shnum && !(source_section(image, n, &eh, i, &sym) && sym.sh_type == SHT_SYMTAB)) i++;
  if (i >= eh.e_shnum || !source_section(image, n, &eh, sym.sh_link, &str)) return 0;
  const char *names = image + str.sh_offset;
  size_t count = sym.sh_size / sizeof(Elf64_Sym);
  for (size_t a = 0; a < count; a++) {   /* namespace scope: every kernel may use them */
    Elf64_Sym s;
    memcpy(&s, image + sym.sh_offset + a * sizeof s, sizeof s);
    const char *nm = s.st_name < str.sh_size ? names + s.st_name : "";
    if (ELF64_ST_TYPE(s.st_info) == STT_TLS && !local_owner(nm) && strstr(nm, "gpuhost_") == NULL)
      global += s.st_size;
  }
  for (size_t a = 0; a < count; a++) {   /* each function's: summed over its symbols */
    Elf64_Sym s, t;
    memcpy(&s, image + sym.sh_offset + a * sizeof s, sizeof s);
    const char *nm = s.st_name < str.sh_size ? names + s.st_name : "";
    size_t own = local_owner(nm), sum = 0;
    if (ELF64_ST_TYPE(s.st_info) != STT_TLS || own == 0) continue;
    for (size_t b = 0; b < count; b++) {
      memcpy(&t, image + sym.sh_offset + b * sizeof t, sizeof t);
      const char *tn = t.st_name < str.sh_size ? names + t.st_name : "";
      if (ELF64_ST_TYPE(t.st_info) == STT_TLS && local_owner(tn) == own && strncmp(tn, nm, own + 3) == 0)
        sum += t.st_size;
    }
    if (sum > best) best = sum;
  }
  return global + best;
}

