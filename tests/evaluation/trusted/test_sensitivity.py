"""How much of an output a contract leaves unchecked, on tiny synthetic tasks (the suite's own check is
tests/suite/test_sensitivity.py)."""

from __future__ import annotations

import math
from types import MappingProxyType, SimpleNamespace

import pytest
import torch

from kbx.evaluation.trusted.sensitivity import unchecked_shares
from kbx.tasks.module import TaskCode
from kbx.tasks.spec import Contract, Tolerance, Workload

W = Workload("check_small", "check", MappingProxyType({"n": 4096}))
TRUTH = Contract("allclose", MappingProxyType({"float32": Tolerance(1e-5, 1e-5)}))


def _code(reference, make_inputs, contract: Contract = TRUTH) -> TaskCode:
    return TaskCode(SimpleNamespace(contract=contract), reference, make_inputs)


def _randn(workload, dtype, generator):
    return {"x": torch.randn(workload.params["n"], generator=generator, dtype=getattr(torch, dtype))}


def _against_reference(atol: float, rtol: float) -> Contract:
    return Contract("allclose", MappingProxyType({"float32": Tolerance(atol, rtol)}), against_reference="no float64")


def test_an_elementwise_output_against_the_truth_is_wholly_checked():
    assert unchecked_shares(_code(lambda x: x * 2 + 1, _randn), W, "float32") == [0.0]


def test_a_sum_that_cancels_is_unchecked_where_its_truth_moves_with_the_inputs():
    def cancelling(workload, dtype, generator):
        big = 1000 * torch.randn(workload.params["n"], generator=generator)
        return {"x": big, "y": -big + 1e-3 * torch.randn(workload.params["n"], generator=generator)}

    (share,) = unchecked_shares(_code(lambda x, y: x + y, cancelling), W, "float32")
    assert share > 0.5, "most elements of a cancelling sum may be off by half"


def test_an_output_whose_truth_is_zero_everywhere_counts_as_unchecked():
    assert unchecked_shares(_code(lambda x: x * 0, _randn), W, "float32") == [1.0]


def test_an_output_that_is_inf_or_nan_everywhere_is_checked_exactly():
    shares = unchecked_shares(_code(lambda x: (x * 0 + math.inf, x * math.nan), _randn), W, "float32")
    assert shares == [0.0, 0.0], "only the same inf or a NaN passes there"


def test_only_floating_point_outputs_get_a_share():
    shares = unchecked_shares(_code(lambda x: (x > 0, x * 3, torch.argmax(x)), _randn), W, "float32")
    assert shares == [0.0]


def test_the_case_is_drawn_from_its_seed():
    seen: list[float] = []

    def recording(workload, dtype, generator):
        inputs = _randn(workload, dtype, generator)
        seen.append(float(inputs["x"][0]))
        return inputs

    for seed in (0, 0, 1):
        unchecked_shares(_code(lambda x: x * 2, recording), W, "float32", seed)
    assert seen[0] == seen[1] != seen[2]


@pytest.mark.parametrize(("atol", "rtol", "share"), [(1e-5, 1e-5, 0.0), (0.0, 0.6, 1.0), (1.0, 0.0, 0.0)])
def test_a_contract_against_the_reference_is_held_to_its_tolerances(atol, rtol, share):
    def far_from_zero(workload, dtype, generator):
        return {"x": 4 + torch.rand(workload.params["n"], generator=generator)}

    assert unchecked_shares(_code(lambda x: x, far_from_zero, _against_reference(atol, rtol)), W, "float32") == [share]


def test_against_the_reference_exact_zeros_are_left_out_and_all_zeros_are_unchecked():
    def mostly_zero(workload, dtype, generator):
        return {"x": torch.tensor([0.0, 0.0, 0.0, 4.0])}

    assert unchecked_shares(_code(lambda x: x, mostly_zero, _against_reference(1.0, 0.0)), W, "float32") == [0.0]
    assert unchecked_shares(_code(lambda x: x * 0, mostly_zero, _against_reference(1.0, 0.0)), W, "float32") == [1.0]
