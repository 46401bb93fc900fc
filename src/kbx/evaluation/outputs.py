"""How a candidate's return value is packed for the trusted worker, and how its inputs are watched.

Only plain tensors and primitive markers are saved, so the trusted side can load them with
`torch.load(weights_only=True)`, which never executes pickled code. On a GPU a large output does not go through the
file at all: it is shared as a CUDA descriptor (`kbx.evaluation.cuda_share`) and the file holds a `shared` marker
with its description, the descriptors travelling in the same order beside the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

SHARED = "shared"
"""The marker type of an output handed over as a CUDA descriptor: `{"type": "shared", "block": {...}}`."""
SHARE_BYTES = 1 << 20
"""Contiguous GPU outputs of at least this many bytes are shared rather than saved."""

Share = Callable[[torch.Tensor], dict[str, Any] | None]
"""Hands one output over outside the file: the shared block's description, or None to save it in the file."""


def output_items(result: Any) -> list[Any]:
    """The outputs of a call: the items of a returned tuple or list, else the one value returned."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def pack_outputs(result: Any, share: Share | None = None) -> list[Any]:
    """Flatten a return value into plain tensors or `{"type": ...}` markers for non-tensors; with `share`, a large
    contiguous GPU tensor becomes a `shared` marker when `share` takes it."""
    return [_plain(item, share) for item in output_items(result)]


def shareable(item: torch.Tensor) -> bool:
    """Whether an output goes over as a CUDA descriptor: a plain contiguous GPU tensor of `SHARE_BYTES` or more."""
    return item.is_cuda and item.is_contiguous() and item.numel() * item.element_size() >= SHARE_BYTES


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


def _plain(item: Any, share: Share | None) -> Any:
    if type(item) is torch.Tensor:
        if share is not None and shareable(item):
            block = share(item)
            if block is not None:
                return {"type": SHARED, "block": block}
        return item.detach()
    return {"type": type(item).__name__}


def unpack_output(item: Any, shared: Callable[[dict[str, Any]], torch.Tensor] | None = None) -> Any:
    """Inverse of `_plain` for comparison: markers become a stand-in object named for the original type; a `shared`
    marker becomes the tensor `shared` copies out of its block."""
    if isinstance(item, torch.Tensor):
        return item
    if _is_shared(item) and shared is not None:
        return shared(item["block"])
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
        elif not _is_shared(item) and not (
            isinstance(item, dict) and set(item) == {"type"} and isinstance(item["type"], str)
        ):
            return f"the file holds a {type(item).__name__}, which the worker never writes"
    return ""


def shared_count(saved: dict[str, Any]) -> int:
    """How many descriptors a well-formed case file's outputs call for."""
    return sum(1 for item in saved["outputs"] if _is_shared(item))


_BLOCK_FIELDS = {"size": int, "nbytes": int, "dtype": str, "shape": list}


def _is_shared(item: Any) -> bool:
    if not (isinstance(item, dict) and set(item) == {"type", "block"} and item["type"] == SHARED):
        return False
    block = item["block"]
    return (
        isinstance(block, dict)
        and set(block) == set(_BLOCK_FIELDS)
        and all(type(block[name]) is kind for name, kind in _BLOCK_FIELDS.items())
        and all(type(extent) is int for extent in block["shape"])
    )
