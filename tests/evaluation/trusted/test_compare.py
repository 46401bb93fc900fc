import math
from types import MappingProxyType

import torch

from kbx.evaluation.trusted.compare import compare, second_opinion, wants_second_opinion
from kbx.status import Status
from kbx.tasks.spec import Contract, Tolerance, Workload

W = Workload("w", "check", MappingProxyType({"K": 400}))


def contract(kind="allclose", **kw):
    tols = MappingProxyType({"float32": Tolerance(1e-5, 1e-5), "float16": Tolerance(1e-3, 1e-3)})
    return Contract(kind=kind, tolerances=tols, **kw)


def one(got, ref, c=None, dtype="float32"):
    (result,) = compare(got, [ref], c or contract(), dtype, W)
    return result


def test_equal_tensors_pass_with_zero_error():
    x = torch.randn(10, 10)
    result = one(x.clone(), x)
    assert result.status is Status.PASSED and result.max_abs_error == 0.0


def test_mismatch_report_counts_and_locates():
    ref = torch.zeros(4, 5)
    got = ref.clone()
    got[1, 2] = 1.0
    got[3, 4] = -2.0
    result = one(got, ref)
    assert result.status is Status.MISMATCH
    assert result.mismatches == 2 and result.total == 20
    assert [m.index for m in result.first] == [(1, 2), (3, 4)]
    assert result.max_abs_error == 2.0 and "2 of 20" in result.message


def test_tolerance_is_atol_plus_rtol():
    ref = torch.full((3,), 100.0)
    assert one(ref + 100.0 * 1e-5, ref).status is Status.PASSED
    assert one(ref + 3e-3, ref).status is Status.MISMATCH


def test_reduction_length_widens_atol():
    c = contract(reduction_length="K")
    ref = torch.zeros(3)
    assert one(ref + 1.5e-4, ref, c).status is Status.PASSED  # 1e-5 * sqrt(400) = 2e-4
    assert one(ref + 3e-4, ref, c).status is Status.MISMATCH


def test_nan_where_reference_is_finite_is_nonfinite():
    ref = torch.ones(5)
    got = ref.clone()
    got[2] = math.nan
    assert one(got, ref).status is Status.NONFINITE


def test_matching_nan_and_inf_are_accepted():
    ref = torch.tensor([math.nan, math.inf, -math.inf, 1.0])
    assert one(ref.clone(), ref).status is Status.PASSED
    assert one(torch.tensor([1.0, math.inf, -math.inf, 1.0]), ref).status is Status.MISMATCH


def test_an_infinite_reference_is_matched_only_by_the_same_infinity():
    ref = torch.tensor([math.inf, -math.inf, 2.0])
    for wrong in ([3e38, -math.inf, 2.0], [-math.inf, -math.inf, 2.0], [math.inf, -3e38, 2.0]):
        assert one(torch.tensor(wrong), ref).status is Status.MISMATCH, wrong
    assert one(torch.tensor([math.inf, -math.inf, 2.0 + 1e-6]), ref).status is Status.PASSED


def test_an_infinity_against_a_finite_value_reports_an_infinite_error_not_zero():
    ref = torch.tensor([3.0e38, -3.0e38, 2.0])
    got = torch.tensor([math.inf, -math.inf, 2.0])
    for result in (one(got, ref, contract("exact")), one(torch.tensor([3.0e38, -3.0e38, 2.0]),
                                                          torch.tensor([math.inf, -3.0e38, 2.0]))):
        assert result.status is Status.MISMATCH
        assert "max abs err inf, max rel err inf" in result.message, result.message
        assert math.isfinite(result.max_abs_error)  # rows are JSON: the number stays finite


def test_shape_dtype_and_type_errors():
    ref = torch.zeros(2, 3)
    assert one(torch.zeros(3, 2), ref).status is Status.WRONG_SHAPE
    assert one(torch.zeros(2, 3, dtype=torch.float64), ref).status is Status.WRONG_DTYPE
    assert one(None, ref).status is Status.WRONG_SHAPE
    (result,) = compare((ref, ref), [ref], contract(), "float32", W)
    assert result.status is Status.WRONG_SHAPE and "2 outputs" in result.message


