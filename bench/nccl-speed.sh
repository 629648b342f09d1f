#!/usr/bin/env bash
# Speed of `ifsim run` (collective planner + flow transport), the figures
# issue 7 names:
#   1. the full default sweep: AllReduce 8 B - 8 GiB, factor 2, on one
#      8-GPU H100 server (target: under 1 s);
#   2. one 1 GiB AllReduce on 4096 GPUs: 512 DGX H100 on a rail-optimized
#      NDR fat-tree (3 tiers of 64-port Quantum-2), NCCL's own choice and
#      Ring forced (target: under 30 s and 4 GiB);
#   3. AllToAll, whose every rank sends to every other on every channel
#      (n^2 x 16 concurrent transfers): 1 MiB on 64 GPUs of the 2-tier
#      SuperPOD example and 16 MiB on the 128 GPUs of the RoCE example
#      (once 278 s and over 30 s: no more than a few seconds).
# usage: bench/nccl-speed.sh [BUILD]   (default build-bench, built here)
# Prints wall seconds and peak RSS of each (GNU time).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-bench}"
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
build_release ifsim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
write_h100x512 "$tmp/h100x512.ini"
measure() { # measure LABEL ARGS...
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$build/ifsim" run "$@" >"$tmp/out"
  read -r wall rss <"$tmp/t"
  printf '%-44s wall %7.2f s  peak RSS %7.1f MiB  %s\n' "$label" "$wall" \
    "$(echo "$rss / 1024" | bc -l)" \
    "$(grep -E '^ +[0-9]' "$tmp/out" | tail -1 | awk '{printf "last size %s B: %s us, busbw %s GB/s", $1, $6, $8}')"
}
echo "# ifsim $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?'); $(nproc) cores; $(date -u +%FT%TZ)"
measure "8xH100 AllReduce 8B-8G sweep (31 sizes)" 
measure "4096 GPUs AllReduce 1 GiB (NCCL's choice)" -t "$tmp/h100x512.ini" -b 1G -e 1G
measure "4096 GPUs AllReduce 1 GiB (Ring)" -t "$tmp/h100x512.ini" -b 1G -e 1G --algo ring
measure "64 GPUs AllToAll 1 MiB (2-tier SuperPOD)" -c alltoall \
  -t "$root/topologies/examples/dgx-h100-superpod.ini" -g 64 -b 1M -e 1M
measure "128 GPUs AllToAll 16 MiB (RoCE example)" -c alltoall \
  -t "$root/topologies/examples/roce-400g-fattree.ini" -b 16M -e 16M
