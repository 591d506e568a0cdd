/* complete.c: Tab completion at gpuhost's prompt, through libedit's readline interface
 * (opened by main.c with dlopen). What to offer is decided in Lua, by the embedded
 * lua/complete.lua, which reads the running state's globals and fields without calling
 * anything; this file only hands its list to libedit. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
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

int complete_open(lua_State *L, void *libedit) {
  const EmbeddedFile *f = embedded_find("lua/complete.lua");
  *(void **)&c.completion_matches = dlsym(libedit, "rl_completion_matches");
  void **attempted_fn = dlsym(libedit, "rl_attempted_completion_function");
  const char **breaks = dlsym(libedit, "rl_basic_word_break_characters");
  const char **completer_breaks = dlsym(libedit, "rl_completer_word_break_characters");
  int *append = dlsym(libedit, "rl_completion_append_character");
  if (!f || !c.completion_matches || !attempted_fn) return 0;
  if (luaL_loadbuffer(L, f->data, f->size, "=[gpu] lua/complete.lua") != LUA_OK ||
      lua_pcall(L, 0, 1, 0) != LUA_OK) {
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
