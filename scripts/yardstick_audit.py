"""How far each eager reference is from the float64 truth, in units of what the truth rule allows a kernel without it.

    python scripts/yardstick_audit.py [TASK ...] [--device cuda] [--roles smoke check bench]

(TASK names go before `--roles`, which takes every word after it.)

For every floating-point output of every case (workload, dtype, seed 0) of the named tasks (all `allclose` tasks
judged against the truth by default), one line: ||eager - truth|| over the contract's own normwise allowance
(the floor, the truth's response c ||P|| and any absolute allowance: `kbx.evaluation.trusted.against_truth.
own_limit`). Above `Rule.yardstick_factor` the eager reference is no yardstick for that case (it is outside the
contract itself, as PyTorch's CUDA cumsum that adds bf16 in bf16) and kernels are judged by the contract's numbers
alone. Sorted by ratio, largest last, so the tail shows the references closest to losing their standing.
"""

from __future__ import annotations

import argparse
import sys

import torch

from kbx.evaluation.outputs import output_items
from kbx.evaluation.trusted.against_truth import own_limit
from kbx.evaluation.trusted.bases import truth_bases
from kbx.tasks.accuracy import RULE
from kbx.tasks.inputs import dtype_name
from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite, select


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--roles", nargs="+", default=["smoke", "check"])
    args = parser.parse_args(argv)
    suite = load_suite()
    tasks = select(suite, args.tasks) if args.tasks else [t for t in suite if t.contract.against_truth]
    lines = []
    for task in tasks:
        code = import_task(task)
        for workload in task.workloads_for(tuple(args.roles)):
            for dtype in task.dtypes:
                try:
                    found = _case_lines(code, workload, dtype, args.device)
                    for ratio, line in found:  # as measured too: a run cut off at its time limit keeps them
                        print(f"measured {ratio:10.3g}  {line}", file=sys.stderr, flush=True)
                    lines += found
                except Exception as exc:  # noqa: BLE001 - a case with no float64 path is named, not fatal
                    print(f"{task.name} {workload.name} {dtype}: {type(exc).__name__}: {str(exc)[:120]}",
                          file=sys.stderr)
                if args.device == "cuda":
                    torch.cuda.empty_cache()
    for ratio, line in sorted(lines):
        print(f"{ratio:10.3g}  {line}")
    return 0


def _case_lines(code, workload, dtype: str, device: str) -> list[tuple[float, str]]:
    task = code.task
    inputs = code.make_inputs(workload, dtype, torch.Generator(device=device).manual_seed(0))
    with torch.no_grad():
        eager = output_items(code.reference(**inputs))
    found = []
    for index, (e, base) in enumerate(zip(eager, truth_bases(code.reference, inputs, eager, dtype, task.contract,
                                                             workload))):
        if base.truth is None or base.envelope is None:
            continue
        limit = own_limit(base, task.contract.allowance(dtype_name(e.dtype), workload))
        if limit == 0:  # an output whose truth is 0 and exact: nothing to measure
            continue
        ratio = base.eager_error / limit
        norm = max(base.norm, 1e-300)
        flag = "  NO YARDSTICK" if ratio > RULE.yardstick_factor else ""
        found.append((ratio, f"{task.name} {workload.name} {dtype} output {index}: eager "
                             f"{base.eager_error / norm:.3g} of ||truth||, its own bound {limit / norm:.3g}{flag}"))
    return found


if __name__ == "__main__":
    sys.exit(main())
