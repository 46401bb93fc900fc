"""Write the suite's overview (docs/suite.md): per-category counts against issue 6's minimums, and one row per task.

    python scripts/suite_table.py > docs/suite.md
    python scripts/suite_table.py --gpu-results runs/gpu/results.jsonl > docs/suite.md   # adds measured columns
    python scripts/suite_table.py --gpu-results a.jsonl b.jsonl   # several runs: a later row of a task wins
    python scripts/suite_table.py --gpu-results a.jsonl b.jsonl --count-runs b.jsonl   # `timed runs` counts b only

Without GPU results the speed columns say "not run": nothing here is estimated. Beside each task's geometric-mean
speedups stands its worst bench workload, and the suite's geometric means are given with and without the tasks
that name their timed baseline uncompetitive (`TASK["uncompetitive_baseline"]`, read from the task as it is now).
The `timed runs` column counts, per task, the distinct runs that judged its solution and task as they are now with
timing on (or failed them), and how many of those it PASSED (issue 20 asks for 10 of 10).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

from kbx.analysis.workloads import worst_workload
from kbx.candidates.source import content_hash
from kbx.tasks.registry import load_suite
from kbx.timing.stats import geometric_mean

MINIMUMS = {"Activation": 14, "Math": 36, "Reduce": 10, "Index": 8, "Loss": 8, "Normalization": 10, "Pooling": 6,
            "Random": 3, "Optimizer": 5, "SpatialOps": 3, "Convolution": 8, "MatrixMultiply": 12,
            "LinearAlgebra": 17, "Quantization": 8, "Fusion": 30}
"""Tasks per category that issue 6 asks for (178 in all)."""


def _fmt(value: float | None) -> str:
    return "not run" if value is None else f"{value:.2f}"


def _measured(paths: list[Path]) -> dict[str, dict]:
    """Per task, its latest GPU row; speed figures carried over from an earlier timed row of the same candidate
    code when the latest run checked correctness only."""
    measured: dict[str, dict] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            before = measured.get(row["task"], {})
            if row.get("speedup_eager") is None and before.get("candidate_hash") == row.get("candidate_hash"):
                row = {**row, **{k: before.get(k)
                                 for k in ("speedup_eager", "speedup_compile", "sol_fraction", "performance",
                                           "workloads")}}
            measured[row["task"]] = row
    return measured


def _timed_runs(paths: list[Path]) -> dict[str, list[dict]]:
    """Per task, every timed row of every run given (issue 20, point 5 counts the runs each solution passed)."""
    runs: dict[str, list[dict]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row.get("speedup_eager") is not None or row.get("status") != "PASSED":
                runs.setdefault(row["task"], []).append(row)
    return runs


def _runs_passed(task, rows: list[dict]) -> tuple[int, int]:
    """Of the distinct runs that judged the solution and task as they are now, with timing, how many it PASSED."""
    verdicts = {row.get("run"): row["status"] for row in rows if _current(task, row)}
    return sum(status == "PASSED" for status in verdicts.values()), len(verdicts)


def _current(task, row: dict) -> bool:
    """Whether a GPU row judged the solution and task as they are now."""
    return row.get("candidate_hash") == content_hash(task.solution_file.read_text()) and (
        row.get("task_version") == task.version)


def _runs_line(tasks: list, runs: dict[str, list[dict]]) -> str:
    """How many whole timed runs each solution, as it is now, has passed (issue 20 asks for 10)."""
    counts = [_runs_passed(t, runs.get(t.name, [])) for t in tasks]
    failed = sorted(t.name for t, (passed, of) in zip(tasks, counts) if passed < of)
    passed = Counter(p for p, _ in counts)
    spread = "; ".join(f"{n} solution{'s' * (n != 1)} in {k} run{'s' * (k != 1)}"
                       for k, n in sorted(passed.items(), reverse=True))
    return (f"Whole timed runs passed by each solution as it is now (the `timed runs` column): {spread}; failed "
            f"in a run: {', '.join(failed) or 'none'}.")


def _summary(tasks: list, measured: dict[str, dict]) -> list[str]:
    """Counts, geometric-mean speedups and the solutions slower than eager, from the GPU rows of current code."""
    rows = [measured[t.name] for t in tasks if t.name in measured and _current(t, measured[t.name])]
    stale = sum(1 for t in tasks if t.name in measured and not _current(t, measured[t.name]))
    passed = [r for r in rows if r["status"] == "PASSED"]
    timed = [r for r in passed if r.get("speedup_eager")]
    lines = [f"On the GPU: {len(passed)} of {len(tasks)} solutions PASSED on every workload, bench included, as "
             f"they are now ({len(rows) - len(passed)} failed; {stale} changed since their GPU run, which is shown "
             f"with its old verdict; {len(tasks) - len(rows) - stale} never run); {len(timed)} timed."]
    if timed:
        slower = sorted(r["task"] for r in timed if r["speedup_eager"] < 1.0)
        lines.append(f"Geometric-mean speedup of the timed solutions: {_geomeans(timed)}; slower than eager: "
                     f"{', '.join(slower) or 'none'}.")
        uncompetitive = {t.name for t in tasks if t.uncompetitive_baseline}
        fair = [r for r in timed if r["task"] not in uncompetitive]
        if len(fair) < len(timed):
            left_out = ", ".join(sorted(uncompetitive & {r["task"] for r in timed}))
            lines.append(f"Without the tasks that name their timed baseline uncompetitive ({left_out}, reasons below "
                         f"the table): {_geomeans(fair)}.")
    return lines


def _geomeans(rows: list[dict]) -> str:
    """The geometric means of rows' speedups vs eager and vs torch.compile (over the rows timed against it)."""
    eager = geometric_mean(r["speedup_eager"] for r in rows)
    against_compile = [r for r in rows if r.get("speedup_compile")]
    compiled = geometric_mean(r["speedup_compile"] for r in against_compile) if against_compile else math.nan
    note = (f" (over the {len(against_compile)} whose compiled baseline passed the task's contract on every bench "
            f"workload)" if len(against_compile) < len(rows) else "")
    return f"{eager:.2f}x vs eager, {compiled:.2f}x vs torch.compile{note}"


