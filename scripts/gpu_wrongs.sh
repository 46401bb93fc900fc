#!/usr/bin/env bash
# On the device: every task's wrong/ candidates through the pipeline on the GPU, one shard of the suite per GPU.
#   scripts/gpu_wrongs.sh SECONDS [verify_tasks options...]      (logs in $OUT/wrong_<gpu>.log)
set -u
limit=$1; shift
export PYTHONPATH=src
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
for ((i = 0; i < gpus; i++)); do
  CUDA_VISIBLE_DEVICES=$i timeout -s INT "$limit" python3 scripts/verify_tasks.py --device cuda --workers 3 \
    --wrong-only --shard "$i/$gpus" "$@" all > "$OUT/wrong_$i.log" 2>&1 &
done
wait
cat "$OUT"/wrong_*.log | grep -c "^ok"; cat "$OUT"/wrong_*.log | grep "^BAD" | cut -c1-220
