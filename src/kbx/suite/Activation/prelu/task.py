"""PReLU, the parametric ReLU: a leaky ReLU whose negative slope is a learned weight, one per channel or shared.

    prelu(x, weight)[n, c, ...] = x[n, c, ...]                if x[n, c, ...] > 0
                                = weight[c] * x[n, c, ...]    otherwise

Mirrors `torch.nn.functional.prelu(input, weight)`. `weight` is a 1-D tensor with either one element (shared by
every element) or C = input.shape[1] elements (one per channel, the channel being dimension 1, whatever the rank).
The output has the input's shape and dtype; bf16 products are rounded once.

Workloads use per-channel weights on 2-D (N, C) inputs (where the channel is also the last dimension), on 3-D and
4-D inputs (where it is not), and a single shared weight; layouts are contiguous, transposed and strided
(non-contiguous). Inputs straddle zero (a normal body, exact zeros, outliers at +-1000); per-channel weights are
spread over [-0.5, 1.5] (negative slopes and slopes above 1 included), so using the wrong channel's weight, or
one weight for all, shows.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "prelu",
    "category": "Activation",
    "level": 1,
    "signature": "(input, weight)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["prelu", "leaky_relu", "rrelu", "relu", "elu", "clamp", "clamp_min", "clamp_max", "clip",
                  "threshold", "maximum", "minimum", "fmax", "fmin", "where", "masked_fill", "masked_scatter",
                  "heaviside"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 3, 10, 17], "weight": "channel"}},
        {"name": "smoke_shared", "role": "smoke", "params": {"shape": [4, 5, 50], "weight": "shared"}},
        {"name": "check_2d", "role": "check", "params": {"shape": [129, 127], "weight": "channel"}},
        {"name": "check_4d_t", "role": "check",
         "params": {"shape": [2, 67, 9, 13], "weight": "channel", "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "weight": "channel", "layout": "strided"}},
        {"name": "check_shared", "role": "check", "params": {"shape": [5, 7, 129], "weight": "shared"}},
        {"name": "bench", "role": "bench", "params": {"shape": [96, 256, 128, 256], "weight": "channel"}},
    ],
}


def reference(input, weight):
    return torch.nn.functional.prelu(input, weight)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=-0.25)
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.05, torch.zeros_like(x), x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=1000.0).to(inputs.torch_dtype(dtype))
    if p["weight"] == "channel":
        weight = inputs.uniform([shape[1]], -0.5, 1.5, dtype, generator)
    else:
        weight = inputs.uniform([1], 0.1, 0.4, dtype, generator)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "weight": weight}
