"""The CPU candidate worker's memory: what torch hands out uninitialised is filled before anyone sees it."""

from __future__ import annotations


def poison_new_memory() -> None:
    """From here on, memory torch hands out uninitialised (`torch.empty` and its kin, the candidate's outputs among
    them) is filled first: NaN for floating point, the largest value for integers, True for booleans. An output
    element a kernel never writes then cannot pass for a right 0 because the allocator happened to return zeroed
    pages (a loss kernel that skipped the ignored positions passed or failed by the allocator's luck). It is torch's
    deterministic mode, `warn_only` so that no operator of the candidate's wrapper raises for want of a
    deterministic implementation. On the CPU only: on a GPU the fill kernels would run inside the timed calls, and
    their launches have not been checked against the launch trace's rules on a GPU yet."""
    import torch

    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
