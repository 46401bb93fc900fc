"""The trusted worker's cache of reference entries: per case, the reference outputs and their float64 bases.

An entry is computed once per (task version, seed, seed shift, workload params, truth) and reused by every later
candidate of the task (issue 19, point 2). The cache stays within a budget: 4 GiB, or a quarter of a GPU's memory
where that is more, since a bench entry (outputs, float64 truth, P) takes GiBs and an evaluation of softmax cycles
through six of them. Eviction takes the least recently used entries of *other* tasks first and never one of the
entry's own task: an evaluation cycles through its task's cases, and in a cycle longer than the cache a
least-recently-used cache never hits (softmax's bench judge on an H200, 2026-11-27: 0.67 s a case in every round).
When the task's own entries fill the budget, a new one is not kept, so those kept keep hitting.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from kbx.evaluation.protocol import JUDGES_VARIABLE
from kbx.tasks.work import tensor_bytes

FLOOR_BYTES = 4 << 30
"""The least memory the entries may take."""
SHARE_OF_GPU = 4
"""On a GPU, the entries may take 1/SHARE_OF_GPU of its memory where that is more than `FLOOR_BYTES`, shared by the
judging workers of one evaluator (`kbx.evaluation.orchestrator.trusted_pool`)."""


Key = tuple[str, int, int, str, bool]
"""(task version, seed, seed shift, workload params as JSON, whether the truth is asked for)."""
Entry = tuple[list[Any], list[Any] | None]
"""The reference outputs and their bases (None unless judged against the float64 truth)."""


def entry_bytes(entry: Entry) -> int:
    """The memory one entry holds: its outputs and their bases."""
    outputs, bases = entry
    return tensor_bytes(*outputs) + sum(b.nbytes() for b in bases or [])


def budget(device: str) -> int:
    """The bytes the entries of one trusted worker may take on `device`."""
    if device != "cuda":
        return FLOOR_BYTES
    import os

    import torch

    judges = max(1, int(os.environ.get(JUDGES_VARIABLE) or 1))
    total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    return max(FLOOR_BYTES, total // (SHARE_OF_GPU * judges))


class ReferenceCache:
    """Reference entries within a budget, evicted as the module says."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.entries: OrderedDict[Key, Entry] = OrderedDict()
        self.bytes = 0
        self._budget = 0
        """Set at the first entry kept, so that building the cache touches no device."""

    def get(self, key: Key) -> Entry | None:
        entry = self.entries.get(key)
        if entry is not None:
            self.entries.move_to_end(key)
        return entry

    def keep(self, key: Key, entry: Entry) -> None:
        """Keep `entry` if it fits once other tasks' entries are gone (always, when the cache is empty)."""
        size = entry_bytes(entry)
        self._budget = self._budget or budget(self.device)
        if self.bytes + size > self._budget:  # the list of other tasks' entries only when one must go
            for old in [k for k in self.entries if k[0] != key[0]]:
                if self.bytes + size <= self._budget:
                    break
                self.bytes -= entry_bytes(self.entries.pop(old))
        if self.bytes + size <= self._budget or not self.entries:
            self.entries[key] = entry
            self.bytes += size

    def clear(self) -> None:
        self.entries.clear()
        self.bytes = 0
