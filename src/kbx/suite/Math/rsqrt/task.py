"""The reciprocal square root, applied elementwise.

    rsqrt(x) = 1 / sqrt(x);  rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(+inf) = 0, rsqrt(x < 0) = NaN

Mirrors `torch.rsqrt(input)`. The output has the input's shape and dtype; fp16 inputs are computed in fp32 and
rounded once, as PyTorch does.

Inputs are mostly positive values spread log-uniformly over the dtype's range (fp32: its normal range, about 1e-38
to 3e38, so results span 5e-20 to 9e18; fp16: from the smallest subnormal, 6e-8, to 65504, which fp32 arithmetic
holds as normal numbers), plus a normal-distributed body, and exact zeros, negative zeros, +inf, negative numbers
and NaN. fp32 subnormal inputs are left out: a GPU's fast paths may flush them to zero. Layouts are contiguous,
transposed and strided.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "rsqrt",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["rsqrt", "sqrt", "pow", "float_power", "reciprocal", "hypot"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.rsqrt(input)


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
        (0.0, 0.3, lambda: inputs.randn(shape, dtype, generator, scale=3.0, offset=4.0).abs()),
    ])
    x = with_specials(x, pick, [0.0, -0.0, float("inf"), -3.0, float("nan")], share=4e-3)
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
