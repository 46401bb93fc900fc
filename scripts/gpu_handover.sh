#!/usr/bin/env bash
# On the device (issue 19): outputs as CUDA descriptors, quick autotuning, the zygote on a GPU, in one call.
#   scripts/gpu_handover.sh   (prints a short report; TASKS overrides the probed tasks)
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx-gpu/kbx.db
mkdir -p /tmp/kbx-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
timeout -s INT 240 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_cuda_share_gpu.py \
  tests/gpu/test_launch_trace_gpu.py 2>&1 | tail -n 15
timeout -s INT 200 python3 scripts/probe_case_layers.py matmul 2>&1 | tail -n 12
timeout -s INT 200 python3 scripts/probe_case_costs.py --device cuda --tasks ${TASKS:-relu softmax layer_norm matmul} \
  --rounds 1 2>&1 | tail -n 20
timeout -s INT 150 python3 benchmarks/throughput.py --device cuda --tasks relu softmax layer_norm --repeat 2 2>&1 \
  | tail -n 5
