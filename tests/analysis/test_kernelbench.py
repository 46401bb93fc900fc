"""KernelBench's numbers beside kbx's (`kbx.analysis.kernelbench`), worked out by hand on `kernelbench_store`."""

import pytest

from kbx.analysis import kernelbench
from kbx.analysis.data import load_runs, task_set
from kbx.store.db import Store


def _numbers(path, run_id):
    with Store(path) as store:
        (run,) = load_runs(store, [run_id])
    return kernelbench.kernelbench_numbers(run, run.outcomes(task_set([run])))


def test_fast_p_is_reported_at_kernelbenchs_thresholds_against_both_baselines(kernelbench_store):
    numbers = _numbers(kernelbench_store, "run-kb")
    assert [p for p, _ in numbers.fast_p_eager] == [0.0, 0.5, 0.8, 1.0, 1.5, 2.0]
    # correct and timed: 2.5x, 0.9x, 1.6x of five tasks; vs compile 1.875x, 0.675x, 1.2x
    assert [v for _, v in numbers.fast_p_eager] == pytest.approx([3 / 5, 3 / 5, 3 / 5, 2 / 5, 2 / 5, 1 / 5])
    assert [v for _, v in numbers.fast_p_compile] == pytest.approx([3 / 5, 3 / 5, 2 / 5, 2 / 5, 1 / 5, 0.0])


def test_an_untimed_run_has_no_fast_p_rather_than_zero(kernelbench_store):
    numbers = _numbers(kernelbench_store, "run-kb-plain")
    assert [v for _, v in numbers.fast_p_eager] == [None] * 6
    assert numbers.rule_tasks == 0 and numbers.rule_correct is None and sum(numbers.agreement.values()) == 0


def test_the_rules_verdicts_are_counted_beside_kbxs(kernelbench_store):
    numbers = _numbers(kernelbench_store, "run-kb")
    assert numbers.correct == pytest.approx(3 / 5)
    assert (numbers.rule_tasks, numbers.rule_correct) == (4, pytest.approx(2 / 4))  # level1/3_E not judged
    assert numbers.agreement == {kernelbench.BOTH_PASS: 1, kernelbench.BOTH_FAIL: 1, kernelbench.RULE_ONLY: 1,
                                 kernelbench.KBX_ONLY: 1, kernelbench.UNJUDGED: 1}


def test_each_disagreement_names_both_verdicts_and_why(kernelbench_store):
    numbers = _numbers(kernelbench_store, "run-kb")
    found = {(d.task, d.kind, d.kbx_status, d.rule_verdict) for d in numbers.disagreements}
    assert found == {("level2/1_C", kernelbench.RULE_ONLY, "MISMATCH", "PASSED"),
                     ("level1/2_B", kernelbench.KBX_ONLY, "PASSED", "FAILED")}
    b = next(d for d in numbers.disagreements if d.task == "level1/2_B")
    assert b.rule_message == "failed by the rule in level1/2_B"


def test_a_run_over_kbxs_own_suite_has_no_kernelbench_numbers(kernelbench_store):
    assert _numbers(kernelbench_store, "run-native") is None
