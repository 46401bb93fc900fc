"""Elementwise closeness test of two tensors under relative and absolute tolerances, with broadcasting.

    isclose(input, other, rtol, atol, equal_nan)
        = input == other                                          (exact equality, which includes equal infinities)
          or |input - other| <= atol + rtol * |other|, with |input - other| finite
          or (equal_nan and both are NaN)

Mirrors `torch.isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)`. The test is asymmetric: the
relative tolerance scales with |other| only. Infinities are close only to an infinity of the same sign, NaN is
never close to anything unless `equal_nan` is set and both are NaN. The output is a bool tensor of the broadcast
shape; the contract is exact. PyTorch evaluates the error and the allowance as tensor operations in the input
dtype, so for bf16 each of |input - other|, rtol * |other| and the sum with atol is rounded to bf16.

Inputs are built around the boundary without touching it: the operand of full shape is derived from the other
one as `x + d` with d a random-signed multiple (0, 0.25, 4 or 30) of the allowance atol + rtol * |x|, so the
answer is clear-cut whatever rounding an implementation uses; a `ratio` workload (rtol = 0.5, atol = 0) uses
multiples x * r instead, where testing against |input| rather than |other| gives a different answer. NaN, equal
and opposite infinities and infinity against numbers appear in both operands; an outer-broadcast workload compares
values on a coarse grid, where equality is frequent. Workloads cover default and loose tolerances, rtol = atol = 0
(equality only), equal_nan, row, column, 0-d and outer broadcasts and transposed and strided operands.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "isclose",
    "category": "Math",
    "level": 1,
    "signature": "(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["isclose", "allclose", "eq", "equal", "ne", "le", "lt", "ge", "gt", "less_equal", "isfinite",
                  "isnan", "isinf", "sub", "subtract", "abs", "absolute", "where"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_row_nan", "role": "smoke",
         "params": {"shape": [8, 100], "other_shape": [100], "equal_nan": True}},
        {"name": "check_same_2d", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_row", "role": "check", "params": {"shape": [127, 129], "other_shape": [1, 129]}},
        {"name": "check_col", "role": "check", "params": {"shape": [129, 1], "other_shape": [129, 127]}},
        {"name": "check_outer", "role": "check",
         "params": {"shape": [65, 1], "other_shape": [1, 129], "rtol": 0.1, "atol": 0.25}},
        {"name": "check_0d", "role": "check", "params": {"shape": [4097], "other_shape": [], "equal_nan": True}},
        {"name": "check_loose", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "rtol": 0.01, "atol": 0.001}},
        {"name": "check_ratio", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "rtol": 0.5, "atol": 0.0}},
        {"name": "check_atol_only", "role": "check",
         "params": {"shape": [33, 129], "other_shape": [33, 129], "rtol": 0.0, "atol": 0.125}},
        {"name": "check_equality_only", "role": "check",
         "params": {"shape": [33, 129], "other_shape": [129], "rtol": 0.0, "atol": 0.0, "equal_nan": True}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "layout": "transposed",
                    "other_layout": "strided", "rtol": 0.01, "atol": 0.001, "equal_nan": True}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "layout": "strided",
                    "other_layout": "transposed"}},
        {"name": "bench_same", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [16384, 32768]}},
        {"name": "bench_row", "role": "bench",
         "params": {"shape": [16384, 32768], "other_shape": [32768], "rtol": 0.01, "atol": 0.001}},
    ],
}


def reference(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return torch.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _uniform(shape, generator):
    return inputs.uniform(shape, 0.0, 1.0, "float32", generator)


def _source(shape, generator, grid):
    """Base values with NaN (2%) and infinities of both signs (1% each), in fp32."""
    x = inputs.randn(shape, "float32", generator, scale=3.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=500.0)
    if grid:
        x = torch.round(x * 2) / 2
    u = _uniform(shape, generator)
    x = torch.where(u < 0.02, float("nan"), x)
    x = torch.where((u >= 0.02) & (u < 0.03), float("inf"), x)
    return torch.where((u >= 0.03) & (u < 0.04), float("-inf"), x)


def _derive(x, rtol, atol, generator, ratio):
    """x moved clearly inside or clearly outside the tolerance, then its own NaN and infinities."""
    shape = list(x.shape)
    pick = inputs.randint(0, 4, shape, generator)
    sign = torch.where(_uniform(shape, generator) < 0.5, -1.0, 1.0)
    if ratio:
        factors = torch.tensor([0.3, 0.7, 1.25, 1.8], device=generator.device)
        y = x * factors[pick]
    else:
        factors = torch.tensor([0.0, 0.25, 4.0, 30.0], device=generator.device)
        y = x + sign * factors[pick] * (atol + rtol * x.abs())
    u = _uniform(shape, generator)
    y = torch.where(u < 0.02, float("nan"), y)
    return torch.where((u >= 0.02) & (u < 0.04), sign * float("inf"), y)


def make_inputs(workload, dtype, generator):
    p = workload.params
    rtol, atol = p.get("rtol", 1e-05), p.get("atol", 1e-08)
    shape, other_shape = p["shape"], p["other_shape"]
    full = list(torch.broadcast_shapes(shape, other_shape))
    ratio = rtol == 0.5 and atol == 0.0
    if list(other_shape) == full:
        x = _source(shape, generator, grid=False)
        y = _derive(x.expand(full), rtol, atol, generator, ratio)
    elif list(shape) == full:
        y = _source(other_shape, generator, grid=False)
        x = _derive(y.expand(full), rtol, atol, generator, ratio)
    else:
        x = _source(shape, generator, grid=True)
        y = _source(other_shape, generator, grid=True)
    cast = inputs.torch_dtype(dtype)
    return {
        "input": inputs.layout(x.to(cast).contiguous(), p.get("layout", "contiguous")),
        "other": inputs.layout(y.to(cast).contiguous(), p.get("other_layout", "contiguous")),
        "rtol": rtol,
        "atol": atol,
        "equal_nan": p.get("equal_nan", False),
    }


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Tolerances, flags and layouts stay.
    p = workload.params
    shape, other = p["shape"], p["other_shape"]
    rank = max(len(shape), len(other))
    out = [max(a, b) for a, b in zip([1] * (rank - len(shape)) + shape, [1] * (rank - len(other)) + other)]
    moved = sizes.shape_near(rng, out)

    def fit(operand):
        return [1 if n == 1 else m for n, m in zip(operand, moved[rank - len(operand):])]

    return {**p, "shape": fit(shape), "other_shape": fit(other)}
