"""Hard tanh: the input clamped to [min_val, max_val], elementwise.

    hardtanh(x) = min_val   if x < min_val
                = max_val   if x > max_val
                = x         otherwise

Mirrors `torch.nn.functional.hardtanh(input, min_val=-1.0, max_val=1.0)` (out of place). The output has the
input's shape and dtype. Hardtanh only selects between x and the two bounds, and every bound used here is exactly
representable in fp16, so the contract is exact: every element must equal the reference bit for bit, except that
+0.0 and -0.0 compare equal.

Workloads call it with the default bounds (arguments left out) and with (-2.5, 0.5), (0, 6) (ReLU6) and
(-0.25, 2). Inputs are finite: a normal body, a share of values exactly at the bounds, and outliers at +-1e4, in
contiguous, transposed and strided (non-contiguous) layouts. NaN propagation is not exercised.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "hardtanh",
    "category": "Activation",
    "level": 1,
    "signature": "(input, min_val=-1.0, max_val=1.0)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["hardtanh", "relu6", "clamp", "clamp_min", "clamp_max", "clip", "threshold", "relu", "maximum",
                  "minimum", "fmax", "fmin", "max", "min", "where", "masked_fill", "masked_scatter"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "smoke_bounds", "role": "smoke", "params": {"shape": [1000], "min_val": -2.5, "max_val": 0.5}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d_t", "role": "check",
         "params": {"shape": [129, 127], "min_val": 0.0, "max_val": 6.0, "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "min_val": -0.25, "max_val": 2.0, "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768]}},
    ],
}


def reference(input, min_val=-1.0, max_val=1.0):
    return torch.nn.functional.hardtanh(input, min_val, max_val)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    low, high = p.get("min_val", -1.0), p.get("max_val", 1.0)
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=0.5 * (low + high))
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(pick < 0.03, torch.full_like(x, low), x)
    x = torch.where((pick >= 0.03) & (pick < 0.06), torch.full_like(x, high), x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=1.0e4).to(inputs.torch_dtype(dtype))
    kwargs = {"input": inputs.layout(x, p.get("layout", "contiguous"))}
    for name in ("min_val", "max_val"):  # otherwise the defaults apply
        if name in p:
            kwargs[name] = p[name]
    return kwargs
