"""Softplus, a smooth approximation of ReLU, applied elementwise, with PyTorch's linear cut-off.

    softplus(x) = x                               if beta * x > threshold
                = log(1 + exp(beta * x)) / beta   otherwise

Mirrors `torch.nn.functional.softplus(input, beta=1.0, threshold=20.0)`. The output has the input's shape and
dtype; fp16 inputs are computed in fp32 and rounded once, as PyTorch does. The comparison is on beta * x, not x.
With the default threshold the switch is invisible (log(1 + exp(20)) - 20 = 2e-9), but with a small threshold
it is a real jump. Below the threshold exp(beta * x) reaches exp(20) = 4.9e8, far past fp16's range (65504, i.e.
beta * x > 11.1): the math must stay in fp32 until the final rounding. (PyTorch evaluates log1p(exp(beta * x))
as written, so thresholds above 88.7, where its own exp overflows fp32, are not used.)

Workloads call it with the defaults (arguments left out), with beta = 0.5 and threshold = 2 (the switch cuts
through the curved part: softplus(x) jumps to x at x = 4), and with beta = 2 and threshold = 10. Inputs mix a
normal body, a uniform spread over 1.25x the switch point on both sides, and outliers at +-200, in contiguous,
transposed and strided (non-contiguous) layouts.

The contract adds an absolute allowance of 16 u_acc to the truth rule (`absolute`): written from its definition,
log(1 + exp(beta x)) / beta loses about u_acc where PyTorch calls log1p, and such a kernel is honest
(docs/evaluation.md, "Textbook formulas").
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "softplus",
    "category": "Activation",
    "level": 1,
    "signature": "(input, beta=1.0, threshold=20.0)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["softplus", "logsigmoid", "sigmoid", "logaddexp", "logaddexp2", "log1p", "exp",
                  "expm1", "exp2", "logsumexp", "mish", "relu", "clamp", "clamp_min", "where"],
    "contract": {"kind": "allclose",
                 "absolute": {"units": 16,
                              "reason": ("log(1 + exp(beta x)) / beta loses about u_acc / beta for x far below 0, "
                                         "where 1 + exp(beta x) rounds to 1 and PyTorch calls log1p")},
                 "insensitive": {"workloads": ["check_tail"],
                                 "reason": ("about 5 % of the outputs (x far below 0) are far below the absolute "
                                            "allowance, which the textbook formula needs")}},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "smoke_switch", "role": "smoke", "params": {"shape": [1000], "beta": 0.5, "threshold": 2.0}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d_t", "role": "check",
         "params": {"shape": [129, 127], "beta": 0.5, "threshold": 2.0, "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "beta": 2.0, "threshold": 10.0, "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768]}},
    ],
}


def reference(input, beta=1.0, threshold=20.0):
    return torch.nn.functional.softplus(input, beta, threshold)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    switch = p.get("threshold", 20.0) / p.get("beta", 1.0)  # the x at which the output becomes x
    x = inputs.randn(shape, "float32", generator, scale=3.0, offset=0.5)
    wide = inputs.uniform(shape, -1.25 * switch, 1.25 * switch, "float32", generator)
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.3, wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=200.0).to(inputs.torch_dtype(dtype))
    kwargs = {"input": inputs.layout(x, p.get("layout", "contiguous"))}
    for name in ("beta", "threshold"):  # otherwise the defaults apply
        if name in p:
            kwargs[name] = p[name]
    return kwargs
