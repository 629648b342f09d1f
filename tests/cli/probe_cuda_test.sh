#!/bin/sh
# End-to-end tests of the GPU probes (ifsim-probe p2p, hostdev, nccl): help,
# option errors with their exact messages, the no-device path (exit 77 with
# the reason) where there is no GPU, and a tiny real sweep of each probe
# where there is one; `nccl --mpi` under mpirun where there is one (said and
# skipped where mpirun cannot start).
# Usage: probe_cuda_test.sh PATH/TO/ifsim-probe
# Exits 0 when every check passes, 1 otherwise (never 77: the no-GPU path is
# itself a check).
set -u
PROBE=$1
fails=0
out=$(mktemp)
err=$(mktemp)
res=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$res"' EXIT
# The CUDA driver maps memory where AddressSanitizer's shadow gap is; a
# sanitizer build must leave it unprotected (no effect on other builds).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}protect_shadow_gap=0"
export ASAN_OPTIONS

# expect STATUS PATTERN ARGS...: runs ifsim-probe ARGS, checks the exit
# status and that stdout+stderr contain PATTERN (fixed string).
expect() {
  want=$1 pattern=$2
  shift 2
  "$PROBE" "$@" >"$out" 2>"$err" </dev/null
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: ifsim-probe $*: exit $got, expected $want"; cat "$out" "$err"
    fails=$((fails + 1)); return 1
  fi
  if ! cat "$out" "$err" | grep -qF -- "$pattern"; then
    echo "FAIL: ifsim-probe $*: output lacks '$pattern'"; cat "$out" "$err"
    fails=$((fails + 1)); return 1
  fi
  echo "ok: ifsim-probe $* -> $got"
}

# run_ok ARGS...: runs ifsim-probe ARGS, which must exit 0.
run_ok() {
  "$PROBE" "$@" >"$out" 2>"$err" </dev/null
  got=$?
  if [ "$got" -ne 0 ]; then
    echo "FAIL: ifsim-probe $*: exit $got, expected 0"; cat "$out" "$err"
    fails=$((fails + 1)); return 1
  fi
  echo "ok: ifsim-probe $* -> 0"
}

# check_csv FILE PROBE: a measurement file with rows of PROBE.
check_csv() {
  if [ "$(head -n 1 "$1")" != "# ifsim measurements 1" ]; then
    echo "FAIL: $2: $1 does not start with '# ifsim measurements 1'"
    head -n 5 "$1"; fails=$((fails + 1)); return
  fi
  if ! grep -q "^probe,test,mode,src,dst,ranks,size_bytes,iterations," "$1"; then
    echo "FAIL: $2: $1 has no header row"; fails=$((fails + 1)); return
  fi
  if ! grep -q "^# gpu.count = [1-9]" "$1"; then
    echo "FAIL: $2: $1 lacks gpu.count"; fails=$((fails + 1)); return
  fi
  rows=$(grep -c "^$2," "$1")
  if [ "$rows" -lt 1 ]; then
    echo "FAIL: $2: $1 has no rows"; fails=$((fails + 1)); return
  fi
  echo "ok: $2: $rows rows in $(basename "$1")"
}

# --- help: exit 0, on standard output -----------------------------------
expect 0 "ifsim-probe p2p [OPTION" p2p --help
expect 0 "--latency-max" p2p -h
expect 0 "ifsim-probe hostdev [OPTION" hostdev --help
expect 0 "--device" hostdev --help
expect 0 "ifsim-probe nccl [OPTION" nccl --help
expect 0 "over one GPU per MPI process across hosts (--mpi)" nccl --help
expect 0 "--mpi" nccl --help
expect 0 "--collective" nccl --help
expect 0 "as nccl-tests -G 1" nccl --help

