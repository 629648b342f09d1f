#!/bin/sh
# Regenerates the figures of docs/cookbook.md: every command of the
# cookbook, run from the repository root with a built ifsim.
#   docs/cookbook/make.sh [PATH/TO/ifsim]     (default: build/ifsim)
# The CSVs go to a temporary directory (or KEEP=DIR); the PNGs into
# docs/cookbook/.  About 25 s on 2 cores (2026-12-07: 25.3 s wall, 24.6 s
# CPU, a CI run on the other core), since the AllToAlls of 128 ranks run
# in closed form; 20 min 42 s when they ran every pair
# (docs/transports.md, bench/README.md).
set -eu
cd "$(dirname "$0")/../.."
IFSIM=${1:-build/ifsim}
C=docs/cookbook
if [ -n "${KEEP:-}" ]; then
  out=$KEEP
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
run() { echo "+ ifsim $*"; "$IFSIM" "$@"; }

# 1. HDR vs NDR: the NICs' ports (and the switch links, which follow them)
run sweep -t $C/pod.ini --vary "nic cx7-ndr.port_link=ib-hdr-4x,ib-ndr-4x" \
  -c allreduce -b 1M -e 4G -f 4 -j 2 -o "$out/hdr-ndr.csv"
run plot "$out/hdr-ndr.csv" -o $C/hdr-vs-ndr.png --title "HDR vs NDR, 16 DGX H100"

# 2. Oversubscription at the leaves
run sweep -t $C/pod.ini --vary scaleout.oversubscription=1,3,7 \
  -c alltoall -b 64K -e 256M -f 4 -j 2 -o "$out/over.csv"
run plot "$out/over.csv" -o $C/oversubscription.png \
  --title "Leaf oversubscription 1:1, 3:1, 7:1"

# 3. Rail-optimized or not
run sweep -t $C/pod.ini --vary scaleout.rail_optimized=false,true \
  -c allreduce -b 1M -e 4G -f 4 -j 2 -o "$out/rail.csv"
run plot "$out/rail.csv" -o $C/rail-optimized.png \
  --title "Rail-optimized vs one fat-tree"

# 3b. RoCE on one 3:1 fat-tree with ECMP: 1, 2 and 4 queue pairs a
# connection (NCCL_IB_QPS_PER_CONNECTION, varied as env.NAME)
run sweep -t $C/roce-3to1.ini --vary env.NCCL_IB_QPS_PER_CONNECTION=1,2,4 \
  -c allreduce -b 1M -e 4G -f 4 --algo ring -j 2 -o "$out/qps.csv"
run plot "$out/qps.csv" -o $C/queue-pairs.png \
  --title "Ring AllReduce, 16 HGX H100 over RoCE, one 3:1 fat-tree, ECMP: queue pairs a connection"

# 4. Dragonfly vs fat-tree, and the dragonfly's routing
run run -t $C/pod.ini -c alltoall -b 64K -e 256M -f 4 --csv "$out/ft.csv" >/dev/null
run run -t $C/dragonfly.ini -c alltoall -b 64K -e 256M -f 4 --csv "$out/df.csv" >/dev/null
run plot "$out/ft.csv" "$out/df.csv" -o $C/dragonfly-vs-fat-tree.png \
  --title "AllToAll: fat-tree vs dragonfly, 16 DGX H100"
run sweep -t $C/dragonfly.ini --vary scaleout.routing=minimal,valiant,ugal-l \
  -c alltoall -b 64K -e 256M -f 4 -j 2 -o "$out/df-routing.csv"
run plot "$out/df-routing.csv" -o $C/dragonfly-routing.png \
  --title "Dragonfly routing"

# 5. Where the bottleneck is: the links of a 16 MiB AllToAll
run run -t $C/pod-7to1.ini -c alltoall -b 16M -e 16M --links-csv "$out/links.csv" \
  --link-samples "$out/samples.csv" --hot-links 24
run plot "$out/links.csv" -o $C/links-heatmap.png --max-nodes 40 \
  --title "AllToAll 16 MiB on the 7:1 fat-tree: link utilization"
run plot "$out/samples.csv" -o $C/link-samples.png \
  --title "AllToAll 16 MiB on the 7:1 fat-tree: the hottest links over time"

