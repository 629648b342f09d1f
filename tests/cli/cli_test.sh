#!/bin/sh
# End-to-end tests of the ifsim CLI: exit statuses and the exact messages a
# user sees.  Usage: cli_test.sh PATH/TO/ifsim
set -u
IFSIM=$1
fails=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err" "$out.sep" "$out.att" "$out.csv" "$out.dot"' EXIT

# expect STATUS PATTERN ARGS...: runs ifsim ARGS, checks the exit status and
# that stdout+stderr contain PATTERN (fixed string).
expect() {
  want=$1 pattern=$2
  shift 2
  "$IFSIM" "$@" >"$out" 2>"$err" </dev/null
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: ifsim $*: exit $got, expected $want"; cat "$out" "$err"
    fails=$((fails + 1)); return
  fi
  if ! cat "$out" "$err" | grep -qF -- "$pattern"; then
    echo "FAIL: ifsim $*: output lacks '$pattern'"; cat "$out" "$err"
    fails=$((fails + 1)); return
  fi
  echo "ok: ifsim $* -> $got"
}

# contains FILE PATTERN: the file holds PATTERN (fixed string).
contains() {
  if grep -qF -- "$2" "$1" 2>/dev/null; then
    echo "ok: $1 holds '$2'"
  else
    echo "FAIL: $1 lacks '$2'"; fails=$((fails + 1))
  fi
}

expect 0 "Usage: ifsim COMMAND" --help
# an algorithm list that leaves a collective nothing: NCCL 2.19.1 to
# 2.23.4 run Ring, 2.24 and later fail the call
expect 2 "and NCCL 2.24 and later fail such a call (only 2.19.1 to 2.23.4 fall back to Ring)" run -c allgather --algo tree -b 1M -e 1M
expect 0 "  fallback: nothing allowed runs AllGather; NCCL 2.19.1 to 2.21.5 runs Ring then" run -c allgather --algo tree -b 1M -e 1M --nccl-version 2.21.5 --explain
export NCCL_PAT_ENABLE=1
expect 2 "NCCL_PAT_ENABLE=1 forces PAT with 8 GPUs a node; ifsim models PAT as NCCL's default runs it" run -c allgather -b 1M -e 1M
unset NCCL_PAT_ENABLE
expect 0 "  NVLS          Simple  off: NCCL 2.18 runs AllGather/ReduceScatter on Ring" run -c allgather -b 1G -e 1G --nccl-version 2.18.3 --explain
# per-collective lists came with 2.24: an earlier release reads none
expect 2 "the algorithm or protocol list has an entry for AllReduce (FUNCTION:LIST), which NCCL reads from 2.24; NCCL 2.21.5 reads the whole value" run --algo "ring;allreduce:tree" --nccl-version 2.21.5 -b 1M -e 1M
# NVLS has no avg (device.h ncclNvlsSupported): Ring runs it
expect 0 "  NVLS          Simple  off: NVLS's kernels have no such reduction of this type" run -o avg -b 1G -e 1G --explain
expect 0 "  -> NVLS/Simple on 16 channels" run -d bfloat16 -o max -b 1G -e 1G --explain
# NVLS needs more than 2 GPUs a node before 2.28.7 (nvls.cc ncclNvlsInit)
expect 0 "  NVLS          Simple  off: before NCCL 2.28.7 NVLS needs more than 2 of the communicator's GPUs on a node" run -g 2 -b 1G -e 1G --nccl-version 2.28.3 --explain
expect 0 "  -> NVLS/Simple on 16 channels" run -g 2 -b 1G -e 1G --nccl-version 2.28.7 --explain
expect 0 "calibrate" help
expect 2 "Usage: ifsim COMMAND"
expect 2 "ifsim: unknown command 'bogus' (expected one of: run models topo sweep" bogus
expect 0 "ifsim 0." version
expect 0 "ifsim 0." --version
expect 0 "--minbytes" run --help
expect 0 "ifsim run [OPTION...]" run --help
expect 2 "ifsim: run: -b: '12X' is not a size" run -b 12X
expect 2 "ifsim: run: see 'ifsim run --help'" run -b 12X
expect 2 "ifsim: run: --maxbytes: '8GG' is not a size" run --maxbytes 8GG
expect 2 "-b (10) is larger than -e (9)" run -b 010 -e 9
# a system file saved with a UTF-8 byte order mark reads as without
bom_ini=$(mktemp)
printf '\357\273\277[system]\nserver = dgx-h100\n' >"$bom_ini"
expect 0 "Servers: 1 x 8 GPUs" topo "$bom_ini"
rm -f "$bom_ini"
# a size whose run would pass the simulated-time horizon ends cleanly
expect 2 "ifsim: run: -b..-e: size 10995115178248372224 B: the simulated time passed 2^62 ps" run -b 9999999T -e 9999999T
expect 2 "the simulated time passed 2^62 ps" run --fidelity analytical -b 16000000T -e 16000000T
# numbers are decimal: no C hexadecimal floats, no ticks below a picosecond
expect 2 "--max-error: '0x10' is not a percentage" validate "$(dirname "$0")/../data/measure/nccltests_allreduce_8xH100.txt" -t "$(dirname "$0")/../data/systems/dgx-h100.ini" --max-error 0x10
expect 2 "--ns-per-tick: '0x1p1' is not a tick length" replay --astra "$(dirname "$0")/../data/workload/astra_2layer.txt" --astra-tp 8 --ns-per-tick 0x1p1
expect 2 "--ns-per-tick: '1e-300' is not a tick length (expected a decimal number of ns from 0.001" replay --astra "$(dirname "$0")/../data/workload/astra_2layer.txt" --astra-tp 8 --ns-per-tick 1e-300
expect 2 "--llm: tflops=0x1p10: expected peak TFLOP/s" replay --llm "layers=4,hidden=1024,ffn=4096,vocab=32000,seq=512,mbs=1,microbatches=2,tp=4,pp=2,dp=1,tflops=0x1p10,mfu=0.5,optimizer_us=100"
# one file for two outputs, however spelled; empty file names
same_dir=$(mktemp -d)
expect 2 "the same file as" run -b 1M -e 1M --csv "$same_dir/out.csv" --links-csv "$same_dir/./out.csv"
ln -s out.csv "$same_dir/alias.csv"
expect 2 "the same file as" run -b 1M -e 1M --csv "$same_dir/out.csv" --links-csv "$same_dir/alias.csv"
if [ -e "$same_dir/out.csv" ]; then echo "FAIL: a refused run wrote out.csv"; fails=$((fails + 1)); fi
rm -rf "$same_dir"
# sizes round down to whole elements (per rank where each rank has a
# part), as nccl-tests does; a size below one element is a call of 0 bytes:
# skipped and said, never printed as a larger size
expect 2 "ifsim: run: -b to -e: no size is a whole element, 8 B (one double)" run -b 2 -e 3 -d double
expect 0 "ifsim: note: 3 sizes below 32 B (one float per rank of an AllGather) skipped: a call of 0 bytes" run -b 4 -e 64 -c allgather
# a root for a collective without one is an error, not dropped
expect 2 "ifsim: run: -r: AllReduce has no root (Broadcast and Reduce have one)" run -b 1K -e 1K -r 3
expect 2 "ifsim: run: -r: 8 is not a rank (0 to 7)" run -b 1K -e 1K -c broadcast -r 8
# a step whose compute adds up past the simulation's horizon: said with
# its source, not the engine's overflow (and the generator no longer
# asserts on it)
expect 2 "--llm: generated: stage 1's compute ops add up to 3063635 s, past what a step can take" replay --llm "layers=200,hidden=8192,ffn=32768,vocab=32000,seq=8192,mbs=1,microbatches=64,tp=4,pp=2,dp=1,tflops=0.01,mfu=0.01,optimizer_us=100"
# an empty file name is refused naming the option it was given to
expect 2 "ifsim: run: --csv: '' is an empty file name (expected a path)" run -b 1M -e 1M --csv ""
expect 2 "ifsim: run: --csv: '' is an empty file name (expected a path)" run -b 1M -e 1M --csv=
expect 2 "ifsim: run: -t: '' is an empty file name (expected a path)" run -t ""
expect 2 "ifsim: sweep: -o: '' is an empty file name (expected a path)" sweep -o "" -b 1K -e 1K
expect 2 "ifsim: plot: --script: '' is an empty file name (expected a path)" plot x.csv -o x.png --script ""
expect 2 "ifsim: topo: '': an empty file name (expected a path)" topo ""
# a "gnuplot" that draws nothing: an error, no empty picture left
fake_dir=$(mktemp -d)
printf '#!/bin/sh\nexit 0\n' >"$fake_dir/gp"
chmod +x "$fake_dir/gp"
IFSIM_GNUPLOT="$fake_dir/gp"
export IFSIM_GNUPLOT
expect 2 "gnuplot ended without drawing anything" plot "$(dirname "$0")/../data/plot/sweep.csv" -o "$fake_dir/out.png"
unset IFSIM_GNUPLOT
if [ -e "$fake_dir/out.png" ]; then echo "FAIL: an empty out.png was left"; fails=$((fails + 1)); fi
# a "gnuplot" that never ends: Ctrl-C ends it and ifsim, 130, nothing left
printf '#!/bin/sh\ntouch "%s/started"\ncat >/dev/null\nexec sleep 100\n' "$fake_dir" >"$fake_dir/slow"
chmod +x "$fake_dir/slow"
IFSIM_GNUPLOT="$fake_dir/slow" "$IFSIM" plot "$(dirname "$0")/../data/plot/sweep.csv" -o "$fake_dir/slow.png" 2>"$err" &
plot_pid=$!
# the signal once gnuplot runs (ifsim may start slowly, under valgrind)
waited=0
while [ ! -e "$fake_dir/started" ] && [ "$waited" -lt 600 ]; do
  sleep 0.1
  waited=$((waited + 1))
done
kill -INT "$plot_pid"
wait "$plot_pid"
got=$?
if [ "$got" -eq 130 ] && grep -q "interrupted (SIGINT)" "$err" && [ ! -e "$fake_dir/slow.png" ] &&
  [ -z "$(ls -A "$fake_dir" | grep '^\.slow')" ]; then
  echo "ok: a gnuplot that never ends, Ctrl-C -> 130, nothing left"
else
  echo "FAIL: a gnuplot that never ends, Ctrl-C: exit $got, $(cat "$err")"; fails=$((fails + 1))
fi
rm -rf "$fake_dir"
# --max-input above the memory there is: refused as memory, not a GLib abort
zero_dir=$(mktemp -d)
ln -s /dev/zero "$zero_dir/z.ini"
(ulimit -v 4000000; "$IFSIM" topo --max-input 100G "$zero_dir/z.ini" >"$out" 2>"$err")
got=$?
if ! (ulimit -v 4000000; "$IFSIM" version) >/dev/null 2>&1; then
  # a sanitizer's shadow memory or valgrind does not start under the limit
  echo "skip: topo --max-input 100G under ulimit -v (this build cannot run under it)"
elif [ "$got" -eq 2 ] && grep -q "z.ini: reading the file needs about" "$err"; then
  echo "ok: topo --max-input 100G /dev/zero under ulimit -v -> 2"
else
  echo "FAIL: topo --max-input 100G /dev/zero: exit $got"; cat "$err"; fails=$((fails + 1))
fi
rm -rf "$zero_dir"
# --max-input at the top of its range reads a small file as it is (limit +
# 2 wrapped to 0: the file was read as empty)
expect 0 "System: One NVIDIA DGX H100" topo "$(dirname "$0")/../../topologies/examples/dgx-h100.ini" --max-input 18446744073709551615
expect 0 "System: One NVIDIA DGX H100" topo "$(dirname "$0")/../../topologies/examples/dgx-h100.ini" --max-input 18446744073709551614
# a value attached to a short option, as getopt (and nccl-tests) read it
"$IFSIM" run -b 8K -e 64K -f 2 -c allgather >"$out.sep" 2>&1
"$IFSIM" run -b8K -e64K -f2 -callgather >"$out.att" 2>&1
if cmp -s "$out.sep" "$out.att" && grep -q "65536" "$out.att"; then
  echo "ok: run -b8K -e64K -f2 -callgather = run -b 8K -e 64K -f 2 -c allgather"
else
  echo "FAIL: attached short values differ"; diff "$out.sep" "$out.att"; fails=$((fails + 1))
fi
expect 2 "ifsim: run: -b: 'x' is not a size" run -bx
expect 2 "-b (10) is larger than -e (9)" run -b010 -e9
expect 2 "ifsim: sweep: -f: 'oo' is not a count" sweep -kfoo
expect 2 "-f: 1 is below 2" run -f 1
expect 2 "ifsim: run: -f: '0x10' is not a count" run -f 0x10
expect 2 "-i and -f exclude each other" run -i 8 -f 2
expect 2 "-c: 'bcast' is not one of allreduce, allgather" run -c bcast
expect 2 "--proto: 'LL256' is not one of LL, LL128, Simple" run --proto LL256
expect 2 "unexpected argument 'extra'" run extra
expect 2 "Unknown option --frobnicate" run --frobnicate
expect 0 "# Collective test concluded: all_reduce_perf" run -c all_reduce --algo Ring --proto LL128 -b 1K -e 1G
expect 0 "8589934592    2147483648     float     sum      -1" run
expect 0 "# 8589934592 NVLS Simple 16" run
expect 0 "-> Ring/LL on 1 channels" run -b 8 -e 8 --explain
# --explain says where the host's launches set the time: from NCCL 2.22 a
# launch costs the same on 24 channels as on one, before it each further
# channel adds host_launch_per_channel_us
expect 0 "  time: set by the host: 8 launches of 4.935 us a call (from NCCL 2.22 its 24 channels cost the host no more than one), where the GPUs take 25.15 us a call back to back" run -b 1M -e 1M --gpus-per-process 8 --explain
expect 0 "  time: set by the host: 8 launches of 10.317 us a call (4.935 on one channel, 0.234 more for each of 23 further: before NCCL 2.22 the host writes each channel's work)" run -b 1M -e 1M --gpus-per-process 8 --nccl-version 2.21.5 --explain
# ... and nothing where the GPUs do (a 1 GiB call, one rank a process)
if "$IFSIM" run -b 8 -e 1G -f 1024 --gpus-per-process 1 --explain 2>&1 | grep -q "time: set by the host"; then
  echo "FAIL: --explain says the host sets a time the GPUs set"; fails=$((fails + 1))
