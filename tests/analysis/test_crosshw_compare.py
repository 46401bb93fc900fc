import pytest

from kbx.analysis.compare import compare
from kbx.analysis.crosshw import cross_hardware, spread_by_task
from kbx.analysis.data import load_runs
from kbx.store.db import Store


def _runs(store_path, *ids):
    with Store(store_path) as store:
        return load_runs(store, list(ids))


def test_the_same_kernel_on_two_gpus_gives_its_speedup_spread(store_path):
    a100, a200 = _runs(store_path, "run-a-h100", "run-a-h200")
    kernels = cross_hardware([*a100.records, *a200.records])
    assert [(k.task, round(k.spread, 6)) for k in kernels] == [("gelu", 1.0), ("relu", 1.2)]
    assert spread_by_task(kernels) == pytest.approx({"gelu": 1.0, "relu": 1.2})


def test_runs_sharing_a_method_are_labelled_by_gpu(store_path):
    a100, a200, b = _runs(store_path, "run-a-h100", "run-a-h200", "run-b")
    assert a100.label == "oneshot:model-a @ NVIDIA H100 80GB HBM3" and a200.label == "oneshot:model-a @ NVIDIA H200"
    assert b.label == "oneshot:model-b"


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
