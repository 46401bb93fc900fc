#!/usr/bin/env bash
# On the device: the launch trace (issue 18, point 4) in one call per group of steps.
#   scripts/gpu_launch_trace.sh STEP...   (steps: unit suite exploits timed; logs land in $OUT)
#   unit: the tracer's GPU tests; suite: every suite solution, correctness only, confined and traced (no honest
#   kernel may be rejected); exploits: the exploit suite on the GPU; timed: a few solutions timed end to end (the
#   re-checked call of the performance stage is traced too).
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx-gpu/kbx.db
out=${OUT:-/tmp/kbx-gpu-out}; mkdir -p "$out" /tmp/kbx-gpu
tasks=${TASKS:-relu softmax matmul sum layer_norm argmax cumsum conv2d}
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout -s INT "$limit" "$@" > "$out/$name.log" 2>&1
  echo "== $name: exit $? in $((SECONDS - start)) s"; tail -n 8 "$out/$name.log"
}
rows() {  # rows RESULTS.jsonl: every row that did not pass, and a count by status
  python3 - "$1" <<'PY'
import collections, json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(collections.Counter(r["status"] for r in rows))
times = sorted((r["elapsed_s"], r["task"]) for r in rows)
if times:
    print("elapsed s: median", times[len(times) // 2][0], "slowest", times[-5:])
    cases = sorted((r.get("phases", {}).get("cases", 0), r["task"]) for r in rows)
    print("cases phase s: median", cases[len(cases) // 2][0], "slowest", cases[-3:])
for r in rows:
    if r["status"] != "PASSED" or r.get("speedup_eager") is not None:
        print(r["task"], r["status"], r.get("speedup_eager"), r.get("message", "")[:600])
        if r["status"] == "CRASHED":
            print("   ", (r.get("worker_output") or "")[-700:].replace("\n", "\n    "))
PY
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
for name in "$@"; do
  case $name in
    unit) step unit 120 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_launch_trace_gpu.py \
            tests/evaluation/candidate/test_launch_trace.py ;;
    # shellcheck disable=SC2086
    suite) step suite ${SUITE_LIMIT:-540} python3 -m kbx.cli run --method reference --device cuda --no-timing --jobs ${JOBS:-2} \
             --no-cache --timeout 900 --out /tmp/kbx-gpu/suite ${SUITE_TASKS:+--tasks $SUITE_TASKS}
           rows /tmp/kbx-gpu/suite/results.jsonl ;;
    exploits) step exploits 400 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_exploits_gpu.py \
                ${EXPLOITS:+-k "$EXPLOITS"} ;;
    # shellcheck disable=SC2086
    timed) step timed 300 python3 -m kbx.cli run --method reference --device cuda --tasks $tasks --no-cache --out /tmp/kbx-gpu/ref
           rows /tmp/kbx-gpu/ref/results.jsonl ;;
  esac
done
