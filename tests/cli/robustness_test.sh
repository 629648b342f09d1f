#!/bin/sh
# Robustness end to end (issue 10): every file of the bad-input corpus, and
# generated ones (empty, binary garbage, a 10 MB line, truncated), given to
# the command that reads that format, must end in exit status 2 with one
# "ifsim: CMD: ..." message naming the file, no crash (no signal, no
# sanitizer report), and no output file.  Then: outputs are replaced
# together or not at all; Ctrl-C leaves nothing; oversized scenarios are
# refused up front; the same inputs give byte-identical outputs.
# Usage: robustness_test.sh PATH/TO/ifsim TESTS/DATA
set -u
IFSIM=$1
DATA=$2
fails=0
checked=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/stdout
err=$work/stderr
topo=$DATA/../../topologies/examples/dgx-h100.ini

fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# bad FILE ARGS...: ifsim ARGS (which read FILE) must fail cleanly and
# write none of the outputs named in $work/o.*.
bad() {
  file=$1
  shift
  rm -f "$work"/o.* "$work"/.o.*
  "$IFSIM" "$@" >"$out" 2>"$err" </dev/null
  got=$?
  checked=$((checked + 1))
  name=$(basename "$file")
  if [ "$got" -ne 2 ]; then
    fail "ifsim $*: exit $got, expected 2"; head -c 2000 "$err"; return
  fi
  if ! grep -q "^ifsim: [a-z]*: " "$err"; then
    fail "ifsim $*: no 'ifsim: CMD:' message"; head -c 2000 "$err"; return
  fi
  if ! grep -qF -- "$name" "$err"; then
    fail "ifsim $*: the message does not name $name"; head -c 2000 "$err"
    return
  fi
  if grep -q "Sanitizer\|runtime error\|CRITICAL\|WARNING \*\*" "$err"; then
    fail "ifsim $*: sanitizer or GLib report"; head -c 4000 "$err"; return
  fi
  if [ -n "$(ls -A "$work" | grep '^\.\{0,1\}o\.')" ]; then
    fail "ifsim $*: left output behind: $(ls -A "$work" | grep 'o\.')"
  fi
}

# The command that reads each format, the file last.  The checked-in
# corpus goes through one command per format (the Check suites try every
# loader path); the generated files through every command.
topo_cmds() { # system files: described, and run
  bad "$1" topo "$1" --dot "$work/o.dot"
  [ -n "${2:-}" ] || return 0
  bad "$1" run -t "$1" -b 1M -e 1M --csv "$work/o.csv" --json "$work/o.json"
}
models_cmd() { bad "$1" run -m "$1" -b 1M -e 1M --csv "$work/o.csv"; }
import_cmd() { # $2: the --format
  bad "$1" topo --import "$1" --format "$2" --emit-ini "$work/o.ini"
  [ -n "${3:-}" ] || return 0
  bad "$1" topo --import "$1" --emit-ini "$work/o.ini"
}
nccllog_cmd() { # an NCCL log replayed, its workload written
  bad "$1" replay -t "$DATA/systems/dgx-h100-ndr-2.ini" --nccl-log "$1" \
    --write-workload "$work/o.csv" --summary-csv "$work/o.sum.csv"
}
kineto_cmd() { # a profiler trace replayed, its workload written
  bad "$1" replay -t "$DATA/systems/dgx-h100.ini" --kineto "$1" \
    --write-workload "$work/o.csv" --csv "$work/o.ops.csv"
}
chakra_cmd() { # a Chakra trace replayed, its workload written
  bad "$1" replay --chakra "$1" --write-workload "$work/o.csv" \
    --csv "$work/o.ops.csv"
}
measure_cmds() {
  bad "$1" validate "$1" -t "$topo" --csv "$work/o.csv"
  [ -n "${2:-}" ] || return 0
  bad "$1" calibrate "$1" -t "$topo" -o "$work/o.ini"
}

# The checked-in corpus.
for f in "$DATA"/bad/topo/*; do topo_cmds "$f"; done
for f in "$DATA"/bad/models/*; do models_cmd "$f"; done
for f in "$DATA"/bad/import-smi/*; do
  case $f in */expect.txt) continue ;; esac
  import_cmd "$f" smi
