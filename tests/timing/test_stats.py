import math
import random

import numpy as np
import pytest

from kbx.timing.stats import (
    MIN_CI_SAMPLES,
    Summary,
    geometric_mean,
    iqr,
    median,
    median_ci,
    median_ci_ranks,
    quantile,
    relative_half_width,
    summarize,
)


def _coverage(n: int, low: int) -> float:
    """Exact coverage of [x_(low), x_(n-low+1)]: 1 - 2 P(Binomial(n, 1/2) <= low - 1)."""
    return 1 - 2 * sum(math.comb(n, k) for k in range(low)) / 2**n


def test_quantiles_match_numpy_linear():
    rng = np.random.default_rng(0)
    values = sorted(rng.lognormal(size=37).tolist())
    for p in (0.0, 0.25, 0.5, 0.75, 1.0, 0.1):
        assert quantile(values, p) == pytest.approx(float(np.quantile(values, p)))
    assert median(values) == pytest.approx(float(np.median(values)))
    assert iqr(values) == pytest.approx(float(np.quantile(values, 0.75) - np.quantile(values, 0.25)))


def test_median_of_even_count_averages_the_middle_pair():
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5


def test_ci_ranks_for_n10_match_hand_computation():
    # P(B <= 1) = 11/1024, so [x_(2), x_(9)] covers with 1 - 22/1024 = 97.9 %; P(B <= 2) = 56/1024 is too much.
    assert median_ci_ranks(10) == (2, 9)


def test_ci_ranks_for_n20_match_the_published_table():
    assert median_ci_ranks(20) == (6, 15)


def test_ci_needs_six_samples_at_95_percent():
    assert MIN_CI_SAMPLES == 6
    assert median_ci_ranks(5) is None
    assert median_ci_ranks(6) == (1, 6)


@pytest.mark.parametrize("n", [6, 7, 10, 25, 50, 99, 100, 301, 1000])
def test_ci_ranks_are_the_narrowest_with_nominal_coverage(n):
    low, high = median_ci_ranks(n)
    assert high == n - low + 1
    assert _coverage(n, low) >= 0.95
    assert _coverage(n, low + 1) < 0.95


def test_ci_ranks_for_large_n_follow_the_normal_approximation():
    n = 100_000
    low, _ = median_ci_ranks(n)
    expected = n / 2 - 1.959964 * math.sqrt(n) / 2
    assert abs(low - expected) <= 2


def test_ci_covers_the_true_median_at_about_the_nominal_rate():
    rng = random.Random(1234)
    n, trials = 30, 4000
    true_median = math.exp(0.0)  # lognormal(0, 1)
    hits = 0
    for _ in range(trials):
        low, high = median_ci([rng.lognormvariate(0.0, 1.0) for _ in range(n)])
        hits += low <= true_median <= high
    exact = _coverage(n, median_ci_ranks(n)[0])
    # 4000 trials: the standard error of a rate near 0.96 is about 0.003.
    assert abs(hits / trials - exact) < 0.012
    assert hits / trials > 0.94


def test_summary_fields_and_json_round_trip():
    values = [float(v) for v in range(1, 21)]
    s = summarize(reversed(values))
    assert (s.n, s.min, s.max, s.median) == (20, 1.0, 20.0, 10.5)
    assert (s.ci_low, s.ci_high) == (6.0, 15.0)
    assert s.iqr == pytest.approx(s.q3 - s.q1)
    assert Summary.from_json(s.to_json()) == s


def test_summary_of_few_samples_has_no_ci():
    s = summarize([1.0, 2.0, 3.0])
    assert s.ci_low is None and s.ci_high is None
    assert s.rel_ci_half_width == math.inf


def test_relative_half_width_takes_the_wider_side():
    assert relative_half_width(100.0, 99.0, 103.0) == pytest.approx(0.03)
    assert relative_half_width(0.0, -1.0, 1.0) == math.inf


def test_geometric_mean():
    assert geometric_mean([1.0, 4.0, 16.0]) == pytest.approx(4.0)
    with pytest.raises(ValueError):
        geometric_mean([1.0, 0.0])
    assert geometric_mean([1.0, 0.0], floor=0.01) == pytest.approx(0.1)
    with pytest.raises(ValueError):
        geometric_mean([])