def _worst(row: dict, baseline: str) -> str:
    """A row's bench workload with the lowest speedup against `baseline`: `0.93 (bench_3d/bfloat16)`. A row of
    `docs/runs/` (`scripts/compact_rows.py`) keeps its slots as `workloads`, a results.jsonl row in `performance`."""
    slots = row.get("workloads") or (row.get("performance") or {}).get("workloads")
    worst = worst_workload({"performance": {"workloads": slots}}, baseline) if slots else None
    return "not run" if worst is None else f"{worst.speedup:.2f} ({worst.slot})"


def _baseline(task) -> str:
    """What the performance stage times as the task's baseline, as the task is now."""
    parts = ["baseline()" if task.baseline_source else "reference"]
    parts += ["TF32"] if task.contract.tf32 else []
    parts += ["uncompetitive"] if task.uncompetitive_baseline else []
    return ", ".join(parts)


def _status(task, row: dict) -> str:
    if not row:
        return "not run"
    return row["status"] if _current(task, row) else f"{row['status']} (before a change)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu-results", type=Path, nargs="*", default=[],
                        help="results.jsonl of `kbx run --device cuda` runs, oldest first")
    parser.add_argument("--count-runs", type=Path, nargs="*", default=None,
                        help="the runs whose verdicts the `timed runs` column counts (default: --gpu-results); "
                             "leave out runs judged by an older rule of the harness")
    parser.add_argument("--device-note", default="", help="where and when the GPU runs ran (printed above the table)")
    args = parser.parse_args(argv)
    tasks = load_suite()
    measured = _measured(args.gpu_results)
    runs = _timed_runs(args.gpu_results if args.count_runs is None else args.count_runs)
    counts = Counter(t.category for t in tasks)
    print("# The suite\n")
    print("Generated by `scripts/suite_table.py`. Every task here passes the suite integrity test on the CPU "
          "interpreter (smoke and check workloads: its solution PASSES, each `wrong/*.py` gets its declared "
          "status); speed columns come only from a GPU run given to the script.\n")
    print(f"{len(tasks)} tasks; issue 6 asks for {sum(MINIMUMS.values())}.\n")
    if measured:
        print(" ".join([args.device_note, *_summary(tasks, measured), _runs_line(tasks, runs)]).strip() + "\n")
    print("| category | tasks | minimum |")
    print("|---|---|---|")
    for category, minimum in MINIMUMS.items():
        print(f"| {category} | {counts.get(category, 0)} | {minimum} |")
    print("\n| task | category | dtypes | contract | bench workloads | wrong | baseline | GPU status | × eager | "
          "worst × eager | × compile | worst × compile | SOL | timed runs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for t in sorted(tasks, key=lambda t: (t.category, t.name)):
        row = measured.get(t.name, {})
        bench = ", ".join(w.name for w in t.workloads if w.role == "bench")
        print(f"| {t.name} | {t.category} | {', '.join(t.dtypes)} | {t.contract.kind} | {bench} | "
              f"{len(t.wrong_files())} | {_baseline(t)} | {_status(t, row)} | {_fmt(row.get('speedup_eager'))} | "
              f"{_worst(row, 'eager')} | {_fmt(row.get('speedup_compile'))} | {_worst(row, 'compile')} | "
              f"{_fmt(row.get('sol_fraction'))} | {'{}/{}'.format(*_runs_passed(t, runs.get(t.name, [])))} |")
    _legend(tasks)
    return 0


def _legend(tasks: list) -> None:
    """What the baseline column says, and why each task that names its baseline uncompetitive does so."""
    print("\nBaseline: what the performance stage times as eager (and compiles for torch.compile): `reference`, or "
          "the task's own `baseline()` where its reference is a clear but slow definition (docs/task-authoring.md); "
          "`TF32`: both run with TF32 allowed, as the contract allows candidates; `uncompetitive`: the task names "
          "its baseline not a competitive implementation, and the summary gives the geometric means without it "
          "too:\n")
    for t in sorted((t for t in tasks if t.uncompetitive_baseline), key=lambda t: t.name):
        print(f"- {t.name}: {t.uncompetitive_baseline}.")


if __name__ == "__main__":
    sys.exit(main())
