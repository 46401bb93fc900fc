#!/usr/bin/env bash
# On the device: confinement on a GPU, in one call. The boundary tests, confinement's cost, the exploit and hostile
# suites, the performance stage's GPU tests, and a few solutions timed end to end, each step under its own limit.
#   TASKS="relu softmax" scripts/gpu_confinement.sh STEP...   (steps: boundary devices cost exploits performance
#   aa timed suite variance; devices: each GPU's node alone in a confined worker's /dev; aa: aa_in_run.py on $TASKS
#   with $INPUT_SETS input sets and $AA_ARGS (e.g. "--rounds 12 --budget 0.1"), logs and rows tagged $AA_TAG;
#   suite: scripts/verify_tasks.py over every task (solutions and wrong candidates, every workload), shard K+$SHARD_OFFSET of $SHARDS on GPU K of $GPUS, $WORKERS evaluations at once per GPU; variance:
#   benchmarks/process_variance.py with its variants on $VARIANCE_GPU; verify: scripts/verify_tasks.py on $TASKS;
#   cudacost: benchmarks/cuda_build_cost.py; throughput: benchmarks/throughput.py on $TASKS, correctness only and
#   timed; quick: the same, correctness below bench sizes only (`part="correctness"`, an RL loop's quick check);
#   kbgpu: tests/gpu/test_kernelbench_gpu.py; kernelbench: `kbx run --method
#   reference` over the KernelBench checkout at $KB (carry it: an ignored folder such as out/kb/KernelBench), level
#   $KB_LEVEL (only $KB_TASKS if set), shard K of $GPUS on GPU K + $GPU_OFFSET, correctness only, $WORKERS at a
#   time; pack: $OUT into $OUT.tgz, last (the device returns at most 8 files a call); logs land in $OUT; keep the
#   steps of one call inside the device's 10 minutes)
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx-gpu/kbx.db
out=${OUT:-/tmp/kbx-gpu-out}; mkdir -p "$out" /tmp/kbx-gpu
tasks=${TASKS:-relu softmax matmul sum layer_norm argmax}
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  timeout -s INT "$limit" "$@" > "$out/$name.log" 2>&1
  echo "== $name: exit $? in $((SECONDS - start)) s"; tail -n 6 "$out/$name.log"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
for name in "$@"; do
  case $name in
    boundary) step boundary 120 python3 -m pytest -q -p no:cacheprovider tests/evaluation/confinement ;;
    devices) step devices 180 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_confinement_gpu.py ;;
    # shellcheck disable=SC2086
    aa) step "aa${AA_TAG:-}" ${AA_LIMIT:-400} python3 benchmarks/aa_in_run.py --repeat ${REPEAT:-3} \
          --input-sets ${INPUT_SETS:-3} --tasks $tasks --rows "$out/aa${AA_TAG:-}_rows.jsonl" ${AA_ARGS:-} ;;
    suite)
      for ((g = 0; g < ${GPUS:-4}; g++)); do
        CUDA_VISIBLE_DEVICES=$g timeout -s INT "${SUITE_LIMIT:-540}" python3 scripts/verify_tasks.py all --device cuda \
          --workers "${WORKERS:-4}" --shard "$((g + ${SHARD_OFFSET:-0}))/${SHARDS:-4}" > "$out/suite-$g.log" 2>&1 &
      done
      wait
      cat "$out"/suite-*.log | grep -c "^ok" | sed 's/^/suite: ok lines /'
      grep -h "BAD" "$out"/suite-*.log | head -40 ;;
    variance)
      for task in "relu bench float16" "cross_entropy bench_vocab_32k bfloat16"; do
        read -r name workload dtype <<< "$task"
        CUDA_VISIBLE_DEVICES=${VARIANCE_GPU:-0} step "variance-$name" "${VARIANCE_LIMIT:-300}" python3 benchmarks/process_variance.py \
          --task "$name" --workload "$workload" --dtype "$dtype" --n "${N:-6}" --variants sets12 warm1 pinned
      done ;;
    # shellcheck disable=SC2086
    verify) step verify "${VERIFY_LIMIT:-300}" python3 scripts/verify_tasks.py $tasks --device cuda --workers "${WORKERS:-4}" ${VERIFY_ARGS:-} ;;
    cudacost) step cudacost 240 python3 benchmarks/cuda_build_cost.py --device cuda ;;
    # shellcheck disable=SC2086
    quick) step quick 200 python3 benchmarks/throughput.py --device cuda --tasks $tasks --repeat "${REPEAT:-3}" \
             --part correctness ;;
    # shellcheck disable=SC2086
    throughput) step throughput 200 python3 benchmarks/throughput.py --device cuda --tasks $tasks --repeat "${REPEAT:-3}"
                step throughput-timed 300 python3 benchmarks/throughput.py --device cuda --tasks $tasks --repeat 2 --timed ;;
    kernelbench)
      for ((g = 0; g < ${GPUS:-2}; g++)); do
        CUDA_VISIBLE_DEVICES=$((g + ${GPU_OFFSET:-0})) KBX_STORE=/tmp/kbx-gpu/kb$g.db timeout -s INT "${KB_LIMIT:-540}" python3 -m kbx.cli run \
          --method reference --suite "kernelbench:${KB:-out/kb/KernelBench}" --level "${KB_LEVEL:-1}" --device cuda \
          --shard "$g/${GPUS:-2}" --no-timing --jobs "${WORKERS:-4}" --out "$out/kb-$g" ${KB_TASKS:+--tasks $KB_TASKS} \
          > "$out/kb-$g.log" 2>&1 &
      done
      wait
      grep -h "^status:\|evaluation(s) on cuda in\|NOT JUDGED" "$out"/kb-*.log ;;
    kbgpu) step kbgpu 420 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_kernelbench_gpu.py ;;
    # the device returns at most 8 files a call: pack $OUT into one archive as the last step
    pack) tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out" && echo "== packed $out.tgz" ;;
    cost) step cost 120 python3 benchmarks/confinement_cost.py 10 ;;
    exploits) step exploits 420 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_exploits_gpu.py \
                tests/gpu/test_hostile_gpu.py ;;
    performance) step performance 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_performance_gpu.py ;;
    # shellcheck disable=SC2086
    timed) step timed 420 python3 -m kbx.cli run --method reference --device cuda --tasks $tasks --out /tmp/kbx-gpu/ref
           python3 - /tmp/kbx-gpu/ref/results.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(r["task"], r["status"], r.get("speedup_eager"), r.get("message", "")[:80], "|", r.get("confinement"))
PY
           ;;
  esac
done
