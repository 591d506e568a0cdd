/* complete.h: the prompt's line editor (complete.c): libedit's lines, history and Tab
 * completion, where libedit is installed and stdin is a terminal. */
#ifndef GPUHOST_COMPLETE_H
#define GPUHOST_COMPLETE_H
#include "lua.h"
/* Loads the completer (lua/complete.lua) into L's registry: before any of the user's code
 * runs, so that it holds the libraries' own functions. */
void complete_prepare(lua_State *L);
/* Makes libedit (a dlopen handle) complete names from L's globals with the completer
 * complete_prepare loaded; 0 when it cannot. */
int complete_open(lua_State *L, void *libedit);
/* Opens libedit for the prompt (its locale, completion from L, ~/.gpuhost_history) */
void edit_open(lua_State *L);
int edit_active(void);                    /* 1 when lines come through libedit */
char *edit_readline(const char *prompt);  /* a malloc'd line, NULL at end of input */
void edit_remember(const char *line);     /* into the history, written at once */
void edit_close(void);
#endif
