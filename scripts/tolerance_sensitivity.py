"""How much of each output a task's tolerance leaves unchecked (issue 20, point 2).

    PYTHONPATH=src python3 scripts/tolerance_sensitivity.py [--limit 0.01] [--tasks softmax ...] [--seed 0]

For every allclose task, check workload (the CPU's roles) and dtype, it draws the inputs from the seed, computes the
reference and prints the share of nonzero output elements on which an output 50 % off would still pass:
0.5 |ref| <= atol + rtol |ref|, with the contract's own atol and rtol for that dtype and workload. Exact zeros are
left out of the share (no relative error is defined there) and counted apart. Rows above --limit are the tasks
whose contract swamps their small outputs; the last line counts them. Needs only torch and kbx.
"""

from __future__ import annotations

import argparse

import torch

from kbx.evaluation.cases import DEVICE_ROLES
from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite, select


def unchecked_share(ref: torch.Tensor, atol: float, rtol: float) -> tuple[float, float]:
    """(share of nonzero elements a 50 % error passes on, share of exact zeros)."""
    values = ref.detach().double().abs().reshape(-1)
    values = values[torch.isfinite(values)]
    if values.numel() == 0:
        return 0.0, 0.0
    nonzero = values[values != 0]
    zeros = 1.0 - nonzero.numel() / values.numel()
    if nonzero.numel() == 0:
        return 1.0, zeros
    return float((0.5 * nonzero <= atol + rtol * nonzero).double().mean()), zeros


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=0.01)
    parser.add_argument("--tasks", nargs="*", default=[])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    over = 0
    print(f"{'task':28s} {'workload':34s} {'dtype':9s} {'unchecked':>9s} {'zeros':>6s}  atol / rtol")
    for task in select(load_suite(), args.tasks):
        if task.contract.kind != "allclose":
            continue
        code = import_task(task)
        for workload in task.workloads_for(DEVICE_ROLES["cpu"]):
            if workload.role != "check":
                continue
            for dtype in task.dtypes:
                inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(args.seed))
                result = code.reference(**inputs)
                tolerance = task.contract.tolerance(dtype, workload)
                for ref in result if isinstance(result, (tuple, list)) else [result]:
                    if not (isinstance(ref, torch.Tensor) and ref.is_floating_point()):
                        continue
                    share, zeros = unchecked_share(ref, tolerance.atol, tolerance.rtol)
                    if share > args.limit:
                        over += 1
                        print(f"{task.name:28s} {workload.name:34s} {dtype:9s} {share:9.1%} {zeros:6.1%}  "
                              f"{tolerance.atol:.2g} / {tolerance.rtol:.2g}")
    print(f"{over} output(s) with more than {args.limit:.0%} of their nonzero elements unchecked at 50 % error")


if __name__ == "__main__":
    main()
