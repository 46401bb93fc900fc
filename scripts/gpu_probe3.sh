export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx-gpu/kbx.db
timeout -s INT 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_cuda_share_gpu.py -k "bench or autotuned" 2>&1 | grep -E "^E |assert|Error|passed|failed" | head -30
timeout -s INT 200 python3 scripts/probe_case_costs.py --device cuda --tasks relu matmul --rounds 1 2>&1 | tail -n 20
