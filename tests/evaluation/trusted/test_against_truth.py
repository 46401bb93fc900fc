"""The float64 truth rule (kbx.tasks.accuracy) as the trusted worker applies it."""

import math
from types import MappingProxyType

import pytest
import torch

from kbx.evaluation.trusted import against_truth
from kbx.evaluation.trusted.against_truth import basis
from kbx.evaluation.trusted.compare import compare
from kbx.status import Status
from kbx.tasks.accuracy import RULE
from kbx.tasks.spec import Contract, Tolerance, Workload

W = Workload("w", "check", MappingProxyType({"n": 4096}))
TOLERANCES = MappingProxyType({d: Tolerance(1e-5, 1e-5) for d in ("float32", "float16", "bfloat16")})
TRUTH = Contract("allclose", TOLERANCES)
SUM = Contract("allclose", TOLERANCES, reduction_length="n")


def judge(out, eager, truth, contract=TRUTH, dtype="float32"):
    (result,) = compare(out, [eager], contract, dtype, W, [basis(eager, truth)])
    return result


def test_the_eager_reference_itself_passes_and_a_faithful_rounding_of_the_truth_too():
    truth = torch.randn(10_000, dtype=torch.float64).exp()
    eager = truth.to(torch.bfloat16)
    assert judge(eager.clone(), eager, truth, dtype="bfloat16").status is Status.PASSED
    # One ulp away from the truth on every element (the other neighbour): a faithful rounding passes.
    up = torch.nextafter(truth.float(), torch.tensor(math.inf)).to(torch.bfloat16)
    result = judge(up, eager, truth, dtype="bfloat16")
    assert result.status is Status.PASSED and result.against == "float64"


def test_a_few_wrong_elements_in_a_large_output_fail_though_the_normwise_error_hardly_moves():
    torch.manual_seed(0)
    truth = torch.randn(1 << 22, dtype=torch.float64)
    eager = truth.float()
    out = eager.clone()
    out[-3:] = 0.0  # a missing tail mask: the last block's elements never written
    result = judge(out, eager, truth)
    assert result.status is Status.MISMATCH and result.mismatches == 3
    assert result.first[0].index == ((1 << 22) - 3,)
    assert result.truth_error < 1e-3  # normwise the three elements are lost in four million


def test_tiny_probabilities_are_held_to_their_own_size():
    # A softmax over a long row in bf16: most probabilities are far below any fixed atol.
    torch.manual_seed(1)
    logits = torch.randn(4, 40_000, dtype=torch.float64) * 3
    truth = torch.softmax(logits, dim=-1)
    eager = truth.to(torch.bfloat16)
    assert judge(eager.clone(), eager, truth, dtype="bfloat16").status is Status.PASSED
    off = (truth * torch.where(truth < 1e-6, 1.5, 1.0)).to(torch.bfloat16)  # only the tiny ones 50 % off
    result = judge(off, eager, truth, dtype="bfloat16")
    assert result.status is Status.MISMATCH and result.mismatches > 0.2 * truth.numel()


def test_an_absolute_allowance_admits_a_textbook_formula_that_cancels_and_nothing_larger():
    # elu(x) = exp(x) - 1 near 0, written as the definition: the rounding of exp(x) near 1 (about u) is all that
    # is left of outputs ~1e-6; the element rule alone holds them to their own size.
    x = torch.linspace(-1e-3, -1e-7, 20_000, dtype=torch.float64)
    truth = torch.expm1(x)
    eager = torch.expm1(x.float())
    textbook = torch.exp(x.float()) - 1.0
    assert judge(textbook, eager, truth).status is Status.MISMATCH
    floor = Contract("allclose", TOLERANCES, absolute_units=16.0, absolute_reason="exp(x) - 1 cancels near 0")
    assert judge(textbook, eager, truth, floor).status is Status.PASSED
    off = eager + torch.where(x > -1e-5, 32 * 2.0**-24, 0.0).float()  # twice the floor, on 1 % of the elements
    result = judge(off, eager, truth, floor)
    assert result.status is Status.MISMATCH and 100 <= result.mismatches <= 200


