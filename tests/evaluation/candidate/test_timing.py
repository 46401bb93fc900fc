"""The candidate worker's side of timing and handing outputs over: what runs on the CPU (refilling inputs in
place, saving outputs for the trusted worker); the timed slot itself is GPU-only (tests/gpu)."""

from __future__ import annotations

import contextlib

import pytest
import torch

from kbx.evaluation.candidate.timing import Handover, Timer, refill, traced


def test_refill_writes_new_values_into_the_same_tensors():
    x = torch.zeros(4)
    version, pointer = x._version, x.data_ptr()
    target = {"x": x, "alpha": 1.0}
    out = refill(target, {"x": torch.arange(4.0), "alpha": 2.0})
    assert out is target and out["x"] is x and x.data_ptr() == pointer
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and out["alpha"] == 2.0
    assert x._version == version  # written through .data: the call looks like the last one


def test_refill_replaces_what_cannot_be_written_in_place():
    expanded = torch.zeros(1).expand(4)  # four elements over one: a copy into it fails
    fresh = torch.arange(4.0)
    out = refill({"x": expanded}, {"x": fresh})
    assert out["x"] is fresh


def test_refill_keeps_a_tensor_of_another_shape():
    x = torch.zeros(3)
    out = refill({"x": x}, {"x": torch.ones(4)})
    assert out["x"] is x and x.tolist() == [0.0, 0.0, 0.0]


def test_without_a_tracer_tracing_is_nothing():
    assert isinstance(traced(None, {}), contextlib.nullcontext)


class Channel:
    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send_descriptors(self, fds: list[int]) -> None:
        self.sent.append(fds)


def test_a_cpu_handover_saves_the_outputs_in_the_file_and_shares_nothing(tmp_path):
    channel = Channel()
    out = torch.arange(6.0).view(2, 3)
    Handover(channel, "cpu").save((out, 3), tmp_path / "case.pt")
    saved = torch.load(tmp_path / "case.pt", weights_only=True)["outputs"]
    assert torch.equal(saved[0], out) and saved[1] == {"type": "int"}
    assert channel.sent == [[]]


def test_the_timer_refuses_without_a_gpu(tmp_path):
    timer = Timer("cpu")
    assert not timer.ready
    with pytest.raises(RuntimeError, match="needs a CUDA device"):
        timer.time_slot(None, None, None, None, None, {}, tmp_path, Handover(Channel(), "cpu"))
