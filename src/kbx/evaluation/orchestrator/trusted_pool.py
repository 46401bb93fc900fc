"""The trusted workers of one evaluator (`kbx.evaluation.orchestrator.pipeline.Evaluator`): up to `judges` that
judge candidates' cases, and one that serves the performance stages.

One trusted worker judging for eight candidate workers at once was the bottleneck of a timed suite on one H200
(2026-11-27, docs/performance.md, session 17): it judged every case, compiled every baseline and timed it, one request
at a time, while the GPU sat idle between stages. Here an evaluation takes the judging worker with the fewest
evaluations in hand (a second one is started only when every one is busy), and keeps it for all its cases: a twin's
outputs, kept for the case compared with it, stay in that process. The stages' worker compiles one candidate's
baselines while another's cases are judged. No case is judged while a stage holds the GPU, whoever judges it
(`Conversation` holds the GPU's gate shared until its last case is judged).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from kbx.errors import KbxError
from kbx.evaluation.orchestrator.trusted_client import TrustedWorker
from kbx.evaluation.protocol import TrustedRequest

JUDGES = {"cuda": 2, "cpu": 1}
"""Judging workers per evaluator at most. On a GPU, two; on the CPU the judge competes with the candidates for the
cores, so one."""


@dataclass
class Served:
    """One trusted worker and the lock its requests are made under (one at a time)."""

    worker: TrustedWorker
    lock: threading.Lock = field(default_factory=threading.Lock)
    busy: int = 0
    """Evaluations that hold it to judge their cases."""

    def request(self, kind: TrustedRequest, payload: dict[str, Any]) -> Any:
        with self.lock:
            return self.worker.request(kind, payload)


class TrustedPool:
    """The judging workers, grown on demand up to `judges`, and the stages' worker, started at the first stage."""

    def __init__(self, start: Callable[[], TrustedWorker], judges: int) -> None:
        """`start`: a new trusted worker (of the evaluator's device and GPU); one is started here, so that a device
        that cannot be used fails at once."""
        self._start, self.judges = start, max(1, judges)
        self.first = Served(start())
        self._serving = [self.first]
        self._stages: Served | None = None
        self._lock = threading.Lock()

    @contextmanager
    def judging(self) -> Iterator[Served]:
        """The judging worker of one evaluation, held until it ends."""
        with self._lock:
            served = min(self._serving, key=lambda s: s.busy)
            if served.busy and len(self._serving) < self.judges:
                served = Served(self._start())
                self._serving.append(served)
            served.busy += 1
        try:
            yield served
        finally:
            with self._lock:
                served.busy -= 1

    def stages(self) -> Served:
        """The performance stages' worker, started at the first."""
        with self._lock:
            if self._stages is None:
                self._stages = Served(self._start())
            return self._stages

    def forget_everywhere(self) -> None:
        """Every started worker drops its cached references, kept outputs and input sets and gives its cached GPU
        memory back: before an evaluation that ran short of memory runs with the GPU to itself, what the harness's
        own processes keep is no reason to hold the shortage against it (2026-11-28: a 2^31-element bench ran out
        of memory with nothing else running, beside the judges' caches)."""
        for served in [*self._serving, *([self._stages] if self._stages else [])]:
            try:
                served.request("release", {"everything": True})
            except (KbxError, RuntimeError):  # a worker that cannot answer frees nothing; the run alone says the rest
                pass

    def workers(self) -> int:
        """Trusted workers started so far (judging and timing)."""
        return len(self._serving) + (self._stages is not None)

    def close(self) -> None:
        for served in [*self._serving, *([self._stages] if self._stages else [])]:
            served.worker.close()
