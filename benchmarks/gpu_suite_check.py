"""Evaluate every solution and wrong candidate of the suite on the GPU, on every workload (bench included).

    PYTHONPATH=src python3 benchmarks/gpu_suite_check.py [--out DIR] [--tasks ...]

Prints one row per candidate (status, expected, agreement, time, worst error over passing cases) and writes
`results.jsonl` plus `table.txt` to DIR. Exits 1 if any candidate's status differs from what the suite expects.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kbx.candidates.source import Candidate
from kbx.evaluation.pipeline import Evaluator
from kbx.evaluation.result import Evaluation
from kbx.evaluation.sandbox import Limits
from kbx.tasks.registry import load_suite, select
from kbx.tasks.suite_check import expected_status


def worst_error(evaluation: Evaluation) -> str:
    rel = [o.max_rel_error for c in evaluation.cases for o in c.comparisons if o.max_rel_error is not None]
    rmse = [o.rel_rmse for c in evaluation.cases for o in c.comparisons if o.rel_rmse is not None]
    if rmse:
        return f"rel_rmse<={max(rmse):.2e}"
    return f"max_rel<={max(rel):.2e}" if rel else ""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path("kbx-out/gpu-suite"))
    parser.add_argument("--tasks", nargs="*", default=None)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tasks = select(load_suite(), args.tasks)
    pairs = [(t, p) for t in tasks for p in [t.solution_file, *t.wrong_files()]]
    rows, disagreements = [], 0
    start = time.monotonic()
    with Evaluator("cuda", Limits(timeout_s=300)) as evaluator, open(args.out / "results.jsonl", "w") as sink:
        env = evaluator.environment
        print(f"# {env.get('gpu')} | torch {env['torch']} | triton {env['triton']} | cuda {env.get('cuda')}")
        for task, path in pairs:
            evaluation = evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
            sink.write(json.dumps(evaluation.to_json()) + "\n")
            sink.flush()
            expected = expected_status(path)
            agree = evaluation.status.value == expected
            disagreements += not agree
            bench = sum(1 for c in evaluation.cases if task.workload(c.workload).role == "bench")
            label = f"{task.name}/{'solution' if path.name == 'solution.py' else 'wrong/' + path.stem}"
            row = (
                f"{label:55s} {evaluation.status.value:15s} {'ok ' if agree else 'BAD'} "
                f"{evaluation.elapsed_s:6.1f}s bench_cases={bench:3d} {worst_error(evaluation)}"
            )
            if not agree:
                row += f"  <- expected {expected}: {evaluation.message[:300]}"
            print(row, flush=True)
            rows.append(row)
    summary = f"{len(pairs) - disagreements}/{len(pairs)} as expected in {time.monotonic() - start:.0f}s"
    print(summary)
    (args.out / "table.txt").write_text("\n".join(rows + [summary]) + "\n")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
