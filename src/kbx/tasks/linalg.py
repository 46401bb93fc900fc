"""Helpers for the checks of linear-algebra tasks (they run in the trusted worker, on the device)."""

from __future__ import annotations

from collections.abc import Callable

import torch

CHUNK = 4096
"""Matrices per library call. cuSOLVER's batched routines can fail on large float64 batches: `eigvalsh` of 65,536
16 x 16 float64 matrices raised CUSOLVER_STATUS_INTERNAL_ERROR on an H200 (torch 2.11, CUDA 13.0, 2026-11-22)."""


def in_chunks(fn: Callable[[torch.Tensor], torch.Tensor], matrices: torch.Tensor, chunk: int = CHUNK) -> torch.Tensor:
    """`fn` (a batched op on (..., m, n) matrices returning one tensor) over `matrices` flattened to one batch
    dimension, `chunk` matrices at a time; the result has that one batch dimension."""
    flat = matrices.reshape(-1, *matrices.shape[-2:])
    if flat.shape[0] <= chunk:
        return fn(flat)
    return torch.cat([fn(part) for part in flat.split(chunk)])
