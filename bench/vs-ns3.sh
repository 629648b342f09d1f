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
# Runs ns-3 (peers/ns3-ring.sh N SIZE TOPO), then `bench_ring N SIZE TOPO
# --fidelity packet --ns3` as ifsim runs it (a flow alone on its path in
# closed form: docs/transports.md) and with --packetwise (every packet an
# event, the baseline of the closed form), one after the other, and
# prints, per N: ns-3's and ifsim's simulated times and their relative
# difference, the wall times of the simulation run alone (ns-3's
# Simulator::Run, ifsim's engine run) and the speed-up; each process's
# CPU time (user + system; ns-3's from ns3-ring.sh's own /usr/bin/time,
# ifsim's building the fabric and routes included), their ratio and each
# one's peak RSS; then --packetwise's simulated time (equal to the
# picosecond), its engine wall time and CPU time and the closed form's
# gain over it; and whether the targets were met: |rel diff| <= 1% at
# every N, and at N = 256 a speed-up of at least 1000x (issue 28; the
# wall times of the runs alone, as the CPU times include building the
# fabric).  Both are single-threaded; on a shared machine repeat and
# compare ratios.
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
printf '%5s %14s %14s %9s %10s %10s %8s %9s %9s %9s %8s %8s %14s %10s %9s %8s\n' \
  N ns3_sim_s ifsim_sim_s rel_diff ns3_wall_s ifsim_wall_s speedup ns3_cpu_s \
  ifsim_cpu_s cpu_ratio ns3_MiB ifs_MiB pktwise_sim_s pktwise_wall pktwise_cpu gain
tcpu=$(mktemp)
trap 'rm -f "$tcpu"' EXIT
# ifsim_run ARGS...: bench_ring's RESULT line, then "cpu_s rss_MiB"
ifsim_run() {
  /usr/bin/time -f '%U %S %M' -o "$tcpu" "$build/bench_ring" "$@" | grep '^RESULT'
  tail -n 1 "$tcpu" | awk '{ printf "%.3f %.1f\n", $1 + $2, $3 / 1024 }'
}
met=1
for n in $ns; do
  ns3_cpu=- ns3_mib=-
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
    # ns3-ring.sh's own /usr/bin/time -v of the ns-3 process
    tv="${PEERS_BUILD:-/tmp/peers/build}/time-ns3-$topo-$n-udp.txt"
    ns3_cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2}
      END { printf "%.3f", u + s }' "$tv")
    ns3_mib=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$tv")
  fi
  mapfile -t a < <(ifsim_run "$n" "$size" "$topo" --fidelity packet --ns3)
  mapfile -t b < <(ifsim_run "$n" "$size" "$topo" --fidelity packet --ns3 --packetwise)
  if=${a[0]} pw=${b[0]}
  read -r if_cpu if_mib <<<"${a[1]}"
  read -r pw_cpu _ <<<"${b[1]}"
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
      -v sc="$ns3_cpu" -v ic="$if_cpu" -v sm="$ns3_mib" -v im="$if_mib" \
      -v ps="$(field sim_time_s "$pw")" -v pw="$(field wall_run_s "$pw")" \
      -v pc="$pw_cpu" 'BEGIN {
    d = (is - ss) / ss
    printf "%5d %14.10g %14.10g %9.2e %10.3f %10.4f %7.0fx %9s %9.3f %9s %8s %8.1f %14.10g %10.4f %9.3f %7.1fx\n",
           n, ss, is, d, sw, iw, (iw > 0 ? sw / iw : 0), sc, ic,
           (sc == "-" ? "-" : ic < 0.01 ? sprintf(">%.0fx", sc / 0.01) : sprintf("%.0fx", sc / ic)), sm, im, ps, pw, pc,
           (iw > 0 ? pw / iw : 0)
    if (d < 0) d = -d
    exit !(d <= 0.01 && ps == is && (n != 256 || (iw > 0 && sw / iw >= 1000)))
  }' || met=0
done
if [ "$met" = 1 ]; then
  echo "targets met: |rel diff| <= 1% at every N, --packetwise's time equal, speed-up >= 1000x at N = 256"
else
  echo "targets NOT met: want |rel diff| <= 1% at every N, --packetwise's time equal, speed-up >= 1000x at N = 256"
fi