fi
expect 0 "-> NVLS/Simple on 16 channels: the smallest estimate (3204.64 us); NCCL's pipeline step 131072 B" run -b 1G -e 1G --explain
# one process launching 8 kernels in turn (nccl-tests -g 8): 8 x 4.935 us
# ([nccl] host_launch_us)
expect 0 "           8             2     float     sum      -1    39.48" run -b 8 -e 8 --gpus-per-process 8
expect 2 "--gpus-per-process: 3 does not divide the 8 ranks of each server" run --gpus-per-process 3
expect 2 "--gpus-per-process: 0; at least 1" run --gpus-per-process 0
expect 2 "--gpus-per-process: 'x' is not a count" run --gpus-per-process x
# --iters N: nccl-tests' timing of N calls from before the first launch.
# 8 B takes 15.00 us on the GPUs: one call alone adds its launch (4.935 us);
# two calls of 8 GPUs, (39.48 + 15.00 + 39.48) / 2
expect 0 "           8             2     float     sum      -1    15.00" run -b 8 -e 8
expect 0 "           8             2     float     sum      -1    19.94" run -b 8 -e 8 --iters 1
expect 0 "           8             2     float     sum      -1    46.98" run -b 8 -e 8 --gpus-per-process 8 --iters 2
expect 2 "--iters: 0; expected 1 to 4294967295" run --iters 0
expect 2 "--iters: 'x' is not a count" run --iters x
# --graph-launches K (nccl-tests -G K): the calls launched as CUDA graphs,
# so the 8 GPUs' calls are paced by the GPUs (15.00 us), not by 8 launches
# each; 20 calls a graph: the first round of 8 graph launches spread over
# them, (39.56 + 15.00 + 19 x 15.00) / 20
expect 0 "           8             2     float     sum      -1    15.00" run -b 8 -e 8 --gpus-per-process 8 --graph-launches 1
expect 0 "           8             2     float     sum      -1    16.98" run -b 8 -e 8 --gpus-per-process 8 --graph-launches 1 --iters 20
expect 2 "--graph-launches: 2147483648; expected 0 to 2147483647" run --graph-launches 2147483648
expect 2 "--graph-launches: 'x' is not a count" run --graph-launches x
expect 0 "1,1,AllReduce,8,2,float,sum,-1,15.00" sweep -b 8 -e 8 --gpus-per-process 8 --vary run.graph_launches=0,1
# --nccl-version: NCCL 2.26's cost model picks NVLSTree at 1 MiB on two
# DGX H100, where 2.28.9 keeps Tree/LL128
H2=$(mktemp -d)/h2.ini
printf '[system]\nserver = dgx-h100\nservers = 2\n[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\nrail_optimized = true\n' > "$H2"
expect 0 "  -> Tree/LL128 on 16 channels" run -t "$H2" -b 1M -e 1M --explain
expect 0 "  -> NVLSTree/Simple on 16 channels" run -t "$H2" -b 1M -e 1M --explain --nccl-version 2.26.2
expect 0 "1,2.26.2,AllReduce,1048576" sweep -t "$H2" -b 1M -e 1M --vary run.nccl_version=2.28.9,2.26.2
# across nodes a captured call waits for a host function NCCL adds: said
expect 0 "# note: CUDA graph launches across nodes: NCCL runs a host function" run -t "$H2" -b 1K -e 1K --graph-launches 1
# NCCL_P2P_DISABLE / NCCL_P2P_LEVEL: without P2P the 8 H100s stage
# through host memory (SHM), crossing PCIe twice, at a few GB/s
export NCCL_P2P_DISABLE=1
expect 0 "  -> Ring/Simple on 2 channels" run -b 1G -e 1G --explain
export NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=NVL
expect 0 "  -> NVLS/Simple on 16 channels" run -b 1G -e 1G --explain
export NCCL_P2P_DISABLE=yes
expect 2 "NCCL_P2P_DISABLE='yes': expected 0 or 1" run
export NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=NEAR
expect 2 "NCCL_P2P_LEVEL='NEAR': expected LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS or a number (0-5; NCCL reads a larger one as 5, SYS)" run
unset NCCL_P2P_DISABLE NCCL_P2P_LEVEL
# NCCL_MIN_CTAS / NCCL_MAX_CTAS with NCCL_MIN/MAX_NCHANNELS: the larger
# minimum, the smaller maximum (graph/connect.cc)
export NCCL_MIN_CTAS=24
expect 0 "  -> NVLS/Simple on 24 channels" run -b 1G -e 1G --explain
export NCCL_MIN_NCHANNELS=4 NCCL_MAX_CTAS=8
expect 2 "the minimum channels (24: NCCL_MIN_NCHANNELS, NCCL_MIN_CTAS) are above the maximum (8: NCCL_MAX_NCHANNELS, NCCL_MAX_CTAS)" run
export NCCL_MIN_CTAS=0
expect 2 "environment NCCL_MIN_CTAS='0': expected a channel count from 1 to 32" run
unset NCCL_MIN_CTAS NCCL_MAX_CTAS NCCL_MIN_NCHANNELS
# NCCL's socket transport between servers: TCP over the NICs' Ethernet
# ports, through host memory, one proxy thread moving a rank's bytes
# (two L40S pods over 100GbE: 8 GB/s, [nccl] socket_thread_GBps 16 over a
# rank's 2 channels both ways); IP over InfiniBand is refused; inside one
# server it changes nothing
L40S="$(dirname "$0")/../data/systems/l40s-tcp-2.ini"
export NCCL_IB_DISABLE=1
expect 2 "16 ranks span 2 servers, and NCCL_IB_DISABLE puts NCCL's traffic between them on TCP sockets, but the NICs' port link 'ib-ndr-4x' is not Ethernet (IP over InfiniBand is not modelled)" run -t "$H2" -b 1M -e 1M
expect 0 "  1073741824     268435456     float     sum      -1   134" run -t "$L40S" -b 1G -e 1G
expect 0 "  Ring          LL128   off: LL128 is off by default without NVLink" run -t "$L40S" -b 1G -e 1G --explain
expect 0 "  network: NCCL's socket transport (NCCL_IB_DISABLE), TCP through host memory; each rank's proxy thread moves its connections' bytes" run -t "$L40S" -b 1G -e 1G --explain
# a protocol list naming LL128 turns it on (NCCL holds it at 1, not its
# default 2, and tuning.cc skips the check)
expect 0 "  -> Ring/LL128 on 2 channels" run -t "$L40S" -b 1G -e 1G --proto ll128 --explain
# over NVLink inside the node as well, LL128 stays off: the network path
# goes through the CPU
expect 0 "  Ring          LL128   off: LL128 is off by default over the socket transport (the network path goes through the CPU)" run -t "$(dirname "$0")/../data/systems/hgx-b200-roce-2.ini" -b 1M -e 1M --explain
# 4 helper threads a connection: the search's channel, 12 GB/s (the
# fastest of NCCL's speeds below the 100GbE port's 12.25), binds
export NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=1
expect 0 "  1073741824     268435456     float     sum      -1  89520" run -t "$L40S" -b 1G -e 1G
export NCCL_SOCKET_NTHREADS=17
expect 2 "environment NCCL_SOCKET_NTHREADS='17': expected a thread count (NCCL's MAX_THREADS) from 0 to 16" run -t "$L40S"
unset NCCL_SOCKET_NTHREADS NCCL_NSOCKS_PERTHREAD
unset NCCL_IB_DISABLE
# GPUDirect RDMA as ncclTopoCheckGdr decides it: NCCL_NET_GDR_LEVEL=LOC
# stages every step in host memory, the path to the NICs goes through the
# CPU, and LL128 is off across nodes
# (the L40S pods' GPU and NIC hang off root ports, PHB: no GPUDirect RDMA
# by default, as in NCCL)
expect 0 "  network: RDMA; GPUDirect RDMA for sends off, receives off (off: staged in host memory" run -t "$L40S" -b 1M -e 1M --explain
expect 0 "  network: RDMA; GPUDirect RDMA for sends on, receives on" run -t "$H2" -b 1M -e 1M --explain
# the graphs across nodes (search.cc): two DGX A100 on HDR, a channel a
# NIC at 24 GB/s (its PCIe link's), the tree raised to 30 on 2 nodes
# (pass 2: 8 x 30 fills NVLink's 240); four nodes, both at 24
A100POD=$(dirname "$0")/../../topologies/examples/dgx-a100-pod-hdr.ini
expect 0 "  graphs: 8 channels (16 in the kernel); a ring's 24.00 GB/s a channel (bwIntra = bwInter, the speed of the release's list at which the NICs and GPUs move most), a tree's 30.00 (bwIntra, raised to at most twice the ring's on 2 nodes)" run -t "$A100POD" -g 16 -b 1G -e 1G --explain
expect 0 "a tree's 24.00 (bwInter beyond 2 nodes)" run -t "$A100POD" -g 32 -b 1G -e 1G --explain
export NCCL_NET_GDR_LEVEL=LOC
expect 0 "  Tree          LL128   off: LL128 is off by default where the network path goes through the CPU (no GPUDirect RDMA, or the NIC no nearer than the CPU)" run -t "$H2" -b 4M -e 4M --explain
export NCCL_NET_GDR_LEVEL=FAR
expect 2 "environment NCCL_NET_GDR_LEVEL='FAR': expected LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS or a number" run -t "$H2"
unset NCCL_NET_GDR_LEVEL
export NCCL_NET_GDR_READ=yes
expect 2 "environment NCCL_NET_GDR_READ='yes': expected 0 or 1" run -t "$H2"
unset NCCL_NET_GDR_READ
# NCCL_NET_GDR_C2C=0: a GB200's NICs on its Grace CPU are too far for
# GPUDirect RDMA (1, the default from 2.27, counts them as near)
GB4=$(dirname "$0")/../../topologies/examples/gb200-nvl72-4rack-ndr.ini
expect 0 "  network: RDMA; GPUDirect RDMA for sends on, receives on" run -t "$GB4" -b 1M -e 1M --explain
# NVLS's heads: at most 32 of a rack's 72 GPUs from 2.25.1 (search.cc)
expect 0 "  NVLS: 32 channels, 32 heads a node (one a GPU, across nodes one a NIC, at most 32), chunks of at most 131072 B, NVLSTree's of at most 65536 B" run -t "$GB4" -b 1M -e 1M --explain
expect 0 "  NVLS: 16 channels, 72 heads a node (one a GPU, across nodes one a NIC), chunks of at most 131072 B, NVLSTree's of at most 65536 B" run -t "$GB4" -b 1M -e 1M --explain --nccl-version 2.21.5
export NCCL_NET_GDR_C2C=0
expect 0 "  network: RDMA; GPUDirect RDMA for sends off, receives off (off: staged in host memory; the NIC's gpudirect, its distance against NCCL_NET_GDR_LEVEL, NCCL_NET_GDR_READ and NCCL_NET_GDR_C2C decide)" run -t "$GB4" -b 1M -e 1M --explain
export NCCL_NET_GDR_C2C=on
expect 2 "environment NCCL_NET_GDR_C2C='on': expected 0 or 1" run -t "$H2"
unset NCCL_NET_GDR_C2C
export NCCL_IB_DISABLE=1
expect 0 "     1048576        262144     float     sum      -1    25.15" run -b 1M -e 1M
export NCCL_NET=IB
expect 2 "environment NCCL_NET='IB' asks for RDMA, but NCCL_IB_DISABLE='1' turns it off" run
unset NCCL_IB_DISABLE
export NCCL_NET=Socket
expect 2 "and NCCL_NET=Socket puts NCCL's traffic between them on TCP sockets" run -t "$H2" -b 1M -e 1M
export NCCL_NET="AWS Libfabric"
expect 0 "     1048576        262144     float     sum      -1    53.56" run -t "$H2" -b 1M -e 1M
export NCCL_NET="UCX"
expect 2 "environment NCCL_NET='UCX': ifsim models NCCL's IB transport and the RDMA plugins" run -t "$H2"
export NCCL_NET=gIB
expect 0 "     1048576        262144     float     sum      -1    53.56" run -t "$H2" -b 1M -e 1M
unset NCCL_NET
expect 2 "--nccl-version: '2.26.x' is not an NCCL version (expected 2.MINOR or 2.MINOR.PATCH, e.g. 2.26.2)" run --nccl-version 2.26.x
expect 2 "--nccl-version: '3' is not an NCCL version" replay "$(dirname "$0")/../../docs/workload-example.csv" --nccl-version 3
expect 0 "NVLS          Simple  off: excluded by the algorithm choice" run -b 8 -e 8 --explain --algo ^nvls
export NCCL_ALGO=tree
expect 0 "# 1048576 Tree" run -b 1M -e 1M
expect 0 "# 1048576 Ring" run -b 1M -e 1M --algo ring
# per collective, as NCCL 2.24 and later read NCCL_ALGO (tuning.cc
# parseList): the AllReduce entry replaces the list for AllReduce only
export NCCL_ALGO="ring;allreduce:nvls"
expect 0 "# 1073741824 NVLS Simple" run -c allreduce -b 1G -e 1G
expect 0 "# 1073741824 Ring Simple" run -c allgather -b 1G -e 1G
export NCCL_ALGO="ring;allredce:nvls"
expect 2 "ifsim: run: environment NCCL_ALGO: 'allredce' is not one of Broadcast, Reduce, AllGather, ReduceScatter, AllReduce (FUNCTION:LIST)" run
export NCCL_ALGO="allreduce:nvls;ring"
expect 2 "ifsim: run: environment NCCL_ALGO: 'allreduce:nvls;ring': every entry but the first needs a function prefix (LIST;FUNCTION:LIST;...)" run
export NCCL_ALGO=rng
expect 2 "NCCL_ALGO: 'rng' is not one of Tree, Ring" run
# NCCL's knobs are one option group: replay and sweep read the environment
# and the flags as run does, with the same messages and help
expect 2 "ifsim: replay: environment NCCL_ALGO: 'rng' is not one of Tree, Ring" replay "$(dirname "$0")/../../docs/workload-example.csv"
expect 2 "ifsim: sweep: point 0 (run.proto=simple): environment NCCL_ALGO: 'rng' is not one of Tree, Ring" sweep -b 1M -e 1M --vary run.proto=simple
unset NCCL_ALGO
export NCCL_COLLNET_ENABLE=2
expect 2 "environment NCCL_COLLNET_ENABLE='2': expected 0 or 1" replay "$(dirname "$0")/../../docs/workload-example.csv"
unset NCCL_COLLNET_ENABLE
# NCCL_NVLS_ENABLE as nvls.cc reads it: 0 off, 1 forced (the job fails
# where the GPUs have no NVLS), 2 the default; other values refused
export NCCL_NVLS_ENABLE=0
expect 0 "  NVLS          Simple  off: NCCL_NVLS_ENABLE=0" run -b 1G -e 1G --explain
export NCCL_NVLS_ENABLE=3
expect 2 "ifsim: run: environment NCCL_NVLS_ENABLE='3': expected a setting from 0 to 2" run
export NCCL_NVLS_ENABLE=1
expect 2 "ifsim: run: NCCL_NVLS_ENABLE=1 forces NVLink SHARP (NVLS), which the system's GPUs do not have (no NVSwitch multicast): NCCL fails the job there" run -t "$(dirname "$0")/../../topologies/examples/dgx-a100-pod-hdr.ini" -b 1M -e 1M
unset NCCL_NVLS_ENABLE
if NCCL_NVLS_ENABLE=2 "$IFSIM" run -b 1M -e 1M 2>&1 >/dev/null | grep -q "note: NCCL_NVLS_ENABLE"; then
  echo "FAIL: NCCL_NVLS_ENABLE, which is modelled, noted as not"; fails=$((fails + 1))
fi
# NCCL_IB_QPS_PER_CONNECTION: a RoCE connection's queue pairs, each its
# own flow to ECMP (the cookbook's RoCE pod, one fat-tree, 3:1 at the
# leaves: 4 QPs spread the ring's connections over the uplinks)
ecmp="$(dirname "$0")/../../docs/cookbook/roce-3to1.ini"
one=$("$IFSIM" run -t "$ecmp" -b 1G -e 1G --algo ring | awk '$1 == 1073741824 {print $7}')
four=$(NCCL_IB_QPS_PER_CONNECTION=4 "$IFSIM" run -t "$ecmp" -b 1G -e 1G --algo ring | awk '$1 == 1073741824 {print $7}')
if ! awk -v a="$one" -v b="$four" 'BEGIN {exit !(b > 1.1 * a)}'; then
  echo "FAIL: 4 queue pairs on ECMP ($four GB/s) not faster than 1 ($one GB/s)"; fails=$((fails + 1))
fi
# a sweep varies an NCCL_* variable as env.NAME: the same figures as runs
# under it; a variable ifsim does not read, or a bad value, is refused
# before any point runs
sw=$("$IFSIM" sweep -t "$ecmp" --vary env.NCCL_IB_QPS_PER_CONNECTION=1,4 -b 1G -e 1G --algo ring | awk -F, '$1 ~ /^[0-9]+$/ {printf "%s:%.2f\n", $2, $10}' | tr '\n' ' ')
if [ "$sw" != "1:$one 4:$four " ]; then
  echo "FAIL: sweep env.NCCL_IB_QPS_PER_CONNECTION=1,4 gave '$sw', runs 1:$one 4:$four"; fails=$((fails + 1))
fi
expect 2 "ifsim: sweep: --vary: env.NCCL_IB_TC: 'NCCL_IB_TC' is not an NCCL_* variable ifsim reads (docs/cli.md lists them)" sweep --vary env.NCCL_IB_TC=41,42
expect 2 "ifsim: sweep: --vary: env.NCCL_BUFFSIZE: environment NCCL_BUFFSIZE='4M': expected a buffer size" sweep --vary env.NCCL_BUFFSIZE=4194304,4M
export NCCL_IB_QPS_PER_CONNECTION=4
expect 0 "  network: RDMA; GPUDirect RDMA for sends on, receives on; 4 queue pairs a connection, each its own flow (NCCL_IB_QPS_PER_CONNECTION)" run -t "$(dirname "$0")/../../topologies/examples/roce-400g-fattree.ini" -b 1G -e 1G --explain
export NCCL_IB_QPS_PER_CONNECTION=33
expect 2 "ifsim: run: environment NCCL_IB_QPS_PER_CONNECTION='33': expected a queue pair count from 1 to 32 (the paths ifsim keeps for a connection)" run
unset NCCL_IB_QPS_PER_CONNECTION
# NCCL_CONF_FILE (NCCL 2.23 and later, misc/param.cc setEnvFile): its
# NAME=VALUE lines as if in the environment, which wins over them
conf=$(mktemp -d)
printf '# a cluster'"'"'s nccl.conf\nNCCL_IB_QPS_PER_CONNECTION=4\r\nNCCL_IB_TC=41\nNCCL_DEBUG=WARN\n' >"$conf/ok.conf"
export NCCL_CONF_FILE="$conf/ok.conf"
expect 0 "4 queue pairs a connection, each its own flow (NCCL_IB_QPS_PER_CONNECTION)" run -t "$(dirname "$0")/../../topologies/examples/roce-400g-fattree.ini" -b 1G -e 1G --explain
expect 0 "ifsim: run: note: NCCL_IB_TC=41 in $conf/ok.conf:3 is not modelled: predicted with NCCL's default" run -b 1M -e 1M
if "$IFSIM" run -b 1M -e 1M 2>&1 >/dev/null | grep -q "NCCL_CONF_FILE\|NCCL_DEBUG"; then
  echo "FAIL: NCCL_CONF_FILE or a logging variable noted"; fails=$((fails + 1))
