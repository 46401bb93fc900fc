"""Elementwise power with a scalar exponent.

    pow(x, e) = x^e;  x^0 = 1 (even for NaN), 0^e = 0 for e > 0 and +inf for e < 0,
                      x^e = NaN for x < 0 unless e is an integer, where the sign is (-1)^e

Mirrors `torch.pow(input, exponent)` with a tensor `input` and a Python float `exponent` (the tensor-exponent and
scalar-base forms are not part of this task). The output has the input's shape and dtype; fp16 inputs are computed
in fp32 and rounded once, and PyTorch first rounds the exponent to the input's dtype (1.3 is 1.2998 in fp16).

Workloads use the exponents models meet most: 2.0 and 3.0 with bases of both signs (so a kernel that computes exp(e
log x) returns NaN for every negative base), 0.5 with positive bases, exact zeros and a few negative bases (NaN),
-1.5 with positive bases spanning many decades and exact zeros of both signs (+inf: IEEE pow gives +inf for
(-0)^-1.5, where (1 / x) * sqrt(1 / x) is sqrt(-inf) = NaN; an fp16 bench base of either sign below 3e-8 rounds to a
zero of its sign, and one such -0 failed the solution on an H200, 2026-11-28), a non-half-integer exponent, 1.3, on
moderate positive bases, and 0.0 on bases of both signs of which about a tenth are +-0, +-inf and NaN
(`check_zero_exponent`: every result is 1, where exp2(0 * log2|x|) is NaN at 0, +-inf and NaN). Magnitudes are spread
log-uniformly over the range where the result stays finite, plus a few outliers beyond it (whose results overflow to
+-inf or flush towards 0), in contiguous and non-contiguous layouts. No base is an fp32 subnormal (below 2^-126 in
magnitude, but not zero): Triton's libdevice flushes subnormal arguments to zero by default (`enable_reflect_ftz`), so
an honest libdevice.pow gets 0 for sqrt(1e-44) where PyTorch's CUDA kernel gets 1e-22 (56 of 4097 elements of
`check_sqrt` on an H200, 2026-11-28). Such bases are raised to 2^-126.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "pow",
    "category": "Math",
    "level": 1,
    "signature": "(input, exponent)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["pow", "float_power", "square", "sqrt", "rsqrt", "exp", "exp2", "log", "log2", "reciprocal",
                  "ldexp"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "exponent": 2.0}},
        {"name": "check_square_tail", "role": "check", "params": {"shape": [4097], "exponent": 2.0}},
        {"name": "check_cube_t", "role": "check", "params": {"shape": [129, 127], "exponent": 3.0,
                                                              "layout": "transposed"}},
        {"name": "check_sqrt", "role": "check",
         "params": {"shape": [4097], "exponent": 0.5, "signed_zeros": True}},
        {"name": "check_neg_three_halves", "role": "check",
         "params": {"shape": [3, 33, 65], "exponent": -1.5, "layout": "strided", "signed_zeros": True}},
        {"name": "check_general", "role": "check", "params": {"shape": [129, 127], "exponent": 1.3}},
        {"name": "check_zero_exponent", "role": "check",
         "params": {"shape": [1031], "exponent": 0.0, "specials": True}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768], "exponent": -1.5}},
    ],
}


def reference(input, exponent):
    return torch.pow(input, exponent)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, e = p["shape"], p["exponent"]
    info = torch.finfo(inputs.torch_dtype(dtype))
    integral = float(e).is_integer()
    if integral or float(2 * e).is_integer():
        # Magnitudes whose power stays between the smallest normal and the largest value of the dtype.
        span = 0.9 * min(math.log10(info.max), -math.log10(info.tiny)) / max(abs(e), 1.0)
    else:
        span = 3.0
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = 10.0 ** inputs.uniform(shape, -span, span, "float32", generator)
    x = mix(x, pick, [
        (0.0, 0.3, lambda: inputs.randn(shape, "float32", generator, scale=2.0, offset=0.5).abs()),
        (0.97, 1.0, lambda: 10.0 ** (1.3 * span * random_signs(shape, generator))),  # results out of range
    ])
    negative = inputs.uniform(shape, 0.0, 1.0, "float32", generator) < (0.5 if integral else 0.01)
    x = torch.where(negative, -x, x)
    x = torch.where((pick >= 0.96) & (pick < 0.97), torch.zeros_like(x), x)
    x = x.clamp(-info.max, info.max)  # outliers stay finite: pow(-inf, 0.5) differs between PyTorch's backends
    tiny = torch.finfo(torch.float32).tiny  # no fp32 subnormal bases (see above)
    x = torch.where((x != 0) & (x.abs() < tiny), x.sign() * tiny, x)
    if p.get("specials", False):
        # About a tenth of the bases become +0, -0, +inf, -inf or NaN, a fiftieth each.
        which = inputs.randint(0, 50, shape, generator)
        specials = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan], dtype=torch.float32, device=x.device)
        x = torch.where(which < 5, specials[which.clamp(max=4)], x)
    if p.get("signed_zeros", False):
        # Half of the exact zeros become -0 (as |tiny| bases of either sign round to in fp16): (-0)^-1.5 is +inf.
        x = torch.where((x == 0) & (inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5), -0.0, x)
    return {"input": inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous")), "exponent": e}


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
