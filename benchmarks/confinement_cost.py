"""What OS confinement costs a candidate worker (issue 18's target: <= 50 ms per candidate).

Starts N bare worker-like processes with confinement on and N with it off, each importing torch (as a candidate
worker does before it confines itself), and prints the median of: the whole process's wall time, the warden's
fork into a PID namespace (`split`), and the view + UID + seccomp steps (`confine`). Run on the CPU here and on the
GPU machine (`PYTHONPATH=src python3 benchmarks/confinement_cost.py`); results go to docs/performance.md.
"""

from __future__ import annotations

import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import kbx
from kbx.evaluation.confinement.enter import default_hidden, for_this_process

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {src!r})
from kbx.evaluation.confinement.enter import ConfinementSpec, confine, split
spec = ConfinementSpec.from_json(json.loads(sys.argv[1]))
t1 = time.perf_counter()
split(spec)
t2 = time.perf_counter()
import torch, triton
t3 = time.perf_counter()
confine(spec, sys.argv[2])
t4 = time.perf_counter()
print(json.dumps({{"split_ms": (t2 - t1) * 1e3, "confine_ms": (t4 - t3) * 1e3, "printed": time.time()}}), flush=True)
"""


def _one(confined: bool, src: str) -> dict[str, float]:
    spec = for_this_process(confined, default_hidden())
    job = tempfile.mkdtemp(prefix="kbx-job-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None)
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-I", "-c", _CHILD.format(src=src), json.dumps(spec.to_json()), job],
                              capture_output=True, text=True, check=True)
    finally:
        shutil.rmtree(job, ignore_errors=True)
    ended = time.time()
    wall = (time.perf_counter() - start) * 1e3
    row = json.loads(done.stdout.strip().splitlines()[-1])
    return {"split_ms": row["split_ms"], "confine_ms": row["confine_ms"], "exit_ms": (ended - row["printed"]) * 1e3,
            "wall_ms": wall}


def main(n: int = 15) -> None:
    src = str(Path(kbx.__file__).resolve().parent.parent)
    rows = {mode: [_one(mode, src) for _ in range(n)] for mode in (False, True)}
    print(f"# {platform.node()} {platform.machine()} python {platform.python_version()}, n={n}, medians in ms")
    print("| confinement | process wall | split (PID namespace, fork) | confine (view, UID, seccomp) | exit |")
    print("|---|---|---|---|---|")
    for mode, runs in rows.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(f"| {'on' if mode else 'off'} | {med['wall_ms']:.1f} | {med['split_ms']:.2f} | {med['confine_ms']:.2f} "
              f"| {med['exit_ms']:.1f} |")
    on = statistics.median(r["wall_ms"] for r in rows[True])
    off = statistics.median(r["wall_ms"] for r in rows[False])
    print(f"cost per candidate (median wall, on - off): {on - off:.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
