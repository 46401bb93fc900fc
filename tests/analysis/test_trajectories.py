import pytest

from kbx.analysis.data import load_runs
from kbx.analysis.trajectories import trajectories
from kbx.store.db import Store


def _records(store_path, run_id):
    with Store(store_path) as store:
        (run,) = load_runs(store, [run_id])
    return run.records


def test_per_iteration_rates_follow_the_chains(store_path):
    t = trajectories(_records(store_path, "run-d"))
    # relu 0/1/1, gelu 1/1/1, sum 1/0, matmul 0/0/0
    assert t.chains == 4
    assert [s.candidates for s in t.iterations] == [4, 4, 3]
    assert [s.correctness for s in t.iterations] == pytest.approx([2 / 4, 2 / 4, 2 / 3])
    assert [s.solved_so_far for s in t.iterations] == pytest.approx([2 / 4, 3 / 4, 3 / 4])
    # correct kernels at iteration i are 1 + i times as fast as eager
    assert t.iterations[1].geomean_eager == pytest.approx(2.0)


def test_rescued_persistent_and_regressed_chains(store_path):
    t = trajectories(_records(store_path, "run-d"))
    assert t.rescued == (("relu", 3.0),)
    assert t.persistent == (("gelu", 3.0),)
    assert t.regressions == (("sum", 0, 1),)


def test_runs_without_iterations_have_no_trajectories(store_path):
    assert trajectories(_records(store_path, "run-b")) is None
