"""The Gauss error function, applied elementwise.

    erf(x) = 2 / sqrt(pi) * integral from 0 to x of exp(-t^2) dt

Mirrors `torch.erf(input)`. The output has the input's shape and dtype; bf16 and fp16 inputs are computed in
fp32 and rounded once, as PyTorch does. erf is odd (erf(-x) = -erf(x)), behaves like 2x/sqrt(pi) near 0 and
saturates to +-1 for |x| above about 4 (exactly +-1.0 in fp32 beyond about 3.9).

Inputs mix a normal body (where erf bends and an approximation's error is largest), a share of values near 0
(|x| < 1e-2), a uniform spread over [-6, 6] and outliers at +-10, in contiguous and non-contiguous layouts. The
fp32 tolerance (1e-5 absolute and relative) accepts a few-ulp erf such as libdevice's erff but not low-order
textbook approximations.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "erf",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16", "float16"],
    "forbidden": ["erf", "erfc", "erfcx", "ndtr", "log_ndtr", "gelu"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d_t", "role": "check", "params": {"shape": [129, 127], "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check", "params": {"shape": [3, 33, 65], "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [16384, 32768]}},
    ],
}


def reference(input):
    return torch.erf(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, dtype, generator, scale=1.5, offset=0.1)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    near_zero = inputs.uniform(shape, -1e-2, 1e-2, dtype, generator)
    wide = inputs.uniform(shape, -6.0, 6.0, dtype, generator)
    x = torch.where(pick < 0.1, near_zero, x)
    x = torch.where((pick >= 0.1) & (pick < 0.25), wide, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=10.0)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
