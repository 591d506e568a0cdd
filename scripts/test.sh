#!/bin/sh
# Runs the busted specs with build/gpuhost as the Lua interpreter. Specs tagged #gpu need a
# GPU: without one they are skipped and counted; #nodriver runs only where no CUDA driver
# is installed; #stocklua only where lua5.4 is. Writes build/test-summary
# ("passed failed skipped") for .ci/run.
# BUSTED_BUNDLE=DIR runs the busted copied by ../shared/tools/lua-test-bundle DIR instead of
# an installed one (the GPU machine has no Lua packages).
cd "$(dirname "$0")/.." || exit 1
host=build/gpuhost
if [ -n "${BUSTED_BUNDLE:-}" ]; then
  export LUA_PATH="$BUSTED_BUNDLE/share/?.lua;$BUSTED_BUNDLE/share/?/init.lua;;"
  export LUA_CPATH="$BUSTED_BUNDLE/lib/?.so;;"
  busted() { "$host" "$BUSTED_BUNDLE/bin/busted" --ignore-lua "$@"; }
else
  busted() { command busted --lua="$host" "$@"; }
fi

# the specs' kernels go to a cache of their own
export GPUHOST_CACHE_DIR="${GPUHOST_CACHE_DIR:-$PWD/build/spec-cache}"
exclude=""
skipped=0
if "$host" -e 'local ok, n = pcall(gpu.device_count) os.exit(ok and n > 0)'; then
  echo "test: a GPU is here: running every spec"
  exclude="nodriver"
else
  skipped=$(busted --list --tags=gpu spec 2>/dev/null | grep -c .)
  echo "test: no GPU here: skipping the $skipped specs tagged #gpu"
  exclude="gpu"
  "$host" -e 'local ok, e = pcall(gpu.device_count) os.exit(not ok and e.name == "GPUHOST_NO_DRIVER")' \
    || exclude="$exclude,nodriver"
fi
if ! command -v lua5.4 >/dev/null 2>&1; then
  n=$(busted --list --tags=stocklua spec 2>/dev/null | grep -c .)
  echo "test: no lua5.4 here: skipping the $n specs tagged #stocklua"
  skipped=$((skipped + n))
  exclude="$exclude,stocklua"
fi

log=build/test-log
busted --exclude-tags="$exclude" -o utfTerminal spec 2>&1 | tee "$log"
status=$?
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^[0-9]+ successes? / [0-9]+ failures? / [0-9]+ errors?' | tail -n 1)
passed=$(echo "$summary" | sed -E 's/^([0-9]+) success.*/\1/')
failures=$(echo "$summary" | sed -E 's/.* ([0-9]+) failures?.*/\1/')
errors=$(echo "$summary" | sed -E 's/.* ([0-9]+) errors?.*/\1/')
if [ -z "$summary" ]; then passed=0; failures=0; errors=1; fi
echo "${passed:-0} $((${failures:-0} + ${errors:-0})) $skipped" > build/test-summary
echo "test: $passed passed, $((failures + errors)) failed, $skipped skipped for want of a GPU or lua5.4"
[ "$((failures + errors))" -eq 0 ] && [ -n "$summary" ]