fi
NCCL_IB_QPS_PER_CONNECTION=2 "$IFSIM" run -t "$(dirname "$0")/../../topologies/examples/roce-400g-fattree.ini" -b 1G -e 1G --explain >"$out" 2>&1
contains "$out" "2 queue pairs a connection"
printf 'NCCL_BUFFSIZE=4M\n' >"$conf/bad.conf"
export NCCL_CONF_FILE="$conf/bad.conf"
expect 2 "ifsim: run: $conf/bad.conf:1 NCCL_BUFFSIZE='4M': expected a buffer size in bytes" run
printf 'NCCL_ALGO=ring\nNCCL_ALGO=tree\n' >"$conf/bad.conf"
expect 2 "ifsim: run: $conf/bad.conf:2: NCCL_ALGO set again (first at $conf/bad.conf:1; NCCL keeps the first)" run
printf 'NCCL_ALGO ring\n' >"$conf/bad.conf"
expect 2 "ifsim: replay: $conf/bad.conf:1: 'NCCL_ALGO ring': expected NAME=VALUE, the name without blanks, or a # comment" replay "$(dirname "$0")/../../docs/workload-example.csv"
printf 'NCCL_ALGO =ring\n' >"$conf/bad.conf"
expect 2 "$conf/bad.conf:1: 'NCCL_ALGO =ring': expected NAME=VALUE, the name without blanks" run
export NCCL_CONF_FILE="$conf/none.conf"
expect 2 "ifsim: run: environment NCCL_CONF_FILE: $conf/none.conf: cannot read: No such file or directory" run
export NCCL_CONF_FILE="$conf/ok.conf"
expect 2 "ifsim: run: environment NCCL_CONF_FILE='$conf/ok.conf': NCCL reads it from 2.23; 2.22.3 reads ~/.nccl.conf and /etc/nccl.conf instead" run --nccl-version 2.22.3
unset NCCL_CONF_FILE
rm -rf "$conf"
# NCCL's example tuner plugin (--tuner-config, its NCCL_TUNER_CONFIG_FILE):
# a rule's choice and channels; one channel where no rule matches or a rule
# says -1 (the plugin's default); refusals name the file and line
tun=$(mktemp -d)
printf '# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks\nallreduce,0,1048576,ring,ll,4,-1,-1\nallreduce,1048577,1073741824,ring,simple,-1,-1,8\n' >"$tun/rules.conf"
expect 0 "# 1048576 Ring LL 4" run -b 1M -e 1M --tuner-config "$tun/rules.conf"
expect 0 "# 16777216 Ring Simple 1" run -b 16M -e 16M --tuner-config "$tun/rules.conf"
expect 0 "# 4294967296 NVLS Simple 1" run -b 4G -e 4G --tuner-config "$tun/rules.conf"
expect 0 "  tuner: NCCL's example plugin, $tun/rules.conf:3: Ring/Simple on 1 channel (the plugin's default: its -1 does not keep NCCL's count)" run -b 16M -e 16M --tuner-config "$tun/rules.conf" --explain
# (replay too: its AllReduces of 2 ranks, which no rule matches, on one
# channel, the DP group's 29 MB NVLS among them; 7232.062 us a step
# without the plugin)
expect 0 "  step time             10257.485 us" replay "$(dirname "$0")/../../docs/workload-example.csv" --tuner-config "$tun/rules.conf"
sw=$("$IFSIM" sweep -b 16M -e 16M --vary "run.tuner_config=$tun/rules.conf" | awk -F, '$1 ~ /^[0-9]+$/ {print $14}')
if [ "$sw" != "1" ]; then
  echo "FAIL: sweep run.tuner_config gave channels '$sw', expected 1"; fails=$((fails + 1))
fi
printf 'AllReduce,0,1,ring,ll,4,-1,-1\n' >"$tun/bad.conf"
expect 2 "ifsim: run: --tuner-config: $tun/bad.conf:1: collective_type 'AllReduce': expected broadcast, reduce, allgather, reducescatter, allreduce (the plugin would take it as allreduce)" run --tuner-config "$tun/bad.conf"
printf 'allreduce,0,1,ring,ll,4,-1\n' >"$tun/bad.conf"
expect 2 "ifsim: run: --tuner-config: $tun/bad.conf:1: 7 fields: expected 8 to 10" run --tuner-config "$tun/bad.conf"
expect 2 "ifsim: run: --tuner-config: $tun/none.conf: cannot read: No such file or directory" run --tuner-config "$tun/none.conf"
expect 2 "ifsim: run: NCCL's example tuner plugin reads its rules (NCCL_TUNER_CONFIG_FILE) from NCCL 2.28; 2.27.3's cannot" run --tuner-config "$tun/rules.conf" --nccl-version 2.27.3
rm -rf "$tun"
# PXN: an AllToAll on a rail-optimized fabric keeps each pair on one rail
# (no byte crosses a spine); NCCL_PXN_DISABLE=1 or NCCL_P2P_PXN_LEVEL=0
# sends by each rank's own NIC, across the rails through the spines
rails=$(mktemp -d)
printf '[system]\nserver = dgx-h100\nservers = 4\n[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\nrail_optimized = true\n' >"$rails/h4.ini"
"$IFSIM" run -t "$rails/h4.ini" -c alltoall -b 64M -e 64M --links-csv "$rails/pxn.csv" >/dev/null
NCCL_PXN_DISABLE=1 "$IFSIM" run -t "$rails/h4.ini" -c alltoall -b 64M -e 64M --links-csv "$rails/own.csv" >/dev/null
NCCL_P2P_PXN_LEVEL=0 "$IFSIM" run -t "$rails/h4.ini" -c alltoall -b 64M -e 64M --links-csv "$rails/level0.csv" >/dev/null
if grep -q spine "$rails/pxn.csv" || ! grep -q spine "$rails/own.csv" || ! cmp -s "$rails/own.csv" "$rails/level0.csv"; then
  echo "FAIL: PXN keeps an AllToAll on its rails, NCCL_PXN_DISABLE=1 (and NCCL_P2P_PXN_LEVEL=0) crosses them"; fails=$((fails + 1))
fi
rm -rf "$rails"
export NCCL_PXN_DISABLE=2
expect 2 "ifsim: run: environment NCCL_PXN_DISABLE='2': expected a setting from 0 to 1" run
unset NCCL_PXN_DISABLE
# NCCL_NET_FORCE_FLUSH (paths.cc ncclTopoNeedFlush): 0 or 1, read, not noted
export NCCL_NET_FORCE_FLUSH=2
expect 2 "ifsim: run: environment NCCL_NET_FORCE_FLUSH='2': expected a setting from 0 to 1" run
export NCCL_NET_FORCE_FLUSH=1
if "$IFSIM" run -b 1M -e 1M 2>&1 | grep -q "NCCL_NET_FORCE_FLUSH=1 in the environment is not modelled"; then
  echo "FAIL: NCCL_NET_FORCE_FLUSH is read, not noted as unmodelled"; fails=$((fails + 1))
fi
unset NCCL_NET_FORCE_FLUSH
# NCCL_IB_DATA_DIRECT (net_ib ncclIbInitDevices): 0 to 2, read; GB300
# trays (ConnectX-8 beside NVLink-C2C GPUs) use Data Direct from NCCL
# 2.27.3, and their Simple receives are flushed
a4xmax="$(dirname "$0")/../data/systems/gcp-a4x-max-2.ini"
export NCCL_IB_DATA_DIRECT=3
expect 2 "ifsim: run: environment NCCL_IB_DATA_DIRECT='3': expected a setting from 0 to 2" run
unset NCCL_IB_DATA_DIRECT
expect 0 "by Data Direct, beside the GPU (NCCL_IB_DATA_DIRECT); Simple receives flushed by an RDMA read each step (the Data Direct device asks it)" run -t "$a4xmax" -c allgather -b 64M -e 64M --nccl-version 2.28.9 --explain
export NCCL_IB_DATA_DIRECT=0
if "$IFSIM" run -t "$a4xmax" -c allgather -b 64M -e 64M --nccl-version 2.28.9 --explain 2>&1 | grep -q "Data Direct\|flushed\|not modelled"; then
  echo "FAIL: NCCL_IB_DATA_DIRECT=0 still uses Data Direct, or is noted"; fails=$((fails + 1))
fi
unset NCCL_IB_DATA_DIRECT
# the latency aws-ofi-nccl reports to NCCL's tuner (efa-*: 35 us)
expect 0 "the net plugin reports 35 us of latency, which NCCL's cost model adds to each network step (twice for Simple)" run -t "$(dirname "$0")/../data/systems/aws-p6-b300-efa-2.ini" -b 1M -e 1M --nccl-version 2.31.2 --explain
# NCCL_BUFFSIZE and its LL and LL128 kin (init.cc computeBuffSizes): a
# step is an eighth of the buffer, Ring/Simple's slice two steps
export NCCL_BUFFSIZE=16777216
expect 0 "Ring/Simple on 24 channels: the smallest estimate" run -b 1G -e 1G --algo ring --explain
expect 0 "NCCL's pipeline step 4194304 B" run -b 1G -e 1G --algo ring --explain
if "$IFSIM" run -b 1M -e 1M 2>&1 >/dev/null | grep -q "note: NCCL_BUFFSIZE"; then
  echo "FAIL: NCCL_BUFFSIZE, which is modelled, noted as not"; fails=$((fails + 1))
fi
export NCCL_BUFFSIZE=4M
expect 2 "ifsim: run: environment NCCL_BUFFSIZE='4M': expected a buffer size in bytes from 32768 (8 steps of 4 KiB) to 2147483647 (NCCL keeps it in an int)" run
unset NCCL_BUFFSIZE
export NCCL_LL128_BUFFSIZE=1024
expect 2 "ifsim: replay: environment NCCL_LL128_BUFFSIZE='1024': expected a buffer size in bytes from 32768" replay "$(dirname "$0")/../../docs/workload-example.csv"
unset NCCL_LL128_BUFFSIZE
# the point-to-point chunks (init.cc computeBuffSizes): one node all on
# NVLink takes NCCL_P2P_NVL_CHUNKSIZE, two nodes NCCL_P2P_NET_CHUNKSIZE
expect 0 "chunks of 524288 B (NCCL_P2P_NVL_CHUNKSIZE)" run -c sendrecv -b 1M -e 1M --explain
# and the channels of an operation (enqueue.cc addP2pToPlan): parts of at
# most 32 chunks, so 256 MiB takes 16 channels, 32 with half the chunk
expect 0 "each operation of 268435456 B on 16 channels (NCCL's count: 32 point-to-point channels, at most 32 an operation)" run -c sendrecv -b 256M -e 256M --explain
export NCCL_P2P_NVL_CHUNKSIZE=262144
expect 0 "each operation of 268435456 B on 32 channels" run -c sendrecv -b 256M -e 256M --explain
unset NCCL_P2P_NVL_CHUNKSIZE
export NCCL_P2P_NET_CHUNKSIZE=0x10000
expect 0 "chunks of 65536 B (NCCL_P2P_NET_CHUNKSIZE)" run -t "$(dirname "$0")/../data/systems/dgx-h100-ndr-2.ini" -c alltoall -b 1M -e 1M --explain
export NCCL_P2P_NET_CHUNKSIZE=4M
expect 2 "ifsim: run: environment NCCL_P2P_NET_CHUNKSIZE='4M': expected a chunk size in bytes from 4096 (a page) to 2147483647" run -c sendrecv -b 1M -e 1M
unset NCCL_P2P_NET_CHUNKSIZE
# NVLS's chunk (nvls.cc NCCL_NVLS_CHUNKSIZE, from 2.21.5; not read before)
export NCCL_NVLS_CHUNKSIZE=65536
expect 0 "NVLS/Simple on 16 channels: the smallest estimate (3204.64 us); NCCL's pipeline step 65536 B" run -b 1G -e 1G --explain
expect 0 "NCCL's pipeline step 131072 B" run -b 1G -e 1G --explain --nccl-version 2.20.5
unset NCCL_NVLS_CHUNKSIZE
export NCCL_NVLSTREE_MAX_CHUNKSIZE=1k
expect 2 "ifsim: run: environment NCCL_NVLSTREE_MAX_CHUNKSIZE='1k': expected a chunk size in bytes from 4096 (a page)" run
unset NCCL_NVLSTREE_MAX_CHUNKSIZE
expect 2 "ifsim: sweep: --channels: 'x' is not a count (expected a decimal integer >= 0)" sweep -b 1M -e 1M --vary run.algo=ring --channels x
expect 2 "ifsim: replay: --channels: 40 is not from 1 to 32" replay "$(dirname "$0")/../../docs/workload-example.csv" --channels 40
expect 2 "ifsim: replay: --fidelity: 'fast' is not one of analytical, flow, packet" replay "$(dirname "$0")/../../docs/workload-example.csv" --fidelity fast
for c in run replay sweep; do
  expect 0 "NCCL algorithms allowed, as NCCL_ALGO: ring, tree, nvls, nvlstree, collnetdirect, collnetchain, pat; a list, or ^list to exclude" $c --help
  expect 0 "NCCL_NET_GDR_READ, NCCL_NET_GDR_C2C, NCCL_NET_FORCE_FLUSH, NCCL_SOCKET_NTHREADS, NCCL_NSOCKS_PERTHREAD, NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT, NCCL_IB_QPS_PER_CONNECTION, NCCL_IB_DATA_DIRECT, NCCL_NVLS_ENABLE, NCCL_PAT_ENABLE, NCCL_PXN_DISABLE, NCCL_P2P_PXN_LEVEL, NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE, NCCL_P2P_NET_CHUNKSIZE, NCCL_P2P_NVL_CHUNKSIZE, NCCL_P2P_PCI_CHUNKSIZE, NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE are read from the environment, and from the NAME=VALUE lines of NCCL_CONF_FILE (NCCL 2.23 and later) where the environment does not set them; the flags take precedence." $c --help
done
export NCCL_PROTO=LL
expect 0 "# 1048576 Ring LL" run -b 1M -e 1M
unset NCCL_PROTO
export NCCL_MAX_NCHANNELS=0
expect 2 "NCCL_MAX_NCHANNELS='0': expected a channel count from 1 to 32" run
unset NCCL_MAX_NCHANNELS
expect 0 "# 1048576 Ring Simple 4" run -b 1M -e 1M --algo ring --proto simple --channels 4
expect 0 "  268435456      67108864     float    none       0" run -c broadcast -b 256M -e 256M
expect 0 "# 1048576 P2P Simple" run -c sendrecv -b 1M -e 1M
expect 0 "   1048576        262144     float    none      -1" run -c alltoall -b 1M -e 1M
expect 2 "-r: 8 is not a rank (0 to 7)" run -c reduce -r 8
expect 2 "--ports-csv: per-port counters come from the packet transport; add --fidelity packet" run -b 1M -e 1M --ports-csv ports.csv
expect 2 "--queue-samples: queue samples come from the packet transport; add --fidelity packet" run -b 1M -e 1M --fidelity flow --queue-samples q.csv
expect 2 "--sample-interval: goes with --queue-samples" run -b 1M -e 1M --fidelity packet --sample-interval 1us
expect 2 "--sample-interval: '2 parsecs' is not a time" run -b 1M -e 1M --fidelity packet --queue-samples q.csv --sample-interval "2 parsecs"
expect 2 "--sample-interval: must be above 0 ps" run -b 1M -e 1M --fidelity packet --queue-samples q.csv --sample-interval 0ns
if [ -e ports.csv ] || [ -e q.csv ]; then
  echo "FAIL: a refused run wrote a packet report"; fails=$((fails + 1))
