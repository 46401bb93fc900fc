"""Baselines timed once per run and GPU, reused while a drift canary says the GPU has not changed (DESIGN §6).

The first candidate of a task to reach the performance stage on a GPU has the eager and compiled references timed
in every round beside it, as always, plus a *canary*: a short timing of the eager reference (`CANARY`) in the
position the canary will take for later candidates, just before the candidate's own measurement. The book keeps
those baseline rounds and the canaries' pooled level, per (task version, bench workload, dtype, timing seeds,
settings). A later candidate of the task on that GPU gets, in each round, only the canary and then its own
measurement: while the canary's median stays within its noise of the recorded level (`canary_drift`), that
round's baselines are the recorded ones; once it does not (clocks moved, another process on the GPU, thermal
state), the slot is timed in full again from that round on, and the book forgets it, so the next candidate
records it afresh.

The candidate's own samples and the canary share every round, so a change of the GPU's state between candidates
shows in the canary before it can move a speedup. The book lives in the orchestrator, one per `Evaluator` (one per
GPU); nothing in it comes from a candidate's process.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.timed_slots import BASELINES, Slot
from kbx.tasks.spec import Task
from kbx.timing.stats import summarize

CANARY: dict[str, Any] = {"warmup_s": 0.02, "budget_s": 0.15, "target_rel_ci": 0.01, "min_samples": 15,
                          "max_samples": 400}
"""`time_call` settings of one canary: a tenth of a full measurement's budget."""
DRIFT_FLOOR = 0.03
"""A canary within 3 % of the recorded level is steady whatever its CI says. Measured on an H200 (2026-11-27,
`benchmarks/aa_in_run.py`, 4 tasks, 84 readings in one run): 75 readings within 2.2 %, then 2.2, 3.0, 3.2, 3.6,
4.6, 4.6, 5.3, 10.9 and 12.0 %; a 2 % floor re-timed slots on readings of 2.1-2.2 %, which the eager reference's
own level moves by between evaluations with nothing changed."""


@dataclass
class KnownBaseline:
    """What the book keeps of one slot, as the first candidate's stage measured it."""

    rounds: dict[str, list[dict[str, Any]]]
    """Baseline side -> its measurement (or {"error": ...}) in each round."""
    canary_ms: list[float]
    """Every sample of the canaries taken beside those rounds: the level later canaries are held to."""
    flops: int
    bytes: int
    untimed: dict[str, str] | None = None
    """Baseline side -> why it is not timed (`PerformanceStage.prepare`), for the sides that are not."""


@dataclass
class BaselineBook:
    """Known baselines of one GPU in one run; shared by every candidate evaluated on it (thread-safe)."""

    reuse: bool = True
    """False: every candidate's baselines are timed in full (the book stays empty)."""
    _known: dict[tuple[Any, ...], KnownBaseline] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, key: tuple[Any, ...]) -> KnownBaseline | None:
        with self._lock:
            return self._known.get(key) if self.reuse else None

    def put(self, key: tuple[Any, ...], known: KnownBaseline) -> None:
        if self.reuse:
            with self._lock:
                self._known[key] = known

    def forget(self, key: tuple[Any, ...]) -> None:
        with self._lock:
            self._known.pop(key, None)


def slot_key(task: Task, slot: Slot, settings: TimingSettings) -> tuple[Any, ...]:
    """What a recorded baseline is valid for: the task's version, the slot's inputs and how it was measured."""
    return (task.version, slot.workload.name, slot.dtype, slot.seeds, json.dumps(settings.to_json(), sort_keys=True))


@dataclass(frozen=True)
class CanaryReading:
    """One canary held against the recorded level."""

    median_ms: float
    level_ms: float
    drift: float
    """|median / level - 1|."""
    allowed: float
    """The noise it may show: max(DRIFT_FLOOR, the relative half-widths of both medians' CIs added)."""

    @property
    def steady(self) -> bool:
        return self.drift <= self.allowed

    def to_json(self) -> dict[str, Any]:
        return {"median_ms": self.median_ms, "level_ms": self.level_ms, "drift": round(self.drift, 5),
                "allowed": round(self.allowed, 5), "steady": self.steady}


def canary_drift(level_samples: list[float], canary: dict[str, Any]) -> CanaryReading | None:
    """How far a canary's median is from the recorded level, against both medians' noise; None when the canary
    has no samples (it failed: the slot is then timed in full)."""
    samples = canary.get("samples_ms") or []
    if not samples or not level_samples:
        return None
    level, now = summarize(level_samples), summarize(samples)
    allowed = max(DRIFT_FLOOR, _half_width(level) + _half_width(now))
    return CanaryReading(now.median, level.median, abs(now.median / level.median - 1.0), allowed)


def _half_width(summary: Any) -> float:
    """Half the CI of the median relative to the median; the whole range where there are too few samples."""
    low, high = summary.ci_low, summary.ci_high
    if low is None or high is None:
        low, high = summary.min, summary.max
    return (high - low) / (2.0 * summary.median)


def reused_round(known: KnownBaseline, round_index: int) -> dict[str, dict[str, Any]]:
    """Each baseline's recorded measurement of one round, marked as reused."""
    return {side: {**known.rounds[side][round_index], "reused": True} for side in BASELINES}


def untimed_baselines(answer: dict[str, Any]) -> dict[str, str]:
    """Baseline side -> why it is not timed, from the trusted worker's `prepare` answer for one slot (its
    `<side>_error` and `<side>_differs` keys)."""
    untimed = {}
    for side in BASELINES:
        if answer.get(f"{side}_error"):
            untimed[side] = f"{side}: not timed: {answer[f'{side}_error']}"
        elif answer.get(f"{side}_differs"):
            untimed[side] = f"{side}: not timed: its outputs differ from the reference's ({answer[f'{side}_differs']})"
    return untimed
