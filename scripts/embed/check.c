/* check.c: what gpuhost leaves alone of a program that embeds it (spec/embed_spec.lua):
 * its fault handlers (for its own faults on any thread, while another thread's kernel
 * runs too), its threads' alternate signal stacks, its own module searcher and the
 * globals its sandbox took away; and
 * what it refuses clearly: a state without the libraries it needs, a misaligned buffer,
 * a write into a lent buffer with a stride of 0, a package.loaded.gpu of its own,
 * a malformed GPU_BACKEND. Prints "embed_check: ok" or what went wrong; exit status 0 or 1. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "gpuhost.h"

/* the program's handler of SIGSEGV and SIGFPE: a real fault it recovers from jumps back */
static sigjmp_buf recover;
static volatile sig_atomic_t mine_ran, recovering;
static void mine(int sig) {
  (void)sig;
  mine_ran = 1;
  if (recovering) {
    recovering = 0;
    siglongjmp(recover, 1);
  }
}

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

static int open_it(lua_State *L) { return gpuhost_open(L); }

/* package.loaded.gpu already the program's: gpuhost_open names the clash (it opened
 * nothing, and arrays could not be lent after); opened again, the same module */
static int clash_check(void) {
  lua_State *B = luaL_newstate();
  luaL_openlibs(B);
  if (luaL_dostring(B, "package.loaded.gpu = {mine = true}") != LUA_OK) return fail("setup", B);
  lua_pushcfunction(B, open_it);
  if (lua_pcall(B, 0, 1, 0) == LUA_OK || !strstr(lua_tostring(B, -1), "package.loaded.gpu already holds a table"))
    return fail("gpuhost_open over package.loaded.gpu of the program's", B);
  lua_settop(B, 0);
  if (luaL_dostring(B, "package.loaded.gpu = nil") != LUA_OK) return fail("setup", B);
  for (int i = 0; i < 2; i++) {
    lua_pushcfunction(B, open_it);
    if (lua_pcall(B, 0, 1, 0) != LUA_OK) return fail("gpuhost_open, then again", B);
  }
  if (!lua_rawequal(B, 1, 2) ||
      luaL_dostring(B, "assert(gpu == package.loaded.gpu and gpu.zeros(2):sum() == 0)") != LUA_OK)
    return fail("gpuhost_open, then again", B);
  lua_close(B);
  return 0;
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

/* A kernel that holds the thread launching it until the program lets it go (flag[1]);
 * flag[0] says it runs. The CPU backend's memory is the program's: flag is lent. */
static int flag[2];
static const char *HOLD =
  "hold = gpu.kernel([[extern \"C\" __global__ void hold(gpu::array<int> f) {\n"
  "  volatile int *p = f.data; p[0] = 1; while (p[1] == 0) {} }]])\n";
static int launched, kept_stack;
static volatile int ended;
static char own_stack[64 * 1024];
/* ... launched on a thread with an alternate signal stack of its own, still its own after */
static void *launch_held(void *L) {
  stack_t ss = {.ss_sp = own_stack, .ss_size = sizeof own_stack, .ss_flags = 0}, was, now;
  sigaltstack(&ss, &was);
  launched = luaL_dostring(L, "hold[{1, 1}](flag) gpu.synchronize()") == LUA_OK;
  if (!launched) printf("embed_check: the held launch: %s\n", lua_tostring(L, -1));
  kept_stack = sigaltstack(NULL, &now) == 0 && now.ss_sp == own_stack && now.ss_size == sizeof own_stack;
  sigaltstack(&was, NULL);   /* the one the thread had (the sanitizers' frees it at the thread's end) */
  ended = 1;
  return NULL;
}

static volatile int seven = 7, zero = 0, quotient;
__attribute__((no_sanitize("integer-divide-by-zero"))) static void divide(void) { quotient = seven / zero; }

/* A fault of the program's own (SIGSEGV: a read of page; SIGFPE: a division by zero):
 * whether its handler had it */
static int own_fault(int sig, const char *page) {
  mine_ran = 0;
  recovering = 1;
  if (sigsetjmp(recover, 1) == 0) {
    if (sig == SIGSEGV) (void)*(const volatile char *)page;
    else divide();
  }
  recovering = 0;
  return mine_ran;
}

/* This thread launched before; another launches now, and while its kernel runs this
 * thread faults (the CPU backend took such faults for that kernel's). CPU backend only. */
static int threads_check(lua_State *L) {
  if (strcmp(gpuhost_backend(), "cpu") != 0) return 0;
  int64_t shape[1] = {2};
  gpuhost_push_array(L, (gpuhost_deviceptr)flag, "int32", 1, shape, NULL, NULL, NULL);
  lua_setglobal(L, "flag");
  if (luaL_dostring(L, HOLD) != LUA_OK) return fail("compiling the held kernel", L);
  char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  pthread_t t;
  alarm(30);   /* a fault taken for the kernel's may leave either thread stuck */
  if (page == MAP_FAILED || pthread_create(&t, NULL, launch_held, L) != 0)
    return fail("mmap or pthread_create", NULL);
  while (((volatile int *)flag)[0] == 0 && !ended) usleep(1000);
  int segv = own_fault(SIGSEGV, page), fpe = own_fault(SIGFPE, page);
  ((volatile int *)flag)[1] = 1;
  pthread_join(t, NULL);
  alarm(0);
  munmap(page, 4096);
  if (!segv || !fpe)
    return fail(!segv ? "the program's SIGSEGV handler did not run while another thread's kernel ran"
                      : "the program's SIGFPE handler did not run while another thread's kernel ran", NULL);
  if (!launched) return fail("the other thread's launch failed", NULL);
  if (!kept_stack) return fail("a launch took the thread's alternate signal stack", NULL);
  return 0;
}

/* A lent buffer with a stride of 0 is an expanded view, as gpu.broadcast_to's: one element
 * seen four times. Nothing writes into it, nor into a view of it (a row was written,
 * which set every element). CPU backend only (the buffer is the program's memory). */
static float repeated[4] = {7, 1, 2, 3};
static const char *EXPANDED =
  "local function refused(what, f)\n"
  "  local ok, err = pcall(f)\n"
  "  assert(not ok and tostring(err):find('expanded view (a stride of 0)', 1, true),\n"
  "         what .. (ok and ' was not refused' or ': ' .. tostring(err)))\n"
  "end\n"
  "local J = gpu.jit(function(x) local i = gpu.grid(1) if i <= #x then x[i] = i end end)\n"
  "refused('a:fill', function() bc:fill(9) end)\n"
  "refused('a[{i}] = v', function() bc[{2}] = 5 end)\n"
  "refused('a[{i}]:fill', function() bc[{2}]:fill(5) end)\n"
  "refused('a:copy_', function() bc[{{2, 2}}]:copy_({5}) end)\n"
  "refused('gpu.copyto', function() gpu.copyto(bc[{2}], 5) end)\n"
  "refused('out =', function() gpu.negative(gpu.ones(1, 'float32'), {out = bc[{{2, 2}}]}) end)\n"
  "refused('gpu.sum out =', function() gpu.sum(gpu.ones(3, 'float32'), {out = bc[{2}]}) end)\n"
  "refused('a kernel writing it', function() J[{1, 1}](bc[{{3, 3}}]) end)\n"
  "refused('a kernel writing a view of a view', function() J[{1, 1}](bc[{{2, 3}}][{{1, 1}}]) end)\n"
  "assert(bc:sum() == 28 and bc[{2}]:item() == 7, 'reading it')\n"
  "local w = bc[{{2, 2}}]:contiguous()\n"
  "w:fill(5)\n"
  "assert(w:item() == 5 and bc:sum() == 28, 'a contiguous copy')\n";

static int expanded_check(lua_State *L) {
  if (strcmp(gpuhost_backend(), "cpu") != 0) return 0;
  int64_t shape[1] = {4}, strides[1] = {0};
  gpuhost_push_array(L, (gpuhost_deviceptr)repeated, "float32", 1, shape, strides, NULL, NULL);
  lua_setglobal(L, "bc");
  if (luaL_dostring(L, EXPANDED) != LUA_OK) return fail("a lent buffer with a stride of 0", L);
  if (repeated[0] != 7) return fail("a lent buffer with a stride of 0 was written", NULL);
  return 0;
}

/* the alternate signal stack main had at the start (none, or the sanitizers'): the same */
static int same_stack(const stack_t *a) {
  stack_t now;
  return sigaltstack(NULL, &now) == 0 && now.ss_sp == a->ss_sp && now.ss_size == a->ss_size &&
         (now.ss_flags & SS_DISABLE) == (a->ss_flags & SS_DISABLE);
}

int main(void) {
  signal(SIGSEGV, mine);
  signal(SIGFPE, mine);
  stack_t at_start;
  sigaltstack(NULL, &at_start);
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  if (luaL_dostring(L, BEFORE) != LUA_OK) return fail("the program's setup", L);
  gpuhost_open(L);
  lua_pop(L, 1);
  if (luaL_dostring(L, AFTER) != LUA_OK) return fail("after gpuhost_open", L);
  if (!same_stack(&at_start)) return fail("a launch changed main's alternate signal stack", NULL);
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
  if (clash_check()) return 1;
  const char *was = getenv("GPU_BACKEND");
  setenv("GPU_BACKEND", "bogus", 1);
  const char *b = gpuhost_backend();
  if (was) setenv("GPU_BACKEND", was, 1);
  else unsetenv("GPU_BACKEND");
  if (b != NULL) return fail("gpuhost_backend() with GPU_BACKEND=bogus is not NULL", NULL);
  if (threads_check(L) || expanded_check(L)) return 1;
  lua_close(L);
  printf("embed_check: ok\n");
  return 0;
}
