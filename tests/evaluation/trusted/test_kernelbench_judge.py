"""KernelBench's rule as the trusted worker judges it (`compare.kernelbench_judge`): torch.allclose at
atol = rtol = 1e-2 against the reference at the case's dtype, where kbx's own contract is far stricter."""

import torch

from kbx.evaluation.trusted.compare import compare, kernelbench_judge
from kbx.status import Status
from kbx.tasks.spec import Contract, Tolerance, Workload


def _rule(out, ref):
    return [c.status for c in kernelbench_judge(out, [ref], "float32", 1e-2, 1e-2)]


REF = torch.linspace(-3, 3, 257)


def test_an_error_within_one_percent_passes_the_rule_and_fails_kbxs_float32_contract():
    near = REF + 0.009 * (1 + REF.abs())
    assert _rule(near, REF) == [Status.PASSED]
    strict = Contract("allclose", {"float32": Tolerance(1e-5, 1e-5)})
    assert [c.status for c in compare(near, [REF], strict, "float32", Workload("w", "check"))] == [Status.MISMATCH]


def test_an_error_beyond_the_rules_bound_fails_and_is_counted():
    far = REF.clone()
    far[100] += 0.5
    (comparison,) = kernelbench_judge(far, [REF], "float32", 1e-2, 1e-2)
    assert comparison.status is Status.MISMATCH and comparison.mismatches == 1
    assert "atol=0.01, rtol=0.01" in comparison.message


def test_a_nan_fails_the_rule_even_where_the_reference_has_one():
    ref = REF.clone()
    ref[7] = float("nan")
    assert _rule(ref.clone(), ref) == [Status.MISMATCH]  # torch.allclose(equal_nan=False)
    assert not torch.allclose(ref, ref.clone(), atol=1e-2, rtol=1e-2)


def test_the_same_infinity_passes_and_a_wrong_shape_or_dtype_fails():
    ref = REF.clone()
    ref[0] = float("inf")
    assert _rule(ref.clone(), ref) == [Status.PASSED]
    assert _rule(REF[:-1], REF) == [Status.WRONG_SHAPE]
    assert _rule(REF.double(), REF) == [Status.WRONG_DTYPE]  # torch.allclose raises on two dtypes
