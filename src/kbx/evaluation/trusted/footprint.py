"""The memory a task's bench workloads take, known before anything is allocated: their inputs and the reference's
outputs made under torch's fake tensors, which carry shapes and dtypes and no storage. A scalar read out of a fake
tensor (`.item()`: a seed drawn by `make_inputs`) reads as 0, since it has no value; no task sizes a tensor by one.
Where the reference's output shape depends on values (lstsq's), the outputs are taken to be as large as the inputs.
On the 2-core CPU machine the suite's 327 bench workloads took about 4 s in all (2026-11-28).

The orchestrator admits timed evaluations to a GPU by it (`kbx.evaluation.orchestrator.memory_budget`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kbx.evaluation.outputs import output_items
from kbx.tasks.work import tensor_bytes


def bench_footprint(code: Any) -> dict[str, int]:
    """Per bench workload of the task (`code`: its imported module), the bytes of its inputs and outputs at the
    task's widest dtype; a workload whose inputs cannot be made under fake tensors is left out (unknown)."""
    import torch

    task = code.task
    if not task.dtypes:
        return {}
    widest = max(task.dtypes, key=lambda name: getattr(getattr(torch, name, None), "itemsize", 0))
    sizes: dict[str, int] = {}
    for workload in task.workloads_for(("bench",)):
        size = _fake_bytes(code, workload, widest)
        if size is not None:
            sizes[workload.name] = size
    return sizes


def _fake_bytes(code: Any, workload: Any, dtype: str) -> int | None:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode(allow_non_fake_inputs=True), _scalars_read_as_zero():
        try:
            inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(0))
        except Exception:
            return None
        given = tensor_bytes(*inputs.values())
        try:
            with torch.no_grad():
                made = tensor_bytes(*output_items(code.reference(**inputs)))
        except Exception:  # an output whose shape depends on values: as large as the inputs
            made = given
    return given + made


@contextmanager
def _scalars_read_as_zero() -> Iterator[None]:
    """`Tensor.item()` gives 0 for the block (the trusted worker serves one request at a time)."""
    import torch

    real = torch.Tensor.item
    torch.Tensor.item = lambda self: 0  # type: ignore[method-assign]
    try:
        yield
    finally:
        torch.Tensor.item = real  # type: ignore[method-assign]
