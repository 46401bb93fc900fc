"""The float64 truth rule's constants and per-case numbers (`kbx.tasks.accuracy`); the trusted worker's use of them
on tensors is in tests/evaluation/trusted/test_against_truth.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from kbx.tasks import accuracy
from kbx.tasks.accuracy import RULE, UNIT_ROUNDOFF, allowance, rule_lines
from kbx.tasks.spec import FLOAT_EPS

FLOATS = ("float64", "float32", "float16", "bfloat16")


@pytest.mark.parametrize("dtype", FLOATS)
def test_the_dtype_constants_are_torchs(dtype):
    info = torch.finfo(getattr(torch, dtype))
    assert 2.0 ** -(accuracy.MANTISSA_BITS[dtype] - 1) == info.eps == FLOAT_EPS[dtype]
    assert UNIT_ROUNDOFF[dtype] == info.eps / 2
    assert 2.0 ** accuracy.MIN_EXPONENT[dtype] == info.tiny


def test_the_flush_floor_is_the_smallest_normal_float32_and_accumulation_dtypes_have_a_roundoff():
    assert torch.finfo(torch.float32).tiny == accuracy.FLUSH_FLOOR
    assert set(accuracy.ACCUMULATION_DTYPES) <= set(UNIT_ROUNDOFF)


def test_an_allowance_takes_the_outputs_roundoff_and_the_accumulations():
    a = allowance("float32", False, 1000, "bfloat16")
    assert (a.dtype, a.unit_roundoff, a.accumulation, a.length) == ("bfloat16", 2.0**-8, 2.0**-24, 1000.0)
    assert (a.mantissa_bits, a.min_exponent) == (8, -126)
    assert allowance("float64", False, 1, "float32").accumulation == 2.0**-53


def test_tf32_widens_a_float32_accumulation_to_tf32s_roundoff():
    assert allowance("float32", True, 1, "float32").accumulation == UNIT_ROUNDOFF["tfloat32"] == 2.0**-11


def test_an_accumulation_length_below_one_counts_as_one():
    assert allowance("float32", False, 0, "float32") == allowance("float32", False, 1, "float32")


def test_each_allowance_grows_with_the_square_root_of_the_length_by_the_rules_constants():
    short, long = allowance("float32", False, 1, "float16"), allowance("float32", False, 10_000, "float16")
    u = short.accumulation
    assert short.norm_floor == pytest.approx(2.0**-11 + u * (RULE.norm_arithmetic + RULE.norm_accumulation))
    assert long.norm_floor - short.norm_floor == pytest.approx(u * RULE.norm_accumulation * 99)
    assert long.element_relative - short.element_relative == pytest.approx(u * RULE.element_accumulation * 99)
    assert long.backward_delta - short.backward_delta == pytest.approx(u * RULE.backward_accumulation * 99)
    assert short.element_relative == pytest.approx(u * (RULE.element_arithmetic + RULE.element_accumulation))


def test_on_tensor_cores_the_perturbation_also_grows_linearly_for_16_bit_and_tf32_outputs_only():
    # A tensor core adds into its fp32 accumulator by truncation: errors of one sign add up, linearly in n (found
    # on the H200: an honest fp16 Triton matmul over K = 4097 went 1.34x past the square-root allowance).
    plain = allowance("float32", False, 4096, "float16")
    cores = allowance("float32", False, 4096, "float16", tensor_cores=True)
    assert cores.truncating and not plain.truncating
    widened = plain.accumulation * 4096 * RULE.backward_truncation
    assert cores.backward_delta - plain.backward_delta == pytest.approx(widened)
    assert (cores.norm_floor, cores.element_relative) == (plain.norm_floor, plain.element_relative)
    assert allowance("float32", False, 4096, "bfloat16", tensor_cores=True).truncating
    assert not allowance("float32", False, 4096, "float32", tensor_cores=True).truncating  # FMAs round to nearest
    assert allowance("float32", True, 4096, "float32", tensor_cores=True).truncating


def test_the_rule_in_words_says_where_tensor_cores_widen_the_perturbation():
    assert "tensor cores" not in "\n".join(rule_lines("float32", False, "K", ("float16",)))
    text = "\n".join(rule_lines("float32", False, "K", ("float16",), tensor_cores=True))
    assert f"+ {RULE.backward_truncation:g} * n for float16/bfloat16 outputs" in text
    assert "or TF32" in "\n".join(rule_lines("float32", True, "K", ("float32",), tensor_cores=True))


def test_a_rule_of_ones_own_changes_the_numbers():
    doubled = replace(RULE, norm_arithmetic=2 * RULE.norm_arithmetic, norm_accumulation=0.0)
    a = allowance("float32", False, 4096, "float32", doubled)
    assert a.norm_floor == pytest.approx(2.0**-24 + 2.0**-24 * 2 * RULE.norm_arithmetic)


def test_the_rule_in_words_names_the_length_parameter_the_dtypes_and_the_constants():
    lines = rule_lines("float32", True, "K", ("float32", "bfloat16", "int32"),
                       replace(RULE, norm_factor=8.0, yardstick_factor=3.0))
    text = "\n".join(lines)
    assert "exceeds 3 times the rest of the normwise bound" in text
    assert "accumulation dtype: float32 (tf32 products allowed); accumulation length n = the workload's `K`" in text
    assert "||out - truth||_2 <= 8 * ||ref - truth||_2" in text and "held within [1, 8]" in text
    assert f"u_acc = {2.0**-11:.3g}; u_out = {2.0**-24:.3g} (float32), {2.0**-8:.3g} (bfloat16)" in text
    assert "int32" not in text


def test_without_a_length_parameter_n_is_one_and_float64_accumulates_at_its_own_roundoff():
    text = "\n".join(rule_lines("float64", False, None, ("float32",)))
    assert "accumulation dtype: float64; accumulation length n = 1" in text
    assert f"u_acc = {2.0**-53:.3g};" in text


def test_the_rule_names_its_accumulation_length_in_words():
    assert "accumulation length n = 1" in "\n".join(rule_lines("float32", False, None, ("float32",)))
    assert "n = the workload's `K`" in "\n".join(rule_lines("float32", False, "K", ("float32",)))
    derived = "\n".join(rule_lines("float32", False, "shape/dim", ("float32",)))
    assert "n = the number of input elements reduced into each output" in derived
