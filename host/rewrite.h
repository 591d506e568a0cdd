/* rewrite.h: the launch-spelling rewrite (rewrite.c) and the loaders that apply it
 * (loader.c). */
#ifndef GPUHOST_REWRITE_H
#define GPUHOST_REWRITE_H
#include <stddef.h>
#include "lua.h"

/* k[grid, block] -> k[{grid, block}]; NULL when nothing changes, else a malloc'd string. */
char *launch_rewrite(const char *src, size_t len, size_t *outlen);
/* The same, and where the braces went: *braces (malloc'd, *nbraces of them, ascending) holds
 * their positions in the result; both untouched when it is NULL. */
char *launch_rewrite_braces(const char *src, size_t len, size_t *outlen, size_t **braces,
                            size_t *nbraces);
/* The position of the innermost bracket ('(', '{' or '[') open at position upto of a
 * source (strings and comments skipped), or len when none is. */
size_t launch_open_bracket(const char *src, size_t len, size_t upto);

/* luaL_loadbufferx, reading the launch spelling where plain Lua fails to. */
int gpuhost_loadbuffer(lua_State *L, const char *buf, size_t len, const char *chunkname,
                       const char *mode);
/* The same for a file (NULL: stdin); a first line starting with '#' is skipped. */
int gpuhost_loadfile(lua_State *L, const char *filename, const char *mode);
/* Makes loadfile, dofile and require's Lua-file searcher read the launch spelling, where L
 * still has Lua's own; own: L's libraries were opened just now by the caller (the program),
 * else Lua's own are found in a state of their own (a program embedding gpuhost). */
void loader_open(lua_State *L, int own);
#endif
