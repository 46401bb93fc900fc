#!/usr/bin/env bash
# On the device: the suite's solutions through `kbx run` (timing on, every visible GPU), resumable across calls.
#   scripts/gpu_suite.sh SECONDS [RUN_ID|new] [kbx run options...]
# The store lives in kbx-out/gpu/kbx.db (carry it to the next call). A consistent copy lands in $OUT every 30 s, so
# a call cut off at its limit still brings back what it stored (session 18 lost one that way), with the log and,
# where `py-spy` was carried as a wheel in out/wheels/, every process's stacks at each of $DUMPS (seconds in).
set -u
limit=$1; shift
resume=${1:-}; shift || true
# The peaks and torch.compile caches live beside the store, so carrying kbx-out/gpu spares the next call measuring
# the peaks and compiling the baselines again.
export PYTHONPATH=src KBX_STORE=kbx-out/gpu/kbx.db KBX_CACHE_DIR=kbx-out/gpu/cache
mkdir -p kbx-out/gpu "${OUT:=kbx-out/gpu/out}"
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
save() {  # the store through SQLite's online backup: consistent while the run writes to it
  python3 -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))" \
    kbx-out/gpu/kbx.db "$OUT/kbx.db.part" 2>/dev/null && mv "$OUT/kbx.db.part" "$OUT/kbx.db"
}
spy=""
if ls out/wheels/py_spy*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-deps --target /tmp/pyspy out/wheels/py_spy*.whl >/dev/null 2>&1 && spy=/tmp/pyspy/bin/py-spy
fi
start=$(date +%s)
if [ -n "$resume" ] && [ "$resume" != new ]; then
  python3 -m kbx.cli run --resume "$resume" --out kbx-out/gpu/ref "$@" > "$OUT/run.log" 2>&1 &
else
  python3 -m kbx.cli run --method reference --device cuda --out kbx-out/gpu/ref "$@" > "$OUT/run.log" 2>&1 &
fi
run=$!
dumps=" ${DUMPS:-} "
while kill -0 $run 2>/dev/null; do
  now=$(( $(date +%s) - start ))
  [ "$now" -ge "$limit" ] && break
  if [ -n "$spy" ] && [[ "$dumps" == *" $now "* ]]; then
    { echo "=== at ${now}s: $(grep -c PASSED "$OUT/run.log") PASSED"
      nvidia-smi --query-gpu=memory.used,utilization.gpu,clocks.sm --format=csv,noheader
      for p in $run $(pgrep -f kbx.evaluation.trusted.worker); do
        echo "--- pid $p"; timeout 20 "$spy" dump --pid "$p" 2>&1 | grep -v "^ *$" | head -150
      done; } >> "$OUT/stacks.txt" 2>&1
  fi
  [ $(( now % 30 )) -eq 0 ] && save
  sleep 1
done
kill -INT $run 2>/dev/null  # as Ctrl-C: the run keeps what it finished; in-flight work is dropped
for _ in $(seq 20); do kill -0 $run 2>/dev/null || break; sleep 1; done
kill -KILL $run 2>/dev/null
wait $run 2>/dev/null
echo "kbx run ended after $(( $(date +%s) - start ))s"
pkill -f kbx.evaluation 2>/dev/null
save
cp kbx-out/gpu/ref/run.json "$OUT/run.json" 2>/dev/null
mkdir -p "$OUT/peaks" && cp kbx-out/gpu/cache/peaks/*.json "$OUT/peaks/" 2>/dev/null
python3 -m kbx.cli runs list | tail -3
grep -c PASSED "$OUT/run.log"; grep -v "PASSED\|CORRECT\|Warning\|return " "$OUT/run.log" | tail -25
