"""One kernel on several GPUs: its speedup spread, and runs labelled by GPU."""

import pytest

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
