"""How much of an output a contract leaves unchecked: the share of its elements on which an output 50 % off
(1.5 or 0.5 times the reference) would still pass (issue 20; the suite's test holds every check workload of every
allclose task to 1 % unless the task names the workload in `insensitive`, with the reason).

Exact zeros of the truth are left out: no relative error is defined there, and the rule holds them to the
reference's own error near zero. An output whose truth is zero everywhere counts as wholly unchecked (a kernel
that returns zeros would pass on it).
"""

from __future__ import annotations

from typing import Any

import torch

from kbx.evaluation.outputs import output_items
from kbx.evaluation.trusted.against_truth import passing_share
from kbx.evaluation.trusted.bases import truth_bases
from kbx.tasks.inputs import dtype_name
from kbx.tasks.module import TaskCode
from kbx.tasks.spec import Workload

FACTORS = (1.5, 0.5)
"""An output 50 % too large and 50 % too small."""


def unchecked_shares(code: TaskCode, workload: Workload, dtype: str, seed: int = 0) -> list[float]:
    """For each floating-point output of the case (workload, dtype, seed): the largest share, over `FACTORS`, of
    its nonzero elements on which that output would pass the task's contract."""
    inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(seed))
    with torch.no_grad():
        eager = output_items(code.reference(**inputs))
    contract = code.task.contract
    if not contract.against_truth:
        return [_share_by_tolerance(e, *_tolerance(code, dtype, workload)) for e in eager if _floating(e)]
    shares = []
    for e, base in zip(eager, truth_bases(code.reference, inputs, eager, dtype, contract, workload)):
        if not _floating(e):
            continue
        allowance = contract.allowance(dtype_name(e.dtype), workload)
        found = [passing_share(base, allowance, factor) for factor in FACTORS]
        shares.append(1.0 if found[0] is None else max(s for s in found if s is not None))
    return shares


def _floating(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.is_floating_point()


def _tolerance(code: TaskCode, dtype: str, workload: Workload) -> tuple[float, float]:
    tolerance = code.task.contract.tolerance(dtype, workload)
    return tolerance.atol, tolerance.rtol


def _share_by_tolerance(ref: torch.Tensor, atol: float, rtol: float) -> float:
    """The share for a contract judged against the reference with atol and rtol: |0.5 ref| <= atol + rtol |ref|."""
    values = ref.detach().double().abs().reshape(-1)
    nonzero = values[torch.isfinite(values) & (values != 0)]
    if nonzero.numel() == 0:
        return 1.0
    return float((0.5 * nonzero <= atol + rtol * nonzero).double().mean())
