"""Feedback messages from evaluation rows, the choice of the best attempt, and replies that are not code."""

from __future__ import annotations

import pytest

from kbx.generate.feedback import feedback, trim
from kbx.generate.methods import better, candidate_name, reply_candidate
from tests.generate import replies

MISMATCH = {
    "status": "MISMATCH", "message": "check_tail/float16: 3 of 4097 elements differ", "error": "",
    "worker_output": "", "provenance": {"iteration": 0},
    "cases": [
        {"workload": "smoke", "role": "smoke", "dtype": "float16", "status": "PASSED", "message": "", "outputs": []},
        {"workload": "check_tail", "role": "check", "dtype": "float16", "status": "MISMATCH", "message": "...",
         "mutated_inputs": [],
         "outputs": [{"status": "MISMATCH", "mismatches": 3, "total": 4097, "max_abs_error": 0.5,
                      "max_rel_error": 2.0, "first": [{"index": [4096], "got": 0.0, "expected": 0.5}]}]},
    ],
}


def _passed(iteration, speedup=None, performance=None):
    return {"status": "PASSED", "message": "", "speedup_eager": speedup, "speedup_compile": None,
            "sol_fraction": None, "performance": performance, "provenance": {"iteration": iteration},
            "candidate": f"relu#s0.i{iteration}", "candidate_hash": str(iteration)}


def test_a_mismatch_is_fed_back_with_its_report():
    text = feedback(MISMATCH, 0, 1, None)
    assert "attempt 1" in text and "**MISMATCH**" in text and "3 of 4097 elements differ" in text
    assert "workload `check_tail` (check), dtype float16" in text
    assert "at (4096,): got 0.0, expected 0.5" in text and "max abs error 0.5" in text


def test_an_error_is_fed_back_trimmed_to_its_last_lines():
    error = "\n".join(f"line {i}" for i in range(100)) + "\nNameError: name 'BLOCK' is not defined"
    row = {"status": "RUNTIME_ERROR", "message": "NameError: name 'BLOCK' is not defined", "error": error,
           "cases": [], "provenance": {"iteration": 2}}
    text = feedback(row, 2, 1, None)
    assert "**RUNTIME_ERROR**" in text and "NameError: name 'BLOCK' is not defined" in text
    assert "line 99" in text and "line 5\n" not in text and "[... earlier lines cut]" in text


def test_trim_caps_characters_too():
    assert len(trim("x" * 10_000, 5, chars=100)) < 130


def test_a_correct_kernel_is_asked_to_go_faster_with_its_timings():
    performance = {"workloads": [{"workload": "bench", "dtype": "float32", "sol_ms": 1.0, "sol_fraction": 0.5,
                                  "median_ms": {"candidate": 2.0, "eager": 2.2, "compile": 1.9}}]}
    row = {**_passed(1, 1.1, performance), "speedup_compile": 0.95, "sol_fraction": 0.5}
    text = feedback(row, 1, 1, _passed(0, 1.2))
    assert "is correct" in text and "faster" in text
    assert "1.10x vs eager" in text and "0.95x vs torch.compile" in text and "50% of the speed of light" in text
    assert "yours 2.000 ms, eager 2.200 ms" in text and "best correct kernel so far is attempt 1 (1.20x" in text


def test_no_timings_on_the_cpu_is_said():
    assert "No timings here" in feedback(_passed(0), 0, 1, None)


def test_the_best_is_the_fastest_correct_and_ties_keep_the_first():
    first, slower, faster = _passed(0, 1.0), _passed(1, 0.9), _passed(2, 1.3)
    assert better(None, MISMATCH) is None
    assert better(first, MISMATCH) is first and better(first, slower) is first and better(first, faster) is faster
    assert better(_passed(0), _passed(1)) == _passed(0), "no timings: the first correct one stays"


@pytest.mark.parametrize(("reply", "says"), [
    (replies.PROSE_ONLY, "no code block"),
    (replies.WRONG_NAME, None),
    (replies.TWO_BLOCKS, None),
])
def test_replies_that_are_not_one_good_block(reply, says, suite):
    candidate, blocks = reply_candidate(reply, suite["relu"], "relu#s0", {"method": "oneshot"})
    if says:
        assert candidate.code is None and says in candidate.problem
    else:
        assert candidate.code is not None
    assert blocks == (2 if reply is replies.TWO_BLOCKS else 0 if reply is replies.PROSE_ONLY else 1)


def test_a_reply_with_two_blocks_is_told_so():
    row = {"status": "REJECTED_STATIC", "message": "kernel: no @triton.jit kernel", "cases": [],
           "provenance": {"iteration": 0}}
    assert "Your reply had 2 code blocks" in feedback(row, 0, 2, None)


def test_candidate_names():
    assert candidate_name(False, "relu", 3, 0) == "relu#s3"
    assert candidate_name(True, "relu", 0, 2) == "relu#s0.i2"
