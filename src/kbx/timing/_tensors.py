"""Finding the tensors among a call's arguments or results (one level of lists, tuples and dict values)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def iter_tensors(obj: Any) -> Iterator[Any]:
    """Yield every torch.Tensor in `obj`, looking inside mappings, lists and tuples (recursively)."""
    import torch

    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, Mapping):
        for value in obj.values():
            yield from iter_tensors(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from iter_tensors(value)


def storage_key(tensor: Any) -> tuple[str, int]:
    """Identifies the memory a tensor lives in: two views of one buffer share a key."""
    return str(tensor.device), tensor.untyped_storage().data_ptr()
