/* complete.h: Tab completion at the prompt (complete.c). */
#ifndef GPUHOST_COMPLETE_H
#define GPUHOST_COMPLETE_H
#include "lua.h"
/* Makes libedit (a dlopen handle) complete names from L's globals; 0 when it cannot. */
int complete_open(lua_State *L, void *libedit);
#endif
