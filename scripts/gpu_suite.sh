#!/usr/bin/env bash
# On the device: the suite's solutions through `kbx run` (timing on, every visible GPU), resumable across calls.
#   scripts/gpu_suite.sh SECONDS [RUN_ID] [kbx run options...]
# The store lives in kbx-out/gpu/kbx.db (carry it to the next call); a copy and the log land in $OUT.
set -u
limit=$1; shift
resume=${1:-}; shift || true
# The peaks and torch.compile caches live beside the store, so carrying kbx-out/gpu spares the next call measuring
# the peaks and compiling the baselines again.
export PYTHONPATH=src KBX_STORE=kbx-out/gpu/kbx.db KBX_CACHE_DIR=kbx-out/gpu/cache
mkdir -p kbx-out/gpu "${OUT:-kbx-out/gpu}"
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
if [ -n "$resume" ] && [ "$resume" != new ]; then
  timeout -s INT "$limit" python3 -m kbx.cli run --resume "$resume" --out kbx-out/gpu/ref "$@" > "$OUT/run.log" 2>&1
else
  timeout -s INT "$limit" python3 -m kbx.cli run --method reference --device cuda --out kbx-out/gpu/ref "$@" \
    > "$OUT/run.log" 2>&1
fi
echo "kbx run exit: $?"
sleep 3
pkill -f kbx.evaluation 2>/dev/null
cp kbx-out/gpu/kbx.db "$OUT/kbx.db"
cp kbx-out/gpu/ref/run.json "$OUT/run.json" 2>/dev/null
mkdir -p "$OUT/peaks" && cp kbx-out/gpu/cache/peaks/*.json "$OUT/peaks/" 2>/dev/null
python3 -m kbx.cli runs list | tail -3
grep -c PASSED "$OUT/run.log"; grep -v PASSED "$OUT/run.log" | tail -25
