"""An evaluation's cases judged one by one: what the trusted worker is sent, and each case's result from its
answer."""

from __future__ import annotations

import threading
from dataclasses import replace

from kbx.evaluation.cases import plan_cases, reproducibility_cases
from kbx.evaluation.orchestrator.case_judge import CaseJudge, case_result
from kbx.evaluation.orchestrator.handover import Inbox
from kbx.evaluation.verdict import Comparison
from kbx.status import Status

PASSED = Comparison(Status.PASSED).to_json()
WRONG = Comparison(Status.MISMATCH, "3 of 10 elements differ").to_json()


class _Trusted:
    """Answers every check with the next of `answers`, keeping what it was sent."""

    def __init__(self, *answers: dict) -> None:
        self.answers, self.sent = list(answers), []

    def check(self, task_dir, job_dir, cases, descriptors):
        self.sent.append(cases)
        return [self.answers.pop(0)]


def _cases(task):
    cases = plan_cases(task, "cpu", 5)
    return cases + reproducibility_cases(task, cases, 5)


def test_a_case_passes_fails_or_changed_its_inputs_by_the_answer(suite):
    case = plan_cases(suite["relu"], "cpu", 5)[0]
    assert case_result(case, {"comparisons": [PASSED], "mutated": []}).status is Status.PASSED
    wrong = case_result(case, {"comparisons": [PASSED, WRONG], "mutated": ["input"]})
    assert (wrong.status, wrong.message) == (Status.MISMATCH, "3 of 10 elements differ")
    mutated = case_result(case, {"comparisons": [PASSED], "mutated": ["input"]})
    assert mutated.status is Status.INPUT_MUTATED and "input" in mutated.message


def test_twins_are_sent_to_be_kept_and_compared_and_every_case_must_pass(suite, tmp_path):
    cases = _cases(suite["dropout"])  # a randomised task: its first case has two twins
    twin = next(c for c in cases if c.twin is not None)
    trusted = _Trusted(*[{"comparisons": [PASSED]}] * len(cases))
    judge = CaseJudge(suite["dropout"], cases, trusted, threading.Lock(), Inbox())
    for case in cases[:-1]:
        assert judge(case, tmp_path / f"{case.index}.pt", [])
    assert not judge.passed_every_case()  # one case is still to be judged
    assert judge(cases[-1], tmp_path / "last.pt", [])
    assert judge.passed_every_case()
    sent = {payload["index"]: payload for (payload,) in trusted.sent}
    assert sent[twin.twin]["keep"] and sent[twin.index]["twin"] == twin.twin
    assert all(p["job"] == tmp_path.name for p in sent.values())


def test_one_wrong_case_fails_the_evaluation(suite, tmp_path):
    cases = [replace(c, index=i) for i, c in enumerate(plan_cases(suite["relu"], "cpu", 5)[:2])]
    judge = CaseJudge(suite["relu"], cases, _Trusted({"comparisons": [PASSED]}, {"comparisons": [WRONG]}),
                      threading.Lock(), Inbox())
    assert judge(cases[0], tmp_path / "0.pt", []) and not judge(cases[1], tmp_path / "1.pt", [])
    assert not judge.passed_every_case()


def test_references_are_kept_for_later_candidates_unless_none_come(suite, tmp_path):
    case = plan_cases(suite["relu"], "cpu", 5)[0]
    for keep, sent in [(True, None), (False, False)]:
        trusted = _Trusted({"comparisons": [PASSED]})
        CaseJudge(suite["relu"], [case], trusted, threading.Lock(), Inbox(), keep_references=keep)(
            case, tmp_path / "0.pt", [])
        assert trusted.sent[0][0].get("cache") == sent
