"""SELU, the scaled exponential linear unit of self-normalizing networks, applied elementwise.

    selu(x) = scale * x                       if x > 0
            = scale * alpha * (exp(x) - 1)    otherwise

    alpha = 1.6732632423543772848170429916717,  scale = 1.0507009873554804934193349852946

Mirrors `torch.nn.functional.selu(input)` (out of place). The output has the input's shape and dtype; fp16
inputs are computed in fp32 and rounded once, as PyTorch does. The constants are fixed by the derivation (the
fixed point of mean 0 and variance 1), and the fp32 tolerance (1e-5 relative) rejects them truncated to two or
three decimals. The negative branch saturates to -scale * alpha ~ -1.7581 for x << 0 and behaves like
scale * alpha * x near 0, where exp(x) - 1 cancels.

Inputs mix a normal body around 0, a share of tiny values (|x| < 1e-3), a uniform spread over [-30, 10] and
outliers at +-200 (exp underflows to 0 below about -103), in contiguous, transposed and strided (non-contiguous)
layouts.

The contract adds an absolute allowance of 16 u_acc to the truth rule (`absolute`): written from its definition,
scale alpha (exp(x) - 1) loses about u_acc where PyTorch calls expm1, and such a kernel is honest
(docs/evaluation.md, "Textbook formulas").
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "selu",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["selu", "elu", "celu", "exp", "expm1", "exp2", "relu", "leaky_relu", "prelu", "rrelu", "softplus",
                  "clamp", "clamp_min", "clamp_max", "clip", "maximum", "minimum", "where", "masked_fill"],
    "contract": {"kind": "allclose",
                 "absolute": {"units": 16,
                              "reason": ("scale * alpha * (exp(x) - 1), the definition, loses about 2 u_acc near 0, "
                                         "where PyTorch calls expm1")}},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.nn.functional.selu(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=-0.25)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    tiny = inputs.uniform(shape, -1e-3, 1e-3, "float32", generator)
    wide = inputs.uniform(shape, -30.0, 10.0, "float32", generator)
    x = torch.where(pick < 0.1, tiny, x)
    x = torch.where((pick >= 0.1) & (pick < 0.25), wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=200.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