# --- bad options: exit 2 and the message, with or without a GPU ---------
expect 2 "ifsim-probe: p2p: -b: '12X' is not a size" p2p -b 12X
expect 2 "ifsim-probe: hostdev: --minbytes 2097152 must be at least 1 and at most --maxbytes 1048576" hostdev -b 2M -e 1M
expect 2 "ifsim-probe: nccl: --stepfactor 1 must be at least 2" nccl -f 1
expect 2 "ifsim-probe: p2p: --iters must be at least 1" p2p -n 0
expect 2 "ifsim-probe: p2p: -n: '4294967296' is not a count (expected a decimal integer from 0 to 4294967295)" p2p -n 4294967296
expect 2 "ifsim-probe: p2p: -w: '010x' is not a count" p2p -w 010x
expect 2 "ifsim-probe: p2p: unexpected argument 'extra'" p2p extra
expect 2 "ifsim-probe: hostdev: unexpected argument 'gpu0'" hostdev gpu0
expect 2 "ifsim-probe: nccl: unexpected argument 'x'" nccl x
expect 2 "Unknown option --frobnicate" p2p --frobnicate
expect 2 "ifsim-probe: nccl: --collective: 'bcast' is not one of allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, all" nccl -c bcast
expect 2 "ifsim-probe: nccl: --ngpus: '0' is not a decimal number from 1 to 2147483647" nccl -g 0
expect 2 "ifsim-probe: nccl: --batches: 'x' is not a decimal number from 1 to 2147483647" nccl -B x
expect 2 "ifsim-probe: nccl: --ngpus: not with --mpi" nccl --mpi -g 2
expect 2 "ifsim-probe: hostdev: --device: '-1' is not a decimal number from 0 to 2147483647" hostdev -d -1
expect 2 "ifsim-probe: p2p: --test: 'ce_bogus' is not one of ce_uni, ce_bidir, sm_uni, sm_bidir, ce_latency, sm_latency" p2p -t ce_uni,ce_bogus
expect 2 "ifsim-probe: hostdev: --test: 'h2h' is not one of h2d, d2h, bidir, latency_h2d, latency_d2h" hostdev --test h2h
expect 2 "ifsim-probe: p2p: --latency-max: '1X' is not a size" p2p -l 1X

# --- no GPU: exit 77 with the reason; a GPU: a tiny real sweep ----------
if ! nvidia-smi -L >/dev/null 2>&1; then
  for p in p2p hostdev nccl; do
    expect 77 "ifsim-probe: $p: no CUDA GPU" $p
  done
  expect 77 "(skipped)" nccl -c all -g 2
  expect 77 "(skipped)" nccl --graph -b 8 -e 8
else
  sweep="-b 4K -e 64K -n 3 -w 1"
  "$PROBE" p2p -b 4 -e 4 -n 1 -w 0 -t ce_uni >/dev/null 2>"$err" </dev/null
  if grep -qF "built without the CUDA toolkit" "$err"; then
    echo "note: this ifsim-probe was built without CUDA; no GPU sweep"
  else
    run_ok p2p $sweep -o "$res/p2p.csv" && check_csv "$res/p2p.csv" p2p
    run_ok hostdev $sweep -d 0 -o "$res/hostdev.csv" &&
      check_csv "$res/hostdev.csv" hostdev
    expect 2 "is not a GPU here" hostdev -d 4096
    "$PROBE" nccl -b 8 -e 8 -n 1 -w 0 >/dev/null 2>"$err" </dev/null
    if grep -qF "built without NCCL" "$err"; then
      echo "note: this ifsim-probe was built without NCCL; no nccl sweep"
    else
      run_ok nccl -b 8 -e 64K -n 3 -w 1 -B 2 -c all -o "$res/nccl.csv" &&
        check_csv "$res/nccl.csv" nccl
      # CUDA graphs (nccl-tests -G 1): the header says so for validate
      run_ok nccl --graph -b 8 -e 64K -n 5 -w 1 -B 2 -c all \
        -o "$res/nccl_graph.csv" && check_csv "$res/nccl_graph.csv" nccl
      if ! grep -q "^# graph_launches = 1$" "$res/nccl_graph.csv"; then
        echo "FAIL: nccl --graph: no 'graph_launches = 1' header line"
        fails=$((fails + 1))
      fi
      expect 2 "is more than the" nccl -g 4096
    fi
  fi
fi

