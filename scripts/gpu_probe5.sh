export PYTHONPATH=src PYTHONUNBUFFERED=1 KBX_STORE=/tmp/kbx-gpu/kbx.db
mkdir -p /tmp/kbx-gpu
start=$SECONDS
timeout -s INT 230 python3 -m kbx.cli run --method reference --device cuda --tasks relu softmax layer_norm --no-cache \
  --out /tmp/kbx-gpu/ref > /tmp/kbx-gpu/ref.log 2>&1
echo "timed run: exit $? in $((SECONDS - start)) s"; tail -n 6 /tmp/kbx-gpu/ref.log
python3 - <<'PY'
import json
for line in open("/tmp/kbx-gpu/ref/results.jsonl"):
    r = json.loads(line)
    ph = " ".join(f"{k}={v:.1f}" for k, v in r.get("phases", {}).items())
    print(r["task"], r["status"], r.get("speedup_eager"), r.get("speedup_compile"), f"{r['elapsed_s']:.1f}s", ph, r.get("message", "")[:300])
PY
start=$SECONDS
timeout -s INT 290 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_exploits_gpu.py 2>&1 | grep -E "FAILED|passed|failed|Error" | head -20
echo "exploits in $((SECONDS - start)) s"
