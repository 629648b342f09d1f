# shellcheck shell=bash disable=SC2154
# Shared by the benchmark scripts: source it after setting $root (the
# source tree) and $build.

# build_release TARGET: builds TARGET (Release) in $build, quietly.
build_release() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target "$1" -j"$(nproc)" >/dev/null
}

# field NAME LINE: the value of NAME=VALUE in a RESULT line.
field() {
  sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"
}

# Builds bench_ring (Release) in $build, quietly.
build_bench_ring() {
  build_release bench_ring
}

# write_h100 FILE SERVERS TIERS [ROUTING]: DGX H100 servers on a
# rail-optimized NDR fat-tree of TIERS tiers (ROUTING: the fabric's
# default when not given).
write_h100() {
  {
    printf '[system]\ndescription = %s DGX H100, rail-optimized NDR fat-tree\n' "$2"
    printf 'server = dgx-h100\nservers = %s\n[scaleout]\ntopology = fat-tree\n' "$2"
    printf 'switch = quantum2-ndr\ntiers = %s\nrail_optimized = true\n' "$3"
    [ -z "${4:-}" ] || printf 'routing = %s\n' "$4"
  } >"$1"
}

# write_h100x512 FILE: 512 DGX H100 (4096 GPUs) on a rail-optimized 3-tier
# NDR fat-tree with D-mod-k routing (nccl-speed.sh, scale.sh).
write_h100x512() {
  write_h100 "$1" 512 3 dmodk
}
