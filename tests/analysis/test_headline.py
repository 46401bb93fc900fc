"""One method's headline: every aggregate with its bootstrap interval, on outcomes built by hand
(`tests.analysis.conftest.outcome`) and on the stored `fair_store`."""

from __future__ import annotations

import math

import pytest

from kbx.analysis import metrics
from kbx.analysis.data import MethodRun, Record, load_runs, task_set
from kbx.analysis.headline import headline
from kbx.store.db import RunInfo, Store
from tests.analysis.conftest import H100, H200, outcome, row

FOUR = [
    outcome("relu", eager=2.0, compile_=1.5, sol=0.5),
    outcome("gelu", eager=0.5, compile_=0.25, sol=0.1),
    outcome("sum", "Reduce", correct=False),
    outcome("max", "Reduce", correct=False, call_ok=False, samples=0),
]
"""Two correct timed kernels (2x and 0.5x eager), one mismatch, one task the run missed."""


def method_run(records: tuple[Record, ...] = (), device: str = "cpu") -> MethodRun:
    info = RunInfo("run-x", 0.0, "oneshot", "m", device, None, "0.1", {}, {}, 1.0, 7, len(records))
    return MethodRun(info, "oneshot:m", records)


def test_every_aggregate_is_the_one_worked_out_by_hand():
    h = headline(method_run(), FOUR, resamples=50)
    assert (h.label, h.run_id, h.tasks) == ("oneshot:m", "run-x", 4)
    assert h.call_rate.value == 0.75 and h.correctness.value == 0.5
    assert h.fast_1_eager.value == 0.25 and h.fast_1_compile.value == 0.25
    assert h.geomean_eager.value == pytest.approx(1.0) and h.geomean_compile.value == pytest.approx(math.sqrt(0.375))
    assert h.slower_than_eager.value == 0.5 and h.sol_fraction.value == pytest.approx(0.3)
    assert h.correctness.low <= 0.5 <= h.correctness.high


def test_the_fast_p_curves_run_over_the_sweep():
    h = headline(method_run(), FOUR, resamples=20)
    assert [p for p, _ in h.fast_p_eager] == list(metrics.FAST_P_SWEEP)
    eager = dict(h.fast_p_eager)
    assert (eager[0.0], eager[1.0], eager[2.0]) == (0.5, 0.25, 0.0)  # fast_p counts speedups above p, not at it
    assert dict(h.fast_p_compile)[1.2] == 0.25


def test_a_run_never_timed_has_unknown_fast_p_not_zero():
    h = headline(method_run(), [outcome("relu"), outcome("sum", "Reduce", correct=False)], resamples=20)
    assert h.correctness.value == 0.5
    assert h.fast_1_eager.value is None and h.fast_1_compile.value is None
    assert h.fast_p_eager == () and h.fast_p_compile == () and h.geomean_eager.value is None


def test_one_sample_a_task_reports_no_pass_at_k():
    h = headline(method_run(), FOUR, resamples=20)
    assert h.pass_at_k == {} and h.pass_curve == ()


def test_pass_at_k_for_the_usual_ks_and_the_largest_sample_count():
    sampled = [outcome("relu", samples=3, passed=1), outcome("gelu", correct=False, samples=2)]
    h = headline(method_run(), sampled, resamples=20)
    assert sorted(h.pass_at_k) == [1, 3]  # 5 and 10: no task has that many samples
    assert h.pass_at_k[1].value == pytest.approx(1 / 6) and h.pass_at_k[3].value == pytest.approx(0.5)
    assert [k for k, _ in h.pass_curve] == [1.0, 2.0, 3.0]
    assert [value for _, value in h.pass_curve] == pytest.approx([1 / 6, 1 / 3, 0.5])


def test_the_device_is_the_gpus_of_the_records_or_the_runs_device():
    records = tuple(Record.from_row("run-x", row("relu", "PASSED", eager=1.0, gpu=gpu)) for gpu in (H200, H100))
    assert headline(method_run(records), FOUR, resamples=10).device == f"{H100}/{H200}"
    assert headline(method_run(device="cuda"), FOUR, resamples=10).device == "cuda"


def test_the_competitive_geomeans_leave_out_tasks_whose_baseline_is_uncompetitive(fair_store):
    with Store(fair_store) as store:
        (run,) = load_runs(store, ["run-f"])
    outcomes = run.outcomes(task_set([run]))
    assert [o.task for o in metrics.competitive(outcomes)] == ["gelu", "matmul", "relu"]
    h = headline(run, outcomes, resamples=200)
    assert h.geomean_eager.value == pytest.approx((1.6 * 0.8 * 100.0) ** (1 / 3))
    assert h.geomean_eager_competitive.value == pytest.approx(math.sqrt(1.6 * 0.8))
    assert h.geomean_compile_competitive.value == pytest.approx(math.sqrt(1.2 * 0.6))
    assert h.geomean_eager_competitive.low <= h.geomean_eager_competitive.value <= h.geomean_eager_competitive.high
    assert h.uncompetitive == ("sum",)
