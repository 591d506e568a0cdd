/* graph.c: graphs ("gpu.graph"): gpu.graph(f, ...) runs f once while the backend records
 * what it queues for the device (CUDA stream capture; a recording on the CPU backend),
 * and gives a graph that g:launch() replays with one call. g:update(f, ...) records again
 * and updates the graph in place when the work has the same shape. Every array the
 * recorded work uses (arrays made inside, arrays passed to launches and copies) is kept
 * by the graph, and pinned: it cannot be freed while the graph lives. So is what owns the
 * code of each recorded launch (a kernel, an operation, a fused function, a reduction):
 * collecting it would unload the module the replay runs. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "gpu.h"

#define GPU_GRAPH_T "gpu.graph"
#define GPU_GRAPH_GUARD_T "gpu.graph.recording"

typedef struct GpuGraph {
  CUgraph graph;              /* the last recording */
  CUgraphExec exec;           /* what launches run; NULL once freed */
  int alive;
  int device;                 /* the device it was recorded on, which launches it */
} GpuGraph;

int graph_capturing;
static const char KEEP_KEY = 0;   /* registry: the set of arrays the capture uses */
static int live;              /* graphs not yet freed: programs unload after the last */
/* The capture's first refusal: a pcall inside f may catch it, and the graph would leave
 * out what was refused, so gpu.graph raises it at the end */
static char refused[400];

int graph_live(void) { return live; }

void graph_refusal(const char *message) {
  if (graph_capturing && !refused[0]) snprintf(refused, sizeof refused, "%s", message);
}

int graph_refuse(lua_State *L, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *why = lua_pushvfstring(L, fmt, ap);   /* (kept on the stack while raising) */
  va_end(ap);
  /* the error object every refusal raises (GPUHOST_NOT_CAPTURABLE), at the script's line */
  return errors_raise(L, (GpuResult){GPU_ERR_NOT_CAPTURABLE, GPU_SRC_HOST, "gpu.graph", why, NULL}, NULL);
}

/* Whether the array at idx is one the capture under way keeps and no graph else: 2 when
 * it and every live view of it are (or, an owner no graph pins, its views are: its memory
 * can go with the graph), 1 when it is but a view of it lives elsewhere, else 0 */
int graph_kept_only_here(lua_State *L, int idx) {
  GpuArray *a = array_test(L, idx);
  if (!graph_capturing || a == NULL || a->pins > 1) return 0;
  idx = lua_absindex(L, idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEEP_KEY) != LUA_TTABLE) { lua_pop(L, 1); return 0; }
  lua_pushvalue(L, idx);
  int self = lua_rawget(L, -2) != LUA_TNIL, views = 0;
  lua_pop(L, 1);
  if (a->pins == 1 && !self) { lua_pop(L, 1); return 0; }
  if (a->nviews > 0) {   /* (a view another graph pins too is not counted: it is that one's) */
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pop(L, 1);
      GpuArray *v = array_test(L, -1);
      if (v && v->owner == a && v->pins == 1) views++;
    }
  }
  lua_pop(L, 1);
  return (self || views > 0) && views == a->nviews ? 2 : self;
}

#define tograph(L, i) ((GpuGraph *)luaL_checkudata(L, i, GPU_GRAPH_T))

static GpuGraph *graph_check(lua_State *L, int idx) {
  GpuGraph *g = tograph(L, idx);
  if (!g->alive) luaL_error(L, "attempt to use a freed graph");
  return g;
}

void graph_keep(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEEP_KEY) != LUA_TTABLE) { lua_pop(L, 1); return; }
  lua_pushvalue(L, idx);
  if (lua_rawget(L, -2) == LUA_TNIL) {
    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, -4);
    GpuArray *a = array_test(L, idx);
    if (a) a->pins++;
  }
  lua_pop(L, 2);
}

/* [-1, +0, -] Unpins every array of the set on top, and pops it. */
static void unpin(lua_State *L) {
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pop(L, 1);
      GpuArray *a = array_test(L, -1);
      if (a) array_unpin(L, a);
    }
  }
  lua_pop(L, 1);
}

/* [-0, +0, -] Ends the capture under way; *graph is its graph, or NULL when it failed */
static GpuResult capture_stop(lua_State *L, CUgraph *graph) {
  graph_capturing = 0;
  lua_pushnil(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &KEEP_KEY);
  *graph = NULL;
  GpuResult r = backend_get()->capture_end(graph), sr = stream_end_capture();
  if (sr.code) errors_warn(L, sr, "destroying a stream");
  return r;
}

