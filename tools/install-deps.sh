#!/bin/sh
# Installs the Debian 12 packages ifsim needs to build, test and plot.
# Idempotent: installs only what is missing (and always refreshes the package
# index under CI, where the machine starts clean).  Run as root or with sudo.
#
#   build:   build-essential cmake pkg-config libglib2.0-dev libcsv-dev
#            libjson-glib-dev (nccl-tests -J JSON, timelines); libyajl-dev
#            (PyTorch profiler traces, streamed: no tree of a million
#            events); protobuf-c-compiler libprotobuf-c-dev (Chakra
#            execution traces, decoded from their schema)
#   tests:   check libsubunit-dev; valgrind (memcheck over the CLI tests);
#            clang libclang-rt-14-dev (libFuzzer harnesses of tests/fuzz,
#            replayed over their corpora in CI)
#   plots:   gnuplot-nox (used at run time by `ifsim plot`)
#   probes:  libibverbs-dev (RDMA probes; CUDA comes from the CUDA toolkit,
#            /usr/local/cuda, which is not a Debian package); libopenmpi-dev
#            (MPI headers and library: `ifsim-probe nccl --mpi`, one rank
#            per process across hosts) and openmpi-bin (mpirun, to launch
#            it and for its test)
set -eu

packages="build-essential cmake pkg-config libglib2.0-dev libcsv-dev
libjson-glib-dev libyajl-dev protobuf-c-compiler libprotobuf-c-dev check
libsubunit-dev valgrind clang libclang-rt-14-dev gnuplot-nox libibverbs-dev libopenmpi-dev openmpi-bin"

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
      grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ] && [ "${CI:-}" != "true" ]; then
  echo "install-deps: all packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "install-deps: missing packages:$missing; run as root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  # shellcheck disable=SC2086 # word splitting of the package list is wanted
  $sudo apt-get install -y -q --no-install-recommends $missing
fi
echo "install-deps: all packages present"
