"""The performance stage's protocol, driven with a fake trusted worker and fake worker events (no GPU)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.orchestrator.performance import HIDDEN_WORK_MS, PerformanceStage
from kbx.evaluation.orchestrator.timed_slots import plan_slots
from kbx.evaluation.protocol import Timed

PEAKS = {"bandwidth": 3e12, "flops": {"float16": 7e14, "float32": 5e13}}


class FakeTrusted:
    def __init__(self, baseline_ms: float = 2.0, flops: int = 0, nbytes: int = 3 * 10**6) -> None:
        self.calls: list[str] = []
        self.baseline_ms = baseline_ms
        self.work = {"flops": flops, "bytes": nbytes}

    def request(self, kind: str, payload: dict) -> dict:
        self.calls.append(kind if kind != "baseline" else f"baseline:{payload['kind']}")
        if kind == "peaks":
            return PEAKS
        if kind == "clocks":
            return {"sm_mhz": 1980}
        if kind == "work":
            return self.work
        if kind == "prepare":
            return [self.work for _ in payload["slots"]]
        if kind == "release":
            return None
        return _measurement([self.baseline_ms] * 25)


def _measurement(samples: list[float], host: list[float] | None = None) -> dict:
    host = [s + 0.015 for s in samples] if host is None else host
    return {"samples_ms": samples, "host_ms": host, "summary": {"median": samples[0]}, "converged": True}


@pytest.fixture
def stage_for(suite, tmp_path):
    def make(trusted: FakeTrusted, judge=lambda case, path: None, rounds: int = 3, ready=lambda: True):
        gate = GpuGate()
        stage = PerformanceStage(
            suite["relu"], 1234, trusted.request, threading.Lock(), gate, judge, tmp_path,
            TimingSettings(rounds=rounds), ready,
        )
        return stage, gate

    return make


def timed(tmp_path: Path, command: dict, samples: list[float], host: list[float] | None = None) -> dict:
    """The worker's report of a timed step: with the re-checked output only when the command asked for one."""
    (tmp_path / f"m{command['slot']}.json").write_text(json.dumps(_measurement(samples, host)))
    event = {"event": "timed", "slot": command["slot"], "measurement": f"m{command['slot']}.json"}
    if command["recheck_seed"] is not None:
        (tmp_path / f"o{command['slot']}.pt").write_bytes(b"")
        event["file"] = f"o{command['slot']}.pt"
    return event


def as_event(raw: dict) -> Timed:
    """A `timed` report as the orchestrator reads it off the channel."""
    return Timed(**{k: v for k, v in raw.items() if k != "event"})


def drive(stage: PerformanceStage, tmp_path: Path, candidate_ms: float, host_ms: float | None = None) -> list[dict]:
    commands = []
    reply = stage.on_cases_done()
    while reply != "stop":
        command = json.loads(reply)
        commands.append(command)
        host = None if host_ms is None else [host_ms] * 25
        reply = stage.on_timed(as_event(timed(tmp_path, command, [candidate_ms] * 25, host)))
    return commands


def test_every_slot_alternates_eager_compile_candidate_for_each_round(suite, stage_for, tmp_path):
    trusted = FakeTrusted(baseline_ms=2.0)
    stage, gate = stage_for(trusted)
    commands = drive(stage, tmp_path, candidate_ms=1.0)
    slots = plan_slots(suite["relu"], 1234)
    assert len(commands) == 3 * len(slots)
    per_step = [c for c in trusted.calls if c.startswith("baseline")]
    assert per_step == ["baseline:eager", "baseline:compile"] * len(commands)
    result = stage.result.to_json()
    assert result["complete"] and result["violation"] == ""
    assert result["speedup_eager"] == pytest.approx(2.0)
    assert result["speedup_compile"] == pytest.approx(2.0)
    assert result["sol_fraction"] == pytest.approx(3e6 / 3e12 / 1e-3)
    assert not gate.exclusive


def test_a_wrong_output_while_timed_is_rejected(stage_for, tmp_path):
    stage, gate = stage_for(FakeTrusted(), judge=lambda case, path: "MISMATCH: 12 of 100 elements differ")
    drive(stage, tmp_path, candidate_ms=1.0)
    assert stage.result.violation.startswith("runtime.timing_recheck")
    assert "12 of 100" in stage.result.violation
    assert not gate.exclusive


def test_faster_than_light_is_rejected(stage_for, tmp_path):
    # 3 MB at 3 TB/s takes at least 1 us; 0.1 us is not a measurement of that work.
    stage, _ = stage_for(FakeTrusted())
    commands = drive(stage, tmp_path, candidate_ms=1e-4)
    assert len(commands) == 1
    assert stage.result.violation.startswith("runtime.faster_than_light")


