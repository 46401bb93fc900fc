"""What changed between two runs, task by task: status flips and speedup changes."""

from __future__ import annotations

from dataclasses import dataclass

from kbx.analysis.data import MISSING, MethodRun, task_set

SPEED_CHANGE = 0.05
"""A speedup that moved by less than this fraction is reported as unchanged (timing noise)."""


@dataclass(frozen=True)
class TaskChange:
    """One task in run A and in run B."""

    task: str
    category: str
    status_a: str
    status_b: str
    speedup_a: float | None
    speedup_b: float | None

    @property
    def flip(self) -> str:
        """`fixed` (wrong in A, correct in B), `broken` (the reverse), `added` / `dropped` (the task is missing from
        A / from B: a run over other tasks proves nothing about it), `changed` (another status), or ``."""
        if MISSING in (self.status_a, self.status_b) and self.status_a != self.status_b:
            return "added" if self.status_a == MISSING else "dropped"
        if (self.status_a == "PASSED") != (self.status_b == "PASSED"):
            return "fixed" if self.status_b == "PASSED" else "broken"
        return "changed" if self.status_a != self.status_b else ""

    @property
    def speed_ratio(self) -> float | None:
        """Speedup in B / speedup in A, when both were timed."""
        if self.speedup_a and self.speedup_b:
            return self.speedup_b / self.speedup_a
        return None

    @property
    def changed(self) -> bool:
        ratio = self.speed_ratio
        return bool(self.flip) or (ratio is not None and abs(ratio - 1.0) >= SPEED_CHANGE)


def compare(a: MethodRun, b: MethodRun) -> list[TaskChange]:
    """Every task of either run, in A and B (a task one run lacks has status `MISSING`), sorted by task."""
    tasks = task_set([a, b])
    return [
        TaskChange(oa.task, oa.category, oa.status, ob.status, oa.speedup_eager, ob.speedup_eager)
        for oa, ob in zip(a.outcomes(tasks), b.outcomes(tasks))
    ]
