#!/usr/bin/env bash
# On the device: timed `kbx run`s of the suite's solutions, BATCH tasks at a time, until SECONDS are spent. Each batch
# is its own run in one store (join them with `kbx report A+B+...`); a batch cut off at the limit keeps the
# evaluations it finished (an interrupted run writes them) and loses the rest: a timed run judges every candidate
# of the batch before timing any, so batches of one round of --jobs lose least. Caches (peaks, Inductor, Triton) live in kbx-out/gpu/NAME-cache, cold unless a tarball of them from an
# earlier call is carried as kbx-out/gpu/NAME-cache.tgz. Into $OUT: NAME.jsonl (every row), NAME.runs.json (each
# batch's run.json), NAME-cache.tgz (if under 15 MiB) and the log on stdout.
#   scripts/gpu_timed.sh NAME SECONDS BATCH TASK... [-- kbx run options]
set -u
name=$1 limit=$2 batch=$3; shift 3
tasks=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do tasks+=("$1"); shift; done
[ $# -gt 0 ] && shift
root=kbx-out/gpu
cache=$root/$name-cache
mkdir -p "$cache" "${OUT:=$root}"
[ -f "$root/$name-cache.tgz" ] && tar xzf "$root/$name-cache.tgz" -C "$cache"
export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=$root/$name.db KBX_CACHE_DIR=$cache/kbx \
  TORCHINDUCTOR_CACHE_DIR=$cache/inductor TRITON_CACHE_DIR=$cache/triton
end=$(( $(date +%s) + limit ))
echo "[" > "$OUT/$name.runs.json"
for ((i = 0; i < ${#tasks[@]}; i += batch)); do
  left=$(( end - $(date +%s) ))
  [ "$left" -lt 30 ] && { echo "[$name: time spent, from task $i on not started]"; break; }
  out=$root/$name-$i
  start=$(date +%s)
  timeout -s INT -k 30 "$left" python3 -m kbx.cli run --method reference --device cuda --out "$out" \
    --tasks "${tasks[@]:i:batch}" "$@" > "$out.log" 2>&1
  code=$?
  # the summary of a run that finished; more of the log (a traceback's end) of one that did not
  grep -v '^\s*$' "$out.log" | tail -n "$([ "$code" = 0 ] && echo 4 || echo 40)"
  echo "[$name batch $i: exit $code after $(( $(date +%s) - start )) s]"
  cat "$out/results.jsonl" >> "$OUT/$name.jsonl" 2>/dev/null
  [ -f "$out/run.json" ] && { cat "$out/run.json"; echo ","; } >> "$OUT/$name.runs.json"
done
echo "{}]" >> "$OUT/$name.runs.json"
tar czf "$OUT/$name-cache.tgz" -C "$cache" . && [ "$(stat -c %s "$OUT/$name-cache.tgz")" -lt 15728640 ] \
  || rm -f "$OUT/$name-cache.tgz"
python3 scripts/rows_summary.py "$OUT/$name.jsonl"