def test_integer_outputs_compare_exactly():
    ref = torch.tensor([0, 3, 7])
    assert one(ref.clone(), ref).status is Status.PASSED
    assert one(torch.tensor([0, 3, 6]), ref).status is Status.MISMATCH


def test_quantized_bound_is_scale_relative():
    ref = torch.randn(1000, generator=torch.Generator().manual_seed(0)) * 1000
    noise = torch.randn(1000, generator=torch.Generator().manual_seed(1))
    c = contract("quantized", bound=0.01)
    close = one(ref + noise * 5, ref, c)  # ~0.5 % of RMS
    far = one(ref + noise * 50, ref, c)  # ~5 % of RMS
    assert close.status is Status.PASSED and 0.003 < close.rel_rmse < 0.008
    assert far.status is Status.MISMATCH and "exceeds" in far.message



def test_chunked_comparison_counts_and_locates_across_chunks(monkeypatch):
    monkeypatch.setattr("kbx.evaluation.trusted.compare._CHUNK", 7)
    ref = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    got = ref.clone()
    got[0, 9] += 1  # flat 9: second chunk
    got[5, 8] += 3  # flat 58: last chunk
    result = one(got, ref)
    assert result.mismatches == 2 and result.total == 60
    assert [m.index for m in result.first] == [(0, 9), (5, 8)]
    assert result.max_abs_error == 3.0


def test_chunked_quantized_matches_whole_tensor(monkeypatch):
    ref = torch.randn(1001, generator=torch.Generator().manual_seed(3))
    got = ref + 0.01 * torch.randn(1001, generator=torch.Generator().manual_seed(4))
    c = contract("quantized", bound=0.5)
    whole = one(got, ref, c).rel_rmse
    monkeypatch.setattr("kbx.evaluation.trusted.compare._CHUNK", 64)
    assert math.isclose(one(got, ref, c).rel_rmse, whole, rel_tol=1e-12)


class _OrthogonalCheck:
    """A property check of the kind a QR task writes: Q has orthonormal columns."""

    @staticmethod
    def check_outputs(outputs, inputs, expected, workload, dtype):
        (q,) = outputs
        error = float((q.T @ q - torch.eye(q.shape[1])).abs().max())
        return None if error < 1e-4 else f"Q^T Q is {error:.2g} from the identity"


def test_property_contracts_are_judged_by_the_tasks_check():
    from kbx.evaluation.trusted.compare import judge

    c = contract("property")
    q, _ = torch.linalg.qr(torch.randn(6, 4, dtype=torch.float64).float())
    (ok,) = judge([-q], [q], {}, _OrthogonalCheck, c, "float32", W)  # signs are free: not element-wise
    assert ok.status is Status.PASSED
    (bad,) = judge([2 * q], [q], {}, _OrthogonalCheck, c, "float32", W)
    assert bad.status is Status.MISMATCH and "from the identity" in bad.message
    (nan,) = judge([q.clone().fill_(math.nan)], [q], {}, _OrthogonalCheck, c, "float32", W)
    assert nan.status is Status.NONFINITE
    (shape,) = judge([q[:3]], [q], {}, _OrthogonalCheck, c, "float32", W)
    assert shape.status is Status.WRONG_SHAPE


def test_a_check_that_raises_on_the_outputs_fails_them():
    from kbx.evaluation.trusted.compare import judge

    class Raises:
        @staticmethod
        def check_outputs(**_):
            raise ValueError("singular")

    (result,) = judge([torch.ones(2)], [torch.ones(2)], {}, Raises, contract("statistical"), "float32", W)
    assert result.status is Status.MISMATCH and "singular" in result.message


