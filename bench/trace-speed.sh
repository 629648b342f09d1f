#!/usr/bin/env bash
# Replaying a job from its NCCL log against replaying the same step as the
# project's own workload CSV (issue 26: "as fast as the project's own
# workloads"), in one run of this script:
#   - writes an NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL log of a job of
#     RANKS ranks on DGX H100 servers (8 per server, one process per GPU,
#     NCCL 2.28's lines, all processes' lines in one file): a world
#     communicator, TP (one server) and DP (GPU k of every server) split
#     from it; per step, LAYERS x 2 TP AllReduces of 16 MiB (bf16), then 4
#     DP AllReduces of 64 MiB (fp32);
#   - writes the same step as a workload CSV with tp/dp groups and a
#     compute op between every two calls (the log's --gap);
#   - replays both (flow transport) on a rail-optimized NDR fat-tree.
# Prints per run CPU seconds (user + system), wall seconds, peak RSS and
# the step time, the log's run as a fraction of the CSV's, and whether
# the two step times are equal (they must be: the log's communicators are
# the CSV's groups).  Then reads two PyTorch profiler traces of a million
# events each and a log of about a million call lines (analytical
# transport, on the same system) and prints the reading rates.
# usage: bench/trace-speed.sh [BUILD] [RANKS] [STEPS] [LAYERS]
#        (default build-bench, 1024 ranks, 1 step, 20 layers)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=${1:-$root/build-bench}
ranks=${2:-1024}
steps=${3:-1}
layers=${4:-20}
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
build_release ifsim
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
servers=$((ranks / 8))
write_h100 "$tmp/sys.ini" "$servers" 2

# gen_log RANKS STEPS LAYERS: the log on standard output
gen_log() {
  awk -v R="$1" -v S="$2" -v L="$3" 'BEGIN {
    printf "NCCL version 2.28.9+cuda12.9\n"
    for (r = 0; r < R; r++) {
      h = sprintf("node%04d", int(r / 8)); d = r % 8; pid[r] = 1000 + r
      tag[r] = sprintf("%s:%d:%d [%d] NCCL INFO ", h, pid[r], pid[r], d)
      printf "%sncclCommInitRankConfig comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId 1000 commId 0x7e57 - Init COMPLETE\n", tag[r], 65536 + r, r, R, d, d
    }
    for (r = 0; r < R; r++)
      printf "%sncclCommSplit comm 0x%x rank %d nranks 8 cudaDev %d nvmlDev %d busId 1000 parent 0x%x splitCount 1 color %d key %d - Init COMPLETE\n", tag[r], 131072 + r, r % 8, r % 8, r % 8, 65536 + r, int(r / 8), r % 8
    for (r = 0; r < R; r++)
      printf "%sncclCommSplit comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId 1000 parent 0x%x splitCount 2 color %d key %d - Init COMPLETE\n", tag[r], 196608 + r, int(r / 8), R / 8, r % 8, r % 8, 65536 + r, r % 8, int(r / 8)
    n = 0
    for (s = 0; s < S; s++) {
      for (l = 0; l < 2 * L; l++) {
        for (r = 0; r < R; r++)
          printf "%sAllReduce: opCount %x sendbuff 0x7f00 recvbuff 0x7f00 count 8388608 datatype 9 op 0 root 0 comm 0x%x [nranks=8] stream 0x5\n", tag[r], n, 131072 + r
        n++
      }
      for (k = 0; k < 4; k++) {
        for (r = 0; r < R; r++)
          printf "%sAllReduce: opCount %x sendbuff 0x7f00 recvbuff 0x7f00 count 16777216 datatype 7 op 0 root 0 comm 0x%x [nranks=%d] stream 0x5\n", tag[r], n, 196608 + r, R / 8
        n++
      }
    }
  }'
}

# gen_csv RANKS STEPS LAYERS GAP_US: the same step with tp/dp groups
gen_csv() {
  awk -v R="$1" -v S="$2" -v L="$3" -v G="$4" 'BEGIN {
    printf "# tp: 8\n# pp: 1\n# dp: %d\n# ep: 1\n", R / 8
    printf "id,name,op,group,size_bytes,compute_us,stage,peer,deps\n"
    id = 0
    for (s = 0; s < S; s++) {
      for (l = 0; l < 2 * L; l++) {
        if (id > 0) printf "%d,gap%d,compute,,,%s,,,\n", ++id, id, G
        printf "%d,tp%d,allreduce,tp,16777216,,,,%s\n", ++id, id, id == 1 ? "none" : ""
      }
      for (k = 0; k < 4; k++) {
        printf "%d,gap%d,compute,,,%s,,,\n", ++id, id, G
        printf "%d,dp%d,allreduce,dp,67108864,,,,\n", ++id, id
      }
    }
  }'
}

