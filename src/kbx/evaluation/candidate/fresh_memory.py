"""What torch hands out uninitialised during a candidate's correctness call is filled before anyone sees it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

DEVICES = ("cpu",)
"""Where the fill is on. A GPU is left out until a device has run it (the fill kernels inside the launch trace, the
deterministic mode beside CUDA operators): session 25 wrote it with no device time left. tests/gpu/test_memory_gpu.py
checks it there once "cuda" is added."""


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
