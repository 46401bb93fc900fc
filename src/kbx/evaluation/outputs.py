"""How a candidate's return value is packed for the trusted worker, and how its inputs are watched.

Only plain tensors and primitive markers are saved, so the trusted side can load them with
`torch.load(weights_only=True)`, which never executes pickled code.
"""

from __future__ import annotations

from typing import Any

import torch


def output_items(result: Any) -> list[Any]:
    """The outputs of a call: the items of a returned tuple or list, else the one value returned."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def pack_outputs(result: Any) -> list[Any]:
    """Flatten a return value into plain tensors or `{"type": ...}` markers for non-tensors."""
    return [_plain(item) for item in output_items(result)]


def snapshot_inputs(inputs: dict[str, Any]) -> dict[str, torch.Tensor]:
    """Copies of the tensor arguments, taken before the call."""
    return {name: value.detach().clone() for name, value in inputs.items() if isinstance(value, torch.Tensor)}


def changed_inputs(pristine: dict[str, torch.Tensor], after: dict[str, Any]) -> list[str]:
    """Names of tensor inputs whose values changed during the call (bitwise; NaN equals NaN)."""
    changed = []
    for name, before in pristine.items():
        value = after.get(name)
        if type(value) is not torch.Tensor or value.shape != before.shape or value.dtype != before.dtype:
            changed.append(name)
            continue
        same = value == before
        if before.is_floating_point():
            same |= torch.isnan(value) & torch.isnan(before)
        if not bool(same.all()):
            changed.append(name)
    return changed


def _plain(item: Any) -> Any:
    if type(item) is torch.Tensor:
        return item.detach()
    return {"type": type(item).__name__}


def unpack_output(item: Any) -> Any:
    """Inverse of `_plain` for comparison: markers become a stand-in object named for the original type."""
    if isinstance(item, torch.Tensor):
        return item
    if isinstance(item, dict):
        return _Marker(str(item.get("type", "object")))
    return _Marker(type(item).__name__)


class _Marker:
    """Stands for a non-tensor the candidate returned; its type name shows in the mismatch message."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


def malformed_case_file(saved: Any) -> str:
    """Why a loaded case file is not what the candidate worker writes (a list of plain dense tensors or markers,
    `pack_outputs`), or "" when it is. The file lies in the candidate's reach, so anything may be in it."""
    if not isinstance(saved, dict) or not isinstance(saved.get("outputs"), list):
        return "the file does not hold a list of outputs"
    for item in saved["outputs"]:
        if isinstance(item, torch.Tensor):
            if type(item) is not torch.Tensor or item.layout is not torch.strided or item.is_quantized:
                return f"the file holds a {type(item).__name__} with layout {item.layout}, not a dense tensor"
        elif not (isinstance(item, dict) and set(item) == {"type"} and isinstance(item["type"], str)):
            return f"the file holds a {type(item).__name__}, which the worker never writes"
    return ""
