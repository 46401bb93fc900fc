"""Elementwise division with broadcasting and an optional rounding of the quotient.

    div(input, other, rounding_mode=None)    = input / other                  (true division)
    div(input, other, rounding_mode='trunc') = trunc(input / other)           (rounded toward zero, C-style)
    div(input, other, rounding_mode='floor') = floor(input / other)           (rounded down, Python's //)

Mirrors `torch.div(input, other, rounding_mode=rounding_mode)`. `input` and `other` broadcast by PyTorch's rules;
the output has the broadcast shape and the input's dtype (`other` is a tensor of the same dtype, possibly 0-d, or
a Python float). fp16/bf16 inputs are computed in fp32 and rounded once. 'trunc' and 'floor' agree for positive
quotients and differ by one for negative non-integer ones. For 'floor', PyTorch does not take floor() of the
rounded quotient: it computes `(input - fmod(input, other)) / other`, corrects it down by one where the remainder
and `other` have opposite signs, and rounds the result to the nearest integer, so that
`input == div(input, other, 'floor') * other + remainder(input, other)` holds even where the rounded quotient
would land exactly on an integer the true quotient does not reach.

Workloads run each rounding mode with broadcasting (row, column, outer, 0-d, middle dim of a 3-D input, a Python
number `other`) and transposed and strided operands. For 'trunc' and 'floor' most workloads use quarter-integer
inputs in [-16, 16) divided by divisors from {0.25, 0.4375, 0.75, 0.875, 0.9375, 1.5, 1.75, 3, 3.5} with random
signs: many quotients are exact integers (where an inexact step, such as multiplying by a rounded reciprocal,
falls to the integer below for the sevenths and fifteenths) and many are negative non-integers (where 'trunc' and
'floor' differ). One 'floor' workload uses continuous values. Divisors are never zero.

Why the values are bounded: in bf16 PyTorch rounds the intermediate quotient to bf16 before truncating (CPU and
CUDA) and its CUDA floor kernel rounds every intermediate step to bf16, so for a quotient such as 98.94 the
result depends on the device (99 or 98). With |quotient| <= 64 and every inexact grid quotient at least 1/15 from
an integer, rounding the quotient to bf16 never carries it across an integer, and the reference is the same
whether intermediates are rounded or kept in fp32 (the solution keeps fp32, the exact choice). The continuous
workload's values stay below 10 in magnitude for the same reason. fp32 results are exact.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "div",
    "category": "Math",
    "level": 1,
    "signature": "(input, other, rounding_mode=None)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["div", "divide", "true_divide", "floor_divide", "truediv", "floordiv", "rdiv", "idiv",
                  "rtruediv", "itruediv", "rfloordiv", "ifloordiv", "reciprocal", "remainder", "fmod", "addcdiv",
                  "trunc", "fix", "floor", "round"],
    "contract": {"kind": "allclose", "perturbed_truth": False},  # floor and trunc have steps
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_floor", "role": "smoke",
         "params": {"shape": [8, 100], "other_shape": [100], "rounding_mode": "floor"}},
        {"name": "smoke_trunc", "role": "smoke",
         "params": {"shape": [8, 100], "other_shape": [8, 1], "rounding_mode": "trunc"}},
        {"name": "check_same_2d", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_col", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 1]}},
        {"name": "check_scalar", "role": "check", "params": {"shape": [33, 129], "other_scalar": -0.75}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "layout": "transposed",
                    "other_layout": "strided"}},
        {"name": "check_trunc_row", "role": "check",
         "params": {"shape": [127, 129], "other_shape": [1, 129], "rounding_mode": "trunc"}},
        {"name": "check_trunc_outer", "role": "check",
         "params": {"shape": [65, 1], "other_shape": [1, 129], "rounding_mode": "trunc"}},
        {"name": "check_trunc_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "layout": "strided",
                    "other_layout": "transposed", "rounding_mode": "trunc"}},
        {"name": "check_floor_same", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "rounding_mode": "floor"}},
        {"name": "check_floor_mid", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 1], "rounding_mode": "floor"}},
        {"name": "check_floor_0d", "role": "check",
         "params": {"shape": [4097], "other_shape": [], "rounding_mode": "floor"}},
        {"name": "check_floor_scalar", "role": "check",
         "params": {"shape": [33, 129], "other_scalar": -1.75, "rounding_mode": "floor"}},
        {"name": "check_floor_continuous", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [127], "rounding_mode": "floor", "values": "continuous",
                    "layout": "transposed"}},
        {"name": "bench_same", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [16384, 32768]}},
        {"name": "bench_floor_row", "role": "bench",
         "params": {"shape": [16384, 32768], "other_shape": [32768], "rounding_mode": "floor"}},
    ],
}


def reference(input, other, rounding_mode=None):
    return torch.div(input, other, rounding_mode=rounding_mode)


def make_inputs(workload, dtype, generator):
    p = workload.params
    mode = p.get("rounding_mode")
    grid = mode is not None and p.get("values", "grid") == "grid"
    if grid:
        # Quarter integers in [-16, 16): exact in fp32 and bf16.
        x = torch.floor(inputs.uniform(p["shape"], -64.0, 64.0, "float32", generator)) / 4
        x = x.to(inputs.torch_dtype(dtype))
    else:
        x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
        # Outliers of 40 for true division; of 8 where a rounding mode keeps quotients small (see above).
        x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=40.0 if mode is None else 8.0)
    x = inputs.layout(x, p.get("layout", "contiguous"))
    if "other_scalar" in p:
        return {"input": x, "other": p["other_scalar"], "rounding_mode": mode}
    shape = p["other_shape"]
    sign = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)
    if grid:
        choices = torch.tensor([0.25, 0.4375, 0.75, 0.875, 0.9375, 1.5, 1.75, 3.0, 3.5], device=generator.device)
        magnitude = choices[inputs.randint(0, len(choices), shape, generator)]
    else:
        magnitude = inputs.uniform(shape, 0.25, 3.0, "float32", generator)
    other = (sign * magnitude).to(inputs.torch_dtype(dtype))
    other = inputs.layout(other, p.get("other_layout", "contiguous"))
    return {"input": x, "other": other, "rounding_mode": mode}


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Modes, value kinds, scalars and layouts stay.
    p = workload.params
    shape, other = p["shape"], p.get("other_shape", [])
    rank = max(len(shape), len(other))
    out = [max(a, b) for a, b in zip([1] * (rank - len(shape)) + shape, [1] * (rank - len(other)) + other)]
    moved = sizes.shape_near(rng, out)

    def fit(operand):
        return [1 if n == 1 else m for n, m in zip(operand, moved[rank - len(operand):])]

    result = {**p, "shape": fit(shape)}
    if "other_shape" in p:
        result["other_shape"] = fit(other)
    return result
