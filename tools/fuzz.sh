#!/bin/sh
# Runs each libFuzzer harness of tests/fuzz for a bounded time, one after
# the other, and prints per harness: executions, exec/s, coverage (cov:
# edges, ft: features), corpus size and what it found (crashes, timeouts,
# out-of-memory).  docs/robustness.md, "Fuzzing", says how to build the
# harnesses and replay what this finds.
#
#   tools/fuzz.sh [SECONDS] [HARNESS...]     SECONDS per harness (600)
#
# Environment:
#   IFSIM_FUZZ_BUILD  the build folder (build-fuzz), configured with
#                     CC=clang cmake -DIFSIM_FUZZ=ON
#   IFSIM_FUZZ_WORK   scratch folder (${TMPDIR:-/tmp}/ifsim-fuzz): per harness
#                     corpus/ (new inputs; the seeds in tests/fuzz/corpus
#                     are read, never written), artifacts/ (crash-*,
#                     timeout-*, oom-*, leak-*) and log
#
# libFuzzer runs in fork mode with one job (-fork=1: the parent waits while
# one child fuzzes), so a crash, timeout or OOM is recorded and the run goes
# on for its whole time instead of stopping at the first.  Exit status: 0
# when nothing was found, 1 when some harness left an artifact, 2 on usage
# errors.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
[ $# -gt 0 ] && shift
build=${IFSIM_FUZZ_BUILD:-$root/build-fuzz}
work=${IFSIM_FUZZ_WORK:-${TMPDIR:-/tmp}/ifsim-fuzz}
all="topo_system models measure import_nccltests import_perftest import_p2p
     import_nvbw topo_import_smi topo_import_ncclxml topo_import_ibnet
     workload astra nccllog kineto chakra llm plan jobs plot"
harnesses=${*:-$all}

case $seconds in
  '' | *[!0-9]*)
    echo "usage: tools/fuzz.sh [SECONDS] [HARNESS...]" >&2
    exit 2 ;;
esac

# UBSan reports abort (the build has -fno-sanitize-recover); LSan is on,
# as in the ctest replays.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

found=0
printf '%-22s %8s %12s %8s %6s %6s %6s %s\n' harness seconds executions \
  exec/s cov ft corpus "crash/timeout/oom/leak"
for h in $harnesses; do
  bin=$build/tests/fuzz/fuzz_$h
  seeds=$root/tests/fuzz/corpus/$h
  if [ ! -x "$bin" ] || [ ! -d "$seeds" ]; then
    echo "tools/fuzz.sh: no harness $h ($bin, $seeds); build with" \
      "CC=clang cmake -S . -B build-fuzz -DIFSIM_FUZZ=ON" >&2
    exit 2
  fi
  # Limits: INI and measurement files are small, tool dumps larger (the
  # seeds reach 8 KiB).  Loading a system builds its fabric: a mutated
  # size can ask for a big one, hence the longer timeout there.
  case $h in
    topo_system | models | measure | llm | plan | jobs) max_len=4096 ;;
    *) max_len=16384 ;;
  esac
  case $h in
    topo_system | topo_import_*) timeout=30 ;;
    *) timeout=10 ;;
  esac
  dir=$work/$h
  mkdir -p "$dir/corpus" "$dir/artifacts"
  start=$(date +%s)
  "$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout" \
    -rss_limit_mb=2048 -artifact_prefix="$dir/artifacts/" \
    "$dir/corpus" "$seeds" >"$dir/log" 2>&1 || true
  took=$(($(date +%s) - start))
  # The last stats line of the fork-mode parent:
  # "#RUNS: cov: C ft: F corp: N exec/s E oom/timeout/crash: ..."
  stats=$(grep -E '^#[0-9]+: cov: ' "$dir/log" | tail -n 1)
  runs=$(printf '%s' "$stats" | sed -n 's/^#\([0-9]*\):.*/\1/p')
  cov=$(printf '%s' "$stats" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s' "$stats" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(printf '%s' "$stats" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  n() { find "$dir/artifacts" -name "$1-*" | wc -l | tr -d ' '; }
  crashes=$(n crash) timeouts=$(n timeout) ooms=$(n oom) leaks=$(n leak)
  rate=$(( ${runs:-0} / (took > 0 ? took : 1) ))
  printf '%-22s %8s %12s %8s %6s %6s %6s %s\n' "$h" "$took" "${runs:-?}" \
    "$rate" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
    "$crashes/$timeouts/$ooms/$leaks"
  if [ $((crashes + timeouts + ooms + leaks)) -gt 0 ]; then
    found=1
    echo "  artifacts in $dir/artifacts; log $dir/log" >&2
  fi
done
exit $found
