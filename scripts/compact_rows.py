"""Write a run's rows without their per-case details and raw samples, for `docs/runs/` (small enough for git):

    python scripts/compact_rows.py --store kbx-out/gpu/kbx.db RUN [RUN ...] > docs/runs/DATE-DEVICE-what.jsonl
    python scripts/compact_rows.py --jsonl results.jsonl [...] [--runs-json NAME.runs.json] > docs/runs/...jsonl

(`--runs-json`: the run.json objects of the runs the rows came from, as `scripts/gpu_timed.sh` collects them;
each row is given the id of the run whose tasks include its task.)

A timed row keeps, per bench workload, its medians, speedups, SOL fraction and baseline errors, the stage's wall
time, GPU wait and where its time went, and what was timed as its baselines.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kbx.store.db import Store

KEPT = ("task", "category", "candidate_hash", "task_version", "status", "message", "speedup_eager", "speedup_compile",
        "sol_fraction", "elapsed_s", "phases")
WORKLOAD_KEPT = ("workload", "dtype", "median_ms", "speedup_eager", "speedup_compile", "sol_fraction", "errors")
STAGE_KEPT = ("wall_s", "lock_wait_s", "spent_s", "settings")


def compact(row: dict[str, Any], run_id: str | None) -> dict[str, Any]:
    kept = {key: row.get(key) for key in KEPT}
    kept["message"] = (kept["message"] or "")[:300]
    kept["run"] = run_id or row.get("run_id") or row.get("run")
    kept["gpu"] = (row.get("environment") or {}).get("gpu") or row.get("gpu")
    performance = row.get("performance")
    if performance:
        kept["stage"] = {key: performance.get(key) for key in STAGE_KEPT}
        kept["workloads"] = [{key: w.get(key) for key in WORKLOAD_KEPT} for w in performance.get("workloads", [])]
        kept["baseline"] = performance.get("baseline")
    return kept


def _stored(store_path: Path, runs: list[str]) -> Iterator[dict[str, Any]]:
    with Store(store_path) as store:
        for run in runs:
            info = store.run(run)
            for row in store.rows(info.run_id):
                yield compact(row, info.run_id)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="run ids (with --store)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--store", type=Path)
    source.add_argument("--jsonl", type=Path, nargs="+", help="results.jsonl files instead of a store")
    parser.add_argument("--runs-json", type=Path, help="with --jsonl: a JSON list of the runs' run.json objects")
    args = parser.parse_args(argv)
    if args.store is not None:
        rows = _stored(args.store, args.runs)
    else:
        runs = json.loads(args.runs_json.read_text()) if args.runs_json else []
        run_of = {task: run["run_id"] for run in runs if "run_id" in run for task in run.get("tasks", [])}
        rows = (compact(row, run_of.get(row["task"]))
                for path in args.jsonl for row in map(json.loads, path.read_text().splitlines()))
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
