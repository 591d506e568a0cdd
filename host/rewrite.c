/* rewrite.c: the launch spelling of the design, k[grid, block](...), read as
 * k[{grid, block}](...). Only what plain Lua rejects changes (an index bracket holding a
 * comma at its own level gets braces inside it); strings, comments and long brackets are
 * skipped, and nothing adds a newline, so line numbers stay the user's. */
#include <stdlib.h>
#include <string.h>
#include "rewrite.h"

#define MAXDEPTH 512

/* Length of the long bracket opening at s[i] ("[[", "[==["), or 0 when there is none;
 * *level gets the number of '='. */
static size_t long_open(const char *s, size_t n, size_t i, int *level) {
  size_t j = i + 1;
  int l = 0;
  while (j < n && s[j] == '=') { j++; l++; }
  if (j < n && s[j] == '[') { *level = l; return j - i + 1; }
  return 0;
}

/* Index just past the long bracket closing a level-`level` one, from i (or n). */
static size_t long_close(const char *s, size_t n, size_t i, int level) {
  for (; i < n; i++) {
    if (s[i] != ']') continue;
    size_t j = i + 1;
    int l = 0;
    while (j < n && s[j] == '=') { j++; l++; }
    if (l == level && j < n && s[j] == ']') return j + 1;
  }
  return n;
}

/* Index just past the short string (quote q) opening at s[i]. A backslash escapes the next
 * character; \z skips the white space after it, newlines too; a backslash before a newline
 * (\n, \r, \r\n or \n\r) continues the string on the next line. An unescaped newline
 * ends it (unfinished: Lua will say so). */
static size_t skip_short_string(const char *s, size_t n, size_t i) {
  char q = s[i++];
  while (i < n && s[i] != q && s[i] != '\n' && s[i] != '\r') {
    if (s[i] != '\\' || i + 1 >= n) { i++; continue; }
    char e = s[i + 1];
    i += 2;
    if (e == 'z') {
      while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
    } else if ((e == '\n' || e == '\r') && i < n && (s[i] == '\n' || s[i] == '\r') && s[i] != e) {
      i++;   /* \r\n or \n\r: one newline */
    }
  }
  return i + 1;
}

/* If s[i] opens a comment or a string (short or long), the index just past it, with
 * *string set for a string; else i. */
static size_t skip_opaque(const char *s, size_t n, size_t i, int *string) {
  size_t len;
  int level;
  *string = 0;
  if (s[i] == '-' && i + 1 < n && s[i + 1] == '-') {
    if (i + 2 < n && s[i + 2] == '[' && (len = long_open(s, n, i + 2, &level)) > 0)
      return long_close(s, n, i + 2 + len, level);
    while (i < n && s[i] != '\n' && s[i] != '\r') i++;   /* (\r ends a line too, as in Lua) */
    return i;
  }
  *string = 1;
  if (s[i] == '"' || s[i] == '\'') return skip_short_string(s, n, i);
  if (s[i] == '[' && (len = long_open(s, n, i, &level)) > 0) return long_close(s, n, i + len, level);
  *string = 0;
  return i;
}

static int is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does the word s[0..len) end a value that '[' can index: a name, not a keyword (nor a number)? */
static int indexable_word(const char *s, size_t len) {
  static const char *const keywords[] = {"and", "break", "do", "else", "elseif", "end", "false",
    "for", "function", "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return",
    "then", "true", "until", "while"};
  if (s[0] >= '0' && s[0] <= '9') return 0;
  for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
    if (strlen(keywords[k]) == len && memcmp(keywords[k], s, len) == 0) return 0;
  return 1;
}

typedef struct {
  size_t *pos, n, cap;   /* the marks, malloc'd */
  int failed;            /* out of memory: the marks freed */
} Marks;

static void add_mark(Marks *m, size_t pos) {
  if (m->failed) return;
  if (m->n + 1 > m->cap) {
    size_t *grown = realloc(m->pos, (m->cap = m->cap ? 2 * m->cap : 16) * sizeof *m->pos);
    if (grown == NULL) { free(m->pos); m->pos = NULL; m->failed = 1; return; }
    m->pos = grown;
  }
  m->pos[m->n++] = pos;
}

typedef struct { char kind; size_t pos; int comma; } Open;

