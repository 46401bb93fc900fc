"""What both workers share for timing: the settings `time_call` gets, and the rotated input sets (CPU tensors)."""

from __future__ import annotations

import torch

from kbx.evaluation import bench_inputs
from kbx.evaluation.bench_inputs import InputSets, TimingSettings
from kbx.tasks.spec import Workload


def make_inputs(workload, dtype, generator):  # noqa: ANN001, ANN201 - a task's make_inputs
    return {"x": torch.randn(workload.params["n"], generator=generator, dtype=getattr(torch, dtype))}


WORKLOAD = Workload(name="bench", role="bench", params={"n": 1000})


def test_time_call_gets_only_its_own_settings():
    kwargs = TimingSettings(rounds=5, reuse_baselines=False).measure_kwargs()
    assert "rounds" not in kwargs and "reuse_baselines" not in kwargs
    assert kwargs["budget_s"] == TimingSettings().budget_s


def test_sets_follow_their_seeds_and_are_kept_until_the_slot_changes():
    sets = InputSets(make_inputs, "cpu")
    first = sets.get(WORKLOAD, "float32", [1, 2, 3])
    assert len(first) == 3 and sets.seeds == [1, 2, 3]
    assert sets.get(WORKLOAD, "float32", [1, 2, 3]) is first
    assert torch.equal(first[0]["x"], InputSets(make_inputs, "cpu").get(WORKLOAD, "float32", [1, 9])[0]["x"])
    assert not torch.equal(first[0]["x"], first[1]["x"])
    other = sets.get(WORKLOAD, "float64", [1, 2, 3])
    assert other is not first and other[0]["x"].dtype == torch.float64


def test_forget_draws_the_sets_again():
    sets = InputSets(make_inputs, "cpu")
    first = sets.get(WORKLOAD, "float32", [1, 2])
    first[0]["x"].mul_(2)  # values changed in place, as the refresh does
    sets.forget()
    again = sets.get(WORKLOAD, "float32", [1, 2])
    assert again is not first and not torch.equal(again[0]["x"], first[0]["x"])


def test_at_least_two_sets_however_tight_the_memory_budget(monkeypatch):
    monkeypatch.setattr(bench_inputs, "SET_BYTES_BUDGET", 1)
    assert len(InputSets(make_inputs, "cpu").get(WORKLOAD, "float32", [1, 2, 3])) == 2


def test_as_many_sets_as_seeds_up_to_the_cap():
    twelve = InputSets(make_inputs, "cpu").get(WORKLOAD, "float32", list(range(12)))
    assert len(twelve) == 12
    many = InputSets(make_inputs, "cpu").get(WORKLOAD, "float32", list(range(bench_inputs.MAX_SETS + 4)))
    assert len(many) == bench_inputs.MAX_SETS