done
for f in "$DATA"/bad/import-ncclxml/*; do
  case $f in */expect.txt) continue ;; esac
  import_cmd "$f" nccl-xml
done
for f in "$DATA"/bad/import-ibnet/*; do
  case $f in */expect.txt) continue ;; esac
  import_cmd "$f" ibnetdiscover
done
for f in "$DATA"/bad/measure/*; do measure_cmds "$f"; done
for f in "$DATA"/bad/nccllog/*.log; do nccllog_cmd "$f"; done
for f in "$DATA"/bad/kineto/*.json*; do kineto_cmd "$f"; done
for f in "$DATA"/bad/chakra/*.et; do chakra_cmd "$f"; done

# Generated cases, for every format: empty, binary garbage, one 10 MB line,
# and a good file cut in the middle of a line.
gen=$work/gen
mkdir "$gen"
: >"$gen/empty.txt"
head -c 65536 /dev/urandom >"$gen/garbage.bin"
head -c 10485760 /dev/zero | tr '\0' 'x' >"$gen/line10m.txt"
# cut GOOD NAME: the first 60% of GOOD, ending inside a line.
cut_file() {
  size=$(wc -c <"$1")
  head -c $((size * 6 / 10)) "$1" >"$gen/$2"
  printf '7x' >>"$gen/$2"
}
for g in empty.txt garbage.bin line10m.txt; do
  topo_cmds "$gen/$g" all
  models_cmd "$gen/$g"
  import_cmd "$gen/$g" smi all
  import_cmd "$gen/$g" nccl-xml
  import_cmd "$gen/$g" ibnetdiscover
  measure_cmds "$gen/$g" all
  nccllog_cmd "$gen/$g"
  kineto_cmd "$gen/$g"
  chakra_cmd "$gen/$g"
done
cut_file "$DATA/import/smi_dgx_h100.txt" cut_smi.txt
import_cmd "$gen/cut_smi.txt" smi all
cut_file "$DATA/import/nccl_topo_h100.xml" cut_topo.xml
import_cmd "$gen/cut_topo.xml" nccl-xml all
cut_file "$DATA/measure/nccltests_allreduce_8xH100.json" cut_nccl.json
measure_cmds "$gen/cut_nccl.json" all
cut_file "$DATA/measure/nvbandwidth_8xH100.txt" cut_nvbw.txt
measure_cmds "$gen/cut_nvbw.txt" all
cut_file "$DATA/nccllog/tp2dp2_2node_nccl2.28.log" cut_nccl.log
nccllog_cmd "$gen/cut_nccl.log"
cut_file "$DATA/../fuzz/corpus/kineto/one_rank.json" cut_kineto.json
kineto_cmd "$gen/cut_kineto.json"
cut_file "$DATA/chakra/mixed.0.et" cut_chakra.0.et
chakra_cmd "$gen/cut_chakra.0.et"
echo "bad input: $checked runs checked"

# --- outputs: together or not at all ---------------------------------------
echo "earlier" >"$work/keep.csv"
"$IFSIM" run -b 1M -e 1M --csv "$work/keep.csv" \
  --json "$work/no-such-dir/r.json" >"$out" 2>"$err"
st=$?
[ "$st" -eq 2 ] || fail "a failing --json: exit $st, expected 2"
[ "$(cat "$work/keep.csv")" = "earlier" ] ||
  fail "a failing --json replaced the earlier --csv"
[ -z "$(ls -A "$work" | grep '^\.keep')" ] || fail "a temporary was left"
grep -qF "no-such-dir/r.json: cannot write" "$err" ||
  fail "the --json error does not name the file: $(cat "$err")"
"$IFSIM" run -b 1M -e 1M --csv "$work/same" --json "$work/same" \
  >"$out" 2>"$err"
[ $? -eq 2 ] && grep -qF "given for two outputs" "$err" ||
  fail "one path for --csv and --json was accepted"
[ ! -e "$work/same" ] || fail "a refused run wrote $work/same"

# --- Ctrl-C: exit 130, no output, earlier results untouched ----------------
cat >"$work/big.ini" <<'EOF'
[system]
server = dgx-h100
servers = 256
[scaleout]
topology = fat-tree
switch = quantum2-ndr
tiers = 2
rail_optimized = true
EOF
"$IFSIM" run -t "$work/big.ini" -b 1G -e 4G --fidelity packet --csv "$work/keep.csv" \
  --links-csv "$work/links.csv" >"$out" 2>"$err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid
st=$?
if [ "$st" -ne 130 ]; then
  fail "Ctrl-C: exit $st, expected 130"; cat "$err"
fi
grep -qF "ifsim: run: interrupted (SIGINT)" "$err" ||
  fail "Ctrl-C: no message: $(cat "$err")"
[ "$(cat "$work/keep.csv")" = "earlier" ] || fail "Ctrl-C replaced --csv"
[ ! -e "$work/links.csv" ] || fail "Ctrl-C left --links-csv"
[ -z "$(ls -A "$work" | grep '^\.')" ] || fail "Ctrl-C left a temporary"

# --- limits: refused up front, with the estimate and the override ---------
sed 's/servers = 256/servers = 1000000/' "$work/big.ini" >"$work/huge.ini"
"$IFSIM" topo "$work/huge.ini" >"$out" 2>"$err"
st=$?
[ "$st" -eq 2 ] && grep -q "huge.ini: \[system\] servers: the system needs about .* GiB of memory (1000000 servers x 8 GPUs.*--max-memory [0-9]*G runs it anyway" "$err" ||
  fail "a 1M-server system: exit $st, $(cat "$err")"
"$IFSIM" run -t "$work/big.ini" --max-memory 64M -b 1M -e 1M >"$out" 2>"$err"
st=$?
[ "$st" -eq 2 ] && grep -q "AllReduce on 2048 ranks needs about .* MiB of memory ([0-9]* edges of its plan" "$err" ||
  fail "a run over --max-memory: exit $st, $(cat "$err")"

# Every reader stops at the input limit (docs/robustness.md), naming the
# file and --max-input, and returns on SIGTERM while it waits on a FIFO.
# reader_cmds FILE: each command line that reads FILE, one per line.
reader_cmds() {
  cat <<EOF2
topo $1
topo --import $1
run -t $1 -b 1M -e 1M
run -m $1 -b 1M -e 1M
validate $1 -t $topo
calibrate $1 -t $topo -o $work/o.ini
sweep $1
sweep $work/plan_at.ini
replay $1
replay --astra $1
replay --jobs $1
plot $1 -o $work/o.png
EOF2
}
mkfifo "$work/in.fifo"
for src in /dev/zero "$work/in.fifo"; do
  printf '[sweep]\ntopology = %s\n[vary]\nsystem.servers = 1, 2\n' "$src" \
    >"$work/plan_at.ini"
  reader_cmds "$src" | while read -r cmd; do
    case $src in
    /dev/zero)
      # shellcheck disable=SC2086 # the words of the command line
      "$IFSIM" $cmd --max-input 1M >"$out" 2>"$err" </dev/null
      st=$?
      [ "$st" -eq 2 ] && grep -q "^ifsim: [a-z]*: \(.*: \)\{0,1\}/dev/zero: larger than the 1 MiB allowed for an input file; --max-input SIZE reads larger ones$" "$err" ||
        { echo "FAIL: ifsim $cmd: exit $st, $(cat "$err")"; echo x >>"$work/failed"; }
      ;;
    *)
      # shellcheck disable=SC2086
      "$IFSIM" $cmd >"$out" 2>"$err" </dev/null &
      pid=$!
      sleep 0.3
      kill -TERM $pid
      wait $pid
      st=$?
      [ "$st" -eq 143 ] && grep -q "^ifsim: [a-z]*: .*in.fifo: interrupted (SIGTERM)$" "$err" ||
        { echo "FAIL: ifsim $cmd (a FIFO nobody writes, SIGTERM): exit $st, $(cat "$err")"; echo x >>"$work/failed"; }
      ;;
    esac
  done
done
[ ! -e "$work/failed" ] || fails=$((fails + $(wc -l <"$work/failed")))
rm -f "$work/failed"
"$IFSIM" topo /dev/zero >"$out" 2>"$err"
st=$?
[ "$st" -eq 2 ] && grep -q "/dev/zero: larger than the 256 MiB allowed" "$err" ||
  fail "topo /dev/zero at the default limit: exit $st, $(cat "$err")"
# counts from flags and specs, estimated before anything is allocated
"$IFSIM" run -b 1 -e 1T -i 1 >"$out" 2>"$err"
st=$?
[ "$st" -eq 2 ] && grep -q "1099511627776 message sizes" "$err" ||
  fail "run -b 1 -e 1T -i 1: exit $st, $(cat "$err")"
v=$(seq -s, 1 32)
"$IFSIM" sweep --vary run.minbytes=$v --vary run.iters=$v --vary run.root=$v \
  --vary nccl.host_launch_us=$v --vary run.maxbytes=$v --vary run.channels=$v \
  >"$out" 2>"$err"
st=$?
[ "$st" -eq 2 ] && grep -q "the sweep's grid needs about .* GiB of memory (1073741824 points, .*--max-memory [0-9]*G runs it anyway" "$err" ||
  fail "a grid of 2^30 points: exit $st, $(cat "$err")"
"$IFSIM" replay --llm layers=10240,microbatches=6536,tp=8,pp=1,dp=1,hidden=1024,heads=8,seq=128,mbs=1,ffn=4096,vocab=1000,tflops=100,mfu=0.5,optimizer_us=10 \
  >"$out" 2>"$err"
st=$?
[ "$st" -eq 2 ] && grep -q "the generated workload needs about .* GiB of memory (up to [0-9]* ops" "$err" ||
  fail "an LLM step of 10^9 ops: exit $st, $(cat "$err")"

# --- outputs that are not regular files (ifsim often runs as root) -------
# A symbolic link is kept and its target written; a device or a FIFO is
# written in place, never replaced by a regular file; a FIFO nobody reads,
# a directory, or a device that fails the write (/dev/full) is an error,
# exit 2.  Every output option, through the command that writes it.
smi=$DATA/import/smi_dgx_h100.txt
# out_cmd OPT DEST: the command line that writes DEST through OPT
out_cmd() {
  case $1 in
  --csv | --json | --links-csv | --timeline | --link-samples)
    echo "run -b 1M -e 1M $1 $2" ;;
  --ports-csv | --queue-samples)
    echo "run -t $topo -g 2 -b 64K -e 64K --fidelity packet $1 $2" ;;
  --summary-csv) echo "replay $DATA/../../docs/workload-example.csv --summary-csv $2" ;;
  --emit-ini) echo "topo --import $smi --emit-ini $2" ;;
  --dot) echo "topo $topo --dot $2" ;;
  sweep-o) echo "sweep --vary system.servers=1 -b 1K -e 1K -o $2" ;;
  plot-o) echo "plot $PLOTCSV -o $2" ;;
  calibrate-o)
    echo "calibrate $DATA/reference/nvbandwidth_8xH100_sxm_pcie5_acceptance_kr.csv -t $topo -o $2" ;;
  esac
}
"$IFSIM" run -b 1K -e 1M -f 32 --csv "$work/plot.csv" >/dev/null ||
  fail "the run for plot's input failed"
PLOTCSV=$work/plot.csv
for opt in --csv --json --links-csv --timeline --link-samples --ports-csv \
  --queue-samples --summary-csv --emit-ini --dot sweep-o calibrate-o plot-o; do
  case $opt in plot-o) ext=png ;; *) ext=out ;; esac
  if [ "$opt" = plot-o ] && ! command -v gnuplot >/dev/null; then continue; fi
  rm -rf "$work/ns" && mkdir "$work/ns"
  # a symbolic link: kept, its target written
  ln -s real.$ext "$work/ns/link.$ext"
  # shellcheck disable=SC2046
  "$IFSIM" $(out_cmd "$opt" "$work/ns/link.$ext") >"$out" 2>"$err" ||
    fail "$opt to a symlink: $(cat "$err")"
  [ -L "$work/ns/link.$ext" ] && [ -s "$work/ns/real.$ext" ] ||
    fail "$opt to a symlink: the link was replaced or its target not written"
  # a FIFO that a process reads: written in place, still a FIFO (named
  # for plot, which takes its format from the name)
  fifo=$work/ns/fifo.$ext
  mkfifo "$fifo"
  cat "$fifo" >"$work/ns/got" &
  reader=$!
  # shellcheck disable=SC2046
  if ! "$IFSIM" $(out_cmd "$opt" "$fifo") >"$out" 2>"$err"; then
    fail "$opt to a read FIFO: $(cat "$err")"
    : >"$fifo" # a reader still waiting gets its end of file
  fi
  wait $reader
  [ -p "$fifo" ] && [ -s "$work/ns/got" ] ||
    fail "$opt to a read FIFO: replaced, or nothing came through"
  # a FIFO nobody reads: refused at once (no hang), still a FIFO
  # shellcheck disable=SC2046
  "$IFSIM" $(out_cmd "$opt" "$fifo") >"$out" 2>"$err"
  st=$?
  { [ "$st" -eq 2 ] && grep -q "fifo.$ext: a FIFO that no process reads" "$err" &&
    [ -p "$fifo" ]; } ||
    fail "$opt to an unread FIFO: exit $st, $(cat "$err")"
  # devices: /dev/null stays a device; /dev/full is a write error (plot
  # refuses both up front: no .png or .svg in the name)
  if [ "$opt" = plot-o ]; then
    "$IFSIM" $(out_cmd "$opt" /dev/null) >"$out" 2>"$err"
    { [ $? -eq 2 ] && [ -c /dev/null ]; } || fail "plot -o /dev/null: $(cat "$err")"
    checked=$((checked + 1))
    continue
  fi
  # shellcheck disable=SC2046
  "$IFSIM" $(out_cmd "$opt" /dev/null) >"$out" 2>"$err" ||
    fail "$opt to /dev/null: $(cat "$err")"
  [ -c /dev/null ] || fail "$opt replaced /dev/null"
  # shellcheck disable=SC2046
  "$IFSIM" $(out_cmd "$opt" /dev/full) >"$out" 2>"$err"
  st=$?
  { [ "$st" -eq 2 ] &&
    grep -q "/dev/full: cannot write (No space left on device)" "$err" &&
    [ -c /dev/full ]; } || fail "$opt to /dev/full: exit $st, $(cat "$err")"
  # a directory: refused, left as it was
  # shellcheck disable=SC2046
  "$IFSIM" $(out_cmd "$opt" "$work/ns") >"$out" 2>"$err"
  st=$?
  { [ "$st" -eq 2 ] && grep -q "is a directory" "$err"; } ||
    fail "$opt to a directory: exit $st, $(cat "$err")"
  checked=$((checked + 1))
done
# /dev/stdout is a link to /proc/self/fd/1, which names no file: written
# in place (a pipe here), the link left as it was.
if [ -L /dev/stdout ]; then
  "$IFSIM" run -b 1M -e 1M --csv /dev/stdout 2>"$err" | grep -q "^# collective: AllReduce" ||
    fail "--csv /dev/stdout into a pipe: $(cat "$err")"
  [ -L /dev/stdout ] || fail "--csv /dev/stdout replaced the link"
fi
# Standard output that cannot be written is an error, not a lost result.
for c in "run -b 1M -e 1M" "models" "topo $topo" \
  "sweep --vary system.servers=1 -b 1K -e 1K -o -" \
  "topo --import $smi --emit-ini -"; do
  # shellcheck disable=SC2086
  "$IFSIM" $c >/dev/full 2>"$err"
  st=$?
  { [ "$st" -eq 2 ] &&
    grep -q "standard output: cannot write (No space left on device)" "$err"; } ||
    fail "ifsim $c >/dev/full: exit $st, $(cat "$err")"
done
# ... and a run whose standard output failed replaces none of its files:
# the earlier ones stay as they were
for c in "run -b 1K -e 1K --csv OUT" "topo $topo --dot OUT" \
  "replay $DATA/../../docs/workload-example.csv --summary-csv OUT" \
  "validate $DATA/reference/nccl_allreduce_8xH100_sxm_nccltests290.csv -t $DATA/systems/dgx-h100.ini --csv OUT" \
  "calibrate $DATA/reference/nccl_allreduce_8xH100_sxm_nccltests290.csv -t $DATA/systems/dgx-h100.ini -o OUT"; do
  echo EARLIER >"$work/earlier.csv"
  # shellcheck disable=SC2086
  "$IFSIM" $(echo "$c" | sed "s|OUT|$work/earlier.csv|") >/dev/full 2>"$err"
  st=$?
  { [ "$st" -eq 2 ] && grep -q "standard output: cannot write (No space left on device): no file written" "$err" &&
    [ "$(cat "$work/earlier.csv")" = EARLIER ] &&
    [ -z "$(ls -A "$work" | grep '^\.earlier')" ]; } ||
    fail "ifsim $c >/dev/full: exit $st, $(cat "$err"), earlier.csv: $(head -c 40 "$work/earlier.csv")"
  checked=$((checked + 1))
done
# A later file that cannot be replaced (immutable, as root) puts the
# earlier ones of the run back: all or none
echo A >"$work/a.csv"
echo B >"$work/b.json"
if [ "$(id -u)" = 0 ] && chattr +i "$work/b.json" 2>/dev/null; then
  "$IFSIM" run -b 1K -e 1K --csv "$work/a.csv" --json "$work/b.json" >/dev/null 2>"$err"
  st=$?
  chattr -i "$work/b.json"
  { [ "$st" -eq 2 ] && grep -q "b.json: cannot rename .* into place (Operation not permitted); no file written" "$err" &&
    [ "$(cat "$work/a.csv")" = A ] && [ "$(cat "$work/b.json")" = B ] &&
    [ -z "$(ls -A "$work" | grep '^\.[ab]\.')" ]; } ||
    fail "an immutable second output: exit $st, $(cat "$err"), a.csv: $(head -c 40 "$work/a.csv")"
  checked=$((checked + 1))
else
  echo "skip: an immutable second output (needs root and chattr)"
fi

# --- determinism: the same inputs, byte-identical outputs ------------------
cat >"$work/ecmp.ini" <<'EOF'
[system]
server = dgx-h100
servers = 16
[scaleout]
topology = fat-tree
switch = quantum2-ndr
tiers = 2
oversubscription = 3
routing = ecmp
seed = 7
EOF
for i in 1 2; do
  "$IFSIM" run -t "$work/ecmp.ini" -b 1K -e 256M -f 4 --csv "$work/d$i.csv" \
    --json "$work/d$i.json" --links-csv "$work/l$i.csv" >"$work/t$i.txt" ||
    fail "determinism run $i failed"
done
for x in d1.csv d1.json l1.csv t1.txt; do
  cmp -s "$work/$x" "$work/$(echo $x | sed 's/1/2/')" ||
    fail "two runs differ in $x"
done
# Another seed changes only what is seeded: ECMP's choice of spine, so the
# link counts (per link) differ while the table still has every size.
sed 's/seed = 7/seed = 8/' "$work/ecmp.ini" >"$work/ecmp8.ini"
"$IFSIM" run -t "$work/ecmp8.ini" -b 1K -e 256M -f 4 --csv "$work/d3.csv" \
  --links-csv "$work/l3.csv" >/dev/null || fail "seed 8 run failed"
cmp -s "$work/l1.csv" "$work/l3.csv" && fail "seed 7 and 8 route alike"
[ "$(wc -l <"$work/d1.csv")" -eq "$(wc -l <"$work/d3.csv")" ] ||
  fail "seed 8 changed the sizes run"

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "all robustness checks passed"
