"""How much of each output a task's contract leaves unchecked (issue 20, point 2).

    PYTHONPATH=src python3 scripts/tolerance_sensitivity.py [--limit 0.01] [--tasks softmax ...] [--seed 0]

For every allclose task, check workload and dtype, it draws the inputs from the seed and prints the share of
nonzero output elements on which an output 50 % off (1.5 or 0.5 times the reference) would still pass the task's
contract (`kbx.evaluation.trusted.sensitivity`): against the float64 truth, or with the contract's atol and rtol
where the reference has no float64 path. Rows above --limit are printed, those the task names in `insensitive`
marked so; the last line counts the others. tests/suite/test_sensitivity.py holds the suite to the same limit.
Needs only torch and kbx.
"""

from __future__ import annotations

import argparse

from kbx.evaluation.trusted.sensitivity import unchecked_shares
from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite, select


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=0.01)
    parser.add_argument("--tasks", nargs="*", default=[])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    over = 0
    print(f"{'task':28s} {'workload':34s} {'dtype':9s} {'output':>6s} {'unchecked':>9s}")
    for task in select(load_suite(), args.tasks):
        if task.contract.kind != "allclose":
            continue
        code = import_task(task)
        for workload in task.workloads_for(("check",)):
            exempt = task.contract.insensitive.get(workload.name)
            for dtype in task.dtypes:
                for index, share in enumerate(unchecked_shares(code, workload, dtype, args.seed)):
                    if share <= args.limit:
                        continue
                    over += exempt is None
                    note = f"  (insensitive: {exempt})" if exempt else ""
                    print(f"{task.name:28s} {workload.name:34s} {dtype:9s} {index:6d} {share:9.1%}{note}")
    print(f"{over} output(s) with more than {args.limit:.0%} of their nonzero elements unchecked at 50 % error, "
          "not named insensitive")


if __name__ == "__main__":
    main()
