"""The logistic sigmoid, applied elementwise.

    sigmoid(x) = 1 / (1 + exp(-x))

Mirrors `torch.sigmoid(input)` (also `torch.nn.functional.sigmoid`). The output has the input's shape and dtype;
fp16 inputs are computed in fp32 and rounded once, as PyTorch does. Sigmoid saturates: it is within 1e-5 of 1
for x > 11.5 and underflows towards 0 for x << 0, where exp(-x) overflows fp32 (x < -88.7); a kernel must let
1 + exp(-x) become +inf and the quotient 0, not NaN, and must not clamp its argument early: sigmoid(10) is still
4.5e-5 away from 1, beyond the fp32 tolerance.

Inputs mix a normal body around 0, a uniform spread over [-30, 30] (both tails, where the output is close to 0
and to 1) and outliers at +-100, in contiguous, transposed and strided (non-contiguous) layouts.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "sigmoid",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["sigmoid", "expit", "logit", "logsigmoid", "silu", "swish", "tanh", "exp", "expm1", "exp2",
                  "softmax", "softplus", "glu"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.sigmoid(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=4.0, offset=0.5)
    wide = inputs.uniform(shape, -30.0, 30.0, "float32", generator)
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.2, wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=100.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
