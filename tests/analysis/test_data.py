"""Stored runs loaded for analysis: records and labels."""

from kbx.analysis.data import load_runs
from kbx.store.db import Store


def _runs(store_path, *ids):
    with Store(store_path) as store:
        return load_runs(store, list(ids))


def test_runs_sharing_a_method_are_labelled_by_gpu(store_path):
    a100, a200, b = _runs(store_path, "run-a-h100", "run-a-h200", "run-b")
    assert a100.label == "oneshot:model-a @ NVIDIA H100 80GB HBM3" and a200.label == "oneshot:model-a @ NVIDIA H200"
    assert b.label == "oneshot:model-b"
