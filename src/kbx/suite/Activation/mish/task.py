"""Mish, a self-regularized non-monotonic activation, applied elementwise.

    mish(x) = x * tanh(softplus(x)) = x * tanh(log(1 + exp(x)))

Mirrors `torch.nn.functional.mish(input)`. The output has the input's shape and dtype; bf16 inputs are computed
in fp32 and rounded once, as PyTorch does. Mish dips to about -0.309 at x ~ -1.19, tends to x for large x and to
x * exp(x) (a tiny negative number) for x << 0. Both ends are numerically delicate: exp(x) overflows fp32 above
88.7 (and exp(2 * softplus(x)), which a tanh written from exponentials needs, above 44), and
tanh(softplus(x)) ~ exp(x) cancels in 1 - exp(-2 softplus(x)) for x << 0.

Inputs mix a normal body around the dip, a uniform spread over [-30, 30] and outliers at +-100 (past both
overflows), in contiguous, transposed and strided (non-contiguous) layouts.

The contract adds an absolute allowance of 64 u_acc to the truth rule (`absolute`): written from its definition, x
tanh(log(1 + exp(x))) loses about u_acc where PyTorch calls log1p, and such a kernel is honest (docs/evaluation.md,
"Textbook formulas").
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "mish",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["mish", "softplus", "tanh", "sigmoid", "expit", "silu", "logsigmoid", "log1p", "exp", "expm1",
                  "exp2", "logaddexp"],
    "contract": {"kind": "allclose",
                 "absolute": {"units": 64,
                              "reason": ("x * tanh(log(1 + exp(x))) loses up to about 17 u_acc for x below -10, where "
                                         "1 + exp(x) rounds to 1 and PyTorch calls log1p")},
                 "insensitive": {"workloads": ["check_tail", "check_2d_t", "check_3d_strided"],
                                 "reason": ("about 5 % of the outputs (x far below 0) are far below the absolute "
                                            "allowance, which the textbook formula needs")}},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.nn.functional.mish(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=2.5, offset=-0.5)
    wide = inputs.uniform(shape, -30.0, 30.0, "float32", generator)
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.2, wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=100.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