def test_just_under_the_speed_of_light_is_not_rejected(stage_for, tmp_path):
    stage, _ = stage_for(FakeTrusted())
    drive(stage, tmp_path, candidate_ms=0.95e-3)
    assert stage.result.violation == ""


def test_work_hidden_from_the_timing_events_is_rejected(stage_for, tmp_path):
    # Side-stream work: 0.02 ms between the events, 1.5 ms until the device-wide synchronize returned.
    stage, gate = stage_for(FakeTrusted())
    commands = drive(stage, tmp_path, candidate_ms=0.02, host_ms=1.5)
    assert len(commands) == 1
    assert stage.result.violation.startswith("runtime.hidden_work")
    assert "1.500 ms on the host" in stage.result.violation
    assert not gate.exclusive


def test_launch_overhead_on_the_host_is_not_hidden_work(stage_for, tmp_path):
    stage, _ = stage_for(FakeTrusted())
    drive(stage, tmp_path, candidate_ms=0.004, host_ms=0.004 + HIDDEN_WORK_MS * 0.9)
    assert stage.result.violation == ""


def test_a_forged_timing_report_stops_the_stage(stage_for, tmp_path):
    stage, gate = stage_for(FakeTrusted())
    command = json.loads(stage.on_cases_done())
    forged = timed(tmp_path, command, [1.0] * 25) | {"slot": command["slot"] + 5}
    assert stage.on_timed(as_event(forged)) == "stop"
    assert stage.result.violation.startswith("runtime.forged_channel")
    assert not gate.exclusive


def test_no_timing_for_a_candidate_that_has_not_passed(stage_for, tmp_path):
    trusted = FakeTrusted()
    stage, gate = stage_for(trusted, ready=lambda: False)
    assert stage.on_cases_done() == "stop"
    assert trusted.calls == [] and not gate.exclusive


def test_close_releases_the_gpu_after_a_worker_died_mid_stage(stage_for, tmp_path):
    stage, gate = stage_for(FakeTrusted())
    stage.on_cases_done()
    assert gate.exclusive
    stage.close()
    assert not gate.exclusive
    assert not stage.result.complete and stage.result.speedup("eager") is None


def test_an_unreadable_measurement_is_a_forgery(stage_for, tmp_path):
    stage, _ = stage_for(FakeTrusted())
    command = json.loads(stage.on_cases_done())
    event = timed(tmp_path, command, [1.0] * 25)
    (tmp_path / event["measurement"]).write_text('{"samples_ms": [-1]}')
    assert stage.on_timed(as_event(event)) == "stop"
    assert "forged_channel" in stage.result.violation


def test_one_secretly_drawn_round_per_slot_is_rechecked(suite, stage_for, tmp_path):
    judged: list[dict] = []
    stage, _ = stage_for(FakeTrusted(), judge=lambda case, path: judged.append(case))
    commands = drive(stage, tmp_path, candidate_ms=1.0)
    slots = plan_slots(suite["relu"], 1234)
    rechecked = [c for c in commands if c["recheck_seed"] is not None]
    assert len(rechecked) == len(slots) == len(judged)
    assert {(c["workload"], c["dtype"]) for c in rechecked} == {(s.workload.name, s.dtype) for s in slots}
    assert [c["seed"] for c in judged] == [c["recheck_seed"] for c in rechecked]
    assert stage.result.violation == "" and stage.result.complete


def test_the_rechecked_round_depends_on_the_secret_seed(suite, tmp_path):
    def rounds_for(secret: int) -> list[int]:
        stage = PerformanceStage(suite["relu"], secret, FakeTrusted().request, threading.Lock(), GpuGate(),
                                 lambda case, path: None, tmp_path, TimingSettings(rounds=3))
        commands = drive(stage, tmp_path, candidate_ms=1.0)
        return [i % 3 for i, c in enumerate(commands) if c["recheck_seed"] is not None]

    drawn = {tuple(rounds_for(secret)) for secret in range(12)}
    assert len(drawn) > 1
    assert all(r in (0, 1, 2) for rounds in drawn for r in rounds)


@pytest.mark.parametrize("wrong", ["missing", "unasked"])
def test_a_report_that_does_not_match_the_recheck_asked_for_is_forged(stage_for, tmp_path, wrong):
    stage, gate = stage_for(FakeTrusted())
    reply = stage.on_cases_done()
    while True:
        command = json.loads(reply)
        event = timed(tmp_path, command, [1.0] * 25)
        asked = command["recheck_seed"] is not None
        if wrong == "missing" and asked:
            del event["file"]
            break
        if wrong == "unasked" and not asked:
            (tmp_path / "o.pt").write_bytes(b"")
            event["file"] = "o.pt"
            break
        reply = stage.on_timed(as_event(event))
        assert reply != "stop"
    assert stage.on_timed(as_event(event)) == "stop"
    assert stage.result.violation.startswith("runtime.forged_channel")
    assert not (tmp_path / "o.pt").exists()
    assert not gate.exclusive


