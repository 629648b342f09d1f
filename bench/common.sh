# shellcheck shell=bash disable=SC2154
# Shared by the benchmark scripts: source it after setting $root (the
# source tree) and $build.

# build_release TARGET: builds TARGET (Release) in $build, quietly.
build_release() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target "$1" -j"$(nproc)" >/dev/null
}

# Builds bench_ring (Release) in $build, quietly.
build_bench_ring() {
  build_release bench_ring
}

# write_h100x512 FILE: 512 DGX H100 (4096 GPUs) on a rail-optimized 3-tier
# NDR fat-tree with D-mod-k routing (nccl-speed.sh, scale.sh).
write_h100x512() {
  cat >"$1" <<'INI'
[system]
description = 512 DGX H100 (4096 GPUs), rail-optimized NDR fat-tree
server = dgx-h100
servers = 512
[scaleout]
topology = fat-tree
switch = quantum2-ndr
tiers = 3
rail_optimized = true
routing = dmodk
INI
}

# field NAME LINE: the value of NAME=VALUE in a RESULT line.
field() {
  sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"
}
