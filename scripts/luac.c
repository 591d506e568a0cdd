/* luac.c: a build tool. Compiles a Lua file to bytecode with the Lua that gpuhost links
 * (liblua5.4.a), so the bytecode gpuhost embeds always matches the Lua that loads it:
 *   build/luac in.lua out.luac             debug information stripped (lua/jit/: it
 *                                          would double the time the bytecode takes to load)
 *   build/luac -g chunkname in.lua out.luac  kept, under chunkname (what errors and
 *                                          tracebacks name: "=[gpu] lua/gpu.lua") */
#include <stdio.h>
#include <string.h>
#include "lauxlib.h"
#include "lua.h"

static int writer(lua_State *L, const void *p, size_t n, void *f) {
  (void)L;
  return fwrite(p, 1, n, f) != n;
}

int main(int argc, char **argv) {
  const char *chunkname = NULL;
  if (argc == 5 && strcmp(argv[1], "-g") == 0) {
    chunkname = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: %s [-g chunkname] in.lua out.luac\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  int r;
  if (chunkname) {   /* read it whole, to load it under its name */
    FILE *in = fopen(argv[1], "rb");
    luaL_Buffer b;
    char chunk[4096];
    size_t n;
    if (in == NULL) { perror(argv[1]); return 1; }
    luaL_buffinit(L, &b);
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0) luaL_addlstring(&b, chunk, n);
    fclose(in);
    luaL_pushresult(&b);
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    r = luaL_loadbuffer(L, text, len, chunkname);
  } else {
    r = luaL_loadfile(L, argv[1]);
  }
  if (r != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    return 1;
  }
  FILE *f = fopen(argv[2], "wb");
  if (f == NULL || lua_dump(L, writer, f, chunkname == NULL) != 0 || fclose(f) != 0) {
    perror(argv[2]);
    return 1;
  }
  lua_close(L);
  return 0;
}