/* __close of the guard record leaves under f: lua_close closes it (os.exit(c, true) in f)
 * before it runs the finalizers, which would be recorded into a capture that never ends.
 * The recording is abandoned then; otherwise it has ended already. */
static int record_abandon(lua_State *L) {
  if (!graph_capturing) return 0;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &KEEP_KEY);   /* the set, unpinned */
  CUgraph graph;
  capture_stop(L, &graph);
  if (graph) backend_get()->graph_destroy(graph, NULL);
  unpin(L);
  return 0;
}

/* [-0, +1, e] Records f (at idx, with its arguments above it) into a graph; pushes the set
 * of arrays it uses. On failure, the capture is ended and cleaned up, and the error goes
 * on. */
static CUgraph record(lua_State *L, int idx) {
  const GpuBackend *be = backend_get();
  if (graph_capturing) graph_refuse(L, "gpu.graph cannot be nested: a graph is being recorded");
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &KEEP_KEY);
  lua_insert(L, idx);           /* the set, under f */
  lua_newtable(L);              /* the guard, between them */
  luaL_setmetatable(L, GPU_GRAPH_GUARD_T);
  lua_insert(L, idx + 1);
  lua_toclose(L, idx + 1);
  GPU_CHECK(L, be->capture_begin());
  graph_capturing = 1;
  refused[0] = '\0';
  int status = lua_pcall(L, lua_gettop(L) - idx - 2, 0, 0);
  CUgraph graph;
  GpuResult r = capture_stop(L, &graph);
  if (status == LUA_OK && r.code == 0 && refused[0]) {
    static char why[sizeof refused + 120];
    snprintf(why, sizeof why, "the recording ended at an error that f caught (the graph would "
             "leave out what it refused): %s", refused);
    r = (GpuResult){GPU_ERR_NOT_CAPTURABLE, GPU_SRC_HOST, "gpu.graph", why, NULL};
  }
  if (status != LUA_OK || r.code) {
    if (graph) be->graph_destroy(graph, NULL);
    if (status != LUA_OK) {     /* the error, with the set under it unpinned */
      lua_pushvalue(L, idx);
      unpin(L);
      lua_error(L);
    }
    lua_pushvalue(L, idx);
    unpin(L);
    errors_raise(L, r, NULL);
  }
  lua_settop(L, idx);           /* the set (the guard closed: a no-op now) */
  return graph;
}

/* gpu.graph(f, ...): records f(...) and gives the graph to replay it */
static int gpu_graph(lua_State *L) {
  errors_callable(L, 1, NULL);
  GPU_CHECK(L, backend_get()->ensure_context());
  GpuGraph *g = lua_newuserdatauv(L, sizeof *g, 1);   /* the set of arrays it keeps */
  memset(g, 0, sizeof *g);
  luaL_setmetatable(L, GPU_GRAPH_T);
  lua_insert(L, 1);
  g->device = backend_get()->current_device();
  g->graph = record(L, 2);
  lua_setiuservalue(L, 1, 1);
  g->alive = 1;
  live++;
  GpuResult r = backend_get()->graph_instantiate(&g->exec, g->graph);
  if (r.code) { g->exec = NULL; errors_raise(L, r, NULL); }
  lua_settop(L, 1);
  return 1;
}

/* g:launch([stream]): runs the recorded work again, queued like a launch */
static int graph_launch(lua_State *L) {
  GpuGraph *g = graph_check(L, 1);
  if (lua_gettop(L) > 2)   /* (extra arguments were dropped) */
    return luaL_error(L, "g:launch takes a stream or nothing, got %d argument%s", lua_gettop(L) - 1, lua_gettop(L) == 2 ? "" : "s");
  int dev = backend_get()->current_device();
  if (dev != g->device)
    luaL_error(L, "a graph recorded on device %d, and device %d is current: launch it with its "
               "device current (gpu.with_device(%d, f))", g->device, dev, g->device);
  int sdev = lua_isnoneornil(L, 2) ? g->device : stream_device(L, 2);
  if (sdev != g->device)
    luaL_error(L, "g:launch: the stream is of device %d, and the graph of device %d: launch it on "
               "a stream of device %d", sdev, g->device, g->device);
  CUstream s = lua_isnoneornil(L, 2) ? NULL : stream_here(L, 2);
  GPU_CHECK(L, backend_get()->graph_launch(g->exec, s));
  lua_settop(L, 1);
  return 1;
}

