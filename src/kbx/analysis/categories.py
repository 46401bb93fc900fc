"""Category-aware tables: per category x per method rates, and the tasks no method solves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kbx.analysis import metrics
from kbx.analysis.bootstrap import Estimate, bootstrap_many
from kbx.analysis.data import TaskOutcome


@dataclass(frozen=True)
class CategoryCell:
    """One method on one category; correctness and fast_1 with bootstrap intervals over the category's tasks."""

    tasks: int
    call_rate: float
    correctness: Estimate
    fast_1: Estimate
    geomean_eager: float | None
    geomean_eager_competitive: float | None = None
    """`geomean_eager` over the category's tasks whose timed baseline is competitive (`metrics.competitive`)."""
    geomean_compile: float | None = None
    geomean_compile_competitive: float | None = None


def category_table(
    outcomes: Mapping[str, Sequence[TaskOutcome]], *, seed: int = 0, resamples: int = 1000,
) -> dict[str, dict[str, CategoryCell]]:
    """category -> method label -> cell, categories sorted, methods in the given order.

    Args:
        outcomes: method label -> its outcomes over the task set.
        seed: bootstrap seed.
        resamples: bootstrap replicates.
    """
    categories = sorted({o.category for group in outcomes.values() for o in group})
    table: dict[str, dict[str, CategoryCell]] = {}
    for category in categories:
        table[category] = {}
        for label, group in outcomes.items():
            part = [o for o in group if o.category == category]
            named = {"correct": metrics.correctness_rate, "fast_1": lambda o: metrics.fast_p(o, 1.0)}
            if not metrics.timed(group):  # the whole run untimed: fast_1 unknown
                named["fast_1"] = lambda o: None
            ci = bootstrap_many(part, named, seed=seed, resamples=resamples)
            fair = metrics.competitive(part)
            table[category][label] = CategoryCell(
                len(part), metrics.call_rate(part), ci["correct"], ci["fast_1"], metrics.geomean_speedup(part),
                metrics.geomean_speedup(fair), metrics.geomean_speedup(part, "compile"),
                metrics.geomean_speedup(fair, "compile"),
            )
    return table


def unsolved(outcomes: Mapping[str, Sequence[TaskOutcome]]) -> list[tuple[str, str]]:
    """(category, task) of the tasks no method got correct, sorted."""
    solved = {o.task for group in outcomes.values() for o in group if o.exe_ok}
    every = {(o.category, o.task) for group in outcomes.values() for o in group}
    return sorted((c, t) for c, t in every if t not in solved)
