#!/bin/sh
# check_layout.sh: the rules of the source layout (README, "Building"), checked on the
# objects `make` built, so they stay true:
#   1. the backends (host/cuda/, host/cpu/) and what they share (backend.c, util.c,
#      results.c, cache.c, embed.c) reference no lua_* / luaL_* symbol;
#   2. no Lua-facing object references a symbol that only a backend defines (they go
#      through the table that backend_get() returns); backend.c alone names the tables;
#   3. no source file in host/ is over 500 lines, no function over 60.
cd "$(dirname "$0")/.." || exit 1
fail=0
say() { echo "check_layout: $*" >&2; fail=1; }

obj() { for c in "$@"; do printf 'build/obj/%s.o ' "$(echo "$c" | sed 's|^host/||; s|\.c$||')"; done; }
backend_objs=$(obj host/cuda/*.c host/cpu/*.c)
shared_objs=$(obj host/backend.c host/util.c host/results.c host/cache.c host/embed.c)
lua_objs=""
for o in $(obj host/*.c); do
  case " $shared_objs " in *" $o "*) ;; *) lua_objs="$lua_objs $o" ;; esac
done

for o in $backend_objs $shared_objs; do
  syms=$(nm -u "$o" | awk '{print $2}' | grep -E '^luaL?_' | tr '\n' ' ')
  [ -n "$syms" ] && say "$o uses the Lua API: $syms"
done

# symbols the backends define (their table entries included), minus what util.h shares
defined=$(nm -g --defined-only $backend_objs | awk 'NF == 3 {print $3}' | sort -u)
for o in $lua_objs; do
  for s in $(nm -u "$o" | awk '{print $2}'); do
    if echo "$defined" | grep -qx "$s"; then say "$o references the backend's $s"; fi
  done
done
for o in $lua_objs $shared_objs; do
  [ "$o" = build/obj/backend.o ] && continue
  nm -u "$o" | grep -qwE 'cuda_backend|cpu_backend' && say "$o names a backend table"
done

for f in host/*.c host/*.h host/*/*.c host/*/*.h; do
  n=$(wc -l < "$f")
  [ "$n" -gt 500 ] && say "$f has $n lines (at most 500)"
done
# a function runs from a column-0 line ending in ") {" to the next column-0 "}"
awk '
  FNR == 1 { infn = 0; pend = 0 }
  /^[A-Za-z_].*\)[ ]*\{[ ]*$/ { start = FNR; infn = 1; next }
  /^[A-Za-z_].*[,(][ ]*$/ && !infn { pend = FNR; next }
  pend && /^[ ].*\)[ ]*\{[ ]*$/ && !infn { start = pend; infn = 1; pend = 0; next }
  infn && /^\}/ { n = FNR - start + 1; if (n > 60) printf "%s:%d: a function of %d lines (at most 60)\n", FILENAME, start, n; infn = 0 }
' host/*.c host/*/*.c > build/long-functions
if [ -s build/long-functions ]; then say "$(cat build/long-functions)"; fi

[ "$fail" -eq 0 ] && echo "check_layout: the backends know nothing of Lua; files and functions are short"
exit "$fail"
