"""The channel protocol: cases handed out one at a time, and any event out of order taken as forged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.cases import Case
from kbx.evaluation.orchestrator.conversation import Conversation
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.protocol import decode
from tests.conftest import FIXTURES


def on(conversation: Conversation) -> Callable[[dict], str | None]:
    """The conversation's answer to an event given as the worker would write it (a JSON object)."""
    return lambda raw: conversation.on_event(decode(json.dumps(raw)))


def make_cases(n: int) -> list[Case]:
    return [Case(i, "smoke", "float32", 100 + i, False, "smoke") for i in range(n)]


@pytest.fixture
def talk(tmp_path):
    judged: list[int] = []

    def judge(case: Case, path: Path, mutated: list[str]) -> bool:
        judged.append(case.index)
        return True

    conversation = Conversation(make_cases(2), judge, tmp_path, refill_index=1)
    return conversation, judged, tmp_path


QUIET = {"ops": {}, "largest_input": 1000}
"""The tally of a call in which torch did nothing but allocate."""


def done(tmp_path: Path, index: int, torch_work: dict = QUIET, launches: dict | None = None) -> dict:
    (tmp_path / f"case_{index}.pt").write_bytes(b"")
    event = {"event": "case_done", "index": index, "file": f"case_{index}.pt", "mutated": [], "torch_work": torch_work}
    return event if launches is None else {**event, "launches": launches}


def test_cases_are_handed_out_one_at_a_time(talk):
    conversation, judged, tmp_path = talk
    assert on(conversation)({"event": "started", "pid": 1}) is None
    first = json.loads(on(conversation)({"event": "imported"}))
    assert first["cmd"] == "case" and first["index"] == 0 and "refill" not in first
    assert on(conversation)({"event": "case_start", "index": 0}) is None
    second = json.loads(on(conversation)(done(tmp_path, 0)))
    assert second["index"] == 1 and second["refill"] is True
    on(conversation)({"event": "case_start", "index": 1})
    assert on(conversation)(done(tmp_path, 1)) == "stop"
    assert on(conversation)({"event": "finished"}) is None
    assert judged == [0, 1] and conversation.rejected == ""


@pytest.mark.parametrize(
    "events",
    [
        [{"event": "case_done", "index": 0, "file": "case_0.pt", "mutated": []}],  # before being asked
        [{"event": "case_start", "index": 1}],  # a case not asked for
        [{"event": "case_start", "index": 0}, {"event": "case_start", "index": 0}],  # twice
        [{"event": "finished"}],  # finished while a case is outstanding
        [{"event": "unreadable"}],  # no event of the protocol
        [{"event": "case_start", "index": "0"}],  # a field of the wrong type
        [{"event": "case_start", "index": True}],
        [{"event": "timed", "slot": 0}],  # timing nobody asked for
    ],
)
def test_an_event_out_of_protocol_is_forged(talk, events):
    conversation, judged, tmp_path = talk
    on(conversation)({"event": "started", "pid": 1})
    on(conversation)({"event": "imported"})
    replies = [on(conversation)(e) for e in events]
    assert replies[-1] == "stop"
    assert conversation.rejected.startswith("runtime.forged_channel")
    assert judged == []


def test_a_second_report_of_a_judged_case_is_forged(talk):
    conversation, _, tmp_path = talk
    for event in ({"event": "started", "pid": 1}, {"event": "imported"}, {"event": "case_start", "index": 0}):
        on(conversation)(event)
    on(conversation)(done(tmp_path, 0))
    assert on(conversation)(done(tmp_path, 0)) == "stop"
    assert "forged_channel" in conversation.rejected


def test_a_report_without_its_saved_file_is_forged(talk):
    conversation, judged, _ = talk
    for event in ({"event": "started", "pid": 1}, {"event": "imported"}, {"event": "case_start", "index": 0}):
        on(conversation)(event)
    assert on(conversation)({"event": "case_done", "index": 0, "file": "case_0.pt", "mutated": []}) == "stop"
    assert "forged_channel" in conversation.rejected and judged == []


