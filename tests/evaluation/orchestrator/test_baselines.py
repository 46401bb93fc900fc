"""Baselines timed once per run and GPU and reused while the drift canary is steady (no GPU: a fake trusted
worker)."""

from __future__ import annotations

import threading

import pytest

from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.baselines import CANARY, DRIFT_FLOOR, BaselineBook, canary_drift, untimed_baselines
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.orchestrator.performance import PerformanceStage
from kbx.evaluation.orchestrator.timed_slots import plan_slots
from tests.evaluation.orchestrator.test_performance import FakeTrusted, _measurement, drive


class CanaryTrusted(FakeTrusted):
    """Baselines at `baseline_ms`; canaries (the short eager timings) at `canary_ms`, which a test may move."""

    def __init__(self, canary_ms: float = 2.0) -> None:
        super().__init__(baseline_ms=2.0)
        self.canary_ms = canary_ms

    def request(self, kind: str, payload: dict) -> dict:
        if kind == "baseline" and payload["settings"] == CANARY:
            self.calls.append("canary")
            return _measurement([self.canary_ms] * 15)
        return super().request(kind, payload)


def stage(suite, trusted: FakeTrusted, book: BaselineBook | None, tmp_path, seed: int = 1234) -> PerformanceStage:
    made = PerformanceStage(suite["relu"], seed, trusted.request, threading.Lock(), GpuGate(), lambda c, p: None,
                            tmp_path, TimingSettings(rounds=3), book=book)
    made.prepare()
    return made


def timed_sides(calls: list[str]) -> list[str]:
    return [c for c in calls if c.startswith("baseline") or c == "canary" or c == "prepare"]


def test_the_first_candidate_times_the_baselines_and_later_ones_only_the_canary(suite, tmp_path):
    book, trusted = BaselineBook(), CanaryTrusted()
    first = stage(suite, trusted, book, tmp_path)
    drive(first, tmp_path, candidate_ms=1.0)
    steps = 3 * len(plan_slots(suite["relu"], 1234))
    assert timed_sides(trusted.calls) == ["prepare"] + ["baseline:eager", "baseline:compile", "canary"] * steps
    trusted.calls.clear()
    second = stage(suite, trusted, book, tmp_path)
    drive(second, tmp_path, candidate_ms=0.5)
    assert timed_sides(trusted.calls) == ["canary"] * steps, "no prepare, no full baseline"
    result = second.result.to_json()
    assert result["speedup_eager"] == pytest.approx(4.0) and result["speedup_compile"] == pytest.approx(4.0)
    assert {w["baselines"] for w in result["workloads"]} == {"reused"}
    assert all(c["steady"] for w in result["workloads"] for c in w["canaries"])
    assert {w["baselines"] for w in first.result.to_json()["workloads"]} == {"measured"}


def test_a_drifting_canary_times_the_slot_in_full_again_and_the_book_forgets_it(suite, tmp_path):
    book, trusted = BaselineBook(), CanaryTrusted()
    drive(stage(suite, trusted, book, tmp_path), tmp_path, candidate_ms=1.0)
    trusted.canary_ms = 2.0 * (1 + 3 * DRIFT_FLOOR)  # the GPU got slower since the baselines were timed
    trusted.calls.clear()
    second = stage(suite, trusted, book, tmp_path)
    drive(second, tmp_path, candidate_ms=1.0)
    per_slot = ["canary", "baseline:eager", "baseline:compile", "canary", "baseline:eager", "baseline:compile",
                "canary", "baseline:eager", "baseline:compile", "canary"]
    assert timed_sides(trusted.calls) == per_slot * len(plan_slots(suite["relu"], 1234))
    workloads = second.result.to_json()["workloads"]
    assert {w["baselines"] for w in workloads} == {"measured"}  # the first round drifted: nothing reused
    assert all(not w["canaries"][0]["steady"] for w in workloads)
    trusted.calls.clear()
    drive(stage(suite, trusted, book, tmp_path), tmp_path, candidate_ms=1.0)
    assert timed_sides(trusted.calls) == ["canary"] * 3 * len(plan_slots(suite["relu"], 1234)), (
        "the drifted stage recorded the slots again in full, so a third candidate reuses the new level")


def test_a_drift_in_a_later_round_keeps_the_earlier_rounds_reused(suite, tmp_path):
    book = BaselineBook()
    drive(stage(suite, CanaryTrusted(), book, tmp_path), tmp_path, candidate_ms=1.0)

    class SlowerAfterTwoCanaries(CanaryTrusted):
        def request(self, kind, payload):
            if kind == "baseline" and payload["settings"] == CANARY:
                self.canary_ms = 2.0 if self.calls.count("canary") < 2 else 3.0
            return super().request(kind, payload)

    second = stage(suite, SlowerAfterTwoCanaries(), book, tmp_path)
    drive(second, tmp_path, candidate_ms=1.0)
    first_slot, *others = second.result.to_json()["workloads"]
    assert first_slot["baselines"] == "re-timed"
    assert [c["steady"] for c in first_slot["canaries"]] == [True, True, False]
    assert [bool(m.get("reused")) for m in first_slot["rounds"]["eager"]] == [True, True, False]
    assert all(w["baselines"] == "measured" for w in others)


def test_without_reuse_every_candidate_times_its_baselines(suite, tmp_path):
    book, trusted = BaselineBook(reuse=False), CanaryTrusted()
    for _ in range(2):
        trusted.calls.clear()
        drive(stage(suite, trusted, book, tmp_path), tmp_path, candidate_ms=1.0)
        assert "canary" not in trusted.calls and "baseline:compile" in trusted.calls


def test_another_run_seed_is_not_served_from_the_book(suite, tmp_path):
    book, trusted = BaselineBook(), CanaryTrusted()
    drive(stage(suite, trusted, book, tmp_path, seed=1), tmp_path, candidate_ms=1.0)
    trusted.calls.clear()
    drive(stage(suite, trusted, book, tmp_path, seed=2), tmp_path, candidate_ms=1.0)
    assert "baseline:compile" in trusted.calls, "other timing seeds are other inputs: measured, not reused"


def test_the_canary_is_held_to_its_level_within_both_medians_noise():
    level = [1.0] * 40
    assert canary_drift(level, {"samples_ms": [1.01] * 15}).steady
    assert not canary_drift(level, {"samples_ms": [1.05] * 15}).steady
    noisy = canary_drift(level, {"samples_ms": [0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 0.7, 1.05, 0.95] * 2})
    assert noisy.allowed > DRIFT_FLOOR
    assert canary_drift(level, {"error": "boom"}) is None


def test_prepare_answers_name_the_baselines_that_are_not_timed_and_why():
    assert untimed_baselines({"flops": 1, "bytes": 2}) == {}
    assert untimed_baselines({"eager_error": "RuntimeError: no", "compile_differs": "MISMATCH: 1 of 4"}) == {
        "eager": "eager: not timed: RuntimeError: no",
        "compile": "compile: not timed: its outputs differ from the reference's (MISMATCH: 1 of 4)"}
