#!/bin/sh
# The layer order, checked in the sources: every #include "..." in a
# layer's folder must name a file of that layer or of one below it,
#
#   sim < models < topologies < collectives < traces < validate < tools
#
# by its path from the repository root ("sim/engine.h"; generated headers
# too: "models/resources.h").  An include that names a higher layer, or no
# layer at all, is reported as FILE:LINE with the order, and the script
# exits 1.  Usage: check_includes.sh ROOT (the repository, or a copy).
# tests/layers/self_test.sh shows that it fails on a back-edge.
set -u
root=${1:?usage: check_includes.sh ROOT}
order="sim models topologies collectives traces validate tools"

rank() {
  i=0
  for l in $order; do
    [ "$l" = "$1" ] && { echo "$i"; return; }
    i=$((i + 1))
  done
  echo -1
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
bad=0
files=0
for layer in $order; do
  [ -d "$root/$layer" ] || continue
  mine=$(rank "$layer")
  # every C, header and CUDA file of the layer, in a stable order
  list=$(cd "$root" && find "$layer" -type f \( -name '*.c' -o -name '*.h' \
    -o -name '*.cu' -o -name '*.h.in' \) | LC_ALL=C sort)
  for f in $list; do
    files=$((files + 1))
    # "LINE TARGET" for each quoted include (spaces after # allowed)
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$root/$f" |
      sed 's/^\([0-9]*\):.*include[[:space:]]*"\([^"]*\)".*/\1 \2/' \
        >"$tmp" || true
    while read -r line target; do
      top=${target%%/*}
      theirs=$(rank "$top")
      if [ "$top" = "$target" ] || [ "$theirs" -lt 0 ]; then
        echo "$f:$line: #include \"$target\" names no layer (expected a path from the root: $order)"
        bad=$((bad + 1))
      elif [ "$theirs" -gt "$mine" ]; then
        echo "$f:$line: #include \"$target\": $layer/ may not include $top/ (layers: $order; each only those before it)"
        bad=$((bad + 1))
      fi
    done <"$tmp"
  done
done
if [ "$files" -eq 0 ]; then
  echo "check_includes: no source files under $root"
  exit 2
fi
if [ "$bad" -gt 0 ]; then
  echo "check_includes: $bad include(s) against the layer order in $files files"
  exit 1
fi
echo "check_includes: $files files, every include follows the layer order"
