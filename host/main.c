/* main.c: the gpuhost program: Lua 5.4 with the gpu module preloaded as a global, run as
 * `lua5.4` is (script and arg, -e, -l, -i, -v, -, LUA_INIT) and, on a terminal, an
 * interactive prompt with line editing (libedit, opened at run time), history,
 * multi-line statements and printed results. main only sets up a protected pmain. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#include "gpu.h"
#include "rewrite.h"
#include "complete.h"

#define PROGNAME "gpuhost"
#define VERSION "0.1"

static const char *progname = PROGNAME;
static lua_State *running;   /* the state a Ctrl-C interrupts */

/* ---- errors and protected calls ---- */

/* progname is NULL at the prompt, whose messages have no prefix (as lua.c's) */
static void print_message(const char *msg) {
  if (progname) fprintf(stderr, "%s: ", progname);
  fprintf(stderr, "%s\n", msg);
  fflush(stderr);
}

static int report(lua_State *L, int status) {
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    print_message(msg ? msg : "(error object is not a string)");
    lua_pop(L, 1);
  }
  return status;
}

static void interrupt_hook(lua_State *L, lua_Debug *ar);

/* SIGINT's handler, as lua.c sets it: without SA_RESTART, so that a Ctrl-C ends a blocking
 * read (io.read) at once rather than when a line comes (signal() restarts it). */
static void set_sigint(void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = 0;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
}

/* Message handler: honours __tostring on error objects and adds a traceback. A Ctrl-C
 * still pending is moot now that the chunk ends with this error. */
static int msghandler(lua_State *L) {
  if (lua_gethook(L) == interrupt_hook) lua_sethook(L, NULL, 0, 0);
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) msg = lua_tostring(L, -1);
    else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* Raises "interrupted!" at the chunk's next step; but not on the call of the message
 * handler of an error already under way, which would replace that error with this one
 * (the handler clears the hook), and not when a backend's wait has answered the Ctrl-C
 * with GPUHOST_INTERRUPTED already (it cleared backend_interrupted): one Ctrl-C, one error,
 * which a pcall catches. */
static void interrupt_hook(lua_State *L, lua_Debug *ar) {
  if (ar->event == LUA_HOOKCALL && lua_getinfo(L, "f", ar)) {
    int handler = lua_tocfunction(L, -1) == msghandler;
    lua_pop(L, 1);
    if (handler) return;
  }
  lua_sethook(L, NULL, 0, 0);
  if (backend_take_interrupt()) luaL_error(L, "interrupted!");
}

/* Ctrl-C while a chunk runs: stop it at its next instruction, not the program; a backend
 * waiting for the device (a synchronize, a CPU launch) sees backend_interrupted and gives
 * up the wait with GPUHOST_INTERRUPTED. */
