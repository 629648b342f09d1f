#!/bin/sh
# check_includes.sh on small trees of its own: a clean one passes, and each
# kind of back-edge is reported with its file and line and fails the check.
# Usage: self_test.sh PATH/TO/check_includes.sh
set -u
check=${1:?usage: self_test.sh CHECK_INCLUDES}
fails=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# tree NAME: a tree whose every layer includes the one below it
tree() {
  d=$work/$1
  prev=""
  for l in sim models topologies collectives traces validate tools; do
    mkdir -p "$d/$l"
    if [ -n "$prev" ]; then
      printf '#include <glib.h>\n\n#include "%s/a.h"\n' "$prev" >"$d/$l/a.c"
    else
      printf '#include "sim/a.h"\n' >"$d/$l/a.c"
    fi
    : >"$d/$l/a.h"
    prev=$l
  done
}

# expect NAME STATUS PATTERN: the check of tree NAME exits STATUS and says
# PATTERN (fixed string).
expect() {
  out=$(sh "$check" "$work/$1" 2>&1)
  st=$?
  if [ "$st" -ne "$2" ] || ! printf '%s\n' "$out" | grep -qF -- "$3"; then
    echo "FAIL: tree $1: exit $st (expected $2), output:"
    printf '%s\n' "$out"
    fails=$((fails + 1))
  else
    echo "ok: tree $1 -> $st: $3"
  fi
}

tree clean
expect clean 0 "every include follows the layer order"

tree up
printf '#include "sim/a.h"\n#include "models/registry.h"\n' >"$work/up/sim/b.c"
expect up 1 "sim/b.c:2: #include \"models/registry.h\": sim/ may not include models/"

tree far
printf '/* x */\n  #  include "tools/cli.h"\n' >"$work/far/collectives/x.h"
expect far 1 "collectives/x.h:2: #include \"tools/cli.h\": collectives/ may not include tools/"

tree cuda
printf '#include "traces/a.h"\n' >"$work/cuda/validate/k.cu"
printf '#include "validate/k.h"\n' >"$work/cuda/traces/t.c"
expect cuda 1 "traces/t.c:1: #include \"validate/k.h\": traces/ may not include validate/"

tree bare
printf '#include "resources.h"\n' >"$work/bare/models/r.c"
expect bare 1 "models/r.c:1: #include \"resources.h\" names no layer"

tree stray
printf '#include "tests/suites.h"\n' >"$work/stray/tools/t.c"
expect stray 1 "tools/t.c:1: #include \"tests/suites.h\" names no layer"

mkdir -p "$work/empty"
expect empty 2 "no source files"

if [ "$fails" -gt 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "all passed"
