"""Elementwise multiplication with broadcasting.

    mul(input, other) = input * other

Mirrors `torch.mul(input, other)`. `input` and `other` broadcast against each other by PyTorch's rules (align
trailing dims; a dim of size 1, or a missing leading dim, repeats), so the output has the broadcast shape; its
dtype is `torch.result_type(input, other)`, which here is always the input's dtype. `other` is a tensor of the
same dtype (possibly 0-d) or a Python float. In fp16 PyTorch multiplies in fp32 and rounds once (a Python
float `other` is used at fp32 precision, not rounded to fp16 first).

The workloads cover equal shapes, row broadcast (`other` of shape (1, N) and (N,)), column broadcast (M, 1), an
outer product where both operands broadcast, a 0-d `other`, a 3-D `input` with a middle-dim broadcast, a Python
number `other`, and transposed and strided (non-contiguous) operands. Values have an offset, negative numbers and
outliers, so a kernel that returns either operand, or reads the wrong element of a broadcast operand, fails.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "mul",
    "category": "Math",
    "level": 1,
    "signature": "(input, other)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["mul", "multiply", "rmul", "imul", "outer", "ger", "addcmul", "kron", "einsum", "mm",
                  "matmul", "prod", "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_row", "role": "smoke", "params": {"shape": [8, 100], "other_shape": [100]}},
        {"name": "check_same_2d", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_row", "role": "check", "params": {"shape": [127, 129], "other_shape": [1, 129]}},
        {"name": "check_row_1d", "role": "check", "params": {"shape": [129, 127], "other_shape": [127]}},
        {"name": "check_col", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 1]}},
        {"name": "check_outer", "role": "check", "params": {"shape": [65, 1], "other_shape": [1, 129]}},
        {"name": "check_0d", "role": "check", "params": {"shape": [4097], "other_shape": []}},
        {"name": "check_3d_mid", "role": "check", "params": {"shape": [3, 33, 65], "other_shape": [33, 1]}},
        {"name": "check_scalar", "role": "check", "params": {"shape": [33, 129], "other_scalar": -0.7}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "layout": "transposed",
                    "other_layout": "strided"}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "layout": "strided",
                    "other_layout": "transposed"}},
        {"name": "bench_same", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [16384, 32768]}},
        {"name": "bench_col", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [16384, 1]}},
    ],
}


def reference(input, other):
    return torch.mul(input, other)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=40.0)
    x = inputs.layout(x, p.get("layout", "contiguous"))
    if "other_scalar" in p:
        other = p["other_scalar"]
    else:
        other = inputs.uniform(p["other_shape"], -3.0, 1.5, dtype, generator)
        other = inputs.layout(other, p.get("other_layout", "contiguous"))
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