fi
# packet fidelity: the same busbw as flow (within 5%) on the uncontended
# 8-GPU server, and its per-port report and queue samples
pk=$(mktemp -d)
expect 0 "all_reduce_perf" run -g 8 -b 1M -e 4M --fidelity packet --csv "$pk/p.csv" --links-csv "$pk/l.csv" --ports-csv "$pk/ports.csv" --queue-samples "$pk/q.csv" --sample-interval 500ns
expect 0 "all_reduce_perf" run -g 8 -b 1M -e 4M --csv "$pk/f.csv"
contains "$pk/p.csv" "# fidelity: packet"
grep '^[0-9]' "$pk/f.csv" | cut -d, -f1,8 >"$pk/f.bw"
grep '^[0-9]' "$pk/p.csv" | cut -d, -f1,8 >"$pk/p.bw"
if [ "$(wc -l <"$pk/p.bw")" -ne 3 ] ||
   ! paste -d, "$pk/p.bw" "$pk/f.bw" | awk -F, '
       { r = $2 / $4; printf "size %s: packet %s GB/s, flow %s GB/s\n", $1, $2, $4
         if ($1 != $3 || r < 0.95 || r > 1.05) bad = 1 }
       END { exit bad }'; then
  echo "FAIL: run --fidelity packet busbw is not within 5% of flow"; fails=$((fails + 1))
fi
# uncontended ring AllReduce: headers count in both transports, so packets
# differ from flows only by store and forward per step, under 2%
expect 0 "all_reduce_perf" run -g 8 -b 16M -e 64M -f 4 --algo ring --fidelity packet --csv "$pk/rp.csv"
expect 0 "all_reduce_perf" run -g 8 -b 16M -e 64M -f 4 --algo ring --csv "$pk/rf.csv"
grep '^[0-9]' "$pk/rp.csv" | cut -d, -f1,8 >"$pk/rp.bw"
grep '^[0-9]' "$pk/rf.csv" | cut -d, -f1,8 >"$pk/rf.bw"
if ! paste -d, "$pk/rp.bw" "$pk/rf.bw" | awk -F, '
       { n++; r = $2 / $4; if ($1 != $3 || r < 0.98 || r > 1.02) bad = 1 }
       END { exit bad || n != 2 }'; then
  echo "FAIL: ring AllReduce: packet busbw not within 2% of flow"; fails=$((fails + 1))
fi
if ! head -1 "$pk/ports.csv" | grep -q '^channel,src,dst,packets,payload_bytes,wire_bytes,drops,ecn_marks,pauses_received,pauses_sent,paused_us,credit_stalls,credit_stall_us,max_queue_bytes,busy_us,utilization$' ||
   [ "$(grep -c '^[0-9]' "$pk/ports.csv")" -lt 8 ]; then
  echo "FAIL: run --ports-csv"; cat "$pk/ports.csv"; fails=$((fails + 1))
fi
if ! head -1 "$pk/q.csv" | grep -q '^time_us,channel,src,dst,queue_bytes$' ||
   ! head -1 "$pk/l.csv" | grep -q '^channel,src,dst'; then
  echo "FAIL: run --queue-samples / --links-csv with packet fidelity"; fails=$((fails + 1))
fi
rm -rf "$pk"
expect 2 "-g: 12 does not fill whole servers of 8 GPUs" run -g 12 -t "$(dirname "$0")/../../topologies/examples/dgx-h100-superpod.ini"
expect 2 "-g: 16 is not between 2 and the system's 8 GPUs" run -g 16
expect 2 "-d: 'float7' is not one of" run -d float7
res=$(mktemp -d)
expect 0 "all_reduce_perf" run -b 1M -e 4M --csv "$res/r.csv" --json "$res/r.json" --links-csv "$res/l.csv"
if ! head -20 "$res/r.csv" | grep -q "^size_bytes,count_elements,type,redop,root,time_us,algbw_GBps,busbw_GBps,algo,proto,channels,nccl_model_us$"; then
  echo "FAIL: run --csv header"; fails=$((fails + 1))
fi
if [ "$(grep -c '^[0-9]' "$res/r.csv")" -ne 3 ]; then
  echo "FAIL: run --csv rows"; fails=$((fails + 1))
fi
if ! grep -q '"results"' "$res/r.json" || ! head -1 "$res/l.csv" | grep -q '^channel,src,dst'; then
  echo "FAIL: run --json / --links-csv"; fails=$((fails + 1))
fi
# the JSON reads back as nccl-tests -J output: validate against the same
# system predicts it exactly
expect 0 "# all points: median |error| 0.0%, worst 0.0%" validate "$res/r.json" -t "$(dirname "$0")/../../topologies/examples/dgx-h100.ini"
if ! grep -q '"nccl_version": 22809,' "$res/r.json" || ! grep -q '"devices": \[' "$res/r.json"; then
  echo "FAIL: run --json lacks nccl_version or devices"; fails=$((fails + 1))
fi
expect 0 "# hottest links: s0.gpu" run -b 1M -e 4M --links-csv "$res/l2.csv"
# --timeline / --link-samples: a trace with a process per rank, the CSV with
# its header and a row per interval and hot link (the trace's nesting is
# checked by the timeline suite, which parses it)
expect 0 "all_reduce_perf" run -g 4 -b 1M -e 4M --timeline "$res/t.json" --link-samples "$res/s.csv" --hot-links 5
contains "$res/t.json" '"traceEvents":['
contains "$res/t.json" '"name":"rank 3 (server 0 GPU 3)"'
contains "$res/t.json" '"name":"fabric"'
if [ "$(grep -c '"name":"process_name"' "$res/t.json")" -ne 5 ]; then
  echo "FAIL: run --timeline: 4 ranks and the fabric"; fails=$((fails + 1))
fi
if ! head -1 "$res/s.csv" | grep -q '^time_us,channel,src,dst,link,utilization$' ||
   [ "$(grep -c '^[0-9]' "$res/s.csv")" -lt 5 ] ||
   [ "$(cut -d, -f2 "$res/s.csv" | grep '^[0-9]' | sort -u | wc -l)" -ne 5 ]; then
  echo "FAIL: run --link-samples header / rows / 5 hot links"; fails=$((fails + 1))
fi
# AllToAll, which NCCL's model gives no estimate (-1): the default interval
# comes from its bytes at the GPU's rate (a negative one overflowed)
expect 0 "alltoall_perf" run -g 8 -c alltoall -b 16M -e 16M --link-samples "$res/a2a.csv" --hot-links 4
if [ "$(grep -c '^[0-9]' "$res/a2a.csv")" -lt 4 ] || [ "$(grep -c '^[0-9]' "$res/a2a.csv")" -gt 4000 ]; then
  echo "FAIL: run -c alltoall --link-samples: $(grep -c '^[0-9]' "$res/a2a.csv") rows"; fails=$((fails + 1))
fi
expect 2 "--link-samples: the analytical transport ignores contention" run --fidelity analytical --link-samples "$res/s2.csv"
expect 2 "--hot-links: 'x' is not a count of links" run --timeline "$res/t2.json" --hot-links x
expect 2 "--hot-links: goes with --link-samples or --timeline" run --hot-links 3
expect 2 "--sample-interval: goes with --queue-samples, --link-samples or --timeline" run --sample-interval 1us
[ ! -e "$res/t2.json" ] && [ ! -e "$res/s2.csv" ] || { echo "FAIL: a refused run left a file"; fails=$((fails + 1)); }
expect 2 "$res/nodir/r.csv" run -b 1M -e 1M --csv "$res/nodir/r.csv"
expect 2 "$res/nodir/r.json" run -b 1M -e 1M --csv "$res/ok.csv" --json "$res/nodir/r.json"
if [ -e "$res/ok.csv" ]; then
  echo "FAIL: a run whose JSON failed left its CSV"; fails=$((fails + 1))
fi
if [ -e "$res/nodir" ]; then
  echo "FAIL: a failed run left output"; fails=$((fails + 1))
fi
rm -rf "$res"
# --- sweep: a grid of tiny systems; run in tests/data/sweep so that the
# CSV names its topology as "tiny.ini" ---
SWEEP=$(cd "$(dirname "$0")/../data/sweep" && pwd)
swres=$(mktemp -d)
here=$(pwd)
cd "$SWEEP" || exit 1
grid="-t tiny.ini --vary system.servers=2,4 --vary scaleout.oversubscription=1,2 -b 1K -e 1M -f 32 -c allreduce,allgather"
expect 0 "ifsim sweep [OPTION...] [PLAN.ini]" sweep --help
# shellcheck disable=SC2086
"$IFSIM" sweep $grid -o "$swres/j1.csv" </dev/null
if cmp -s "$swres/j1.csv" golden.csv; then
  echo "ok: sweep CSV = tests/data/sweep/golden.csv"
else
  echo "FAIL: sweep CSV differs from golden.csv"; diff "$swres/j1.csv" golden.csv
  fails=$((fails + 1))
fi
# shellcheck disable=SC2086
"$IFSIM" sweep $grid -j 3 -o "$swres/j3.csv" </dev/null
if cmp -s "$swres/j1.csv" "$swres/j3.csv"; then
  echo "ok: sweep -j 3 = -j 1"
else
  echo "FAIL: sweep -j 3 differs from -j 1"; fails=$((fails + 1))
fi
# the same grid from a plan file: the same rows
"$IFSIM" sweep plan.ini -o "$swres/plan.csv" </dev/null
if [ "$(grep -v '^#' "$swres/plan.csv")" = "$(grep -v '^#' golden.csv)" ]; then
  echo "ok: sweep plan.ini rows = golden.csv rows"
else
  echo "FAIL: sweep plan.ini rows differ"; fails=$((fails + 1))
fi
contains "$swres/plan.csv" "# topology: tiny.ini"
# the command line adds to and overrides the plan
expect 0 "0,2,1,ring,AllReduce,1024,256,float,sum,-1," sweep plan.ini -e 1K --vary run.algo=ring
expect 0 "point,system.servers,scaleout.oversubscription,run.algo,collective" sweep plan.ini -e 1K --vary run.algo=ring
MPIRUN=$(command -v mpirun)
# Open MPI's own start-up leaks (libmpi's op tables, its plugins): with
# AddressSanitizer (CI's second build) leak checking is off for the mpirun
# runs only; every other check stays on, and the single-process and -j runs
# above check sweep's own memory.
mpi_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if [ -z "${IFSIM_UNDER_VALGRIND:-}" ] && [ -n "$MPIRUN" ] &&
   "$IFSIM" version | grep -qF "MPI sweeps (mpirun ... ifsim sweep): built"; then
  # shellcheck disable=SC2086
  if ASAN_OPTIONS=$mpi_asan "$MPIRUN" --oversubscribe --allow-run-as-root -np 2 "$IFSIM" sweep $grid \
       -o "$swres/mpi.csv" >"$out" 2>"$err" </dev/null &&
     cmp -s "$swres/j1.csv" "$swres/mpi.csv"; then
    echo "ok: mpirun -np 2 ifsim sweep = ifsim sweep"
  else
    echo "FAIL: mpirun -np 2 ifsim sweep"; cat "$out" "$err"
    fails=$((fails + 1))
  fi
  if ASAN_OPTIONS=$mpi_asan "$MPIRUN" --oversubscribe --allow-run-as-root -np 2 "$IFSIM" sweep \
       -t tiny.ini --vary system.nodes=2,4 -o "$swres/mpibad.csv" \
       >"$out" 2>"$err" </dev/null; then
    echo "FAIL: mpirun sweep with a bad key succeeded"; fails=$((fails + 1))
  elif [ "$(grep -c 'unknown key' "$err")" -ne 1 ] || [ -e "$swres/mpibad.csv" ]; then
    echo "FAIL: mpirun sweep with a bad key: not one report / left output"
    cat "$err"; fails=$((fails + 1))
  else
    echo "ok: mpirun sweep with a bad key: exit 2, reported once"
  fi
else
  echo "skip: MPI sweep (no mpirun, no MPI in this build, or under valgrind)"
fi
expect 2 "nothing to vary (give --vary KEY=V1,V2,..." sweep -t tiny.ini
expect 2 "tiny.ini: [system] nodes: unknown key (expected one of: description, server, servers)" sweep -t tiny.ini --vary system.nodes=2,4 -o "$swres/bad.csv"
expect 2 "point 0 (system.nodes=2): " sweep -t tiny.ini --vary system.nodes=2,4 -o "$swres/bad.csv"
expect 2 "every point failed; the first: point 0 (system.nodes=2)" sweep -t tiny.ini --vary system.nodes=2,4 -k -o "$swres/bad.csv"
expect 2 "--vary: sytem.servers: unknown group 'sytem' (expected run, env, system, scaleout" sweep --vary sytem.servers=1,2
expect 2 "--vary: run.frobs: unknown workload key 'frobs' (run.KEY: collective, minbytes" sweep --vary run.frobs=1
expect 2 "--vary: system.servers: empty value in '1,,2'" sweep --vary system.servers=1,,2
expect 2 "--vary: 'system.servers' is not KEY=V1,V2,..." sweep --vary system.servers
expect 2 "--vary: 'servers' is not GROUP.KEY" sweep --vary servers=1
expect 2 "--vary: run.minbytes: '1Q' is not" sweep --vary run.minbytes=1Q,2
expect 2 "--vary: system.servers is varied twice" sweep --vary system.servers=1 --vary system.servers=2
expect 2 "-b: '1Q' is not" sweep --vary system.servers=1 -b 1Q
expect 2 "-c: 'bcast' is not one of allreduce" sweep --vary system.servers=1 -c allreduce,bcast
expect 2 "-j: 0 is not from 1 to 4096" sweep --vary system.servers=1 -j 0
# errors name what the user typed: the long flag, a plan's key, a varied key
expect 2 "--minbytes (10) is larger than --maxbytes (9)" run --minbytes 10 --maxbytes 9
expect 2 "--nranks: 1 ranks; at least 2" run --nranks 1
names=$(mktemp -d)
printf '[sweep]\nranks = 1\n[vary]\nrun.collective = allreduce\n' >"$names/plan_ranks.ini"
expect 2 "plan_ranks.ini: [sweep] ranks: 1 ranks; at least 2" sweep "$names/plan_ranks.ini"
expect 2 "point 0 (run.minbytes=8M): run.minbytes (8388608) is larger than --maxbytes (4194304)" sweep --vary run.minbytes=8M --maxbytes 4M
: >"$names/plan_empty.ini"
expect 2 "plan_empty.ini: nothing to vary" sweep "$names/plan_empty.ini"
rm -rf "$names"
expect 2 "point 2 (run.ranks=6, system.servers=2): run.ranks: 6 is not between 2 and the system's 4 GPUs" sweep -t tiny.ini --vary run.ranks=4,6 --vary system.servers=2,3 -b 1K -e 1K -j 2 -o "$swres/bad.csv"
expect 2 "[scaleout] oversubscription: 64.5 is outside" sweep -t tiny.ini --vary scaleout.oversubscription=1,64.5 -b 1K -e 1K -o "$swres/bad.csv"
expect 2 "[scaleout] link: 'ib-nope' is not a known link" sweep -t tiny.ini --vary scaleout.link=ib-hdr-4x,ib-nope -b 1K -e 1K -o "$swres/bad.csv"
if [ -e "$swres/bad.csv" ]; then
  echo "FAIL: a failed sweep left its CSV"; fails=$((fails + 1))
fi
expect 0 "# point 2 failed: point 2 (run.ranks=6, system.servers=2): run.ranks: 6" sweep -t tiny.ini --vary run.ranks=4,6 --vary system.servers=2,3 -b 1K -e 1K -k
expect 0 "0,1,AllReduce,1048576,262144,float,sum,-1,150.217" sweep -t tiny.ini --vary "link ib-hdr-4x.cable_m=1,100" -b 1M -e 1M
expect 0 "1,10,AllReduce,8,2,float,sum,-1,25.002394" sweep --vary nccl.latency_us=0,10 -b 8 -e 8
expect 2 "nope.ini: cannot read" sweep nope.ini
expect 2 "unexpected argument 'b.ini' (one plan file at most)" sweep plan.ini b.ini
expect 2 "bad_group.ini: [sweeep]: unknown group (expected [sweep] and [vary])" sweep bad_group.ini
expect 2 "bad_key.ini: [sweep] maxbyte: unknown key (expected topology, models or a workload key" sweep bad_key.ini
expect 2 "bad_vary.ini: [vary]: run.fidelity: " sweep bad_vary.ini
expect 2 "bad_value.ini: [sweep] stepfactor: 'x4' is not a count" sweep bad_value.ini
# every varied workload value is one run takes, checked before any point
# runs: -k does not turn a typo into a failed point and exit 0
expect 2 "ifsim: sweep: --vary: run.op: 'xor' is not one of sum, prod, max, min, avg" sweep -b 1K -e 1K -k --vary run.op=sum,xor -o "$swres/k.csv"
expect 2 "ifsim: sweep: --vary: run.datatype: 'quad' is not one of int8" sweep -b 1K -e 1K -k --vary run.datatype=float,quad -o "$swres/k.csv"
expect 2 "ifsim: sweep: --vary: run.nccl_version: 'banana' is not an NCCL version" sweep -b 1K -e 1K -k --vary run.nccl_version=2.26.2,banana -o "$swres/k.csv"
expect 2 "ifsim: sweep: --vary: run.iters: 0; expected 1 to 4294967295" sweep -b 1K -e 1K -k --vary run.iters=1,0 -o "$swres/k.csv"
expect 2 "ifsim: sweep: --vary: run.fidelity: 'bogus' is not one of analytical, flow, packet" sweep -b 1K -e 1K -k --vary run.fidelity=flow,bogus -o "$swres/k.csv"
if [ -e "$swres/k.csv" ]; then
  echo "FAIL: a refused sweep left its CSV"; fails=$((fails + 1))