static void on_sigint(int sig) {
  (void)sig;
  set_sigint(SIG_DFL);   /* a second Ctrl-C ends the program */
  backend_interrupted = 1;
  lua_sethook(running, interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

/* A write past the file size limit (`ulimit -f`) fails with EFBIG instead of ending the
 * program, in every thread (the driver's and the CPU backend's too): `f:write` returns
 * nil and "File too large", as in Python, which ignores the signal. A handler, not
 * SIG_IGN, so that the programs os.execute and io.popen start get the default again. */
static void on_sigxfsz(int sig) { (void)sig; }

static int docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  running = L;
  backend_interrupted = 0;   /* a Ctrl-C from before this chunk is not for it */
  set_sigint(on_sigint);
  int status = lua_pcall(L, narg, nres, base);
  set_sigint(SIG_DFL);
  /* a Ctrl-C that a backend's wait answered (GPUHOST_INTERRUPTED) may leave the hook set:
   * it is for this chunk, not the next prompt line */
  if (lua_gethook(L) == interrupt_hook) lua_sethook(L, NULL, 0, 0);
  lua_remove(L, base);
  return status;
}

static int dochunk(lua_State *L, int status) {
  if (status == LUA_OK) status = docall(L, 0, 0);
  return report(L, status);
}

static int dostring(lua_State *L, const char *s, const char *name) {
  return dochunk(L, gpuhost_loadbuffer(L, s, strlen(s), name, NULL));
}

/* -l mod or -l g=mod: require mod and set global g (default mod) */
static int dolibrary(lua_State *L, char *spec) {
  char *eq = strchr(spec, '=');
  const char *name = spec, *mod = spec;
  if (eq) { *eq = '\0'; mod = eq + 1; }
  lua_getglobal(L, "require");
  lua_pushstring(L, mod);
  int status = docall(L, 1, 1);
  if (status == LUA_OK) lua_setglobal(L, name);
  return report(L, status);
}

/* ---- command line ---- */

static void print_usage(const char *badoption) {
  if (badoption[1] == 'e' || badoption[1] == 'l')
    fprintf(stderr, "%s: '%s' needs argument\n", progname, badoption);
  else
    fprintf(stderr, "%s: unrecognized option '%s'\n", progname, badoption);
  fprintf(stderr,
          "usage: %s [options] [script [args]]\n"
          "Available options are:\n"
          "  -e stat   execute string 'stat'\n"
          "  -i        enter interactive mode after executing 'script'\n"
          "  -l mod    require library 'mod' into global 'mod'\n"
          "  -l g=mod  require library 'mod' into global 'g'\n"
          "  -v        show version information\n"
          "  -E        ignore environment variables\n"
          "  -W        turn warnings on\n"
          "  --cpu     run kernels on the CPU backend (GPU_BACKEND=cpu)\n"
          "  --        stop handling options\n"
          "  -         stop handling options and execute stdin\n",
          progname);
}

static void print_version(void) {
  printf("%s %s (%s) -- Lua scripting for CUDA GPUs; the gpu module is loaded as 'gpu'\n",
         PROGNAME, VERSION, LUA_RELEASE);
  fflush(stdout);
}

enum { HAS_ERROR = 1, HAS_I = 2, HAS_V = 4, HAS_E = 8, HAS_BIGE = 16 };

/* Scans options; returns the flags and sets *script to the index of the script (or 0). */
static int collect_args(char **argv, int *script) {
  int flags = 0, i;
  for (i = 1; argv[i] != NULL; i++) {
    *script = i;
    if (argv[i][0] != '-') return flags;
    switch (argv[i][1]) {
      case '-':
        if (argv[i][2] != '\0') return HAS_ERROR;
        *script = argv[i + 1] != NULL ? i + 1 : 0;
        return flags;
      case '\0': return flags;   /* '-' is the script: stdin */
      case 'E': if (argv[i][2]) return HAS_ERROR; flags |= HAS_BIGE; break;
      case 'W': if (argv[i][2]) return HAS_ERROR; break;
      case 'i': if (argv[i][2]) return HAS_ERROR; flags |= HAS_I | HAS_V; break;
      case 'v': if (argv[i][2]) return HAS_ERROR; flags |= HAS_V; break;
      case 'e':
        flags |= HAS_E;
        /* fallthrough */
      case 'l':
        if (argv[i][2] == '\0') {
          i++;
          if (argv[i] == NULL || argv[i][0] == '-') { *script = i - 1; return HAS_ERROR; }
        }
        break;
      default: *script = i; return HAS_ERROR;
    }
  }
  *script = 0;
  return flags;
}

/* Runs -e, -l and -W in order. */
static int run_args(lua_State *L, char **argv, int n) {
  for (int i = 1; i < n; i++) {
    char opt = argv[i][1];
    if (opt == 'W') { lua_warning(L, "@on", 0); continue; }
    if (opt != 'e' && opt != 'l') continue;
    char *extra = argv[i] + 2;
    if (*extra == '\0') extra = argv[++i];
    if ((opt == 'e' ? dostring(L, extra, "=(command line)") : dolibrary(L, extra)) != LUA_OK)
      return 0;
  }
  return 1;
}

/* arg[0] is the script, its arguments are positive and what came before it negative; with
 * no script, arg[0] is the program's name and the options are positive, as in lua5.4 */
static void create_arg_table(lua_State *L, char **argv, int argc, int script) {
  lua_createtable(L, argc - script - 1, script + 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

static int run_script(lua_State *L, char **argv, int script) {
  const char *fname = argv[script];
  if (strcmp(fname, "-") == 0 && strcmp(argv[script - 1], "--") != 0) fname = NULL;
  int status = gpuhost_loadfile(L, fname, NULL);
  if (status == LUA_OK && lua_getglobal(L, "arg") != LUA_TTABLE) {   /* -e 'arg = nil' */
    lua_pop(L, 2);
    lua_pushliteral(L, "'arg' is not a table");
    status = LUA_ERRRUN;
  } else if (status == LUA_OK) {   /* arg[1] .. arg[#arg], nils and __len as lua.c's */
    lua_Integer len = luaL_len(L, -1);
    int n = len < 0 ? 0 : len > INT_MAX - 3 ? INT_MAX - 3 : (int)len;
    luaL_checkstack(L, n + 3, "too many arguments to script");
    for (int i = 1; i <= n; i++) lua_rawgeti(L, -i, i);
    lua_remove(L, -1 - n);
    status = docall(L, n, LUA_MULTRET);
  }
  return report(L, status);
}

static int handle_luainit(lua_State *L) {
  const char *name = "=LUA_INIT_5_4";
  const char *init = getenv(name + 1);
  if (init == NULL) { name = "=LUA_INIT"; init = getenv(name + 1); }
  if (init == NULL) return LUA_OK;
  if (init[0] == '@') return dochunk(L, gpuhost_loadfile(L, init + 1, NULL));
  return dostring(L, init, name);
}

/* ---- the interactive prompt ---- */

static int prompt_string(lua_State *L) {
  luaL_tolstring(L, 1, NULL);
  return 1;
}

/* Pushes the prompt; it stays on the stack until the line is read. _PROMPT's __tostring
 * runs protected: one that fails is said, and the default prompt shown, so that a bad
 * _PROMPT cannot end the prompt. */
static const char *get_prompt(lua_State *L, int first) {
  const char *plain = first ? "> " : ">> ";
  if (lua_getglobal(L, first ? "_PROMPT" : "_PROMPT2") == LUA_TNIL) {
    lua_pop(L, 1);
    return lua_pushstring(L, plain);
  }
  lua_pushcfunction(L, prompt_string);
  lua_insert(L, -2);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK) return lua_tostring(L, -1);
  int error = lua_gettop(L);
  const char *why = lua_tostring(L, error);
  if (why == NULL) why = lua_pushfstring(L, "an error object that is a %s", luaL_typename(L, error));
  print_message(lua_pushfstring(L, "%s cannot be shown (%s)", first ? "_PROMPT" : "_PROMPT2", why));
  lua_settop(L, error - 1);
  return lua_pushstring(L, plain);
}

/* [-0, +(0|1), m] Reads a line of any length from stdin onto the stack, without its
 * newline; 0 (nothing pushed) at end of input. getline, not fgets: a zero byte in the line
 * is read as a byte (strlen after fgets took the line's rest for the next line's start).
 * Its buffer is kept for the next line, so a push that raises loses nothing. */
static int plain_line(lua_State *L) {
  static char *line;
  static size_t cap;
  ssize_t n = getline(&line, &cap, stdin);
  if (n < 0) return 0;
  if (n > 0 && line[n - 1] == '\n') n--;
  lua_pushlstring(L, line, (size_t)n);
  return 1;
}

/* Reads a line onto the stack (without its newline); 0 at end of input. */
static int read_line(lua_State *L, int first) {
  const char *prompt = get_prompt(L, first);
  if (!edit_active()) {
    fputs(prompt, stdout);
    fflush(stdout);
    lua_pop(L, 1);   /* prompt */
    return plain_line(L);
  }
  char *line = edit_readline(prompt);
  lua_pop(L, 1);   /* prompt */
  if (line == NULL) return 0;
  size_t len = strlen(line);
  if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
  lua_pushlstring(L, line, len);
  free(line);
  return 1;
}

/* Is the syntax error on top an unfinished statement (one that ended at <eof>)? */
static int incomplete(lua_State *L, int status) {
  if (status != LUA_ERRSYNTAX) return 0;
  size_t len;
  const char *msg = lua_tolstring(L, -1, &len);
  static const char mark[] = "<eof>";
  size_t ml = sizeof mark - 1;
  return len >= ml && strcmp(msg + len - ml, mark) == 0;
}

/* Tries the line on top as an expression: "return <line>" (by lengths: a zero byte in the
 * line is a byte of it, as on the statement path). */
static int try_expression(lua_State *L) {
  const char *line = lua_tostring(L, -1);
  lua_pushliteral(L, "return ");
  lua_pushvalue(L, -2);
  lua_pushliteral(L, ";");
  lua_concat(L, 3);
  size_t len;
  const char *retline = lua_tolstring(L, -1, &len);
  int status = gpuhost_loadbuffer(L, retline, len, "=stdin", NULL);
  if (status == LUA_OK) {
    lua_remove(L, -2);   /* the return line */
    edit_remember(line);
  } else {
    lua_pop(L, 2);       /* error and return line */
  }
  return status;
}

/* Loads the line on top as a statement, reading more lines while it is unfinished. */
static int multiline(lua_State *L) {
  for (;;) {
    size_t len;
    const char *code = lua_tolstring(L, 1, &len);
    int status = gpuhost_loadbuffer(L, code, len, "=stdin", NULL);
    if (!incomplete(L, status) || !read_line(L, 0)) {   /* at the end of input, its error */
      edit_remember(code);
      return status;
    }
    lua_remove(L, -2);   /* the syntax error: the statement goes on */
    lua_pushliteral(L, "\n");
    lua_insert(L, -2);
    lua_concat(L, 3);
  }
}

/* Reads and compiles one statement; -1 at end of input. Leaves the chunk on top. */
static int load_line(lua_State *L) {
  lua_settop(L, 0);
  if (!read_line(L, 1)) return -1;
  size_t len;
  const char *line = lua_tolstring(L, 1, &len);
  if (line[0] == '=') {   /* "=expr" is "return expr", on its next lines too */
    lua_pushliteral(L, "return ");
    lua_pushlstring(L, line + 1, len - 1);
    lua_concat(L, 2);
    lua_replace(L, 1);
  }
  int status = try_expression(L);
  if (status != LUA_OK) status = multiline(L);
  lua_remove(L, 1);
  return status;
}

static void print_results(lua_State *L) {
  int n = lua_gettop(L);
  if (n == 0) return;
  luaL_checkstack(L, LUA_MINSTACK, "too many results to print");
  lua_getglobal(L, "print");
  lua_insert(L, 1);
  if (lua_pcall(L, n, 0, 0) != LUA_OK)
    print_message(lua_pushfstring(L, "error calling 'print' (%s)", lua_tostring(L, -1)));
}

static void repl(lua_State *L) {
  const char *saved = progname;
  progname = NULL;
  edit_open(L);
  int status;
  while ((status = load_line(L)) != -1) {
    if (status == LUA_OK) status = docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK) print_results(L);
    else {
      const char *msg = lua_tostring(L, -1);
      fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
      fflush(stderr);
      lua_pop(L, 1);
    }
  }
  lua_settop(L, 0);
  fputc('\n', stdout);
  fflush(stdout);
  edit_close();
  progname = saved;
}

/* ---- main ---- */

static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = (char **)lua_touserdata(L, 2);
  int script = 0;
  int flags = collect_args(argv, &script);
  if (flags & HAS_ERROR) {
    print_usage(argv[script]);
    return 0;
  }
  if (flags & HAS_V) print_version();
  if (flags & HAS_BIGE) {
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
  }
  luaL_openlibs(L);
  luaL_requiref(L, "gpu", luaopen_gpu, 1);
  lua_pop(L, 1);
  loader_open(L, 1);
  complete_prepare(L);   /* before LUA_INIT, -e, -l and the script: the libraries' functions */
  create_arg_table(L, argv, argc, script);
  lua_gc(L, LUA_GCRESTART);
  lua_gc(L, LUA_GCGEN, 0, 0);
  if (!(flags & HAS_BIGE) && handle_luainit(L) != LUA_OK) return 0;
  if (!run_args(L, argv, script ? script : argc)) return 0;
  if (script > 0 && run_script(L, argv, script) != LUA_OK) return 0;
  if (flags & HAS_I) {
    repl(L);
  } else if (script == 0 && !(flags & (HAS_E | HAS_V))) {
    if (isatty(0)) {
      print_version();
      repl(L);
    } else if (dochunk(L, gpuhost_loadfile(L, NULL, NULL)) != LUA_OK) {
      return 0;
    }
  }
  lua_pushboolean(L, 1);
  return 1;
}

