/* loader.c: loading Lua code the way gpuhost reads it. A chunk is first loaded as plain
 * Lua; only if that is a syntax error is the launch spelling rewritten (rewrite.c) and the
 * chunk loaded again, so valid Lua is never touched. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lauxlib.h"
#include "lualib.h"
#include "rewrite.h"

/* Whether the list under the text on top (of {chunk, text}) has an entry of that text. */
static int kept_already(lua_State *L) {
  lua_Integer n = (lua_Integer)lua_rawlen(L, -2);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -2, i);
    lua_rawgeti(L, -1, 2);
    int same = lua_rawequal(L, -1, -3);
    lua_pop(L, 2);
    if (same) return 1;
  }
  return 0;
}

/* [-0, +0, m] Keeps the text of a chunk as it was loaded (a file's, the prompt's, -e's,
 * stdin's), for gpu.jit to read the source of a function defined there and gpu.kernel the
 * line of its source (lua/gpu.lua's chunk_text): a file read again may have changed since,
 * or be a FIFO. In the registry table "gpuhost.sources", under the id of the chunk's _ENV
 * upvalue (which every function of the chunk that reads a global shares), and as {chunk,
 * text} in the list of every chunk of that name, where a function that reads no global
 * finds the chunk whose code holds its own (the name alone cannot tell two -e chunks
 * apart). A file loaded again with the same text is kept once (a dofile in a loop): its
 * functions are found by their code. The loaded chunk is on top. */
static void keep_source(lua_State *L, const char *text, size_t len, const char *chunkname) {
  if (chunkname == NULL || (chunkname[0] != '=' && chunkname[0] != '@')) return;
  luaL_getsubtable(L, LUA_REGISTRYINDEX, "gpuhost.sources");
  luaL_getsubtable(L, -1, chunkname);
  lua_pushlstring(L, text, len);
  if (chunkname[0] == '@' && kept_already(L)) {
    lua_pop(L, 3);
    return;
  }
  void *env = lua_upvalueid(L, -4, 1);
  if (env != NULL) {
    lua_pushlightuserdata(L, env);
    lua_pushvalue(L, -2);
    lua_rawset(L, -5);
  }
  lua_createtable(L, 2, 0);
  lua_pushvalue(L, -5);   /* the chunk */
  lua_rawseti(L, -2, 1);
  lua_pushvalue(L, -2);   /* its text */
  lua_rawseti(L, -2, 2);
  lua_rawseti(L, -3, (lua_Integer)lua_rawlen(L, -3) + 1);
  lua_pop(L, 3);
}

/* A lua_Reader that gives one byte a call: how many the parser took says where it stopped
 * (given is n + 1 once it asked past the end). */
typedef struct { const char *s; size_t n, given; } Bytes;

static const char *one_byte(lua_State *L, void *ud, size_t *size) {
  Bytes *b = ud;
  (void)L;
  if (b->given >= b->n) { b->given = b->n + 1; *size = 0; return NULL; }
  *size = 1;
  return b->s + b->given++;
}

static int is_brace(const size_t *braces, size_t nbraces, size_t at) {
  for (size_t k = 0; k < nbraces; k++)
    if (braces[k] == at) return 1;
  return 0;
}

static int ends_with(const char *s, const char *end) {
  size_t n = strlen(s), e = strlen(end);
  return n >= e && strcmp(s + n - e, end) == 0;
}

/* [-1, +1, m] The rewritten chunk s failed with the syntax error on top: where the error
 * is about one of our braces (at `braces`), it says the user's bracket instead. The token
 * it is near is the last one the lexer read, which ends a byte before the lexer stopped;
 * the '}' it expects closes the bracket open there. So `k[1, 2 3]` says "']' expected near
 * '3'", `t[1, 2 +]` "unexpected symbol near ']'", an unclosed `a[1, 2` "']' expected near
 * <eof>" (and continues at the prompt), as Lua says them of an index. */
