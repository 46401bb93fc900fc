"""The bases of one case: the float64 truth per output, then perturbed runs (one set per number of floating-point
inputs) for each element's response P; small synthetic references on the CPU."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest
import torch

from kbx.evaluation.trusted import bases
from kbx.evaluation.trusted.bases import truth_bases
from kbx.tasks.accuracy import RULE
from kbx.tasks.spec import Contract, Tolerance, Workload
from kbx.tasks.truth import argument_perturbations, float_arguments, perturbations, stored

W = Workload("w", "check", MappingProxyType({}))
TRUTH = Contract("allclose", MappingProxyType({"float32": Tolerance(1e-5, 1e-5)}))


def _inputs(count: int, n: int = 64) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    return {f"x{i}": torch.randn(n, generator=generator) for i in range(count)}


def _summed(**inputs):
    return sum(inputs.values())


def _counting_runs(monkeypatch) -> list[int]:
    runs: list[int] = []
    real = bases.float64_reference
    monkeypatch.setattr(bases, "float64_reference", lambda *a: runs.append(1) or real(*a))
    return runs


def test_one_basis_per_output_holding_the_float64_truth():
    inputs = _inputs(2)

    def reference(x0, x1):
        return x0 * x1, x0 + x1

    eager = list(reference(**inputs))
    found = truth_bases(reference, inputs, eager, "float32", TRUTH, W)
    assert len(found) == 2
    for base, e, expected in zip(found, eager, reference(inputs["x0"].double(), inputs["x1"].double())):
        assert base.eager is e and base.truth.dtype == torch.float64 and torch.equal(base.truth, expected)
        assert base.backward is not None and base.backward.shape == e.shape


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_one_truth_run_and_the_perturbed_runs_of_perturbations_per_count_of_float_inputs(count, monkeypatch):
    runs = _counting_runs(monkeypatch)
    inputs = _inputs(count)
    truth_bases(_summed, inputs, [_summed(**inputs)], "float32", TRUTH, W)
    assert len(runs) == 1 + len(perturbations(count))


def test_a_blend_of_two_neighbours_that_cancels_gets_the_response_of_both_whatever_the_signs_drawn():
    # grid_sample's failure in CI: a bilinear sample of corners drawn the same way cancelled in every run
    x = torch.randn(2, 3, 4000, dtype=torch.float64).float()
    x[..., 1::2] = -x[..., ::2] * (1 + 2.0**-20)  # every other pair cancels to about 1e-6 of its terms

    def blend(input):
        return 0.25 * input[..., :-1] + 0.75 * input[..., 1:]

    base = truth_bases(blend, {"input": x}, [blend(x)], "float32", TRUTH, W)[0]
    delta = TRUTH.allowance("float32", W).backward_delta
    terms = (0.25 * x[..., :-1].double().abs() + 0.75 * x[..., 1:].double().abs())
    assert bool((base.backward.double() >= delta * terms * (1 - 1e-6)).all())


def test_integer_inputs_are_not_counted_or_perturbed(monkeypatch):
    runs = _counting_runs(monkeypatch)
    inputs = {**_inputs(2), "index": torch.arange(64)}

    def reference(x0, x1, index):
        return (x0 + x1)[index]

    truth_bases(reference, inputs, [reference(**inputs)], "float32", TRUTH, W)
    assert len(runs) == 1 + len(perturbations(2))


def test_a_definition_that_rounds_with_stored_is_perturbed_after_its_rounding(monkeypatch):
    # add_layer_norm's failure in a sweep: a norm of the stored residual that cancels to nearly 0 had P = 0
    runs = _counting_runs(monkeypatch)
    generator = torch.Generator().manual_seed(5)
    inputs = {name: torch.randn(64, dtype=torch.float64, generator=generator).float() for name in ("x0", "x1")}

    def reference(x0, x1):
        h = stored(x0 + x1)
        return h - h.mean(), h

    out, h = truth_bases(reference, inputs, list(reference(**inputs)), "float32", TRUTH, W)
    assert len(runs) == 1 + len(perturbations(3))  # two inputs and one stored value
    delta = TRUTH.allowance("float32", W).backward_delta
    stored_h = (inputs["x0"].double() + inputs["x1"].double()).float().double()
    assert torch.equal(h.truth, stored_h)
    assert bool((h.backward.double() <= delta * stored_h.abs() * (1 + 1e-6)).all())  # moved by delta of itself
    # the centred output responds to the stored values' moves: by its own move less the mean's, which is at most
    # delta times the mean of |h| (an element's bound of half its own move failed on 90 of 300 unseeded draws)
    floor = delta * (stored_h.abs() - stored_h.abs().mean())
    assert bool((out.backward.double() >= floor * (1 - 1e-6)).all())


def test_a_definition_that_rounds_while_its_truth_runs_by_blocks_of_rows_gets_no_perturbed_runs(monkeypatch):
    monkeypatch.setattr(bases, "PIECE_ELEMENTS", 8)
    inputs = {"x0": torch.randn(8, 4), "x1": torch.randn(8, 4)}

    def reference(x0, x1):
        return stored(x0 + x1) * 2

    runs = _counting_runs(monkeypatch)
    (base,) = truth_bases(reference, inputs, [reference(**inputs)], "float32", TRUTH, W, rows=("x0", "x1"))
    assert len(runs) == 4 and base.backward is None  # the truth, by four blocks of two rows


def test_a_contract_without_perturbed_truth_or_a_rule_without_c_gets_none(monkeypatch):
    runs = _counting_runs(monkeypatch)
    inputs = _inputs(2)
    eager = [_summed(**inputs)]
    (base,) = truth_bases(_summed, inputs, eager, "float32", replace(TRUTH, perturbed_truth=False), W)
    (other,) = truth_bases(_summed, inputs, eager, "float32", TRUTH, W, replace(RULE, backward_factor=0.0))
    assert len(runs) == 2 and base.backward is None and other.backward is None


def test_p_is_the_truths_largest_response_when_the_two_inputs_move_together_and_the_same_for_the_same_case():
    inputs = _inputs(2, n=4096)
    eager = [_summed(**inputs)]
    first, second = (truth_bases(_summed, inputs, eager, "float32", TRUTH, W)[0] for _ in range(2))
    assert torch.equal(first.backward, second.backward)
    delta = TRUTH.allowance("float32", W).backward_delta
    together = delta * (inputs["x0"].double().abs() + inputs["x1"].double().abs())
    assert torch.allclose(first.backward.double(), together, rtol=1e-4, atol=0.0)


def test_a_reference_with_no_float64_path_raises():
    inputs = _inputs(1)

    def reference(x0):
        if x0.dtype == torch.float64:
            raise NotImplementedError("no float64 kernel")
        return x0 * 2

    with pytest.raises(NotImplementedError, match="no float64 kernel"):
        truth_bases(reference, inputs, [reference(**inputs)], "float32", TRUTH, W)


def test_a_float64_run_returning_other_outputs_than_the_eager_one_raises():
    inputs = _inputs(1)
    with pytest.raises(ValueError, match="other outputs"):
        truth_bases(lambda x0: x0 * 2, inputs, [inputs["x0"], inputs["x0"]], "float32", TRUTH, W)
    with pytest.raises(ValueError, match="other outputs"):
        truth_bases(lambda x0: (x0 * 2, 3), inputs, [inputs["x0"], inputs["x0"]], "float32", TRUTH, W)


def test_the_perturbation_is_the_case_dtypes_so_tensor_cores_widen_it_for_16_bit_cases_only():
    long = Workload("w", "check", MappingProxyType({"K": 4096}))
    cores = replace(TRUTH, tolerances=MappingProxyType({"float16": Tolerance(1e-3, 1e-3)}), reduction_length="K",
                    tensor_cores=True)
    inputs = {name: x.half() for name, x in _inputs(2, n=256).items()}
    eager = [_summed(**inputs)]
    (base,) = truth_bases(_summed, inputs, eager, "float16", cores, long)
    (plain,) = truth_bases(_summed, inputs, eager, "float16", replace(cores, tensor_cores=False), long)
    widened = cores.allowance("float16", long).backward_delta / cores.allowance("float32", long).backward_delta
    assert widened > 3
    assert torch.allclose(base.backward.double(), widened * plain.backward.double(), rtol=1e-3, atol=0.0)


def _same_bases(one, other) -> bool:
    return all(
        torch.equal(a.truth, b.truth) and torch.equal(a.envelope, b.envelope) and torch.equal(a.backward, b.backward)
        and a.eager_error == b.eager_error and a.norm == b.norm for a, b in zip(one, other, strict=True))


@pytest.mark.parametrize(("name", "dtype", "workload", "expected"), [
    ("softmax", "float32", "check_long_rows", ("input",)), ("softmax", "bfloat16", "check_middle", ("input",)),
    ("rms_norm_mul", "bfloat16", "check_4097", ("input", "gate")),
    ("rms_norm_mul", "float16", "check_129_3d", ("input", "gate"))])
def test_a_truth_run_by_blocks_of_rows_gives_the_whole_runs_bases_bit_for_bit(monkeypatch, suite, name, dtype,
                                                                              workload, expected):
    from kbx.evaluation.cases import plan_cases
    from kbx.tasks.module import import_task

    task = suite[name]
    code = import_task(task)
    case = next(c for c in plan_cases(task, "cpu", 3) if c.workload == workload and c.dtype == dtype)
    inputs = code.make_inputs(task.workload(workload), dtype, torch.Generator().manual_seed(case.seed))
    eager = [code.reference(**inputs)]
    rows = code.truth_rows(**inputs)
    assert rows == expected
    whole = truth_bases(code.reference, inputs, eager, dtype, task.contract, task.workload(workload))
    runs = _counting_runs(monkeypatch)
    count = inputs["input"].shape[0]
    per_block = max(1, count // 3)  # three blocks or more, the last one short where they do not divide
    monkeypatch.setattr(bases, "PIECE_ELEMENTS", per_block * inputs["input"][0].numel())
    blocks = bases.row_blocks(inputs, eager, rows)
    assert blocks is not None and len(blocks.blocks) == -(-count // per_block) >= 3
    by_rows = truth_bases(code.reference, inputs, eager, dtype, task.contract, task.workload(workload), rows=rows)
    assert _same_bases(whole, by_rows)
    tensors = sum(isinstance(v, torch.Tensor) and v.is_floating_point() for v in inputs.values())
    moved = len(perturbations(tensors)) + len(argument_perturbations(len(float_arguments(inputs))))
    assert len(runs) == (1 + moved) * len(blocks.blocks)  # the truth and the perturbed runs


def test_rows_that_do_not_line_up_run_whole():
    x, weight = torch.randn(6, 4), torch.randn(4)
    eager = [x * weight]
    assert bases.row_blocks({"x": x, "w": weight}, eager, ("w",)) is None  # not the outputs' rows
    assert bases.row_blocks({"x": x}, eager, None) is None
    assert bases.row_blocks({"x": x}, [x.sum()], ("x",)) is None  # a scalar output has no rows
    assert bases.row_blocks({"x": x}, eager, ("x",)) is None  # one block holds it all


def test_temporaries_wider_than_a_row_shrink_the_blocks():
    x = torch.randn(8, 4)
    eager = [x * 2]
    assert bases.row_blocks({"x": x}, eager, ("x",)) is None  # the inputs and outputs fit one block
    blocks = bases.row_blocks({"x": x}, eager, ("x",), row_elements=bases.PIECE_ELEMENTS // 2)
    assert blocks is not None and [b.stop - b.start for b in blocks.blocks] == [2, 2, 2, 2]


def test_attention_runs_its_truth_a_batch_at_a_time_with_the_whole_runs_bases(monkeypatch, suite):
    from kbx.tasks.module import import_task

    task = suite["scaled_dot_product_attention"]
    code = import_task(task)
    workload = task.workload("check_d80")
    inputs = code.make_inputs(workload, "float16", torch.Generator().manual_seed(3))
    inputs = {k: torch.cat([v, v.flip(0)]) if isinstance(v, torch.Tensor) else v for k, v in inputs.items()}
    eager = [code.reference(**inputs)]
    rows, per_row = code.truth_rows(**inputs), code.truth_row_elements(**inputs)
    assert rows == ("query", "key", "value") and per_row == 3 * 2 * 129 * 77
    whole = truth_bases(code.reference, inputs, eager, "float16", task.contract, workload)
    monkeypatch.setattr(bases, "PIECE_ELEMENTS", per_row)
    assert len(bases.row_blocks(inputs, eager, rows, per_row).blocks) == 2
    by_rows = truth_bases(code.reference, inputs, eager, "float16", task.contract, workload, rows=rows,
                          row_elements=per_row)
    assert _same_bases(whole, by_rows)


def test_a_rounded_input_moves_by_u_out_of_the_case_dtype_and_the_others_by_the_rules_step():
    inputs = {name: value.to(torch.bfloat16) for name, value in _inputs(2, n=4096).items()}
    eager = [_summed(**inputs)]
    contract = replace(TRUTH, tolerances=MappingProxyType({"bfloat16": Tolerance(1e-2, 1e-2)}),
                       rounded_inputs=("x0",), rounded_reason="x0 * scale may be rounded to the dtype")
    (base,) = truth_bases(_summed, inputs, eager, "bfloat16", contract, W)
    delta = contract.allowance("bfloat16", W).backward_delta
    both = 2.0**-8 * inputs["x0"].double().abs() + delta * inputs["x1"].double().abs()  # bf16's u_out for x0
    assert torch.allclose(base.backward.double(), both, rtol=1e-3, atol=0.0)
