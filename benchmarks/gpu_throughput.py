"""Throughput of `kbx run --method reference` on one GPU, cold and warm caches, and where the time goes.

    PYTHONPATH=src python3 benchmarks/gpu_throughput.py [--tasks relu sum ...] [--out DIR] [--runs cold warm]

Runs the CLI as a user would (`python3 -m kbx.cli run --device cuda`) in a subprocess, first with empty Triton,
TorchInductor and kbx caches (cold: every kernel compiled, every autotune run, torch.compile from scratch, device
peaks measured), then again on the caches the first run filled (warm). Prints, per run: wall time, the trusted
worker's start-up, and the evaluations' time by phase (worker start, candidate import, cases = the worker making
inputs, calling and saving, judge = the trusted worker reading and comparing, performance = the timing stage),
then each task's time. Writes each run's results.jsonl and run.json under --out. Needs only the standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PHASES = ("static", "start", "import", "cases", "judge", "performance")


def run_once(label: str, tasks: list[str], out: Path, caches: Path) -> dict:
    env = dict(os.environ)
    env.update({
        "TRITON_CACHE_DIR": str(caches / "triton"),
        "TORCHINDUCTOR_CACHE_DIR": str(caches / "inductor"),
        "KBX_CACHE_DIR": str(caches / "kbx"),
    })
    command = [sys.executable, "-m", "kbx.cli", "run", "--device", "cuda", "--out", str(out / label)]
    if tasks:
        command += ["--tasks", *tasks]
    start = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    if done.returncode != 0:
        print(f"{label}: exit {done.returncode}\n{done.stderr[-2000:]}", flush=True)
        return {"label": label, "wall_s": wall, "returncode": done.returncode}
    run = json.loads((out / label / "run.json").read_text())
    rows = [json.loads(line) for line in (out / label / "results.jsonl").read_text().splitlines()]
    return {"label": label, "wall_s": wall, "run": run, "rows": rows}


def report(result: dict) -> None:
    if "run" not in result:
        return
    run, rows = result["run"], result["rows"]
    passed = sum(r["status"] == "PASSED" for r in rows)
    phases = run.get("phases_s", {})
    split = "  ".join(f"{p} {phases.get(p, 0):.1f}s" for p in PHASES)
    print(f"{result['label']:5s} wall {result['wall_s']:.1f}s  ({len(rows)} evaluations, {passed} PASSED)  "
          f"trusted start {run.get('setup_s', 0):.1f}s  |  {split}", flush=True)
    for r in rows:
        ph = r.get("phases", {})
        split = " ".join(f"{p} {ph.get(p, 0):6.1f}" for p in PHASES[1:])
        print(f"      {r['task']:32s} {r['status']:17s} {r['elapsed_s']:7.1f}s  {split}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", nargs="*", default=[])
    parser.add_argument("--out", type=Path, default=Path("gpu-throughput"))
    parser.add_argument("--runs", nargs="*", default=["cold", "warm"])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="kbx-caches-") as caches:
        for label in args.runs:
            result = run_once(label, args.tasks, args.out, Path(caches))
            report(result)
            results.append({k: v for k, v in result.items() if k != "rows"})
    (args.out / "summary.json").write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
