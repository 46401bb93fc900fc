"""Where an output goes wrong, for both judges (`compare`, `against_truth`): the first few offending elements of a
chunk, and their flat positions as indices of the output's shape."""

from __future__ import annotations

import torch

from kbx.evaluation.verdict import Mismatch

FIRST = 5
"""Offending elements a comparison names."""


def note_first(first: list[Mismatch], start: int, mask: torch.Tensor, got: torch.Tensor,
               expected: torch.Tensor) -> int:
    """Append to `first` (up to `FIRST` in all) the elements of a chunk starting at flat position `start` where
    `mask` holds, with their values; return how many elements of the chunk `mask` holds."""
    hits = int(mask.sum())
    if hits:
        for flat in mask.nonzero().flatten()[: FIRST - len(first)].tolist():
            first.append(Mismatch(index=(start + flat,), got=float(got[flat]), expected=float(expected[flat])))
    return hits


def unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index in `shape` of flat (row-major) position `flat`."""
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return tuple(reversed(index))
