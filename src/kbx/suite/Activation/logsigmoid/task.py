"""The log of the logistic sigmoid, applied elementwise.

    logsigmoid(x) = log(1 / (1 + exp(-x))) = -softplus(-x) = min(x, 0) - log(1 + exp(-|x|))

Mirrors `torch.nn.functional.logsigmoid(input)`. The output has the input's shape and dtype; fp16 inputs are
computed in fp32 and rounded once, as PyTorch does. logsigmoid tends to x for x << 0 and to -exp(-x) (a tiny
negative number) for x >> 0. Taking the log of a computed sigmoid fails in the negative tail: sigmoid(x)
underflows to 0 below x ~ -88.7 (fp32) and log(0) = -inf where logsigmoid(x) ~ x is finite.

Inputs mix a normal body, a uniform spread over [-30, 30] and outliers at +-100, in contiguous, transposed and
strided (non-contiguous) layouts.

The contract adds an absolute allowance of 16 u_acc to the truth rule (`absolute`): written from its definition,
min(x, 0) - log(1 + exp(-|x|)) loses about u_acc where PyTorch calls log1p, and such a kernel is honest
(docs/evaluation.md, "Textbook formulas").
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "logsigmoid",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["logsigmoid", "sigmoid", "expit", "softplus", "log1p", "logaddexp", "logaddexp2", "logsumexp",
                  "exp", "expm1", "exp2", "log_softmax", "silu", "tanh"],
    "contract": {"kind": "allclose",
                 "absolute": {"units": 16,
                              "reason": ("min(x, 0) - log(1 + exp(-|x|)) loses about u_acc for large |x|, where 1 + "
                                         "exp(-|x|) rounds to 1 and PyTorch calls log1p")},
                 "insensitive": {"workloads": ["check_tail", "check_2d_t", "check_3d_strided"],
                                 "reason": ("about 5 % of the outputs (large |x|) are far below the absolute "
                                            "allowance, which the textbook formula needs")}},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.nn.functional.logsigmoid(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=3.0, offset=0.5)
    wide = inputs.uniform(shape, -30.0, 30.0, "float32", generator)
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.2, wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=100.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
