#!/bin/sh
# sanitize.sh: builds the sanitizer variant (make asan: ASan + UBSan, in build/) and runs
# every spec under it on the CPU backend. Reports from any process (busted's, and the
# gpuhost children specs start) go to build/sanitizer/; one there fails the run. Writes
# build/test-summary as test.sh does. Leaves build/ sanitized: `make clean all` after.
#   ASAN_OPTIONS: the CPU backend catches its own guard-page faults (handle_segv=0,
#   allow_user_segv_handler=1); its fibers keep no fake stacks across switches
#   (detect_stack_use_after_return=0, GCC's default); memory the process keeps until exit
#   (the CPU backend's worker pool) is not a leak worth failing for (detect_leaks=0); a
#   malloc that fails returns NULL, as without ASan, so the specs of what gpuhost does when
#   host memory runs out (multi_spec, under ulimit -v) test that (allocator_may_return_null=1).
#   #stocklua specs are left out: stock lua5.4 cannot load an ASan-built gpu.so.
#   The specs' compile cache (build/spec-cache, which make asan's clean would remove) is
#   kept across the rebuild: its keys name the compiler, flags and embedded files, none of
#   which the sanitizer changes, so the kernels test.sh compiled are not compiled again
#   (in CI, most of its 30 minutes). Specs that compile on purpose use caches
#   of their own or none, so the compile path still runs under the sanitizers. It waits
#   beside build/ (a rename on the same file system, not a copy to /tmp) and comes back
#   however the script ends, a failed build or an interrupt too.
cd "$(dirname "$0")/.." || exit 1
kept=""
restore() {
  [ -n "$kept" ] || return 0
  if mkdir -p build && [ ! -e build/spec-cache ] && mv "$kept/spec-cache" build/; then rmdir "$kept"
  else echo "sanitize: the specs' compile cache stays in $kept" >&2; fi
  kept=""
}
if [ -d build/spec-cache ]; then
  kept=$(mktemp -d "$PWD/.spec-cache.XXXXXX") || kept=""
  if [ -n "$kept" ] && ! mv build/spec-cache "$kept/"; then rmdir "$kept"; kept=""; fi
fi
trap restore EXIT
trap 'exit 1' HUP INT TERM
make --no-print-directory asan >/dev/null || { echo "sanitize: make asan failed" >&2; exit 1; }
restore
reports="$PWD/build/sanitizer"
rm -rf "$reports" && mkdir -p "$reports"
export ASAN_OPTIONS="handle_segv=0:allow_user_segv_handler=1:detect_stack_use_after_return=0:detect_leaks=0:allocator_may_return_null=1:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
export GPU_BACKEND=cpu GPUHOST_SPEC_EXCLUDE=stocklua
sh scripts/test.sh
status=$?
read -r passed failed skipped < build/test-summary
if [ -n "$(ls -A "$reports")" ]; then
  echo "sanitize: reports in $reports:" >&2
  for f in "$reports"/*; do echo "== $f" >&2; cat "$f" >&2; done
  failed=$((failed + 1)); status=1
fi
echo "$passed $failed $skipped" > build/test-summary
echo "sanitize: $passed passed, $failed failed under ASan + UBSan"
exit "$status"
