"""pass@k: the unbiased estimator agrees with its combinatorial definition."""

from __future__ import annotations

from math import comb

import pytest

from kbx.generate.metrics import pass_at_k, pass_at_k_by_task, pass_at_k_summary


@pytest.mark.parametrize("n", [1, 2, 5, 10, 20])
def test_pass_at_k_is_one_minus_the_chance_that_k_draws_all_fail(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k))


def test_pass_at_k_edges():
    assert pass_at_k(5, 1, 1) == pytest.approx(0.2)
    assert pass_at_k(10, 0, 10) == 0.0 and pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(200, 3, 100) == pytest.approx(1 - comb(197, 100) / comb(200, 100))


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)])
def test_pass_at_k_refuses_impossible_counts(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_pass_at_k_by_task_from_rows():
    rows = [{"task": "relu", "status": s} for s in ("PASSED", "MISMATCH", "PASSED", "REJECTED_STATIC")]
    rows += [{"task": "add", "status": "PASSED"}]
    assert pass_at_k_by_task(rows, 1) == {"add": 1.0, "relu": 0.5}
    assert pass_at_k_by_task(rows, 2) == {"relu": pytest.approx(1 - 1 / 6)}


def test_pass_at_k_summary_averages_over_tasks_for_the_ks_the_samples_allow():
    rows = [{"task": t, "status": s} for t in ("relu", "add") for s in ("PASSED", "MISMATCH", "MISMATCH")]
    assert pass_at_k_summary(rows, 3) == {"pass@1": pytest.approx(1 / 3, abs=1e-4), "pass@3": 1.0}