# --- nccl --mpi ---------------------------------------------------------
# A build without MPI says so (77, before any MPI call); with MPI, 2 ranks
# under mpirun: 77 on every rank without a GPU, a real sweep with one GPU
# per rank where there are GPUs; never a hang (timeout).
# expect_mpi STATUS PATTERN NP ARGS...: mpirun -np NP ifsim-probe ARGS.
expect_mpi() {
  want=$1 pattern=$2 np=$3
  shift 3
  # The MPI library does not free all it allocates (Open MPI 4.1: libmpi,
  # libopen-rte, libevent and its dlclose'd components), which a sanitizer
  # build would report as leaks; no leak check under mpirun.
  # shellcheck disable=SC2086 # $mpiflags is a list of words
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
    timeout 60 mpirun $mpiflags -np "$np" "$PROBE" "$@" >"$out" 2>"$err" \
    </dev/null
  got=$?
  if [ "$got" -eq 124 ]; then
    echo "FAIL: mpirun -np $np ifsim-probe $*: still running after 60 s"
    cat "$out" "$err"; fails=$((fails + 1)); return 1
  fi
  if grep -qi "MPI_Init" "$out" "$err"; then
    echo "note: MPI_Init failed under mpirun here; --mpi case skipped:"
    cat "$err"; return 0
  fi
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: mpirun -np $np ifsim-probe $*: exit $got, expected $want"
    cat "$out" "$err"; fails=$((fails + 1)); return 1
  fi
  if ! cat "$out" "$err" | grep -qF -- "$pattern"; then
    echo "FAIL: mpirun -np $np ifsim-probe $*: output lacks '$pattern'"
    cat "$out" "$err"; fails=$((fails + 1)); return 1
  fi
  echo "ok: mpirun -np $np ifsim-probe $* -> $got"
}

# mpirun_works FLAGS: mpirun FLAGS -np 2 true starts and ends.
mpirun_works() {
  # shellcheck disable=SC2086
  timeout 60 mpirun $1 -np 2 true >/dev/null 2>&1 </dev/null
}

"$PROBE" nccl --help >"$out" 2>&1 </dev/null
if grep -qF "built without MPI" "$out"; then
  expect 77 "ifsim-probe: nccl: --mpi: built without MPI (Debian: libopenmpi-dev) (skipped)" nccl --mpi -b 8 -e 64
elif grep -qF "built without NCCL" "$out"; then
  expect 77 "no NCCL (built without NCCL)" nccl --mpi -b 8 -e 64
elif ! command -v mpirun >/dev/null 2>&1; then
  echo "note: no mpirun here; the --mpi cases are skipped"
else
  # Open MPI refuses root without --allow-run-as-root and more ranks than
  # cores without --oversubscribe; in a container without a network it may
  # need shared memory only and the loopback for its own traffic.
  mpiflags=""
  if mpirun --version 2>&1 | grep -qF "Open MPI"; then
    mpiflags="--allow-run-as-root --oversubscribe"
    if ! mpirun_works "$mpiflags"; then
      mpiflags="$mpiflags --mca btl self,vader --mca oob_tcp_if_include lo"
    fi
  fi
  if ! mpirun_works "$mpiflags"; then
    echo "note: mpirun cannot start processes here; the --mpi cases are skipped:"
    # shellcheck disable=SC2086
    timeout 60 mpirun $mpiflags -np 2 true </dev/null 2>&1 | head -n 20
  elif ! nvidia-smi -L >/dev/null 2>&1; then
    expect_mpi 77 "no CUDA GPU" 2 nccl --mpi -b 8 -e 64
  else
    ngpu=$(nvidia-smi -L | grep -c "^GPU")
    if expect_mpi 0 "" "$ngpu" nccl --mpi -b 8 -e 64K -n 3 -w 1 -B 2 -c all \
        -o "$res/nccl-mpi.csv"; then
      check_csv "$res/nccl-mpi.csv" nccl
      for key in "ranks = $ngpu" "nodes = 1" "hosts = "; do
        if ! grep -qF "# $key" "$res/nccl-mpi.csv"; then
          echo "FAIL: nccl --mpi: nccl-mpi.csv lacks '# $key'"
          fails=$((fails + 1))
        fi
      done
    fi
  fi
fi

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all probe checks passed"
exit 0