fi
cd "$here" || exit 1
rm -rf "$swres"
expect 2 "ifsim: topo: x.ini: cannot read" topo x.ini
expect 0 "Servers: 1 x 8 GPUs = 8 GPUs" topo
expect 0 "Bisection: scale-up 1926.0 GB/s" topo
expect 0 "8 leaves, 32 spines" topo --example dgx-h100-superpod
expect 0 "dragonfly-balanced" topo --list
expect 0 "s0.gpu0                s0.nvsw0" topo --links
expect 2 "no built-in example 'nope'" topo --example nope
expect 2 "give a file, --example or --import, not several" topo --example dgx-h100 a.ini
dot=$(mktemp -d)
expect 0 "Diameter: 2 hops" topo --dot "$dot/g.dot"
if ! head -1 "$dot/g.dot" | grep -q "^graph ifsim"; then
  echo "FAIL: topo --dot wrote no graph"; fails=$((fails + 1))
fi
rm -rf "$dot"
DATA=$(dirname "$0")/../data/import
expect 0 "8 GPUs; 2 CPU sockets; 9 NICs" topo --import "$DATA/smi_dgx_h100.txt"
expect 0 "8 GPUs; 4 CPU sockets; 9 NICs" topo --import "$DATA/smi_dgx_h100.txt" --import-sockets 4
expect 2 "--import-sockets: 0: expected sockets from 1 to 64" topo --import "$DATA/smi_dgx_h100.txt" --import-sockets 0
expect 0 "nic_affinity = 0,1,2,4,5,6,7,8" topo --import "$DATA/smi_dgx_h100.txt" --emit-ini -
expect 0 "Network: explicit, 1 plane(s): 2 leaves, 2 spines" topo --import "$DATA/ibnetdiscover_hdr_2tier.txt"
# what topo -m does not state: assumed aloud, or given
expect 0 "ifsim: topo: import: ASSUMED: GPUs on pcie5-x16" topo --import "$DATA/real/rtx2080ti_x2_autodl_spaces.txt"
# a real fabric: what is set aside is said, and the rest imports
expect 0 "ifsim: topo: import: set aside: 13 host(s) unlike the 109 kept" topo --import "$DATA/real/ibnetdiscover_topograph_example.out"
expect 0 "Servers: 109 x 4 GPUs" topo --import "$DATA/real/ibnetdiscover_topograph_example.out"
expect 2 "NIC port 0.4.0 is not attached (each of the 8 NICs" topo --import "$DATA/real/ibnetdiscover_topograph_example.out" --import-server dgx-h100
expect 0 "Per GPU: scale-up 15.8 GB/s" topo --import "$DATA/real/rtx2080ti_x2_autodl_spaces.txt" --import-pcie pcie3-x16
# a dump saved on Windows (CRLF line ends, a byte order mark) imports as
# the same dump does
crlf_dir=$(mktemp -d)
sed 's/$/\r/' "$DATA/smi_dgx_h100.txt" >"$crlf_dir/crlf.txt"
(printf '\357\273\277'; cat "$DATA/smi_dgx_h100.txt") >"$crlf_dir/bom.txt"
expect 0 "Servers: 1 x 8 GPUs = 8 GPUs" topo --import "$crlf_dir/crlf.txt"
expect 0 "Servers: 1 x 8 GPUs = 8 GPUs" topo --import "$crlf_dir/bom.txt"
printf '[job a]\nworkload = \n' >"$crlf_dir/jobs.ini"
expect 2 "jobs.ini: [job a]: workload: an empty file name (expected a path)" replay --jobs "$crlf_dir/jobs.ini"
rm -rf "$crlf_dir"
expect 2 "--import-nvlink: 'pcie5-x16' is a pcie link (expected an NVLink model" topo --import "$DATA/smi_dgx_h100.txt" --import-nvlink pcie5-x16
# an import option the dump's format does not read is an error, not dropped
expect 2 "smi_dgx_h100.txt: --import-server is not read from an nvidia-smi topo -m dump (it applies to an ibnetdiscover dump)" topo --import "$DATA/smi_dgx_h100.txt" --import-server hgx-b200
expect 2 "nccl_topo_h100.xml: --import-pcie is not read from an NCCL topology XML dump (it applies to an nvidia-smi topo -m dump)" topo --import "$DATA/nccl_topo_h100.xml" --import-pcie pcie3-x16
expect 2 "ibnetdiscover_hdr_2tier.txt: --import-nvlink is not read from an ibnetdiscover dump" topo --import "$DATA/ibnetdiscover_hdr_2tier.txt" --import-nvlink nvlink5
expect 2 "--list lists the built-in examples and server templates alone" topo --list "$(dirname "$0")/../../topologies/examples/dgx-h100.ini"
expect 2 "ifsim: version: unexpected argument 'extra' (version takes none)" version extra
expect 0 "ifsim: topo: import: GPUs on pcie3-x16 (given), PCIe switches pex8796" topo --import "$DATA/real/dgx1_topo_mp_pcie_only.txt" --import-pcie pcie3-x16 --import-nic cx6-hdr
expect 2 "--import-pcie: 'nvlink4' is not a PCIe Gen3 to Gen5 link" topo --import "$DATA/real/rtx2080ti_x2_autodl_spaces.txt" --import-pcie nvlink4
expect 2 "--import-pcie: 'pcie6-x16' is not a PCIe Gen3 to Gen5 link" topo --import "$DATA/real/rtx2080ti_x2_autodl_spaces.txt" --import-pcie pcie6-x16
# P2P: topo -m does not say; the 2080 Ti pair's driver refuses it (NS), and
# with --import-p2p no the pair predicts 4.00 GB/s, where it measured 4.00
# (reference2 anthonyhoo AllReduce; [nccl] shm_duplex_GBps 4.00 a GPU, the fit
# over every run without P2P; assumed otherwise, and said)
expect 0 "ASSUMED: the driver allows P2P between GPUs over PCIe" topo --import "$DATA/real/rtx2080ti_x2_autodl_spaces.txt" --import-pcie pcie3-x16
p2pdir=$(mktemp -d)
expect 0 "no P2P between GPUs over PCIe (given)" topo --import "$DATA/real/rtx2080ti_x2_autodl_spaces.txt" --import-pcie pcie3-x16 --import-p2p no --emit-ini "$p2pdir/t.ini"
contains "$p2pdir/t.ini" "gpu_p2p = false"
expect 0 "   536870912     134217728     float     sum      -1   134243    4.00    4.00" run -t "$p2pdir/t.ini" -b 512M -e 512M --gpus-per-process 2
rm -rf "$p2pdir"
expect 2 "--import-p2p: 'maybe' is not one of yes, no" topo --import "$DATA/real/rtx2080ti_x2_autodl_spaces.txt" --import-p2p maybe
expect 2 "--import-pcie describes what --import reads: give --import" topo --import-pcie pcie4-x16
expect 2 "--import-p2p describes what --import reads: give --import" topo --import-p2p no
ini=$(mktemp -d)
expect 0 "System: Imported from" topo --import "$DATA/nccl_topo_h100.xml" --emit-ini "$ini/h.ini"
expect 0 "Servers: 1 x 8 GPUs = 8 GPUs; 2 CPU sockets; 8 NICs" topo "$ini/h.ini"
rm -rf "$ini"
expect 2 "--emit-ini writes what --import read" topo --emit-ini x.ini
expect 2 "--format: 'json' is not one of" topo --import "$DATA/smi_8x4090.txt" --format json

expect 0 "nvlink4          nvlink  2 x 50 GBd PAM4" models
expect 0 "quantum2-ndr" models
expect 0 "cx7-ndr" models
expect 0 "# derived: data rate 504.1231 Gb/s" models pcie5-x16
expect 2 "ifsim: models: no model named 'nvlink9'" models nvlink9
bad=$(mktemp)
printf '[link nvlink4]\nlatency_ns = -5\n' >"$bad"
expect 2 "ifsim: models: $bad: [link nvlink4] latency_ns: -5 is outside [0, 1000000]" models -m "$bad"
printf '[link nvlink4]\nlatency_ns = 150\n' >"$bad"
expect 0 "latency_ns                 = 150" models -m "$bad" nvlink4
rm -f "$bad"

# calibrate and validate on the published measurements (tests/data/reference)
REF=$(dirname "$0")/../data/reference
MEAS=$(dirname "$0")/../data/measure
cal=$(mktemp -d)
printf '[system]\nserver = dgx-h100\n' >"$cal/h100.ini"
printf '[system]\nserver = dgx-a100\n' >"$cal/a100.ini"
expect 2 "ifsim: calibrate: -o/--output is required" calibrate "$REF/nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv" -t "$cal/h100.ini"
expect 2 "ifsim: calibrate: no measurement file given" calibrate -t "$cal/h100.ini" -o "$cal/c.ini"
expect 2 "ifsim: validate: -t/--topology is required" validate "$REF/nccl_allreduce_8xH100_sxm_nccltests290.csv"
expect 2 "ifsim: validate: $cal/none.csv: " validate "$cal/none.csv" -t "$cal/h100.ini"
expect 2 "ifsim: validate: $(dirname "$0")/../data/bad/measure/empty.txt" validate "$(dirname "$0")/../data/bad/measure/empty.txt" -t "$cal/h100.ini"
# a measurement of other GPUs than the system's: a warning, not a refusal
MEAS=$(dirname "$0")/../data/measure
SYSD=$(dirname "$0")/../data/systems
# an NCCL_* variable ifsim does not model is said, not dropped unseen
if ! NCCL_IB_TC=41 NCCL_DEBUG=INFO "$IFSIM" run -b 1M -e 1M 2>&1 >/dev/null | grep -qx "ifsim: run: note: NCCL_IB_TC=41 in the environment is not modelled: predicted with NCCL's default"; then
  echo "FAIL: unmodelled NCCL_* variable not noted"; fails=$((fails + 1))
fi
if NCCL_DEBUG=INFO NCCL_ALGO=ring NCCL_IB_QPS_PER_CONNECTION=4 "$IFSIM" run -b 1M -e 1M 2>&1 >/dev/null | grep -q "note: NCCL_"; then
  echo "FAIL: a read or logging NCCL_* variable noted"; fails=$((fails + 1))
fi
# a paste of two nccl-tests runs: one measurement set each
expect 0 "1 file(s) (2 measurement sets: one per nccl-tests run of a paste), 2 series, 24 points predicted" validate "$MEAS/nccltests_two_runs_8xH100.txt" -t "$SYSD/dgx-h100.ini"
# SimAI's pipeline: pp stages, each runs the rows, then the bubble
expect 0 "job simai_pp2: 8 ranks (tp 2, pp 2, dp 2, ep 1)" replay -t "$(dirname "$0")/../../topologies/examples/dgx-h100.ini" --astra "$(dirname "$0")/../data/workload/simai_pp2.txt"
expect 0 "compute                5100.401 us per rank" replay -t "$(dirname "$0")/../../topologies/examples/dgx-h100.ini" --astra "$(dirname "$0")/../data/workload/simai_pp2.txt"
expect 0 "ifsim: validate: warning: $MEAS/nccltests_allreduce_8xH100.txt: the measured GPUs are 'NVIDIA H100 80GB HBM3' (compute capability 9.0), the system's 8.0" validate "$MEAS/nccltests_allreduce_8xH100.txt" -t "$SYSD/dgx-a100.ini"
expect 0 "ifsim: calibrate: warning: $MEAS/p2p_8xA100_sxm4.txt: the measured GPUs are 'NVIDIA A100-SXM4-80GB' (compute capability 8.0), the system's 9.0" calibrate "$MEAS/p2p_8xA100_sxm4.txt" -t "$SYSD/dgx-h100.ini" -o "$cal/mismatch.ini"
expect 2 "ifsim: validate: --max-error: 'abc' is not a percentage" validate "$REF/nccl_allreduce_8xH100_sxm_nccltests290.csv" -t "$cal/h100.ini" --max-error abc
expect 2 "--plot $cal/p.txt: expected a file name ending in .svg or .png" validate "$REF/nccl_allreduce_8xH100_sxm_nccltests290.csv" -t "$cal/h100.ini" --plot "$cal/p.txt"
# nothing the system can predict, so nothing to calibrate: said, and no
# file written
expect 2 "perftest_ib_send_lat.txt: nothing to calibrate" calibrate "$MEAS/perftest_ib_send_lat.txt" -t "$cal/h100.ini" -o "$cal/none.ini"
if [ -e "$cal/none.ini" ]; then echo "FAIL: calibrate wrote a file it refused"; fails=$((fails + 1)); fi
# a verbs measurement on a one-server system: no point can be predicted
expect 2 "verbs runs between two hosts" validate "$MEAS/perftest_ib_write_bw_gbits.txt" -t "$cal/h100.ini"
expect 0 "# wrote $cal/c.ini" calibrate "$REF/nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv" -t "$cal/h100.ini" -o "$cal/c.ini"
# the nccl-tests#309 2-node run as it was taken (NCCL 2.26.2, 20 calls a
# timing): NVLSTree from 1 MiB, as the measured times are
printf '[system]\nserver = dgx-h100\nservers = 2\n[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\nrail_optimized = true\nrouting = dmodk\n' > "$cal/h2.ini"
expect 0 "# all points: median |error| 2.9%" validate "$REF/nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv" -t "$cal/h2.ini"
expect 0 "# all points: median |error| 2.7%" validate "$REF/nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv" -t "$cal/h2.ini" --nccl-version 2.26.2 --iters 20
# the calibration loop across node counts (docs/validate.md): GCP's GB200
# domain calibrated on 2 hosts predicts 8 and 16 hosts within 3.5%
LOOP="$MEAS/loop"
GB200="$(dirname "$0")/../data/systems/gb200-nvl72.ini"
expect 0 "# wrote $cal/loop.ini" calibrate "$LOOP/gcp_gb200_allreduce_2hosts.csv" -t "$GB200" --collective allreduce --ranks 8 --nccl-version 2.30.4 -o "$cal/loop.ini"
contains "$cal/loop.ini" "nvls_simple_efficiency = 1.05"
expect 0 "# all points: median |error| 1.9%" validate "$LOOP/gcp_gb200_allreduce_16hosts.csv" -t "$GB200" --collective allreduce --ranks 64 --nccl-version 2.30.4
expect 0 "# all points: median |error| 2.1%" validate "$LOOP/gcp_gb200_allreduce_8hosts.csv" -t "$GB200" --collective allreduce --ranks 32 --nccl-version 2.30.4 -m "$cal/loop.ini"
expect 0 "# all points: median |error| 3.5%" validate "$LOOP/gcp_gb200_allreduce_16hosts.csv" -t "$GB200" --collective allreduce --ranks 64 --nccl-version 2.30.4 -m "$cal/loop.ini"
expect 2 "ifsim: validate: --nccl-version: '2.x' is not an NCCL version" validate "$REF/nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv" -t "$cal/h2.ini" --nccl-version 2.x
expect 0 "# note: CUDA graph launches across nodes: NCCL runs a host function" validate "$REF/nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv" -t "$cal/h2.ini" --graph-launches 1
expect 2 "ifsim: calibrate: --graph-launches: '-1' is not a count from 0 to 2147483647" calibrate "$REF/nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv" -t "$cal/h2.ini" --graph-launches -1 -o "$cal/x.ini"
expect 2 "ifsim: calibrate: --iters: '0' is not a count from 1 to 4294967295" calibrate "$REF/nccl_allreduce_16xH100_2node_ndr8x400_nccltests309.csv" -t "$cal/h2.ini" --iters 0 -o "$cal/x.ini"
contains "$cal/c.ini" "[link pcie5-x16]"
contains "$cal/c.ini" "efficiency = 0.98"
expect 0 "efficiency                 = 0.98" models -m "$cal/c.ini" pcie5-x16
expect 0 "all_reduce_perf" run -t "$cal/h100.ini" -m "$cal/c.ini" -b 1M -e 1G -f 4
expect 0 "# wrote $cal/n.ini" calibrate "$REF/nccl_allreduce_8xA100_nvlink3_stas00mlengineering.csv" -t "$cal/a100.ini" -o "$cal/n.ini"
contains "$cal/n.ini" "[nccl]"
expect 0 "ring_ll_efficiency         = 0.63" models -m "$cal/n.ini" nccl
expect 0 "# all points: median |error| 8.9%" validate "$REF/nccl_allreduce_8xA100_nvlink3_stas00mlengineering.csv" -t "$cal/a100.ini" -m "$cal/n.ini"
# a transcription that names neither its collective nor its ranks, and
# whose busbw = algbw does not tell them: refused, saying how to give
# them; the options give them as the file's lines would
SR="$REF/nccl_sendrecv_8xA100_nvlink_liplus.csv"
expect 2 "cannot tell which collective was measured (busbw/algbw = 1.0000, redop 'sum' fit sendrecv, or allreduce if on 2 ranks): name it with a line '# collective = NAME', or validate or calibrate it with --collective NAME" validate "$SR" -t "$cal/a100.ini"
expect 2 "cannot be inferred for sendrecv (busbw = algbw): give it with a line '# ranks = N' (validate, calibrate: --ranks N)" validate "$SR" -t "$cal/a100.ini" --collective sendrecv
expect 0 "# all points: median |error| 9.9%" validate "$SR" -t "$cal/a100.ini" --collective sendrecv --ranks 8
expect 0 "# all points: median |error| 4.7%" validate "$SR" -t "$cal/a100.ini" -m "$cal/n.ini" --collective SendRecv --ranks 8
expect 2 "--collective: 'allreduce2' is not a collective (expected allreduce, allgather, reducescatter, broadcast, reduce, alltoall or sendrecv)" validate "$SR" -t "$cal/a100.ini" --collective allreduce2
expect 2 "--ranks: '8x' is not a count from 1 to 1048576" calibrate "$SR" -t "$cal/a100.ini" -o "$cal/sr.ini" --collective sendrecv --ranks 8x
if [ -e "$cal/sr.ini" ]; then echo "FAIL: calibrate wrote a file it refused"; fails=$((fails + 1)); fi
expect 0 "# all points: median |error|" validate "$REF/nccl_allreduce_8xH100_sxm_nccltests290.csv" "$MEAS/nccltests_allreduce_8xH100.json" -t "$cal/h100.ini" -m "$cal/c.ini" --csv "$cal/v.csv" --plot "$cal/v.svg" --points
contains "$cal/v.csv" "probe,test,mode,src,dst,ranks,size_bytes,measured_us,predicted_us,error_pct"
contains "$cal/v.svg" "<svg"
expect 1 "exceeds --max-error 1%" validate "$REF/nccl_allreduce_8xA100_nvlink3_stas00mlengineering.csv" -t "$cal/a100.ini" --max-error 1
# a published run that does not say its process layout: -g 8 given here
printf '[system]\nserver = rtx4090-8\n[server rtx4090-8]\ngpus = 8\nsockets = 2\nsocket_link = upi2\nroot_complex = root-complex-gen4\ngpu_pcie = pcie4-x16\ngpu_arch = sm89\ncpu = amd\n' >"$cal/rtx.ini"
# (NCCL 2.21.5: before 2.23, NCCL lets an AMD host's GPUs use P2P across
# its root complexes; 2.23 and later stage them through host memory)
expect 0 "# all points: median |error| 46.4%" validate "$REF/nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv" -t "$cal/rtx.ini" --nccl-version 2.21.5
expect 0 "# all points: median |error| 8.1%" validate "$REF/nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv" -t "$cal/rtx.ini" --nccl-version 2.21.5 --gpus-per-process 8
expect 0 "# all points: median |error| 49.4%, worst 417.0%" validate "$REF/nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv" -t "$cal/rtx.ini"
expect 0 "# wrote $cal/r8.ini" calibrate "$REF/nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv" -t "$cal/rtx.ini" --nccl-version 2.21.5 --gpus-per-process 8 -o "$cal/r8.ini"
contains "$cal/r8.ini" "host_launch_us = 5.2"
# (its floor points run 1 and 2 channels: too few counts for a slope)
if grep -q "host_launch_per_channel_us" "$cal/r8.ini"; then
  echo "FAIL: calibrate fitted a per-channel launch cost from two channel counts"; fails=$((fails + 1))
