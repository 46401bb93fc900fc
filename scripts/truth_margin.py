"""Where a solution comes nearest to (or past) the float64 truth rule's bounds on one case, element by element.

A diagnosis aid, not a verdict: the solution runs in this process, unconfined. For the case (task, workload, dtype,
seed) it prints each floating-point output's normwise numbers and its worst elements: the output, the eager
reference, the truth, the terms of the element's bound (ulps, relative, envelope, P) and, for inputs of the output's
size, their values at that element.

    PYTHONPATH=src python3 scripts/truth_margin.py adam_step bench float32 [--seed 0] [--device cuda] [--top 8]
"""

from __future__ import annotations

import argparse
import importlib.util
import os

import torch

from kbx.evaluation.outputs import output_items
from kbx.evaluation.trusted.against_truth import (
    binade,
    element_bound,
    envelope_scale,
    judge_output,
    normwise_error,
    ulp,
)
from kbx.evaluation.trusted.bases import truth_bases
from kbx.tasks.inputs import dtype_name
from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("workload")
    parser.add_argument("dtype")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    if args.device == "cpu":  # the interpreter, with the shims candidates get (as calibrate_contracts.py)
        os.environ.setdefault("TRITON_INTERPRET", "1")
        from kbx.evaluation.candidate.interpreter import install_interpreter_shims

        install_interpreter_shims()
    task = next(t for t in load_suite() if t.name == args.task)
    code = import_task(task)
    workload = next(w for w in task.workloads if w.name == args.workload)
    spec = importlib.util.spec_from_file_location("solution", task.path / "solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    inputs = code.make_inputs(workload, args.dtype, torch.Generator(device=args.device).manual_seed(args.seed))
    with torch.no_grad():
        eager = output_items(code.reference(**inputs))
        got = output_items(getattr(module, task.name)(**inputs))
    bases = truth_bases(code.reference, inputs, eager, args.dtype, task.contract, workload)
    for index, (out, base) in enumerate(zip(got, bases)):
        if not out.is_floating_point():
            continue
        allowance = task.contract.allowance(dtype_name(out.dtype), workload)
        verdict = judge_output(out, base, allowance)
        print(f"output {index}: {verdict.status.value} {verdict.message or ''}"[:600])
        scale = envelope_scale(normwise_error(out, base), base, allowance.rule)
        t = base.truth.double().reshape(-1)
        o, e = out.double().reshape(-1), base.eager.double().reshape(-1)
        p = base.backward.double().reshape(-1) if base.backward is not None else torch.zeros_like(t)
        bound = element_bound(t.abs(), base.envelope, allowance, scale, base.backward.reshape(-1)
                              if base.backward is not None else None)
        ratio = ((o - t).abs() / bound).nan_to_num(0.0)
        worst = torch.topk(ratio, min(args.top, ratio.numel())).indices
        spacing = ulp(t.abs(), allowance.mantissa_bits, allowance.min_exponent)
        same = {k: v.reshape(-1) for k, v in inputs.items() if isinstance(v, torch.Tensor) and v.numel() == t.numel()}
        print(f"  s = {scale:.3g}; columns: ratio, out, eager, truth, |out-truth|, 4ulp, rel, K s E, c P, inputs")
        for i in worst.tolist():
            envelope = allowance.rule.element_factor * scale * float(base.envelope[binade(t[i : i + 1].abs())])
            values = " ".join(f"{k}={float(v[i]):.9g}" for k, v in same.items())
            print(f"  {float(ratio[i]):6.3f} {float(o[i]):.9g} {float(e[i]):.9g} {float(t[i]):.9g} "
                  f"{float((o[i] - t[i]).abs()):.3g} {4 * float(spacing[i]):.3g} "
                  f"{allowance.element_relative * float(t[i].abs()):.3g} {envelope:.3g} "
                  f"{allowance.rule.backward_factor * float(p[i]):.3g} | {values}")


if __name__ == "__main__":
    main()
