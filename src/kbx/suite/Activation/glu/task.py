"""GLU, the gated linear unit: one half of the input gated by the sigmoid of the other half.

    a, b = input.chunk(2, dim)           (first half, second half along `dim`)
    glu(input, dim) = a * sigmoid(b)

Mirrors `torch.nn.functional.glu(input, dim=-1)`. The size of `dim` must be even; the output has the input's
shape with that size halved, and the input's dtype (fp16 and bf16 are computed in fp32 and rounded once). The
order matters: the first half is the value and the second half the gate.

Workloads split the last dimension (the default, also a long one of 2 x 4097) and the first, middle and
second-to-last dimensions (negative `dim` too), in contiguous, transposed and strided (non-contiguous) layouts.
Values are a normal body; the gate half also carries a uniform spread over [-30, 30] and outliers at +-100, where
the sigmoid saturates to 0 or 1 and exp(-b) overflows fp32.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "glu",
    "category": "Activation",
    "level": 1,
    "signature": "(input, dim=-1)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["glu", "sigmoid", "expit", "logsigmoid", "silu", "swish", "tanh", "exp", "expm1", "exp2",
                  "softmax", "softplus"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 128], "dim": -1}},
        {"name": "smoke_dim0", "role": "smoke", "params": {"shape": [10, 33], "dim": 0}},
        {"name": "check_last", "role": "check", "params": {"shape": [33, 258], "dim": -1}},
        {"name": "check_long", "role": "check", "params": {"shape": [3, 8194], "dim": 1}},
        {"name": "check_middle", "role": "check", "params": {"shape": [4, 258, 33], "dim": 1}},
        {"name": "check_dim0_t", "role": "check", "params": {"shape": [254, 129], "dim": 0, "layout": "transposed"}},
        {"name": "check_neg_strided", "role": "check",
         "params": {"shape": [3, 66, 65], "dim": -2, "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 32768], "dim": -1}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [32, 8192, 4096], "dim": 1}},
    ],
}


def reference(input, dim=-1):
    return torch.nn.functional.glu(input, dim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dim = p["dim"] % len(shape)
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=0.25)
    # The gate half (second half along dim) also gets saturating values.
    position = torch.arange(shape[dim], device=generator.device).view([-1] + [1] * (len(shape) - dim - 1))
    gate = position >= shape[dim] // 2
    wide = inputs.uniform(shape, -30.0, 30.0, "float32", generator)
    x = torch.where(gate & (inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.2), wide, x)
    x = torch.where(gate, inputs.with_outliers(x, generator, fraction=2e-2, magnitude=100.0), x)
    x = x.to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements), with the split dimension kept even: its half moves.
    p = workload.params
    dim = p["dim"] % len(p["shape"])
    half = [s // 2 if d == dim else s for d, s in enumerate(p["shape"])]
    moved = sizes.shape_near(rng, half)
    return {**p, "shape": [s * 2 if d == dim else s for d, s in enumerate(moved)]}
