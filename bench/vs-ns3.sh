#!/usr/bin/env bash
# ifsim's packet transport against ns-3.37, side by side, on the peers'
# ring AllReduce scenario (../shared/peers/README.md, section 5.3): SIZE
# bytes over N hosts on the 2-tier fat-tree, 2(N-1) rendezvous steps of
# SIZE/N, 100 Gb/s 1 us links, UDP paced at line rate, MTU 1500.
#
# usage: bench/vs-ns3.sh                # N = 16 64 256, 16 MiB, fattree
#   env NS="16 64"         host counts
#       SIZE=16M           AllReduce size
#       TOPO=fattree       fattree or star
#       PEERS=DIR          the peers' scripts (default ../shared/peers)
#       PEERS_BUILD=DIR    where ns3-ring.sh builds ns-3's program
#       BUILD=DIR          ifsim Release build (default build-bench; built here)
#       NS3_RESULTS=DIR    reuse saved ns-3 runs instead of running ns-3:
#                          DIR/ns3-N.txt holding ns3-ring.sh's RESULT line
#                          (N = 256 takes minutes in ns-3)
#       NS3_SAVE=DIR       save each fresh ns-3 run as DIR/ns3-N.txt
#
# Runs ns-3 (peers/ns3-ring.sh N SIZE TOPO) and `bench_ring N SIZE TOPO
# --fidelity packet --ns3` one after the other and prints, per N: both
# simulated times and their relative difference, both wall times of the
# simulation run alone (ns-3's Simulator::Run, ifsim's engine run) and the
# speed-up, ifsim's total wall time (building the fabric and routes too),
# ifsim's packet-hops per second (packets put on a channel) and ns-3's
# events per second; then whether the targets were met: |rel diff| <= 1%
# and a speed-up of at least 50x at every N.  Both are single-threaded; on
# a shared machine repeat and compare ratios.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
peers="${PEERS:-$root/../shared/peers}"
build="${BUILD:-$root/build-bench}"
ns="${NS:-16 64 256}"
size="${SIZE:-16M}"
topo="${TOPO:-fattree}"
reuse="${NS3_RESULTS:-}"
save="${NS3_SAVE:-}"

if [ -z "$reuse" ]; then
  if [ ! -x "$peers/ns3-ring.sh" ]; then
    echo "vs-ns3: no $peers/ns3-ring.sh (set PEERS=DIR, or NS3_RESULTS=DIR)" >&2
    exit 2
  fi
  if [ ! -e /usr/include/ns3/simulator.h ]; then
    echo "vs-ns3: ns-3 is not installed; as root:" >&2
    echo "  apt-get install -y libns3-dev g++ time" >&2
    exit 2
  fi
fi
# shellcheck source=bench/common.sh
. "$root/bench/common.sh"
build_bench_ring

ns3_version="$(dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null || echo '?')"
echo "# ifsim $(git -C "$root" describe --always --dirty 2>/dev/null || echo '?')" \
     "packet transport vs ns-3 (libns3-dev $ns3_version); $(nproc) cores;" \
     "$topo, size $size, 100 Gb/s 1 us, UDP MTU 1500; $(date -u +%FT%TZ)"
if [ -n "$reuse" ]; then
  echo "# ns-3 figures reused from $reuse/ns3-N.txt"
fi
printf '%5s %14s %14s %10s %10s %10s %9s %11s %16s %14s\n' N ns3_sim_s ifsim_sim_s \
  rel_diff ns3_wall_s ifsim_wall_s speedup ifsim_tot_s ifsim_pkthops/s ns3_events/s
met=1
for n in $ns; do
  if [ -n "$reuse" ]; then
    if [ ! -r "$reuse/ns3-$n.txt" ]; then
      echo "vs-ns3: no $reuse/ns3-$n.txt" >&2
      exit 2
    fi
    ns3=$(grep '^RESULT' "$reuse/ns3-$n.txt")
  else
    out=$("$peers/ns3-ring.sh" "$n" "$size" "$topo")
    if [ -n "$save" ]; then
      mkdir -p "$save"
      printf '%s\n' "$out" >"$save/ns3-$n.txt"
    fi
    ns3=$(grep '^RESULT' <<<"$out")
  fi
  if=$("$build/bench_ring" "$n" "$size" "$topo" --fidelity packet --ns3 | grep '^RESULT')
  if [ "$(field hosts "$ns3")" != "$n" ] || [ "$(field bytes "$ns3")" != "$(field bytes "$if")" ] ||
     [ "$(field topo "$ns3")" != "$topo" ] || [ "$(field transport "$ns3")" != udp ] ||
     [ "$(field sync "$ns3")" != rendezvous ] || [ "$(field mtu "$ns3")" != 1500 ] ||
     [ "$(field rate "$ns3")" != 100Gbps ] || [ "$(field delay "$ns3")" != 1us ] ||
     [ "$(field delivered_ok "$ns3")" != 1 ]; then
    echo "vs-ns3: the ns-3 result for N=$n is not this scenario: $ns3" >&2
    exit 2
  fi
  awk -v n="$n" -v ss="$(field sim_time_s "$ns3")" -v is="$(field sim_time_s "$if")" \
      -v sw="$(field wall_run_s "$ns3")" -v iw="$(field wall_run_s "$if")" \
      -v it="$(field wall_total_s "$if")" -v hp="$(field packet_hops_per_s "$if")" \
      -v ev="$(field events_per_s "$ns3")" 'BEGIN {
    d = (is - ss) / ss
    printf "%5d %14.10g %14.10g %10.2e %10.3f %10.4f %8.0fx %11.4f %16.3g %14.3g\n",
           n, ss, is, d, sw, iw, (iw > 0 ? sw / iw : 0), it, hp, ev
    if (d < 0) d = -d
    exit !(d <= 0.01 && iw > 0 && sw / iw >= 50)
  }' || met=0
done
if [ "$met" = 1 ]; then
  echo "targets met: |rel diff| <= 1% and speed-up >= 50x at every N"
else
  echo "targets NOT met: want |rel diff| <= 1% and speed-up >= 50x at every N"
fi
