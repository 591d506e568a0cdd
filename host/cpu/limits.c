/* limits.c: what NVRTC and ptxas refuse of a kernel that the host's compiler would take,
 * found in the library it made: a kernel's parameters over 32764 bytes (the size of a
 * symbol source.c writes per kernel), __constant__ data over 64 KiB (the sizes of the
 * variables the source declares __constant__). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_internal.h"
#include "util.h"

/* The names the stripped source declares __constant__, each ended by a '\0' in names. */
static void constant_names(const char *s, Buf *names) {
  for (const char *p = s; (p = find_word(p, "__constant__")) != NULL; p += 12) {
    int depth = 0, named = 0;
    for (const char *q = p + 12; *q && !(depth == 0 && *q == ';'); q++) {
      if (depth == 0 && !named && strchr("[={(,", *q)) {   /* the identifier before it */
        const char *e = q;
        while (e > p && strchr(" \t\n", e[-1])) e--;
        const char *b = e;
        while (b > p && is_ident(b[-1])) b--;
        if (e > b) { buf_add(names, b, (size_t)(e - b)); buf_add(names, "", 1); }
        named = 1;
      }
      if (depth == 0 && *q == ',') named = 0;
      depth += (strchr("([{", *q) != NULL) - (strchr(")]}", *q) != NULL);
    }
  }
}

/* Whether symbol sym is a variable that names declares: the name itself, or in a
 * namespace (_ZN...<length><name>E). */
static int is_named(const char *sym, const Buf *names) {
  size_t len = strlen(sym);
  for (size_t at = 0; at < names->n; at += strlen(names->data + at) + 1) {
    const char *nm = names->data + at;
    char tail[160];
    int t = snprintf(tail, sizeof tail, "%zu%sE", strlen(nm), nm);
    if (strcmp(sym, nm) == 0 ||
        (strncmp(sym, "_ZN", 3) == 0 && t < (int)sizeof tail && len > (size_t)t && strcmp(sym + len - t, tail) == 0))
      return 1;
  }
  return 0;
}

/* The library's symbols: fn(name, size, ctx) for each object. */
static void each_object(const char *image, size_t n, void (*fn)(const char *, size_t, void *), void *ctx) {
  Elf64_Ehdr eh;
  Elf64_Shdr sym, str;
  if (n < sizeof eh) return;
  memcpy(&eh, image, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return;
  size_t i = 0;
  while (i < eh.e_shnum && !(source_section(image, n, &eh, i, &sym) && sym.sh_type == SHT_SYMTAB)) i++;
  if (i >= eh.e_shnum || !source_section(image, n, &eh, sym.sh_link, &str)) return;
  for (size_t a = 0; a < sym.sh_size / sizeof(Elf64_Sym); a++) {
    Elf64_Sym s;
    memcpy(&s, image + sym.sh_offset + a * sizeof s, sizeof s);
    if (ELF64_ST_TYPE(s.st_info) == STT_OBJECT && s.st_name < str.sh_size)
      fn(image + str.sh_offset + s.st_name, s.st_size, ctx);
  }
}

typedef struct Limits { const Buf *names; size_t constant; long *params; int nparams; } Limits;
static void count_object(const char *name, size_t size, void *ctx) {
  Limits *l = ctx;
  const char *p = strncmp(name, "_ZL", 3) == 0 ? strstr(name, "gpuhost_params") : NULL;   /* a static's */
  int k;
  if (p && sscanf(p + 14, "%d", &k) == 1 && k >= 0 && k < l->nparams) l->params[k] = (long)size - 1;
  else if (is_named(name, l->names)) l->constant += size;
}

/* What NVRTC and ptxas refuse of a kernel's library, in their words: a kernel's parameters
 * over 32764 bytes, __constant__ data over 64 KiB. 0, or -1 and the message. */
int source_limits(const char *image, size_t n, const GpuCompileJob *job, char *msg, size_t nmsg) {
  char *stripped = source_strip(job->source);
  Buf names = {0};
  Limits l = {&names, 0, calloc((size_t)job->nnames + 1, sizeof(long)), job->nnames};
  if (stripped) constant_names(stripped, &names);
  free(stripped);
  if (l.params == NULL) l.nparams = 0;
  each_object(image, n, count_object, &l);
  buf_free(&names);
  for (int i = 0; i < l.nparams; i++)
    if (l.params[i] > 32764) {
      snprintf(msg, nmsg, "Error: Formal parameter space overflowed (%ld bytes required, max 32764 bytes "
               "allowed) in function %s", l.params[i], job->names[i]);
      free(l.params);
      return -1;
    }
  free(l.params);
  if (l.constant > 0x10000) {
    snprintf(msg, nmsg, "ptxas error   : File uses too much global constant data (0x%zx bytes, 0x10000 max)",
             l.constant);
    return -1;
  }
  return 0;
}
