"""The fields an RL loop reads off an Evaluation: correct and speedups, None where nothing was timed."""

from __future__ import annotations

from dataclasses import replace

from kbx.candidates.policy import Policy
from kbx.evaluation.result import CaseResult, Evaluation
from kbx.evaluation.verdict import Comparison
from kbx.kernelbench_rule import RuleVerdict
from kbx.status import Status


def evaluation(status: Status, performance: dict | None) -> Evaluation:
    return Evaluation(task="relu", category="Activation", candidate="c", candidate_hash="h", status=status,
                      message="", stage="call", device="cuda", task_version="v", performance=performance)


def test_a_timed_pass_reads_as_correct_with_its_speedups():
    timed = evaluation(Status.PASSED, {"speedup_eager": 1.25, "speedup_compile": 0.8})
    assert timed.correct and timed.speedup == 1.25 and timed.speedup_compile == 0.8


def test_an_untimed_or_wrong_candidate_has_no_speedup():
    assert evaluation(Status.PASSED, None).speedup is None
    wrong = evaluation(Status.MISMATCH, None)
    assert not wrong.correct and wrong.speedup is None and wrong.speedup_compile is None


def test_the_row_records_the_policy_it_was_judged_under():
    assert evaluation(Status.PASSED, None).to_json()["policy"] == "kernel"
    oracle = replace(evaluation(Status.PASSED, None), policy=Policy.REFERENCE_CODE)
    assert oracle.to_json()["policy"] == "reference-code"


def test_an_evaluation_comes_back_whole_from_its_row():
    comparison = Comparison(Status.PASSED, "", max_abs_error=0.5, total=4)
    cases = (CaseResult(0, "smoke", "float32", False, Status.PASSED, role="smoke"),
             CaseResult(1, "check_tail~p", "float16", True, Status.PASSED, "", (comparison,), ("x",), "check"))
    original = replace(
        evaluation(Status.PASSED, {"speedup_eager": 1.5}), cases=cases, elapsed_s=2.25, worker_output="hi",
        error="", provenance={"method": "reference"}, environment={"gpu": "H200", "confinement": {"on": True}},
        phases={"cases": 1.5}, kernelbench=RuleVerdict("PASSED", 5, 5), policy=Policy.REFERENCE_CODE,
    )
    back = Evaluation.from_json(original.to_json())
    assert back == original and back.to_json() == original.to_json()
