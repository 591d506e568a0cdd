#!/bin/sh
# Runs the busted specs with build/gpuhost as the Lua interpreter, on the backend gpuhost
# picks here (GPU_BACKEND=cuda or cpu to choose): every spec runs on either, but for the few
# tagged #cuda or #cpu (meaningful on one backend only), #multi (two devices or more),
# #mpi (where mpirun is), #nodriver (only where no CUDA
# driver is installed), #stocklua (only where lua5.4 is), #rock (where luarocks is) and
# #seconduid (only as root, with setpriv), #libedit (where libedit and script(1) are) and
# #numpy (where python3 has numpy), #libzip (where libzip is). #alone specs run after the
# others, by themselves.
# Arguments: the spec files to run (every spec/*_spec.lua unless given). Writes
# build/test-summary ("passed failed skipped") for .ci/run.
# BUSTED_BUNDLE=DIR runs the busted copied by ../shared/tools/lua-test-bundle DIR instead of
# an installed one (the GPU machine has no Lua packages).
# (a relative BUSTED_BUNDLE is the caller's: made whole before the cd below)
case "${BUSTED_BUNDLE:-}" in ""|/*) ;; *) BUSTED_BUNDLE="$PWD/$BUSTED_BUNDLE" ;; esac
cd "$(dirname "$0")/.." || exit 1
host=build/gpuhost
# GPUHOST_TEST_JOBS (below): a whole number from 1, checked first (a word or 0 went to
# xargs, which said "invalid number" and ran nothing: every file "ended before its plan")
jobs=${GPUHOST_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in
  *[!0-9]*) jobs_ok=false ;;
  *) if [ "$jobs" -gt 0 ] 2>/dev/null; then jobs_ok=true; else jobs_ok=false; fi ;;
esac
if ! $jobs_ok; then
  echo "test: GPUHOST_TEST_JOBS is how many spec files run at once, a whole number from 1; got '$jobs'" >&2
  exit 2
fi
# busted runs as a script of build/gpuhost, as its --lua does, but with each argument kept
# whole (--lua joins them into one command line with spaces, so a spec path holding a space
# came apart)
if [ -n "${BUSTED_BUNDLE:-}" ]; then
  export LUA_PATH="$BUSTED_BUNDLE/share/?.lua;$BUSTED_BUNDLE/share/?/init.lua;;"
  export LUA_CPATH="$BUSTED_BUNDLE/lib/?.so;;"
  runner="$BUSTED_BUNDLE/bin/busted"
else
  runner=$(command -v busted) || { echo "test: no busted here (or BUSTED_BUNDLE=DIR)" >&2; exit 2; }
fi
busted() { "$host" "$runner" --ignore-lua "$@"; }

# the CPU backend offers two devices, so that the #multi specs run there too
export GPUHOST_CPU_DEVICES="${GPUHOST_CPU_DEVICES:-2}"
# the specs' kernels go to a cache of their own
export GPUHOST_CACHE_DIR="${GPUHOST_CACHE_DIR:-$PWD/build/spec-cache}"
backend=$("$host" -e 'io.write(gpu.backend())' 2>/dev/null)
export GPU_BACKEND="$backend"
if [ "$backend" = cuda ]; then exclude="cpu"; else exclude="cuda"; fi
if GPU_BACKEND=cuda "$host" -e 'local ok, e = pcall(gpu.device_count) os.exit(ok or e.name ~= "GPUHOST_NO_DRIVER")'; then
  exclude="$exclude,nodriver"
fi
if ! command -v lua5.4 >/dev/null 2>&1; then exclude="$exclude,stocklua"; fi
# #multi needs two devices; #mpi needs Open MPI's mpirun
if ! "$host" -e 'os.exit(gpu.device_count() >= 2)' 2>/dev/null; then exclude="$exclude,multi"; fi
# (on a GPU, one process a device: two devices or more)
if ! command -v mpirun >/dev/null 2>&1 ||
   { [ "$backend" = cuda ] && ! "$host" -e 'os.exit(gpu.device_count() >= 2)' 2>/dev/null; }; then
  exclude="$exclude,mpi"
fi
if ! command -v luarocks >/dev/null 2>&1 || ! command -v lua5.4 >/dev/null 2>&1; then exclude="$exclude,rock"; fi
if ! python3 -c 'import numpy' >/dev/null 2>&1; then exclude="$exclude,numpy"; fi
# #libzip: .npz files (libzip4, which deps.sh installs)
if ! ldconfig -p 2>/dev/null | grep -q 'libzip\.so\.[45]'; then exclude="$exclude,libzip"; fi
if ! command -v script >/dev/null 2>&1 || ! ldconfig -p 2>/dev/null | grep -q 'libedit\.so'; then exclude="$exclude,libedit"; fi
# #seconduid specs act as a second user (uid 65534, by setpriv): only as root, with setpriv,
# and where that user can run build/gpuhost
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1 ||
   ! setpriv --reuid=65534 --regid=65534 --clear-groups "$host" -e '' >/dev/null 2>&1; then
  exclude="$exclude,seconduid"
  echo "test: no second user here (needs root, setpriv, and a gpuhost uid 65534 can run): skipping #seconduid"
fi
# GPUHOST_SPEC_EXCLUDE=tag,...: more to leave out (scripts/sanitize.sh: stocklua)
if [ -n "${GPUHOST_SPEC_EXCLUDE:-}" ]; then exclude="$exclude,$GPUHOST_SPEC_EXCLUDE"; fi
[ "$#" -gt 0 ] || set -- spec/*_spec.lua
# (counted beside the runs: listing loads every spec file, half a minute on 2 cores)
mkdir -p build && busted --list --tags="$exclude" "$@" 2>/dev/null | grep -c . > build/test-skipped &
listing=$!
echo "test: the $backend backend; skipping the specs tagged for others ($exclude)"

# The spec files run GPUHOST_TEST_JOBS at a time (the machine's cores unless set), one busted
# a file: most of a run on a fresh clone is the CPU backend's compiler, one process a kernel,
# which a single busted waits for in turn. Each file's TAP output ("ok N - name" or "not ok N -
# name" with the error after it, then the plan "1..N") goes to build/test-logs/, with the
# seconds it took; they are counted, not scraped from a terminal report.
logs=build/test-logs
rm -rf "$logs" build/test-log && mkdir -p "$logs" || exit 1
export GPUHOST_TEST_HOST="$host" GPUHOST_TEST_LOGS="$logs" GPUHOST_TEST_RUNNER="$runner"
# one busted: a log name, then the spec files, each one argument (a path may hold spaces)
# (GPUHOST_TEST_EXCLUDE, GPUHOST_TEST_ONLY: tags)
one='name=$1 start=$(date +%s)
  shift
  if [ -n "${GPUHOST_TEST_ONLY:-}" ]; then set -- --tags="$GPUHOST_TEST_ONLY" "$@"; fi
  set -- --exclude-tags="$GPUHOST_TEST_EXCLUDE" -o TAP "$@"
  "$GPUHOST_TEST_HOST" "$GPUHOST_TEST_RUNNER" --ignore-lua "$@" > "$GPUHOST_TEST_LOGS/$name.tap" 2>&1
  echo $(($(date +%s) - start)) > "$GPUHOST_TEST_LOGS/$name.seconds"'
# the files with the most specs first, so that no long one starts last; then, alone, the
# specs tagged #alone (they measure the whole device's memory, which the others would move).
# A name and a path go to xargs each ended by a NUL, so that a space in a path stays in it.
for f in "$@"; do echo "$(grep -c '^ *it(' "$f") $f"; done | sort -rn |
  while read -r _ f; do printf '%s\0%s\0' "$(basename "$f" .lua)" "$f"; done |
  GPUHOST_TEST_EXCLUDE="$exclude,alone" xargs -0 -P "$jobs" -n 2 sh -c "$one" sh
GPUHOST_TEST_EXCLUDE="$exclude" GPUHOST_TEST_ONLY=alone sh -c "$one" sh alone "$@"
for f in "$@" alone; do
  name=$(basename "$f" .lua)
  [ -f "$logs/$name.tap" ] || : > "$logs/$name.tap"
  echo "# $f ($(cat "$logs/$name.seconds" 2>/dev/null) s)" && cat "$logs/$name.tap"
  ran=$(grep -c '^ok \|^not ok ' "$logs/$name.tap")
  planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$logs/$name.tap" | tail -n 1)
  # a file whose run died before its plan, or ran fewer specs than it planned, failed
  if [ -z "$planned" ] || [ "$ran" -ne "$planned" ]; then echo "test: $f ended before its plan"; fi
done | tee build/test-log
passed=$(grep -c '^ok ' build/test-log)
failed=$(($(grep -c '^not ok ' build/test-log) + $(grep -c '^test: .* ended before its plan$' build/test-log)))
wait "$listing"
skipped=$(cat build/test-skipped)
echo "$passed $failed $skipped" > build/test-summary
echo "test: $passed passed, $failed failed, $skipped skipped (tagged $exclude) on the $backend backend"
[ "$failed" -eq 0 ]
