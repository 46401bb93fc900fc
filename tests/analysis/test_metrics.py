import math

import pytest

from kbx.analysis import metrics
from kbx.analysis.data import load_runs, task_set
from kbx.store.db import Store


def _outcomes(store_path, run_id, tasks=()):
    with Store(store_path) as store:
        runs = load_runs(store, ["run-a-h100", "run-b", "run-c", "run-d"])
    by_id = {r.info.run_id: r for r in runs}
    return by_id[run_id].outcomes(task_set(runs, tasks))


def test_the_task_set_is_the_union_of_the_runs_and_a_missing_task_fails(store_path):
    a = _outcomes(store_path, "run-a-h100")
    assert [o.task for o in a] == ["gelu", "matmul", "relu", "sum"]
    matmul = a[1]
    assert matmul.status == "MISSING" and not matmul.call_ok and matmul.samples == 0


def test_call_rate_and_correctness_count_over_the_task_set(store_path):
    a = _outcomes(store_path, "run-a-h100")
    assert metrics.call_rate(a) == pytest.approx(3 / 4)  # relu, gelu, sum's MISMATCH reached correctness
    assert metrics.correctness_rate(a) == pytest.approx(2 / 4)


def test_fast_p_against_eager_and_compile_matches_the_hand_count(store_path):
    a = _outcomes(store_path, "run-a-h100")  # correct: relu 2.0x (compile 1.5x), gelu 0.8x (compile 0.6x)
    assert metrics.fast_p(a, 1.0, "eager") == pytest.approx(1 / 4)
    assert metrics.fast_p(a, 0.5, "eager") == pytest.approx(2 / 4)
    assert metrics.fast_p(a, 2.0, "eager") == 0.0  # strictly faster than p
    assert metrics.fast_p(a, 1.0, "compile") == pytest.approx(1 / 4)
    assert metrics.fast_p(a, 0.7, "compile") == pytest.approx(1 / 4)


def test_an_explicit_task_set_changes_the_denominator(store_path):
    a = _outcomes(store_path, "run-a-h100", tasks=["relu", "gelu"])
    assert metrics.fast_p(a, 1.0) == pytest.approx(1 / 2)
    assert metrics.correctness_rate(a) == 1.0


def test_geomean_and_slower_than_eager_use_correct_timed_kernels_only(store_path):
    a = _outcomes(store_path, "run-a-h100")
    assert metrics.geomean_speedup(a) == pytest.approx(math.sqrt(2.0 * 0.8))
    assert metrics.slower_than_eager(a) == pytest.approx(1 / 2)
    assert metrics.mean_sol_fraction(a) == pytest.approx((0.5 + 0.2) / 2)


def test_speed_metrics_are_absent_for_an_untimed_run(store_path):
    c = _outcomes(store_path, "run-c")
    assert metrics.geomean_speedup(c) is None and metrics.slower_than_eager(c) is None
    assert metrics.fast_p(c, 0.0) == 0.0


def test_the_geometric_mean_floors_tiny_values():
    assert metrics.geometric_mean([1e-9, 1.0]) == pytest.approx(math.sqrt(metrics.SPEEDUP_FLOOR))
    assert metrics.geometric_mean([]) is None


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (3, 2, 1, 2 / 3), (3, 2, 2, 1.0), (3, 1, 2, 1 - 1 / 3), (3, 0, 1, 0.0), (10, 3, 5, 1 - math.comb(7, 5) / 252),
])
def test_pass_at_k_equals_the_binomial_formula(n, c, k, expected):
    assert metrics.pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_is_stable_where_the_binomials_overflow_floats():
    value = metrics.pass_at_k(2000, 3, 100)
    exact = 1 - math.comb(1997, 100) / math.comb(2000, 100)  # integers: exact
    assert value == pytest.approx(exact, rel=1e-9)


def test_pass_at_k_refuses_impossible_counts():
    with pytest.raises(ValueError):
        metrics.pass_at_k(3, 4, 1)


def test_mean_pass_at_k_over_the_sampled_run(store_path):
    c = _outcomes(store_path, "run-c")  # relu 2/3, gelu 0/3, sum 3/3, matmul 1/3
    assert metrics.mean_pass_at_k(c, 1) == pytest.approx((2 / 3 + 0 + 1 + 1 / 3) / 4)
    assert metrics.mean_pass_at_k(c, 2) == pytest.approx((1 + 0 + 1 + 2 / 3) / 4)
    assert metrics.mean_pass_at_k(c, 5) is None
