"""A worker that did not report every case becomes a status (`call_failure`), as do saved outputs that cannot be
read back or are missing (`unreadable`, `unjudged`); built from events and exit codes alone, no worker runs."""

from __future__ import annotations

import signal

from kbx.evaluation.cases import Case
from kbx.evaluation.orchestrator.failures import call_failure, unjudged, unreadable
from kbx.evaluation.orchestrator.sandbox import Limits, WorkerRun
from kbx.evaluation.protocol import (
    TIMED,
    CaseDone,
    CaseFailed,
    CaseStart,
    Finished,
    Imported,
    ImportFailed,
    Started,
    TorchWork,
)
from kbx.status import Status

CASES = [Case(i, w, "float32", 7, False, "check") for i, w in enumerate(["check_small", "check_tail"])]
LIMITS = Limits(timeout_s=12)


def _done(index: int) -> CaseDone:
    return CaseDone(index, f"case{index}.pt", (), TorchWork({}, 0))


def _failure(*events, code: int | None = 0, timed_out: bool = False, output: str = "") -> tuple[Status, str, str]:
    found = call_failure(WorkerRun(list(events), code, timed_out, output=output), CASES, LIMITS)
    assert found is not None
    return found


def test_a_worker_that_reported_every_case_and_finished_has_no_failure():
    run = WorkerRun([Started(1), Imported(), CaseStart(0), _done(0), CaseStart(1), _done(1), Finished()], 0)
    assert call_failure(run, CASES, LIMITS) is None


def test_finishing_without_every_case_done_is_a_crash():
    status, message, _ = _failure(Started(1), Imported(), CaseStart(0), _done(0), Finished())
    assert status is Status.CRASHED and "exited with code 0 before finishing" in message


def test_a_timeout_names_the_limit_and_the_case_it_was_in():
    status, message, _ = _failure(Started(1), Imported(), CaseStart(1), code=-9, timed_out=True)
    assert status is Status.TIMEOUT
    assert message == f"no result within 12s, during {CASES[1].label()}"


def test_an_import_failure_keeps_its_status_error_and_traceback():
    failed = ImportFailed("REJECTED_RUNTIME", "imported os.system", "Traceback ...")
    assert _failure(Started(1), failed, code=1) == (Status.REJECTED_RUNTIME, "imported os.system (while importing "
                                                    "the candidate)", "Traceback ...")


def test_a_case_failure_names_its_case_and_an_unknown_status_becomes_a_runtime_error():
    failed = CaseFailed(0, "NOT_A_STATUS", "ZeroDivisionError: x", "tb")
    status, message, traceback = _failure(Started(1), Imported(), CaseStart(0), failed, code=1)
    assert status is Status.RUNTIME_ERROR and traceback == "tb"
    assert message == f"ZeroDivisionError: x (during {CASES[0].label()})"


def test_where_a_long_error_happened_ends_its_first_line():
    error = "AcceleratorError: CUDA error: an illegal memory access was encountered\nSearch for `cudaErrorIllegal`"
    failed = CaseFailed(1, "CRASHED", error, "")
    status, message, _ = _failure(Started(1), Imported(), CaseStart(1), failed, code=1)
    assert status is Status.CRASHED
    assert message.splitlines() == [f"AcceleratorError: CUDA error: an illegal memory access was encountered "
                                    f"(during {CASES[1].label()})", "Search for `cudaErrorIllegal`"]


def test_a_failure_while_timed_says_so():
    failed = CaseFailed(TIMED, "OUT_OF_MEMORY", "CUDA out of memory", "")
    status, message, _ = _failure(Started(1), Imported(), CaseStart(0), _done(0), failed, code=1)
    assert status is Status.OUT_OF_MEMORY and message == "CUDA out of memory (while being timed)"


def test_a_kill_by_sigkill_hints_at_memory_and_names_the_case():
    status, message, _ = _failure(Started(1), Imported(), CaseStart(0), code=-signal.SIGKILL)
    assert status is Status.CRASHED
    assert message == f"worker killed by SIGKILL (possibly out of memory), during {CASES[0].label()}"


def test_a_kill_before_the_first_case_says_so():
    status, message, _ = _failure(Started(1), Imported(), code=-signal.SIGSEGV)
    assert status is Status.CRASHED and message == "worker killed by SIGSEGV, before the first case"


def test_the_cpu_time_limit_is_a_timeout():
    status, message, _ = _failure(Started(1), Imported(), CaseStart(0), code=-signal.SIGXCPU)
    assert status is Status.TIMEOUT and message.startswith("CPU-time limit exceeded, during")


def test_a_signal_without_a_name_is_given_by_number():
    status, message, _ = _failure(Started(1), code=-77)
    assert status is Status.CRASHED and message.startswith("worker killed by 77")


def test_a_worker_that_never_started_shows_the_tail_of_its_output():
    status, message, _ = _failure(code=1, output="x" * 500 + "ModuleNotFoundError: torch")
    assert status is Status.CRASHED and message.startswith("worker failed to start (exit code 1): ")
    assert message.endswith("ModuleNotFoundError: torch") and len(message) < 400


def test_unreadable_outputs_name_their_case_and_the_error():
    judged = {0: {"comparisons": []}, 1: {"error": "pickle data was truncated"}}
    status, message, _ = unreadable(CASES, judged)
    assert status is Status.CRASHED
    assert message == f"the saved outputs of {CASES[1].label()} could not be read: pickle data was truncated"
    assert unreadable(CASES, {0: {}, 1: {}}) is None


def test_a_case_reported_done_without_saved_outputs_is_a_crash():
    status, message, _ = unjudged(CASES, {0: {}})
    assert status is Status.CRASHED and CASES[1].label() in message and "saved no output" in message
    assert unjudged(CASES, {0: {}, 1: {}}) is None