/* g:update(f, ...): records f(...) anew; when the work has the same shape (the same
 * kernels and copies in the same order) the graph takes its parameters in place and this
 * returns true; otherwise the graph is rebuilt from the new recording (false) */
static int graph_update(lua_State *L) {
  GpuGraph *g = graph_check(L, 1);
  errors_callable(L, 2, NULL);
  const GpuBackend *be = backend_get();
  if (be->current_device() != g->device)
    luaL_error(L, "a graph recorded on device %d, and device %d is current: update it with its "
               "device current (gpu.with_device(%d, f))", g->device, be->current_device(), g->device);
  CUgraph graph = record(L, 2);           /* the new set at 2 */
  if (!g->alive) {                         /* f freed it */
    be->graph_destroy(graph, NULL);
    unpin(L);
    luaL_error(L, "attempt to use a freed graph (freed while g:update recorded)");
  }
  int updated = 0;
  GpuResult r = be->graph_update(g->exec, graph, &updated);
  CUgraphExec exec = NULL;
  if (r.code == 0 && !updated) r = be->graph_instantiate(&exec, graph);
  if (r.code) {
    be->graph_destroy(graph, NULL);
    unpin(L);
    errors_raise(L, r, NULL);
  }
  if (!updated) { be->graph_destroy(NULL, g->exec); g->exec = exec; }
  be->graph_destroy(g->graph, NULL);
  g->graph = graph;
  lua_getiuservalue(L, 1, 1);              /* the old set goes, the new one stays */
  unpin(L);
  lua_setiuservalue(L, 1, 1);
  lua_pushboolean(L, updated);
  return 1;
}

/* The one release path; idempotent. */
static GpuResult graph_release(lua_State *L, GpuGraph *g) {
  GpuResult r = GPU_OK;
  if (g->alive) {
    r = backend_get()->graph_destroy(g->graph, g->exec);
    lua_getiuservalue(L, 1, 1);
    unpin(L);
    lua_pushnil(L);               /* what it kept may go now (g:free() frees now) */
    lua_setiuservalue(L, 1, 1);
    if (--live == 0) program_graphs_gone(L);
  }
  g->graph = NULL;
  g->exec = NULL;
  g->alive = 0;
  return r;
}

static int graph_gc(lua_State *L) {
  GpuResult r = graph_release(L, tograph(L, 1));
  if (r.code) errors_warn(L, r, "destroying a graph");
  return 0;
}

/* g:free() and __close raise what __gc can only warn of */
static int graph_free(lua_State *L) {
  GPU_CHECK(L, graph_release(L, tograph(L, 1)));
  return 0;
}

/* g:free(), which takes no argument (__close is given the error) */
static int graph_free_method(lua_State *L) {
  errors_args(L, 1, "g:free");
  return graph_free(L);
}

/* gpu.capturing(): true while gpu.graph records */
static int gpu_capturing(lua_State *L) {
  errors_args(L, 0, "gpu.capturing");
  lua_pushboolean(L, graph_capturing);
  return 1;
}

static int graph_tostring(lua_State *L) {
  GpuGraph *g = tograph(L, 1);
  lua_pushstring(L, g->alive ? "gpu.graph" : "gpu.graph (freed)");
  return 1;
}

static const luaL_Reg graph_funcs[] = {
  {"graph", gpu_graph},
  {"capturing", gpu_capturing},
  {NULL, NULL}
};

static const luaL_Reg graph_methods[] = {
  {"launch", graph_launch},
  {"update", graph_update},
  {"free", graph_free_method},
  {NULL, NULL}
};

static const luaL_Reg graph_meta[] = {
  {"__gc", graph_gc},
  {"__close", graph_free},
  {"__tostring", graph_tostring},
  {NULL, NULL}
};

/* Expects the gpu table on top. */
void graph_open(lua_State *L) {
  luaL_setfuncs(L, graph_funcs, 0);
  luaL_newmetatable(L, GPU_GRAPH_GUARD_T);
  lua_pushcfunction(L, record_abandon);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
  luaL_newmetatable(L, GPU_GRAPH_T);
  luaL_setfuncs(L, graph_meta, 0);
  luaL_newlib(L, graph_methods);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "methods");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}
