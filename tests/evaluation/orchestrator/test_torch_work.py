"""The orchestrator's rule over torch's tally of a call: torch may allocate, view and copy, not do the work."""

from __future__ import annotations

from types import MappingProxyType

from kbx.evaluation.orchestrator.torch_work import MIN_ELEMENTS, SIZE_DIVISOR, torch_compute_violation
from kbx.evaluation.protocol import TorchWork


def _work(ops: dict[str, int], largest: int) -> TorchWork:
    return TorchWork(MappingProxyType(ops), largest)


def test_work_below_an_eighth_of_the_largest_input_is_allowed():
    largest = 1 << 20
    assert torch_compute_violation(_work({"aten.add": largest // SIZE_DIVISOR - 1}, largest)) == ""


def test_work_summed_over_operators_that_reaches_an_eighth_is_a_violation():
    largest = 1 << 20
    share = largest // SIZE_DIVISOR // 2
    why = torch_compute_violation(_work({"aten.mul": share, "aten.add": share}, largest))
    assert why.startswith("runtime.torch_compute: torch's operators worked on 131072 elements")
    assert "aten.mul (65536)" in why and "aten.add (65536)" in why


def test_small_inputs_are_judged_against_the_floor():
    assert torch_compute_violation(_work({"aten.relu": MIN_ELEMENTS - 1}, 100)) == ""
    assert torch_compute_violation(_work({"aten.relu": MIN_ELEMENTS}, 100)) != ""


def test_the_message_names_the_four_largest_operators_first():
    ops = {f"aten.op{i}": 1000 * (i + 1) for i in range(6)}
    why = torch_compute_violation(_work(ops, 1000))
    named = why.split(": ", 2)[2].split("; ")[0]
    assert named == "aten.op5 (6000), aten.op4 (5000), aten.op3 (4000), aten.op2 (3000)"