static void user_brackets(lua_State *L, const char *s, size_t n, const char *chunkname,
                          const size_t *braces, size_t nbraces) {
  const char *msg = lua_tostring(L, -1);
  int near_close = ends_with(msg, " near '}'"), expects = strstr(msg, "'}' expected") != NULL;
  if (!near_close && !expects) return;
  Bytes b = {s, n, 0};
  lua_load(L, one_byte, &b, chunkname, "t");
  lua_pop(L, 1);
  size_t at = ends_with(msg, " near <eof>") ? n : b.given > n ? n - 1 : b.given >= 2 ? b.given - 2 : 0;
  if (near_close && at < n && s[at] == '}' && is_brace(braces, nbraces, at)) {
    lua_pushlstring(L, msg, strlen(msg) - 2);
    lua_pushliteral(L, "]'");
    lua_concat(L, 2);
    lua_replace(L, -2);
  }
  size_t open = launch_open_bracket(s, n, at);
  if (expects && open < n && s[open] == '{' && is_brace(braces, nbraces, open)) {
    luaL_gsub(L, lua_tostring(L, -1), "'}' expected", "']' expected");
    luaL_gsub(L, lua_tostring(L, -1), "(to close '{'", "(to close '['");
    lua_replace(L, -3);
    lua_pop(L, 1);
  }
}

int gpuhost_loadbuffer(lua_State *L, const char *buf, size_t len, const char *chunkname,
                       const char *mode) {
  int status = luaL_loadbufferx(L, buf, len, chunkname, mode);
  if (status == LUA_OK && (len == 0 || buf[0] != LUA_SIGNATURE[0]))
    keep_source(L, buf, len, chunkname);
  if (status != LUA_ERRSYNTAX || (len > 0 && buf[0] == LUA_SIGNATURE[0])) return status;
  size_t n, *braces, nbraces;
  char *rewritten = launch_rewrite_braces(buf, len, &n, &braces, &nbraces);
  if (rewritten == NULL) return status;
  lua_pop(L, 1);
  status = luaL_loadbufferx(L, rewritten, n, chunkname, mode);
  if (status == LUA_OK) keep_source(L, buf, len, chunkname);   /* the user's (gpu.jit reads a[i, j]; lines are kept) */
  else if (status == LUA_ERRSYNTAX && lua_type(L, -1) == LUA_TSTRING)
    user_brackets(L, rewritten, n, chunkname, braces, nbraces);   /* may raise: memory */
  free(rewritten);
  free(braces);
  return status;
}

int gpuhost_loadfile(lua_State *L, const char *filename, const char *mode) {
  FILE *f = filename ? fopen(filename, "rb") : stdin;
  if (f == NULL) {
    lua_pushfstring(L, "cannot open %s: %s", filename, strerror(errno));
    return LUA_ERRFILE;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char chunk[8192];
  size_t r;
  while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) luaL_addlstring(&b, chunk, r);
  int err = ferror(f) ? errno : 0;
  if (filename) fclose(f);
  luaL_pushresult(&b);
  if (err) {
    lua_pop(L, 1);
    lua_pushfstring(L, "cannot read %s: %s", filename ? filename : "stdin", strerror(err));
    return LUA_ERRFILE;
  }
  size_t len;
  const char *text = lua_tolstring(L, -1, &len);
  /* a UTF-8 byte order mark (an editor's) is skipped, as lua5.4 does; a first line starting
   * with '#' (#!/usr/bin/env gpuhost) is not Lua: it is skipped, keeping its newline */
  size_t skip = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  if (skip < len && text[skip] == '#') {
    while (skip < len && text[skip] != '\n') skip++;
    if (skip + 1 < len && text[skip + 1] == LUA_SIGNATURE[0]) skip++;   /* a binary chunk */
  }
  if (filename) lua_pushfstring(L, "@%s", filename);
  else lua_pushliteral(L, "=stdin");
  int status = gpuhost_loadbuffer(L, text + skip, len - skip, lua_tostring(L, -1), mode);
  lua_remove(L, -2);   /* chunk name */
  lua_remove(L, -2);   /* text */
  return status;
}

