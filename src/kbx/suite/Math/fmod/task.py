"""Elementwise C-style remainder of a division, with broadcasting: the result has the sign of the dividend.

    fmod(input, other) = input - trunc(input / other) * other         (exactly, without rounding the quotient)

Mirrors `torch.fmod(input, other)` (C's fmod / `%` on C integers). The result has the sign of `input` and a
magnitude below |other|: fmod(-7, 3) = -1 and fmod(7, -3) = 1. Compare `torch.remainder` (Python's %), which
takes the sign of the divisor: remainder(-7, 3) = 2. For floating inputs the result is exact (it is always
representable), so a kernel must not form it from a rounded quotient and a rounded product.

`input` and `other` broadcast by PyTorch's rules; the output has the broadcast shape and the task dtype. `other`
is a tensor of that dtype or a Python int. Both signs occur in both operands. float32 inputs are continuous values
with outliers, plus quarter-integers that are often exact multiples of the divisor (zero remainders); int32
inputs span the whole range with divisors both small and large. Divisors are never zero. Workloads cover equal
shapes, row, column and outer broadcasts, a 0-d and a Python-int divisor, a 3-D input, and transposed and strided
operands. The contract is exact: the true result is representable in every case.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "fmod",
    "category": "Math",
    "level": 1,
    "signature": "(input, other)",
    "dtypes": ["float32", "int32"],
    "forbidden": ["fmod", "remainder", "div", "divide", "floor_divide", "true_divide", "trunc",
                  "fix", "floor", "mod", "rem"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_row", "role": "smoke", "params": {"shape": [8, 100], "other_shape": [100]}},
        {"name": "check_same_2d", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_row", "role": "check", "params": {"shape": [127, 129], "other_shape": [1, 129]}},
        {"name": "check_col", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 1]}},
        {"name": "check_outer", "role": "check", "params": {"shape": [65, 1], "other_shape": [1, 129]}},
        {"name": "check_0d", "role": "check", "params": {"shape": [4097], "other_shape": []}},
        {"name": "check_3d_mid", "role": "check", "params": {"shape": [3, 33, 65], "other_shape": [33, 1]}},
        {"name": "check_scalar", "role": "check", "params": {"shape": [33, 129], "other_scalar": -3}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "layout": "transposed",
                    "other_layout": "strided"}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "layout": "strided",
                    "other_layout": "transposed"}},
        {"name": "bench_same", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [16384, 32768]}},
        {"name": "bench_row", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [32768]}},
    ],
}


def reference(input, other):
    return torch.fmod(input, other)


def _pick(shape, generator, p):
    return inputs.uniform(shape, 0.0, 1.0, "float32", generator) < p


def _dividend(shape, dtype, generator):
    if dtype == "int32":
        return inputs.randint(-(2**31) + 1, 2**31, shape, generator).to(torch.int32)
    x = inputs.randn(shape, "float32", generator, scale=20.0, offset=1.0)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=1000.0)
    # Half the elements are quarter-integers in [-16, 16): often exact multiples of a grid divisor.
    grid = torch.floor(inputs.uniform(shape, -64.0, 64.0, "float32", generator)) / 4
    return torch.where(_pick(shape, generator, 0.5), grid, x).to(inputs.torch_dtype(dtype))


def _divisor(shape, dtype, generator):
    sign = torch.where(_pick(shape, generator, 0.5), -1, 1)
    if dtype == "int32":
        small = inputs.randint(1, 10, shape, generator)
        large = inputs.randint(1, 2**31, shape, generator)
        return (sign * torch.where(_pick(shape, generator, 0.5), small, large)).to(torch.int32)
    continuous = inputs.uniform(shape, 0.5, 4.0, "float32", generator)
    choices = torch.tensor([0.25, 0.75, 0.875, 1.5, 2.0, 3.5], device=generator.device)
    grid = choices[inputs.randint(0, len(choices), shape, generator)]
    return (sign * torch.where(_pick(shape, generator, 0.5), grid, continuous)).to(inputs.torch_dtype(dtype))


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.layout(_dividend(p["shape"], dtype, generator), p.get("layout", "contiguous"))
    if "other_scalar" in p:
        other = p["other_scalar"]
    else:
        other = inputs.layout(_divisor(p["other_shape"], dtype, generator), p.get("other_layout", "contiguous"))
    return {"input": x, "other": other}


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Scalars and layouts stay.
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
