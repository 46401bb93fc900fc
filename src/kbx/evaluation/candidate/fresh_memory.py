"""What torch hands out uninitialised during a candidate's correctness call is filled before anyone sees it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def filled_new_memory() -> Iterator[None]:
    """While open, memory torch hands out uninitialised (`torch.empty` and its kin, the candidate's outputs among
    them, from Python or from an extension's C++) is filled first: NaN for floating point, the largest value for
    integers, True for booleans. An output element a kernel never writes then cannot pass for a right 0 because the
    allocator happened to hand out zeroed memory: fresh pages on the CPU, and on a GPU fresh driver memory or a block
    the caching allocator kept from the last case (a loss kernel that skipped the ignored positions passed or
    failed by the allocator's luck).

    It is torch's deterministic mode, `warn_only` so that no operator of the candidate's wrapper raises for want of a
    deterministic implementation, opened around the correctness calls only: in a timed call the fill kernels would
    be timed as the candidate's. On a GPU the fills are `aten::fill_` launched inside the allocating operator; with
    it on, an H200 judged as before (session 26, 2026-11-29: tests/gpu/test_memory_gpu.py, 94 solutions and honest
    kernels, the GPU-only wrong candidates, 34 timed solutions; docs/gpu-verification.md). It lives inside the
    candidate's process and is fidelity, not a boundary: a candidate that turns it off loses nothing but the check
    of its own unwritten elements, and its timed calls are judged again by the re-check of the timed outputs."""
    import torch

    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    fill = torch.utils.deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.utils.deterministic.fill_uninitialized_memory = fill
