"""Bootstrap confidence intervals over tasks: resample the task set with replacement, recompute the metric.

Tasks are the unit of resampling because they are what a benchmark samples from the space of kernels; the
generator is explicit and seeded, so the same store gives the same intervals on every machine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kbx.analysis.data import TaskOutcome

Metric = Callable[[Sequence[TaskOutcome]], float | None]

RESAMPLES = 1000
LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """A metric's value on the task set and its percentile bootstrap interval."""

    value: float | None
    low: float | None
    high: float | None

    def format(self, digits: int = 2, percent: bool = False) -> str:
        """`0.42 [0.30, 0.55]`, or `42% [30, 55]`; `-` when there is no value."""
        if self.value is None:
            return "-"
        scale, unit = (100.0, "%") if percent else (1.0, "")
        body = f"{self.value * scale:.{0 if percent else digits}f}{unit}"
        if self.low is None or self.high is None:
            return body
        nd = 0 if percent else digits
        return f"{body} [{self.low * scale:.{nd}f}, {self.high * scale:.{nd}f}]"


def bootstrap(
    outcomes: Sequence[TaskOutcome], metric: Metric, *, seed: int = 0, resamples: int = RESAMPLES,
    level: float = LEVEL,
) -> Estimate:
    """The metric on `outcomes` and its percentile interval over `resamples` task resamplings.

    Resamples where the metric is None (no correct timed kernel drawn) are left out of the interval; with fewer
    than two left, the interval is None.

    Args:
        outcomes: one per task of the task set.
        metric: a function of a sequence of outcomes.
        seed: seeds `numpy.random.default_rng`; the same seed gives the same interval.
        resamples: bootstrap replicates.
        level: the interval's coverage.
    """
    return bootstrap_many(outcomes, {"metric": metric}, seed=seed, resamples=resamples, level=level)["metric"]


def bootstrap_many(
    outcomes: Sequence[TaskOutcome], named: Mapping[str, Metric], *, seed: int = 0, resamples: int = RESAMPLES,
    level: float = LEVEL,
) -> dict[str, Estimate]:
    """`bootstrap` of several metrics on the same resamples (drawn once: cheaper, and the intervals agree on which
    tasks each replicate drew)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(outcomes), size=(resamples, len(outcomes))) if outcomes else []
    replicates = [[outcomes[i] for i in idx] for idx in draws]
    tail = (1.0 - level) / 2 * 100
    out = {}
    for name, metric in named.items():
        value = metric(outcomes)
        stats = [] if value is None else [s for sample in replicates if (s := metric(sample)) is not None]
        if len(stats) < 2:
            out[name] = Estimate(value, None, None)
            continue
        low, high = np.percentile(stats, [tail, 100 - tail])
        out[name] = Estimate(value, float(low), float(high))
    return out