# 6. A training step, and two jobs sharing the fabric
run replay -t $C/pod.ini --summary-csv "$out/step.csv" --llm \
  layers=16,hidden=8192,ffn=28672,mlp=swiglu,vocab=32000,seq=4096,mbs=1,microbatches=8,tp=8,pp=2,dp=8,tflops=989,mfu=0.45,optimizer_us=1000,bucket=200M
run plot "$out/step.csv" -o $C/step-breakdown.png \
  --title "One step: tp 8, pp 2, dp 8 on 16 DGX H100"
for p in packed spread; do
  run replay --jobs $C/jobs-$p.ini -t $C/pod-7to1.ini \
    --summary-csv "$out/jobs-$p.csv"
  run plot "$out/jobs-$p.csv" -o $C/jobs-$p.png \
    --title "Two jobs on the 7:1 fat-tree, placed $p"
done

# 7. Faults: a SuperPOD unit with a spine down and with a leaf down, and
# every switch's blast radius
S=topologies/examples/dgx-h100-superpod.ini
run run -t $S -b 1M -e 4G -f 4 --csv "$out/healthy.csv" >/dev/null
run run -t $S -b 1M -e 4G -f 4 --fail p0.spine0 --csv "$out/spine0-down.csv" >/dev/null
run run -t $S -b 1M -e 4G -f 4 --fail p0.leaf0 --csv "$out/leaf0-down.csv" >/dev/null
run plot "$out/healthy.csv" "$out/spine0-down.csv" "$out/leaf0-down.csv" \
  -o $C/superpod-faults.png --title "SuperPOD unit, AllReduce: a spine or a leaf down"
run faults -t $S -b 1G -e 1G --criticality switches --csv "$out/crit.csv"
run plot "$out/crit.csv" -o $C/superpod-criticality.png \
  --title "SuperPOD unit, 1 GiB AllReduce: each switch down alone"

# 8. A rail down on two SuperPOD units, whole or half
R=$C/rails-2su.ini
run run -t $R -b 1M -e 4G -f 4 --csv "$out/rails-healthy.csv" >/dev/null
run run -t $R -b 1M -e 4G -f 4 --fail 's*.nic3' --csv "$out/rail3-down.csv" >/dev/null
run run -t $R -b 1M -e 4G -f 4 --fail p0.leaf3 --csv "$out/rail3-half-down.csv" >/dev/null
run plot "$out/rails-healthy.csv" "$out/rail3-down.csv" "$out/rail3-half-down.csv" \
  -o $C/rail-down.png --title "64 DGX H100, AllReduce: rail 3 down, whole or in one unit"

# 9. 1 to 4 random links down on a 3:1 oversubscribed pod
run faults -t $C/pod-3to1.ini -b 1G -e 1G --random 1,2,3,4 --draws 100 \
  --csv "$out/draws.csv"
run plot "$out/draws.csv" -o $C/random-links.png \
  --title "3:1 pod, 1 GiB AllReduce: 1 to 4 random links down (100 draws each)"

# 10. One NVLink of a DGX A100's GPU down, by Fabric Manager's policy
run sweep -t $C/dgx-a100-nvlink.ini -b 1M -e 4G -f 4 \
  --vary faults.access_link_failure_mode=keep-links,disable-nvswitch,remove-gpu \
  -o "$out/nvlink.csv"
run plot "$out/nvlink.csv" -o $C/nvlink-down.png \
  --title "DGX A100, AllReduce: one NVLink of GPU 3 down, by Fabric Manager's policy"

# 11. A training step's blast radius: each NIC of the 3:1 pod down alone
run faults -t $C/pod-3to1.ini --criticality nics --top 5 --csv "$out/step-nics.csv" \
  --llm layers=4,hidden=4096,ffn=14336,mlp=swiglu,vocab=32000,seq=4096,mbs=1,microbatches=4,tp=8,pp=2,dp=2,tflops=989,mfu=0.45,optimizer_us=500,bucket=100M
run plot "$out/step-nics.csv" -o $C/step-nics.png \
  --title "3:1 pod, a 32-rank training step: each NIC down alone"
