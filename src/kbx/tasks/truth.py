"""The float64 truth of a task's reference: the same reference run on float64 copies of its inputs.

A reference often computes in float32 on purpose (`x.float()`, `sum(dtype=torch.float32)`, a `log_softmax` with
`dtype=`), to be accurate at the task dtype; run for the truth, every such floating-point dtype is widened to
float64 (`Widened`), so the truth is the operation computed in float64 throughout, not the reference's float32
steps again. A reference whose meaning depends on its dtype (PyTorch's default `eps` of `rms_norm` is the input
dtype's machine epsilon) reads that dtype with `task_dtype`, which names the case's dtype during a truth run.
"""

from __future__ import annotations

import contextvars
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

_CASE_DTYPE: contextvars.ContextVar[torch.dtype | None] = contextvars.ContextVar("kbx_case_dtype", default=None)

_NARROW = (torch.float32, torch.float16, torch.bfloat16)
_TO_DOUBLE = (torch.Tensor.float, torch.Tensor.half, torch.Tensor.bfloat16)


def task_dtype(tensor: torch.Tensor) -> torch.dtype:
    """The dtype `tensor` has in the task: its own, except during a truth run, where inputs are float64 copies."""
    case = _CASE_DTYPE.get()
    return case if case is not None and tensor.dtype == torch.float64 else tensor.dtype


def _widen(value: Any) -> Any:
    if isinstance(value, torch.dtype) and value in _NARROW:
        return torch.float64
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.dtype) for v in value):
        return type(value)(_widen(v) for v in value)
    return value


class Widened(TorchFunctionMode):
    """Every narrower floating-point dtype named in a torch call becomes float64, and `.float()`, `.half()` and
    `.bfloat16()` become `.double()`."""

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        if func in _TO_DOUBLE:
            return args[0].double()
        kwargs = {key: _widen(value) for key, value in (kwargs or {}).items()}
        return func(*(_widen(a) for a in args), **kwargs)


def float64_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs with every floating-point tensor copied to float64 (others as they are)."""
    return {k: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for k, v in inputs.items()}


def float64_reference(reference: Any, inputs: dict[str, Any], dtype: torch.dtype) -> Any:
    """`reference` run on float64 copies of `inputs` (of a case in `dtype`) with every floating-point step widened
    to float64; what it returns. Exceptions propagate: a reference with no float64 path says so in its contract."""
    token = _CASE_DTYPE.set(dtype)
    try:
        with torch.no_grad(), Widened():
            return reference(**float64_inputs(inputs))
    finally:
        _CASE_DTYPE.reset(token)