fi
# before NCCL 2.22 a launch costs the host per channel: where the floor
# points span three channel counts or more, calibrate fits the host's pair
# (the 8xH800 Broadcast, NCCL 2.18.3, -g 8 -n 100: 3.24 us and 0.139 a
# further channel, against the shipped fit over several hosts)
H800=$(dirname "$0")/../data/reference2/nccl_broadcast_8xH800_nvlink_inspurNF5688M7_1node_g8_nccl2.18.3.csv
cp "$(dirname "$0")/../data/systems/h800-8.ini" "$cal/h800.ini"
expect 0 "# all points: median |error| 53.0%" validate "$H800" -t "$cal/h800.ini" --gpus-per-process 8 --nccl-version 2.18.3 --iters 100 --collective broadcast --ranks 8
expect 0 "# wrote $cal/h8.ini" calibrate "$H800" -t "$cal/h800.ini" --gpus-per-process 8 --nccl-version 2.18.3 --iters 100 --collective broadcast --ranks 8 -o "$cal/h8.ini"
contains "$cal/h8.ini" "host_launch_per_channel_us = 0.139"
contains "$cal/h8.ini" "host_launch_us = 3.2"
expect 0 "# all points: median |error| 1.7%" validate "$H800" -t "$cal/h800.ini" --gpus-per-process 8 --nccl-version 2.18.3 --iters 100 --collective broadcast --ranks 8 -m "$cal/h8.ini"
# the same host's p2pBandwidthLatencyTest copies: PCIe's efficiency from
# the pairs of one socket, the socket link's from the pairs across
# (docs/validate.md); the AllReduce then validates at 5.4% (8.1% above)
expect 0 "# wrote $cal/p8.ini" calibrate "$REF/p2p_8xRTX4090_pcie_P2Punlocked_chlc.csv" -t "$cal/rtx.ini" -o "$cal/p8.ini"
contains "$cal/p8.ini" "[link upi2]"
contains "$cal/p8.ini" "efficiency = 0.654"
expect 0 "# all points: median |error| 5.4%" validate "$REF/nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv" -t "$cal/rtx.ini" --nccl-version 2.21.5 --gpus-per-process 8 -m "$cal/p8.ini"
expect 2 "ifsim: validate: --gpus-per-process: '0' is not a count from 1 to 1024" validate "$REF/nccl_allreduce_8xRTX4090_pcie_P2Punlocked_chlc.csv" -t "$cal/rtx.ini" --gpus-per-process 0
expect 0 "median |error|" validate "$REF/p2p_8xA100_sxm4_80gb_distserve3.csv" "$MEAS/p2p_8xA100_sxm4.txt" -t "$cal/a100.ini"
rm -rf "$cal"

# ifsim plot: a PNG from each kind of CSV; PNG signature, plausible size and
# IHDR width x height.  Failures leave no image and an older one as it was.
DATA=$(dirname "$0")/../data/plot
plt=$(mktemp -d)
# png_ok FILE WIDTH HEIGHT
png_ok() {
  sig=$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')
  bytes=$(wc -c <"$1" 2>/dev/null || echo 0)
  dims=$(od -An -tu1 -j16 -N8 "$1" 2>/dev/null)
  set -- "$1" "$2" "$3" $dims
  w=$(( ($4 << 24) | ($5 << 16) | ($6 << 8) | $7 ))
  h=$(( ($8 << 24) | ($9 << 16) | (${10} << 8) | ${11} ))
  if [ "$sig" = 89504e470d0a1a0a ] && [ "$bytes" -gt 5000 ] &&
     [ "$w" -eq "$2" ] && [ "$h" -eq "$3" ]; then
    echo "ok: $1 is a ${w}x${h} PNG of $bytes bytes"
  else
    echo "FAIL: $1: signature $sig, $bytes bytes, ${w}x${h} (expected a ${2}x${3} PNG over 5000 bytes)"
    fails=$((fails + 1))
  fi
}
# absent FILE: no such file
absent() {
  if [ -e "$1" ]; then
    echo "FAIL: $1 exists"; fails=$((fails + 1))
  else
    echo "ok: no $1"
  fi
}
expect 0 "Image width in pixels" plot --help
expect 0 "all_reduce_perf" run --csv "$plt/ar.csv" --links-csv "$plt/links.csv" -b 8 -e 64M
expect 0 "all_gather_perf" run -c allgather --csv "$plt/ag.csv" -b 8 -e 64M
expect 0 "# wrote $plt/run.png (run, from 2 files)" plot "$plt/ar.csv" "$plt/ag.csv" -o "$plt/run.png" --width 800 --height 600 --script "$plt/run.gp"
png_ok "$plt/run.png" 800 600
contains "$plt/run.gp" "set output \"$plt/run.png\""
contains "$plt/run.gp" "LEGEND[2] = \"AllGather on One NVIDIA DGX H100\""
contains "$plt/run.gp" "set xtics ('16B' 16, '64B' 64, '256B' 256, '1K' 1024,"
expect 0 "# wrote $plt/links.png (links, from 1 file)" plot "$plt/links.csv" -o "$plt/links.png"
png_ok "$plt/links.png" 1024 768
expect 0 "# wrote $plt/sweep.png (sweep" plot "$DATA/sweep.csv" -o "$plt/sweep.png" --title "HDR or NDR?"
# titles are drawn as typed: a leading quote, a backslash, a double quote,
# UTF-8 in any locale (GLib's conversion from the C locale refused it)
expect 0 "# wrote $plt/q.png (sweep" plot "$DATA/sweep.csv" -o "$plt/q.png" --title "'quoted' run"
expect 0 "# wrote $plt/q.png (sweep" plot "$DATA/sweep.csv" -o "$plt/q.png" --title 'a\b "c" µs'
saved_lc_all=${LC_ALL-}
LC_ALL=C
export LC_ALL
expect 0 "# wrote $plt/q.png (sweep" plot "$DATA/sweep.csv" -o "$plt/q.png" --title "5 µs"
if [ -n "$saved_lc_all" ]; then LC_ALL=$saved_lc_all; else unset LC_ALL; fi
expect 2 "-b: '1K€' is not a size" run -b "1K€" -e 1K
expect 2 "--title: '$(printf 'a\357\277\275')' is not UTF-8 text (expected UTF-8)" plot "$DATA/sweep.csv" -o "$plt/q.png" --title "$(printf 'a\377')"
png_ok "$plt/sweep.png" 1024 768
expect 0 "# wrote $plt/replay.png (replay-summary" plot "$DATA/replay_summary.csv" -o "$plt/replay.png" --width 640 --height 480
png_ok "$plt/replay.png" 640 480
expect 0 "# wrote $plt/samples.png (link-samples" plot "$DATA/link_samples.csv" -o "$plt/samples.png" --max-links 3
png_ok "$plt/samples.png" 1024 768
expect 0 "# wrote $plt/samples.svg" plot "$DATA/link_samples.csv" -o "$plt/samples.svg"
contains "$plt/samples.svg" "<svg"
expect 2 "-o $plt/x.jpg: expected a file name ending in .png or .svg" plot "$DATA/sweep.csv" -o "$plt/x.jpg"
expect 2 "-o OUT.png is required" plot "$DATA/sweep.csv"
expect 2 "--width: 10 is outside [64, 16384] (pixels)" plot "$DATA/sweep.csv" -o "$plt/x.png" --width 10
expect 2 "is a run CSV (expected files of one kind)" plot "$plt/ar.csv" "$DATA/sweep.csv" -o "$plt/x.png"
printf '# system: x\nsize_bytes,time_us\n8,1\n' >"$plt/bad.csv"
expect 2 "$plt/bad.csv:2: header 'size_bytes,time_us' is of no CSV ifsim plots (expected the header of one of: run (size_bytes," plot "$plt/bad.csv" -o "$plt/x.png"
head -n 12 "$plt/ar.csv" >"$plt/cut.csv"; printf '4096,1024,flo' >>"$plt/cut.csv"
expect 2 "$plt/cut.csv:13: 3 fields, expected 12 as in the header (a truncated row?)" plot "$plt/cut.csv" -o "$plt/x.png"
head -n 10 "$plt/ar.csv" >"$plt/empty.csv"
expect 2 "$plt/empty.csv:10: no data rows after the header" plot "$plt/empty.csv" -o "$plt/x.png"
absent "$plt/x.png"
cp "$plt/run.png" "$plt/old.png"
export IFSIM_GNUPLOT=/nonexistent
expect 2 "gnuplot not found: IFSIM_GNUPLOT='/nonexistent' is not a program" plot "$plt/ar.csv" -o "$plt/x.png"
absent "$plt/x.png"
expect 2 "gnuplot not found" plot "$plt/ar.csv" -o "$plt/old.png"
printf '#!/bin/sh\necho "line 3: invalid command" >&2\nexit 1\n' >"$plt/broken-gnuplot"
chmod +x "$plt/broken-gnuplot"
export IFSIM_GNUPLOT="$plt/broken-gnuplot"
expect 2 "gnuplot ($plt/broken-gnuplot) failed: line 3: invalid command" plot "$plt/ar.csv" -o "$plt/old.png"
unset IFSIM_GNUPLOT
expect 2 "cut.csv:13" plot "$plt/cut.csv" -o "$plt/old.png"
if cmp -s "$plt/run.png" "$plt/old.png" && [ -z "$(find "$plt" -name '.old.png.*')" ]; then
  echo "ok: failed plots left the older $plt/old.png as it was, no temporaries"
else
  echo "FAIL: a failed plot changed $plt/old.png or left a temporary"; fails=$((fails + 1))
fi
# the same inputs, the same script
expect 0 "# wrote" plot "$plt/ar.csv" "$plt/ag.csv" -o "$plt/run.png" --width 800 --height 600 --script "$plt/run2.gp"
if cmp -s "$plt/run.gp" "$plt/run2.gp"; then
  echo "ok: the generated script is deterministic"
else
  echo "FAIL: two runs wrote different scripts"; fails=$((fails + 1))
fi
rm -rf "$plt"

# ifsim replay: a workload CSV, a generated LLM step, an ASTRA-sim file,
# several jobs on one fabric; the summary plots; bad input
RP=$(dirname "$0")/../data/replay
WL=$(dirname "$0")/../data/workload
EX=$(dirname "$0")/../../docs/workload-example.csv
A100=$(dirname "$0")/../../topologies/examples/dgx-a100-pod-hdr.ini
rp=$(mktemp -d)
expect 0 "Replay one training step" replay --help
expect 0 "job workload-example: 8 ranks (tp 2, pp 2, dp 2, ep 1) on server 0" replay "$EX" --csv "$rp/ops.csv" --summary-csv "$rp/sum.csv" --write-workload "$rp/w.csv"
contains "$rp/ops.csv" "job,id,name,op,group,stage,size_bytes,compute_us,instances,algo,proto,channels,start_us,end_us,duration_us,measured_us"
contains "$rp/sum.csv" "job,step_us,compute_us,exposed_us,exposed_tp_us,exposed_dp_us,exposed_pp_us,exposed_ep_us,exposed_edp_us,exposed_world_us,slowdown"
if cmp -s "$EX" "$rp/w.csv"; then
  echo "ok: --write-workload wrote the workload as read"
else
  echo "FAIL: --write-workload differs from $EX"; fails=$((fails + 1))
fi
expect 0 "job llm: 8 ranks (tp 4, pp 2, dp 1, ep 1)" replay --llm "layers=4,hidden=1024,ffn=4096,vocab=32000,seq=512,mbs=1,microbatches=2,tp=4,pp=2,dp=1,tflops=989,mfu=0.5,optimizer_us=100"
expect 0 "job astra_2layer: 8 ranks (tp 8, pp 1, dp 1, ep 1)" replay --astra "$WL/astra_2layer.txt" --astra-tp 8
# ASTRA-sim 1.0's own files have no all_gpus: the job size is given
expect 2 "Resnet50_DataParallel.txt: the job's ranks: the file does not say them" replay --astra "$WL/real/Resnet50_DataParallel.txt"
expect 2 "give them with --astra-gpus N" replay --astra "$WL/real/Resnet50_DataParallel.txt"
expect 0 "job Resnet50_DataParallel: 8 ranks (tp 1, pp 1, dp 8, ep 1)" replay --astra "$WL/real/Resnet50_DataParallel.txt" --astra-gpus 8
expect 0 "job aicb_G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100: 8 ranks (tp 8" replay --astra "$WL/real/aicb_G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt" --astra-gpus 8
expect 2 "--astra-gpus: 0 is not a job size" replay --astra "$WL/real/Resnet50_DataParallel.txt" --astra-gpus 0
expect 2 ":1: all_gpus: 8, but --astra-gpus gives 16" replay --astra "$WL/astra_2layer.txt" --astra-tp 8 --astra-gpus 16
jobs_gpus=$(mktemp)
printf '[job resnet]\nastra = %s\nastra_gpus = 8\n' "$(cd "$WL/real" && pwd)/Resnet50_DataParallel.txt" >"$jobs_gpus"
expect 0 "job resnet: 8 ranks (tp 1, pp 1, dp 8, ep 1)" replay --jobs "$jobs_gpus"
printf '[job resnet]\nastra = %s\nastra_gpus = 8x\n' "$(cd "$WL/real" && pwd)/Resnet50_DataParallel.txt" >"$jobs_gpus"
expect 2 "[job resnet]: astra_gpus '8x' is not a count of GPUs" replay --jobs "$jobs_gpus"
rm -f "$jobs_gpus"
expect 0 "links the jobs share: 72 (the busiest first)" replay --jobs "$RP/jobs.ini" -t "$A100" --summary-csv "$rp/jobs.csv" --csv "$rp/jobs-ops.csv" --links-csv "$rp/links.csv"
for g in summary ops; do
  f=$rp/jobs.csv
  [ "$g" = ops ] && f=$rp/jobs-ops.csv
  if cmp -s "$f" "$RP/golden_jobs_$g.csv"; then
    echo "ok: replay --jobs $g CSV = golden_jobs_$g.csv"
  else
    echo "FAIL: replay --jobs $g CSV differs from golden_jobs_$g.csv"
    diff "$f" "$RP/golden_jobs_$g.csv" | head -5; fails=$((fails + 1))
  fi
