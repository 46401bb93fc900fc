"""ELU, the exponential linear unit, applied elementwise.

    elu(x) = x                         if x > 0
           = alpha * (exp(x) - 1)      otherwise

Mirrors `torch.nn.functional.elu(input, alpha=1.0)` (out of place). The output has the input's shape and dtype;
bf16 inputs are computed in fp32 and rounded once, as PyTorch does. The negative branch saturates to -alpha for
x << 0 and behaves like alpha * x near 0, where exp(x) - 1 cancels (PyTorch evaluates it with expm1).

Workloads call it with the default alpha (the argument left out) and with alpha = 0.5, 2.0 and -0.5 (F.elu
accepts a negative alpha: the negative branch is then positive, so max(0, x) + min(0, alpha * (exp(x) - 1))
is a different function). Inputs mix a
normal body around 0, a share of tiny values (|x| < 1e-3), a uniform spread over [-30, 10] and outliers at +-200
(exp underflows to 0 below about -103), in contiguous, transposed and strided (non-contiguous) layouts.

The contract adds an absolute allowance of 16 u_acc to the truth rule (`absolute`): written from its definition,
alpha (exp(x) - 1) loses about u_acc where PyTorch calls expm1, and such a kernel is honest (docs/evaluation.md,
"Textbook formulas").
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "elu",
    "category": "Activation",
    "level": 1,
    "signature": "(input, alpha=1.0)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["elu", "celu", "selu", "exp", "expm1", "exp2", "relu", "leaky_relu", "prelu", "rrelu", "softplus",
                  "clamp", "clamp_min", "clamp_max", "clip", "maximum", "minimum", "where", "masked_fill"],
    "contract": {"kind": "allclose",
                 "absolute": {"units": 16,
                              "reason": ("alpha * (exp(x) - 1), the definition, loses about alpha u_acc near 0, where "
                                         "PyTorch calls expm1")}},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "smoke_alpha", "role": "smoke", "params": {"shape": [1000], "alpha": 0.5}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_neg_alpha", "role": "check", "params": {"shape": [1025], "alpha": -0.5}},
        {"name": "check_2d_t", "role": "check",
         "params": {"shape": [129, 127], "alpha": 2.0, "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "alpha": 0.5, "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768]}},
    ],
}


def reference(input, alpha=1.0):
    return torch.nn.functional.elu(input, alpha)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=-0.5)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    tiny = inputs.uniform(shape, -1e-3, 1e-3, "float32", generator)
    wide = inputs.uniform(shape, -30.0, 10.0, "float32", generator)
    x = torch.where(pick < 0.1, tiny, x)
    x = torch.where((pick >= 0.1) & (pick < 0.25), wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=200.0).to(inputs.torch_dtype(dtype))
    kwargs = {"input": inputs.layout(x, p.get("layout", "contiguous"))}
    if "alpha" in p:  # otherwise the default applies
        kwargs["alpha"] = p["alpha"]
    return kwargs
