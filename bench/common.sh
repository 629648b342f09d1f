# shellcheck shell=bash disable=SC2154
# Shared by the side-by-side benchmark scripts (vs-simgrid.sh, vs-ns3.sh):
# source it after setting $root (the source tree) and $build.

# Builds bench_ring (Release) in $build, quietly.
build_bench_ring() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target bench_ring -j"$(nproc)" >/dev/null
}

# field NAME LINE: the value of NAME=VALUE in a RESULT line.
field() {
  sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"
}
