#!/usr/bin/env bash
# Speed of `ifsim faults --criticality switches` (issue 27): every network
# switch of DGX H100 rail-optimized 2-tier NDR fat-trees taken down alone,
# 1 GiB AllReduce (NCCL's choice), for 32 servers (one SuperPOD scalable
# unit, 256 GPUs: target under a minute of CPU) and 64, 128 and 256
# servers, to show how it scales.  Prints, per fabric: switches, the CPU
# seconds, peak RSS and wall seconds of the report; the CPU seconds of one
# `ifsim run` of the same collective (the baseline it is measured against:
# the mean of 10 runs, as one is near the clock's 10 ms resolution), and
# the report's CPU per scenario over it (the report runs the baseline and
# one scenario per switch, each loading the system again, so about 1).
# For 128 servers also -j (one worker per core): its CPU and wall seconds
# and the wall-time speed-up, and whether the report is the same.
# usage: bench/faults.sh [BUILD]   (default build-bench, built here)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-bench}"
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
build_release ifsim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# measure OUT CMD...: runs CMD under /usr/bin/time; OUT gets "cpu rss wall"
measure() {
  local out=$1
  shift
  /usr/bin/time -f '%U %S %M %e' -o "$tmp/t" "$@" >"$tmp/stdout"
  awk '{ printf "%.2f %d %.2f\n", $1 + $2, $3, $4 }' "$tmp/t" >"$out"
}
printf '%8s %6s %9s %10s %9s %10s %14s\n' servers GPUs switches \
  'report_s' 'RSS_MiB' 'one_run_s' 'per_scenario'
for s in 32 64 128 256; do
  write_h100 "$tmp/f.ini" "$s" 2
  measure "$tmp/one" bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do
    "$0" run -t "$1" -b 1G -e 1G >/dev/null; done' "$build/ifsim" "$tmp/f.ini"
  measure "$tmp/rep" "$build/ifsim" faults -t "$tmp/f.ini" -b 1G -e 1G \
    --criticality switches --top 3
  n=$(sed -n 's/^# criticality: \([0-9]*\) switches.*/\1/p' "$tmp/stdout")
  read -r rc rr rw <"$tmp/rep"
  read -r oc _ _ <"$tmp/one"
  oc=$(echo "$oc / 10" | bc -l)
  printf '%8s %6s %9s %10.2f %9.1f %10.3f %13.2fx   (wall %.2f s)\n' "$s" \
    $((s * 8)) "$n" "$rc" "$(echo "$rr / 1024" | bc -l)" "$oc" \
    "$(echo "$rc / ($n + 1) / $oc" | bc -l)" "$rw"
  if [ "$s" = 32 ]; then
    sed -n '1,9p' "$tmp/stdout"
  fi
  # -j: the same report from worker processes, one per core
  if [ "$s" = 128 ] && [ "$(nproc)" -gt 1 ]; then
    cp "$tmp/stdout" "$tmp/j1"
    measure "$tmp/par" "$build/ifsim" faults -t "$tmp/f.ini" -b 1G -e 1G \
      --criticality switches --top 3 -j "$(nproc)"
    read -r pc _ pw <"$tmp/par"
    same=differs
    cmp -s "$tmp/stdout" "$tmp/j1" && same="the same report"
    printf '%8s   -j %s: CPU %.2f s, wall %.2f s against %.2f: %.2fx (%s)\n' \
      "$s" "$(nproc)" "$pc" "$pw" "$rw" "$(echo "$rw / $pw" | bc -l)" "$same"
  fi
done
