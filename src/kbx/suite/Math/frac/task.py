"""The fractional part, keeping the sign of the input, applied elementwise.

    frac(x) = x - trunc(x)  (frac(-2.75) = -0.75, not 0.25);  frac(+-inf) = NaN, frac(NaN) = NaN

Mirrors `torch.frac(input)`. The output has the input's shape and dtype. x - trunc(x) is exact in binary floating
point (it only drops the integer bits of x), so the contract is `exact`.

Inputs: a uniform spread over [-1000, 1000] (half of them negative, where frac differs from x - floor(x)), a normal
body, exact integers (frac 0), values in (-1, 1), large magnitudes from 1024 up to 1e30 in fp32 (integers above
2^23, beyond int32's range above 2^31) and up to 65504 in fp16, and +-inf, NaN and -0, in contiguous and
non-contiguous layouts.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "frac",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["frac", "trunc", "fix", "floor", "ceil", "round", "rint", "fmod", "remainder", "modf",
                  "floor_divide"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.frac(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    largest = 1e30 if dtype == "float32" else torch.finfo(inputs.torch_dtype(dtype)).max
    high = math.log2(largest) - 0.01
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = inputs.uniform(shape, -1000.0, 1000.0, "float32", generator)
    x = mix(x, pick, [
        (0.0, 0.2, lambda: inputs.randn(shape, "float32", generator, scale=3.0)),
        (0.2, 0.3, lambda: inputs.randint(-1000, 1001, shape, generator).float()),
        (0.3, 0.4, lambda: inputs.uniform(shape, -1.0, 1.0, "float32", generator)),
        (0.4, 0.5, lambda: random_signs(shape, generator) * 2.0 ** inputs.uniform(shape, 10.0, high, "float32",
                                                                                    generator)),
    ])
    x = with_specials(x.to(inputs.torch_dtype(dtype)), pick, [float("inf"), float("-inf"), float("nan"), -0.0])
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
