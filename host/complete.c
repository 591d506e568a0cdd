/* complete.c: the prompt's line editor, libedit's readline interface opened with dlopen:
 * lines, their history and Tab completion. What to offer is decided in Lua, by the
 * embedded lua/complete.lua (loaded as the state is made), which reads the running state's
 * globals and fields without calling anything; this file only hands its list to libedit. */
#include <dlfcn.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lua.h"
#include "lauxlib.h"
#include "util.h"
#include "complete.h"

typedef char *generator_fn(const char *text, int state);
static struct {
  char **(*completion_matches)(const char *text, generator_fn *entry);
  lua_State *L;
  int ref;                  /* the completer (lua/complete.lua's function) in the registry */
  char **list;              /* the candidates of the completion under way */
  size_t n, next;
} c = {NULL, NULL, LUA_NOREF, NULL, 0, 0};

static void list_free(void) {
  for (size_t i = c.next; i < c.n; i++) free(c.list[i]);
  free(c.list);
  c.list = NULL;
  c.n = c.next = 0;
}

/* [-0, +0, -] Runs the completer on text; the candidates go to c.list. */
static void candidates(const char *text) {
  lua_State *L = c.L;
  int top = lua_gettop(L);
  list_free();
  lua_rawgeti(L, LUA_REGISTRYINDEX, c.ref);
  lua_pushstring(L, text);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
    size_t n = (size_t)luaL_len(L, -1);
    c.list = calloc(n + 1, sizeof *c.list);
    for (size_t i = 0; c.list && i < n; i++) {
      lua_rawgeti(L, -1, (lua_Integer)i + 1);
      const char *s = lua_tostring(L, -1);
      if (s && (c.list[c.n] = strdup(s)) != NULL) c.n++;
      lua_pop(L, 1);
    }
  }
  lua_settop(L, top);
}

/* libedit's generator: state 0 starts a completion; each call gives the next candidate
 * (malloc'd: libedit frees it), NULL at the end. */
static char *generate(const char *text, int state) {
  if (state == 0) candidates(text);
  if (c.next < c.n) return c.list[c.next++];
  list_free();
  return NULL;
}

static char **attempt(const char *text, int start, int end) {
  (void)start; (void)end;
  return c.completion_matches(text, generate);
}

#define COMPLETER_KEY "gpuhost.completer"

/* Loads lua/complete.lua into L's registry (COMPLETER_KEY) when the state is made, before
 * LUA_INIT, -e, -l and the script run: the functions it holds (type, next, getmetatable,
 * string.match ...) are the libraries' own, whatever the user's code later does to the
 * globals of those names (taken at the prompt's start, a script's `type = "float32"` stopped
 * completion and its own getmetatable was called at each Tab). */
void complete_prepare(lua_State *L) {
  const EmbeddedFile *f = embedded_find("lua/complete.lua");
  if (f == NULL) return;
  if (luaL_loadbuffer(L, f->data, f->size, "=[gpu] lua/complete.lua") == LUA_OK && lua_pcall(L, 0, 1, 0) == LUA_OK)
    lua_setfield(L, LUA_REGISTRYINDEX, COMPLETER_KEY);
  else
    lua_pop(L, 1);
}

int complete_open(lua_State *L, void *libedit) {
  *(void **)&c.completion_matches = dlsym(libedit, "rl_completion_matches");
  void **attempted_fn = dlsym(libedit, "rl_attempted_completion_function");
  const char **breaks = dlsym(libedit, "rl_basic_word_break_characters");
  const char **completer_breaks = dlsym(libedit, "rl_completer_word_break_characters");
  int *append = dlsym(libedit, "rl_completion_append_character");
  if (!c.completion_matches || !attempted_fn) return 0;
  if (lua_getfield(L, LUA_REGISTRYINDEX, COMPLETER_KEY) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return 0;
  }
  c.ref = luaL_ref(L, LUA_REGISTRYINDEX);
  c.L = L;
  /* a word runs through '.' and ':', so "gpu.ra" and "a:to" complete as one */
  static const char word_breaks[] = " \t\n\"\\'`@$><=;|&{(,+-*/%^#~[]";
  if (breaks) *breaks = word_breaks;
  if (completer_breaks) *completer_breaks = word_breaks;
  if (append) *append = '\0';   /* "gpu." goes on without a space */
  *(char **(**)(const char *, int, int))attempted_fn = attempt;
  return 1;
}

#define HISTORY_FILE ".gpuhost_history"

/* ---- the line editor: libedit, if it is there (main.c reads stdin plainly otherwise) ---- */

static struct {
  char *(*readline)(const char *);
  void (*add_history)(const char *);
  int (*read_history)(const char *);
  int (*write_history)(const char *);
  char *history;   /* ~/.gpuhost_history, malloc'd: a HOME of any length */
} edit;

/* A line into the history, and the history to its file at once: a session that ends by
 * os.exit or Ctrl-C keeps it too */
void edit_remember(const char *line) {
  if (!edit.readline || line[0] == '\0') return;
  edit.add_history(line);
  if (edit.write_history && edit.history) edit.write_history(edit.history);
}

/* libedit reads multibyte characters by the locale's LC_CTYPE, and in the C locale
 * dropped every byte past ASCII ("héllo" came as "hllo"): the user's, else C.UTF-8.
 * LC_CTYPE only: Lua's lexer and number formats do not ask it; string.upper and %a do, and
 * in a UTF-8 locale C's classes of bytes past ASCII are the C locale's (a single-byte
 * locale, Latin-1 say, would make them letters at the prompt, not in a script). */
static void edit_locale(void) {
  const char *set = setlocale(LC_CTYPE, "");
  if (set == NULL || strcmp(set, "C") == 0 || strcmp(set, "POSIX") == 0) setlocale(LC_CTYPE, "C.UTF-8");
}

void edit_open(lua_State *L) {
  if (!isatty(0)) return;   /* piped input is read as it is */
  const char *names[] = {"libedit.so.2", "libedit.so.0", "libedit.so", NULL};
  void *lib = NULL;
  for (int i = 0; names[i] && lib == NULL; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) return;
  *(void **)&edit.readline = dlsym(lib, "readline");
  *(void **)&edit.add_history = dlsym(lib, "add_history");
  *(void **)&edit.read_history = dlsym(lib, "read_history");
  *(void **)&edit.write_history = dlsym(lib, "write_history");
  if (edit.readline == NULL || edit.add_history == NULL) { edit.readline = NULL; return; }
  edit_locale();
  complete_open(L, lib);
  const char *home = getenv("HOME");
  size_t size = home ? strlen(home) + sizeof HISTORY_FILE + 1 : 0;
  if (home && edit.read_history && (edit.history = malloc(size)) != NULL) {
    snprintf(edit.history, size, "%s/%s", home, HISTORY_FILE);
    edit.read_history(edit.history);
  }
}

int edit_active(void) { return edit.readline != NULL; }
char *edit_readline(const char *prompt) { return edit.readline(prompt); }

void edit_close(void) {
  if (edit.write_history && edit.history) edit.write_history(edit.history);
  free(edit.history);
  edit.history = NULL;
}