def test_a_report_whose_saved_file_is_a_link_is_forged(talk):
    conversation, judged, tmp_path = talk
    for event in ({"event": "started", "pid": 1}, {"event": "imported"}, {"event": "case_start", "index": 0}):
        on(conversation)(event)
    (tmp_path / "elsewhere.pt").write_bytes(b"")
    (tmp_path / "case_0.pt").symlink_to(tmp_path / "elsewhere.pt")
    event = {"event": "case_done", "index": 0, "file": "case_0.pt", "mutated": [], "torch_work": QUIET}
    assert on(conversation)(event) == "stop"
    assert "forged_channel" in conversation.rejected and judged == []


@pytest.mark.parametrize(
    ("torch_work", "rule"),
    [
        ({"ops": {"aten.mul": 100, "aten.add": 100}, "largest_input": 8000}, ""),  # partials: 200 < 1000
        ({"ops": {"aten.mul": 600, "aten.add": 600}, "largest_input": 8000}, "torch_compute"),  # past 1/8
        ({"ops": {f"aten.op{i}": 50 for i in range(30)}, "largest_input": 8000}, "torch_compute"),  # many small
        (None, "forged_channel"),  # a report without its tally is none the worker wrote
        ({"ops": "lots", "largest_input": 8000}, "forged_channel"),
    ],
)
def test_torchs_work_is_judged_here_from_the_reported_tally(talk, torch_work, rule):
    conversation, judged, tmp_path = talk
    for event in ({"event": "started", "pid": 1}, {"event": "imported"}, {"event": "case_start", "index": 0}):
        on(conversation)(event)
    reply = on(conversation)(done(tmp_path, 0, torch_work))
    assert (reply == "stop") is bool(rule)
    assert conversation.rejected.startswith(f"runtime.{rule}") if rule else conversation.rejected == ""
    assert judged == ([] if rule else [0])


def traced(foreign: dict | None = None, host_bytes: int = 0) -> dict:
    """A launch trace as the worker reports it: own kernels, a dispatched fill, and what the test adds."""
    return {"own": 2, "dispatched": 1, "foreign": foreign or {}, "stray_torch": {}, "stray_torch_ns": 0,
            "kernel_ns": 20_000, "host_bytes": host_bytes, "largest_input_bytes": 4_000_000}


@pytest.mark.parametrize(
    ("launches", "rule"),
    [
        (traced(), ""),
        (traced(host_bytes=8), ""),  # a scalar read back with .item()
        (traced({"sm90_xmma_gemm_f32f32": 1}), "foreign_kernel"),
        (traced(host_bytes=4_000_000), "host_copy"),
        ({"own": 1}, "forged_channel"),
    ],
)
def test_the_launch_trace_is_judged_here(talk, launches, rule):
    conversation, judged, tmp_path = talk
    for event in ({"event": "started", "pid": 1}, {"event": "imported"}, {"event": "case_start", "index": 0}):
        on(conversation)(event)
    reply = on(conversation)(done(tmp_path, 0, QUIET, launches))
    assert (reply == "stop") is bool(rule)
    assert conversation.rejected.startswith(f"runtime.{rule}") if rule else conversation.rejected == ""
    assert judged == ([] if rule else [0])


def test_unwatched_cases_leave_torchs_work_and_the_launch_trace_to_the_policy(tmp_path):
    """`watched=False` (the task's own reference code, or KernelBench's rule): torch doing all the work and a
    foreign kernel are not judged; the outputs still are."""
    judged: list[int] = []
    conversation = Conversation(make_cases(1), lambda case, path, mutated: judged.append(case.index) or True,
                                tmp_path, watched=False)
    for event in ({"event": "started", "pid": 1}, {"event": "imported"}, {"event": "case_start", "index": 0}):
        on(conversation)(event)
    busy = {"ops": {"aten.addmm": 8000}, "largest_input": 8000}
    assert on(conversation)(done(tmp_path, 0, busy, traced({"sm90_xmma_gemm_f32f32": 1}))) == "stop"
    assert conversation.rejected == "" and judged == [0]


