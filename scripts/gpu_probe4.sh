export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx-gpu/kbx.db
timeout -s INT 200 python3 scripts/probe_case_layers.py matmul 2>&1 | tail -n 12
timeout -s INT 120 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_cuda_share_gpu.py 2>&1 | grep -E "^E |passed|failed" | head -20
timeout -s INT 240 python3 scripts/probe_case_costs.py --device cuda --tasks relu softmax layer_norm matmul --rounds 1 2>&1 | tail -n 24
