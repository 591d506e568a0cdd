/* luac.c: a build tool. Compiles a Lua file to bytecode with the Lua that gpuhost links
 * (liblua5.4.a), so the bytecode gpuhost embeds always matches the Lua that loads it:
 *   build/luac in.lua out.luac
 * Debug information is stripped: it would double the time the bytecode takes to load. */
#include <stdio.h>
#include "lauxlib.h"
#include "lua.h"

static int writer(lua_State *L, const void *p, size_t n, void *f) {
  (void)L;
  return fwrite(p, 1, n, f) != n;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s in.lua out.luac\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (L == NULL || luaL_loadfile(L, argv[1]) != LUA_OK) {
    fprintf(stderr, "%s\n", L ? lua_tostring(L, -1) : "out of memory");
    return 1;
  }
  FILE *f = fopen(argv[2], "wb");
  if (f == NULL || lua_dump(L, writer, f, 1) != 0 || fclose(f) != 0) {
    perror(argv[2]);
    return 1;
  }
  lua_close(L);
  return 0;
}