/* The positions where braces go: pairs of '[' (after which '{' goes) and ']' (before which
 * '}' goes) of index brackets holding a comma at their own level, and the '[' of such a
 * bracket still open at the end, so that an unfinished launch (k[grid, on a prompt line)
 * reads as unfinished and the prompt asks for more; malloc'd, *count of them. An index
 * bracket follows a name, ')', ']', '}' or a string (f{...}[g, b], f"s"[g, b]); the '[' of
 * a table constructor's key ({[k] = v}) is left alone (kind 'k'). */
static size_t *find_marks(const char *s, size_t n, size_t *count) {
  Marks m = {NULL, 0, 0, 0};
  Open stack[MAXDEPTH];
  int depth = 0, value = 0, string;   /* value: the last token ends something '[' can index */
  for (size_t i = 0, j; i < n; i = j) {
    char c = s[i];
    if ((j = skip_opaque(s, n, i, &string)) != i) { value = string ? 1 : value; continue; }
    j = i + 1;
    if (is_word(c)) {
      while (j < n && (is_word(s[j]) || (s[i] >= '0' && s[i] <= '9' && s[j] == '.'))) j++;
      value = indexable_word(s + i, j - i);
    } else if (c == '(' || c == '{' || c == '[') {
      if (depth < MAXDEPTH) stack[depth] = (Open){c == '[' && !value ? 'k' : c, i, 0};
      depth++;
      value = 0;
    } else if (c == ')' || c == '}' || c == ']') {
      if (depth > 0 && --depth < MAXDEPTH && c == ']' && stack[depth].kind == '[' && stack[depth].comma) {
        add_mark(&m, stack[depth].pos);
        add_mark(&m, i);
      }
      value = 1;
    } else if (c != ' ' && (c < '\t' || c > '\r')) {
      if (c == ',' && depth > 0 && depth <= MAXDEPTH && stack[depth - 1].kind == '[') stack[depth - 1].comma = 1;
      value = 0;
    }
  }
  for (int d = 0; d < depth && d < MAXDEPTH; d++)
    if (stack[d].kind == '[' && stack[d].comma) add_mark(&m, stack[d].pos);
  *count = m.failed ? 0 : m.n;
  return m.pos;
}

size_t launch_open_bracket(const char *s, size_t n, size_t upto) {
  size_t stack[MAXDEPTH];
  int depth = 0, string;
  for (size_t i = 0, j; i < upto && i < n; i = j) {
    if ((j = skip_opaque(s, n, i, &string)) != i) continue;
    j = i + 1;
    if (s[i] == '(' || s[i] == '{' || s[i] == '[') {
      if (depth < MAXDEPTH) stack[depth] = i;
      depth++;
    } else if ((s[i] == ')' || s[i] == '}' || s[i] == ']') && depth > 0) {
      depth--;
    }
  }
  return depth > 0 && depth <= MAXDEPTH ? stack[depth - 1] : n;
}

char *launch_rewrite_braces(const char *s, size_t n, size_t *outlen, size_t **braces,
                            size_t *nbraces) {
  size_t nmarks;
  size_t *marks = find_marks(s, n, &nmarks);
  if (nmarks == 0) { free(marks); return NULL; }
  /* marks come in close order; sort the positions (few of them) to copy in one pass */
  for (size_t a = 1; a < nmarks; a++)
    for (size_t b = a; b > 0 && marks[b - 1] > marks[b]; b--) {
      size_t t = marks[b]; marks[b] = marks[b - 1]; marks[b - 1] = t;
    }
  char *out = malloc(n + nmarks + 1);
  if (out == NULL) { free(marks); return NULL; }
  size_t o = 0, from = 0;
  for (size_t m = 0; m < nmarks; m++) {
    size_t p = marks[m], upto = s[p] == '[' ? p + 1 : p;
    memcpy(out + o, s + from, upto - from);
    o += upto - from;
    marks[m] = o;   /* where the brace is in out */
    out[o++] = s[p] == '[' ? '{' : '}';
    from = upto;
  }
  memcpy(out + o, s + from, n - from);
  o += n - from;
  out[o] = '\0';
  *outlen = o;
  if (braces) *braces = marks, *nbraces = nmarks;
  else free(marks);
  return out;
}

char *launch_rewrite(const char *s, size_t n, size_t *outlen) {
  return launch_rewrite_braces(s, n, outlen, NULL, NULL);
}
