"""One method's work split over several runs, joined with `+` (`kbx report A+B`)."""

from __future__ import annotations

import pytest

from kbx.analysis.data import load_runs, task_set
from kbx.analysis.report import build_report
from kbx.errors import KbxError
from kbx.store.db import Store


def test_joined_runs_are_one_method_and_the_later_run_wins_a_task_both_evaluated(store_path):
    with Store(store_path) as store:
        (joined,) = load_runs(store, ["run-a-h100+run-a-h200"])
    assert joined.label == "oneshot:model-a"
    assert joined.info.run_id == "run-a-h100+run-a-h200" and joined.info.evaluations == 3
    by_task = {r.task: r for r in joined.records}
    assert sorted(by_task) == ["gelu", "relu", "sum"] and len(joined.records) == 3
    assert by_task["relu"].speedup_eager == 2.4  # the H200 run came later
    assert by_task["sum"].status == "MISMATCH"  # only the first run evaluated it
    assert {r.run_id for r in joined.records} == {"run-a-h100+run-a-h200"}
    outcomes = {o.task: o for o in joined.outcomes(task_set([joined]))}
    assert outcomes["relu"].exe_ok and not outcomes["sum"].exe_ok


def test_runs_of_different_methods_cannot_be_joined(store_path):
    with Store(store_path) as store, pytest.raises(KbxError, match="must share method"):
        load_runs(store, ["run-a-h100+run-b"])


def test_a_joined_method_reports_beside_other_methods(store_path):
    with Store(store_path) as store:
        report = build_report(store, ["run-a-h100+run-a-h200", "run-b"], resamples=50)
    assert [run.label for run in report.runs] == ["oneshot:model-a", "oneshot:model-b"]
