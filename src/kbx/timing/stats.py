"""Robust summaries of timing samples: median, IQR and a distribution-free confidence interval of the median.

Timing samples are skewed (a long right tail from clock changes and interference) and nothing about their
distribution is known, so the interval comes from order statistics alone: the number of samples below the true
median is Binomial(n, 1/2), whatever the distribution, so [x_(l), x_(n-l+1)] covers the median with probability
1 - 2·P(B <= l-1). The interval is chosen as the narrowest one whose coverage is at least the nominal level.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

MIN_CI_SAMPLES = 6
"""Fewest samples with a 95 % order-statistic interval: 2 / 2**n <= 0.05 needs n >= 6."""


def quantile(sorted_values: Sequence[float], p: float) -> float:
    """The p-quantile of already sorted values, interpolated linearly (numpy's default `linear` method)."""
    n = len(sorted_values)
    if n == 0:
        raise ValueError("quantile of no values")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"quantile level {p} is outside [0, 1]")
    h = (n - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def median(values: Iterable[float]) -> float:
    """The sample median (the mean of the two middle values when n is even)."""
    return quantile(sorted(values), 0.5)


def iqr(values: Iterable[float]) -> float:
    """Interquartile range q3 - q1, with linearly interpolated quartiles."""
    ordered = sorted(values)
    return quantile(ordered, 0.75) - quantile(ordered, 0.25)


@lru_cache(maxsize=4096)
def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int] | None:
    """1-based ranks (l, u) of the order statistics bounding a distribution-free CI of the median.

    The interval [x_(l), x_(u)] with u = n - l + 1 covers the true median with probability 1 - 2·P(B <= l - 1),
    B ~ Binomial(n, 1/2). l is the largest rank whose coverage is still >= `confidence`, so the interval is
    conservative. Returns None when even [x_(1), x_(n)] falls short (n < 6 at 95 %).

    Args:
        n: Number of samples.
        confidence: Nominal coverage, in (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence {confidence} is outside (0, 1)")
    if n < 1:
        return None
    tail = (1.0 - confidence) / 2.0
    # Terms more than 8 standard deviations (sqrt(n) / 2 each) below n/2 add under 1e-15 to the CDF: start
    # there, so the cost grows with sqrt(n) and the timing loop can afford this check after every sample.
    k = max(0, math.floor(n / 2 - 4 * math.sqrt(n)))
    pmf = math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2.0))
    cdf = 0.0
    l_minus_1 = -1  # the largest k with P(B <= k) <= tail
    while k <= n // 2:
        cdf += pmf
        if cdf > tail * (1 + 1e-12):
            break
        l_minus_1 = k
        pmf *= (n - k) / (k + 1)
        k += 1
    if l_minus_1 < 0:
        return None
    low = l_minus_1 + 1
    return low, n - low + 1


def median_ci(values: Iterable[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """Distribution-free CI of the median, or None with too few samples (see `median_ci_ranks`)."""
    ordered = sorted(values)
    ranks = median_ci_ranks(len(ordered), confidence)
    if ranks is None:
        return None
    return ordered[ranks[0] - 1], ordered[ranks[1] - 1]


def relative_half_width(center: float, low: float | None, high: float | None) -> float:
    """The larger distance from `center` to either end of [low, high], relative to `center`.

    "The CI is within ±1 % of the median" means this is <= 0.01. Infinite when there is no interval or the
    center is not positive.
    """
    if low is None or high is None or center <= 0.0:
        return math.inf
    return max(center - low, high - center) / center


def geometric_mean(values: Iterable[float], *, floor: float | None = None) -> float:
    """Geometric mean of positive values (e.g. per-workload speedups).

    Args:
        values: The values; at least one.
        floor: If given, values below it are raised to it first, so one near-zero value cannot dominate;
            without it, a non-positive value is an error.
    """
    logs = []
    for v in values:
        if floor is not None:
            v = max(v, floor)
        if not v > 0.0:
            raise ValueError(f"geometric mean of a non-positive value {v} (pass a floor to clip)")
        logs.append(math.log(v))
    if not logs:
        raise ValueError("geometric mean of no values")
    return math.exp(math.fsum(logs) / len(logs))


@dataclass(frozen=True)
class Summary:
    """Order-statistic summary of one set of timing samples (all times in the samples' unit, here ms)."""

    n: int
    """Number of samples."""
    median: float
    """Sample median."""
    q1: float
    """First quartile (linear interpolation)."""
    q3: float
    """Third quartile (linear interpolation)."""
    ci_low: float | None
    """Lower end of the distribution-free CI of the median; None when n is too small for one."""
    ci_high: float | None
    """Upper end of that CI; None when n is too small."""
    min: float
    """Smallest sample."""
    max: float
    """Largest sample."""
    confidence: float = 0.95
    """Nominal coverage of [ci_low, ci_high]."""

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    @property
    def rel_ci_half_width(self) -> float:
        """max(median - ci_low, ci_high - median) / median; infinite without a CI."""
        return relative_half_width(self.median, self.ci_low, self.ci_high)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Summary:
        return cls(**data)


def summarize_sorted(ordered: Sequence[float], confidence: float = 0.95) -> Summary:
    """`summarize` for values already in ascending order (the timing loop keeps them sorted)."""
    if not ordered:
        raise ValueError("summary of no samples")
    ranks = median_ci_ranks(len(ordered), confidence)
    low, high = (None, None) if ranks is None else (ordered[ranks[0] - 1], ordered[ranks[1] - 1])
    return Summary(
        n=len(ordered),
        median=quantile(ordered, 0.5),
        q1=quantile(ordered, 0.25),
        q3=quantile(ordered, 0.75),
        ci_low=low,
        ci_high=high,
        min=ordered[0],
        max=ordered[-1],
        confidence=confidence,
    )


def summarize(values: Iterable[float], confidence: float = 0.95) -> Summary:
    """Median, quartiles, extremes and the distribution-free CI of the median of some samples."""
    return summarize_sorted(sorted(float(v) for v in values), confidence)
