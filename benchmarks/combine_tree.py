"""What the interpreter's combine tree (`kbx.evaluation.candidate.combine_tree`) saves: the suite's candidates that
call `tl.reduce` or `tl.associative_scan` with their own combine function, run in this process on every CPU
workload of their task (one dtype, one seed), with the interpreter's shims, once with the element-by-element combine
of upstream and once with the tree. Prints one line per candidate: seconds each way and whether the outputs agree.

    TRITON_INTERPRET=1 PYTHONPATH=src python benchmarks/combine_tree.py

Seconds on a shared machine are only comparable within one line (the two runs are back to back).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_contracts import load_solution  # noqa: E402  (beside this script)

from kbx.evaluation.candidate.interpreter import install_interpreter_shims  # noqa: E402
from kbx.evaluation.cases import DEVICE_ROLES  # noqa: E402
from kbx.tasks.module import import_task  # noqa: E402
from kbx.tasks.registry import load_suite  # noqa: E402

CALLS = ("tl.reduce(", "tl.associative_scan(")


def _users() -> list[tuple[object, Path]]:
    """(task, candidate file) for every candidate of the suite whose source calls a generic reduce or scan."""
    found = []
    for task in load_suite():
        for path in [task.solution_file, *task.honest_files(), *task.wrong_files()]:
            if any(call in path.read_text() for call in CALLS):
                found.append((task, path))
    return found


def _run(task: object, path: Path) -> tuple[float, list[torch.Tensor | str]]:
    """Seconds for the candidate on every CPU workload of its task, and its outputs (the error, where it raised)."""
    code = import_task(task)
    entry = load_solution(task, path)
    dtype = task.dtypes[0]
    outputs = []
    start = time.perf_counter()
    for workload in task.workloads_for(DEVICE_ROLES["cpu"]):
        inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(7))
        try:
            result = entry(**inputs)
        except Exception as exc:  # noqa: BLE001 - a wrong candidate may raise; it must raise the same either way
            result = f"{type(exc).__name__}: {exc}"
        outputs += list(result) if isinstance(result, (tuple, list)) else [result]
    return time.perf_counter() - start, outputs


def main() -> int:
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("set TRITON_INTERPRET=1")
        return 2
    from triton.runtime.interpreter import ReduceOps, ScanOps

    one_by_one = (ReduceOps.generic_reduce, ScanOps.generic_scan)  # upstream's, before the shims replace them
    install_interpreter_shims()
    tree = (ReduceOps.generic_reduce, ScanOps.generic_scan)
    print(f"{'candidate':58s} {'one by one':>11s} {'tree':>8s}  same")
    for task, path in _users():
        ReduceOps.generic_reduce, ScanOps.generic_scan = one_by_one
        slow, expected = _run(task, path)
        ReduceOps.generic_reduce, ScanOps.generic_scan = tree
        fast, got = _run(task, path)
        same = len(expected) == len(got) and all(
            a == b if isinstance(a, str) or isinstance(b, str)
            else torch.allclose(a.double(), b.double(), rtol=1e-3, atol=1e-6, equal_nan=True)
            for a, b in zip(expected, got))
        label = f"{task.name}/{path.parent.name}/{path.stem}".replace("/" + task.name + "/", "/")
        print(f"{label:58s} {slow:10.1f}s {fast:7.1f}s  {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
