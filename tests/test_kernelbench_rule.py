"""KernelBench's rule's verdict value (`kbx.kernelbench_rule`)."""

import pytest

from kbx.kernelbench_rule import FAILED, RuleVerdict, failed, not_judged


def test_a_verdict_travels_through_its_row_and_says_which_rule_gave_it():
    verdict = failed("trial 2: MISMATCH", passed=3)
    row = verdict.to_json()
    assert row["rule"] == {"inputs": 5, "atol": 0.01, "rtol": 0.01, "workload": "bench"}
    assert RuleVerdict.from_json(row) == verdict == RuleVerdict(FAILED, 3, 5, "trial 2: MISMATCH")


def test_only_the_three_verdicts_exist():
    assert not_judged("no GPU").verdict == "NOT_JUDGED"
    with pytest.raises(ValueError, match="no rule verdict 'MAYBE'"):
        RuleVerdict("MAYBE", 0, 5)
