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

/* Adds pos to the marks; 0, or -1 (the marks freed) when out of memory. */
static int add_mark(size_t **marks, size_t *nmarks, size_t *cap, size_t pos) {
  if (*nmarks + 1 > *cap) {
    size_t *grown = realloc(*marks, (*cap = *cap ? 2 * *cap : 16) * sizeof **marks);
    if (grown == NULL) { free(*marks); *marks = NULL; return -1; }
    *marks = grown;
  }
  (*marks)[(*nmarks)++] = pos;
  return 0;
}

/* The positions where braces go: pairs of '[' (after which '{' goes) and ']' (before which
 * '}' goes) of index brackets holding a comma at their own level, and the '[' of such a
 * bracket still open at the end, so that an unfinished launch (k[grid, on a prompt line)
 * reads as unfinished and the prompt asks for more; malloc'd, *count of them. */
static size_t *find_marks(const char *s, size_t n, size_t *count) {
  size_t *marks = NULL, nmarks = 0, cap = 0;
  struct { char kind; size_t pos; int comma; } stack[MAXDEPTH];
  int depth = 0, level;
  for (size_t i = 0, len; i < n;) {
    char c = s[i];
    if (c == '-' && i + 1 < n && s[i + 1] == '-') {                 /* comment */
      if (i + 2 < n && s[i + 2] == '[' && (len = long_open(s, n, i + 2, &level)) > 0)
        i = long_close(s, n, i + 2 + len, level);
      else
        while (i < n && s[i] != '\n') i++;
    } else if (c == '"' || c == '\'') {                             /* short string */
      i = skip_short_string(s, n, i);
    } else if (c == '[' && (len = long_open(s, n, i, &level)) > 0) { /* long string */
      i = long_close(s, n, i + len, level);
    } else if (c == '(' || c == '{' || c == '[') {
      if (depth < MAXDEPTH) { stack[depth].kind = c; stack[depth].pos = i; stack[depth].comma = 0; }
      depth++;
      i++;
    } else if (c == ')' || c == '}' || c == ']') {
      if (depth > 0 && --depth < MAXDEPTH && c == ']' && stack[depth].kind == '[' && stack[depth].comma &&
          (add_mark(&marks, &nmarks, &cap, stack[depth].pos) || add_mark(&marks, &nmarks, &cap, i))) {
        *count = 0;
        return NULL;
      }
      i++;
    } else {
      if (c == ',' && depth > 0 && depth <= MAXDEPTH && stack[depth - 1].kind == '[') stack[depth - 1].comma = 1;
      i++;
    }
  }
  for (int d = 0; d < depth && d < MAXDEPTH; d++)
    if (stack[d].kind == '[' && stack[d].comma && add_mark(&marks, &nmarks, &cap, stack[d].pos)) {
      *count = 0;
      return NULL;
    }
  *count = nmarks;
  return marks;
}

char *launch_rewrite(const char *s, size_t n, size_t *outlen) {
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
    out[o++] = s[p] == '[' ? '{' : '}';
    from = upto;
  }
  memcpy(out + o, s + from, n - from);
  o += n - from;
  out[o] = '\0';
  free(marks);
  *outlen = o;
  return out;
}
