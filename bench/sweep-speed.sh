#!/usr/bin/env bash
# Speed of `ifsim sweep` (issue 8): one 16-point grid, 8 server counts x 2
# leaf oversubscriptions of DGX H100 servers on a 2-tier NDR fat-tree,
# (1:1 and 3:1), AllReduce and AllGather from 1 MiB to 256 MiB (factor 4),
# run
#   1. in one process (-j 1),
#   2. in two worker processes (-j 2),
#   3. as two MPI ranks (mpirun -np 2, when the build has MPI),
# printing the wall seconds of each, the speed-ups over -j 1, and whether
# the three CSVs are identical (they must be).
# usage: bench/sweep-speed.sh [BUILD]   (default build-bench, built here)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-bench}"
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
build_release ifsim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
write_h100 "$tmp/h100.ini" 2 2
grid=(-t "$tmp/h100.ini" --vary system.servers=2,4,6,8,10,12,14,16
      --vary scaleout.oversubscription=1,3 -c allreduce,allgather
      -b 1M -e 256M -f 4)
wall() { # wall LABEL CMD...: runs CMD, prints and returns its wall seconds
  local label=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" >/dev/null || { echo "$label: failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
j1=$(wall j1 "$build/ifsim" sweep "${grid[@]}" -j 1 -o "$tmp/j1.csv")
j2=$(wall j2 "$build/ifsim" sweep "${grid[@]}" -j 2 -o "$tmp/j2.csv")
printf '16 points, -j 1:            wall %6.2f s\n' "$j1"
printf '16 points, -j 2:            wall %6.2f s  (%.2fx)\n' "$j2" \
  "$(echo "$j1 / $j2" | bc -l)"
cmp -s "$tmp/j1.csv" "$tmp/j2.csv" && echo "-j 2 CSV identical to -j 1" ||
  echo "-j 2 CSV DIFFERS from -j 1"
if command -v mpirun >/dev/null &&
   "$build/ifsim" version | grep -qF "MPI sweeps (mpirun ... ifsim sweep): built"; then
  m2=$(wall mpi mpirun --oversubscribe --allow-run-as-root -np 2 \
    "$build/ifsim" sweep "${grid[@]}" -o "$tmp/m2.csv")
  printf '16 points, mpirun -np 2:    wall %6.2f s  (%.2fx)\n' "$m2" \
    "$(echo "$j1 / $m2" | bc -l)"
  cmp -s "$tmp/j1.csv" "$tmp/m2.csv" && echo "MPI CSV identical to -j 1" ||
    echo "MPI CSV DIFFERS from -j 1"
else
  echo "mpirun -np 2: skipped (no mpirun or no MPI in this build)"
fi
