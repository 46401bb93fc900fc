"""Shared and exclusive use of one GPU by the evaluations of one process (DESIGN §6: "under a per-GPU lock").

Correctness work of several candidates may share a GPU: they only need the device, not its undivided attention.
A performance stage needs the GPU to itself: a kernel of another candidate running beside a timed call slows it
by an amount nobody can know. So, when a run times candidates, each evaluation holds the gate *shared* while the
trusted worker and its candidate worker run its correctness cases, and *exclusive* for its performance stage.

While an exclusive request waits for the cases already running, new cases may still start for `patience_s`
(default 60 s): a stage cannot begin before the longest running cases end (a convolution's autotuning can take
minutes), and the GPU would idle meanwhile. Past that, no new shared holder enters, so a stage never waits on an
endless stream of later cases (candidates failing fast, one after the other). Holders never wait for the
exclusive side while holding the shared side (an evaluation lets go of its shared hold before it asks for the
exclusive one), so there is no upgrade deadlock.
"""

from __future__ import annotations

import threading
import time


class GpuGate:
    """A shared/exclusive lock, exclusive side first; `acquire_*` return the seconds spent waiting."""

    def __init__(self, patience_s: float = 60.0) -> None:
        self.patience_s = patience_s
        self._condition = threading.Condition()
        self._shared = 0
        self._admitted = 0
        """Shared holds ever granted: a holder that sees it move while it holds knew company."""
        self._exclusive = False
        self._exclusive_waiting: list[float] = []
        """Since when each pending exclusive request has waited (monotonic seconds)."""

    @property
    def shared_holders(self) -> int:
        return self._shared

    @property
    def admitted(self) -> int:
        return self._admitted

    @property
    def exclusive(self) -> bool:
        return self._exclusive

    def acquire_shared(self) -> float:
        start = time.monotonic()
        with self._condition:
            self._condition.wait_for(lambda: not self._exclusive and not self._impatient())
            self._shared += 1
            self._admitted += 1
        return time.monotonic() - start

    def release_shared(self) -> None:
        with self._condition:
            if self._shared <= 0:
                raise RuntimeError("release_shared without a shared hold")
            self._shared -= 1
            self._condition.notify_all()

    def acquire_exclusive(self) -> float:
        start = time.monotonic()
        with self._condition:
            self._exclusive_waiting.append(start)
            try:
                self._condition.wait_for(lambda: not self._exclusive and not self._shared)
            finally:
                self._exclusive_waiting.remove(start)
            self._exclusive = True
        return time.monotonic() - start

    def _impatient(self) -> bool:
        """Whether an exclusive request has waited `patience_s` or longer (new shared holders then wait)."""
        return bool(self._exclusive_waiting) and time.monotonic() - min(self._exclusive_waiting) >= self.patience_s

    def release_exclusive(self) -> None:
        with self._condition:
            if not self._exclusive:
                raise RuntimeError("release_exclusive without the exclusive hold")
            self._exclusive = False
            self._condition.notify_all()


_GATES: dict[tuple[str, str | None], GpuGate] = {}
_GATES_GUARD = threading.Lock()


def gpu_gate(gpu: str | None) -> GpuGate:
    """The gate of one GPU's time (keyed by its `CUDA_VISIBLE_DEVICES` entry, None for "as the environment says"),
    made on first use: every evaluator of this process on that GPU shares it."""
    return _gate("time", gpu)


def memory_gate(gpu: str | None) -> GpuGate:
    """The gate of one GPU's memory (`kbx.evaluation.orchestrator.short_of_memory`), shared as `gpu_gate` is. Never
    taken while holding `gpu_gate`'s side, so the two cannot deadlock."""
    return _gate("memory", gpu)


def _gate(what: str, gpu: str | None) -> GpuGate:
    with _GATES_GUARD:
        return _GATES.setdefault((what, gpu), GpuGate())
