"""Elementwise subtraction with broadcasting and a scale on the second operand.

    sub(input, other, alpha) = input - alpha * other

Mirrors `torch.sub(input, other, alpha=alpha)`. `input` and `other` broadcast against each other by PyTorch's
rules (align trailing dims; a dim of size 1, or a missing leading dim, repeats), so the output has the broadcast
shape; its dtype is `torch.result_type(input, other)`, which here is always the input's dtype. `other` is a
tensor of the same dtype (possibly 0-d) or a Python float. In fp16 and bf16 PyTorch computes
`input - alpha * other` in fp32 and rounds once.

The workloads cover equal shapes, row broadcast, column broadcast, an outer difference where both operands
broadcast, a 0-d `other`, a 3-D `input` with a 1-D or middle-dim `other`, a Python number `other`, alpha of 0.5,
0.25 and -2, and transposed and strided (non-contiguous) operands. The operands have different offsets and
ranges, so swapping them, scaling the wrong one or adding instead of subtracting all fail.

The alphas are powers of two on purpose: `alpha * other` is then exact in fp16 and bf16. PyTorch's CPU kernel
rounds `alpha * other` to the dtype on some elements (the scalar tail of its vector loop) while its CUDA kernel
keeps it in fp32; with alpha = 3 the two differ by several ulps of the result where `input` and `alpha * other`
nearly cancel. With these alphas the reference is the same on both devices.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "sub",
    "category": "Math",
    "level": 1,
    "signature": "(input, other, alpha=1)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["sub", "subtract", "rsub", "isub", "add", "radd", "iadd", "addcmul", "addcdiv", "lerp", "sum",
                  "nansum", "diff"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_row_alpha", "role": "smoke",
         "params": {"shape": [8, 100], "other_shape": [100], "alpha": 0.5}},
        {"name": "check_same_2d", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_row", "role": "check",
         "params": {"shape": [127, 129], "other_shape": [1, 129], "alpha": 0.25}},
        {"name": "check_col", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 1]}},
        {"name": "check_outer", "role": "check",
         "params": {"shape": [65, 1], "other_shape": [1, 129], "alpha": -2.0}},
        {"name": "check_0d", "role": "check", "params": {"shape": [4097], "other_shape": []}},
        {"name": "check_3d_1d", "role": "check", "params": {"shape": [3, 33, 65], "other_shape": [65]}},
        {"name": "check_3d_mid", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 1], "alpha": 0.5}},
        {"name": "check_scalar", "role": "check",
         "params": {"shape": [33, 129], "other_scalar": 1.25, "alpha": -2.0}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "layout": "transposed",
                    "other_layout": "strided", "alpha": 0.5}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "layout": "strided",
                    "other_layout": "transposed"}},
        {"name": "bench_same", "role": "bench",
         "params": {"shape": [16384, 32768], "other_shape": [16384, 32768], "alpha": 0.5}},
        {"name": "bench_row", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [32768]}},
    ],
}


def reference(input, other, alpha=1):
    return torch.sub(input, other, alpha=alpha)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=40.0)
    x = inputs.layout(x, p.get("layout", "contiguous"))
    if "other_scalar" in p:
        other = p["other_scalar"]
    else:
        other = inputs.uniform(p["other_shape"], -1.0, 3.0, dtype, generator)
        other = inputs.layout(other, p.get("other_layout", "contiguous"))
    return {"input": x, "other": other, "alpha": p.get("alpha", 1)}


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Scalars, alpha and layouts stay.
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
