"""Human-readable description of a task, for `kbx tasks show` (and later, prompts)."""

from __future__ import annotations

import json

from kbx.tasks.accuracy import rule_lines
from kbx.tasks.spec import Task


def describe(task: Task) -> str:
    """Description, signature, forbidden operations, input ranges, contract, workloads, reference source and timed
    baseline of a task."""
    contract = [f"  {line}" for line in contract_lines(task)]
    workloads = [f"  {line}" for line in workload_lines(task)]
    return "\n".join(
        [
            f"{task.name}  ({task.category}, level {task.level}, version {task.version})",
            "",
            task.description,
            "",
            _entry(task),
            f"dtypes: {', '.join(task.dtypes)}",
            f"forbidden (torch fallbacks for the core operation): {', '.join(task.forbidden) or _unlisted(task)}",
            *[f"input range: {name} in [{low:g}, {high:g}] (timing keeps it there)"
              for name, (low, high) in task.input_ranges.items()],
            "contract:",
            *contract,
            "workloads:",
            *workloads,
            "",
            "reference:",
            task.reference_source,
            "",
            *baseline_lines(task),
            f"{'folder' if task.module is None else 'file'}: {task.path}",
        ]
    )


def _entry(task: Task) -> str:
    """What a candidate defines: the task's function, or a KernelBench problem's `ModelNew` class."""
    if task.module is None:
        return f"signature: {task.name}{task.signature.render()}"
    return (f"candidate: class {task.module.CLASS}(nn.Module), built as Model({', '.join(task.module.init)}), "
            f"called as forward{task.module.forward.render()}")


def _unlisted(task: Task) -> str:
    return "none" if task.module is None else "none listed (torch doing the work is rejected at run time)"


def contract_lines(task: Task) -> list[str]:
    """How outputs are compared: kind, the float64 truth rule with its accumulation dtype and length (or per-dtype
    tolerances where the reference has no float64 path), bound, tf32 (also used in prompts)."""
    c = task.contract
    lines = [f"kind: {c.kind}"]
    if c.against_truth:
        lines += rule_lines(c.accumulation_dtype, c.tf32, c.reduction_length, task.dtypes, tensor_cores=c.tensor_cores)
        if c.absolute_units:
            floor = c.allowance(task.dtypes[0], task.workloads[0]).absolute
            lines.append(f"every element may also be off by {c.absolute_units:g} u_acc = {floor:.3g} in absolute "
                         f"terms (and the normwise bound by that times sqrt(elements)): {c.absolute_reason}")
        if c.rounded_inputs:
            lines.append(f"P moves {', '.join(c.rounded_inputs)} by u_out of the case's dtype, not by the step above: "
                         f"{c.rounded_reason}")
    elif c.kind == "allclose":
        lines.append(f"judged against the reference at the task dtype, not a float64 truth: {c.against_reference}")
        lines += [f"{dtype}: atol={tol.atol:g} rtol={tol.rtol:g}" for dtype, tol in c.tolerances.items()]
        if c.reduction_length:
            lines.append(f"atol widened by sqrt({c.reduction_length})")
    if c.kind == "quantized":
        if c.bounds:
            lines += [f"{dtype}: bound RMS(out - ref) / RMS(ref) <= {b:g}" for dtype, b in c.bounds.items()]
        else:
            lines.append(f"bound: RMS(out - ref) / RMS(ref) <= {c.bound:g}")
    for units in sorted(set(c.ulps.values())):
        names = ", ".join(name for name, n in c.ulps.items() if n == units)
        lines.append(f"on {names}: each floating-point element may be off by up to {units} ulp(s) of the output "
                     f"dtype, exact elsewhere: {c.ulps_reason}")
    lines.append(f"tf32 allowed: {'yes' if c.tf32 else 'no'}")
    return lines


def baseline_lines(task: Task) -> list[str]:
    """What the performance stage times as the eager baseline (and compiles), and why it is not competitive where
    the task says so (`kbx.tasks.baseline`)."""
    lines = ["timed baseline (eager, and compiled for torch.compile): "
             + ("the task's own, below" if task.baseline_source else "the reference")]
    if task.uncompetitive_baseline:
        lines.append(f"not a competitive implementation: {task.uncompetitive_baseline}")
    return [*lines, *([task.baseline_source] if task.baseline_source else []), ""]


def workload_lines(task: Task) -> list[str]:
    """One line per workload: role, name, sizes (and for a bench workload checked but not timed, so)."""
    return [f"{w.role:6s} {w.name:20s} {json.dumps(dict(w.params))}" + ("" if w.timed else "  (checked, not timed)")
            for w in task.workloads]
