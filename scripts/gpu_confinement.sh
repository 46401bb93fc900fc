#!/usr/bin/env bash
# On the device: confinement on a GPU, in one call. The boundary tests, confinement's cost, the exploit and hostile
# suites, the performance stage's GPU tests, and a few solutions timed end to end, each step under its own limit.
#   scripts/gpu_confinement.sh [TASKS...]     (logs land in $OUT)
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx-gpu/kbx.db
out=${OUT:-/tmp/kbx-gpu-out}; mkdir -p "$out" /tmp/kbx-gpu
tasks=${*:-relu softmax matmul sum layer_norm argmax}
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout -s INT "$limit" "$@" > "$out/$name.log" 2>&1
  echo "== $name: exit $? in $((SECONDS - start)) s"; tail -n 6 "$out/$name.log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
step boundary 120 python3 -m pytest -q -p no:cacheprovider tests/evaluation/confinement
step cost 120 python3 benchmarks/confinement_cost.py 10
step exploits 400 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_exploits_gpu.py tests/gpu/test_hostile_gpu.py
step performance 400 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_performance_gpu.py
# shellcheck disable=SC2086
step timed 500 python3 -m kbx.cli run --method reference --device cuda --tasks $tasks --out /tmp/kbx-gpu/ref
grep -h '"status"' /tmp/kbx-gpu/ref/results.jsonl 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(r["task"], r["status"], r.get("speedup_eager"), r.get("confinement"))'
