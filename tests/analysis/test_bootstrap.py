from kbx.analysis import metrics
from kbx.analysis.bootstrap import Estimate, bootstrap
from kbx.analysis.data import TaskOutcome


def _outcomes(flags):
    return [TaskOutcome(f"t{i}", "Math", "PASSED" if ok else "MISMATCH", True, ok, 0.5 + i / 3 if ok else None, None,
                        None, 1, int(ok)) for i, ok in enumerate(flags)]


FLAGS = [True, False, True, True, False, False, True, False, True, True]


def test_the_same_seed_gives_the_same_interval():
    a = bootstrap(_outcomes(FLAGS), metrics.correctness_rate, seed=3, resamples=200)
    b = bootstrap(_outcomes(FLAGS), metrics.correctness_rate, seed=3, resamples=200)
    assert a == b


def test_another_seed_gives_another_interval_around_the_same_value():
    a = bootstrap(_outcomes(FLAGS), metrics.geomean_speedup, seed=3, resamples=200)
    b = bootstrap(_outcomes(FLAGS), metrics.geomean_speedup, seed=4, resamples=200)
    assert a.value == b.value
    assert (a.low, a.high) != (b.low, b.high)


def test_the_interval_holds_the_value_and_stays_within_the_metric_range():
    est = bootstrap(_outcomes(FLAGS), metrics.correctness_rate, seed=0)
    assert 0.0 <= est.low <= est.value <= est.high <= 1.0
    assert est.low < est.high


def test_a_metric_with_no_value_has_no_interval():
    est = bootstrap(_outcomes([False] * 4), metrics.geomean_speedup, seed=0)
    assert est == Estimate(None, None, None) and est.format() == "-"


def test_format_shows_percent_and_interval():
    assert Estimate(0.5, 0.25, 0.75).format(percent=True) == "50% [25, 75]"
    assert Estimate(1.234, None, None).format() == "1.23"