done
expect 0 "# wrote" plot "$rp/jobs.csv" -o "$rp/jobs.png" --width 640 --height 480
png_ok "$rp/jobs.png" 640 480
expect 0 "step time" replay "$EX" --timeline "$rp/t.json" --link-samples "$rp/ls.csv" --hot-links 3 --sample-interval 50us
contains "$rp/t.json" '"name":"fabric"'
contains "$rp/ls.csv" "time_us,channel,src,dst,link,utilization"
expect 2 "--link-samples: the analytical transport counts a transfer whole" replay "$EX" --link-samples "$rp/ls2.csv" --fidelity analytical
expect 2 "--hot-links: goes with --link-samples or --timeline" replay "$EX" --hot-links 3
expect 2 "ifsim: replay: workload: no workload" replay
expect 2 "--placement: 'best' is not one of packed, spread, random" replay "$EX" --placement best
expect 2 "bad_key.ini: [job a]: unknown key 'placment'" replay --jobs "$RP/bad_key.ini"
expect 2 "taken.ini: [job b] servers: server 7 is taken (expected a free server below 40)" replay --jobs "$RP/taken.ini" -t "$A100"
expect 2 "--servers: 2 servers listed, the job's 8 ranks need 1" replay "$EX" --servers 0-1
expect 2 "--jobs: the jobs file names each job's workload" replay --jobs "$RP/jobs.ini" "$EX"
expect 2 "--jobs: the jobs file names each job's workload" replay --jobs "$RP/jobs.ini" --seed 3
expect 2 "repeated.ini:4: [job a] is given twice (first at line 1)" replay --jobs "$RP/repeated.ini"
expect 2 "explicit_alone.ini: [job a]: servers and placement = explicit go together" replay --jobs "$RP/explicit_alone.ini"
expect 2 "huge_range.ini: [job a]: '0-4294967295' lists more than 1048576 servers" replay --jobs "$RP/huge_range.ini"
expect 2 "missing.ini: [job a]: " replay --jobs "$RP/missing.ini"
expect 2 "--servers: '0-200000000' lists more than 1048576 servers" replay "$EX" --servers 0-200000000
expect 2 "--seed: goes with --placement random" replay "$EX" --seed 5
expect 2 "ifsim: sweep: run.maxbytes is both fixed (its option or [sweep] maxbytes) and varied; give one" sweep -e 64M --vary run.maxbytes=2M,4M
expect 2 "--astra-tp: goes with --astra" replay "$EX" --astra-tp 8
expect 2 "--astra-gpus: goes with --astra" replay "$EX" --astra-gpus 8
expect 0 "step time" replay "$EX" --placement random --seed 5 --timeline "$rp/t3.json" --hot-links all
expect 2 "$rp/none/x.csv" replay "$EX" --summary-csv "$rp/s2.csv" --csv "$rp/none/x.csv"
absent "$rp/s2.csv"
# NCCL logs: the calls of a real job, written as a workload CSV that
# replays to the same step; bad logs write nothing
NL=$(dirname "$0")/../data/nccllog
H2=$(dirname "$0")/../data/systems/dgx-h100-ndr-2.ini
expect 0 "job tp2dp2_2node_nccl2.28: 4 ranks (9 communicators, from" replay -t "$H2" --nccl-log "$NL/tp2dp2_2node_nccl2.28.log" --write-workload "$rp/log.csv" --summary-csv "$rp/log-sum.csv"
contains "$err" "note: 8 calls of count 0 left out"
contains "$rp/log.csv" "# comm: c0 0 1 2 3"
contains "$rp/log.csv" "# ranks_per_server: 2"
log_step=$(sed -n 2p "$rp/log-sum.csv" | cut -d, -f2)
expect 0 "step time" replay -t "$H2" "$rp/log.csv" --summary-csv "$rp/csv-sum.csv"
if [ "$(sed -n 2p "$rp/csv-sum.csv" | cut -d, -f2)" = "$log_step" ] && [ -n "$log_step" ]; then
  echo "ok: the log's workload CSV replays to the log's step ($log_step us)"
else
  echo "FAIL: the log's workload CSV replays to $(sed -n 2p "$rp/csv-sum.csv"), the log to $log_step"
  fails=$((fails + 1))
fi
expect 0 "compute                1300.000 us per rank" replay -t "$H2" --nccl-log "$NL/tp2dp2_2node_nccl2.28.log" --gap 100us
expect 0 "job perproc_nccl.node-a.4100: 4 ranks (9 communicators, from NCCL logs)" replay -t "$H2" --nccl-log "$NL/perproc_nccl.node-a.4100.log" --nccl-log "$NL/perproc_nccl.node-a.4101.log" --nccl-log "$NL/perproc_nccl.node-b.4102.log" --nccl-log "$NL/perproc_nccl.node-b.4103.log"
expect 2 "missing_rank.log:9: communicator 0x55d0a0002000 has 4 ranks; the log holds 3 of them" replay -t "$H2" --nccl-log "$NL/../bad/nccllog/missing_rank.log" --write-workload "$rp/bad-log.csv"
absent "$rp/bad-log.csv"
expect 2 "perproc_nccl.node-a.4100.log:7: no timestamp on this call line" replay -t "$H2" --nccl-log "$NL/perproc_nccl.node-a.4100.log" --gap timestamps
expect 2 "--gap: 'soon' is not a time with a unit (e.g. 150us) or 'timestamps'" replay --nccl-log "$NL/tp2dp2_2node_nccl2.28.log" --gap soon
expect 2 "--gap: goes with --nccl-log" replay "$EX" --gap 5us
expect 2 "workload-example.csv: no 'NCCL INFO' line in its 50 lines: not an NCCL log" replay "$EX" --nccl-log "$NL/tp2dp2_2node_nccl2.28.log"
expect 2 "--jobs: the jobs file names each job's workload" replay --jobs "$RP/jobs.ini" --nccl-log "$NL/tp2dp2_2node_nccl2.28.log"
expect 2 "--servers: 1 servers listed, the job's 4 ranks need 2" replay --nccl-log "$NL/tp2dp2_2node_nccl2.28.log" --servers 0
# PyTorch profiler traces: the trace's step, as measured and on the fabric
KD=$(dirname "$0")/../data/kineto
A1=$(dirname "$0")/../data/systems/dgx-a100.ini
expect 0 "measured step        224353.405 us (the trace's; the step above is +0.0%)" replay -t "$A1" --kineto "$KD/ddp2_rank0_step6.json.gz" --kineto "$KD/ddp2_rank1_step6.json.gz" --as-measured
expect 0 "note: ProfilerStep#6 of 2 ranks" replay -t "$A1" --kineto "$KD/ddp2_rank0_step6.json.gz" --kineto "$KD/ddp2_rank1_step6.json.gz" --step 6 --csv "$rp/k.csv"
contains "$rp/k.csv" "allreduce.pg0.3,allreduce,pg0,,31502336,"
contains "$rp/k.csv" ",5983.024"
expect 2 "world_size 2, and no trace of rank 1" replay -t "$A1" --kineto "$KD/ddp2_rank0_step6.json.gz" --write-workload "$rp/k1.csv"
absent "$rp/k1.csv"
expect 2 "no ProfilerStep#7 event" replay -t "$A1" --kineto "$KD/ddp2_rank0_step6.json.gz" --kineto "$KD/ddp2_rank1_step6.json.gz" --step 7
expect 2 "--step: goes with --kineto" replay "$EX" --step 3
expect 2 "--as-measured: goes with --kineto" replay "$EX" --as-measured
expect 2 "workload-example.csv: not valid JSON" replay "$EX" --kineto "$KD/ddp2_rank0_step6.json.gz"
expect 2 "--nccl-log: more than one workload: --kineto" replay --nccl-log "$NL/tp2dp2_2node_nccl2.28.log" --kineto "$KD/ddp2_rank0_step6.json.gz"
# Chakra execution traces: the files after --chakra are more ranks
CD=$(dirname "$0")/../data/chakra
expect 0 "job all_reduce.0: 8 ranks (1 communicator, from Chakra traces) on server 0" replay --chakra "$CD"/all_reduce.*.et --write-workload "$rp/c.csv"
contains "$rp/c.csv" "1,allreduce.pg0.0,allreduce,pg0,1048576,,,,"
expect 0 "sendrecv.p0-1.0" replay --chakra "$CD/mixed.1.et" "$CD/mixed.0.et"
expect 2 "mixed.1.et: its name gives rank 1, and 1 files are given" replay --chakra "$CD/mixed.1.et" --write-workload "$rp/c1.csv"
absent "$rp/c1.csv"
expect 2 "old_version.0.et: Chakra schema version '0.0.3' is not supported" replay --chakra "$(dirname "$0")/../data/bad/chakra/old_version.0.et"
expect 2 "--kineto: more than one workload: --chakra" replay --chakra "$CD/mixed.0.et" --kineto "$KD/ddp2_rank0_step6.json.gz"
# traces in a jobs file, side by side
expect 0 "job et: 2 ranks (4 communicators, from Chakra traces) on server 2" replay --jobs "$RP/traces.ini" -t "$A100"
expect 0 "note: $RP/traces.ini: [job log]: 8 calls of count 0 left out" replay --jobs "$RP/traces.ini" -t "$A100"
expect 2 "two_traces.ini: [job a]: more than one workload (expected one of workload, llm, astra, nccl_log, kineto, chakra)" replay --jobs "$RP/two_traces.ini"
expect 2 "gap_alone.ini: [job a]: gap goes with nccl_log" replay --jobs "$RP/gap_alone.ini"
rm -rf "$rp"

# folding alike channels and whole bodies change no figure where nothing
# contends (the analytical transport): the same table without them
sp="$(dirname "$0")/../../topologies/examples/dgx-h100-superpod.ini"
"$IFSIM" run -t "$sp" -g 64 -b 1M -e 64M -f 8 --fidelity analytical \
  >"$out.att" 2>&1
"$IFSIM" run -t "$sp" -g 64 -b 1M -e 64M -f 8 --fidelity analytical \
  --no-fold >"$out.sep" 2>&1
if cmp -s "$out.att" "$out.sep" && grep -q "^ *67108864 " "$out.att"; then
  echo "ok: run --no-fold prints the folded run's table"
else
  echo "FAIL: run --no-fold differs:"; diff "$out.att" "$out.sep" | head
  fails=$((fails + 1))
fi
expect 0 "--no-fold" run --help
expect 2 "ifsim: sweep: --vary: run.no_fold: 'maybe' is not true or false" sweep --vary run.no_fold=maybe -b 1M -e 1M -o "$out.csv"
"$IFSIM" sweep --vary run.no_fold=true,false -b 1M -e 1M -o "$out.csv" ||
  { echo "FAIL: sweep --vary run.no_fold=true,false"; fails=$((fails + 1)); }
contains "$out.csv" "0,true,AllReduce,1048576"
# --no-shortcut turns --no-fold's shortcuts off one at a time: on the
# packet transport a Send/Recv between two DGX H100 runs alone on its
# paths, whose closed form gives the same table as every packet as events;
# the three named are --no-fold
h2="$out.h2.ini"
printf '[system]\nserver = dgx-h100\nservers = 2\n[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\nrail_optimized = true\n' >"$h2"
"$IFSIM" run -t "$h2" --fidelity packet -c sendrecv -b 4M -e 4M >"$out.att" 2>&1
"$IFSIM" run -t "$h2" --fidelity packet -c sendrecv -b 4M -e 4M \
  --no-shortcut=closed-form >"$out.sep" 2>&1
if cmp -s "$out.att" "$out.sep" && grep -q "^ *4194304 " "$out.att"; then
  echo "ok: run --no-shortcut=closed-form prints the closed form's table"
else
  echo "FAIL: run --no-shortcut=closed-form differs:"; diff "$out.att" "$out.sep" | head
  fails=$((fails + 1))
fi
"$IFSIM" run -t "$h2" --fidelity packet -c sendrecv -b 4M -e 4M \
  --no-fold >"$out.att" 2>&1
"$IFSIM" run -t "$h2" --fidelity packet -c sendrecv -b 4M -e 4M \
  --no-shortcut ' Whole,fold ,CLOSED-FORM' >"$out.sep" 2>&1
if cmp -s "$out.att" "$out.sep" && grep -q "^ *4194304 " "$out.att"; then
  echo "ok: run --no-shortcut=fold,whole,closed-form prints --no-fold's table"
else
  echo "FAIL: run --no-shortcut with all three differs from --no-fold:"; diff "$out.att" "$out.sep" | head
  fails=$((fails + 1))
fi
rm -f "$h2"
# an AllToAll of 1024 ranks in closed form, said in the table, the CSV and
# the JSON (docs/transports.md); 1024 DGX H100, one size
h128="$out.h128.ini"
printf '[system]\nserver = dgx-h100\nservers = 128\n[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 3\nrail_optimized = true\nrouting = dmodk\n' >"$h128"
expect 0 "# note: AllToAll on 1024 ranks in closed form" run -t "$h128" -c alltoall -b 1M -e 1M --csv "$out.a2a.csv" --json "$out.a2a.json"
contains "$out.a2a.csv" "# note: AllToAll on 1024 ranks in closed form"
contains "$out.a2a.json" '"notes": ["AllToAll on 1024 ranks in closed form'
expect 0 "median |error| 0.0%" validate "$out.a2a.json" -t "$h128"
rm -f "$h128" "$out.a2a.csv" "$out.a2a.json"
# from 128 ranks (NCCL_ALLTOALL_CLOSED_RANKS): the cookbook's 16-server pod
# in closed form, 15 of its servers (120 ranks) every pair run
expect 0 "# note: AllToAll on 128 ranks in closed form" run -t "$(dirname "$0")/../../docs/cookbook/pod.ini" -c alltoall -b 64K -e 64K
p120="$out.p120.ini"
sed 's/^servers = 16$/servers = 15/' "$(dirname "$0")/../../docs/cookbook/pod.ini" >"$p120"
if "$IFSIM" run -t "$p120" -c alltoall -b 64K -e 64K 2>&1 | grep -q "in closed form"; then
  echo "FAIL: an AllToAll of 120 ranks ran in closed form"; fails=$((fails + 1))
else
  echo "ok: an AllToAll of 120 ranks runs every pair"
fi
rm -f "$p120"
expect 0 "--no-shortcut=LIST" run --help
expect 2 "ifsim: run: --no-shortcut: 'folding' is not one of fold, whole, closed-form, alltoall" run -b 1M -e 1M --no-shortcut=folding
expect 2 "ifsim: run: --no-shortcut: '' is not one of fold, whole, closed-form, alltoall" run -b 1M -e 1M --no-shortcut=fold,,whole
expect 2 "ifsim: replay: --no-shortcut: 'x' is not one of fold, whole, closed-form, alltoall" replay --llm params=7B --no-shortcut=x
rm -f "$out.csv"
expect 2 "ifsim: sweep: --vary: run.no_shortcut: 'bogus' is not one of fold, whole, closed-form, alltoall" sweep --vary run.no_shortcut=whole,bogus -b 1M -e 1M -o "$out.csv"
absent "$out.csv"
"$IFSIM" sweep --vary run.no_shortcut=fold,closed-form -b 1M -e 1M -o "$out.csv" ||
  { echo "FAIL: sweep --vary run.no_shortcut=fold,closed-form"; fails=$((fails + 1)); }
