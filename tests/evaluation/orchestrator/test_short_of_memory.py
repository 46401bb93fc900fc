"""An evaluation short of GPU memory beside others, or beside the harness's caches, runs again alone after they are
dropped; alone with nothing to drop, its outcome stands."""

from __future__ import annotations

import threading

import pytest

from kbx.errors import ReferenceFailed
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.orchestrator.short_of_memory import NOTE, PHASE, alone_if_short, left_out_note, short_of_memory
from kbx.evaluation.result import Evaluation
from kbx.status import Status


def outcome(status: Status, message: str = "") -> Evaluation:
    return Evaluation(task="relu", category="Activation", candidate="c", candidate_hash="h", status=status,
                      message=message, stage="call", device="cuda", task_version="v")


def test_what_counts_as_short_of_memory():
    assert short_of_memory(outcome(Status.OUT_OF_MEMORY))
    assert short_of_memory(outcome(Status.CRASHED, "worker killed by SIGKILL (possibly out of memory)"))
    assert not short_of_memory(outcome(Status.CRASHED, "worker killed by SIGSEGV"))
    assert not short_of_memory(outcome(Status.MISMATCH, "out of memory"))  # a wrong answer is a wrong answer


class Company:
    """Another evaluation holding the gate shared while `run` is called for the first time."""

    def __init__(self, gate: GpuGate) -> None:
        self.gate, self.entered, self.leave = gate, threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold)
        self.thread.start()
        self.entered.wait()

    def _hold(self) -> None:
        self.gate.acquire_shared()
        self.entered.set()
        self.leave.wait()
        self.gate.release_shared()


def test_short_beside_another_runs_again_alone_and_the_second_outcome_counts():
    gate = GpuGate()
    company = Company(gate)
    seen: list[tuple[int, bool]] = []

    def run() -> Evaluation:
        seen.append((gate.shared_holders, gate.exclusive))
        if len(seen) == 1:
            company.leave.set()  # the other evaluation ends; the retry must wait for it, then hold the GPU alone
            return outcome(Status.OUT_OF_MEMORY, "CUDA out of memory")
        return outcome(Status.PASSED)

    result = alone_if_short(gate, run)
    company.thread.join()
    assert result.status is Status.PASSED and PHASE in result.phases
    assert result.message == f"{NOTE} (CUDA out of memory)"  # which process ran short, for the reader
    assert seen == [(2, False), (0, True)]
    assert gate.shared_holders == 0 and not gate.exclusive


def test_short_alone_is_the_candidates_own_outcome():
    calls = []
    result = alone_if_short(GpuGate(), lambda: calls.append(1) or outcome(Status.OUT_OF_MEMORY))
    assert result.status is Status.OUT_OF_MEMORY and calls == [1] and PHASE not in result.phases


def test_a_reference_out_of_memory_beside_another_is_judged_alone_and_other_failures_are_raised():
    gate = GpuGate()
    company = Company(gate)
    attempts = []

    def run() -> Evaluation:
        attempts.append(1)
        if len(attempts) == 1:
            company.leave.set()
            raise ReferenceFailed("the trusted worker ran out of memory serving 'check'")
        return outcome(Status.PASSED)

    result = alone_if_short(gate, run)
    assert result.status is Status.PASSED and len(attempts) == 2
    assert result.message == f"{NOTE} (the trusted worker ran out of memory serving 'check')"
    company.thread.join()

    def broken() -> Evaluation:
        raise ReferenceFailed("its reference failed on smoke/float32: RuntimeError: shapes")

    with pytest.raises(ReferenceFailed, match="shapes"):
        alone_if_short(GpuGate(), broken)
    with pytest.raises(ReferenceFailed, match="out of memory"):  # alone: NOT JUDGED, as before
        alone_if_short(GpuGate(), lambda: (_ for _ in ()).throw(ReferenceFailed("ran out of memory")))


def test_short_alone_runs_again_once_the_harness_has_made_room_and_that_outcome_counts():
    gate = GpuGate()
    made: list[bool] = []
    results = iter([outcome(Status.OUT_OF_MEMORY, "CUDA out of memory"), outcome(Status.PASSED)])
    result = alone_if_short(gate, lambda: next(results), lambda: made.append(gate.exclusive))
    assert result.status is Status.PASSED and made == [True]  # room made while holding the GPU alone
    assert result.message == f"{NOTE} (CUDA out of memory)"

    attempts = []

    def unjudged() -> Evaluation:
        attempts.append(1)
        raise ReferenceFailed("the trusted worker ran out of memory serving 'check'")

    with pytest.raises(ReferenceFailed, match="out of memory"):  # short again after the room was made: NOT JUDGED
        alone_if_short(gate, unjudged, lambda: None)
    assert len(attempts) == 2
    passed = []
    alone_if_short(gate, lambda: outcome(Status.PASSED), lambda: passed.append(1))
    assert passed == []  # nothing to make room for


def test_without_a_gate_the_run_happens_once():
    assert alone_if_short(None, lambda: outcome(Status.OUT_OF_MEMORY)).status is Status.OUT_OF_MEMORY


def test_the_workloads_a_gpu_left_out_are_noted_in_the_message():
    gpu = {"memory_bytes": 80 * 2**30}
    assert left_out_note("", (), gpu) == "" and left_out_note("MISMATCH at x", (), gpu) == "MISMATCH at x"
    note = "not run on this GPU (80 GiB): bench_over_2_31, which need more memory"
    assert left_out_note("", ("bench_over_2_31",), gpu) == note
    assert left_out_note("slow", ("bench_over_2_31",), gpu) == f"{note}; slow"
