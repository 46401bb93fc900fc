"""Hard swish, the piecewise-polynomial SiLU of MobileNetV3, applied elementwise.

    hardswish(x) = x * relu6(x + 3) / 6 = 0                  if x <= -3
                                        = x                  if x >= 3
                                        = x * (x + 3) / 6    otherwise

Mirrors `torch.nn.functional.hardswish(input)`. The output has the input's shape and dtype; fp16 inputs are
computed in fp32 and rounded once. Inputs cover all three pieces and both kinks: a normal body spread over
[-6, 6], exact values -3, 0 and 3, and outliers at +-1000, in contiguous, transposed and strided
(non-contiguous) layouts.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "hardswish",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["hardswish", "hardsigmoid", "relu6", "relu", "hardtanh", "clamp", "clamp_min", "clamp_max",
                  "clip", "threshold", "maximum", "minimum", "fmax", "fmin", "where", "masked_fill", "silu"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.nn.functional.hardswish(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=3.0, offset=0.25)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    for k, value in enumerate((-3.0, 0.0, 3.0)):  # the kinks and the zero, 2% each
        x = torch.where((pick >= 0.02 * k) & (pick < 0.02 * (k + 1)), torch.full_like(x, value), x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=1000.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
