"""Workload presets: data a task names instead of repeating it."""

from __future__ import annotations

from kbx.tasks.presets import PRESETS, workload_list


def test_a_preset_comes_back_as_a_fresh_copy():
    first = workload_list("elementwise")
    assert first == PRESETS["elementwise"]
    first[0]["params"]["shape"].append(7)
    assert workload_list("elementwise")[0]["params"]["shape"] == [1000], "a task's edit must not leak to others"


def test_an_unknown_preset_is_none():
    assert workload_list("elementwsie") is None


def test_every_preset_has_every_role_and_unique_names():
    for name, workloads in PRESETS.items():
        assert {w["role"] for w in workloads} == {"smoke", "check", "bench"}, name
        assert len({w["name"] for w in workloads}) == len(workloads), name
