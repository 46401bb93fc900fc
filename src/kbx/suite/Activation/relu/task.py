"""ReLU, the rectified linear unit, applied elementwise.

    relu(x) = max(x, 0)

Mirrors `torch.relu(input)`. The output has the input's shape and dtype. ReLU only selects between x and 0, so
no rounding is involved and the contract is exact: every element must equal the reference bit for bit, except
that +0.0 and -0.0 compare equal (PyTorch returns -0.0 for a -0.0 input; returning +0.0 is accepted too).

Inputs are finite: a normal body straddling zero, a share of exact zeros and of -0.0, tiny values of both signs
(all normal numbers, no subnormals, so a flush-to-zero GPU path stays exact), and large outliers. NaN
propagation (`relu(nan) = nan` in PyTorch) is not exercised. Layouts are contiguous, transposed and strided.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "relu",
    "category": "Activation",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["relu", "clamp", "clamp_min", "clip", "threshold", "hardtanh", "leaky_relu", "prelu", "rrelu",
                  "maximum", "fmax", "max", "where", "masked_fill"],
    "contract": {"kind": "exact"},
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
    return torch.relu(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=-0.25)
    # Exact zeros, negative zeros and tiny values of both signs (|x| in [1e-4, 1e-3]: normal in fp16 and fp32).
    pick = inputs.uniform(p["shape"], 0.0, 1.0, "float32", generator)
    tiny = inputs.uniform(p["shape"], 1e-4, 1e-3, dtype, generator)
    tiny = torch.where(pick < 0.125, -tiny, tiny)
    x = torch.where(pick < 0.05, torch.zeros_like(x), x)
    x = torch.where((pick >= 0.05) & (pick < 0.10), torch.full_like(x, -0.0), x)
    x = torch.where((pick >= 0.10) & (pick < 0.15), tiny, x)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=3.0e4)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