contains "$out.csv" "1,closed-form,AllReduce,1048576"
# faults (docs/faults.md): the flags of run and topo, ifsim faults
pod="$(dirname "$0")/../../topologies/examples/dgx-h100-superpod.ini"
expect 0 "# fault: down: p0.leaf0 (64 links)" run -t "$pod" -b 1G -e 1G --fail p0.leaf0
expect 0 "327.33" run -t "$pod" -b 1G -e 1G --fail p0.leaf0
expect 0 "Faults: 1 physical link down, 1 slower" topo "$pod" --fail 'p0.leaf0 p0.spine0' --degrade 's0.nic0 p0.leaf0 ib-ndr-1x' --dot "$out.dot"
contains "$out.dot" '"p0.leaf0" -- "p0.spine0" [label="ib-ndr-4x down", style=dashed, color=red];'
contains "$out.dot" '"p0.leaf0" -- "p0.spine1" [label="ib-ndr-4x x1"];'
expect 0 "down: p0.leaf7 p0.spine30 x1 (random, seed 7)" topo "$pod" --fail-random 2 --fault-seed 7
expect 2 "ifsim: run: --fail: 'p0.spine99' names no element of this system" run -t "$pod" --fail p0.spine99
expect 2 "ifsim: run: --fail: s0.cpu0 is a CPU socket: ifsim models faults of the network (network switches, NICs and the links between them) and of NVLinks (a GPU's, an NVSwitch's), not yet of PCIe or socket links" run -t "$pod" --fail s0.cpu0
# a GPU's NVLinks (docs/faults.md): Fabric Manager takes a GPU whose
# access link failed off NVLink (its default), and NCCL runs rings over
# PCIe; with the links kept, NVLS at 13 of the GPU's 18 links' rate; an
# NVSwitch down stops the server unless it is disabled
expect 0 "# fault: down: s0.gpu3 (Fabric Manager removes the GPU of a failed access link from NVLink: access_link_failure_mode = remove-gpu)" run -b 1G -e 1G --fail 's0.gpu3 s0.nvsw0 x1'
expect 0 "# 1073741824 Ring Simple 2" run -b 1G -e 1G --fail 's0.gpu3 s0.nvsw0 x1'
expect 0 "Faults: 18 physical links down, 0 slower" topo --fail s0.gpu3 --dot "$out.dot"
contains "$out.dot" '"s0.gpu3" -- "s0.nvsw0" [label="nvlink4 down", style=dashed, color=red];'
expect 2 "ifsim: run: s0.nvsw1 down (faults from --fail): Fabric Manager leaves server 0's NVLink fabric uninitialized" run -b 1G -e 1G --fail s0.nvsw1
nvdir="$(mktemp -d)"
printf '[system]\nserver = dgx-h100\n[faults]\naccess_link_failure_mode = keep-links\nnvswitch_failure_mode = disable\n' >"$nvdir/keep.ini"
expect 0 "333.83" run -t "$nvdir/keep.ini" -b 1G -e 1G --fail 's0.gpu3 s0.nvsw0'
expect 0 "    1  s0.nvsw0" faults -t "$nvdir/keep.ini" -b 1G -e 1G --criticality nvswitches
expect 0 "# worst of 2 nvlinks (seed " faults -t "$nvdir/keep.ini" -b 1G -e 1G --random 2 --random-kind nvlinks --draws 3
printf '[system]\nserver = dgx-a100\n[faults]\naccess_link_failure_mode = disable-nvswitch\nfail = s0.gpu3 s0.nvsw0 x1\n' >"$nvdir/a100.ini"
expect 0 "# fault: down: s0.nvsw0 (Fabric Manager disables the switch of a failed access link: access_link_failure_mode = disable-nvswitch)" run -t "$nvdir/a100.ini" -b 1G -e 1G
printf '[system]\nserver = dgx-a100\n[faults]\naccess_link_failure_mode = drop\n' >"$nvdir/bad.ini"
expect 2 "access_link_failure_mode: 'drop' is not one of remove-gpu, disable-nvswitch, keep-links" run -t "$nvdir/bad.ini"
rm -rf "$nvdir"
# a straggler: NVLS's channels at 1/1.25 of their rate, a replayed step
# waiting for the slow GPU's compute
expect 0 "# fault: straggler: s0.gpu3, its work 1.25x as long (1 GPU)" run -b 1G -e 1G --slow-gpu 's0.gpu3 1.25'
expect 0 "369.14" run -b 1G -e 1G --slow-gpu 's0.gpu3 1.25'
expect 0 "step time              6284.016 us" replay -t "$(dirname "$0")/../../topologies/examples/dgx-h100.ini" --astra "$(dirname "$0")/../data/workload/simai_pp2.txt" --slow-gpu 's0.gpu3 1.2'
expect 2 "ifsim: run: --slow-gpu: 0.9 is not a slowdown factor in [1, 1000]" run --slow-gpu 's0.gpu3 0.9'
# a fault under the running call: InfiniBand routes around a spine at once;
# a NIC's connections fail after their retries; an Ethernet link stalls the
# call until the routing converges and the retransmission timer fires
expect 0 "# fault: at 1ms into each call, p0.spine0 goes down: InfiniBand fat-tree: with SHIELD" run -t "$pod" -n 16 -b 1G -e 1G --fail-at '1ms p0.spine0'
expect 0 "# fault: 1073741824 B: the call fails 34.361 s after it starts; the job starts again on a new communicator (--fail s1.nic0: that state)" run -t "$pod" -n 16 -b 1G -e 1G --fail-at '1ms s1.nic0'
export NCCL_IB_RETRY_CNT=1
expect 0 "# fault: 1073741824 B: the call fails 8.591 s after it starts" run -t "$pod" -n 16 -b 1G -e 1G --fail-at '1ms s1.nic0'
unset NCCL_IB_RETRY_CNT
roce="$(dirname "$0")/../../topologies/examples/roce-400g-fattree.ini"
expect 2 "ifsim: run: --fail-at: p0.leaf0 p0.spine0: Ethernet: the switch above a link that went down has no other way to the switch below, and drops what it sends there until the routing converges; give --reroute-time" run -t "$roce" -b 1G -e 1G --fail-at '1ms p0.leaf0 p0.spine0'
expect 0 "the call stalls 4.295 s (1 of its connections' retransmission timer" run -t "$roce" -b 1G -e 1G --fail-at '1ms p0.leaf0 p0.spine0' --reroute-time 300ms
expect 0 "4300721" run -t "$roce" -b 1G -e 1G --fail-at '1ms p0.leaf0 p0.spine0' --reroute-time 300ms
expect 2 "ifsim: run: --fail-at: 's0.gpu0 s0.nvsw0' is an NVLink" run -t "$pod" -n 16 -b 1G -e 1G --fail-at '1ms s0.gpu0 s0.nvsw0 x1'
expect 2 "ifsim: run: --fail-at: 's0.gpu0 s0.nvsw1' is an NVLink: one that fails under a running job fails the job" run -t "$pod" -n 16 -b 1G -e 1G --fail-at '1ms s0.nvsw1'
expect 2 "ifsim: run: --fail-at: 'p0.leaf0' is not 'TIME ELEMENT'" run -t "$pod" --fail-at 'p0.leaf0'
# a lossy link: go-back-N resends, and the chance of a retransmission timeout
expect 0 "# fault: lossy: s0.nic0, bit error rate 1e-06 (1 link)" run -t "$roce" -b 1G -e 1G --lossy 's0.nic0 1e-6'
expect 0 "7309.49" run -t "$roce" -b 1G -e 1G --lossy 's0.nic0 1e-6'
expect 0 "stalls 4.295 s for its retransmission timer (not in the times): 1073741824 B 82.4%" run -t "$roce" -b 1G -e 1G --lossy 's0.nic0 1e-6'
expect 2 "ifsim: run: --lossy: 2 is not a bit error rate in (0, 1e-3]" run -t "$roce" --lossy 's0.nic0 2'
expect 2 "ifsim: run: --reroute-time: goes with --fail-at" run -t "$pod" --reroute-time 1s
export NCCL_IB_TIMEOUT=40
expect 2 "ifsim: run: environment NCCL_IB_TIMEOUT='40': expected an exponent from 1 to 31" run
unset NCCL_IB_TIMEOUT
expect 2 "ifsim: run: --degrade: 2 is outside (0, 1]" run -t "$pod" --degrade 's0.nic0 p0.leaf0 2'
expect 2 "ifsim: run: --fault-seed: seeds --fail-random, which is not given" run -t "$pod" --fault-seed 3
expect 2 "ifsim: run: --fail: s0.nic0 is a NIC, and faults of NICs need a network between servers: this system has none (topology = none)" run --fail s0.nic0
expect 2 "every NIC of server 0 is down (faults from --fail)" run -t "$pod" -b 1M -e 1M --fail 's0.nic*'
expect 0 "    1  p0.leaf0" faults -t "$pod" -b 1G -e 1G --criticality leaves --csv "$out.csv"
contains "$out.csv" "element,size_bytes,time_us,busbw_GBps,slowdown,algo,proto,channels,outcome"
contains "$out.csv" "p0.leaf0,1073741824,6534.923156,327.332853,1.133822,NVLSTree"
expect 0 "     2     10" faults -t "$pod" -b 1G -e 1G --random 1,2 --draws 10
# -j: the scenarios in worker processes, the report and CSV byte for byte
# those of one process
jdir=$(mktemp -d)
for j in 1 3; do
  "$IFSIM" faults -t "$pod" -b 1G -e 1G --criticality leaves --csv "$jdir/c$j.csv" -j $j >"$jdir/c$j.txt" </dev/null
  "$IFSIM" faults -t "$pod" -b 1G -e 1G --random 2 --draws 3 --random-kind nics --csv "$jdir/r$j.csv" -j $j >"$jdir/r$j.txt" </dev/null
done
if cmp -s "$jdir/c1.csv" "$jdir/c3.csv" && cmp -s "$jdir/c1.txt" "$jdir/c3.txt" &&
   cmp -s "$jdir/r1.csv" "$jdir/r3.csv" && cmp -s "$jdir/r1.txt" "$jdir/r3.txt" &&
   grep -q "p0.leaf0,1073741824,6534.923156," "$jdir/c3.csv"; then
  echo "ok: faults -j 3 = -j 1"
else
  echo "FAIL: faults -j 3 differs from -j 1"; fails=$((fails + 1))
fi
rm -rf "$jdir"
expect 2 "ifsim: faults: -j: 0 is not from 1 to 4096" faults -t "$pod" --criticality spines -j 0
expect 2 "ifsim: faults: -j: 5000 is not from 1 to 4096" faults -t "$pod" --criticality spines -j 5000
# a cut scenario's message names the system file without its folders
fdir=$(mktemp -d)
printf '[system]\nserver = dgx-h100\nservers = 2\n[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 2\nradix = 16\n[faults]\ndegrade = s0.nic0 p0.leaf0 0.5\n' >"$fdir/two.ini"
expect 0 "every NIC of server 0 is down (faults from two.ini: [faults] degrade, --criticality)" faults -t "$fdir/two.ini" -b 1M -e 1M --criticality leaves --csv "$fdir/c.csv"
if grep -q "$fdir" "$fdir/c.csv"; then
  echo "FAIL: ifsim faults --csv holds a path"; fails=$((fails + 1))
fi
# an AllToAll of 4096 ranks: run computes it in closed form (24 s), faults runs
# every pair for the baseline as for its scenarios (docs/faults.md), which
# does not fit: refused before any scenario, not reported as cuts
printf '[system]\nserver = dgx-h100\nservers = 512\n[scaleout]\ntopology = fat-tree\nswitch = quantum2-ndr\ntiers = 3\nrail_optimized = true\n' >"$fdir/big.ini"
expect 2 "ifsim: faults: AllToAll on 4096 ranks needs about 128.0 GiB of memory" faults -t "$fdir/big.ini" -c alltoall -b 16K -e 16K --criticality spines --max-memory 4G
# a sweep that varies faults: every point by one method too
expect 2 "ifsim: sweep: point 0 (faults.fail=none): AllToAll on 4096 ranks needs about 128.0 GiB of memory" sweep -t "$fdir/big.ini" -c alltoall -b 16K -e 16K --vary faults.fail=none,s0.nic0 --max-memory 4G -o "$fdir/sweep.csv"
if [ -e "$fdir/sweep.csv" ]; then
  echo "FAIL: ifsim sweep left a half-written CSV"; fails=$((fails + 1))
fi
rm -rf "$fdir"
# a GB200 NVL72 GPU off NVLink: over the network, not modelled inside an
# NVLink domain; said, and not counted as a cut in faults
gbdir=$(mktemp -d)
printf '[system]\nserver = gb200-nvl72\n' >"$gbdir/gb.ini"
printf '[system]\nserver = gb200-nvl72\n[faults]\naccess_link_failure_mode = keep-links\n' >"$gbdir/keep.ini"
expect 2 "ifsim: run: s0.gpu1 is off NVLink (faults from --fail, and Fabric Manager's policies) and server 0's NVLink domain spans 36 hosts" run -t "$gbdir/gb.ini" -b 1M -e 1M --fail 's0.gpu1 s0.nvsw0 x1'
expect 2 "which ifsim does not model inside one NVLink domain; [faults] access_link_failure_mode = keep-links keeps a GPU's links that are up" faults -t "$gbdir/gb.ini" -b 1M -e 1M --criticality nvlinks
expect 2 "ifsim: faults: s0.gpu0 is off NVLink" faults -t "$gbdir/gb.ini" -b 1M -e 1M --criticality nvlinks -j 2
expect 0 "       1      2   1.0071   1.0071   1.0071   1.0071   1.0071   1.0071           1     0" faults -t "$gbdir/keep.ini" -b 1M -e 1M --random 1 --random-kind nvlinks --draws 2
rm -rf "$gbdir"
expect 2 "ifsim: faults: give one of --criticality KIND and --random LIST" faults -t "$pod"
expect 2 "ifsim: faults: --criticality: 'routers' is not a kind of element faults take (switches, leaves, spines, cores, nics, links, nvlinks, gpus, nvswitches)" faults -t "$pod" --criticality routers
expect 2 "ifsim: faults: --random: '0' is not a count of elements from 1" faults -t "$pod" --random 1,0
expect 0 "# random spines down: 3 draws per count (seeds 4-6)" faults -t "$pod" -b 1G -e 1G --random 2 --random-kind spines --draws 3 --seed 4
expect 0 "# worst of 2 spines (seed " faults -t "$pod" -b 1G -e 1G --random 2 --random-kind spines --draws 3 --seed 4
expect 0 "# worst of 1 links (seed 1): ifsim run --fail-random 1 --fault-seed 1" faults -t "$pod" -b 1G -e 1G --random 1 --draws 1
expect 2 "ifsim: faults: --random: 9 is more than the 8 leaves of the system" faults -t "$pod" --random 9 --random-kind leaves
expect 2 "ifsim: faults: --random-kind: goes with --random" faults -t "$pod" --criticality spines --random-kind nics
expect 2 "ifsim: faults: --draws: goes with --random, not --criticality" faults -t "$pod" --criticality spines --draws 3
expect 2 "ifsim: faults: --criticality: the system has no cores" faults -t "$pod" --criticality cores
# a training step's blast radius: the job on servers 0-3 of the 3:1 pod
spec='layers=4,hidden=4096,ffn=14336,mlp=swiglu,vocab=32000,seq=4096,mbs=1,microbatches=4,tp=8,pp=2,dp=2,tflops=989,mfu=0.45,optimizer_us=500,bucket=100M'
pod31="$(dirname "$0")/../../docs/cookbook/pod-3to1.ini"
sdir=$(mktemp -d)
expect 0 "# criticality: 128 nics, each down alone; ranked by the slowdown at the step" faults -t "$pod31" --llm "$spec" --criticality nics --csv "$sdir/step.csv"
expect 0 "    1  s2.nic0                             1.1110     42543.59           -          1.1110           step" faults -t "$pod31" --llm "$spec" --criticality nics
expect 0 "# wrote $sdir/step.png (faults-criticality" plot "$sdir/step.csv" -o "$sdir/step.png"
rm -rf "$sdir"
expect 2 "ifsim: faults: --llm: every scenario replays the step: -c, -b, -e, -f, -i, -n, --iters and --graph-launches are a collective's" faults -t "$pod31" --llm "$spec" -b 1M --criticality nics
expect 2 "ifsim: faults: --llm: every scenario replays the step: -c, -b, -e, -f, -i, -n, --iters and --graph-launches are a collective's" faults -t "$pod31" --llm "$spec" --graph-launches 1 --criticality nics
expect 2 "ifsim: faults: give one of --llm and --workload" faults -t "$pod31" --llm "$spec" --workload x.csv --criticality nics
if [ "$fails" -ne 0 ]; then
  echo "$fails CLI test(s) failed"
  exit 1
fi
echo "all CLI tests passed"
