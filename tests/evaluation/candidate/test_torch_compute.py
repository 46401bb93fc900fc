"""The dispatch recorder: torch's work during a call, tallied over every operator and every thread."""

from __future__ import annotations

import _thread
import threading

import pytest
import torch

from kbx.evaluation.candidate.torch_compute import TorchComputeRecorder


@pytest.fixture
def recorder(monkeypatch):
    # The recorder patches thread start-up for its process (the worker's); give the test process its own back.
    monkeypatch.setattr(threading.Thread, "_bootstrap_inner", threading.Thread._bootstrap_inner)
    monkeypatch.setattr(_thread, "start_new_thread", _thread.start_new_thread)
    return TorchComputeRecorder()


def test_allocations_views_and_copies_are_not_work(recorder):
    x = torch.randn(4096)
    with recorder.recording():
        torch.empty_like(x).copy_(x.view(64, 64).t().contiguous().reshape(-1))
    assert dict(recorder.tally({"x": x}).ops) == {}


def test_in_place_views_and_composite_copies_are_not_work(recorder):
    # F.pad's constant border, repeat and narrow_copy are full/cat, expand+contiguous and narrow+clone, which are
    # allowed; squeeze_/t_ change metadata only. An honest causal_conv1d (host F.pad), max_pool2d (F.pad with -inf)
    # and cumsum (y.squeeze_(0)) were REJECTED_RUNTIME for them (2026-11-28).
    x = torch.randn(64, 64)
    with recorder.recording():
        torch.nn.functional.pad(x, (3, 0))
        torch.nn.functional.pad(x, (1, 1, 1, 1), value=float("-inf"))
        x.repeat(2, 1)
        x.narrow_copy(1, 0, 32)
        y = x.clone()
        y.unsqueeze_(0).squeeze_(0).t_()
        y.transpose_(0, 1)
        y.as_strided_((32, 64), (64, 1))
    assert dict(recorder.tally({"x": x}).ops) == {}


def test_copies_not_composed_of_allowed_ops_are_still_counted(recorder):
    x = torch.randn(64, 64)
    with recorder.recording():
        torch.nn.functional.pad(x, (2, 2), mode="reflect")
        x.flip(0)
        torch.diag_embed(x)
    assert set(recorder.tally({"x": x}).ops) == {"aten.reflection_pad1d", "aten.flip", "aten.diag_embed"}


def test_the_identity_is_a_constant_not_work(recorder):
    # An honest matrix_power starting its running product at torch.eye(N) expanded over the batch was
    # REJECTED_RUNTIME (256 elements on a 3 x 16 x 16 smoke, 2026-11-28).
    x = torch.randn(3, 64, 64)
    with recorder.recording():
        torch.eye(64, dtype=x.dtype).expand(3, 64, 64).contiguous()
        torch.eye(64, 32)
    assert dict(recorder.tally({"x": x}).ops) == {}


def test_many_small_operators_add_up(recorder):
    x = torch.randn(4096)
    with recorder.recording():
        for start in range(0, 4096, 128):
            chunk = x[start : start + 128]
            chunk * (chunk > 0)
    work = recorder.tally({"x": x})
    assert work.largest_input == 4096 and sum(work.ops.values()) >= 2 * 4096


def test_work_in_a_joined_thread_is_tallied(recorder):
    x = torch.randn(4096)

    class Worker(threading.Thread):
        def run(self) -> None:
            x * 2

    with recorder.recording():
        thread = Worker()
        thread.start()
        thread.join()
    assert recorder.tally({"x": x}).ops.get("aten.mul", 0) >= 4096


def test_work_in_a_raw_thread_is_tallied(recorder):
    x = torch.randn(4096)
    done = threading.Event()

    def work() -> None:
        x + 1
        done.set()

    with recorder.recording():
        _thread.start_new_thread(work, ())
        assert done.wait(10)
    assert recorder.tally({"x": x}).ops.get("aten.add", 0) >= 4096


def test_threads_started_outside_a_recording_are_not_recorded(recorder):
    x = torch.randn(4096)
    thread = threading.Thread(target=lambda: x * 2)
    thread.start()
    thread.join()
    with recorder.recording():
        pass
    assert dict(recorder.tally({"x": x}).ops) == {}