/* loadfile([filename [, mode [, env]]]) */
static int l_loadfile(lua_State *L) {
  const char *fname = luaL_optstring(L, 1, NULL);
  const char *mode = luaL_optstring(L, 2, NULL);
  int env = !lua_isnone(L, 3) ? 3 : 0;
  if (gpuhost_loadfile(L, fname, mode) != LUA_OK) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  if (env) {
    lua_pushvalue(L, env);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

static int dofile_cont(lua_State *L, int d1, lua_KContext d2) {
  (void)d1; (void)d2;
  return lua_gettop(L) - 1;
}

/* dofile([filename]) */
static int l_dofile(lua_State *L) {
  const char *fname = luaL_optstring(L, 1, NULL);
  lua_settop(L, 1);
  if (gpuhost_loadfile(L, fname, NULL) != LUA_OK) return lua_error(L);
  lua_callk(L, 0, LUA_MULTRET, 0, dofile_cont);
  return dofile_cont(L, 0, 0);
}

/* require's searcher for Lua files, as package.searchers[2] but with our loader; the
 * package table and package.searchpath it uses are its upvalues, as the stock searcher
 * holds its own (a script that sets `package` or `package.searchpath` to nil keeps require) */
static int l_searcher(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushstring(L, name);
  lua_getfield(L, lua_upvalueindex(1), "path");
  if (!lua_isstring(L, -1)) return luaL_error(L, "'package.path' must be a string");   /* a number is one */
  lua_call(L, 2, 2);
  if (lua_isnil(L, -2)) return 1;   /* the message of what was tried */
  const char *filename = lua_tostring(L, -2);
  if (gpuhost_loadfile(L, filename, NULL) != LUA_OK)
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, filename,
                      lua_tostring(L, -1));
  lua_pushstring(L, filename);
  return 2;
}

/* Lua's own loadfile, dofile and file searcher (package.searchers[2]) as S has them */
static void read_loaders(lua_State *S, lua_CFunction out[3]) {
  lua_getglobal(S, "loadfile");
  lua_getglobal(S, "dofile");
  lua_getglobal(S, LUA_LOADLIBNAME);
  lua_getfield(S, -1, "searchers");
  lua_rawgeti(S, -1, 2);
  out[0] = lua_tocfunction(S, -5), out[1] = lua_tocfunction(S, -4), out[2] = lua_tocfunction(S, -1);
  lua_pop(S, 5);
}

/* ... read from a state of their own: gpuhost takes the place of these and only these, so
 * that what a program embedding gpuhost put instead, or took away (a sandbox), stays */
static void stock_loaders(lua_State *L, lua_CFunction stock[3]) {
  lua_State *T = luaL_newstate();
  if (T == NULL) luaL_error(L, "not enough memory");
  luaL_requiref(T, "_G", luaopen_base, 1);
  luaL_requiref(T, LUA_LOADLIBNAME, luaopen_package, 1);
  read_loaders(T, stock);
  lua_close(T);
}

static void take_global(lua_State *L, const char *name, lua_CFunction stock, lua_CFunction f) {
  if (lua_getglobal(L, name) == LUA_TFUNCTION && lua_tocfunction(L, -1) == stock) {
    lua_pushcfunction(L, f);
    lua_setglobal(L, name);
  }
  lua_pop(L, 1);
}

void loader_open(lua_State *L, int own) {
  lua_CFunction stock[3];
  if (own) read_loaders(L, stock);   /* the program's state: the libraries it just opened */
  else stock_loaders(L, stock);
  take_global(L, "loadfile", stock[0], l_loadfile);
  take_global(L, "dofile", stock[1], l_dofile);
  if (lua_getglobal(L, "package") != LUA_TTABLE) {   /* a sandbox without require */
    lua_pop(L, 1);
    return;
  }
  if (lua_getfield(L, -1, "searchers") != LUA_TTABLE) {
    lua_pop(L, 2);
    return;
  }
  for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
    lua_CFunction f = lua_tocfunction(L, -1);
    lua_pop(L, 1);
    if (f != stock[2]) continue;
    lua_pushvalue(L, -2);
    lua_getfield(L, -1, "searchpath");
    lua_pushcclosure(L, l_searcher, 2);
    lua_rawseti(L, -2, i);
    lua_pushnil(L);   /* as where the loop ends */
    break;
  }
  lua_pop(L, 3);
}
