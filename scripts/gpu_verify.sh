#!/usr/bin/env bash
# On the device: `scripts/verify_tasks.py` over every visible GPU, one shard of the named tasks per GPU, all at once.
#   scripts/gpu_verify.sh SECONDS [verify_tasks options...] [TASK... | all]
#   scripts/gpu_verify.sh 300 --wrong-only all          # every task's wrong/ candidates (was scripts/gpu_wrongs.sh)
# The shards' lines land in one file, $OUT/verify.txt (the device returns a few files only); a shard cut off at
# SECONDS keeps the lines it printed.
set -u
limit=$1; shift
export PYTHONPATH=src
workers=${WORKERS:-3}
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
for ((i = 0; i < gpus; i++)); do
  CUDA_VISIBLE_DEVICES=$i timeout -s INT -k 20 "$limit" python3 scripts/verify_tasks.py --device cuda --workers "$workers" \
    --shard "$i/$gpus" "$@" > "$OUT/verify_$i.part" 2>&1 &
done
wait
cat "$OUT"/verify_*.part | grep -v "^skip" > "$OUT/verify.txt" && rm "$OUT"/verify_*.part
echo "$(grep -c "^ok" "$OUT/verify.txt") ok, $(grep -c "^BAD" "$OUT/verify.txt") BAD"
grep -v "^ok" "$OUT/verify.txt" | cut -c1-400 | head -40
