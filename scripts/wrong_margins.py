"""How far each wrong candidate of a truth-judged task fails, per seed: the other side of a change to the rule.

A change that loosens the float64 truth rule (a larger P, a wider envelope) could let a wrong candidate pass on some
seed. For every `wrong/*.py` expected to be a MISMATCH and judged on the CPU, and every seed asked for, this runs it
in-process (trusted code: the suite's own candidates) on the smoke and check workloads and the check workloads'
perturbed copies, and prints the worst element's bound ratio over its cases, stopping at the first case past
`--stop` (or failing normwise by more than 4x, or not finite). A case that fails with every judged element within
its bound failed where the reference is NaN or infinite and the output is not (the ratio leaves those elements
out): it counts as not finite, inf. A seed whose worst is below 1 is one where the candidate passed every
floating-point output: read it (an integer output the ratio leaves out may still fail it).

    TRITON_INTERPRET=1 PYTHONPATH=src python3 scripts/wrong_margins.py [--tasks lora_linear ...] [--seeds 11 12 13]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import calibrate_contracts as calibrate  # noqa: E402 - the benchmark's in-process judging

from kbx.tasks.accuracy import RULE  # noqa: E402
from kbx.tasks.module import import_task  # noqa: E402
from kbx.tasks.registry import load_suite, select  # noqa: E402
from kbx.tasks.spec import Task  # noqa: E402
from kbx.tasks.suite_check import expected_statuses, judged_on  # noqa: E402


def worst_over_cases(task: Task, code: Any, fn: Any, seed: int, stop: float) -> tuple[float, str]:
    """The largest failure over the candidate's cases under `seed`, and where; stops past `stop`."""
    args = argparse.Namespace(roles=["smoke", "check"], perturbed=True)
    worst, where = 0.0, ""
    for sized in calibrate.workload_sizes(task, args):
        workload = sized(seed)
        for dtype in task.dtypes:
            for row in calibrate.measure(code, {"wrong": fn}, workload, dtype, seed, "cpu", RULE):
                ratio = 0.0
                if row["status"] == "MISMATCH":
                    ratio = max(row["bound"], stop if row["ratio"] > RULE.norm_factor else 0.0)
                    if ratio <= 1.0:  # failed where the ratio looks away: a NaN or infinity of the reference missed
                        ratio = math.inf
                elif row["status"] != "PASSED":
                    ratio = math.inf
                if ratio > worst:
                    worst, where = ratio, f"{workload.name}/{dtype}"
            if worst >= stop:
                return worst, where
    return worst, where


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=[])
    parser.add_argument("--seeds", type=int, nargs="+", default=[11, 12, 13])
    parser.add_argument("--stop", type=float, default=3.0)
    args = parser.parse_args()
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from kbx.evaluation.candidate.interpreter import install_interpreter_shims

    install_interpreter_shims()
    torch.set_num_threads(1)
    for task in (t for t in select(load_suite(), args.tasks) if t.contract.against_truth):
        code = import_task(task)
        for path in task.wrong_files():
            if not judged_on(path, "cpu") or expected_statuses(path) != ("MISMATCH",):
                continue
            fn = calibrate.load_solution(task, path)
            for seed in args.seeds:
                worst, where = worst_over_cases(task, code, fn, seed, args.stop)
                print(json.dumps({"task": task.name, "wrong": path.stem, "seed": seed, "worst": worst,
                                  "where": where}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
