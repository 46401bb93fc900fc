"""Timed evaluations admitted to a GPU by the memory their bench workloads need, before any of it is allocated.

Eight timed evaluations at a time on one H200 (2026-11-28, docs/performance.md, session 18) ran short of memory as
soon as the suite reached tasks with large benches: activations over 805 M float32 elements hold 6.4 GB of inputs
and outputs each, several times over (the candidate's input sets, the trusted workers' copies, the float64 truth).
Each such evaluation then ran again alone (`short_of_memory`), which waits for every other evaluation on the GPU to
end: 355 s of first attempts and the drains behind them, out of 540 s.

So an evaluation whose part runs bench workloads first holds `PEAK_FACTOR` times the largest bench workload's
inputs and outputs (`kbx.evaluation.trusted.footprint`) out of `SHARE` of the GPU's memory, and waits while the
evaluations already admitted hold too much for it to fit. One that needs more than the whole budget is admitted
when nothing else holds any. Later requests that fit may go ahead of a waiting one for `patience_s` (60 s), then
queue behind it, so that a large one is not starved by a stream of small ones. Memory that the estimate misses is
still caught by the run alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

PEAK_FACTOR = 4
"""An evaluation's peak over its bench workload's inputs and outputs: the candidate's input sets (3) and outputs,
the performance stage's sets for the baselines, and the judge's float64 copies and truth, not all at once."""
ADMISSION = "memory_wait"
"""The phase that holds the seconds an evaluation waited to be admitted."""
SHARE = 0.8
"""The share of the GPU's memory the admitted estimates may add up to: the rest is the processes' CUDA contexts,
the trusted workers' cached references and whatever the estimates miss."""


class MemoryBudget:
    """Bytes of one GPU's memory held by the evaluations admitted to it; `hold` waits until a request fits."""

    def __init__(self, total_bytes: int, patience_s: float = 60.0) -> None:
        self.total = int(total_bytes * SHARE)
        self.held = 0
        self.patience_s = patience_s
        self._condition = threading.Condition()
        self._waiting: list[tuple[object, float]] = []
        """Requests waiting, oldest first: (a token, since when)."""

    @contextmanager
    def hold(self, nbytes: int) -> Iterator[float]:
        """Hold `nbytes` (0: nothing to wait for) for the block; yields the seconds spent waiting."""
        began = time.monotonic()
        with self._condition:
            entry = (object(), began)
            self._waiting.append(entry)
            try:
                while not self._admits(entry, nbytes):
                    self._condition.wait(timeout=min(1.0, self.patience_s))
            finally:
                self._waiting.remove(entry)
                self._condition.notify_all()
            self.held += nbytes
        try:
            yield time.monotonic() - began
        finally:
            with self._condition:
                self.held -= nbytes
                self._condition.notify_all()

    def _admits(self, entry: tuple[object, float], nbytes: int) -> bool:
        """Whether a request fits now and its turn has come: the oldest waiting, or any while the oldest has waited
        less than `patience_s` (called with the lock held)."""
        if nbytes and self.held and self.held + nbytes > self.total:
            return False
        oldest, since = self._waiting[0]
        return not nbytes or oldest is entry[0] or time.monotonic() - since < self.patience_s


def evaluation_bytes(footprint: dict[str, int], workloads: tuple[str, ...]) -> int:
    """What one evaluation holds: `PEAK_FACTOR` times the largest of its bench `workloads`' footprints (bytes by
    workload name); 0 when none is known."""
    return PEAK_FACTOR * max((footprint.get(name, 0) for name in workloads), default=0)


_BUDGETS: dict[str | None, MemoryBudget] = {}
_GUARD = threading.Lock()


def memory_budget(gpu: str | None, total_bytes: int) -> MemoryBudget:
    """The budget of one GPU (keyed as `gpu_gate.gpu_gate`), made on first use: every evaluator of this process on
    that GPU shares it."""
    with _GUARD:
        return _BUDGETS.setdefault(gpu, MemoryBudget(total_bytes))
