"""Shared and exclusive use of one GPU by the evaluations of one process (DESIGN §6: "under a per-GPU lock").

Correctness work of several candidates may share a GPU: they only need the device, not its undivided attention.
A performance stage needs the GPU to itself: a kernel of another candidate running beside a timed call slows it
by an amount nobody can know. So, when a run times candidates, each evaluation holds the gate *shared* while the
trusted worker and its candidate worker run its correctness cases, and *exclusive* for its performance stage.

Exclusive requests come first: once one waits, no new shared holder enters, so a stage waits only for the cases
already running, never for a stream of later ones. Holders never wait for the exclusive side while holding the
shared side (an evaluation lets go of its shared hold before it asks for the exclusive one), so there is no
upgrade deadlock.
"""

from __future__ import annotations

import threading
import time


class GpuGate:
    """A shared/exclusive lock, exclusive side first; `acquire_*` return the seconds spent waiting."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._shared = 0
        self._exclusive = False
        self._exclusive_waiting = 0

    @property
    def shared_holders(self) -> int:
        return self._shared

    @property
    def exclusive(self) -> bool:
        return self._exclusive

    def acquire_shared(self) -> float:
        start = time.monotonic()
        with self._condition:
            self._condition.wait_for(lambda: not self._exclusive and not self._exclusive_waiting)
            self._shared += 1
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
            self._exclusive_waiting += 1
            try:
                self._condition.wait_for(lambda: not self._exclusive and not self._shared)
            finally:
                self._exclusive_waiting -= 1
            self._exclusive = True
        return time.monotonic() - start

    def release_exclusive(self) -> None:
        with self._condition:
            if not self._exclusive:
                raise RuntimeError("release_exclusive without the exclusive hold")
            self._exclusive = False
            self._condition.notify_all()


_GATES: dict[str | None, GpuGate] = {}
_GATES_GUARD = threading.Lock()


def gpu_gate(gpu: str | None) -> GpuGate:
    """The gate of one GPU (keyed by its `CUDA_VISIBLE_DEVICES` entry, None for "as the environment says"), made on
    first use: every evaluator of this process on that GPU shares it."""
    with _GATES_GUARD:
        return _GATES.setdefault(gpu, GpuGate())