def test_only_value_mismatches_of_exact_contracts_get_a_second_opinion():
    # allclose contracts are judged against the float64 truth in the first place (test_against_truth).
    ref = torch.tensor([5.14, 1.0])
    exact = Contract("exact", {"float32": Tolerance(0.0, 0.0)})
    first = compare(torch.tensor([5.13, 1.0]), [ref], exact, "float32", W)
    assert wants_second_opinion(first, exact)
    assert not wants_second_opinion(first, Contract("allclose", {"float32": Tolerance(1e-5, 1e-5)}))
    assert not wants_second_opinion(compare(torch.tensor([5.13, 1.0]).half(), [ref], exact, "float32", W), exact)
    assert not wants_second_opinion(first, Contract("exact", {"float32": Tolerance(0.0, 0.0)}, second_opinion=False))


def test_the_second_opinion_takes_per_element_the_nearer_reference():
    # e.g. round(x, 2): fp32 arithmetic (the reference) and exact arithmetic (float64) disagree on some elements;
    # a kernel may side with either on each, but every element must match one of them.
    ref, gold = torch.tensor([5.14, 1.0e24, 0.1]), torch.tensor([5.13, 1.01e24, 0.09], dtype=torch.float64)
    exact = Contract("exact", {"float32": Tolerance(0.0, 0.0)})
    mixed = torch.tensor([5.13, 1.0e24, 0.1])
    assert compare(mixed, [ref], exact, "float32", W)[0].status is Status.MISMATCH
    (again,) = second_opinion(mixed, [ref], [gold], exact, "float32", W)
    assert again.status is Status.PASSED and again.against == "float64"
    assert second_opinion(torch.tensor([5.12, 1.0e24, 0.1]), [ref], [gold], exact, "float32", W) is None


def test_the_second_opinion_works_on_float8_outputs():
    ref = torch.tensor([1.0, 2.0, 448.0]).to(torch.float8_e4m3fn)
    gold = torch.tensor([1.0, 2.25, 448.0], dtype=torch.float64)
    exact = Contract("exact", {"float32": Tolerance(0.0, 0.0)})
    out = torch.tensor([1.0, 2.25, 448.0]).to(torch.float8_e4m3fn)
    (again,) = second_opinion(out, [ref], [gold], exact, "float32", W)
    assert again.status is Status.PASSED
    assert second_opinion(torch.tensor([1.0, 2.5, 448.0]).to(torch.float8_e4m3fn), [ref], [gold], exact,
                          "float32", W) is None


def test_a_randomised_output_must_repeat_under_its_seed_and_change_under_another():
    from kbx.evaluation.trusted.compare import twin_verdict

    first = [torch.tensor([0.0, 2.0, math.nan, 2.0])]
    assert twin_verdict([first[0].clone()], first, same=True) is None  # NaN matches NaN
    differs = twin_verdict([torch.tensor([2.0, 2.0, math.nan, 2.0])], first, same=True)
    assert differs is not None and differs.status is Status.MISMATCH and "1 element(s) differ" in differs.message
    assert twin_verdict([torch.tensor([2.0, 0.0, math.nan, 2.0])], first, same=False) is None
    fixed = twin_verdict([first[0].clone()], first, same=False)
    assert fixed is not None and "does not depend on `seed`" in fixed.message


def test_an_exact_contract_with_ulps_takes_that_many_ulps_on_its_workloads_only():
    ref = torch.tensor([1.0, 1000.0, -3.0e-3, float("inf"), float("nan")])
    two_off = torch.tensor([1.0 + 2 * 2.0**-23, 1000.0 - 2 * 2.0**-14, -3.0e-3, float("inf"), float("nan")])
    three_off = two_off.clone()
    three_off[0] = 1.0 + 3 * 2.0**-23
    c = Contract("exact", {}, ulps=MappingProxyType({"w": 2}))
    assert one(two_off, ref, c).status is Status.PASSED
    result = one(three_off, ref, c)
    assert result.status is Status.MISMATCH and result.mismatches == 1 and "more than 2 ulp" in result.message
    (elsewhere,) = compare(two_off, [ref], c, "float32", Workload("other", "check", {}))
    assert elsewhere.status is Status.MISMATCH and elsewhere.mismatches == 2
    infinite = one(torch.tensor([1.0, 1000.0, -3.0e-3, 3.0e38, float("nan")]), ref, c)
    assert infinite.status is Status.MISMATCH and infinite.mismatches == 1
