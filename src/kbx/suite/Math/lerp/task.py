"""Linear interpolation between two tensors by a scalar or tensor weight, with broadcasting.

    lerp(input, end, weight) = input + weight * (end - input)

Mirrors `torch.lerp(input, end, weight)`. `weight` is a Python float or a tensor of the input's dtype; `input`,
`end` and a tensor `weight` broadcast together by PyTorch's rules, and the output has the broadcast shape and the
input's dtype. PyTorch evaluates the formula in the form that is exact at both ends: for |weight| < 0.5 as
`input + weight * (end - input)`, otherwise as `end - (end - input) * (1 - weight)`, so weight = 1 returns `end`
exactly; fp16/bf16 are computed in fp32 and rounded once.

Weights are drawn from [-0.25, 1.25] (extrapolation on both sides, and both forms of the formula), scalar weights
are 0.3, 0.75 and -0.5 and 1.5; `input` and `end` have different offsets and scales and some outliers. Workloads
broadcast `end` and `weight` as rows, columns and 0-d tensors, include a 3-D input, and transposed and strided
operands.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "lerp",
    "category": "Math",
    "level": 1,
    "signature": "(input, end, weight)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["lerp", "addcmul", "add", "sub", "subtract", "rsub", "mul", "multiply", "addcdiv", "where",
                  "baddbmm", "addmm"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "end_shape": [1000], "weight_scalar": 0.3}},
        {"name": "smoke_tensor", "role": "smoke",
         "params": {"shape": [8, 100], "end_shape": [8, 100], "weight_shape": [100]}},
        {"name": "check_same_tensor", "role": "check",
         "params": {"shape": [129, 127], "end_shape": [129, 127], "weight_shape": [129, 127]}},
        {"name": "check_scalar_high", "role": "check",
         "params": {"shape": [129, 127], "end_shape": [129, 127], "weight_scalar": 0.75}},
        {"name": "check_scalar_extrapolate", "role": "check",
         "params": {"shape": [4097], "end_shape": [4097], "weight_scalar": -0.5}},
        {"name": "check_scalar_beyond", "role": "check",
         "params": {"shape": [33, 129], "end_shape": [129], "weight_scalar": 1.5}},
        {"name": "check_weight_col", "role": "check",
         "params": {"shape": [129, 127], "end_shape": [129, 127], "weight_shape": [129, 1]}},
        {"name": "check_end_row_weight_col", "role": "check",
         "params": {"shape": [127, 129], "end_shape": [1, 129], "weight_shape": [127, 1]}},
        {"name": "check_weight_0d", "role": "check",
         "params": {"shape": [3, 33, 65], "end_shape": [33, 65], "weight_shape": []}},
        {"name": "check_outer", "role": "check",
         "params": {"shape": [65, 1], "end_shape": [1, 129], "weight_shape": [65, 129]}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "end_shape": [129, 127], "weight_shape": [129, 127],
                    "layout": "transposed", "end_layout": "strided", "weight_layout": "transposed"}},
        {"name": "check_noncontig_scalar", "role": "check",
         "params": {"shape": [3, 33, 65], "end_shape": [3, 33, 65], "weight_scalar": 0.75,
                    "layout": "strided", "end_layout": "transposed"}},
        {"name": "bench_tensor", "role": "bench",
         "params": {"shape": [16384, 16384], "end_shape": [16384, 16384], "weight_shape": [16384, 16384]}},
        {"name": "bench_scalar", "role": "bench",
         "params": {"shape": [16384, 32768], "end_shape": [16384, 32768], "weight_scalar": 0.75}},
    ],
}


def reference(input, end, weight):
    return torch.lerp(input, end, weight)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=-1.0)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=30.0)
    x = inputs.layout(x, p.get("layout", "contiguous"))
    end = inputs.randn(p["end_shape"], dtype, generator, scale=1.0, offset=3.0)
    end = inputs.layout(end, p.get("end_layout", "contiguous"))
    if "weight_scalar" in p:
        weight = p["weight_scalar"]
    else:
        weight = inputs.uniform(p["weight_shape"], -0.25, 1.25, dtype, generator)
        weight = inputs.layout(weight, p.get("weight_layout", "contiguous"))
    return {"input": x, "end": end, "weight": weight}


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Scalars and layouts stay.
    p = workload.params
    names = [k for k in ("shape", "end_shape", "weight_shape") if k in p]
    rank = max(len(p[k]) for k in names)
    padded = [[1] * (rank - len(p[k])) + p[k] for k in names]
    moved = sizes.shape_near(rng, [max(col) for col in zip(*padded)])
    result = dict(p)
    for k in names:
        result[k] = [1 if n == 1 else m for n, m in zip(p[k], moved[rank - len(p[k]):])]
    return result
