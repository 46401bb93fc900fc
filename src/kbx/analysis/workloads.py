"""What a task's one geometric mean hides: its worst bench workload, and whether its baseline is competitive.

A task's speedup is the geometric mean over its bench slots (workload x dtype), so a kernel 4x faster on one slot
and 0.5x on another shows as 1.41x; the worst slot says where it loses. A task whose timed baseline is not a
competitive implementation (named in the task, `TASK["uncompetitive_baseline"]`, e.g. torch.linalg.qr on thousands
of small matrices, 1000x) can carry a suite's geometric mean on its own, so every geometric mean of speedups is
shown with and without those tasks. Both facts come from the stored row (`performance.workloads`,
`performance.baseline.uncompetitive`): analysis reads only the store. A row timed before tasks could name their
baseline uncompetitive carries no such note and counts as competitive.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

BASELINES = ("eager", "compile")


@dataclass(frozen=True)
class WorkloadSpeedup:
    """One bench slot's speedup against one baseline."""

    slot: str
    """`workload/dtype`, e.g. `bench_3d/bfloat16`."""
    speedup: float

    def format(self) -> str:
        """`0.93x bench_3d/bfloat16`."""
        return f"{self.speedup:.2f}x {self.slot}"


def worst_workload(row: Mapping[str, Any], baseline: str) -> WorkloadSpeedup | None:
    """The bench slot of a stored row with the lowest speedup against `baseline` (`eager` or `compile`); None when
    the row was not timed or no slot has a speedup against it. Ties go to the first slot."""
    if baseline not in BASELINES:
        raise ValueError(f"no baseline {baseline!r}: eager or compile")
    slots = ((row.get("performance") or {}).get("workloads")) or []
    timed = [WorkloadSpeedup(f"{w.get('workload')}/{w.get('dtype')}", float(s)) for w in slots
             if (s := w.get(f"speedup_{baseline}")) is not None]
    return min(timed, key=lambda w: w.speedup, default=None)


def uncompetitive_note(row: Mapping[str, Any]) -> str:
    """Why the row's task names its timed baseline not competitive, as the performance stage recorded it; empty
    when it is competitive or the row was not timed."""
    baseline = (row.get("performance") or {}).get("baseline") or {}
    return str(baseline.get("uncompetitive") or "")
