"""The values of a performance stage: its slots and their timing seeds, and how a task's figures follow from
its slots' measurements."""

from __future__ import annotations

import pytest

from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.timed_slots import Performance, SlotTiming, baseline_description, plan_slots


def test_timing_seeds_come_from_the_secret_seed_and_differ_per_slot(suite):
    one, other = plan_slots(suite["relu"], 1), plan_slots(suite["relu"], 2)
    assert [s.seeds for s in one] != [s.seeds for s in other]
    assert len({seed for s in one for seed in s.seeds}) == 3 * len(one)


def test_a_bench_workload_checked_but_not_timed_gets_no_slot(suite):
    softmax = suite["softmax"]
    assert not softmax.workload("bench_over_2_31").timed
    slots = {s.workload.name for s in plan_slots(softmax, 1)}
    assert slots == {w.name for w in softmax.timed_workloads()} and "bench_over_2_31" not in slots


def test_the_settings_name_how_many_input_sets_each_slot_rotates(suite):
    twelve = plan_slots(suite["relu"], 1, TimingSettings(input_sets=12).input_sets)
    assert {len(s.seeds) for s in twelve} == {12}
    assert [s.seeds[:3] for s in twelve] == [s.seeds for s in plan_slots(suite["relu"], 1)]
    assert "input_sets" not in TimingSettings(input_sets=12).measure_kwargs()  # not an argument of time_call


def _measured(slot, candidate_ms: float, eager_ms: float, compile_ms: float | None) -> SlotTiming:
    timing = SlotTiming(slot)
    timing.rounds["candidate"].append({"samples_ms": [candidate_ms] * 5})
    timing.rounds["eager"].append({"samples_ms": [eager_ms] * 5})
    compiled = {"samples_ms": [compile_ms] * 5} if compile_ms else {"error": "compile: not timed: outputs differ"}
    timing.rounds["compile"].append(compiled)
    return timing


def test_a_tasks_speedup_is_the_geometric_mean_and_absent_unless_every_slot_has_one(suite):
    first, second = plan_slots(suite["gelu"], 7)[:2]
    settings = TimingSettings(rounds=1)
    both = Performance([_measured(first, 1.0, 2.0, 4.0), _measured(second, 1.0, 8.0, 1.0)], settings)
    assert both.speedup("eager") == pytest.approx(4.0)
    assert both.speedup("compile") == pytest.approx(2.0)
    one_untimed = Performance([_measured(first, 1.0, 2.0, 4.0), _measured(second, 1.0, 8.0, None)], settings)
    assert one_untimed.speedup("eager") == pytest.approx(4.0)
    assert one_untimed.speedup("compile") is None
    assert one_untimed.to_json()["workloads"][1]["errors"] == {"compile": "compile: not timed: outputs differ"}


def test_the_baselines_are_described_by_the_task(suite):
    assert baseline_description(suite["relu"]) == {"eager": "reference", "compile": "torch.compile(reference)",
                                                   "tf32": False, "uncompetitive": ""}
    matmul = baseline_description(suite["matmul_tf32"])
    assert (matmul["eager"], matmul["compile"], matmul["tf32"]) == ("baseline", "torch.compile(baseline)", True)
    assert baseline_description(suite["qr"])["uncompetitive"].startswith("torch.linalg.qr on thousands")
