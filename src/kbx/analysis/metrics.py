"""The aggregate metrics of a method over a task set (KernelBenchX's, DESIGN §1): small pure functions.

Each takes the task outcomes of one method, one per task of the task set (missing tasks are failed outcomes, see
`kbx.analysis.data`), and returns a share or a mean; None where the metric has nothing to average (no correct timed
kernel). Speedups are absent on the CPU (interpreter runs are never timed), so speed metrics are None there.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbx.analysis.data import TaskOutcome
from kbx.ranking import pass_at_k
from kbx.timing import stats

SPEEDUP_FLOOR = 1e-3
"""Speedups below this count as this in geometric means, so one broken timing cannot drag the mean to zero."""

FAST_P_SWEEP = (0.0, 0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0)
"""The thresholds of fast_p curves; fast_0 is the share of correct kernels that were timed."""


def call_rate(outcomes: Sequence[TaskOutcome]) -> float:
    """Share of tasks whose candidate ran and reached the correctness stage (`call_ok`)."""
    return _share(outcomes, lambda o: o.call_ok)


def correctness_rate(outcomes: Sequence[TaskOutcome]) -> float:
    """Share of tasks whose candidate is correct (`exe_ok`)."""
    return _share(outcomes, lambda o: o.exe_ok)


def fast_p(outcomes: Sequence[TaskOutcome], p: float, baseline: str = "eager") -> float:
    """Share of tasks whose candidate is correct and more than `p` times as fast as the baseline.

    Args:
        outcomes: one per task of the task set.
        p: the speedup threshold (fast_1: faster than the baseline).
        baseline: `eager` or `compile`.
    """
    return _share(outcomes, lambda o: o.exe_ok and (o.speedup(baseline) or 0.0) > p)


def mean_pass_at_k(outcomes: Sequence[TaskOutcome], k: int) -> float | None:
    """pass@k averaged over the task set; a task with fewer than k samples (missing ones too) counts as 0.

    None when no task has k samples: the run was not made for that k.
    """
    if not outcomes or all(o.samples < k for o in outcomes):
        return None
    return sum(pass_at_k(o.samples, o.correct, k) if o.samples >= k else 0.0 for o in outcomes) / len(outcomes)


def geomean_speedup(outcomes: Sequence[TaskOutcome], baseline: str = "eager") -> float | None:
    """Geometric mean of the speedups of correct, timed candidates (floored at `SPEEDUP_FLOOR`)."""
    return geometric_mean(_correct_speedups(outcomes, baseline))


def competitive(outcomes: Sequence[TaskOutcome]) -> list[TaskOutcome]:
    """The outcomes of tasks whose timed baseline is a competitive implementation: every geometric mean of speedups
    is also shown over these alone, so that one task timed against a slow library routine (named in the task,
    `TaskOutcome.uncompetitive`) cannot carry it (`kbx.analysis.workloads`)."""
    return [o for o in outcomes if not o.uncompetitive]


def geometric_mean(values: Sequence[float], floor: float = SPEEDUP_FLOOR) -> float | None:
    """Geometric mean of `values`, each raised to at least `floor` (`kbx.timing.stats.geometric_mean`); None for
    no values."""
    return stats.geometric_mean(values, floor=floor) if values else None


def slower_than_eager(outcomes: Sequence[TaskOutcome]) -> float | None:
    """Share of correct, timed candidates slower than eager PyTorch (speedup below 1)."""
    speeds = _correct_speedups(outcomes, "eager")
    return None if not speeds else sum(s < 1.0 for s in speeds) / len(speeds)


def mean_sol_fraction(outcomes: Sequence[TaskOutcome]) -> float | None:
    """Mean speed-of-light fraction (T_SOL / T_candidate) of correct, timed candidates."""
    fractions = [o.sol_fraction for o in outcomes if o.exe_ok and o.sol_fraction is not None]
    return None if not fractions else sum(fractions) / len(fractions)


def timed(outcomes: Sequence[TaskOutcome], baseline: str = "eager") -> bool:
    """Whether any candidate was timed against the baseline: fast_p of a run that never was is unknown, not 0."""
    return any(o.speedup(baseline) is not None for o in outcomes)


def _correct_speedups(outcomes: Sequence[TaskOutcome], baseline: str) -> list[float]:
    return [s for o in outcomes if o.exe_ok and (s := o.speedup(baseline)) is not None]


def _share(outcomes: Sequence[TaskOutcome], hit) -> float:  # noqa: ANN001 - a predicate on one outcome
    return 0.0 if not outcomes else sum(1 for o in outcomes if hit(o)) / len(outcomes)