int main(int argc, char **argv) {
  if (argv[0] && argv[0][0]) progname = argv[0];
  /* --cpu, before the script, is GPU_BACKEND=cpu; it is taken out of the arguments (each
   * time it is given, as lua5.4 takes -W twice) */
  for (int i = 1; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--cpu") == 0) {
      setenv("GPU_BACKEND", "cpu", 1);
      memmove(&argv[i], &argv[i + 1], sizeof(char *) * (size_t)(argc - i));
      argc--;
      i--;
      continue;
    }
    if (strcmp(argv[i], "--") == 0 || strcmp(argv[i], "-") == 0) break;
    if ((argv[i][1] == 'e' || argv[i][1] == 'l') && argv[i][2] == '\0') i++;
  }
  struct sigaction xfsz;
  memset(&xfsz, 0, sizeof xfsz);
  xfsz.sa_handler = on_sigxfsz;
  xfsz.sa_flags = SA_RESTART;
  sigemptyset(&xfsz.sa_mask);
  sigaction(SIGXFSZ, &xfsz, NULL);
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    print_message("cannot create state: not enough memory");
    return EXIT_FAILURE;
  }
  lua_gc(L, LUA_GCSTOP);
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = lua_pcall(L, 2, 1, 0);
  int ok = lua_toboolean(L, -1);
  report(L, status);
  lua_close(L);
  return (ok && status == LUA_OK) ? EXIT_SUCCESS : EXIT_FAILURE;
}
