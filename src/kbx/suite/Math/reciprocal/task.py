"""The reciprocal, applied elementwise.

    reciprocal(x) = 1 / x;  1 / +-0 = +-inf, 1 / +-inf = +-0, 1 / NaN = NaN

Mirrors `torch.reciprocal(input)`. The output has the input's shape and dtype; fp16 inputs are computed in fp32 and
rounded once, as PyTorch does. IEEE division is correctly rounded, so a kernel can match PyTorch exactly.

Inputs are values of both signs spread log-uniformly over the dtype's range (fp32: its normal range, so results run
from about 3e-39, subnormal, to 8e37; fp16: down to its smallest subnormal, whose reciprocal overflows fp16 to inf),
a normal-distributed body, signed zeros, +-inf and NaN, in contiguous and non-contiguous layouts.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "reciprocal",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["reciprocal", "div", "divide", "true_divide", "rsqrt", "pow", "float_power", "truediv",
                  "rtruediv"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.reciprocal(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dt = inputs.torch_dtype(dtype)
    info = torch.finfo(dt)
    smallest = info.tiny * info.eps if dtype == "float16" else info.tiny
    low, high = math.log10(smallest), math.log10(info.max) - 0.01
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = (random_signs(shape, generator) * 10.0 ** inputs.uniform(shape, low, high, "float32", generator)).to(dt)
    x = mix(x, pick, [
        (0.0, 0.3, lambda: inputs.randn(shape, dtype, generator, scale=3.0, offset=0.5)),
    ])
    x = with_specials(x, pick, [0.0, -0.0, float("inf"), float("-inf"), float("nan")], share=4e-3)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}


def mix(x, pick, parts):
    """x with the elements whose `pick` lies in [low, high) replaced by make(), for each (low, high, make) in turn.

    Only one part's values are alive at a time, which keeps bench-sized inputs light on memory.
    """
    for low, high, make in parts:
        x = torch.where((pick >= low) & (pick < high), make(), x)
    return x


def random_signs(shape, generator):
    """+1.0 or -1.0 with equal odds (fp32)."""
    return torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