def test_prepare_counts_the_work_before_the_stage_so_the_stage_only_measures(suite, stage_for, tmp_path):
    trusted = FakeTrusted(baseline_ms=2.0)
    stage, gate = stage_for(trusted)
    stage.prepare()
    assert trusted.calls == ["prepare"] and not gate.exclusive
    drive(stage, tmp_path, candidate_ms=1.0)
    assert "work" not in trusted.calls and trusted.calls.count("prepare") == 1
    assert stage.result.to_json()["sol_fraction"] == pytest.approx(3e6 / 3e12 / 1e-3)


def test_nothing_is_prepared_for_a_candidate_that_has_not_passed(stage_for):
    trusted = FakeTrusted()
    stage, _ = stage_for(trusted, ready=lambda: False)
    stage.prepare()
    assert trusted.calls == []


def test_the_stage_says_where_its_time_went(stage_for, tmp_path):
    stage, _ = stage_for(FakeTrusted())
    stage.prepare()
    drive(stage, tmp_path, candidate_ms=1.0)
    spent = stage.result.to_json()["spent_s"]
    assert {"prepare", "peaks", "baseline", "clocks", "release", "candidate", "recheck"} <= set(spent)
    assert all(seconds >= 0 for seconds in spent.values())


def test_a_compiled_baseline_that_computes_something_else_is_not_timed(suite, stage_for, tmp_path):
    class Differs(FakeTrusted):
        def request(self, kind, payload):
            if kind == "prepare":
                self.calls.append(kind)
                return [{**self.work, **({"compile_differs": "MISMATCH: 9 of 9 elements"} if i == 0 else {})}
                        for i, _ in enumerate(payload["slots"])]
            return super().request(kind, payload)

    trusted = Differs(baseline_ms=2.0)
    stage, _ = stage_for(trusted)
    stage.prepare()
    commands = drive(stage, tmp_path, candidate_ms=1.0)
    slots = plan_slots(suite["relu"], 1234)
    assert trusted.calls.count("baseline:compile") == 3 * (len(slots) - 1)
    assert trusted.calls.count("baseline:eager") == len(commands)
    first = stage.result.to_json()["workloads"][0]
    assert first["speedup_compile"] is None and "differ from the reference" in first["errors"]["compile"]
    assert first["speedup_eager"] == pytest.approx(2.0)
    assert stage.result.speedup("compile") is None and stage.result.speedup("eager") == pytest.approx(2.0)


def test_a_tasks_baseline_that_differs_from_the_reference_is_not_timed_on_either_side(stage_for, tmp_path):
    class Differs(FakeTrusted):
        def request(self, kind, payload):
            if kind == "prepare":
                self.calls.append(kind)
                return [{**self.work, "eager_differs": "MISMATCH: 3 of 9", "compile_error": "InductorError: no"}
                        for _ in payload["slots"]]
            return super().request(kind, payload)

    trusted = Differs(baseline_ms=2.0)
    stage, _ = stage_for(trusted)
    stage.prepare()
    drive(stage, tmp_path, candidate_ms=1.0)
    assert "baseline:eager" not in trusted.calls and "baseline:compile" not in trusted.calls
    errors = stage.result.to_json()["workloads"][0]["errors"]
    assert errors["eager"] == "eager: not timed: its outputs differ from the reference's (MISMATCH: 3 of 9)"
    assert errors["compile"] == "compile: not timed: InductorError: no"
    assert stage.result.speedup("eager") is None and stage.result.speedup("compile") is None


def test_the_stage_records_what_it_timed_as_the_baselines(suite, stage_for, tmp_path):
    stage, _ = stage_for(FakeTrusted())
    drive(stage, tmp_path, candidate_ms=1.0)
    assert stage.result.to_json()["baseline"] == {"eager": "reference", "compile": "torch.compile(reference)",
                                                  "tf32": False, "uncompetitive": ""}


def test_a_stage_closed_while_it_waits_for_the_gpu_gives_it_straight_back(stage_for):
    """The worker died (a candidate's thread called os._exit, say) while the orchestrator waited for the GPU on its
    behalf: when the wait ends, the GPU must not stay held by a stage nobody will finish."""
    trusted = FakeTrusted()
    stage, gate = stage_for(trusted)
    gate.acquire_exclusive()  # another candidate's stage
    replies: list[str] = []
    waiter = threading.Thread(target=lambda: replies.append(stage.on_cases_done()))
    waiter.start()
    while not gate._exclusive_waiting:
        threading.Event().wait(0.01)
    stage.close()
    gate.release_exclusive()
    waiter.join(5)
    assert replies == ["stop"] and not gate.exclusive and trusted.calls == []
    gate.acquire_shared()  # the GPU is free for the next candidate
    gate.release_shared()
