import threading
import time
from types import SimpleNamespace

import pytest

from kbx.running import schedule


def test_visible_gpus_follow_cuda_visible_devices(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 3")
    assert schedule.visible_gpus() == ["2", "3"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert schedule.visible_gpus() == []


def test_one_evaluator_per_visible_gpu_unless_told_otherwise(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")
    assert schedule.plan_gpus("cuda", None) == ["0", "1", "2"]
    assert schedule.plan_gpus("cuda", 2) == ["0", "1"]
    assert schedule.plan_gpus("cuda", 1) == [None]
    assert schedule.plan_gpus("cpu", None) == [None]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    assert schedule.plan_gpus("auto", None) == [None]


class _FakeEvaluator:
    def __init__(self, name):
        self.name = name


def test_run_all_spreads_one_queue_over_every_evaluator_and_thread():
    evaluators = [_FakeEvaluator("gpu0"), _FakeEvaluator("gpu1")]
    busy, peak, lock = [0], [0], threading.Lock()

    def work(evaluator, job):
        with lock:
            busy[0] += 1
            peak[0] = max(peak[0], busy[0])
        time.sleep(0.02)
        with lock:
            busy[0] -= 1
        return evaluator.name, job

    outcomes = schedule.run_all(evaluators, list(range(20)), work, per_evaluator=2)
    assert sorted(job for _, job in outcomes) == list(range(20))
    assert {name for name, _ in outcomes} == {"gpu0", "gpu1"}
    assert peak[0] == 4


def test_a_harness_error_in_one_job_is_raised():
    def work(evaluator, job):
        if job == 3:
            raise RuntimeError("harness bug")
        return job

    with pytest.raises(RuntimeError, match="harness bug"):
        schedule.run_all([_FakeEvaluator("cpu")], list(range(6)), work, per_evaluator=1)


def test_a_pinned_candidate_worker_sees_only_its_gpu(tmp_path):
    from kbx.evaluation.orchestrator.sandbox import _scrubbed_env

    assert _scrubbed_env(tmp_path, "cuda", "1")["CUDA_VISIBLE_DEVICES"] == "1"
    assert _scrubbed_env(tmp_path, "cpu", None)["CUDA_VISIBLE_DEVICES"] == ""


def test_tasks_never_timed_start_first_then_the_longest():
    pairs = [(SimpleNamespace(name=name), f"{name}.py") for name in ("a", "b", "new1", "c", "new2")]
    order = schedule.longest_first(pairs, {"a": 1.0, "b": 30.0, "c": 5.0, "gone": 99.0})
    assert [task.name for task, _ in order] == ["new1", "new2", "b", "c", "a"]

