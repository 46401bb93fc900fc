#!/usr/bin/env bash
# On the device: independent jobs side by side, one per GPU, each under its own time limit; logs land in $OUT.
#   scripts/gpu_parallel.sh SECONDS 'GPUS:NAME:COMMAND' ...
# GPUS is a CUDA_VISIBLE_DEVICES value ("0" or "2,3"); NAME names the log ($OUT/NAME.log). Example:
#   scripts/gpu_parallel.sh 300 '0:gputests:python3 -m pytest -q tests/gpu' '1:placement:python3 benchmarks/gpu_placement.py'
set -u
limit=$1; shift
export PYTHONPATH=src PYTHONUNBUFFERED=1
mkdir -p "${OUT:=kbx-out/gpu}"
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
for job in "$@"; do
  gpus=${job%%:*}; rest=${job#*:}; name=${rest%%:*}; command=${rest#*:}
  (CUDA_VISIBLE_DEVICES=$gpus timeout -s INT "$limit" bash -c "$command" > "$OUT/$name.log" 2>&1;
   echo "[$name exit $?]" >> "$OUT/$name.log") &
done
wait
for job in "$@"; do
  rest=${job#*:}; name=${rest%%:*}
  echo "=== $name"; tail -n 25 "$OUT/$name.log" | cut -c1-240
done
