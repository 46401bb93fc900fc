"""What torch hands out uninitialised during a candidate's correctness call is filled before anyone sees it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

DEVICES = ("cpu", "cuda")
"""Where the fill is on: everywhere kbx judges. On a GPU since session 26 (H200, 2026-11-29): with it on,
tests/gpu/test_memory_gpu.py passed (relu's wrong/stores_positives_only MISMATCH with NaN, the solution timed and
PASSED), 94 solutions and honest kernels of 27 tasks PASSED and the GPU-only wrong candidates failed as before, and 34
solutions passed a timed run (docs/gpu-verification.md, session 26)."""


@contextmanager
def filled_new_memory(device: str) -> Iterator[None]:
    """On the `DEVICES`, while open, memory torch hands out uninitialised (`torch.empty` and its kin, the candidate's
    outputs among them, from Python or from an extension's C++) is filled first: NaN for floating point, the largest
    value for integers, True for booleans. An output element a kernel never writes then cannot pass for a right 0
    because the allocator happened to hand out zeroed memory: fresh pages on the CPU, and on a GPU fresh driver
    memory or a block the caching allocator kept from the last case (a loss kernel that skipped the ignored
    positions passed or failed by the allocator's luck).

    It is torch's deterministic mode, `warn_only` so that no operator of the candidate's wrapper raises for want of a
    deterministic implementation, opened around the correctness calls only: in a timed call the fill kernels would
    be timed as the candidate's. On a GPU the fills would be `aten::fill_` launched inside the allocating operator,
    which the launch trace should count as dispatched and the torch-work recorder as a fill (unchecked there). The
    candidate could turn it off or read it; it is fidelity, not a boundary: a kernel that does so loses nothing but
    the check of its own unwritten elements, and its timed calls are judged again by the re-check of the timed
    outputs."""
    if device not in DEVICES:
        yield
        return
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
