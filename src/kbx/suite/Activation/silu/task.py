"""SiLU (also called swish), the sigmoid-weighted linear unit, applied elementwise.

    silu(x) = x * sigmoid(x) = x / (1 + exp(-x))

Mirrors `torch.nn.functional.silu(input)`. The output has the input's shape and dtype; bf16 inputs are computed
in fp32 and rounded once, as PyTorch does. SiLU dips to its minimum (about -0.278 at x ~ -1.28) and saturates to
x for large positive x and to -0 for large negative x, where exp(-x) overflows fp32 (x < -88.7): a kernel must
let 1 + exp(-x) become +inf and the quotient 0, not produce NaN.

Inputs mix a normal body around the dip, a uniform spread over [-30, 30] (both saturation regions) and outliers
at +-100 (past exp's fp32 overflow), in contiguous, transposed and strided (non-contiguous) layouts.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "silu",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["silu", "swish", "sigmoid", "expit", "logsigmoid", "tanh", "exp", "expm1", "exp2", "softplus",
                  "mish", "glu"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.nn.functional.silu(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=2.5, offset=-0.5)
    wide = inputs.uniform(shape, -30.0, 30.0, "float32", generator)
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.15, wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=100.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
