"""Elementwise Euclidean norm of two tensors, sqrt(input^2 + other^2), without intermediate overflow.

    hypot(input, other) = sqrt(input**2 + other**2)       (evaluated so that no intermediate overflows)

Mirrors `torch.hypot(input, other)` (C's hypot). The result is finite whenever it is representable, even when the
squares are not: hypot(3e30, 4e30) = 5e30 although 3e30**2 overflows fp32 (and bf16, which has fp32's range).
hypot(+-inf, y) = inf. The output has the broadcast shape and the inputs' dtype; bf16 is computed in fp32 and
rounded once.

Half of the values have ordinary magnitudes, the other half magnitudes spread log-uniformly from 1e-30 to 3e37
(their squares underflow or overflow fp32), with random signs, 10% exact zeros (so both operands are zero at
about 1% of positions) and 1% infinities. Workloads cover equal shapes, row, column and outer broadcasts, a 0-d
operand, a 3-D input, and transposed and strided operands. Default tolerances: the solution's worst error is a
couple of fp32 ulps.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "hypot",
    "category": "Math",
    "level": 1,
    "signature": "(input, other)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["hypot", "norm", "vector_norm", "linalg_norm", "dist", "cdist", "sqrt", "square", "polar",
                  "complex", "view_as_complex"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_row", "role": "smoke", "params": {"shape": [8, 100], "other_shape": [100]}},
        {"name": "check_same_2d", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_row", "role": "check", "params": {"shape": [127, 129], "other_shape": [1, 129]}},
        {"name": "check_col", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 1]}},
        {"name": "check_outer", "role": "check", "params": {"shape": [65, 1], "other_shape": [1, 129]}},
        {"name": "check_0d", "role": "check", "params": {"shape": [4097], "other_shape": []}},
        {"name": "check_3d_mid", "role": "check", "params": {"shape": [3, 33, 65], "other_shape": [33, 1]}},
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
    return torch.hypot(input, other)


def _values(shape, dtype, generator):
    ordinary = inputs.randn(shape, "float32", generator, scale=3.0)
    wide = torch.pow(10.0, inputs.uniform(shape, -30.0, 37.5, "float32", generator))
    sign = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)
    u = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(u < 0.5, ordinary, sign * wide)
    x = torch.where((u >= 0.5) & (u < 0.6), 0.0, x)
    x = torch.where((u >= 0.6) & (u < 0.61), sign * float("inf"), x)
    return x.to(inputs.torch_dtype(dtype))


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.layout(_values(p["shape"], dtype, generator), p.get("layout", "contiguous"))
    other = inputs.layout(_values(p["other_shape"], dtype, generator), p.get("other_layout", "contiguous"))
    return {"input": x, "other": other}


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Layouts stay.
    p = workload.params
    shape, other = p["shape"], p["other_shape"]
    rank = max(len(shape), len(other))
    out = [max(a, b) for a, b in zip([1] * (rank - len(shape)) + shape, [1] * (rank - len(other)) + other)]
    moved = sizes.shape_near(rng, out)

    def fit(operand):
        return [1 if n == 1 else m for n, m in zip(operand, moved[rank - len(operand):])]

    return {**p, "shape": fit(shape), "other_shape": fit(other)}
