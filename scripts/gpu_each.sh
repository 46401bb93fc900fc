#!/usr/bin/env bash
# On the device: each named task's solution in its own `kbx run` (its own trusted worker and store), all at once on
# the visible GPU(s). Near the limit, py-spy (if on PATH) dumps the stack of every kbx process still running, so a
# run that hangs says where. Logs, rows and stacks land in $OUT (three files).
#   scripts/gpu_each.sh SECONDS TASK... [-- kbx run options]
set -u
limit=$1; shift
tasks=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do tasks+=("$1"); shift; done
[ $# -gt 0 ] && shift
export PYTHONPATH=src PYTHONUNBUFFERED=1
dir=kbx-out/gpu/each
mkdir -p "$dir" "${OUT:=kbx-out/gpu}"
pids=()
for task in "${tasks[@]}"; do
  (start=$(date +%s)
   KBX_STORE=$dir/$task.db timeout -s INT "$limit" python3 -m kbx.cli run --method reference --device cuda \
     --tasks "$task" --out "$dir/$task" "$@" > "$dir/$task.log" 2>&1
   echo "[$task exit $? after $(( $(date +%s) - start )) s]" >> "$dir/$task.log") &
  pids+=($!)
done
(sleep $((limit - 20))
 command -v py-spy > /dev/null || exit 0
 for pid in $(pgrep -f 'kbx\.'); do
   echo "--- $pid: $(tr '\0' ' ' < /proc/$pid/cmdline | cut -c1-160)"
   py-spy dump --pid "$pid" 2>&1 | head -60
 done > "$OUT/stacks.txt") &
watchdog=$!
wait "${pids[@]}"
kill "$watchdog" 2>/dev/null
for task in "${tasks[@]}"; do echo "=== $task"; tail -n 6 "$dir/$task.log" | cut -c1-300; done | tee "$OUT/each.log"
cat "$dir"/*/results.jsonl > "$OUT/each.jsonl" 2>/dev/null
python3 scripts/rows_summary.py "$OUT/each.jsonl"
