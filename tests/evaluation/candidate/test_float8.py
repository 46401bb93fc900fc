"""fp8 casts under the CPU interpreter: rounded to nearest even and saturated, as a GPU's `cvt.rn.satfinite`."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from kbx.evaluation.candidate.float8 import from_fp8_bits, to_fp8_bits

FORMATS = [("fp8e4nv", torch.float8_e4m3fn, 448.0), ("fp8e5", torch.float8_e5m2, 57344.0)]


@pytest.mark.parametrize(("name", "dtype", "largest"), FORMATS)
def test_every_fp16_value_in_range_is_rounded_as_torch_rounds_it(name, dtype, largest):
    """fp16 holds every fp8 value and every midpoint between two of them, subnormals included: ties and all."""
    values = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16).view(torch.float16).float()
    values = values[values.isfinite() & (values.abs() <= largest)]
    expected = values.to(dtype).view(torch.uint8).numpy()
    assert np.array_equal(to_fp8_bits(values.numpy(), name), expected)


@pytest.mark.parametrize(("name", "dtype", "largest"), FORMATS)
def test_random_fp32_values_are_rounded_as_torch_rounds_them(name, dtype, largest):
    g = torch.Generator().manual_seed(0)
    values = (torch.randn(100_000, generator=g) * 2.0 ** torch.randint(-20, 16, (100_000,), generator=g)).float()
    values = values.clamp(-largest, largest)
    assert np.array_equal(to_fp8_bits(values.numpy(), name), values.to(dtype).view(torch.uint8).numpy())


@pytest.mark.parametrize(("name", "dtype", "largest"), FORMATS)
def test_values_past_the_largest_saturate_and_nan_stays_nan(name, dtype, largest):
    values = np.array([largest * 1.5, np.inf, -np.inf, -1e30, np.nan], dtype=np.float32)
    back = torch.from_numpy(to_fp8_bits(values, name)).view(dtype).float().tolist()
    assert back[:4] == [largest, largest, -largest, -largest] and np.isnan(back[4])


def test_ties_go_to_the_even_neighbour_and_zero_keeps_its_sign():
    values = np.array([1.0625, 17.0, 3 * 2.0**-10, -0.0], dtype=np.float32)  # e4m3: 1 | 1.125, 16 | 18, 2^-9 | 2^-8
    assert torch.from_numpy(to_fp8_bits(values, "fp8e4nv")).view(torch.float8_e4m3fn).float().tolist() == [
        1.0, 16.0, 2.0**-8, -0.0]
    assert to_fp8_bits(np.array([-0.0], dtype=np.float32), "fp8e4nv")[0] == 0x80


@pytest.mark.parametrize(("name", "dtype", "largest"), FORMATS)
def test_every_code_decodes_as_torch_decodes_it(name, dtype, largest):
    """The interpreter read e4m3's NaN code as 480 and e5m2's inf and NaN codes as finite numbers."""
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    expected = codes.view(dtype).double().numpy()
    assert np.array_equal(from_fp8_bits(codes.numpy(), name), expected, equal_nan=True)
