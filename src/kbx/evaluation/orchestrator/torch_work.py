"""The rule of `runtime.torch_compute`, applied in the orchestrator to the tally each case's report carries
(`kbx.evaluation.candidate.torch_compute` records it in the candidate's process). Its thresholds live here, out of
the candidate's reach."""

from __future__ import annotations

from kbx.evaluation.protocol import TorchWork

MIN_ELEMENTS = 256
SIZE_DIVISOR = 8


def torch_compute_violation(work: TorchWork) -> str:
    """Why a call's tally of torch's work (as the worker reported it) means torch did the task's work, or "" when
    it does not: the elements its operators touched, summed over every operator and call, reach 1/SIZE_DIVISOR of
    the largest input (at least MIN_ELEMENTS)."""
    ops, largest = work.ops, work.largest_input
    threshold = max(MIN_ELEMENTS, largest // SIZE_DIVISOR)
    total = sum(ops.values())
    if total < threshold:
        return ""
    ranked = sorted(ops.items(), key=lambda item: -item[1])
    named = ", ".join(f"{op} ({numel})" for op, numel in ranked[:4])
    return (f"runtime.torch_compute: torch's operators worked on {total} elements during the call, at least "
            f"{threshold} (1/{SIZE_DIVISOR} of the largest input, min {MIN_ELEMENTS}): {named}; the task's work "
            "must be done by the candidate's own kernels (torch may allocate, view and copy)")
