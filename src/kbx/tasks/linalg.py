"""Helpers for linear-algebra tasks: chunked batched calls for their checks (they run in the trusted worker, on the
device) and matrices of a chosen condition number for their inputs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from kbx.tasks import inputs

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


def conditioned(shape: Sequence[int], cond: float, generator: torch.Generator) -> torch.Tensor:
    """Float64 matrices U diag(σ) Vᵀ of `shape` (..., m, n), m >= n, with cond₂ = `cond` exactly, for `make_inputs`.

    U (m x n) and V (n x n) are the Q factors of float64 QRs of normal matrices (random orthonormal columns); σ =
    cond^-t with t uniform in [0, 1] and both ends present, so the singular values are log-uniform between 1/cond
    and 1. Drawn from `generator` in that order (U, V, t): the same generator state gives the same matrices."""
    *batch, m, n = shape
    u, _ = torch.linalg.qr(inputs.randn(shape, "float64", generator))
    v, _ = torch.linalg.qr(inputs.randn([*batch, n, n], "float64", generator))
    t = inputs.uniform([*batch, n], 0.0, 1.0, "float64", generator)
    t[..., 0], t[..., -1] = 0.0, 1.0
    return (u * cond ** -t[..., None, :]) @ v.transpose(-1, -2)
