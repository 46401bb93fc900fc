"""Where does a task's numerical disagreement come from? For each workload x dtype of the named tasks, measure the
reference at the task dtype and the solution against a float64 "gold" run of the same reference, in one trusted
process (a diagnosis tool for task authors, not a verdict: `verify_tasks.py` gives those).

    python scripts/diagnose_tasks.py --device cuda addmm group_norm --roles smoke check

Per line: max |ref - gold|, max |solution - gold| (both in units of the task's atol + rtol·|gold|: > 1 means
outside the tolerance), and how many elements of the solution fail the task's tolerance against the reference
and against gold. A solution closer to gold than the reference is, but outside the tolerance against the
reference, points at the tolerance (or at the reference's own precision), not at the kernel.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

import torch

from kbx.evaluation.outputs import output_items
from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite, select


def _upcast(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.double()
    return value


def _excess(values: torch.Tensor, gold: torch.Tensor, atol: float, rtol: float) -> tuple[float, int]:
    """Largest |values - gold| / (atol + rtol |gold|), and how many elements exceed 1."""
    values = values.double()
    ratio = (values - gold).abs() / (atol + rtol * gold.abs())
    ratio = torch.where(values == gold, 0.0, torch.nan_to_num(ratio, nan=float("inf")))
    return float(ratio.max()) if ratio.numel() else 0.0, int((ratio > 1).sum())


def _solution(task: Any) -> Any:
    spec = importlib.util.spec_from_file_location(f"_diag_{task.name}", task.solution_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, task.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="+")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--roles", nargs="+", default=["smoke", "check", "bench"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for task in select(load_suite(), args.tasks):
        code = import_task(task)
        try:
            solve = _solution(task)
        except Exception as exc:
            print(f"{task.name}: solution import failed: {type(exc).__name__}: {exc}")
            continue
        for workload in task.workloads_for(tuple(args.roles)):
            for dtype in task.dtypes:
                label = f"{task.name}/{workload.name}/{dtype}"
                try:
                    generator = torch.Generator(device=args.device).manual_seed(args.seed)
                    inputs = code.make_inputs(workload, dtype, generator)
                    with torch.no_grad():
                        ref = output_items(code.reference(**inputs))
                        try:
                            gold = output_items(code.reference(**{k: _upcast(v) for k, v in inputs.items()}))
                        except Exception as exc:  # some references take no float64
                            gold = None
                            print(f"{label}: no float64 reference ({type(exc).__name__}: {str(exc)[:80]})")
                        out = output_items(solve(**{k: v.clone() if isinstance(v, torch.Tensor) else v
                                                    for k, v in inputs.items()}))
                    if args.device == "cuda":
                        torch.cuda.synchronize()
                except Exception as exc:
                    print(f"{label}: {type(exc).__name__}: {str(exc)[:300]}")
                    continue
                tol = task.contract.tolerance(dtype, workload)
                for i, (o, r) in enumerate(zip(out, ref)):
                    if not (isinstance(r, torch.Tensor) and r.is_floating_point()):
                        same = bool(torch.equal(o.cpu(), r.cpu())) if isinstance(o, torch.Tensor) else o == r
                        print(f"{label}[{i}]: non-float output, equal={same}")
                        continue
                    g = gold[i].double() if gold is not None else r.double()
                    ref_x, ref_n = _excess(r, g, tol.atol, tol.rtol)
                    sol_x, sol_n = _excess(o, g, tol.atol, tol.rtol)
                    _, vs_ref = _excess(o, r.double(), tol.atol, tol.rtol)
                    print(f"{label}[{i}]: ref-gold {ref_x:8.3g} ({ref_n} out)  sol-gold {sol_x:8.3g} ({sol_n} out)"
                          f"  sol-vs-ref out: {vs_ref} of {r.numel()}  (atol {tol.atol:g}, rtol {tol.rtol:g})",
                          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
