"""The natural logarithm, applied elementwise.

    log(x) = ln(x);  log(0) = -inf, log(-0) = -inf, log(+inf) = +inf, log(x < 0) = NaN, log(NaN) = NaN

Mirrors `torch.log(input)`. The output has the input's shape and dtype; fp16 inputs are computed in fp32 and rounded
once, as PyTorch does.

Inputs are mostly positive values spread log-uniformly over the dtype's whole range (from the smallest normal number
to the largest in fp32, from the smallest subnormal in fp16, which fp32 arithmetic holds as a normal number), so the
result spans about -87 to 89 and the exponent handling is exercised in every binade; a share close to 1 (|x - 1| <
1e-2, where the result is small); a normal-distributed body; and exact zeros, negative zeros, +inf, negative numbers
and NaN. fp32 subnormal inputs are left out on purpose: a GPU's fast logarithm may flush them to zero, a property of
the instruction rather than a kernel bug. Layouts are contiguous, transposed and strided.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "log",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["log", "log2", "log10", "log1p", "xlogy", "logit", "log_softmax", "logsumexp", "logaddexp",
                  "logaddexp2"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.log(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dt = inputs.torch_dtype(dtype)
    info = torch.finfo(dt)
    smallest = info.tiny * info.eps if dtype == "float16" else info.tiny
    low, high = math.log10(smallest), math.log10(info.max) - 0.01
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = (10.0 ** inputs.uniform(shape, low, high, "float32", generator)).to(dt)
    x = mix(x, pick, [
        (0.0, 0.15, lambda: inputs.uniform(shape, 0.99, 1.01, dtype, generator)),
        (0.15, 0.35, lambda: inputs.randn(shape, dtype, generator, scale=2.0, offset=3.0).abs()),
    ])
    x = with_specials(x, pick, [0.0, -0.0, float("inf"), -2.5, float("nan")], share=4e-3)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}


def mix(x, pick, parts):
    """x with the elements whose `pick` lies in [low, high) replaced by make(), for each (low, high, make) in turn.

    Only one part's values are alive at a time, which keeps bench-sized inputs light on memory.
    """
    for low, high, make in parts:
        x = torch.where((pick >= low) & (pick < high), make(), x)
    return x


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
