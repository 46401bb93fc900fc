"""Where KernelBench's rule runs and how its trials become its verdict (`kbx.evaluation.orchestrator.kernelbench`)."""

from __future__ import annotations

from kbx.candidates.static import StaticVerdict
from kbx.evaluation.orchestrator import kernelbench
from kbx.evaluation.verdict import Comparison
from kbx.status import Status
from kbx.tasks.kernelbench import load_problems
from tests.tasks.kernelbench.problems import FIXTURES, SCALE, write

RULE_FIXTURES = FIXTURES.parent / "kernelbench_rule"


def _task(root, name):
    return next(t for t in load_problems(root).tasks if t.name == name)


def _answer(*statuses: Status) -> dict:
    return {"comparisons": [Comparison(s, "" if s is Status.PASSED else f"{s.value} here").to_json()
                            for s in statuses]}


def test_the_trials_are_five_public_cases_of_the_problem_as_published():
    trials = kernelbench.cases(_task(RULE_FIXTURES, "level1/1_Gain_Offset"))
    assert [c.index for c in trials] == [0, 1, 2, 3, 4]
    assert {(c.workload, c.role, c.dtype, c.secret, c.params) for c in trials} == {
        ("bench", "bench", "float32", False, None)}
    assert len({c.seed for c in trials}) == 5


def test_the_cpu_runs_the_rule_only_where_the_problems_own_size_is_small():
    assert kernelbench.cannot_run(_task(RULE_FIXTURES, "level1/1_Gain_Offset"), "cpu") is None  # 24 x 40
    big = _task(FIXTURES, "level1/1_Shifted_Square")  # 4096 x 8192
    assert "about 33,554,432 elements" in kernelbench.cannot_run(big, "cpu")
    assert kernelbench.cannot_run(big, "cuda") is None


def test_a_size_written_inside_get_inputs_counts_too(tmp_path):
    write(tmp_path, "level1/1_Scale", SCALE.replace("torch.rand(batch_size, dim)", "torch.rand(batch_size, 4096)"))
    assert "about 1,048,576 elements" in kernelbench.cannot_run(_task(tmp_path, "level1/1_Scale"), "cpu")


def test_every_trial_allclose_passes_and_one_wrong_trial_fails_with_the_count():
    trials = kernelbench.cases(_task(RULE_FIXTURES, "level1/1_Gain_Offset"))
    passed = kernelbench.verdict(trials, {i: _answer(Status.PASSED) for i in range(5)}, None, "cpu")
    assert (passed.verdict, passed.passed, passed.message) == ("PASSED", 5, "")
    judged = {i: _answer(Status.MISMATCH if i == 3 else Status.PASSED) for i in range(5)}
    failed = kernelbench.verdict(trials, judged, None, "cpu")
    assert (failed.verdict, failed.passed) == ("FAILED", 4)
    assert failed.message == "trial 4: MISMATCH: MISMATCH here"


def test_an_exception_fails_the_rule_but_the_interpreters_slowness_and_kbxs_guards_do_not():
    trials = kernelbench.cases(_task(RULE_FIXTURES, "level1/1_Gain_Offset"))
    judged = {0: _answer(Status.PASSED)}
    raised = kernelbench.verdict(trials, judged, (Status.RUNTIME_ERROR, "ValueError: no (during trial 2)", ""), "cpu")
    assert (raised.verdict, raised.passed) == ("FAILED", 1) and "ValueError: no" in raised.message
    slow = kernelbench.verdict(trials, judged, (Status.TIMEOUT, "no result within 600s", ""), "cpu")
    assert slow.verdict == "NOT_JUDGED"
    assert kernelbench.verdict(trials, judged, (Status.TIMEOUT, "no result", ""), "cuda").verdict == "FAILED"
    guarded = kernelbench.verdict(trials, {}, (Status.REJECTED_RUNTIME, "runtime.patched", ""), "cpu")
    assert guarded.verdict == "NOT_JUDGED" and "in-process guards" in guarded.message


def test_unreadable_outputs_are_not_judged():
    trials = kernelbench.cases(_task(RULE_FIXTURES, "level1/1_Gain_Offset"))
    verdict = kernelbench.verdict(trials, {0: {"index": 0, "error": "truncated file"}}, None, "cpu")
    assert verdict.verdict == "NOT_JUDGED" and "truncated file" in verdict.message


def test_a_static_rejection_fails_the_rule_only_where_kernelbench_fails_it_too():
    no_class = StaticVerdict(Status.REJECTED_STATIC, "entry_point", "no top-level class `ModelNew`")
    assert kernelbench.after_static(no_class).verdict == "FAILED"
    syntax = StaticVerdict(Status.COMPILE_ERROR, "parses", "syntax error on line 3")
    assert kernelbench.after_static(syntax).verdict == "FAILED"
    policy = StaticVerdict(Status.REJECTED_STATIC, "anticheat.thread", "threads are not allowed")
    assert kernelbench.after_static(policy).verdict == "NOT_JUDGED"


def test_a_compiler_error_fails_the_rule_and_a_build_timeout_does_not_judge_it():
    assert kernelbench.after_build(Status.COMPILE_ERROR, "error: x undeclared").message == \
        "did not compile: error: x undeclared"
    assert kernelbench.after_build(Status.TIMEOUT, "no build within 600s").verdict == "NOT_JUDGED"
