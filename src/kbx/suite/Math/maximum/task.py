"""Elementwise maximum of two tensors, with broadcasting and NaN propagation.

    maximum(input, other) = NaN                   where input or other is NaN
                          = max(input, other)     elsewhere

Mirrors `torch.maximum(input, other)`. `input` and `other` are tensors of the same dtype that broadcast against
each other by PyTorch's rules; the output has the broadcast shape and that dtype. Unlike a plain comparison (and
unlike `torch.fmax`, or a GPU's default max instruction), a NaN in *either* operand makes the output NaN. The
result is always one of the two inputs, so the contract is exact (NaN matches NaN).

Inputs are normal values with outliers, about 3% NaN and 1% +-inf in each operand independently (so NaN meets
numbers, infinities and other NaNs from either side), and quantised to multiples of 1/8 so that equal values
(ties) are common. Workloads cover equal shapes, row, column and outer broadcasts, a 0-d `other`, a 3-D `input`
with a middle-dim `other`, and transposed and strided operands.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "maximum",
    "category": "Math",
    "level": 1,
    "signature": "(input, other)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["maximum", "max", "fmax", "amax", "clamp", "clip", "clamp_min", "clip_min", "where", "relu",
                  "threshold", "nanmax", "sort", "topk", "cummax"],
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
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "layout": "transposed",
                    "other_layout": "strided"}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "layout": "strided",
                    "other_layout": "transposed"}},
        {"name": "bench_same", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [16384, 32768]}},
        {"name": "bench_row", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [32768]}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [65537, 32768], "other_shape": [65537, 32768]}},
    ],
}


def reference(input, other):
    return torch.maximum(input, other)


def _values(shape, dtype, generator):
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=0.25)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=60.0)
    x = torch.round(x * 8) / 8
    u = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(u < 0.03, float("nan"), x)
    x = torch.where((u >= 0.03) & (u < 0.035), float("inf"), x)
    x = torch.where((u >= 0.035) & (u < 0.04), float("-inf"), x)
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