def test_a_fused_kernel_with_float32_intermediates_passes_where_eager_rounds_to_fp16():
    # layer_norm then linear in fp16: eager rounds the normalised rows to fp16 before the product; a fused kernel
    # keeps them in fp32 and lands nearer the truth, by more than the old fp16 tolerance on some elements.
    torch.manual_seed(2)
    x = torch.randn(256, 1024, dtype=torch.float64) * 4 + 3
    w = (torch.randn(512, 1024, dtype=torch.float64) / 8).half().double()
    normed = torch.nn.functional.layer_norm(x, (1024,))
    truth = normed @ w.T
    eager = (normed.half().float() @ w.float().T).half()
    fused = (normed.float() @ w.float().T).half()
    legacy = compare(fused, [eager], Contract("allclose", MappingProxyType({"float16": Tolerance(1e-3, 1e-3)})),
                     "float16", W)[0]
    assert legacy.status is Status.MISMATCH  # against eager, the more accurate kernel looked wrong
    result = judge(fused, eager, truth, dtype="float16")
    assert result.status is Status.PASSED and result.truth_error < result.eager_error


def test_an_accumulation_in_a_narrow_dtype_fails_normwise():
    torch.manual_seed(3)
    a, b = torch.randn(64, 4096, dtype=torch.float64), torch.randn(4096, dtype=torch.float64)
    truth = a @ b
    eager = (a.float() @ b.float())
    lossy = torch.zeros(64, dtype=torch.float16)
    for k in range(0, 4096, 64):  # fp16 partial sums of 64 products
        lossy = lossy + (a[:, k : k + 64].float() @ b[k : k + 64].float()).half()
    result = judge(lossy.float(), eager, truth, SUM)
    assert result.status is Status.MISMATCH and result.truth_error > 100 * result.eager_error
    assert "normwise error ||out - truth|| / ||truth||" in result.message


def test_exact_zeros_are_checked_exactly_where_the_reference_is_exact():
    truth = torch.tensor([0.0, 1.0, 2.0, 0.0], dtype=torch.float64)
    eager = truth.float()
    assert judge(torch.tensor([0.0, 1.0, 2.0, 1e-30]), eager, truth).status is Status.MISMATCH
    assert judge(torch.tensor([0.0, 1.0, 2.0, 1e-39]), eager, truth).status is Status.PASSED  # below the flush floor


def test_an_element_where_a_sum_cancels_may_err_as_much_as_the_reference_does_on_its_peers():
    # Sums of +-1 terms that nearly cancel: the absolute error of an honest sum is the same on every element, so
    # the few elements near zero carry relative errors far above u; the reference's own errors there cover them.
    torch.manual_seed(4)
    terms = torch.randn(20_000, 512, dtype=torch.float64)
    truth = terms.sum(-1)
    eager = terms.float().sum(-1)
    sequential = torch.zeros(20_000)
    for k in range(512):
        sequential += terms[:, k].float()
    result = judge(sequential, eager, truth, SUM)
    assert result.status is Status.PASSED, result.message
    assert result.max_rel_error > 1e-4  # some element's relative error is far above float32's unit roundoff


def test_nan_and_infinity_keep_their_rules():
    truth = torch.tensor([math.nan, math.inf, 1e39, 1.0], dtype=torch.float64)
    eager = torch.tensor([math.nan, math.inf, math.inf, 1.0])  # fp32 overflows where float64 does not
    assert judge(eager.clone(), eager, truth).status is Status.PASSED
    assert judge(torch.tensor([math.nan, math.inf, 3.0e38, 1.0]), eager, truth).status is Status.MISMATCH
    nonfinite = judge(torch.tensor([math.nan, math.inf, math.inf, math.nan]), eager, truth)
    assert nonfinite.status is Status.NONFINITE
    assert judge(torch.tensor([0.0, math.inf, math.inf, 1.0]), eager, truth).status is Status.MISMATCH
    assert judge(torch.tensor([math.nan, -math.inf, math.inf, 1.0]), eager, truth).status is Status.MISMATCH


def test_integer_outputs_equal_the_reference_or_the_truth_on_each_element():
    eager, truth = torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4], dtype=torch.int64)
    assert judge(torch.tensor([1, 2, 4]), eager, truth).status is Status.PASSED
    assert judge(torch.tensor([1, 2, 3]), eager, truth).status is Status.PASSED
    assert judge(torch.tensor([2, 2, 3]), eager, truth).status is Status.MISMATCH


