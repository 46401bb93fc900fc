"""Leaky ReLU, applied elementwise.

    leaky_relu(x) = x                      if x > 0
                  = negative_slope * x     otherwise

Mirrors `torch.nn.functional.leaky_relu(input, negative_slope=0.01)` (out of place). The output has the input's
shape and dtype; fp16 inputs are multiplied in fp32 and rounded once, as PyTorch does. Workloads call it both
with the default slope (the argument left out) and with explicit slopes, including one above 1, so a kernel
with another slope written in (TensorFlow's 0.2, or 0.01 whatever the caller passes) fails.

Inputs straddle zero (a normal body, exact zeros, tiny values of both signs) with large outliers, in contiguous,
transposed and strided (non-contiguous) layouts. `bench_over_2_31` (65537 x 32768: 2^31 + 32768 elements) is where
offsets computed in 32 bits overflow; it runs on GPUs with 139 GiB or more (`min_gpu_gib`).
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "leaky_relu",
    "category": "Activation",
    "level": 1,
    "signature": "(input, negative_slope=0.01)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["leaky_relu", "relu", "prelu", "rrelu", "elu", "celu", "clamp", "clamp_min", "clamp_max", "clip",
                  "threshold", "hardtanh", "maximum", "minimum", "fmax", "fmin", "max", "min", "where",
                  "masked_fill", "masked_scatter", "heaviside", "signbit"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "smoke_slope", "role": "smoke", "params": {"shape": [1000], "negative_slope": 0.2}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d_t", "role": "check",
         "params": {"shape": [129, 127], "negative_slope": 0.2, "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check", "params": {"shape": [3, 33, 65], "layout": "strided"}},
        {"name": "check_steep", "role": "check", "params": {"shape": [65, 67], "negative_slope": 1.5}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768]}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [65537, 32768]}},
    ],
}


def reference(input, negative_slope=0.01):
    return torch.nn.functional.leaky_relu(input, negative_slope)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=3.0, offset=-0.5)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    tiny = inputs.uniform(shape, -1e-3, 1e-3, "float32", generator)
    x = torch.where(pick < 0.05, torch.zeros_like(x), x)
    x = torch.where((pick >= 0.05) & (pick < 0.15), tiny, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=3.0e4).to(inputs.torch_dtype(dtype))
    kwargs = {"input": inputs.layout(x, p.get("layout", "contiguous"))}
    if "negative_slope" in p:  # otherwise the default applies
        kwargs["negative_slope"] = p["negative_slope"]
    return kwargs