# one TAG ARGS...: "cpu wall rss_MiB step_us" of ifsim replay ARGS in $tmp/TAG
one() {
  local tag=$1
  shift
  if /usr/bin/time -f "%U %S %e %M" -o "$tmp/t" "$build/ifsim" replay \
    -t "$tmp/sys.ini" "$@" >"$tmp/out" 2>"$tmp/err"; then
    read -r u s e m <"$tmp/t"
    printf '%s %s %s %s\n' "$(echo "$u + $s" | bc -l)" "$e" \
      "$(echo "$m / 1024" | bc -l)" "$(awk '/step time/ {print $3}' "$tmp/out")" \
      >"$tmp/$tag"
  else
    echo "FAIL: ifsim replay $*:"
    tail -3 "$tmp/err"
    exit 1
  fi
}

gen_log "$ranks" "$steps" "$layers" >"$tmp/job.log"
gen_csv "$ranks" "$steps" "$layers" 50 >"$tmp/job.csv"
lines=$(grep -c 'opCount' "$tmp/job.log")
printf '# %d ranks on %d DGX H100 (2-tier NDR fat-tree), %d step(s) of %d layers: %d call lines, %s\n' \
  "$ranks" "$servers" "$steps" "$layers" "$lines" "$(du -h "$tmp/job.log" | cut -f1)"
one log --nccl-log "$tmp/job.log" --gap 50us
one csv "$tmp/job.csv"
read -r lc lw lm lt <"$tmp/log"
read -r cc cw cm ct <"$tmp/csv"
printf 'NCCL log      CPU %7.2f s  wall %7.2f s  peak %7.1f MiB  step %s us\n' "$lc" "$lw" "$lm" "$lt"
printf 'workload CSV  CPU %7.2f s  wall %7.2f s  peak %7.1f MiB  step %s us\n' "$cc" "$cw" "$cm" "$ct"
printf 'log / CSV: CPU %.3f, peak RSS %.3f; step times %s\n' \
  "$(echo "$lc / $cc" | bc -l)" "$(echo "$lm / $cm" | bc -l)" \
  "$([ "$lt" = "$ct" ] && echo equal || echo "DIFFER ($lt against $ct)")"

# PyTorch profiler traces: two ranks of a million events each (half CUDA
# launches, half kernels on two streams, every 20th kernel a 2 MiB
# AllReduce over both ranks), read and replayed (analytical transport)
gen_kineto() { # RANK: the trace on standard output
  awk -v R="$1" -v K=500000 'BEGIN {
    printf "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2},\n\"traceEvents\": [\n", R
    printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": %d}", K * 12 + 1000
    t = 1000
    for (k = 0; k < K; k++) {
      printf ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f, \"dur\": 2, \"args\": {\"correlation\": %d, \"External id\": %d}}", 1000 + k * 0.5, k + 1, k + 1
      if (k % 20 == 19) {
        printf ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)\", \"pid\": 0, \"tid\": 20, \"ts\": %.3f, \"dur\": 30, \"args\": {\"stream\": 20, \"correlation\": %d, \"Collective name\": \"allreduce\", \"In msg nelems\": 1048576, \"Out msg nelems\": 1048576, \"Group size\": 2, \"dtype\": \"BFloat16\", \"Process Group Ranks\": \"[0, 1]\"}}", t + 2, k + 1
        t += 40
      } else {
        printf ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_xmma_gemm_bf16bf16_bf16f32\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, \"dur\": 10, \"args\": {\"stream\": 7, \"correlation\": %d, \"grid\": [132, 1, 1], \"block\": [384, 1, 1]}}", t, k + 1
        t += 11
      }
    }
    printf "\n]}\n"
  }'
}
gen_kineto 0 >"$tmp/k0.json"
gen_kineto 1 >"$tmp/k1.json"
events=$(grep -c '"ph"' "$tmp/k0.json")
one kin --kineto "$tmp/k0.json" --kineto "$tmp/k1.json" --step 1 --fidelity analytical
read -r kc kw km kt <"$tmp/kin"
printf 'read + replayed (analytical) 2 Kineto traces of %d events (%s each): CPU %.2f s, wall %.2f s, peak %.1f MiB: %.0f events/s of CPU\n' \
  "$events" "$(du -h "$tmp/k0.json" | cut -f1)" "$kc" "$kw" "$km" "$(echo "2 * $events / $kc" | bc -l)"

# reading: about a million call lines
big=$(( (1000000 + ranks * (2 * layers + 4) - 1) / (ranks * (2 * layers + 4)) ))
gen_log "$ranks" "$big" "$layers" >"$tmp/big.log"
lines=$(grep -c 'opCount' "$tmp/big.log")
one big --nccl-log "$tmp/big.log" --gap 50us --fidelity analytical
read -r bc bw bm bt <"$tmp/big"
printf 'read + replayed (analytical) %d call lines (%s, %d steps): CPU %.2f s, wall %.2f s, peak %.1f MiB: %.0f lines/s of CPU\n' \
  "$lines" "$(du -h "$tmp/big.log" | cut -f1)" "$big" "$bc" "$bw" "$bm" "$(echo "$lines / $bc" | bc -l)"
