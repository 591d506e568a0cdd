/* check.c: what gpuhost leaves alone of a program that embeds it (spec/embed_spec.lua):
 * its fault handlers, its own module searcher and the globals its sandbox took away; and
 * what it refuses clearly: a state without the libraries it needs, a misaligned buffer,
 * a malformed GPU_BACKEND. Prints "embed_check: ok" or what went wrong; exit status 0 or 1. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "gpuhost.h"

static volatile sig_atomic_t mine_ran;
static void mine(int sig) { (void)sig; mine_ran = 1; }

static int fail(const char *what, lua_State *L) {
  printf("embed_check: %s%s%s\n", what, L ? ": " : "", L && lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
  return 1;
}

/* The program's searcher first (as `table.insert(package.searchers, 2, f)` puts it), and a
 * sandbox without dofile and loadfile; gpuhost_open after. */
static const char *BEFORE =
  "table.insert(package.searchers, 2, function(name)\n"
  "  if name == 'builtin.config' then return function() return {answer = 42} end, ':memory:' end\n"
  "  return '\\n\\tno builtin module ' .. name\n"
  "end)\n"
  "dofile, loadfile = nil, nil\n";

/* ... all still there; require still reads the launch spelling from a file; an array
 * operation starts the CPU backend's workers (which catch a kernel's faults) */
static const char *AFTER =
  "assert(dofile == nil and loadfile == nil, 'dofile and loadfile came back')\n"
  "assert(#package.searchers == 5, 'searchers: ' .. #package.searchers)\n"
  "assert(require('builtin.config').answer == 42, 'the program\\'s searcher')\n"
  "local dir = os.tmpname()\n"
  "os.remove(dir)\n"
  "assert(os.execute('mkdir ' .. dir))\n"
  "local f = assert(io.open(dir .. '/spelled.lua', 'w'))\n"
  "f:write('local function launch(k, a) return k[1, 32](a) end\\nreturn \"spelled\"\\n')\n"
  "f:close()\n"
  "package.path = dir .. '/?.lua'\n"
  "local ok, v = pcall(require, 'spelled')\n"
  "os.remove(dir .. '/spelled.lua')\n"
  "os.remove(dir)\n"
  "assert(ok and v == 'spelled', 'require of the launch spelling: ' .. tostring(v))\n"
  "assert((gpu.arange(8) * 2):sum() == 56)\n";

static int open_bare(lua_State *L) {
  luaL_requiref(L, "_G", luaopen_base, 1);
  return gpuhost_open(L);
}

/* a buffer one byte past a float's alignment: refused before gpuhost touches it */
static int push_odd(lua_State *L) {
  int64_t shape[1] = {2};
  gpuhost_push_array(L, (gpuhost_deviceptr)0x10001, "float32", 1, shape, NULL, NULL, NULL);
  return 1;
}

/* gpuhost_open in a sandbox (run below): one value pushed, what lay below left as it was */
static int open_in_sandbox(lua_State *L) {
  lua_pushliteral(L, "below");
  int top = lua_gettop(L);
  gpuhost_open(L);
  if (lua_gettop(L) != top + 1 || !lua_istable(L, -1) || !lua_isstring(L, top))
    return luaL_error(L, "gpuhost_open left %d values, wanted %d", lua_gettop(L), top + 1);
  return 0;
}

int main(void) {
  signal(SIGSEGV, mine);
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  if (luaL_dostring(L, BEFORE) != LUA_OK) return fail("the program's setup", L);
  gpuhost_open(L);
  lua_pop(L, 1);
  if (luaL_dostring(L, AFTER) != LUA_OK) return fail("after gpuhost_open", L);
  raise(SIGSEGV);   /* a fault of the program's, not a kernel's: its handler has it */
  if (!mine_ran) return fail("the program's SIGSEGV handler did not run", NULL);

  lua_pushcfunction(L, push_odd);
  if (lua_pcall(L, 0, 1, 0) == LUA_OK || !strstr(lua_tostring(L, -1), "is not aligned to a float32's 4 bytes"))
    return fail("a misaligned buffer", L);
  lua_pop(L, 1);
  lua_State *B = luaL_newstate();   /* only the base library: gpuhost_open says what is missing */
  lua_pushcfunction(B, open_bare);
  if (lua_pcall(B, 0, 1, 0) == LUA_OK || !strstr(lua_tostring(B, -1), "standard libraries") ||
      !strstr(lua_tostring(B, -1), "'string' is missing"))
    return fail("a state without the standard libraries", B);
  lua_close(B);
  B = luaL_newstate();   /* a sandbox without io, coroutine, utf8, package: arrays still work */
  luaL_openlibs(B);
  if (luaL_dostring(B, "io, coroutine, utf8, package = nil, nil, nil, nil") != LUA_OK) return fail("sandbox", B);
  lua_pushcfunction(B, open_in_sandbox);
  if (lua_pcall(B, 0, 0, 0) != LUA_OK || luaL_dostring(B, "assert((gpu.arange(8) * 2):sum() == 56)") != LUA_OK)
    return fail("gpuhost_open in a sandbox", B);
  lua_close(B);
  const char *was = getenv("GPU_BACKEND");
  setenv("GPU_BACKEND", "bogus", 1);
  const char *b = gpuhost_backend();
  if (was) setenv("GPU_BACKEND", was, 1);
  else unsetenv("GPU_BACKEND");
  if (b != NULL) return fail("gpuhost_backend() with GPU_BACKEND=bogus is not NULL", NULL);
  lua_close(L);
  printf("embed_check: ok\n");
  return 0;
}
