/* graph.h: gpu.graph (graph.c), as the rest of the Lua side sees it: what a capture
 * keeps, what it refuses, and the arrays it dooms. Included by gpu.h after GpuArray. */
#ifndef GPUHOST_GRAPH_H
#define GPUHOST_GRAPH_H

void graph_open(lua_State *L);
/* graph.c: while gpu.graph records, every array the recorded work uses is kept (and
 * pinned) by the graph, and so is what owns each launched kernel's program: array_new,
 * launches and device copies call graph_keep. */
extern int graph_capturing;
void graph_keep(lua_State *L, int idx);   /* [-0, +0, m] the array (pinned) or the owner of launched code at idx */
/* What a capture cannot record raises through graph_refuse (a luaL_error that notes it)
 * or errors_raise (GPU_ERR_NOT_CAPTURABLE, noted by graph_refusal): a pcall inside the
 * recorded function may catch it, and gpu.graph then raises the first one at its end. */
int graph_refuse(lua_State *L, const char *fmt, ...);   /* [-0, +1, v] */
void graph_refusal(const char *message);
/* [-0, +0, m] whether the array at idx is pinned by the capture under way alone: a:free()
 * of it (a library function's temporary) dooms it instead (array.c), and the last graph
 * that lets go of a doomed array (array_unpin) releases it, as a collected one's */
int graph_kept_only_here(lua_State *L, int idx);
void array_unpin(lua_State *L, GpuArray *a);
int graph_live(void);   /* graphs not yet freed */

#endif
