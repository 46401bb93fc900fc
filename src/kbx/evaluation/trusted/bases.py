"""The bases a case's outputs are judged against (`kbx.evaluation.trusted.against_truth`), computed once per case.

The reference runs again in float64 (`kbx.tasks.truth`): on the case's inputs, for the truth, and on perturbed
copies of them, for each element's response P: 1 + ceil(log2 k) runs for k floating-point inputs (two for one),
so that any two inputs move together in one run and apart in another. One run at a time, its outputs folded in and
freed before the next, so the peak is one float64 run beside the kept truth.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import torch

from kbx.evaluation.outputs import output_items
from kbx.evaluation.trusted.against_truth import Basis, basis, with_backward
from kbx.tasks.accuracy import RULE, UNIT_ROUNDOFF, Rule
from kbx.tasks.inputs import torch_dtype
from kbx.tasks.spec import Contract, Workload
from kbx.tasks.truth import flip_patterns, float64_reference, perturbed

PERTURBATION_SEED = 0x5EED0
"""The perturbed runs' signs are drawn from it: fixed, so a case's basis is a function of the case."""


def bases_if_any(code: Any, inputs: dict[str, Any], outputs: list[Any], dtype: str, workload: Workload
                 ) -> list[Basis] | None:
    """Each output's basis (`truth_bases`) for the case of task module `code`; None when the reference has no
    float64 path on these inputs (the contract's tolerances against the reference then judge, and the comparisons
    say `against: reference`). Running out of memory raises: it is no missing path (the trusted worker's `serve`
    leaves the evaluation unjudged, and it runs again with the GPU to itself,
    `kbx.evaluation.orchestrator.short_of_memory`). Judged by the tolerances instead, an honest fp16 kernel failed
    conv2d_depthwise's 2^31 bench beside seven other evaluations (H200, 2026-11-27); alone, the truth fits."""
    if not all(isinstance(out, torch.Tensor) for out in outputs):
        return None
    try:
        return truth_bases(code.reference, inputs, outputs, dtype, code.task.contract, workload)
    except (torch.OutOfMemoryError, MemoryError):
        raise
    except Exception:  # noqa: BLE001 - the reference's own code (a KernelBench problem's module) may raise anything
        return None  # the suite's tasks all have one on their check workloads (tests/suite/test_sensitivity)
    finally:
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.empty_cache()


def truth_bases(reference: Any, inputs: dict[str, Any], eager: list[Any], dtype: str, contract: Contract,
                workload: Workload, rule: Rule = RULE) -> list[Basis]:
    """Each output's basis for the eager outputs `eager` of `reference` on `inputs` (a case in `dtype`).

    Raises:
        ValueError, TypeError, RuntimeError, NotImplementedError: the reference has no float64 path here, or
            its float64 outputs do not fit the eager ones (callers then judge by the contract's tolerances).
    """
    case_dtype = torch_dtype(dtype)
    rounded: list[bool] = []
    truth = output_items(float64_reference(reference, inputs, case_dtype, rounded))
    if len(truth) != len(eager) or not all(isinstance(t, torch.Tensor) for t in truth):
        raise ValueError("the float64 reference returns other outputs than the eager one")
    bases = [basis(e, t, rule) for e, t in zip(eager, truth)]
    del truth
    # The case's dtype decides whether the products may run on tensor cores (`Contract.tensor_cores`)
    own = dtype if dtype in UNIT_ROUNDOFF else "float32"
    delta = replace(contract.allowance(own, workload), rule=rule).backward_delta
    count = sum(isinstance(v, torch.Tensor) and v.is_floating_point() for v in inputs.values())
    # A rounding the definition makes mid-way (`stored`) is a step: a perturbation crossing it moves an element by
    # a whole ulp of the task dtype, which says nothing of what a kernel may lose.
    perturb = rule.backward_factor and contract.perturbed_truth and not rounded
    for offset, flips in flip_patterns(count) if perturb else ():
        moved = perturbed(inputs, delta, PERTURBATION_SEED + offset, flips)
        moved = output_items(float64_reference(reference, moved, case_dtype))
        bases = [with_backward(b, m) if isinstance(m, torch.Tensor) else b for b, m in zip(bases, moved)]
        del moved
    return bases
