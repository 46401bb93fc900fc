"""Two runs compared task by task: status flips and speed changes."""

import pytest

from kbx.analysis.compare import compare
from kbx.analysis.data import load_runs
from kbx.store.db import Store


def _runs(store_path, *ids):
    with Store(store_path) as store:
        return load_runs(store, list(ids))


def test_compare_reports_status_flips_and_speed_changes(store_path):
    a, b = _runs(store_path, "run-a-h100", "run-b")
    changes = {c.task: c for c in compare(a, b)}
    assert changes["gelu"].flip == "broken" and changes["sum"].flip == "fixed"
    assert changes["matmul"].status_a == "MISSING" and changes["matmul"].flip == "added"  # not a fix: never run in A
    assert changes["relu"].flip == "" and changes["relu"].speed_ratio == pytest.approx(0.6)
    assert all(c.changed for c in changes.values())


def test_compare_of_a_run_with_itself_changes_nothing(store_path):
    (a,) = _runs(store_path, "run-b")
    assert not any(c.changed for c in compare(a, a))
