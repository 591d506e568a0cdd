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

char *launch_rewrite(const char *s, size_t n, size_t *outlen) {
  /* pairs of positions: '[' after which '{' goes, ']' before which '}' goes */
  size_t *marks = NULL, nmarks = 0, cap = 0;
  struct { char kind; size_t pos; int comma; } stack[MAXDEPTH];
  int depth = 0;
  for (size_t i = 0; i < n;) {
    char c = s[i];
    int level;
    size_t len;
    if (c == '-' && i + 1 < n && s[i + 1] == '-') {                 /* comment */
      if (i + 2 < n && s[i + 2] == '[' && (len = long_open(s, n, i + 2, &level)) > 0)
        i = long_close(s, n, i + 2 + len, level);
      else
        while (i < n && s[i] != '\n') i++;
    } else if (c == '"' || c == '\'') {                             /* short string */
      for (i++; i < n && s[i] != c && s[i] != '\n'; i++)
        if (s[i] == '\\' && i + 1 < n) i++;
      i++;
    } else if (c == '[' && (len = long_open(s, n, i, &level)) > 0) { /* long string */
      i = long_close(s, n, i + len, level);
    } else if (c == '(' || c == '{' || c == '[') {
      if (depth < MAXDEPTH) {
        stack[depth].kind = c;
        stack[depth].pos = i;
        stack[depth].comma = 0;
      }
      depth++;
      i++;
    } else if (c == ')' || c == '}' || c == ']') {
      if (depth > 0) {
        depth--;
        if (c == ']' && depth < MAXDEPTH && stack[depth].kind == '[' && stack[depth].comma) {
          if (nmarks + 2 > cap) {
            cap = cap ? 2 * cap : 16;
            marks = realloc(marks, cap * sizeof *marks);
          }
          marks[nmarks++] = stack[depth].pos;
          marks[nmarks++] = i;
        }
      }
      i++;
    } else if (c == ',') {
      if (depth > 0 && depth <= MAXDEPTH && stack[depth - 1].kind == '[') stack[depth - 1].comma = 1;
      i++;
    } else {
      i++;
    }
  }
  if (nmarks == 0) return NULL;
  /* marks come in close order; sort the positions (few of them) to copy in one pass */
  for (size_t a = 1; a < nmarks; a++)
    for (size_t b = a; b > 0 && marks[b - 1] > marks[b]; b--) {
      size_t t = marks[b]; marks[b] = marks[b - 1]; marks[b - 1] = t;
    }
  char *out = malloc(n + nmarks + 1);
  size_t o = 0, from = 0;
  for (size_t m = 0; m < nmarks; m++) {
    size_t p = marks[m];
    if (s[p] == '[') {
      memcpy(out + o, s + from, p + 1 - from);
      o += p + 1 - from;
      out[o++] = '{';
      from = p + 1;
    } else {
      memcpy(out + o, s + from, p - from);
      o += p - from;
      out[o++] = '}';
      from = p;
    }
  }
  memcpy(out + o, s + from, n - from);
  o += n - from;
  out[o] = '\0';
  free(marks);
  *outlen = o;
  return out;
}
