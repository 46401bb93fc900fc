"""Runtime guards, called directly (the exploit suite drives them through the worker)."""

from __future__ import annotations

import threading
import time

import pytest
import torch

from kbx.evaluation.candidate.guards import Guards


@pytest.fixture
def guards():
    g = Guards("cpu", watched=[])
    g.before_call()
    return g


def launched(guards: Guards, *kernels: str) -> Guards:
    guards.launches.launches.extend(kernels)
    return guards


def rule(violation) -> str | None:
    return None if violation is None else violation.rule


def test_an_honest_call_passes(guards):
    x = torch.ones(4)
    assert launched(guards, "candidate._kernel").after_call(torch.zeros(4), {"input": x}) is None


def test_a_call_without_a_kernel_launch_is_caught(guards):
    assert rule(guards.after_call(torch.zeros(4), {"input": torch.ones(4)})) == "no_kernel_launch"


def test_a_kernel_defined_elsewhere_is_caught(guards):
    launched(guards, "candidate._kernel", "torch._inductor.generated.triton_poi_fused_0")
    violation = guards.after_call(torch.zeros(4), {"input": torch.ones(4)})
    assert rule(violation) == "foreign_kernel"
    assert "triton_poi_fused_0" in violation.message()


@pytest.mark.parametrize(
    ("make_output", "expected"),
    [
        (lambda x: x, "output_aliases_input"),
        (lambda x: x.view(2, 2), "output_aliases_input"),
        (lambda x: x[1:], "output_aliases_input"),
        (lambda x: torch.zeros(4).to_sparse(), "output_layout"),
        (lambda x: torch.empty(4, device="meta"), "output_device"),
        (lambda x: torch.nn.Parameter(torch.zeros(4)), "tensor_subclass"),
        (lambda x: (lambda b: (b[:2], b[2:]))(torch.zeros(4)), "output_aliases_output"),
    ],
)
def test_outputs_must_be_plain_dense_tensors_of_their_own(guards, make_output, expected):
    x = torch.ones(4)
    assert rule(launched(guards, "candidate.k").after_call(make_output(x), {"input": x})) == expected


def test_an_output_kept_from_an_earlier_call_is_caught(guards):
    cache = torch.zeros(4)
    assert launched(guards, "candidate.k").after_call(cache, {"input": torch.ones(4)}) is None
    guards.before_call()
    assert rule(launched(guards, "candidate.k").after_call(cache, {"input": torch.ones(4)})) == "output_reused"


def test_a_fresh_output_each_call_is_fine_even_at_a_reused_address(guards):
    for _ in range(3):
        guards.before_call()
        assert launched(guards, "candidate.k").after_call(torch.zeros(4), {"input": torch.ones(4)}) is None


def test_a_replaced_torch_function_is_caught(guards, monkeypatch):
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    violation = launched(guards, "candidate.k").after_call(torch.zeros(4), {"input": torch.ones(4)})
    assert rule(violation) == "patched"
    assert "torch.allclose" in violation.message()


def test_a_replaced_timer_is_caught_after_import(guards, monkeypatch):
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    assert rule(guards.after_import()) == "patched"


def test_a_thread_left_running_is_caught(guards):
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        assert rule(guards.after_import()) == "thread_started"
    finally:
        stop.set()
        worker.join()
    assert guards.after_import() is None


def test_the_tasks_own_code_need_launch_no_kernel_of_its_own():
    """Under `Policy.REFERENCE_CODE` the job spec says `own_kernels` False: no launch, or another's, passes; the
    other checks hold."""
    guards = Guards("cpu", watched=[], own_kernels=False)
    guards.before_call()
    x = torch.ones(4)
    assert guards.after_call(torch.zeros(4), {"input": x}) is None
    assert launched(guards, "torch._inductor.generated.k").after_call(torch.zeros(4), {"input": x}) is None
    assert rule(guards.after_call(x, {"input": x})) == "output_aliases_input"
    assert guards.after_timing(3, torch.zeros(4), {"input": x}, []) is None
