"""Quick autotuning in correctness cases: the benchmarker Triton's autotuner gets is swapped for one that times a
few calls, and swapped back for bench cases. The driver and CUDA events are stand-ins here (the CPU has neither);
tests/gpu/test_cuda_share_gpu.py runs it on a GPU."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
import triton

from kbx.evaluation.candidate.tuning import QUICK_CALLS, Tuning


class FakeEvent:
    """A CUDA event whose elapsed times come from a list, in order."""

    times: list[float] = []

    def __init__(self, enable_timing: bool) -> None:
        assert enable_timing

    def record(self) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, end: FakeEvent) -> float:
        return FakeEvent.times.pop(0)


@pytest.fixture
def driver(monkeypatch):
    own_calls = []

    def own_bench(fn, quantiles=None, **settings):
        own_calls.append((quantiles, settings))
        return 42.0

    active = SimpleNamespace(get_benchmarker=lambda: own_bench)
    monkeypatch.setattr(triton.runtime, "driver", SimpleNamespace(active=active))
    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    return active, own_calls


def test_quick_tuning_times_a_few_calls_after_one_to_compile(driver):
    active, own_calls = driver
    tuning = Tuning()
    calls = []
    FakeEvent.times = [3.0, 1.0, 2.0]
    assert active.get_benchmarker()(lambda: calls.append(1)) == 2.0  # the median
    assert len(calls) == QUICK_CALLS + 1 and own_calls == []
    FakeEvent.times = [3.0, 1.0, 2.0]
    assert tuning._bench(lambda: None, quantiles=[0.5, 0.2, 0.8]) == [2.0, 2.0, 2.0]


def test_bench_cases_get_tritons_own_benchmarker(driver):
    active, own_calls = driver
    tuning = Tuning()
    tuning.quick = False
    assert active.get_benchmarker()(lambda: None, quantiles=[0.5], rep=100) == 42.0
    assert own_calls == [([0.5], {"rep": 100})]
