export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx.db
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout -s INT 330 python3 scripts/probe_case_costs.py --device cuda --tasks relu softmax layer_norm matmul --rounds 2 2>&1 | tail -n 40
timeout -s INT 240 python3 benchmarks/throughput.py --device cuda --tasks relu softmax --repeat 2 2>&1 | tail -n 20
