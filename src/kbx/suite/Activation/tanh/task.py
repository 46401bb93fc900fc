"""The hyperbolic tangent, applied elementwise.

    tanh(x) = (exp(x) - exp(-x)) / (exp(x) + exp(-x)) = 2 * sigmoid(2x) - 1

Mirrors `torch.tanh(input)` (also `torch.nn.functional.tanh`). The output has the input's shape and dtype; bf16
inputs are computed in fp32 and rounded once, as PyTorch does. tanh is odd, behaves like x near 0 and saturates
to +-1 (exactly, in fp32, beyond |x| ~ 9). The textbook quotient overflows: exp(+-x) is inf for |x| > 88.7 and
inf / inf is NaN, so a kernel must use a form that saturates cleanly.

Inputs mix a normal body (where tanh bends), a share of values near 0 (|x| < 1e-3, where 1 - exp(-2|x|) cancels),
a uniform spread over [-20, 20] and outliers at +-100 (past exp's fp32 overflow), in contiguous, transposed and
strided (non-contiguous) layouts.

The contract adds an absolute allowance of 16 u_acc to the truth rule (`absolute`): written from its definition, 1 -
2 / (1 + exp(2x)) loses about u_acc where PyTorch calls an accurate tanh, and such a kernel is honest
(docs/evaluation.md, "Textbook formulas").
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "tanh",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["tanh", "atanh", "sigmoid", "expit", "silu", "logsigmoid", "exp", "expm1", "exp2", "sinh",
                  "cosh", "softmax", "hardtanh", "mish", "glu"],
    "contract": {"kind": "allclose",
                 "absolute": {"units": 16,
                              "reason": ("1 - 2 / (1 + exp(2x)) and its kin lose a few u_acc near 0, where PyTorch "
                                         "calls an accurate tanh")}},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.tanh(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=1.5, offset=0.1)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    near_zero = inputs.uniform(shape, -1e-3, 1e-3, "float32", generator)
    wide = inputs.uniform(shape, -20.0, 20.0, "float32", generator)
    x = torch.where(pick < 0.1, near_zero, x)
    x = torch.where((pick >= 0.1) & (pick < 0.25), wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=100.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
