"""The evaluation policy: what each value requires and says."""

from kbx.candidates.policy import Policy
from kbx.candidates.source import Candidate


def test_a_candidate_is_a_kernel_under_every_rule_unless_its_maker_says_otherwise():
    assert Candidate("a.py", "relu", "x = 1").policy is Policy.KERNEL
    assert Policy.KERNEL.own_kernels_required and Policy.KERNEL.relaxed == ""


def test_the_reference_code_policy_names_the_rules_it_leaves_out():
    assert not Policy.REFERENCE_CODE.own_kernels_required
    assert Policy("reference-code") is Policy.REFERENCE_CODE
    for rule in ("runtime.torch_compute", "runtime.foreign_kernel", "runtime.no_kernel_launch"):
        assert rule in Policy.REFERENCE_CODE.relaxed
