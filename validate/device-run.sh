#!/bin/sh
# One prepared run of the GPU probes on a machine with a GPU (written for
# the one-H200 device machine: 16 cores, no network), bounded to about six
# minutes in all.  Builds ifsim-probe (Release) in a fresh build directory,
# then runs `devices`, `hostdev`, `p2p` (one GPU: local copies), `nccl`
# (1 rank; also as CUDA graphs), the probe test script, and `ifsim calibrate` / `validate` of
# PCIe Gen5 from the hostdev sweep, each under `timeout`, and writes
# every CSV, log and a summary under $OUT (default ./device-out).
#
# Usage: validate/device-run.sh        (from anywhere; env: OUT, BUILD,
#        TOTAL_S the overall budget in seconds, default 360)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-./device-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=${BUILD:-$here/build-device}
TOTAL_S=${TOTAL_S:-360}
start=$(date +%s)
summary=$OUT/summary.txt
: >"$summary"
cd "$here" || exit 2

# step NAME LIMIT_S CMD...: runs CMD with stdout to $OUT/NAME.out and
# stderr to $OUT/NAME.err, killed after LIMIT_S or when the overall budget
# is spent (a step with under 10 s left is skipped); records the status.
step() {
  name=$1 limit=$2
  shift 2
  left=$((TOTAL_S - ($(date +%s) - start)))
  if [ "$left" -lt 10 ]; then
    echo "$name: skipped (budget spent)" | tee -a "$summary"
    return 1
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  t0=$(date +%s)
  timeout -k 5 "$limit" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
  rc=$?
  echo "$name: exit $rc in $(($(date +%s) - t0)) s (limit $limit s): $*" |
    tee -a "$summary"
  return $rc
}

{
  echo "# device-run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  nvidia-smi -L 2>&1
  nproc
} >"$OUT/machine.txt" 2>&1
nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1

rm -rf "$BUILD"
step configure 90 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release || {
  cat "$OUT/configure.err"; exit 2; }
step build 180 cmake --build "$BUILD" -j "$(nproc)" --target ifsim-probe ifsim || {
  tail -30 "$OUT/build.out" "$OUT/build.err"; exit 2; }
P=$BUILD/validate/ifsim-probe
I=$BUILD/ifsim

step devices 20 "$P" devices
# Host<->device: 4 KiB to 1 GiB, pinned and pageable.
step hostdev 100 "$P" hostdev -b 4K -e 1G -n 20 -o "$OUT/hostdev.csv"
# One GPU: its own device-to-device copies (mode local), CE and SM.
step p2p 60 "$P" p2p -b 4K -e 256M -f 4 -n 10 -o "$OUT/p2p.csv"
# A 1-rank communicator: allreduce over 8 B to 1 GiB, then every
# collective on a shorter sweep.
step nccl 60 "$P" nccl -g 1 -c allreduce -b 8 -e 1G -o "$OUT/nccl.csv"
step nccl_all 40 "$P" nccl -g 1 -c all -b 8 -e 64M -f 8 -n 10 -B 3 \
  -o "$OUT/nccl_all.csv"
# The launch floor in the other launch mode: the same small calls
# captured in a CUDA graph (nccl-tests -G 1).  One GPU gives a 1-rank
# communicator, which NCCL runs without channels (enqueue.cc
# ncclLaunchOneRank): channel counts need two GPUs or more.
step nccl_graph 20 "$P" nccl -g 1 --graph -c allreduce -b 8 -e 1M -f 4 \
  -o "$OUT/nccl_graph.csv"
step probe_test 60 sh tests/cli/probe_cuda_test.sh "$P"

# Calibrate PCIe Gen5 (and the GPU's links) from the host<->device sweep on
# the HGX H200 server template, then check the calibration against the
# same measurements: the fit table, the model file, the per-size errors.
printf '[system]\nserver = hgx-h200\n' >"$OUT/h200.ini"
step calibrate 30 "$I" calibrate "$OUT/hostdev.csv" -t "$OUT/h200.ini" \
  -o "$OUT/calibrated.ini"
step validate_before 30 "$I" validate "$OUT/hostdev.csv" -t "$OUT/h200.ini"
step validate_after 30 "$I" validate "$OUT/hostdev.csv" -t "$OUT/h200.ini" \
  -m "$OUT/calibrated.ini" --csv "$OUT/validate.csv"

for f in "$OUT"/*.csv; do
  [ -f "$f" ] || continue
  echo "$(basename "$f"): $(grep -v '^#' "$f" | tail -n +2 | wc -l) rows" |
    tee -a "$summary"
done
echo "total $(($(date +%s) - start)) s" | tee -a "$summary"
