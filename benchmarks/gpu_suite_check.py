"""Evaluate every solution and wrong candidate of the suite on the GPU, on every workload (bench included),
then the hostile fixtures of tests/fixtures/hostile (hangs, crashes, autotuned kernels ...) on the gelu task.

    PYTHONPATH=src python3 benchmarks/gpu_suite_check.py [--out DIR] [--tasks ...] [--no-fixtures]

Prints one row per candidate (status, expected, agreement, time, worst error over passing cases) and writes
`results.jsonl` plus `table.txt` to DIR. Exits 1 if any candidate's status differs from what the suite expects.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TextIO

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.result import Evaluation
from kbx.tasks.registry import load_suite, select
from kbx.tasks.spec import Task
from kbx.tasks.suite_check import expected_status, got_expected, judged_on

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "hostile"


def worst_error(evaluation: Evaluation) -> str:
    rel = [o.max_rel_error for c in evaluation.cases for o in c.comparisons if o.max_rel_error is not None]
    rmse = [o.rel_rmse for c in evaluation.cases for o in c.comparisons if o.rel_rmse is not None]
    if rmse:
        return f"rel_rmse<={max(rmse):.2e}"
    return f"max_rel<={max(rel):.2e}" if rel else ""


def run_all(pairs: list[tuple[Task, Path]], limits: Limits, sink: TextIO, rows: list[str]) -> int:
    """Evaluate each (task, candidate file) pair, print a row each, return how many disagreed."""
    if not pairs:
        return 0
    disagreements = 0
    with Evaluator("cuda", limits) as evaluator:
        env = evaluator.environment
        print(f"# {env.get('gpu')} | torch {env['torch']} | triton {env['triton']} | cuda {env.get('cuda')}")
        for task, path in pairs:
            evaluation = evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
            sink.write(json.dumps(evaluation.to_json()) + "\n")
            sink.flush()
            expected = expected_status(path)
            agree = got_expected(path, evaluation.status.value)
            disagreements += not agree
            bench = sum(1 for c in evaluation.cases if c.role == "bench")
            label = f"{task.name}/{path.parent.name}/{path.stem}"
            row = (
                f"{label:55s} {evaluation.status.value:15s} {'ok ' if agree else 'BAD'} "
                f"{evaluation.elapsed_s:6.1f}s bench_cases={bench:3d} {worst_error(evaluation)}"
            )
            if not agree:
                row += f"  <- expected {expected}: {evaluation.message[:300]}"
            print(row, flush=True)
            rows.append(row)
    return disagreements


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("kbx-out/gpu-suite"))
    parser.add_argument("--tasks", nargs="*", default=None)
    parser.add_argument("--no-fixtures", action="store_true", help="skip the hostile fixtures")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suite = load_suite()
    pairs = [(t, p) for t in select(suite, args.tasks) for p in [t.solution_file, *t.honest_files(), *t.wrong_files()]
             if judged_on(p, "cuda")]  # not the mistakes only the CPU's reference shows (`DEVICE = "cpu"`)
    gelu = select(suite, ["gelu"])[0]
    fixtures = [] if args.no_fixtures else [(gelu, p) for p in sorted(FIXTURES.glob("*.py"))]
    rows: list[str] = []
    start = time.monotonic()
    with open(args.out / "results.jsonl", "w") as sink:
        disagreements = run_all(pairs, Limits(timeout_s=300), sink, rows)
        disagreements += run_all(fixtures, Limits(timeout_s=30), sink, rows)
    total = len(pairs) + len(fixtures)
    summary = f"{total - disagreements}/{total} as expected in {time.monotonic() - start:.0f}s"
    print(summary)
    (args.out / "table.txt").write_text("\n".join(rows + [summary]) + "\n")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