def test_the_gpu_is_shared_from_the_first_case_until_the_last_is_judged(tmp_path):
    gate = GpuGate()
    conversation = Conversation(make_cases(2), lambda case, path, mutated: True, tmp_path, gate=gate)
    on(conversation)({"event": "started", "pid": 1})
    assert gate.shared_holders == 0  # process start and import need no GPU time
    on(conversation)({"event": "imported"})
    assert gate.shared_holders == 1
    for index in (0, 1):
        on(conversation)({"event": "case_start", "index": index})
        on(conversation)(done(tmp_path, index))
    assert gate.shared_holders == 0
    conversation.close()
    assert gate.shared_holders == 0 and "gpu_wait" in conversation.phases


def test_the_stage_prepares_while_the_gpu_is_still_shared(tmp_path):
    gate = GpuGate()
    seen: list[int] = []

    class Stage:
        def prepare(self) -> None:
            seen.append(gate.shared_holders)

        def on_cases_done(self) -> str:
            seen.append(gate.shared_holders)
            return "stop"

    conversation = Conversation(make_cases(1), lambda case, path, mutated: True, tmp_path, Stage(), gate=gate)
    for event in ({"event": "started", "pid": 1}, {"event": "imported"}, {"event": "case_start", "index": 0}):
        on(conversation)(event)
    assert on(conversation)(done(tmp_path, 0)) == "stop"
    assert seen == [1, 0]  # prepared while sharing; the stage itself begins after letting go
    assert "prepare" in conversation.phases


def test_a_conversation_closed_while_it_waits_for_the_gpu_gives_it_straight_back(tmp_path):
    import threading

    gate = GpuGate()
    conversation = Conversation(make_cases(1), lambda case, path, mutated: True, tmp_path, gate=gate)
    on(conversation)({"event": "started", "pid": 1})
    gate.acquire_exclusive()  # a performance stage holds the GPU
    waiter = threading.Thread(target=on(conversation), args=({"event": "imported"},))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive()  # waiting for the GPU
    conversation.close()  # the worker ended meanwhile
    gate.release_exclusive()
    waiter.join(5)
    assert not waiter.is_alive() and gate.shared_holders == 0 and not gate.exclusive


@pytest.mark.parametrize("ending", ["failed_case", "worker_error", "forged", "worker_died"])
def test_the_gpu_is_let_go_however_the_cases_end(tmp_path, ending):
    gate = GpuGate()
    conversation = Conversation(make_cases(2), lambda case, path, mutated: ending != "failed_case", tmp_path,
                                gate=gate)
    on(conversation)({"event": "started", "pid": 1})
    on(conversation)({"event": "imported"})
    on(conversation)({"event": "case_start", "index": 0})
    if ending == "failed_case":
        assert on(conversation)(done(tmp_path, 0)) == "stop"
    elif ending == "worker_error":
        failure = {"event": "case_error", "index": 0, "status": "RUNTIME_ERROR", "error": "boom", "traceback": ""}
        on(conversation)(failure)
    elif ending == "forged":
        assert on(conversation)({"event": "case_start", "index": 1}) == "stop"
    assert gate.shared_holders == (1 if ending == "worker_died" else 0)
    conversation.close()
    conversation.close()
    assert gate.shared_holders == 0


@pytest.mark.slow
def test_the_candidate_cannot_read_its_job_spec(cpu_evaluator, suite):
    """This candidate forges every case from the job spec when it finds one, and computes honestly otherwise."""
    path = FIXTURES / "forges_from_job_spec.py"
    evaluation = cpu_evaluator.evaluate(suite["relu"], Candidate(str(path), "relu", path.read_text()))
    assert evaluation.status.value == "PASSED", evaluation.message
