"""What the interpreter's overhead shims (`kbx.evaluation.candidate.overheads`) save: a sample
of the suite's candidates run in this process on every CPU workload of their task (one dtype, one seed), with the
interpreter's other shims, once as upstream has it (discarded int32 overflow checks, per-call dtype tables, block
types and shapes built per operation) and once with the shim. Prints one line per candidate: CPU seconds each
way and whether the outputs are identical.

    TRITON_INTERPRET=1 PYTHONPATH=src python benchmarks/interpreter_overheads.py [--every N] [TASK ...]

Without TASK names, every N-th candidate the CPU judges (solutions, honest and wrong; default 25). A candidate whose
outputs differ is run upstream once more: one that reads past its inputs differs from itself. CPU seconds of this
process (`time.process_time`), so other load on the machine moves them less than wall seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_contracts import load_solution  # noqa: E402  (beside this script)

from kbx.evaluation.candidate.interpreter import install_interpreter_shims  # noqa: E402
from kbx.evaluation.candidate.overheads import overhead_patches  # noqa: E402
from kbx.evaluation.cases import DEVICE_ROLES  # noqa: E402
from kbx.tasks.module import import_task  # noqa: E402
from kbx.tasks.registry import load_suite, select  # noqa: E402
from kbx.tasks.suite_check import judged_on  # noqa: E402


def _run(task: object, path: Path) -> tuple[float, list[torch.Tensor | str]]:
    """CPU seconds for the candidate on every CPU workload of its task, and its outputs (the error, where it raised)."""
    code = import_task(task)
    entry = load_solution(task, path)
    outputs = []
    start = time.process_time()
    for workload in task.workloads_for(DEVICE_ROLES["cpu"]):
        inputs = code.make_inputs(workload, task.dtypes[0], torch.Generator().manual_seed(7))
        try:
            result = entry(**inputs)
        except Exception as exc:  # noqa: BLE001 - a wrong candidate may raise; it must raise the same either way
            result = f"{type(exc).__name__}: {exc}"
        outputs += list(result) if isinstance(result, (tuple, list)) else [result]
    return time.process_time() - start, outputs


def _all_identical(expected: list[torch.Tensor | str], got: list[torch.Tensor | str]) -> bool:
    return len(expected) == len(got) and all(_identical(a, b) for a, b in zip(expected, got))


def _identical(a: torch.Tensor | str, b: torch.Tensor | str) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a.nan_to_num(0.125), b.nan_to_num(0.125))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*")
    parser.add_argument("--every", type=int, default=25)
    args = parser.parse_args()
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("set TRITON_INTERPRET=1")
        return 2
    places = overhead_patches()
    upstream = [getattr(owner, name) for owner, name in places]
    install_interpreter_shims()
    shimmed = [getattr(owner, name) for owner, name in places]
    assert dataclasses.asdict(upstream[0]) != dataclasses.asdict(shimmed[0])

    def use(values: list[object]) -> None:
        for (owner, name), value in zip(places, values):
            setattr(owner, name, value)

    tasks = select(load_suite(), args.tasks) if args.tasks else load_suite()
    candidates = [(t, p) for t in tasks for p in [t.solution_file, *t.honest_files(), *t.wrong_files()]
                  if judged_on(p, "cpu")]
    if not args.tasks:
        candidates = candidates[::args.every]
    print(f"{'candidate':58s} {'upstream':>9s} {'shimmed':>8s}  identical")
    totals = [0.0, 0.0]
    for task, path in candidates:
        use(upstream)
        slow, expected = _run(task, path)
        use(shimmed)
        fast, got = _run(task, path)
        totals = [totals[0] + slow, totals[1] + fast]
        same: bool | str = _all_identical(expected, got)
        if not same:  # a candidate that reads past its inputs differs from itself too
            use(upstream)
            same = "False" if _all_identical(expected, _run(task, path)[1]) else "upstream differs from itself"
        label = f"{task.name}/{path.parent.name}/{path.stem}".replace("/" + task.name + "/", "/")
        print(f"{label:58s} {slow:8.1f}s {fast:7.1f}s  {same}", flush=True)
    print(f"{'all':58s} {totals[0]:8.1f}s {totals[1]:7.1f}s  ({1 - totals[1] / max(totals[0], 1e-9):.0%} less)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
