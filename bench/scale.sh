#!/usr/bin/env bash
# The scales of the performance issue (28), each run as by default (alike
# channels folded into one transfer of several copies, whole bodies for
# the edges nothing waits on, an AllToAll of 128 ranks or more in closed
# form: docs/transports.md) and with --no-fold, the baseline (every
# channel, round and pair), in one run of this script:
#   1. a 1 GiB AllReduce, NCCL's choice, on 4096 GPUs (512 DGX H100,
#      rail-optimized 3-tier NDR fat-tree);
#   2. the same on dgx-h100-32k (32,768 GPUs; target 20 s, 2 GiB);
#   3. the same on dgx-h100-128k (131,072 GPUs; target 90 s, 8 GiB): the
#      baseline is refused there (its memory estimate), which is printed;
#   4. a 1 MiB AllToAll on 4096 GPUs (target 60 s, 4 GiB): the baseline,
#      every pair at once, is refused (its memory estimate);
#   5. `ifsim replay` of a 70B-class step (80 layers, TP 8, PP 8, DP 16:
#      1,024 GPUs on 128 DGX H100; target 30 s).
# Prints, per run: CPU seconds (user + system), wall seconds, peak RSS, the
# predicted time, and the default run's CPU and memory as a fraction of
# the baseline's, and how far its predicted time is from the baseline's
# (folding is exact; whole bodies stay within 1.5%, the AllToAll's closed
# form within 1%).
# usage: bench/scale.sh [BUILD] [--quick]   (default build-bench, built here;
#        --quick: the 4096-GPU runs only)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-bench"
quick=0
for a in "$@"; do
  case $a in
  --quick) quick=1 ;;
  *) build=$a ;;
  esac
done
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
build_release ifsim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
write_h100x512 "$tmp/h100x512.ini"

# one TAG COMMAND ARGS...: runs ifsim COMMAND ARGS, leaving "cpu wall
# rss_MiB time_us" (or "refused" and the message) in $tmp/TAG: the time of
# the table's last size (run), or the step time (replay).
one() {
  local tag=$1
  shift
  if /usr/bin/time -f "%U %S %e %M" -o "$tmp/t" "$build/ifsim" "$@" \
    >"$tmp/out" 2>"$tmp/err"; then
    read -r u s e m <"$tmp/t"
    printf '%s %s %s %s\n' "$(echo "$u + $s" | bc -l)" "$e" \
      "$(echo "$m / 1024" | bc -l)" \
      "$({ grep -E '^ +[0-9]' "$tmp/out" | tail -1 | awk '{print $6}'
        awk '/step time/ {print $3}' "$tmp/out"; } | tail -1)" \
      >"$tmp/$tag"
  else
    printf 'refused %s\n' "$(tail -1 "$tmp/err")" >"$tmp/$tag"
  fi
}

row() { # row LABEL ARGS...
  local label=$1
  shift
  one fold "$@"
  one base "$@" --no-fold
  if grep -q '^refused' "$tmp/fold"; then
    printf '%-34s folded:   %s\n' "$label" "$(cut -d' ' -f2- "$tmp/fold")"
    printf '%-34s baseline: %s\n' "" "$(cut -d' ' -f2- "$tmp/base")"
    return
  fi
  read -r fc fw fm ft <"$tmp/fold"
  printf '%-34s folded:   CPU %7.2f s  wall %7.2f s  peak %8.1f MiB  %s us\n' \
    "$label" "$fc" "$fw" "$fm" "$ft"
  if grep -q '^refused' "$tmp/base"; then
    printf '%-34s baseline: %s\n' "" "$(cut -d' ' -f2- "$tmp/base")"
    return
  fi
  read -r bc bw bm bt <"$tmp/base"
  printf '%-34s baseline: CPU %7.2f s  wall %7.2f s  peak %8.1f MiB  %s us\n' \
    "" "$bc" "$bw" "$bm" "$bt"
  printf '%-34s folded/baseline: CPU %.3f, peak RSS %.3f; time %+.3f%%\n' "" \
    "$(echo "$fc / $bc" | bc -l)" "$(echo "$fm / $bm" | bc -l)" \
    "$(echo "($ft - $bt) * 100 / $bt" | bc -l)"
}

echo "# ifsim $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?'); $(nproc) cores; $(date -u +%FT%TZ)"
write_h100 "$tmp/h100x128.ini" 128 2
llm70b=params=70B,layers=80,hidden=8192,ffn=28672,mlp=swiglu,vocab=32000
llm70b=$llm70b,seq=4096,mbs=1,microbatches=8,tp=8,pp=8,dp=16,tflops=989
llm70b=$llm70b,mfu=0.45,optimizer_us=2000,bucket=25M

row "4096 GPUs AllReduce 1 GiB" run -t "$tmp/h100x512.ini" -b 1G -e 1G
row "4096 GPUs AllToAll 1 MiB" run -t "$tmp/h100x512.ini" -c alltoall \
  -b 1M -e 1M
if [ "$quick" = 0 ]; then
  row "32,768 GPUs AllReduce 1 GiB" run \
    -t "$root/topologies/examples/dgx-h100-32k.ini" -b 1G -e 1G
  row "131,072 GPUs AllReduce 1 GiB" run \
    -t "$root/topologies/examples/dgx-h100-128k.ini" -b 1G -e 1G
  row "replay 70B step, 1024 GPUs" replay --llm "$llm70b" -t "$tmp/h100x128.ini"
fi