def test_without_a_basis_the_tolerances_judge_against_the_reference():
    eager = torch.ones(4)
    (result,) = compare(eager + 1.5e-5, [eager], TRUTH, "float32", W, None)
    assert result.status is Status.PASSED and result.against == "reference"
    (result,) = compare(eager + 3e-5, [eager], TRUTH, "float32", W, None)
    assert result.status is Status.MISMATCH


@pytest.mark.parametrize("chunk", [7, 1 << 23])
def test_chunks_give_the_verdict_of_the_whole_tensor(monkeypatch, chunk):
    monkeypatch.setattr(against_truth, "CHUNK", chunk)
    torch.manual_seed(5)
    truth = torch.randn(1000, dtype=torch.float64)
    eager = truth.float()
    out = eager.clone()
    out[[3, 500, 999]] *= 1.5
    result = judge(out, eager, truth)
    assert result.status is Status.MISMATCH and result.mismatches == 3
    assert [m.index for m in result.first] == [(3,), (500,), (999,)]


def test_the_truth_is_kept_finer_than_the_output_and_counted_in_the_cache():
    eager = torch.ones(100, dtype=torch.bfloat16)
    kept = basis(eager, torch.ones(100, dtype=torch.float64))
    assert kept.truth.dtype == torch.float32 and kept.nbytes() == 400 + against_truth.BINS * 8
    assert basis(eager.float(), torch.ones(100, dtype=torch.float64)).truth.dtype == torch.float64
    with pytest.raises(ValueError, match="shape"):
        basis(eager, torch.ones(10, dtype=torch.float64))


def test_a_finite_output_where_the_reference_is_infinite_says_so():
    truth = torch.tensor([math.inf, math.nan, 1.0], dtype=torch.float64)
    eager = torch.tensor([math.inf, math.nan, 1.0])
    only = judge(torch.tensor([-2.0, math.nan, 1.0]), eager, truth)
    assert only.status is Status.MISMATCH and "differ from the reference's inf or NaN" in only.message
    both = judge(torch.tensor([-2.0, math.nan, 1.5]), eager, truth)
    assert both.status is Status.MISMATCH and "1 of them where the reference is inf or NaN" in both.message


def _bf16_running_sum(x: torch.Tensor) -> torch.Tensor:
    """A running sum along dim 0 kept in bf16, as PyTorch's CUDA cumsum keeps it along an outer dim."""
    out, acc = torch.empty_like(x), torch.zeros_like(x[0])
    for i in range(x.shape[0]):
        acc = acc + x[i]
        out[i] = acc
    return out


def test_an_eager_reference_outside_its_own_contract_is_no_yardstick():
    # cumsum in bf16 along dim 0, 16384 terms of mean 0.5: eager's bf16 running sums stop growing once 0.5 is below
    # half their ulp, so its error envelope would cover any kernel. A kernel that rounds its carry to bf16 every 128
    # terms must fail as it does beside an eager that keeps to its contract; one that scans in fp32 passes.
    torch.manual_seed(4)
    n = 16384
    x = (torch.randn(n, 64, dtype=torch.float64) + 0.5).to(torch.bfloat16)
    truth = torch.cumsum(x.double(), dim=0)
    contract = Contract("allclose", TOLERANCES, reduction_length="n")
    eager = _bf16_running_sum(x)
    honest = torch.cumsum(x.float(), dim=0).to(torch.bfloat16)
    carry, chunks = torch.zeros(64, dtype=torch.float32), []
    for block in x.float().split(128):
        chunk = torch.cumsum(block, dim=0) + carry
        chunks.append(chunk.to(torch.bfloat16))
        carry = chunk[-1].to(torch.bfloat16).float()  # the bug: the carry rounded to the output dtype
    rounded_carry = torch.cat(chunks)
    own = against_truth.own_limit(basis(eager, truth), contract.allowance("bfloat16", W))
    assert basis(eager, truth).eager_error > RULE.yardstick_factor * own  # outside its contract: no yardstick
    assert judge(honest, eager, truth, contract, "bfloat16").status is Status.PASSED
    result = judge(rounded_carry, eager, truth, contract, "bfloat16")
    assert result.status is Status.MISMATCH and "no yardstick" in result.message
    beside_accurate = judge(rounded_carry, honest, truth, contract, "bfloat16")
    assert beside_accurate.mismatches == result.mismatches and "no yardstick" not in beside_accurate.message
