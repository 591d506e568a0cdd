#!/bin/sh
# gcstress.sh: every spec with the collector never resting, in busted's process and in
# every gpuhost a spec starts (LUA_INIT_5_4, which gpuhost reads before LUA_INIT and
# busted's Lua 5.1 launcher does not), as luv's CI runs its suite: a collection can then
# come at any allocation, so a C function that uses a Lua value it did not keep on the
# stack, or a finalizer that runs too early, shows. gpuhost otherwise collects
# generationally; here it is incremental with a pause of 0 (a new cycle as soon as one
# ends) and a step multiplier of 1000. Writes build/test-summary as test.sh does.
cd "$(dirname "$0")/.." || exit 1
export LUA_INIT_5_4='collectgarbage("generational"); collectgarbage("incremental", 0, 1000)'
sh scripts/test.sh
