"""GELU, the Gaussian error linear unit, applied elementwise.

    gelu(x) = x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2)))                      (approximate='none')
    gelu(x) ~ 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))         (approximate='tanh')

Mirrors `torch.nn.functional.gelu(input, approximate='none')`. The output has the input's shape and dtype;
bf16 inputs are computed in fp32 and rounded once, as PyTorch does. Inputs mix a wide normal body with
outliers (where GELU saturates to x or to 0) and come in contiguous and non-contiguous layouts.
"""

import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "gelu",
    "category": "Activation",
    "level": 1,
    "signature": "(input, approximate='none')",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["gelu", "erf", "erfc", "erfcx", "ndtr", "tanh", "sigmoid"],
    "contract": {
        "kind": "allclose",
        "insensitive": {
            "workloads": ["check_tail"],
            "reason": (
                "PyTorch's exact gelu, 0.5 x (1 + erf(x / sqrt(2))), cancels for x below about -4: there the "
                "reference misses the smallest outputs by tens of percent, and a kernel that computes the same "
                "formula must pass"
            ),
        },
    },
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "approximate": "none"}},
        {"name": "smoke_tanh", "role": "smoke", "params": {"shape": [1000], "approximate": "tanh"}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097], "approximate": "none"}},
        {"name": "check_2d_t", "role": "check",
         "params": {"shape": [129, 127], "approximate": "none", "layout": "transposed"}},
        {"name": "check_tanh_3d", "role": "check",
         "params": {"shape": [3, 33, 65], "approximate": "tanh", "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [16384, 16384], "approximate": "none"}},
        {"name": "bench_tanh", "role": "bench", "params": {"shape": [16384, 16384], "approximate": "tanh"}},
    ],
}


def reference(input, approximate="none"):
    return F.gelu(input, approximate=approximate)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=3.0, offset=0.25)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=12.0)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "approximate": p["approximate"]}
