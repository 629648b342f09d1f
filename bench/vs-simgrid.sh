#!/usr/bin/env bash
# ifsim's flow transport against SimGrid 3.32, side by side, on the peers'
# ring AllReduce scenario (../shared/peers/README.md): SIZE bytes over N
# hosts, 2(N-1) rendezvous steps of SIZE/N, 200 Gb/s 1 us links.
#
# usage: bench/vs-simgrid.sh            # N = 64 256 1024 4096, fattree + dragonfly
#   env NS="64 256"        host counts
#       TOPOS="fattree"    fattree and/or dragonfly
#       SIZE=1G            AllReduce size
#       PEERS=DIR          the peers' scripts (default ../shared/peers)
#       BUILD=DIR          ifsim Release build (default build-bench; built here)
#
# Prints one table per topology: N, SimGrid sim time, ifsim sim time, their
# relative difference, SimGrid wall (Engine::run), ifsim wall (engine run),
# speed-up; then each whole process's CPU time (user + system, building the
# platform included), their ratio, and each one's peak RSS.  Both run
# single-threaded, one after the other; on a shared
# machine repeat and compare ratios.  SimGrid runs its `ideal` model (CM02
# without cross-traffic or TCP window: a fluid max-min model, latency
# charged before the bytes), which is what ifsim's flow transport computes.
# At N = 4096 SimGrid needs several minutes per topology.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
peers="${PEERS:-$root/../shared/peers}"
build="${BUILD:-$root/build-bench}"
ns="${NS:-64 256 1024 4096}"
topos="${TOPOS:-fattree dragonfly}"
size="${SIZE:-1G}"

if [ ! -x "$peers/simgrid-ring.sh" ]; then
  echo "vs-simgrid: no $peers/simgrid-ring.sh (set PEERS=DIR)" >&2
  exit 2
fi
if ! pkg-config --exists simgrid 2>/dev/null; then
  echo "vs-simgrid: SimGrid is not installed; as root:" >&2
  echo "  apt-get install -y libsimgrid-dev g++ python3 time" >&2
  exit 2
fi
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
build_bench_ring

echo "# ifsim $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?')" \
     "vs SimGrid $(pkg-config --modversion simgrid); $(nproc) cores;" \
     "size $size; $(date -u +%FT%TZ)"
tcpu=$(mktemp)
trap 'rm -f "$tcpu"' EXIT
# cpu_s: user + system seconds of the process /usr/bin/time wrote to $tcpu
cpu_s() {
  tail -n 1 "$tcpu" | awk '{ printf "%.3f", $1 + $2 }'
}
for topo in $topos; do
  echo
  echo "## $topo"
  printf '%6s %16s %16s %10s %11s %10s %9s %10s %9s %9s %10s %9s\n' N simgrid_sim_s \
    ifsim_sim_s rel_diff simgrid_wall_s ifsim_wall_s speedup simgrid_cpu_s \
    ifsim_cpu_s cpu_ratio simgrid_MiB ifsim_MiB
  for n in $ns; do
    out=$(/usr/bin/time -f '%U %S' -o "$tcpu" "$peers/simgrid-ring.sh" "$n" "$size" "$topo" ideal)
    sg=$(grep '^RESULT' <<<"$out")
    sgpeak=$(grep '^PEAK' <<<"$out")
    sgcpu=$(cpu_s)
    out=$(/usr/bin/time -f '%U %S' -o "$tcpu" "$build/bench_ring" "$n" "$size" "$topo")
    if=$(grep '^RESULT' <<<"$out")
    ifpeak=$(grep '^PEAK' <<<"$out")
    ifcpu=$(cpu_s)
    awk -v n="$n" -v ss="$(field sim_time_s "$sg")" -v is="$(field sim_time_s "$if")" \
        -v sw="$(field wall_run_s "$sg")" -v iw="$(field wall_run_s "$if")" \
        -v sc="$sgcpu" -v ic="$ifcpu" -v sr="$(field peak_rss_kb "$sgpeak")" \
        -v ir="$(field peak_rss_kb "$ifpeak")" 'BEGIN {
      d = (is - ss) / ss; if (d < 0) d = -d
      printf "%6d %16.10g %16.10g %10.2e %11.3f %10.3f %8.1fx %10.2f %9.2f %8.1fx %10.1f %9.1f\n",
             n, ss, is, d, sw, iw, (iw > 0 ? sw / iw : 0), sc, ic,
             (ic > 0 ? sc / ic : 0), sr / 1024, ir / 1024
    }'
  done
done
if [[ " $topos " == *" dragonfly "* ]]; then
  cat <<'EOF'

Dragonfly: the simulated times differ on purpose, from routing.  SimGrid's
DragonflyZone has one link per colour between routers and hangs every
global link off chassis 0, so two ring hops travel the same green link in
the same direction (N=16: h3->h4 and h15->h0 both cross
green_link_in_chassis_0_between_routers_0_and_1_16_DOWN; see
simgrid-ring.sh 16 1G dragonfly ideal --print-routes) and each gets half of
it: about 2x the contention-free time (its longest hop is 6 links).
ifsim's dragonfly links every pair of routers in a group (a = c*r routers,
all to all) and routes minimally, so no two ring hops share a channel; its
time is the contention-free one, 2(N-1)(S/N/B + Lmax) with Lmax = 5 link
latencies across groups (bench_ring N SIZE dragonfly --print-routes lists
the hops).
EOF
fi
