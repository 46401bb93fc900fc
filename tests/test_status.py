"""The one status enum and its derived flags (DESIGN §5): call_ok = reached the correctness stage, exe_ok = PASSED."""

from __future__ import annotations

from kbx.status import Status

BEFORE_CORRECTNESS = {"REJECTED_STATIC", "COMPILE_ERROR", "RUNTIME_ERROR", "TIMEOUT", "CRASHED", "OUT_OF_MEMORY"}


def test_the_statuses_are_the_designs():
    assert [s.value for s in Status] == [
        "REJECTED_STATIC", "COMPILE_ERROR", "RUNTIME_ERROR", "TIMEOUT", "CRASHED", "OUT_OF_MEMORY", "WRONG_SHAPE",
        "WRONG_DTYPE", "NONFINITE", "MISMATCH", "INPUT_MUTATED", "REJECTED_RUNTIME", "PASSED"]


def test_call_ok_is_having_reached_the_correctness_stage():
    for status in Status:
        assert status.call_ok == (status.value not in BEFORE_CORRECTNESS), status


def test_exe_ok_is_passed_only():
    assert [s for s in Status if s.exe_ok] == [Status.PASSED]


def test_a_status_is_its_string():
    assert Status("MISMATCH") is Status.MISMATCH and Status.MISMATCH == "MISMATCH"
