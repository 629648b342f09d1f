#!/bin/sh
# End-to-end tests of `ifsim-probe verbs`: the options and their messages,
# the exit statuses, and the no-device path, on any machine; where an RDMA
# device has an active port, a short real run of both sides over loopback.
# The TCP rendezvous itself is unit-tested (tests/validate/
# test_probe_verbs_net.c).  Usage: probe_verbs_test.sh PATH/TO/ifsim-probe
# Exits 0 when all pass, 1 otherwise (never 77: the options are tested
# everywhere).
set -u
PROBE=$1
fails=0
tmp=$(mktemp -d)
out=$tmp/out
err=$tmp/err
trap 'rm -rf "$tmp"' EXIT

# expect STATUS PATTERN ARGS...: runs ifsim-probe verbs ARGS, checks the
# exit status and that stdout+stderr contain PATTERN (fixed string).
expect() {
  want=$1 pattern=$2
  shift 2
  "$PROBE" verbs "$@" >"$out" 2>"$err" </dev/null
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: verbs $*: exit $got, expected $want"; cat "$out" "$err"
    fails=$((fails + 1)); return
  fi
  if ! cat "$out" "$err" | grep -qF -- "$pattern"; then
    echo "FAIL: verbs $*: output lacks '$pattern'"; cat "$out" "$err"
    fails=$((fails + 1)); return
  fi
  echo "ok: verbs $* -> $got"
}

expect 0 "ifsim-probe verbs [OPTION" --help
expect 0 "--ib-dev=NAME" --help
expect 0 "--gid-index=N" --help
expect 0 "Exit status: 0 measured, 2 bad input or a failed call, 77 no RDMA" -h
expect 2 "ifsim-probe: verbs: give --server (wait for a client) or --client HOST (connect to a server)"
expect 2 "ifsim-probe: verbs: give --server or --client HOST, not both" --server --client somehost
expect 2 "ifsim-probe: verbs: --client: the host name is empty" --client ""
expect 2 "ifsim-probe: verbs: --port: '0' is not a TCP port (1 to 65535)" --server --port 0
expect 2 "ifsim-probe: verbs: --port: '65536' is not a TCP port (1 to 65535)" --server -p 65536
expect 2 "ifsim-probe: verbs: --port: 'http' is not a TCP port (1 to 65535)" --server -p http
expect 2 "ifsim-probe: verbs: --mtu: '300' is not one of 256, 512, 1024, 2048, 4096" --server --mtu 300
expect 2 "ifsim-probe: verbs: --mtu: '8192' is not one of 256, 512, 1024, 2048, 4096" --client h -m 8192
expect 2 "ifsim-probe: verbs: --ib-port: '0' is not a port number (1 to 255)" --server -i 0
expect 2 "ifsim-probe: verbs: --gid-index: '-1' is not a GID index (0 to 65535)" --server -x -1
expect 2 "ifsim-probe: verbs: --tx-depth: '0' is not a queue depth (1 to 65536)" --server -q 0
expect 2 "ifsim-probe: verbs: --timeout: '0' is not a number of seconds (1 to 86400)" --server --timeout 0
expect 2 "ifsim-probe: verbs: --test: 'read_bw' is not one of write_bw, send_bw, write_lat, send_lat, all" --server --test read_bw
expect 2 "ifsim-probe: verbs: --test: 'x' is not one of" --server --test write_bw,x
expect 2 "ifsim-probe: verbs: --gpu: 'one' is not a GPU index (0 to 1023)" --server --gpu one
expect 2 "ifsim-probe: verbs: --minbytes 1048576 leaves the latency tests no size: they stop at 64 KiB" --client h --test send_lat -b 1M
expect 2 "ifsim-probe: verbs: --maxbytes 2147483648 is above 1 GiB" --server -e 2G
expect 2 "ifsim-probe: verbs: --minbytes 64 must be at least 1 and at most --maxbytes 8" --server -b 64 -e 8
expect 2 "ifsim-probe: verbs: --stepfactor 1 must be at least 2" --server -f 1
expect 2 "ifsim-probe: verbs: -b: '12X' is not a size" --server -b 12X
expect 2 "ifsim-probe: verbs: unexpected argument 'extra'" --server extra
expect 2 "ifsim-probe: verbs: Unknown option --frobnicate" --server --frobnicate

# Without a device (or without libibverbs) a valid command line skips with
# 77 and says why; --gpu without CUDA in the build is a usage error.
"$PROBE" verbs --server --timeout 1 >"$out" 2>"$err" </dev/null
status=$?
if [ "$status" -eq 77 ]; then
  if grep -qF "built without libibverbs" "$err"; then
    expect 77 "ifsim-probe: verbs: no RDMA support (built without libibverbs) (skipped)" --server
    expect 77 "(built without libibverbs) (skipped)" --client localhost -n 5
  else
    expect 77 "ifsim-probe: verbs: no RDMA device (ibv_get_device_list: 0 devices) (skipped)" --server
    expect 77 "ifsim-probe: verbs: no RDMA device (ibv_get_device_list: 0 devices) (skipped)" --client localhost --test write_bw -e 64K
  fi
  # A size list that leaves only bandwidth tests is fine with --test all.
  expect 77 "(skipped)" --server -b 1M -e 2M
elif [ "$status" -ne 2 ] && [ "$status" -ne 0 ]; then
  echo "FAIL: verbs --server --timeout 1: exit $status"; cat "$out" "$err"
  fails=$((fails + 1))
fi
"$PROBE" verbs --client localhost --gpu 0 >"$out" 2>"$err" </dev/null
status=$?
if grep -qF "built without CUDA" "$err"; then
  [ "$status" -eq 2 ] && echo "ok: verbs --gpu without CUDA -> 2" || {
    echo "FAIL: verbs --gpu without CUDA: exit $status"; fails=$((fails + 1)); }
fi

# A real run where an RDMA port is active: both sides on this host, over
# the device's loopback; short sweeps.
if "$PROBE" devices 2>/dev/null | grep -q "PORT_ACTIVE"; then
  port=$((20000 + $$ % 20000))
  "$PROBE" verbs --server --port "$port" --timeout 20 -o "$tmp/server.csv" \
    >"$tmp/server.out" 2>&1 &
  server=$!
  sleep 1
  if "$PROBE" verbs --client localhost --port "$port" --timeout 20 \
       -b 2 -e 64K -f 16 -n 200 -w 10 -o "$tmp/client.csv" >"$out" 2>"$err"; then
    echo "ok: verbs client run"
  else
    echo "FAIL: verbs client run"; cat "$out" "$err"; fails=$((fails + 1))
  fi
  if wait "$server"; then
    echo "ok: verbs server run"
  else
    echo "FAIL: verbs server run"; cat "$tmp/server.out"; fails=$((fails + 1))
  fi
  for side in client server; do
    f=$tmp/$side.csv
    # 4 tests x 4 sizes: 2, 32, 512, 8192 B (-f 16 passes 64K by)
    if [ -f "$f" ] && [ "$(grep -c '^verbs,' "$f")" -eq 16 ] &&
       grep -q "^# role = $side" "$f" && grep -q '^verbs,write_bw,host,' "$f" &&
       grep -q '^verbs,send_lat,host,' "$f" && grep -q '^# link = ' "$f"; then
      echo "ok: verbs $side file"
    else
      echo "FAIL: verbs $side file"; cat "$f" 2>/dev/null; fails=$((fails + 1))
    fi
  done
  # The server must not outlive a client that never comes.
  expect 2 "no client connected within 1 s (--timeout)" --server --port "$port" --timeout 1
fi

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
exit 0
